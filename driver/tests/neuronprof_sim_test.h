/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of neuronprof_sim (neuronprof_sim_*_test.c) share.
 */
#ifndef NEURONPROF_SIM_TEST_H
#define NEURONPROF_SIM_TEST_H

#include <kunit/test.h>

#include "core/neuronprof_core.h"
#include "sim/sim.h"
#include "neuronprof_test_subs.h"

/* Device ids of the test devices: far above those created at load. */
#define SIM_TEST_ID		4000

#define SIM_TEST_MAX_RECORDS	4096

struct sim_test_record {
	struct nprof_queue_id q;
	struct neuronprof_notification n;
};

struct sim_test_rec {
	struct kunit *test;
	struct sim_test_record *recs;
	unsigned int nr;
	unsigned int cap;
	int fail_at;		/* emit fails with -EIO at this record, -1 never */
	u32 stop_iteration;	/* poll stops the run before it, 0 never */
	u64 polls_mid;
	u64 polls_boundary;
};

static inline int sim_test_emit(struct nprof_sim_run *run, const struct nprof_queue_id *q,
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

static inline struct sim_test_rec *sim_test_rec_new(struct kunit *test, unsigned int cap)
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

/* What a device test leaves behind, torn down by sim_device_exit(). */
struct sim_test_ctx {
	struct nprof_test_subs subs;
	unsigned int time_scale;	/* the parameter's value before the test */
};

static inline int sim_device_init(struct kunit *test)
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

static inline void sim_device_exit(struct kunit *test)
{
	struct sim_test_ctx *ctx = test->priv;

	/* A failed assertion must not leave subscriptions or the device behind. */
	nprof_test_subs_destroy_all(&ctx->subs);
	nprof_sim_dev_del(SIM_TEST_ID);
	WRITE_ONCE(nprof_sim_time_scale, ctx->time_scale);
}

static inline struct nprof_sim_device *sim_test_dev_new(struct kunit *test, u32 id,
							const char *arch)
{
	struct nprof_sim_device *sdev;

	KUNIT_ASSERT_EQ(test, nprof_sim_dev_new(id, nprof_sim_arch_by_name(arch)), 0);
	sdev = nprof_sim_dev_find(id);
	KUNIT_ASSERT_NOT_NULL(test, sdev);
	return sdev;
}

static inline struct nprof_sub *sim_test_try_subscribe(struct kunit *test,
						       struct nprof_sim_device *sdev,
						       u32 kind, u32 index, u32 type,
						       u32 engine, u64 ring_size)
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

static inline struct nprof_sub *sim_test_subscribe(struct kunit *test,
						   struct nprof_sim_device *sdev,
						   u32 kind, u32 index, u32 type,
						   u32 engine, u64 ring_size)
{
	struct nprof_sub *sub;

	sub = sim_test_try_subscribe(test, sdev, kind, index, type, engine, ring_size);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(sub), "subscribe %u/%u/%u/%u: %ld",
			       kind, index, type, engine, PTR_ERR(sub));
	return sub;
}

/*
 * The sim_exec callback as the core calls it: with the outputs zeroed (the
 * core validates the arguments too; these tests pass valid ones).
 */
static inline int sim_test_exec(struct nprof_device *ndev, struct drm_neuronprof_sim_exec *args)
{
	args->status = 0;
	memset(args->produced, 0, sizeof(args->produced));
	return nprof_sim_exec(ndev, args);
}

#endif /* NEURONPROF_SIM_TEST_H */
