// SPDX-License-Identifier: GPL-2.0
/*
 * The ring protocol end to end: subscribe, mmap, run a program (SIM_EXEC),
 * poll, consume with the acquire/release pairing of the uapi header, drain;
 * every notification produced is either delivered or counted as lost, for
 * every queue of a core and its TopSPs. Then the read() path, NQ_DRAIN and
 * its rejected arguments, overflow accounting, a consumer that writes
 * garbage into its page, and several subscribers of one queue, one stalled.
 */
#include "nprof_test.h"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/syscall.h>

#define PROG 4
#define DEV_ID NPROF_TEST_ID(PROG, 0)
#define MODEL_ID 0x4e50u
#define MAX_RINGS 64

static const struct selftest_queue trace0 = {
	NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0
};

/* A program with @insns instructions on engine 0 only, on core 0. */
static int run_trace(int devfd, __u32 insns, __u32 iterations,
		     struct drm_neuronprof_sim_exec *ex)
{
	nprof_exec_init(ex, 0, MODEL_ID, iterations, 0, 0, 0);
	ex->instructions[0] = insns;
	return nprof_exec(devfd, ex);
}

static int poll_in(int fd, int timeout_ms, short *revents)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ret = poll(&p, 1, timeout_ms);

	*revents = p.revents;
	return ret;
}

/*
 * All queues of one core and of the TopSPs serving it, on each architecture.
 */
FIXTURE(core_queues) {
	struct nprof_dev dev;
	struct selftest_ring rings[MAX_RINGS];
	int n;
};

FIXTURE_VARIANT(core_queues) {
	const char *arch;
	bool last_core;		/* the last core instead of core 0 */
};

FIXTURE_VARIANT_ADD(core_queues, trn1_core0) { .arch = "trn1", .last_core = false };
FIXTURE_VARIANT_ADD(core_queues, inf2_core1) { .arch = "inf2", .last_core = true };
FIXTURE_VARIANT_ADD(core_queues, trn2_core0) { .arch = "trn2", .last_core = false };
FIXTURE_VARIANT_ADD(core_queues, trn2_core7) { .arch = "trn2", .last_core = true };

FIXTURE_SETUP(core_queues)
{
	int k;

	for (k = 0; k < MAX_RINGS; k++)
		self->rings[k].fd = -1;
	SETUP_SIM_DEV(&self->dev, DEV_ID, variant->arch);
	REQUIRE_SIM_EXEC(&self->dev);
}

