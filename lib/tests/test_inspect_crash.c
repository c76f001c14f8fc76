// SPDX-License-Identifier: MIT
/*
 * Host tests of the crash flush: each case runs in a forked child that
 * begins a session and then dies (a segmentation fault, abort(), exit()
 * without a stop, SIGTERM, SIGINT), and the parent checks what the child
 * left: complete files and no temporary ones, the exit status the child
 * would have had without the library, the chaining to handlers installed
 * before, and the cases where the flush must give up instead of hanging.
 *
 * The parent never begins a session itself: the handlers are installed
 * once per process, and each child must install them fresh.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "harness.h"
#include "inspect_util.h"
#include "trace/sys_trace_internal.h"
#include "ntrace_util.h"
#include "system_profile.pb-c.h"

#define CHILD_TIMEOUT_S	30

/*
 * A real segmentation fault: a store into a page mapped without access
 * (not through NULL, which the undefined-behaviour sanitizer would report
 * and exit on before the fault).
 */
static void segfault(void)
{
	volatile int *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if ((void *)p == MAP_FAILED)
		_exit(96);
	*p = 1;
	_exit(95);
}

struct child {
	pid_t pid;
	int status;
	char err[8192];		/* the child's stderr */
	double seconds;
};

/* Run @fn in a child with stderr in a file; wait for it (killed after a timeout). */
static void run_child(struct child *c, void (*fn)(void *), void *arg)
{
	struct timespec t0, t1, nap = { 0, 10000000 };
	int fd, waited = 0;
	ssize_t n;

	memset(c, 0, sizeof(*c));
	fd = open("child.err", O_CREAT | O_TRUNC | O_RDWR, 0644);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c->pid = fork();
	if (c->pid == 0) {
		dup2(fd, STDERR_FILENO);
		fn(arg);
		_exit(99);
	}
	while (waitpid(c->pid, &c->status, WNOHANG) == 0) {
		if (++waited > CHILD_TIMEOUT_S * 100) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &c->status, 0);
			FAIL("child %d hung", (int)c->pid);
			break;
		}
		nanosleep(&nap, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	c->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	n = pread(fd, c->err, sizeof(c->err) - 1, 0);
	c->err[n > 0 ? n : 0] = '\0';
	close(fd);
	printf("# child %d: %s %d after %.2f s; stderr: %s\n", (int)c->pid,
	       WIFSIGNALED(c->status) ? "signal" : "exit",
	       WIFSIGNALED(c->status) ? WTERMSIG(c->status) : WEXITSTATUS(c->status), c->seconds,
	       c->err);
}

/*
 * Did the child die of @sig as it would have without the library? Under
 * AddressSanitizer a fault goes on to ASan's own handler (installed before
 * ours, so chained to), which reports and exits non-zero.
 */
static bool died_of(const struct child *c, int sig)
{
	if (WIFSIGNALED(c->status))
		return WTERMSIG(c->status) == sig;
	return HARNESS_ASAN && sig == SIGSEGV && WIFEXITED(c->status) && WEXITSTATUS(c->status) != 0;
}

static bool exited_with(const struct child *c, int code)
{
	return WIFEXITED(c->status) && WEXITSTATUS(c->status) == code;
}

static void begin_or_exit(unsigned int acts, enum nprof_device_profile_mode mode)
{
	struct nprof_inspect_config *cfg = cfg_new("out", acts, mode);

	if (!cfg || nprof_inspect_begin_with_options(cfg)) {
		fprintf(stderr, "begin failed: %s\n", nprof_strerror_last());
		_exit(98);
	}
	nprof_inspect_config_free(cfg);
	nprof_sys_trace_record(NPROF_EV_USER, NPROF_SYS_TRACE_SRC_FRAMEWORK, 0, 1, 2);
}

#define SYS_ACTS	(NPROF_ACTIVITY_SYSTEM_PROFILE | NPROF_ACTIVITY_CPU_UTIL | \
			 NPROF_ACTIVITY_HOST_MEMORY)

/*
 * The flush wrote real system-profile messages: ntrace.pb holds the event
 * the child recorded and the session's own begin/stop events, and
 * trace_info.pb names the child and the session directory's time.
 */
