// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_sim_program: the program generator on its own
 * (counts per queue type, ordering, timestamps, model id and iteration, early
 * stops), the device-time model recomputed, and the parser of new_device.
 */

#include "neuronprof_test_util.h"

/* Small enough to index by (kind, index < 16, type < 16, engine < 8). */
#define SIM_TEST_KEYS		(2 * 16 * 16 * 8)

static unsigned int sim_test_key(const struct nprof_queue_id *q)
{
	return ((q->kind * 16 + q->index) * 16 + q->type) * 8 + q->engine;
}

static int sim_test_poll(struct nprof_sim_run *run, bool boundary)
{
	struct sim_test_rec *rec = run->priv;

	if (!boundary) {
		rec->polls_mid++;
		return 0;
	}
	rec->polls_boundary++;
	if (rec->stop_iteration && run->iteration == rec->stop_iteration)
		return -ETIMEDOUT;
	return 0;
}

struct sim_test_case {
	const char *name;
	struct nprof_sim_gen_program prog;
	u32 core;
	u32 engines;
	u32 topsps_per_core;
	/*
	 * Expected per queue type, worked out by hand from the documented
	 * rules, in type order: TRACE, EVENT, ERROR, INFER_STATUS, DMA,
	 * THROTTLE, TOPSP_TRACE, TOPSP_EVENT, TOPSP_ERROR.
	 */
	u64 expect[NEURONPROF_QT_COUNT];
};

static const struct sim_test_case sim_test_cases[] = {
	{
		.name = "trn2_all_engines_dma_throttle",
		.prog = { .model_id = 7, .iterations = 1,
			  .instructions = { 3, 1, 0, 2, 4 }, .dma_transfers = 7,
			  .throttle = true },
		.core = 5, .engines = 5, .topsps_per_core = 2,
		.expect = { 10,  8,  0,  2,  7,  1,  2,  4,  0 },
	},
	{
		.name = "trn1_error_three_iterations",
		.prog = { .model_id = 0xdeadbeef, .iterations = 3,
			  .instructions = { 5 }, .error = true },
		.core = 1, .engines = 4, .topsps_per_core = 3,
		.expect = { 15,  6,  1,  6,  0,  0,  9, 18,  1 },
	},
	{
		.name = "inf2_empty_program",
		.prog = { .model_id = 1, .iterations = 4 },
		.core = 0, .engines = 4, .topsps_per_core = 3,
		.expect = {  0,  0,  0,  8,  0,  0, 12, 24,  0 },
	},
	{
		.name = "inf2_dma_throttle_error",
		.prog = { .model_id = 2, .iterations = 2, .dma_transfers = 9,
			  .throttle = true, .error = true },
		.core = 1, .engines = 4, .topsps_per_core = 3,
		.expect = {  0,  0,  1,  4, 18,  2,  6, 12,  1 },
	},
	{
		.name = "no_topsps_error",
		.prog = { .model_id = 3, .iterations = 2, .instructions = { 1 },
			  .error = true },
		.core = 0, .engines = 1, .topsps_per_core = 0,
		.expect = {  2,  4,  1,  4,  0,  0,  0,  0,  0 },
	},
	{
		.name = "instructions_beyond_engines_ignored",
		.prog = { .model_id = 4, .iterations = 2,
			  .instructions = { 0, 2, 0, 0, 9, 9, 9, 9 } },
		.core = 0, .engines = 4, .topsps_per_core = 3,
		.expect = {  4,  4,  0,  4,  0,  0,  6, 12,  0 },
	},
};

static void sim_test_case_desc(const struct sim_test_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sim_program, sim_test_cases, sim_test_case_desc);

/* A run of @prog on core 0 of a topology, recording into @rec, never polled. */
static struct nprof_sim_run sim_test_run(const struct nprof_sim_gen_program *prog,
					 u32 engines, u32 topsps_per_core,
					 struct sim_test_rec *rec)
{
	return (struct nprof_sim_run) {
		.prog = prog,
		.engines = engines,
		.topsps_per_core = topsps_per_core,
		.emit = sim_test_emit,
		.priv = rec,
	};
}

/* A run of a case's program on its core, recording into @rec. */
static struct nprof_sim_run sim_test_case_run(const struct sim_test_case *c,
					      struct sim_test_rec *rec)
{
	struct nprof_sim_run run = sim_test_run(&c->prog, c->engines, c->topsps_per_core, rec);

	run.core = c->core;
	return run;
}

static struct sim_test_rec *sim_test_run_case(struct kunit *test,
					      const struct sim_test_case *c,
					      struct nprof_sim_run *run)
{
	struct sim_test_rec *rec = sim_test_rec_new(test, SIM_TEST_MAX_RECORDS);

	*run = sim_test_case_run(c, rec);
	run->poll = sim_test_poll;
	KUNIT_ASSERT_EQ(test, nprof_sim_program_run(run), 0);
	return rec;
}

