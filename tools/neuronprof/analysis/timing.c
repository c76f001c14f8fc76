// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): inferences, executions and their host calls (timing.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/timing.h"
#include "util/util.h"

/* Room for @extra more elements beyond @n, in one allocation of exactly that size. */
static void *xreserve(void *v, size_t n, size_t extra, size_t *cap, size_t size)
{
	if (n + extra <= *cap)
		return v;
	*cap = n + extra;
	return xrealloc(v, *cap * size);
}

static struct core_timing *core_get(struct timing *t, uint32_t host, uint32_t dev,
				    uint32_t core)
{
	struct core_timing *c;

	for (size_t i = 0; i < t->ncores; i++)
		if (t->cores[i].host == host && t->cores[i].dev == dev && t->cores[i].core == core)
			return &t->cores[i];
	c = XAPPEND(t->cores, t->ncores);
	c->host = host;
	c->dev = dev;
	c->core = core;
	return c;
}

static void source_add(struct timing_source **v, size_t *n, const struct prof_file *f,
		       const struct prof_queue *lq)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = (struct timing_source){ .f = f, .lq = lq };
}

const void *unit_find(const void *units, size_t n, size_t size, struct unit_id id)
{
	for (size_t i = 0; i < n; i++) {
		const struct unit_id *u = (const void *)((const char *)units + i * size);

		if (u->topsp == id.topsp && u->index == id.index)
			return u;
	}
	return NULL;
}

void *unit_of(void **units, size_t *n, size_t size, struct unit_id id, bool *added)
{
	struct unit_id *u = (void *)unit_find(*units, *n, size, id);

	if (added)
		*added = !u;
	if (u)
		return u;
	*units = xgrow1(*units, *n, size);
	u = (void *)((char *)*units + (*n)++ * size);
	*u = id;
	return u;
}

static struct unit_windows *unit_get(struct core_timing *c, bool topsp, uint32_t index)
{
	return unit_of((void **)&c->units, &c->nunits, sizeof(*c->units),
		       (struct unit_id){ topsp, index }, NULL);
}

/* ---- the pairs of one queue ---------------------------------------------- */

struct timing_stream {
	struct queue_iter it;
	bool infer;			/* INFER_STATUS pairs, else EVENT windows */
	bool open;
	struct entry start;
	struct seq_track seq;
	uint64_t prev_ts;		/* of the queue's previous entry */
	bool after_gap;			/* EVENT: a gap, and no start since */
	uint64_t gap_from;		/* the last entry before that gap */
	uint64_t unmatched_starts, unmatched_stops;	/* INFER_STATUS */
	struct inference head;		/* its next pair, when merged with others */
	bool have;
};

static void stream_init(struct timing_stream *s, const struct timing_source *src, bool infer)
{
	memset(s, 0, sizeof(*s));
	queue_iter_init(&s->it, src->f, src->lq);
	s->infer = infer;
}

/*
 * The queue's next pair into @out; false after the last one. INFER_STATUS:
 * a start and the next stop (a start while one is open replaces it, a stop
 * without a start is left out, both counted). EVENT: a start (code 1) and
 * the next end (code 2). Neither spans a sequence gap: an open start is
 * dropped at one (an INFER_STATUS start counts as unmatched). An EVENT end
 * whose start a gap took (the first end after the gap, no start since) ends
 * a window from the last entry before the gap: it bounds instructions only
 * (the EVENT windows serve nothing else).
 */
