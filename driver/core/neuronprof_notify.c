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
 * nprof_queues_flushed(). All of them take only the subscription's
 * spinlock and may be called from any context, including hard IRQ; a queue
 * nobody subscribed costs one lookup.
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

/**
 * nprof_notify() - produce one notification into a queue.
 * @ndev: the device.
 * @q: the queue.
 * @n: the entry; the core fills @n->seq, queue_type and engine.
 * @force_lost: count it as lost even when there is room.
 *
 * Unread entries are never overwritten: without room the notification is
 * counted in the ring's lost counter and the ring is flagged OVERFLOWED.
 * Readers are woken when the unread bytes reach the watermark.
 *
 * Context: any, including hard IRQ.
 * Return: NPROF_NOTIFY_DELIVERED, NPROF_NOTIFY_LOST, or
 * NPROF_NOTIFY_UNSUBSCRIBED when nobody subscribed @q (or it does not exist,
 * or the device was unregistered).
 */
enum nprof_notify_result nprof_notify(struct nprof_device *ndev,
				      const struct nprof_queue_id *q,
				      struct neuronprof_notification *n,
				      bool force_lost)
{
	enum nprof_notify_result ret = NPROF_NOTIFY_UNSUBSCRIBED;
	struct nprof_sub *sub;
	unsigned long flags;
	bool wake = false;

	if (!nprof_queue_valid(&ndev->desc, q))
		return NPROF_NOTIFY_UNSUBSCRIBED;

	rcu_read_lock();
	sub = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, q));
	if (sub) {
		spin_lock_irqsave(&sub->lock, flags);
		if (!sub->detached)
			ret = nprof_ring_produce(&sub->ring, n, force_lost, &wake);
		spin_unlock_irqrestore(&sub->lock, flags);
		if (wake)
			wake_up_interruptible_poll(&sub->wq, EPOLLIN | EPOLLRDNORM);
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(nprof_notify);

/**
 * nprof_notify_batch() - produce many notifications into one queue.
 * @ndev: the device.
 * @q: the queue.
 * @n: @count entries (the core fills seq, queue_type and engine in the
 *	ring, not here), or NULL to count @count notifications as lost that
 *	the provider could not capture.
 * @count: number of notifications, at most NPROF_NOTIFY_BATCH_MAX.
 * @force_lost: count them all as lost even when there is room.
 * @st: out, optional: how many were delivered and how many lost.
 *
 * The same as @count calls of nprof_notify() in a row, with one lookup, one
 * lock round trip, one publication of the producer position and at most one
 * wakeup. Entries that do not fit are counted as lost, in order.
 *
 * Context: any, including hard IRQ; the copy runs with interrupts off, so
 * keep @count small there.
 * Return: NPROF_NOTIFY_UNSUBSCRIBED (nothing taken, @st zero),
 * NPROF_NOTIFY_LOST when at least one was lost, else NPROF_NOTIFY_DELIVERED.
 */
enum nprof_notify_result nprof_notify_batch(struct nprof_device *ndev,
					    const struct nprof_queue_id *q,
					    const struct neuronprof_notification *n,
					    u32 count, bool force_lost,
					    struct nprof_notify_stats *st)
{
	enum nprof_notify_result ret = NPROF_NOTIFY_UNSUBSCRIBED;
	struct nprof_notify_stats stats = {};
	struct nprof_sub *sub;
	unsigned long flags;
	bool wake = false;

	if (!count || count > NPROF_NOTIFY_BATCH_MAX || !nprof_queue_valid(&ndev->desc, q))
		goto out;

	rcu_read_lock();
	sub = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, q));
	if (sub) {
		spin_lock_irqsave(&sub->lock, flags);
		if (!sub->detached) {
			nprof_ring_produce_batch(&sub->ring, n, count, force_lost,
						 &stats.delivered, &wake);
			stats.lost = count - stats.delivered;
			ret = stats.lost ? NPROF_NOTIFY_LOST : NPROF_NOTIFY_DELIVERED;
		}
		spin_unlock_irqrestore(&sub->lock, flags);
		if (wake)
			wake_up_interruptible_poll(&sub->wq, EPOLLIN | EPOLLRDNORM);
	}
	rcu_read_unlock();
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
 * The same as nprof_notify_batch() with no entries, @count at a time: each
 * takes a sequence number and counts as lost, and the ring is flagged
 * NEURONPROF_RING_OVERFLOWED; but one call for any @count, so a provider
 * never loops to account for a large gap.
 *
 * Context: any, including hard IRQ.
 * Return: NPROF_NOTIFY_UNSUBSCRIBED, or NPROF_NOTIFY_LOST.
 */
