// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the statistics of one recording (summary.h), under the
 * timing model of timing.h. One pass over every entry; instruction
 * durations are kept per op until their distribution is known.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/names.h"
#include "analysis/summary.h"
#include "analysis/raw.h"
#include "util/util.h"

static void dist_of(struct dist *d, uint64_t *v, size_t n)
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

static void push_u64(uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
	*v = xgrow(*v, *n, cap, sizeof(**v));
	(*v)[(*n)++] = x;
}

/* ---- recordings ------------------------------------------------------------ */

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *d;

	if (!slash)
		return xstrdup(".");
	d = xstrdup(path);
	d[slash - path] = '\0';
	return d;
}

static int cmp_rec(const void *a, const void *b)
{
	return strcmp(((const struct recording *)a)->path, ((const struct recording *)b)->path);
}

static struct recording *rec_for(struct recording **v, size_t *n, char *dir)
{
	struct recording *r;

	for (size_t i = 0; i < *n; i++) {
		if (!strcmp((*v)[i].path, dir)) {
			free(dir);
			return &(*v)[i];
		}
	}
	r = XAPPEND(*v, *n);
	r->path = dir;
	return r;
}

struct recording *recordings_split(const struct profile *p, const char *arg, bool is_file,
			       size_t *nrec)
{
	struct recording *v = NULL, *r;
	size_t n = 0;

	for (size_t i = 0; i < p->nfiles; i++) {
		char *d = is_file ? xstrdup(arg) : dir_of(p->files[i].path);

		r = rec_for(&v, &n, d);
		r->files = xrealloc(r->files, (r->nfiles + 1) * sizeof(*r->files));
		r->files[r->nfiles++] = &p->files[i];
	}
	for (size_t i = 0; i < p->nsys; i++) {
		rec_for(&v, &n, xstrdup(p->sys[i].dir))->sys = &p->sys[i];
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_rec);
	*nrec = n;
	return v;
}

void recordings_free(struct recording *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].path);
		free(r[i].files);
	}
	free(r);
}

/* ---- idle gaps: the longest @max, kept sorted longest first --------------- */

static void gap_add(struct top_gaps *t, uint64_t start, uint64_t end)
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

/* ---- ops of a unit: an open-addressing table of opcode -> op_stats ------- */

static struct op_stats *op_get(struct unit *u, uint32_t code)
{
	size_t mask, h;

	if (u->nops * 2 >= u->nslots) {
		size_t n = u->nslots ? u->nslots * 2 : 64;
		uint32_t *slots = xcalloc(n, sizeof(*slots));

		for (size_t i = 0; i < u->nops; i++) {
			h = (u->ops[i].code * 2654435761u) & (n - 1);
			while (slots[h])
				h = (h + 1) & (n - 1);
			slots[h] = (uint32_t)i + 1;
		}
		free(u->slots);
		u->slots = slots;
		u->nslots = n;
	}
	mask = u->nslots - 1;
	h = (code * 2654435761u) & mask;
	while (u->slots[h]) {
		struct op_stats *o = &u->ops[u->slots[h] - 1];

		if (o->code == code)
			return o;
		h = (h + 1) & mask;
	}
	u->ops = xgrow1(u->ops, u->nops, sizeof(*u->ops));
	u->ops[u->nops].code = code;
	u->slots[h] = (uint32_t)++u->nops;
	return &u->ops[u->nops - 1];
}

/* ---- cores and units ----------------------------------------------------- */

static struct core_stats *core_get(struct rec_stats *s, const struct prof_file *f,
				   uint32_t core)
{
	uint32_t dev = f->info.device.device_index;
	struct core_stats *c;

	for (size_t i = 0; i < s->ncores; i++)
		if (s->cores[i].dev == dev && s->cores[i].core == core)
			return &s->cores[i];
	c = XAPPEND(s->cores, s->ncores);
	c->dev = dev;
	c->core = core;
	c->arch = f->info.device.arch;
	c->idle.max = s->top;
	snprintf(c->provider, sizeof(c->provider), "%s",
		 f->info.device.provider ? f->info.device.provider : "-");
	if (!f->info.device.raw_format) {
		c->names = f->info.code_names;
		c->nnames = f->info.num_code_names;
	}
	return c;
}

const char *unit_op_name(const struct core_stats *c, const struct unit *u, uint32_t code)
{
	return code_name_in(c->names, c->nnames,
			    u->topsp ? NEURONPROF_QT_TOPSP_TRACE : NEURONPROF_QT_TRACE, code);
}

