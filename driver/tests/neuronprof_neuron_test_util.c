// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit test module of the neuron.ko provider, driven by the fake
 * neuron.ko: the fixture its suites share (declared in
 * neuronprof_neuron_test_util.h) and the list of its suites, each a name,
 * its fixture and the table of cases of the file that tests that part.
 */

#include <linux/err.h>
#include <linux/module.h>

#include "neuronprof_neuron_test_util.h"
#include "neuronprof_packed_walk.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* Every case starts with no device and the default format: 64-byte entries, ring indices. */
int nn_init(struct kunit *test)
{
	struct nn_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	ctx->dev = -1;
	test->priv = ctx;
	if (nprof_nn_set_format(64, NPROF_NN_HEAD_RING_ENTRIES))
		return -EINVAL;
	nprof_fake_set_format(64, NPROF_NN_HEAD_RING_ENTRIES);
	return 0;
}

/* What a failed assertion left behind goes; the next case gets the defaults back. */
void nn_exit(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	int i;

	for (i = 0; i < NN_MAX_SUBS; i++)
		if (ctx->sub[i])
			nprof_sub_destroy(ctx->sub[i]);
	if (ctx->dev >= 0)
		nprof_fake_remove(ctx->dev);
	KUNIT_EXPECT_EQ(test, nprof_nn_set_format(64, NPROF_NN_HEAD_RING_ENTRIES), 0);
	nprof_fake_set_format(64, NPROF_NN_HEAD_RING_ENTRIES);
}

/* A trn1-like device (2 cores, 6 TopSPs) of the fake neuron.ko and its neuronprof device. */
struct nprof_drmdev *nn_device(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	struct nprof_drmdev *ndev;

	ctx->dev = nprof_fake_add(2, 2, 6);
	KUNIT_ASSERT_GE(test, ctx->dev, 0);
	ndev = nprof_nn_ndev(ctx->dev);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	return ndev;
}

/* The same, its entries of @entry_size bytes, its head registers as @head_mode says. */
struct nprof_drmdev *nn_format_device(struct kunit *test, u32 entry_size, u32 head_mode)
{
	KUNIT_ASSERT_EQ(test, nprof_nn_set_format(entry_size, head_mode), 0);
	nprof_fake_set_format(entry_size, head_mode);
	return nn_device(test);
}

/* nprof_sub_create(), remembered for the exit; the test fails if it fails. */
struct nprof_sub *nn_subscribe(struct kunit *test, struct nprof_drmdev *ndev,
			       const struct drm_neuronprof_nq_subscribe *args)
{
	struct nn_ctx *ctx = test->priv;
	struct nprof_sub *sub;
	int i;

	for (i = 0; i < NN_MAX_SUBS && ctx->sub[i]; i++)
		;
	KUNIT_ASSERT_LT(test, i, NN_MAX_SUBS);
	sub = nprof_sub_create(ndev, args);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sub));
	ctx->sub[i] = sub;
	return sub;
}

/* A subscription of queue @type of @engine of target @kind @index, a ring of @ring_size bytes. */
struct nprof_sub *nn_subscribe_queue(struct kunit *test, struct nprof_drmdev *ndev, u32 kind,
				     u32 index, u32 type, u32 engine, u64 ring_size)
{
	const struct drm_neuronprof_nq_subscribe args = {
		.target_kind = kind, .target_index = index, .queue_type = type,
		.engine = engine, .ring_size = ring_size,
	};

	return nn_subscribe(test, ndev, &args);
}

/* The runtime programs a queue of the device in host memory; its fake queue index. */
int nn_program(struct kunit *test, u32 target, u32 id, u32 nq_type, u32 engine, u32 size)
{
	struct nn_ctx *ctx = test->priv;
	int q = nprof_fake_program(ctx->dev, target, id, nq_type, engine, size);

	KUNIT_ASSERT_GE(test, q, 0);
	return q;
}

/*
 * A subscription of core 0's TRACE engine 1 queue (vendor type 0, @type
 * for the subscription), a ring of @ring_size bytes, and that queue
 * programmed in device memory, @size bytes, which the fake hands the hook
 * a BAR4 mapping of (so it is subscribable); its fake queue index.
 */
