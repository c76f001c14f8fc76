// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_device: validation of provider descriptions (their
 * code name tables included) and SIM_EXEC arguments, and the queue table
 * layout.
 */

#include "neuronprof_test_util.h"

#define DESC(member, val)	PATCH(struct nprof_device_desc, member, val)

static const struct patch_case desc_bad_cases[] = {
	{ "arch_zero", { DESC(arch, 0) } },
	{ "arch_unknown", { DESC(arch, NEURONPROF_ARCH_TRN2 + 1) } },
	{ "no_cores", { DESC(num_cores, 0) } },
	{ "too_many_cores", { DESC(num_cores, 257), DESC(num_topsps, 0) } },
	{ "too_many_topsps", { DESC(num_cores, 1), DESC(num_topsps, 257) } },
	{ "topsps_not_multiple", { DESC(num_topsps, 5) } },
	{ "no_engines", { DESC(engines_per_core, 0) } },
	{ "too_many_engines", { DESC(engines_per_core, NEURONPROF_MAX_ENGINES + 1) } },
	{ "core_has_topsp_type", { DESC(core_queue_types,
					CORE_TYPES | BIT(NEURONPROF_QT_TOPSP_EVENT)) } },
	{ "topsp_has_core_type", { DESC(topsp_queue_types,
					TOPSP_TYPES | BIT(NEURONPROF_QT_TRACE)) } },
	{ "unknown_type", { DESC(core_queue_types, CORE_TYPES | BIT(NEURONPROF_QT_MAX)) } },
	{ "per_engine_not_core_type", { DESC(core_queue_types, BIT(NEURONPROF_QT_ERROR)) } },
	{ "per_engine_topsp_type", { DESC(per_engine_queue_types,
					  BIT(NEURONPROF_QT_TOPSP_TRACE)) } },
	{ "min_zero", { DESC(min_ring_size, 0) } },
	{ "min_below_page", { DESC(min_ring_size, PAGE_SIZE / 2) } },
	{ "min_not_pow2", { DESC(min_ring_size, 3 * PAGE_SIZE) } },
	{ "max_below_min", { DESC(max_ring_size, PAGE_SIZE) } },
	{ "max_not_pow2", { DESC(max_ring_size, 24 * PAGE_SIZE) } },
	{ "max_above_limit", { DESC(max_ring_size, (u64)NPROF_RING_SIZE_LIMIT * 2) } },
	{ "unknown_cap", { DESC(caps, NEURONPROF_CAP_FLUSH | BIT_ULL(5)) } },
	{ "too_many_instances", { DESC(queue_instances, NEURONPROF_MAX_INSTANCES + 1) } },
	{ "unknown_clock_domain", { DESC(clock_domain, NEURONPROF_CLOCK_CAPTURED + 1) } },
	{ "raw_cap_without_format", { DESC(caps, NEURONPROF_CAP_FLUSH | NEURONPROF_CAP_RAW) } },
	{ "raw_format_without_cap", { DESC(raw_format, NEURONPROF_RAW_FORMAT_NEURON_V2) } },
	{ "unknown_raw_format", { DESC(caps, NEURONPROF_CAP_FLUSH | NEURONPROF_CAP_RAW),
				  DESC(raw_format, NEURONPROF_RAW_FORMAT_NEURON_V3 + 1) } },
	{ "flush_op_without_cap", { DESC(caps, 0) } },
	{ "sim_exec_cap_without_op", { DESC(caps, NEURONPROF_CAP_FLUSH |
					       NEURONPROF_CAP_SIM_EXEC) } },
};

KUNIT_ARRAY_PARAM(desc_bad, desc_bad_cases, patch_case_desc);

static void device_test_desc_bad(struct kunit *test)
{
	patch_case_check(test, PATCH_DESC, false);
}

/*
 * test_desc at every limit: the most cores, TopSPs, engines, queue
 * instances and the largest ring a description may declare, every
 * NeuronCore queue type per engine.
 */
static struct nprof_device_desc largest_desc(void)
{
	struct nprof_device_desc desc = test_desc;

	desc.num_cores = NPROF_MAX_CORES;
	desc.num_topsps = NPROF_MAX_TOPSPS;
	desc.engines_per_core = NEURONPROF_MAX_ENGINES;
	desc.per_engine_queue_types = CORE_TYPES;
	desc.queue_instances = NEURONPROF_MAX_INSTANCES;
	desc.max_ring_size = NPROF_RING_SIZE_LIMIT;
	return desc;
}

