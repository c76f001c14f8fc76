// SPDX-License-Identifier: MIT
/*
 * MODEL-keyed device profiles of the inspect session (the seed's
 * nrt_inspect_device_profile_start / _stop_internal), on the SESSION
 * capture engine: a MODEL capture is a capture session of the model's core
 * around one execution, written under the model's file name with the model
 * in its description. The same per-execution capture serves on-fail.
 *
 * Per-execution capture: begin inserts the record
 * "<model>_vnc_<interned id>.ntff" (at most one per loaded model per
 * session, see model/registry.h) and arms the core; end completes the
 * record, harvests, and then:
 *  - writes the profile into the session directory if MODEL mode wanted it
 *    (the first execution of the model on the core);
 *  - else, if the execution failed and inspect-on-fail is on, writes it and
 *    moves it into the salvage directory (onfail.c);
 *  - else drops the harvest unwritten and erases the record, so the next
 *    execution is captured again (on-fail capture only).
 * A failed execution's profile is moved into ./tmp also when MODEL mode
 * wanted it. The controller calls all of this with the inspect lock held
 * shared, so a stop (exclusive) never runs in the middle; a stop abandons
 * the captures of executions in progress.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <neuronprof/ntff.h>
#include <neuronprof/profile.h>

#include "capture/capture_internal.h"
#include "capture/capture_stream.h"
#include "capture/engines.h"
#include "modes/modes.h"
#include "util/internal.h"

/* In-flight captures abandoned by one stop without allocating. */
#define ABANDON_BATCH	64

/* Cores whose failure to arm was already logged at warning level in this session. */
static atomic_uchar arm_warned[NPROF_MAX_CORES];

/* A new session: forget the previous one's records and warnings. */
static int model_begin(const struct nprof_session_view *s)
{
	size_t i;

	(void)s;
	nprof_records_clear();
	for (i = 0; i < NPROF_MAX_CORES; i++)
		atomic_store(&arm_warned[i], 0);
	return 0;
}

static void model_exec_begin(const struct nprof_session_view *s, const struct nprof_model_info *m,
			     struct nprof_exec_capture *ec)
{
	uint32_t vnc = m->vnc;
	struct nprof_capture *cap;
	struct nprof_record r;
	uint32_t local;
	bool want;
	int ret;

	ec->model_armed = false;
	if (!s || !s->capture_nc[vnc])
		return;
	/* A tool's control page (--delay, --control) may keep capture off for now. */
	want = s->enable_inspect && s->mode == NPROF_DEVICE_PROFILE_MODEL && s->device &&
	       nprof_capture_control_enabled();
	if (!want && !s->on_fail)
		return;
	if (nprof_continuous_enabled()) {
		nprof_log(atomic_exchange(&arm_warned[vnc], 1) ? NPROF_LOG_DEBUG : NPROF_LOG_WARN,
			  "Continuous profiling is already enabled: the execution of model %s on NC %u is not captured for inspect",
			  m->name, vnc);
		return;
	}
	memset(&r, 0, sizeof(r));
	if (nprof_output_model_ntff_name(r.name, sizeof(r.name), m->name, m->interned) < 0) {
		nprof_log(NPROF_LOG_WARN, "model %s on NC %u: %s", m->name, vnc, nprof_err_current());
		return;
	}
	r.wanted = want;
	r.on_fail = s->on_fail;
	r.vnc = vnc;
	r.model_id = m->id;
	snprintf(r.model_name, sizeof(r.model_name), "%s", m->name);
	ret = nprof_records_insert(&r);
	if (ret) {
		/* -EEXIST: this model was already captured on this core. */
		if (ret != -EEXIST)
			nprof_log(NPROF_LOG_WARN, "%s", nprof_err_current());
		return;
	}
	ret = nprof_rt_capture_start(vnc, &r.model_id, &cap, &local);
	if (ret) {
		/* Once per core and session: on-fail would repeat it every execution. */
		nprof_log(atomic_exchange(&arm_warned[vnc], 1) ? NPROF_LOG_DEBUG : NPROF_LOG_WARN,
			  "the device profile of model %s on NC %u is not captured: %s", m->name, vnc,
			  nprof_err_current());
		nprof_records_erase(r.name);
		return;
	}
	nprof_records_set_armed(r.name, cap, local);
	ec->model_armed = true;
	ec->generation = s->generation;
	snprintf(ec->record, sizeof(ec->record), "%s", r.name);
}

