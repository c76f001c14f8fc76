// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit test module of the neuronprof core and simulator: the fixtures
 * its suites share (declared in neuronprof_test_util.h) and the list of its
 * suites, each a name, its fixture and the table of cases of the file that
 * tests that part.
 */

#include "neuronprof_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* ---- the subscriptions a test holds -------------------------------------- */

/* nprof_sub_create(), remembered in @s if it succeeds. */
struct nprof_sub *nprof_test_subs_create(struct kunit *test, struct nprof_test_subs *s,
					 struct nprof_drmdev *ndev,
					 const struct drm_neuronprof_nq_subscribe *args)
{
	struct nprof_sub *sub;

	KUNIT_ASSERT_LT(test, s->nr, (unsigned int)NPROF_TEST_MAX_SUBS);
	sub = nprof_sub_create(ndev, args);
	if (!IS_ERR(sub))
		s->sub[s->nr++] = sub;
	return sub;
}

/* nprof_sub_destroy() of a subscription of @s; a stranger fails the test. */
void nprof_test_subs_destroy(struct kunit *test, struct nprof_test_subs *s,
			     struct nprof_sub *sub)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		if (s->sub[i] != sub)
			continue;
		s->sub[i] = s->sub[--s->nr];
		nprof_sub_destroy(sub);
		return;
	}
	KUNIT_FAIL(test, "unsubscribing an unknown subscription");
}

/* For a suite's exit: a failed assertion must not leave subscriptions behind. */
void nprof_test_subs_destroy_all(struct nprof_test_subs *s)
{
	while (s->nr)
		nprof_sub_destroy(s->sub[--s->nr]);
}

/* ---- table-driven argument patches --------------------------------------- */

void apply_patches(void *base, const struct field_patch *p, int n)
{
	int i;

	for (i = 0; i < n && p[i].size; i++) {
		if (p[i].size == sizeof(u32)) {
			u32 v = p[i].value;

			memcpy(base + p[i].off, &v, sizeof(v));
		} else {
			memcpy(base + p[i].off, &p[i].value, sizeof(u64));
		}
	}
}

void patch_case_desc(const struct patch_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

/* A copy of @what's valid struct, for @test. */
static void *patch_base_dup(struct kunit *test, enum patch_subject what)
{
	static const struct {
		const void *base;
		size_t size;
	} bases[] = {
		[PATCH_DESC] = { &test_desc, sizeof(test_desc) },
		[PATCH_SUBSCRIBE] = { &sub_base, sizeof(sub_base) },
		[PATCH_SIM_EXEC] = { &sim_exec_base, sizeof(sim_exec_base) },
	};
	void *args = kunit_kmalloc(test, bases[what].size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, args);
	return memcpy(args, bases[what].base, bases[what].size);
}

/*
 * The patch case test->param_value applied to a copy of @what's valid
 * struct, then validated as the core does for test_desc: a good case
 * (@valid) is accepted; a bad one is refused with -EINVAL and a reason.
 */
void patch_case_check(struct kunit *test, enum patch_subject what, bool valid)
{
	const struct patch_case *c = test->param_value;
	void *args = patch_base_dup(test, what);
	const char *why = NULL;
	int ret;

	apply_patches(args, c->p, ARRAY_SIZE(c->p));
	switch (what) {
	case PATCH_DESC:
		ret = nprof_desc_validate(args, &tp_ops, &why);
		break;
	case PATCH_SUBSCRIBE:
		ret = nprof_subscribe_validate(&test_desc, args, &why);
		break;
	default:
		ret = nprof_sim_exec_validate(&test_desc, args, &why);
	}
	if (valid) {
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "rejected: %s", why ? why : "?");
	} else {
		KUNIT_EXPECT_EQ(test, ret, -EINVAL);
		KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
	}
}

const struct nprof_device_desc test_desc = {
	.provider = "kunit",
	.arch = NEURONPROF_ARCH_TRN1,
	.num_cores = 2,
	.num_topsps = 6,
	.engines_per_core = 4,
	.core_queue_types = CORE_TYPES,
	.topsp_queue_types = TOPSP_TYPES,
	.per_engine_queue_types = ENGINE_TYPES,
	.min_ring_size = 2 * PAGE_SIZE,
	.max_ring_size = 16 * PAGE_SIZE,
	.caps = NEURONPROF_CAP_FLUSH,
};

const struct drm_neuronprof_nq_subscribe sub_base = {
	.target_kind = NEURONPROF_TARGET_CORE,
	.target_index = 0,
	.queue_type = NEURONPROF_QT_TRACE,
	.engine = 0,
	.ring_size = 4 * PAGE_SIZE,
};

const struct drm_neuronprof_sim_exec sim_exec_base = {
	.core = 0,
	.iterations = 1,
	.instructions = { 10 },
};

/* ---- the test provider ---------------------------------------------------- */

static int tp_queue_start(struct nprof_drmdev *ndev, const struct nprof_queue_id *q)
{
	struct tp_ctx *ctx = nprof_device_priv(ndev);

	if (ctx->start_ret)
		return ctx->start_ret;
	atomic_inc(&ctx->starts);
	return 0;
}

