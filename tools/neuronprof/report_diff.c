// SPDX-License-Identifier: MIT
/*
 * neuronprof report --diff BASE NEW: diff's comparison (analysis/diff.h) as
 * one self-contained HTML page. Regressions first: each significant
 * slowdown and each op new in NEW, with the distributions of its durations
 * in BASE and NEW side by side on shared axes (the same bins, the same
 * count scale); then the time per execution of the ranked rows, BASE and
 * NEW bars on one axis; each model's latency distributions; per core busy
 * time per execution and utilisation; every row in a table; and diff
 * --json's document, which the tests read back.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/fields.h"
#include "ui/html.h"
#include "util/output.h"
#include "diff_input.h"
#include "tool.h"

#define HIST_BINS	30
#define PANEL_W		320
#define PANEL_H		110

static const char *sdur(uint64_t ns, char *buf, size_t len)
{
	return field_dur_short(ns, buf, len);
}

/* Counts of sorted @v in @HIST_BINS bins over [lo, hi]. */
static void bin(const uint64_t *v, size_t n, uint64_t lo, uint64_t hi, uint64_t *c)
{
	double w = hi > lo ? (double)(hi - lo) / HIST_BINS : 1;

	memset(c, 0, HIST_BINS * sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		size_t b = (size_t)((double)(v[i] - lo) / w);

		c[b >= HIST_BINS ? HIST_BINS - 1 : b]++;
	}
}

static void panel(FILE *f, int x0, const char *title, const uint64_t *c, uint64_t ymax,
		  const char *cls, bool present)
{
	double bw = (double)PANEL_W / HIST_BINS;

	fprintf(f, "<g transform=\"translate(%d,0)\" class=\"panel\" data-side=\"%s\" "
		"data-counts=\"", x0, title);
	for (int b = 0; b < HIST_BINS; b++)
		fprintf(f, "%s%" PRIu64, b ? "," : "", present ? c[b] : 0);
	fprintf(f, "\">\n<rect class=\"bg\" x=\"0\" y=\"16\" width=\"%d\" height=\"%d\"/>\n",
		PANEL_W, PANEL_H);
	fprintf(f, "<text class=\"title\" x=\"0\" y=\"12\">%s%s</text>\n", title,
		present ? "" : " (none)");
	for (int b = 0; present && b < HIST_BINS; b++) {
		double h = ymax ? (double)c[b] * PANEL_H / (double)ymax : 0;

		if (c[b])
			fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\"><title>%" PRIu64 "</title></rect>\n", cls, b * bw,
				16 + PANEL_H - h, bw - 1, h, c[b]);
	}
	fputs("</g>\n", f);
}

/* BASE's and NEW's distributions of a row's samples, side by side on shared axes. */
static void hist_pair(FILE *f, const struct diff_row *r)
{
	uint64_t lo = UINT64_MAX, hi = 0, cb[HIST_BINS], cn[HIST_BINS], ymax = 0;
	char a[32], b[32];
	bool hb = r->base.present && r->base.n && r->sb, hn = r->new.present && r->new.n && r->sn;
	int w = 2 * PANEL_W + 40;

	if (hb) {
		lo = r->sb[0];
		hi = r->sb[r->base.n - 1];
	}
	if (hn) {
		lo = r->sn[0] < lo ? r->sn[0] : lo;
		hi = r->sn[r->new.n - 1] > hi ? r->sn[r->new.n - 1] : hi;
	}
	if (!hb && !hn)
		return;
	if (hb)
		bin(r->sb, r->base.n, lo, hi, cb);
	if (hn)
		bin(r->sn, r->new.n, lo, hi, cn);
	for (int k = 0; k < HIST_BINS; k++) {
		if (hb && cb[k] > ymax)
			ymax = cb[k];
		if (hn && cn[k] > ymax)
			ymax = cn[k];
	}
	fprintf(f, "<svg class=\"pair\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" data-xmin=\"%" PRIu64 "\" data-xmax=\"%" PRIu64 "\" data-ymax=\"%"
		PRIu64 "\">\n", w, PANEL_H + 34, lo, hi, ymax);
	panel(f, 0, "BASE", cb, ymax, "base", hb);
	panel(f, PANEL_W + 40, "NEW", cn, ymax, "new", hn);
	for (int p = 0; p < 2; p++) {
		int x0 = p * (PANEL_W + 40);

		fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\">%s</text>"
			"<text class=\"axis end\" x=\"%d\" y=\"%d\">%s</text>\n", x0,
			PANEL_H + 30, sdur(lo, a, sizeof(a)), x0 + PANEL_W, PANEL_H + 30,
			sdur(hi, b, sizeof(b)));
	}
	fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"28\">%" PRIu64 "</text>\n", PANEL_W + 4, ymax);
	fputs("</svg>\n", f);
}

