// SPDX-License-Identifier: MIT
/*
 * Subscriptions: one notification queue, its subscription descriptor and
 * its ring mapped in place (header read-only, consumer word read-write,
 * data read-only). The device's operations do the kernel part; this file
 * validates, rounds the ring size and attaches the ring view, and records
 * the nq_subscribe, nq_drain and nq_overflow events of the system trace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_internal.h"
#include "util/internal.h"
#include "trace/base/tracepoint.h"

static const char *qt_name(uint32_t qt)
{
	static const char *const names[NEURONPROF_QT_COUNT] = {
		"TRACE", "EVENT", "ERROR", "INFER_STATUS", "DMA", "THROTTLE",
		"TOPSP_TRACE", "TOPSP_EVENT", "TOPSP_ERROR",
	};

	return qt < NEURONPROF_QT_COUNT ? names[qt] : "unknown";
}

/* "core 3 TRACE engine 1" / "TopSP 7 TOPSP_EVENT" */
static void describe(char *buf, size_t len, const struct nprof_nq_params *p)
{
	if (p->target_kind == NPROF_TARGET_TOPSP)
		snprintf(buf, len, "TopSP %u %s (type %u) engine %u", p->target_index,
			 qt_name(p->queue_type), p->queue_type, p->engine);
	else
		snprintf(buf, len, "%s %u %s (type %u) engine %u",
			 p->target_kind == NPROF_TARGET_CORE ? "core" : "target", p->target_index,
			 qt_name(p->queue_type), p->queue_type, p->engine);
}

/*
 * The attributes naming a queue in its events: the queue type, and the
 * engine of a core's queue or the TopSP of a TopSP's (the event's core is
 * the core the TopSP serves). Fills two.
 */
static void queue_attrs(const struct nprof_nq_params *p, struct nprof_sys_trace_attr *a)
{
	a[0] = (struct nprof_sys_trace_attr){
		.key = "queue_type", .type = NPROF_SYS_TRACE_ATTR_STR, .v.s = qt_name(p->queue_type),
	};
	if (p->target_kind == NPROF_TARGET_TOPSP)
		a[1] = (struct nprof_sys_trace_attr){
			.key = "topsp", .type = NPROF_SYS_TRACE_ATTR_UINT, .v.u = p->target_index,
		};
	else
		a[1] = (struct nprof_sys_trace_attr){
			.key = "engine", .type = NPROF_SYS_TRACE_ATTR_UINT, .v.u = p->engine,
		};
}

static inline struct nprof_sys_trace_attr uint_attr(const char *key, uint64_t v)
{
	return (struct nprof_sys_trace_attr){ .key = key, .type = NPROF_SYS_TRACE_ATTR_UINT, .v.u = v };
}

static uint32_t nq_trace_core(const struct nprof_nq *nq)
{
	return nprof_device_trace_core(nq->dev, nq->params.target_kind, nq->params.target_index);
}

/*
 * Why a queue refused a subscriber with EBUSY, naming who holds it and
 * what to stop: "the queue already has 8 subscribers, the most it takes:
 * pid 412 (neuronprof) with a 4096-byte ring, ...; stop one of them".
 */
static void describe_holders(struct nprof_device *dev, const struct nprof_nq *nq, char *buf,
			     size_t len)
{
	struct drm_neuronprof_nq_holders h;
	size_t n;
	uint32_t i;
	int ret;

	ret = dev->ops->holders ? dev->ops->holders(dev, nq, &h) : -ENOTTY;
	if (ret == -ENOTTY) {
		snprintf(buf, len, "the queue already has a subscriber (this neuronprof module takes one per queue; `fuser -v %s` names the processes that have the device open)",
			 dev->path);
		return;
	}
	if (ret) {
		snprintf(buf, len, "the queue already has the most subscribers it takes (who holds it is unknown: %s)",
			 strerror(-ret));
		return;
	}
	if (!h.count) {
		snprintf(buf, len, "the queue was full a moment ago and is no longer; try again");
		return;
	}
	n = (size_t)snprintf(buf, len, "the queue already has %u subscriber%s, the most it takes:",
			     h.count, h.count == 1 ? "" : "s");
	for (i = 0; i < h.count && i < NEURONPROF_MAX_SUBSCRIBERS && n < len; i++) {
		h.holders[i].comm[sizeof(h.holders[i].comm) - 1] = '\0';
		if (h.holders[i].pid)
			n += (size_t)snprintf(buf + n, len - n, "%s pid %d (%s) with a %llu-byte ring",
					      i ? "," : "", h.holders[i].pid, h.holders[i].comm,
					      (unsigned long long)h.holders[i].ring_size);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s a process outside this pid namespace (%s)",
					      i ? "," : "", h.holders[i].comm);
	}
	if (n < len)
		snprintf(buf + n, len - n, "; stop one of them (or its subscription) and retry");
}

