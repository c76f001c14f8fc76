/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuronprof provider API: how a device provider (the simulator, or a driver
 * for real Neuron PCI devices) announces a device to the neuronprof core and
 * feeds notifications into the rings of subscribed queues.
 *
 * Lifetime, in the order of devm_drm_dev_alloc() and drm_dev_register():
 *
 * 1. nprof_device_alloc() creates the device. It is invisible: there is no
 *    render node, no ioctl can reach it and the core calls none of the
 *    provider's ops. nprof_device_priv() and nprof_device_desc() work, and
 *    nprof_notify() is harmless (nothing can be subscribed yet).
 * 2. The provider finishes every piece of its own state that an op or a
 *    producer may touch, including whatever holds the returned pointer.
 * 3. nprof_device_publish() creates the render node. From the moment it is
 *    called (before it returns) userspace can open the node and every op
 *    may run, concurrently, in the contexts struct nprof_hw_ops gives.
 *    A publish that fails leaves the device unpublished.
 * 4. nprof_device_unregister() unplugs a published device: it waits for
 *    every ioctl and op in flight to finish, marks every live subscription
 *    DEAD and wakes its pollers. After it returns the core never calls the
 *    provider's ops again and nprof_notify() on the device delivers
 *    nothing; the provider may free its state. A device that was never
 *    published (or whose publish failed) is dropped with nprof_device_free()
 *    instead.
 *
 * Subscriptions and mappings that userspace still holds stay valid after
 * unregistration. The memory of the device itself is a managed resource of
 * the parent given to nprof_device_alloc(), released when the parent is
 * released and the last subscription is gone: the parent must be a device
 * the provider owns (its own platform device), never a device another
 * driver owns.
 */
#ifndef _NEURONPROF_PROVIDER_H_
#define _NEURONPROF_PROVIDER_H_

#include <linux/types.h>
#include <drm/neuronprof_drm.h>

struct device;
struct module;
struct nprof_drmdev;

/**
 * struct nprof_queue_id - address of one notification queue.
 * @kind: enum neuronprof_target_kind.
 * @index: core or TopSP index.
 * @type: enum neuronprof_queue_type.
 * @engine: engine, 0 for types without per-engine queues.
 */
struct nprof_queue_id {
	u32 kind;
	u32 index;
	u32 type;
	u32 engine;
};

/**
 * struct nprof_device_desc - what a provider announces.
 * @provider: short provider name, at most 15 characters ("sim").
 * @arch: enum neuronprof_arch.
 * @num_cores: NeuronCores, 1..256.
 * @num_topsps: TopSPs, 0..256, a multiple of @num_cores.
 * @engines_per_core: 1..NEURONPROF_MAX_ENGINES.
 * @core_queue_types: (1 << type) bits of the queue types of a NeuronCore.
 * @topsp_queue_types: (1 << type) bits of the queue types of a TopSP.
 * @per_engine_queue_types: (1 << type) bits of the types with one queue per engine.
 * @min_ring_size: smallest ring, a power of two >= PAGE_SIZE.
 * @max_ring_size: largest ring, a power of two >= @min_ring_size.
 * @caps: NEURONPROF_CAP_* bits.
 * @queue_instances: queues of a per-engine type per target, 0 (the core
 *	then uses @engines_per_core) to NEURONPROF_MAX_INSTANCES.
 * @clock_domain: NEURONPROF_CLOCK_* of the timestamps.
 * @raw_format: NEURONPROF_RAW_FORMAT_*, non-zero exactly with
 *	NEURONPROF_CAP_RAW.
 * @raw_entry_size: bytes of one device entry of @raw_format (reported only).
 * @code_names: the names of the codes of the device's entries
 *	(NEURONPROF_INFO_CODE_NAMES), sorted by (queue_type, code) with each
 *	pair once; every queue type one the device has, every name 1 to
 *	NEURONPROF_CODE_NAME_LEN - 1 characters of [a-z0-9_.], NUL-padded.
 *	NULL for none; a raw device (NEURONPROF_CAP_RAW) must have none.
 *	Copied by nprof_device_alloc().
 * @num_code_names: entries of @code_names, at most NEURONPROF_MAX_CODE_NAMES.
 */
