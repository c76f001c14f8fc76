// SPDX-License-Identifier: MIT
/*
 * nrt_init / nrt_close / nrt_unload and the simulator stand-ins for
 * nrt_load / nrt_execute (<nrt/nrt_sim.h>). As in the runtime, init begins
 * the environment-driven inspect session and close ends and releases it.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <nrt/nrt.h>
#include <nrt/nrt_sim.h>

#include <neuronprof/inspect.h>
#include <neuronprof/runtime.h>

#include "nrtprof.h"

/* Protects initialized. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static bool initialized;

NRT_API NRT_STATUS nrt_init(nrt_framework_type_t framework, const char *fw_version,
			    const char *fal_version)
{
	NRT_STATUS st = NRT_SUCCESS;

	(void)fw_version;
	(void)fal_version;
	if (framework <= NRT_FRAMEWORK_TYPE_INVALID || framework > NRT_FRAMEWORK_TYPE_MXNET)
		return nrtprof_error(__func__, NRT_INVALID, "invalid framework type");
	pthread_mutex_lock(&init_lock);
	if (initialized) {
		st = nrtprof_error(__func__, NRT_FAILURE, "the runtime is already initialized");
	} else {
		st = nrtprof_status(__func__, nprof_inspect_begin());
		initialized = st == NRT_SUCCESS;
	}
	pthread_mutex_unlock(&init_lock);
	return st;
}

NRT_API void nrt_close(void)
{
	pthread_mutex_lock(&init_lock);
	if (initialized) {
		nrtprof_status(__func__, nprof_inspect_close());
		initialized = false;
	}
	pthread_mutex_unlock(&init_lock);
}

NRT_API NRT_STATUS nrt_unload(nrt_model_t *model)
{
	int ret;

	if (!model)
		return nrtprof_error(__func__, NRT_INVALID_HANDLE, "model is NULL");
	ret = nprof_model_unload((struct nprof_model *)model);
	if (ret == -EBUSY)
		return nrtprof_error(__func__, NRT_EXEC_NC_BUSY, nprof_strerror_last());
	return nrtprof_status(__func__, ret);
}

NRT_API NRT_STATUS nrtsim_load(const char *name, uint32_t model_id, int32_t start_nc,
			       nrt_model_t **model)
{
	struct nprof_model *m;
	bool ok;

	pthread_mutex_lock(&init_lock);
	ok = initialized;
	pthread_mutex_unlock(&init_lock);
	if (!ok)
		return nrtprof_error(__func__, NRT_UNINITIALIZED, "nrt_init() was not called");
	if (!model || start_nc < 0)
		return nrtprof_error(__func__, NRT_INVALID, "model pointer is NULL or start_nc is negative");
	m = nprof_model_load(name, model_id, (uint32_t)start_nc);
	if (!m)
		return nrtprof_status(__func__, -errno);
	*model = (nrt_model_t *)m;
	return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrtsim_execute(nrt_model_t *model, uint32_t iterations, bool fail)
{
	struct nprof_sim_result res = { .size = sizeof(res) };
	struct nprof_sim_program p;
	int ret;

	if (!model)
		return nrtprof_error(__func__, NRT_INVALID_HANDLE, "model is NULL");
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.iterations = iterations;
	p.instructions[0] = 4;
	p.instructions[1] = 2;
	p.dma_transfers = 1;
	p.flags = fail ? NPROF_SIM_EXEC_ERROR : 0;
	ret = nprof_model_sim_execute((struct nprof_model *)model, &p, &res);
	if (ret == -EBUSY)
		return nrtprof_error(__func__, NRT_EXEC_NC_BUSY, nprof_strerror_last());
	if (ret)
		return nrtprof_status(__func__, ret);
	/* The simulator reports an execution error as the runtime's 1004. */
	return res.status ? (NRT_STATUS)res.status : NRT_SUCCESS;
}

NRT_API const char *nrtsim_last_error(void)
{
	return nrtprof_last_error();
}