static bool is_regression(const struct diff_row *r)
{
	return !strcmp(diff_verdict(r), "slower") ||
	       ((r->kind == DIFF_OP || r->kind == DIFF_OP_ALL) && !r->base.present);
}

static bool is_time(const struct diff_row *r)
{
	return r->kind == DIFF_OP || r->kind == DIFF_OP_ALL || r->kind == DIFF_LATENCY ||
	       r->kind == DIFF_BUSY;
}

static int cmp_first(const void *a, const void *b)
{
	const struct diff_row *x = *(const struct diff_row *const *)a;
	const struct diff_row *y = *(const struct diff_row *const *)b;

	/* Regressions first (significant slowdowns, then new ops), then the rank. */
	return cmp_int(!is_regression(x), !is_regression(y)) ?:
	       cmp_int(!x->base.present, !y->base.present) ?: cmp_int(x, y);
}

static const char *label(const struct diff_row *r, char *buf, size_t len)
{
	char what[160], where[64];

	snprintf(buf, len, "%s on %s", diff_row_what(r, what, sizeof(what)),
		 diff_row_where(r, where, sizeof(where)));
	return buf;
}

/* Time per execution of @rows, BASE and NEW bars on one axis. */
static void bars(FILE *f, const struct diff_row *const *rows, size_t n)
{
	double max = 0;
	int lw = 300, pw = 420, rh = 22;
	char lb[240], a[32];

	for (size_t i = 0; i < n; i++) {
		if (rows[i]->base.per_exec > max)
			max = rows[i]->base.per_exec;
		if (rows[i]->new.per_exec > max)
			max = rows[i]->new.per_exec;
	}
	fprintf(f, "<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%zu\" data-max=\"%.3f\">\n", lw + pw + 20, n * rh + 30, max);
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = rows[i];
		int y = (int)i * rh + 4;
		double wb = max > 0 ? r->base.per_exec / max * pw : 0;
		double wn = max > 0 ? r->new.per_exec / max * pw : 0;

		fprintf(f, "<text class=\"lbl%s\" x=\"%d\" y=\"%d\">", is_regression(r) ? " reg" : "",
			lw - 6, y + 13);
		html_esc(f, label(r, lb, sizeof(lb)));
		fprintf(f, "</text>\n<rect class=\"base\" x=\"%d\" y=\"%d\" width=\"%.1f\" "
			"height=\"8\"><title>BASE %.0f ns</title></rect>\n", lw, y + 2, wb,
			r->base.per_exec);
		fprintf(f, "<rect class=\"new\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"8\">"
			"<title>NEW %.0f ns</title></rect>\n", lw, y + 10, wn, r->new.per_exec);
	}
	fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%zu\">0</text><text class=\"axis end\" "
		"x=\"%d\" y=\"%zu\">%s per execution</text>\n", lw, n * rh + 20, lw + pw,
		n * rh + 20, sdur((uint64_t)llround(max), a, sizeof(a)));
	fprintf(f, "<rect class=\"base\" x=\"0\" y=\"%zu\" width=\"10\" height=\"8\"/>"
		"<text x=\"14\" y=\"%zu\">BASE</text><rect class=\"new\" x=\"60\" y=\"%zu\" "
		"width=\"10\" height=\"8\"/><text x=\"74\" y=\"%zu\">NEW</text>\n</svg>\n",
		n * rh + 12, n * rh + 20, n * rh + 12, n * rh + 20);
}

