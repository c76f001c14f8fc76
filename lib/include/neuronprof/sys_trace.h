/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: the host system trace (the runtime's nrt_sys_trace_*).
 *
 * While the trace is active, the library's entry points and the
 * application record events: intervals [start_ns, end_ns] of
 * CLOCK_MONOTONIC with an event type (<neuronprof/sys_trace_events.h>), a
 * source, a NeuronCore index, the recording thread and optional model id,
 * flow id and key=value attributes. Events go into one ring per core
 * (0..255) plus one ring for events not tied to a core
 * (NPROF_SYS_TRACE_NO_CORE). A ring holds at most the configuration's
 * max events per core; when it is full the oldest unread event is
 * overwritten and counted, per core. Readers take events out of the rings
 * either as JSON (nprof_sys_trace_fetch_events()) or as records
 * (nprof_sys_trace_drain(), which the system-profile writer uses); an event
 * is delivered at most once.
 *
 * Recording is meant to stay on: the filter check comes first, the ring is
 * guarded by a per-ring spinlock held for a few stores, and nothing is
 * allocated. Every function is thread-safe. Documentation/sys_trace.rst
 * describes the design, the JSON and the system-profile files.
 */
#ifndef NEURONPROF_SYS_TRACE_H
#define NEURONPROF_SYS_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <neuronprof/common.h>
#include <neuronprof/sys_trace_events.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The event itself (struct nprof_sys_trace_event, its sources, attributes
 * and flags, NPROF_SYS_TRACE_NO_CORE) and the clock of its timestamps
 * (nprof_sys_trace_clock_ns()) are in <neuronprof/sys_trace_events.h>, with
 * the event types: every layer of the library records events, so they sit
 * at its bottom. This header includes it.
 */

/* Fetch option: every ring. */
#define NPROF_SYS_TRACE_ALL_CORES	UINT32_MAX

/* Default and limits of the system-trace ring, in events per core. */
#define NPROF_SYS_TRACE_DEFAULT_MAX_EVENTS	1000000ULL
#define NPROF_SYS_TRACE_MAX_EVENTS_LIMIT	(1ULL << 28)

/*
 * struct nprof_sys_trace_record - an event taken out of a ring.
 * @id: (ring index << 40) | sequence number of the event in its ring,
 *	counting from 1 at nprof_sys_trace_start(); the ring index is the
 *	core, or NPROF_SYS_TRACE_NO_CORE. A gap in the sequence numbers of
 *	successive records of a ring is exactly the overwritten events.
 * @pid, @tid: process and thread that recorded the event.
 * Other fields as in struct nprof_sys_trace_event; @attrs holds the first
 * @nattrs attributes.
 */
struct nprof_sys_trace_record {
	uint64_t id;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t model_id;
	uint64_t flow_id;
	uint32_t type;
	uint32_t source;
	uint32_t core;
	uint32_t flags;
	uint32_t pid;
	uint32_t tid;
	uint32_t nattrs;
	uint32_t reserved;
	struct nprof_sys_trace_attr attrs[NPROF_SYS_TRACE_MAX_ATTRS];
};

/*
 * struct nprof_sys_trace_stats - counters of one ring since the last start.
 * @size: set by the caller to sizeof(struct nprof_sys_trace_stats).
 * @capacity: max events the ring holds (0 if the core is not captured).
 * @recorded: events written into the ring.
 * @overwritten: events overwritten before they were fetched or drained.
 * @consumed: events fetched or drained.
 * @pending: events in the ring now.
 * Always recorded == overwritten + consumed + pending.
 */
struct nprof_sys_trace_stats {
	size_t size;
	uint64_t capacity;
	uint64_t recorded;
	uint64_t overwritten;
	uint64_t consumed;
	uint64_t pending;
};

/* ---- control ---------------------------------------------------------- */

/*
 * The system-trace configuration: <neuronprof/config.h> declares its
 * functions (nprof_sys_trace_config_*, nprof_inspect_config_sys_trace()).
 */
struct nprof_sys_trace_config;