static void tp_queue_stop(struct nprof_drmdev *ndev, const struct nprof_queue_id *q)
{
	struct tp_ctx *ctx = nprof_device_priv(ndev);

	atomic_inc(&ctx->stops);
}

static int tp_flush(struct nprof_drmdev *ndev, const struct nprof_queue_id *q)
{
	struct tp_ctx *ctx = nprof_device_priv(ndev);

	atomic_inc(&ctx->flushes);
	return ctx->flush_ret;
}

/* Never registered with a device: only its presence in an ops struct matters. */
int tp_sim_exec(struct nprof_drmdev *ndev, struct drm_neuronprof_sim_exec *args)
{
	return -EOPNOTSUPP;
}

const struct nprof_hw_ops tp_ops = {
	.owner = THIS_MODULE,
	.queue_start = tp_queue_start,
	.queue_stop = tp_queue_stop,
	.flush = tp_flush,
};

const struct nprof_hw_ops tp_ops_noflush = {
	.owner = THIS_MODULE,
	.queue_start = tp_queue_start,
	.queue_stop = tp_queue_stop,
};

/* What a provider does: allocate, initialise, then publish. */
struct nprof_drmdev *tp_register(struct device *parent, const struct nprof_device_desc *desc,
				 const struct nprof_hw_ops *ops, void *priv)
{
	struct nprof_drmdev *ndev = nprof_device_alloc(parent, desc, ops, priv);
	int ret;

	if (IS_ERR(ndev))
		return ndev;
	ret = nprof_device_publish(ndev);
	if (ret) {
		nprof_device_free(ndev);
		return ERR_PTR(ret);
	}
	return ndev;
}

/*
 * A suite's init: a device of @desc registered by the test provider on a
 * new root device @parent_name, in test->priv's struct tp_ctx.
 */
int tp_fixture_init(struct kunit *test, const struct nprof_device_desc *desc,
		    const char *parent_name)
{
	struct tp_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->test = test;
	ctx->parent = root_device_register(parent_name);
	if (IS_ERR(ctx->parent))
		return PTR_ERR(ctx->parent);
	ctx->ndev = tp_register(ctx->parent, desc, &tp_ops, ctx);
	if (IS_ERR(ctx->ndev)) {
		root_device_unregister(ctx->parent);
		return PTR_ERR(ctx->ndev);
	}
	test->priv = ctx;
	return 0;
}

void tp_fixture_exit(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;

	/* A failed assertion must not leave subscriptions or devices behind. */
	nprof_test_subs_destroy_all(&ctx->subs);
	if (ctx->ndev_noflush)
		nprof_device_unregister(ctx->ndev_noflush);
	if (!ctx->unregistered)
		nprof_device_unregister(ctx->ndev);
	root_device_unregister(ctx->parent);
}

static int tp_unplug_init(struct kunit *test)
{
	return tp_fixture_init(test, &test_desc, "neuronprof_kunit");
}

struct nprof_sub *tp_subscribe(struct kunit *test, struct nprof_drmdev *ndev,
			       const struct drm_neuronprof_nq_subscribe *args)
{
	struct tp_ctx *ctx = test->priv;

	return nprof_test_subs_create(test, &ctx->subs, ndev, args);
}

void tp_unsubscribe(struct kunit *test, struct nprof_sub *sub)
{
	struct tp_ctx *ctx = test->priv;

	nprof_test_subs_destroy(test, &ctx->subs, sub);
}

/* What a userspace consumer does once it has read everything. */
void tp_consume_all(struct nprof_sub *sub)
{
	/* D of Documentation/ring.rst: the consumer's release store. */
	smp_store_release(&sub->ring.cons_page->consumer_pos, sub->ring.prod);
}

/* ---- simulated devices and the program recorder --------------------------- */

int sim_test_emit(struct nprof_sim_run *run, const struct nprof_queue_id *q,
		  struct neuronprof_notification *n)
{
	struct sim_test_rec *rec = run->priv;

	if (rec->fail_at >= 0 && rec->nr == rec->fail_at)
		return -EIO;
	if (rec->nr >= rec->cap)
		return -ENOSPC;
	rec->recs[rec->nr].q = *q;
	rec->recs[rec->nr].n = *n;
	rec->nr++;
	return 0;
}

struct sim_test_rec *sim_test_rec_new(struct kunit *test, unsigned int cap)
{
	struct sim_test_rec *rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rec);
	rec->recs = kunit_kmalloc_array(test, cap, sizeof(*rec->recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec->recs);
	rec->test = test;
	rec->cap = cap;
	rec->fail_at = -1;
	return rec;
}

int sim_device_init(struct kunit *test)
{
	struct sim_test_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	/* Unpaced unless a test asks: executions run at memory speed. */
	ctx->time_scale = nprof_sim_time_scale;
	WRITE_ONCE(nprof_sim_time_scale, 0);
	return 0;
}

