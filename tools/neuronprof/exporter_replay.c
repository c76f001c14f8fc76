// SPDX-License-Identifier: MIT
/*
 * neuronprof exporter --replay: a recording's metrics, paced by its
 * timestamps (--replay-speed) and computed by summary's own code
 * (rec_stats_build_observed(), the timing model of timing.c), so that once
 * the replay is over every figure equals `neuronprof summary`'s; checked
 * against summary's numbers at its end.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/neuronprof_drm.h>

#include "analysis/summary.h"
#include "live.h"
#include "exporter.h"
#include "util/util.h"
#include "tool.h"
#include "analysis/profile.h"
#include "util/prom.h"

/* ---- replay: a recording ------------------------------------------------------ */

/* One change of a series at a time of the recording. */
struct rev {
	uint64_t ts;
	uint64_t v;
	uint32_t series;
	uint32_t set;			/* 1: set the gauge to @v; 0: add @v */
	uint64_t ord;			/* the order it was made in: ties keep it */
};

struct rinterval {
	uint32_t dev, core;
	uint64_t start, end;
};

/* The series of the queue being read, made at its first entry. */
struct rqueue_ids {
	const struct prof_queue *lq;
	size_t entries, busy, instr, dma, dma_bytes, errors, throttle;
	bool unit;
	uint64_t last_ts;
};

struct replay {
	struct prom *prom;
	struct rev *ev;
	size_t nev, cap;
	struct rinterval *iv;
	size_t niv, iv_cap;
	struct rqueue_ids cur;
};

static void rev_add(struct replay *r, uint64_t ts, size_t series, uint64_t v, bool set)
{
	r->ev = xgrow(r->ev, r->nev, &r->cap, sizeof(*r->ev));
	r->ev[r->nev] = (struct rev){ .ts = ts, .v = v, .series = (uint32_t)series,
				      .set = set, .ord = r->nev };
	r->nev++;
}

static size_t unit_series(struct prom *p, size_t fam, uint32_t dev, uint32_t core, bool topsp,
			  uint32_t index)
{
	char d[16], c[16], u[24];

	snprintf(d, sizeof(d), "%u", dev);
	snprintf(c, sizeof(c), "%u", core);
	return prom_series(p, fam, "device", d, "core", c, "engine",
			   prom_unit_label(topsp, index, u, sizeof(u)), NULL);
}

static size_t core_series(struct prom *p, size_t fam, uint32_t dev, uint32_t core)
{
	char d[16], c[16];

	snprintf(d, sizeof(d), "%u", dev);
	snprintf(c, sizeof(c), "%u", core);
	return prom_series(p, fam, "device", d, "core", c, NULL);
}

static size_t queue_series(struct prom *p, size_t fam, const struct prof_file *f,
			   const struct nprof_ntff_queue *q, uint32_t core)
{
	char d[16], c[16], e[24], qn[32];

	snprintf(d, sizeof(d), "%u", f->info.device.device_index);
	snprintf(c, sizeof(c), "%u", core);
	label_lower(qn, queue_name(q->queue_type), sizeof(qn));
	return prom_series(p, fam, "device", d, "core", c, "queue", qn, "engine",
			   queue_engine_label(q->target_kind, q->queue_type, q->target_index,
					      q->engine, e, sizeof(e)), NULL);
}

/* The series a queue's entries change, as summary attributes them (add_queue()). */
static void queue_ids(struct replay *r, const struct prof_file *f, const struct prof_queue *lq,
		      uint32_t core)
{
	const struct nprof_ntff_queue *q = &lq->q;
	uint32_t dev = f->info.device.device_index;
	struct rqueue_ids *k = &r->cur;
	bool topsp = false;

	memset(k, 0, sizeof(*k));
	k->lq = lq;
	k->entries = queue_series(r->prom, F_QUEUE_ENTRIES, f, q, core);
	if (file_is_raw(f))
		return;
	switch (q->queue_type) {
	case NEURONPROF_QT_TOPSP_TRACE:
	case NEURONPROF_QT_TOPSP_EVENT:
	case NEURONPROF_QT_TOPSP_ERROR:
		topsp = true;
		/* fall through */
	case NEURONPROF_QT_TRACE:
	case NEURONPROF_QT_EVENT:
	case NEURONPROF_QT_DMA:
		k->unit = true;
		k->instr = unit_series(r->prom, F_ENGINE_INSTR, dev, core, topsp,
				       topsp ? q->target_index : q->engine);
		k->busy = unit_series(r->prom, F_ENGINE_BUSY, dev, core, topsp,
				      topsp ? q->target_index : q->engine);
		if (q->queue_type == NEURONPROF_QT_DMA) {
			k->dma = unit_series(r->prom, F_ENGINE_DMA, dev, core, false, q->engine);
			k->dma_bytes = unit_series(r->prom, F_ENGINE_DMA_BYTES, dev, core, false,
						   q->engine);
		}
		break;
	default:
		break;
	}
	k->errors = core_series(r->prom, F_CORE_ERRORS, dev, core);
	k->throttle = core_series(r->prom, F_CORE_THROTTLE, dev, core);
}

