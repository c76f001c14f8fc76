/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the statistics of a recording over time, for `report`
 * (Documentation/analysis.rst, "Over time"): each core's active span cut
 * into buckets of equal width, and per bucket the busy time of each engine
 * and TopSP, its DMA bytes, the sequence gaps seen and the throttle level.
 *
 * The numbers come from the same timing model as summary (timing.h): an
 * instruction's duration is instr_end()'s, and is split over the buckets
 * it overlaps, so the busy time of a unit over all its buckets is exactly
 * its busy_ns in summary.
 */
#ifndef NEURONPROF_TOOL_TIMELINE_H
#define NEURONPROF_TOOL_TIMELINE_H

#include <stdint.h>

#include "analysis/summary.h"
#include "util/progress.h"

struct unit_timeline {
	uint64_t *busy;			/* ns per bucket */
	uint64_t *dma_bytes;		/* DMA payload bytes per bucket */
};

struct core_timeline {
	uint64_t t0;			/* the core's first timestamp */
	uint64_t width;			/* ns per bucket, at least 1 */
	size_t nb;			/* buckets: t0 + nb * width > the core's last */
	struct unit_timeline *units;	/* as core_stats.units */
	size_t nunits;
	uint64_t *gaps;			/* sequence gaps seen, at the entry after each */
	uint32_t *throttle;		/* highest level in effect in the bucket */
	uint64_t *exec_starts;		/* executions starting in the bucket */
};

struct rec_timeline {
	struct core_timeline *cores;	/* as rec_stats.cores */
	size_t ncores;
};

/*
 * rec_timeline_build() - the timeline of @s (built by rec_stats_build()
 * for the same recording), at most @nbuckets buckets per core: a second
 * pass over the decoded queues (raw ones carry nothing to plot).
 */
void rec_timeline_build(struct rec_timeline *tl, const struct rec_stats *s, size_t nbuckets,
			struct progress *pg, uint64_t *done);
void rec_timeline_free(struct rec_timeline *tl);

/* Which bucket @ts falls in (clamped to the core's buckets). */
static inline size_t timeline_bucket(const struct core_timeline *t, uint64_t ts)
{
	uint64_t b = ts <= t->t0 ? 0 : (ts - t->t0) / t->width;

	return b >= t->nb ? t->nb - 1 : (size_t)b;
}

#endif /* NEURONPROF_TOOL_TIMELINE_H */
