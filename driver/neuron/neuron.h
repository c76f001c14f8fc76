/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuronprof_neuron: the provider for the devices the vendor's neuron.ko
 * drives, through the hook of driver/neuron/vendor/ (neuron_nq_hook.h).
 * Internals shared with its KUnit suite.
 */
#ifndef _NEURONPROF_NEURON_H_
#define _NEURONPROF_NEURON_H_

#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "neuronprof_provider.h"
#include "neuron_nq_hook.h"

struct platform_device;
struct srcu_struct;
struct task_struct;

/* Vendor queue types (NQ_TYPE_* of the vendor's neuron_driver_shared.h). */
#define NPROF_NN_NQ_TYPES		6
#define NPROF_NN_NQ_TYPE_TRACE_DMA	4
/* Register sets per notification block: 6 types x 16 instances. */
#define NPROF_NN_REGS_PER_BLOCK		96

/* How a head register counts (the head_mode parameter); not public. */
enum nprof_nn_head_mode {
	NPROF_NN_HEAD_RING_ENTRIES,	/* entry index within the ring */
	NPROF_NN_HEAD_RING_BYTES,	/* byte offset within the ring */
	NPROF_NN_HEAD_COUNTER_ENTRIES,	/* free-running 32-bit entry counter */
};

/**
 * struct nprof_nn_arch - per-architecture facts the provider needs.
 * @name: "v2" or "v3" (the vendor's NEURON_ARCH_V2/_V3).
 * @vendor_arch: the vendor's enum neuron_arch value.
 * @raw_format: NEURONPROF_RAW_FORMAT_* of its entries.
 * @engines_per_core: engines of a NeuronCore (V2_TPB_ENG_PER_NC: 5).
 * @entry_size: bytes of one queue entry. UNVERIFIED: not public; a module
 *	parameter (entry_size_v2/_v3), a power of two from 32 to 256.
 * @head_mode: what the head register counts. UNVERIFIED: not public; a
 *	module parameter (head_mode_v2/_v3).
 *
 * The rest is what ``neuronprof calibrate`` measures (UNVERIFIED, module
 * parameters ``*_v2``/``*_v3``; Documentation/hardware.rst):
 * @type_entry_size: bytes of an entry per vendor queue type, 0 for
 *	@entry_size.
 * @head_lag: bytes the head lags the consumed position (the 2.1.5
 *	runtime's 256; one entry for a head that names the last entry read).
 * @phase_bit: 0, or the head bit the runtime flips on a wrap (not a position).
 * @head_sets: 0: a head write is for the queue last programmed in the
 *	register set written; 1: for the queue of type set / 16 and engine
 *	set % 16 (the vendor decoder's reading).
 * @reprogram: 0: a queue programmed in new memory is written from where its
 *	head register points then; 1: from @reset_head, the head register's
 *	value after a reset.
 * @reset_head: see @reprogram.
 * @head_read: what a read of the head register returns: 1 the last head
 *	the runtime wrote (NPROF_NN_HEAD_READ_LAST), the baseline of a queue
 *	found programmed already (else its first head write sets it); 0
 *	something else; 2 one value whatever was written
 *	(NPROF_NN_HEAD_READ_FIXED): the read says nothing, and a queue
 *	programmed in new memory with @reprogram 0 starts where the last head
 *	written to its register set since the last core reset points (the
 *	provider follows them), or at @reset_head.
 */
struct nprof_nn_arch {
	const char *name;
	u32 vendor_arch;
	u32 raw_format;
	u32 engines_per_core;
	u32 entry_size;
	u32 head_mode;
	u32 type_entry_size[6];
	u32 head_lag;
	u32 phase_bit;
	u32 head_sets;
	u32 reprogram;
	u32 reset_head;
	u32 head_read;
};

/* nprof_nn_arch.head_read: a read returns the last head written; one value. */
#define NPROF_NN_HEAD_READ_LAST		1
#define NPROF_NN_HEAD_READ_FIXED	2

/* Vendor queue types with an entry size parameter each (type_entry_size_*). */
static_assert(NPROF_NN_NQ_TYPES == 6);

/* Largest entry_size_v2/_v3 (a device entry is at most 8 raw entries). */
#define NPROF_NN_ENTRY_SIZE_MAX		256

