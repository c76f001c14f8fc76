// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_packed: packed raw records (uapi
 * NEURONPROF_RAW_PACKED) made by the provider's real head write on the
 * fake neuron.ko, and the core's fan-out of them to several subscriptions
 * of one queue: each ring holds records of whole device entries with its
 * own sequence numbers, split in two where its room stops at the end of
 * its data area, fillers where not one device entry fits there, and a
 * full ring loses only its own share, counted in sequence numbers (one
 * per 32 device bytes).
 */

#include <kunit/test.h>
#include <linux/err.h>

#include "neuronprof_neuron_test_util.h"

/* A device with entries of @es bytes; @n subscriptions of core 0's TRACE queue of engine 0. */
static void np_setup(struct kunit *test, u32 es, const u64 *ring_sizes, int n)
{
	struct drm_neuronprof_nq_subscribe args = {
		.target_kind = NEURONPROF_TARGET_CORE, .queue_type = NEURONPROF_QT_TRACE,
	};
	struct nprof_drmdev *ndev = nn_format_device(test, es, NPROF_NN_HEAD_RING_ENTRIES);
	int i;

	KUNIT_EXPECT_TRUE(test, nprof_device_desc(ndev)->caps & NEURONPROF_CAP_RAW_PACKED);
	for (i = 0; i < n; i++) {
		args.ring_size = ring_sizes[i];
		nn_subscribe(test, ndev, &args);
	}
}

/* What a ring's records say, walked from position @from to the producer. */
struct np_walk {
	u64 records, fillers, parts, entries, gaps;
	u64 next_index;		/* device entry after the last delivered */
	bool bad;
};

/*
 * Walk @sub's ring from @from: every record's header and bytes checked
 * against fake queue @q's device entries of @es bytes (entry i:
 * NPROF_FAKE_WORD0(q, i), then bytes (i + offset) & 0xff), every seq after
 * the last one's (a gap is a loss), device entries in order from @index0.
 */
static void np_walk(struct kunit *test, struct nprof_sub *sub, int q, u32 es, u64 from,
		    u64 seq0, u64 index0, struct np_walk *w)
{
	struct nprof_kring *ring = &sub->ring;
	const u32 parts = es / NEURONPROF_RAW_BYTES_PER_ENTRY;
	u64 pos = from, seq = seq0, i, j, slots;
	u32 bytes;

	*w = (struct np_walk){ .next_index = index0 };
	while (pos < ring->prod && !w->bad) {
		const struct neuronprof_notification *h =
			(const void *)(ring->data + (pos & (ring->size - 1)));
		const u8 *b = (const u8 *)(h + 1);

		bytes = NEURONPROF_RAW_PACKED_BYTES(h->payload[1]);
		slots = NEURONPROF_RAW_PACKED_SLOTS(bytes);
		if (h->code != NEURONPROF_RAW_PACKED ||
		    h->model_id != NEURONPROF_RAW_FORMAT_NEURON_V2 ||
		    h->queue_type != NEURONPROF_QT_TRACE || h->payload[2] || h->payload[3] ||
		    (pos & (ring->size - 1)) + slots * NPROF_ENTRY_SIZE > ring->size) {
			KUNIT_FAIL(test, "bad header at ring position %llu", pos);
			w->bad = true;
			break;
		}
		pos += slots * NPROF_ENTRY_SIZE;
		if (!bytes) {
			w->fillers++;
			continue;
		}
		KUNIT_EXPECT_EQ(test, NEURONPROF_RAW_PACKED_ENTRY_SIZE(h->payload[1]), es);
		KUNIT_EXPECT_EQ(test, bytes % es, 0U);
		KUNIT_EXPECT_GE(test, h->seq, seq);
		KUNIT_EXPECT_GE(test, h->payload[0], w->next_index);
		KUNIT_EXPECT_EQ(test, h->iteration, (u32)h->payload[0]);
		/* The seq gap is what was lost: 32-byte parts of the skipped entries. */
		KUNIT_EXPECT_EQ(test, h->seq - seq, (h->payload[0] - w->next_index) * parts);
		w->gaps += h->seq - seq;
		for (i = 0; i < bytes / es; i++) {
			u64 idx = h->payload[0] + i;
			u64 w0;

			memcpy(&w0, b + i * es, sizeof(w0));
			if (w0 != NPROF_FAKE_WORD0(q, idx)) {
				KUNIT_FAIL(test, "record at seq %llu: entry %llu has word 0 %llx",
					   h->seq, idx, w0);
				w->bad = true;
				break;
			}
			for (j = 8; j < es; j++)
				if (b[i * es + j] != (u8)(idx + j)) {
					KUNIT_FAIL(test, "entry %llu byte %llu differs", idx, j);
					w->bad = true;
					break;
				}
		}
		w->records++;
		w->entries += bytes / es;
		w->parts += NEURONPROF_RAW_PACKED_SEQS(bytes);
		w->next_index = h->payload[0] + bytes / es;
		seq = h->seq + NEURONPROF_RAW_PACKED_SEQS(bytes);
	}
}

