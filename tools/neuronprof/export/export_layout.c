// SPDX-License-Identifier: MIT
/*
 * neuronprof(1) export, the layout: which processes and tracks a profile
 * becomes on the timeline (one process per device and NeuronCore, a track
 * per queue grouped by engine or TopSP, an executions track, counter
 * tracks, host processes and the lanes of their threads), and which track
 * each queue's events go to. Independent of the output format; the walk of
 * the entries is export_walk.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/export_internal.h"
#include "util/fmt.h"
#include "analysis/machines.h"
#include "analysis/names.h"
#include "analysis/summary.h"
#include "analysis/timing.h"


static uint32_t file_machine(const struct layout *l, const struct prof_file *f,
			     const struct profile *prof)
{
	return l->m->file_machine[f - prof->files];
}

/* A new process of @machine on the timeline, listed in @l. */
static struct xproc *proc_new(struct layout *l, uint32_t machine)
{
	struct xproc *p = xcalloc(1, sizeof(*p));

	p->machine = machine;
	p->shift = l->m->v[machine].shift;
	l->procs = xrealloc(l->procs, (l->nprocs + 1) * sizeof(*l->procs));
	l->procs[l->nprocs++] = p;
	return p;
}

static struct xproc *proc_get(struct layout *l, const struct prof_file *f, uint32_t core,
			      uint32_t machine)
{
	uint32_t dev = f->info.device.device_index;
	const char *provider = f->info.device.provider;
	const char *mname = l->m->aligned ? l->m->v[machine].name : "";
	const char *sep = l->m->aligned ? ": " : "";
	struct xproc *p;

	for (size_t i = 0; i < l->nprocs; i++)
		if (!l->procs[i]->host && l->procs[i]->machine == machine &&
		    l->procs[i]->dev == dev && l->procs[i]->core == core)
			return l->procs[i];
	p = proc_new(l, machine);
	p->dev = dev;
	p->core = core;
	p->pid = (int32_t)(XPID_DEVICE_BASE + XPID_MACHINE_STEP * machine + 1000 * dev + core);
	snprintf(p->name, sizeof(p->name), "%.40s%sdevice %u NeuronCore %u (%s%s%s)", mname, sep,
		 dev, core, arch_name(f->info.device.arch), provider ? " " : "",
		 provider ? provider : "");
	p->dev_pid = (int32_t)(XPID_DEVICE_BASE + XPID_MACHINE_STEP * machine + 1000 * dev + 999);
	snprintf(p->dev_name, sizeof(p->dev_name), "%.24s%sdevice %u (%s%s%s)", mname, sep, dev,
		 arch_name(f->info.device.arch), provider ? " " : "", provider ? provider : "");
	return p;
}

static struct xtrack *track_find(struct layout *l, const struct xproc *p, enum xtrack_kind kind,
				 uint32_t qt, uint32_t kind_t, uint32_t idx, uint32_t engine)
{
	for (size_t i = 0; i < l->ntracks; i++) {
		struct xtrack *t = l->tracks[i];

		if (t->proc == p && t->kind == kind && t->queue_type == qt &&
		    t->target_kind == kind_t && t->target_index == idx && t->engine == engine)
			return t;
	}
	return NULL;
}

static struct xtrack *track_new(struct layout *l, const struct xproc *p, enum xtrack_kind kind,
				uint32_t qt, uint32_t kind_t, uint32_t idx, uint32_t engine)
{
	struct xtrack *t = xrealloc(NULL, sizeof(*t));

	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->proc = p;
	t->queue_type = qt;
	t->target_kind = kind_t;
	t->target_index = idx;
	t->engine = engine;
	l->tracks = xrealloc(l->tracks, (l->ntracks + 1) * sizeof(*l->tracks));
	l->tracks[l->ntracks++] = t;
	return t;
}

static bool per_engine(uint32_t qt)
{
	return qt == NEURONPROF_QT_TRACE || qt == NEURONPROF_QT_EVENT || qt == NEURONPROF_QT_DMA;
}

bool topsp_type(uint32_t qt)
{
	return qt == NEURONPROF_QT_TOPSP_TRACE || qt == NEURONPROF_QT_TOPSP_EVENT ||
	       qt == NEURONPROF_QT_TOPSP_ERROR;
}