FIXTURE_TEARDOWN(core_queues)
{
	int k;

	for (k = 0; k < self->n; k++)
		selftest_ring_close(&self->rings[k]);
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

TEST_F_TIMEOUT(core_queues, everything_delivered_or_lost, 120)
{
	const struct drm_neuronprof_device_info *info = &self->dev.info;
	__u32 core = variant->last_core ? info->num_cores - 1 : 0;
	bool flush = info->caps & NEURONPROF_CAP_FLUSH;
	__u64 produced[16] = { 0 }, delivered[16] = { 0 }, lost[16] = { 0 };
	struct selftest_queue q[MAX_RINGS];
	struct drm_neuronprof_sim_exec ex;
	struct nprof_expect exp = { 0 };
	__u64 ring_size = 16384;
	int k, t, run, n, ret;

	if (ring_size < info->min_ring_size)
		ring_size = info->min_ring_size;
	if (ring_size > info->max_ring_size)
		ring_size = info->max_ring_size;

	n = nprof_core_queues(info, core, q, MAX_RINGS);
	ASSERT_LT(0, n);
	for (k = 0; k < n; k++) {
		ret = selftest_ring_open(self->dev.fd, &q[k], ring_size, 0,
					 &self->rings[k]);
		ASSERT_EQ(0, ret)
			TH_LOG("subscribe+mmap %s kind %u index %u engine %u: %s",
			       nprof_qt_name(q[k].type), q[k].kind, q[k].index,
			       q[k].engine, strerror(-ret));
		self->n = k + 1;
	}

	/* Two runs: sequence numbers carry on across executions. */
	for (run = 0; run < 2; run++) {
		nprof_exec_init(&ex, core, MODEL_ID + run, 3, 24, 10,
				info->engines_per_core);
		ex.flags = NEURONPROF_SIM_EXEC_THROTTLE;
		exp.check_model = true;
		exp.model_id = MODEL_ID + run;
		exp.iterations = 3;
		exp.ts_increasing = true;
		exp.ts_min = nprof_now_ns();
		ret = nprof_exec(self->dev.fd, &ex);
		exp.ts_max = nprof_now_ns();
		ASSERT_EQ(0, ret) TH_LOG("SIM_EXEC on core %u: %s", core, strerror(-ret));
		ASSERT_EQ(0u, ex.status);
		if (info->clock_id != CLOCK_MONOTONIC)
			exp.ts_max = 0;

		for (t = 0; t < 16; t++)
			produced[t] += ex.produced[t];

		/* The end of an execution wakes every ring that got entries. */
		for (k = 0; k < n; k++) {
			struct selftest_ring *r = &self->rings[k];
			short rev = 0;

			if (selftest_ring_producer(r) == selftest_ring_consumer_pos(r))
				continue;
			ASSERT_EQ(1, poll_in(r->fd, 0, &rev));
			ASSERT_TRUE(rev & POLLIN)
				TH_LOG("%s/%u[%u] has entries but no POLLIN",
				       nprof_qt_name(r->q.type), r->q.index, r->q.engine);
		}
		for (k = 0; k < n; k++) {
			ASSERT_RING_OK(&self->rings[k],
				       selftest_ring_settle(&self->rings[k], &exp, flush));
		}
	}

	for (k = 0; k < n; k++) {
		struct selftest_ring *r = &self->rings[k];
		__u64 l = r->hdr->lost;

		delivered[r->q.type] += r->delivered;
		lost[r->q.type] += l;
		EXPECT_GE(l, r->gaps) TH_LOG("%s/%u[%u]: seq gaps %llu > lost %llu",
					     nprof_qt_name(r->q.type), r->q.index,
					     r->q.engine, (unsigned long long)r->gaps,
					     (unsigned long long)l);
		EXPECT_EQ(!!l, !!(r->hdr->flags & NEURONPROF_RING_OVERFLOWED));
		EXPECT_EQ(0u, r->hdr->flags & (NEURONPROF_RING_DEAD |
					       NEURONPROF_RING_BAD_CONSUMER));
	}
	for (t = 0; t < 16; t++) {
		EXPECT_EQ(produced[t], delivered[t] + lost[t])
			TH_LOG("%s: produced %llu, delivered %llu, lost %llu",
			       nprof_qt_name(t), (unsigned long long)produced[t],
			       (unsigned long long)delivered[t],
			       (unsigned long long)lost[t]);
	}

	/* What the program asked for was produced; nothing else was. */
	EXPECT_LT(0ull, produced[NEURONPROF_QT_TRACE]);
	EXPECT_LT(0ull, produced[NEURONPROF_QT_EVENT]);
	EXPECT_LT(0ull, produced[NEURONPROF_QT_INFER_STATUS]);
	EXPECT_LT(0ull, produced[NEURONPROF_QT_DMA]);
	EXPECT_LT(0ull, produced[NEURONPROF_QT_THROTTLE]);
	EXPECT_EQ(0ull, produced[NEURONPROF_QT_ERROR]);
	EXPECT_EQ(0ull, produced[NEURONPROF_QT_TOPSP_ERROR]);
	if (info->num_topsps) {
		EXPECT_LT(0ull, produced[NEURONPROF_QT_TOPSP_TRACE]);
		EXPECT_LT(0ull, produced[NEURONPROF_QT_TOPSP_EVENT]);
	}
	for (t = NEURONPROF_QT_COUNT; t < 16; t++) {
		EXPECT_EQ(0ull, produced[t]);
	}
}

/*
 * A program on another core touches none of these queues, and produced[]
 * counts only subscribed queues.
 */
TEST_F(core_queues, other_core_untouched)
{
	const struct drm_neuronprof_device_info *info = &self->dev.info;
	__u32 core = variant->last_core ? info->num_cores - 1 : 0;
	__u32 other = (core + 1) % info->num_cores;
	struct selftest_queue q[MAX_RINGS];
	struct drm_neuronprof_sim_exec ex;
	int k, t, n, ret;

	n = nprof_core_queues(info, core, q, MAX_RINGS);
	ASSERT_LT(0, n);
	for (k = 0; k < n; k++) {
		ret = selftest_ring_open(self->dev.fd, &q[k], info->min_ring_size,
					 0, &self->rings[k]);
		ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
		self->n = k + 1;
	}
	nprof_exec_init(&ex, other, MODEL_ID, 2, 8, 4, info->engines_per_core);
	ex.flags = NEURONPROF_SIM_EXEC_THROTTLE | NEURONPROF_SIM_EXEC_ERROR;
	ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
	for (t = 0; t < 16; t++) {
		EXPECT_EQ(0ull, ex.produced[t])
			TH_LOG("%s: %llu produced into unsubscribed queues",
			       nprof_qt_name(t), (unsigned long long)ex.produced[t]);
	}
	for (k = 0; k < n; k++) {
		EXPECT_EQ(0ull, selftest_ring_producer(&self->rings[k]));
		EXPECT_EQ(0ull, self->rings[k].hdr->lost);
	}
}

/* One TRACE ring of the smallest size on core 0 of a default device. */
FIXTURE(ring) {
	struct nprof_dev dev;
	struct selftest_ring r;
	__u64 cap;		/* entries the ring holds */
	__u64 esz;
};

FIXTURE_SETUP(ring)
{
	int ret;

	self->r.fd = -1;
	SETUP_SIM_DEV(&self->dev, DEV_ID, NULL);
	REQUIRE_SIM_EXEC(&self->dev);
	ret = selftest_ring_open(self->dev.fd, &trace0, self->dev.info.min_ring_size,
				 0, &self->r);
	ASSERT_EQ(0, ret) TH_LOG("subscribe+mmap: %s", strerror(-ret));
	self->esz = self->dev.info.entry_size;
	self->cap = self->dev.info.min_ring_size / self->esz;
}

FIXTURE_TEARDOWN(ring)
{
	selftest_ring_close(&self->r);
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

/* Run a program that leaves the ring full; returns what it produced. */
static __u64 fill_ring(struct __test_metadata *_metadata,
		       FIXTURE_DATA(ring) *self)
{
	struct drm_neuronprof_sim_exec ex;

	ASSERT_EQ(0, run_trace(self->dev.fd, 2 * self->cap, 1, &ex));
	ASSERT_LT(self->cap, ex.produced[NEURONPROF_QT_TRACE])
		TH_LOG("a program of %llu instructions produced only %llu TRACE entries",
		       (unsigned long long)(2 * self->cap),
		       (unsigned long long)ex.produced[NEURONPROF_QT_TRACE]);
	ASSERT_EQ(self->cap * self->esz, selftest_ring_producer(&self->r));
	return ex.produced[NEURONPROF_QT_TRACE];
}

TEST_F(ring, poll_empty_no_event)
{
	short rev = 0;

	ASSERT_EQ(0, poll_in(self->r.fd, 0, &rev));
}

struct waiter {
	int fd;
	bool use_read;
	void *buf;
	size_t len;
	int ret;
	int err;
	short revents;
	__u64 elapsed_ms;
};

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	__u64 t0 = nprof_now_ns();

	if (w->use_read) {
		w->ret = (int)read(w->fd, w->buf, w->len);
	} else {
		struct pollfd p = { .fd = w->fd, .events = POLLIN };

		w->ret = poll(&p, 1, WAIT_TIMEOUT_MS);
		w->revents = p.revents;
	}
	w->err = errno;
	w->elapsed_ms = (nprof_now_ns() - t0) / 1000000;
	return NULL;
}

/*
 * A poller waiting for more than the program produces is still woken when
 * the execution ends (the sim flushes every queue of the core then).
 */
TEST_F(ring, poll_woken_at_end_of_exec_below_watermark)
{
	struct selftest_ring hi;
	struct selftest_queue q = trace0;
	struct drm_neuronprof_sim_exec ex;
	struct waiter w = { 0 };
	pthread_t th;
	int ret;

	q.engine = 1;
	ret = selftest_ring_open(self->dev.fd, &q, self->dev.info.min_ring_size,
				 (__u32)self->dev.info.min_ring_size, &hi);
	ASSERT_EQ(0, ret);
	w.fd = hi.fd;
	ASSERT_EQ(0, pthread_create(&th, NULL, waiter_fn, &w));
	usleep(200 * 1000);
	nprof_exec_init(&ex, 0, MODEL_ID, 1, 0, 0, 0);
	ex.instructions[1] = 4;
	ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(1, w.ret) TH_LOG("poll: %d (%s)", w.ret, strerror(w.err));
	EXPECT_TRUE(w.revents & POLLIN);
	EXPECT_GT(WAIT_WOKEN_MS, w.elapsed_ms)
		TH_LOG("poll was not woken, it ended after %llu ms",
		       (unsigned long long)w.elapsed_ms);
	EXPECT_FALSE(w.revents & (POLLHUP | POLLERR));
	selftest_ring_close(&hi);
}

/* Once everything is consumed, poll reports nothing again. */
TEST_F(ring, poll_quiet_after_consuming)
{
	struct drm_neuronprof_sim_exec ex;
	short rev = 0;

	ASSERT_EQ(0, run_trace(self->dev.fd, 8, 1, &ex));
	ASSERT_EQ(1, poll_in(self->r.fd, 0, &rev));
	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(0, poll_in(self->r.fd, 0, &rev))
		TH_LOG("revents %#x with nothing unread", rev);
}

TEST_F(ring, epoll_reports_in)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	struct drm_neuronprof_sim_exec ex;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->r.fd, &ev));
	ASSERT_EQ(0, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(0, run_trace(self->dev.fd, 8, 1, &ex));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 1000));
	EXPECT_TRUE(out.events & EPOLLIN);
	close(ep);
}

