// SPDX-License-Identifier: MIT
/*
 * SESSION-keyed device-profile capture (the seed's nrt_profile_session_*):
 * per-core start / stop (harvest, mint an id, stash) / serialize (pop and
 * write NTFF) / drop, with per-core locking and reference counting.
 *
 * Zero copy: a harvested session is a range of positions in each of the
 * core's rings, never a heap copy of entries. The rings stay subscribed and
 * mapped while any session covers them (the active one or a stashed one),
 * and the consumer position of each ring is only ever moved up to the
 * oldest position a live session still needs, so the device cannot
 * overwrite what a stashed session will write later. Serialize hands the
 * range to the NTFF writer as at most two spans of the mapping.
 *
 * System trace: the engine records profile_start, profile_stop and
 * profile_serialize for every capture, whoever drives it (the inspect
 * session, MODEL and on-fail captures, continuous profiling, a direct user
 * of this API), so each is recorded once; a capture about a model carries
 * its id from start to serialize. The queues record their own events
 * (device_nq.c).
 *
 * Streaming (the default; capture_stream.c): every subscribed queue also
 * has a spool file where ring position p lives at offset p - base, so the
 * windows above stay the same whether their entries are still in the ring
 * or already in the spool. A drainer thread per engine moves ring contents
 * into the spools while the capture runs (only what the active session
 * needs; the rest is released unwritten), stop moves the rest itself, and
 * serialize writes each window from the spool and, for whatever a failed
 * spool left behind, from the ring. The ring's consumer position is then
 * the drainer's, and release_space() punches the spool instead.
 *
 * Locking: struct cap_core.lock guards a core's sessions, subscriptions
 * and spools; the drainer takes it around each queue it drains.
 * Serialize marks its session busy under the lock, writes without it (a
 * busy session keeps its range, its spool bytes and the subscriptions
 * alive) and takes the lock again to unstash it. struct cap_core.ref_lock
 * guards the count of calls in progress, which close waits to fall to zero
 * before it stops the drainer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/capture.h>
#include <neuronprof/ntff.h>
#include <neuronprof/output.h>

#include "capture/capture_internal.h"
#include "capture/capture_stream.h"
#include "device/device_internal.h"
#include "util/internal.h"
#include "util/tracepoint.h"

/* A subscribed queue of a core. */
struct cap_queue {
	struct nprof_queue_id id;
	struct nprof_nq *nq;
	uint64_t lost_base;		/* the ring's lost count at the subscription */
	uint64_t lost_seen;		/* ... when last added to the progress page */
	uint32_t watermark;		/* bytes, as subscribed */
	struct nprof_spool spool;	/* fd -1 without streaming */
};

/* A session's part of one queue: ring positions [begin, end) and losses. */
struct cap_window {
	uint64_t begin;
	uint64_t end;
	uint64_t lost_begin;
	uint64_t lost_end;
	uint32_t ring_flags;
};

/* A harvested session waiting in the stash. */
struct cap_session {
	struct cap_session *next;
	uint64_t id;
	bool busy;			/* being serialized */
	bool has_model;			/* a capture about model @model_id */
	uint64_t model_id;
	uint64_t start_ns;
	uint64_t stop_ns;
	struct cap_window w[];		/* one per cap_core.queues[] */
};

struct cap_core {
	/* Protects refs and closing. */
	pthread_mutex_t ref_lock;
	pthread_cond_t ref_cond;	/* signalled when refs drops to 0 */
	unsigned int refs;		/* calls in progress on this core */
	bool closing;

	/* Protects every member below. */
	pthread_mutex_t lock;
	uint32_t nc;
	struct cap_queue *queues;	/* NULL while nothing is subscribed */
	size_t nqueues;
	struct cap_window *active;	/* the active session's windows, or NULL */
	uint64_t active_start_ns;
	bool active_has_model;		/* as cap_session, for the active session */
	uint64_t active_model_id;
	uint64_t next_id;		/* minted at stop, monotonic */
	struct cap_session *stash;	/* oldest first */
};

struct nprof_capture {
	struct nprof_device *dev;
	struct nprof_capture_opts opts;
	pid_t pid;			/* the creator; a forked child only frees its copy */
	bool streaming;
	char *spool_dir;
	struct nprof_drainer *drainer;	/* NULL without streaming */
	uint64_t spooled_bytes;		/* atomic */
	char instance_id[NPROF_INSTANCE_ID_MAX + 1];
	char hostname[256];
	uint32_t ncores;
	struct cap_core cores[];
};

/* The size of struct nprof_capture_opts before flags and spool_dir. */
#define CAPTURE_OPTS_V1_SIZE	offsetof(struct nprof_capture_opts, flags)

/* ---- queue plan ------------------------------------------------------------- */

static void plan_add(struct nprof_queue_id *out, size_t max, size_t *n, uint32_t kind,
		     uint32_t index, uint32_t type, uint32_t engine)
{
	if (*n < max)
		out[*n] = (struct nprof_queue_id){ kind, index, type, engine };
	(*n)++;
}

