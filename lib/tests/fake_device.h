/* SPDX-License-Identifier: MIT */
/*
 * A device for host tests: rings laid out exactly as a subscription maps
 * them (header page, consumer page, data area) in anonymous memory, a
 * producer that follows the kernel's rules (never overwrite unread entries,
 * count what does not fit as lost and still give it a sequence number,
 * publish the producer position with a release store), and knobs to make
 * subscriptions and drains fail or block. The library drives it through the
 * same struct nprof_device_ops seam as the real ioctls. A subscription's
 * descriptor is an eventfd that the producer signals as the kernel wakes a
 * subscriber: when the unread bytes cross the watermark, and at a flush.
 */
#ifndef NPROF_FAKE_DEVICE_H
#define NPROF_FAKE_DEVICE_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "device/device_internal.h"

#define FAKE_MAX_QUEUES	512

struct fake_queue {
	bool used;
	uint32_t kind, index, type, engine;
	unsigned char *mem;		/* header page | consumer page | data */
	size_t mem_len;
	uint64_t data_size;
	struct neuronprof_ring_header *hdr;
	struct neuronprof_ring_consumer *cons;
	unsigned char *data;
	uint64_t seq;
	uint64_t prod;
	uint64_t lost;
	int efd;			/* the subscription's descriptor: an eventfd */
	uint64_t watermark;		/* bytes, at least one entry */
	unsigned int wakes;		/* times fake_wake() signalled it (atomic) */
};

struct fake_dev {
	struct fake_queue q[FAKE_MAX_QUEUES];
	int subscribe_fail_at;		/* fail the Nth subscription (1-based), 0 never */
	int subscribe_err;
	int subscriptions;
	int flush_err;			/* every flush fails with this, 0 never */
	int drain_err;			/* every drain fails with this, 0 never */
	unsigned int drains, flushes;
	uint64_t next_ts;
	/* Protects q[].used and the counters when cores run in parallel. */
	pthread_mutex_t qm;
	/* Blocking drains: a drain waits while block is set. */
	pthread_mutex_t m;
	pthread_cond_t cv;
	bool block;
	bool blocked;			/* a drain is waiting */
	/*
	 * SIM_EXEC (inspect_util.h) produces one watermark at a time and waits
	 * until the consumer has taken it: a device no faster than a streaming
	 * consumer, so that "nothing lost" does not depend on timing.
	 */
	bool pace;
};

static inline long fake_page(void)
{
	return sysconf(_SC_PAGESIZE);
}

static inline struct fake_queue *fake_find(struct fake_dev *fd, uint32_t kind, uint32_t index,
					   uint32_t type, uint32_t engine)
{
	int i;

	for (i = 0; i < FAKE_MAX_QUEUES; i++) {
		struct fake_queue *q = &fd->q[i];

		if (q->used && q->kind == kind && q->index == index && q->type == type &&
		    q->engine == engine)
			return q;
	}
	return NULL;
}

/* Lay out a ring like nprof_ring_init() of the kernel does. */
static inline int fake_ring_alloc(struct fake_queue *q, uint64_t data_size, uint32_t entry_size)
{
	size_t page = (size_t)fake_page();

	q->mem_len = 2 * page + data_size;
	q->mem = mmap(NULL, q->mem_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q->mem == MAP_FAILED)
		return -errno;
	q->hdr = (struct neuronprof_ring_header *)q->mem;
	q->cons = (struct neuronprof_ring_consumer *)(q->mem + page);
	q->data = q->mem + 2 * page;
	q->data_size = data_size;
	q->hdr->version = NEURONPROF_RING_VERSION;
	q->hdr->header_size = sizeof(*q->hdr);
	q->hdr->entry_size = entry_size;
	q->hdr->ring_size = data_size;
	q->hdr->queue_type = q->type;
	q->hdr->target_kind = q->kind;
	q->hdr->target_index = q->index;
	q->hdr->engine = q->engine;
	q->seq = q->prod = q->lost = 0;
	q->wakes = 0;
	return 0;
}

/* Wake the subscriber, as the kernel's wait queue does. */
static inline void fake_wake(struct fake_queue *q)
{
	uint64_t one = 1;

	if (q->efd > 0 && write(q->efd, &one, sizeof(one)) < 0)
		abort();
	__atomic_fetch_add(&q->wakes, 1, __ATOMIC_RELAXED);
}

static inline void fake_ring_free(struct fake_queue *q)
{
	if (q->efd > 0)
		close(q->efd);
	if (q->mem)
		munmap(q->mem, q->mem_len);
	memset(q, 0, sizeof(*q));
}

/*
 * Produce @n notifications with the kernel's rules. Returns how many were
 * delivered; the rest were counted as lost.
 */
