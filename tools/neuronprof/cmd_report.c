// SPDX-License-Identifier: MIT
/*
 * neuronprof report: one self-contained HTML page per profile
 * (Documentation/tool.rst, "report"): the statistics summary computes
 * (summary.c), and their course over time (timeline.c), drawn as inline
 * SVG by this file; the numbers behind every plot are embedded as one JSON
 * document (<script type="application/json" id="report-data">) from which a
 * few lines of inline JavaScript build sortable tables. Nothing is fetched:
 * no network, no library.
 *
 * What cannot be shown (raw entries, a recording without decoded entries,
 * a model without executions, files skipped with --keep-going) is said on
 * the page where the plot would be.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <neuronprof/common.h>

#include "util/json.h"
#include "util/output.h"
#include "analysis/names.h"
#include "analysis/summary.h"
#include "ui/summary_json.h"
#include "analysis/timeline.h"
#include "util/options.h"
#include "diff_input.h"
#include "tool.h"
#include "util/progress.h"


#define DOC_MODEL	"Documentation/analysis.rst, &ldquo;The timing model&rdquo;"
#define DOC_OVERTIME	"Documentation/analysis.rst, &ldquo;Over time&rdquo;"
#define DOC_SUMMARY	"Documentation/analysis.rst, &ldquo;summary&rdquo;"
#define DOC_LOSSES	"Documentation/tool.rst, &ldquo;dump and summary&rdquo; (losses)"
#define DOC_RAW		"Documentation/hardware.rst (raw entries)"

/* Executions drawn one by one up to this many per core; beyond, counts per bucket. */
#define EXEC_MARKS_MAX	400
#define HIST_BINS	20

/* ---- formatting ----------------------------------------------------------------- */

#define D(ns)	field_dur_short((ns), (char[32]){ 0 }, 32)

/* @s with &, <, >, " and ' as entities. */
static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}


static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#bab0ac",
};

#define NPAL	(sizeof(palette) / sizeof(palette[0]))

/* ---- histograms ----------------------------------------------------------------- */

struct hist {
	uint64_t lo, width;		/* bin i: [lo + i * width, lo + (i + 1) * width) */
	size_t nb;
	uint64_t counts[HIST_BINS];
};

/*
 * A model as every command shows it (tool.rst, Conventions): its name with
 * its id when its files carry one ("synthetic_mlp (model 7)"), else
 * "model 7"; escaped.
 */
static void model_label(FILE *f, const char *name, uint32_t id)
{
	if (name && *name) {
		esc(f, name);
		fprintf(f, " (model %u)", id);
	} else {
		fprintf(f, "model %u", id);
	}
}

/* The name of model @id in @s (its files' model_name), or NULL. */
static const char *model_name_in(const struct rec_stats *s, uint32_t id)
{
	for (size_t i = 0; i < s->nmodels; i++)
		if (s->models[i].model_id == id)
			return s->models[i].name;
	return NULL;
}

static void hist_of(struct hist *h, const uint64_t *v, size_t n)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	memset(h, 0, sizeof(*h));
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	h->nb = n < HIST_BINS ? n : HIST_BINS;
	h->lo = lo;
	h->width = (hi - lo) / h->nb + 1;
	for (size_t i = 0; i < n; i++)
		h->counts[(v[i] - lo) / h->width]++;
}

/* The device latencies (or host overheads, @overhead) of @model's executions. */
static uint64_t *model_values(const struct rec_stats *s, uint32_t model, bool overhead,
			      size_t *n)
{
	uint64_t *v = NULL;
	size_t k = 0, cap = 0;

	for (size_t c = 0; c < s->timing.ncores; c++)
		for (size_t i = 0; i < s->timing.cores[c].nexec; i++) {
			const struct execution *x = &s->timing.cores[c].exec[i];
			uint64_t dev = x->stop - x->start, host;

			if (x->model_id != model || (overhead && !x->host))
				continue;
			v = xgrow(v, k, &cap, sizeof(*v));
			if (overhead) {
				host = x->host->end_ns > x->host->start_ns ?
				       x->host->end_ns - x->host->start_ns : 0;
				v[k++] = host > dev ? host - dev : 0;
			} else {
				v[k++] = dev;
			}
		}
	*n = k;
	return v;
}

/* ---- the embedded data ---------------------------------------------------------- */

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
	jw_obj_end(j);
}

/* The JSON document, safe inside <script>: "</" is written "<\/". */
static void data_block(FILE *out, const char *const *paths, size_t npaths, size_t skipped,
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
	fputs("<script type=\"application/json\" id=\"report-data\">", out);
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '<' && i + 1 < len && buf[i + 1] == '/')
			fputs("<\\", out);
		else
			fputc(buf[i], out);
	}
	fputs("</script>\n", out);
	free(buf);
}

/* ---- SVG ------------------------------------------------------------------------- */

#define SVG_W		960
#define LABEL_W		120
#define PLOT_W		(SVG_W - LABEL_W - 20)
#define STRIP_H		22
#define ROW_GAP		6

static double xpos(const struct core_timeline *t, uint64_t ts)
{
	double span = (double)t->nb * (double)t->width;
	double off = ts > t->t0 ? (double)(ts - t->t0) : 0.0;

	if (off > span)
		off = span;
	return LABEL_W + off / span * PLOT_W;
}

/* A step line of @v (n values, relative to @max) as the area under it, row at @y. */
static void strip_path(FILE *f, const uint64_t *v, size_t n, double max, int y, const char *color,
		       const char *cls)
{
	double bw = (double)PLOT_W / (double)n;

	fprintf(f, "<path class=\"%s\" fill=\"%s\" d=\"M%d %d", cls, color, LABEL_W, y + STRIP_H);
	for (size_t i = 0; i < n; i++) {
		double fr = max > 0 ? (double)v[i] / max : 0;

		if (fr > 1)
			fr = 1;
		fprintf(f, "V%.1fH%.1f", y + STRIP_H - fr * STRIP_H, LABEL_W + (double)(i + 1) * bw);
	}
	fprintf(f, "V%dZ\"/>\n", y + STRIP_H);
}

static void row_label(FILE *f, int y, const char *label, const char *sub)
{
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lbl\">", LABEL_W - 6, y + STRIP_H / 2 + 4);
	esc(f, label);
	fputs("</text>", f);
	if (sub) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"sub\">", LABEL_W - 6, y + STRIP_H + 2);
		esc(f, sub);
		fputs("</text>", f);
	}
	fprintf(f, "<rect class=\"bg\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", LABEL_W,
		y, PLOT_W, STRIP_H);
}

