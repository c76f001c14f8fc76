/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): turning a profile into timeline events, independent of the
 * output format.
 *
 * export_run() lays the profile out as processes (one per device and
 * NeuronCore; a format that can nest tracks puts the cores under a track of
 * their device) holding tracks (one per queue, grouped by engine or TopSP,
 * an executions track, counter tracks for throttling), then walks every
 * entry once and calls the format's callbacks:
 *
 *   INFER_STATUS start/stop pair  -> slice   "model M iteration"
 *   EVENT / TOPSP_EVENT start/end -> slice   "<engine> iteration"
 *   TRACE / TOPSP_TRACE           -> slice   "op 0x....", lasting as the
 *                                    timing model says (timing.h)
 *   DMA                           -> instant "dma queue Q"
 *   ERROR / TOPSP_ERROR           -> instant "error C"
 *   THROTTLE                      -> counter "throttle" (level, clock percent)
 *   a loss window                 -> slice   "lost N" (a sequence gap, or
 *                                    what the ring lost after the last
 *                                    entry); no pair or instruction spans
 *                                    one: a cut instruction is not drawn
 *   a start without its stop (or the reverse), other codes -> instant
 *
 * Pairs are matched within one queue, whose entries are in device order:
 * all of its records in file order (struct prof_queue), so a pair, an
 * instruction or a sequence gap may span two records of a streamed file.
 * Each execution (timing.h) is a slice "model M execution" on its
 * core's executions track. The system profile of a session directory adds a
 * process per host process with a track per thread (ntrace.pb events as
 * complete slices) and host counters (cpu_util.pb, host_mem.pb); an
 * nrt_execute call that started an execution is linked to it by a flow.
 * Names of events are drawn from bounded sets (event types, opcodes, models,
 * engines), so a format may intern them.
 */
#ifndef NEURONPROF_TOOL_EXPORT_H
#define NEURONPROF_TOOL_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/profile.h"
#include "util/util.h"
#include "util/progress.h"

/*
 * Process ids of NeuronCores: XPID_DEVICE_BASE + 1000 * device + core. The
 * base is above the kernel's PID_MAX_LIMIT (2^22), so a NeuronCore never
 * shares a pid with a host process of the system profile.
 */
#define XPID_DEVICE_BASE	10000000

/*
 * With several machines in one export, machine m > 0 moves its NeuronCores by
 * XPID_MACHINE_STEP * m and its host processes to XPID_HOST_BASE +
 * PID_MAX_LIMIT * (m - 1) + pid, so nothing of two machines merges.
 */
#define XPID_MACHINE_STEP	100000
#define XPID_HOST_BASE		200000000
#define XPID_PID_MAX		4194304

/* A process: one NeuronCore of one device, or a host process. */
struct xproc {
	bool host;		/* a host process of the system profile */
	uint32_t dev, core;	/* NeuronCore processes */
	int32_t pid;		/* XPID_DEVICE_BASE + ..., or the host pid */
	uint64_t uuid;		/* Perfetto track uuid, > 0 */
	int sort_index;
	char name[96];
	/* The machine (host) of a multi-host export, and its clock shift. */
	uint32_t machine;
	int64_t shift;		/* added to every timestamp: CLOCK_MONOTONIC -> REALTIME */
	/* NeuronCore processes: the device they belong to. */
	uint64_t dev_uuid;	/* Perfetto track uuid of the device, > 0 */
	int32_t dev_pid;	/* XPID_DEVICE_BASE + 1000 * device + 999 */
	bool dev_first;		/* the first core of its device in process order */
	char dev_name[64];
};

/* Unit of a counter track, as Perfetto's CounterDescriptor.Unit. */
enum xunit {
	XUNIT_NONE,
	XUNIT_TIME_NS,
	XUNIT_COUNT,
	XUNIT_BYTES,
};

enum xtrack_kind {
	XT_GROUP,	/* an engine or a TopSP: parent of its queue tracks */
	XT_QUEUE,	/* one notification queue */
	XT_COUNTER,	/* one counter series */
	XT_THREAD,	/* a host thread (system profile events) */
	XT_EXEC,	/* the executions of a NeuronCore */
};

