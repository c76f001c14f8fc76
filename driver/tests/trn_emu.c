// SPDX-License-Identifier: GPL-2.0
/*
 * neuronprof_trn_emu: an emulated Trainium (trn1, NeuronCore-v2) PCI function
 * for the test VM, so that the vendor's own neuron.ko probes a device and
 * its notification queue, reset and ioctl paths run for real.
 */

/**
 * DOC: emulated Trainium PCI function
 *
 * neuronprof_trn_emu is a test module for the project's QEMU VM only. It
 * creates a PCI domain of its own with a software host bridge (a root bus
 * made with pci_create_root_bus() and config-space accessors, as
 * drivers/pci/controller/vmd.c does) holding one function: Amazon's vendor
 * id, revision 255, the revision with which the vendor's driver takes its
 * QEMU paths (REVID_QEMU, neuron_arch.c), and the device id of the
 * architecture the parameter ``arch`` names: ``v2`` (default), trn1
 * 0x7164, the driver's v2 DHAL; ``v3``, trn2 0x7364, its v3 DHAL
 * (neuron_pci.c neuron_pci_set_device_architecture()). In QEMU mode the
 * driver maps its register ("APB") BAR from BAR2 and device memory from
 * BAR4, in both. Both BARs are backed by guest memory that the VM's kernel
 * command line reserves (``memmap=SIZE$ADDR``), so that ioremap() works on
 * it; the module's parameter ``base`` names that address. The register BAR
 * is 1 GiB for v2 (the APB window at 0x30000000) and 4 GiB for v3, whose
 * IO dies and SENG blocks lie from 0 to 0xb6000000; BAR4 is 64 MiB for v2
 * and 256 MiB for v3, whose driver splits it into four HBM channels and
 * carves 16 MiB off each (mpset_set_dram_and_mpset_info_v3(),
 * mpset_block_carveout_regions_v3()).
 *
 * A device model plays the hardware on that memory:
 *
 * - the firmware's misc RAM holds the routing id that probe polls for;
 * - a thread answers the firmware I/O doorbell: a reset request (device or
 *   TPB) clears every queue register set, acknowledges the request and
 *   clears the QEMU reset word the driver waits on; a register-read or
 *   metrics request is answered in the response buffer the driver
 *   programmed, by sequence number, as neuron_fw_io.c expects;
 * - on v3 the driver's QEMU reset (nr_initiate_reset_v3_qemu()) does not
 *   use the firmware: it writes the TPB reset map (TPBs in bits 0-7, their
 *   SDMA engine groups in 8-15, their TopSP pairs in 16-23,
 *   nr_get_tpb_reset_map()) into the QEMU reset word and waits for the word
 *   to read 0. The thread sees a map that is not 0, clears the register
 *   sets of those TPBs, SDMA engines and TopSPs, and clears the word. A
 *   device reset writes the map 0, which the model cannot tell from no
 *   write: it resets nothing (the driver's nnq_destroy_nc() still frees
 *   every queue), so a v3 test that needs fresh head registers resets its
 *   cores with a TPB reset;
 * - ``produce`` (debugfs) writes entries into a notification queue at the
 *   base and size the driver programmed into a register set, as the
 *   hardware would: a host-memory ring through the host address, a
 *   device-memory ring in BAR4's memory (the device address is the BAR4
 *   offset, as mmap_get_bar4_offset_v2() has it; on v3 for the first HBM
 *   only), with the entry size and the start position the test chose;
 * - a second thread executes the descriptors of each core's host-device
 *   DMA queue, the one the driver's ndma_memcpy() uses (trn_emu_udma.c,
 *   its DOC says how): MEM_BUF_COPY, MEM_COPY and ndma_memcpy_buf_from_mc()
 *   complete, copying between guest memory and BAR4's. ``udma=0`` leaves
 *   it out (every DMA copy then waits for its timeout); ``udma``
 *   (debugfs) shows what it copied.
 *
 * Control, /sys/kernel/debug/neuronprof_trn_emu/: ``config`` takes
 * ``entry_size=N head_start=N head_unit=index|byte|counter``, which the
 * next reset applies: every head register then reads the start (in its
 * unit) and the device writes a queue programmed after it from there. The
 * rest of the rig's *personality* (the hardware facts that are not public,
 * Documentation/neuron-rig.rst) goes there too:
 * ``type_entry_size=T0,T1,T2,T3,T4,T5`` the entry size of each vendor queue
 * type (0: ``entry_size``); ``reprogram=reset|head`` where the device writes
 * entry 0 of a queue programmed again without a reset: at the reset's start
 * (default) or where its head register points (the runtime's last head,
 * less the phase bit); ``phase_bit=P`` the head register bit the runtime
 * flips on a wrap (0: none), which the device ignores. ``produce`` takes
 * ``BLOCK N SET COUNT [TYPE]`` where BLOCK is ``core`` (N a NeuronCore),
 * ``ts`` (N a TopSP) or ``sdma`` (N = core * 16 + engine), SET the
 * register set in that block and TYPE the vendor queue type (its entry
 * size); the first produce after the driver programmed the set (COUNT 0
 * is fine) is when the device sees the queue. Reading it back gives the
 * result of the last command, with the queue's start index and entry size;
 * ``queues`` lists every programmed queue with what was produced; ``programmed``
 * every register set whose base or size is not zero; ``headread`` sets what
 * a read of one head register returns (emu_headread_write()). ``config``'s
 * ``head_read=N`` makes every head register read N (0, or its reset
 * value) whatever was written, from the next reset on: the device keeps
 * its own head (the reset's start, then each head written, which the
 * runtime player reports through ``headwritten``), and writes a queue
 * re-programmed with ``reprogram=head`` from there; ``head_read=last``
 * (default) reads the last value written.
 *
 * Entry I of a queue (I counts from 0 at programming; it lands at ring
 * index start + I) starts with the
 * 64-bit word 0xE3D0 << 48 | key << 32 | I, key = BLOCK (0 core, 1 ts,
 * 2 sdma) << 14 | N << 7 | SET, and its byte J >= 8 is (I * 31 + J) & 0xff.
 *
 * The register layout is the vendor's address map (v2/ and v3/
 * address_map.h, notific.h, notific.c of aws-neuronx 2.24.7.0);
 * trn_emu_regs.h restates the offsets the driver writes to, with their
 * file:line, so a change shows up as a rig failure. Taints the kernel
 * (TAINT_TEST).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/unaligned.h>

#include "trn_emu_regs.h"
#include "trn_emu_udma.h"

#define EMU_VENDOR		0x1d0f	/* AMZN_VENDOR_ID, neuron_device.h:35 */
#define EMU_REVISION		0xff	/* REVID_QEMU, neuron_arch.c:24 */
#define EMU_CLASS		0x120000 /* processing accelerator */