static bool sim_test_is_core(const struct sim_test_record *r)
{
	return r->q.kind == NEURONPROF_TARGET_CORE;
}

/* Every type gets exactly the documented number, on the right queues. */
static void sim_program_counts(struct kunit *test)
{
	const struct sim_test_case *c = test->param_value;
	u64 got[NEURONPROF_QT_COUNT] = { 0 }, formula[NEURONPROF_QT_COUNT];
	u64 trace[NEURONPROF_MAX_ENGINES] = { 0 }, dma[NEURONPROF_MAX_ENGINES] = { 0 };
	u32 first_topsp = c->core * c->topsps_per_core;
	u64 total = 0, iters = c->prog.iterations;
	struct nprof_sim_run run;
	struct sim_test_rec *rec;
	unsigned int i, t, e;

	rec = sim_test_run_case(test, c, &run);
	for (i = 0; i < rec->nr; i++) {
		const struct sim_test_record *r = &rec->recs[i];

		KUNIT_ASSERT_LT(test, r->q.type, (u32)NEURONPROF_QT_COUNT);
		got[r->q.type]++;
		if (sim_test_is_core(r)) {
			KUNIT_EXPECT_EQ(test, r->q.index, c->core);
			KUNIT_EXPECT_LT(test, r->q.type, (u32)NEURONPROF_QT_TOPSP_TRACE);
			KUNIT_EXPECT_LT(test, r->q.engine, c->engines);
		} else {
			KUNIT_EXPECT_EQ(test, r->q.kind, (u32)NEURONPROF_TARGET_TOPSP);
			KUNIT_EXPECT_GE(test, r->q.index, first_topsp);
			KUNIT_EXPECT_LT(test, r->q.index, first_topsp + c->topsps_per_core);
			KUNIT_EXPECT_GE(test, r->q.type, (u32)NEURONPROF_QT_TOPSP_TRACE);
			KUNIT_EXPECT_EQ(test, r->q.engine, 0U);
		}
		/* Only TRACE, EVENT and DMA have per-engine queues. */
		if (r->q.type != NEURONPROF_QT_TRACE && r->q.type != NEURONPROF_QT_EVENT &&
		    r->q.type != NEURONPROF_QT_DMA)
			KUNIT_EXPECT_EQ(test, r->q.engine, 0U);
		KUNIT_EXPECT_EQ(test, (u32)r->n.queue_type, r->q.type);
		KUNIT_EXPECT_EQ(test, (u32)r->n.engine, r->q.engine);
		if (r->q.type == NEURONPROF_QT_TRACE)
			trace[r->q.engine]++;
		if (r->q.type == NEURONPROF_QT_DMA) {
			dma[r->q.engine]++;
			/* Synthetic device addresses, never kernel pointers. */
			KUNIT_EXPECT_LT(test, r->n.payload[1], 1ULL << 48);
			KUNIT_EXPECT_LT(test, r->n.payload[2], 1ULL << 48);
		}
	}
	for (t = 0; t < NEURONPROF_QT_COUNT; t++) {
		KUNIT_EXPECT_EQ_MSG(test, got[t], c->expect[t], "queue type %u", t);
		total += c->expect[t];
	}
	KUNIT_EXPECT_EQ(test, run.emitted, total);
	KUNIT_EXPECT_EQ(test, run.iteration, c->prog.iterations);
	KUNIT_EXPECT_EQ(test, run.status,
			c->prog.error ? (u32)NPROF_SIM_EXEC_ERROR_STATUS : 0U);

	for (e = 0; e < c->engines; e++) {
		u64 rr = c->prog.dma_transfers / c->engines +
			 (e < c->prog.dma_transfers % c->engines);

		KUNIT_EXPECT_EQ_MSG(test, trace[e], iters * c->prog.instructions[e],
				    "engine %u", e);
		KUNIT_EXPECT_EQ_MSG(test, dma[e], iters * rr, "DMA round-robin, engine %u", e);
	}

	/* The closed form the driver bounds programs with agrees. */
	KUNIT_EXPECT_EQ(test, nprof_sim_program_count(&c->prog, c->engines,
						      c->topsps_per_core, formula),
			total);
	for (t = 0; t < NEURONPROF_QT_COUNT; t++)
		KUNIT_EXPECT_EQ_MSG(test, formula[t], c->expect[t], "queue type %u", t);
}

/*
 * Per iteration: INFER start first, INFER stop last with the status; each
 * engine's TRACE entries between its EVENT start and end; iterations do not
 * interleave; model_id and iteration on every entry.
 */
