// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection through the simulator's debugfs knobs
 * (Documentation/simulator.rst): a subscribe that fails with a chosen errno,
 * flushes that fail or stall, execution errors and forced overflow. Each
 * test uses a device of its own, so no armed knob outlives it.
 */
#include "nprof_test.h"

#define PROG 6
#define DEV_ID NPROF_TEST_ID(PROG, 0)
#define MODEL_ID 0xfa17u

static const struct selftest_queue trace0 = {
	NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0
};

FIXTURE(fault) {
	struct nprof_dev dev;
	struct selftest_ring r;
};

FIXTURE_SETUP(fault)
{
	char path[128];
	struct stat st;

	self->r.fd = -1;
	SETUP_SIM_DEV(&self->dev, DEV_ID, NULL);
	snprintf(path, sizeof(path), NPROF_SIM_DEBUGFS_DIR "/%u", DEV_ID);
	if (stat(path, &st))
		SETUP_SKIP("no %s (debugfs not mounted?)", path);
}

FIXTURE_TEARDOWN(fault)
{
	selftest_ring_close(&self->r);
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

#define KNOB(name, val) do {						\
	int __ret = nprof_sim_knob_write(DEV_ID, (name), (val));	\
	ASSERT_EQ(0, __ret) TH_LOG("write %s to %s: %s", (val), (name),	\
				   strerror(-__ret));			\
} while (0)

static void open_ring(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fault) *self)
{
	int ret = selftest_ring_open(self->dev.fd, &trace0,
				     self->dev.info.min_ring_size, 0, &self->r);

	ASSERT_EQ(0, ret) TH_LOG("subscribe+mmap: %s", strerror(-ret));
}

static int exec_trace(FIXTURE_DATA(fault) *self, __u32 insns,
		      struct drm_neuronprof_sim_exec *ex)
{
	nprof_exec_init(ex, 0, MODEL_ID, 1, 0, 0, 0);
	ex->instructions[0] = insns;
	return nprof_exec(self->dev.fd, ex);
}

/* The chosen errno comes back from NQ_SUBSCRIBE, once. */
TEST_F(fault, fail_next_subscribe_enospc)
{
	struct drm_neuronprof_nq_subscribe sub;
	char val[32];
	int fd;

	KNOB("fail_next_subscribe", "28");	/* ENOSPC */
	fd = nprof_subscribe_q(self->dev.fd, &trace0,
			       self->dev.info.min_ring_size, 0, &sub);
	ASSERT_EQ(-ENOSPC, fd) TH_LOG("subscribe: %s", fd < 0 ? strerror(-fd) : "ok");
	ASSERT_EQ(0, nprof_sim_knob_read(DEV_ID, "fail_next_subscribe", val,
					 sizeof(val)));
	ASSERT_EQ(0, atoi(val)) TH_LOG("the knob is one-shot, it reads %s", val);
	/* The failed subscription did not keep the queue. */
	fd = nprof_subscribe_q(self->dev.fd, &trace0,
			       self->dev.info.min_ring_size, 0, &sub);
	ASSERT_LE(0, fd) TH_LOG("subscribe after the failure: %s", strerror(-fd));
	close(fd);
}

TEST_F(fault, fail_next_subscribe_eio)
{
	struct drm_neuronprof_nq_subscribe sub;
	struct selftest_queue q = trace0;
	int fd;

	KNOB("fail_next_subscribe", "5");	/* EIO */
	/* Any queue: the knob fails the next subscription of the device. */
	q.type = NEURONPROF_QT_INFER_STATUS;
	fd = nprof_subscribe_q(self->dev.fd, &q, self->dev.info.min_ring_size,
			       0, &sub);
	ASSERT_EQ(-EIO, fd);
}

/* A failing provider leaves no descriptor behind. */
TEST_F(fault, fail_next_subscribe_no_fd_leak)
{
	struct drm_neuronprof_nq_subscribe sub;
	int before, after, fd;

	before = nprof_lowest_free_fd();
	ASSERT_LE(0, before);
	KNOB("fail_next_subscribe", "12");	/* ENOMEM */
	fd = nprof_subscribe_q(self->dev.fd, &trace0,
			       self->dev.info.min_ring_size, 0, &sub);
	ASSERT_EQ(-ENOMEM, fd);
	after = nprof_lowest_free_fd();
	ASSERT_LE(0, after);
	ASSERT_EQ(before, after) TH_LOG("a descriptor was left open");
}

/* Invalid arguments are rejected before the provider is asked. */
TEST_F(fault, fail_next_subscribe_not_used_by_invalid_call)
{
	struct drm_neuronprof_nq_subscribe sub;
	int fd;

	KNOB("fail_next_subscribe", "28");
	fd = nprof_subscribe_q(self->dev.fd, &trace0, 3 * 4096, 0, &sub);
	ASSERT_EQ(-EINVAL, fd);
	fd = nprof_subscribe_q(self->dev.fd, &trace0,
			       self->dev.info.min_ring_size, 0, &sub);
	ASSERT_EQ(-ENOSPC, fd);
}

TEST_F(fault, knob_out_of_range_einval)
{
	ASSERT_NEG_ERRNO(EINVAL, nprof_sim_knob_write(DEV_ID, "force_overflow", "2"));
}