#define SDMA_PER_NC		16	/* V2/V3_NUM_DMA_ENGINES_PER_TPB */
#define NQ_SETS			96

/* Firmware I/O registers in misc RAM (neuron_fw_io.h:45-96). */
#define FW_DEVICE_ID		0x24
#define FW_RESET		0x1ec
#define FW_REQ_HI		0x1f0
#define FW_REQ_LO		0x1f4
#define FW_RESP_HI		0x1f8
#define FW_RESP_LO		0x1fc
#define FW_DOORBELL		0x800
#define FW_CMD_READ		1
#define FW_CMD_POST_TO_CW	2
#define FW_OK			0
#define FW_UNKNOWN_COMMAND	2
#define FW_MAX_SIZE		0xffff

enum emu_block { EMU_CORE, EMU_TS, EMU_SDMA, EMU_BLOCKS };
static const char *const block_names[] = { "core", "ts", "sdma" };

/**
 * struct emu_arch - what differs between the emulated trn1 and trn2.
 * @name: the module parameter's value.
 * @product: for the log.
 * @device: PCI device id.
 * @apb_size: default size of the register BAR.
 * @apb_min: the register BAR must reach this far.
 * @dram_size: default size of BAR4.
 * @misc_ram: BAR offset of the firmware's misc RAM.
 * @reset_word: BAR offset of the word the driver's QEMU reset waits on.
 * @reset_map: the driver writes the TPB reset map there (v3), instead of
 *	1 followed by a firmware reset request (v2).
 * @fw_dev_base: device address that firmware READ requests use for BAR
 *	offset @fw_bar_off, for @fw_size bytes.
 * @fw_bar_off: see @fw_dev_base.
 * @fw_size: see @fw_dev_base.
 * @host_base: the bits that mark a host address (V2/V3_PCIE_A0_BASE).
 * @host_mask: the bits compared with @host_base.
 * @nc: NeuronCores.
 * @ts: TopSPs.
 * @core_block: BAR offset of core @n's notification block.
 * @ts_block: of TopSP @n's.
 * @sdma_block: of SDMA engine @e of core @n's.
 * @h2t_udma: BAR offset of the UDMA engine of core @n's host-device copies.
 * @h2t_qid: that engine's queue for core @n.
 */
struct emu_arch {
	const char *name, *product;
	u16 device;
	u64 apb_size, apb_min, dram_size;
	u64 misc_ram, reset_word;
	bool reset_map;
	u64 fw_dev_base, fw_bar_off, fw_size;
	u64 host_base, host_mask;
	unsigned int nc, ts;
	u64 (*core_block)(unsigned int n);
	u64 (*ts_block)(unsigned int n);
	u64 (*sdma_block)(unsigned int n, unsigned int e);
	u64 (*h2t_udma)(unsigned int n);
	unsigned int (*h2t_qid)(unsigned int n);
};

static u64 v2_core(unsigned int n) { return CORE_NOTIFIC(n); }
static u64 v2_ts(unsigned int n) { return TS_NOTIFIC(n); }
static u64 v2_sdma(unsigned int n, unsigned int e) { return SDMA_NOTIFIC(n, e); }
static u64 v3_core(unsigned int n) { return EMU_V3_CORE_NOTIFIC(n); }
static u64 v3_ts(unsigned int n) { return EMU_V3_TS_NOTIFIC(n); }
static u64 v3_sdma(unsigned int n, unsigned int e) { return EMU_V3_SDMA_NOTIFIC(n, e); }
static u64 v2_h2t(unsigned int n) { return EMU_V2_H2T_UDMA(n); }
static unsigned int v2_h2t_qid(unsigned int n) { return EMU_V2_H2T_QID(n); }
static u64 v3_h2t(unsigned int n) { return EMU_V3_H2T_UDMA(n); }
static unsigned int v3_h2t_qid(unsigned int n) { return EMU_V3_H2T_QID(n); }

static const struct emu_arch emu_archs[] = {
	{
		.name = "v2", .product = "trn1",
		.device = 0x7164,		/* TRN1_DEVICE_ID0, neuron_device.h:41 */
		.apb_size = SZ_1G, .apb_min = 0x31000000ULL, .dram_size = SZ_64M,
		/* V2_MMAP_BAR0_APB_MISC_RAM_OFFSET, v2/address_map.h:33 */
		.misc_ram = 0x30fa0000ULL,
		/*
		 * V2_PCIE_BAR0_APB_OFFSET + V2_APB_SENG_0_RESERVED1_RELBASE + 0x10,
		 * v2/neuron_dhal_v2.c:165,217
		 */
		.reset_word = 0x30647010ULL,
		/* V2_APB_BASE at V2_PCIE_BAR0_APB_OFFSET, v2/address_map.h:79,87 */
		.fw_dev_base = 0xffff0000000ULL, .fw_bar_off = 0x30000000ULL, .fw_size = SZ_256M,
		/* V2_PCIE_A0_BASE, V2_PCIE_ALL_RT_MASK, v2/address_map.h:88,17 */
		.host_base = 0x100000000000ULL, .host_mask = 0x1f00000000000ULL,
		.nc = 2, .ts = 6,		/* V2_NC_PER_DEVICE, V2_TS_PER_DEVICE */
		.core_block = v2_core, .ts_block = v2_ts, .sdma_block = v2_sdma,
		.h2t_udma = v2_h2t, .h2t_qid = v2_h2t_qid,
	},
	{
		.name = "v3", .product = "trn2",
		.device = 0x7364,		/* TRN2_DEVICE_ID0, neuron_device.h:42 */
		.apb_size = SZ_4G, .apb_min = 0xb6000000ULL, .dram_size = SZ_256M,
		/* V3_MMAP_BAR0_APB_IO_0_MISC_RAM_OFFSET, v3/address_map.h:211 */
		.misc_ram = 0x6c84000ULL,
		/* V3_APB_IO_0_USER_SE_0_RESERVED2_RELBASE + 0x10, v3/neuron_dhal_v3.c:346,390 */
		.reset_word = 0x6300010ULL, .reset_map = true,
		/* V3_APB_IO_0_BASE, V3_PCIE_BAR0_APB_IO_0_SIZE, v3/neuron_dhal_v3.c:953 */
		.fw_dev_base = 0x8000000000ULL, .fw_bar_off = 0, .fw_size = 0x20000000ULL,
		/* V3_PCIE_A0_BASE, v3/address_map.h:9: host addresses have bit 46 */
		.host_base = 0x400000000000ULL, .host_mask = ~0x3fffffffffffULL,
		.nc = 8, .ts = 16,		/* V3_NC_PER_DEVICE, V3_TS_PER_DEVICE */
		.core_block = v3_core, .ts_block = v3_ts, .sdma_block = v3_sdma,
		.h2t_udma = v3_h2t, .h2t_qid = v3_h2t_qid,
	},
};

