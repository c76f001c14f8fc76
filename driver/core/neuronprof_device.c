// SPDX-License-Identifier: GPL-2.0
/*
 * neuronprof core: the provider API (devices allocated, published,
 * unregistered) and the checks of what a provider announces.
 */

/**
 * DOC: provider API
 *
 * A provider describes a device (struct nprof_device_desc) and its callbacks
 * (struct nprof_hw_ops) to nprof_device_alloc(), which checks the
 * description (nprof_desc_validate(): topology, queue types, ring limits,
 * capabilities against the callbacks, and the table naming the codes of its
 * entries, which NEURONPROF_INFO_CODE_NAMES returns) and creates an invisible DRM device;
 * nprof_device_publish() makes it visible, nprof_device_unregister() unplugs
 * it and marks every live subscription dead, nprof_device_free() drops one
 * that was never published. SIM_EXEC arguments are checked here too
 * (nprof_sim_exec_validate()), before any provider sees them.
 */

#include <linux/bits.h>
#include <linux/ctype.h>
#include <linux/compat.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/file.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <kunit/visibility.h>

#include "neuronprof_core.h"

/* Queue types that exist on a NeuronCore, and on a TopSP. */
#define NPROF_CORE_TYPES_ALL	(GENMASK(NEURONPROF_QT_THROTTLE, NEURONPROF_QT_TRACE) | \
				 BIT(NEURONPROF_QT_NOTIFY))
#define NPROF_TOPSP_TYPES_ALL	(GENMASK(NEURONPROF_QT_TOPSP_ERROR, NEURONPROF_QT_TOPSP_TRACE) | \
				 GENMASK(NEURONPROF_QT_TOPSP_THROTTLE, NEURONPROF_QT_TOPSP_NOTIFY))
#define NPROF_CAPS_ALL		(NEURONPROF_CAP_SIM_EXEC | NEURONPROF_CAP_FLUSH | \
				 NEURONPROF_CAP_RAW | NEURONPROF_CAP_RAW_PACKED)
#define NPROF_RAW_CAPS		(NEURONPROF_CAP_RAW | NEURONPROF_CAP_RAW_PACKED)
#define NPROF_SIM_EXEC_FLAGS	(NEURONPROF_SIM_EXEC_ERROR | NEURONPROF_SIM_EXEC_THROTTLE)

/* device_index of each registered device. */
static DEFINE_IDA(nprof_ida);

static bool nprof_pow2(u64 v)
{
	return v && !(v & (v - 1));
}

/* A name of the table: 1 to NEURONPROF_CODE_NAME_LEN - 1 of [a-z0-9_.], NUL-padded. */
static bool nprof_code_name_valid(const char *name)
{
	size_t len = strnlen(name, NEURONPROF_CODE_NAME_LEN), i;

	if (!len || len == NEURONPROF_CODE_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!(islower(name[i]) || isdigit(name[i]) || name[i] == '_' || name[i] == '.'))
			return false;
	for (; i < NEURONPROF_CODE_NAME_LEN; i++)
		if (name[i])
			return false;
	return true;
}