/*
 * The longest idle gaps of @g (a unit's, or the core's with @unit "core")
 * over the row at @y: an outlined box each, from the gap's start to its
 * end, its rank in the box when it is wide enough.
 */
static void idle_marks(FILE *f, const struct core_stats *c, const struct core_timeline *t,
		       const struct top_gaps *g, const char *unit, int y)
{
	char where[64];

	for (size_t i = 0; i < g->n; i++) {
		const struct idle_gap *gp = &g->g[i];
		double x0 = xpos(t, gp->start), x1 = xpos(t, gp->end), w = x1 - x0;

		if (w < 2)
			w = 2;
		fprintf(f, "<rect class=\"idle\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			"height=\"%d\" data-device=\"%u\" data-core=\"%u\" data-unit=\"%s\" "
			"data-rank=\"%zu\" data-start-ns=\"%" PRIu64 "\" data-idle-ns=\"%" PRIu64
			"\"><title>%s idle gap %zu: %s at +%s, %s</title></rect>", x0, y, w, STRIP_H,
			c->dev, c->core, unit, i + 1, gp->start, gp->end - gp->start, unit, i + 1,
			D(gp->end - gp->start),
			D(gp->start - c->first),
			exec_where(c->ct, gp->start, gp->end, where, sizeof(where)));
		if (w >= 12)
			fprintf(f, "<text class=\"idlerank\" x=\"%.1f\" y=\"%d\">%zu</text>",
				x0 + w / 2, y + STRIP_H / 2 + 4, i + 1);
	}
	fputc('\n', f);
}

/*
 * The loss windows of @c (of unit @u's instruction queue, or of every
 * queue when @u is NULL) clipped to the core's span, as shaded boxes over
 * the strip at @y: where the unit's busy time is not known.
 */
static void loss_marks(FILE *f, const struct core_stats *c, const struct core_timeline *t,
		       const struct unit *u, int y)
{
	for (size_t i = 0; i < c->nlw; i++) {
		const struct loss_window *w = &c->lw[i];
		uint64_t a = w->start > c->first ? w->start : c->first;
		uint64_t b = w->end < c->last ? w->end : c->last;
		double x0, x1;

		if (u && !(w->queue_type == (u->topsp ? NEURONPROF_QT_TOPSP_TRACE :
					      NEURONPROF_QT_TRACE) &&
			   (u->topsp ? w->target_index : w->engine) == u->index))
			continue;
		if (b < a)
			b = a;
		x0 = xpos(t, a);
		x1 = xpos(t, b);
		fprintf(f, "<rect class=\"losswin\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			"height=\"%d\" fill=\"#7f7f7f\" fill-opacity=\"0.35\" stroke=\"#d62728\" "
			"data-start=\"%" PRIu64 "\" data-end=\"%" PRIu64 "\" "
			"data-lost=\"%" PRIu64 "\"><title>%s: %" PRIu64 " lost %s, %s from %s</title>"
			"</rect>", x0, y, x1 - x0 < 2 ? 2 : x1 - x0, STRIP_H, w->start, w->end,
			w->lost, queue_name(w->queue_type), w->lost,
			w->tail ? "after the last entry" : "in a sequence gap", D(w->end - w->start),
			D(w->start > c->first ? w->start - c->first : 0));
	}
	fputc('\n', f);
}

