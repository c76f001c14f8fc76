// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): report's embedded data: one JSON document
 * (<script type="application/json" id="report-data">) with the numbers
 * behind every plot, from which the page's script builds its tables.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ui/report.h"
#include "analysis/fields.h"
#include "analysis/names.h"
#include "analysis/summary_columns.h"
#include "util/util.h"
#include "ui/summary_json.h"
#include "util/json.h"

static void hist_json(struct json *j, const char *key, const struct hist *h)
{
	jw_obj_begin(j, key);
	jw_u64(j, "lo_ns", h->lo);
	jw_u64(j, "bin_ns", h->width);
	jw_arr_begin(j, "counts");
	for (size_t i = 0; i < h->nb; i++)
		jw_u64(j, NULL, h->counts[i]);
	jw_arr_end(j);
	jw_obj_end(j);
}

static void u64_arr(struct json *j, const char *key, const uint64_t *v, size_t n)
{
	jw_arr_begin(j, key);
	for (size_t i = 0; i < n; i++)
		jw_u64(j, NULL, v[i]);
	jw_arr_end(j);
}

static void unit_json(struct json *j, const struct unit *u, const struct unit_timeline *ut,
		      const struct core_stats *c, const struct core_timeline *t, unsigned int top)
{
	jw_obj_begin(j, NULL);
	json_unit_fields(j, u, c, top);
	jw_str(j, "label", U(u));
	u64_arr(j, "busy_ns_by_bucket", ut->busy, t->nb);
	if (!u->topsp)
		u64_arr(j, "dma_bytes_by_bucket", ut->dma_bytes, t->nb);
	jw_obj_end(j);
}

/* An error code: summary's columns (err_fields), its name and its last time. */
static void err_json(struct json *j, const struct core_stats *c, const struct code_count *e)
{
	jw_obj_begin(j, NULL);
	fields_json(j, &err_fields, &(struct err_row){ c, e });
	jw_str(j, "name", error_code_name(c, e->code));
	jw_u64(j, "last_ns", e->last_ns);
	jw_obj_end(j);
}

/*
 * The recording's errors by code over its cores, in the order first seen
 * (core by core): the sum of the cores' counts, the first and last times,
 * the name of the first core that names it, how many cores saw it.
 */
static void errors_total_json(struct json *j, const struct rec_stats *s)
{
	struct code_count *v = NULL;
	const char **names = NULL;
	uint64_t *ncores = NULL, total = 0, lost = 0;
	size_t n = 0;

	for (size_t i = 0; i < s->ncores; i++) {
		const struct core_stats *c = &s->cores[i];

		total += c->errors;
		lost += error_queue_lost(c);
		for (size_t k = 0; k < c->nerrs; k++) {
			const struct code_count *e = &c->errs[k];
			size_t x = 0;

			while (x < n && v[x].code != e->code)
				x++;
			if (x == n) {
				v = xgrow1(v, n, sizeof(*v));
				names = xgrow1(names, n, sizeof(*names));
				ncores = xgrow1(ncores, n, sizeof(*ncores));
				v[n] = *e;
				names[n] = NULL;
				ncores[n++] = 0;
			} else {
				v[x].count += e->count;
				if (e->first_ns < v[x].first_ns)
					v[x].first_ns = e->first_ns;
				if (e->last_ns > v[x].last_ns)
					v[x].last_ns = e->last_ns;
			}
			if (!names[x])
				names[x] = error_code_name(c, e->code);
			ncores[x]++;
		}
	}
	jw_u64(j, "errors", total);
	jw_u64(j, "error_queue_lost", lost);
	jw_arr_begin(j, "errors_by_code");
	for (size_t x = 0; x < n; x++) {
		jw_obj_begin(j, NULL);
		jw_u64(j, "code", v[x].code);
		jw_str(j, "name", names[x]);
		jw_u64(j, "count", v[x].count);
		jw_u64(j, "first_ns", v[x].first_ns);
		jw_u64(j, "last_ns", v[x].last_ns);
		jw_u64(j, "cores", ncores[x]);
		jw_obj_end(j);
	}
	jw_arr_end(j);
	free(v);
	free(names);
	free(ncores);
}

