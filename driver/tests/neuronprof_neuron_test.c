// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_neuron: the provider for neuron.ko devices
 * (driver/neuron/provider.c) driven through the hook by the fake neuron.ko
 * (driver/tests/fake_neuron.c): devices come and go, queues are programmed in host
 * memory per the public register map, the "hardware" writes synthetic
 * entries and the "runtime" consumes them and writes heads. Every case
 * checks that what the runtime consumed was delivered or counted as lost,
 * exactly, and that delivered entries carry the device's bytes in order.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/err.h>
#include <linux/moduleparam.h>
#include <linux/poll.h>
#include <linux/string.h>

#include "neuronprof_neuron_test_util.h"
#include "neuronprof_packed_walk.h"

#define NN_RING		(64 * 64)	/* device ring: 64 entries of 64 bytes */

/*
 * Check the ring holds device entries @first.. of fake queue @q in order,
 * @parts 32-byte parts each; return the device entries delivered.
 */
static u64 nn_test_check_ring(struct kunit *test, struct nprof_sub *sub, int q, u32 first,
			      u32 parts)
{
	struct neuronprof_notification e;
	u64 i;

	for (i = 0; nn_part(test, sub, 0, i, &e); i++) {
		u32 seq = first + i / parts, p = i % parts;

		KUNIT_ASSERT_EQ(test, e.seq, i);
		KUNIT_ASSERT_EQ(test, e.code, NEURONPROF_RAW_CODE(32, p, parts));
		KUNIT_ASSERT_EQ(test, e.model_id, (u32)NEURONPROF_RAW_FORMAT_NEURON_V2);
		KUNIT_ASSERT_EQ(test, e.iteration, (u32)(i / parts));
		if (!p)
			KUNIT_ASSERT_EQ(test, e.payload[0], NPROF_FAKE_WORD0(q, seq));
		else
			KUNIT_ASSERT_EQ(test, ((const u8 *)e.payload)[0], (u8)(seq + 32 * p));
	}
	return i / parts;
}

/* Part @i delivered from ring position 0 on (the test fails without one). */
static struct neuronprof_notification nn_part_at(struct kunit *test, struct nprof_sub *sub, u64 i)
{
	struct neuronprof_notification e = {};

	KUNIT_EXPECT_TRUE(test, nn_part(test, sub, 0, i, &e));
	return e;
}

/* The device is announced with what the provider knows. */
static void nn_test_device_info(struct kunit *test)
{
	struct nprof_drmdev *ndev = nn_device(test);
	const struct nprof_device_desc *d = nprof_device_desc(ndev);

	KUNIT_EXPECT_STREQ(test, d->provider, "neuron");
	KUNIT_EXPECT_EQ(test, d->num_cores, 2U);
	KUNIT_EXPECT_EQ(test, d->num_topsps, 6U);
	KUNIT_EXPECT_EQ(test, d->queue_instances, (u32)NEURONPROF_MAX_INSTANCES);
	KUNIT_EXPECT_EQ(test, d->raw_format, (u32)NEURONPROF_RAW_FORMAT_NEURON_V2);
	KUNIT_EXPECT_EQ(test, d->clock_domain, (u32)NEURONPROF_CLOCK_CAPTURED);
	KUNIT_EXPECT_TRUE(test, d->caps & NEURONPROF_CAP_RAW_PACKED);
	KUNIT_EXPECT_FALSE(test, d->caps & NEURONPROF_CAP_RAW);
	KUNIT_EXPECT_TRUE(test, d->core_queue_types & BIT(NEURONPROF_QT_NOTIFY));
	KUNIT_EXPECT_TRUE(test, d->topsp_queue_types & BIT(NEURONPROF_QT_TOPSP_DMA));
}

