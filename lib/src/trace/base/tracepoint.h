/* SPDX-License-Identifier: MIT */
/*
 * Trace points for the layers below the host trace (device, capture): the
 * system trace (trace/, layer 4) hands its recorder down through one ops
 * table, so the device layer records device_open or nq_drain without
 * calling up into it. The filter words live here too: the trace writes
 * them when it starts and stops, and a trace point that is filtered out
 * (or the trace off) costs two loads and no call.
 *
 *	struct nprof_sys_trace_event ev;
 *
 *	nprof_tp_begin(&ev, NPROF_EV_NQ_DRAIN, NPROF_SYS_TRACE_SRC_NEURON_RT, core);
 *	... the work ...
 *	nprof_tp_end(&ev);
 *
 * The folder trace/base/ (layer 1, see README) may call util/; this header
 * calls nothing (the recorder is reached through the installed ops).
 */
#ifndef NEURONPROF_TRACEPOINT_H
#define NEURONPROF_TRACEPOINT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <neuronprof/common.h>
#include <neuronprof/sys_trace_events.h>

/* ---- the taxonomy (sys_trace_events.c) ---- */

/* Parse "group or name" event-type selectors into a mask; 0 or -EINVAL. */
int nprof_sys_trace_event_selector(const char *name, uint64_t *mask);

/* The names of the event types, NPROF_SYS_TRACE_EVENT_COUNT of them, by type. */
const char *const *nprof_sys_trace_event_names(void);

/* ---- the filter ---- */

/* Rings of the trace: one per core and one for events not tied to a core. */
#define NPROF_ST_RINGS		(NPROF_MAX_CORES + 1)
#define NPROF_ST_MASK_WORDS	((NPROF_ST_RINGS + 63) / 64)

/* The filter: a type bit per captured type, 0 while the trace is off. */
extern _Atomic uint64_t nprof_st_type_mask;
/* A bit per ring with a ring (captured cores and the no-core ring). */
extern _Atomic uint64_t nprof_st_core_mask[NPROF_ST_MASK_WORDS];

static inline bool nprof_st_wanted(uint32_t type, uint32_t core)
{
	uint64_t t = atomic_load_explicit(&nprof_st_type_mask, memory_order_acquire);

	if (type >= NPROF_SYS_TRACE_EVENT_COUNT || core > NPROF_SYS_TRACE_NO_CORE)
		return false;
	if (!((t >> type) & 1))
		return false;
	return (atomic_load_explicit(&nprof_st_core_mask[core >> 6], memory_order_relaxed) >>
		(core & 63)) & 1;
}

/* ev->reserved of an event whose begin recorded nothing: its end records nothing. */
#define NPROF_TP_SKIPPED	0x5ca1ab1eu

/*
 * The recorder: nprof_sys_trace_begin(), _end(), _record_event() and an
 * intern that leaves the thread's last error alone (a trace point on an
 * error path must not replace the message that explains the error).
 */
struct nprof_tracepoint_ops {
	int (*begin)(struct nprof_sys_trace_event *ev, uint32_t type, uint32_t source,
		     uint32_t core);
	int (*end)(struct nprof_sys_trace_event *ev);
	int (*record)(const struct nprof_sys_trace_event *ev);
	const char *(*intern)(const char *s);
};

/*
 * Install the recorder; the trace does so before it first sets a filter
 * bit, so a trace point that passes the filter always finds it.
 */
void nprof_tp_install(const struct nprof_tracepoint_ops *ops);

/* As nprof_sys_trace_begin() etc.; no-ops while no recorder is installed. */
int nprof_tp_begin(struct nprof_sys_trace_event *ev, uint32_t type, uint32_t source,
		   uint32_t core);
int nprof_tp_end(struct nprof_sys_trace_event *ev);
int nprof_tp_record(const struct nprof_sys_trace_event *ev);
/* NULL on any failure or while no recorder is installed. */
const char *nprof_tp_intern(const char *s);

#endif /* NEURONPROF_TRACEPOINT_H */