static void sim_program_ordering(struct kunit *test)
{
	const struct sim_test_case *c = test->param_value;
	struct nprof_sim_run run;
	struct sim_test_rec *rec;
	unsigned int i, start = 0;
	u32 it = 0;

	rec = sim_test_run_case(test, c, &run);
	KUNIT_ASSERT_GT(test, rec->nr, 0U);
	for (i = 0; i < rec->nr; i++) {
		const struct sim_test_record *r = &rec->recs[i];

		KUNIT_EXPECT_EQ(test, r->n.model_id, c->prog.model_id);
		KUNIT_EXPECT_EQ(test, r->n.seq, 0ULL);
		if (r->n.iteration != it) {
			KUNIT_ASSERT_EQ(test, r->n.iteration, it + 1);
			it++;
			start = i;
		}
		if (i == start) {
			KUNIT_EXPECT_EQ(test, r->q.type, (u32)NEURONPROF_QT_INFER_STATUS);
			KUNIT_EXPECT_EQ(test, r->n.code, (u32)NEURONPROF_INFER_START);
		} else if (i + 1 == rec->nr || rec->recs[i + 1].n.iteration != it) {
			bool raised = c->prog.error && it == c->prog.iterations - 1;

			KUNIT_EXPECT_EQ(test, r->q.type, (u32)NEURONPROF_QT_INFER_STATUS);
			KUNIT_EXPECT_EQ(test, r->n.code, (u32)NEURONPROF_INFER_STOP);
			KUNIT_EXPECT_EQ(test, r->n.payload[0],
					raised ? (u64)NPROF_SIM_EXEC_ERROR_STATUS : 0ULL);
		} else {
			KUNIT_EXPECT_NE(test, r->q.type, (u32)NEURONPROF_QT_INFER_STATUS);
		}

		if (r->q.type == NEURONPROF_QT_TRACE) {
			/* The nearest earlier EVENT is its engine's start. */
			int j = i - 1;

			while (j >= 0 && rec->recs[j].q.type == NEURONPROF_QT_TRACE)
				j--;
			KUNIT_ASSERT_GE(test, j, 0);
			KUNIT_EXPECT_EQ(test, rec->recs[j].q.type, (u32)NEURONPROF_QT_EVENT);
			KUNIT_EXPECT_EQ(test, rec->recs[j].q.engine, r->q.engine);
			KUNIT_EXPECT_EQ(test, rec->recs[j].n.code, (u32)NPROF_SIM_EVENT_START);
		}
		if (r->q.type == NEURONPROF_QT_EVENT && r->n.code == NPROF_SIM_EVENT_END) {
			u32 insns = c->prog.instructions[r->q.engine];

			KUNIT_ASSERT_GE(test, i, insns + 1);
			KUNIT_EXPECT_EQ(test, rec->recs[i - insns - 1].n.code,
					(u32)NPROF_SIM_EVENT_START);
			KUNIT_EXPECT_EQ(test, rec->recs[i - insns - 1].q.engine, r->q.engine);
		}
		if (r->q.type == NEURONPROF_QT_ERROR || r->q.type == NEURONPROF_QT_TOPSP_ERROR) {
			KUNIT_EXPECT_EQ(test, r->n.iteration, c->prog.iterations - 1);
			KUNIT_EXPECT_EQ(test, r->n.code, (u32)NPROF_SIM_EXEC_ERROR_STATUS);
		}
		if (r->q.type == NEURONPROF_QT_TOPSP_ERROR)
			KUNIT_EXPECT_EQ(test, r->q.index, c->core * c->topsps_per_core);
	}
	KUNIT_EXPECT_EQ(test, it, c->prog.iterations - 1);
}

/*
 * Timestamps rise strictly per queue, from above the floor the caller passes
 * in; run.last_ts comes back as the latest of them.
 */
static void sim_program_timestamps(struct kunit *test)
{
	const struct sim_test_case *c = test->param_value;
	struct sim_test_rec *rec = sim_test_rec_new(test, SIM_TEST_MAX_RECORDS);
	u64 *last = kunit_kzalloc(test, SIM_TEST_KEYS * sizeof(*last), GFP_KERNEL);
	/* A floor in the future: the generator must not go below it. */
	u64 floor = ktime_get_ns() + 10 * NSEC_PER_SEC;
	u64 latest = 0, before;
	struct nprof_sim_run run = sim_test_case_run(c, rec);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, last);
	run.last_ts = floor;
	KUNIT_ASSERT_EQ(test, nprof_sim_program_run(&run), 0);
	KUNIT_EXPECT_EQ(test, run.start_ns, floor + 1);
	KUNIT_ASSERT_GT(test, rec->nr, 0U);
	/* The first entry is the first INFER start, at the start. */
	KUNIT_EXPECT_EQ(test, rec->recs[0].n.timestamp_ns, floor + 1);
	for (i = 0; i < rec->nr; i++) {
		const struct sim_test_record *r = &rec->recs[i];
		unsigned int key = sim_test_key(&r->q);

		KUNIT_ASSERT_LT(test, key, (unsigned int)SIM_TEST_KEYS);
		KUNIT_EXPECT_GT(test, r->n.timestamp_ns, floor);
		KUNIT_EXPECT_GT(test, r->n.timestamp_ns, last[key]);
		last[key] = r->n.timestamp_ns;
		latest = max_t(u64, latest, r->n.timestamp_ns);
	}
	KUNIT_EXPECT_EQ(test, run.last_ts, latest);
	/* The last INFER stop ends the run. */
	KUNIT_EXPECT_EQ(test, rec->recs[rec->nr - 1].n.timestamp_ns, latest);

	/* Without a floor, the run starts at a read of CLOCK_MONOTONIC. */
	rec->nr = 0;
	run.last_ts = 0;
	run.start_ns = 0;
	before = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, nprof_sim_program_run(&run), 0);
	KUNIT_ASSERT_GT(test, rec->nr, 0U);
	KUNIT_EXPECT_GE(test, rec->recs[0].n.timestamp_ns, before);
	KUNIT_EXPECT_LE(test, rec->recs[0].n.timestamp_ns, ktime_get_ns());
}