/* Consumed entries arrive in order across the device ring's wrap. */
static void nn_test_wrap(struct kunit *test)
{
	struct nprof_drmdev *ndev = nn_device(test);
	struct nn_ctx *ctx = test->priv;
	struct nprof_sub *sub;
	int q, round;

	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, 1, NEURONPROF_QT_TRACE, 3,
				 16 * PAGE_SIZE);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 1, 0, 3, NN_RING);
	for (round = 0; round < 5; round++) {
		KUNIT_ASSERT_EQ(test, nprof_fake_produce(ctx->dev, q, 50), 50L);
		KUNIT_ASSERT_EQ(test, nprof_fake_consume(ctx->dev, q, 30, true), 30L);
		KUNIT_ASSERT_EQ(test, nprof_fake_consume(ctx->dev, q, 20, true), 20L);
	}
	/* The head register got what the runtime wrote: an index in the ring. */
	KUNIT_EXPECT_EQ(test, nprof_fake_head_reg(ctx->dev, q), 250U % 64);
	/* 64-byte device entries: two ring entries each. */
	KUNIT_EXPECT_EQ(test, nn_test_check_ring(test, sub, q, 0, 2), 250ULL);
	KUNIT_EXPECT_EQ(test, sub->ring.lost, 0ULL);
	/* A queue nobody subscribed is not copied: the DMA one of core 0. */
	q = nprof_fake_program(ctx->dev, NEURON_NQ_HOOK_NC, 0, 4, 2, NN_RING);
	nn_head_write(test, q, 10);
	KUNIT_EXPECT_EQ(test, nn_parts(test, sub, 0), 500ULL);
}

/*
 * A copy that reaches the end of the neuronprof ring goes on at its start:
 * the record is cut in two, each whole device entries with its own header.
 */
static void nn_test_ring_wraps_mid_copy(struct kunit *test)
{
	struct nprof_drmdev *ndev = nn_device(test);
	struct nprof_sub *sub;
	const struct neuronprof_notification *h;
	int q;

	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_THROTTLE, 0,
				 PAGE_SIZE);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 5, 0, NN_RING);
	/* 40 device entries of 64 bytes: a record of 41 of the ring's 64 entries. */
	nn_head_write(test, q, 40);
	KUNIT_ASSERT_EQ(test, sub->ring.prod, 41 * NPROF_ENTRY_SIZE);
	/* The reader consumed it: 23 entries of room at the end, 64 in all. */
	smp_store_release(&sub->ring.cons_page->consumer_pos, 41 * NPROF_ENTRY_SIZE);
	nn_head_write(test, q, 40);
	KUNIT_EXPECT_EQ(test, sub->ring.lost, 0ULL);
	/* 22 entries before the end (23 ring entries), 18 after it (19). */
	KUNIT_EXPECT_EQ(test, sub->ring.prod, (64 + 19) * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, sub->ring.seq, 160ULL);
	h = (const void *)(sub->ring.data + 41 * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, h->seq, 80ULL);
	KUNIT_EXPECT_EQ(test, h->payload[0], 40ULL);
	KUNIT_EXPECT_EQ(test, h->payload[1], NEURONPROF_RAW_PACKED_INFO(22 * 64, 64));
	h = (const void *)sub->ring.data;
	KUNIT_EXPECT_EQ(test, h->code, NEURONPROF_RAW_PACKED);
	KUNIT_EXPECT_EQ(test, h->seq, 124ULL);
	KUNIT_EXPECT_EQ(test, h->payload[0], 62ULL);
	KUNIT_EXPECT_EQ(test, h->iteration, 62U);
	KUNIT_EXPECT_EQ(test, h->payload[1], NEURONPROF_RAW_PACKED_INFO(18 * 64, 64));
	KUNIT_EXPECT_EQ(test, h[1].timestamp_ns, NPROF_FAKE_WORD0(q, 62));
	KUNIT_EXPECT_EQ(test, nn_parts(test, sub, 41 * NPROF_ENTRY_SIZE), 80ULL);
}

