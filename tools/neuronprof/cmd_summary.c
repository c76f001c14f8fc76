// SPDX-License-Identifier: MIT
/*
 * neuronprof summary: where the time of each recording went
 * (Documentation/analysis.rst). A path may hold several recordings (the
 * directories holding NTFF files or a system profile); each is summarized
 * on its own, never merged. The statistics are computed once (summary.c)
 * and printed as text, JSON or CSV files with the same numbers, each
 * section's columns declared once in a table that drives the three writers
 * (fields.h).
 *
 * Losses are counted twice, independently: the lost counts the rings
 * recorded, and the gaps in the sequence numbers of the entries that made it
 * into the file. A gap larger than the recorded loss means entries vanished
 * without being counted, and is reported as such.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/json.h"
#include "util/output.h"
#include "analysis/fields.h"
#include "analysis/names.h"
#include "analysis/summary.h"
#include "analysis/summary_json.h"
#include "util/options.h"
#include "tool.h"
#include "analysis/xhost.h"
#include "util/progress.h"

/* ---- text ---------------------------------------------------------------------- */

/* Version of the layout of summary --json ("format_version"). */
#define SUMMARY_JSON_VERSION	2

static bool raw_ns, brief;

/*
 * A duration as one token with its unit: "4.400us", or whole nanoseconds
 * with --ns ("4400ns"), which a script strips of its "ns".
 */
static const char *dur(uint64_t ns, char *buf, size_t len)
{
	return field_dur(ns, raw_ns, buf, len);
}

#define D(ns)	dur((ns), (char[32]){ 0 }, 32)


/* ---- the sections' columns (fields.h) ------------------------------------------ */

/* The cores of @x: "0-7", "0,2,5" or, over several devices, "0:0-7,1:0". */
static const char *xop_cores(const struct rec_stats *s, const struct xop *x, char *buf,
			     size_t len)
{
	bool devs = s->ncores && s->cores[0].dev != s->cores[s->ncores - 1].dev;
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < x->ncores && o < len; i++) {
		const struct core_stats *c = &s->cores[x->cores[i]], *p, *n;
		size_t j = i;

		/* A run of consecutive core numbers of one device. */
		while (j + 1 < x->ncores) {
			p = &s->cores[x->cores[j]];
			n = &s->cores[x->cores[j + 1]];
			if (n->dev != p->dev || n->core != p->core + 1)
				break;
			j++;
		}
		n = &s->cores[x->cores[j]];
		if (devs)
			o += (size_t)snprintf(buf + o, len - o, "%s%u:", i ? "," : "", c->dev);
		else if (i)
			o += (size_t)snprintf(buf + o, len - o, ",");
		if (o >= len)
			break;
		if (j > i)
			o += (size_t)snprintf(buf + o, len - o, "%u-%u", c->core, n->core);
		else
			o += (size_t)snprintf(buf + o, len - o, "%u", c->core);
		i = j;
	}
	return buf;
}

/* host event types: a row is a struct host_row. */
struct host_row {
	const struct dist *d;
	const struct host_type *h;
};

FIELD_GET(host_name, struct host_row, s, r->h->name)

static const struct field host_columns[] = {
	SAME("name", "event", -20, FK_STR, host_name),
	SAME("count", "count", 7, FK_U64, field_dist_count),
	SAME("total_ns", "total", 12, FK_NS, field_dist_total),
	SAME("min_ns", NULL, 12, FK_NS, field_dist_min),
	SAME("avg_ns", "avg", 12, FK_NS, field_dist_avg),
	SAME("median_ns", "median", 12, FK_NS, field_dist_median),
	SAME("p99_ns", "p99", 12, FK_NS, field_dist_p99),
	SAME("max_ns", "max", 12, FK_NS, field_dist_max),
};
static const struct field_table host_fields = FIELD_TABLE(host_columns);

/*
 * ops across cores: a row is a struct xop_row, filled by xop_row(); the
 * cores of each are a column of the text and CSV, an array in JSON.
 */
struct xop_row {
	const struct dist *d;
	const struct rec_stats *s;
	const struct xop *x;
	char label[32], cores[128];
	char *list;		/* CSV: device:core pairs, ';' between them */
};

FIELD_GET(xop_label, struct xop_row, s, r->label)
FIELD_GET(xop_kind, struct xop_row, s, r->x->topsp ? "topsp" : "engine")
FIELD_GET(xop_index, struct xop_row, u, r->x->index)
FIELD_GET(xop_op, struct xop_row, s, xop_name(r->s, r->x))
FIELD_GET(xop_code, struct xop_row, u, r->x->code)
FIELD_GET(xop_text_cores, struct xop_row, s, r->cores)
FIELD_GET(xop_csv_cores, struct xop_row, s, r->list)

static const struct field xop_columns[] = {
	FIELD(NULL, NULL, "unit", -12, FK_STR, xop_label),
	FIELD("unit_kind", "unit", NULL, 0, FK_STR, xop_kind),
	FIELD("unit_index", "index", NULL, 0, FK_U64, xop_index),
	OP_FIELDS(xop_op, xop_code),
	SAME("p99_ns", NULL, 0, FK_NS, field_dist_p99),
	SAME("max_ns", NULL, 0, FK_NS, field_dist_max),
	FIELD(NULL, NULL, "cores", FIELD_LAST, FK_STR, xop_text_cores),
	FIELD(NULL, "cores", NULL, 0, FK_STR, xop_csv_cores),
};
static const struct field_table xop_fields = FIELD_TABLE(xop_columns);

/* The row of @x; @csv: with its list of cores (freed by xop_row_free()). */
static void xop_row(struct xop_row *r, const struct rec_stats *s, const struct xop *x,
		    bool csv)
{
	struct unit u = { .topsp = x->topsp, .index = x->index };

	*r = (struct xop_row){ .d = &x->d, .s = s, .x = x };
	unit_label(&u, r->label, sizeof(r->label));
	xop_cores(s, x, r->cores, sizeof(r->cores));
	if (csv) {
		size_t len = x->ncores * 24 + 1, o = 0;

		r->list = xcalloc(len, 1);
		for (size_t k = 0; k < x->ncores; k++)
			o += (size_t)snprintf(r->list + o, len - o, "%s%u:%u", k ? ";" : "",
					      s->cores[x->cores[k]].dev,
					      s->cores[x->cores[k]].core);
	}
}

static void xop_row_free(struct xop_row *r)
{
	free(r->list);
}

