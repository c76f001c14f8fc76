// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: ring producer
 *
 * neuronprof ring: the arithmetic of one ring shared with userspace and its
 * producer. No locking here: the subscription serialises every call on a
 * ring with its spinlock (struct nprof_sub.lock). Documentation/ring.rst is
 * the protocol this file implements.
 *
 * Positions are free-running 64-bit byte counters; the entry at position p
 * lives at data + (p & (size - 1)). Every position is a multiple of the entry
 * size and the data size is a power-of-two multiple of it, so an entry never
 * straddles the end of the data area.
 *
 * Memory ordering, the same pairing as the perf ring buffer:
 *
 *   kernel (producer)                  userspace (consumer)
 *   A: cons = load_acquire(consumer)   C: prod = load_acquire(producer_pos)
 *      if room: write the entry           read entries below prod
 *   B: store_release(producer_pos)     D: store_release(consumer, new cons)
 *
 * A pairs with D: the kernel reuses space only after the consumer finished
 * reading it. B pairs with C: the consumer reads an entry only after the
 * kernel finished writing it.
 */

#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "neuronprof_core.h"

/* Entries tile the data area and every page; the header fits its page. */
static_assert((NPROF_ENTRY_SIZE & (NPROF_ENTRY_SIZE - 1)) == 0);
static_assert(NPROF_ENTRY_SIZE <= PAGE_SIZE);
static_assert(sizeof(struct neuronprof_ring_header) <= PAGE_SIZE);

/**
 * nprof_kring_init() - set up a ring in a zeroed buffer and fill its header.
 * @ring: the ring.
 * @mem: 2 * PAGE_SIZE + @size zeroed bytes: header page, consumer page, data.
 * @size: bytes of the data area, a power of two and a multiple of the entry
 *	size.
 * @watermark: unread bytes that wake a reader; 0 means one entry.
 * @q: the queue the ring belongs to.
 */
void nprof_kring_init(struct nprof_kring *ring, void *mem, u64 size, u32 watermark,
		      const struct nprof_queue_id *q)
{
	struct neuronprof_ring_header *hdr = mem;

	*ring = (struct nprof_kring) {
		.hdr = hdr,
		.cons_page = mem + NPROF_CONSUMER_PGOFF * PAGE_SIZE,
		.data = mem + NPROF_DATA_PGOFF * PAGE_SIZE,
		.size = size,
		.watermark = max_t(u64, watermark, NPROF_ENTRY_SIZE),
		.queue_type = q->type,
		.engine = q->engine,
	};

	hdr->version = NEURONPROF_RING_VERSION;
	hdr->header_size = sizeof(*hdr);
	hdr->entry_size = NPROF_ENTRY_SIZE;
	hdr->ring_size = size;
	hdr->queue_type = q->type;
	hdr->target_kind = q->kind;
	hdr->target_index = q->index;
	hdr->engine = q->engine;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_kring_init);

/**
 * nprof_kring_set_format() - state the raw format and clock domain of a ring.
 * @ring: the ring, just initialised.
 * @raw_format: NEURONPROF_RAW_FORMAT_*.
 * @clock_domain: NEURONPROF_CLOCK_*.
 */
void nprof_kring_set_format(struct nprof_kring *ring, u32 raw_format, u32 clock_domain)
{
	ring->hdr->raw_format = raw_format;
	ring->hdr->clock_domain = clock_domain;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_kring_set_format);

/**
 * nprof_kring_set_flags() - raise NEURONPROF_RING_* flags.
 * @ring: the ring.
 * @flags: the flags; flags are never cleared.
 */
void nprof_kring_set_flags(struct nprof_kring *ring, u32 flags)
{
	ring->flags |= flags;
	WRITE_ONCE(ring->hdr->flags, ring->flags);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_kring_set_flags);

/**
 * nprof_kring_consume() - consume on userspace's behalf (read(), NQ_DRAIN).
 * @ring: the ring.
 * @pos: the new consumer position; ignored unless it moves forward and is
 *	valid (a racing userspace store may have moved the consumer already).
 */
