// SPDX-License-Identifier: MIT
/*
 * neuronprof(1) export, the walk of one queue: every entry once, in
 * device order across its records, pairing starts with stops, timing
 * instructions, marking loss windows, and handing the events to the
 * format's callbacks (the table in export.h). The tracks it writes to are
 * export_layout.c's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/export_internal.h"
#include "util/fmt.h"
#include "analysis/machines.h"
#include "analysis/names.h"
#include "analysis/summary.h"
#include "analysis/timing.h"
#include "analysis/raw.h"

/* An opcode of the queue walked: its name in the profile, its hex spelling. */
struct opcode_slot {
	uint32_t code;
	bool valid;
	const char *op;
	char hex[CODE_LEN];
	/* What an instruction of it is named (struct xinstr). */
	const char *name;
	uint64_t name_key;
};

#define OPCODE_SLOTS	64

/* Everything the walk of one queue needs. */
struct walk {
	const struct xformat *fmt;
	void *ctx;
	struct export_stats *st;
	const struct xtrack *t;
	const struct xtrack *level, *clock;	/* counter tracks, for THROTTLE */
	struct instr_clock clk;			/* TRACE: the duration model */
	const struct nprof_ntff_device *raw;	/* the device of a raw queue, else NULL */
	const struct prof_file *file;		/* of the queue: its names (names.h) */
	/* The queue's entries, across its records (walk_begin(), walk_next()). */
	struct queue_iter it;
	struct seq_track seq;
	/*
	 * Entries lost before the entry walk_next() just gave: its caller
	 * emits the instant "lost N" with emit_lost() once the events before
	 * that entry are written (a TRACE queue's pending instruction), so
	 * that a track's events start in time order.
	 */
	uint64_t lost;
	uint64_t gap_from;		/* the entry before those lost: where the window starts */
	uint64_t prev_ts;		/* the queue's previous entry, if @have_prev */
	bool have_prev;
	uint64_t gaps;			/* entries missing from its sequence numbers so far */
	struct progress *pg;
	uint64_t *done;
	/* Opcodes met in the queue, by code (instruction()); cleared per queue. */
	struct opcode_slot ops[OPCODE_SLOTS];
	/* A DMA queue's names of its queue numbers (walk_queue()), by number; cleared per queue. */
	struct dma_name {
		uint32_t code;
		bool used;
		char name[64];
	} dma_names[XDMA_SLOTS];
};

static int instant(struct walk *w, const char *cat, const char *name, uint64_t ts,
		   const struct xarg *args, int nargs)
{
	w->st->instants++;
	return w->fmt->instant(w->ctx, w->t, cat, name, ts + (uint64_t)w->t->proc->shift, args,
			       nargs);
}

/* Arguments every event of an entry carries. */
static int base_args(struct xarg *a, const struct entry *e)
{
	a[0] = (struct xarg){ .key = "model_id", .kind = XARG_U64, .u = e->model_id };
	a[1] = (struct xarg){ .key = "iteration", .kind = XARG_U64, .u = e->iteration };
	a[2] = (struct xarg){ .key = "seq", .kind = XARG_U64, .u = e->seq };
	return 3;
}

/* @code spelled CODE_FMT ("0x000102") into @buf, fast (per instruction). */
static const char *code_hex(uint32_t code, char buf[CODE_LEN])
{
	*fmt_hex(fmt_str(buf, "0x"), code, 6) = '\0';
	return buf;
}

static int unmatched(struct walk *w, const char *cat, const char *what, const struct entry *e)
{
	struct xarg a[XARGS_MAX];
	char code[CODE_LEN];
	int n = base_args(a, e);

	a[n++] = (struct xarg){ .key = "code", .kind = XARG_STR, .s = code_hex(e->code, code) };
	return instant(w, cat, what, e->ts, a, n);
}

static int pair_slice(struct walk *w, enum xslice_style style, const char *cat,
		      const char *name, const struct entry *s, const struct entry *e,
		      const char *start_key, const char *end_key)
{
	struct xarg a[XARGS_MAX];
	int n = base_args(a, s);

	a[n++] = (struct xarg){ .key = start_key, .kind = XARG_U64, .u = s->payload[0] };
	if (end_key)
		a[n++] = (struct xarg){ .key = end_key, .kind = XARG_U64, .u = e->payload[0] };
	w->st->slices++;
	return w->fmt->slice(w->ctx, w->t, style, cat, name, 0,
			     s->ts + (uint64_t)w->t->proc->shift,
			     e->ts + (uint64_t)w->t->proc->shift, a, n, 0, 0);
}

