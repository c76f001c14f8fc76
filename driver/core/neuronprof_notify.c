// SPDX-License-Identifier: GPL-2.0
/*
 * neuronprof core: the notify path, from a provider into subscribed rings.
 */

/**
 * DOC: notify path
 *
 * The hot path: a provider hands entries to the subscribed ring of a queue
 * with nprof_notify() (one), nprof_notify_batch() (several) or
 * nprof_notify_begin()/nprof_notify_end() (built in place in the ring),
 * counts what it could not deliver with nprof_notify_lost(), flags a ring
 * with nprof_queue_set_flags() and wakes a core's readers with
 * nprof_queues_flushed(). All of them take only the queue's spinlock and
 * may be called from any context, including hard IRQ; a queue nobody
 * subscribed costs one lookup.
 *
 * Fan-out: a queue has up to NEURONPROF_MAX_SUBSCRIBERS subscriptions, each
 * with its own ring. The producer takes the queue's one lock and fills every
 * ring under it, each with its own seq, room, lost count and watermark, so
 * a reader that falls behind loses only its own entries. Each extra
 * subscription costs the producer one more copy of the entries
 * (bench/fanout.c measures it, Documentation/ring.rst has the figures).
 */

#include <linux/bits.h>
#include <linux/compat.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/file.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <kunit/visibility.h>

#include "neuronprof_core.h"

/*
 * The queue @q of @ndev if it was ever subscribed, under rcu_read_lock()
 * (the caller's). A queue nobody subscribed costs this lookup and, in
 * nprof_queue_take(), one load.
 *
 * @q comes from a provider and is not checked against the device first
 * (nprof_queue_valid() costs more than the rest of a packed span): a queue
 * is stored only for an address SUBSCRIBE validated, at the slot of that
 * address, so an address that is not a queue of @ndev finds either nothing
 * or a queue of another address at its slot (nprof_queue_slot() of an
 * invalid address may alias a valid one), and the identity check refuses
 * that. What the ops get still passed nprof_queue_valid().
 */
static __always_inline struct nprof_queue *nprof_queue_find(struct nprof_drmdev *ndev,
							    const struct nprof_queue_id *q)
{
	struct nprof_queue *queue;

	queue = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, q));
	if (!queue || queue->q.kind != q->kind || queue->q.index != q->index ||
	    queue->q.type != q->type || queue->q.engine != q->engine)
		return NULL;
	return queue;
}

/*
 * Wake the readers of @n subscriptions, after the queue's lock is dropped,
 * which published what they wait for. A subscription nobody waits on costs
 * one load, not the wait queue's lock: a reader adds itself to @wq
 * (poll_wait(), wait_event_interruptible()) before it takes the queue's
 * lock to look at the ring (nprof_sub_poll_mask()), so either it took the
 * lock after the producer and sees what was published, or its entry in
 * @wq was written before the producer took the lock and is seen here.
 */
static void nprof_wake(struct nprof_sub **subs, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		nprof_sub_wake(subs[i]);
}

/*
 * Lock @queue, with interrupts saved in *@flags, if it has a subscriber:
 * true with the lock held. Context: rcu_read_lock() held (the caller's).
 */
static __always_inline bool nprof_queue_take(struct nprof_queue *queue, unsigned long *flags)
{
	if (!READ_ONCE(queue->nr_subs))
		return false;
	spin_lock_irqsave(&queue->lock, *flags);
	if (queue->nr_subs)
		return true;
	spin_unlock_irqrestore(&queue->lock, *flags);
	return false;
}

/*
 * The queue @q of @ndev, locked, if it has a subscriber: rcu_read_lock()
 * and the queue's lock with interrupts saved in *@flags are held on
 * return, until nprof_queue_unlock(). NULL, with nothing held, when @q is
 * not a queue of @ndev or nobody subscribed it.
 */
