// SPDX-License-Identifier: MIT
/*
 * neuronprof summary: what a profile says about each NeuronCore, engine and
 * TopSP: when it was active, how much it executed (instructions, DMA
 * transfers, inferences), what went wrong (errors, throttling) and what
 * was lost. Losses are counted twice, independently: the lost counts the
 * rings recorded, and the gaps in the sequence numbers of the entries that
 * made it into the file. A gap can only be smaller than or equal to the
 * recorded loss (losses before the first or after the last entry of a
 * record leave no gap); a larger gap means entries vanished without being
 * counted, and is reported as such.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "profile.h"
#include "tool.h"

static const char summary_usage[] =
	"Usage: neuronprof summary [--json] PATH\n"
	"\n"
	"Summarize a profile: PATH is an NTFF file or a directory, searched\n"
	"recursively for .ntff files. Per NeuronCore, engine and TopSP: first and\n"
	"last timestamp, span and busy time, instruction (TRACE), EVENT and DMA\n"
	"counts, inferences, errors, throttling, recorded lost entries and the\n"
	"gaps found in sequence numbers.\n"
	"\n"
	"  --json        machine-readable output\n"
	"  -h, --help    this text\n";

/* Activity over a set of entries: first/last timestamps and busy time. */
struct span {
	uint64_t first, last;
	uint64_t busy_ns;	/* sum of matched start/stop slice durations */
	bool any;
};

static void span_add(struct span *s, uint64_t ts)
{
	if (!s->any || ts < s->first)
		s->first = ts;
	if (!s->any || ts > s->last)
		s->last = ts;
	s->any = true;
}

static void span_merge(struct span *to, const struct span *from)
{
	if (!from->any)
		return;
	span_add(to, from->first);
	span_add(to, from->last);
}

struct eng_stats {
	uint32_t engine;
	uint64_t instructions, events, event_slices, dma;
	struct span span;
};

struct topsp_stats {
	uint32_t topsp;
	uint64_t instructions, events, event_slices, errors, lost, gaps;
	struct span span;
};

struct core_stats {
	uint32_t dev, core, arch;
	char provider[16];
	uint64_t entries, inferences, infer_failed, errors, throttles, lost, gaps;
	uint32_t max_throttle;
	struct span span;	/* every queue of the core, TopSPs included */
	struct span infer;	/* INFER_STATUS only; busy = inference time */
	struct eng_stats *eng;
	size_t neng;
	struct topsp_stats *tsp;
	size_t ntsp;
};

/* A queue record whose sequence numbers or lost count say something was lost. */
struct loss {
	const char *file;
	size_t record;
	uint32_t queue_type, target_kind, target_index, engine;
	uint64_t lost, gaps;
};

struct summary {
	struct core_stats *cores;
	size_t ncores;
	struct loss *losses;
	size_t nlosses;
	uint64_t files, queues, entries;
};

static void *grow(void *v, size_t n, size_t size)
{
	/* Arrays grow by one element; they hold cores, engines and TopSPs. */
	void *p = realloc(v, (n + 1) * size);

	if (!p) {
		fail("out of memory");
		exit(EXIT_FAIL);
	}
	memset((char *)p + n * size, 0, size);
	return p;
}

static struct core_stats *core_get(struct summary *s, const struct prof_file *f, uint32_t core)
{
	uint32_t dev = f->info.device.device_index;
	struct core_stats *c;

	for (size_t i = 0; i < s->ncores; i++)
		if (s->cores[i].dev == dev && s->cores[i].core == core)
			return &s->cores[i];
	s->cores = grow(s->cores, s->ncores, sizeof(*s->cores));
	c = &s->cores[s->ncores++];
	c->dev = dev;
	c->core = core;
	c->arch = f->info.device.arch;
	snprintf(c->provider, sizeof(c->provider), "%s",
		 f->info.device.provider ? f->info.device.provider : "-");
	return c;
}

static struct eng_stats *eng_get(struct core_stats *c, uint32_t engine)
{
	for (size_t i = 0; i < c->neng; i++)
		if (c->eng[i].engine == engine)
			return &c->eng[i];
	c->eng = grow(c->eng, c->neng, sizeof(*c->eng));
	c->eng[c->neng].engine = engine;
	return &c->eng[c->neng++];
}

