// SPDX-License-Identifier: MIT
/*
 * The inspect session controller (the seed's nrt_inspect_*): one
 * process-wide session under one rwlock; begin resolves the output
 * directory, starts the host activities (system trace, monitor) and
 * dispatches to the capture modes (modes/modes.h) with rollback of every
 * mode begun so far; the runtime hooks' executions are dispatched the same
 * way; stop is the one fused harvest-and-serialize point, which the crash
 * flush and the atexit hook (crash.c) reach through the one flush entry
 * point handed to them; close releases what the sessions left behind,
 * including the profiles salvaged into ./tmp.
 *
 * Lock order: the inspect lock, then the modes' own locks (record map,
 * continuous profiling, salvage), the device registry's, then the capture
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

#include "capture/capture_stream.h"
#include "capture/engines.h"
#include "config/config_internal.h"
#include "session/session_internal.h"
#include "trace/sys_trace_internal.h"
#include "util/internal.h"

/* The monitor's period in a session; see Documentation/inspect.rst. */
#define INSPECT_MONITOR_PERIOD_MS	1000

static struct nprof_inspect_state nprof_insp = { .view.dirfd = -1 };

/*
 * The capture modes, in the order they begin; they are aborted in the
 * reverse order, executions end in the reverse order too.
 */
static const struct nprof_mode_ops *const modes[] = {
	&nprof_mode_continuous,	/* first: it may refuse device profiling */
	&nprof_mode_model,
	&nprof_mode_session,
	&nprof_mode_onfail,
};
#define NMODES	ARRAY_SIZE(modes)

/* Protects nprof_insp. */
static pthread_rwlock_t insp_lock = PTHREAD_RWLOCK_INITIALIZER;

/* The pid of the active session, 0 if none: what the crash flush peeks at unlocked. */
static _Atomic pid_t active_pid;


/* How many holds of the inspect lock this thread has (the crash flush must not wait on itself). */
static __thread int nprof_inspect_lock_depth __attribute__((tls_model("initial-exec")));

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

/*
 * For the crash flush and the atexit hook: take the lock exclusively within
 * @wait_ms by polling trylock (a blocking wait could be on a holder that
 * never returns). 0; -EDEADLK if this thread holds it; -ETIMEDOUT. Release
 * with unlock_raw(). No signal mask is changed.
 */
static int trylock_excl(unsigned int wait_ms)
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

static void unlock_raw(void)
{
	nprof_inspect_lock_depth--;
	pthread_rwlock_unlock(&insp_lock);
}

/* Is the session active in this process (not one inherited over fork)? Locked. */
static bool live(void)
{
	return nprof_insp.active && nprof_insp.pid == getpid();
}

/*
 * A session inherited over fork() belongs to the parent: its descriptors,
 * subscriptions and threads are the parent's. The child forgets it without
 * touching any of it.
 */
static void reset_state(void)
{
	uint64_t gen = nprof_insp.view.generation;

	memset(&nprof_insp, 0, sizeof(nprof_insp));
	nprof_insp.view.dirfd = -1;
	nprof_insp.view.generation = gen;
}

