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
 * Streaming (the default; capture_stream.c): a session's NTFF file is
 * written while it runs. Start opens a pending writer (an unnamed file in
 * the spool directory), a drainer thread per engine appends what the rings
 * hold to the active session's file as the watermarks are crossed and
 * releases that ring space, stop appends the rest, and serialize only
 * completes the file and links it into place: every entry is written once.
 * A window's @streamed says how far its entries are in the file; what is
 * beyond (all of it without streaming, or after a failed write) stays in
 * the ring and serialize appends it from there, so the consumer position
 * is only ever moved up to the oldest position a session still needs in the
 * ring (need_pos()).
 *
 * Locking: struct cap_core.lock guards a core's sessions, subscriptions
 * and pending writers; the drainer takes it around each queue it drains.
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
#include "ntff/ntff_internal.h"
#include "util/internal.h"
#include "util/tracepoint.h"

/* A subscribed queue of a core. */
struct cap_queue {
	struct nprof_queue_id id;
	struct nprof_nq *nq;
	uint64_t lost_base;		/* the ring's lost count at the subscription */
	uint64_t lost_seen;		/* ... when last added to the progress page */
	uint32_t watermark;		/* bytes, as subscribed */
	int stream_err;			/* -errno of its last failed stream, 0 if none */
};

/*
 * A session's part of one queue: ring positions [begin, end) and losses.
 * [begin, streamed) is in the session's file, with losses up to lost_attr
 * (and the queue has a record there if @recorded); [streamed, end) is in
 * the ring.
 */
struct cap_window {
	uint64_t begin;
	uint64_t end;
	uint64_t streamed;
	uint64_t lost_begin;
	uint64_t lost_end;
	uint64_t lost_attr;
	uint32_t ring_flags;
	bool recorded;
};

/* A harvested session waiting in the stash. */
struct cap_session {
	struct cap_session *next;
	uint64_t id;
	bool busy;			/* being serialized */
	struct nprof_ntff_writer *pw;	/* its file, NULL without streaming */
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
	struct nprof_ntff_writer *active_pw;	/* its file, NULL without streaming */
	char *active_pw_err;		/* why a streaming engine's session has no file */
	int active_pw_errno;		/* ... and its errno */
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
	uint64_t streamed_bytes;	/* atomic */
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
		nprof_nq_close(q->nq);
	}
	free(c->queues);
	c->queues = NULL;
	c->nqueues = 0;
}

