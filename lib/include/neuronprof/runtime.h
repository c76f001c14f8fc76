/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: runtime hooks, what a runtime calls so that per-execution
 * profiling (MODEL capture, continuous profiling, on-fail capture) and the
 * system trace see its models and executions.
 *
 * A runtime loads a model on a virtual NeuronCore (see <neuronprof/inspect.h>
 * for the numbering), brackets every execution of it with
 * nprof_model_execute_begin() and nprof_model_execute_end(), and unloads it:
 *
 *	m = nprof_model_load("resnet50", 7, vnc);
 *	for (...) {
 *		nprof_model_execute_begin(m);   // may arm a device capture
 *		status = run_on_device(...);    // the runtime's own work
 *		nprof_model_execute_end(m, status);  // harvest, write or discard
 *	}
 *	nprof_model_unload(m);
 *
 * What begin arms and end does with it:
 *  - an inspect session in MODEL mode with inspect enabled captures the
 *    first execution of each model on each core into
 *    <session dir>/<model_name>_vnc_<interned model id>.ntff (synchronously,
 *    in end; the interned id is the runtime's: one small number per loaded
 *    model name, id and core);
 *  - with inspect-on-fail, an execution whose status is not 0 is captured
 *    and its profile moved into ./tmp/<instance_id>-<pid>/; profiles of
 *    successful executions nobody asked for are discarded unwritten;
 *  - continuous profiling keeps the last execution of each core for
 *    nprof_profile_continuous_save().
 * Profiling never changes an execution: when a capture cannot be armed the
 * reason is logged and the execution goes on.
 *
 * Executions of one model are synchronous: one at a time. Different models
 * may execute concurrently from different threads. Events recorded in the
 * system trace: model_load, nrt_unload, nrt_execute (with the model id and a
 * flow id per execution), exec_error, sim_exec, profile_start,
 * profile_stop, profile_serialize.
 *
 * For the simulator, nprof_model_sim_execute() runs a synthetic program
 * (<neuronprof/device.h>) on the model's core between the two hooks.
 * Documentation/inspect.rst ("Runtime hooks") is the guide for runtime
 * authors.
 */
#ifndef NEURONPROF_RUNTIME_H
#define NEURONPROF_RUNTIME_H

#include <stdint.h>

#include <neuronprof/common.h>
#include <neuronprof/device.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque handle of a loaded model. */
struct nprof_model;

/*
 * NPROF_MODEL_NAME_MAX (the longest model name) and NPROF_EXEC_OK (the
 * status of a successful execution) are in <neuronprof/common.h>.
 */

/**
 * nprof_model_load() - announce a model loaded on a virtual core.
 * @name: the model's name, 1..NPROF_MODEL_NAME_MAX bytes (file names use
 *	it with characters outside [A-Za-z0-9._+-] replaced by '_').
 * @model_id: the runtime's id of the model.
 * @vnc: the virtual NeuronCore, below NPROF_MAX_CORES. It need not exist:
 *	on a machine without devices the hooks still trace, and captures on
 *	it are reported as impossible when armed.
 *
 * Records a model_load event.
 *
 * Return: the model (release with nprof_model_unload()), or NULL with errno
 * EINVAL (bad name or core) or ENOMEM.
 */
NPROF_API struct nprof_model *nprof_model_load(const char *name, uint64_t model_id, uint32_t vnc);

/**
 * nprof_model_unload() - release a model. NULL is allowed (returns 0).
 *
 * Return: 0, or -EBUSY if an execution of it is in progress (the model
 * stays loaded).
 */
NPROF_API int nprof_model_unload(struct nprof_model *model);

/**
 * nprof_model_name() - the model's name.
 *
 * Return: a string owned by @model, or NULL with errno EINVAL.
 */
NPROF_API const char *nprof_model_name(const struct nprof_model *model);

/**
 * nprof_model_id() - the model's id (0 if @model is NULL).
 */
NPROF_API uint64_t nprof_model_id(const struct nprof_model *model);

/**
 * nprof_model_vnc() - the model's virtual core.
 *
 * Return: the core (>= 0), or -EINVAL if @model is NULL.
 */
NPROF_API int nprof_model_vnc(const struct nprof_model *model);

/**
 * nprof_model_execute_begin() - an execution of @model starts now.
 *
 * Arms the captures that apply (see above) and begins the nrt_execute event.
 *
 * Return: 0 (also when a capture could not be armed: that is logged);
 * -EINVAL (@model NULL); -EBUSY (an execution of @model is already in
 * progress).
 */
NPROF_API int nprof_model_execute_begin(struct nprof_model *model);

/**
 * nprof_model_execute_end() - the execution begun last ended.
 * @status: NPROF_EXEC_OK or the failure (an NRT_STATUS value such as 1004).
 *
 * Harvests the captures armed at begin and writes, discards or salvages
 * them, synchronously; ends the nrt_execute event (with the status) and
 * records exec_error for a failure.
 *
 * Return: 0; -EINVAL (@model NULL or not executing); or the error of
 * writing the execution's profile (the execution itself is unaffected; the
 * message names the file).
 */
NPROF_API int nprof_model_execute_end(struct nprof_model *model, uint32_t status);

/**
 * nprof_model_sim_execute() - run a synthetic program as an execution of
 * @model on a simulated device.
 * @prog: the program; its core and model_id are replaced by the model's
 *	(the device-local index of its virtual core, and its id truncated to
 *	32 bits).
 * @res: out, what the simulator reported; set @res->size first. May be NULL.
 *
 * nprof_model_execute_begin(), nprof_device_sim_exec() on the device that
 * holds the model's core, nprof_model_execute_end() with the execution's
 * status (res->status, e.g. 1004 for a program with NPROF_SIM_EXEC_ERROR;
 * 5 if the program timed out; 1 for another failure of the call).
 *
 * Return: 0 when the program ran, whatever its status (check @res->status);
 * -EINVAL (bad arguments); -EBUSY (an execution is in progress); -ENODEV
 * (no device holds the core); the error of nprof_device_sim_exec(); or that
 * of nprof_model_execute_end().
 */
NPROF_API int nprof_model_sim_execute(struct nprof_model *model,
				      const struct nprof_sim_program *prog,
				      struct nprof_sim_result *res);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_RUNTIME_H */
