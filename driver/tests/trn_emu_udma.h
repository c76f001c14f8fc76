/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The emulated Trainium's host-device DMA queues (trn_emu_udma.c), for
 * the device model of trn_emu.c.
 */
#ifndef _NEURONPROF_TRN_EMU_UDMA_H_
#define _NEURONPROF_TRN_EMU_UDMA_H_

#include <linux/types.h>

struct seq_file;
struct emu_udma;

/**
 * struct emu_udma_cfg - where the model finds its registers and memory.
 * @apb: the register BAR, mapped.
 * @dram_pa: guest-physical address of BAR4's memory.
 * @dram_size: its bytes; a device address below it is that BAR4 offset.
 * @host_base: the bits that mark a host address.
 * @host_mask: the bits compared with @host_base.
 * @nc: NeuronCores, one host-device queue each.
 * @eng_off: register BAR offset of core @n's engine.
 * @qid: its queue in that engine.
 */
struct emu_udma_cfg {
	void __iomem *apb;
	phys_addr_t dram_pa;
	u64 dram_size;
	u64 host_base, host_mask;
	unsigned int nc;
	u64 (*eng_off)(unsigned int n);
	unsigned int (*qid)(unsigned int n);
};

struct emu_udma *emu_udma_start(const struct emu_udma_cfg *cfg);
void emu_udma_stop(struct emu_udma *u);
void emu_udma_show(struct seq_file *m, struct emu_udma *u);

#endif /* _NEURONPROF_TRN_EMU_UDMA_H_ */
