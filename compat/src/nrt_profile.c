// SPDX-License-Identifier: MIT
/*
 * nrt_profile_*, nrt_profile_continuous_*, nrt_inspect_* and
 * nrt_inspect_config_* on libneuronprof. The runtime's opaque handles are
 * libneuronprof's objects: an nrt_inspect_config_t is a struct
 * nprof_inspect_config, an nrt_model_t a struct nprof_model, and so on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nrt/nrt_profile.h>

#include <neuronprof/config.h>
#include <neuronprof/inspect.h>
#include <neuronprof/profile.h>
#include <neuronprof/runtime.h>

#include "nrtprof.h"

#define CFG(o)	((struct nprof_inspect_config *)(o))
#define RING_SIZE_PREFIX "NEURON_RT_PROFILE_BUF_"
#define COPTS(o) ((struct nprof_profile_continuous_options *)(o))

/* ---- device profiles of a model -------------------------------------------------- */

NRT_API NRT_STATUS nrt_profile_start(nrt_model_t *model, const char *filename)
{
	if (!model)
		return nrtprof_error(__func__, NRT_INVALID_HANDLE, "model is NULL");
	return nrtprof_status(__func__, nprof_profile_start((struct nprof_model *)model, filename));
}

NRT_API NRT_STATUS nrt_profile_stop(const char *filename)
{
	return nrtprof_status(__func__, nprof_profile_stop(filename));
}

/* ---- continuous profiling -------------------------------------------------------------- */

