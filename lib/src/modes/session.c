// SPDX-License-Identifier: MIT
/*
 * SESSION capture (the seed's nrt_profile_session_* driven by the inspect
 * session): begin starts a capture session on every core the session
 * captures, rolling back every core armed so far if one fails; stop
 * harvests each into <session dir>/profile_nc_<n>_session_<id>.ntff.
 *
 * Capture windows: with a capture range (NEURON_RT_INSPECT_CAPTURE_EXECUTIONS)
 * or a control page (NPROF_CONTROL_FD_ENV, a tool's --delay and --control),
 * begin arms nothing; the execution hooks count each core's executions and
 * start its capture when an execution that is wanted begins (in the range,
 * and the control page says enabled), and stop and write it when one that
 * is not wanted begins, when the range's last execution ends, or at stop;
 * one that begins after the page's switch_seq changed ends the open window
 * and opens the next with it (a tool's --switch-output), and so does one
 * that begins once the window holds the page's switch_size bytes of
 * entries or more (--switch-output SIZE: the first execution boundary at
 * or after SIZE, so a file's entries pass SIZE by at most its last
 * execution's).
 * Each window is one file, and its description says which executions it
 * holds (exec_first, exec_last).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/ntff.h>

#include "capture/capture_internal.h"
#include "capture/capture_stream.h"
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

/*
 * Capture windows (the file's comment): per core, guarded by win_lock (the
 * execution hooks hold the inspect lock only shared).
 */
struct win_core {
	uint64_t count;			/* executions begun on the core this session */
	uint64_t first;			/* the execution the open window began with */
	uint64_t windows;		/* windows written: the next one's session id */
	uint64_t switch_seq;		/* the control page's switch_seq when it opened */
	bool open;			/* a window (capture session) is open */
	struct nprof_capture *cap;
	uint32_t local;
};

static pthread_mutex_t win_lock = PTHREAD_MUTEX_INITIALIZER;
static struct win_core win[NPROF_MAX_CORES];
static bool windowed;			/* this session captures in windows */

/*
 * The cores armed so far, in ascending order as they were armed, as runs:
 * "NC 8-10, 12" (global numbers, those of the file names).
 */
static void armed_list(char *buf, size_t len)
{
	size_t i, j, n = 0;

	buf[0] = '\0';
	for (i = 0; i < narmed && n < len; i = j) {
		for (j = i + 1; j < narmed && armed[j].vnc == armed[j - 1].vnc + 1; j++)
			;
		if (j - i > 1)
			n += (size_t)snprintf(buf + n, len - n, "%s%s%u-%u", i ? ", " : "",
					      i ? "" : "NC ", armed[i].vnc, armed[j - 1].vnc);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%s%u", i ? ", " : "",
					      i ? "" : "NC ", armed[i].vnc);
	}
}

/*
 * Disarm the cores armed so far, in the order they were armed; @failed_vnc
 * names the core that failed (UINT32_MAX: none, an abort).
 */
static void rollback_cores(uint32_t failed_vnc)
{
	char list[256], failed[64];
	bool all = true;
	size_t i;

	armed_list(list, sizeof(list));
	nprof_rt_nc_name(failed_vnc, failed, sizeof(failed));
	for (i = 0; i < narmed; i++) {
		struct armed_core *a = &armed[i];
		char name[64];
		uint64_t sid;
		int ret;

		ret = nprof_capture_session_stop(a->cap, a->local, &sid);
		if (!ret)
			ret = nprof_capture_session_drop(a->cap, a->local, sid);
		if (ret) {
			all = false;
			nprof_log(NPROF_LOG_ERROR, "cannot drop the profile session of %s: %s",
				  nprof_rt_nc_name(a->vnc, name, sizeof(name)), nprof_err_current());
		}
		nprof_rt_capture_put(a->vnc);
	}
	if (narmed && failed_vnc != UINT32_MAX)
		nprof_log(NPROF_LOG_INFO, "stopped and dropped the profile sessions of %s%s after the failure to start on %s",
			  list, all ? "" : " (not all: above)", failed);
	narmed = 0;
}

