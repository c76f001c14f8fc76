// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the comparison of two recordings (diff.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "util/util.h"

/* ---- the test ------------------------------------------------------------------ */

double diff_mann_whitney(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
			 double *u, double *z)
{
	double r1 = 0, ties = 0, rank = 0, nn = (double)na * (double)nb, n = (double)(na + nb);
	double mu, var, dev;
	size_t i = 0, k = 0;

	/* One merge of the sorted samples: each run of equal values shares its mean rank. */
	while (i < na || k < nb) {
		uint64_t v = i < na && (k >= nb || a[i] <= b[k]) ? a[i] : b[k];
		double ca = 0, cb = 0, t;

		while (i < na && a[i] == v) {
			i++;
			ca++;
		}
		while (k < nb && b[k] == v) {
			k++;
			cb++;
		}
		t = ca + cb;
		r1 += ca * (rank + (t + 1) / 2);
		rank += t;
		ties += t * t * t - t;
	}
	*u = r1 - (double)na * ((double)na + 1) / 2;
	mu = nn / 2;
	var = n > 1 ? nn / 12 * ((n + 1) - ties / (n * (n - 1))) : 0;
	if (var <= 0) {
		*z = 0;
		return 1;
	}
	/* U of a large when a is larger: z > 0 when b (NEW) tends larger. */
	dev = fabs(*u - mu) - 0.5;
	*z = (dev > 0 ? dev : 0) / sqrt(var) * (*u > mu ? -1 : 1);
	return erfc(fabs(*z) / sqrt(2.0));
}

/* ---- rows ---------------------------------------------------------------------- */

static uint64_t core_execs(const struct core_stats *c)
{
	return c && c->ct ? c->ct->nexec : 0;
}

static double per(uint64_t total, uint64_t execs)
{
	return execs ? (double)total / (double)execs : (double)total;
}

/* Side @side of @r (0: BASE, 1: NEW). */
static struct diff_side *row_side(struct diff_row *r, int side)
{
	return side ? &r->new : &r->base;
}

/*
 * Side @side of @r from the distribution @d over @execs executions, and its
 * samples @samples (the test's). An item of both sides fills both in one
 * row, added from BASE: its own side and then the other's.
 */
static void side_dist(struct diff_row *r, int side, const struct dist *d, uint64_t execs,
		      const uint64_t *samples)
{
	struct diff_side *s = row_side(r, side);

	*(side ? &r->sn : &r->sb) = samples;
	s->present = true;
	s->n = d->count;
	s->total = d->total;
	s->median = d->median;
	s->p95 = d->p95;
	s->value = d->count ? (double)d->total / (double)d->count : 0;
	s->executions = execs;
	s->per_exec = per(d->total, execs);
}

static struct diff_row *row_add(struct diff *d, enum diff_kind kind)
{
	struct diff_row *r = XAPPEND(d->rows, d->nrows);

	memset(r, 0, sizeof(*r));
	r->kind = kind;
	return r;
}

/*
 * A row of @kind for an item of side @side whose match on the other side
 * is @other (NULL: none); NULL when the item has one there and this is NEW:
 * an item of both sides is one row, added from BASE.
 */
static struct diff_row *row_add_once(struct diff *d, enum diff_kind kind, int side,
				     const void *other)
{
	return side == 1 && other ? NULL : row_add(d, kind);
}

static const struct core_stats *core_find(const struct rec_stats *s, uint32_t dev, uint32_t core)
{
	for (size_t i = 0; i < s->ncores; i++)
		if (s->cores[i].dev == dev && s->cores[i].core == core)
			return &s->cores[i];
	return NULL;
}

static const struct op_stats *op_find(const struct unit *u, uint32_t code)
{
	for (size_t i = 0; u && i < u->nops; i++)
		if (u->ops[i].code == code)
			return &u->ops[i];
	return NULL;
}

/* An op as one side has it: its durations, their samples, the executions, its name. */
struct op_side {
	const struct dist *d;
	const uint64_t *dur;
	uint64_t execs;
	const char *name;
};

/*
 * The op of unit @unit (a TopSP if @topsp) of opcode @code into @r: side
 * @side is @mine, the other side @other (NULL: it has no such op). Named as
 * BASE's device names it, else as NEW's.
 */
