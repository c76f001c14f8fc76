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
 * It excludes inspect device profiling both ways, as the runtime does:
 * start refuses while an inspect session of this process captures device
 * profiles or while NEURON_RT_INSPECT_DEVICE_PROFILE asks for device
 * profiling, and the begin of an inspect session with device profiling
 * fails while this is enabled. Both sides decide under cont_lock: the
 * controller tells this mode when such a session begins and ends through
 * its ops (struct nprof_mode_ops).
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

#include <neuronprof/capture.h>
#include <neuronprof/ntff.h>
#include <neuronprof/profile.h>
#include <neuronprof/sys_trace.h>

#include "capture/capture_internal.h"
#include "capture/engines.h"
#include "config/config_internal.h"
#include "modes/modes.h"
#include "util/internal.h"

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

/* Protects slots and inspect_pid (cont_enabled changes under it too). */
static pthread_mutex_t cont_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot slots[NPROF_MAX_CORES];

/* The process whose inspect session captures device profiles (0: none), and where it writes. */
static pid_t inspect_pid;
static char inspect_dir[PATH_MAX];
static bool zero_copy_set;	/* start set the engines' options from the environment */

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

/*
 * A slot's stopped capture waits for a save; if continuous profiling was
 * stopped meanwhile, nobody will save it and it goes. Called locked.
 */
static void slot_stash(uint32_t vnc, struct slot *s)
{
	s->state = SLOT_STASHED;
	if (!atomic_load(&cont_enabled))
		slot_release(vnc, s);
}

NPROF_API int nprof_profile_continuous_start(const struct nprof_profile_continuous_options *opts)
{
	struct nprof_capture_opts zc = { .size = sizeof(zc), .flags = NPROF_CAPTURE_ZERO_COPY };
	int ret, mode, streaming;

	(void)opts;
	mode = nprof_env_device_profile_mode();
	if (mode < 0)
		return mode;
	streaming = nprof_env_streaming();
	if (streaming < 0)
		return streaming;
	if (mode != NPROF_DEVICE_PROFILE_DISABLED)
		return nprof_err(EBUSY,
				 "Please disable inspect device profiling (NEURON_RT_INSPECT_DEVICE_PROFILE=0) before starting continuous profiling: NEURON_RT_INSPECT_DEVICE_PROFILE=%s asks for it",
				 getenv("NEURON_RT_INSPECT_DEVICE_PROFILE"));
	pthread_mutex_lock(&cont_lock);
	if (inspect_pid == getpid()) {
		ret = nprof_err(EBUSY,
				"Please disable inspect device profiling (NEURON_RT_INSPECT_DEVICE_PROFILE=0) before starting continuous profiling: the inspect session writing into %s captures device profiles",
				inspect_dir);
	} else if (atomic_load(&cont_enabled)) {
		ret = nprof_err(EALREADY, "continuous profiling is already enabled");
	} else {
		/*
		 * Without an inspect session capturing device profiles (refused
		 * above) the environment says whether captures stream.
		 */
		if (!streaming) {
			nprof_rt_set_capture_opts(&zc);
			zero_copy_set = true;
		}
		/* Devices stay open while it is enabled, so captures find them. */
		nprof_rt_get();
		atomic_store(&cont_enabled, true);
		ret = 0;
	}
	pthread_mutex_unlock(&cont_lock);
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
	if (zero_copy_set) {
		nprof_rt_set_capture_opts(NULL);
		zero_copy_set = false;
	}
	pthread_mutex_unlock(&cont_lock);
	nprof_rt_put();
	return 0;
}