/*
 * A second implementation of Documentation/simulator.rst, "Device time",
 * written from the text: costs, jitter, DMA, TopSPs and the schedule of an
 * iteration.
 */
static u32 ref_cost(u32 engine, u32 k, u32 level)
{
	static const u32 base[8] = { 4000, 2000, 1500, 3000, 400, 1000, 1000, 1000 };
	static const u32 step[8] = { 250, 100, 80, 150, 20, 50, 50, 50 };
	u32 cost = base[engine] + step[engine] * ((7 * k) % 32);

	return cost * 100 / (100 - 25 * level);
}

static u32 ref_seed(u64 seed, u32 model, u32 iteration, u32 engine)
{
	u64 z = seed ^ ((u64)model << 32) ^ ((u64)iteration << 8) ^ engine;

	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (u32)z | 1;
}

static u32 ref_xorshift(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static u64 ref_dma(u32 i)
{
	u64 bytes = 4096ULL << (i % 4);

	return 64 + (bytes + 31) / 32;
}

/* The expected timeline of one iteration. */
struct ref_iter {
	u64 t0, launch, engine_start, stop;
	u64 engine_end[NEURONPROF_MAX_ENGINES];
	u64 dma_end;
	u32 level;
};

#define REF_MAX_INSNS	64

static void ref_iteration(const struct nprof_sim_gen_program *p, u32 engines, u32 topsps,
			  u32 it, u64 t0, struct ref_iter *r,
			  u64 insn_ts[NEURONPROF_MAX_ENGINES][REF_MAX_INSNS])
{
	u64 done, ts;
	u32 e, i, x;

	memset(r, 0, sizeof(*r));
	r->t0 = t0;
	r->launch = t0 + 1000;
	r->level = p->throttle ? it % 3 + 1 : 0;
	r->engine_start = r->launch + (p->dma_transfers ? ref_dma(0) : 0);
	done = r->launch;
	for (e = 0; e < engines; e++) {
		if (!p->instructions[e])
			continue;
		x = ref_seed(p->seed, p->model_id, it, e);
		ts = r->engine_start;
		for (i = 0; i < p->instructions[e]; i++) {
			if (i < REF_MAX_INSNS)
				insn_ts[e][i] = ts;
			ts += ref_cost(e, i % 32, r->level) + (ref_xorshift(&x) & 511);
		}
		r->engine_end[e] = ts;
		done = max(done, ts);
	}
	ts = r->launch;
	for (i = 0; i < p->dma_transfers; i++)
		ts += ref_dma(i);
	r->dma_end = ts;
	done = max(done, ts);
	if (topsps)
		done = max(done, r->launch + 9000 + 1500 * (topsps - 1));
	r->stop = done + 500;
}

/* Every entry of a program at the time the model gives it, from a given start. */
static void sim_model_schedule(struct kunit *test)
{
	const struct sim_test_case *c = test->param_value;
	struct sim_test_rec *rec = sim_test_rec_new(test, SIM_TEST_MAX_RECORDS);
	u64 (*insn)[REF_MAX_INSNS] = kunit_kcalloc(test, NEURONPROF_MAX_ENGINES,
						   sizeof(*insn), GFP_KERNEL);
	struct nprof_sim_gen_program prog = c->prog;
	struct nprof_sim_run run = sim_test_case_run(c, rec);
	struct ref_iter r = { 0 };
	u32 it = U32_MAX, dma_i = 0, first_topsp = c->core * c->topsps_per_core;
	u64 next, dma_ts = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, insn);
	run.prog = &prog;
	run.start_ns = 1000000;
	next = run.start_ns;
	prog.seed = 0x5eed;
	KUNIT_ASSERT_EQ(test, nprof_sim_program_run(&run), 0);
	for (i = 0; i < rec->nr; i++) {
		const struct sim_test_record *q = &rec->recs[i];
		const struct neuronprof_notification *n = &q->n;
		u64 want;

		if (n->iteration != it) {
			it = n->iteration;
			ref_iteration(&prog, c->engines, c->topsps_per_core, it, next, &r, insn);
			next = r.stop + 2000;
			dma_i = 0;
			dma_ts = r.launch;
		}
		switch (q->q.type) {
		case NEURONPROF_QT_INFER_STATUS:
			want = n->code == NEURONPROF_INFER_START ? r.t0 : r.stop;
			break;
		case NEURONPROF_QT_EVENT:
			want = n->code == NPROF_SIM_EVENT_START ? r.engine_start :
			       r.engine_end[q->q.engine];
			break;
		case NEURONPROF_QT_TRACE:
			KUNIT_ASSERT_LT(test, n->payload[0] / 16, (u64)REF_MAX_INSNS);
			want = insn[q->q.engine][n->payload[0] / 16];
			break;
		case NEURONPROF_QT_DMA:
			KUNIT_EXPECT_EQ(test, n->payload[3], (u64)dma_i);
			dma_ts += ref_dma(dma_i++);
			want = dma_ts;
			break;
		case NEURONPROF_QT_THROTTLE:
			KUNIT_EXPECT_EQ(test, n->code, r.level);
			KUNIT_EXPECT_EQ(test, n->payload[0], 100ULL - 25 * r.level);
			want = r.t0;
			break;
		case NEURONPROF_QT_ERROR:
		case NEURONPROF_QT_TOPSP_ERROR:
			want = r.stop - 500;
			break;
		case NEURONPROF_QT_TOPSP_EVENT:
			want = n->code == NPROF_SIM_EVENT_START ? r.launch :
			       r.launch + 9000 + 1500 * (q->q.index - first_topsp);
			break;
		default:
			want = r.launch;
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, (u64)n->timestamp_ns, want,
				    "entry %u: type %u engine %u code %u iteration %u",
				    i, q->q.type, q->q.engine, n->code, it);
	}
	KUNIT_EXPECT_EQ(test, run.last_ts, r.stop);
}

