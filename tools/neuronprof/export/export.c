// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the format-independent part of export (see export.h):
 * the layout of processes and tracks, and the walk over the entries that
 * pairs starts with stops and turns entries into events.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "export/export.h"
#include "util/fmt.h"
#include "analysis/machines.h"
#include "analysis/names.h"
#include "analysis/summary.h"
#include "analysis/timing.h"
#include "analysis/raw.h"

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

static bool topsp_type(uint32_t qt)
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

static struct xproc *host_proc(struct layout *l, uint32_t machine, uint32_t pid,
			       const char *instance)
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

static struct xtrack *host_thread(struct layout *l, const struct xproc *p, uint32_t tid,
				  uint32_t lane)
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

static void layout_build(struct layout *l, const struct profile *prof, const struct timing *tm,
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

static void layout_free(struct layout *l, const struct profile *prof)
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

static const struct xtrack *counter_track(const struct layout *l, const struct xproc *p,
					  uint32_t series)
{
	for (size_t i = 0; i < l->ntracks; i++)
		if (l->tracks[i]->kind == XT_COUNTER && l->tracks[i]->proc == p &&
		    l->tracks[i]->queue_type == series)
			return l->tracks[i];
	return NULL;
}

/* An opcode of the queue walked: its name in the profile, its hex spelling. */
struct opcode_slot {
	uint32_t code;
	bool valid;
	const char *op;
	char hex[CODE_LEN];
};

#define OPCODE_SLOTS	64

/* Everything the walk of one queue needs. */
struct walk {
	const struct xformat *fmt;
	void *ctx;
	struct export_stats *st;
	const struct xtrack *t;
	const struct xtrack *level, *clock;	/* counter tracks, for THROTTLE */
	struct instr_clock clk;			/* TRACE: the duration model */
	const struct nprof_ntff_device *raw;	/* the device of a raw queue, else NULL */
	const struct prof_file *file;		/* of the queue: its names (names.h) */
	/* The queue's entries, across its records (walk_begin(), walk_next()). */
	struct queue_iter it;
	struct seq_track seq;
	/*
	 * Entries lost before the entry walk_next() just gave: its caller
	 * emits the instant "lost N" with emit_lost() once the events before
	 * that entry are written (a TRACE queue's pending instruction), so
	 * that a track's events start in time order.
	 */
	uint64_t lost;
	uint64_t gap_from;		/* the entry before those lost: where the window starts */
	uint64_t prev_ts;		/* the queue's previous entry, if @have_prev */
	bool have_prev;
	uint64_t gaps;			/* entries missing from its sequence numbers so far */
	struct progress *pg;
	uint64_t *done;
	/* Opcodes met in the queue, by code (instruction()); cleared per queue. */
	struct opcode_slot ops[OPCODE_SLOTS];
};

static int instant(struct walk *w, const char *cat, const char *name, uint64_t ts,
		   const struct xarg *args, int nargs)
{
	w->st->instants++;
	return w->fmt->instant(w->ctx, w->t, cat, name, ts + (uint64_t)w->t->proc->shift, args,
			       nargs);
}

/* Arguments every event of an entry carries. */
static int base_args(struct xarg *a, const struct entry *e)
{
	a[0] = (struct xarg){ .key = "model_id", .kind = XARG_U64, .u = e->model_id };
	a[1] = (struct xarg){ .key = "iteration", .kind = XARG_U64, .u = e->iteration };
	a[2] = (struct xarg){ .key = "seq", .kind = XARG_U64, .u = e->seq };
	return 3;
}

/* @code spelled CODE_FMT ("0x000102") into @buf, fast (per instruction). */
static const char *code_hex(uint32_t code, char buf[CODE_LEN])
{
	*fmt_hex(fmt_str(buf, "0x"), code, 6) = '\0';
	return buf;
}

static int unmatched(struct walk *w, const char *cat, const char *what, const struct entry *e)
{
	struct xarg a[XARGS_MAX];
	char code[CODE_LEN];
	int n = base_args(a, e);

	a[n++] = (struct xarg){ .key = "code", .kind = XARG_STR, .s = code_hex(e->code, code) };
	return instant(w, cat, what, e->ts, a, n);
}

static int pair_slice(struct walk *w, enum xslice_style style, const char *cat,
		      const char *name, const struct entry *s, const struct entry *e,
		      const char *start_key, const char *end_key)
{
	struct xarg a[XARGS_MAX];
	int n = base_args(a, s);

	a[n++] = (struct xarg){ .key = start_key, .kind = XARG_U64, .u = s->payload[0] };
	if (end_key)
		a[n++] = (struct xarg){ .key = end_key, .kind = XARG_U64, .u = e->payload[0] };
	w->st->slices++;
	return w->fmt->slice(w->ctx, w->t, style, cat, name, 0,
			     s->ts + (uint64_t)w->t->proc->shift,
			     e->ts + (uint64_t)w->t->proc->shift, a, n, 0, 0);
}

/*
 * An instruction as a slice, its end given by the timing model: named by
 * the device's name of its opcode with the opcode in its "code" argument,
 * else named by the opcode itself (which needs no second copy: the
 * instructions of a recording without names cost what they did).
 */
static int instruction(struct walk *w, const struct entry *e, uint64_t end)
{
	struct opcode_slot *s = &w->ops[e->code % OPCODE_SLOTS];
	const char *op, *code;
	struct xarg a[4];
	int n = 0;

	/* A program runs a few opcodes over and over: each is looked up once. */
	if (!s->valid || s->code != e->code) {
		s->code = e->code;
		s->valid = true;
		s->op = file_code_name(w->file, e->queue_type, e->code);
		code_hex(e->code, s->hex);
	}
	op = s->op;
	code = s->hex;
	if (op)
		a[n++] = (struct xarg){ .key = "code", .kind = XARG_STR, .s = code };
	a[n++] = (struct xarg){ .key = "pc", .kind = XARG_HEX, .u = e->payload[0] };
	a[n++] = (struct xarg){ .key = "operand0", .kind = XARG_HEX, .u = e->payload[1] };
	a[n++] = (struct xarg){ .key = "operand1", .kind = XARG_HEX, .u = e->payload[2] };
	w->st->slices++;
	return w->fmt->slice(w->ctx, w->t, XSLICE_COMPLETE, "instruction", op ? op : code,
			     op ? (uint64_t)(uintptr_t)op : XNAME_KEY_CODE(e->code),
			     e->ts + (uint64_t)w->t->proc->shift, end + (uint64_t)w->t->proc->shift,
			     a, n, 0, 0);
}

/* Group name used in slice names: "vector", "engine 7", "TopSP 3". */
static void unit_name(const struct xtrack *t, char *buf, size_t len)
{
	const char *en = engine_name(t->engine);

	if (topsp_type(t->queue_type))
		snprintf(buf, len, "TopSP %u", t->target_index);
	else if (en)
		snprintf(buf, len, "%s", en);
	else
		snprintf(buf, len, "engine %u", t->engine);
}

/*
 * A loss window (Documentation/analysis.rst) on the queue's track: the
 * slice "lost N" from @start to @end, its count in arg "lost", where it is
 * in arg "kind", and the last sequence number before it (@after_seq).
 */
static int loss_slice(struct walk *w, uint64_t start, uint64_t end, uint64_t lost,
		      bool tail, uint64_t after_seq, bool have_seq)
{
	struct xarg a[3];
	char name[32];
	int n = 0;

	snprintf(name, sizeof(name), "lost %" PRIu64, lost);
	a[n++] = (struct xarg){ .key = "lost", .kind = XARG_U64, .u = lost };
	a[n++] = (struct xarg){ .key = "kind", .kind = XARG_STR,
				.s = tail ? "after the last entry" : "sequence gap" };
	if (have_seq)
		a[n++] = (struct xarg){ .key = "after_seq", .kind = XARG_U64, .u = after_seq };
	w->st->lost_markers++;
	w->st->lost_entries += lost;
	w->st->slices++;
	return w->fmt->slice(w->ctx, w->t, XSLICE_COMPLETE, "lost", name, 0,
			     start + (uint64_t)w->t->proc->shift,
			     (end > start ? end : start) + (uint64_t)w->t->proc->shift, a, n, 0, 0);
}

/* The loss window of the w->lost (non-zero) entries missing before entry @e. */
static int lost_marker(struct walk *w, const struct entry *e)
{
	uint64_t lost = w->lost;

	w->lost = 0;
	return loss_slice(w, w->gap_from, e->ts, lost, false, e->seq - lost - 1, true);
}

/* The loss window of the entries lost before entry @e, if any; checked per entry. */
static inline int emit_lost(struct walk *w, const struct entry *e)
{
	return w->lost ? lost_marker(w, e) : 0;
}

/*
 * After a queue's last entry: the window of what its rings counted lost
 * beyond its sequence gaps, from its last entry (the capture's start
 * without one) to the capture's stop; *@tail says whether there is one.
 */
static int emit_tail_loss(struct walk *w, const struct prof_file *f,
			  const struct nprof_ntff_queue *q, bool *tail)
{
	uint64_t beyond = q->lost_count > w->gaps ? q->lost_count - w->gaps : 0;

	*tail = beyond > 0;
	if (!beyond)
		return 0;
	return loss_slice(w, w->have_prev ? w->prev_ts : f->info.start_ns, f->info.stop_ns,
			  beyond, true, 0, false);
}

/*
 * Raw entries have no loss windows (their layout is not known, nothing is
 * timed): the instant "lost N" at the entry after the gap, with the count.
 */
static int raw_lost_marker(struct walk *w, const struct entry *e)
{
	uint64_t lost = w->lost;
	struct xarg a[2];
	char name[32];

	w->lost = 0;
	snprintf(name, sizeof(name), "lost %" PRIu64, lost);
	a[0] = (struct xarg){ .key = "lost", .kind = XARG_U64, .u = lost };
	a[1] = (struct xarg){ .key = "after_seq", .kind = XARG_U64, .u = e->seq - lost - 1 };
	return instant(w, "lost", name, e->ts, a, 2);
}

/* Start walking the entries of queue @lq of @f; @done counts them for @pg. */
static void walk_begin(struct walk *w, const struct prof_file *f, const struct prof_queue *lq,
		       struct progress *pg, uint64_t *done)
{
	w->file = f;
	for (size_t i = 0; i < OPCODE_SLOTS; i++)
		w->ops[i].valid = false;
	queue_iter_init(&w->it, f, lq);
	w->seq = (struct seq_track){ 0 };
	w->have_prev = false;
	w->gaps = 0;
	w->pg = pg;
	w->done = done;
}

/*
 * The queue's next entry into @e, decoded and counted; where its sequence
 * number skips, w->lost says by how much (the caller emits it with
 * emit_lost()). False at the end of the queue, once *@ret is set by the
 * caller's handling of an entry, and then *@ret is the result of the walk.
 */
static void walk_take(struct walk *w, const struct entry *e);

static bool walk_next(struct walk *w, struct entry *e, int *ret)
{
	const void *p;

	if (*ret || !(p = queue_iter_next(&w->it)))
		return false;
	entry_decode(p, w->it.entry_size, e);
	progress_update(w->pg, ++*w->done);
	walk_take(w, e);
	return true;
}

/*
 * walk_next() of a raw queue: its next part (raw.h), as the entry that
 * carries it and as bytes; progress counts ring entries.
 */
static bool walk_next_raw(struct walk *w, struct raw_parts *rp, struct entry *e,
			  struct raw_part *part, int *ret)
{
	uint64_t before = rp->slots;

	if (*ret || !raw_parts_next(rp, e, part))
		return false;
	*w->done += rp->slots - before;
	progress_update(w->pg, *w->done);
	walk_take(w, e);
	return true;
}

/* What walk_next() does with each entry it takes. */
static void walk_take(struct walk *w, const struct entry *e)
{
	w->st->entries++;
	w->lost = seq_skipped(&w->seq, e->seq);
	w->gaps += w->lost;
	w->gap_from = w->prev_ts;
	w->prev_ts = e->ts;
	w->have_prev = true;
}

/*
 * A queue of raw entries: an instant "raw <format>" per ring entry with its
 * bytes, never decoded; its time is what the device's clock domain says
 * (the capture time for NEURONPROF_CLOCK_CAPTURED).
 */
static int walk_raw(struct walk *w)
{
	char name[32], hex[2 * NEURONPROF_RAW_BYTES_PER_ENTRY + 1];
	struct raw_parts rp;
	struct raw_part part;
	struct xarg a[7];
	struct entry e;
	int ret = 0;

	snprintf(name, sizeof(name), "raw %s", raw_format_name(w->raw->raw_format));
	raw_parts_init(&rp, w->file, raw_slot_queue, &w->it);
	while (walk_next_raw(w, &rp, &e, &part, &ret)) {
		ret = w->lost ? raw_lost_marker(w, &e) : 0;
		if (ret)
			break;
		a[0] = (struct xarg){ .key = "entry", .kind = XARG_U64, .u = part.index };
		a[1] = (struct xarg){ .key = "part", .kind = XARG_U64, .u = part.part };
		a[2] = (struct xarg){ .key = "parts", .kind = XARG_U64, .u = part.parts };
		a[3] = (struct xarg){ .key = "bytes", .kind = XARG_STR,
				      .s = hex_bytes(hex, part.bytes, part.len) };
		a[4] = (struct xarg){ .key = "seq", .kind = XARG_U64, .u = e.seq };
		a[5] = (struct xarg){ .key = "timestamp", .kind = XARG_STR,
				      .s = w->raw->clock_domain == NEURONPROF_CLOCK_CAPTURED ?
					   "capture time" : "device time" };
		a[6] = (struct xarg){ .key = "decoded", .kind = XARG_STR, .s = "no" };
		ret = instant(w, "raw", name, e.ts, a, 7);
	}
	return ret;
}

/*
 * The start @e of a pair (an inference, an event) becomes *@start; one
 * still *@open is reported as @what, unmatched.
 */
static int pair_start(struct walk *w, const char *cat, const char *what, struct entry *start,
		      bool *open, const struct entry *e)
{
	int ret = *open ? unmatched(w, cat, what, start) : 0;

	*start = *e;
	*open = true;
	return ret;
}

/*
 * A queue of decoded entries, all its records in order: pairs, instructions
 * and sequence numbers continue from one record to the next.
 */
static int walk_queue(struct walk *w, const struct prof_file *f, const struct prof_queue *lq,
		      struct progress *pg, uint64_t *done)
{
	const struct nprof_ntff_queue *q = &lq->q;
	struct entry e, start = { 0 }, pend = { 0 };
	bool open = false, have_pend = false, tail;
	char name[64], unit[32];
	const char *dn;
	struct xarg a[XARGS_MAX];
	int n, ret = 0;

	walk_begin(w, f, lq, pg, done);
	if (w->raw) {
		ret = walk_raw(w);
		w->st->lost_recorded += q->lost_count;
		w->st->seq_gaps += w->gaps;
		return ret;
	}
	unit_name(w->t, unit, sizeof(unit));
	while (walk_next(w, &e, &ret)) {
		/*
		 * No pair spans a loss: a start before it stays unmatched. A
		 * TRACE queue's pending instruction, cut by the loss, is not
		 * drawn (below).
		 */
		if (w->lost && open) {
			ret = unmatched(w, q->queue_type == NEURONPROF_QT_INFER_STATUS ?
					"infer" : "event", q->queue_type ==
					NEURONPROF_QT_INFER_STATUS ? "infer start without stop" :
					"event start without end", &start);
			open = false;
		}
		if (!ret && q->queue_type != NEURONPROF_QT_TRACE &&
		    q->queue_type != NEURONPROF_QT_TOPSP_TRACE)
			ret = emit_lost(w, &e);
		if (ret)
			break;
		switch (q->queue_type) {
		case NEURONPROF_QT_INFER_STATUS:
			if (e.code == NEURONPROF_INFER_START) {
				ret = pair_start(w, "infer", "infer start without stop", &start,
						 &open, &e);
			} else if (e.code == NEURONPROF_INFER_STOP) {
				if (open) {
					const char *mn = files_model_name(&w->file, 1,
									  start.model_id);

					/* A file's model name may be of any length. */
					if (mn)
						snprintf(name, sizeof(name), "%.*s iteration",
							 (int)sizeof(name) - 11, mn);
					else
						*fmt_str(fmt_u64(fmt_str(name, "model "),
								 start.model_id), " iteration") = '\0';
					ret = pair_slice(w, XSLICE_COMPLETE, "infer", name, &start,
							 &e, "iterations", "status");
					open = false;
				} else {
					ret = unmatched(w, "infer", "infer stop without start", &e);
				}
			} else {
				ret = unmatched(w, "infer", "infer status", &e);
			}
			break;
		case NEURONPROF_QT_EVENT:
		case NEURONPROF_QT_TOPSP_EVENT:
			if (e.code == EVENT_CODE_START) {
				ret = pair_start(w, "event", "event start without end", &start,
						 &open, &e);
			} else if (e.code == EVENT_CODE_END && open) {
				*fmt_str(fmt_str(name, unit), " iteration") = '\0';
				ret = pair_slice(w, XSLICE_BEGIN_END, "event", name, &start, &e,
						 q->queue_type == NEURONPROF_QT_EVENT ?
						 "instructions" : "topsp", NULL);
				open = false;
			} else if (e.code == EVENT_CODE_END) {
				ret = unmatched(w, "event", "event end without start", &e);
			} else {
				snprintf(name, sizeof(name), "event %u", e.code);
				ret = unmatched(w, "event", name, &e);
			}
			break;
		case NEURONPROF_QT_TRACE:
		case NEURONPROF_QT_TOPSP_TRACE:
			/* An instruction ends when the next entry of its queue says. */
			if (have_pend && w->lost)
				w->st->cut++;
			else if (have_pend)
				ret = instruction(w, &pend, instr_end(&w->clk, pend.ts, true, e.ts));
			if (!ret)
				ret = emit_lost(w, &e);
			pend = e;
			have_pend = true;
			break;
		case NEURONPROF_QT_DMA:
			dn = file_code_name(f, e.queue_type, e.code);
			if (dn)
				*fmt_u64(fmt_str(fmt_str(name, dn), " queue "), e.code) = '\0';
			else
				*fmt_u64(fmt_str(name, "dma queue "), e.code) = '\0';
			n = base_args(a, &e);
			a[n++] = (struct xarg){ .key = "bytes", .kind = XARG_U64, .u = e.payload[0] };
			a[n++] = (struct xarg){ .key = "src", .kind = XARG_HEX, .u = e.payload[1] };
			a[n++] = (struct xarg){ .key = "dst", .kind = XARG_HEX, .u = e.payload[2] };
			ret = instant(w, "dma", name, e.ts, a, n);
			break;
		case NEURONPROF_QT_ERROR:
		case NEURONPROF_QT_TOPSP_ERROR:
			*fmt_u64(fmt_str(name, "error "), e.code) = '\0';
			n = base_args(a, &e);
			a[n++] = (struct xarg){ .key = "payload0", .kind = XARG_U64,
						.u = e.payload[0] };
			ret = instant(w, "error", name, e.ts, a, n);
			break;
		case NEURONPROF_QT_THROTTLE: {
			struct xcounter c[2] = {
				{ .track = w->level, .key = "level", .value = (int64_t)e.code },
				{ .track = w->clock, .key = "clock_percent",
				  .value = (int64_t)e.payload[0] },
			};

			w->st->counters++;
			ret = w->fmt->counter(w->ctx, w->t->proc, "throttle",
					      e.ts + (uint64_t)w->t->proc->shift, c, 2);
			break;
		}
		default:
			break;
		}
	}
	if (!ret && open)
		ret = unmatched(w, q->queue_type == NEURONPROF_QT_INFER_STATUS ? "infer" : "event",
				q->queue_type == NEURONPROF_QT_INFER_STATUS ?
				"infer start without stop" : "event start without end", &start);
	w->st->lost_recorded += q->lost_count;
	w->st->seq_gaps += w->gaps;
	/* Losses after the last entry: their window, and the last instruction is cut. */
	if (!ret)
		ret = emit_tail_loss(w, f, q, &tail);
	if (!ret && have_pend && tail)
		w->st->cut++;
	else if (!ret && have_pend)
		ret = instruction(w, &pend, instr_end(&w->clk, pend.ts, false, 0));
	return ret;
}

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
	ret = fmt->begin(ctx, source);
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
			const struct nprof_ntff_queue *q = &f->lqueues[k].q;
			struct walk w = { .fmt = fmt, .ctx = ctx, .st = st, .t = l.qtrack[i][k],
					  .raw = file_is_raw(f) ? &f->info.device : NULL };
			bool tsp = q->queue_type == NEURONPROF_QT_TOPSP_TRACE;

			instr_clock_init(&w.clk, timing_core_of(&tm, mach.file_machine[i],
								f->info.device.device_index,
								queue_core(f, q)),
					 tsp, tsp ? q->target_index : q->engine);

			if (q->queue_type == NEURONPROF_QT_THROTTLE && !w.raw) {
				w.level = counter_track(&l, w.t->proc, XCOUNTER_THROTTLE_LEVEL);
				w.clock = counter_track(&l, w.t->proc, XCOUNTER_THROTTLE_CLOCK);
			}
			ret = walk_queue(&w, f, &f->lqueues[k], pg, &done);
			instr_clock_free(&w.clk);
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
