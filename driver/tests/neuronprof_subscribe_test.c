// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_subscribe: NQ_SUBSCRIBE argument validation over
 * tables of bad and good inputs, and the queue check (nprof_queue_valid()).
 */

#include "neuronprof_test_util.h"

#define SUB(member, val)	PATCH(struct drm_neuronprof_nq_subscribe, member, val)

static const struct patch_case sub_bad_cases[] = {
	{ "flags", { SUB(flags, 1) } },
	{ "flags_high", { SUB(flags, 1U << 31) } },
	{ "pad", { SUB(pad, 1) } },
	{ "reserved0", { SUB(reserved[0], 1) } },
	{ "reserved1", { SUB(reserved[1], 1ULL << 63) } },
	{ "kind_unknown", { SUB(target_kind, 2) } },
	{ "kind_max", { SUB(target_kind, U32_MAX) } },
	{ "core_index", { SUB(target_index, 2) } },
	{ "core_index_max", { SUB(target_index, U32_MAX) } },
	{ "topsp_index", { SUB(target_kind, NEURONPROF_TARGET_TOPSP),
			   SUB(target_index, 6),
			   SUB(queue_type, NEURONPROF_QT_TOPSP_TRACE) } },
	{ "core_with_topsp_type", { SUB(queue_type, NEURONPROF_QT_TOPSP_TRACE) } },
	{ "topsp_with_core_type", { SUB(target_kind, NEURONPROF_TARGET_TOPSP),
				    SUB(queue_type, NEURONPROF_QT_TRACE) } },
	{ "type_count", { SUB(queue_type, NEURONPROF_QT_COUNT) } },
	{ "type_max", { SUB(queue_type, U32_MAX) } },
	{ "engine_beyond_core", { SUB(engine, 4) } },
	{ "engine_max", { SUB(queue_type, NEURONPROF_QT_EVENT), SUB(engine, U32_MAX) } },
	{ "engine_on_single_queue", { SUB(queue_type, NEURONPROF_QT_ERROR), SUB(engine, 1) } },
	{ "engine_on_topsp", { SUB(target_kind, NEURONPROF_TARGET_TOPSP),
			       SUB(queue_type, NEURONPROF_QT_TOPSP_TRACE), SUB(engine, 1) } },
	{ "ring_zero", { SUB(ring_size, 0) } },
	{ "ring_not_pow2", { SUB(ring_size, 3 * PAGE_SIZE) } },
	{ "ring_entry_over_pow2", { SUB(ring_size, 4 * PAGE_SIZE + ENTRY) } },
	{ "ring_below_page", { SUB(ring_size, PAGE_SIZE / 2) } },
	{ "ring_below_min", { SUB(ring_size, PAGE_SIZE) } },
	{ "ring_above_max", { SUB(ring_size, 32 * PAGE_SIZE) } },
	{ "ring_huge", { SUB(ring_size, 1ULL << 63) } },
	{ "watermark_above_ring", { SUB(watermark, 4 * PAGE_SIZE + 1) } },
	{ "watermark_max", { SUB(watermark, U32_MAX) } },
};

KUNIT_ARRAY_PARAM(sub_bad, sub_bad_cases, patch_case_desc);

static const struct patch_case sub_good_cases[] = {
	{ "base", {} },
	{ "last_engine", { SUB(engine, 3) } },
	{ "event_engine", { SUB(queue_type, NEURONPROF_QT_EVENT), SUB(engine, 2) } },
	{ "dma_core1", { SUB(target_index, 1), SUB(queue_type, NEURONPROF_QT_DMA),
			 SUB(engine, 3) } },
	{ "single_queue", { SUB(queue_type, NEURONPROF_QT_INFER_STATUS) } },
	{ "last_topsp", { SUB(target_kind, NEURONPROF_TARGET_TOPSP), SUB(target_index, 5),
			  SUB(queue_type, NEURONPROF_QT_TOPSP_ERROR) } },
	{ "ring_min", { SUB(ring_size, 2 * PAGE_SIZE) } },
	{ "ring_max_full_watermark", { SUB(ring_size, 16 * PAGE_SIZE),
				       SUB(watermark, 16 * PAGE_SIZE) } },
	{ "odd_watermark", { SUB(watermark, 100) } },
	/* Out members are overwritten, never checked. */
	{ "fd_in", { SUB(fd, 1234), SUB(data_size, 99) } },
};

KUNIT_ARRAY_PARAM(sub_good, sub_good_cases, patch_case_desc);

static void subscribe_test_bad(struct kunit *test)
{
	patch_case_check(test, PATCH_SUBSCRIBE, false);
}

static void subscribe_test_good(struct kunit *test)
{
	patch_case_check(test, PATCH_SUBSCRIBE, true);
}

/* The queue check providers use agrees with subscribe's. */
static void subscribe_test_queue_valid(struct kunit *test)
{
	struct nprof_queue_id q = { NEURONPROF_TARGET_CORE, 1, NEURONPROF_QT_EVENT, 3 };

	KUNIT_EXPECT_TRUE(test, nprof_queue_valid(&test_desc, &q));
	q.engine = 4;
	KUNIT_EXPECT_FALSE(test, nprof_queue_valid(&test_desc, &q));
	q = (struct nprof_queue_id){ NEURONPROF_TARGET_TOPSP, 5, NEURONPROF_QT_TOPSP_EVENT, 0 };
	KUNIT_EXPECT_TRUE(test, nprof_queue_valid(&test_desc, &q));
	q.index = 6;
	KUNIT_EXPECT_FALSE(test, nprof_queue_valid(&test_desc, &q));
	q = (struct nprof_queue_id){ 7, 0, NEURONPROF_QT_TRACE, 0 };
	KUNIT_EXPECT_FALSE(test, nprof_queue_valid(&test_desc, &q));
}

struct kunit_case nprof_subscribe_cases[] = {
	KUNIT_CASE_PARAM(subscribe_test_bad, sub_bad_gen_params),
	KUNIT_CASE_PARAM(subscribe_test_good, sub_good_gen_params),
	KUNIT_CASE(subscribe_test_queue_valid),
	{}
};