static inline uint64_t fake_produce(struct fake_dev *fd, struct fake_queue *q, uint64_t n,
				    uint32_t model_id)
{
	uint32_t es = q->hdr->entry_size;
	uint64_t i, delivered = 0;

	for (i = 0; i < n; i++) {
		uint64_t cons = __atomic_load_n(&q->cons->consumer_pos, __ATOMIC_ACQUIRE);
		struct neuronprof_notification e;

		memset(&e, 0, sizeof(e));
		e.timestamp_ns = ++fd->next_ts;
		e.seq = q->seq++;
		e.queue_type = (uint16_t)q->type;
		e.engine = (uint16_t)q->engine;
		e.code = (uint32_t)i;
		e.model_id = model_id;
		/* fake_sim_exec() produces one per iteration: entry i is iteration i. */
		e.iteration = (uint32_t)i;
		if (q->data_size - (q->prod - cons) < es) {
			q->lost++;
			__atomic_store_n(&q->hdr->lost, q->lost, __ATOMIC_RELAXED);
			__atomic_store_n(&q->hdr->flags, q->hdr->flags | NEURONPROF_RING_OVERFLOWED,
					 __ATOMIC_RELAXED);
			continue;
		}
		memcpy(q->data + (q->prod & (q->data_size - 1)), &e, sizeof(e));
		q->prod += es;
		__atomic_store_n(&q->hdr->producer_pos, q->prod, __ATOMIC_RELEASE);
		delivered++;
		if (q->prod - cons >= q->watermark && q->prod - es - cons < q->watermark)
			fake_wake(q);
	}
	return delivered;
}

static inline int fake_subscribe(struct nprof_device *dev, struct nprof_nq *nq)
{
	struct fake_dev *fd = dev->priv;
	size_t page = (size_t)fake_page();
	struct fake_queue *q;
	int i, ret;

	pthread_mutex_lock(&fd->qm);
	fd->subscriptions++;
	ret = 0;
	if (fd->subscribe_fail_at && fd->subscriptions == fd->subscribe_fail_at)
		ret = -fd->subscribe_err;
	else if (fake_find(fd, nq->params.target_kind, nq->params.target_index,
			   nq->params.queue_type, nq->params.engine))
		ret = -EBUSY;
	for (i = 0; !ret && i < FAKE_MAX_QUEUES && fd->q[i].used; i++)
		;
	if (!ret && i == FAKE_MAX_QUEUES)
		ret = -ENOSPC;
	if (ret) {
		pthread_mutex_unlock(&fd->qm);
		return ret;
	}
	q = &fd->q[i];
	q->kind = nq->params.target_kind;
	q->index = nq->params.target_index;
	q->type = nq->params.queue_type;
	q->engine = nq->params.engine;
	ret = fake_ring_alloc(q, nq->params.ring_size, dev->info.entry_size);
	if (ret) {
		memset(q, 0, sizeof(*q));
		pthread_mutex_unlock(&fd->qm);
		return ret;
	}
	q->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->efd < 0) {
		ret = -errno;
		fake_ring_free(q);
		pthread_mutex_unlock(&fd->qm);
		return ret;
	}
	q->watermark = nq->params.watermark > dev->info.entry_size ? nq->params.watermark :
								      dev->info.entry_size;
	q->used = true;
	pthread_mutex_unlock(&fd->qm);
	nq->priv = q;
	nq->fd = q->efd;
	nq->maps[0] = q->hdr;
	nq->map_len[0] = page;
	nq->maps[1] = q->cons;
	nq->map_len[1] = page;
	nq->maps[2] = q->data;
	nq->map_len[2] = (size_t)q->data_size;
	return 0;
}

static inline int fake_drain(struct nprof_nq *nq, uint32_t flags, struct neuronprof_nq_drain *st)
{
	struct fake_dev *fd = nq->dev->priv;
	struct fake_queue *q = nq->priv;

	pthread_mutex_lock(&fd->m);
	while (fd->block) {
		fd->blocked = true;
		pthread_cond_broadcast(&fd->cv);
		pthread_cond_wait(&fd->cv, &fd->m);
	}
	fd->blocked = false;
	pthread_mutex_unlock(&fd->m);

	pthread_mutex_lock(&fd->qm);
	fd->drains++;
	if (flags & NEURONPROF_DRAIN_FLUSH)
		fd->flushes++;
	pthread_mutex_unlock(&fd->qm);
	if (fd->drain_err)
		return -fd->drain_err;
	if ((flags & NEURONPROF_DRAIN_FLUSH) && fd->flush_err)
		return -fd->flush_err;
	if ((flags & NEURONPROF_DRAIN_FLUSH) &&
	    q->prod != __atomic_load_n(&q->cons->consumer_pos, __ATOMIC_ACQUIRE))
		fake_wake(q);
	memset(st, 0, sizeof(*st));
	st->producer_pos = q->prod;
	st->consumer_pos = __atomic_load_n(&q->cons->consumer_pos, __ATOMIC_ACQUIRE);
	st->lost = q->lost;
	st->ring_flags = q->hdr->flags;
	return 0;
}

static inline void fake_unsubscribe(struct nprof_nq *nq)
{
	struct fake_dev *fd = nq->dev->priv;

	pthread_mutex_lock(&fd->qm);
	fake_ring_free(nq->priv);
	pthread_mutex_unlock(&fd->qm);
	nq->fd = -1;
}