/*
 * Thread ids order the tracks of a core in a viewer: core-level queues
 * first (tid = queue type), then each engine's queues (100 * (engine + 1) +
 * queue type), then each TopSP's (10000 + 100 * topsp + queue type).
 */
static struct xtrack *group_get(struct layout *l, const struct xproc *p, uint32_t qt,
				uint32_t idx, uint32_t engine)
{
	bool tsp = topsp_type(qt);
	uint32_t gidx = tsp ? idx : engine;
	struct xtrack *g = track_find(l, p, XT_GROUP, 0, tsp, gidx, 0);
	const char *en;

	if (g)
		return g;
	g = track_new(l, p, XT_GROUP, 0, tsp, gidx, 0);
	if (tsp) {
		g->tid = (int32_t)(10000 + 100 * gidx);
		snprintf(g->name, sizeof(g->name), "TopSP %u", gidx);
	} else {
		g->tid = (int32_t)(100 * (gidx + 1));
		en = engine_name(gidx);
		if (en)
			snprintf(g->name, sizeof(g->name), "engine %u (%s)", gidx, en);
		else
			snprintf(g->name, sizeof(g->name), "engine %u", gidx);
	}
	snprintf(g->full_name, sizeof(g->full_name), "%s", g->name);
	return g;
}

static void counter_tracks(struct layout *l, const struct xproc *p, uint32_t first,
			   uint32_t last);

static struct xtrack *queue_track(struct layout *l, const struct prof_file *f,
				  const struct nprof_ntff_queue *q, uint32_t machine)
{
	struct xproc *p = proc_get(l, f, queue_core(f, q), machine);
	struct xtrack *t, *g = NULL;

	/*
	 * THROTTLE queues become two counter series of their core; no queue
	 * track. Raw ones hold no level: they are a queue like any other.
	 */
	if (q->queue_type == NEURONPROF_QT_THROTTLE && !file_is_raw(f)) {
		counter_tracks(l, p, XCOUNTER_THROTTLE_LEVEL, XCOUNTER_THROTTLE_CLOCK);
		return track_find(l, p, XT_COUNTER, XCOUNTER_THROTTLE_LEVEL, 0, 0, 0);
	}
	t = track_find(l, p, XT_QUEUE, q->queue_type, q->target_kind, q->target_index,
		       q->engine);
	if (t)
		return t;
	if (per_engine(q->queue_type) || topsp_type(q->queue_type))
		g = group_get(l, p, q->queue_type, q->target_index, q->engine);
	t = track_new(l, p, XT_QUEUE, q->queue_type, q->target_kind, q->target_index, q->engine);
	snprintf(t->name, sizeof(t->name), "%s", queue_name(q->queue_type));
	/* parent_uuid is resolved once uuids are given out. */
	if (g) {
		t->tid = g->tid + (int32_t)q->queue_type;
		snprintf(t->full_name, sizeof(t->full_name), "%s %s", g->name, t->name);
	} else {
		t->tid = (int32_t)q->queue_type;
		snprintf(t->full_name, sizeof(t->full_name), "core %s", t->name);
	}
	return t;
}

struct xproc *host_proc(struct layout *l, uint32_t machine, uint32_t pid, const char *instance)
{
	int32_t xpid = (int32_t)(machine ? XPID_HOST_BASE + XPID_PID_MAX * (machine - 1) + pid : pid);
	struct xproc *p;

	for (size_t i = 0; i < l->nprocs; i++)
		if (l->procs[i]->host && l->procs[i]->pid == xpid)
			return l->procs[i];
	p = proc_new(l, machine);
	p->host = true;
	p->pid = xpid;
	snprintf(p->name, sizeof(p->name), "host process %u%s%s%s", pid,
		 instance && *instance ? " (" : "", instance && *instance ? instance : "",
		 instance && *instance ? ")" : "");
	return p;
}

/*
 * The track of a host thread's events. Events of one thread that overlap
 * without nesting (a device event recorded from that thread, say) go to
 * further lanes, so the slices of every track nest: lane 0 is the thread's
 * own track, lane N > 0 a track "thread T lane N" beside it.
 */
#define LANE_TID_STEP	4194304		/* PID_MAX_LIMIT: lane tids never collide */

