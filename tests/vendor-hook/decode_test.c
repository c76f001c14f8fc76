// SPDX-License-Identifier: GPL-2.0
/*
 * The hook's head-register decoder (driver/neuron/vendor/0004, in the
 * vendor's v2/notific.c and v3/notific.c) checked against the vendor's own
 * address maps, in userspace: scripts/vendor-hook-test.sh compiles this file
 * with the patched vendor tree on the include path and links it with that
 * tree's notific.c, once per architecture (-DNQ_V=2 or 3), against the
 * stand-in kernel headers of shim/.
 *
 *   - literal head offsets computed by hand from address_map.h, among them
 *     the v2 TRACE_DMA head 0x3040110c that the vendor's own
 *     notific_decode_nq_head_reg_access_v2() drops;
 *   - every register set the driver programs (nnq_set_hwaddr_vN: set
 *     "index" of a NeuronCore block, set 0 of each SDMA engine's block;
 *     ts_nq_set_hwaddr_vN: set "index" of a TopSP block), at
 *     NOTIFIC_NQ_BASE_ADDR_LO_OFFSET(i) + 0xc, decodes to that queue;
 *   - base, size and other offsets are not heads;
 *   - the register map of the rig's emulated function (driver/tests/
 *     trn_emu_regs.h, which the device model and the runtime player use)
 *     is the vendor's: every NeuronCore, SDMA engine and TopSP block.
 *
 * Prints "ok"/"not ok" lines and ends with "N passed, N failed".
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/types.h>
#include <share/neuron_driver_shared.h>

#if NQ_V == 2
#include "v2/notific.h"
#define ARCH			"v2"
#define CORES			V2_MMAP_TPB_COUNT
#define ENGINES			V2_NUM_DMA_ENGINES_PER_TPB
#define TOPSPS			V2_TS_PER_DEVICE
#define decode			neuron_nq_hook_decode_v2
#define vendor_decode		notific_decode_nq_head_reg_access_v2
#define core_block		notific_get_relative_offset_v2
#define sdma_block		notific_get_relative_offset_sdma_v2
#define topsp_block		notific_get_relative_offset_topsp_v2
#elif NQ_V == 3
#include "v3/notific.h"
#define ARCH			"v3"
#define CORES			V3_MMAP_TPB_COUNT
#define ENGINES			V3_NUM_DMA_ENGINES_PER_TPB
#define TOPSPS			V3_TS_PER_DEVICE
#define decode			neuron_nq_hook_decode_v3
#define vendor_decode		notific_decode_nq_head_reg_access_v3
#define core_block		notific_get_relative_offset_v3
#define sdma_block		notific_get_relative_offset_sdma_v3
#define topsp_block		notific_get_relative_offset_topsp_v3
#else
#error "NQ_V must be 2 or 3"
#endif
#include "neuron_nq_hook_decode.h"
#include "trn_emu_regs.h"	/* driver/tests/: the rig's restatement */

#define HARNESS_STANDALONE	/* the library's headers are not on the path */
#include "../../lib/tests/harness.h"

#if NQ_V == 2
#define EMU_CORE(nc)		CORE_NOTIFIC(nc)
#define EMU_SDMA(nc, e)		SDMA_NOTIFIC(nc, e)
#define EMU_TS(ts)		TS_NOTIFIC(ts)
#else
#define EMU_CORE(nc)		EMU_V3_CORE_NOTIFIC(nc)
#define EMU_SDMA(nc, e)		EMU_V3_SDMA_NOTIFIC(nc, e)
#define EMU_TS(ts)		EMU_V3_TS_NOTIFIC(ts)
#endif

/* Register sets a block holds: 6 queue types x 16 instances. */
#define SETS		96
#define HEAD(i)		(NOTIFIC_NQ_BASE_ADDR_LO_OFFSET(i) + 0xc)

static void result(int ok, const char *what)
{
	harness_result(ok, "%s: %s", ARCH, what);
}

/* @off decodes to exactly @want; a message on stdout if not. */
static int is(u64 off, const struct neuron_nq_hook_qid *want)
{
	struct neuron_nq_hook_qid got;

	memset(&got, 0xa5, sizeof(got));
	if (decode(off, &got)) {
		harness_diag("0x%" PRIx64 ": not decoded", off);
		return 0;
	}
	if (got.target != want->target || got.id != want->id || got.nq_type != want->nq_type ||
	    got.instance != want->instance || got.sdma != want->sdma || got.reg != want->reg) {
		harness_diag("0x%" PRIx64 ": target %u id %u type %u instance %u sdma %u reg %u, want %u %u %u %u %u %u",
		       off, got.target, got.id, got.nq_type, got.instance, got.sdma, got.reg,
		       want->target, want->id, want->nq_type, want->instance, want->sdma, want->reg);
		return 0;
	}
	return 1;
}

