// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): a recording's statistics over time (timeline.h). One pass
 * over the decoded queues, after rec_stats_build() has found each core's
 * span; instruction durations come from instr_end(), as in summary.c.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/timeline.h"
#include "util/util.h"

static struct core_timeline *tl_core(struct rec_timeline *tl, const struct rec_stats *s,
				     uint32_t dev, uint32_t core, const struct core_stats **cs)
{
	for (size_t i = 0; i < s->ncores; i++)
		if (s->cores[i].dev == dev && s->cores[i].core == core) {
			*cs = &s->cores[i];
			return &tl->cores[i];
		}
	return NULL;
}

/* The position of unit @topsp/@index among @c's units, or SIZE_MAX. */
static size_t unit_pos(const struct core_stats *c, bool topsp, uint32_t index)
{
	const struct unit *u = unit_find(c->units, c->nunits, sizeof(*c->units),
					 (struct unit_id){ topsp, index });

	return u ? (size_t)(u - c->units) : SIZE_MAX;
}

/* [a, b) of busy time, split over the buckets it overlaps. */
static void busy_add(const struct core_timeline *t, uint64_t *busy, uint64_t a, uint64_t b)
{
	size_t i = timeline_bucket(t, a);

	while (a < b) {
		uint64_t edge = t->t0 + (uint64_t)(i + 1) * t->width;
		uint64_t end = (i + 1 >= t->nb || b < edge) ? b : edge;

		busy[i] += end - a;
		a = end;
		i++;
	}
}

struct mark {
	uint64_t ts;
	uint32_t level;
};

static int cmp_mark(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;

	return cmp_int(x->ts, y->ts);
}

static void add_queue(struct rec_timeline *tl, const struct rec_stats *s,
		      const struct prof_file *f, const struct prof_queue *lq, struct mark **marks,
		      size_t *nmarks, size_t *cap, struct progress *pg, uint64_t *done)
{
	const struct nprof_ntff_queue *q = &lq->q;
	uint32_t core = queue_core(f, q);
	const struct core_stats *c = NULL;
	struct core_timeline *t = tl_core(tl, s, f->info.device.device_index, core, &c);
	struct unit_timeline *u = NULL;
	struct seq_track seq = { 0 };
	struct instr_clock clk;
	struct queue_iter it;
	struct entry e, pend = { 0 };
	bool have_pend = false, topsp = false;
	uint64_t gaps = 0;
	size_t k = SIZE_MAX;
	const void *p;

	if (!t)
		return;
	switch (q->queue_type) {
	case NEURONPROF_QT_TRACE:
	case NEURONPROF_QT_EVENT:
	case NEURONPROF_QT_DMA:
		k = unit_pos(c, false, q->engine);
		break;
	case NEURONPROF_QT_TOPSP_TRACE:
	case NEURONPROF_QT_TOPSP_EVENT:
	case NEURONPROF_QT_TOPSP_ERROR:
		topsp = true;
		k = unit_pos(c, true, q->target_index);
		break;
	default:
		break;
	}
	if (k != SIZE_MAX)
		u = &t->units[k];
	instr_clock_init(&clk, c->ct, topsp, k != SIZE_MAX ? c->units[k].index : 0);
	queue_iter_init(&it, f, lq);
	while ((p = queue_iter_next(&it))) {
		uint64_t g;

		entry_decode(p, it.entry_size, &e);
		progress_update(pg, ++*done);
		g = seq_skipped_iter(&seq, &it, e.seq);
		gaps += g;
		if (g)
			t->gaps[timeline_bucket(t, e.ts)] += g;
		switch (q->queue_type) {
		case NEURONPROF_QT_TRACE:
		case NEURONPROF_QT_TOPSP_TRACE:
			/* An instruction a loss cut has no time (summary.c). */
			if (have_pend && u && !g)
				busy_add(t, u->busy, pend.ts, instr_end(&clk, pend.ts, true, e.ts));
			pend = e;
			have_pend = true;
			break;
		case NEURONPROF_QT_DMA:
			if (u)
				u->dma_bytes[timeline_bucket(t, e.ts)] += e.payload[0];
			break;
		case NEURONPROF_QT_THROTTLE:
			*marks = xgrow(*marks, *nmarks, cap, sizeof(**marks));
			(*marks)[(*nmarks)++] = (struct mark){ .ts = e.ts, .level = e.code };
			break;
		default:
			break;
		}
	}
	if (have_pend && u && q->lost_count <= gaps)
		busy_add(t, u->busy, pend.ts, instr_end(&clk, pend.ts, false, 0));
	instr_clock_free(&clk);
}