/*
 * Entries are visible through the mapping, and releasing them by storing
 * consumer_pos frees their space for the next program.
 */
TEST_F(ring, consumer_release_frees_space)
{
	struct drm_neuronprof_sim_exec ex1, ex2;
	__u64 insns = self->cap * 5 / 8;

	ASSERT_EQ(0, run_trace(self->dev.fd, insns, 1, &ex1));
	ASSERT_GE(self->cap, ex1.produced[NEURONPROF_QT_TRACE]);
	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(ex1.produced[NEURONPROF_QT_TRACE], self->r.delivered);

	ASSERT_EQ(0, run_trace(self->dev.fd, insns, 1, &ex2));
	/* Without the release these would not have fit. */
	ASSERT_LT(self->cap, ex1.produced[NEURONPROF_QT_TRACE] +
			     ex2.produced[NEURONPROF_QT_TRACE]);
	ASSERT_EQ(0ull, self->r.hdr->lost);
	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(ex1.produced[NEURONPROF_QT_TRACE] +
		  ex2.produced[NEURONPROF_QT_TRACE], self->r.delivered);
	ASSERT_EQ(0ull, self->r.gaps);
	ASSERT_EQ(0u, self->r.hdr->flags);
}

/*
 * A ring too small for the program: it fills, is never overwritten, and
 * every notification beyond is counted as lost; after consuming, the next
 * entries' sequence numbers jump by exactly the number lost.
 */
TEST_F(ring, overflow_counts_exactly)
{
	struct drm_neuronprof_sim_exec ex2;
	struct neuronprof_nq_drain d;
	__u64 produced1, lost1;

	produced1 = fill_ring(_metadata, self);
	lost1 = self->r.hdr->lost;
	ASSERT_EQ(produced1 - self->cap, lost1);
	ASSERT_TRUE(self->r.hdr->flags & NEURONPROF_RING_OVERFLOWED);
	ASSERT_EQ(0, nprof_drain(self->r.fd, 0, 0, &d));
	ASSERT_EQ(lost1, d.lost);
	ASSERT_TRUE(d.ring_flags & NEURONPROF_RING_OVERFLOWED);

	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(self->cap, self->r.delivered);
	ASSERT_EQ(0ull, self->r.gaps) TH_LOG("the ring filled in order");

	ASSERT_EQ(0, run_trace(self->dev.fd, self->cap / 4, 1, &ex2));
	ASSERT_GE(self->cap, ex2.produced[NEURONPROF_QT_TRACE]);
	ASSERT_EQ(lost1, self->r.hdr->lost) TH_LOG("the second program fits");
	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(lost1, self->r.gaps);
	ASSERT_EQ(produced1 + ex2.produced[NEURONPROF_QT_TRACE],
		  self->r.delivered + self->r.hdr->lost);
	/* OVERFLOWED is sticky: it says something was lost, ever. */
	ASSERT_TRUE(self->r.hdr->flags & NEURONPROF_RING_OVERFLOWED);
}

