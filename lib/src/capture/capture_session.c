// SPDX-License-Identifier: MIT
/*
 * SESSION-keyed device-profile capture (the seed's nrt_profile_session_*):
 * the API over the engine (capture_engine.c) of per-core start / stop
 * (harvest, mint an id, stash) / serialize (pop and write NTFF) / drop,
 * stats and sync.
 *
 * System trace: the engine records profile_start, profile_stop and
 * profile_serialize for every capture, whoever drives it (the inspect
 * session, MODEL and on-fail captures, continuous profiling, a direct user
 * of this API), so each is recorded once; a capture about a model carries
 * its id from start to serialize. The queues record their own events
 * (device_nq.c).
 *
 * capture_engine.h has the state, the zero-copy rule and the locking.
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

#include "capture/capture_engine.h"
#include "capture/capture_stream.h"
#include "ntff/ntff_internal.h"
#include "util/internal.h"
#include "trace/base/tracepoint.h"

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
	return (int64_t)(w->end - w->begin) >= 0 && nprof_cap_pos_within(w->streamed, w->begin, w->end) &&
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

	ret = nprof_cap_core_get(cap, nc, &c);
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
		ret = nprof_cap_subscribe_all(cap, c);
		if (ret)
			goto out;
	}
	w = calloc(c->nqueues, sizeof(*w));
	if (!w) {
		ret = nprof_err(ENOMEM, "cannot allocate a session for NC %u", nc);
		if (fresh)
			nprof_cap_unsubscribe_all(cap, c);
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
			nprof_cap_queue_snapshot(c, c->queues[i].nq, flush, &st);
			w[i].begin = st.producer_pos;
			w[i].lost_begin = st.lost;
		}
		w[i].streamed = w[i].begin;
		w[i].lost_attr = w[i].lost_begin;
	}
	/* Streaming: the file is written from now on; without one, the rings keep it all. */
	if (cap->streaming) {
		c->active_pw = nprof_ntff_writer_create_pending(cap->spool_dir);
		/* Compressed blocks, as the session asked (0: none). */
		if (c->active_pw &&
		    nprof_ntff_writer_set_compression(c->active_pw, nprof_capture_output_zlevel()))
			nprof_log(NPROF_LOG_WARN, "NC %u: the profile is not compressed: %s", nc,
				  nprof_err_current());
		/* Its appends are packed records: the info that says so comes at the end. */
		if (c->active_pw && cap->dev->info.caps & NPROF_DEVICE_CAP_RAW_PACKED)
			nprof_ntff_writer_set_raw_packed(c->active_pw);
		c->active_pw_errno = c->active_pw ? 0 : errno;
		free(c->active_pw_err);
		c->active_pw_err = c->active_pw ? NULL : strdup(nprof_err_current());
		if (!c->active_pw)
			nprof_log(NPROF_LOG_WARN,
				  "NC %u: cannot stream this profile session (%s): its entries stay in the rings, and what does not fit is counted as lost",
				  nc, nprof_err_current());
	}
	c->active = w;
	c->active_start_ns = nprof_cap_now_ns((clockid_t)cap->dev->info.clock_id);
	c->active_has_model = model_id != NULL;
	c->active_model_id = model_id ? *model_id : 0;
	nprof_cap_release_space(cap, c);
	attr = uint_attr("queues", c->nqueues);
	trace_end(&ev, want, c->active_has_model, c->active_model_id, &attr, 1);
out:
	nprof_cap_core_put(c);
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

	ret = nprof_cap_core_get(cap, nc, &c);
	if (ret)
		return ret;
	ret = c->active != NULL;
	nprof_cap_core_put(c);
	return ret;
}