/* The cost table: 32 distinct ops per engine, throttling stretches exactly. */
static void sim_model_costs(struct kunit *test)
{
	u32 e, k, j;

	KUNIT_EXPECT_EQ(test, nprof_sim_op_cost_ns(0, 0, 0), 4000U);
	KUNIT_EXPECT_EQ(test, nprof_sim_op_cost_ns(0, 1, 0), 5750U);
	KUNIT_EXPECT_EQ(test, nprof_sim_op_cost_ns(4, 31, 0), 400U + 20 * 25);
	for (e = 0; e < NEURONPROF_MAX_ENGINES; e++) {
		for (k = 0; k < 32; k++) {
			u32 full = nprof_sim_op_cost_ns(e, k, 0);

			KUNIT_EXPECT_EQ(test, full, ref_cost(e, k, 0));
			KUNIT_EXPECT_EQ(test, nprof_sim_op_cost_ns(e, k, 1), full * 4 / 3);
			KUNIT_EXPECT_EQ(test, nprof_sim_op_cost_ns(e, k, 2), full * 2);
			KUNIT_EXPECT_EQ(test, nprof_sim_op_cost_ns(e, k, 3), full * 4);
			for (j = 0; j < k; j++)
				KUNIT_EXPECT_NE(test, full, nprof_sim_op_cost_ns(e, j, 0));
		}
	}
	/* DMA: setup plus bytes at 32 bytes/ns, rounded up. */
	KUNIT_EXPECT_EQ(test, nprof_sim_dma_ns(4096), 64ULL + 128);
	KUNIT_EXPECT_EQ(test, nprof_sim_dma_ns(32768), 64ULL + 1024);
	KUNIT_EXPECT_EQ(test, nprof_sim_dma_ns(33), 64ULL + 2);
	KUNIT_EXPECT_EQ(test, nprof_sim_jitter_seed(0, 0, 0, 0), ref_seed(0, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, nprof_sim_jitter_seed(7, 9, 3, 2) & 1, 1U);
}

static u64 sim_model_stop_of(struct kunit *test, const struct nprof_sim_gen_program *p,
			     u32 engines, u64 *trace_sum)
{
	struct sim_test_rec *rec = sim_test_rec_new(test, SIM_TEST_MAX_RECORDS);
	struct nprof_sim_run run = sim_test_run(p, engines, 0, rec);
	u64 start = 0, stop = 0;
	unsigned int i;

	run.start_ns = 5000;
	KUNIT_EXPECT_EQ(test, nprof_sim_program_run(&run), 0);
	*trace_sum = 0;
	for (i = 0; i < rec->nr; i++) {
		const struct sim_test_record *r = &rec->recs[i];

		if (r->q.type == NEURONPROF_QT_EVENT && r->n.code == NPROF_SIM_EVENT_START)
			start = r->n.timestamp_ns;
		if (r->q.type == NEURONPROF_QT_EVENT && r->n.code == NPROF_SIM_EVENT_END)
			*trace_sum += r->n.timestamp_ns - start;
		if (r->q.type == NEURONPROF_QT_INFER_STATUS && r->n.code == NEURONPROF_INFER_STOP)
			stop = r->n.timestamp_ns;
	}
	return stop - 5000;
}

/*
 * Engines run concurrently and join at the end of the iteration; the DMA
 * engine takes its bytes at its bandwidth; a seed changes the jitter only.
 */
static void sim_model_concurrency(struct kunit *test)
{
	struct nprof_sim_gen_program one = { .iterations = 1, .instructions = { 64 } };
	struct nprof_sim_gen_program two = { .iterations = 1, .instructions = { 64, 64 } };
	struct nprof_sim_gen_program dma = { .iterations = 1, .instructions = { 1 },
					 .dma_transfers = 1000 };
	u64 busy1, busy2, len1, len2, lend, busyd, bytes = 0;
	u32 i;

	len1 = sim_model_stop_of(test, &one, 2, &busy1);
	len2 = sim_model_stop_of(test, &two, 2, &busy2);
	/* Engine 0 is the slower: adding engine 1 does not lengthen the iteration. */
	KUNIT_EXPECT_EQ(test, len1, len2);
	KUNIT_EXPECT_GT(test, busy2, busy1);
	KUNIT_EXPECT_EQ(test, len1, 1000 + busy1 + 500);
	/* 1000 transfers outlast one instruction: the iteration is the DMA's. */
	lend = sim_model_stop_of(test, &dma, 2, &busyd);
	for (i = 0; i < 1000; i++)
		bytes += 4096ULL << (i % 4);
	KUNIT_EXPECT_EQ(test, lend, 1000 + 1000 * 64 + bytes / 32 + 500);
	/* Same program and seed: same times; another seed: other jitter. */
	KUNIT_EXPECT_EQ(test, sim_model_stop_of(test, &one, 2, &busy2), len1);
	one.seed = 1;
	KUNIT_EXPECT_NE(test, sim_model_stop_of(test, &one, 2, &busy2), len1);
}

static const struct nprof_sim_gen_program sim_test_three_iterations = {
	.model_id = 9, .iterations = 3, .instructions = { 2, 2 }, .dma_transfers = 1,
};

/* An emit error stops the run at once and is returned. */
static void sim_program_emit_error_stops(struct kunit *test)
{
	struct sim_test_rec *rec = sim_test_rec_new(test, SIM_TEST_MAX_RECORDS);
	struct nprof_sim_run run = sim_test_run(&sim_test_three_iterations, 4, 3, rec);

	rec->fail_at = 5;
	KUNIT_EXPECT_EQ(test, nprof_sim_program_run(&run), -EIO);
	KUNIT_EXPECT_EQ(test, rec->nr, 5U);
	KUNIT_EXPECT_EQ(test, run.emitted, 5ULL);
	KUNIT_EXPECT_EQ(test, run.iteration, 0U);
}

/* poll runs before every iteration and can stop between two of them. */
static void sim_program_poll_between_iterations(struct kunit *test)
{
	struct sim_test_rec *rec = sim_test_rec_new(test, SIM_TEST_MAX_RECORDS);
	struct nprof_sim_run run = sim_test_run(&sim_test_three_iterations, 4, 3, rec);
	u64 per_iteration = nprof_sim_program_count(&sim_test_three_iterations, 4, 3, NULL) / 3;
	unsigned int i;

	run.poll = sim_test_poll;
	rec->stop_iteration = 2;
	KUNIT_EXPECT_EQ(test, nprof_sim_program_run(&run), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, rec->polls_boundary, 3ULL);
	KUNIT_EXPECT_EQ(test, (u64)rec->nr, 2 * per_iteration);
	for (i = 0; i < rec->nr; i++)
		KUNIT_EXPECT_LT(test, rec->recs[i].n.iteration, 2U);
	/* The last entry generated closed its iteration. */
	KUNIT_EXPECT_EQ(test, rec->recs[rec->nr - 1].n.code, (u32)NEURONPROF_INFER_STOP);
}

/* Long iterations poll every NPROF_SIM_POLL_INTERVAL notifications. */
static void sim_program_poll_mid_iteration(struct kunit *test)
{
	static const struct nprof_sim_gen_program prog = {
		.iterations = 1, .instructions = { 3 * NPROF_SIM_POLL_INTERVAL },
	};
	struct sim_test_rec *rec = sim_test_rec_new(test, 4 * NPROF_SIM_POLL_INTERVAL);
	struct nprof_sim_run run = sim_test_run(&prog, 1, 0, rec);

	run.poll = sim_test_poll;
	KUNIT_ASSERT_EQ(test, nprof_sim_program_run(&run), 0);
	/* 3 * interval TRACE + 2 EVENT + 2 INFER_STATUS entries. */
	KUNIT_EXPECT_EQ(test, run.emitted, 3ULL * NPROF_SIM_POLL_INTERVAL + 4);
	KUNIT_EXPECT_EQ(test, rec->polls_mid, 3ULL);
	KUNIT_EXPECT_EQ(test, rec->polls_boundary, 1ULL);
}

/* A run that cannot be generated is refused before anything is emitted. */
static void sim_program_bad_run(struct kunit *test)
{
	struct sim_test_rec *rec = sim_test_rec_new(test, 16);
	struct nprof_sim_run run = sim_test_run(&sim_test_three_iterations, 0, 0, rec);

	KUNIT_EXPECT_EQ(test, nprof_sim_program_run(&run), -EINVAL);
	run.engines = NEURONPROF_MAX_ENGINES + 1;
	KUNIT_EXPECT_EQ(test, nprof_sim_program_run(&run), -EINVAL);
	run.engines = 1;
	run.emit = NULL;
	KUNIT_EXPECT_EQ(test, nprof_sim_program_run(&run), -EINVAL);
	KUNIT_EXPECT_EQ(test, rec->nr, 0U);
}

static void sim_program_arch_topologies(struct kunit *test)
{
	static const struct { const char *name; u32 arch, cores, topsps, engines; } want[] = {
		{ "trn1", NEURONPROF_ARCH_TRN1, 2, 6, 4 },
		{ "inf2", NEURONPROF_ARCH_INF2, 2, 6, 4 },
		{ "trn2", NEURONPROF_ARCH_TRN2, 8, 16, 5 },
	};
	struct neuronprof_code_name *names;
	struct nprof_device_desc desc;
	unsigned int i;

	names = kunit_kcalloc(test, NPROF_SIM_MAX_CODE_NAMES, sizeof(*names), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, names);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		const struct nprof_sim_arch *a = nprof_sim_arch_by_name(want[i].name);

		KUNIT_ASSERT_NOT_NULL(test, a);
		KUNIT_EXPECT_PTR_EQ(test, nprof_sim_arch_by_id(want[i].arch), a);
		nprof_sim_fill_desc(a, &desc, names);
		/* 32 opcodes per engine, 16 DMA queues, the TopSP opcode. */
		KUNIT_EXPECT_PTR_EQ(test, (const void *)desc.code_names, (const void *)names);
		KUNIT_EXPECT_EQ(test, desc.num_code_names, want[i].engines * 32 + 16 + 1);
		KUNIT_EXPECT_STREQ(test, desc.provider, "sim");
		KUNIT_EXPECT_EQ(test, desc.arch, want[i].arch);
		KUNIT_EXPECT_EQ(test, desc.num_cores, want[i].cores);
		KUNIT_EXPECT_EQ(test, desc.num_topsps, want[i].topsps);
		KUNIT_EXPECT_EQ(test, desc.engines_per_core, want[i].engines);
		KUNIT_EXPECT_EQ(test, desc.core_queue_types, 0x3fU);
		KUNIT_EXPECT_EQ(test, desc.topsp_queue_types, 0x1c0U);
		KUNIT_EXPECT_EQ(test, desc.per_engine_queue_types, 0x13U);
		KUNIT_EXPECT_EQ(test, desc.min_ring_size, (u64)PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, desc.max_ring_size, 64ULL << 20);
		KUNIT_EXPECT_EQ(test, desc.caps,
				NEURONPROF_CAP_SIM_EXEC | NEURONPROF_CAP_FLUSH);
	}
	KUNIT_EXPECT_NULL(test, nprof_sim_arch_by_name("inf1"));
	KUNIT_EXPECT_NULL(test, nprof_sim_arch_by_name("TRN2"));
	KUNIT_EXPECT_NULL(test, nprof_sim_arch_by_id(0));
	KUNIT_EXPECT_NULL(test, nprof_sim_arch_by_id(4));
}