const char *xop_name(const struct rec_stats *s, const struct xop *x)
{
	const struct unit u = { .topsp = x->topsp, .index = x->index };

	return x->ncores ? unit_op_name(&s->cores[x->cores[0]], &u, x->code) : NULL;
}

static struct unit *unit_get(struct rec_stats *s, struct core_stats *c, bool topsp,
			     uint32_t index)
{
	bool added;
	struct unit *u = unit_of((void **)&c->units, &c->nunits, sizeof(*c->units),
				 (struct unit_id){ topsp, index }, &added);

	if (added)
		u->idle.max = s->top;
	return u;
}

static void seen(uint64_t *first, uint64_t *last, bool *any, uint64_t ts)
{
	if (!*any || ts < *first)
		*first = ts;
	if (!*any || ts > *last)
		*last = ts;
	*any = true;
}

static void error_add(struct core_stats *c, uint32_t code, uint64_t ts)
{
	for (size_t i = 0; i < c->nerrs; i++) {
		if (c->errs[i].code == code) {
			c->errs[i].count++;
			if (ts < c->errs[i].first_ns)
				c->errs[i].first_ns = ts;
			return;
		}
	}
	c->errs = xgrow1(c->errs, c->nerrs, sizeof(*c->errs));
	c->errs[c->nerrs++] = (struct code_count){ .code = code, .count = 1, .first_ns = ts };
}

/* One TRACE entry whose end is now known. */
static void instruction_done(struct core_stats *c, struct unit *u, uint32_t code, uint64_t ts,
			     uint64_t end, uint64_t *prev_end, bool *have_prev)
{
	struct op_stats *o = op_get(u, code);

	push_u64(&o->dur, &o->n, &o->cap, end - ts);
	u->busy += end - ts;
	/*
	 * Instructions of a queue follow each other: one that starts within
	 * the last interval (usually at its end) extends it, so the core keeps
	 * about an interval per EVENT window of each unit, not per instruction.
	 */
	if (c->niv && ts >= c->iv[c->niv - 1].start && ts <= c->iv[c->niv - 1].end) {
		if (end > c->iv[c->niv - 1].end)
			c->iv[c->niv - 1].end = end;
	} else if (end > ts) {
		c->iv = xgrow(c->iv, c->niv, &c->iv_cap, sizeof(*c->iv));
		c->iv[c->niv++] = (struct busy_iv){ ts, end };
	}
	if (*have_prev && ts > *prev_end)
		gap_add(&u->idle, *prev_end, ts);
	*prev_end = end;
	*have_prev = true;
}

/* instruction_done(), and the observer told. */
static void instruction_seen(struct rec_stats *s, const struct prof_file *f, uint32_t core,
			     struct core_stats *c, struct unit *u, const struct entry *e,
			     uint64_t end, uint64_t *prev_end, bool *have_prev)
{
	instruction_done(c, u, e->code, e->ts, end, prev_end, have_prev);
	if (s->obs && s->obs->instruction)
		s->obs->instruction(s->obs->ctx, f, core, u->topsp, u->index, e->ts, end);
}

/*
 * A TRACE entry whose end a loss hides (the next entry of its queue follows
 * a sequence gap, or it is the last one of a queue that lost entries after
 * it): counted, and left out of every figure; no idle gap spans it.
 */
static void instruction_cut(struct unit *u, bool *have_prev)
{
	u->cut++;
	*have_prev = false;
}

/* A loss window of queue @q of @c (struct loss_window): @lost entries between @start and @end. */
static void loss_window_add(struct core_stats *c, const struct nprof_ntff_queue *q,
			    uint64_t start, uint64_t end, uint64_t lost, bool tail)
{
	*XAPPEND(c->lw, c->nlw) = (struct loss_window){
		.start = start, .end = end > start ? end : start, .lost = lost,
		.queue_type = q->queue_type, .target_kind = q->target_kind,
		.target_index = q->target_index, .engine = q->engine, .tail = tail,
	};
}

/* @lq of @f and what it lost, @gaps missing from its sequence numbers. */
static struct queue_loss queue_loss_of(const struct prof_file *f, const struct prof_queue *lq,
				       uint64_t gaps)
{
	const struct nprof_ntff_queue *q = &lq->q;

	return (struct queue_loss){
		.file = f->path, .record = lq->first, .records = lq->nrec,
		.queue_type = q->queue_type, .target_kind = q->target_kind,
		.target_index = q->target_index, .engine = q->engine,
		.lost = q->lost_count, .gaps = gaps,
	};
}

