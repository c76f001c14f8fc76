// SPDX-License-Identifier: MIT
/*
 * neuronprof export --format perfetto, the events: a native Perfetto trace
 * (a perfetto.protos.Trace message), which ui.perfetto.dev and
 * trace_processor open; this file writes its track events and interned
 * strings, export_perfetto_tracks.c the track descriptors. proto/perfetto_trace.proto declares what is written, with the
 * field numbers of Perfetto's published protos; the tests decode the output
 * with it, the writer here does not need it.
 *
 * Tracks (export_perfetto_tracks.c): a process track per device (ProcessDescriptor, pid
 * XPID_DEVICE_BASE + 1000 * device + 999), under it a track per NeuronCore,
 * under those a track per engine and per TopSP with a track per queue, the
 * core-level queues, the core's executions and its counter tracks
 * (CounterDescriptor with a unit). The system profile adds a process track
 * per host process, a thread track per host thread and host counter tracks.
 * Children are ordered explicitly (child_ordering, sibling_order_rank).
 *
 * Events are TrackEvents: SLICE_BEGIN/SLICE_END pairs (instructions,
 * iterations, executions, host events), INSTANTs, COUNTERs. Event names,
 * categories and debug annotation names are interned: the first packet
 * that uses a string defines it in its interned_data, and every packet
 * that uses an interned id carries SEQ_NEEDS_INCREMENTAL_STATE; the first
 * packet of the (single) sequence carries SEQ_INCREMENTAL_STATE_CLEARED.
 * An nrt_execute host call has flow_ids = [F] and the execution it started
 * terminating_flow_ids = [F].
 *
 * Encoding: pbenc.h, straight into a large buffer written with fwrite().
 * Timestamps are the device's (the NTFF clock, CLOCK_MONOTONIC for the
 * simulator) in nanoseconds, without a clock id, so trace processor takes
 * them as its trace clock unchanged.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "util/pbenc.h"

#include "export/export_perfetto_internal.h"

static int intern_grow(struct intern *t)
{
	size_t slots = t->slots ? t->slots * 2 : 256;
	char **key = calloc(slots, sizeof(*key));
	uint32_t *hash = calloc(slots, sizeof(*hash));
	uint64_t *iid = calloc(slots, sizeof(*iid));

	if (!key || !hash || !iid) {
		free(key);
		free(hash);
		free(iid);
		return -1;
	}
	for (size_t i = 0; i < t->slots; i++) {
		size_t h;

		if (!t->key[i])
			continue;
		for (h = t->hash[i] & (slots - 1); key[h]; h = (h + 1) & (slots - 1))
			;
		key[h] = t->key[i];
		hash[h] = t->hash[i];
		iid[h] = t->iid[i];
	}
	free(t->key);
	free(t->hash);
	free(t->iid);
	t->key = key;
	t->hash = hash;
	t->iid = iid;
	t->slots = slots;
	return 0;
}

static void intern_free(struct intern *t)
{
	for (size_t i = 0; i < t->slots; i++)
		free(t->key[i]);
	free(t->key);
	free(t->hash);
	free(t->iid);
}

/*
 * The iid of @s, defined in this packet (queued in x->def under @field) if
 * new; 0 when the table is full or memory ran out: write @s inline.
 */
static uint64_t intern(struct perfetto_export *x, struct intern *t, uint32_t field,
		       const char *s)
{
	size_t len, h;
	uint32_t hv = hash_str(s, &len);

	if (t->slots) {
		for (h = hv & (t->slots - 1); t->key[h]; h = (h + 1) & (t->slots - 1))
			if (t->hash[h] == hv && !strcmp(t->key[h], s))
				return t->iid[h];
	}
	if (t->n >= INTERN_MAX)
		return 0;
	if ((t->n + 1) * 2 > t->slots) {
		if (intern_grow(t))
			return 0;
	}
	for (h = hv & (t->slots - 1); t->key[h]; h = (h + 1) & (t->slots - 1))
		;
	t->key[h] = malloc(len + 1);
	if (!t->key[h])
		return 0;
	memcpy(t->key[h], s, len + 1);
	t->hash[h] = hv;
	t->iid[h] = ++t->next_iid;
	t->n++;
	x->def[x->ndef++] = (struct pending){ .field = field, .iid = t->iid[h], .s = t->key[h] };
	return t->iid[h];
}