static void table_row(FILE *f, const struct diff_row *r)
{
	char what[160], where[64];

	fputs("<tr><td>", f);
	html_esc(f, diff_row_what(r, what, sizeof(what)));
	fputs("</td><td>", f);
	html_esc(f, diff_row_where(r, where, sizeof(where)));
	fprintf(f, "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%.3f</td><td>%.3f</td>",
		r->base.n, r->new.n, r->base.value, r->new.value);
	if (r->has_pct)
		fprintf(f, "<td>%+.1f%%</td>", r->change_pct);
	else
		fputs("<td>-</td>", f);
	fprintf(f, "<td>%+.1f</td>", r->change_per_exec);
	if (r->tested)
		fprintf(f, "<td>%.2g</td>", r->p_adj);
	else
		fputs("<td>-</td>", f);
	fprintf(f, "<td class=\"%s\">%s</td></tr>\n", diff_verdict(r), diff_verdict(r));
}

static const char style[] =
	"body{font:14px 'DejaVu Sans',sans-serif;margin:20px;color:#222}\n"
	"h1{font-size:20px}h2{font-size:16px;margin-top:28px}h3{font-size:13px;margin:14px 0 4px}\n"
	"svg text{font:11px 'DejaVu Sans',sans-serif;fill:#333}svg .end{text-anchor:end}\n"
	"svg .lbl{text-anchor:end}svg .reg{fill:#c0392b;font-weight:bold}\n"
	"svg .bg{fill:#f4f4f4}svg .axis{fill:#666}svg .title{font-weight:bold}\n"
	"svg .base{fill:#4e79a7}svg .new{fill:#f28e2b}\n"
	"table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:2px 6px;"
	"text-align:right}td:first-child,td:nth-child(2){text-align:left}\n"
	".slower,.new{color:#c0392b;font-weight:bold}.faster,.gone{color:#2e7d32}\n";

/* The JSON document inside a script element: "</" cannot end it early. */
static void data_block(FILE *f, const struct diff *d, const struct diff_input *in)
{
	struct diff_gate off;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		fputs("<script type=\"application/json\" id=\"diff-data\">null</script>\n", f);
		return;
	}
	diff_gate_off(&off);
	diff_json_write(m, d, in, &off);
	fclose(m);
	html_json_script(f, "<script type=\"application/json\" id=\"diff-data\">\n", buf, len);
	free(buf);
}

static void side_line(FILE *f, const char *which, const struct diff_input *in,
		      const struct diff_total *t)
{
	fprintf(f, "<p><b>%s</b> ", which);
	for (size_t i = 0; i < in->npaths; i++) {
		fputs(i ? " " : "", f);
		html_esc(f, in->paths[i]);
	}
	fprintf(f, ": %zu files, %zu cores, %" PRIu64 " executions, %" PRIu64 " entries</p>\n",
		t->files, t->cores, t->executions, t->entries);
}