static bool stream_pair(struct timing_stream *s, struct inference *out)
{
	struct entry e;
	const void *p;

	while ((p = queue_iter_next(&s->it))) {
		entry_decode(p, s->it.entry_size, &e);
		/* A pair never spans a loss: a start before a sequence gap is dropped. */
		if (seq_skipped_iter(&s->seq, &s->it, e.seq)) {
			if (s->open && s->infer)
				s->unmatched_starts++;
			s->open = false;
			s->after_gap = true;
			s->gap_from = s->prev_ts;
		}
		s->prev_ts = e.ts;
		if (s->infer) {
			if (e.code == NEURONPROF_INFER_START) {
				if (s->open)
					s->unmatched_starts++;
				s->start = e;
				s->open = true;
			} else if (e.code == NEURONPROF_INFER_STOP) {
				if (!s->open) {
					s->unmatched_stops++;
					continue;
				}
				*out = (struct inference){
					.start = s->start.ts, .stop = e.ts, .status = e.payload[0],
					.model_id = s->start.model_id,
					.iteration = s->start.iteration,
				};
				s->open = false;
				return true;
			}
		} else if (e.code == EVENT_CODE_START) {
			s->start.ts = e.ts;
			s->open = true;
			s->after_gap = false;
		} else if (e.code == EVENT_CODE_END && s->open) {
			*out = (struct inference){ .start = s->start.ts, .stop = e.ts };
			s->open = false;
			return true;
		} else if (e.code == EVENT_CODE_END && s->after_gap) {
			/*
			 * Its start was lost: the window began within the
			 * gap, and still bounds the instructions before its end.
			 */
			*out = (struct inference){ .start = s->gap_from, .stop = e.ts };
			s->after_gap = false;
			return true;
		}
	}
	if (s->infer && s->open)
		s->unmatched_starts++;
	s->open = false;
	return false;
}

/* ---- cursors ------------------------------------------------------------- */

/* A cursor over the arrays @inf or @win of @n, or (@src) merging the streams of @nsrc queues. */
static void cursor_init(struct timing_cursor *c, const struct timing_source *src, size_t nsrc,
			bool infer, const struct inference *inf, const struct window *win, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->inf = inf;
	c->win = win;
	c->n = n;
	if (src) {
		c->s = xcalloc(nsrc, sizeof(*c->s));
		c->ns = nsrc;
		for (size_t i = 0; i < nsrc; i++) {
			stream_init(&c->s[i], &src[i], infer);
			c->s[i].have = stream_pair(&c->s[i], &c->s[i].head);
		}
	}
	timing_cursor_next(c);
}

void timing_cursor_core(struct timing_cursor *c, const struct core_timing *ct)
{
	if (!ct)
		cursor_init(c, NULL, 0, true, NULL, NULL, 0);
	else
		cursor_init(c, ct->streamed ? ct->src : NULL, ct->nsrc, true, ct->inf, NULL,
			    ct->ninf);
}

void timing_cursor_unit(struct timing_cursor *c, const struct unit_windows *uw)
{
	if (!uw)
		cursor_init(c, NULL, 0, false, NULL, NULL, 0);
	else
		cursor_init(c, uw->streamed ? uw->src : NULL, uw->nsrc, false, NULL, uw->w, uw->n);
}

void timing_cursor_next(struct timing_cursor *c)
{
	struct timing_stream *best = NULL;

	if (!c->s) {
		c->have = c->i < c->n;
		if (c->have && c->inf)
			c->cur = c->inf[c->i];
		else if (c->have)
			c->cur = (struct inference){ .start = c->win[c->i].start,
						     .stop = c->win[c->i].stop };
		c->i++;
		return;
	}
	/* The earliest start; of equal ones, the first queue's. */
	for (size_t i = 0; i < c->ns; i++)
		if (c->s[i].have && (!best || c->s[i].head.start < best->head.start))
			best = &c->s[i];
	c->have = best != NULL;
	if (best) {
		c->cur = best->head;
		best->have = stream_pair(best, &best->head);
	}
}

void timing_cursor_free(struct timing_cursor *c)
{
	free(c->s);
	c->s = NULL;
	c->ns = 0;
	c->have = false;
}

/*
 * Executions from inferences: a start with iteration 0, not above the
 * previous one's, or of another model begins a new one.
 */
static void exec_make(struct exec_cursor *x)
{
	struct execution *e = &x->cur;
	const struct inference *in = &x->inf.cur;

	x->have = x->inf.have;
	if (!x->have)
		return;
	memset(e, 0, sizeof(*e));
	e->start = in->start;
	e->model_id = in->model_id;
	e->first = x->ninf;
	do {
		e->stop = in->stop;
		e->iterations++;
		if (in->status)
			e->failed = true;
		x->last_iteration = in->iteration;
		timing_cursor_next(&x->inf);
		x->ninf++;
	} while (x->inf.have && in->iteration != 0 && in->model_id == e->model_id &&
		 in->iteration > x->last_iteration);
}

void exec_cursor_init(struct exec_cursor *x, const struct core_timing *ct)
{
	memset(x, 0, sizeof(*x));
	x->ct = ct;
	if (ct && !ct->exec)
		timing_cursor_core(&x->inf, ct);
	x->k = SIZE_MAX;
	exec_cursor_next(x);
}

