// SPDX-License-Identifier: MIT
/*
 * The inspect configuration and the system-trace configuration: plain option
 * bags with the runtime's defaults. Setters validate every argument; the
 * environment parser (env.c) goes through the same checks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/capture.h>
#include <neuronprof/config.h>
#include <neuronprof/output.h>
#include <neuronprof/sys_trace_events.h>

#include "config/config_internal.h"

#define MiB	(1024ULL * 1024ULL)

/* Indexed by bit number of enum nprof_activity. */
static const char *const activity_names[] = {
	"system_profile", "device_profile", "host_memory", "cpu_util",
};

/*
 * Default ring sizes per queue type. Instruction traces are the largest
 * stream; the classes the runtime sizes with NEURON_RT_PROFILE_BUF_*_MB get
 * its 64 MiB; error and status queues carry a few entries per execution.
 */
static const uint64_t ring_size_default[NPROF_QT_COUNT] = {
	128 * MiB,	/* TRACE */
	64 * MiB,	/* EVENT */
	1 * MiB,	/* ERROR */
	1 * MiB,	/* INFER_STATUS */
	64 * MiB,	/* DMA */
	64 * MiB,	/* THROTTLE */
	64 * MiB,	/* TOPSP_TRACE (CC_CORE_INSTRUCTION) */
	64 * MiB,	/* TOPSP_EVENT (CC_CORE_EVENT) */
	1 * MiB,	/* TOPSP_ERROR */
};

/* An int entry point's check of its configuration argument. */
#define CHECK_NOT_NULL(p, what) \
	do { \
		if (!(p)) \
			return nprof_err(EINVAL, what " is NULL"); \
	} while (0)
#define CHECK_CFG(cfg)	CHECK_NOT_NULL(cfg, "inspect config")
#define CHECK_ST(st)	CHECK_NOT_NULL(st, "system-trace config")

/* ---- activities --------------------------------------------------------- */

NPROF_API int nprof_activity_from_name(const char *name)
{
	size_t i;

	if (!name)
		return nprof_err(EINVAL, "activity name is NULL");
	if (!strcmp(name, "all"))
		return NPROF_ACTIVITY_ALL;
	for (i = 0; i < ARRAY_SIZE(activity_names); i++)
		if (!strcmp(name, activity_names[i]))
			return 1 << i;
	return nprof_err(EINVAL,
			 "unknown activity '%s' (expected system_profile, device_profile, host_memory, cpu_util or all)",
			 name);
}

NPROF_API const char *nprof_activity_name(unsigned int activity)
{
	if (!activity || (activity & (activity - 1)) || (activity & ~NPROF_ACTIVITY_ALL))
		return nprof_err_ptr(EINVAL, "0x%x is not exactly one activity bit", activity);
	return activity_names[__builtin_ctz(activity)];
}

NPROF_API int nprof_inspect_config_get_all_activity_types(const char ***names, size_t *count)
{
	return nprof_dup_name_list(activity_names, ARRAY_SIZE(activity_names), UINT64_MAX, names,
				   count);
}

NPROF_API int nprof_inspect_config_get_enabled_activity_types(const struct nprof_inspect_config *cfg,
							      const char ***names, size_t *count)
{
	CHECK_CFG(cfg);
	return nprof_dup_name_list(activity_names, ARRAY_SIZE(activity_names), cfg->activities,
				   names, count);
}

NPROF_API void nprof_inspect_config_free_activity_types(const char **names, size_t count)
{
	nprof_free_name_list(names, count);
}

/* ---- system-trace configuration ----------------------------------------- */

static void sys_trace_defaults(struct nprof_sys_trace_config *st)
{
	st->max_events_per_nc = NPROF_SYS_TRACE_DEFAULT_MAX_EVENTS;
	st->event_type_mask = NPROF_SYS_TRACE_ALL_MASK;
	memset(st->capture_nc, 1, sizeof(st->capture_nc));
}

NPROF_API struct nprof_sys_trace_config *nprof_sys_trace_config_allocate(void)
{
	struct nprof_sys_trace_config *st = calloc(1, sizeof(*st));

	if (!st)
		return nprof_err_ptr(ENOMEM, "cannot allocate a system-trace config");
	sys_trace_defaults(st);
	return st;
}

NPROF_API void nprof_sys_trace_config_free(struct nprof_sys_trace_config *cfg)
{
	free(cfg);
}