static void plan_target(const struct nprof_device_info *info, uint32_t nc, uint32_t kind,
			uint32_t index, struct nprof_queue_id *out, size_t max, size_t *n)
{
	uint32_t types = kind == NPROF_TARGET_CORE ? info->core_queue_types : info->topsp_queue_types;
	uint32_t type, engine, engines;

	for (type = 0; type < 32; type++) {
		if (!(types & (1u << type)))
			continue;
		if (nprof_ntff_map_queue_type(type, NULL, NULL)) {
			/* The seed drops unmapped types the same way: never written. */
			nprof_log(NPROF_LOG_DEBUG,
				  "NC %u: dropping queue type %u of %s %u: not a queue type this library knows",
				  nc, type, kind == NPROF_TARGET_CORE ? "core" : "TopSP", index);
			continue;
		}
		engines = kind == NPROF_TARGET_CORE && (info->per_engine_queue_types & (1u << type)) ?
				  info->engines_per_core : 1;
		for (engine = 0; engine < engines; engine++)
			plan_add(out, max, n, kind, index, type, engine);
	}
}

size_t nprof_capture_plan(const struct nprof_device_info *info, uint32_t nc,
			  struct nprof_queue_id *out, size_t max)
{
	uint32_t per = info->num_cores ? info->num_topsps / info->num_cores : 0;
	size_t n = 0;
	uint32_t t;

	plan_target(info, nc, NPROF_TARGET_CORE, nc, out, max, &n);
	for (t = 0; per && t < info->num_topsps; t++)
		if (t / per == nc)
			plan_target(info, nc, NPROF_TARGET_TOPSP, t, out, max, &n);
	return n;
}

/* ---- engine lifetime --------------------------------------------------------- */

/*
 * Where spools go without a spool_dir option: $TMPDIR, else /var/tmp (a
 * disk, where /tmp may be memory), else /tmp when /var/tmp is missing.
 */
static const char *default_spool_dir(void)
{
	const char *d = getenv("TMPDIR");

	if (d && *d)
		return d;
	return access("/var/tmp", W_OK | X_OK) ? "/tmp" : "/var/tmp";
}

static void drain_cb(void *arg, uint64_t key);

NPROF_API struct nprof_capture *nprof_capture_create(struct nprof_device *dev,
						     const struct nprof_capture_opts *opts)
{
	bool v2 = opts && opts->size >= sizeof(*opts);
	struct nprof_capture *cap;
	uint32_t i, t;
	int ret;

	if (!dev)
		return nprof_err_ptr(EINVAL, "device is NULL");
	if (opts && opts->size < CAPTURE_OPTS_V1_SIZE)
		return nprof_err_ptr(EINVAL, "struct nprof_capture_opts size %zu is unsupported (this library: %zu)",
				     opts->size, sizeof(*opts));
	if (v2 && ((opts->flags & ~NPROF_CAPTURE_ZERO_COPY) || opts->reserved))
		return nprof_err_ptr(EINVAL, "unknown capture option flags 0x%x or reserved 0x%x",
				     opts->flags & ~NPROF_CAPTURE_ZERO_COPY, opts->reserved);
	cap = calloc(1, sizeof(*cap) + dev->info.num_cores * sizeof(cap->cores[0]));
	if (!cap)
		return nprof_err_ptr(ENOMEM, "cannot allocate a capture engine for %u cores",
				     dev->info.num_cores);
	cap->dev = dev;
	cap->ncores = dev->info.num_cores;
	cap->pid = getpid();
	cap->opts.size = sizeof(cap->opts);
	for (t = 0; t < NPROF_QUEUE_TYPES; t++)
		cap->opts.ring_size[t] = opts && opts->ring_size[t] ? opts->ring_size[t] :
								      NPROF_CAPTURE_DEFAULT_RING_SIZE;
	cap->opts.flags = v2 ? opts->flags : 0;
	cap->streaming = !(cap->opts.flags & NPROF_CAPTURE_ZERO_COPY);
	if (cap->streaming) {
		cap->spool_dir = strdup(v2 && opts->spool_dir ? opts->spool_dir : default_spool_dir());
		if (!cap->spool_dir) {
			free(cap);
			return nprof_err_ptr(ENOMEM, "cannot allocate a capture engine");
		}
		cap->opts.spool_dir = cap->spool_dir;
		cap->drainer = nprof_drainer_start(drain_cb, cap);
		if (!cap->drainer) {
			ret = errno;
			free(cap->spool_dir);
			free(cap);
			return nprof_err_ptr(ret, "cannot create a capture engine: %s",
					     nprof_err_current());
		}
	}
	ret = nprof_output_instance_id(NULL, cap->instance_id, sizeof(cap->instance_id));
	if (ret < 0) {
		nprof_log(NPROF_LOG_WARN, "no instance id for profiles: %s", nprof_err_current());
		cap->instance_id[0] = '\0';
	}
	if (gethostname(cap->hostname, sizeof(cap->hostname)))
		cap->hostname[0] = '\0';
	cap->hostname[sizeof(cap->hostname) - 1] = '\0';
	for (i = 0; i < cap->ncores; i++) {
		struct cap_core *c = &cap->cores[i];

		pthread_mutex_init(&c->ref_lock, NULL);
		pthread_cond_init(&c->ref_cond, NULL);
		pthread_mutex_init(&c->lock, NULL);
		c->nc = i;
	}
	return cap;
}

/*
 * Enter a call on core @nc: counts it so close waits for it, and takes the
 * core's lock. core_put() drops both.
 */