int nprof_capture_session_bytes(struct nprof_capture *cap, uint32_t nc, uint64_t *bytes)
{
	struct cap_core *c;
	uint64_t sum = 0;
	int ret;

	ret = nprof_cap_core_get(cap, nc, &c);
	if (ret)
		return ret;
	if (!c->active) {
		ret = nprof_err(EINVAL, "no active profile session for NC %u", nc);
		goto out;
	}
	for (size_t i = 0; i < c->nqueues; i++) {
		const struct nprof_ring *ring = nprof_nq_ring(c->queues[i].nq);
		uint64_t prod = nprof_ring_load_producer(ring);

		/* A producer before the window's start (a reused ring's snapshot) adds nothing. */
		if ((int64_t)(prod - c->active[i].begin) > 0)
			sum += prod - c->active[i].begin;
	}
	*bytes = sum;
out:
	nprof_cap_core_put(c);
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
	ret = nprof_cap_core_get(cap, nc, &c);
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

		nprof_cap_queue_snapshot(c, nq, flush, &st);
		*w = c->active[i];
		w->end = st.producer_pos;
		w->lost_end = st.lost;
		w->ring_flags = st.ring_flags;
		nprof_cap_account_lost(q);
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
			ret = nprof_cap_stream_window(cap, q, c->active_pw, w, w->end,
						      w->lost_end, w->ring_flags, true, true);
			if (ret && !q->stream_err && !nprof_capture_output_stopped())
				nprof_cap_queue_warn(c, q, "cannot be written");
			q->stream_err = ret;
			ret = 0;
		}
		entries += (w->end - w->begin) / ring->entry_size;
		lost += w->lost_end - w->lost_begin;
	}
	s->start_ns = c->active_start_ns;
	s->stop_ns = nprof_cap_now_ns((clockid_t)cap->dev->info.clock_id);
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
	nprof_cap_release_space(cap, c);
	*session_id = s->id;
	attrs[0] = uint_attr("session_id", s->id);
	attrs[1] = uint_attr("entries", entries);
	attrs[2] = uint_attr("lost", lost);
	trace_end(&ev, want, s->has_model, s->model_id, attrs, 3);
out:
	nprof_cap_core_put(c);
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
 * nprof_cap_core_get() and the stashed session @id of that core: on success the call
 * is counted and the core's lock held, as after nprof_cap_core_get().
 */
static int session_get(struct nprof_capture *cap, uint32_t nc, uint64_t id, bool allow_busy,
		       struct cap_core **out, struct cap_session ***link)
{
	struct cap_core *c;
	int ret;

	ret = nprof_cap_core_get(cap, nc, &c);
	if (ret)
		return ret;
	ret = find_session(c, id, allow_busy, link);
	if (ret) {
		nprof_cap_core_put(c);
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
	nprof_cap_release_space(cap, c);
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
	info->session_id = label && label->has_session_id ? label->session_id : s->id;
	info->model_name = label ? label->model_name : NULL;
	info->model_id = label ? label->model_id : 0;
	info->exec_first = label ? label->exec_first : 0;
	info->exec_last = label ? label->exec_last : 0;
	info->iter_first = cap->keep.first;
	info->iter_last = cap->keep.last;
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
	info->device.raw_packed = !!(di->caps & NPROF_DEVICE_CAP_RAW_PACKED);
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
	if (!w) {
		w = nprof_ntff_writer_createat(dirfd, name, 0);
		if (w && nprof_ntff_writer_set_compression(w, nprof_capture_output_zlevel()))
			nprof_log(NPROF_LOG_WARN, "%s is not compressed: %s", name,
				  nprof_err_current());
	}
	if (!w)
		return nprof_err(errno, "cannot serialize profile session id %llu of NC %u: %s",
				 (unsigned long long)s->id, c->nc, nprof_err_current());
	session_info(cap, c, s, label, &info);
	ret = nprof_ntff_writer_set_info(w, &info);

	/* What is still in the rings; every queue gets a record, even without entries. */
	for (i = 0; !ret && i < c->nqueues; i++)
		ret = nprof_cap_stream_window(cap, &c->queues[i], w, &win[i], win[i].end,
					      win[i].lost_end, win[i].ring_flags, s->pw != NULL, true);
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
		nprof_cap_core_put(c);
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
	nprof_cap_core_put(c);
	return ret;
}

NPROF_API int nprof_capture_session_serialize(struct nprof_capture *cap, uint32_t nc,
					      uint64_t session_id, const char *dir)
{
	int fd, ret;

	if (!dir)
		return nprof_err(EINVAL, "output directory is NULL");
	fd = nprof_dir_open(dir);
	if (fd < 0)
		return fd;
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
	nprof_cap_core_put(c);
	return 0;
}

NPROF_API int nprof_capture_session_stats(struct nprof_capture *cap, uint32_t nc,
					  uint64_t session_id, struct nprof_capture_stats *st)
{
	struct cap_session **link, *s;
	struct cap_core *c;
	size_t i;
	int ret;

	if (!st)
		return nprof_err(EINVAL, "stats is NULL");
	ret = NPROF_SIZED_OUT_CLEAR(st, nprof_capture_stats);
	if (ret)
		return ret;
	ret = session_get(cap, nc, session_id, true, &c, &link);
	if (ret)
		return ret;
	s = *link;
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
	nprof_cap_core_put(c);
	return 0;
}

NPROF_API int nprof_capture_session_sync(struct nprof_capture *cap, uint32_t nc)
{
	struct cap_core *c;
	size_t i;
	int ret;

	ret = nprof_cap_core_get(cap, nc, &c);
	if (ret)
		return ret;
	if (!cap->streaming) {
		nprof_cap_core_put(c);
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
	nprof_cap_core_put(c);
	return ret;
}
