// SPDX-License-Identifier: MIT
/*
 * neuronprof exporter: a device's activity as Prometheus metrics.
 *
 * Live, it watches the queues of a device as top does (live.h: every queue
 * subscribed with a small ring (256 KiB unless --ring-size) and record's
 * watermark, beside record or top on the same queues, each ring consumed whenever
 * it reaches a quarter full) and every --interval publishes what it has
 * folded since the start: per engine the busy time, instructions, DMA
 * transfers and bytes; per core the busy time (the union of its engines'),
 * inferences, errors and the last throttle level; per queue the entries
 * delivered, the entries lost and the ring's highest fill in the interval;
 * and which queues it could not subscribe because they had as many
 * subscribers as they take (it subscribes them once one is freed). With --replay it publishes
 * the same metrics from a recording instead, paced by the recording's
 * timestamps (--replay-speed), computed by summary's own code
 * (rec_stats_build_observed(), the timing model of timing.c) so that once
 * the replay is over every figure equals `neuronprof summary`'s.
 *
 * Two ways out, each optional but not both absent: --textfile PATH.prom,
 * replaced atomically at every publication for node exporter's textfile
 * collector (prom.h), and an HTTP /metrics endpoint served by libmicrohttpd
 * on --listen (127.0.0.1:9474 by default). Both give the same exposition,
 * rendered once per publication. SIGINT and SIGTERM end it after a last
 * publication (live: after a flush of the queues).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/device.h>

#include "analysis/profile.h"
#include "analysis/summary.h"
#include "live.h"
#include "util/options.h"
#include "tool.h"
#include "util/prom.h"

#define EXPORTER_LISTEN_DEFAULT	"127.0.0.1:9474"
#define EXPORTER_INTERVAL_MIN	100
/*
 * Between two wake-ups at least this long: a device wakes the readers of
 * every queue of a core at the end of each execution, and taking each
 * wake-up as it comes cost the exporter 3.5% of a core at the demo's load,
 * against 1.3 to 1.5% with 50 ms (bench/exporter_overhead.sh, in a VM
 * under KVM).
 * A ring still has 3/4 of its size free when
 * its watermark wakes the exporter: 192 KiB, 3072 entries of 64 bytes in
 * the default 256 KiB ring, so a queue loses nothing below 61,000 entries a
 * second (a 1M ring: 245,000); whatever it loses is counted in
 * neuronprof_queue_lost_entries_total, and only this exporter's ring loses
 * it: record and top on the same queue have their own.
 */
#define EXPORTER_DRAIN_GAP_MS	50

/* ---- the metrics ------------------------------------------------------------- */

enum {
	F_ENGINE_BUSY, F_ENGINE_INSTR, F_ENGINE_DMA, F_ENGINE_DMA_BYTES,
	F_CORE_BUSY, F_CORE_INFER, F_CORE_ERRORS, F_CORE_THROTTLE,
	F_QUEUE_ENTRIES, F_QUEUE_LOST, F_QUEUE_GAPS, F_QUEUE_FILL, F_QUEUE_CAPTURED,
	F_REPLAY_PROGRESS, F_PUBLICATIONS,
	F_COUNT
};

static const struct prom_family families[F_COUNT] = {
	[F_ENGINE_BUSY] = { "neuronprof_engine_busy_seconds_total",
		"Time the engine (or TopSP) spent in instructions (summary's busy time).",
		PROM_COUNTER, PROM_NS_AS_SECONDS },
	[F_ENGINE_INSTR] = { "neuronprof_engine_instructions_total",
		"Instructions (TRACE entries) the engine (or TopSP) executed.",
		PROM_COUNTER, PROM_INT },
	[F_ENGINE_DMA] = { "neuronprof_engine_dma_transfers_total",
		"DMA transfers (DMA entries) of the engine.", PROM_COUNTER, PROM_INT },
	[F_ENGINE_DMA_BYTES] = { "neuronprof_engine_dma_bytes_total",
		"Bytes the engine's DMA transfers moved.", PROM_COUNTER, PROM_INT },
	[F_CORE_BUSY] = { "neuronprof_core_busy_seconds_total",
		"Time the NeuronCore had any engine in an instruction (the union of its engines' busy time).",
		PROM_COUNTER, PROM_NS_AS_SECONDS },
	[F_CORE_INFER] = { "neuronprof_core_inferences_total",
		"Inferences (INFER_STATUS start/stop pairs) the NeuronCore completed.",
		PROM_COUNTER, PROM_INT },
	[F_CORE_ERRORS] = { "neuronprof_core_errors_total",
		"Error notifications of the NeuronCore and its TopSPs.", PROM_COUNTER, PROM_INT },
	[F_CORE_THROTTLE] = { "neuronprof_core_throttle_level",
		"The NeuronCore's last throttle level (0: not throttled).", PROM_GAUGE, PROM_INT },
	[F_QUEUE_ENTRIES] = { "neuronprof_queue_entries_total",
		"Entries the queue delivered to the exporter.", PROM_COUNTER, PROM_INT },
	[F_QUEUE_LOST] = { "neuronprof_queue_lost_entries_total",
		"Entries the queue lost because its ring was full.", PROM_COUNTER, PROM_INT },
	[F_QUEUE_GAPS] = { "neuronprof_queue_sequence_gaps_total",
		"Sequence numbers the queue's entries skip (entries that vanished, counted or not).",
		PROM_COUNTER, PROM_INT },
	[F_QUEUE_FILL] = { "neuronprof_queue_ring_fill_ratio",
		"Highest fill of the queue's ring seen before a drain in the last interval (0 to 1).",
		PROM_GAUGE, PROM_REAL },
	[F_QUEUE_CAPTURED] = { "neuronprof_queue_captured_elsewhere",
		"1 while the queue has as many subscribers as it takes, so the exporter does not see it (it subscribes once one is freed).",
		PROM_GAUGE, PROM_INT },
	[F_REPLAY_PROGRESS] = { "neuronprof_exporter_replay_progress_ratio",
		"Share of the recording's changes of these metrics replayed so far (1: the replay is over).",
		PROM_GAUGE, PROM_REAL },
	[F_PUBLICATIONS] = { "neuronprof_exporter_publications_total",
		"Times the exporter has published its metrics.", PROM_COUNTER, PROM_INT },
};