static char *arch = "v2";
module_param(arch, charp, 0444);
MODULE_PARM_DESC(arch, "v2: a trn1 function (default); v3: a trn2 function");
static unsigned long base;
module_param(base, ulong, 0444);
MODULE_PARM_DESC(base, "guest-physical address of the memory reserved for the BARs (memmap=SIZE$ADDR); required");
static unsigned long apb_size;
module_param(apb_size, ulong, 0444);
MODULE_PARM_DESC(apb_size, "bytes of the register BAR (BAR2), a power of two covering the architecture's registers (default 1 GiB for v2, 4 GiB for v3)");
static unsigned long dram_size;
module_param(dram_size, ulong, 0444);
MODULE_PARM_DESC(dram_size, "bytes of the device-memory BAR (BAR4), a power of two (default 64 MiB for v2, 256 MiB for v3)");
static bool udma = true;
module_param(udma, bool, 0444);
MODULE_PARM_DESC(udma, "execute the host-device DMA queues' descriptors (default 1; 0: no DMA copy completes)");
static unsigned int routing_id;
module_param(routing_id, uint, 0444);
MODULE_PARM_DESC(routing_id, "routing id the firmware reports (default 0)");

struct emu_queue {
	u64 pa;			/* as programmed */
	u32 size;
	u32 entry_size;		/* of its queue type, when first produced to */
	u32 start;		/* ring index of entry 0 */
	u64 produced;		/* entries since programming */
	u64 bytes;
	/*
	 * With a head register that reads one value (head_read=N): the
	 * device's own head, the reset's start or the last head written
	 * (``headwritten``), which the register does not show.
	 */
	u32 head;
	bool head_kept;
};

struct emu {
	struct pci_sysdata sd;
	struct resource busn;
	struct resource window;
	struct pci_bus *bus;
	struct pci_dev *pdev;
	const struct emu_arch *arch;

	spinlock_t cfg_lock;	/* config space */
	u32 cfg[16];
	u32 bar_mask[6];

	void __iomem *apb;
	struct task_struct *thread;
	struct emu_udma *udma;	/* the host-device DMA queues, or NULL */

	struct mutex lock;	/* everything below */
	unsigned int entry_size;
	unsigned int head_start;
	bool head_bytes;	/* head registers count bytes, not entries */
	/* The personality (the DOC above): entry size per vendor queue type, 0: entry_size. */
	unsigned int type_entry_size[6];
	bool from_head;		/* a re-programmed queue is written from its head register */
	unsigned int phase_bit;	/* 0, or the head register bit the runtime flips on a wrap */
	bool read_fixed;	/* a read of a head register returns @read_value */
	u32 read_value;
	struct emu_queue *q[EMU_BLOCKS];	/* [instance * NQ_SETS + set] */
	u64 resets;
	u64 fw_requests;
	char result[64];
	struct dentry *dir;
};

static struct emu *emu;

/* ---- config space ---------------------------------------------------- */

static void emu_cfg_init(struct emu *e, u16 device)
{
	u64 b2 = base, b4 = base + apb_size;

	memset(e->cfg, 0, sizeof(e->cfg));
	e->cfg[0] = (u32)device << 16 | EMU_VENDOR;
	e->cfg[2] = EMU_CLASS << 8 | EMU_REVISION;
	e->cfg[11] = (u32)device << 16 | EMU_VENDOR;	/* subsystem */
	/* BAR2/3: 64-bit memory; BAR4/5: 64-bit prefetchable memory. */
	e->cfg[6] = lower_32_bits(b2) | PCI_BASE_ADDRESS_MEM_TYPE_64;
	e->cfg[7] = upper_32_bits(b2);
	e->cfg[8] = lower_32_bits(b4) | PCI_BASE_ADDRESS_MEM_TYPE_64 |
		    PCI_BASE_ADDRESS_MEM_PREFETCH;
	e->cfg[9] = upper_32_bits(b4);
	e->bar_mask[2] = lower_32_bits(~((u64)apb_size - 1)) & PCI_BASE_ADDRESS_MEM_MASK;
	e->bar_mask[3] = upper_32_bits(~((u64)apb_size - 1));
	e->bar_mask[4] = lower_32_bits(~((u64)dram_size - 1)) & PCI_BASE_ADDRESS_MEM_MASK;
	e->bar_mask[5] = upper_32_bits(~((u64)dram_size - 1));
}

/* Bits of config dword @dw that software may write. */
static u32 emu_cfg_wmask(struct emu *e, int dw)
{
	switch (dw) {
	case PCI_COMMAND / 4:
		return 0x0000ffff;
	case PCI_CACHE_LINE_SIZE / 4:
		return 0x0000ffff;
	case PCI_INTERRUPT_LINE / 4:
		return 0x000000ff;
	}
	if (dw >= PCI_BASE_ADDRESS_0 / 4 && dw <= PCI_BASE_ADDRESS_5 / 4)
		return e->bar_mask[dw - PCI_BASE_ADDRESS_0 / 4];
	return 0;
}

