// SPDX-License-Identifier: MIT
/*
 * neuronprof export: a profile as a Chrome trace-event JSON file or a
 * native Perfetto trace. The work common to both formats is in export.c,
 * each format in export_<format>.c.
 *
 * With -o the trace is written to a temporary file in the same directory
 * and renamed over OUT only once complete, so OUT is never half written.
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

#include "export.h"

static const char export_usage[] =
	"Usage: neuronprof export --format json|perfetto|sqlite [-o OUT]\n"
	"                         [--progress=auto|always|never] PATH\n"
	"\n"
	"Convert a profile (an NTFF file, or a directory searched recursively for\n"
	".ntff files and the system profile files ntrace.pb, cpu_util.pb and\n"
	"host_mem.pb) into a timeline:\n"
	"  json      Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev)\n"
	"  perfetto  native Perfetto protobuf trace (ui.perfetto.dev, trace_processor)\n"
	"  sqlite    an SQLite database (schema: Documentation/analysis.rst); needs -o\n"
	"\n"
	"  -f, --format FMT  output format (required)\n"
	"  -o, --output OUT  write to OUT (default: standard output; a Perfetto\n"
	"                    trace is binary and never goes to a terminal)\n"
	"  --progress=WHEN   progress bar on stderr (default auto: on a terminal,\n"
	"                    for large profiles)\n"
	"  -h, --help        this text\n";

enum format {
	FMT_NONE,
	FMT_JSON,
	FMT_PERFETTO,
	FMT_SQLITE,
};

/* @out_path: the temporary file of -o (SQLite writes it by name); @out_name: -o itself. */
static int run(const struct profile *prof, const char *source, enum format fmt, FILE *out,
	       const char *out_path, const char *out_name, enum progress_mode pmode,
	       struct export_stats *st)
{
	struct progress pg;
	int ret;

	/* Big buffered writes: the exporters emit many small pieces. */
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
	char tmp[PATH_MAX];
	struct export_stats st;
	struct profile prof;
	FILE *out;
	int c, ret, fd;

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
	if (outpath && !strcmp(outpath, "-"))
		outpath = NULL;
	if (!outpath && fmt == FMT_SQLITE)
		return usage_error("an SQLite database is a file: give -o FILE");
	if (!outpath && fmt == FMT_PERFETTO && isatty(STDOUT_FILENO))
		return usage_error("a Perfetto trace is binary: give -o FILE or redirect the "
				   "output");
	if (profile_load(argv[optind], &prof))
		return EXIT_FAIL;

	if (!outpath) {
		ret = run(&prof, argv[optind], fmt, stdout, NULL, NULL, pmode, &st);
		if (!ret)
			ret = flush_stdout();
		profile_free(&prof);
		return ret;
	}

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", outpath) >= sizeof(tmp)) {
		profile_free(&prof);
		return fail("output path too long: %s", outpath);
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = fail("cannot create %s: %s", outpath, strerror(errno));
		profile_free(&prof);
		return ret;
	}
	/* mkstemp makes 0600; a trace is as readable as any file the user makes. */
	{
		mode_t um = umask(0);

		umask(um);
		if (fchmod(fd, 0666 & ~um))
			warn("cannot set the mode of %s: %s", outpath, strerror(errno));
	}
	out = fdopen(fd, "w");
	if (!out) {
		ret = fail("cannot open %s: %s", outpath, strerror(errno));
		close(fd);
		unlink(tmp);
		profile_free(&prof);
		return ret;
	}
	ret = run(&prof, argv[optind], fmt, out, tmp, outpath, pmode, &st);
	if (!ret && (fflush(out) || ferror(out) || fsync(fileno(out))))
		ret = fail("cannot write %s: %s", outpath, strerror(errno));
	if (fclose(out) && !ret)
		ret = fail("cannot write %s: %s", outpath, strerror(errno));
	if (!ret && rename(tmp, outpath))
		ret = fail("cannot put %s in place: %s", outpath, strerror(errno));
	if (ret)
		unlink(tmp);
	else if (fmt == FMT_SQLITE)
		printf("%s: %" PRIu64 " entries from %zu file%s, %" PRIu64 " host events, %" PRIu64
		       " executions: %" PRIu64 " rows\n", outpath, st.entries, prof.nfiles,
		       prof.nfiles == 1 ? "" : "s", st.host_events, st.executions, st.rows);
	else
		printf("%s: %" PRIu64 " entries from %zu file%s: %" PRIu64 " slices, %" PRIu64
		       " instants (%" PRIu64 " lost markers), %" PRIu64 " counter samples, %" PRIu64
		       " executions\n", outpath, st.entries, prof.nfiles,
		       prof.nfiles == 1 ? "" : "s", st.slices, st.instants, st.lost_markers,
		       st.counters, st.executions);
	if (!ret && st.machines > 1 && fmt != FMT_SQLITE) {
		printf("%s: %" PRIu64 " machines on one timeline (CLOCK_REALTIME, by their clock "
		       "mappings)", outpath, st.machines);
		if (st.unmapped)
			printf("; %" PRIu64 " without a mapping on %s own clock", st.unmapped,
			       st.unmapped == 1 ? "its" : "their");
		printf("\n");
	}
	if (!ret && prof.nsys && fmt != FMT_SQLITE)
		printf("%s: system profile of %zu director%s: %" PRIu64 " host events, %" PRIu64
		       " host samples, %" PRIu64 " host calls linked to their execution by a flow\n",
		       outpath, prof.nsys, prof.nsys == 1 ? "y" : "ies", st.host_events,
		       st.host_samples, st.flows);
	profile_free(&prof);
	return ret;
}
