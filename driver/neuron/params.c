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
#include <linux/string.h>
#include <linux/sysfs.h>
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

/*
 * One unsigned parameter of each architecture, @name_v2 setting member
 * @member of v2's table row and @name_v3 v3's, both set through @ops (which
 * may check the value), with one description: module_param_named() but for
 * the ops. Each name is written out in full where the macro is used, so
 * that a search for a parameter's name finds its definition.
 */
#define NPROF_NN_PARAM_PAIR(name_v2, name_v3, ops, member, desc)		\
	param_check_uint(name_v2, &nprof_nn_archs[0].member);			\
	module_param_cb(name_v2, ops, &nprof_nn_archs[0].member, 0644);		\
	__MODULE_PARM_TYPE(name_v2, "uint");					\
	MODULE_PARM_DESC(name_v2, desc);					\
	param_check_uint(name_v3, &nprof_nn_archs[1].member);			\
	module_param_cb(name_v3, ops, &nprof_nn_archs[1].member, 0644);		\
	__MODULE_PARM_TYPE(name_v3, "uint");					\
	MODULE_PARM_DESC(name_v3, desc)

NPROF_NN_PARAM_PAIR(entry_size_v2, entry_size_v3, &nprof_nn_entry_size_ops, entry_size,
		    "UNVERIFIED: bytes of a queue entry of the NeuronCore version the name ends in, a power of two from 32 to 256 (default 64); devices added after a change use it");
NPROF_NN_PARAM_PAIR(head_mode_v2, head_mode_v3, &nprof_nn_head_mode_ops, head_mode,
		    "UNVERIFIED: what a head register of the NeuronCore version the name ends in holds: 0 entry index in the ring (default), 1 byte offset in the ring, 2 free-running 32-bit entry counter");

/*
 * devmem_read: how a head write reads a queue in device memory, fromio
 * (default) or dma; read at load (the hook's function is looked up then).
 */
int nprof_nn_devmem_read = NPROF_NN_DEVMEM_FROMIO;
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_devmem_read);

static const char *const nprof_nn_devmem_names[] = {
	[NPROF_NN_DEVMEM_FROMIO] = "fromio",
	[NPROF_NN_DEVMEM_DMA] = "dma",
};

static int nprof_nn_param_devmem_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(nprof_nn_devmem_names, val);

	if (i < 0)
		return -EINVAL;
	*(int *)kp->arg = i;
	return 0;
}

static int nprof_nn_param_devmem_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", nprof_nn_devmem_names[*(int *)kp->arg]);
}

static const struct kernel_param_ops nprof_nn_devmem_ops = {
	.set = nprof_nn_param_devmem_set,
	.get = nprof_nn_param_devmem_get,
};
module_param_cb(devmem_read, &nprof_nn_devmem_ops, &nprof_nn_devmem_read, 0444);
__MODULE_PARM_TYPE(devmem_read, "string");
MODULE_PARM_DESC(devmem_read,
		 "how a head write reads a queue in device memory: fromio, memcpy_fromio() through BAR4 (default); dma, the vendor's DMA copy into a host buffer (hook patch 11); set at load");

/*
 * The facts `neuronprof calibrate` measures beyond entry size and head
 * unit (Documentation/hardware.rst); it writes them as a modprobe options
 * file. Checked when a device is added (nprof_nn_arch_of()).
 */
module_param_array_named(type_entry_size_v2, nprof_nn_archs[0].type_entry_size, uint, NULL,
			 0644);
MODULE_PARM_DESC(type_entry_size_v2,
		 "UNVERIFIED: entry bytes per vendor queue type (TRACE,NOTIFY,EVENT,ERROR,TRACE_DMA,THROTTLE), 0 for entry_size_v2");
module_param_array_named(type_entry_size_v3, nprof_nn_archs[1].type_entry_size, uint, NULL,
			 0644);
MODULE_PARM_DESC(type_entry_size_v3,
		 "UNVERIFIED: entry bytes per vendor queue type (TRACE,NOTIFY,EVENT,ERROR,TRACE_DMA,THROTTLE), 0 for entry_size_v3");
NPROF_NN_PARAM_PAIR(head_lag_v2, head_lag_v3, &param_ops_uint, head_lag,
		    "UNVERIFIED: bytes the head lags the consumed position (default 0)");
NPROF_NN_PARAM_PAIR(phase_bit_v2, phase_bit_v3, &param_ops_uint, phase_bit,
		    "UNVERIFIED: head bit the runtime flips on a wrap, 0 for none (default)");
NPROF_NN_PARAM_PAIR(head_sets_v2, head_sets_v3, &param_ops_uint, head_sets,
		    "UNVERIFIED: 0 a head write is for the queue last programmed in its register set (default); 1 for type set/16, engine set%16");
NPROF_NN_PARAM_PAIR(reprogram_v2, reprogram_v3, &param_ops_uint, reprogram,
		    "UNVERIFIED: a queue programmed in new memory is written from 0 its head register (default), 1 reset_head_v2 (reset_head_v3 for reprogram_v3)");
NPROF_NN_PARAM_PAIR(reset_head_v2, reset_head_v3, &param_ops_uint, reset_head,
		    "UNVERIFIED: the head register after a reset (with reprogram_v2=1 or head_read_v2=2; for reset_head_v3, reprogram_v3=1 or head_read_v3=2)");
NPROF_NN_PARAM_PAIR(head_read_v2, head_read_v3, &param_ops_uint, head_read,
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

/**
 * nprof_nn_set_head_read() - set head_read, reprogram and reset_head of v2
 *	(KUnit), for devices added afterwards.
 * @head_read: what a head register read returns (NPROF_NN_HEAD_READ_*).
 * @reprogram: where a queue programmed in new memory is written from.
 * @reset_head: the head register after a reset.
 *
 * Return: 0, or -EINVAL (nothing changed) for a value the parameters refuse.
 */
int nprof_nn_set_head_read(u32 head_read, u32 reprogram, u32 reset_head)
{
	struct nprof_nn_arch *a = &nprof_nn_archs[0];

	if (head_read > NPROF_NN_HEAD_READ_FIXED || reprogram > 1)
		return -EINVAL;
	WRITE_ONCE(a->head_read, head_read);
	WRITE_ONCE(a->reprogram, reprogram);
	WRITE_ONCE(a->reset_head, reset_head);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_set_head_read);
#endif