NPROF_API int nprof_sys_trace_config_set_defaults(struct nprof_sys_trace_config *cfg)
{
	CHECK_ST(cfg);
	sys_trace_defaults(cfg);
	return 0;
}

NPROF_API int nprof_sys_trace_config_set_max_events_per_nc(struct nprof_sys_trace_config *cfg,
							   uint64_t max_events)
{
	CHECK_ST(cfg);
	if (max_events < 1 || max_events > NPROF_SYS_TRACE_MAX_EVENTS_LIMIT)
		return nprof_err(EINVAL, "max events per core %llu is out of range [1, %llu]",
				 (unsigned long long)max_events, NPROF_SYS_TRACE_MAX_EVENTS_LIMIT);
	cfg->max_events_per_nc = max_events;
	return 0;
}

NPROF_API uint64_t nprof_sys_trace_config_get_max_events_per_nc(const struct nprof_sys_trace_config *cfg)
{
	return cfg ? cfg->max_events_per_nc : 0;
}

static int check_nc(uint32_t nc)
{
	if (nc >= NPROF_MAX_CORES)
		return nprof_err(EINVAL, "core index %u is out of range [0, %d]", nc, NPROF_MAX_CORES - 1);
	return 0;
}

NPROF_API int nprof_sys_trace_config_set_capture_enabled_for_nc(struct nprof_sys_trace_config *cfg,
								uint32_t nc, bool enable)
{
	CHECK_ST(cfg);
	if (check_nc(nc))
		return -EINVAL;
	cfg->capture_nc[nc] = enable;
	return 0;
}

NPROF_API int nprof_sys_trace_config_get_capture_enabled_for_nc(const struct nprof_sys_trace_config *cfg,
								uint32_t nc)
{
	CHECK_ST(cfg);
	if (check_nc(nc))
		return -EINVAL;
	return cfg->capture_nc[nc];
}

NPROF_API int nprof_sys_trace_config_set_capture_enabled_for_event_type(
	struct nprof_sys_trace_config *cfg, const char *event_type, bool enable)
{
	uint64_t mask;
	int ret;

	CHECK_ST(cfg);
	ret = nprof_sys_trace_event_selector(event_type, &mask);
	if (ret)
		return ret;
	if (enable)
		cfg->event_type_mask |= mask;
	else
		cfg->event_type_mask &= ~mask;
	return 0;
}

NPROF_API int nprof_sys_trace_get_event_types(const char ***names, size_t *count)
{
	return nprof_dup_name_list(nprof_sys_trace_event_names(), NPROF_SYS_TRACE_EVENT_COUNT,
				   UINT64_MAX, names, count);
}

NPROF_API void nprof_sys_trace_free_event_types(const char **names, size_t count)
{
	nprof_free_name_list(names, count);
}

NPROF_API int nprof_sys_trace_config_get_enabled_event_types(const struct nprof_sys_trace_config *cfg,
							     const char ***names, size_t *count)
{
	CHECK_ST(cfg);
	return nprof_dup_name_list(nprof_sys_trace_event_names(), NPROF_SYS_TRACE_EVENT_COUNT,
				   cfg->event_type_mask, names, count);
}

NPROF_API uint64_t nprof_sys_trace_config_get_event_type_mask(const struct nprof_sys_trace_config *cfg)
{
	return cfg ? cfg->event_type_mask : 0;
}

/* ---- inspect configuration ---------------------------------------------- */

static void inspect_defaults(struct nprof_inspect_config *cfg)
{
	size_t i;

	cfg->session_id = 1;
	cfg->activities = NPROF_ACTIVITY_ALL;
	cfg->device_profile_mode = NPROF_DEVICE_PROFILE_MODEL;
	cfg->enable_inspect = false;
	cfg->enable_inspect_on_fail = false;
	cfg->streaming = true;
	cfg->exec_first = 0;
	cfg->iter_first = 0;
	cfg->iter_last = 0;
	cfg->exec_last = 0;
	memset(cfg->capture_nc, 1, sizeof(cfg->capture_nc));
	for (i = 0; i < NPROF_QT_COUNT; i++)
		cfg->ring_size[i] = ring_size_default[i];
	sys_trace_defaults(&cfg->sys_trace);
	strcpy(cfg->output_dir, NPROF_DEFAULT_OUTPUT_DIR);
}

