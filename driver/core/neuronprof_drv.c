// SPDX-License-Identifier: GPL-2.0
/*
 * neuronprof core: the DRM driver, the provider API and the device ioctls.
 */

/**
 * DOC: overview
 *
 * neuronprof.ko exposes the notification queues of AWS Neuron devices
 * (NeuronCores and TopSPs) to userspace as rings that a profiler maps and
 * consumes without a system call per notification.
 *
 * Devices come from providers: a provider describes one device (topology,
 * queue types, ring limits, capabilities) and its callbacks to
 * nprof_device_alloc(), which creates an invisible DRM device for it; the
 * provider finishes its own initialisation, then makes the device visible
 * with nprof_device_publish(), which creates the render node.
 * neuronprof_sim.ko is such a provider; a driver for real Neuron PCI
 * devices would be another. The provider feeds notifications into
 * subscribed queues with nprof_notify(), from any context.
 *
 * Userspace opens the render node, asks what the device is with
 * DRM_IOCTL_NEURONPROF_GET_INFO and subscribes to one queue with
 * DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE, which returns a new file descriptor:
 * the subscription. That file is mapped (a read-only header page, a
 * read-write consumer page, the read-only data area), polled, read, and
 * drained with NEURONPROF_IOCTL_NQ_DRAIN. It lives until the descriptor and
 * every mapping are gone; closing the render node does not end it.
 *
 * Every entry point that reaches the provider runs inside drm_dev_enter().
 * nprof_device_unregister() unplugs the DRM device, which waits for all of
 * them, then marks every live subscription DEAD: its ring stays mapped and
 * readable, its pollers see EPOLLHUP, and the provider is never called again.
 *
 * Documentation/uapi.rst describes the ioctls and Documentation/ring.rst the
 * ring protocol, including the memory ordering.
 */

#include <linux/bits.h>
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

#define NPROF_DRIVER_DESC	"Neuron notification queues as mmap-able rings"
#define NPROF_DRIVER_DATE	"20261129"
#define NPROF_DRIVER_MAJOR	1
#define NPROF_DRIVER_MINOR	0

/* Queue types that exist on a NeuronCore, and on a TopSP. */
#define NPROF_CORE_TYPES_ALL	(GENMASK(NEURONPROF_QT_THROTTLE, NEURONPROF_QT_TRACE) | \
				 BIT(NEURONPROF_QT_NOTIFY))
#define NPROF_TOPSP_TYPES_ALL	(GENMASK(NEURONPROF_QT_TOPSP_ERROR, NEURONPROF_QT_TOPSP_TRACE) | \
				 GENMASK(NEURONPROF_QT_TOPSP_THROTTLE, NEURONPROF_QT_TOPSP_NOTIFY))
#define NPROF_CAPS_ALL		(NEURONPROF_CAP_SIM_EXEC | NEURONPROF_CAP_FLUSH | \
				 NEURONPROF_CAP_RAW)
#define NPROF_SIM_EXEC_FLAGS	(NEURONPROF_SIM_EXEC_ERROR | NEURONPROF_SIM_EXEC_THROTTLE)

/*
 * The first version of NEURONPROF_INFO_DEVICE's reply. The struct may grow
 * after @reserved; callers built against version 1 keep working.
 */
#define NPROF_DEVICE_INFO_SIZE_V1 \
	offsetofend(struct drm_neuronprof_device_info, reserved)

/* device_index of each registered device. */
static DEFINE_IDA(nprof_ida);

