// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: provider
 *
 * neuronprof_neuron: announces every device of the vendor's neuron.ko to the
 * neuronprof core and captures what the runtime consumes from its
 * notification queues, through the hook the patched neuron.ko exports
 * (driver/neuron/vendor/, neuron_nq_hook.h). It never allocates or programs
 * a queue and never writes a register: neuron.ko and the runtime own them.
 *
 * On each head-register write of a queue somebody subscribed, the entries
 * between the old and the new head (the runtime has consumed them; the
 * device cannot overwrite them before the write lands, which happens after
 * this returns) are copied into the subscription's ring as raw entries;
 * what does not fit is counted as lost. A head write copies at most one
 * device ring's worth and takes only its queue's lock; head writes of
 * different queues and devices run in parallel. A halt (reallocation, core
 * reset, removal, the queue's memory freed through MEM_FREE) waits for a
 * copy in flight and forgets the queue's memory. A device's removal unplugs
 * its neuronprof device.
 *
 * Baseline: when the driver programs a queue in new memory (the hook's
 * queue_programmed with fresh set), the device writes it from the head
 * register's value then, which the hook reads through the driver, or from
 * the register's value after a reset (the calibrated fact reprogram), and
 * every entry the runtime consumes from there was written after the
 * programming. A queue the provider first learns of when it is handed out
 * again, or through the hook's walk of the queue table when a device is
 * added (programmed before this module registered, its head wherever the
 * runtime left it), starts at the head register's value if a read returns
 * the last head written (head_read); otherwise it has no baseline until
 * its first head write: that write sets it, and what it consumed is
 * neither delivered nor counted. Where a head register read returns one
 * value whatever was written (head_read 2), a queue programmed in new
 * memory from the head register starts where the last head written to its
 * register set since the last core reset points (kept per set; the hook
 * announces every core reset, queues or not), or at reset_head. In
 * counter mode a head that moves backwards is a re-program the hook did
 * not see: the queue resynchronises on it the same way. So bytes written
 * before the queue was programmed, or before the provider knew where its
 * head was, are never delivered.
 *
 * A head value is a position once its phase bit is cleared and the head
 * lag added; a head write is for the queue last programmed in new memory
 * in the register set written, or (head_sets) for the queue of type set /
 * 16 and engine set % 16; queues are kept per type and engine, so queues
 * the driver puts in one register set stay apart; each copies entries of
 * its type's size.
 *
 * Queues in device memory are read through the vendor's BAR4 mapping
 * (memcpy_fromio() into a bounce buffer per round of a copy, before the
 * round takes the subscription's lock: uncached reads with interrupts on;
 * what the round cannot deliver is read again in the next), or, with
 * devmem_read=dma, by the vendor's DMA copy into the same bounce
 * (neuron_nq_hook_dma_read(), hook patch 11; a copy that fails counts its
 * round lost). One that
 * BAR4 does not cover cannot be read: subscribing to it fails with
 * EOPNOTSUPP, and a subscribed queue that is (re)programmed there gets
 * NEURONPROF_RING_UNREADABLE in its ring's flags.
 *
 * What public sources do not say is a parameter, marked UNVERIFIED in
 * Documentation/hardware.rst, which ``neuronprof calibrate`` measures: the
 * entry size (per queue type), what the head register counts, the head
 * lag, the phase bit, the register set of head writes, where a queue
 * programmed in new memory is written, what a head register read returns;
 * per architecture.
 *
 * The module's files, one job each: provider.c (this: devices, queues and
 * head writes through the hook), params.c (the parameters), head_write.c
 * (a head write: the queue it is for, what it consumed, the copy into the
 * ring), calibrate.c (the calibration mode); what a head value means is
 * inline in neuron.h (nprof_nn_head_pos(), nprof_nn_consumed()), which
 * every head write runs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/export.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/platform_device.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "neuron.h"

/* Patch 7 of the hook: the queues a device has already (optional). */
static void (*nprof_nn_for_each_queue)(const struct neuron_nq_hook_ops *ops,
				       const struct neuron_nq_hook_dev *d);

/*
 * Every device of neuron.ko that the core knows. Queue callbacks other than
 * head writes hold nprof_nn_lock for reading, so they run in parallel; a
 * device is added and removed with it held for writing, which waits for
 * them. Head writes take no lock shared between devices: they find their
 * device under nprof_nn_srcu (per-CPU counters) and then take only their
 * queue's mutex; a device is unlisted with list_del_rcu() and freed after
 * synchronize_srcu(), which waits for the head writes that found it.
 */