/*
 * An instruction as a slice, its end given by the timing model: named by
 * the device's name of its opcode with the opcode in its "code" argument,
 * else named by the opcode itself (which needs no second copy: the
 * instructions of a recording without names cost what they did).
 */
/*
 * Instructions collected before they go to the format (xformat.instrs):
 * @n finished ones, and after them the pending one, the last entry of the
 * queue, whose end the next entry gives: its members are those of its
 * entry (the timestamp without the clock shift) until instr_finish().
 */
#define INSTR_BATCH	128

struct instr_batch {
	size_t n;
	struct xinstr v[INSTR_BATCH + 1];
};

/* The finished instructions of @b to the format, in order; the pending one moves first. */
static int instr_flush(struct walk *w, struct instr_batch *b)
{
	size_t n = b->n;
	int ret = 0;

	if (!n)
		return 0;
	b->n = 0;
	w->st->slices += n;
	if (w->fmt->instrs)
		ret = w->fmt->instrs(w->ctx, w->t, b->v, n);
	for (size_t i = 0; i < n && !ret && !w->fmt->instrs; i++)
		ret = xinstr_slice(w->fmt, w->ctx, w->t, &b->v[i]);
	b->v[0] = b->v[n];
	return ret;
}

/* A new opcode @code (of queue type @qt) for its slot, once the batch is out. */
static int instr_opcode(struct walk *w, struct instr_batch *b, uint32_t code, uint16_t qt)
{
	struct opcode_slot *s = &w->ops[code % OPCODE_SLOTS];
	int ret;

	/* The batch may name instructions by the slot's spelling. */
	ret = instr_flush(w, b);
	if (ret)
		return ret;
	s->code = code;
	s->valid = true;
	s->op = file_code_name(w->file, qt, code);
	code_hex(code, s->hex);
	s->name = s->op ? s->op : s->hex;
	s->name_key = s->op ? (uint64_t)(uintptr_t)s->op : XNAME_KEY_CODE(code);
	return 0;
}

/*
 * The pending instruction of @b (of an entry of queue type @qt) ends at
 * @end, given by the timing model: named by the device's name of its
 * opcode with the opcode in its "code" argument, else named by the opcode
 * itself (which needs no second copy: the instructions of a recording
 * without names cost what they did).
 */
static inline __attribute__((always_inline)) int
instr_finish(struct walk *w, struct instr_batch *b, uint16_t qt, uint64_t end, uint64_t shift)
{
	struct xinstr *in = &b->v[b->n];
	struct opcode_slot *s = &w->ops[in->code % OPCODE_SLOTS];
	int ret;

	/* A program runs a few opcodes over and over: each is looked up once. */
	if (!s->valid || s->code != in->code) {
		ret = instr_opcode(w, b, in->code, qt);
		if (ret)
			return ret;
		in = &b->v[0];
	}
	in->name = s->name;
	in->name_key = s->name_key;
	in->named = s->op != NULL;
	in->ts += shift;
	in->end_ts = end + shift;
	return ++b->n == INSTR_BATCH ? instr_flush(w, b) : 0;
}

/* Group name used in slice names: "vector", "engine 7", "TopSP 3". */
static void unit_name(const struct xtrack *t, char *buf, size_t len)
{
	const char *en = engine_name(t->engine);

	if (topsp_type(t->queue_type))
		snprintf(buf, len, "TopSP %u", t->target_index);
	else if (en)
		snprintf(buf, len, "%s", en);
	else
		snprintf(buf, len, "engine %u", t->engine);
}

/*
 * A loss window (Documentation/analysis.rst) on the queue's track: the
 * slice "lost N" from @start to @end, its count in arg "lost", where it is
 * in arg "kind", and the last sequence number before it (@after_seq).
 */