static void device_test_desc_good(struct kunit *test)
{
	struct nprof_device_desc desc = test_desc;
	const char *why = NULL;

	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), 0);
	desc.num_topsps = 0;
	desc.max_ring_size = desc.min_ring_size;
	desc.caps = 0;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops_noflush, &why), 0);
	desc = largest_desc();
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), 0);
	desc.caps = 0;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops_noflush, &why), 0);
}

static void device_test_desc_names_and_ops(struct kunit *test)
{
	struct nprof_device_desc desc = test_desc;
	struct nprof_hw_ops ops = tp_ops;
	const char *why;

	desc.provider = NULL;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), -EINVAL);
	desc.provider = "";
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), -EINVAL);
	desc.provider = "0123456789abcdef";
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), -EINVAL);
	desc.provider = "0123456789abcde";
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), 0);

	KUNIT_EXPECT_EQ(test, nprof_desc_validate(NULL, &tp_ops, &why), -EINVAL);
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&test_desc, NULL, &why), -EINVAL);
	ops.queue_start = NULL;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&test_desc, &ops, &why), -EINVAL);
	ops = tp_ops;
	ops.queue_stop = NULL;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&test_desc, &ops, &why), -EINVAL);
	ops = tp_ops;
	ops.sim_exec = tp_sim_exec;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&test_desc, &ops, &why), -EINVAL);
	desc = test_desc;
	desc.caps |= NEURONPROF_CAP_SIM_EXEC;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &ops, &why), 0);
	/* The flush capability needs the op, the op needs the capability. */
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&test_desc, &tp_ops_noflush, &why), -EINVAL);
}

/* A valid name table of test_desc: sorted by (queue_type, code). */
static const struct neuronprof_code_name test_names[] = {
	{ NEURONPROF_QT_TRACE, 0x100, "matmult" },
	{ NEURONPROF_QT_TRACE, 0x101, "matmult" },
	{ NEURONPROF_QT_TRACE, 0x200, "tensor_tensor" },
	{ NEURONPROF_QT_DMA, 0, "dma_copy" },
	{ NEURONPROF_QT_TOPSP_TRACE, 0x7f01, "collective.v2" },
};

/* One entry of test_names changed, or the table given inconsistently. */
struct names_case {
	const char *desc;
	u32 index;		/* entry patched */
	u32 queue_type;
	u32 code;
	const char *name;	/* copied with memcpy: may hold bytes after a NUL */
	u32 name_len;
	u32 count;		/* num_code_names, 0 for ARRAY_SIZE(test_names) */
	bool no_table;		/* code_names NULL */
	u64 caps;		/* 0 for test_desc's */
	u32 raw_format;
};

static const struct names_case names_bad_cases[] = {
	{ "count_without_table", 0, NEURONPROF_QT_TRACE, 0x100, "matmult", 8, .no_table = true },
	{ "too_many", 0, NEURONPROF_QT_TRACE, 0x100, "matmult", 8,
	  .count = NEURONPROF_MAX_CODE_NAMES + 1 },
	{ "raw_device", 0, NEURONPROF_QT_TRACE, 0x100, "matmult", 8,
	  .caps = NEURONPROF_CAP_FLUSH | NEURONPROF_CAP_RAW,
	  .raw_format = NEURONPROF_RAW_FORMAT_NEURON_V2 },
	{ "unknown_type", 4, NEURONPROF_QT_MAX, 0x7f01, "collective", 11 },
	{ "type_device_lacks", 4, NEURONPROF_QT_TOPSP_NOTIFY, 0x7f01, "collective", 11 },
	{ "unsorted_code", 1, NEURONPROF_QT_TRACE, 0x0ff, "matmult", 8 },
	{ "duplicate", 1, NEURONPROF_QT_TRACE, 0x100, "matmult", 8 },
	{ "unsorted_type", 2, NEURONPROF_QT_TOPSP_TRACE, 0, "collective", 11 },
	{ "empty_name", 0, NEURONPROF_QT_TRACE, 0x100, "", 1 },
	{ "upper_case", 0, NEURONPROF_QT_TRACE, 0x100, "MatMult", 8 },
	{ "space", 0, NEURONPROF_QT_TRACE, 0x100, "mat mult", 9 },
	{ "unterminated", 0, NEURONPROF_QT_TRACE, 0x100, "abcdefghijklmnopqrstuvwx",
	  NEURONPROF_CODE_NAME_LEN },
	{ "bytes_after_nul", 0, NEURONPROF_QT_TRACE, 0x100, "mat\0mult", 9 },
};

