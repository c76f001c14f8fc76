// SPDX-License-Identifier: MIT
/*
 * The system-trace event taxonomy: names of enum nprof_sys_trace_event_type
 * and the "hardware"/"software" groups (Documentation/library.rst). It is
 * the vocabulary of every trace point, so it sits in trace/base/ beside them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/sys_trace_events.h>

#include "util/internal.h"
#include "trace/base/tracepoint.h"

/* Indexed by enum nprof_sys_trace_event_type; the order is ABI. */
static const char *const event_names[NPROF_SYS_TRACE_EVENT_COUNT] = {
	[NPROF_EV_NC_EXEC_RUNNING] = "nc_exec_running",
	[NPROF_EV_CC_RUNNING] = "cc_running",
	[NPROF_EV_CC_EXEC_BARRIER] = "cc_exec_barrier",
	[NPROF_EV_NUMERICAL_ERR] = "numerical_err",
	[NPROF_EV_NRT_MODEL_SWITCH] = "nrt_model_switch",
	[NPROF_EV_TIMESTAMP_SYNC_POINT] = "timestamp_sync_point",
	[NPROF_EV_HW_NOTIFY] = "hw_notify",
	[NPROF_EV_MODEL_LOAD] = "model_load",
	[NPROF_EV_NRT_LOAD] = "nrt_load",
	[NPROF_EV_NRT_EXECUTE] = "nrt_execute",
	[NPROF_EV_RUNTIME_EXECUTE] = "runtime_execute",
	[NPROF_EV_NRT_TENSOR_READ] = "nrt_tensor_read",
	[NPROF_EV_NRT_TENSOR_WRITE] = "nrt_tensor_write",
	[NPROF_EV_TENSOR_READ] = "tensor_read",
	[NPROF_EV_TENSOR_WRITE] = "tensor_write",
	[NPROF_EV_DEVICE_EXEC] = "device_exec",
	[NPROF_EV_NRTA_EXECUTE_SCHEDULE] = "nrta_execute_schedule",
	[NPROF_EV_KBL_EXEC_WAIT] = "kbl_exec_wait",
	[NPROF_EV_KMGR_EXEC_CORE] = "kmgr_exec_core",
	[NPROF_EV_CC_EXEC] = "cc_exec",
	[NPROF_EV_DMEM_BUF_COPYIN] = "dmem_buf_copyin",
	[NPROF_EV_DMEM_BUF_COPYOUT] = "dmem_buf_copyout",
	[NPROF_EV_NRT_UNLOAD] = "nrt_unload",
	[NPROF_EV_NRT_TENSOR_ALLOCATE] = "nrt_tensor_allocate",
	[NPROF_EV_NRT_TENSOR_FREE] = "nrt_tensor_free",
	[NPROF_EV_INSPECT_BEGIN] = "inspect_begin",
	[NPROF_EV_INSPECT_STOP] = "inspect_stop",
	[NPROF_EV_PROFILE_START] = "profile_start",
	[NPROF_EV_PROFILE_STOP] = "profile_stop",
	[NPROF_EV_PROFILE_SERIALIZE] = "profile_serialize",
	[NPROF_EV_NQ_SUBSCRIBE] = "nq_subscribe",
	[NPROF_EV_NQ_DRAIN] = "nq_drain",
	[NPROF_EV_NQ_OVERFLOW] = "nq_overflow",
	[NPROF_EV_DEVICE_OPEN] = "device_open",
	[NPROF_EV_DEVICE_CLOSE] = "device_close",
	[NPROF_EV_SIM_EXEC] = "sim_exec",
	[NPROF_EV_EXEC_ERROR] = "exec_error",
	[NPROF_EV_USER] = "user",
};

_Static_assert(NPROF_SYS_TRACE_EVENT_COUNT <= 64, "event type mask is 64 bits");

NPROF_API const char *nprof_sys_trace_event_type_name(unsigned int type)
{
	if (type >= NPROF_SYS_TRACE_EVENT_COUNT)
		return nprof_err_ptr(EINVAL, "unknown system-trace event type %u", type);
	return event_names[type];
}

NPROF_API int nprof_sys_trace_event_type_from_name(const char *name)
{
	int i;

	if (!name)
		return nprof_err(EINVAL, "system-trace event type name is NULL");
	for (i = 0; i < NPROF_SYS_TRACE_EVENT_COUNT; i++)
		if (!strcmp(name, event_names[i]))
			return i;
	return nprof_err(EINVAL, "unknown system-trace event type '%s'", name);
}

NPROF_API bool nprof_sys_trace_event_type_is_hardware(unsigned int type)
{
	return type < 64 && ((NPROF_SYS_TRACE_HARDWARE_MASK >> type) & 1);
}

int nprof_sys_trace_event_selector(const char *name, uint64_t *mask)
{
	int t;

	if (!name)
		return nprof_err(EINVAL, "system-trace event type name is NULL");
	if (!strcmp(name, "hardware")) {
		*mask = NPROF_SYS_TRACE_HARDWARE_MASK;
		return 0;
	}
	if (!strcmp(name, "software")) {
		*mask = NPROF_SYS_TRACE_ALL_MASK & ~NPROF_SYS_TRACE_HARDWARE_MASK;
		return 0;
	}
	t = nprof_sys_trace_event_type_from_name(name);
	if (t < 0)
		return t;
	*mask = 1ULL << t;
	return 0;
}

const char *const *nprof_sys_trace_event_names(void)
{
	return event_names;
}
