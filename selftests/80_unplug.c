// SPDX-License-Identifier: GPL-2.0
/*
 * Hot-unplug (del_device) while userspace holds a subscription: pollers,
 * epoll waiters and readers in another thread or process wake with
 * EPOLLHUP | EPOLLERR or end of file; the mapping stays readable (no
 * SIGBUS) and its header says DEAD; every ioctl fails with ENODEV; programs
 * and stalled flushes in progress end. Each test unplugs a device of its
 * own.
 */
#include "nprof_test.h"

#include <sys/epoll.h>

#define PROG 8
#define DEV_ID NPROF_TEST_ID(PROG, 0)
#define MODEL_ID 0x80d0u

static const struct selftest_queue trace0 = {
	NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0
};

FIXTURE(unplug) {
	struct nprof_dev dev;
	struct selftest_ring r;
	bool deleted;
};

FIXTURE_SETUP(unplug)
{
	int ret;

	self->r.fd = -1;
	SETUP_SIM_DEV(&self->dev, DEV_ID, NULL);
	REQUIRE_SIM_EXEC(&self->dev);
	ret = selftest_ring_open(self->dev.fd, &trace0, self->dev.info.min_ring_size,
				 0, &self->r);
	ASSERT_EQ(0, ret) TH_LOG("subscribe+mmap: %s", strerror(-ret));
}

FIXTURE_TEARDOWN(unplug)
{
	selftest_ring_close(&self->r);
	nprof_dev_close(&self->dev);
	if (!self->deleted)
		EXPECT_EQ(0, nprof_sim_del_device(DEV_ID));
}

static void unplug(struct __test_metadata *_metadata, FIXTURE_DATA(unplug) *self)
{
	int ret = nprof_sim_del_device(DEV_ID);

	ASSERT_EQ(0, ret) TH_LOG("del_device %u: %s", DEV_ID, strerror(-ret));
	self->deleted = true;
}

static void run_trace(struct __test_metadata *_metadata,
		      FIXTURE_DATA(unplug) *self, __u32 insns,
		      struct drm_neuronprof_sim_exec *ex)
{
	nprof_exec_init(ex, 0, MODEL_ID, 1, 0, 0, 0);
	ex->instructions[0] = insns;
	ASSERT_EQ(0, nprof_exec(self->dev.fd, ex));
}

struct waiter {
	int fd;
	int kind;	/* 0 poll, 1 epoll, 2 read */
	int ret;
	int err;
	unsigned int events;
	__u64 elapsed_ms;
};

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	unsigned char buf[1024];
	__u64 t0 = nprof_now_ns();

	if (w->kind == 0) {
		struct pollfd p = { .fd = w->fd, .events = POLLIN };

		w->ret = poll(&p, 1, WAIT_TIMEOUT_MS);
		w->events = (unsigned short)p.revents;
	} else if (w->kind == 1) {
		struct epoll_event ev = { .events = EPOLLIN }, out = { 0 };
		int ep = epoll_create1(EPOLL_CLOEXEC);

		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, w->fd, &ev)) {
			w->ret = -1;
		} else {
			w->ret = epoll_wait(ep, &out, 1, WAIT_TIMEOUT_MS);
			w->events = out.events;
		}
		if (ep >= 0)
			close(ep);
	} else {
		w->ret = (int)read(w->fd, buf, sizeof(buf));
	}
	w->err = errno;
	w->elapsed_ms = (nprof_now_ns() - t0) / 1000000;
	return NULL;
}

static void unplug_with_waiter(struct __test_metadata *_metadata,
			       FIXTURE_DATA(unplug) *self, struct waiter *w)
{
	pthread_t th;

	w->fd = self->r.fd;
	ASSERT_EQ(0, pthread_create(&th, NULL, waiter_fn, w));
	/* Let it block: nothing is unread, the device is alive. */
	usleep(200 * 1000);
	unplug(_metadata, self);
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_GT(WAIT_WOKEN_MS, w->elapsed_ms)
		TH_LOG("the waiter was not woken, it ended after %llu ms",
		       (unsigned long long)w->elapsed_ms);
}