static int core_get(struct nprof_capture *cap, uint32_t nc, struct cap_core **out)
{
	struct cap_core *c;

	if (!cap)
		return nprof_err(EINVAL, "capture engine is NULL");
	if (nc >= cap->ncores)
		return nprof_err(EINVAL, "NC %u does not exist (the device has %u NeuronCores)", nc,
				 cap->ncores);
	c = &cap->cores[nc];
	pthread_mutex_lock(&c->ref_lock);
	if (c->closing) {
		pthread_mutex_unlock(&c->ref_lock);
		return nprof_err(ESHUTDOWN, "the capture engine is closing");
	}
	c->refs++;
	pthread_mutex_unlock(&c->ref_lock);
	pthread_mutex_lock(&c->lock);
	*out = c;
	return 0;
}

static void core_put(struct cap_core *c)
{
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_lock(&c->ref_lock);
	if (!--c->refs)
		pthread_cond_broadcast(&c->ref_cond);
	pthread_mutex_unlock(&c->ref_lock);
}

static void unsubscribe_all(struct nprof_capture *cap, struct cap_core *c)
{
	size_t i;

	for (i = 0; i < c->nqueues; i++) {
		struct cap_queue *q = &c->queues[i];

		if (cap->drainer)
			nprof_drainer_unwatch(cap->drainer, nprof_nq_fd(q->nq));
		nprof_spool_close(&q->spool);
		nprof_nq_close(q->nq);
	}
	free(c->queues);
	c->queues = NULL;
	c->nqueues = 0;
}

static void free_stash(struct cap_core *c)
{
	while (c->stash) {
		struct cap_session *s = c->stash;

		c->stash = s->next;
		free(s);
	}
}

/*
 * A forked child holds a copy of a parent's engine: no drainer thread, and
 * locks that may have been held at fork(). It closes its copies of the
 * descriptors and mappings (the parent's subscriptions live on) and frees.
 */
static void forget_inherited(struct nprof_capture *cap)
{
	uint32_t i;
	size_t q;

	nprof_drainer_forget(cap->drainer);
	for (i = 0; i < cap->ncores; i++) {
		struct cap_core *c = &cap->cores[i];

		for (q = 0; q < c->nqueues; q++) {
			nprof_spool_close(&c->queues[q].spool);
			nprof_nq_close(c->queues[q].nq);
		}
		free(c->queues);
		free(c->active);
		free_stash(c);
	}
	free(cap->spool_dir);
	free(cap);
}

NPROF_API void nprof_capture_close(struct nprof_capture *cap)
{
	uint32_t i;

	if (!cap)
		return;
	if (cap->pid != getpid()) {
		forget_inherited(cap);
		return;
	}
	for (i = 0; i < cap->ncores; i++) {
		struct cap_core *c = &cap->cores[i];

		pthread_mutex_lock(&c->ref_lock);
		c->closing = true;
		while (c->refs)
			pthread_cond_wait(&c->ref_cond, &c->ref_lock);
		pthread_mutex_unlock(&c->ref_lock);
	}
	/* No call runs any more: stop the drainer before the cores go. */
	nprof_drainer_stop(cap->drainer);
	cap->drainer = NULL;
	for (i = 0; i < cap->ncores; i++) {
		struct cap_core *c = &cap->cores[i];

		if (c->active || c->stash)
			nprof_log(NPROF_LOG_DEBUG, "NC %u: closing discards %s%s", i,
				  c->active ? "an active session " : "",
				  c->stash ? "stashed sessions" : "");
		free(c->active);
		free_stash(c);
		unsubscribe_all(cap, c);
		pthread_mutex_destroy(&c->lock);
		pthread_cond_destroy(&c->ref_cond);
		pthread_mutex_destroy(&c->ref_lock);
	}
	free(cap->spool_dir);
	free(cap);
}

/* ---- subscriptions and ring space -------------------------------------------- */

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Key of queue @i of core @nc for the drainer. */
static inline uint64_t drain_key(uint32_t nc, size_t i)
{
	return (uint64_t)nc << 32 | (uint32_t)i;
}

static void queue_warn(const struct cap_core *c, const struct cap_queue *q, const char *what)
{
	nprof_log(NPROF_LOG_WARN,
		  "NC %u: queue type %u target %u/%u engine %u %s: %s; its entries stay in the ring, and what does not fit is counted as lost",
		  c->nc, q->id.queue_type, q->id.target_kind, q->id.target_index, q->id.engine,
		  what, nprof_err_current());
}

/*
 * Give queue @i a spool and have the drainer watch it. A queue that cannot
 * stream keeps its entries in its ring (zero copy): a profile with losses
 * beats no profile; subscribe_all() warns once. Called locked.
 */
static int stream_queue(struct nprof_capture *cap, struct cap_core *c, size_t i)
{
	struct cap_queue *q = &c->queues[i];
	uint64_t base = nprof_ring_load_consumer(nprof_nq_ring(q->nq));
	int ret;

	ret = nprof_spool_open(&q->spool, cap->spool_dir, base);
	if (ret)
		return ret;
	ret = nprof_drainer_watch(cap->drainer, nprof_nq_fd(q->nq), drain_key(c->nc, i));
	if (ret) {
		q->spool.err = ret;
		nprof_spool_close(&q->spool);
	}
	return ret;
}

/* Report the losses of queue @q not reported yet to the progress page. Called locked. */
static void account_lost(struct cap_queue *q)
{
	uint64_t lost = __atomic_load_n(&nprof_nq_ring(q->nq)->hdr->lost, __ATOMIC_RELAXED);

	if (lost != q->lost_seen) {
		nprof_progress_add(0, 0, lost - q->lost_seen);
		q->lost_seen = lost;
	}
}