/* read(): whole entries, in order, consumed. */
TEST_F(ring, read_whole_entries)
{
	struct drm_neuronprof_sim_exec ex;
	struct neuronprof_nq_drain d;
	size_t len = 7 * self->esz;
	unsigned char *buf = malloc(len);
	__u64 total = 0;
	ssize_t n;

	ASSERT_TRUE(buf != NULL);
	ASSERT_EQ(0, run_trace(self->dev.fd, self->cap / 2, 1, &ex));
	ASSERT_EQ(0, fcntl(self->r.fd, F_SETFL, O_NONBLOCK));
	for (;;) {
		size_t off;

		n = read(self->r.fd, buf, len);
		if (n < 0)
			break;
		ASSERT_LT(0, n);
		ASSERT_EQ(0u, (size_t)n % self->esz);
		for (off = 0; off < (size_t)n; off += self->esz) {
			ASSERT_EQ(0, selftest_ring_check_entry(&self->r,
							       (const void *)(buf + off), NULL))
				TH_LOG("%s", self->r.err);
		}
		total += (__u64)n;
		/* read() moves the consumer position userspace sees. */
		ASSERT_EQ(total, selftest_ring_consumer_pos(&self->r));
	}
	ASSERT_EQ(EAGAIN, errno);
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE], self->r.delivered);
	ASSERT_EQ(0ull, self->r.gaps);
	ASSERT_EQ(0, nprof_drain(self->r.fd, 0, 0, &d));
	ASSERT_EQ(d.producer_pos, d.consumer_pos);
	ASSERT_EQ(0u, d.ring_flags & NEURONPROF_RING_BAD_CONSUMER);
	free(buf);
}

/* A consumer that never maps the ring: read() alone accounts for all. */
TEST_F(ring, read_without_mapping_accounts_all)
{
	struct drm_neuronprof_nq_subscribe sub;
	struct drm_neuronprof_sim_exec ex;
	struct neuronprof_nq_drain d;
	struct selftest_ring acc;
	struct selftest_queue q = trace0;
	unsigned char buf[4096];
	ssize_t n;
	int fd;

	q.engine = 2;
	memset(&acc, 0, sizeof(acc));
	acc.q = q;
	fd = nprof_subscribe_q(self->dev.fd, &q, self->dev.info.min_ring_size, 0, &sub);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
	nprof_exec_init(&ex, 0, MODEL_ID, 1, 0, 0, 0);
	ex.instructions[2] = 3 * self->cap;
	ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		ssize_t off;

		for (off = 0; off < n; off += (ssize_t)self->esz) {
			ASSERT_EQ(0, selftest_ring_check_entry(&acc,
							       (const void *)(buf + off), NULL))
				TH_LOG("%s", acc.err);
		}
	}
	ASSERT_EQ(-1, n);
	ASSERT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, nprof_drain(fd, 0, 0, &d));
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE], acc.delivered + d.lost);
	ASSERT_EQ(self->cap, acc.delivered);
	close(fd);
}

TEST_F(ring, read_partial_buffer_whole_entry)
{
	struct drm_neuronprof_sim_exec ex;
	unsigned char buf[256];

	ASSERT_LE(self->esz + self->esz / 2, sizeof(buf));
	ASSERT_EQ(0, run_trace(self->dev.fd, 4, 1, &ex));
	ASSERT_EQ((ssize_t)self->esz,
		  read(self->r.fd, buf, self->esz + self->esz / 2));
	ASSERT_EQ(self->esz, selftest_ring_consumer_pos(&self->r));
}

TEST_F(ring, read_short_buffer_einval)
{
	struct drm_neuronprof_sim_exec ex;
	unsigned char buf[256];

	ASSERT_EQ(0, run_trace(self->dev.fd, 4, 1, &ex));
	ASSERT_ERRNO(EINVAL, (int)read(self->r.fd, buf, self->esz - 1));
	ASSERT_EQ(0ull, selftest_ring_consumer_pos(&self->r));
}

TEST_F(ring, read_empty_nonblock_eagain)
{
	unsigned char buf[256];

	ASSERT_EQ(0, fcntl(self->r.fd, F_SETFL, O_NONBLOCK));
	ASSERT_ERRNO(EAGAIN, (int)read(self->r.fd, buf, sizeof(buf)));
}

/* A bad buffer consumes nothing: the entries are still there. */
TEST_F(ring, read_bad_buffer_efault_keeps_entries)
{
	struct drm_neuronprof_sim_exec ex;

	ASSERT_EQ(0, run_trace(self->dev.fd, 4, 1, &ex));
	ASSERT_ERRNO(EFAULT, (int)read(self->r.fd, NULL, self->esz));
	ASSERT_EQ(0ull, selftest_ring_consumer_pos(&self->r));
	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE], self->r.delivered);
}

/* A blocking read() sleeps until a program produces. */
TEST_F(ring, read_blocks_until_exec)
{
	struct drm_neuronprof_sim_exec ex;
	unsigned char buf[1024];
	struct waiter w = { .fd = self->r.fd, .use_read = true, .buf = buf,
			    .len = sizeof(buf) };
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, waiter_fn, &w));
	usleep(200 * 1000);
	ASSERT_EQ(0, run_trace(self->dev.fd, 3, 1, &ex));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_LT(0, w.ret) TH_LOG("read: %s", strerror(w.err));
	ASSERT_EQ(0, w.ret % (int)self->esz);
	ASSERT_GT(WAIT_WOKEN_MS, w.elapsed_ms);
}

/*
 * After a flush (here: the end of an execution) EPOLLIN holds, even below
 * the watermark, until the consumer passed everything produced before it.
 */
