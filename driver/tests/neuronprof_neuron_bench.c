// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_neuron_bench: what the provider's head-write path
 * costs, natively. Not a test suite: it asserts nothing about time and is
 * in the neuron tests' module (listed in neuronprof_neuron_test_util.c,
 * whose fixture it runs in) only with CONFIG_DRM_NEURONPROF_NEURON_KUNIT_BENCH,
 * which its own kunitconfig sets (driver/tests/bench/.kunitconfig,
 * without KASAN and lockdep), run by bench/neuron_head_write_native.sh, which
 * `make bench` runs. UML runs kernel code on the host's CPU, so this
 * measures the code the provider runs on an instance, not an emulation.
 *
 * The head write is the provider's own (nprof_nn_hook_ops.head_write, the
 * callback neuron.ko's hook calls), on a device of the fake neuron.ko with
 * one subscribed queue; a consumer releases the ring after every head
 * write, as a streaming drainer does. The baseline, in the same run, is a
 * memcpy() of the same consumed bytes from the same device ring into a
 * buffer the size of the subscriber's ring, walked the same way. UML
 * applies no alternatives (apply_alternatives() is empty), so its memcpy()
 * is arch/x86/lib/memcpy_64.S's memcpy_orig: a loop of four 8-byte moves
 * through general-purpose registers, not the ERMS `rep movsb` a kernel on
 * an instance patches in. The provider's copy calls the same memcpy().
 *
 * Cases, in the order they print:
 * - span: the time interrupts stay off, which is one
 *   nprof_notify_begin_packed() to nprof_notify_end_packed() span of one
 *   packed record of at most NPROF_NN_SPAN * 32 device bytes: each
 *   of many head writes that fill exactly one span is timed whole (an
 *   upper bound of its span; the 95th percentile counts), and head writes
 *   of a whole 4 MiB device ring are timed and divided by their spans (the
 *   median of NB_WHOLE counts; both leave out the host descheduling UML);
 * - bounds: what each piece of the fixed part of a head write costs here,
 *   timed alone (the clock read of its capture time, the core's begin/end
 *   of a span, the lookups, locks, head arithmetic and wakeup), against a
 *   head write of one device entry;
 * - sizes: head writes of 1, 8, 64 and 512 device entries against a
 *   memcpy() of their bytes, to show how the fixed part amortises;
 * - ratio: 64 device entries of 64 bytes per head write (the rig's
 *   benchmark shape), 5 runs, each of 10 batches of 200 head writes, each
 *   batch followed by 200 memcpy()s; a run counts the fastest batch of
 *   each (a slower one is the host descheduling this process); then
 *   what does not depend on the bytes: head writes of one device entry,
 *   and head writes to a queue nobody subscribed; and the floor of any
 *   capture of the same bytes, in batches paired with the same memcpy()s:
 *   the capture time's clock read stored in a header and the bytes copied
 *   after it at the ring's layout, with nothing found, locked or published,
 *   which shows how much of the goal's ratio is left for the rest. The
 *   median of the 5 paired ratios is printed last.
 */

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/sizes.h>
#include <linux/poll.h>
#include <linux/sort.h>
#include <linux/srcu.h>
#include <linux/vmalloc.h>

#include "neuronprof_neuron_test_util.h"

#define NB_ES		64		/* device entry bytes */
#define NB_PER_WRITE	64		/* device entries per head write */
#define NB_RING		(1024 * NB_ES)	/* device ring of the ratio case */
#define NB_SUB_RING	SZ_1M
#define NB_ROUNDS	2000		/* warm-up head writes */
#define NB_BATCH	200		/* head writes (memcpys) timed together */
#define NB_BATCHES	10		/* batches per run: the fastest counts */
#define NB_RUNS		5
#define NB_BIG_RING	SZ_4M		/* device ring of the span case */
#define NB_BIG_SUB	SZ_16M
#define NB_SPAN_WRITES	200
#define NB_WHOLE	5		/* head writes of a whole big ring */

