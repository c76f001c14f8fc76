// SPDX-License-Identifier: GPL-2.0
/*
 * The program generator of neuronprof_sim: turns a synthetic program into
 * the exact sequence of notifications that a NeuronCore and the TopSPs
 * serving it produce. It knows nothing about devices or rings and hands every
 * notification to run->emit, so KUnit checks the sequences without a device
 * and device.c decides where they go. Documentation/simulator.rst describes
 * the sequence; keep both in step.
 */

#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "sim.h"

/* Synthetic values: plausible shapes, never addresses of this machine. */
#define NPROF_SIM_INSN_BYTES		16
#define NPROF_SIM_OPCODES_PER_ENGINE	32
#define NPROF_SIM_DMA_QUEUES		16
#define NPROF_SIM_DMA_MIN_BYTES		4096
#define NPROF_SIM_DMA_SRC_BASE		0x0000004000000000ULL
#define NPROF_SIM_DMA_DST_BASE		0x0000008000000000ULL
#define NPROF_SIM_DMA_STRIDE		0x10000
#define NPROF_SIM_THROTTLE_LEVELS	3
#define NPROF_SIM_TOPSP_OPCODE		0x7f01

/*
 * Strictly increasing, not merely non-decreasing: two entries of one queue
 * never share a timestamp, even where the clock is coarse, so consumers may
 * sort by it. run->last_ts carries the floor across executions of a core.
 *
 * The clock is read once per NPROF_SIM_CLOCK_INTERVAL notifications; the
 * ones in between are stamped 1 ns after their predecessor. Producing a
 * notification takes longer than 1 ns, so no timestamp runs ahead of the
 * clock, and a reader still sees the time an execution took.
 */
static u64 nprof_sim_timestamp(struct nprof_sim_run *run)
{
	u64 now;

	if (run->clock_left) {
		run->clock_left--;
		return ++run->last_ts;
	}
	run->clock_left = NPROF_SIM_CLOCK_INTERVAL - 1;
	now = ktime_get_ns();
	if (now <= run->last_ts)
		now = run->last_ts + 1;
	run->last_ts = now;
	return now;
}

static void nprof_sim_fill(struct nprof_sim_run *run, struct neuronprof_notification *n,
			   u32 type, u32 engine, u32 code, u64 p0, u64 p1, u64 p2, u64 p3)
{
	*n = (struct neuronprof_notification) {
		.timestamp_ns = nprof_sim_timestamp(run),
		.queue_type = type,
		.engine = engine,
		.code = code,
		.model_id = run->prog->model_id,
		.iteration = run->iteration,
		.payload = { p0, p1, p2, p3 },
	};
}

/* @count more notifications were emitted: poll every NPROF_SIM_POLL_INTERVAL. */
static int nprof_sim_emitted(struct nprof_sim_run *run, u32 count)
{
	u64 before = run->emitted;

	run->emitted += count;
	if (before / NPROF_SIM_POLL_INTERVAL == run->emitted / NPROF_SIM_POLL_INTERVAL)
		return 0;
	/* A program can produce 2^26 entries: let others run meanwhile. */
	cond_resched();
	return run->poll ? run->poll(run, false) : 0;
}

static int nprof_sim_put(struct nprof_sim_run *run, u32 kind, u32 index,
			 u32 type, u32 engine, u32 code,
			 u64 p0, u64 p1, u64 p2, u64 p3)
{
	const struct nprof_queue_id q = {
		.kind = kind,
		.index = index,
		.type = type,
		.engine = engine,
	};
	struct neuronprof_notification n;
	int ret;

	nprof_sim_fill(run, &n, type, engine, code, p0, p1, p2, p3);
	ret = run->emit(run, &q, &n);
	if (ret)
		return ret;
	return nprof_sim_emitted(run, 1);
}

static int nprof_sim_put_core(struct nprof_sim_run *run, u32 type, u32 engine,
			      u32 code, u64 p0, u64 p1, u64 p2, u64 p3)
{
	return nprof_sim_put(run, NEURONPROF_TARGET_CORE, run->core, type,
			     engine, code, p0, p1, p2, p3);
}

static int nprof_sim_put_topsp(struct nprof_sim_run *run, u32 topsp, u32 type,
			       u32 code, u64 p0)
{
	return nprof_sim_put(run, NEURONPROF_TARGET_TOPSP, topsp, type, 0, code,
			     p0, 0, 0, 0);
}

/* One TRACE entry per instruction; payload: pc, two operands, immediate. */
static void nprof_sim_fill_trace(struct nprof_sim_run *run, struct neuronprof_notification *n,
				 u32 engine, u32 i)
{
	u32 opcode = (engine + 1) << 8 | (i % NPROF_SIM_OPCODES_PER_ENGINE);

	nprof_sim_fill(run, n, NEURONPROF_QT_TRACE, engine, opcode,
		       (u64)i * NPROF_SIM_INSN_BYTES, i % 64, (i + 1) % 64,
		       i ^ run->iteration);
}

