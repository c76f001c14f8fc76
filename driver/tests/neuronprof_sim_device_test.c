// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_sim_device: real simulated devices registered with
 * the core (creation and removal, queue layout, executions, fault injection,
 * removal during an execution).
 */

#include "neuronprof_test_util.h"

static bool sim_test_active(struct nprof_sim_device *sdev, const struct nprof_queue_id *q)
{
	int idx = nprof_sim_queue_index(sdev, q);

	return idx >= 0 && test_bit(idx, sdev->active);
}

/*
 * Check the unread entries of a ring: sequence numbers contiguous from
 * @first_seq, the queue's type and engine, the model id, timestamps rising.
 * Returns the number of entries.
 */
static u64 sim_test_check_ring(struct kunit *test, struct nprof_sub *sub,
			       u64 first_seq, u32 model_id)
{
	const struct nprof_kring *ring = &sub->ring;
	u64 pos, n = 0, last_ts = 0;

	KUNIT_EXPECT_EQ(test, ring->prod % NPROF_ENTRY_SIZE, 0ULL);
	for (pos = ring->cons; pos < ring->prod; pos += NPROF_ENTRY_SIZE, n++) {
		const struct neuronprof_notification *e =
			(const void *)(ring->data + (pos & (ring->size - 1)));

		KUNIT_EXPECT_EQ(test, e->seq, first_seq + n);
		KUNIT_EXPECT_EQ(test, (u32)e->queue_type, sub->q.type);
		KUNIT_EXPECT_EQ(test, (u32)e->engine, sub->q.engine);
		KUNIT_EXPECT_EQ(test, e->model_id, model_id);
		KUNIT_EXPECT_GT(test, e->timestamp_ns, last_ts);
		last_ts = e->timestamp_ns;
	}
	return n;
}

static void sim_device_new_del(struct kunit *test)
{
	const struct nprof_sim_arch *trn1 = nprof_sim_arch_by_name("trn1");
	struct nprof_sim_device *sdev;

	KUNIT_EXPECT_NULL(test, nprof_sim_dev_find(SIM_TEST_ID));
	KUNIT_EXPECT_EQ(test, nprof_sim_dev_del(SIM_TEST_ID), -ENOENT);
	sdev = sim_test_dev_new(test, SIM_TEST_ID, "trn1");
	KUNIT_EXPECT_EQ(test, sdev->id, (u32)SIM_TEST_ID);
	KUNIT_EXPECT_PTR_EQ(test, sdev->arch, trn1);
	KUNIT_EXPECT_NOT_NULL(test, sdev->ndev);
	KUNIT_EXPECT_EQ(test, nprof_sim_dev_new(SIM_TEST_ID, trn1), -EEXIST);
	KUNIT_EXPECT_EQ(test, nprof_sim_dev_new(NPROF_SIM_MAX_ID + 1U, trn1), -EINVAL);
	KUNIT_EXPECT_EQ(test, nprof_sim_dev_del(SIM_TEST_ID), 0);
	KUNIT_EXPECT_NULL(test, nprof_sim_dev_find(SIM_TEST_ID));
	KUNIT_EXPECT_EQ(test, nprof_sim_dev_del(SIM_TEST_ID), -ENOENT);
	/* The id is free again. */
	sim_test_dev_new(test, SIM_TEST_ID, "trn2");
	KUNIT_EXPECT_EQ(test, nprof_sim_dev_del(SIM_TEST_ID), 0);
}

/*
 * Check the queues of one target of a device: each valid one maps to a bit
 * of its own in @seen; the others (types of the other kind, engines beyond
 * the type's) are refused. Returns the number of valid queues.
 */
static unsigned int sim_test_check_target(struct kunit *test,
					  struct nprof_sim_device *sdev,
					  u32 kind, u32 index, unsigned long *seen)
{
	const struct nprof_device_desc *d = &sdev->desc;
	u32 types = kind ? d->topsp_queue_types : d->core_queue_types;
	struct nprof_queue_id q = { .kind = kind, .index = index };
	unsigned int n = 0;

	for (q.type = 0; q.type < NEURONPROF_QT_COUNT; q.type++) {
		u32 engines = d->per_engine_queue_types & BIT(q.type) ?
			      d->engines_per_core : 1;

		for (q.engine = 0; q.engine <= engines; q.engine++) {
			int idx = nprof_sim_queue_index(sdev, &q);

			if (!(types & BIT(q.type)) || q.engine == engines) {
				KUNIT_EXPECT_EQ(test, idx, -EINVAL);
				continue;
			}
			KUNIT_ASSERT_GE(test, idx, 0);
			KUNIT_ASSERT_LT(test, (u32)idx, sdev->num_queues);
			KUNIT_EXPECT_FALSE(test, test_and_set_bit(idx, seen));
			n++;
		}
	}
	return n;
}