/* errors by code of a core: a row is a struct err_row (the core first: CORE_ID_FIELDS). */
struct err_row {
	const struct core_stats *c;
	const struct code_count *e;
};

FIELD_GET(err_code, struct err_row, u, r->e->code)
FIELD_GET(err_count, struct err_row, u, r->e->count)
FIELD_GET(err_first_at, struct err_row, u, r->e->first_ns - r->c->first)
FIELD_GET(err_first, struct err_row, u, r->e->first_ns)

static const struct field err_columns[] = {
	CORE_ID_FIELDS,
	SAME("code", "code", -8, FK_U64, err_code),
	SAME("count", "count", 7, FK_U64, err_count),
	FIELD(NULL, NULL, "first_at", 12, FK_NS, err_first_at),
	SAME("first_ns", NULL, 0, FK_NS, err_first),
};
static const struct field_table err_fields = FIELD_TABLE(err_columns);

/* machines compared, per machine: a row is a struct machine_row. */
struct machine_row {
	const struct xhost *x;
	size_t k;
};

#define MR(r)	(&(r)->x->m[(r)->k])
FIELD_GET(mach_name, struct machine_row, s, MR(r)->name)
FIELD_GET(mach_mapped, struct machine_row, b, MR(r)->mapped)
FIELD_GET(mach_recs, struct machine_row, u, MR(r)->recordings)
FIELD_GET(mach_cores, struct machine_row, u, MR(r)->cores)
FIELD_GET(mach_execs, struct machine_row, u, MR(r)->executions)
FIELD_GET(mach_exec_ns, struct machine_row, u, MR(r)->exec_ns)
FIELD_GET(mach_exec_avg, struct machine_row, u,
	  MR(r)->executions ? MR(r)->exec_ns / MR(r)->executions : 0)
FIELD_GET(mach_busy, struct machine_row, u, MR(r)->busy)
FIELD_GET(mach_instr, struct machine_row, u, MR(r)->instructions)
FIELD_GET(mach_dma_bytes, struct machine_row, u, MR(r)->dma_bytes)
FIELD_GET(mach_errors, struct machine_row, u, MR(r)->errors)
FIELD_GET(mach_lost, struct machine_row, u, MR(r)->lost)
FIELD_GET(mach_clock, struct machine_row, s, MR(r)->mapped ? "mapped" : "no mapping")
FIELD_GET(mach_slowest, struct machine_row, b, r->k == r->x->slowest)
FIELD_GET(mach_median, struct machine_row, b, r->k == r->x->median)
#undef MR

static const struct field machine_columns[] = {
	FIELD("name", "machine", "machine", -24, FK_STR, mach_name),
	SAME("clock_mapping", NULL, 0, FK_FLAG, mach_mapped),
	SAME("recordings", "recs", 5, FK_U64, mach_recs),
	SAME("cores", "cores", 5, FK_U64, mach_cores),
	SAME("executions", "executions", 10, FK_U64, mach_execs),
	SAME("execution_ns", "exec_total", 12, FK_NS, mach_exec_ns),
	FIELD(NULL, NULL, "exec_avg", 12, FK_NS, mach_exec_avg),
	SAME("busy_ns", "busy", 12, FK_NS, mach_busy),
	SAME("instructions", "instr", 12, FK_U64, mach_instr),
	SAME("dma_bytes", "dma_bytes", 12, FK_U64, mach_dma_bytes),
	SAME("errors", "errors", 7, FK_U64, mach_errors),
	SAME("lost", "lost", 7, FK_U64, mach_lost),
	/* Width -1: unpadded, one space after the column before. */
	FIELD(NULL, NULL, "clock", -1, FK_STR, mach_clock),
	FIELD(NULL, "slowest", NULL, 0, FK_FLAG, mach_slowest),
	FIELD(NULL, "median", NULL, 0, FK_FLAG, mach_median),
};
static const struct field_table machine_fields = FIELD_TABLE(machine_columns);

/*
 * machines compared, per execution index: a row is a struct mexec_row with
 * its sides' labels filled by mexec_row().
 */
struct mexec_row {
	const struct xhost *x;
	const struct xhost_exec *e;
	char slow[160], fast[160];
};

FIELD_GET(mx_index, struct mexec_row, u, r->e->index)
FIELD_GET(mx_cores, struct mexec_row, u, r->e->cores)
FIELD_GET(mx_machines, struct mexec_row, u, r->e->machines)
FIELD_GET(mx_slow_label, struct mexec_row, s, r->slow)
FIELD_GET(mx_slow_machine, struct mexec_row, s, r->x->m[r->e->slow.machine].name)
FIELD_GET(mx_slow_dev, struct mexec_row, u, r->e->slow.dev)
FIELD_GET(mx_slow_core, struct mexec_row, u, r->e->slow.core)
FIELD_GET(mx_slow_ns, struct mexec_row, u, r->e->slow.ns)
FIELD_GET(mx_fast_label, struct mexec_row, s, r->fast)
FIELD_GET(mx_fast_machine, struct mexec_row, s, r->x->m[r->e->fast.machine].name)
FIELD_GET(mx_fast_dev, struct mexec_row, u, r->e->fast.dev)
FIELD_GET(mx_fast_core, struct mexec_row, u, r->e->fast.core)
FIELD_GET(mx_fast_ns, struct mexec_row, u, r->e->fast.ns)
FIELD_GET(mx_skew, struct mexec_row, u, r->e->skew_ns)

static const struct field mexec_columns[] = {
	SAME("index", "index", -6, FK_U64, mx_index),
	SAME("cores", "cores", 5, FK_U64, mx_cores),
	SAME("machines", NULL, 0, FK_U64, mx_machines),
	FIELD("slowest", NULL, NULL, 0, FK_BEGIN, NULL),
	FIELD(NULL, NULL, "slowest", -32, FK_STR, mx_slow_label),
	FIELD("machine", "slowest_machine", NULL, 0, FK_STR, mx_slow_machine),
	FIELD("device", "slowest_device", NULL, 0, FK_U64, mx_slow_dev),
	FIELD("core", "slowest_core", NULL, 0, FK_U64, mx_slow_core),
	FIELD("latency_ns", "slowest_ns", "latency", 12, FK_NS, mx_slow_ns),
	FIELD(NULL, NULL, NULL, 0, FK_END, NULL),
	FIELD("fastest", NULL, NULL, 0, FK_BEGIN, NULL),
	FIELD(NULL, NULL, "fastest", -32, FK_STR, mx_fast_label),
	FIELD("machine", "fastest_machine", NULL, 0, FK_STR, mx_fast_machine),
	FIELD("device", "fastest_device", NULL, 0, FK_U64, mx_fast_dev),
	FIELD("core", "fastest_core", NULL, 0, FK_U64, mx_fast_core),
	FIELD("latency_ns", "fastest_ns", "latency", 12, FK_NS, mx_fast_ns),
	FIELD(NULL, NULL, NULL, 0, FK_END, NULL),
	SAME("skew_ns", "skew", 12, FK_NS, mx_skew),
};
static const struct field_table mexec_fields = FIELD_TABLE(mexec_columns);

