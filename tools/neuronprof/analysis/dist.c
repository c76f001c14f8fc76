// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the building blocks of a recording's statistics
 * (summary_internal.h): a distribution of durations, a growing list of
 * values, the longest idle gaps kept in order.
 */
#include <string.h>

#include "analysis/summary_internal.h"
#include "util/util.h"

void dist_of(struct dist *d, uint64_t *v, size_t n)
{
	memset(d, 0, sizeof(*d));
	if (!n)
		return;
	sort_u64(v, n);
	d->count = n;
	for (size_t i = 0; i < n; i++)
		d->total += v[i];
	d->min = v[0];
	d->max = v[n - 1];
	d->avg = d->total / n;
	d->median = percentile(v, n, 50);
	d->p95 = percentile(v, n, 95);
	d->p99 = percentile(v, n, 99);
}

void push_u64(uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
	*v = xgrow(*v, *n, cap, sizeof(**v));
	(*v)[(*n)++] = x;
}

/* The longest @t->max gaps, kept sorted longest first. */
void gap_add(struct top_gaps *t, uint64_t start, uint64_t end)
{
	uint64_t len = end - start;
	size_t i;

	if (!t->max || end <= start)
		return;
	if (!t->g)
		t->g = xcalloc(t->max, sizeof(*t->g));
	if (t->n == t->max && len <= t->g[t->n - 1].end - t->g[t->n - 1].start)
		return;
	if (t->n < t->max)
		t->n++;
	/* Insertion from the end; equal lengths keep time order. */
	for (i = t->n - 1; i > 0 && t->g[i - 1].end - t->g[i - 1].start < len; i--)
		t->g[i] = t->g[i - 1];
	t->g[i] = (struct idle_gap){ .start = start, .end = end };
}
