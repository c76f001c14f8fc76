// SPDX-License-Identifier: MIT
/*
 * MODEL-keyed device profiles (the seed's nrt_inspect_device_profile_start /
 * _stop_internal and nrt_profile_start / _stop), on the SESSION capture
 * engine: a MODEL capture is a capture session of the model's core around
 * one execution, written under the model's file name with the model in its
 * description.
 *
 * Per-execution capture (inspect session): begin inserts the record
 * "<model>_vnc_<vnc>.ntff" (at most one per model per core per session) and
 * arms the core; end completes the record, harvests, and then:
 *  - writes the profile into the session directory if MODEL mode wanted it
 *    (the first execution of the model on the core);
 *  - else, if the execution failed and inspect-on-fail is on, writes it and
 *    moves it into the salvage directory (see inspect.c);
 *  - else drops the harvest unwritten and erases the record, so the next
 *    execution is captured again (on-fail capture only).
 * A failed execution's profile is moved into ./tmp also when MODEL mode
 * wanted it. All of this happens under the inspect lock held shared, so a
 * stop (exclusive) never runs in the middle; a stop abandons the captures
 * of executions in progress.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <neuronprof/ntff.h>
#include <neuronprof/profile.h>

#include "capture_internal.h"
#include "inspect_internal.h"
#include "internal.h"

/* In-flight captures abandoned by one stop without allocating. */
#define ABANDON_BATCH	64

/* ---- per-execution capture ------------------------------------------------------ */

/* Cores whose failure to arm was already logged at warning level in this session. */
static atomic_uchar arm_warned[NPROF_MAX_CORES];

void nprof_model_capture_reset(void)
{
	size_t i;

	nprof_records_clear();
	for (i = 0; i < NPROF_MAX_CORES; i++)
		atomic_store(&arm_warned[i], 0);
}

void nprof_model_capture_arm(struct nprof_model *m, struct nprof_exec_capture *ec)
{
	uint32_t vnc = nprof_model_vnc_internal(m);
	const char *model = nprof_model_name_internal(m);
	struct nprof_inspect_guard g;
	struct nprof_capture *cap;
	struct nprof_record r;
	uint32_t local;
	bool want;
	int ret;

	ec->model_armed = false;
	/* The common case, no session: no lock, no signal-mask system calls. */
	if (!nprof_inspect_active_pid())
		return;
	nprof_inspect_lock_shared(&g);
	if (!nprof_inspect_live() || !nprof_insp.capture_nc[vnc])
		goto out;
	want = nprof_insp.enable_inspect && nprof_insp.mode == NPROF_DEVICE_PROFILE_MODEL &&
	       (nprof_insp.activities & NPROF_ACTIVITY_DEVICE_PROFILE);
	if (!want && !nprof_insp.on_fail)
		goto out;
	if (nprof_continuous_enabled()) {
		nprof_log(atomic_exchange(&arm_warned[vnc], 1) ? NPROF_LOG_DEBUG : NPROF_LOG_WARN,
			  "Continuous profiling is already enabled: the execution of model %s on NC %u is not captured for inspect",
			  model, vnc);
		goto out;
	}
	memset(&r, 0, sizeof(r));
	if (nprof_output_model_ntff_name(r.name, sizeof(r.name), model, vnc) < 0) {
		nprof_log(NPROF_LOG_WARN, "model %s on NC %u: %s", model, vnc, nprof_err_current());
		goto out;
	}
	r.wanted = want;
	r.on_fail = nprof_insp.on_fail;
	r.vnc = vnc;
	r.model_id = nprof_model_id_internal(m);
	snprintf(r.model_name, sizeof(r.model_name), "%s", model);
	ret = nprof_records_insert(&r);
	if (ret) {
		/* -EEXIST: this model was already captured on this core. */
		if (ret != -EEXIST)
			nprof_log(NPROF_LOG_WARN, "%s", nprof_err_current());
		goto out;
	}
	ret = nprof_rt_capture_start(vnc, &r.model_id, &cap, &local);
	if (ret) {
		/* Once per core and session: on-fail would repeat it every execution. */
		nprof_log(atomic_exchange(&arm_warned[vnc], 1) ? NPROF_LOG_DEBUG : NPROF_LOG_WARN,
			  "the device profile of model %s on NC %u is not captured: %s", model, vnc,
			  nprof_err_current());
		nprof_records_erase(r.name);
		goto out;
	}
	nprof_records_set_armed(r.name, cap, local);
	ec->model_armed = true;
	ec->generation = nprof_insp.generation;
	snprintf(ec->record, sizeof(ec->record), "%s", r.name);
out:
	nprof_inspect_unlock(&g);
}

int nprof_model_capture_finish(struct nprof_model *m, struct nprof_exec_capture *ec,
			       uint32_t status)
{
	struct nprof_capture_label label;
	struct nprof_inspect_guard g;
	struct nprof_record r;
	bool failed = status != NPROF_EXEC_OK;
	uint64_t sid;
	int ret = 0;

	(void)m;
	if (!ec->model_armed)
		return 0;
	ec->model_armed = false;
	nprof_inspect_lock_shared(&g);
	if (ec->generation != nprof_insp.generation || !nprof_inspect_live()) {
		/*
		 * The session this execution was armed in was stopped (which
		 * abandoned the capture) and maybe another one begun.
		 */
		goto out;
	}
	ret = nprof_records_complete(ec->record, &r);
	if (ret) {
		nprof_log(NPROF_LOG_ERROR, "%s", nprof_err_current());
		goto out;
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
	ret = nprof_capture_session_serialize_named(r.cap, r.local, sid, nprof_insp.dirfd, r.name,
						    &label);
	if (ret) {
		ret = nprof_err(-ret, "cannot write %s/%s: %s", nprof_insp.dir, r.name,
				nprof_err_current());
		nprof_log(NPROF_LOG_ERROR, "%s", nprof_err_current());
		nprof_capture_session_drop(r.cap, r.local, sid);
		goto put;
	}
	if (failed && r.on_fail) {
		ret = nprof_inspect_salvage(r.name);
		if (ret)
			nprof_log(NPROF_LOG_ERROR, "%s", nprof_err_current());
	}
put:
	nprof_rt_capture_put(r.vnc);
out:
	nprof_inspect_unlock(&g);
	return ret;
}

void nprof_model_capture_abandon_all(bool crash)
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
		nprof_log(NPROF_LOG_WARN,
			  "model %s was still executing on NC %u when the session stopped: its device profile is abandoned",
			  r->model_name, r->vnc);
		if (!nprof_capture_session_stop(r->cap, r->local, &sid))
			nprof_capture_session_drop(r->cap, r->local, sid);
		if (!crash)
			nprof_rt_capture_put(r->vnc);
	}
}

