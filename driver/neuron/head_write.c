// SPDX-License-Identifier: GPL-2.0
/*
 * neuronprof_neuron: the head write. One job: on the hook's head_write, the
 * entries the runtime consumed, from the queue's ring in host memory or,
 * through BAR4 and a bounce buffer, in device memory, into the
 * subscription's ring as packed raw records; the hot path of
 * bench/neuron_head_write_native.sh.
 */

/**
 * DOC: head write
 *
 * nprof_nn_head_write() is the hook's head_write (provider.c lists it in
 * nprof_nn_hook_ops). It finds the device under nprof_nn_srcu and the queue
 * the written register set is for (nprof_nn_lookup()), takes only that
 * queue's mutex, turns the head into a position (nprof_nn_head_pos()) and, for a queue
 * somebody subscribed, copies the consumed entries (at most one device
 * ring; older ones count as lost) into the ring with nprof_nn_copy(): one
 * packed record per span, a header slot and the consumed bytes copied with
 * memcpy(). What the path costs, piece by piece, is measured by
 * bench/neuron_head_write_native.sh (Documentation/hardware.rst).
 *
 * A ring in device memory is read into the queue's bounce buffer, one
 * round (at most 16 KiB) at a time, before the round's span begins:
 * through BAR4 with memcpy_fromio() (devmem_read=fromio, the default), or
 * (devmem_read=dma) by the vendor's DMA copy, neuron_nq_hook_dma_read(),
 * which queues the copy on the core's host-device engine and polls for
 * it. A DMA copy that fails (the engine timed out, or the driver no longer
 * holds the queue) delivers nothing of its round: the round's entries are
 * counted lost (a rate-limited message says why), never delivered from
 * whatever the bounce held.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/srcu.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "neuron.h"

/* Bytes of a ring entry: a packed record's bytes fill them 64 at a time. */
#define NPROF_NN_SLOT	sizeof(struct neuronprof_notification)

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * KUnit: reads device memory instead of memcpy_fromio() when set (a test's
 * fake BAR4, which checks the context it is read in).
 */
nprof_nn_io_read_t nprof_nn_io_read;
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_io_read);
#endif

/* The hook's neuron_nq_hook_dma_read() when devmem_read=dma (provider.c). */
nprof_nn_dma_read_t nprof_nn_dma_read;
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_dma_read);

static void nprof_nn_read_io(void *dst, const void __iomem *src, size_t len)
{
#if IS_ENABLED(CONFIG_KUNIT)
	nprof_nn_io_read_t read = READ_ONCE(nprof_nn_io_read);

	if (read) {
		read(dst, src, len);
		return;
	}
#endif
	memcpy_fromio(dst, src, len);
}

/*
 * @len bytes of @nq's device-memory ring from byte @off on, wrapping at its
 * size, into its bounce (two reads where the ring wraps): through the BAR4
 * mapping the vendor uses (memcpy_fromio(), devmem_read=fromio) or by the
 * vendor's DMA copy (neuron_nq_hook_dma_read(), devmem_read=dma). Return 0,
 * or the DMA copy's error, after which the bounce holds nothing of the
 * ring's.
 * Context: may sleep, interrupts on (uncached reads over PCIe are slow: 16
 * KiB can take longer than the 50 us an interrupts-off span may last; the
 * DMA copy waits for the engine), @nq->lock held: it keeps the queue's
 * halt, and so its memory's free, from completing meanwhile (the hook's
 * contract for the DMA copy).
 */
static int nprof_nn_read_devmem(struct nprof_nn_device *dev, struct nprof_nn_queue *nq,
				u32 off, u32 len)
{
	nprof_nn_dma_read_t read = READ_ONCE(nprof_nn_dma_read);
	u32 first = min(len, nq->size - off);
	int ret;

	might_sleep();
	lockdep_assert_held(&nq->lock);
	if (READ_ONCE(nprof_nn_devmem_read) != NPROF_NN_DEVMEM_DMA) {
		nprof_nn_read_io(nq->bounce, nq->io + off, first);
		if (len > first)
			nprof_nn_read_io(nq->bounce + first, nq->io, len - first);
		return 0;
	}
	if (!read)
		return -ENODEV;
	ret = read(dev->hd, &nq->qid, nq->io, off, nq->bounce, first);
	if (!ret && len > first)
		ret = read(dev->hd, &nq->qid, nq->io, 0, nq->bounce + first, len - first);
	return ret;
}

