// SPDX-License-Identifier: GPL-2.0
/*
 * neuronprof_neuron: the parameters. One job: the per-architecture facts
 * the provider is told (entry size, head unit, and what ``neuronprof
 * calibrate`` measures), as module parameters checked when set, and the
 * copy of them a device takes when it is added (nprof_nn_arch_of()).
 */

#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <kunit/visibility.h>

#include "neuron.h"

static struct nprof_nn_arch nprof_nn_archs[] = {
	{ .name = "v2", .vendor_arch = 2, .raw_format = NEURONPROF_RAW_FORMAT_NEURON_V2,
	  .engines_per_core = 5, .entry_size = 64, .head_mode = NPROF_NN_HEAD_RING_ENTRIES },
	{ .name = "v3", .vendor_arch = 3, .raw_format = NEURONPROF_RAW_FORMAT_NEURON_V3,
	  .engines_per_core = 5, .entry_size = 64, .head_mode = NPROF_NN_HEAD_RING_ENTRIES },
};

/**
 * nprof_nn_entry_size_valid() - whether a value fits the entry_size_* parameters.
 * @v: bytes.
 *
 * A power of two from NEURONPROF_RAW_BYTES_PER_ENTRY (32: a device entry is
 * one or more whole raw entries, never a fraction of one) to
 * NPROF_NN_ENTRY_SIZE_MAX.
 *
 * Return: true if valid.
 */
bool nprof_nn_entry_size_valid(u32 v)
{
	return is_power_of_2(v) && v >= NEURONPROF_RAW_BYTES_PER_ENTRY &&
	       v <= NPROF_NN_ENTRY_SIZE_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_entry_size_valid);

/*
 * The parameters are checked when set, at load and through sysfs, so an
 * invalid value never reaches the table; a device takes a copy of its
 * architecture's values when it is added, so a write affects devices added
 * afterwards only.
 */
static int nprof_nn_param_entry_size_set(const char *val, const struct kernel_param *kp)
{
	u32 v;
	int ret = kstrtou32(val, 0, &v);

	if (ret)
		return ret;
	if (!nprof_nn_entry_size_valid(v))
		return -EINVAL;
	WRITE_ONCE(*(u32 *)kp->arg, v);
	return 0;
}

static int nprof_nn_param_head_mode_set(const char *val, const struct kernel_param *kp)
{
	u32 v;
	int ret = kstrtou32(val, 0, &v);

	if (ret)
		return ret;
	if (v > NPROF_NN_HEAD_COUNTER_ENTRIES)
		return -EINVAL;
	WRITE_ONCE(*(u32 *)kp->arg, v);
	return 0;
}

const struct kernel_param_ops nprof_nn_entry_size_ops = {
	.set = nprof_nn_param_entry_size_set,
	.get = param_get_uint,
};
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_entry_size_ops);

const struct kernel_param_ops nprof_nn_head_mode_ops = {
	.set = nprof_nn_param_head_mode_set,
	.get = param_get_uint,
};
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_head_mode_ops);

module_param_cb(entry_size_v2, &nprof_nn_entry_size_ops, &nprof_nn_archs[0].entry_size, 0644);
MODULE_PARM_DESC(entry_size_v2, "UNVERIFIED: bytes of a NeuronCore-v2 queue entry, a power of two from 32 to 256 (default 64); devices added after a change use it");
module_param_cb(entry_size_v3, &nprof_nn_entry_size_ops, &nprof_nn_archs[1].entry_size, 0644);
MODULE_PARM_DESC(entry_size_v3, "UNVERIFIED: bytes of a NeuronCore-v3 queue entry, a power of two from 32 to 256 (default 64); devices added after a change use it");
module_param_cb(head_mode_v2, &nprof_nn_head_mode_ops, &nprof_nn_archs[0].head_mode, 0644);
MODULE_PARM_DESC(head_mode_v2, "UNVERIFIED: what a v2 head register holds: 0 entry index in the ring (default), 1 byte offset in the ring, 2 free-running 32-bit entry counter");
module_param_cb(head_mode_v3, &nprof_nn_head_mode_ops, &nprof_nn_archs[1].head_mode, 0644);
MODULE_PARM_DESC(head_mode_v3, "UNVERIFIED: what a v3 head register holds: 0 entry index in the ring (default), 1 byte offset in the ring, 2 free-running 32-bit entry counter");