static int not_head(u64 off)
{
	struct neuron_nq_hook_qid got;

	if (!decode(off, &got)) {
		harness_diag("0x%" PRIx64 " decoded as a head (target %u id %u reg %u sdma %u)",
		       off, got.target, got.id, got.reg, got.sdma);
		return 0;
	}
	return 1;
}

static struct neuron_nq_hook_qid q_set(u8 target, u8 id, int set)
{
	return (struct neuron_nq_hook_qid) {
		.target = target, .id = id, .nq_type = set / 16, .instance = set % 16, .reg = set,
	};
}

static struct neuron_nq_hook_qid q_sdma(u8 id, u8 eng)
{
	return (struct neuron_nq_hook_qid) {
		.target = NEURON_NQ_HOOK_NC, .id = id, .nq_type = NQ_TYPE_TRACE_DMA,
		.instance = eng, .sdma = 1,
	};
}

static void literals(void)
{
	struct neuron_nq_hook_qid q;
	u32 nq_type;
	u8 nc, inst;
	bool ts;
	int ok;

#if NQ_V == 2
	/* SDMA engine 0 of core 0: BAR0 APB + (SDMA_0 - APB base) + notific relbase + 0x10c. */
	q = q_sdma(0, 0);
	result(0x3040110cULL == V2_PCIE_BAR0_APB_OFFSET + (V2_APB_SENG_0_SDMA_0_BASE - V2_APB_BASE) +
				V2_APB_SENG_0_SDMA_0_NOTIFIC_RELBASE + 0x10c &&
	       is(0x3040110c, &q), "TRACE_DMA head 0x3040110c (core 0, SDMA 0)");
	ok = vendor_decode(0x3040110c, &nc, &nq_type, &inst, &ts) != 0;
	result(ok, "the vendor's notific_decode_nq_head_reg_access_v2 drops 0x3040110c (why the hook has its own)");
	q = q_sdma(1, 15);
	result(is(V2_PCIE_BAR0_APB_OFFSET + (V2_APB_SENG_1_SDMA_15_BASE - V2_APB_BASE) +
		  V2_APB_SENG_0_SDMA_0_NOTIFIC_RELBASE + 0x10c, &q), "TRACE_DMA head of core 1, SDMA 15");
	q = q_set(NEURON_NQ_HOOK_NC, 0, 0);
	result(is(0x3053510c, &q), "core 0 set 0 head 0x3053510c");
	q = q_set(NEURON_NQ_HOOK_NC, 1, 17);
	result(is(0x30c3510c + 17 * 0x28, &q), "core 1 set 17 head (NOTIFY, instance 1)");
	q = q_set(NEURON_NQ_HOOK_TOPSP, 0, 0);
	result(is(0x30e0410c, &q), "TopSP 0 set 0 head 0x30e0410c");
	q = q_set(NEURON_NQ_HOOK_TOPSP, 5, 3);
	result(is(0x30f4410c + 3 * 0x28, &q), "TopSP 5 set 3 head");
#else
	/* SE 0's BAR0 window + (SDMA 0 misc base - SE 0 base) + notific relbase + 0x10c. */
	q = q_sdma(0, 0);
	result(0x8204110cULL == V3_PCIE_BAR0_APB_SE_0_OFFSET +
				(V3_APB_SE_0_SDMA_0_BASE + V3_APB_SDMA_MISC_OFFSET - V3_APB_SE_0_BASE) +
				V3_APB_SENG_0_SDMA_0_NOTIFIC_RELBASE + 0x10c &&
	       is(0x8204110c, &q), "TRACE_DMA head 0x8204110c (core 0, SDMA 0)");
	ok = vendor_decode(0x8204110c, &nc, &nq_type, &inst, &ts) != 0;
	result(ok, "the vendor's notific_decode_nq_head_reg_access_v3 drops 0x8204110c (why the hook has its own)");
	q = q_sdma(1, 0);
	result(is(0x8304110c, &q), "TRACE_DMA head of core 1, SDMA 0 (engine 16 of SE 0)");
	q = q_sdma(7, 15);
	result(is(V3_PCIE_BAR0_APB_SE_3_OFFSET +
		  (V3_APB_SE_3_SDMA_0_BASE + 31 * V3_APB_SDMA_DIST + V3_APB_SDMA_MISC_OFFSET -
		   V3_APB_SE_3_BASE) + V3_APB_SENG_0_SDMA_0_NOTIFIC_RELBASE + 0x10c, &q),
	       "TRACE_DMA head of core 7, SDMA 15");
	q = q_set(NEURON_NQ_HOOK_NC, 0, 0);
	result(is(0x600110c, &q), "core 0 set 0 head 0x600110c");
	q = q_set(NEURON_NQ_HOOK_NC, 1, 0);
	result(is(0x618110c, &q), "core 1 set 0 head 0x618110c");
	q = q_set(NEURON_NQ_HOOK_NC, 2, 5);
	result(is(0x640110c + 5 * 0x28, &q), "core 2 set 5 head");
	q = q_set(NEURON_NQ_HOOK_NC, 4, 0);
	result(is(0x4600110c, &q), "core 4 set 0 head 0x4600110c (second die)");
	q = q_set(NEURON_NQ_HOOK_TOPSP, 0, 0);
	result(is(0x6a0010c, &q), "TopSP 0 set 0 head 0x6a0010c");
	q = q_set(NEURON_NQ_HOOK_TOPSP, 8, 2);
	result(is(0x46a0010c + 2 * 0x28, &q), "TopSP 8 set 2 head (second die)");
#endif
}

