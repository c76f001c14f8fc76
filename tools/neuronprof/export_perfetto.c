// SPDX-License-Identifier: MIT
/*
 * neuronprof export --format perfetto: a native Perfetto trace (a
 * perfetto.protos.Trace message, proto/perfetto_trace.proto), which
 * ui.perfetto.dev and trace_processor open.
 *
 * Tracks: a process track per NeuronCore (ProcessDescriptor with the pid
 * the JSON export uses), under it a track per engine and per TopSP, under
 * those a track per queue; core-level queues (INFER_STATUS, ERROR) sit
 * directly under the core; THROTTLE becomes two counter tracks ("throttle
 * level", "clock percent"). The system profile adds a process track per
 * host process, a thread track (ThreadDescriptor) per host thread and host
 * counter tracks. Events are TrackEvents on those tracks:
 * SLICE_BEGIN/SLICE_END pairs, INSTANTs with debug annotations for the
 * arguments, COUNTERs.
 *
 * Streaming: a Trace is nothing but its repeated field 1, so each packet is
 * packed on its own with protobuf-c and written as field 1 (tag 0x0a, the
 * varint length, the bytes). The output is byte for byte what packing one
 * Trace holding every packet would give, without holding them in memory.
 *
 * Timestamps are the device's (the NTFF clock_id, CLOCK_MONOTONIC for the
 * simulator) in nanoseconds, written as packet timestamps without a clock
 * id, so trace processor takes them as its trace clock unchanged.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "fmt.h"
#include "perfetto_trace.pb-c.h"

/* All packets form one sequence; 0 would mean "no sequence". */
#define SEQUENCE_ID			1
#define SEQ_INCREMENTAL_STATE_CLEARED	1

/*
 * A ProtobufCBuffer that appends to a growable array: packing into it sizes
 * only the submessages (their length prefixes need it), where
 * get_packed_size() followed by pack() would size the whole packet twice.
 */
struct packet_buf {
	ProtobufCBuffer base;
	uint8_t *data;
	size_t len, cap;
	bool nomem;
};

struct perfetto_export {
	FILE *out;
	struct packet_buf pb;
	bool first;
};

