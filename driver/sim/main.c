// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: simulator
 *
 * neuronprof_sim: simulated Neuron devices for the neuronprof core, the way
 * netdevsim simulates network devices. This file owns the module: its
 * parameters (the devices created at load), the platform driver, and the
 * driver attributes new_device and del_device that create and remove devices
 * at runtime, which is how hot-unplug gets exercised.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>

#include "sim.h"

/* Devices at load are a test convenience; more come through new_device. */
#define NPROF_SIM_MAX_INITIAL_DEVICES	32

static unsigned int nprof_sim_initial_devices = 1;
module_param_named(devices, nprof_sim_initial_devices, uint, 0444);
MODULE_PARM_DESC(devices, "Devices created at load, with ids 0..devices-1 (default 1, at most 32)");

static char *nprof_sim_arch_name = "trn2";
module_param_named(arch, nprof_sim_arch_name, charp, 0444);
MODULE_PARM_DESC(arch, "Architecture of the devices created at load and of new_device without one: trn1, inf2 or trn2 (default trn2)");

/* Read by every execution (device.c); changes apply to the next one. */
unsigned long long nprof_sim_seed;
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_seed);
module_param_named(seed, nprof_sim_seed, ullong, 0644);
MODULE_PARM_DESC(seed, "Seed of the device-time model's jitter: a program and a seed give the same timings (default 0)");

unsigned int nprof_sim_time_scale = 100;
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_time_scale);

