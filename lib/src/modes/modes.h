/* SPDX-License-Identifier: MIT */
/*
 * The capture modes (layer 5 of the library, lib/src/README): SESSION,
 * MODEL, on-fail and continuous capture, each behind one small interface,
 * struct nprof_mode_ops, that the inspect controller (session/inspect.c)
 * dispatches to. The controller tells a mode what the live session is
 * through a struct nprof_session_view it owns and guards; a mode never
 * calls the controller, the runtime hooks or the crash path.
 *
 * modes/ may call util/, model/, ntff/, output/, device/, capture/, trace/
 * and config/ (continuous profiling reads NEURON_RT_INSPECT_DEVICE_PROFILE
 * the way the configuration does), never session/.
 *
 * Beside the interface, the modes' own public entry points live here:
 * nprof_profile_start/_stop (direct.c) and nprof_profile_continuous_*
 * (continuous.c) of <neuronprof/profile.h>; the controller's
 * nprof_inspect_salvage_dir() asks onfail.c (nprof_onfail_salvage_dir()).
 */
#ifndef NEURONPROF_MODES_H
#define NEURONPROF_MODES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <neuronprof/capture.h>
#include <neuronprof/config.h>
#include <neuronprof/output.h>

#include "model/registry.h"

/*
 * The live inspect session as the modes see it. The controller fills it at
 * begin and hands it to every call below with the inspect lock held (shared
 * for the execution hooks, exclusive for begin, stop and abort).
 */
struct nprof_session_view {
	int session_id;
	bool enable_inspect;
	bool on_fail;
	bool device;			/* device profiling is on (activity and mode) */
	enum nprof_device_profile_mode mode;
	uint8_t capture_nc[NPROF_MAX_CORES];
	uint64_t exec_first, exec_last;	/* capture range (0, 0: every execution) */
	uint64_t generation;		/* counts sessions begun in this process */
	int dirfd;			/* the session directory */
	const char *dir;
	const char *instance_id;
};

/* What an execution armed, kept in the model between begin and end. */
struct nprof_exec_capture {
	bool model_armed;		/* a MODEL record was inserted */
	uint64_t generation;		/* of the session it was armed in */
	char record[NAME_MAX + 1];
	uint64_t range_n;		/* MODEL range: this execution's number, else 0 */
	bool continuous_armed;
};

/*
 * One capture mode. Every member may be NULL. @s is NULL in the execution
 * hooks when no session is live in this process (only continuous
 * profiling captures then).
 * @begin:	a session begins (after its directory exists); a failure
 *		makes the controller call @abort of the modes begun before,
 *		in reverse order. Return 0 or -errno with the message recorded.
 * @abort:	undo @begin.
 * @exec_begin, @exec_end: an execution of model @m begins / ends with
 *		@status (NPROF_EXEC_OK or the runtime's error status); @exec_end
 *		returns 0 or the -errno of a profile that could not be written.
 * @stop:	the session's harvest (stop, crash flush, atexit); @crash: from
 *		the crash flush, where nothing is released that the dying process
 *		does not need released. Return 0 or the first -errno.
 * @close:	nprof_inspect_close(): release what sessions left behind.
 */
struct nprof_mode_ops {
	const char *name;
	int (*begin)(const struct nprof_session_view *s);
	void (*abort)(const struct nprof_session_view *s);
	void (*exec_begin)(const struct nprof_session_view *s, const struct nprof_model_info *m,
			   struct nprof_exec_capture *ec);
	int (*exec_end)(const struct nprof_session_view *s, const struct nprof_model_info *m,
			struct nprof_exec_capture *ec, uint32_t status);
	int (*stop)(const struct nprof_session_view *s, bool crash);
	void (*close)(void);
};

/* continuous.c: excludes inspect device profiling both ways; captures without a session. */
extern const struct nprof_mode_ops nprof_mode_continuous;
/* model.c: the first execution of each model on each core (MODEL) and failed executions (on-fail). */
extern const struct nprof_mode_ops nprof_mode_model;
/* session.c: every armed core from begin to stop (SESSION). */
extern const struct nprof_mode_ops nprof_mode_session;
/* onfail.c: the salvage directory ./tmp of profiles of failed executions. */
extern const struct nprof_mode_ops nprof_mode_onfail;

struct nprof_capture_label;

/*
 * harvest.c: write the stopped capture session @sid of (@cap, @local) into
 * the session directory of @s as @name, described by @label; dropped if it
 * cannot be written. Return: 0, or -errno with "cannot write <dir>/<name>:
 * <why>" recorded and logged.
 */
int nprof_mode_write_harvest(const struct nprof_session_view *s, struct nprof_capture *cap,
			     uint32_t local, uint64_t sid, const char *name,
			     const struct nprof_capture_label *label);

/* Is continuous profiling enabled? (A MODEL capture then steps aside.) */
bool nprof_continuous_enabled(void);

/* Move @name of the session directory into the salvage directory. */
int nprof_onfail_salvage(const struct nprof_session_view *s, const char *name);

/*
 * The salvage directory of this process, "./tmp/<instance_id>-<pid>", into
 * @buf (@len bytes): its length, or -errno. The controller's
 * nprof_inspect_salvage_dir() is this.
 */
int nprof_onfail_salvage_dir(char *buf, size_t len);

/* ---- the MODEL record map (records.c) --------------------------------
 *
 * The seed's ntff_record_map: one record per "<model>_vnc_<interned id>.ntff" of the
 * session, with a complete flag; at most one profile per model per core (per interned id).
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
	uint64_t exec_first;		/* a MODEL range's window: its first execution, else 0 */
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

/* Is @name recorded, incomplete and armed (a MODEL range's window between executions)? */
bool nprof_records_armed(const char *name);

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

#endif /* NEURONPROF_MODES_H */
