/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the statistics of one recording that `summary` prints as
 * text, JSON or CSV (Documentation/analysis.rst). Everything is computed
 * once, here, so the three outputs cannot disagree.
 */
#ifndef NEURONPROF_TOOL_SUMMARY_H
#define NEURONPROF_TOOL_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/profile.h"
#include "analysis/timing.h"
#include "util/util.h"
#include "util/progress.h"

/* A recording: the NTFF files and system profile of one directory. */
struct recording {
	char *path;
	const struct prof_file **files;
	size_t nfiles;
	const struct sysprof *sys;	/* NULL when the directory has none */
};

/*
 * recordings_split() - the recordings of @p: one per directory holding NTFF
 * files or a system profile, in path order; for a single file (@is_file),
 * that file, named @arg. recordings_free() frees what it returns.
 */
struct recording *recordings_split(const struct profile *p, const char *arg, bool is_file,
				   size_t *nrec);
void recordings_free(struct recording *r, size_t n);

/*
 * recording_print_ranges() - one line per file of @r whose capture was
 * limited to a range of executions or iterations (NTFF 1.3: record
 * --executions A-B, --iterations A-B, a --delay or --control window),
 * each starting with @indent: the core, the range and the file. Nothing
 * for files that were not.
 */
void recording_print_ranges(const struct recording *r, const char *indent);

/*
 * recording_range_text() - that line of file @f, without indent or newline,
 * into @buf ("captured executions 3-5, iterations 2-4 of each of NeuronCore
 * 0 (profile_nc_0_session_0.ntff)"): true, or false when @f's capture had
 * no range (@buf untouched).
 */
bool recording_range_text(const struct prof_file *f, char *buf, size_t len);

/* One PATH of a command line, loaded and split into its recordings. */
struct path_recordings {
	struct profile prof;
	struct recording *recs;
	size_t nrec;
	bool loaded;
};

/*
 * The PATHs of a command line (summary, report, exporter --replay), each
 * loaded and split into its recordings; @recs lists them all in the order
 * of the PATHs.
 */
struct path_set {
	struct path_recordings *paths;	/* one per PATH */
	size_t npaths;
	struct recording **recs;
	size_t nrec;
	size_t nfiles;
	uint64_t entries;
	size_t skipped;			/* files left out (--keep-going) */
};

/*
 * paths_load() - load the @n PATHs @paths into @ps. With @keep a PATH that
 * does not read is skipped with a warning (--keep-going); without, the
 * first one stops the load. Return: 0, or EXIT_FAIL after the message
 * ("nothing to @verb" when no PATH could be read). paths_free() frees @ps
 * either way.
 */
int paths_load(struct path_set *ps, char *const *paths, size_t n, bool keep, const char *verb);
void paths_free(struct path_set *ps);

/* Distribution of a set of durations. */
struct dist {
	uint64_t count, total, min, avg, median, p95, p99, max;
};

struct op_stats {
	uint32_t code;
	uint64_t *dur;			/* freed once the distribution is known */
	size_t n, cap;
	struct dist d;
	double busy_pct;		/* of the unit's busy time */
};

/* An idle gap: time between two busy intervals. */
struct idle_gap {
	uint64_t start, end;
};

struct top_gaps {
	struct idle_gap *g;		/* longest first once finished */
	size_t n, max;
};

/* An engine or a TopSP of a NeuronCore. */
struct unit {
	UNIT_ID_MEMBERS;
	uint64_t instructions, events, event_slices, event_busy, busy;
	uint64_t dma, dma_bytes, errors, lost, gaps;
	uint64_t first, last;
	bool any;
	double util_pct;
	uint64_t dma_bytes_per_s;	/* DMA bytes per second of the core's active span */
	struct op_stats *ops;		/* sorted by total, largest first, when finished */
	size_t nops;
	uint32_t *slots;		/* open-addressing index of ops by code */
	size_t nslots;
	struct top_gaps idle;
	/*
	 * Losses (Documentation/analysis.rst, Loss windows): @cut instructions
	 * whose end a loss hides, left out of every figure above; @observed
	 * the core's active span less the loss windows of the unit's
	 * instruction queue, over which @util_pct is taken when @lossy.
	 */
	uint64_t cut, observed;
	bool lossy;
};

