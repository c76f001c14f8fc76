// SPDX-License-Identifier: MIT
/*
 * errno to NRT_STATUS. libneuronprof says what failed with an errno and a
 * message; the runtime API says it with a status code and a log line. The
 * table keeps the distinctions the runtime's callers test for: bad
 * arguments and bad state (NRT_INVALID), resources (NRT_RESOURCE),
 * timeouts, a device that is missing or failed (NRT_HW_ERROR) and a core
 * that is busy (NRT_EXEC_NC_BUSY for execution calls, otherwise
 * NRT_FAILURE).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <neuronprof/common.h>

#include "nrtprof.h"

NRT_STATUS nrtprof_errno_status(int err)
{
	switch (err) {
	case 0:
		return NRT_SUCCESS;
	case EINVAL:
	case ENAMETOOLONG:
	case ERANGE:
	case ENOENT:
	case ENOTDIR:
		return NRT_INVALID;
	case EBADF:
		return NRT_INVALID_HANDLE;
	case ENOMEM:
	case ENOSPC:
	case EMFILE:
	case ENFILE:
	case EDQUOT:
		return NRT_RESOURCE;
	case ETIMEDOUT:
		return NRT_TIMEOUT;
	case ENODEV:
	case ENXIO:
	case EIO:
		return NRT_HW_ERROR;
	case ESHUTDOWN:
		return NRT_CLOSED;
	default:
		/* EBUSY, EALREADY, EEXIST, EPERM, EACCES, EOPNOTSUPP, ... */
		return NRT_FAILURE;
	}
}

static int quiet(void)
{
	const char *v = getenv("NEURON_RT_LOG_LEVEL");

	return v && (!strcasecmp(v, "OFF") || !strcasecmp(v, "FATAL"));
}

/* The last failure's message in this thread, whoever found it. */
static __thread char last_error[1024];

const char *nrtprof_last_error(void)
{
	return last_error;
}

NRT_STATUS nrtprof_error(const char *fn, NRT_STATUS st, const char *msg)
{
	snprintf(last_error, sizeof(last_error), "%s", msg);
	if (!quiet())
		fprintf(stderr, "nrt: %s: %s (status %d)\n", fn, msg, (int)st);
	return st;
}

/*
 * The functions of this API that have a libneuronprof namesake
 * nprof_<name>(): a libneuronprof message that names one (say "To use
 * nprof_profile_continuous_save() you must first call
 * nprof_profile_continuous_start()") names the nrt_* function instead, the
 * one the caller used. Names without an nrt_* counterpart stay as they are.
 */
static const char *const nrt_names[] = {
	"inspect_begin",
	"inspect_begin_with_options",
	"inspect_config_allocate",
	"inspect_config_free",
	"inspect_config_free_activity_types",
	"inspect_config_get_all_activity_types",
	"inspect_config_get_enabled_activity_types",
	"inspect_config_set_activity",
	"inspect_config_set_capture_enabled_for_event_type_string",
	"inspect_config_set_capture_enabled_for_nc",
	"inspect_config_set_defaults",
	"inspect_config_set_enable_inspect",
	"inspect_config_set_enable_inspect_on_fail",
	"inspect_config_set_output_dir",
	"inspect_config_set_session_id",
	"inspect_config_set_sys_trace_max_events_per_nc",
	"inspect_stop",
	"profile_continuous_options_allocate",
	"profile_continuous_options_free",
	"profile_continuous_options_set_output_dir",
	"profile_continuous_save",
	"profile_continuous_start",
	"profile_continuous_stop",
	"profile_start",
	"profile_stop",
	"sys_trace_buffer_free",
	"sys_trace_config_allocate",
	"sys_trace_config_free",
	"sys_trace_config_get_enabled_event_types",
	"sys_trace_config_set_capture_enabled_for_event_type",
	"sys_trace_config_set_capture_enabled_for_nc",
	"sys_trace_config_set_defaults",
	"sys_trace_config_set_max_events_per_nc",
	"sys_trace_fetch_events",
	"sys_trace_fetch_options_allocate",
	"sys_trace_fetch_options_free",
	"sys_trace_fetch_options_set_defaults",
	"sys_trace_fetch_options_set_max_events_per_nc",
	"sys_trace_fetch_options_set_nc_idx",
	"sys_trace_free_event_types",
	"sys_trace_get_event_types",
	"sys_trace_start",
	"sys_trace_stop",
};

static bool is_nrt_name(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(nrt_names) / sizeof(nrt_names[0]); i++)
		if (strlen(nrt_names[i]) == len && !strncmp(nrt_names[i], name, len))
			return true;
	return false;
}

void nrtprof_nrt_names(const char *msg, char *out, size_t size)
{
	size_t o = 0;

	if (!size)
		return;
	while (*msg && o + 1 < size) {
		if (!strncmp(msg, "nprof_", 6)) {
			const char *name = msg + 6;
			size_t len = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_");

			if (len && !strncmp(name + len, "()", 2) && is_nrt_name(name, len) &&
			    o + 4 + len + 1 < size) {
				memcpy(out + o, "nrt_", 4);
				memcpy(out + o + 4, name, len);
				o += 4 + len;
				msg = name + len;
				continue;
			}
		}
		out[o++] = *msg++;
	}
	out[o] = '\0';
}

NRT_STATUS nrtprof_status(const char *fn, int ret)
{
	char msg[sizeof(last_error)];

	if (ret >= 0)
		return NRT_SUCCESS;
	nrtprof_nrt_names(nprof_strerror_last(), msg, sizeof(msg));
	return nrtprof_error(fn, nrtprof_errno_status(-ret), msg);
}
