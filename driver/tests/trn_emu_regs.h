/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the emulated trn1 (trn_emu.c) keeps its notification queue
 * registers, in the APB BAR the vendor driver maps as "bar0" in its QEMU
 * mode: the offsets nnq_set_hwaddr_v2() and ts_nq_set_hwaddr_v2() write
 * base and size through (v2/address_map.h, v2/notific.h:30-48 of
 * aws-neuronx 2.24.7.0). Shared by the device model and the runtime player
 * of tests/neuron-rig/ (nrt_play.c), so both address one register map.
 */
#ifndef _NEURONPROF_TRN_EMU_REGS_H_
#define _NEURONPROF_TRN_EMU_REGS_H_

/* The notification block of NeuronCore @nc, TopSP @ts, SDMA engine @e of core @nc. */
#define CORE_NOTIFIC(nc)	(0x30535000ULL + (nc) * 0x700000ULL)
#define TS_NOTIFIC(ts)		(0x30e04000ULL + (ts) * 0x40000ULL)
#define SDMA_NOTIFIC(nc, e)	(0x30401000ULL + (nc) * 0x700000ULL + (e) * 0x7000ULL)

/* Register set @i of a block: base low, base high, size, head. */
#define NQ_SET(i)		(0x100 + 0x28 * (i))
#define NQ_BASE_LO		0x0
#define NQ_BASE_HI		0x4
#define NQ_SIZE			0x8
#define NQ_HEAD			0xc

#endif /* _NEURONPROF_TRN_EMU_REGS_H_ */