static __always_inline struct nprof_queue *nprof_queue_lock(struct nprof_drmdev *ndev,
							    const struct nprof_queue_id *q,
							    unsigned long *flags)
{
	struct nprof_queue *queue;

	rcu_read_lock();
	queue = nprof_queue_find(ndev, q);
	if (queue && nprof_queue_take(queue, flags))
		return queue;
	rcu_read_unlock();
	return NULL;
}

/* Undo nprof_queue_lock(), waking the readers of @n subscriptions in between. */
static void nprof_queue_unlock(struct nprof_queue *queue, unsigned long flags,
			       struct nprof_sub **wake, u32 n)
{
	spin_unlock_irqrestore(&queue->lock, flags);
	nprof_wake(wake, n);
	rcu_read_unlock();
}

/*
 * Count @lost notifications as lost in, and raise the NEURONPROF_RING_*
 * bits @flags in, the ring of every subscription of @q (either may be 0).
 * False when nobody subscribed @q.
 */
static bool nprof_queue_mark(struct nprof_drmdev *ndev, const struct nprof_queue_id *q,
			     u64 lost, u32 flags)
{
	struct nprof_queue *queue;
	unsigned long irq;
	u32 i;

	queue = nprof_queue_lock(ndev, q, &irq);
	if (!queue)
		return false;
	for (i = 0; i < queue->nr_subs; i++) {
		if (lost)
			nprof_kring_lose(&queue->subs[i]->ring, lost);
		if (flags)
			nprof_kring_set_flags(&queue->subs[i]->ring, flags);
	}
	nprof_queue_unlock(queue, irq, NULL, 0);
	return true;
}

/**
 * nprof_notify() - produce one notification into a queue.
 * @ndev: the device.
 * @q: the queue.
 * @n: the entry; the core fills @n->seq, queue_type and engine (in each
 *	subscription's ring its own seq; @n is left with the last one's).
 * @force_lost: count it as lost even when there is room.
 *
 * The entry goes into the ring of every subscription of @q. Unread entries
 * are never overwritten: a ring without room counts the notification in
 * its own lost counter and is flagged OVERFLOWED; the other rings still
 * get it. Readers are woken when their unread bytes reach their watermark.
 *
 * Context: any, including hard IRQ.
 * Return: NPROF_NOTIFY_DELIVERED when every subscription got it,
 * NPROF_NOTIFY_LOST when at least one lost it, or
 * NPROF_NOTIFY_UNSUBSCRIBED when nobody subscribed @q (or it does not
 * exist, or the device was unregistered).
 */
enum nprof_notify_result nprof_notify(struct nprof_drmdev *ndev,
				      const struct nprof_queue_id *q,
				      struct neuronprof_notification *n,
				      bool force_lost)
{
	enum nprof_notify_result ret = NPROF_NOTIFY_UNSUBSCRIBED;
	struct nprof_sub *wake[NEURONPROF_MAX_SUBSCRIBERS];
	struct nprof_queue *queue;
	unsigned long flags;
	u32 i, nwake = 0;
	bool w;

	queue = nprof_queue_lock(ndev, q, &flags);
	if (!queue)
		return NPROF_NOTIFY_UNSUBSCRIBED;
	for (i = 0; i < queue->nr_subs; i++) {
		if (nprof_kring_produce(&queue->subs[i]->ring, n, force_lost, &w) ==
		    NPROF_NOTIFY_LOST)
			ret = NPROF_NOTIFY_LOST;
		else if (ret == NPROF_NOTIFY_UNSUBSCRIBED)
			ret = NPROF_NOTIFY_DELIVERED;
		if (w)
			wake[nwake++] = queue->subs[i];
	}
	nprof_queue_unlock(queue, flags, wake, nwake);
	return ret;
}
EXPORT_SYMBOL_GPL(nprof_notify);

