/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the one timing model that summary and export share
 * (Documentation/analysis.rst).
 *
 * Inference: an INFER_STATUS start and the next stop of the same queue (a
 * queue is all of its records in file order, struct prof_queue). Execution: the inferences of one program run, iteration 0 to the
 * last one, on one NeuronCore; a start with iteration 0 (or not above the
 * previous one, or of another model) begins a new execution.
 *
 * Instruction duration: a TRACE (or TOPSP_TRACE) entry lasts until the next
 * entry of the same queue, bounded by the end of the engine's (or TopSP's)
 * EVENT start/end pair that contains it and by the end of the inference
 * that contains it; the last entry of a queue lasts until the nearer of
 * those ends. An instruction outside every such window lasts until the next
 * entry of its queue (the last one: no time). So instructions of one queue
 * never overlap, and an engine's busy time is the sum of its instructions'.
 *
 * Host calls: an nrt_execute event of the system trace started the device
 * execution of the same core and model whose first inference starts within
 * the call ([start_ns, end_ns]); each call starts at most one execution and
 * each execution has at most one call.
 */
#ifndef NEURONPROF_TOOL_TIMING_H
#define NEURONPROF_TOOL_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/profile.h"

struct inference {
	uint64_t start, stop;
	uint64_t status;		/* payload[0] of the stop */
	uint32_t model_id, iteration;
};

struct execution {
	uint64_t start, stop;		/* first inference's start, last one's stop */
	uint32_t model_id;
	uint32_t iterations;		/* inferences it holds */
	bool failed;			/* any inference with a non-zero status */
	size_t first;			/* index of its first inference */
	/* The nrt_execute host call that started it (timing_match_host()). */
	const Neuronprof__System__NtraceEvent *host;
};

/* A window: an inference, or an EVENT start/end pair of an engine or TopSP. */
struct window {
	uint64_t start, stop;
};

/* A queue whose pairs (inferences or EVENT windows) the model reads. */
struct timing_source {
	const struct prof_file *f;
	const struct prof_queue *lq;
};

/*
 * The EVENT windows of one engine (or TopSP) of a core, in time order: in
 * @w, or (@streamed) read from its queues @src by cursors when needed.
 */
/*
 * Which unit of a NeuronCore an entry belongs to: an engine or a TopSP, by
 * number. Every per-unit struct of the analysis (struct unit_windows here,
 * struct unit of summary.h) starts with it, as UNIT_ID_MEMBERS, so that one
 * lookup, unit_find() or unit_of(), finds (or adds) the unit in any of them.
 */
struct unit_id {
	bool topsp;
	uint32_t index;			/* engine or TopSP number */
};

#define UNIT_ID_MEMBERS \
	union { \
		struct unit_id id; \
		struct { \
			bool topsp; \
			uint32_t index; \
		}; \
	}

/* unit_find() - the unit @id among the @n units of @size bytes at @units, or NULL. */
const void *unit_find(const void *units, size_t n, size_t size, struct unit_id id);

/*
 * unit_of() - the unit @id in the array *@units of *@n elements of @size
 * bytes (each starting with UNIT_ID_MEMBERS); when it is not there, a zeroed
 * one is appended with its id set, and *@added (if not NULL) says so.
 */
void *unit_of(void **units, size_t *n, size_t size, struct unit_id id, bool *added);

struct unit_windows {
	UNIT_ID_MEMBERS;
	struct window *w;
	size_t n, cap;
	bool streamed;
	struct timing_source *src;
	size_t nsrc;
};

/*
 * The inferences and executions of one NeuronCore, in time order. Built
 * with arrays (timing_build()), @inf and @exec hold them all. Streamed
 * (TIMING_STREAM, @streamed), the inferences are read from the core's
 * INFER_STATUS queues @src by cursors (struct timing_cursor) and @inf is
 * empty; a core one of whose queues has its inferences out of time order
 * keeps them in @inf, sorted, instead. Streamed, @exec and @nexec hold the
 * executions only of a core with nrt_execute host calls to match them
 * with; struct exec_cursor gives every core's.
 */
struct core_timing {
	uint32_t host;			/* index of its host in the caller's numbering */
	uint32_t dev, core;
	uint32_t vcore;			/* the library's core index (files' info.core) */
	struct inference *inf;
	size_t ninf, inf_cap;
	uint64_t unmatched_starts, unmatched_stops;
	struct execution *exec;
	size_t nexec;
	struct unit_windows *units;
	size_t nunits;
	bool streamed;
	struct timing_source *src;
	size_t nsrc;
};

struct timing {
	struct core_timing *cores;
	size_t ncores;
	uint64_t host_calls, host_calls_matched;	/* nrt_execute events */
};

/* Flags of timing_build(). */
#define TIMING_STREAM	(1u << 0)	/* read inferences and windows from their queues */

/*
 * timing_build() - the inferences, executions and EVENT windows of every
 * core of @files, then the host calls of the @nsys system profiles @sys
 * matched to executions of the same host. @file_host and @sys_host give the
 * host of each file and system profile (NULL: all one host). With
 * TIMING_STREAM in @flags, what it keeps does not grow with the number of
 * inferences and windows (struct core_timing). Exits on allocation failure.
 */