TEST_F(unplug, poll_thread_gets_hup)
{
	struct waiter w = { .kind = 0 };

	unplug_with_waiter(_metadata, self, &w);
	ASSERT_EQ(1, w.ret) TH_LOG("poll: %d (%s)", w.ret, strerror(w.err));
	ASSERT_EQ(POLLHUP | POLLERR, w.events & (POLLHUP | POLLERR))
		TH_LOG("revents %#x", w.events);
}

TEST_F(unplug, epoll_thread_gets_hup)
{
	struct waiter w = { .kind = 1 };

	unplug_with_waiter(_metadata, self, &w);
	ASSERT_EQ(1, w.ret) TH_LOG("epoll_wait: %d (%s)", w.ret, strerror(w.err));
	ASSERT_EQ(EPOLLHUP | EPOLLERR, w.events & (EPOLLHUP | EPOLLERR))
		TH_LOG("events %#x", w.events);
}

/* An empty ring of a gone device reads as end of file. */
TEST_F(unplug, read_thread_gets_eof)
{
	struct waiter w = { .kind = 2 };

	unplug_with_waiter(_metadata, self, &w);
	ASSERT_EQ(0, w.ret) TH_LOG("read: %d (%s)", w.ret, strerror(w.err));
}

/* Another process polling the same subscription is woken too. */
TEST_F(unplug, poll_process_gets_hup)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct pollfd p = { .fd = self->r.fd, .events = POLLIN };
		__u64 t0 = nprof_now_ns();
		int ret = poll(&p, 1, WAIT_TIMEOUT_MS);

		if (ret != 1)
			_exit(10);
		if (nprof_now_ns() - t0 >= WAIT_WOKEN_MS * 1000000ull)
			_exit(13);
		if ((p.revents & (POLLHUP | POLLERR)) != (POLLHUP | POLLERR))
			_exit(11);
		/* The child's copy of the mapping is readable too. */
		if (!(self->r.hdr->flags & NEURONPROF_RING_DEAD))
			_exit(12);
		_exit(0);
	}
	usleep(200 * 1000);
	unplug(_metadata, self);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("child status %#x", status);
	ASSERT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child: 10 poll timed out, 11 no POLLHUP|POLLERR, 12 not DEAD, 13 not woken; got %d",
		       WEXITSTATUS(status));
}

/*
 * The mapping outlives the device: header DEAD, positions and entries as
 * they were, every byte readable without SIGBUS, the entries consumable.
 */
TEST_F(unplug, mapping_readable_and_dead)
{
	struct drm_neuronprof_sim_exec ex;
	unsigned char *snap;
	size_t size = self->r.sub.data_size, k;
	volatile unsigned char sum = 0;
	__u64 prod;

	run_trace(_metadata, self, 12, &ex);
	prod = selftest_ring_producer(&self->r);
	ASSERT_LT(0ull, prod);
	snap = malloc(size);
	ASSERT_TRUE(snap != NULL);
	memcpy(snap, self->r.data, size);

	unplug(_metadata, self);
	ASSERT_TRUE(self->r.hdr->flags & NEURONPROF_RING_DEAD);
	ASSERT_EQ(prod, selftest_ring_producer(&self->r));
	for (k = 0; k < size; k++)
		sum += self->r.data[k];
	(void)sum;
	ASSERT_EQ(0, memcmp(snap, self->r.data, size));
	free(snap);
	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE], self->r.delivered);
	/* The consumer page stays writable. */
	selftest_ring_set_consumer(&self->r, 0);
}

/* What was unread before the unplug can still be read(), then EOF. */
TEST_F(unplug, read_remaining_then_eof)
{
	struct drm_neuronprof_sim_exec ex;
	unsigned char buf[4096];
	__u64 total = 0;
	ssize_t n;

	run_trace(_metadata, self, 10, &ex);
	unplug(_metadata, self);
	while ((n = read(self->r.fd, buf, sizeof(buf))) > 0)
		total += (__u64)n;
	ASSERT_EQ(0, n) TH_LOG("read: %s", strerror(errno));
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE] * self->dev.info.entry_size, total);
}

TEST_F(unplug, drain_enodev)
{
	unplug(_metadata, self);
	ASSERT_NEG_ERRNO(ENODEV, nprof_drain(self->r.fd, 0, 0, NULL));
}