struct nprof_device_desc {
	const char *provider;
	u32 arch;
	u32 num_cores;
	u32 num_topsps;
	u32 engines_per_core;
	u32 core_queue_types;
	u32 topsp_queue_types;
	u32 per_engine_queue_types;
	u64 min_ring_size;
	u64 max_ring_size;
	u64 caps;
	u32 queue_instances;
	u32 clock_domain;
	u32 raw_format;
	u32 raw_entry_size;
	const struct neuronprof_code_name *code_names;
	u32 num_code_names;
};

/**
 * struct nprof_hw_ops - callbacks of a provider.
 *
 * When: only between nprof_device_publish() and the return of
 * nprof_device_unregister(); never before publication, never after
 * unregistration. Different queues' and different ioctls' callbacks run
 * concurrently; the core serialises queue_start and queue_stop of one queue
 * and never calls flush on a queue that is not started. A queue has up to
 * NEURONPROF_MAX_SUBSCRIBERS subscriptions: queue_start runs for the first,
 * queue_stop after the last, and the notify functions fan every entry out
 * to each subscription's ring, so a provider produces once per queue
 * whatever the number of subscribers.
 *
 * Context: process context, inside drm_dev_enter(), with no core spinlock
 * held; they may sleep. queue_start and queue_stop run under the queue's
 * own mutex, which none of the functions a provider calls takes. They must not call
 * nprof_device_unregister() (it waits for them).
 *
 * Queues: every @q an op gets is a queue of the device; the core checked it
 * with nprof_queue_valid() at SUBSCRIBE, so the op need not check again.
 *
 * @owner: the provider module; pinned while any subscription exists.
 * @queue_start: start producing into a queue that just got its first
 *	subscription; its ring is ready, so nprof_notify() may deliver from
 *	now on. Returns 0 or
 *	a negative errno, which SUBSCRIBE returns to userspace.
 * @queue_stop: stop producing into a queue whose last subscription ends;
 *	called once for every successful @queue_start while the device is
 *	published.
 * @flush: push every in-flight notification of the queue into the ring
 *	(through nprof_notify()) before returning. Optional
 *	(NEURONPROF_CAP_FLUSH).
 * @sim_exec: run a synthetic program (NEURONPROF_CAP_SIM_EXEC). The core has
 *	already validated @args against the device (nprof_sim_exec_validate()
 *	of the core: core, flags, limits, reserved fields, the notification
 *	bound) and zeroed the outputs; the callback fills status and produced
 *	and must not validate again. After it returns the core wakes the
 *	pollers of the core's queues (nprof_queues_flushed()), so the callback
 *	need not. Returns 0 or a negative errno.
 */
struct nprof_hw_ops {
	struct module *owner;
	int (*queue_start)(struct nprof_drmdev *ndev, const struct nprof_queue_id *q);
	void (*queue_stop)(struct nprof_drmdev *ndev, const struct nprof_queue_id *q);
	int (*flush)(struct nprof_drmdev *ndev, const struct nprof_queue_id *q);
	int (*sim_exec)(struct nprof_drmdev *ndev, struct drm_neuronprof_sim_exec *args);
};

struct nprof_drmdev *nprof_device_alloc(struct device *parent,
					const struct nprof_device_desc *desc,
					const struct nprof_hw_ops *ops, void *priv);
int nprof_device_publish(struct nprof_drmdev *ndev);
void nprof_device_unregister(struct nprof_drmdev *ndev);
void nprof_device_free(struct nprof_drmdev *ndev);
void *nprof_device_priv(struct nprof_drmdev *ndev);
const struct nprof_device_desc *nprof_device_desc(struct nprof_drmdev *ndev);
bool nprof_queue_valid(const struct nprof_device_desc *desc,
		       const struct nprof_queue_id *q);

