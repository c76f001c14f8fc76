// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: program generator
 *
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
#include <linux/string.h>
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
#define NPROF_SIM_TOPSP_OPCODE		0x7f01

/*
 * The device-time model (Documentation/simulator.rst, "Device time").
 * Timestamps are the model's clock: an execution starts at one read of the
 * host clock (run->start_ns), and every entry is placed from there by what
 * the program does, whatever the host does meanwhile.
 *
 * Costs of an instruction of engine e with opcode low bits k (i % 32):
 * nprof_sim_op_base[e] + nprof_sim_op_step[e] * ((7 * k) % 32) ns, so the
 * 32 ops of an engine each have their own cost; throttled at level L the
 * cost is stretched to cost * 100 / (100 - 25 * L), rounded down. Each
 * instruction then adds a jitter of 0 to NPROF_SIM_JITTER_MASK ns drawn
 * from a xorshift32 generator seeded per engine and iteration from the
 * program's seed (nprof_sim_jitter_seed()).
 */
static const u16 nprof_sim_op_base[NEURONPROF_MAX_ENGINES] = {
	4000, 2000, 1500, 3000, 400, 1000, 1000, 1000,
};

static const u16 nprof_sim_op_step[NEURONPROF_MAX_ENGINES] = {
	250, 100, 80, 150, 20, 50, 50, 50,
};

/**
 * nprof_sim_op_cost_ns() - the model's cost of one op, without jitter.
 * @engine: engine index, below NEURONPROF_MAX_ENGINES.
 * @op: opcode low bits, below 32 (others are taken modulo 32).
 * @level: throttle level 0 (none) to 3.
 *
 * Return: nanoseconds.
 */
u32 nprof_sim_op_cost_ns(u32 engine, u32 op, u32 level)
{
	u32 cost;

	if (engine >= NEURONPROF_MAX_ENGINES)
		engine = NEURONPROF_MAX_ENGINES - 1;
	cost = nprof_sim_op_base[engine] +
	       nprof_sim_op_step[engine] * ((7 * op) % NPROF_SIM_OPCODES_PER_ENGINE);
	if (level > NPROF_SIM_THROTTLE_LEVELS)
		level = NPROF_SIM_THROTTLE_LEVELS;
	return cost * 100 / nprof_sim_throttle_pct(level);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_op_cost_ns);

/*
 * The names of the simulator's codes (NEURONPROF_INFO_CODE_NAMES,
 * Documentation/simulator.rst "Op names"). An engine's 32 opcodes are
 * spread over the instruction families of the public NKI ISA that engine
 * executes (nki.isa: nc_matmul is "matmult" as the profilers spell it);
 * opcode k of engine e is family k % n of that engine's n families, so a
 * family has several opcodes, each with its own cost. The sync engine of
 * NeuronCore-v3 and engines 5-7 have no public instruction names: theirs
 * are ours ("sync_wait", ...). DMA codes are queues of dma_copy transfers;
 * the TopSP's one opcode is a collective step.
 */
static const char * const nprof_sim_families_tensor[] = {
	"matmult", "matmult", "matmult", "transpose",
};

static const char * const nprof_sim_families_vector[] = {
	"tensor_tensor", "tensor_scalar", "tensor_reduce", "tensor_copy",
	"bn_stats", "bn_aggr", "tensor_tensor_scan", "select_reduce",
};

static const char * const nprof_sim_families_scalar[] = {
	"activation", "activation", "activation_reduce", "tensor_scalar",
};

static const char * const nprof_sim_families_gpsimd[] = {
	"iota", "memset", "affine_select", "local_gather", "range_select", "tensor_copy",
	"tensor_tensor", "tensor_scalar",
};

static const char * const nprof_sim_families_other[] = { "sync_wait", "sync_signal" };