/*
 * Copy @count device entries from ring index @first of @nq into its
 * subscription (@queue), after counting @uncaptured more as lost (in one step,
 * whatever their number). @count is at most one device ring.
 *
 * This is the head-write hot path (bench/neuron_head_write_native.sh): the
 * entries go as packed raw records (uapi NEURONPROF_RAW_PACKED), a header
 * and the consumed bytes copied whole with memcpy() (two calls where the
 * device ring wraps). Each span, begun on @queue (the core's handle of the
 * queue, kept per subscription in nprof_nn_device.subscribed, so a span
 * does not look the queue up: nprof_notify_begin_packed_at()), holds one
 * record of up to NPROF_NN_SPAN * 32 device bytes, which bounds how long
 * the subscription's lock is held with interrupts off; what its room does
 * not take goes on in the next round (at the start of the data area), and
 * only a full ring loses entries, counted in sequence numbers (one per 32
 * bytes, as unpacked raw entries took).
 */
static void nprof_nn_copy(struct nprof_nn_device *dev, struct nprof_nn_queue *nq,
			  struct nprof_queue *queue, u32 first, u32 count, u64 uncaptured)
{
	struct nprof_drmdev *ndev = READ_ONCE(dev->ndev);
	/* Entry and ring sizes are powers of two: no division on this path. */
	const u32 es = nq->es, shift = ilog2(es);
	const u32 parts = es / NEURONPROF_RAW_BYTES_PER_ENTRY;
	const u32 n = nq->size >> shift;
	struct neuronprof_notification *h;
	struct nprof_notify_span span;
	u32 done = 0, idx = first, want, got, run;
	bool read_ahead = true;
	u64 now = 0;
	const u8 *src;
	u8 *dst;

	lockdep_assert_held(&nq->lock);
	if (uncaptured) {
		nprof_notify_lost(ndev, &nq->q, uncaptured * parts);
		nq->captured += uncaptured;
	}
	while (done < count) {
		want = min_t(u32, count - done,
			     (NPROF_NN_SPAN * NEURONPROF_RAW_BYTES_PER_ENTRY) >> shift);
		/*
		 * Device memory: this round's entries into the bounce
		 * (nprof_nn_read_devmem()) before the span begins, with
		 * interrupts on; what the
		 * span does not take is read again in the next round. The
		 * queue's lock keeps a halt out, and the device does not write
		 * consumed entries before this head write lands. After a span
		 * without room (the rings are full) nothing is read for the
		 * rounds that only count losses; a span that finds room again
		 * is given back unused and the round read first.
		 */
		if (nq->io && read_ahead) {
			int err = nprof_nn_read_devmem(dev, nq, idx * es, want * es);

			if (err) {
				/* Nothing of this round is delivered: it is counted lost. */
				dev_warn_ratelimited(&dev->pdev->dev,
						     "queue %u/%u/%u/%u: DMA read of %u bytes failed (%d): %u entries lost\n",
						     nq->q.kind, nq->q.index, nq->q.type,
						     nq->q.engine, want * es, err, want);
				nprof_notify_lost(ndev, &nq->q, (u64)want * parts);
				nq->captured += want;
				idx = (idx + want) & (n - 1);
				done += want;
				continue;
			}
		}
		if (nprof_notify_begin_packed_at(queue, NEURONPROF_RAW_PACKED_SLOTS(want * es), es,
						 &span))
			return;		/* unsubscribed meanwhile */
		got = 0;
		if (span.count)
			got = min_t(u32, want, ((span.count - 1) * NPROF_NN_SLOT) >> shift);
		if (nq->io && !read_ahead && got) {
			nprof_notify_end_packed(&span, 0, 0);
			read_ahead = true;
			continue;
		}
		if (got) {
			/* The capture time, once per head write; not for a queue nobody reads. */
			if (!now)
				now = ktime_get_ns();
			h = span.entries;
			h->timestamp_ns = now;
			h->seq = span.seq;
			h->queue_type = span.queue_type;
			h->engine = span.engine;
			h->code = NEURONPROF_RAW_PACKED;
			h->model_id = dev->arch.raw_format;
			h->iteration = (u32)nq->captured;
			h->payload[0] = nq->captured;
			h->payload[1] = NEURONPROF_RAW_PACKED_INFO(got * es, es);
			h->payload[2] = 0;
			h->payload[3] = 0;
			dst = (u8 *)(h + 1);
			src = nq->io ? nq->bounce : (const u8 *)nq->va + (size_t)idx * es;
			run = nq->io ? got : min(got, n - idx);
			memcpy(dst, src, (size_t)run * es);
			if (got > run)
				memcpy(dst + (size_t)run * es, nq->va, (size_t)(got - run) * es);
			/* An odd number of 32-byte entries: the last ring entry's other half. */
			if ((got * es) % NPROF_NN_SLOT)
				memset(dst + (size_t)got * es, 0,
				       NPROF_NN_SLOT - (got * es) % NPROF_NN_SLOT);
			want = got;
		}
		idx = (idx + want) & (n - 1);
		read_ahead = got;
		nprof_notify_end_packed(&span, got ? NEURONPROF_RAW_PACKED_SLOTS(got * es) : 0,
					got ? 0 : (u64)want * parts);
		nq->captured += want;
		done += want;
		/* Interrupts are on again; a copy of a whole ring yields between spans. */
		if (done < count)
			cond_resched();
	}
}