enum nprof_notify_result nprof_notify_lost(struct nprof_device *ndev,
					   const struct nprof_queue_id *q, u64 count)
{
	enum nprof_notify_result ret = NPROF_NOTIFY_UNSUBSCRIBED;
	struct nprof_sub *sub;
	unsigned long flags;

	if (!count || !nprof_queue_valid(&ndev->desc, q))
		return ret;
	rcu_read_lock();
	sub = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, q));
	if (sub) {
		spin_lock_irqsave(&sub->lock, flags);
		if (!sub->detached) {
			nprof_ring_lose(&sub->ring, count);
			ret = NPROF_NOTIFY_LOST;
		}
		spin_unlock_irqrestore(&sub->lock, flags);
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(nprof_notify_lost);

/**
 * nprof_queue_set_flags() - raise NEURONPROF_RING_* bits in the ring of a
 *	queue's subscription, if there is one.
 * @ndev: the device.
 * @q: the queue.
 * @flags: the bits; they stay set for the subscription's life.
 *
 * Context: any, including hard IRQ.
 * Return: true if a subscription got them.
 */
bool nprof_queue_set_flags(struct nprof_device *ndev, const struct nprof_queue_id *q,
			   u32 flags)
{
	struct nprof_sub *sub;
	unsigned long irq;
	bool ret = false;

	if (!nprof_queue_valid(&ndev->desc, q))
		return false;
	rcu_read_lock();
	sub = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, q));
	if (sub) {
		spin_lock_irqsave(&sub->lock, irq);
		if (!sub->detached) {
			nprof_ring_set_flags(&sub->ring, flags);
			ret = true;
		}
		spin_unlock_irqrestore(&sub->lock, irq);
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(nprof_queue_set_flags);

/**
 * nprof_notify_begin() - reserve room in a queue's ring to write entries in place.
 * @ndev: the device.
 * @q: the queue.
 * @count: notifications the provider is about to produce, 1 to
 *	NPROF_NOTIFY_BATCH_MAX.
 * @span: out: where to write them.
 *
 * On success the subscription's lock is held (interrupts off) until
 * nprof_notify_end(): the provider writes @span->count entries at
 * @span->entries, the i-th one with seq = @span->seq + i, queue_type
 * @span->queue_type and engine @span->engine, and nothing else, then calls
 * nprof_notify_end() with how many it wrote. @span->count is the room that
 * is free and contiguous in the data area, at most @count, and may be 0
 * (ring full): nprof_notify_end() still has to be called, with the number of
 * notifications produced, and counts those it was not given as lost.
 *
 * Context: any; the provider must not sleep between begin and end.
 * Return: 0 with the lock held, or -ENOENT when nobody subscribed @q (or it
 * does not exist, or the device is gone): then nothing is held.
 */
int nprof_notify_begin(struct nprof_device *ndev, const struct nprof_queue_id *q,
		       u32 count, struct nprof_notify_span *span)
	__acquires(&span->sub->lock)
{
	struct nprof_ring *ring;
	struct nprof_sub *sub;
	u64 off, room;

	if (!count || count > NPROF_NOTIFY_BATCH_MAX || !nprof_queue_valid(&ndev->desc, q))
		return -ENOENT;

	rcu_read_lock();
	sub = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, q));
	if (!sub)
		goto none;
	spin_lock_irqsave(&sub->lock, span->flags);
	if (sub->detached) {
		spin_unlock_irqrestore(&sub->lock, span->flags);
		goto none;
	}
	ring = &sub->ring;
	nprof_ring_sync_consumer(ring);		/* A */
	off = ring->prod & (ring->size - 1);
	room = min3((u64)count, (ring->size - nprof_ring_unread(ring)) / NPROF_ENTRY_SIZE,
		    (ring->size - off) / NPROF_ENTRY_SIZE);
	span->sub = sub;
	span->entries = (void *)(ring->data + off);
	span->count = room;
	span->seq = ring->seq;
	span->queue_type = ring->queue_type;
	span->engine = ring->engine;
	return 0;	/* rcu_read_lock() and the lock held until nprof_notify_end() */
none:
	rcu_read_unlock();
	return -ENOENT;
}
EXPORT_SYMBOL_GPL(nprof_notify_begin);

/**
 * nprof_notify_end() - publish the entries written after nprof_notify_begin().
 * @span: the span nprof_notify_begin() filled.
 * @written: entries written at the start of @span->entries, at most
 *	@span->count.
 * @produced: notifications produced, at least @written: the rest are counted
 *	as lost (they take sequence numbers after the written ones).
 *
 * Releases what nprof_notify_begin() took and wakes readers once if the
 * watermark was reached.
 *
 * Return: the number counted as lost.
 */
u32 nprof_notify_end(struct nprof_notify_span *span, u32 written, u32 produced)
	__releases(&span->sub->lock)
{
	struct nprof_sub *sub = span->sub;
	struct nprof_ring *ring = &sub->ring;
	u64 unread = nprof_ring_unread(ring);
	u32 lost;
	bool wake;

	if (WARN_ON_ONCE(written > span->count))
		written = span->count;
	produced = max(produced, written);
	lost = produced - written;
	ring->prod += (u64)written * NPROF_ENTRY_SIZE;
	if (written) {
		/*
		 * B: pairs with userspace's acquire load C: the entries are
		 * written before the position that covers them is visible.
		 */
		smp_store_release(&ring->hdr->producer_pos, ring->prod);
	}
	ring->seq += produced;
	if (lost) {
		ring->lost += lost;
		WRITE_ONCE(ring->hdr->lost, ring->lost);
		nprof_ring_set_flags(ring, NEURONPROF_RING_OVERFLOWED);
	}
	wake = written && unread < ring->watermark &&
	       unread + (u64)written * NPROF_ENTRY_SIZE >= ring->watermark;
	spin_unlock_irqrestore(&sub->lock, span->flags);
	if (wake)
		wake_up_interruptible_poll(&sub->wq, EPOLLIN | EPOLLRDNORM);
	rcu_read_unlock();
	return lost;
}
EXPORT_SYMBOL_GPL(nprof_notify_end);

/* Flush @count consecutive targets of one kind: their slots are one range. */
static void nprof_flush_targets(struct nprof_device *ndev, u32 kind, u32 first,
				u32 count)
{
	const struct nprof_queue_id base = { .kind = kind, .index = first };
	unsigned long start = nprof_queue_slot(&ndev->desc, &base);
	unsigned long last = start + (unsigned long)count * NEURONPROF_QT_MAX *
			     NEURONPROF_MAX_INSTANCES - 1;
	struct nprof_sub *sub;
	unsigned long slot;

	xa_for_each_range(&ndev->queues, slot, sub, start, last)
		nprof_sub_flushed(sub);
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
void nprof_queues_flushed(struct nprof_device *ndev, u32 core)
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
