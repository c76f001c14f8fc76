// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_head_poll: poll() and epoll waiters on a
 * subscription are woken by the head write that makes its ring cross the
 * watermark, and only then. The core wakes a subscription's wait queue
 * only when somebody is in it (nprof_wake(): one waitqueue_active() load
 * instead of the wait queue's lock); neuronprof_head_wake checks a reader
 * asleep in a blocking read(), this suite the two other kinds of waiter,
 * each entered in the wait queue by the subscription file's own poll
 * (nprof_sub_fops.poll, through a file of this suite that calls it):
 * - poll(): a task that sleeps as do_poll() does, with a poll table of
 *   poll_initwait() (its entries wake the task: pollwake()), polling again
 *   whenever the table was triggered;
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

/* As neuronprof_head_wake: yields for a woken poller to run (UML is uniprocessor). */
#define NP_YIELDS	100000

/* The subscription file's poll, on a file of this suite (its release is not the core's). */
static __poll_t np_file_poll(struct file *file, poll_table *pt)
{
	return nprof_sub_fops.poll(file, pt);
}

static const struct file_operations np_fops = {
	.owner = THIS_MODULE,
	.poll = np_file_poll,
};

/* Core 0's TRACE queue of engine 0 subscribed (watermark four ring entries) and programmed. */
static int np_setup(struct kunit *test, struct nprof_sub **sub, struct file **file)
{
	const struct drm_neuronprof_nq_subscribe args = {
		.target_kind = NEURONPROF_TARGET_CORE, .queue_type = NEURONPROF_QT_TRACE,
		.ring_size = 16 * PAGE_SIZE, .watermark = 4 * NPROF_ENTRY_SIZE,
	};

	*sub = nn_subscribe(test, nn_format_device(test, 64, NPROF_NN_HEAD_RING_ENTRIES),
			    &args);
	*file = anon_inode_getfile("[neuronprof_poll_test]", &np_fops, *sub, O_RDONLY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(*file));
	return nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 0, 64 * 64);
}

struct np_poller {
	struct file *file;
	struct completion done;
	bool stop;
	__poll_t mask;
};

/* A poll() of one file without a timeout, as do_poll() runs it. */
static int np_poll(void *arg)
{
	struct np_poller *p = arg;
	struct poll_wqueues tbl;
	poll_table *pt = &tbl.pt;

	poll_initwait(&tbl);
	for (;;) {
		p->mask = vfs_poll(p->file, pt);
		pt->_qproc = NULL;	/* in the wait queue once, as do_poll() */
		if ((p->mask & EPOLLIN) || READ_ONCE(p->stop))
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
	kthread_complete_and_exit(&p->done, 0);
}

/* Yield until the poller is done, at most NP_YIELDS times: whether it is. */
static bool np_done(struct np_poller *p)
{
	int i;

	for (i = 0; i < NP_YIELDS && !completion_done(&p->done); i++)
		schedule();
	return completion_done(&p->done);
}

/* Whether a waiter is in @sub's wait queue. */
static bool np_queued(struct nprof_sub *sub)
{
	/* The test's look, unordered: no wakeup depends on it. */
	return waitqueue_active(&sub->wq);
}

/* Stop a poller that was not woken (the test has failed), then wait for it. */
static void np_stop(struct np_poller *p, struct nprof_sub *sub)
{
	if (!completion_done(&p->done)) {
		WRITE_ONCE(p->stop, true);
		wake_up_interruptible(&sub->wq);
	}
	wait_for_completion(&p->done);
}

/*
 * A poller asleep in @sub's wait queue, for @file: false, the poller
 * stopped and the test failed, if it never gets there.
 */
static bool np_start(struct kunit *test, struct np_poller *p, struct nprof_sub *sub,
		     struct file *file)
{
	struct task_struct *t;
	int i;

	p->file = file;
	p->stop = false;
	init_completion(&p->done);
	t = kthread_run(np_poll, p, "nprof-poll-test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* Uniprocessor, not preemptible: in the queue and running here means asleep. */
	for (i = 0; i < NP_YIELDS && !np_queued(sub); i++)
		schedule();
	if (np_queued(sub))
		return true;
	np_stop(p, sub);
	KUNIT_FAIL(test, "the poller never slept on the subscription");
	return false;
}

/* A poll() sleeps below the watermark; the head write that crosses it wakes it. */
static void np_test_poll_woken(struct kunit *test)
{
	struct nprof_sub *sub;
	struct np_poller p;
	struct file *file;
	/* Four ring entries: a record of two device entries is three. */
	int q = np_setup(test, &sub, &file);

	if (np_start(test, &p, sub, file)) {
		nn_head_write(test, q, 2);
		KUNIT_EXPECT_FALSE(test, np_done(&p));
		nn_head_write(test, q, 2);
		KUNIT_EXPECT_TRUE_MSG(test, np_done(&p),
				      "the poller was not woken when the watermark was crossed");
		np_stop(&p, sub);
		KUNIT_EXPECT_TRUE(test, p.mask & EPOLLIN);
	}
	fput(file);
}

/* What epoll puts in a wait queue: a callback, no task. */
struct np_epitem {
	poll_table pt;
	wait_queue_entry_t wait;
	wait_queue_head_t *whead;
	unsigned int woken;
	__poll_t events;
};

static int np_epoll_callback(wait_queue_entry_t *wait, unsigned int mode, int sync, void *key)
{
	struct np_epitem *e = container_of(wait, struct np_epitem, wait);

	e->woken++;
	e->events |= key_to_poll(key);
	return 1;
}

static void np_epoll_queue(struct file *file, wait_queue_head_t *whead, poll_table *pt)
{
	struct np_epitem *e = container_of(pt, struct np_epitem, pt);

	init_waitqueue_func_entry(&e->wait, np_epoll_callback);
	e->whead = whead;
	add_wait_queue(whead, &e->wait);
}

/* An epoll item is called back, with EPOLLIN, by the head write that crosses the watermark. */
static void np_test_epoll_woken(struct kunit *test)
{
	struct np_epitem e = {};
	struct nprof_sub *sub;
	struct file *file;
	int q = np_setup(test, &sub, &file);

	init_poll_funcptr(&e.pt, np_epoll_queue);
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

struct kunit_case np_poll_cases[] = {
	KUNIT_CASE(np_test_poll_woken),
	KUNIT_CASE(np_test_epoll_woken),
	{}
};