static int loss_slice(struct walk *w, uint64_t start, uint64_t end, uint64_t lost,
		      bool tail, uint64_t after_seq, bool have_seq)
{
	struct xarg a[3];
	char name[32];
	int n = 0;

	snprintf(name, sizeof(name), "lost %" PRIu64, lost);
	a[n++] = (struct xarg){ .key = "lost", .kind = XARG_U64, .u = lost };
	a[n++] = (struct xarg){ .key = "kind", .kind = XARG_STR,
				.s = tail ? "after the last entry" : "sequence gap" };
	if (have_seq)
		a[n++] = (struct xarg){ .key = "after_seq", .kind = XARG_U64, .u = after_seq };
	w->st->lost_markers++;
	w->st->lost_entries += lost;
	w->st->slices++;
	return w->fmt->slice(w->ctx, w->t, XSLICE_COMPLETE, "lost", name, 0,
			     start + (uint64_t)w->t->proc->shift,
			     (end > start ? end : start) + (uint64_t)w->t->proc->shift, a, n, 0, 0);
}

/* The loss window of the w->lost (non-zero) entries missing before entry @e. */
static int lost_marker(struct walk *w, const struct entry *e)
{
	uint64_t lost = w->lost;

	w->lost = 0;
	return loss_slice(w, w->gap_from, e->ts, lost, false, e->seq - lost - 1, true);
}

/* The loss window of the entries lost before entry @e, if any; checked per entry. */
static inline int emit_lost(struct walk *w, const struct entry *e)
{
	return w->lost ? lost_marker(w, e) : 0;
}

/*
 * After a queue's last entry: the window of what its rings counted lost
 * beyond its sequence gaps, from its last entry (the capture's start
 * without one) to the capture's stop; *@tail says whether there is one.
 */
static int emit_tail_loss(struct walk *w, const struct prof_file *f,
			  const struct nprof_ntff_queue *q, bool *tail)
{
	uint64_t beyond = q->lost_count > w->gaps ? q->lost_count - w->gaps : 0;

	*tail = beyond > 0;
	if (!beyond)
		return 0;
	return loss_slice(w, w->have_prev ? w->prev_ts : f->info.start_ns, f->info.stop_ns,
			  beyond, true, 0, false);
}

/*
 * Raw entries have no loss windows (their layout is not known, nothing is
 * timed): the instant "lost N" at the entry after the gap, with the count.
 */
static int raw_lost_marker(struct walk *w, const struct entry *e)
{
	uint64_t lost = w->lost;
	struct xarg a[2];
	char name[32];

	w->lost = 0;
	snprintf(name, sizeof(name), "lost %" PRIu64, lost);
	a[0] = (struct xarg){ .key = "lost", .kind = XARG_U64, .u = lost };
	a[1] = (struct xarg){ .key = "after_seq", .kind = XARG_U64, .u = e->seq - lost - 1 };
	return instant(w, "lost", name, e->ts, a, 2);
}

/* Start walking the entries of queue @lq of @f; @done counts them for @pg. */
static void walk_begin(struct walk *w, const struct prof_file *f, const struct prof_queue *lq,
		       struct progress *pg, uint64_t *done)
{
	w->file = f;
	for (size_t i = 0; i < OPCODE_SLOTS; i++)
		w->ops[i].valid = false;
	queue_iter_init(&w->it, f, lq);
	w->seq = (struct seq_track){ 0 };
	w->have_prev = false;
	w->gaps = 0;
	w->pg = pg;
	w->done = done;
}

/*
 * The queue's next entry into @e, decoded and counted; where its sequence
 * number skips, w->lost says by how much (the caller emits it with
 * emit_lost()). False at the end of the queue, once *@ret is set by the
 * caller's handling of an entry, and then *@ret is the result of the walk.
 */
static void walk_take(struct walk *w, const struct entry *e);

static bool walk_next(struct walk *w, struct entry *e, int *ret)
{
	const void *p;

	if (*ret || !(p = queue_iter_next(&w->it)))
		return false;
	entry_decode(p, w->it.entry_size, e);
	progress_update(w->pg, ++*w->done);
	walk_take(w, e);
	return true;
}

/*
 * walk_next() of a raw queue: its next part (raw.h), as the entry that
 * carries it and as bytes; progress counts ring entries.
 */
static bool walk_next_raw(struct walk *w, struct raw_parts *rp, struct entry *e,
			  struct raw_part *part, int *ret)
{
	uint64_t before = rp->slots;

	if (*ret || !raw_parts_next(rp, e, part))
		return false;
	*w->done += rp->slots - before;
	progress_update(w->pg, *w->done);
	walk_take(w, e);
	return true;
}