struct xtrack {
	enum xtrack_kind kind;
	const struct xproc *proc;
	/* Identity: queue type (or counter series), target, engine. */
	uint32_t queue_type, target_kind, target_index, engine;
	int32_t tid;		/* thread id in Chrome JSON, unique in the process */
	uint64_t uuid;		/* Perfetto track uuid, > 0 */
	uint64_t parent_uuid;	/* group or process */
	int sort_index;
	char name[64];		/* within its parent: "TRACE", "engine 1 (vector)" */
	char full_name[128];	/* alone: "engine 1 (vector) TRACE" */
	enum xunit unit;	/* counters */
	const char *unit_name;	/* counters: "%", "level", or NULL */
};

enum xarg_kind {
	XARG_U64,
	XARG_HEX,
	XARG_STR,
	XARG_I64,
	XARG_DOUBLE,
};

/*
 * One argument; the member its kind names holds the value (a union: one is
 * built for every argument of every event).
 */
struct xarg {
	const char *key;
	enum xarg_kind kind;
	union {
		uint64_t u;
		const char *s;
		int64_t i;
		double d;
	};
};

#define XARGS_MAX	10

/* How a slice is best written where the format offers a choice. */
enum xslice_style {
	XSLICE_COMPLETE,	/* one record with a duration (inferences) */
	XSLICE_BEGIN_END,	/* begin and end records, as the device reported them */
};

struct xcounter {
	const struct xtrack *track;	/* XT_COUNTER track of the series */
	const char *key;		/* series name inside the counter */
	bool is_double;
	int64_t value;
	double dvalue;			/* when is_double */
};

/*
 * The name_key of a slice named by opcode @code spelled in hex; a name of the
 * profile is keyed by its address, below 2^62 on every ABI.
 */
#define XNAME_KEY_CODE(code)	(1ULL << 62 | (uint32_t)(code))

/*
 * struct xinstr - an instruction: the slice (XSLICE_COMPLETE, category
 * "instruction", no flow) named @name, @name_key, from @ts to @end_ts, with
 * the arguments "code" (XARG_STR, opcode @code as CODE_FMT; only when
 * @named, the slice then named by the device's name of it), "pc",
 * "operand0" and "operand1" (XARG_HEX), in that order.
 */
struct xinstr {
	const char *name;
	uint64_t name_key;
	uint64_t ts, end_ts;
	uint64_t pc, op0, op1;
	uint32_t code;
	bool named;
};

/*
 * struct xdma - a DMA transfer: the instant (category "dma") named @name at
 * @ts, with the arguments "model_id", "iteration", "seq", "bytes" (XARG_U64),
 * "src" and "dst" (XARG_HEX), in that order. @slot (below XDMA_SLOTS) is the
 * same for every transfer of a batch named by the same string, which stays
 * where @name points for the whole batch, so that a format may keep what
 * repeats per slot for the batch.
 */
#define XDMA_SLOTS	16

struct xdma {
	const char *name;
	uint64_t ts;
	uint64_t model_id, iteration, seq;
	uint64_t bytes, src, dst;
	uint32_t slot;
};

/* An instruction's opcode and whether it is named, in one word (a format's cache key). */
#define XINSTR_TAG(code, named)	((uint64_t)(code) | (uint64_t)(named) << 32)

/*
 * A format's cache of what repeats per instruction name and opcode: slots
 * keyed by name_key (0: empty) and XINSTR_TAG, XINSTR_CACHE of them, two
 * ways per set. xinstr_set() is the index of the first way of the
 * instructions named by @key of opcode @code; a new slot goes first, the
 * one it replaces second.
 */
#define XINSTR_CACHE	512

static inline size_t xinstr_set(uint64_t key, uint32_t code)
{
	uint64_t h = (key * 0x9e3779b97f4a7c15ULL ^ (uint64_t)code << 32) * 0xff51afd7ed558ccdULL;

	return (h >> 54) % (XINSTR_CACHE / 2) * 2;
}

/*
 * Callbacks of an output format; each returns 0 or -1 after an error message.
 * Categories and argument keys are string literals or strings of the
 * profile, unchanged for the whole export, so a format may remember them by
 * address; names may be built afresh for each event.
 */
struct export_stats;