/* Entries of 128 bytes: four ring entries each, never split by a loss. */
static void nn_test_four_parts_and_overflow(struct kunit *test)
{
	struct nprof_drmdev *ndev;
	struct nprof_sub *sub;
	u64 delivered;
	int q;

	ndev = nn_format_device(test, 128, NPROF_NN_HEAD_RING_BYTES);
	/*
	 * 64 ring entries: a record of the first 25 device entries (51 ring
	 * entries), one of 6 in the 13 left, then the ring is full.
	 */
	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_NOTIFY, 0,
				 PAGE_SIZE);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 1, 0, 2 * PAGE_SIZE);
	nn_head_write(test, q, 25);
	nn_head_write(test, q, 25);
	delivered = nn_test_check_ring(test, sub, q, 0, 4);
	KUNIT_EXPECT_EQ(test, delivered, 31ULL);
	/* delivered + lost = produced, in 32-byte parts (sequence numbers). */
	KUNIT_EXPECT_EQ(test, nn_parts(test, sub, 0) + sub->ring.lost, 200ULL);
	KUNIT_EXPECT_EQ(test, sub->ring.lost, 4 * 19ULL);
	KUNIT_EXPECT_EQ(test, sub->ring.seq, 200ULL);
	KUNIT_EXPECT_TRUE(test, sub->ring.flags & NEURONPROF_RING_OVERFLOWED);
}

/*
 * With a free-running counter, a head that passes more than a ring: only
 * the last ring's worth is still in memory; the rest is counted as lost.
 */
static void nn_test_head_passes_a_ring(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	struct nprof_drmdev *ndev;
	struct nprof_sub *sub;
	int q, i;

	ndev = nn_format_device(test, 64, NPROF_NN_HEAD_COUNTER_ENTRIES);
	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_TOPSP, 5, NEURONPROF_QT_TOPSP_TRACE,
				 0, 16 * PAGE_SIZE);
	q = nn_program(test, NEURON_NQ_HOOK_TOPSP, 5, 0, 0, NN_RING);
	/* 150 entries consumed without a head write, then one write. */
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, nprof_fake_produce(ctx->dev, q, 50), 50L);
		KUNIT_ASSERT_EQ(test, nprof_fake_consume(ctx->dev, q, 50, i == 2), 50L);
	}
	KUNIT_EXPECT_EQ(test, nprof_fake_head_reg(ctx->dev, q), 150U);
	/* 86 device entries lost, 64 delivered, two ring entries each. */
	KUNIT_EXPECT_EQ(test, sub->ring.lost, 2 * (150ULL - 64));
	KUNIT_EXPECT_EQ(test, nn_parts(test, sub, 0), 2 * 64ULL);
	/* The delivered ones are the last 64, after the lost. */
	KUNIT_EXPECT_EQ(test, nn_part_at(test, sub, 0).seq, 172ULL);
	KUNIT_EXPECT_EQ(test, nn_part_at(test, sub, 0).payload[0], NPROF_FAKE_WORD0(q, 86));
}

/* A core reset halts the queues; reprogrammed, they go on from head 0. */
static void nn_test_core_reset(struct kunit *test)
{
	struct nprof_drmdev *ndev = nn_device(test);
	struct nn_ctx *ctx = test->priv;
	struct nprof_sub *sub;
	int q;

	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_EVENT, 0,
				 16 * PAGE_SIZE);
	q = nprof_fake_program(ctx->dev, NEURON_NQ_HOOK_NC, 0, 2, 0, NN_RING);
	nn_head_write(test, q, 40);
	KUNIT_ASSERT_EQ(test, nprof_fake_reset_core(ctx->dev, 0), 1);
	/* Halted and freed: nothing of it is read any more. */
	KUNIT_EXPECT_EQ(test, nprof_fake_consume(ctx->dev, q, 0, true), -ENOENT);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 2, 0, NN_RING);
	nn_head_write(test, q, 10);
	KUNIT_EXPECT_EQ(test, nn_parts(test, sub, 0), 2 * 50ULL);
	KUNIT_EXPECT_EQ(test, sub->ring.lost, 0ULL);
	/* The new ring's entries restart from its first (device seq 0). */
	KUNIT_EXPECT_EQ(test, nn_part_at(test, sub, 80).payload[0], NPROF_FAKE_WORD0(q, 0));
}

struct nn_halt_race {
	int dev, q;
	long consumed;
	struct completion done;
};

