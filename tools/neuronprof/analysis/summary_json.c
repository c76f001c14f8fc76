// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the JSON of a recording's statistics, and the columns of the
 * sections summary also writes as text and CSV (summary_json.h).
 */
#include "analysis/summary_json.h"
#include "analysis/names.h"

FIELD_GET(gap_label, struct gap_row, s, r->label)
FIELD_GET(gap_kind, struct gap_row, s, !r->u ? "core" : r->u->topsp ? "topsp" : "engine")
FIELD_GET(gap_index, struct gap_row, u, r->u ? r->u->index : r->c->core)
FIELD_GET(gap_rank, struct gap_row, u, r->rank)
FIELD_GET(gap_start, struct gap_row, u, r->g->start)
FIELD_GET(gap_end, struct gap_row, u, r->g->end)
FIELD_GET(gap_idle, struct gap_row, u, r->g->end - r->g->start)
FIELD_GET(gap_at, struct gap_row, u, r->g->start - r->c->first)
FIELD_GET(gap_where, struct gap_row, s, r->where)

static const struct field gap_columns[] = {
	FIELD(NULL, NULL, "unit", -12, FK_STR, gap_label),
	CORE_ID_FIELDS,
	FIELD(NULL, "unit", NULL, 0, FK_STR, gap_kind),
	FIELD(NULL, "index", NULL, 0, FK_U64, gap_index),
	FIELD(NULL, "rank", NULL, 0, FK_U64, gap_rank),
	SAME("start_ns", NULL, 0, FK_NS, gap_start),
	SAME("end_ns", NULL, 0, FK_NS, gap_end),
	SAME("idle_ns", "idle", 12, FK_NS, gap_idle),
	SAME("at_ns", "at", 12, FK_NS, gap_at),
	SAME("where", "where", FIELD_LAST, FK_STR, gap_where),
};
const struct field_table gap_fields = FIELD_TABLE(gap_columns);

void gap_row(struct gap_row *r, const struct core_stats *c, const struct unit *u,
	     const struct idle_gap *g, size_t rank)
{
	*r = (struct gap_row){ .c = c, .u = u, .g = g, .rank = rank };
	if (u)
		unit_label(u, r->label, sizeof(r->label));
	else
		snprintf(r->label, sizeof(r->label), "core");
	exec_where(c->ct, g->start, g->end, r->where, sizeof(r->where));
}

FIELD_GET(ur_label, struct unit_row, s, r->label)
FIELD_GET(ur_dev, struct unit_row, u, r->c->dev)
FIELD_GET(ur_core, struct unit_row, u, r->c->core)
FIELD_GET(ur_kind, struct unit_row, s, r->u->topsp ? "topsp" : "engine")
FIELD_GET(ur_index, struct unit_row, u, r->u->index)
FIELD_GET(ur_name, struct unit_row, s, engine_name(r->u->index))
FIELD_GET(ur_instr, struct unit_row, u, r->u->instructions)
FIELD_GET(ur_events, struct unit_row, u, r->u->events)
FIELD_GET(ur_slices, struct unit_row, u, r->u->event_slices)
FIELD_GET(ur_event_busy, struct unit_row, u, r->u->event_busy)
FIELD_GET(ur_dma, struct unit_row, u, r->u->dma)
FIELD_GET(ur_dma_bytes, struct unit_row, u, r->u->dma_bytes)
FIELD_GET(ur_dma_rate, struct unit_row, u, r->u->dma_bytes_per_s)
FIELD_GET(ur_errors, struct unit_row, u, r->u->errors)
FIELD_GET(ur_lost, struct unit_row, u, r->u->lost)
FIELD_GET(ur_gaps, struct unit_row, u, r->u->gaps)
FIELD_GET(ur_first, struct unit_row, u, r->u->first)
FIELD_GET(ur_last, struct unit_row, u, r->u->last)
FIELD_GET(ur_span, struct unit_row, u, r->u->any ? r->u->last - r->u->first : 0)
FIELD_GET(ur_busy, struct unit_row, u, r->u->busy)
FIELD_GET(ur_util, struct unit_row, d, r->u->util_pct)
FIELD_GET(ur_observed, struct unit_row, u, r->u->observed)
FIELD_GET(ur_core_span, struct unit_row, u, r->c->any ? r->c->last - r->c->first : 0)
FIELD_GET(ur_cut, struct unit_row, u, r->u->cut)
FIELD_GET(ur_over, struct unit_row, s, r->u->lossy ? "observed" : "span")

