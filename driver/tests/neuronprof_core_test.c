// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of the neuronprof core:
 *  - neuronprof_ring: ring arithmetic, wrap-around, overflow and lost
 *    accounting, watermark wakeups and hostile consumer positions;
 *  - neuronprof_subscribe: NQ_SUBSCRIBE argument validation over tables of
 *    bad and good inputs;
 *  - neuronprof_device: validation of provider descriptions and SIM_EXEC
 *    arguments, and the queue table layout;
 *  - neuronprof_unplug: a device registered by a small provider of this file
 *    on a test root device, subscribed in-kernel, flushed, drained, fed from
 *    hard IRQ context, and unregistered while a subscription is live.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/poll.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "core/neuronprof_core.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define ENTRY			((u64)NPROF_ENTRY_SIZE)

/*
 * A table-driven test changes up to three members of a valid argument
 * struct; each change is (offset, size, value) so one table fits any struct.
 */
struct field_patch {
	size_t off;
	size_t size;
	u64 value;
};

#define PATCH(type, member, val) \
	{ offsetof(type, member), sizeof_field(type, member), (val) }

static void apply_patches(void *base, const struct field_patch *p, int n)
{
	int i;

	for (i = 0; i < n && p[i].size; i++) {
		if (p[i].size == sizeof(u32)) {
			u32 v = p[i].value;

			memcpy(base + p[i].off, &v, sizeof(v));
		} else {
			memcpy(base + p[i].off, &p[i].value, sizeof(u64));
		}
	}
}

struct patch_case {
	const char *name;
	struct field_patch p[3];
};

static void patch_case_desc(const struct patch_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

/* ---- neuronprof_ring ----------------------------------------------------- */

static const struct nprof_queue_id ring_test_q = {
	.kind = NEURONPROF_TARGET_CORE,
	.index = 1,
	.type = NEURONPROF_QT_DMA,
	.engine = 3,
};

static struct nprof_ring *ring_new(struct kunit *test, u64 size, u32 watermark)
{
	struct nprof_ring *ring;
	void *mem;

	ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ring);
	mem = kunit_kzalloc(test, NPROF_DATA_PGOFF * PAGE_SIZE + size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	nprof_ring_init(ring, mem, size, watermark, &ring_test_q);
	return ring;
}

static enum nprof_notify_result ring_put(struct nprof_ring *ring, u32 code,
					 bool force_lost, bool *wake)
{
	struct neuronprof_notification n = { .code = code, .timestamp_ns = code };
	bool ignored;

	return nprof_ring_produce(ring, &n, force_lost, wake ? wake : &ignored);
}

static const struct neuronprof_notification *ring_at(const struct nprof_ring *ring,
						     u64 pos)
{
	return (const void *)(ring->data + (pos & (ring->size - 1)));
}

/* What a userspace consumer does after reading its entries. */
static void ring_user_consume(struct nprof_ring *ring, u64 pos)
{
	/* D: pairs with A in nprof_ring_sync_consumer(). */
	smp_store_release(&ring->cons_page->consumer_pos, pos);
}

static void ring_test_init_header(struct kunit *test)
{
	struct nprof_ring *ring = ring_new(test, 2 * PAGE_SIZE, 0);
	const struct neuronprof_ring_header *hdr = ring->hdr;

	KUNIT_EXPECT_EQ(test, hdr->version, (u32)NEURONPROF_RING_VERSION);
	KUNIT_EXPECT_EQ(test, hdr->header_size, (u32)sizeof(*hdr));
	KUNIT_EXPECT_EQ(test, hdr->entry_size, (u32)ENTRY);
	KUNIT_EXPECT_EQ(test, hdr->ring_size, (u64)(2 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, hdr->queue_type, ring_test_q.type);
	KUNIT_EXPECT_EQ(test, hdr->target_kind, ring_test_q.kind);
	KUNIT_EXPECT_EQ(test, hdr->target_index, ring_test_q.index);
	KUNIT_EXPECT_EQ(test, hdr->engine, ring_test_q.engine);
	KUNIT_EXPECT_EQ(test, hdr->flags, 0U);
	KUNIT_EXPECT_EQ(test, hdr->producer_pos, 0ULL);
	KUNIT_EXPECT_EQ(test, hdr->lost, 0ULL);
	/* The consumer word is on the next page, the data on the one after. */
	KUNIT_EXPECT_PTR_EQ(test, (void *)ring->cons_page, (void *)hdr + PAGE_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, (void *)ring->data, (void *)hdr + 2 * PAGE_SIZE);
	/* A watermark of 0 means one entry. */
	KUNIT_EXPECT_EQ(test, ring->watermark, ENTRY);
	KUNIT_EXPECT_EQ(test, ring_new(test, PAGE_SIZE, 200)->watermark, 200ULL);
}

static void ring_test_fill_then_overflow(struct kunit *test)
{
	struct nprof_ring *ring = ring_new(test, PAGE_SIZE, 0);
	u64 cap = PAGE_SIZE / ENTRY, i;
	struct neuronprof_notification n = { .code = 0xdead };
	bool wake;

	for (i = 0; i < cap; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, i, false, NULL), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, ring->prod, (u64)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ring->hdr->producer_pos), (u64)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, nprof_ring_unread(ring), (u64)PAGE_SIZE);

	/* Full: the next one is lost, and nothing unread is overwritten. */
	KUNIT_EXPECT_EQ(test, nprof_ring_produce(ring, &n, false, &wake), NPROF_NOTIFY_LOST);
	KUNIT_EXPECT_FALSE(test, wake);
	KUNIT_EXPECT_EQ(test, n.seq, cap);
	KUNIT_EXPECT_EQ(test, ring->lost, 1ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ring->hdr->lost), 1ULL);
	KUNIT_EXPECT_TRUE(test, ring->flags & NEURONPROF_RING_OVERFLOWED);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(ring->hdr->flags) & NEURONPROF_RING_OVERFLOWED);
	KUNIT_EXPECT_EQ(test, ring->prod, (u64)PAGE_SIZE);
	for (i = 0; i < cap; i++) {
		KUNIT_EXPECT_EQ(test, ring_at(ring, i * ENTRY)->seq, i);
		KUNIT_EXPECT_EQ(test, ring_at(ring, i * ENTRY)->code, (u32)i);
		KUNIT_EXPECT_EQ(test, ring_at(ring, i * ENTRY)->queue_type,
				(u16)ring_test_q.type);
		KUNIT_EXPECT_EQ(test, ring_at(ring, i * ENTRY)->engine,
				(u16)ring_test_q.engine);
	}
}

static void ring_test_wrap(struct kunit *test)
{
	struct nprof_ring *ring = ring_new(test, PAGE_SIZE, 0);
	u64 cap = PAGE_SIZE / ENTRY, i;

	for (i = 0; i < cap; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, i, false, NULL), NPROF_NOTIFY_DELIVERED);
	/* Userspace consumed the first half. */
	ring_user_consume(ring, cap / 2 * ENTRY);
	for (i = cap; i < cap + cap / 2; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, i, false, NULL), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, ring->cons, cap / 2 * ENTRY);
	KUNIT_EXPECT_EQ(test, ring->prod, (cap + cap / 2) * ENTRY);
	/* The new entries wrapped to the start of the data area. */
	KUNIT_EXPECT_EQ(test, ((const struct neuronprof_notification *)ring->data)->seq, cap);
	KUNIT_EXPECT_EQ(test, ring_at(ring, ring->prod - ENTRY)->seq, cap + cap / 2 - 1);
	/* The unread second half of the first round is still there. */
	KUNIT_EXPECT_EQ(test, ring_at(ring, cap / 2 * ENTRY)->seq, cap / 2);
	/* And the ring is full again. */
	KUNIT_EXPECT_EQ(test, ring_put(ring, 0, false, NULL), NPROF_NOTIFY_LOST);
}

static void ring_test_seq_counts_lost(struct kunit *test)
{
	struct nprof_ring *ring = ring_new(test, PAGE_SIZE, 0);
	u64 cap = PAGE_SIZE / ENTRY, i;
	struct neuronprof_notification n = {};
	bool wake;

	for (i = 0; i < cap; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, 0, false, NULL), NPROF_NOTIFY_DELIVERED);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, 0, false, NULL), NPROF_NOTIFY_LOST);
	ring_user_consume(ring, ring->prod);
	KUNIT_ASSERT_EQ(test, nprof_ring_produce(ring, &n, false, &wake),
			NPROF_NOTIFY_DELIVERED);
	/* The gap between the last two delivered entries is the 3 lost. */
	KUNIT_EXPECT_EQ(test, n.seq, cap + 3);
	KUNIT_EXPECT_EQ(test, ring_at(ring, ring->prod - ENTRY)->seq, cap + 3);
	KUNIT_EXPECT_EQ(test, ring_at(ring, ring->prod - 2 * ENTRY)->seq, cap - 1);
	KUNIT_EXPECT_EQ(test, ring->lost, 3ULL);
}