static void forget_inherited(void)
{
	if (nprof_insp.active && nprof_insp.pid != getpid()) {
		nprof_log(NPROF_LOG_DEBUG, "forgetting the inspect session of process %ld",
			  (long)nprof_insp.pid);
		reset_state();
	}
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
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

/* Undo everything begin_locked() armed; the state goes back to idle. */
static void rollback(void)
{
	while (nprof_insp.nbegun) {
		const struct nprof_mode_ops *m = modes[--nprof_insp.nbegun];

		if (m->abort)
			m->abort(&nprof_insp.view);
	}
	if (nprof_insp.rt_ref)
		nprof_rt_put();
	nprof_rt_set_capture_opts(NULL);
	nprof_rt_set_capture_iterations(0, 0);
	if (nprof_insp.monitor)
		nprof_monitor_free(nprof_insp.monitor);
	if (nprof_insp.sys_trace_owned) {
		nprof_sys_trace_stop();
		nprof_sys_trace_release();
	}
	nprof_capture_output_end();
	if (nprof_insp.view.dirfd >= 0)
		close(nprof_insp.view.dirfd);
	remove_session_dir();
	reset_state();
}

static int begin_locked(struct nprof_inspect_config *cfg)
{
	struct nprof_capture_opts copts = { .size = sizeof(copts) };
	uint64_t iter_first, iter_last;
	struct nprof_session_view *v = &nprof_insp.view;
	const char *base = nprof_inspect_config_get_output_dir(cfg);
	unsigned int acts;
	int ret, fd, i;

	v->enable_inspect = nprof_inspect_config_get_enable_inspect(cfg) == 1;
	v->on_fail = nprof_inspect_config_get_enable_inspect_on_fail(cfg) == 1;
	if (!v->enable_inspect && !v->on_fail) {
		nprof_log(NPROF_LOG_WARN,
			  "inspect and inspect-on-fail are both off in this configuration: no inspect session begins");
		return 0;
	}
	acts = v->enable_inspect ? (unsigned int)nprof_inspect_config_get_activity_mask(cfg) : 0;
	v->mode = (enum nprof_device_profile_mode)nprof_inspect_config_get_device_profile_mode(cfg);
	v->device = (acts & NPROF_ACTIVITY_DEVICE_PROFILE) && v->mode != NPROF_DEVICE_PROFILE_DISABLED;
	if (!v->device)
		acts &= ~(unsigned int)NPROF_ACTIVITY_DEVICE_PROFILE;
	v->session_id = nprof_inspect_config_get_session_id(cfg);
	for (i = 0; i < NPROF_MAX_CORES; i++)
		v->capture_nc[i] = nprof_inspect_config_get_capture_enabled_for_nc(cfg, (uint32_t)i) == 1;
	nprof_inspect_config_get_capture_executions(cfg, &v->exec_first, &v->exec_last);

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
	v->instance_id = nprof_insp.instance_id;
	nprof_insp.init_ns = clock_ns(CLOCK_REALTIME);
	nprof_insp.pid = getpid();
	ret = nprof_output_session_dir(base, nprof_insp.instance_id, nprof_insp.pid, nprof_insp.init_ns,
				       nprof_insp.dir, sizeof(nprof_insp.dir));
	if (ret < 0)
		goto fail;
	v->dir = nprof_insp.dir;
	fd = nprof_output_mkdir_p(nprof_insp.dir, 0755);
	if (fd < 0) {
		ret = fd;
		goto fail;
	}
	v->dirfd = fd;
	/* Writes of the session's captures stop at its limit or a full disk. */
	nprof_capture_output_begin(fd, nprof_insp.dir, nprof_inspect_config_get_capture_max_size(cfg));
	nprof_capture_output_compression(nprof_inspect_config_get_capture_compression(cfg));

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
	if (v->device || v->on_fail) {
		/* Captures of this session use its ring sizes. */
		ret = nprof_capture_opts_from_config(&copts, cfg);
		if (ret)
			goto fail;
		/* Spools next to the files they become: the same disk, no tmpfs. */
		copts.spool_dir = nprof_insp.dir;
		nprof_rt_set_capture_opts(&copts);
		nprof_inspect_config_get_capture_iterations(cfg, &iter_first, &iter_last);
		nprof_rt_set_capture_iterations(iter_first, iter_last);
		nprof_rt_get();
		nprof_insp.rt_ref = true;
	}
	nprof_insp.activities = acts;
	/* The control page of a tool running this process, as the environment says now. */
	nprof_capture_control_open();
	v->generation++;
	for (nprof_insp.nbegun = 0; nprof_insp.nbegun < NMODES; nprof_insp.nbegun++) {
		const struct nprof_mode_ops *m = modes[nprof_insp.nbegun];

		ret = m->begin ? m->begin(v) : 0;
		if (ret)
			goto fail;
	}
	nprof_insp.active = true;
	atomic_store(&active_pid, nprof_insp.pid);
	trace_point(NPROF_EV_INSPECT_BEGIN, nprof_sys_trace_now());
	nprof_log(NPROF_LOG_INFO, "inspect session begun in %s", nprof_insp.dir);
	return 0;
fail:
	{
		char why[1024];

		snprintf(why, sizeof(why), "%s", nprof_err_current());
		rollback();
		nprof_err(-ret, "%s", why);
	}
	return ret;
}

static const struct nprof_crash_ops crash_ops;

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
	nprof_crash_install(&crash_ops);
	nprof_inspect_lock_excl(&g);
	forget_inherited();
	if (live())
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

/* ---- executions (the runtime hooks) ---------------------------------------------- */

/*
 * The view of the live session with the lock held shared, or NULL (and no
 * lock) when no session of this process is active: the common case costs
 * one load, no lock and no signal-mask system call.
 */
static const struct nprof_session_view *view_get(struct nprof_inspect_guard *g)
{
	if (atomic_load(&active_pid) != getpid())
		return NULL;
	nprof_inspect_lock_shared(g);
	if (live())
		return &nprof_insp.view;
	nprof_inspect_unlock(g);
	return NULL;
}

void nprof_inspect_exec_begin(const struct nprof_model_info *m, struct nprof_exec_capture *ec)
{
	const struct nprof_session_view *v;
	struct nprof_inspect_guard g;
	size_t i;

	memset(ec, 0, sizeof(*ec));
	v = view_get(&g);
	for (i = 0; i < NMODES; i++)
		if (modes[i]->exec_begin)
			modes[i]->exec_begin(v, m, ec);
	if (v)
		nprof_inspect_unlock(&g);
}

int nprof_inspect_exec_end(const struct nprof_model_info *m, struct nprof_exec_capture *ec,
			   uint32_t status)
{
	const struct nprof_session_view *v;
	struct nprof_inspect_guard g;
	int ret = 0, r;
	size_t i;

	v = view_get(&g);
	for (i = NMODES; i-- > 0;) {
		if (!modes[i]->exec_end)
			continue;
		r = modes[i]->exec_end(v, m, ec, status);
		if (!ret)
			ret = r;
	}
	if (v)
		nprof_inspect_unlock(&g);
	return ret;
}

/* ---- stop: the fused harvest --------------------------------------------------- */

static int keep_first(int ret, int r)
{
	return ret ? ret : r;
}

/*
 * The harvest of nprof_inspect_stop(), with the lock held exclusively.
 * @crash: from the crash flush (no reference is released and nothing is
 * freed that the dying process does not need freed).
 */
static int harvest_locked(bool crash)
{
	uint64_t t0 = nprof_sys_trace_now();
	unsigned int files = 0;
	int ret = 0, r;
	size_t i;

	for (i = 0; i < NMODES; i++) {
		if (!modes[i]->stop)
			continue;
		r = modes[i]->stop(&nprof_insp.view, crash);
		ret = keep_first(ret, r);
	}
	nprof_insp.nbegun = 0;
	/* One message for a stopped output, whatever queues it stopped. */
	nprof_capture_output_end();

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

		r = nprof_system_profile_writeat(nprof_insp.view.dirfd, &so);
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
		nprof_rt_set_capture_iterations(0, 0);
		nprof_insp.rt_ref = false;
	}
	if (nprof_insp.view.dirfd >= 0) {
		close(nprof_insp.view.dirfd);
		nprof_insp.view.dirfd = -1;
	}
	return ret;
}