/*
 * Move what queue @i's ring holds into its spool: what the active session
 * needs is written, the rest released unwritten. Called locked.
 */
static int pull_queue(struct nprof_capture *cap, struct cap_core *c, size_t i)
{
	struct cap_queue *q = &c->queues[i];
	bool failed = q->spool.err != 0;
	int64_t n;

	account_lost(q);
	if (q->spool.fd < 0)
		return q->spool.err;
	n = nprof_spool_pull(&q->spool, nprof_nq_ring(q->nq), c->active ? &c->active[i].begin : NULL,
			     q->watermark);
	if (n < 0) {
		if (!failed)
			queue_warn(c, q, "stopped streaming");
		return (int)n;
	}
	__atomic_fetch_add(&cap->spooled_bytes, (uint64_t)n, __ATOMIC_RELAXED);
	nprof_progress_add((uint64_t)n / nprof_nq_ring(q->nq)->entry_size, (uint64_t)n, 0);
	return 0;
}

/* The drainer's callback: one queue, or every queue of every core. */
static void drain_cb(void *arg, uint64_t key)
{
	struct nprof_capture *cap = arg;
	uint32_t nc, first = 0, last = cap->ncores;
	size_t i;

	if (key != NPROF_DRAIN_ALL) {
		first = (uint32_t)(key >> 32);
		last = first + 1;
		if (first >= cap->ncores)
			return;
	}
	for (nc = first; nc < last; nc++) {
		struct cap_core *c = &cap->cores[nc];

		pthread_mutex_lock(&c->lock);
		for (i = 0; i < c->nqueues; i++)
			if (key == NPROF_DRAIN_ALL || i == (uint32_t)key)
				pull_queue(cap, c, i);
		pthread_mutex_unlock(&c->lock);
	}
}

/* Subscribe every queue of the plan; all or nothing. Called locked. */
static int subscribe_all(struct nprof_capture *cap, struct cap_core *c)
{
	const struct nprof_device_info *info = &cap->dev->info;
	struct nprof_queue_id *ids;
	size_t n, i, unstreamed = 0;
	char why[256] = "";
	int ret = 0;

	n = nprof_capture_plan(info, c->nc, NULL, 0);
	if (!n)
		return nprof_err(ENODEV, "NC %u has no queue this library can capture", c->nc);
	ids = calloc(n, sizeof(*ids));
	c->queues = calloc(n, sizeof(*c->queues));
	if (!ids || !c->queues) {
		free(ids);
		free(c->queues);
		c->queues = NULL;
		return nprof_err(ENOMEM, "cannot allocate %zu queues for NC %u", n, c->nc);
	}
	nprof_capture_plan(info, c->nc, ids, n);
	for (i = 0; i < n; i++) {
		struct nprof_nq_params p = {
			.size = sizeof(p),
			.target_kind = ids[i].target_kind,
			.target_index = ids[i].target_index,
			.queue_type = ids[i].queue_type,
			.engine = ids[i].engine,
			.ring_size = cap->opts.ring_size[ids[i].queue_type],
		};
		struct cap_queue *q = &c->queues[i];

		/* Streaming: woken a quarter full, three quarters left to wake in. */
		if (cap->streaming)
			p.watermark = (uint32_t)(nprof_device_ring_size(cap->dev, p.ring_size) / 4);
		q->id = ids[i];
		q->spool.fd = -1;
		q->nq = nprof_nq_subscribe(cap->dev, &p);
		if (!q->nq) {
			ret = nprof_err(errno, "cannot start a profile session on NC %u: %s", c->nc,
					nprof_err_current());
			break;
		}
		c->nqueues = i + 1;
		q->watermark = p.watermark;
		q->lost_base = __atomic_load_n(&nprof_nq_ring(q->nq)->hdr->lost, __ATOMIC_RELAXED);
		q->lost_seen = q->lost_base;
		if (cap->streaming && stream_queue(cap, c, i) && !unstreamed++)
			snprintf(why, sizeof(why), "%s", nprof_err_current());
	}
	free(ids);
	if (ret)
		unsubscribe_all(cap, c);
	else if (unstreamed)
		nprof_log(NPROF_LOG_WARN,
			  "NC %u: %zu of %zu queues cannot stream (%s): their entries stay in the rings, and what does not fit is counted as lost",
			  c->nc, unstreamed, n, why);
	return ret;
}

/*
 * Give back the ring space no live session needs: each ring's consumer
 * moves to the oldest begin of the active and the stashed sessions (busy
 * ones included). Without any session left, unsubscribe. Called locked.
 */