static int emu_cfg_read(struct pci_bus *bus, unsigned int devfn, int where,
			int size, u32 *val)
{
	struct emu *e = emu;
	unsigned long flags;
	u32 v;

	if (bus->number || devfn || where < 0 || where + size > 256) {
		*val = ~0U;
		return PCIBIOS_DEVICE_NOT_FOUND;
	}
	spin_lock_irqsave(&e->cfg_lock, flags);
	v = where < (int)sizeof(e->cfg) ? e->cfg[where / 4] : 0;
	spin_unlock_irqrestore(&e->cfg_lock, flags);
	v >>= 8 * (where & 3);
	if (size < 4)
		v &= (1U << (8 * size)) - 1;
	*val = v;
	return PCIBIOS_SUCCESSFUL;
}

static int emu_cfg_write(struct pci_bus *bus, unsigned int devfn, int where,
			 int size, u32 val)
{
	struct emu *e = emu;
	unsigned long flags;
	u32 bytes, mask;
	int dw = where / 4, shift = 8 * (where & 3);

	if (bus->number || devfn || where < 0 || where + size > 256)
		return PCIBIOS_DEVICE_NOT_FOUND;
	if (where >= (int)sizeof(e->cfg))
		return PCIBIOS_SUCCESSFUL;
	bytes = size == 4 ? ~0U : ((1U << (8 * size)) - 1) << shift;
	mask = emu_cfg_wmask(e, dw) & bytes;
	spin_lock_irqsave(&e->cfg_lock, flags);
	e->cfg[dw] = (e->cfg[dw] & ~mask) | ((val << shift) & mask);
	spin_unlock_irqrestore(&e->cfg_lock, flags);
	return PCIBIOS_SUCCESSFUL;
}

static struct pci_ops emu_pci_ops = {
	.read = emu_cfg_read,
	.write = emu_cfg_write,
};

/* ---- the device model ------------------------------------------------ */

static u32 apb_rd(struct emu *e, u64 off)
{
	return readl(e->apb + off);
}

static void apb_wr(struct emu *e, u64 off, u32 v)
{
	writel(v, e->apb + off);
}

static unsigned int block_count(const struct emu_arch *a, enum emu_block b)
{
	return b == EMU_CORE ? a->nc : b == EMU_TS ? a->ts : a->nc * SDMA_PER_NC;
}

static u64 block_offset(const struct emu_arch *a, enum emu_block b, unsigned int n)
{
	switch (b) {
	case EMU_CORE:
		return a->core_block(n);
	case EMU_TS:
		return a->ts_block(n);
	default:
		return a->sdma_block(n / SDMA_PER_NC, n % SDMA_PER_NC);
	}
}

static struct emu_queue *emu_q(struct emu *e, enum emu_block b, unsigned int n,
			       unsigned int set)
{
	if (b >= EMU_BLOCKS || n >= block_count(e->arch, b) || set >= NQ_SETS)
		return NULL;
	return &e->q[b][n * NQ_SETS + set];
}

/* The core that instance @n of block @b belongs to (TopSPs: ts_per_nc each). */
static unsigned int block_core(const struct emu_arch *a, enum emu_block b, unsigned int n)
{
	switch (b) {
	case EMU_CORE:
		return n;
	case EMU_TS:
		return n / (a->ts / a->nc);
	default:
		return n / SDMA_PER_NC;
	}
}

/*
 * A reset clears the queue register sets, as a reset of the device or of
 * the TPBs in @map would: @map is the v3 TPB reset map (TPBs in bits 0-7,
 * their SDMA groups in 8-15, their TopSP pairs in 16-23), ~0 for all.
 */
static void emu_reset_queues(struct emu *e, u32 map)
{
	unsigned int b, n, s, shift;
	struct emu_queue *q;
	u32 h;

	for (b = EMU_CORE; b < EMU_BLOCKS; b++) {
		shift = b == EMU_CORE ? 0 : b == EMU_SDMA ? 8 : 16;
		for (n = 0; n < block_count(e->arch, b); n++) {
			if (!(map >> shift & BIT(block_core(e->arch, b, n))))
				continue;
			for (s = 0; s < NQ_SETS; s++) {
				u64 off = block_offset(e->arch, b, n) + NQ_SET(s);

				apb_wr(e, off + NQ_BASE_LO, 0);
				apb_wr(e, off + NQ_BASE_HI, 0);
				apb_wr(e, off + NQ_SIZE, 0);
				/* Where the device starts writing a fresh queue. */
				h = e->head_bytes ? e->head_start * e->entry_size : e->head_start;
				apb_wr(e, off + NQ_HEAD, e->read_fixed ? e->read_value : h);
				q = emu_q(e, b, n, s);
				memset(q, 0, sizeof(*q));
				q->head = h;
				q->head_kept = e->read_fixed;
			}
		}
	}
}

static void *host_map(struct emu *e, u64 pa, size_t len)
{
	if ((pa & e->arch->host_mask) != e->arch->host_base)
		return NULL;
	pa &= ~e->arch->host_base;
	if (!pfn_valid(PHYS_PFN(pa)) || !pfn_valid(PHYS_PFN(pa + len - 1)))
		return NULL;
	return memremap(pa, len, MEMREMAP_WB);
}

/* Answer one firmware I/O request (neuron_fw_io.c fw_io_execute_request). */
static void emu_fw_request(struct emu *e)
{
	const struct emu_arch *a = e->arch;
	u64 misc = a->misc_ram;
	u64 req_pa = (u64)apb_rd(e, misc + FW_REQ_HI) << 32 | apb_rd(e, misc + FW_REQ_LO);
	u64 resp_pa = (u64)apb_rd(e, misc + FW_RESP_HI) << 32 | apb_rd(e, misc + FW_RESP_LO);
	u64 window = min_t(u64, a->fw_size, apb_size - a->fw_bar_off);
	u8 *req, *resp;
	u16 size, rsize = 4;
	u8 err = FW_OK;
	unsigned int i, n;

	req = host_map(e, req_pa, FW_MAX_SIZE);
	resp = host_map(e, resp_pa, FW_MAX_SIZE);
	if (!req || !resp)
		goto out;
	size = get_unaligned_le16(req + 2);
	switch (req[1]) {
	case FW_CMD_READ:
		n = size > 8 ? (size - 8) / 8 : 0;
		for (i = 0; i < n && 4 + 4 * (i + 1) <= FW_MAX_SIZE; i++) {
			u64 addr = get_unaligned_le64(req + 8 + 8 * i);
			u32 v = 0;

			if (addr >= a->fw_dev_base && addr - a->fw_dev_base + 4 <= window)
				v = apb_rd(e, addr - a->fw_dev_base + a->fw_bar_off);
			put_unaligned_le32(v, resp + 4 + 4 * i);
		}
		rsize = 4 + 4 * n;
		break;
	case FW_CMD_POST_TO_CW:
		break;
	default:
		err = FW_UNKNOWN_COMMAND;
	}
	resp[1] = err;
	put_unaligned_le16(rsize, resp + 2);
	/* The driver waits for the sequence number: it goes last. */
	wmb();
	WRITE_ONCE(resp[0], req[0]);
	e->fw_requests++;
out:
	if (req)
		memunmap(req);
	if (resp)
		memunmap(resp);
}