/* Members a unit or core has only when it lost entries (Loss windows). */
static bool ur_lossy(const void *row)
{
	return ((const struct unit_row *)row)->u->lossy;
}

static bool ur_is_topsp(const void *row)
{
	return ((const struct unit_row *)row)->u->topsp;
}

static bool ur_is_engine(const void *row)
{
	return !ur_is_topsp(row);
}

/* The columns naming a unit, first in its own row and in its ops' (struct unit_row). */
#define UNIT_ID_FIELDS								\
	FIELD(NULL, NULL, "unit", -12, FK_STR, ur_label),			\
	FIELD(NULL, "device", NULL, 0, FK_U64, ur_dev),				\
	FIELD(NULL, "core", NULL, 0, FK_U64, ur_core),				\
	FIELD(NULL, "unit", NULL, 0, FK_STR, ur_kind),				\
	FIELD(NULL, "index", NULL, 0, FK_U64, ur_index)

void unit_row(struct unit_row *r, const struct core_stats *c, const struct unit *u)
{
	*r = (struct unit_row){ .c = c, .u = u };
	unit_label(u, r->label, sizeof(r->label));
}

FIELD_GET(uop_name, struct unit_op_row, s, unit_op_name(r->ur.c, r->ur.u, r->o->code))
FIELD_GET(uop_code, struct unit_op_row, u, r->o->code)
FIELD_GET(uop_busy, struct unit_op_row, d, r->o->busy_pct)

static const struct field unit_op_columns[] = {
	UNIT_ID_FIELDS,
	OP_FIELDS(uop_name, uop_code),
	SAME("max_ns", "max", 12, FK_NS, field_dist_max),
	SAME("busy_pct", "%busy", 7, FK_PCT, uop_busy),
};
const struct field_table unit_op_fields = FIELD_TABLE(unit_op_columns);

void unit_op_row(struct unit_op_row *r, const struct core_stats *c, const struct unit *u,
		 const struct op_stats *o)
{
	unit_row(&r->ur, c, u);
	r->ur.d = &o->d;
	r->o = o;
}

FIELD_GET(lvl_level, struct level_row, u, r->l->level)
FIELD_GET(lvl_events, struct level_row, u, r->l->events)
FIELD_GET(lvl_ns, struct level_row, u, r->l->ns)
FIELD_GET(lvl_pct, struct level_row, d, r->l->pct)

static const struct field level_columns[] = {
	CORE_ID_FIELDS,
	SAME("level", "level", -6, FK_U64, lvl_level),
	SAME("events", "events", 7, FK_U64, lvl_events),
	SAME("time_ns", "time", 12, FK_NS, lvl_ns),
	SAME("span_pct", "%span", 8, FK_PCT, lvl_pct),
};
const struct field_table level_fields = FIELD_TABLE(level_columns);

FIELD_GET(core_dev, struct core_stats, u, r->dev)
FIELD_GET(core_arch, struct core_stats, s, arch_name(r->arch))
FIELD_GET(core_provider, struct core_stats, s, r->provider)
FIELD_GET(core_core, struct core_stats, u, r->core)
FIELD_GET(core_entries, struct core_stats, u, r->entries)
FIELD_GET(core_first, struct core_stats, u, r->first)
FIELD_GET(core_last, struct core_stats, u, r->last)
FIELD_GET(core_span, struct core_stats, u, r->any ? r->last - r->first : 0)
FIELD_GET(core_busy, struct core_stats, u, r->busy)
FIELD_GET(core_util, struct core_stats, d, r->util_pct)
FIELD_GET(core_infer, struct core_stats, u, r->inferences)
FIELD_GET(core_infer_failed, struct core_stats, u, r->infer_failed)
FIELD_GET(core_infer_busy, struct core_stats, u, r->infer_busy)
FIELD_GET(core_execs, struct core_stats, u, r->ct ? r->ct->nexec : 0)
FIELD_GET(core_errors, struct core_stats, u, r->errors)
FIELD_GET(core_throttles, struct core_stats, u, r->throttles)
FIELD_GET(core_max_throttle, struct core_stats, u, r->max_throttle)
FIELD_GET(core_lost, struct core_stats, u, r->lost)
FIELD_GET(core_gaps, struct core_stats, u, r->gaps)
FIELD_GET(core_observed, struct core_stats, u, r->observed)
FIELD_GET(core_cut, struct core_stats, u, r->cut)