static struct topsp_stats *tsp_get(struct core_stats *c, uint32_t topsp)
{
	for (size_t i = 0; i < c->ntsp; i++)
		if (c->tsp[i].topsp == topsp)
			return &c->tsp[i];
	c->tsp = grow(c->tsp, c->ntsp, sizeof(*c->tsp));
	c->tsp[c->ntsp].topsp = topsp;
	return &c->tsp[c->ntsp++];
}

static bool same_queue(const struct nprof_ntff_queue *a, const struct nprof_ntff_queue *b)
{
	return a->queue_type == b->queue_type && a->target_kind == b->target_kind &&
	       a->target_index == b->target_index && a->engine == b->engine;
}

/* Gap between this record and the previous record of the same queue in the file. */
static uint64_t gap_before(const struct prof_file *f, size_t idx)
{
	const struct nprof_ntff_queue *q = &f->queues[idx];

	if (!q->entry_count)
		return 0;
	for (size_t i = idx; i-- > 0;) {
		const struct nprof_ntff_queue *p = &f->queues[i];

		if (!same_queue(p, q) || !p->entry_count)
			continue;
		return q->first_seq > p->last_seq + 1 ? q->first_seq - p->last_seq - 1 : 0;
	}
	return 0;
}

static void add_queue(struct summary *s, const struct prof_file *f, size_t idx)
{
	const struct nprof_ntff_queue *q = &f->queues[idx];
	struct core_stats *c = core_get(s, f, queue_core(f, q));
	struct eng_stats *eng = NULL;
	struct topsp_stats *tsp = NULL;
	struct nprof_ntff_entry_iter it;
	struct entry e, start = { 0 };
	bool open = false, have_prev = false;
	uint64_t prev_seq = 0, gaps = gap_before(f, idx);
	struct span qspan = { 0 };
	const void *p;

	/*
	 * The queue type alone decides where counts go, so a record whose
	 * target kind disagrees with its type still lands somewhere valid.
	 */
	switch (q->queue_type) {
	case NEURONPROF_QT_TRACE:
	case NEURONPROF_QT_EVENT:
	case NEURONPROF_QT_DMA:
		eng = eng_get(c, q->engine);
		break;
	case NEURONPROF_QT_TOPSP_TRACE:
	case NEURONPROF_QT_TOPSP_EVENT:
	case NEURONPROF_QT_TOPSP_ERROR:
		tsp = tsp_get(c, q->target_index);
		break;
	default:
		break;
	}

	nprof_ntff_entry_iter_init(&it, q);
	while ((p = nprof_ntff_entry_iter_next(&it))) {
		entry_decode(p, q->entry_size, &e);
		if (have_prev && e.seq > prev_seq + 1)
			gaps += e.seq - prev_seq - 1;
		prev_seq = e.seq;
		have_prev = true;
		span_add(&qspan, e.ts);

		switch (q->queue_type) {
		case NEURONPROF_QT_TRACE:
			eng->instructions++;
			break;
		case NEURONPROF_QT_DMA:
			eng->dma++;
			break;
		case NEURONPROF_QT_EVENT:
		case NEURONPROF_QT_TOPSP_EVENT:
			if (eng)
				eng->events++;
			else if (tsp)
				tsp->events++;
			if (e.code == EVENT_CODE_START) {
				start = e;
				open = true;
			} else if (e.code == EVENT_CODE_END && open) {
				if (eng) {
					eng->event_slices++;
					eng->span.busy_ns += e.ts - start.ts;
				} else if (tsp) {
					tsp->event_slices++;
					tsp->span.busy_ns += e.ts - start.ts;
				}
				open = false;
			}
			break;
		case NEURONPROF_QT_INFER_STATUS:
			span_add(&c->infer, e.ts);
			if (e.code == NEURONPROF_INFER_START) {
				start = e;
				open = true;
			} else if (e.code == NEURONPROF_INFER_STOP && open) {
				c->inferences++;
				c->infer.busy_ns += e.ts - start.ts;
				if (e.payload[0])
					c->infer_failed++;
				open = false;
			}
			break;
		case NEURONPROF_QT_ERROR:
			c->errors++;
			break;
		case NEURONPROF_QT_TOPSP_ERROR:
			tsp->errors++;
			break;
		case NEURONPROF_QT_THROTTLE:
			c->throttles++;
			if (e.code > c->max_throttle)
				c->max_throttle = e.code;
			break;
		case NEURONPROF_QT_TOPSP_TRACE:
			tsp->instructions++;
			break;
		default:
			break;
		}
	}
	c->entries += q->entry_count;
	c->lost += q->lost_count;
	c->gaps += gaps;
	span_merge(&c->span, &qspan);
	if (eng)
		span_merge(&eng->span, &qspan);
	if (tsp) {
		span_merge(&tsp->span, &qspan);
		tsp->lost += q->lost_count;
		tsp->gaps += gaps;
	}
	if (q->lost_count || gaps) {
		struct loss *l;

		s->losses = grow(s->losses, s->nlosses, sizeof(*s->losses));
		l = &s->losses[s->nlosses++];
		l->file = f->path;
		l->record = idx;
		l->queue_type = q->queue_type;
		l->target_kind = q->target_kind;
		l->target_index = q->target_index;
		l->engine = q->engine;
		l->lost = q->lost_count;
		l->gaps = gaps;
	}
}