/*
 * The TRACE entries of an engine, up to NPROF_SIM_BATCH at a time, built
 * where @run->reserve says (in place in a ring): what does not fit is
 * produced all the same and counted as lost by @run->commit.
 */
static int nprof_sim_trace_reserved(struct nprof_sim_run *run, u32 engine, u32 insns)
{
	const struct nprof_queue_id q = {
		.kind = NEURONPROF_TARGET_CORE,
		.index = run->core,
		.type = NEURONPROF_QT_TRACE,
		.engine = engine,
	};
	struct neuronprof_notification *dst;
	u32 i = 0, j, want, got, produced;
	u64 seq;
	int ret;

	while (i < insns) {
		want = min_t(u32, insns - i, NPROF_SIM_BATCH);
		got = 0;
		dst = run->reserve(run, &q, want, &got, &seq);
		for (j = 0; dst && j < got; j++) {
			nprof_sim_fill_trace(run, &dst[j], engine, i + j);
			dst[j].seq = seq + j;
		}
		produced = dst && got ? got : want;
		ret = run->commit(run, &q, dst ? got : 0, produced);
		if (!ret)
			ret = nprof_sim_emitted(run, produced);
		if (ret)
			return ret;
		i += produced;
	}
	return 0;
}

static int nprof_sim_engine(struct nprof_sim_run *run, u32 engine)
{
	u32 insns = run->prog->instructions[engine];
	const struct nprof_queue_id q = {
		.kind = NEURONPROF_TARGET_CORE,
		.index = run->core,
		.type = NEURONPROF_QT_TRACE,
		.engine = engine,
	};
	struct neuronprof_notification n;
	u32 i;
	int ret;

	ret = nprof_sim_put_core(run, NEURONPROF_QT_EVENT, engine,
				 NPROF_SIM_EVENT_START, insns, 0, 0, 0);
	if (!ret && run->reserve)
		ret = nprof_sim_trace_reserved(run, engine, insns);
	for (i = 0; !ret && !run->reserve && i < insns; i++) {
		nprof_sim_fill_trace(run, &n, engine, i);
		ret = run->emit(run, &q, &n);
		if (!ret)
			ret = nprof_sim_emitted(run, 1);
	}
	if (ret)
		return ret;
	return nprof_sim_put_core(run, NEURONPROF_QT_EVENT, engine,
				  NPROF_SIM_EVENT_END, insns, 0, 0, 0);
}

static int nprof_sim_dma(struct nprof_sim_run *run)
{
	u32 i;
	int ret;

	for (i = 0; i < run->prog->dma_transfers; i++) {
		u64 off = (u64)i * NPROF_SIM_DMA_STRIDE;

		/* payload: bytes, source, destination, descriptor index. */
		ret = nprof_sim_put_core(run, NEURONPROF_QT_DMA, i % run->engines,
					 i % NPROF_SIM_DMA_QUEUES,
					 NPROF_SIM_DMA_MIN_BYTES << (i % 4),
					 NPROF_SIM_DMA_SRC_BASE + off,
					 NPROF_SIM_DMA_DST_BASE + off, i);
		if (ret)
			return ret;
	}
	return 0;
}

static int nprof_sim_topsps(struct nprof_sim_run *run)
{
	u32 first = run->core * run->topsps_per_core;
	u32 t;
	int ret;

	for (t = first; t < first + run->topsps_per_core; t++) {
		ret = nprof_sim_put_topsp(run, t, NEURONPROF_QT_TOPSP_EVENT,
					  NPROF_SIM_EVENT_START, t);
		if (!ret)
			ret = nprof_sim_put_topsp(run, t, NEURONPROF_QT_TOPSP_TRACE,
						  NPROF_SIM_TOPSP_OPCODE, t);
		if (!ret)
			ret = nprof_sim_put_topsp(run, t, NEURONPROF_QT_TOPSP_EVENT,
						  NPROF_SIM_EVENT_END, t);
		if (ret)
			return ret;
	}
	return 0;
}