/**
 * nprof_sys_trace_start() - start recording.
 * @cfg: max events per core, captured cores and captured event types
 *	(copied; later changes to @cfg do not affect the running trace). An
 *	inspect session passes nprof_inspect_config_sys_trace().
 *
 * Discards whatever the previous trace left in the rings, then reserves one
 * ring of max-events slots (128 bytes each) per captured core and one for
 * events not tied to a core. The memory is reserved, not committed: pages
 * are touched only as events arrive. A ring sized like the previous trace's
 * is reused as is.
 *
 * Return: 0; -EINVAL if @cfg is NULL; -EBUSY if the trace is already
 * active; -ENOMEM if the rings cannot be reserved (the message gives the
 * size).
 */
NPROF_API int nprof_sys_trace_start(const struct nprof_sys_trace_config *cfg);

/**
 * nprof_sys_trace_stop() - stop recording. Events stay in the rings until
 * they are fetched or drained, or the trace is started again or released.
 * A record call that overlaps stop may or may not be recorded.
 *
 * Return: 0, or -EALREADY if the trace is not active.
 */
NPROF_API int nprof_sys_trace_stop(void);

/**
 * nprof_sys_trace_is_active() - is the trace recording.
 *
 * Return: 1 or 0. Never fails.
 */
NPROF_API int nprof_sys_trace_is_active(void);

/**
 * nprof_sys_trace_release() - free the rings of a stopped trace (their
 * events are lost). Only call it when no thread records any more: a record
 * call racing with it is safe, but wasted.
 *
 * Return: 0, or -EBUSY if the trace is active.
 */
NPROF_API int nprof_sys_trace_release(void);

/**
 * nprof_sys_trace_set_worker_global_id() - the process's worker global id
 * (its rank in a multi-process job), written with every event.
 * @gid: the id, or -1 to clear it (the default: no id).
 *
 * Return: 0, or -EINVAL if @gid is below -1 or above UINT32_MAX.
 */
NPROF_API int nprof_sys_trace_set_worker_global_id(int64_t gid);

/**
 * nprof_sys_trace_intern() - a copy of @s that lives as long as the
 * library, for attribute keys and string values built at run time.
 * Interning the same string twice returns the same pointer.
 *
 * Return: the copy, or NULL with errno EINVAL (@s NULL or longer than
 * 4095 bytes), ENOSPC (65536 strings interned already) or ENOMEM.
 */
NPROF_API const char *nprof_sys_trace_intern(const char *s);

/* ---- recording ---------------------------------------------------------- */

/**
 * nprof_sys_trace_record() - record one complete event.
 * @type: enum nprof_sys_trace_event_type.
 * @source: enum nprof_sys_trace_source.
 * @core: 0..255 or NPROF_SYS_TRACE_NO_CORE.
 * @start_ns, @end_ns: CLOCK_MONOTONIC, @end_ns >= @start_ns.
 *
 * The cheap path: no allocation, no system call (the thread id is cached
 * per thread). Not async-signal-safe: a signal handler must not record on
 * a core whose ring the interrupted thread may be writing (the per-ring
 * spinlock would never be released).
 *
 * Return: 1 if recorded; 0 if not (trace inactive, core or type filtered
 * out); -EINVAL for an unknown type or source, a core above
 * NPROF_SYS_TRACE_NO_CORE, or @end_ns < @start_ns.
 */
NPROF_API int nprof_sys_trace_record(uint32_t type, uint32_t source, uint32_t core,
				     uint64_t start_ns, uint64_t end_ns);

/**
 * nprof_sys_trace_record_event() - record one complete event with optional
 * fields.
 *
 * Return: as nprof_sys_trace_record(); -EINVAL also for unknown @ev->flags,
 * a non-zero reserved field, more than NPROF_SYS_TRACE_MAX_ATTRS
 * attributes, an attribute without key or of unknown type, or a string
 * attribute whose value is NULL.
 */
NPROF_API int nprof_sys_trace_record_event(const struct nprof_sys_trace_event *ev);