void exec_cursor_next(struct exec_cursor *x)
{
	x->k++;
	if (x->ct && x->ct->exec) {
		x->have = x->k < x->ct->nexec;
		if (x->have)
			x->cur = x->ct->exec[x->k];
		return;
	}
	exec_make(x);
}

void exec_cursor_free(struct exec_cursor *x)
{
	timing_cursor_free(&x->inf);
}

/* ---- building ------------------------------------------------------------ */

static int cmp_window(const void *a, const void *b)
{
	const struct window *x = a, *y = b;

	return cmp_int(x->start, y->start);
}

const struct unit_windows *timing_unit(const struct core_timing *ct, bool topsp, uint32_t index)
{
	return ct ? unit_find(ct->units, ct->nunits, sizeof(*ct->units),
			      (struct unit_id){ topsp, index }) : NULL;
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

	return cmp_int(x->start, y->start);
}

/*
 * Whether the pairs of each of @n queues come in time order (of starts), so
 * that cursors merging them give the order sorting them would; adds the
 * INFER_STATUS queues' unmatched starts and stops to @c.
 */
static bool streams_in_order(const struct timing_source *src, size_t n, bool infer,
			     struct core_timing *c)
{
	bool in_order = true;

	for (size_t i = 0; i < n; i++) {
		struct timing_stream s;
		struct inference in;
		uint64_t prev = 0;

		stream_init(&s, &src[i], infer);
		while (stream_pair(&s, &in)) {
			if (in.start < prev)
				in_order = false;
			prev = in.start;
		}
		if (c) {
			c->unmatched_starts += s.unmatched_starts;
			c->unmatched_stops += s.unmatched_stops;
		}
	}
	return in_order;
}

/*
 * The pairs of queues @src in an array *@v of *@n (room for *@cap), in time
 * order: inferences (@infer; their unmatched starts and stops are added to
 * @c) or windows.
 */
static void pairs_build(const struct timing_source *src, size_t nsrc, bool infer, void **v,
			size_t *n, size_t *cap, struct core_timing *c)
{
	size_t size = infer ? sizeof(struct inference) : sizeof(struct window);
	int (*cmp)(const void *, const void *) = infer ? cmp_inf : cmp_window;

	for (size_t k = 0; k < nsrc; k++) {
		struct timing_stream s;
		struct inference in;

		/* A pair takes two entries: the array never grows again for this queue. */
		*v = xreserve(*v, *n, src[k].lq->q.entry_count / 2, cap, size);
		stream_init(&s, &src[k], infer);
		while (stream_pair(&s, &in)) {
			*v = xgrow(*v, *n, cap, size);
			if (infer)
				((struct inference *)*v)[(*n)++] = in;
			else
				((struct window *)*v)[(*n)++] = (struct window){ in.start, in.stop };
		}
		if (c) {
			c->unmatched_starts += s.unmatched_starts;
			c->unmatched_stops += s.unmatched_stops;
		}
	}
	/*
	 * Records of one core may come from several files: time order.
	 * Usually they are in it already, and qsort() would allocate a
	 * copy of the array to find that out.
	 */
	if (!sorted(*v, *n, size, cmp))
		qsort(*v, *n, size, cmp);
}

/* The executions of @c in an array, made from its inferences. */
static void executions_build(struct core_timing *c)
{
	struct exec_cursor x;
	size_t cap = 0;

	memset(&x, 0, sizeof(x));
	x.ct = c;
	timing_cursor_core(&x.inf, c);
	for (exec_make(&x); x.have; exec_make(&x)) {
		c->exec = xgrow(c->exec, c->nexec, &cap, sizeof(*c->exec));
		c->exec[c->nexec++] = x.cur;
	}
	exec_cursor_free(&x);
}

static bool is_nrt_execute(const Neuronprof__System__NtraceEvent *ev)
{
	return ev->name && !strcmp(ev->name, "nrt_execute") && ev->has_core_index;
}

/* The core whose executions nrt_execute call @ev of @host may have started, or NULL. */
static struct core_timing *host_core(struct timing *t, const Neuronprof__System__NtraceEvent *ev,
				     uint32_t host)
{
	for (size_t k = 0; k < t->ncores; k++)
		if (t->cores[k].host == host && t->cores[k].vcore == ev->core_index)
			return &t->cores[k];
	return NULL;
}