/* ---- direct MODEL profiles: nprof_profile_start / _stop ------------------------- */

struct direct_profile {
	struct direct_profile *next;
	char filename[PATH_MAX];
	bool complete;
	uint32_t vnc;
	uint32_t local;
	struct nprof_capture *cap;
	uint64_t model_id;
	char model_name[NPROF_MODEL_NAME_MAX + 1];
};

/* Protects directs (the seed's requested_model_profiles). */
static pthread_mutex_t direct_lock = PTHREAD_MUTEX_INITIALIZER;
static struct direct_profile *directs;

static struct direct_profile *direct_find(const char *filename)
{
	struct direct_profile *d;

	for (d = directs; d; d = d->next)
		if (!strcmp(d->filename, filename))
			return d;
	return NULL;
}

NPROF_API int nprof_profile_start(struct nprof_model *m, const char *filename)
{
	struct direct_profile *d;
	struct nprof_capture *cap;
	uint32_t vnc, local;
	uint64_t model_id;
	bool fresh = false;
	int ret;

	if (!m || !filename || !*filename)
		return nprof_err(EINVAL, "model or file name is NULL or empty");
	if (strlen(filename) >= PATH_MAX)
		return nprof_err(ENAMETOOLONG, "file name of %zu bytes is longer than PATH_MAX",
				 strlen(filename));
	vnc = nprof_model_vnc_internal(m);
	pthread_mutex_lock(&direct_lock);
	d = direct_find(filename);
	if (d && !d->complete) {
		ret = nprof_err(EBUSY, "a profile is already being captured into %s", filename);
		goto out;
	}
	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d) {
			ret = nprof_err(ENOMEM, "cannot allocate the profile of %s", filename);
			goto out;
		}
		fresh = true;
	}
	/* The registry must be open to find the core: the model holds it open. */
	model_id = nprof_model_id_internal(m);
	ret = nprof_rt_capture_start(vnc, &model_id, &cap, &local);
	if (ret) {
		ret = nprof_err(-ret, "cannot start the profile of model %s on NC %u: %s",
				nprof_model_name_internal(m), vnc, nprof_err_current());
		if (fresh)
			free(d);
		goto out;
	}
	snprintf(d->filename, sizeof(d->filename), "%s", filename);
	d->complete = false;
	d->vnc = vnc;
	d->local = local;
	d->cap = cap;
	d->model_id = model_id;
	snprintf(d->model_name, sizeof(d->model_name), "%s", nprof_model_name_internal(m));
	if (fresh) {
		d->next = directs;
		directs = d;
	}
out:
	pthread_mutex_unlock(&direct_lock);
	return ret;
}

/* Split @path into a directory descriptor and the last component. */
static int open_parent(const char *path, const char **base)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd;

	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
		*base = path;
	} else {
		size_t len = slash == path ? 1 : (size_t)(slash - path);

		snprintf(dir, sizeof(dir), "%.*s", (int)len, path);
		*base = slash + 1;
	}
	if (!**base)
		return nprof_err(EINVAL, "%s names a directory, not a file", path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return nprof_err(errno, "cannot open directory %s: %s", dir, strerror(errno));
	return fd;
}

NPROF_API int nprof_profile_stop(const char *filename)
{
	struct nprof_capture_label label;
	struct direct_profile *d;
	const char *base;
	uint64_t sid;
	int ret, fd;

	if (!filename)
		return nprof_err(EINVAL, "file name is NULL");
	pthread_mutex_lock(&direct_lock);
	d = direct_find(filename);
	if (!d) {
		ret = nprof_err(ENOENT, "no profile was started for %s", filename);
		goto out;
	}
	if (d->complete) {
		ret = nprof_err(EALREADY, "Trying to stop already completed profile %s", filename);
		goto out;
	}
	d->complete = true;
	ret = nprof_capture_session_stop(d->cap, d->local, &sid);
	if (ret)
		goto put;
	fd = open_parent(filename, &base);
	if (fd < 0) {
		ret = fd;
		nprof_capture_session_drop(d->cap, d->local, sid);
		goto put;
	}
	memset(&label, 0, sizeof(label));
	label.capture_kind = NPROF_NTFF_CAPTURE_MODEL;
	label.has_core = true;
	label.core = d->vnc;
	label.model_name = d->model_name;
	label.model_id = d->model_id;
	ret = nprof_capture_session_serialize_named(d->cap, d->local, sid, fd, base, &label);
	close(fd);
	if (ret)
		nprof_capture_session_drop(d->cap, d->local, sid);
put:
	nprof_rt_capture_put(d->vnc);
	d->cap = NULL;
out:
	pthread_mutex_unlock(&direct_lock);
	return ret;
}
