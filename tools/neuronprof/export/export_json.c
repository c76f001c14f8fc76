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
#include "export/export_json_internal.h"
#include "util/fmt.h"
#include "util/json.h"

struct json_export *json_export_new(FILE *out)
{
	struct json_export *x;

	/* Aligned as its instruction slots are. */
	if (posix_memalign((void **)&x, 64, sizeof(*x)))
		x = NULL;
	if (x) {
		for (int i = 0; i < 1000; i++) {
			x->frac[i][0] = '.';
			x->frac[i][1] = (char)('0' + i / 100);
			x->frac[i][2] = (char)('0' + i / 10 % 10);
			x->frac[i][3] = (char)('0' + i % 10);
		}
		memset(x->keys, 0, sizeof(x->keys));
		memset(x->names, 0, sizeof(x->names));
		x->tail_track = NULL;
		x->last_us = UINT64_MAX;	/* no timestamp's: at most UINT64_MAX / 1000 */
		x->last_us_len = 0;
		for (int i = 0; i < XINSTR_CACHE; i++)
			x->instrs[i].key = 0;
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

/* Member @i of an "args" object: a comma before all but the first, its key, ':'. */
static void arg_key(struct json_export *x, int i, const char *key)
{
	if (i)
		ob_mem(&x->ob, ",", 1);
	string(x, key);
	ob_mem(&x->ob, ":", 1);
}

static void args(struct json_export *x, const struct xarg *a, int n)
{
	ob_str(&x->ob, ",\"args\":{");
	for (int i = 0; i < n; i++) {
		arg_key(x, i, a[i].key);
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

/*
 * The fast path of events, which are nearly all of an export: the whole
 * event is formatted straight into the buffer after one check for room. It
 * writes the same bytes as head(), ts_us() and args() above, and leaves
 * anything that would need escaping, or is long, to them. Pieces that
 * repeat (an argument's "key":, an event's category, phase, pid, tid) are
 * formatted once into fixed-size slots and copied whole, which the
 * compiler does in a few vector moves; only the used length counts.
 */


/*
 * "key": of an argument key, formatted once per address: the walk's keys
 * and categories are string literals or strings of the profile, which do
 * not change during an export (export.h). NULL when it needs the escaper.
 */
static const struct key_slot *key_slot(struct json_export *x, const char *key)
{
	/* Literals lie bytes apart: a multiplicative hash spreads them. */
	struct key_slot *k = &x->keys[(((uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ULL) >> 56) %
				      KEY_CACHE];
	char *p;

	if (k->s == key)
		return k;
	k->s = NULL;
	p = k->text;
	*p++ = '"';
	for (size_t i = 0; key[i]; i++) {
		/* Room for the quotes and the colon. */
		if (i + 4 > SLOT || needs_escape((unsigned char)key[i]))
			return NULL;
		*p++ = key[i];
	}
	*p++ = '"';
	*p++ = ':';
	k->len = (size_t)(p - k->text);
	k->s = key;
	return k;
}

/*
 * The bytes of slice name @name, remembered by its name_key @key (non-zero;
 * the same for every slice named by the same string, export.h), so that an
 * instruction's name is one fixed-size copy, not a byte-by-byte check.
 * NULL when it needs the escaper or does not fit a slot (copy_plain() then
 * decides).
 */
static const struct name_slot *name_slot(struct json_export *x, const char *name, uint64_t key)
{
	struct name_slot *ns = &x->names[((key * 0x9e3779b97f4a7c15ULL) >> 56) % NAME_CACHE];
	char *end;

	if (ns->key == key)
		return ns;
	ns->key = 0;
	if (strnlen(name, NAME_SLOT) >= NAME_SLOT)
		return NULL;
	end = copy_plain(ns->text, name);
	if (!end)
		return NULL;
	ns->len = (size_t)(end - ns->text);
	ns->key = key;
	return ns;
}

/*
 * ","cat":"C","ph":"P","pid":N,"tid":N,"ts": for a track, category and
 * phase, formatted when one of them changes. False if C needs the escaper.
 */
static bool tail(struct json_export *x, const struct xtrack *t, const char *cat, char ph)
{
	char *p = x->tail;

	if (x->tail_track == t && x->tail_cat == cat && x->tail_ph == ph)
		return true;
	x->tail_track = NULL;
	if (strlen(cat) > TAIL_CAT_MAX)
		return false;
	p = fmt_str(p, "\",\"cat\":\"");
	p = copy_plain(p, cat);
	if (!p)
		return false;
	p = fmt_str(p, "\",\"ph\":\"");
	*p++ = ph;
	p = fmt_str(p, "\",\"pid\":");
	p = fmt_i64(p, t->proc->pid);
	p = fmt_str(p, ",\"tid\":");
	p = fmt_i64(p, t->tid);
	p = fmt_str(p, ",\"ts\":");
	x->tail_len = (size_t)(p - x->tail);
	x->tail_track = t;
	x->tail_cat = cat;
	x->tail_ph = ph;
	return true;
}


/*
 * One event: {"name":...,"cat":...,"ph":"P","pid":N,"tid":N,"ts":T, then
 * ,"dur":D when @dur, ,"s":"t" when @instant, the arguments when @n >= 0,
 * and }. False, with nothing written, when a string needs escaping or is
 * long.
 */
static bool fast_event(struct json_export *x, const struct xtrack *t, char ph, const char *name,
		       uint64_t name_key, const char *cat, uint64_t ts, const uint64_t *dur,
		       bool instant, const struct xarg *a, int n)
{
	const struct name_slot *ns;
	char *p;

	if (n > XARGS_MAX || !tail(x, t, cat, ph))
		return false;
	ns = name_key ? name_slot(x, name, name_key) : NULL;
	p = ob_reserve(&x->ob, FAST_ROOM);
	if (!x->first)
		p = PUT(p, ",\n");
	p = PUT(p, "{\"name\":\"");
	if (ns) {
		/* The whole slot: a fixed-size copy; only len of it counts. */
		memcpy(p, ns->text, NAME_SLOT);
		p += ns->len;
	} else {
		p = copy_plain(p, name);
		if (!p)
			return false;
	}
	p = put_slot(p, x->tail, x->tail_len, 64, sizeof(x->tail));
	p = put_ts(x, p, ts);
	if (dur) {
		p = PUT(p, ",\"dur\":");
		p = put_dur(x, p, *dur);
	}
	if (instant)
		p = PUT(p, ",\"s\":\"t\"");
	if (n >= 0) {
		p = PUT(p, ",\"args\":{");
		for (int i = 0; i < n; i++) {
			const struct key_slot *k = key_slot(x, a[i].key);

			if (!k)
				return false;
			if (i)
				*p++ = ',';
			p = put_slot(p, k->text, k->len, 16, SLOT);
			switch (a[i].kind) {
			case XARG_U64:
				p = fmt_u64(p, a[i].u);
				break;
			case XARG_HEX:
				p = PUT(p, "\"0x");
				p = put_hex(p, a[i].u);
				*p++ = '"';
				break;
			case XARG_STR:
				*p++ = '"';
				p = copy_plain(p, a[i].s);
				if (!p)
					return false;
				*p++ = '"';
				break;
			case XARG_I64:
				p = fmt_i64(p, a[i].i);
				break;
			case XARG_DOUBLE:
				p += snprintf(p, 32, "%.6g", isfinite(a[i].d) ? a[i].d : 0.0);
				break;
			}
		}
		*p++ = '}';
	}
	*p++ = '}';
	x->first = false;
	ob_commit(&x->ob, p);
	return true;
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
		   const char *name, uint64_t name_key, uint64_t ts, uint64_t end_ts,
		   const struct xarg *a, int n, uint64_t flow_out, uint64_t flow_in)
{
	struct json_export *x = ctx;

	if (flow_out)
		flow(x, 's', flow_out, t, ts);
	if (flow_in)
		flow(x, 'f', flow_in, t, ts);
	if (style == XSLICE_COMPLETE) {
		uint64_t dur = end_ts - ts;

		if (fast_event(x, t, 'X', name, name_key, cat, ts, &dur, false, a, n))
			return 0;
		head(x, name, cat, 'X', t);
		ts_us(x, ts);
		ob_str(&x->ob, ",\"dur\":");
		ts_us(x, end_ts - ts);
		args(x, a, n);
		ob_mem(&x->ob, "}", 1);
		return 0;
	}
	if (!fast_event(x, t, 'B', name, name_key, cat, ts, NULL, false, a, n)) {
		head(x, name, cat, 'B', t);
		ts_us(x, ts);
		args(x, a, n);
		ob_mem(&x->ob, "}", 1);
	}
	if (fast_event(x, t, 'E', name, name_key, cat, end_ts, NULL, false, NULL, -1))
		return 0;
	head(x, name, cat, 'E', t);
	ts_us(x, end_ts);
	ob_mem(&x->ob, "}", 1);
	return 0;
}

/* The instructions: export_json_instrs.c. */
static int j_instrs(void *ctx, const struct xtrack *t, const struct xinstr *v, size_t n)
{
	return json_instrs(&json_format, ctx, t, v, n);
}


/* The DMA transfers: export_json_instrs.c. */
static int j_dmas(void *ctx, const struct xtrack *t, const struct xdma *v, size_t n)
{
	return json_dmas(&json_format, ctx, t, v, n);
}

static int j_instant(void *ctx, const struct xtrack *t, const char *cat, const char *name,
		     uint64_t ts, const struct xarg *a, int n)
{
	struct json_export *x = ctx;

	if (fast_event(x, t, 'i', name, 0, cat, ts, NULL, true, a, n))
		return 0;
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
		arg_key(x, i, c[i].key);
		if (c[i].is_double)
			number(x, c[i].dvalue);
		else
			ob_i64(&x->ob, c[i].value);
	}
	ob_str(&x->ob, "}}");
	return 0;
}

static int j_end(void *ctx, const struct export_stats *st)
{
	struct json_export *x = ctx;

	ob_str(&x->ob, "\n]");
	/* Losses: their totals in the trace's metadata. */
	if (st->lost_recorded || st->seq_gaps) {
		ob_str(&x->ob, ",\"metadata\":{\"neuronprof_lost_recorded\":");
		ob_u64(&x->ob, st->lost_recorded);
		ob_str(&x->ob, ",\"neuronprof_seq_gaps\":");
		ob_u64(&x->ob, st->seq_gaps);
		ob_str(&x->ob, ",\"neuronprof_loss_windows\":");
		ob_u64(&x->ob, st->lost_markers);
		ob_str(&x->ob, ",\"neuronprof_lost_in_windows\":");
		ob_u64(&x->ob, st->lost_entries);
		ob_str(&x->ob, ",\"neuronprof_cut_instructions\":");
		ob_u64(&x->ob, st->cut);
		ob_str(&x->ob, "}");
	}
	ob_str(&x->ob, "}\n");
	ob_flush(&x->ob);
	return 0;
}

DEFINE_XFORMAT(json_format, j);
