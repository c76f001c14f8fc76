// SPDX-License-Identifier: GPL-2.0
/*
 * neuronprof core: the DRM driver and its ioctls (GET_INFO, SIM_EXEC,
 * NQ_SUBSCRIBE), the one place userspace enters a device.
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

/*
 * The first version of NEURONPROF_INFO_DEVICE's reply. The struct may grow
 * after @reserved; callers built against version 1 keep working.
 */
#define NPROF_DEVICE_INFO_SIZE_V1 \
	offsetofend(struct drm_neuronprof_device_info, reserved)

static void nprof_fill_info(const struct nprof_drmdev *ndev,
			    struct drm_neuronprof_device_info *info)
{
	const struct nprof_device_desc *d = &ndev->desc;

	memset(info, 0, sizeof(*info));
	info->uapi_version = NEURONPROF_UAPI_VERSION;
	info->max_subscribers = NEURONPROF_MAX_SUBSCRIBERS;
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
 * NEURONPROF_INFO_CODE_NAMES: the header and as many whole entries of the
 * device's name table as @size holds (the caller checked @size against the
 * header). Returns the bytes written.
 */
static int nprof_copy_code_names(const struct nprof_drmdev *ndev, void __user *data,
				 u32 size, u32 *written)
{
	const struct nprof_device_desc *d = &ndev->desc;
	struct drm_neuronprof_code_names hdr = {
		.version = NEURONPROF_CODE_NAMES_VERSION,
		.entry_size = sizeof(struct neuronprof_code_name),
		.count = d->num_code_names,
	};
	u32 fit = min_t(u32, (size - sizeof(hdr)) / sizeof(struct neuronprof_code_name),
			d->num_code_names);

	if (copy_to_user(data, &hdr, sizeof(hdr)) ||
	    copy_to_user(data + sizeof(hdr), d->code_names,
			 fit * sizeof(struct neuronprof_code_name)))
		return -EFAULT;
	*written = sizeof(hdr) + fit * sizeof(struct neuronprof_code_name);
	return 0;
}

/*
 * DRM_IOCTL_NEURONPROF_GET_INFO: a query of the device. size == 0 asks for
 * the size the query needs. NEURONPROF_INFO_DEVICE copies min(size, needed)
 * bytes; NEURONPROF_INFO_CODE_NAMES copies the header and the whole entries
 * that fit. Either way size says how many bytes were written.
 *
 * Errors: EINVAL non-zero flags or pad, unknown query, size smaller than the
 * query's first version (the header for CODE_NAMES); EFAULT data is not
 * writable; ENODEV the device is gone.
 */
static int nprof_ioctl_get_info(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct nprof_drmdev *ndev = to_nprof_drmdev(drm);
	struct drm_neuronprof_get_info *args = data;
	struct drm_neuronprof_device_info info;
	u32 size, need, min_size;
	int idx, ret = 0;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	if (args->flags || args->pad) {
		drm_dbg(drm, "GET_INFO: flags and pad must be 0\n");
		ret = -EINVAL;
		goto out;
	}
	switch (args->query) {
	case NEURONPROF_INFO_DEVICE:
		need = sizeof(info);
		min_size = NPROF_DEVICE_INFO_SIZE_V1;
		break;
	case NEURONPROF_INFO_CODE_NAMES:
		need = sizeof(struct drm_neuronprof_code_names) +
		       ndev->desc.num_code_names * sizeof(struct neuronprof_code_name);
		min_size = sizeof(struct drm_neuronprof_code_names);
		break;
	default:
		drm_dbg(drm, "GET_INFO: unknown query %u\n", args->query);
		ret = -EINVAL;
		goto out;
	}
	if (!args->size) {
		args->size = need;
		goto out;
	}
	if (args->size < min_size) {
		drm_dbg(drm, "GET_INFO: size %u below %u\n", args->size, min_size);
		ret = -EINVAL;
		goto out;
	}

	if (args->query == NEURONPROF_INFO_CODE_NAMES) {
		ret = nprof_copy_code_names(ndev, u64_to_user_ptr(args->data),
					    args->size, &size);
		if (!ret)
			args->size = size;
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
	struct nprof_drmdev *ndev = to_nprof_drmdev(drm);
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
	DRM_IOCTL_DEF_DRV(NEURONPROF_NQ_HOLDERS, nprof_ioctl_nq_holders, NPROF_IOCTL_FLAGS),
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

const struct drm_driver nprof_drm_driver = {
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

MODULE_DESCRIPTION("neuronprof: " NPROF_DRIVER_DESC);
MODULE_LICENSE("GPL");