NPROF_API struct nprof_inspect_config *nprof_inspect_config_allocate(void)
{
	struct nprof_inspect_config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg)
		return nprof_err_ptr(ENOMEM, "cannot allocate an inspect config");
	inspect_defaults(cfg);
	return cfg;
}

NPROF_API void nprof_inspect_config_free(struct nprof_inspect_config *cfg)
{
	free(cfg);
}

NPROF_API int nprof_inspect_config_set_defaults(struct nprof_inspect_config *cfg)
{
	CHECK_CFG(cfg);
	inspect_defaults(cfg);
	return 0;
}

NPROF_API int nprof_inspect_config_copy(struct nprof_inspect_config *dst,
					const struct nprof_inspect_config *src)
{
	if (!dst || !src)
		return nprof_err(EINVAL, "inspect config is NULL");
	if (dst != src)
		memcpy(dst, src, sizeof(*dst));
	return 0;
}

NPROF_API int nprof_inspect_config_set_session_id(struct nprof_inspect_config *cfg, int id)
{
	CHECK_CFG(cfg);
	if (id < 0)
		return nprof_err(EINVAL, "session id %d is negative", id);
	cfg->session_id = id;
	return 0;
}

NPROF_API int nprof_inspect_config_get_session_id(const struct nprof_inspect_config *cfg)
{
	CHECK_CFG(cfg);
	return cfg->session_id;
}

NPROF_API int nprof_inspect_config_set_output_dir(struct nprof_inspect_config *cfg, const char *dir)
{
	size_t len;
	int ret;

	CHECK_CFG(cfg);
	if (!dir)
		return nprof_err(EINVAL, "output directory is NULL");
	len = strlen(dir);
	if (len >= sizeof(cfg->output_dir))
		return nprof_err(ENAMETOOLONG, "output directory of %zu bytes is longer than PATH_MAX",
				 len);
	ret = nprof_output_check_base(dir);
	if (ret)
		return ret;
	memcpy(cfg->output_dir, dir, len + 1);
	return 0;
}

NPROF_API const char *nprof_inspect_config_get_output_dir(const struct nprof_inspect_config *cfg)
{
	if (!cfg)
		return nprof_err_ptr(EINVAL, "inspect config is NULL");
	return cfg->output_dir;
}

NPROF_API int nprof_inspect_config_set_activity(struct nprof_inspect_config *cfg,
						const char *activity, bool enable)
{
	int bits;

	CHECK_CFG(cfg);
	bits = nprof_activity_from_name(activity);
	if (bits < 0)
		return bits;
	if (enable)
		cfg->activities |= (unsigned int)bits;
	else
		cfg->activities &= ~(unsigned int)bits;
	return 0;
}

NPROF_API int nprof_inspect_config_set_activity_mask(struct nprof_inspect_config *cfg,
						     unsigned int mask)
{
	CHECK_CFG(cfg);
	if (mask & ~NPROF_ACTIVITY_ALL)
		return nprof_err(EINVAL, "activity mask 0x%x has unknown bits 0x%x", mask,
				 mask & ~NPROF_ACTIVITY_ALL);
	cfg->activities = mask;
	return 0;
}

NPROF_API int nprof_inspect_config_get_activity_mask(const struct nprof_inspect_config *cfg)
{
	CHECK_CFG(cfg);
	return (int)cfg->activities;
}

NPROF_API int nprof_inspect_config_set_device_profile_mode(struct nprof_inspect_config *cfg,
							   enum nprof_device_profile_mode mode)
{
	CHECK_CFG(cfg);
	if ((unsigned int)mode > NPROF_DEVICE_PROFILE_SESSION)
		return nprof_err(EINVAL, "unknown device profile mode %d", (int)mode);
	cfg->device_profile_mode = mode;
	return 0;
}

NPROF_API int nprof_inspect_config_get_device_profile_mode(const struct nprof_inspect_config *cfg)
{
	CHECK_CFG(cfg);
	return (int)cfg->device_profile_mode;
}

NPROF_API int nprof_inspect_config_set_capture_enabled_for_nc(struct nprof_inspect_config *cfg,
							      uint32_t nc, bool enable)
{
	CHECK_CFG(cfg);
	if (check_nc(nc))
		return -EINVAL;
	cfg->capture_nc[nc] = enable;
	cfg->sys_trace.capture_nc[nc] = enable;
	return 0;
}

