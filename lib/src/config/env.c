// SPDX-License-Identifier: MIT
/*
 * The one parser of the inspect environment (NEURON_RT_INSPECT_* and
 * NEURON_RT_PROFILE_BUF_<TYPE>_MB). Values are parsed strictly: no sign, no
 * blanks, no trailing characters; every error names the variable, the part
 * that is wrong and the whole value. The parse works on a copy of the
 * configuration and commits it only when every variable was valid.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/config.h>
#include <neuronprof/output.h>
#include <neuronprof/sys_trace_events.h>

#include "config/config_internal.h"
#include "util/parse.h"

#define ENV_PREFIX		"NEURON_RT_INSPECT_"
#define ENV_BUF_PREFIX		"NEURON_RT_PROFILE_BUF_"
#define MiB			(1024ULL * 1024ULL)

struct env_ctx {
	nprof_env_lookup_fn lookup;
	void *ctx;
};

static const char *env_get(const struct env_ctx *e, const char *name)
{
	return e->lookup ? e->lookup(name, e->ctx) : getenv(name);
}

static int parse_bool(const char *var, const char *v, bool *out)
{
	if (!strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	if (!strcmp(v, "1")) {
		*out = true;
		return 0;
	}
	return nprof_err(EINVAL, "%s: expected 0 or 1, got '%s'", var, v);
}

static int parse_number_in_range(const char *var, const char *v, uint64_t lo, uint64_t hi,
				 uint64_t *out)
{
	int ret = nprof_parse_u64(v, strlen(v), 10, out);

	if (ret == -EINVAL)
		return nprof_err(EINVAL, "%s: '%s' is not a non-negative decimal number", var, v);
	if (ret == -ERANGE || *out < lo || *out > hi)
		return nprof_err(EINVAL, "%s: %s is out of range [%llu, %llu]", var, v,
				 (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

/* "0", "0,2,4", "0-3", "0-3,8" -> cores[] flags, by the project's one core-list parser. */
static int parse_cores(const char *var, const char *v, uint8_t cores[NPROF_MAX_CORES])
{
	uint8_t map[NPROF_MAX_CORES / 8];
	char why[4096];
	unsigned int c;
	int ret = nprof_parse_core_list(v, map, NPROF_MAX_CORES, why, sizeof(why));

	if (ret)
		return nprof_err(EINVAL, "%s: %s", var, why);
	for (c = 0; c < NPROF_MAX_CORES; c++)
		cores[c] = (map[c / 8] >> (c % 8)) & 1;
	return 0;
}

/* "name,hardware,^name" -> mask; no positive item means "all but ...". */
static int parse_event_filter(const char *var, const char *v, uint64_t *out)
{
	uint64_t include = 0, exclude = 0;
	bool any_include = false;
	const char *p = v;
	char item[128];

	if (!*v)
		return nprof_err(EINVAL, "%s: empty event type list", var);
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool neg = len && *p == '^';
		uint64_t mask;

		if (neg) {
			p++;
			len--;
		}
		if (!len)
			return nprof_err(EINVAL, "%s: empty element in '%s'", var, v);
		if (len >= sizeof(item))
			return nprof_err(EINVAL, "%s: unknown event type '%.*s' in '%s'", var,
					 (int)len, p, v);
		memcpy(item, p, len);
		item[len] = '\0';
		if (nprof_sys_trace_event_selector(item, &mask))
			return nprof_err(EINVAL, "%s: unknown event type '%s' in '%s'", var, item, v);
		if (neg) {
			exclude |= mask;
		} else {
			include |= mask;
			any_include = true;
		}
		if (!end)
			break;
		p = end + 1;
	}
	*out = (any_include ? include : NPROF_SYS_TRACE_ALL_MASK) & ~exclude;
	return 0;
}

/*
 * NEURON_RT_PROFILE_BUF_<TYPE>_MB names: the runtime's classes first, then
 * one per queue type. Two names of the same queue must agree.
 */
static const struct {
	const char *type;
	uint32_t queue_type;
} buf_vars[] = {
	{ "EVENT", 1 },
	{ "DMA", 4 },
	{ "THROTTLE", 5 },
	{ "CC_CORE_INSTRUCTION", 6 },
	{ "CC_CORE_EVENT", 7 },
	{ "TRACE", 0 },
	{ "ERROR", 2 },
	{ "INFER_STATUS", 3 },
	{ "TOPSP_TRACE", 6 },
	{ "TOPSP_EVENT", 7 },
	{ "TOPSP_ERROR", 8 },
};