/* The engine label of a queue: its engine, its TopSP, or none (NULL). */
static const char *queue_engine_label(uint32_t kind, uint32_t type, uint32_t index,
				      uint32_t engine, char *buf, size_t len)
{
	const char *name;

	if (kind == NPROF_TARGET_TOPSP || type == NEURONPROF_QT_TOPSP_TRACE ||
	    type == NEURONPROF_QT_TOPSP_EVENT || type == NEURONPROF_QT_TOPSP_ERROR) {
		snprintf(buf, len, "topsp%u", index);
		return buf;
	}
	if (type != NEURONPROF_QT_TRACE && type != NEURONPROF_QT_EVENT && type != NEURONPROF_QT_DMA)
		return NULL;
	name = engine_name(engine);
	if (name)
		return name;
	snprintf(buf, len, "%u", engine);
	return buf;
}

static const char *prom_unit_label(bool topsp, uint32_t index, char *buf, size_t len)
{
	const char *name = topsp ? NULL : engine_name(index);

	if (name)
		return name;
	snprintf(buf, len, topsp ? "topsp%u" : "%u", index);
	return buf;
}

static void lower(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		dst[i] = (char)(src[i] >= 'A' && src[i] <= 'Z' ? src[i] - 'A' + 'a' : src[i]);
	dst[i] = '\0';
}

/* ---- publishing ------------------------------------------------------------ */

struct exporter {
	struct prom prom;
	const char *textfile;
	bool http;
	struct MHD_Daemon *mhd;
	pthread_mutex_t lock;		/* guards body */
	char *body;			/* the last exposition */
	size_t body_len;
	uint64_t publications, count, interval_ns;
	size_t s_publications;
	bool textfile_failing;
};

static volatile sig_atomic_t exporter_quit;

static void on_quit(int sig)
{
	(void)sig;
	exporter_quit = 1;
}

static bool exporter_stop(void *ctx)
{
	(void)ctx;
	return exporter_quit;
}

static enum MHD_Result serve(void *cls, struct MHD_Connection *conn, const char *url,
			     const char *method, const char *version, const char *upload_data,
			     size_t *upload_size, void **con_cls)
{
	static const char not_found[] = "Not Found: the metrics are at /metrics\n";
	static const char not_allowed[] = "Method Not Allowed\n";
	struct exporter *x = cls;
	struct MHD_Response *r;
	unsigned int status = MHD_HTTP_OK;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	(void)upload_size;
	(void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		r = MHD_create_response_from_buffer(sizeof(not_allowed) - 1, (void *)not_allowed,
						    MHD_RESPMEM_PERSISTENT);
		if (r)
			MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	} else if (strcmp(url, "/metrics")) {
		status = MHD_HTTP_NOT_FOUND;
		r = MHD_create_response_from_buffer(sizeof(not_found) - 1, (void *)not_found,
						    MHD_RESPMEM_PERSISTENT);
	} else {
		pthread_mutex_lock(&x->lock);
		r = MHD_create_response_from_buffer(x->body_len, x->body, MHD_RESPMEM_MUST_COPY);
		pthread_mutex_unlock(&x->lock);
		if (r)
			MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
						"text/plain; version=0.0.4; charset=utf-8");
	}
	if (!r)
		return MHD_NO;
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * parse_listen() - "ADDR:PORT" ("[ADDR]:PORT" for IPv6; numeric only) into
 * @ss. Return: 0, or -1 after the usage error.
 */