static void ring_test_force_lost(struct kunit *test)
{
	struct nprof_ring *ring = ring_new(test, PAGE_SIZE, 0);

	KUNIT_EXPECT_EQ(test, ring_put(ring, 1, true, NULL), NPROF_NOTIFY_LOST);
	KUNIT_EXPECT_EQ(test, ring->prod, 0ULL);
	KUNIT_EXPECT_EQ(test, ring->lost, 1ULL);
	KUNIT_EXPECT_TRUE(test, ring->flags & NEURONPROF_RING_OVERFLOWED);
	KUNIT_EXPECT_EQ(test, ring_put(ring, 2, false, NULL), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, ring_at(ring, 0)->seq, 1ULL);
}

static void ring_test_watermark_crossing(struct kunit *test)
{
	struct nprof_ring *ring = ring_new(test, PAGE_SIZE, 3 * ENTRY);
	bool wake;

	ring_put(ring, 0, false, &wake);
	KUNIT_EXPECT_FALSE(test, wake);
	ring_put(ring, 0, false, &wake);
	KUNIT_EXPECT_FALSE(test, wake);
	ring_put(ring, 0, false, &wake);
	KUNIT_EXPECT_TRUE(test, wake);
	/* Above the watermark already: readers were woken once. */
	ring_put(ring, 0, false, &wake);
	KUNIT_EXPECT_FALSE(test, wake);

	/* Once the consumer caught up, crossing again wakes again. */
	ring_user_consume(ring, ring->prod);
	ring_put(ring, 0, false, &wake);
	KUNIT_EXPECT_FALSE(test, wake);
	ring_put(ring, 0, false, &wake);
	KUNIT_EXPECT_FALSE(test, wake);
	ring_put(ring, 0, false, &wake);
	KUNIT_EXPECT_TRUE(test, wake);
}

static void ring_test_watermark_zero(struct kunit *test)
{
	struct nprof_ring *ring = ring_new(test, PAGE_SIZE, 0);
	bool wake;

	ring_put(ring, 0, false, &wake);
	KUNIT_EXPECT_TRUE(test, wake);
	ring_put(ring, 0, false, &wake);
	KUNIT_EXPECT_FALSE(test, wake);
}

static void ring_test_consumer_valid(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, nprof_ring_consumer_valid(0, 0, 0));
	KUNIT_EXPECT_TRUE(test, nprof_ring_consumer_valid(0, ENTRY, 2 * ENTRY));
	KUNIT_EXPECT_TRUE(test, nprof_ring_consumer_valid(0, 2 * ENTRY, 2 * ENTRY));
	KUNIT_EXPECT_FALSE(test, nprof_ring_consumer_valid(0, 3 * ENTRY, 2 * ENTRY));
	KUNIT_EXPECT_FALSE(test, nprof_ring_consumer_valid(ENTRY, 0, 2 * ENTRY));
	KUNIT_EXPECT_FALSE(test, nprof_ring_consumer_valid(0, 1, 2 * ENTRY));
	KUNIT_EXPECT_FALSE(test, nprof_ring_consumer_valid(0, ENTRY - 1, 2 * ENTRY));
}

/* Positions are free-running: they stay right across 2^64. */
static void ring_test_consumer_valid_wraparound(struct kunit *test)
{
	u64 last = U64_MAX - ENTRY + 1;		/* entry-aligned */
	u64 prod = last + 2 * ENTRY;		/* wrapped to ENTRY */

	KUNIT_ASSERT_EQ(test, prod, ENTRY);
	KUNIT_EXPECT_TRUE(test, nprof_ring_consumer_valid(last, last, prod));
	KUNIT_EXPECT_TRUE(test, nprof_ring_consumer_valid(last, 0, prod));
	KUNIT_EXPECT_TRUE(test, nprof_ring_consumer_valid(last, ENTRY, prod));
	KUNIT_EXPECT_FALSE(test, nprof_ring_consumer_valid(last, 2 * ENTRY, prod));
	KUNIT_EXPECT_FALSE(test, nprof_ring_consumer_valid(last, last - ENTRY, prod));
}

struct hostile_case {
	const char *name;
	bool relative;		/* @value is added to the valid consumer position */
	u64 value;
};

static const struct hostile_case hostile_cases[] = {
	{ "backwards", true, -ENTRY },
	{ "past_producer", true, 7 * ENTRY },
	{ "misaligned", true, 1 },
	{ "misaligned_below_producer", true, ENTRY + 8 },
	{ "zero_after_progress", false, 0 },
	{ "u64_max", false, U64_MAX },
	{ "far_future", false, 1ULL << 63 },
};

static void hostile_case_desc(const struct hostile_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hostile, hostile_cases, hostile_case_desc);

static void ring_test_hostile_consumer(struct kunit *test)
{
	const struct hostile_case *c = test->param_value;
	struct nprof_ring *ring = ring_new(test, PAGE_SIZE, 0);
	u64 valid = 4 * ENTRY, i;

	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, i, false, NULL), NPROF_NOTIFY_DELIVERED);
	ring_user_consume(ring, valid);
	nprof_ring_sync_consumer(ring);
	KUNIT_ASSERT_EQ(test, ring->cons, valid);
	KUNIT_ASSERT_FALSE(test, ring->flags & NEURONPROF_RING_BAD_CONSUMER);

	ring_user_consume(ring, c->relative ? valid + c->value : c->value);
	nprof_ring_sync_consumer(ring);
	KUNIT_EXPECT_EQ(test, ring->cons, valid);
	KUNIT_EXPECT_TRUE(test, ring->flags & NEURONPROF_RING_BAD_CONSUMER);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(ring->hdr->flags) & NEURONPROF_RING_BAD_CONSUMER);

	/* The producer keeps going on the last valid position... */
	KUNIT_EXPECT_EQ(test, ring_put(ring, 10, false, NULL), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, ring->cons, valid);
	/* ...and a valid store is believed again. */
	ring_user_consume(ring, ring->prod);
	nprof_ring_sync_consumer(ring);
	KUNIT_EXPECT_EQ(test, ring->cons, ring->prod);
}

/* No consumer value, however wild, makes the producer overwrite unread data. */
static void ring_test_hostile_consumer_cannot_free_space(struct kunit *test)
{
	const u64 wild[] = { PAGE_SIZE * 2, PAGE_SIZE + ENTRY, U64_MAX & ~(ENTRY - 1),
			     1ULL << 63, 1 };
	struct nprof_ring *ring = ring_new(test, PAGE_SIZE, 0);
	u64 cap = PAGE_SIZE / ENTRY, i;

	for (i = 0; i < cap; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, i, false, NULL), NPROF_NOTIFY_DELIVERED);
	for (i = 0; i < ARRAY_SIZE(wild); i++) {
		ring_user_consume(ring, wild[i]);
		KUNIT_EXPECT_EQ_MSG(test, ring_put(ring, 0xbad, false, NULL),
				    NPROF_NOTIFY_LOST, "consumer_pos %llu", wild[i]);
	}
	KUNIT_EXPECT_EQ(test, ring->cons, 0ULL);
	for (i = 0; i < cap; i++)
		KUNIT_EXPECT_EQ(test, ring_at(ring, i * ENTRY)->code, (u32)i);
}

static void ring_test_kernel_consume(struct kunit *test)
{
	struct nprof_ring *ring = ring_new(test, PAGE_SIZE, 0);
	u64 i;

	for (i = 0; i < 6; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, i, false, NULL), NPROF_NOTIFY_DELIVERED);
	nprof_ring_consume(ring, 2 * ENTRY);
	KUNIT_EXPECT_EQ(test, ring->cons, 2 * ENTRY);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ring->cons_page->consumer_pos), 2 * ENTRY);
	/* Backwards, past the producer or misaligned: ignored. */
	nprof_ring_consume(ring, ENTRY);
	KUNIT_EXPECT_EQ(test, ring->cons, 2 * ENTRY);
	nprof_ring_consume(ring, 7 * ENTRY);
	KUNIT_EXPECT_EQ(test, ring->cons, 2 * ENTRY);
	nprof_ring_consume(ring, 3 * ENTRY + 1);
	KUNIT_EXPECT_EQ(test, ring->cons, 2 * ENTRY);
	/* Userspace moved on meanwhile: the kernel does not move it back. */
	ring_user_consume(ring, 5 * ENTRY);
	nprof_ring_consume(ring, 3 * ENTRY);
	KUNIT_EXPECT_EQ(test, ring->cons, 5 * ENTRY);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ring->cons_page->consumer_pos), 5 * ENTRY);
	KUNIT_EXPECT_FALSE(test, ring->flags & NEURONPROF_RING_BAD_CONSUMER);
}