static int nn_test_runtime(void *arg)
{
	struct nn_halt_race *r = arg;
	long n;

	for (;;) {
		n = nprof_fake_produce(r->dev, r->q, 60);
		if (n < 0)
			break;
		n = nprof_fake_consume(r->dev, r->q, n, true);
		if (n < 0)
			break;
		r->consumed += n;
		/* UML is uniprocessor and not preemptible: let the test run. */
		cond_resched();
	}
	complete(&r->done);
	return 0;
}

/*
 * A halt while the runtime consumes and the provider copies: the halt waits
 * for the copy, the ring memory is freed only after (KASAN would see a
 * use after free), and everything consumed before was delivered.
 */
static void nn_test_halt_during_copy(struct kunit *test)
{
	struct nprof_drmdev *ndev = nn_device(test);
	struct nn_ctx *ctx = test->priv;
	struct nn_halt_race r = { .dev = ctx->dev };
	struct task_struct *t;
	struct nprof_sub *sub;
	unsigned long i;

	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, 1, NEURONPROF_QT_ERROR, 0,
				 256 * PAGE_SIZE);
	r.q = nn_program(test, NEURON_NQ_HOOK_NC, 1, 3, 0, NN_RING);
	init_completion(&r.done);
	t = kthread_run(nn_test_runtime, &r, "nn_test_runtime");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	for (i = 0; i < 1000000 && READ_ONCE(sub->ring.prod) < 100 * NPROF_ENTRY_SIZE; i++)
		cond_resched();
	KUNIT_EXPECT_EQ(test, nprof_fake_halt(ctx->dev, r.q), 0);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, nn_parts(test, sub, 0) + sub->ring.lost,
			2 * (u64)r.consumed);
	KUNIT_EXPECT_EQ(test, nn_test_check_ring(test, sub, r.q, 0, 2),
			(u64)r.consumed - sub->ring.lost / 2);
}

/* Removal with a live subscription: it dies, the ring stays readable. */
static void nn_test_remove_subscribed(struct kunit *test)
{
	struct nprof_drmdev *ndev = nn_device(test);
	struct nn_ctx *ctx = test->priv;
	struct nprof_sub *sub;
	int q;

	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_DMA, 15,
				 16 * PAGE_SIZE);
	q = nprof_fake_program(ctx->dev, NEURON_NQ_HOOK_NC, 0, 4, 15, NN_RING);
	nn_head_write(test, q, 20);
	KUNIT_ASSERT_EQ(test, nprof_fake_remove(ctx->dev), 0);
	ctx->dev = -1;
	KUNIT_EXPECT_TRUE(test, sub->dead);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(sub->ring.hdr->flags) & NEURONPROF_RING_DEAD);
	KUNIT_EXPECT_EQ(test, nn_test_check_ring(test, sub, q, 0, 2), 20ULL);
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(sub) & EPOLLHUP);
}

/*
 * The parameters are checked when set (load and sysfs write go through the
 * same set()): an entry size below 32 bytes (a part count of 0, which the
 * copy divides by), not a power of two or above 256, and a head mode above
 * 2 are refused and change nothing; a device added afterwards still
 * captures with the last valid values.
 */