static void page(FILE *f, const struct diff *d, const struct diff_input *in, size_t top)
{
	const struct diff_row **order = xcalloc(d->nrows ? d->nrows : 1, sizeof(*order));
	size_t n = 0, nreg = 0, shown;
	char lb[240];

	for (size_t i = 0; i < d->nrows; i++)
		if (is_time(&d->rows[i]))
			order[n++] = &d->rows[i];
	if (n > 1)
		qsort(order, n, sizeof(*order), cmp_first);
	for (size_t i = 0; i < n; i++)
		nreg += is_regression(order[i]);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<title>neuronprof diff</title>\n<style>\n%s</style></head><body>\n"
		"<h1>neuronprof diff</h1>\n", style);
	side_line(f, "BASE", &in[0], &d->base);
	side_line(f, "NEW", &in[1], &d->new);
	fprintf(f, "<p>Mann-Whitney U on the durations (normal approximation, tie-corrected), "
		"p Holm-adjusted over %zu tests, significant below %g; a side needs %d samples. "
		"Plots of BASE and NEW share their axes.</p>\n", d->ntests, d->alpha,
		DIFF_MIN_SAMPLES);

	fprintf(f, "<h2 id=\"regressions\">Regressions (%zu)</h2>\n", nreg);
	if (!nreg)
		fputs("<p>No significant slowdown and no new op.</p>\n", f);
	for (size_t i = 0; i < n && i < nreg && i < top; i++) {
		const struct diff_row *r = order[i];
		char pct[32] = "new";

		if (r->has_pct)
			snprintf(pct, sizeof(pct), "%+.1f%%", r->change_pct);
		fputs("<div class=\"regression\" data-what=\"", f);
		html_esc(f, label(r, lb, sizeof(lb)));
		fputs("\"><h3>", f);
		html_esc(f, lb);
		fprintf(f, ": %s, %+.0f ns per execution (n %" PRIu64 " / %" PRIu64 ")</h3>\n", pct,
			r->change_per_exec, r->base.n, r->new.n);
		hist_pair(f, r);
		fputs("</div>\n", f);
	}

	shown = n < top ? n : top;
	fprintf(f, "<h2 id=\"per-execution\">Time per execution, BASE and NEW (%zu of %zu)</h2>\n",
		shown, n);
	bars(f, order, shown);

	fputs("<h2 id=\"latency\">Execution latency per model</h2>\n", f);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];

		if (r->kind != DIFF_LATENCY)
			continue;
		fputs("<div class=\"latency\" data-what=\"", f);
		html_esc(f, label(r, lb, sizeof(lb)));
		fputs("\"><h3>", f);
		html_esc(f, lb);
		fprintf(f, ": %s</h3>\n", diff_verdict(r));
		hist_pair(f, r);
		fputs("</div>\n", f);
	}

	fputs("<h2 id=\"cores\">Per core</h2>\n<table><tr><th>what</th><th>where</th><th>n base"
	      "</th><th>n new</th><th>base</th><th>new</th><th>change</th><th>per exec ns</th>"
	      "<th>p adj</th><th>verdict</th></tr>\n", f);
	for (size_t i = 0; i < d->nrows; i++)
		if (!is_time(&d->rows[i]) || d->rows[i].kind == DIFF_BUSY)
			table_row(f, &d->rows[i]);
	fputs("</table>\n<h2 id=\"rows\">Every row, ranked by time per execution</h2>\n<table><tr>"
	      "<th>what</th><th>where</th><th>n base</th><th>n new</th><th>base</th><th>new</th>"
	      "<th>change</th><th>per exec ns</th><th>p adj</th><th>verdict</th></tr>\n", f);
	for (size_t i = 0; i < d->nrows; i++)
		table_row(f, &d->rows[i]);
	fputs("</table>\n", f);
	data_block(f, d, in);
	fputs("</body></html>\n", f);
	free(order);
}

int report_diff(const char *outpath, int argc, char **argv, int first,
		enum progress_mode pmode, size_t top, double alpha)
{
	struct diff_input in[2];
	struct output out;
	struct diff d;
	int ret = diff_inputs_parse(in, argc, argv, first);

	if (ret)
		return ret;
	if (output_open(&out, outpath, OUTPUT_STDOUT))
		return EXIT_FAIL;
	ret = diff_inputs_load(in, pmode, "report");
	if (ret) {
		output_abort(&out);
		goto out;
	}
	diff_build(&d, &in[0].stats, &in[1].stats, alpha);
	page(out.f, &d, in, top);
	ret = output_commit(&out);
	diff_free(&d);
out:
	diff_inputs_free(in);
	return ret;
}
