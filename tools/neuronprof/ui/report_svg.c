// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): report's inline SVG plots: per core the utilisation over
 * time of each engine and TopSP with its marks, the top ops per unit, the
 * latency histograms per model, and the recordings side by side.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ui/report.h"
#include "analysis/fields.h"
#include "analysis/names.h"
#include "analysis/summary_columns.h"
#include "util/util.h"

/* Room for a model label (model_label()'s text). */
#define MODEL_LABEL_LEN	256

/* About the width of a character of the plots' 11px labels, in px. */
#define LABEL_CHAR_W	6.6

/* The width @s takes as a label, about. */
static int label_w(const char *s)
{
	return (int)((double)strlen(s) * LABEL_CHAR_W + 0.999);
}

/*
 * @s as a label of at most @w px, escaped: whole where it fits; else its
 * start and "&hellip;", the whole of it in a <title> (the tooltip), so
 * that nothing is lost.
 */
static void fit_label(FILE *f, const char *s, int w)
{
	size_t n = strlen(s), fit = (size_t)((double)(w > 0 ? w : 0) / LABEL_CHAR_W);
	char *head;

	if (n <= fit) {
		html_esc(f, s);
		return;
	}
	fputs("<title>", f);
	html_esc(f, s);
	fputs("</title>", f);
	n = fit ? fit - 1 : 0;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)	/* not inside a UTF-8 character */
		n--;
	head = xcalloc(n + 1, 1);
	memcpy(head, s, n);
	html_esc(f, head);
	free(head);
	fputs("&hellip;", f);
}

/* An op's label: its unit, the device's name of it where there is one, its code. */
static const char *op_label(const struct core_stats *c, const struct unit *u,
			    const struct op_stats *o, char *buf, size_t len)
{
	const char *op = unit_op_name(c, u, o->code);
	char code[CODE_LEN];

	snprintf(buf, len, "%s %s%s%s", U(u), op ? op : "", op ? " " : "",
		 code_str(o->code, code));
	return buf;
}

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
	html_esc(f, label);
	fputs("</text>", f);
	if (sub) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"sub\">", LABEL_W - 6, y + STRIP_H + 2);
		html_esc(f, sub);
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

void svg_timeline(FILE *f, const struct rec_stats *s, const struct core_stats *c,
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
			model_label(f, model_name_of(s, x->model_id), x->model_id);
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

/*
 * The ops' label column: wide enough for the longest label (about
 * LABEL_CHAR_W a character), from the timeline's label column and the
 * gap before the bars up to OPS_LABEL_MAX, where a longer label ends in
 * "..." with the whole of it in its tooltip.
 */
#define OPS_LABEL_MIN	(LABEL_W + 40)
#define OPS_LABEL_MAX	400

void svg_ops(FILE *f, const struct core_stats *c, unsigned int top)
{
	uint64_t max = 0;
	size_t rows = 0;
	int y = 4, bar = 14, lw = OPS_LABEL_MIN;
	char label[96];

	for (size_t k = 0; k < c->nunits; k++)
		for (size_t i = 0; i < c->units[k].nops && i < top; i++) {
			const struct unit *u = &c->units[k];
			int w = label_w(op_label(c, u, &u->ops[i], label, sizeof(label))) + 8;

			rows++;
			if (u->ops[i].d.total > max)
				max = u->ops[i].d.total;
			if (w > lw)
				lw = w;
		}
	if (!rows) {
		fputs("<p class=\"empty\">No instructions on this core: no ops to rank.</p>\n", f);
		return;
	}
	if (lw > OPS_LABEL_MAX)
		lw = OPS_LABEL_MAX;
	fprintf(f, "<svg class=\"ops\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%zu\" role=\"img\" data-label-w=\"%d\">\n", SVG_W,
		rows * (size_t)(bar + 4) + 8, lw);
	for (size_t k = 0; k < c->nunits; k++) {
		const struct unit *u = &c->units[k];

		for (size_t i = 0; i < u->nops && i < top; i++) {
			const struct op_stats *o = &u->ops[i];
			/* The bars are as long as before where the labels fit in OPS_LABEL_MIN. */
			double w = max ? (double)o->d.total / (double)max *
					 (PLOT_W - 330 - (lw - OPS_LABEL_MIN)) : 0;
			char code[CODE_LEN];

			code_str(o->code, code);
			fprintf(f, "<text class=\"lbl\" x=\"%d\" y=\"%d\">", lw, y + bar - 3);
			fit_label(f, op_label(c, u, o, label, sizeof(label)), lw - 8);
			fputs("</text>", f);
			fprintf(f, "<rect class=\"op\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"%s\" data-unit=\"%s\" data-code=\"%s\" data-total-ns=\"%" PRIu64
				"\"><title>", lw + 6, y, w < 1 ? 1 : w, bar, palette[k % NPAL], U(u), code,
				o->d.total);
			html_esc(f, label);
			fprintf(f, ": count %" PRIu64 ", median %s, p95 %s</title></rect>",
				o->d.count, D(o->d.median), D(o->d.p95));
			fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%d\">%s (%.2f%% of the unit, %"
				PRIu64 "&times;)</text>\n", lw + 12 + (w < 1 ? 1 : w), y + bar - 3,
				D(o->d.total), o->busy_pct, o->d.count);
			y += bar + 4;
		}
	}
	fputs("</svg>\n", f);
}