static void packet_append(ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
	struct packet_buf *b = (struct packet_buf *)buffer;

	if (b->len + len > b->cap) {
		size_t cap = b->cap * 2 > b->len + len ? b->cap * 2 : b->len + len;
		uint8_t *d = realloc(b->data, cap);

		if (!d) {
			b->nomem = true;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

struct perfetto_export *perfetto_export_new(FILE *out)
{
	struct perfetto_export *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->out = out;
	x->first = true;
	x->pb.base.append = packet_append;
	x->pb.cap = 4096;
	x->pb.data = malloc(x->pb.cap);
	if (!x->pb.data) {
		free(x);
		return NULL;
	}
	return x;
}

void perfetto_export_free(struct perfetto_export *x)
{
	if (x)
		free(x->pb.data);
	free(x);
}

static void put_varint(FILE *f, uint64_t v)
{
	uint8_t b[10];
	int n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	fwrite(b, 1, (size_t)n, f);
}

static int emit(struct perfetto_export *x, Perfetto__Protos__TracePacket *pkt)
{
	pkt->optional_trusted_packet_sequence_id_case =
		PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
	pkt->trusted_packet_sequence_id = SEQUENCE_ID;
	if (x->first) {
		/* Nothing is interned, but readers want a sequence to start clean. */
		pkt->has_sequence_flags = 1;
		pkt->sequence_flags = SEQ_INCREMENTAL_STATE_CLEARED;
		x->first = false;
	}
	x->pb.len = 0;
	perfetto__protos__trace_packet__pack_to_buffer(pkt, &x->pb.base);
	if (x->pb.nomem) {
		fail("out of memory");
		return -1;
	}
	fputc(0x0a, x->out);	/* Trace.packet: field 1, length-delimited */
	put_varint(x->out, x->pb.len);
	fwrite(x->pb.data, 1, x->pb.len, x->out);
	return 0;
}

static int emit_descriptor(struct perfetto_export *x, Perfetto__Protos__TrackDescriptor *td)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
	pkt.track_descriptor = td;
	return emit(x, &pkt);
}

static int emit_event(struct perfetto_export *x, uint64_t ts, Perfetto__Protos__TrackEvent *ev)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	pkt.has_timestamp = 1;
	pkt.timestamp = ts;
	pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	pkt.track_event = ev;
	return emit(x, &pkt);
}

static int p_begin(void *ctx, const char *source)
{
	(void)ctx;
	(void)source;
	return 0;
}

static int p_process(void *ctx, const struct xproc *p)
{
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;

	pd.has_pid = 1;
	pd.pid = p->pid;
	pd.process_name = (char *)p->name;
	td.has_uuid = 1;
	td.uuid = p->uuid;
	td.name = (char *)p->name;
	td.process = &pd;
	return emit_descriptor(ctx, &td);
}

static int p_track(void *ctx, const struct xtrack *t)
{
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor thd = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;

	td.has_uuid = 1;
	td.uuid = t->uuid;
	td.name = (char *)t->name;
	if (t->kind == XT_THREAD) {
		/* A thread track belongs to its process through the pid. */
		thd.has_pid = 1;
		thd.pid = t->proc->pid;
		thd.has_tid = 1;
		thd.tid = t->tid;
		thd.thread_name = (char *)t->name;
		td.thread = &thd;
		return emit_descriptor(ctx, &td);
	}
	td.has_parent_uuid = 1;
	td.parent_uuid = t->parent_uuid;
	if (t->kind == XT_COUNTER)
		td.counter = &cd;
	return emit_descriptor(ctx, &td);
}

/* Debug annotations of @a; hex values become strings like the JSON export's. */
struct annotations {
	Perfetto__Protos__DebugAnnotation da[XARGS_MAX];
	Perfetto__Protos__DebugAnnotation *ptr[XARGS_MAX];
	char hex[XARGS_MAX][24];
};

static void annotate(Perfetto__Protos__TrackEvent *ev, struct annotations *an,
		     const struct xarg *a, int n)
{
	if (n > XARGS_MAX)
		n = XARGS_MAX;
	for (int i = 0; i < n; i++) {
		Perfetto__Protos__DebugAnnotation *d = &an->da[i];

		perfetto__protos__debug_annotation__init(d);
		d->name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME;
		d->name = (char *)a[i].key;
		switch (a[i].kind) {
		case XARG_U64:
			d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE;
			d->uint_value = a[i].u;
			break;
		case XARG_HEX:
			*fmt_hex(fmt_str(an->hex[i], "0x"), a[i].u, 1) = '\0';
			d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
			d->string_value = an->hex[i];
			break;
		case XARG_STR:
			d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
			d->string_value = (char *)a[i].s;
			break;
		case XARG_I64:
			d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
			d->int_value = a[i].i;
			break;
		case XARG_DOUBLE:
			d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
			d->double_value = a[i].d;
			break;
		}
		an->ptr[i] = d;
	}
	ev->n_debug_annotations = (size_t)n;
	ev->debug_annotations = an->ptr;
}

static void event_init(Perfetto__Protos__TrackEvent *ev, const struct xtrack *t,
		       Perfetto__Protos__TrackEvent__Type type, char **cat, const char *name)
{
	perfetto__protos__track_event__init(ev);
	ev->has_type = 1;
	ev->type = type;
	ev->has_track_uuid = 1;
	ev->track_uuid = t->uuid;
	if (cat) {
		ev->n_categories = 1;
		ev->categories = cat;
	}
	if (name) {
		ev->name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME;
		ev->name = (char *)name;
	}
}

static int p_slice(void *ctx, const struct xtrack *t, enum xslice_style style, const char *cat,
		   const char *name, uint64_t ts, uint64_t end_ts, const struct xarg *a, int n)
{
	Perfetto__Protos__TrackEvent ev;
	struct annotations an;
	char *cats[1] = { (char *)cat };

	/* TrackEvent has no complete events: every slice is a begin/end pair. */
	(void)style;
	event_init(&ev, t, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, cats, name);
	annotate(&ev, &an, a, n);
	if (emit_event(ctx, ts, &ev))
		return -1;
	event_init(&ev, t, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END, NULL, NULL);
	return emit_event(ctx, end_ts, &ev);
}

static int p_instant(void *ctx, const struct xtrack *t, const char *cat, const char *name,
		     uint64_t ts, const struct xarg *a, int n)
{
	Perfetto__Protos__TrackEvent ev;
	struct annotations an;
	char *cats[1] = { (char *)cat };

	event_init(&ev, t, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, cats, name);
	annotate(&ev, &an, a, n);
	return emit_event(ctx, ts, &ev);
}

static int p_counter(void *ctx, const struct xproc *p, const char *name, uint64_t ts,
		     const struct xcounter *c, int n)
{
	Perfetto__Protos__TrackEvent ev;

	(void)p;
	(void)name;
	for (int i = 0; i < n; i++) {
		if (!c[i].track)
			continue;
		event_init(&ev, c[i].track, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER,
			   NULL, NULL);
		if (c[i].is_double) {
			ev.counter_value_field_case =
				PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
			ev.double_counter_value = c[i].dvalue;
		} else {
			ev.counter_value_field_case =
				PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
			ev.counter_value = c[i].value;
		}
		if (emit_event(ctx, ts, &ev))
			return -1;
	}
	return 0;
}

static int p_end(void *ctx)
{
	(void)ctx;
	return 0;
}

const struct xformat perfetto_format = {
	.begin = p_begin,
	.process = p_process,
	.track = p_track,
	.slice = p_slice,
	.instant = p_instant,
	.counter = p_counter,
	.end = p_end,
};