TEST_F(fault, flush_fail_fails_flush_only)
{
	struct drm_neuronprof_sim_exec ex;
	struct neuronprof_nq_drain d;

	open_ring(_metadata, self);
	ASSERT_EQ(0, exec_trace(self, 4, &ex));
	KNOB("flush_fail", "5");	/* EIO */
	ASSERT_NEG_ERRNO(EIO, nprof_drain(self->r.fd, NEURONPROF_DRAIN_FLUSH, 0, &d));
	/* Without FLUSH the ring still drains and reports. */
	ASSERT_EQ(0, nprof_drain(self->r.fd, 0, 0, &d));
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE] * self->dev.info.entry_size,
		  d.producer_pos);
	/* A failed flush releases nothing either. */
	ASSERT_NEG_ERRNO(EIO, nprof_drain(self->r.fd,
					  NEURONPROF_DRAIN_FLUSH | NEURONPROF_DRAIN_RELEASE,
					  d.producer_pos, &d));
	ASSERT_EQ(0ull, selftest_ring_consumer_pos(&self->r));
	KNOB("flush_fail", "0");
	ASSERT_EQ(0, nprof_drain(self->r.fd, NEURONPROF_DRAIN_FLUSH, 0, &d));
	ASSERT_RING_OK(&self->r, selftest_ring_settle(&self->r, NULL, true));
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE], self->r.delivered);
}

TEST_F(fault, flush_stall_delays_flush)
{
	struct neuronprof_nq_drain d;
	__u64 t0, t1;

	open_ring(_metadata, self);
	KNOB("flush_stall_ms", "300");
	t0 = nprof_now_ns();
	ASSERT_EQ(0, nprof_drain(self->r.fd, NEURONPROF_DRAIN_FLUSH, 0, &d));
	t1 = nprof_now_ns();
	/*
	 * The stall is a jiffies timeout measured here in CLOCK_MONOTONIC:
	 * allow for a few jiffies of rounding and of a VM's clock drift.
	 */
	ASSERT_LE(250ull * 1000000, t1 - t0)
		TH_LOG("the flush returned after %llu ns",
		       (unsigned long long)(t1 - t0));
	/* A drain without FLUSH does not stall. */
	ASSERT_EQ(0, nprof_drain(self->r.fd, 0, 0, &d));
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal ends a stalled flush: NQ_DRAIN fails with EINTR. */
TEST_F(fault, flush_stall_interrupted_by_signal)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value = { .tv_usec = 200 * 1000 } };
	struct neuronprof_nq_drain d;
	__u64 t0, t1;
	int ret;

	open_ring(_metadata, self);
	KNOB("flush_stall_ms", "10000");
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	t0 = nprof_now_ns();
	ret = nprof_drain(self->r.fd, NEURONPROF_DRAIN_FLUSH, 0, &d);
	t1 = nprof_now_ns();
	ASSERT_EQ(-EINTR, ret) TH_LOG("NQ_DRAIN: %s", ret ? strerror(-ret) : "ok");
	ASSERT_GT(5000ull * 1000000, t1 - t0) TH_LOG("the signal did not end the stall");
	KNOB("flush_stall_ms", "0");
}

TEST_F(fault, exec_error_once)
{
	struct drm_neuronprof_sim_exec ex;
	struct selftest_ring err;
	struct selftest_queue q = trace0;
	struct neuronprof_notification n;
	int ret;

	q.type = NEURONPROF_QT_ERROR;
	ret = selftest_ring_open(self->dev.fd, &q, self->dev.info.min_ring_size, 0, &err);
	ASSERT_EQ(0, ret);
	KNOB("exec_error", "1");
	ASSERT_EQ(0, exec_trace(self, 4, &ex));
	EXPECT_NE(0u, ex.status);
	EXPECT_LT(0ull, ex.produced[NEURONPROF_QT_ERROR]);
	ASSERT_LT(0ull, selftest_ring_producer(&err));
	memcpy(&n, err.data, sizeof(n));
	EXPECT_EQ(ex.status, n.code);
	EXPECT_EQ(MODEL_ID, n.model_id);
	ASSERT_RING_OK(&err, selftest_ring_consume(&err, NULL));
	/* One-shot: the next program is clean. */
	ASSERT_EQ(0, exec_trace(self, 4, &ex));
	EXPECT_EQ(0u, ex.status);
	EXPECT_EQ(0ull, ex.produced[NEURONPROF_QT_ERROR]);
	EXPECT_EQ(err.delivered * err.entry_size, selftest_ring_producer(&err));
	selftest_ring_close(&err);
}

/*
 * force_overflow: everything produced is lost and counted, nothing is
 * written; once off, the sequence numbers show the gap.
 */
TEST_F(fault, force_overflow_counts_all_lost)
{
	struct drm_neuronprof_sim_exec ex1, ex2;
	struct neuronprof_nq_drain d;

	open_ring(_metadata, self);
	KNOB("force_overflow", "1");
	ASSERT_EQ(0, exec_trace(self, 10, &ex1));
	KNOB("force_overflow", "0");
	ASSERT_LT(0ull, ex1.produced[NEURONPROF_QT_TRACE]);
	EXPECT_EQ(0ull, selftest_ring_producer(&self->r));
	EXPECT_EQ(ex1.produced[NEURONPROF_QT_TRACE], self->r.hdr->lost);
	EXPECT_TRUE(self->r.hdr->flags & NEURONPROF_RING_OVERFLOWED);
	ASSERT_EQ(0, nprof_drain(self->r.fd, 0, 0, &d));
	EXPECT_EQ(ex1.produced[NEURONPROF_QT_TRACE], d.lost);

	ASSERT_EQ(0, exec_trace(self, 3, &ex2));
	ASSERT_RING_OK(&self->r, selftest_ring_settle(&self->r, NULL, true));
	EXPECT_EQ(ex2.produced[NEURONPROF_QT_TRACE], self->r.delivered);
	EXPECT_EQ(ex1.produced[NEURONPROF_QT_TRACE], self->r.gaps);
	EXPECT_EQ(ex1.produced[NEURONPROF_QT_TRACE], self->r.hdr->lost);
}

TEST_HARNESS_MAIN
