// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_ring: ring arithmetic, wrap-around, overflow and
 * lost accounting, watermark wakeups and hostile consumer positions.
 */

#include "neuronprof_test_util.h"

static const struct nprof_queue_id ring_test_q = {
	.kind = NEURONPROF_TARGET_CORE,
	.index = 1,
	.type = NEURONPROF_QT_DMA,
	.engine = 3,
};

static struct nprof_kring *ring_new(struct kunit *test, u64 size, u32 watermark)
{
	struct nprof_kring *ring;
	void *mem;

	ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ring);
	mem = kunit_kzalloc(test, NPROF_DATA_PGOFF * PAGE_SIZE + size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	nprof_kring_init(ring, mem, size, watermark, &ring_test_q);
	return ring;
}

static enum nprof_notify_result ring_put(struct nprof_kring *ring, u32 code,
					 bool force_lost, bool *wake)
{
	struct neuronprof_notification n = { .code = code, .timestamp_ns = code };
	bool ignored;

	return nprof_kring_produce(ring, &n, force_lost, wake ? wake : &ignored);
}

/* What a userspace consumer does after reading its entries. */
static void ring_user_consume(struct nprof_kring *ring, u64 pos)
{
	/* D: pairs with A in nprof_kring_sync_consumer(). */
	smp_store_release(&ring->cons_page->consumer_pos, pos);
}

static void ring_test_init_header(struct kunit *test)
{
	struct nprof_kring *ring = ring_new(test, 2 * PAGE_SIZE, 0);
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
	struct nprof_kring *ring = ring_new(test, PAGE_SIZE, 0);
	u64 cap = PAGE_SIZE / ENTRY, i;
	struct neuronprof_notification n = { .code = 0xdead };
	bool wake;

	for (i = 0; i < cap; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, i, false, NULL), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, ring->prod, (u64)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ring->hdr->producer_pos), (u64)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, nprof_kring_unread(ring), (u64)PAGE_SIZE);

	/* Full: the next one is lost, and nothing unread is overwritten. */
	KUNIT_EXPECT_EQ(test, nprof_kring_produce(ring, &n, false, &wake), NPROF_NOTIFY_LOST);
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
	struct nprof_kring *ring = ring_new(test, PAGE_SIZE, 0);
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
	struct nprof_kring *ring = ring_new(test, PAGE_SIZE, 0);
	u64 cap = PAGE_SIZE / ENTRY, i;
	struct neuronprof_notification n = {};
	bool wake;

	for (i = 0; i < cap; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, 0, false, NULL), NPROF_NOTIFY_DELIVERED);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, 0, false, NULL), NPROF_NOTIFY_LOST);
	ring_user_consume(ring, ring->prod);
	KUNIT_ASSERT_EQ(test, nprof_kring_produce(ring, &n, false, &wake),
			NPROF_NOTIFY_DELIVERED);
	/* The gap between the last two delivered entries is the 3 lost. */
	KUNIT_EXPECT_EQ(test, n.seq, cap + 3);
	KUNIT_EXPECT_EQ(test, ring_at(ring, ring->prod - ENTRY)->seq, cap + 3);
	KUNIT_EXPECT_EQ(test, ring_at(ring, ring->prod - 2 * ENTRY)->seq, cap - 1);
	KUNIT_EXPECT_EQ(test, ring->lost, 3ULL);
}

static void ring_test_force_lost(struct kunit *test)
{
	struct nprof_kring *ring = ring_new(test, PAGE_SIZE, 0);

	KUNIT_EXPECT_EQ(test, ring_put(ring, 1, true, NULL), NPROF_NOTIFY_LOST);
	KUNIT_EXPECT_EQ(test, ring->prod, 0ULL);
	KUNIT_EXPECT_EQ(test, ring->lost, 1ULL);
	KUNIT_EXPECT_TRUE(test, ring->flags & NEURONPROF_RING_OVERFLOWED);
	KUNIT_EXPECT_EQ(test, ring_put(ring, 2, false, NULL), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, ring_at(ring, 0)->seq, 1ULL);
}

/*
 * One ring_put() per character of @wakes, each expected to wake readers
 * ('1') or not ('0').
 */