/* Every queue of a device has its own bit; anything else is refused. */
static void sim_device_queue_layout(struct kunit *test)
{
	static const char * const archs[] = { "trn1", "trn2" };
	unsigned int a;

	for (a = 0; a < ARRAY_SIZE(archs); a++) {
		struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, archs[a]);
		const struct nprof_device_desc *d = &sdev->desc;
		unsigned int i, n = 0, expect;
		struct nprof_queue_id q;
		unsigned long *seen;

		seen = kunit_kcalloc(test, BITS_TO_LONGS(sdev->num_queues), sizeof(long),
				     GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, seen);
		for (i = 0; i < d->num_cores; i++)
			n += sim_test_check_target(test, sdev, NEURONPROF_TARGET_CORE, i, seen);
		for (i = 0; i < d->num_topsps; i++)
			n += sim_test_check_target(test, sdev, NEURONPROF_TARGET_TOPSP, i, seen);

		q = (struct nprof_queue_id){ .index = d->num_cores };
		KUNIT_EXPECT_EQ(test, nprof_sim_queue_index(sdev, &q), -EINVAL);
		q = (struct nprof_queue_id){ .kind = NEURONPROF_TARGET_TOPSP,
					     .index = d->num_topsps,
					     .type = NEURONPROF_QT_TOPSP_TRACE };
		KUNIT_EXPECT_EQ(test, nprof_sim_queue_index(sdev, &q), -EINVAL);
		q = (struct nprof_queue_id){ .kind = 2 };
		KUNIT_EXPECT_EQ(test, nprof_sim_queue_index(sdev, &q), -EINVAL);
		q = (struct nprof_queue_id){ .type = NEURONPROF_QT_COUNT };
		KUNIT_EXPECT_EQ(test, nprof_sim_queue_index(sdev, &q), -EINVAL);
		/* cores * (3 per-engine types * engines + 3) + topsps * 3 */
		expect = d->num_cores * (3 * d->engines_per_core + 3) + d->num_topsps * 3;
		KUNIT_EXPECT_EQ(test, n, expect);
		KUNIT_EXPECT_EQ(test, sdev->num_queues, expect);
		KUNIT_EXPECT_EQ(test, nprof_sim_dev_del(SIM_TEST_ID), 0);
	}
}

static void sim_test_exec_args(struct drm_neuronprof_sim_exec *args, u32 core,
			       u32 iterations, u32 insns)
{
	*args = (struct drm_neuronprof_sim_exec) {
		.core = core,
		.model_id = 42,
		.iterations = iterations,
		.instructions = { insns, insns },
		.dma_transfers = 3,
	};
}

/* With no queue started nothing is produced, and nothing is counted. */
static void sim_device_exec_unsubscribed(struct kunit *test)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "inf2");
	struct drm_neuronprof_sim_exec args;
	unsigned int t;

	sim_test_exec_args(&args, 1, 4, 10);
	args.flags = NEURONPROF_SIM_EXEC_THROTTLE;
	memset(args.produced, 0xff, sizeof(args.produced));
	KUNIT_EXPECT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, args.status, 0U);
	for (t = 0; t < ARRAY_SIZE(args.produced); t++)
		KUNIT_EXPECT_EQ_MSG(test, args.produced[t], 0ULL, "queue type %u", t);
	/* The per-core timestamp floor advanced past the execution. */
	KUNIT_EXPECT_GT(test, sdev->cores[1].last_ts, 0ULL);
	KUNIT_EXPECT_EQ(test, sdev->cores[0].last_ts, 0ULL);

	args.flags = NEURONPROF_SIM_EXEC_ERROR;
	KUNIT_EXPECT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, args.status, (u32)NPROF_SIM_EXEC_ERROR_STATUS);
	KUNIT_EXPECT_EQ(test, nprof_sim_dev_del(SIM_TEST_ID), 0);
}