/* nprof_nn_consumed(): not a head in this mode; a re-program to resync on. */
#define NPROF_NN_BAD_HEAD		U64_MAX
#define NPROF_NN_RESYNC			(U64_MAX - 1)

/**
 * struct nprof_nn_queue - one queue the vendor driver programmed.
 * @lock: protects every member but @qid and @q's identity for the
 *	provider's key, and serialises copies with halts: a halted queue's
 *	memory is never read. Taken after nprof_nn_device.lock.
 * @qid: the hook's address of it (@qid.reg and @qid.sdma find head writes).
 * @q: the neuronprof queue it is.
 * @va: kernel address of its ring (host memory), NULL when halted or in
 *	device memory.
 * @io: its ring in device memory through the vendor's BAR4 mapping, NULL
 *	when halted or in host memory.
 * @bounce: for a ring in device memory: what one round of a head write
 *	copies, read from @io first (NPROF_NN_SPAN raw entries' bytes, 16 KiB;
 *	kmalloc(): physically contiguous, as the vendor's DMA copy needs).
 * @unreadable: why the ring cannot be read, or NULL when it can (host
 *	memory through its kernel address, device memory through BAR4); a
 *	subscription to one that cannot is refused, naming this.
 * @size: bytes of the ring.
 * @es: bytes of its entries (its type's).
 * @head: position of the last head the runtime wrote (head_mode units,
 *	phase bit cleared, lag added); when programmed in new memory, where
 *	the device starts (the baseline, a calibrated fact: the head register
 *	then, or its value after a reset).
 * @synced: @head is known: the queue was programmed in new memory, or a
 *	head was written since the provider learnt of it.
 * @written: the last head value written to its register set since the
 *	last core reset, while it was the set's queue the device writes
 *	(from the set's previous queue when programmed there in new memory);
 *	valid if @written_ok. Where the device writes a queue programmed
 *	again without a reset when a head read says nothing (head_read 2).
 * @written_ok: see @written.
 * @captured: device entries captured since the subscription (the raw
 *	entries' iteration).
 */
struct nprof_nn_queue {
	struct mutex lock;	/* see above */
	struct neuron_nq_hook_qid qid;
	struct nprof_queue_id q;
	void *va;
	void __iomem *io;
	u8 *bounce;
	const char *unreadable;
	u32 size;
	u32 es;
	u32 head;
	bool synced;
	u32 written;
	bool written_ok;
	u64 captured;
};

/**
 * struct nprof_nn_device - one device of neuron.ko, announced to the core.
 * @node: in the provider's device list.
 * @hd: the hook's device; valid until device_removed.
 * @arch: its architecture, as the parameters were when it was added.
 * @pdev: our child device of the PCI device, the parent of the DRM device.
 * @ndev: the neuronprof device.
 * @desc: what was announced.
 * @lock: see below.
 * @queues: programmed queues by nprof_nn_key() of their hook address; a
 *	queue is freed only with the device.
 * @subscribed: the core's handle (nprof_queue_handle()) of each neuronprof
 *	queue with a subscriber, by nprof_nn_slot().
 * @live: per register set (nprof_nn_key()), the queue last programmed in
 *	new memory there: the one the device writes. Queues of different
 *	types share a set (nnq_set_hwaddr_v2/_v3 write set = engine index).
 * @walker: the task walking the device's queue table at an announcement
 *	by the probe (queues found then were programmed before it), or NULL.
 */
struct nprof_nn_device {
	struct list_head node;
	const struct neuron_nq_hook_dev *hd;
	struct nprof_nn_arch arch;
	struct platform_device *pdev;
	struct nprof_drmdev *ndev;
	struct nprof_device_desc desc;
	/*
	 * Serialises changes to @queues, @subscribed and @ndev; head writes
	 * read them without it (xa_load() is RCU-safe; @ndev is set before
	 * the device is published and stays until it is unlisted).
	 */
	struct mutex lock;
	struct xarray queues;
	struct xarray subscribed;
	struct xarray live;
	struct task_struct *walker;
};

/*
 * Most ring entries the provider builds per nprof_notify_begin(), that is
 * with one subscription's lock held and interrupts off: 32 KiB of entries.
 */
#define NPROF_NN_SPAN			512

/*
 * The provider's devices (provider.c): listed and unlisted under
 * nprof_nn_lock; head writes find theirs under nprof_nn_srcu (head_write.c).
 */
extern struct list_head nprof_nn_devices;
extern struct srcu_struct nprof_nn_srcu;

