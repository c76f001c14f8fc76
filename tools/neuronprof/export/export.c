// SPDX-License-Identifier: MIT
/*
 * neuronprof(1) export, the run (export_run()): lays the profile out
 * (export_layout.c), walks every queue in the order of the files' first
 * entries (export_walk.c), then the executions and the system profile's
 * host events and counters, with the flows that link host calls to the
 * executions they started.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "export/export.h"
#include "export/export_internal.h"
#include "util/fmt.h"
#include "analysis/machines.h"
#include "analysis/names.h"
#include "analysis/summary.h"
#include "analysis/timing.h"

const char *host_source_name(uint32_t source)
{
	switch (source) {
	case NEURONPROF__SYSTEM__EVENT_SOURCE__SOURCE_NEURON_RT: return "neuron_rt";
	case NEURONPROF__SYSTEM__EVENT_SOURCE__SOURCE_NEURON_HW: return "neuron_hw";
	case NEURONPROF__SYSTEM__EVENT_SOURCE__SOURCE_FRAMEWORK: return "framework";
	default: return "host";
	}
}

static int cmp_event_id(const void *a, const void *b)
{
	return cmp_int((uintptr_t)((const struct event_id *)a)->ev,
		       (uintptr_t)((const struct event_id *)b)->ev);
}

void event_ids_sort(struct event_ids *m)
{
	if (m->n > 1)
		qsort(m->v, m->n, sizeof(*m->v), cmp_event_id);
}

uint64_t event_ids_find(const struct event_ids *m, const Neuronprof__System__NtraceEvent *ev)
{
	struct event_id key = { .ev = ev }, *f;

	if (!m->n || !ev)
		return 0;
	f = bsearch(&key, m->v, m->n, sizeof(*m->v), cmp_event_id);
	return f ? f->id : 0;
}

/*
 * Flows: the host calls that started an execution, by event, with their
 * flow id. Flow ids are given in (core, execution) order from 1, so they
 * are unique in the trace.
 */
static void flows_build(struct event_ids *fl, const struct timing *tm)
{
	size_t n = 0;

	for (size_t i = 0; i < tm->ncores; i++)
		for (size_t k = 0; k < tm->cores[i].nexec; k++)
			n += tm->cores[i].exec[k].host != NULL;
	fl->v = xrealloc(NULL, (n + 1) * sizeof(*fl->v));
	fl->n = 0;
	for (size_t i = 0; i < tm->ncores; i++)
		for (size_t k = 0; k < tm->cores[i].nexec; k++)
			if (tm->cores[i].exec[k].host) {
				fl->v[fl->n].ev = tm->cores[i].exec[k].host;
				fl->v[fl->n].id = fl->n + 1;
				fl->n++;
			}
	event_ids_sort(fl);
}

static int host_event(struct layout *l, const Neuronprof__System__NtraceEvent *ev,
		      uint32_t machine, uint32_t lane, const struct xformat *fmt, void *ctx,
		      uint64_t flow_out)
{
	struct xproc *p = host_proc(l, machine, ev->pid, ev->instance_id);
	const struct xtrack *t = host_thread(l, p, ev->tid, lane);
	uint64_t end = ev->end_ns >= ev->start_ns ? ev->end_ns : ev->start_ns;
	struct xarg a[XARGS_MAX];
	int n = 0;

	a[n++] = (struct xarg){ .key = "id", .kind = XARG_HEX, .u = ev->id };
	a[n++] = (struct xarg){ .key = "type", .kind = XARG_U64, .u = ev->type };
	if (ev->has_core_index)
		a[n++] = (struct xarg){ .key = "core", .kind = XARG_U64, .u = ev->core_index };
	if (ev->has_model_id)
		a[n++] = (struct xarg){ .key = "model_id", .kind = XARG_U64, .u = ev->model_id };
	if (ev->n_flow_ids)
		a[n++] = (struct xarg){ .key = "flow_id", .kind = XARG_U64, .u = ev->flow_ids[0] };
	if (ev->has_worker_global_id)
		a[n++] = (struct xarg){ .key = "worker_global_id", .kind = XARG_U64,
					.u = ev->worker_global_id };
	for (size_t i = 0; i < ev->n_attributes && n < XARGS_MAX; i++) {
		const Neuronprof__System__Attribute *at = ev->attributes[i];

		if (!at->key)
			continue;
		a[n] = (struct xarg){ .key = at->key };
		if (at->has_int_value) {
			a[n].kind = XARG_I64;
			a[n].i = at->int_value;
		} else if (at->has_uint_value) {
			a[n].kind = XARG_U64;
			a[n].u = at->uint_value;
		} else if (at->has_double_value) {
			a[n].kind = XARG_DOUBLE;
			a[n].d = at->double_value;
		} else if (at->string_value) {
			a[n].kind = XARG_STR;
			a[n].s = at->string_value;
		} else {
			continue;
		}
		n++;
	}
	return fmt->slice(ctx, t, XSLICE_COMPLETE, host_source_name(ev->source),
			  ev->name && *ev->name ? ev->name : "event", 0,
			  ev->start_ns + (uint64_t)p->shift, end + (uint64_t)p->shift, a, n,
			  flow_out, 0);
}