static int parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *sl)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(s, ':'), *port;
	size_t hl;
	uint64_t p;
	int rc;

	if (!colon || colon == s || !colon[1])
		return usage_error("--listen: '%s' is not ADDR:PORT (e.g. 127.0.0.1:9474) or none", s);
	port = colon + 1;
	hl = (size_t)(colon - s);
	if (s[0] == '[') {
		if (hl < 3 || s[hl - 1] != ']')
			return usage_error("--listen: '%s' is not [ADDR]:PORT", s);
		s++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return usage_error("--listen: '%.*s' is not a numeric address", (int)hl, s);
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (parse_u64("--listen port", port, 1, 65535, false, &p))
		return -1;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc || !res)
		return usage_error("--listen: '%s' is not a numeric IPv4 or IPv6 address", host);
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*sl = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* The listening socket, then the server on it. Return: 0 or EXIT_FAIL. */
static int http_start(struct exporter *x, const char *listen_at,
		      const struct sockaddr_storage *ss, socklen_t sl)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return fail("--listen %s: %s", listen_at, strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, sl) || listen(fd, 64)) {
		int err = errno;

		close(fd);
		return fail("cannot listen on %s: %s", listen_at, strerror(err));
	}
	x->mhd = MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD |
				  (ss->ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				  0, NULL, NULL, serve, x, MHD_OPTION_LISTEN_SOCKET, fd,
				  MHD_OPTION_CONNECTION_LIMIT, 64U,
				  MHD_OPTION_CONNECTION_TIMEOUT, 10U, MHD_OPTION_END);
	if (!x->mhd) {
		close(fd);
		return fail("cannot start the HTTP server on %s", listen_at);
	}
	return 0;
}

/* Render the metrics once, then write the textfile and hand the HTTP server its copy. */
static int publish(struct exporter *x)
{
	char *buf;
	size_t len;

	x->publications++;
	x->prom.s[x->s_publications].u = x->publications;
	if (prom_render(&x->prom, &buf, &len))
		return fail("out of memory");
	if (x->textfile) {
		char why[512];

		if (textfile_write(x->textfile, buf, len, why, sizeof(why))) {
			/* Once per run of failures: a daemon goes on, the HTTP side still works. */
			if (!x->textfile_failing)
				warn("--textfile: %s", why);
			x->textfile_failing = true;
		} else {
			x->textfile_failing = false;
		}
	}
	if (x->http) {
		pthread_mutex_lock(&x->lock);
		free(x->body);
		x->body = buf;
		x->body_len = len;
		pthread_mutex_unlock(&x->lock);
	} else {
		free(buf);
	}
	return 0;
}

/* Sleep until @deadline (CLOCK_MONOTONIC ns) or a signal that ends the exporter. */
static void sleep_until(uint64_t deadline)
{
	uint64_t now;

	while (!exporter_quit && (now = live_now_ns()) < deadline)
		poll(NULL, 0, (int)((deadline - now + 999999) / 1000000));
}

/* ---- live: a device --------------------------------------------------------- */

struct live_ids {
	size_t *q_entries, *q_lost, *q_fill, *q_captured;
	size_t (*e)[NPROF_MAX_ENGINES][4];	/* per core: busy, instr, dma, dma bytes */
	size_t (*c)[4];				/* per core: busy, infer, errors, throttle */
};

static void live_series(struct exporter *x, struct live *l, struct live_ids *ids)
{
	char dev[16], core[16], eng[24], qn[32];

	snprintf(dev, sizeof(dev), "%u", l->info.device_index);
	ids->q_entries = xcalloc(l->nq, sizeof(size_t));
	ids->q_lost = xcalloc(l->nq, sizeof(size_t));
	ids->q_fill = xcalloc(l->nq, sizeof(size_t));
	ids->q_captured = xcalloc(l->nq, sizeof(size_t));
	ids->e = xcalloc(l->info.num_cores, sizeof(*ids->e));
	ids->c = xcalloc(l->info.num_cores, sizeof(*ids->c));
	for (uint32_t c = 0; c < l->info.num_cores; c++) {
		snprintf(core, sizeof(core), "%u", c);
		for (uint32_t e = 0; e < l->info.engines_per_core && e < NPROF_MAX_ENGINES; e++) {
			const char *en = prom_unit_label(false, e, eng, sizeof(eng));

			for (int k = 0; k < 4; k++)
				ids->e[c][e][k] = prom_series(&x->prom, (size_t)(F_ENGINE_BUSY + k),
							      "device", dev, "core", core,
							      "engine", en, NULL);
		}
		for (int k = 0; k < 4; k++)
			ids->c[c][k] = prom_series(&x->prom, (size_t)(F_CORE_BUSY + k), "device", dev,
						   "core", core, NULL);
	}
	for (size_t i = 0; i < l->nq; i++) {
		const struct live_queue *q = &l->q[i];
		const char *en = queue_engine_label(q->kind, q->type, q->index, q->engine, eng,
						    sizeof(eng));

		snprintf(core, sizeof(core), "%u", q->core);
		lower(qn, queue_name(q->type), sizeof(qn));
#define QS(f) prom_series(&x->prom, f, "device", dev, "core", core, "queue", qn, "engine", en, NULL)
		ids->q_entries[i] = QS(F_QUEUE_ENTRIES);
		ids->q_lost[i] = QS(F_QUEUE_LOST);
		ids->q_fill[i] = QS(F_QUEUE_FILL);
		ids->q_captured[i] = QS(F_QUEUE_CAPTURED);
#undef QS
	}
}

