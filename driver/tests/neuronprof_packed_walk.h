/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit helpers of the neuron.ko provider's suites: a subscription's ring
 * of packed raw records read back as the 32-byte parts it carries.
 */
#ifndef NEURONPROF_PACKED_WALK_H
#define NEURONPROF_PACKED_WALK_H

#include <kunit/test.h>
#include <linux/string.h>

#include "core/neuronprof_core.h"

/*
 * The ring holds packed raw records (uapi NEURONPROF_RAW_PACKED). Part @i
 * of the bytes the records from ring position @from on delivered, as the
 * unpacked raw entry of uapi 4 that carried those 32 bytes: seq, code,
 * model_id, iteration (device entry index) and payload, into @e; false
 * past the last. Fillers are skipped; a bad header fails the test.
 */
static inline bool nn_part(struct kunit *test, struct nprof_sub *sub, u64 from, u64 i,
			   struct neuronprof_notification *e)
{
	struct nprof_kring *ring = &sub->ring;
	u64 pos = from, seqs;
	u32 bytes, es, parts, k;

	while (pos < ring->prod) {
		const struct neuronprof_notification *h =
			(const void *)(ring->data + (pos & (ring->size - 1)));

		KUNIT_EXPECT_EQ(test, h->code, NEURONPROF_RAW_PACKED);
		if (h->code != NEURONPROF_RAW_PACKED)
			return false;
		bytes = NEURONPROF_RAW_PACKED_BYTES(h->payload[1]);
		es = NEURONPROF_RAW_PACKED_ENTRY_SIZE(h->payload[1]);
		seqs = NEURONPROF_RAW_PACKED_SEQS(bytes);
		if (i < seqs) {
			parts = es / NEURONPROF_RAW_BYTES_PER_ENTRY;
			k = i % parts;
			*e = *h;
			e->seq = h->seq + i;
			e->code = NEURONPROF_RAW_CODE(NEURONPROF_RAW_BYTES_PER_ENTRY, k, parts);
			e->iteration = (u32)(h->payload[0] + i / parts);
			memcpy(e->payload, (const u8 *)(h + 1) + i * NEURONPROF_RAW_BYTES_PER_ENTRY,
			       NEURONPROF_RAW_BYTES_PER_ENTRY);
			return true;
		}
		i -= seqs;
		pos += NEURONPROF_RAW_PACKED_SLOTS(bytes) * NPROF_ENTRY_SIZE;
	}
	return false;
}

/* 32-byte parts the records from ring position @from on delivered. */
static inline u64 nn_parts(struct kunit *test, struct nprof_sub *sub, u64 from)
{
	struct neuronprof_notification e;
	u64 n = 0;

	while (nn_part(test, sub, from, n, &e))
		n++;
	return n;
}

#endif /* NEURONPROF_PACKED_WALK_H */
