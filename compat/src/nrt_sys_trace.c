// SPDX-License-Identifier: MIT
/*
 * nrt_sys_trace_* on libneuronprof's system trace. The runtime's void
 * setters have nowhere to report a bad argument; they log it.
 */
#include <errno.h>

#include <nrt/nrt_sys_trace.h>

#include <neuronprof/config.h>
#include <neuronprof/sys_trace.h>

#include "nrtprof.h"

#define STC(o)	((struct nprof_sys_trace_config *)(o))
#define FOPT(o)	((struct nprof_sys_trace_fetch_options *)(o))

NRT_API NRT_STATUS nrt_sys_trace_config_allocate(nrt_sys_trace_config_t **options)
{
	struct nprof_sys_trace_config *c;

	if (!options)
		return nrtprof_error(__func__, NRT_INVALID, "options pointer is NULL");
	c = nprof_sys_trace_config_allocate();
	if (!c)
		return nrtprof_status(__func__, -errno);
	*options = (nrt_sys_trace_config_t *)c;
	return NRT_SUCCESS;
}

NRT_API void nrt_sys_trace_config_set_defaults(nrt_sys_trace_config_t *options)
{
	nrtprof_status(__func__, nprof_sys_trace_config_set_defaults(STC(options)));
}

NRT_API void nrt_sys_trace_config_free(nrt_sys_trace_config_t *options)
{
	nprof_sys_trace_config_free(STC(options));
}

NRT_API void nrt_sys_trace_config_set_max_events_per_nc(nrt_sys_trace_config_t *options,
							uint64_t max_events_per_nc)
{
	nrtprof_status(__func__, nprof_sys_trace_config_set_max_events_per_nc(STC(options),
									       max_events_per_nc));
}

NRT_API void nrt_sys_trace_config_set_capture_enabled_for_nc(nrt_sys_trace_config_t *options,
							     uint32_t nc_idx, bool enabled)
{
	nrtprof_status(__func__, nprof_sys_trace_config_set_capture_enabled_for_nc(STC(options), nc_idx,
										    enabled));
}

NRT_API NRT_STATUS nrt_sys_trace_config_set_capture_enabled_for_event_type(nrt_sys_trace_config_t *options,
									   const char *event_type,
									   bool enabled)
{
	return nrtprof_status(__func__,
			      nprof_sys_trace_config_set_capture_enabled_for_event_type(STC(options),
											event_type, enabled));
}

NRT_API NRT_STATUS nrt_sys_trace_get_event_types(const char ***event_types, size_t *count)
{
	return nrtprof_status(__func__, nprof_sys_trace_get_event_types(event_types, count));
}

NRT_API void nrt_sys_trace_free_event_types(const char **event_types, size_t count)
{
	nprof_sys_trace_free_event_types(event_types, count);
}

NRT_API NRT_STATUS nrt_sys_trace_config_get_enabled_event_types(nrt_sys_trace_config_t *options,
								const char ***event_types, size_t *count)
{
	return nrtprof_status(__func__,
			      nprof_sys_trace_config_get_enabled_event_types(STC(options), event_types,
									     count));
}

NRT_API NRT_STATUS nrt_sys_trace_start(nrt_sys_trace_config_t *options)
{
	return nrtprof_status(__func__, nprof_sys_trace_start(STC(options)));
}

NRT_API NRT_STATUS nrt_sys_trace_stop(void)
{
	return nrtprof_status(__func__, nprof_sys_trace_stop());
}

NRT_API NRT_STATUS nrt_sys_trace_fetch_options_allocate(nrt_sys_trace_fetch_options_t **options)
{
	struct nprof_sys_trace_fetch_options *o;

	if (!options)
		return nrtprof_error(__func__, NRT_INVALID, "options pointer is NULL");
	o = nprof_sys_trace_fetch_options_allocate();
	if (!o)
		return nrtprof_status(__func__, -errno);
	*options = (nrt_sys_trace_fetch_options_t *)o;
	return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_sys_trace_fetch_options_set_defaults(nrt_sys_trace_fetch_options_t *options)
{
	return nrtprof_status(__func__, nprof_sys_trace_fetch_options_set_defaults(FOPT(options)));
}

NRT_API NRT_STATUS nrt_sys_trace_fetch_options_free(nrt_sys_trace_fetch_options_t *options)
{
	nprof_sys_trace_fetch_options_free(FOPT(options));
	return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_sys_trace_fetch_options_set_max_events_per_nc(nrt_sys_trace_fetch_options_t *options,
								      uint64_t max_events_per_nc)
{
	return nrtprof_status(__func__,
			      nprof_sys_trace_fetch_options_set_max_events_per_nc(FOPT(options),
										  max_events_per_nc));
}

NRT_API NRT_STATUS nrt_sys_trace_fetch_options_set_nc_idx(nrt_sys_trace_fetch_options_t *options,
							  uint32_t nc_idx)
{
	return nrtprof_status(__func__, nprof_sys_trace_fetch_options_set_nc_idx(FOPT(options), nc_idx));
}

NRT_API NRT_STATUS nrt_sys_trace_fetch_events(char **buffer, size_t *written_size,
					      const nrt_sys_trace_fetch_options_t *options)
{
	return nrtprof_status(__func__,
			      nprof_sys_trace_fetch_events(buffer, written_size,
							   (const struct nprof_sys_trace_fetch_options *)options));
}

NRT_API void nrt_sys_trace_buffer_free(char *buffer)
{
	nprof_sys_trace_buffer_free(buffer);
}