static bool core_lossy(const void *row)
{
	return ((const struct core_stats *)row)->lossy;
}

/*
 * The text's table is summary --brief's; a core without --brief is a
 * paragraph of its own. Its inferences and executions come before its
 * times, and CSV has the time in inferences last.
 */
static const struct field core_columns[] = {
	SAME("device", "device", -6, FK_U64, core_dev),
	FIELD("arch", NULL, NULL, 0, FK_STR, core_arch),
	FIELD("provider", NULL, NULL, 0, FK_STR, core_provider),
	SAME("core", "core", -5, FK_U64, core_core),
	SAME("entries", "entries", 8, FK_U64, core_entries),
	FIELD(NULL, NULL, "infer", 6, FK_U64, core_infer),
	FIELD(NULL, NULL, "execs", 6, FK_U64, core_execs),
	SAME("first_ns", NULL, 0, FK_NS, core_first),
	SAME("last_ns", NULL, 0, FK_NS, core_last),
	SAME("span_ns", NULL, 0, FK_NS, core_span),
	SAME("busy_ns", "busy", 12, FK_NS, core_busy),
	SAME("utilization_pct", "util%", 8, FK_PCT, core_util),
	SAME("inferences", NULL, 0, FK_U64, core_infer),
	SAME("inferences_failed", NULL, 0, FK_U64, core_infer_failed),
	FIELD("inference_busy_ns", NULL, "in_infer", 12, FK_NS, core_infer_busy),
	SAME("executions", NULL, 0, FK_U64, core_execs),
	SAME("errors", NULL, 0, FK_U64, core_errors),
	SAME("throttle_events", "throttle", 7, FK_U64, core_throttles),
	SAME("max_throttle_level", NULL, 0, FK_U64, core_max_throttle),
	SAME("lost", "lost", 6, FK_U64, core_lost),
	SAME("seq_gaps", "gaps", 6, FK_U64, core_gaps),
	FIELD(NULL, "inference_busy_ns", NULL, 0, FK_NS, core_infer_busy),
	FIELD_OPT("observed_ns", NULL, NULL, 0, FK_NS, core_observed, core_lossy),
	FIELD_OPT("cut_instructions", NULL, NULL, 0, FK_U64, core_cut, core_lossy),
};
const struct field_table core_fields = FIELD_TABLE(core_columns);

/*
 * JSON names a unit by its kind ("engine": 3 or "topsp": 1) and has an
 * engine's DMA and a TopSP's errors only; CSV and the text have every
 * column for both, in their own order.
 */
static const struct field unit_columns[] = {
	UNIT_ID_FIELDS,
	FIELD_OPT("topsp", NULL, NULL, 0, FK_U64, ur_index, ur_is_topsp),
	FIELD_OPT("engine", NULL, NULL, 0, FK_U64, ur_index, ur_is_engine),
	FIELD_OPT("name", NULL, NULL, 0, FK_STR, ur_name, ur_is_engine),
	FIELD(NULL, NULL, "util%", 8, FK_PCT, ur_util),
	FIELD(NULL, NULL, "busy", 12, FK_NS, ur_busy),
	FIELD("instructions", "instructions", "instr", 8, FK_U64, ur_instr),
	SAME("events", "events", 7, FK_U64, ur_events),
	FIELD("event_slices", NULL, NULL, 0, FK_U64, ur_slices),
	SAME("event_busy_ns", "event_busy", 12, FK_NS, ur_event_busy),
	FIELD(NULL, "busy_ns", NULL, 0, FK_NS, ur_busy),
	FIELD(NULL, "utilization_pct", NULL, 0, FK_PCT, ur_util),
	FIELD(NULL, "dma", "dma", 6, FK_U64, ur_dma),
	FIELD(NULL, "dma_bytes", "dma_bytes", 10, FK_U64, ur_dma_bytes),
	FIELD(NULL, "dma_bytes_per_s", "dma_bytes/s", 11, FK_U64, ur_dma_rate),
	FIELD(NULL, "errors", NULL, 0, FK_U64, ur_errors),
	FIELD_OPT("dma", NULL, NULL, 0, FK_U64, ur_dma, ur_is_engine),
	FIELD_OPT("dma_bytes", NULL, NULL, 0, FK_U64, ur_dma_bytes, ur_is_engine),
	FIELD_OPT("dma_bytes_per_s", NULL, NULL, 0, FK_U64, ur_dma_rate, ur_is_engine),
	FIELD_OPT("errors", NULL, NULL, 0, FK_U64, ur_errors, ur_is_topsp),
	SAME("lost", NULL, 0, FK_U64, ur_lost),
	SAME("seq_gaps", NULL, 0, FK_U64, ur_gaps),
	FIELD("first_ns", NULL, NULL, 0, FK_NS, ur_first),
	FIELD("last_ns", NULL, NULL, 0, FK_NS, ur_last),
	FIELD("span_ns", NULL, NULL, 0, FK_NS, ur_span),
	FIELD("busy_ns", NULL, NULL, 0, FK_NS, ur_busy),
	FIELD("utilization_pct", NULL, NULL, 0, FK_PCT, ur_util),
	FIELD_OPT("observed_ns", NULL, NULL, 0, FK_NS, ur_observed, ur_lossy),
	FIELD_OPT("cut_instructions", NULL, NULL, 0, FK_U64, ur_cut, ur_lossy),
};
const struct field_table unit_fields = FIELD_TABLE(unit_columns);

