/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: SESSION-keyed device-profile capture.
 *
 * A capture engine works on one open device. A session on a NeuronCore
 * covers all the device activity of that core between start and stop:
 *
 *	cap = nprof_capture_create(dev, NULL);
 *	nprof_capture_session_start(cap, nc);      // subscribe every queue
 *	... the core executes ...
 *	nprof_capture_session_stop(cap, nc, &id);  // flush, harvest, stash
 *	nprof_capture_session_serialize(cap, nc, id, dir);
 *	                   // -> <dir>/profile_nc_<nc>_session_<id>.ntff
 *	nprof_capture_close(cap);
 *
 * start subscribes every queue of the core (each queue type the core has,
 * one per engine for per-engine types) and of every TopSP serving it (TopSP
 * t serves core t / (num_topsps / num_cores)). stop flushes every queue,
 * records where the session's entries lie in each ring, the lost counts and
 * the sequence numbers, mints the core's next session id and stashes the
 * result under it. serialize pops the stash and writes the NTFF file
 * straight from the mapped rings; drop discards it. Harvested entries are
 * never copied to the heap: they stay in the rings, which stay subscribed
 * and mapped until every session that covers them has been serialized or
 * dropped. Queue types this library does not know are never subscribed nor
 * written (a debug message says which were dropped).
 *
 * Thread safety: every function may be called from any thread. Calls on
 * different cores run in parallel; calls on one core are serialised by a
 * per-core lock, except the file writing of serialize, which runs outside
 * it. nprof_capture_close() waits for calls in progress.
 *
 * System trace: a successful start records profile_start, a successful stop
 * profile_stop (with the session id and the entries and losses harvested),
 * and each serialize of a stashed session profile_serialize (with the error
 * if the write failed), on the core; the queues record their own events
 * (<neuronprof/device.h>). Documentation/sys_trace.rst lists them.
 *
 * Documentation/capture.rst describes the engine in full.
 */
#ifndef NEURONPROF_CAPTURE_H
#define NEURONPROF_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include <neuronprof/common.h>
#include <neuronprof/device.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque capture engine of one device. */
struct nprof_capture;

/*
 * Ring size of every queue whose type has no size in the options: 1 MiB,
 * 16384 entries of 64 bytes, small enough that a whole trn2 device (192
 * queues) fits in a small VM.
 */
#define NPROF_CAPTURE_DEFAULT_RING_SIZE	(1ULL << 20)

/*
 * struct nprof_capture_opts - how a capture engine subscribes.
 * @size: sizeof(struct nprof_capture_opts) as the caller compiled it.
 * @ring_size: bytes of ring per queue, by queue type (enum
 *	neuronprof_queue_type); 0 means NPROF_CAPTURE_DEFAULT_RING_SIZE. The
 *	device layer rounds each up to a power of two and clamps it to the
 *	device's limits (nprof_device_ring_size()).
 * @flags: NPROF_CAPTURE_ZERO_COPY or 0.
 * @spool_dir: where streaming writes the files of the captures running, as
 *	unnamed temporary files (NULL: $TMPDIR, else /var/tmp); best on the
 *	file system of the output directory, where serialize links the file
 *	into place instead of copying it. The string is copied.
 *
 * Callers compiled before @flags existed pass a smaller @size; they get the
 * defaults of the members they do not know.
 */
struct nprof_capture_opts {
	size_t size;
	uint64_t ring_size[NPROF_QUEUE_TYPES];
	uint32_t flags;
	uint32_t reserved;		/* must be 0 */
	const char *spool_dir;
};

/*
 * Keep entries in the rings until serialize (no drainer, no file written
 * while capturing): a session then holds at most one ring of each queue,
 * and what does not fit is counted as lost. Without it (the default) the
 * engine streams: a drainer thread writes ring contents into the session's
 * NTFF file while the capture runs, so nothing is lost while the disk keeps
 * up.
 */
#define NPROF_CAPTURE_ZERO_COPY		(1u << 0)

/* The inspect configuration (<neuronprof/config.h>, which declares its functions). */
struct nprof_inspect_config;

/**
 * nprof_capture_opts_from_config() - take the ring sizes of an inspect
 * configuration (nprof_inspect_config_set_ring_size() and the
 * NEURON_RT_PROFILE_BUF_<TYPE>_MB variables).
 * @opts: out; set @opts->size first.
 * @cfg: the configuration.
 *
 * Note that the configuration's defaults are the runtime's (64 to 128 MiB
 * per queue type), far more than NPROF_CAPTURE_DEFAULT_RING_SIZE.
 *
 * Return: 0, or -EINVAL for NULL arguments or a bad @opts->size.
 */
NPROF_API int nprof_capture_opts_from_config(struct nprof_capture_opts *opts,
					     const struct nprof_inspect_config *cfg);

/**
 * nprof_capture_create() - a capture engine for a device.
 * @dev: the device; it must stay open until nprof_capture_close() returns.
 * @opts: ring sizes, or NULL for NPROF_CAPTURE_DEFAULT_RING_SIZE everywhere.
 *
 * Nothing is subscribed until a session starts.
 *
 * Return: the engine, or NULL with errno EINVAL (NULL @dev, bad
 * @opts->size) or ENOMEM.
 */