NPROF_API int nprof_inspect_config_get_capture_enabled_for_nc(const struct nprof_inspect_config *cfg,
							      uint32_t nc)
{
	CHECK_CFG(cfg);
	if (check_nc(nc))
		return -EINVAL;
	return cfg->capture_nc[nc];
}

NPROF_API int nprof_inspect_config_set_sys_trace_max_events_per_nc(struct nprof_inspect_config *cfg,
								   uint64_t max_events)
{
	CHECK_CFG(cfg);
	return nprof_sys_trace_config_set_max_events_per_nc(&cfg->sys_trace, max_events);
}

NPROF_API int nprof_inspect_config_set_capture_enabled_for_event_type_string(
	struct nprof_inspect_config *cfg, const char *event_type, bool enable)
{
	CHECK_CFG(cfg);
	return nprof_sys_trace_config_set_capture_enabled_for_event_type(&cfg->sys_trace,
									 event_type, enable);
}

NPROF_API struct nprof_sys_trace_config *nprof_inspect_config_sys_trace(struct nprof_inspect_config *cfg)
{
	if (!cfg)
		return nprof_err_ptr(EINVAL, "inspect config is NULL");
	return &cfg->sys_trace;
}

NPROF_API int nprof_inspect_config_set_enable_inspect(struct nprof_inspect_config *cfg, bool enable)
{
	CHECK_CFG(cfg);
	cfg->enable_inspect = enable;
	return 0;
}

NPROF_API int nprof_inspect_config_get_enable_inspect(const struct nprof_inspect_config *cfg)
{
	CHECK_CFG(cfg);
	return cfg->enable_inspect;
}

NPROF_API int nprof_inspect_config_set_enable_inspect_on_fail(struct nprof_inspect_config *cfg,
							      bool enable)
{
	CHECK_CFG(cfg);
	cfg->enable_inspect_on_fail = enable;
	return 0;
}

NPROF_API int nprof_inspect_config_get_enable_inspect_on_fail(const struct nprof_inspect_config *cfg)
{
	CHECK_CFG(cfg);
	return cfg->enable_inspect_on_fail;
}

NPROF_API int nprof_inspect_config_set_streaming(struct nprof_inspect_config *cfg, bool enable)
{
	CHECK_CFG(cfg);
	cfg->streaming = enable;
	return 0;
}

NPROF_API int nprof_inspect_config_get_streaming(const struct nprof_inspect_config *cfg)
{
	CHECK_CFG(cfg);
	return cfg->streaming;
}

/*
 * The capture ranges (executions, iterations): [@first, @last] counting
 * from 1 up to @max, or 0-0 for every one. @what and @unit name them in
 * the message, @upto the bound ("" when there is none).
 */
static int set_range(uint64_t *first_out, uint64_t *last_out, uint64_t first, uint64_t last,
		     uint64_t max, const char *what, const char *unit, const char *upto)
{
	if ((first || last) && (!first || last < first || last > max))
		return nprof_err(EINVAL, "%s range %" PRIu64 "-%" PRIu64
				 ": %s count from 1%s and the range must not be empty",
				 what, first, last, unit, upto);
	*first_out = first;
	*last_out = last;
	return 0;
}

static int get_range(uint64_t first_in, uint64_t last_in, uint64_t *first, uint64_t *last)
{
	if (!first || !last)
		return nprof_err(EINVAL, "NULL range");
	*first = first_in;
	*last = last_in;
	return 0;
}

NPROF_API int nprof_inspect_config_set_capture_executions(struct nprof_inspect_config *cfg,
							  uint64_t first, uint64_t last)
{
	CHECK_CFG(cfg);
	return set_range(&cfg->exec_first, &cfg->exec_last, first, last, UINT64_MAX, "capture", "executions", "");
}

NPROF_API int nprof_inspect_config_get_capture_executions(const struct nprof_inspect_config *cfg,
							  uint64_t *first, uint64_t *last)
{
	CHECK_CFG(cfg);
	return get_range(cfg->exec_first, cfg->exec_last, first, last);
}

NPROF_API int nprof_inspect_config_set_capture_iterations(struct nprof_inspect_config *cfg,
							  uint64_t first, uint64_t last)
{
	CHECK_CFG(cfg);
	return set_range(&cfg->iter_first, &cfg->iter_last, first, last, (uint64_t)UINT32_MAX + 1,
			 "iteration", "iterations", " to 4294967296");
}