/* Key of a hook queue address: target, id, block (main or SDMA engine), register. */
static inline unsigned long nprof_nn_key(const struct neuron_nq_hook_qid *qid)
{
	unsigned long block = qid->sdma ? 1 + qid->instance : 0;

	return (((unsigned long)qid->target * 256 + qid->id) * 17 + block) * 256 + qid->reg;
}

/*
 * Key of a queue in nprof_nn_device.queues: target, id, vendor type and
 * instance (engine index, or SDMA engine), so that queues the driver puts
 * in one register set are kept apart.
 */
static inline unsigned long nprof_nn_ident(const struct neuron_nq_hook_qid *qid)
{
	return (((unsigned long)qid->target * 256 + qid->id) * 8 + qid->nq_type) * 256 +
	       qid->instance;
}

/*
 * The queue a head write of @qid is for (Context: nprof_nn_lock
 * held, or nprof_nn_srcu read-held):
 * head_sets 1, the queue its set decodes to; else the queue last
 * programmed in new memory in that set, which the device writes.
 */
static inline struct nprof_nn_queue *
nprof_nn_lookup(struct nprof_nn_device *dev, const struct neuron_nq_hook_qid *qid)
{
	if (dev->arch.head_sets)
		return xa_load(&dev->queues, nprof_nn_ident(qid));
	return xa_load(&dev->live, nprof_nn_key(qid));
}

/* Key of a neuronprof queue in nprof_nn_device.subscribed. */
static inline unsigned long nprof_nn_slot(const struct nprof_queue_id *q)
{
	return (((unsigned long)q->kind * 256 + q->index) * NEURONPROF_QT_MAX + q->type) *
	       NEURONPROF_MAX_INSTANCES + q->engine;
}

/* The core's handle of @q (nprof_queue_handle()) while somebody subscribed it, else NULL. */
static inline struct nprof_queue *nprof_nn_subscription(struct nprof_nn_device *dev,
							const struct nprof_queue_id *q)
{
	return xa_load(&dev->subscribed, nprof_nn_slot(q));
}

/*
 * Head values: what a value the runtime writes to a head register means,
 * given the calibrated facts: the ring position it stands for
 * (nprof_nn_head_pos()) and the entries consumed since the previous one
 * (nprof_nn_consumed()). Inline: every head write runs both.
 */

/*
 * The ring position a head value stands for: phase bit cleared, lag added.
 * Entry and ring sizes are powers of two (nprof_nn_entry_size_valid(), and
 * the provider captures no other ring): this runs on every head write, so
 * it shifts and masks where a division would cost more than the rest.
 */
static inline u32 nprof_nn_head_pos(const struct nprof_nn_arch *arch, u32 es, u32 size,
				    u32 head)
{
	const u32 shift = ilog2(es), n = size >> shift;

	if (arch->phase_bit)
		head &= ~BIT(arch->phase_bit);
	if (!arch->head_lag)
		return head;
	switch (arch->head_mode) {
	case NPROF_NN_HEAD_RING_BYTES:
		return head < size ? (head + arch->head_lag) & (size - 1) : head;
	case NPROF_NN_HEAD_RING_ENTRIES:
		return head < n ? (head + (arch->head_lag >> shift)) & (n - 1) : head;
	default:
		return head + (arch->head_lag >> shift);
	}
}

/**
 * nprof_nn_consumed() - entries the runtime consumed with one head write.
 * @arch: the architecture (its head_mode).
 * @es: bytes of the queue's entries (its type's), a power of two.
 * @size: bytes of the ring.
 * @old_head: the previous head value (0 right after programming).
 * @new_head: the written one.
 * @first: out, ring index of the first consumed entry.
 *
 * A free-running counter that moves backwards cannot be told from a
 * re-program the hook did not see: that is NPROF_NN_RESYNC, never a count
 * of lost entries (a backwards step would otherwise look like nearly 2^32
 * of them).
 *
 * Return: consumed entries, more than the ring holds only with a counter
 * (the runtime skipped head writes; less than 2^31); NPROF_NN_RESYNC; or
 * NPROF_NN_BAD_HEAD for a head value that cannot be one in this mode (out
 * of the ring, misaligned).
 */
