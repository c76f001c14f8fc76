/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the JSON of recordings' statistics (summary.h): the
 * pieces written once for both documents that carry them, summary --json
 * and the data embedded in report's page (each writes the fields of one
 * object; the caller opens and closes it and may add its own fields), and
 * summary's whole document.
 */
#ifndef NEURONPROF_TOOL_SUMMARY_JSON_H
#define NEURONPROF_TOOL_SUMMARY_JSON_H

#include <stddef.h>

#include "analysis/summary_columns.h"
#include "analysis/xhost.h"
#include "util/json.h"

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
 * "capture_ranges": [{file, core, first_execution, last_execution,
 * first_iteration, last_iteration}] of the files of @r limited to a range
 * of executions (NTFF 1.3) or of iterations (NTFF 1.4), each pair present
 * only when the file has that range; nothing when none is.
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

/*
 * summary --json on standard output: @paths (the PATHs, ps->npaths of
 * them), the recordings' statistics @stats (ps->nrec) and the machines
 * compared @xh (NULL when there are not two machines).
 */
void summary_json(const char *const *paths, const struct path_set *ps,
		  const struct rec_stats *stats, const struct xhost *xh);

#endif