/* One side of an execution index: "machine devD ncC". */
static void side_label(const struct xhost *x, const struct xhost_side *sd, char *buf,
		       size_t len)
{
	snprintf(buf, len, "%s dev%u nc%u", x->m[sd->machine].name, sd->dev, sd->core);
}

static void mexec_row(struct mexec_row *r, const struct xhost *x, const struct xhost_exec *e)
{
	*r = (struct mexec_row){ .x = x, .e = e };
	side_label(x, &e->slow, r->slow, sizeof(r->slow));
	side_label(x, &e->fast, r->fast, sizeof(r->fast));
}

/* machines compared, the ops differing most: a row is a struct mop_row. */
struct mop_row {
	const struct xhost *x;
	const struct xhost_opdiff *d;
	size_t rank;
};

FIELD_GET(mop_rank, struct mop_row, u, r->rank)
FIELD_GET(mop_name, struct mop_row, s, r->d->name)
FIELD_GET(mop_code, struct mop_row, u, r->d->code)
FIELD_GET(mop_slow_machine, struct mop_row, s, r->x->m[r->x->slowest].name)
FIELD_GET(mop_slow_count, struct mop_row, u, r->d->slow_count)
FIELD_GET(mop_slow_total, struct mop_row, u, r->d->slow_total)
FIELD_GET(mop_median_machine, struct mop_row, s, r->x->m[r->x->median].name)
FIELD_GET(mop_median_count, struct mop_row, u, r->d->median_count)
FIELD_GET(mop_median_total, struct mop_row, u, r->d->median_total)
FIELD_GET(mop_diff, struct mop_row, i, r->d->diff_ns)

static const struct field mop_columns[] = {
	FIELD(NULL, "rank", NULL, 0, FK_U64, mop_rank),
	SAME("op", "op", -18, FK_STR, mop_name),
	SAME("code", "code", -8, FK_CODE, mop_code),
	FIELD(NULL, "slowest_machine", NULL, 0, FK_STR, mop_slow_machine),
	SAME("slowest_count", "count", 8, FK_U64, mop_slow_count),
	SAME("slowest_total_ns", "slowest", 12, FK_NS, mop_slow_total),
	FIELD(NULL, "median_machine", NULL, 0, FK_STR, mop_median_machine),
	SAME("median_count", "count", 8, FK_U64, mop_median_count),
	SAME("median_total_ns", "median", 12, FK_NS, mop_median_total),
	SAME("difference_ns", "difference", 12, FK_SNS, mop_diff),
};
static const struct field_table mop_fields = FIELD_TABLE(mop_columns);

/*
 * A core whose instruction queues lost entries: its busy time and
 * utilisation (and its units') are over observed time, which this says,
 * with each unit that lost and each loss window.
 */
static void text_core_losses(const struct core_stats *c, uint64_t span)
{
	printf("  LOSSES: busy and utilisation are over observed time only, %s of the %s "
	       "span (%s in loss windows); %" PRIu64 " instruction%s cut by a loss left out\n",
	       D(c->observed), D(span), D(span - c->observed), c->cut, c->cut == 1 ? "" : "s");
	for (size_t k = 0; k < c->nunits; k++) {
		const struct unit *u = &c->units[k];

		if (u->lossy)
			printf("    %s: observed %s, busy %s, utilisation %.2f%% of observed, "
			       "%" PRIu64 " cut\n", U(u), D(u->observed), D(u->busy), u->util_pct,
			       u->cut);
	}
	for (size_t i = 0; i < c->nlw; i++) {
		const struct loss_window *w = &c->lw[i];

		printf("    loss window %s %s %u engine %u: %" PRIu64 " lost %s, %" PRIu64
		       " .. %" PRIu64 " ns (%s)\n", queue_name(w->queue_type),
		       w->target_kind == NEURONPROF_TARGET_TOPSP ? "topsp" : "core",
		       w->target_index, w->engine, w->lost,
		       w->tail ? "after the last entry" : "in a sequence gap", w->start, w->end,
		       D(w->end - w->start));
	}
}

