/* SPDX-License-Identifier: MIT */
/*
 * nrt/nrt.h for libnrtprof: the part of the runtime's main header that the
 * profiling headers need (the model handle) and the runtime's lifetime,
 * which starts and ends the environment-driven inspect session as the
 * runtime does. Loading NEFF files is not part of neuronprof; models are
 * loaded onto the simulator through <nrt/nrt_sim.h>.
 */
#ifndef NRTPROF_NRT_H
#define NRTPROF_NRT_H

#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A loaded model. */
typedef struct nrt_model nrt_model_t;

typedef enum nrt_framework_type {
	NRT_FRAMEWORK_TYPE_INVALID = 0,
	NRT_FRAMEWORK_TYPE_NO_FW = 1,
	NRT_FRAMEWORK_TYPE_TENSORFLOW,
	NRT_FRAMEWORK_TYPE_PYTORCH,
	NRT_FRAMEWORK_TYPE_MXNET,
} nrt_framework_type_t;

/**
 * nrt_init() - start the runtime: begins the inspect session the
 * environment asks for (NEURON_RT_INSPECT_ENABLE=1 or
 * NEURON_RT_INSPECT_ON_FAIL=1; nrt_inspect_begin()).
 * @framework: who calls; NRT_FRAMEWORK_TYPE_INVALID is refused.
 * @fw_version, @fal_version: informational, may be NULL.
 *
 * Return: NRT_SUCCESS; NRT_INVALID (bad framework, malformed variable,
 * refused output directory); NRT_FAILURE (already initialized); or the
 * status of nrt_inspect_begin().
 */
NRT_STATUS nrt_init(nrt_framework_type_t framework, const char *fw_version, const char *fal_version);

/**
 * nrt_close() - end the runtime: stops and writes the inspect session and
 * releases it (profiles salvaged into ./tmp are removed, as the runtime
 * does).
 */
void nrt_close(void);

/**
 * nrt_unload() - unload a model loaded with nrtsim_load().
 *
 * Return: NRT_SUCCESS; NRT_INVALID_HANDLE (NULL); NRT_EXEC_NC_BUSY (it is
 * executing).
 */
NRT_STATUS nrt_unload(nrt_model_t *model);

#ifdef __cplusplus
}
#endif

#endif /* NRTPROF_NRT_H */