static void loss_add(struct rec_stats *s, const struct prof_file *f, const struct prof_queue *lq,
		     uint64_t gaps)
{
	if (!lq->q.lost_count && !gaps)
		return;
	*XAPPEND(s->losses, s->nlosses) = queue_loss_of(f, lq, gaps);
}

/* A queue of raw entries: how many, of how many device entries, and losses. */
static void add_raw_queue(struct rec_stats *s, const struct prof_file *f,
			  const struct prof_queue *lq, struct progress *pg, uint64_t *done)
{
	const struct nprof_ntff_queue *q = &lq->q;
	uint64_t gaps = 0;
	struct seq_track seq = { 0 };
	struct queue_iter it;
	struct raw_queue *rq;
	struct raw_parts rp;
	struct raw_part part;
	uint32_t prev_index = 0;
	uint64_t base = *done;
	struct entry e;

	rq = XAPPEND(s->raws, s->nraws);
	*rq = (struct raw_queue){
		.dev = f->info.device.device_index,
		.core = queue_core(f, q), .format = f->info.device.raw_format,
		.clock_domain = f->info.device.clock_domain,
	};
	queue_iter_init(&it, f, lq);
	raw_parts_init(&rp, f, raw_slot_queue, &it);
	while (raw_parts_next(&rp, &e, &part)) {
		*done = base + rp.slots;
		progress_update(pg, *done);
		if (s->obs && s->obs->entry)
			s->obs->entry(s->obs->ctx, f, lq, rq->core, &e);
		rq->entries++;
		/* Parts of one device entry are consecutive and share its index. */
		if (!seq.have_prev || part.index != prev_index)
			rq->device_entries++;
		gaps += seq_skipped(&seq, e.seq);
		prev_index = part.index;
	}
	rq->q = queue_loss_of(f, lq, gaps);
	if (s->obs && s->obs->queue_done)
		s->obs->queue_done(s->obs->ctx, f, lq, rq->core, gaps);
	/* In 32-byte parts: a packed record's count as the unpacked ring entries'. */
	s->raw_entries += rq->entries;
	loss_add(s, f, lq, gaps);
}

/*
 * A queue of decoded entries, all its records in order: an instruction at
 * the end of one record ends at the next record's first entry, and EVENT
 * pairs and sequence numbers continue likewise.
 */
static void add_queue(struct rec_stats *s, const struct prof_file *f, const struct prof_queue *lq,
		      struct progress *pg, uint64_t *done)
{
	const struct nprof_ntff_queue *q = &lq->q;
	uint32_t core = queue_core(f, q);
	struct core_stats *c = core_get(s, f, core);
	struct unit *u = NULL;
	struct queue_iter it;
	struct entry e, start = { 0 }, pend = { 0 };
	bool open = false, have_pend = false, have_iend = false, have_prev = false;
	uint64_t gaps = 0, iend = 0, prev_ts = 0, skipped, unplaced;
	struct seq_track seq = { 0 };
	struct instr_clock clk;
	const void *p;

	switch (q->queue_type) {
	case NEURONPROF_QT_TRACE:
	case NEURONPROF_QT_EVENT:
	case NEURONPROF_QT_DMA:
		u = unit_get(s, c, false, q->engine);
		break;
	case NEURONPROF_QT_TOPSP_TRACE:
	case NEURONPROF_QT_TOPSP_EVENT:
	case NEURONPROF_QT_TOPSP_ERROR:
		u = unit_get(s, c, true, q->target_index);
		break;
	default:
		break;
	}