static void svg_timeline(FILE *f, const struct rec_stats *s, const struct core_stats *c,
			 const struct core_timeline *t)
{
	const struct core_timing *ct = c->ct;
	size_t nexec = ct ? ct->nexec : 0, rows = c->nunits + 5;
	uint64_t maxdma = 0, *dma = xcalloc(t->nb, sizeof(*dma));
	int h = (int)rows * (STRIP_H + ROW_GAP) + 30, y = 4;
	char sub[48];

	for (size_t k = 0; k < c->nunits; k++)
		for (size_t i = 0; i < t->nb; i++)
			dma[i] += t->units[k].dma_bytes[i];
	for (size_t i = 0; i < t->nb; i++)
		if (dma[i] > maxdma)
			maxdma = dma[i];
	fprintf(f, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" data-device=\"%u\" "
		"data-core=\"%u\" data-buckets=\"%zu\">\n", SVG_W, h, SVG_W, h, c->dev, c->core,
		t->nb);
	for (size_t k = 0; k < c->nunits; k++) {
		const struct unit *u = &c->units[k];

		snprintf(sub, sizeof(sub), "%.2f%% busy%s", u->util_pct,
			 u->lossy ? " of observed" : "");
		row_label(f, y, U(u), sub);
		strip_path(f, t->units[k].busy, t->nb, (double)t->width, y,
			   palette[k % NPAL], "util");
		idle_marks(f, c, t, &u->idle, U(u), y);
		if (u->lossy)
			loss_marks(f, c, t, u, y);
		y += STRIP_H + ROW_GAP;
	}
	/* The core's idle gaps: between one inference's stop and the next's start. */
	snprintf(sub, sizeof(sub), "%zu longest", c->idle.n);
	row_label(f, y, "core idle gaps", c->idle.n ? sub : "none");
	idle_marks(f, c, t, &c->idle, "core", y);
	y += STRIP_H + ROW_GAP;
	/* Executions: one bar each (and a triangle at its host call), or counts. */
	row_label(f, y, "executions", nexec > EXEC_MARKS_MAX ? "per bucket" : NULL);
	if (nexec > EXEC_MARKS_MAX) {
		uint64_t mx = 0;

		for (size_t i = 0; i < t->nb; i++)
			if (t->exec_starts[i] > mx)
				mx = t->exec_starts[i];
		strip_path(f, t->exec_starts, t->nb, (double)mx, y, "#555", "exec");
	} else {
		for (size_t i = 0; i < nexec; i++) {
			const struct execution *x = &ct->exec[i];
			double x0 = xpos(t, x->start), x1 = xpos(t, x->stop);

			fprintf(f, "<rect class=\"exec\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"%s\"><title>execution %zu, ",
				x0, y + 8, x1 - x0 < 1 ? 1 : x1 - x0, STRIP_H - 8,
				x->failed ? "#e15759" : palette[x->model_id % NPAL], i);
			model_label(f, model_name_in(s, x->model_id), x->model_id);
			fprintf(f, ": %s%s</title></rect>", D(x->stop - x->start),
				x->failed ? " (failed)" : "");
			if (x->host) {
				double hx = xpos(t, x->host->start_ns);

				fprintf(f, "<path class=\"hostcall\" d=\"M%.1f %dl-4 -7h8z\" fill=\"#333\">"
					"<title>nrt_execute call %s before the device start</title></path>",
					hx, y + 8, D(x->start - x->host->start_ns));
			}
		}
		fputc('\n', f);
	}
	y += STRIP_H + ROW_GAP;
	/* Every loss window of the core, and the sequence gaps where they were seen. */
	if (c->lost)
		snprintf(sub, sizeof(sub), "%" PRIu64 " recorded, %" PRIu64 " missing", c->lost,
			 c->gaps);
	else
		snprintf(sub, sizeof(sub), "%" PRIu64 " missing", c->gaps);
	row_label(f, y, "lost (seq gaps)", sub);
	if (c->nlw)
		loss_marks(f, c, t, NULL, y);
	for (size_t i = 0; i < t->nb; i++)
		if (t->gaps[i])
			fprintf(f, "<rect class=\"lost\" x=\"%.1f\" y=\"%d\" width=\"2\" height=\"%d\" "
				"fill=\"#d62728\"><title>%" PRIu64 " entries missing at %s</title></rect>",
				xpos(t, t->t0 + i * t->width), y, STRIP_H, t->gaps[i],
				D(i * t->width));
	fputc('\n', f);
	y += STRIP_H + ROW_GAP;
	snprintf(sub, sizeof(sub), "max level %u", c->max_throttle);
	row_label(f, y, "throttle", sub);
	for (size_t i = 0; i < t->nb; i++)
		if (t->throttle[i])
			fprintf(f, "<rect class=\"thr\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"#e15759\" fill-opacity=\"%.2f\"/>", xpos(t, t->t0 + i * t->width),
				y, (double)PLOT_W / (double)t->nb, STRIP_H,
				0.15 + 0.85 * (double)t->throttle[i] / (double)c->max_throttle);
	fputc('\n', f);
	y += STRIP_H + ROW_GAP;
	snprintf(sub, sizeof(sub), "max %.1f MB/s",
		 (double)maxdma * 1e3 / (double)t->width);
	row_label(f, y, "DMA bandwidth", sub);
	strip_path(f, dma, t->nb, (double)maxdma, y, "#76b7b2", "dma");
	y += STRIP_H + ROW_GAP;
	/* Time axis: offsets from the core's first timestamp. */
	for (int q = 0; q <= 4; q++) {
		uint64_t off = (uint64_t)((double)t->nb * (double)t->width * q / 4);
		double x = LABEL_W + (double)PLOT_W * q / 4;

		fprintf(f, "<line class=\"tick\" x1=\"%.1f\" y1=\"4\" x2=\"%.1f\" y2=\"%d\"/>"
			"<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">+%s</text>\n",
			x, x, y, x, y + 14, q == 0 ? "start" : q == 4 ? "end" : "middle", D(off));
	}
	fputs("</svg>\n", f);
	free(dma);
}

static void svg_ops(FILE *f, const struct core_stats *c, unsigned int top)
{
	uint64_t max = 0;
	size_t rows = 0;
	int y = 4, bar = 14;

	for (size_t k = 0; k < c->nunits; k++)
		for (size_t i = 0; i < c->units[k].nops && i < top; i++) {
			rows++;
			if (c->units[k].ops[i].d.total > max)
				max = c->units[k].ops[i].d.total;
		}
	if (!rows) {
		fputs("<p class=\"empty\">No instructions on this core: no ops to rank.</p>\n", f);
		return;
	}
	fprintf(f, "<svg class=\"ops\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%zu\" role=\"img\">\n", SVG_W, rows * (size_t)(bar + 4) + 8);
	for (size_t k = 0; k < c->nunits; k++) {
		const struct unit *u = &c->units[k];

		for (size_t i = 0; i < u->nops && i < top; i++) {
			const struct op_stats *o = &u->ops[i];
			double w = max ? (double)o->d.total / (double)max * (PLOT_W - 330) : 0;

			const char *op = unit_op_name(c, u, o->code);
			char code[CODE_LEN];

			/* Names are [a-z0-9_.]: nothing to escape in the markup. */
			code_str(o->code, code);
			fprintf(f, "<text class=\"lbl\" x=\"%d\" y=\"%d\">%s %s%s%s</text>",
				LABEL_W + 40, y + bar - 3, U(u), op ? op : "", op ? " " : "", code);
			fprintf(f, "<rect class=\"op\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"%s\" data-unit=\"%s\" data-code=\"%s\" data-total-ns=\"%" PRIu64
				"\"><title>count %" PRIu64 ", median %s, p95 %s</title></rect>",
				LABEL_W + 46, y, w < 1 ? 1 : w, bar, palette[k % NPAL], U(u), code,
				o->d.total, o->d.count, D(o->d.median), D(o->d.p95));
			fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%d\">%s (%.2f%% of the unit, %"
				PRIu64 "&times;)</text>\n", LABEL_W + 52 + (w < 1 ? 1 : w), y + bar - 3,
				D(o->d.total), o->busy_pct, o->d.count);
			y += bar + 4;
		}
	}
	fputs("</svg>\n", f);
}

static void svg_hist(FILE *f, const struct hist *h, const char *what, uint32_t model,
		     const char *name)
{
	const int W = 460, H = 160, L = 40, B = 30;
	uint64_t max = 0;
	double bw;

	for (size_t i = 0; i < h->nb; i++)
		if (h->counts[i] > max)
			max = h->counts[i];
	bw = (double)(W - L - 10) / (double)h->nb;
	fprintf(f, "<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" role=\"img\" data-model=\"%u\" data-what=\"%s\">\n", W, H, model, what);
	fprintf(f, "<text class=\"title\" x=\"%d\" y=\"12\">", L);
	model_label(f, name, model);
	fprintf(f, ": %s</text>\n", what);
	for (size_t i = 0; i < h->nb; i++) {
		double bh = max ? (double)h->counts[i] / (double)max * (H - B - 24) : 0;

		fprintf(f, "<rect class=\"bin\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"data-count=\"%" PRIu64 "\"><title>%s to %s: %" PRIu64 "</title></rect>",
			L + i * bw + 1, H - B - bh, bw - 2 > 1 ? bw - 2 : 1, bh, h->counts[i],
			D(h->lo + i * h->width), D(h->lo + (i + 1) * h->width), h->counts[i]);
	}
	fprintf(f, "\n<line class=\"tick\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", L, H - B,
		W - 10, H - B);
	fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\">%s</text>", L, H - B + 14, D(h->lo));
	fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\">%s</text>", W - 40, H - B + 14,
		D(h->lo + h->nb * h->width));
	fprintf(f, "<text class=\"axis\" x=\"4\" y=\"%d\">%" PRIu64 "</text>\n</svg>\n", 30, max);
}

