// SPDX-License-Identifier: MIT
/*
 * The exporters' fast paths against plain references (run by tests/run.sh):
 *
 *  - fmt.h's number formatting against snprintf(), on edge and random values;
 *  - pbenc.h's cursor encoding (pbc_*) against the buffer encoding (pb_*);
 *  - the JSON export's events against a reference formatter written here
 *    with snprintf() and json.c's escaper: random numbers of every width,
 *    names and values that need escaping, long names, keys and values
 *    (which leave the fast path), more distinct keys than its cache holds,
 *    categories and phases changing between events;
 *  - the Perfetto export's events, decoded here: every event's name,
 *    category and annotation names, resolved through the interned data the
 *    trace defines, are the ones given, through more distinct names than the
 *    name cache holds, names longer than it takes, slice names given with a
 *    name_key (by address and by opcode, more than the key cache holds),
 *    and keys changing between events of one category.
 *
 * Prints "ok" and exits 0, or names the first difference and exits 1.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/common.h>

#include "export/export.h"
#include "util/fmt.h"
#include "util/json.h"
#include "util/pbenc.h"

#define RND_SEED 0x9e3779b97f4a7c15ULL
#include "rnd.h"

#define FAIL(...) do { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

static void check_fmt(void)
{
	char a[64], b[64];

	for (int i = 0; i < 200000; i++) {
		uint64_t v = i < 129 ? (i < 65 ? (i ? 1ULL << (i - 1) : 0) : (1ULL << (i - 65)) - 1) :
			     rnd_width();
		int min = (int)(rnd() % 17);

		*fmt_u64(a, v) = '\0';
		snprintf(b, sizeof(b), "%" PRIu64, v);
		if (strcmp(a, b))
			FAIL("fmt_u64(%" PRIu64 ") gave %s", v, a);
		*fmt_i64(a, (int64_t)v) = '\0';
		snprintf(b, sizeof(b), "%" PRId64, (int64_t)v);
		if (strcmp(a, b))
			FAIL("fmt_i64(%" PRId64 ") gave %s", (int64_t)v, a);
		*fmt_hex(a, v, min) = '\0';
		snprintf(b, sizeof(b), "%0*" PRIx64, min, v);
		if (strcmp(a, b))
			FAIL("fmt_hex(%" PRIx64 ", %d) gave %s", v, min, a);
	}
	for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10)
		for (int d = -1; d <= 1; d++) {
			*fmt_u64(a, p + (uint64_t)d) = '\0';
			snprintf(b, sizeof(b), "%" PRIu64, p + (uint64_t)d);
			if (strcmp(a, b))
				FAIL("fmt_u64(%s) gave %s", b, a);
		}
}

static void check_pbenc(void)
{
	struct pbenc e;
	uint8_t c[1024], *p, *at, *at2;
	char s[300];

	if (pb_init(&e, NULL))
		FAIL("out of memory");
	for (int i = 0; i < 100000; i++) {
		uint64_t v = rnd_width(), w = rnd_width();
		uint32_t field = (uint32_t)(rnd() % 3 ? rnd() % 16 + 1 : rnd() % 100000 + 1);
		size_t n = (size_t)(rnd() % 200);

		memset(s, 'x', n);
		s[n] = '\0';
		e.len = 0;
		pb_uint(&e, field, v);
		pb_int(&e, field + 1, -(int64_t)w);
		pb_fixed64(&e, 3, w);
		pb_double(&e, 4, (double)v);
		pb_open(&e, 5);
		pb_uint(&e, 1, w);
		pb_open(&e, 2);
		pb_str(&e, 3, s);
		pb_close(&e);
		pb_close(&e);
		p = pbc_uint(c, field, v);
		p = pbc_int(p, field + 1, -(int64_t)w);
		p = pbc_fixed64(p, 3, w);
		p = pbc_double(p, 4, (double)v);
		p = pbc_open(p, 5, &at);
		p = pbc_uint(p, 1, w);
		p = pbc_open(p, 2, &at2);
		p = pbc_bytes(p, 3, s, n);
		p = pbc_close(at2, p);
		p = pbc_close(at, p);
		if ((size_t)(p - c) != e.len || memcmp(c, e.buf, e.len))
			FAIL("cursor encoding of %" PRIu64 ", %" PRIu64 ", %zu-byte string differs",
			     v, w, n);
	}
	pb_free(&e);
}

/* ---- JSON -------------------------------------------------------------- */