/*
 * The name table: what the core accepts (sorted, valid names), naming
 * every opcode and DMA queue the program produces after the NKI families.
 */
static void sim_program_code_names(struct kunit *test)
{
	const struct nprof_sim_arch *a = nprof_sim_arch_by_name("trn2");
	struct neuronprof_code_name *names;
	struct nprof_hw_ops ops = tp_ops;
	struct nprof_device_desc desc;
	const char *why = NULL;
	u32 n, i;

	names = kunit_kcalloc(test, NPROF_SIM_MAX_CODE_NAMES, sizeof(*names), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, names);
	KUNIT_ASSERT_NOT_NULL(test, a);
	nprof_sim_fill_desc(a, &desc, names);
	/* The test provider's callbacks, and the sim_exec the capabilities need. */
	ops.sim_exec = tp_sim_exec;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &ops, &why), 0);
	n = desc.num_code_names;
	KUNIT_ASSERT_EQ(test, n, 5U * 32 + 16 + 1);
	/* Opcode (e + 1) << 8 | k of engine e, in order. */
	for (i = 0; i < 5 * 32; i++) {
		KUNIT_EXPECT_EQ(test, names[i].queue_type, (u32)NEURONPROF_QT_TRACE);
		KUNIT_EXPECT_EQ(test, names[i].code, (i / 32 + 1) << 8 | (i % 32));
		KUNIT_EXPECT_STREQ(test, names[i].name, nprof_sim_op_name(i / 32, i % 32));
	}
	KUNIT_EXPECT_STREQ(test, names[0].name, "matmult");
	KUNIT_EXPECT_STREQ(test, names[3].name, "transpose");
	KUNIT_EXPECT_STREQ(test, names[32].name, "tensor_tensor");
	KUNIT_EXPECT_STREQ(test, names[33].name, "tensor_scalar");
	KUNIT_EXPECT_STREQ(test, names[64].name, "activation");
	KUNIT_EXPECT_STREQ(test, names[96].name, "iota");
	KUNIT_EXPECT_STREQ(test, names[128].name, "sync_wait");
	for (i = 0; i < 16; i++) {
		KUNIT_EXPECT_EQ(test, names[160 + i].queue_type, (u32)NEURONPROF_QT_DMA);
		KUNIT_EXPECT_EQ(test, names[160 + i].code, i);
		KUNIT_EXPECT_STREQ(test, names[160 + i].name, "dma_copy");
	}
	KUNIT_EXPECT_EQ(test, names[176].queue_type, (u32)NEURONPROF_QT_TOPSP_TRACE);
	KUNIT_EXPECT_EQ(test, names[176].code, 0x7f01U);
	KUNIT_EXPECT_STREQ(test, names[176].name, "collective");
	/* Opcodes wrap every 32, like the program's. */
	KUNIT_EXPECT_STREQ(test, nprof_sim_op_name(1, 33), nprof_sim_op_name(1, 1));
}

