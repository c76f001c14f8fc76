/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the vendor's neuron_device.h (mch_test.c): the
 * two structures neuron_mc_handle.c uses, with the members it uses.
 */
#ifndef NPROF_MCH_SHIM_DEVICE_H
#define NPROF_MCH_SHIM_DEVICE_H
#include <linux/kernel.h>
#include "neuron_mc_handle.h"

struct mem_chunk {
	u32 magic;
	neuron_mc_handle_t mc_handle;
};

struct neuron_device {
	int device_index;
	neuron_mc_handle_map_t nmch;
};
#endif