/*
 * The facts `neuronprof calibrate` measures beyond entry size and head
 * unit (Documentation/hardware.rst); it writes them as a modprobe options
 * file. Checked when a device is added (nprof_nn_arch_of()).
 */
module_param_array_named(type_entry_size_v2, nprof_nn_archs[0].type_entry_size, uint, NULL,
			 0644);
MODULE_PARM_DESC(type_entry_size_v2,
		 "UNVERIFIED: entry bytes per vendor queue type (TRACE,NOTIFY,EVENT,ERROR,TRACE_DMA,THROTTLE), 0 for entry_size_v2");
module_param_named(head_lag_v2, nprof_nn_archs[0].head_lag, uint, 0644);
MODULE_PARM_DESC(head_lag_v2, "UNVERIFIED: bytes the head lags the consumed position (default 0)");
module_param_named(phase_bit_v2, nprof_nn_archs[0].phase_bit, uint, 0644);
MODULE_PARM_DESC(phase_bit_v2,
		 "UNVERIFIED: head bit the runtime flips on a wrap, 0 for none (default)");
module_param_named(head_sets_v2, nprof_nn_archs[0].head_sets, uint, 0644);
MODULE_PARM_DESC(head_sets_v2,
		 "UNVERIFIED: 0 a head write is for the queue last programmed in its register set (default); 1 for type set/16, engine set%16");
module_param_named(reprogram_v2, nprof_nn_archs[0].reprogram, uint, 0644);
MODULE_PARM_DESC(reprogram_v2,
		 "UNVERIFIED: a queue programmed in new memory is written from 0 its head register (default), 1 reset_head_v2");
module_param_named(reset_head_v2, nprof_nn_archs[0].reset_head, uint, 0644);
MODULE_PARM_DESC(reset_head_v2, "UNVERIFIED: the head register after a reset (with reprogram_v2=1, or head_read_v2=2)");
module_param_named(head_read_v2, nprof_nn_archs[0].head_read, uint, 0644);
MODULE_PARM_DESC(head_read_v2,
		 "UNVERIFIED: 1 a read of a head register returns the last head written, the baseline of a queue found programmed already (default 0: its first head write is); 2 it returns one value whatever was written: the heads written since the last core reset say where a re-programmed queue starts");

module_param_array_named(type_entry_size_v3, nprof_nn_archs[1].type_entry_size, uint, NULL,
			 0644);
MODULE_PARM_DESC(type_entry_size_v3,
		 "UNVERIFIED: entry bytes per vendor queue type (TRACE,NOTIFY,EVENT,ERROR,TRACE_DMA,THROTTLE), 0 for entry_size_v3");
module_param_named(head_lag_v3, nprof_nn_archs[1].head_lag, uint, 0644);
MODULE_PARM_DESC(head_lag_v3, "UNVERIFIED: bytes the head lags the consumed position (default 0)");
module_param_named(phase_bit_v3, nprof_nn_archs[1].phase_bit, uint, 0644);
MODULE_PARM_DESC(phase_bit_v3,
		 "UNVERIFIED: head bit the runtime flips on a wrap, 0 for none (default)");
module_param_named(head_sets_v3, nprof_nn_archs[1].head_sets, uint, 0644);
MODULE_PARM_DESC(head_sets_v3,
		 "UNVERIFIED: 0 a head write is for the queue last programmed in its register set (default); 1 for type set/16, engine set%16");