	instr_clock_init(&clk, timing_core(&s->timing, c->dev, core), u && u->topsp,
			 u ? u->index : 0);
	queue_iter_init(&it, f, lq);
	while ((p = queue_iter_next(&it))) {
		entry_decode(p, it.entry_size, &e);
		progress_update(pg, ++*done);
		skipped = seq_skipped(&seq, e.seq);
		gaps += skipped;
		if (skipped)
			loss_window_add(c, q, prev_ts, e.ts, skipped, false);
		prev_ts = e.ts;
		have_prev = true;
		seen(&c->first, &c->last, &c->any, e.ts);
		if (u)
			seen(&u->first, &u->last, &u->any, e.ts);
		if (s->obs && s->obs->entry)
			s->obs->entry(s->obs->ctx, f, lq, core, &e);

		switch (q->queue_type) {
		case NEURONPROF_QT_TRACE:
		case NEURONPROF_QT_TOPSP_TRACE:
			u->instructions++;
			if (have_pend && skipped)
				instruction_cut(u, &have_iend);
			else if (have_pend)
				instruction_seen(s, f, core, c, u, &pend,
						 instr_end(&clk, pend.ts, true, e.ts), &iend,
						 &have_iend);
			pend = e;
			have_pend = true;
			break;
		case NEURONPROF_QT_DMA:
			u->dma++;
			u->dma_bytes += e.payload[0];
			break;
		case NEURONPROF_QT_EVENT:
		case NEURONPROF_QT_TOPSP_EVENT:
			u->events++;
			/* A pair never spans a loss. */
			if (skipped)
				open = false;
			if (e.code == EVENT_CODE_START) {
				start = e;
				open = true;
			} else if (e.code == EVENT_CODE_END && open) {
				u->event_slices++;
				u->event_busy += e.ts - start.ts;
				open = false;
			}
			break;
		case NEURONPROF_QT_ERROR:
			c->errors++;
			error_add(c, e.code, e.ts);
			break;
		case NEURONPROF_QT_TOPSP_ERROR:
			u->errors++;
			c->errors++;
			error_add(c, e.code, e.ts);
			break;
		case NEURONPROF_QT_THROTTLE:
			c->throttles++;
			if (e.code > c->max_throttle)
				c->max_throttle = e.code;
			c->marks = xgrow(c->marks, c->nmarks, &c->marks_cap, sizeof(*c->marks));
			c->marks[c->nmarks++] = (struct throttle_mark){ .ts = e.ts,
								       .level = e.code };
			break;
		default:
			break;
		}
	}
	/* What the ring counted beyond the gaps was lost after the last entry. */
	unplaced = q->lost_count > gaps ? q->lost_count - gaps : 0;
	if (unplaced)
		loss_window_add(c, q, have_prev ? prev_ts : f->info.start_ns,
				f->info.stop_ns, unplaced, true);
	if (have_pend && unplaced)
		instruction_cut(u, &have_iend);
	else if (have_pend)
		instruction_seen(s, f, core, c, u, &pend, instr_end(&clk, pend.ts, false, 0), &iend,
				 &have_iend);
	instr_clock_free(&clk);
	if (s->obs && s->obs->queue_done)
		s->obs->queue_done(s->obs->ctx, f, lq, core, gaps);
	c->entries += q->entry_count;
	c->lost += q->lost_count;
	c->gaps += gaps;
	if (u) {
		u->lost += q->lost_count;
		u->gaps += gaps;
	}
	loss_add(s, f, lq, gaps);
}

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

static void rec_stats_build_opts(struct rec_stats *s, const struct recording *r,
				 unsigned int top, struct progress *pg, uint64_t *done,
				 const struct stats_observer *obs, bool keep);

void rec_stats_build(struct rec_stats *s, const struct recording *r, unsigned int top,
		     struct progress *pg, uint64_t *done)
{
	rec_stats_build_observed(s, r, top, pg, done, NULL);
}

void rec_stats_build_durations(struct rec_stats *s, const struct recording *r,
			       unsigned int top, struct progress *pg, uint64_t *done)
{
	rec_stats_build_opts(s, r, top, pg, done, NULL, true);
}

void rec_stats_build_observed(struct rec_stats *s, const struct recording *r, unsigned int top,
			      struct progress *pg, uint64_t *done,
			      const struct stats_observer *obs)
{
	rec_stats_build_opts(s, r, top, pg, done, obs, false);
}

static void rec_stats_build_opts(struct rec_stats *s, const struct recording *r,
				 unsigned int top, struct progress *pg, uint64_t *done,
				 const struct stats_observer *obs, bool keep)
{
	memset(s, 0, sizeof(*s));
	s->keep_durations = keep;
	s->rec = r;
	s->obs = obs;
	s->top = top;
	timing_build(&s->timing, r->files, r->nfiles, NULL, r->sys, r->sys ? 1 : 0, NULL, 0);
	for (size_t i = 0; i < r->nfiles; i++) {
		const struct prof_file *f = r->files[i];

		s->queues += f->nqueues;
		s->entries += f->entries;
		for (size_t k = 0; k < f->nlqueues; k++)
			if (file_is_raw(f))
				add_raw_queue(s, f, &f->lqueues[k], pg, done);
			else
				add_queue(s, f, &f->lqueues[k], pg, done);
	}
	if (s->ncores > 1)
		qsort(s->cores, s->ncores, sizeof(*s->cores), cmp_core);
	for (size_t i = 0; i < s->ncores; i++)
		finish_core(s, i, &s->timing);
	finish_xops(s);
	build_models(s);
	build_host(s);
}