void sim_device_exit(struct kunit *test)
{
	struct sim_test_ctx *ctx = test->priv;

	/* A failed assertion must not leave subscriptions or the device behind. */
	nprof_test_subs_destroy_all(&ctx->subs);
	nprof_sim_dev_del(SIM_TEST_ID);
	WRITE_ONCE(nprof_sim_time_scale, ctx->time_scale);
}

struct nprof_sim_device *sim_test_dev_new(struct kunit *test, u32 id, const char *arch)
{
	struct nprof_sim_device *sdev;

	KUNIT_ASSERT_EQ(test, nprof_sim_dev_new(id, nprof_sim_arch_by_name(arch)), 0);
	sdev = nprof_sim_dev_find(id);
	KUNIT_ASSERT_NOT_NULL(test, sdev);
	return sdev;
}

struct nprof_sub *sim_test_try_subscribe(struct kunit *test, struct nprof_sim_device *sdev,
					 u32 kind, u32 index, u32 type, u32 engine,
					 u64 ring_size)
{
	struct sim_test_ctx *ctx = test->priv;
	const struct drm_neuronprof_nq_subscribe args = {
		.target_kind = kind,
		.target_index = index,
		.queue_type = type,
		.engine = engine,
		.ring_size = ring_size,
	};

	return nprof_test_subs_create(test, &ctx->subs, sdev->ndev, &args);
}

struct nprof_sub *sim_test_subscribe(struct kunit *test, struct nprof_sim_device *sdev,
				     u32 kind, u32 index, u32 type, u32 engine, u64 ring_size)
{
	struct nprof_sub *sub;

	sub = sim_test_try_subscribe(test, sdev, kind, index, type, engine, ring_size);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(sub), "subscribe %u/%u/%u/%u: %ld",
			       kind, index, type, engine, PTR_ERR(sub));
	return sub;
}

void sim_test_unsubscribe(struct kunit *test, struct nprof_sub *sub)
{
	struct sim_test_ctx *ctx = test->priv;

	nprof_test_subs_destroy(test, &ctx->subs, sub);
}

/*
 * The sim_exec callback as the core calls it: with the outputs zeroed (the
 * core validates the arguments too; these tests pass valid ones).
 */
int sim_test_exec(struct nprof_drmdev *ndev, struct drm_neuronprof_sim_exec *args)
{
	args->status = 0;
	memset(args->produced, 0, sizeof(args->produced));
	return nprof_sim_exec(ndev, args);
}

/* ---- benchmarks ----------------------------------------------------------- */

/*
 * The baseline of the benchmarks: one prepared entry copied into
 * consecutive slots of a buffer of @entries entries, vmalloc()ed like a
 * ring, like the producer's final memcpy. The best of @rounds, in ns.
 */
u64 nprof_bench_memcpy_ns(struct kunit *test, unsigned int entries, unsigned int rounds)
{
	struct neuronprof_notification src = { .code = 1, .model_id = 2 };
	struct neuronprof_notification *buf;
	u64 t0, t, best = U64_MAX;
	unsigned int i, r;

	buf = vzalloc(array_size(entries, sizeof(*buf)));
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (r = 0; r < rounds; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < entries; i++) {
			src.seq = i;
			memcpy(&buf[i], &src, sizeof(src));
			/* Keep the compiler from merging or dropping the copies. */
			barrier();
		}
		t = ktime_get_ns() - t0;
		best = min(best, t);
	}
	vfree(buf);
	return best;
}

/* ---- the suites ----------------------------------------------------------- */

/*
 * One row per suite: its name, the fixture its cases run in (none, the test
 * provider's device, or simulated devices) and its table of cases.
 */
static struct kunit_suite nprof_suites[] = {
	{ .name = "neuronprof_ring", .test_cases = nprof_ring_cases },
	{ .name = "neuronprof_subscribe", .test_cases = nprof_subscribe_cases },
	{ .name = "neuronprof_device", .test_cases = nprof_device_cases },
	{ .name = "neuronprof_unplug", .init = tp_unplug_init, .exit = tp_fixture_exit,
	  .test_cases = nprof_unplug_cases },
	{ .name = "neuronprof_fanout_bench", .init = fanout_bench_init,
	  .exit = tp_fixture_exit, .test_cases = nprof_fanout_bench_cases },
	{ .name = "neuronprof_sim_program", .test_cases = nprof_sim_program_cases },
	{ .name = "neuronprof_sim_device", .init = sim_device_init, .exit = sim_device_exit,
	  .test_cases = nprof_sim_device_cases },
	{ .name = "neuronprof_sim_bench", .init = sim_device_init, .exit = sim_device_exit,
	  .test_cases = nprof_sim_bench_cases },
};

kunit_test_suites(&nprof_suites[0], &nprof_suites[1], &nprof_suites[2], &nprof_suites[3],
		  &nprof_suites[4], &nprof_suites[5], &nprof_suites[6], &nprof_suites[7]);

MODULE_DESCRIPTION("KUnit tests of the neuronprof core and simulator");
MODULE_LICENSE("GPL");
