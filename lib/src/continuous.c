// SPDX-License-Identifier: MIT
/*
 * Continuous profiling (the seed's nrt_profile_continuous_*): while it is
 * enabled every execution is captured on its core, and the last captured
 * execution of each core is kept (stashed in the capture engine, its
 * entries still in the rings) until nprof_profile_continuous_save() writes
 * it or the next execution on that core replaces it.
 *
 * Per core a slot moves IDLE -> ARMED (execution running) -> STASHED
 * (execution ended) -> SAVING (being written, outside the lock) -> IDLE.
 * A slot that is not IDLE holds a user of the device's capture engine.
 *
 * It excludes inspect device profiling both ways: start refuses while an
 * inspect session captures device profiles, and inspect begin refuses
 * device profiling while this is enabled.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/ntff.h>
#include <neuronprof/profile.h>
#include <neuronprof/sys_trace.h>

#include "capture_internal.h"
#include "inspect_internal.h"
#include "internal.h"

struct nprof_profile_continuous_options {
	char output_dir[PATH_MAX];
};

enum slot_state { SLOT_IDLE, SLOT_ARMED, SLOT_STASHED, SLOT_SAVING };

struct slot {
	enum slot_state state;
	struct nprof_capture *cap;
	uint32_t local;
	uint64_t sid;
	uint64_t model_id;
	char model_name[NPROF_MODEL_NAME_MAX + 1];
};

static atomic_bool cont_enabled;

/* Protects slots (cont_enabled changes under it too). */
static pthread_mutex_t cont_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot slots[NPROF_MAX_CORES];

bool nprof_continuous_enabled(void)
{
	return atomic_load(&cont_enabled);
}

NPROF_API int nprof_profile_continuous_is_enabled(void)
{
	return nprof_continuous_enabled();
}

NPROF_API struct nprof_profile_continuous_options *nprof_profile_continuous_options_allocate(void)
{
	struct nprof_profile_continuous_options *o = calloc(1, sizeof(*o));

	if (!o)
		return nprof_err_ptr(ENOMEM, "cannot allocate continuous profiling options");
	snprintf(o->output_dir, sizeof(o->output_dir), "%s", NPROF_DEFAULT_OUTPUT_DIR);
	return o;
}

NPROF_API void nprof_profile_continuous_options_free(struct nprof_profile_continuous_options *o)
{
	free(o);
}

NPROF_API int nprof_profile_continuous_options_set_output_dir(
	struct nprof_profile_continuous_options *o, const char *dir)
{
	if (!o || !dir || !*dir)
		return nprof_err(EINVAL, "continuous options or output directory is NULL or empty");
	if (strlen(dir) >= sizeof(o->output_dir))
		return nprof_err(ENAMETOOLONG, "output directory of %zu bytes is longer than PATH_MAX",
				 strlen(dir));
	snprintf(o->output_dir, sizeof(o->output_dir), "%s", dir);
	return 0;
}

NPROF_API const char *nprof_profile_continuous_options_get_output_dir(
	const struct nprof_profile_continuous_options *o)
{
	if (!o)
		return nprof_err_ptr(EINVAL, "continuous options are NULL");
	return o->output_dir;
}

/* Give a slot's capture back. Called locked. */
static void slot_release(uint32_t vnc, struct slot *s)
{
	if (s->state == SLOT_STASHED)
		nprof_capture_session_drop(s->cap, s->local, s->sid);
	nprof_rt_capture_put(vnc);
	s->state = SLOT_IDLE;
	s->cap = NULL;
}

NPROF_API int nprof_profile_continuous_start(const struct nprof_profile_continuous_options *opts)
{
	struct nprof_inspect_guard g;
	int ret = 0;

	(void)opts;
	/* Shared inspect lock: a begin cannot slip in between the check and the flag. */
	nprof_inspect_lock_shared(&g);
	if (nprof_inspect_device_profiling()) {
		ret = nprof_err(EBUSY,
				"Please disable inspect device profiling (NEURON_RT_INSPECT_DEVICE_PROFILE=0) before starting continuous profiling: the inspect session writing into %s captures device profiles",
				nprof_insp.dir);
		goto out;
	}
	pthread_mutex_lock(&cont_lock);
	if (atomic_load(&cont_enabled)) {
		ret = nprof_err(EALREADY, "continuous profiling is already enabled");
	} else {
		/* Devices stay open while it is enabled, so captures find them. */
		nprof_rt_get();
		atomic_store(&cont_enabled, true);
	}
	pthread_mutex_unlock(&cont_lock);
out:
	nprof_inspect_unlock(&g);
	return ret;
}

NPROF_API int nprof_profile_continuous_stop(void)
{
	uint32_t vnc;

	pthread_mutex_lock(&cont_lock);
	if (!atomic_load(&cont_enabled)) {
		pthread_mutex_unlock(&cont_lock);
		return nprof_err(EALREADY, "continuous profiling is not enabled");
	}
	atomic_store(&cont_enabled, false);
	for (vnc = 0; vnc < NPROF_MAX_CORES; vnc++)
		if (slots[vnc].state == SLOT_STASHED)
			slot_release(vnc, &slots[vnc]);
	/* ARMED and SAVING slots are released by their execution or save. */
	pthread_mutex_unlock(&cont_lock);
	nprof_rt_put();
	return 0;
}