static void release_space(struct nprof_capture *cap, struct cap_core *c)
{
	size_t i;

	if (!c->active && !c->stash) {
		unsubscribe_all(cap, c);
		return;
	}
	for (i = 0; i < c->nqueues; i++) {
		struct cap_queue *q = &c->queues[i];
		struct nprof_ring *ring = nprof_nq_ring(q->nq);
		uint64_t cons = nprof_ring_load_consumer(ring);
		/* A spool holds everything since its base; a ring since its consumer. */
		uint64_t from = q->spool.fd >= 0 ? q->spool.base : cons;
		uint64_t best = UINT64_MAX, pos = cons;
		struct cap_session *s;

		/* Distances from there stay ordered when positions wrap. */
		if (c->active && c->active[i].begin - from < best) {
			best = c->active[i].begin - from;
			pos = c->active[i].begin;
		}
		for (s = c->stash; s; s = s->next) {
			if (s->w[i].begin - from < best) {
				best = s->w[i].begin - from;
				pos = s->w[i].begin;
			}
		}
		if (q->spool.fd >= 0)
			nprof_spool_punch(&q->spool, pos);
		/* The ring gives back what nobody needs, never below what it holds. */
		if (pos - cons <= nprof_ring_load_producer(ring) - cons && pos != cons) {
			if (nprof_ring_release(ring, pos))
				nprof_log(NPROF_LOG_WARN, "NC %u: %s", c->nc, nprof_err_current());
			else if (q->spool.fd >= 0)
				q->spool.spooled = pos;	/* released unwritten: a hole */
		}
	}
}

/*
 * Positions, lost count and flags of a queue: NQ_DRAIN (with a flush if
 * asked), else the mapped header as it is (a failed flush, a removed device:
 * the mapping stays valid and a partial profile beats none).
 */
static void queue_snapshot(struct cap_core *c, struct nprof_nq *nq, bool flush,
			   struct nprof_nq_drain_state *st)
{
	struct nprof_ring_state rs = { .size = sizeof(rs) };

	st->size = sizeof(*st);
	if (!nprof_nq_drain(nq, flush ? NPROF_NQ_DRAIN_FLUSH : 0, st))
		return;
	nprof_log(NPROF_LOG_WARN, "NC %u: %s; using the ring as it is", c->nc, nprof_err_current());
	if (flush && !nprof_nq_drain(nq, 0, st))
		return;
	nprof_ring_get_state(nprof_nq_ring(nq), &rs);
	st->producer_pos = rs.producer_pos;
	st->consumer_pos = rs.consumer_pos;
	st->lost = rs.lost;
	st->ring_flags = rs.flags;
}

/* ---- system trace ---------------------------------------------------------------- */

/* Begin a profile_* event on the trace's core of core @c of the device. */
static int trace_begin(struct nprof_sys_trace_event *ev, uint32_t type,
		       const struct nprof_capture *cap, const struct cap_core *c)
{
	return nprof_tp_begin(ev, type, NPROF_SYS_TRACE_SRC_NEURON_RT,
				     nprof_device_trace_core(cap->dev, NPROF_TARGET_CORE, c->nc));
}

/* End it, with the model if the capture has one and @n attributes of @a. */
static void trace_end(struct nprof_sys_trace_event *ev, int want, bool has_model,
		      uint64_t model_id, const struct nprof_sys_trace_attr *a, uint32_t n)
{
	if (want != 1)
		return;
	if (has_model) {
		ev->flags |= NPROF_SYS_TRACE_F_MODEL_ID;
		ev->model_id = model_id;
	}
	ev->attrs = a;
	ev->nattrs = n;
	nprof_tp_end(ev);
}

static inline struct nprof_sys_trace_attr uint_attr(const char *key, uint64_t v)
{
	return (struct nprof_sys_trace_attr){ .key = key, .type = NPROF_SYS_TRACE_ATTR_UINT, .v.u = v };
}

/*
 * Whether a harvested window can be written: its part not in the spool is
 * at most one ring long (the ring cannot hold more unread), and its end is
 * not past what the producer published.
 */
static bool window_fits(const struct cap_queue *q, struct nprof_ring *ring,
			const struct cap_window *w)
{
	uint64_t from = w->begin;

	if (q->spool.fd >= 0 && (int64_t)(q->spool.spooled - w->begin) > 0)
		from = (int64_t)(q->spool.spooled - w->end) >= 0 ? w->end : q->spool.spooled;
	return (int64_t)(w->end - w->begin) >= 0 && w->end - from <= ring->size;
}

/* ---- sessions ------------------------------------------------------------------ */

int nprof_capture_session_start_for(struct nprof_capture *cap, uint32_t nc,
				    const uint64_t *model_id)
{
	struct nprof_sys_trace_attr attr;
	struct nprof_sys_trace_event ev;
	bool flush, fresh;
	struct cap_window *w;
	struct cap_core *c;
	size_t i;
	int ret, want;

	ret = core_get(cap, nc, &c);
	if (ret)
		return ret;
	want = trace_begin(&ev, NPROF_EV_PROFILE_START, cap, c);
	flush = cap->dev->info.caps & NPROF_DEVICE_CAP_FLUSH;
	if (c->active) {
		ret = nprof_err(EBUSY, "a profile session is already active on NC %u", nc);
		goto out;
	}
	fresh = !c->queues;
	if (fresh) {
		ret = subscribe_all(cap, c);
		if (ret)
			goto out;
	}
	w = calloc(c->nqueues, sizeof(*w));
	if (!w) {
		ret = nprof_err(ENOMEM, "cannot allocate a session for NC %u", nc);
		if (fresh)
			unsubscribe_all(cap, c);
		goto out;
	}
	for (i = 0; i < c->nqueues; i++) {
		struct nprof_nq_drain_state st;

		if (fresh) {
			/* Everything since the subscription belongs to this session. */
			w[i].begin = nprof_ring_load_consumer(nprof_nq_ring(c->queues[i].nq));
			continue;
		}
		/*
		 * Reused rings (an unserialized session holds them): begin
		 * after what is in flight now, so it is not counted twice.
		 */
		queue_snapshot(c, c->queues[i].nq, flush, &st);
		w[i].begin = st.producer_pos;
		w[i].lost_begin = st.lost;
	}
	c->active = w;
	c->active_start_ns = now_ns((clockid_t)cap->dev->info.clock_id);
	c->active_has_model = model_id != NULL;
	c->active_model_id = model_id ? *model_id : 0;
	release_space(cap, c);
	attr = uint_attr("queues", c->nqueues);
	trace_end(&ev, want, c->active_has_model, c->active_model_id, &attr, 1);
out:
	core_put(c);
	return ret;
}