/*
 * build_unstarted: the TRACE entries of queues nobody started are built (in
 * the execution's scratch buffer, NPROF_SIM_BATCH at a time) and dropped:
 * none produced, none counted. Without it they are not built at all.
 */
static void sim_device_exec_build_unstarted(struct kunit *test)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "inf2");
	const u32 insns = 2 * NPROF_SIM_BATCH + 3;
	struct drm_neuronprof_sim_exec args;
	unsigned int t;

	sim_test_exec_args(&args, 1, 4, insns);
	KUNIT_EXPECT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->unstarted_built), 0LL);

	atomic_set(nprof_sim_knob(sdev, NPROF_SIM_BUILD_UNSTARTED), 1);
	KUNIT_EXPECT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	/* 4 iterations of insns instructions on each of the two engines given some. */
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->unstarted_built), 4LL * insns * 2);
	for (t = 0; t < ARRAY_SIZE(args.produced); t++)
		KUNIT_EXPECT_EQ_MSG(test, args.produced[t], 0ULL, "queue type %u", t);

	atomic_set(nprof_sim_knob(sdev, NPROF_SIM_BUILD_UNSTARTED), 0);
	KUNIT_EXPECT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->unstarted_built), 4LL * insns * 2);
	KUNIT_EXPECT_EQ(test, nprof_sim_dev_del(SIM_TEST_ID), 0);
}

/*
 * The core refuses, for the simulator's own description, every program the
 * simulator cannot run: the callback relies on it and does not check again.
 */
static void sim_device_exec_bad_args(struct kunit *test)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "trn1");
	const struct nprof_device_desc *desc = nprof_device_desc(sdev->ndev);
	struct drm_neuronprof_sim_exec args;
	const char *why;

	sim_test_exec_args(&args, 2, 1, 1);		/* trn1 has cores 0..1 */
	KUNIT_EXPECT_EQ(test, nprof_sim_exec_validate(desc, &args, &why), -EINVAL);
	sim_test_exec_args(&args, 0, 0, 1);
	KUNIT_EXPECT_EQ(test, nprof_sim_exec_validate(desc, &args, &why), -EINVAL);
	sim_test_exec_args(&args, 0, NEURONPROF_SIM_MAX_ITERATIONS + 1, 1);
	KUNIT_EXPECT_EQ(test, nprof_sim_exec_validate(desc, &args, &why), -EINVAL);
	sim_test_exec_args(&args, 0, 1, NEURONPROF_SIM_MAX_INSTRUCTIONS + 1);
	KUNIT_EXPECT_EQ(test, nprof_sim_exec_validate(desc, &args, &why), -EINVAL);
	sim_test_exec_args(&args, 0, 1, 1);
	args.instructions[4] = 1;			/* trn1 has engines 0..3 */
	KUNIT_EXPECT_EQ(test, nprof_sim_exec_validate(desc, &args, &why), -EINVAL);
	sim_test_exec_args(&args, 0, 1, 1);
	args.flags = 1U << 2;
	KUNIT_EXPECT_EQ(test, nprof_sim_exec_validate(desc, &args, &why), -EINVAL);
	sim_test_exec_args(&args, 0, 1, 1);
	args.reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, nprof_sim_exec_validate(desc, &args, &why), -EINVAL);
	sim_test_exec_args(&args, 0, 1, 1);
	args.dma_transfers = NEURONPROF_SIM_MAX_DMA + 1;
	KUNIT_EXPECT_EQ(test, nprof_sim_exec_validate(desc, &args, &why), -EINVAL);
	/* Each term fits, the total does not. */
	sim_test_exec_args(&args, 0, NEURONPROF_SIM_MAX_ITERATIONS,
			   NEURONPROF_SIM_MAX_INSTRUCTIONS);
	KUNIT_EXPECT_EQ(test, nprof_sim_exec_validate(desc, &args, &why), -EINVAL);
	sim_test_exec_args(&args, 1, 1, 1);
	KUNIT_EXPECT_EQ(test, nprof_sim_exec_validate(desc, &args, &why), 0);
	KUNIT_EXPECT_EQ(test, nprof_sim_dev_del(SIM_TEST_ID), 0);
}