static void check_messages(const char *dir, pid_t pid)
{
	Neuronprof__System__TraceInfo *ti;
	Neuronprof__System__Ntrace *nt;
	const char *leaf = strrchr(dir, '/');
	bool user = false, begin = false, stop = false;
	size_t i;

	nt = ntrace_load(dir);
	CHECK(nt != NULL);
	for (i = 0; nt && i < nt->n_events; i++) {
		user |= !strcmp(nt->events[i]->name, "user") && nt->events[i]->pid == (uint32_t)pid;
		begin |= !strcmp(nt->events[i]->name, "inspect_begin");
		stop |= !strcmp(nt->events[i]->name, "inspect_stop");
	}
	CHECK(user && begin && stop);
	ntrace_free(nt);
	ti = pb_load(&neuronprof__system__trace_info__descriptor, dir, "trace_info.pb");
	CHECK(ti != NULL);
	if (ti) {
		CHECK_INT(ti->pid, pid);
		CHECK(leaf && ti->session_init_ns == strtoull(leaf + 1, NULL, 10));
		neuronprof__system__trace_info__free_unpacked(ti, NULL);
	}
}

/* The four system-profile files, complete, and nothing else in @dir. */
static void check_system_profile(const char *dir, int others)
{
	CHECK(file_exists(dir, "ntrace.pb"));
	CHECK(file_exists(dir, "trace_info.pb"));
	CHECK(file_exists(dir, "cpu_util.pb"));
	CHECK(file_exists(dir, "host_mem.pb"));
	CHECK_INT(dir_entries(dir), 4 + others);
	CHECK_INT(dir_hidden(dir), 0);
}

/*
 * What a crash test expects of its child: how it ended (died of @sig as it
 * would have without the library, or with @sig 0 exited with @code), what
 * its stderr holds (@err) and does not (@not_err), the seconds it may take
 * at most (@seconds, 0: any), and what its session directory holds: the
 * system profile and @others files more, nothing, or what @then checks
 * (which runs in every case it is given).
 */
enum crash_dir { CRASH_DIR_SYSTEM_PROFILE, CRASH_DIR_EMPTY, CRASH_DIR_THEN };

struct crash_case {
	void (*child)(void *arg);
	int sig, code;
	const char *err[2], *not_err;
	double seconds;
	enum crash_dir holds;
	int others;
	void (*then)(const char *dir, pid_t pid);
};

/* Run @k's child in a scratch directory and check what it left. */
static void crash_test(const struct crash_case *k)
{
	char dir[PATH_MAX];
	struct scratch s;
	struct child c;
	size_t i;

	CHECK(!scratch_enter(&s));
	run_child(&c, k->child, NULL);
	if (k->sig)
		CHECK(died_of(&c, k->sig));
	else
		CHECK(exited_with(&c, k->code));
	for (i = 0; i < sizeof(k->err) / sizeof(k->err[0]) && k->err[i]; i++)
		CHECK_CONTAINS(c.err, k->err[i]);
	if (k->not_err)
		CHECK(!strstr(c.err, k->not_err));
	if (k->seconds)
		CHECK(c.seconds < k->seconds);
	CHECK(child_session_dir(c.pid, dir, sizeof(dir)));
	if (k->holds == CRASH_DIR_SYSTEM_PROFILE)
		check_system_profile(dir, k->others);
	else if (k->holds == CRASH_DIR_EMPTY)
		CHECK_INT(dir_entries(dir), 0);
	if (k->then)
		k->then(dir, c.pid);
	scratch_leave(&s);
}

/* The device sessions of child_abort_with_device(), flushed with its pid. */
static void check_device_sessions(const char *dir, pid_t pid)
{
	struct nprof_ntff_info info;

	CHECK_INT(ntff_check(dir, "profile_nc_0_session_0.ntff", &info), 9);
	CHECK_INT(info.pid, pid);
	CHECK_INT(ntff_check(dir, "profile_nc_1_session_0.ntff", &info), 4);
}

/* The session child_forks() closed itself: its two system files, complete. */
static void check_parent_session(const char *dir, pid_t pid)
{
	(void)pid;
	CHECK(file_exists(dir, "ntrace.pb"));
	CHECK(file_exists(dir, "trace_info.pb"));
	CHECK_INT(dir_entries(dir), 2);
	CHECK_INT(dir_hidden(dir), 0);
}

/* ---- the flush ------------------------------------------------------------------ */

static void child_segfault(void *arg)
{
	(void)arg;
	begin_or_exit(SYS_ACTS, NPROF_DEVICE_PROFILE_DISABLED);
	segfault();
}

TEST(segfault_flushes_the_system_profile)
{
	static const struct crash_case k = {
		.child = child_segfault,
		.sig = SIGSEGV,
		.err = { "Interrupt signal (11) received. Finishing saving profiling data",
			 "profiling data saved in out/" },
		.then = check_messages,
	};

	crash_test(&k);
}

/*
 * In a child: a session of every activity with SESSION device profiles of
 * cores 0 to @last of one fake device @x; the child exits if it cannot
 * begin.
 */