static void names_case_desc(const struct names_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(names_bad, names_bad_cases, names_case_desc);

static void device_test_names_bad(struct kunit *test)
{
	const struct names_case *c = test->param_value;
	struct nprof_device_desc desc = test_desc;
	struct neuronprof_code_name *names;
	const char *why = NULL;

	names = kunit_kcalloc(test, NEURONPROF_MAX_CODE_NAMES + 1, sizeof(*names), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, names);
	memcpy(names, test_names, sizeof(test_names));
	/* Unchanged, the table is valid. */
	desc.code_names = names;
	desc.num_code_names = ARRAY_SIZE(test_names);
	KUNIT_ASSERT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), 0);

	names[c->index].queue_type = c->queue_type;
	names[c->index].code = c->code;
	memset(names[c->index].name, 0, NEURONPROF_CODE_NAME_LEN);
	memcpy(names[c->index].name, c->name, c->name_len);
	if (c->count)
		desc.num_code_names = c->count;
	if (c->no_table)
		desc.code_names = NULL;
	if (c->caps) {
		desc.caps = c->caps;
		desc.raw_format = c->raw_format;
	}
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
}

static void device_test_names_good(struct kunit *test)
{
	struct nprof_device_desc desc = test_desc;
	struct neuronprof_code_name *names;
	const char *why = NULL;
	u32 i;

	/* A table given with no entries, and a raw device without one. */
	desc.code_names = test_names;
	desc.num_code_names = 0;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), -EINVAL);
	desc.code_names = NULL;
	desc.caps = NEURONPROF_CAP_FLUSH | NEURONPROF_CAP_RAW;
	desc.raw_format = NEURONPROF_RAW_FORMAT_NEURON_V2;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), 0);

	/* The largest table, and the longest name. */
	names = kunit_kcalloc(test, NEURONPROF_MAX_CODE_NAMES, sizeof(*names), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, names);
	for (i = 0; i < NEURONPROF_MAX_CODE_NAMES; i++) {
		names[i].queue_type = NEURONPROF_QT_TRACE;
		names[i].code = i;
		strscpy(names[i].name, "abcdefghijklmnopqrstu.9", NEURONPROF_CODE_NAME_LEN);
	}
	desc = test_desc;
	desc.code_names = names;
	desc.num_code_names = NEURONPROF_MAX_CODE_NAMES;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), 0);
}

#define EXEC(member, val)	PATCH(struct drm_neuronprof_sim_exec, member, val)

/*
 * On test_desc (2 cores with 3 TopSPs each, 4 engines), 2^16 iterations of
 * (instructions + 2 per engine + 4 per core + 4 per TopSP)
 * = 2^16 * (1006 + 2 + 4 + 12) = 2^26: exactly the limit.
 */
#define EXEC_LIMIT_ITERATIONS	65536
#define EXEC_LIMIT_INSTRUCTIONS	1006

static const struct patch_case exec_bad_cases[] = {
	{ "core", { EXEC(core, 2) } },
	{ "core_max", { EXEC(core, U32_MAX) } },
	{ "flags", { EXEC(flags, BIT(2)) } },
	{ "iterations_zero", { EXEC(iterations, 0) } },
	{ "iterations_above_max", { EXEC(iterations, NEURONPROF_SIM_MAX_ITERATIONS + 1) } },
	{ "engine_beyond_core", { EXEC(instructions[4], 1) } },
	{ "last_engine_slot", { EXEC(instructions[NEURONPROF_MAX_ENGINES - 1], 1) } },
	{ "instructions_above_max", { EXEC(instructions[0],
					   NEURONPROF_SIM_MAX_INSTRUCTIONS + 1) } },
	{ "dma_above_max", { EXEC(dma_transfers, NEURONPROF_SIM_MAX_DMA + 1) } },
	{ "reserved0", { EXEC(reserved[0], 1) } },
	{ "reserved1", { EXEC(reserved[1], 1) } },
	{ "one_above_limit", { EXEC(iterations, EXEC_LIMIT_ITERATIONS),
			       EXEC(instructions[0], EXEC_LIMIT_INSTRUCTIONS + 1) } },
	{ "dma_above_limit", { EXEC(iterations, EXEC_LIMIT_ITERATIONS),
			       EXEC(instructions[0], EXEC_LIMIT_INSTRUCTIONS),
			       EXEC(dma_transfers, 1) } },
	{ "everything_max", { EXEC(iterations, NEURONPROF_SIM_MAX_ITERATIONS),
			      EXEC(instructions[0], NEURONPROF_SIM_MAX_INSTRUCTIONS),
			      EXEC(dma_transfers, NEURONPROF_SIM_MAX_DMA) } },
};