/*
 * A batch that wraps and overflows: the first entries that fit are
 * delivered in two runs around the end of the data area, the rest lost,
 * sequence numbers gapless across both, one watermark crossing reported.
 */
static void ring_test_batch_wrap_and_overflow(struct kunit *test)
{
	struct nprof_ring *ring = ring_new(test, PAGE_SIZE, 0);
	u32 cap = PAGE_SIZE / ENTRY, i, delivered;
	struct neuronprof_notification *n;
	bool wake;

	n = kunit_kcalloc(test, 2 * cap, sizeof(*n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, n);
	for (i = 0; i < 2 * cap; i++)
		n[i].code = 1000 + i;

	/* Three quarters in, half consumed: the next batch wraps. */
	nprof_ring_produce_batch(ring, n, cap * 3 / 4, false, &delivered, &wake);
	KUNIT_EXPECT_EQ(test, delivered, cap * 3 / 4);
	KUNIT_EXPECT_TRUE(test, wake);
	ring_user_consume(ring, cap / 2 * ENTRY);

	nprof_ring_produce_batch(ring, n, cap, false, &delivered, &wake);
	KUNIT_EXPECT_EQ(test, delivered, cap - cap / 4);	/* the room left */
	KUNIT_EXPECT_FALSE(test, wake);		/* it was above the watermark */
	KUNIT_EXPECT_EQ(test, ring->lost, (u64)(cap - delivered));
	KUNIT_EXPECT_EQ(test, READ_ONCE(ring->hdr->lost), ring->lost);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(ring->hdr->flags) & NEURONPROF_RING_OVERFLOWED);
	KUNIT_EXPECT_EQ(test, ring->seq, (u64)(cap * 3 / 4 + cap));
	KUNIT_EXPECT_EQ(test, READ_ONCE(ring->hdr->producer_pos), ring->prod);
	KUNIT_EXPECT_EQ(test, nprof_ring_unread(ring), (u64)PAGE_SIZE);
	/* The second batch: after the first one's entries, around the end. */
	for (i = 0; i < delivered; i++) {
		const struct neuronprof_notification *e =
			ring_at(ring, (u64)(cap * 3 / 4 + i) * ENTRY);

		KUNIT_EXPECT_EQ(test, e->seq, (u64)(cap * 3 / 4 + i));
		KUNIT_EXPECT_EQ(test, e->code, 1000 + i);
		KUNIT_EXPECT_EQ(test, e->queue_type, (u16)ring_test_q.type);
		KUNIT_EXPECT_EQ(test, e->engine, (u16)ring_test_q.engine);
	}
	/* The unread half of the first batch is untouched. */
	KUNIT_EXPECT_EQ(test, ring_at(ring, (u64)cap / 2 * ENTRY)->seq, (u64)cap / 2);

	/* Not captured at all: counted as lost, seq advanced, nothing written. */
	nprof_ring_produce_batch(ring, NULL, 5, false, &delivered, &wake);
	KUNIT_EXPECT_EQ(test, delivered, 0U);
	KUNIT_EXPECT_EQ(test, ring->seq, (u64)(cap * 3 / 4 + cap + 5));
	KUNIT_EXPECT_EQ(test, ring->lost, (u64)(cap / 4 + 5));
}

/* A batch with force_lost delivers nothing and counts everything. */
static void ring_test_batch_force_lost(struct kunit *test)
{
	struct nprof_ring *ring = ring_new(test, PAGE_SIZE, 0);
	struct neuronprof_notification n[3] = {};
	u32 delivered;
	bool wake;

	nprof_ring_produce_batch(ring, n, 3, true, &delivered, &wake);
	KUNIT_EXPECT_EQ(test, delivered, 0U);
	KUNIT_EXPECT_FALSE(test, wake);
	KUNIT_EXPECT_EQ(test, ring->lost, 3ULL);
	KUNIT_EXPECT_EQ(test, ring->prod, 0ULL);
	nprof_ring_produce_batch(ring, n, 3, false, &delivered, &wake);
	KUNIT_EXPECT_EQ(test, delivered, 3U);
	KUNIT_EXPECT_EQ(test, ring_at(ring, 0)->seq, 3ULL);
}

static struct kunit_case ring_cases[] = {
	KUNIT_CASE(ring_test_init_header),
	KUNIT_CASE(ring_test_fill_then_overflow),
	KUNIT_CASE(ring_test_wrap),
	KUNIT_CASE(ring_test_seq_counts_lost),
	KUNIT_CASE(ring_test_force_lost),
	KUNIT_CASE(ring_test_watermark_crossing),
	KUNIT_CASE(ring_test_watermark_zero),
	KUNIT_CASE(ring_test_consumer_valid),
	KUNIT_CASE(ring_test_consumer_valid_wraparound),
	KUNIT_CASE_PARAM(ring_test_hostile_consumer, hostile_gen_params),
	KUNIT_CASE(ring_test_hostile_consumer_cannot_free_space),
	KUNIT_CASE(ring_test_kernel_consume),
	KUNIT_CASE(ring_test_batch_wrap_and_overflow),
	KUNIT_CASE(ring_test_batch_force_lost),
	{}
};

static struct kunit_suite ring_suite = {
	.name = "neuronprof_ring",
	.test_cases = ring_cases,
};

/* ---- neuronprof_subscribe ------------------------------------------------ */

#define CORE_TYPES	GENMASK(NEURONPROF_QT_THROTTLE, NEURONPROF_QT_TRACE)
#define TOPSP_TYPES	GENMASK(NEURONPROF_QT_TOPSP_ERROR, NEURONPROF_QT_TOPSP_TRACE)
#define ENGINE_TYPES	(BIT(NEURONPROF_QT_TRACE) | BIT(NEURONPROF_QT_EVENT) | \
			 BIT(NEURONPROF_QT_DMA))

/* 2 cores, 3 TopSPs per core, 4 engines, rings of 2 to 16 pages. */
static const struct nprof_device_desc test_desc = {
	.provider = "kunit",
	.arch = NEURONPROF_ARCH_TRN1,
	.num_cores = 2,
	.num_topsps = 6,
	.engines_per_core = 4,
	.core_queue_types = CORE_TYPES,
	.topsp_queue_types = TOPSP_TYPES,
	.per_engine_queue_types = ENGINE_TYPES,
	.min_ring_size = 2 * PAGE_SIZE,
	.max_ring_size = 16 * PAGE_SIZE,
	.caps = NEURONPROF_CAP_FLUSH,
};

static const struct drm_neuronprof_nq_subscribe sub_base = {
	.target_kind = NEURONPROF_TARGET_CORE,
	.target_index = 0,
	.queue_type = NEURONPROF_QT_TRACE,
	.engine = 0,
	.ring_size = 4 * PAGE_SIZE,
};

#define SUB(member, val)	PATCH(struct drm_neuronprof_nq_subscribe, member, val)

static const struct patch_case sub_bad_cases[] = {
	{ "flags", { SUB(flags, 1) } },
	{ "flags_high", { SUB(flags, 1U << 31) } },
	{ "pad", { SUB(pad, 1) } },
	{ "reserved0", { SUB(reserved[0], 1) } },
	{ "reserved1", { SUB(reserved[1], 1ULL << 63) } },
	{ "kind_unknown", { SUB(target_kind, 2) } },
	{ "kind_max", { SUB(target_kind, U32_MAX) } },
	{ "core_index", { SUB(target_index, 2) } },
	{ "core_index_max", { SUB(target_index, U32_MAX) } },
	{ "topsp_index", { SUB(target_kind, NEURONPROF_TARGET_TOPSP),
			   SUB(target_index, 6),
			   SUB(queue_type, NEURONPROF_QT_TOPSP_TRACE) } },
	{ "core_with_topsp_type", { SUB(queue_type, NEURONPROF_QT_TOPSP_TRACE) } },
	{ "topsp_with_core_type", { SUB(target_kind, NEURONPROF_TARGET_TOPSP),
				    SUB(queue_type, NEURONPROF_QT_TRACE) } },
	{ "type_count", { SUB(queue_type, NEURONPROF_QT_COUNT) } },
	{ "type_max", { SUB(queue_type, U32_MAX) } },
	{ "engine_beyond_core", { SUB(engine, 4) } },
	{ "engine_max", { SUB(queue_type, NEURONPROF_QT_EVENT), SUB(engine, U32_MAX) } },
	{ "engine_on_single_queue", { SUB(queue_type, NEURONPROF_QT_ERROR), SUB(engine, 1) } },
	{ "engine_on_topsp", { SUB(target_kind, NEURONPROF_TARGET_TOPSP),
			       SUB(queue_type, NEURONPROF_QT_TOPSP_TRACE), SUB(engine, 1) } },
	{ "ring_zero", { SUB(ring_size, 0) } },
	{ "ring_not_pow2", { SUB(ring_size, 3 * PAGE_SIZE) } },
	{ "ring_entry_over_pow2", { SUB(ring_size, 4 * PAGE_SIZE + ENTRY) } },
	{ "ring_below_page", { SUB(ring_size, PAGE_SIZE / 2) } },
	{ "ring_below_min", { SUB(ring_size, PAGE_SIZE) } },
	{ "ring_above_max", { SUB(ring_size, 32 * PAGE_SIZE) } },
	{ "ring_huge", { SUB(ring_size, 1ULL << 63) } },
	{ "watermark_above_ring", { SUB(watermark, 4 * PAGE_SIZE + 1) } },
	{ "watermark_max", { SUB(watermark, U32_MAX) } },
};

