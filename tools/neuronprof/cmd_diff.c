// SPDX-License-Identifier: MIT
/*
 * neuronprof diff: what changed between two recordings, and whether the
 * change is real (analysis/diff.h, Documentation/analysis.rst "Comparing
 * two recordings"); a gate that fails a CI job on a significant regression.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/fields.h"
#include "analysis/names.h"
#include "analysis/summary.h"
#include "ui/summary_json.h"
#include "util/json.h"
#include "util/options.h"
#include "diff_input.h"
#include "tool.h"
#include "util/progress.h"

/* Version of the layout of diff --json ("format_version"). */
#define DIFF_JSON_VERSION	1

/* Exit status when the gate fails (a usage error is 2, a failure 1). */
#define EXIT_REGRESSION	3

struct diff_opts {
	bool json, csv, raw_ns;
	uint64_t top;
	double alpha;
	double above;			/* --fail-above: ops and latencies */
	struct diff_gate gate;
	enum progress_mode pmode;
};

/* The options' tags: a threshold of the gate (enum diff_gate_kind), or these. */
enum { DO_ABOVE = GATE_N, DO_ALPHA };

/* What the option of each threshold, --fail-above-<name> (DIFF_GATES), gates. */
static const char *const gate_help[GATE_N] = {
	[GATE_OP] = "an op's mean duration significantly slower by\n"
		    "more than PCT % (overrides --fail-above for ops)",
	[GATE_LATENCY] = "a model's mean execution latency significantly\n"
			 "slower by more than PCT %",
	[GATE_BUSY] = "a core's busy time per execution up by more than\n"
		      "PCT % (one value per recording: no test)",
	[GATE_DMA] = "a core's DMA bytes per execution up by more than\n"
		     "PCT % (no test)",
};

#define GATE_OPTION(kind, name)							\
	OPT_CALLBACK(0, "fail-above-" name, "PCT", diff_opt, kind, gate_help[kind]),

static int diff_opt(const struct opt *opt, const char *arg, void *ctx)
{
	struct diff_opts *o = ctx;
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v))
		return usage_error("--%s: '%s' is not a number", opt->long_name, arg);
	if (opt->tag == DO_ALPHA) {
		if (v <= 0 || v >= 1)
			return usage_error("--alpha: %s is not between 0 and 1", arg);
		o->alpha = v;
		return 0;
	}
	if (v < 0 || v > 1000000)
		return usage_error("--%s: %s is not a percentage from 0 to 1000000",
				   opt->long_name, arg);
	if (opt->tag == DO_ABOVE)
		o->above = v;
	else
		o->gate.pct[opt->tag] = v;
	return 0;
}

/* ---- loading ------------------------------------------------------------------- */

static int load_side(struct diff_input *in, const char *which)
{
	const char *inst = NULL;
	size_t nsys = 0;
	int ret = paths_load(&in->ps, in->paths, in->npaths, false, "diff");

	/* paths_free() frees what paths_load() made, whether it succeeded or not. */
	in->loaded = true;
	if (ret)
		return ret;
	for (size_t i = 0; i < in->ps.nrec; i++) {
		const struct recording *r = in->ps.recs[i];

		for (size_t k = 0; k < r->nfiles; k++) {
			const char *id = r->files[k]->info.instance_id;

			if (id && inst && strcmp(id, inst))
				return fail("%s holds recordings of two machines (%s and %s): diff "
					    "compares one machine's recording with another's",
					    which, inst, id);
			if (id)
				inst = id;
			in->rec.files = xrealloc(in->rec.files,
						 (in->rec.nfiles + 1) * sizeof(*in->rec.files));
			in->rec.files[in->rec.nfiles++] = r->files[k];
		}
		if (r->sys) {
			in->rec.sys = r->sys;
			nsys++;
		}
	}
	/* The host calls of one system profile only: several would be of several runs. */
	if (nsys > 1)
		in->rec.sys = NULL;
	if (!in->rec.nfiles)
		return fail("%s: no NTFF file to compare", which);
	in->rec.path = xstrdup(in->paths[0]);
	return 0;
}

static void free_side(struct diff_input *in)
{
	if (in->built)
		rec_stats_free(&in->stats);
	free(in->rec.files);
	free(in->rec.path);
	if (in->loaded)
		paths_free(&in->ps);
}