/* The bench's device, subscription and queue (the fixture, nn_ctx, removes them). */
struct nb_ctx {
	int dev;
	int q;
	struct nprof_sub *sub;
	struct neuron_nq_hook_qid qid;
	const struct neuron_nq_hook_dev *hd;
	u8 *ring;
	u32 n;		/* device entries in the ring */
	u32 head;
	u64 delivered;	/* device entries consumed by head writes */
};

/* A device, core 0's TRACE queue of engine 0 programmed and subscribed. */
static struct nb_ctx *nb_setup(struct kunit *test, u32 ring, u64 sub_ring)
{
	struct nb_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	const struct drm_neuronprof_nq_subscribe args = {
		.target_kind = NEURONPROF_TARGET_CORE, .target_index = 0,
		.queue_type = NEURONPROF_QT_TRACE, .engine = 0, .ring_size = sub_ring,
	};

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->sub = nn_subscribe(test, nn_device(test), &args);
	c->dev = ((struct nn_ctx *)test->priv)->dev;
	c->q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 0, ring);
	c->n = ring / NB_ES;
	/* The device's bytes: every entry written once. */
	KUNIT_ASSERT_EQ(test, nprof_fake_produce(c->dev, c->q, c->n - 1), (long)c->n - 1);
	c->ring = nprof_fake_ring(c->dev, c->q);
	KUNIT_ASSERT_NOT_NULL(test, c->ring);
	c->hd = nprof_fake_hook_dev(c->dev);
	KUNIT_ASSERT_NOT_NULL(test, c->hd);
	/* Register set 0 of core 0's block, as the hook decodes its head. */
	c->qid = (struct neuron_nq_hook_qid){ .target = NEURON_NQ_HOOK_NC };
	c->head = 0;
	return c;
}

/* The runtime consumes @count entries; the drainer then frees the ring. */
static __always_inline void nb_head_write(struct nb_ctx *c, u32 count)
{
	c->head = (c->head + count) % c->n;
	c->delivered += count;
	nprof_nn_hook_ops.head_write(c->hd, &c->qid, c->head);
	/* As a drainer's release store (the core reads it with an acquire). */
	smp_store_release(&c->sub->ring.cons_page->consumer_pos, READ_ONCE(c->sub->ring.prod));
}

static int nb_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 nb_median(u64 *v, int n)
{
	sort(v, n, sizeof(*v), nb_cmp, NULL);
	return v[n / 2];
}

/* Nothing was lost: every timed head write copied all it consumed. */
static void nb_check_delivered(struct kunit *test, struct nb_ctx *c)
{
	KUNIT_EXPECT_EQ(test, c->sub->ring.lost, 0ULL);
	KUNIT_EXPECT_EQ(test, c->sub->ring.seq,
			c->delivered * (NB_ES / NEURONPROF_RAW_BYTES_PER_ENTRY));
}

static void nb_span(struct kunit *test)
{
	struct nb_ctx *c;
	const u32 per_span = NPROF_NN_SPAN / (NB_ES / NEURONPROF_RAW_BYTES_PER_ENTRY);
	u64 t[NB_SPAN_WRITES], tw[NB_WHOLE], worst = 0, whole, whole_worst = 0, spans, t0, med, p95;
	u64 bound;
	int i;

	c = nb_setup(test, NB_BIG_RING, NB_BIG_SUB);
	for (i = 0; i < NB_SPAN_WRITES; i++) {
		t0 = ktime_get_ns();
		nb_head_write(c, per_span);
		t[i] = ktime_get_ns() - t0;
		worst = max(worst, t[i]);
	}
	med = nb_median(t, NB_SPAN_WRITES);
	p95 = t[NB_SPAN_WRITES * 95 / 100];
	/*
	 * A whole ring but one entry, the most one head write consumes,
	 * NB_WHOLE times: the median per span, as the 95th percentile above,
	 * leaves out the host descheduling this UML process (the worst
	 * is printed too).
	 */
	for (i = 0; i < NB_WHOLE; i++) {
		t0 = ktime_get_ns();
		nb_head_write(c, c->n - 1);
		tw[i] = ktime_get_ns() - t0;
		whole_worst = max(whole_worst, tw[i]);
	}
	whole = nb_median(tw, NB_WHOLE);
	nb_check_delivered(test, c);
	spans = DIV_ROUND_UP((u64)(c->n - 1), per_span);
	kunit_info(test, "neuron_head_write_native: interrupts-off span: a head write of one full span (one packed record of %u ring entries: %u device entries of %u bytes) took %llu ns median, %llu ns at the 95th percentile, %llu ns at most of %d (the most includes the host descheduling this UML process); a head write of a whole %u KiB device ring (%llu spans, yielding between spans) took %llu ns median of %d (%llu ns the worst, with the host's descheduling), %llu ns a span\n",
		   (u32)NEURONPROF_RAW_PACKED_SLOTS(per_span * NB_ES), per_span, NB_ES, med, p95,
		   worst, NB_SPAN_WRITES,
		   NB_BIG_RING / 1024, spans, whole, NB_WHOLE, whole_worst, whole / spans);
	bound = max(p95, whole / spans);
	kunit_info(test, "neuron_head_write_native: worst interrupts-off span: %llu.%llu us (the larger of a one-span head write's 95th percentile and a span of a whole-ring head write, the median of whole-ring head writes' spans; goal <= 50 us)\n",
		   bound / 1000, bound % 1000 / 100);
}