void nprof_kring_consume(struct nprof_kring *ring, u64 pos)
{
	/* Do not overwrite a newer position userspace stored meanwhile. */
	nprof_kring_sync_consumer(ring);
	if (pos == ring->cons || !nprof_kring_consumer_valid(ring->cons, pos, ring->prod))
		return;
	ring->cons = pos;
	/*
	 * The kernel acting as the consumer: like D, the release orders the
	 * copy of the entries (read()) before the space is handed back.
	 */
	smp_store_release(&ring->cons_page->consumer_pos, pos);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_kring_consume);

/**
 * nprof_kring_produce() - append one notification, or count it as lost.
 * @ring: the ring.
 * @n: the entry; its seq, queue_type and engine are filled here.
 * @force_lost: count it as lost even if there is room.
 * @wake: out, true when this entry made the unread bytes reach the
 *	watermark, so the caller must wake readers.
 *
 * Unread entries are never overwritten: without room the notification only
 * increments the lost counter and raises NEURONPROF_RING_OVERFLOWED. Either
 * way it takes a sequence number, so a gap in the sequence numbers of the
 * delivered entries is exactly the number lost there.
 *
 * Return: NPROF_NOTIFY_DELIVERED or NPROF_NOTIFY_LOST.
 */
enum nprof_notify_result nprof_kring_produce(struct nprof_kring *ring,
					     struct neuronprof_notification *n,
					     bool force_lost, bool *wake)
{
	u64 unread;

	*wake = false;
	nprof_kring_sync_consumer(ring);		/* A, see there */

	n->seq = ring->seq++;
	n->queue_type = ring->queue_type;
	n->engine = ring->engine;

	unread = nprof_kring_unread(ring);
	if (force_lost || ring->size - unread < NPROF_ENTRY_SIZE) {
		ring->lost++;
		WRITE_ONCE(ring->hdr->lost, ring->lost);
		nprof_kring_set_flags(ring, NEURONPROF_RING_OVERFLOWED);
		return NPROF_NOTIFY_LOST;
	}

	memcpy(ring->data + (ring->prod & (ring->size - 1)), n, NPROF_ENTRY_SIZE);
	ring->prod += NPROF_ENTRY_SIZE;
	/*
	 * B: pairs with userspace's acquire load C of producer_pos: an entry
	 * is fully written before the position that covers it is visible.
	 */
	smp_store_release(&ring->hdr->producer_pos, ring->prod);

	*wake = unread < ring->watermark &&
		unread + NPROF_ENTRY_SIZE >= ring->watermark;
	return NPROF_NOTIFY_DELIVERED;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_kring_produce);

/**
 * nprof_kring_produce_batch() - append notifications, or count them as lost.
 * @ring: the ring.
 * @n: @count entries to copy, or NULL to count @count notifications as lost
 *	that the provider could not capture at all.
 * @count: number of notifications.
 * @force_lost: count them all as lost even if there is room.
 * @delivered: out, how many were written; the rest were counted as lost.
 * @wake: out, true when the unread bytes reached the watermark.
 *
 * The same as @count calls of nprof_kring_produce() with no consumer move in
 * between, at the cost of one: the consumer position is read once (A), the
 * entries are copied in at most two runs (the data area may wrap), their
 * seq, queue_type and engine are filled in the ring, and the producer
 * position is published once (B). The first entries that fit are
 * delivered, the rest are lost, in order: sequence numbers stay gapless
 * across both.
 */
