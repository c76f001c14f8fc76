// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the JSON of recordings' statistics: the pieces summary
 * --json and report's embedded data share, and summary's whole document
 * (Documentation/analysis.rst); every section's fields from
 * analysis/summary_columns.h.
 */
#include <stdlib.h>

#include "ui/summary_json.h"
#include "analysis/names.h"
#include "util/util.h"

/* Version of the layout of summary --json ("format_version"). */
#define SUMMARY_JSON_VERSION	2

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
		n += r->files[i]->info.exec_first || r->files[i]->info.iter_first;
	if (!n)
		return;
	jw_arr_begin(j, "capture_ranges");
	for (size_t i = 0; i < r->nfiles; i++) {
		const struct prof_file *f = r->files[i];

		if (!f->info.exec_first && !f->info.iter_first)
			continue;
		jw_obj_begin(j, NULL);
		jw_str(j, "file", f->path);
		jw_u64(j, "core", f->info.core);
		if (f->info.exec_first) {
			jw_u64(j, "first_execution", f->info.exec_first);
			jw_u64(j, "last_execution", f->info.exec_last);
		}
		if (f->info.iter_first) {
			jw_u64(j, "first_iteration", f->info.iter_first);
			jw_u64(j, "last_iteration", f->info.iter_last);
		}
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


static void unit_json(struct json *j, const struct unit *u, const struct core_stats *c)
{
	jw_obj_begin(j, NULL);
	json_unit_fields(j, u, c, SIZE_MAX);
	jw_obj_end(j);
}

static void core_json(struct json *j, const struct core_stats *c)
{
	jw_obj_begin(j, NULL);
	fields_json(j, &core_fields, c);
	jw_arr_begin(j, "engines");
	for (size_t k = 0; k < c->nunits; k++)
		if (!c->units[k].topsp)
			unit_json(j, &c->units[k], c);
	jw_arr_end(j);
	jw_arr_begin(j, "topsps");
	for (size_t k = 0; k < c->nunits; k++)
		if (c->units[k].topsp)
			unit_json(j, &c->units[k], c);
	jw_arr_end(j);
	json_idle_gaps(j, &c->idle, c);
	json_throttle(j, c);
	json_loss_windows(j, c);
	jw_arr_begin(j, "errors_by_code");
	for (size_t i = 0; i < c->nerrs; i++)
		fields_json_obj(j, NULL, &err_fields, &(struct err_row){ c, &c->errs[i] });
	jw_arr_end(j);
	jw_obj_end(j);
}

static void json_recording(struct json *j, const struct rec_stats *s)
{
	const struct recording *r = s->rec;
	struct exec_ref *ex;
	struct totals t;
	size_t nex;

	totals(s, &t);
	jw_obj_begin(j, NULL);
	json_recording_fields(j, s);
	jw_arr_begin(j, "cores");
	for (size_t i = 0; i < s->ncores; i++)
		core_json(j, &s->cores[i]);
	jw_arr_end(j);
	jw_arr_begin(j, "ops_across_cores");
	for (size_t i = 0; i < s->nxops; i++) {
		const struct xop *x = &s->xops[i];
		struct xop_row xr;

		xop_row(&xr, s, x, false);
		jw_obj_begin(j, NULL);
		fields_json(j, &xop_fields, &xr);
		jw_arr_begin(j, "cores");
		for (size_t k = 0; k < x->ncores; k++) {
			jw_obj_begin(j, NULL);
			jw_u64(j, "device", s->cores[x->cores[k]].dev);
			jw_u64(j, "core", s->cores[x->cores[k]].core);
			jw_obj_end(j);
		}
		jw_arr_end(j);
		jw_obj_end(j);
	}
	jw_arr_end(j);
	jw_arr_begin(j, "models");
	for (size_t i = 0; i < s->nmodels; i++) {
		jw_obj_begin(j, NULL);
		json_model_fields(j, &s->models[i]);
		jw_obj_end(j);
	}
	jw_arr_end(j);
	ex = exec_list(s, &nex, false);
	jw_arr_begin(j, "executions");
	for (size_t i = 0; i < nex; i++)
		fields_json_obj(j, NULL, &exec_fields, &(struct exec_row){ s, &ex[i] });
	jw_arr_end(j);
	free(ex);
	if (r->sys && r->sys->ntrace) {
		jw_obj_begin(j, "host");
		jw_u64(j, "events", s->host_events);
		jw_u64(j, "nrt_execute_calls", s->timing.host_calls);
		jw_u64(j, "nrt_execute_matched", s->timing.host_calls_matched);
		jw_arr_begin(j, "event_types");
		for (size_t i = 0; i < s->nhost; i++)
			fields_json_obj(j, NULL, &host_fields,
					&(struct host_row){ &s->host[i].d, &s->host[i] });
		jw_arr_end(j);
		jw_obj_end(j);
	} else {
		jw_null(j, "host");
	}
	jw_obj_begin(j, "totals");
#define TOTAL_JSON(member, key)	jw_u64(j, key, t.member);
	TOTALS(TOTAL_JSON)
#undef TOTAL_JSON
	jw_obj_end(j);
	jw_u64(j, "raw_entries", s->raw_entries);
	json_raw_queues(j, s);
	json_losses(j, s);
	jw_obj_end(j);
}


static void json_xhost(struct json *j, const struct xhost *x)
{
	jw_obj_begin(j, "machines_compared");
	jw_str(j, "slowest", x->m[x->slowest].name);
	jw_str(j, "median", x->m[x->median].name);
	jw_arr_begin(j, "machines");
	for (size_t k = 0; k < x->nm; k++)
		fields_json_obj(j, NULL, &machine_fields,
				&(struct machine_row){ x, k });
	jw_arr_end(j);
	jw_arr_begin(j, "executions");
	for (size_t i = 0; i < x->nx; i++) {
		struct mexec_row r;

		mexec_row(&r, x, &x->x[i]);
		fields_json_obj(j, NULL, &mexec_fields, &r);
	}
	jw_arr_end(j);
	jw_arr_begin(j, "ops");
	for (size_t i = 0; i < x->nops; i++)
		fields_json_obj(j, NULL, &mop_fields,
				&(struct mop_row){ x, &x->ops[i], i + 1 });
	jw_arr_end(j);
	jw_obj_end(j);
}

void summary_json(const char *const *paths, const struct path_set *ps,
		  const struct rec_stats *stats, const struct xhost *xh)
{
	struct json j;

	jw_init(&j, stdout, true);
	jw_obj_begin(&j, NULL);
	/*
	 * The version of this document's layout (Documentation/analysis.rst):
	 * 2 named ops and models, spelled codes 0x000102, renamed
	 * dma_mbps to dma_bytes_per_s and an execution's stop_ns to end_ns.
	 */
	jw_u64(&j, "format_version", SUMMARY_JSON_VERSION);
	/* "path": the first PATH, as when summary took one; "paths": all of them. */
	jw_str(&j, "path", paths[0]);
	jw_arr_begin(&j, "paths");
	for (size_t i = 0; i < ps->npaths; i++)
		jw_str(&j, NULL, paths[i]);
	jw_arr_end(&j);
	jw_u64(&j, "files", ps->nfiles);
	jw_u64(&j, "entries", ps->entries);
	jw_u64(&j, "skipped", ps->skipped);
	jw_arr_begin(&j, "recordings");
	for (size_t i = 0; i < ps->nrec; i++)
		json_recording(&j, &stats[i]);
	jw_arr_end(&j);
	if (xh)
		json_xhost(&j, xh);
	else
		jw_null(&j, "machines_compared");
	jw_obj_end(&j);
	jw_finish(&j);
}
