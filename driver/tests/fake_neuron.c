// SPDX-License-Identifier: GPL-2.0
/*
 * neuronprof_fake_neuron: a test module that plays the patched vendor
 * neuron.ko towards the provider, on devices without hardware, so
 * neuronprof_neuron.ko's logic is tested. It is a re-creation, not the
 * vendor's code: its BAR layout and head decoder are its own, so it tests
 * neither the hook patches nor the vendor's behaviour
 * (scripts/vendor-hook-test.sh checks the patches against the vendor tree).
 * It exports the hook (neuron_nq_hook_register/_unregister, with the same
 * contract and the same SRCU/mutex scheme as driver/neuron/vendor/0001) and
 * so cannot be loaded next to neuron.ko.
 *
 * A device has a BAR0 in host memory with the vendor's register sets, in
 * a flat layout of its own: per notification block (one per NeuronCore, one per
 * SDMA engine of a core, one per TopSP) register sets of 0x28 bytes at
 * 0x100 + 0x28 * i: base_lo, base_hi, size, head; 96 sets = 6 types x 16
 * instances. Programming a queue allocates its ring in host memory, writes
 * base and size there and calls queue_programmed (a reallocation halts the
 * old ring first), as nnq_init() does. The "hardware" (produce) writes
 * synthetic entries at its tail, never past the head; the "runtime"
 * (consume) advances the head and writes the head register, calling
 * head_write first, with the register decoded as the hook's decoder does
 * (set i of a core or TopSP block: type i / 16, instance i % 16; set 0 of
 * an SDMA block: TRACE_DMA), on the fake's own flat layout. A core reset
 * and a device removal halt (queue_halted) before freeing, as
 * nnq_destroy_nc() and neuron_pci_remove() do; a core reset then resets
 * the head registers of the core's blocks (its own, its SDMA engines',
 * its TopSPs') and is announced (core_reset), queues or not (patch 10).
 * With nprof_fake_set_head_fixed() (KUnit) a head register reads one value
 * whatever was written, and the device writes a queue programmed in new
 * memory from where its register set's head points.
 *
 * Control: the functions of fake_neuron.h (KUnit), or debugfs
 * neuronprof_fake_neuron/ctl (kselftests): write one command, read back the
 * result of the last one:
 *   add ARCH NC TS | remove DEV | program DEV TARGET ID TYPE INSTANCE SIZE |
 *   halt DEV Q | reset DEV CORE | produce DEV Q N | consume DEV Q N |
 *   skip DEV Q N (the runtime consumes without writing the head)
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "fake_neuron.h"
#include "neuron/neuron_nq_hook.h"

#define NQ_REGS_START		0x100
#define NQ_REG_SIZE		0x28
#define NQ_REG_BASE_LO		0x0
#define NQ_REG_BASE_HI		0x4
#define NQ_REG_SIZE_OFF		0x8
#define NQ_REG_HEAD		0xc
#define NQ_BLOCK_SIZE		0x1000
#define NQ_INSTANCES		16
#define NQ_TYPE_TRACE_DMA	4
#define SDMA_PER_CORE		16

static unsigned int entry_size = 64;
module_param(entry_size, uint, 0444);
MODULE_PARM_DESC(entry_size, "Bytes of a synthetic entry (as the provider's entry_size_v2/_v3)");
static unsigned int head_mode;
module_param(head_mode, uint, 0444);
MODULE_PARM_DESC(head_mode, "What the runtime writes to a head register (as the provider's head_mode_v2/_v3)");

struct fake_queue {
	bool used;
	struct neuron_nq_hook_queue hq;
	void *mem;		/* the ring; hq.va is NULL for device memory */
	u32 block;		/* block index in the BAR */
	u32 tail;		/* entries the hardware wrote (free-running) */
	u32 head;		/* entries the runtime consumed (free-running) */
	u32 head_base;		/* added to a counter-mode head value */
};

struct fake_dev {
	bool used;
	struct platform_device *pdev;
	struct neuron_nq_hook_dev hd;
	u8 *bar;
	u32 blocks;
	struct fake_queue q[NPROF_FAKE_MAX_QUEUES];
};

static const struct neuron_nq_hook_ops __rcu *fake_hook;
DEFINE_STATIC_SRCU(fake_hook_srcu);
/* Protects registration, the devices and their queues. */
static DEFINE_MUTEX(fake_lock);
static struct fake_dev fake_devs[NPROF_FAKE_MAX_DEVICES];
/* Queue callbacks and head writes are not reported (KUnit: a hook registered late). */
static bool fake_blind;
/* Device-memory queues are handed to the hook with .io (their host memory). */
static bool fake_devmem_io;
/*
 * nprof_fake_set_head_fixed(): a head register read returns fake_read_value;
 * a fresh queue is written from its set's head; a reset leaves
 * fake_reset_value in the core's head registers (else 0).
 */