static DECLARE_RWSEM(nprof_nn_lock);
DEFINE_SRCU(nprof_nn_srcu);
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_srcu);
LIST_HEAD(nprof_nn_devices);

/*
 * Queues the hook's walk found when a device was announced by its probe
 * (not at this module's registration): programmed before the device was
 * announced, which the hook series rules out (patch 2 announces a device
 * before its device node exists). The rig asserts 0; each is logged.
 */
static atomic_t nprof_nn_early = ATOMIC_INIT(0);
static struct task_struct *nprof_nn_registrar;	/* in nprof_nn_init()'s registration */

static int nprof_nn_early_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&nprof_nn_early));
}

static const struct kernel_param_ops nprof_nn_early_ops = {
	.get = nprof_nn_early_get,
};
module_param_cb(early_queues, &nprof_nn_early_ops, NULL, 0444);
MODULE_PARM_DESC(early_queues,
		 "queues found programmed when a device was announced by its probe, before the announcement (0 unless the hook announces devices too late)");

static const u8 nprof_nn_core_types[NPROF_NN_NQ_TYPES] = {
	NEURONPROF_QT_TRACE, NEURONPROF_QT_NOTIFY, NEURONPROF_QT_EVENT,
	NEURONPROF_QT_ERROR, NEURONPROF_QT_DMA, NEURONPROF_QT_THROTTLE,
};

static const u8 nprof_nn_topsp_types[NPROF_NN_NQ_TYPES] = {
	NEURONPROF_QT_TOPSP_TRACE, NEURONPROF_QT_TOPSP_NOTIFY, NEURONPROF_QT_TOPSP_EVENT,
	NEURONPROF_QT_TOPSP_ERROR, NEURONPROF_QT_TOPSP_DMA, NEURONPROF_QT_TOPSP_THROTTLE,
};

/**
 * nprof_nn_map_queue() - the neuronprof queue of a programmed vendor queue.
 * @dev: the device.
 * @qid: the queue as the hook reported it when programmed.
 * @q: out.
 *
 * A NeuronCore queue of vendor type T and instance I (the runtime's engine
 * index; for TRACE_DMA the SDMA engine) is (CORE, id, type of T, I); a
 * TopSP queue is (TOPSP, id, TopSP type of T, 0) and only instance 0 is
 * addressable (TopSP queues have no per-engine types in the uapi).
 *
 * Return: false for a queue neuronprof cannot address.
 */