static void obs_entry(void *ctx, const struct prof_file *f, const struct prof_queue *lq,
		      uint32_t core, const struct entry *e)
{
	struct replay *r = ctx;
	struct rqueue_ids *k = &r->cur;

	if (k->lq != lq)
		queue_ids(r, f, lq, core);
	k->last_ts = e->ts;
	rev_add(r, e->ts, k->entries, 1, false);
	if (file_is_raw(f))
		return;
	switch (lq->q.queue_type) {
	case NEURONPROF_QT_TRACE:
	case NEURONPROF_QT_TOPSP_TRACE:
		rev_add(r, e->ts, k->instr, 1, false);
		break;
	case NEURONPROF_QT_DMA:
		rev_add(r, e->ts, k->dma, 1, false);
		rev_add(r, e->ts, k->dma_bytes, e->payload[0], false);
		break;
	case NEURONPROF_QT_ERROR:
	case NEURONPROF_QT_TOPSP_ERROR:
		rev_add(r, e->ts, k->errors, 1, false);
		break;
	case NEURONPROF_QT_THROTTLE:
		rev_add(r, e->ts, k->throttle, e->code, true);
		break;
	default:
		break;
	}
}

/*
 * An instruction counts when it ends; the core's union is made afterwards.
 * It is one of the queue being read (r->cur), whose unit is @topsp @unit.
 */
static void obs_instruction(void *ctx, const struct prof_file *f, uint32_t core, bool topsp,
			    uint32_t unit, uint64_t ts, uint64_t end)
{
	struct replay *r = ctx;

	(void)topsp;
	(void)unit;
	rev_add(r, end, r->cur.busy, end - ts, false);
	if (end > ts) {
		r->iv = xgrow(r->iv, r->niv, &r->iv_cap, sizeof(*r->iv));
		r->iv[r->niv++] = (struct rinterval){ f->info.device.device_index, core, ts, end };
	}
}

/* Every queue has its series, entries or not; its losses count at its last entry. */
static void obs_queue_done(void *ctx, const struct prof_file *f, const struct prof_queue *lq,
			   uint32_t core, uint64_t gaps)
{
	struct replay *r = ctx;

	if (r->cur.lq != lq)
		queue_ids(r, f, lq, core);
	rev_add(r, r->cur.last_ts, queue_series(r->prom, F_QUEUE_LOST, f, &lq->q, core),
		lq->q.lost_count, false);
	rev_add(r, r->cur.last_ts, queue_series(r->prom, F_QUEUE_GAPS, f, &lq->q, core), gaps,
		false);
	r->cur.lq = NULL;
}

/* The part of [@start, @end] of a core of @st that a loss hid from view. */
static uint64_t core_unobserved(const struct rec_stats *st, uint32_t dev, uint32_t core,
				uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < st->ncores; i++)
		if (st->cores[i].dev == dev && st->cores[i].core == core)
			return st->cores[i].lossy ? core_unobserved_in(&st->cores[i], start, end) : 0;
	return 0;
}

static int cmp_rinterval(const void *a, const void *b)
{
	const struct rinterval *x = a, *y = b;

	return cmp_int(x->dev, y->dev) ?: cmp_int(x->core, y->core) ?:
	       cmp_int(x->start, y->start) ?: cmp_int(x->end, y->end);
}

static int cmp_rev(const void *a, const void *b)
{
	const struct rev *x = a, *y = b;

	return cmp_int(x->ts, y->ts) ?: cmp_int(x->ord, y->ord);
}