static int cmp_core(const void *a, const void *b)
{
	const struct core_stats *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->core < y->core ? -1 : x->core > y->core;
}

static int cmp_eng(const void *a, const void *b)
{
	const struct eng_stats *x = a, *y = b;

	return x->engine < y->engine ? -1 : x->engine > y->engine;
}

static int cmp_tsp(const void *a, const void *b)
{
	const struct topsp_stats *x = a, *y = b;

	return x->topsp < y->topsp ? -1 : x->topsp > y->topsp;
}

static void build(struct summary *s, const struct profile *prof)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < prof->nfiles; i++) {
		const struct prof_file *f = &prof->files[i];

		s->files++;
		s->queues += f->nqueues;
		s->entries += f->entries;
		for (size_t k = 0; k < f->nqueues; k++)
			add_queue(s, f, k);
	}
	/* qsort() must not see the NULL of an empty array. */
	if (s->ncores > 1)
		qsort(s->cores, s->ncores, sizeof(*s->cores), cmp_core);
	for (size_t i = 0; i < s->ncores; i++) {
		if (s->cores[i].neng > 1)
			qsort(s->cores[i].eng, s->cores[i].neng, sizeof(*s->cores[i].eng), cmp_eng);
		if (s->cores[i].ntsp > 1)
			qsort(s->cores[i].tsp, s->cores[i].ntsp, sizeof(*s->cores[i].tsp), cmp_tsp);
	}
}

static void destroy(struct summary *s)
{
	for (size_t i = 0; i < s->ncores; i++) {
		free(s->cores[i].eng);
		free(s->cores[i].tsp);
	}
	free(s->cores);
	free(s->losses);
}

struct totals {
	uint64_t instructions, events, dma, inferences, infer_failed, errors, throttles, lost,
		 gaps, unexplained;
};

static void totals(const struct summary *s, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < s->ncores; i++) {
		const struct core_stats *c = &s->cores[i];

		for (size_t k = 0; k < c->neng; k++) {
			t->instructions += c->eng[k].instructions;
			t->events += c->eng[k].events;
			t->dma += c->eng[k].dma;
		}
		for (size_t k = 0; k < c->ntsp; k++) {
			t->instructions += c->tsp[k].instructions;
			t->events += c->tsp[k].events;
			t->errors += c->tsp[k].errors;
		}
		t->inferences += c->inferences;
		t->infer_failed += c->infer_failed;
		t->errors += c->errors;
		t->throttles += c->throttles;
		t->lost += c->lost;
		t->gaps += c->gaps;
	}
	for (size_t i = 0; i < s->nlosses; i++)
		if (s->losses[i].gaps > s->losses[i].lost)
			t->unexplained++;
}

static uint64_t span_ns(const struct span *s)
{
	return s->any ? s->last - s->first : 0;
}

static const char *engine_label(uint32_t engine, char *buf, size_t len)
{
	const char *n = engine_name(engine);

	if (n)
		snprintf(buf, len, "%u %s", engine, n);
	else
		snprintf(buf, len, "%u", engine);
	return buf;
}