/* observed.csv: every unit, its observed time and cut instructions. */
static const struct field observed_columns[] = {
	FIELD(NULL, "device", NULL, 0, FK_U64, ur_dev),
	FIELD(NULL, "core", NULL, 0, FK_U64, ur_core),
	FIELD(NULL, "unit", NULL, 0, FK_STR, ur_kind),
	FIELD(NULL, "index", NULL, 0, FK_U64, ur_index),
	FIELD(NULL, "span_ns", NULL, 0, FK_NS, ur_core_span),
	FIELD(NULL, "observed_ns", NULL, 0, FK_NS, ur_observed),
	FIELD(NULL, "busy_ns", NULL, 0, FK_NS, ur_busy),
	FIELD(NULL, "utilization_pct", NULL, 0, FK_PCT, ur_util),
	FIELD(NULL, "utilization_over", NULL, 0, FK_STR, ur_over),
	FIELD(NULL, "cut_instructions", NULL, 0, FK_U64, ur_cut),
};
const struct field_table observed_fields = FIELD_TABLE(observed_columns);

FIELD_GET(lw_queue, struct lw_row, s, queue_name(r->w->queue_type))
FIELD_GET(lw_kind, struct lw_row, s,
	  r->w->target_kind == NEURONPROF_TARGET_TOPSP ? "topsp" : "core")
FIELD_GET(lw_target, struct lw_row, u, r->w->target_index)
FIELD_GET(lw_engine, struct lw_row, u, r->w->engine)
FIELD_GET(lw_where, struct lw_row, s, r->w->tail ? "after_last_entry" : "sequence_gap")
FIELD_GET(lw_start, struct lw_row, u, r->w->start)
FIELD_GET(lw_end, struct lw_row, u, r->w->end)
FIELD_GET(lw_lost, struct lw_row, u, r->w->lost)

/* A loss window (struct loss_window) of a core: JSON and CSV. */
static const struct field lw_columns[] = {
	CORE_ID_FIELDS,
	SAME("queue_type", NULL, 0, FK_STR, lw_queue),
	SAME("target_kind", NULL, 0, FK_STR, lw_kind),
	SAME("target_index", NULL, 0, FK_U64, lw_target),
	SAME("engine", NULL, 0, FK_U64, lw_engine),
	SAME("kind", NULL, 0, FK_STR, lw_where),
	SAME("start_ns", NULL, 0, FK_NS, lw_start),
	SAME("end_ns", NULL, 0, FK_NS, lw_end),
	SAME("lost", NULL, 0, FK_U64, lw_lost),
};
const struct field_table loss_window_fields = FIELD_TABLE(lw_columns);

/*
 * queue_<name>(): the columns of a queue (struct queue_loss), for the rows
 * whose first member points to one: raw queues and losses.
 */
#define QUEUE_GET(name, member, expr)						\
	static union field_val queue_##name(const void *row)			\
	{									\
		const struct queue_loss *q = *(const struct queue_loss *const *)row; \
		return (union field_val){ .member = (expr) };			\
	}