/* A passed deadline stops before the next iteration; exec_error is one-shot. */
static void sim_device_exec_timeout_and_error_knob(struct kunit *test)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "trn2");
	struct drm_neuronprof_sim_exec args;

	sim_test_exec_args(&args, 3, 8, 1);
	args.timeout_ns = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, sim_test_exec(sdev->ndev, &args), -ETIMEDOUT);
	sim_test_exec_args(&args, 3, 8, 1);
	args.timeout_ns = ktime_get_ns() + 3600 * NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);

	atomic_set(nprof_sim_knob(sdev, NPROF_SIM_EXEC_ERROR), 1);
	sim_test_exec_args(&args, 0, 2, 1);
	KUNIT_EXPECT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, args.status, (u32)NPROF_SIM_EXEC_ERROR_STATUS);
	KUNIT_EXPECT_EQ(test, atomic_read(nprof_sim_knob(sdev, NPROF_SIM_EXEC_ERROR)), 0);
	KUNIT_EXPECT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, args.status, 0U);
	KUNIT_EXPECT_EQ(test, nprof_sim_dev_del(SIM_TEST_ID), 0);
}

struct sim_test_exec_thread {
	struct nprof_drmdev *ndev;
	struct drm_neuronprof_sim_exec args;
	int ret;
	struct completion done;
};

static int sim_test_exec_fn(void *data)
{
	struct sim_test_exec_thread *t = data;

	t->ret = sim_test_exec(t->ndev, &t->args);
	complete(&t->done);
	return 0;
}

#define SIM_TEST_LONG_ITERATIONS	64

#define SIM_TEST_LONG_INSNS		(NEURONPROF_SIM_MAX_INSTRUCTIONS / 2 - 16)

/* del_device during a long execution stops it with -ENODEV and waits. */
static void sim_test_del_during_exec(struct kunit *test, unsigned int scale)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "trn1");
	struct sim_test_exec_thread *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct nprof_sim_gen_program prog;
	struct task_struct *task;
	unsigned int waited;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->ndev = sdev->ndev;
	init_completion(&t->done);
	/* About 2^26 notifications: far longer than the test waits for it. */
	sim_test_exec_args(&t->args, 1, SIM_TEST_LONG_ITERATIONS, SIM_TEST_LONG_INSNS);
	t->args.dma_transfers = 0;
	prog = (struct nprof_sim_gen_program) {
		.iterations = SIM_TEST_LONG_ITERATIONS,
		.instructions = { SIM_TEST_LONG_INSNS, SIM_TEST_LONG_INSNS },
	};
	KUNIT_ASSERT_LE(test, nprof_sim_program_count(&prog, 4, 3, NULL),
			NEURONPROF_SIM_MAX_NOTIFICATIONS);

	WRITE_ONCE(nprof_sim_time_scale, scale);
	task = kthread_run(sim_test_exec_fn, t, "nprof_sim_test_exec");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	for (waited = 0; !mutex_is_locked(&sdev->cores[1].exec_lock) && waited < 5000;
	     waited++)
		usleep_range(1000, 2000);
	KUNIT_ASSERT_TRUE(test, mutex_is_locked(&sdev->cores[1].exec_lock));
	KUNIT_EXPECT_FALSE(test, completion_done(&t->done));

	KUNIT_EXPECT_EQ(test, nprof_sim_dev_del(SIM_TEST_ID), 0);
	/* del returned: the execution is over, and it did not run to the end. */
	KUNIT_EXPECT_TRUE(test, completion_done(&t->done));
	wait_for_completion(&t->done);
	KUNIT_EXPECT_EQ(test, t->ret, -ENODEV);
}

static void sim_device_del_during_exec(struct kunit *test)
{
	sim_test_del_during_exec(test, 0);
}

/* A paced execution, asleep until the device catches up, stops at once too. */
static void sim_device_del_during_paced_exec(struct kunit *test)
{
	u64 t0 = ktime_get_ns();

	sim_test_del_during_exec(test, NPROF_SIM_MAX_TIME_SCALE);
	/* Its device time is hours at that scale; the sleep did not last. */
	KUNIT_EXPECT_LT(test, ktime_get_ns() - t0, 30ULL * NSEC_PER_SEC);
}