static bool nprof_pow2(u64 v)
{
	return v && !(v & (v - 1));
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
	const size_t max = sizeof_field(struct nprof_device, provider);
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
	if (!(desc->caps & NEURONPROF_CAP_RAW) != !desc->raw_format ||
	    desc->raw_format > NEURONPROF_RAW_FORMAT_NEURON_V3) {
		*why = "NEURONPROF_CAP_RAW must be set exactly with a known raw_format";
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
VISIBLE_IF_KUNIT int nprof_sim_exec_validate(const struct nprof_device_desc *desc,
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

static void nprof_fill_info(const struct nprof_device *ndev,
			    struct drm_neuronprof_device_info *info)
{
	const struct nprof_device_desc *d = &ndev->desc;

	memset(info, 0, sizeof(*info));
	info->uapi_version = NEURONPROF_UAPI_VERSION;
	info->arch = d->arch;
	strscpy(info->provider, ndev->provider, sizeof(info->provider));
	info->num_cores = d->num_cores;
	info->num_topsps = d->num_topsps;
	info->engines_per_core = d->engines_per_core;
	info->entry_size = NPROF_ENTRY_SIZE;
	info->core_queue_types = d->core_queue_types;
	info->topsp_queue_types = d->topsp_queue_types;
	info->per_engine_queue_types = d->per_engine_queue_types;
	info->clock_id = CLOCK_MONOTONIC;
	info->caps = d->caps;
	info->min_ring_size = d->min_ring_size;
	info->max_ring_size = d->max_ring_size;
	info->device_index = ndev->index;
	info->queue_instances = d->queue_instances;
	info->clock_domain = d->clock_domain;
	info->raw_format = d->raw_format;
	info->raw_entry_size = d->raw_entry_size;
}

/*
 * DRM_IOCTL_NEURONPROF_GET_INFO: a query of the device. size == 0 asks for
 * the size the query needs; otherwise min(size, needed) bytes are copied and
 * size says how many.
 *
 * Errors: EINVAL non-zero flags or pad, unknown query, size smaller than the
 * query's first version; EFAULT data is not writable; ENODEV the device is
 * gone.
 */
static int nprof_ioctl_get_info(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct nprof_device *ndev = to_nprof_device(drm);
	struct drm_neuronprof_get_info *args = data;
	struct drm_neuronprof_device_info info;
	int idx, ret = 0;
	u32 size;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	if (args->flags || args->pad) {
		drm_dbg(drm, "GET_INFO: flags and pad must be 0\n");
		ret = -EINVAL;
		goto out;
	}
	if (args->query != NEURONPROF_INFO_DEVICE) {
		drm_dbg(drm, "GET_INFO: unknown query %u\n", args->query);
		ret = -EINVAL;
		goto out;
	}
	if (!args->size) {
		args->size = sizeof(info);
		goto out;
	}
	if (args->size < NPROF_DEVICE_INFO_SIZE_V1) {
		drm_dbg(drm, "GET_INFO: size %u below %zu\n", args->size,
			NPROF_DEVICE_INFO_SIZE_V1);
		ret = -EINVAL;
		goto out;
	}

	nprof_fill_info(ndev, &info);
	size = min_t(u32, args->size, sizeof(info));
	if (copy_to_user(u64_to_user_ptr(args->data), &info, size)) {
		ret = -EFAULT;
		goto out;
	}
	args->size = size;
out:
	drm_dev_exit(idx);
	return ret;
}

/*
 * DRM_IOCTL_NEURONPROF_SIM_EXEC: run a synthetic program on one NeuronCore
 * and wait for it; the provider fills status and produced. Pollers of the
 * core's queues are woken afterwards even below their watermark.
 *
 * Errors: EOPNOTSUPP the device has no NEURONPROF_CAP_SIM_EXEC; EINVAL core
 * out of range, unknown flags, iterations, instructions or DMA transfers out
 * of range, non-zero reserved, too many notifications; ETIMEDOUT timeout_ns
 * already passed (or passed while running); ENODEV the device is gone; the
 * provider's error (EINTR when interrupted, ...).
 */
static int nprof_ioctl_sim_exec(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct nprof_device *ndev = to_nprof_device(drm);
	struct drm_neuronprof_sim_exec *args = data;
	const char *why;
	int idx, ret;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	/* drm_ioctl() copies the struct back even on failure: no stale outputs. */
	args->status = 0;
	memset(args->produced, 0, sizeof(args->produced));
	if (!(ndev->desc.caps & NEURONPROF_CAP_SIM_EXEC)) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	ret = nprof_sim_exec_validate(&ndev->desc, args, &why);
	if (ret) {
		drm_dbg(drm, "SIM_EXEC: %s\n", why);
		goto out;
	}
	if (args->timeout_ns && ktime_get_ns() >= args->timeout_ns) {
		ret = -ETIMEDOUT;
		goto out;
	}

	ret = ndev->ops->sim_exec(ndev, args);
	/* Whatever it produced, even when it failed half-way, is readable. */
	nprof_queues_flushed(ndev, args->core);
out:
	drm_dev_exit(idx);
	return ret;
}

/*
 * DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE encoded with another size or direction
 * than the uapi header defines. The right encoding never gets here:
 * nprof_drm_ioctl() handles it before drm_ioctl() would.
 *
 * Errors: EINVAL always.
 */
static int nprof_ioctl_nq_subscribe_bad_size(struct drm_device *drm, void *data,
					     struct drm_file *file)
{
	drm_dbg(drm, "NQ_SUBSCRIBE: struct size or direction unknown to this uapi\n");
	return -EINVAL;
}

/*
 * The render node is the uapi. On the primary (card) node the ioctls need
 * DRM_AUTH, as DRM expects of a node that a master governs: an
 * unauthenticated opener of the card node gets EACCES.
 */
#define NPROF_IOCTL_FLAGS	(DRM_RENDER_ALLOW | DRM_AUTH)

static const struct drm_ioctl_desc nprof_ioctls[] = {
	DRM_IOCTL_DEF_DRV(NEURONPROF_GET_INFO, nprof_ioctl_get_info, NPROF_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(NEURONPROF_NQ_SUBSCRIBE, nprof_ioctl_nq_subscribe_bad_size,
			  NPROF_IOCTL_FLAGS),
	DRM_IOCTL_DEF_DRV(NEURONPROF_SIM_EXEC, nprof_ioctl_sim_exec, NPROF_IOCTL_FLAGS),
};

/*
 * NQ_SUBSCRIBE outside drm_ioctl(): drm_ioctl() copies the result out after
 * the handler returned, too late to keep the new descriptor out of the file
 * table if that copy fails. Here the descriptor is installed only after the
 * copy succeeded; otherwise the file is dropped and its number released.
 */
static long nprof_nq_subscribe_user(struct file *filp, void __user *uarg)
{
	const struct drm_ioctl_desc *desc = &nprof_ioctls[DRM_NEURONPROF_NQ_SUBSCRIBE];
	struct nprof_subscribe_call call = {};
	long ret;

	if (copy_from_user(&call.args, uarg, sizeof(call.args)))
		return -EFAULT;
	ret = drm_ioctl_kernel(filp, nprof_ioctl_nq_subscribe, &call, desc->flags);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &call.args, sizeof(call.args))) {
		put_unused_fd(call.args.fd);
		fput(call.file);
		return -EFAULT;
	}
	fd_install(call.args.fd, call.file);
	return 0;
}

/*
 * Driver ioctls this file handles itself, -ENOIOCTLCMD for those drm_ioctl()
 * handles. Driver-range numbers without an ioctl fail with ENOTTY ("no such
 * ioctl") rather than drm_ioctl()'s EINVAL. Commands of another ioctl type
 * (such as NEURONPROF_IOCTL_NQ_DRAIN sent to the render node) fail with
 * ENOTTY here: drm_ioctl() and drm_compat_ioctl() dispatch on the number
 * alone and would run an unrelated DRM ioctl for them.
 */
static long nprof_drm_ioctl_own(struct file *filp, unsigned int cmd,
				void __user *uarg)
{
	unsigned int nr = DRM_IOCTL_NR(cmd);

	if (DRM_IOCTL_TYPE(cmd) != DRM_IOCTL_BASE)
		return -ENOTTY;
	if (nr < DRM_COMMAND_BASE || nr >= DRM_COMMAND_END)
		return -ENOIOCTLCMD;
	if (nr - DRM_COMMAND_BASE >= ARRAY_SIZE(nprof_ioctls))
		return -ENOTTY;
	if (cmd == DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE)
		return nprof_nq_subscribe_user(filp, uarg);
	return -ENOIOCTLCMD;
}

static long nprof_drm_ioctl(struct file *filp, unsigned int cmd,
			    unsigned long arg)
{
	long ret = nprof_drm_ioctl_own(filp, cmd, (void __user *)arg);

	return ret == -ENOIOCTLCMD ? drm_ioctl(filp, cmd, arg) : ret;
}

#ifdef CONFIG_COMPAT
/* Every neuronprof struct has the same layout for 32-bit callers. */
static long nprof_drm_compat_ioctl(struct file *filp, unsigned int cmd,
				   unsigned long arg)
{
	long ret = nprof_drm_ioctl_own(filp, cmd, compat_ptr(arg));

	return ret == -ENOIOCTLCMD ? drm_compat_ioctl(filp, cmd, arg) : ret;
}
#else
#define nprof_drm_compat_ioctl NULL
#endif

static const struct file_operations nprof_drm_fops = {
	.owner		= THIS_MODULE,
	.open		= drm_open,
	.release	= drm_release,
	.unlocked_ioctl	= nprof_drm_ioctl,
	.compat_ioctl	= nprof_drm_compat_ioctl,
	.poll		= drm_poll,
	.read		= drm_read,
	.llseek		= noop_llseek,
};

static const struct drm_driver nprof_drm_driver = {
	.driver_features	= DRIVER_RENDER,
	.ioctls			= nprof_ioctls,
	.num_ioctls		= ARRAY_SIZE(nprof_ioctls),
	.fops			= &nprof_drm_fops,
	.name			= NEURONPROF_DRIVER_NAME,
	.desc			= NPROF_DRIVER_DESC,
	.date			= NPROF_DRIVER_DATE,
	.major			= NPROF_DRIVER_MAJOR,
	.minor			= NPROF_DRIVER_MINOR,
};

/* The last reference to the DRM device is gone: so is every subscription. */
static void nprof_device_release(struct drm_device *drm, void *unused)
{
	struct nprof_device *ndev = to_nprof_device(drm);

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
struct nprof_device *nprof_device_alloc(struct device *parent,
					const struct nprof_device_desc *desc,
					const struct nprof_hw_ops *ops, void *priv)
{
	struct nprof_device *ndev;
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

	ndev = devm_drm_dev_alloc(parent, &nprof_drm_driver, struct nprof_device, drm);
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
int nprof_device_publish(struct nprof_device *ndev)
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
void nprof_device_free(struct nprof_device *ndev)
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
 * its queue leaves the table so nprof_notify() returns
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
void nprof_device_unregister(struct nprof_device *ndev)
{
	struct nprof_sub *sub;
	unsigned long slot;

	if (WARN_ON(!ndev->published)) {
		nprof_device_free(ndev);
		return;
	}
	drm_dev_unplug(&ndev->drm);

	mutex_lock(&ndev->subs_lock);
	xa_for_each(&ndev->queues, slot, sub)
		nprof_sub_kill(sub);
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
void *nprof_device_priv(struct nprof_device *ndev)
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
const struct nprof_device_desc *nprof_device_desc(struct nprof_device *ndev)
{
	return &ndev->desc;
}
EXPORT_SYMBOL_GPL(nprof_device_desc);

/**
 * nprof_notify() - produce one notification into a queue.
 * @ndev: the device.
 * @q: the queue.
 * @n: the entry; the core fills @n->seq, queue_type and engine.
 * @force_lost: count it as lost even when there is room.
 *
 * Unread entries are never overwritten: without room the notification is
 * counted in the ring's lost counter and the ring is flagged OVERFLOWED.
 * Readers are woken when the unread bytes reach the watermark.
 *
 * Context: any, including hard IRQ.
 * Return: NPROF_NOTIFY_DELIVERED, NPROF_NOTIFY_LOST, or
 * NPROF_NOTIFY_UNSUBSCRIBED when nobody subscribed @q (or it does not exist,
 * or the device was unregistered).
 */
enum nprof_notify_result nprof_notify(struct nprof_device *ndev,
				      const struct nprof_queue_id *q,
				      struct neuronprof_notification *n,
				      bool force_lost)
{
	enum nprof_notify_result ret = NPROF_NOTIFY_UNSUBSCRIBED;
	struct nprof_sub *sub;
	unsigned long flags;
	bool wake = false;

	if (!nprof_queue_valid(&ndev->desc, q))
		return NPROF_NOTIFY_UNSUBSCRIBED;

	rcu_read_lock();
	sub = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, q));
	if (sub) {
		spin_lock_irqsave(&sub->lock, flags);
		if (!sub->detached)
			ret = nprof_ring_produce(&sub->ring, n, force_lost, &wake);
		spin_unlock_irqrestore(&sub->lock, flags);
		if (wake)
			wake_up_interruptible_poll(&sub->wq, EPOLLIN | EPOLLRDNORM);
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(nprof_notify);

/**
 * nprof_notify_batch() - produce many notifications into one queue.
 * @ndev: the device.
 * @q: the queue.
 * @n: @count entries (the core fills seq, queue_type and engine in the
 *	ring, not here), or NULL to count @count notifications as lost that
 *	the provider could not capture.
 * @count: number of notifications, at most NPROF_NOTIFY_BATCH_MAX.
 * @force_lost: count them all as lost even when there is room.
 * @st: out, optional: how many were delivered and how many lost.
 *
 * The same as @count calls of nprof_notify() in a row, with one lookup, one
 * lock round trip, one publication of the producer position and at most one
 * wakeup. Entries that do not fit are counted as lost, in order.
 *
 * Context: any, including hard IRQ; the copy runs with interrupts off, so
 * keep @count small there.
 * Return: NPROF_NOTIFY_UNSUBSCRIBED (nothing taken, @st zero),
 * NPROF_NOTIFY_LOST when at least one was lost, else NPROF_NOTIFY_DELIVERED.
 */
enum nprof_notify_result nprof_notify_batch(struct nprof_device *ndev,
					    const struct nprof_queue_id *q,
					    const struct neuronprof_notification *n,
					    u32 count, bool force_lost,
					    struct nprof_notify_stats *st)
{
	enum nprof_notify_result ret = NPROF_NOTIFY_UNSUBSCRIBED;
	struct nprof_notify_stats stats = {};
	struct nprof_sub *sub;
	unsigned long flags;
	bool wake = false;

	if (!count || count > NPROF_NOTIFY_BATCH_MAX || !nprof_queue_valid(&ndev->desc, q))
		goto out;

	rcu_read_lock();
	sub = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, q));
	if (sub) {
		spin_lock_irqsave(&sub->lock, flags);
		if (!sub->detached) {
			nprof_ring_produce_batch(&sub->ring, n, count, force_lost,
						 &stats.delivered, &wake);
			stats.lost = count - stats.delivered;
			ret = stats.lost ? NPROF_NOTIFY_LOST : NPROF_NOTIFY_DELIVERED;
		}
		spin_unlock_irqrestore(&sub->lock, flags);
		if (wake)
			wake_up_interruptible_poll(&sub->wq, EPOLLIN | EPOLLRDNORM);
	}
	rcu_read_unlock();
out:
	if (st)
		*st = stats;
	return ret;
}
EXPORT_SYMBOL_GPL(nprof_notify_batch);

/**
 * nprof_notify_lost() - count notifications as lost that the provider could
 *	not capture at all, in constant time.
 * @ndev: the device.
 * @q: the queue.
 * @count: how many; any number.
 *
 * The same as nprof_notify_batch() with no entries, @count at a time: each
 * takes a sequence number and counts as lost, and the ring is flagged
 * NEURONPROF_RING_OVERFLOWED; but one call for any @count, so a provider
 * never loops to account for a large gap.
 *
 * Context: any, including hard IRQ.
 * Return: NPROF_NOTIFY_UNSUBSCRIBED, or NPROF_NOTIFY_LOST.
 */
enum nprof_notify_result nprof_notify_lost(struct nprof_device *ndev,
					   const struct nprof_queue_id *q, u64 count)
{
	enum nprof_notify_result ret = NPROF_NOTIFY_UNSUBSCRIBED;
	struct nprof_sub *sub;
	unsigned long flags;

	if (!count || !nprof_queue_valid(&ndev->desc, q))
		return ret;
	rcu_read_lock();
	sub = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, q));
	if (sub) {
		spin_lock_irqsave(&sub->lock, flags);
		if (!sub->detached) {
			nprof_ring_lose(&sub->ring, count);
			ret = NPROF_NOTIFY_LOST;
		}
		spin_unlock_irqrestore(&sub->lock, flags);
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(nprof_notify_lost);

/**
 * nprof_queue_set_flags() - raise NEURONPROF_RING_* bits in the ring of a
 *	queue's subscription, if there is one.
 * @ndev: the device.
 * @q: the queue.
 * @flags: the bits; they stay set for the subscription's life.
 *
 * Context: any, including hard IRQ.
 * Return: true if a subscription got them.
 */
bool nprof_queue_set_flags(struct nprof_device *ndev, const struct nprof_queue_id *q,
			   u32 flags)
{
	struct nprof_sub *sub;
	unsigned long irq;
	bool ret = false;

	if (!nprof_queue_valid(&ndev->desc, q))
		return false;
	rcu_read_lock();
	sub = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, q));
	if (sub) {
		spin_lock_irqsave(&sub->lock, irq);
		if (!sub->detached) {
			nprof_ring_set_flags(&sub->ring, flags);
			ret = true;
		}
		spin_unlock_irqrestore(&sub->lock, irq);
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(nprof_queue_set_flags);

/**
 * nprof_notify_begin() - reserve room in a queue's ring to write entries in place.
 * @ndev: the device.
 * @q: the queue.
 * @count: notifications the provider is about to produce, 1 to
 *	NPROF_NOTIFY_BATCH_MAX.
 * @span: out: where to write them.
 *
 * On success the subscription's lock is held (interrupts off) until
 * nprof_notify_end(): the provider writes @span->count entries at
 * @span->entries, the i-th one with seq = @span->seq + i, queue_type
 * @span->queue_type and engine @span->engine, and nothing else, then calls
 * nprof_notify_end() with how many it wrote. @span->count is the room that
 * is free and contiguous in the data area, at most @count, and may be 0
 * (ring full): nprof_notify_end() still has to be called, with the number of
 * notifications produced, and counts those it was not given as lost.
 *
 * Context: any; the provider must not sleep between begin and end.
 * Return: 0 with the lock held, or -ENOENT when nobody subscribed @q (or it
 * does not exist, or the device is gone): then nothing is held.
 */
int nprof_notify_begin(struct nprof_device *ndev, const struct nprof_queue_id *q,
		       u32 count, struct nprof_notify_span *span)
	__acquires(&span->sub->lock)
{
	struct nprof_ring *ring;
	struct nprof_sub *sub;
	u64 off, room;

	if (!count || count > NPROF_NOTIFY_BATCH_MAX || !nprof_queue_valid(&ndev->desc, q))
		return -ENOENT;

	rcu_read_lock();
	sub = xa_load(&ndev->queues, nprof_queue_slot(&ndev->desc, q));
	if (!sub)
		goto none;
	spin_lock_irqsave(&sub->lock, span->flags);
	if (sub->detached) {
		spin_unlock_irqrestore(&sub->lock, span->flags);
		goto none;
	}
	ring = &sub->ring;
	nprof_ring_sync_consumer(ring);		/* A */
	off = ring->prod & (ring->size - 1);
	room = min3((u64)count, (ring->size - nprof_ring_unread(ring)) / NPROF_ENTRY_SIZE,
		    (ring->size - off) / NPROF_ENTRY_SIZE);
	span->sub = sub;
	span->entries = (void *)(ring->data + off);
	span->count = room;
	span->seq = ring->seq;
	span->queue_type = ring->queue_type;
	span->engine = ring->engine;
	return 0;	/* rcu_read_lock() and the lock held until nprof_notify_end() */
none:
	rcu_read_unlock();
	return -ENOENT;
}
EXPORT_SYMBOL_GPL(nprof_notify_begin);

/**
 * nprof_notify_end() - publish the entries written after nprof_notify_begin().
 * @span: the span nprof_notify_begin() filled.
 * @written: entries written at the start of @span->entries, at most
 *	@span->count.
 * @produced: notifications produced, at least @written: the rest are counted
 *	as lost (they take sequence numbers after the written ones).
 *
 * Releases what nprof_notify_begin() took and wakes readers once if the
 * watermark was reached.
 *
 * Return: the number counted as lost.
 */
u32 nprof_notify_end(struct nprof_notify_span *span, u32 written, u32 produced)
	__releases(&span->sub->lock)
{
	struct nprof_sub *sub = span->sub;
	struct nprof_ring *ring = &sub->ring;
	u64 unread = nprof_ring_unread(ring);
	u32 lost;
	bool wake;

	if (WARN_ON_ONCE(written > span->count))
		written = span->count;
	produced = max(produced, written);
	lost = produced - written;
	ring->prod += (u64)written * NPROF_ENTRY_SIZE;
	if (written) {
		/*
		 * B: pairs with userspace's acquire load C: the entries are
		 * written before the position that covers them is visible.
		 */
		smp_store_release(&ring->hdr->producer_pos, ring->prod);
	}
	ring->seq += produced;
	if (lost) {
		ring->lost += lost;
		WRITE_ONCE(ring->hdr->lost, ring->lost);
		nprof_ring_set_flags(ring, NEURONPROF_RING_OVERFLOWED);
	}
	wake = written && unread < ring->watermark &&
	       unread + (u64)written * NPROF_ENTRY_SIZE >= ring->watermark;
	spin_unlock_irqrestore(&sub->lock, span->flags);
	if (wake)
		wake_up_interruptible_poll(&sub->wq, EPOLLIN | EPOLLRDNORM);
	rcu_read_unlock();
	return lost;
}
EXPORT_SYMBOL_GPL(nprof_notify_end);

/* Flush @count consecutive targets of one kind: their slots are one range. */
static void nprof_flush_targets(struct nprof_device *ndev, u32 kind, u32 first,
				u32 count)
{
	const struct nprof_queue_id base = { .kind = kind, .index = first };
	unsigned long start = nprof_queue_slot(&ndev->desc, &base);
	unsigned long last = start + (unsigned long)count * NEURONPROF_QT_MAX *
			     NEURONPROF_MAX_INSTANCES - 1;
	struct nprof_sub *sub;
	unsigned long slot;

	xa_for_each_range(&ndev->queues, slot, sub, start, last)
		nprof_sub_flushed(sub);
}

/**
 * nprof_queues_flushed() - every queue of a core and its TopSPs got all its
 *	in-flight notifications (an execution ended).
 * @ndev: the device.
 * @core: the NeuronCore; out-of-range values are ignored.
 *
 * Readers of those queues are woken even below their watermark, and poll
 * reports EPOLLIN until they consumed what was produced so far.
 *
 * Context: any, including hard IRQ.
 */
void nprof_queues_flushed(struct nprof_device *ndev, u32 core)
{
	const struct nprof_device_desc *d = &ndev->desc;
	u32 per_core;

	if (core >= d->num_cores)
		return;
	per_core = d->num_topsps / d->num_cores;

	rcu_read_lock();
	nprof_flush_targets(ndev, NEURONPROF_TARGET_CORE, core, 1);
	if (per_core)
		nprof_flush_targets(ndev, NEURONPROF_TARGET_TOPSP, core * per_core,
				    per_core);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(nprof_queues_flushed);

MODULE_DESCRIPTION("neuronprof: " NPROF_DRIVER_DESC);
MODULE_LICENSE("GPL");
