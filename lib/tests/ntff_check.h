/* SPDX-License-Identifier: MIT */
/*
 * Checks of a profile's queues for the capture tests. A streamed capture
 * writes each queue's entries as they come, so a queue may have several
 * records, in file order; these checks take a queue as all of its records.
 */
#ifndef NPROF_TEST_NTFF_CHECK_H
#define NPROF_TEST_NTFF_CHECK_H

#include <stdlib.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#include "harness.h"

static inline int ntff_same_queue(const struct nprof_ntff_queue *a, const struct nprof_ntff_queue *b)
{
	return a->queue_type == b->queue_type && a->target_kind == b->target_kind &&
	       a->target_index == b->target_index && a->engine == b->engine;
}

/*
 * Every queue of the file at @path holds @entries entries with sequence
 * numbers @first, @first + 1, ... across its records (so none is missing,
 * repeated or out of order) and @lost losses in all. Return: the number of
 * distinct queues.
 */
static inline int ntff_check_queues(const char *path, uint64_t entries, uint64_t first,
				    uint64_t lost)
{
	struct nprof_ntff_reader *r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	struct nprof_ntff_queue *qs;
	int i, j, n, nqueues = 0, bad = 0;

	CHECK(r != NULL);
	if (!r)
		return 0;
	n = nprof_ntff_reader_queue_count(r);
	qs = calloc((size_t)(n > 0 ? n : 1), sizeof(*qs));
	CHECK(qs != NULL);
	for (i = 0; qs && i < n; i++) {
		qs[i].size = sizeof(qs[i]);
		CHECK_INT(nprof_ntff_reader_queue(r, (size_t)i, &qs[i]), 0);
	}
	for (i = 0; qs && i < n; i++) {
		uint64_t seq = first, count = 0, lost_sum = 0;

		for (j = 0; j < i && !ntff_same_queue(&qs[j], &qs[i]); j++)
			;
		if (j < i)
			continue;	/* a later record of a queue already checked */
		nqueues++;
		for (j = i; j < n; j++) {
			const struct neuronprof_notification *e;
			struct nprof_ntff_entry_iter it;

			if (!ntff_same_queue(&qs[j], &qs[i]))
				continue;
			count += qs[j].entry_count;
			lost_sum += qs[j].lost_count;
			nprof_ntff_entry_iter_init(&it, &qs[j]);
			while ((e = nprof_ntff_entry_iter_next(&it)))
				bad += e->seq != seq++;
		}
		CHECK_INT(count, entries);
		CHECK_INT(lost_sum, lost);
		CHECK_INT(seq - first, entries);
	}
	CHECK_INT(bad, 0);
	free(qs);
	nprof_ntff_reader_close(r);
	return nqueues;
}

#endif /* NPROF_TEST_NTFF_CHECK_H */