/* What walk_next() does with each entry it takes. */
static void walk_take(struct walk *w, const struct entry *e)
{
	w->st->entries++;
	w->lost = seq_skipped_iter(&w->seq, &w->it, e->seq);
	w->gaps += w->lost;
	w->gap_from = w->prev_ts;
	w->prev_ts = e->ts;
	w->have_prev = true;
}

/*
 * A queue of raw entries: an instant "raw <format>" per ring entry with its
 * bytes, never decoded; its time is what the device's clock domain says
 * (the capture time for NEURONPROF_CLOCK_CAPTURED).
 */
static int walk_raw(struct walk *w)
{
	char name[32], hex[2 * NEURONPROF_RAW_BYTES_PER_ENTRY + 1];
	struct raw_parts rp;
	struct raw_part part;
	struct xarg a[7];
	struct entry e;
	int ret = 0;

	snprintf(name, sizeof(name), "raw %s", raw_format_name(w->raw->raw_format));
	raw_parts_init(&rp, w->file, raw_slot_queue, &w->it);
	while (walk_next_raw(w, &rp, &e, &part, &ret)) {
		ret = w->lost ? raw_lost_marker(w, &e) : 0;
		if (ret)
			break;
		a[0] = (struct xarg){ .key = "entry", .kind = XARG_U64, .u = part.index };
		a[1] = (struct xarg){ .key = "part", .kind = XARG_U64, .u = part.part };
		a[2] = (struct xarg){ .key = "parts", .kind = XARG_U64, .u = part.parts };
		a[3] = (struct xarg){ .key = "bytes", .kind = XARG_STR,
				      .s = hex_bytes(hex, part.bytes, part.len) };
		a[4] = (struct xarg){ .key = "seq", .kind = XARG_U64, .u = e.seq };
		a[5] = (struct xarg){ .key = "timestamp", .kind = XARG_STR,
				      .s = w->raw->clock_domain == NEURONPROF_CLOCK_CAPTURED ?
					   "capture time" : "device time" };
		a[6] = (struct xarg){ .key = "decoded", .kind = XARG_STR, .s = "no" };
		ret = instant(w, "raw", name, e.ts, a, 7);
	}
	return ret;
}

/*
 * The start @e of a pair (an inference, an event) becomes *@start; one
 * still *@open is reported as @what, unmatched.
 */
static int pair_start(struct walk *w, const char *cat, const char *what, struct entry *start,
		      bool *open, const struct entry *e)
{
	int ret = *open ? unmatched(w, cat, what, start) : 0;

	*start = *e;
	*open = true;
	return ret;
}

/*
 * instr_end() through a cache: the bound the timing model puts on an
 * instruction at @ts (the stop of the inference and of the EVENT window it
 * is in) stays the same while neither cursor moves and neither starts,
 * that is while @ts stays in [k->lo, k->hi]; outside, instr_end()'s steps
 * run and the range is made anew. Most instructions of a window fall in
 * the range of the one before.
 */
struct end_cache {
	uint64_t lo, hi, bound;		/* lo > hi: empty */
};

/* Narrows @k to where cursor @t, just moved to @ts, neither moves nor starts. */
static inline void end_range(const struct timing_cursor *t, uint64_t ts, struct end_cache *k)
{
	if (!t->have)
		return;			/* for good: a cursor that ended stays ended */
	if (t->cur.stop < k->hi)
		k->hi = t->cur.stop;	/* >= ts: instr_end() moved it that far */
	if (t->cur.start <= ts) {
		if (t->cur.start > k->lo)
			k->lo = t->cur.start;
	} else if (t->cur.start - 1 < k->hi) {
		k->hi = t->cur.start - 1;
	}
}

static inline uint64_t instr_end_cached(struct instr_clock *c, struct end_cache *k, uint64_t ts,
					bool has_next, uint64_t next_ts)
{
	if (ts < k->lo || ts > k->hi) {
		/* instr_end()'s bound, kept while neither cursor moves. */
		k->bound = instr_bound(c, ts);
		k->lo = 0;
		k->hi = UINT64_MAX;
		end_range(&c->inf, ts, k);
		end_range(&c->win, ts, k);
	}
	return instr_end_at(k->bound, ts, has_next, next_ts);
}

