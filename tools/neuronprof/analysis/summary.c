// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the statistics of one recording (summary.h), under the
 * timing model of timing.h. One pass over every entry; instruction
 * durations are kept per op until their distribution is known. This file
 * is the pass over the entries; summary_finish.c the numbers made of them
 * at the end, recordings.c which files form a recording.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/names.h"
#include "analysis/summary.h"
#include "analysis/summary_internal.h"
#include "analysis/raw.h"
#include "util/util.h"

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

const char *error_code_name(const struct core_stats *c, uint32_t code)
{
	return code_name_in(c->names, c->nnames, NEURONPROF_QT_ERROR, code) ?:
	       code_name_in(c->names, c->nnames, NEURONPROF_QT_TOPSP_ERROR, code);
}

uint64_t error_queue_lost(const struct core_stats *c)
{
	uint64_t n = 0;

	for (size_t i = 0; i < c->nlw; i++)
		if (c->lw[i].queue_type == NEURONPROF_QT_ERROR ||
		    c->lw[i].queue_type == NEURONPROF_QT_TOPSP_ERROR)
			n += c->lw[i].lost;
	return n;
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
			if (ts > c->errs[i].last_ns)
				c->errs[i].last_ns = ts;
			return;
		}
	}
	c->errs = xgrow1(c->errs, c->nerrs, sizeof(*c->errs));
	c->errs[c->nerrs++] = (struct code_count){ .code = code, .count = 1, .first_ns = ts,
						      .last_ns = ts };
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
		gaps += seq_skipped_iter(&seq, &it, e.seq);
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
		skipped = seq_skipped_iter(&seq, &it, e.seq);
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
	rec_stats_finish(s);
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