NPROF_API struct nprof_nq *nprof_nq_subscribe(struct nprof_device *dev,
					      const struct nprof_nq_params *params)
{
	struct nprof_sys_trace_attr attrs[4];
	struct nprof_sys_trace_event ev;
	struct nprof_nq *nq;
	char what[96];
	int ret, want;

	if (!dev || !params)
		return nprof_err_ptr(EINVAL, "device or queue parameters are NULL");
	if (NPROF_SIZED_VALID(params, nprof_nq_params, NPROF_SIZED_IN))
		return NULL;
	describe(what, sizeof(what), params);
	if (params->flags)
		return nprof_err_ptr(EINVAL, "cannot subscribe %s: flags 0x%x must be 0", what,
				     params->flags);

	nq = calloc(1, sizeof(*nq));
	if (!nq)
		return nprof_err_ptr(ENOMEM, "cannot allocate a subscription");
	nq->dev = dev;
	nq->fd = -1;
	nq->params = *params;
	nq->params.size = sizeof(nq->params);
	nq->params.ring_size = nprof_device_ring_size(dev, params->ring_size);

	want = nprof_tp_begin(&ev, NPROF_EV_NQ_SUBSCRIBE, NPROF_SYS_TRACE_SRC_NEURON_RT,
				     nq_trace_core(nq));
	ret = dev->ops->subscribe(dev, nq);
	if (ret) {
		unsigned long long ring_size = nq->params.ring_size;

		if (ret != -EBUSY)
			free(nq);
		if (ret == -EACCES)
			return nprof_err_ptr(EACCES, "cannot subscribe %s on %s: observing a device needs CAP_PERFMON or CAP_SYS_ADMIN unless an administrator sets the neuronprof.observe_paranoid module parameter to 0",
					     what, dev->path);
		if (ret == -EPERM)
			return nprof_err_ptr(EPERM, "cannot subscribe %s on %s: a %llu-byte ring exceeds this user's locked-memory allowance (neuronprof.mlock_kb) and RLIMIT_MEMLOCK; raise either, use a smaller ring, or run with CAP_IPC_LOCK",
					     what, dev->path, ring_size);
		if (ret == -EBUSY) {
			char who[512];

			describe_holders(dev, nq, who, sizeof(who));
			free(nq);
			return nprof_err_ptr(EBUSY, "cannot subscribe %s on %s: %s", what, dev->path, who);
		}
		if (ret == -EOPNOTSUPP)
			return nprof_err_ptr(EOPNOTSUPP, "cannot subscribe %s on %s: the provider cannot read this queue where the runtime put it (neuron: such as device memory that the vendor's BAR4 mapping does not cover; the kernel log names the reason; Documentation/hardware.rst)",
					     what, dev->path);
		return nprof_err_ptr(-ret, "cannot subscribe %s on %s with a %llu-byte ring: %s", what,
				     dev->path, ring_size, strerror(-ret));
	}
	ret = nprof_ring_init(&nq->ring, nq->maps[0], nq->map_len[0], nq->maps[1], nq->map_len[1],
			      nq->maps[2], nq->map_len[2]);
	if (!ret && (nq->ring.queue_type != params->queue_type ||
		     nq->ring.target_kind != params->target_kind ||
		     nq->ring.target_index != params->target_index || nq->ring.engine != params->engine))
		ret = nprof_err(EPROTO, "the ring header describes queue %u/%u/%u/%u",
				nq->ring.target_kind, nq->ring.target_index, nq->ring.queue_type,
				nq->ring.engine);
	if (!ret && nq->ring.entry_size != dev->info.entry_size)
		ret = nprof_err(EPROTO, "the ring's entry size %u differs from the device's %u",
				nq->ring.entry_size, dev->info.entry_size);
	if (ret) {
		ret = nprof_err(-ret, "subscription to %s on %s is unusable: %s", what, dev->path,
				nprof_err_current());
		dev->ops->unsubscribe(nq);
		free(nq);
		errno = -ret;
		return NULL;
	}
	/* Losses before this subscription are not an overflow of it. */
	nq->lost_seen = __atomic_load_n(&nq->ring.hdr->lost, __ATOMIC_RELAXED);
	if (want == 1) {
		attrs[0] = uint_attr("device", dev->info.device_index);
		queue_attrs(&nq->params, &attrs[1]);
		attrs[3] = uint_attr("ring_size", nq->params.ring_size);
		ev.attrs = attrs;
		ev.nattrs = 4;
		nprof_tp_end(&ev);
	}
	return nq;
}

