/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: device profiles of models without an inspect session (the
 * runtime's nrt_profile_start / _stop and nrt_profile_continuous_*).
 *
 * Direct MODEL profiling: nprof_profile_start() arms a capture of the core
 * of a loaded model (<neuronprof/runtime.h>); whatever that core executes
 * until nprof_profile_stop() with the same file name is written there, as
 * one NTFF file describing the model.
 *
 * Continuous profiling: while it is enabled, every execution of every model
 * is captured, and the last one of each core is kept until it is saved
 * with nprof_profile_continuous_save() into
 * <output_dir>/model_<id>_pid_<pid>_vnc_<vnc>_inst_<instance_id>_<%Y%m%d_%H%M%S>.ntff
 * or replaced by the next execution. It excludes inspect device profiling
 * in both directions.
 *
 * Both harvest through the SESSION capture engine (<neuronprof/capture.h>),
 * so a core can be captured by one of them at a time.
 * Documentation/inspect.rst describes both.
 */
#ifndef NEURONPROF_PROFILE_H
#define NEURONPROF_PROFILE_H

#include <stdint.h>

#include <neuronprof/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A loaded model (<neuronprof/runtime.h>, which declares its functions). */
struct nprof_model;

/**
 * nprof_profile_start() - start capturing the core of @model into @filename.
 * @model: a loaded model; its core is captured.
 * @filename: the NTFF file stop writes (a path; its directory must exist
 *	at stop). It keys the profile.
 *
 * Return: 0; -EINVAL (NULL or empty arguments); -EBUSY (a profile is already
 * being captured into @filename, or the core is captured by something else:
 * an inspect session, another profile, continuous profiling); -ENODEV (no
 * device holds the model's core); or the error of subscribing its queues.
 */
NPROF_API int nprof_profile_start(struct nprof_model *model, const char *filename);

/**
 * nprof_profile_stop() - stop the capture started for @filename and write it.
 *
 * The file appears complete or not at all. The profile is complete after
 * this call whether or not writing worked (a failed write is not retried).
 *
 * Return: 0; -EINVAL (@filename NULL); -ENOENT (no profile was started for
 * @filename); -EALREADY ("Trying to stop already completed profile"); or
 * the error of writing the file.
 */
NPROF_API int nprof_profile_stop(const char *filename);

/* Options of continuous profiling (nrt_profile_continuous_options_t). */
struct nprof_profile_continuous_options;

/**
 * nprof_profile_continuous_options_allocate() - options with the default
 * output directory "./output".
 *
 * Return: the options, or NULL with errno ENOMEM.
 */
NPROF_API struct nprof_profile_continuous_options *nprof_profile_continuous_options_allocate(void);

/**
 * nprof_profile_continuous_options_free() - release them. NULL is allowed.
 */
NPROF_API void nprof_profile_continuous_options_free(struct nprof_profile_continuous_options *opts);

/**
 * nprof_profile_continuous_options_set_output_dir() - where saves go.
 * @dir: a directory (created at save if missing), not empty; copied.
 *
 * Return: 0; -EINVAL (NULL or empty arguments); -ENAMETOOLONG.
 */
NPROF_API int nprof_profile_continuous_options_set_output_dir(
	struct nprof_profile_continuous_options *opts, const char *dir);

/**
 * nprof_profile_continuous_options_get_output_dir() - the output directory.
 *
 * Return: a string owned by @opts, or NULL with errno EINVAL.
 */
NPROF_API const char *nprof_profile_continuous_options_get_output_dir(
	const struct nprof_profile_continuous_options *opts);

/**
 * nprof_profile_continuous_start() - enable continuous profiling.
 * @opts: accepted for the runtime's signature; may be NULL. The output
 *	directory is the one given to each save.
 *
 * Return: 0; -EBUSY with "Please disable inspect device profiling
 * (NEURON_RT_INSPECT_DEVICE_PROFILE=0) ..." if an inspect session captures
 * device profiles; -EALREADY if continuous profiling is already enabled.
 */
NPROF_API int nprof_profile_continuous_start(const struct nprof_profile_continuous_options *opts);

/**
 * nprof_profile_continuous_save() - write the last execution captured on a
 * core.
 * @vnc: the virtual core.
 * @opts: the output directory.
 *
 * The saved execution is consumed: saving again needs another execution.
 *
 * Return: 0; -EINVAL (continuous profiling not enabled: "To use
 * nprof_profile_continuous_save() you must first call
 * nprof_profile_continuous_start()"; @opts NULL; @vnc out of range);
 * -ENOENT (no execution of @vnc was captured since the start or the last
 * save); -EBUSY (an execution is in progress on @vnc); the error of creating
 * the directory or writing the file (the execution stays saved for another
 * try).
 */
NPROF_API int nprof_profile_continuous_save(uint32_t vnc,
					    const struct nprof_profile_continuous_options *opts);

/**
 * nprof_profile_continuous_stop() - disable continuous profiling; captured
 * executions that were not saved are discarded.
 *
 * Return: 0, or -EALREADY if it was not enabled.
 */
NPROF_API int nprof_profile_continuous_stop(void);

/**
 * nprof_profile_continuous_is_enabled() - is continuous profiling enabled.
 *
 * Return: 1 or 0. Never fails.
 */
NPROF_API int nprof_profile_continuous_is_enabled(void);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_PROFILE_H */
