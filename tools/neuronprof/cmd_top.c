// SPDX-License-Identifier: MIT
/*
 * neuronprof top: a live view of one device.
 *
 * It subscribes every queue of every core and TopSP of the device the
 * library knows, with record's ring size (1 MiB) and watermark (a quarter
 * of the ring), sleeps in poll() on the subscriptions' descriptors and
 * consumes a ring in place whenever it reaches its watermark, as record's
 * drainer does; the display refreshes on its own interval. What it reads is
 * folded into per-interval figures: per core and engine the utilisation as
 * summary defines it (busy time, the instructions' durations, over the
 * core's active span in the interval; a core's busy time is the union of
 * its engines' instruction intervals), instructions per second (TRACE
 * entries), inferences per second and their latency (INFER_STATUS start to
 * stop), DMA bandwidth (the bytes of DMA entries), the last throttle level,
 * and per queue the highest fill seen before a drain and the notifications
 * lost. Nothing is written to disk; the subscriptions are closed on exit,
 * which gives the queues back. A queue that another process already
 * captures (EBUSY) is shown as busy and left alone.
 *
 * Modes: an ANSI screen on a terminal (redrawn every interval, follows
 * resizes, q quits); --batch, a text block per interval; --json, one JSON
 * object per line per interval. SIGINT and SIGTERM end every mode after a
 * last sample (taken after a flush), so a script can stop it and read the
 * totals, which count everything seen since the start.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/config.h>
#include <neuronprof/device.h>
#include <neuronprof/ntff.h>

#include "util/json.h"
#include "tool.h"

#define TOP_INTERVAL_MIN_MS	100
#define TOP_RING_DEFAULT	(1ULL << 20)	/* record's */
#define EVENT_END		2

static const char top_usage[] =
	"Usage: neuronprof top [--device N] [--interval MS] [--ring-size BYTES]\n"
	"                      [--batch | --json] [-n N | --count N]\n"
	"\n"
	"A live view of a device, refreshed every interval: per core and engine the\n"
	"utilisation (as summary defines it), instructions/s, inferences/s and their\n"
	"latency, DMA bandwidth and throttle level; per queue the fill and the\n"
	"notifications lost. Rings are drained whenever they reach a quarter full,\n"
	"as record drains them. It only observes (no file is written) and gives the\n"
	"queues back when it exits.\n"
	"On a terminal: a screen that follows resizes; q quits.\n"
	"\n"
	"  --device N         device index (default: the first)\n"
	"  --interval MS      sample interval (default 1000, at least 100)\n"
	"  --ring-size BYTES  ring per queue, 4K to 64M (default 1M, as record; K, M,\n"
	"                     G suffixes)\n"
	"  --batch            a text sample per interval on stdout\n"
	"  --json             a JSON sample per line per interval on stdout\n"
	"  -n, --count N      stop after N samples, as top -n and perf top do\n"
	"                     (default: until q, ^C or SIGTERM)\n"
	"  -h, --help         this text\n";

enum { OPT_DEVICE = 256, OPT_INTERVAL, OPT_RING, OPT_BATCH, OPT_JSON, OPT_COUNT };

enum top_mode { TOP_SCREEN, TOP_BATCH, TOP_JSON };

struct top_queue {
	struct nprof_nq *nq;		/* NULL: not subscribed (busy) */
	uint32_t kind, index, type, engine;
	uint32_t core;			/* the core it belongs to */
	uint64_t ring_size;
	uint64_t lost_base;		/* at subscription */
	uint64_t lost_mark;		/* at the last sample */
	uint64_t fill_max;		/* bytes unread at a drain, this interval */
	uint64_t entries;		/* total consumed */
};

struct u64v {
	uint64_t *v;
	size_t n, cap;
};

struct top_iv {
	uint64_t start, end;
};

/*
 * Figures of an interval (i_*) and since the start (t_*). An instruction
 * (TRACE entry) lasts, as in summary, until the next entry of its queue,
 * bounded by the end of the engine's EVENT window and by the stop of the
 * core's inference that contain it; the timestamps of an interval are kept
 * until the sample settles them, since the queues are drained one by one.
 */