NPROF_API int nprof_capture_session_start(struct nprof_capture *cap, uint32_t nc)
{
	return nprof_capture_session_start_for(cap, nc, NULL);
}

NPROF_API int nprof_capture_session_active(struct nprof_capture *cap, uint32_t nc)
{
	struct cap_core *c;
	int ret;

	ret = core_get(cap, nc, &c);
	if (ret)
		return ret;
	ret = c->active != NULL;
	core_put(c);
	return ret;
}

NPROF_API int nprof_capture_session_stop(struct nprof_capture *cap, uint32_t nc,
					 uint64_t *session_id)
{
	struct nprof_sys_trace_attr attrs[3];
	struct nprof_sys_trace_event ev;
	uint64_t entries = 0, lost = 0;
	struct cap_session *s, **tail;
	struct cap_core *c;
	bool flush;
	size_t i;
	int ret, want;

	if (!session_id)
		return nprof_err(EINVAL, "session id pointer is NULL");
	ret = core_get(cap, nc, &c);
	if (ret)
		return ret;
	want = trace_begin(&ev, NPROF_EV_PROFILE_STOP, cap, c);
	flush = cap->dev->info.caps & NPROF_DEVICE_CAP_FLUSH;
	if (!c->active) {
		ret = nprof_err(EINVAL, "no active profile session for NC %u", nc);
		goto out;
	}
	s = calloc(1, sizeof(*s) + c->nqueues * sizeof(s->w[0]));
	if (!s) {
		ret = nprof_err(ENOMEM, "cannot allocate the harvest of NC %u", nc);
		goto out;
	}
	for (i = 0; i < c->nqueues; i++) {
		struct cap_queue *q = &c->queues[i];
		struct nprof_nq *nq = q->nq;
		struct nprof_ring *ring = nprof_nq_ring(nq);
		struct nprof_nq_drain_state st;
		struct cap_window *w = &s->w[i];

		queue_snapshot(c, nq, flush, &st);
		*w = c->active[i];
		w->end = st.producer_pos;
		w->lost_end = st.lost;
		w->ring_flags = st.ring_flags;
		/* Streaming: the rest into the spool now, while the session is active. */
		pull_queue(cap, c, i);
		account_lost(q);
		/* A ring cannot hold more than its size unread: anything else is corrupt. */
		if ((w->end - w->begin) % ring->entry_size || !window_fits(q, ring, w) ||
		    w->lost_end < w->lost_begin) {
			nprof_log(NPROF_LOG_ERROR,
				  "NC %u: queue type %u target %u/%u engine %u reports positions %llu..%llu, lost %llu..%llu; dropping its entries",
				  nc, ring->queue_type, ring->target_kind, ring->target_index,
				  ring->engine, (unsigned long long)w->begin,
				  (unsigned long long)w->end, (unsigned long long)w->lost_begin,
				  (unsigned long long)w->lost_end);
			w->end = w->begin;
			w->lost_end = w->lost_begin;
		}
		entries += (w->end - w->begin) / ring->entry_size;
		lost += w->lost_end - w->lost_begin;
	}
	s->start_ns = c->active_start_ns;
	s->stop_ns = now_ns((clockid_t)cap->dev->info.clock_id);
	s->id = c->next_id++;
	s->has_model = c->active_has_model;
	s->model_id = c->active_model_id;
	for (tail = &c->stash; *tail; tail = &(*tail)->next)
		;
	*tail = s;
	free(c->active);
	c->active = NULL;
	*session_id = s->id;
	attrs[0] = uint_attr("session_id", s->id);
	attrs[1] = uint_attr("entries", entries);
	attrs[2] = uint_attr("lost", lost);
	trace_end(&ev, want, s->has_model, s->model_id, attrs, 3);
out:
	core_put(c);
	return ret;
}

/* Find a stashed session; -ENOENT / -EBUSY with the message. Called locked. */
static int find_session(struct cap_core *c, uint64_t id, bool allow_busy,
			struct cap_session ***link)
{
	struct cap_session **p;

	for (p = &c->stash; *p; p = &(*p)->next) {
		if ((*p)->id != id)
			continue;
		if ((*p)->busy && !allow_busy)
			return nprof_err(EBUSY, "profile session id %llu of NC %u is being serialized",
					 (unsigned long long)id, c->nc);
		*link = p;
		return 0;
	}
	return nprof_err(ENOENT, "unable to find profile session id %llu", (unsigned long long)id);
}

/*
 * core_get() and the stashed session @id of that core: on success the call
 * is counted and the core's lock held, as after core_get().
 */
static int session_get(struct nprof_capture *cap, uint32_t nc, uint64_t id, bool allow_busy,
		       struct cap_core **out, struct cap_session ***link)
{
	struct cap_core *c;
	int ret;

