// SPDX-License-Identifier: MIT
/*
 * neuronprof export: a profile as a Chrome trace-event JSON file or a
 * native Perfetto trace. The work common to both formats is in export.c,
 * each format in export_<format>.c.
 *
 * -o OUT is written by the rule of output.c: a regular file through a
 * temporary renamed over it once complete, so it is never half written; a
 * device, a FIFO or "-" in place; a symbolic link followed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/export.h"
#include "util/output.h"
#include "tool.h"

static const char export_usage[] =
	"Usage: neuronprof export --format json|perfetto|sqlite [-o OUT]\n"
	"                         [--progress=auto|always|never] PATH\n"
	"\n"
	"Convert a profile (an NTFF file, or a directory searched recursively for\n"
	".ntff files and the system profile files ntrace.pb, cpu_util.pb and\n"
	"host_mem.pb) into a timeline. In a directory, a file that does not read\n"
	"is skipped with a warning naming it and the rest exported (exit status 1).\n"
	"Recordings of several machines share one timeline by their clock mappings.\n"
	"Formats:\n"
	"  json      Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev)\n"
	"  perfetto  native Perfetto protobuf trace (ui.perfetto.dev, trace_processor)\n"
	"  sqlite    an SQLite database (schema: neuronprof-sqlite(5))\n"
	"\n"
	"  -f, --format FMT  output format (required): json, perfetto or sqlite\n"
	"  -o, --output OUT  write to OUT (default, and '-': standard output; a\n"
	"                    Perfetto trace or a database is binary and never goes\n"
	"                    to a terminal). A regular file is replaced only once\n"
	"                    the output is complete; a device or a FIFO is written\n"
	"                    in place; a symbolic link is followed\n"
	"  --progress=WHEN   progress bar on stderr (default auto: on a terminal,\n"
	"                    for large profiles)\n"
	"  -h, --help        this text\n";

enum format {
	FMT_NONE,
	FMT_JSON,
	FMT_PERFETTO,
	FMT_SQLITE,
};

/*
 * @out: the stream of JSON and Perfetto; @out_path: the file SQLite writes by
 * name (a temporary of -o); @out_name: -o itself, for messages.
 */
static int run(const struct profile *prof, const char *source, enum format fmt, FILE *out,
	       const char *out_path, const char *out_name, enum progress_mode pmode,
	       struct export_stats *st)
{
	struct progress pg;
	int ret;

	/* Big buffered writes: the exporters emit many small pieces. */
	if (out)
		setvbuf(out, NULL, _IOFBF, 1 << 20);
	progress_start(&pg, pmode, "export", prof->entries);
	if (fmt == FMT_SQLITE) {
		ret = sqlite_export(prof, source, out_path, out_name, &pg, st);
	} else if (fmt == FMT_JSON) {
		struct json_export *x = json_export_new(out);

		if (!x)
			return fail("out of memory");
		ret = export_run(prof, source, &json_format, x, &pg, st);
		json_export_free(x);
	} else {
		struct perfetto_export *x = perfetto_export_new(out);

		if (!x)
			return fail("out of memory");
		ret = export_run(prof, source, &perfetto_format, x, &pg, st);
		perfetto_export_free(x);
	}
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
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "progress", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum progress_mode pmode = PROGRESS_AUTO;
	enum format fmt = FMT_NONE;
	const char *outpath = NULL;
	struct export_stats st;
	struct profile prof;
	struct output out;
	struct stat sb;
	size_t nskip = 0;
	bool is_dir;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:f:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json"))
				fmt = FMT_JSON;
			else if (!strcmp(optarg, "perfetto"))
				fmt = FMT_PERFETTO;
			else if (!strcmp(optarg, "sqlite"))
				fmt = FMT_SQLITE;
			else
				return usage_error("unknown format '%s' (expected json, perfetto or "
						   "sqlite)", optarg);
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'P':
			if (parse_progress(optarg, &pmode))
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(export_usage, stdout);
			return 0;
		default:
			return option_error(c, argv);
		}
	}
	if (fmt == FMT_NONE)
		return usage_error("missing --format (json, perfetto or sqlite)");
	if (check_operands(argc, argv, 1, "PATH"))
		return EXIT_USAGE;
	if (!outpath)
		outpath = "-";
	if (!strcmp(outpath, "-") && fmt != FMT_JSON && isatty(STDOUT_FILENO))
		return usage_error("a%s is binary: give -o FILE or redirect the output",
				   fmt == FMT_SQLITE ? "n SQLite database" : " Perfetto trace");
	/* Before the work: a directory, or a file that cannot be made, fails now. */
	if (output_open(&out, outpath, OUTPUT_STDOUT | (fmt == FMT_SQLITE ? OUTPUT_BY_NAME : 0)))
		return EXIT_FAIL;
	/*
	 * In a directory, a file that does not read is left out with a warning
	 * naming it, and the rest exported; the exit status is then 1. A FILE
	 * operand that does not read fails.
	 */
	is_dir = !stat(argv[optind], &sb) && S_ISDIR(sb.st_mode);
	if (profile_load_skipping(argv[optind], &prof, is_dir ? "the export goes on without it" :
				  NULL, &nskip)) {
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
	} else if (fmt == FMT_SQLITE) {
		printf("%s: %" PRIu64 " entries from %zu file%s, %" PRIu64 " host events, %" PRIu64
		       " executions: %" PRIu64 " rows\n", outpath, st.entries, prof.nfiles,
		       prof.nfiles == 1 ? "" : "s", st.host_events, st.executions, st.rows);
		if (st.raw_entries)
			printf("%s: %" PRIu64 " raw entries, not decoded, in raw_entries\n", outpath,
			       st.raw_entries);
		machines_line(outpath, &st);
	} else {
		printf("%s: %" PRIu64 " entries from %zu file%s: %" PRIu64 " slices, %" PRIu64
		       " instants (%" PRIu64 " lost markers), %" PRIu64 " counter samples, %" PRIu64
		       " executions\n", outpath, st.entries, prof.nfiles,
		       prof.nfiles == 1 ? "" : "s", st.slices, st.instants, st.lost_markers,
		       st.counters, st.executions);
		machines_line(outpath, &st);
		if (prof.nsys)
			printf("%s: system profile of %zu director%s: %" PRIu64 " host events, %"
			       PRIu64 " host samples, %" PRIu64 " host calls linked to their "
			       "execution by a flow\n", outpath, prof.nsys,
			       prof.nsys == 1 ? "y" : "ies", st.host_events, st.host_samples,
			       st.flows);
	}
	if (!ret && nskip)
		ret = fail("%zu file%s of %s skipped: the export leaves %s out", nskip,
			   nskip == 1 ? "" : "s", argv[optind], nskip == 1 ? "it" : "them");
	profile_free(&prof);
	return ret;
}