static void nn_test_params_checked(struct kunit *test)
{
	static const char * const bad_sizes[] = { "16", "0", "1", "48", "96", "512", "-64",
						  "64k", "" };
	u32 es = 64, hm = NPROF_NN_HEAD_RING_ENTRIES;
	const struct kernel_param kes = { .arg = &es }, khm = { .arg = &hm };
	struct nprof_drmdev *ndev;
	struct nprof_sub *sub;
	unsigned int i;
	int q;

	for (i = 0; i < ARRAY_SIZE(bad_sizes); i++) {
		KUNIT_EXPECT_LT_MSG(test, nprof_nn_entry_size_ops.set(bad_sizes[i], &kes), 0,
				    "entry size '%s'", bad_sizes[i]);
		KUNIT_EXPECT_EQ(test, es, 64U);
	}
	KUNIT_EXPECT_EQ(test, nprof_nn_entry_size_ops.set("32", &kes), 0);
	KUNIT_EXPECT_EQ(test, es, 32U);
	KUNIT_EXPECT_EQ(test, nprof_nn_entry_size_ops.set("256", &kes), 0);
	KUNIT_EXPECT_EQ(test, es, 256U);
	KUNIT_EXPECT_LT(test, nprof_nn_head_mode_ops.set("3", &khm), 0);
	KUNIT_EXPECT_EQ(test, hm, (u32)NPROF_NN_HEAD_RING_ENTRIES);
	KUNIT_EXPECT_EQ(test, nprof_nn_head_mode_ops.set("2", &khm), 0);
	KUNIT_EXPECT_EQ(test, hm, (u32)NPROF_NN_HEAD_COUNTER_ENTRIES);

	/* The table itself refuses 16: the old crash (parts = 16 / 32 = 0). */
	KUNIT_EXPECT_EQ(test, nprof_nn_set_format(16, NPROF_NN_HEAD_RING_ENTRIES), -EINVAL);
	ndev = nn_device(test);
	KUNIT_EXPECT_EQ(test, nprof_device_desc(ndev)->raw_entry_size, 64U);
	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0,
				 16 * PAGE_SIZE);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 0, NN_RING);
	nn_head_write(test, q, 10);
	KUNIT_EXPECT_EQ(test, nn_test_check_ring(test, sub, q, 0, 2), 10ULL);
}

/*
 * Counter mode: a head that goes backwards (the queue restarted without the
 * hook being told) is a re-program, not 2^32 - k lost entries (nor a loop
 * over them): nothing is counted or delivered, and capture goes on from the
 * new value.
 */
static void nn_test_counter_backwards(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	struct nprof_drmdev *ndev;
	struct nprof_sub *sub;
	int q, i;

	ndev = nn_format_device(test, 64, NPROF_NN_HEAD_COUNTER_ENTRIES);
	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, 1, NEURONPROF_QT_NOTIFY, 2,
				 16 * PAGE_SIZE);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 1, 1, 2, NN_RING);
	nn_head_write(test, q, 10);
	/* Restarted behind the hook's back: the counter drops from 10 to 0. */
	KUNIT_ASSERT_EQ(test, nprof_fake_restart(ctx->dev, q), 0);
	KUNIT_EXPECT_EQ(test, nprof_fake_head_reg(ctx->dev, q), 0U);
	KUNIT_EXPECT_EQ(test, sub->ring.lost, 0ULL);
	KUNIT_EXPECT_EQ(test, sub->ring.seq, 20ULL);
	nn_head_write(test, q, 5);
	KUNIT_EXPECT_EQ(test, sub->ring.lost, 0ULL);
	KUNIT_ASSERT_EQ(test, nn_parts(test, sub, 0), 30ULL);
	/* Device entries 0..9, then 0..4 of the restarted queue. */
	for (i = 0; i < 15; i++)
		KUNIT_EXPECT_EQ(test, nn_part_at(test, sub, 2 * i).payload[0],
				NPROF_FAKE_WORD0(q, i < 10 ? i : i - 10));
}

/*
 * A queue programmed before the provider knew of it (before the hook was
 * registered), then handed out again: its head is wherever the runtime
 * left it, so taking it as 0 would deliver a ring of entries consumed long
 * before. Its first head write is the baseline: nothing delivered or
 * counted; what is consumed after it arrives exactly.
 */
static void nn_test_first_seen_queue_baseline(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	struct nprof_drmdev *ndev;
	struct nprof_sub *sub;
	int q, q2;

	ndev = nn_device(test);
	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_TOPSP, 2, NEURONPROF_QT_TOPSP_EVENT,
				 0, 16 * PAGE_SIZE);
	nprof_fake_set_blind(true);
	q = nn_program(test, NEURON_NQ_HOOK_TOPSP, 2, 2, 0, NN_RING);
	nn_head_write(test, q, 30);
	nprof_fake_set_blind(false);
	/* NOTIFICATIONS_INIT again: the same queue, handed out again. */
	q2 = nprof_fake_program(ctx->dev, NEURON_NQ_HOOK_TOPSP, 2, 2, 0, NN_RING);
	KUNIT_ASSERT_EQ(test, q2, q);
	nn_head_write(test, q, 10);
	KUNIT_EXPECT_EQ(test, sub->ring.seq, 0ULL);
	KUNIT_EXPECT_EQ(test, sub->ring.prod, 0ULL);
	nn_head_write(test, q, 7);
	KUNIT_EXPECT_EQ(test, nn_test_check_ring(test, sub, q, 40, 2), 7ULL);
	KUNIT_EXPECT_EQ(test, sub->ring.lost, 0ULL);
}