/* ---- the page ------------------------------------------------------------------- */

static const char page_style[] =
	"body{font:14px/1.4 system-ui,-apple-system,'DejaVu Sans',sans-serif;margin:1.5em;"
	"color:#222;max-width:1000px}\n"
	"h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:2em}\n"
	".def{color:#666;font-size:.85em;margin:.2em 0 .6em}\n"
	".empty,.note{background:#fff4e5;border-left:4px solid #f28e2b;padding:.4em .8em}\n"
	"svg text{font:11px 'DejaVu Sans',sans-serif;fill:#333}\n"
	"svg .lbl{text-anchor:end}svg.ops .lbl{text-anchor:end}\n"
	"svg .sub{text-anchor:end;fill:#888;font-size:9px}\n"
	"svg .bg{fill:#f4f4f4}svg .tick{stroke:#bbb}svg .axis{fill:#666}\n"
	"svg .bin{fill:#4e79a7}svg .title{font-weight:bold}\n"
	".hosts{display:flex;flex-wrap:wrap;gap:12px}.hosts svg{background:#fafafa}\n"
	"svg .range{stroke:#555;stroke-width:1.5}svg .med{stroke:#222;stroke-width:2}\n"
	"svg .idle{fill:#f28e2b;fill-opacity:.12;stroke:#c0392b;stroke-width:1.2;"
	"stroke-dasharray:3 2}svg .idlerank{text-anchor:middle;fill:#c0392b;font-size:10px;"
	"font-weight:bold}\n"
	"table{border-collapse:collapse;font-size:12px;margin:.5em 0}\n"
	"th,td{border:1px solid #ddd;padding:2px 6px;text-align:right}\n"
	"th{background:#eee;cursor:pointer;user-select:none}th.asc:after{content:' \\25B2'}"
	"th.desc:after{content:' \\25BC'}\n"
	"td.s{text-align:left}details{margin:.4em 0}summary{cursor:pointer;color:#4e79a7}\n";

/*
 * Tables from the embedded data: each <div class="tbl" data-kind=K
 * data-rec=R data-core=C data-model=M> gets the rows of kind K; a click on
 * a column header sorts by it.
 */
static const char page_script[] =
	"(function(){\n"
	"var D=JSON.parse(document.getElementById('report-data').textContent);\n"
	"function ops(c){var r=[];c.engines.concat(c.topsps).forEach(function(u){u.ops.forEach("
	"function(o){r.push([u.label,o.op===null?'-':o.op,o.code,o.count,"
	"o.total_ns,o.median_ns,o.p95_ns,o.max_ns,o.busy_pct]);});});return r;}\n"
	"function units(c){return c.engines.concat(c.topsps).map(function(u){return [u.label,"
	"u.instructions,u.busy_ns,u.utilization_pct,u.dma_bytes===undefined?'':u.dma_bytes,"
	"u.dma_bytes_per_s===undefined?'':u.dma_bytes_per_s,u.lost,u.seq_gaps];});}\n"
	"function buckets(c){var us=c.engines.concat(c.topsps),r=[];for(var i=0;i<c.buckets;i++){"
	"var row=[i*c.bucket_ns];us.forEach(function(u){row.push(+(100*u.busy_ns_by_bucket[i]/"
	"c.bucket_ns).toFixed(2));});var d=0;c.engines.forEach(function(u){d+=u.dma_bytes_by_bucket[i];});"
	"row.push(+(d*1e3/c.bucket_ns).toFixed(2),c.executions_by_bucket[i],c.seq_gaps_by_bucket[i],"
	"c.throttle_level_by_bucket[i]);r.push(row);}return r;}\n"
	"function bucketcols(c){return ['at_ns'].concat(c.engines.concat(c.topsps).map(function(u){"
	"return u.label+' busy%';}),['dma_MB/s','executions','seq_gaps','throttle']);}\n"
	"function idle(c){var r=[];function add(l,gs){gs.forEach(function(g,i){r.push([l,i+1,"
	"g.idle_ns,g.at_ns,g.start_ns,g.end_ns,g.where]);});}add('core',c.idle_gaps);"
	"c.engines.concat(c.topsps).forEach(function(u){add(u.label,u.idle_gaps);});return r;}\n"
	"function hist(h){return h.counts.map(function(n,i){return [h.lo_ns+i*h.bin_ns,"
	"h.lo_ns+(i+1)*h.bin_ns,n];});}\n"
	"var K={\n"
	" ops:[['unit','op','code','count','total_ns','median_ns','p95_ns','max_ns','busy%'],ops],\n"
	" units:[['unit','instructions','busy_ns','util%','dma_bytes','dma_bytes/s','lost',"
	"'seq_gaps'],units],\n"
	" buckets:[bucketcols,buckets],\n"
	" hostcores:[['recording','device','core','busy_ns','util%','inference_busy_ns',"
	"'executions'],function(){var r=[];D.recordings.forEach(function(x){x.cores.forEach("
	"function(c){r.push([x.path,c.device,c.core,c.busy_ns,c.utilization_pct,"
	"c.inference_busy_ns,c.executions]);});});return r;}],\n"
	" hostmodels:[['recording','model','count','min_ns','median_ns','p99_ns','max_ns'],"
	"function(){var r=[];D.recordings.forEach(function(x){x.models.forEach(function(m){"
	"var l=m.latency;r.push([x.path,m.model_id,l.count,l.min_ns,l.median_ns,l.p99_ns,"
	"l.max_ns]);});});return r;}],\n"
	" idle:[['unit','rank','idle_ns','at_ns','start_ns','end_ns','where'],idle],\n"
	" throttle:[['level','events','time_ns','span%'],function(c){return c.throttle.map("
	"function(t){return [t.level,t.events,t.time_ns,t.span_pct];});}],\n"
	" models:[['model','count','failed','min_ns','median_ns','p99_ns','max_ns','host_matched',"
	"'overhead_median_ns'],function(r){return r.models.map(function(m){var l=m.latency;return "
	"[m.model_id,l.count,m.failed,l.min_ns,l.median_ns,l.p99_ns,l.max_ns,m.host_matched,"
	"m.host_overhead.median_ns];});}],\n"
	" latency:[['from_ns','to_ns','executions'],function(m){return hist(m.latency_histogram);}],\n"
	" overhead:[['from_ns','to_ns','executions'],function(m){return hist(m.overhead_histogram);}],\n"
	" losses:[['file','record','records','queue','target','engine','lost','seq_gaps','explained'],"
	"function(r){return r.losses.map(function(l){return [l.file,l.record,l.records,l.queue_type,"
	"l.target_kind+' '+l.target_index,l.engine,l.lost,l.seq_gaps,l.explained?'yes':'NO'];});}],\n"
	" raw:[['file','device','core','queue','engine','format','entries','device_entries','lost',"
	"'seq_gaps'],function(r){return r.raw_queues.map(function(q){return [q.file,q.device,q.core,"
	"q.queue_type,q.engine,q.format,q.entries,q.device_entries,q.lost,q.seq_gaps];});}],\n"
	" recordings:[['recording','files','entries','cores','util% (mean)','executions','lost',"
	"'seq_gaps'],function(){return D.recordings.map(function(r){var u=0,x=0,l=0,g=0;"
	"r.cores.forEach(function(c){u+=c.utilization_pct;x+=c.executions;l+=c.lost;g+=c.seq_gaps;});"
	"return [r.path,r.files,r.entries,r.cores.length,r.cores.length?+(u/r.cores.length)"
	".toFixed(2):0,x,l,g];});}]\n"
	"};\n"
	"function build(el){var k=K[el.dataset.kind],r=D.recordings[+el.dataset.rec],obj=D;"
	"if(r){obj=r;if(el.dataset.core!==undefined)obj=r.cores[+el.dataset.core];"
	"if(el.dataset.model!==undefined)obj=r.models[+el.dataset.model];}"
	"var cols=typeof k[0]==='function'?k[0](obj):k[0],rows=k[1](obj);"
	"var t=document.createElement('table'),h=t.createTHead().insertRow(),b=t.createTBody();"
	"cols.forEach(function(c,i){var th=document.createElement('th');th.textContent=c;"
	"th.onclick=function(){sort(t,i,th);};h.appendChild(th);});"
	"rows.forEach(function(row){var tr=b.insertRow();row.forEach(function(v){var td=tr.insertCell();"
	"td.textContent=v;if(typeof v!=='number')td.className='s';});});"
	"el.textContent='';el.appendChild(t);el.dataset.rows=rows.length;}\n"
	"function sort(t,i,th){var b=t.tBodies[0],rs=Array.prototype.slice.call(b.rows),"
	"d=th.classList.contains('asc')?-1:1;Array.prototype.forEach.call(th.parentNode.cells,"
	"function(c){c.className='';});th.className=d>0?'asc':'desc';rs.sort(function(x,y){"
	"var a=x.cells[i].textContent,c=y.cells[i].textContent,na=parseFloat(a),nc=parseFloat(c);"
	"if(!isNaN(na)&&!isNaN(nc))return (na-nc)*d;return a<c?-d:a>c?d:0;});"
	"rs.forEach(function(r){b.appendChild(r);});}\n"
	"Array.prototype.forEach.call(document.querySelectorAll('div.tbl'),build);\n"
	"document.body.dataset.rendered='yes';\n"
	"})();\n";