/* The system profile of one directory: host events, then host counters. */
/* The machines and first entry times cmp_file_start() orders file indexes by. */
static const uint32_t *sort_machine;
static const uint64_t *sort_first;

/* The earliest timestamp of a file's entries (its queues' first), or 0. */
static uint64_t file_first_ts(const struct prof_file *f)
{
	uint64_t first = UINT64_MAX;

	for (size_t k = 0; k < f->nlqueues; k++) {
		struct queue_iter it;
		const void *p;
		struct entry e;

		queue_iter_init(&it, f, &f->lqueues[k]);
		p = queue_iter_next(&it);
		if (!p)
			continue;
		entry_decode(p, it.entry_size, &e);
		if (e.ts < first)
			first = e.ts;
	}
	return first == UINT64_MAX ? 0 : first;
}

/* By machine, then the time of the first entry, then path order. */
static int cmp_file_start(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	return cmp_int(sort_machine[i], sort_machine[j]) ?:
	       cmp_int(sort_first[i], sort_first[j]) ?: cmp_int(i, j);
}

/* The events cmp_event_start() orders indexes of (qsort() has no context). */
static Neuronprof__System__NtraceEvent *const *sort_events;

/* By start, then the longer first (it encloses), then as recorded. */
static int cmp_event_start(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const Neuronprof__System__NtraceEvent *x = sort_events[i], *y = sort_events[j];
	uint64_t xe = x->end_ns >= x->start_ns ? x->end_ns : x->start_ns;
	uint64_t ye = y->end_ns >= y->start_ns ? y->end_ns : y->start_ns;

	return cmp_int(x->start_ns, y->start_ns) ?: cmp_int(ye, xe) ?: cmp_int(i, j);
}

static int walk_sysprof(struct layout *l, const struct sysprof *s, uint32_t machine,
			const uint32_t *lane, const struct xformat *fmt, void *ctx,
			struct export_stats *st, const struct event_ids *fl)
{
	size_t n = s->ntrace ? s->ntrace->n_events : 0, *order;
	int ret = 0;