/*
 * A counter that skipped a huge number of head writes (2^31 - 1 entries):
 * one ring's worth copied, the rest counted as lost in one step.
 */
static void nn_test_counter_huge_gap(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	struct nprof_drmdev *ndev;
	struct nprof_sub *sub;
	int q;

	ndev = nn_format_device(test, 64, NPROF_NN_HEAD_COUNTER_ENTRIES);
	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 1,
				 16 * PAGE_SIZE);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 1, NN_RING);
	nn_head_write(test, q, 1);
	KUNIT_ASSERT_EQ(test, nprof_fake_rebase_head(ctx->dev, q, S32_MAX - 1), 0);
	KUNIT_EXPECT_EQ(test, sub->ring.seq, 2ULL * S32_MAX);
	KUNIT_EXPECT_EQ(test, sub->ring.lost, 2ULL * (S32_MAX - 1 - 64));
	KUNIT_EXPECT_EQ(test, nn_parts(test, sub, 0), 2ULL * (1 + 64));
}

/* The counter rules themselves. */
static void nn_test_consumed_rules(struct kunit *test)
{
	const struct nprof_nn_arch c = { .entry_size = 64,
					 .head_mode = NPROF_NN_HEAD_COUNTER_ENTRIES };
	const struct nprof_nn_arch e = { .entry_size = 64,
					 .head_mode = NPROF_NN_HEAD_RING_ENTRIES };
	u32 first;

	KUNIT_EXPECT_EQ(test, nprof_nn_consumed(&c, 64, 4096, 10, 3, &first), NPROF_NN_RESYNC);
	KUNIT_EXPECT_EQ(test, nprof_nn_consumed(&c, 64, 4096, 0, 0x80000000U, &first),
			NPROF_NN_RESYNC);
	KUNIT_EXPECT_EQ(test, nprof_nn_consumed(&c, 64, 4096, 0, 150, &first), 150ULL);
	KUNIT_EXPECT_EQ(test, nprof_nn_consumed(&c, 64, 4096, 10, 1000, &first), 990ULL);
	KUNIT_EXPECT_EQ(test, first, 10U);
	/* Across the 32-bit wrap, forwards. */
	KUNIT_EXPECT_EQ(test, nprof_nn_consumed(&c, 64, 4096, U32_MAX - 1, 3, &first), 5ULL);
	KUNIT_EXPECT_EQ(test, nprof_nn_consumed(&e, 64, 4096, 60, 2, &first), 6ULL);
	KUNIT_EXPECT_EQ(test, nprof_nn_consumed(&e, 64, 4096, 0, 64, &first), NPROF_NN_BAD_HEAD);
}

/*
 * A queue the runtime put in device memory cannot be read: subscribing to
 * it fails with EOPNOTSUPP; a subscribed queue that is programmed there
 * later gets NEURONPROF_RING_UNREADABLE, and nothing of it is delivered.
 */
static void nn_test_device_memory(struct kunit *test)
{
	struct nprof_drmdev *ndev = nn_device(test);
	struct nn_ctx *ctx = test->priv;
	const struct drm_neuronprof_nq_subscribe args = {
		.target_kind = NEURONPROF_TARGET_CORE, .target_index = 0,
		.queue_type = NEURONPROF_QT_NOTIFY, .engine = 0, .ring_size = PAGE_SIZE,
	};
	struct nprof_sub *sub;
	int q;

	q = nprof_fake_program_at(ctx->dev, NEURON_NQ_HOOK_NC, 0, 1, 0, NN_RING, false);
	KUNIT_ASSERT_GE(test, q, 0);
	sub = nprof_sub_create(ndev, &args);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(sub), -EOPNOTSUPP);
	if (!IS_ERR(sub))
		nprof_sub_destroy(sub);

	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, 1, NEURONPROF_QT_EVENT, 0,
				 16 * PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, sub->ring.flags & NEURONPROF_RING_UNREADABLE);
	q = nprof_fake_program_at(ctx->dev, NEURON_NQ_HOOK_NC, 1, 2, 0, NN_RING, false);
	KUNIT_ASSERT_GE(test, q, 0);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(sub->ring.hdr->flags) & NEURONPROF_RING_UNREADABLE);
	nn_head_write(test, q, 10);
	KUNIT_EXPECT_EQ(test, sub->ring.prod, 0ULL);
}