TEST_F(unplug, drain_flush_enodev)
{
	unplug(_metadata, self);
	ASSERT_NEG_ERRNO(ENODEV, nprof_drain(self->r.fd, NEURONPROF_DRAIN_FLUSH, 0, NULL));
}

TEST_F(unplug, get_info_enodev)
{
	struct drm_neuronprof_device_info info;

	unplug(_metadata, self);
	ASSERT_NEG_ERRNO(ENODEV, nprof_get_info(self->dev.fd, &info));
}

TEST_F(unplug, subscribe_enodev)
{
	struct drm_neuronprof_nq_subscribe sub;
	struct selftest_queue q = trace0;

	unplug(_metadata, self);
	q.type = NEURONPROF_QT_EVENT;
	ASSERT_NEG_ERRNO(ENODEV, nprof_subscribe_q(self->dev.fd, &q,
						   self->dev.info.min_ring_size,
						   0, &sub));
}

TEST_F(unplug, exec_enodev)
{
	struct drm_neuronprof_sim_exec ex;

	unplug(_metadata, self);
	nprof_exec_init(&ex, 0, MODEL_ID, 1, 1, 0, 1);
	ASSERT_NEG_ERRNO(ENODEV, nprof_exec(self->dev.fd, &ex));
}

TEST_F(unplug, render_node_removed)
{
	struct stat st;

	unplug(_metadata, self);
	ASSERT_ERRNO(ENOENT, stat(self->dev.node, &st));
}

/*
 * Closing and unmapping after the unplug is clean, and the id can be used
 * again for a device whose queues are free.
 */
TEST_F(unplug, id_reusable_after_close)
{
	struct nprof_dev dev2;
	struct selftest_ring r2;
	int ret;

	unplug(_metadata, self);
	selftest_ring_close(&self->r);
	nprof_dev_close(&self->dev);
	ret = nprof_sim_new_device(DEV_ID, NULL, &self->dev);
	ASSERT_EQ(0, ret) TH_LOG("new_device %u again: %s", DEV_ID, strerror(-ret));
	self->deleted = false;
	dev2 = self->dev;
	ret = selftest_ring_open(dev2.fd, &trace0, dev2.info.min_ring_size, 0, &r2);
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	ASSERT_EQ(0u, r2.hdr->flags);
	selftest_ring_close(&r2);
}

/* The id can be used again while the old subscription is still held. */
TEST_F(unplug, id_reusable_while_old_mapping_held)
{
	struct nprof_dev dev2;
	struct selftest_ring r2;
	int ret;

	unplug(_metadata, self);
	ret = nprof_sim_new_device(DEV_ID, NULL, &dev2);
	ASSERT_EQ(0, ret) TH_LOG("new_device %u again: %s", DEV_ID, strerror(-ret));
	self->deleted = false;
	ret = selftest_ring_open(dev2.fd, &trace0, dev2.info.min_ring_size, 0, &r2);
	EXPECT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	if (!ret)
		selftest_ring_close(&r2);
	/* The old ring still says DEAD; the new device does not change it. */
	EXPECT_TRUE(self->r.hdr->flags & NEURONPROF_RING_DEAD);
	nprof_dev_close(&dev2);
}

/*
 * Runs the program again each time it completes, until a run fails: a
 * machine fast enough to finish a long program before the unplug still sees
 * one in progress when the device goes.
 */
struct exec_thread {
	int fd;
	struct drm_neuronprof_sim_exec ex;
	__u64 produced_trace;	/* summed over every run */
	int runs;
	int ret;
};

static void *exec_fn(void *arg)
{
	struct exec_thread *t = arg;

	do {
		t->ret = nprof_exec(t->fd, &t->ex);
		t->produced_trace += t->ex.produced[NEURONPROF_QT_TRACE];
		t->runs++;
	} while (!t->ret);
	return NULL;
}

/*
 * A long program in progress ends with ENODEV, and del_device waits for it;
 * what it produced until then is delivered or lost.
 */