static void text_core(const struct rec_stats *s, const struct core_stats *c)
{
	uint64_t span = c->any ? c->last - c->first : 0;
	struct gap_row gr;

	printf("\ndevice %u (%s, %s) NeuronCore %u: %" PRIu64 " entries, active %s (%" PRIu64
	       " .. %" PRIu64 " ns)\n", c->dev, arch_name(c->arch), c->provider, c->core,
	       c->entries, D(span), c->first, c->last);
	printf("  inferences %" PRIu64 " (%" PRIu64 " failed), executions %zu, busy %s, "
	       "utilisation %.2f%%, in inferences %s\n", c->inferences, c->infer_failed,
	       c->ct ? c->ct->nexec : 0, D(c->busy), c->util_pct, D(c->infer_busy));
	printf("  errors %" PRIu64 ", throttle events %" PRIu64 " (max level %u)\n", c->errors,
	       c->throttles, c->max_throttle);
	printf("  lost %" PRIu64 " recorded, %" PRIu64 " missing from sequence numbers\n",
	       c->lost, c->gaps);
	if (c->lossy)
		text_core_losses(c, span);
	if (c->nunits) {
		printf("  engines and TopSPs:\n");
		fields_text_header(stdout, &unit_fields, "    ");
		for (size_t k = 0; k < c->nunits; k++) {
			struct unit_row ur;

			unit_row(&ur, c, &c->units[k]);
			fields_text_row(stdout, &unit_fields, &ur, "    ", raw_ns);
		}
		printf("  top ops per unit by total time (instruction durations: "
		       "Documentation/analysis.rst):\n");
		fields_text_header(stdout, &unit_op_fields, "    ");
		for (size_t k = 0; k < c->nunits; k++) {
			const struct unit *u = &c->units[k];

			for (size_t i = 0; i < u->nops && i < s->top; i++) {
				struct unit_op_row r;

				unit_op_row(&r, c, u, &u->ops[i]);
				fields_text_row(stdout, &unit_op_fields, &r, "    ",
						raw_ns);
			}
		}
	}
	if (c->idle.n || core_any_unit_gaps(c)) {
		printf("  longest idle gaps (the core's, then its units' longest of all):\n");
		fields_text_header(stdout, &gap_fields, "    ");
	}
	for (size_t i = 0; i < c->idle.n && i < s->top; i++) {
		gap_row(&gr, c, NULL, &c->idle.g[i], i + 1);
		fields_text_row(stdout, &gap_fields, &gr, "    ", raw_ns);
	}
	/*
	 * Each unit keeps its --top longest, longest first: the --top longest
	 * of all units are among them, merged here by length, then time.
	 */
	size_t *at = xcalloc(c->nunits ? c->nunits : 1, sizeof(*at));

	for (size_t n = 0; n < s->top; n++) {
		const struct idle_gap *best = NULL;
		size_t bk = 0;

		for (size_t k = 0; k < c->nunits; k++) {
			const struct idle_gap *g;

			if (at[k] >= c->units[k].idle.n)
				continue;
			g = &c->units[k].idle.g[at[k]];
			if (!best || g->end - g->start > best->end - best->start ||
			    (g->end - g->start == best->end - best->start && g->start < best->start)) {
				best = g;
				bk = k;
			}
		}
		if (!best)
			break;
		at[bk]++;
		gap_row(&gr, c, &c->units[bk], best, at[bk]);
		fields_text_row(stdout, &gap_fields, &gr, "    ", raw_ns);
	}
	free(at);
	if (c->nlevels) {
		printf("  throttling (a level holds until the next THROTTLE entry):\n");
		fields_text_header(stdout, &level_fields, "    ");
		for (size_t i = 0; i < c->nlevels; i++)
			fields_text_row(stdout, &level_fields,
					&(struct level_row){ c, &c->levels[i] }, "    ", raw_ns);
	}
	if (c->nerrs) {
		printf("  errors by code:\n");
		fields_text_header(stdout, &err_fields, "    ");
		for (size_t i = 0; i < c->nerrs; i++)
			fields_text_row(stdout, &err_fields,
					&(struct err_row){ c, &c->errs[i] }, "    ", raw_ns);
	}
}

struct totals {
	uint64_t instructions, events, dma, dma_bytes, inferences, infer_failed, executions,
		 errors, throttles, lost, gaps, unexplained;
};

static void totals(const struct rec_stats *s, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < s->ncores; i++) {
		const struct core_stats *c = &s->cores[i];

		for (size_t k = 0; k < c->nunits; k++) {
			t->instructions += c->units[k].instructions;
			t->events += c->units[k].events;
			t->dma += c->units[k].dma;
			t->dma_bytes += c->units[k].dma_bytes;
		}
		t->inferences += c->inferences;
		t->infer_failed += c->infer_failed;
		t->executions += c->ct ? c->ct->nexec : 0;
		t->errors += c->errors;
		t->throttles += c->throttles;
		t->lost += c->lost;
		t->gaps += c->gaps;
	}
	for (size_t i = 0; i < s->nlosses; i++)
		if (s->losses[i].gaps > s->losses[i].lost)
			t->unexplained++;
}

/* Executions of every core in one list, longest first (ties: time order). */
struct exec_ref {
	const struct core_timing *ct;
	const struct execution *x;
	size_t index;
};

static int cmp_exec_ref(const void *a, const void *b)
{
	const struct exec_ref *x = a, *y = b;

	return cmp_int(y->x->stop - y->x->start, x->x->stop - x->x->start) ?:
	       cmp_int(x->x->start, y->x->start);
}

static struct exec_ref *exec_list(const struct rec_stats *s, size_t *n, bool by_latency)
{
	struct exec_ref *v;
	size_t k = 0, total = 0;

	for (size_t i = 0; i < s->timing.ncores; i++)
		total += s->timing.cores[i].nexec;
	v = xcalloc(total, sizeof(*v));
	for (size_t i = 0; i < s->timing.ncores; i++)
		for (size_t j = 0; j < s->timing.cores[i].nexec; j++)
			v[k++] = (struct exec_ref){ .ct = &s->timing.cores[i],
						    .x = &s->timing.cores[i].exec[j], .index = j };
	if (by_latency && total > 1)
		qsort(v, total, sizeof(*v), cmp_exec_ref);
	*n = total;
	return v;
}

/* The name of model @id in @s (its files' model_name), or NULL. */
static const char *model_name_of(const struct rec_stats *s, uint32_t id)
{
	for (size_t i = 0; i < s->nmodels; i++)
		if (s->models[i].model_id == id)
			return s->models[i].name;
	return NULL;
}

static void text_xops(const struct rec_stats *s)
{
	if (!s->nxops)
		return;
	printf("\nops across cores by total time (one row per unit and op, every core):\n");
	fields_text_header(stdout, &xop_fields, "  ");
	for (size_t i = 0; i < s->nxops && i < s->top; i++) {
		struct xop_row r;

		xop_row(&r, s, &s->xops[i], false);
		fields_text_row(stdout, &xop_fields, &r, "  ", raw_ns);
	}
}

/* --brief: one row per NeuronCore instead of its sections. */
static void text_cores_brief(const struct rec_stats *s)
{
	if (!s->ncores)
		return;
	printf("\ncores (neuronprof summary without --brief has each one's engines, ops and idle "
	       "gaps):\n");
	fields_text_header(stdout, &core_fields, "  ");
	for (size_t i = 0; i < s->ncores; i++)
		fields_text_row(stdout, &core_fields, &s->cores[i], "  ", raw_ns);
	/* Utilisation over observed time is said here too (Loss windows). */
	for (size_t i = 0; i < s->ncores; i++) {
		const struct core_stats *c = &s->cores[i];

		if (c->lossy)
			printf("  LOSSES: device %u core %u: busy and utilisation over observed time "
			       "only, %s of the %s span; %" PRIu64 " instruction%s cut by a loss\n",
			       c->dev, c->core, D(c->observed), D(c->any ? c->last - c->first : 0),
			       c->cut, c->cut == 1 ? "" : "s");
	}
}

static uint64_t host_ns(const Neuronprof__System__NtraceEvent *h)
{
	return h->end_ns > h->start_ns ? h->end_ns - h->start_ns : 0;
}

