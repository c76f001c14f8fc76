/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuronprof core internals, shared by the files of neuronprof.ko and by its
 * KUnit suites (driver/tests/neuronprof_*_test.c). Nothing here is API for
 * providers: they use neuronprof_provider.h only.
 */
#ifndef _NEURONPROF_CORE_H_
#define _NEURONPROF_CORE_H_

#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <drm/drm_device.h>
#include <drm/neuronprof_drm.h>

#include "neuronprof_provider.h"

struct drm_driver;
struct drm_file;
struct module;

/* Bytes of one ring entry; fixed for every device of this uapi version. */
#define NPROF_ENTRY_SIZE		sizeof(struct neuronprof_notification)

/*
 * The subscription mapping, in pages of the one vmalloc buffer that
 * backs it: the header page, the consumer page, then the data area. The
 * mmap offset of a region is its page offset here, so the layout returned by
 * NQ_SUBSCRIBE is (pgoff << PAGE_SHIFT, size) of each.
 */
#define NPROF_HEADER_PGOFF		0
#define NPROF_CONSUMER_PGOFF		1
#define NPROF_DATA_PGOFF		2

/* Topology limits a provider may announce (see struct nprof_device_desc). */
#define NPROF_MAX_CORES			256
#define NPROF_MAX_TOPSPS		256
/* The largest max_ring_size a provider may announce: one vmalloc per ring. */
#define NPROF_RING_SIZE_LIMIT		SZ_1G

/*
 * Conservative bound of the notifications one SIM_EXEC iteration produces
 * besides its instructions and DMA transfers: per engine a start and an end
 * event, per core an execution start, stop, throttle and error entry, and
 * per TopSP serving the core a start, trace, end and error entry.
 */
#define NPROF_SIM_PER_ENGINE_FIXED	2
#define NPROF_SIM_PER_CORE_FIXED	4
#define NPROF_SIM_PER_TOPSP_FIXED	4

/**
 * struct nprof_drmdev - one device a provider registered, a DRM device (the
 * library names its handle of a device struct nprof_drmdev).
 * @drm: the DRM device; its render node is the device's uapi.
 * @desc: copy of the provider's description (@desc.provider points at
 *	@provider).
 * @provider: the provider name, NUL-terminated.
 * @ops: the provider's callbacks; never called after unregistration.
 * @priv: the provider's cookie (nprof_device_priv()).
 * @parent: the provider's device, which the DRM device is a resource of.
 * @group: until publication, the devres group of the DRM device (so that
 *	nprof_device_free() releases it); NULL once published.
 * @published: nprof_device_publish() succeeded.
 * @index: device_index reported by GET_INFO.
 * @queues: the struct nprof_queue of every queue ever subscribed, by queue
 *	slot (nprof_queue_slot()). Lookups run under RCU in any context
 *	(nprof_notify()); a queue is stored under @subs_lock by its first
 *	subscription and stays until the device is released.
 * @subs_lock: see below.
 */
struct nprof_drmdev {
	struct drm_device drm;
	struct nprof_device_desc desc;
	char provider[16];
	const struct nprof_hw_ops *ops;
	void *priv;
	struct device *parent;
	void *group;
	bool published;
	int index;
	struct xarray queues;
	/*
	 * Protects adding a queue to @queues against device unregistration,
	 * which walks @queues to kill every subscription.
	 */
	struct mutex subs_lock;
};

static inline struct nprof_drmdev *to_nprof_drmdev(struct drm_device *drm)
{
	return container_of(drm, struct nprof_drmdev, drm);
}

/**
 * struct nprof_kring - the kernel side of one ring.
 *
 * Named after its layer (k for kernel): the library's view of a ring is
 * struct nprof_ring (lib/src/device/), the selftests' struct selftest_ring.
 *
 * @hdr: the header page (read-only for userspace).
 * @cons_page: the consumer page (read-write for userspace).
 * @data: the data area.
 * @size: bytes of @data, a power of two.
 * @watermark: unread bytes from which a reader is woken, >= one entry.
 * @prod: bytes produced.
 * @cons: bytes consumed, last valid value.
 * @seq: notifications produced, delivered or lost.
 * @lost: notifications lost because the ring was full (or forced).
 * @flags: NEURONPROF_RING_* bits, mirrored in @hdr.
 * @queue_type: queue type written into every entry.
 * @engine: engine written into every entry.
 *
 * The kernel's copies of the positions are authoritative: userspace can only
 * write the consumer page, and whatever it writes there is validated before
 * it is believed (nprof_kring_sync_consumer()). The owner serialises every
 * call on a ring (struct nprof_sub.lock).
 */
