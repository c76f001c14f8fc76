// SPDX-License-Identifier: MIT
/*
 * neuronprof export --format json: the Chrome trace-event format (the JSON
 * object form, {"traceEvents": [...]}), which chrome://tracing, Perfetto
 * and most trace viewers open.
 *
 * pid is the NeuronCore (XPID_DEVICE_BASE + 1000 * device + core), tid the
 * queue (see export.c); "M" metadata events name and order both. Host
 * processes and threads of the system profile keep their own pid and tid.
 * Inferences and executions are "X" complete events, engine and TopSP
 * events and instructions "B"/"E" pairs, DMA transfers, errors and losses
 * "i" instants on their queue's thread, throttling a "C" counter; host
 * events are "X" events, host CPU and memory samples "C" counters. A flow
 * ("s" at the nrt_execute call, "f" at the execution it started) links a host
 * call to the device. Timestamps are in microseconds with the
 * nanoseconds kept as three decimals, so no precision is lost.
 *
 * Events are formatted into a buffer with fmt.h rather than with stdio's
 * printf family, which cost most of the export's time.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/common.h>

#include "export/export.h"
#include "util/fmt.h"
#include "util/json.h"

struct json_export {
	bool first;
	struct obuf ob;
};

struct json_export *json_export_new(FILE *out)
{
	struct json_export *x = malloc(sizeof(*x));

	if (x) {
		x->first = true;
		x->ob.f = out;
		x->ob.len = 0;
	}
	return x;
}

void json_export_free(struct json_export *x)
{
	if (x)
		ob_flush(&x->ob);
	free(x);
}

/*
 * A string literal. Names and keys the walk makes are plain ASCII and take
 * the fast path; anything else (a provider name from a file) goes through
 * the full escaper.
 */
static void string(struct json_export *x, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
			break;
	if (*p) {
		ob_flush(&x->ob);
		jw_write_string(x->ob.f, s);
		return;
	}
	ob_mem(&x->ob, "\"", 1);
	ob_mem(&x->ob, s, (size_t)(p - (const unsigned char *)s));
	ob_mem(&x->ob, "\"", 1);
}

static void sep(struct json_export *x)
{
	if (!x->first)
		ob_mem(&x->ob, ",\n", 2);
	x->first = false;
}

static void ts_us(struct json_export *x, uint64_t ns)
{
	char *p = ob_reserve(&x->ob, 24);
	unsigned int frac = (unsigned int)(ns % 1000);

	p = fmt_u64(p, ns / 1000);
	*p++ = '.';
	*p++ = (char)('0' + frac / 100);
	*p++ = (char)('0' + frac / 10 % 10);
	*p++ = (char)('0' + frac % 10);
	ob_commit(&x->ob, p);
}

/* JSON has no NaN or infinity; a sample that is not a number reads as 0. */
static void number(struct json_export *x, double d)
{
	char *p = ob_reserve(&x->ob, 32);

	ob_commit(&x->ob, p + snprintf(p, 32, "%.6g", isfinite(d) ? d : 0.0));
}

static void args(struct json_export *x, const struct xarg *a, int n)
{
	ob_str(&x->ob, ",\"args\":{");
	for (int i = 0; i < n; i++) {
		if (i)
			ob_mem(&x->ob, ",", 1);
		string(x, a[i].key);
		ob_mem(&x->ob, ":", 1);
		switch (a[i].kind) {
		case XARG_U64:
			ob_u64(&x->ob, a[i].u);
			break;
		case XARG_HEX: {
			char *p = ob_reserve(&x->ob, 20);

			*p++ = '"';
			*p++ = '0';
			*p++ = 'x';
			p = fmt_hex(p, a[i].u, 1);
			*p++ = '"';
			ob_commit(&x->ob, p);
			break;
		}
		case XARG_STR:
			string(x, a[i].s);
			break;
		case XARG_I64:
			ob_i64(&x->ob, a[i].i);
			break;
		case XARG_DOUBLE:
			number(x, a[i].d);
			break;
		}
	}
	ob_mem(&x->ob, "}", 1);
}

/* Start of an event: name, category, phase, pid and tid, then "ts":. */
static void head(struct json_export *x, const char *name, const char *cat, char ph,
		 const struct xtrack *t)
{
	char phase[] = ",\"ph\":\"?\",\"pid\":";

	sep(x);
	ob_str(&x->ob, "{\"name\":");
	string(x, name);
	ob_str(&x->ob, ",\"cat\":");
	string(x, cat);
	phase[7] = ph;
	ob_str(&x->ob, phase);
	ob_i64(&x->ob, t->proc->pid);
	ob_str(&x->ob, ",\"tid\":");
	ob_i64(&x->ob, t->tid);
	ob_str(&x->ob, ",\"ts\":");
}

