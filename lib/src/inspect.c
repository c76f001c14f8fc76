// SPDX-License-Identifier: MIT
/*
 * The inspect session controller (the seed's nrt_inspect_*): one
 * process-wide session under one rwlock; begin resolves the output
 * directory and fans out to the activities with rollback; stop is the one
 * fused harvest-and-serialize point, which the crash flush and the atexit
 * hook (crash.c) also run; close releases what the session left behind,
 * including the profiles salvaged into ./tmp.
 *
 * Lock order: the inspect lock, then the record map's, the continuous
 * profiler's and the device registry's own locks, then the capture
 * engine's. Nothing that holds one of those takes the inspect lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/inspect.h>
#include <neuronprof/ntff.h>
#include <neuronprof/sys_trace.h>

#include "capture_internal.h"
#include "inspect_internal.h"
#include "internal.h"

/* The monitor's period in a session; see Documentation/inspect.rst. */
#define INSPECT_MONITOR_PERIOD_MS	1000

struct nprof_inspect_state nprof_insp = { .dirfd = -1 };

/* Protects nprof_insp. */
static pthread_rwlock_t insp_lock = PTHREAD_RWLOCK_INITIALIZER;

/* The pid of the active session, 0 if none: what the crash flush peeks at unlocked. */
static _Atomic pid_t active_pid;

pid_t nprof_inspect_active_pid(void)
{
	return atomic_load(&active_pid);
}

__thread int nprof_inspect_lock_depth __attribute__((tls_model("initial-exec")));

static void block_async_signals(sigset_t *saved)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &s, saved);
}

void nprof_inspect_lock_shared(struct nprof_inspect_guard *g)
{
	block_async_signals(&g->saved);
	pthread_rwlock_rdlock(&insp_lock);
	nprof_inspect_lock_depth++;
}

void nprof_inspect_lock_excl(struct nprof_inspect_guard *g)
{
	block_async_signals(&g->saved);
	pthread_rwlock_wrlock(&insp_lock);
	nprof_inspect_lock_depth++;
}

void nprof_inspect_unlock(struct nprof_inspect_guard *g)
{
	nprof_inspect_lock_depth--;
	pthread_rwlock_unlock(&insp_lock);
	pthread_sigmask(SIG_SETMASK, &g->saved, NULL);
}

int nprof_inspect_trylock_excl(unsigned int wait_ms)
{
	struct timespec ts = { 0, 1000000 };
	unsigned int waited = 0;

	if (nprof_inspect_lock_depth)
		return -EDEADLK;
	while (pthread_rwlock_trywrlock(&insp_lock)) {
		if (waited++ >= wait_ms)
			return -ETIMEDOUT;
		nanosleep(&ts, NULL);
	}
	nprof_inspect_lock_depth++;
	return 0;
}

void nprof_inspect_unlock_raw(void)
{
	nprof_inspect_lock_depth--;
	pthread_rwlock_unlock(&insp_lock);
}

bool nprof_inspect_live(void)
{
	return nprof_insp.active && nprof_insp.pid == getpid();
}

bool nprof_inspect_device_profiling(void)
{
	return nprof_inspect_live() && (nprof_insp.activities & NPROF_ACTIVITY_DEVICE_PROFILE) &&
	       nprof_insp.mode != NPROF_DEVICE_PROFILE_DISABLED;
}

/*
 * A session inherited over fork() belongs to the parent: its descriptors,
 * subscriptions and threads are the parent's. The child forgets it without
 * touching any of it.
 */
static void forget_inherited(void)
{
	if (nprof_insp.active && nprof_insp.pid != getpid()) {
		nprof_log(NPROF_LOG_DEBUG, "forgetting the inspect session of process %ld",
			  (long)nprof_insp.pid);
		memset(&nprof_insp, 0, sizeof(nprof_insp));
		nprof_insp.dirfd = -1;
	}
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- salvage ----------------------------------------------------------------- */

/*
 * Profiles of failed executions moved into ./tmp/<instance_id>-<pid>/. Only
 * files this process put there are ever removed; the directory is reached
 * through descriptors, so a later chdir() changes nothing.
 */
struct salvaged {
	struct salvaged *next;
	char name[NAME_MAX + 1];
};

/* Protects every member of salv. */
static pthread_mutex_t salv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int cwdfd;		/* directory holding tmp/, -1 until the first salvage */
	int dirfd;		/* tmp/<instance_id>-<pid> */
	pid_t pid;
	char sub[NPROF_INSTANCE_ID_MAX + 32];
	struct salvaged *files;
} salv = { .cwdfd = -1, .dirfd = -1 };

