// SPDX-License-Identifier: MIT
/*
 * Subscriptions: one notification queue, its subscription descriptor and
 * its ring mapped in place (header read-only, consumer word read-write,
 * data read-only). The device's operations do the kernel part; this file
 * validates, rounds the ring size and attaches the ring view.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_internal.h"
#include "internal.h"
#include "ntff_internal.h"

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

NPROF_API struct nprof_nq *nprof_nq_subscribe(struct nprof_device *dev,
					      const struct nprof_nq_params *params)
{
	struct nprof_nq *nq;
	char what[96];
	int ret;

	if (!dev || !params)
		return nprof_err_ptr(EINVAL, "device or queue parameters are NULL");
	if (!nprof_ntff_sized_struct_ok(params, sizeof(*params)))
		return nprof_err_ptr(EINVAL, "struct nprof_nq_params size %zu is unsupported (this library: %zu)",
				     params->size, sizeof(*params));
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

	ret = dev->ops->subscribe(dev, nq);
	if (ret) {
		unsigned long long ring_size = nq->params.ring_size;

		free(nq);
		if (ret == -EBUSY)
			return nprof_err_ptr(EBUSY, "cannot subscribe %s on %s: the queue already has a subscriber",
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

NPROF_API int nprof_nq_drain(struct nprof_nq *nq, unsigned int flags,
			     struct nprof_nq_drain_state *st)
{
	struct neuronprof_nq_drain d;
	char what[96];
	size_t size;
	int ret;

	if (!nq || !st)
		return nprof_err(EINVAL, "subscription or drain state is NULL");
	if (st->size < sizeof(*st))
		return nprof_err(EINVAL, "struct nprof_nq_drain_state size %zu is unsupported (this library: %zu)",
				 st->size, sizeof(*st));
	if (flags & ~NPROF_NQ_DRAIN_FLUSH)
		return nprof_err(EINVAL, "unknown drain flags 0x%x", flags & ~NPROF_NQ_DRAIN_FLUSH);
	ret = nq->dev->ops->drain(nq, flags & NPROF_NQ_DRAIN_FLUSH ? NEURONPROF_DRAIN_FLUSH : 0, &d);
	if (ret) {
		describe(what, sizeof(what), &nq->params);
		return nprof_err(-ret, "cannot drain %s on %s%s: %s", what, nq->dev->path,
				 flags & NPROF_NQ_DRAIN_FLUSH ? " with a flush" : "", strerror(-ret));
	}
	size = st->size;
	memset(st, 0, sizeof(*st));
	st->size = size;
	st->producer_pos = d.producer_pos;
	st->consumer_pos = d.consumer_pos;
	st->lost = d.lost;
	st->ring_flags = d.ring_flags;
	return 0;
}
