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

/* Argument keys remembered by address (see key_slot()). */
#define KEY_CACHE	256
#define TAIL_CAT_MAX	64
#define SLOT		64

struct key_slot {
	const char *s;
	size_t len;
	char text[SLOT];	/* "key": */
};

/* Slice names remembered by their name_key (see name_slot()). */
#define NAME_CACHE	256
#define NAME_SLOT	48

struct name_slot {
	uint64_t key;		/* 0: empty */
	size_t len;
	char text[NAME_SLOT];	/* the name's bytes, no quotes */
};

/*
 * What repeats in the instructions of one name and opcode (see j_instrs()):
 * the name's bytes in one cache line, and for a named instruction those
 * from "args" to the first hex digit of "pc" in a second: the slots of the
 * opcodes a program runs stay in the cache while the output streams past.
 */
#define INSTR_CACHE	512
#define INSTR_ARGS	38

#define INSTR_NAME	46

struct instr_slot {
	uint64_t key;			/* name_key; 0: empty */
	uint64_t tag;			/* XINSTR_TAG(code, named) */
	uint8_t name_len, args_len;
	char name[INSTR_NAME];		/* the name's bytes, no quotes */
	/* Named instructions only (the others' are INSTR_ARGS_PLAIN): a second line. */
	char args[INSTR_ARGS];		/* ,"args":{"code":"0x000102","pc":"0x */
} __attribute__((aligned(64)));

#define INSTR_ARGS_PLAIN	",\"args\":{\"pc\":\"0x"

struct json_export {
	bool first;
	struct key_slot keys[KEY_CACHE];
	struct name_slot names[NAME_CACHE];
	/* What follows the name for one track, category and phase (see tail()). */
	const struct xtrack *tail_track;
	const char *tail_cat;
	char tail_ph;
	size_t tail_len;
	char tail[160];
	char frac[1000][4];	/* ".000" to ".999" */
	/* The microseconds of the last timestamp put_ts() wrote, and their digits. */
	uint64_t last_us;
	size_t last_us_len;
	char last_us_text[24];
	struct instr_slot instrs[INSTR_CACHE];
	struct obuf ob;
};

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
		for (int i = 0; i < INSTR_CACHE; i++)
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

/* Room the fast path asks for: enough for its longest event (FAST_STR_MAX strings). */
#define FAST_ROOM	4096
#define FAST_STR_MAX	128

/* A byte that JSON needs escaped, or that the fast path leaves to the escaper. */
static inline bool needs_escape(unsigned char c)
{
	return c < 0x20 || c >= 0x7f || c == '"' || c == '\\';
}

/*
 * Copies the string @s to @p while checking it; returns the end, or NULL
 * if it needs escaping or is longer than FAST_STR_MAX. Byte by byte, with
 * one table lookup each: names were just written byte by byte, and a wider
 * load of them (strlen()'s, a word's) would wait for those stores to land.
 */
static char *copy_plain(char *p, const char *s)
{
	/* 1 for the bytes that end the fast path: NUL and those needs_escape() names. */
	static const uint8_t stop[256] = {
		[0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x7f ... 0xff] = 1,
	};
	unsigned char c = 0;
	int i;

	for (i = 0; i < FAST_STR_MAX; i++) {
		c = (unsigned char)s[i];
		if (stop[c])
			break;
		p[i] = (char)c;
	}
	return c ? NULL : p + i;
}

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

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

#define PUT(p, lit)	put(p, lit, sizeof(lit) - 1)