static int emu_thread(void *arg)
{
	struct emu *e = arg;
	const struct emu_arch *a = e->arch;
	u32 map;

	while (!kthread_should_stop()) {
		/* v3: nr_initiate_reset_v3_qemu() wrote a TPB reset map. */
		map = a->reset_map ? apb_rd(e, a->reset_word) : 0;
		if (map) {
			mutex_lock(&e->lock);
			emu_reset_queues(e, map);
			e->resets++;
			apb_wr(e, a->reset_word, 0);
			mutex_unlock(&e->lock);
		}
		if (apb_rd(e, a->misc_ram + FW_DOORBELL)) {
			apb_wr(e, a->misc_ram + FW_DOORBELL, 0);
			mutex_lock(&e->lock);
			if (apb_rd(e, a->misc_ram + FW_RESET)) {
				emu_reset_queues(e, ~0U);
				e->resets++;
				apb_wr(e, a->misc_ram + FW_RESET, 0);
				apb_wr(e, a->reset_word, 0);
			} else {
				emu_fw_request(e);
			}
			mutex_unlock(&e->lock);
		}
		usleep_range(500, 1000);
	}
	return 0;
}

/* Entry @seq of the queue of @key, @es bytes at @ent (see the DOC above). */
static void emu_entry(u8 *ent, u32 es, u32 key, u64 seq)
{
	unsigned int j;

	put_unaligned_le64(EMU_ENTRY_WORD0(key, seq), ent);
	for (j = 8; j < es; j++)
		ent[j] = (u8)(seq * 31 + j);
}

/*
 * Write @count entries into the queue of register set @set of block @b @n,
 * in host memory or in the device memory behind BAR4.
 */
static int emu_produce(struct emu *e, enum emu_block b, unsigned int n,
		       unsigned int set, unsigned int count, unsigned int type)
{
	struct emu_queue *q = emu_q(e, b, n, set);
	u64 off, pa;
	u32 size, nent, i, key = EMU_ENTRY_KEY(b, n, set), es;
	u8 *ring;

	if (!q)
		return -EINVAL;
	off = block_offset(e->arch, b, n) + NQ_SET(set);
	pa = (u64)apb_rd(e, off + NQ_BASE_HI) << 32 | apb_rd(e, off + NQ_BASE_LO);
	size = apb_rd(e, off + NQ_SIZE);
	if (!pa || !size)
		return -ENOENT;		/* not programmed */
	es = type < ARRAY_SIZE(e->type_entry_size) && e->type_entry_size[type] ?
	     e->type_entry_size[type] : e->entry_size;
	if (size < es || !is_power_of_2(size))
		return -EINVAL;
	if (pa != q->pa || size != q->size) {
		/*
		 * The device sees a queue programmed: it writes entry 0 at the
		 * reset's start, or (personality from_head) where the head
		 * register points now, which without a reset is wherever the
		 * runtime left it. The phase bit is not a position.
		 */
		u32 h = q->head_kept ? q->head : apb_rd(e, off + NQ_HEAD);

		if (e->phase_bit)
			h &= ~BIT(e->phase_bit);

		q->pa = pa;
		q->size = size;
		q->entry_size = es;
		q->produced = 0;
		q->bytes = 0;
		/* The reset's start is a register value too, in the head's unit. */
		if (!e->from_head)
			h = e->head_bytes ? e->head_start * e->entry_size : e->head_start;
		q->start = (e->head_bytes ? h / es : h) % (size / es);
	}
	es = q->entry_size;
	nent = size / es;
	ring = host_map(e, pa, size);
	if (!ring) {
		/*
		 * Device memory (HBM): the device address is the BAR4 offset
		 * (mmap_get_bar4_offset_v2(); on v3 for the first HBM only).
		 */
		void __iomem *io;
		u8 *ent;

		if ((pa & e->arch->host_mask) == e->arch->host_base || pa + size > dram_size ||
		    pa + size < pa) {
			pr_info_ratelimited("%s %u set %u: ring at 0x%llx+0x%x is not in BAR4 (0x%lx bytes)\n",
					    block_names[b], n, set, pa, size, dram_size);
			return -EREMOTEIO;
		}
		io = ioremap(base + apb_size + pa, size);
		ent = kmalloc(es, GFP_KERNEL);
		if (!io || !ent) {
			if (io)
				iounmap(io);
			kfree(ent);
			return -ENOMEM;
		}
		for (i = 0; i < count; i++) {
			u64 seq = q->produced + i;

			emu_entry(ent, es, key, seq);
			memcpy_toio(io + ((q->start + seq) % nent) * es, ent, es);
		}
		kfree(ent);
		iounmap(io);
	} else {
		for (i = 0; i < count; i++) {
			u64 seq = q->produced + i;

			emu_entry(ring + ((q->start + seq) % nent) * es, es, key, seq);
		}
		memunmap(ring);
	}
	q->produced += count;
	q->bytes += (u64)count * es;
	return 0;
}

/* ---- debugfs --------------------------------------------------------- */

static ssize_t emu_result_read(struct file *f, char __user *buf, size_t len,
			       loff_t *pos)
{
	char res[sizeof(emu->result)];

	mutex_lock(&emu->lock);
	strscpy(res, emu->result, sizeof(res));
	mutex_unlock(&emu->lock);
	return simple_read_from_buffer(buf, len, pos, res, strlen(res));
}