	ret = core_get(cap, nc, &c);
	if (ret)
		return ret;
	ret = find_session(c, id, allow_busy, link);
	if (ret) {
		core_put(c);
		return ret;
	}
	*out = c;
	return 0;
}

/* Take the session at *@link out of the stash and give back its ring space. Called locked. */
static void unstash(struct nprof_capture *cap, struct cap_core *c, struct cap_session **link)
{
	struct cap_session *s = *link;

	*link = s->next;
	free(s);
	release_space(cap, c);
}

/*
 * Write one session; no lock held (the busy session pins what it reads).
 * @fname and @label come from nprof_capture_session_serialize_named(); NULL
 * means the SESSION file name and description.
 */
static int write_session(struct nprof_capture *cap, struct cap_core *c,
			 const struct cap_session *s, int dirfd, const char *fname,
			 const struct nprof_capture_label *label)
{
	const struct nprof_device_info *di = &cap->dev->info;
	struct nprof_ntff_writer *w;
	struct nprof_ntff_info info;
	char name[NAME_MAX + 1];
	size_t i;
	int ret;

	if (fname) {
		ret = snprintf(name, sizeof(name), "%s", fname);
		if (ret < 0 || (size_t)ret >= sizeof(name))
			return nprof_err(ENAMETOOLONG, "file name '%.32s...' is longer than NAME_MAX",
					 fname);
	} else {
		ret = nprof_output_session_ntff_name(name, sizeof(name), c->nc, s->id);
		if (ret < 0)
			return ret;
	}
	w = nprof_ntff_writer_createat(dirfd, name, 0);
	if (!w)
		return nprof_err(errno, "cannot serialize profile session id %llu of NC %u: %s",
				 (unsigned long long)s->id, c->nc, nprof_err_current());

	/*
	 * The device is described once per file, in the capture description,
	 * not per queue: every queue of a session comes from this device.
	 */
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.pid = (uint32_t)getpid();
	info.core = label && label->has_core ? label->core : c->nc;
	info.capture_kind = label ? label->capture_kind : NPROF_NTFF_CAPTURE_SESSION;
	info.clock_id = di->clock_id;
	info.session_id = s->id;
	info.model_name = label ? label->model_name : NULL;
	info.model_id = label ? label->model_id : 0;
	info.instance_id = cap->instance_id[0] ? cap->instance_id : NULL;
	info.hostname = cap->hostname[0] ? cap->hostname : NULL;
	info.start_ns = s->start_ns;
	info.stop_ns = s->stop_ns;
	info.device.arch = di->arch;
	info.device.uapi_version = di->uapi_version;
	info.device.num_cores = di->num_cores;
	info.device.num_topsps = di->num_topsps;
	info.device.engines_per_core = di->engines_per_core;
	info.device.entry_size = di->entry_size;
	info.device.device_index = di->device_index;
	info.device.provider = di->provider;
	info.device.clock_domain = di->clock_domain;
	info.device.raw_format = di->raw_format;
	info.device.raw_entry_size = di->raw_entry_size;
	ret = nprof_ntff_writer_set_info(w, &info);

	for (i = 0; !ret && i < c->nqueues; i++) {
		struct cap_queue *q = &c->queues[i];
		const struct cap_window *win = &s->w[i];
		struct nprof_ring *ring = nprof_nq_ring(q->nq);
		struct nprof_ntff_queue_desc desc;

		if (nprof_ntff_map_queue_type(q->id.queue_type, NULL, NULL)) {
			nprof_log(NPROF_LOG_DEBUG, "NC %u: dropping queue type %u: not a queue type this library knows",
				  c->nc, q->id.queue_type);
			continue;
		}
		memset(&desc, 0, sizeof(desc));
		desc.size = sizeof(desc);
		desc.queue_type = q->id.queue_type;
		desc.target_kind = q->id.target_kind;
		desc.target_index = q->id.target_index;
		desc.engine = q->id.engine;
		desc.entry_size = ring->entry_size;
		desc.ring_flags = win->ring_flags;
		desc.lost_count = win->lost_end - win->lost_begin;
		/* From the spool, and from the ring what a failed spool left there. */
		ret = nprof_spool_write(&q->spool, ring, w, &desc, win->begin, win->end);
	}
	if (ret) {
		nprof_ntff_writer_abort(w);
	} else {
		ret = nprof_ntff_writer_finalize(w);
	}
	if (ret)
		return nprof_err(-ret, "cannot serialize profile session id %llu of NC %u into %s: %s",
				 (unsigned long long)s->id, c->nc, name, nprof_err_current());
	return 0;
}

NPROF_API int nprof_capture_session_serialize_at(struct nprof_capture *cap, uint32_t nc,
						 uint64_t session_id, int dirfd)
{
	return nprof_capture_session_serialize_named(cap, nc, session_id, dirfd, NULL, NULL);
}