void nprof_continuous_exec_begin(struct nprof_model *m, struct nprof_exec_capture *ec)
{
	uint32_t vnc = nprof_model_vnc_internal(m);
	struct slot *s = &slots[vnc];
	int ret;

	ec->continuous_armed = false;
	if (!atomic_load(&cont_enabled))
		return;
	pthread_mutex_lock(&cont_lock);
	if (!atomic_load(&cont_enabled))
		goto out;
	if (s->state == SLOT_ARMED || s->state == SLOT_SAVING) {
		nprof_log(NPROF_LOG_DEBUG, "NC %u: continuous profiling is busy; execution of %s not captured",
			  vnc, nprof_model_name_internal(m));
		goto out;
	}
	if (s->state == SLOT_STASHED) {
		/* A newer execution replaces the one not saved. */
		nprof_capture_session_drop(s->cap, s->local, s->sid);
	} else {
		ret = nprof_rt_capture_get(vnc, &s->cap, &s->local);
		if (ret) {
			nprof_log(NPROF_LOG_WARN, "continuous profiling of model %s on NC %u: %s",
				  nprof_model_name_internal(m), vnc, nprof_err_current());
			goto out;
		}
	}
	s->model_id = nprof_model_id_internal(m);
	ret = nprof_capture_session_start_for(s->cap, s->local, &s->model_id);
	if (ret) {
		nprof_log(NPROF_LOG_WARN, "continuous profiling of model %s on NC %u: %s",
			  nprof_model_name_internal(m), vnc, nprof_err_current());
		s->state = SLOT_ARMED;	/* nothing stashed to drop */
		slot_release(vnc, s);
		goto out;
	}
	s->state = SLOT_ARMED;
	snprintf(s->model_name, sizeof(s->model_name), "%s", nprof_model_name_internal(m));
	ec->continuous_armed = true;
out:
	pthread_mutex_unlock(&cont_lock);
}

void nprof_continuous_exec_end(struct nprof_model *m, struct nprof_exec_capture *ec,
			       uint32_t status)
{
	uint32_t vnc = nprof_model_vnc_internal(m);
	struct slot *s = &slots[vnc];
	int ret;

	(void)status;
	if (!ec->continuous_armed)
		return;
	ec->continuous_armed = false;
	pthread_mutex_lock(&cont_lock);
	ret = nprof_capture_session_stop(s->cap, s->local, &s->sid);
	if (ret) {
		nprof_log(NPROF_LOG_WARN, "continuous profiling of model %s on NC %u: %s",
			  s->model_name, vnc, nprof_err_current());
		slot_release(vnc, s);
	} else {
		s->state = SLOT_STASHED;
		if (!atomic_load(&cont_enabled))
			slot_release(vnc, s);
	}
	pthread_mutex_unlock(&cont_lock);
}

NPROF_API int nprof_profile_continuous_save(uint32_t vnc,
					    const struct nprof_profile_continuous_options *opts)
{
	char inst[NPROF_INSTANCE_ID_MAX + 1], name[NAME_MAX + 1];
	struct nprof_capture_label label;
	struct slot *s, snap;
	int ret, fd;

	if (!atomic_load(&cont_enabled))
		return nprof_err(EINVAL,
				 "To use nprof_profile_continuous_save() you must first call nprof_profile_continuous_start()");
	if (!opts || !opts->output_dir[0])
		return nprof_err(EINVAL, "continuous options are NULL or have no output directory");
	if (vnc >= NPROF_MAX_CORES)
		return nprof_err(EINVAL, "NC %u is out of range (0..%d)", vnc, NPROF_MAX_CORES - 1);
	s = &slots[vnc];
	pthread_mutex_lock(&cont_lock);
	switch (s->state) {
	case SLOT_IDLE:
		ret = nprof_err(ENOENT,
				"no execution on NC %u was captured since continuous profiling started or the last save",
				vnc);
		break;
	case SLOT_ARMED:
		ret = nprof_err(EBUSY, "an execution is in progress on NC %u; save after it ends", vnc);
		break;
	case SLOT_SAVING:
		ret = nprof_err(EBUSY, "a save of NC %u is in progress", vnc);
		break;
	default:
		s->state = SLOT_SAVING;
		snap = *s;
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&cont_lock);
	if (ret)
		return ret;

	/* Written outside the lock: a SAVING slot pins its stashed session. */
	ret = nprof_output_instance_id(NULL, inst, sizeof(inst));
	if (ret >= 0)
		ret = nprof_output_continuous_ntff_name(name, sizeof(name), snap.model_id, getpid(), vnc,
							inst, (int64_t)time(NULL));
	fd = -1;
	if (ret >= 0) {
		fd = nprof_output_mkdir_p(opts->output_dir, 0755);
		ret = fd < 0 ? fd : 0;
	}
	if (!ret) {
		memset(&label, 0, sizeof(label));
		label.capture_kind = NPROF_NTFF_CAPTURE_CONTINUOUS;
		label.has_core = true;
		label.core = vnc;
		label.model_name = snap.model_name;
		label.model_id = snap.model_id;
		ret = nprof_capture_session_serialize_named(snap.cap, snap.local, snap.sid, fd, name,
							    &label);
	}
	if (fd >= 0)
		close(fd);

	pthread_mutex_lock(&cont_lock);
	if (!ret) {
		/* Serialize unstashed it. */
		s->state = SLOT_ARMED;
		slot_release(vnc, s);
		nprof_log(NPROF_LOG_INFO, "continuous profile of NC %u saved as %s/%s", vnc,
			  opts->output_dir, name);
	} else {
		s->state = SLOT_STASHED;
		if (!atomic_load(&cont_enabled))
			slot_release(vnc, s);
	}
	pthread_mutex_unlock(&cont_lock);
	return ret;
}
