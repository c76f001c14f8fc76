// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the JSON of a recording's statistics, and the columns of the
 * sections summary also writes as text and CSV (summary_json.h).
 */
#include "analysis/summary_json.h"
#include "analysis/names.h"

FIELD_GET(gap_label, struct gap_row, s, r->label)
FIELD_GET(gap_dev, struct gap_row, u, r->c->dev)
FIELD_GET(gap_core, struct gap_row, u, r->c->core)
FIELD_GET(gap_kind, struct gap_row, s, !r->u ? "core" : r->u->topsp ? "topsp" : "engine")
FIELD_GET(gap_index, struct gap_row, u, r->u ? r->u->index : r->c->core)
FIELD_GET(gap_rank, struct gap_row, u, r->rank)
FIELD_GET(gap_start, struct gap_row, u, r->g->start)
FIELD_GET(gap_end, struct gap_row, u, r->g->end)
FIELD_GET(gap_idle, struct gap_row, u, r->g->end - r->g->start)
FIELD_GET(gap_at, struct gap_row, u, r->g->start - r->c->first)
FIELD_GET(gap_where, struct gap_row, s, r->where)

const struct field gap_fields[] = {
	FIELD(NULL, NULL, "unit", -12, FK_STR, gap_label),
	FIELD(NULL, "device", NULL, 0, FK_U64, gap_dev),
	FIELD(NULL, "core", NULL, 0, FK_U64, gap_core),
	FIELD(NULL, "unit", NULL, 0, FK_STR, gap_kind),
	FIELD(NULL, "index", NULL, 0, FK_U64, gap_index),
	FIELD(NULL, "rank", NULL, 0, FK_U64, gap_rank),
	SAME("start_ns", NULL, 0, FK_NS, gap_start),
	SAME("end_ns", NULL, 0, FK_NS, gap_end),
	SAME("idle_ns", "idle", 12, FK_NS, gap_idle),
	SAME("at_ns", "at", 12, FK_NS, gap_at),
	SAME("where", "where", FIELD_LAST, FK_STR, gap_where),
};
const size_t gap_nfields = sizeof(gap_fields) / sizeof(gap_fields[0]);

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

FIELD_GET(uop_label, struct unit_op_row, s, r->label)
FIELD_GET(uop_dev, struct unit_op_row, u, r->c->dev)
FIELD_GET(uop_core, struct unit_op_row, u, r->c->core)
FIELD_GET(uop_kind, struct unit_op_row, s, r->u->topsp ? "topsp" : "engine")
FIELD_GET(uop_index, struct unit_op_row, u, r->u->index)
FIELD_GET(uop_name, struct unit_op_row, s, unit_op_name(r->c, r->u, r->o->code))
FIELD_GET(uop_code, struct unit_op_row, u, r->o->code)
FIELD_GET(uop_busy, struct unit_op_row, d, r->o->busy_pct)

const struct field unit_op_fields[] = {
	FIELD(NULL, NULL, "unit", -12, FK_STR, uop_label),
	FIELD(NULL, "device", NULL, 0, FK_U64, uop_dev),
	FIELD(NULL, "core", NULL, 0, FK_U64, uop_core),
	FIELD(NULL, "unit", NULL, 0, FK_STR, uop_kind),
	FIELD(NULL, "index", NULL, 0, FK_U64, uop_index),
	OP_FIELDS(uop_name, uop_code),
	SAME("max_ns", "max", 12, FK_NS, field_dist_max),
	SAME("busy_pct", "%busy", 7, FK_PCT, uop_busy),
};
const size_t unit_op_nfields = sizeof(unit_op_fields) / sizeof(unit_op_fields[0]);

void unit_op_row(struct unit_op_row *r, const struct core_stats *c, const struct unit *u,
		 const struct op_stats *o)
{
	*r = (struct unit_op_row){ .d = &o->d, .c = c, .u = u, .o = o };
	unit_label(u, r->label, sizeof(r->label));
}

FIELD_GET(lvl_dev, struct level_row, u, r->c->dev)
FIELD_GET(lvl_core, struct level_row, u, r->c->core)
FIELD_GET(lvl_level, struct level_row, u, r->l->level)
FIELD_GET(lvl_events, struct level_row, u, r->l->events)
FIELD_GET(lvl_ns, struct level_row, u, r->l->ns)
FIELD_GET(lvl_pct, struct level_row, d, r->l->pct)

const struct field level_fields[] = {
	FIELD(NULL, "device", NULL, 0, FK_U64, lvl_dev),
	FIELD(NULL, "core", NULL, 0, FK_U64, lvl_core),
	SAME("level", "level", -6, FK_U64, lvl_level),
	SAME("events", "events", 7, FK_U64, lvl_events),
	SAME("time_ns", "time", 12, FK_NS, lvl_ns),
	SAME("span_pct", "%span", 8, FK_PCT, lvl_pct),
};
const size_t level_nfields = sizeof(level_fields) / sizeof(level_fields[0]);