struct nprof_kring {
	struct neuronprof_ring_header *hdr;
	struct neuronprof_ring_consumer *cons_page;
	u8 *data;
	u64 size;
	u64 watermark;
	u64 prod;
	u64 cons;
	u64 seq;
	u64 lost;
	u32 flags;
	u16 queue_type;
	u16 engine;
};

/**
 * struct nprof_charge - what a ring's memory is charged to (neuronprof_policy.c).
 * @user: the subscriber's user, referenced; NULL when nothing is charged.
 * @user_pages: pages charged to @user's locked_vm (within the allowance).
 * @mm: the subscribing process's mm, grabbed; NULL when nothing is pinned.
 * @pinned_pages: pages charged to @mm's pinned_vm (beyond the allowance).
 */
struct nprof_charge {
	struct user_struct *user;
	u64 user_pages;
	struct mm_struct *mm;
	u64 pinned_pages;
};

struct nprof_sub;

/**
 * struct nprof_queue - one queue of a device and its subscriptions.
 * @q: the queue.
 * @start_lock: see below.
 * @started: the provider's queue_start succeeded and queue_stop is due.
 * @reserved: subscriptions being created (claimed, not yet attached).
 * @lock: see below.
 * @nr_subs: attached subscriptions, the first @nr_subs of @subs.
 * @subs: the attached subscriptions, each with its own ring.
 *
 * Created by the first subscription of the queue and kept until the device
 * is released, so a producer's lookup never races with its freeing.
 */
struct nprof_queue {
	struct nprof_queue_id q;
	/*
	 * Serialises subscribing and unsubscribing this queue: the claim of
	 * a place among its subscribers (@reserved), the provider's
	 * queue_start for the first one and queue_stop after the last one
	 * (@started).
	 */
	struct mutex start_lock;
	bool started;
	u32 reserved;
	/*
	 * Protects @nr_subs, @subs and, in each attached subscription, its
	 * ring (positions, counters, flags and the ring memory the producer
	 * writes), flush_pos, read_pos, detached and dead. One lock for all
	 * the rings of the queue: the producer takes it once and fills every
	 * ring under it. Taken with interrupts disabled: nprof_notify() may
	 * run in hard IRQ context.
	 */
	spinlock_t lock;
	u32 nr_subs;
	struct nprof_sub *subs[NEURONPROF_MAX_SUBSCRIBERS];
};

/**
 * struct nprof_sub - one subscription: a queue, its ring and its file.
 * @ndev: the device; referenced (drm_dev_get()) for the subscription's life.
 * @q: the queue.
 * @queue: the queue's struct, which outlives the subscription.
 * @lock: @queue->lock, which protects this subscription's ring.
 * @pid: the thread group that subscribed (for NQ_HOLDERS).
 * @comm: its command name then.
 * @mem: the vmalloc'ed buffer: header page | consumer page | data; charged
 *	to the subscriber's memory cgroup (__GFP_ACCOUNT).
 * @mem_size: bytes of @mem.
 * @charge: the locked-memory charge of @mem.
 * @owner: the provider module, pinned for the subscription's life.
 * @ring: the ring, under *@lock.
 * @flush_pos: producer position at the last flush; a reader is woken
 *	below the watermark until it consumed past it.
 * @detached: no longer among @queue's subscriptions; the producer must not
 *	touch @ring.
 * @dead: detached because the device went away.
 * @wq: readers and pollers.
 * @read_pos: how far read() calls have claimed entries to copy: at or past
 *	@ring.cons, at most @ring.prod (see nprof_sub_read_claim()).
 * @rcu: frees the struct after nprof_notify() callers that found it among
 *	@queue's subscriptions are done (they wake its readers after
 *	dropping the lock).
 */
