/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the emulated Trainium (trn_emu.c) keeps its notification queue
 * registers, in the APB BAR the vendor driver maps as "bar0" in its QEMU
 * mode: the offsets nnq_set_hwaddr_v2/_v3() and ts_nq_set_hwaddr_v2/_v3()
 * write base and size through. Shared by the device model and the runtime
 * player of tests/neuron-rig/ (nrt_play.c), so both address one register
 * map. Every line restates the vendor's aws-neuronx 2.24.7.0 tree, cited
 * file:line, so that a change there shows up as a rig failure.
 */
#ifndef _NEURONPROF_TRN_EMU_REGS_H_
#define _NEURONPROF_TRN_EMU_REGS_H_

/*
 * trn1 (NeuronCore-v2, device 0x7164): the notification block of NeuronCore
 * @nc, TopSP @ts, SDMA engine @e of core @nc (v2/address_map.h,
 * v2/notific.h:30-48, v2/notific.c:31).
 */
#define CORE_NOTIFIC(nc)	(0x30535000ULL + (nc) * 0x700000ULL)
#define TS_NOTIFIC(ts)		(0x30e04000ULL + (ts) * 0x40000ULL)
#define SDMA_NOTIFIC(nc, e)	(0x30401000ULL + (nc) * 0x700000ULL + (e) * 0x7000ULL)

/*
 * trn2 (NeuronCore-v3, device 0x7364, neuron_device.h:42). The BAR is no
 * longer one APB window: two IO dies at 0 and 1 GiB
 * (V3_PCIE_BAR0_APB_IO_0/1_OFFSET, v3/address_map.h:122-123) and four
 * SENG blocks at 2, 2.25, 2.5, 2.75 GiB (V3_PCIE_BAR0_APB_SE_0..3_OFFSET,
 * :126-129), so the BAR is 4 GiB.
 *
 * Core @nc (notific_get_relative_offset_v3(), v3/notific.h:30-47): SENG
 * nc / 2 of die nc / 4, V3_APB_IO_0_SE_0/1_RELBASE 0x6000000/0x6400000
 * (v3/address_map.h:197-200), V3_APB_IO_0_SE_0_TPB_0_SIZE 0x180000 per
 * core of a SENG (:201), TPB_TOP_NOTIFIC_RELBASE 0x1000 (:203).
 */
#define EMU_V3_CORE_NOTIFIC(nc)	((nc) / 4 * 0x40000000ULL + 0x6000000ULL +		\
				 (nc) / 2 % 2 * 0x400000ULL + (nc) % 2 * 0x180000ULL +	\
				 0x1000ULL)
/*
 * TopSP @ts (notific_get_relative_offset_topsp_v3(), v3/notific.h:51-60):
 * die ts / 8 (V3_TS_PER_DIE, v3/address_map.h:71), USER_IO_RELBASE
 * 0x6800000 (:37) + TOP_SP_0_RELBASE 0x200000 + 0x40000 per TopSP (:207-208).
 */
#define EMU_V3_TS_NOTIFIC(ts)	((ts) / 8 * 0x40000000ULL + 0x6a00000ULL + (ts) % 8 * 0x40000ULL)
/*
 * SDMA engine @e of core @nc (notific_get_relative_offset_sdma_v3() and
 * get_sdma_misc_base(), v3/notific.c:14-42): SENG nc / 2 at 2 GiB +
 * 256 MiB each, its SDMA_0 at 0x2000000 (SE_0, SE_2) or 0x4000000 (SE_1,
 * SE_3) into the SENG (V3_APB_SE_*_SDMA_0_BASE - V3_APB_SE_*_BASE,
 * v3/address_map.h:179-188), 1 MiB per engine (V3_APB_SDMA_DIST, :183),
 * 16 engines per core, the engine's MISC at +0x40000 (:189) and its
 * notification block at +0x1000 of that (V3_APB_SENG_0_SDMA_0_NOTIFIC_RELBASE, :196).
 */
#define EMU_V3_SDMA_NOTIFIC(nc, e) (0x80000000ULL + (nc) / 2 * 0x10000000ULL +		\
				    ((nc) / 2 % 2 + 1) * 0x2000000ULL +			\
				    ((e) + (nc) % 2 * 16) * 0x100000ULL + 0x41000ULL)

/*
 * Register set @i of a block: base low, base high, size, head
 * (NOTIFIC_NQ_SIZE and the *_OFFSET_START of v2/notific.h:53-80 and
 * v3/notific.h:71-98; the head, NOTIFIC_NQ_HEAD_OFFSET 0x10c, v2/notific.c:13,
 * v3/notific.c:12). The same in both.
 */