KUNIT_ARRAY_PARAM(exec_bad, exec_bad_cases, patch_case_desc);

static const struct patch_case exec_good_cases[] = {
	{ "base", {} },
	{ "at_limit", { EXEC(iterations, EXEC_LIMIT_ITERATIONS),
			EXEC(instructions[0], EXEC_LIMIT_INSTRUCTIONS) } },
	{ "flags", { EXEC(flags, NEURONPROF_SIM_EXEC_ERROR | NEURONPROF_SIM_EXEC_THROTTLE) } },
	{ "last_core_engine", { EXEC(core, 1), EXEC(instructions[3], 7) } },
	{ "max_instructions_once", { EXEC(instructions[0], NEURONPROF_SIM_MAX_INSTRUCTIONS) } },
	{ "dma_only", { EXEC(instructions[0], 0), EXEC(dma_transfers, NEURONPROF_SIM_MAX_DMA) } },
	/* Out members are overwritten, never checked. */
	{ "out_members", { EXEC(status, 5), EXEC(produced[3], 9) } },
};

KUNIT_ARRAY_PARAM(exec_good, exec_good_cases, patch_case_desc);

static void device_test_exec_bad(struct kunit *test)
{
	patch_case_check(test, PATCH_SIM_EXEC, false);
}

static void device_test_exec_good(struct kunit *test)
{
	patch_case_check(test, PATCH_SIM_EXEC, true);
}

/*
 * Every queue of the largest topology has its own slot, and the queues of a
 * target lie in that target's range (nprof_queues_flushed() relies on it).
 */
static void device_test_queue_slots(struct kunit *test)
{
	const struct nprof_device_desc desc = largest_desc();
	const unsigned long per_target = NEURONPROF_QT_MAX * NEURONPROF_MAX_INSTANCES;
	const unsigned long nbits = (NPROF_MAX_CORES + NPROF_MAX_TOPSPS) * per_target;
	struct nprof_queue_id q;
	unsigned long *seen, slot, count = 0;

	seen = kunit_kzalloc(test, BITS_TO_LONGS(nbits) * sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, seen);
	for (q.kind = 0; q.kind < 2; q.kind++) {
		u32 targets = q.kind ? desc.num_topsps : desc.num_cores;

		for (q.index = 0; q.index < targets; q.index++)
			for (q.type = 0; q.type < NEURONPROF_QT_MAX; q.type++)
				for (q.engine = 0; q.engine < NEURONPROF_MAX_INSTANCES;
				     q.engine++) {
					unsigned long target;

					if (!nprof_queue_valid(&desc, &q))
						continue;
					slot = nprof_queue_slot(&desc, &q);
					target = q.index + (q.kind ? desc.num_cores : 0);
					KUNIT_ASSERT_LT(test, slot, nbits);
					KUNIT_EXPECT_EQ(test, slot / per_target, target);
					KUNIT_EXPECT_FALSE(test, __test_and_set_bit(slot, seen));
					count++;
				}
	}
	/* 6 per-engine core types * 16 instances + 3 TopSP types, per target. */
	KUNIT_EXPECT_EQ(test, count, NPROF_MAX_CORES * 6UL * 16 + NPROF_MAX_TOPSPS * 3UL);
}

struct kunit_case nprof_device_cases[] = {
	KUNIT_CASE_PARAM(device_test_desc_bad, desc_bad_gen_params),
	KUNIT_CASE(device_test_desc_good),
	KUNIT_CASE(device_test_desc_names_and_ops),
	KUNIT_CASE_PARAM(device_test_names_bad, names_bad_gen_params),
	KUNIT_CASE(device_test_names_good),
	KUNIT_CASE_PARAM(device_test_exec_bad, exec_bad_gen_params),
	KUNIT_CASE_PARAM(device_test_exec_good, exec_good_gen_params),
	KUNIT_CASE(device_test_queue_slots),
	{}
};
