// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the export formats, in one table (export.h) that export's
 * parsing, its --help and the tests' check of the manual page all read.
 */
#include <stdio.h>
#include <string.h>

#include "export/export.h"

static void *json_open(FILE *out)
{
	return json_export_new(out);
}

static void json_close(void *x)
{
	json_export_free(x);
}

static void *perfetto_open(FILE *out)
{
	return perfetto_export_new(out);
}

static void perfetto_close(void *x)
{
	perfetto_export_free(x);
}

const struct export_format export_formats[] = {
	{ "json", "Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev)",
	  .timeline = &json_format, .open = json_open, .close = json_close },
	{ "perfetto", "native Perfetto protobuf trace (ui.perfetto.dev, trace_processor)",
	  .binary = "a Perfetto trace",
	  .timeline = &perfetto_format, .open = perfetto_open, .close = perfetto_close },
	{ "sqlite", "an SQLite database (schema: neuronprof-sqlite(5))",
	  .binary = "an SQLite database", .database = sqlite_export },
	{ .name = NULL },
};

int export_format_run(const struct export_format *fmt, const struct profile *prof,
		      const char *source, FILE *out, const char *path, const char *name,
		      struct progress *pg, struct export_stats *st)
{
	void *x;
	int ret;

	if (fmt->database)
		return fmt->database(prof, source, path, name, pg, st);
	x = fmt->open(out);
	if (!x)
		return fail("out of memory"), -1;
	ret = export_run(prof, source, fmt->timeline, x, pg, st);
	fmt->close(x);
	return ret;
}

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