/* A level holds from its THROTTLE entry to the next one; the last to the core's end. */
static void throttle_fill(struct core_timeline *t, const struct core_stats *c, struct mark *m,
			  size_t n)
{
	if (n > 1)
		qsort(m, n, sizeof(*m), cmp_mark);
	for (size_t i = 0; i < n; i++) {
		uint64_t end = i + 1 < n ? m[i + 1].ts : c->last;
		size_t a = timeline_bucket(t, m[i].ts), b = timeline_bucket(t, end);

		for (size_t j = a; j <= b; j++)
			if (m[i].level > t->throttle[j])
				t->throttle[j] = m[i].level;
	}
}

void rec_timeline_build(struct rec_timeline *tl, const struct rec_stats *s, size_t nbuckets,
			struct progress *pg, uint64_t *done)
{
	const struct recording *r = s->rec;

	memset(tl, 0, sizeof(*tl));
	if (!nbuckets)
		nbuckets = 1;
	tl->ncores = s->ncores;
	tl->cores = s->ncores ? xcalloc(s->ncores, sizeof(*tl->cores)) : NULL;
	for (size_t i = 0; i < s->ncores; i++) {
		const struct core_stats *c = &s->cores[i];
		struct core_timeline *t = &tl->cores[i];
		uint64_t span = c->any ? c->last - c->first : 0;

		t->t0 = c->first;
		t->width = span / nbuckets + 1;
		t->nb = (size_t)(span / t->width) + 1;
		t->units = xcalloc(c->nunits, sizeof(*t->units));
		t->nunits = c->nunits;
		for (size_t k = 0; k < c->nunits; k++) {
			t->units[k].busy = xcalloc(t->nb, sizeof(uint64_t));
			t->units[k].dma_bytes = xcalloc(t->nb, sizeof(uint64_t));
		}
		t->gaps = xcalloc(t->nb, sizeof(*t->gaps));
		t->throttle = xcalloc(t->nb, sizeof(*t->throttle));
		t->exec_starts = xcalloc(t->nb, sizeof(*t->exec_starts));
		for (size_t x = 0; c->ct && x < c->ct->nexec; x++)
			t->exec_starts[timeline_bucket(t, c->ct->exec[x].start)]++;
	}
	for (size_t i = 0; i < s->ncores; i++) {
		struct mark *marks = NULL;
		size_t nmarks = 0, cap = 0;
		const struct core_stats *c = &s->cores[i];

		/* Each core's queues, so its throttle marks are together. */
		for (size_t fi = 0; fi < r->nfiles; fi++) {
			const struct prof_file *f = r->files[fi];

			if (file_is_raw(f) || f->info.device.device_index != c->dev)
				continue;
			for (size_t k = 0; k < f->nlqueues; k++)
				if (queue_core(f, &f->lqueues[k].q) == c->core)
					add_queue(tl, s, f, &f->lqueues[k], &marks, &nmarks, &cap, pg,
						  done);
		}
		throttle_fill(&tl->cores[i], c, marks, nmarks);
		free(marks);
	}
}

void rec_timeline_free(struct rec_timeline *tl)
{
	for (size_t i = 0; i < tl->ncores; i++) {
		struct core_timeline *t = &tl->cores[i];

		for (size_t k = 0; k < t->nunits; k++) {
			free(t->units[k].busy);
			free(t->units[k].dma_bytes);
		}
		free(t->units);
		free(t->gaps);
		free(t->throttle);
		free(t->exec_starts);
	}
	free(tl->cores);
	memset(tl, 0, sizeof(*tl));
}