static void ring_expect_wakes(struct kunit *test, struct nprof_kring *ring, const char *wakes)
{
	const char *c;
	bool wake, want;

	for (c = wakes; *c; c++) {
		want = *c == '1';
		ring_put(ring, 0, false, &wake);
		KUNIT_EXPECT_EQ_MSG(test, wake, want, "entry %td of \"%s\"", c - wakes, wakes);
	}
}

static void ring_test_watermark_crossing(struct kunit *test)
{
	struct nprof_kring *ring = ring_new(test, PAGE_SIZE, 3 * ENTRY);

	/* The third entry reaches the watermark; above it, readers were woken once. */
	ring_expect_wakes(test, ring, "0010");
	/* Once the consumer caught up, crossing again wakes again. */
	ring_user_consume(ring, ring->prod);
	ring_expect_wakes(test, ring, "001");
}

static void ring_test_watermark_zero(struct kunit *test)
{
	ring_expect_wakes(test, ring_new(test, PAGE_SIZE, 0), "10");
}

static void ring_test_consumer_valid(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, nprof_kring_consumer_valid(0, 0, 0));
	KUNIT_EXPECT_TRUE(test, nprof_kring_consumer_valid(0, ENTRY, 2 * ENTRY));
	KUNIT_EXPECT_TRUE(test, nprof_kring_consumer_valid(0, 2 * ENTRY, 2 * ENTRY));
	KUNIT_EXPECT_FALSE(test, nprof_kring_consumer_valid(0, 3 * ENTRY, 2 * ENTRY));
	KUNIT_EXPECT_FALSE(test, nprof_kring_consumer_valid(ENTRY, 0, 2 * ENTRY));
	KUNIT_EXPECT_FALSE(test, nprof_kring_consumer_valid(0, 1, 2 * ENTRY));
	KUNIT_EXPECT_FALSE(test, nprof_kring_consumer_valid(0, ENTRY - 1, 2 * ENTRY));
}

/* Positions are free-running: they stay right across 2^64. */
static void ring_test_consumer_valid_wraparound(struct kunit *test)
{
	u64 last = U64_MAX - ENTRY + 1;		/* entry-aligned */
	u64 prod = last + 2 * ENTRY;		/* wrapped to ENTRY */

	KUNIT_ASSERT_EQ(test, prod, ENTRY);
	KUNIT_EXPECT_TRUE(test, nprof_kring_consumer_valid(last, last, prod));
	KUNIT_EXPECT_TRUE(test, nprof_kring_consumer_valid(last, 0, prod));
	KUNIT_EXPECT_TRUE(test, nprof_kring_consumer_valid(last, ENTRY, prod));
	KUNIT_EXPECT_FALSE(test, nprof_kring_consumer_valid(last, 2 * ENTRY, prod));
	KUNIT_EXPECT_FALSE(test, nprof_kring_consumer_valid(last, last - ENTRY, prod));
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
	struct nprof_kring *ring = ring_new(test, PAGE_SIZE, 0);
	u64 valid = 4 * ENTRY, i;

	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, i, false, NULL), NPROF_NOTIFY_DELIVERED);
	ring_user_consume(ring, valid);
	nprof_kring_sync_consumer(ring);
	KUNIT_ASSERT_EQ(test, ring->cons, valid);
	KUNIT_ASSERT_FALSE(test, ring->flags & NEURONPROF_RING_BAD_CONSUMER);

	ring_user_consume(ring, c->relative ? valid + c->value : c->value);
	nprof_kring_sync_consumer(ring);
	KUNIT_EXPECT_EQ(test, ring->cons, valid);
	KUNIT_EXPECT_TRUE(test, ring->flags & NEURONPROF_RING_BAD_CONSUMER);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(ring->hdr->flags) & NEURONPROF_RING_BAD_CONSUMER);

	/* The producer keeps going on the last valid position... */
	KUNIT_EXPECT_EQ(test, ring_put(ring, 10, false, NULL), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, ring->cons, valid);
	/* ...and a valid store is believed again. */
	ring_user_consume(ring, ring->prod);
	nprof_kring_sync_consumer(ring);
	KUNIT_EXPECT_EQ(test, ring->cons, ring->prod);
}

