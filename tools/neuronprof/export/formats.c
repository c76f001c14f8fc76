// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the export formats, in one table (export.h) that export's
 * parsing, its --help and the tests' check of the manual page all read.
 */
#include <stdio.h>
#include <string.h>

#include "export/export.h"

static int run_json(const struct profile *prof, const char *source, FILE *out,
		    const char *path, const char *name, struct progress *pg,
		    struct export_stats *st)
{
	struct json_export *x = json_export_new(out);
	int ret;

	(void)path;
	(void)name;
	if (!x)
		return fail("out of memory"), -1;
	ret = export_run(prof, source, &json_format, x, pg, st);
	json_export_free(x);
	return ret;
}

static int run_perfetto(const struct profile *prof, const char *source, FILE *out,
			const char *path, const char *name, struct progress *pg,
			struct export_stats *st)
{
	struct perfetto_export *x = perfetto_export_new(out);
	int ret;

	(void)path;
	(void)name;
	if (!x)
		return fail("out of memory"), -1;
	ret = export_run(prof, source, &perfetto_format, x, pg, st);
	perfetto_export_free(x);
	return ret;
}

static int run_sqlite(const struct profile *prof, const char *source, FILE *out,
		      const char *path, const char *name, struct progress *pg,
		      struct export_stats *st)
{
	(void)out;
	return sqlite_export(prof, source, path, name, pg, st);
}

const struct export_format export_formats[] = {
	{ "json", "Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev)",
	  NULL, false, run_json },
	{ "perfetto", "native Perfetto protobuf trace (ui.perfetto.dev, trace_processor)",
	  "a Perfetto trace", false, run_perfetto },
	{ "sqlite", "an SQLite database (schema: neuronprof-sqlite(5))",
	  "an SQLite database", true, run_sqlite },
	{ NULL, NULL, NULL, false, NULL },
};

const struct export_format *export_format_find(const char *name)
{
	for (const struct export_format *f = export_formats; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

const char *export_format_names(char *buf, size_t len)
{
	size_t n = 0, off = 0;

	while (export_formats[n].name)
		n++;
	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					!i ? "" : i + 1 == n ? " or " : ", ",
					export_formats[i].name);
	return buf;
}
