/* SPDX-License-Identifier: MIT */
/*
 * nrt/nrt_profile.h for libnrtprof: device profiles (nrt_profile_*),
 * continuous profiling (nrt_profile_continuous_*), the inspect session
 * (nrt_inspect_*) and its configuration (nrt_inspect_config_*), with the
 * names and signatures of the public Neuron runtime, implemented by
 * libneuronprof. Every function returns an NRT_STATUS unless noted.
 * Behaviour and differences: Documentation/inspect.rst.
 */
#ifndef NRTPROF_NRT_PROFILE_H
#define NRTPROF_NRT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nrt/nrt.h>
#include <nrt/nrt_status.h>
#include <nrt/nrt_sys_trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- device profiles of a model ------------------------------------------- */

/* Capture the NeuronCore of @model into @filename until nrt_profile_stop(). */
NRT_STATUS nrt_profile_start(nrt_model_t *model, const char *filename);

/* Stop the capture started for @filename and write the NTFF file. */
NRT_STATUS nrt_profile_stop(const char *filename);

/* ---- continuous profiling ----------------------------------------------------- */

typedef struct nrt_profile_continuous_options nrt_profile_continuous_options_t;

/* Options with the output directory "./output". */
NRT_STATUS nrt_profile_continuous_options_allocate(nrt_profile_continuous_options_t **options);
NRT_STATUS nrt_profile_continuous_options_free(nrt_profile_continuous_options_t *options);
NRT_STATUS nrt_profile_continuous_options_set_output_dir(nrt_profile_continuous_options_t *options,
							 const char *output_dir);

/* Capture every execution; refused while inspect device profiling is on. */
NRT_STATUS nrt_profile_continuous_start(nrt_profile_continuous_options_t *options);

/*
 * Write the last execution captured on @vnc as
 * <output_dir>/model_<id>_pid_<pid>_vnc_<vnc>_inst_<instance>_<%Y%m%d_%H%M%S>.ntff.
 */
NRT_STATUS nrt_profile_continuous_save(uint32_t vnc, nrt_profile_continuous_options_t *options);

NRT_STATUS nrt_profile_continuous_stop(void);

/* ---- the inspect session ---------------------------------------------------------- */

typedef struct nrt_inspect_config nrt_inspect_config_t;

/* Begin a session configured by the NEURON_RT_INSPECT_* environment. */
NRT_STATUS nrt_inspect_begin(void);

/* Begin a session configured by @options (the environment is ignored). */
NRT_STATUS nrt_inspect_begin_with_options(nrt_inspect_config_t *options);

/* Harvest and write everything the session captured; end the session. */
NRT_STATUS nrt_inspect_stop(void);

/* ---- the inspect configuration ------------------------------------------------------ */

/*
 * Defaults: session id 1, output "./output", every activity, every core and
 * event type captured, inspect off, inspect-on-fail off.
 */
NRT_STATUS nrt_inspect_config_allocate(nrt_inspect_config_t **options);
NRT_STATUS nrt_inspect_config_set_defaults(nrt_inspect_config_t *options);
NRT_STATUS nrt_inspect_config_free(nrt_inspect_config_t *options);
NRT_STATUS nrt_inspect_config_set_session_id(nrt_inspect_config_t *options, int session_id);
NRT_STATUS nrt_inspect_config_set_output_dir(nrt_inspect_config_t *options, const char *output_dir);
NRT_STATUS nrt_inspect_config_set_sys_trace_max_events_per_nc(nrt_inspect_config_t *options,
							       uint64_t max_events);
NRT_STATUS nrt_inspect_config_set_capture_enabled_for_nc(nrt_inspect_config_t *options, uint32_t nc,
							  bool enabled);
NRT_STATUS nrt_inspect_config_set_capture_enabled_for_event_type_string(nrt_inspect_config_t *options,
									 const char *event_type,
									 bool enabled);
NRT_STATUS nrt_inspect_config_set_enable_inspect(nrt_inspect_config_t *options, bool enable);
NRT_STATUS nrt_inspect_config_set_enable_inspect_on_fail(nrt_inspect_config_t *options, bool enable);

/* Activities: "system_profile", "device_profile", "host_memory", "cpu_util" ("all" sets all). */
NRT_STATUS nrt_inspect_config_get_all_activity_types(const char ***activity_types, size_t *count);
NRT_STATUS nrt_inspect_config_get_enabled_activity_types(nrt_inspect_config_t *options,
							  const char ***activity_types,
							  size_t *count);
void nrt_inspect_config_free_activity_types(const char **activity_types, size_t count);
NRT_STATUS nrt_inspect_config_set_activity(nrt_inspect_config_t *options, const char *activity,
					   bool enabled);

#ifdef __cplusplus
}
#endif

#endif /* NRTPROF_NRT_PROFILE_H */