/**
 * nprof_sys_trace_begin() - begin an event of a begin/end pair.
 * @ev: caller-owned (typically on the stack) until nprof_sys_trace_end();
 *	zeroed, then @type, @source, @core set and @start_ns taken from the
 *	clock. The caller may set @flags, @model_id, @flow_id, @attrs and
 *	@nattrs before the end.
 *
 * The event enters the ring only at nprof_sys_trace_end(), complete; a
 * begin without an end records nothing. When the event would be filtered
 * out the clock is not read.
 *
 * Return: 1 if the event will be recorded if the trace is still active at
 * the end; 0 if it is filtered out or the trace is inactive (the end is
 * then a no-op); -EINVAL for bad arguments (@ev NULL, unknown type or
 * source, bad core).
 */
NPROF_API int nprof_sys_trace_begin(struct nprof_sys_trace_event *ev, uint32_t type,
				    uint32_t source, uint32_t core);

/**
 * nprof_sys_trace_end() - end the event begun by nprof_sys_trace_begin():
 * takes @ev->end_ns from the clock and records @ev.
 *
 * Return: as nprof_sys_trace_record_event().
 */
NPROF_API int nprof_sys_trace_end(struct nprof_sys_trace_event *ev);

/* ---- reading ------------------------------------------------------------- */

/**
 * nprof_sys_trace_drain() - take the oldest events out of one ring.
 * @core: 0..255 or NPROF_SYS_TRACE_NO_CORE.
 * @out: room for @max records.
 * @max: records wanted.
 *
 * Works while the trace is active or after it stopped. Events taken are
 * gone from the ring (fetch does not return them again).
 *
 * Return: the number of records written (0 when the ring is empty or the
 * core was not captured); -EINVAL if @core is out of range or @out is NULL
 * with @max non-zero.
 */
NPROF_API int nprof_sys_trace_drain(uint32_t core, struct nprof_sys_trace_record *out,
				    size_t max);

/**
 * nprof_sys_trace_get_stats() - counters of one ring.
 * @core: 0..255 or NPROF_SYS_TRACE_NO_CORE.
 * @stats: out; @stats->size must be set by the caller.
 *
 * Return: 0; -EINVAL for a NULL or too small @stats or a bad core.
 */
NPROF_API int nprof_sys_trace_get_stats(uint32_t core, struct nprof_sys_trace_stats *stats);

/* Fetch options (nrt_sys_trace_fetch_options_*): opaque. */
struct nprof_sys_trace_fetch_options;

/**
 * nprof_sys_trace_fetch_options_allocate() - options with defaults: every
 * ring, every pending event.
 *
 * Return: the options, or NULL with errno ENOMEM.
 */
NPROF_API struct nprof_sys_trace_fetch_options *nprof_sys_trace_fetch_options_allocate(void);

/**
 * nprof_sys_trace_fetch_options_free() - release them. NULL is allowed.
 */
NPROF_API void nprof_sys_trace_fetch_options_free(struct nprof_sys_trace_fetch_options *opts);

/**
 * nprof_sys_trace_fetch_options_set_defaults() - reset to the defaults.
 *
 * Return: 0, or -EINVAL if @opts is NULL.
 */
NPROF_API int nprof_sys_trace_fetch_options_set_defaults(struct nprof_sys_trace_fetch_options *opts);

/**
 * nprof_sys_trace_fetch_options_set_max_events_per_nc() - take at most
 * @max events from each ring (the oldest); 0 means every pending event.
 *
 * Return: 0, or -EINVAL if @opts is NULL.
 */
NPROF_API int nprof_sys_trace_fetch_options_set_max_events_per_nc(
	struct nprof_sys_trace_fetch_options *opts, uint64_t max);

/**
 * nprof_sys_trace_fetch_options_set_nc_idx() - fetch one ring only.
 * @nc: 0..255, NPROF_SYS_TRACE_NO_CORE, or NPROF_SYS_TRACE_ALL_CORES.
 *
 * Return: 0, or -EINVAL if @opts is NULL or @nc is none of those.
 */
NPROF_API int nprof_sys_trace_fetch_options_set_nc_idx(struct nprof_sys_trace_fetch_options *opts,
						       uint32_t nc);