static const char *const keys_pool[] = {
	"pc", "operand0", "operand1", "model_id", "iteration", "seq", "bytes", "src", "dst",
	"a \"quoted\" key", "a_key_long_enough_to_leave_the_cache_slot_of_the_fast_path_behind",
};

/* More distinct keys (at addresses of their own) than the cache holds. */
#define MANY_KEYS	600
static char many_keys[MANY_KEYS][16];

static void ref_str(FILE *f, const char *s)
{
	jw_write_string(f, s);
}

static void ref_ts(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned int)(ns % 1000));
}

static void ref_args(FILE *f, const struct xarg *a, int n)
{
	fputs(",\"args\":{", f);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		ref_str(f, a[i].key);
		fputc(':', f);
		switch (a[i].kind) {
		case XARG_U64:
			fprintf(f, "%" PRIu64, a[i].u);
			break;
		case XARG_HEX:
			fprintf(f, "\"0x%" PRIx64 "\"", a[i].u);
			break;
		case XARG_STR:
			ref_str(f, a[i].s);
			break;
		case XARG_I64:
			fprintf(f, "%" PRId64, a[i].i);
			break;
		case XARG_DOUBLE:
			fprintf(f, "%.6g", isfinite(a[i].d) ? a[i].d : 0.0);
			break;
		}
	}
	fputc('}', f);
}

static void ref_head(FILE *f, bool *first, const char *name, const char *cat, char ph,
		     const struct xtrack *t)
{
	if (!*first)
		fputs(",\n", f);
	*first = false;
	fputs("{\"name\":", f);
	ref_str(f, name);
	fputs(",\"cat\":", f);
	ref_str(f, cat);
	fprintf(f, ",\"ph\":\"%c\",\"pid\":%" PRId32 ",\"tid\":%" PRId32 ",\"ts\":", ph,
		t->proc->pid, t->tid);
}

/* A random name: plain, with a byte to escape, or long. */
static void rnd_name(char *buf, size_t size, int i)
{
	switch (rnd() % 8) {
	case 0:
		snprintf(buf, size, "with \"quotes\" and \\ %d", i);
		break;
	case 1:
		snprintf(buf, size, "tab\there %d", i);
		break;
	case 2:
		memset(buf, 'n', size - 1);
		buf[size - 1] = '\0';
		break;
	case 3:
		snprintf(buf, size, "caf\xc3\xa9 %d", i);
		break;
	default:
		snprintf(buf, size, "op 0x%04x", (unsigned int)(rnd() % 0x10000));
	}
}

static int rnd_args(struct xarg *a, char strs[][200])
{
	int n = (int)(rnd() % (XARGS_MAX + 1));

	for (int k = 0; k < n; k++) {
		int pick = (int)(rnd() % 4);

		a[k] = (struct xarg){ .key = pick == 0 ? many_keys[rnd() % MANY_KEYS] :
					     keys_pool[rnd() % (sizeof(keys_pool) /
								sizeof(keys_pool[0]))] };
		switch (rnd() % 6) {
		case 0:
			a[k].kind = XARG_U64;
			a[k].u = rnd_width();
			break;
		case 1:
		case 2:
			a[k].kind = XARG_HEX;
			a[k].u = rnd_width();
			break;
		case 3:
			a[k].kind = XARG_I64;
			a[k].i = (int64_t)rnd();
			break;
		case 4:
			a[k].kind = XARG_DOUBLE;
			a[k].d = rnd() % 5 ? (double)(int64_t)rnd() / 1e6 : NAN;
			break;
		default:
			a[k].kind = XARG_STR;
			rnd_name(strs[k], rnd() % 2 ? 200 : 20, k);
			a[k].s = strs[k];
		}
	}
	return n;
}