static void live_update(struct exporter *x, struct live *l, const struct live_ids *ids)
{
	struct prom_series *s = x->prom.s;

	for (uint32_t c = 0; c < l->info.num_cores; c++) {
		const struct live_core *k = &l->cores[c];

		for (uint32_t e = 0; e < l->info.engines_per_core && e < NPROF_MAX_ENGINES; e++) {
			s[ids->e[c][e][0]].u = k->eng[e].t_busy_ns;
			s[ids->e[c][e][1]].u = k->eng[e].t_instr;
			s[ids->e[c][e][2]].u = k->eng[e].t_dma;
			s[ids->e[c][e][3]].u = k->eng[e].t_dma_bytes;
		}
		s[ids->c[c][0]].u = k->t_busy_ns;
		s[ids->c[c][1]].u = k->t_execs;
		s[ids->c[c][2]].u = k->t_errors;
		s[ids->c[c][3]].u = k->throttle_level;
	}
	for (size_t i = 0; i < l->nq; i++) {
		const struct live_queue *q = &l->q[i];

		s[ids->q_entries[i]].u = q->entries;
		s[ids->q_lost[i]].u = live_queue_lost(q);
		s[ids->q_fill[i]].d = q->ring_size ? (double)q->fill_max / (double)q->ring_size : 0;
		s[ids->q_captured[i]].u = !q->nq;
	}
}

static int run_live(struct exporter *x, int device, uint64_t ring)
{
	struct live l;
	struct live_ids ids = { 0 };
	struct pollfd *pfd = NULL;
	uint64_t next;
	int ret;

	memset(&l, 0, sizeof(l));
	l.min_gap_ns = EXPORTER_DRAIN_GAP_MS * 1000000ULL;
	ret = live_open(&l, device, ring);
	if (ret)
		goto out;
	if (l.busy)
		warn("%zu of %zu queues already have as many subscribers as they take: %s says which (they are taken once freed)",
		     l.busy, l.nq, families[F_QUEUE_CAPTURED].name);
	pfd = live_pollfds(&l, -1);
	if (!pfd) {
		ret = fail("out of memory");
		goto out;
	}
	live_series(x, &l, &ids);
	live_update(x, &l, &ids);
	ret = publish(x);
	next = live_now_ns() + x->interval_ns;
	while (!ret && !exporter_quit && (!x->count || x->publications < x->count)) {
		live_wait(&l, pfd, next, exporter_stop, NULL, NULL);
		if (l.oom) {
			ret = fail("out of memory");
			break;
		}
		if (exporter_quit)
			break;
		/* Below the watermark is not nothing: what is unread belongs to this publication. */
		live_drain(&l, false);
		live_settle(&l);
		live_update(x, &l, &ids);
		ret = publish(x);
		live_interval_reset(&l);
		next += x->interval_ns;
		if (next < live_now_ns())
			next = live_now_ns() + x->interval_ns;
	}
	if (!ret && exporter_quit) {
		/* The last notifications in flight, then a last publication. */
		live_drain(&l, (l.info.caps & NPROF_DEVICE_CAP_FLUSH) != 0);
		live_settle(&l);
		live_update(x, &l, &ids);
		ret = publish(x);
	}
out:
	free(pfd);
	free(ids.q_entries);
	free(ids.q_lost);
	free(ids.q_fill);
	free(ids.q_captured);
	free(ids.e);
	free(ids.c);
	live_free(&l);
	return ret;
}

/* ---- replay: a recording ------------------------------------------------------ */

/* One change of a series at a time of the recording. */
struct rev {
	uint64_t ts;
	uint64_t v;
	uint32_t series;
	uint32_t set;			/* 1: set the gauge to @v; 0: add @v */
	uint64_t ord;			/* the order it was made in: ties keep it */
};

struct rinterval {
	uint32_t dev, core;
	uint64_t start, end;
};

/* The series of the queue being read, made at its first entry. */
struct rqueue_ids {
	const struct prof_queue *lq;
	size_t entries, busy, instr, dma, dma_bytes, errors, throttle;
	bool unit;
	uint64_t last_ts;
};

struct replay {
	struct prom *prom;
	struct rev *ev;
	size_t nev, cap;
	struct rinterval *iv;
	size_t niv, iv_cap;
	struct rqueue_ids cur;
};

static void rev_add(struct replay *r, uint64_t ts, size_t series, uint64_t v, bool set)
{
	r->ev = xgrow(r->ev, r->nev, &r->cap, sizeof(*r->ev));
	r->ev[r->nev] = (struct rev){ .ts = ts, .v = v, .series = (uint32_t)series,
				      .set = set, .ord = r->nev };
	r->nev++;
}