void svg_hist(FILE *f, const struct hist *h, const char *what, uint32_t model,
	      const char *name)
{
	const int W = 460, H = 160, L = 40, B = 30;
	char title[MODEL_LABEL_LEN + 32];
	uint64_t max = 0;
	double bw;

	for (size_t i = 0; i < h->nb; i++)
		if (h->counts[i] > max)
			max = h->counts[i];
	bw = (double)(W - L - 10) / (double)h->nb;
	fprintf(f, "<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" role=\"img\" data-model=\"%u\" data-what=\"%s\">\n", W, H, model, what);
	if (name && *name)
		snprintf(title, sizeof(title), "%s (model %u): %s", name, model, what);
	else
		snprintf(title, sizeof(title), "model %u: %s", model, what);
	fprintf(f, "<text class=\"title\" x=\"%d\" y=\"12\">", L);
	/* Bold: about a tenth wider than the labels. */
	fit_label(f, title, (W - L - 4) * 9 / 10);
	fputs("</text>\n", f);
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

/* A model as model_label() writes it, unescaped, in @buf. */
static const char *model_text(const struct model_stats *m, char *buf, size_t len)
{
	if (m->name && *m->name)
		snprintf(buf, len, "%s (model %u)", m->name, m->model_id);
	else
		snprintf(buf, len, "model %u", m->model_id);
	return buf;
}

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
	html_esc(f, path);
}

static double host_x(int hl, uint64_t v, double scale, int plot)
{
	return hl + (scale > 0 ? (double)v / scale : 0) * plot;
}