struct top_engine {
	struct u64v tr;			/* TRACE timestamps of the interval */
	struct u64v ev_end;		/* EVENT end timestamps of the interval */
	uint64_t pend;			/* an instruction whose end is not known yet */
	bool have_pend;
	uint64_t i_busy_ns, i_instr;
	uint64_t t_instr;
};

struct top_core {
	struct top_engine eng[NPROF_MAX_ENGINES];
	struct u64v stops;		/* INFER_STATUS stops of the interval */
	struct top_iv *iv;		/* instruction intervals of the interval */
	size_t niv, iv_cap;
	uint64_t i_first, i_last;	/* the core's active span in the interval */
	bool i_any;
	uint64_t i_busy_ns;		/* the union of iv */
	uint64_t infer_ts;		/* the last INFER_STATUS start, 0 if none */
	uint64_t i_execs, i_lat_sum, i_lat_max, i_dma_bytes, i_dma;
	uint64_t t_execs, t_instr, t_dma, t_dma_bytes, t_errors;
	uint32_t throttle_level, throttle_pct;
};

struct top {
	struct nprof_device *dev;
	struct nprof_device_info info;
	struct top_queue *q;
	size_t nq, busy;
	struct top_core *cores;
	enum top_mode mode;
	uint64_t interval_ns, count, samples;
	uint64_t start_ns, mark_ns;
	bool oom;
	bool screen_on;			/* the alternate screen is shown */
	bool tty_raw;
	struct termios saved;
};

static volatile sig_atomic_t top_quit, top_resized;

static void on_quit(int sig)
{
	(void)sig;
	top_quit = 1;
}

static void on_winch(int sig)
{
	(void)sig;
	top_resized = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- queues ---------------------------------------------------------------- */

static int add_queue(struct top *t, uint32_t kind, uint32_t index, uint32_t type,
		     uint32_t engine, uint32_t core, uint64_t ring)
{
	struct nprof_nq_params p = {
		.size = sizeof(p), .target_kind = kind, .target_index = index,
		.queue_type = type, .engine = engine, .ring_size = ring,
		/* record's watermark: poll() reports a quarter-full ring */
		.watermark = (uint32_t)(nprof_device_ring_size(t->dev, ring) / 4),
	};
	struct top_queue *q = &t->q[t->nq++];

	q->kind = kind;
	q->index = index;
	q->type = type;
	q->engine = engine;
	q->core = core;
	q->ring_size = nprof_device_ring_size(t->dev, ring);
	q->nq = nprof_nq_subscribe(t->dev, &p);
	if (!q->nq) {
		if (errno != EBUSY)
			return fail("cannot subscribe %s %u %s engine %u: %s",
				    kind == NPROF_TARGET_CORE ? "core" : "TopSP", index,
				    queue_name(type), engine, nprof_strerror_last());
		t->busy++;
		return 0;
	}
	q->lost_base = q->lost_mark = 0;
	return 0;
}

/* Every queue type the library knows, on every core and TopSP. */
static int subscribe_all(struct top *t, uint64_t ring)
{
	const struct nprof_device_info *in = &t->info;
	uint32_t per = in->num_cores ? in->num_topsps / in->num_cores : 0;
	size_t max = (size_t)(in->num_cores * NPROF_QUEUE_TYPES * NPROF_MAX_ENGINES +
			      in->num_topsps * NPROF_QUEUE_TYPES);

	t->q = calloc(max ? max : 1, sizeof(*t->q));
	if (!t->q)
		return fail("out of memory");
	for (uint32_t c = 0; c < in->num_cores; c++) {
		for (uint32_t ty = 0; ty < NPROF_QUEUE_TYPES; ty++) {
			uint32_t engines;

			if (!(in->core_queue_types & (1u << ty)))
				continue;
			engines = in->per_engine_queue_types & (1u << ty) ? in->engines_per_core : 1;
			for (uint32_t e = 0; e < engines && e < NPROF_MAX_ENGINES; e++)
				if (add_queue(t, NPROF_TARGET_CORE, c, ty, e, c, ring))
					return EXIT_FAIL;
		}
	}
	for (uint32_t s = 0; per && s < in->num_topsps; s++)
		for (uint32_t ty = 0; ty < NPROF_QUEUE_TYPES; ty++)
			if ((in->topsp_queue_types & (1u << ty)) &&
			    add_queue(t, NPROF_TARGET_TOPSP, s, ty, 0, s / per, ring))
				return EXIT_FAIL;
	if (t->busy == t->nq)
		return fail("every queue of %s is captured by another process: nothing to observe",
			    nprof_device_path(t->dev));
	return 0;
}

/* ---- folding entries ---------------------------------------------------------- */

static void push(struct top *t, struct u64v *a, uint64_t v)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		uint64_t *nv = realloc(a->v, cap * sizeof(*nv));

		if (!nv) {
			t->oom = true;
			return;
		}
		a->v = nv;
		a->cap = cap;
	}
	a->v[a->n++] = v;
}