/*
 * A loss window of a queue: where its lost entries were. A sequence gap
 * lies between the two delivered entries around it (@start, @end); the
 * entries its rings counted lost beyond its sequence gaps (@tail) came after
 * its last entry (a ring never overwrites unread entries), up to the end of
 * the capture (the file's stop_ns; the whole capture for a queue without
 * entries).
 */
struct loss_window {
	uint64_t start, end, lost;
	uint32_t queue_type, target_kind, target_index, engine;
	bool tail;
};

/* An error code of a core: how many ERROR and TOPSP_ERROR entries had it, first and last. */
struct code_count {
	uint32_t code;
	uint64_t count, first_ns, last_ns;
};

struct level_time {
	uint32_t level;
	uint64_t events, ns;
	double pct;			/* of the core's span */
};

struct throttle_mark {
	uint64_t ts;
	uint32_t level;
};

struct core_stats {
	uint32_t dev, core, arch;
	char provider[16];
	/* The device's names of its codes (names.h), from the core's first file. */
	const struct nprof_ntff_code_name *names;
	size_t nnames;
	uint64_t entries, errors, throttles, lost, gaps;
	uint32_t max_throttle;
	uint64_t first, last;
	bool any;
	uint64_t inferences, infer_failed, infer_busy;
	/*
	 * busy: the union of the intervals of its units' instructions (@iv, freed
	 * once merged); util_pct: busy over the active span.
	 */
	uint64_t busy;
	double util_pct;
	struct busy_iv { uint64_t start, end; } *iv;
	size_t niv, iv_cap;
	const struct core_timing *ct;
	struct unit *units;		/* engines by number, then TopSPs by number */
	size_t nunits;
	struct code_count *errs;
	size_t nerrs;
	struct throttle_mark *marks;
	size_t nmarks, marks_cap;
	struct level_time *levels;
	size_t nlevels;
	struct top_gaps idle;
	/*
	 * Its queues' loss windows, in the order of the queues; @cut: its
	 * units' cut instructions; @observed: the active span less the union
	 * of its instruction queues' loss windows; @lossy when that union is
	 * not empty: then @busy is the union of the instructions outside it
	 * and @util_pct is over @observed (both of every unit too).
	 */
	struct loss_window *lw;
	size_t nlw;
	uint64_t cut, observed;
	bool lossy;
};

/*
 * A queue of a file (all its records): where it is, what it is, and the
 * entries it lost: those its ring counted (@lost) and those missing from
 * its sequence numbers (@gaps). rec_stats.losses holds those that lost any.
 */
struct queue_loss {
	const char *file;
	size_t record, records;		/* its first record in the file; how many it has */
	uint32_t queue_type, target_kind, target_index, engine;
	uint64_t lost, gaps;
};

/*
 * A queue of raw entries (all its records): counted, never decoded (no op,
 * event or error statistics come from bytes whose layout is not known).
 */
struct raw_queue {
	struct queue_loss q;
	uint32_t dev, core, format, clock_domain;
	uint64_t entries;		/* ring entries */
	uint64_t device_entries;	/* device entries they hold parts of */
};

/*
 * An op across the cores of a recording (same unit kind, unit number and
 * op code): the durations of all its instructions on every core, and which
 * cores ran it.
 */
struct xop {
	bool topsp;
	uint32_t index, code;
	uint64_t *dur;			/* freed once the distribution is known */
	size_t n;
	struct dist d;
	uint32_t *cores;		/* indexes into rec_stats.cores, ascending */
	size_t ncores;
};

struct model_stats {
	uint32_t model_id;
	const char *name;		/* its files' model_name, or NULL (names.h) */
	uint64_t failed;
	struct dist lat;		/* device latency of its executions */
	uint64_t host_matched;
	struct dist host;		/* nrt_execute durations of matched calls */
	struct dist overhead;		/* host call minus device latency */
};

struct host_type {
	const char *name;
	uint64_t *dur;
	size_t n, cap;
	struct dist d;
};

/*
 * struct stats_observer - what rec_stats_build_observed() tells as it reads
 * a recording, for a caller that needs the figures in time (exporter
 * --replay) computed by this code and no other. Any member may be NULL.
 *
 * @entry: every entry of a queue, in the queue's order; @core is the
 *	queue's NeuronCore (queue_core()).
 * @instruction: a TRACE or TOPSP_TRACE entry at @ts whose end (@end, the
 *	timing model's) is known, of engine or TopSP @unit (@topsp).
 * @queue_done: after a queue's last entry, with its sequence gaps.
 */