static void core_json(struct json *j, const struct core_stats *c, const struct core_timeline *t,
		      unsigned int top)
{
	jw_obj_begin(j, NULL);
	fields_json(j, &core_fields, c);
	jw_u64(j, "bucket_ns", t->width);
	jw_u64(j, "buckets", t->nb);
	jw_arr_begin(j, "engines");
	for (size_t k = 0; k < c->nunits; k++)
		if (!c->units[k].topsp)
			unit_json(j, &c->units[k], &t->units[k], c, t, top);
	jw_arr_end(j);
	jw_arr_begin(j, "topsps");
	for (size_t k = 0; k < c->nunits; k++)
		if (c->units[k].topsp)
			unit_json(j, &c->units[k], &t->units[k], c, t, top);
	jw_arr_end(j);
	json_idle_gaps(j, &c->idle, c);
	u64_arr(j, "seq_gaps_by_bucket", t->gaps, t->nb);
	u64_arr(j, "executions_by_bucket", t->exec_starts, t->nb);
	jw_arr_begin(j, "throttle_level_by_bucket");
	for (size_t i = 0; i < t->nb; i++)
		jw_u64(j, NULL, t->throttle[i]);
	jw_arr_end(j);
	json_throttle(j, c);
	json_loss_windows(j, c);
	jw_u64(j, "error_queue_lost", error_queue_lost(c));
	jw_arr_begin(j, "errors_by_code");
	for (size_t i = 0; i < c->nerrs; i++)
		err_json(j, c, &c->errs[i]);
	jw_arr_end(j);
	jw_obj_end(j);
}

static void rec_json(struct json *j, const struct rec_stats *s, const struct rec_timeline *tl)
{
	jw_obj_begin(j, NULL);
	json_recording_fields(j, s);
	jw_u64(j, "raw_entries", s->raw_entries);
	jw_arr_begin(j, "cores");
	for (size_t i = 0; i < s->ncores; i++)
		core_json(j, &s->cores[i], &tl->cores[i], s->top);
	jw_arr_end(j);
	jw_arr_begin(j, "models");
	for (size_t i = 0; i < s->nmodels; i++) {
		const struct model_stats *m = &s->models[i];
		struct hist h;
		uint64_t *v;
		size_t n;

		jw_obj_begin(j, NULL);
		json_model_fields(j, m);
		v = model_values(s, m->model_id, false, &n);
		hist_of(&h, v, n);
		free(v);
		hist_json(j, "latency_histogram", &h);
		v = model_values(s, m->model_id, true, &n);
		hist_of(&h, v, n);
		free(v);
		hist_json(j, "overhead_histogram", &h);
		jw_obj_end(j);
	}
	jw_arr_end(j);
	json_losses(j, s);
	json_raw_queues(j, s);
	jw_obj_begin(j, "errors_total");
	errors_total_json(j, s);
	jw_obj_end(j);
	jw_obj_end(j);
}

/* The JSON document, safe inside <script>: "</" is written "<\/". */
void report_json_data(FILE *out, const char *const *paths, size_t npaths, size_t skipped,
		      struct rec_stats *st, struct rec_timeline *tl, size_t nrec, size_t nbuckets)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct json j;

	if (!m) {
		fprintf(stderr, "neuronprof: report: out of memory\n");
		exit(EXIT_FAIL);
	}
	jw_init(&j, m, false);
	jw_obj_begin(&j, NULL);
	/* "path": the first PATH, as summary --json writes it; "paths": all of them. */
	jw_str(&j, "path", paths[0]);
	jw_arr_begin(&j, "paths");
	for (size_t i = 0; i < npaths; i++)
		jw_str(&j, NULL, paths[i]);
	jw_arr_end(&j);
	jw_u64(&j, "skipped", skipped);
	jw_u64(&j, "bucket_limit", nbuckets);
	jw_arr_begin(&j, "recordings");
	for (size_t i = 0; i < nrec; i++)
		rec_json(&j, &st[i], &tl[i]);
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_finish(&j);
	fclose(m);
	html_json_script(out, "<script type=\"application/json\" id=\"report-data\">", buf, len);
	free(buf);
}