void diff_inputs_free(struct diff_input in[2])
{
	for (int s = 0; s < 2; s++)
		free_side(&in[s]);
}

int diff_inputs_parse(struct diff_input in[2], int argc, char **argv, int first)
{
	int nop = argc - first, sep = -1;

	for (int i = first; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			if (sep >= 0)
				return usage_error("more than one '--' between BASE and NEW");
			sep = i;
		}
	if (sep < 0 && nop < 2)
		return usage_error("missing %s", nop ? "NEW" : "BASE and NEW");
	if (sep < 0 && nop > 2)
		return usage_error("%d PATHs: give BASE NEW, or BASE... -- NEW...", nop);
	if (sep >= 0 && (sep == first || sep == argc - 1))
		return usage_error("'--' needs PATHs on both sides (BASE... -- NEW...)");
	memset(in, 0, 2 * sizeof(*in));
	in[0].paths = argv + first;
	in[0].npaths = sep >= 0 ? (size_t)(sep - first) : 1;
	in[1].paths = sep >= 0 ? argv + sep + 1 : argv + first + 1;
	in[1].npaths = sep >= 0 ? (size_t)(argc - sep - 1) : 1;
	return 0;
}

int diff_inputs_load(struct diff_input in[2], enum progress_mode pmode, const char *label)
{
	struct progress pg;
	uint64_t done = 0;
	int ret = load_side(&in[0], "BASE");

	if (!ret)
		ret = load_side(&in[1], "NEW");
	if (ret)
		return ret;
	progress_start(&pg, pmode, label, in[0].ps.entries + in[1].ps.entries);
	for (int s = 0; s < 2; s++) {
		rec_stats_build_durations(&in[s].stats, &in[s].rec, 1, &pg, &done);
		in[s].built = true;
	}
	progress_finish(&pg);
	return 0;
}

/* ---- what a row is called ---------------------------------------------------------- */

const char *diff_row_what(const struct diff_row *r, char *buf, size_t len)
{
	char code[CODE_LEN];

	switch (r->kind) {
	case DIFF_OP:
	case DIFF_OP_ALL:
		snprintf(buf, len, "op %s%s%s", code_str(r->code, code), r->name ? " " : "",
			 r->name ? r->name : "");
		break;
	case DIFF_LATENCY:
		snprintf(buf, len, "latency model %" PRIu32 "%s%s", r->model_id,
			 r->name ? " " : "", r->name ? r->name : "");
		break;
	case DIFF_BUSY:
		snprintf(buf, len, "busy time");
		break;
	case DIFF_UTIL:
		snprintf(buf, len, "utilisation");
		break;
	case DIFF_DMA:
		snprintf(buf, len, "DMA bytes");
		break;
	default:
		snprintf(buf, len, "errors");
		break;
	}
	return buf;
}

static const char *row_unit(const struct diff_row *r, char *buf, size_t len)
{
	struct unit u = { .topsp = r->topsp, .index = r->unit };

	if (r->kind != DIFF_OP && r->kind != DIFF_OP_ALL)
		return NULL;
	return unit_label(&u, buf, len);
}

static bool has_core(const struct diff_row *r)
{
	return r->kind != DIFF_OP_ALL && r->kind != DIFF_LATENCY;
}

const char *diff_row_where(const struct diff_row *r, char *buf, size_t len)
{
	char ub[32];
	const char *u = row_unit(r, ub, sizeof(ub));

	if (r->kind == DIFF_LATENCY)
		snprintf(buf, len, "all cores");
	else if (r->kind == DIFF_OP_ALL)
		snprintf(buf, len, "all cores %s", u);
	else if (u)
		snprintf(buf, len, "core %" PRIu32 " %s", r->core, u);
	else
		snprintf(buf, len, "core %" PRIu32, r->core);
	return buf;
}

static bool is_time(enum diff_kind k)
{
	return k == DIFF_OP || k == DIFF_OP_ALL || k == DIFF_LATENCY || k == DIFF_BUSY;
}

/* ---- text ---------------------------------------------------------------------- */

static const char *tdur(double ns, bool raw, char *buf, size_t len)
{
	return field_dur((uint64_t)llround(ns < 0 ? 0 : ns), raw, buf, len);
}