/* A reader that keeps up releases everything. */
static void np_consume(struct nprof_sub *sub)
{
	/* D of Documentation/ring.rst: the consumer's release store. */
	smp_store_release(&sub->ring.cons_page->consumer_pos, sub->ring.prod);
}

/*
 * One head write is one record: a header and the consumed bytes as they
 * were, across the device ring's wrap; seq counts 32-byte parts.
 */
static void np_test_one_record(struct kunit *test)
{
	static const u64 sizes[] = { 16 * PAGE_SIZE };
	struct nn_ctx *c = test->priv;
	const struct neuronprof_notification *h;
	struct np_walk w;
	int q;

	np_setup(test, 64, sizes, 1);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 0, 64 * 64);
	nn_head_write(test, q, 50);
	nn_head_write(test, q, 30);	/* wraps the device ring of 64 */
	h = (const void *)c->sub[0]->ring.data;
	KUNIT_EXPECT_EQ(test, h->seq, 0ULL);
	KUNIT_EXPECT_EQ(test, h->payload[1], NEURONPROF_RAW_PACKED_INFO(50 * 64, 64));
	KUNIT_EXPECT_NE(test, h->timestamp_ns, 0ULL);
	h += NEURONPROF_RAW_PACKED_SLOTS(50 * 64);
	KUNIT_EXPECT_EQ(test, h->seq, 100ULL);
	KUNIT_EXPECT_EQ(test, h->payload[0], 50ULL);
	KUNIT_EXPECT_EQ(test, c->sub[0]->ring.prod, (51 + 31) * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, c->sub[0]->ring.seq, 160ULL);
	np_walk(test, c->sub[0], q, 64, 0, 0, 0, &w);
	KUNIT_EXPECT_EQ(test, w.records, 2ULL);
	KUNIT_EXPECT_EQ(test, w.entries, 80ULL);
	KUNIT_EXPECT_EQ(test, w.gaps, 0ULL);
	KUNIT_EXPECT_FALSE(test, w.bad);
}

/*
 * Three subscriptions of one queue: a large ring, a small one that wraps
 * in the middle of records, and one nobody reads. Each gets every record
 * its room takes, with its own seq; the stalled one loses only its own.
 */
static void np_test_fan_out(struct kunit *test)
{
	static const u64 sizes[] = { 64 * PAGE_SIZE, PAGE_SIZE, PAGE_SIZE };
	struct nn_ctx *c = test->priv;
	u64 produced = 0, entries = 0, from1 = 0;
	struct np_walk w;
	int q, round;

	np_setup(test, 64, sizes, 3);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 0, 64 * 64);
	for (round = 0; round < 12; round++) {
		u32 n = 7 + round * 3;	/* records of 8 to 41 ring entries */

		nn_head_write(test, q, n);
		entries += n;
		produced += 2 * n;
		/* The small ring: check what arrived since the last round, then release. */
		np_walk(test, c->sub[1], q, 64, from1, c->sub[1]->ring.seq - 2 * n, entries - n,
			&w);
		KUNIT_EXPECT_EQ(test, w.entries, (u64)n);
		KUNIT_EXPECT_FALSE(test, w.bad);
		from1 = c->sub[1]->ring.prod;
		np_consume(c->sub[1]);
		np_consume(c->sub[0]);
	}
	/* The large ring: every entry, in records as the head writes made them. */
	np_walk(test, c->sub[0], q, 64, 0, 0, 0, &w);
	KUNIT_EXPECT_EQ(test, w.entries, entries);
	KUNIT_EXPECT_EQ(test, w.records, 12ULL);
	KUNIT_EXPECT_EQ(test, c->sub[0]->ring.seq, produced);
	KUNIT_EXPECT_EQ(test, c->sub[0]->ring.lost, 0ULL);
	/* The small ring wrapped several times, splitting records, and lost nothing. */
	KUNIT_EXPECT_GT(test, c->sub[1]->ring.prod, 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, c->sub[1]->ring.seq, produced);
	KUNIT_EXPECT_EQ(test, c->sub[1]->ring.lost, 0ULL);
	KUNIT_EXPECT_FALSE(test, c->sub[1]->ring.flags & NEURONPROF_RING_OVERFLOWED);
	/* The stalled ring: the records that fit in its 64 entries, the rest lost. */
	np_walk(test, c->sub[2], q, 64, 0, 0, 0, &w);
	KUNIT_EXPECT_FALSE(test, w.bad);
	KUNIT_EXPECT_GT(test, w.entries, 0ULL);
	KUNIT_EXPECT_LE(test, c->sub[2]->ring.prod, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, c->sub[2]->ring.seq, produced);
	KUNIT_EXPECT_EQ(test, w.parts + c->sub[2]->ring.lost, produced);
	KUNIT_EXPECT_TRUE(test, c->sub[2]->ring.flags & NEURONPROF_RING_OVERFLOWED);
}