static void table(FILE *f, const char *kind, size_t rec, long core, long model)
{
	fprintf(f, "<div class=\"tbl\" data-kind=\"%s\" data-rec=\"%zu\"", kind, rec);
	if (core >= 0)
		fprintf(f, " data-core=\"%ld\"", core);
	if (model >= 0)
		fprintf(f, " data-model=\"%ld\"", model);
	fputs("><noscript>The tables are built by the page's script, which is "
	      "disabled.</noscript></div>\n", f);
}

static void numbers(FILE *f, const char *what, const char *kind, size_t rec, long core,
		    long model, bool open)
{
	fprintf(f, "<details%s><summary>%s</summary>\n", open ? " open" : "", what);
	table(f, kind, rec, core, model);
	fputs("</details>\n", f);
}

/* ---- several recordings side by side ------------------------------------------- */

/*
 * One panel per recording (machine), in a row that wraps, every panel of a
 * plot the same size and on the same axis: bars of each core's busy time
 * (from 0 to the busiest core of all the recordings), of its utilisation
 * (0 to 100%), and per model the execution latency (min to max as a line,
 * median to p99 as a box, from 0 to the longest execution of all).
 */
#define HOST_L		58	/* row labels */
#define HOST_R		84	/* values after the bars */
#define HOST_ROW	20
#define HOST_TOP	26

enum host_plot { HOST_BUSY, HOST_UTIL, HOST_LAT };

static int host_panel_w(size_t nrec)
{
	return nrec <= 3 ? (SVG_W - (int)(nrec - 1) * 12) / (int)nrec : (SVG_W - 24) / 3;
}

/* The last @max characters of @path (a machine's directory), "..." before them. */
static void short_path(FILE *f, const char *path, size_t max)
{
	size_t n = strlen(path);

	if (n > max) {
		fputs("&hellip;", f);
		path += n - max;
	}
	esc(f, path);
}

static double host_x(uint64_t v, double scale, int plot)
{
	return HOST_L + (scale > 0 ? (double)v / scale : 0) * plot;
}