struct xtrack *host_thread(struct layout *l, const struct xproc *p, uint32_t tid, uint32_t lane)
{
	struct xtrack *t = track_find(l, p, XT_THREAD, 0, 0, tid, lane);

	if (t)
		return t;
	t = track_new(l, p, XT_THREAD, 0, 0, tid, lane);
	t->tid = (int32_t)(tid + (uint64_t)lane * LANE_TID_STEP);
	if (lane) {
		snprintf(t->name, sizeof(t->name), "thread %u lane %u", tid, lane);
		snprintf(t->full_name, sizeof(t->full_name), "thread %u lane %u", tid, lane);
	} else {
		snprintf(t->name, sizeof(t->name), "thread %u", tid);
		snprintf(t->full_name, sizeof(t->full_name), "thread %u", tid);
	}
	return t;
}

static int cmp_host_event(const void *a, const void *b, void *arg)
{
	const Neuronprof__System__NtraceEvent *const *ev = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const Neuronprof__System__NtraceEvent *x = ev[i], *y = ev[j];

	/* The longer first: it is the parent of what starts with it. */
	return cmp_int(x->pid, y->pid) ?: cmp_int(x->tid, y->tid) ?:
	       cmp_int(x->start_ns, y->start_ns) ?: cmp_int(y->end_ns, x->end_ns) ?: cmp_int(i, j);
}

static uint64_t host_end(const Neuronprof__System__NtraceEvent *ev)
{
	return ev->end_ns >= ev->start_ns ? ev->end_ns : ev->start_ns;
}

/* Lanes of the events of @nt: per thread, the first lane where the event nests. */
static uint32_t *host_lanes(const Neuronprof__System__Ntrace *nt)
{
	size_t n = nt->n_events, nlanes = 0;
	size_t *order = xrealloc(NULL, (n + 1) * sizeof(*order));
	uint32_t *lane = xrealloc(NULL, (n + 1) * sizeof(*lane));
	/* Per lane, the ends of the open slices (a stack). */
	struct lane_stack {
		uint64_t *end;
		size_t n, cap;
	} *ls = NULL;

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if (n > 1)
		qsort_r(order, n, sizeof(*order), cmp_host_event, nt->events);
	for (size_t k = 0; k < n; k++) {
		const Neuronprof__System__NtraceEvent *ev = nt->events[order[k]];
		uint64_t end = host_end(ev);
		size_t j;

		if (k && (nt->events[order[k - 1]]->pid != ev->pid ||
			  nt->events[order[k - 1]]->tid != ev->tid))
			for (j = 0; j < nlanes; j++)
				ls[j].n = 0;	/* another thread: lanes start empty */
		for (j = 0; j < nlanes; j++) {
			struct lane_stack *s = &ls[j];

			while (s->n && s->end[s->n - 1] <= ev->start_ns)
				s->n--;
			if (!s->n || s->end[s->n - 1] >= end)
				break;
		}
		if (j == nlanes) {
			ls = xrealloc(ls, (nlanes + 1) * sizeof(*ls));
			memset(&ls[nlanes++], 0, sizeof(*ls));
		}
		if (ls[j].n == ls[j].cap) {
			ls[j].cap = ls[j].cap ? ls[j].cap * 2 : 8;
			ls[j].end = xrealloc(ls[j].end, ls[j].cap * sizeof(*ls[j].end));
		}
		ls[j].end[ls[j].n++] = end;
		lane[order[k]] = (uint32_t)j;
	}
	for (size_t j = 0; j < nlanes; j++)
		free(ls[j].end);
	free(ls);
	free(order);
	return lane;
}

static const char *const series_name[XCOUNTER_SERIES] = {
	[XCOUNTER_THROTTLE_LEVEL] = "throttle level",
	[XCOUNTER_THROTTLE_CLOCK] = "clock percent",
	[XCOUNTER_CPU_UTIL] = "cpu util percent",
	[XCOUNTER_CPU_USER] = "cpu user percent",
	[XCOUNTER_CPU_SYSTEM] = "cpu system percent",
	[XCOUNTER_CPU_IOWAIT] = "cpu iowait percent",
	[XCOUNTER_MEM_USED] = "host memory used bytes",
	[XCOUNTER_MEM_AVAILABLE] = "host memory available bytes",
	[XCOUNTER_PROCESS_RSS] = "process rss bytes",
};