static size_t unit_series(struct prom *p, size_t fam, uint32_t dev, uint32_t core, bool topsp,
			  uint32_t index)
{
	char d[16], c[16], u[24];

	snprintf(d, sizeof(d), "%u", dev);
	snprintf(c, sizeof(c), "%u", core);
	return prom_series(p, fam, "device", d, "core", c, "engine",
			   prom_unit_label(topsp, index, u, sizeof(u)), NULL);
}

static size_t core_series(struct prom *p, size_t fam, uint32_t dev, uint32_t core)
{
	char d[16], c[16];

	snprintf(d, sizeof(d), "%u", dev);
	snprintf(c, sizeof(c), "%u", core);
	return prom_series(p, fam, "device", d, "core", c, NULL);
}

static size_t queue_series(struct prom *p, size_t fam, const struct prof_file *f,
			   const struct nprof_ntff_queue *q, uint32_t core)
{
	char d[16], c[16], e[24], qn[32];

	snprintf(d, sizeof(d), "%u", f->info.device.device_index);
	snprintf(c, sizeof(c), "%u", core);
	lower(qn, queue_name(q->queue_type), sizeof(qn));
	return prom_series(p, fam, "device", d, "core", c, "queue", qn, "engine",
			   queue_engine_label(q->target_kind, q->queue_type, q->target_index,
					      q->engine, e, sizeof(e)), NULL);
}

/* The series a queue's entries change, as summary attributes them (add_queue()). */
static void queue_ids(struct replay *r, const struct prof_file *f, const struct prof_queue *lq,
		      uint32_t core)
{
	const struct nprof_ntff_queue *q = &lq->q;
	uint32_t dev = f->info.device.device_index;
	struct rqueue_ids *k = &r->cur;
	bool topsp = false;

	memset(k, 0, sizeof(*k));
	k->lq = lq;
	k->entries = queue_series(r->prom, F_QUEUE_ENTRIES, f, q, core);
	if (file_is_raw(f))
		return;
	switch (q->queue_type) {
	case NEURONPROF_QT_TOPSP_TRACE:
	case NEURONPROF_QT_TOPSP_EVENT:
	case NEURONPROF_QT_TOPSP_ERROR:
		topsp = true;
		/* fall through */
	case NEURONPROF_QT_TRACE:
	case NEURONPROF_QT_EVENT:
	case NEURONPROF_QT_DMA:
		k->unit = true;
		k->instr = unit_series(r->prom, F_ENGINE_INSTR, dev, core, topsp,
				       topsp ? q->target_index : q->engine);
		k->busy = unit_series(r->prom, F_ENGINE_BUSY, dev, core, topsp,
				      topsp ? q->target_index : q->engine);
		if (q->queue_type == NEURONPROF_QT_DMA) {
			k->dma = unit_series(r->prom, F_ENGINE_DMA, dev, core, false, q->engine);
			k->dma_bytes = unit_series(r->prom, F_ENGINE_DMA_BYTES, dev, core, false,
						   q->engine);
		}
		break;
	default:
		break;
	}
	k->errors = core_series(r->prom, F_CORE_ERRORS, dev, core);
	k->throttle = core_series(r->prom, F_CORE_THROTTLE, dev, core);
}

static void obs_entry(void *ctx, const struct prof_file *f, const struct prof_queue *lq,
		      uint32_t core, const struct entry *e)
{
	struct replay *r = ctx;
	struct rqueue_ids *k = &r->cur;

	if (k->lq != lq)
		queue_ids(r, f, lq, core);
	k->last_ts = e->ts;
	rev_add(r, e->ts, k->entries, 1, false);
	if (file_is_raw(f))
		return;
	switch (lq->q.queue_type) {
	case NEURONPROF_QT_TRACE:
	case NEURONPROF_QT_TOPSP_TRACE:
		rev_add(r, e->ts, k->instr, 1, false);
		break;
	case NEURONPROF_QT_DMA:
		rev_add(r, e->ts, k->dma, 1, false);
		rev_add(r, e->ts, k->dma_bytes, e->payload[0], false);
		break;
	case NEURONPROF_QT_ERROR:
	case NEURONPROF_QT_TOPSP_ERROR:
		rev_add(r, e->ts, k->errors, 1, false);
		break;
	case NEURONPROF_QT_THROTTLE:
		rev_add(r, e->ts, k->throttle, e->code, true);
		break;
	default:
		break;
	}
}

/*
 * An instruction counts when it ends; the core's union is made afterwards.
 * It is one of the queue being read (r->cur), whose unit is @topsp @unit.
 */
static void obs_instruction(void *ctx, const struct prof_file *f, uint32_t core, bool topsp,
			    uint32_t unit, uint64_t ts, uint64_t end)
{
	struct replay *r = ctx;

	(void)topsp;
	(void)unit;
	rev_add(r, end, r->cur.busy, end - ts, false);
	if (end > ts) {
		r->iv = xgrow(r->iv, r->niv, &r->iv_cap, sizeof(*r->iv));
		r->iv[r->niv++] = (struct rinterval){ f->info.device.device_index, core, ts, end };
	}
}