static void op_row(struct diff_row *r, int side, bool topsp, uint32_t unit, uint32_t code,
		   const struct op_side *mine, const struct op_side *other)
{
	r->topsp = topsp;
	r->unit = unit;
	r->code = code;
	r->name = mine->name;
	if (!r->name && other)
		r->name = other->name;
	side_dist(r, side, mine->d, mine->execs, mine->dur);
	if (other)
		side_dist(r, !side, other->d, other->execs, other->dur);
}

/* The ops of the units of @c (of BASE) and @cn (of NEW); either may be NULL. */
static void core_ops(struct diff *d, const struct core_stats *cb, const struct core_stats *cn)
{
	const struct core_stats *cs[2] = { cb, cn };

	for (int side = 0; side < 2; side++) {
		const struct core_stats *c = cs[side], *o = cs[!side];

		for (size_t k = 0; c && k < c->nunits; k++) {
			const struct unit *u = &c->units[k];
			const struct unit *ou = o ? unit_find(o->units, o->nunits, sizeof(*o->units),
							      u->id) : NULL;

			for (size_t i = 0; i < u->nops; i++) {
				const struct op_stats *op = &u->ops[i], *oop = op_find(ou, op->code);
				struct diff_row *r = row_add_once(d, DIFF_OP, side, oop);

				if (!r)
					continue;
				r->dev = c->dev;
				r->core = c->core;
				op_row(r, side, u->topsp, u->index, op->code,
				       &(struct op_side){ &op->d, op->dur, core_execs(c),
							  unit_op_name(c, u, op->code) },
				       oop ? &(struct op_side){ &oop->d, oop->dur, core_execs(o),
								unit_op_name(o, ou, op->code) } : NULL);
			}
		}
	}
}

static const struct xop *xop_find(const struct rec_stats *s, const struct xop *x)
{
	for (size_t i = 0; i < s->nxops; i++)
		if (s->xops[i].topsp == x->topsp && s->xops[i].index == x->index &&
		    s->xops[i].code == x->code)
			return &s->xops[i];
	return NULL;
}

/* The executions of the cores that ran @x. */
static uint64_t xop_execs(const struct rec_stats *s, const struct xop *x)
{
	uint64_t n = 0;

	for (size_t i = 0; i < x->ncores; i++)
		n += core_execs(&s->cores[x->cores[i]]);
	return n;
}

static void all_ops(struct diff *d, const struct rec_stats *b, const struct rec_stats *n)
{
	const struct rec_stats *ss[2] = { b, n };

	for (int side = 0; side < 2; side++) {
		const struct rec_stats *s = ss[side], *o = ss[!side];

		for (size_t i = 0; i < s->nxops; i++) {
			const struct xop *x = &s->xops[i], *ox = xop_find(o, x);
			struct diff_row *r = row_add_once(d, DIFF_OP_ALL, side, ox);

			if (!r)
				continue;
			op_row(r, side, x->topsp, x->index, x->code,
			       &(struct op_side){ &x->d, x->dur, xop_execs(s, x), xop_name(s, x) },
			       ox ? &(struct op_side){ &ox->d, ox->dur, xop_execs(o, ox),
						       xop_name(o, ox) } : NULL);
		}
	}
}

/* The execution latencies of model @id, sorted (as build_models() takes them). */
static uint64_t *latencies(const struct rec_stats *s, uint32_t id, size_t *count)
{
	const struct timing *t = &s->timing;
	uint64_t *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t k = 0; k < t->ncores; k++)
		for (size_t i = 0; i < t->cores[k].nexec; i++) {
			const struct execution *x = &t->cores[k].exec[i];

			if (x->model_id != id)
				continue;
			v = xgrow(v, n, &cap, sizeof(*v));
			v[n++] = x->stop - x->start;
		}
	sort_u64(v, n);
	*count = n;
	return v;
}

static const struct model_stats *model_find(const struct rec_stats *s, uint32_t id)
{
	for (size_t i = 0; i < s->nmodels; i++)
		if (s->models[i].model_id == id)
			return &s->models[i];
	return NULL;
}

static void model_side(struct diff_row *r, int side, const struct rec_stats *s,
		       const struct model_stats *m)
{
	size_t n;

	side_dist(r, side, &m->lat, m->lat.count, latencies(s, m->model_id, &n));
}

static void models(struct diff *d, const struct rec_stats *b, const struct rec_stats *n)
{
	const struct rec_stats *ss[2] = { b, n };

	for (int side = 0; side < 2; side++) {
		const struct rec_stats *s = ss[side], *o = ss[!side];

		for (size_t i = 0; i < s->nmodels; i++) {
			const struct model_stats *m = &s->models[i], *om = model_find(o, m->model_id);
			struct diff_row *r = row_add_once(d, DIFF_LATENCY, side, om);

			if (!r)
				continue;
			r->own = true;
			r->model_id = m->model_id;
			r->name = m->name ? m->name : om ? om->name : NULL;
			model_side(r, side, s, m);
			if (om)
				model_side(r, !side, o, om);
		}
	}
}

