// SPDX-License-Identifier: MIT
/*
 * neuronprof export --format json: the Chrome trace-event format (the JSON
 * object form, {"traceEvents": [...]}), which chrome://tracing, Perfetto
 * and most trace viewers open.
 *
 * pid is the NeuronCore (1000 * (device + 1) + core), tid the queue (see
 * export.c); "M" metadata events name and order both. Inferences are "X"
 * complete events, engine and TopSP events "B"/"E" pairs, instructions,
 * DMA transfers, errors and losses "i" instants on their queue's thread,
 * throttling a "C" counter. Timestamps are in microseconds with the
 * nanoseconds kept as three decimals, so no precision is lost.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/common.h>

#include "export.h"
#include "json.h"

struct json_export {
	FILE *out;
	bool first;
};

struct json_export *json_export_new(FILE *out)
{
	struct json_export *x = calloc(1, sizeof(*x));

	if (x) {
		x->out = out;
		x->first = true;
	}
	return x;
}

void json_export_free(struct json_export *x)
{
	free(x);
}

static void sep(struct json_export *x)
{
	if (!x->first)
		fputs(",\n", x->out);
	x->first = false;
}

static void ts_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned int)(ns % 1000));
}

static void args(FILE *f, const struct xarg *a, int n)
{
	fputs(",\"args\":{", f);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		fprintf(f, "\"%s\":", a[i].key);
		switch (a[i].kind) {
		case XARG_U64:
			fprintf(f, "%" PRIu64, a[i].u);
			break;
		case XARG_HEX:
			fprintf(f, "\"0x%" PRIx64 "\"", a[i].u);
			break;
		case XARG_STR:
			json_write_string(f, a[i].s);
			break;
		}
	}
	fputc('}', f);
}

/* Start of an event: name, category, phase, pid and tid. */
static void head(struct json_export *x, const char *name, const char *cat, char ph,
		 const struct xtrack *t)
{
	sep(x);
	fputs("{\"name\":", x->out);
	json_write_string(x->out, name);
	fprintf(x->out, ",\"cat\":\"%s\",\"ph\":\"%c\",\"pid\":%d,\"tid\":%d,\"ts\":", cat, ph,
		t->proc->pid, t->tid);
}

static int j_begin(void *ctx, const char *source)
{
	struct json_export *x = ctx;

	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":", x->out);
	fprintf(x->out, "\"neuronprof %s\",\"source\":", nprof_version_string());
	json_write_string(x->out, source);
	fputs("},\n\"traceEvents\":[\n", x->out);
	return 0;
}

static int j_process(void *ctx, const struct xproc *p)
{
	struct json_export *x = ctx;

	sep(x);
	fprintf(x->out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":",
		p->pid);
	json_write_string(x->out, p->name);
	fputs("}}", x->out);
	sep(x);
	fprintf(x->out, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
		"\"args\":{\"sort_index\":%d}}", p->pid, p->sort_index);
	return 0;
}

static int j_track(void *ctx, const struct xtrack *t)
{
	struct json_export *x = ctx;

	/* Groups exist only in Perfetto; counters are named by their events. */
	if (t->kind != XT_QUEUE)
		return 0;
	sep(x);
	fprintf(x->out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
		"\"args\":{\"name\":", t->proc->pid, t->tid);
	json_write_string(x->out, t->full_name);
	fputs("}}", x->out);
	sep(x);
	fprintf(x->out, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
		"\"args\":{\"sort_index\":%d}}", t->proc->pid, t->tid, t->sort_index);
	return 0;
}

static int j_slice(void *ctx, const struct xtrack *t, enum xslice_style style, const char *cat,
		   const char *name, uint64_t ts, uint64_t end_ts, const struct xarg *a, int n)
{
	struct json_export *x = ctx;

	if (style == XSLICE_COMPLETE) {
		head(x, name, cat, 'X', t);
		ts_us(x->out, ts);
		fputs(",\"dur\":", x->out);
		ts_us(x->out, end_ts - ts);
		args(x->out, a, n);
		fputc('}', x->out);
		return 0;
	}
	head(x, name, cat, 'B', t);
	ts_us(x->out, ts);
	args(x->out, a, n);
	fputc('}', x->out);
	head(x, name, cat, 'E', t);
	ts_us(x->out, end_ts);
	fputc('}', x->out);
	return 0;
}

static int j_instant(void *ctx, const struct xtrack *t, const char *cat, const char *name,
		     uint64_t ts, const struct xarg *a, int n)
{
	struct json_export *x = ctx;

	head(x, name, cat, 'i', t);
	ts_us(x->out, ts);
	fputs(",\"s\":\"t\"", x->out);
	args(x->out, a, n);
	fputc('}', x->out);
	return 0;
}

static int j_counter(void *ctx, const struct xproc *p, const char *name, uint64_t ts,
		     const struct xcounter *c, int n)
{
	struct json_export *x = ctx;

	sep(x);
	fputs("{\"name\":", x->out);
	json_write_string(x->out, name);
	fprintf(x->out, ",\"cat\":\"throttle\",\"ph\":\"C\",\"pid\":%d,\"ts\":", p->pid);
	ts_us(x->out, ts);
	fputs(",\"args\":{", x->out);
	for (int i = 0; i < n; i++)
		fprintf(x->out, "%s\"%s\":%" PRId64, i ? "," : "", c[i].key, c[i].value);
	fputs("}}", x->out);
	return 0;
}

static int j_end(void *ctx)
{
	struct json_export *x = ctx;

	fputs("\n]}\n", x->out);
	return 0;
}

const struct xformat json_format = {
	.begin = j_begin,
	.process = j_process,
	.track = j_track,
	.slice = j_slice,
	.instant = j_instant,
	.counter = j_counter,
	.end = j_end,
};