/*
 * A core's busy time: its instruction intervals merged into disjoint ones,
 * each counted at its end (summary's union of the same intervals), less
 * what the loss windows of its instruction queues cover: over observed
 * time, as summary counts it (Documentation/analysis.rst, Loss windows).
 */
static void core_busy_events(struct replay *r, const struct rec_stats *st)
{
	size_t i = 0;

	if (r->niv > 1)
		qsort(r->iv, r->niv, sizeof(*r->iv), cmp_rinterval);
	while (i < r->niv) {
		uint32_t dev = r->iv[i].dev, core = r->iv[i].core;
		size_t series = core_series(r->prom, F_CORE_BUSY, dev, core);
		uint64_t start = r->iv[i].start, end = r->iv[i].end;

		for (i++; i <= r->niv; i++) {
			if (i < r->niv && r->iv[i].dev == dev && r->iv[i].core == core &&
			    r->iv[i].start <= end) {
				if (r->iv[i].end > end)
					end = r->iv[i].end;
				continue;
			}
			rev_add(r, end, series, end - start - core_unobserved(st, dev, core, start, end),
				false);
			if (i == r->niv || r->iv[i].dev != dev || r->iv[i].core != core)
				break;
			start = r->iv[i].start;
			end = r->iv[i].end;
		}
	}
}

/* What the events add up to, per series (@n of them). */
static uint64_t *rev_totals(const struct replay *r, size_t n)
{
	uint64_t *t = xcalloc(n, sizeof(*t));

	for (size_t i = 0; i < r->nev; i++)
		if (!r->ev[i].set)
			t[r->ev[i].series] += r->ev[i].v;
	return t;
}

/*
 * The replay's totals against summary's figures of the same reading: they
 * come from the same code, so a difference is a bug here, said as such.
 */
static int replay_compare(struct replay *r, const struct rec_stats *st, const uint64_t *tot)
{
	for (size_t i = 0; i < st->ncores; i++) {
		const struct core_stats *c = &st->cores[i];
		uint64_t entries = 0;
		char core[16], dev[16];
		struct {
			size_t fam;
			uint64_t want;
		} cf[] = {
			{ F_CORE_BUSY, c->busy }, { F_CORE_INFER, c->inferences },
			{ F_CORE_ERRORS, c->errors },
		};

		for (size_t k = 0; k < sizeof(cf) / sizeof(cf[0]); k++) {
			uint64_t got = tot[core_series(r->prom, cf[k].fam, c->dev, c->core)];

			if (got != cf[k].want)
				return fail("internal error: %s of device %u core %u is %" PRIu64
					    ", summary says %" PRIu64, families[cf[k].fam].name,
					    c->dev, c->core, got, cf[k].want);
		}
		snprintf(dev, sizeof(dev), "%u", c->dev);
		snprintf(core, sizeof(core), "%u", c->core);
		for (size_t s = 0; s < r->prom->n; s++) {
			char want[64];

			snprintf(want, sizeof(want), "device=\"%s\",core=\"%s\",", dev, core);
			if (r->prom->s[s].fam == F_QUEUE_ENTRIES &&
			    !strncmp(r->prom->s[s].labels, want, strlen(want)))
				entries += tot[s];
		}
		if (entries != c->entries)
			return fail("internal error: entries of device %u core %u are %" PRIu64
				    ", summary says %" PRIu64, c->dev, c->core, entries, c->entries);
		for (size_t k = 0; k < c->nunits; k++) {
			const struct unit *u = &c->units[k];
			struct {
				size_t fam;
				uint64_t want;
			} uf[] = {
				{ F_ENGINE_BUSY, u->busy }, { F_ENGINE_INSTR, u->instructions },
				{ F_ENGINE_DMA, u->dma }, { F_ENGINE_DMA_BYTES, u->dma_bytes },
			};

			for (size_t m = 0; m < (u->topsp ? 2 : sizeof(uf) / sizeof(uf[0])); m++) {
				uint64_t got = tot[unit_series(r->prom, uf[m].fam, c->dev, c->core,
							       u->topsp, u->index)];

				if (got != uf[m].want)
					return fail("internal error: %s of device %u core %u %s %u is %"
						    PRIu64 ", summary says %" PRIu64,
						    families[uf[m].fam].name, c->dev, c->core,
						    u->topsp ? "TopSP" : "engine", u->index, got,
						    uf[m].want);
			}
		}
	}
	return 0;
}