static int model_exec_end(const struct nprof_session_view *s, const struct nprof_model_info *m,
			  struct nprof_exec_capture *ec, uint32_t status)
{
	struct nprof_capture_label label;
	struct nprof_record r;
	bool failed = status != NPROF_EXEC_OK;
	uint64_t sid;
	int ret = 0;

	(void)m;
	if (!ec->model_armed)
		return 0;
	ec->model_armed = false;
	if (!s || ec->generation != s->generation) {
		/*
		 * The session this execution was armed in was stopped (which
		 * abandoned the capture) and maybe another one begun.
		 */
		return 0;
	}
	ret = nprof_records_complete(ec->record, &r);
	if (ret) {
		nprof_log(NPROF_LOG_ERROR, "%s", nprof_err_current());
		return ret;
	}
	ret = nprof_capture_session_stop(r.cap, r.local, &sid);
	if (ret) {
		ret = nprof_err(-ret, "Failed to stop device profile session on NC %u: %s", r.vnc,
				nprof_err_current());
		nprof_records_erase(r.name);
		goto put;
	}
	if (!r.wanted && !(failed && r.on_fail)) {
		/*
		 * Nobody wants this profile. The seed writes it and removes the
		 * file; dropping the harvest unwritten ends the same way.
		 */
		nprof_capture_session_drop(r.cap, r.local, sid);
		nprof_records_erase(r.name);
		goto put;
	}
	memset(&label, 0, sizeof(label));
	label.capture_kind = NPROF_NTFF_CAPTURE_MODEL;
	label.has_core = true;
	label.core = r.vnc;
	label.model_name = r.model_name;
	label.model_id = r.model_id;
	ret = nprof_capture_session_serialize_named(r.cap, r.local, sid, s->dirfd, r.name, &label);
	if (ret) {
		ret = nprof_err(-ret, "cannot write %s/%s: %s", s->dir, r.name, nprof_err_current());
		nprof_log(NPROF_LOG_ERROR, "%s", nprof_err_current());
		nprof_capture_session_drop(r.cap, r.local, sid);
		goto put;
	}
	if (failed && r.on_fail) {
		ret = nprof_onfail_salvage(s, r.name);
		if (ret)
			nprof_log(NPROF_LOG_ERROR, "%s", nprof_err_current());
	}
put:
	nprof_rt_capture_put(r.vnc);
	return ret;
}

/* Stop and drop the armed captures of executions in flight. */
static int model_stop(const struct nprof_session_view *s, bool crash)
{
	struct nprof_record recs[ABANDON_BATCH];
	size_t n, i;

	(void)s;
	n = nprof_records_abandon(recs, ABANDON_BATCH);
	if (n > ABANDON_BATCH)
		nprof_log(NPROF_LOG_WARN, "%zu executions in progress; %zu of their captures stay armed",
			  n, n - ABANDON_BATCH);
	for (i = 0; i < n && i < ABANDON_BATCH; i++) {
		struct nprof_record *r = &recs[i];
		uint64_t sid;

		if (!r->armed)
			continue;
		nprof_log(NPROF_LOG_WARN,
			  "model %s was still executing on NC %u when the session stopped: its device profile is abandoned",
			  r->model_name, r->vnc);
		if (!nprof_capture_session_stop(r->cap, r->local, &sid))
			nprof_capture_session_drop(r->cap, r->local, sid);
		if (!crash)
			nprof_rt_capture_put(r->vnc);
	}
	return 0;
}

const struct nprof_mode_ops nprof_mode_model = {
	.name = "model",
	.begin = model_begin,
	.exec_begin = model_exec_begin,
	.exec_end = model_exec_end,
	.stop = model_stop,
	.close = nprof_records_clear,
};
