/* SPDX-License-Identifier: MIT */
/*
 * Streaming capture, the capture engine's way of keeping what rings cannot
 * hold (Documentation/capture.rst, "Streaming"): a drainer thread per
 * engine that is woken as the subscriptions' poll watermarks are crossed,
 * so that the engine moves ring contents into the NTFF file of the running
 * capture (a pending writer, ntff/ntff_internal.h) and releases ring space
 * while the capture runs. capture_session.c owns the sessions and decides
 * where a queue's entries go; this file only moves bytes and sleeps.
 */
#ifndef NEURONPROF_CAPTURE_STREAM_H
#define NEURONPROF_CAPTURE_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "device/device_internal.h"

struct nprof_ntff_writer;
struct nprof_ntff_queue_desc;

/* Iterations kept (counted from 1, inclusive); 0, 0: every entry. */
struct nprof_iter_range {
	uint64_t first, last;
};

/*
 * Append ring positions [@begin, @end) of a queue (entries the consumer has
 * not released) to @w as the one or two spans of the mapping, under @desc;
 * an empty range still makes a record (with @desc's losses and flags).
 * With a range in @keep (NULL or 0, 0: none), only the entries of its
 * iterations are written, each run of them as its own append whose
 * trimmed_count is the entries left out just before it. Return 0 or -errno
 * with the message.
 */
int nprof_stream_append(struct nprof_ring *ring, struct nprof_ntff_writer *w,
			const struct nprof_ntff_queue_desc *desc, uint64_t begin, uint64_t end,
			const struct nprof_iter_range *keep);

/*
 * Add to the progress page of NPROF_PROGRESS_FD_ENV, if the process was
 * given one (looked up once); nothing otherwise.
 */
void nprof_progress_add(uint64_t entries, uint64_t bytes, uint64_t lost);

/*
 * The control page of NPROF_CONTROL_FD_ENV (<neuronprof/capture.h>):
 * _open() (re)maps it as the environment says now, at a session's begin
 * while no execution hook runs, and says whether there is one; _enabled()
 * says whether it asks for capture (true also without a page).
 */
bool nprof_capture_control_open(void);
bool nprof_capture_control_present(void);
bool nprof_capture_control_enabled(void);
/* The page's switch_seq (0 without a page): a new value asks for a new file. */
uint64_t nprof_capture_control_switch(void);
/* The page's switch_size (0 without a page or a size): a window's bytes that ask for a new file. */
uint64_t nprof_capture_control_switch_size(void);

/*
 * The output of an inspect session (Documentation/capture.rst, "Output
 * limits"): _begin() arms it for the session directory @dirfd (its path
 * @dir, for the messages) with at most @limit bytes of entries (0: no
 * limit); _claim() is asked before @len bytes of entries (of @entry_size
 * bytes each) are written and returns how many to write: all of them, or
 * the whole entries that still fit when the limit or the directory's free
 * space (less a reserve for the files' metadata) would be passed, saying
 * why once, and none from then on; _drop() counts entries that were not written;
 * _failed() stops the output after a write failed with @err (ENOSPC,
 * EFBIG, EDQUOT), saying so once, and says whether it did (false without
 * _begin(): the caller keeps the entries for the next try); _end() says once how much was written
 * where, if the output stopped, and disarms it. Without _begin() (the
 * capture API on its own) every write is allowed.
 */
void nprof_capture_output_begin(int dirfd, const char *dir, uint64_t limit);
uint64_t nprof_capture_output_claim(uint64_t len, uint32_t entry_size);
void nprof_capture_output_drop(uint64_t entries);
bool nprof_capture_output_failed(int err);
bool nprof_capture_output_stopped(void);
void nprof_capture_output_end(void);

/*
 * The zstd level (0: none) of the NTFF files the session's captures write
 * (nprof_inspect_config_set_capture_compression()), set with _begin()'s
 * session and back to 0 at _end(); _zlevel() reads it. _unclaim() gives
 * back @bytes that _claim() granted but the disk did not take: a
 * compressed file stores less than the entries' bytes, and the limit
 * counts what is stored.
 */
void nprof_capture_output_compression(int level);
int nprof_capture_output_zlevel(void);
void nprof_capture_output_unclaim(uint64_t bytes);

/* ---- the drainer -------------------------------------------------------------- */

struct nprof_drainer;

/* NPROF_DRAIN_ALL as the key: drain every queue (a pass asked by a kick). */
#define NPROF_DRAIN_ALL	UINT64_MAX

/*
 * NPROF_DRAIN_TAIL as the key: the tail pass, asked when a deadline a drain
 * returned has passed: drain, whole, every queue left behind its producer
 * by its last drain at least NPROF_DRAIN_TAIL_MS ago.
 */
#define NPROF_DRAIN_TAIL	(UINT64_MAX - 2)

/*
 * How long a queue's tail may wait in its ring for a wake-up. A drain woken
 * by a queue writes only whole pages of the file (capture_engine.c,
 * pull_queue()), and entries the producer adds while a drain runs are not
 * a new watermark crossing, so a drain may leave up to a watermark unread;
 * the kernel wakes the drainer again only when the producer pushes the
 * unread bytes across the watermark, or at a flush (the end of an
 * execution), and neither comes once production pauses after that flush's
 * drain. A queue whose last drain saw entries its session's file lacks,
 * and that nothing drained since for this long, is drained whole by the
 * tail pass. (Entries added after a drain's last look at the producer, and
 * below the watermark, are not seen: they wait for the next crossing or
 * flush, as they always did.) A few tens of milliseconds: long beside the
 * gap between the wake-ups of a queue that is producing (a tail pass then
 * finds nothing to do), short beside what a person or a test waiting for
 * the progress page notices.
 */
#define NPROF_DRAIN_TAIL_MS	20u

/* The sooner of two deadlines of the drainer's calls, 0 being none. */
static inline uint64_t nprof_drain_sooner(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/*
 * Start the drainer thread. It calls @drain(@arg, key) for every queue whose
 * descriptor polls readable, and @drain(@arg, NPROF_DRAIN_ALL) once per kick.
 * Every call returns 0, or a CLOCK_MONOTONIC time in nanoseconds at which
 * it asks for @drain(@arg, NPROF_DRAIN_TAIL); the thread sleeps at most
 * until the soonest such time, and makes that call once it has passed
 * (with or without wake-ups meanwhile). The thread blocks every
 * asynchronous signal, so a SIGTERM or SIGINT is handled (and the crash
 * flush run) by an application thread, never by one that may hold a core's
 * lock. NULL with errno on failure.
 */
struct nprof_drainer *nprof_drainer_start(uint64_t (*drain)(void *arg, uint64_t key), void *arg);

/* Watch @fd (edge-triggered) and report it as @key. 0 or -errno. */
int nprof_drainer_watch(struct nprof_drainer *d, int fd, uint64_t key);

/* Stop watching @fd, before it is closed. */
void nprof_drainer_unwatch(struct nprof_drainer *d, int fd);

/*
 * Ask for a pass over every queue and wait until one that began after this
 * call has ended. Return 0, or -ESHUTDOWN once the drainer stops.
 */
int nprof_drainer_sync(struct nprof_drainer *d);

/* Stop and join the thread (NULL is allowed); no drain runs after this. */
void nprof_drainer_stop(struct nprof_drainer *d);

/*
 * Free what a forked child inherited without touching the thread (which does
 * not exist in the child) or the locks (which it may have held at fork()).
 */
void nprof_drainer_forget(struct nprof_drainer *d);

#endif /* NEURONPROF_CAPTURE_STREAM_H */
