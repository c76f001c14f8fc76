// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_sim_bench: the cost of producing one notification
 * against a memcpy of the entry. It reports, it never asserts on time.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/mutex.h>
#include <linux/err.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "core/neuronprof_core.h"
#include "sim/sim.h"
#include "neuronprof_test_subs.h"
#include "neuronprof_sim_test.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define SIM_BENCH_ENTRIES	65536U

#define SIM_BENCH_RING_SIZE	(SIM_BENCH_ENTRIES * NPROF_ENTRY_SIZE)

/*
 * The baseline: copy one prepared entry into consecutive slots of a buffer
 * as large as the ring, like the producer's final memcpy.
 */
static u64 sim_bench_memcpy_ns(struct kunit *test)
{
	struct neuronprof_notification src = { .code = 1, .model_id = 2 };
	struct neuronprof_notification *buf;
	unsigned int i;
	u64 t0, t;

	/* vmalloc()ed like the ring, and populated at once like it. */
	buf = vzalloc(SIM_BENCH_RING_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	t0 = ktime_get_ns();
	for (i = 0; i < SIM_BENCH_ENTRIES; i++) {
		src.seq = i;
		memcpy(&buf[i], &src, sizeof(src));
		/* Keep the compiler from merging or dropping the copies. */
		barrier();
	}
	t = ktime_get_ns() - t0;
	vfree(buf);
	return t;
}

static void sim_bench_report(struct kunit *test, const char *what, u64 t_prod)
{
	u64 t_copy = sim_bench_memcpy_ns(test);
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

static struct kunit_case sim_bench_cases[] = {
	KUNIT_CASE(sim_bench_generator),
	KUNIT_CASE(sim_bench_notify),
	{}
};

static struct kunit_suite sim_bench_suite = {
	.name = "neuronprof_sim_bench",
	.init = sim_device_init,
	.exit = sim_device_exit,
	.test_cases = sim_bench_cases,
};

kunit_test_suite(sim_bench_suite);

MODULE_DESCRIPTION("KUnit benchmark of neuronprof_sim's generator");
MODULE_LICENSE("GPL");