static const char *tsdur(double ns, bool raw, char *buf, size_t len)
{
	buf[0] = ns < 0 ? '-' : '+';
	tdur(fabs(ns), raw, buf + 1, len - 1);
	return buf;
}

static const char *tval(const struct diff_row *r, const struct diff_side *s, bool raw,
			char *buf, size_t len)
{
	if (!s->present)
		return "-";
	if (is_time(r->kind))
		return tdur(s->value, raw, buf, len);
	if (r->kind == DIFF_UTIL)
		snprintf(buf, len, "%.2f%%", s->value);
	else
		snprintf(buf, len, "%.0f", s->value);
	return buf;
}

static const char *tpct(const struct diff_row *r, char *buf, size_t len)
{
	if (r->kind == DIFF_UTIL && r->base.present && r->new.present)
		snprintf(buf, len, "%+.2fpt", r->change);
	else if (r->has_pct)
		snprintf(buf, len, "%+.1f%%", r->change_pct);
	else
		snprintf(buf, len, "-");
	return buf;
}

static const char *tp(const struct diff_row *r, char *buf, size_t len)
{
	if (!r->tested)
		return "-";
	snprintf(buf, len, "%.2g", r->p_adj);
	return buf;
}

static void text_side(const char *which, const struct diff_input *in, const struct diff_total *t)
{
	printf("%-4s ", which);
	for (size_t i = 0; i < in->npaths; i++)
		printf("%s%s", i ? " " : "", in->paths[i]);
	printf(": %zu file%s, %zu core%s, %" PRIu64 " executions, %" PRIu64 " entries\n",
	       t->files, t->files == 1 ? "" : "s", t->cores, t->cores == 1 ? "" : "s",
	       t->executions, t->entries);
	if (t->lost)
		printf("     %" PRIu64 " entries lost: the figures of the queues that lost them "
		       "undercount (summary's loss lines say which)\n", t->lost);
	recording_print_ranges(&in->rec, "     ");
}

static void text_row(const struct diff_row *r, const struct diff_opts *o, bool regressed)
{
	char what[160], where[64], b[32], n[32], c[32], pe[32], p[32], nb[24], nn[24];

	if (r->base.present)
		snprintf(nb, sizeof(nb), "%" PRIu64, r->base.n);
	if (r->new.present)
		snprintf(nn, sizeof(nn), "%" PRIu64, r->new.n);
	bool samples = r->kind == DIFF_OP || r->kind == DIFF_OP_ALL || r->kind == DIFF_LATENCY;

	printf("  %-30.30s %-18.18s %7s %7s %11s %11s %8s %12s %8s  %s%s\n",
	       diff_row_what(r, what, sizeof(what)), diff_row_where(r, where, sizeof(where)),
	       r->base.present && samples ? nb : "-", r->new.present && samples ? nn : "-",
	       tval(r, &r->base, o->raw_ns, b, sizeof(b)), tval(r, &r->new, o->raw_ns, n, sizeof(n)),
	       tpct(r, c, sizeof(c)),
	       is_time(r->kind) ? tsdur(r->change_per_exec, o->raw_ns, pe, sizeof(pe)) : "-",
	       tp(r, p, sizeof(p)), diff_verdict(r), regressed ? "  REGRESSION" : "");
}