/*
 * What walk_queue() does with a TRACE or TOPSP_TRACE queue, nearly all the
 * entries of a profile, in a loop of its own: each entry ends the
 * instruction before it (cut instead where entries were lost between
 * them), then the loss window before it, if any; after the last, the
 * window of what the rings lost beyond the gaps, and the last instruction
 * (cut by that loss, if any). The entries of a chunk (queue_iter) are
 * walked with the state in locals, only what an instruction takes is
 * decoded, and the instructions go to the format in batches; progress is
 * counted per chunk.
 */
#define WALK_AHEAD	16384

static int walk_trace(struct walk *w, const struct prof_file *f, const struct nprof_ntff_queue *q)
{
	unsigned char pad[sizeof(struct neuronprof_notification)];
	uint64_t done = *w->done, entries = 0, cut = 0;
	uint64_t prev_ts = w->prev_ts, shift = (uint64_t)w->t->proc->shift;
	bool have_pend = false, have_prev = w->have_prev, tail;
	struct end_cache ec = { .lo = 1, .hi = 0 };
	struct instr_batch b;
	uint16_t pend_qt = 0;
	int ret = 0;

	b.n = 0;
	for (;;) {
		const unsigned char *p = w->it.it.pos, *end = w->it.it.end;
		size_t step = w->it.it.step;
		struct seq_track sq;
		uint64_t trimmed;

		if (p == end) {
			if (!queue_iter_record(&w->it))
				break;
			continue;
		}
		/*
		 * seq_skipped_iter() in locals: the sequence numbers left out on
		 * purpose are those of the records entered before this chunk.
		 */
		sq = w->seq;
		trimmed = w->it.trimmed;
		w->it.trimmed = 0;
		for (; p != end && !ret; p += step) {
			const unsigned char *e = p;
			uint64_t ts, seq, lost;
			struct xinstr *in;

			/* Members beyond a short entry read as zero (entry_decode()). */
			if (step < sizeof(pad)) {
				memset(pad, 0, sizeof(pad));
				memcpy(pad, p, step);
				e = pad;
			}
			/*
			 * The line one block ahead: by the time the library
			 * checksums the next block, it is in the cache.
			 */
			__builtin_prefetch(p + WALK_AHEAD);
			ts = ENTRY_LD(e, uint64_t, timestamp_ns, le64toh);
			seq = ENTRY_LD(e, uint64_t, seq, le64toh);
			entries++;
			lost = seq_skipped(&sq, seq);
			lost = lost > trimmed ? lost - trimmed : 0;
			trimmed = 0;
			if (lost) {
				/* The instruction before a loss is cut; the loss's window follows. */
				w->gaps += lost;
				cut += have_pend;
				ret = instr_flush(w, &b);
				if (!ret)
					ret = loss_slice(w, prev_ts, ts, lost, false, seq - lost - 1,
							 true);
			} else if (have_pend) {
				ret = instr_finish(w, &b, pend_qt,
						   instr_end_cached(&w->clk, &ec, b.v[b.n].ts, true,
								    ts), shift);
			}
			prev_ts = ts;
			have_prev = true;
			/* This entry's instruction is the pending one now. */
			in = &b.v[b.n];
			in->ts = ts;
			in->pc = ENTRY_LD(e, uint64_t, payload[0], le64toh);
			in->op0 = ENTRY_LD(e, uint64_t, payload[1], le64toh);
			in->op1 = ENTRY_LD(e, uint64_t, payload[2], le64toh);
			in->code = ENTRY_LD(e, uint32_t, code, le32toh);
			pend_qt = ENTRY_LD(e, uint16_t, queue_type, le16toh);
			have_pend = true;
		}
		w->it.it.pos = p;
		w->seq = sq;
		if (ret)
			break;
		progress_update(w->pg, done + entries);
	}
	if (!ret)
		ret = instr_flush(w, &b);
	*w->done = done + entries;
	w->st->entries += entries;
	w->st->cut += cut;
	w->prev_ts = prev_ts;
	w->have_prev = have_prev;
	w->st->lost_recorded += q->lost_count;
	w->st->seq_gaps += w->gaps;
	if (!ret)
		ret = emit_tail_loss(w, f, q, &tail);
	if (!ret && have_pend && tail)
		w->st->cut++;
	else if (!ret && have_pend)
		ret = instr_finish(w, &b, pend_qt,
				   instr_end_cached(&w->clk, &ec, b.v[b.n].ts, false, 0), shift);
	if (!ret)
		ret = instr_flush(w, &b);
	return ret;
}