static void nb_ratio(struct kunit *test)
{
	struct nb_ctx *c;
	const size_t bytes = NB_PER_WRITE * NB_ES;
	u64 tp[NB_RUNS], tm[NB_RUNS], ratio[NB_RUNS], t1[NB_RUNS], tu[NB_RUNS], t0, mp, mm, mr;
	u64 tf[NB_RUNS], fratio[NB_RUNS], mf, mfr, budget;
	struct neuron_nq_hook_qid unsub = { .target = NEURON_NQ_HOOK_NC, .id = 1 };
	u32 unsub_head = 0;
	size_t dst_off = 0, rec_off = 0;
	u32 src = 0;
	u8 *dst;
	int run, r, b;

	c = nb_setup(test, NB_RING, NB_SUB_RING);
	/* Core 1's TRACE queue of engine 0: programmed, nobody subscribed. */
	KUNIT_ASSERT_GE(test, nprof_fake_program(c->dev, NEURON_NQ_HOOK_NC, 1, 0, 0, NB_RING), 0);
	dst = vmalloc(NB_SUB_RING);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	memset(dst, 0, NB_SUB_RING);
	/* Warm both: one round of each. */
	for (r = 0; r < NB_ROUNDS; r++)
		nb_head_write(c, NB_PER_WRITE);
	for (run = 0; run < NB_RUNS; run++) {
		tp[run] = U64_MAX;
		tm[run] = U64_MAX;
		tf[run] = U64_MAX;
		t1[run] = U64_MAX;
		tu[run] = U64_MAX;
		for (b = 0; b < NB_BATCHES; b++) {
			t0 = ktime_get_ns();
			for (r = 0; r < NB_BATCH; r++)
				nb_head_write(c, NB_PER_WRITE);
			tp[run] = min(tp[run], ktime_get_ns() - t0);

			t0 = ktime_get_ns();
			for (r = 0; r < NB_BATCH; r++) {
				memcpy(dst + dst_off, c->ring + (size_t)src * NB_ES, bytes);
				OPTIMIZER_HIDE_VAR(dst);
				src = (src + NB_PER_WRITE) % c->n;
				dst_off = (dst_off + bytes) % NB_SUB_RING;
			}
			tm[run] = min(tm[run], ktime_get_ns() - t0);

			/*
			 * The floor: what any capture of these bytes pays, the
			 * capture time's clock read stored in a record's header
			 * and the bytes copied after it, records laid out as the
			 * ring's (a 64-byte header, then the bytes); no lookup,
			 * lock, span or other header field.
			 */
			t0 = ktime_get_ns();
			for (r = 0; r < NB_BATCH; r++) {
				*(u64 *)(dst + rec_off) = ktime_get_ns();
				memcpy(dst + rec_off + NB_ES, c->ring + (size_t)src * NB_ES, bytes);
				OPTIMIZER_HIDE_VAR(dst);
				src = (src + NB_PER_WRITE) % c->n;
				rec_off += NB_ES + bytes;
				if (rec_off + NB_ES + bytes > NB_SUB_RING)
					rec_off = 0;
			}
			tf[run] = min(tf[run], ktime_get_ns() - t0);

			/* What does not depend on the bytes: one entry; no subscriber. */
			t0 = ktime_get_ns();
			for (r = 0; r < NB_BATCH; r++)
				nb_head_write(c, 1);
			t1[run] = min(t1[run], ktime_get_ns() - t0);
			t0 = ktime_get_ns();
			for (r = 0; r < NB_BATCH; r++) {
				unsub_head = (unsub_head + NB_PER_WRITE) % c->n;
				nprof_nn_hook_ops.head_write(c->hd, &unsub, unsub_head);
			}
			tu[run] = min(tu[run], ktime_get_ns() - t0);
		}
		ratio[run] = div64_u64(tp[run] * 1000, max(tm[run], 1ULL));
		fratio[run] = div64_u64(tf[run] * 1000, max(tm[run], 1ULL));
		kunit_info(test, "neuron_head_write_native: run %d: head write %llu ns, memcpy %llu ns, %llu.%02llux\n",
			   run + 1, tp[run] / NB_BATCH, tm[run] / NB_BATCH, ratio[run] / 1000,
			   ratio[run] % 1000 / 10);
	}
	vfree(dst);
	nb_check_delivered(test, c);
	kunit_info(test, "neuron_head_write_native: fixed costs: a head write of 1 device entry %llu ns, of %u to a queue nobody subscribed %llu ns (medians)\n",
		   nb_median(t1, NB_RUNS) / NB_BATCH, NB_PER_WRITE,
		   nb_median(tu, NB_RUNS) / NB_BATCH);
	mp = nb_median(tp, NB_RUNS) / NB_BATCH;
	mm = nb_median(tm, NB_RUNS) / NB_BATCH;
	mr = nb_median(ratio, NB_RUNS);
	mf = nb_median(tf, NB_RUNS) / NB_BATCH;
	mfr = nb_median(fratio, NB_RUNS);
	budget = mm * 5 / 4;
	kunit_info(test, "neuron_head_write_native: head write of %u device entries of %u bytes: %llu ns; memcpy() of the %zu consumed bytes (UML's memcpy_orig, 4 x 8-byte GPR moves: UML patches in no ERMS rep movsb): %llu ns (medians of %d runs, each the fastest of %d batches of %d)\n",
		   NB_PER_WRITE, NB_ES, mp, bytes, mm, NB_RUNS, NB_BATCHES, NB_BATCH);
	kunit_info(test, "neuron_head_write_native: floor: the capture time's clock read and a memcpy() of the consumed bytes after a 64-byte header, at the ring's layout, with no lookup, lock or span: %llu ns, %llu.%02llux a memcpy (median of %d paired runs); 1.25x the memcpy (%llu ns) leaves %lld ns beyond the floor for finding, locking and publishing, the head write spends %lld ns there\n",
		   mf, mfr / 1000, mfr % 1000 / 10, NB_RUNS, budget, (s64)budget - (s64)mf,
		   (s64)mp - (s64)mf);
	kunit_info(test, "neuron_head_write_native: the provider's head write costs %llu.%02llux a memcpy of the consumed bytes (median of %d paired runs; goal <= 1.25x)\n",
		   mr / 1000, mr % 1000 / 10, NB_RUNS);
}