FIELD_GET(loss_file, struct loss, s, r->file)
FIELD_GET(loss_record, struct loss, u, r->record)
FIELD_GET(loss_records, struct loss, u, r->records)
FIELD_GET(loss_queue, struct loss, s, queue_name(r->queue_type))
FIELD_GET(loss_target, struct loss, s,
	  r->target_kind == NEURONPROF_TARGET_TOPSP ? "topsp" : "core")
FIELD_GET(loss_index, struct loss, u, r->target_index)
FIELD_GET(loss_engine, struct loss, u, r->engine)
FIELD_GET(loss_lost, struct loss, u, r->lost)
FIELD_GET(loss_gaps, struct loss, u, r->gaps)
FIELD_GET(loss_explained, struct loss, b, r->gaps <= r->lost)

const struct field loss_fields[] = {
	SAME("file", NULL, 0, FK_STR, loss_file),
	SAME("record", NULL, 0, FK_U64, loss_record),
	SAME("records", NULL, 0, FK_U64, loss_records),
	SAME("queue_type", NULL, 0, FK_STR, loss_queue),
	SAME("target_kind", NULL, 0, FK_STR, loss_target),
	SAME("target_index", NULL, 0, FK_U64, loss_index),
	SAME("engine", NULL, 0, FK_U64, loss_engine),
	SAME("lost", NULL, 0, FK_U64, loss_lost),
	SAME("seq_gaps", NULL, 0, FK_U64, loss_gaps),
	SAME("explained", NULL, 0, FK_BOOL, loss_explained),
};
const size_t loss_nfields = sizeof(loss_fields) / sizeof(loss_fields[0]);

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

void json_idle_gaps(struct json *j, const struct top_gaps *g, const struct core_stats *c)
{
	jw_arr_begin(j, "idle_gaps");
	for (size_t i = 0; i < g->n; i++) {
		struct gap_row r;

		gap_row(&r, c, NULL, &g->g[i], i + 1);
		jw_obj_begin(j, NULL);
		fields_json(j, gap_fields, gap_nfields, &r);
		jw_obj_end(j);
	}
	jw_arr_end(j);
}

void json_throttle(struct json *j, const struct core_stats *c)
{
	jw_arr_begin(j, "throttle");
	for (size_t i = 0; i < c->nlevels; i++) {
		jw_obj_begin(j, NULL);
		fields_json(j, level_fields, level_nfields,
			    &(struct level_row){ c, &c->levels[i] });
		jw_obj_end(j);
	}
	jw_arr_end(j);
}

void json_unit_fields(struct json *j, const struct unit *u, const struct core_stats *c,
		      size_t top)
{
	if (u->topsp) {
		jw_u64(j, "topsp", u->index);
	} else {
		jw_u64(j, "engine", u->index);
		jw_str(j, "name", engine_name(u->index));
	}
	jw_u64(j, "instructions", u->instructions);
	jw_u64(j, "events", u->events);
	jw_u64(j, "event_slices", u->event_slices);
	jw_u64(j, "event_busy_ns", u->event_busy);
	if (!u->topsp) {
		jw_u64(j, "dma", u->dma);
		jw_u64(j, "dma_bytes", u->dma_bytes);
		jw_u64(j, "dma_bytes_per_s", u->dma_bytes_per_s);
	} else {
		jw_u64(j, "errors", u->errors);
	}
	jw_u64(j, "lost", u->lost);
	jw_u64(j, "seq_gaps", u->gaps);
	jw_u64(j, "first_ns", u->first);
	jw_u64(j, "last_ns", u->last);
	jw_u64(j, "span_ns", u->any ? u->last - u->first : 0);
	jw_u64(j, "busy_ns", u->busy);
	jw_fixed(j, "utilization_pct", u->util_pct, 2);
	jw_arr_begin(j, "ops");
	for (size_t i = 0; i < u->nops && i < top; i++) {
		struct unit_op_row r;

		unit_op_row(&r, c, u, &u->ops[i]);
		jw_obj_begin(j, NULL);
		fields_json(j, unit_op_fields, unit_op_nfields, &r);
		jw_obj_end(j);
	}
	jw_arr_end(j);
	json_idle_gaps(j, &u->idle, c);
}

void json_core_fields(struct json *j, const struct core_stats *c)
{
	jw_u64(j, "device", c->dev);
	jw_str(j, "arch", arch_name(c->arch));
	jw_str(j, "provider", c->provider);
	jw_u64(j, "core", c->core);
	jw_u64(j, "entries", c->entries);
	jw_u64(j, "first_ns", c->first);
	jw_u64(j, "last_ns", c->last);
	jw_u64(j, "span_ns", c->any ? c->last - c->first : 0);
	jw_u64(j, "busy_ns", c->busy);
	jw_fixed(j, "utilization_pct", c->util_pct, 2);
	jw_u64(j, "inferences", c->inferences);
	jw_u64(j, "inferences_failed", c->infer_failed);
	jw_u64(j, "inference_busy_ns", c->infer_busy);
	jw_u64(j, "executions", c->ct ? c->ct->nexec : 0);
	jw_u64(j, "errors", c->errors);
	jw_u64(j, "throttle_events", c->throttles);
	jw_u64(j, "max_throttle_level", c->max_throttle);
	jw_u64(j, "lost", c->lost);
	jw_u64(j, "seq_gaps", c->gaps);
}