void rec_stats_free(struct rec_stats *s)
{
	for (size_t i = 0; i < s->ncores; i++) {
		struct core_stats *c = &s->cores[i];

		for (size_t k = 0; k < c->nunits; k++) {
			for (size_t o = 0; o < c->units[k].nops; o++)
				free(c->units[k].ops[o].dur);
			free(c->units[k].ops);
			free(c->units[k].idle.g);
		}
		free(c->units);
		free(c->iv);
		free(c->lw);
		free(c->errs);
		free(c->levels);
		free(c->idle.g);
	}
	free(s->cores);
	free(s->losses);
	free(s->raws);
	free(s->models);
	for (size_t i = 0; i < s->nxops; i++) {
		free(s->xops[i].dur);
		free(s->xops[i].cores);
	}
	free(s->xops);
	free(s->host);
	timing_free(&s->timing);
	memset(s, 0, sizeof(*s));
}

/* Index + 1 of the last execution of @ct starting at or before @ts; 0 if none. */
static size_t exec_at(const struct core_timing *ct, uint64_t ts)
{
	size_t lo = 0, hi = ct ? ct->nexec : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ct->exec[mid].start <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *exec_where(const struct core_timing *ct, uint64_t start, uint64_t end, char *buf,
		       size_t len)
{
	size_t ks = exec_at(ct, start), ke = exec_at(ct, end);

	if (ks != ke) {
		if (ks)
			snprintf(buf, len, "from execution %zu to execution %zu", ks - 1, ke - 1);
		else
			snprintf(buf, len, "before execution %zu", ke - 1);
	} else if (!ks) {
		snprintf(buf, len, "before the first execution");
	} else if (end <= ct->exec[ks - 1].stop) {
		snprintf(buf, len, "in execution %zu", ks - 1);
	} else {
		snprintf(buf, len, "after execution %zu", ks - 1);
	}
	return buf;
}

int paths_load(struct path_set *ps, char *const *paths, size_t n, bool keep, const char *verb)
{
	bool loaded_any = false;
	size_t k = 0;

	*ps = (struct path_set){ .paths = xcalloc(n, sizeof(*ps->paths)), .npaths = n };
	for (size_t i = 0; i < n; i++) {
		struct path_recordings *p = &ps->paths[i];
		struct stat st;
		size_t nskip = 0;

		if (profile_load_opts(paths[i], &p->prof, keep, &nskip)) {
			ps->skipped += nskip + 1;
			if (!keep)
				return EXIT_FAIL;
			warn("%s: skipped (--keep-going)", paths[i]);
			continue;
		}
		ps->skipped += nskip;
		loaded_any = true;
		p->loaded = true;
		p->recs = recordings_split(&p->prof, paths[i],
					   !stat(paths[i], &st) && !S_ISDIR(st.st_mode), &p->nrec);
		ps->nrec += p->nrec;
		ps->nfiles += p->prof.nfiles;
		ps->entries += p->prof.entries;
	}
	if (!loaded_any)
		return fail("nothing to %s: no PATH could be read", verb);
	ps->recs = xcalloc(ps->nrec, sizeof(*ps->recs));
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < ps->paths[i].nrec; r++)
			ps->recs[k++] = &ps->paths[i].recs[r];
	return 0;
}

void paths_free(struct path_set *ps)
{
	for (size_t i = 0; i < ps->npaths; i++) {
		if (!ps->paths[i].loaded)
			continue;
		recordings_free(ps->paths[i].recs, ps->paths[i].nrec);
		profile_free(&ps->paths[i].prof);
	}
	free(ps->paths);
	free(ps->recs);
}

const char *unit_label(const struct unit *u, char *buf, size_t len)
{
	const char *n = engine_name(u->index);

	if (u->topsp)
		snprintf(buf, len, "topsp%u", u->index);
	else if (n)
		snprintf(buf, len, "%u:%s", u->index, n);
	else
		snprintf(buf, len, "%u", u->index);
	return buf;
}

bool core_any_unit_gaps(const struct core_stats *c)
{
	for (size_t k = 0; k < c->nunits; k++)
		if (c->units[k].idle.n)
			return true;
	return false;
}

void recording_print_ranges(const struct recording *r, const char *indent)
{
	for (size_t i = 0; i < r->nfiles; i++) {
		const struct prof_file *f = r->files[i];
		const char *base = strrchr(f->path, '/');

		if (!f->info.exec_first)
			continue;
		printf("%scaptured executions %" PRIu64 "-%" PRIu64 " of NeuronCore %u (%s)\n",
		       indent, f->info.exec_first, f->info.exec_last, f->info.core,
		       base ? base + 1 : f->path);
	}
}
