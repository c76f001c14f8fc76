// SPDX-License-Identifier: MIT
/*
 * The trace points of the lower layers (see tracepoint.h): the filter words
 * and the recorder the system trace installs.
 */
#include <string.h>

#include "trace/base/tracepoint.h"

_Atomic uint64_t nprof_st_type_mask;
_Atomic uint64_t nprof_st_core_mask[NPROF_ST_MASK_WORDS];

static const struct nprof_tracepoint_ops *_Atomic tp_ops;

void nprof_tp_install(const struct nprof_tracepoint_ops *ops)
{
	atomic_store_explicit(&tp_ops, ops, memory_order_release);
}

static const struct nprof_tracepoint_ops *ops_get(void)
{
	return atomic_load_explicit(&tp_ops, memory_order_acquire);
}

int nprof_tp_begin(struct nprof_sys_trace_event *ev, uint32_t type, uint32_t source,
		   uint32_t core)
{
	const struct nprof_tracepoint_ops *ops;

	if (!nprof_st_wanted(type, core) || !(ops = ops_get())) {
		memset(ev, 0, sizeof(*ev));
		ev->reserved = NPROF_TP_SKIPPED;
		return 0;
	}
	return ops->begin(ev, type, source, core);
}

int nprof_tp_end(struct nprof_sys_trace_event *ev)
{
	const struct nprof_tracepoint_ops *ops;

	if (ev->reserved == NPROF_TP_SKIPPED || !(ops = ops_get()))
		return 0;
	return ops->end(ev);
}

int nprof_tp_record(const struct nprof_sys_trace_event *ev)
{
	const struct nprof_tracepoint_ops *ops;

	if (!nprof_st_wanted(ev->type, ev->core) || !(ops = ops_get()))
		return 0;
	return ops->record(ev);
}

const char *nprof_tp_intern(const char *s)
{
	const struct nprof_tracepoint_ops *ops = ops_get();

	return ops ? ops->intern(s) : NULL;
}