TEST_F(ring, poll_in_until_flush_consumed)
{
	struct selftest_ring hi;
	struct selftest_queue q = trace0;
	struct drm_neuronprof_sim_exec ex;
	__u64 prod;
	short rev = 0;
	int ret;

	q.engine = 3;
	ret = selftest_ring_open(self->dev.fd, &q, self->dev.info.min_ring_size,
				 (__u32)self->dev.info.min_ring_size, &hi);
	ASSERT_EQ(0, ret);
	nprof_exec_init(&ex, 0, MODEL_ID, 1, 0, 0, 0);
	ex.instructions[3] = 6;
	ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
	prod = selftest_ring_producer(&hi);
	ASSERT_LT(self->esz, prod);
	ASSERT_GT(self->dev.info.min_ring_size, prod) TH_LOG("below the watermark");
	ASSERT_EQ(1, poll_in(hi.fd, 0, &rev));
	/* Half consumed: what is left was produced before the flush. */
	selftest_ring_set_consumer(&hi, prod / self->esz / 2 * self->esz);
	ASSERT_EQ(1, poll_in(hi.fd, 0, &rev));
	ASSERT_TRUE(rev & POLLIN);
	selftest_ring_set_consumer(&hi, prod);
	ASSERT_EQ(0, poll_in(hi.fd, 0, &rev));
	/* A flush with nothing unread reports nothing. */
	ASSERT_EQ(0, nprof_drain(hi.fd, NEURONPROF_DRAIN_FLUSH, 0, NULL));
	ASSERT_EQ(0, poll_in(hi.fd, 0, &rev));
	selftest_ring_close(&hi);
}

/* The subscription fd has no file position and cannot be written. */
TEST_F(ring, write_einval)
{
	unsigned char buf[64] = { 0 };

	ASSERT_ERRNO(EINVAL, (int)write(self->r.fd, buf, sizeof(buf)));
}

TEST_F(ring, lseek_espipe)
{
	ASSERT_ERRNO(ESPIPE, (int)lseek(self->r.fd, 0, SEEK_SET));
}

TEST_F(ring, pread_espipe)
{
	struct drm_neuronprof_sim_exec ex;
	unsigned char buf[256];

	ASSERT_EQ(0, run_trace(self->dev.fd, 2, 1, &ex));
	ASSERT_ERRNO(ESPIPE, (int)pread(self->r.fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0ull, selftest_ring_consumer_pos(&self->r));
}

TEST_F(ring, drain_reports_positions)
{
	struct drm_neuronprof_sim_exec ex;
	struct neuronprof_nq_drain d;

	ASSERT_EQ(0, run_trace(self->dev.fd, 5, 1, &ex));
	ASSERT_EQ(0, nprof_drain(self->r.fd, 0, 0, &d));
	ASSERT_EQ(selftest_ring_producer(&self->r), d.producer_pos);
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE] * self->esz, d.producer_pos);
	ASSERT_EQ(0ull, d.consumer_pos);
	ASSERT_EQ(0ull, d.lost);
	ASSERT_EQ(0u, d.ring_flags);
	ASSERT_EQ(0u, d.pad);
	ASSERT_EQ(0u, d.pad2);
}

TEST_F(ring, drain_flush)
{
	struct neuronprof_nq_drain d;
	int ret;

	if (!(self->dev.info.caps & NEURONPROF_CAP_FLUSH))
		SKIP(return, "device cannot flush");
	ret = nprof_drain(self->r.fd, NEURONPROF_DRAIN_FLUSH, 0, &d);
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	ASSERT_EQ(0ull, d.producer_pos);
}

TEST_F(ring, drain_release_valid)
{
	struct drm_neuronprof_sim_exec ex;
	struct neuronprof_nq_drain d;
	__u64 half;

	ASSERT_EQ(0, run_trace(self->dev.fd, 8, 1, &ex));
	half = selftest_ring_producer(&self->r) / 2;
	half -= half % self->esz;
	ASSERT_EQ(0, nprof_drain(self->r.fd, NEURONPROF_DRAIN_RELEASE, half, &d));
	ASSERT_EQ(half, d.consumer_pos);
	/* The kernel consumed for us: the consumer page says so too. */
	ASSERT_EQ(half, selftest_ring_consumer_pos(&self->r));
	/* Releasing up to where it already is is no move, and valid. */
	ASSERT_EQ(0, nprof_drain(self->r.fd, NEURONPROF_DRAIN_RELEASE, half, &d));
	ASSERT_EQ(half, d.consumer_pos);
	ASSERT_EQ(0u, d.ring_flags & NEURONPROF_RING_BAD_CONSUMER);
}

/* After a release through NQ_DRAIN the freed space is used, no garbage flagged. */
TEST_F(ring, drain_release_frees_space)
{
	struct drm_neuronprof_sim_exec ex;
	__u64 prod, produced1;

	produced1 = fill_ring(_metadata, self);
	prod = selftest_ring_producer(&self->r);
	ASSERT_EQ(0, nprof_drain(self->r.fd, NEURONPROF_DRAIN_RELEASE, prod, NULL));
	ASSERT_EQ(0, run_trace(self->dev.fd, self->cap / 4, 1, &ex));
	ASSERT_EQ(produced1 - self->cap, self->r.hdr->lost);
	ASSERT_EQ(prod + ex.produced[NEURONPROF_QT_TRACE] * self->esz,
		  selftest_ring_producer(&self->r));
	ASSERT_EQ(0u, self->r.hdr->flags & NEURONPROF_RING_BAD_CONSUMER);
}

TEST_F(ring, drain_unknown_flag_einval)
{
	ASSERT_NEG_ERRNO(EINVAL, nprof_drain(self->r.fd, 1u << 2, 0, NULL));
}

