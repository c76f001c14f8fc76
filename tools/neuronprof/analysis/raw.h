/* SPDX-License-Identifier: MIT */
/*
 * The raw parts of a raw queue, from either raw record: the unpacked one
 * (NTFF 2.x: one ring entry per 32 device bytes, each its own part) and
 * the packed one (NTFF 3.x, uapi NEURONPROF_RAW_PACKED: a header entry and
 * the device's bytes after it). Every reader of raw entries (dump, summary,
 * the exports) walks parts through this, so that a packed recording reads
 * exactly as the unpacked recording of the same capture would: each part
 * is given as the entry that carried it there, with its sequence number
 * (a record's parts number on from its header's seq), capture time,
 * NEURONPROF_RAW_CODE(32, part, parts), raw format, device entry index
 * and bytes.
 */
#ifndef NEURONPROF_TOOL_RAW_H
#define NEURONPROF_TOOL_RAW_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analysis/profile.h"

/* Where the 64-byte ring entries of a queue (or of one record of it) come from. */
typedef const void *(*raw_slot_fn)(void *ctx);

struct raw_parts {
	bool packed;
	raw_slot_fn next;
	void *ctx;
	uint64_t slots;			/* ring entries taken so far */
	struct entry hdr;		/* the packed record being walked */
	uint64_t first_index;
	uint32_t left, k, parts;	/* its parts left, the next one, parts per device entry */
	const unsigned char *slot;	/* its ring entry holding part k - 1 */
};

static inline void raw_parts_init(struct raw_parts *r, const struct prof_file *f, raw_slot_fn next,
				  void *ctx)
{
	*r = (struct raw_parts){ .packed = f->info.device.raw_packed != 0, .next = next, .ctx = ctx };
}

static inline const void *raw_parts_slot(struct raw_parts *r)
{
	const void *p = r->next(r->ctx);

	if (p)
		r->slots++;
	return p;
}

/*
 * The next part as the entry that carries it (*@e) and as bytes (*@part);
 * false after the last. A packed record whose header is not one (the
 * reader checked them at open) ends the walk.
 */
static inline bool raw_parts_next(struct raw_parts *r, struct entry *e, struct raw_part *part)
{
	const void *p;
	uint32_t bytes, es;

	if (!r->packed) {
		if (!(p = raw_parts_slot(r)))
			return false;
		entry_decode(p, sizeof(struct neuronprof_notification), e);
		raw_part_of(e, part);
		return true;
	}
	while (!r->left) {
		if (!(p = raw_parts_slot(r)))
			return false;
		entry_decode(p, sizeof(struct neuronprof_notification), &r->hdr);
		bytes = NEURONPROF_RAW_PACKED_BYTES(r->hdr.payload[1]);
		es = NEURONPROF_RAW_PACKED_ENTRY_SIZE(r->hdr.payload[1]);
		if (r->hdr.code != NEURONPROF_RAW_PACKED ||
		    (bytes && (es < NEURONPROF_RAW_BYTES_PER_ENTRY || es % NEURONPROF_RAW_BYTES_PER_ENTRY)))
			return false;
		r->first_index = r->hdr.payload[0];
		r->left = bytes / NEURONPROF_RAW_BYTES_PER_ENTRY;	/* 0: a filler */
		r->parts = es / NEURONPROF_RAW_BYTES_PER_ENTRY;
		r->k = 0;
	}
	/* Two parts per ring entry after the header. */
	if (!(r->k % 2) && !(r->slot = raw_parts_slot(r)))
		return false;
	*e = r->hdr;
	e->seq = r->hdr.seq + r->k;
	e->code = NEURONPROF_RAW_CODE(NEURONPROF_RAW_BYTES_PER_ENTRY, r->k % r->parts, r->parts);
	e->iteration = (uint32_t)(r->first_index + r->k / r->parts);
	for (int i = 0; i < 4; i++) {
		uint64_t v;

		memcpy(&v, r->slot + (r->k % 2) * NEURONPROF_RAW_BYTES_PER_ENTRY + 8 * i, sizeof(v));
		e->payload[i] = le64toh(v);
	}
	r->k++;
	r->left--;
	raw_part_of(e, part);
	return true;
}

/* raw_slot_fn of a struct queue_iter (a whole queue). */
static inline const void *raw_slot_queue(void *ctx)
{
	return queue_iter_next(ctx);
}

/* raw_slot_fn of a struct nprof_ntff_entry_iter (one record). */
static inline const void *raw_slot_record(void *ctx)
{
	return nprof_ntff_entry_iter_next(ctx);
}

#endif /* NEURONPROF_TOOL_RAW_H */