/* No consumer value, however wild, makes the producer overwrite unread data. */
static void ring_test_hostile_consumer_cannot_free_space(struct kunit *test)
{
	const u64 wild[] = { PAGE_SIZE * 2, PAGE_SIZE + ENTRY, U64_MAX & ~(ENTRY - 1),
			     1ULL << 63, 1 };
	struct nprof_kring *ring = ring_new(test, PAGE_SIZE, 0);
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
	struct nprof_kring *ring = ring_new(test, PAGE_SIZE, 0);
	u64 i;

	for (i = 0; i < 6; i++)
		KUNIT_ASSERT_EQ(test, ring_put(ring, i, false, NULL), NPROF_NOTIFY_DELIVERED);
	nprof_kring_consume(ring, 2 * ENTRY);
	KUNIT_EXPECT_EQ(test, ring->cons, 2 * ENTRY);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ring->cons_page->consumer_pos), 2 * ENTRY);
	/* Backwards, past the producer or misaligned: ignored. */
	nprof_kring_consume(ring, ENTRY);
	KUNIT_EXPECT_EQ(test, ring->cons, 2 * ENTRY);
	nprof_kring_consume(ring, 7 * ENTRY);
	KUNIT_EXPECT_EQ(test, ring->cons, 2 * ENTRY);
	nprof_kring_consume(ring, 3 * ENTRY + 1);
	KUNIT_EXPECT_EQ(test, ring->cons, 2 * ENTRY);
	/* Userspace moved on meanwhile: the kernel does not move it back. */
	ring_user_consume(ring, 5 * ENTRY);
	nprof_kring_consume(ring, 3 * ENTRY);
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
	struct nprof_kring *ring = ring_new(test, PAGE_SIZE, 0);
	u32 cap = PAGE_SIZE / ENTRY, i, delivered;
	struct neuronprof_notification *n;
	bool wake;

	n = kunit_kcalloc(test, 2 * cap, sizeof(*n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, n);
	for (i = 0; i < 2 * cap; i++)
		n[i].code = 1000 + i;

	/* Three quarters in, half consumed: the next batch wraps. */
	nprof_kring_produce_batch(ring, n, cap * 3 / 4, false, &delivered, &wake);
	KUNIT_EXPECT_EQ(test, delivered, cap * 3 / 4);
	KUNIT_EXPECT_TRUE(test, wake);
	ring_user_consume(ring, cap / 2 * ENTRY);

	nprof_kring_produce_batch(ring, n, cap, false, &delivered, &wake);
	KUNIT_EXPECT_EQ(test, delivered, cap - cap / 4);	/* the room left */
	KUNIT_EXPECT_FALSE(test, wake);		/* it was above the watermark */
	KUNIT_EXPECT_EQ(test, ring->lost, (u64)(cap - delivered));
	KUNIT_EXPECT_EQ(test, READ_ONCE(ring->hdr->lost), ring->lost);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(ring->hdr->flags) & NEURONPROF_RING_OVERFLOWED);
	KUNIT_EXPECT_EQ(test, ring->seq, (u64)(cap * 3 / 4 + cap));
	KUNIT_EXPECT_EQ(test, READ_ONCE(ring->hdr->producer_pos), ring->prod);
	KUNIT_EXPECT_EQ(test, nprof_kring_unread(ring), (u64)PAGE_SIZE);
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
	nprof_kring_produce_batch(ring, NULL, 5, false, &delivered, &wake);
	KUNIT_EXPECT_EQ(test, delivered, 0U);
	KUNIT_EXPECT_EQ(test, ring->seq, (u64)(cap * 3 / 4 + cap + 5));
	KUNIT_EXPECT_EQ(test, ring->lost, (u64)(cap / 4 + 5));
}

/* A batch with force_lost delivers nothing and counts everything. */
static void ring_test_batch_force_lost(struct kunit *test)
{
	struct nprof_kring *ring = ring_new(test, PAGE_SIZE, 0);
	struct neuronprof_notification n[3] = {};
	u32 delivered;
	bool wake;

	nprof_kring_produce_batch(ring, n, 3, true, &delivered, &wake);
	KUNIT_EXPECT_EQ(test, delivered, 0U);
	KUNIT_EXPECT_FALSE(test, wake);
	KUNIT_EXPECT_EQ(test, ring->lost, 3ULL);
	KUNIT_EXPECT_EQ(test, ring->prod, 0ULL);
	nprof_kring_produce_batch(ring, n, 3, false, &delivered, &wake);
	KUNIT_EXPECT_EQ(test, delivered, 3U);
	KUNIT_EXPECT_EQ(test, ring_at(ring, 0)->seq, 3ULL);
}

struct kunit_case nprof_ring_cases[] = {
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
