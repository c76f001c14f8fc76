// SPDX-License-Identifier: GPL-2.0
/*
 * DRM_IOCTL_NEURONPROF_SIM_EXEC: one test per rejected argument, deadlines,
 * programs that raise an error or throttle, what the entries carry, and
 * executions on two cores at once.
 */
#include "nprof_test.h"

#define PROG 5
#define DEV_ID NPROF_TEST_ID(PROG, 0)
#define MODEL_ID 0x50e7u

FIXTURE(exec) {
	struct nprof_dev dev;
	struct drm_neuronprof_sim_exec ex;	/* a valid program */
	struct selftest_ring rings[8];
	int n;
};

FIXTURE_SETUP(exec)
{
	int k;

	for (k = 0; k < 8; k++)
		self->rings[k].fd = -1;
	SETUP_SIM_DEV(&self->dev, DEV_ID, NULL);
	REQUIRE_SIM_EXEC(&self->dev);
	nprof_exec_init(&self->ex, 0, MODEL_ID, 2, 4, 2,
			self->dev.info.engines_per_core);
}

FIXTURE_TEARDOWN(exec)
{
	int k;

	for (k = 0; k < self->n; k++)
		selftest_ring_close(&self->rings[k]);
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

static int do_exec(FIXTURE_DATA(exec) *self)
{
	return ioctl(self->dev.fd, DRM_IOCTL_NEURONPROF_SIM_EXEC, &self->ex);
}

/*
 * Subscribe and map @q into the next ring of the fixture, with a ring of
 * about @want bytes.
 */
static struct selftest_ring *add_ring_sized(struct __test_metadata *_metadata,
					    FIXTURE_DATA(exec) *self, __u32 kind,
					    __u32 index, __u32 type, __u32 engine,
					    __u64 want)
{
	struct selftest_queue q = { kind, index, type, engine };
	struct selftest_ring *r = &self->rings[self->n];
	__u64 size = self->dev.info.min_ring_size;
	int ret;

	ASSERT_GT(8, self->n);
	while (size < want && size < self->dev.info.max_ring_size)
		size *= 2;
	ret = selftest_ring_open(self->dev.fd, &q, size, 0, r);
	ASSERT_EQ(0, ret) TH_LOG("subscribe %s: %s", nprof_qt_name(type),
				 strerror(-ret));
	self->n++;
	return r;
}

#define add_ring(_metadata, self, kind, index, type, engine) \
	add_ring_sized(_metadata, self, kind, index, type, engine, 65536)

TEST_F(exec, valid_program_runs)
{
	ASSERT_EQ(0, do_exec(self)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0u, self->ex.status);
}

TEST_F(exec, core_out_of_range)
{
	self->ex.core = self->dev.info.num_cores;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

TEST_F(exec, core_huge)
{
	self->ex.core = 0xffffffffu;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

TEST_F(exec, unknown_flag)
{
	self->ex.flags = 1u << 2;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

TEST_F(exec, high_flag)
{
	self->ex.flags = 1u << 31;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

TEST_F(exec, iterations_zero)
{
	self->ex.iterations = 0;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

TEST_F(exec, iterations_above_max)
{
	self->ex.iterations = NEURONPROF_SIM_MAX_ITERATIONS + 1;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

TEST_F(exec, instructions_above_max)
{
	self->ex.instructions[0] = NEURONPROF_SIM_MAX_INSTRUCTIONS + 1;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

/* Entries at and beyond engines_per_core must be 0. */
TEST_F(exec, instructions_beyond_engines)
{
	if (self->dev.info.engines_per_core >= NEURONPROF_MAX_ENGINES)
		SKIP(return, "the device has every engine");
	self->ex.instructions[self->dev.info.engines_per_core] = 1;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

TEST_F(exec, instructions_last_slot)
{
	if (self->dev.info.engines_per_core >= NEURONPROF_MAX_ENGINES)
		SKIP(return, "the device has every engine");
	self->ex.instructions[NEURONPROF_MAX_ENGINES - 1] = 1;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

TEST_F(exec, dma_above_max)
{
	self->ex.dma_transfers = NEURONPROF_SIM_MAX_DMA + 1;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

TEST_F(exec, reserved0_nonzero)
{
	self->ex.reserved[0] = 1;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

TEST_F(exec, reserved1_nonzero)
{
	self->ex.reserved[1] = 1ull << 63;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

/* Each limit alone is fine; together they exceed the notifications bound. */
TEST_F(exec, too_many_notifications)
{
	self->ex.iterations = NEURONPROF_SIM_MAX_ITERATIONS;
	self->ex.instructions[0] = NEURONPROF_SIM_MAX_INSTRUCTIONS;
	ASSERT_ERRNO(EINVAL, do_exec(self));
}

TEST_F(exec, deadline_passed_etimedout)
{
	struct selftest_ring *r = add_ring(_metadata, self, NEURONPROF_TARGET_CORE,
					   0, NEURONPROF_QT_INFER_STATUS, 0);

	self->ex.timeout_ns = nprof_now_ns() - 1;
	ASSERT_ERRNO(ETIMEDOUT, do_exec(self));
	/* Documentation/simulator.rst: a deadline already passed produces nothing. */
	EXPECT_EQ(0ull, self->ex.produced[NEURONPROF_QT_INFER_STATUS]);
	EXPECT_EQ(0ull, selftest_ring_producer(r));
}

TEST_F(exec, deadline_one_ns_etimedout)
{
	self->ex.timeout_ns = 1;
	ASSERT_ERRNO(ETIMEDOUT, do_exec(self));
}

TEST_F(exec, deadline_future_runs)
{
	self->ex.timeout_ns = nprof_now_ns() + 120ull * 1000000000ull;
	ASSERT_EQ(0, do_exec(self)) TH_LOG("%s", strerror(errno));
}

/*
 * A deadline that passes in the middle of a long program stops it between
 * iterations, and what it produced until then is accounted for.
 */
TEST_F_TIMEOUT(exec, deadline_mid_program_accounts_partial, 120)
{
	/* Room for the status entries of thousands of iterations. */
	struct selftest_ring *st = add_ring_sized(_metadata, self,
						  NEURONPROF_TARGET_CORE, 0,
						  NEURONPROF_QT_INFER_STATUS, 0,
						  1ull << 20);
	struct selftest_ring *tr = add_ring(_metadata, self, NEURONPROF_TARGET_CORE,
					    0, NEURONPROF_QT_TRACE, 0);

	nprof_exec_init(&self->ex, 0, MODEL_ID, NEURONPROF_SIM_MAX_ITERATIONS,
			0, 0, 0);
	self->ex.instructions[0] = 512;
	self->ex.timeout_ns = nprof_now_ns() + 20ull * 1000000;
	ASSERT_ERRNO(ETIMEDOUT, do_exec(self));
	ASSERT_RING_OK(st, selftest_ring_settle(st, NULL, true));
	ASSERT_RING_OK(tr, selftest_ring_settle(tr, NULL, true));
	EXPECT_EQ(self->ex.produced[NEURONPROF_QT_INFER_STATUS],
		  st->delivered + st->hdr->lost);
	EXPECT_EQ(self->ex.produced[NEURONPROF_QT_TRACE],
		  tr->delivered + tr->hdr->lost);
	/* Stopped between iterations: every start has its stop. */
	EXPECT_EQ(0ull, st->hdr->lost);
	EXPECT_EQ(st->code_hist[NEURONPROF_INFER_START],
		  st->code_hist[NEURONPROF_INFER_STOP]);
	EXPECT_GT((__u64)NEURONPROF_SIM_MAX_ITERATIONS,
		  st->code_hist[NEURONPROF_INFER_START])
		TH_LOG("the whole program ran despite the deadline");
}

/* status and produced are outputs: whatever was there is overwritten. */
TEST_F(exec, outputs_overwritten)
{
	int t;

	self->ex.status = 0xdeadu;
	memset(self->ex.produced, 0xff, sizeof(self->ex.produced));
	ASSERT_EQ(0, do_exec(self)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0u, self->ex.status);
	for (t = 0; t < 16; t++) {
		EXPECT_EQ(0ull, self->ex.produced[t])
			TH_LOG("%s: %llu produced with nothing subscribed",
			       nprof_qt_name(t),
			       (unsigned long long)self->ex.produced[t]);
	}
}

/*
 * An execution error: a non-zero status, and ERROR entries (core and
 * TopSP) whose code is that status.
 */
TEST_F(exec, error_flag_status_and_entries)
{
	const struct drm_neuronprof_device_info *i = &self->dev.info;
	struct selftest_ring *err, *terr = NULL, *st;
	struct nprof_expect exp = { .check_model = true, .model_id = MODEL_ID };
	struct neuronprof_notification n;

	err = add_ring(_metadata, self, NEURONPROF_TARGET_CORE, 0,
		       NEURONPROF_QT_ERROR, 0);
	st = add_ring(_metadata, self, NEURONPROF_TARGET_CORE, 0,
		      NEURONPROF_QT_INFER_STATUS, 0);
	if (i->num_topsps && (i->topsp_queue_types & (1u << NEURONPROF_QT_TOPSP_ERROR)))
		terr = add_ring(_metadata, self, NEURONPROF_TARGET_TOPSP, 0,
				NEURONPROF_QT_TOPSP_ERROR, 0);
	self->ex.flags = NEURONPROF_SIM_EXEC_ERROR;
	exp.iterations = self->ex.iterations;
	ASSERT_EQ(0, do_exec(self)) TH_LOG("%s", strerror(errno));
	ASSERT_NE(0u, self->ex.status);

	ASSERT_LT(0ull, self->ex.produced[NEURONPROF_QT_ERROR]);
	ASSERT_LT(0ull, selftest_ring_producer(err));
	memcpy(&n, err->data, sizeof(n));
	EXPECT_EQ(self->ex.status, n.code);
	ASSERT_RING_OK(err, selftest_ring_settle(err, &exp, true));
	EXPECT_EQ(self->ex.produced[NEURONPROF_QT_ERROR], err->delivered);
	if (terr) {
		ASSERT_LT(0ull, self->ex.produced[NEURONPROF_QT_TOPSP_ERROR]);
		memcpy(&n, terr->data, sizeof(n));
		EXPECT_EQ(self->ex.status, n.code);
		ASSERT_RING_OK(terr, selftest_ring_settle(terr, &exp, true));
		EXPECT_EQ(self->ex.produced[NEURONPROF_QT_TOPSP_ERROR], terr->delivered);
	}
	ASSERT_RING_OK(st, selftest_ring_settle(st, &exp, true));
	EXPECT_EQ(st->code_hist[NEURONPROF_INFER_START],
		  st->code_hist[NEURONPROF_INFER_STOP]);
}

TEST_F(exec, no_error_no_error_entries)
{
	struct selftest_ring *err = add_ring(_metadata, self, NEURONPROF_TARGET_CORE,
					     0, NEURONPROF_QT_ERROR, 0);

	ASSERT_EQ(0, do_exec(self));
	EXPECT_EQ(0u, self->ex.status);
	EXPECT_EQ(0ull, self->ex.produced[NEURONPROF_QT_ERROR]);
	EXPECT_EQ(0ull, selftest_ring_producer(err));
}

TEST_F(exec, throttle_flag_throttle_entries)
{
	struct selftest_ring *th = add_ring(_metadata, self, NEURONPROF_TARGET_CORE,
					    0, NEURONPROF_QT_THROTTLE, 0);

	ASSERT_EQ(0, do_exec(self));
	EXPECT_EQ(0ull, self->ex.produced[NEURONPROF_QT_THROTTLE]);
	EXPECT_EQ(0ull, selftest_ring_producer(th));
	self->ex.flags = NEURONPROF_SIM_EXEC_THROTTLE;
	ASSERT_EQ(0, do_exec(self));
	EXPECT_LT(0ull, self->ex.produced[NEURONPROF_QT_THROTTLE]);
	ASSERT_RING_OK(th, selftest_ring_settle(th, NULL, true));
	EXPECT_EQ(self->ex.produced[NEURONPROF_QT_THROTTLE], th->delivered);
}

/*
 * What the entries carry: the program's model id, iterations below the
 * program's count, timestamps in the device clock between the ioctl's start
 * and end and increasing per queue, per-engine queues getting their engine.
 */
TEST_F(exec, entries_carry_program)
{
	const struct drm_neuronprof_device_info *i = &self->dev.info;
	struct nprof_expect exp = { .check_model = true, .model_id = MODEL_ID + 7 };
	struct selftest_ring *tr[2];
	int k;

	if (i->engines_per_core < 2)
		SKIP(return, "needs two engines");
	tr[0] = add_ring(_metadata, self, NEURONPROF_TARGET_CORE, 0,
			 NEURONPROF_QT_TRACE, 0);
	tr[1] = add_ring(_metadata, self, NEURONPROF_TARGET_CORE, 0,
			 NEURONPROF_QT_TRACE, 1);
	nprof_exec_init(&self->ex, 0, MODEL_ID + 7, 5, 0, 0, 0);
	self->ex.instructions[0] = 3;
	self->ex.instructions[1] = 7;
	exp.iterations = 5;
	exp.ts_increasing = true;
	exp.ts_min = nprof_now_ns();
	ASSERT_EQ(0, do_exec(self));
	exp.ts_max = nprof_now_ns();
	if (i->clock_id != CLOCK_MONOTONIC)
		exp.ts_max = 0;
	for (k = 0; k < 2; k++) {
		ASSERT_RING_OK(tr[k], selftest_ring_settle(tr[k], &exp, true));
		EXPECT_EQ(0ull, tr[k]->gaps);
		EXPECT_EQ(0ull, tr[k]->hdr->lost);
	}
	/* Engine 1 had more instructions than engine 0, in every iteration. */
	EXPECT_LT(tr[0]->delivered, tr[1]->delivered);
	EXPECT_EQ(self->ex.produced[NEURONPROF_QT_TRACE],
		  tr[0]->delivered + tr[1]->delivered);
}

/* Queues of an engine without instructions stay empty. */
TEST_F(exec, idle_engine_silent)
{
	struct selftest_ring *tr, *ev;

	tr = add_ring(_metadata, self, NEURONPROF_TARGET_CORE, 0,
		      NEURONPROF_QT_TRACE, 1);
	ev = add_ring(_metadata, self, NEURONPROF_TARGET_CORE, 0,
		      NEURONPROF_QT_EVENT, 1);
	nprof_exec_init(&self->ex, 0, MODEL_ID, 2, 0, 0, 0);
	self->ex.instructions[0] = 10;
	ASSERT_EQ(0, do_exec(self));
	EXPECT_EQ(0ull, selftest_ring_producer(tr));
	EXPECT_EQ(0ull, selftest_ring_producer(ev));
	EXPECT_EQ(0ull, self->ex.produced[NEURONPROF_QT_TRACE]);
}

struct exec_thread {
	int fd;
	struct drm_neuronprof_sim_exec ex;
	int ret;
};

static void *exec_fn(void *arg)
{
	struct exec_thread *t = arg;

	t->ret = nprof_exec(t->fd, &t->ex);
	return NULL;
}

/* Two cores run at once; each core's queues get exactly its program. */
TEST_F_TIMEOUT(exec, parallel_cores, 120)
{
	const struct drm_neuronprof_device_info *i = &self->dev.info;
	struct exec_thread t[2];
	struct selftest_ring *r[2];
	pthread_t th[2];
	int k;

	if (i->num_cores < 2)
		SKIP(return, "needs two cores");
	for (k = 0; k < 2; k++) {
		r[k] = add_ring(_metadata, self, NEURONPROF_TARGET_CORE, k,
				NEURONPROF_QT_TRACE, 0);
		t[k].fd = self->dev.fd;
		nprof_exec_init(&t[k].ex, k, MODEL_ID + k, 20, 0, 0, 0);
		t[k].ex.instructions[0] = 40 + 10 * k;
	}
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, pthread_create(&th[k], NULL, exec_fn, &t[k]));
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, pthread_join(th[k], NULL));
	for (k = 0; k < 2; k++) {
		struct nprof_expect exp = {
			.check_model = true, .model_id = MODEL_ID + k,
			.iterations = 20,
		};

		ASSERT_EQ(0, t[k].ret) TH_LOG("core %d: %s", k, strerror(-t[k].ret));
		ASSERT_RING_OK(r[k], selftest_ring_settle(r[k], &exp, true));
		EXPECT_EQ(t[k].ex.produced[NEURONPROF_QT_TRACE],
			  r[k]->delivered + r[k]->hdr->lost);
	}
	EXPECT_NE(t[0].ex.produced[NEURONPROF_QT_TRACE],
		  t[1].ex.produced[NEURONPROF_QT_TRACE]);
}

/* Executions on one core are serialised: the same queue sees whole programs. */
TEST_F_TIMEOUT(exec, same_core_serialised, 120)
{
	struct selftest_ring *st = add_ring(_metadata, self, NEURONPROF_TARGET_CORE,
					    0, NEURONPROF_QT_INFER_STATUS, 0);
	struct exec_thread t[2];
	pthread_t th[2];
	__u64 prod, cons, last_model = ~0ull, switches = 0;
	int k;

	for (k = 0; k < 2; k++) {
		t[k].fd = self->dev.fd;
		nprof_exec_init(&t[k].ex, 0, MODEL_ID + k, 30, 0, 0, 0);
		t[k].ex.instructions[0] = 20;
	}
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, pthread_create(&th[k], NULL, exec_fn, &t[k]));
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, pthread_join(th[k], NULL));
	ASSERT_EQ(0, t[0].ret);
	ASSERT_EQ(0, t[1].ret);
	ASSERT_EQ(0ull, st->hdr->lost);
	prod = selftest_ring_producer(st);
	for (cons = 0; cons < prod; cons += st->entry_size) {
		const struct neuronprof_notification *n =
			(const void *)(st->data + (cons & (st->sub.data_size - 1)));

		if (n->model_id != last_model) {
			switches++;
			last_model = n->model_id;
		}
	}
	EXPECT_EQ(2ull, switches) TH_LOG("the two programs interleaved");
}

/*
 * Subscriptions come and go while a program produces into their queue: each
 * new subscriber gets the queue (its predecessor's close released it) and
 * a consistent ring; the program is unaffected.
 */
TEST_F_TIMEOUT(exec, subscribe_churn_during_exec, 120)
{
	struct selftest_queue q = { NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0 };
	struct exec_thread t = { .fd = self->dev.fd };
	__u64 seen = 0;
	pthread_t th;
	int k, ret;

	nprof_exec_init(&t.ex, 0, MODEL_ID, 400, 0, 0, 0);
	t.ex.instructions[0] = 200;
	ASSERT_EQ(0, pthread_create(&th, NULL, exec_fn, &t));
	for (k = 0; k < 300; k++) {
		struct selftest_ring r;

		ret = selftest_ring_open(self->dev.fd, &q, self->dev.info.min_ring_size,
					 0, &r);
		ASSERT_EQ(0, ret) TH_LOG("round %d: %s", k, strerror(-ret));
		ASSERT_RING_OK(&r, selftest_ring_consume(&r, NULL));
		seen += r.delivered + r.hdr->lost;
		selftest_ring_close(&r);
	}
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, t.ret) TH_LOG("SIM_EXEC: %s", strerror(-t.ret));
	/* What the subscriptions accounted for was all produced. */
	ASSERT_GE(t.ex.produced[NEURONPROF_QT_TRACE], seen);
}

/* Every core runs a program at once, each into all of its own queues. */
TEST_F_TIMEOUT(exec, all_cores_at_once, 180)
{
	const struct drm_neuronprof_device_info *i = &self->dev.info;
	struct exec_thread t[32];
	struct selftest_ring (*r)[64];
	int nq[32];
	pthread_t th[32];
	__u32 c, ncores = i->num_cores < 32 ? i->num_cores : 32;
	int k, ty;

	r = calloc(ncores, sizeof(*r));
	ASSERT_TRUE(r != NULL);
	for (c = 0; c < ncores; c++) {
		struct selftest_queue q[64];

		nq[c] = nprof_core_queues(i, c, q, 64);
		ASSERT_LT(0, nq[c]);
		for (k = 0; k < nq[c]; k++) {
			int ret = selftest_ring_open(self->dev.fd, &q[k], 16384, 0, &r[c][k]);

			ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
		}
		t[c].fd = self->dev.fd;
		nprof_exec_init(&t[c].ex, c, MODEL_ID + c, 4, 10 + c, 3,
				i->engines_per_core);
		t[c].ex.flags = NEURONPROF_SIM_EXEC_THROTTLE;
	}
	for (c = 0; c < ncores; c++)
		ASSERT_EQ(0, pthread_create(&th[c], NULL, exec_fn, &t[c]));
	for (c = 0; c < ncores; c++)
		ASSERT_EQ(0, pthread_join(th[c], NULL));
	for (c = 0; c < ncores; c++) {
		struct nprof_expect exp = {
			.check_model = true, .model_id = MODEL_ID + c,
			.iterations = 4, .ts_increasing = true,
		};
		__u64 got[16] = { 0 };

		ASSERT_EQ(0, t[c].ret) TH_LOG("core %u: %s", c, strerror(-t[c].ret));
		for (k = 0; k < nq[c]; k++) {
			ASSERT_RING_OK(&r[c][k], selftest_ring_settle(&r[c][k], &exp, true));
			got[r[c][k].q.type] += r[c][k].delivered + r[c][k].hdr->lost;
			selftest_ring_close(&r[c][k]);
		}
		for (ty = 0; ty < 16; ty++) {
			EXPECT_EQ(t[c].ex.produced[ty], got[ty])
				TH_LOG("core %u %s", c, nprof_qt_name(ty));
		}
	}
	free(r);
}

TEST_HARNESS_MAIN