/* Free the sessions of a core; a forked child (@inherited) leaves their files alone. */
static void free_sessions(struct cap_core *c, bool inherited)
{
	void (*drop)(struct nprof_ntff_writer *) =
		inherited ? nprof_ntff_writer_forget : nprof_ntff_writer_abort;

	drop(c->active_pw);
	c->active_pw = NULL;
	free(c->active_pw_err);
	c->active_pw_err = NULL;
	free(c->active);
	c->active = NULL;
	while (c->stash) {
		struct cap_session *s = c->stash;

		c->stash = s->next;
		drop(s->pw);
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

		for (q = 0; q < c->nqueues; q++)
			nprof_nq_close(c->queues[q].nq);
		free(c->queues);
		free_sessions(c, true);
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
		free_sessions(c, false);
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
 * Have the drainer watch queue @i. A queue it cannot watch is drained only
 * by stop (and kicks), so its entries wait in its ring: a profile with
 * losses beats no profile; subscribe_all() warns once. Called locked.
 */
static int stream_queue(struct nprof_capture *cap, struct cap_core *c, size_t i)
{
	struct cap_queue *q = &c->queues[i];

	q->stream_err = nprof_drainer_watch(cap->drainer, nprof_nq_fd(q->nq), drain_key(c->nc, i));
	return q->stream_err;
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

/* How queue @q is described in a file. */
static void queue_desc(const struct cap_queue *q, struct nprof_ntff_queue_desc *desc)
{
	memset(desc, 0, sizeof(*desc));
	desc->size = sizeof(*desc);
	desc->queue_type = q->id.queue_type;
	desc->target_kind = q->id.target_kind;
	desc->target_index = q->id.target_index;
	desc->engine = q->id.engine;
	desc->entry_size = nprof_nq_ring(q->nq)->entry_size;
}

/*
 * Append ring positions [@w->streamed, @upto) of queue @q to @pw, with the
 * losses up to @lost not attributed yet and @flags, and move the window on.
 * Nothing is appended when there is nothing new and the queue already has a
 * record in the file. @progress: count the bytes as streamed (a pending
 * file's). Return 0 or -errno (the window is then unchanged).
 */
static int stream_window(struct nprof_capture *cap, const struct cap_queue *q,
			 struct nprof_ntff_writer *pw, struct cap_window *w, uint64_t upto,
			 uint64_t lost, uint32_t flags, bool progress)
{
	struct nprof_ring *ring = nprof_nq_ring(q->nq);
	uint64_t len = upto - w->streamed;
	struct nprof_ntff_queue_desc desc;
	int ret;

	queue_desc(q, &desc);
	desc.lost_count = lost > w->lost_attr ? lost - w->lost_attr : 0;
	desc.ring_flags = flags;
	if (!len && !desc.lost_count && !flags && w->recorded)
		return 0;
	ret = nprof_stream_append(ring, pw, &desc, w->streamed, upto);
	if (ret)
		return ret;
	w->streamed = upto;
	if (lost > w->lost_attr)
		w->lost_attr = lost;
	w->recorded = true;
	if (len && progress) {
		__atomic_fetch_add(&cap->streamed_bytes, len, __ATOMIC_RELAXED);
		nprof_progress_add(len / ring->entry_size, len, 0);
	}
	return 0;
}

/* Whether ring position @pos lies in [@from, @to] (distances stay ordered across wraps). */
static inline bool pos_within(uint64_t pos, uint64_t from, uint64_t to)
{
	return pos - from <= to - from;
}

/*
 * The oldest position of queue @i that a session still needs in the ring,
 * between the consumer @cons and the producer @prod: the active session's
 * first entry not in its file, and that of every stashed session with
 * entries not in its file; @prod when none needs anything. Called locked.
 */
static uint64_t need_pos(const struct cap_core *c, size_t i, uint64_t cons, uint64_t prod)
{
	uint64_t pos = prod;
	const struct cap_session *s;

	if (c->active && pos_within(c->active[i].streamed, cons, pos))
		pos = c->active[i].streamed;
	for (s = c->stash; s; s = s->next)
		if (s->w[i].streamed != s->w[i].end && pos_within(s->w[i].streamed, cons, pos))
			pos = s->w[i].streamed;
	return pos;
}

/*
 * Drain queue @i: append what its ring holds to the active session's file
 * and release the ring space no session needs any more (all of it while no
 * session is active). Repeats while the producer keeps at least the
 * watermark unread, so that when the drainer sleeps again the next crossing
 * is a new edge. Called locked.
 */
static void pull_queue(struct nprof_capture *cap, struct cap_core *c, size_t i)
{
	struct cap_queue *q = &c->queues[i];
	struct nprof_ring *ring = nprof_nq_ring(q->nq);
	uint64_t wm = q->watermark > ring->entry_size ? q->watermark : ring->entry_size;
	struct nprof_ring_spans sp;
	uint64_t pos;
	int ret = 0;

	account_lost(q);
	while (nprof_ring_peek(ring, &sp) > 0) {
		if (c->active && c->active_pw && pos_within(c->active[i].streamed, sp.begin, sp.end)) {
			uint64_t lost = __atomic_load_n(&ring->hdr->lost, __ATOMIC_RELAXED);

			ret = stream_window(cap, q, c->active_pw, &c->active[i], sp.end, lost, 0, true);
			if (ret && !q->stream_err)
				queue_warn(c, q, "cannot be written");
			q->stream_err = ret;
		}
		pos = need_pos(c, i, sp.begin, sp.end);
		if (pos == sp.begin)
			break;
		if (nprof_ring_release(ring, pos)) {
			nprof_log(NPROF_LOG_WARN, "NC %u: %s", c->nc, nprof_err_current());
			break;
		}
		if (ret || nprof_ring_load_producer(ring) - pos < wm)
			break;
	}
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
 * Give back the ring space no live session needs (need_pos()). Without
 * any session left, unsubscribe. Called locked.
 */
static void release_space(struct nprof_capture *cap, struct cap_core *c)
{
	size_t i;

	if (!c->active && !c->stash) {
		unsubscribe_all(cap, c);
		return;
	}
	for (i = 0; i < c->nqueues; i++) {
		struct nprof_ring *ring = nprof_nq_ring(c->queues[i].nq);
		struct nprof_ring_spans sp;
		uint64_t pos;

		if (nprof_ring_peek(ring, &sp) <= 0)
			continue;
		pos = need_pos(c, i, sp.begin, sp.end);
		if (pos != sp.begin && nprof_ring_release(ring, pos))
			nprof_log(NPROF_LOG_WARN, "NC %u: %s", c->nc, nprof_err_current());
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
 * Whether a harvested window can be written: it does not end before it
 * begins or before what is already in the file, and its part not in the
 * file is at most one ring long (the ring cannot hold more unread).
 */
static bool window_fits(struct nprof_ring *ring, const struct cap_window *w)
{
	return (int64_t)(w->end - w->begin) >= 0 && pos_within(w->streamed, w->begin, w->end) &&
	       w->end - w->streamed <= ring->size;
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
		} else {
			/*
			 * Reused rings (an unserialized session holds them): begin
			 * after what is in flight now, so it is not counted twice.
			 */
			queue_snapshot(c, c->queues[i].nq, flush, &st);
			w[i].begin = st.producer_pos;
			w[i].lost_begin = st.lost;
		}
		w[i].streamed = w[i].begin;
		w[i].lost_attr = w[i].lost_begin;
	}
	/* Streaming: the file is written from now on; without one, the rings keep it all. */
	if (cap->streaming) {
		c->active_pw = nprof_ntff_writer_create_pending(cap->spool_dir);
		c->active_pw_errno = c->active_pw ? 0 : errno;
		free(c->active_pw_err);
		c->active_pw_err = c->active_pw ? NULL : strdup(nprof_err_current());
		if (!c->active_pw)
			nprof_log(NPROF_LOG_WARN,
				  "NC %u: cannot stream this profile session (%s): its entries stay in the rings, and what does not fit is counted as lost",
				  nc, nprof_err_current());
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
		account_lost(q);
		/* A ring cannot hold more than its size unread: anything else is corrupt. */
		if ((w->end - w->begin) % ring->entry_size || !window_fits(ring, w) ||
		    w->lost_end < w->lost_begin) {
			nprof_log(NPROF_LOG_ERROR,
				  "NC %u: queue type %u target %u/%u engine %u reports positions %llu..%llu, lost %llu..%llu; dropping its entries not written yet",
				  nc, ring->queue_type, ring->target_kind, ring->target_index,
				  ring->engine, (unsigned long long)w->begin,
				  (unsigned long long)w->end, (unsigned long long)w->lost_begin,
				  (unsigned long long)w->lost_end);
			w->end = w->streamed;
			w->lost_end = w->lost_attr;
		}
		/* Streaming: the rest into the file now, while the session is active. */
		if (c->active_pw) {
			ret = stream_window(cap, q, c->active_pw, w, w->end, w->lost_end,
					    w->ring_flags, true);
			if (ret && !q->stream_err)
				queue_warn(c, q, "cannot be written");
			q->stream_err = ret;
			ret = 0;
		}
		entries += (w->end - w->begin) / ring->entry_size;
		lost += w->lost_end - w->lost_begin;
	}
	s->start_ns = c->active_start_ns;
	s->stop_ns = now_ns((clockid_t)cap->dev->info.clock_id);
	s->id = c->next_id++;
	s->has_model = c->active_has_model;
	s->model_id = c->active_model_id;
	s->pw = c->active_pw;
	c->active_pw = NULL;
	for (tail = &c->stash; *tail; tail = &(*tail)->next)
		;
	*tail = s;
	free(c->active);
	c->active = NULL;
	/* What the file holds leaves the rings: the next session has them whole. */
	release_space(cap, c);
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
	nprof_ntff_writer_abort(s->pw);
	free(s);
	release_space(cap, c);
}

/* The description of session @s of core @c in its file. */
static void session_info(const struct nprof_capture *cap, const struct cap_core *c,
			 const struct cap_session *s, const struct nprof_capture_label *label,
			 struct nprof_ntff_info *info)
{
	const struct nprof_device_info *di = &cap->dev->info;

	/*
	 * The device is described once per file, in the capture description,
	 * not per queue: every queue of a session comes from this device.
	 */
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->pid = (uint32_t)getpid();
	info->core = label && label->has_core ? label->core : c->nc;
	info->capture_kind = label ? label->capture_kind : NPROF_NTFF_CAPTURE_SESSION;
	info->clock_id = di->clock_id;
	info->session_id = s->id;
	info->model_name = label ? label->model_name : NULL;
	info->model_id = label ? label->model_id : 0;
	info->instance_id = cap->instance_id[0] ? cap->instance_id : NULL;
	info->hostname = cap->hostname[0] ? cap->hostname : NULL;
	info->start_ns = s->start_ns;
	info->stop_ns = s->stop_ns;
	info->device.arch = di->arch;
	info->device.uapi_version = di->uapi_version;
	info->device.num_cores = di->num_cores;
	info->device.num_topsps = di->num_topsps;
	info->device.engines_per_core = di->engines_per_core;
	info->device.entry_size = di->entry_size;
	info->device.device_index = di->device_index;
	info->device.provider = di->provider;
	info->device.clock_domain = di->clock_domain;
	info->device.raw_format = di->raw_format;
	info->device.raw_entry_size = di->raw_entry_size;
	info->code_names = cap->dev->names;
	info->num_code_names = cap->dev->num_names;
}

/*
 * Write one session; no lock held (the busy session pins what it reads).
 * @win is a copy of its windows, moved on as entries reach its file (the
 * caller puts it back under the lock, also when writing fails: what reached
 * a pending file is there for the next try). @fname and @label come from
 * nprof_capture_session_serialize_named(); NULL means the SESSION file name
 * and description.
 */
static int write_session(struct nprof_capture *cap, struct cap_core *c, struct cap_session *s,
			 struct cap_window *win, int dirfd, const char *fname,
			 const struct nprof_capture_label *label)
{
	struct nprof_ntff_writer *w = s->pw;
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
	/* Without a file written while it ran, the whole session is in the rings. */
	if (!w)
		w = nprof_ntff_writer_createat(dirfd, name, 0);
	if (!w)
		return nprof_err(errno, "cannot serialize profile session id %llu of NC %u: %s",
				 (unsigned long long)s->id, c->nc, nprof_err_current());
	session_info(cap, c, s, label, &info);
	ret = nprof_ntff_writer_set_info(w, &info);

	/* What is still in the rings; every queue gets a record, even without entries. */
	for (i = 0; !ret && i < c->nqueues; i++)
		ret = stream_window(cap, &c->queues[i], w, &win[i], win[i].end, win[i].lost_end,
				    win[i].ring_flags, s->pw != NULL);
	if (s->pw) {
		if (!ret)
			ret = nprof_ntff_writer_commit(&s->pw, dirfd, name);
	} else if (ret) {
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
	struct cap_window *win;
	struct cap_core *c;
	int ret, want;

	ret = session_get(cap, nc, session_id, false, &c, &link);
	if (ret)
		return ret;
	s = *link;
	win = malloc(c->nqueues * sizeof(*win) + 1);
	if (!win) {
		core_put(c);
		return nprof_err(ENOMEM, "cannot serialize profile session id %llu of NC %u",
				 (unsigned long long)session_id, nc);
	}
	memcpy(win, s->w, c->nqueues * sizeof(*win));
	s->busy = true;
	pthread_mutex_unlock(&c->lock);

	/* Recorded whether the write works or not: the time went into it either way. */
	want = trace_begin(&ev, NPROF_EV_PROFILE_SERIALIZE, cap, c);
	ret = write_session(cap, c, s, win, dirfd, fname, label);
	attrs[0] = uint_attr("session_id", s->id);
	attrs[1] = (struct nprof_sys_trace_attr){
		.key = "error", .type = NPROF_SYS_TRACE_ATTR_INT, .v.i = -ret,
	};
	trace_end(&ev, want, s->has_model, s->model_id, attrs, ret ? 2 : 1);

	pthread_mutex_lock(&c->lock);
	memcpy(s->w, win, c->nqueues * sizeof(*win));
	free(win);
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
	if (!ret && c->active && !c->active_pw)
		ret = nprof_err(c->active_pw_errno ? c->active_pw_errno : EIO,
				"NC %u: the profile session does not stream: %s", nc,
				c->active_pw_err ? c->active_pw_err : "no file to stream into");
	for (i = 0; !ret && i < c->nqueues; i++) {
		if (c->queues[i].stream_err)
			ret = nprof_err(-c->queues[i].stream_err,
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
	p->bytes = __atomic_load_n(&cap->streamed_bytes, __ATOMIC_RELAXED);
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
