/* SPDX-License-Identifier: MIT */
/*
 * The capture engine's state, shared by its two halves and private to
 * them: capture_engine.c (the engine's lifetime and its hold on the rings)
 * and capture_session.c (the SESSION API over it).
 *
 * Zero copy: a harvested session is a range of positions in each of the
 * core's rings, never a heap copy of entries. The rings stay subscribed and
 * mapped while any session covers them (the active one or a stashed one),
 * and the consumer position of each ring is only ever moved up to the
 * oldest position a live session still needs, so the device cannot
 * overwrite what a stashed session will write later. Serialize hands the
 * range to the NTFF writer as at most two spans of the mapping.
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
 * ring (need_pos() in capture_engine.c).
 *
 * Locking: struct cap_core.lock guards a core's sessions, subscriptions
 * and pending writers; the drainer takes it around each queue it drains.
 * Serialize marks its session busy under the lock, writes without it (a
 * busy session keeps its range, its spool bytes and the subscriptions
 * alive) and takes the lock again to unstash it. struct cap_core.ref_lock
 * guards the count of calls in progress, which close waits to fall to zero
 * before it stops the drainer.
 *
 * capture_session.c calls capture_engine.c, never the other way.
 */
#ifndef NEURONPROF_CAPTURE_ENGINE_H
#define NEURONPROF_CAPTURE_ENGINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <neuronprof/capture.h>
#include <neuronprof/ntff.h>
#include <neuronprof/output.h>

#include "capture/capture_internal.h"
#include "capture/capture_stream.h"
#include "device/device_internal.h"

/* A subscribed queue of a core. */
struct cap_queue {
	struct nprof_capture_qid id;
	struct nprof_nq *nq;
	uint64_t lost_base;		/* the ring's lost count at the subscription */
	uint64_t lost_seen;		/* ... when last added to the progress page */
	uint32_t watermark;		/* bytes, as subscribed */
	int stream_err;			/* -errno of its last failed stream, 0 if none */
	/*
	 * CLOCK_MONOTONIC ns of the last drain, when it left entries the active
	 * session's file lacks; 0 when it left none (capture_engine.c,
	 * pull_queue(); the drainer's tail pass drains it whole once
	 * nprof_capture.tail_ms have passed).
	 */
	uint64_t tail_since;
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
	uint64_t skipped;		/* entries not written (output stopped), not yet in a record */
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
	/*
	 * How long a queue's tail waits for a wake-up before the tail pass
	 * drains it: NPROF_DRAIN_TAIL_MS (capture_stream.h). A test seam: the
	 * host tests set it, before producing, to observe woken drains alone.
	 */
	uint32_t tail_ms;
	uint64_t streamed_bytes;	/* atomic */
	char instance_id[NPROF_INSTANCE_ID_MAX + 1];
	char hostname[256];
	struct nprof_iter_range keep;	/* iterations written (nprof_capture_set_iterations()) */
	uint32_t ncores;
	struct cap_core cores[];
};

/* Whether ring position @pos lies in [@from, @to] (distances stay ordered across wraps). */
static inline bool nprof_cap_pos_within(uint64_t pos, uint64_t from, uint64_t to)
{
	return pos - from <= to - from;
}

/* ---- capture_engine.c, for capture_session.c ---- */

/*
 * Enter a call on core @nc: counts it so close waits for it, and takes the
 * core's lock. nprof_cap_core_put() drops both. Return 0 or -errno.
 */
int nprof_cap_core_get(struct nprof_capture *cap, uint32_t nc, struct cap_core **out);
void nprof_cap_core_put(struct cap_core *c);

/* Subscribe every queue of the plan; all or nothing. Called locked. */
int nprof_cap_subscribe_all(struct nprof_capture *cap, struct cap_core *c);

/* Close every subscription of core @c. Called locked. */
void nprof_cap_unsubscribe_all(struct nprof_capture *cap, struct cap_core *c);

/*
 * Give back the ring space no live session needs. Without any session
 * left, unsubscribe. Called locked.
 */
void nprof_cap_release_space(struct nprof_capture *cap, struct cap_core *c);

/*
 * Positions, lost count and flags of a queue: NQ_DRAIN (with a flush if
 * asked), else the mapped header as it is (a failed flush, a removed device:
 * the mapping stays valid and a partial profile beats none).
 */
void nprof_cap_queue_snapshot(struct cap_core *c, struct nprof_nq *nq, bool flush,
			      struct nprof_nq_drain_state *st);

/*
 * Append ring positions [@w->streamed, @upto) of queue @q to @pw, with the
 * losses up to @lost not attributed yet and @flags, and move the window on.
 * Nothing is appended when there is nothing new and the queue already has a
 * record in the file. @progress: count the bytes as streamed (a pending
 * file's). @final: the session's last write of the queue (not a drain's).
 * Once the output stopped (nprof_capture_output_claim()), the entries are
 * skipped and counted as lost, in the final write's record. Return 0 or
 * -errno (the window is then unchanged).
 */
int nprof_cap_stream_window(struct nprof_capture *cap, const struct cap_queue *q,
			    struct nprof_ntff_writer *pw, struct cap_window *w, uint64_t upto,
			    uint64_t lost, uint32_t flags, bool progress, bool final);

/* Report the losses of queue @q not reported yet to the progress page. Called locked. */
void nprof_cap_account_lost(struct cap_queue *q);

/* Warn that queue @q of core @c @what, with the recorded message. */
void nprof_cap_queue_warn(const struct cap_core *c, const struct cap_queue *q, const char *what);

/* The time of @clk in nanoseconds (CLOCK_MONOTONIC's if it cannot be read). */
uint64_t nprof_cap_now_ns(clockid_t clk);

#endif /* NEURONPROF_CAPTURE_ENGINE_H */
