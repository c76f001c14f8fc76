/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuronprof_neuron: the provider for the devices the vendor's neuron.ko
 * drives, through the hook of driver/neuron/vendor/ (neuron_nq_hook.h).
 * Internals shared with its KUnit suite.
 */
#ifndef _NEURONPROF_NEURON_H_
#define _NEURONPROF_NEURON_H_

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "neuronprof_provider.h"
#include "neuron_nq_hook.h"

struct platform_device;

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
 *	parameter (entry_size_v2/_v3), a power of two from 16 to 256.
 * @head_mode: what the head register counts. UNVERIFIED: not public; a
 *	module parameter (head_mode_v2/_v3).
 */
struct nprof_nn_arch {
	const char *name;
	u32 vendor_arch;
	u32 raw_format;
	u32 engines_per_core;
	u32 entry_size;
	u32 head_mode;
};

/**
 * struct nprof_nn_queue - one queue the vendor driver programmed.
 * @qid: the hook's address of it (@qid.reg and @qid.sdma find head writes).
 * @q: the neuronprof queue it is.
 * @va: kernel address of its ring (host memory), NULL when halted or in
 *	device memory.
 * @size: bytes of the ring.
 * @head: last head value the runtime wrote (head_mode units), from 0 when
 *	programmed (UNVERIFIED: the register's reset value is not public).
 * @captured: device entries captured since the subscription (the raw
 *	entries' iteration).
 */
struct nprof_nn_queue {
	struct neuron_nq_hook_qid qid;
	struct nprof_queue_id q;
	void *va;
	u32 size;
	u32 head;
	u64 captured;
};

/**
 * struct nprof_nn_device - one device of neuron.ko, announced to the core.
 * @node: in the provider's device list.
 * @hd: the hook's device; valid until device_removed.
 * @arch: its architecture.
 * @pdev: our child device of the PCI device, the parent of the DRM device.
 * @ndev: the neuronprof device.
 * @desc: what was announced.
 * @lock: see below.
 * @queues: programmed queues by nprof_nn_key() of their hook address.
 * @subscribed: neuronprof queue slots with a subscriber, by nprof_nn_slot().
 * @scratch: ring entries built for one copy.
 */
struct nprof_nn_device {
	struct list_head node;
	const struct neuron_nq_hook_dev *hd;
	const struct nprof_nn_arch *arch;
	struct platform_device *pdev;
	struct nprof_device *ndev;
	struct nprof_device_desc desc;
	/*
	 * Protects @queues, @subscribed, every queue's state and @scratch, and
	 * serialises copies with halts: a halted queue's memory is never read.
	 */
	struct mutex lock;
	struct xarray queues;
	struct xarray subscribed;
	struct neuronprof_notification *scratch;
};

/* Ring entries the provider builds per nprof_notify_begin(). */
#define NPROF_NN_SCRATCH		64

extern const struct neuron_nq_hook_ops nprof_nn_hook_ops;

const struct nprof_nn_arch *nprof_nn_arch_of(u32 vendor_arch);
bool nprof_nn_map_queue(const struct nprof_nn_device *dev,
			const struct neuron_nq_hook_qid *qid, struct nprof_queue_id *q);
u64 nprof_nn_consumed(const struct nprof_nn_arch *arch, u32 size, u32 old_head,
		      u32 new_head, u32 *first);
struct nprof_nn_device *nprof_nn_find(const struct neuron_nq_hook_dev *hd);
#if IS_ENABLED(CONFIG_KUNIT)
struct nprof_device *nprof_nn_ndev(u32 device_index);
void nprof_nn_set_format(u32 entry_size, u32 head_mode);
#endif

#endif /* _NEURONPROF_NEURON_H_ */
