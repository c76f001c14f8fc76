// SPDX-License-Identifier: MIT
/*
 * Crash safety of the inspect session: handlers for fatal signals and an
 * atexit hook that call the one flush entry point the controller installs
 * (struct nprof_crash_ops: the session's harvest, nprof_inspect_stop()'s),
 * so a process that dies or exits without stopping still leaves its
 * profiles. This file knows signals, not sessions: it calls nothing of the
 * session layer but through those ops.
 *
 * The rules, and why (Documentation/inspect.rst, "Crash safety"):
 *  - Installed once per process, on the first begin, for SIGSEGV, SIGBUS,
 *    SIGFPE, SIGILL, SIGABRT, SIGTERM and SIGINT. A signal the process
 *    ignores at that time stays ignored (nohup and friends keep working).
 *  - One flush at a time, claimed with an atomic flag: a signal that
 *    arrives while a flush runs (a second ^C, a fault inside the flush)
 *    goes straight to the chained disposition.
 *  - The flush never waits on a lock the crashing thread may hold: it
 *    polls trylock on the inspect lock for a bounded time, and gives up
 *    at once if this thread holds it (a per-thread depth count says so).
 *    The library's own critical sections block SIGINT and SIGTERM, so those
 *    are never delivered to a thread that holds the lock. When the lock
 *    cannot be had, the flush is skipped with a message on stderr; no
 *    lock-free second path exists, because the harvest needs the capture
 *    engine and the writers, which have locks of their own.
 *  - A watchdog (ITIMER_REAL) bounds the whole flush: if it hangs anyway
 *    (a lock of the C library or of a capture held by the crashing thread),
 *    the flush is abandoned and the signal proceeds. Files are only ever
 *    renamed into place when complete, so an abandoned flush leaves no
 *    partial file under a final name.
 *  - Then the signal goes on: the handler that was installed before ours
 *    is called (with siginfo if it wanted it), or the default action is
 *    restored and the signal raised again, so the process dies the way it
 *    would have (exit status, core dump).
 *  - The harvest is not async-signal-safe (it allocates and writes files,
 *    as the runtime's does); the watchdog is what makes that acceptable.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include "session/session_internal.h"
#include "util/internal.h"

/* Stack for the handlers of the thread that began the first session. */
#define CRASH_ALTSTACK_SIZE	(256 * 1024)

/* How long the atexit hook waits for the inspect lock. */
#define EXIT_LOCK_WAIT_MS	5000

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT };
#define NCRASH	ARRAY_SIZE(crash_signals)

/* Written once before the handlers are installed, then only read. */
static struct sigaction prev_act[NCRASH];
static bool installed[NCRASH];
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static const struct nprof_crash_ops *_Atomic crash_ops;

/* 0: no flush running; 1: a flush runs (signal handler or atexit). */
static atomic_int flush_running;
static atomic_uint lock_wait_ms = 1000;
static atomic_uint watchdog_ms = 10000;

/* The signal being flushed, for the watchdog. */
static volatile sig_atomic_t flush_signo;
static siginfo_t *volatile flush_info;
static void *volatile flush_uctx;
static struct sigaction prev_alrm;

void nprof_crash_say(const char *msg)
{
	size_t len = strlen(msg);

	while (len) {
		ssize_t n = write(STDERR_FILENO, msg, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		msg += n;
		len -= (size_t)n;
	}
}

/* Decimal of @v into @buf (at least 21 bytes); async-signal-safe. */
static char *fmt_u(char *buf, unsigned long v)
{
	char tmp[21];
	int n = 0, i = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		buf[i++] = tmp[--n];
	buf[i] = '\0';
	return buf;
}

void nprof_crash_say_num(const char *a, unsigned long v, const char *b)
{
	char num[24];

	nprof_crash_say(a);
	nprof_crash_say(fmt_u(num, v));
	nprof_crash_say(b);
}

static int slot_of(int sig)
{
	size_t i;

	for (i = 0; i < NCRASH; i++)
		if (crash_signals[i] == sig)
			return (int)i;
	return -1;
}

/* Restore the default action of @sig and raise it unblocked: die as without us. */
static void die_default(int sig)
{
	struct sigaction dfl;
	sigset_t set;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/* Hand @sig to whatever was installed before us. */
static void chain(int sig, siginfo_t *info, void *uctx)
{
	int i = slot_of(sig);
	struct sigaction *p;

	if (i < 0) {
		die_default(sig);
		return;
	}
	p = &prev_act[i];
	if (p->sa_flags & SA_SIGINFO) {
		void (*fn)(int, siginfo_t *, void *) = p->sa_sigaction;

		if (p->sa_flags & SA_RESETHAND) {
			p->sa_flags &= ~(SA_SIGINFO | SA_RESETHAND);
			p->sa_handler = SIG_DFL;
		}
		if (fn)
			fn(sig, info, uctx);
		return;
	}
	if (p->sa_handler == SIG_IGN)
		return;
	if (p->sa_handler == SIG_DFL) {
		die_default(sig);
		return;
	}
	{
		void (*fn)(int) = p->sa_handler;

		if (p->sa_flags & SA_RESETHAND) {
			p->sa_flags &= ~SA_RESETHAND;
			p->sa_handler = SIG_DFL;
		}
		fn(sig);
	}
}

static void watchdog_fired(int s)
{
	int sig = flush_signo;

	(void)s;
	nprof_crash_say_num("neuronprof: saving profiling data did not finish within ", atomic_load(&watchdog_ms),
	     " ms; giving up (files not yet complete are not in place)\n");
	if (!sig) {
		/* The atexit flush hung: end the exit that is in progress. */
		_exit(EXIT_FAILURE);
	}
	chain(sig, flush_info, flush_uctx);
	/* A chained handler returned: the flush must not resume, so die. */
	die_default(sig);
	_exit(128 + sig);
}

static void watchdog_arm(void)
{
	struct itimerval it;
	struct sigaction sa;
	unsigned int ms = atomic_load(&watchdog_ms);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog_fired;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGALRM, &sa, &prev_alrm);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = (ms % 1000) * 1000;
	setitimer(ITIMER_REAL, &it, NULL);
	{
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGALRM);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	}
}