void nprof_kring_produce_batch(struct nprof_kring *ring,
			       const struct neuronprof_notification *n, u32 count,
			       bool force_lost, u32 *delivered, bool *wake)
{
	const u64 es = NPROF_ENTRY_SIZE;
	u64 unread, room, k, i, first, off;
	struct neuronprof_notification *dst;

	*wake = false;
	*delivered = 0;
	if (!count)
		return;
	nprof_kring_sync_consumer(ring);		/* A, see there */

	unread = nprof_kring_unread(ring);
	room = (ring->size - unread) / es;
	k = (force_lost || !n) ? 0 : min_t(u64, count, room);

	if (k) {
		off = ring->prod & (ring->size - 1);
		first = min_t(u64, k, (ring->size - off) / es);
		memcpy(ring->data + off, n, first * es);
		if (k > first)
			memcpy(ring->data, n + first, (k - first) * es);
		for (i = 0; i < k; i++) {
			dst = (void *)(ring->data + ((ring->prod + i * es) & (ring->size - 1)));
			dst->seq = ring->seq + i;
			dst->queue_type = ring->queue_type;
			dst->engine = ring->engine;
		}
		ring->prod += k * es;
		/* B: pairs with userspace's acquire load C, as in nprof_kring_produce(). */
		smp_store_release(&ring->hdr->producer_pos, ring->prod);
		*wake = unread < ring->watermark && unread + k * es >= ring->watermark;
	}
	ring->seq += count;
	if (k < count) {
		ring->lost += count - k;
		WRITE_ONCE(ring->hdr->lost, ring->lost);
		nprof_kring_set_flags(ring, NEURONPROF_RING_OVERFLOWED);
	}
	*delivered = k;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_kring_produce_batch);

/**
 * nprof_kring_fan_out() - copy entries another ring of the queue got into
 *	this one.
 * @ring: the ring.
 * @src: @count entries just written into another subscription's ring.
 * @count: how many.
 * @wake: out: the unread bytes crossed the watermark.
 *
 * What nprof_kring_produce_batch() does with @src, in one pass: each entry
 * is copied member by member with this ring's seq, queue_type and engine,
 * rather than copied whole and patched after, so every byte is written
 * once. Entries that do not fit are counted as lost, in order.
 *
 * Return: how many were delivered.
 */
u32 nprof_kring_fan_out(struct nprof_kring *ring, const struct neuronprof_notification *src,
			u32 count, bool *wake)
{
	const u64 es = NPROF_ENTRY_SIZE;
	struct neuronprof_notification *d;
	const struct neuronprof_notification *s;
	u64 unread, k, i;

	*wake = false;
	if (!count)
		return 0;
	nprof_kring_sync_consumer(ring);		/* A, see there */
	unread = nprof_kring_unread(ring);
	k = min_t(u64, count, (ring->size - unread) / es);
	for (i = 0; i < k; i++) {
		s = &src[i];
		d = (void *)(ring->data + ((ring->prod + i * es) & (ring->size - 1)));
		d->timestamp_ns = s->timestamp_ns;
		d->seq = ring->seq + i;
		d->queue_type = ring->queue_type;
		d->engine = ring->engine;
		d->code = s->code;
		d->model_id = s->model_id;
		d->iteration = s->iteration;
		d->payload[0] = s->payload[0];
		d->payload[1] = s->payload[1];
		d->payload[2] = s->payload[2];
		d->payload[3] = s->payload[3];
	}
	if (k) {
		ring->prod += k * es;
		/* B: pairs with userspace's acquire load C, as in nprof_kring_produce(). */
		smp_store_release(&ring->hdr->producer_pos, ring->prod);
		*wake = unread < ring->watermark && unread + k * es >= ring->watermark;
	}
	ring->seq += k;
	nprof_kring_lose(ring, count - k);
	return k;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_kring_fan_out);

/**
 * nprof_kring_lose() - count notifications as lost without producing them.
 * @ring: the ring.
 * @count: how many.
 *
 * Each takes a sequence number, as in nprof_kring_produce_batch() with no
 * entries; the ring is flagged NEURONPROF_RING_OVERFLOWED.
 */
void nprof_kring_lose(struct nprof_kring *ring, u64 count)
{
	if (!count)
		return;
	ring->seq += count;
	ring->lost += count;
	WRITE_ONCE(ring->hdr->lost, ring->lost);
	nprof_kring_set_flags(ring, NEURONPROF_RING_OVERFLOWED);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_kring_lose);