struct nn_hold {
	struct mutex *lock;	/* queue A's, held by nn_test_holder() */
	const struct neuron_nq_hook_dev *hd_a;
	struct neuron_nq_hook_queue hq_a;
	struct completion held, release, halting, halted;
};

/* Holds queue A's lock as a copy in flight would, until released. */
static int nn_test_holder(void *arg)
{
	struct nn_hold *h = arg;

	mutex_lock(h->lock);
	complete(&h->held);
	wait_for_completion(&h->release);
	mutex_unlock(h->lock);
	return 0;
}

/* Halts queue A (as neuron.ko would): waits in the provider behind the holder. */
static int nn_test_halter(void *arg)
{
	struct nn_hold *h = arg;

	complete(&h->halting);
	nprof_nn_hook_ops.queue_halted(h->hd_a, &h->hq_a);
	complete(&h->halted);
	return 0;
}

/*
 * Head writes of one device do not wait for another's: while a queue of
 * device A is busy (its lock held as by a copy in flight, and a halt of it
 * waiting inside the provider), a head write of device B is copied at once.
 * With one lock for every device the head write would wait for A until it
 * is released (here: forever, and the test fails by KUnit's timeout).
 */
static void nn_test_devices_in_parallel(struct kunit *test)
{
	const struct neuron_nq_hook_qid qid_b = {
		.target = NEURON_NQ_HOOK_NC, .id = 0, .nq_type = 1, .instance = 0, .reg = 16,
	};
	struct nn_ctx *ctx = test->priv;
	const struct neuron_nq_hook_dev *hd_b;
	struct nprof_drmdev *ndev_b;
	struct nn_hold h = {
		.hq_a = { .qid = { .target = NEURON_NQ_HOOK_NC, .id = 1, .nq_type = 0,
				   .instance = 2, .reg = 2 },
			  .on_host = 1, .size = NN_RING },
	};
	struct task_struct *t;
	struct nprof_sub *sub;
	int dev_b, q_a, q_b;

	nn_device(test);
	q_a = nn_program(test, NEURON_NQ_HOOK_NC, 1, 0, 2, NN_RING);
	h.hd_a = nprof_fake_hook_dev(ctx->dev);
	KUNIT_ASSERT_NOT_NULL(test, h.hd_a);
	h.lock = nprof_nn_queue_lock(h.hd_a, &h.hq_a.qid);
	KUNIT_ASSERT_NOT_NULL(test, h.lock);
	dev_b = nprof_fake_add(2, 2, 6);
	KUNIT_ASSERT_GE(test, dev_b, 0);
	ndev_b = nprof_nn_ndev(dev_b);
	hd_b = nprof_fake_hook_dev(dev_b);
	q_b = nprof_fake_program(dev_b, NEURON_NQ_HOOK_NC, 0, 1, 0, NN_RING);
	sub = ndev_b ? nprof_sub_create(ndev_b, &(struct drm_neuronprof_nq_subscribe) {
		.target_kind = NEURONPROF_TARGET_CORE, .queue_type = NEURONPROF_QT_NOTIFY,
		.ring_size = 16 * PAGE_SIZE }) : ERR_PTR(-ENODEV);
	if (!hd_b || q_b < 0 || IS_ERR(sub) || nprof_fake_produce(dev_b, q_b, 10) != 10) {
		if (!IS_ERR(sub))
			nprof_sub_destroy(sub);
		nprof_fake_remove(dev_b);
		KUNIT_FAIL(test, "device B: %d %d %ld", q_b, !hd_b, PTR_ERR_OR_ZERO(sub));
		return;
	}

	init_completion(&h.held);
	init_completion(&h.release);
	init_completion(&h.halting);
	init_completion(&h.halted);
	t = kthread_run(nn_test_holder, &h, "nn_test_holder");
	if (!IS_ERR(t)) {
		wait_for_completion(&h.held);
		t = kthread_run(nn_test_halter, &h, "nn_test_halter");
		if (IS_ERR(t))
			complete(&h.release);
	}
	if (!IS_ERR(t)) {
		wait_for_completion(&h.halting);
		msleep(20);	/* the halt now waits for A's queue */
		KUNIT_EXPECT_FALSE(test, completion_done(&h.halted));

		/* The runtime writes B's head (as BAR_WRITE would, after consuming 10). */
		nprof_nn_hook_ops.head_write(hd_b, &qid_b, 10);
		KUNIT_EXPECT_EQ(test, nn_parts(test, sub, 0), 20ULL);
		KUNIT_EXPECT_FALSE(test, completion_done(&h.halted));

		complete(&h.release);
		wait_for_completion(&h.halted);
	}
	KUNIT_EXPECT_FALSE(test, IS_ERR(t));
	nprof_sub_destroy(sub);
	KUNIT_EXPECT_EQ(test, nprof_fake_remove(dev_b), 0);
}