static void watchdog_disarm(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	sigaction(SIGALRM, &prev_alrm, NULL);
}

/* The flush; @sig is 0 for the atexit hook. */
static void flush(int sig, unsigned int wait_ms)
{
	const struct nprof_crash_ops *ops = atomic_load(&crash_ops);

	/* A peek without locks: nothing of this process, nothing to say. */
	if (!ops || !ops->pending())
		return;
	watchdog_arm();
	ops->flush(sig, wait_ms);
	watchdog_disarm();
}

static void crash_handler(int sig, siginfo_t *info, void *uctx)
{
	int saved_errno = errno;
	int idle = 0;

	if (atomic_compare_exchange_strong(&flush_running, &idle, 1)) {
		flush_signo = sig;
		flush_info = info;
		flush_uctx = uctx;
		flush(sig, atomic_load(&lock_wait_ms));
		flush_signo = 0;
		atomic_store(&flush_running, 0);
	}
	errno = saved_errno;
	chain(sig, info, uctx);
	errno = saved_errno;
}

static void exit_hook(void)
{
	int idle = 0;

	if (!atomic_compare_exchange_strong(&flush_running, &idle, 1))
		return;
	flush_signo = 0;
	flush(0, EXIT_LOCK_WAIT_MS);
	atomic_store(&flush_running, 0);
}

/* Give the installing thread a stack for handlers that also survives a stack overflow. */
static void setup_altstack(void)
{
	stack_t cur, ss;
	void *mem;

	if (sigaltstack(NULL, &cur) || !(cur.ss_flags & SS_DISABLE))
		return;
	mem = mmap(NULL, CRASH_ALTSTACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (mem == MAP_FAILED)
		return;
	memset(&ss, 0, sizeof(ss));
	ss.ss_sp = mem;
	ss.ss_size = CRASH_ALTSTACK_SIZE;
	if (sigaltstack(&ss, NULL))
		munmap(mem, CRASH_ALTSTACK_SIZE);
}

static void install(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	for (i = 0; i < NCRASH; i++) {
		if (sigaction(crash_signals[i], NULL, &prev_act[i]))
			continue;
		if (!(prev_act[i].sa_flags & SA_SIGINFO) && prev_act[i].sa_handler == SIG_IGN) {
			nprof_log(NPROF_LOG_DEBUG, "signal %d is ignored: no crash flush for it",
				  crash_signals[i]);
			continue;
		}
		if (!sigaction(crash_signals[i], &sa, NULL))
			installed[i] = true;
	}
	setup_altstack();
	if (atexit(exit_hook))
		nprof_log(NPROF_LOG_WARN, "cannot register the atexit hook of the inspect session");
}

void nprof_crash_install(const struct nprof_crash_ops *ops)
{
	atomic_store(&crash_ops, ops);
	pthread_once(&install_once, install);
}

void nprof_crash_set_timeouts(unsigned int lock_wait, unsigned int watchdog)
{
	atomic_store(&lock_wait_ms, lock_wait);
	atomic_store(&watchdog_ms, watchdog ? watchdog : 1);
}

/*
 * When the library is unloaded (dlclose), our handlers must not stay
 * installed pointing into unmapped code: put the previous ones back where
 * ours are still in place.
 */
__attribute__((destructor)) static void crash_fini(void)
{
	struct sigaction cur;
	size_t i;

	for (i = 0; i < NCRASH; i++) {
		if (!installed[i] || sigaction(crash_signals[i], NULL, &cur))
			continue;
		if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == crash_handler)
			sigaction(crash_signals[i], &prev_act[i], NULL);
	}
}