TEST_F(ring, drain_high_flag_einval)
{
	ASSERT_NEG_ERRNO(EINVAL, nprof_drain(self->r.fd, 1u << 31, 0, NULL));
}

static int drain_raw(int fd, struct neuronprof_nq_drain *d)
{
	return ioctl(fd, NEURONPROF_IOCTL_NQ_DRAIN, d);
}

TEST_F(ring, drain_pad_einval)
{
	struct neuronprof_nq_drain d = { .pad = 1 };

	ASSERT_ERRNO(EINVAL, drain_raw(self->r.fd, &d));
}

TEST_F(ring, drain_pad2_einval)
{
	struct neuronprof_nq_drain d = { .pad2 = 1 };

	ASSERT_ERRNO(EINVAL, drain_raw(self->r.fd, &d));
}

TEST_F(ring, drain_release_pos_without_flag_einval)
{
	struct drm_neuronprof_sim_exec ex;

	ASSERT_EQ(0, run_trace(self->dev.fd, 4, 1, &ex));
	ASSERT_NEG_ERRNO(EINVAL, nprof_drain(self->r.fd, 0, self->esz, NULL));
	ASSERT_EQ(0ull, selftest_ring_consumer_pos(&self->r));
}

TEST_F(ring, drain_release_unaligned_einval)
{
	struct drm_neuronprof_sim_exec ex;

	ASSERT_EQ(0, run_trace(self->dev.fd, 4, 1, &ex));
	ASSERT_NEG_ERRNO(EINVAL, nprof_drain(self->r.fd, NEURONPROF_DRAIN_RELEASE,
					     self->esz + 1, NULL));
	ASSERT_EQ(0ull, selftest_ring_consumer_pos(&self->r));
}

TEST_F(ring, drain_release_beyond_producer_einval)
{
	struct drm_neuronprof_sim_exec ex;
	__u64 prod;

	ASSERT_EQ(0, run_trace(self->dev.fd, 4, 1, &ex));
	prod = selftest_ring_producer(&self->r);
	ASSERT_NEG_ERRNO(EINVAL, nprof_drain(self->r.fd, NEURONPROF_DRAIN_RELEASE,
					     prod + self->esz, NULL));
	ASSERT_EQ(0ull, selftest_ring_consumer_pos(&self->r));
}

/* Far beyond: a value that would wrap the distance arithmetic. */
TEST_F(ring, drain_release_wrapping_einval)
{
	struct drm_neuronprof_sim_exec ex;
	__u64 pos = ~(__u64)0 - (self->esz - 1);

	ASSERT_EQ(0, run_trace(self->dev.fd, 4, 1, &ex));
	ASSERT_NEG_ERRNO(EINVAL, nprof_drain(self->r.fd, NEURONPROF_DRAIN_RELEASE,
					     pos, NULL));
	ASSERT_EQ(0ull, selftest_ring_consumer_pos(&self->r));
}

TEST_F(ring, drain_release_backwards_einval)
{
	struct drm_neuronprof_sim_exec ex;

	ASSERT_EQ(0, run_trace(self->dev.fd, 4, 1, &ex));
	ASSERT_EQ(0, nprof_drain(self->r.fd, NEURONPROF_DRAIN_RELEASE,
				 2 * self->esz, NULL));
	ASSERT_NEG_ERRNO(EINVAL, nprof_drain(self->r.fd, NEURONPROF_DRAIN_RELEASE,
					     self->esz, NULL));
	ASSERT_EQ(2 * self->esz, selftest_ring_consumer_pos(&self->r));
}

TEST_F(ring, drain_bad_pointer_efault)
{
	ASSERT_ERRNO(EFAULT, ioctl(self->r.fd, NEURONPROF_IOCTL_NQ_DRAIN, NULL));
}

/* Another command on the subscription fd. */
TEST_F(ring, unknown_ioctl_on_subscription_enotty)
{
	struct neuronprof_nq_drain d = { 0 };
	unsigned long cmd = _IOWR(NEURONPROF_NQ_IOC_MAGIC, 0x02,
				  struct neuronprof_nq_drain);

	ASSERT_ERRNO(ENOTTY, ioctl(self->r.fd, cmd, &d));
}

/* NQ_DRAIN belongs to subscription fds, not to the render node. */
TEST_F(ring, drain_on_render_fd_fails)
{
	struct neuronprof_nq_drain d = { 0 };
	int ret = drain_raw(self->dev.fd, &d);

	ASSERT_EQ(-1, ret) TH_LOG("NQ_DRAIN succeeded on the render node");
	ASSERT_EQ(ENOTTY, errno) TH_LOG("%s", strerror(errno));
}

TEST_F(ring, drain_on_regular_file_enotty)
{
	struct neuronprof_nq_drain d = { 0 };
	struct stat st;
	int fd = (int)syscall(SYS_memfd_create, "nprof", 0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	ASSERT_TRUE(S_ISREG(st.st_mode));
	ASSERT_ERRNO(ENOTTY, drain_raw(fd, &d));
	close(fd);
}

TEST_F(ring, drain_on_closed_fd_ebadf)
{
	struct neuronprof_nq_drain d = { 0 };
	int fd = dup(self->r.fd);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, close(fd));
	ASSERT_ERRNO(EBADF, drain_raw(fd, &d));
}

/*
 * Hostile consumers. The ring is full; the consumer page gets a value the
 * kernel must not believe. The next program must not overwrite a single
 * unread byte, must count everything it produced as lost, and must flag
 * BAD_CONSUMER; once a valid position is back, consuming works as before.
 */