NRT_API NRT_STATUS nrt_profile_continuous_options_allocate(nrt_profile_continuous_options_t **options)
{
	struct nprof_profile_continuous_options *o;

	if (!options)
		return nrtprof_error(__func__, NRT_INVALID, "options pointer is NULL");
	o = nprof_profile_continuous_options_allocate();
	if (!o)
		return nrtprof_status(__func__, -errno);
	*options = (nrt_profile_continuous_options_t *)o;
	return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_profile_continuous_options_free(nrt_profile_continuous_options_t *options)
{
	nprof_profile_continuous_options_free(COPTS(options));
	return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_profile_continuous_options_set_output_dir(nrt_profile_continuous_options_t *options,
								 const char *output_dir)
{
	return nrtprof_status(__func__,
			      nprof_profile_continuous_options_set_output_dir(COPTS(options), output_dir));
}

NRT_API NRT_STATUS nrt_profile_continuous_start(nrt_profile_continuous_options_t *options)
{
	return nrtprof_status(__func__, nprof_profile_continuous_start(COPTS(options)));
}

NRT_API NRT_STATUS nrt_profile_continuous_save(uint32_t vnc, nrt_profile_continuous_options_t *options)
{
	return nrtprof_status(__func__, nprof_profile_continuous_save(vnc, COPTS(options)));
}

NRT_API NRT_STATUS nrt_profile_continuous_stop(void)
{
	return nrtprof_status(__func__, nprof_profile_continuous_stop());
}

/* ---- the inspect session ---------------------------------------------------------------- */

NRT_API NRT_STATUS nrt_inspect_begin(void)
{
	return nrtprof_status(__func__, nprof_inspect_begin());
}

/* The environment as nprof_inspect_config_parse_env() sees it: the ring-size variables only. */
static const char *ring_size_var(const char *name, void *ctx)
{
	(void)ctx;
	return strncmp(name, RING_SIZE_PREFIX, strlen(RING_SIZE_PREFIX)) ? NULL : getenv(name);
}

/*
 * The runtime sizes its profile buffers from NEURON_RT_PROFILE_BUF_<TYPE>_MB
 * whichever way a session begins; nrt_inspect_config_t has no setter for
 * them. So a session begun with options gets the ring sizes of the
 * environment (parsed and checked as nrt_inspect_begin() does) and
 * everything else from the options.
 */
static int begin_with_options(const struct nprof_inspect_config *options)
{
	struct nprof_inspect_config *cfg, *env;
	uint64_t size;
	uint32_t t;
	int ret;

	if (!options)
		return nprof_inspect_begin_with_options(NULL);
	cfg = nprof_inspect_config_allocate();
	env = nprof_inspect_config_allocate();
	ret = cfg && env ? 0 : -errno;
	if (!ret)
		ret = nprof_inspect_config_copy(cfg, options);
	if (!ret)
		ret = nprof_inspect_config_parse_env(env, ring_size_var, NULL);
	for (t = 0; !ret && t < NPROF_QUEUE_TYPES; t++) {
		ret = nprof_inspect_config_get_ring_size(env, t, &size);
		if (!ret)
			ret = nprof_inspect_config_set_ring_size(cfg, t, size);
	}
	if (!ret)
		ret = nprof_inspect_begin_with_options(cfg);
	nprof_inspect_config_free(env);
	nprof_inspect_config_free(cfg);
	return ret;
}

NRT_API NRT_STATUS nrt_inspect_begin_with_options(nrt_inspect_config_t *options)
{
	return nrtprof_status(__func__, begin_with_options(CFG(options)));
}

NRT_API NRT_STATUS nrt_inspect_stop(void)
{
	int ret = nprof_inspect_stop();

	/* The runtime's stop succeeds when there is nothing to stop. */
	if (ret == -EALREADY)
		return NRT_SUCCESS;
	return nrtprof_status(__func__, ret);
}

/* ---- the inspect configuration ------------------------------------------------------------ */

NRT_API NRT_STATUS nrt_inspect_config_allocate(nrt_inspect_config_t **options)
{
	struct nprof_inspect_config *cfg;

	if (!options)
		return nrtprof_error(__func__, NRT_INVALID, "options pointer is NULL");
	cfg = nprof_inspect_config_allocate();
	if (!cfg)
		return nrtprof_status(__func__, -errno);
	*options = (nrt_inspect_config_t *)cfg;
	return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_inspect_config_set_defaults(nrt_inspect_config_t *options)
{
	return nrtprof_status(__func__, nprof_inspect_config_set_defaults(CFG(options)));
}

NRT_API NRT_STATUS nrt_inspect_config_free(nrt_inspect_config_t *options)
{
	nprof_inspect_config_free(CFG(options));
	return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_inspect_config_set_session_id(nrt_inspect_config_t *options, int session_id)
{
	return nrtprof_status(__func__, nprof_inspect_config_set_session_id(CFG(options), session_id));
}

NRT_API NRT_STATUS nrt_inspect_config_set_output_dir(nrt_inspect_config_t *options, const char *output_dir)
{
	return nrtprof_status(__func__, nprof_inspect_config_set_output_dir(CFG(options), output_dir));
}

NRT_API NRT_STATUS nrt_inspect_config_set_sys_trace_max_events_per_nc(nrt_inspect_config_t *options,
								       uint64_t max_events)
{
	return nrtprof_status(__func__,
			      nprof_inspect_config_set_sys_trace_max_events_per_nc(CFG(options), max_events));
}

NRT_API NRT_STATUS nrt_inspect_config_set_capture_enabled_for_nc(nrt_inspect_config_t *options,
								  uint32_t nc, bool enabled)
{
	return nrtprof_status(__func__,
			      nprof_inspect_config_set_capture_enabled_for_nc(CFG(options), nc, enabled));
}

NRT_API NRT_STATUS nrt_inspect_config_set_capture_enabled_for_event_type_string(nrt_inspect_config_t *options,
										 const char *event_type,
										 bool enabled)
{
	return nrtprof_status(__func__,
			      nprof_inspect_config_set_capture_enabled_for_event_type_string(CFG(options),
											     event_type,
											     enabled));
}

NRT_API NRT_STATUS nrt_inspect_config_set_enable_inspect(nrt_inspect_config_t *options, bool enable)
{
	return nrtprof_status(__func__, nprof_inspect_config_set_enable_inspect(CFG(options), enable));
}

NRT_API NRT_STATUS nrt_inspect_config_set_enable_inspect_on_fail(nrt_inspect_config_t *options, bool enable)
{
	return nrtprof_status(__func__,
			      nprof_inspect_config_set_enable_inspect_on_fail(CFG(options), enable));
}

NRT_API NRT_STATUS nrt_inspect_config_get_all_activity_types(const char ***activity_types, size_t *count)
{
	return nrtprof_status(__func__, nprof_inspect_config_get_all_activity_types(activity_types, count));
}

NRT_API NRT_STATUS nrt_inspect_config_get_enabled_activity_types(nrt_inspect_config_t *options,
								  const char ***activity_types,
								  size_t *count)
{
	return nrtprof_status(__func__,
			      nprof_inspect_config_get_enabled_activity_types(CFG(options), activity_types,
									      count));
}

NRT_API void nrt_inspect_config_free_activity_types(const char **activity_types, size_t count)
{
	nprof_inspect_config_free_activity_types(activity_types, count);
}

NRT_API NRT_STATUS nrt_inspect_config_set_activity(nrt_inspect_config_t *options, const char *activity,
						   bool enabled)
{
	return nrtprof_status(__func__, nprof_inspect_config_set_activity(CFG(options), activity, enabled));
}
