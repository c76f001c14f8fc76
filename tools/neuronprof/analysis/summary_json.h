/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the JSON of a recording's statistics (summary.h), written
 * once for both documents that carry them: summary --json and the data
 * embedded in report's page. Each writes the fields of one object; the
 * caller opens and closes it and may add its own fields.
 */
#ifndef NEURONPROF_TOOL_SUMMARY_JSON_H
#define NEURONPROF_TOOL_SUMMARY_JSON_H

#include <stddef.h>

#include "analysis/fields.h"
#include "analysis/summary.h"
#include "util/json.h"

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

/*
 * An idle gap of a core (@u NULL) or of one of its units, @rank its place
 * among them; label and where filled by gap_row().
 */
/* A loss window of a core (CORE_ID_FIELDS read the core). */
struct lw_row {
	const struct core_stats *c;
	const struct loss_window *w;
};

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

/* Percentiles json_dist_fields() adds. */
#define DIST_P95	(1U << 0)
#define DIST_P99	(1U << 1)

/* count, total_ns, min_ns, avg_ns, median_ns, then the @pcts asked for, max_ns. */
void json_dist_fields(struct json *j, const struct dist *d, unsigned int pcts);

/* json_dist_fields() in an object named @key. */
void json_dist(struct json *j, const char *key, const struct dist *d, unsigned int pcts);

/* "idle_gaps": @g, longest first, each placed in @c's executions. */
void json_idle_gaps(struct json *j, const struct top_gaps *g, const struct core_stats *c);

/* A recording: its path, how many files, queue records and entries. */
void json_recording_fields(struct json *j, const struct rec_stats *s);

/*
 * "capture_ranges": [{file, core, first_execution, last_execution}] of the
 * files of @r limited to a range of executions (NTFF 1.3); nothing when
 * none is.
 */
void json_capture_ranges(struct json *j, const struct recording *r);

/* "raw_queues": the queues of raw entries of @s. */
void json_raw_queues(struct json *j, const struct rec_stats *s);

/* "losses": the queues of @s that lost entries. */
void json_losses(struct json *j, const struct rec_stats *s);

/* "throttle": the time @c spent at each throttle level. */
void json_throttle(struct json *j, const struct core_stats *c);

/* The core's "loss_windows" array, when it has any (nothing otherwise). */
void json_loss_windows(struct json *j, const struct core_stats *c);

/* An engine or TopSP: its counts, times, its first @top ops and its idle gaps. */
void json_unit_fields(struct json *j, const struct unit *u, const struct core_stats *c,
		      size_t top);

/* A model: its name, id, failures and its latency, host call and overhead. */
void json_model_fields(struct json *j, const struct model_stats *m);

#endif