static int parse_ring_sizes(const struct env_ctx *e, struct nprof_inspect_config *cfg)
{
	const char *set_by[NPROF_QT_COUNT] = { 0 };
	char var[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(buf_vars); i++) {
		uint32_t qt = buf_vars[i].queue_type;
		const char *v;
		uint64_t mb;
		int ret;

		snprintf(var, sizeof(var), ENV_BUF_PREFIX "%s_MB", buf_vars[i].type);
		v = env_get(e, var);
		if (!v)
			continue;
		ret = parse_number_in_range(var, v, NPROF_RING_SIZE_MIN_MB, NPROF_RING_SIZE_MAX_MB, &mb);
		if (ret)
			return ret;
		if (set_by[qt] && cfg->ring_size[qt] != mb * MiB)
			return nprof_err(EINVAL, "%s=%s conflicts with " ENV_BUF_PREFIX "%s_MB=%llu",
					 var, v, set_by[qt],
					 (unsigned long long)(cfg->ring_size[qt] / MiB));
		cfg->ring_size[qt] = mb * MiB;
		set_by[qt] = buf_vars[i].type;
	}
	return 0;
}

/* NEURON_RT_INSPECT_DEVICE_PROFILE: the mode it asks for, or -EINVAL. */
static int parse_device_profile(const char *v)
{
	if (!strcmp(v, "0"))
		return NPROF_DEVICE_PROFILE_DISABLED;
	if (!strcmp(v, "1") || !strcmp(v, "model"))
		return NPROF_DEVICE_PROFILE_MODEL;
	if (!strcmp(v, "session"))
		return NPROF_DEVICE_PROFILE_SESSION;
	return nprof_err(EINVAL, ENV_PREFIX "DEVICE_PROFILE: expected 0, 1, model or session, got '%s'",
			 v);
}

int nprof_env_device_profile_mode(void)
{
	const char *v = getenv(ENV_PREFIX "DEVICE_PROFILE");

	return v ? parse_device_profile(v) : NPROF_DEVICE_PROFILE_DISABLED;
}

int nprof_env_streaming(void)
{
	const char *v = getenv(ENV_PREFIX "STREAMING");
	bool b = true;
	int ret;

	if (v) {
		ret = parse_bool(ENV_PREFIX "STREAMING", v, &b);
		if (ret)
			return ret;
	}
	return b;
}

/*
 * "A-B" (executions or iterations A to B, counted from 1, inclusive) or "A"
 * (A alone), into *@first and *@last; @what names what is counted.
 */
static int parse_range(const char *var, const char *what, uint64_t max, const char *v,
		       uint64_t *out_first, uint64_t *out_last)
{
	const char *dash = strchr(v, '-');
	size_t len = dash ? (size_t)(dash - v) : strlen(v);
	uint64_t first, last;

	if (nprof_parse_u64(v, len, 10, &first) ||
	    (dash ? nprof_parse_u64(dash + 1, strlen(dash + 1), 10, &last) : (last = first, 0)) ||
	    !first || last < first || last > max)
		return nprof_err(EINVAL, "%s: expected A-B with 1 <= A <= B (%s counted from 1), got '%s'",
				 var, what, v);
	*out_first = first;
	*out_last = last;
	return 0;
}

/* SIZE: bytes, or with a K, M or G suffix (binary: 1K = 1024), 0: no limit. */
static int parse_max_size(const char *var, const char *v, struct nprof_inspect_config *cfg)
{
	size_t len = strlen(v);
	unsigned int shift = 0;
	uint64_t n;

	if (len && strchr("KMG", v[len - 1])) {
		shift = v[len - 1] == 'K' ? 10 : v[len - 1] == 'M' ? 20 : 30;
		len--;
	}
	if (nprof_parse_u64(v, len, 10, &n) || n > (UINT64_MAX >> shift))
		return nprof_err(EINVAL, "%s: expected a size in bytes (K, M, G suffixes), got '%s'",
				 var, v);
	if (nprof_inspect_config_set_capture_max_size(cfg, n << shift))
		return nprof_err(EINVAL, "%s=%s: %s", var, v, nprof_err_current());
	return 0;
}