static ssize_t emu_produce_write(struct file *f, const char __user *ubuf,
				 size_t len, loff_t *pos)
{
	char buf[64], name[8];
	unsigned int n, set, count, b, type = ~0U;
	int ret = -EINVAL;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%7s %u %u %u %u", name, &n, &set, &count, &type) < 4)
		return -EINVAL;
	for (b = 0; b < ARRAY_SIZE(block_names); b++)
		if (!strcmp(name, block_names[b]))
			break;
	if (b == ARRAY_SIZE(block_names) || count > (1U << 24))
		return -EINVAL;
	mutex_lock(&emu->lock);
	ret = emu_produce(emu, b, n, set, count, type);
	if (ret)
		snprintf(emu->result, sizeof(emu->result), "%d\n", ret);
	else
		snprintf(emu->result, sizeof(emu->result), "0 start=%u entry_size=%u\n",
			 emu_q(emu, b, n, set)->start, emu_q(emu, b, n, set)->entry_size);
	mutex_unlock(&emu->lock);
	return ret ? ret : len;
}

static const struct file_operations emu_produce_fops = {
	.owner = THIS_MODULE,
	.read = emu_result_read,
	.write = emu_produce_write,
	.llseek = default_llseek,
};

/*
 * ``headread`` takes ``OFFSET VALUE``: from now on a read of the head
 * register at BAR2 offset OFFSET returns VALUE. The personality whose
 * head register reads the device's own consumed position, not the last
 * head the runtime wrote: the runtime player (nrt_play -H) writes it after
 * each head write, as the device would update its register. OFFSET must
 * be the head register of a register set of a notification block.
 */
static struct emu_queue *emu_head_reg(struct emu *e, u64 off)
{
	unsigned int b, n;

	for (b = EMU_CORE; b < EMU_BLOCKS; b++)
		for (n = 0; n < block_count(e->arch, b); n++) {
			u64 first = block_offset(e->arch, b, n) + NQ_SET(0);

			if (off >= first && off < first + (NQ_SET(NQ_SETS) - NQ_SET(0)) &&
			    (off - first) % (NQ_SET(1) - NQ_SET(0)) == NQ_HEAD)
				return emu_q(e, b, n, (off - first) / (NQ_SET(1) - NQ_SET(0)));
		}
	return NULL;
}

static ssize_t emu_headread_write(struct file *f, const char __user *ubuf,
				  size_t len, loff_t *pos)
{
	char buf[48];
	u64 off;
	u32 v;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%llx %u", &off, &v) != 2 || off + 4 > apb_size ||
	    !emu_head_reg(emu, off))
		return -EINVAL;
	mutex_lock(&emu->lock);
	apb_wr(emu, off, v);
	mutex_unlock(&emu->lock);
	return len;
}

static const struct file_operations emu_headread_fops = {
	.owner = THIS_MODULE,
	.write = emu_headread_write,
	.llseek = default_llseek,
};

/*
 * ``headwritten`` takes ``OFFSET``: the runtime has just written the head
 * register at BAR2 offset OFFSET. With a register that reads one value
 * (``config`` head_read=N), the device takes what was written as its own
 * head (where it writes a queue re-programmed there without a reset, with
 * reprogram=head) and the register reads N again: the runtime player
 * (nrt_play -Z) tells the model after each head write, as the device
 * would see the write land. Without head_read=N it does nothing.
 */
static ssize_t emu_headwritten_write(struct file *f, const char __user *ubuf,
				     size_t len, loff_t *pos)
{
	struct emu_queue *q;
	u64 off;
	int ret = kstrtou64_from_user(ubuf, len, 16, &off);

	if (ret)
		return ret;
	if (off + 4 > apb_size)
		return -EINVAL;
	mutex_lock(&emu->lock);
	q = emu_head_reg(emu, off);
	if (q && emu->read_fixed) {
		q->head = apb_rd(emu, off);
		q->head_kept = true;
		apb_wr(emu, off, emu->read_value);
	}
	mutex_unlock(&emu->lock);
	return q ? len : -EINVAL;
}

static const struct file_operations emu_headwritten_fops = {
	.owner = THIS_MODULE,
	.write = emu_headwritten_write,
	.llseek = default_llseek,
};

/* ``head_read=last`` or ``head_read=N`` of ``config``; false for another token. */
static bool emu_config_head_read(struct emu *e, const char *tok)
{
	unsigned int v;

	if (!strcmp(tok, "head_read=last")) {
		e->read_fixed = false;
		return true;
	}
	if (sscanf(tok, "head_read=%u", &v) != 1)
		return false;
	e->read_fixed = true;
	e->read_value = v;
	return true;
}

static ssize_t emu_config_write(struct file *f, const char __user *ubuf,
				size_t len, loff_t *pos)
{
	char buf[160], *p, *tok;
	unsigned int v, t[6];
	int ret = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	p = strim(buf);
	mutex_lock(&emu->lock);
	while ((tok = strsep(&p, " \t")) && !ret) {
		if (!*tok)
			continue;
		if (sscanf(tok, "entry_size=%u", &v) == 1 && v >= 16 && v <= 4096 &&
		    is_power_of_2(v))
			emu->entry_size = v;
		else if (sscanf(tok, "head_start=%u", &v) == 1)
			emu->head_start = v;
		else if (sscanf(tok, "type_entry_size=%u,%u,%u,%u,%u,%u", &t[0], &t[1], &t[2],
				&t[3], &t[4], &t[5]) == 6)
			memcpy(emu->type_entry_size, t, sizeof(t));
		else if (!strcmp(tok, "reprogram=head"))
			emu->from_head = true;
		else if (!strcmp(tok, "reprogram=reset"))
			emu->from_head = false;
		else if (sscanf(tok, "phase_bit=%u", &v) == 1 && v < 32)
			emu->phase_bit = v;
		else if (!strcmp(tok, "head_unit=byte"))
			emu->head_bytes = true;
		else if (!strcmp(tok, "head_unit=index") || !strcmp(tok, "head_unit=counter"))
			emu->head_bytes = false;
		else if (!emu_config_head_read(emu, tok))
			ret = -EINVAL;
	}
	mutex_unlock(&emu->lock);
	return ret ? ret : len;
}