KUNIT_ARRAY_PARAM(sub_bad, sub_bad_cases, patch_case_desc);

static const struct patch_case sub_good_cases[] = {
	{ "base", {} },
	{ "last_engine", { SUB(engine, 3) } },
	{ "event_engine", { SUB(queue_type, NEURONPROF_QT_EVENT), SUB(engine, 2) } },
	{ "dma_core1", { SUB(target_index, 1), SUB(queue_type, NEURONPROF_QT_DMA),
			 SUB(engine, 3) } },
	{ "single_queue", { SUB(queue_type, NEURONPROF_QT_INFER_STATUS) } },
	{ "last_topsp", { SUB(target_kind, NEURONPROF_TARGET_TOPSP), SUB(target_index, 5),
			  SUB(queue_type, NEURONPROF_QT_TOPSP_ERROR) } },
	{ "ring_min", { SUB(ring_size, 2 * PAGE_SIZE) } },
	{ "ring_max_full_watermark", { SUB(ring_size, 16 * PAGE_SIZE),
				       SUB(watermark, 16 * PAGE_SIZE) } },
	{ "odd_watermark", { SUB(watermark, 100) } },
	/* Out members are overwritten, never checked. */
	{ "fd_in", { SUB(fd, 1234), SUB(data_size, 99) } },
};

KUNIT_ARRAY_PARAM(sub_good, sub_good_cases, patch_case_desc);

static void subscribe_test_bad(struct kunit *test)
{
	const struct patch_case *c = test->param_value;
	struct drm_neuronprof_nq_subscribe args = sub_base;
	const char *why = NULL;

	apply_patches(&args, c->p, ARRAY_SIZE(c->p));
	KUNIT_EXPECT_EQ(test, nprof_subscribe_validate(&test_desc, &args, &why), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
}

static void subscribe_test_good(struct kunit *test)
{
	const struct patch_case *c = test->param_value;
	struct drm_neuronprof_nq_subscribe args = sub_base;
	const char *why = NULL;
	int ret;

	apply_patches(&args, c->p, ARRAY_SIZE(c->p));
	ret = nprof_subscribe_validate(&test_desc, &args, &why);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "rejected: %s", why ? why : "?");
}

/* The queue check used by nprof_notify() agrees with subscribe's. */
static void subscribe_test_queue_valid(struct kunit *test)
{
	struct nprof_queue_id q = { NEURONPROF_TARGET_CORE, 1, NEURONPROF_QT_EVENT, 3 };

	KUNIT_EXPECT_TRUE(test, nprof_queue_valid(&test_desc, &q));
	q.engine = 4;
	KUNIT_EXPECT_FALSE(test, nprof_queue_valid(&test_desc, &q));
	q = (struct nprof_queue_id){ NEURONPROF_TARGET_TOPSP, 5, NEURONPROF_QT_TOPSP_EVENT, 0 };
	KUNIT_EXPECT_TRUE(test, nprof_queue_valid(&test_desc, &q));
	q.index = 6;
	KUNIT_EXPECT_FALSE(test, nprof_queue_valid(&test_desc, &q));
	q = (struct nprof_queue_id){ 7, 0, NEURONPROF_QT_TRACE, 0 };
	KUNIT_EXPECT_FALSE(test, nprof_queue_valid(&test_desc, &q));
}

static struct kunit_case subscribe_cases[] = {
	KUNIT_CASE_PARAM(subscribe_test_bad, sub_bad_gen_params),
	KUNIT_CASE_PARAM(subscribe_test_good, sub_good_gen_params),
	KUNIT_CASE(subscribe_test_queue_valid),
	{}
};

static struct kunit_suite subscribe_suite = {
	.name = "neuronprof_subscribe",
	.test_cases = subscribe_cases,
};

/* ---- neuronprof_device --------------------------------------------------- */

static int tp_queue_start(struct nprof_device *ndev, const struct nprof_queue_id *q);
static void tp_queue_stop(struct nprof_device *ndev, const struct nprof_queue_id *q);
static int tp_flush(struct nprof_device *ndev, const struct nprof_queue_id *q);
static int tp_sim_exec(struct nprof_device *ndev, struct drm_neuronprof_sim_exec *args);

static const struct nprof_hw_ops tp_ops = {
	.owner = THIS_MODULE,
	.queue_start = tp_queue_start,
	.queue_stop = tp_queue_stop,
	.flush = tp_flush,
};

static const struct nprof_hw_ops tp_ops_noflush = {
	.owner = THIS_MODULE,
	.queue_start = tp_queue_start,
	.queue_stop = tp_queue_stop,
};

#define DESC(member, val)	PATCH(struct nprof_device_desc, member, val)

static const struct patch_case desc_bad_cases[] = {
	{ "arch_zero", { DESC(arch, 0) } },
	{ "arch_unknown", { DESC(arch, NEURONPROF_ARCH_TRN2 + 1) } },
	{ "no_cores", { DESC(num_cores, 0) } },
	{ "too_many_cores", { DESC(num_cores, 257), DESC(num_topsps, 0) } },
	{ "too_many_topsps", { DESC(num_cores, 1), DESC(num_topsps, 257) } },
	{ "topsps_not_multiple", { DESC(num_topsps, 5) } },
	{ "no_engines", { DESC(engines_per_core, 0) } },
	{ "too_many_engines", { DESC(engines_per_core, NEURONPROF_MAX_ENGINES + 1) } },
	{ "core_has_topsp_type", { DESC(core_queue_types,
					CORE_TYPES | BIT(NEURONPROF_QT_TOPSP_EVENT)) } },
	{ "topsp_has_core_type", { DESC(topsp_queue_types,
					TOPSP_TYPES | BIT(NEURONPROF_QT_TRACE)) } },
	{ "unknown_type", { DESC(core_queue_types, CORE_TYPES | BIT(NEURONPROF_QT_MAX)) } },
	{ "per_engine_not_core_type", { DESC(core_queue_types, BIT(NEURONPROF_QT_ERROR)) } },
	{ "per_engine_topsp_type", { DESC(per_engine_queue_types,
					  BIT(NEURONPROF_QT_TOPSP_TRACE)) } },
	{ "min_zero", { DESC(min_ring_size, 0) } },
	{ "min_below_page", { DESC(min_ring_size, PAGE_SIZE / 2) } },
	{ "min_not_pow2", { DESC(min_ring_size, 3 * PAGE_SIZE) } },
	{ "max_below_min", { DESC(max_ring_size, PAGE_SIZE) } },
	{ "max_not_pow2", { DESC(max_ring_size, 24 * PAGE_SIZE) } },
	{ "max_above_limit", { DESC(max_ring_size, (u64)NPROF_RING_SIZE_LIMIT * 2) } },
	{ "unknown_cap", { DESC(caps, NEURONPROF_CAP_FLUSH | BIT_ULL(5)) } },
	{ "too_many_instances", { DESC(queue_instances, NEURONPROF_MAX_INSTANCES + 1) } },
	{ "unknown_clock_domain", { DESC(clock_domain, NEURONPROF_CLOCK_CAPTURED + 1) } },
	{ "raw_cap_without_format", { DESC(caps, NEURONPROF_CAP_FLUSH | NEURONPROF_CAP_RAW) } },
	{ "raw_format_without_cap", { DESC(raw_format, NEURONPROF_RAW_FORMAT_NEURON_V2) } },
	{ "unknown_raw_format", { DESC(caps, NEURONPROF_CAP_FLUSH | NEURONPROF_CAP_RAW),
				  DESC(raw_format, NEURONPROF_RAW_FORMAT_NEURON_V3 + 1) } },
	{ "flush_op_without_cap", { DESC(caps, 0) } },
	{ "sim_exec_cap_without_op", { DESC(caps, NEURONPROF_CAP_FLUSH |
					       NEURONPROF_CAP_SIM_EXEC) } },
};