/* nprof_nn_find() for a head write. Context: nprof_nn_srcu read-held. */
static struct nprof_nn_device *nprof_nn_find_srcu(const struct neuron_nq_hook_dev *hd)
{
	struct nprof_nn_device *dev;

	list_for_each_entry_srcu(dev, &nprof_nn_devices, node,
				 srcu_read_lock_held(&nprof_nn_srcu))
		if (dev->hd == hd)
			return dev;
	return NULL;
}

/**
 * nprof_nn_head_write() - the hook's head_write: capture what a head write
 *	consumed.
 * @hd: the hook's device.
 * @qid: the register set written.
 * @head: the value written.
 *
 * Under nprof_nn_srcu: the device stays; its queues are freed only with it,
 * so a queue found in its tables stays too.
 *
 * Context: may sleep (the hook's contract): the copy yields between spans.
 */
void nprof_nn_head_write(const struct neuron_nq_hook_dev *hd,
			 const struct neuron_nq_hook_qid *qid, u32 head)
{
	struct nprof_nn_device *dev;
	struct nprof_nn_queue *nq;
	struct nprof_queue *queue;
	u64 consumed, capturable;
	u32 first = 0, n;
	int idx;

	nprof_nn_cal_head(hd, qid, head);
	idx = srcu_read_lock(&nprof_nn_srcu);
	dev = nprof_nn_find_srcu(hd);
	if (!dev)
		goto out;
	nq = nprof_nn_lookup(dev, qid);
	if (!nq)
		goto out;
	mutex_lock(&nq->lock);
	/* What the device's head in the queue's own register set is now. */
	if (qid->reg == nq->qid.reg && qid->sdma == nq->qid.sdma) {
		nq->written = head;
		nq->written_ok = true;
	}
	if (!nq->va && !nq->io)
		goto unlock;
	/* The head as a position in the queue's ring (calibrated facts). */
	head = nprof_nn_head_pos(&dev->arch, nq->es, nq->size, head);
	if (!nq->synced) {
		/* The baseline of a queue first seen handed out again. */
		nq->head = head;
		nq->synced = true;
		goto unlock;
	}
	consumed = nprof_nn_consumed(&dev->arch, nq->es, nq->size, nq->head, head, &first);
	if (consumed == NPROF_NN_BAD_HEAD) {
		dev_warn_ratelimited(&dev->pdev->dev,
				     "queue %u/%u/%u/%u: head %u is not a head in head_mode %u\n",
				     nq->q.kind, nq->q.index, nq->q.type, nq->q.engine,
				     head, dev->arch.head_mode);
		goto unlock;
	}
	nq->head = head;
	if (consumed == NPROF_NN_RESYNC) {
		dev_info_ratelimited(&dev->pdev->dev,
				     "queue %u/%u/%u/%u: head counter went back to %u: taken as a re-program, nothing counted\n",
				     nq->q.kind, nq->q.index, nq->q.type, nq->q.engine, head);
		goto unlock;
	}
	if (!consumed || !READ_ONCE(dev->ndev))
		goto unlock;
	queue = nprof_nn_subscription(dev, &nq->q);
	if (!queue)
		goto unlock;
	/* Only the last ring's worth is still in memory; older ones count as lost. */
	n = nq->size >> ilog2(nq->es);	/* powers of two */
	capturable = min_t(u64, consumed, n);
	nprof_nn_copy(dev, nq, queue, (first + (consumed - capturable)) & (n - 1), capturable,
		      consumed - capturable);
unlock:
	mutex_unlock(&nq->lock);
out:
	srcu_read_unlock(&nprof_nn_srcu, idx);
}