static int session_begin(const struct nprof_session_view *s)
{
	uint32_t n, vnc;
	int ret;

	if (!s->device || s->mode != NPROF_DEVICE_PROFILE_SESSION)
		return 0;
	pthread_mutex_lock(&win_lock);
	memset(win, 0, sizeof(win));
	windowed = s->exec_first || nprof_capture_control_present();
	pthread_mutex_unlock(&win_lock);
	if (windowed)
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
			char why[1024], name[64], list[256];

			snprintf(why, sizeof(why), "%s", nprof_err_current());
			nprof_rt_nc_name(vnc, name, sizeof(name));
			armed_list(list, sizeof(list));
			rollback_cores(vnc);
			free(armed);
			armed = NULL;
			if (!before)
				return nprof_err(-ret, "cannot start the device profile session on %s: %s",
						 name, why);
			return nprof_err(-ret,
					 "cannot start the device profile session on %s: %s (the sessions already started on %s were stopped and dropped)",
					 name, why, list);
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

/*
 * Whether core @vnc's open window holds @limit bytes of entries or more
 * (0: no limit). Called with win_lock held.
 */
static bool window_full(uint32_t vnc, uint64_t limit)
{
	struct win_core *w = &win[vnc];
	uint64_t bytes;

	return limit && !nprof_capture_session_bytes(w->cap, w->local, &bytes) && bytes >= limit;
}

/*
 * The harvest of one core's SESSION capture (@cap, @local): stop it and
 * write it into the session directory as described by @label, under the
 * name of window *@window (counted on when the stop succeeds) or, when
 * @window is NULL, of the engine's session id; dropped if it cannot be
 * written. The core's capture is released unless @crash.
 * Return: 0 or the -errno of the stop or the write, the message recorded
 * and logged.
 */
static int harvest_core(const struct nprof_session_view *s, struct nprof_capture *cap,
			uint32_t local, uint32_t vnc, const struct nprof_capture_label *label,
			uint64_t *window, bool crash)
{
	char name[NAME_MAX + 1];
	uint64_t sid;
	int ret;

	/* The engine records profile_stop and profile_serialize. */
	ret = nprof_capture_session_stop(cap, local, &sid);
	if (ret) {
		nprof_log(NPROF_LOG_ERROR, "Failed to stop device profile session on NC %u: %s", vnc,
			  nprof_err_current());
	} else {
		nprof_output_session_ntff_name(name, sizeof(name), vnc, window ? (*window)++ : sid);
		ret = nprof_mode_write_harvest(s, cap, local, sid, name, label);
	}
	if (!crash)
		nprof_rt_capture_put(vnc);
	return ret;
}

/*
 * Stop core @vnc's open window and write it, saying that it holds
 * executions w->first to @last. Called with win_lock held.
 */
static int window_close(const struct nprof_session_view *s, uint32_t vnc, uint64_t last, bool crash)
{
	struct win_core *w = &win[vnc];
	struct nprof_capture_label label = {
		.capture_kind = NPROF_NTFF_CAPTURE_SESSION,
		.has_core = true,
		.core = vnc,
		.exec_first = w->first,
		.exec_last = last,
		.has_session_id = true,
		.session_id = w->windows,
	};

	w->open = false;
	/*
	 * The engine closes between windows and counts its ids from 0 again:
	 * the session id of a window is its number on the core.
	 */
	return harvest_core(s, w->cap, w->local, vnc, &label, &w->windows, crash);
}

static bool session_windowed(const struct nprof_session_view *s, uint32_t vnc)
{
	return s && windowed && s->device && s->mode == NPROF_DEVICE_PROFILE_SESSION &&
	       vnc < NPROF_MAX_CORES && s->capture_nc[vnc];
}

static void session_exec_begin(const struct nprof_session_view *s, const struct nprof_model_info *m,
			       struct nprof_exec_capture *ec)
{
	uint32_t vnc = m->vnc;
	struct win_core *w = &win[vnc < NPROF_MAX_CORES ? vnc : 0];
	uint64_t sw = nprof_capture_control_switch();
	bool want;
	int ret;

	(void)ec;
	if (!session_windowed(s, vnc))
		return;
	pthread_mutex_lock(&win_lock);
	w->count++;
	want = (!s->exec_first || (w->count >= s->exec_first && w->count <= s->exec_last)) &&
	       nprof_capture_control_enabled();
	/*
	 * Not wanted any more, a switch asked for, or the window's size
	 * reached: the window ends before this execution.
	 */
	if (w->open && (!want || w->switch_seq != sw ||
			window_full(vnc, nprof_capture_control_switch_size())))
		window_close(s, vnc, w->count - 1, false);
	if (!w->open && want) {
		ret = nprof_rt_capture_start(vnc, NULL, &w->cap, &w->local);
		if (ret) {
			nprof_log(NPROF_LOG_WARN,
				  "execution %llu on NC %u: cannot start the device profile session: %s",
				  (unsigned long long)w->count, vnc, nprof_err_current());
		} else {
			w->open = true;
			w->first = w->count;
			w->switch_seq = sw;
		}
	}
	pthread_mutex_unlock(&win_lock);
}

static int session_exec_end(const struct nprof_session_view *s, const struct nprof_model_info *m,
			    struct nprof_exec_capture *ec, uint32_t status)
{
	uint32_t vnc = m->vnc;
	struct win_core *w = &win[vnc < NPROF_MAX_CORES ? vnc : 0];
	int ret = 0;

	(void)ec;
	(void)status;
	if (!session_windowed(s, vnc))
		return 0;
	pthread_mutex_lock(&win_lock);
	if (w->open && s->exec_first && w->count >= s->exec_last)
		ret = window_close(s, vnc, w->count, false);
	pthread_mutex_unlock(&win_lock);
	return ret;
}

static int session_stop(const struct nprof_session_view *s, bool crash)
{
	int ret = 0, r;
	size_t i;

	if (windowed) {
		pthread_mutex_lock(&win_lock);
		for (i = 0; i < NPROF_MAX_CORES; i++) {
			if (!win[i].open)
				continue;
			r = window_close(s, (uint32_t)i, win[i].count, crash);
			ret = keep_first(ret, r);
		}
		windowed = false;
		pthread_mutex_unlock(&win_lock);
		return ret;
	}

	for (i = 0; i < narmed; i++) {
		struct armed_core *a = &armed[i];
		struct nprof_capture_label label = {
			.capture_kind = NPROF_NTFF_CAPTURE_SESSION,
			.has_core = true,
			.core = a->vnc,
		};

		r = harvest_core(s, a->cap, a->local, a->vnc, &label, NULL, crash);
		ret = keep_first(ret, r);
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
	.exec_begin = session_exec_begin,
	.exec_end = session_exec_end,
	.stop = session_stop,
};
