// SPDX-License-Identifier: GPL-2.0
/*
 * neuronprof_neuron: the head-write copy. One job: the entries one head
 * write consumed, from the queue's ring in host memory or, through BAR4
 * and a bounce buffer, in device memory, into the subscription's ring as
 * raw entries (nprof_nn_copy()); the hot path of bench/neuron_head_write.sh.
 */

#include <linux/export.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "neuron.h"

/*
 * The fields of a ring entry between seq and payload, in the uapi's order,
 * so that the hot path writes them with one copy.
 */
struct nprof_nn_entry_mid {
	u16 queue_type;
	u16 engine;
	u32 code;
	u32 model_id;
	u32 iteration;
};

#define NPROF_NN_MID_OFF(f) \
	(offsetof(struct neuronprof_notification, f) - \
	 offsetof(struct neuronprof_notification, queue_type))
static_assert(NPROF_NN_MID_OFF(engine) == offsetof(struct nprof_nn_entry_mid, engine));
static_assert(NPROF_NN_MID_OFF(code) == offsetof(struct nprof_nn_entry_mid, code));
static_assert(NPROF_NN_MID_OFF(model_id) == offsetof(struct nprof_nn_entry_mid, model_id));
static_assert(NPROF_NN_MID_OFF(iteration) == offsetof(struct nprof_nn_entry_mid, iteration));
static_assert(NPROF_NN_MID_OFF(payload) == sizeof(struct nprof_nn_entry_mid));

/*
 * The same 16 bytes as two words: the first (queue type, engine, code)
 * depends only on the part, the second (raw format, iteration) only on the
 * device entry, so the hot path stores two words it mostly has at hand.
 */
union nprof_nn_mid {
	struct nprof_nn_entry_mid f;
	u64 w[2];
};

union nprof_nn_tail {
	struct {
		u32 model_id;
		u32 iteration;
	} f;
	u64 w;
};

static_assert(sizeof(union nprof_nn_mid) == 16);
static_assert(offsetof(struct nprof_nn_entry_mid, model_id) == 8);

/*
 * Write @got device entries, from ring index *@idx of @nq on, as @parts ring
 * entries each at the start of @span; advance *@idx. The callers
 * pass @parts as a constant, so that the part loop unrolls and the header
 * words stay in registers: what is left per ring entry is its four header
 * stores and the copy of its 32 raw bytes.
 */
static __always_inline void nprof_nn_fill(const struct nprof_notify_span *span,
					  const u8 *ring, u32 es, u32 n,
					  u32 *idx, u32 got, const u32 parts,
					  const union nprof_nn_mid *mid, u64 now,
					  union nprof_nn_tail tail)
{
	struct neuronprof_notification *e = span->entries;
	const u8 *src = ring + (size_t)*idx * es;
	u32 i, p, at = *idx;
	u64 seq = span->seq, *w;

	for (i = 0; i < got; i++) {
		for (p = 0; p < parts; p++, e++) {
			e->timestamp_ns = now;
			e->seq = seq++;
			w = (u64 *)&e->queue_type;
			w[0] = mid[p].w[0];
			w[1] = tail.w;
			memcpy(e->payload, src, NEURONPROF_RAW_BYTES_PER_ENTRY);
			src += NEURONPROF_RAW_BYTES_PER_ENTRY;
		}
		tail.f.iteration++;
		if (++at == n) {
			at = 0;
			src = ring;
		}
	}
	*idx = at;
}

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * KUnit: reads device memory instead of memcpy_fromio() when set (a test's
 * fake BAR4, which checks the context it is read in).
 */
nprof_nn_io_read_t nprof_nn_io_read;
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_io_read);
#endif

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
 * @len bytes of a device-memory ring from byte @off on (wrapping at @size)
 * into @dst, through the BAR4 mapping the vendor uses (memcpy_fromio()).
 * Context: may sleep, interrupts on: uncached reads over PCIe are slow
 * (16 KiB can take longer than the 50 us an interrupts-off span may last).
 */
static void nprof_nn_fromio(u8 *dst, const void __iomem *io, u32 size, u32 off, u32 len)
{
	u32 first = min(len, size - off);

	might_sleep();
	nprof_nn_read_io(dst, io + off, first);
	if (len > first)
		nprof_nn_read_io(dst + first, io, len - first);
}