int nn_devmem_queue(struct kunit *test, u32 type, u64 ring_size, u32 size)
{
	struct nn_ctx *ctx = test->priv;
	struct nprof_sub *sub = nn_subscribe_queue(test, nn_device(test), NEURONPROF_TARGET_CORE,
						   0, type, 1, ring_size);
	int q;

	q = nprof_fake_program_at(ctx->dev, NEURON_NQ_HOOK_NC, 0, 0, 1, size, false);
	KUNIT_ASSERT_GE(test, q, 0);
	KUNIT_ASSERT_FALSE(test, READ_ONCE(sub->ring.hdr->flags) & NEURONPROF_RING_UNREADABLE);
	return q;
}

/*
 * Check the packed records of the first subscription from ring byte @from
 * to the producer: device entries @first.. of fake queue @q in order (64
 * bytes, two 32-byte parts each), the first part being sequence number
 * @seq. Returns the parts checked.
 */
u64 nn_check_parts(struct kunit *test, int q, u64 from, u64 seq, u32 first)
{
	struct nprof_sub *sub = ((struct nn_ctx *)test->priv)->sub[0];
	struct neuronprof_notification e;
	u64 i;

	for (i = 0; nn_part(test, sub, from, i, &e); i++) {
		u32 dev_seq = first + i / 2, p = i % 2;

		KUNIT_ASSERT_EQ(test, e.seq, seq + i);
		KUNIT_ASSERT_EQ(test, e.code, NEURONPROF_RAW_CODE(32, p, 2));
		if (!p)
			KUNIT_ASSERT_EQ(test, e.payload[0], NPROF_FAKE_WORD0(q, dev_seq));
		else
			KUNIT_ASSERT_EQ(test, ((const u8 *)e.payload)[0], (u8)(dev_seq + 32));
	}
	return i;
}

/*
 * Five rounds on fake queue @q: the device produces 50 entries, the
 * runtime consumes them in head writes of 30 and 20 (250 entries, across
 * the wraps of a 64-entry ring, some head writes straddling one).
 */
void nn_wrap_rounds(struct kunit *test, int q)
{
	struct nn_ctx *ctx = test->priv;
	int round;

	for (round = 0; round < 5; round++) {
		KUNIT_ASSERT_EQ(test, nprof_fake_produce(ctx->dev, q, 50), 50L);
		KUNIT_ASSERT_EQ(test, nprof_fake_consume(ctx->dev, q, 30, true), 30L);
		KUNIT_ASSERT_EQ(test, nprof_fake_consume(ctx->dev, q, 20, true), 20L);
	}
}

/* The device produces @n entries of fake queue @q; the runtime consumes them, one head write. */
void nn_head_write(struct kunit *test, int q, u32 n)
{
	struct nn_ctx *ctx = test->priv;

	KUNIT_ASSERT_EQ(test, nprof_fake_produce(ctx->dev, q, n), (long)n);
	KUNIT_ASSERT_EQ(test, nprof_fake_consume(ctx->dev, q, n, true), (long)n);
}

/* ---- the suites ----------------------------------------------------------- */

static struct kunit_suite nn_suites[] = {
	{ .name = "neuronprof_neuron", .init = nn_init, .exit = nn_exit,
	  .test_cases = nn_cases },
	{ .name = "neuronprof_neuron_devmem", .init = nn_dm_init, .exit = nn_dm_exit,
	  .test_cases = nn_dm_cases },
	{ .name = "neuronprof_packed", .init = nn_init, .exit = nn_exit,
	  .test_cases = np_cases },
	{ .name = "neuronprof_neuron_headread", .init = nn_hr_init, .exit = nn_hr_exit,
	  .test_cases = nn_hr_cases },
	{ .name = "neuronprof_head_wake", .init = nn_init, .exit = nn_exit,
	  .test_cases = nw_cases },
#if IS_ENABLED(CONFIG_DRM_NEURONPROF_NEURON_KUNIT_BENCH)
	/* Not a test: only in the benchmark's build (driver/tests/bench/.kunitconfig). */
	{ .name = "neuronprof_neuron_bench", .init = nn_init, .exit = nn_exit,
	  .test_cases = nb_cases },
#endif
};

kunit_test_suites(&nn_suites[0], &nn_suites[1], &nn_suites[2], &nn_suites[3],
		  &nn_suites[4]);
#if IS_ENABLED(CONFIG_DRM_NEURONPROF_NEURON_KUNIT_BENCH)
kunit_test_suites(&nn_suites[5]);
#endif

MODULE_DESCRIPTION("KUnit tests of neuronprof_neuron with the fake neuron.ko");
MODULE_LICENSE("GPL");
