/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Notification queue hook: lets one other module (a profiler) observe the
 * notification queues this driver programs and the head-register writes the
 * runtime makes through NEURON_IOCTL_BAR_WRITE. Nothing changes in what the
 * driver does when no hook is registered: every call site costs one pointer
 * load.
 *
 * This header is the whole contract: it names no type of the driver, so a
 * module built out of tree can carry a copy of it.
 */
#ifndef NEURON_NQ_HOOK_H
#define NEURON_NQ_HOOK_H

#include <linux/types.h>

struct device;

/* Version of this contract; neuron_nq_hook_register() refuses another one. */
#define NEURON_NQ_HOOK_VERSION		6

/* Target of a queue (struct neuron_nq_hook_qid.target). */
#define NEURON_NQ_HOOK_NC		0	/* a NeuronCore */
#define NEURON_NQ_HOOK_TOPSP		1	/* a TopSP */

/**
 * struct neuron_nq_hook_dev - one device of the driver.
 * @dev: its PCI device.
 * @device_index: N of /dev/neuronN.
 * @arch: the driver's enum neuron_arch (2: v2, inf2/trn1; 3: v3, trn2).
 * @pci_device: PCI device id.
 * @nc_count: NeuronCores per device (ndhal_address_map.nc_per_device).
 * @nc_map: bit n set when NeuronCore n is usable (dev_nc_map).
 * @ts_count: TopSPs per device (ndhal_address_map.ts_per_device).
 */
struct neuron_nq_hook_dev {
	struct device *dev;
	u32 device_index;
	u32 arch;
	u32 pci_device;
	u32 nc_count;
	u32 nc_map;
	u32 ts_count;
};

/**
 * struct neuron_nq_hook_qid - which queue.
 * @target: NEURON_NQ_HOOK_NC or NEURON_NQ_HOOK_TOPSP.
 * @id: NeuronCore or TopSP index.
 * @nq_type: the driver's NQ_TYPE_* (TRACE 0, NOTIFY 1, EVENT 2, ERROR 3,
 *	TRACE_DMA 4, THROTTLE 5): as asked for when programmed; on a head
 *	write, as neuron_nq_hook_decode_v2/_v3 decode it (register set i of a
 *	NeuronCore or TopSP block is type i / 16; a head in an SDMA block is
 *	TRACE_DMA).
 * @instance: engine index as asked for when programmed; for TRACE_DMA the
 *	SDMA engine whose block holds the queue; on a head write, i % 16, or
 *	the SDMA engine.
 * @sdma: the register set lives in SDMA engine @instance's block.
 * @reg: index of the 0x28-byte register set within its block, the one the
 *	driver writes base and size to (nnq_set_hwaddr_v2/_v3 write set
 *	"index", the engine index, and set 0 of an SDMA block): what a head
 *	write and a programmed queue have in common.
 *
 * Head writes are decoded from the offsets the driver programs queues at
 * (notific_get_relative_offset_*_v2/_v3(), the register set at 0x100 +
 * 0x28 * i, its head at +0x0c): NeuronCore, TopSP and SDMA blocks, v2 and
 * v3. Contract version 1 used notific_decode_nq_head_reg_access_v2/_v3,
 * which never decodes a TRACE_DMA head.
 */
struct neuron_nq_hook_qid {
	u8 target;
	u8 id;
	u8 nq_type;
	u8 instance;
	u8 sdma;
	u8 reg;
	u16 pad;
};

/**
 * struct neuron_nq_hook_queue - a queue the driver programmed or halts.
 * @qid: which queue.
 * @on_host: the ring is in host memory (else in device memory).
 * @size: bytes of the ring, a power of two.
 * @va: kernel address of a host-memory ring, NULL for device memory.
 * @fresh: queue_programmed: 1 when the driver has just written base and
 *	size for new memory (nothing consumed yet); 0 when an existing queue
 *	is handed to the runtime again, its head wherever the runtime left
 *	it. queue_halted: 1 when the queue's NeuronCore is reset, or the
 *	device removed (nnq_destroy_nc(): the device resets the core's
 *	register sets, heads included), announced for each queue the core
 *	has (its NeuronCore, SDMA and TopSP queues) after the queue's
 *	ordinary halt; 0 for any other halt (reallocation, the memory freed).
 * @pad: 0.
 * @io: a device-memory ring as the driver maps device memory, through BAR4
 *	(read it with memcpy_fromio()); NULL for host memory or a ring BAR4
 *	does not cover.
 * @head: the queue's head register as the driver's register read
 *	returns it when the queue is programmed (0 when halted): where the
 *	device starts writing a fresh queue, the baseline of its consumption.
 */
struct neuron_nq_hook_queue {
	struct neuron_nq_hook_qid qid;
	u32 on_host;
	u32 size;
	void *va;
	u32 fresh;
	u32 head;
	void __iomem *io;
};

