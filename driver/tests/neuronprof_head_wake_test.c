// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_head_wake: a reader sleeping on a subscription is
 * woken by the head write that makes its ring cross the watermark, and
 * only then. The core skips the wakeup of a ring nobody waits on
 * (nprof_wake(): one waitqueue_active() load instead of the wait queue's
 * lock), so this checks that a reader who does wait, the way a blocking
 * read() waits (wait_event_interruptible() on the subscription's wait
 * queue, the condition nprof_sub_poll_mask()), is not left asleep.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/poll.h>
#include <linux/wait.h>

#include "neuronprof_neuron_test_util.h"

/*
 * UML is uniprocessor and not preemptible: the test yields this many times
 * for the reader to run, far more than a woken reader needs.
 */
#define NW_YIELDS	100000

struct nw_reader {
	struct nprof_sub *sub;
	struct completion done;
	bool stop;
};

/* A blocking reader: sleeps until the ring has what it waits for (or stop). */
static int nw_read(void *arg)
{
	struct nw_reader *r = arg;

	wait_event_interruptible(r->sub->wq, (nprof_sub_poll_mask(r->sub) & EPOLLIN) ||
				 READ_ONCE(r->stop));
	kthread_complete_and_exit(&r->done, 0);
}

/* Whether a reader sleeps on @sub. */
static bool nw_asleep(struct nprof_sub *sub)
{
	/* The test's look, unordered: no wakeup depends on it. */
	return waitqueue_active(&sub->wq);
}

/* Yield until the reader is done, at most NW_YIELDS times: whether it is. */
static bool nw_done(struct nw_reader *r)
{
	int i;

	for (i = 0; i < NW_YIELDS && !completion_done(&r->done); i++)
		schedule();
	return completion_done(&r->done);
}

/* Stop a reader that was not woken (the test has failed), then wait for it. */
static void nw_stop(struct nw_reader *r)
{
	if (!completion_done(&r->done)) {
		WRITE_ONCE(r->stop, true);
		wake_up_interruptible(&r->sub->wq);
	}
	wait_for_completion(&r->done);
}

/* A reader asleep in @sub's wait queue (the test fails if it never gets there). */
static void nw_start(struct kunit *test, struct nw_reader *r, struct nprof_sub *sub)
{
	struct task_struct *t;
	int i;

	r->sub = sub;
	r->stop = false;
	init_completion(&r->done);
	t = kthread_run(nw_read, r, "nprof-wake-test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	for (i = 0; i < NW_YIELDS && !nw_asleep(sub); i++)
		schedule();
	if (!nw_asleep(sub)) {
		nw_stop(r);
		KUNIT_FAIL(test, "the reader never slept on the subscription");
	}
}

/* Core 0's TRACE queue of engine 0 subscribed (watermark @watermark) and programmed. */
static int nw_setup(struct kunit *test, u32 watermark, struct nprof_sub **sub)
{
	const struct drm_neuronprof_nq_subscribe args = {
		.target_kind = NEURONPROF_TARGET_CORE, .queue_type = NEURONPROF_QT_TRACE,
		.ring_size = 16 * PAGE_SIZE, .watermark = watermark,
	};

	*sub = nn_subscribe(test, nn_format_device(test, 64, NPROF_NN_HEAD_RING_ENTRIES),
			    &args);
	return nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 0, 64 * 64);
}

/* A head write that crosses the watermark wakes the reader. */
static void nw_test_crossing_wakes(struct kunit *test)
{
	struct nprof_sub *sub;
	struct nw_reader r;
	int q = nw_setup(test, 0, &sub);

	nw_start(test, &r, sub);
	nn_head_write(test, q, 4);
	KUNIT_EXPECT_TRUE_MSG(test, nw_done(&r), "the reader was not woken by the head write");
	nw_stop(&r);
}

/*
 * Below the watermark the reader sleeps on; the head write that crosses
 * it wakes the reader.
 */
static void nw_test_below_watermark_sleeps(struct kunit *test)
{
	struct nprof_sub *sub;
	struct nw_reader r;
	/* Four ring entries: a record of two device entries is three. */
	int q = nw_setup(test, 4 * NPROF_ENTRY_SIZE, &sub);

	nw_start(test, &r, sub);
	nn_head_write(test, q, 2);
	KUNIT_EXPECT_FALSE(test, nw_done(&r));
	KUNIT_EXPECT_TRUE(test, nw_asleep(sub));
	nn_head_write(test, q, 2);
	KUNIT_EXPECT_TRUE_MSG(test, nw_done(&r),
			      "the reader was not woken when the watermark was crossed");
	nw_stop(&r);
}

struct kunit_case nw_cases[] = {
	KUNIT_CASE(nw_test_crossing_wakes),
	KUNIT_CASE(nw_test_below_watermark_sleeps),
	{}
};
