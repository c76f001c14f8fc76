/* SPDX-License-Identifier: MIT */
/*
 * neuronprof export --format perfetto: what its three files, the events
 * and the format's table (export_perfetto.c), the track descriptors
 * (export_perfetto_tracks.c) and the instructions
 * (export_perfetto_instrs.c), share: the field numbers of Perfetto's
 * protos, the writer's state, the framing of a packet and the look-up of
 * an interned string. Below all three, it calls none of them.
 */
#ifndef NEURONPROF_TOOL_EXPORT_PERFETTO_INTERNAL_H
#define NEURONPROF_TOOL_EXPORT_PERFETTO_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "export/export.h"
#include "util/fmt.h"
#include "util/pbenc.h"

/* All packets form one sequence; 0 would mean "no sequence". */
#define SEQUENCE_ID			1
#define SEQ_INCREMENTAL_STATE_CLEARED	1
#define SEQ_NEEDS_INCREMENTAL_STATE	2

/* Field numbers of Perfetto's protos (see proto/perfetto_trace.proto). */
enum {
	TRACE_PACKET = 1,

	PKT_TIMESTAMP = 8,
	PKT_SEQUENCE_ID = 10,
	PKT_CHROME_EVENTS = 5,
	PKT_TRACK_EVENT = 11,
	PKT_INTERNED_DATA = 12,
	PKT_SEQUENCE_FLAGS = 13,
	PKT_TRACK_DESCRIPTOR = 60,
	PKT_FIRST_ON_SEQUENCE = 87,

	INTERNED_CATEGORIES = 1,
	INTERNED_NAMES = 2,
	INTERNED_ANNOTATION_NAMES = 3,
	INTERNED_IID = 1,
	INTERNED_NAME = 2,

	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT_UUID = 5,
	TD_COUNTER = 8,
	TD_CHILD_ORDERING = 11,
	TD_SIBLING_ORDER_RANK = 12,
	PROCESS_PID = 1,
	PROCESS_NAME = 6,
	THREAD_PID = 1,
	THREAD_TID = 2,
	THREAD_NAME = 5,
	COUNTER_UNIT = 3,
	COUNTER_UNIT_NAME = 6,
	CHILD_ORDERING_EXPLICIT = 3,

	TE_CATEGORY_IIDS = 3,
	TE_DEBUG_ANNOTATIONS = 4,
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK_UUID = 11,
	TE_CATEGORIES = 22,
	TE_NAME = 23,
	TE_COUNTER_VALUE = 30,
	TE_DOUBLE_COUNTER_VALUE = 44,
	TE_FLOW_IDS = 47,
	TE_TERMINATING_FLOW_IDS = 48,
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_INSTANT = 3,
	TYPE_COUNTER = 4,

	DA_NAME_IID = 1,
	DA_UINT = 3,
	DA_INT = 4,
	DA_DOUBLE = 5,
	DA_STRING = 6,
	DA_POINTER = 7,
	DA_NAME = 10,

	CHROME_BUNDLE_METADATA = 2,
	CHROME_METADATA_NAME = 1,
	CHROME_METADATA_STRING = 2,
};

/*
 * Interned strings of one kind: string -> iid, open addressing. At most
 * INTERN_MAX strings are interned; later ones are written inline, so memory
 * stays bounded whatever the names.
 */
#define INTERN_MAX	65536

struct intern {
	char **key;
	uint32_t *hash;
	uint64_t *iid;
	size_t slots, n;
	uint64_t next_iid;
};

/* Strings a packet defines before using them. */
struct pending {
	uint32_t field;
	uint64_t iid;
	const char *s;
};

/*
 * Categories and annotation names interned, remembered by address: the
 * walk's are string literals or strings of the profile, which do not change
 * during an export (export.h), so a hit skips hashing and comparing.
 */
#define ADDR_CACHE	256

struct addr_cache {
	const char *s[ADDR_CACHE];
	uint64_t iid[ADDR_CACHE];
};

/* Short event names by their bytes (name_iid()), and by their keys (keyed_name_iid()). */
#define NAME_CACHE	1024
#define KEY_CACHE	1024

/*
 * What repeats in instructions (p_instrs()): per name and opcode, the
 * begin's track event from the name's iid to the arguments' values (the
 * "code" annotation when it has one), in one cache line; per export, each
 * hex argument's annotation up to its value, and the category's iid.
 */
#define INSTR_NAME	47