/**
 * struct neuron_nq_hook_ops - the callbacks of the registered module.
 *
 * Every callback is made in process context without a driver spinlock held
 * and may sleep. device_added and device_removed are serialised with each
 * other and with registration; the queue callbacks run under SRCU and may
 * run concurrently for different queues.
 *
 * @version: NEURON_NQ_HOOK_VERSION.
 * @device_added: a device is probed, before its device node exists and so
 *	before any of its queues can be programmed (or it existed at
 *	registration).
 * @device_removed: a device is being removed; its queues were halted first.
 *	After it returns @d is gone.
 * @queue_programmed: the driver wrote base and size of a queue, or handed an
 *	existing queue to the runtime again (NOTIFICATIONS_INIT without
 *	reallocation).
 * @queue_halted: the driver stops a queue or is about to free its memory,
 *	on every path: queue reallocation, core reset, device removal, and
 *	any other free of the memory (NEURON_IOCTL_MEM_FREE of the handle
 *	NOTIFICATIONS_INIT returned, lifespan cleanup), which the driver
 *	reports from mc_free() before the memory goes. It may come more than
 *	once for the same memory. After it returns @q->va must not be touched.
 * @head_write: the runtime writes @head to a queue's head register; the
 *	write reaches the device after the callback returned.
 * @core_reset: NeuronCore @nc_id of @d is reset (nnq_destroy_nc(): NC_RESET,
 *	the device's reset, removal), whether or not it has queues: the
 *	device resets the register sets of the core's block, of its SDMA
 *	engines' blocks and of its TopSPs' (TopSP @nc_id * ts_count /
 *	nc_count and the ts_count / nc_count - 1 after it), heads included.
 *	Called once per core and reset, after the core's queues were
 *	announced halted (queue_halted, fresh 1), under the driver's memory
 *	lock: no queue of the device is programmed meanwhile.
 */
struct neuron_nq_hook_ops {
	u32 version;
	void (*device_added)(const struct neuron_nq_hook_dev *d);
	void (*device_removed)(const struct neuron_nq_hook_dev *d);
	void (*queue_programmed)(const struct neuron_nq_hook_dev *d,
				 const struct neuron_nq_hook_queue *q);
	void (*queue_halted)(const struct neuron_nq_hook_dev *d,
			     const struct neuron_nq_hook_queue *q);
	void (*head_write)(const struct neuron_nq_hook_dev *d,
			   const struct neuron_nq_hook_qid *qid, u32 head);
	void (*core_reset)(const struct neuron_nq_hook_dev *d, u32 nc_id);
};

/**
 * neuron_nq_hook_register() - register the one callback table.
 * @ops: the callbacks; must stay valid until unregistered.
 *
 * device_added is called for every existing device before this returns.
 *
 * Return: 0, -EINVAL for another @ops->version, -EBUSY if a table is
 * registered already.
 */
int neuron_nq_hook_register(const struct neuron_nq_hook_ops *ops);

/**
 * neuron_nq_hook_for_each_queue() - the queues a device already has.
 * @ops: the registered table, or the one being registered.
 * @d: the device, as device_added was given it.
 *
 * Calls @ops->queue_programmed for every queue the driver holds for @d
 * (NeuronCore and TopSP, host or device memory), as if handed out again
 * (@fresh 0, @head the head register's value now), under the driver's
 * memory lock: a queue whose memory is freed meanwhile is announced
 * halted after this returns. Queues programmed while it runs are reported
 * by the driver as usual, possibly also here. For a module that loads
 * after the runtime programmed its queues (a device announced by its
 * probe has none yet: it is announced before its device node exists).
 *
 * Context: only from @ops->device_added (registration holds the lock that
 * keeps @d).
 */
void neuron_nq_hook_for_each_queue(const struct neuron_nq_hook_ops *ops,
				   const struct neuron_nq_hook_dev *d);

/**
 * neuron_nq_hook_dma_read() - read a device-memory queue with the driver's
 *	DMA copy.
 * @d: the device, as the hook was given it.
 * @qid: the queue, as queue_programmed announced it.
 * @io: the queue's io, as queue_programmed announced it.
 * @off: byte offset in the ring.
 * @buf: where the bytes go: kernel memory that is physically contiguous
 *	and in the linear map (kmalloc(), not vmalloc()), as the driver's
 *	own DMA copy-outs use.
 * @len: bytes, at most the ring's size less @off (no wrap).
 *
 * Copies through the DMA engine the driver uses for the queue's
 * NeuronCore's host-device copies (ndma_memcpy_buf_from_mc()), and waits
 * for it, behind every copy queued on that engine before (model loads,
 * MEM_BUF_COPY, MEM_COPY), polling (udelay()). The alternative to reading
 * @io with memcpy_fromio().
 *
 * Context: process, may sleep; from a queue callback of the registered
 * table (head_write), for a queue announced by queue_programmed and not
 * yet by queue_halted, whose queue_halted the caller keeps from returning
 * meanwhile (it holds the lock its queue_halted takes). The driver's
 * memory lock is not taken here and must not be held by the caller:
 * mc_free() announces a halt under it.
 *
 * Return: 0; -EINVAL for bad arguments; -ENODEV when @d is gone; -ESTALE
 * when the driver holds no device-memory queue at @io for @qid; -EIO when
 * the engine's copy failed (timeout): the bytes in @buf are not the ring's.
 */
int neuron_nq_hook_dma_read(const struct neuron_nq_hook_dev *d,
			    const struct neuron_nq_hook_qid *qid, const void __iomem *io,
			    u32 off, void *buf, u32 len);

/**
 * neuron_nq_hook_unregister() - remove the callback table.
 * @ops: the table that was registered.
 *
 * When this returns no callback is running or will run.
 */
void neuron_nq_hook_unregister(const struct neuron_nq_hook_ops *ops);

#endif /* NEURON_NQ_HOOK_H */