	/*
	 * In the order they start (an enclosing event first), not the order
	 * they were recorded in (an event is recorded when it ends, after the
	 * events inside it), so that every track's events start in time order.
	 */
	order = xrealloc(NULL, (n ? n : 1) * sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	sort_events = s->ntrace ? s->ntrace->events : NULL;
	if (n > 1)
		qsort(order, n, sizeof(*order), cmp_event_start);
	sort_events = NULL;
	for (size_t k = 0; !ret && k < n; k++) {
		size_t i = order[k];
		uint64_t flow = event_ids_find(fl, s->ntrace->events[i]);

		ret = host_event(l, s->ntrace->events[i], machine, lane[i], fmt, ctx, flow);
		st->host_events++;
		st->flows += flow != 0;
	}
	free(order);
	for (size_t i = 0; !ret && s->cpu && i < s->cpu->n_samples; i++) {
		const Neuronprof__System__CpuUtilSample *cs = s->cpu->samples[i];
		const struct xproc *p = host_proc(l, machine, s->cpu->pid, s->cpu->instance_id);
		const Neuronprof__System__CpuCoreUtil *u = cs->total;
		struct xcounter c[4];

		/* The first sample covers the time since boot: not this run's load. */
		if (!u || !cs->interval_ns)
			continue;
		c[0] = (struct xcounter){ .track = counter_track(l, p, XCOUNTER_CPU_UTIL),
					  .key = "util_pct", .is_double = true, .dvalue = u->util_pct };
		c[1] = (struct xcounter){ .track = counter_track(l, p, XCOUNTER_CPU_USER),
					  .key = "user_pct", .is_double = true, .dvalue = u->user_pct };
		c[2] = (struct xcounter){ .track = counter_track(l, p, XCOUNTER_CPU_SYSTEM),
					  .key = "system_pct", .is_double = true,
					  .dvalue = u->system_pct };
		c[3] = (struct xcounter){ .track = counter_track(l, p, XCOUNTER_CPU_IOWAIT),
					  .key = "iowait_pct", .is_double = true,
					  .dvalue = u->iowait_pct };
		st->host_samples++;
		ret = fmt->counter(ctx, p, "host cpu", cs->ts_ns + (uint64_t)p->shift, c, 4);
	}
	for (size_t i = 0; !ret && s->mem && i < s->mem->n_samples; i++) {
		const Neuronprof__System__HostMemSample *ms = s->mem->samples[i];
		const struct xproc *p = host_proc(l, machine, s->mem->pid, s->mem->instance_id);
		struct xcounter c[3] = {
			{ .track = counter_track(l, p, XCOUNTER_MEM_USED), .key = "used_bytes",
			  .value = (int64_t)ms->host_used_bytes },
			{ .track = counter_track(l, p, XCOUNTER_MEM_AVAILABLE),
			  .key = "available_bytes", .value = (int64_t)ms->host_available_bytes },
			{ .track = counter_track(l, p, XCOUNTER_PROCESS_RSS),
			  .key = "process_rss_bytes", .value = (int64_t)ms->process_rss_bytes },
		};

		st->host_samples++;
		ret = fmt->counter(ctx, p, "host memory", ms->ts_ns + (uint64_t)p->shift, c, 3);
	}
	return ret;
}

/* The name the files of core @c (its machine and device) give model @id, or NULL. */
static const char *exec_model_name(const struct profile *prof, const uint32_t *file_machine,
				   const struct core_timing *c, uint32_t id)
{
	for (size_t i = 0; i < prof->nfiles; i++) {
		const struct prof_file *f = &prof->files[i];
		const char *n;

		if (file_machine[i] != c->host || f->info.device.device_index != c->dev)
			continue;
		n = files_model_name(&f, 1, id);
		if (n)
			return n;
	}
	return NULL;
}

/* The executions of each core as slices on its executions track, flows ending there. */
static int walk_executions(const struct layout *l, const struct timing *tm,
			   const struct event_ids *fl, const struct profile *prof,
			   const uint32_t *file_machine, const struct xformat *fmt, void *ctx,
			   struct export_stats *st)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < tm->ncores; i++) {
		const struct core_timing *c = &tm->cores[i];
		const struct xtrack *t = NULL;
		struct exec_cursor xc;
		char name[48];

		for (size_t k = 0; k < l->ntracks; k++)
			if (l->tracks[k]->kind == XT_EXEC && l->tracks[k]->proc->dev == c->dev &&
			    l->tracks[k]->proc->core == c->core && !l->tracks[k]->proc->host &&
			    l->tracks[k]->proc->machine == c->host)
				t = l->tracks[k];
		if (!t)
			continue;
		for (exec_cursor_init(&xc, c); !ret && xc.have; exec_cursor_next(&xc)) {
			const struct execution *x = &xc.cur;
			uint64_t flow = event_ids_find(fl, x->host);
			const char *mn = exec_model_name(prof, file_machine, c, x->model_id);
			struct xarg a[5] = {
				{ .key = "model_id", .kind = XARG_U64, .u = x->model_id },
				{ .key = "execution", .kind = XARG_U64, .u = xc.k },
				{ .key = "iterations", .kind = XARG_U64, .u = x->iterations },
				{ .key = "failed", .kind = XARG_U64, .u = x->failed },
				{ .key = "model", .kind = XARG_STR, .s = mn },
			};

			if (mn)
				snprintf(name, sizeof(name), "%.*s execution", (int)sizeof(name) - 11,
					 mn);
			else
				*fmt_str(fmt_u64(fmt_str(name, "model "), x->model_id),
					 " execution") = '\0';
			st->executions++;
			ret = fmt->slice(ctx, t, XSLICE_COMPLETE, "execution", name, 0,
					 x->start + (uint64_t)t->proc->shift,
					 x->stop + (uint64_t)t->proc->shift, a, mn ? 5 : 4, 0, flow);
		}
		exec_cursor_free(&xc);
	}
	return ret;
}

