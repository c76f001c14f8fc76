// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: subscriptions
 *
 * neuronprof subscriptions: NQ_SUBSCRIBE and NQ_HOLDERS, the queues'
 * subscriber lists, and a subscription's life from creation to its
 * destruction. The subscription's file (mmap, poll, read, NQ_DRAIN) is
 * neuronprof_sub_file.c's.
 *
 * A subscription is its file. The file descriptor and every mapping of the
 * ring hold the file, so the queue stays subscribed and the ring allocated
 * until the last of them is gone, as with perf and BPF ring buffers. The
 * file pins neuronprof.ko (fops.owner); the subscription pins the DRM device
 * (drm_dev_get()) and the provider module (try_module_get()).
 */

#include <linux/anon_inodes.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>
#include <kunit/visibility.h>

#include "neuronprof_core.h"

/**
 * nprof_queue_check() - whether a device has a queue.
 * @desc: the device.
 * @q: the queue.
 * @why: out, what is wrong when the queue does not exist.
 *
 * Return: 0 or -EINVAL.
 */
static int nprof_queue_check(const struct nprof_device_desc *desc,
			     const struct nprof_queue_id *q, const char **why)
{
	u32 types, targets, engines = 1;

	switch (q->kind) {
	case NEURONPROF_TARGET_CORE:
		types = desc->core_queue_types;
		targets = desc->num_cores;
		break;
	case NEURONPROF_TARGET_TOPSP:
		types = desc->topsp_queue_types;
		targets = desc->num_topsps;
		break;
	default:
		*why = "unknown target kind";
		return -EINVAL;
	}
	if (q->index >= targets) {
		*why = "target index out of range";
		return -EINVAL;
	}
	if (q->type >= NEURONPROF_QT_MAX || !(types & BIT(q->type))) {
		*why = "queue type not available for this target kind";
		return -EINVAL;
	}
	if (q->kind == NEURONPROF_TARGET_CORE &&
	    desc->per_engine_queue_types & BIT(q->type))
		engines = desc->queue_instances ?: desc->engines_per_core;
	if (q->engine >= engines) {
		*why = engines > 1 ? "engine out of range" :
			"engine must be 0 for this queue type";
		return -EINVAL;
	}
	return 0;
}

/**
 * nprof_queue_valid() - whether a device has a queue.
 * @desc: the device's description.
 * @q: the queue.
 *
 * The one check of a queue address: SUBSCRIBE (nprof_subscribe_validate())
 * uses it, and the notify functions find only queues SUBSCRIBE made (by
 * slot and identity, nprof_queue_find()), so the ops of struct nprof_hw_ops
 * only ever get queues that pass it. A provider calls it for queue
 * addresses of its own making instead of keeping a copy of the rules.
 *
 * Context: any context.
 * Return: true if it does.
 */
bool nprof_queue_valid(const struct nprof_device_desc *desc,
		       const struct nprof_queue_id *q)
{
	const char *why;

	return !nprof_queue_check(desc, q, &why);
}
EXPORT_SYMBOL_GPL(nprof_queue_valid);

/**
 * nprof_subscribe_validate() - check NQ_SUBSCRIBE arguments against a device.
 * @desc: the device.
 * @args: the arguments; the out members are not looked at.
 * @why: out, what is wrong.
 *
 * Return: 0 or -EINVAL.
 */
