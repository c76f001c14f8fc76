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
 * wanted it.
 *
 * A capture range (NEURON_RT_INSPECT_CAPTURE_EXECUTIONS=A-B) counts each
 * model's executions on its core (per file name) from the session's begin
 * and captures executions A to B into the model's one file instead of the
 * first: execution A inserts and arms the record as above, the ends of
 * A to B-1 leave it armed, and the end of B (or the session's stop, which
 * writes what the window holds) completes and writes it, saying which
 * executions it holds. The core's capture stays on between them, so other
 * models' executions on the core in that time are in the file too. The controller calls all of this with the inspect lock held
 * shared, so a stop (exclusive) never runs in the middle; a stop abandons
 * the captures of executions in progress.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Executions of each MODEL file's model this session, for a capture range. */
struct range_count {
	char name[NAME_MAX + 1];
	uint64_t count;
};

static pthread_mutex_t range_lock = PTHREAD_MUTEX_INITIALIZER;
static struct range_count *ranges;
static size_t nranges, ranges_cap;

/* Count an execution of @name's model: its number from 1, or 0 without memory. */
static uint64_t range_next(const char *name)
{
	uint64_t n = 0;
	size_t i;

	pthread_mutex_lock(&range_lock);
	for (i = 0; i < nranges && strcmp(ranges[i].name, name); i++)
		;
	if (i == nranges) {
		if (nranges == ranges_cap) {
			size_t cap = ranges_cap ? 2 * ranges_cap : 16;
			struct range_count *r = realloc(ranges, cap * sizeof(*r));

			if (!r)
				goto out;
			ranges = r;
			ranges_cap = cap;
		}
		snprintf(ranges[i].name, sizeof(ranges[i].name), "%s", name);
		ranges[i].count = 0;
		nranges++;
	}
	n = ++ranges[i].count;
out:
	pthread_mutex_unlock(&range_lock);
	return n;
}

static uint64_t range_count_of(const char *name)
{
	uint64_t n = 0;

	pthread_mutex_lock(&range_lock);
	for (size_t i = 0; i < nranges; i++)
		if (!strcmp(ranges[i].name, name))
			n = ranges[i].count;
	pthread_mutex_unlock(&range_lock);
	return n;
}

static void ranges_clear(void)
{
	pthread_mutex_lock(&range_lock);
	free(ranges);
	ranges = NULL;
	nranges = ranges_cap = 0;
	pthread_mutex_unlock(&range_lock);
}

static void model_close(void)
{
	nprof_records_clear();
	ranges_clear();
}

/* A new session: forget the previous one's records and warnings. */
static int model_begin(const struct nprof_session_view *s)
{
	size_t i;

	(void)s;
	nprof_records_clear();
	ranges_clear();
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
	if (want && s->exec_first) {
		uint64_t n = range_next(r.name);

		if (n > s->exec_first && n <= s->exec_last) {
			/* Inside the window execution exec_first armed (if it could). */
			if (nprof_records_armed(r.name)) {
				ec->model_armed = true;
				ec->generation = s->generation;
				ec->range_n = n;
				snprintf(ec->record, sizeof(ec->record), "%s", r.name);
			}
			return;
		}
		if (n != s->exec_first)
			want = false;
		else
			ec->range_n = n;
		if (!want && !s->on_fail)
			return;
	}
	r.wanted = want;
	r.on_fail = s->on_fail;
	r.exec_first = ec->range_n;
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
	/* A range's window stays armed until its last execution ends. */
	if (ec->range_n && ec->range_n < s->exec_last)
		return 0;
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
	nprof_capture_label_model(&label, r.vnc, r.model_name, r.model_id);
	if (r.exec_first) {
		label.exec_first = r.exec_first;
		label.exec_last = ec->range_n;
	}
	ret = nprof_mode_write_harvest(s, r.cap, r.local, sid, r.name, &label);
	if (ret)
		goto put;
	if (failed && r.on_fail) {
		ret = nprof_onfail_salvage(s, r.name);
		if (ret)
			nprof_log(NPROF_LOG_ERROR, "%s", nprof_err_current());
	}
put:
	nprof_rt_capture_put(r.vnc);
	return ret;
}

/*
 * The session stops inside a range's window: write what it holds, executions
 * exec_first to the last one begun (which a stop during it cuts short).
 */
static void range_stop(const struct nprof_session_view *s, const struct nprof_record *r, bool crash)
{
	struct nprof_capture_label label;
	uint64_t sid;

	nprof_capture_label_model(&label, r->vnc, r->model_name, r->model_id);
	label.exec_first = r->exec_first;
	label.exec_last = range_count_of(r->name);
	if (label.exec_last < label.exec_first)
		label.exec_last = label.exec_first;
	if (!nprof_capture_session_stop(r->cap, r->local, &sid))
		nprof_mode_write_harvest(s, r->cap, r->local, sid, r->name, &label);
	if (!crash)
		nprof_rt_capture_put(r->vnc);
}

/* Stop and drop the armed captures of executions in flight. */
static int model_stop(const struct nprof_session_view *s, bool crash)
{
	struct nprof_record recs[ABANDON_BATCH];
	size_t n, i;

	n = nprof_records_abandon(recs, ABANDON_BATCH);
	if (n > ABANDON_BATCH)
		nprof_log(NPROF_LOG_WARN, "%zu executions in progress; %zu of their captures stay armed",
			  n, n - ABANDON_BATCH);
	for (i = 0; i < n && i < ABANDON_BATCH; i++) {
		struct nprof_record *r = &recs[i];
		uint64_t sid;

		if (!r->armed)
			continue;
		if (r->exec_first && s) {
			range_stop(s, r, crash);
			continue;
		}
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
	.close = model_close,
};