/*
 * DMA transfers collected before they go to the format (xformat.dmas); a
 * transfer's name is that of its slot in struct walk, which keeps it until
 * the batch is out.
 */
#define DMA_BATCH	128

struct dma_batch {
	size_t n;
	struct xdma v[DMA_BATCH];
};

static int dma_flush(struct walk *w, struct dma_batch *b)
{
	size_t n = b->n;
	int ret = 0;

	b->n = 0;
	w->st->instants += n;
	if (w->fmt->dmas)
		return n ? w->fmt->dmas(w->ctx, w->t, b->v, n) : 0;
	for (size_t i = 0; i < n && !ret; i++)
		ret = xdma_instant(w->fmt, w->ctx, w->t, &b->v[i]);
	return ret;
}

/*
 * DMA transfer @e into batch @b: named "NAME queue Q" by the device's name
 * NAME of its queue Q, else "dma queue Q", spelled once per queue number
 * into its slot (the batch goes out first when the slot changes hands).
 */
static int dma_add(struct walk *w, const struct prof_file *f, struct dma_batch *b,
		   const struct entry *e)
{
	struct dma_name *s = &w->dma_names[e->code % XDMA_SLOTS];
	struct xdma *d;
	int ret;

	if (!s->used || s->code != e->code) {
		const char *dn = file_code_name(f, e->queue_type, e->code);

		ret = dma_flush(w, b);
		if (ret)
			return ret;
		if (dn)
			*fmt_u64(fmt_str(fmt_str(s->name, dn), " queue "), e->code) = '\0';
		else
			*fmt_u64(fmt_str(s->name, "dma queue "), e->code) = '\0';
		s->code = e->code;
		s->used = true;
	}
	d = &b->v[b->n++];
	*d = (struct xdma){ .name = s->name, .ts = e->ts + (uint64_t)w->t->proc->shift,
			    .model_id = e->model_id, .iteration = e->iteration, .seq = e->seq,
			    .bytes = e->payload[0], .src = e->payload[1], .dst = e->payload[2],
			    .slot = e->code % XDMA_SLOTS };
	return b->n == DMA_BATCH ? dma_flush(w, b) : 0;
}

/*
 * A queue of decoded entries, all its records in order: pairs, instructions
 * and sequence numbers continue from one record to the next.
 */
static int walk_queue(struct walk *w, const struct prof_file *f, const struct prof_queue *lq,
		      struct progress *pg, uint64_t *done)
{
	const struct nprof_ntff_queue *q = &lq->q;
	struct entry e, start = { 0 };
	struct dma_batch db;
	bool open = false, tail;
	char name[64], unit[32];
	struct xarg a[XARGS_MAX];
	int n, ret = 0;

