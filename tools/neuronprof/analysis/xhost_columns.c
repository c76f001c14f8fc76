// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the columns of summary's machines compared (xhost.h):
 * per machine, per execution index and the ops differing most; part of
 * the column tables of summary_columns.h.
 */
#include <stdio.h>

#include "analysis/summary_columns.h"
#include "util/util.h"

/* machines compared, per machine: a row is a struct machine_row. */

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
const struct field_table machine_fields = FIELD_TABLE(machine_columns);

/*
 * machines compared, per execution index: a row is a struct mexec_row with
 * its sides' labels filled by mexec_row().
 */

/* The accessors of one side of an execution index, @side: slow or fast. */
#define MEXEC_SIDE_GET(side)								\
	FIELD_GET(mx_##side##_label, struct mexec_row, s, r->side)			\
	FIELD_GET(mx_##side##_machine, struct mexec_row, s,				\
		  r->x->m[r->e->side.machine].name)					\
	FIELD_GET(mx_##side##_dev, struct mexec_row, u, r->e->side.dev)			\
	FIELD_GET(mx_##side##_core, struct mexec_row, u, r->e->side.core)		\
	FIELD_GET(mx_##side##_ns, struct mexec_row, u, r->e->side.ns)

MEXEC_SIDE_GET(slow)
MEXEC_SIDE_GET(fast)

/*
 * The columns of one side, @side's accessors, named @name: a JSON object of
 * that name, CSV columns "@name_...", the text's label and latency.
 */
#define MEXEC_SIDE_FIELDS(side, name)							\
	FIELD(name, NULL, NULL, 0, FK_BEGIN, NULL),					\
	FIELD(NULL, NULL, name, -32, FK_STR, mx_##side##_label),			\
	FIELD("machine", name "_machine", NULL, 0, FK_STR, mx_##side##_machine),	\
	FIELD("device", name "_device", NULL, 0, FK_U64, mx_##side##_dev),		\
	FIELD("core", name "_core", NULL, 0, FK_U64, mx_##side##_core),			\
	FIELD("latency_ns", name "_ns", "latency", 12, FK_NS, mx_##side##_ns),		\
	FIELD(NULL, NULL, NULL, 0, FK_END, NULL)

static const struct field mexec_columns[] = {
	SAME("index", "index", -6, FK_U64, FIELD_VIA(struct mexec_row, e, index)),
	SAME("cores", "cores", 5, FK_U64, FIELD_VIA(struct mexec_row, e, cores)),
	SAME("machines", NULL, 0, FK_U64, FIELD_VIA(struct mexec_row, e, machines)),
	MEXEC_SIDE_FIELDS(slow, "slowest"),
	MEXEC_SIDE_FIELDS(fast, "fastest"),
	SAME("skew_ns", "skew", 12, FK_NS, FIELD_VIA(struct mexec_row, e, skew_ns)),
};
const struct field_table mexec_fields = FIELD_TABLE(mexec_columns);

/* One side of an execution index: "machine devD ncC". */
static void side_label(const struct xhost *x, const struct xhost_side *sd, char *buf,
		       size_t len)
{
	snprintf(buf, len, "%s dev%u nc%u", x->m[sd->machine].name, sd->dev, sd->core);
}

void mexec_row(struct mexec_row *r, const struct xhost *x, const struct xhost_exec *e)
{
	*r = (struct mexec_row){ .x = x, .e = e };
	side_label(x, &e->slow, r->slow, sizeof(r->slow));
	side_label(x, &e->fast, r->fast, sizeof(r->fast));
}

/* machines compared, the ops differing most: a row is a struct mop_row. */

FIELD_GET(mop_slow_machine, struct mop_row, s, r->x->m[r->x->slowest].name)
FIELD_GET(mop_median_machine, struct mop_row, s, r->x->m[r->x->median].name)

static const struct field mop_columns[] = {
	FIELD(NULL, "rank", NULL, 0, FK_U64, FIELD_AT(struct mop_row, rank)),
	SAME("op", "op", -18, FK_STR, FIELD_VIA(struct mop_row, d, name)),
	SAME("code", "code", -8, FK_CODE, FIELD_VIA(struct mop_row, d, code)),
	FIELD(NULL, "slowest_machine", NULL, 0, FK_STR, mop_slow_machine),
	SAME("slowest_count", "count", 8, FK_U64, FIELD_VIA(struct mop_row, d, slow_count)),
	SAME("slowest_total_ns", "slowest", 12, FK_NS, FIELD_VIA(struct mop_row, d, slow_total)),
	FIELD(NULL, "median_machine", NULL, 0, FK_STR, mop_median_machine),
	SAME("median_count", "count", 8, FK_U64, FIELD_VIA(struct mop_row, d, median_count)),
	SAME("median_total_ns", "median", 12, FK_NS, FIELD_VIA(struct mop_row, d, median_total)),
	SAME("difference_ns", "difference", 12, FK_SNS, FIELD_VIA(struct mop_row, d, diff_ns)),
};
const struct field_table mop_fields = FIELD_TABLE(mop_columns);