/**
 * nprof_notify_batch() - produce many notifications into one queue.
 * @ndev: the device.
 * @q: the queue.
 * @n: @count entries (the core fills seq, queue_type and engine in the
 *	rings, not here), or NULL to count @count notifications as lost that
 *	the provider could not capture.
 * @count: number of notifications, at most NPROF_NOTIFY_BATCH_MAX.
 * @force_lost: count them all as lost even when there is room.
 * @st: out, optional: how many were delivered and how many lost, in the
 *	ring of the subscription that lost most.
 *
 * The same as @count calls of nprof_notify() in a row, with one lookup, one
 * lock round trip, one publication of the producer position per ring and
 * at most one wakeup per subscription. Entries that do not fit in a ring
 * are counted as lost there, in order.
 *
 * Context: any, including hard IRQ; the copy runs with interrupts off, so
 * keep @count small there.
 * Return: NPROF_NOTIFY_UNSUBSCRIBED (nothing taken, @st zero),
 * NPROF_NOTIFY_LOST when at least one was lost in a ring, else
 * NPROF_NOTIFY_DELIVERED.
 */
enum nprof_notify_result nprof_notify_batch(struct nprof_drmdev *ndev,
					    const struct nprof_queue_id *q,
					    const struct neuronprof_notification *n,
					    u32 count, bool force_lost,
					    struct nprof_notify_stats *st)
{
	enum nprof_notify_result ret = NPROF_NOTIFY_UNSUBSCRIBED;
	struct nprof_sub *wake[NEURONPROF_MAX_SUBSCRIBERS];
	struct nprof_notify_stats stats = {};
	struct nprof_queue *queue;
	unsigned long flags;
	u32 i, delivered, nwake = 0;
	bool w;

	if (!count || count > NPROF_NOTIFY_BATCH_MAX)
		goto out;
	queue = nprof_queue_lock(ndev, q, &flags);
	if (!queue)
		goto out;
	for (i = 0; i < queue->nr_subs; i++) {
		nprof_kring_produce_batch(&queue->subs[i]->ring, n, count,
					  force_lost, &delivered, &w);
		if (!i || delivered < stats.delivered)
			stats.delivered = delivered;
		if (w)
			wake[nwake++] = queue->subs[i];
	}
	stats.lost = count - stats.delivered;
	ret = stats.lost ? NPROF_NOTIFY_LOST : NPROF_NOTIFY_DELIVERED;
	nprof_queue_unlock(queue, flags, wake, nwake);
out:
	if (st)
		*st = stats;
	return ret;
}
EXPORT_SYMBOL_GPL(nprof_notify_batch);

/**
 * nprof_notify_lost() - count notifications as lost that the provider could
 *	not capture at all, in constant time.
 * @ndev: the device.
 * @q: the queue.
 * @count: how many; any number.
 *
 * The same as nprof_notify_batch() with no entries, @count at a time: in
 * every subscription's ring each takes a sequence number and counts as
 * lost, and the ring is flagged NEURONPROF_RING_OVERFLOWED; but one call
 * for any @count, so a provider never loops to account for a large gap.
 *
 * Context: any, including hard IRQ.
 * Return: NPROF_NOTIFY_UNSUBSCRIBED, or NPROF_NOTIFY_LOST.
 */
enum nprof_notify_result nprof_notify_lost(struct nprof_drmdev *ndev,
					   const struct nprof_queue_id *q, u64 count)
{
	if (count && nprof_queue_mark(ndev, q, count, 0))
		return NPROF_NOTIFY_LOST;
	return NPROF_NOTIFY_UNSUBSCRIBED;
}
EXPORT_SYMBOL_GPL(nprof_notify_lost);

/**
 * nprof_queue_set_flags() - raise NEURONPROF_RING_* bits in the rings of a
 *	queue's subscriptions, if there are any.
 * @ndev: the device.
 * @q: the queue.
 * @flags: the bits; they stay set for each subscription's life.
 *
 * Context: any, including hard IRQ.
 * Return: true if at least one subscription got them.
 */
bool nprof_queue_set_flags(struct nprof_drmdev *ndev, const struct nprof_queue_id *q,
			   u32 flags)
{
	return nprof_queue_mark(ndev, q, 0, flags);
}
EXPORT_SYMBOL_GPL(nprof_queue_set_flags);

