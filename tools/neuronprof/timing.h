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

#include "profile.h"

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

/* The EVENT windows of one engine (or TopSP) of a core, in time order. */
struct unit_windows {
	bool topsp;
	uint32_t index;
	struct window *w;
	size_t n, cap;
};

/* The inferences and executions of one NeuronCore, in time order. */
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
};

struct timing {
	struct core_timing *cores;
	size_t ncores;
	uint64_t host_calls, host_calls_matched;	/* nrt_execute events */
};

/*
 * timing_build() - the inferences, executions and EVENT windows of every
 * core of @files, then the host calls of the @nsys system profiles @sys
 * matched to executions of the same host. @file_host and @sys_host give the
 * host of each file and system profile (NULL: all one host). Exits on
 * allocation failure.
 */
void timing_build(struct timing *t, const struct prof_file *const *files, size_t nfiles,
		  const uint32_t *file_host, const struct sysprof *sys, size_t nsys,
		  const uint32_t *sys_host);
void timing_free(struct timing *t);
const struct core_timing *timing_core_of(const struct timing *t, uint32_t host, uint32_t dev,
					 uint32_t core);

static inline const struct core_timing *timing_core(const struct timing *t, uint32_t dev,
						    uint32_t core)
{
	return timing_core_of(t, 0, dev, core);
}

/* The instruction duration model over one queue, entries in order. */
struct instr_clock {
	const struct core_timing *ct;	/* may be NULL: no inference known */
	const struct unit_windows *uw;	/* may be NULL: no EVENT pair known */
	size_t i, k;			/* first inference / window that may contain what comes */
};

/* The EVENT windows of engine (or TopSP) @index of @ct, or NULL. */
const struct unit_windows *timing_unit(const struct core_timing *ct, bool topsp, uint32_t index);

static inline void instr_clock_init(struct instr_clock *c, const struct core_timing *ct,
				    bool topsp, uint32_t index)
{
	c->ct = ct;
	c->uw = timing_unit(ct, topsp, index);
	c->i = 0;
	c->k = 0;
}

/*
 * instr_end() - when the instruction at @ts ends, given the timestamp of
 * the next entry of its queue (@has_next false for the last one). Calls
 * must come with non-decreasing @ts.
 */
static inline uint64_t instr_end(struct instr_clock *c, uint64_t ts, bool has_next,
				 uint64_t next_ts)
{
	const struct core_timing *ct = c->ct;
	const struct unit_windows *uw = c->uw;
	uint64_t bound = UINT64_MAX;

	if (ct) {
		while (c->i < ct->ninf && ct->inf[c->i].stop < ts)
			c->i++;
		if (c->i < ct->ninf && ct->inf[c->i].start <= ts)
			bound = ct->inf[c->i].stop;
	}
	if (uw) {
		while (c->k < uw->n && uw->w[c->k].stop < ts)
			c->k++;
		if (c->k < uw->n && uw->w[c->k].start <= ts && uw->w[c->k].stop < bound)
			bound = uw->w[c->k].stop;
	}
	if (bound == UINT64_MAX)
		return has_next ? next_ts : ts;
	return has_next && next_ts < bound ? next_ts : bound;
}

/* Nearest-rank percentile @p (0 < p <= 100) of @n sorted values; 0 if n = 0. */
uint64_t percentile(const uint64_t *sorted, size_t n, unsigned int p);
void sort_u64(uint64_t *v, size_t n);

#endif /* NEURONPROF_TOOL_TIMING_H */