/* intern() of a category or annotation name, through @c. */
static uint64_t intern_addr(struct perfetto_export *x, struct intern *t, struct addr_cache *c,
			    uint32_t field, const char *s)
{
	/* Literals lie bytes apart: a multiplicative hash spreads them. */
	size_t h = (size_t)(((uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ULL) >> 56) % ADDR_CACHE;
	uint64_t iid;

	if (c->s[h] == s)
		return c->iid[h];
	iid = intern(x, t, field, s);
	if (iid) {
		c->s[h] = s;
		c->iid[h] = iid;
	}
	return iid;
}

struct perfetto_export *perfetto_export_new(FILE *out)
{
	struct perfetto_export *x;

	/* Aligned as its instruction slots are. */
	if (posix_memalign((void **)&x, 64, sizeof(*x)))
		return NULL;
	memset(x, 0, sizeof(*x));
	if (pb_init(&x->e, out)) {
		free(x);
		return NULL;
	}
	return x;
}

void perfetto_export_free(struct perfetto_export *x)
{
	if (!x)
		return;
	pb_free(&x->e);
	intern_free(&x->names);
	intern_free(&x->cats);
	intern_free(&x->keys);
	free(x);
}


static int p_begin(void *ctx, const char *source)
{
	struct perfetto_export *x = ctx;

	/* The sequence starts clean: its first packet says so and holds nothing else. */
	(void)source;
	packet_begin(x, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_uint(&x->e, PKT_FIRST_ON_SEQUENCE, 1);
	return packet_end(x);
}

static int p_process(void *ctx, const struct xproc *p)
{
	return perfetto_process(ctx, p);
}

static int p_track(void *ctx, const struct xtrack *t)
{
	return perfetto_track(ctx, t);
}

/* Interned data of what the coming event uses for the first time. */
static void definitions(struct perfetto_export *x)
{
	struct pbenc *e = &x->e;

	if (!x->ndef)
		return;
	pb_open(e, PKT_INTERNED_DATA);
	for (int i = 0; i < x->ndef; i++) {
		pb_need(e, 64);
		pb_open(e, x->def[i].field);
		pb_uint(e, INTERNED_IID, x->def[i].iid);
		pb_str(e, INTERNED_NAME, x->def[i].s);
		pb_close(e);
	}
	pb_close(e);
	x->ndef = 0;
}

/*
 * The iid of event name @s (as intern() of x->names), through a cache of
 * names up to 16 bytes keyed by their bytes: an event's name is
 * built afresh for each event, so its address says nothing, but hashing two
 * words is cheaper than hashing and comparing the string.
 */
static uint64_t name_iid(struct perfetto_export *x, const char *s)
{
	uint64_t w0 = 0, w1 = 0, iid;
	size_t h;

	/*
	 * Byte by byte, unrolled: the name was just written byte by byte, and
	 * a wider load of it (strlen()'s, a word's) would wait for those
	 * stores to land.
	 */
#define BYTE(w, i, k)							\
	do {								\
		uint64_t c_ = (uint8_t)s[i];				\
		if (!c_)						\
			goto packed;					\
		w |= c_ << (8 * (k));					\
	} while (0)
#define WORD(w, i)							\
	do {								\
		BYTE(w, i, 0);						\
		BYTE(w, i + 1, 1);					\
		BYTE(w, i + 2, 2);					\
		BYTE(w, i + 3, 3);					\
		BYTE(w, i + 4, 4);					\
		BYTE(w, i + 5, 5);					\
		BYTE(w, i + 6, 6);					\
		BYTE(w, i + 7, 7);					\
	} while (0)
	WORD(w0, 0);
	WORD(w1, 8);
#undef WORD
#undef BYTE
	if (s[16])
		return intern(x, &x->names, INTERNED_NAMES, s);
packed:
	h = (size_t)(((w0 ^ (w1 * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL) >> 54) %
	    NAME_CACHE;
	if (x->name_cache[h].iid && x->name_cache[h].w0 == w0 && x->name_cache[h].w1 == w1)
		return x->name_cache[h].iid;
	iid = intern(x, &x->names, INTERNED_NAMES, s);
	if (iid) {
		x->name_cache[h].w0 = w0;
		x->name_cache[h].w1 = w1;
		x->name_cache[h].iid = iid;
	}
	return iid;
}

/*
 * The iid of event name @s, by its name_key (export.h) when it has one: a
 * key remembered is one multiply and one compare, where name_iid() loads
 * the name's bytes.
 */
static uint64_t keyed_name_iid(struct perfetto_export *x, const char *s, uint64_t key)
{
	size_t h;
	uint64_t iid;

	if (!key)
		return name_iid(x, s);
	h = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 54) % KEY_CACHE;
	if (x->key_cache[h].key == key)
		return x->key_cache[h].iid;
	iid = name_iid(x, s);
	if (iid) {
		x->key_cache[h].key = key;
		x->key_cache[h].iid = iid;
	}
	return iid;
}

static uint8_t *annotation(uint8_t *p, const struct xarg *a, uint64_t key_iid)
{
	uint8_t *at;

	p = pbc_open(p, TE_DEBUG_ANNOTATIONS, &at);
	if (key_iid)
		p = pbc_uint(p, DA_NAME_IID, key_iid);
	else
		p = pbc_bytes(p, DA_NAME, a->key, strlen(a->key));
	/* The two kinds nearly all arguments have, before the switch's jump. */
	if (a->kind == XARG_HEX)	/* shown in hex by viewers */
		return pbc_close(at, pbc_uint(p, DA_POINTER, a->u));
	if (a->kind == XARG_U64)
		return pbc_close(at, pbc_uint(p, DA_UINT, a->u));
	switch (a->kind) {
	case XARG_U64:
	case XARG_HEX:
		break;		/* written above */
	case XARG_STR:
		p = pbc_bytes(p, DA_STRING, a->s, strlen(a->s));
		break;
	case XARG_I64:
		p = pbc_int(p, DA_INT, a->i);
		break;
	case XARG_DOUBLE:
		p = pbc_double(p, DA_DOUBLE, a->d);
		break;
	}
	return pbc_close(at, p);
}

/*
 * An event like the last one (same category, keys and kinds, all interned,
 * nothing to define, no flow): the bytes named_event() would write, from
 * templates. The packet's start is the same for every such event; the track
 * event's, up to the name's iid, for every event of a track, type and
 * category.
 */
static int repeat_event(struct perfetto_export *x, uint32_t type, const struct xtrack *t,
			uint64_t cat_iid, uint64_t nm_iid, uint64_t ts, const struct xarg *a, int n,
			size_t need)
{
	/* TRACE_PACKET, its length (patched), sequence id 1, sequence flags 2, timestamp's tag. */
	static const uint8_t head[8] = {
		TRACE_PACKET << 3 | PB_LEN, 0, PKT_SEQUENCE_ID << 3 | PB_VARINT, SEQUENCE_ID,
		PKT_SEQUENCE_FLAGS << 3 | PB_VARINT, SEQ_NEEDS_INCREMENTAL_STATE,
		PKT_TIMESTAMP << 3 | PB_VARINT, 0,
	};
	uint8_t *p, *pkt, *te;

	if (x->te_track != t || x->te_type != type || x->te_cat != cat_iid) {
		p = pbc_open(x->te_tmpl, PKT_TRACK_EVENT, &te);
		p = pbc_uint(p, TE_TYPE, type);
		p = pbc_uint(p, TE_TRACK_UUID, t->uuid);
		p = pbc_uint(p, TE_CATEGORY_IIDS, cat_iid);
		p = pb_varint_at(p, (uint64_t)TE_NAME_IID << 3 | PB_VARINT);
		x->te_len = (size_t)(p - x->te_tmpl);
		x->te_track = t;
		x->te_type = type;
		x->te_cat = cat_iid;
	}
	if (!packet_room(x, need))
		return -1;
	p = pb_cursor(&x->e);
	memcpy(p, head, sizeof(head));
	pkt = p + 1;
	p = pb_varint_at(p + 7, ts);
	memcpy(p, x->te_tmpl, sizeof(x->te_tmpl));
	te = p + 1;
	p = pb_varint_at(p + x->te_len, nm_iid);
	for (int i = 0; i < n; i++) {
		uint8_t *at = p + 1;

		memcpy(p, x->prev_pre[i], sizeof(x->prev_pre[i]));
		p = pb_varint_at(p + x->prev_pre_len[i], a[i].u);
		*at = (uint8_t)(p - at - 1);
	}
	p = pbc_close(te, p);
	pb_commit(&x->e, pbc_close(pkt, p));
	return 0;
}

/*
 * A named event (slice begin or instant) with its category and arguments,
 * encoded through a cursor (pbenc.h) into room asked for once.
 */
static int named_event(struct perfetto_export *x, uint32_t type, const struct xtrack *t,
		       const char *cat, const char *name, uint64_t name_key, uint64_t ts,
		       const struct xarg *a, int n, uint64_t flow_out, uint64_t flow_in)
{
	struct pbenc *e = &x->e;
	uint64_t cat_iid, nm_iid, key_iid[XARGS_MAX];
	size_t need = 128, pkt_off;
	uint8_t *p, *pkt, *te;
	bool interned, tmpl = false;

	if (n > XARGS_MAX)
		n = XARGS_MAX;
	x->ndef = 0;
	/*
	 * Consecutive events of a queue have the same category and keys (by
	 * address, export.h): their iids are those of the previous event.
	 */
	if (cat == x->prev_cat && n == x->prev_n) {
		for (int i = 0; i < n && cat; i++)
			if (a[i].key != x->prev_key[i] || a[i].kind != x->prev_kind[i])
				cat = NULL;
		if (cat) {
			/* The template holds the key iids; no string argument then. */
			tmpl = x->prev_tmpl;
			cat_iid = x->prev_cat_iid;
			nm_iid = keyed_name_iid(x, name, name_key);
			if (!nm_iid)
				need += strlen(name);
			interned = true;
			need += 48 * (size_t)n;
			if (!tmpl) {
				memcpy(key_iid, x->prev_key_iid, (size_t)n * sizeof(*key_iid));
				for (int i = 0; i < n; i++)
					if (a[i].kind == XARG_STR)
						need += strlen(a[i].s);
			} else if (nm_iid && !x->ndef && !flow_out && !flow_in) {
				return repeat_event(x, type, t, cat_iid, nm_iid, ts, a, n, need);
			}
			goto encode;
		}
		cat = x->prev_cat;
	}
	cat_iid = intern_addr(x, &x->cats, &x->cat_addr, INTERNED_CATEGORIES, cat);
	nm_iid = keyed_name_iid(x, name, name_key);
	interned = cat_iid || nm_iid;
	if (!cat_iid)
		need += strlen(cat);
	if (!nm_iid)
		need += strlen(name);
	for (int i = 0; i < n; i++) {
		key_iid[i] = intern_addr(x, &x->keys, &x->key_addr, INTERNED_ANNOTATION_NAMES,
					 a[i].key);
		interned |= key_iid[i] != 0;
		need += 48 + (key_iid[i] ? 0 : strlen(a[i].key)) +
			(a[i].kind == XARG_STR ? strlen(a[i].s) : 0);
	}
	/* Remembered only when all of them are interned. */
	x->prev_cat = NULL;
	if (cat_iid) {
		bool all = true;

		for (int i = 0; i < n; i++)
			all &= key_iid[i] != 0;
		if (all) {
			x->prev_cat = cat;
			x->prev_n = n;
			x->prev_cat_iid = cat_iid;
			x->prev_tmpl = true;
			for (int i = 0; i < n; i++) {
				uint8_t *q = x->prev_pre[i], *len_at;

				x->prev_key[i] = a[i].key;
				x->prev_kind[i] = a[i].kind;
				x->prev_key_iid[i] = key_iid[i];
				if ((a[i].kind != XARG_U64 && a[i].kind != XARG_HEX) ||
				    key_iid[i] >= 1u << 21) {
					x->prev_tmpl = false;
					continue;
				}
				/* As annotation() writes them, the length patched per event. */
				q = pbc_open(q, TE_DEBUG_ANNOTATIONS, &len_at);
				q = pbc_uint(q, DA_NAME_IID, key_iid[i]);
				q = pb_varint_at(q, (uint64_t)(a[i].kind == XARG_HEX ? DA_POINTER :
							       DA_UINT) << 3 | PB_VARINT);
				x->prev_pre_len[i] = (uint8_t)(q - x->prev_pre[i]);
			}
		}
	}
encode:
	if (!packet_room(x, need))
		return -1;
	p = pb_cursor(e);
	p = pbc_open(p, TRACE_PACKET, &pkt);
	p = pbc_uint(p, PKT_SEQUENCE_ID, SEQUENCE_ID);
	if (interned)
		p = pbc_uint(p, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	p = pbc_uint(p, PKT_TIMESTAMP, ts);
	if (x->ndef) {
		/* A string's first use: its definition, with the encoder's own calls. */
		pkt_off = (size_t)(pkt - e->buf);
		pb_commit(e, p);
		definitions(x);
		if (e->nomem)
			return fail("out of memory");
		pb_need(e, need);
		if (e->nomem)
			return fail("out of memory");
		pkt = e->buf + pkt_off;
		p = pb_cursor(e);
	}
	p = pbc_open(p, PKT_TRACK_EVENT, &te);
	p = pbc_uint(p, TE_TYPE, type);
	p = pbc_uint(p, TE_TRACK_UUID, t->uuid);
	if (cat_iid)
		p = pbc_uint(p, TE_CATEGORY_IIDS, cat_iid);
	else
		p = pbc_bytes(p, TE_CATEGORIES, cat, strlen(cat));
	if (nm_iid)
		p = pbc_uint(p, TE_NAME_IID, nm_iid);
	else
		p = pbc_bytes(p, TE_NAME, name, strlen(name));
	if (tmpl) {
		for (int i = 0; i < n; i++) {
			uint8_t *at = p + 1;

			memcpy(p, x->prev_pre[i], sizeof(x->prev_pre[i]));
			p = pb_varint_at(p + x->prev_pre_len[i], a[i].u);
			*at = (uint8_t)(p - at - 1);
		}
	} else {
		for (int i = 0; i < n; i++)
			p = annotation(p, &a[i], key_iid[i]);
	}
	if (flow_out)
		p = pbc_fixed64(p, TE_FLOW_IDS, flow_out);
	if (flow_in)
		p = pbc_fixed64(p, TE_TERMINATING_FLOW_IDS, flow_in);
	p = pbc_close(te, p);
	pb_commit(e, pbc_close(pkt, p));
	return 0;
}

static int p_slice(void *ctx, const struct xtrack *t, enum xslice_style style, const char *cat,
		   const char *name, uint64_t name_key, uint64_t ts, uint64_t end_ts,
		   const struct xarg *a, int n, uint64_t flow_out, uint64_t flow_in)
{
	struct perfetto_export *x = ctx;
	uint8_t *p, *pkt, *te;

	/* TrackEvent has no complete events: every slice is a begin/end pair. */
	(void)style;
	if (named_event(x, TYPE_SLICE_BEGIN, t, cat, name, name_key, ts, a, n, flow_out, flow_in))
		return -1;
	if (!packet_room(x, 64))
		return -1;
	/* The end's track event is the same for every slice of a track: encoded once. */
	if (x->end_track != t) {
		p = pbc_open(x->end_event, PKT_TRACK_EVENT, &te);
		p = pbc_uint(p, TE_TYPE, TYPE_SLICE_END);
		p = pbc_uint(p, TE_TRACK_UUID, t->uuid);
		x->end_len = (size_t)(pbc_close(te, p) - x->end_event);
		x->end_track = t;
	}
	p = pb_cursor(&x->e);
	p = pbc_open(p, TRACE_PACKET, &pkt);
	p = pbc_uint(p, PKT_SEQUENCE_ID, SEQUENCE_ID);
	p = pbc_uint(p, PKT_TIMESTAMP, end_ts);
	memcpy(p, x->end_event, sizeof(x->end_event));
	pb_commit(&x->e, pbc_close(pkt, p + x->end_len));
	return 0;
}

/* The instructions: export_perfetto_instrs.c. */
static int p_instrs(void *ctx, const struct xtrack *t, const struct xinstr *v, size_t n)
{
	return perfetto_instrs(&perfetto_format, ctx, t, v, n);
}

/*
 * DMA transfers: the bytes p_instant() writes for each (the test
 * export_instr checks). The first of a batch and the first of each name
 * (slot, struct xdma) go through p_instant(), which interns the name and
 * leaves the templates of the category and arguments; the others, with the
 * same category, keys and kinds and a name interned, are what named_event()
 * would give repeat_event(), and go there with the name's iid of the slot.
 */
static int p_dmas(void *ctx, const struct xtrack *t, const struct xdma *v, size_t n)
{
	struct perfetto_export *x = ctx;
	uint64_t iid[XDMA_SLOTS] = { 0 };

	for (size_t i = 0; i < n; i++) {
		const struct xdma *d = &v[i];
		uint32_t k = d->slot % XDMA_SLOTS;

		if (iid[k] && x->prev_cat && x->prev_tmpl) {
			struct xarg a[6];

			/* repeat_event() takes the values; keys and kinds are the template's. */
			a[0].u = d->model_id;
			a[1].u = d->iteration;
			a[2].u = d->seq;
			a[3].u = d->bytes;
			a[4].u = d->src;
			a[5].u = d->dst;
			if (repeat_event(x, TYPE_INSTANT, t, x->prev_cat_iid, iid[k], d->ts, a, 6,
					 128 + 48 * 6))
				return -1;
			continue;
		}
		if (xdma_instant(&perfetto_format, ctx, t, d))
			return -1;
		/* Interned by that instant if it could be: no definition to write now. */
		x->ndef = 0;
		iid[k] = name_iid(x, d->name);
		if (x->ndef)
			return fail("a DMA transfer's name was not interned by its instant");
	}
	return 0;
}

static int p_instant(void *ctx, const struct xtrack *t, const char *cat, const char *name,
		     uint64_t ts, const struct xarg *a, int n)
{
	return named_event(ctx, TYPE_INSTANT, t, cat, name, 0, ts, a, n, 0, 0);
}

static int p_counter(void *ctx, const struct xproc *p, const char *name, uint64_t ts,
		     const struct xcounter *c, int n)
{
	struct perfetto_export *x = ctx;
	struct pbenc *e = &x->e;

	/* One counter track per series, named by its descriptor. */
	(void)p;
	(void)name;
	for (int i = 0; i < n; i++) {
		packet_begin(x, 0);
		pb_uint(e, PKT_TIMESTAMP, ts);
		pb_open(e, PKT_TRACK_EVENT);
		pb_uint(e, TE_TYPE, TYPE_COUNTER);
		pb_uint(e, TE_TRACK_UUID, c[i].track->uuid);
		if (c[i].is_double)
			pb_double(e, TE_DOUBLE_COUNTER_VALUE, c[i].dvalue);
		else
			pb_int(e, TE_COUNTER_VALUE, c[i].value);
		pb_close(e);
		if (packet_end(x))
			return -1;
	}
	return 0;
}

/*
 * The loss totals of @st as the trace's metadata: a packet whose
 * chrome_events bundle holds one ChromeMetadata (name, string value) per
 * total, which trace processors file in their metadata table.
 */
static int loss_metadata(struct perfetto_export *x, const struct export_stats *st)
{
	const struct { const char *name; uint64_t v; } m[] = {
		{ "neuronprof_lost_recorded", st->lost_recorded },
		{ "neuronprof_seq_gaps", st->seq_gaps },
		{ "neuronprof_loss_windows", st->lost_markers },
		{ "neuronprof_lost_in_windows", st->lost_entries },
		{ "neuronprof_cut_instructions", st->cut },
	};
	struct pbenc *e = &x->e;
	char v[24];

	packet_begin(x, 0);
	pb_open(e, PKT_CHROME_EVENTS);
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		snprintf(v, sizeof(v), "%" PRIu64, m[i].v);
		pb_open(e, CHROME_BUNDLE_METADATA);
		pb_str(e, CHROME_METADATA_NAME, m[i].name);
		pb_str(e, CHROME_METADATA_STRING, v);
		pb_close(e);
	}
	pb_close(e);
	return packet_end(x);
}

static int p_end(void *ctx, const struct export_stats *st)
{
	struct perfetto_export *x = ctx;

	if ((st->lost_recorded || st->seq_gaps) && loss_metadata(x, st))
		return -1;
	pb_flush(&x->e);
	return x->e.nomem ? fail("out of memory") : 0;
}

DEFINE_XFORMAT(perfetto_format, p);