static void host_panel(FILE *f, const struct rec_stats *s, size_t ri, enum host_plot what,
		       uint64_t scale, size_t rows, int pw)
{
	static const char *const cls[] = { "hostbusy", "hostutil", "hostlat" };
	int plot = pw - HOST_L - HOST_R, y = HOST_TOP;
	int h = HOST_TOP + (int)(rows ? rows : 1) * HOST_ROW + 18;
	double sc = what == HOST_UTIL ? 100.0 : (double)scale;
	char lbl[32];

	fprintf(f, "<svg class=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" data-rec=\"%zu\" "
		"data-scale=\"%" PRIu64 "\" data-x0=\"%d\" data-plot-w=\"%d\">\n", cls[what], pw, h,
		pw, h, ri, what == HOST_UTIL ? 100 : scale, HOST_L, plot);
	fprintf(f, "<text class=\"title\" x=\"4\" y=\"14\"><title>");
	esc(f, s->rec->path);
	fputs("</title>", f);
	short_path(f, s->rec->path, (size_t)(pw / 7));
	fputs("</text>\n", f);
	/* The shared axis: 0, half, all of the scale. */
	for (int q = 0; q <= 2; q++) {
		double x = HOST_L + (double)plot * q / 2;

		fprintf(f, "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
			"<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">", x,
			HOST_TOP - 4, x, h - 16, x, h - 4,
			q == 0 ? "start" : q == 2 ? "end" : "middle");
		if (what == HOST_UTIL)
			fprintf(f, "%d%%", 50 * q);
		else
			fputs(D((uint64_t)(sc * q / 2)), f);
		fputs("</text>", f);
	}
	fputc('\n', f);
	if (what != HOST_LAT) {
		if (!s->ncores)
			fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\">no NeuronCore</text>\n",
				HOST_L + 4, y + 14);
		for (size_t i = 0; i < s->ncores; i++, y += HOST_ROW) {
			const struct core_stats *c = &s->cores[i];
			double w = what == HOST_UTIL ? c->util_pct / 100.0 * plot :
				   host_x(c->busy, sc, plot) - HOST_L;

			snprintf(lbl, sizeof(lbl), "d%u nc%u", c->dev, c->core);
			fprintf(f, "<text class=\"lbl\" x=\"%d\" y=\"%d\">%s</text>", HOST_L - 4,
				y + 13, lbl);
			fprintf(f, "<rect class=\"hbar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"%s\" data-device=\"%u\" data-core=\"%u\" data-busy-ns=\"%" PRIu64
				"\" data-util-pct=\"%.2f\"><title>device %u NeuronCore %u: busy %s, "
				"%.2f%% of its span %s</title></rect>", HOST_L, y + 2, w, HOST_ROW - 5,
				palette[ri % NPAL], c->dev, c->core, c->busy, c->util_pct, c->dev,
				c->core, D(c->busy), c->util_pct, D(c->any ? c->last - c->first : 0));
			fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%d\">", HOST_L + w + 4, y + 13);
			if (what == HOST_UTIL)
				fprintf(f, "%.2f%%", c->util_pct);
			else
				fputs(D(c->busy), f);
			fputs("</text>\n", f);
		}
	} else {
		if (!s->nmodels)
			fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\">no executions</text>\n",
				HOST_L + 4, y + 14);
		for (size_t i = 0; i < s->nmodels; i++, y += HOST_ROW) {
			const struct model_stats *m = &s->models[i];
			const struct dist *d = &m->lat;
			double x0 = host_x(d->min, sc, plot), x1 = host_x(d->max, sc, plot);
			double xm = host_x(d->median, sc, plot), x9 = host_x(d->p99, sc, plot);
			int mid = y + HOST_ROW / 2;

			fprintf(f, "<text class=\"lbl\" x=\"%d\" y=\"%d\">", HOST_L - 4, y + 13);
			model_label(f, m->name, m->model_id);
			fputs("</text>", f);
			fprintf(f, "<line class=\"range\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
				x0, mid, x1 < x0 + 1 ? x0 + 1 : x1, mid);
			fprintf(f, "<rect class=\"hlat\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"%s\" data-model=\"%u\" data-count=\"%" PRIu64 "\" data-min-ns=\"%"
				PRIu64 "\" data-median-ns=\"%" PRIu64 "\" data-p99-ns=\"%" PRIu64 "\" "
				"data-max-ns=\"%" PRIu64 "\"><title>", xm, y + 3,
				x9 - xm < 2 ? 2 : x9 - xm, HOST_ROW - 6, palette[ri % NPAL], m->model_id,
				d->count, d->min, d->median, d->p99, d->max);
			model_label(f, m->name, m->model_id);
			fprintf(f, ": %" PRIu64 " executions, min %s, median %s, p99 %s, max %s"
				"</title></rect>", d->count, D(d->min), D(d->median), D(d->p99),
				D(d->max));
			fprintf(f, "<line class=\"med\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
				xm, y + 1, xm, y + HOST_ROW - 1);
			fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%d\">%s (%" PRIu64 ")</text>\n",
				(x1 > x9 ? x1 : x9) + 4, y + 13, D(d->median), d->count);
		}
	}
	fputs("</svg>\n", f);
}

static void host_plot(FILE *f, const struct rec_stats *st, size_t nrec, enum host_plot what)
{
	uint64_t scale = 0;
	size_t rows = 0;

	for (size_t i = 0; i < nrec; i++) {
		const struct rec_stats *s = &st[i];

		if (what == HOST_LAT) {
			rows = s->nmodels > rows ? s->nmodels : rows;
			for (size_t k = 0; k < s->nmodels; k++)
				scale = s->models[k].lat.max > scale ? s->models[k].lat.max : scale;
		} else {
			rows = s->ncores > rows ? s->ncores : rows;
			for (size_t k = 0; k < s->ncores; k++)
				scale = s->cores[k].busy > scale ? s->cores[k].busy : scale;
		}
	}
	fputs("<div class=\"hosts\">\n", f);
	for (size_t i = 0; i < nrec; i++)
		host_panel(f, &st[i], i, what, scale, rows, host_panel_w(nrec));
	fputs("</div>\n", f);
}

static void page_hosts(FILE *f, const struct rec_stats *st, size_t nrec)
{
	fputs("<h2>Recordings side by side</h2>\n<ul>", f);
	for (size_t i = 0; i < nrec; i++) {
		fprintf(f, "<li><a href=\"#r%zu\">", i);
		esc(f, st[i].rec->path);
		fputs("</a></li>", f);
	}
	fputs("</ul>\n", f);
	table(f, "recordings", nrec, -1, -1);
	fputs("<h3>Busy time per NeuronCore</h3>\n<p class=\"def\">One panel per recording "
	      "(machine), all on one axis, from 0 to the busiest core of all of them: the union "
	      "of the intervals of each core's engine and TopSP instructions (summary&rsquo;s "
	      "<code>busy_ns</code>). Defined in " DOC_MODEL " (busy time).</p>\n", f);
	host_plot(f, st, nrec, HOST_BUSY);
	fputs("<h3>Utilisation per NeuronCore</h3>\n<p class=\"def\">Busy time over each core's "
	      "active span, 0 to 100% in every panel. Defined in " DOC_MODEL
	      " (utilisation).</p>\n", f);
	host_plot(f, st, nrec, HOST_UTIL);
	numbers(f, "Numbers behind the plots: per recording and core", "hostcores", nrec, -1, -1,
		false);
	fputs("<h3>Execution latency per model</h3>\n<p class=\"def\">Per recording and model, "
	      "the executions' device latency: a line from the shortest to the longest, a box "
	      "from the median (the dark tick) to p99, the median and the count written after; "
	      "one axis for all the panels, from 0 to the longest execution of all. Defined in "
	      DOC_MODEL " (execution, distributions) and " DOC_SUMMARY ".</p>\n", f);
	host_plot(f, st, nrec, HOST_LAT);
	numbers(f, "Numbers behind the plot: per recording and model", "hostmodels", nrec, -1, -1,
		false);
}