/*
 * Contiguous room in @ring (its consumer synced) at its producer position,
 * in ring entries: at most @want, or 0 if less than @min (1 for
 * notifications; a header and one device entry for a packed record). When
 * what is left before the end of the data area is less than @min but the
 * room after it is not, *@skip fillers (nprof_kring_fill()) come first and
 * the room is counted from the start of the data area. With @min 1 there
 * are never fillers: at least one entry is left before the end.
 */
static __always_inline u64 nprof_kring_room(const struct nprof_kring *ring, u64 want, u64 min,
					    u64 *skip)
{
	u64 free = (ring->size - nprof_kring_unread(ring)) / NPROF_ENTRY_SIZE;
	u64 end = (ring->size - (ring->prod & (ring->size - 1))) / NPROF_ENTRY_SIZE;
	u64 room;

	*skip = 0;
	if (end < min && free >= end + min) {
		*skip = end;
		free -= end;
		end = ring->size / NPROF_ENTRY_SIZE;
	}
	room = min3(want, free, end);
	return room < min ? 0 : room;
}

/* Write @n fillers (headers of 0 bytes, no seq) at @ring's producer position. */
static void nprof_kring_fill(struct nprof_kring *ring, u64 n)
{
	struct neuronprof_notification *f;

	for (; n; n--) {
		f = (void *)(ring->data + (ring->prod & (ring->size - 1)));
		*f = (struct neuronprof_notification){
			.seq = ring->seq, .queue_type = ring->queue_type, .engine = ring->engine,
			.code = NEURONPROF_RAW_PACKED, .model_id = ring->hdr->raw_format,
		};
		ring->prod += NPROF_ENTRY_SIZE;
	}
}

/* @span: @count entries of @sub's ring at its producer position. */
static void nprof_span_at(struct nprof_notify_span *span, struct nprof_sub *sub, u32 count)
{
	struct nprof_kring *ring = &sub->ring;

	span->sub = sub;
	span->entries = (void *)(ring->data + (ring->prod & (ring->size - 1)));
	span->count = count;
	span->seq = ring->seq;
	span->queue_type = ring->queue_type;
	span->engine = ring->engine;
}

/*
 * Reserve @span in the ring of the subscriptions of @queue, locked, that
 * has the most contiguous room for @want entries (nprof_kring_room(), at
 * least @min), its fillers written first.
 */
static __always_inline void nprof_span_reserve_in(struct nprof_queue *queue, u64 want, u64 min,
						  struct nprof_notify_span *span)
{
	struct nprof_kring *ring;
	struct nprof_sub *sub;
	u64 room, best = 0, skip, best_skip = 0;
	u32 i;

	sub = queue->subs[0];
	for (i = 0; i < queue->nr_subs; i++) {
		ring = &queue->subs[i]->ring;
		nprof_kring_sync_consumer(ring);		/* A */
		room = nprof_kring_room(ring, want, min, &skip);
		if (room > best) {
			best = room;
			best_skip = skip;
			sub = queue->subs[i];
		}
	}
	ring = &sub->ring;
	span->unread = nprof_kring_unread(ring);
	if (best_skip)
		nprof_kring_fill(ring, best_skip);
	nprof_span_at(span, sub, best);
}

/*
 * Lock @q and reserve @span in it (nprof_span_reserve_in()). Return: 0
 * with the lock held until nprof_notify_end() or nprof_notify_end_packed(),
 * or -ENOENT with nothing held when nobody subscribed @q.
 */
static __always_inline int nprof_span_reserve(struct nprof_drmdev *ndev,
					      const struct nprof_queue_id *q, u64 want, u64 min,
					      struct nprof_notify_span *span)
	__acquires(span->sub->lock)
{
	struct nprof_queue *queue;

	queue = nprof_queue_lock(ndev, q, &span->flags);
	if (!queue)
		return -ENOENT;
	nprof_span_reserve_in(queue, want, min, span);
	return 0;	/* rcu_read_lock() and the lock held until the end */
}

