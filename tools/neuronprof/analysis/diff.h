/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): what changed between two recordings, BASE and NEW
 * (`neuronprof diff`, Documentation/analysis.rst "Comparing two
 * recordings"). Both sides are the statistics of summary (summary.h),
 * built with their duration samples kept; every figure of a side is
 * summary's, and a change in a distribution of durations (an op's
 * instructions, a model's execution latency) is tested with the
 * Mann-Whitney U test, its p-values adjusted over all the tests of the
 * comparison by Holm's method. One table of rows, computed once, so the
 * text, JSON and CSV outputs cannot disagree.
 */
#ifndef NEURONPROF_TOOL_DIFF_H
#define NEURONPROF_TOOL_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/summary.h"

/* What a row compares. */
enum diff_kind {
	DIFF_OP,		/* an op of one engine or TopSP of one core: durations */
	DIFF_OP_ALL,		/* the same op across the cores: durations */
	DIFF_LATENCY,		/* a model's execution latency */
	DIFF_BUSY,		/* a core's busy time */
	DIFF_UTIL,		/* a core's utilisation, % */
	DIFF_DMA,		/* a core's DMA bytes */
	DIFF_ERRORS,		/* a core's errors */
};

/* Fewer samples than this on either side: the change is not tested. */
#define DIFF_MIN_SAMPLES	8

/*
 * One side of a row. @value is what the row compares: the mean duration
 * (ns) of an op or a latency, busy ns, utilisation %, DMA bytes or errors.
 * @n: samples (instructions, executions) of a duration, else 0.
 * @executions: what @per_exec divides by: the executions of the core (of
 *	the cores that ran an op across cores; of the model for a latency);
 *	0 when the side has none, and @per_exec is then the recording's total.
 * @per_exec: time per execution, ns (an op's total over the executions;
 *	a latency's mean; busy time over the executions), 0 for the rest.
 */
struct diff_side {
	bool present;
	uint64_t n;
	double value;
	uint64_t total, median, p95;
	uint64_t executions;
	double per_exec;
};

/*
 * struct diff_row - one comparison.
 * @core, @dev: the NeuronCore (not for DIFF_OP_ALL and DIFF_LATENCY).
 * @topsp, @unit, @code: the op's unit and code (DIFF_OP, DIFF_OP_ALL).
 * @model_id: the model (DIFF_LATENCY).
 * @name: the op's or model's name, or NULL.
 * @change: new.value - base.value; @change_pct: of base.value (@has_pct
 *	false when base.value is 0 or a side is absent); for busy time and
 *	DMA bytes it is of the value per execution when both sides have
 *	executions.
 * @change_per_exec: new.per_exec - base.per_exec, ns: the time the change
 *	adds (saves, negative) per execution; what the rows are ranked by.
 * @tested: the samples were tested (both sides with DIFF_MIN_SAMPLES).
 * @u, @z, @p: the Mann-Whitney U of BASE, its z score (positive: NEW is
 *	larger) and the two-sided p-value; @p_adj: Holm-adjusted.
 * @significant: @tested and @p_adj < alpha.
 */
struct diff_row {
	enum diff_kind kind;
	uint32_t dev, core;
	bool topsp;
	uint32_t unit, code, model_id;
	const char *name;
	struct diff_side base, new;
	double change, change_pct, change_per_exec;
	bool has_pct;
	bool tested, significant;
	double u, z, p, p_adj;
	/* Samples of each side, sorted; @own: allocated here (latencies). */
	const uint64_t *sb, *sn;
	bool own;
};

/*
 * The totals of one side; @lost: entries its queues lost, counted by the
 * rings or missing from the sequence numbers (summary's loss lines).
 */
struct diff_total {
	size_t cores, files;
	uint64_t entries, executions, lost;
};

struct diff {
	struct diff_row *rows;		/* ranked (diff_build()) */
	size_t nrows;
	size_t ntests;			/* rows tested */
	double alpha;
	struct diff_total base, new;
};

/*
 * diff_build() - compare @b (BASE) with @n (NEW), both built by
 * rec_stats_build_durations(), at family-wise significance level @alpha.
 * Rows are ranked by |change_per_exec|, largest first (ties: the time rows
 * before the per-core counters, then by kind, core, unit, code, model);
 * rows keep pointers into @b and @n, which must outlive @d.
 */
void diff_build(struct diff *d, const struct rec_stats *b, const struct rec_stats *n,
		double alpha);
void diff_free(struct diff *d);

/* "op", "op_all", "latency", "busy", "util", "dma_bytes", "errors". */
const char *diff_kind_name(enum diff_kind k);

/* "new", "gone", "slower", "faster", "unchanged", "untested" (or "more"/"less"). */
const char *diff_verdict(const struct diff_row *r);

/*
 * Mann-Whitney U test of sorted samples @a (@na) against sorted @b (@nb),
 * normal approximation with tie correction and continuity correction.
 * *@u: U of @a; *@z: signed z (positive when @b tends larger); returns the
 * two-sided p-value (1 when every sample is equal).
 */
double diff_mann_whitney(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
			 double *u, double *z);

/*
 * The thresholds of the gate, in percent, X(kind, name) each: GATE_OP, a
 * significant change of an op's mean duration (per core or across);
 * GATE_LATENCY, of a model's mean latency; GATE_BUSY, GATE_DMA, a core's
 * busy time or DMA bytes per execution (no test). From this list come enum
 * diff_gate_kind, the names of diff_gate_names[], the keys of diff's JSON
 * ("<name>_pct") and its options (--fail-above-<name>).
 */
#define DIFF_GATES(X)								\
	X(GATE_OP, "op")							\
	X(GATE_LATENCY, "latency")						\
	X(GATE_BUSY, "busy")							\
	X(GATE_DMA, "dma")

#define DIFF_GATE_KIND(kind, name)	kind,
enum diff_gate_kind { DIFF_GATES(DIFF_GATE_KIND) GATE_N };
#undef DIFF_GATE_KIND

extern const char *const diff_gate_names[GATE_N];

/*
 * The gate: @pct, a threshold per kind, negative: off; @errors: any core
 * with more errors in NEW.
 */
struct diff_gate {
	double pct[GATE_N];
	bool errors;
};

/* diff_gate_off() - @g with every threshold off. */
void diff_gate_off(struct diff_gate *g);

/* diff_regressed() - whether @r regresses past @g. */
bool diff_regressed(const struct diff_row *r, const struct diff_gate *g);

#endif /* NEURONPROF_TOOL_DIFF_H */