struct nprof_sub {
	struct nprof_drmdev *ndev;
	struct nprof_queue_id q;
	struct nprof_queue *queue;
	/* &@queue->lock: protects @ring, @flush_pos, @read_pos, @detached, @dead. */
	spinlock_t *lock;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	void *mem;
	u64 mem_size;
	struct nprof_charge charge;
	struct module *owner;
	struct nprof_kring ring;
	u64 flush_pos;
	bool detached;
	bool dead;
	wait_queue_head_t wq;
	u64 read_pos;
	struct rcu_head rcu;
};

/* neuronprof_ring.c: ring arithmetic and the producer. */
void nprof_kring_init(struct nprof_kring *ring, void *mem, u64 size, u32 watermark,
		      const struct nprof_queue_id *q);
void nprof_kring_set_format(struct nprof_kring *ring, u32 raw_format, u32 clock_domain);
void nprof_kring_consume(struct nprof_kring *ring, u64 pos);
enum nprof_notify_result nprof_kring_produce(struct nprof_kring *ring,
					     struct neuronprof_notification *n,
					     bool force_lost, bool *wake);
void nprof_kring_set_flags(struct nprof_kring *ring, u32 flags);
void nprof_kring_produce_batch(struct nprof_kring *ring,
			       const struct neuronprof_notification *n, u32 count,
			       bool force_lost, u32 *delivered, bool *wake);
u32 nprof_kring_fan_out(struct nprof_kring *ring, const struct neuronprof_notification *src,
			u32 count, bool *wake);
void nprof_kring_lose(struct nprof_kring *ring, u64 count);

/* Inline: each span of a producer runs them. */
/**
 * nprof_queue_slot() - index of a valid queue in nprof_drmdev.queues.
 * @desc: the device.
 * @q: the queue.
 *
 * NeuronCores first, then TopSPs; each target takes NEURONPROF_QT_MAX *
 * NEURONPROF_MAX_INSTANCES consecutive slots, so the queues of one target, or
 * of consecutive targets, form one range. An address that is not valid for
 * @desc may give a valid queue's slot (nprof_queue_find() checks the queue
 * found there is the one asked for).
 *
 * Return: the slot.
 */
static inline unsigned long nprof_queue_slot(const struct nprof_device_desc *desc,
					     const struct nprof_queue_id *q)
{
	unsigned long target = q->index;

	if (q->kind == NEURONPROF_TARGET_TOPSP)
		target += desc->num_cores;
	return (target * NEURONPROF_QT_MAX + q->type) * NEURONPROF_MAX_INSTANCES +
	       q->engine;
}

/**
 * nprof_kring_unread() - bytes produced and not yet consumed.
 * @ring: the ring.
 *
 * Return: the unread bytes, at most the ring size.
 */
static inline u64 nprof_kring_unread(const struct nprof_kring *ring)
{
	return ring->prod - ring->cons;
}

/**
 * nprof_kring_consumer_valid() - whether a consumer position can be believed.
 * @last: the last valid consumer position.
 * @next: the proposed one.
 * @prod: the producer position.
 *
 * Valid means: a multiple of the entry size, not behind @last and not past
 * @prod. The comparisons are done on distances from @last so that they stay
 * right when the counters wrap around 2^64.
 *
 * Return: true if @next is valid.
 */
static inline bool nprof_kring_consumer_valid(u64 last, u64 next, u64 prod)
{
	return IS_ALIGNED(next, NPROF_ENTRY_SIZE) && next - last <= prod - last;
}

/**
 * nprof_kring_sync_consumer() - take in the consumer position userspace wrote.
 * @ring: the ring.
 *
 * The consumer page is writable by userspace and therefore hostile: it is
 * read exactly once, and a value that is not entry-aligned, moves backwards
 * or passes the producer is ignored (the last valid one stays in force) and
 * flagged with NEURONPROF_RING_BAD_CONSUMER.
 */
