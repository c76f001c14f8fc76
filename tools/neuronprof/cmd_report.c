// SPDX-License-Identifier: MIT
/*
 * neuronprof report: one self-contained HTML page per profile
 * (Documentation/tool.rst, "report"): the statistics summary computes
 * (summary.c), and their course over time (timeline.c), written by
 * ui/report_html.c, ui/report_svg.c and ui/report_json.c. This file parses
 * the options and runs them; --diff is report_diff.c's.
 */
#include <stdlib.h>

#include "analysis/summary.h"
#include "analysis/timeline.h"
#include "ui/report.h"
#include "util/options.h"
#include "util/output.h"
#include "util/progress.h"
#include "diff_input.h"
#include "tool.h"

/* ---- command -------------------------------------------------------------------- */

/* One PATH: its profile and recordings (which point into the profile). */
int cmd_report(int argc, char **argv)
{
	enum progress_mode pmode = PROGRESS_AUTO;
	const char *outpath = "-";
	uint64_t top = 10, nbuckets = 200, done = 0;
	struct path_set ps;
	struct rec_timeline *tl;
	struct rec_stats *st;
	struct output out;
	struct progress pg;
	bool keep = false, diff = false;
	int ret = 0;
	const struct opt opts[] = {
		OPT_STRING('o', "output", &outpath, "FILE",
			   "the page (default: standard output; written whole or\n"
			   "not at all)"),
		OPT_U64(0, "buckets", &nbuckets, "N", 1, 10000,
			"time buckets per core (default 200, 1 to 10000): the page\n"
			"does not grow with the number of entries"),
		OPT_U64(0, "top", &top, "N", 1, 1000000, "ops per unit (default 10, at least 1)"),
		OPT_BOOL(0, "keep-going", &keep, "skip files that do not read, say so on the page, exit 1"),
		OPT_BOOL(0, "diff", &diff,
			 "the page of diff BASE NEW (or BASE... -- NEW...): regressions\n"
			 "first, BASE and NEW plotted side by side on shared axes",
			 .syn = SYN_NONE),
		OPT_PROGRESS(&pmode),
		OPT_END(),
	};

	if (opts_parse(argc, argv, opts, NULL, &ret))
		return ret;
	if (diff && keep)
		return usage_error("--diff compares two recordings whole: no --keep-going");
	if (diff)
		return report_diff(outpath, argc, argv, optind, pmode, (size_t)top, 0.05);
	if (optind >= argc)
		return usage_error("missing PATH");
	if (output_open(&out, outpath, OUTPUT_STDOUT))
		return EXIT_FAIL;
	ret = paths_load(&ps, argv + optind, (size_t)(argc - optind), keep, "report");
	if (ret) {
		output_abort(&out);
		goto out;
	}
	st = xcalloc(ps.nrec, sizeof(*st));
	tl = xcalloc(ps.nrec, sizeof(*tl));
	/* Two passes over the entries: the statistics, then their course over time. */
	progress_start(&pg, pmode, "report", 2 * ps.entries);
	for (size_t i = 0; i < ps.nrec; i++) {
		rec_stats_build(&st[i], ps.recs[i], (unsigned int)top, &pg, &done);
		rec_timeline_build(&tl[i], &st[i], (size_t)nbuckets, &pg, &done);
	}
	progress_finish(&pg);
	report_page(out.f, (const char *const *)(argv + optind), ps.npaths, ps.skipped, st, tl,
		    ps.nrec, (size_t)nbuckets, ps.entries);
	ret = output_commit(&out);
	for (size_t i = 0; i < ps.nrec; i++) {
		rec_timeline_free(&tl[i]);
		rec_stats_free(&st[i]);
	}
	free(tl);
	free(st);
	if (!ret && ps.skipped) {
		fail("%zu file%s skipped (--keep-going): the page says so", ps.skipped,
		     ps.skipped == 1 ? "" : "s");
		ret = EXIT_FAIL;
	}
out:
	paths_free(&ps);
	return ret;
}