/* NQ_HOLDERS of a queue: the fake takes one subscriber, "made" by pid 4242. */
static int fake_holders(struct nprof_device *dev, const struct nprof_nq *nq,
			struct drm_neuronprof_nq_holders *h)
{
	struct fake_dev *fd = dev->priv;
	struct fake_queue *q;

	memset(h, 0, sizeof(*h));
	h->max_subscribers = 1;
	pthread_mutex_lock(&fd->qm);
	q = fake_find(fd, nq->params.target_kind, nq->params.target_index, nq->params.queue_type,
		      nq->params.engine);
	if (q) {
		h->count = 1;
		h->holders[0].pid = 4242;
		snprintf(h->holders[0].comm, sizeof(h->holders[0].comm), "neuronprof");
		h->holders[0].ring_size = q->data_size;
	}
	pthread_mutex_unlock(&fd->qm);
	return 0;
}

/*
 * SIM_EXEC of the fake device (for a device whose info has
 * NPROF_DEVICE_CAP_SIM_EXEC; inspect_util.h's): every subscribed queue of
 * the core and of its TopSPs gets @iterations notifications carrying the
 * model id; the error flag makes the execution report 1004, as the
 * simulator does.
 */
static inline int fake_sim_exec(struct nprof_device *dev, struct drm_neuronprof_sim_exec *args)
{
	struct fake_dev *fd = dev->priv;
	uint32_t per = dev->info.num_topsps / dev->info.num_cores;
	int i;

	if (args->core >= dev->info.num_cores)
		return -EINVAL;
	pthread_mutex_lock(&fd->qm);
	for (i = 0; i < FAKE_MAX_QUEUES; i++) {
		struct fake_queue *q = &fd->q[i];
		bool mine;

		if (!q->used)
			continue;
		mine = q->kind == NPROF_TARGET_CORE ? q->index == args->core :
						      per && q->index / per == args->core;
		if (!mine)
			continue;
		if (fd->pace) {
			uint64_t left = args->iterations, batch = q->watermark / q->hdr->entry_size;

			while (left) {
				uint64_t n = left < batch ? left : batch;

				fake_produce(fd, q, n, args->model_id);
				left -= n;
				while (__atomic_load_n(&q->cons->consumer_pos, __ATOMIC_ACQUIRE) != q->prod)
					sched_yield();
			}
		} else {
			fake_produce(fd, q, args->iterations, args->model_id);
		}
		if (q->type < 16)
			args->produced[q->type] += args->iterations;
	}
	pthread_mutex_unlock(&fd->qm);
	args->status = (args->flags & NEURONPROF_SIM_EXEC_ERROR) ? 1004 : 0;
	return 0;
}

static const struct nprof_device_ops fake_ops = {
	.subscribe = fake_subscribe,
	.drain = fake_drain,
	.unsubscribe = fake_unsubscribe,
	.holders = fake_holders,
	.sim_exec = fake_sim_exec,
};

/* A trn2-like description: 8 cores, 16 TopSPs, 5 engines, 64-byte entries. */
static inline struct nprof_device_info fake_trn2_info(void)
{
	struct nprof_device_info info;

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.uapi_version = 1;
	info.arch = NEURONPROF_ARCH_TRN2;
	strcpy(info.provider, "fake");
	info.num_cores = 8;
	info.num_topsps = 16;
	info.engines_per_core = 5;
	info.entry_size = sizeof(struct neuronprof_notification);
	info.core_queue_types = 0x3f;
	info.topsp_queue_types = 0x1c0;
	info.per_engine_queue_types = 0x13;
	info.clock_id = CLOCK_MONOTONIC;
	info.caps = NPROF_DEVICE_CAP_FLUSH;
	info.min_ring_size = (uint64_t)fake_page();
	info.max_ring_size = 64ULL << 20;
	return info;
}

static inline struct fake_dev *fake_dev_new(void)
{
	struct fake_dev *fd = calloc(1, sizeof(*fd));

	if (fd) {
		pthread_mutex_init(&fd->qm, NULL);
		pthread_mutex_init(&fd->m, NULL);
		pthread_cond_init(&fd->cv, NULL);
	}
	return fd;
}

static inline void fake_dev_free(struct fake_dev *fd)
{
	int i;

	for (i = 0; i < FAKE_MAX_QUEUES; i++)
		if (fd->q[i].used)
			fake_ring_free(&fd->q[i]);
	pthread_mutex_destroy(&fd->qm);
	pthread_mutex_destroy(&fd->m);
	pthread_cond_destroy(&fd->cv);
	free(fd);
}

static inline int fake_subscribed(const struct fake_dev *fd)
{
	int i, n = 0;

	for (i = 0; i < FAKE_MAX_QUEUES; i++)
		n += fd->q[i].used;
	return n;
}

#endif /* NPROF_FAKE_DEVICE_H */