static int replay_check(struct replay *r, const struct rec_stats *st)
{
	uint64_t *tot;
	int ret = 0;

	/* Every series the checks name exists before the totals are made. */
	for (size_t i = 0; i < st->ncores; i++) {
		const struct core_stats *c = &st->cores[i];

		core_series(r->prom, F_CORE_BUSY, c->dev, c->core);
		core_series(r->prom, F_CORE_INFER, c->dev, c->core);
		core_series(r->prom, F_CORE_ERRORS, c->dev, c->core);
		for (size_t k = 0; k < c->nunits; k++)
			for (size_t f = F_ENGINE_BUSY; f <= F_ENGINE_DMA_BYTES; f++)
				/* A TopSP has no DMA queue. */
				if (!c->units[k].topsp || f <= F_ENGINE_INSTR)
					unit_series(r->prom, f, c->dev, c->core,
						    c->units[k].topsp, c->units[k].index);
	}
	tot = rev_totals(r, r->prom->n);
	ret = replay_compare(r, st, tot);
	free(tot);
	return ret;
}

/* Read @path with summary's code into time-ordered events. Return: 0 or EXIT_FAIL. */
static int replay_load(struct exporter *x, const char *path, struct replay *r)
{
	struct stats_observer obs = {
		.ctx = r, .entry = obs_entry, .instruction = obs_instruction,
		.queue_done = obs_queue_done,
	};
	struct path_set ps;
	struct progress pg = { 0 };
	struct rec_stats st;
	uint64_t done = 0;
	char *paths[] = { (char *)path };
	int ret;

	r->prom = &x->prom;
	if (paths_load(&ps, paths, 1, false, "replay")) {
		paths_free(&ps);
		return EXIT_FAIL;
	}
	if (ps.nrec != 1) {
		ret = fail("%s holds %zu recordings (directories with profiles): --replay takes one",
			   path, ps.nrec);
		paths_free(&ps);
		return ret;
	}
	rec_stats_build_observed(&st, ps.recs[0], 0, &pg, &done, &obs);
	core_busy_events(r, &st);
	for (size_t i = 0; i < st.ncores; i++) {
		const struct core_stats *c = &st.cores[i];
		size_t series = core_series(r->prom, F_CORE_INFER, c->dev, c->core);

		for (size_t k = 0; c->ct && k < c->ct->ninf; k++)
			rev_add(r, c->ct->inf[k].stop, series, 1, false);
	}
	ret = replay_check(r, &st);
	rec_stats_free(&st);
	paths_free(&ps);
	if (ret)
		return ret;
	if (r->nev > 1)
		qsort(r->ev, r->nev, sizeof(*r->ev), cmp_rev);
	return 0;
}

int exporter_run_replay(struct exporter *x, const char *path, double speed)
{
	struct replay r;
	size_t applied = 0, s_progress;
	uint64_t t0, start, next;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = replay_load(x, path, &r);
	if (ret)
		goto out;
	s_progress = prom_series(&x->prom, F_REPLAY_PROGRESS, NULL);
	/*
	 * The replay's clock starts at the recording's first timestamp: the
	 * losses of a queue without entries (at 0) are not a start.
	 */
	t0 = 0;
	for (size_t i = 0; i < r.nev && !t0; i++)
		t0 = r.ev[i].ts;
	start = live_now_ns();
	next = start;
	for (;;) {
		uint64_t now = live_now_ns(), upto;
		double rec_ns = (double)(now - start) * speed;

		if (speed == 0 || rec_ns >= (double)(UINT64_MAX - t0))
			upto = UINT64_MAX;
		else
			upto = t0 + (uint64_t)rec_ns;
		for (; applied < r.nev && (r.ev[applied].ts <= upto || exporter_quit); applied++) {
			const struct rev *e = &r.ev[applied];

			if (e->set)
				x->prom.s[e->series].u = e->v;
			else
				x->prom.s[e->series].u += e->v;
		}
		x->prom.s[s_progress].d = r.nev ? (double)applied / (double)r.nev : 1.0;
		ret = exporter_publish(x);
		if (ret || exporter_quit || (x->count && x->publications >= x->count))
			break;
		next += x->interval_ns;
		if (next < live_now_ns())
			next = live_now_ns() + x->interval_ns;
		exporter_sleep_until(next);
	}
out:
	free(r.ev);
	free(r.iv);
	return ret;
}