/* Every queue has its series, entries or not; its losses count at its last entry. */
static void obs_queue_done(void *ctx, const struct prof_file *f, const struct prof_queue *lq,
			   uint32_t core, uint64_t gaps)
{
	struct replay *r = ctx;

	if (r->cur.lq != lq)
		queue_ids(r, f, lq, core);
	rev_add(r, r->cur.last_ts, queue_series(r->prom, F_QUEUE_LOST, f, &lq->q, core),
		lq->q.lost_count, false);
	rev_add(r, r->cur.last_ts, queue_series(r->prom, F_QUEUE_GAPS, f, &lq->q, core), gaps,
		false);
	r->cur.lq = NULL;
}

/* The part of [@start, @end] of a core of @st that a loss hid from view. */
static uint64_t core_unobserved(const struct rec_stats *st, uint32_t dev, uint32_t core,
				uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < st->ncores; i++)
		if (st->cores[i].dev == dev && st->cores[i].core == core)
			return st->cores[i].lossy ? core_unobserved_in(&st->cores[i], start, end) : 0;
	return 0;
}

static int cmp_rinterval(const void *a, const void *b)
{
	const struct rinterval *x = a, *y = b;

	return cmp_int(x->dev, y->dev) ?: cmp_int(x->core, y->core) ?:
	       cmp_int(x->start, y->start) ?: cmp_int(x->end, y->end);
}

static int cmp_rev(const void *a, const void *b)
{
	const struct rev *x = a, *y = b;

	return cmp_int(x->ts, y->ts) ?: cmp_int(x->ord, y->ord);
}

/*
 * A core's busy time: its instruction intervals merged into disjoint ones,
 * each counted at its end (summary's union of the same intervals), less
 * what the loss windows of its instruction queues cover: over observed
 * time, as summary counts it (Documentation/analysis.rst, Loss windows).
 */
static void core_busy_events(struct replay *r, const struct rec_stats *st)
{
	size_t i = 0;

	if (r->niv > 1)
		qsort(r->iv, r->niv, sizeof(*r->iv), cmp_rinterval);
	while (i < r->niv) {
		uint32_t dev = r->iv[i].dev, core = r->iv[i].core;
		size_t series = core_series(r->prom, F_CORE_BUSY, dev, core);
		uint64_t start = r->iv[i].start, end = r->iv[i].end;

		for (i++; i <= r->niv; i++) {
			if (i < r->niv && r->iv[i].dev == dev && r->iv[i].core == core &&
			    r->iv[i].start <= end) {
				if (r->iv[i].end > end)
					end = r->iv[i].end;
				continue;
			}
			rev_add(r, end, series, end - start - core_unobserved(st, dev, core, start, end),
				false);
			if (i == r->niv || r->iv[i].dev != dev || r->iv[i].core != core)
				break;
			start = r->iv[i].start;
			end = r->iv[i].end;
		}
	}
}

/* What the events add up to, per series (@n of them). */
static uint64_t *rev_totals(const struct replay *r, size_t n)
{
	uint64_t *t = xcalloc(n, sizeof(*t));

	for (size_t i = 0; i < r->nev; i++)
		if (!r->ev[i].set)
			t[r->ev[i].series] += r->ev[i].v;
	return t;
}

/*
 * The replay's totals against summary's figures of the same reading: they
 * come from the same code, so a difference is a bug here, said as such.
 */
static int replay_compare(struct replay *r, const struct rec_stats *st, const uint64_t *tot)
{
	for (size_t i = 0; i < st->ncores; i++) {
		const struct core_stats *c = &st->cores[i];
		uint64_t entries = 0;
		char core[16], dev[16];
		struct {
			size_t fam;
			uint64_t want;
		} cf[] = {
			{ F_CORE_BUSY, c->busy }, { F_CORE_INFER, c->inferences },
			{ F_CORE_ERRORS, c->errors },
		};

		for (size_t k = 0; k < sizeof(cf) / sizeof(cf[0]); k++) {
			uint64_t got = tot[core_series(r->prom, cf[k].fam, c->dev, c->core)];

			if (got != cf[k].want)
				return fail("internal error: %s of device %u core %u is %" PRIu64
					    ", summary says %" PRIu64, families[cf[k].fam].name,
					    c->dev, c->core, got, cf[k].want);
		}
		snprintf(dev, sizeof(dev), "%u", c->dev);
		snprintf(core, sizeof(core), "%u", c->core);
		for (size_t s = 0; s < r->prom->n; s++) {
			char want[64];

			snprintf(want, sizeof(want), "device=\"%s\",core=\"%s\",", dev, core);
			if (r->prom->s[s].fam == F_QUEUE_ENTRIES &&
			    !strncmp(r->prom->s[s].labels, want, strlen(want)))
				entries += tot[s];
		}
		if (entries != c->entries)
			return fail("internal error: entries of device %u core %u are %" PRIu64
				    ", summary says %" PRIu64, c->dev, c->core, entries, c->entries);
		for (size_t k = 0; k < c->nunits; k++) {
			const struct unit *u = &c->units[k];
			struct {
				size_t fam;
				uint64_t want;
			} uf[] = {
				{ F_ENGINE_BUSY, u->busy }, { F_ENGINE_INSTR, u->instructions },
				{ F_ENGINE_DMA, u->dma }, { F_ENGINE_DMA_BYTES, u->dma_bytes },
			};

			for (size_t m = 0; m < (u->topsp ? 2 : sizeof(uf) / sizeof(uf[0])); m++) {
				uint64_t got = tot[unit_series(r->prom, uf[m].fam, c->dev, c->core,
							       u->topsp, u->index)];

				if (got != uf[m].want)
					return fail("internal error: %s of device %u core %u %s %u is %"
						    PRIu64 ", summary says %" PRIu64,
						    families[uf[m].fam].name, c->dev, c->core,
						    u->topsp ? "TopSP" : "engine", u->index, got,
						    uf[m].want);
			}
		}
	}
	return 0;
}

