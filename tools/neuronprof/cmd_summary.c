// SPDX-License-Identifier: MIT
/*
 * neuronprof summary: where the time of each recording went
 * (Documentation/analysis.rst). A path may hold several recordings (the
 * directories holding NTFF files or a system profile); each is summarized
 * on its own, never merged. This file parses the options and runs the
 * rest: the statistics are computed once (analysis/summary.c) and printed
 * as text, JSON or CSV files with the same numbers (ui/summary_text.c,
 * ui/summary_json.c, ui/summary_csv.c), each section's columns declared
 * once in a table that drives the three writers
 * (analysis/summary_columns.c).
 *
 * Losses are counted twice, independently: the lost counts the rings
 * recorded, and the gaps in the sequence numbers of the entries that made it
 * into the file. A gap larger than the recorded loss means entries vanished
 * without being counted, and is reported as such.
 */
#include <stdlib.h>

#include "analysis/summary.h"
#include "analysis/xhost.h"
#include "ui/summary_csv.h"
#include "ui/summary_json.h"
#include "ui/summary_text.h"
#include "util/options.h"
#include "util/progress.h"
#include "tool.h"


int cmd_summary(int argc, char **argv)
{
	enum progress_mode pmode = PROGRESS_AUTO;
	const char *csv_dir = NULL;
	struct path_set ps;
	struct rec_stats *stats;
	struct progress pg;
	struct summary_csv csv;
	bool raw_ns = false, brief = false;
	uint64_t top = 5, done = 0;
	bool json = false, keep = false, have_x;
	struct xhost xh;
	int ret = 0;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "one JSON document"),
		OPT_STRING(0, "csv", &csv_dir, "DIR",
			   "one CSV file per table into DIR (created if missing;\n"
			   "checked before any work)", .syn_join = SYN_OR),
		OPT_U64(0, "top", &top, "N", 1, 1000000,
			"rows per ranked table: ops per engine, ops across cores,\n"
			"idle gaps of a core and of its units, executions listed\n"
			"in the text (default 5, at least 1)"),
		OPT_BOOL(0, "ns", &raw_ns, "durations in the text as whole nanoseconds"),
		OPT_BOOL(0, "brief", &brief,
			 "text: one row per NeuronCore instead of its engines, ops,\n"
			 "idle gaps, throttling and errors (the ops across cores,\n"
			 "executions, host trace and totals stay)"),
		OPT_BOOL(0, "keep-going", &keep,
			 "a file that does not read (damaged, truncated, not NTFF)\n"
			 "is skipped with a warning naming it, and the rest is\n"
			 "summarized; the exit status is then 1"),
		OPT_PROGRESS(&pmode),
		OPT_END(),
	};

	if (opts_parse(argc, argv, opts, NULL, &ret))
		return ret;
	if (json && csv_dir)
		return usage_error("--json and --csv are exclusive");
	if (optind >= argc)
		return usage_error("missing PATH");
	/* The tables' directory before any work. */
	if (csv_dir && summary_csv_open(&csv, csv_dir))
		return EXIT_FAIL;
	ret = paths_load(&ps, argv + optind, (size_t)(argc - optind), keep, "summarize");
	if (ret) {
		if (csv_dir)
			summary_csv_abort(&csv);
		goto out;
	}

	stats = xcalloc(ps.nrec, sizeof(*stats));
	progress_start(&pg, pmode, "summary", ps.entries);
	for (size_t i = 0; i < ps.nrec; i++)
		rec_stats_build(&stats[i], ps.recs[i], (unsigned int)top, &pg, &done);
	progress_finish(&pg);
	have_x = xhost_build(&xh, stats, ps.nrec, (unsigned int)top);

	if (json) {
		summary_json((const char *const *)argv + optind, &ps, stats, have_x ? &xh : NULL);
	} else if (csv_dir) {
		ret = summary_csv_write(&csv, stats, ps.nrec, have_x ? &xh : NULL);
		if (!ret)
			printf("%s: %d tables of %zu recording%s\n", csv_dir, SUMMARY_CSV_TABLES,
			       ps.nrec, ps.nrec == 1 ? "" : "s");
	} else {
		summary_text(stats, ps.nrec, have_x ? &xh : NULL, (unsigned int)top, raw_ns, brief);
	}
	if (have_x)
		xhost_free(&xh);
	for (size_t i = 0; i < ps.nrec; i++)
		rec_stats_free(&stats[i]);
	free(stats);
	if (!ret)
		ret = flush_stdout();
	if (!ret && ps.skipped) {
		fail("%zu file%s skipped (--keep-going): the summary leaves %s out", ps.skipped,
		     ps.skipped == 1 ? "" : "s", ps.skipped == 1 ? "it" : "them");
		ret = EXIT_FAIL;
	}
out:
	paths_free(&ps);
	return ret;
}