static void continuous_exec_begin(const struct nprof_session_view *v,
				  const struct nprof_model_info *m, struct nprof_exec_capture *ec)
{
	uint32_t vnc = m->vnc;
	struct slot *s = &slots[vnc];
	int ret;

	(void)v;
	ec->continuous_armed = false;
	if (!atomic_load(&cont_enabled))
		return;
	pthread_mutex_lock(&cont_lock);
	if (!atomic_load(&cont_enabled))
		goto out;
	if (s->state == SLOT_ARMED || s->state == SLOT_SAVING) {
		nprof_log(NPROF_LOG_DEBUG, "NC %u: continuous profiling is busy; execution of %s not captured",
			  vnc, m->name);
		goto out;
	}
	if (s->state == SLOT_STASHED) {
		/* A newer execution replaces the one not saved. */
		nprof_capture_session_drop(s->cap, s->local, s->sid);
	} else {
		ret = nprof_rt_capture_get(vnc, &s->cap, &s->local);
		if (ret) {
			nprof_log(NPROF_LOG_WARN, "continuous profiling of model %s on NC %u: %s",
				  m->name, vnc, nprof_err_current());
			goto out;
		}
	}
	s->model_id = m->id;
	ret = nprof_capture_session_start_for(s->cap, s->local, &s->model_id);
	if (ret) {
		nprof_log(NPROF_LOG_WARN, "continuous profiling of model %s on NC %u: %s",
			  m->name, vnc, nprof_err_current());
		s->state = SLOT_ARMED;	/* nothing stashed to drop */
		slot_release(vnc, s);
		goto out;
	}
	s->state = SLOT_ARMED;
	snprintf(s->model_name, sizeof(s->model_name), "%s", m->name);
	ec->continuous_armed = true;
out:
	pthread_mutex_unlock(&cont_lock);
}

static int continuous_exec_end(const struct nprof_session_view *v,
			       const struct nprof_model_info *m, struct nprof_exec_capture *ec,
			       uint32_t status)
{
	uint32_t vnc = m->vnc;
	struct slot *s = &slots[vnc];
	int ret;

	(void)v;
	(void)status;
	if (!ec->continuous_armed)
		return 0;
	ec->continuous_armed = false;
	pthread_mutex_lock(&cont_lock);
	ret = nprof_capture_session_stop(s->cap, s->local, &s->sid);
	if (ret) {
		nprof_log(NPROF_LOG_WARN, "continuous profiling of model %s on NC %u: %s",
			  s->model_name, vnc, nprof_err_current());
		slot_release(vnc, s);
	} else {
		slot_stash(vnc, s);
	}
	pthread_mutex_unlock(&cont_lock);
	return 0;
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
		slot_stash(vnc, s);
	}
	pthread_mutex_unlock(&cont_lock);
	return ret;
}

/*
 * An inspect session with device profiling begins: refused while this is
 * enabled; otherwise start refuses until the session ends.
 */
static int continuous_begin(const struct nprof_session_view *v)
{
	int ret = 0;

	if (!v->device)
		return 0;
	pthread_mutex_lock(&cont_lock);
	if (atomic_load(&cont_enabled)) {
		ret = nprof_err(EBUSY,
				"Continuous profiling is already enabled: stop it (nprof_profile_continuous_stop()) or disable inspect device profiling (NEURON_RT_INSPECT_DEVICE_PROFILE=0)");
	} else {
		inspect_pid = getpid();
		snprintf(inspect_dir, sizeof(inspect_dir), "%s", v->dir);
	}
	pthread_mutex_unlock(&cont_lock);
	return ret;
}

static void continuous_end_exclusion(const struct nprof_session_view *v)
{
	if (!v->device)
		return;
	pthread_mutex_lock(&cont_lock);
	if (inspect_pid == getpid())
		inspect_pid = 0;
	pthread_mutex_unlock(&cont_lock);
}

static int continuous_stop(const struct nprof_session_view *v, bool crash)
{
	/* A dying process takes no lock a crashed thread may hold. */
	if (!crash)
		continuous_end_exclusion(v);
	return 0;
}

const struct nprof_mode_ops nprof_mode_continuous = {
	.name = "continuous",
	.begin = continuous_begin,
	.abort = continuous_end_exclusion,
	.exec_begin = continuous_exec_begin,
	.exec_end = continuous_exec_end,
	.stop = continuous_stop,
};