NPROF_API int nprof_inspect_stop(void)
{
	struct nprof_inspect_guard g;
	int ret;

	nprof_inspect_lock_excl(&g);
	forget_inherited();
	if (!live())
		ret = nprof_err(EALREADY, "no inspect session is active");
	else
		ret = harvest_locked(false);
	nprof_inspect_unlock(&g);
	return ret;
}

NPROF_API int nprof_inspect_close(void)
{
	struct nprof_inspect_guard g;
	int ret = 0;
	size_t i;

	nprof_inspect_lock_excl(&g);
	forget_inherited();
	if (live())
		ret = harvest_locked(false);
	for (i = 0; i < NMODES; i++)
		if (modes[i]->close)
			modes[i]->close();
	nprof_inspect_unlock(&g);
	return ret;
}

NPROF_API int nprof_inspect_is_active(void)
{
	struct nprof_inspect_guard g;
	int ret;

	nprof_inspect_lock_shared(&g);
	ret = live();
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
	if (!live()) {
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

NPROF_API int nprof_inspect_salvage_dir(char *buf, size_t len)
{
	return nprof_onfail_salvage_dir(buf, len);
}

/* ---- the crash flush ------------------------------------------------------------ */

static bool crash_pending(void)
{
	return atomic_load(&active_pid) == getpid();
}

static void crash_flush(int sig, unsigned int wait_ms)
{
	int ret = trylock_excl(wait_ms);

	if (ret == -EDEADLK) {
		nprof_crash_say("neuronprof: the inspect session lock is held by the thread that stopped; profiling data is not saved\n");
		return;
	}
	if (ret) {
		nprof_crash_say_num("neuronprof: the inspect session lock stayed busy for ", wait_ms,
				    " ms; profiling data is not saved\n");
		return;
	}
	if (live()) {
		if (sig)
			nprof_crash_say_num("neuronprof: Interrupt signal (", (unsigned long)sig,
					    ") received. Finishing saving profiling data...\n");
		/* At exit, a full stop: everything is released as at a normal stop. */
		nprof_st_set_signal_context(sig != 0);
		ret = harvest_locked(sig != 0);
		nprof_st_set_signal_context(false);
		if (sig) {
			nprof_crash_say(ret ? "neuronprof: profiling data partly saved in " :
					      "neuronprof: profiling data saved in ");
			nprof_crash_say(nprof_insp.dir);
			nprof_crash_say("\n");
		}
	}
	unlock_raw();
}

/* The one flush entry point of the crash path (crash.c). */
static const struct nprof_crash_ops crash_ops = {
	.pending = crash_pending,
	.flush = crash_flush,
};