static void host_panel(FILE *f, const struct rec_stats *s, size_t ri, enum host_plot what,
		       uint64_t scale, size_t rows, int pw, int hl)
{
	static const char *const cls[] = { "hostbusy", "hostutil", "hostlat" };
	int plot = pw - hl - HOST_R, y = HOST_TOP;
	int h = HOST_TOP + (int)(rows ? rows : 1) * HOST_ROW + 18;
	double sc = what == HOST_UTIL ? 100.0 : (double)scale;
	char lbl[MODEL_LABEL_LEN];

	fprintf(f, "<svg class=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" data-rec=\"%zu\" "
		"data-scale=\"%" PRIu64 "\" data-x0=\"%d\" data-plot-w=\"%d\">\n", cls[what], pw, h,
		pw, h, ri, what == HOST_UTIL ? 100 : scale, hl, plot);
	fprintf(f, "<text class=\"title\" x=\"4\" y=\"14\"><title>");
	html_esc(f, s->rec->path);
	fputs("</title>", f);
	short_path(f, s->rec->path, (size_t)(pw / 7));
	fputs("</text>\n", f);
	/* The shared axis: 0, half, all of the scale. */
	for (int q = 0; q <= 2; q++) {
		double x = hl + (double)plot * q / 2;

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
				hl + 4, y + 14);
		for (size_t i = 0; i < s->ncores; i++, y += HOST_ROW) {
			const struct core_stats *c = &s->cores[i];
			double w = what == HOST_UTIL ? c->util_pct / 100.0 * plot :
				   host_x(hl, c->busy, sc, plot) - hl;

			snprintf(lbl, sizeof(lbl), "d%u nc%u", c->dev, c->core);
			fprintf(f, "<text class=\"lbl\" x=\"%d\" y=\"%d\">%s</text>", hl - 4,
				y + 13, lbl);
			fprintf(f, "<rect class=\"hbar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"%s\" data-device=\"%u\" data-core=\"%u\" data-busy-ns=\"%" PRIu64
				"\" data-util-pct=\"%.2f\"><title>device %u NeuronCore %u: busy %s, "
				"%.2f%% of its span %s</title></rect>", hl, y + 2, w, HOST_ROW - 5,
				palette[ri % NPAL], c->dev, c->core, c->busy, c->util_pct, c->dev,
				c->core, D(c->busy), c->util_pct, D(c->any ? c->last - c->first : 0));
			fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%d\">", hl + w + 4, y + 13);
			if (what == HOST_UTIL)
				fprintf(f, "%.2f%%", c->util_pct);
			else
				fputs(D(c->busy), f);
			fputs("</text>\n", f);
		}
	} else {
		if (!s->nmodels)
			fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\">no executions</text>\n",
				hl + 4, y + 14);
		for (size_t i = 0; i < s->nmodels; i++, y += HOST_ROW) {
			const struct model_stats *m = &s->models[i];
			const struct dist *d = &m->lat;
			double x0 = host_x(hl, d->min, sc, plot), x1 = host_x(hl, d->max, sc, plot);
			double xm = host_x(hl, d->median, sc, plot), x9 = host_x(hl, d->p99, sc, plot);
			int mid = y + HOST_ROW / 2;

			fprintf(f, "<text class=\"lbl\" x=\"%d\" y=\"%d\">", hl - 4, y + 13);
			fit_label(f, model_text(m, lbl, sizeof(lbl)), hl - 8);
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

void host_plot(FILE *f, const struct rec_stats *st, size_t nrec, enum host_plot what)
{
	int pw = host_panel_w(nrec), hl = HOST_L;
	char lbl[MODEL_LABEL_LEN];
	uint64_t scale = 0;
	size_t rows = 0;

	/*
	 * The label column of every panel: the longest model label's, up to
	 * what leaves a plot of 100 px; a longer label ends in "..." with the
	 * whole of it in its tooltip.
	 */
	for (size_t i = 0; i < nrec; i++) {
		const struct rec_stats *s = &st[i];

		if (what == HOST_LAT) {
			rows = s->nmodels > rows ? s->nmodels : rows;
			for (size_t k = 0; k < s->nmodels; k++) {
				int w = label_w(model_text(&s->models[k], lbl, sizeof(lbl))) + 8;

				scale = s->models[k].lat.max > scale ? s->models[k].lat.max : scale;
				hl = w > hl ? w : hl;
			}
		} else {
			rows = s->ncores > rows ? s->ncores : rows;
			for (size_t k = 0; k < s->ncores; k++)
				scale = s->cores[k].busy > scale ? s->cores[k].busy : scale;
		}
	}
	if (hl > pw - HOST_R - 100)
		hl = pw - HOST_R - 100;
	fputs("<div class=\"hosts\">\n", f);
	for (size_t i = 0; i < nrec; i++)
		host_panel(f, &st[i], i, what, scale, rows, pw, hl);
	fputs("</div>\n", f);
}