/*
 * Copy @count device entries from ring index @first of @nq into its
 * subscription, after counting @uncaptured more as lost (in one step,
 * whatever their number). Each device entry becomes entry_size / 32 ring
 * entries, all delivered or all lost: ring sizes and positions stay
 * multiples of that. @count is at most one device ring.
 *
 * This is the head-write hot path (bench/neuron_head_write.sh): the header
 * fields that do not change within a head write are computed once, the
 * source walks the device ring without a division per entry, the copy is
 * specialised for each entry size (nprof_nn_fill()), and each
 * nprof_notify_begin() span takes up to NPROF_NN_SPAN ring entries, which
 * bounds how long the subscription's lock is held with interrupts off.
 */
void nprof_nn_copy(struct nprof_nn_device *dev, struct nprof_nn_queue *nq,
		   u32 first, u32 count, u64 uncaptured)
{
	struct nprof_device *ndev = READ_ONCE(dev->ndev);
	const u32 es = nq->es;
	const u32 parts = es / NEURONPROF_RAW_BYTES_PER_ENTRY;
	const u32 n = nq->size / es;
	const u32 model_id = dev->arch.raw_format;
	const u64 now = ktime_get_ns();
	struct nprof_notify_span span;
	union nprof_nn_mid mid[NPROF_NN_ENTRY_SIZE_MAX / NEURONPROF_RAW_BYTES_PER_ENTRY];
	union nprof_nn_tail tail = { .f.model_id = dev->arch.raw_format };
	u32 done = 0, idx = first, want, got, p, at, fn;
	bool read_ahead = true;
	const u8 *ring;

	lockdep_assert_held(&nq->lock);
	if (uncaptured) {
		nprof_notify_lost(ndev, &nq->q, uncaptured * parts);
		nq->captured += uncaptured;
	}
	while (done < count) {
		want = min_t(u32, count - done, NPROF_NN_SPAN / parts);
		/*
		 * Device memory: this round's entries through BAR4 into the
		 * bounce before the span begins, with interrupts on; what the
		 * span does not take is read again in the next round. The
		 * queue's lock keeps a halt out, and the device does not write
		 * consumed entries before this head write lands. After a span
		 * without room (the rings are full) nothing is read for the
		 * rounds that only count losses; a span that finds room again
		 * is given back unused and the round read first.
		 */
		if (nq->io && read_ahead)
			nprof_nn_fromio(nq->bounce, nq->io, nq->size, idx * es, want * es);
		if (nprof_notify_begin(ndev, &nq->q, want * parts, &span))
			return;		/* unsubscribed meanwhile */
		got = min(span.count / parts, want);
		if (nq->io && !read_ahead && got) {
			nprof_notify_end(&span, 0, 0);
			read_ahead = true;
			continue;
		}
		for (p = 0; p < parts; p++)
			mid[p].f = (struct nprof_nn_entry_mid){
				.queue_type = span.queue_type,
				.engine = span.engine,
				.code = NEURONPROF_RAW_CODE(NEURONPROF_RAW_BYTES_PER_ENTRY,
							    p, parts),
				.model_id = model_id,
			};
		tail.f.iteration = (u32)nq->captured;
		/* Device memory: from the bounce, read above. */
		ring = nq->va;
		at = idx;
		fn = n;
		if (nq->io) {
			ring = nq->bounce;
			at = 0;
			fn = want;
		}
		switch (parts) {
		case 1:
			nprof_nn_fill(&span, ring, es, fn, &at, got, 1, mid, now, tail);
			break;
		case 2:
			nprof_nn_fill(&span, ring, es, fn, &at, got, 2, mid, now, tail);
			break;
		case 4:
			nprof_nn_fill(&span, ring, es, fn, &at, got, 4, mid, now, tail);
			break;
		default:
			nprof_nn_fill(&span, ring, es, fn, &at, got, parts, mid, now, tail);
			break;
		}
		idx = nq->io ? (idx + got) % n : at;
		/*
		 * Room that stops at the end of the data area goes on at its
		 * start in the next round; only a full ring loses entries.
		 */
		if (got) {
			want = got;
		} else {
			idx += want % n;
			if (idx >= n)
				idx -= n;
		}
		read_ahead = got;
		nprof_notify_end(&span, got * parts, want * parts);
		nq->captured += want;
		done += want;
		/* Interrupts are on again; a copy of a whole ring yields between spans. */
		if (done < count)
			cond_resched();
	}
}
