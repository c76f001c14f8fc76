// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_head_wake: every kind of waiter on a subscription
 * is woken by the head write that makes its ring cross the watermark, and
 * only then. The core skips the wakeup of a ring nobody waits on
 * (nprof_wake(): one waitqueue_active() load instead of the wait queue's
 * lock), so this checks that a waiter who does wait is not left asleep:
 * - a blocking read(): wait_event_interruptible() on the subscription's
 *   wait queue, the condition nprof_sub_poll_mask();
 * - poll(): a task that sleeps as do_poll() does, with a poll table of
 *   poll_initwait() (its entries wake the task: pollwake()), polling again
 *   whenever the table was triggered, entered in the wait queue by the
 *   subscription file's own poll (nprof_sub_fops.poll, through a file of
 *   this suite that calls it);
 * - epoll: what epoll's queue proc (ep_ptable_queue_proc()) adds, a wait
 *   entry with a callback and no task, called with the events as its key
 *   (ep_poll_callback()).
 */

#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/poll.h>
#include <linux/wait.h>

#include "neuronprof_neuron_test_util.h"

/*
 * UML is uniprocessor and not preemptible: the test yields this many times
 * for a waiter to run, far more than a woken waiter needs.
 */
#define NW_YIELDS	100000

/* A task that waits on a subscription: a blocking reader (nw_read()) or a poller (nw_poll()). */
struct nw_waiter {
	struct nprof_sub *sub;
	struct file *file;	/* the poller's */
	struct completion done;
	bool stop;
	__poll_t mask;		/* what the poller's last poll returned */
};

/* A blocking reader: sleeps until the ring has what it waits for (or stop). */
static int nw_read(void *arg)
{
	struct nw_waiter *w = arg;

	wait_event_interruptible(w->sub->wq, (nprof_sub_poll_mask(w->sub) & EPOLLIN) ||
				 READ_ONCE(w->stop));
	kthread_complete_and_exit(&w->done, 0);
}

/* A poll() of one file without a timeout, as do_poll() runs it. */
static int nw_poll(void *arg)
{
	struct nw_waiter *w = arg;
	struct poll_wqueues tbl;
	poll_table *pt = &tbl.pt;

	poll_initwait(&tbl);
	for (;;) {
		w->mask = vfs_poll(w->file, pt);
		pt->_qproc = NULL;	/* in the wait queue once, as do_poll() */
		if ((w->mask & EPOLLIN) || READ_ONCE(w->stop))
			break;
		set_current_state(TASK_INTERRUPTIBLE);
		/* As poll_schedule_timeout(): pairs with __pollwake()'s smp_wmb(). */
		if (!smp_load_acquire(&tbl.triggered))
			schedule();
		__set_current_state(TASK_RUNNING);
		/* Cleared before the next poll looks at the queue (poll_schedule_timeout()). */
		smp_store_mb(tbl.triggered, 0);
	}
	poll_freewait(&tbl);
	kthread_complete_and_exit(&w->done, 0);
}

/* Whether a waiter is in @sub's wait queue. */
static bool nw_asleep(struct nprof_sub *sub)
{
	/* The test's look, unordered: no wakeup depends on it. */
	return waitqueue_active(&sub->wq);
}

/* Yield until the waiter is done, at most NW_YIELDS times: whether it is. */
static bool nw_done(struct nw_waiter *w)
{
	int i;

	for (i = 0; i < NW_YIELDS && !completion_done(&w->done); i++)
		schedule();
	return completion_done(&w->done);
}

/* Stop a waiter that was not woken (the test has failed), then wait for it. */
static void nw_stop(struct nw_waiter *w)
{
	if (!completion_done(&w->done)) {
		WRITE_ONCE(w->stop, true);
		wake_up_interruptible(&w->sub->wq);
	}
	wait_for_completion(&w->done);
}

/*
 * A waiter running @fn, asleep in @sub's wait queue (@file: the poller's):
 * false, the waiter stopped and the test failed, if it never gets there.
 */
static bool nw_start(struct kunit *test, struct nw_waiter *w, int (*fn)(void *arg),
		     struct nprof_sub *sub, struct file *file)
{
	struct task_struct *t;
	int i;

	w->sub = sub;
	w->file = file;
	w->stop = false;
	init_completion(&w->done);
	t = kthread_run(fn, w, "nprof-wake-test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* Uniprocessor, not preemptible: in the queue and running here means asleep. */
	for (i = 0; i < NW_YIELDS && !nw_asleep(sub); i++)
		schedule();
	if (nw_asleep(sub))
		return true;
	nw_stop(w);
	KUNIT_FAIL(test, "the waiter never slept on the subscription");
	return false;
}

/* The subscription file's poll, on a file of this suite (its release is not the core's). */
static __poll_t nw_file_poll(struct file *file, poll_table *pt)
{
	return nprof_sub_fops.poll(file, pt);
}

static const struct file_operations nw_fops = {
	.owner = THIS_MODULE,
	.poll = nw_file_poll,
};

/*
 * Core 0's TRACE queue of engine 0 subscribed (watermark @watermark) and
 * programmed; with @file, a file whose poll is the subscription's.
 */
static int nw_setup(struct kunit *test, u32 watermark, struct nprof_sub **sub,
		    struct file **file)
{
	const struct drm_neuronprof_nq_subscribe args = {
		.target_kind = NEURONPROF_TARGET_CORE, .queue_type = NEURONPROF_QT_TRACE,
		.ring_size = 16 * PAGE_SIZE, .watermark = watermark,
	};

