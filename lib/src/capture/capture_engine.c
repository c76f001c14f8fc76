// SPDX-License-Identifier: MIT
/*
 * The capture engine's lifetime and its hold on the rings: create and
 * close it, subscribe each core's queues, and keep their ring space moving
 * (the drainer streams it into the active session's file; what no session
 * needs any more is released). The sessions themselves are
 * capture_session.c; capture_engine.h describes the state both share.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture_engine.h"
#include "capture/capture_stream.h"
#include "ntff/ntff_internal.h"
#include "util/internal.h"

/* The size of struct nprof_capture_opts before flags and spool_dir. */
#define CAPTURE_OPTS_V1_SIZE	offsetof(struct nprof_capture_opts, flags)
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

static uint64_t drain_cb(void *arg, uint64_t key);

int nprof_capture_set_iterations(struct nprof_capture *cap, uint64_t first, uint64_t last)
{
	if ((first || last) && (!first || last < first || last > (uint64_t)UINT32_MAX + 1))
		return nprof_err(EINVAL, "iteration range %" PRIu64 "-%" PRIu64
				 " is empty or past 2^32", first, last);
	if (first && cap->dev->info.raw_format != NEURONPROF_RAW_FORMAT_NONE)
		return nprof_err(EOPNOTSUPP, "device %u gives raw entries, which carry no iteration: "
				 "it cannot keep only iterations %" PRIu64 "-%" PRIu64,
				 cap->dev->info.device_index, first, last);
	cap->keep.first = first;
	cap->keep.last = last;
	return 0;
}

NPROF_API struct nprof_capture *nprof_capture_create(struct nprof_device *dev,
						     const struct nprof_capture_opts *opts)
{
	bool v2 = opts && opts->size >= sizeof(*opts);
	struct nprof_capture *cap;
	uint32_t i, t;
	int ret;

	if (!dev)
		return nprof_err_ptr(EINVAL, "device is NULL");
	if (opts && NPROF_SIZED_VALID_SINCE(opts, nprof_capture_opts, CAPTURE_OPTS_V1_SIZE,
					    NPROF_SIZED_IN))
		return NULL;
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
		cap->tail_ms = NPROF_DRAIN_TAIL_MS;
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
 * core's lock. nprof_cap_core_put() drops both.
 */
int nprof_cap_core_get(struct nprof_capture *cap, uint32_t nc, struct cap_core **out)
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

void nprof_cap_core_put(struct cap_core *c)
{
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_lock(&c->ref_lock);
	if (!--c->refs)
		pthread_cond_broadcast(&c->ref_cond);
	pthread_mutex_unlock(&c->ref_lock);
}

void nprof_cap_unsubscribe_all(struct nprof_capture *cap, struct cap_core *c)
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
		nprof_cap_unsubscribe_all(cap, c);
		pthread_mutex_destroy(&c->lock);
		pthread_cond_destroy(&c->ref_cond);
		pthread_mutex_destroy(&c->ref_lock);
	}
	free(cap->spool_dir);
	free(cap);
}

/* ---- subscriptions and ring space -------------------------------------------- */

uint64_t nprof_cap_now_ns(clockid_t clk)
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

void nprof_cap_queue_warn(const struct cap_core *c, const struct cap_queue *q, const char *what)
{
	nprof_log(NPROF_LOG_WARN,
		  "NC %u: queue type %u target %u/%u engine %u %s: %s; its entries stay in the ring, and what does not fit is counted as lost",
		  c->nc, q->id.queue_type, q->id.target_kind, q->id.target_index, q->id.engine,
		  what, nprof_err_current());
}

/*
 * Have the drainer watch queue @i. A queue it cannot watch is drained only
 * by stop (and kicks), so its entries wait in its ring: a profile with
 * losses beats no profile; nprof_cap_subscribe_all() warns once. Called locked.
 */
static int stream_queue(struct nprof_capture *cap, struct cap_core *c, size_t i)
{
	struct cap_queue *q = &c->queues[i];

	q->stream_err = nprof_drainer_watch(cap->drainer, nprof_nq_fd(q->nq), drain_key(c->nc, i));
	return q->stream_err;
}

/* Report the losses of queue @q not reported yet to the progress page. Called locked. */
void nprof_cap_account_lost(struct cap_queue *q)
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

/* Move window @w of @ring on to @upto without writing: the entries count as lost. */
static void skip_window(struct nprof_ring *ring, struct cap_window *w, uint64_t upto, uint64_t lost)
{
	uint64_t n = (upto - w->streamed) / ring->entry_size;

	w->skipped += n;
	nprof_capture_output_drop(n);
	w->streamed = upto;
	if (lost > w->lost_attr) {
		w->skipped += lost - w->lost_attr;
		w->lost_attr = lost;
	}
}

