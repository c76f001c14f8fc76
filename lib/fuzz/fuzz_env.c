// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the environment parser. The input is a list of
 * "NAME=value" lines handed over as an envp array; in addition, the whole
 * input is tried as the value of every variable the parser reads. A
 * failure must leave the configuration as it was and explain itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/config.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const vars[] = {
	"NEURON_RT_INSPECT_ENABLE", "NEURON_RT_INSPECT_OUTPUT_DIR",
	"NEURON_RT_INSPECT_SYSTEM_PROFILE", "NEURON_RT_INSPECT_DEVICE_PROFILE",
	"NEURON_RT_INSPECT_ON_FAIL", "NEURON_RT_INSPECT_CPU_UTIL",
	"NEURON_RT_INSPECT_HOST_MEMORY", "NEURON_RT_INSPECT_EVENT_FILTER_NC",
	"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC",
	"NEURON_RT_PROFILE_BUF_EVENT_MB", "NEURON_RT_PROFILE_BUF_CC_CORE_EVENT_MB",
	"NEURON_RT_PROFILE_BUF_TOPSP_EVENT_MB",
};

struct one {
	const char *name;
	const char *value;
};

static const char *one_lookup(const char *name, void *ctx)
{
	const struct one *o = ctx;

	return strcmp(name, o->name) ? NULL : o->value;
}

static int quiet(void)
{
	return nprof_log_set_handler(NULL, NULL, NPROF_LOG_ERROR);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quieted;
	struct nprof_inspect_config *cfg, *before;
	char *text, *envp[33], *p;
	size_t i, n = 0;
	int ret;

	if (!quieted)
		quieted = !quiet();
	text = malloc(size + 1);
	cfg = nprof_inspect_config_allocate();
	before = nprof_inspect_config_allocate();
	if (!text || !cfg || !before)
		goto out;
	memcpy(text, data, size);
	text[size] = '\0';

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		struct one o = { vars[i], text };

		nprof_inspect_config_copy(before, cfg);
		ret = nprof_inspect_config_parse_env(cfg, one_lookup, &o);
		if (ret && (!*nprof_strerror_last() ||
			    nprof_inspect_config_get_session_id(cfg) != nprof_inspect_config_get_session_id(before) ||
			    nprof_inspect_config_get_activity_mask(cfg) != nprof_inspect_config_get_activity_mask(before)))
			abort();
	}

	/* Lines as an environment block. */
	for (p = text; n < 32 && p && *p; ) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		envp[n++] = p;
		p = nl ? nl + 1 : NULL;
	}
	envp[n] = NULL;
	ret = nprof_inspect_config_parse_envp(cfg, envp);
	if (ret && !*nprof_strerror_last())
		abort();
out:
	nprof_inspect_config_free(cfg);
	nprof_inspect_config_free(before);
	free(text);
	return 0;
}