static void print_text(const struct summary *s, const char *path)
{
	struct totals t;

	totals(s, &t);
	printf("profile %s: %" PRIu64 " file%s, %" PRIu64 " queue records, %" PRIu64
	       " entries\n", path, s->files, s->files == 1 ? "" : "s", s->queues, s->entries);
	for (size_t i = 0; i < s->ncores; i++) {
		const struct core_stats *c = &s->cores[i];

		printf("\ndevice %u (%s, %s) NeuronCore %u: %" PRIu64 " entries\n", c->dev,
		       arch_name(c->arch), c->provider, c->core, c->entries);
		printf("  active %" PRIu64 " .. %" PRIu64 " ns, span %" PRIu64 " ns\n",
		       c->span.first, c->span.last, span_ns(&c->span));
		printf("  inferences %" PRIu64 " (%" PRIu64 " failed), busy %" PRIu64 " ns\n",
		       c->inferences, c->infer_failed, c->infer.busy_ns);
		printf("  errors %" PRIu64 ", throttle events %" PRIu64 " (max level %u)\n",
		       c->errors, c->throttles, c->max_throttle);
		printf("  lost %" PRIu64 " recorded, %" PRIu64 " missing from sequence numbers\n",
		       c->lost, c->gaps);
		if (c->neng) {
			printf("  %-10s %12s %8s %8s %14s %14s %12s %12s\n", "engine", "instructions",
			       "events", "dma", "first_ns", "last_ns", "span_ns", "busy_ns");
			for (size_t k = 0; k < c->neng; k++) {
				const struct eng_stats *e = &c->eng[k];
				char lbl[32];

				printf("  %-10s %12" PRIu64 " %8" PRIu64 " %8" PRIu64 " %14" PRIu64
				       " %14" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
				       engine_label(e->engine, lbl, sizeof(lbl)), e->instructions,
				       e->events, e->dma, e->span.first, e->span.last,
				       span_ns(&e->span), e->span.busy_ns);
			}
		}
		for (size_t k = 0; k < c->ntsp; k++) {
			const struct topsp_stats *tp = &c->tsp[k];

			printf("  TopSP %u: instructions %" PRIu64 ", events %" PRIu64
			       ", errors %" PRIu64 ", span %" PRIu64 " ns, busy %" PRIu64
			       " ns, lost %" PRIu64 ", gaps %" PRIu64 "\n", tp->topsp,
			       tp->instructions, tp->events, tp->errors, span_ns(&tp->span),
			       tp->span.busy_ns, tp->lost, tp->gaps);
		}
	}
	printf("\ntotals: instructions %" PRIu64 ", events %" PRIu64 ", dma %" PRIu64
	       ", inferences %" PRIu64 " (%" PRIu64 " failed), errors %" PRIu64
	       ", throttle events %" PRIu64 ", lost %" PRIu64 ", sequence gaps %" PRIu64 "\n",
	       t.instructions, t.events, t.dma, t.inferences, t.infer_failed, t.errors,
	       t.throttles, t.lost, t.gaps);
	for (size_t i = 0; i < s->nlosses; i++) {
		const struct loss *l = &s->losses[i];

		printf("%s: %s record %zu (%s %s %u engine %u): lost %" PRIu64
		       " recorded, %" PRIu64 " missing from sequence numbers%s\n",
		       l->gaps > l->lost ? "warning" : "loss", l->file, l->record,
		       queue_name(l->queue_type),
		       l->target_kind == NEURONPROF_TARGET_TOPSP ? "topsp" : "core",
		       l->target_index, l->engine, l->lost, l->gaps,
		       l->gaps > l->lost ? ": entries vanished without being counted as lost" : "");
	}
}

static void span_json(struct json *j, const struct span *s)
{
	jw_u64(j, "first_ns", s->first);
	jw_u64(j, "last_ns", s->last);
	jw_u64(j, "span_ns", span_ns(s));
	jw_u64(j, "busy_ns", s->busy_ns);
}