/**
 * nprof_notify_begin() - reserve room in a queue's ring to write entries in place.
 * @ndev: the device.
 * @q: the queue.
 * @count: notifications the provider is about to produce, 1 to
 *	NPROF_NOTIFY_BATCH_MAX.
 * @span: out: where to write them.
 *
 * On success the queue's lock is held (interrupts off) until
 * nprof_notify_end(): the provider writes @span->count entries at
 * @span->entries, the i-th one with seq = @span->seq + i, queue_type
 * @span->queue_type and engine @span->engine, and nothing else, then calls
 * nprof_notify_end() with how many it wrote. @span->count is the room that
 * is free and contiguous in the data area, at most @count, and may be 0
 * (ring full): nprof_notify_end() still has to be called, with the number of
 * notifications produced, and counts those it was not given as lost.
 *
 * With several subscriptions the span is in the ring with the most such
 * room, and nprof_notify_end() copies what was written into the other rings
 * (each with its own seq; a ring without room loses its share only).
 *
 * Context: any; the provider must not sleep between begin and end.
 * Return: 0 with the lock held, or -ENOENT when nobody subscribed @q (or it
 * does not exist, or the device is gone): then nothing is held.
 */
int nprof_notify_begin(struct nprof_drmdev *ndev, const struct nprof_queue_id *q,
		       u32 count, struct nprof_notify_span *span)
	__acquires(span->sub->lock)
{
	if (!count || count > NPROF_NOTIFY_BATCH_MAX)
		return -ENOENT;
	return nprof_span_reserve(ndev, q, count, 1, span);
}
EXPORT_SYMBOL_GPL(nprof_notify_begin);

/* Account @written entries the provider wrote in place and @lost more in @ring. */
static bool nprof_kring_publish(struct nprof_kring *ring, u32 written, u32 lost)
{
	u64 unread = nprof_kring_unread(ring);

	ring->prod += (u64)written * NPROF_ENTRY_SIZE;
	if (written) {
		/*
		 * B: pairs with userspace's acquire load C: the entries are
		 * written before the position that covers them is visible.
		 */
		smp_store_release(&ring->hdr->producer_pos, ring->prod);
	}
	ring->seq += written;
	nprof_kring_lose(ring, lost);
	return written && unread < ring->watermark &&
	       unread + (u64)written * NPROF_ENTRY_SIZE >= ring->watermark;
}

/**
 * nprof_notify_end() - publish the entries written after nprof_notify_begin().
 * @span: the span nprof_notify_begin() filled.
 * @written: entries written at the start of @span->entries, at most
 *	@span->count.
 * @produced: notifications produced, at least @written: the rest are counted
 *	as lost (they take sequence numbers after the written ones).
 *
 * Copies the written entries into the queue's other rings, releases what
 * nprof_notify_begin() took and wakes each subscription's readers once if
 * its watermark was reached.
 *
 * Return: the number counted as lost in the span's ring.
 */
u32 nprof_notify_end(struct nprof_notify_span *span, u32 written, u32 produced)
	__releases(span->sub->lock)
{
	struct nprof_sub *wake[NEURONPROF_MAX_SUBSCRIBERS];
	struct nprof_sub *sub = span->sub, *other;
	struct nprof_queue *queue = sub->queue;
	u32 i, lost, nwake = 0;
	bool w;

	if (WARN_ON_ONCE(written > span->count))
		written = span->count;
	produced = max(produced, written);
	lost = produced - written;
	/*
	 * The other rings first, from the span (which nothing overwrites
	 * before its own ring publishes it): the copy writes each ring's own
	 * seq, queue_type and engine (nprof_kring_fan_out()).
	 */
	for (i = 0; i < queue->nr_subs; i++) {
		other = queue->subs[i];
		if (other == sub)
			continue;
		nprof_kring_fan_out(&other->ring, span->entries, written, &w);
		nprof_kring_lose(&other->ring, lost);
		if (w)
			wake[nwake++] = other;
	}
	if (nprof_kring_publish(&sub->ring, written, lost))
		wake[nwake++] = sub;
	nprof_queue_unlock(queue, span->flags, wake, nwake);
	return lost;
}
EXPORT_SYMBOL_GPL(nprof_notify_end);

