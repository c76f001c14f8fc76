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
 * id, the trn1 device id 0x7164 and revision 255, the revision with which
 * the vendor's driver takes its QEMU paths (REVID_QEMU, neuron_arch.c). In
 * that mode the driver maps its register ("APB") BAR from BAR2 and device
 * memory from BAR4. Both BARs are backed by guest memory that the VM's
 * kernel command line reserves (``memmap=SIZE$ADDR``), so that ioremap()
 * works on it; the module's parameter ``base`` names that address.
 *
 * A device model plays the hardware on that memory:
 *
 * - the firmware's misc RAM holds the routing id that probe polls for;
 * - a thread answers the firmware I/O doorbell: a reset request (device or
 *   TPB) clears every queue register set, acknowledges the request and
 *   clears the QEMU reset word the driver waits on; a register-read or
 *   metrics request is answered in the response buffer the driver
 *   programmed, by sequence number, as neuron_fw_io.c expects;
 * - ``produce`` (debugfs) writes entries into a notification queue at the
 *   base and size the driver programmed into a register set, as the
 *   hardware would: a host-memory ring through the host address, with the
 *   entry size and the start position the test chose.
 *
 * Control, /sys/kernel/debug/neuronprof_trn_emu/: ``config`` takes
 * ``entry_size=N head_start=N head_unit=index|byte|counter``, which the
 * next reset applies: every head register then reads the start (in its
 * unit) and the device writes a queue programmed after it from there; ``produce``
 * takes ``BLOCK N SET COUNT`` where BLOCK is ``core`` (N a NeuronCore),
 * ``ts`` (N a TopSP) or ``sdma`` (N = core * 16 + engine) and SET the
 * register set in that block, and reads back the result of the last
 * command; ``queues`` lists every programmed queue with what was produced.
 *
 * Entry I of a queue (I counts from 0 at programming) starts with the
 * 64-bit word 0xE3D0 << 48 | key << 32 | I, key = BLOCK (0 core, 1 ts,
 * 2 sdma) << 12 | N << 6 | SET, and its byte J >= 8 is (I * 31 + J) & 0xff.
 *
 * The register layout is the vendor's address map for v2 (v2/address_map.h,
 * v2/notific.h of aws-neuronx 2.24.7.0); the table below restates the
 * offsets the driver writes to, so a change shows up as a rig failure.
 * Taints the kernel (TAINT_TEST).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/unaligned.h>

#include "trn_emu_regs.h"

#define EMU_VENDOR		0x1d0f	/* AMZN_VENDOR_ID, neuron_device.h:35 */
#define EMU_REVISION		0xff	/* REVID_QEMU, neuron_arch.c:24 */
#define EMU_CLASS		0x120000 /* processing accelerator */

/* Offsets in the APB BAR, v2 (v2/address_map.h, v2/notific.h:30-48). */
#define APB_OFFSET		0x30000000ULL	/* V2_PCIE_BAR0_APB_OFFSET */
#define APB_BASE		0xffff0000000ULL /* V2_APB_BASE, device address */
#define MISC_RAM		0x30fa0000ULL	/* V2_MMAP_BAR0_APB_MISC_RAM_OFFSET */
#define QEMU_RESET_WORD		0x30647010ULL	/* SENG_0_RESERVED1 + 0x10 */
#define PCI_HOST_BASE		0x100000000000ULL /* V2_PCIE_A0_BASE */
#define PCI_RT_MASK		0x1f00000000000ULL /* V2_PCIE_ALL_RT_MASK */

#define NC_COUNT		2
#define TS_COUNT		6
#define SDMA_PER_NC		16
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

static unsigned long base;
module_param(base, ulong, 0444);
MODULE_PARM_DESC(base, "guest-physical address of the memory reserved for the BARs (memmap=SIZE$ADDR); required");
static unsigned long apb_size = SZ_1G;
module_param(apb_size, ulong, 0444);
MODULE_PARM_DESC(apb_size, "bytes of the register BAR (BAR2), a power of two covering 0x31000000 (default 1 GiB)");
static unsigned long dram_size = SZ_64M;
module_param(dram_size, ulong, 0444);
MODULE_PARM_DESC(dram_size, "bytes of the device-memory BAR (BAR4), a power of two (default 64 MiB)");
static unsigned int routing_id;
module_param(routing_id, uint, 0444);
MODULE_PARM_DESC(routing_id, "routing id the firmware reports (default 0)");