static int parse_all(const struct env_ctx *e, struct nprof_inspect_config *cfg)
{
	const char *v;
	bool b = false;
	int ret;

#define BOOL_VAR(suffix, stmt) \
	do { \
		v = env_get(e, ENV_PREFIX suffix); \
		if (v) { \
			ret = parse_bool(ENV_PREFIX suffix, v, &b); \
			if (ret) \
				return ret; \
			stmt; \
		} \
	} while (0)
#define SET_ACTIVITY(bit) \
	(cfg->activities = b ? (cfg->activities | (bit)) : (cfg->activities & ~(unsigned int)(bit)))

	BOOL_VAR("ENABLE", cfg->enable_inspect = b);
	BOOL_VAR("ON_FAIL", cfg->enable_inspect_on_fail = b);
	BOOL_VAR("STREAMING", cfg->streaming = b);
	BOOL_VAR("SYSTEM_PROFILE", SET_ACTIVITY(NPROF_ACTIVITY_SYSTEM_PROFILE));
	BOOL_VAR("CPU_UTIL", SET_ACTIVITY(NPROF_ACTIVITY_CPU_UTIL));
	BOOL_VAR("HOST_MEMORY", SET_ACTIVITY(NPROF_ACTIVITY_HOST_MEMORY));
#undef BOOL_VAR
#undef SET_ACTIVITY

	v = env_get(e, ENV_PREFIX "DEVICE_PROFILE");
	if (v) {
		ret = parse_device_profile(v);
		if (ret < 0)
			return ret;
		cfg->device_profile_mode = (enum nprof_device_profile_mode)ret;
		if (ret == NPROF_DEVICE_PROFILE_DISABLED)
			cfg->activities &= ~(unsigned int)NPROF_ACTIVITY_DEVICE_PROFILE;
		else
			cfg->activities |= NPROF_ACTIVITY_DEVICE_PROFILE;
	}

	v = env_get(e, ENV_PREFIX "OUTPUT_DIR");
	if (v) {
		ret = nprof_inspect_config_set_output_dir(cfg, v);
		if (ret)
			return nprof_err(-ret, ENV_PREFIX "OUTPUT_DIR: %s", nprof_err_current());
	}

	v = env_get(e, ENV_PREFIX "EVENT_FILTER_NC");
	if (v) {
		uint8_t cores[NPROF_MAX_CORES];

		ret = parse_cores(ENV_PREFIX "EVENT_FILTER_NC", v, cores);
		if (ret)
			return ret;
		/* As nprof_inspect_config_set_capture_enabled_for_nc() would. */
		memcpy(cfg->capture_nc, cores, sizeof(cores));
		memcpy(cfg->sys_trace.capture_nc, cores, sizeof(cores));
	}

	v = env_get(e, ENV_PREFIX "EVENT_FILTER_TYPE");
	if (v) {
		ret = parse_event_filter(ENV_PREFIX "EVENT_FILTER_TYPE", v,
					 &cfg->sys_trace.event_type_mask);
		if (ret)
			return ret;
	}

	v = env_get(e, ENV_PREFIX "SYS_TRACE_MAX_EVENTS_PER_NC");
	if (v) {
		ret = parse_number_in_range(ENV_PREFIX "SYS_TRACE_MAX_EVENTS_PER_NC", v, 1,
					    NPROF_SYS_TRACE_MAX_EVENTS_LIMIT,
					    &cfg->sys_trace.max_events_per_nc);
		if (ret)
			return ret;
	}

	v = env_get(e, ENV_PREFIX "CAPTURE_EXECUTIONS");
	if (v) {
		ret = parse_range(ENV_PREFIX "CAPTURE_EXECUTIONS", "executions", UINT64_MAX, v,
				  &cfg->exec_first, &cfg->exec_last);
		if (ret)
			return ret;
	}

	v = env_get(e, ENV_PREFIX "CAPTURE_ITERATIONS");
	if (v) {
		ret = parse_range(ENV_PREFIX "CAPTURE_ITERATIONS", "iterations",
				  (uint64_t)UINT32_MAX + 1, v, &cfg->iter_first, &cfg->iter_last);
		if (ret)
			return ret;
	}

	v = env_get(e, ENV_PREFIX "CAPTURE_MAX_SIZE");
	if (v) {
		ret = parse_max_size(ENV_PREFIX "CAPTURE_MAX_SIZE", v, cfg);
		if (ret)
			return ret;
	}

	v = env_get(e, ENV_PREFIX "CAPTURE_COMPRESSION");
	if (v) {
		uint64_t level;

		if (nprof_parse_u64(v, strlen(v), 10, &level) || level > NPROF_CAPTURE_COMPRESSION_MAX)
			return nprof_err(EINVAL, "%sCAPTURE_COMPRESSION: expected a zstd level from 0 (none) to %d, got '%s'",
					 ENV_PREFIX, NPROF_CAPTURE_COMPRESSION_MAX, v);
		cfg->compression = (int)level;
	}

	return parse_ring_sizes(e, cfg);
}