/* Eight nibbles of @v, most significant first, as lowercase hex characters in memory order. */
static uint64_t hex8(uint32_t v)
{
	uint64_t d = v, m;

	/* Each nibble to a byte of its own, the least significant in byte 0... */
	d = (d | d << 16) & 0x0000ffff0000ffffULL;
	d = (d | d << 8) & 0x00ff00ff00ff00ffULL;
	d = (d | d << 4) & 0x0f0f0f0f0f0f0f0fULL;
	/* ...then to '0'..'9' and 'a'..'f' (39 more than '0' + 10)... */
	m = ((d + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	d += 0x3030303030303030ULL + m * 39;
	/* ...the most significant first in memory. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	d = __builtin_bswap64(d);
#endif
	return d;
}

/*
 * Lowercase hex of @v, no leading zeros, at @p, which has 16 bytes of room:
 * the digits are made four (two table lookups) or eight at a time and
 * stored shifted so that the significant ones come first; the bytes past
 * the end are overwritten by what follows.
 */
static inline __attribute__((always_inline)) char *put_hex(char *p, uint64_t v)
{
	int n = (64 - __builtin_clzll(v | 1) + 3) / 4;
	uint64_t h[2];

	if (n <= 4) {
		/* Most arguments (addresses within a program, operands) are short. */
		uint16_t hi, lo;
		uint32_t w;

		memcpy(&hi, fmt_hex_pairs + 2 * ((v >> 8) & 0xff), 2);
		memcpy(&lo, fmt_hex_pairs + 2 * (v & 0xff), 2);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		w = (uint32_t)hi | (uint32_t)lo << 16;
#else
		w = (uint32_t)hi << 16 | lo;
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		w >>= 8 * (4 - n);
#else
		w <<= 8 * (4 - n);
#endif
		memcpy(p, &w, 4);
	} else if (n <= 8) {
		h[0] = hex8((uint32_t)v << (4 * (8 - n)));
		memcpy(p, h, 8);
	} else {
		v <<= 4 * (16 - n);
		h[0] = hex8((uint32_t)(v >> 32));
		h[1] = hex8((uint32_t)v);
		memcpy(p, h, 16);
	}
	return p + n;
}

/*
 * A time in microseconds with the nanoseconds as three decimals, as
 * ts_us(). Events of a queue come microseconds apart or less: the digits of
 * the microseconds are those of the last timestamp more often than not, and
 * are then copied (a fixed-size copy; only their length counts).
 */
static char *put_ts(struct json_export *x, char *p, uint64_t ns)
{
	uint64_t us = ns / 1000;

	if (us != x->last_us) {
		x->last_us = us;
		x->last_us_len = (size_t)(fmt_u64(x->last_us_text, us) - x->last_us_text);
	}
	memcpy(p, x->last_us_text, sizeof(x->last_us_text));
	p += x->last_us_len;
	memcpy(p, x->frac[ns - us * 1000], 4);
	return p + 4;
}

/* A duration, as put_ts(): most are below a microsecond. */
static char *put_dur(const struct json_export *x, char *p, uint64_t ns)
{
	uint64_t us = ns / 1000;

	if (!us)
		*p++ = '0';
	else
		p = fmt_u64(p, us);
	memcpy(p, x->frac[ns - us * 1000], 4);
	return p + 4;
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
	/* The whole slot: a fixed-size copy; only tail_len of it counts. */
	if (x->tail_len <= 64)
		memcpy(p, x->tail, 64);
	else
		memcpy(p, x->tail, sizeof(x->tail));
	p += x->tail_len;
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
			if (k->len <= 16)
				memcpy(p, k->text, 16);
			else
				memcpy(p, k->text, SLOT);
			p += k->len;
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

/*
 * The slot of the instructions named @name (@key) of opcode @code, filled
 * on first use; NULL when the name needs the escaper or is long
 * (fast_event() and the slow path then decide).
 */
static const struct instr_slot *instr_slot(struct json_export *x, const char *name,
					   uint64_t key, uint32_t code, bool named)
{
	uint64_t h = (key * 0x9e3779b97f4a7c15ULL ^ (uint64_t)code << 32) * 0xff51afd7ed558ccdULL;
	struct instr_slot *s = &x->instrs[(h >> 54) % (INSTR_CACHE / 2) * 2];
	uint64_t tag = XINSTR_TAG(code, named);
	char *p, *end;

	/* Two ways: a new slot goes first, the one it replaces second. */
	if (s[0].key == key && s[0].tag == tag)
		return &s[0];
	if (s[1].key == key && s[1].tag == tag)
		return &s[1];
	if (strnlen(name, INSTR_NAME) >= INSTR_NAME)
		return NULL;
	if (s[0].key)
		s[1] = s[0];
	s->key = 0;
	end = copy_plain(s->name, name);
	if (!end)
		return NULL;
	s->name_len = (uint8_t)(end - s->name);
	p = PUT(s->args, ",\"args\":{");
	if (named) {
		p = PUT(p, "\"code\":\"0x");
		p = fmt_hex(p, code, 6);
		p = PUT(p, "\",");
	}
	p = PUT(p, "\"pc\":\"0x");
	s->args_len = (uint8_t)(p - s->args);
	s->key = key;
	s->tag = tag;
	return s;
}

/*
 * Instructions: the bytes fast_event() writes for each (the test
 * export_instr checks), the parts that repeat copied whole: the name and
 * the start of the arguments from its slot, what follows the name from
 * the track's (made once per batch).
 */
static int j_instrs(void *ctx, const struct xtrack *t, const struct xinstr *v, size_t n)
{
	struct json_export *x = ctx;
	char tail[128], *p;
	size_t tail_len;

	p = PUT(tail, "\",\"cat\":\"instruction\",\"ph\":\"X\",\"pid\":");
	p = fmt_i64(p, t->proc->pid);
	p = PUT(p, ",\"tid\":");
	p = fmt_i64(p, t->tid);
	p = PUT(p, ",\"ts\":");
	tail_len = (size_t)(p - tail);
	for (size_t i = 0; i < n; i++) {
		const struct xinstr *in = &v[i];
		const struct instr_slot *s = instr_slot(x, in->name, in->name_key, in->code,
							in->named);

		/* The very first event has no separator: fast_event() writes it. */
		if (!s || x->first) {
			if (xinstr_slice(&json_format, ctx, t, in))
				return -1;
			continue;
		}
		p = ob_reserve(&x->ob, FAST_ROOM);
		/* Whole slots: fixed-size copies; only their lengths count. */
		p = PUT(p, ",\n{\"name\":\"");
		memcpy(p, s->name, INSTR_NAME);
		p += s->name_len;
		if (tail_len <= 64)
			memcpy(p, tail, 64);
		else
			memcpy(p, tail, sizeof(tail));
		p = put_ts(x, p + tail_len, in->ts);
		p = PUT(p, ",\"dur\":");
		p = put_dur(x, p, in->end_ts - in->ts);
		if (in->named) {
			memcpy(p, s->args, INSTR_ARGS);
			p += s->args_len;
		} else {
			p = PUT(p, INSTR_ARGS_PLAIN);
		}
		p = put_hex(p, in->pc);
		p = PUT(p, "\",\"operand0\":\"0x");
		p = put_hex(p, in->op0);
		p = PUT(p, "\",\"operand1\":\"0x");
		p = put_hex(p, in->op1);
		p = PUT(p, "\"}}");
		ob_commit(&x->ob, p);
	}
	return 0;
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