static int salvage_subdir(char *buf, size_t len)
{
	char inst[NPROF_INSTANCE_ID_MAX + 1];
	int ret, n;

	if (nprof_insp.instance_id[0]) {
		snprintf(inst, sizeof(inst), "%s", nprof_insp.instance_id);
	} else {
		ret = nprof_output_instance_id(NULL, inst, sizeof(inst));
		if (ret < 0)
			return ret;
	}
	n = snprintf(buf, len, "%s-%ld", inst, (long)getpid());
	if (n < 0 || (size_t)n >= len)
		return nprof_err(ENAMETOOLONG, "salvage directory name does not fit in %zu bytes", len);
	return n;
}

/* Open (creating) the salvage directory. Called with salv_lock held. */
static int salvage_open(void)
{
	char path[sizeof(salv.sub) + 16];
	int ret;

	if (salv.dirfd >= 0 && salv.pid == getpid())
		return 0;
	salv.dirfd = -1;
	salv.cwdfd = -1;
	salv.files = NULL;
	ret = salvage_subdir(salv.sub, sizeof(salv.sub));
	if (ret < 0)
		return ret;
	salv.cwdfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (salv.cwdfd < 0)
		return nprof_err(errno, "cannot open the current directory: %s", strerror(errno));
	snprintf(path, sizeof(path), NPROF_OUTPUT_FAIL_DIR "/%s", salv.sub);
	ret = nprof_output_mkdir_p(path, 0755);
	if (ret < 0) {
		close(salv.cwdfd);
		salv.cwdfd = -1;
		return ret;
	}
	salv.dirfd = ret;
	salv.pid = getpid();
	return 0;
}