QUEUE_GET(file, s, q->file)
QUEUE_GET(record, u, q->record)
QUEUE_GET(records, u, q->records)
QUEUE_GET(type, s, queue_name(q->queue_type))
QUEUE_GET(target_kind, s, q->target_kind == NEURONPROF_TARGET_TOPSP ? "topsp" : "core")
QUEUE_GET(target_index, u, q->target_index)
QUEUE_GET(engine, u, q->engine)
QUEUE_GET(lost, u, q->lost)
QUEUE_GET(gaps, u, q->gaps)
QUEUE_GET(explained, b, q->gaps <= q->lost)

/* A queue's file and records, then what it is: JSON and CSV columns. */
#define QUEUE_FILE_FIELDS							\
	SAME("file", NULL, 0, FK_STR, queue_file),				\
	SAME("record", NULL, 0, FK_U64, queue_record),				\
	SAME("records", NULL, 0, FK_U64, queue_records)
#define QUEUE_TARGET_FIELDS							\
	SAME("queue_type", NULL, 0, FK_STR, queue_type),			\
	SAME("target_kind", NULL, 0, FK_STR, queue_target_kind),		\
	SAME("target_index", NULL, 0, FK_U64, queue_target_index),		\
	SAME("engine", NULL, 0, FK_U64, queue_engine)

FIELD_GET(raw_dev, struct raw_row, u, r->raw->dev)
FIELD_GET(raw_core, struct raw_row, u, r->raw->core)
FIELD_GET(raw_target, struct raw_row, s, r->target)
FIELD_GET(raw_format, struct raw_row, s, raw_format_name(r->raw->format))
FIELD_GET(raw_clock, struct raw_row, s, clock_domain_name(r->raw->clock_domain))

/* Never: the layout of raw entries is not known. */
static union field_val raw_decoded(const void *row)
{
	(void)row;
	return (union field_val){ .b = false };
}

FIELD_GET(raw_entries, struct raw_row, u, r->raw->entries)
FIELD_GET(raw_dev_entries, struct raw_row, u, r->raw->device_entries)

/*
 * JSON names the queue first, then its device and core; CSV and the text
 * the device and core first, and the text its queue, target and engine
 * after them.
 */
static const struct field raw_columns[] = {
	QUEUE_FILE_FIELDS,
	FIELD(NULL, "device", "device", -6, FK_U64, raw_dev),
	FIELD(NULL, "core", "core", -5, FK_U64, raw_core),
	QUEUE_TARGET_FIELDS,
	FIELD(NULL, NULL, "queue", -14, FK_STR, queue_type),
	FIELD(NULL, NULL, "target", -9, FK_STR, raw_target),
	FIELD(NULL, NULL, "engine", 6, FK_U64, queue_engine),
	FIELD("device", NULL, NULL, 0, FK_U64, raw_dev),
	FIELD("core", NULL, NULL, 0, FK_U64, raw_core),
	SAME("format", "format", -10, FK_STR, raw_format),
	SAME("clock_domain", "clock", -9, FK_STR, raw_clock),
	FIELD("decoded", NULL, NULL, 0, FK_BOOL, raw_decoded),
	SAME("entries", "entries", 10, FK_U64, raw_entries),
	SAME("device_entries", "device_entries", 14, FK_U64, raw_dev_entries),
	SAME("lost", "lost", 8, FK_U64, queue_lost),
	SAME("seq_gaps", "gaps", 8, FK_U64, queue_gaps),
};
const struct field_table raw_fields = FIELD_TABLE(raw_columns);

void raw_row(struct raw_row *r, const struct raw_queue *q)
{
	r->q = &q->q;
	r->raw = q;
	snprintf(r->target, sizeof(r->target), "%s %u",
		 q->q.target_kind == NEURONPROF_TARGET_TOPSP ? "topsp" : "core",
		 q->q.target_index);
}

static const struct field loss_columns[] = {
	QUEUE_FILE_FIELDS,
	QUEUE_TARGET_FIELDS,
	SAME("lost", NULL, 0, FK_U64, queue_lost),
	SAME("seq_gaps", NULL, 0, FK_U64, queue_gaps),
	SAME("explained", NULL, 0, FK_BOOL, queue_explained),
};
const struct field_table loss_fields = FIELD_TABLE(loss_columns);

void json_dist_fields(struct json *j, const struct dist *d, unsigned int pcts)
{
	jw_u64(j, "count", d->count);
	jw_u64(j, "total_ns", d->total);
	jw_u64(j, "min_ns", d->min);
	jw_u64(j, "avg_ns", d->avg);
	jw_u64(j, "median_ns", d->median);
	if (pcts & DIST_P95)
		jw_u64(j, "p95_ns", d->p95);
	if (pcts & DIST_P99)
		jw_u64(j, "p99_ns", d->p99);
	jw_u64(j, "max_ns", d->max);
}