struct pf_instr_slot {
	uint64_t key;			/* name_key; 0: empty */
	uint64_t tag;			/* XINSTR_TAG(code, named) */
	uint8_t len;
	uint8_t bytes[INSTR_NAME];
} __attribute__((aligned(64)));

struct perfetto_export {
	struct pf_instr_slot instrs[XINSTR_CACHE];
	bool instr_ready;		/* instr_cat, instr_pre made */
	uint64_t instr_cat;
	uint8_t instr_pre_len[3];
	uint8_t instr_pre[3][8];	/* pc, operand0, operand1 */
	struct pbenc e;
	struct intern names, cats, keys;
	struct addr_cache cat_addr, key_addr;
	struct {
		uint64_t w0, w1, iid;
	} name_cache[NAME_CACHE];
	struct {
		uint64_t key, iid;
	} key_cache[KEY_CACHE];
	/* The category and keys of the last event whose iids all exist, and those iids. */
	const char *prev_cat;
	int prev_n;
	uint64_t prev_cat_iid;
	const char *prev_key[XARGS_MAX];
	enum xarg_kind prev_kind[XARGS_MAX];
	uint64_t prev_key_iid[XARGS_MAX];
	/*
	 * When every argument is unsigned or hex: each annotation's bytes up
	 * to its value (tag, a length to patch, the name's iid, the value's
	 * tag), so that an event like the last one copies them.
	 */
	bool prev_tmpl;
	uint8_t prev_pre_len[XARGS_MAX];
	uint8_t prev_pre[XARGS_MAX][8];
	/* repeat_event()'s track event up to the name's iid, for te_track, te_type, te_cat. */
	const struct xtrack *te_track;
	uint32_t te_type;
	uint64_t te_cat;
	size_t te_len;
	uint8_t te_tmpl[32];
	/* The track event of a slice's end on end_track (p_slice()). */
	const struct xtrack *end_track;
	size_t end_len;
	uint8_t end_event[24];
	struct pending def[2 + XARGS_MAX];
	int ndef;
};

/* Starts a packet of the sequence; @flags: sequence_flags, 0 for none. */
static inline void packet_begin(struct perfetto_export *x, uint32_t flags)
{
	struct pbenc *e = &x->e;

	if (e->len >= PBENC_FLUSH || e->nomem)
		pb_flush(e);
	pb_need(e, 256);
	pb_open(e, TRACE_PACKET);
	pb_uint(e, PKT_SEQUENCE_ID, SEQUENCE_ID);
	if (flags)
		pb_uint(e, PKT_SEQUENCE_FLAGS, flags);
}

static inline int packet_end(struct perfetto_export *x)
{
	pb_close(&x->e);
	if (x->e.nomem)
		return fail("out of memory");
	return 0;
}

/* The format's process and track callbacks (struct xformat): their descriptors. */
int perfetto_process(void *ctx, const struct xproc *p);
int perfetto_track(void *ctx, const struct xtrack *t);

/* Room a packet needs, up to the next flush; false (message given) when out of memory. */
static inline bool packet_room(struct perfetto_export *x, size_t n)
{
	struct pbenc *e = &x->e;

	if (e->len >= PBENC_FLUSH || e->nomem)
		pb_flush(e);
	pb_need(e, n);
	if (e->nomem) {
		fail("out of memory");
		return false;
	}
	return true;
}

/* FNV-1a of @s, its length in *@len: the interning tables' hash. */
static inline uint32_t hash_str(const char *s, size_t *len)
{
	uint32_t h = 2166136261u;
	const char *p = s;

	for (; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	*len = (size_t)(p - s);
	return h;
}

/* The iid of @s in @t, or 0 when it is not there; defines nothing. */
static inline uint64_t perfetto_intern_lookup(const struct intern *t, const char *s)
{
	size_t len, h;
	uint32_t hv = hash_str(s, &len);

	if (!t->slots)
		return 0;
	for (h = hv & (t->slots - 1); t->key[h]; h = (h + 1) & (t->slots - 1))
		if (t->hash[h] == hv && !strcmp(t->key[h], s))
			return t->iid[h];
	return 0;
}

/*
 * The instructions of xformat.instrs (export_perfetto_instrs.c); what
 * takes no fast path goes through @fmt's slice() (xinstr_slice()), @fmt
 * being the format's table, which export_perfetto.c hands down.
 */
int perfetto_instrs(const struct xformat *fmt, void *ctx, const struct xtrack *t,
		    const struct xinstr *v, size_t n);

#endif /* NEURONPROF_TOOL_EXPORT_PERFETTO_INTERNAL_H */
