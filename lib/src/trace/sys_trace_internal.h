/* SPDX-License-Identifier: MIT */
/*
 * The host trace (layer 4 of the library, see README): the system-trace
 * rings, the system monitor and the system-profile writer (the event
 * taxonomy they record is trace/base/'s, with the trace points and the
 * clock). Internals shared by its files and by the layers above.
 *
 * May call: util/, model/, ntff/, output/, trace/base/ (never device/ or
 * capture/, which record their events through trace/base/tracepoint.h, nor
 * anything above).
 *
 * An entry point above this layer traces itself like this; when the trace is
 * off or filters the event out, the cost is two loads and no clock read:
 *
 *	struct nprof_sys_trace_event ev;
 *
 *	nprof_sys_trace_begin(&ev, NPROF_EV_NQ_DRAIN, NPROF_SYS_TRACE_SRC_NEURON_RT, core);
 *	... the work ...
 *	nprof_sys_trace_end(&ev);
 *
 * nprof_st_wanted() (trace/base/tracepoint.h) answers the filter question alone,
 * for code that wants to skip preparing attributes.
 */
#ifndef NEURONPROF_SYS_TRACE_INTERNAL_H
#define NEURONPROF_SYS_TRACE_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <neuronprof/output.h>
#include <neuronprof/sys_trace.h>

#include "trace/base/tracepoint.h"

/* The system-trace configuration (config/config.c keeps its setters). */
struct nprof_sys_trace_config {
	uint64_t max_events_per_nc;
	uint64_t event_type_mask;		/* bit per enum nprof_sys_trace_event_type */
	uint8_t capture_nc[NPROF_MAX_CORES];	/* 1 = capture */
};


/*
 * nprof_sys_trace_intern() for the library's own trace points: NULL on any
 * failure, without touching the thread's last error (a trace point on an
 * error path must not replace the message that explains the error).
 */
const char *nprof_st_intern(const char *s);

/* What the system-profile writer needs to know about the trace. */
struct nprof_st_session {
	bool started;			/* started at least once (since release) */
	bool active;
	uint32_t pid;
	int64_t worker_gid;		/* -1: none */
	uint64_t max_events;
	uint64_t type_mask;		/* captured types (of the last start) */
	uint8_t capture_nc[NPROF_MAX_CORES];
	uint64_t start_ns;		/* CLOCK_MONOTONIC */
	uint64_t stop_ns;		/* 0 while active */
	uint64_t start_real_ns;		/* CLOCK_REALTIME at start, read with start_ns */
	char instance_id[NPROF_INSTANCE_ID_MAX + 1];
};

void nprof_st_session_get(struct nprof_st_session *s);

/* Events copied per lock hold when reading, so writers never wait long. */
#define NPROF_ST_READ_CHUNK	256

/* Take up to @max pending events of ring @core, oldest first; how many. */
size_t nprof_st_ring_take(uint32_t core, struct nprof_sys_trace_record *out, size_t max);
/* Capacity, pending, recorded and overwritten counts of ring @core. */
void nprof_st_ring_stats(uint32_t core, struct nprof_sys_trace_stats *st);

/*
 * nprof_st_set_signal_context() - this thread is (no longer) saving data
 * from a fatal-signal handler: ring locks are then only tried, so a lock the
 * interrupted code held cannot hang the flush.
 */
void nprof_st_set_signal_context(bool on);

/* Tests only: take a ring's lock and never release it. */
void nprof_st_test_hold_ring_lock(uint32_t core);

/* The name of the JSON/proto group of an event type. */
static inline const char *nprof_st_group_name(uint32_t type)
{
	return nprof_sys_trace_event_type_is_hardware(type) ? "hardware" : "software";
}

#endif /* NEURONPROF_SYS_TRACE_INTERNAL_H */