VISIBLE_IF_KUNIT int nprof_subscribe_validate(const struct nprof_device_desc *desc,
					      const struct drm_neuronprof_nq_subscribe *args,
					      const char **why)
{
	const struct nprof_queue_id q = {
		.kind = args->target_kind,
		.index = args->target_index,
		.type = args->queue_type,
		.engine = args->engine,
	};
	u64 size = args->ring_size;

	if (args->flags) {
		*why = "flags must be 0";
		return -EINVAL;
	}
	if (args->pad || args->reserved[0] || args->reserved[1]) {
		*why = "pad and reserved must be 0";
		return -EINVAL;
	}
	if (nprof_queue_check(desc, &q, why))
		return -EINVAL;
	if (!size || size & (size - 1)) {
		*why = "ring_size is not a power of two";
		return -EINVAL;
	}
	if (!PAGE_ALIGNED(size)) {
		*why = "ring_size is not a multiple of the page size";
		return -EINVAL;
	}
	if (size < desc->min_ring_size || size > desc->max_ring_size) {
		*why = "ring_size outside the device's min_ring_size..max_ring_size";
		return -EINVAL;
	}
	if (args->watermark > size) {
		*why = "watermark larger than ring_size";
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_subscribe_validate);

/*
 * Take a subscription out of its queue's subscribers. Whoever comes first,
 * the subscription's release or the device's unregistration, does it; @dead
 * says the device is gone, which the ring header and pollers learn.
 */
static void nprof_sub_detach_locked(struct nprof_sub *sub, bool dead)
{
	struct nprof_queue *queue = sub->queue;
	u32 i;

	lockdep_assert_held(&queue->lock);
	if (sub->detached)
		return;
	for (i = 0; i < queue->nr_subs; i++) {
		if (queue->subs[i] != sub)
			continue;
		/* Keep the order: holders are listed oldest first. */
		memmove(&queue->subs[i], &queue->subs[i + 1],
			(queue->nr_subs - i - 1) * sizeof(queue->subs[0]));
		queue->subs[--queue->nr_subs] = NULL;
		break;
	}
	/*
	 * A producer that dropped the lock may still wake @sub's readers,
	 * which is why @sub is freed after an RCU grace period; the ring
	 * itself is never touched again once @detached is set.
	 */
	sub->detached = true;
	if (dead) {
		sub->dead = true;
		nprof_kring_set_flags(&sub->ring, NEURONPROF_RING_DEAD);
	}
}

static void nprof_sub_detach(struct nprof_sub *sub)
{
	unsigned long flags;

	spin_lock_irqsave(sub->lock, flags);
	nprof_sub_detach_locked(sub, false);
	spin_unlock_irqrestore(sub->lock, flags);
}

/**
 * nprof_queue_kill() - detach every subscription of a queue whose device
 *	went away.
 * @queue: the queue; the caller holds its device's subs_lock.
 *
 * Each ring header gets NEURONPROF_RING_DEAD, pollers get EPOLLHUP |
 * EPOLLERR and the producer can no longer reach the rings. The rings and
 * their mappings stay until the subscriptions' files are released.
 */
void nprof_queue_kill(struct nprof_queue *queue)
{
	struct nprof_sub *dead[NEURONPROF_MAX_SUBSCRIBERS];
	unsigned long flags;
	u32 i, n;

	/*
	 * A subscription's release may free it meanwhile (it is then
	 * detached already and frees after a grace period): the wakeups
	 * below run in the same RCU read section as the lookup.
	 */
	rcu_read_lock();
	spin_lock_irqsave(&queue->lock, flags);
	n = queue->nr_subs;
	memcpy(dead, queue->subs, n * sizeof(dead[0]));
	for (i = 0; i < n; i++)
		nprof_sub_detach_locked(dead[i], true);
	spin_unlock_irqrestore(&queue->lock, flags);
	for (i = 0; i < n; i++)
		wake_up_interruptible_poll(&dead[i]->wq, EPOLLHUP | EPOLLERR);
	rcu_read_unlock();
}

/* The queue's struct, created on its first subscription. */
static struct nprof_queue *nprof_queue_get(struct nprof_drmdev *ndev,
					   const struct nprof_queue_id *q)
{
	unsigned long slot = nprof_queue_slot(&ndev->desc, q);
	struct nprof_queue *queue, *old;

	mutex_lock(&ndev->subs_lock);
	queue = xa_load(&ndev->queues, slot);
	if (queue)
		goto out;
	queue = kzalloc(sizeof(*queue), GFP_KERNEL);
	if (!queue) {
		queue = ERR_PTR(-ENOMEM);
		goto out;
	}
	queue->q = *q;
	mutex_init(&queue->start_lock);
	spin_lock_init(&queue->lock);
	old = xa_store(&ndev->queues, slot, queue, GFP_KERNEL);
	if (xa_is_err(old)) {
		kfree(queue);
		queue = ERR_PTR(xa_err(old));
	}
out:
	mutex_unlock(&ndev->subs_lock);
	return queue;
}

/**
 * nprof_queue_free() - free a queue's struct when its device is released.
 * @queue: the queue; no subscription refers to it any more.
 */
void nprof_queue_free(struct nprof_queue *queue)
{
	mutex_destroy(&queue->start_lock);
	kfree(queue);
}

/**
 * nprof_sub_create() - subscribe to a queue.
 * @ndev: the device.
 * @args: NQ_SUBSCRIBE arguments; nothing is written back.
 *
 * Validates @args, checks that the caller may observe the device, claims a
 * place among the queue's subscribers, charges and allocates the ring, pins
 * the provider module and the device, attaches the ring and starts the
 * queue if it is the first subscription. The place is claimed before
 * anything is allocated, so a subscribe to a full queue costs nothing. No
 * file is created: that is the ioctl's business, so in-kernel users (KUnit)
 * can subscribe too.
 *
 * Return: the subscription; ERR_PTR(-EINVAL) for bad arguments, -EACCES if
 * the caller may not observe (nprof_observe_check()), -EBUSY if the queue
 * has NEURONPROF_MAX_SUBSCRIBERS subscribers, -EPERM if the ring exceeds
 * the caller's locked-memory budget (nprof_charge()), -ENOMEM, -ENODEV if
 * the device or its provider is going away, or the error of the provider's
 * queue_start.
 */
VISIBLE_IF_KUNIT struct nprof_sub *
nprof_sub_create(struct nprof_drmdev *ndev,
		 const struct drm_neuronprof_nq_subscribe *args)
{
	struct nprof_queue *queue;
	struct nprof_sub *sub;
	unsigned long flags;
	const char *why;
	int idx, ret;

	ret = nprof_subscribe_validate(&ndev->desc, args, &why);
	if (ret) {
		drm_dbg(&ndev->drm, "NQ_SUBSCRIBE: %s\n", why);
		return ERR_PTR(ret);
	}
	ret = nprof_observe_check();
	if (ret)
		return ERR_PTR(ret);
	if (!drm_dev_enter(&ndev->drm, &idx))
		return ERR_PTR(-ENODEV);

	sub = kzalloc(sizeof(*sub), GFP_KERNEL);
	if (!sub) {
		ret = -ENOMEM;
		goto err_exit;
	}
	sub->ndev = ndev;
	sub->q = (struct nprof_queue_id) {
		.kind = args->target_kind,
		.index = args->target_index,
		.type = args->queue_type,
		.engine = args->engine,
	};
	sub->owner = ndev->ops->owner;
	sub->pid = task_tgid_vnr(current);
	get_task_comm(sub->comm, current);
	init_waitqueue_head(&sub->wq);

	queue = nprof_queue_get(ndev, &sub->q);
	if (IS_ERR(queue)) {
		ret = PTR_ERR(queue);
		goto err_free;
	}
	sub->queue = queue;
	sub->lock = &queue->lock;

	/* Claim a place: the queue may be full, and then nothing is spent. */
	mutex_lock(&queue->start_lock);
	if (queue->nr_subs + queue->reserved >= NEURONPROF_MAX_SUBSCRIBERS) {
		mutex_unlock(&queue->start_lock);
		ret = -EBUSY;
		goto err_free;
	}
	queue->reserved++;
	mutex_unlock(&queue->start_lock);

	sub->mem_size = NPROF_DATA_PGOFF * PAGE_SIZE + args->ring_size;
	ret = nprof_charge(&sub->charge, sub->mem_size >> PAGE_SHIFT);
	if (ret)
		goto err_release;
	sub->mem = __vmalloc(sub->mem_size,
			     GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN);
	if (!sub->mem) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	nprof_kring_init(&sub->ring, sub->mem, args->ring_size, args->watermark,
			 &sub->q);
	nprof_kring_set_format(&sub->ring, ndev->desc.raw_format, ndev->desc.clock_domain);

	if (!try_module_get(sub->owner)) {
		ret = -ENODEV;
		goto err_vfree;
	}

	mutex_lock(&queue->start_lock);
	queue->reserved--;
	/* The ring is ready: producers may find it from now on. */
	spin_lock_irqsave(&queue->lock, flags);
	queue->subs[queue->nr_subs++] = sub;
	spin_unlock_irqrestore(&queue->lock, flags);
	if (!queue->started) {
		ret = ndev->ops->queue_start(ndev, &sub->q);
		if (ret) {
			drm_dbg(&ndev->drm, "NQ_SUBSCRIBE: provider cannot start queue %u/%u/%u/%u: %d\n",
				sub->q.kind, sub->q.index, sub->q.type, sub->q.engine, ret);
			nprof_sub_detach(sub);
			mutex_unlock(&queue->start_lock);
			module_put(sub->owner);
			vfree(sub->mem);
			nprof_uncharge(&sub->charge);
			/* Producers that found @sub may still wake its readers. */
			kfree_rcu(sub, rcu);
			goto err_exit;
		}
		queue->started = true;
	}
	mutex_unlock(&queue->start_lock);

	drm_dev_get(&ndev->drm);
	drm_dev_exit(idx);
	return sub;

err_vfree:
	vfree(sub->mem);
err_uncharge:
	nprof_uncharge(&sub->charge);
err_release:
	mutex_lock(&queue->start_lock);
	queue->reserved--;
	mutex_unlock(&queue->start_lock);
err_free:
	kfree(sub);
err_exit:
	drm_dev_exit(idx);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sub_create);

/**
 * nprof_sub_destroy() - end a subscription (its file is released).
 * @sub: the subscription.
 *
 * Detaches the ring from the queue; after the queue's last subscription
 * stops the queue unless the device is gone (a gone device's provider is
 * never called again). Frees the ring and drops the references the
 * subscription held.
 */
void nprof_sub_destroy(struct nprof_sub *sub)
{
	struct nprof_drmdev *ndev = sub->ndev;
	struct nprof_queue *queue = sub->queue;
	struct module *owner = sub->owner;
	int idx;

	mutex_lock(&queue->start_lock);
	nprof_sub_detach(sub);
	if (!queue->nr_subs && queue->started) {
		if (drm_dev_enter(&ndev->drm, &idx)) {
			ndev->ops->queue_stop(ndev, &sub->q);
			drm_dev_exit(idx);
		}
		queue->started = false;
	}
	mutex_unlock(&queue->start_lock);

	vfree(sub->mem);
	nprof_uncharge(&sub->charge);
	kfree_rcu(sub, rcu);
	/*
	 * The device before the module: the last reference to the device
	 * puts its parent, whose release may be code of the provider.
	 */
	drm_dev_put(&ndev->drm);
	module_put(owner);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sub_destroy);

/**
 * nprof_queue_flushed() - everything in flight reached a queue's rings.
 * @queue: the queue.
 *
 * Readers of every subscription are woken even below the watermark, and
 * poll reports EPOLLIN until the consumer passed what was produced so far.
 *
 * Context: any; the caller holds rcu_read_lock().
 */
void nprof_queue_flushed(struct nprof_queue *queue)
{
	struct nprof_sub *wake[NEURONPROF_MAX_SUBSCRIBERS];
	struct nprof_sub *sub;
	unsigned long flags;
	u32 i, n = 0;

	if (!READ_ONCE(queue->nr_subs))
		return;
	spin_lock_irqsave(&queue->lock, flags);
	for (i = 0; i < queue->nr_subs; i++) {
		sub = queue->subs[i];
		nprof_kring_sync_consumer(&sub->ring);
		sub->flush_pos = sub->ring.prod;
		if (nprof_kring_unread(&sub->ring) > 0)
			wake[n++] = sub;
	}
	spin_unlock_irqrestore(&queue->lock, flags);

	for (i = 0; i < n; i++)
		wake_up_interruptible_poll(&wake[i]->wq, EPOLLIN | EPOLLRDNORM);
}

/**
 * nprof_ioctl_nq_subscribe() - DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE.
 * @drm: the device.
 * @data: a struct nprof_subscribe_call, see nprof_drm_ioctl().
 * @file: the DRM file.
 *
 * Creates the subscription, its file and reserves a descriptor number for
 * it; the caller installs the file once the result reached userspace.
 *
 * Errors: EINVAL bad flags, pad, reserved, target kind or index, queue type,
 * engine, ring_size or watermark; EACCES the caller may not observe the
 * device (CAP_PERFMON needed while neuronprof.observe_paranoid is set);
 * EBUSY the queue has a subscriber; EPERM the ring exceeds the caller's
 * locked-memory budget (neuronprof.mlock_kb, then RLIMIT_MEMLOCK); ENOMEM;
 * EMFILE no free descriptor; ENODEV the device or provider is going away;
 * the provider's queue_start error (EOPNOTSUPP: it cannot read the queue).
 *
 * Return: 0 or a negative errno.
 */
int nprof_ioctl_nq_subscribe(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct nprof_subscribe_call *call = data;
	struct drm_neuronprof_nq_subscribe *args = &call->args;
	struct nprof_sub *sub;
	struct file *filp;
	int fd, ret;

	/* nprof_sub_create() enters the device for the provider call. */
	sub = nprof_sub_create(to_nprof_drmdev(drm), args);
	if (IS_ERR(sub))
		return PTR_ERR(sub);
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_destroy;
	}

	filp = anon_inode_getfile("[neuronprof_nq]", &nprof_sub_fops, sub, O_RDWR);
	if (IS_ERR(filp)) {
		ret = PTR_ERR(filp);
		goto err_fd;
	}
	stream_open(file_inode(filp), filp);

	args->fd = fd;
	args->pad = 0;
	args->header_offset = NPROF_HEADER_PGOFF * PAGE_SIZE;
	args->header_size = PAGE_SIZE;
	args->consumer_offset = NPROF_CONSUMER_PGOFF * PAGE_SIZE;
	args->consumer_size = PAGE_SIZE;
	args->data_offset = NPROF_DATA_PGOFF * PAGE_SIZE;
	args->data_size = args->ring_size;
	call->file = filp;
	return 0;

err_fd:
	put_unused_fd(fd);
err_destroy:
	nprof_sub_destroy(sub);
	return ret;
}

