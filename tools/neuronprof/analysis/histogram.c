// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the histograms of histogram.h.
 */
#include <string.h>

#include "analysis/histogram.h"
#include "util/util.h"

void hist_of(struct hist *h, const uint64_t *v, size_t n)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	memset(h, 0, sizeof(*h));
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	h->nb = n < HIST_BINS ? n : HIST_BINS;
	h->lo = lo;
	h->width = (hi - lo) / h->nb + 1;
	for (size_t i = 0; i < n; i++)
		h->counts[(v[i] - lo) / h->width]++;
}

/* The device latencies (or host overheads, @overhead) of @model's executions. */
uint64_t *model_values(const struct rec_stats *s, uint32_t model, bool overhead,
			      size_t *n)
{
	uint64_t *v = NULL;
	size_t k = 0, cap = 0;

	for (size_t c = 0; c < s->timing.ncores; c++)
		for (size_t i = 0; i < s->timing.cores[c].nexec; i++) {
			const struct execution *x = &s->timing.cores[c].exec[i];
			uint64_t dev = x->stop - x->start, host;

			if (x->model_id != model || (overhead && !x->host))
				continue;
			v = xgrow(v, k, &cap, sizeof(*v));
			if (overhead) {
				host = x->host->end_ns > x->host->start_ns ?
				       x->host->end_ns - x->host->start_ns : 0;
				v[k++] = host > dev ? host - dev : 0;
			} else {
				v[k++] = dev;
			}
		}
	*n = k;
	return v;
}