KUNIT_ARRAY_PARAM(desc_bad, desc_bad_cases, patch_case_desc);

static void device_test_desc_bad(struct kunit *test)
{
	const struct patch_case *c = test->param_value;
	struct nprof_device_desc desc = test_desc;
	const char *why = NULL;

	apply_patches(&desc, c->p, ARRAY_SIZE(c->p));
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
}

static void device_test_desc_good(struct kunit *test)
{
	struct nprof_device_desc desc = test_desc;
	const char *why = NULL;

	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), 0);
	desc.num_topsps = 0;
	desc.max_ring_size = desc.min_ring_size;
	desc.caps = 0;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops_noflush, &why), 0);
	desc.num_cores = NPROF_MAX_CORES;
	desc.num_topsps = NPROF_MAX_TOPSPS;
	desc.engines_per_core = NEURONPROF_MAX_ENGINES;
	desc.max_ring_size = NPROF_RING_SIZE_LIMIT;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops_noflush, &why), 0);
}

static void device_test_desc_names_and_ops(struct kunit *test)
{
	struct nprof_device_desc desc = test_desc;
	struct nprof_hw_ops ops = tp_ops;
	const char *why;

	desc.provider = NULL;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), -EINVAL);
	desc.provider = "";
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), -EINVAL);
	desc.provider = "0123456789abcdef";
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), -EINVAL);
	desc.provider = "0123456789abcde";
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &tp_ops, &why), 0);

	KUNIT_EXPECT_EQ(test, nprof_desc_validate(NULL, &tp_ops, &why), -EINVAL);
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&test_desc, NULL, &why), -EINVAL);
	ops.queue_start = NULL;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&test_desc, &ops, &why), -EINVAL);
	ops = tp_ops;
	ops.queue_stop = NULL;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&test_desc, &ops, &why), -EINVAL);
	ops = tp_ops;
	ops.sim_exec = tp_sim_exec;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&test_desc, &ops, &why), -EINVAL);
	desc = test_desc;
	desc.caps |= NEURONPROF_CAP_SIM_EXEC;
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&desc, &ops, &why), 0);
	/* The flush capability needs the op, the op needs the capability. */
	KUNIT_EXPECT_EQ(test, nprof_desc_validate(&test_desc, &tp_ops_noflush, &why), -EINVAL);
}

/* 2 cores with 3 TopSPs each, 4 engines: the fixed cost is 4 + 12 per iteration. */
static const struct nprof_device_desc sim_desc = {
	.provider = "kunit",
	.arch = NEURONPROF_ARCH_TRN1,
	.num_cores = 2,
	.num_topsps = 6,
	.engines_per_core = 4,
	.core_queue_types = CORE_TYPES,
	.topsp_queue_types = TOPSP_TYPES,
	.per_engine_queue_types = ENGINE_TYPES,
	.min_ring_size = PAGE_SIZE,
	.max_ring_size = 16 * PAGE_SIZE,
	.caps = NEURONPROF_CAP_SIM_EXEC,
};

static const struct drm_neuronprof_sim_exec exec_base = {
	.core = 0,
	.iterations = 1,
	.instructions = { 10 },
};

#define EXEC(member, val)	PATCH(struct drm_neuronprof_sim_exec, member, val)

/*
 * 2^16 iterations of (instructions + 2 per engine + 4 per core + 4 per TopSP)
 * = 2^16 * (1006 + 2 + 4 + 12) = 2^26: exactly the limit.
 */
#define EXEC_LIMIT_ITERATIONS	65536
#define EXEC_LIMIT_INSTRUCTIONS	1006

static const struct patch_case exec_bad_cases[] = {
	{ "core", { EXEC(core, 2) } },
	{ "core_max", { EXEC(core, U32_MAX) } },
	{ "flags", { EXEC(flags, BIT(2)) } },
	{ "iterations_zero", { EXEC(iterations, 0) } },
	{ "iterations_above_max", { EXEC(iterations, NEURONPROF_SIM_MAX_ITERATIONS + 1) } },
	{ "engine_beyond_core", { EXEC(instructions[4], 1) } },
	{ "last_engine_slot", { EXEC(instructions[NEURONPROF_MAX_ENGINES - 1], 1) } },
	{ "instructions_above_max", { EXEC(instructions[0],
					   NEURONPROF_SIM_MAX_INSTRUCTIONS + 1) } },
	{ "dma_above_max", { EXEC(dma_transfers, NEURONPROF_SIM_MAX_DMA + 1) } },
	{ "reserved0", { EXEC(reserved[0], 1) } },
	{ "reserved1", { EXEC(reserved[1], 1) } },
	{ "one_above_limit", { EXEC(iterations, EXEC_LIMIT_ITERATIONS),
			       EXEC(instructions[0], EXEC_LIMIT_INSTRUCTIONS + 1) } },
	{ "dma_above_limit", { EXEC(iterations, EXEC_LIMIT_ITERATIONS),
			       EXEC(instructions[0], EXEC_LIMIT_INSTRUCTIONS),
			       EXEC(dma_transfers, 1) } },
	{ "everything_max", { EXEC(iterations, NEURONPROF_SIM_MAX_ITERATIONS),
			      EXEC(instructions[0], NEURONPROF_SIM_MAX_INSTRUCTIONS),
			      EXEC(dma_transfers, NEURONPROF_SIM_MAX_DMA) } },
};

KUNIT_ARRAY_PARAM(exec_bad, exec_bad_cases, patch_case_desc);

static const struct patch_case exec_good_cases[] = {
	{ "base", {} },
	{ "at_limit", { EXEC(iterations, EXEC_LIMIT_ITERATIONS),
			EXEC(instructions[0], EXEC_LIMIT_INSTRUCTIONS) } },
	{ "flags", { EXEC(flags, NEURONPROF_SIM_EXEC_ERROR | NEURONPROF_SIM_EXEC_THROTTLE) } },
	{ "last_core_engine", { EXEC(core, 1), EXEC(instructions[3], 7) } },
	{ "max_instructions_once", { EXEC(instructions[0], NEURONPROF_SIM_MAX_INSTRUCTIONS) } },
	{ "dma_only", { EXEC(instructions[0], 0), EXEC(dma_transfers, NEURONPROF_SIM_MAX_DMA) } },
	/* Out members are overwritten, never checked. */
	{ "out_members", { EXEC(status, 5), EXEC(produced[3], 9) } },
};

KUNIT_ARRAY_PARAM(exec_good, exec_good_cases, patch_case_desc);

static void device_test_exec_bad(struct kunit *test)
{
	const struct patch_case *c = test->param_value;
	struct drm_neuronprof_sim_exec args = exec_base;
	const char *why = NULL;

	apply_patches(&args, c->p, ARRAY_SIZE(c->p));
	KUNIT_EXPECT_EQ(test, nprof_sim_exec_validate(&sim_desc, &args, &why), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
}

static void device_test_exec_good(struct kunit *test)
{
	const struct patch_case *c = test->param_value;
	struct drm_neuronprof_sim_exec args = exec_base;
	const char *why = NULL;
	int ret;

	apply_patches(&args, c->p, ARRAY_SIZE(c->p));
	ret = nprof_sim_exec_validate(&sim_desc, &args, &why);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "rejected: %s", why ? why : "?");
}

/*
 * Every queue of the largest topology has its own slot, and the queues of a
 * target lie in that target's range (nprof_queues_flushed() relies on it).
 */