module_param_named(reprogram_v3, nprof_nn_archs[1].reprogram, uint, 0644);
MODULE_PARM_DESC(reprogram_v3,
		 "UNVERIFIED: a queue programmed in new memory is written from 0 its head register (default), 1 reset_head_v3");
module_param_named(reset_head_v3, nprof_nn_archs[1].reset_head, uint, 0644);
MODULE_PARM_DESC(reset_head_v3, "UNVERIFIED: the head register after a reset (with reprogram_v3=1, or head_read_v3=2)");
module_param_named(head_read_v3, nprof_nn_archs[1].head_read, uint, 0644);
MODULE_PARM_DESC(head_read_v3,
		 "UNVERIFIED: 1 a read of a head register returns the last head written, the baseline of a queue found programmed already (default 0: its first head write is); 2 it returns one value whatever was written: the heads written since the last core reset say where a re-programmed queue starts");

/*
 * The calibrated facts: entry sizes as entry_size's, a lag of whole
 * entries of every type below 1 MiB, a phase bit (not with a counter; a
 * head that still is past its ring without it is refused as a head), the
 * two switches 0 or 1, head_read 0 to 2.
 */
static bool nprof_nn_facts_valid(const struct nprof_nn_arch *a)
{
	unsigned int t;

	for (t = 0; t < NPROF_NN_NQ_TYPES; t++) {
		u32 es = a->type_entry_size[t] ?: a->entry_size;

		if (!nprof_nn_entry_size_valid(es) || a->head_lag % es)
			return false;
	}
	return a->head_lag < SZ_1M && a->head_sets <= 1 && a->reprogram <= 1 &&
	       a->head_read <= NPROF_NN_HEAD_READ_FIXED &&
	       (!a->phase_bit ||
		(a->phase_bit < 32 && a->head_mode != NPROF_NN_HEAD_COUNTER_ENTRIES));
}

/**
 * nprof_nn_arch_of() - the architecture of a vendor arch value, as the
 *	parameters are now.
 * @vendor_arch: the vendor's enum neuron_arch.
 * @arch: out, a copy.
 *
 * Return: false for an architecture without profiling support (v1). The
 * parameters were checked when set; they are checked again here so that
 * nothing below ever divides by a part count of 0.
 */
bool nprof_nn_arch_of(u32 vendor_arch, struct nprof_nn_arch *arch)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nprof_nn_archs); i++) {
		const struct nprof_nn_arch *a = &nprof_nn_archs[i];

		if (a->vendor_arch != vendor_arch)
			continue;
		*arch = *a;
		arch->entry_size = READ_ONCE(a->entry_size);
		arch->head_mode = READ_ONCE(a->head_mode);
		return nprof_nn_entry_size_valid(arch->entry_size) &&
		       arch->head_mode <= NPROF_NN_HEAD_COUNTER_ENTRIES &&
		       nprof_nn_facts_valid(arch);
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_arch_of);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * nprof_nn_set_format() - set entry size and head mode of v2 (KUnit), for
 *	devices added afterwards, through the parameters' checks.
 * @entry_size: bytes.
 * @head_mode: enum nprof_nn_head_mode.
 *
 * Return: 0, or -EINVAL (nothing changed) for a value the parameters refuse.
 */
int nprof_nn_set_format(u32 entry_size, u32 head_mode)
{
	const struct kernel_param es = { .arg = &nprof_nn_archs[0].entry_size };
	const struct kernel_param hm = { .arg = &nprof_nn_archs[0].head_mode };
	char buf[2][16];

	snprintf(buf[0], sizeof(buf[0]), "%u", entry_size);
	snprintf(buf[1], sizeof(buf[1]), "%u", head_mode);
	if (!nprof_nn_entry_size_valid(entry_size) || head_mode > NPROF_NN_HEAD_COUNTER_ENTRIES)
		return -EINVAL;
	return nprof_nn_entry_size_ops.set(buf[0], &es) ?: nprof_nn_head_mode_ops.set(buf[1], &hm);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_set_format);
#endif