static void begin_device_or_exit(struct fakex *x, uint32_t last)
{
	struct nprof_inspect_config *cfg;

	if (fakex_setup(x, 1))
		_exit(97);
	cfg = cfg_new("out", NPROF_ACTIVITY_ALL, NPROF_DEVICE_PROFILE_SESSION);
	if (!cfg)
		_exit(98);
	cfg_cores(cfg, 0, last);
	if (nprof_inspect_begin_with_options(cfg))
		_exit(98);
}

static void child_abort_with_device(void *arg)
{
	struct fakex x;

	(void)arg;
	begin_device_or_exit(&x, 1);
	fake_produce(x.fd[0], fake_find(x.fd[0], NPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 1), 9, 3);
	fake_produce(x.fd[0], fake_find(x.fd[0], NPROF_TARGET_CORE, 1, NEURONPROF_QT_DMA, 0), 4, 3);
	abort();
}

TEST(abort_flushes_device_sessions)
{
	static const struct crash_case k = {
		.child = child_abort_with_device,
		.sig = SIGABRT,
		.err = { "Interrupt signal (6) received" },
		.others = 2,
		.then = check_device_sessions,
	};

	crash_test(&k);
}

static void child_exit(void *arg)
{
	(void)arg;
	begin_or_exit(SYS_ACTS, NPROF_DEVICE_PROFILE_DISABLED);
	exit(3);
}

TEST(exit_without_stop_flushes)
{
	static const struct crash_case k = {
		.child = child_exit,
		.code = 3,
		.then = check_messages,
	};

	crash_test(&k);
}

/* ---- chaining -------------------------------------------------------------------- */

static void siginfo_handler(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	/* Exit with a code that proves the handler got its arguments. */
	_exit(sig == SIGTERM && info && info->si_signo == SIGTERM && info->si_pid == getpid() ? 42 : 43);
}

static void child_sigterm_chained(void *arg)
{
	struct sigaction sa;

	(void)arg;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = siginfo_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTERM, &sa, NULL);
	begin_or_exit(SYS_ACTS, NPROF_DEVICE_PROFILE_DISABLED);
	kill(getpid(), SIGTERM);
	_exit(44);
}

TEST(sigterm_chains_to_the_previous_siginfo_handler)
{
	static const struct crash_case k = {
		.child = child_sigterm_chained,
		.code = 42,
		.err = { "Interrupt signal (15) received" },
	};

	crash_test(&k);
}

static volatile sig_atomic_t got_sigint;

static void plain_handler(int sig)
{
	got_sigint = sig;
}

static void child_sigint_returns(void *arg)
{
	(void)arg;
	signal(SIGINT, plain_handler);
	begin_or_exit(SYS_ACTS, NPROF_DEVICE_PROFILE_DISABLED);
	raise(SIGINT);
	if (got_sigint != SIGINT)
		_exit(10);
	/* The flush ended the session; the application goes on and closes. */
	if (nprof_inspect_is_active())
		_exit(11);
	if (nprof_inspect_stop() != -EALREADY)
		_exit(12);
	if (nprof_inspect_close())
		_exit(13);
	/* A second signal is handled again (the flush finds no session). */
	got_sigint = 0;
	raise(SIGINT);
	_exit(got_sigint == SIGINT ? 0 : 14);
}

TEST(sigint_chains_to_a_handler_that_returns)
{
	static const struct crash_case k = {
		.child = child_sigint_returns,
		.code = 0,
	};

	crash_test(&k);
}

static void child_sigint_ignored(void *arg)
{
	struct sigaction cur;

	(void)arg;
	signal(SIGINT, SIG_IGN);
	begin_or_exit(SYS_ACTS, NPROF_DEVICE_PROFILE_DISABLED);
	sigaction(SIGINT, NULL, &cur);
	if (cur.sa_handler != SIG_IGN)
		_exit(20);
	raise(SIGINT);
	if (!nprof_inspect_is_active())
		_exit(21);
	_exit(nprof_inspect_close() ? 22 : 0);
}

TEST(an_ignored_signal_stays_ignored)
{
	static const struct crash_case k = {
		.child = child_sigint_ignored,
		.code = 0,
		.not_err = "Interrupt signal",
	};

	crash_test(&k);
}

/* ---- giving up instead of hanging ---------------------------------------------- */

static void child_crash_holding_lock(void *arg)
{
	struct nprof_inspect_guard g;

	(void)arg;
	begin_or_exit(SYS_ACTS, NPROF_DEVICE_PROFILE_DISABLED);
	nprof_inspect_lock_shared(&g);
	segfault();
}

TEST(flush_skips_when_the_crashing_thread_holds_the_lock)
{
	static const struct crash_case k = {
		.child = child_crash_holding_lock,
		.sig = SIGSEGV,
		.err = { "the inspect session lock is held by the thread that stopped" },
		.seconds = 5,
		.holds = CRASH_DIR_EMPTY,
	};

	crash_test(&k);
}