NPROF_API void nprof_nq_close(struct nprof_nq *nq)
{
	if (!nq)
		return;
	nq->dev->ops->unsubscribe(nq);
	free(nq);
}

NPROF_API int nprof_nq_fd(const struct nprof_nq *nq)
{
	if (!nq)
		return nprof_err(EINVAL, "subscription is NULL");
	return nq->fd;
}

NPROF_API struct nprof_ring *nprof_nq_ring(struct nprof_nq *nq)
{
	if (!nq)
		return nprof_err_ptr(EINVAL, "subscription is NULL");
	return &nq->ring;
}

/*
 * nq_overflow: the drain just returned found more notifications lost than
 * the previous one (or the subscription) did. Called on every successful
 * drain, trace or no trace, so that a loss is reported by the first drain
 * after it and only once.
 */
static void trace_overflow(struct nprof_nq *nq, uint64_t lost)
{
	struct nprof_sys_trace_attr attrs[4];
	struct nprof_sys_trace_event ev;
	uint32_t core;
	uint64_t grew;

	if (lost <= nq->lost_seen) {
		nq->lost_seen = lost;
		return;
	}
	grew = lost - nq->lost_seen;
	nq->lost_seen = lost;
	core = nq_trace_core(nq);
	if (!nprof_st_wanted(NPROF_EV_NQ_OVERFLOW, core))
		return;
	memset(&ev, 0, sizeof(ev));
	ev.type = NPROF_EV_NQ_OVERFLOW;
	ev.source = NPROF_SYS_TRACE_SRC_NEURON_RT;
	ev.core = core;
	ev.start_ns = ev.end_ns = nprof_sys_trace_now();
	queue_attrs(&nq->params, attrs);
	attrs[2] = uint_attr("lost", grew);
	attrs[3] = uint_attr("lost_total", lost);
	ev.attrs = attrs;
	ev.nattrs = 4;
	nprof_tp_record(&ev);
}

NPROF_API int nprof_nq_drain(struct nprof_nq *nq, unsigned int flags,
			     struct nprof_nq_drain_state *st)
{
	struct nprof_sys_trace_attr attrs[4];
	struct nprof_sys_trace_event ev;
	struct neuronprof_nq_drain d;
	char what[96];
	size_t size;
	int ret, want;

	if (!nq || !st)
		return nprof_err(EINVAL, "subscription or drain state is NULL");
	if (NPROF_SIZED_VALID(st, nprof_nq_drain_state, NPROF_SIZED_OUT))
		return -EINVAL;
	if (flags & ~NPROF_NQ_DRAIN_FLUSH)
		return nprof_err(EINVAL, "unknown drain flags 0x%x", flags & ~NPROF_NQ_DRAIN_FLUSH);
	want = nprof_tp_begin(&ev, NPROF_EV_NQ_DRAIN, NPROF_SYS_TRACE_SRC_NEURON_RT,
				     nq_trace_core(nq));
	ret = nq->dev->ops->drain(nq, flags & NPROF_NQ_DRAIN_FLUSH ? NEURONPROF_DRAIN_FLUSH : 0, &d);
	if (ret) {
		describe(what, sizeof(what), &nq->params);
		return nprof_err(-ret, "cannot drain %s on %s%s: %s", what, nq->dev->path,
				 flags & NPROF_NQ_DRAIN_FLUSH ? " with a flush" : "", strerror(-ret));
	}
	if (want == 1) {
		queue_attrs(&nq->params, attrs);
		attrs[2] = uint_attr("flush", !!(flags & NPROF_NQ_DRAIN_FLUSH));
		/* Unread entries the drain reports (a distance: right when positions wrap). */
		attrs[3] = uint_attr("pending_entries",
				     (d.producer_pos - d.consumer_pos) / nq->ring.entry_size);
		ev.attrs = attrs;
		ev.nattrs = 4;
		nprof_tp_end(&ev);
	}
	trace_overflow(nq, d.lost);
	size = st->size;
	memset(st, 0, sizeof(*st));
	st->size = size;
	st->producer_pos = d.producer_pos;
	st->consumer_pos = d.consumer_pos;
	st->lost = d.lost;
	st->ring_flags = d.ring_flags;
	return 0;
}