/**
 * nprof_sys_trace_fetch_events() - take pending events out of the rings as
 * JSON (format in Documentation/sys_trace.rst).
 * @buf: out, a NUL-terminated UTF-8 JSON object; release it with
 *	nprof_sys_trace_buffer_free().
 * @len: out, its length without the NUL.
 * @opts: which rings and how many events, or NULL for the defaults.
 *
 * Each ring gives at most the events pending when the fetch reached it;
 * the JSON also gives, per ring, the overwritten count. Events fetched are
 * never returned again, by a fetch or by nprof_sys_trace_drain(). Works
 * while the trace is active or after it stopped.
 *
 * Return: 0; -EINVAL if @buf or @len is NULL; -ENOMEM. On failure the
 * events taken so far are lost (counted nowhere else) and *@buf is NULL.
 */
NPROF_API int nprof_sys_trace_fetch_events(char **buf, size_t *len,
					   const struct nprof_sys_trace_fetch_options *opts);

/**
 * nprof_sys_trace_buffer_free() - release a fetch buffer. NULL is allowed.
 */
NPROF_API void nprof_sys_trace_buffer_free(char *buf);

/**
 * nprof_sys_trace_source_name() - "neuron_rt", "neuron_hw" or "framework".
 *
 * Return: the static name, or NULL with errno EINVAL for an unknown source.
 */
NPROF_API const char *nprof_sys_trace_source_name(uint32_t source);

/* ---- system profile files -------------------------------------------------- */

struct nprof_monitor;

/* Files of nprof_system_profile_write(). */
#define NPROF_SYSPROF_NTRACE		(1u << 0)	/* ntrace.pb */
#define NPROF_SYSPROF_TRACE_INFO	(1u << 1)	/* trace_info.pb */
#define NPROF_SYSPROF_CPU_UTIL		(1u << 2)	/* cpu_util.pb */
#define NPROF_SYSPROF_HOST_MEM		(1u << 3)	/* host_mem.pb */
#define NPROF_SYSPROF_ALL		0xfu

/*
 * struct nprof_system_profile_opts - what nprof_system_profile_write() writes.
 * @size: sizeof(struct nprof_system_profile_opts).
 * @files: NPROF_SYSPROF_* bits; 0 means all four.
 * @instance_id: written into every file; NULL means the one the trace
 *	found at start (nprof_output_instance_id()).
 * @session_init_ns: the session's start as in its directory name; 0
 *	means the trace's start time in CLOCK_REALTIME nanoseconds.
 * @monitor: samples for cpu_util.pb and host_mem.pb; NULL writes them with
 *	no sample. The monitor should be stopped (a running one is read as
 *	it is at the time of the call).
 */
struct nprof_system_profile_opts {
	size_t size;
	unsigned int files;
	unsigned int reserved;	/* zero */
	const char *instance_id;
	uint64_t session_init_ns;
	const struct nprof_monitor *monitor;
};

/**
 * nprof_system_profile_write() - write the system profile into @dir.
 * @dir: an existing directory (the session directory).
 * @opts: as above, or NULL for the defaults.
 *
 * Drains every ring of the system trace into ntrace.pb, then writes
 * trace_info.pb (with the overwritten counts as they are after the drain),
 * cpu_util.pb and host_mem.pb. Each file is written under a temporary name
 * in @dir, synced, and renamed to its final name only once all of them are
 * written, so a file that exists is complete; existing regular files are
 * replaced. A name that is a character or block device or a FIFO is
 * written into in place instead, never renamed over nor unlinked; a name
 * that is a symbolic link is followed to the file it names (the link
 * stays).
 * Memory use does not grow with the number of events (ntrace.pb is
 * streamed). Called by the inspect session at stop; the trace may be
 * active or stopped.
 *
 * Return: 0; -EINVAL for bad @opts; or the negative errno of the file
 * operation that failed (the message names the file). On failure no
 * temporary file is left, and the drained events are lost.
 */
NPROF_API int nprof_system_profile_write(const char *dir, const struct nprof_system_profile_opts *opts);

/**
 * nprof_system_profile_writeat() - nprof_system_profile_write() into the
 * directory @dirfd (not closed).
 */
NPROF_API int nprof_system_profile_writeat(int dirfd, const struct nprof_system_profile_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_SYS_TRACE_H */