static void check_json(void)
{
	static const char *const cats[] = { "instruction", "dma", "a \"cat\"", "event" };
	char *got = NULL, *want = NULL, name[300], strs[XARGS_MAX][200];
	size_t got_len = 0, want_len = 0;
	FILE *g = open_memstream(&got, &got_len), *w = open_memstream(&want, &want_len);
	struct xproc procs[2] = { { .pid = 10000000 }, { .pid = -5 } };
	struct xtrack tracks[3] = {
		{ .proc = &procs[0], .tid = 100 }, { .proc = &procs[0], .tid = 104 },
		{ .proc = &procs[1], .tid = 4194304 },
	};
	struct json_export *x;
	bool first = true;

	if (!g || !w)
		FAIL("open_memstream");
	for (int i = 0; i < MANY_KEYS; i++)
		snprintf(many_keys[i], sizeof(many_keys[i]), "key%d", i);
	x = json_export_new(g);
	if (!x)
		FAIL("out of memory");
	json_format.begin(x, "src");
	fprintf(w, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"neuronprof %s\","
		"\"source\":\"src\"},\n\"traceEvents\":[\n", nprof_version_string());
	for (int i = 0; i < 100000; i++) {
		const struct xtrack *t = &tracks[rnd() % 8 ? 0 : rnd() % 3];
		const char *cat = cats[rnd() % 16 ? 0 : rnd() % 4];
		uint64_t ts = rnd_width(), end = ts + rnd_width() % 100000;
		struct xarg a[XARGS_MAX];
		int n, what = (int)(rnd() % 4);

		rnd_name(name, rnd() % 2 ? sizeof(name) : 16, i);
		n = rnd_args(a, strs);
		if (what == 0) {
			json_format.slice(x, t, XSLICE_COMPLETE, cat, name, 0, ts, end, a, n, 0, 0);
			ref_head(w, &first, name, cat, 'X', t);
			ref_ts(w, ts);
			fputs(",\"dur\":", w);
			ref_ts(w, end - ts);
			ref_args(w, a, n);
			fputc('}', w);
		} else if (what == 1) {
			json_format.slice(x, t, XSLICE_BEGIN_END, cat, name, 0, ts, end, a, n, 0, 0);
			ref_head(w, &first, name, cat, 'B', t);
			ref_ts(w, ts);
			ref_args(w, a, n);
			fputc('}', w);
			ref_head(w, &first, name, cat, 'E', t);
			ref_ts(w, end);
			fputc('}', w);
		} else {
			json_format.instant(x, t, cat, name, ts, a, n);
			ref_head(w, &first, name, cat, 'i', t);
			ref_ts(w, ts);
			fputs(",\"s\":\"t\"", w);
			ref_args(w, a, n);
			fputc('}', w);
		}
	}
	json_format.end(x, &(struct export_stats){ 0 });
	json_export_free(x);
	fputs("\n]}\n", w);
	fclose(g);
	fclose(w);
	if (got_len != want_len || memcmp(got, want, got_len)) {
		size_t k = 0;

		while (k < got_len && k < want_len && got[k] == want[k])
			k++;
		FAIL("JSON differs at byte %zu of %zu/%zu: got \"%.80s\", want \"%.80s\"", k, got_len,
		     want_len, got + (k > 40 ? k - 40 : 0), want + (k > 40 ? k - 40 : 0));
	}
	free(got);
	free(want);
}

/* ---- Perfetto ------------------------------------------------------------- */

struct pbr {
	const uint8_t *p, *end;
};