bool nprof_nn_map_queue(const struct nprof_nn_device *dev,
			const struct neuron_nq_hook_qid *qid, struct nprof_queue_id *q)
{
	if (qid->nq_type >= NPROF_NN_NQ_TYPES || qid->instance >= NEURONPROF_MAX_INSTANCES)
		return false;
	*q = (struct nprof_queue_id) {
		.kind = qid->target == NEURON_NQ_HOOK_TOPSP ? NEURONPROF_TARGET_TOPSP :
							      NEURONPROF_TARGET_CORE,
		.index = qid->id,
	};
	if (q->kind == NEURONPROF_TARGET_CORE) {
		q->type = nprof_nn_core_types[qid->nq_type];
		q->engine = qid->instance;
		if (qid->id >= dev->desc.num_cores)
			return false;
	} else {
		q->type = nprof_nn_topsp_types[qid->nq_type];
		if (qid->id >= dev->desc.num_topsps || qid->instance)
			return false;
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_map_queue);

/**
 * nprof_nn_find() - the provider's device of a hook device.
 * @hd: the hook's device.
 *
 * Context: nprof_nn_lock held.
 * Return: the device or NULL.
 */
struct nprof_nn_device *nprof_nn_find(const struct neuron_nq_hook_dev *hd)
{
	struct nprof_nn_device *dev;

	lockdep_assert_held(&nprof_nn_lock);
	list_for_each_entry(dev, &nprof_nn_devices, node)
		if (dev->hd == hd)
			return dev;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_find);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * nprof_nn_ndev() - the neuronprof device of a neuron device (KUnit).
 * @device_index: N of /dev/neuronN.
 *
 * Return: the device or NULL.
 */
struct nprof_drmdev *nprof_nn_ndev(u32 device_index)
{
	struct nprof_drmdev *ndev = NULL;
	struct nprof_nn_device *dev;

	down_read(&nprof_nn_lock);
	list_for_each_entry(dev, &nprof_nn_devices, node)
		if (dev->hd->device_index == device_index)
			ndev = dev->ndev;
	up_read(&nprof_nn_lock);
	return ndev;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_ndev);

/**
 * nprof_nn_queue_lock() - the lock that a head write, copy or halt of one
 *	queue holds (KUnit: holding it stands for a copy in flight).
 * @hd: the hook's device.
 * @qid: the queue.
 *
 * Return: the lock, valid while the device exists, or NULL for a queue the
 * provider does not know.
 */
struct mutex *nprof_nn_queue_lock(const struct neuron_nq_hook_dev *hd,
				  const struct neuron_nq_hook_qid *qid)
{
	struct nprof_nn_device *dev;
	struct nprof_nn_queue *nq = NULL;

	down_read(&nprof_nn_lock);
	dev = nprof_nn_find(hd);
	if (dev)
		nq = nprof_nn_lookup(dev, qid);
	up_read(&nprof_nn_lock);
	return nq ? &nq->lock : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_queue_lock);
#endif

static void nprof_nn_queue_programmed(const struct neuron_nq_hook_dev *hd,
				      const struct neuron_nq_hook_queue *hq)
{
	struct nprof_nn_device *dev;
	struct nprof_nn_queue *nq, *prev;
	struct nprof_queue_id q;
	unsigned long key = nprof_nn_ident(&hq->qid);
	u32 written = 0;
	bool written_ok = false;
	/* Why the ring cannot be read, or NULL. */
	const char *unreadable = NULL;
	u8 *bounce = NULL;
	u32 es;

	/* Host memory is read through its kernel address, device memory through BAR4. */
	if (hq->on_host && !hq->va)
		unreadable = "host memory without a kernel address";
	else if (!hq->on_host && !hq->io)
		unreadable = "device memory that BAR4 does not cover";
	nprof_nn_cal_programmed(hd, hq);
	down_read(&nprof_nn_lock);
	dev = nprof_nn_find(hd);
	if (!dev || !nprof_nn_map_queue(dev, &hq->qid, &q))
		goto out;
	if (READ_ONCE(dev->walker) == current) {
		atomic_inc(&nprof_nn_early);
		dev_warn(&dev->pdev->dev,
			 "queue %u/%u/%u/%u was programmed before neuron%u was announced\n",
			 q.kind, q.index, q.type, q.engine, hd->device_index);
	}
	es = dev->arch.type_entry_size[hq->qid.nq_type] ?: dev->arch.entry_size;
	if (!unreadable && (hq->size < es || !is_power_of_2(hq->size))) {
		dev_info_ratelimited(&dev->pdev->dev, "queue %u/%u/%u/%u: bad size %u, not captured\n",
				     q.kind, q.index, q.type, q.engine, hq->size);
		goto out;
	}
	if (!hq->on_host && hq->io) {
		/* A head write copies at most NPROF_NN_SPAN ring entries per round. */
		bounce = kmalloc(NPROF_NN_SPAN * NEURONPROF_RAW_BYTES_PER_ENTRY, GFP_KERNEL);
		if (!bounce)
			unreadable = "no memory for its bounce buffer";
	}
	mutex_lock(&dev->lock);
	nq = xa_load(&dev->queues, key);
	if (!nq) {
		nq = kzalloc(sizeof(*nq), GFP_KERNEL);
		if (!nq)
			goto unlock;
		mutex_init(&nq->lock);
		if (xa_err(xa_store(&dev->queues, key, nq, GFP_KERNEL))) {
			kfree(nq);
			goto unlock;
		}
	}
	/*
	 * The last head written to the register set since the last core
	 * reset, kept by the queue the device wrote there until now.
	 */
	prev = xa_load(&dev->live, nprof_nn_key(&hq->qid));
	if (prev && hq->fresh) {
		mutex_lock(&prev->lock);
		written = prev->written;
		written_ok = prev->written_ok;
		mutex_unlock(&prev->lock);
	}
	/*
	 * The device writes the queue last programmed in new memory in a
	 * register set; one handed out again without programming is that
	 * set's only if the provider knows no other (it loaded since).
	 */
	if (hq->fresh || !prev)
		xa_store(&dev->live, nprof_nn_key(&hq->qid), nq, GFP_KERNEL);
	mutex_lock(&nq->lock);
	if (!hq->fresh && (nq->va || nq->io) && nq->va == hq->va && nq->io == hq->io &&
	    nq->size == hq->size) {
		mutex_unlock(&nq->lock);
		goto unlock;	/* handed out again, as it was */
	}
	nq->qid = hq->qid;
	nq->q = q;
	nq->va = unreadable || !hq->on_host ? NULL : hq->va;
	nq->io = unreadable || hq->on_host ? NULL : hq->io;
	if (nq->io && !nq->bounce)
		swap(nq->bounce, bounce);
	nq->unreadable = unreadable;
	nq->size = hq->size;
	nq->es = es;
	/*
	 * The baseline: see the top of this file; where the device writes a
	 * queue programmed in new memory is a calibrated fact (reprogram).
	 */
	if (hq->fresh) {
		u32 h = hq->head;

		/* A read that says nothing: the last head written, or the reset's. */
		if (dev->arch.head_read == NPROF_NN_HEAD_READ_FIXED)
			h = written_ok ? written : dev->arch.reset_head;
		nq->head = dev->arch.reprogram ? dev->arch.reset_head :
			   dev->arch.phase_bit ? h & ~BIT(dev->arch.phase_bit) : h;
		/* The set's head goes on in the queue the device writes now. */
		nq->written = written;
		nq->written_ok = written_ok;
	} else {
		/* Found programmed already: the runtime's last head, if a read says it. */
		nq->head = nprof_nn_head_pos(&dev->arch, es, hq->size, hq->head);
	}
	nq->synced = hq->fresh || dev->arch.head_read == NPROF_NN_HEAD_READ_LAST;
	mutex_unlock(&nq->lock);
	if (unreadable) {
		dev_info_ratelimited(&dev->pdev->dev, "queue %u/%u/%u/%u: its ring cannot be read (%s), not captured\n",
				     q.kind, q.index, q.type, q.engine, unreadable);
		if (dev->ndev && nprof_nn_subscription(dev, &q))
			nprof_queue_set_flags(dev->ndev, &q, NEURONPROF_RING_UNREADABLE);
	}
unlock:
	mutex_unlock(&dev->lock);
out:
	up_read(&nprof_nn_lock);
	kfree(bounce);
}

static void nprof_nn_queue_halted(const struct neuron_nq_hook_dev *hd,
				  const struct neuron_nq_hook_queue *hq)
{
	struct nprof_nn_device *dev;
	struct nprof_nn_queue *nq;
	struct nprof_drmdev *ndev;

	nprof_nn_cal_halted(hd, hq);
	down_read(&nprof_nn_lock);
	dev = nprof_nn_find(hd);
	if (!dev)
		goto out;
	nq = xa_load(&dev->queues, nprof_nn_ident(&hq->qid));
	if (!nq)
		goto out;
	/* Taking the lock waits for a copy from this memory in flight. */
	mutex_lock(&nq->lock);
	if ((nq->va && nq->va == hq->va) || (nq->io && nq->io == hq->io)) {
		nq->va = NULL;
		nq->io = NULL;
		ndev = READ_ONCE(dev->ndev);
		if (ndev && nq->q.kind == NEURONPROF_TARGET_CORE)
			nprof_queues_flushed(ndev, nq->q.index);
	} else if (nq->unreadable && !hq->on_host) {
		/* The queue in device memory is gone: nothing refuses a subscriber now. */
		nq->unreadable = NULL;
	}
	mutex_unlock(&nq->lock);
out:
	up_read(&nprof_nn_lock);
}

/*
 * A core reset (patch 10, whatever queues the core has) resets the register
 * sets of the core, of its SDMA engines and of its TopSPs, heads included:
 * no head written before it says where the device writes next.
 */
static void nprof_nn_core_reset(const struct neuron_nq_hook_dev *hd, u32 nc_id)
{
	u32 per = hd->nc_count ? hd->ts_count / hd->nc_count : 0;
	struct nprof_nn_device *dev;
	struct nprof_nn_queue *nq;
	unsigned long key;

	nprof_nn_cal_reset(hd, nc_id);
	down_read(&nprof_nn_lock);
	dev = nprof_nn_find(hd);
	if (!dev)
		goto out;
	xa_for_each(&dev->queues, key, nq) {
		mutex_lock(&nq->lock);
		if (nq->qid.target == NEURON_NQ_HOOK_TOPSP ? per && nq->qid.id / per == nc_id :
		    nq->qid.id == nc_id)
			nq->written_ok = false;
		mutex_unlock(&nq->lock);
	}
out:
	up_read(&nprof_nn_lock);
}

/*
 * A queue whose ring cannot be read (nprof_nn_queue_programmed() decides
 * why: in device memory that BAR4 does not cover, say) is refused here,
 * where the caller gets an errno and the log the reason; if it is
 * programmed there later, its ring gets
 * NEURONPROF_RING_UNREADABLE (nprof_nn_queue_programmed()). A queue
 * subscribed has the core's handle of it in dev->subscribed, on which the
 * head write begins its spans.
 */
static int nprof_nn_queue_start(struct nprof_drmdev *ndev, const struct nprof_queue_id *q)
{
	struct nprof_nn_device *dev = nprof_device_priv(ndev);
	/* The core made its queue before this first start (nprof_queue_handle()). */
	struct nprof_queue *handle = nprof_queue_handle(ndev, q);
	struct nprof_nn_queue *nq;
	const char *unreadable = NULL;
	unsigned long key;
	int ret = 0;

	if (!handle)
		return -ENOENT;
	mutex_lock(&dev->lock);
	xa_for_each(&dev->queues, key, nq) {
		if (memcmp(&nq->q, q, sizeof(*q)))
			continue;
		mutex_lock(&nq->lock);
		if (nq->unreadable) {
			unreadable = nq->unreadable;
			ret = -EOPNOTSUPP;
		}
		/* Captures count from the subscription on. */
		nq->captured = 0;
		mutex_unlock(&nq->lock);
	}
	if (ret)
		dev_info(&dev->pdev->dev, "queue %u/%u/%u/%u: its ring cannot be read (%s): cannot subscribe\n",
			 q->kind, q->index, q->type, q->engine, unreadable);
	else
		ret = xa_err(xa_store(&dev->subscribed, nprof_nn_slot(q), handle, GFP_KERNEL));
	mutex_unlock(&dev->lock);
	return ret;
}

static void nprof_nn_queue_stop(struct nprof_drmdev *ndev, const struct nprof_queue_id *q)
{
	struct nprof_nn_device *dev = nprof_device_priv(ndev);

	mutex_lock(&dev->lock);
	xa_erase(&dev->subscribed, nprof_nn_slot(q));
	mutex_unlock(&dev->lock);
}

static const struct nprof_hw_ops nprof_nn_ops = {
	.owner = THIS_MODULE,
	.queue_start = nprof_nn_queue_start,
	.queue_stop = nprof_nn_queue_stop,
};

static void nprof_nn_fill_desc(const struct neuron_nq_hook_dev *hd,
			       const struct nprof_nn_arch *arch, struct nprof_device_desc *d)
{
	u32 all = 0, topsp = 0, i;

	for (i = 0; i < NPROF_NN_NQ_TYPES; i++) {
		all |= BIT(nprof_nn_core_types[i]);
		topsp |= BIT(nprof_nn_topsp_types[i]);
	}
	*d = (struct nprof_device_desc) {
		.provider = "neuron",
		.arch = hd->pci_device == 0x7364 ? NEURONPROF_ARCH_TRN2 :
			hd->pci_device == 0x7264 ? NEURONPROF_ARCH_INF2 : NEURONPROF_ARCH_TRN1,
		.num_cores = hd->nc_count,
		.num_topsps = hd->ts_count,
		.engines_per_core = arch->engines_per_core,
		.core_queue_types = all,
		.topsp_queue_types = topsp,
		.per_engine_queue_types = all,
		.min_ring_size = PAGE_SIZE,
		.max_ring_size = SZ_256M,
		.caps = NEURONPROF_CAP_RAW_PACKED,
		.queue_instances = NEURONPROF_MAX_INSTANCES,
		.clock_domain = NEURONPROF_CLOCK_CAPTURED,
		.raw_format = arch->raw_format,
		.raw_entry_size = arch->entry_size,
	};
}

static void nprof_nn_free(struct nprof_nn_device *dev)
{
	struct nprof_nn_queue *nq;
	unsigned long key;

	xa_for_each(&dev->queues, key, nq) {
		mutex_destroy(&nq->lock);
		kfree(nq->bounce);
		kfree(nq);
	}
	xa_destroy(&dev->queues);
	xa_destroy(&dev->subscribed);
	xa_destroy(&dev->live);
	kfree(dev);
}

static void nprof_nn_device_added(const struct neuron_nq_hook_dev *hd)
{
	struct nprof_nn_device *dev;
	struct nprof_drmdev *ndev;
	struct nprof_nn_arch arch;
	int ret;

	nprof_nn_cal_device(hd);
	if (!nprof_nn_arch_of(hd->arch, &arch)) {
		dev_warn(hd->dev, "neuronprof: architecture %u not supported: not profiled\n",
			 hd->arch);
		return;
	}
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return;
	dev->hd = hd;
	dev->arch = arch;
	mutex_init(&dev->lock);
	xa_init(&dev->queues);
	xa_init(&dev->subscribed);
	xa_init(&dev->live);
	nprof_nn_fill_desc(hd, &dev->arch, &dev->desc);
	dev->pdev = platform_device_register_data(hd->dev, "neuronprof_neuron",
						  hd->device_index, NULL, 0);
	if (IS_ERR(dev->pdev)) {
		dev_err(hd->dev, "neuronprof: cannot create the profiling device: %ld\n",
			PTR_ERR(dev->pdev));
		goto err_free;
	}
	/* Head writes find the device from here on, before it is visible. */
	down_write(&nprof_nn_lock);
	list_add_tail_rcu(&dev->node, &nprof_nn_devices);
	up_write(&nprof_nn_lock);

	ndev = nprof_device_alloc(&dev->pdev->dev, &dev->desc, &nprof_nn_ops, dev);
	if (IS_ERR(ndev)) {
		dev_err(hd->dev, "neuronprof: allocating the device failed: %ld\n",
			PTR_ERR(ndev));
		goto err_unlist;
	}
	mutex_lock(&dev->lock);
	WRITE_ONCE(dev->ndev, ndev);
	mutex_unlock(&dev->lock);
	/* Everything an op or a head write touches is ready: make it visible. */
	ret = nprof_device_publish(ndev);
	if (ret) {
		dev_err(hd->dev, "neuronprof: publishing the device failed: %d\n", ret);
		/* Unlisted first: no queue callback uses @ndev once this returns. */
		down_write(&nprof_nn_lock);
		list_del_rcu(&dev->node);
		up_write(&nprof_nn_lock);
		synchronize_srcu(&nprof_nn_srcu);
		nprof_device_free(ndev);
		goto err_unregister;
	}
	dev_info(hd->dev, "neuronprof: neuron%u profiled (%u cores, %u TopSPs, entry size %u and head mode %u UNVERIFIED)\n",
		 hd->device_index, hd->nc_count, hd->ts_count, arch.entry_size, arch.head_mode);
	/*
	 * Queues the driver programmed before: the runtime may go on using
	 * them without programming them again (the device is listed, so each
	 * is added as if handed out again).
	 */
	if (nprof_nn_for_each_queue) {
		/* At a probe's announcement there are none (early_queues). */
		if (READ_ONCE(nprof_nn_registrar) != current)
			WRITE_ONCE(dev->walker, current);
		nprof_nn_for_each_queue(&nprof_nn_hook_ops, hd);
		WRITE_ONCE(dev->walker, NULL);
	}
	return;

err_unlist:
	down_write(&nprof_nn_lock);
	list_del_rcu(&dev->node);
	up_write(&nprof_nn_lock);
	synchronize_srcu(&nprof_nn_srcu);
err_unregister:
	platform_device_unregister(dev->pdev);
err_free:
	nprof_nn_free(dev);
}

/*
 * Unplug and free one device, unlisted: no queue callback can reach it any
 * more; nprof_nn_lock is not held (unregister waits for the core's ops).
 */
static void nprof_nn_remove(struct nprof_nn_device *dev)
{
	if (dev->ndev)
		nprof_device_unregister(dev->ndev);
	platform_device_unregister(dev->pdev);
	nprof_nn_free(dev);
}

static void nprof_nn_device_removed(const struct neuron_nq_hook_dev *hd)
{
	struct nprof_nn_device *dev;

	/* Waits for the queue callbacks that hold it for reading... */
	down_write(&nprof_nn_lock);
	dev = nprof_nn_find(hd);
	if (dev)
		list_del_rcu(&dev->node);
	up_write(&nprof_nn_lock);
	/* ...and for the head writes that found it. */
	synchronize_srcu(&nprof_nn_srcu);
	if (dev)
		nprof_nn_remove(dev);
}

/* The callbacks neuron.ko's hook calls. */
const struct neuron_nq_hook_ops nprof_nn_hook_ops = {
	.version = NEURON_NQ_HOOK_VERSION,
	.device_added = nprof_nn_device_added,
	.device_removed = nprof_nn_device_removed,
	.queue_programmed = nprof_nn_queue_programmed,
	.queue_halted = nprof_nn_queue_halted,
	.head_write = nprof_nn_head_write,
	.core_reset = nprof_nn_core_reset,
};
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_hook_ops);