/* Stands for a queue's spinlock in the timing of the pieces. */
static DEFINE_SPINLOCK(nb_lock);

/* Time @op, NB_BATCH times in a row, the fastest of NB_RUNS * NB_BATCHES batches: ns per op. */
#define NB_TIME(op) ({							\
	u64 __best = U64_MAX, __t0;					\
	int __run, __r;							\
									\
	for (__run = 0; __run < NB_RUNS * NB_BATCHES; __run++) {	\
		__t0 = ktime_get_ns();					\
		for (__r = 0; __r < NB_BATCH; __r++) {			\
			op;						\
		}							\
		__best = min(__best, ktime_get_ns() - __t0);		\
	}								\
	__best / NB_BATCH;						\
})

/*
 * What each piece of a head write costs on this host, timed alone with
 * the primitives the path uses, on the bench's device and queue: the
 * device's SRCU read section; the queue's lookup in its device (one
 * xa_load()); its mutex; the head value's arithmetic (nprof_nn_head_pos(),
 * nprof_nn_consumed()); the subscription check; the capture time's clock
 * read (ktime_get_ns(), one per head write; UML reads the host's
 * CLOCK_MONOTONIC through clock_gettime()); the core's begin/end of a
 * packed span that writes nothing, on the queue's handle as the head write
 * does it (nprof_notify_begin_packed_at(): lock with interrupts off, room,
 * publication; nprof_notify_begin_packed(), which looks the queue up by its
 * address, is printed apart); the wakeup of a ring nobody
 * waits on, as the core does it (nprof_sub_wake(): a waitqueue_active() load
 * and no wake_up(); the wake_up() it skips is printed apart); a memcpy() of
 * one entry. Their sum is compared with a head write of one device entry.
 * The first line is the format the figures have had since the bench began
 * (bench/neuron_head_write_native.sh's readers).
 */