NPROF_API struct nprof_capture *nprof_capture_create(struct nprof_device *dev,
						     const struct nprof_capture_opts *opts);

/**
 * nprof_capture_close() - end every session and free the engine.
 *
 * Waits until calls in progress on other threads return; calls that begin
 * while it waits fail with -ESHUTDOWN. Then discards the active sessions and
 * every stashed session that was not serialized, and unsubscribes every
 * queue. The handle is invalid once it returns. NULL is allowed.
 */
NPROF_API void nprof_capture_close(struct nprof_capture *cap);

/**
 * nprof_capture_session_start() - start a session on a NeuronCore.
 * @nc: the core, below the device's num_cores.
 *
 * Subscribes the core's queues if no earlier session of this core still
 * holds them (a stashed, unserialized session keeps them subscribed; the
 * new session then begins where the rings are now, after a flush). On a
 * failure every queue subscribed by this call is unsubscribed again.
 *
 * Return: 0; -EINVAL (@cap NULL, @nc out of range); -EBUSY (a session is
 * already active on @nc, or a queue has as many subscribers as it takes); -ESHUTDOWN
 * (closing); or the error of a subscription (the message names the queue).
 */
NPROF_API int nprof_capture_session_start(struct nprof_capture *cap, uint32_t nc);

/**
 * nprof_capture_session_active() - is a session active on a core.
 *
 * Return: 1 or 0; -EINVAL for a NULL @cap or a bad @nc; -ESHUTDOWN.
 */
NPROF_API int nprof_capture_session_active(struct nprof_capture *cap, uint32_t nc);

/**
 * nprof_capture_session_stop() - stop a session and stash what it captured.
 * @nc: the core.
 * @session_id: out, the id minted for the stashed session: the core's
 *	next id (0 for the first, then 1, 2, ...; monotonic per core).
 *
 * Drains every queue of the session with a flush (when the device can
 * flush), and records per queue the range of ring positions the session
 * covers, the notifications lost in it and the ring flags. A queue whose
 * drain fails (a failed flush, the device removed) is still harvested from
 * its mapped ring as it is, with a warning: a partial profile is stashed
 * rather than none.
 *
 * Return: 0; -EINVAL (@cap or @session_id NULL, @nc out of range, or no
 * active session on @nc: "no active profile session for NC <nc>");
 * -ESHUTDOWN; -ENOMEM.
 */
NPROF_API int nprof_capture_session_stop(struct nprof_capture *cap, uint32_t nc,
					 uint64_t *session_id);

/**
 * nprof_capture_session_serialize() - write a stashed session to NTFF.
 * @nc: the core.
 * @session_id: from nprof_capture_session_stop().
 * @dir: the directory to write into (it must exist).
 *
 * Writes "<dir>/profile_nc_<nc>_session_<session_id>.ntff" with the NTFF
 * writer: the capture description (process, core, session id, instance id,
 * host name, start and stop times, clock domain), the device description
 * once, and one queue record per subscribed queue with its entries written
 * straight from the mapped ring (two spans when the range wraps). The file
 * appears only when complete. On success the session leaves the stash and
 * its ring space is released; on failure it stays stashed, so the call can
 * be repeated or the session dropped.
 *
 * Return: 0; -EINVAL (NULL @cap or @dir, bad @nc); -ENOENT ("unable to find
 * profile session id <session_id>"); -EBUSY (another thread is serializing
 * it); -ESHUTDOWN; or the error of the writer (the message names the file).
 */
NPROF_API int nprof_capture_session_serialize(struct nprof_capture *cap, uint32_t nc,
					      uint64_t session_id, const char *dir);

/**
 * nprof_capture_session_serialize_at() - nprof_capture_session_serialize()
 * into the directory @dirfd (for example from nprof_output_mkdir_p()).
 */
NPROF_API int nprof_capture_session_serialize_at(struct nprof_capture *cap, uint32_t nc,
						 uint64_t session_id, int dirfd);

/**
 * nprof_capture_session_drop() - discard a stashed session unwritten.
 *
 * Return: 0; -EINVAL; -ENOENT ("unable to find profile session id <id>");
 * -EBUSY (being serialized); -ESHUTDOWN.
 */
NPROF_API int nprof_capture_session_drop(struct nprof_capture *cap, uint32_t nc,
					 uint64_t session_id);

/**
 * nprof_capture_session_sync() - wait until the drainer has written into the
 * active session's file everything the rings of core @nc held when the call began (a pass
 * of the drainer that starts after the call). Without streaming there is
 * nothing to move and it returns at once.
 *
 * Return: 0; -EINVAL (bad core), -ESHUTDOWN (the engine closes), or the
 * error that keeps the active session or one of the core's queues from
 * streaming (its file could not be created, or the last write failed): the
 * entries then stay in the ring, as without streaming, and the file counts
 * what does not fit as lost.
 */
NPROF_API int nprof_capture_session_sync(struct nprof_capture *cap, uint32_t nc);