static uint64_t rd_varint(struct pbr *r)
{
	uint64_t v = 0;

	for (int s = 0; s < 64 && r->p < r->end; s += 7) {
		uint8_t b = *r->p++;

		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
	FAIL("bad varint");
}

/* The next field of @r: its number and wire type, its value or its bytes in @sub. */
static bool rd_field(struct pbr *r, uint32_t *field, uint64_t *v, struct pbr *sub)
{
	uint64_t tag;

	if (r->p >= r->end)
		return false;
	tag = rd_varint(r);
	*field = (uint32_t)(tag >> 3);
	switch (tag & 7) {
	case PB_VARINT:
		*v = rd_varint(r);
		break;
	case PB_FIXED64:
		if (r->end - r->p < 8)
			FAIL("short fixed64");
		memcpy(v, r->p, 8);
		r->p += 8;
		break;
	case PB_LEN:
		*v = rd_varint(r);
		if ((uint64_t)(r->end - r->p) < *v)
			FAIL("short length-delimited field");
		sub->p = r->p;
		sub->end = r->p + *v;
		r->p += *v;
		break;
	default:
		FAIL("unexpected wire type %u", (unsigned int)(tag & 7));
	}
	return true;
}

#define MAX_IID	70000

/* Interned strings by kind (1 categories, 2 names, 3 annotation names) and iid. */
static char *interned[4][MAX_IID];

static char *dup_bytes(const struct pbr *s)
{
	char *d = malloc((size_t)(s->end - s->p) + 1);

	if (!d)
		FAIL("out of memory");
	memcpy(d, s->p, (size_t)(s->end - s->p));
	d[s->end - s->p] = '\0';
	return d;
}

static const char *resolve(int kind, uint64_t iid)
{
	if (!iid || iid >= MAX_IID || !interned[kind][iid])
		FAIL("iid %" PRIu64 " of kind %d was never defined", iid, kind);
	return interned[kind][iid];
}

/* One event as given, to compare with what the trace says. */
struct given {
	char name[64];
	const char *cat;
	const char *keys[XARGS_MAX];
	enum xarg_kind kinds[XARGS_MAX];
	uint64_t values[XARGS_MAX];
	int n;
};

/* A string a message gives by interned id or inline; the inline copy is its own. */
struct iname {
	const char *s;
	char *own;
};

/*
 * Field @f (value @v, bytes @sub) into @n if it is the string's: its iid of
 * interned kind @kind (field @iid_field) or the string inline (@inline_field).
 * Returns false for any other field.
 */
static bool take_name(struct iname *n, int kind, uint32_t iid_field, uint32_t inline_field,
		      uint32_t f, uint64_t v, const struct pbr *sub)
{
	if (f == iid_field) {
		n->s = resolve(kind, v);
	} else if (f == inline_field) {
		free(n->own);
		n->s = n->own = dup_bytes(sub);
	} else {
		return false;
	}
	return true;
}

static void check_event(const struct pbr *te, const struct given *want, size_t idx)
{
	struct pbr r = *te, sub, da;
	struct iname name = { 0 }, cat = { 0 };
	uint32_t f, f2;
	uint64_t v, v2;
	int n = 0;

	while (rd_field(&r, &f, &v, &sub)) {
		/* TrackEvent: name_iid 10 or name 23, category_iids 3 or categories 22. */
		if (take_name(&name, 2, 10, 23, f, v, &sub) || take_name(&cat, 1, 3, 22, f, v, &sub))
			continue;
		if (f == 4) {
			struct iname key = { 0 };
			uint32_t vfield = 0;
			uint64_t value = 0;

			/* DebugAnnotation: name_iid 1 or name 10, then its value. */
			da = sub;
			while (rd_field(&da, &f2, &v2, &sub)) {
				if (!take_name(&key, 3, 1, 10, f2, v2, &sub)) {
					vfield = f2;
					value = v2;
				}
			}
			if (!key.s || n >= want->n || strcmp(key.s, want->keys[n]))
				FAIL("event %zu: annotation %d is named %s, not %s", idx, n,
				     key.s ? key.s : "(nothing)", n < want->n ? want->keys[n] : "(none)");
			/* Unsigned values are uint_value (3), hex ones pointer_value (7). */
			if (vfield != (want->kinds[n] == XARG_HEX ? 7u : 3u) || value != want->values[n])
				FAIL("event %zu: annotation %s is field %u value %" PRIu64 ", not %" PRIu64,
				     idx, key.s, vfield, value, want->values[n]);
			free(key.own);
			n++;
		}
	}
	if (!name.s || strcmp(name.s, want->name))
		FAIL("event %zu: named %s, not %s", idx, name.s ? name.s : "(nothing)", want->name);
	if (!cat.s || strcmp(cat.s, want->cat))
		FAIL("event %zu: category %s, not %s", idx, cat.s ? cat.s : "(nothing)", want->cat);
	if (n != want->n)
		FAIL("event %zu: %d annotations, not %d", idx, n, want->n);
	free(name.own);
	free(cat.own);
}

static void check_perfetto(void)
{
	static const char *const cats[] = { "instruction", "dma", "event" };
	enum { EVENTS = 60000 };
	struct given *given = calloc(EVENTS, sizeof(*given));
	struct xproc proc = { .pid = 10000000, .uuid = 1 };
	struct xtrack track = { .proc = &proc, .tid = 100, .uuid = 2 };
	char *out = NULL;
	size_t out_len = 0, events = 0;
	FILE *f = open_memstream(&out, &out_len);
	struct perfetto_export *x;
	struct pbr trace, pkt, sub, te, in, item;
	uint32_t fld, f2, f3;
	uint64_t v, v2, v3;

	/* Only their addresses are used, as keys: one per name "op 0x%04x". */
	static const char op_names[300][1];

	if (!given || !f)
		FAIL("out of memory");
	x = perfetto_export_new(f);
	if (!x)
		FAIL("out of memory");
	perfetto_format.begin(x, "src");
	for (size_t i = 0; i < EVENTS; i++) {
		struct given *g = &given[i];
		struct xarg a[XARGS_MAX];
		uint64_t key = 0;
		uint32_t code;

		switch (rnd() % 5) {
		case 0:	/* one of many names: more than the cache holds */
			snprintf(g->name, sizeof(g->name), "name %u", (unsigned int)(rnd() % 5000));
			break;
		case 1:	/* longer than the cache takes */
			snprintf(g->name, sizeof(g->name), "a name longer than sixteen %u",
				 (unsigned int)(rnd() % 50));
			break;
		case 2: /* exactly sixteen bytes, and fifteen */
			snprintf(g->name, sizeof(g->name), rnd() % 2 ? "sixteen bytes %02u" :
				 "fifteen byte %02u", (unsigned int)(rnd() % 100));
			break;
		case 3: /* a name of the profile, keyed by its address (its slot here) */
			code = (uint32_t)(rnd() % 300);
			snprintf(g->name, sizeof(g->name), "op 0x%04x", code);
			key = (uint64_t)(uintptr_t)op_names[code];
			break;
		default: /* an opcode keyed by its value: more than the key cache holds */
			code = (uint32_t)(rnd() % 5000);
			snprintf(g->name, sizeof(g->name), "0x%06x", code);
			key = XNAME_KEY_CODE(code);
		}
		g->cat = cats[rnd() % 8 ? 0 : rnd() % 3];
		/* Mostly the same keys in a row, sometimes others. */
		g->n = rnd() % 10 ? 3 : (int)(rnd() % (XARGS_MAX + 1));
		for (int k = 0; k < g->n; k++) {
			g->keys[k] = g->n == 3 && rnd() % 10 ? keys_pool[k] :
				     many_keys[rnd() % MANY_KEYS];
			/* The kinds of a queue's events stay; sometimes they change. */
			g->kinds[k] = rnd() % 20 ? (k % 2 ? XARG_U64 : XARG_HEX) :
				      (rnd() % 2 ? XARG_U64 : XARG_HEX);
			g->values[k] = rnd_width();
			a[k] = (struct xarg){ .key = g->keys[k], .kind = g->kinds[k], .u = g->values[k] };
		}
		if (rnd() % 2)
			perfetto_format.slice(x, &track, XSLICE_COMPLETE, g->cat, g->name, key, i,
					      i + 1, a, g->n, 0, 0);
		else
			perfetto_format.instant(x, &track, g->cat, g->name, i, a, g->n);
	}
	perfetto_format.end(x, &(struct export_stats){ 0 });
	perfetto_export_free(x);
	fclose(f);
	/* Walk the packets: interned data first, then the event that uses it. */
	trace = (struct pbr){ (const uint8_t *)out, (const uint8_t *)out + out_len };
	while (rd_field(&trace, &fld, &v, &pkt)) {
		bool have_te = false;

		if (fld != 1)
			FAIL("top-level field %u is not a packet", fld);
		while (rd_field(&pkt, &fld, &v, &sub)) {
			if (fld == 12) {
				in = sub;
				while (rd_field(&in, &f2, &v2, &item)) {
					uint64_t iid = 0;
					char *s = NULL;
					struct pbr it2 = item, str;

					if (f2 < 1 || f2 > 3)
						continue;
					while (rd_field(&it2, &f3, &v3, &str))
						if (f3 == 1)
							iid = v3;
						else if (f3 == 2)
							s = dup_bytes(&str);
					if (!iid || iid >= MAX_IID || !s || interned[f2][iid])
						FAIL("bad or repeated interned string");
					interned[f2][iid] = s;
				}
			} else if (fld == 11) {
				te = sub;
				have_te = true;
			}
		}
		if (have_te) {
			struct pbr t = te, s2;
			uint64_t type = 0;

			while (rd_field(&t, &f2, &v2, &s2))
				if (f2 == 9)
					type = v2;
			if (type == 2)	/* a slice's end: no name */
				continue;
			if (events >= EVENTS)
				FAIL("more named events than given");
			check_event(&te, &given[events], events);
			events++;
		}
	}
	if (events != EVENTS)
		FAIL("%zu named events in the trace, %d given", events, EVENTS);
	for (int k = 0; k < 4; k++)
		for (size_t i = 0; i < MAX_IID; i++)
			free(interned[k][i]);
	free(out);
	free(given);
}

int main(void)
{
	tool_cmd = "export_fast";
	check_fmt();
	check_pbenc();
	check_json();
	check_perfetto();
	puts("ok");
	return 0;
}