static void sim_program_parse_new_device(struct kunit *test)
{
	static const char * const bad[] = {
		"", "\n", "   ", "x", "-1", "3x", "0x10", "2147483648", "4294967296",
		"3 trn9", "3 trn1 extra", "3 TRN1", "3 trn1 inf2",
	};
	const struct nprof_sim_arch *arch;
	unsigned int i;
	u32 id;

	KUNIT_EXPECT_EQ(test, nprof_sim_parse_new_device("3", &id, &arch), 0);
	KUNIT_EXPECT_EQ(test, id, 3U);
	/* Without an architecture: that of the arch parameter. */
	KUNIT_EXPECT_NOT_NULL(test, arch);
	KUNIT_EXPECT_EQ(test, nprof_sim_parse_new_device("12 trn1\n", &id, &arch), 0);
	KUNIT_EXPECT_EQ(test, id, 12U);
	KUNIT_EXPECT_PTR_EQ(test, arch, nprof_sim_arch_by_name("trn1"));
	KUNIT_EXPECT_EQ(test, nprof_sim_parse_new_device("  7\tinf2  ", &id, &arch), 0);
	KUNIT_EXPECT_EQ(test, id, 7U);
	KUNIT_EXPECT_PTR_EQ(test, arch, nprof_sim_arch_by_name("inf2"));
	KUNIT_EXPECT_EQ(test, nprof_sim_parse_new_device("2147483647 trn2", &id, &arch), 0);
	KUNIT_EXPECT_EQ(test, id, (u32)INT_MAX);

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, nprof_sim_parse_new_device(bad[i], &id, &arch),
				    -EINVAL, "input \"%s\"", bad[i]);
}

struct kunit_case nprof_sim_program_cases[] = {
	KUNIT_CASE_PARAM(sim_program_counts, sim_program_gen_params),
	KUNIT_CASE_PARAM(sim_program_ordering, sim_program_gen_params),
	KUNIT_CASE_PARAM(sim_program_timestamps, sim_program_gen_params),
	KUNIT_CASE_PARAM(sim_model_schedule, sim_program_gen_params),
	KUNIT_CASE(sim_model_costs),
	KUNIT_CASE(sim_model_concurrency),
	KUNIT_CASE(sim_program_emit_error_stops),
	KUNIT_CASE(sim_program_poll_between_iterations),
	KUNIT_CASE(sim_program_poll_mid_iteration),
	KUNIT_CASE(sim_program_bad_run),
	KUNIT_CASE(sim_program_arch_topologies),
	KUNIT_CASE(sim_program_code_names),
	KUNIT_CASE(sim_program_parse_new_device),
	{}
};