static inline u64 nprof_nn_consumed(const struct nprof_nn_arch *arch, u32 es, u32 size,
				    u32 old_head, u32 new_head, u32 *first)
{
	/* Powers of two, as in nprof_nn_head_pos(). */
	const u32 shift = ilog2(es), n = size >> shift;
	u32 d;

	switch (arch->head_mode) {
	case NPROF_NN_HEAD_RING_BYTES:
		if (new_head >= size || (new_head & (es - 1)))
			return NPROF_NN_BAD_HEAD;
		old_head >>= shift;
		new_head >>= shift;
		fallthrough;
	case NPROF_NN_HEAD_RING_ENTRIES:
		if (new_head >= n)
			return NPROF_NN_BAD_HEAD;
		*first = old_head & (n - 1);
		return (new_head - *first) & (n - 1);
	default:
		d = new_head - old_head;
		if ((s32)d < 0)
			return NPROF_NN_RESYNC;
		*first = old_head & (n - 1);
		return d;
	}
}

extern const struct neuron_nq_hook_ops nprof_nn_hook_ops;

extern const struct kernel_param_ops nprof_nn_entry_size_ops;
extern const struct kernel_param_ops nprof_nn_head_mode_ops;

bool nprof_nn_entry_size_valid(u32 v);

/* The calibration mode (calibrate.c). */
void nprof_nn_cal_init(void);
void nprof_nn_cal_exit(void);
void nprof_nn_cal_device(const struct neuron_nq_hook_dev *hd);
void nprof_nn_cal_programmed(const struct neuron_nq_hook_dev *hd,
			     const struct neuron_nq_hook_queue *hq);
void nprof_nn_cal_halted(const struct neuron_nq_hook_dev *hd,
			 const struct neuron_nq_hook_queue *hq);
void nprof_nn_cal_log_head(const struct neuron_nq_hook_dev *hd,
			   const struct neuron_nq_hook_qid *qid, u32 head);
extern bool nprof_nn_cal_on;

/*
 * A head write, for the calibration log when the mode is on: every head
 * write runs the check, so it is inline (one load, no call).
 */
static inline void nprof_nn_cal_head(const struct neuron_nq_hook_dev *hd,
				     const struct neuron_nq_hook_qid *qid, u32 head)
{
	if (READ_ONCE(nprof_nn_cal_on))
		nprof_nn_cal_log_head(hd, qid, head);
}

void nprof_nn_cal_reset(const struct neuron_nq_hook_dev *hd, u32 nc_id);
#if IS_ENABLED(CONFIG_KUNIT)
bool nprof_nn_cal_holds(u32 device_index, const void *va);
#endif
bool nprof_nn_arch_of(u32 vendor_arch, struct nprof_nn_arch *arch);
bool nprof_nn_map_queue(const struct nprof_nn_device *dev,
			const struct neuron_nq_hook_qid *qid, struct nprof_queue_id *q);
void nprof_nn_head_write(const struct neuron_nq_hook_dev *hd,
			 const struct neuron_nq_hook_qid *qid, u32 head);
struct nprof_nn_device *nprof_nn_find(const struct neuron_nq_hook_dev *hd);
/* How a head write reads a ring in device memory (devmem_read). */
enum nprof_nn_devmem_read {
	NPROF_NN_DEVMEM_FROMIO,		/* memcpy_fromio() through BAR4 */
	NPROF_NN_DEVMEM_DMA,		/* the vendor's DMA copy, neuron_nq_hook_dma_read() */
};

extern int nprof_nn_devmem_read;
typedef int (*nprof_nn_dma_read_t)(const struct neuron_nq_hook_dev *d,
				   const struct neuron_nq_hook_qid *qid, const void __iomem *io,
				   u32 off, void *buf, u32 len);
extern nprof_nn_dma_read_t nprof_nn_dma_read;
#if IS_ENABLED(CONFIG_KUNIT)
typedef void (*nprof_nn_io_read_t)(void *dst, const void __iomem *src, size_t len);
extern nprof_nn_io_read_t nprof_nn_io_read;
struct nprof_drmdev *nprof_nn_ndev(u32 device_index);
int nprof_nn_set_format(u32 entry_size, u32 head_mode);
int nprof_nn_set_head_read(u32 head_read, u32 reprogram, u32 reset_head);
struct mutex *nprof_nn_queue_lock(const struct neuron_nq_hook_dev *hd,
				  const struct neuron_nq_hook_qid *qid);
#endif

#endif /* _NEURONPROF_NEURON_H_ */