static const struct {
	enum xunit unit;
	const char *name;
} series_unit[XCOUNTER_SERIES] = {
	[XCOUNTER_THROTTLE_LEVEL] = { XUNIT_COUNT, "level" },
	[XCOUNTER_THROTTLE_CLOCK] = { XUNIT_NONE, "%" },
	[XCOUNTER_CPU_UTIL] = { XUNIT_NONE, "%" },
	[XCOUNTER_CPU_USER] = { XUNIT_NONE, "%" },
	[XCOUNTER_CPU_SYSTEM] = { XUNIT_NONE, "%" },
	[XCOUNTER_CPU_IOWAIT] = { XUNIT_NONE, "%" },
	[XCOUNTER_MEM_USED] = { XUNIT_BYTES, NULL },
	[XCOUNTER_MEM_AVAILABLE] = { XUNIT_BYTES, NULL },
	[XCOUNTER_PROCESS_RSS] = { XUNIT_BYTES, NULL },
};

static void counter_tracks(struct layout *l, const struct xproc *p, uint32_t first,
			   uint32_t last)
{
	for (uint32_t s = first; s <= last; s++) {
		struct xtrack *c;

		if (track_find(l, p, XT_COUNTER, s, 0, 0, 0))
			continue;
		c = track_new(l, p, XT_COUNTER, s, 0, 0, 0);
		c->tid = (int32_t)(p->host ? 0 : NEURONPROF_QT_THROTTLE);
		snprintf(c->name, sizeof(c->name), "%s", series_name[s]);
		snprintf(c->full_name, sizeof(c->full_name), "%s", series_name[s]);
		c->unit = series_unit[s].unit;
		c->unit_name = series_unit[s].name;
	}
}

/* Executions sit on a track of their core, after the core-level queues. */
#define EXEC_TID	50

static void exec_track(struct layout *l, struct xproc *p)
{
	struct xtrack *t;

	if (track_find(l, p, XT_EXEC, 0, 0, 0, 0))
		return;
	t = track_new(l, p, XT_EXEC, 0, 0, 0, 0);
	t->tid = EXEC_TID;
	snprintf(t->name, sizeof(t->name), "executions");
	snprintf(t->full_name, sizeof(t->full_name), "core executions");
}

static void layout_sysprof(struct layout *l, const struct sysprof *s, uint32_t machine,
			   uint32_t **lanes)
{
	*lanes = NULL;
	if (s->ntrace) {
		*lanes = host_lanes(s->ntrace);
		for (size_t i = 0; i < s->ntrace->n_events; i++) {
			const Neuronprof__System__NtraceEvent *ev = s->ntrace->events[i];

			host_thread(l, host_proc(l, machine, ev->pid, ev->instance_id), ev->tid,
				    (*lanes)[i]);
		}
	}
	if (s->cpu && s->cpu->n_samples)
		counter_tracks(l, host_proc(l, machine, s->cpu->pid, s->cpu->instance_id),
			       XCOUNTER_CPU_UTIL, XCOUNTER_CPU_IOWAIT);
	if (s->mem && s->mem->n_samples)
		counter_tracks(l, host_proc(l, machine, s->mem->pid, s->mem->instance_id),
			       XCOUNTER_MEM_USED, XCOUNTER_PROCESS_RSS);
}

static int cmp_proc(const void *a, const void *b)
{
	const struct xproc *x = *(struct xproc *const *)a, *y = *(struct xproc *const *)b;

	if (x->host || y->host)
		return cmp_int(x->host, y->host) ?: cmp_int(x->pid, y->pid);
	return cmp_int(x->machine, y->machine) ?: cmp_int(x->dev, y->dev) ?:
	       cmp_int(x->core, y->core);
}

static int cmp_track(const void *a, const void *b)
{
	const struct xtrack *x = *(struct xtrack *const *)a, *y = *(struct xtrack *const *)b;

	/* A group and its first queue may share a tid: the group goes first. */
	return cmp_int(x->proc->sort_index, y->proc->sort_index) ?: cmp_int(x->tid, y->tid) ?:
	       cmp_int(x->kind, y->kind) ?: cmp_int(x->queue_type, y->queue_type);
}