static void fold(struct top *t, const struct top_queue *q, const struct neuronprof_notification *n)
{
	struct top_core *c = &t->cores[q->core];
	struct top_engine *e = &c->eng[n->engine < NPROF_MAX_ENGINES ? n->engine : 0];
	uint64_t ts = n->timestamp_ns;

	if (!c->i_any || ts < c->i_first)
		c->i_first = ts;
	if (!c->i_any || ts > c->i_last)
		c->i_last = ts;
	c->i_any = true;
	switch (n->queue_type) {
	case NEURONPROF_QT_TRACE:
		e->i_instr++;
		e->t_instr++;
		c->t_instr++;
		push(t, &e->tr, ts);
		break;
	case NEURONPROF_QT_EVENT:
		if (n->code == EVENT_END)
			push(t, &e->ev_end, ts);
		break;
	case NEURONPROF_QT_INFER_STATUS:
		if (n->code == NEURONPROF_INFER_START) {
			c->infer_ts = n->timestamp_ns;
		} else if (n->code == NEURONPROF_INFER_STOP) {
			push(t, &c->stops, ts);
			uint64_t lat = c->infer_ts ? n->timestamp_ns - c->infer_ts : 0;

			c->i_execs++;
			c->t_execs++;
			c->i_lat_sum += lat;
			if (lat > c->i_lat_max)
				c->i_lat_max = lat;
			c->infer_ts = 0;
		}
		break;
	case NEURONPROF_QT_DMA:
		c->i_dma++;
		c->t_dma++;
		c->i_dma_bytes += n->payload[0];
		c->t_dma_bytes += n->payload[0];
		break;
	case NEURONPROF_QT_THROTTLE:
		c->throttle_level = n->code;
		c->throttle_pct = (uint32_t)n->payload[0];
		break;
	case NEURONPROF_QT_ERROR:
		c->t_errors++;
		break;
	default:
		break;
	}
}

/* Consume one ring; @flush asks the device for in-flight notifications first. */
static void drain_queue(struct top *t, struct top_queue *q, bool flush)
{
	struct nprof_ring *ring;
	struct nprof_ring_spans sp;
	int n;

	if (!q->nq)
		return;
	if (flush) {
		struct nprof_nq_drain_state st = { .size = sizeof(st) };

		nprof_nq_drain(q->nq, NPROF_NQ_DRAIN_FLUSH, &st);
	}
	ring = nprof_nq_ring(q->nq);
	n = nprof_ring_peek(ring, &sp);
	if (n <= 0)
		return;
	if (sp.end - sp.begin > q->fill_max)
		q->fill_max = sp.end - sp.begin;
	for (int s = 0; s < 2; s++)
		for (size_t off = 0; off < sp.len[s]; off += t->info.entry_size)
			fold(t, q, (const void *)((const char *)sp.ptr[s] + off));
	q->entries += (uint64_t)n;
	nprof_ring_release(ring, sp.end);
}

/* Consume every ring. */
static void drain(struct top *t, bool flush)
{
	for (size_t i = 0; i < t->nq; i++)
		drain_queue(t, &t->q[i], flush);
}

