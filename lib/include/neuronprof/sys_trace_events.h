/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: the vocabulary of the system trace: the event taxonomy,
 * the event a trace point records (struct nprof_sys_trace_event) and the
 * clock of its timestamps. Recording and reading the trace is
 * <neuronprof/sys_trace.h>, which includes this header.
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
#include <stddef.h>
#include <stdint.h>

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

/* ---- the event ------------------------------------------------------------ */

/* Core index of events not tied to a NeuronCore: they have a ring of their
 * own, which the per-core filter does not apply to. */
#define NPROF_SYS_TRACE_NO_CORE		NPROF_MAX_CORES

/* Attributes an event can carry. */
#define NPROF_SYS_TRACE_MAX_ATTRS	4

/* Who produced an event. */
enum nprof_sys_trace_source {
	NPROF_SYS_TRACE_SRC_NEURON_RT = 0,	/* "neuron_rt": runtime / library entry points */
	NPROF_SYS_TRACE_SRC_NEURON_HW = 1,	/* "neuron_hw": from device notifications */
	NPROF_SYS_TRACE_SRC_FRAMEWORK = 2,	/* "framework": the framework or application */
	NPROF_SYS_TRACE_SRC_COUNT = 3,
};

/* Type of an attribute value. */
enum nprof_sys_trace_attr_type {
	NPROF_SYS_TRACE_ATTR_INT = 1,		/* v.i */
	NPROF_SYS_TRACE_ATTR_UINT = 2,		/* v.u */
	NPROF_SYS_TRACE_ATTR_DOUBLE = 3,	/* v.d */
	NPROF_SYS_TRACE_ATTR_STR = 4,		/* v.s */
};

/*
 * struct nprof_sys_trace_attr - one key=value attribute.
 * @key: attribute name. Stored BY POINTER, not copied (that keeps recording
 *	free of allocation): it must stay valid until the event has been
 *	fetched or drained, or the trace restarted or released. String
 *	literals qualify; for anything else use nprof_sys_trace_intern().
 * @type: enum nprof_sys_trace_attr_type.
 * @v: the value; for NPROF_SYS_TRACE_ATTR_STR, @v.s is stored by pointer
 *	under the same rule as @key.
 */
struct nprof_sys_trace_attr {
	const char *key;
	uint32_t type;
	uint32_t reserved;	/* zero */
	union {
		int64_t i;
		uint64_t u;
		double d;
		const char *s;
	} v;
};

/* struct nprof_sys_trace_event flags. */
#define NPROF_SYS_TRACE_F_MODEL_ID	(1u << 0)	/* model_id is set */
#define NPROF_SYS_TRACE_F_FLOW_ID	(1u << 1)	/* flow_id is set */
#define NPROF_SYS_TRACE_F_ALL		0x3u

/*
 * struct nprof_sys_trace_event - an event to record.
 * @type: enum nprof_sys_trace_event_type.
 * @source: enum nprof_sys_trace_source.
 * @core: NeuronCore index 0..255, or NPROF_SYS_TRACE_NO_CORE.
 * @flags: NPROF_SYS_TRACE_F_* saying which optional fields are set.
 * @start_ns, @end_ns: CLOCK_MONOTONIC; @end_ns >= @start_ns.
 * @model_id: with NPROF_SYS_TRACE_F_MODEL_ID.
 * @flow_id: with NPROF_SYS_TRACE_F_FLOW_ID; events sharing a flow id are
 *	causally linked (an execute and the device work it caused).
 * @attrs, @nattrs: up to NPROF_SYS_TRACE_MAX_ATTRS attributes (copied,
 *	except the strings they point to).
 *
 * nprof_sys_trace_begin() fills one in for a begin/end pair.
 */
struct nprof_sys_trace_event {
	uint32_t type;
	uint32_t source;
	uint32_t core;
	uint32_t flags;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t model_id;
	uint64_t flow_id;
	const struct nprof_sys_trace_attr *attrs;
	uint32_t nattrs;
	uint32_t reserved;	/* zero */
};

/* ---- the clock ------------------------------------------------------------ */

/**
 * nprof_sys_trace_clock_ns() - the current CLOCK_MONOTONIC time in
 * nanoseconds, the clock of every event timestamp the library takes.
 *
 * Read from the TSC where the kernel says that is exact, converted with the
 * kernel's own mult/shift (the perf_event page) or, where that page offers
 * none, at a rate measured against CLOCK_MONOTONIC and renewed as the
 * process runs; else with clock_gettime(CLOCK_MONOTONIC);
 * either way the value is CLOCK_MONOTONIC's, comparable with the device's
 * timestamps and other processes'. The first call, or the first
 * nprof_sys_trace_start(), decides which (see nprof_sys_trace_clock()); the
 * environment variable NPROF_SYS_TRACE_CLOCK=monotonic, read then, forces
 * clock_gettime().
 */
NPROF_API uint64_t nprof_sys_trace_clock_ns(void);

/* What nprof_sys_trace_clock() reports. */
enum nprof_sys_trace_clock_kind {
	NPROF_SYS_TRACE_CLOCK_MONOTONIC = 0,	/* clock_gettime(CLOCK_MONOTONIC) per read */
	NPROF_SYS_TRACE_CLOCK_TSC = 1,		/* the TSC, converted to CLOCK_MONOTONIC */
};

/**
 * nprof_sys_trace_clock() - how nprof_sys_trace_clock_ns() reads the time.
 * @why: if not NULL, receives a sentence: the conversion used, or why the
 *	TSC is not (the first condition that failed). May be NULL.
 * @len: size of @why.
 *
 * Return: enum nprof_sys_trace_clock_kind.
 */
NPROF_API int nprof_sys_trace_clock(char *why, size_t len);

/**
 * nprof_sys_trace_now() - the current CLOCK_MONOTONIC time in nanoseconds,
 * the clock of every event timestamp: nprof_sys_trace_clock_ns().
 */
static inline uint64_t nprof_sys_trace_now(void)
{
	return nprof_sys_trace_clock_ns();
}

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_SYS_TRACE_EVENTS_H */