static void nb_bounds(struct kunit *test)
{
	const struct nprof_queue_id q = {
		.kind = NEURONPROF_TARGET_CORE, .index = 0, .type = NEURONPROF_QT_TRACE,
	};
	struct nprof_nn_device *dev;
	struct nprof_nn_queue *nq;
	struct nprof_notify_span span;
	struct nprof_drmdev *ndev;
	struct mutex *lock;	/* the queue's, which a head write holds */
	struct nb_ctx *c;
	unsigned long flags;
	struct nprof_queue *handle;
	u64 tirq, tnoirq, tsa;
	u64 tc, tf, ts, tsrcu, tlook, tmx, tarith, tsub, twake, twakeup, tcpy, t1, sum, sink = 0;
	u32 first = 0, h = 0, pos;
	u8 entry[NB_ES];
	int idx;

	c = nb_setup(test, NB_RING, NB_SUB_RING);
	ndev = nprof_nn_ndev(c->dev);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	dev = nprof_device_priv(ndev);
	lock = nprof_nn_queue_lock(c->hd, &c->qid);
	KUNIT_ASSERT_NOT_NULL(test, lock);
	nq = container_of(lock, struct nprof_nn_queue, lock);
	handle = nprof_nn_subscription(dev, &q);
	KUNIT_ASSERT_NOT_NULL(test, handle);

	tc = NB_TIME(sink += ktime_get_ns());
	tf = NB_TIME(sink += ktime_get_mono_fast_ns());
	/* As the head write: on the queue's handle, which the provider keeps per subscription. */
	ts = NB_TIME(KUNIT_ASSERT_EQ(test,
				     nprof_notify_begin_packed_at(handle, 2, NB_ES, &span), 0);
		     nprof_notify_end_packed(&span, 0, 0));
	tsa = NB_TIME(KUNIT_ASSERT_EQ(test,
				      nprof_notify_begin_packed(ndev, &q, 2, NB_ES, &span), 0);
		      nprof_notify_end_packed(&span, 0, 0));
	tsrcu = NB_TIME(idx = srcu_read_lock(&nprof_nn_srcu);
			srcu_read_unlock(&nprof_nn_srcu, idx));
	tlook = NB_TIME(sink += (unsigned long)nprof_nn_lookup(dev, &c->qid);
			OPTIMIZER_HIDE_VAR(dev));
	tmx = NB_TIME(mutex_lock(lock); mutex_unlock(lock));
	tarith = NB_TIME(h = (h + 1) & (c->n - 1); OPTIMIZER_HIDE_VAR(h);
			 pos = nprof_nn_head_pos(&dev->arch, nq->es, nq->size, h);
			 sink += nprof_nn_consumed(&dev->arch, nq->es, nq->size, nq->head, pos,
						   &first));
	tsub = NB_TIME(sink += (unsigned long)nprof_nn_subscription(dev, &nq->q);
		       OPTIMIZER_HIDE_VAR(dev));
	tirq = NB_TIME(spin_lock_irqsave(&nb_lock, flags); spin_unlock_irqrestore(&nb_lock, flags));
	tnoirq = NB_TIME(spin_lock(&nb_lock); spin_unlock(&nb_lock));
	twake = NB_TIME(nprof_sub_wake(c->sub));
	twakeup = NB_TIME(wake_up_interruptible_poll(&c->sub->wq, EPOLLIN | EPOLLRDNORM));
	tcpy = NB_TIME(memcpy(entry, c->ring, NB_ES); OPTIMIZER_HIDE_VAR(entry[0]));
	t1 = NB_TIME(nb_head_write(c, 1));
	nb_check_delivered(test, c);
	OPTIMIZER_HIDE_VAR(sink);
	kunit_info(test, "neuron_head_write_native: bounds of the fixed part: the capture time's clock read (ktime_get_ns()) %llu ns (ktime_get_mono_fast_ns(), the same clock read without the timekeeper's seqcount, %llu ns); the core's begin/end of an empty packed span %llu ns (on the queue's handle, as the head write; %llu ns by the queue's address)\n",
		   tc, tf, ts, tsa);
	sum = tsrcu + tlook + tmx + tarith + tsub + tc + ts + twake + tcpy;
	kunit_info(test, "neuron_head_write_native: pieces (ns, each timed alone): SRCU read section %llu, queue lookup %llu, queue mutex %llu, head arithmetic %llu, subscription check %llu, clock read %llu, empty packed span %llu, wakeup nobody waits for (waitqueue_active()) %llu, memcpy() of one %u-byte entry %llu; sum %llu against a head write of one device entry %llu\n",
		   tsrcu, tlook, tmx, tarith, tsub, tc, ts, twake, NB_ES, tcpy, sum, t1);
	kunit_info(test, "neuron_head_write_native: of the span: a spinlock taken with interrupts saved and off %llu ns, without %llu ns; the wake_up() of a ring nobody waits on, which the core skips, %llu ns\n",
		   tirq, tnoirq, twakeup);
}