static void page_core(FILE *f, const struct rec_stats *s, size_t ri, size_t ci,
		      const struct core_timeline *t)
{
	const struct core_stats *c = &s->cores[ci];

	fprintf(f, "<h3 id=\"r%zu-d%u-c%u\">device %u (%s) NeuronCore %u</h3>\n", ri, c->dev, c->core,
		c->dev, arch_name(c->arch), c->core);
	fprintf(f, "<p>%" PRIu64 " entries over %s; %" PRIu64 " inferences in %zu executions "
		"(%s in inferences), busy %s (%.2f%%%s); %" PRIu64 " lost recorded, %" PRIu64
		" missing from sequence numbers.</p>\n", c->entries,
		D(c->any ? c->last - c->first : 0), c->inferences, c->ct ? c->ct->nexec : 0,
		D(c->infer_busy), D(c->busy), c->util_pct,
		c->lossy ? " of observed time" : "", c->lost, c->gaps);
	if (c->lossy)
		fprintf(f, "<p class=\"losses\">Losses: busy time and utilisation are over "
			"observed time only, %s of the %s span (%s in loss windows, shaded on "
			"the strips); %" PRIu64 " instructions cut by a loss are left out.</p>\n",
			D(c->observed), D(c->any ? c->last - c->first : 0),
			D((c->any ? c->last - c->first : 0) - c->observed), c->cut);
	fprintf(f, "<h4>Utilisation over time</h4>\n<p class=\"def\">Busy fraction of each engine "
		"and TopSP per time bucket of %s (%zu buckets from the core's first timestamp), "
		"the %u longest idle gaps of each unit (on its strip) and of the core (between "
		"inferences), outlined and numbered longest first, executions and the "
		"nrt_execute calls that started them (&#9660;), sequence gaps where they were "
		"seen, the throttle level and the DMA bandwidth. Defined in " DOC_MODEL
		" (busy time, idle gap, execution, host call, throttling, DMA bandwidth) and "
		DOC_OVERTIME ".</p>\n", D(t->width), t->nb, s->top);
	if (!c->nunits && !(c->ct && c->ct->nexec))
		fputs("<p class=\"empty\">No engine or TopSP entries and no executions on this "
		      "core: nothing to draw over time.</p>\n", f);
	svg_timeline(f, s, c, t);
	numbers(f, "Numbers behind the plot: per bucket", "buckets", ri, (long)ci, -1, false);
	numbers(f, "Per engine and TopSP", "units", ri, (long)ci, -1, true);
	if (c->idle.n || core_any_unit_gaps(c))
		numbers(f, "Longest idle gaps (as summary&rsquo;s &ldquo;longest idle gaps&rdquo;)",
			"idle", ri, (long)ci, -1, true);
	else
		fputs("<p>No idle gaps on this core (fewer than two inferences, and no unit with "
		      "two instructions apart).</p>\n", f);
	if (c->nlevels)
		numbers(f, "Time per throttle level", "throttle", ri, (long)ci, -1, false);
	fprintf(f, "<h4>Top ops per engine and TopSP</h4>\n<p class=\"def\">Total time of the %u ops "
		"with the most time per unit, as summary's &ldquo;top ops per unit by total "
		"time&rdquo;; count, median and p95 in the table. Defined in " DOC_MODEL
		" (instruction duration, distributions) and " DOC_SUMMARY ".</p>\n", s->top);
	svg_ops(f, c, s->top);
	numbers(f, "Numbers behind the plot: ops", "ops", ri, (long)ci, -1, true);
}

static void page_recording(FILE *f, const struct rec_stats *s, const struct rec_timeline *tl,
			   size_t ri)
{
	const struct recording *r = s->rec;

	fprintf(f, "<section class=\"recording\" id=\"r%zu\">\n<h2>Recording ", ri);
	esc(f, r->path);
	fprintf(f, "</h2>\n<p>%zu file%s, %" PRIu64 " entries, %zu NeuronCore%s%s.</p>\n", r->nfiles,
		r->nfiles == 1 ? "" : "s", s->entries, s->ncores, s->ncores == 1 ? "" : "s",
		r->sys && r->sys->ntrace ? ", with a system trace" : ", no system trace");
	if (s->nraws)
		fprintf(f, "<p class=\"note\">%" PRIu64 " raw entries in %zu queues are not decoded "
			"(their layout is not known): they give no utilisation, op, latency or "
			"throttling plot. They are listed below with their losses. See " DOC_RAW
			".</p>\n", s->raw_entries, s->nraws);
	if (!s->ncores)
		fprintf(f, "<p class=\"empty\">No decoded entries in this recording: no "
			"NeuronCore to plot%s.</p>\n", r->nfiles ? "" : " (a system profile alone)");
	for (size_t i = 0; i < s->ncores; i++)
		page_core(f, s, ri, i, &tl->cores[i]);

	fputs("<h3>Execution latency per model</h3>\n<p class=\"def\">Histograms of the device "
	      "latency of each execution (first inference start to last stop) and of the host "
	      "overhead around it (the nrt_execute call's duration minus the latency) where a "
	      "call started it. Defined in " DOC_MODEL " (execution, host call) and " DOC_SUMMARY
	      ".</p>\n", f);
	if (!s->nmodels)
		fputs("<p class=\"empty\">No executions in this recording (no INFER_STATUS "
		      "start/stop pairs): no latency to show.</p>\n", f);
	for (size_t i = 0; i < s->nmodels; i++) {
		const struct model_stats *m = &s->models[i];
		struct hist h;
		uint64_t *v;
		size_t n;

		v = model_values(s, m->model_id, false, &n);
		hist_of(&h, v, n);
		free(v);
		svg_hist(f, &h, "device latency", m->model_id, m->name);
		if (m->host_matched) {
			v = model_values(s, m->model_id, true, &n);
			hist_of(&h, v, n);
			free(v);
			svg_hist(f, &h, "host overhead", m->model_id, m->name);
		} else {
			fputs("<p class=\"empty\">", f);
			model_label(f, m->name, m->model_id);
			fputs(": no nrt_execute host call started an execution (no system trace, or "
			      "none matched): no host overhead.</p>\n", f);
		}
		numbers(f, "Numbers behind the plot: latency bins", "latency", ri, -1, (long)i,
			false);
		if (m->host_matched)
			numbers(f, "Numbers behind the plot: host overhead bins", "overhead", ri, -1,
				(long)i, false);
	}
	if (s->nmodels)
		numbers(f, "Per model", "models", ri, -1, -1, true);

	fputs("<h3>Lost entries</h3>\n<p class=\"def\">Per queue that lost entries: what its "
	      "rings counted (lost) and what is missing from its sequence numbers; where the "
	      "gaps were seen is marked on the timelines above. Defined in " DOC_LOSSES
	      ".</p>\n", f);
	if (!s->nlosses)
		fputs("<p>No queue lost entries.</p>\n", f);
	else
		table(f, "losses", ri, -1, -1);
	if (s->nraws) {
		fputs("<h3>Raw queues</h3>\n<p class=\"def\">Counted, never decoded. Defined in "
		      DOC_SUMMARY " (raw entries).</p>\n", f);
		table(f, "raw", ri, -1, -1);
	}
	fputs("</section>\n", f);
}

