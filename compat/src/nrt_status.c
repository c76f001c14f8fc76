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
#include <stdio.h>
#include <stdlib.h>
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

NRT_STATUS nrtprof_status(const char *fn, int ret)
{
	if (ret >= 0)
		return NRT_SUCCESS;
	return nrtprof_error(fn, nrtprof_errno_status(-ret), nprof_strerror_last());
}