static int (*nprof_nn_register)(const struct neuron_nq_hook_ops *ops);
static void (*nprof_nn_unregister)(const struct neuron_nq_hook_ops *ops);

static int __init nprof_nn_init(void)
{
	int ret;

	nprof_nn_register = symbol_get(neuron_nq_hook_register);
	nprof_nn_unregister = symbol_get(neuron_nq_hook_unregister);
	nprof_nn_for_each_queue = symbol_get(neuron_nq_hook_for_each_queue);
	if (nprof_nn_devmem_read == NPROF_NN_DEVMEM_DMA)
		nprof_nn_dma_read = symbol_get(neuron_nq_hook_dma_read);
	if (!nprof_nn_register || !nprof_nn_unregister) {
		pr_err("neuron.ko is not loaded or does not carry the neuronprof hook: load it first (modprobe neuron); if it is loaded, apply the hook with neuronprof-neuron-hook install (package neuronprof-dkms, or make install), or from the neuronprof sources with scripts/neuron-vendor-hook.sh install (Documentation/hardware.rst)\n");
		ret = -ENODEV;
		goto err_put;
	}
	if (nprof_nn_devmem_read == NPROF_NN_DEVMEM_DMA && !nprof_nn_dma_read) {
		pr_err("devmem_read=dma: neuron.ko's hook has no neuron_nq_hook_dma_read (hook patch 11): install the current hook series (Documentation/hardware.rst) or load with devmem_read=fromio\n");
		ret = -ENODEV;
		goto err_put;
	}
	nprof_nn_cal_init();
	/* Registration announces the devices there are (device_added). */
	WRITE_ONCE(nprof_nn_registrar, current);
	ret = nprof_nn_register(&nprof_nn_hook_ops);
	WRITE_ONCE(nprof_nn_registrar, NULL);
	if (ret) {
		nprof_nn_cal_exit();
		pr_err("registering with neuron.ko's hook failed: %d%s\n", ret,
		       ret == -EBUSY ? " (another module holds the hook)" :
		       ret == -EINVAL ? " (hook version mismatch: rebuild both)" : "");
		goto err_put;
	}
	return 0;

err_put:
	if (nprof_nn_register)
		symbol_put(neuron_nq_hook_register);
	if (nprof_nn_unregister)
		symbol_put(neuron_nq_hook_unregister);
	if (nprof_nn_for_each_queue)
		symbol_put(neuron_nq_hook_for_each_queue);
	if (nprof_nn_dma_read)
		symbol_put(neuron_nq_hook_dma_read);
	nprof_nn_dma_read = NULL;
	return ret;
}

static void __exit nprof_nn_exit(void)
{
	struct nprof_nn_device *dev, *tmp;
	LIST_HEAD(gone);

	nprof_nn_unregister(&nprof_nn_hook_ops);
	nprof_nn_cal_exit();
	down_write(&nprof_nn_lock);
	list_splice_init(&nprof_nn_devices, &gone);
	up_write(&nprof_nn_lock);
	list_for_each_entry_safe(dev, tmp, &gone, node) {
		list_del(&dev->node);
		nprof_nn_remove(dev);
	}
	symbol_put(neuron_nq_hook_register);
	symbol_put(neuron_nq_hook_unregister);
	if (nprof_nn_for_each_queue)
		symbol_put(neuron_nq_hook_for_each_queue);
	if (nprof_nn_dma_read)
		symbol_put(neuron_nq_hook_dma_read);
}

module_init(nprof_nn_init);
module_exit(nprof_nn_exit);

MODULE_DESCRIPTION("neuronprof: devices of the vendor's neuron.ko (needs its neuronprof hook)");
MODULE_LICENSE("GPL");
