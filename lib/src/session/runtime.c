// SPDX-License-Identifier: MIT
/*
 * Runtime hooks: loaded models and the begin/end of their executions. A
 * model is registered in the model registry (model/registry.h, which gives
 * it its interned id); the begin and end of an execution go to the inspect
 * controller, which dispatches to the capture modes (MODEL, on-fail and
 * continuous capture arm and harvest there). The hooks also record
 * model_load, nrt_execute, exec_error and nrt_unload in the system trace;
 * and the simulator helper runs a synthetic program between the two hooks.
 * The hooks call down only: the controller, the device registry, the
 * system trace and the device layer.
 */
#include <errno.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/runtime.h>
#include <neuronprof/sys_trace.h>

#include "capture/engines.h"
#include "model/registry.h"
#include "session/session_internal.h"
#include "util/internal.h"

struct nprof_model {
	struct nprof_model_info info;	/* first: what model/registry.h reads */
	atomic_bool executing;
	/* Of the execution in progress; only its executing thread touches them. */
	struct nprof_sys_trace_event ev;
	struct nprof_sys_trace_attr attr;
	struct nprof_exec_capture ec;
};

/* Flow ids link an execution's events; 0 is never used. */
static _Atomic uint64_t next_flow = 1;

_Static_assert(offsetof(struct nprof_model, info) == 0,
	       "model/registry.h reads a struct nprof_model as its struct nprof_model_info");

/* A point event about a model (load, unload, error). */
static void model_event(const struct nprof_model *m, uint32_t type, uint64_t start_ns,
			const struct nprof_sys_trace_attr *attr, uint64_t flow)
{
	struct nprof_sys_trace_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.source = NPROF_SYS_TRACE_SRC_NEURON_RT;
	ev.core = m->info.vnc;
	ev.flags = NPROF_SYS_TRACE_F_MODEL_ID | (flow ? NPROF_SYS_TRACE_F_FLOW_ID : 0);
	ev.model_id = m->info.id;
	ev.flow_id = flow;
	ev.start_ns = start_ns;
	ev.end_ns = nprof_sys_trace_now();
	ev.attrs = attr;
	ev.nattrs = attr ? 1 : 0;
	nprof_sys_trace_record_event(&ev);
}

NPROF_API struct nprof_model *nprof_model_load(const char *name, uint64_t model_id, uint32_t vnc)
{
	struct nprof_sys_trace_attr attr = { .key = "model_name", .type = NPROF_SYS_TRACE_ATTR_STR };
	uint64_t t0 = nprof_sys_trace_now();
	struct nprof_model *m;
	size_t len;

	if (!name || !*name)
		return nprof_err_ptr(EINVAL, "model name is NULL or empty");
	len = strlen(name);
	if (len > NPROF_MODEL_NAME_MAX)
		return nprof_err_ptr(EINVAL, "model name of %zu bytes is longer than %d", len,
				     NPROF_MODEL_NAME_MAX);
	if (vnc >= NPROF_MAX_CORES)
		return nprof_err_ptr(EINVAL, "NC %u is out of range (0..%d)", vnc, NPROF_MAX_CORES - 1);
	m = calloc(1, sizeof(*m));
	if (!m)
		return nprof_err_ptr(ENOMEM, "cannot allocate model %s", name);
	memcpy(m->info.name, name, len + 1);
	m->info.id = model_id;
	m->info.vnc = vnc;
	if (nprof_model_register(&m->info)) {
		free(m);
		return nprof_err_ptr(ENOMEM, "cannot register model %s", name);
	}
	/* The devices stay open while a model may execute on them. */
	nprof_rt_get();
	/* The trace keeps attribute strings by pointer: only interned ones outlive the model. */
	attr.v.s = nprof_sys_trace_is_active() ? nprof_sys_trace_intern(m->info.name) : NULL;
	model_event(m, NPROF_EV_MODEL_LOAD, t0, attr.v.s ? &attr : NULL, 0);
	return m;
}

NPROF_API int nprof_model_unload(struct nprof_model *m)
{
	if (!m)
		return 0;
	if (atomic_load(&m->executing))
		return nprof_err(EBUSY, "model %s on NC %u is executing: it cannot be unloaded", m->info.name,
				 m->info.vnc);
	model_event(m, NPROF_EV_NRT_UNLOAD, nprof_sys_trace_now(), NULL, 0);
	nprof_model_unregister(&m->info);
	nprof_rt_put();
	free(m);
	return 0;
}

NPROF_API const char *nprof_model_name(const struct nprof_model *m)
{
	if (!m)
		return nprof_err_ptr(EINVAL, "model is NULL");
	return m->info.name;
}

