// SPDX-License-Identifier: MIT
/*
 * SESSION capture (the seed's nrt_profile_session_* driven by the inspect
 * session): begin starts a capture session on every core the session
 * captures, rolling back every core armed so far if one fails; stop
 * harvests each into <session dir>/profile_nc_<n>_session_<id>.ntff.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <neuronprof/ntff.h>

#include "capture/capture_internal.h"
#include "capture/engines.h"
#include "modes/modes.h"
#include "util/internal.h"

/* One core armed at begin. */
struct armed_core {
	uint32_t vnc;
	uint32_t local;
	struct nprof_capture *cap;
};

/* Guarded by the inspect lock (begin, abort and stop hold it exclusively). */
static struct armed_core *armed;
static size_t narmed;

/* Disarm the cores armed so far; @failed_vnc names the core that failed. */
static void rollback_cores(uint32_t failed_vnc)
{
	size_t i;

	for (i = narmed; i-- > 0;) {
		struct armed_core *a = &armed[i];
		uint64_t sid;
		int ret;

		ret = nprof_capture_session_stop(a->cap, a->local, &sid);
		if (!ret)
			ret = nprof_capture_session_drop(a->cap, a->local, sid);
		if (ret)
			nprof_log(NPROF_LOG_ERROR,
				  "Failed to cleanup session on NC %u after failure to start on NC %u: %s",
				  a->vnc, failed_vnc, nprof_err_current());
		else
			nprof_log(NPROF_LOG_INFO,
				  "stopped the profile session of NC %u after the failure to start on NC %u",
				  a->vnc, failed_vnc);
		nprof_rt_capture_put(a->vnc);
	}
	narmed = 0;
}

static int session_begin(const struct nprof_session_view *s)
{
	uint32_t n, vnc;
	int ret;

	if (!s->device || s->mode != NPROF_DEVICE_PROFILE_SESSION)
		return 0;
	n = nprof_rt_num_cores();
	if (!n) {
		struct nprof_device *dev;
		uint32_t local;

		nprof_rt_device(0, &dev, &local);
		nprof_log(NPROF_LOG_WARN, "device profiling in session mode: %s; no device profile will be written",
			  nprof_err_current());
		return 0;
	}
	armed = calloc(n, sizeof(*armed));
	if (!armed)
		return nprof_err(ENOMEM, "cannot allocate %u profile sessions", n);
	narmed = 0;
	for (vnc = 0; vnc < n && vnc < NPROF_MAX_CORES; vnc++) {
		struct armed_core *a = &armed[narmed];

		if (!s->capture_nc[vnc])
			continue;
		ret = nprof_rt_capture_start(vnc, NULL, &a->cap, &a->local);
		if (ret) {
			size_t before = narmed;
			char why[1024];

			snprintf(why, sizeof(why), "%s", nprof_err_current());
			rollback_cores(vnc);
			free(armed);
			armed = NULL;
			if (!before)
				return nprof_err(-ret, "cannot start the device profile session on NC %u: %s",
						 vnc, why);
			return nprof_err(-ret,
					 "cannot start the device profile session on NC %u: %s (the sessions already started on the cores before NC %u were stopped and dropped)",
					 vnc, why, vnc);
		}
		a->vnc = vnc;
		narmed++;
	}
	return 0;
}

static void session_abort(const struct nprof_session_view *s)
{
	(void)s;
	rollback_cores(UINT32_MAX);
	free(armed);
	armed = NULL;
}

static int keep_first(int ret, int r)
{
	return ret ? ret : r;
}

static int session_stop(const struct nprof_session_view *s, bool crash)
{
	int ret = 0, r;
	size_t i;

	for (i = 0; i < narmed; i++) {
		struct armed_core *a = &armed[i];
		struct nprof_capture_label label = {
			.capture_kind = NPROF_NTFF_CAPTURE_SESSION,
			.has_core = true,
			.core = a->vnc,
		};
		char name[NAME_MAX + 1];
		uint64_t sid;

		/* The engine records profile_stop and profile_serialize. */
		r = nprof_capture_session_stop(a->cap, a->local, &sid);
		if (r) {
			nprof_log(NPROF_LOG_ERROR, "Failed to stop device profile session on NC %u: %s",
				  a->vnc, nprof_err_current());
			ret = keep_first(ret, r);
		} else {
			nprof_output_session_ntff_name(name, sizeof(name), a->vnc, sid);
			r = nprof_capture_session_serialize_named(a->cap, a->local, sid, s->dirfd,
								  name, &label);
			if (r) {
				nprof_log(NPROF_LOG_ERROR, "cannot write the device profile of NC %u: %s",
					  a->vnc, nprof_err_current());
				ret = keep_first(ret, nprof_err(-r, "cannot write %s/%s: %s", s->dir,
								name, nprof_err_current()));
				nprof_capture_session_drop(a->cap, a->local, sid);
			}
		}
		if (!crash)
			nprof_rt_capture_put(a->vnc);
	}
	if (!crash) {
		free(armed);
		armed = NULL;
	}
	narmed = 0;
	return ret;
}

const struct nprof_mode_ops nprof_mode_session = {
	.name = "session",
	.begin = session_begin,
	.abort = session_abort,
	.stop = session_stop,
};
