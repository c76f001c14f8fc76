// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_neuron_headread: the provider's head_read 2 path
 * (driver/neuron/provider.c), where a read of a head register returns one
 * value whatever was written, so a queue programmed in new memory with
 * reprogram 0 starts where the last head written to its register set since
 * the last core reset points, which the provider keeps, or at reset_head.
 * The fake neuron.ko plays such a device (nprof_fake_set_head_fixed()): a
 * read returns 0, a reset leaves 3 in the core's head registers, and a
 * queue programmed in new memory is written from its set's head. Each case
 * checks that exactly the consumed entries arrive, in order, none lost: a
 * baseline taken from the read (0) or from reset_head where the kept head
 * holds delivers entries the device never wrote, or too few.
 */

#include <kunit/test.h>

#include "neuronprof_neuron_test_util.h"
#include "neuronprof_packed_walk.h"

#define HR_RING		(64 * 64)	/* device ring: 64 entries of 64 bytes */
#define HR_READ		0		/* what a head register read returns */
#define HR_RESET	3		/* a head register after a reset */
#define HR_SUB		(16 * PAGE_SIZE)	/* a subscription's ring: 256 entries */

/* The fixture's, with the provider and the fake set to a head read that says nothing. */
int nn_hr_init(struct kunit *test)
{
	int ret = nn_init(test);

	if (ret)
		return ret;
	if (nprof_nn_set_head_read(NPROF_NN_HEAD_READ_FIXED, 0, HR_RESET))
		return -EINVAL;
	nprof_fake_set_head_fixed(true, HR_READ, HR_RESET);
	return 0;
}

void nn_hr_exit(struct kunit *test)
{
	nn_exit(test);
	KUNIT_EXPECT_EQ(test, nprof_nn_set_head_read(0, 0, 0), 0);
	nprof_fake_set_head_fixed(false, 0, 0);
}

/*
 * A device, a subscription of queue @type of @engine of core @core, and
 * that core reset, as the runtime does first: its head registers read
 * reset_head.
 */
static struct nprof_sub *hr_reset_core_sub(struct kunit *test, u32 core, u32 type, u32 engine)
{
	struct nprof_drmdev *ndev = nn_device(test);
	struct nn_ctx *ctx = test->priv;
	struct nprof_sub *sub;

	sub = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, core, type, engine, HR_SUB);
	KUNIT_ASSERT_EQ(test, nprof_fake_reset_core(ctx->dev, core), 0);
	return sub;
}

/*
 * The parts @sub delivered from part *@at on are device entries @first..
 * of fake queue @q, two 32-byte parts each, @n of them and no more, and
 * nothing was lost; *@at moves past them.
 */
static void hr_expect(struct kunit *test, struct nprof_sub *sub, u64 *at, int q, u32 first,
		      u32 n)
{
	struct neuronprof_notification e;
	u64 i;

	for (i = 0; nn_part(test, sub, 0, *at + i, &e); i++) {
		u32 seq = first + i / 2;

		KUNIT_ASSERT_LT_MSG(test, i, 2ULL * n, "more delivered than the %u consumed", n);
		if (i % 2 == 0)
			KUNIT_ASSERT_EQ(test, e.payload[0], NPROF_FAKE_WORD0(q, seq));
		else
			KUNIT_ASSERT_EQ(test, ((const u8 *)e.payload)[0], (u8)(seq + 32));
	}
	KUNIT_EXPECT_EQ(test, i, 2ULL * n);
	KUNIT_EXPECT_EQ(test, sub->ring.lost, 0ULL);
	*at += i;
}

/*
 * One round on core 0's TRACE queue of engine 1: its last queue @q freed
 * (when q >= 0), a new one programmed, @n entries consumed and delivered
 * from head @first. Returns the new queue.
 */
static int hr_round(struct kunit *test, struct nprof_sub *sub, u64 *at, int q, u32 first,
		    u32 n)
{
	struct nn_ctx *ctx = test->priv;

	if (q >= 0)
		KUNIT_ASSERT_EQ(test, nprof_fake_mem_free(ctx->dev, q), 0);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 1, HR_RING);
	nn_head_write(test, q, n);
	hr_expect(test, sub, at, q, first, n);
	return q;
}

/*
 * Core 0 reset, then its TRACE queue of engine 1 (subscribed as @sub[0])
 * and TopSP 0's TRACE queue (@sub[1]) programmed anew, in @q[0] and @q[1]:
 * both start at reset_head; @n0 and @n1 entries consumed and delivered.
 */
static void hr_reset_core0(struct kunit *test, struct nprof_sub *const sub[2], u64 at[2],
			   int q[2], u32 n0, u32 n1)
{
	struct nn_ctx *ctx = test->priv;

	KUNIT_ASSERT_EQ(test, nprof_fake_reset_core(ctx->dev, 0), 0);
	q[0] = nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 1, HR_RING);
	q[1] = nn_program(test, NEURON_NQ_HOOK_TOPSP, 0, 0, 0, HR_RING);
	nn_head_write(test, q[0], n0);
	nn_head_write(test, q[1], n1);
	hr_expect(test, sub[0], &at[0], q[0], HR_RESET, n0);
	hr_expect(test, sub[1], &at[1], q[1], HR_RESET, n1);
}