/*
 * Packed raw records (uapi NEURONPROF_RAW_PACKED): a header entry and the
 * device's bytes after it, copied whole. The provider writes one in place
 * with nprof_notify_begin_packed()/nprof_notify_end_packed(); the other
 * rings of the queue get a copy of each record as a unit, with their own
 * seq in its header (nprof_kring_put_packed()).
 */

/*
 * Copy the packed record @h (its bytes in the entries after it) into
 * @ring as whole device entries: split into two records where the room
 * stops at the end of the data area, the rest counted as lost when the
 * ring is full. Publishes nothing.
 */
static void nprof_kring_put_packed(struct nprof_kring *ring,
				   const struct neuronprof_notification *h)
{
	u32 bytes = NEURONPROF_RAW_PACKED_BYTES(h->payload[1]);
	u32 es = NEURONPROF_RAW_PACKED_ENTRY_SIZE(h->payload[1]);
	const u8 *src = (const u8 *)(h + 1);
	struct neuronprof_notification *d;
	u64 index = h->payload[0], room, skip;
	u32 k;

	while (bytes) {
		room = nprof_kring_room(ring, NEURONPROF_RAW_PACKED_SLOTS(bytes),
					NEURONPROF_RAW_PACKED_SLOTS(es), &skip);
		if (!room)
			break;
		nprof_kring_fill(ring, skip);
		k = min_t(u64, bytes / es, (room - 1) * NPROF_ENTRY_SIZE / es) * es;
		d = (void *)(ring->data + (ring->prod & (ring->size - 1)));
		*d = *h;
		d->seq = ring->seq;
		d->queue_type = ring->queue_type;
		d->engine = ring->engine;
		d->iteration = (u32)index;
		d->payload[0] = index;
		d->payload[1] = NEURONPROF_RAW_PACKED_INFO(k, es);
		memcpy(d + 1, src, k);
		ring->prod += NEURONPROF_RAW_PACKED_SLOTS(k) * NPROF_ENTRY_SIZE;
		ring->seq += NEURONPROF_RAW_PACKED_SEQS(k);
		src += k;
		bytes -= k;
		index += k / es;
	}
	nprof_kring_lose(ring, NEURONPROF_RAW_PACKED_SEQS(bytes));
}

/**
 * nprof_queue_handle() - the core's queue of a queue address, for
 *	nprof_notify_begin_packed_at().
 * @ndev: the device.
 * @q: the queue.
 *
 * The core creates the queue of @q before the provider's first queue_start
 * of @q and keeps it, the queue of @q alone, until the device is
 * released. A provider may look it up once, in queue_start, and hand it to
 * nprof_notify_begin_packed_at() on every span, which then does not look
 * @q up again. The handle says nothing about subscriptions: a span on it
 * after the last subscription went (unsubscription, or the device's
 * unregistration) finds nobody subscribed, as a span on the address does.
 *
 * Context: the provider's queue_start of @q, or later while the device is
 * not released.
 * Return: the handle, or NULL if @q was never subscribed.
 */
struct nprof_queue *nprof_queue_handle(struct nprof_drmdev *ndev, const struct nprof_queue_id *q)
{
	struct nprof_queue *queue;

	rcu_read_lock();
	queue = nprof_queue_find(ndev, q);
	rcu_read_unlock();
	return queue;
}
EXPORT_SYMBOL_GPL(nprof_queue_handle);

/**
 * nprof_notify_begin_packed_at() - nprof_notify_begin_packed() on a queue's
 *	handle.
 * @queue: the handle (nprof_queue_handle()); NULL is refused.
 * @slots: as nprof_notify_begin_packed().
 * @es: as nprof_notify_begin_packed().
 * @span: as nprof_notify_begin_packed().
 *
 * The same span as nprof_notify_begin_packed() of the handle's address,
 * without looking the address up.
 *
 * Context: any; the provider must not sleep between begin and end.
 * Return: 0 with the lock held, or -ENOENT (nobody subscribed the queue
 * now, or @queue is NULL) with nothing held.
 */