static volatile int holder_ready;

static void *lock_holder(void *arg)
{
	struct nprof_inspect_guard g;

	(void)arg;
	nprof_inspect_lock_shared(&g);
	holder_ready = 1;
	sleep(20);
	nprof_inspect_unlock(&g);
	return NULL;
}

static void child_crash_lock_busy(void *arg)
{
	pthread_t t;

	(void)arg;
	nprof_crash_set_timeouts(200, 5000);
	begin_or_exit(SYS_ACTS, NPROF_DEVICE_PROFILE_DISABLED);
	pthread_create(&t, NULL, lock_holder, NULL);
	while (!holder_ready)
		usleep(1000);
	segfault();
}

TEST(flush_gives_up_when_another_thread_keeps_the_lock)
{
	static const struct crash_case k = {
		.child = child_crash_lock_busy,
		.sig = SIGSEGV,
		.err = { "the inspect session lock stayed busy for 200 ms" },
		.seconds = 5,
		.holds = CRASH_DIR_EMPTY,
	};

	crash_test(&k);
}

static void child_hung_flush(void *arg)
{
	struct fakex x;

	(void)arg;
	nprof_crash_set_timeouts(1000, 300);
	begin_device_or_exit(&x, 0);
	/* Every drain now blocks: the harvest hangs in the first one. */
	x.fd[0]->block = true;
	segfault();
}

TEST(watchdog_ends_a_hung_flush)
{
	/* Nothing was complete: nothing is there, not even a temporary file. */
	static const struct crash_case k = {
		.child = child_hung_flush,
		.sig = SIGSEGV,
		.err = { "saving profiling data did not finish within 300 ms" },
		.seconds = 10,
		.holds = CRASH_DIR_EMPTY,
	};

	crash_test(&k);
}

/* The fault hits while this thread holds ring locks (inside a record). */
static void child_fault_in_record(void *arg)
{
	(void)arg;
	nprof_crash_set_timeouts(1000, 5000);
	begin_or_exit(SYS_ACTS, NPROF_DEVICE_PROFILE_DISABLED);
	/* An event in a ring nobody holds: it must reach ntrace.pb. */
	nprof_sys_trace_record(NPROF_EV_USER, NPROF_SYS_TRACE_SRC_FRAMEWORK, 1, 3, 4);
	nprof_st_test_hold_ring_lock(0);
	nprof_st_test_hold_ring_lock(NPROF_SYS_TRACE_NO_CORE);
	segfault();
}

TEST(fault_inside_a_ring_lock_still_saves)
{
	/*
	 * The flush gave up on the two held rings (their events are lost)
	 * instead of waiting for the watchdog, and saved everything else.
	 */
	static const struct crash_case k = {
		.child = child_fault_in_record,
		.sig = SIGSEGV,
		.not_err = "did not finish within",
		.err = { "profiling data saved in" },
	};

	crash_test(&k);
}

/* ---- fork ------------------------------------------------------------------------------ */

static void grandchild(void)
{
	/* The inherited session is the parent's: neither exit nor a fault flushes it. */
	if (nprof_inspect_is_active())
		_exit(50);
	if (nprof_inspect_stop() != -EALREADY)
		_exit(51);
	exit(0);
}

static void child_forks(void *arg)
{
	char dir[PATH_MAX];
	int status, i;
	pid_t pid;

	(void)arg;
	/*
	 * No sampler thread: the grandchildren must be forked from a
	 * single-threaded process. After fork() in a multi-threaded process
	 * only async-signal-safe calls are allowed, and the exit() below runs
	 * LeakSanitizer's exit check, which deadlocks on an allocator lock a
	 * sampler thread held at fork time.
	 */
	begin_or_exit(NPROF_ACTIVITY_SYSTEM_PROFILE, NPROF_DEVICE_PROFILE_DISABLED);
	if (nprof_inspect_session_dir(dir, sizeof(dir)) < 0)
		_exit(60);
	for (i = 0; i < 2; i++) {
		pid = fork();
		if (pid == 0) {
			if (i)
				segfault();
			grandchild();
		}
		waitpid(pid, &status, 0);
		if (i == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			_exit(61);
		if (i == 1 && !WIFSIGNALED(status) && !HARNESS_ASAN)
			_exit(62);
		if (dir_entries(dir) != 0)
			_exit(63 + i);
	}
	if (!nprof_inspect_is_active())
		_exit(65);
	_exit(nprof_inspect_close() ? 66 : 0);
}

TEST(forked_children_leave_the_parent_session_alone)
{
	static const struct crash_case k = {
		.child = child_forks,
		.code = 0,
		.holds = CRASH_DIR_THEN,
		.then = check_parent_session,
	};

	crash_test(&k);
}

HARNESS_MAIN