/* ---- settling an interval: instruction durations and busy time ---------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_iv(const void *a, const void *b)
{
	const struct top_iv *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static void iv_add(struct top *t, struct top_core *c, uint64_t start, uint64_t end)
{
	if (end <= start)
		return;
	/* Instructions of a queue follow each other: extend the last interval. */
	if (c->niv && start >= c->iv[c->niv - 1].start && start <= c->iv[c->niv - 1].end) {
		if (end > c->iv[c->niv - 1].end)
			c->iv[c->niv - 1].end = end;
		return;
	}
	if (c->niv == c->iv_cap) {
		size_t cap = c->iv_cap ? c->iv_cap * 2 : 256;
		struct top_iv *n = realloc(c->iv, cap * sizeof(*n));

		if (!n) {
			t->oom = true;
			return;
		}
		c->iv = n;
		c->iv_cap = cap;
	}
	c->iv[c->niv++] = (struct top_iv){ start, end };
}

/* The first value of sorted @a at or after @ts from *@k on, else UINT64_MAX. */
static uint64_t first_from(const struct u64v *a, size_t *k, uint64_t ts)
{
	while (*k < a->n && a->v[*k] < ts)
		(*k)++;
	return *k < a->n ? a->v[*k] : UINT64_MAX;
}

/* An engine's instructions of the interval get their durations. */
static void settle_engine(struct top *t, struct top_core *c, struct top_engine *e)
{
	size_t ke = 0, ks = 0;

	qsort(e->tr.v, e->tr.n, sizeof(uint64_t), cmp_u64);
	qsort(e->ev_end.v, e->ev_end.n, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i <= e->tr.n; i++) {
		uint64_t ts, next, end;

		if (i == 0) {
			if (!e->have_pend)
				continue;
			ts = e->pend;
		} else {
			ts = e->tr.v[i - 1];
		}
		next = i < e->tr.n ? e->tr.v[i] : UINT64_MAX;
		end = first_from(&e->ev_end, &ke, ts);
		if (next < end)
			end = next;
		next = first_from(&c->stops, &ks, ts);
		if (next < end)
			end = next;
		if (end == UINT64_MAX) {
			/* The last one, whose end a later drain tells. */
			e->pend = ts;
			e->have_pend = true;
			break;
		}
		e->have_pend = false;
		e->i_busy_ns += end - ts;
		iv_add(t, c, ts, end);
	}
	e->tr.n = e->ev_end.n = 0;
}

/*
 * The core's busy time: the union of its engines' instruction intervals
 * settled since the sample began (a redraw on a resize settles early).
 */
static void settle_core(struct top *t, struct top_core *c)
{
	uint64_t total = 0, end = 0;

	qsort(c->stops.v, c->stops.n, sizeof(uint64_t), cmp_u64);
	for (uint32_t e = 0; e < NPROF_MAX_ENGINES; e++)
		settle_engine(t, c, &c->eng[e]);
	if (c->niv > 1)
		qsort(c->iv, c->niv, sizeof(*c->iv), cmp_iv);
	for (size_t i = 0; i < c->niv; i++) {
		uint64_t from = i && c->iv[i].start < end ? end : c->iv[i].start;

		if (c->iv[i].end > from)
			total += c->iv[i].end - from;
		if (!i || c->iv[i].end > end)
			end = c->iv[i].end;
	}
	c->i_busy_ns += total;
	c->niv = 0;
	c->stops.n = 0;
}

/* The core's active span in the interval: first to last timestamp. */
static uint64_t span_of(const struct top_core *c)
{
	return c->i_any ? c->i_last - c->i_first : 0;
}

static uint64_t queue_lost(const struct top_queue *q)
{
	struct nprof_ring_state st = { .size = sizeof(st) };

	if (!q->nq || nprof_ring_get_state(nprof_nq_ring(q->nq), &st))
		return 0;
	return st.lost - q->lost_base;
}

/* ---- output ---------------------------------------------------------------- */

static uint64_t per_s(uint64_t n, uint64_t ns)
{
	return ns ? (uint64_t)((double)n * 1e9 / (double)ns + 0.5) : 0;
}

static unsigned int pct(uint64_t part, uint64_t whole)
{
	double v = whole ? 100.0 * (double)part / (double)whole : 0;

	return v > 100 ? 100 : (unsigned int)(v + 0.5);
}

static const char *target_name(uint32_t kind)
{
	return kind == NPROF_TARGET_CORE ? "core" : "topsp";
}