int nprof_inspect_salvage(const char *name)
{
	struct salvaged *s;
	int ret;

	pthread_mutex_lock(&salv_lock);
	ret = salvage_open();
	if (ret)
		goto out;
	if (renameat(nprof_insp.dirfd, name, salv.dirfd, name)) {
		ret = nprof_err(errno, "cannot move %s/%s to " NPROF_OUTPUT_FAIL_DIR "/%s/%s: %s",
				nprof_insp.dir, name, salv.sub, name, strerror(errno));
		goto out;
	}
	nprof_log(NPROF_LOG_INFO, "Move %s/%s to " NPROF_OUTPUT_FAIL_DIR "/%s/%s", nprof_insp.dir,
		  name, salv.sub, name);
	for (s = salv.files; s; s = s->next)
		if (!strcmp(s->name, name))
			goto out;
	s = calloc(1, sizeof(*s));
	if (!s) {
		/* The file stays; only its removal at close is lost. */
		nprof_log(NPROF_LOG_WARN, "cannot remember salvaged file %s: out of memory", name);
		goto out;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->next = salv.files;
	salv.files = s;
out:
	pthread_mutex_unlock(&salv_lock);
	return ret;
}

/* Remove what this process salvaged, then the directories if empty. */
static void salvage_cleanup(void)
{
	char path[sizeof(salv.sub) + 16];
	struct salvaged *s;

	pthread_mutex_lock(&salv_lock);
	if (salv.dirfd < 0 || salv.pid != getpid())
		goto out;
	while (salv.files) {
		s = salv.files;
		salv.files = s->next;
		if (unlinkat(salv.dirfd, s->name, 0) && errno != ENOENT)
			nprof_log(NPROF_LOG_WARN, "cannot remove " NPROF_OUTPUT_FAIL_DIR "/%s/%s: %s",
				  salv.sub, s->name, strerror(errno));
		free(s);
	}
	close(salv.dirfd);
	salv.dirfd = -1;
	snprintf(path, sizeof(path), "tmp/%s", salv.sub);
	/* Directories that still hold someone else's files stay. */
	if (unlinkat(salv.cwdfd, path, AT_REMOVEDIR) && errno != ENOENT)
		nprof_log(NPROF_LOG_DEBUG, "keeping " NPROF_OUTPUT_FAIL_DIR "/%s: %s", salv.sub,
			  strerror(errno));
	if (unlinkat(salv.cwdfd, "tmp", AT_REMOVEDIR) && errno != ENOENT)
		nprof_log(NPROF_LOG_DEBUG, "keeping " NPROF_OUTPUT_FAIL_DIR ": %s", strerror(errno));
	close(salv.cwdfd);
	salv.cwdfd = -1;
out:
	pthread_mutex_unlock(&salv_lock);
}

NPROF_API int nprof_inspect_salvage_dir(char *buf, size_t len)
{
	char sub[sizeof(salv.sub)];
	int n;

	if (!buf)
		return nprof_err(EINVAL, "buffer is NULL");
	n = salvage_subdir(sub, sizeof(sub));
	if (n < 0)
		return n;
	n = snprintf(buf, len, NPROF_OUTPUT_FAIL_DIR "/%s", sub);
	if (n < 0 || (size_t)n >= len)
		return nprof_err(ENAMETOOLONG, "salvage directory does not fit in %zu bytes", len);
	return n;
}

/* ---- begin -------------------------------------------------------------------- */

static void trace_point(uint32_t type, uint64_t start_ns)
{
	nprof_sys_trace_record(type, NPROF_SYS_TRACE_SRC_NEURON_RT, NPROF_SYS_TRACE_NO_CORE,
			       start_ns, nprof_sys_trace_now());
}

/* Remove the directories begin created, as far as they are empty. */
static void remove_session_dir(void)
{
	char *slash;

	if (!nprof_insp.dir[0])
		return;
	if (rmdir(nprof_insp.dir))
		return;
	slash = strrchr(nprof_insp.dir, '/');
	if (slash) {
		*slash = '\0';
		rmdir(nprof_insp.dir);
		*slash = '/';
	}
}

/* Disarm the SESSION cores armed so far; @failed_vnc names the core that failed. */
static void rollback_cores(uint32_t failed_vnc)
{
	size_t i;

	for (i = nprof_insp.narmed; i-- > 0;) {
		struct nprof_armed_core *a = &nprof_insp.armed[i];
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
	nprof_insp.narmed = 0;
}

/* Undo everything begin_locked() armed; the state goes back to idle. */
static void rollback(uint32_t failed_vnc)
{
	rollback_cores(failed_vnc);
	free(nprof_insp.armed);
	nprof_insp.armed = NULL;
	if (nprof_insp.rt_ref)
		nprof_rt_put();
	nprof_rt_set_capture_opts(NULL);
	if (nprof_insp.monitor)
		nprof_monitor_free(nprof_insp.monitor);
	if (nprof_insp.sys_trace_owned) {
		nprof_sys_trace_stop();
		nprof_sys_trace_release();
	}
	if (nprof_insp.dirfd >= 0)
		close(nprof_insp.dirfd);
	remove_session_dir();
	memset(&nprof_insp, 0, sizeof(nprof_insp));
	nprof_insp.dirfd = -1;
}

static int arm_sessions(void)
{
	uint32_t n = nprof_rt_num_cores(), vnc;
	int ret;

	if (!n) {
		struct nprof_device *dev;
		uint32_t local;

		nprof_rt_device(0, &dev, &local);
		nprof_log(NPROF_LOG_WARN, "device profiling in session mode: %s; no device profile will be written",
			  nprof_err_current());
		return 0;
	}
	nprof_insp.armed = calloc(n, sizeof(*nprof_insp.armed));
	if (!nprof_insp.armed)
		return nprof_err(ENOMEM, "cannot allocate %u profile sessions", n);
	for (vnc = 0; vnc < n && vnc < NPROF_MAX_CORES; vnc++) {
		struct nprof_armed_core *a = &nprof_insp.armed[nprof_insp.narmed];

		if (!nprof_insp.capture_nc[vnc])
			continue;
		ret = nprof_rt_capture_start(vnc, NULL, &a->cap, &a->local);
		if (ret) {
			size_t before = nprof_insp.narmed;
			char why[1024];

			snprintf(why, sizeof(why), "%s", nprof_err_current());
			rollback_cores(vnc);
			if (!before)
				return nprof_err(-ret, "cannot start the device profile session on NC %u: %s",
						 vnc, why);
			return nprof_err(-ret,
					 "cannot start the device profile session on NC %u: %s (the sessions already started on the cores before NC %u were stopped and dropped)",
					 vnc, why, vnc);
		}
		a->vnc = vnc;
		nprof_insp.narmed++;
	}
	return 0;
}

static int begin_locked(struct nprof_inspect_config *cfg)
{
	struct nprof_capture_opts copts = { .size = sizeof(copts) };
	const char *base = nprof_inspect_config_get_output_dir(cfg);
	unsigned int acts;
	bool device;
	int ret, fd, i;

	nprof_insp.enable_inspect = nprof_inspect_config_get_enable_inspect(cfg) == 1;
	nprof_insp.on_fail = nprof_inspect_config_get_enable_inspect_on_fail(cfg) == 1;
	if (!nprof_insp.enable_inspect && !nprof_insp.on_fail) {
		nprof_log(NPROF_LOG_WARN,
			  "inspect and inspect-on-fail are both off in this configuration: no inspect session begins");
		return 0;
	}
	acts = nprof_insp.enable_inspect ? (unsigned int)nprof_inspect_config_get_activity_mask(cfg) : 0;
	nprof_insp.mode = (enum nprof_device_profile_mode)nprof_inspect_config_get_device_profile_mode(cfg);
	device = (acts & NPROF_ACTIVITY_DEVICE_PROFILE) && nprof_insp.mode != NPROF_DEVICE_PROFILE_DISABLED;
	if (device && nprof_continuous_enabled())
		return nprof_err(EBUSY,
				 "Continuous profiling is already enabled: stop it (nprof_profile_continuous_stop()) or disable inspect device profiling (NEURON_RT_INSPECT_DEVICE_PROFILE=0)");
	if (!device)
		acts &= ~(unsigned int)NPROF_ACTIVITY_DEVICE_PROFILE;
	nprof_insp.session_id = nprof_inspect_config_get_session_id(cfg);
	for (i = 0; i < NPROF_MAX_CORES; i++)
		nprof_insp.capture_nc[i] = nprof_inspect_config_get_capture_enabled_for_nc(cfg, (uint32_t)i) == 1;

	if (!base || !*base) {
		nprof_log(NPROF_LOG_INFO, "provided inspect output directory is empty. Defaulting to %s",
			  NPROF_DEFAULT_OUTPUT_DIR);
		base = NPROF_DEFAULT_OUTPUT_DIR;
	}
	ret = nprof_output_check_base(base);
	if (ret)
		goto fail;
	ret = nprof_output_instance_id(NULL, nprof_insp.instance_id, sizeof(nprof_insp.instance_id));
	if (ret < 0)
		goto fail;
	nprof_insp.init_ns = clock_ns(CLOCK_REALTIME);
	nprof_insp.pid = getpid();
	ret = nprof_output_session_dir(base, nprof_insp.instance_id, nprof_insp.pid, nprof_insp.init_ns,
				       nprof_insp.dir, sizeof(nprof_insp.dir));
	if (ret < 0)
		goto fail;
	fd = nprof_output_mkdir_p(nprof_insp.dir, 0755);
	if (fd < 0) {
		ret = fd;
		goto fail;
	}
	nprof_insp.dirfd = fd;

	if (acts & NPROF_ACTIVITY_SYSTEM_PROFILE) {
		ret = nprof_sys_trace_start(nprof_inspect_config_sys_trace(cfg));
		if (ret == -EBUSY) {
			nprof_log(NPROF_LOG_WARN,
				  "the system trace is already active: the session writes it at stop but leaves it running");
		} else if (ret) {
			ret = nprof_err(-ret, "cannot start the system trace: %s", nprof_err_current());
			goto fail;
		} else {
			nprof_insp.sys_trace_owned = true;
		}
	}
	if (acts & (NPROF_ACTIVITY_CPU_UTIL | NPROF_ACTIVITY_HOST_MEMORY)) {
		struct nprof_monitor_opts mo = {
			.size = sizeof(mo),
			.period_ms = INSPECT_MONITOR_PERIOD_MS,
			.what = ((acts & NPROF_ACTIVITY_CPU_UTIL) ? NPROF_MONITOR_CPU : 0) |
				((acts & NPROF_ACTIVITY_HOST_MEMORY) ? NPROF_MONITOR_MEMORY : 0),
		};

		nprof_insp.monitor = nprof_monitor_start(&mo);
		if (!nprof_insp.monitor) {
			ret = nprof_err(errno, "cannot start the system monitor: %s", nprof_err_current());
			goto fail;
		}
	}
	if (device || nprof_insp.on_fail) {
		/* Captures of this session use its ring sizes. */
		ret = nprof_capture_opts_from_config(&copts, cfg);
		if (ret)
			goto fail;
		nprof_rt_set_capture_opts(&copts);
		nprof_rt_get();
		nprof_insp.rt_ref = true;
	}
	nprof_insp.activities = acts;
	if (device && nprof_insp.mode == NPROF_DEVICE_PROFILE_SESSION) {
		ret = arm_sessions();
		if (ret)
			goto fail;
	}
	nprof_model_capture_reset();
	nprof_insp.generation++;
	nprof_insp.active = true;
	atomic_store(&active_pid, nprof_insp.pid);
	nprof_insp.on_fail_seen |= nprof_insp.on_fail;
	trace_point(NPROF_EV_INSPECT_BEGIN, nprof_sys_trace_now());
	nprof_log(NPROF_LOG_INFO, "inspect session begun in %s", nprof_insp.dir);
	return 0;
fail:
	{
		char why[1024];
		bool seen = nprof_insp.on_fail_seen;
		uint64_t gen = nprof_insp.generation;

		snprintf(why, sizeof(why), "%s", nprof_err_current());
		rollback(UINT32_MAX);
		nprof_insp.on_fail_seen = seen;
		nprof_insp.generation = gen;
		nprof_err(-ret, "%s", why);
	}
	return ret;
}

NPROF_API int nprof_inspect_begin_with_options(const struct nprof_inspect_config *cfg)
{
	struct nprof_inspect_config *copy;
	struct nprof_inspect_guard g;
	int ret;

	if (!cfg)
		return nprof_err(EINVAL, "nprof_inspect_begin_with_options() called with null options");
	/* A private copy: the system-trace part is reached through a non-const accessor. */
	copy = nprof_inspect_config_allocate();
	if (!copy)
		return nprof_err(ENOMEM, "cannot allocate a copy of the inspect configuration");
	ret = nprof_inspect_config_copy(copy, cfg);
	if (ret) {
		nprof_inspect_config_free(copy);
		return ret;
	}
	nprof_crash_install();
	nprof_inspect_lock_excl(&g);
	forget_inherited();
	if (nprof_inspect_live())
		ret = nprof_err(EBUSY, "an inspect session is already active (writing into %s); stop it first",
				nprof_insp.dir);
	else
		ret = begin_locked(copy);
	nprof_inspect_unlock(&g);
	nprof_inspect_config_free(copy);
	return ret;
}

NPROF_API int nprof_inspect_begin(void)
{
	struct nprof_inspect_config *cfg;
	int ret;

	cfg = nprof_inspect_config_allocate();
	if (!cfg)
		return nprof_err(ENOMEM, "cannot allocate an inspect configuration");
	ret = nprof_inspect_config_parse_env(cfg, NULL, NULL);
	if (ret) {
		nprof_inspect_config_free(cfg);
		return ret;
	}
	if (nprof_inspect_config_get_enable_inspect(cfg) != 1 &&
	    nprof_inspect_config_get_enable_inspect_on_fail(cfg) != 1) {
		nprof_log(NPROF_LOG_INFO,
			  "NEURON_RT_INSPECT_ENABLE and NEURON_RT_INSPECT_ON_FAIL are not 1: no inspect session");
		nprof_inspect_config_free(cfg);
		return 0;
	}
	ret = nprof_inspect_begin_with_options(cfg);
	nprof_inspect_config_free(cfg);
	return ret;
}

/* ---- stop: the fused harvest --------------------------------------------------- */

static int keep_first(int ret, int r)
{
	return ret ? ret : r;
}

static int harvest_cores(bool crash)
{
	int ret = 0, r;
	size_t i;

	for (i = 0; i < nprof_insp.narmed; i++) {
		struct nprof_armed_core *a = &nprof_insp.armed[i];
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
			r = nprof_capture_session_serialize_named(a->cap, a->local, sid, nprof_insp.dirfd,
								  name, &label);
			if (r) {
				nprof_log(NPROF_LOG_ERROR, "cannot write the device profile of NC %u: %s",
					  a->vnc, nprof_err_current());
				ret = keep_first(ret, nprof_err(-r, "cannot write %s/%s: %s",
								nprof_insp.dir, name,
								nprof_err_current()));
				nprof_capture_session_drop(a->cap, a->local, sid);
			}
		}
		if (!crash)
			nprof_rt_capture_put(a->vnc);
	}
	if (!crash) {
		free(nprof_insp.armed);
		nprof_insp.armed = NULL;
	}
	nprof_insp.narmed = 0;
	return ret;
}

int nprof_inspect_harvest_locked(bool crash)
{
	uint64_t t0 = nprof_sys_trace_now();
	unsigned int files = 0;
	int ret = 0, r;

	nprof_model_capture_abandon_all(crash);
	ret = harvest_cores(crash);

	trace_point(NPROF_EV_INSPECT_STOP, t0);
	if (nprof_insp.monitor) {
		r = nprof_monitor_stop(nprof_insp.monitor);
		if (r && r != -EALREADY)
			nprof_log(NPROF_LOG_WARN, "system monitor: %s", nprof_err_current());
	}
	if (nprof_insp.sys_trace_owned)
		nprof_sys_trace_stop();

	/*
	 * The seed skips this when the output is /dev/null; begin refuses
	 * /dev/null here, so there is no such case.
	 */
	if (nprof_insp.activities & NPROF_ACTIVITY_SYSTEM_PROFILE)
		files |= NPROF_SYSPROF_NTRACE | NPROF_SYSPROF_TRACE_INFO;
	if (nprof_insp.activities & NPROF_ACTIVITY_CPU_UTIL)
		files |= NPROF_SYSPROF_CPU_UTIL;
	if (nprof_insp.activities & NPROF_ACTIVITY_HOST_MEMORY)
		files |= NPROF_SYSPROF_HOST_MEM;
	if (files) {
		struct nprof_system_profile_opts so = {
			.size = sizeof(so),
			.files = files,
			.instance_id = nprof_insp.instance_id,
			.session_init_ns = nprof_insp.init_ns,
			.monitor = nprof_insp.monitor,
		};
		uint64_t w0 = clock_ns(CLOCK_MONOTONIC);

		r = nprof_system_profile_writeat(nprof_insp.dirfd, &so);
		if (r) {
			nprof_log(NPROF_LOG_ERROR, "cannot write the system profile into %s: %s",
				  nprof_insp.dir, nprof_err_current());
			ret = keep_first(ret, r);
		} else {
			nprof_log(NPROF_LOG_INFO, "Dumped system profile snapshot in %.2f seconds",
				  (double)(clock_ns(CLOCK_MONOTONIC) - w0) / 1e9);
		}
	}
	nprof_insp.active = false;
	atomic_store(&active_pid, 0);
	if (crash)
		return ret;

	if (nprof_insp.monitor) {
		nprof_monitor_free(nprof_insp.monitor);
		nprof_insp.monitor = NULL;
	}
	if (nprof_insp.sys_trace_owned) {
		nprof_sys_trace_release();
		nprof_insp.sys_trace_owned = false;
	}
	if (nprof_insp.rt_ref) {
		nprof_rt_put();
		nprof_rt_set_capture_opts(NULL);
		nprof_insp.rt_ref = false;
	}
	if (nprof_insp.dirfd >= 0) {
		close(nprof_insp.dirfd);
		nprof_insp.dirfd = -1;
	}
	return ret;
}

NPROF_API int nprof_inspect_stop(void)
{
	struct nprof_inspect_guard g;
	int ret;

	nprof_inspect_lock_excl(&g);
	forget_inherited();
	if (!nprof_inspect_live())
		ret = nprof_err(EALREADY, "no inspect session is active");
	else
		ret = nprof_inspect_harvest_locked(false);
	nprof_inspect_unlock(&g);
	return ret;
}

NPROF_API int nprof_inspect_close(void)
{
	struct nprof_inspect_guard g;
	int ret = 0;

	nprof_inspect_lock_excl(&g);
	forget_inherited();
	if (nprof_inspect_live())
		ret = nprof_inspect_harvest_locked(false);
	nprof_records_clear();
	if (nprof_insp.on_fail_seen) {
		salvage_cleanup();
		nprof_insp.on_fail_seen = false;
	}
	nprof_inspect_unlock(&g);
	return ret;
}

NPROF_API int nprof_inspect_is_active(void)
{
	struct nprof_inspect_guard g;
	int ret;

	nprof_inspect_lock_shared(&g);
	ret = nprof_inspect_live();
	nprof_inspect_unlock(&g);
	return ret;
}

NPROF_API int nprof_inspect_session_dir(char *buf, size_t len)
{
	struct nprof_inspect_guard g;
	int ret;

	if (!buf)
		return nprof_err(EINVAL, "buffer is NULL");
	nprof_inspect_lock_shared(&g);
	if (!nprof_inspect_live()) {
		ret = nprof_err(ENOENT, "no inspect session is active");
	} else {
		ret = snprintf(buf, len, "%s", nprof_insp.dir);
		if (ret < 0 || (size_t)ret >= len)
			ret = nprof_err(ENAMETOOLONG, "the session directory needs %zu bytes",
					strlen(nprof_insp.dir) + 1);
	}
	nprof_inspect_unlock(&g);
	return ret;
}