static int replay_check(struct replay *r, const struct rec_stats *st)
{
	uint64_t *tot;
	int ret = 0;

	/* Every series the checks name exists before the totals are made. */
	for (size_t i = 0; i < st->ncores; i++) {
		const struct core_stats *c = &st->cores[i];

		core_series(r->prom, F_CORE_BUSY, c->dev, c->core);
		core_series(r->prom, F_CORE_INFER, c->dev, c->core);
		core_series(r->prom, F_CORE_ERRORS, c->dev, c->core);
		for (size_t k = 0; k < c->nunits; k++)
			for (size_t f = F_ENGINE_BUSY; f <= F_ENGINE_DMA_BYTES; f++)
				/* A TopSP has no DMA queue. */
				if (!c->units[k].topsp || f <= F_ENGINE_INSTR)
					unit_series(r->prom, f, c->dev, c->core,
						    c->units[k].topsp, c->units[k].index);
	}
	tot = rev_totals(r, r->prom->n);
	ret = replay_compare(r, st, tot);
	free(tot);
	return ret;
}

/* Read @path with summary's code into time-ordered events. Return: 0 or EXIT_FAIL. */
static int replay_load(struct exporter *x, const char *path, struct replay *r)
{
	struct stats_observer obs = {
		.ctx = r, .entry = obs_entry, .instruction = obs_instruction,
		.queue_done = obs_queue_done,
	};
	struct path_set ps;
	struct progress pg = { 0 };
	struct rec_stats st;
	uint64_t done = 0;
	char *paths[] = { (char *)path };
	int ret;

	r->prom = &x->prom;
	if (paths_load(&ps, paths, 1, false, "replay")) {
		paths_free(&ps);
		return EXIT_FAIL;
	}
	if (ps.nrec != 1) {
		ret = fail("%s holds %zu recordings (directories with profiles): --replay takes one",
			   path, ps.nrec);
		paths_free(&ps);
		return ret;
	}
	rec_stats_build_observed(&st, ps.recs[0], 0, &pg, &done, &obs);
	core_busy_events(r, &st);
	for (size_t i = 0; i < st.ncores; i++) {
		const struct core_stats *c = &st.cores[i];
		size_t series = core_series(r->prom, F_CORE_INFER, c->dev, c->core);

		for (size_t k = 0; c->ct && k < c->ct->ninf; k++)
			rev_add(r, c->ct->inf[k].stop, series, 1, false);
	}
	ret = replay_check(r, &st);
	rec_stats_free(&st);
	paths_free(&ps);
	if (ret)
		return ret;
	if (r->nev > 1)
		qsort(r->ev, r->nev, sizeof(*r->ev), cmp_rev);
	return 0;
}

static int run_replay(struct exporter *x, const char *path, double speed)
{
	struct replay r;
	size_t applied = 0, s_progress;
	uint64_t t0, start, next;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = replay_load(x, path, &r);
	if (ret)
		goto out;
	s_progress = prom_series(&x->prom, F_REPLAY_PROGRESS, NULL);
	/*
	 * The replay's clock starts at the recording's first timestamp: the
	 * losses of a queue without entries (at 0) are not a start.
	 */
	t0 = 0;
	for (size_t i = 0; i < r.nev && !t0; i++)
		t0 = r.ev[i].ts;
	start = live_now_ns();
	next = start;
	for (;;) {
		uint64_t now = live_now_ns(), upto;
		double rec_ns = (double)(now - start) * speed;

		if (speed == 0 || rec_ns >= (double)(UINT64_MAX - t0))
			upto = UINT64_MAX;
		else
			upto = t0 + (uint64_t)rec_ns;
		for (; applied < r.nev && (r.ev[applied].ts <= upto || exporter_quit); applied++) {
			const struct rev *e = &r.ev[applied];

			if (e->set)
				x->prom.s[e->series].u = e->v;
			else
				x->prom.s[e->series].u += e->v;
		}
		x->prom.s[s_progress].d = r.nev ? (double)applied / (double)r.nev : 1.0;
		ret = publish(x);
		if (ret || exporter_quit || (x->count && x->publications >= x->count))
			break;
		next += x->interval_ns;
		if (next < live_now_ns())
			next = live_now_ns() + x->interval_ns;
		sleep_until(next);
	}
out:
	free(r.ev);
	free(r.iv);
	return ret;
}