/* models (their JSON nests three distributions): a row is a struct model_row. */
struct model_row {
	const struct dist *d;
	const struct model_stats *m;
};

FIELD_GET(model_name, struct model_row, s, r->m->name)
FIELD_GET(model_id, struct model_row, u, r->m->model_id)
FIELD_GET(model_failed, struct model_row, u, r->m->failed)
FIELD_GET(model_host, struct model_row, u, r->m->host_matched)
FIELD_GET(model_host_avg, struct model_row, u, r->m->host.avg)
FIELD_GET(model_overhead_avg, struct model_row, u, r->m->overhead.avg)

static const struct field model_columns[] = {
	FIELD(NULL, "model", "model", -16, FK_STR, model_name),
	FIELD(NULL, "model_id", "model_id", -8, FK_U64, model_id),
	FIELD(NULL, "count", "count", 6, FK_U64, field_dist_count),
	FIELD(NULL, "failed", "failed", 6, FK_U64, model_failed),
	FIELD(NULL, "min_ns", "min", 12, FK_NS, field_dist_min),
	FIELD(NULL, "avg_ns", "avg", 12, FK_NS, field_dist_avg),
	FIELD(NULL, "median_ns", "median", 12, FK_NS, field_dist_median),
	FIELD(NULL, "p99_ns", "p99", 12, FK_NS, field_dist_p99),
	FIELD(NULL, "max_ns", "max", 12, FK_NS, field_dist_max),
	FIELD(NULL, "host_matched", "host", 6, FK_U64, model_host),
	FIELD(NULL, "host_avg_ns", "host_avg", 12, FK_NS, model_host_avg),
	FIELD(NULL, "host_overhead_avg_ns", "overhead_avg", 12, FK_NS, model_overhead_avg),
};
static const struct field_table model_fields = FIELD_TABLE(model_columns);

/*
 * executions (the text's columns differ: a start relative to its core, the
 * host call's side by side): a row is a struct exec_row.
 */
struct exec_row {
	const struct rec_stats *s;
	const struct exec_ref *e;
};

#define XR(r)	((r)->e->x)
FIELD_GET(ex_dev, struct exec_row, u, r->e->ct->dev)
FIELD_GET(ex_core, struct exec_row, u, r->e->ct->core)
FIELD_GET(ex_index, struct exec_row, u, r->e->index)
FIELD_GET(ex_model, struct exec_row, s, model_name_of(r->s, XR(r)->model_id))
FIELD_GET(ex_model_id, struct exec_row, u, XR(r)->model_id)
FIELD_GET(ex_start, struct exec_row, u, XR(r)->start)
FIELD_GET(ex_end, struct exec_row, u, XR(r)->stop)
FIELD_GET(ex_latency, struct exec_row, u, XR(r)->stop - XR(r)->start)
FIELD_GET(ex_iterations, struct exec_row, u, XR(r)->iterations)
FIELD_GET(ex_failed, struct exec_row, b, XR(r)->failed)
FIELD_GET(ex_host_start, struct exec_row, u, XR(r)->host->start_ns)
FIELD_GET(ex_host_end, struct exec_row, u, XR(r)->host->end_ns)
FIELD_GET(ex_host_ns, struct exec_row, u, host_ns(XR(r)->host))
FIELD_GET(ex_before, struct exec_row, u, XR(r)->start - XR(r)->host->start_ns)
FIELD_GET(ex_after, struct exec_row, u,
	  XR(r)->host->end_ns > XR(r)->stop ? XR(r)->host->end_ns - XR(r)->stop : 0)
FIELD_GET(ex_flow, struct exec_row, u, XR(r)->host->flow_ids[0])

static bool ex_has_host(const void *row)
{
	return XR((const struct exec_row *)row)->host;
}

static bool ex_has_flow(const void *row)
{
	const struct execution *x = XR((const struct exec_row *)row);

	return x->host && x->host->n_flow_ids;
}
#undef XR

static const struct field exec_columns[] = {
	SAME("device", NULL, 0, FK_U64, ex_dev),
	SAME("core", NULL, 0, FK_U64, ex_core),
	SAME("index", NULL, 0, FK_U64, ex_index),
	FIELD("model", NULL, NULL, 0, FK_STR, ex_model),
	SAME("model_id", NULL, 0, FK_U64, ex_model_id),
	SAME("start_ns", NULL, 0, FK_NS, ex_start),
	SAME("end_ns", NULL, 0, FK_NS, ex_end),
	SAME("latency_ns", NULL, 0, FK_NS, ex_latency),
	SAME("iterations", NULL, 0, FK_U64, ex_iterations),
	SAME("failed", NULL, 0, FK_BOOL, ex_failed),
	FIELD_OPT("host_call", NULL, NULL, 0, FK_BEGIN, NULL, ex_has_host),
	FIELD_OPT("start_ns", "host_start_ns", NULL, 0, FK_NS, ex_host_start, ex_has_host),
	FIELD_OPT("end_ns", "host_end_ns", NULL, 0, FK_NS, ex_host_end, ex_has_host),
	FIELD_OPT("duration_ns", "host_duration_ns", NULL, 0, FK_NS, ex_host_ns, ex_has_host),
	FIELD_OPT("before_ns", "before_ns", NULL, 0, FK_NS, ex_before, ex_has_host),
	FIELD_OPT("after_ns", "after_ns", NULL, 0, FK_NS, ex_after, ex_has_host),
	FIELD_OPT("flow_id", "flow_id", NULL, 0, FK_U64, ex_flow, ex_has_flow),
	FIELD_OPT(NULL, NULL, NULL, 0, FK_END, NULL, NULL),
};
static const struct field_table exec_fields = FIELD_TABLE(exec_columns);