static inline void nprof_kring_sync_consumer(struct nprof_kring *ring)
{
	/*
	 * A: pairs with userspace's release store D of consumer_pos: once we
	 * see the new position, its reads of the entries below it are done
	 * and the space can be written again.
	 */
	u64 pos = smp_load_acquire(&ring->cons_page->consumer_pos);

	if (pos == ring->cons)
		return;
	if (nprof_kring_consumer_valid(ring->cons, pos, ring->prod))
		ring->cons = pos;
	else
		nprof_kring_set_flags(ring, NEURONPROF_RING_BAD_CONSUMER);
}

/**
 * nprof_sub_wake() - wake @sub's readers, if any wait.
 * @sub: the subscription.
 *
 * After the queue's lock that published what they wait for is dropped: the
 * lock orders the waitqueue_active() load (nprof_wake()), so a
 * subscription nobody waits on costs that load, not the wait queue's lock.
 */
static inline void nprof_sub_wake(struct nprof_sub *sub)
{
	/* Ordered by the queue's lock, dropped before: see nprof_wake(). */
	if (waitqueue_active(&sub->wq))
		wake_up_interruptible_poll(&sub->wq, EPOLLIN | EPOLLRDNORM);
}

/* neuronprof_device.c: SIM_EXEC arguments checked against the device. */
int nprof_sim_exec_validate(const struct nprof_device_desc *desc,
			    const struct drm_neuronprof_sim_exec *args,
			    const char **why);

/* neuronprof_drv.c: the DRM driver every device is created with. */
extern const struct drm_driver nprof_drm_driver;

/* neuronprof_policy.c: who may observe, and memory accounting. */
int nprof_observe_check(void);
int nprof_charge(struct nprof_charge *c, u64 pages);
void nprof_uncharge(struct nprof_charge *c);

/* neuronprof_sub.c: subscriptions. */
void nprof_queue_kill(struct nprof_queue *queue);
void nprof_queue_free(struct nprof_queue *queue);
void nprof_queue_flushed(struct nprof_queue *queue);
int nprof_ioctl_nq_holders(struct drm_device *drm, void *data,
			   struct drm_file *file);
int nprof_ioctl_nq_subscribe(struct drm_device *drm, void *data,
			     struct drm_file *file);
void nprof_sub_destroy(struct nprof_sub *sub);

/* neuronprof_sub_file.c: the subscription's file. */
extern const struct file_operations nprof_sub_fops;

/**
 * struct nprof_subscribe_call - how NQ_SUBSCRIBE reaches its handler.
 *
 * @args: the ioctl argument.
 * @file: out, the subscription's file.
 *
 * The handler creates the subscription's file but does not install it: the
 * caller installs it only once the result reached userspace, so a failing
 * copy never leaves behind a descriptor that userspace does not know of.
 */
struct nprof_subscribe_call {
	struct drm_neuronprof_nq_subscribe args;
	struct file *file;
};

#if IS_ENABLED(CONFIG_KUNIT)
/* Static unless KUnit is enabled (VISIBLE_IF_KUNIT), for the core's suites. */
int nprof_subscribe_validate(const struct nprof_device_desc *desc,
			     const struct drm_neuronprof_nq_subscribe *args,
			     const char **why);
struct nprof_sub *nprof_sub_create(struct nprof_drmdev *ndev,
				   const struct drm_neuronprof_nq_subscribe *args);
__poll_t nprof_sub_poll_mask(struct nprof_sub *sub);
int nprof_sub_drain(struct nprof_sub *sub, struct neuronprof_nq_drain *d);
int nprof_desc_validate(const struct nprof_device_desc *desc,
			const struct nprof_hw_ops *ops, const char **why);
u64 nprof_charge_split(u64 user_locked, u64 pages, u64 allowance);
u64 nprof_sub_read_claim(struct nprof_sub *sub, void *buf, u64 max, u64 *start);
void nprof_sub_read_commit(struct nprof_sub *sub, u64 start, u64 len, bool copied);
vm_fault_t nprof_sub_fault_page(struct nprof_sub *sub, pgoff_t pgoff,
				struct page **page);
#endif

#endif /* _NEURONPROF_CORE_H_ */