/* ---- the command -------------------------------------------------------------- */

static int parse_speed(const struct opt *o, const char *s, void *ctx)
{
	double *out = ctx;
	char *end;
	double v;

	(void)o;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < 0)
		return usage_error("--replay-speed: '%s' is not a factor of 0 or more (1: as recorded, 0: all at once)",
				   s);
	*out = v;
	return 0;
}

int cmd_exporter(int argc, char **argv)
{
	struct sigaction quit = { .sa_handler = on_quit }, ign = { .sa_handler = SIG_IGN };
	uint64_t device = 0, ring = LIVE_RING_DEFAULT, interval_ms = 5000;
	const char *replay = NULL, *listen_at = EXPORTER_LISTEN_DEFAULT;
	/* Set (to the option's name) when the option is given. */
	const char *device_given = NULL, *ring_given = NULL, *speed_given = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	double speed = 1.0;
	struct exporter x;
	char why[512];
	int ret;
	const struct opt opts[] = {
		OPT_U64(0, "device", &device, "N", 0, INT32_MAX, "device index (default: the first)",
			.first = &device_given),
		OPT_RING_SIZE(&ring, RING_SIZE_MIN,
			      "ring per queue: a power of two, 4K to 1G (K, M, G\n"
			      "suffixes; default 256K)", .first = &ring_given),
		OPT_STRING(0, "replay", &replay, "RECORDING",
			   "publish a recording (an NTFF file or a directory)\n"
			   "instead of a device"),
		OPT_CALLBACK(0, "replay-speed", "FACTOR", parse_speed, 0,
			     "recording time per wall-clock time (default 1: as\n"
			     "recorded; 0.001: a thousand times slower; 0: all\n"
			     "at once)", .first = &speed_given),
		OPT_STRING(0, "textfile", &x.textfile, "PATH.prom",
			   "write the metrics to PATH.prom for node exporter's\n"
			   "textfile collector, replaced atomically every interval"),
		OPT_STRING(0, "listen", &listen_at, "ADDR:PORT",
			   "serve http://ADDR:PORT/metrics (default " EXPORTER_LISTEN_DEFAULT ");\n"
			   "'none': no HTTP server"),
		OPT_U64(0, "interval", &interval_ms, "MS", EXPORTER_INTERVAL_MIN, 3600000,
			"publish every MS milliseconds (default 5000, at least 100)"),
		OPT_U64('n', "count", &x.count, "N", 1, UINT64_MAX,
			"stop after N publications (default: until ^C or SIGTERM)"),
		OPT_END(),
	};

	memset(&x, 0, sizeof(x));
	if (opts_parse(argc, argv, opts, &speed, &ret))
		return ret;
	if (check_operands(argc, argv, 0, NULL))
		return EXIT_USAGE;
	if (replay && (device_given || ring_given))
		return usage_error("--replay publishes a recording: --%s is for a device",
				   device_given ? device_given : ring_given);
	if (speed_given && !replay)
		return usage_error("--replay-speed needs --replay");
	x.http = strcmp(listen_at, "none") != 0;
	if (!x.http && !x.textfile)
		return usage_error("--listen none and no --textfile: nothing to publish to");
	if (x.http && parse_listen(listen_at, &ss, &sl))
		return EXIT_USAGE;
	if (x.textfile && textfile_check(x.textfile, why, sizeof(why))) {
		if (strstr(why, "must end with"))
			return usage_error("--textfile: %s", why);
		return fail("--textfile: %s", why);
	}
	x.interval_ns = interval_ms * 1000000ULL;

	prom_init(&x.prom, families, F_COUNT);
	x.s_publications = prom_series(&x.prom, F_PUBLICATIONS, NULL);
	pthread_mutex_init(&x.lock, NULL);
	sigaction(SIGINT, &quit, NULL);
	sigaction(SIGTERM, &quit, NULL);
	sigaction(SIGPIPE, &ign, NULL);
	if (x.http) {
		sigset_t block, old;

		/* The server's threads leave SIGINT and SIGTERM to this one. */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		ret = http_start(&x, listen_at, &ss, sl);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (ret)
			goto out;
		fprintf(stderr, "neuronprof: exporter: serving http://%s/metrics\n", listen_at);
	}
	if (replay)
		ret = run_replay(&x, replay, speed);
	else
		ret = run_live(&x, device_given ? (int)device : NPROF_DEVICE_ANY, ring);
out:
	if (x.mhd)
		MHD_stop_daemon(x.mhd);
	pthread_mutex_destroy(&x.lock);
	free(x.body);
	prom_free(&x.prom);
	return ret;
}