static int nprof_sim_iteration(struct nprof_sim_run *run)
{
	const struct nprof_sim_program *prog = run->prog;
	bool raise = prog->error && run->iteration == prog->iterations - 1;
	u32 status = raise ? NPROF_SIM_EXEC_ERROR_STATUS : 0;
	u32 e;
	int ret;

	ret = nprof_sim_put_core(run, NEURONPROF_QT_INFER_STATUS, 0,
				 NEURONPROF_INFER_START, prog->iterations, 0, 0, 0);
	for (e = 0; !ret && e < run->engines; e++)
		if (prog->instructions[e])
			ret = nprof_sim_engine(run, e);
	if (!ret)
		ret = nprof_sim_dma(run);
	if (!ret && prog->throttle) {
		u32 level = run->iteration % NPROF_SIM_THROTTLE_LEVELS + 1;

		/* code: throttle level; payload: percent of full clock. */
		ret = nprof_sim_put_core(run, NEURONPROF_QT_THROTTLE, 0, level,
					 100 - 25 * level, 0, 0, 0);
	}
	if (!ret)
		ret = nprof_sim_topsps(run);
	if (!ret && raise) {
		ret = nprof_sim_put_core(run, NEURONPROF_QT_ERROR, 0, status,
					 run->iteration, 0, 0, 0);
		if (!ret && run->topsps_per_core)
			ret = nprof_sim_put_topsp(run,
						  run->core * run->topsps_per_core,
						  NEURONPROF_QT_TOPSP_ERROR, status,
						  run->iteration);
		if (!ret)
			run->status = status;
	}
	if (ret)
		return ret;
	return nprof_sim_put_core(run, NEURONPROF_QT_INFER_STATUS, 0,
				  NEURONPROF_INFER_STOP, status, 0, 0, 0);
}

/**
 * nprof_sim_program_run() - generate every notification of a program.
 * @run: the program, where it runs and where notifications go; @run->emit
 *	must be set, the out members are updated.
 *
 * Per iteration: INFER_STATUS start; per engine with instructions an EVENT
 * start, one TRACE per instruction and an EVENT end; the DMA transfers spread
 * round-robin over the engines; THROTTLE when throttling; per TopSP serving
 * the core a TOPSP_EVENT start, a TOPSP_TRACE and a TOPSP_EVENT end; in the
 * last iteration of an erroring program an ERROR and a TOPSP_ERROR (first
 * TopSP of the core); INFER_STATUS stop with payload[0] = status.
 *
 * Return: 0 when every iteration was generated, else the first non-zero value
 * returned by @run->emit or @run->poll, or -EINVAL for an impossible run.
 */
int nprof_sim_program_run(struct nprof_sim_run *run)
{
	int ret;

	if (!run->emit || !run->prog || !run->engines || !run->reserve != !run->commit ||
	    run->engines > NEURONPROF_MAX_ENGINES)
		return -EINVAL;

	run->status = 0;
	run->clock_left = 0;	/* every run starts with a clock read */
	for (run->iteration = 0; run->iteration < run->prog->iterations;
	     run->iteration++) {
		if (run->poll) {
			ret = run->poll(run, true);
			if (ret)
				return ret;
		}
		ret = nprof_sim_iteration(run);
		if (ret)
			return ret;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_program_run);

/**
 * nprof_sim_program_count() - notifications a program produces.
 * @prog: the program.
 * @engines: engines of the core; instructions beyond it are ignored.
 * @topsps_per_core: TopSPs serving the core.
 * @counts: out, per queue type; may be NULL.
 *
 * The closed form of what nprof_sim_program_run() emits, used to bound a
 * program before running it and documented in Documentation/simulator.rst.
 *
 * Return: the total.
 */
u64 nprof_sim_program_count(const struct nprof_sim_program *prog, u32 engines,
			    u32 topsps_per_core, u64 counts[NEURONPROF_QT_COUNT])
{
	u64 c[NEURONPROF_QT_COUNT] = { 0 };
	u64 iters = prog->iterations;
	u64 total = 0;
	u32 e, t;

	for (e = 0; e < min_t(u32, engines, NEURONPROF_MAX_ENGINES); e++) {
		if (!prog->instructions[e])
			continue;
		c[NEURONPROF_QT_EVENT] += 2 * iters;
		c[NEURONPROF_QT_TRACE] += iters * prog->instructions[e];
	}
	c[NEURONPROF_QT_INFER_STATUS] = 2 * iters;
	c[NEURONPROF_QT_DMA] = iters * prog->dma_transfers;
	c[NEURONPROF_QT_THROTTLE] = prog->throttle ? iters : 0;
	c[NEURONPROF_QT_TOPSP_EVENT] = 2 * iters * topsps_per_core;
	c[NEURONPROF_QT_TOPSP_TRACE] = iters * topsps_per_core;
	if (prog->error && iters) {
		c[NEURONPROF_QT_ERROR] = 1;
		c[NEURONPROF_QT_TOPSP_ERROR] = topsps_per_core ? 1 : 0;
	}
	for (t = 0; t < NEURONPROF_QT_COUNT; t++) {
		total += c[t];
		if (counts)
			counts[t] = c[t];
	}
	return total;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_program_count);
