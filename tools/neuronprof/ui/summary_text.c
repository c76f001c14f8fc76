// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): summary's text output (Documentation/analysis.rst): per
 * recording its cores (or one row each with --brief), the ops across
 * cores, models and executions, the host trace, totals, raw queues and
 * losses, then the machines compared; every table's columns from
 * analysis/summary_columns.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/summary_text.h"
#include "analysis/names.h"
#include "util/util.h"

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

void summary_text(const struct rec_stats *stats, size_t n, const struct xhost *xh,
		  unsigned int top, bool ns, bool brief_)
{
	raw_ns = ns;
	brief = brief_;
	for (size_t i = 0; i < n; i++) {
		if (i)
			printf("\n");
		text_recording(&stats[i]);
	}
	if (xh)
		text_xhost(xh, top);
}
