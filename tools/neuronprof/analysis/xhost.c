// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): several machines' recordings compared (xhost.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/machines.h"
#include "analysis/xhost.h"

struct sample {
	size_t machine, index;
	uint32_t dev, core;
	uint64_t ns;
};

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return cmp_int(x->index, y->index) ?: cmp_int(x->machine, y->machine) ?:
	       cmp_int(x->dev, y->dev) ?: cmp_int(x->core, y->core);
}

static void op_add(struct xhost_machine *m, uint32_t code, const char *name, uint64_t count,
		   uint64_t total)
{
	size_t i;

	for (i = 0; i < m->nops && m->ops[i].code != code; i++)
		;
	if (i == m->nops) {
		m->ops = xgrow1(m->ops, m->nops, sizeof(*m->ops));
		m->ops[m->nops++].code = code;
	}
	if (!m->ops[i].name)
		m->ops[i].name = name;
	m->ops[i].count += count;
	m->ops[i].total += total;
}

static const struct xhost_op *op_find(const struct xhost_machine *m, uint32_t code)
{
	for (size_t i = 0; i < m->nops; i++)
		if (m->ops[i].code == code)
			return &m->ops[i];
	return NULL;
}

static void diff_add(struct xhost *x, uint32_t code)
{
	const struct xhost_op *s = op_find(&x->m[x->slowest], code);
	const struct xhost_op *md = op_find(&x->m[x->median], code);
	struct xhost_opdiff *d;

	for (size_t i = 0; i < x->nops; i++)
		if (x->ops[i].code == code)
			return;
	d = XAPPEND(x->ops, x->nops);
	d->code = code;
	d->name = s && s->name ? s->name : md ? md->name : NULL;
	d->slow_count = s ? s->count : 0;
	d->slow_total = s ? s->total : 0;
	d->median_count = md ? md->count : 0;
	d->median_total = md ? md->total : 0;
	d->diff_ns = (int64_t)d->slow_total - (int64_t)d->median_total;
}

static int cmp_diff(const void *a, const void *b)
{
	const struct xhost_opdiff *x = a, *y = b;
	uint64_t ax = (uint64_t)llabs(x->diff_ns), ay = (uint64_t)llabs(y->diff_ns);

	return cmp_int(ay, ax) ?: cmp_int(x->code, y->code);
}

/* Machines by total execution time, ties in machine order. */
static const struct xhost *sort_ctx;

static int cmp_machine(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	uint64_t tx = sort_ctx->m[*x].exec_ns, ty = sort_ctx->m[*y].exec_ns;

	return cmp_int(tx, ty) ?: cmp_int(*x, *y);
}

bool xhost_build(struct xhost *x, const struct rec_stats *s, size_t n, unsigned int top)
{
	struct sample *v = NULL;
	size_t nv = 0, *order;

	memset(x, 0, sizeof(*x));
	x->m = xcalloc(n + 1, sizeof(*x->m));
	for (size_t r = 0; r < n; r++) {
		const char *name = recording_machine_name(s[r].rec);
		struct xhost_machine *m;
		size_t k;

		for (k = 0; k < x->nm && strcmp(x->m[k].name, name); k++)
			;
		m = &x->m[k];
		if (k == x->nm) {
			m->name = name;
			x->nm++;
		}
		m->recordings++;
		m->mapped |= recording_has_mapping(s[r].rec);
		for (size_t c = 0; c < s[r].ncores; c++) {
			const struct core_stats *cs = &s[r].cores[c];
			const struct core_timing *ct = cs->ct;

			m->cores++;
			m->busy += cs->busy;
			m->errors += cs->errors;
			m->lost += cs->lost;
			for (size_t u = 0; u < cs->nunits; u++) {
				const struct unit *un = &cs->units[u];

				m->instructions += un->instructions;
				m->dma_bytes += un->dma_bytes;
				for (size_t o = 0; o < un->nops; o++)
					op_add(m, un->ops[o].code,
					       unit_op_name(cs, un, un->ops[o].code),
					       un->ops[o].d.count, un->ops[o].d.total);
			}
			for (size_t e = 0; ct && e < ct->nexec; e++) {
				uint64_t lat = ct->exec[e].stop - ct->exec[e].start;

				m->executions++;
				m->exec_ns += lat;
				v = xgrow1(v, nv, sizeof(*v));
				v[nv++] = (struct sample){ .machine = k, .index = e, .dev = cs->dev,
							   .core = cs->core, .ns = lat };
			}
		}
	}
	if (x->nm < 2) {
		free(v);
		xhost_free(x);
		return false;
	}
	for (size_t k = 0; k < x->nm; k++)
		if (!x->m[k].mapped)
			warn("%s: no clock mapping (trace_info.pb with start_ns and "
			     "start_realtime_ns): compared by execution index and durations only",
			     x->m[k].name);

	/* Per execution index: slowest, fastest (the first of equals), skew. */
	if (nv > 1)
		qsort(v, nv, sizeof(*v), cmp_sample);
	for (size_t i = 0; i < nv;) {
		struct xhost_exec *e;
		size_t j, last_machine = SIZE_MAX;

		e = XAPPEND(x->x, x->nx);
		e->index = v[i].index;
		for (j = i; j < nv && v[j].index == v[i].index; j++) {
			struct xhost_side side = { v[j].machine, v[j].dev, v[j].core, v[j].ns };

			e->cores++;
			if (v[j].machine != last_machine)
				e->machines++;
			last_machine = v[j].machine;
			if (j == i || v[j].ns > e->slow.ns)
				e->slow = side;
			if (j == i || v[j].ns < e->fast.ns)
				e->fast = side;
		}
		e->skew_ns = e->slow.ns - e->fast.ns;
		i = j;
	}
	free(v);

	/* The slowest and the median machine, and the ops that set them apart. */
	order = xcalloc(x->nm, sizeof(*order));
	for (size_t k = 0; k < x->nm; k++)
		order[k] = k;
	sort_ctx = x;
	qsort(order, x->nm, sizeof(*order), cmp_machine);
	sort_ctx = NULL;
	x->slowest = order[x->nm - 1];
	x->median = order[(x->nm - 1) / 2];
	free(order);
	for (size_t i = 0; i < x->m[x->slowest].nops; i++)
		diff_add(x, x->m[x->slowest].ops[i].code);
	for (size_t i = 0; i < x->m[x->median].nops; i++)
		diff_add(x, x->m[x->median].ops[i].code);
	if (x->nops > 1)
		qsort(x->ops, x->nops, sizeof(*x->ops), cmp_diff);
	if (x->nops > top)
		x->nops = top;
	return true;
}

void xhost_free(struct xhost *x)
{
	for (size_t k = 0; k < x->nm; k++)
		free(x->m[k].ops);
	free(x->m);
	free(x->x);
	free(x->ops);
	memset(x, 0, sizeof(*x));
}
