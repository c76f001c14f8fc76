/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): what the two halves of a recording's statistics share:
 * the pass over the entries (summary.c), which calls the finish once every
 * entry is in (summary_finish.c), and the building blocks both use
 * (dist.c).
 */
#ifndef NEURONPROF_TOOL_SUMMARY_INTERNAL_H
#define NEURONPROF_TOOL_SUMMARY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/summary.h"

/* @d: the distribution of the @n values @v (sorted in place). */
void dist_of(struct dist *d, uint64_t *v, size_t n);

/* Append @x to *@v (*@n values, room for *@cap). */
void push_u64(uint64_t **v, size_t *n, size_t *cap, uint64_t x);

/* The idle gap [@start, @end) into @t, which keeps the longest, longest first. */
void gap_add(struct top_gaps *t, uint64_t start, uint64_t end);

/*
 * rec_stats_finish() - once every entry of @s is in: cores in order, each
 * core's and unit's numbers, the ops across cores, the models and the host
 * trace.
 */
void rec_stats_finish(struct rec_stats *s);

#endif