/*
 * struct nprof_capture_progress - what an engine has moved so far.
 * @size: sizeof(struct nprof_capture_progress) as the caller compiled it.
 * @streaming: 1 when the engine streams, 0 with NPROF_CAPTURE_ZERO_COPY.
 * @queues: queues subscribed now.
 * @entries, @bytes: entries and bytes streamed into capture files since create.
 * @lost: notifications lost by the queues subscribed now, since each was
 *	subscribed.
 */
struct nprof_capture_progress {
	size_t size;
	uint32_t streaming;
	uint32_t queues;
	uint64_t entries;
	uint64_t bytes;
	uint64_t lost;
};

/**
 * nprof_capture_get_progress() - what the engine has moved so far, for a
 * status line. No ioctl, no file access.
 *
 * Return: 0; -EINVAL.
 */
NPROF_API int nprof_capture_get_progress(struct nprof_capture *cap,
					 struct nprof_capture_progress *p);

/*
 * A live view of every capture of a process, for a tool that runs it: if
 * the environment variable NPROF_PROGRESS_FD_ENV names a descriptor of at
 * least sizeof(struct nprof_progress_page) bytes (a memfd the tool created)
 * whose @magic is NPROF_PROGRESS_MAGIC, the capture engines of the process
 * add to its counters, with relaxed atomic additions, what they move:
 * @entries and @bytes streamed into capture files, and @lost, the notifications
 * their queues lost (counted as they are seen: at each drain, and at stop).
 * neuronprof record uses it for its status line.
 */
#define NPROF_PROGRESS_FD_ENV	"NEURONPROF_PROGRESS_FD"
#define NPROF_PROGRESS_MAGIC	0x6e70726f67726573ULL	/* "nprogres" */

struct nprof_progress_page {
	uint64_t magic;
	uint64_t entries;
	uint64_t bytes;
	uint64_t lost;
};

/*
 * Capture control of a process, for a tool that runs it (neuronprof record
 * --delay and --control): if the environment variable NPROF_CONTROL_FD_ENV
 * names a descriptor of at least sizeof(struct nprof_control_page) bytes (a
 * memfd the tool created) whose @magic is NPROF_CONTROL_MAGIC, the SESSION
 * capture of an inspect session captures in windows: an execution that
 * begins while @enabled is 0 is not captured, the first one that begins
 * while it is 1 starts a new capture session (a new file), and the first
 * one that begins while it is 0 again ends it; a MODEL capture captures
 * the first execution of each model that begins while @enabled is 1. In
 * SESSION mode, an execution that begins while a window is open and
 * @switch_seq differs from its value when the window opened ends that
 * window and opens the next one (a new file) with it: a tool rotates the
 * output (neuronprof record --switch-output) by adding 1 to @switch_seq
 * (added in 1.4.0 with the page; a page of 16 bytes reads it as 0). With
 * @switch_size not 0, an execution that begins once the open window holds
 * @switch_size bytes of entries or more (counted over the core's queues
 * from the window's first entry up to each ring's producer, what the
 * window's file will hold before an iteration range trims it) ends that
 * window and opens the next one with it, as a new @switch_seq does: the
 * library decides the switch itself, so a file's entries never exceed
 * @switch_size by more than its last execution's (record --switch-output
 * SIZE; a page of 24 bytes reads it as 0). The page is looked up at each
 * inspect session's begin. The library reads @enabled, @switch_seq and
 * @switch_size (atomic loads) at each execution's begin and never writes
 * them. Documentation/capture.rst, "Capture windows".
 */
#define NPROF_CONTROL_FD_ENV	"NEURONPROF_CONTROL_FD"
#define NPROF_CONTROL_MAGIC	0x6e70636f6e74726cULL	/* "npcontrl" */

struct nprof_control_page {
	uint64_t magic;
	uint64_t enabled;
	uint64_t switch_seq;
	uint64_t switch_size;
};

/*
 * struct nprof_capture_stats - what a stashed session holds.
 * @size: sizeof(struct nprof_capture_stats) as the caller compiled it.
 * @queues: queues (records) of the session.
 * @entries: entries captured, by queue type.
 * @lost: notifications lost during the session, by queue type.
 * @ring_flags: NPROF_RING_* bits of any of its queues.
 * @start_ns, @stop_ns: session start and stop in the device's clock.
 */
struct nprof_capture_stats {
	size_t size;
	uint32_t queues;
	uint32_t ring_flags;
	uint64_t entries[NPROF_QUEUE_TYPES];
	uint64_t lost[NPROF_QUEUE_TYPES];
	uint64_t start_ns;
	uint64_t stop_ns;
};

/**
 * nprof_capture_session_stats() - counts of a stashed session.
 * @st: out; set @st->size first.
 *
 * Return: 0; -EINVAL (NULL arguments, bad @nc or @st->size); -ENOENT;
 * -ESHUTDOWN.
 */
NPROF_API int nprof_capture_session_stats(struct nprof_capture *cap, uint32_t nc,
					  uint64_t session_id, struct nprof_capture_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_CAPTURE_H */