void timing_build(struct timing *t, const struct prof_file *const *files, size_t nfiles,
		  const uint32_t *file_host, const struct sysprof *sys, size_t nsys,
		  const uint32_t *sys_host, unsigned int flags);
void timing_free(struct timing *t);
const struct core_timing *timing_core_of(const struct timing *t, uint32_t host, uint32_t dev,
					 uint32_t core);

static inline const struct core_timing *timing_core(const struct timing *t, uint32_t dev,
						    uint32_t core)
{
	return timing_core_of(t, 0, dev, core);
}

/* The EVENT windows of engine (or TopSP) @index of @ct, or NULL. */
const struct unit_windows *timing_unit(const struct core_timing *ct, bool topsp, uint32_t index);

/* The pairs of one queue, in its order (timing.c). */
struct timing_stream;

/*
 * struct timing_cursor - the inferences of a core or the windows of a unit,
 * in time order, one at a time: @cur while @have. From the arrays, or
 * merged from the streams of their queues (by start, ties in queue order:
 * the order timing_build() sorts the arrays in).
 */
struct timing_cursor {
	struct inference cur;		/* a window has only start and stop */
	bool have;
	const struct inference *inf;	/* array of inferences, or */
	const struct window *win;	/* array of windows */
	size_t n, i;
	struct timing_stream *s;	/* or streams */
	size_t ns;
};

void timing_cursor_core(struct timing_cursor *c, const struct core_timing *ct);
void timing_cursor_unit(struct timing_cursor *c, const struct unit_windows *uw);
void timing_cursor_next(struct timing_cursor *c);
void timing_cursor_free(struct timing_cursor *c);

/*
 * struct exec_cursor - the executions of a core in time order, numbered
 * from 0 (@k): from @exec where the core keeps them, else made from its
 * inferences as they come.
 */
struct exec_cursor {
	struct execution cur;
	bool have;
	size_t k;
	const struct core_timing *ct;
	struct timing_cursor inf;
	size_t ninf;			/* inferences taken from @inf */
	uint32_t last_iteration;	/* of the last inference of @cur */
};

void exec_cursor_init(struct exec_cursor *x, const struct core_timing *ct);
void exec_cursor_next(struct exec_cursor *x);
void exec_cursor_free(struct exec_cursor *x);

/* The instruction duration model over one queue, entries in order. */
struct instr_clock {
	struct timing_cursor inf;	/* the core's inferences (none if unknown) */
	struct timing_cursor win;	/* the unit's EVENT windows (none if unknown) */
};

static inline void instr_clock_init(struct instr_clock *c, const struct core_timing *ct,
				    bool topsp, uint32_t index)
{
	timing_cursor_core(&c->inf, ct);
	timing_cursor_unit(&c->win, timing_unit(ct, topsp, index));
}

static inline void instr_clock_free(struct instr_clock *c)
{
	timing_cursor_free(&c->inf);
	timing_cursor_free(&c->win);
}

/*
 * instr_bound() - the end of the inference or window that holds @ts
 * (the earlier of the two), UINT64_MAX when neither does; moves both
 * cursors up to @ts. Calls must come with non-decreasing @ts.
 */
static inline uint64_t instr_bound(struct instr_clock *c, uint64_t ts)
{
	uint64_t bound = UINT64_MAX;

	while (c->inf.have && c->inf.cur.stop < ts)
		timing_cursor_next(&c->inf);
	if (c->inf.have && c->inf.cur.start <= ts)
		bound = c->inf.cur.stop;
	while (c->win.have && c->win.cur.stop < ts)
		timing_cursor_next(&c->win);
	if (c->win.have && c->win.cur.start <= ts && c->win.cur.stop < bound)
		bound = c->win.cur.stop;
	return bound;
}

/*
 * instr_end_at() - when an instruction ends, given @bound from
 * instr_bound() and the timestamp of the next entry of its queue
 * (@has_next false for the last one).
 */
static inline uint64_t instr_end_at(uint64_t bound, uint64_t ts, bool has_next, uint64_t next_ts)
{
	if (bound == UINT64_MAX)
		return has_next ? next_ts : ts;
	return has_next && next_ts < bound ? next_ts : bound;
}

/*
 * instr_end() - when the instruction at @ts ends, given the timestamp of
 * the next entry of its queue (@has_next false for the last one). Calls
 * must come with non-decreasing @ts.
 */
static inline uint64_t instr_end(struct instr_clock *c, uint64_t ts, bool has_next,
				 uint64_t next_ts)
{
	return instr_end_at(instr_bound(c, ts), ts, has_next, next_ts);
}

/* Nearest-rank percentile @p (0 < p <= 100) of @n sorted values; 0 if n = 0. */
uint64_t percentile(const uint64_t *sorted, size_t n, unsigned int p);
void sort_u64(uint64_t *v, size_t n);

#endif /* NEURONPROF_TOOL_TIMING_H */