/**
 * enum nprof_notify_result - what happened to one notification.
 * @NPROF_NOTIFY_DELIVERED: written into the ring.
 * @NPROF_NOTIFY_LOST: the ring was full (or overflow was forced): counted in
 *	the ring's lost counter and the ring is flagged OVERFLOWED.
 * @NPROF_NOTIFY_UNSUBSCRIBED: nobody subscribed the queue; discarded.
 */
enum nprof_notify_result {
	NPROF_NOTIFY_DELIVERED,
	NPROF_NOTIFY_LOST,
	NPROF_NOTIFY_UNSUBSCRIBED,
};

/**
 * nprof_notify() - produce one notification into a queue.
 * @ndev: the device.
 * @q: the queue.
 * @n: the entry; the core fills @n->seq, queue_type and engine; the provider
 *	fills every other member (timestamp in the device clock domain).
 * @force_lost: count it as lost even when there is room (fault injection).
 *
 * Callable from any context, including hard IRQ. Never overwrites unread
 * entries.
 *
 * Return: an enum nprof_notify_result.
 */
enum nprof_notify_result nprof_notify(struct nprof_drmdev *ndev,
				      const struct nprof_queue_id *q,
				      struct neuronprof_notification *n,
				      bool force_lost);

/** NPROF_NOTIFY_BATCH_MAX - most notifications one nprof_notify_batch() takes. */
#define NPROF_NOTIFY_BATCH_MAX	4096

/**
 * struct nprof_notify_stats - what happened to a batch.
 * @delivered: written into the ring.
 * @lost: counted as lost (ring full, forced, or not captured).
 */
struct nprof_notify_stats {
	u32 delivered;
	u32 lost;
};

enum nprof_notify_result nprof_notify_batch(struct nprof_drmdev *ndev,
					    const struct nprof_queue_id *q,
					    const struct neuronprof_notification *n,
					    u32 count, bool force_lost,
					    struct nprof_notify_stats *st);

enum nprof_notify_result nprof_notify_lost(struct nprof_drmdev *ndev,
					   const struct nprof_queue_id *q, u64 count);
bool nprof_queue_set_flags(struct nprof_drmdev *ndev, const struct nprof_queue_id *q,
			   u32 flags);

struct nprof_sub;

/**
 * struct nprof_notify_span - room reserved by nprof_notify_begin().
 * @entries: where to write.
 * @count: entries that fit at @entries (may be 0: ring full).
 * @seq: seq of the first entry.
 * @queue_type: queue_type to write into every entry.
 * @engine: engine to write into every entry.
 * @sub: private to the core.
 * @flags: private to the core.
 * @unread: private to the core.
 */
struct nprof_notify_span {
	struct neuronprof_notification *entries;
	u32 count;
	u64 seq;
	u16 queue_type;
	u16 engine;
	struct nprof_sub *sub;
	unsigned long flags;
	u64 unread;
};

int nprof_notify_begin(struct nprof_drmdev *ndev, const struct nprof_queue_id *q,
		       u32 count, struct nprof_notify_span *span);
u32 nprof_notify_end(struct nprof_notify_span *span, u32 written, u32 produced);
int nprof_notify_begin_packed(struct nprof_drmdev *ndev, const struct nprof_queue_id *q,
			      u32 slots, u32 es, struct nprof_notify_span *span);
/* A queue's handle: looked up once (in queue_start), spans without a lookup. */
struct nprof_queue;
struct nprof_queue *nprof_queue_handle(struct nprof_drmdev *ndev, const struct nprof_queue_id *q);
int nprof_notify_begin_packed_at(struct nprof_queue *queue, u32 slots, u32 es,
				 struct nprof_notify_span *span);
u64 nprof_notify_end_packed(struct nprof_notify_span *span, u32 written, u64 lost);

/**
 * nprof_queues_flushed() - tell the core that every queue of a core and its
 * TopSPs got all its in-flight notifications (end of an execution), so
 * pollers are woken even below their watermark.
 * @ndev: the device.
 * @core: the NeuronCore.
 */
void nprof_queues_flushed(struct nprof_drmdev *ndev, u32 core);

#endif /* _NEURONPROF_PROVIDER_H_ */
