/* SPDX-License-Identifier: MIT */
/*
 * The session layer (layer 6 of the library, lib/src/README): the inspect
 * controller (inspect.c), the crash flush (crash.c) and the runtime hooks
 * (runtime.c). The hooks call the controller, the controller hands the
 * crash path its one flush entry point and dispatches to the capture modes
 * through their ops tables (modes/modes.h); nothing below calls back up.
 *
 * File order inside the layer, bottom to top: crash.c (calls nothing of
 * the session layer), inspect.c (calls crash.c), runtime.c (calls
 * inspect.c). session/ may call every layer below it.
 */
#ifndef NEURONPROF_SESSION_INTERNAL_H
#define NEURONPROF_SESSION_INTERNAL_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <neuronprof/monitor.h>
#include <neuronprof/output.h>

#include "model/registry.h"
#include "modes/modes.h"

/* ---- the inspect controller (inspect.c) ----------------------------------- */

/*
 * The session state. Protected by the inspect lock (nprof_inspect_lock_*):
 * readers take it shared, begin / stop / close exclusive.
 */
struct nprof_inspect_state {
	bool active;			/* begun, not yet stopped */
	pid_t pid;			/* process that began it */
	unsigned int activities;	/* enum nprof_activity bits actually armed */
	uint64_t init_ns;		/* CLOCK_REALTIME at begin */
	char instance_id[NPROF_INSTANCE_ID_MAX + 1];
	char dir[PATH_MAX];		/* the session directory */
	bool rt_ref;			/* holds a device-registry reference */
	bool sys_trace_owned;		/* started the system trace */
	struct nprof_monitor *monitor;
	size_t nbegun;			/* modes whose begin succeeded */
	struct nprof_session_view view;	/* what the modes see */
};

/*
 * The inspect lock. Holding it blocks SIGINT and SIGTERM in the thread (so
 * the crash flush of an asynchronous signal never runs in a thread that
 * holds it) and counts the hold in a per-thread depth (so the flush of a
 * fault raised while holding it knows not to wait for it).
 */
struct nprof_inspect_guard {
	sigset_t saved;
};

void nprof_inspect_lock_shared(struct nprof_inspect_guard *g);
void nprof_inspect_lock_excl(struct nprof_inspect_guard *g);
void nprof_inspect_unlock(struct nprof_inspect_guard *g);

/*
 * The runtime hooks' entry points: an execution of @m begins / ends; the
 * controller dispatches to the modes. @end returns 0 or the -errno of a
 * profile that could not be written.
 */
void nprof_inspect_exec_begin(const struct nprof_model_info *m, struct nprof_exec_capture *ec);
int nprof_inspect_exec_end(const struct nprof_model_info *m, struct nprof_exec_capture *ec,
			   uint32_t status);

/* ---- crash safety (crash.c) ------------------------------------------------ */

/*
 * The one flush entry point the crash path calls, handed down by the
 * controller:
 * @pending:	is there anything of this process to flush? Called first,
 *		without locks, from a signal handler.
 * @flush:	save it; @sig is the signal (0 for the atexit hook) and
 *		@lock_wait_ms how long to wait for a lock held elsewhere. It
 *		says what it does on stderr (nprof_crash_say()).
 */
struct nprof_crash_ops {
	bool (*pending)(void);
	void (*flush)(int sig, unsigned int lock_wait_ms);
};

/* Install the signal handlers and the atexit hook, once per process. */
void nprof_crash_install(const struct nprof_crash_ops *ops);

/*
 * Seams for the host tests: how long the flush waits for the inspect lock
 * held by another thread, and the watchdog that ends a flush that hangs,
 * in milliseconds (defaults 1000 and 10000).
 */
void nprof_crash_set_timeouts(unsigned int lock_wait_ms, unsigned int watchdog_ms);

/* Writes @msg to stderr with write(2) only (async-signal-safe). */
void nprof_crash_say(const char *msg);

/* Writes @a, the decimal @v and @b the same way. */
void nprof_crash_say_num(const char *a, unsigned long v, const char *b);

#endif /* NEURONPROF_SESSION_INTERNAL_H */