static void text_diff(const struct diff *d, const struct diff_input *in, const struct diff_opts *o)
{
	size_t nt = 0, shown = 0, ncore = 0, nb = 0, nn = 0;

	text_side("BASE", &in[0], &d->base);
	text_side("NEW", &in[1], &d->new);
	printf("test: Mann-Whitney U (normal approximation, tie-corrected) on the durations,\n"
	       "      p Holm-adjusted over %zu tests, significant below %g; a side needs %d samples\n",
	       d->ntests, d->alpha, DIFF_MIN_SAMPLES);
	for (size_t i = 0; i < d->nrows; i++) {
		nt += is_time(d->rows[i].kind);
		nb += !d->rows[i].new.present;
		nn += !d->rows[i].base.present;
	}
	printf("\nChanges ranked by time added (+) or saved (-) per execution (%" PRIu64
	       " of %zu; --top N):\n", o->top < nt ? o->top : (uint64_t)nt, nt);
	printf("  %-30s %-18s %7s %7s %11s %11s %8s %12s %8s  %s\n", "what", "where", "n base",
	       "n new", "base", "new", "change", "per exec", "p adj", "verdict");
	for (size_t i = 0; i < d->nrows && shown < o->top; i++) {
		if (!is_time(d->rows[i].kind))
			continue;
		text_row(&d->rows[i], o, diff_regressed(&d->rows[i], &o->gate));
		shown++;
	}
	printf("\nPer core (utilisation, DMA bytes, errors: one value per recording, no test):\n");
	printf("  %-30s %-18s %7s %7s %11s %11s %8s %12s %8s  %s\n", "what", "where", "", "",
	       "base", "new", "change", "", "", "");
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];

		if (is_time(r->kind))
			continue;
		if (r->change == 0 && r->base.present && r->new.present)
			continue;
		if (ncore++ >= o->top)
			continue;
		text_row(r, o, diff_regressed(r, &o->gate));
	}
	if (!ncore)
		printf("  (no change)\n");
	else if (ncore > o->top)
		printf("  ... and %zu more\n", ncore - (size_t)o->top);
	if (nb || nn) {
		printf("\nOnly in one recording (%zu only in BASE, %zu only in NEW):\n", nb, nn);
		shown = 0;
		for (size_t i = 0; i < d->nrows; i++) {
			const struct diff_row *r = &d->rows[i];
			char what[160], where[64], pe[32];

			if (r->base.present && r->new.present)
				continue;
			if (shown++ >= o->top)
				continue;
			printf("  only in %-4s %s on %s%s%s%s\n",
			       r->base.present ? "BASE" : "NEW", diff_row_what(r, what, sizeof(what)),
			       diff_row_where(r, where, sizeof(where)), is_time(r->kind) ? ", " : "",
			       is_time(r->kind) ? tsdur(r->change_per_exec, o->raw_ns, pe,
							 sizeof(pe)) : "",
			       is_time(r->kind) ? " per execution" : "");
		}
		if (shown > o->top)
			printf("  ... and %zu more\n", shown - (size_t)o->top);
	}
}

/* ---- JSON ---------------------------------------------------------------------- */

static void json_side(struct json *j, const char *key, const struct diff_side *s)
{
	if (!s->present) {
		jw_null(j, key);
		return;
	}
	jw_obj_begin(j, key);
	jw_u64(j, "n", s->n);
	jw_fixed(j, "value", s->value, 3);
	jw_u64(j, "total", s->total);
	jw_u64(j, "median_ns", s->median);
	jw_u64(j, "p95_ns", s->p95);
	jw_u64(j, "executions", s->executions);
	jw_fixed(j, "per_execution_ns", s->per_exec, 3);
	jw_obj_end(j);
}

static void json_total(struct json *j, const char *key, const struct diff_input *in,
		       const struct diff_total *t)
{
	jw_obj_begin(j, key);
	jw_arr_begin(j, "paths");
	for (size_t i = 0; i < in->npaths; i++)
		jw_str(j, NULL, in->paths[i]);
	jw_arr_end(j);
	jw_u64(j, "files", t->files);
	jw_u64(j, "cores", t->cores);
	jw_u64(j, "executions", t->executions);
	jw_u64(j, "entries", t->entries);
	jw_u64(j, "lost", t->lost);
	json_capture_ranges(j, &in->rec);
	jw_obj_end(j);
}

static void json_gate_value(struct json *j, const char *key, double v)
{
	if (v < 0)
		jw_null(j, key);
	else
		jw_fixed(j, key, v, 3);
}