static uint64_t core_dma(const struct core_stats *c)
{
	uint64_t v = 0;

	for (size_t k = 0; k < c->nunits; k++)
		v += c->units[k].dma_bytes;
	return v;
}

/* A per-core counter of @c into @s: @v, per execution for the time rows. */
static void counter_side(struct diff_side *s, enum diff_kind kind, const struct core_stats *c)
{
	s->present = true;
	s->executions = core_execs(c);
	switch (kind) {
	case DIFF_BUSY:
		s->total = c->busy;
		s->value = (double)c->busy;
		s->per_exec = per(c->busy, s->executions);
		break;
	case DIFF_UTIL:
		s->value = c->util_pct;
		break;
	case DIFF_DMA:
		s->total = core_dma(c);
		s->value = (double)s->total;
		break;
	default:
		s->total = c->errors;
		s->value = (double)c->errors;
		break;
	}
}

static void cores(struct diff *d, const struct rec_stats *b, const struct rec_stats *n)
{
	static const enum diff_kind kinds[] = { DIFF_BUSY, DIFF_UTIL, DIFF_DMA, DIFF_ERRORS };
	const struct rec_stats *ss[2] = { b, n };

	for (int side = 0; side < 2; side++) {
		const struct rec_stats *s = ss[side], *o = ss[!side];

		for (size_t i = 0; i < s->ncores; i++) {
			const struct core_stats *c = &s->cores[i];
			const struct core_stats *oc = core_find(o, c->dev, c->core);

			if (side == 1 && oc)
				continue;
			if (side == 0)
				core_ops(d, c, oc);
			else
				core_ops(d, NULL, c);
			for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
				struct diff_row *r = row_add(d, kinds[k]);

				r->dev = c->dev;
				r->core = c->core;
				counter_side(row_side(r, side), kinds[k], c);
				if (oc)
					counter_side(row_side(r, !side), kinds[k], oc);
			}
		}
	}
}

/* ---- changes, tests, ranks ------------------------------------------------------ */

static void change_of(struct diff_row *r)
{
	double bv = r->base.value, nv = r->new.value;

	r->change = nv - bv;
	r->change_per_exec = r->new.per_exec - r->base.per_exec;
	if (r->kind == DIFF_UTIL || r->kind == DIFF_ERRORS)
		r->change_per_exec = 0;
	if (r->kind == DIFF_DMA)
		r->change_per_exec = 0;
	if (!r->base.present || !r->new.present)
		return;
	/* Busy time and DMA bytes: per execution when both sides have executions. */
	if ((r->kind == DIFF_BUSY || r->kind == DIFF_DMA) && r->base.executions &&
	    r->new.executions) {
		bv /= (double)r->base.executions;
		nv /= (double)r->new.executions;
	}
	if (bv != 0) {
		r->has_pct = true;
		r->change_pct = 100.0 * (nv - bv) / bv;
	}
}

/*
 * What a row of each kind is: its name (diff_kind_name()), whether it
 * compares samples of durations (which are tested), and the threshold of
 * the gate it is held to (GATE_N: none; errors have the gate's own).
 */
static const struct {
	const char *name;
	bool samples;
	enum diff_gate_kind gate;
} kinds[] = {
	[DIFF_OP] = { "op", true, GATE_OP },
	[DIFF_OP_ALL] = { "op_all", true, GATE_OP },
	[DIFF_LATENCY] = { "latency", true, GATE_LATENCY },
	[DIFF_BUSY] = { "busy", false, GATE_BUSY },
	[DIFF_UTIL] = { "util", false, GATE_N },
	[DIFF_DMA] = { "dma_bytes", false, GATE_DMA },
	[DIFF_ERRORS] = { "errors", false, GATE_N },
};

static bool is_samples(enum diff_kind k)
{
	return kinds[k].samples;
}

static int cmp_p(const void *a, const void *b)
{
	const struct diff_row *x = *(struct diff_row *const *)a, *y = *(struct diff_row *const *)b;

	return cmp_int(x->p, y->p);
}