NPROF_API uint64_t nprof_model_id(const struct nprof_model *m)
{
	return m ? m->info.id : 0;
}

NPROF_API int nprof_model_vnc(const struct nprof_model *m)
{
	if (!m)
		return nprof_err(EINVAL, "model is NULL");
	return (int)m->info.vnc;
}

NPROF_API int nprof_model_execute_begin(struct nprof_model *m)
{
	bool idle = false;

	if (!m)
		return nprof_err(EINVAL, "model is NULL");
	if (!atomic_compare_exchange_strong(&m->executing, &idle, true))
		return nprof_err(EBUSY,
				 "model %s is already executing on NC %u (executions of a model are synchronous)",
				 m->info.name, m->info.vnc);
	nprof_inspect_exec_begin(&m->info, &m->ec);
	if (nprof_sys_trace_begin(&m->ev, NPROF_EV_NRT_EXECUTE, NPROF_SYS_TRACE_SRC_NEURON_RT,
				  m->info.vnc) == 1) {
		m->ev.flags = NPROF_SYS_TRACE_F_MODEL_ID | NPROF_SYS_TRACE_F_FLOW_ID;
		m->ev.model_id = m->info.id;
		m->ev.flow_id = atomic_fetch_add(&next_flow, 1);
	}
	return 0;
}

NPROF_API int nprof_model_execute_end(struct nprof_model *m, uint32_t status)
{
	uint64_t flow;
	int ret;

	if (!m)
		return nprof_err(EINVAL, "model is NULL");
	if (!atomic_load(&m->executing))
		return nprof_err(EINVAL, "model %s is not executing on NC %u", m->info.name, m->info.vnc);
	/* The execution ends before its profile is harvested. */
	flow = m->ev.flow_id;
	m->attr = (struct nprof_sys_trace_attr){
		.key = "status", .type = NPROF_SYS_TRACE_ATTR_UINT, .v.u = status,
	};
	m->ev.attrs = &m->attr;
	m->ev.nattrs = 1;
	nprof_sys_trace_end(&m->ev);
	if (status != NPROF_EXEC_OK) {
		struct nprof_sys_trace_attr a = {
			.key = "status", .type = NPROF_SYS_TRACE_ATTR_UINT, .v.u = status,
		};

		model_event(m, NPROF_EV_EXEC_ERROR, nprof_sys_trace_now(), &a, flow);
	}
	ret = nprof_inspect_exec_end(&m->info, &m->ec, status);
	atomic_store(&m->executing, false);
	return ret;
}

NPROF_API int nprof_model_sim_execute(struct nprof_model *m, const struct nprof_sim_program *prog,
				      struct nprof_sim_result *res)
{
	struct nprof_sim_result out = { .size = sizeof(out) };
	struct nprof_sys_trace_event ev;
	struct nprof_sim_program p;
	struct nprof_device *dev;
	char why[1024];
	uint32_t local, status;
	int ret, end;

	if (!m || !prog)
		return nprof_err(EINVAL, "model or program is NULL");
	if (NPROF_SIZED_VALID(prog, nprof_sim_program, NPROF_SIZED_IN) ||
	    (res && NPROF_SIZED_VALID(res, nprof_sim_result, NPROF_SIZED_OUT)))
		return -EINVAL;
	ret = nprof_rt_device(m->info.vnc, &dev, &local);
	if (ret)
		return nprof_err(-ret, "cannot execute model %s: %s", m->info.name, nprof_err_current());
	ret = nprof_model_execute_begin(m);
	if (ret)
		return ret;
	memcpy(&p, prog, sizeof(p));
	p.size = sizeof(p);
	p.core = local;
	p.model_id = (uint32_t)m->info.id;
	nprof_sys_trace_begin(&ev, NPROF_EV_SIM_EXEC, NPROF_SYS_TRACE_SRC_NEURON_RT, m->info.vnc);
	ret = nprof_device_sim_exec(dev, &p, &out);
	nprof_sys_trace_end(&ev);
	if (ret) {
		snprintf(why, sizeof(why), "%s", nprof_err_current());
		status = ret == -ETIMEDOUT ? 5 : 1;	/* NRT_TIMEOUT, NRT_FAILURE */
	} else {
		status = out.status;
	}
	end = nprof_model_execute_end(m, status);
	if (res) {
		size_t size = res->size;

		memcpy(res, &out, sizeof(out));
		res->size = size;
	}
	if (ret)
		return nprof_err(-ret, "%s", why);
	return end;
}