void json_dist(struct json *j, const char *key, const struct dist *d, unsigned int pcts)
{
	jw_obj_begin(j, key);
	json_dist_fields(j, d, pcts);
	jw_obj_end(j);
}

void json_idle_gaps(struct json *j, const struct top_gaps *g, const struct core_stats *c)
{
	jw_arr_begin(j, "idle_gaps");
	for (size_t i = 0; i < g->n; i++) {
		struct gap_row r;

		gap_row(&r, c, NULL, &g->g[i], i + 1);
		fields_json_obj(j, NULL, &gap_fields, &r);
	}
	jw_arr_end(j);
}

void json_capture_ranges(struct json *j, const struct recording *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nfiles; i++)
		n += r->files[i]->info.exec_first != 0;
	if (!n)
		return;
	jw_arr_begin(j, "capture_ranges");
	for (size_t i = 0; i < r->nfiles; i++) {
		const struct prof_file *f = r->files[i];

		if (!f->info.exec_first)
			continue;
		jw_obj_begin(j, NULL);
		jw_str(j, "file", f->path);
		jw_u64(j, "core", f->info.core);
		jw_u64(j, "first_execution", f->info.exec_first);
		jw_u64(j, "last_execution", f->info.exec_last);
		jw_obj_end(j);
	}
	jw_arr_end(j);
}

void json_recording_fields(struct json *j, const struct rec_stats *s)
{
	jw_str(j, "path", s->rec->path);
	jw_u64(j, "files", s->rec->nfiles);
	jw_u64(j, "queue_records", s->queues);
	jw_u64(j, "entries", s->entries);
	json_capture_ranges(j, s->rec);
}

void json_raw_queues(struct json *j, const struct rec_stats *s)
{
	jw_arr_begin(j, "raw_queues");
	for (size_t i = 0; i < s->nraws; i++) {
		struct raw_row rr;

		raw_row(&rr, &s->raws[i]);
		fields_json_obj(j, NULL, &raw_fields, &rr);
	}
	jw_arr_end(j);
}

void json_losses(struct json *j, const struct rec_stats *s)
{
	jw_arr_begin(j, "losses");
	for (size_t i = 0; i < s->nlosses; i++) {
		const struct queue_loss *l = &s->losses[i];

		fields_json_obj(j, NULL, &loss_fields, &l);
	}
	jw_arr_end(j);
}

void json_loss_windows(struct json *j, const struct core_stats *c)
{
	if (!c->nlw)
		return;
	jw_arr_begin(j, "loss_windows");
	for (size_t i = 0; i < c->nlw; i++)
		fields_json_obj(j, NULL, &loss_window_fields,
				&(struct lw_row){ c, &c->lw[i] });
	jw_arr_end(j);
}

void json_throttle(struct json *j, const struct core_stats *c)
{
	jw_arr_begin(j, "throttle");
	for (size_t i = 0; i < c->nlevels; i++)
		fields_json_obj(j, NULL, &level_fields,
				&(struct level_row){ c, &c->levels[i] });
	jw_arr_end(j);
}

void json_unit_fields(struct json *j, const struct unit *u, const struct core_stats *c,
		      size_t top)
{
	struct unit_row ur;

	unit_row(&ur, c, u);
	fields_json(j, &unit_fields, &ur);
	jw_arr_begin(j, "ops");
	for (size_t i = 0; i < u->nops && i < top; i++) {
		struct unit_op_row r;

		unit_op_row(&r, c, u, &u->ops[i]);
		fields_json_obj(j, NULL, &unit_op_fields, &r);
	}
	jw_arr_end(j);
	json_idle_gaps(j, &u->idle, c);
}

void json_model_fields(struct json *j, const struct model_stats *m)
{
	jw_str(j, "model", m->name);
	jw_u64(j, "model_id", m->model_id);
	jw_u64(j, "failed", m->failed);
	json_dist(j, "latency", &m->lat, DIST_P99);
	jw_u64(j, "host_matched", m->host_matched);
	json_dist(j, "host_call", &m->host, DIST_P99);
	json_dist(j, "host_overhead", &m->overhead, DIST_P99);
}