static int nprof_sim_time_scale_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = kstrtouint(val, 10, &v);

	if (ret || v > NPROF_SIM_MAX_TIME_SCALE) {
		pr_err("time_scale=%s: expected 0 to %u (percent of device time)\n",
		       val, NPROF_SIM_MAX_TIME_SCALE);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops nprof_sim_time_scale_ops = {
	.set = nprof_sim_time_scale_set,
	.get = param_get_uint,
};

module_param_cb(time_scale, &nprof_sim_time_scale_ops, &nprof_sim_time_scale, 0644);
MODULE_PARM_DESC(time_scale, "Host time an execution takes, in percent of its device time: 100 runs programs at the device's pace, 10 ten times faster, 0 at memory speed (default 100, at most 100000)");

/* The architecture named by the arch parameter, checked at load. */
static const struct nprof_sim_arch *nprof_sim_default_arch;

/* The platform devices the module created, by id. */
static DEFINE_XARRAY(nprof_sim_devices);
/* Serialises device creation and removal, and look-ups with them. */
static DEFINE_MUTEX(nprof_sim_devices_lock);

/**
 * nprof_sim_dev_new() - create a simulated device.
 * @id: its id, at most NPROF_SIM_MAX_ID.
 * @arch: its architecture.
 *
 * Return: 0; -EEXIST if @id is taken; -EINVAL for a bad id; another negative
 * errno if the device could not be created or announced to the core.
 */
int nprof_sim_dev_new(u32 id, const struct nprof_sim_arch *arch)
{
	struct nprof_sim_pdata pdata = { .arch = arch->arch, .probe_err = -ENODEV };
	const struct platform_device_info info = {
		.name = NPROF_SIM_DRV_NAME,
		.id = id,
		.data = &pdata,
		.size_data = sizeof(pdata),
	};
	struct nprof_sim_pdata *bound;
	struct platform_device *pdev;
	int err;

	if (id > NPROF_SIM_MAX_ID)
		return -EINVAL;
	mutex_lock(&nprof_sim_devices_lock);
	if (xa_load(&nprof_sim_devices, id)) {
		err = -EEXIST;
		goto err_unlock;
	}
	pdev = platform_device_register_full(&info);
	if (IS_ERR(pdev)) {
		err = PTR_ERR(pdev);
		pr_err("device %u: cannot add platform device: %d\n", id, err);
		goto err_unlock;
	}
	/* Probing is synchronous: it ran, and left its result in the copy. */
	bound = dev_get_platdata(&pdev->dev);
	if (!pdev->dev.driver) {
		err = bound->probe_err ? bound->probe_err : -ENODEV;
		pr_err("device %u: probe failed: %d\n", id, err);
		goto err_unregister;
	}
	err = xa_err(xa_store(&nprof_sim_devices, id, pdev, GFP_KERNEL));
	if (err)
		goto err_unregister;
	mutex_unlock(&nprof_sim_devices_lock);
	return 0;

err_unregister:
	platform_device_unregister(pdev);
err_unlock:
	mutex_unlock(&nprof_sim_devices_lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_dev_new);

/**
 * nprof_sim_dev_del() - remove a simulated device.
 * @id: its id.
 *
 * Returns once the device is unplugged: no execution runs on it any more and
 * userspace sees it as gone.
 *
 * Return: 0, or -ENOENT if there is no device @id.
 */
int nprof_sim_dev_del(u32 id)
{
	struct platform_device *pdev;

	mutex_lock(&nprof_sim_devices_lock);
	pdev = xa_erase(&nprof_sim_devices, id);
	/* Under the lock, so new_device cannot reuse the id before it is gone. */
	if (pdev)
		platform_device_unregister(pdev);
	mutex_unlock(&nprof_sim_devices_lock);
	return pdev ? 0 : -ENOENT;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_dev_del);

/**
 * nprof_sim_dev_find() - the state of a simulated device.
 * @id: its id.
 *
 * For tests: the result is valid until nprof_sim_dev_del(@id).
 *
 * Return: the device, or NULL if there is none or its driver is unbound.
 */
struct nprof_sim_device *nprof_sim_dev_find(u32 id)
{
	struct nprof_sim_device *sdev = NULL;
	struct platform_device *pdev;

	mutex_lock(&nprof_sim_devices_lock);
	pdev = xa_load(&nprof_sim_devices, id);
	if (pdev)
		sdev = platform_get_drvdata(pdev);
	mutex_unlock(&nprof_sim_devices_lock);
	return sdev;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_dev_find);

static int nprof_sim_parse_id(const char *attr, const char *tok, u32 *id)
{
	if (kstrtou32(tok, 10, id) || *id > NPROF_SIM_MAX_ID) {
		pr_err("%s: bad device id \"%.32s\": expected a decimal number 0..%d\n",
		       attr, tok, NPROF_SIM_MAX_ID);
		return -EINVAL;
	}
	return 0;
}

/**
 * nprof_sim_parse_new_device() - parse what was written to new_device.
 * @buf: "ID [ARCH]", separated by blanks, optionally ending in a newline.
 * @id: out, the id.
 * @arch: out, the architecture (that of the arch parameter when absent).
 *
 * Return: 0, -EINVAL (with a message naming the bad token) or -ENOMEM.
 */
int nprof_sim_parse_new_device(const char *buf, u32 *id,
			       const struct nprof_sim_arch **arch)
{
	char *copy, *cur, *tok;
	int ntok = 0, err = 0;

	copy = kstrdup(buf, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	*arch = nprof_sim_default_arch;
	cur = copy;
	while (!err && (tok = strsep(&cur, " \t\n"))) {
		if (!*tok)
			continue;
		switch (ntok++) {
		case 0:
			err = nprof_sim_parse_id("new_device", tok, id);
			break;
		case 1:
			*arch = nprof_sim_arch_by_name(tok);
			if (!*arch) {
				pr_err("new_device: unknown architecture \"%.32s\": expected trn1, inf2 or trn2\n",
				       tok);
				err = -EINVAL;
			}
			break;
		default:
			pr_err("new_device: unexpected \"%.32s\" after the architecture: expected \"ID [ARCH]\"\n",
			       tok);
			err = -EINVAL;
		}
	}
	if (!err && !ntok) {
		pr_err("new_device: empty: expected \"ID [ARCH]\"\n");
		err = -EINVAL;
	}
	kfree(copy);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_parse_new_device);

/* Creates a device: echo "ID [ARCH]" > new_device. EEXIST, EINVAL. */
static ssize_t new_device_store(struct device_driver *drv, const char *buf,
				size_t count)
{
	const struct nprof_sim_arch *arch;
	u32 id;
	int err;

	err = nprof_sim_parse_new_device(buf, &id, &arch);
	if (!err)
		err = nprof_sim_dev_new(id, arch);
	if (err == -EEXIST)
		pr_err("new_device: device %u exists already\n", id);
	return err ? err : count;
}
static DRIVER_ATTR_WO(new_device);

/* Removes a device: echo ID > del_device. ENOENT, EINVAL. */
static ssize_t del_device_store(struct device_driver *drv, const char *buf,
				size_t count)
{
	char *copy, *tok;
	u32 id;
	int err;

	copy = kstrdup(buf, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	tok = strim(copy);
	if (!*tok) {
		pr_err("del_device: empty: expected \"ID\"\n");
		err = -EINVAL;
	} else {
		err = nprof_sim_parse_id("del_device", tok, &id);
	}
	kfree(copy);
	if (err)
		return err;

	err = nprof_sim_dev_del(id);
	if (err == -ENOENT)
		pr_err("del_device: no device %u\n", id);
	return err ? err : count;
}
static DRIVER_ATTR_WO(del_device);

static struct attribute *nprof_sim_drv_attrs[] = {
	&driver_attr_new_device.attr,
	&driver_attr_del_device.attr,
	NULL,
};
ATTRIBUTE_GROUPS(nprof_sim_drv);

static struct platform_driver nprof_sim_driver = {
	.probe = nprof_sim_probe,
	.remove = nprof_sim_remove,
	.driver = {
		.name = NPROF_SIM_DRV_NAME,
		.groups = nprof_sim_drv_groups,
		/* new_device reports probe errors, so probe must have run. */
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
	},
};

static void nprof_sim_del_all(void)
{
	struct platform_device *pdev;
	unsigned long id;

	mutex_lock(&nprof_sim_devices_lock);
	xa_for_each(&nprof_sim_devices, id, pdev) {
		xa_erase(&nprof_sim_devices, id);
		platform_device_unregister(pdev);
	}
	mutex_unlock(&nprof_sim_devices_lock);
}

static int __init nprof_sim_init(void)
{
	unsigned int i;
	int err;

	nprof_sim_default_arch = nprof_sim_arch_by_name(nprof_sim_arch_name);
	if (!nprof_sim_default_arch) {
		pr_err("arch=%s: expected trn1, inf2 or trn2\n", nprof_sim_arch_name);
		return -EINVAL;
	}
	if (nprof_sim_initial_devices > NPROF_SIM_MAX_INITIAL_DEVICES) {
		pr_err("devices=%u: at most %u devices at load, add more with new_device\n",
		       nprof_sim_initial_devices, NPROF_SIM_MAX_INITIAL_DEVICES);
		return -EINVAL;
	}

	nprof_sim_debugfs_register();
	err = platform_driver_register(&nprof_sim_driver);
	if (err)
		goto err_debugfs;
	for (i = 0; i < nprof_sim_initial_devices; i++) {
		err = nprof_sim_dev_new(i, nprof_sim_default_arch);
		if (err) {
			pr_err("cannot create device %u of %u: %d\n", i,
			       nprof_sim_initial_devices, err);
			goto err_devices;
		}
	}
	return 0;

err_devices:
	nprof_sim_del_all();
	platform_driver_unregister(&nprof_sim_driver);
err_debugfs:
	nprof_sim_debugfs_unregister();
	return err;
}

static void __exit nprof_sim_exit(void)
{
	/*
	 * Driver first: that removes new_device/del_device (waiting for
	 * writers in progress) and unbinds every device, so no device can be
	 * added behind our back while we delete them.
	 */
	platform_driver_unregister(&nprof_sim_driver);
	nprof_sim_del_all();
	nprof_sim_debugfs_unregister();
}

module_init(nprof_sim_init);
module_exit(nprof_sim_exit);

MODULE_DESCRIPTION("Simulated Neuron devices for neuronprof");
MODULE_LICENSE("GPL");