static void text_recording(const struct rec_stats *s)
{
	const struct recording *r = s->rec;
	struct exec_ref *ex;
	struct totals t;
	size_t nex;

	totals(s, &t);
	if (r->nfiles)
		printf("recording %s: %zu file%s, %" PRIu64 " queue records, %" PRIu64 " entries; ",
		       r->path, r->nfiles, r->nfiles == 1 ? "" : "s", s->queues, s->entries);
	else
		printf("recording %s: a system profile without NTFF files; ", r->path);
	if (r->sys && r->sys->ntrace)
		printf("system trace: %" PRIu64 " host events\n", s->host_events);
	else
		printf("no system trace\n");
	recording_print_ranges(r, "  ");
	if (brief)
		text_cores_brief(s);
	else
		for (size_t i = 0; i < s->ncores; i++)
			text_core(s, &s->cores[i]);
	text_xops(s);

	if (s->nmodels) {
		printf("\nexecution latency per model (first inference start to last stop):\n");
		fields_text_header(stdout, &model_fields, "  ");
		for (size_t i = 0; i < s->nmodels; i++)
			fields_text_row(stdout, &model_fields,
					&(struct model_row){ &s->models[i].lat, &s->models[i] },
					"  ", raw_ns);
		ex = exec_list(s, &nex, true);
		printf("longest executions and the host call around each:\n");
		printf("  %-6s %-5s %-16s %-8s %6s %12s %12s %6s %12s %12s %12s\n", "device", "core",
		       "model", "model_id", "index", "start_at", "latency", "iter", "host_call", "before",
		       "after");
		for (size_t i = 0; i < nex && i < s->top; i++) {
			const struct execution *x = ex[i].x;
			const struct core_stats *c = NULL;

			for (size_t k = 0; k < s->ncores; k++)
				if (s->cores[k].ct == ex[i].ct)
					c = &s->cores[k];
			printf("  %-6u %-5u %-16s %-8u %6zu %12s %12s %6u", ex[i].ct->dev,
			       ex[i].ct->core, or_dash(model_name_of(s, x->model_id)), x->model_id,
			       ex[i].index, D(c ? x->start - c->first : x->start),
			       D(x->stop - x->start), x->iterations);
			if (x->host)
				printf(" %12s %12s %12s%s\n", D(host_ns(x->host)),
				       D(x->start - x->host->start_ns),
				       D(x->host->end_ns > x->stop ? x->host->end_ns - x->stop : 0),
				       x->failed ? "  failed" : "");
			else
				printf(" %12s %12s %12s%s\n", "-", "-", "-", x->failed ? "  failed" : "");
		}
		free(ex);
	}
	if (r->sys && r->sys->ntrace) {
		printf("\nhost system trace: %" PRIu64 " events; %" PRIu64 " nrt_execute calls, %"
		       PRIu64 " matched to a device execution\n", s->host_events,
		       s->timing.host_calls, s->timing.host_calls_matched);
		fields_text_header(stdout, &host_fields, "  ");
		for (size_t i = 0; i < s->nhost; i++)
			fields_text_row(stdout, &host_fields,
					&(struct host_row){ &s->host[i].d, &s->host[i] }, "  ",
					raw_ns);
	}
	if (s->ncores)
		printf("\ntotals: instructions %" PRIu64 ", events %" PRIu64 ", dma %" PRIu64
		       " (%" PRIu64 " bytes), inferences %" PRIu64 " (%" PRIu64 " failed), executions %"
		       PRIu64 ", errors %" PRIu64 ", throttle events %" PRIu64 ", lost %" PRIu64
		       ", sequence gaps %" PRIu64 "\n", t.instructions, t.events, t.dma, t.dma_bytes,
		       t.inferences, t.infer_failed, t.executions, t.errors, t.throttles, t.lost,
		       t.gaps);
	if (s->nraws) {
		printf("\nraw entries: %" PRIu64 " in %zu queues, not decoded (their layout "
		       "is not known: no op, event or error statistics)\n", s->raw_entries,
		       s->nraws);
		fields_text_header(stdout, &raw_fields, "  ");
		for (size_t i = 0; i < s->nraws; i++) {
			struct raw_row rr;

			raw_row(&rr, &s->raws[i]);
			fields_text_row(stdout, &raw_fields, &rr, "  ", raw_ns);
		}
	}
	for (size_t i = 0; i < s->nlosses; i++) {
		const struct queue_loss *l = &s->losses[i];

		char later[48] = "";

		if (l->records > 1)
			snprintf(later, sizeof(later), " and %zu later ones", l->records - 1);
		printf("%s: %s record %zu%s (%s %s %u engine %u): lost %" PRIu64
		       " recorded, %" PRIu64 " missing from sequence numbers%s\n",
		       l->gaps > l->lost ? "warning" : "loss", l->file, l->record, later,
		       queue_name(l->queue_type),
		       l->target_kind == NEURONPROF_TARGET_TOPSP ? "topsp" : "core",
		       l->target_index, l->engine, l->lost, l->gaps,
		       l->gaps > l->lost ? ": entries vanished without being counted as lost" : "");
	}
}

/* ---- JSON ---------------------------------------------------------------------- */

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
	jw_u64(j, "instructions", t.instructions);
	jw_u64(j, "events", t.events);
	jw_u64(j, "dma", t.dma);
	jw_u64(j, "dma_bytes", t.dma_bytes);
	jw_u64(j, "inferences", t.inferences);
	jw_u64(j, "inferences_failed", t.infer_failed);
	jw_u64(j, "executions", t.executions);
	jw_u64(j, "errors", t.errors);
	jw_u64(j, "throttle_events", t.throttles);
	jw_u64(j, "lost", t.lost);
	jw_u64(j, "seq_gaps", t.gaps);
	jw_u64(j, "records_with_unexplained_gaps", t.unexplained);
	jw_obj_end(j);
	jw_u64(j, "raw_entries", s->raw_entries);
	json_raw_queues(j, s);
	json_losses(j, s);
	jw_obj_end(j);
}

/* ---- several machines (xhost.h) ----------------------------------------------------- */