enum emu_block { EMU_CORE, EMU_TS, EMU_SDMA };
static const char *const block_names[] = { "core", "ts", "sdma" };

struct emu_queue {
	u64 pa;			/* as programmed */
	u32 size;
	u64 produced;		/* entries since programming */
	u64 bytes;
};

struct emu {
	struct pci_sysdata sd;
	struct resource busn;
	struct resource window;
	struct pci_bus *bus;
	struct pci_dev *pdev;

	spinlock_t cfg_lock;	/* config space */
	u32 cfg[16];
	u32 bar_mask[6];

	void __iomem *apb;
	struct task_struct *thread;

	struct mutex lock;	/* everything below */
	unsigned int entry_size;
	unsigned int head_start;
	bool head_bytes;	/* head registers count bytes, not entries */
	struct emu_queue core[NC_COUNT][NQ_SETS];
	struct emu_queue ts[TS_COUNT][NQ_SETS];
	struct emu_queue sdma[NC_COUNT * SDMA_PER_NC][NQ_SETS];
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

static u64 block_offset(enum emu_block b, unsigned int n)
{
	switch (b) {
	case EMU_CORE:
		return CORE_NOTIFIC(n);
	case EMU_TS:
		return TS_NOTIFIC(n);
	default:
		return SDMA_NOTIFIC(n / SDMA_PER_NC, n % SDMA_PER_NC);
	}
}

static unsigned int block_count(enum emu_block b)
{
	return b == EMU_CORE ? NC_COUNT : b == EMU_TS ? TS_COUNT : NC_COUNT * SDMA_PER_NC;
}

static struct emu_queue *emu_q(struct emu *e, enum emu_block b, unsigned int n,
			       unsigned int set)
{
	if (n >= block_count(b) || set >= NQ_SETS)
		return NULL;
	switch (b) {
	case EMU_CORE:
		return &e->core[n][set];
	case EMU_TS:
		return &e->ts[n][set];
	default:
		return &e->sdma[n][set];
	}
}

/* A reset clears every queue register set, as a device reset would. */
static void emu_reset_queues(struct emu *e)
{
	unsigned int b, n, s;

	for (b = EMU_CORE; b <= EMU_SDMA; b++)
		for (n = 0; n < block_count(b); n++)
			for (s = 0; s < NQ_SETS; s++) {
				u64 off = block_offset(b, n) + NQ_SET(s);

				apb_wr(e, off + NQ_BASE_LO, 0);
				apb_wr(e, off + NQ_BASE_HI, 0);
				apb_wr(e, off + NQ_SIZE, 0);
				/* Where the device starts writing a fresh queue. */
				apb_wr(e, off + NQ_HEAD, e->head_bytes ?
				       e->head_start * e->entry_size : e->head_start);
				memset(emu_q(e, b, n, s), 0, sizeof(struct emu_queue));
			}
}

static void *host_map(u64 pa, size_t len)
{
	if ((pa & PCI_RT_MASK) != PCI_HOST_BASE)
		return NULL;
	pa &= ~PCI_HOST_BASE;
	if (!pfn_valid(PHYS_PFN(pa)) || !pfn_valid(PHYS_PFN(pa + len - 1)))
		return NULL;
	return memremap(pa, len, MEMREMAP_WB);
}

/* Answer one firmware I/O request (neuron_fw_io.c fw_io_execute_request). */
static void emu_fw_request(struct emu *e)
{
	u64 req_pa = (u64)apb_rd(e, MISC_RAM + FW_REQ_HI) << 32 |
		     apb_rd(e, MISC_RAM + FW_REQ_LO);
	u64 resp_pa = (u64)apb_rd(e, MISC_RAM + FW_RESP_HI) << 32 |
		      apb_rd(e, MISC_RAM + FW_RESP_LO);
	u8 *req, *resp;
	u16 size, rsize = 4;
	u8 err = FW_OK;
	unsigned int i, n;

	req = host_map(req_pa, FW_MAX_SIZE);
	resp = host_map(resp_pa, FW_MAX_SIZE);
	if (!req || !resp)
		goto out;
	size = get_unaligned_le16(req + 2);
	switch (req[1]) {
	case FW_CMD_READ:
		n = size > 8 ? (size - 8) / 8 : 0;
		for (i = 0; i < n && 4 + 4 * (i + 1) <= FW_MAX_SIZE; i++) {
			u64 addr = get_unaligned_le64(req + 8 + 8 * i);
			u32 v = 0;

			if (addr >= APB_BASE && addr - APB_BASE + APB_OFFSET + 4 <= apb_size)
				v = apb_rd(e, addr - APB_BASE + APB_OFFSET);
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

	while (!kthread_should_stop()) {
		if (apb_rd(e, MISC_RAM + FW_DOORBELL)) {
			apb_wr(e, MISC_RAM + FW_DOORBELL, 0);
			mutex_lock(&e->lock);
			if (apb_rd(e, MISC_RAM + FW_RESET)) {
				emu_reset_queues(e);
				e->resets++;
				apb_wr(e, MISC_RAM + FW_RESET, 0);
				apb_wr(e, QEMU_RESET_WORD, 0);
			} else {
				emu_fw_request(e);
			}
			mutex_unlock(&e->lock);
		}
		usleep_range(500, 1000);
	}
	return 0;
}

static u64 entry_word0(enum emu_block b, unsigned int n, unsigned int set, u64 i)
{
	u32 key = (u32)b << 12 | n << 6 | set;

	return 0xE3D0ULL << 48 | (u64)key << 32 | (u32)i;
}

/* Write @count entries into the queue of register set @set of block @b @n. */
static int emu_produce(struct emu *e, enum emu_block b, unsigned int n,
		       unsigned int set, unsigned int count)
{
	struct emu_queue *q = emu_q(e, b, n, set);
	u64 off, pa;
	u32 size, nent, i;
	u8 *ring;

	if (!q)
		return -EINVAL;
	off = block_offset(b, n) + NQ_SET(set);
	pa = (u64)apb_rd(e, off + NQ_BASE_HI) << 32 | apb_rd(e, off + NQ_BASE_LO);
	size = apb_rd(e, off + NQ_SIZE);
	if (!pa || !size)
		return -ENOENT;		/* not programmed */
	if (size < e->entry_size || !is_power_of_2(size))
		return -EINVAL;
	if (pa != q->pa || size != q->size) {
		q->pa = pa;
		q->size = size;
		q->produced = 0;
		q->bytes = 0;
	}
	ring = host_map(pa, size);
	if (!ring)
		return -EREMOTEIO;	/* device memory: not modelled */
	nent = size / e->entry_size;
	for (i = 0; i < count; i++) {
		u64 seq = q->produced + i;
		u8 *ent = ring + ((e->head_start + seq) % nent) * e->entry_size;
		unsigned int j;

		put_unaligned_le64(entry_word0(b, n, set, seq), ent);
		for (j = 8; j < e->entry_size; j++)
			ent[j] = (u8)(seq * 31 + j);
	}
	q->produced += count;
	q->bytes += (u64)count * e->entry_size;
	memunmap(ring);
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
	unsigned int n, set, count, b;
	int ret = -EINVAL;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%7s %u %u %u", name, &n, &set, &count) != 4)
		return -EINVAL;
	for (b = 0; b < ARRAY_SIZE(block_names); b++)
		if (!strcmp(name, block_names[b]))
			break;
	if (b == ARRAY_SIZE(block_names) || count > (1U << 24))
		return -EINVAL;
	mutex_lock(&emu->lock);
	ret = emu_produce(emu, b, n, set, count);
	snprintf(emu->result, sizeof(emu->result), "%d\n", ret);
	mutex_unlock(&emu->lock);
	return ret ? ret : len;
}

static const struct file_operations emu_produce_fops = {
	.owner = THIS_MODULE,
	.read = emu_result_read,
	.write = emu_produce_write,
	.llseek = default_llseek,
};

static ssize_t emu_config_write(struct file *f, const char __user *ubuf,
				size_t len, loff_t *pos)
{
	char buf[64], *p, *tok;
	unsigned int v;
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
		else if (!strcmp(tok, "head_unit=byte"))
			emu->head_bytes = true;
		else if (!strcmp(tok, "head_unit=index") || !strcmp(tok, "head_unit=counter"))
			emu->head_bytes = false;
		else
			ret = -EINVAL;
	}
	mutex_unlock(&emu->lock);
	return ret ? ret : len;
}

static int emu_config_show(struct seq_file *m, void *v)
{
	mutex_lock(&emu->lock);
	seq_printf(m, "entry_size=%u head_start=%u head_unit=%s resets=%llu fw_requests=%llu\n",
		   emu->entry_size, emu->head_start, emu->head_bytes ? "byte" : "entries",
		   emu->resets, emu->fw_requests);
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
	for (b = EMU_CORE; b <= EMU_SDMA; b++)
		for (n = 0; n < block_count(b); n++)
			for (s = 0; s < NQ_SETS; s++) {
				struct emu_queue *q = emu_q(emu, b, n, s);

				if (!q->size)
					continue;
				seq_printf(m, "%s %u %u pa=0x%llx size=%u produced=%llu bytes=%llu\n",
					   block_names[b], n, s, q->pa, q->size,
					   q->produced, q->bytes);
			}
	mutex_unlock(&emu->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(emu_queues);

/* ---- the host bridge ------------------------------------------------- */

static int emu_find_free_domain(void)
{
	struct pci_bus *bus = NULL;
	int domain = 0xffff;

	while ((bus = pci_find_next_bus(bus)) != NULL)
		domain = max_t(int, domain, pci_domain_nr(bus));
	return domain + 1;
}

static int __init emu_init(void)
{
	LIST_HEAD(resources);
	struct emu *e;
	int ret;

	if (!base || !IS_ALIGNED(base, apb_size) || !is_power_of_2(apb_size) ||
	    apb_size < 0x31000000ULL || !is_power_of_2(dram_size) ||
	    !IS_ALIGNED(base + apb_size, dram_size)) {
		pr_err("base=0x%lx apb_size=0x%lx dram_size=0x%lx: base must be reserved memory aligned to apb_size, both sizes powers of two, apb_size >= 0x31000000\n",
		       base, apb_size, dram_size);
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
	/* Power-on state: registers zero, the firmware reports its id. */
	memset_io(e->apb + APB_OFFSET, 0, 0x01000000);
	apb_wr(e, MISC_RAM + FW_DEVICE_ID, routing_id);
	emu_cfg_init(e, 0x7164);

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

	e->busn.name = "neuronprof_trn_emu bus";
	e->busn.start = 0;
	e->busn.end = 0;
	e->busn.flags = IORESOURCE_BUS;
	e->sd.domain = emu_find_free_domain();
	e->sd.node = NUMA_NO_NODE;
	pci_add_resource(&resources, &e->busn);
	pci_add_resource(&resources, &e->window);
	e->bus = pci_create_root_bus(NULL, 0, &emu_pci_ops, &e->sd, &resources);
	if (!e->bus) {
		pci_free_resource_list(&resources);
		ret = -ENODEV;
		goto err_thread;
	}
	pci_scan_child_bus(e->bus);
	pci_bus_claim_resources(e->bus);
	pci_bus_add_devices(e->bus);
	e->pdev = pci_get_slot(e->bus, 0);

	e->dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("config", 0600, e->dir, NULL, &emu_config_fops);
	debugfs_create_file("produce", 0600, e->dir, NULL, &emu_produce_fops);
	debugfs_create_file("queues", 0400, e->dir, NULL, &emu_queues_fops);
	pr_info("trn1 function %04x:00:00.0, BAR2 0x%lx+0x%lx, BAR4 0x%lx+0x%lx\n",
		e->sd.domain, base, apb_size, base + apb_size, dram_size);
	return 0;

err_thread:
	kthread_stop(e->thread);
err_unmap:
	iounmap(e->apb);
err_free:
	kfree(e);
	emu = NULL;
	return ret;
}

static void __exit emu_exit(void)
{
	struct emu *e = emu;

	debugfs_remove_recursive(e->dir);
	pci_dev_put(e->pdev);
	pci_lock_rescan_remove();
	pci_stop_root_bus(e->bus);
	pci_remove_root_bus(e->bus);
	pci_unlock_rescan_remove();
	kthread_stop(e->thread);
	iounmap(e->apb);
	kfree(e);
}

module_init(emu_init);
module_exit(emu_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("neuronprof test rig: an emulated Trainium PCI function for the vendor's neuron.ko");