/* Names parse_all() reads, to warn about misspelt variables. */
static bool known_var(const char *name, size_t len)
{
	static const char *const inspect[] = {
		"ENABLE", "OUTPUT_DIR", "SYSTEM_PROFILE", "DEVICE_PROFILE", "ON_FAIL",
		"CPU_UTIL", "HOST_MEMORY", "EVENT_FILTER_NC", "EVENT_FILTER_TYPE",
		"SYS_TRACE_MAX_EVENTS_PER_NC", "STREAMING", "CAPTURE_EXECUTIONS", "CAPTURE_ITERATIONS",
		"CAPTURE_MAX_SIZE", "CAPTURE_COMPRESSION",
	};
	char buf[96];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(inspect); i++) {
		snprintf(buf, sizeof(buf), ENV_PREFIX "%s", inspect[i]);
		if (strlen(buf) == len && !strncmp(buf, name, len))
			return true;
	}
	for (i = 0; i < ARRAY_SIZE(buf_vars); i++) {
		snprintf(buf, sizeof(buf), ENV_BUF_PREFIX "%s_MB", buf_vars[i].type);
		if (strlen(buf) == len && !strncmp(buf, name, len))
			return true;
	}
	return false;
}

static void warn_unknown(char *const envp[])
{
	size_t i;

	if (!envp)
		return;
	for (i = 0; envp[i]; i++) {
		const char *eq = strchr(envp[i], '=');
		size_t len = eq ? (size_t)(eq - envp[i]) : strlen(envp[i]);

		if (strncmp(envp[i], ENV_PREFIX, strlen(ENV_PREFIX)) &&
		    strncmp(envp[i], ENV_BUF_PREFIX, strlen(ENV_BUF_PREFIX)))
			continue;
		if (!known_var(envp[i], len))
			nprof_log(NPROF_LOG_WARN, "ignoring unknown environment variable %.*s",
				  (int)len, envp[i]);
	}
}

NPROF_API int nprof_inspect_config_parse_env(struct nprof_inspect_config *cfg,
					     nprof_env_lookup_fn lookup, void *ctx)
{
	struct env_ctx e = { .lookup = lookup, .ctx = ctx };
	struct nprof_inspect_config *tmp;
	int ret;

	if (!cfg)
		return nprof_err(EINVAL, "inspect config is NULL");
	if (!lookup) {
		extern char **environ;

		warn_unknown(environ);
	}
	/* Work on a copy so a bad variable leaves @cfg untouched. */
	tmp = malloc(sizeof(*tmp));
	if (!tmp)
		return nprof_err(ENOMEM, "cannot allocate an inspect config");
	memcpy(tmp, cfg, sizeof(*tmp));
	ret = parse_all(&e, tmp);
	if (!ret)
		memcpy(cfg, tmp, sizeof(*cfg));
	free(tmp);
	return ret;
}

static const char *envp_lookup(const char *name, void *ctx)
{
	char *const *envp = ctx;
	size_t len = strlen(name);
	size_t i;

	for (i = 0; envp[i]; i++)
		if (!strncmp(envp[i], name, len) && envp[i][len] == '=')
			return envp[i] + len + 1;
	return NULL;
}

NPROF_API int nprof_inspect_config_parse_envp(struct nprof_inspect_config *cfg, char *const envp[])
{
	if (!envp)
		return nprof_err(EINVAL, "envp is NULL");
	warn_unknown(envp);
	return nprof_inspect_config_parse_env(cfg, envp_lookup, (void *)envp);
}