static void text_xhost(const struct xhost *x, unsigned int top)
{
	printf("\nmachines compared: %zu; slowest %s, median %s (by total execution time)\n",
	       x->nm, x->m[x->slowest].name, x->m[x->median].name);
	printf("  per machine:\n");
	fields_text_header(stdout, &machine_fields, "    ");
	for (size_t k = 0; k < x->nm; k++)
		fields_text_row(stdout, &machine_fields,
				&(struct machine_row){ x, k }, "    ", raw_ns);
	printf("  per execution index (latency; skew = slowest - fastest):\n");
	fields_text_header(stdout, &mexec_fields, "    ");
	for (size_t i = 0; i < x->nx; i++) {
		struct mexec_row r;

		mexec_row(&r, x, &x->x[i]);
		fields_text_row(stdout, &mexec_fields, &r, "    ", raw_ns);
	}
	printf("  ops differing most, slowest %s against median %s (total time, top %u):\n",
	       x->m[x->slowest].name, x->m[x->median].name, top);
	fields_text_header(stdout, &mop_fields, "    ");
	for (size_t i = 0; i < x->nops; i++)
		fields_text_row(stdout, &mop_fields,
				&(struct mop_row){ x, &x->ops[i], i + 1 }, "    ", raw_ns);
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

/* ---- CSV ------------------------------------------------------------------------ */

enum csv_table {
	CSV_CORES, CSV_UNITS, CSV_OPS, CSV_GAPS, CSV_THROTTLE, CSV_ERRORS, CSV_MODELS,
	CSV_EXECUTIONS, CSV_HOST, CSV_LOSSES, CSV_RAW, CSV_XOPS, CSV_MACHINES, CSV_MEXEC,
	CSV_MOPS, CSV_LOSS_WINDOWS, CSV_OBSERVED, CSV_TABLES,
};

static const char *const csv_name[CSV_TABLES] = {
	"cores.csv", "units.csv", "ops.csv", "idle_gaps.csv", "throttle.csv", "errors.csv",
	"models.csv", "executions.csv", "host_events.csv", "losses.csv", "raw_queues.csv",
	"ops_across_cores.csv", "machines.csv", "machine_executions.csv", "machine_ops.csv",
	"loss_windows.csv", "observed.csv",
};

/* The columns of each table; @lead, when not NULL, is a first column ahead of them. */
static const struct {
	const struct field_table *t;
	const char *lead;
} csv_fields[CSV_TABLES] = {
	[CSV_CORES] = { &core_fields, "recording" },
	[CSV_UNITS] = { &unit_fields, "recording" },
	[CSV_GAPS] = { &gap_fields, "recording" },
	[CSV_OPS] = { &unit_op_fields, "recording" },
	[CSV_THROTTLE] = { &level_fields, "recording" },
	[CSV_ERRORS] = { &err_fields, "recording" },
	[CSV_MODELS] = { &model_fields, "recording" },
	[CSV_EXECUTIONS] = { &exec_fields, "recording" },
	[CSV_HOST] = { &host_fields, "recording" },
	[CSV_LOSSES] = { &loss_fields, "recording" },
	[CSV_RAW] = { &raw_fields, "recording" },
	[CSV_XOPS] = { &xop_fields, "recording" },
	[CSV_MACHINES] = { &machine_fields, NULL },
	[CSV_MEXEC] = { &mexec_fields, NULL },
	[CSV_MOPS] = { &mop_fields, NULL },
	[CSV_LOSS_WINDOWS] = { &loss_window_fields, "recording" },
	[CSV_OBSERVED] = { &observed_fields, "recording" },
};

static void csv_recording(FILE **f, const struct rec_stats *s)
{
	const char *rp = s->rec->path;
	struct gap_row gr;
	struct exec_ref *ex;
	size_t nex;

	for (size_t i = 0; i < s->nxops; i++) {
		struct xop_row r;

		xop_row(&r, s, &s->xops[i], true);
		fields_csv_row(f[CSV_XOPS], &xop_fields, &r, rp);
		xop_row_free(&r);
	}
	for (size_t i = 0; i < s->ncores; i++) {
		const struct core_stats *c = &s->cores[i];

		fields_csv_row(f[CSV_CORES], &core_fields, c, rp);
		for (size_t g = 0; g < c->idle.n; g++) {
			gap_row(&gr, c, NULL, &c->idle.g[g], g + 1);
			fields_csv_row(f[CSV_GAPS], &gap_fields, &gr, rp);
		}
		for (size_t k = 0; k < c->nunits; k++) {
			const struct unit *u = &c->units[k];
			struct unit_row ur;

			unit_row(&ur, c, u);
			fields_csv_row(f[CSV_UNITS], &unit_fields, &ur, rp);
			fields_csv_row(f[CSV_OBSERVED], &observed_fields, &ur, rp);
			for (size_t o = 0; o < u->nops; o++) {
				struct unit_op_row r;

				unit_op_row(&r, c, u, &u->ops[o]);
				fields_csv_row(f[CSV_OPS], &unit_op_fields, &r, rp);
			}
			for (size_t g = 0; g < u->idle.n; g++) {
				gap_row(&gr, c, u, &u->idle.g[g], g + 1);
				fields_csv_row(f[CSV_GAPS], &gap_fields, &gr, rp);
			}
		}
		for (size_t l = 0; l < c->nlevels; l++)
			fields_csv_row(f[CSV_THROTTLE], &level_fields,
				       &(struct level_row){ c, &c->levels[l] }, rp);
		for (size_t e = 0; e < c->nerrs; e++)
			fields_csv_row(f[CSV_ERRORS], &err_fields,
				       &(struct err_row){ c, &c->errs[e] }, rp);
		for (size_t w = 0; w < c->nlw; w++)
			fields_csv_row(f[CSV_LOSS_WINDOWS], &loss_window_fields,
				       &(struct lw_row){ c, &c->lw[w] }, rp);
	}
	for (size_t i = 0; i < s->nmodels; i++)
		fields_csv_row(f[CSV_MODELS], &model_fields,
			       &(struct model_row){ &s->models[i].lat, &s->models[i] }, rp);
	ex = exec_list(s, &nex, false);
	for (size_t i = 0; i < nex; i++)
		fields_csv_row(f[CSV_EXECUTIONS], &exec_fields,
			       &(struct exec_row){ s, &ex[i] }, rp);
	free(ex);
	for (size_t i = 0; i < s->nhost; i++)
		fields_csv_row(f[CSV_HOST], &host_fields,
			       &(struct host_row){ &s->host[i].d, &s->host[i] }, rp);
	for (size_t i = 0; i < s->nlosses; i++) {
		const struct queue_loss *l = &s->losses[i];

		fields_csv_row(f[CSV_LOSSES], &loss_fields, &l, rp);
	}
	for (size_t i = 0; i < s->nraws; i++) {
		struct raw_row rr;

		raw_row(&rr, &s->raws[i]);
		fields_csv_row(f[CSV_RAW], &raw_fields, &rr, rp);
	}
}

static void csv_xhost(FILE **f, const struct xhost *x)
{
	for (size_t k = 0; k < x->nm; k++)
		fields_csv_row(f[CSV_MACHINES], &machine_fields,
			       &(struct machine_row){ x, k }, NULL);
	for (size_t i = 0; i < x->nx; i++) {
		struct mexec_row r;

		mexec_row(&r, x, &x->x[i]);
		fields_csv_row(f[CSV_MEXEC], &mexec_fields, &r, NULL);
	}
	for (size_t i = 0; i < x->nops; i++)
		fields_csv_row(f[CSV_MOPS], &mop_fields,
			       &(struct mop_row){ x, &x->ops[i], i + 1 }, NULL);
}

/*
 * Every table of DIR opened by the rule of output.c (each a temporary
 * renamed over its file when complete; a device, a FIFO or a link as
 * output_open() says), before any work. On failure no file is left (the
 * directories made stay).
 */
static int csv_open(const char *dir, struct output *o)
{
	struct stat st;

	/* A missing directory is made (with its parents, as every output's). */
	if (stat(dir, &st)) {
		if (errno != ENOENT) {
			fail("cannot create directory %s: %s", dir, strerror(errno));
			return -1;
		}
		if (output_mkdir(dir, dir))
			return -1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fail("--csv %s: not a directory", dir);
		return -1;
	}
	for (int i = 0; i < CSV_TABLES; i++) {
		char *path;

		if (asprintf(&path, "%s/%s", dir, csv_name[i]) < 0)
			path = NULL;
		if (!path || output_open(&o[i], path, 0)) {
			if (!path)
				fail("out of memory");
			free(path);
			while (i-- > 0) {
				output_abort(&o[i]);
				free((char *)o[i].name);
			}
			return -1;
		}
		fields_csv_header(o[i].f, csv_fields[i].t, csv_fields[i].lead);
	}
	return 0;
}

/* Commit every table (or, after a failure, @abort: remove what was made). */
static int csv_close(struct output *o, bool abort)
{
	int ret = 0;

	for (int i = 0; i < CSV_TABLES; i++) {
		if (abort || ret)
			output_abort(&o[i]);
		else
			ret = output_commit(&o[i]);
		free((char *)o[i].name);
	}
	return ret;
}

/* ---- command -------------------------------------------------------------------- */

int cmd_summary(int argc, char **argv)
{
	enum progress_mode pmode = PROGRESS_AUTO;
	const char *csv_dir = NULL;
	struct path_set ps;
	struct rec_stats *stats;
	struct progress pg;
	struct output csv[CSV_TABLES];
	uint64_t top = 5, done = 0;
	bool json = false, keep = false, have_x;
	struct xhost xh;
	int ret = 0;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "one JSON document"),
		OPT_STRING(0, "csv", &csv_dir, "DIR",
			   "one CSV file per table into DIR (created if missing;\n"
			   "checked before any work)"),
		OPT_U64(0, "top", &top, "N", 1, 1000000,
			"rows per ranked table: ops per engine, ops across cores,\n"
			"idle gaps of a core and of its units, executions listed\n"
			"in the text (default 5, at least 1)"),
		OPT_BOOL(0, "ns", &raw_ns, "durations in the text as whole nanoseconds"),
		OPT_BOOL(0, "brief", &brief,
			 "text: one row per NeuronCore instead of its engines, ops,\n"
			 "idle gaps, throttling and errors (the ops across cores,\n"
			 "executions, host trace and totals stay)"),
		OPT_BOOL(0, "keep-going", &keep,
			 "a file that does not read (damaged, truncated, not NTFF)\n"
			 "is skipped with a warning naming it, and the rest is\n"
			 "summarized; the exit status is then 1"),
		OPT_PROGRESS(&pmode),
		OPT_END(),
	};

	raw_ns = false;
	brief = false;
	if (opts_parse(argc, argv, opts, NULL, &ret))
		return ret;
	if (json && csv_dir)
		return usage_error("--json and --csv are exclusive");
	if (optind >= argc)
		return usage_error("missing PATH");
	/* The tables' directory before any work. */
	if (csv_dir && csv_open(csv_dir, csv))
		return EXIT_FAIL;
	ret = paths_load(&ps, argv + optind, (size_t)(argc - optind), keep, "summarize");
	if (ret) {
		if (csv_dir)
			csv_close(csv, true);
		goto out;
	}

	stats = xcalloc(ps.nrec, sizeof(*stats));
	progress_start(&pg, pmode, "summary", ps.entries);
	for (size_t i = 0; i < ps.nrec; i++)
		rec_stats_build(&stats[i], ps.recs[i], (unsigned int)top, &pg, &done);
	progress_finish(&pg);
	have_x = xhost_build(&xh, stats, ps.nrec, (unsigned int)top);

	if (json) {
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
		jw_str(&j, "path", argv[optind]);
		jw_arr_begin(&j, "paths");
		for (size_t i = 0; i < ps.npaths; i++)
			jw_str(&j, NULL, argv[optind + i]);
		jw_arr_end(&j);
		jw_u64(&j, "files", ps.nfiles);
		jw_u64(&j, "entries", ps.entries);
		jw_u64(&j, "skipped", ps.skipped);
		jw_arr_begin(&j, "recordings");
		for (size_t i = 0; i < ps.nrec; i++)
			json_recording(&j, &stats[i]);
		jw_arr_end(&j);
		if (have_x)
			json_xhost(&j, &xh);
		else
			jw_null(&j, "machines_compared");
		jw_obj_end(&j);
		jw_finish(&j);
	} else if (csv_dir) {
		FILE *f[CSV_TABLES];

		for (int i = 0; i < CSV_TABLES; i++)
			f[i] = csv[i].f;
		for (size_t i = 0; i < ps.nrec; i++)
			csv_recording(f, &stats[i]);
		if (have_x)
			csv_xhost(f, &xh);
		ret = csv_close(csv, false);
		if (!ret)
			printf("%s: %d tables of %zu recording%s\n", csv_dir, CSV_TABLES, ps.nrec,
			       ps.nrec == 1 ? "" : "s");
	} else {
		for (size_t i = 0; i < ps.nrec; i++) {
			if (i)
				printf("\n");
			text_recording(&stats[i]);
		}
		if (have_x)
			text_xhost(&xh, (unsigned int)top);
	}
	if (have_x)
		xhost_free(&xh);
	for (size_t i = 0; i < ps.nrec; i++)
		rec_stats_free(&stats[i]);
	free(stats);
	if (!ret)
		ret = flush_stdout();
	if (!ret && ps.skipped) {
		fail("%zu file%s skipped (--keep-going): the summary leaves %s out", ps.skipped,
		     ps.skipped == 1 ? "" : "s", ps.skipped == 1 ? "it" : "them");
		ret = EXIT_FAIL;
	}
out:
	paths_free(&ps);
	return ret;
}