/*
 * Device entries of 256 bytes (a header and 4 ring entries at least): where
 * fewer ring entries are left before the end of the data area, they are
 * fillers and the record starts at the start, in the span's ring and in
 * the ring the fan-out copies into alike.
 */
static void np_test_fillers(struct kunit *test)
{
	static const u64 sizes[] = { PAGE_SIZE, PAGE_SIZE };
	struct nn_ctx *c = test->priv;
	const struct neuronprof_notification *h;
	struct np_walk w;
	int q, i;

	np_setup(test, 256, sizes, 2);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 0, 16 * 256);
	/* 15 entries: a record of 61 of the 64 ring entries; 3 left before the end. */
	nn_head_write(test, q, 15);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, c->sub[i]->ring.prod, 61 * NPROF_ENTRY_SIZE);
		np_consume(c->sub[i]);
	}
	nn_head_write(test, q, 2);
	for (i = 0; i < 2; i++) {
		struct nprof_kring *ring = &c->sub[i]->ring;

		/* Three fillers, then the record at the start: 64 + 9 ring entries. */
		KUNIT_EXPECT_EQ(test, ring->prod, (64 + 9) * NPROF_ENTRY_SIZE);
		h = (const void *)(ring->data + 61 * NPROF_ENTRY_SIZE);
		KUNIT_EXPECT_EQ(test, h->code, NEURONPROF_RAW_PACKED);
		KUNIT_EXPECT_EQ(test, h->payload[1], 0ULL);
		KUNIT_EXPECT_EQ(test, h[2].payload[1], 0ULL);
		h = (const void *)ring->data;
		KUNIT_EXPECT_EQ(test, h->seq, 15 * 8ULL);
		KUNIT_EXPECT_EQ(test, h->payload[0], 15ULL);
		KUNIT_EXPECT_EQ(test, h->payload[1], NEURONPROF_RAW_PACKED_INFO(2 * 256, 256));
		np_walk(test, c->sub[i], q, 256, 61 * NPROF_ENTRY_SIZE, 0, 0, &w);
		KUNIT_EXPECT_EQ(test, w.fillers, 3ULL);
		KUNIT_EXPECT_EQ(test, w.entries, 2ULL);
		KUNIT_EXPECT_EQ(test, ring->seq, 17 * 8ULL);
		KUNIT_EXPECT_EQ(test, ring->lost, 0ULL);
	}
}

/*
 * The ring the span is written in is the one with most room; a full one
 * copied into afterwards loses what it cannot take, counted in seqs, and
 * a later record after a loss starts at the right device entry.
 */
static void np_test_full_ring_loses_its_share(struct kunit *test)
{
	static const u64 sizes[] = { PAGE_SIZE, 16 * PAGE_SIZE };
	struct nn_ctx *c = test->priv;
	struct np_walk w;
	int q;

	np_setup(test, 64, sizes, 2);
	q = nn_program(test, NEURON_NQ_HOOK_NC, 0, 0, 0, 64 * 64);
	nn_head_write(test, q, 60);	/* 61 of the small ring's 64 */
	nn_head_write(test, q, 10);	/* 3 left: a header and 2 entries, 8 lost */
	KUNIT_EXPECT_EQ(test, c->sub[0]->ring.prod, 64 * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, c->sub[0]->ring.lost, 2 * 8ULL);
	np_walk(test, c->sub[0], q, 64, 0, 0, 0, &w);
	KUNIT_EXPECT_FALSE(test, w.bad);
	KUNIT_EXPECT_EQ(test, w.entries, 60ULL + 2);
	np_consume(c->sub[0]);
	nn_head_write(test, q, 5);
	KUNIT_EXPECT_EQ(test, c->sub[0]->ring.seq, 150ULL);
	np_walk(test, c->sub[0], q, 64, 64 * NPROF_ENTRY_SIZE, 124, 62, &w);
	KUNIT_EXPECT_EQ(test, w.gaps, 16ULL);
	KUNIT_EXPECT_EQ(test, w.entries, 5ULL);
	np_walk(test, c->sub[1], q, 64, 0, 0, 0, &w);
	KUNIT_EXPECT_EQ(test, w.entries, 75ULL);
	KUNIT_EXPECT_EQ(test, w.gaps, 0ULL);
	KUNIT_EXPECT_EQ(test, c->sub[1]->ring.lost, 0ULL);
}

struct kunit_case np_cases[] = {
	KUNIT_CASE(np_test_one_record),
	KUNIT_CASE(np_test_fan_out),
	KUNIT_CASE(np_test_fillers),
	KUNIT_CASE(np_test_full_ring_loses_its_share),
	{}
};
