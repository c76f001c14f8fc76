// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): a recording's statistics once every entry is in
 * (summary.h): cores, units and ops sorted, busy time and utilisation over
 * observed time, throttling, the ops across cores, the models' latencies
 * and the host trace's event types.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/names.h"
#include "analysis/summary.h"
#include "analysis/summary_internal.h"
#include "util/util.h"

static int cmp_core(const void *a, const void *b)
{
	const struct core_stats *x = a, *y = b;

	return cmp_int(x->dev, y->dev) ?: cmp_int(x->core, y->core);
}

static int cmp_unit(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	return cmp_int(x->topsp, y->topsp) ?: cmp_int(x->index, y->index);
}

/* Largest total first; ties by code, so the order is the same on every run. */
static int cmp_op(const void *a, const void *b)
{
	const struct op_stats *x = a, *y = b;

	return cmp_int(y->d.total, x->d.total) ?: cmp_int(x->code, y->code);
}

static int cmp_mark(const void *a, const void *b)
{
	const struct throttle_mark *x = a, *y = b;

	return cmp_int(x->ts, y->ts);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static struct xop *xop_get(struct rec_stats *s, bool topsp, uint32_t index, uint32_t code)
{
	struct xop *x;

	for (size_t i = 0; i < s->nxops; i++) {
		x = &s->xops[i];
		if (x->topsp == topsp && x->index == index && x->code == code)
			return x;
	}
	x = XAPPEND(s->xops, s->nxops);
	x->topsp = topsp;
	x->index = index;
	x->code = code;
	return x;
}

/* Adds the durations of op @o of unit @u of core @ci to the cross-core ops. */
static void xop_add(struct rec_stats *s, size_t ci, const struct unit *u,
		    const struct op_stats *o)
{
	struct xop *x = xop_get(s, u->topsp, u->index, o->code);

	if (o->n) {
		x->dur = xrealloc(x->dur, (x->n + o->n) * sizeof(*x->dur));
		memcpy(x->dur + x->n, o->dur, o->n * sizeof(*x->dur));
		x->n += o->n;
	}
	if (!x->ncores || x->cores[x->ncores - 1] != ci) {
		x->cores = xgrow1(x->cores, x->ncores, sizeof(*x->cores));
		x->cores[x->ncores++] = (uint32_t)ci;
	}
}

static int cmp_xop(const void *a, const void *b)
{
	const struct xop *x = a, *y = b;

	return cmp_int(y->d.total, x->d.total) ?: cmp_int(x->topsp, y->topsp) ?:
	       cmp_int(x->index, y->index) ?: cmp_int(x->code, y->code);
}

static void finish_xops(struct rec_stats *s)
{
	for (size_t i = 0; i < s->nxops; i++) {
		dist_of(&s->xops[i].d, s->xops[i].dur, s->xops[i].n);
		if (!s->keep_durations) {
			free(s->xops[i].dur);
			s->xops[i].dur = NULL;
		}
	}
	if (s->nxops > 1)
		qsort(s->xops, s->nxops, sizeof(*s->xops), cmp_xop);
}

static void finish_unit(struct rec_stats *s, size_t ci, struct unit *u,
			const struct core_stats *c)
{
	uint64_t span = c->any ? c->last - c->first : 0;

	for (size_t i = 0; i < u->nops; i++) {
		struct op_stats *o = &u->ops[i];

		xop_add(s, ci, u, o);
		dist_of(&o->d, o->dur, o->n);
		if (!s->keep_durations) {
			free(o->dur);
			o->dur = NULL;
		}
		o->busy_pct = pct(o->d.total, u->busy);
	}
	free(u->slots);
	u->slots = NULL;
	if (u->nops > 1)
		qsort(u->ops, u->nops, sizeof(*u->ops), cmp_op);
	u->util_pct = pct(u->busy, u->observed);
	/*
	 * DMA bandwidth (Documentation/analysis.rst): bytes per second of wall
	 * time, the core's active span, whether or not the unit executed.
	 */
	u->dma_bytes_per_s = span ? (uint64_t)((unsigned __int128)u->dma_bytes * 1000000000u / span) : 0;
}

static void finish_throttle(struct core_stats *c)
{
	if (c->nmarks > 1)
		qsort(c->marks, c->nmarks, sizeof(*c->marks), cmp_mark);
	for (size_t i = 0; i < c->nmarks; i++) {
		uint64_t end = i + 1 < c->nmarks ? c->marks[i + 1].ts : c->last;
		struct level_time *l = NULL;

		for (size_t k = 0; k < c->nlevels; k++)
			if (c->levels[k].level == c->marks[i].level)
				l = &c->levels[k];
		if (!l) {
			size_t k = c->nlevels;

			c->levels = xgrow1(c->levels, c->nlevels++, sizeof(*c->levels));
			/* Kept sorted by level. */
			while (k > 0 && c->levels[k - 1].level > c->marks[i].level) {
				c->levels[k] = c->levels[k - 1];
				k--;
			}
			memset(&c->levels[k], 0, sizeof(c->levels[k]));
			c->levels[k].level = c->marks[i].level;
			l = &c->levels[k];
		}
		l->events++;
		l->ns += end - c->marks[i].ts;
	}
	for (size_t k = 0; k < c->nlevels; k++)
		c->levels[k].pct = pct(c->levels[k].ns, c->any ? c->last - c->first : 0);
	free(c->marks);
	c->marks = NULL;
}

static int cmp_err(const void *a, const void *b)
{
	const struct code_count *x = a, *y = b;

	return cmp_int(x->code, y->code);
}

static int cmp_iv(const void *a, const void *b)
{
	const struct busy_iv *x = a, *y = b;

	return cmp_int(x->start, y->start) ?: cmp_int(x->end, y->end);
}

/* The time at least one unit of the core executes: the union of the intervals. */
static uint64_t union_ns(struct busy_iv *iv, size_t n)
{
	uint64_t total = 0, end = 0;

	if (n > 1)
		qsort(iv, n, sizeof(*iv), cmp_iv);
	for (size_t i = 0; i < n; i++) {
		uint64_t from = i && iv[i].start < end ? end : iv[i].start;

		if (iv[i].end > from)
			total += iv[i].end - from;
		if (!i || iv[i].end > end)
			end = iv[i].end;
	}
	return total;
}

/* Whether loss window @w is of an instruction queue (of unit @u, when not NULL). */
static bool window_of_unit(const struct loss_window *w, const struct unit *u)
{
	if (w->queue_type == NEURONPROF_QT_TRACE)
		return !u || (!u->topsp && u->index == w->engine);
	if (w->queue_type == NEURONPROF_QT_TOPSP_TRACE)
		return !u || (u->topsp && u->index == w->target_index);
	return false;
}

/*
 * The time of the core's active span that the loss windows of the
 * instruction queues (of @u, or of every unit) cover, their union; with
 * @iv, the time that the union of @niv intervals @iv and those windows
 * covers. *@any says whether there is any such window.
 */
static uint64_t unobserved_ns(const struct core_stats *c, const struct unit *u,
			      const struct busy_iv *iv, size_t niv, bool *any)
{
	struct busy_iv *v = xcalloc(niv + c->nlw + 1, sizeof(*v));
	size_t n = niv;
	uint64_t ns;

	if (niv)
		memcpy(v, iv, niv * sizeof(*v));
	*any = false;
	for (size_t i = 0; i < c->nlw; i++) {
		const struct loss_window *w = &c->lw[i];
		uint64_t a = w->start > c->first ? w->start : c->first;
		uint64_t b = w->end < c->last ? w->end : c->last;

		if (!window_of_unit(w, u))
			continue;
		*any = true;
		if (c->any && b > a)
			v[n++] = (struct busy_iv){ a, b };
	}
	ns = union_ns(v, n);
	free(v);
	return ns;
}

uint64_t core_unobserved_in(const struct core_stats *c, uint64_t start, uint64_t end)
{
	struct busy_iv *v = xcalloc(c->nlw + 1, sizeof(*v));
	size_t n = 0;
	uint64_t ns;

	for (size_t i = 0; i < c->nlw; i++) {
		const struct loss_window *w = &c->lw[i];
		uint64_t a = w->start > start ? w->start : start;
		uint64_t b = w->end < end ? w->end : end;

		if (window_of_unit(w, NULL) && b > a)
			v[n++] = (struct busy_iv){ a, b };
	}
	ns = union_ns(v, n);
	free(v);
	return ns;
}

static void finish_core(struct rec_stats *s, size_t ci, const struct timing *t)
{
	struct core_stats *c = &s->cores[ci];
	uint64_t span = c->any ? c->last - c->first : 0, lost_ns;

	c->ct = timing_core(t, c->dev, c->core);
	if (c->ct) {
		for (size_t i = 0; i < c->ct->ninf; i++) {
			const struct inference *in = &c->ct->inf[i];

			c->inferences++;
			c->infer_busy += in->stop - in->start;
			if (in->status)
				c->infer_failed++;
			if (i)
				gap_add(&c->idle, c->ct->inf[i - 1].stop, in->start);
		}
	}
	/* Over observed time only: busy is the union of the instructions less the windows. */
	lost_ns = unobserved_ns(c, NULL, NULL, 0, &c->lossy);
	c->observed = span - lost_ns;
	if (c->lossy)
		c->busy = unobserved_ns(c, NULL, c->iv, c->niv, &c->lossy) - lost_ns;
	else
		c->busy = union_ns(c->iv, c->niv);
	free(c->iv);
	c->iv = NULL;
	c->util_pct = pct(c->busy, c->observed);
	if (c->nunits > 1)
		qsort(c->units, c->nunits, sizeof(*c->units), cmp_unit);
	for (size_t i = 0; i < c->nunits; i++) {
		struct unit *u = &c->units[i];

		u->observed = span - unobserved_ns(c, u, NULL, 0, &u->lossy);
		c->cut += u->cut;
		finish_unit(s, ci, u, c);
	}
	if (c->nerrs > 1)
		qsort(c->errs, c->nerrs, sizeof(*c->errs), cmp_err);
	finish_throttle(c);
}

static int cmp_model(const void *a, const void *b)
{
	const struct model_stats *x = a, *y = b;

	return cmp_int(x->model_id, y->model_id);
}

static void build_models(struct rec_stats *s)
{
	const struct timing *t = &s->timing;

	for (size_t k = 0; k < t->ncores; k++)
		for (size_t i = 0; i < t->cores[k].nexec; i++) {
			uint32_t m = t->cores[k].exec[i].model_id;
			size_t j;

			for (j = 0; j < s->nmodels && s->models[j].model_id != m; j++)
				;
			if (j == s->nmodels) {
				s->models = xgrow1(s->models, s->nmodels++, sizeof(*s->models));
				s->models[j].model_id = m;
			}
		}
	if (s->nmodels > 1)
		qsort(s->models, s->nmodels, sizeof(*s->models), cmp_model);
	for (size_t j = 0; j < s->nmodels; j++) {
		struct model_stats *ms = &s->models[j];

		ms->name = files_model_name(s->rec->files, s->rec->nfiles, ms->model_id);
		uint64_t *lat = NULL, *host = NULL, *over = NULL;
		size_t nl = 0, cl = 0, nh = 0, ch = 0, no = 0, co = 0;

		for (size_t k = 0; k < t->ncores; k++)
			for (size_t i = 0; i < t->cores[k].nexec; i++) {
				const struct execution *x = &t->cores[k].exec[i];
				uint64_t dev_ns = x->stop - x->start, host_ns;

				if (x->model_id != ms->model_id)
					continue;
				push_u64(&lat, &nl, &cl, dev_ns);
				if (x->failed)
					ms->failed++;
				if (!x->host)
					continue;
				ms->host_matched++;
				host_ns = x->host->end_ns > x->host->start_ns ?
					  x->host->end_ns - x->host->start_ns : 0;
				push_u64(&host, &nh, &ch, host_ns);
				push_u64(&over, &no, &co, host_ns > dev_ns ? host_ns - dev_ns : 0);
			}
		dist_of(&ms->lat, lat, nl);
		dist_of(&ms->host, host, nh);
		dist_of(&ms->overhead, over, no);
		free(lat);
		free(host);
		free(over);
	}
}

static void build_host(struct rec_stats *s)
{
	const Neuronprof__System__Ntrace *nt = s->rec->sys ? s->rec->sys->ntrace : NULL;

	if (!nt)
		return;
	for (size_t i = 0; i < nt->n_events; i++) {
		const Neuronprof__System__NtraceEvent *ev = nt->events[i];
		const char *name = ev->name && *ev->name ? ev->name : "event";
		struct host_type *h = NULL;
		size_t k;

		s->host_events++;
		for (k = 0; k < s->nhost; k++)
			if (!strcmp(s->host[k].name, name))
				h = &s->host[k];
		if (!h) {
			/* Kept sorted by name. */
			s->host = xgrow1(s->host, s->nhost++, sizeof(*s->host));
			for (k = s->nhost - 1; k > 0 && strcmp(s->host[k - 1].name, name) > 0; k--)
				s->host[k] = s->host[k - 1];
			memset(&s->host[k], 0, sizeof(s->host[k]));
			s->host[k].name = name;
			h = &s->host[k];
		}
		push_u64(&h->dur, &h->n, &h->cap,
			 ev->end_ns > ev->start_ns ? ev->end_ns - ev->start_ns : 0);
	}
	for (size_t k = 0; k < s->nhost; k++) {
		dist_of(&s->host[k].d, s->host[k].dur, s->host[k].n);
		free(s->host[k].dur);
		s->host[k].dur = NULL;
	}
}

void rec_stats_finish(struct rec_stats *s)
{
	if (s->ncores > 1)
		qsort(s->cores, s->ncores, sizeof(*s->cores), cmp_core);
	for (size_t i = 0; i < s->ncores; i++)
		finish_core(s, i, &s->timing);
	finish_xops(s);
	build_models(s);
	build_host(s);
}