/* The name table of a description (see struct nprof_device_desc). */
static int nprof_code_names_validate(const struct nprof_device_desc *desc,
				     const char **why)
{
	const u32 types = desc->core_queue_types | desc->topsp_queue_types;
	const struct neuronprof_code_name *prev = NULL, *c;
	u32 i;

	if (!desc->code_names != !desc->num_code_names) {
		*why = "code_names and num_code_names must be given together";
		return -EINVAL;
	}
	if (desc->num_code_names > NEURONPROF_MAX_CODE_NAMES) {
		*why = "more than NEURONPROF_MAX_CODE_NAMES code names";
		return -EINVAL;
	}
	if (desc->num_code_names && (desc->caps & NPROF_RAW_CAPS)) {
		*why = "a device of raw entries names no codes";
		return -EINVAL;
	}
	for (i = 0; i < desc->num_code_names; i++, prev = c) {
		c = &desc->code_names[i];
		if (c->queue_type >= NEURONPROF_QT_MAX || !(types & BIT(c->queue_type))) {
			*why = "a code name of a queue type the device does not have";
			return -EINVAL;
		}
		if (prev && (c->queue_type < prev->queue_type ||
			     (c->queue_type == prev->queue_type && c->code <= prev->code))) {
			*why = "code names must be sorted by (queue_type, code), each pair once";
			return -EINVAL;
		}
		if (!nprof_code_name_valid(c->name)) {
			*why = "a code name must be 1 to 23 characters of [a-z0-9_.], NUL-padded";
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * nprof_desc_validate() - check what a provider announces.
 * @desc: the description.
 * @ops: the callbacks.
 * @why: out, what is wrong.
 *
 * Return: 0 or -EINVAL.
 */
VISIBLE_IF_KUNIT int nprof_desc_validate(const struct nprof_device_desc *desc,
					 const struct nprof_hw_ops *ops,
					 const char **why)
{
	const size_t max = sizeof_field(struct nprof_drmdev, provider);
	size_t len;

	if (!desc || !ops) {
		*why = "no description or no ops";
		return -EINVAL;
	}
	len = desc->provider ? strnlen(desc->provider, max) : 0;
	if (!len || len >= max) {
		*why = "provider name must have 1 to 15 characters";
		return -EINVAL;
	}
	if (desc->arch < NEURONPROF_ARCH_TRN1 || desc->arch > NEURONPROF_ARCH_TRN2) {
		*why = "unknown architecture";
		return -EINVAL;
	}
	if (!desc->num_cores || desc->num_cores > NPROF_MAX_CORES) {
		*why = "num_cores must be 1 to 256";
		return -EINVAL;
	}
	if (desc->num_topsps > NPROF_MAX_TOPSPS || desc->num_topsps % desc->num_cores) {
		*why = "num_topsps must be 0 to 256 and a multiple of num_cores";
		return -EINVAL;
	}
	if (!desc->engines_per_core || desc->engines_per_core > NEURONPROF_MAX_ENGINES) {
		*why = "engines_per_core must be 1 to NEURONPROF_MAX_ENGINES";
		return -EINVAL;
	}
	if (desc->core_queue_types & ~NPROF_CORE_TYPES_ALL ||
	    desc->topsp_queue_types & ~NPROF_TOPSP_TYPES_ALL) {
		*why = "a queue type announced for a target kind that cannot have it";
		return -EINVAL;
	}
	if (desc->queue_instances > NEURONPROF_MAX_INSTANCES) {
		*why = "queue_instances must be 0 (engines_per_core) to NEURONPROF_MAX_INSTANCES";
		return -EINVAL;
	}
	if (desc->clock_domain > NEURONPROF_CLOCK_CAPTURED) {
		*why = "unknown clock domain";
		return -EINVAL;
	}
	if (!(desc->caps & NPROF_RAW_CAPS) != !desc->raw_format ||
	    (desc->caps & NPROF_RAW_CAPS) == NPROF_RAW_CAPS ||
	    desc->raw_format > NEURONPROF_RAW_FORMAT_NEURON_V3) {
		*why = "NEURONPROF_CAP_RAW or _RAW_PACKED must come exactly with a raw_format";
		return -EINVAL;
	}
	if (desc->per_engine_queue_types & ~desc->core_queue_types) {
		*why = "per_engine_queue_types must be NeuronCore queue types of the device";
		return -EINVAL;
	}
	if (!nprof_pow2(desc->min_ring_size) || desc->min_ring_size < PAGE_SIZE) {
		*why = "min_ring_size must be a power of two of at least PAGE_SIZE";
		return -EINVAL;
	}
	if (!nprof_pow2(desc->max_ring_size) || desc->max_ring_size < desc->min_ring_size ||
	    desc->max_ring_size > NPROF_RING_SIZE_LIMIT) {
		*why = "max_ring_size must be a power of two from min_ring_size to 1 GiB";
		return -EINVAL;
	}
	if (desc->caps & ~NPROF_CAPS_ALL) {
		*why = "unknown capability bits";
		return -EINVAL;
	}
	if (nprof_code_names_validate(desc, why))
		return -EINVAL;
	if (!ops->queue_start || !ops->queue_stop) {
		*why = "queue_start and queue_stop are mandatory";
		return -EINVAL;
	}
	if (!(desc->caps & NEURONPROF_CAP_FLUSH) != !ops->flush) {
		*why = "NEURONPROF_CAP_FLUSH must be set exactly when there is a flush op";
		return -EINVAL;
	}
	if (!(desc->caps & NEURONPROF_CAP_SIM_EXEC) != !ops->sim_exec) {
		*why = "NEURONPROF_CAP_SIM_EXEC must be set exactly when there is a sim_exec op";
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_desc_validate);

/**
 * nprof_sim_exec_validate() - check SIM_EXEC arguments against a device.
 * @desc: the device.
 * @args: the arguments; the out members are not looked at.
 * @why: out, what is wrong.
 *
 * The notification bound is conservative: per iteration, every instruction
 * and DMA transfer counts one, every engine with instructions
 * NPROF_SIM_PER_ENGINE_FIXED, the core NPROF_SIM_PER_CORE_FIXED and every
 * TopSP serving it NPROF_SIM_PER_TOPSP_FIXED.
 *
 * Return: 0 or -EINVAL.
 */
int nprof_sim_exec_validate(const struct nprof_device_desc *desc,
			    const struct drm_neuronprof_sim_exec *args,
			    const char **why)
{
	u64 per_iteration;
	u32 e;

	if (args->core >= desc->num_cores) {
		*why = "core out of range";
		return -EINVAL;
	}
	if (args->flags & ~NPROF_SIM_EXEC_FLAGS) {
		*why = "unknown flags";
		return -EINVAL;
	}
	if (!args->iterations || args->iterations > NEURONPROF_SIM_MAX_ITERATIONS) {
		*why = "iterations must be 1 to NEURONPROF_SIM_MAX_ITERATIONS";
		return -EINVAL;
	}
	if (args->dma_transfers > NEURONPROF_SIM_MAX_DMA) {
		*why = "dma_transfers above NEURONPROF_SIM_MAX_DMA";
		return -EINVAL;
	}
	if (args->reserved[0] || args->reserved[1]) {
		*why = "reserved must be 0";
		return -EINVAL;
	}

	per_iteration = args->dma_transfers + NPROF_SIM_PER_CORE_FIXED +
			(u64)NPROF_SIM_PER_TOPSP_FIXED * (desc->num_topsps / desc->num_cores);
	for (e = 0; e < NEURONPROF_MAX_ENGINES; e++) {
		if (!args->instructions[e])
			continue;
		if (e >= desc->engines_per_core) {
			*why = "instructions for an engine the core does not have";
			return -EINVAL;
		}
		if (args->instructions[e] > NEURONPROF_SIM_MAX_INSTRUCTIONS) {
			*why = "instructions above NEURONPROF_SIM_MAX_INSTRUCTIONS";
			return -EINVAL;
		}
		per_iteration += args->instructions[e] + NPROF_SIM_PER_ENGINE_FIXED;
	}
	/* At most 2^16 * (8 * 2^20 + 2^20 + 1060): no overflow. */
	if (per_iteration * args->iterations > NEURONPROF_SIM_MAX_NOTIFICATIONS) {
		*why = "the program may produce more than NEURONPROF_SIM_MAX_NOTIFICATIONS";
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_exec_validate);

/* The last reference to the DRM device is gone: so is every subscription. */
static void nprof_device_release(struct drm_device *drm, void *unused)
{
	struct nprof_drmdev *ndev = to_nprof_drmdev(drm);
	struct nprof_queue *queue;
	unsigned long slot;

	xa_for_each(&ndev->queues, slot, queue)
		nprof_queue_free(queue);
	xa_destroy(&ndev->queues);
	ida_free(&nprof_ida, ndev->index);
}

/**
 * nprof_device_alloc() - create a device, not yet visible to userspace.
 * @parent: a device the provider owns (its own platform device); the DRM
 *	device is a managed resource of it (devm_drm_dev_alloc()) and lives
 *	until @parent releases it and the last subscription is gone.
 * @desc: what the device is; copied, need not outlive the call.
 * @ops: the provider's callbacks; must outlive the device (static const in
 *	the provider module, which subscriptions pin through @ops->owner).
 * @priv: the provider's cookie, returned by nprof_device_priv().
 *
 * Nothing can reach the device and no op is called until
 * nprof_device_publish(): the provider initialises its own state in
 * between. Drop it with nprof_device_free() unless it gets published.
 *
 * Context: process context; may sleep.
 * Return: the device, or ERR_PTR(-EINVAL) for an invalid @parent, @desc or
 * @ops, or ERR_PTR(-ENOMEM).
 */
struct nprof_drmdev *nprof_device_alloc(struct device *parent,
					const struct nprof_device_desc *desc,
					const struct nprof_hw_ops *ops, void *priv)
{
	struct nprof_drmdev *ndev;
	const char *why;
	void *group;
	int ret;

	if (!parent)
		return ERR_PTR(-EINVAL);
	ret = nprof_desc_validate(desc, ops, &why);
	if (ret) {
		dev_err(parent, "neuronprof: invalid device description: %s\n", why);
		return ERR_PTR(ret);
	}

	/* Until published, the DRM device can be released on its own. */
	group = devres_open_group(parent, NULL, GFP_KERNEL);
	if (!group)
		return ERR_PTR(-ENOMEM);

	ndev = devm_drm_dev_alloc(parent, &nprof_drm_driver, struct nprof_drmdev, drm);
	if (IS_ERR(ndev)) {
		ret = PTR_ERR(ndev);
		goto err_group;
	}
	ndev->parent = parent;
	ndev->group = group;
	ndev->desc = *desc;
	if (!ndev->desc.queue_instances)
		ndev->desc.queue_instances = desc->engines_per_core;
	strscpy(ndev->provider, desc->provider, sizeof(ndev->provider));
	ndev->desc.provider = ndev->provider;
	if (desc->num_code_names) {
		struct neuronprof_code_name *names;

		names = drmm_kmalloc_array(&ndev->drm, desc->num_code_names,
					   sizeof(*names), GFP_KERNEL);
		if (!names) {
			ret = -ENOMEM;
			goto err_group;
		}
		memcpy(names, desc->code_names, desc->num_code_names * sizeof(*names));
		ndev->desc.code_names = names;
	}
	ndev->ops = ops;
	ndev->priv = priv;
	xa_init(&ndev->queues);

	ndev->index = ida_alloc(&nprof_ida, GFP_KERNEL);
	if (ndev->index < 0) {
		ret = ndev->index;
		goto err_group;
	}
	ret = drmm_add_action_or_reset(&ndev->drm, nprof_device_release, NULL);
	if (ret)
		goto err_group;
	ret = drmm_mutex_init(&ndev->drm, &ndev->subs_lock);
	if (ret)
		goto err_group;

	devres_close_group(parent, group);
	return ndev;

err_group:
	devres_release_group(parent, group);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(nprof_device_alloc);

/**
 * nprof_device_publish() - make a device visible: create its render node.
 * @ndev: a device from nprof_device_alloc(), not yet published.
 *
 * Every op may run from the moment this is called: the provider must have
 * finished initialising whatever the ops and its producers use.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL if @ndev is already published; the error of
 * drm_dev_register(), after which @ndev is still unpublished (drop it with
 * nprof_device_free()).
 */
int nprof_device_publish(struct nprof_drmdev *ndev)
{
	int ret;

	if (WARN_ON(ndev->published))
		return -EINVAL;
	ret = drm_dev_register(&ndev->drm, 0);
	if (ret)
		return ret;
	ndev->published = true;
	/* From now on the device lives as long as its parent (or a subscriber). */
	devres_remove_group(ndev->parent, ndev->group);
	ndev->group = NULL;
	return 0;
}
EXPORT_SYMBOL_GPL(nprof_device_publish);

/**
 * nprof_device_free() - drop a device that was never published.
 * @ndev: a device from nprof_device_alloc() that nprof_device_publish() did
 *	not publish (never called, or failed).
 *
 * Releases the DRM device now rather than when the parent goes. A published
 * device is unregistered with nprof_device_unregister() instead; given one,
 * this warns and does that.
 *
 * Context: process context; may sleep.
 */
void nprof_device_free(struct nprof_drmdev *ndev)
{
	if (WARN_ON(ndev->published)) {
		nprof_device_unregister(ndev);
		return;
	}
	devres_release_group(ndev->parent, ndev->group);
}
EXPORT_SYMBOL_GPL(nprof_device_free);

/**
 * nprof_device_unregister() - unplug a device.
 * @ndev: the device.
 *
 * Unplugs the DRM device, which waits for every ioctl and provider callback
 * in flight; from then on ioctls fail with ENODEV. Every live subscription
 * is marked NEURONPROF_RING_DEAD, its pollers get EPOLLHUP | EPOLLERR, and
 * it leaves its queue's subscribers so nprof_notify() returns
 * NPROF_NOTIFY_UNSUBSCRIBED. Mappings stay valid; the memory of a ring goes
 * when its subscription's file is released. After this returns, the
 * provider's ops are never called again and no nprof_notify() call on the
 * device is still running.
 *
 * Only for a published device; an unpublished one is dropped with
 * nprof_device_free() (given one, this warns and does that).
 *
 * The provider must make its sleeping callbacks (sim_exec, flush) return
 * promptly once it decided to remove the device: this waits for them.
 *
 * Context: process context; may sleep.
 */
void nprof_device_unregister(struct nprof_drmdev *ndev)
{
	struct nprof_queue *queue;
	unsigned long slot;

	if (WARN_ON(!ndev->published)) {
		nprof_device_free(ndev);
		return;
	}
	drm_dev_unplug(&ndev->drm);

	mutex_lock(&ndev->subs_lock);
	xa_for_each(&ndev->queues, slot, queue)
		nprof_queue_kill(queue);
	mutex_unlock(&ndev->subs_lock);

	/* Producers that found a subscription before it left the table. */
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(nprof_device_unregister);

/**
 * nprof_device_priv() - the provider's cookie.
 * @ndev: the device.
 *
 * Return: the @priv given to nprof_device_alloc().
 */
void *nprof_device_priv(struct nprof_drmdev *ndev)
{
	return ndev->priv;
}
EXPORT_SYMBOL_GPL(nprof_device_priv);

/**
 * nprof_device_desc() - the device description, as the core keeps it.
 * @ndev: the device.
 *
 * Return: the core's copy of the description given to nprof_device_alloc().
 */
const struct nprof_device_desc *nprof_device_desc(struct nprof_drmdev *ndev)
{
	return &ndev->desc;
}
EXPORT_SYMBOL_GPL(nprof_device_desc);
