// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the columns of every section summary writes (fields.h):
 * one table per section, which drives its text, JSON and CSV writers
 * (ui/summary_text.c, ui/summary_json.c, ui/summary_csv.c) and report's
 * tables; and the rows they read (summary_columns.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/summary_columns.h"
#include "analysis/names.h"
#include "util/util.h"

/*
 * A column reading a member of a core (a row that is its struct core_stats)
 * or of a unit (struct unit_row).
 */
#define CORE(m)		FIELD_AT(struct core_stats, m)
#define UNIT(m)		FIELD_VIA(struct unit_row, u, m)

FIELD_GET(gap_label, struct gap_row, s, r->label)
FIELD_GET(gap_kind, struct gap_row, s, !r->u ? "core" : r->u->topsp ? "topsp" : "engine")
FIELD_GET(gap_index, struct gap_row, u, r->u ? r->u->index : r->c->core)
FIELD_GET(gap_idle, struct gap_row, u, r->g->end - r->g->start)
FIELD_GET(gap_at, struct gap_row, u, r->g->start - r->c->first)
FIELD_GET(gap_where, struct gap_row, s, r->where)

static const struct field gap_columns[] = {
	FIELD(NULL, NULL, "unit", -12, FK_STR, gap_label),
	CORE_ID_FIELDS,
	FIELD(NULL, "unit", NULL, 0, FK_STR, gap_kind),
	FIELD(NULL, "index", NULL, 0, FK_U64, gap_index),
	FIELD(NULL, "rank", NULL, 0, FK_U64, FIELD_AT(struct gap_row, rank)),
	SAME("start_ns", NULL, 0, FK_NS, FIELD_VIA(struct gap_row, g, start)),
	SAME("end_ns", NULL, 0, FK_NS, FIELD_VIA(struct gap_row, g, end)),
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
FIELD_GET(ur_kind, struct unit_row, s, r->u->topsp ? "topsp" : "engine")
FIELD_GET(ur_name, struct unit_row, s, engine_name(r->u->index))
FIELD_GET(ur_span, struct unit_row, u, r->u->any ? r->u->last - r->u->first : 0)
FIELD_GET(ur_core_span, struct unit_row, u, r->c->any ? r->c->last - r->c->first : 0)
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
	FIELD(NULL, "device", NULL, 0, FK_U64, FIELD_VIA(struct unit_row, c, dev)), \
	FIELD(NULL, "core", NULL, 0, FK_U64, FIELD_VIA(struct unit_row, c, core)), \
	FIELD(NULL, "unit", NULL, 0, FK_STR, ur_kind),				\
	FIELD(NULL, "index", NULL, 0, FK_U64, UNIT(index))

void unit_row(struct unit_row *r, const struct core_stats *c, const struct unit *u)
{
	*r = (struct unit_row){ .c = c, .u = u };
	unit_label(u, r->label, sizeof(r->label));
}

FIELD_GET(uop_name, struct unit_op_row, s, unit_op_name(r->ur.c, r->ur.u, r->o->code))
FIELD_GET(uop_code, struct unit_op_row, u, r->o->code)

static const struct field unit_op_columns[] = {
	UNIT_ID_FIELDS,
	OP_FIELDS(uop_name, uop_code),
	SAME("max_ns", "max", 12, FK_NS, field_dist_max),
	SAME("busy_pct", "%busy", 7, FK_PCT, FIELD_VIA(struct unit_op_row, o, busy_pct)),
};
const struct field_table unit_op_fields = FIELD_TABLE(unit_op_columns);

void unit_op_row(struct unit_op_row *r, const struct core_stats *c, const struct unit *u,
		 const struct op_stats *o)
{
	unit_row(&r->ur, c, u);
	r->ur.d = &o->d;
	r->o = o;
}

static const struct field level_columns[] = {
	CORE_ID_FIELDS,
	SAME("level", "level", -6, FK_U64, FIELD_VIA(struct level_row, l, level)),
	SAME("events", "events", 7, FK_U64, FIELD_VIA(struct level_row, l, events)),
	SAME("time_ns", "time", 12, FK_NS, FIELD_VIA(struct level_row, l, ns)),
	SAME("span_pct", "%span", 8, FK_PCT, FIELD_VIA(struct level_row, l, pct)),
};
const struct field_table level_fields = FIELD_TABLE(level_columns);

FIELD_GET(core_arch, struct core_stats, s, arch_name(r->arch))
FIELD_GET(core_provider, struct core_stats, s, r->provider)
FIELD_GET(core_span, struct core_stats, u, r->any ? r->last - r->first : 0)
FIELD_GET(core_execs, struct core_stats, u, r->ct ? r->ct->nexec : 0)

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
	SAME("device", "device", -6, FK_U64, CORE(dev)),
	FIELD("arch", NULL, NULL, 0, FK_STR, core_arch),
	FIELD("provider", NULL, NULL, 0, FK_STR, core_provider),
	SAME("core", "core", -5, FK_U64, CORE(core)),
	SAME("entries", "entries", 8, FK_U64, CORE(entries)),
	FIELD(NULL, NULL, "infer", 6, FK_U64, CORE(inferences)),
	FIELD(NULL, NULL, "execs", 6, FK_U64, core_execs),
	SAME("first_ns", NULL, 0, FK_NS, CORE(first)),
	SAME("last_ns", NULL, 0, FK_NS, CORE(last)),
	SAME("span_ns", NULL, 0, FK_NS, core_span),
	SAME("busy_ns", "busy", 12, FK_NS, CORE(busy)),
	SAME("utilization_pct", "util%", 8, FK_PCT, CORE(util_pct)),
	SAME("inferences", NULL, 0, FK_U64, CORE(inferences)),
	SAME("inferences_failed", NULL, 0, FK_U64, CORE(infer_failed)),
	FIELD("inference_busy_ns", NULL, "in_infer", 12, FK_NS, CORE(infer_busy)),
	SAME("executions", NULL, 0, FK_U64, core_execs),
	SAME("errors", NULL, 0, FK_U64, CORE(errors)),
	SAME("throttle_events", "throttle", 7, FK_U64, CORE(throttles)),
	SAME("max_throttle_level", NULL, 0, FK_U64, CORE(max_throttle)),
	SAME("lost", "lost", 6, FK_U64, CORE(lost)),
	SAME("seq_gaps", "gaps", 6, FK_U64, CORE(gaps)),
	FIELD(NULL, "inference_busy_ns", NULL, 0, FK_NS, CORE(infer_busy)),
	FIELD_OPT("observed_ns", NULL, NULL, 0, FK_NS, CORE(observed), core_lossy),
	FIELD_OPT("cut_instructions", NULL, NULL, 0, FK_U64, CORE(cut), core_lossy),
};
const struct field_table core_fields = FIELD_TABLE(core_columns);

/*
 * JSON names a unit by its kind ("engine": 3 or "topsp": 1) and has an
 * engine's DMA and a TopSP's errors only; CSV and the text have every
 * column for both, in their own order.
 */
static const struct field unit_columns[] = {
	UNIT_ID_FIELDS,
	FIELD_OPT("topsp", NULL, NULL, 0, FK_U64, UNIT(index), ur_is_topsp),
	FIELD_OPT("engine", NULL, NULL, 0, FK_U64, UNIT(index), ur_is_engine),
	FIELD_OPT("name", NULL, NULL, 0, FK_STR, ur_name, ur_is_engine),
	FIELD(NULL, NULL, "util%", 8, FK_PCT, UNIT(util_pct)),
	FIELD(NULL, NULL, "busy", 12, FK_NS, UNIT(busy)),
	FIELD("instructions", "instructions", "instr", 8, FK_U64, UNIT(instructions)),
	SAME("events", "events", 7, FK_U64, UNIT(events)),
	FIELD("event_slices", NULL, NULL, 0, FK_U64, UNIT(event_slices)),
	SAME("event_busy_ns", "event_busy", 12, FK_NS, UNIT(event_busy)),
	FIELD(NULL, "busy_ns", NULL, 0, FK_NS, UNIT(busy)),
	FIELD(NULL, "utilization_pct", NULL, 0, FK_PCT, UNIT(util_pct)),
	FIELD(NULL, "dma", "dma", 6, FK_U64, UNIT(dma)),
	FIELD(NULL, "dma_bytes", "dma_bytes", 10, FK_U64, UNIT(dma_bytes)),
	FIELD(NULL, "dma_bytes_per_s", "dma_bytes/s", 11, FK_U64, UNIT(dma_bytes_per_s)),
	FIELD(NULL, "errors", NULL, 0, FK_U64, UNIT(errors)),
	FIELD_OPT("dma", NULL, NULL, 0, FK_U64, UNIT(dma), ur_is_engine),
	FIELD_OPT("dma_bytes", NULL, NULL, 0, FK_U64, UNIT(dma_bytes), ur_is_engine),
	FIELD_OPT("dma_bytes_per_s", NULL, NULL, 0, FK_U64, UNIT(dma_bytes_per_s), ur_is_engine),
	FIELD_OPT("errors", NULL, NULL, 0, FK_U64, UNIT(errors), ur_is_topsp),
	SAME("lost", NULL, 0, FK_U64, UNIT(lost)),
	SAME("seq_gaps", NULL, 0, FK_U64, UNIT(gaps)),
	FIELD("first_ns", NULL, NULL, 0, FK_NS, UNIT(first)),
	FIELD("last_ns", NULL, NULL, 0, FK_NS, UNIT(last)),
	FIELD("span_ns", NULL, NULL, 0, FK_NS, ur_span),
	FIELD("busy_ns", NULL, NULL, 0, FK_NS, UNIT(busy)),
	FIELD("utilization_pct", NULL, NULL, 0, FK_PCT, UNIT(util_pct)),
	FIELD_OPT("observed_ns", NULL, NULL, 0, FK_NS, UNIT(observed), ur_lossy),
	FIELD_OPT("cut_instructions", NULL, NULL, 0, FK_U64, UNIT(cut), ur_lossy),
};
const struct field_table unit_fields = FIELD_TABLE(unit_columns);

/* observed.csv: every unit, its observed time and cut instructions. */
static const struct field observed_columns[] = {
	FIELD(NULL, "device", NULL, 0, FK_U64, FIELD_VIA(struct unit_row, c, dev)),
	FIELD(NULL, "core", NULL, 0, FK_U64, FIELD_VIA(struct unit_row, c, core)),
	FIELD(NULL, "unit", NULL, 0, FK_STR, ur_kind),
	FIELD(NULL, "index", NULL, 0, FK_U64, UNIT(index)),
	FIELD(NULL, "span_ns", NULL, 0, FK_NS, ur_core_span),
	FIELD(NULL, "observed_ns", NULL, 0, FK_NS, UNIT(observed)),
	FIELD(NULL, "busy_ns", NULL, 0, FK_NS, UNIT(busy)),
	FIELD(NULL, "utilization_pct", NULL, 0, FK_PCT, UNIT(util_pct)),
	FIELD(NULL, "utilization_over", NULL, 0, FK_STR, ur_over),
	FIELD(NULL, "cut_instructions", NULL, 0, FK_U64, UNIT(cut)),
};
const struct field_table observed_fields = FIELD_TABLE(observed_columns);

FIELD_GET(lw_queue, struct lw_row, s, queue_name(r->w->queue_type))
FIELD_GET(lw_kind, struct lw_row, s,
	  r->w->target_kind == NEURONPROF_TARGET_TOPSP ? "topsp" : "core")
FIELD_GET(lw_where, struct lw_row, s, r->w->tail ? "after_last_entry" : "sequence_gap")

/* A loss window (struct loss_window) of a core: JSON and CSV. */
static const struct field lw_columns[] = {
	CORE_ID_FIELDS,
	SAME("queue_type", NULL, 0, FK_STR, lw_queue),
	SAME("target_kind", NULL, 0, FK_STR, lw_kind),
	SAME("target_index", NULL, 0, FK_U64, FIELD_VIA(struct lw_row, w, target_index)),
	SAME("engine", NULL, 0, FK_U64, FIELD_VIA(struct lw_row, w, engine)),
	SAME("kind", NULL, 0, FK_STR, lw_where),
	SAME("start_ns", NULL, 0, FK_NS, FIELD_VIA(struct lw_row, w, start)),
	SAME("end_ns", NULL, 0, FK_NS, FIELD_VIA(struct lw_row, w, end)),
	SAME("lost", NULL, 0, FK_U64, FIELD_VIA(struct lw_row, w, lost)),
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

FIELD_GET(raw_target, struct raw_row, s, r->target)
FIELD_GET(raw_format, struct raw_row, s, raw_format_name(r->raw->format))
FIELD_GET(raw_clock, struct raw_row, s, clock_domain_name(r->raw->clock_domain))

/* Never: the layout of raw entries is not known. */
static union field_val raw_decoded(const void *row)
{
	(void)row;
	return (union field_val){ .b = false };
}

/*
 * JSON names the queue first, then its device and core; CSV and the text
 * the device and core first, and the text its queue, target and engine
 * after them.
 */
static const struct field raw_columns[] = {
	QUEUE_FILE_FIELDS,
	FIELD(NULL, "device", "device", -6, FK_U64, FIELD_VIA(struct raw_row, raw, dev)),
	FIELD(NULL, "core", "core", -5, FK_U64, FIELD_VIA(struct raw_row, raw, core)),
	QUEUE_TARGET_FIELDS,
	FIELD(NULL, NULL, "queue", -14, FK_STR, queue_type),
	FIELD(NULL, NULL, "target", -9, FK_STR, raw_target),
	FIELD(NULL, NULL, "engine", 6, FK_U64, queue_engine),
	FIELD("device", NULL, NULL, 0, FK_U64, FIELD_VIA(struct raw_row, raw, dev)),
	FIELD("core", NULL, NULL, 0, FK_U64, FIELD_VIA(struct raw_row, raw, core)),
	SAME("format", "format", -10, FK_STR, raw_format),
	SAME("clock_domain", "clock", -9, FK_STR, raw_clock),
	FIELD("decoded", NULL, NULL, 0, FK_BOOL, raw_decoded),
	SAME("entries", "entries", 10, FK_U64, FIELD_VIA(struct raw_row, raw, entries)),
	SAME("device_entries", "device_entries", 14, FK_U64,
	     FIELD_VIA(struct raw_row, raw, device_entries)),
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

static const struct field host_columns[] = {
	SAME("name", "event", -20, FK_STR, FIELD_VIA(struct host_row, h, name)),
	SAME("count", "count", 7, FK_U64, field_dist_count),
	SAME("total_ns", "total", 12, FK_NS, field_dist_total),
	SAME("min_ns", NULL, 12, FK_NS, field_dist_min),
	SAME("avg_ns", "avg", 12, FK_NS, field_dist_avg),
	SAME("median_ns", "median", 12, FK_NS, field_dist_median),
	SAME("p99_ns", "p99", 12, FK_NS, field_dist_p99),
	SAME("max_ns", "max", 12, FK_NS, field_dist_max),
};
const struct field_table host_fields = FIELD_TABLE(host_columns);

/*
 * ops across cores: a row is a struct xop_row, filled by xop_row(); the
 * cores of each are a column of the text and CSV, an array in JSON.
 */

FIELD_GET(xop_label, struct xop_row, s, r->label)
FIELD_GET(xop_kind, struct xop_row, s, r->x->topsp ? "topsp" : "engine")
FIELD_GET(xop_op, struct xop_row, s, xop_name(r->s, r->x))
FIELD_GET(xop_code, struct xop_row, u, r->x->code)
FIELD_GET(xop_text_cores, struct xop_row, s, r->cores)

static const struct field xop_columns[] = {
	FIELD(NULL, NULL, "unit", -12, FK_STR, xop_label),
	FIELD("unit_kind", "unit", NULL, 0, FK_STR, xop_kind),
	FIELD("unit_index", "index", NULL, 0, FK_U64, FIELD_VIA(struct xop_row, x, index)),
	OP_FIELDS(xop_op, xop_code),
	SAME("p99_ns", NULL, 0, FK_NS, field_dist_p99),
	SAME("max_ns", NULL, 0, FK_NS, field_dist_max),
	FIELD(NULL, NULL, "cores", FIELD_LAST, FK_STR, xop_text_cores),
	FIELD(NULL, "cores", NULL, 0, FK_STR, FIELD_AT(struct xop_row, list)),
};
const struct field_table xop_fields = FIELD_TABLE(xop_columns);

/* The row of @x; @csv: with its list of cores (freed by xop_row_free()). */
void xop_row(struct xop_row *r, const struct rec_stats *s, const struct xop *x, bool csv)
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

void xop_row_free(struct xop_row *r)
{
	free(r->list);
}

/* errors by code of a core: a row is a struct err_row (the core first: CORE_ID_FIELDS). */

FIELD_GET(err_first_at, struct err_row, u, r->e->first_ns - r->c->first)

static const struct field err_columns[] = {
	CORE_ID_FIELDS,
	SAME("code", "code", -8, FK_U64, FIELD_VIA(struct err_row, e, code)),
	SAME("count", "count", 7, FK_U64, FIELD_VIA(struct err_row, e, count)),
	FIELD(NULL, NULL, "first_at", 12, FK_NS, err_first_at),
	SAME("first_ns", NULL, 0, FK_NS, FIELD_VIA(struct err_row, e, first_ns)),
};
const struct field_table err_fields = FIELD_TABLE(err_columns);

void totals(const struct rec_stats *s, struct totals *t)
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

static int cmp_exec_ref(const void *a, const void *b)
{
	const struct exec_ref *x = a, *y = b;

	return cmp_int(y->x->stop - y->x->start, x->x->stop - x->x->start) ?:
	       cmp_int(x->x->start, y->x->start);
}

struct exec_ref *exec_list(const struct rec_stats *s, size_t *n, bool by_latency)
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
const char *model_name_of(const struct rec_stats *s, uint32_t id)
{
	for (size_t i = 0; i < s->nmodels; i++)
		if (s->models[i].model_id == id)
			return s->models[i].name;
	return NULL;
}

uint64_t host_ns(const Neuronprof__System__NtraceEvent *h)
{
	return h->end_ns > h->start_ns ? h->end_ns - h->start_ns : 0;
}

/* models (their JSON nests three distributions): a row is a struct model_row. */

FIELD_GET(model_name, struct model_row, s, r->m->name)
FIELD_GET(model_id, struct model_row, u, r->m->model_id)
FIELD_GET(model_host_avg, struct model_row, u, r->m->host.avg)
FIELD_GET(model_overhead_avg, struct model_row, u, r->m->overhead.avg)

static const struct field model_columns[] = {
	FIELD(NULL, "model", "model", -16, FK_STR, model_name),
	FIELD(NULL, "model_id", "model_id", -8, FK_U64, model_id),
	FIELD(NULL, "count", "count", 6, FK_U64, field_dist_count),
	FIELD(NULL, "failed", "failed", 6, FK_U64, FIELD_VIA(struct model_row, m, failed)),
	FIELD(NULL, "min_ns", "min", 12, FK_NS, field_dist_min),
	FIELD(NULL, "avg_ns", "avg", 12, FK_NS, field_dist_avg),
	FIELD(NULL, "median_ns", "median", 12, FK_NS, field_dist_median),
	FIELD(NULL, "p99_ns", "p99", 12, FK_NS, field_dist_p99),
	FIELD(NULL, "max_ns", "max", 12, FK_NS, field_dist_max),
	FIELD(NULL, "host_matched", "host", 6, FK_U64,
	      FIELD_VIA(struct model_row, m, host_matched)),
	FIELD(NULL, "host_avg_ns", "host_avg", 12, FK_NS, model_host_avg),
	FIELD(NULL, "host_overhead_avg_ns", "overhead_avg", 12, FK_NS, model_overhead_avg),
};
const struct field_table model_fields = FIELD_TABLE(model_columns);

/*
 * executions (the text's columns differ: a start relative to its core, the
 * host call's side by side): a row is a struct exec_row.
 */

#define XR(r)	((r)->e->x)
FIELD_GET(ex_dev, struct exec_row, u, r->e->ct->dev)
FIELD_GET(ex_core, struct exec_row, u, r->e->ct->core)
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
	SAME("index", NULL, 0, FK_U64, FIELD_VIA(struct exec_row, e, index)),
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
const struct field_table exec_fields = FIELD_TABLE(exec_columns);
