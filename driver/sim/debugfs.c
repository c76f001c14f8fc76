// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: fault injection
 *
 * Fault injection for simulated devices, in debugfs and never in the uapi:
 * /sys/kernel/debug/neuronprof_sim/<id>/<knob>. Each knob holds a number,
 * 0 meaning off; enabling any of them taints the kernel with TAINT_TEST, since
 * a kernel whose devices were told to misbehave is a test kernel.
 *
 * One more file reports rather than injects: pace_behind_ns is the most host
 * time a paced execution was found behind its device-time pace since 0 was
 * last written to it (see "Device time" in Documentation/simulator.rst).
 * A test that expects record to keep up with the device's pace reads it to
 * tell a drainer too slow from a host that did not let the device keep its
 * pace (an execution behind its pace produces what is due at memory speed).
 */

#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/panic.h>

#include "sim.h"

/**
 * struct nprof_sim_knob_info - what a knob accepts.
 * @name: its debugfs file.
 * @max: largest value; larger writes fail with EINVAL.
 */
struct nprof_sim_knob_info {
	const char *name;
	u32 max;
};

static const struct nprof_sim_knob_info nprof_sim_knob_infos[NPROF_SIM_NUM_KNOBS] = {
	[NPROF_SIM_FAIL_NEXT_SUBSCRIBE] = { "fail_next_subscribe", NPROF_SIM_MAX_ERRNO },
	[NPROF_SIM_FORCE_OVERFLOW] = { "force_overflow", 1 },
	[NPROF_SIM_FLUSH_STALL_MS] = { "flush_stall_ms", NPROF_SIM_MAX_FLUSH_STALL_MS },
	[NPROF_SIM_FLUSH_FAIL] = { "flush_fail", NPROF_SIM_MAX_ERRNO },
	[NPROF_SIM_EXEC_ERROR] = { "exec_error", 1 },
	[NPROF_SIM_BUILD_UNSTARTED] = { "build_unstarted", 1 },
};

static struct dentry *nprof_sim_debugfs_root;

static int nprof_sim_knob_get(void *data, u64 *val)
{
	struct nprof_sim_knob *knob = data;

	*val = atomic_read(&knob->value);
	return 0;
}

static int nprof_sim_knob_set(void *data, u64 val)
{
	struct nprof_sim_knob *knob = data;
	struct nprof_sim_device *sdev = knob->sdev;
	const struct nprof_sim_knob_info *info = &nprof_sim_knob_infos[knob - sdev->knobs];

	if (val > info->max) {
		dev_err(sdev->dev, "%s: %llu is out of range 0..%u\n",
			info->name, val, info->max);
		return -EINVAL;
	}
	if (val) {
		add_taint(TAINT_TEST, LOCKDEP_STILL_OK);
		if (!atomic_xchg(&sdev->tainted, 1))
			dev_warn(sdev->dev, "fault injection enabled (%s): kernel tainted with TAINT_TEST\n",
				 info->name);
	}
	atomic_set(&knob->value, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(nprof_sim_knob_fops, nprof_sim_knob_get,
			 nprof_sim_knob_set, "%llu\n");

static int nprof_sim_pace_behind_get(void *data, u64 *val)
{
	struct nprof_sim_device *sdev = data;

	*val = atomic64_read(&sdev->pace_behind_max);
	return 0;
}

static int nprof_sim_pace_behind_set(void *data, u64 val)
{
	struct nprof_sim_device *sdev = data;

	if (val) {
		dev_err(sdev->dev, "pace_behind_ns: only 0 (reset) can be written, not %llu\n",
			val);
		return -EINVAL;
	}
	atomic64_set(&sdev->pace_behind_max, 0);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(nprof_sim_pace_behind_fops, nprof_sim_pace_behind_get,
			 nprof_sim_pace_behind_set, "%llu\n");

/**
 * nprof_sim_debugfs_init() - create the knobs of a device.
 * @sdev: the device.
 *
 * Like all of debugfs, failures are not errors: the device works without it.
 */
void nprof_sim_debugfs_init(struct nprof_sim_device *sdev)
{
	char name[16];
	int i;

	for (i = 0; i < NPROF_SIM_NUM_KNOBS; i++) {
		sdev->knobs[i].sdev = sdev;
		atomic_set(&sdev->knobs[i].value, 0);
	}
	snprintf(name, sizeof(name), "%u", sdev->id);
	sdev->debugfs = debugfs_create_dir(name, nprof_sim_debugfs_root);
	for (i = 0; i < NPROF_SIM_NUM_KNOBS; i++)
		debugfs_create_file_unsafe(nprof_sim_knob_infos[i].name, 0600,
					   sdev->debugfs, &sdev->knobs[i],
					   &nprof_sim_knob_fops);
	atomic64_set(&sdev->pace_behind_max, 0);
	debugfs_create_file_unsafe("pace_behind_ns", 0600, sdev->debugfs, sdev,
				   &nprof_sim_pace_behind_fops);
}

/**
 * nprof_sim_debugfs_fini() - remove the knobs of a device.
 * @sdev: the device.
 *
 * Returns after every access to them in progress finished.
 */
void nprof_sim_debugfs_fini(struct nprof_sim_device *sdev)
{
	debugfs_remove_recursive(sdev->debugfs);
	sdev->debugfs = NULL;
}

/**
 * nprof_sim_debugfs_register() - create /sys/kernel/debug/neuronprof_sim.
 */
void nprof_sim_debugfs_register(void)
{
	nprof_sim_debugfs_root = debugfs_create_dir(NPROF_SIM_DRV_NAME, NULL);
}

/**
 * nprof_sim_debugfs_unregister() - remove /sys/kernel/debug/neuronprof_sim.
 */
void nprof_sim_debugfs_unregister(void)
{
	debugfs_remove_recursive(nprof_sim_debugfs_root);
	nprof_sim_debugfs_root = NULL;
}
