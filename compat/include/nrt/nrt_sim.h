/* SPDX-License-Identifier: MIT */
/*
 * nrt/nrt_sim.h: libnrtprof's own extension, not a runtime header. It
 * stands in for nrt_load() and nrt_execute() on neuronprof's simulated
 * devices, so programs written against the profiling headers can run their
 * models end to end without NEFF files.
 */
#ifndef NRTPROF_NRT_SIM_H
#define NRTPROF_NRT_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include <nrt/nrt.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * nrtsim_load() - load a synthetic model on a NeuronCore.
 * @name: the model's name (file names of its profiles use it).
 * @model_id: its id.
 * @start_nc: the virtual NeuronCore (0 .. the number of cores of all
 *	neuronprof devices - 1).
 * @model: out, the model.
 *
 * Return: NRT_SUCCESS; NRT_INVALID (bad name or core); NRT_RESOURCE.
 */
NRT_STATUS nrtsim_load(const char *name, uint32_t model_id, int32_t start_nc,
		       nrt_model_t **model);

/**
 * nrtsim_execute() - execute the model once: a synthetic program of
 * @iterations on its core, between the runtime hooks, so inspect, MODEL,
 * on-fail and continuous profiling see it as an nrt_execute().
 * @fail: make the execution fail (as a device error would).
 *
 * Return: the execution's status, as nrt_execute() returns it:
 * NRT_SUCCESS, NRT_EXEC_COMPLETED_WITH_ERR, NRT_TIMEOUT; or NRT_INVALID,
 * NRT_HW_ERROR (no simulated device holds the core), NRT_EXEC_NC_BUSY.
 */
NRT_STATUS nrtsim_execute(nrt_model_t *model, uint32_t iterations, bool fail);

/**
 * nrtsim_last_error() - the message of the last failure in this thread
 * (libneuronprof's nprof_strerror_last()).
 */
const char *nrtsim_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* NRTPROF_NRT_SIM_H */