static void hostile(struct __test_metadata *_metadata,
		    FIXTURE_DATA(ring) *self, __u64 garbage)
{
	struct drm_neuronprof_sim_exec ex;
	__u64 produced1, lost1, prod;
	unsigned char *snap;
	size_t size = self->r.sub.data_size;

	produced1 = fill_ring(_metadata, self);
	lost1 = self->r.hdr->lost;
	prod = selftest_ring_producer(&self->r);
	snap = malloc(size);
	ASSERT_TRUE(snap != NULL);
	memcpy(snap, self->r.data, size);

	selftest_ring_set_consumer(&self->r, garbage);
	ASSERT_EQ(0, run_trace(self->dev.fd, self->cap / 2, 1, &ex))
		TH_LOG("the device stopped working after a bad consumer_pos");
	ASSERT_EQ(0u, ex.status);
	EXPECT_TRUE(self->r.hdr->flags & NEURONPROF_RING_BAD_CONSUMER)
		TH_LOG("consumer_pos %#llx not flagged", (unsigned long long)garbage);
	EXPECT_EQ(prod, selftest_ring_producer(&self->r))
		TH_LOG("the producer moved into space that was never released");
	EXPECT_EQ(0, memcmp(snap, self->r.data, size))
		TH_LOG("unread entries were overwritten");
	EXPECT_EQ(lost1 + ex.produced[NEURONPROF_QT_TRACE], self->r.hdr->lost);
	free(snap);

	/* Back to the last valid position: everything is there, in order. */
	selftest_ring_set_consumer(&self->r, 0);
	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(self->cap, self->r.delivered);
	ASSERT_EQ(0ull, self->r.gaps);
	ASSERT_EQ(produced1 + ex.produced[NEURONPROF_QT_TRACE],
		  self->r.delivered + self->r.hdr->lost);
	/* And the ring is usable again. */
	ASSERT_EQ(0, run_trace(self->dev.fd, 2, 1, &ex));
	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(self->cap + ex.produced[NEURONPROF_QT_TRACE], self->r.delivered);
}

TEST_F(ring, hostile_consumer_beyond_producer)
{
	hostile(_metadata, self, self->cap * self->esz + self->esz);
}

/* Claims a whole ring more than was produced: "everything is free". */
TEST_F(ring, hostile_consumer_ring_ahead)
{
	hostile(_metadata, self, 2 * self->cap * self->esz);
}

TEST_F(ring, hostile_consumer_unaligned)
{
	hostile(_metadata, self, self->esz / 2);
}

TEST_F(ring, hostile_consumer_all_ones)
{
	hostile(_metadata, self, ~(__u64)0);
}

/* Just below 2^64: backwards by one entry from 0, modulo 2^64. */
TEST_F(ring, hostile_consumer_wrapped_backwards)
{
	hostile(_metadata, self, (__u64)0 - self->esz);
}

/*
 * Backwards from a valid position: consume half, let the kernel see it,
 * then move the consumer back. The half that is unread stays untouched.
 */
TEST_F(ring, hostile_consumer_backwards)
{
	struct drm_neuronprof_sim_exec ex;
	__u64 half, prod, lost1, produced1;
	unsigned char *snap;
	size_t size = self->r.sub.data_size;
	__u64 off, end;

	produced1 = fill_ring(_metadata, self);
	half = self->cap / 2 * self->esz;
	selftest_ring_set_consumer(&self->r, half);
	/* Refill what was released, so the ring is full again. */
	ASSERT_EQ(0, run_trace(self->dev.fd, 2 * self->cap, 1, &ex));
	produced1 += ex.produced[NEURONPROF_QT_TRACE];
	prod = selftest_ring_producer(&self->r);
	ASSERT_EQ(half + self->cap * self->esz, prod);
	lost1 = self->r.hdr->lost;
	snap = malloc(size);
	ASSERT_TRUE(snap != NULL);
	memcpy(snap, self->r.data, size);

	selftest_ring_set_consumer(&self->r, half - self->esz);
	ASSERT_EQ(0, run_trace(self->dev.fd, self->cap / 2, 1, &ex));
	EXPECT_TRUE(self->r.hdr->flags & NEURONPROF_RING_BAD_CONSUMER);
	EXPECT_EQ(prod, selftest_ring_producer(&self->r));
	EXPECT_EQ(lost1 + ex.produced[NEURONPROF_QT_TRACE], self->r.hdr->lost);
	/* Every unread byte, [half, prod), is as it was. */
	for (off = half, end = prod; off < end; off += self->esz) {
		__u64 i = off & (size - 1);

		ASSERT_EQ(0, memcmp(snap + i, self->r.data + i, self->esz))
			TH_LOG("unread entry at position %llu overwritten",
			       (unsigned long long)off);
	}
	free(snap);
	produced1 += ex.produced[NEURONPROF_QT_TRACE];

	/* Resume from the valid position: the reference consumer had 0. */
	self->r.next_seq = self->cap / 2;
	self->r.delivered = self->cap / 2;
	selftest_ring_set_consumer(&self->r, half);
	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(produced1, self->r.delivered + self->r.hdr->lost);
}

/* A sub-entry write into the consumer page beside consumer_pos is ignored. */
TEST_F(ring, consumer_page_rest_ignored)
{
	struct drm_neuronprof_sim_exec ex;
	unsigned char *page = (unsigned char *)self->r.cons;

	memset(page + sizeof(struct neuronprof_ring_consumer), 0xff,
	       self->r.sub.consumer_size - sizeof(struct neuronprof_ring_consumer));
	ASSERT_EQ(0, run_trace(self->dev.fd, 4, 1, &ex));
	ASSERT_EQ(0u, self->r.hdr->flags);
	ASSERT_RING_OK(&self->r, selftest_ring_consume(&self->r, NULL));
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE], self->r.delivered);
}