struct xformat {
	int (*begin)(void *ctx, const char *source);
	int (*process)(void *ctx, const struct xproc *p);
	int (*track)(void *ctx, const struct xtrack *t);
	/*
	 * A slice; @flow_out (non-zero) starts a flow at it, @flow_in ends the
	 * flow of that id at it. @name_key, when non-zero, is the same for
	 * every slice of the export named by the same string (an instruction's
	 * opcode: XNAME_KEY_CODE() or its name's address in the profile), so
	 * a format may remember the name by it instead of by its bytes.
	 */
	int (*slice)(void *ctx, const struct xtrack *t, enum xslice_style style, const char *cat,
		     const char *name, uint64_t name_key, uint64_t ts, uint64_t end_ts,
		     const struct xarg *args, int nargs, uint64_t flow_out, uint64_t flow_in);
	int (*instant)(void *ctx, const struct xtrack *t, const char *cat, const char *name,
		       uint64_t ts, const struct xarg *args, int nargs);
	/*
	 * Instructions, nearly every event of an export, @n of them on track
	 * @t, in order: each exactly the slice slice() would be given (see
	 * struct xinstr) and the same bytes out. A callback of their own, for
	 * a batch, so that a format can keep what repeats (everything but the
	 * numbers) per track and opcode and loop over the numbers.
	 */
	int (*instrs)(void *ctx, const struct xtrack *t, const struct xinstr *v, size_t n);
	/*
	 * DMA transfers, @n of them on track @t, in order: each exactly the
	 * instant instant() would be given (see struct xdma) and the same
	 * bytes out; a batch, as instrs(). NULL: instant() one by one.
	 */
	int (*dmas)(void *ctx, const struct xtrack *t, const struct xdma *v, size_t n);
	int (*counter)(void *ctx, const struct xproc *p, const char *name, uint64_t ts,
		       const struct xcounter *series, int n);
	/*
	 * The end; when the profile lost entries (@st's lost_recorded or
	 * seq_gaps), the format writes the loss totals of @st into its
	 * metadata.
	 */
	int (*end)(void *ctx, const struct export_stats *st);
};

/*
 * DEFINE_XFORMAT(name, p) - the struct xformat @name of a format whose
 * callbacks are p_begin(), p_process(), p_track(), p_slice(), p_instant(),
 * p_instrs(), p_dmas(), p_counter() and p_end(), as the kernel's DEFINE_SHOW_ATTRIBUTE() builds
 * file operations from a prefix: a format that lacks one does not build.
 */
#define DEFINE_XFORMAT(name, p)					\
	const struct xformat name = {				\
		.begin = p##_begin,				\
		.process = p##_process,				\
		.track = p##_track,				\
		.slice = p##_slice,				\
		.instant = p##_instant,				\
		.instrs = p##_instrs,				\
		.dmas = p##_dmas,				\
		.counter = p##_counter,				\
		.end = p##_end,					\
	}

/*
 * xinstr_slice() - instruction @in as @fmt's slice() callback takes it:
 * what xformat.instrs stands for, a format's fallback.
 */
int xinstr_slice(const struct xformat *fmt, void *ctx, const struct xtrack *t,
		 const struct xinstr *in);

/*
 * xdma_instant() - DMA transfer @d as @fmt's instant() callback takes it:
 * what xformat.dmas stands for, a format's fallback.
 */
int xdma_instant(const struct xformat *fmt, void *ctx, const struct xtrack *t,
		 const struct xdma *d);

/*
 * Counter series (xtrack.queue_type of XT_COUNTER tracks): THROTTLE of a
 * NeuronCore, and the host's cpu_util.pb and host_mem.pb.
 */
enum xcounter_series {
	XCOUNTER_THROTTLE_LEVEL,
	XCOUNTER_THROTTLE_CLOCK,
	XCOUNTER_CPU_UTIL,
	XCOUNTER_CPU_USER,
	XCOUNTER_CPU_SYSTEM,
	XCOUNTER_CPU_IOWAIT,
	XCOUNTER_MEM_USED,
	XCOUNTER_MEM_AVAILABLE,
	XCOUNTER_PROCESS_RSS,
	XCOUNTER_SERIES,
};