static const struct {
	const char * const *names;
	u32 count;
} nprof_sim_families[NEURONPROF_MAX_ENGINES] = {
	{ nprof_sim_families_tensor, ARRAY_SIZE(nprof_sim_families_tensor) },
	{ nprof_sim_families_vector, ARRAY_SIZE(nprof_sim_families_vector) },
	{ nprof_sim_families_scalar, ARRAY_SIZE(nprof_sim_families_scalar) },
	{ nprof_sim_families_gpsimd, ARRAY_SIZE(nprof_sim_families_gpsimd) },
	{ nprof_sim_families_other, ARRAY_SIZE(nprof_sim_families_other) },
	{ nprof_sim_families_other, ARRAY_SIZE(nprof_sim_families_other) },
	{ nprof_sim_families_other, ARRAY_SIZE(nprof_sim_families_other) },
	{ nprof_sim_families_other, ARRAY_SIZE(nprof_sim_families_other) },
};

/**
 * nprof_sim_op_name() - the name of an engine's opcode.
 * @engine: engine index, below NEURONPROF_MAX_ENGINES.
 * @op: opcode low bits (taken modulo 32).
 *
 * Return: the static name.
 */
const char *nprof_sim_op_name(u32 engine, u32 op)
{
	if (engine >= NEURONPROF_MAX_ENGINES)
		engine = NEURONPROF_MAX_ENGINES - 1;
	op %= NPROF_SIM_OPCODES_PER_ENGINE;
	return nprof_sim_families[engine].names[op % nprof_sim_families[engine].count];
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_op_name);

static void nprof_sim_name(struct neuronprof_code_name *c, u32 type, u32 code,
			   const char *name)
{
	memset(c, 0, sizeof(*c));
	c->queue_type = type;
	c->code = code;
	strscpy(c->name, name, sizeof(c->name));
}

/**
 * nprof_sim_code_names() - the name table of a device with @engines engines.
 * @engines: engines per core, 1 to NEURONPROF_MAX_ENGINES.
 * @out: NPROF_SIM_MAX_CODE_NAMES entries, filled sorted by (queue_type, code).
 *
 * Return: the entries filled.
 */
u32 nprof_sim_code_names(u32 engines, struct neuronprof_code_name *out)
{
	u32 n = 0, e, k;

	for (e = 0; e < engines && e < NEURONPROF_MAX_ENGINES; e++)
		for (k = 0; k < NPROF_SIM_OPCODES_PER_ENGINE; k++)
			nprof_sim_name(&out[n++], NEURONPROF_QT_TRACE, (e + 1) << 8 | k,
				       nprof_sim_op_name(e, k));
	for (k = 0; k < NPROF_SIM_DMA_QUEUES; k++)
		nprof_sim_name(&out[n++], NEURONPROF_QT_DMA, k, "dma_copy");
	nprof_sim_name(&out[n++], NEURONPROF_QT_TOPSP_TRACE, NPROF_SIM_TOPSP_OPCODE,
		       "collective");
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_code_names);

/**
 * nprof_sim_dma_ns() - the model's time of one DMA transfer.
 * @bytes: its size.
 *
 * Return: NPROF_SIM_DMA_SETUP_NS plus @bytes at NPROF_SIM_DMA_BYTES_PER_NS,
 * rounded up.
 */
u64 nprof_sim_dma_ns(u64 bytes)
{
	return NPROF_SIM_DMA_SETUP_NS + DIV_ROUND_UP_ULL(bytes, NPROF_SIM_DMA_BYTES_PER_NS);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_dma_ns);

/**
 * nprof_sim_jitter_seed() - first state of an engine's jitter generator.
 * @seed: the program's seed.
 * @model_id: the program's model id.
 * @iteration: the iteration.
 * @engine: the engine.
 *
 * The splitmix64 finaliser of seed ^ model_id << 32 ^ iteration << 8 ^
 * engine, its low 32 bits with bit 0 set (xorshift32 needs a non-zero state).
 *
 * Return: the state.
 */