void layout_build(struct layout *l, const struct profile *prof, const struct timing *tm,
			 const struct machines *m)
{
	uint64_t uuid = 1;

	memset(l, 0, sizeof(*l));
	l->m = m;
	l->qtrack = xrealloc(NULL, (prof->nfiles + 1) * sizeof(*l->qtrack));
	for (size_t i = 0; i < prof->nfiles; i++) {
		const struct prof_file *f = &prof->files[i];

		l->qtrack[i] = xrealloc(NULL, (f->nlqueues + 1) * sizeof(**l->qtrack));
		uint32_t mi = file_machine(l, f, prof);

		for (size_t k = 0; k < f->nlqueues; k++) {
			const struct nprof_ntff_queue *q = &f->lqueues[k].q;

			l->qtrack[i][k] = queue_track(l, f, q, mi);
			if (q->queue_type == NEURONPROF_QT_INFER_STATUS &&
			    timing_core_of(tm, mi, f->info.device.device_index, queue_core(f, q)))
				exec_track(l, proc_get(l, f, queue_core(f, q), mi));
		}
	}
	l->lane = xrealloc(NULL, (prof->nsys + 1) * sizeof(*l->lane));
	for (size_t i = 0; i < prof->nsys; i++)
		layout_sysprof(l, &prof->sys[i], m->sys_machine[i], &l->lane[i]);
	if (l->nprocs > 1)
		qsort(l->procs, l->nprocs, sizeof(*l->procs), cmp_proc);
	for (size_t i = 0; i < l->nprocs; i++) {
		struct xproc *p = l->procs[i];

		/* A device's uuid comes right before its first core's. */
		if (!p->host && (!i || l->procs[i - 1]->host || l->procs[i - 1]->dev != p->dev ||
				 l->procs[i - 1]->machine != p->machine)) {
			p->dev_first = true;
			p->dev_uuid = uuid++;
		} else if (!p->host) {
			p->dev_uuid = l->procs[i - 1]->dev_uuid;
		}
		p->sort_index = (int)i;
		p->uuid = uuid++;
	}
	if (l->ntracks > 1)
		qsort(l->tracks, l->ntracks, sizeof(*l->tracks), cmp_track);
	for (size_t i = 0; i < l->ntracks; i++) {
		l->tracks[i]->sort_index = (int)i;
		l->tracks[i]->uuid = uuid++;
	}
	for (size_t i = 0; i < l->ntracks; i++) {
		struct xtrack *t = l->tracks[i];

		/* A thread track belongs to its process through its pid; lanes are children. */
		t->parent_uuid = t->kind == XT_THREAD && !t->engine ? 0 : t->proc->uuid;
		if (t->kind != XT_QUEUE ||
		    (!per_engine(t->queue_type) && !topsp_type(t->queue_type)))
			continue;
		for (size_t k = 0; k < l->ntracks; k++) {
			const struct xtrack *g = l->tracks[k];
			bool tsp = topsp_type(t->queue_type);

			if (g->kind == XT_GROUP && g->proc == t->proc && g->target_kind == tsp &&
			    g->target_index == (tsp ? t->target_index : t->engine)) {
				t->parent_uuid = g->uuid;
				break;
			}
		}
	}
}

void layout_free(struct layout *l, const struct profile *prof)
{
	for (size_t i = 0; i < l->nprocs; i++)
		free(l->procs[i]);
	for (size_t i = 0; i < l->ntracks; i++)
		free(l->tracks[i]);
	for (size_t i = 0; i < prof->nfiles; i++)
		free(l->qtrack[i]);
	for (size_t i = 0; i < prof->nsys; i++)
		free(l->lane[i]);
	free(l->lane);
	free(l->procs);
	free(l->tracks);
	free(l->qtrack);
}

const struct xtrack *counter_track(const struct layout *l, const struct xproc *p,
					  uint32_t series)
{
	for (size_t i = 0; i < l->ntracks; i++)
		if (l->tracks[i]->kind == XT_COUNTER && l->tracks[i]->proc == p &&
		    l->tracks[i]->queue_type == series)
			return l->tracks[i];
	return NULL;
}