static int sim_test_exec_killable_fn(void *data)
{
	allow_signal(SIGKILL);
	return sim_test_exec_fn(data);
}

/*
 * The program runs in a worker while the caller waits: a caller killed then
 * cancels it, and SIM_EXEC returns EINTR at once, though the program's
 * device time is hours at this pace.
 */
static void sim_device_exec_killed(struct kunit *test)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "trn1");
	struct sim_test_exec_thread *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct task_struct *task;
	unsigned int waited;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->ndev = sdev->ndev;
	init_completion(&t->done);
	sim_test_exec_args(&t->args, 0, 64, 4096);
	WRITE_ONCE(nprof_sim_time_scale, NPROF_SIM_MAX_TIME_SCALE);
	task = kthread_create(sim_test_exec_killable_fn, t, "nprof_sim_test_kill");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	wake_up_process(task);
	for (waited = 0; !mutex_is_locked(&sdev->cores[0].exec_lock) && waited < 5000;
	     waited++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_TRUE(test, mutex_is_locked(&sdev->cores[0].exec_lock));
	KUNIT_EXPECT_FALSE(test, completion_done(&t->done));
	send_sig(SIGKILL, task, 1);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&t->done, 30 * HZ) > 0);
	KUNIT_EXPECT_EQ(test, t->ret, -EINTR);
	/* Nothing of the execution remains: the core takes the next one. */
	KUNIT_EXPECT_FALSE(test, mutex_is_locked(&sdev->cores[0].exec_lock));
	put_task_struct(task);
}

/*
 * Paced executions take the host the program's device time times
 * time_scale / 100, and at 100 % or more no entry is stamped after the
 * execution ended.
 */
static void sim_device_exec_paced(struct kunit *test)
{
	static const unsigned int scales[] = { 100, 400, 0 };
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "trn1");
	struct drm_neuronprof_sim_exec args;
	struct nprof_sub *infer;
	unsigned int k;

	infer = sim_test_subscribe(test, sdev, NEURONPROF_TARGET_CORE, 0,
				   NEURONPROF_QT_INFER_STATUS, 0, PAGE_SIZE);
	for (k = 0; k < ARRAY_SIZE(scales); k++) {
		const struct nprof_kring *r = &infer->ring;
		const struct neuronprof_notification *first, *last;
		u64 before, after, device;

		WRITE_ONCE(nprof_sim_time_scale, scales[k]);
		sim_test_exec_args(&args, 0, 3, 100);
		before = ktime_get_ns();
		KUNIT_ASSERT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
		after = ktime_get_ns();
		KUNIT_ASSERT_EQ(test, r->prod - r->cons, 6ULL * NPROF_ENTRY_SIZE);
		first = (const void *)(r->data + (r->cons & (r->size - 1)));
		last = (const void *)(r->data + ((r->prod - NPROF_ENTRY_SIZE) & (r->size - 1)));
		/* 3 iterations of 100 instructions of at least 4 us on engine 0. */
		device = last->timestamp_ns - first->timestamp_ns;
		KUNIT_EXPECT_GT(test, device, 3ULL * 100 * 4000);
		KUNIT_EXPECT_GE_MSG(test, after - before, div_u64(device * scales[k], 100),
				    "time_scale %u", scales[k]);
		if (scales[k] >= 100) {
			KUNIT_EXPECT_GE(test, (u64)first->timestamp_ns, before);
			KUNIT_EXPECT_LE(test, (u64)last->timestamp_ns, after);
		}
		nprof_kring_consume(&infer->ring, infer->ring.prod);
	}
}

/*
 * Notifications reach the rings of the started queues only, with sequence
 * numbers contiguous per queue, and produced[] counts exactly them.
 */
/*
 * The entries built in place in a ring (reserve/commit) carry the times the
 * generator gives the same program from the same start through emit: the
 * device's path and the model agree, whatever else is subscribed.
 */
