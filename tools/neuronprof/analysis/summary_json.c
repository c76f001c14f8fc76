// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the JSON of a recording's statistics (summary_json.h).
 */
#include "analysis/summary_json.h"
#include "analysis/names.h"

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
	char where[64];

	jw_arr_begin(j, "idle_gaps");
	for (size_t i = 0; i < g->n; i++) {
		jw_obj_begin(j, NULL);
		jw_u64(j, "start_ns", g->g[i].start);
		jw_u64(j, "end_ns", g->g[i].end);
		jw_u64(j, "idle_ns", g->g[i].end - g->g[i].start);
		jw_u64(j, "at_ns", g->g[i].start - c->first);
		jw_str(j, "where",
		       exec_where(c->ct, g->g[i].start, g->g[i].end, where, sizeof(where)));
		jw_obj_end(j);
	}
	jw_arr_end(j);
}

void json_throttle(struct json *j, const struct core_stats *c)
{
	jw_arr_begin(j, "throttle");
	for (size_t i = 0; i < c->nlevels; i++) {
		jw_obj_begin(j, NULL);
		jw_u64(j, "level", c->levels[i].level);
		jw_u64(j, "events", c->levels[i].events);
		jw_u64(j, "time_ns", c->levels[i].ns);
		jw_fixed(j, "span_pct", c->levels[i].pct, 2);
		jw_obj_end(j);
	}
	jw_arr_end(j);
}

void json_unit_fields(struct json *j, const struct unit *u, const struct core_stats *c,
		      size_t top)
{
	char code[CODE_LEN];

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
		jw_obj_begin(j, NULL);
		jw_str(j, "op", unit_op_name(c, u, u->ops[i].code));
		jw_str(j, "code", code_str(u->ops[i].code, code));
		json_dist_fields(j, &u->ops[i].d, DIST_P95);
		jw_fixed(j, "busy_pct", u->ops[i].busy_pct, 2);
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