TEST_F_TIMEOUT(unplug, during_exec, 120)
{
	struct exec_thread t = { .fd = self->dev.fd };
	pthread_t th;

	nprof_exec_init(&t.ex, 0, MODEL_ID, NEURONPROF_SIM_MAX_ITERATIONS, 0, 0, 0);
	t.ex.instructions[0] = 512;
	ASSERT_EQ(0, pthread_create(&th, NULL, exec_fn, &t));
	usleep(300 * 1000);
	unplug(_metadata, self);
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(-ENODEV, t.ret) TH_LOG("SIM_EXEC: %s", strerror(-t.ret));
	ASSERT_TRUE(self->r.hdr->flags & NEURONPROF_RING_DEAD);
	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(t.produced_trace, self->r.delivered + self->r.hdr->lost)
		TH_LOG("%d runs", t.runs);
}

struct drain_thread {
	int fd;
	int ret;
};

static void *drain_fn(void *arg)
{
	struct drain_thread *t = arg;

	t->ret = nprof_drain(t->fd, NEURONPROF_DRAIN_FLUSH, 0, NULL);
	return NULL;
}

/* A flush stalled in the provider ends with ENODEV at once. */
TEST_F(unplug, during_stalled_flush)
{
	struct drain_thread t = { .fd = self->r.fd };
	__u64 t0, t_del;
	pthread_t th;
	int ret;

	ret = nprof_sim_knob_write(DEV_ID, "flush_stall_ms", "10000");
	if (ret == -ENOENT)
		SKIP(return, "no flush_stall_ms knob (debugfs not mounted?)");
	ASSERT_EQ(0, ret);
	t0 = nprof_now_ns();
	ASSERT_EQ(0, pthread_create(&th, NULL, drain_fn, &t));
	usleep(300 * 1000);
	unplug(_metadata, self);
	t_del = nprof_now_ns();
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(-ENODEV, t.ret) TH_LOG("NQ_DRAIN: %s", t.ret ? strerror(-t.ret) : "ok");
	ASSERT_GT(t0 + 8000ull * 1000000, t_del) TH_LOG("del_device waited for the stall");
}

/*
 * Unplug while one thread runs a program and another subscribes and
 * unsubscribes in a loop: everything ends, with ENODEV once the device is
 * gone, and nothing else.
 */
struct churn_thread {
	int devfd;
	__u32 min_ring;
	volatile bool stop;
	int rounds;
	int ret;	/* first unexpected error, or -ENODEV once gone */
};

static void *churn_fn(void *arg)
{
	struct selftest_queue q = { NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 1 };
	struct churn_thread *c = arg;

	while (!c->stop) {
		struct selftest_ring r;
		int ret = selftest_ring_open(c->devfd, &q, c->min_ring, 0, &r);

		if (ret) {
			c->ret = ret;
			break;
		}
		selftest_ring_consume(&r, NULL);
		selftest_ring_close(&r);
		c->rounds++;
	}
	return NULL;
}

TEST_F_TIMEOUT(unplug, during_exec_and_churn, 120)
{
	struct exec_thread t = { .fd = self->dev.fd };
	struct churn_thread c = {
		.devfd = self->dev.fd,
		.min_ring = (__u32)self->dev.info.min_ring_size,
	};
	pthread_t th[2];

	nprof_exec_init(&t.ex, 0, MODEL_ID, NEURONPROF_SIM_MAX_ITERATIONS, 0, 0, 0);
	t.ex.instructions[0] = 256;
	t.ex.instructions[1] = 256;
	ASSERT_EQ(0, pthread_create(&th[0], NULL, exec_fn, &t));
	ASSERT_EQ(0, pthread_create(&th[1], NULL, churn_fn, &c));
	usleep(500 * 1000);
	unplug(_metadata, self);
	ASSERT_EQ(0, pthread_join(th[0], NULL));
	c.stop = true;
	ASSERT_EQ(0, pthread_join(th[1], NULL));
	ASSERT_EQ(-ENODEV, t.ret) TH_LOG("SIM_EXEC: %s", strerror(-t.ret));
	ASSERT_LT(0, c.rounds) TH_LOG("no subscription round before the unplug");
	ASSERT_EQ(-ENODEV, c.ret) TH_LOG("subscribe: %s", c.ret ? strerror(-c.ret) : "no error");
	ASSERT_TRUE(self->r.hdr->flags & NEURONPROF_RING_DEAD);
}

TEST_HARNESS_MAIN
