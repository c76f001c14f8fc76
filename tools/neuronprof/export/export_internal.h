/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): what the three parts of export_run() share: the layout
 * (export_layout.c) of processes and tracks, and the walk of one queue
 * (export_walk.c); export.c runs them and walks executions and the system
 * profile.
 */
#ifndef NEURONPROF_TOOL_EXPORT_INTERNAL_H
#define NEURONPROF_TOOL_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "export/export.h"

struct machines;
struct timing;

struct layout {
	struct xproc **procs;
	size_t nprocs;
	struct xtrack **tracks;
	size_t ntracks;
	/* Queue track of each queue: qtrack[file][queue] (prof_file.lqueues). */
	struct xtrack ***qtrack;
	/* Host events: the lane of each, lane[system profile][event]. */
	uint32_t **lane;
	const struct machines *m;
};

/* Lay @prof out: processes, tracks, the track of each queue, host lanes. */
void layout_build(struct layout *l, const struct profile *prof, const struct timing *tm,
		  const struct machines *m);
void layout_free(struct layout *l, const struct profile *prof);

/* The counter track of @series in process @p, or NULL. */
const struct xtrack *counter_track(const struct layout *l, const struct xproc *p,
				   uint32_t series);

/* The process of host process @pid (of @instance) on @machine, made on first use. */
struct xproc *host_proc(struct layout *l, uint32_t machine, uint32_t pid, const char *instance);

/* The track of host thread @tid, lane @lane, in @p, made on first use. */
struct xtrack *host_thread(struct layout *l, const struct xproc *p, uint32_t tid, uint32_t lane);

/* A TopSP queue type (TOPSP_TRACE, TOPSP_EVENT, TOPSP_ERROR). */
bool topsp_type(uint32_t qt);

/*
 * Walk queue @k of file @f (on @machine) onto track @t: every entry once,
 * starts paired with stops, instructions timed by @tm, in the format's
 * callbacks. @done counts the entries for @pg.
 */
int export_queue(const struct layout *l, const struct timing *tm, uint32_t machine,
		 const struct prof_file *f, size_t k, const struct xtrack *t,
		 const struct xformat *fmt, void *ctx, struct progress *pg, uint64_t *done,
		 struct export_stats *st);

#endif /* NEURONPROF_TOOL_EXPORT_INTERNAL_H */