/*
 * How the fixed part amortises: head writes of 1, 8, 64 and 512 device
 * entries against a memcpy() of their bytes, each the fastest of
 * NB_BATCHES batches of NB_BATCH, the head aligned to the size first (so
 * neither copy wraps). 512 entries of 64 bytes take two spans.
 */
static void nb_sizes(struct kunit *test)
{
	static const u32 sizes[] = { 1, 8, 64, 512 };
	struct nb_ctx *c;
	u64 tp, tm, r;
	size_t bytes, dst_off = 0;
	u32 i, src;
	u8 *dst;

	c = nb_setup(test, NB_RING, NB_SUB_RING);
	dst = vmalloc(NB_SUB_RING);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	memset(dst, 0, NB_SUB_RING);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		bytes = (size_t)sizes[i] * NB_ES;
		if (c->head % sizes[i])
			nb_head_write(c, sizes[i] - c->head % sizes[i]);
		src = c->head;
		dst_off = 0;
		tp = NB_TIME(nb_head_write(c, sizes[i]));
		tm = NB_TIME(memcpy(dst + dst_off, c->ring + (size_t)src * NB_ES, bytes);
			     OPTIMIZER_HIDE_VAR(dst);
			     src = (src + sizes[i]) % c->n;
			     dst_off = (dst_off + bytes) % NB_SUB_RING);
		r = div64_u64(tp * 1000, max(tm, 1ULL));
		kunit_info(test, "neuron_head_write_native: size table: %u device entries (%zu bytes): head write %llu ns, memcpy %llu ns, %llu.%02llux\n",
			   sizes[i], bytes, tp, tm, r / 1000, r % 1000 / 10);
	}
	vfree(dst);
	nb_check_delivered(test, c);
}

struct kunit_case nb_cases[] = {
	KUNIT_CASE(nb_span),
	KUNIT_CASE(nb_bounds),
	KUNIT_CASE(nb_sizes),
	KUNIT_CASE(nb_ratio),
	{}
};