static void device_test_queue_slots(struct kunit *test)
{
	const struct nprof_device_desc desc = {
		.num_cores = NPROF_MAX_CORES,
		.num_topsps = NPROF_MAX_TOPSPS,
		.engines_per_core = NEURONPROF_MAX_ENGINES,
		.core_queue_types = CORE_TYPES,
		.topsp_queue_types = TOPSP_TYPES,
		.per_engine_queue_types = CORE_TYPES,
		.queue_instances = NEURONPROF_MAX_INSTANCES,
	};
	const unsigned long per_target = NEURONPROF_QT_MAX * NEURONPROF_MAX_INSTANCES;
	const unsigned long nbits = (NPROF_MAX_CORES + NPROF_MAX_TOPSPS) * per_target;
	struct nprof_queue_id q;
	unsigned long *seen, slot, count = 0;

	seen = kunit_kzalloc(test, BITS_TO_LONGS(nbits) * sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, seen);
	for (q.kind = 0; q.kind < 2; q.kind++) {
		u32 targets = q.kind ? desc.num_topsps : desc.num_cores;

		for (q.index = 0; q.index < targets; q.index++)
			for (q.type = 0; q.type < NEURONPROF_QT_MAX; q.type++)
				for (q.engine = 0; q.engine < NEURONPROF_MAX_INSTANCES;
				     q.engine++) {
					unsigned long target;

					if (!nprof_queue_valid(&desc, &q))
						continue;
					slot = nprof_queue_slot(&desc, &q);
					target = q.index + (q.kind ? desc.num_cores : 0);
					KUNIT_ASSERT_LT(test, slot, nbits);
					KUNIT_EXPECT_EQ(test, slot / per_target, target);
					KUNIT_EXPECT_FALSE(test, __test_and_set_bit(slot, seen));
					count++;
				}
	}
	/* 6 per-engine core types * 16 instances + 3 TopSP types, per target. */
	KUNIT_EXPECT_EQ(test, count, NPROF_MAX_CORES * 6UL * 16 + NPROF_MAX_TOPSPS * 3UL);
}

static struct kunit_case device_cases[] = {
	KUNIT_CASE_PARAM(device_test_desc_bad, desc_bad_gen_params),
	KUNIT_CASE(device_test_desc_good),
	KUNIT_CASE(device_test_desc_names_and_ops),
	KUNIT_CASE_PARAM(device_test_exec_bad, exec_bad_gen_params),
	KUNIT_CASE_PARAM(device_test_exec_good, exec_good_gen_params),
	KUNIT_CASE(device_test_queue_slots),
	{}
};

static struct kunit_suite device_suite = {
	.name = "neuronprof_device",
	.test_cases = device_cases,
};

/* ---- neuronprof_unplug: a real device of a test provider ----------------- */

#define TP_MAX_SUBS	8

/* The test provider: counts its callbacks, fails them on request. */
struct tp_ctx {
	struct kunit *test;
	struct device *parent;
	struct nprof_device *ndev;
	struct nprof_device *ndev_noflush;
	bool unregistered;
	struct nprof_sub *subs[TP_MAX_SUBS];
	unsigned int nr_subs;
	atomic_t starts;
	atomic_t stops;
	atomic_t flushes;
	int start_ret;
	int flush_ret;
};

static int tp_queue_start(struct nprof_device *ndev, const struct nprof_queue_id *q)
{
	struct tp_ctx *ctx = nprof_device_priv(ndev);

	if (ctx->start_ret)
		return ctx->start_ret;
	atomic_inc(&ctx->starts);
	return 0;
}

static void tp_queue_stop(struct nprof_device *ndev, const struct nprof_queue_id *q)
{
	struct tp_ctx *ctx = nprof_device_priv(ndev);

	atomic_inc(&ctx->stops);
}

static int tp_flush(struct nprof_device *ndev, const struct nprof_queue_id *q)
{
	struct tp_ctx *ctx = nprof_device_priv(ndev);

	atomic_inc(&ctx->flushes);
	return ctx->flush_ret;
}

/* Never registered with a device: only its presence in an ops struct matters. */
static int tp_sim_exec(struct nprof_device *ndev, struct drm_neuronprof_sim_exec *args)
{
	return -EOPNOTSUPP;
}

/* What a provider does: allocate, initialise, then publish. */
static struct nprof_device *tp_register(struct device *parent,
					const struct nprof_device_desc *desc,
					const struct nprof_hw_ops *ops, void *priv)
{
	struct nprof_device *ndev = nprof_device_alloc(parent, desc, ops, priv);
	int ret;

	if (IS_ERR(ndev))
		return ndev;
	ret = nprof_device_publish(ndev);
	if (ret) {
		nprof_device_free(ndev);
		return ERR_PTR(ret);
	}
	return ndev;
}

static int unplug_init(struct kunit *test)
{
	struct tp_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->test = test;
	ctx->parent = root_device_register("neuronprof_kunit");
	if (IS_ERR(ctx->parent))
		return PTR_ERR(ctx->parent);
	ctx->ndev = tp_register(ctx->parent, &test_desc, &tp_ops, ctx);
	if (IS_ERR(ctx->ndev)) {
		root_device_unregister(ctx->parent);
		return PTR_ERR(ctx->ndev);
	}
	test->priv = ctx;
	return 0;
}

static void unplug_exit(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;

	/* A failed assertion must not leave subscriptions or devices behind. */
	while (ctx->nr_subs)
		nprof_sub_destroy(ctx->subs[--ctx->nr_subs]);
	if (ctx->ndev_noflush)
		nprof_device_unregister(ctx->ndev_noflush);
	if (!ctx->unregistered)
		nprof_device_unregister(ctx->ndev);
	root_device_unregister(ctx->parent);
}

static struct nprof_sub *tp_subscribe(struct kunit *test, struct nprof_device *ndev,
				      const struct drm_neuronprof_nq_subscribe *args)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_sub *sub;

	KUNIT_ASSERT_LT(test, ctx->nr_subs, (unsigned int)TP_MAX_SUBS);
	sub = nprof_sub_create(ndev, args);
	if (!IS_ERR(sub))
		ctx->subs[ctx->nr_subs++] = sub;
	return sub;
}

static void tp_unsubscribe(struct kunit *test, struct nprof_sub *sub)
{
	struct tp_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; i < ctx->nr_subs; i++) {
		if (ctx->subs[i] != sub)
			continue;
		ctx->subs[i] = ctx->subs[--ctx->nr_subs];
		nprof_sub_destroy(sub);
		return;
	}
	KUNIT_FAIL(test, "unsubscribing an unknown subscription");
}

static enum nprof_notify_result tp_notify(struct nprof_device *ndev,
					  const struct drm_neuronprof_nq_subscribe *args,
					  u32 code)
{
	const struct nprof_queue_id q = {
		args->target_kind, args->target_index, args->queue_type, args->engine
	};
	struct neuronprof_notification n = { .code = code };

	return nprof_notify(ndev, &q, &n, false);
}

static void unplug_test_subscribe_notify_release(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_sub *sub;

	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 1), NPROF_NOTIFY_UNSUBSCRIBED);
	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 1);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(sub) & EPOLLIN);

	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 42), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, sub->ring.prod, ENTRY);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->code, 42U);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->seq, 0ULL);
	/* Watermark 0: one entry makes the subscription readable. */
	KUNIT_EXPECT_EQ(test, nprof_sub_poll_mask(sub), (__poll_t)(EPOLLIN | EPOLLRDNORM));
	/* Another queue of the device is not subscribed. */
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &(struct drm_neuronprof_nq_subscribe){
				.queue_type = NEURONPROF_QT_TRACE, .engine = 1 }, 1),
			NPROF_NOTIFY_UNSUBSCRIBED);

	tp_unsubscribe(test, sub);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->stops), 1);
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 1), NPROF_NOTIFY_UNSUBSCRIBED);

	/* The queue is free for the next subscriber, whose ring starts afresh. */
	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 43), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->seq, 0ULL);
}

static void unplug_test_one_subscriber(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct drm_neuronprof_nq_subscribe other = sub_base;
	struct nprof_sub *sub;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tp_subscribe(test, ctx->ndev, &sub_base)), -EBUSY);
	/* A busy queue never reaches the provider. */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 1);
	other.engine = 1;
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, tp_subscribe(test, ctx->ndev, &other));
	other.target_kind = NEURONPROF_TARGET_TOPSP;
	other.queue_type = NEURONPROF_QT_TOPSP_TRACE;
	other.engine = 0;
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, tp_subscribe(test, ctx->ndev, &other));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 3);
}

static void unplug_test_start_error(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct drm_neuronprof_nq_subscribe bad = sub_base;
	struct nprof_sub *sub;

	ctx->start_ret = -EIO;
	KUNIT_EXPECT_EQ(test, PTR_ERR(tp_subscribe(test, ctx->ndev, &sub_base)), -EIO);
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 1), NPROF_NOTIFY_UNSUBSCRIBED);
	/* Invalid arguments fail before the provider is asked. */
	ctx->start_ret = 0;
	bad.ring_size = 3 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, PTR_ERR(tp_subscribe(test, ctx->ndev, &bad)), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 0);
	/* The failed subscription did not keep the queue. */
	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->stops), 0);
}