int export_run(const struct profile *prof, const char *source, const struct xformat *fmt,
	       void *ctx, struct progress *pg, struct export_stats *st)
{
	struct stat sb;
	bool is_file = !stat(source, &sb) && !S_ISDIR(sb.st_mode);
	struct recording *recs;
	size_t nrec;
	struct machines mach;
	const struct prof_file **files = xrealloc(NULL, (prof->nfiles + 1) * sizeof(*files));
	struct timing tm;
	struct event_ids fl;
	struct layout l;
	uint64_t done = 0;
	uint64_t *first;
	size_t *order;
	int ret;

	memset(st, 0, sizeof(*st));
	recs = recordings_split(prof, source, is_file, &nrec);
	machines_build(&mach, prof, recs, nrec);
	recordings_free(recs, nrec);
	st->machines = mach.n;
	st->unmapped = mach.unmapped;
	for (size_t i = 0; i < prof->nfiles; i++)
		files[i] = &prof->files[i];
	/* Streamed: the export's memory does not follow the profile's length. */
	timing_build(&tm, files, prof->nfiles, mach.file_machine, prof->sys, prof->nsys,
		     mach.sys_machine, TIMING_STREAM);
	free(files);
	flows_build(&fl, &tm);
	layout_build(&l, prof, &tm, &mach);
	/*
	 * A profile loaded in one pass (profile_load_one_pass()) has its data
	 * blocks verified as the walks reach them: a damaged one, reported by
	 * the walk, fails the export (the caller then discards its output).
	 */
	ret = profile_damaged(prof) ? -1 : fmt->begin(ctx, source);
	for (size_t i = 0; !ret && i < l.nprocs; i++)
		ret = fmt->process(ctx, l.procs[i]);
	for (size_t i = 0; !ret && i < l.ntracks; i++)
		ret = fmt->track(ctx, l.tracks[i]);
	/*
	 * Files in the order of their first entries on each machine, not in
	 * path order: two recordings of one core (a SESSION and a later MODEL
	 * capture) share its tracks, whose events then start in time order.
	 */
	order = xrealloc(NULL, (prof->nfiles ? prof->nfiles : 1) * sizeof(*order));
	first = xrealloc(NULL, (prof->nfiles ? prof->nfiles : 1) * sizeof(*first));
	for (size_t i = 0; i < prof->nfiles; i++) {
		order[i] = i;
		first[i] = file_first_ts(&prof->files[i]);
	}
	if (profile_damaged(prof))
		ret = -1;
	sort_machine = mach.file_machine;
	sort_first = first;
	if (prof->nfiles > 1)
		qsort(order, prof->nfiles, sizeof(*order), cmp_file_start);
	sort_machine = NULL;
	sort_first = NULL;
	free(first);
	for (size_t n = 0; !ret && n < prof->nfiles; n++) {
		size_t i = order[n];
		const struct prof_file *f = &prof->files[i];

		for (size_t k = 0; !ret && k < f->nlqueues; k++) {
			ret = export_queue(&l, &tm, mach.file_machine[i], f, k, l.qtrack[i][k], fmt,
					   ctx, pg, &done, st);
			if (f->damaged)
				ret = -1;
		}
	}
	if (!ret)
		ret = walk_executions(&l, &tm, &fl, prof, mach.file_machine, fmt, ctx, st);
	for (size_t i = 0; !ret && i < prof->nsys; i++)
		ret = walk_sysprof(&l, &prof->sys[i], mach.sys_machine[i], l.lane[i], fmt, ctx, st,
				   &fl);
	if (!ret)
		ret = fmt->end(ctx, st);
	free(order);
	layout_free(&l, prof);
	free(fl.v);
	timing_free(&tm);
	machines_free(&mach);
	return ret;
}
