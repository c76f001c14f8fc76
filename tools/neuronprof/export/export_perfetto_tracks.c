// SPDX-License-Identifier: MIT
/*
 * neuronprof export --format perfetto, the track descriptors: a process
 * track per device and per host process, a track per NeuronCore under its
 * device, and under those the engine, TopSP, queue, executions and counter
 * tracks, in explicit child order (the layout is export_layout.c's; the
 * events on the tracks are export_perfetto.c's).
 */
#include <stdio.h>

#include "export/export_perfetto_internal.h"

/* A packet describing the track @uuid named @name, open for more of its fields. */
static void track_begin(struct perfetto_export *x, uint64_t uuid, const char *name)
{
	packet_begin(x, 0);
	pb_open(&x->e, PKT_TRACK_DESCRIPTOR);
	pb_uint(&x->e, TD_UUID, uuid);
	pb_str(&x->e, TD_NAME, name);
}

static int track_end(struct perfetto_export *x)
{
	pb_close(&x->e);
	return packet_end(x);
}

/* The track of the process @pid named @name; open as track_begin() leaves it. */
static void process_track_begin(struct perfetto_export *x, uint64_t uuid, int32_t pid,
				const char *name)
{
	track_begin(x, uuid, name);
	pb_open(&x->e, TD_PROCESS);
	pb_int(&x->e, PROCESS_PID, pid);
	pb_str(&x->e, PROCESS_NAME, name);
	pb_close(&x->e);
}

int perfetto_process(void *ctx, const struct xproc *p)
{
	struct perfetto_export *x = ctx;
	struct pbenc *e = &x->e;
	char name[64];

	if (p->host) {
		process_track_begin(x, p->uuid, p->pid, p->name);
		return track_end(x);
	}
	if (p->dev_first) {
		/* The device: a process whose children are its cores, in core order. */
		process_track_begin(x, p->dev_uuid, p->dev_pid, p->dev_name);
		pb_uint(e, TD_CHILD_ORDERING, CHILD_ORDERING_EXPLICIT);
		if (track_end(x))
			return -1;
	}
	snprintf(name, sizeof(name), "NeuronCore %u", p->core);
	packet_begin(x, 0);
	pb_open(e, PKT_TRACK_DESCRIPTOR);
	pb_uint(e, TD_UUID, p->uuid);
	pb_uint(e, TD_PARENT_UUID, p->dev_uuid);
	pb_str(e, TD_NAME, name);
	pb_uint(e, TD_CHILD_ORDERING, CHILD_ORDERING_EXPLICIT);
	pb_int(e, TD_SIBLING_ORDER_RANK, (int64_t)p->core);
	return track_end(x);
}

int perfetto_track(void *ctx, const struct xtrack *t)
{
	struct perfetto_export *x = ctx;
	struct pbenc *e = &x->e;

	track_begin(x, t->uuid, t->name);
	if (t->kind == XT_THREAD && !t->engine) {
		/* A thread track belongs to its process through the pid. */
		pb_open(e, TD_THREAD);
		pb_int(e, THREAD_PID, t->proc->pid);
		pb_int(e, THREAD_TID, t->tid);
		pb_str(e, THREAD_NAME, t->name);
		pb_close(e);
	} else {
		pb_uint(e, TD_PARENT_UUID, t->parent_uuid);
		pb_int(e, TD_SIBLING_ORDER_RANK, t->sort_index);
		if (t->kind == XT_GROUP)
			pb_uint(e, TD_CHILD_ORDERING, CHILD_ORDERING_EXPLICIT);
	}
	if (t->kind == XT_COUNTER) {
		pb_open(e, TD_COUNTER);
		if (t->unit != XUNIT_NONE)
			pb_uint(e, COUNTER_UNIT, t->unit);
		if (t->unit_name)
			pb_str(e, COUNTER_UNIT_NAME, t->unit_name);
		pb_close(e);
	}
	return track_end(x);
}
