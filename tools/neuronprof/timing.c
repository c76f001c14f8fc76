// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): inferences, executions and their host calls (timing.h).
 */
#include <stdlib.h>
#include <string.h>

#include "timing.h"
#include "tool.h"

static void *xgrow(void *v, size_t n, size_t *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 16;
	p = realloc(v, *cap * size);
	if (!p) {
		fail("out of memory");
		exit(EXIT_FAIL);
	}
	return p;
}

/* Room for @extra more elements beyond @n, in one allocation of exactly that size. */
static void *xreserve(void *v, size_t n, size_t extra, size_t *cap, size_t size)
{
	void *p;

	if (n + extra <= *cap)
		return v;
	*cap = n + extra;
	p = realloc(v, (*cap ? *cap : 1) * size);
	if (!p) {
		fail("out of memory");
		exit(EXIT_FAIL);
	}
	return p;
}

static struct core_timing *core_get(struct timing *t, uint32_t host, uint32_t dev,
				    uint32_t core)
{
	struct core_timing *c;

	for (size_t i = 0; i < t->ncores; i++)
		if (t->cores[i].host == host && t->cores[i].dev == dev && t->cores[i].core == core)
			return &t->cores[i];
	t->cores = realloc(t->cores, (t->ncores + 1) * sizeof(*t->cores));
	if (!t->cores) {
		fail("out of memory");
		exit(EXIT_FAIL);
	}
	c = &t->cores[t->ncores++];
	memset(c, 0, sizeof(*c));
	c->host = host;
	c->dev = dev;
	c->core = core;
	return c;
}

/* INFER_STATUS start/stop pairs of one queue, across its records. */
static void add_inferences(struct core_timing *c, const struct prof_file *f,
			   const struct prof_queue *lq)
{
	struct queue_iter it;
	struct entry e, start = { 0 };
	bool open = false;
	const void *p;

	/* A pair takes two entries: the array never grows again for this queue. */
	c->inf = xreserve(c->inf, c->ninf, lq->q.entry_count / 2, &c->inf_cap, sizeof(*c->inf));
	queue_iter_init(&it, f, lq);
	while ((p = queue_iter_next(&it))) {
		entry_decode(p, it.entry_size, &e);
		if (e.code == NEURONPROF_INFER_START) {
			if (open)
				c->unmatched_starts++;
			start = e;
			open = true;
		} else if (e.code == NEURONPROF_INFER_STOP) {
			if (!open) {
				c->unmatched_stops++;
				continue;
			}
			c->inf = xgrow(c->inf, c->ninf, &c->inf_cap, sizeof(*c->inf));
			c->inf[c->ninf++] = (struct inference){
				.start = start.ts, .stop = e.ts, .status = e.payload[0],
				.model_id = start.model_id, .iteration = start.iteration,
			};
			open = false;
		}
	}
	if (open)
		c->unmatched_starts++;
}

static struct unit_windows *unit_get(struct core_timing *c, bool topsp, uint32_t index)
{
	for (size_t i = 0; i < c->nunits; i++)
		if (c->units[i].topsp == topsp && c->units[i].index == index)
			return &c->units[i];
	c->units = realloc(c->units, (c->nunits + 1) * sizeof(*c->units));
	if (!c->units) {
		fail("out of memory");
		exit(EXIT_FAIL);
	}
	memset(&c->units[c->nunits], 0, sizeof(*c->units));
	c->units[c->nunits].topsp = topsp;
	c->units[c->nunits].index = index;
	return &c->units[c->nunits++];
}

/* EVENT start (code 1) / end (code 2) pairs of one queue, across its records. */
static void add_events(struct unit_windows *u, const struct prof_file *f,
		       const struct prof_queue *lq)
{
	struct queue_iter it;
	struct entry e;
	uint64_t start = 0;
	bool open = false;
	const void *p;

	u->w = xreserve(u->w, u->n, lq->q.entry_count / 2, &u->cap, sizeof(*u->w));
	queue_iter_init(&it, f, lq);
	while ((p = queue_iter_next(&it))) {
		entry_decode(p, it.entry_size, &e);
		if (e.code == EVENT_CODE_START) {
			start = e.ts;
			open = true;
		} else if (e.code == EVENT_CODE_END && open) {
			u->w = xgrow(u->w, u->n, &u->cap, sizeof(*u->w));
			u->w[u->n++] = (struct window){ .start = start, .stop = e.ts };
			open = false;
		}
	}
}

static int cmp_window(const void *a, const void *b)
{
	const struct window *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

const struct unit_windows *timing_unit(const struct core_timing *ct, bool topsp, uint32_t index)
{
	for (size_t i = 0; ct && i < ct->nunits; i++)
		if (ct->units[i].topsp == topsp && ct->units[i].index == index)
			return &ct->units[i];
	return NULL;
}

/* Whether @n elements of @size at @v are in the order of @cmp already. */
static bool sorted(const void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	const char *p = v;

	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size) > 0)
			return false;
	return true;
}