int nprof_notify_begin_packed_at(struct nprof_queue *queue, u32 slots, u32 es,
				 struct nprof_notify_span *span)
	__acquires(span->sub->lock)
{
	if (!queue || slots < 2 || slots > NPROF_NOTIFY_BATCH_MAX || !es)
		return -ENOENT;
	rcu_read_lock();
	if (!nprof_queue_take(queue, &span->flags)) {
		rcu_read_unlock();
		return -ENOENT;
	}
	nprof_span_reserve_in(queue, slots, NEURONPROF_RAW_PACKED_SLOTS(es), span);
	return 0;	/* rcu_read_lock() and the lock held until the end */
}
EXPORT_SYMBOL_GPL(nprof_notify_begin_packed_at);

/**
 * nprof_notify_begin_packed() - reserve room in a queue's ring to write one
 *	packed raw record in place.
 * @ndev: the device (NEURONPROF_CAP_RAW_PACKED).
 * @q: the queue.
 * @slots: ring entries of the record the provider would write
 *	(NEURONPROF_RAW_PACKED_SLOTS() of its bytes), 2 to NPROF_NOTIFY_BATCH_MAX.
 * @es: bytes of one device entry (a record holds whole ones).
 * @span: out: where to write it.
 *
 * As nprof_notify_begin(), for records: @span->count is the contiguous
 * room, at most @slots, and either 0 (no room for a header and one device
 * entry) or at least that. When the room before the end of the data area
 * is too small for that and the room at its start is not, fillers are put
 * there and the span starts at the start. The provider writes the header
 * (seq @span->seq, queue_type @span->queue_type, engine @span->engine) and
 * the bytes after it, and calls nprof_notify_end_packed().
 *
 * The queue's handle (nprof_queue_handle()) looked up for this one span:
 * nprof_notify_begin_packed_at() is the same span for a provider that keeps
 * the handle.
 *
 * Context: any; the provider must not sleep between begin and end.
 * Return: 0 with the lock held, or -ENOENT as nprof_notify_begin().
 */
int nprof_notify_begin_packed(struct nprof_drmdev *ndev, const struct nprof_queue_id *q,
			      u32 slots, u32 es, struct nprof_notify_span *span)
	__acquires(span->sub->lock)
{
	return nprof_notify_begin_packed_at(nprof_queue_handle(ndev, q), slots, es, span);
}
EXPORT_SYMBOL_GPL(nprof_notify_begin_packed);

/* @ring's readers are due a wakeup: its unread bytes went from @unread across the watermark. */
static bool nprof_kring_crossed(const struct nprof_kring *ring, u64 unread)
{
	return unread < ring->watermark && nprof_kring_unread(ring) >= ring->watermark;
}

/**
 * nprof_notify_end_packed() - publish the packed record(s) written after
 *	nprof_notify_begin_packed().
 * @span: the span nprof_notify_begin_packed() filled.
 * @written: ring entries written at @span->entries, whole records (each
 *	NEURONPROF_RAW_PACKED_SLOTS() of its bytes), at most @span->count.
 * @lost: sequence numbers produced after them that were not written (one
 *	per 32 device bytes), counted as lost in every ring.
 *
 * Each other ring of the queue gets a copy of each record as a unit: its
 * header with that ring's seq, its bytes as they are (split in two where
 * that ring's room stops at the end of its data area; what does not fit in
 * a full ring is lost there, counted in sequence numbers). Then the lock
 * is released and readers woken as nprof_notify_end() does.
 *
 * Return: the sequence numbers counted as lost in the span's ring.
 */