/**
 * nprof_ioctl_nq_holders() - DRM_IOCTL_NEURONPROF_NQ_HOLDERS.
 * @drm: the device.
 * @data: struct drm_neuronprof_nq_holders.
 * @file: the DRM file.
 *
 * Lists the subscriptions a queue has now (pid, comm, ring size), oldest
 * first, so a subscriber refused with EBUSY can say what to stop.
 *
 * Errors: EINVAL bad flags, pad, target kind or index, queue type or
 * engine; EACCES the caller may not observe the device; ENODEV the device
 * is gone.
 *
 * Return: 0 or a negative errno.
 */
int nprof_ioctl_nq_holders(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct nprof_drmdev *ndev = to_nprof_drmdev(drm);
	struct drm_neuronprof_nq_holders *args = data;
	const struct nprof_queue_id q = {
		.kind = args->target_kind,
		.index = args->target_index,
		.type = args->queue_type,
		.engine = args->engine,
	};
	struct neuronprof_nq_holder *h;
	struct nprof_queue *queue;
	struct nprof_sub *sub;
	unsigned long flags;
	const char *why;
	int idx, ret;
	u32 i;

	if (args->flags || args->pad) {
		drm_dbg(drm, "NQ_HOLDERS: flags and pad must be 0\n");
		return -EINVAL;
	}
	if (nprof_queue_check(&ndev->desc, &q, &why)) {
		drm_dbg(drm, "NQ_HOLDERS: %s\n", why);
		return -EINVAL;
	}
	ret = nprof_observe_check();
	if (ret)
		return ret;
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	args->count = 0;
	args->max_subscribers = NEURONPROF_MAX_SUBSCRIBERS;
	memset(args->holders, 0, sizeof(args->holders));
	rcu_read_lock();
	queue = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, &q));
	if (queue) {
		spin_lock_irqsave(&queue->lock, flags);
		for (i = 0; i < queue->nr_subs; i++) {
			sub = queue->subs[i];
			h = &args->holders[i];
			h->pid = sub->pid;
			h->ring_size = sub->ring.size;
			strscpy(h->comm, sub->comm, sizeof(h->comm));
		}
		args->count = queue->nr_subs;
		spin_unlock_irqrestore(&queue->lock, flags);
	}
	rcu_read_unlock();
	drm_dev_exit(idx);
	return 0;
}
