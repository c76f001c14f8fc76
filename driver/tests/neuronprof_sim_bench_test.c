// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_sim_bench: the cost of producing one notification
 * against a memcpy of the entry. It reports, it never asserts on time.
 */

#include "neuronprof_test_util.h"

#define SIM_BENCH_ENTRIES	65536U

#define SIM_BENCH_RING_SIZE	(SIM_BENCH_ENTRIES * NPROF_ENTRY_SIZE)

static void sim_bench_report(struct kunit *test, const char *what, u64 t_prod)
{
	u64 t_copy = nprof_bench_memcpy_ns(test, SIM_BENCH_ENTRIES, 1);
	u64 prod_ps = div_u64(t_prod * 1000, SIM_BENCH_ENTRIES);
	u64 copy_ps = div_u64(t_copy * 1000, SIM_BENCH_ENTRIES) ?: 1;

	kunit_info(test, "%s: %llu.%03llu ns/notification over %u\n", what,
		   prod_ps / 1000, prod_ps % 1000, SIM_BENCH_ENTRIES);
	kunit_info(test, "memcpy of one %zu-byte entry: %llu.%03llu ns/entry\n",
		   sizeof(struct neuronprof_notification), copy_ps / 1000, copy_ps % 1000);
	kunit_info(test, "ratio %s / memcpy: %llu.%02llu\n", what,
		   div_u64(prod_ps, copy_ps), div_u64(prod_ps * 100, copy_ps) % 100);
}

struct sim_bench_buf {
	struct neuronprof_notification *buf;
	unsigned int pos;
};

static int sim_bench_emit(struct nprof_sim_run *run, const struct nprof_queue_id *q,
			  struct neuronprof_notification *n)
{
	struct sim_bench_buf *b = run->priv;

	memcpy(&b->buf[b->pos++ % SIM_BENCH_ENTRIES], n, sizeof(*n));
	return 0;
}

/* The generator alone: program, timestamps and a copy into a buffer. */
static void sim_bench_generator(struct kunit *test)
{
	static const struct nprof_sim_gen_program prog = {
		.iterations = 1, .instructions = { SIM_BENCH_ENTRIES - 4 },
	};
	struct sim_bench_buf b = { 0 };
	struct nprof_sim_run run = {
		.prog = &prog, .engines = 1, .emit = sim_bench_emit, .priv = &b,
	};
	u64 t0;
	int ret;

	b.buf = vzalloc(SIM_BENCH_RING_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, b.buf);
	t0 = ktime_get_ns();
	ret = nprof_sim_program_run(&run);
	t0 = ktime_get_ns() - t0;
	vfree(b.buf);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, run.emitted, (u64)SIM_BENCH_ENTRIES);
	sim_bench_report(test, "generator + emit memcpy", t0);
}

/*
 * The whole producer: a SIM_EXEC on a real device whose TRACE queue is
 * subscribed with a ring that holds every entry, through nprof_notify().
 */
static void sim_bench_notify(struct kunit *test)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "trn2");
	struct drm_neuronprof_sim_exec args = {
		.iterations = 1, .instructions = { SIM_BENCH_ENTRIES },
	};
	struct nprof_sub *sub;
	u64 t0;

	sub = sim_test_subscribe(test, sdev, NEURONPROF_TARGET_CORE, 0,
				 NEURONPROF_QT_TRACE, 0, SIM_BENCH_RING_SIZE);
	t0 = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	t0 = ktime_get_ns() - t0;
	KUNIT_ASSERT_EQ(test, args.produced[NEURONPROF_QT_TRACE], (u64)SIM_BENCH_ENTRIES);
	KUNIT_ASSERT_EQ(test, sub->ring.lost, 0ULL);
	sim_bench_report(test, "SIM_EXEC through nprof_notify into a ring", t0);
}

struct kunit_case nprof_sim_bench_cases[] = {
	KUNIT_CASE(sim_bench_generator),
	KUNIT_CASE(sim_bench_notify),
	{}
};