u64 nprof_notify_end_packed(struct nprof_notify_span *span, u32 written, u64 lost)
	__releases(span->sub->lock)
{
	struct nprof_sub *wake[NEURONPROF_MAX_SUBSCRIBERS];
	struct nprof_sub *sub = span->sub, *other;
	struct nprof_queue *queue = sub->queue;
	struct nprof_kring *ring = &sub->ring;
	const struct neuronprof_notification *h;
	u32 i, at, n, nwake = 0;
	u64 unread, seqs = 0, bytes;

	if (WARN_ON_ONCE(written > span->count))
		written = span->count;
	/* The records: a header the provider did not write ends them. */
	for (at = 0; at < written; at += n) {
		h = &span->entries[at];
		bytes = NEURONPROF_RAW_PACKED_BYTES(h->payload[1]);
		n = NEURONPROF_RAW_PACKED_SLOTS(bytes);
		if (WARN_ON_ONCE(h->code != NEURONPROF_RAW_PACKED || n > written - at))
			break;
		seqs += NEURONPROF_RAW_PACKED_SEQS(bytes);
	}
	written = at;
	for (i = 0; i < queue->nr_subs; i++) {
		other = queue->subs[i];
		if (other == sub)
			continue;
		unread = nprof_kring_unread(&other->ring);
		for (at = 0; at < written; at += NEURONPROF_RAW_PACKED_SLOTS(bytes)) {
			h = &span->entries[at];
			bytes = NEURONPROF_RAW_PACKED_BYTES(h->payload[1]);
			nprof_kring_put_packed(&other->ring, h);
		}
		nprof_kring_lose(&other->ring, lost);
		if (nprof_kring_unread(&other->ring) != unread) {
			/* B, as in nprof_kring_publish(). */
			smp_store_release(&other->ring.hdr->producer_pos, other->ring.prod);
			if (nprof_kring_crossed(&other->ring, unread))
				wake[nwake++] = other;
		}
	}
	ring->prod += (u64)written * NPROF_ENTRY_SIZE;
	if (ring->prod - ring->cons != span->unread) {
		/* B: the record (and fillers before it) before the position that covers them. */
		smp_store_release(&ring->hdr->producer_pos, ring->prod);
		if (nprof_kring_crossed(ring, span->unread))
			wake[nwake++] = sub;
	}
	ring->seq += seqs;
	if (lost)
		nprof_kring_lose(ring, lost);
	nprof_queue_unlock(queue, span->flags, wake, nwake);
	return lost;
}
EXPORT_SYMBOL_GPL(nprof_notify_end_packed);

/* Flush @count consecutive targets of one kind: their slots are one range. */
static void nprof_flush_targets(struct nprof_drmdev *ndev, u32 kind, u32 first,
				u32 count)
{
	const struct nprof_queue_id base = { .kind = kind, .index = first };
	unsigned long start = nprof_queue_slot(&ndev->desc, &base);
	unsigned long last = start + (unsigned long)count * NEURONPROF_QT_MAX *
			     NEURONPROF_MAX_INSTANCES - 1;
	struct nprof_queue *queue;
	unsigned long slot;

	xa_for_each_range(&ndev->queues, slot, queue, start, last)
		nprof_queue_flushed(queue);
}

/**
 * nprof_queues_flushed() - every queue of a core and its TopSPs got all its
 *	in-flight notifications (an execution ended).
 * @ndev: the device.
 * @core: the NeuronCore; out-of-range values are ignored.
 *
 * Readers of those queues are woken even below their watermark, and poll
 * reports EPOLLIN until they consumed what was produced so far.
 *
 * Context: any, including hard IRQ.
 */
void nprof_queues_flushed(struct nprof_drmdev *ndev, u32 core)
{
	const struct nprof_device_desc *d = &ndev->desc;
	u32 per_core;

	if (core >= d->num_cores)
		return;
	per_core = d->num_topsps / d->num_cores;

	rcu_read_lock();
	nprof_flush_targets(ndev, NEURONPROF_TARGET_CORE, core, 1);
	if (per_core)
		nprof_flush_targets(ndev, NEURONPROF_TARGET_TOPSP, core * per_core,
				    per_core);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(nprof_queues_flushed);