/* Documented in capture_engine.h. */
int nprof_cap_stream_window(struct nprof_capture *cap, const struct cap_queue *q,
			    struct nprof_ntff_writer *pw, struct cap_window *w, uint64_t upto,
			    uint64_t lost, uint32_t flags, bool progress, bool final)
{
	struct nprof_ring *ring = nprof_nq_ring(q->nq);
	uint64_t len = upto - w->streamed, end = upto;
	struct nprof_ntff_queue_desc desc;
	uint64_t stored = nprof_ntff_writer_stored(pw);
	int ret;

	/*
	 * Up to the output's limit or free space (nprof_capture_output_claim()):
	 * the entries past it are not written but counted as lost, in the
	 * queue's next record (a drain writes none: the session's final write
	 * does).
	 */
	if (len) {
		uint64_t ok = nprof_capture_output_claim(len, ring->entry_size);

		if (ok < len) {
			upto = w->streamed + ok;
			len = ok;
		}
	}
	if (!len && end != w->streamed) {
		skip_window(ring, w, end, lost);
		if (!final)
			return 0;
		upto = end;
	}
	queue_desc(q, &desc);
	desc.lost_count = (lost > w->lost_attr ? lost - w->lost_attr : 0) + w->skipped;
	desc.ring_flags = flags;
	if (!len && !desc.lost_count && !flags && w->recorded)
		return 0;
	ret = nprof_stream_append(ring, pw, &desc, w->streamed, upto, &cap->keep);
	/*
	 * A full disk (or file size limit) stops an inspect session's output,
	 * once for all queues, and a drain moves on so that the ring keeps
	 * flowing. Without a session's output (the capture API on its own)
	 * the entries stay in the ring for the next try, as before.
	 */
	if ((ret == -ENOSPC || ret == -EFBIG || ret == -EDQUOT) &&
	    nprof_capture_output_failed(-ret) && !final) {
		skip_window(ring, w, end, lost);
		return 0;
	}
	if (ret)
		return ret;
	/*
	 * A compressed file took fewer bytes than it was granted: the limit
	 * and the progress page count those (a plain file's bytes are len).
	 * The bytes of its partial block count as they are until the block
	 * is complete and compressed, so this may be less than nothing: the
	 * difference modulo 2^64, and len - stored what to give back.
	 */
	stored = nprof_ntff_writer_compressed(pw) ? nprof_ntff_writer_stored(pw) - stored : len;
	if (stored != len)
		nprof_capture_output_unclaim(len - stored);
	w->streamed = upto;
	if (lost > w->lost_attr)
		w->lost_attr = lost;
	w->skipped = 0;
	w->recorded = true;
	if (len && progress) {
		__atomic_fetch_add(&cap->streamed_bytes, len, __ATOMIC_RELAXED);
		/* The bytes the file took (modulo 2^64 as above: the sum stays true). */
		nprof_progress_add(len / ring->entry_size, stored, 0);
	}
	if (upto == end)
		return 0;
	/* Written up to the limit: the rest is skipped, and the final write says so. */
	skip_window(ring, w, end, lost);
	if (!final)
		return 0;
	queue_desc(q, &desc);
	desc.lost_count = w->skipped;
	ret = nprof_stream_append(ring, pw, &desc, end, end, NULL);
	if (!ret)
		w->skipped = 0;
	return ret;
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

	if (c->active && nprof_cap_pos_within(c->active[i].streamed, cons, pos))
		pos = c->active[i].streamed;
	for (s = c->stash; s; s = s->next)
		if (s->w[i].streamed != s->w[i].end && nprof_cap_pos_within(s->w[i].streamed, cons, pos))
			pos = s->w[i].streamed;
	return pos;
}

/*
 * Drain queue @i: append what its ring holds to the active session's file
 * and release the ring space no session needs any more (all of it while no
 * session is active). Repeats while the producer keeps at least the
 * watermark unread, so that when the drainer sleeps again the next crossing
 * is a new edge. Called locked.
 *
 * Woken by the queue (not @all, a kick), a drain whose watermark is at
 * least two NTFF_WRITE_ALIGN writes only up to where the file reaches such
 * a boundary (nprof_ntff_writer_page_cut()), so every write of the file is
 * page-aligned at both ends; the rest, less than NTFF_WRITE_ALIGN, stays in
 * the ring for the next drain, and a kick (sync, stop) writes everything.
 * A window of a watermark or more has such a boundary unless the entries
 * cannot end on one (then it is written whole), so every round of the loop
 * below moves on, and it still ends with less than the watermark unread.
 *
 * Nothing wakes the drainer for what is left (the partial page, or entries
 * the producer added meanwhile) until the producer takes the unread bytes
 * across the watermark again, so a drain that leaves the active session's
 * file behind the producer notes when (q->tail_since) and returns when the
 * tail pass (tail_pass()) is due: cap->tail_ms later. Returns 0 when the
 * file is not behind (or cannot be written: the next drain retries).
 */