/*
 * Calibration mode: a queue programmed with an engine index of 16 or more
 * sits in another type's slot (type * 16 + index), and freeing its memory
 * announces the halt under that slot's type, engine and register set, not
 * the set it was programmed at. The calibration table must forget the
 * ring anyway: before, it kept the freed address, and the next head write
 * in calibration mode copied from freed memory.
 */
static void nn_test_cal_halt_engine_16(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	void *va, *low;
	int q, q_low;

	nn_device(test);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 17, NN_RING);
	q_low = nn_program(test, NEURON_NQ_HOOK_NC, 1, 0, 3, NN_RING);
	va = nprof_fake_ring(ctx->dev, q);
	low = nprof_fake_ring(ctx->dev, q_low);
	KUNIT_ASSERT_NOT_NULL(test, va);
	KUNIT_ASSERT_NOT_NULL(test, low);
	KUNIT_ASSERT_TRUE(test, nprof_nn_cal_holds(ctx->dev, va));
	KUNIT_ASSERT_TRUE(test, nprof_nn_cal_holds(ctx->dev, low));

	/* Engine 3 of type 0: the halt names the set it was programmed at. */
	KUNIT_ASSERT_EQ(test, nprof_fake_mem_free(ctx->dev, q_low), 0);
	KUNIT_EXPECT_FALSE(test, nprof_nn_cal_holds(ctx->dev, low));
	/* Engine 17 of type 0: the halt names type 1, engine 1, set 1. */
	KUNIT_ASSERT_EQ(test, nprof_fake_mem_free(ctx->dev, q), 0);
	KUNIT_EXPECT_FALSE(test, nprof_nn_cal_holds(ctx->dev, va));
}

struct kunit_case nn_cases[] = {
	KUNIT_CASE(nn_test_device_info),
	KUNIT_CASE(nn_test_wrap),
	KUNIT_CASE(nn_test_ring_wraps_mid_copy),
	KUNIT_CASE(nn_test_four_parts_and_overflow),
	KUNIT_CASE(nn_test_head_passes_a_ring),
	KUNIT_CASE(nn_test_core_reset),
	KUNIT_CASE(nn_test_halt_during_copy),
	KUNIT_CASE(nn_test_remove_subscribed),
	KUNIT_CASE(nn_test_params_checked),
	KUNIT_CASE(nn_test_counter_backwards),
	KUNIT_CASE(nn_test_first_seen_queue_baseline),
	KUNIT_CASE(nn_test_counter_huge_gap),
	KUNIT_CASE(nn_test_consumed_rules),
	KUNIT_CASE(nn_test_device_memory),
	KUNIT_CASE(nn_test_devices_in_parallel),
	KUNIT_CASE(nn_test_cal_halt_engine_16),
	{}
};
