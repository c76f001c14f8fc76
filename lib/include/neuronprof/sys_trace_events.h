/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: the system-trace event taxonomy.
 *
 * Every event the host-side system trace records has one of these types.
 * The taxonomy is ours (the runtime's full list is not public): it contains
 * every name the public Neuron documentation shows, with the group
 * "hardware" exactly as documented there, and every other type in the group
 * "software". Values are stable: new types are only appended, before
 * NPROF_SYS_TRACE_EVENT_COUNT (they are ABI: ntrace.pb carries them).
 *
 * Who records what: the library's own entry points record the types marked
 * [lib] below; every other type is recorded by applications or runtimes
 * through the recording API (nprof_sys_trace_record*(), _begin/_end).
 * Documentation/library.rst lists each type and who records it, and
 * Documentation/sys_trace.rst what the library's events carry.
 */
#ifndef NEURONPROF_SYS_TRACE_EVENTS_H
#define NEURONPROF_SYS_TRACE_EVENTS_H

#include <stdbool.h>

#include <neuronprof/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nprof_sys_trace_event_type {
	/* group "hardware" (exactly these seven) */
	NPROF_EV_NC_EXEC_RUNNING = 0,		/* "nc_exec_running" a core executes */
	NPROF_EV_CC_RUNNING = 1,		/* "cc_running" a collective runs */
	NPROF_EV_CC_EXEC_BARRIER = 2,		/* "cc_exec_barrier" collective barrier */
	NPROF_EV_NUMERICAL_ERR = 3,		/* "numerical_err" NaN/Inf detected */
	NPROF_EV_NRT_MODEL_SWITCH = 4,		/* "nrt_model_switch" core switches model */
	NPROF_EV_TIMESTAMP_SYNC_POINT = 5,	/* "timestamp_sync_point" host/device clock pair */
	NPROF_EV_HW_NOTIFY = 6,			/* "hw_notify" a device notification */
	/* group "software": documented names */
	NPROF_EV_MODEL_LOAD = 7,		/* "model_load" [lib] */
	NPROF_EV_NRT_LOAD = 8,			/* "nrt_load" */
	NPROF_EV_NRT_EXECUTE = 9,		/* "nrt_execute" [lib] */
	NPROF_EV_RUNTIME_EXECUTE = 10,		/* "runtime_execute" */
	NPROF_EV_NRT_TENSOR_READ = 11,		/* "nrt_tensor_read" */
	NPROF_EV_NRT_TENSOR_WRITE = 12,		/* "nrt_tensor_write" */
	NPROF_EV_TENSOR_READ = 13,		/* "tensor_read" */
	NPROF_EV_TENSOR_WRITE = 14,		/* "tensor_write" */
	NPROF_EV_DEVICE_EXEC = 15,		/* "device_exec" */
	NPROF_EV_NRTA_EXECUTE_SCHEDULE = 16,	/* "nrta_execute_schedule" */
	NPROF_EV_KBL_EXEC_WAIT = 17,		/* "kbl_exec_wait" */
	NPROF_EV_KMGR_EXEC_CORE = 18,		/* "kmgr_exec_core" */
	NPROF_EV_CC_EXEC = 19,			/* "cc_exec" */
	NPROF_EV_DMEM_BUF_COPYIN = 20,		/* "dmem_buf_copyin" */
	NPROF_EV_DMEM_BUF_COPYOUT = 21,		/* "dmem_buf_copyout" */
	/*
	 * group "software": names of our own, for the library's events and
	 * three for applications (the library has no tensor API; "user" is the
	 * application's own)
	 */
	NPROF_EV_NRT_UNLOAD = 22,		/* "nrt_unload" [lib] a model is unloaded */
	NPROF_EV_NRT_TENSOR_ALLOCATE = 23,	/* "nrt_tensor_allocate" a tensor is allocated */
	NPROF_EV_NRT_TENSOR_FREE = 24,		/* "nrt_tensor_free" a tensor is freed */
	NPROF_EV_INSPECT_BEGIN = 25,		/* "inspect_begin" [lib] a session starts */
	NPROF_EV_INSPECT_STOP = 26,		/* "inspect_stop" [lib] a session stops */
	NPROF_EV_PROFILE_START = 27,		/* "profile_start" [lib] device capture armed */
	NPROF_EV_PROFILE_STOP = 28,		/* "profile_stop" [lib] device capture harvested */
	NPROF_EV_PROFILE_SERIALIZE = 29,	/* "profile_serialize" [lib] NTFF written */
	NPROF_EV_NQ_SUBSCRIBE = 30,		/* "nq_subscribe" [lib] a queue subscribed */
	NPROF_EV_NQ_DRAIN = 31,			/* "nq_drain" [lib] a ring drained */
	NPROF_EV_NQ_OVERFLOW = 32,		/* "nq_overflow" [lib] a ring lost entries */
	NPROF_EV_DEVICE_OPEN = 33,		/* "device_open" [lib] a device opened */
	NPROF_EV_DEVICE_CLOSE = 34,		/* "device_close" [lib] a device closed */
	NPROF_EV_SIM_EXEC = 35,			/* "sim_exec" [lib] a simulated program ran */
	NPROF_EV_EXEC_ERROR = 36,		/* "exec_error" [lib] an execution failed */
	NPROF_EV_USER = 37,			/* "user" an application-defined event */
	NPROF_SYS_TRACE_EVENT_COUNT = 38,
};

/* Bit mask of the "hardware" group: bit (1 << type) per hardware type. */
#define NPROF_SYS_TRACE_HARDWARE_MASK	0x7fULL

/* Bit mask of every event type. */
#define NPROF_SYS_TRACE_ALL_MASK	((1ULL << NPROF_SYS_TRACE_EVENT_COUNT) - 1)

/**
 * nprof_sys_trace_event_type_name() - name of an event type.
 *
 * Return: the static name, or NULL with errno EINVAL if @type is unknown.
 */
NPROF_API const char *nprof_sys_trace_event_type_name(unsigned int type);

/**
 * nprof_sys_trace_event_type_from_name() - event type of a name.
 * @name: an event type name (exact, case-sensitive). Group names are not
 *	event types and are refused here.
 *
 * Return: the enum nprof_sys_trace_event_type (>= 0), or -EINVAL if @name is
 * NULL or unknown (the message names it).
 */
NPROF_API int nprof_sys_trace_event_type_from_name(const char *name);

/**
 * nprof_sys_trace_event_type_is_hardware() - is @type in group "hardware".
 *
 * Return: true for the seven hardware types, false for any other value.
 */
NPROF_API bool nprof_sys_trace_event_type_is_hardware(unsigned int type);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_SYS_TRACE_EVENTS_H */
