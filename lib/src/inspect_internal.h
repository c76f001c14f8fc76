/* SPDX-License-Identifier: MIT */
/*
 * Internals of the session layer shared by inspect*.c, runtime*.c,
 * profile_model.c, continuous.c and crash.c, and the seams the host tests
 * use (fake devices, the record map, the crash-flush knobs).
 */
#ifndef NEURONPROF_INSPECT_INTERNAL_H
#define NEURONPROF_INSPECT_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <neuronprof/capture.h>
#include <neuronprof/config.h>
#include <neuronprof/device.h>
#include <neuronprof/monitor.h>
#include <neuronprof/output.h>

/* ---- device registry (runtime_devices.c) -----------------------------------
 *
 * Every neuronprof device of the process, opened once and shared by the
 * inspect session, the runtime hooks, direct and continuous profiling, with
 * one capture engine per device (a queue has one subscriber per device, so
 * two engines on one device would fight). Virtual cores number the cores of
 * all devices in device-index order.
 */

/*
 * Take a reference; the first one opens every device (none is not an
 * error: the registry is then empty and says why when a core is asked for).
 */
void nprof_rt_get(void);

/* Drop a reference; the last one closes the devices and their engines. */
void nprof_rt_put(void);

/* Virtual cores of the registry (0 when it holds no device). */
uint32_t nprof_rt_num_cores(void);

/*
 * The device holding virtual core @vnc and the core's index on it, for
 * callers holding a reference. -ENODEV with a message if no device does.
 */
int nprof_rt_device(uint32_t vnc, struct nprof_device **dev, uint32_t *local);

/*
 * The capture engine of the device holding @vnc, created on first use with
 * the ring sizes of nprof_rt_set_capture_opts(); counts a user of it (and
 * holds a registry reference) until nprof_rt_capture_put(). The engine is
 * closed when its last user goes, so rings are only held while something
 * captures.
 */
int nprof_rt_capture_get(uint32_t vnc, struct nprof_capture **cap, uint32_t *local);
void nprof_rt_capture_put(uint32_t vnc);

/*
 * nprof_rt_capture_get() and a session started on the core, about the model
 * *@model_id (NULL: a SESSION capture; see
 * nprof_capture_session_start_for()): on success the caller holds the
 * engine (nprof_rt_capture_put() when done with the session); on failure
 * nothing is held and the message is recorded.
 */
int nprof_rt_capture_start(uint32_t vnc, const uint64_t *model_id, struct nprof_capture **cap,
			   uint32_t *local);

/* Ring sizes of engines created from now on; NULL restores the defaults. */
void nprof_rt_set_capture_opts(const struct nprof_capture_opts *opts);

/*
 * Test seam: use these @n devices instead of enumerating (they are not
 * closed by the registry); @n may be 0 for a registry without devices.
 * @devs NULL restores enumeration. -EBUSY while referenced.
 */
int nprof_rt_set_test_devices(struct nprof_device *const *devs, size_t n);

/* ---- the inspect session (inspect.c) ------------------------------------ */

/* One device-profile session armed at begin (mode SESSION). */
struct nprof_armed_core {
	uint32_t vnc;
	uint32_t local;
	struct nprof_capture *cap;
};

/*
 * The session state. Protected by the inspect lock (nprof_inspect_lock_*):
 * readers take it shared, begin / stop / close exclusive.
 */
struct nprof_inspect_state {
	bool active;			/* begun, not yet stopped */
	pid_t pid;			/* process that began it */
	int session_id;
	bool enable_inspect;
	bool on_fail;
	bool on_fail_seen;		/* some session since the last close had on_fail */
	unsigned int activities;	/* enum nprof_activity bits actually armed */
	enum nprof_device_profile_mode mode;
	uint8_t capture_nc[NPROF_MAX_CORES];
	uint64_t init_ns;		/* CLOCK_REALTIME at begin */
	char instance_id[NPROF_INSTANCE_ID_MAX + 1];
	char dir[PATH_MAX];		/* the session directory */
	int dirfd;			/* of dir, -1 if none */
	bool rt_ref;			/* holds a device-registry reference */
	bool sys_trace_owned;		/* started the system trace */
	struct nprof_monitor *monitor;
	struct nprof_armed_core *armed;	/* SESSION cores */
	size_t narmed;
	uint64_t generation;		/* counts sessions begun in this process */
};

extern struct nprof_inspect_state nprof_insp;

/*
 * The inspect lock. Holding it blocks SIGINT and SIGTERM in the thread (so
 * the crash flush of an asynchronous signal never runs in a thread that
 * holds it) and counts the hold in nprof_inspect_lock_depth (so the flush of
 * a fault raised while holding it knows not to wait for it).
 */
struct nprof_inspect_guard {
	sigset_t saved;
};

void nprof_inspect_lock_shared(struct nprof_inspect_guard *g);
void nprof_inspect_lock_excl(struct nprof_inspect_guard *g);
void nprof_inspect_unlock(struct nprof_inspect_guard *g);
extern __thread int nprof_inspect_lock_depth;

