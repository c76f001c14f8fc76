/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): summary's column tables, all in one place (fields.h):
 * each section of a recording's statistics (summary.h) and of the machines
 * compared (xhost.h) has one table, which its text, JSON and CSV writers
 * (ui/summary_*.c) and report's tables all read, and the row a table reads.
 * Defined in summary_columns.c and, for the machines, xhost_columns.c.
 */
#ifndef NEURONPROF_TOOL_SUMMARY_COLUMNS_H
#define NEURONPROF_TOOL_SUMMARY_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/fields.h"
#include "analysis/summary.h"
#include "analysis/xhost.h"

/*
 * The columns (fields.h) of the sections summary writes as text and CSV too:
 * a NeuronCore (a row is a struct core_stats), an engine or TopSP (a struct
 * unit_row, filled by unit_row()), an idle gap (a struct gap_row), an op of
 * an engine or TopSP (a struct unit_op_row, filled by unit_op_row()), a throttle level of a core (a struct level_row) and a
 * queue of raw entries (a struct raw_row, filled by raw_row()).
 */
struct unit_row {
	const struct dist *d;	/* of an op of the unit (struct unit_op_row); else NULL */
	const struct core_stats *c;
	const struct unit *u;
	char label[32];
};

struct raw_row {
	const struct queue_loss *q;	/* &raw->q, first: the queue columns read it */
	const struct raw_queue *raw;
	char target[24];
};

/* An op of a unit: the unit's row first, so that its columns read it. */
struct unit_op_row {
	struct unit_row ur;
	const struct op_stats *o;
};

/* level_row, gap_row: the core first, which CORE_ID_FIELDS reads (fields.h). */
struct level_row {
	const struct core_stats *c;
	const struct level_time *l;
};

/* A loss window of a core (CORE_ID_FIELDS read the core). */
struct lw_row {
	const struct core_stats *c;
	const struct loss_window *w;
};

/*
 * An idle gap of a core (@u NULL) or of one of its units, @rank its place
 * among them; label and where filled by gap_row().
 */
struct gap_row {
	const struct core_stats *c;
	const struct unit *u;
	const struct idle_gap *g;
	size_t rank;
	char label[32], where[64];
};

/*
 * The columns an op has wherever it is ranked (per unit, across cores): its
 * name and code from @name and @code, then its durations' count, total,
 * min, avg, median and p95 from the row's struct dist.
 */
#define OP_FIELDS(name, code)							\
	SAME("op", "op", -18, FK_STR, name),					\
	SAME("code", "code", -8, FK_CODE, code),				\
	SAME("count", "count", 8, FK_U64, field_dist_count),			\
	SAME("total_ns", "total", 12, FK_NS, field_dist_total),			\
	SAME("min_ns", NULL, 0, FK_NS, field_dist_min),				\
	SAME("avg_ns", "avg", 12, FK_NS, field_dist_avg),			\
	SAME("median_ns", "median", 12, FK_NS, field_dist_median),		\
	SAME("p95_ns", "p95", 12, FK_NS, field_dist_p95)

/*
 * The tables of those sections (rows as above), and of a queue that lost
 * entries (a row is a pointer to its struct queue_loss), summary's and
 * report's.
 */
extern const struct field_table core_fields, unit_fields, gap_fields, unit_op_fields,
	level_fields, raw_fields, loss_fields, loss_window_fields, observed_fields;

/* The row of @u, an engine or TopSP of @c. */
void unit_row(struct unit_row *r, const struct core_stats *c, const struct unit *u);

/* The row of @q, a queue of raw entries. */
void raw_row(struct raw_row *r, const struct raw_queue *q);

/* The row of @o, an op of @u of @c. */
void unit_op_row(struct unit_op_row *r, const struct core_stats *c, const struct unit *u,
		 const struct op_stats *o);

/* The row of @g, the @rank-th gap of @c (@u NULL) or of its unit @u. */
void gap_row(struct gap_row *r, const struct core_stats *c, const struct unit *u,
	     const struct idle_gap *g, size_t rank);

/*
 * The rows of the other sections: a host event type (host_row), an op
 * across cores (xop_row, filled by xop_row()), an error code of a core
 * (err_row), a model (model_row) and an execution (exec_row, of an
 * exec_ref from exec_list()); and of the machines compared: a machine
 * (machine_row), an execution index (mexec_row, filled by mexec_row()) and
 * an op differing most (mop_row).
 */
struct host_row {
	const struct dist *d;
	const struct host_type *h;
};

struct xop_row {
	const struct dist *d;
	const struct rec_stats *s;
	const struct xop *x;
	char label[32], cores[128];
	char *list;		/* CSV: device:core pairs, ';' between them */
};

struct err_row {
	const struct core_stats *c;
	const struct code_count *e;
};

struct machine_row {
	const struct xhost *x;
	size_t k;
};

struct mexec_row {
	const struct xhost *x;
	const struct xhost_exec *e;
	char slow[160], fast[160];
};

struct mop_row {
	const struct xhost *x;
	const struct xhost_opdiff *d;
	size_t rank;
};

/*
 * A recording's totals over its cores (totals()): X(member, JSON key) for
 * each, in the order of the JSON's "totals", which is written from this
 * list; struct totals has a uint64_t member each.
 */
#define TOTALS(X)							\
	X(instructions, "instructions")					\
	X(events, "events")						\
	X(dma, "dma")							\
	X(dma_bytes, "dma_bytes")					\
	X(inferences, "inferences")					\
	X(infer_failed, "inferences_failed")				\
	X(executions, "executions")					\
	X(errors, "errors")						\
	X(throttles, "throttle_events")					\
	X(lost, "lost")							\
	X(gaps, "seq_gaps")						\
	X(unexplained, "records_with_unexplained_gaps")

struct totals {
#define TOTAL_MEMBER(member, key)	uint64_t member;
	TOTALS(TOTAL_MEMBER)
#undef TOTAL_MEMBER
};

struct exec_ref {
	const struct core_timing *ct;
	const struct execution *x;
	size_t index;
};

struct model_row {
	const struct dist *d;
	const struct model_stats *m;
};

struct exec_row {
	const struct rec_stats *s;
	const struct exec_ref *e;
};


/* Their tables. */
extern const struct field_table host_fields, xop_fields, err_fields, model_fields,
	exec_fields, machine_fields, mexec_fields, mop_fields;

/*
 * The row of @x, an op across the cores of @s; with @csv its cores listed
 * in ->list too (xop_row_free() frees it).
 */
void xop_row(struct xop_row *r, const struct rec_stats *s, const struct xop *x, bool csv);
void xop_row_free(struct xop_row *r);

/* The row of @e, an execution index of the machines compared @x. */
void mexec_row(struct mexec_row *r, const struct xhost *x, const struct xhost_exec *e);

/* The totals of @s over its cores (the text's and JSON's "totals"). */
void totals(const struct rec_stats *s, struct totals *t);

/*
 * Every execution of @s, *@n of them (allocated), longest first with
 * @by_latency (ties in time order), else core by core in time order.
 */
struct exec_ref *exec_list(const struct rec_stats *s, size_t *n, bool by_latency);

/* The name of model @id in @s (its files' model_name), or NULL. */
const char *model_name_of(const struct rec_stats *s, uint32_t id);

/* The duration of the host call @h (0 when it ends before it starts). */
uint64_t host_ns(const Neuronprof__System__NtraceEvent *h);

#endif