/* The PATHs, by name, separated by ", ". */
static void path_list(FILE *f, const char *const *paths, size_t npaths)
{
	for (size_t i = 0; i < npaths; i++) {
		if (i)
			fputs(", ", f);
		esc(f, paths[i]);
	}
}

static void page(FILE *f, const char *const *paths, size_t npaths, size_t skipped,
		 struct rec_stats *st, struct rec_timeline *tl, size_t nrec, size_t nbuckets,
		 uint64_t entries)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	      "<title>neuronprof report: ", f);
	path_list(f, paths, npaths);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>neuronprof report: ",
		page_style);
	path_list(f, paths, npaths);
	fprintf(f, "</h1>\n<p>%zu recording%s, %" PRIu64 " entries; made by neuronprof "
		"(libneuronprof %s) with the statistics of <code>neuronprof summary</code>. "
		"Times are offsets from each core's first timestamp.</p>\n", nrec,
		nrec == 1 ? "" : "s", entries, nprof_version_string());
	if (skipped)
		fprintf(f, "<p class=\"note\">%zu file%s did not read and %s left out "
			"(--keep-going; the warnings name %s).</p>\n", skipped,
			skipped == 1 ? "" : "s", skipped == 1 ? "is" : "are",
			skipped == 1 ? "it" : "them");
	if (nrec > 1)
		page_hosts(f, st, nrec);
	for (size_t i = 0; i < nrec; i++)
		page_recording(f, &st[i], &tl[i], i);
	data_block(f, paths, npaths, skipped, st, tl, nrec, nbuckets);
	fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", page_script);
}

/* ---- command -------------------------------------------------------------------- */

/* One PATH: its profile and recordings (which point into the profile). */
int cmd_report(int argc, char **argv)
{
	enum progress_mode pmode = PROGRESS_AUTO;
	const char *outpath = "-";
	uint64_t top = 10, nbuckets = 200, done = 0;
	struct path_set ps;
	struct rec_timeline *tl;
	struct rec_stats *st;
	struct output out;
	struct progress pg;
	bool keep = false, diff = false;
	int ret = 0;
	const struct opt opts[] = {
		OPT_STRING('o', "output", &outpath, "FILE",
			   "the page (default: standard output; written whole or\n"
			   "not at all)"),
		OPT_U64(0, "buckets", &nbuckets, "N", 1, 10000,
			"time buckets per core (default 200, 1 to 10000): the page\n"
			"does not grow with the number of entries"),
		OPT_U64(0, "top", &top, "N", 1, 1000000, "ops per unit (default 10, at least 1)"),
		OPT_BOOL(0, "keep-going", &keep, "skip files that do not read, say so on the page, exit 1"),
		OPT_BOOL(0, "diff", &diff,
			 "the page of diff BASE NEW (or BASE... -- NEW...): regressions\n"
			 "first, BASE and NEW plotted side by side on shared axes"),
		OPT_PROGRESS(&pmode),
		OPT_END(),
	};

	if (opts_parse(argc, argv, opts, NULL, &ret))
		return ret;
	if (diff && keep)
		return usage_error("--diff compares two recordings whole: no --keep-going");
	if (diff)
		return report_diff(outpath, argc, argv, optind, pmode, (size_t)top, 0.05);
	if (optind >= argc)
		return usage_error("missing PATH");
	if (output_open(&out, outpath, OUTPUT_STDOUT))
		return EXIT_FAIL;
	ret = paths_load(&ps, argv + optind, (size_t)(argc - optind), keep, "report");
	if (ret) {
		output_abort(&out);
		goto out;
	}
	st = xcalloc(ps.nrec, sizeof(*st));
	tl = xcalloc(ps.nrec, sizeof(*tl));
	/* Two passes over the entries: the statistics, then their course over time. */
	progress_start(&pg, pmode, "report", 2 * ps.entries);
	for (size_t i = 0; i < ps.nrec; i++) {
		rec_stats_build(&st[i], ps.recs[i], (unsigned int)top, &pg, &done);
		rec_timeline_build(&tl[i], &st[i], (size_t)nbuckets, &pg, &done);
	}
	progress_finish(&pg);
	page(out.f, (const char *const *)(argv + optind), ps.npaths, ps.skipped, st, tl, ps.nrec,
	     (size_t)nbuckets, ps.entries);
	ret = output_commit(&out);
	for (size_t i = 0; i < ps.nrec; i++) {
		rec_timeline_free(&tl[i]);
		rec_stats_free(&st[i]);
	}
	free(tl);
	free(st);
	if (!ret && ps.skipped) {
		fail("%zu file%s skipped (--keep-going): the page says so", ps.skipped,
		     ps.skipped == 1 ? "" : "s");
		ret = EXIT_FAIL;
	}
out:
	paths_free(&ps);
	return ret;
}