/*
 * For the crash flush and the atexit hook: take the lock exclusively within
 * @wait_ms by polling trylock (a blocking wait could be on a holder that
 * never returns). 0; -EDEADLK if this thread holds it; -ETIMEDOUT. Release
 * with nprof_inspect_unlock_raw(). No signal mask is changed.
 */
int nprof_inspect_trylock_excl(unsigned int wait_ms);
void nprof_inspect_unlock_raw(void);

/*
 * The pid of the process whose session is active, 0 if none; readable
 * without the lock (the crash flush peeks at it before trying the lock).
 */
pid_t nprof_inspect_active_pid(void);

/* Is the session active in this process (not one inherited over fork)? Locked. */
bool nprof_inspect_live(void);

/* Does the live session capture device profiles? Locked. */
bool nprof_inspect_device_profiling(void);

/*
 * The harvest of nprof_inspect_stop(), called with the lock held
 * exclusively. @crash: from the crash flush (no reference is released and
 * nothing is freed that the dying process does not need freed).
 */
int nprof_inspect_harvest_locked(bool crash);

/* Move @name of the session directory into the salvage directory. Locked. */
int nprof_inspect_salvage(const char *name);

/* ---- the MODEL record map (inspect_records.c) --------------------------------
 *
 * The seed's ntff_record_map: one record per "<model>_vnc_<vnc>.ntff" of the
 * session, with a complete flag; at most one profile per model per core.
 */
struct nprof_record {
	char name[NAME_MAX + 1];	/* the key: the file name */
	bool complete;
	bool abandoned;			/* completed by a stop, not by its execution */
	bool wanted;			/* MODEL mode wants it written */
	bool on_fail;			/* write and salvage it if the execution fails */
	bool armed;			/* a capture session runs for it */
	uint32_t vnc;
	uint32_t local;
	struct nprof_capture *cap;
	uint64_t model_id;
	char model_name[256];
};

/* Insert a new incomplete record; -EEXIST if @r->name has one. */
int nprof_records_insert(const struct nprof_record *r);

/* Record that the capture of @name is armed (fills armed, cap, local). */
int nprof_records_set_armed(const char *name, struct nprof_capture *cap, uint32_t local);

/*
 * Complete @name and copy it into @out (may be NULL). -EALREADY with
 * "Trying to stop already completed profile <name>" if it is missing or
 * already complete; @out then holds the completed record if there is one
 * (check @out->abandoned), else @out->name is "".
 */
int nprof_records_complete(const char *name, struct nprof_record *out);

/* Remove @name; -ENOENT if missing. */
int nprof_records_erase(const char *name);

/*
 * Complete every incomplete armed record as abandoned and copy them into
 * @out (up to @max); returns how many there were.
 */
size_t nprof_records_abandon(struct nprof_record *out, size_t max);

/* Number of records, and how many are complete. */
size_t nprof_records_count(size_t *complete);

/* Forget every record. */
void nprof_records_clear(void);

/* ---- per-execution captures (profile_model.c, continuous.c) ------------- */

/* What an execution armed, kept in the model between begin and end. */
struct nprof_exec_capture {
	bool model_armed;		/* a MODEL record was inserted */
	uint64_t generation;		/* of the session it was armed in */
	char record[NAME_MAX + 1];
	bool continuous_armed;
};

struct nprof_model;

void nprof_model_capture_arm(struct nprof_model *m, struct nprof_exec_capture *ec);
int nprof_model_capture_finish(struct nprof_model *m, struct nprof_exec_capture *ec,
			       uint32_t status);

/* Stop and drop the armed captures of executions in flight (inspect stop). */
void nprof_model_capture_abandon_all(bool crash);

/* A new session: forget the previous one's records and warnings. Locked. */
void nprof_model_capture_reset(void);

void nprof_continuous_exec_begin(struct nprof_model *m, struct nprof_exec_capture *ec);
void nprof_continuous_exec_end(struct nprof_model *m, struct nprof_exec_capture *ec,
			       uint32_t status);
bool nprof_continuous_enabled(void);

/* Model internals (runtime.c). */
const char *nprof_model_name_internal(const struct nprof_model *m);
uint64_t nprof_model_id_internal(const struct nprof_model *m);
uint32_t nprof_model_vnc_internal(const struct nprof_model *m);

/* ---- crash safety (crash.c) ------------------------------------------------ */

/* Install the signal handlers and the atexit hook, once per process. */
void nprof_crash_install(void);

/*
 * Seams for the host tests: how long the flush waits for the inspect lock
 * held by another thread, and the watchdog that ends a flush that hangs,
 * in milliseconds (defaults 1000 and 10000).
 */
void nprof_crash_set_timeouts(unsigned int lock_wait_ms, unsigned int watchdog_ms);

/* Writes @msg to stderr with write(2) only (async-signal-safe). */
void nprof_crash_say(const char *msg);

#endif /* NEURONPROF_INSPECT_INTERNAL_H */