static int emu_config_show(struct seq_file *m, void *v)
{
	mutex_lock(&emu->lock);
	seq_printf(m, "arch=%s entry_size=%u head_start=%u head_unit=%s type_entry_size=%u,%u,%u,%u,%u,%u reprogram=%s phase_bit=%u head_read=%d resets=%llu fw_requests=%llu\n",
		   emu->arch->name, emu->entry_size, emu->head_start,
		   emu->head_bytes ? "byte" : "entries", emu->type_entry_size[0],
		   emu->type_entry_size[1], emu->type_entry_size[2], emu->type_entry_size[3],
		   emu->type_entry_size[4], emu->type_entry_size[5],
		   emu->from_head ? "head" : "reset", emu->phase_bit,
		   emu->read_fixed ? (int)emu->read_value : -1, emu->resets,
		   emu->fw_requests);
	mutex_unlock(&emu->lock);
	return 0;
}

static int emu_config_open(struct inode *inode, struct file *f)
{
	return single_open(f, emu_config_show, NULL);
}

static const struct file_operations emu_config_fops = {
	.owner = THIS_MODULE,
	.open = emu_config_open,
	.read = seq_read,
	.write = emu_config_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int emu_queues_show(struct seq_file *m, void *v)
{
	unsigned int b, n, s;

	mutex_lock(&emu->lock);
	for (b = EMU_CORE; b < EMU_BLOCKS; b++)
		for (n = 0; n < block_count(emu->arch, b); n++)
			for (s = 0; s < NQ_SETS; s++) {
				struct emu_queue *q = emu_q(emu, b, n, s);

				if (!q->size)
					continue;
				seq_printf(m, "%s %u %u pa=0x%llx size=%u entry_size=%u start=%u produced=%llu bytes=%llu\n",
					   block_names[b], n, s, q->pa, q->size, q->entry_size,
					   q->start, q->produced, q->bytes);
			}
	mutex_unlock(&emu->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(emu_queues);

/*
 * Every register set whose base or size is not zero, as the driver left
 * them: where a queue is programmed, whether or not anything was produced
 * (a request the driver should have refused shows up here).
 */
static int emu_programmed_show(struct seq_file *m, void *v)
{
	unsigned int b, n, s;
	u64 off;
	u32 lo, hi, size;

	mutex_lock(&emu->lock);
	for (b = EMU_CORE; b < EMU_BLOCKS; b++)
		for (n = 0; n < block_count(emu->arch, b); n++)
			for (s = 0; s < NQ_SETS; s++) {
				off = block_offset(emu->arch, b, n) + NQ_SET(s);
				lo = apb_rd(emu, off + NQ_BASE_LO);
				hi = apb_rd(emu, off + NQ_BASE_HI);
				size = apb_rd(emu, off + NQ_SIZE);
				if (!lo && !hi && !size)
					continue;
				seq_printf(m, "%s %u %u pa=0x%llx size=%u\n", block_names[b], n, s,
					   (u64)hi << 32 | lo, size);
			}
	mutex_unlock(&emu->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(emu_programmed);

/* Each core's host-device DMA queue (trn_emu_udma.c). */
static int emu_udma_dbg_show(struct seq_file *m, void *v)
{
	emu_udma_show(m, emu->udma);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(emu_udma_dbg);

/* ---- the host bridge ------------------------------------------------- */

static int emu_find_free_domain(void)
{
	struct pci_bus *bus = NULL;
	int domain = 0xffff;

	while ((bus = pci_find_next_bus(bus)) != NULL)
		domain = max_t(int, domain, pci_domain_nr(bus));
	return domain + 1;
}

/*
 * Power-on state: the registers the model and the driver's probe use read
 * zero (the memory may hold an earlier run's), the firmware reports its id,
 * every head register reads the start.
 */
static void emu_power_on(struct emu *e)
{
	const struct emu_arch *a = e->arch;
	unsigned int n;

	if (!a->reset_map) {
		/* v2: the APB window's first 16 MiB hold every register used. */
		memset_io(e->apb + 0x30000000ULL, 0, SZ_16M);
	} else {
		/*
		 * v3: per IO die, 0x6000000-0x7000000 holds the TPB notification
		 * blocks, the reset word, the host DMA engines, the TopSPs and
		 * the misc RAM; per SDMA engine, its UDMA and MISC registers and
		 * its notification block (V3_APB_SDMA_MISC_OFFSET + 0x1000 + 0x1000).
		 */
		memset_io(e->apb + 0x6000000ULL, 0, SZ_16M);
		memset_io(e->apb + SZ_1G + 0x6000000ULL, 0, SZ_16M);
		for (n = 0; n < a->nc * SDMA_PER_NC; n++)
			memset_io(e->apb + block_offset(a, EMU_SDMA, n) - 0x41000ULL, 0, 0x42000);
	}
	apb_wr(e, a->misc_ram + FW_DEVICE_ID, routing_id);
	emu_reset_queues(e, ~0U);
}

/*
 * Probe fault injection (fail_probe=SYMBOL), for the rig's test of the
 * vendor probe's failure paths (fix 11 of driver/neuron/vendor/fixes/).
 * The distro kernel has no CONFIG_FAULT_INJECTION (under which the
 * vendor's own neuron_fail_mc_alloc would fail an allocation), so the
 * emulated function's first probe makes the named function of neuron.ko
 * return -ENOMEM once, through a kretprobe armed only while the function
 * is added to the bus (the driver must be loaded before). Name a step whose
 * own failure path in the probe undoes what the step did (nmetric_init:
 * its thread is stopped there), so that what is left behind is the probe's.
 */
static char *fail_probe;
module_param(fail_probe, charp, 0444);
MODULE_PARM_DESC(fail_probe, "a neuron.ko function the first probe sees fail with -ENOMEM (test of the probe's failure paths)");

static atomic_t emu_fail_once;

static int emu_fail_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (atomic_xchg(&emu_fail_once, 0)) {
		regs_set_return_value(regs, -ENOMEM);
		pr_info("fail_probe: %s returns -ENOMEM\n", fail_probe);
	}
	return 0;
}

static struct kretprobe emu_fail_rp = { .handler = emu_fail_ret };

static int emu_fail_arm(void)
{
	int ret;

	if (!fail_probe || !*fail_probe)
		return 0;
	emu_fail_rp.kp.symbol_name = fail_probe;
	atomic_set(&emu_fail_once, 1);
	ret = register_kretprobe(&emu_fail_rp);
	if (ret)
		pr_err("fail_probe=%s: cannot probe it (%d): load neuron.ko first\n",
		       fail_probe, ret);
	return ret;
}

static void emu_fail_disarm(void)
{
	if (!fail_probe || !*fail_probe)
		return;
	unregister_kretprobe(&emu_fail_rp);
	if (atomic_read(&emu_fail_once))
		pr_warn("fail_probe: %s was not called\n", fail_probe);
}

static int __init emu_init(void)
{
	LIST_HEAD(resources);
	const struct emu_arch *a = NULL;
	struct emu *e;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(emu_archs); i++)
		if (sysfs_streq(arch, emu_archs[i].name))
			a = &emu_archs[i];
	if (!a) {
		pr_err("arch=%s: want v2 or v3\n", arch);
		return -EINVAL;
	}
	if (!apb_size)
		apb_size = a->apb_size;
	if (!dram_size)
		dram_size = a->dram_size;
	if (!base || !IS_ALIGNED(base, apb_size) || !is_power_of_2(apb_size) ||
	    apb_size < a->apb_min || !is_power_of_2(dram_size) ||
	    !IS_ALIGNED(base + apb_size, dram_size)) {
		pr_err("base=0x%lx apb_size=0x%lx dram_size=0x%lx: base must be reserved memory aligned to apb_size, both sizes powers of two, apb_size >= 0x%llx for %s\n",
		       base, apb_size, dram_size, a->apb_min, a->name);
		return -EINVAL;
	}
	if (region_intersects(base, apb_size + dram_size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		pr_err("0x%lx+0x%lx is system RAM: reserve it with memmap=\n",
		       base, apb_size + dram_size);
		return -EINVAL;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->arch = a;
	for (i = 0; i < EMU_BLOCKS; i++) {
		e->q[i] = kvcalloc((size_t)block_count(a, i) * NQ_SETS, sizeof(struct emu_queue),
				   GFP_KERNEL);
		if (!e->q[i]) {
			ret = -ENOMEM;
			goto err_free;
		}
	}
	spin_lock_init(&e->cfg_lock);
	mutex_init(&e->lock);
	e->entry_size = 64;
	emu = e;
	add_taint(TAINT_TEST, LOCKDEP_STILL_OK);

	e->apb = ioremap(base, apb_size);
	if (!e->apb) {
		ret = -ENOMEM;
		goto err_free;
	}
	emu_power_on(e);
	emu_cfg_init(e, a->device);

	e->window.name = "neuronprof_trn_emu";
	e->window.start = base;
	e->window.end = base + apb_size + dram_size - 1;
	e->window.flags = IORESOURCE_MEM;
	/*
	 * The window is the root of the bus's resources only: the memory is
	 * already an e820 "Reserved" entry of iomem_resource, under which
	 * pci_request_region() of the driver places the BARs.
	 */
	e->thread = kthread_run(emu_thread, e, "neuronprof_trn_emu");
	if (IS_ERR(e->thread)) {
		ret = PTR_ERR(e->thread);
		goto err_unmap;
	}
	if (udma) {
		struct emu_udma_cfg uc = {
			.apb = e->apb, .dram_pa = base + apb_size, .dram_size = dram_size,
			.host_base = a->host_base, .host_mask = a->host_mask, .nc = a->nc,
			.eng_off = a->h2t_udma, .qid = a->h2t_qid,
		};

		e->udma = emu_udma_start(&uc);
		if (IS_ERR(e->udma)) {
			ret = PTR_ERR(e->udma);
			e->udma = NULL;
			goto err_thread;
		}
	}

	e->busn.name = "neuronprof_trn_emu bus";
	e->busn.start = 0;
	e->busn.end = 0;
	e->busn.flags = IORESOURCE_BUS;
	ret = emu_fail_arm();
	if (ret)
		goto err_udma;
	e->sd.domain = emu_find_free_domain();
	e->sd.node = NUMA_NO_NODE;
	pci_add_resource(&resources, &e->busn);
	pci_add_resource(&resources, &e->window);
	e->bus = pci_create_root_bus(NULL, 0, &emu_pci_ops, &e->sd, &resources);
	if (!e->bus) {
		pci_free_resource_list(&resources);
		emu_fail_disarm();
		ret = -ENODEV;
		goto err_udma;
	}
	pci_scan_child_bus(e->bus);
	pci_bus_claim_resources(e->bus);
	pci_bus_add_devices(e->bus);
	emu_fail_disarm();
	e->pdev = pci_get_slot(e->bus, 0);

	e->dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("config", 0600, e->dir, NULL, &emu_config_fops);
	debugfs_create_file("produce", 0600, e->dir, NULL, &emu_produce_fops);
	debugfs_create_file("headread", 0200, e->dir, NULL, &emu_headread_fops);
	debugfs_create_file("headwritten", 0200, e->dir, NULL, &emu_headwritten_fops);
	debugfs_create_file("queues", 0400, e->dir, NULL, &emu_queues_fops);
	debugfs_create_file("programmed", 0400, e->dir, NULL, &emu_programmed_fops);
	debugfs_create_file("udma", 0400, e->dir, NULL, &emu_udma_dbg_fops);
	pr_info("%s function %04x:00:00.0 (%s DHAL), BAR2 0x%lx+0x%lx, BAR4 0x%lx+0x%lx\n",
		a->product, e->sd.domain, a->name, base, apb_size, base + apb_size, dram_size);
	return 0;

err_udma:
	emu_udma_stop(e->udma);
err_thread:
	kthread_stop(e->thread);
err_unmap:
	iounmap(e->apb);
err_free:
	for (i = 0; i < EMU_BLOCKS; i++)
		kvfree(e->q[i]);
	kfree(e);
	emu = NULL;
	return ret;
}

static void __exit emu_exit(void)
{
	struct emu *e = emu;
	unsigned int b;

	debugfs_remove_recursive(e->dir);
	pci_dev_put(e->pdev);
	pci_lock_rescan_remove();
	pci_stop_root_bus(e->bus);
	pci_remove_root_bus(e->bus);
	pci_unlock_rescan_remove();
	emu_udma_stop(e->udma);
	kthread_stop(e->thread);
	iounmap(e->apb);
	for (b = 0; b < EMU_BLOCKS; b++)
		kvfree(e->q[b]);
	kfree(e);
}

module_init(emu_init);
module_exit(emu_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("neuronprof test rig: an emulated Trainium PCI function for the vendor's neuron.ko");