/* Every register set the driver programs, its head and its other registers. */
static void exhaustive(void)
{
	int core_ok = 1, sdma_ok = 1, topsp_ok = 1, other_ok = 1, i, e, s;
	struct neuron_nq_hook_qid q;

	for (i = 0; i < CORES; i++) {
		for (s = 0; s < SETS; s++) {
			q = q_set(NEURON_NQ_HOOK_NC, i, s);
			core_ok &= is(core_block(i) + HEAD(s), &q);
			other_ok &= not_head(core_block(i) + NOTIFIC_NQ_BASE_ADDR_LO_OFFSET(s));
			other_ok &= not_head(core_block(i) + NOTIFIC_NQ_BASE_ADDR_HI_OFFSET(s));
			other_ok &= not_head(core_block(i) + NOTIFIC_NQ_F_SIZE_OFFSET(s));
		}
		other_ok &= not_head(core_block(i) + HEAD(SETS));
		for (e = 0; e < ENGINES; e++) {
			q = q_sdma(i, e);
			sdma_ok &= is(sdma_block(i, e) + HEAD(0), &q);
			other_ok &= not_head(sdma_block(i, e) + NOTIFIC_NQ_BASE_ADDR_LO_OFFSET(0));
			other_ok &= not_head(sdma_block(i, e) + NOTIFIC_NQ_F_SIZE_OFFSET(0));
			/* The driver programs set 0 of an SDMA block only. */
			other_ok &= not_head(sdma_block(i, e) + HEAD(1));
		}
	}
	for (i = 0; i < TOPSPS; i++) {
		for (s = 0; s < SETS; s++) {
			q = q_set(NEURON_NQ_HOOK_TOPSP, i, s);
			topsp_ok &= is(topsp_block(i) + HEAD(s), &q);
			other_ok &= not_head(topsp_block(i) + NOTIFIC_NQ_F_SIZE_OFFSET(s));
		}
	}
	other_ok &= not_head(0) && not_head(0x10c) && not_head(~0ULL);
	result(core_ok, "every NeuronCore register set's head decodes to its queue");
	result(sdma_ok, "every SDMA engine's TRACE_DMA head decodes to its queue");
	result(topsp_ok, "every TopSP register set's head decodes to its queue");
	result(other_ok, "base, size and other registers are not heads");
}

/* The rig's emulated register map (trn_emu_regs.h) against the vendor's. */
static void rig_map(void)
{
	int i, e, core_ok = 1, sdma_ok = 1, topsp_ok = 1;

	for (i = 0; i < CORES; i++) {
		core_ok &= EMU_CORE(i) == core_block(i);
		for (e = 0; e < ENGINES; e++)
			sdma_ok &= EMU_SDMA(i, e) == sdma_block(i, e);
	}
	for (i = 0; i < TOPSPS; i++)
		topsp_ok &= EMU_TS(i) == topsp_block(i);
	result(core_ok, "trn_emu_regs.h: every NeuronCore block is where the driver programs it");
	result(sdma_ok, "trn_emu_regs.h: every SDMA engine block is where the driver programs it");
	result(topsp_ok, "trn_emu_regs.h: every TopSP block is where the driver programs it");
}

int main(void)
{
	literals();
	exhaustive();
	rig_map();
	return harness_done();
}
