// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): summary --csv DIR: one CSV file per section of every
 * recording, and of the machines compared (Documentation/analysis.rst),
 * each table's columns from analysis/summary_columns.h and each file
 * written by the rule of util/output.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ui/summary_csv.h"
#include "util/util.h"


enum csv_table {
	CSV_CORES, CSV_UNITS, CSV_OPS, CSV_GAPS, CSV_THROTTLE, CSV_ERRORS, CSV_MODELS,
	CSV_EXECUTIONS, CSV_HOST, CSV_LOSSES, CSV_RAW, CSV_XOPS, CSV_MACHINES, CSV_MEXEC,
	CSV_MOPS, CSV_LOSS_WINDOWS, CSV_OBSERVED, CSV_TABLES,
};
_Static_assert(CSV_TABLES == SUMMARY_CSV_TABLES, "summary_csv.h counts the tables");

/*
 * Each table: its file, its columns and, when not NULL, a first column
 * ahead of them (@lead; the machines compared span the recordings).
 */
#define PER_RECORDING	"recording"
static const struct {
	const char *name;
	const struct field_table *t;
	const char *lead;
} csv_tables[CSV_TABLES] = {
	[CSV_CORES] = { "cores.csv", &core_fields, PER_RECORDING },
	[CSV_UNITS] = { "units.csv", &unit_fields, PER_RECORDING },
	[CSV_OPS] = { "ops.csv", &unit_op_fields, PER_RECORDING },
	[CSV_GAPS] = { "idle_gaps.csv", &gap_fields, PER_RECORDING },
	[CSV_THROTTLE] = { "throttle.csv", &level_fields, PER_RECORDING },
	[CSV_ERRORS] = { "errors.csv", &err_fields, PER_RECORDING },
	[CSV_MODELS] = { "models.csv", &model_fields, PER_RECORDING },
	[CSV_EXECUTIONS] = { "executions.csv", &exec_fields, PER_RECORDING },
	[CSV_HOST] = { "host_events.csv", &host_fields, PER_RECORDING },
	[CSV_LOSSES] = { "losses.csv", &loss_fields, PER_RECORDING },
	[CSV_RAW] = { "raw_queues.csv", &raw_fields, PER_RECORDING },
	[CSV_XOPS] = { "ops_across_cores.csv", &xop_fields, PER_RECORDING },
	[CSV_MACHINES] = { "machines.csv", &machine_fields, NULL },
	[CSV_MEXEC] = { "machine_executions.csv", &mexec_fields, NULL },
	[CSV_MOPS] = { "machine_ops.csv", &mop_fields, NULL },
	[CSV_LOSS_WINDOWS] = { "loss_windows.csv", &loss_window_fields, PER_RECORDING },
	[CSV_OBSERVED] = { "observed.csv", &observed_fields, PER_RECORDING },
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

		if (asprintf(&path, "%s/%s", dir, csv_tables[i].name) < 0)
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
		fields_csv_header(o[i].f, csv_tables[i].t, csv_tables[i].lead);
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

int summary_csv_open(struct summary_csv *c, const char *dir)
{
	return csv_open(dir, c->o);
}

int summary_csv_write(struct summary_csv *c, const struct rec_stats *stats, size_t n,
		      const struct xhost *xh)
{
	FILE *f[CSV_TABLES];

	for (int i = 0; i < CSV_TABLES; i++)
		f[i] = c->o[i].f;
	for (size_t i = 0; i < n; i++)
		csv_recording(f, &stats[i]);
	if (xh)
		csv_xhost(f, xh);
	return csv_close(c->o, false);
}

void summary_csv_abort(struct summary_csv *c)
{
	csv_close(c->o, true);
}