static void sim_test_same_times(struct kunit *test,
				const struct drm_neuronprof_sim_exec *args,
				struct nprof_sub *infer, struct nprof_sub *trace)
{
	struct sim_test_rec *rec = sim_test_rec_new(test, SIM_TEST_MAX_RECORDS);
	const struct nprof_kring *ir = &infer->ring, *tr = &trace->ring;
	const struct neuronprof_notification *first = (const void *)(ir->data +
							(ir->cons & (ir->size - 1)));
	struct nprof_sim_gen_program prog = {
		.seed = READ_ONCE(nprof_sim_seed),
		.model_id = args->model_id,
		.iterations = args->iterations,
		.dma_transfers = args->dma_transfers,
	};
	struct nprof_sim_run run = {
		.prog = &prog, .engines = 4, .topsps_per_core = 3,
		.emit = sim_test_emit, .priv = rec,
	};
	u64 pos = tr->cons;
	unsigned int i, n = 0;

	memcpy(prog.instructions, args->instructions, sizeof(prog.instructions));
	run.start_ns = first->timestamp_ns;
	KUNIT_ASSERT_EQ(test, nprof_sim_program_run(&run), 0);
	for (i = 0; i < rec->nr; i++) {
		const struct neuronprof_notification *e;

		if (rec->recs[i].q.type != NEURONPROF_QT_TRACE || rec->recs[i].q.engine)
			continue;
		KUNIT_ASSERT_LT(test, pos, tr->prod);
		e = (const void *)(tr->data + (pos & (tr->size - 1)));
		KUNIT_EXPECT_EQ_MSG(test, e->timestamp_ns, rec->recs[i].n.timestamp_ns,
				    "TRACE entry %u", n);
		pos += NPROF_ENTRY_SIZE;
		n++;
	}
	KUNIT_EXPECT_EQ(test, pos, tr->prod);
}

static void sim_device_exec_subscribed(struct kunit *test)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "trn1");
	struct drm_neuronprof_sim_exec args;
	struct nprof_sub *trace, *infer, *dma, *tev, *other;
	unsigned int t;

	trace = sim_test_subscribe(test, sdev, NEURONPROF_TARGET_CORE, 0,
				   NEURONPROF_QT_TRACE, 0, PAGE_SIZE * 4);
	infer = sim_test_subscribe(test, sdev, NEURONPROF_TARGET_CORE, 0,
				   NEURONPROF_QT_INFER_STATUS, 0, PAGE_SIZE);
	dma = sim_test_subscribe(test, sdev, NEURONPROF_TARGET_CORE, 0,
				 NEURONPROF_QT_DMA, 1, PAGE_SIZE);
	/* trn1: TopSPs 0..2 serve core 0. */
	tev = sim_test_subscribe(test, sdev, NEURONPROF_TARGET_TOPSP, 2,
				 NEURONPROF_QT_TOPSP_EVENT, 0, PAGE_SIZE);
	/* Core 1's queue and TopSP 3 (core 1) get nothing from core 0. */
	other = sim_test_subscribe(test, sdev, NEURONPROF_TARGET_CORE, 1,
				   NEURONPROF_QT_TRACE, 0, PAGE_SIZE);
	sim_test_subscribe(test, sdev, NEURONPROF_TARGET_TOPSP, 3,
			   NEURONPROF_QT_TOPSP_EVENT, 0, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, sim_test_active(sdev, &trace->q));

	sim_test_exec_args(&args, 0, 3, 0);
	args.instructions[0] = 20;
	args.instructions[1] = 5;
	args.dma_transfers = 8;
	KUNIT_ASSERT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, args.status, 0U);

	KUNIT_EXPECT_EQ(test, sim_test_check_ring(test, trace, 0, 42), 60ULL);
	KUNIT_EXPECT_EQ(test, sim_test_check_ring(test, infer, 0, 42), 6ULL);
	/* 8 transfers round-robin over 4 engines: 2 per iteration on engine 1. */
	KUNIT_EXPECT_EQ(test, sim_test_check_ring(test, dma, 0, 42), 6ULL);
	KUNIT_EXPECT_EQ(test, sim_test_check_ring(test, tev, 0, 42), 6ULL);
	KUNIT_EXPECT_EQ(test, sim_test_check_ring(test, other, 0, 42), 0ULL);
	for (t = 0; t < ARRAY_SIZE(args.produced); t++) {
		u64 want = t == NEURONPROF_QT_TRACE ? 60 :
			   t == NEURONPROF_QT_INFER_STATUS || t == NEURONPROF_QT_DMA ||
			   t == NEURONPROF_QT_TOPSP_EVENT ? 6 : 0;

		KUNIT_EXPECT_EQ_MSG(test, args.produced[t], want, "queue type %u", t);
	}
	sim_test_same_times(test, &args, infer, trace);

	/* A second execution continues the sequence of every queue. */
	KUNIT_ASSERT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, sim_test_check_ring(test, infer, 0, 42), 12ULL);
	KUNIT_EXPECT_EQ(test, sim_test_check_ring(test, tev, 0, 42), 12ULL);

	/* queue_stop: the queue is no longer produced into. */
	sim_test_unsubscribe(test, trace);
	KUNIT_EXPECT_FALSE(test, sim_test_active(sdev, &(struct nprof_queue_id){
		.kind = NEURONPROF_TARGET_CORE, .type = NEURONPROF_QT_TRACE }));
	KUNIT_ASSERT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, args.produced[NEURONPROF_QT_TRACE], 0ULL);
	KUNIT_EXPECT_EQ(test, args.produced[NEURONPROF_QT_INFER_STATUS], 6ULL);
}

