/* SPDX-License-Identifier: MIT */
/*
 * Streaming capture, the capture engine's way of keeping what rings cannot
 * hold (Documentation/capture.rst, "Streaming"): a spool per queue, an
 * unnamed temporary file that extends the ring onto disk, and a drainer
 * thread per engine that moves ring contents into the spools as the
 * subscriptions' poll watermarks are crossed, releasing ring space while the
 * capture runs. capture_session.c owns the sessions and decides what a
 * queue's drain may skip; this file only moves bytes and sleeps.
 */
#ifndef NEURONPROF_CAPTURE_STREAM_H
#define NEURONPROF_CAPTURE_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "device/device_internal.h"

struct nprof_ntff_writer;
struct nprof_ntff_queue_desc;

/*
 * The spool of one queue. Ring position p is at file offset p - base, so a
 * session's window [begin, end) of ring positions is the same range of the
 * spool; what no session needs is never written (a hole) or punched out.
 * @spooled: ring positions below it are in the spool (or were skipped) and
 *	released from the ring.
 * @punched: file offsets below punched - base are holes.
 * @err: sticky -errno once a write failed; the queue then keeps its entries
 *	in the ring, as without streaming.
 */
struct nprof_spool {
	int fd;
	uint64_t base;
	uint64_t spooled;
	uint64_t punched;
	int err;
};

/*
 * Open the spool of a queue whose ring starts at consumer position @base, as
 * an unnamed temporary file in @dir (O_TMPFILE; where the file system has no
 * O_TMPFILE, a file created and unlinked at once). Nothing ever appears under
 * a name, so a crash leaves nothing behind. 0 or -errno with a message.
 */
int nprof_spool_open(struct nprof_spool *sp, const char *dir, uint64_t base);

void nprof_spool_close(struct nprof_spool *sp);

/*
 * Move the unread part of @ring into the spool and release it from the
 * ring. Ring positions below *@keep_from are skipped (released without being
 * written: no session needs them); NULL skips everything (no active session). Repeats while the producer keeps more
 * than @watermark bytes unread, so that a caller that sleeps afterwards is
 * woken by the next crossing. Return: bytes written to the spool, or -errno
 * (then sp->err is set and the ring keeps what was not written).
 */
int64_t nprof_spool_pull(struct nprof_spool *sp, struct nprof_ring *ring, const uint64_t *keep_from,
			 uint64_t watermark);

/* Punch the file range of ring positions below @pos (never above spooled). */
void nprof_spool_punch(struct nprof_spool *sp, uint64_t pos);

/*
 * Append ring positions [begin, end) of queue @desc to @w: the part below
 * spooled from the spool (mapped in pieces, so the writer checksums and
 * writes the page cache's memory, never a heap copy), the rest from @ring
 * as its spans. Return 0 or -errno.
 */
int nprof_spool_write(struct nprof_spool *sp, struct nprof_ring *ring,
		      struct nprof_ntff_writer *w, const struct nprof_ntff_queue_desc *desc,
		      uint64_t begin, uint64_t end);

/*
 * Add to the progress page of NPROF_PROGRESS_FD_ENV, if the process was
 * given one (looked up once); nothing otherwise.
 */
void nprof_progress_add(uint64_t entries, uint64_t bytes, uint64_t lost);

/* ---- the drainer -------------------------------------------------------------- */

struct nprof_drainer;

/* NPROF_DRAIN_ALL as the key: drain every queue (a pass asked by a kick). */
#define NPROF_DRAIN_ALL	UINT64_MAX

/*
 * Start the drainer thread. It calls @drain(@arg, key) for every queue whose
 * descriptor polls readable, and @drain(@arg, NPROF_DRAIN_ALL) once per kick.
 * The thread blocks every asynchronous signal, so a SIGTERM or SIGINT is
 * handled (and the crash flush run) by an application thread, never by one
 * that may hold a core's lock. NULL with errno on failure.
 */
struct nprof_drainer *nprof_drainer_start(void (*drain)(void *arg, uint64_t key), void *arg);

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
