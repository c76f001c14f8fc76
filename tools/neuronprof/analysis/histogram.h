/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): histograms of a model's execution latencies or host
 * overheads (histogram.c), as report draws and embeds them.
 */
#ifndef NEURONPROF_TOOL_HISTOGRAM_H
#define NEURONPROF_TOOL_HISTOGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/summary.h"

#define HIST_BINS	20

struct hist {
	uint64_t lo, width;		/* bin i: [lo + i * width, lo + (i + 1) * width) */
	size_t nb;
	uint64_t counts[HIST_BINS];
};

/* @h: the @n values @v in at most HIST_BINS bins of one width from their minimum. */
void hist_of(struct hist *h, const uint64_t *v, size_t n);

/*
 * The device latencies (or host overheads, @overhead) of @model's
 * executions in @s, *@n of them (allocated).
 */
uint64_t *model_values(const struct rec_stats *s, uint32_t model, bool overhead, size_t *n);

#endif