/*
 * Several subscribers of one queue (2 to 4, each in its own ring, read by
 * its own thread while the program runs), one of them never read: every
 * ring accounts exactly for what was produced while it was subscribed
 * (delivered + lost = produced, with its own seq from 0), the rings that
 * are read lose nothing, and the stalled one loses exactly what did not
 * fit in it. With four, the last joins after the first execution.
 */
FIXTURE(fanout) {
	struct nprof_dev dev;
	struct selftest_ring r[4];
	pthread_t th[4];
	bool started[4];
};

FIXTURE_VARIANT(fanout) {
	int subs;
};

FIXTURE_VARIANT_ADD(fanout, two) { .subs = 2 };
FIXTURE_VARIANT_ADD(fanout, three) { .subs = 3 };
FIXTURE_VARIANT_ADD(fanout, four_one_late) { .subs = 4 };

static volatile int fanout_stop;

FIXTURE_SETUP(fanout)
{
	for (int k = 0; k < 4; k++)
		self->r[k].fd = -1;
	SETUP_SIM_DEV(&self->dev, DEV_ID, NULL);
	REQUIRE_SIM_EXEC(&self->dev);
}

FIXTURE_TEARDOWN(fanout)
{
	fanout_stop = 1;
	for (int k = 0; k < 4; k++) {
		if (self->started[k])
			pthread_join(self->th[k], NULL);
		selftest_ring_close(&self->r[k]);
	}
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

/* A reader keeping up: consume whatever is there until told to stop. */
static void *fanout_reader(void *arg)
{
	struct selftest_ring *r = arg;

	while (!fanout_stop) {
		if (selftest_ring_consume(r, NULL) < 0)
			return (void *)1;
		usleep(200);
	}
	return NULL;
}

TEST_F_TIMEOUT(fanout, stalled_subscriber_loses_only_its_own, 120)
{
	const __u64 esz = self->dev.info.entry_size;
	const __u64 small = self->dev.info.min_ring_size, cap = small / esz;
	const int subs = variant->subs, stalled = subs - 1;
	const bool late = subs == 4;
	__u64 big = small, produced[3], total = 0, since_late = 0;
	struct drm_neuronprof_sim_exec ex;
	struct drm_neuronprof_nq_holders h;
	int k, run, ret;
	void *res;

	/* The rings that are read hold all three executions: no loss, ever. */
	while (big / esz < 3 * 3 * cap && big < self->dev.info.max_ring_size)
		big *= 2;
	ASSERT_LE(3 * 3 * cap, big / esz) TH_LOG("max_ring_size too small for the test");
	fanout_stop = 0;
	for (k = 0; k < subs; k++) {
		if (late && k == 0)
			continue;	/* subscribes after the first execution */
		ret = selftest_ring_open(self->dev.fd, &trace0, k == stalled ? small : big, 0,
					 &self->r[k]);
		ASSERT_EQ(0, ret) TH_LOG("subscriber %d: %s", k, strerror(-ret));
	}
	for (k = 0; k < stalled; k++) {
		if (self->r[k].fd < 0)
			continue;
		ASSERT_EQ(0, pthread_create(&self->th[k], NULL, fanout_reader, &self->r[k]));
		self->started[k] = true;
	}
	ASSERT_EQ(0, nprof_holders(self->dev.fd, &trace0, &h));
	EXPECT_EQ((__u32)(late ? subs - 1 : subs), h.count);

	for (run = 0; run < 3; run++) {
		if (late && run == 1) {
			ret = selftest_ring_open(self->dev.fd, &trace0, big, 0, &self->r[0]);
			ASSERT_EQ(0, ret) TH_LOG("late subscriber: %s", strerror(-ret));
			ASSERT_EQ(0, pthread_create(&self->th[0], NULL, fanout_reader,
						    &self->r[0]));
			self->started[0] = true;
		}
		ASSERT_EQ(0, run_trace(self->dev.fd, 3 * (__u32)cap, 1, &ex));
		ASSERT_EQ(0u, ex.status);
		produced[run] = ex.produced[NEURONPROF_QT_TRACE];
		ASSERT_LT(cap, produced[run]);
		total += produced[run];
		if (run)
			since_late += produced[run];
	}
	fanout_stop = 1;
	for (k = 0; k < 4; k++) {
		if (!self->started[k])
			continue;
		pthread_join(self->th[k], &res);
		self->started[k] = false;
		EXPECT_TRUE(res == NULL) TH_LOG("reader %d: %s", k, self->r[k].err);
	}

	for (k = 0; k < subs; k++) {
		struct selftest_ring *r = &self->r[k];
		__u64 want = late && k == 0 ? since_late : total;

		ASSERT_RING_OK(r, selftest_ring_settle(r, NULL, false));
		EXPECT_EQ(want, r->delivered + r->hdr->lost)
			TH_LOG("subscriber %d: produced %llu, delivered %llu, lost %llu", k,
			       (unsigned long long)want, (unsigned long long)r->delivered,
			       (unsigned long long)r->hdr->lost);
		/* Its own seq: from 0, one per notification, lost ones included. */
		EXPECT_EQ(want, r->next_seq + (k == stalled ? r->hdr->lost : 0));
		if (k == stalled) {
			EXPECT_EQ(cap, r->delivered);
			EXPECT_EQ(total - cap, (__u64)r->hdr->lost);
			EXPECT_TRUE(r->hdr->flags & NEURONPROF_RING_OVERFLOWED);
		} else {
			EXPECT_EQ(0ull, (__u64)r->hdr->lost);
			EXPECT_EQ(0ull, r->gaps);
			EXPECT_FALSE(r->hdr->flags & NEURONPROF_RING_OVERFLOWED);
		}
	}
}

TEST_HARNESS_MAIN
