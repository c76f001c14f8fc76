// SPDX-License-Identifier: MIT
/*
 * neuronprof export: a profile as a Chrome trace-event JSON file, a native
 * Perfetto trace or an SQLite database. The formats are the table of
 * export/formats.c; the work common to the timeline formats is in
 * export/export.c (with export_layout.c and export_walk.c), each format in
 * export/export_<format>*.c.
 *
 * -o OUT is written by the rule of output.c: a regular file through a
 * temporary renamed over it once complete, so it is never half written; a
 * device, a FIFO or "-" in place; a symbolic link followed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/export.h"
#include "util/output.h"
#include "util/options.h"
#include "tool.h"
#include "util/progress.h"

void export_describe(FILE *f)
{
	fputs("Formats:\n", f);
	for (const struct export_format *x = export_formats; x->name; x++)
		fprintf(f, "  %-9s %s\n", x->name, x->about);
}

static int export_format_opt(const struct opt *o, const char *arg, void *ctx)
{
	const struct export_format **fmt = ctx;
	char names[64];

	(void)o;
	*fmt = export_format_find(arg);
	if (!*fmt)
		return usage_error("unknown format '%s' (expected %s)", arg,
				   export_format_names(names, sizeof(names)));
	return 0;
}

static int run(const struct profile *prof, const char *source, const struct export_format *fmt,
	       FILE *out, const char *out_path, const char *out_name, enum progress_mode pmode,
	       struct export_stats *st)
{
	struct progress pg;
	int ret;

	/* Big buffered writes: the exporters emit many small pieces. */
	if (out)
		setvbuf(out, NULL, _IOFBF, 1 << 20);
	progress_start(&pg, pmode, "export", prof->entries);
	ret = export_format_run(fmt, prof, source, out, out_path, out_name, &pg, st);
	progress_finish(&pg);
	return ret ? EXIT_FAIL : 0;
}

/* With several machines, how they were put on one timeline (machines.h). */
static void machines_line(const char *outpath, const struct export_stats *st)
{
	if (st->machines < 2)
		return;
	if (st->unmapped == st->machines) {
		printf("%s: %" PRIu64 " machines on one timeline, none with a clock mapping: each "
		       "placed by its own clock, all starting together\n", outpath, st->machines);
		return;
	}
	printf("%s: %" PRIu64 " machines on one timeline (CLOCK_REALTIME, by their clock "
	       "mappings)", outpath, st->machines);
	if (st->unmapped)
		printf("; %" PRIu64 " without a mapping placed by %s own clock at the start of the "
		       "others", st->unmapped, st->unmapped == 1 ? "its" : "their");
	printf("\n");
}

int cmd_export(int argc, char **argv)
{
	enum progress_mode pmode = PROGRESS_AUTO;
	const struct export_format *fmt = NULL;
	const char *outpath = "-";
	struct export_stats st;
	struct profile prof;
	struct output out;
	struct stat sb;
	size_t nskip = 0;
	char names[64];
	bool is_dir, keep = false;
	int ret;
	const struct opt opts[] = {
		OPT_CALLBACK('f', "format", "FMT", export_format_opt, 0,
			     "output format (required): one of the formats above",
			     .syn = "--format FMT"),
		OPT_STRING('o', "output", &outpath, "OUT",
			   "write to OUT (default, and '-': standard output; a\n"
			   "Perfetto trace or a database is binary and never goes\n"
			   "to a terminal). A regular file is replaced only once\n"
			   "the output is complete; a device or a FIFO is written\n"
			   "in place; a symbolic link is followed"),
		OPT_BOOL(0, "keep-going", &keep,
			 "in a directory, skip files that do not read, export\n"
			 "the rest, exit 1"),
		OPT_PROGRESS(&pmode),
		OPT_END(),
	};

	if (opts_parse(argc, argv, opts, &fmt, &ret))
		return ret;
	if (!fmt)
		return usage_error("missing --format (%s)", export_format_names(names, sizeof(names)));
	if (check_operands(argc, argv, 1, "PATH"))
		return EXIT_USAGE;
	if (!strcmp(outpath, "-") && fmt->binary && isatty(STDOUT_FILENO))
		return usage_error("%s is binary: give -o FILE or redirect the output",
				   fmt->binary);
	/* Before the work: a directory, or a file that cannot be made, fails now. */
	if (output_open(&out, outpath, OUTPUT_STDOUT | (fmt->database ? OUTPUT_BY_NAME : 0)))
		return EXIT_FAIL;
	/*
	 * A file that does not read fails the export, as it fails summary and
	 * report; with --keep-going, in a directory, it is left out with a
	 * warning naming it and the rest exported; the exit status is then 1. A
	 * FILE operand that does not read fails.
	 */
	is_dir = !stat(argv[optind], &sb) && S_ISDIR(sb.st_mode);
	if (is_dir && keep ? profile_load_skipping(argv[optind], &prof, "--keep-going", &nskip) :
	    profile_load_one_pass(argv[optind], &prof)) {
		output_abort(&out);
		return EXIT_FAIL;
	}
	ret = run(&prof, argv[optind], fmt, out.f, out.path, outpath, pmode, &st);
	if (ret)
		output_abort(&out);
	else
		ret = output_commit(&out);
	if (ret || !strcmp(outpath, "-")) {
		/* Standard output holds the trace: nothing else goes there. */
	} else if (fmt->database) {
		printf("%s: %" PRIu64 " entries from %zu file%s, %" PRIu64 " host events, %" PRIu64
		       " executions: %" PRIu64 " rows\n", outpath, st.entries, prof.nfiles,
		       prof.nfiles == 1 ? "" : "s", st.host_events, st.executions, st.rows);
		if (st.raw_entries)
			printf("%s: %" PRIu64 " raw entries, not decoded, in raw_entries\n", outpath,
			       st.raw_entries);
		machines_line(outpath, &st);
	} else {
		printf("%s: %" PRIu64 " entries from %zu file%s: %" PRIu64 " slices (%" PRIu64
		       " loss windows), %" PRIu64 " instants, %" PRIu64 " counter samples, %" PRIu64
		       " executions\n", outpath, st.entries, prof.nfiles,
		       prof.nfiles == 1 ? "" : "s", st.slices, st.lost_markers, st.instants,
		       st.counters, st.executions);
		if (st.lost_recorded || st.seq_gaps)
			printf("%s: losses: %" PRIu64 " entries lost as the rings counted, %" PRIu64
			       " missing from sequence numbers, %" PRIu64 " in the loss windows; %"
			       PRIu64 " instruction%s cut by a loss not drawn\n", outpath,
			       st.lost_recorded, st.seq_gaps, st.lost_entries, st.cut,
			       st.cut == 1 ? "" : "s");
		machines_line(outpath, &st);
		if (prof.nsys)
			printf("%s: system profile of %zu director%s: %" PRIu64 " host events, %"
			       PRIu64 " host samples, %" PRIu64 " host calls linked to their "
			       "execution by a flow\n", outpath, prof.nsys,
			       prof.nsys == 1 ? "y" : "ies", st.host_events, st.host_samples,
			       st.flows);
	}
	if (!ret && nskip)
		ret = fail("%zu file%s of %s skipped (--keep-going): the export leaves %s out", nskip,
			   nskip == 1 ? "" : "s", argv[optind], nskip == 1 ? "it" : "them");
	profile_free(&prof);
	return ret;
}