struct export_stats {
	uint64_t entries, slices, instants, counters, lost_markers, executions, flows;
	/* Loss windows (lost_markers: each a slice), the entries they hold, instructions cut. */
	uint64_t lost_entries, cut;
	uint64_t lost_recorded, seq_gaps;	/* the rings' lost counts; sequence gaps */
	uint64_t machines, unmapped;	/* machines; those without a clock mapping */
	uint64_t host_events, host_samples;	/* system profile */
	uint64_t rows;				/* SQLite: rows written */
	uint64_t raw_entries;			/* SQLite: rows of raw_entries */
};

/*
 * export_run() - lay out @prof and feed every event to @fmt.
 * Return: 0, or -1 after an error message.
 */
int export_run(const struct profile *prof, const char *source, const struct xformat *fmt,
	       void *ctx, struct progress *pg, struct export_stats *st);

/* The formats. @out is written with stdio; the caller flushes and closes it. */
struct json_export;
struct json_export *json_export_new(FILE *out);
void json_export_free(struct json_export *x);
extern const struct xformat json_format;

struct perfetto_export;
struct perfetto_export *perfetto_export_new(FILE *out);
void perfetto_export_free(struct perfetto_export *x);
extern const struct xformat perfetto_format;

/*
 * sqlite_export() - @prof as an SQLite database at @path (an empty file or
 * none), schema in Documentation/analysis.rst; @source is the path the
 * profile came from, @name the file the user asked for (@path is its
 * temporary until it is complete). Return: 0, or -1 after an error naming
 * @name.
 */
int sqlite_export(const struct profile *prof, const char *source, const char *path,
		  const char *name, struct progress *pg, struct export_stats *st);

/**
 * struct export_format - one format of export (formats.c).
 * @name: what --format takes.
 * @about: one line for --help.
 * @binary: what the output is called when it must not go to a terminal
 *	("a Perfetto trace"), or NULL for text.
 * @timeline: a timeline format: its callbacks, fed by export_run() ...
 * @open: ... with the context this makes for the output stream ...
 * @close: ... and frees afterwards.
 * @database: or a database, written by file name (output.h's
 *	OUTPUT_BY_NAME) and reported in rows: sqlite_export().
 */
struct export_format {
	const char *name;
	const char *about;
	const char *binary;
	const struct xformat *timeline;
	void *(*open)(FILE *out);
	void (*close)(void *ctx);
	int (*database)(const struct profile *prof, const char *source, const char *path,
			const char *name, struct progress *pg, struct export_stats *st);
};

/*
 * export_format_run() - writes @prof in @fmt: to @out for a timeline, to
 * the file @path for a database (@name being what the user asked for).
 * Return: 0, or -1 after an error message.
 */
int export_format_run(const struct export_format *fmt, const struct profile *prof,
		      const char *source, FILE *out, const char *path, const char *name,
		      struct progress *pg, struct export_stats *st);

/* Every format, ending with one whose @name is NULL. */
extern const struct export_format export_formats[];

/* export_format_find() - the format called @name, or NULL. */
const struct export_format *export_format_find(const char *name);

/* export_format_names() - "json, perfetto or sqlite" into @buf; returns @buf. */
const char *export_format_names(char *buf, size_t len);

/*
 * Ids of host events, found by the event: the flow id of the host call
 * that started an execution (export.c), a host event's row (SQLite).
 */
struct event_id {
	const Neuronprof__System__NtraceEvent *ev;
	uint64_t id;
};

struct event_ids {
	struct event_id *v;
	size_t n;
};

/* event_ids_sort() - orders @m by event, for event_ids_find(). */
void event_ids_sort(struct event_ids *m);

/* event_ids_find() - the id of @ev in @m, or 0 when it has none. */
uint64_t event_ids_find(const struct event_ids *m, const Neuronprof__System__NtraceEvent *ev);

/* host_source_name() - "neuron_rt", "neuron_hw", "framework" or "host". */
const char *host_source_name(uint32_t source);

/*
 * The pragmas sqlite_export() sets before its one transaction (the
 * benchmark's bare insert loop uses the same).
 */
#define SQLITE_EXPORT_PRAGMAS	"PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"

#endif /* NEURONPROF_TOOL_EXPORT_H */