void diff_json_write(FILE *f, const struct diff *d, const struct diff_input *in,
		     const struct diff_gate *gate)
{
	struct json j;
	char code[CODE_LEN], ub[32], what[160];

	jw_init(&j, f, true);
	jw_obj_begin(&j, NULL);
	jw_u64(&j, "format_version", DIFF_JSON_VERSION);
	json_total(&j, "base", &in[0], &d->base);
	json_total(&j, "new", &in[1], &d->new);
	jw_obj_begin(&j, "test");
	jw_str(&j, "method", "mann-whitney-u");
	jw_str(&j, "approximation", "normal, tie-corrected, continuity-corrected");
	jw_str(&j, "adjustment", "holm");
	jw_g(&j, "alpha", d->alpha);
	jw_u64(&j, "tests", d->ntests);
	jw_u64(&j, "min_samples", DIFF_MIN_SAMPLES);
	jw_obj_end(&j);
	jw_obj_begin(&j, "gate");
	for (int k = 0; k < GATE_N; k++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_pct", diff_gate_names[k]);
		json_gate_value(&j, key, gate->pct[k]);
	}
	jw_bool(&j, "errors", gate->errors);
	jw_obj_end(&j);
	jw_arr_begin(&j, "rows");
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];

		jw_obj_begin(&j, NULL);
		jw_u64(&j, "rank", i + 1);
		jw_str(&j, "kind", diff_kind_name(r->kind));
		jw_str(&j, "what", diff_row_what(r, what, sizeof(what)));
		jw_str(&j, "verdict", diff_verdict(r));
		if (has_core(r)) {
			jw_u64(&j, "device", r->dev);
			jw_u64(&j, "core", r->core);
		} else {
			jw_null(&j, "device");
			jw_null(&j, "core");
		}
		jw_str(&j, "unit", row_unit(r, ub, sizeof(ub)));
		if (r->kind == DIFF_OP || r->kind == DIFF_OP_ALL)
			jw_str(&j, "code", code_str(r->code, code));
		else
			jw_null(&j, "code");
		if (r->kind == DIFF_LATENCY)
			jw_u64(&j, "model_id", r->model_id);
		else
			jw_null(&j, "model_id");
		jw_str(&j, "name", r->name);
		json_side(&j, "base", &r->base);
		json_side(&j, "new", &r->new);
		jw_fixed(&j, "change", r->change, 3);
		if (r->has_pct)
			jw_fixed(&j, "change_pct", r->change_pct, 3);
		else
			jw_null(&j, "change_pct");
		jw_fixed(&j, "change_per_execution_ns", r->change_per_exec, 3);
		jw_bool(&j, "tested", r->tested);
		if (r->tested) {
			jw_fixed(&j, "u", r->u, 1);
			jw_fixed(&j, "z", r->z, 3);
			jw_g(&j, "p", r->p);
			jw_g(&j, "p_adjusted", r->p_adj);
		} else {
			jw_null(&j, "u");
			jw_null(&j, "z");
			jw_null(&j, "p");
			jw_null(&j, "p_adjusted");
		}
		jw_bool(&j, "significant", r->significant);
		jw_bool(&j, "regression", diff_regressed(r, gate));
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_finish(&j);
}

/* ---- CSV ----------------------------------------------------------------------- */

static const char *const csv_side_cols[] = {
	"n", "value", "total", "median_ns", "p95_ns", "executions", "per_execution_ns",
};

static void csv_side(const struct diff_side *s)
{
	if (!s->present) {
		fputs(",,,,,,", stdout);
		return;
	}
	printf("%" PRIu64 ",%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f", s->n,
	       s->value, s->total, s->median, s->p95, s->executions, s->per_exec);
}

static void csv_diff(const struct diff *d, const struct diff_opts *o)
{
	char code[CODE_LEN], ub[32], what[160];
	const char *u;

	fputs("rank,kind,what,verdict,device,core,unit,code,model_id,name", stdout);
	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < sizeof(csv_side_cols) / sizeof(csv_side_cols[0]); k++)
			printf(",%s_%s", s ? "new" : "base", csv_side_cols[k]);
	fputs(",change,change_pct,change_per_execution_ns,tested,u,z,p,p_adjusted,significant,"
	      "regression\n", stdout);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];

		printf("%zu,%s,", i + 1, diff_kind_name(r->kind));
		field_csv_str(stdout, diff_row_what(r, what, sizeof(what)));
		printf(",%s,", diff_verdict(r));
		if (has_core(r))
			printf("%" PRIu32 ",%" PRIu32, r->dev, r->core);
		else
			fputs(",", stdout);
		u = row_unit(r, ub, sizeof(ub));
		printf(",%s,", u ? u : "");
		if (r->kind == DIFF_OP || r->kind == DIFF_OP_ALL)
			fputs(code_str(r->code, code), stdout);
		putchar(',');
		if (r->kind == DIFF_LATENCY)
			printf("%" PRIu32, r->model_id);
		putchar(',');
		if (r->name)
			field_csv_str(stdout, r->name);
		putchar(',');
		csv_side(&r->base);
		putchar(',');
		csv_side(&r->new);
		printf(",%.3f,", r->change);
		if (r->has_pct)
			printf("%.3f", r->change_pct);
		printf(",%.3f,%s,", r->change_per_exec, r->tested ? "true" : "false");
		if (r->tested)
			printf("%.1f,%.3f,%.6g,%.6g", r->u, r->z, r->p, r->p_adj);
		else
			fputs(",,,", stdout);
		printf(",%s,%s\n", r->significant ? "true" : "false",
		       diff_regressed(r, &o->gate) ? "true" : "false");
	}
}