static int cmp_inf(const void *a, const void *b)
{
	const struct inference *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void build_executions(struct core_timing *c)
{
	size_t cap = 0;

	for (size_t i = 0; i < c->ninf; i++) {
		const struct inference *in = &c->inf[i];
		struct execution *x = c->nexec ? &c->exec[c->nexec - 1] : NULL;

		if (!x || in->iteration == 0 || in->model_id != x->model_id ||
		    in->iteration <= c->inf[i - 1].iteration) {
			c->exec = xgrow(c->exec, c->nexec, &cap, sizeof(*c->exec));
			x = &c->exec[c->nexec++];
			memset(x, 0, sizeof(*x));
			x->start = in->start;
			x->model_id = in->model_id;
			x->first = i;
		}
		x->stop = in->stop;
		x->iterations++;
		if (in->status)
			x->failed = true;
	}
}

static bool is_nrt_execute(const Neuronprof__System__NtraceEvent *ev)
{
	return ev->name && !strcmp(ev->name, "nrt_execute") && ev->has_core_index;
}

static void match_host(struct timing *t, const Neuronprof__System__Ntrace *nt, uint32_t host)
{
	for (size_t i = 0; i < nt->n_events; i++) {
		const Neuronprof__System__NtraceEvent *ev = nt->events[i];

		if (!is_nrt_execute(ev))
			continue;
		t->host_calls++;
		for (size_t k = 0; k < t->ncores; k++) {
			struct core_timing *c = &t->cores[k];
			size_t lo = 0, hi = c->nexec;

			if (c->host != host || c->vcore != ev->core_index)
				continue;
			/* The first execution starting at or after the call's start. */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (c->exec[mid].start < ev->start_ns)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < c->nexec && c->exec[lo].start <= ev->end_ns; lo++) {
				struct execution *x = &c->exec[lo];

				if (x->host || (ev->has_model_id && ev->model_id != x->model_id))
					continue;
				x->host = ev;
				t->host_calls_matched++;
				break;
			}
			break;
		}
	}
}

void timing_build(struct timing *t, const struct prof_file *const *files, size_t nfiles,
		  const uint32_t *file_host, const struct sysprof *sys, size_t nsys,
		  const uint32_t *sys_host)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < nfiles; i++) {
		const struct prof_file *f = files[i];

		/* Raw entries hold no inference or event whose codes are known. */
		for (size_t k = 0; !file_is_raw(f) && k < f->nlqueues; k++) {
			const struct prof_queue *lq = &f->lqueues[k];
			const struct nprof_ntff_queue *q = &lq->q;
			struct core_timing *c;

			if (q->queue_type != NEURONPROF_QT_INFER_STATUS &&
			    q->queue_type != NEURONPROF_QT_EVENT &&
			    q->queue_type != NEURONPROF_QT_TOPSP_EVENT)
				continue;
			c = core_get(t, file_host ? file_host[i] : 0, f->info.device.device_index,
				     queue_core(f, q));
			if (q->queue_type == NEURONPROF_QT_EVENT) {
				add_events(unit_get(c, false, q->engine), f, lq);
			} else if (q->queue_type == NEURONPROF_QT_TOPSP_EVENT) {
				add_events(unit_get(c, true, q->target_index), f, lq);
			} else {
				c->vcore = f->info.core;
				add_inferences(c, f, lq);
			}
		}
	}
	for (size_t i = 0; i < t->ncores; i++) {
		struct core_timing *c = &t->cores[i];

		/*
		 * Records of one core may come from several files: time order.
		 * Usually they are in it already, and qsort() would allocate a
		 * copy of the array to find that out.
		 */
		if (!sorted(c->inf, c->ninf, sizeof(*c->inf), cmp_inf))
			qsort(c->inf, c->ninf, sizeof(*c->inf), cmp_inf);
		build_executions(c);
		for (size_t k = 0; k < c->nunits; k++)
			if (!sorted(c->units[k].w, c->units[k].n, sizeof(*c->units[k].w),
				    cmp_window))
				qsort(c->units[k].w, c->units[k].n, sizeof(*c->units[k].w),
				      cmp_window);
	}
	for (size_t i = 0; i < nsys; i++)
		if (sys[i].ntrace)
			match_host(t, sys[i].ntrace, sys_host ? sys_host[i] : 0);
}

void timing_free(struct timing *t)
{
	for (size_t i = 0; i < t->ncores; i++) {
		free(t->cores[i].inf);
		free(t->cores[i].exec);
		for (size_t k = 0; k < t->cores[i].nunits; k++)
			free(t->cores[i].units[k].w);
		free(t->cores[i].units);
	}
	free(t->cores);
	memset(t, 0, sizeof(*t));
}

const struct core_timing *timing_core_of(const struct timing *t, uint32_t host, uint32_t dev,
					 uint32_t core)
{
	for (size_t i = 0; i < t->ncores; i++)
		if (t->cores[i].host == host && t->cores[i].dev == dev && t->cores[i].core == core)
			return &t->cores[i];
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void sort_u64(uint64_t *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_u64);
}

uint64_t percentile(const uint64_t *sorted, size_t n, unsigned int p)
{
	size_t rank;

	if (!n)
		return 0;
	/* Nearest rank: the smallest value with at least p% of values at or below it. */
	rank = (size_t)(((unsigned __int128)n * p + 99) / 100);
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}
