/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the machines of a profile and the clock each is placed on,
 * for the exports that put several machines on one timeline (JSON,
 * Perfetto and SQLite; Documentation/analysis.rst, "Several machines").
 *
 * Each recording (summary.h) belongs to the machine named by its NTFF
 * files' instance id (or host name), or by its system profile's. With one
 * machine, timestamps stay as recorded (CLOCK_MONOTONIC). With several,
 * each machine's timestamps move to CLOCK_REALTIME by its clock mapping:
 * trace_info.pb's start_ns and start_realtime_ns, read together at session
 * start (or its sync_* pair, read together when it was written).
 *
 * A machine without a mapping cannot be put on CLOCK_REALTIME: left on its
 * own CLOCK_MONOTONIC it would sit decades (the wall clock's distance from
 * the boot) from the others. It is placed by its own clock instead: its
 * earliest time lands on the earliest time of the mapped machines (of all
 * machines when none is mapped), its durations and its order kept, and a
 * warning says so, naming it and the offset applied.
 */
#ifndef NEURONPROF_TOOL_MACHINES_H
#define NEURONPROF_TOOL_MACHINES_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/profile.h"

struct recording;

enum machine_clock {
	MACHINE_AS_RECORDED,	/* the only machine: its own clock, not moved */
	MACHINE_MAPPED,		/* moved to CLOCK_REALTIME by its clock mapping */
	MACHINE_PLACED,		/* no mapping: placed by its own clock at the timeline's start */
};

struct machine {
	char name[96];		/* instance id, else host name, else "unknown" */
	const char *hostname;	/* of its first NTFF file that has one, or NULL */
	enum machine_clock clock;
	bool has_mapping;	/* map_monotonic_ns/map_realtime_ns hold a mapping */
	uint64_t map_monotonic_ns, map_realtime_ns;
	bool has_start;
	uint64_t start_ns;	/* its earliest time, on its own clock */
	int64_t shift;		/* added to every timestamp of the machine */
};

struct machines {
	uint32_t *file_machine;		/* by index in profile.files */
	uint32_t *sys_machine;		/* by index in profile.sys */
	uint32_t *rec_machine;		/* by index in the recordings given */
	struct machine *v;
	size_t n;
	bool aligned;			/* several machines on one timeline */
	uint64_t unmapped;		/* machines placed without a mapping */
};

/*
 * machines_build() - the machines of @prof, whose recordings are @recs
 * (recordings_split()), with each one's clock and shift; a warning on stderr
 * for each machine placed without a mapping. machines_free() frees it.
 */
void machines_build(struct machines *m, const struct profile *prof,
		    const struct recording *recs, size_t nrec);
void machines_free(struct machines *m);

/* "as recorded", "realtime" or "placed": the words of the SQLite export. */
const char *machine_clock_name(enum machine_clock c);

/*
 * recording_machine_name() - the machine @r belongs to (struct machine's
 * name); recording_has_mapping() - whether its system profile holds a clock
 * mapping.
 */
const char *recording_machine_name(const struct recording *r);
bool recording_has_mapping(const struct recording *r);

#endif /* NEURONPROF_TOOL_MACHINES_H */