u32 nprof_sim_jitter_seed(u64 seed, u32 model_id, u32 iteration, u32 engine)
{
	u64 z = seed ^ (u64)model_id << 32 ^ (u64)iteration << 8 ^ engine;

	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (u32)z | 1;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_jitter_seed);

/* An engine's clock through one iteration. */
struct nprof_sim_engine_clock {
	u64 ts;		/* start of the next instruction */
	u32 rnd;	/* xorshift32 state */
	u32 cost[NPROF_SIM_OPCODES_PER_ENGINE];
};

static void nprof_sim_clock_init(struct nprof_sim_run *run, u32 engine,
				 struct nprof_sim_engine_clock *c)
{
	u32 k;

	c->ts = run->engine_start;
	c->rnd = nprof_sim_jitter_seed(run->prog->seed, run->prog->model_id,
				       run->iteration, engine);
	for (k = 0; k < NPROF_SIM_OPCODES_PER_ENGINE; k++)
		c->cost[k] = nprof_sim_op_cost_ns(engine, k, run->level);
}

/* Start of instruction @i, advancing the clock past it. */
static inline u64 nprof_sim_clock_next(struct nprof_sim_engine_clock *c, u32 i)
{
	u64 ts = c->ts;
	u32 x = c->rnd;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	c->rnd = x;
	c->ts += c->cost[i % NPROF_SIM_OPCODES_PER_ENGINE] + (x & NPROF_SIM_JITTER_MASK);
	return ts;
}