static int j_begin(void *ctx, const char *source)
{
	struct json_export *x = ctx;

	ob_str(&x->ob, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"neuronprof ");
	ob_str(&x->ob, nprof_version_string());
	ob_str(&x->ob, "\",\"source\":");
	string(x, source);
	ob_str(&x->ob, "},\n\"traceEvents\":[\n");
	return 0;
}

static void metadata(struct json_export *x, const char *what, int32_t pid, const int32_t *tid,
		     const char *name, int sort_index)
{
	sep(x);
	ob_str(&x->ob, "{\"name\":\"");
	ob_str(&x->ob, what);
	ob_str(&x->ob, "\",\"ph\":\"M\",\"pid\":");
	ob_i64(&x->ob, pid);
	if (tid) {
		ob_str(&x->ob, ",\"tid\":");
		ob_i64(&x->ob, *tid);
	}
	if (name) {
		ob_str(&x->ob, ",\"args\":{\"name\":");
		string(x, name);
	} else {
		ob_str(&x->ob, ",\"args\":{\"sort_index\":");
		ob_i64(&x->ob, sort_index);
	}
	ob_str(&x->ob, "}}");
}

static int j_process(void *ctx, const struct xproc *p)
{
	metadata(ctx, "process_name", p->pid, NULL, p->name, 0);
	metadata(ctx, "process_sort_index", p->pid, NULL, NULL, p->sort_index);
	return 0;
}

static int j_track(void *ctx, const struct xtrack *t)
{
	/* Groups exist only in Perfetto; counters are named by their events. */
	if (t->kind != XT_QUEUE && t->kind != XT_THREAD && t->kind != XT_EXEC)
		return 0;
	metadata(ctx, "thread_name", t->proc->pid, &t->tid, t->full_name, 0);
	metadata(ctx, "thread_sort_index", t->proc->pid, &t->tid, NULL, t->sort_index);
	return 0;
}

/* A flow event: "s" starts flow @id, "f" (bound to the enclosing slice) ends it. */
static void flow(struct json_export *x, char ph, uint64_t id, const struct xtrack *t, uint64_t ts)
{
	head(x, "execute", "flow", ph, t);
	ts_us(x, ts);
	ob_str(&x->ob, ",\"id\":");
	ob_u64(&x->ob, id);
	if (ph == 'f')
		ob_str(&x->ob, ",\"bp\":\"e\"");
	ob_mem(&x->ob, "}", 1);
}

static int j_slice(void *ctx, const struct xtrack *t, enum xslice_style style, const char *cat,
		   const char *name, uint64_t ts, uint64_t end_ts, const struct xarg *a, int n,
		   uint64_t flow_out, uint64_t flow_in)
{
	struct json_export *x = ctx;

	if (flow_out)
		flow(x, 's', flow_out, t, ts);
	if (flow_in)
		flow(x, 'f', flow_in, t, ts);
	if (style == XSLICE_COMPLETE) {
		head(x, name, cat, 'X', t);
		ts_us(x, ts);
		ob_str(&x->ob, ",\"dur\":");
		ts_us(x, end_ts - ts);
		args(x, a, n);
		ob_mem(&x->ob, "}", 1);
		return 0;
	}
	head(x, name, cat, 'B', t);
	ts_us(x, ts);
	args(x, a, n);
	ob_mem(&x->ob, "}", 1);
	head(x, name, cat, 'E', t);
	ts_us(x, end_ts);
	ob_mem(&x->ob, "}", 1);
	return 0;
}

static int j_instant(void *ctx, const struct xtrack *t, const char *cat, const char *name,
		     uint64_t ts, const struct xarg *a, int n)
{
	struct json_export *x = ctx;

	head(x, name, cat, 'i', t);
	ts_us(x, ts);
	ob_str(&x->ob, ",\"s\":\"t\"");
	args(x, a, n);
	ob_mem(&x->ob, "}", 1);
	return 0;
}

static int j_counter(void *ctx, const struct xproc *p, const char *name, uint64_t ts,
		     const struct xcounter *c, int n)
{
	struct json_export *x = ctx;

	sep(x);
	ob_str(&x->ob, "{\"name\":");
	string(x, name);
	ob_str(&x->ob, ",\"cat\":\"counter\",\"ph\":\"C\",\"pid\":");
	ob_i64(&x->ob, p->pid);
	ob_str(&x->ob, ",\"ts\":");
	ts_us(x, ts);
	ob_str(&x->ob, ",\"args\":{");
	for (int i = 0; i < n; i++) {
		if (i)
			ob_mem(&x->ob, ",", 1);
		string(x, c[i].key);
		ob_mem(&x->ob, ":", 1);
		if (c[i].is_double)
			number(x, c[i].dvalue);
		else
			ob_i64(&x->ob, c[i].value);
	}
	ob_str(&x->ob, "}}");
	return 0;
}

static int j_end(void *ctx)
{
	struct json_export *x = ctx;

	ob_str(&x->ob, "\n]}\n");
	ob_flush(&x->ob);
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