NPROF_API int nprof_inspect_config_get_capture_iterations(const struct nprof_inspect_config *cfg,
							  uint64_t *first, uint64_t *last)
{
	CHECK_CFG(cfg);
	return get_range(cfg->iter_first, cfg->iter_last, first, last);
}

NPROF_API int nprof_inspect_config_set_capture_max_size(struct nprof_inspect_config *cfg,
							uint64_t bytes)
{
	CHECK_CFG(cfg);
	if (bytes && bytes < NPROF_CAPTURE_MAX_SIZE_MIN)
		return nprof_err(EINVAL, "capture size limit %" PRIu64
				 " bytes: at least 1 MiB (0: no limit)", bytes);
	cfg->max_size = bytes;
	return 0;
}

NPROF_API uint64_t nprof_inspect_config_get_capture_max_size(const struct nprof_inspect_config *cfg)
{
	return cfg ? cfg->max_size : 0;
}

NPROF_API int nprof_inspect_config_set_capture_compression(struct nprof_inspect_config *cfg,
							   int level)
{
	CHECK_CFG(cfg);
	if (level < 0 || level > NPROF_CAPTURE_COMPRESSION_MAX)
		return nprof_err(EINVAL, "capture compression level %d: expected 0 (none) to %d",
				 level, NPROF_CAPTURE_COMPRESSION_MAX);
	cfg->compression = level;
	return 0;
}

NPROF_API int nprof_inspect_config_get_capture_compression(const struct nprof_inspect_config *cfg)
{
	return cfg ? cfg->compression : 0;
}

NPROF_API uint64_t nprof_ring_size_default(uint32_t queue_type)
{
	return queue_type < NPROF_QT_COUNT ? ring_size_default[queue_type] : 0;
}

NPROF_API int nprof_inspect_config_set_ring_size(struct nprof_inspect_config *cfg,
						 uint32_t queue_type, uint64_t bytes)
{
	CHECK_CFG(cfg);
	if (queue_type >= NPROF_QT_COUNT)
		return nprof_err(EINVAL, "unknown queue type %u", queue_type);
	if (bytes % MiB || bytes / MiB < NPROF_RING_SIZE_MIN_MB || bytes / MiB > NPROF_RING_SIZE_MAX_MB)
		return nprof_err(EINVAL,
				 "ring size %llu bytes is not a whole number of MiB in [%llu, %llu] MiB",
				 (unsigned long long)bytes, NPROF_RING_SIZE_MIN_MB, NPROF_RING_SIZE_MAX_MB);
	cfg->ring_size[queue_type] = bytes;
	return 0;
}

NPROF_API int nprof_inspect_config_get_ring_size(const struct nprof_inspect_config *cfg,
						 uint32_t queue_type, uint64_t *size)
{
	CHECK_CFG(cfg);
	if (!size)
		return nprof_err(EINVAL, "ring size output pointer is NULL");
	if (queue_type >= NPROF_QT_COUNT)
		return nprof_err(EINVAL, "unknown queue type %u", queue_type);
	*size = cfg->ring_size[queue_type];
	return 0;
}

/* Declared in capture.h: the bridge from this options bag to a capture engine. */
NPROF_API int nprof_capture_opts_from_config(struct nprof_capture_opts *opts,
					     const struct nprof_inspect_config *cfg)
{
	uint32_t t;
	int ret;

	if (!opts || !cfg)
		return nprof_err(EINVAL, "capture options or configuration is NULL");
	/* Callers compiled before flags and spool_dir existed pass a smaller struct. */
	ret = NPROF_SIZED_VALID_SINCE(opts, nprof_capture_opts,
				      offsetof(struct nprof_capture_opts, flags), NPROF_SIZED_OUT);
	if (ret)
		return ret;
	for (t = 0; t < NPROF_QUEUE_TYPES; t++) {
		ret = nprof_inspect_config_get_ring_size(cfg, t, &opts->ring_size[t]);
		if (ret)
			return ret;
	}
	if (opts->size >= sizeof(*opts)) {
		opts->flags &= ~NPROF_CAPTURE_ZERO_COPY;
		if (!cfg->streaming)
			opts->flags |= NPROF_CAPTURE_ZERO_COPY;
	}
	return 0;
}