/*
 * A head written to a register set is kept: the queue programmed there in
 * new memory after the last one's memory was freed (no reset between)
 * starts from it, not from the read (0) or reset_head (3).
 */
static void hr_test_kept_head(struct kunit *test)
{
	struct nprof_sub *sub = hr_reset_core_sub(test, 0, NEURONPROF_QT_TRACE, 1);
	u64 at = 0;
	int q;

	/* The head registers read 3 and a read says 0: the device writes from 3, reset_head. */
	q = hr_round(test, sub, &at, -1, HR_RESET, 20);
	/* The set's head is 23; its queue's memory goes, the registers stay. */
	q = hr_round(test, sub, &at, q, 23, 10);
	/* And the next one goes on from that queue's last head, 33. */
	hr_round(test, sub, &at, q, 33, 40);
}

/*
 * A core reset clears the heads kept for the register sets of the core,
 * its SDMA engines and its TopSPs, also when the core has no queue left
 * (patch 10): the queue programmed after it starts at reset_head. The
 * reset of another core keeps them.
 */
static void hr_test_reset_clears(struct kunit *test)
{
	struct nprof_drmdev *ndev = nn_device(test);
	struct nn_ctx *ctx = test->priv;
	struct nprof_sub *sub[2];
	u64 at[2] = { 0, 0 };
	int q[2];

	sub[0] = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 1,
				    HR_SUB);
	/* TopSP 0 is core 0's (3 TopSPs per core). */
	sub[1] = nn_subscribe_queue(test, ndev, NEURONPROF_TARGET_TOPSP, 0,
				    NEURONPROF_QT_TOPSP_TRACE, 0, HR_SUB);
	hr_reset_core0(test, sub, at, q, 20, 7);
	/* Core 0 has no queue left; core 1 is reset: core 0's heads stay. */
	KUNIT_ASSERT_EQ(test, nprof_fake_mem_free(ctx->dev, q[0]), 0);
	KUNIT_ASSERT_EQ(test, nprof_fake_mem_free(ctx->dev, q[1]), 0);
	KUNIT_ASSERT_EQ(test, nprof_fake_reset_core(ctx->dev, 1), 0);
	q[0] = hr_round(test, sub[0], &at[0], -1, 23, 5);
	KUNIT_ASSERT_EQ(test, nprof_fake_mem_free(ctx->dev, q[0]), 0);
	/* Core 0 is reset with no queue: its sets' and its TopSPs' heads are 3. */
	hr_reset_core0(test, sub, at, q, 12, 4);
	/* A reset with the queues there (patch 9's halts, then patch 10's reset). */
	KUNIT_ASSERT_EQ(test, nprof_fake_reset_core(ctx->dev, 0), 2);
	hr_round(test, sub[0], &at[0], -1, HR_RESET, 9);
}

/*
 * A queue re-programmed without a reset (NOTIFICATIONS_INIT with
 * reallocation to another size: the old ring halted, the new one
 * programmed in new memory) is written from its set's last head, whose
 * entry index in the new ring is that head modulo its entries; again and
 * again, each from the last.
 */
static void hr_test_reprogram(struct kunit *test)
{
	struct nprof_sub *sub = hr_reset_core_sub(test, 1, NEURONPROF_QT_EVENT, 0);
	struct nn_ctx *ctx = test->priv;
	u64 at = 0;
	int q;

	q = nn_program(test, NEURON_NQ_HOOK_NC, 1, 2, 0, HR_RING);
	nn_head_write(test, q, 30);
	hr_expect(test, sub, &at, q, HR_RESET, 30);
	/* Reallocated to 128 entries: written from head 33. */
	q = nprof_fake_program_at(ctx->dev, NEURON_NQ_HOOK_NC, 1, 2, 0, 2 * HR_RING, true);
	KUNIT_ASSERT_GE(test, q, 0);
	nn_head_write(test, q, 40);
	hr_expect(test, sub, &at, q, 33, 40);
	/* Back to 64 entries: the set's head 73 is entry 9 of the new ring. */
	q = nprof_fake_program_at(ctx->dev, NEURON_NQ_HOOK_NC, 1, 2, 0, HR_RING, true);
	KUNIT_ASSERT_GE(test, q, 0);
	nn_head_write(test, q, 10);
	hr_expect(test, sub, &at, q, 73 % 64, 10);
	/* Handed out again as it is (no programming): it goes on. */
	KUNIT_ASSERT_EQ(test, nprof_fake_program_at(ctx->dev, NEURON_NQ_HOOK_NC, 1, 2, 0, HR_RING,
						    true), q);
	nn_head_write(test, q, 60);
	hr_expect(test, sub, &at, q, 73 % 64 + 10, 60);
}

struct kunit_case nn_hr_cases[] = {
	KUNIT_CASE(hr_test_kept_head),
	KUNIT_CASE(hr_test_reset_clears),
	KUNIT_CASE(hr_test_reprogram),
	{}
};