int nprof_capture_session_serialize_named(struct nprof_capture *cap, uint32_t nc,
					  uint64_t session_id, int dirfd, const char *fname,
					  const struct nprof_capture_label *label)
{
	struct nprof_sys_trace_attr attrs[2];
	struct nprof_sys_trace_event ev;
	struct cap_session **link, *s;
	struct cap_core *c;
	int ret, want;

	ret = session_get(cap, nc, session_id, false, &c, &link);
	if (ret)
		return ret;
	s = *link;
	s->busy = true;
	pthread_mutex_unlock(&c->lock);

	/* Recorded whether the write works or not: the time went into it either way. */
	want = trace_begin(&ev, NPROF_EV_PROFILE_SERIALIZE, cap, c);
	ret = write_session(cap, c, s, dirfd, fname, label);
	attrs[0] = uint_attr("session_id", s->id);
	attrs[1] = (struct nprof_sys_trace_attr){
		.key = "error", .type = NPROF_SYS_TRACE_ATTR_INT, .v.i = -ret,
	};
	trace_end(&ev, want, s->has_model, s->model_id, attrs, ret ? 2 : 1);

	pthread_mutex_lock(&c->lock);
	s->busy = false;
	if (!ret) {
		/* Other sessions may have been unstashed meanwhile: look again. */
		for (link = &c->stash; *link != s; link = &(*link)->next)
			;
		unstash(cap, c, link);
	}
	core_put(c);
	return ret;
}

NPROF_API int nprof_capture_session_serialize(struct nprof_capture *cap, uint32_t nc,
					      uint64_t session_id, const char *dir)
{
	int fd, ret;

	if (!dir)
		return nprof_err(EINVAL, "output directory is NULL");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return nprof_err(errno, "cannot open directory %s: %s", dir, strerror(errno));
	ret = nprof_capture_session_serialize_at(cap, nc, session_id, fd);
	close(fd);
	return ret;
}

NPROF_API int nprof_capture_session_drop(struct nprof_capture *cap, uint32_t nc,
					 uint64_t session_id)
{
	struct cap_session **link;
	struct cap_core *c;
	int ret;

	ret = session_get(cap, nc, session_id, false, &c, &link);
	if (ret)
		return ret;
	unstash(cap, c, link);
	core_put(c);
	return 0;
}

NPROF_API int nprof_capture_session_stats(struct nprof_capture *cap, uint32_t nc,
					  uint64_t session_id, struct nprof_capture_stats *st)
{
	struct cap_session **link, *s;
	struct cap_core *c;
	size_t size, i;
	int ret;

	if (!st)
		return nprof_err(EINVAL, "stats is NULL");
	if (st->size < sizeof(*st))
		return nprof_err(EINVAL, "struct nprof_capture_stats size %zu is unsupported (this library: %zu)",
				 st->size, sizeof(*st));
	ret = session_get(cap, nc, session_id, true, &c, &link);
	if (ret)
		return ret;
	s = *link;
	size = st->size;
	memset(st, 0, sizeof(*st));
	st->size = size;
	st->start_ns = s->start_ns;
	st->stop_ns = s->stop_ns;
	for (i = 0; i < c->nqueues; i++) {
		uint32_t t = c->queues[i].id.queue_type;
		uint32_t es = nprof_nq_ring(c->queues[i].nq)->entry_size;

		if (t >= NPROF_QUEUE_TYPES)
			continue;
		st->queues++;
		st->entries[t] += (s->w[i].end - s->w[i].begin) / es;
		st->lost[t] += s->w[i].lost_end - s->w[i].lost_begin;
		st->ring_flags |= s->w[i].ring_flags;
	}
	core_put(c);
	return 0;
}

NPROF_API int nprof_capture_session_sync(struct nprof_capture *cap, uint32_t nc)
{
	struct cap_core *c;
	size_t i;
	int ret;

	ret = core_get(cap, nc, &c);
	if (ret)
		return ret;
	if (!cap->streaming) {
		core_put(c);
		return 0;
	}
	/* Counted but unlocked: the drainer needs the lock; close waits for us. */
	pthread_mutex_unlock(&c->lock);
	ret = nprof_drainer_sync(cap->drainer);
	pthread_mutex_lock(&c->lock);
	for (i = 0; !ret && i < c->nqueues; i++) {
		if (c->queues[i].spool.err)
			ret = nprof_err(-c->queues[i].spool.err,
					"NC %u: queue type %u target %u/%u engine %u does not stream",
					nc, c->queues[i].id.queue_type, c->queues[i].id.target_kind,
					c->queues[i].id.target_index, c->queues[i].id.engine);
	}
	core_put(c);
	return ret;
}

NPROF_API int nprof_capture_get_progress(struct nprof_capture *cap,
					 struct nprof_capture_progress *p)
{
	size_t size, i;
	uint32_t nc;

	if (!cap || !p)
		return nprof_err(EINVAL, "capture engine or progress is NULL");
	if (p->size < sizeof(*p))
		return nprof_err(EINVAL, "struct nprof_capture_progress size %zu is unsupported (this library: %zu)",
				 p->size, sizeof(*p));
	size = p->size;
	memset(p, 0, size);
	p->size = size;
	p->streaming = cap->streaming;
	p->bytes = __atomic_load_n(&cap->spooled_bytes, __ATOMIC_RELAXED);
	p->entries = p->bytes / cap->dev->info.entry_size;
	for (nc = 0; nc < cap->ncores; nc++) {
		struct cap_core *c = &cap->cores[nc];

		pthread_mutex_lock(&c->lock);
		for (i = 0; i < c->nqueues; i++) {
			struct nprof_ring *ring = nprof_nq_ring(c->queues[i].nq);

			p->lost += __atomic_load_n(&ring->hdr->lost, __ATOMIC_RELAXED) -
				   c->queues[i].lost_base;
		}
		p->queues += (uint32_t)c->nqueues;
		pthread_mutex_unlock(&c->lock);
	}
	return 0;
}