static void nprof_sim_fill_ts(struct nprof_sim_run *run, struct neuronprof_notification *n,
			      u64 ts, u32 type, u32 engine, u32 code,
			      u64 p0, u64 p1, u64 p2, u64 p3)
{
	*n = (struct neuronprof_notification) {
		.timestamp_ns = ts,
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

static int nprof_sim_put(struct nprof_sim_run *run, u64 ts, u32 kind, u32 index,
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

	nprof_sim_fill_ts(run, &n, ts, type, engine, code, p0, p1, p2, p3);
	if (ts > run->last_ts)
		run->last_ts = ts;
	ret = run->emit(run, &q, &n);
	if (ret)
		return ret;
	return nprof_sim_emitted(run, 1);
}

static int nprof_sim_put_core(struct nprof_sim_run *run, u64 ts, u32 type, u32 engine,
			      u32 code, u64 p0, u64 p1, u64 p2, u64 p3)
{
	return nprof_sim_put(run, ts, NEURONPROF_TARGET_CORE, run->core, type,
			     engine, code, p0, p1, p2, p3);
}

static int nprof_sim_put_topsp(struct nprof_sim_run *run, u64 ts, u32 topsp, u32 type,
			       u32 code, u64 p0)
{
	return nprof_sim_put(run, ts, NEURONPROF_TARGET_TOPSP, topsp, type, 0, code,
			     p0, 0, 0, 0);
}

/* One TRACE entry per instruction; payload: pc, two operands, immediate. */
static void nprof_sim_fill_trace(struct nprof_sim_run *run, struct neuronprof_notification *n,
				 u64 ts, u32 engine, u32 i)
{
	u32 opcode = (engine + 1) << 8 | (i % NPROF_SIM_OPCODES_PER_ENGINE);

	nprof_sim_fill_ts(run, n, ts, NEURONPROF_QT_TRACE, engine, opcode,
			  (u64)i * NPROF_SIM_INSN_BYTES, i % 64, (i + 1) % 64,
			  i ^ run->iteration);
}

/*
 * The TRACE entries of an engine, up to NPROF_SIM_BATCH at a time, built
 * where @run->reserve says (in place in a ring): what does not fit is
 * produced all the same and counted as lost by @run->commit. Entries that
 * are not built still take their time on the engine's clock.
 */
static int nprof_sim_trace_reserved(struct nprof_sim_run *run, u32 engine, u32 insns,
				    struct nprof_sim_engine_clock *clk)
{
	const struct nprof_queue_id q = {
		.kind = NEURONPROF_TARGET_CORE,
		.index = run->core,
		.type = NEURONPROF_QT_TRACE,
		.engine = engine,
	};
	struct neuronprof_notification *dst;
	u32 i = 0, j, want, got, produced, written;
	u64 seq;
	int ret;

	while (i < insns) {
		want = min_t(u32, insns - i, NPROF_SIM_BATCH);
		got = 0;
		dst = run->reserve(run, &q, want, &got, &seq);
		written = dst ? got : 0;
		for (j = 0; j < written; j++) {
			nprof_sim_fill_trace(run, &dst[j], nprof_sim_clock_next(clk, i + j),
					     engine, i + j);
			dst[j].seq = seq + j;
		}
		produced = written ? written : want;
		for (; j < produced; j++)
			nprof_sim_clock_next(clk, i + j);
		/* Done when the batch's last instruction is: what pacing waits for. */
		if (clk->ts > run->last_ts)
			run->last_ts = clk->ts;
		ret = run->commit(run, &q, written, produced);
		if (!ret)
			ret = nprof_sim_emitted(run, produced);
		if (ret)
			return ret;
		i += produced;
	}
	return 0;
}

static int nprof_sim_engine(struct nprof_sim_run *run, u32 engine, u64 *end)
{
	u32 insns = run->prog->instructions[engine];
	const struct nprof_queue_id q = {
		.kind = NEURONPROF_TARGET_CORE,
		.index = run->core,
		.type = NEURONPROF_QT_TRACE,
		.engine = engine,
	};
	struct nprof_sim_engine_clock clk;
	struct neuronprof_notification n;
	u32 i;
	int ret;

	nprof_sim_clock_init(run, engine, &clk);
	ret = nprof_sim_put_core(run, clk.ts, NEURONPROF_QT_EVENT, engine,
				 NPROF_SIM_EVENT_START, insns, 0, 0, 0);
	if (!ret && run->reserve)
		ret = nprof_sim_trace_reserved(run, engine, insns, &clk);
	for (i = 0; !ret && !run->reserve && i < insns; i++) {
		nprof_sim_fill_trace(run, &n, nprof_sim_clock_next(&clk, i), engine, i);
		ret = run->emit(run, &q, &n);
		if (!ret)
			ret = nprof_sim_emitted(run, 1);
	}
	/* The last instruction started before the clock's end: keep the floor. */
	if (clk.ts > run->last_ts)
		run->last_ts = clk.ts;
	if (ret)
		return ret;
	*end = clk.ts;
	return nprof_sim_put_core(run, clk.ts, NEURONPROF_QT_EVENT, engine,
				  NPROF_SIM_EVENT_END, insns, 0, 0, 0);
}

/*
 * One DMA engine per core moves the transfers in order, back to back from
 * @start; each entry is stamped when its transfer completes.
 */
static int nprof_sim_dma(struct nprof_sim_run *run, u64 start, u64 *end)
{
	u64 ts = start;
	u32 i;
	int ret;

	for (i = 0; i < run->prog->dma_transfers; i++) {
		u64 off = (u64)i * NPROF_SIM_DMA_STRIDE;
		u64 bytes = NPROF_SIM_DMA_MIN_BYTES << (i % 4);

		ts += nprof_sim_dma_ns(bytes);
		/* payload: bytes, source, destination, descriptor index. */
		ret = nprof_sim_put_core(run, ts, NEURONPROF_QT_DMA, i % run->engines,
					 i % NPROF_SIM_DMA_QUEUES, bytes,
					 NPROF_SIM_DMA_SRC_BASE + off,
					 NPROF_SIM_DMA_DST_BASE + off, i);
		if (ret)
			return ret;
	}
	*end = ts;
	return 0;
}

static int nprof_sim_topsps(struct nprof_sim_run *run, u64 start, u64 *end)
{
	u32 first = run->core * run->topsps_per_core;
	u32 t;
	int ret;

	for (t = first; t < first + run->topsps_per_core; t++) {
		u64 stop = start + NPROF_SIM_TOPSP_NS + NPROF_SIM_TOPSP_STEP_NS * (t - first);

		ret = nprof_sim_put_topsp(run, start, t, NEURONPROF_QT_TOPSP_EVENT,
					  NPROF_SIM_EVENT_START, t);
		if (!ret)
			ret = nprof_sim_put_topsp(run, start, t, NEURONPROF_QT_TOPSP_TRACE,
						  NPROF_SIM_TOPSP_OPCODE, t);
		if (!ret)
			ret = nprof_sim_put_topsp(run, stop, t, NEURONPROF_QT_TOPSP_EVENT,
						  NPROF_SIM_EVENT_END, t);
		if (ret)
			return ret;
		*end = max(*end, stop);
	}
	return 0;
}

static int nprof_sim_iteration(struct nprof_sim_run *run)
{
	const struct nprof_sim_gen_program *prog = run->prog;
	bool raise = prog->error && run->iteration == prog->iterations - 1;
	u32 status = raise ? NPROF_SIM_EXEC_ERROR_STATUS : 0;
	u64 t0 = run->next_start, launch = t0 + NPROF_SIM_LAUNCH_NS;
	u64 done = launch, end;
	u32 e;
	int ret;

	run->level = prog->throttle ?
		     run->iteration % NPROF_SIM_THROTTLE_LEVELS + 1 : 0;
	/* The engines wait for the iteration's first transfer, its input. */
	run->engine_start = launch;
	if (prog->dma_transfers)
		run->engine_start += nprof_sim_dma_ns(NPROF_SIM_DMA_MIN_BYTES);

	ret = nprof_sim_put_core(run, t0, NEURONPROF_QT_INFER_STATUS, 0,
				 NEURONPROF_INFER_START, prog->iterations, 0, 0, 0);
	for (e = 0; !ret && e < run->engines; e++) {
		if (!prog->instructions[e])
			continue;
		ret = nprof_sim_engine(run, e, &end);
		if (!ret)
			done = max(done, end);
	}
	if (!ret) {
		ret = nprof_sim_dma(run, launch, &end);
		if (!ret)
			done = max(done, end);
	}
	if (!ret && prog->throttle) {
		/* code: throttle level; payload: percent of full clock. */
		ret = nprof_sim_put_core(run, t0, NEURONPROF_QT_THROTTLE, 0, run->level,
					 nprof_sim_throttle_pct(run->level), 0, 0, 0);
	}
	if (!ret)
		ret = nprof_sim_topsps(run, launch, &done);
	if (!ret && raise) {
		ret = nprof_sim_put_core(run, done, NEURONPROF_QT_ERROR, 0, status,
					 run->iteration, 0, 0, 0);
		if (!ret && run->topsps_per_core)
			ret = nprof_sim_put_topsp(run, done,
						  run->core * run->topsps_per_core,
						  NEURONPROF_QT_TOPSP_ERROR, status,
						  run->iteration);
		if (!ret)
			run->status = status;
	}
	if (ret)
		return ret;
	done += NPROF_SIM_SYNC_NS;
	run->next_start = done + NPROF_SIM_RELAUNCH_NS;
	return nprof_sim_put_core(run, done, NEURONPROF_QT_INFER_STATUS, 0,
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
 * TopSP of the core); INFER_STATUS stop with payload[0] = status. Each is
 * stamped by the device-time model from @run->start_ns (set from the clock
 * when 0, and never at or below @run->last_ts).
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
	/* The one read of the host clock: the model places everything else. */
	if (!run->start_ns)
		run->start_ns = ktime_get_ns();
	if (run->start_ns <= run->last_ts)
		run->start_ns = run->last_ts + 1;
	run->next_start = run->start_ns;
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
u64 nprof_sim_program_count(const struct nprof_sim_gen_program *prog, u32 engines,
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