static void unplug_test_live_subscription(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct neuronprof_nq_drain d = {};
	struct nprof_sub *sub;
	unsigned int refs;
	u64 prod;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 1), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 2), NPROF_NOTIFY_DELIVERED);
	prod = sub->ring.prod;

	nprof_device_unregister(ctx->ndev);
	ctx->unregistered = true;

	KUNIT_EXPECT_TRUE(test, READ_ONCE(sub->ring.hdr->flags) & NEURONPROF_RING_DEAD);
	KUNIT_EXPECT_EQ(test, nprof_sub_poll_mask(sub) & (EPOLLHUP | EPOLLERR),
			(__poll_t)(EPOLLHUP | EPOLLERR));
	/* What was delivered stays readable. */
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(sub) & EPOLLIN);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->code, 1U);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, ENTRY)->code, 2U);

	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 3), NPROF_NOTIFY_UNSUBSCRIBED);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sub->ring.hdr->producer_pos), prod);
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -ENODEV);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tp_subscribe(test, ctx->ndev, &sub_base)), -ENODEV);

	/*
	 * Releasing the subscription drops its device reference and never
	 * calls the provider of a gone device.
	 */
	refs = kref_read(&ctx->ndev->drm.ref);
	KUNIT_EXPECT_GE(test, refs, 2U);
	tp_unsubscribe(test, sub);
	KUNIT_EXPECT_EQ(test, kref_read(&ctx->ndev->drm.ref), refs - 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->stops), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->flushes), 0);
}

/* The device goes away with its parent while a subscription outlives both. */
static void unplug_test_parent_gone_first(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_sub *sub;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 7), NPROF_NOTIFY_DELIVERED);

	nprof_device_unregister(ctx->ndev);
	ctx->unregistered = true;
	/* The parent's managed reference to the DRM device goes here. */
	KUNIT_EXPECT_EQ(test, kref_read(&ctx->ndev->drm.ref), 2U);
	root_device_unregister(ctx->parent);
	KUNIT_EXPECT_EQ(test, kref_read(&ctx->ndev->drm.ref), 1U);
	ctx->parent = root_device_register("neuronprof_kunit");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->parent);

	/* The ring is still there; the last put frees the device (KASAN watches). */
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->code, 7U);
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(sub) & EPOLLHUP);
	tp_unsubscribe(test, sub);
}

static void unplug_test_drain(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct neuronprof_nq_drain d;
	struct nprof_sub *sub;
	int i;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, i), NPROF_NOTIFY_DELIVERED);

	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_FLUSH };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->flushes), 1);
	KUNIT_EXPECT_EQ(test, d.producer_pos, 5 * ENTRY);
	KUNIT_EXPECT_EQ(test, d.consumer_pos, 0ULL);
	KUNIT_EXPECT_EQ(test, d.lost, 0ULL);
	KUNIT_EXPECT_EQ(test, d.ring_flags, 0U);

	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_RELEASE,
					  .release_pos = 2 * ENTRY };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), 0);
	KUNIT_EXPECT_EQ(test, d.consumer_pos, 2 * ENTRY);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sub->ring.cons_page->consumer_pos), 2 * ENTRY);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->flushes), 1);

	/* release_pos: behind the consumer, past the producer, misaligned. */
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_RELEASE, .release_pos = ENTRY };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_RELEASE,
					  .release_pos = 6 * ENTRY };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_RELEASE,
					  .release_pos = 3 * ENTRY + 8 };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, sub->ring.cons, 2 * ENTRY);
	/* Malformed arguments. */
	d = (struct neuronprof_nq_drain){ .release_pos = 3 * ENTRY };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	d = (struct neuronprof_nq_drain){ .flags = BIT(2) };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	d = (struct neuronprof_nq_drain){ .pad = 1 };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	d = (struct neuronprof_nq_drain){ .pad2 = 1 };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);

	/* Release everything. */
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_RELEASE,
					  .release_pos = 5 * ENTRY };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), 0);
	KUNIT_EXPECT_EQ(test, d.consumer_pos, 5 * ENTRY);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(sub) & EPOLLIN);

	/* The provider's flush error comes back as is. */
	ctx->flush_ret = -EIO;
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_FLUSH };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EIO);
}

static void unplug_test_drain_no_flush(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_device_desc desc = test_desc;
	struct neuronprof_nq_drain d = { .flags = NEURONPROF_DRAIN_FLUSH };
	struct nprof_sub *sub;

	desc.caps = 0;
	ctx->ndev_noflush = tp_register(ctx->parent, &desc, &tp_ops_noflush, ctx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->ndev_noflush);
	sub = tp_subscribe(test, ctx->ndev_noflush, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EOPNOTSUPP);
	d = (struct neuronprof_nq_drain){};
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), 0);
	/* Two devices, two indexes. */
	KUNIT_EXPECT_NE(test, ctx->ndev_noflush->index, ctx->ndev->index);
}

static void unplug_test_flushed_wakes(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct drm_neuronprof_nq_subscribe core0 = sub_base, topsp2 = sub_base,
					   topsp3 = sub_base, core1 = sub_base;
	struct nprof_sub *s_core0, *s_topsp2, *s_topsp3, *s_core1;
	struct neuronprof_nq_drain d;

	core0.watermark = 4 * ENTRY;
	topsp2 = core0;
	topsp2.target_kind = NEURONPROF_TARGET_TOPSP;
	topsp2.target_index = 2;	/* the last TopSP of core 0 */
	topsp2.queue_type = NEURONPROF_QT_TOPSP_EVENT;
	topsp3 = topsp2;
	topsp3.target_index = 3;	/* the first TopSP of core 1 */
	core1 = core0;
	core1.target_index = 1;

	s_core0 = tp_subscribe(test, ctx->ndev, &core0);
	s_topsp2 = tp_subscribe(test, ctx->ndev, &topsp2);
	s_topsp3 = tp_subscribe(test, ctx->ndev, &topsp3);
	s_core1 = tp_subscribe(test, ctx->ndev, &core1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s_core0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s_topsp2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s_topsp3);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s_core1);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &core0, 1), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &topsp2, 1), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &topsp3, 1), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &core1, 1), NPROF_NOTIFY_DELIVERED);
	/* One entry is below the watermark of four. */
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_core0) & EPOLLIN);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_topsp2) & EPOLLIN);

	nprof_queues_flushed(ctx->ndev, 0);
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(s_core0) & EPOLLIN);
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(s_topsp2) & EPOLLIN);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_topsp3) & EPOLLIN);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_core1) & EPOLLIN);

	/* Once consumed past the flush, the watermark rules again. */
	smp_store_release(&s_core0->ring.cons_page->consumer_pos, ENTRY);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_core0) & EPOLLIN);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &core0, 2), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_core0) & EPOLLIN);

	/* NQ_DRAIN with FLUSH does the same for one queue. */
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_FLUSH };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(s_core1, &d), 0);
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(s_core1) & EPOLLIN);

	/* Out-of-range cores are ignored. */
	nprof_queues_flushed(ctx->ndev, 2);
	nprof_queues_flushed(ctx->ndev, U32_MAX);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_topsp3) & EPOLLIN);
}

struct tp_irq {
	struct hrtimer timer;
	struct nprof_device *ndev;
	enum nprof_notify_result res;
	bool hardirq;
	struct completion done;
};

static enum hrtimer_restart tp_irq_fire(struct hrtimer *timer)
{
	struct tp_irq *irq = container_of(timer, struct tp_irq, timer);
	const struct nprof_queue_id q = {
		sub_base.target_kind, sub_base.target_index, sub_base.queue_type,
		sub_base.engine
	};
	struct neuronprof_notification n = { .code = 99 };

	irq->hardirq = in_hardirq();
	irq->res = nprof_notify(irq->ndev, &q, &n, false);
	complete(&irq->done);
	return HRTIMER_NORESTART;
}

/* The producer path from hard IRQ context (lockdep checks the locking). */
static void unplug_test_notify_hardirq(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct tp_irq irq = { .ndev = ctx->ndev, .res = NPROF_NOTIFY_UNSUBSCRIBED };
	struct nprof_sub *sub;
	unsigned long left;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);

	init_completion(&irq.done);
	hrtimer_init_on_stack(&irq.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	irq.timer.function = tp_irq_fire;
	hrtimer_start(&irq.timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
	left = wait_for_completion_timeout(&irq.done, 10 * HZ);
	hrtimer_cancel(&irq.timer);
	destroy_hrtimer_on_stack(&irq.timer);

	KUNIT_ASSERT_NE(test, left, 0UL);
	KUNIT_EXPECT_TRUE(test, irq.hardirq);
	KUNIT_EXPECT_EQ(test, irq.res, NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->code, 99U);
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(sub) & EPOLLIN);
	/* And from process context with the same lock afterwards. */
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 100), NPROF_NOTIFY_DELIVERED);
}