/*
 * A full ring loses what does not fit: produced counts delivered + lost, and
 * the gap in the sequence numbers is exactly the lost count.
 */
static void sim_device_exec_overflow(struct kunit *test)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "trn2");
	u64 cap = PAGE_SIZE / NPROF_ENTRY_SIZE;
	struct drm_neuronprof_sim_exec args;
	struct nprof_sub *trace;

	trace = sim_test_subscribe(test, sdev, NEURONPROF_TARGET_CORE, 7,
				   NEURONPROF_QT_TRACE, 4, PAGE_SIZE);
	sim_test_exec_args(&args, 7, 1, 0);
	args.instructions[4] = cap + 36;
	KUNIT_ASSERT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, args.produced[NEURONPROF_QT_TRACE], cap + 36);
	KUNIT_EXPECT_EQ(test, sim_test_check_ring(test, trace, 0, 42), cap);
	KUNIT_EXPECT_EQ(test, trace->ring.lost, 36ULL);
	KUNIT_EXPECT_TRUE(test, trace->ring.flags & NEURONPROF_RING_OVERFLOWED);

	/* Consume everything; the next delivered entry shows the gap. */
	nprof_kring_consume(&trace->ring, trace->ring.prod);
	args.instructions[4] = 1;
	KUNIT_ASSERT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, sim_test_check_ring(test, trace, cap + 36, 42), 1ULL);

	/* force_overflow: everything is lost, and still counted. */
	nprof_kring_consume(&trace->ring, trace->ring.prod);
	atomic_set(nprof_sim_knob(sdev, NPROF_SIM_FORCE_OVERFLOW), 1);
	args.instructions[4] = 5;
	KUNIT_ASSERT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, args.produced[NEURONPROF_QT_TRACE], 5ULL);
	KUNIT_EXPECT_EQ(test, sim_test_check_ring(test, trace, 0, 42), 0ULL);
	KUNIT_EXPECT_EQ(test, trace->ring.lost, 41ULL);
	atomic_set(nprof_sim_knob(sdev, NPROF_SIM_FORCE_OVERFLOW), 0);
	KUNIT_ASSERT_EQ(test, sim_test_exec(sdev->ndev, &args), 0);
	KUNIT_EXPECT_EQ(test, sim_test_check_ring(test, trace, cap + 42, 42), 5ULL);
}

/* fail_next_subscribe fails exactly one queue_start with its errno. */
static void sim_device_fail_next_subscribe(struct kunit *test)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "inf2");
	struct nprof_sub *sub;

	atomic_set(nprof_sim_knob(sdev, NPROF_SIM_FAIL_NEXT_SUBSCRIBE), EIO);
	sub = sim_test_try_subscribe(test, sdev, NEURONPROF_TARGET_TOPSP, 5,
				     NEURONPROF_QT_TOPSP_ERROR, 0, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(sub), -EIO);
	KUNIT_EXPECT_EQ(test, atomic_read(nprof_sim_knob(sdev, NPROF_SIM_FAIL_NEXT_SUBSCRIBE)), 0);
	KUNIT_EXPECT_FALSE(test, sim_test_active(sdev, &(struct nprof_queue_id){
		.kind = NEURONPROF_TARGET_TOPSP, .index = 5,
		.type = NEURONPROF_QT_TOPSP_ERROR }));
	sub = sim_test_subscribe(test, sdev, NEURONPROF_TARGET_TOPSP, 5,
				 NEURONPROF_QT_TOPSP_ERROR, 0, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, sim_test_active(sdev, &sub->q));
}