static uint64_t pull_queue(struct nprof_capture *cap, struct cap_core *c, size_t i, bool all)
{
	struct cap_queue *q = &c->queues[i];
	struct nprof_ring *ring = nprof_nq_ring(q->nq);
	uint64_t wm = q->watermark > ring->entry_size ? q->watermark : ring->entry_size;
	bool align = !all && wm >= 2 * NTFF_WRITE_ALIGN;
	struct nprof_ring_spans sp;
	uint64_t pos;
	int ret = 0;

	nprof_cap_account_lost(q);
	while (nprof_ring_peek(ring, &sp) > 0) {
		if (c->active && c->active_pw && nprof_cap_pos_within(c->active[i].streamed, sp.begin, sp.end)) {
			uint64_t lost = __atomic_load_n(&ring->hdr->lost, __ATOMIC_RELAXED);
			uint64_t upto = sp.end, cut;

			cut = align ? nprof_ntff_writer_page_cut(c->active_pw, sp.end - c->active[i].streamed,
								 ring->entry_size) : 0;
			if (cut)
				upto = c->active[i].streamed + cut;
			ret = nprof_cap_stream_window(cap, q, c->active_pw, &c->active[i], upto, lost, 0, true,
						      false);
			if (ret && !q->stream_err && !nprof_capture_output_stopped())
				nprof_cap_queue_warn(c, q, "cannot be written");
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
	q->tail_since = 0;
	if (ret || !c->active || !c->active_pw ||
	    nprof_ring_load_producer(ring) == c->active[i].streamed)
		return 0;
	q->tail_since = nprof_mono_ns();
	return q->tail_since + cap->tail_ms * 1000000ULL;
}

/*
 * The drainer's tail pass: drain whole every queue whose last drain left
 * its active session's file behind at least cap->tail_ms ago (no wake-up
 * came since). Returns when the next one is due, 0 for none.
 */
static uint64_t tail_pass(struct nprof_capture *cap)
{
	uint64_t idle = cap->tail_ms * 1000000ULL, now = nprof_mono_ns(), next = 0;
	uint32_t nc;
	size_t i;

	for (nc = 0; nc < cap->ncores; nc++) {
		struct cap_core *c = &cap->cores[nc];

		pthread_mutex_lock(&c->lock);
		for (i = 0; i < c->nqueues; i++) {
			uint64_t since = c->queues[i].tail_since;

			if (!since)
				continue;
			if (now - since >= idle)
				next = nprof_drain_sooner(next, pull_queue(cap, c, i, true));
			else
				next = nprof_drain_sooner(next, since + idle);
		}
		pthread_mutex_unlock(&c->lock);
	}
	return next;
}

/*
 * The drainer's callback: one queue, every queue of every core, or the tail
 * pass. Returns when the next tail pass is due (0: none).
 */
static uint64_t drain_cb(void *arg, uint64_t key)
{
	struct nprof_capture *cap = arg;
	uint32_t nc, first = 0, last = cap->ncores;
	uint64_t next = 0;
	size_t i;

	if (key == NPROF_DRAIN_TAIL)
		return tail_pass(cap);
	if (key != NPROF_DRAIN_ALL) {
		first = (uint32_t)(key >> 32);
		last = first + 1;
		if (first >= cap->ncores)
			return 0;
	}
	for (nc = first; nc < last; nc++) {
		struct cap_core *c = &cap->cores[nc];

		pthread_mutex_lock(&c->lock);
		for (i = 0; i < c->nqueues; i++)
			if (key == NPROF_DRAIN_ALL || i == (uint32_t)key)
				next = nprof_drain_sooner(next, pull_queue(cap, c, i, key == NPROF_DRAIN_ALL));
		pthread_mutex_unlock(&c->lock);
	}
	return next;
}

/* Subscribe every queue of the plan; all or nothing. Called locked. */
int nprof_cap_subscribe_all(struct nprof_capture *cap, struct cap_core *c)
{
	const struct nprof_device_info *info = &cap->dev->info;
	struct nprof_capture_qid *ids;
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
		nprof_cap_unsubscribe_all(cap, c);
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
void nprof_cap_release_space(struct nprof_capture *cap, struct cap_core *c)
{
	size_t i;

	if (!c->active && !c->stash) {
		nprof_cap_unsubscribe_all(cap, c);
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
void nprof_cap_queue_snapshot(struct cap_core *c, struct nprof_nq *nq, bool flush,
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

NPROF_API int nprof_capture_get_progress(struct nprof_capture *cap,
					 struct nprof_capture_progress *p)
{
	uint32_t nc;
	size_t i;

	if (!cap || !p)
		return nprof_err(EINVAL, "capture engine or progress is NULL");
	if (NPROF_SIZED_OUT_CLEAR(p, nprof_capture_progress))
		return -EINVAL;
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
