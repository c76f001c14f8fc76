// SPDX-License-Identifier: MIT
/*
 * How a capture mode writes a harvested capture session into the session
 * directory (modes.h, nprof_mode_write_harvest()): SESSION's cores and
 * windows, MODEL's executions and ranges all go through it, so a file that
 * cannot be written is reported and dropped the same way in each.
 */
#include <errno.h>

#include "capture/capture_internal.h"
#include "modes/modes.h"
#include "util/internal.h"

int nprof_mode_write_harvest(const struct nprof_session_view *s, struct nprof_capture *cap,
			     uint32_t local, uint64_t sid, const char *name,
			     const struct nprof_capture_label *label)
{
	int ret = nprof_capture_session_serialize_named(cap, local, sid, s->dirfd, name, label);

	if (ret) {
		ret = nprof_err(-ret, "cannot write %s/%s: %s", s->dir, name, nprof_err_current());
		nprof_log(NPROF_LOG_ERROR, "%s", nprof_err_current());
		nprof_capture_session_drop(cap, local, sid);
	}
	return ret;
}