struct stats_observer {
	void *ctx;
	void (*entry)(void *ctx, const struct prof_file *f, const struct prof_queue *lq,
		      uint32_t core, const struct entry *e);
	void (*instruction)(void *ctx, const struct prof_file *f, uint32_t core, bool topsp,
			    uint32_t unit, uint64_t ts, uint64_t end);
	void (*queue_done)(void *ctx, const struct prof_file *f, const struct prof_queue *lq,
			   uint32_t core, uint64_t gaps);
};

struct rec_stats {
	const struct recording *rec;
	const struct stats_observer *obs;	/* NULL: nobody */
	uint64_t queues, entries;	/* queue records, entries */
	struct core_stats *cores;
	size_t ncores;
	struct queue_loss *losses;
	size_t nlosses;
	struct raw_queue *raws;
	size_t nraws;
	uint64_t raw_entries;		/* ring entries of raw queues */
	struct timing timing;
	struct model_stats *models;
	size_t nmodels;
	struct xop *xops;		/* sorted by total, largest first */
	size_t nxops;
	struct host_type *host;
	size_t nhost;
	uint64_t host_events;
	unsigned int top;
	bool keep_durations;		/* rec_stats_build_durations() */
};

/* The name the device of @c gives an instruction of unit @u (@code), or NULL. */
const char *unit_op_name(const struct core_stats *c, const struct unit *u, uint32_t code);

/*
 * The device's name of error code @code of @c (its ERROR queues' name, else
 * its TOPSP_ERROR queues'), or NULL: the names of the ops' codes (names.h).
 */
const char *error_code_name(const struct core_stats *c, uint32_t code);

/*
 * The entries @c's ERROR and TOPSP_ERROR queues lost (the sum of their loss
 * windows: counted by the rings or missing from sequence numbers).
 */
uint64_t error_queue_lost(const struct core_stats *c);

/* The name of cross-core op @x, from the first core that ran it, or NULL. */
const char *xop_name(const struct rec_stats *s, const struct xop *x);

void rec_stats_build(struct rec_stats *s, const struct recording *r, unsigned int top,
		     struct progress *pg, uint64_t *done);
/* rec_stats_build(), telling @obs (may be NULL) what it reads. */
void rec_stats_build_observed(struct rec_stats *s, const struct recording *r, unsigned int top,
			      struct progress *pg, uint64_t *done,
			      const struct stats_observer *obs);
/*
 * rec_stats_build_durations() - rec_stats_build(), keeping the durations of
 * every op of a unit (op_stats.dur) and across cores (xop.dur), sorted
 * ascending, until rec_stats_free(): the samples diff tests (diff.h).
 */
void rec_stats_build_durations(struct rec_stats *s, const struct recording *r,
			       unsigned int top, struct progress *pg, uint64_t *done);
void rec_stats_free(struct rec_stats *s);

/*
 * unit_label() - @u as the tables name it: "0:tensor" for an engine with a
 * name, "7" for one without, "topsp3" for a TopSP. U(u) is it in a
 * temporary buffer.
 */
const char *unit_label(const struct unit *u, char *buf, size_t len);
#define U(u)	unit_label((u), (char[32]){ 0 }, 32)

/*
 * core_unobserved_in() - how much of [@start, @end] the loss windows of
 * @c's instruction queues cover (their union): the time of an interval of
 * the core that is not observed.
 */
uint64_t core_unobserved_in(const struct core_stats *c, uint64_t start, uint64_t end);

/* core_any_unit_gaps() - whether any engine or TopSP of @c has idle gaps. */
bool core_any_unit_gaps(const struct core_stats *c);

/*
 * exec_where() - where the interval [@start, @end] of @ct lies, into @buf:
 * "in execution N" (0-based, in time order), "after execution N" (after
 * its end, before the next starts), "from execution N to execution M" (it
 * spans a start), "before execution M" or "before the first execution".
 */
const char *exec_where(const struct core_timing *ct, uint64_t start, uint64_t end, char *buf,
		       size_t len);

#endif /* NEURONPROF_TOOL_SUMMARY_H */