	walk_begin(w, f, lq, pg, done);
	if (w->raw) {
		ret = walk_raw(w);
		w->st->lost_recorded += q->lost_count;
		w->st->seq_gaps += w->gaps;
		return ret;
	}
	if (q->queue_type == NEURONPROF_QT_TRACE || q->queue_type == NEURONPROF_QT_TOPSP_TRACE)
		return walk_trace(w, f, q);
	unit_name(w->t, unit, sizeof(unit));
	db.n = 0;
	while (walk_next(w, &e, &ret)) {
		/* The transfers before a loss go out before its marker. */
		if (w->lost)
			ret = dma_flush(w, &db);
		/* No pair spans a loss: a start before it stays unmatched. */
		if (!ret && w->lost && open) {
			ret = unmatched(w, q->queue_type == NEURONPROF_QT_INFER_STATUS ?
					"infer" : "event", q->queue_type ==
					NEURONPROF_QT_INFER_STATUS ? "infer start without stop" :
					"event start without end", &start);
			open = false;
		}
		if (!ret)
			ret = emit_lost(w, &e);
		if (ret)
			break;
		switch (q->queue_type) {
		case NEURONPROF_QT_INFER_STATUS:
			if (e.code == NEURONPROF_INFER_START) {
				ret = pair_start(w, "infer", "infer start without stop", &start,
						 &open, &e);
			} else if (e.code == NEURONPROF_INFER_STOP) {
				if (open) {
					const char *mn = files_model_name(&w->file, 1,
									  start.model_id);

					/* A file's model name may be of any length. */
					if (mn)
						snprintf(name, sizeof(name), "%.*s iteration",
							 (int)sizeof(name) - 11, mn);
					else
						*fmt_str(fmt_u64(fmt_str(name, "model "),
								 start.model_id), " iteration") = '\0';
					ret = pair_slice(w, XSLICE_COMPLETE, "infer", name, &start,
							 &e, "iterations", "status");
					open = false;
				} else {
					ret = unmatched(w, "infer", "infer stop without start", &e);
				}
			} else {
				ret = unmatched(w, "infer", "infer status", &e);
			}
			break;
		case NEURONPROF_QT_EVENT:
		case NEURONPROF_QT_TOPSP_EVENT:
			if (e.code == EVENT_CODE_START) {
				ret = pair_start(w, "event", "event start without end", &start,
						 &open, &e);
			} else if (e.code == EVENT_CODE_END && open) {
				*fmt_str(fmt_str(name, unit), " iteration") = '\0';
				ret = pair_slice(w, XSLICE_BEGIN_END, "event", name, &start, &e,
						 q->queue_type == NEURONPROF_QT_EVENT ?
						 "instructions" : "topsp", NULL);
				open = false;
			} else if (e.code == EVENT_CODE_END) {
				ret = unmatched(w, "event", "event end without start", &e);
			} else {
				snprintf(name, sizeof(name), "event %u", e.code);
				ret = unmatched(w, "event", name, &e);
			}
			break;
		case NEURONPROF_QT_DMA:
			ret = dma_add(w, f, &db, &e);
			break;
		case NEURONPROF_QT_ERROR:
		case NEURONPROF_QT_TOPSP_ERROR:
			*fmt_u64(fmt_str(name, "error "), e.code) = '\0';
			n = base_args(a, &e);
			a[n++] = (struct xarg){ .key = "payload0", .kind = XARG_U64,
						.u = e.payload[0] };
			ret = instant(w, "error", name, e.ts, a, n);
			break;
		case NEURONPROF_QT_THROTTLE: {
			struct xcounter c[2] = {
				{ .track = w->level, .key = "level", .value = (int64_t)e.code },
				{ .track = w->clock, .key = "clock_percent",
				  .value = (int64_t)e.payload[0] },
			};

			w->st->counters++;
			ret = w->fmt->counter(w->ctx, w->t->proc, "throttle",
					      e.ts + (uint64_t)w->t->proc->shift, c, 2);
			break;
		}
		default:
			break;
		}
	}
	if (!ret)
		ret = dma_flush(w, &db);
	if (!ret && open)
		ret = unmatched(w, q->queue_type == NEURONPROF_QT_INFER_STATUS ? "infer" : "event",
				q->queue_type == NEURONPROF_QT_INFER_STATUS ?
				"infer start without stop" : "event start without end", &start);
	w->st->lost_recorded += q->lost_count;
	w->st->seq_gaps += w->gaps;
	/* Losses after the last entry: their window. */
	if (!ret)
		ret = emit_tail_loss(w, f, q, &tail);
	return ret;
}


int export_queue(const struct layout *l, const struct timing *tm, uint32_t machine,
		 const struct prof_file *f, size_t k, const struct xtrack *t,
		 const struct xformat *fmt, void *ctx, struct progress *pg, uint64_t *done,
		 struct export_stats *st)
{
	const struct nprof_ntff_queue *q = &f->lqueues[k].q;
	struct walk w = { .fmt = fmt, .ctx = ctx, .st = st, .t = t,
			  .raw = file_is_raw(f) ? &f->info.device : NULL };
	bool tsp = q->queue_type == NEURONPROF_QT_TOPSP_TRACE;
	int ret;

	instr_clock_init(&w.clk, timing_core_of(tm, machine, f->info.device.device_index,
						queue_core(f, q)),
			 tsp, tsp ? q->target_index : q->engine);
	if (q->queue_type == NEURONPROF_QT_THROTTLE && !w.raw) {
		w.level = counter_track(l, w.t->proc, XCOUNTER_THROTTLE_LEVEL);
		w.clock = counter_track(l, w.t->proc, XCOUNTER_THROTTLE_CLOCK);
	}
	ret = walk_queue(&w, f, &f->lqueues[k], pg, done);
	instr_clock_free(&w.clk);
	return ret;
}