static void sample_json(struct top *t, uint64_t dt, bool last)
{
	struct json j;

	jw_init(&j, stdout, false);
	jw_obj_begin(&j, NULL);
	jw_u64(&j, "sample", t->samples);
	jw_bool(&j, "final", last);
	jw_u64(&j, "elapsed_ns", now_ns() - t->start_ns);
	jw_u64(&j, "interval_ns", dt);
	jw_u64(&j, "device", t->info.device_index);
	jw_u64(&j, "busy_queues", t->busy);
	jw_arr_begin(&j, "cores");
	for (uint32_t c = 0; c < t->info.num_cores; c++) {
		struct top_core *k = &t->cores[c];

		jw_obj_begin(&j, NULL);
		jw_u64(&j, "core", c);
		jw_u64(&j, "span_ns", span_of(k));
		jw_u64(&j, "busy_ns", k->i_busy_ns);
		jw_u64(&j, "utilization_pct", pct(k->i_busy_ns, span_of(k)));
		jw_u64(&j, "inferences", k->i_execs);
		jw_u64(&j, "inferences_per_s", per_s(k->i_execs, dt));
		jw_u64(&j, "latency_avg_ns", k->i_execs ? k->i_lat_sum / k->i_execs : 0);
		jw_u64(&j, "latency_max_ns", k->i_lat_max);
		jw_u64(&j, "dma_transfers", k->i_dma);
		jw_u64(&j, "dma_bytes_per_s", per_s(k->i_dma_bytes, dt));
		jw_u64(&j, "throttle_level", k->throttle_level);
		jw_u64(&j, "throttle_percent", k->throttle_pct);
		jw_arr_begin(&j, "engines");
		for (uint32_t e = 0; e < t->info.engines_per_core && e < NPROF_MAX_ENGINES; e++) {
			jw_obj_begin(&j, NULL);
			jw_u64(&j, "engine", e);
			jw_str(&j, "name", engine_name(e));
			jw_u64(&j, "busy_ns", k->eng[e].i_busy_ns);
			jw_u64(&j, "utilization_pct", pct(k->eng[e].i_busy_ns, span_of(k)));
			jw_u64(&j, "instructions", k->eng[e].i_instr);
			jw_u64(&j, "instructions_per_s", per_s(k->eng[e].i_instr, dt));
			jw_u64(&j, "total_instructions", k->eng[e].t_instr);
			jw_obj_end(&j);
		}
		jw_arr_end(&j);
		jw_obj_begin(&j, "totals");
		jw_u64(&j, "inferences", k->t_execs);
		jw_u64(&j, "instructions", k->t_instr);
		jw_u64(&j, "dma_transfers", k->t_dma);
		jw_u64(&j, "dma_bytes", k->t_dma_bytes);
		jw_u64(&j, "errors", k->t_errors);
		jw_obj_end(&j);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_arr_begin(&j, "queues");
	for (size_t i = 0; i < t->nq; i++) {
		struct top_queue *q = &t->q[i];
		uint64_t lost = queue_lost(q);

		jw_obj_begin(&j, NULL);
		jw_str(&j, "target", target_name(q->kind));
		jw_u64(&j, "index", q->index);
		jw_str(&j, "type", queue_name(q->type));
		jw_u64(&j, "engine", q->engine);
		jw_bool(&j, "busy", !q->nq);
		jw_u64(&j, "fill_percent", pct(q->fill_max, q->ring_size));
		jw_u64(&j, "lost", lost - q->lost_mark);
		jw_u64(&j, "total_lost", lost);
		jw_u64(&j, "total_entries", q->entries);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_finish(&j);
	fputc('\n', stdout);
	fflush(stdout);
}

/* One line per core, then one per engine: the text of --batch and of the screen. */
static int core_lines(struct top *t, uint64_t dt, char lines[][160], int max)
{
	int n = 0;

	for (uint32_t c = 0; c < t->info.num_cores && n < max; c++) {
		struct top_core *k = &t->cores[c];

		snprintf(lines[n++], 160,
			 "NC%-3u util %3u%%  infer/s %7" PRIu64 "  lat avg %9.1f us max %9.1f us  DMA %9.2f MB/s  throttle %u (%u%%)",
			 c, pct(k->i_busy_ns, span_of(k)), per_s(k->i_execs, dt),
			 k->i_execs ? (double)k->i_lat_sum / (double)k->i_execs / 1e3 : 0.0,
			 (double)k->i_lat_max / 1e3, (double)per_s(k->i_dma_bytes, dt) / 1e6,
			 k->throttle_level, k->throttle_pct);
		for (uint32_t e = 0; e < t->info.engines_per_core && e < NPROF_MAX_ENGINES && n < max;
		     e++) {
			const char *name = engine_name(e);

			snprintf(lines[n++], 160, "      %-7s util %3u%%  instr/s %10" PRIu64, name ? name : "?",
				 pct(k->eng[e].i_busy_ns, span_of(k)), per_s(k->eng[e].i_instr, dt));
		}
	}
	return n;
}

static int queue_line(struct top *t, const struct top_queue *q, char *buf, size_t len)
{
	uint64_t lost = queue_lost(q);

	(void)t;
	if (!q->nq)
		return snprintf(buf, len, "%-5s %-3u %-12s e%u  busy (captured elsewhere)",
				target_name(q->kind), q->index, queue_name(q->type), q->engine);
	return snprintf(buf, len, "%-5s %-3u %-12s e%u  fill %3u%%  lost %8" PRIu64 "  total lost %10" PRIu64,
			target_name(q->kind), q->index, queue_name(q->type), q->engine,
			pct(q->fill_max, q->ring_size), lost - q->lost_mark, lost);
}

static void sample_batch(struct top *t, uint64_t dt, bool last)
{
	static char lines[NPROF_MAX_CORES * (1 + NPROF_MAX_ENGINES)][160];
	char buf[160];
	int n = core_lines(t, dt, lines, (int)(sizeof(lines) / sizeof(lines[0])));

	printf("sample %" PRIu64 "%s  elapsed %.1f s  interval %.3f s\n", t->samples,
	       last ? " (final)" : "", (double)(now_ns() - t->start_ns) / 1e9, (double)dt / 1e9);
	for (int i = 0; i < n; i++)
		printf("%s\n", lines[i]);
	for (size_t i = 0; i < t->nq; i++) {
		const struct top_queue *q = &t->q[i];

		/* Only the queues with something to say. */
		if (q->nq && !q->fill_max && queue_lost(q) == q->lost_mark)
			continue;
		queue_line(t, q, buf, sizeof(buf));
		printf("  %s\n", buf);
	}
	printf("\n");
	fflush(stdout);
}

static void screen_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

static void sample_screen(struct top *t, uint64_t dt)
{
	static char lines[NPROF_MAX_CORES * (1 + NPROF_MAX_ENGINES)][160];
	char buf[160];
	int rows, cols, row = 0, n;

	screen_size(&rows, &cols);
	n = core_lines(t, dt, lines, (int)(sizeof(lines) / sizeof(lines[0])));
	fputs("\033[H\033[2J", stdout);
	printf("\033[7m%-*.*s\033[0m\n", cols, cols, "");
	printf("\033[H\033[7mneuronprof top  %s  device %u (%s, %u cores)  every %.1f s  q quits\033[0m\n",
	       nprof_device_path(t->dev), t->info.device_index, arch_name(t->info.arch),
	       t->info.num_cores, (double)t->interval_ns / 1e9);
	row++;
	for (int i = 0; i < n && row < rows - 1; i++, row++)
		printf("%.*s\n", cols, lines[i]);
	if (row < rows - 1) {
		printf("\n");
		row++;
	}
	for (size_t i = 0; i < t->nq && row < rows - 1; i++, row++) {
		queue_line(t, &t->q[i], buf, sizeof(buf));
		printf("%.*s\n", cols, buf);
	}
	fflush(stdout);
}

/* End an interval: print it, then start the next one. */
static void sample(struct top *t, bool last)
{
	uint64_t now = now_ns(), dt = now - t->mark_ns;

	for (uint32_t c = 0; c < t->info.num_cores; c++)
		settle_core(t, &t->cores[c]);
	t->samples++;
	if (t->mode == TOP_JSON)
		sample_json(t, dt, last);
	else if (t->mode == TOP_BATCH)
		sample_batch(t, dt, last);
	else
		sample_screen(t, dt);
	for (uint32_t c = 0; c < t->info.num_cores; c++) {
		struct top_core *k = &t->cores[c];

		k->i_execs = k->i_lat_sum = k->i_lat_max = k->i_dma = k->i_dma_bytes = 0;
		k->i_busy_ns = 0;
		k->i_any = false;
		for (uint32_t e = 0; e < NPROF_MAX_ENGINES; e++)
			k->eng[e].i_busy_ns = k->eng[e].i_instr = 0;
	}
	for (size_t i = 0; i < t->nq; i++) {
		t->q[i].fill_max = 0;
		t->q[i].lost_mark = queue_lost(&t->q[i]);
	}
	t->mark_ns = now;
}

/* ---- terminal --------------------------------------------------------------- */

static void screen_enter(struct top *t)
{
	struct termios raw;

	if (!tcgetattr(STDIN_FILENO, &t->saved)) {
		raw = t->saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		t->tty_raw = !tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	/* The alternate screen, without a cursor. */
	fputs("\033[?1049h\033[?25l", stdout);
	fflush(stdout);
	t->screen_on = true;
}

static void screen_leave(struct top *t)
{
	if (!t->screen_on)
		return;
	t->screen_on = false;
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	if (t->tty_raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &t->saved);
}

/*
 * Sleep in poll() until @deadline (CLOCK_MONOTONIC ns): drain each ring that
 * reaches its watermark as soon as it does, as record's drainer does; on the
 * screen, read keys (q quits). @pfd has a slot for stdin then one per queue.
 */
static void wait_drain(struct top *t, struct pollfd *pfd, uint64_t deadline)
{
	uint64_t now;

	while (!top_quit && !(top_resized && t->mode == TOP_SCREEN) &&
	       (now = now_ns()) < deadline) {
		int ms = (int)((deadline - now + 999999) / 1000000);
		int n = poll(pfd, t->nq + 1, ms);
		char c;

		if (n <= 0)
			continue;	/* the deadline, or a signal */
		if ((pfd[0].revents & POLLIN) && read(STDIN_FILENO, &c, 1) == 1 &&
		    (c == 'q' || c == 'Q'))
			top_quit = 1;
		for (size_t i = 0; i < t->nq; i++) {
			short re = pfd[i + 1].revents;

			if (re & POLLIN)
				drain_queue(t, &t->q[i], false);
			if (re & (POLLHUP | POLLERR | POLLNVAL)) {
				/* The device is gone: what is left, then no more polling. */
				drain_queue(t, &t->q[i], false);
				pfd[i + 1].fd = -1;
			}
		}
	}
}

/* ---- the command -------------------------------------------------------------- */

static void top_free(struct top *t)
{
	for (size_t i = 0; t->q && i < t->nq; i++)
		nprof_nq_close(t->q[i].nq);	/* gives the queue back */
	for (uint32_t c = 0; t->cores && c < t->info.num_cores; c++) {
		free(t->cores[c].stops.v);
		free(t->cores[c].iv);
		for (uint32_t e = 0; e < NPROF_MAX_ENGINES; e++) {
			free(t->cores[c].eng[e].tr.v);
			free(t->cores[c].eng[e].ev_end.v);
		}
	}
	free(t->q);
	free(t->cores);
	nprof_device_close(t->dev);
}

int cmd_top(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "ring-size", required_argument, NULL, OPT_RING },
		{ "batch", no_argument, NULL, OPT_BATCH },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction quit = { .sa_handler = on_quit }, winch = { .sa_handler = on_winch };
	struct pollfd *pfd = NULL;
	uint64_t device = 0, interval_ms = 1000, ring = TOP_RING_DEFAULT, next;
	bool device_given = false;
	struct top t;
	int c, ret;

	memset(&t, 0, sizeof(t));
	t.mode = TOP_SCREEN;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hn:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DEVICE:
			if (parse_u64("--device", optarg, 0, INT32_MAX, false, &device))
				return EXIT_USAGE;
			device_given = true;
			break;
		case OPT_INTERVAL:
			if (parse_u64("--interval", optarg, TOP_INTERVAL_MIN_MS, 3600000, false, &interval_ms))
				return EXIT_USAGE;
			break;
		case OPT_RING:
			if (parse_u64("--ring-size", optarg, 4096, 64ULL << 20, true, &ring))
				return EXIT_USAGE;
			break;
		case OPT_BATCH:
		case OPT_JSON:
			if (t.mode != TOP_SCREEN)
				return usage_error("--batch and --json exclude each other");
			t.mode = c == OPT_BATCH ? TOP_BATCH : TOP_JSON;
			break;
		case 'n':
		case OPT_COUNT:
			if (parse_u64(c == 'n' ? "-n" : "--count", optarg, 1, UINT64_MAX, false, &t.count))
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(top_usage, stdout);
			return 0;
		default:
			return option_error(c, argv);
		}
	}
	if (check_operands(argc, argv, 0, NULL))
		return EXIT_USAGE;
	if (t.mode == TOP_SCREEN && !isatty(STDOUT_FILENO))
		return usage_error("stdout is not a terminal: use --batch or --json");

	t.dev = nprof_device_open(device_given ? (int)device : NPROF_DEVICE_ANY, 0);
	if (!t.dev)
		return fail("%s", nprof_strerror_last());
	t.info.size = sizeof(t.info);
	if (nprof_device_get_info(t.dev, &t.info)) {
		ret = fail("%s", nprof_strerror_last());
		goto out;
	}
	t.cores = calloc(t.info.num_cores ? t.info.num_cores : 1, sizeof(*t.cores));
	if (!t.cores) {
		ret = fail("out of memory");
		goto out;
	}
	ret = subscribe_all(&t, ring);
	if (ret)
		goto out;
	if (t.busy)
		warn("%zu of %zu queues are captured by another process: they are shown as busy",
		     t.busy, t.nq);
	pfd = calloc(t.nq + 1, sizeof(*pfd));
	if (!pfd) {
		ret = fail("out of memory");
		goto out;
	}
	pfd[0] = (struct pollfd){ .fd = t.mode == TOP_SCREEN ? STDIN_FILENO : -1, .events = POLLIN };
	for (size_t i = 0; i < t.nq; i++)
		pfd[i + 1] = (struct pollfd){ .fd = t.q[i].nq ? nprof_nq_fd(t.q[i].nq) : -1,
					      .events = POLLIN };

	sigaction(SIGINT, &quit, NULL);
	sigaction(SIGTERM, &quit, NULL);
	sigaction(SIGHUP, &quit, NULL);
	sigaction(SIGWINCH, &winch, NULL);
	if (t.mode == TOP_SCREEN)
		screen_enter(&t);
	t.interval_ns = interval_ms * 1000000ULL;
	t.start_ns = t.mark_ns = now_ns();
	next = t.start_ns + t.interval_ns;
	/*
	 * A first sample at once: a script knows from it that the queues are
	 * watched; the screen shows the device before the first interval ends.
	 */
	if (t.mode != TOP_SCREEN)
		sample(&t, false);
	else
		sample_screen(&t, 0);
	while (!top_quit && (!t.count || t.samples < t.count)) {
		wait_drain(&t, pfd, next);
		if (t.oom) {
			ret = fail("out of memory");
			goto out;
		}
		if (top_resized && t.mode == TOP_SCREEN) {
			top_resized = 0;
			for (uint32_t k = 0; k < t.info.num_cores; k++)
				settle_core(&t, &t.cores[k]);
			sample_screen(&t, now_ns() - t.mark_ns);
		}
		if (now_ns() >= next) {
			/* Below the watermark is not nothing: what is unread belongs to this sample. */
			drain(&t, false);
			sample(&t, false);
			next += t.interval_ns;
			if (next < t.mark_ns)
				next = t.mark_ns + t.interval_ns;
		}
	}
	if (t.mode == TOP_SCREEN) {
		screen_leave(&t);
	} else if (top_quit) {
		/* The last notifications in flight, then the final sample with the totals. */
		drain(&t, (t.info.caps & NPROF_DEVICE_CAP_FLUSH) != 0);
		sample(&t, true);
	}
	ret = flush_stdout();
out:
	screen_leave(&t);
	free(pfd);
	top_free(&t);
	return ret;
}