static void match_host(struct timing *t, const Neuronprof__System__Ntrace *nt, uint32_t host)
{
	for (size_t i = 0; i < nt->n_events; i++) {
		const Neuronprof__System__NtraceEvent *ev = nt->events[i];
		struct core_timing *c;
		size_t lo = 0, hi;

		if (!is_nrt_execute(ev))
			continue;
		t->host_calls++;
		c = host_core(t, ev, host);
		if (!c)
			continue;
		/* The first execution starting at or after the call's start. */
		hi = c->nexec;
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
	}
}

/*
 * Streamed, the executions a host call may have started are kept: those of
 * the cores of @nt's nrt_execute calls (@kept marks the cores done).
 */
static void keep_host_cores(struct timing *t, const Neuronprof__System__Ntrace *nt,
			    uint32_t host, bool *kept)
{
	for (size_t i = 0; i < nt->n_events; i++) {
		struct core_timing *c;

		if (!is_nrt_execute(nt->events[i]) || !(c = host_core(t, nt->events[i], host)))
			continue;
		if (!kept[c - t->cores])
			executions_build(c);
		kept[c - t->cores] = true;
	}
}

void timing_build(struct timing *t, const struct prof_file *const *files, size_t nfiles,
		  const uint32_t *file_host, const struct sysprof *sys, size_t nsys,
		  const uint32_t *sys_host, unsigned int flags)
{
	bool stream = flags & TIMING_STREAM;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < nfiles; i++) {
		const struct prof_file *f = files[i];

		/* Raw entries hold no inference or event whose codes are known. */
		for (size_t k = 0; !file_is_raw(f) && k < f->nlqueues; k++) {
			const struct prof_queue *lq = &f->lqueues[k];
			const struct nprof_ntff_queue *q = &lq->q;
			struct unit_windows *u;
			struct core_timing *c;

			if (q->queue_type != NEURONPROF_QT_INFER_STATUS &&
			    q->queue_type != NEURONPROF_QT_EVENT &&
			    q->queue_type != NEURONPROF_QT_TOPSP_EVENT)
				continue;
			c = core_get(t, file_host ? file_host[i] : 0, f->info.device.device_index,
				     queue_core(f, q));
			if (q->queue_type == NEURONPROF_QT_INFER_STATUS) {
				c->vcore = f->info.core;
				source_add(&c->src, &c->nsrc, f, lq);
				continue;
			}
			u = q->queue_type == NEURONPROF_QT_EVENT ? unit_get(c, false, q->engine) :
			    unit_get(c, true, q->target_index);
			source_add(&u->src, &u->nsrc, f, lq);
		}
	}
	for (size_t i = 0; i < t->ncores; i++) {
		struct core_timing *c = &t->cores[i];

		/* Streamed unless a queue's pairs are out of time order: then sorted, as an array. */
		if (stream && streams_in_order(c->src, c->nsrc, true, c)) {
			c->streamed = true;
		} else {
			c->unmatched_starts = c->unmatched_stops = 0;
			pairs_build(c->src, c->nsrc, true, (void **)&c->inf, &c->ninf, &c->inf_cap,
				    c);
			if (!stream)
				executions_build(c);
		}
		for (size_t k = 0; k < c->nunits; k++) {
			struct unit_windows *u = &c->units[k];

			if (stream && streams_in_order(u->src, u->nsrc, false, NULL))
				u->streamed = true;
			else
				pairs_build(u->src, u->nsrc, false, (void **)&u->w, &u->n, &u->cap,
					    NULL);
		}
	}
	if (stream && nsys) {
		bool *kept = xcalloc(t->ncores, sizeof(*kept));

		for (size_t i = 0; i < nsys; i++)
			if (sys[i].ntrace)
				keep_host_cores(t, sys[i].ntrace, sys_host ? sys_host[i] : 0, kept);
		free(kept);
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
		free(t->cores[i].src);
		for (size_t k = 0; k < t->cores[i].nunits; k++) {
			free(t->cores[i].units[k].w);
			free(t->cores[i].units[k].src);
		}
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
	return cmp_int(*(const uint64_t *)a, *(const uint64_t *)b);
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
