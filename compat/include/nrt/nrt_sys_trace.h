/* SPDX-License-Identifier: MIT */
/*
 * nrt/nrt_sys_trace.h for libnrtprof: the host system trace
 * (nrt_sys_trace_*) with the names and signatures of the public Neuron
 * runtime, implemented by libneuronprof. Every function returns an
 * NRT_STATUS unless noted. Events fetched once are not fetched again.
 */
#ifndef NRTPROF_NRT_SYS_TRACE_H
#define NRTPROF_NRT_SYS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nrt_sys_trace_config nrt_sys_trace_config_t;
typedef struct nrt_sys_trace_fetch_options nrt_sys_trace_fetch_options_t;

/* Defaults: 1000000 events per core, every core and event type. */
NRT_STATUS nrt_sys_trace_config_allocate(nrt_sys_trace_config_t **options);
void nrt_sys_trace_config_set_defaults(nrt_sys_trace_config_t *options);
void nrt_sys_trace_config_free(nrt_sys_trace_config_t *options);
void nrt_sys_trace_config_set_max_events_per_nc(nrt_sys_trace_config_t *options,
						uint64_t max_events_per_nc);
void nrt_sys_trace_config_set_capture_enabled_for_nc(nrt_sys_trace_config_t *options,
						     uint32_t nc_idx, bool enabled);
/* An event type name, or a group: "hardware", "software". */
NRT_STATUS nrt_sys_trace_config_set_capture_enabled_for_event_type(nrt_sys_trace_config_t *options,
								   const char *event_type,
								   bool enabled);
NRT_STATUS nrt_sys_trace_get_event_types(const char ***event_types, size_t *count);
void nrt_sys_trace_free_event_types(const char **event_types, size_t count);
NRT_STATUS nrt_sys_trace_config_get_enabled_event_types(nrt_sys_trace_config_t *options,
							const char ***event_types, size_t *count);

NRT_STATUS nrt_sys_trace_start(nrt_sys_trace_config_t *options);
NRT_STATUS nrt_sys_trace_stop(void);

/* Defaults: every core, every pending event. */
NRT_STATUS nrt_sys_trace_fetch_options_allocate(nrt_sys_trace_fetch_options_t **options);
NRT_STATUS nrt_sys_trace_fetch_options_set_defaults(nrt_sys_trace_fetch_options_t *options);
NRT_STATUS nrt_sys_trace_fetch_options_free(nrt_sys_trace_fetch_options_t *options);
NRT_STATUS nrt_sys_trace_fetch_options_set_max_events_per_nc(nrt_sys_trace_fetch_options_t *options,
							      uint64_t max_events_per_nc);
NRT_STATUS nrt_sys_trace_fetch_options_set_nc_idx(nrt_sys_trace_fetch_options_t *options,
						  uint32_t nc_idx);

/* Pending events as a JSON object; release it with nrt_sys_trace_buffer_free(). */
NRT_STATUS nrt_sys_trace_fetch_events(char **buffer, size_t *written_size,
				      const nrt_sys_trace_fetch_options_t *options);
void nrt_sys_trace_buffer_free(char *buffer);

#ifdef __cplusplus
}
#endif

#endif /* NRTPROF_NRT_SYS_TRACE_H */