	*sub = nn_subscribe(test, nn_format_device(test, 64, NPROF_NN_HEAD_RING_ENTRIES),
			    &args);
	if (file) {
		*file = anon_inode_getfile("[neuronprof_poll_test]", &nw_fops, *sub, O_RDONLY);
		KUNIT_ASSERT_FALSE(test, IS_ERR(*file));
	}
	return nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 0, 64 * 64);
}

/* A head write that crosses the watermark wakes the reader. */
static void nw_test_crossing_wakes(struct kunit *test)
{
	struct nprof_sub *sub;
	struct nw_waiter r;
	int q = nw_setup(test, 0, &sub, NULL);

	if (!nw_start(test, &r, nw_read, sub, NULL))
		return;
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
	struct nw_waiter r;
	/* Four ring entries: a record of two device entries is three. */
	int q = nw_setup(test, 4 * NPROF_ENTRY_SIZE, &sub, NULL);

	if (!nw_start(test, &r, nw_read, sub, NULL))
		return;
	nn_head_write(test, q, 2);
	KUNIT_EXPECT_FALSE(test, nw_done(&r));
	KUNIT_EXPECT_TRUE(test, nw_asleep(sub));
	nn_head_write(test, q, 2);
	KUNIT_EXPECT_TRUE_MSG(test, nw_done(&r),
			      "the reader was not woken when the watermark was crossed");
	nw_stop(&r);
}

/* A poll() sleeps below the watermark; the head write that crosses it wakes it. */
static void nw_test_poll_woken(struct kunit *test)
{
	struct nprof_sub *sub;
	struct nw_waiter p;
	struct file *file;
	/* Four ring entries: a record of two device entries is three. */
	int q = nw_setup(test, 4 * NPROF_ENTRY_SIZE, &sub, &file);

	if (nw_start(test, &p, nw_poll, sub, file)) {
		nn_head_write(test, q, 2);
		KUNIT_EXPECT_FALSE(test, nw_done(&p));
		nn_head_write(test, q, 2);
		KUNIT_EXPECT_TRUE_MSG(test, nw_done(&p),
				      "the poller was not woken when the watermark was crossed");
		nw_stop(&p);
		KUNIT_EXPECT_TRUE(test, p.mask & EPOLLIN);
	}
	fput(file);
}

/* What epoll puts in a wait queue: a callback, no task. */
struct nw_epitem {
	poll_table pt;
	wait_queue_entry_t wait;
	wait_queue_head_t *whead;
	unsigned int woken;
	__poll_t events;
};

static int nw_epoll_callback(wait_queue_entry_t *wait, unsigned int mode, int sync, void *key)
{
	struct nw_epitem *e = container_of(wait, struct nw_epitem, wait);

	e->woken++;
	e->events |= key_to_poll(key);
	return 1;
}

static void nw_epoll_queue(struct file *file, wait_queue_head_t *whead, poll_table *pt)
{
	struct nw_epitem *e = container_of(pt, struct nw_epitem, pt);

	init_waitqueue_func_entry(&e->wait, nw_epoll_callback);
	e->whead = whead;
	add_wait_queue(whead, &e->wait);
}

/* An epoll item is called back, with EPOLLIN, by the head write that crosses the watermark. */
static void nw_test_epoll_woken(struct kunit *test)
{
	struct nw_epitem e = {};
	struct nprof_sub *sub;
	struct file *file;
	int q = nw_setup(test, 4 * NPROF_ENTRY_SIZE, &sub, &file);

	init_poll_funcptr(&e.pt, nw_epoll_queue);
	e.pt._key = EPOLLIN | EPOLLRDNORM;
	KUNIT_EXPECT_EQ(test, vfs_poll(file, &e.pt) & EPOLLIN, 0U);
	KUNIT_EXPECT_PTR_EQ(test, e.whead, &sub->wq);
	if (e.whead) {
		nn_head_write(test, q, 2);
		KUNIT_EXPECT_EQ(test, e.woken, 0U);
		nn_head_write(test, q, 2);
		KUNIT_EXPECT_EQ_MSG(test, e.woken, 1U,
				    "the epoll item was not called back when the watermark was crossed");
		KUNIT_EXPECT_TRUE(test, e.events & EPOLLIN);
		remove_wait_queue(e.whead, &e.wait);
	}
	fput(file);
}

struct kunit_case nw_cases[] = {
	KUNIT_CASE(nw_test_crossing_wakes),
	KUNIT_CASE(nw_test_below_watermark_sleeps),
	KUNIT_CASE(nw_test_poll_woken),
	KUNIT_CASE(nw_test_epoll_woken),
	{}
};