/* Holm's step-down adjustment over the tested rows. */
static void holm(struct diff *d)
{
	struct diff_row **t = xcalloc(d->nrows ? d->nrows : 1, sizeof(*t));
	size_t m = 0;
	double run = 0;

	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[i].tested)
			t[m++] = &d->rows[i];
	if (m > 1)
		qsort(t, m, sizeof(*t), cmp_p);
	for (size_t i = 0; i < m; i++) {
		double adj = (double)(m - i) * t[i]->p;

		if (adj > 1)
			adj = 1;
		if (adj < run)
			adj = run;
		run = adj;
		t[i]->p_adj = adj;
		t[i]->significant = adj < d->alpha;
	}
	d->ntests = m;
	free(t);
}

static int kind_rank(enum diff_kind k)
{
	return k == DIFF_UTIL || k == DIFF_DMA || k == DIFF_ERRORS;
}

static int cmp_row(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;

	return cmp_int(kind_rank(x->kind), kind_rank(y->kind)) ?:
	       cmp_int(fabs(y->change_per_exec), fabs(x->change_per_exec)) ?:
	       cmp_int(x->kind, y->kind) ?: cmp_int(x->dev, y->dev) ?:
	       cmp_int(x->core, y->core) ?: cmp_int(x->topsp, y->topsp) ?:
	       cmp_int(x->unit, y->unit) ?: cmp_int(x->code, y->code) ?:
	       cmp_int(x->model_id, y->model_id);
}

static void side_totals(struct diff_total *t, const struct rec_stats *s)
{
	t->cores = s->ncores;
	t->files = s->rec->nfiles;
	t->entries = s->entries;
	for (size_t i = 0; i < s->ncores; i++)
		t->executions += core_execs(&s->cores[i]);
	for (size_t i = 0; i < s->nlosses; i++)
		t->lost += s->losses[i].lost > s->losses[i].gaps ? s->losses[i].lost :
			   s->losses[i].gaps;
}

void diff_build(struct diff *d, const struct rec_stats *b, const struct rec_stats *n,
		double alpha)
{
	memset(d, 0, sizeof(*d));
	d->alpha = alpha;
	side_totals(&d->base, b);
	side_totals(&d->new, n);
	cores(d, b, n);
	all_ops(d, b, n);
	models(d, b, n);
	for (size_t i = 0; i < d->nrows; i++) {
		struct diff_row *r = &d->rows[i];

		change_of(r);
		if (is_samples(r->kind) && r->base.present && r->new.present &&
		    r->base.n >= DIFF_MIN_SAMPLES && r->new.n >= DIFF_MIN_SAMPLES && r->sb &&
		    r->sn) {
			r->tested = true;
			r->p = diff_mann_whitney(r->sb, r->base.n, r->sn, r->new.n, &r->u, &r->z);
		}
	}
	holm(d);
	if (d->nrows > 1)
		qsort(d->rows, d->nrows, sizeof(*d->rows), cmp_row);
}

void diff_free(struct diff *d)
{
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[i].own) {
			free((void *)d->rows[i].sb);
			free((void *)d->rows[i].sn);
		}
	free(d->rows);
	memset(d, 0, sizeof(*d));
}

const char *diff_kind_name(enum diff_kind k)
{
	return kinds[k].name;
}

const char *diff_verdict(const struct diff_row *r)
{
	if (!r->base.present)
		return "new";
	if (!r->new.present)
		return "gone";
	if (is_samples(r->kind)) {
		if (!r->tested)
			return "untested";
		if (!r->significant)
			return "unchanged";
		return r->z > 0 ? "slower" : "faster";
	}
	if (r->change > 0)
		return "more";
	if (r->change < 0)
		return "less";
	return "unchanged";
}

#define DIFF_GATE_NAME(kind, name)	[kind] = name,
const char *const diff_gate_names[GATE_N] = { DIFF_GATES(DIFF_GATE_NAME) };
#undef DIFF_GATE_NAME

void diff_gate_off(struct diff_gate *g)
{
	for (int k = 0; k < GATE_N; k++)
		g->pct[k] = -1;
	g->errors = false;
}

bool diff_regressed(const struct diff_row *r, const struct diff_gate *g)
{
	double thr;

	if (r->kind == DIFF_ERRORS)
		return g->errors && r->change > 0;
	if (kinds[r->kind].gate == GATE_N)
		return false;
	thr = g->pct[kinds[r->kind].gate];
	if (thr < 0 || !r->has_pct || r->change_pct <= thr)
		return false;
	return is_samples(r->kind) ? r->significant && r->z > 0 : true;
}