/* ---- the gate ------------------------------------------------------------------ */

static size_t gate_report(const struct diff *d, const struct diff_opts *o)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];
		char what[160], where[64], p[32] = "no test";

		if (!diff_regressed(r, &o->gate))
			continue;
		n++;
		if (r->tested)
			snprintf(p, sizeof(p), "p adj %.2g", r->p_adj);
		if (r->kind == DIFF_ERRORS)
			fprintf(stderr, "neuronprof diff: regression: %s on %s: %.0f -> %.0f\n",
				diff_row_what(r, what, sizeof(what)), diff_row_where(r, where, sizeof(where)),
				r->base.value, r->new.value);
		else
			fprintf(stderr, "neuronprof diff: regression: %s on %s: %+.1f%% (%s)\n",
				diff_row_what(r, what, sizeof(what)), diff_row_where(r, where, sizeof(where)),
				r->change_pct, p);
	}
	return n;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {
		.top = 15, .alpha = 0.05, .above = -1,
		.pmode = PROGRESS_AUTO,
	};
	struct diff_input in[2] = { 0 };
	struct diff d;
	int ret = 0;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &o.json, "one JSON document"),
		OPT_BOOL(0, "csv", &o.csv, "one CSV table on stdout, a row per comparison",
			 .syn_join = SYN_OR),
		OPT_U64(0, "top", &o.top, "N", 1, 1000000,
			"rows of each text table (default 15: one screen)"),
		OPT_BOOL(0, "ns", &o.raw_ns, "durations in the text as whole nanoseconds"),
		OPT_CALLBACK(0, "alpha", "A", diff_opt, DO_ALPHA,
			     "family-wise significance level of the tests\n"
			     "(default 0.05)"),
		OPT_GROUP("The gate (exit status 3 when a regression passes a threshold):"),
		OPT_CALLBACK(0, "fail-above", "PCT", diff_opt, DO_ABOVE,
			     "an op (per core or across cores) or a model's\n"
			     "latency significantly slower by more than PCT %"),
		DIFF_GATES(GATE_OPTION)
		OPT_BOOL(0, "fail-on-errors", &o.gate.errors, "a core with more errors in NEW"),
		OPT_PROGRESS(&o.pmode),
		OPT_END(),
	};

	diff_gate_off(&o.gate);
	if (opts_parse(argc, argv, opts, &o, &ret))
		return ret;
	if (o.json && o.csv)
		return usage_error("--json and --csv are exclusive");
	if (o.above >= 0) {
		if (o.gate.pct[GATE_OP] < 0)
			o.gate.pct[GATE_OP] = o.above;
		if (o.gate.pct[GATE_LATENCY] < 0)
			o.gate.pct[GATE_LATENCY] = o.above;
	}
	ret = diff_inputs_parse(in, argc, argv, optind);
	if (ret)
		return ret;
	ret = diff_inputs_load(in, o.pmode, "diff");
	if (ret)
		goto out;
	diff_build(&d, &in[0].stats, &in[1].stats, o.alpha);
	if (o.json)
		diff_json_write(stdout, &d, in, &o.gate);
	else if (o.csv)
		csv_diff(&d, &o);
	else
		text_diff(&d, in, &o);
	ret = flush_stdout();
	if (!ret && gate_report(&d, &o))
		ret = EXIT_REGRESSION;
	diff_free(&d);
out:
	diff_inputs_free(in);
	return ret;
}
