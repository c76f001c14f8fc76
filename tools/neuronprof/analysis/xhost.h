/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): several machines' recordings compared, for `summary`
 * (Documentation/analysis.rst, "Comparing machines"). Computed once, here,
 * so the text, JSON and CSV cannot disagree.
 *
 * The recordings are grouped by machine (machines.h's names). Executions
 * are compared by index: execution k of every core of every machine (in
 * each core's time order), by latency (stop - start, on the core's own
 * clock, so no clock mapping is needed). Per index: the slowest and the
 * fastest machine/core, ties going to the first in machine order, then by
 * device and core; the skew is the slowest minus the fastest latency.
 * Per machine: its totals. The slowest machine is the one whose executions
 * took the most time in total; the median one is the lower median of the
 * machines ordered by that total (ties: machine order). Its ops, by code
 * over all engines and TopSPs, are compared with the slowest one's: the
 * ops whose total time differs most (by absolute difference, ties by code).
 */
#ifndef NEURONPROF_TOOL_XHOST_H
#define NEURONPROF_TOOL_XHOST_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/summary.h"

struct xhost_op {
	uint32_t code;
	const char *name;		/* the device's name of it, or NULL (names.h) */
	uint64_t count, total;
};

struct xhost_machine {
	const char *name;
	bool mapped;			/* a recording of it holds a clock mapping */
	size_t recordings, cores;
	uint64_t executions, exec_ns, busy, instructions, dma_bytes, errors, lost;
	struct xhost_op *ops;		/* by code */
	size_t nops;
};

struct xhost_side {
	size_t machine;
	uint32_t dev, core;
	uint64_t ns;
};

struct xhost_exec {
	size_t index;
	size_t cores;			/* cores (of all machines) that ran it */
	size_t machines;		/* machines that ran it */
	struct xhost_side slow, fast;
	uint64_t skew_ns;
};

struct xhost_opdiff {
	uint32_t code;
	const char *name;		/* the device's name of it, or NULL */
	uint64_t slow_count, slow_total, median_count, median_total;
	int64_t diff_ns;		/* slow_total - median_total */
};

struct xhost {
	struct xhost_machine *m;
	size_t nm;
	struct xhost_exec *x;
	size_t nx;
	size_t slowest, median;		/* indexes in m */
	struct xhost_opdiff *ops;	/* differing most first; at most top */
	size_t nops;
};

/*
 * xhost_build() - the comparison of the machines of @s (@n recordings'
 * statistics); false (and nothing to free) with fewer than two machines.
 * A machine without a clock mapping is compared (durations need none) with
 * a warning naming it. xhost_free() frees it.
 */
bool xhost_build(struct xhost *x, const struct rec_stats *s, size_t n, unsigned int top);
void xhost_free(struct xhost *x);

#endif /* NEURONPROF_TOOL_XHOST_H */
