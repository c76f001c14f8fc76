/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): report's page (Documentation/tool.rst, "report"), written
 * by three files, one per language: the HTML around everything and its
 * tables' script (report_html.c), the inline SVG plots (report_svg.c) and
 * the embedded JSON data the tables are built from (report_json.c); the
 * page calls the other two, which call only html.h.
 */
#ifndef NEURONPROF_TOOL_REPORT_H
#define NEURONPROF_TOOL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/histogram.h"
#include "analysis/summary.h"
#include "analysis/timeline.h"
#include "ui/html.h"

#define DOC_MODEL	"Documentation/analysis.rst, &ldquo;The timing model&rdquo;"
#define DOC_OVERTIME	"Documentation/analysis.rst, &ldquo;Over time&rdquo;"
#define DOC_SUMMARY	"Documentation/analysis.rst, &ldquo;summary&rdquo;"
#define DOC_LOSSES	"Documentation/tool.rst, &ldquo;dump and summary&rdquo; (losses)"
#define DOC_RAW		"Documentation/hardware.rst (raw entries)"

/* Executions drawn one by one up to this many per core; beyond, counts per bucket. */
#define EXEC_MARKS_MAX	400

#define D(ns)	field_dur_short((ns), (char[32]){ 0 }, 32)

/* The plots' geometry. */
#define SVG_W		960
#define LABEL_W		120
#define PLOT_W		(SVG_W - LABEL_W - 20)
#define STRIP_H		22
#define ROW_GAP		6

/*
 * report_page() - the whole page of the recordings' statistics @st and
 * timelines @tl (@nrec of each) of the PATHs @paths (@npaths, @skipped
 * files skipped), @entries entries, @nbuckets time buckets per core, to @f.
 */
void report_page(FILE *f, const char *const *paths, size_t npaths, size_t skipped,
		 struct rec_stats *st, struct rec_timeline *tl, size_t nrec, size_t nbuckets,
		 uint64_t entries);

/* ---- report_html.c ---- */


/* The place of a sortable table of the embedded data's @kind (built by the page's script). */
void html_table(FILE *f, const char *kind, size_t rec, long core, long model);

/* html_table() in a <details> block titled @what, @open or not. */
void html_numbers(FILE *f, const char *what, const char *kind, size_t rec, long core, long model,
	     bool open);

/* ---- report_svg.c ---- */

/* A core's engines and TopSPs over time, with its idle gaps, executions and losses. */
void svg_timeline(FILE *f, const struct rec_stats *s, const struct core_stats *c,
		  const struct core_timeline *t);
/* The first @top ops of each unit of a core by total time. */
void svg_ops(FILE *f, const struct core_stats *c, unsigned int top);
/* A histogram @h of @what ("latency", ...) of a model. */
void svg_hist(FILE *f, const struct hist *h, const char *what, uint32_t model,
	      const char *name);
/* The plots of the recordings side by side: one panel per recording, on one axis. */
enum host_plot { HOST_BUSY, HOST_UTIL, HOST_LAT };
void host_plot(FILE *f, const struct rec_stats *st, size_t nrec, enum host_plot what);

/* ---- report_json.c ---- */

/* The JSON document, safe inside <script>: "</" is written "<\/". */
void report_json_data(FILE *out, const char *const *paths, size_t npaths, size_t skipped,
		      struct rec_stats *st, struct rec_timeline *tl, size_t nrec, size_t nbuckets);

#endif