/* flush_fail fails flushes while set; flush_stall_ms delays them. */
static void sim_device_flush_faults(struct kunit *test)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "trn1");
	struct neuronprof_nq_drain d = { .flags = NEURONPROF_DRAIN_FLUSH };
	struct nprof_sub *sub;
	u64 t0;

	sub = sim_test_subscribe(test, sdev, NEURONPROF_TARGET_CORE, 1,
				 NEURONPROF_QT_EVENT, 3, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), 0);
	atomic_set(nprof_sim_knob(sdev, NPROF_SIM_FLUSH_FAIL), EAGAIN);
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EAGAIN);
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EAGAIN);
	atomic_set(nprof_sim_knob(sdev, NPROF_SIM_FLUSH_FAIL), 0);
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), 0);

	atomic_set(nprof_sim_knob(sdev, NPROF_SIM_FLUSH_STALL_MS), 50);
	t0 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), 0);
	KUNIT_EXPECT_GE(test, ktime_get_ns() - t0, 50 * NSEC_PER_MSEC);
}

struct sim_test_drain_thread {
	struct nprof_sub *sub;
	int ret;
	struct completion done;
};

static int sim_test_drain_fn(void *data)
{
	struct sim_test_drain_thread *t = data;
	struct neuronprof_nq_drain d = { .flags = NEURONPROF_DRAIN_FLUSH };

	t->ret = nprof_sub_drain(t->sub, &d);
	complete(&t->done);
	return 0;
}

/*
 * Removal does not wait out a stalled flush, and leaves the subscription
 * dead but intact.
 */
static void sim_device_del_during_stalled_flush(struct kunit *test)
{
	struct nprof_sim_device *sdev = sim_test_dev_new(test, SIM_TEST_ID, "trn2");
	struct sim_test_drain_thread *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct task_struct *task;
	u64 t0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->sub = sim_test_subscribe(test, sdev, NEURONPROF_TARGET_CORE, 0,
				    NEURONPROF_QT_THROTTLE, 0, PAGE_SIZE);
	init_completion(&t->done);
	atomic_set(nprof_sim_knob(sdev, NPROF_SIM_FLUSH_STALL_MS),
		   NPROF_SIM_MAX_FLUSH_STALL_MS);
	task = kthread_run(sim_test_drain_fn, t, "nprof_sim_test_drain");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	msleep(100);
	KUNIT_EXPECT_FALSE(test, completion_done(&t->done));

	t0 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, nprof_sim_dev_del(SIM_TEST_ID), 0);
	wait_for_completion(&t->done);
	KUNIT_EXPECT_LT(test, ktime_get_ns() - t0,
			(u64)NPROF_SIM_MAX_FLUSH_STALL_MS / 2 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, t->ret, -ENODEV);
	KUNIT_EXPECT_TRUE(test, t->sub->ring.flags & NEURONPROF_RING_DEAD);
}

struct kunit_case nprof_sim_device_cases[] = {
	KUNIT_CASE(sim_device_new_del),
	KUNIT_CASE(sim_device_queue_layout),
	KUNIT_CASE(sim_device_exec_unsubscribed),
	KUNIT_CASE(sim_device_exec_build_unstarted),
	KUNIT_CASE(sim_device_exec_bad_args),
	KUNIT_CASE(sim_device_exec_timeout_and_error_knob),
	KUNIT_CASE(sim_device_del_during_exec),
	KUNIT_CASE(sim_device_del_during_paced_exec),
	KUNIT_CASE(sim_device_exec_paced),
	KUNIT_CASE(sim_device_exec_killed),
	KUNIT_CASE(sim_device_exec_subscribed),
	KUNIT_CASE(sim_device_exec_overflow),
	KUNIT_CASE(sim_device_fail_next_subscribe),
	KUNIT_CASE(sim_device_flush_faults),
	KUNIT_CASE(sim_device_del_during_stalled_flush),
	{}
};
