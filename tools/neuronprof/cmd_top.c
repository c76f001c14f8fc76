// SPDX-License-Identifier: MIT
/*
 * neuronprof top: a live view of one device.
 *
 * It subscribes every queue of every core and TopSP of the device the
 * library knows, with a small ring (256 KiB unless --ring-size; its own, beside
 * record's or an exporter's on the same queue) and record's watermark (a
 * quarter of the ring), sleeps in poll() on the subscriptions' descriptors and
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
 * which gives the queues back. A queue that already has as many subscribers
 * as it takes (EBUSY) is shown as busy and subscribed once one is freed.
 *
 * Modes: an ANSI screen on a terminal (redrawn every interval, follows
 * resizes, q quits); --batch, a text block per interval; --json, one JSON
 * object per line per interval. SIGINT and SIGTERM end every mode after a
 * last sample (taken after a flush), so a script can stop it and read the
 * totals, which count everything seen since the start.
 */
#include <errno.h>
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

#include "live.h"
#include "util/json.h"
#include "util/options.h"
#include "tool.h"

#define TOP_INTERVAL_MIN_MS	100


enum top_mode { TOP_SCREEN, TOP_BATCH, TOP_JSON };

struct top {
	struct live l;
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
	jw_u64(&j, "elapsed_ns", live_now_ns() - t->start_ns);
	jw_u64(&j, "interval_ns", dt);
	jw_u64(&j, "device", t->l.info.device_index);
	jw_u64(&j, "busy_queues", t->l.busy);
	jw_arr_begin(&j, "cores");
	for (uint32_t c = 0; c < t->l.info.num_cores; c++) {
		struct live_core *k = &t->l.cores[c];

		jw_obj_begin(&j, NULL);
		jw_u64(&j, "core", c);
		if (k->model_seen)
			jw_u64(&j, "model_id", k->model_id);
		else
			jw_null(&j, "model_id");
		jw_u64(&j, "span_ns", live_span(k));
		jw_u64(&j, "busy_ns", k->i_busy_ns);
		jw_u64(&j, "utilization_pct", pct(k->i_busy_ns, live_span(k)));
		jw_u64(&j, "inferences", k->i_execs);
		jw_u64(&j, "inferences_per_s", per_s(k->i_execs, dt));
		jw_u64(&j, "latency_avg_ns", k->i_execs ? k->i_lat_sum / k->i_execs : 0);
		jw_u64(&j, "latency_max_ns", k->i_lat_max);
		jw_u64(&j, "dma_transfers", k->i_dma);
		jw_u64(&j, "dma_bytes_per_s", per_s(k->i_dma_bytes, dt));
		jw_u64(&j, "throttle_level", k->throttle_level);
		jw_u64(&j, "throttle_percent", k->throttle_pct);
		jw_arr_begin(&j, "engines");
		for (uint32_t e = 0; e < t->l.info.engines_per_core && e < NPROF_MAX_ENGINES; e++) {
			jw_obj_begin(&j, NULL);
			jw_u64(&j, "engine", e);
			jw_str(&j, "name", engine_name(e));
			jw_u64(&j, "busy_ns", k->eng[e].i_busy_ns);
			jw_u64(&j, "utilization_pct", pct(k->eng[e].i_busy_ns, live_span(k)));
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
	for (size_t i = 0; i < t->l.nq; i++) {
		struct live_queue *q = &t->l.q[i];
		uint64_t lost = live_queue_lost(q);

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

	for (uint32_t c = 0; c < t->l.info.num_cores && n < max; c++) {
		struct live_core *k = &t->l.cores[c];
		char model[16] = "-";

		if (k->model_seen)
			snprintf(model, sizeof(model), "%u", k->model_id);
		snprintf(lines[n++], 160,
			 "NC%-3u model %-5s util %3u%%  infer/s %7" PRIu64 "  lat avg %9.1f us max %9.1f us  DMA %9.2f MB/s  throttle %u (%u%%)",
			 c, model, pct(k->i_busy_ns, live_span(k)), per_s(k->i_execs, dt),
			 k->i_execs ? (double)k->i_lat_sum / (double)k->i_execs / 1e3 : 0.0,
			 (double)k->i_lat_max / 1e3, (double)per_s(k->i_dma_bytes, dt) / 1e6,
			 k->throttle_level, k->throttle_pct);
		for (uint32_t e = 0; e < t->l.info.engines_per_core && e < NPROF_MAX_ENGINES && n < max;
		     e++) {
			const char *name = engine_name(e);

			snprintf(lines[n++], 160, "      %-7s util %3u%%  instr/s %10" PRIu64, name ? name : "?",
				 pct(k->eng[e].i_busy_ns, live_span(k)), per_s(k->eng[e].i_instr, dt));
		}
	}
	return n;
}

static int queue_line(struct top *t, const struct live_queue *q, char *buf, size_t len)
{
	uint64_t lost = live_queue_lost(q);

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
	       last ? " (final)" : "", (double)(live_now_ns() - t->start_ns) / 1e9, (double)dt / 1e9);
	for (int i = 0; i < n; i++)
		printf("%s\n", lines[i]);
	for (size_t i = 0; i < t->l.nq; i++) {
		const struct live_queue *q = &t->l.q[i];

		/* Only the queues with something to say. */
		if (q->nq && !q->fill_max && live_queue_lost(q) == q->lost_mark)
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
	       nprof_device_path(t->l.dev), t->l.info.device_index, arch_name(t->l.info.arch),
	       t->l.info.num_cores, (double)t->interval_ns / 1e9);
	row++;
	for (int i = 0; i < n && row < rows - 1; i++, row++)
		printf("%.*s\n", cols, lines[i]);
	if (row < rows - 1) {
		printf("\n");
		row++;
	}
	for (size_t i = 0; i < t->l.nq && row < rows - 1; i++, row++) {
		queue_line(t, &t->l.q[i], buf, sizeof(buf));
		printf("%.*s\n", cols, buf);
	}
	fflush(stdout);
}

/* End an interval: print it, then start the next one. */
static void sample(struct top *t, bool last)
{
	uint64_t now = live_now_ns(), dt = now - t->mark_ns;

	live_settle(&t->l);
	t->samples++;
	if (t->mode == TOP_JSON)
		sample_json(t, dt, last);
	else if (t->mode == TOP_BATCH)
		sample_batch(t, dt, last);
	else
		sample_screen(t, dt);
	live_interval_reset(&t->l);
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
 * live_wait()'s hooks: it returns on q, ^C, SIGTERM, and on a resize of the
 * screen; it reads the keys from stdin (q quits).
 */
static bool top_stop(void *ctx)
{
	struct top *t = ctx;

	return top_quit || (top_resized && t->mode == TOP_SCREEN);
}

static void top_key(void *ctx, short revents)
{
	char c;

	(void)ctx;
	if ((revents & POLLIN) && read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q'))
		top_quit = 1;
}

/* ---- the command -------------------------------------------------------------- */

/* --batch and --json (tag: the mode), which exclude each other. */
static int top_mode_opt(const struct opt *o, const char *arg, void *ctx)
{
	struct top *t = ctx;

	(void)arg;
	if (t->mode != TOP_SCREEN)
		return usage_error("--batch and --json exclude each other");
	t->mode = o->tag;
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct sigaction quit = { .sa_handler = on_quit }, winch = { .sa_handler = on_winch };
	struct pollfd *pfd = NULL;
	uint64_t device = 0, interval_ms = 1000, ring = LIVE_RING_DEFAULT, next;
	const char *device_given = NULL;
	struct top t;
	int ret;
	const struct opt opts[] = {
		OPT_U64(0, "device", &device, "N", 0, INT32_MAX, "device index (default: the first)",
			.first = &device_given),
		OPT_U64(0, "interval", &interval_ms, "MS", TOP_INTERVAL_MIN_MS, 3600000,
			"sample interval (default 1000, at least 100)"),
		OPT_RING_SIZE(&ring, RING_SIZE_MIN,
			      "ring per queue: a power of two, 4K to 1G (K, M, G\n"
			      "suffixes; default 256K)"),
		OPT_CALLBACK(0, "batch", NULL, top_mode_opt, TOP_BATCH,
			     "a text sample per interval on stdout"),
		OPT_CALLBACK(0, "json", NULL, top_mode_opt, TOP_JSON,
			     "a JSON sample per line per interval on stdout", .syn_join = SYN_OR),
		OPT_U64('n', "count", &t.count, "N", 1, UINT64_MAX,
			"stop after N samples, as top -n and perf top do\n"
			"(default: until q, ^C or SIGTERM)", .syn = "[-n N | --count N]"),
		OPT_END(),
	};

	memset(&t, 0, sizeof(t));
	t.mode = TOP_SCREEN;
	if (opts_parse(argc, argv, opts, &t, &ret))
		return ret;
	if (check_operands(argc, argv, 0, NULL))
		return EXIT_USAGE;
	if (t.mode == TOP_SCREEN && !isatty(STDOUT_FILENO))
		return usage_error("stdout is not a terminal: use --batch or --json");

	ret = live_open(&t.l, device_given ? (int)device : NPROF_DEVICE_ANY, ring);
	if (ret)
		goto out;
	if (t.l.busy)
		warn("%zu of %zu queues already have as many subscribers as they take: they are shown as busy until one is freed",
		     t.l.busy, t.l.nq);
	pfd = live_pollfds(&t.l, t.mode == TOP_SCREEN ? STDIN_FILENO : -1);
	if (!pfd) {
		ret = fail("out of memory");
		goto out;
	}

	sigaction(SIGINT, &quit, NULL);
	sigaction(SIGTERM, &quit, NULL);
	sigaction(SIGHUP, &quit, NULL);
	sigaction(SIGWINCH, &winch, NULL);
	if (t.mode == TOP_SCREEN)
		screen_enter(&t);
	t.interval_ns = interval_ms * 1000000ULL;
	t.start_ns = t.mark_ns = live_now_ns();
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
		live_wait(&t.l, pfd, next, top_stop, top_key, &t);
		if (t.l.oom) {
			ret = fail("out of memory");
			goto out;
		}
		if (top_resized && t.mode == TOP_SCREEN) {
			top_resized = 0;
			live_settle(&t.l);
			sample_screen(&t, live_now_ns() - t.mark_ns);
		}
		if (live_now_ns() >= next) {
			/* Below the watermark is not nothing: what is unread belongs to this sample. */
			live_drain(&t.l, false);
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
		live_drain(&t.l, (t.l.info.caps & NPROF_DEVICE_CAP_FLUSH) != 0);
		sample(&t, true);
	}
	ret = flush_stdout();
out:
	screen_leave(&t);
	free(pfd);
	live_free(&t.l);
	return ret;
}