static void unplug_test_register_rejects(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_device_desc desc = test_desc;

	KUNIT_EXPECT_EQ(test, PTR_ERR(nprof_device_alloc(NULL, &test_desc, &tp_ops, ctx)),
			-EINVAL);
	desc.num_cores = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(nprof_device_alloc(ctx->parent, &desc, &tp_ops, ctx)),
			-EINVAL);
	/* The accessors of a registered device. */
	KUNIT_EXPECT_PTR_EQ(test, nprof_device_priv(ctx->ndev), (void *)ctx);
	KUNIT_EXPECT_EQ(test, nprof_device_desc(ctx->ndev)->num_topsps, test_desc.num_topsps);
	KUNIT_EXPECT_STREQ(test, nprof_device_desc(ctx->ndev)->provider, "kunit");
	KUNIT_EXPECT_PTR_NE(test, nprof_device_desc(ctx->ndev)->provider, test_desc.provider);
}

/*
 * An allocated device is invisible until published: no render node, no op
 * called, producers harmless; dropped unpublished, it takes its index along.
 */
static void unplug_test_alloc_unpublished(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_device *ndev;
	int index;

	ndev = nprof_device_alloc(ctx->parent, &test_desc, &tp_ops, ctx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ndev);
	KUNIT_EXPECT_PTR_EQ(test, nprof_device_priv(ndev), (void *)ctx);
	KUNIT_EXPECT_FALSE(test, ndev->published);
	KUNIT_EXPECT_FALSE(test, drm_dev_is_unplugged(&ndev->drm));
	KUNIT_EXPECT_TRUE(test, !ndev->drm.render || !ndev->drm.render->kdev ||
			  !device_is_registered(ndev->drm.render->kdev));
	KUNIT_EXPECT_EQ(test, tp_notify(ndev, &sub_base, 1), NPROF_NOTIFY_UNSUBSCRIBED);
	index = ndev->index;
	nprof_device_free(ndev);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->flushes), 0);

	/* Published, the same parent gets a render node and the index again. */
	ndev = tp_register(ctx->parent, &test_desc, &tp_ops, ctx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ndev);
	KUNIT_EXPECT_TRUE(test, ndev->published);
	KUNIT_EXPECT_EQ(test, ndev->index, index);
	KUNIT_EXPECT_TRUE(test, ndev->drm.render && device_is_registered(ndev->drm.render->kdev));
	nprof_device_unregister(ndev);
}

/* read(): claims copy under the lock and never hand out an entry twice. */
static void unplug_test_read_claim(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct neuronprof_notification buf[4];
	struct nprof_sub *sub;
	u64 start, len;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_EQ(test, nprof_sub_read_claim(sub, buf, sizeof(buf), &start), 0ULL);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 10), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 11), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 12), NPROF_NOTIFY_DELIVERED);

	/* Two claims in flight take disjoint entries. */
	len = nprof_sub_read_claim(sub, buf, 2 * NPROF_ENTRY_SIZE, &start);
	KUNIT_EXPECT_EQ(test, len, 2 * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, start, 0ULL);
	KUNIT_EXPECT_EQ(test, buf[0].code, 10U);
	KUNIT_EXPECT_EQ(test, buf[1].code, 11U);
	len = nprof_sub_read_claim(sub, &buf[2], 2 * NPROF_ENTRY_SIZE, &start);
	KUNIT_EXPECT_EQ(test, len, (u64)NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, start, 2 * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, buf[2].code, 12U);

	/* The later claim failed: given back, the entry is read again. */
	nprof_sub_read_commit(sub, start, len, false);
	KUNIT_EXPECT_EQ(test, sub->read_pos, 2 * NPROF_ENTRY_SIZE);
	nprof_sub_read_commit(sub, 0, 2 * NPROF_ENTRY_SIZE, true);
	KUNIT_EXPECT_EQ(test, sub->ring.cons, 2 * NPROF_ENTRY_SIZE);

	/*
	 * A release (NQ_DRAIN or the consumer page) past a claim: the claim's
	 * copy is already safe in its buffer, its commit does not move the
	 * consumer back, and the next claim starts at the new consumer.
	 */
	len = nprof_sub_read_claim(sub, buf, sizeof(buf), &start);
	KUNIT_EXPECT_EQ(test, len, (u64)NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, buf[0].code, 12U);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 13), NPROF_NOTIFY_DELIVERED);
	nprof_ring_consume(&sub->ring, 4 * NPROF_ENTRY_SIZE);
	nprof_sub_read_commit(sub, start, len, true);
	KUNIT_EXPECT_EQ(test, sub->ring.cons, 4 * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, nprof_sub_read_claim(sub, buf, sizeof(buf), &start), 0ULL);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 14), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, nprof_sub_read_claim(sub, buf, sizeof(buf), &start),
			(u64)NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, start, 4 * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, buf[0].code, 14U);
}

/* The fault handler's pages: the buffer's own, nothing past it. */
static void unplug_test_fault_pages(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_sub *sub;
	struct page *page;
	pgoff_t pg, pages;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	pages = NPROF_DATA_PGOFF + sub_base.ring_size / PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, sub->mem_size, (u64)pages * PAGE_SIZE);
	for (pg = 0; pg < pages; pg++) {
		page = NULL;
		KUNIT_EXPECT_EQ(test, nprof_sub_fault_page(sub, pg, &page), (vm_fault_t)0);
		KUNIT_EXPECT_PTR_EQ(test, page, vmalloc_to_page(sub->mem + pg * PAGE_SIZE));
	}
	KUNIT_EXPECT_EQ(test, nprof_sub_fault_page(sub, pages, &page), VM_FAULT_SIGBUS);
	KUNIT_EXPECT_EQ(test, nprof_sub_fault_page(sub, ULONG_MAX, &page), VM_FAULT_SIGBUS);
}

/* A ring is charged to its subscriber's user while it exists. */
static void unplug_test_ring_charged(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct user_struct *user = current_user();
	long before = atomic_long_read(&user->locked_vm);
	u64 pages = NPROF_DATA_PGOFF + sub_base.ring_size / PAGE_SIZE;
	struct nprof_sub *sub;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_PTR_EQ(test, sub->charge.user, user);
	KUNIT_EXPECT_EQ(test, sub->charge.user_pages + sub->charge.pinned_pages, pages);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->locked_vm) - before,
			(long)sub->charge.user_pages);
	/* A busy queue is refused before anything is allocated or charged. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(tp_subscribe(test, ctx->ndev, &sub_base)), -EBUSY);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->locked_vm) - before,
			(long)sub->charge.user_pages);
	tp_unsubscribe(test, sub);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->locked_vm), before);
}

/* nprof_charge_split(): the allowance first, the rest against the rlimit. */
static void unplug_test_charge_split(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, nprof_charge_split(0, 10, 100), 0ULL);
	KUNIT_EXPECT_EQ(test, nprof_charge_split(95, 10, 100), 5ULL);
	KUNIT_EXPECT_EQ(test, nprof_charge_split(90, 10, 100), 0ULL);
	KUNIT_EXPECT_EQ(test, nprof_charge_split(100, 10, 100), 10ULL);
	/* Over an allowance that was lowered: nothing more from it. */
	KUNIT_EXPECT_EQ(test, nprof_charge_split(150, 10, 100), 10ULL);
	KUNIT_EXPECT_EQ(test, nprof_charge_split(0, 10, 0), 10ULL);
	KUNIT_EXPECT_EQ(test, nprof_charge_split(0, 0, 0), 0ULL);
}

static struct kunit_case unplug_cases[] = {
	KUNIT_CASE(unplug_test_subscribe_notify_release),
	KUNIT_CASE(unplug_test_one_subscriber),
	KUNIT_CASE(unplug_test_start_error),
	KUNIT_CASE(unplug_test_live_subscription),
	KUNIT_CASE(unplug_test_parent_gone_first),
	KUNIT_CASE(unplug_test_drain),
	KUNIT_CASE(unplug_test_drain_no_flush),
	KUNIT_CASE(unplug_test_flushed_wakes),
	KUNIT_CASE(unplug_test_notify_hardirq),
	KUNIT_CASE(unplug_test_register_rejects),
	KUNIT_CASE(unplug_test_alloc_unpublished),
	KUNIT_CASE(unplug_test_read_claim),
	KUNIT_CASE(unplug_test_fault_pages),
	KUNIT_CASE(unplug_test_ring_charged),
	KUNIT_CASE(unplug_test_charge_split),
	{}
};

static struct kunit_suite unplug_suite = {
	.name = "neuronprof_unplug",
	.init = unplug_init,
	.exit = unplug_exit,
	.test_cases = unplug_cases,
};

kunit_test_suites(&ring_suite, &subscribe_suite, &device_suite, &unplug_suite);

MODULE_DESCRIPTION("KUnit tests of the neuronprof core");
MODULE_LICENSE("GPL");