static bool fake_head_fixed;
static u32 fake_read_value, fake_reset_value;

/* ---- the hook, as driver/neuron/vendor/0001 exports it ------------------ */

int neuron_nq_hook_register(const struct neuron_nq_hook_ops *ops)
{
	int i, ret = 0;

	if (!ops || ops->version != NEURON_NQ_HOOK_VERSION || !ops->device_added ||
	    !ops->device_removed || !ops->queue_programmed || !ops->queue_halted ||
	    !ops->head_write || !ops->core_reset)
		return -EINVAL;
	mutex_lock(&fake_lock);
	if (rcu_dereference_protected(fake_hook, lockdep_is_held(&fake_lock))) {
		ret = -EBUSY;
		goto out;
	}
	for (i = 0; i < NPROF_FAKE_MAX_DEVICES; i++)
		if (fake_devs[i].used)
			ops->device_added(&fake_devs[i].hd);
	rcu_assign_pointer(fake_hook, ops);
out:
	mutex_unlock(&fake_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(neuron_nq_hook_register);

void neuron_nq_hook_unregister(const struct neuron_nq_hook_ops *ops)
{
	mutex_lock(&fake_lock);
	if (rcu_dereference_protected(fake_hook, lockdep_is_held(&fake_lock)) == ops)
		RCU_INIT_POINTER(fake_hook, NULL);
	mutex_unlock(&fake_lock);
	synchronize_srcu(&fake_hook_srcu);
}
EXPORT_SYMBOL_GPL(neuron_nq_hook_unregister);

/* Called with fake_lock held, as the vendor's device add/remove are. */
static const struct neuron_nq_hook_ops *fake_ops_locked(void)
{
	return rcu_dereference_protected(fake_hook, lockdep_is_held(&fake_lock));
}

/*
 * Queue callbacks run under SRCU only in the vendor driver; fake_lock is
 * held here as well because the fake's own state needs it, which the
 * provider cannot tell apart.
 */
static void fake_call_queue(struct fake_dev *d, struct fake_queue *fq, bool programmed,
			    bool fresh)
{
	const struct neuron_nq_hook_ops *ops;
	int idx;

	if (fake_blind)
		return;
	fq->hq.fresh = programmed && fresh;
	idx = srcu_read_lock(&fake_hook_srcu);
	ops = srcu_dereference(fake_hook, &fake_hook_srcu);
	if (ops) {
		if (programmed)
			ops->queue_programmed(&d->hd, &fq->hq);
		else
			ops->queue_halted(&d->hd, &fq->hq);
	}
	srcu_read_unlock(&fake_hook_srcu, idx);
}

/* ---- devices and their register map -------------------------------------- */

static struct fake_dev *fake_dev_get(int dev)
{
	lockdep_assert_held(&fake_lock);
	if (dev < 0 || dev >= NPROF_FAKE_MAX_DEVICES || !fake_devs[dev].used)
		return NULL;
	return &fake_devs[dev];
}

static struct fake_queue *fake_queue_get(struct fake_dev *d, int q)
{
	if (!d || q < 0 || q >= NPROF_FAKE_MAX_QUEUES || !d->q[q].used)
		return NULL;
	return &d->q[q];
}

/* Takes fake_lock: @dev's queue @q, or NULL; its device (or NULL) in *@d. */
static struct fake_queue *fake_queue_lock(int dev, int q, struct fake_dev **d)
{
	mutex_lock(&fake_lock);
	*d = fake_dev_get(dev);
	return fake_queue_get(*d, q);
}

/*
 * A register of the fake BAR. It is ordinary memory, so it is accessed as
 * such (UML's readl()/writel() only reach its own emulated I/O regions).
 */
static u32 *fake_reg(struct fake_dev *d, u32 block, u32 reg, u32 off)
{
	return (u32 *)(d->bar + (u64)block * NQ_BLOCK_SIZE + NQ_REGS_START +
		       reg * NQ_REG_SIZE + off);
}

/* Block of a queue: NeuronCore main blocks, then SDMA blocks, then TopSPs. */
static u32 fake_block(struct fake_dev *d, const struct neuron_nq_hook_qid *qid)
{
	if (qid->target == NEURON_NQ_HOOK_TOPSP)
		return d->hd.nc_count * (1 + SDMA_PER_CORE) + qid->id;
	if (qid->sdma)
		return d->hd.nc_count + qid->id * SDMA_PER_CORE + qid->instance;
	return qid->id;
}

/*
 * What the hook's decoder (neuron_nq_hook_decode_v2()) makes of a head
 * register's offset, on the fake's layout: the block gives target and id
 * (and the SDMA engine), the set index i gives type i / 16 and instance
 * i % 16.
 */
static int fake_decode_head(struct fake_dev *d, u64 off, struct neuron_nq_hook_qid *qid)
{
	u32 block = off / NQ_BLOCK_SIZE, rel = off % NQ_BLOCK_SIZE, i;

	if (rel < NQ_REGS_START + NQ_REG_HEAD || (rel - NQ_REGS_START - NQ_REG_HEAD) % NQ_REG_SIZE)
		return -EINVAL;
	i = (rel - NQ_REGS_START - NQ_REG_HEAD) / NQ_REG_SIZE;
	memset(qid, 0, sizeof(*qid));
	if (block < d->hd.nc_count) {
		qid->target = NEURON_NQ_HOOK_NC;
		qid->id = block;
		qid->nq_type = i / NQ_INSTANCES;
		qid->instance = i % NQ_INSTANCES;
		qid->reg = i;
	} else if (block < d->hd.nc_count * (1 + SDMA_PER_CORE)) {
		block -= d->hd.nc_count;
		qid->target = NEURON_NQ_HOOK_NC;
		qid->id = block / SDMA_PER_CORE;
		qid->nq_type = NQ_TYPE_TRACE_DMA;
		qid->instance = block % SDMA_PER_CORE;
		qid->sdma = 1;
	} else {
		block -= d->hd.nc_count * (1 + SDMA_PER_CORE);
		if (block >= d->hd.ts_count)
			return -EINVAL;
		qid->target = NEURON_NQ_HOOK_TOPSP;
		qid->id = block;
		qid->nq_type = i / NQ_INSTANCES;
		qid->instance = i % NQ_INSTANCES;
		qid->reg = i;
	}
	return 0;
}

/**
 * nprof_fake_add() - a device appears (the end of neuron_pci_probe()).
 * @vendor_arch: 2 or 3.
 * @nc: NeuronCores.
 * @ts: TopSPs.
 *
 * Return: the device number, or a negative errno.
 */
int nprof_fake_add(u32 vendor_arch, u32 nc, u32 ts)
{
	const struct neuron_nq_hook_ops *ops;
	struct fake_dev *d = NULL;
	int i, ret;

	if (!nc || nc > 8 || ts > 16 || (ts && ts % nc))
		return -EINVAL;
	mutex_lock(&fake_lock);
	for (i = 0; i < NPROF_FAKE_MAX_DEVICES; i++) {
		if (!fake_devs[i].used) {
			d = &fake_devs[i];
			break;
		}
	}
	ret = -ENOSPC;
	if (!d)
		goto out;
	memset(d, 0, sizeof(*d));
	d->blocks = nc * (1 + SDMA_PER_CORE) + ts;
	d->bar = kvzalloc((size_t)d->blocks * NQ_BLOCK_SIZE, GFP_KERNEL);
	ret = -ENOMEM;
	if (!d->bar)
		goto out;
	d->pdev = platform_device_register_simple("neuronprof_fake_pci", i, NULL, 0);
	if (IS_ERR(d->pdev)) {
		ret = PTR_ERR(d->pdev);
		kvfree(d->bar);
		goto out;
	}
	d->hd = (struct neuron_nq_hook_dev) {
		.dev = &d->pdev->dev,
		.device_index = i,
		.arch = vendor_arch,
		.pci_device = vendor_arch == 3 ? 0x7364 : 0x7164,
		.nc_count = nc,
		.nc_map = GENMASK(nc - 1, 0),
		.ts_count = ts,
	};
	d->used = true;
	ops = fake_ops_locked();
	if (ops)
		ops->device_added(&d->hd);
	ret = i;
out:
	mutex_unlock(&fake_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_add);

/* Halt a queue before freeing its ring, as nnq_halt()/ts_nq_destroy() do. */
static void fake_halt_locked(struct fake_dev *d, struct fake_queue *fq)
{
	WRITE_ONCE(*fake_reg(d, fq->block, fq->hq.qid.reg, NQ_REG_BASE_LO), 0);
	WRITE_ONCE(*fake_reg(d, fq->block, fq->hq.qid.reg, NQ_REG_BASE_HI), 0);
	WRITE_ONCE(*fake_reg(d, fq->block, fq->hq.qid.reg, NQ_REG_SIZE_OFF), 0);
	fake_call_queue(d, fq, false, false);
	free_pages_exact(fq->mem, fq->hq.size);
	fq->used = false;
}

/**
 * nprof_fake_remove() - a device goes (neuron_pci_remove()): its queues are
 *	halted and freed, then it is announced removed.
 * @dev: the device.
 *
 * Return: 0 or -ENOENT.
 */
int nprof_fake_remove(int dev)
{
	const struct neuron_nq_hook_ops *ops;
	struct fake_dev *d;
	int i;

	mutex_lock(&fake_lock);
	d = fake_dev_get(dev);
	if (!d) {
		mutex_unlock(&fake_lock);
		return -ENOENT;
	}
	for (i = 0; i < NPROF_FAKE_MAX_QUEUES; i++)
		if (d->q[i].used)
			fake_halt_locked(d, &d->q[i]);
	ops = fake_ops_locked();
	if (ops)
		ops->device_removed(&d->hd);
	d->used = false;
	mutex_unlock(&fake_lock);
	synchronize_srcu(&fake_hook_srcu);
	platform_device_unregister(d->pdev);
	kvfree(d->bar);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_remove);

/**
 * nprof_fake_program_at() - the runtime asks for a queue (NOTIFICATIONS_INIT):
 *	a new one is allocated and programmed; asking again hands out the
 *	existing one; another size or place reallocates it (halting the old
 *	ring first).
 * @dev: the device.
 * @target: NEURON_NQ_HOOK_NC or NEURON_NQ_HOOK_TOPSP.
 * @id: core or TopSP.
 * @nq_type: vendor type 0..5.
 * @instance: engine index (SDMA engine for TRACE_DMA); as in the vendor's
 *	NOTIFICATIONS_INIT, 16 or more is accepted outside TRACE_DMA while
 *	the register set type * 16 + instance exists.
 * @size: bytes, a power of two, at least one page.
 * @on_host: in host memory; else "device memory": the hook gets no kernel
 *	address, as for the vendor's MEM_LOC_DEVICE (the fake still keeps the
 *	ring in host memory for its hardware side).
 *
 * Return: the queue number, or a negative errno.
 */
int nprof_fake_program_at(int dev, u32 target, u32 id, u32 nq_type, u32 instance, u32 size,
			  bool on_host)
{
	struct fake_queue *fq = NULL, *old = NULL;
	struct neuron_nq_hook_qid qid = {
		.target = target, .id = id, .nq_type = nq_type, .instance = instance,
	};
	struct fake_dev *d;
	int i, ret = -EINVAL;
	u32 h, start;
	void *va;

	mutex_lock(&fake_lock);
	d = fake_dev_get(dev);
	if (!d || target > NEURON_NQ_HOOK_TOPSP || nq_type >= 6 ||
	    nq_type * NQ_INSTANCES + instance >= 6 * NQ_INSTANCES ||
	    (target == NEURON_NQ_HOOK_NC && nq_type == NQ_TYPE_TRACE_DMA &&
	     instance >= SDMA_PER_CORE) ||
	    id >= (target ? d->hd.ts_count : d->hd.nc_count) || !is_power_of_2(size) ||
	    size < PAGE_SIZE || size < entry_size)
		goto out;
	/* As nnq_set_hwaddr_v2(): TRACE_DMA in its SDMA block's set 0. */
	qid.sdma = target == NEURON_NQ_HOOK_NC && nq_type == NQ_TYPE_TRACE_DMA;
	qid.reg = qid.sdma ? 0 : nq_type * NQ_INSTANCES + instance;
	for (i = 0; i < NPROF_FAKE_MAX_QUEUES; i++) {
		if (d->q[i].used && !memcmp(&d->q[i].hq.qid, &qid, sizeof(qid)))
			old = &d->q[i];
		else if (!d->q[i].used && !fq)
			fq = &d->q[i];
	}
	if (old && old->hq.size == size && old->hq.on_host == on_host) {
		fake_call_queue(d, old, true, false);		/* handed out again */
		ret = old - d->q;
		goto out;
	}
	if (old) {
		fake_halt_locked(d, old);
		fq = old;
	}
	ret = -ENOSPC;
	if (!fq)
		goto out;
	va = alloc_pages_exact(size, GFP_KERNEL | __GFP_ZERO);
	ret = -ENOMEM;
	if (!va)
		goto out;
	*fq = (struct fake_queue) {
		.used = true,
		.hq = { .qid = qid, .on_host = on_host, .size = size, .va = on_host ? va : NULL,
			.io = !on_host && fake_devmem_io ? (__force void __iomem *)va : NULL },
		.mem = va,
	};
	fq->block = fake_block(d, &qid);
	WRITE_ONCE(*fake_reg(d, fq->block, qid.reg, NQ_REG_BASE_HI),
		   upper_32_bits(virt_to_phys(va)));
	WRITE_ONCE(*fake_reg(d, fq->block, qid.reg, NQ_REG_BASE_LO),
		   lower_32_bits(virt_to_phys(va)));
	WRITE_ONCE(*fake_reg(d, fq->block, qid.reg, NQ_REG_SIZE_OFF), size);
	if (fake_head_fixed) {
		/* The device writes from its set's head; a read says fake_read_value. */
		h = READ_ONCE(*fake_reg(d, fq->block, qid.reg, NQ_REG_HEAD));
		start = head_mode == 2 ? h : (head_mode == 1 ? h / entry_size : h) %
					     (size / entry_size);
		fq->tail = start;
		fq->head = start;
		fq->hq.head = fake_read_value;
	} else {
		WRITE_ONCE(*fake_reg(d, fq->block, qid.reg, NQ_REG_HEAD), 0);
	}
	fake_call_queue(d, fq, true, true);
	ret = fq - d->q;
out:
	mutex_unlock(&fake_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_program_at);

/**
 * nprof_fake_program() - nprof_fake_program_at() in host memory.
 * @dev: the device.
 * @target: NEURON_NQ_HOOK_NC or NEURON_NQ_HOOK_TOPSP.
 * @id: core or TopSP.
 * @nq_type: vendor type 0..5.
 * @instance: engine index (SDMA engine for TRACE_DMA).
 * @size: bytes, a power of two, at least one page.
 *
 * Return: the queue number, or a negative errno.
 */
int nprof_fake_program(int dev, u32 target, u32 id, u32 nq_type, u32 instance, u32 size)
{
	return nprof_fake_program_at(dev, target, id, nq_type, instance, size, true);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_program);

/**
 * nprof_fake_halt() - halt and free one queue.
 * @dev: the device.
 * @q: the queue.
 *
 * Return: 0 or -ENOENT.
 */
int nprof_fake_halt(int dev, int q)
{
	struct fake_queue *fq;
	int ret = -ENOENT;

	mutex_lock(&fake_lock);
	fq = fake_queue_get(fake_dev_get(dev), q);
	if (fq) {
		fake_halt_locked(&fake_devs[dev], fq);
		ret = 0;
	}
	mutex_unlock(&fake_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_halt);

/**
 * nprof_fake_mem_free() - the runtime frees a queue's memory
 *	(NEURON_IOCTL_MEM_FREE), with the vendor hook's patch 5: mc_free()
 *	announces every queue slot that points at the chunk halted, then the
 *	chunk is freed.
 * @dev: the device.
 * @q: the queue.
 *
 * The vendor keeps a queue in slot nq_id = type * 16 + engine index, and
 * mc_free() names each slot it finds by the type and engine it maps to
 * (nq_id / 16, nq_id % 16), with the register set the hook gives that
 * engine index (__neuron_nq_hook_queue(): set "index", set 0 of an SDMA
 * block). A queue programmed with an engine index of 16 or more is thus
 * announced halted under another type, engine and register set than it
 * was programmed with; for engine indices below 16 of type 0 the two
 * agree. Unlike a halt, the hardware's registers are left as they are
 * (the vendor's behaviour without its fixes).
 *
 * Return: 0 or -ENOENT.
 */
int nprof_fake_mem_free(int dev, int q)
{
	struct neuron_nq_hook_queue hq;
	struct fake_queue *fq;
	struct fake_dev *d;
	u32 nq_id;
	int idx;

	fq = fake_queue_lock(dev, q, &d);
	if (!fq) {
		mutex_unlock(&fake_lock);
		return -ENOENT;
	}
	hq = fq->hq;
	nq_id = hq.qid.nq_type * NQ_INSTANCES + hq.qid.instance;
	hq.qid.nq_type = nq_id / NQ_INSTANCES;
	hq.qid.instance = nq_id % NQ_INSTANCES;
	hq.qid.sdma = hq.qid.target == NEURON_NQ_HOOK_NC && hq.qid.nq_type == NQ_TYPE_TRACE_DMA;
	hq.qid.reg = hq.qid.sdma ? 0 : hq.qid.instance;
	hq.fresh = 0;
	if (!fake_blind) {
		const struct neuron_nq_hook_ops *ops;

		idx = srcu_read_lock(&fake_hook_srcu);
		ops = srcu_dereference(fake_hook, &fake_hook_srcu);
		if (ops)
			ops->queue_halted(&d->hd, &hq);
		srcu_read_unlock(&fake_hook_srcu, idx);
	}
	free_pages_exact(fq->mem, fq->hq.size);
	fq->used = false;
	mutex_unlock(&fake_lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_mem_free);

/* The head registers of a block after a reset. */
static void fake_reset_heads(struct fake_dev *d, u32 block)
{
	u32 s;

	for (s = 0; s < 6 * NQ_INSTANCES; s++)
		WRITE_ONCE(*fake_reg(d, block, s, NQ_REG_HEAD),
			   fake_head_fixed ? fake_reset_value : 0);
}

/**
 * nprof_fake_reset_core() - a core reset (nnq_destroy_nc()): every queue of
 *	the core and of its TopSPs is halted, then freed; the head registers
 *	of the core's, its SDMA engines' and its TopSPs' blocks are reset;
 *	the reset is announced (core_reset), queues or not.
 * @dev: the device.
 * @core: the core.
 *
 * Return: queues halted, or a negative errno.
 */
int nprof_fake_reset_core(int dev, u32 core)
{
	const struct neuron_nq_hook_ops *ops;
	struct fake_dev *d;
	int i, n = 0, idx;
	u32 per;

	mutex_lock(&fake_lock);
	d = fake_dev_get(dev);
	if (!d || core >= d->hd.nc_count) {
		mutex_unlock(&fake_lock);
		return -EINVAL;
	}
	per = d->hd.ts_count / d->hd.nc_count;
	for (i = 0; i < NPROF_FAKE_MAX_QUEUES; i++) {
		const struct neuron_nq_hook_qid *qid = &d->q[i].hq.qid;

		if (!d->q[i].used)
			continue;
		if (qid->target == NEURON_NQ_HOOK_NC ? qid->id != core :
		    qid->id / per != core)
			continue;
		fake_halt_locked(d, &d->q[i]);
		n++;
	}
	fake_reset_heads(d, core);
	for (i = 0; i < SDMA_PER_CORE; i++)
		fake_reset_heads(d, d->hd.nc_count + core * SDMA_PER_CORE + i);
	for (i = core * per; per && i < (core + 1) * per; i++)
		fake_reset_heads(d, d->hd.nc_count * (1 + SDMA_PER_CORE) + i);
	if (!fake_blind) {
		idx = srcu_read_lock(&fake_hook_srcu);
		ops = srcu_dereference(fake_hook, &fake_hook_srcu);
		if (ops)
			ops->core_reset(&d->hd, core);
		srcu_read_unlock(&fake_hook_srcu, idx);
	}
	mutex_unlock(&fake_lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_reset_core);

/* Entry @seq of queue @q: NPROF_FAKE_WORD0, then bytes (seq + offset) & 0xff. */
static void fake_fill_entry(u8 *e, int q, u32 seq)
{
	u64 w0 = NPROF_FAKE_WORD0(q, seq);
	u32 i;

	memcpy(e, &w0, sizeof(w0));
	for (i = sizeof(w0); i < entry_size; i++)
		e[i] = (seq + i) & 0xff;
}

/**
 * nprof_fake_produce() - the hardware writes up to @n entries at its tail;
 *	it never passes the head (what it cannot write it does not produce).
 * @dev: the device.
 * @q: the queue.
 * @n: entries.
 *
 * Return: entries written, or a negative errno.
 */
long nprof_fake_produce(int dev, int q, u32 n)
{
	struct fake_queue *fq;
	u32 cap, room, i;
	long ret = -ENOENT;

	mutex_lock(&fake_lock);
	fq = fake_queue_get(fake_dev_get(dev), q);
	if (fq) {
		cap = fq->hq.size / entry_size;
		room = cap - (fq->tail - fq->head);
		n = min(n, room);
		for (i = 0; i < n; i++, fq->tail++)
			fake_fill_entry(fq->mem + (u64)(fq->tail % cap) * entry_size, q,
					fq->tail);
		ret = n;
	}
	mutex_unlock(&fake_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_produce);

/* The head register value of a consumer position, in head_mode's units. */
static u32 fake_head_value(struct fake_queue *fq)
{
	u32 cap = fq->hq.size / entry_size;

	switch (head_mode) {
	case 1:
		return (fq->head % cap) * entry_size;
	case 2:
		return fq->head + fq->head_base;
	default:
		return fq->head % cap;
	}
}

/* The runtime writes @fq's head register through BAR_WRITE. */
static void fake_write_head(struct fake_dev *d, struct fake_queue *fq)
{
	const struct neuron_nq_hook_ops *ops;
	struct neuron_nq_hook_qid qid;
	u64 off;
	int idx;

	off = (u64)fq->block * NQ_BLOCK_SIZE + NQ_REGS_START + fq->hq.qid.reg * NQ_REG_SIZE +
	      NQ_REG_HEAD;
	if (!fake_blind && !fake_decode_head(d, off, &qid)) {
		idx = srcu_read_lock(&fake_hook_srcu);
		ops = srcu_dereference(fake_hook, &fake_hook_srcu);
		if (ops)
			ops->head_write(&d->hd, &qid, fake_head_value(fq));
		srcu_read_unlock(&fake_hook_srcu, idx);
	}
	WRITE_ONCE(*fake_reg(d, fq->block, fq->hq.qid.reg, NQ_REG_HEAD), fake_head_value(fq));
}

/**
 * nprof_fake_consume() - the runtime consumes @n entries and writes the head
 *	register through BAR_WRITE: head_write is called with the offset
 *	decoded, then the register is written.
 * @dev: the device.
 * @q: the queue.
 * @n: entries, at most what the hardware wrote and nobody consumed.
 * @write_head: false: the runtime consumed them without writing the head
 *	(so a later write passes more than one ring's worth).
 *
 * Return: entries consumed, or a negative errno.
 */
long nprof_fake_consume(int dev, int q, u32 n, bool write_head)
{
	struct fake_queue *fq;
	struct fake_dev *d;
	long ret = -ENOENT;

	fq = fake_queue_lock(dev, q, &d);
	if (!fq)
		goto out;
	ret = -EINVAL;
	if (n > fq->tail - fq->head)
		goto out;
	fq->head += n;
	ret = n;
	if (!write_head) {
		/* The hardware sees the room all the same. */
		goto out;
	}
	fake_write_head(d, fq);
out:
	mutex_unlock(&fake_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_consume);

/*
 * The runtime's head counter of @dev's queue @q changes without anything
 * consumed, and the runtime writes it: with @restart the queue starts over
 * (hardware and runtime at 0), else the counter moves by @delta.
 */
static int fake_rewrite_head(int dev, int q, bool restart, u32 delta)
{
	struct fake_queue *fq;
	struct fake_dev *d;
	int ret = -ENOENT;

	fq = fake_queue_lock(dev, q, &d);
	if (fq) {
		if (restart) {
			fq->tail = 0;
			fq->head = 0;
			fq->head_base = 0;
		} else {
			fq->head_base += delta;
		}
		fake_write_head(d, fq);
		ret = 0;
	}
	mutex_unlock(&fake_lock);
	return ret;
}

/**
 * nprof_fake_rebase_head() - the runtime's head counter jumps by @delta
 *	without anything consumed (a counter re-programmed behind the hook's
 *	back, or one that does not start at 0), and the runtime writes it.
 *	Only meaningful in head mode 2.
 * @dev: the device.
 * @q: the queue.
 * @delta: added to every later head value (mod 2^32).
 *
 * Return: 0 or -ENOENT.
 */
int nprof_fake_rebase_head(int dev, int q, u32 delta)
{
	return fake_rewrite_head(dev, q, false, delta);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_rebase_head);

/**
 * nprof_fake_restart() - the queue starts over behind the hook's back (a
 *	re-program the hook was not told of): the hardware writes from the
 *	ring's start again, the runtime's counter restarts at 0, and the
 *	runtime writes that head.
 * @dev: the device.
 * @q: the queue.
 *
 * Return: 0 or -ENOENT.
 */
int nprof_fake_restart(int dev, int q)
{
	return fake_rewrite_head(dev, q, true, 0);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_restart);

/**
 * nprof_fake_head_reg() - the head register as the device would read it.
 * @dev: the device.
 * @q: the queue.
 *
 * Return: its value, or U32_MAX.
 */
u32 nprof_fake_head_reg(int dev, int q)
{
	struct fake_queue *fq;
	u32 v = U32_MAX;

	mutex_lock(&fake_lock);
	fq = fake_queue_get(fake_dev_get(dev), q);
	if (fq)
		v = READ_ONCE(*fake_reg(&fake_devs[dev], fq->block, fq->hq.qid.reg,
					NQ_REG_HEAD));
	mutex_unlock(&fake_lock);
	return v;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_head_reg);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * nprof_fake_set_format() - what the "hardware" and "runtime" use (KUnit).
 * @size: bytes of an entry.
 * @mode: what the runtime writes to a head register.
 */
void nprof_fake_set_format(u32 size, u32 mode)
{
	entry_size = size;
	head_mode = mode;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_set_format);

/**
 * nprof_fake_set_blind() - while @blind, the fake tells the hook nothing
 *	about queues and head writes, as for queues programmed before the
 *	hook was registered (KUnit).
 * @blind: the state.
 */
void nprof_fake_set_blind(bool blind)
{
	mutex_lock(&fake_lock);
	fake_blind = blind;
	mutex_unlock(&fake_lock);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_set_blind);

/**
 * nprof_fake_set_devmem_io() - while @io, a queue programmed in "device
 *	memory" is handed to the hook with its ring as .io, as the vendor's
 *	BAR4 mapping would be (KUnit; read it through nprof_nn_io_read).
 * @io: the state.
 */
void nprof_fake_set_devmem_io(bool io)
{
	mutex_lock(&fake_lock);
	fake_devmem_io = io;
	mutex_unlock(&fake_lock);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_set_devmem_io);

/**
 * nprof_fake_set_head_fixed() - while @on, a read of a head register returns
 *	@read whatever was written (the head the hook gets when a queue is
 *	programmed), the device writes a queue programmed in new memory from
 *	where its register set's head points (the last head written to the
 *	set, or the reset's value), and a core reset leaves @reset in the
 *	core's head registers (KUnit; the provider's head_read 2, reprogram 0).
 *	Off: a programmed queue starts at 0, a reset leaves 0.
 * @on: the state.
 * @read: what a read returns.
 * @reset: a head register's value after a reset.
 */
void nprof_fake_set_head_fixed(bool on, u32 read, u32 reset)
{
	mutex_lock(&fake_lock);
	fake_head_fixed = on;
	fake_read_value = read;
	fake_reset_value = reset;
	mutex_unlock(&fake_lock);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_set_head_fixed);

/**
 * nprof_fake_ring() - the host memory of a queue's ring (KUnit).
 * @dev: the device.
 * @q: the queue.
 *
 * Return: its address, valid until the queue is halted or freed, or NULL.
 */
void *nprof_fake_ring(int dev, int q)
{
	struct fake_queue *fq;
	void *va = NULL;

	mutex_lock(&fake_lock);
	fq = fake_queue_get(fake_dev_get(dev), q);
	if (fq)
		va = fq->mem;
	mutex_unlock(&fake_lock);
	return va;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_ring);

/**
 * nprof_fake_hook_dev() - the hook's description of a device (KUnit).
 * @dev: the device.
 *
 * Return: it, or NULL; valid until the device is removed.
 */
const struct neuron_nq_hook_dev *nprof_fake_hook_dev(int dev)
{
	struct fake_dev *d;

	mutex_lock(&fake_lock);
	d = fake_dev_get(dev);
	mutex_unlock(&fake_lock);
	return d ? &d->hd : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_fake_hook_dev);
#endif

/* ---- debugfs control ----------------------------------------------------- */

static struct dentry *fake_dir;
static DEFINE_MUTEX(fake_ctl_lock);
static long fake_ctl_result;

static ssize_t fake_ctl_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[128], cmd[16];
	u32 a[6] = {};
	long ret;
	int n;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	n = sscanf(buf, "%15s %u %u %u %u %u %u", cmd, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]);
	if (n < 2)
		return -EINVAL;
	if (!strcmp(cmd, "add") && n == 4)
		ret = nprof_fake_add(a[0], a[1], a[2]);
	else if (!strcmp(cmd, "remove") && n == 2)
		ret = nprof_fake_remove(a[0]);
	else if (!strcmp(cmd, "program") && n == 7)
		ret = nprof_fake_program(a[0], a[1], a[2], a[3], a[4], a[5]);
	else if (!strcmp(cmd, "halt") && n == 3)
		ret = nprof_fake_halt(a[0], a[1]);
	else if (!strcmp(cmd, "reset") && n == 3)
		ret = nprof_fake_reset_core(a[0], a[1]);
	else if (!strcmp(cmd, "produce") && n == 4)
		ret = nprof_fake_produce(a[0], a[1], a[2]);
	else if (!strcmp(cmd, "consume") && n == 4)
		ret = nprof_fake_consume(a[0], a[1], a[2], true);
	else if (!strcmp(cmd, "skip") && n == 4)
		ret = nprof_fake_consume(a[0], a[1], a[2], false);
	else
		return -EINVAL;
	mutex_lock(&fake_ctl_lock);
	fake_ctl_result = ret;
	mutex_unlock(&fake_ctl_lock);
	return ret < 0 ? ret : len;
}

static ssize_t fake_ctl_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[24];
	int n;

	mutex_lock(&fake_ctl_lock);
	n = scnprintf(buf, sizeof(buf), "%ld\n", fake_ctl_result);
	mutex_unlock(&fake_ctl_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations fake_ctl_fops = {
	.owner = THIS_MODULE,
	.write = fake_ctl_write,
	.read = fake_ctl_read,
	.llseek = default_llseek,
};

static int __init fake_init(void)
{
	if (!is_power_of_2(entry_size) || entry_size < 32 || entry_size > 256 || head_mode > 2) {
		pr_err("entry_size must be a power of two from 32 to 256 and head_mode 0 to 2\n");
		return -EINVAL;
	}
	fake_dir = debugfs_create_dir("neuronprof_fake_neuron", NULL);
	debugfs_create_file("ctl", 0600, fake_dir, NULL, &fake_ctl_fops);
	add_taint(TAINT_TEST, LOCKDEP_STILL_OK);
	return 0;
}

static void __exit fake_exit(void)
{
	int i;

	debugfs_remove_recursive(fake_dir);
	for (i = 0; i < NPROF_FAKE_MAX_DEVICES; i++)
		nprof_fake_remove(i);
}

module_init(fake_init);
module_exit(fake_exit);

MODULE_DESCRIPTION("neuronprof: a fake neuron.ko with the hook, for tests");
MODULE_LICENSE("GPL");