static void print_json(const struct summary *s, const char *path)
{
	struct totals t;
	struct json j;

	totals(s, &t);
	jw_init(&j, stdout, true);
	jw_obj_begin(&j, NULL);
	jw_str(&j, "path", path);
	jw_u64(&j, "files", s->files);
	jw_u64(&j, "queue_records", s->queues);
	jw_u64(&j, "entries", s->entries);
	jw_arr_begin(&j, "cores");
	for (size_t i = 0; i < s->ncores; i++) {
		const struct core_stats *c = &s->cores[i];

		jw_obj_begin(&j, NULL);
		jw_u64(&j, "device", c->dev);
		jw_str(&j, "arch", arch_name(c->arch));
		jw_str(&j, "provider", c->provider);
		jw_u64(&j, "core", c->core);
		jw_u64(&j, "entries", c->entries);
		span_json(&j, &c->span);
		jw_u64(&j, "inferences", c->inferences);
		jw_u64(&j, "inferences_failed", c->infer_failed);
		jw_u64(&j, "inference_busy_ns", c->infer.busy_ns);
		jw_u64(&j, "errors", c->errors);
		jw_u64(&j, "throttle_events", c->throttles);
		jw_u64(&j, "max_throttle_level", c->max_throttle);
		jw_u64(&j, "lost", c->lost);
		jw_u64(&j, "seq_gaps", c->gaps);
		jw_arr_begin(&j, "engines");
		for (size_t k = 0; k < c->neng; k++) {
			const struct eng_stats *e = &c->eng[k];

			jw_obj_begin(&j, NULL);
			jw_u64(&j, "engine", e->engine);
			jw_str(&j, "name", engine_name(e->engine));
			jw_u64(&j, "instructions", e->instructions);
			jw_u64(&j, "events", e->events);
			jw_u64(&j, "event_slices", e->event_slices);
			jw_u64(&j, "dma", e->dma);
			span_json(&j, &e->span);
			jw_obj_end(&j);
		}
		jw_arr_end(&j);
		jw_arr_begin(&j, "topsps");
		for (size_t k = 0; k < c->ntsp; k++) {
			const struct topsp_stats *tp = &c->tsp[k];

			jw_obj_begin(&j, NULL);
			jw_u64(&j, "topsp", tp->topsp);
			jw_u64(&j, "instructions", tp->instructions);
			jw_u64(&j, "events", tp->events);
			jw_u64(&j, "event_slices", tp->event_slices);
			jw_u64(&j, "errors", tp->errors);
			jw_u64(&j, "lost", tp->lost);
			jw_u64(&j, "seq_gaps", tp->gaps);
			span_json(&j, &tp->span);
			jw_obj_end(&j);
		}
		jw_arr_end(&j);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_begin(&j, "totals");
	jw_u64(&j, "instructions", t.instructions);
	jw_u64(&j, "events", t.events);
	jw_u64(&j, "dma", t.dma);
	jw_u64(&j, "inferences", t.inferences);
	jw_u64(&j, "inferences_failed", t.infer_failed);
	jw_u64(&j, "errors", t.errors);
	jw_u64(&j, "throttle_events", t.throttles);
	jw_u64(&j, "lost", t.lost);
	jw_u64(&j, "seq_gaps", t.gaps);
	jw_u64(&j, "records_with_unexplained_gaps", t.unexplained);
	jw_obj_end(&j);
	jw_arr_begin(&j, "losses");
	for (size_t i = 0; i < s->nlosses; i++) {
		const struct loss *l = &s->losses[i];

		jw_obj_begin(&j, NULL);
		jw_str(&j, "file", l->file);
		jw_u64(&j, "record", l->record);
		jw_str(&j, "queue_type", queue_name(l->queue_type));
		jw_str(&j, "target_kind",
			 l->target_kind == NEURONPROF_TARGET_TOPSP ? "topsp" : "core");
		jw_u64(&j, "target_index", l->target_index);
		jw_u64(&j, "engine", l->engine);
		jw_u64(&j, "lost", l->lost);
		jw_u64(&j, "seq_gaps", l->gaps);
		jw_bool(&j, "explained", l->gaps <= l->lost);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_finish(&j);
}

int cmd_summary(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct profile prof;
	struct summary s;
	bool json = false;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(summary_usage, stdout);
			return 0;
		default:
			return option_error(c, argv);
		}
	}
	if (check_operands(argc, argv, 1, "PATH"))
		return EXIT_USAGE;
	if (profile_load(argv[optind], &prof))
		return EXIT_FAIL;
	build(&s, &prof);
	if (json)
		print_json(&s, argv[optind]);
	else
		print_text(&s, argv[optind]);
	destroy(&s);
	profile_free(&prof);
	return flush_stdout();
}