#define NQ_SET(i)		(0x100 + 0x28 * (i))
#define NQ_BASE_LO		0x0
#define NQ_BASE_HI		0x4
#define NQ_SIZE			0x8
#define NQ_HEAD			0xc

/*
 * What the emulated hardware writes in word 0 of entry @i of the queue of
 * register set @set of block @blk (0 core, 1 TopSP, 2 SDMA) instance @n
 * (an SDMA instance is core * 16 + engine, up to 127 on trn2).
 */
#define EMU_ENTRY_KEY(blk, n, set)	((unsigned int)(blk) << 14 | (unsigned int)(n) << 7 | (set))
#define EMU_ENTRY_WORD0(key, i)		(0xE3D0ULL << 48 | (unsigned long long)(key) << 32 | \
					 (unsigned int)(i))

/*
 * The UDMA queue a core's host-device copies go through (ndma_memcpy(),
 * neuron_dma.c:566, on ndmar_get_h2t_eng_id()/_qid()). trn1: core 0 uses
 * engine 32 (V2_D2H_IDX), core 1 engine 33 (V2_H2D_IDX), queue 0
 * (v2/neuron_dhal_v2.c:535-549, v2/address_map.h:98-99), their UDMA
 * registers at V2_APB_D2H/H2D_UDMA_BASE - V2_APB_BASE into the APB window
 * at V2_PCIE_BAR0_APB_OFFSET (v2/neuron_dhal_v2.c:1414-1420,
 * v2/address_map.h:79,87,170-171). trn2: SENG nc / 2 picks D2H_0, H2D_0,
 * D2H_1, H2D_1, queue nc % 2 (v3/neuron_dhal_v3.c:741-762), at
 * V3_APB_IO_0/1_D2H/H2D_UDMA_BASE - V3_APB_IO_0/1_BASE into IO die 0 or 1
 * (v3/neuron_dhal_v3.c:1649-1654, v3/address_map.h:86-87,122-123,191-194).
 */
#define EMU_V2_H2T_UDMA(nc)	((nc) ? 0x30d00000ULL : 0x30600000ULL)
#define EMU_V2_H2T_QID(nc)	0U
#define EMU_V3_H2T_UDMA(nc)	((nc) / 4 * 0x40000000ULL + 0x6800000ULL +	\
				 (nc) / 2 % 2 * 0x100000ULL)
#define EMU_V3_H2T_QID(nc)	((nc) % 2U)

/*
 * A UDMA engine's queue registers (struct unit_regs_v4, udma/udma_regs.h:627-635;
 * udma_init(), udma/udma_main.c:287-306): M2S (TX, source) queue @q at
 * 0x1000 + 0x1000 * q, S2M (RX, destination) queue @q 0x20000 further
 * (struct udma_m2s_regs_v4 :132-143, udma_s2m_regs_v4 :382-390), each with
 * the ring's base (low, high), length in descriptors, head, tail increment
 * and tail (struct udma_rings_regs :638-653), and its software control,
 * where udma_q_reset() (udma/udma_main.c:404-422) writes RST_Q (bit 8,
 * udma/udma_regs.h:282,432) when the driver (re)initialises the queue.
 */
#define UDMA_M2S_Q(q)		(0x1000ULL + 0x1000ULL * (q))
#define UDMA_S2M_Q(q)		(0x21000ULL + 0x1000ULL * (q))
#define UDMA_Q_DRBP_LO		0x28
#define UDMA_Q_DRBP_HI		0x2c
#define UDMA_Q_DRL		0x30
#define UDMA_Q_DRHP		0x34
#define UDMA_Q_DRTP_INC		0x38
#define UDMA_Q_DRTP		0x3c
#define UDMA_M2S_Q_SW_CTRL	0xb0
#define UDMA_S2M_Q_SW_CTRL	0x64
#define UDMA_Q_SW_CTRL_RST_Q	0x100U

/*
 * A descriptor, 16 bytes (union udma_desc, udma/udma.h:38-58): word 0 the
 * length in bits 0-15 (0 is 64 KiB, udma_m2m_build_tx_descriptor(),
 * udma/udma_m2m.c:289-296) and the ring id in bits 24-25 (:65); the
 * buffer's address in bytes 8-15, the source for M2S, the destination
 * for S2M.
 */
#define UDMA_DESC_SIZE		16
#define UDMA_DESC_LEN_MASK	0xffffU
#define UDMA_DESC_MAX_LEN	0x10000U

#endif /* _NEURONPROF_TRN_EMU_REGS_H_ */
