// SPDX-License-Identifier: GPL-2.0
/*
 * The emulated Trainium's host-device DMA queues: the part of the device
 * model (trn_emu.c) that executes the descriptors the vendor's
 * ndma_memcpy() queues.
 */

/**
 * DOC: emulated host-device DMA
 *
 * The vendor's driver copies between host memory and device memory (and
 * within either) through one UDMA queue per NeuronCore: ndma_memcpy()
 * (neuron_dma.c:566, used by MEM_BUF_COPY, MEM_COPY, memset,
 * DMA_DESCRIPTOR_COPYOUT and ndma_memcpy_buf_from_mc()) takes the core's
 * host-to-device engine's h2t_ring_lock, writes pairs of descriptors
 * into the engine's M2S (source) and S2M (destination) rings in host
 * memory, each pair one copy of at most 64 KiB, appends a pair that copies
 * a marker word (DMA_COMPLETION_MARKER) from one host word to the next,
 * adds the count to both rings' tail-increment registers
 * (udma_m2m_copy_start(): S2M first, then M2S, after mb()), and polls the
 * second word until it holds the marker (ndma_memcpy_wait_for_completion():
 * udelay, then 1 us polls). It reads no completion register: the marker is
 * the completion, and the count of completed descriptors it acknowledges
 * (udma_cdesc_ack()) is its own. Which engine and queue serve which core,
 * and where their registers are, is in trn_emu_regs.h.
 *
 * The BARs are guest memory, so the driver's register writes are not
 * trapped. This model's thread (``neuronprof_udma``) looks at each core's
 * queue every ``udma_poll_us`` (default 10) microseconds when idle: it
 * exchanges each tail-increment register with 0 (an atomic xchg, so a
 * write lands either before the exchange, and is taken, or after it, and
 * stays for the next look) and adds what it took to its own count of
 * descriptors pending. It cannot miss an increment because the driver
 * never writes a second one before the first was taken: it writes them
 * under h2t_ring_lock and, for every synchronous copy (all the users above),
 * waits for its marker before it writes again or lets the lock go, and
 * the model writes a marker only after it took the increment that covers
 * it. MEM_COPY_ASYNC (ndma_memcpy_mc_async()) can leave two batches
 * outstanding, so its second increment could overwrite the first: the
 * model does not serve it (the rig does not issue it).
 *
 * Then, while both rings have descriptors pending, it takes the pair at
 * its heads from the ring bases and lengths the driver programmed
 * (udma_q_set_pointers()), and copies the M2S descriptor's length from its
 * source to the S2M descriptor's destination: an address with the host
 * bit (V2/V3_PCIE_A0_BASE) is guest memory at the address without it, any
 * other a device address, which is BAR4's offset as the rest of the
 * model has it. It writes its heads and tails into the head and tail
 * registers. A queue's software-control register written with RST_Q
 * (udma_q_reset(), every time the driver initialises the queue) resets
 * that ring's head and count to 0, as the driver resets its own.
 *
 * A pair it cannot execute (lengths that differ, an address outside guest
 * memory or BAR4, a ring not programmed) halts the queue, as an aborting
 * engine would: nothing more is copied, so the driver's wait times out,
 * until the queue is reset. ``udma`` (debugfs) shows each core's queue:
 * engine offset, queue, heads, pairs and bytes copied, errors, halted.
 * The thread runs at the lowest real-time priority (sched_set_fifo_low()),
 * so that a copy does not wait behind the VM's other tasks on its CPU (an
 * engine does not share a CPU). That CPU may be the one where the driver
 * polls: the scheduler wakes the thread where it last ran, and does not
 * move it away from a task of the normal class. The poll is in process
 * context, under a mutex, and never sleeps, so the thread runs there only
 * if it can preempt the poll: the guest must be fully preemptible
 * (``preempt=full``, which the rig passes). With the voluntary preemption
 * Debian's kernel boots with, the copy waits out the driver's timeout
 * (hundreds of seconds in its QEMU mode) and the guest's watchdog reports
 * a soft lockup; the rig's dmacopy check runs one copy with the thread
 * and the driver pinned to the same CPU to show it does not. The copy's
 * speed is the model's (memcpy in the VM, and the thread's wake-up under
 * QEMU), not a PCIe link's.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/unaligned.h>

#include "trn_emu_regs.h"
#include "trn_emu_udma.h"

static unsigned int udma_poll_us = 10;
module_param(udma_poll_us, uint, 0444);
MODULE_PARM_DESC(udma_poll_us, "microseconds between looks at the host-device DMA queues while they are idle (default 10)");

/* The longest ring the model takes (the driver's are DMA_H2T_DESC_COUNT). */
#define UDMA_MAX_DESCS		65536U

struct emu_udma_q {
	u64 eng;		/* BAR offset of the engine's registers */
	unsigned int qid;
	u32 tx_head, rx_head;	/* next descriptor the model executes */
	u32 tx_pend, rx_pend;	/* descriptors added and not executed */
	u64 pairs, bytes, errors;
	bool halted;
};

struct emu_udma {
	struct emu_udma_cfg cfg;
	void __iomem *dram;
	void *bounce;		/* a device-to-device copy, 64 KiB */
	struct task_struct *thread;
	unsigned int nq;
	struct emu_udma_q q[];
};

static u32 __iomem *udma_reg(struct emu_udma *u, struct emu_udma_q *q, bool rx, u32 reg)
{
	return u->cfg.apb + q->eng + (rx ? UDMA_S2M_Q(q->qid) : UDMA_M2S_Q(q->qid)) + reg;
}

/* Take the register's value, leaving 0 (see the DOC: a write is never lost). */
static u32 udma_take(u32 __iomem *reg)
{
	return xchg((u32 __force *)reg, 0);
}

/* Guest memory at host address @addr for @len bytes, or NULL. */
static void *udma_host(struct emu_udma *u, u64 addr, u32 len)
{
	u64 pa;

	if ((addr & u->cfg.host_mask) != u->cfg.host_base)
		return NULL;
	pa = addr & ~u->cfg.host_base;
	if (!pfn_valid(PHYS_PFN(pa)) || !pfn_valid(PHYS_PFN(pa + len - 1)))
		return NULL;
	return memremap(pa, len, MEMREMAP_WB);
}

/* BAR4's memory at device address @addr for @len bytes, or NULL. */
static void __iomem *udma_dev(struct emu_udma *u, u64 addr, u32 len)
{
	if ((addr & u->cfg.host_mask) == u->cfg.host_base || addr >= u->cfg.dram_size ||
	    len > u->cfg.dram_size - addr)
		return NULL;
	return u->dram + addr;
}

/* Copy @len bytes from @src to @dst (device addresses); 0 or -EFAULT. */
static int udma_copy(struct emu_udma *u, u64 src, u64 dst, u32 len)
{
	void *hs = udma_host(u, src, len), *hd = udma_host(u, dst, len);
	void __iomem *ds = hs ? NULL : udma_dev(u, src, len);
	void __iomem *dd = hd ? NULL : udma_dev(u, dst, len);
	int ret = 0;

	if ((!hs && !ds) || (!hd && !dd)) {
		ret = -EFAULT;
	} else if (hs && hd) {
		memmove(hd, hs, len);
	} else if (ds && hd) {
		memcpy_fromio(hd, ds, len);
	} else if (hs && dd) {
		memcpy_toio(dd, hs, len);
	} else {
		memcpy_fromio(u->bounce, ds, len);
		memcpy_toio(dd, u->bounce, len);
	}
	if (hs)
		memunmap(hs);
	if (hd)
		memunmap(hd);
	return ret;
}

static void udma_halt(struct emu_udma_q *q, unsigned int n, const char *why)
{
	q->errors++;
	q->halted = true;
	q->tx_pend = 0;
	q->rx_pend = 0;
	pr_warn_ratelimited("core %u host-device queue (engine at 0x%llx, queue %u): %s; halted until the queue is reset\n",
			    n, q->eng, q->qid, why);
}

/* Look at core @n's queue once: true if it executed anything. */
static bool udma_poll(struct emu_udma *u, unsigned int n)
{
	struct emu_udma_q *q = &u->q[n];
	u64 tx_base, rx_base;
	u32 tx_len, rx_len, done = 0;
	u8 *tx_ring = NULL, *rx_ring = NULL;

	if (udma_take(udma_reg(u, q, false, UDMA_M2S_Q_SW_CTRL)) & UDMA_Q_SW_CTRL_RST_Q) {
		q->tx_head = 0;
		q->tx_pend = 0;
		q->halted = false;
	}
	if (udma_take(udma_reg(u, q, true, UDMA_S2M_Q_SW_CTRL)) & UDMA_Q_SW_CTRL_RST_Q) {
		q->rx_head = 0;
		q->rx_pend = 0;
		q->halted = false;
	}
	q->tx_pend += udma_take(udma_reg(u, q, false, UDMA_Q_DRTP_INC));
	q->rx_pend += udma_take(udma_reg(u, q, true, UDMA_Q_DRTP_INC));
	if (!q->tx_pend || !q->rx_pend)
		return false;
	if (q->halted) {
		q->tx_pend = 0;
		q->rx_pend = 0;
		return false;
	}

	tx_base = (u64)readl(udma_reg(u, q, false, UDMA_Q_DRBP_HI)) << 32 |
		  readl(udma_reg(u, q, false, UDMA_Q_DRBP_LO));
	rx_base = (u64)readl(udma_reg(u, q, true, UDMA_Q_DRBP_HI)) << 32 |
		  readl(udma_reg(u, q, true, UDMA_Q_DRBP_LO));
	tx_len = readl(udma_reg(u, q, false, UDMA_Q_DRL));
	rx_len = readl(udma_reg(u, q, true, UDMA_Q_DRL));
	if (!is_power_of_2(tx_len) || !is_power_of_2(rx_len) || tx_len > UDMA_MAX_DESCS ||
	    rx_len > UDMA_MAX_DESCS || q->tx_pend > tx_len || q->rx_pend > rx_len) {
		udma_halt(q, n, "ring not programmed or more added than it holds");
		return true;
	}
	tx_ring = udma_host(u, tx_base, tx_len * UDMA_DESC_SIZE);
	rx_ring = udma_host(u, rx_base, rx_len * UDMA_DESC_SIZE);
	if (!tx_ring || !rx_ring) {
		udma_halt(q, n, "a descriptor ring is not in host memory");
		goto out;
	}
	/* The driver's mb() before the increment orders the descriptors; so does xchg. */
	while (q->tx_pend && q->rx_pend) {
		const u8 *td = tx_ring + (size_t)q->tx_head * UDMA_DESC_SIZE;
		const u8 *rd = rx_ring + (size_t)q->rx_head * UDMA_DESC_SIZE;
		u32 tl = get_unaligned_le32(td) & UDMA_DESC_LEN_MASK;
		u32 rl = get_unaligned_le32(rd) & UDMA_DESC_LEN_MASK;

		if (tl != rl) {
			udma_halt(q, n, "M2S and S2M lengths differ");
			break;
		}
		tl = tl ?: UDMA_DESC_MAX_LEN;
		if (udma_copy(u, get_unaligned_le64(td + 8), get_unaligned_le64(rd + 8), tl)) {
			udma_halt(q, n, "an address outside guest memory and BAR4");
			break;
		}
		q->tx_head = (q->tx_head + 1) & (tx_len - 1);
		q->rx_head = (q->rx_head + 1) & (rx_len - 1);
		q->tx_pend--;
		q->rx_pend--;
		q->pairs++;
		q->bytes += tl;
		if (++done % 64 == 0)
			cond_resched();
	}
	writel(q->tx_head, udma_reg(u, q, false, UDMA_Q_DRHP));
	writel(q->rx_head, udma_reg(u, q, true, UDMA_Q_DRHP));
	writel((q->tx_head + q->tx_pend) & (tx_len - 1), udma_reg(u, q, false, UDMA_Q_DRTP));
	writel((q->rx_head + q->rx_pend) & (rx_len - 1), udma_reg(u, q, true, UDMA_Q_DRTP));
out:
	if (tx_ring)
		memunmap(tx_ring);
	if (rx_ring)
		memunmap(rx_ring);
	return true;
}

static int udma_thread(void *arg)
{
	struct emu_udma *u = arg;
	unsigned int n;
	bool busy;

	while (!kthread_should_stop()) {
		busy = false;
		for (n = 0; n < u->nq; n++)
			busy |= udma_poll(u, n);
		if (busy)
			cond_resched();
		else
			usleep_range(udma_poll_us, udma_poll_us * 2 + 1);
	}
	return 0;
}

/**
 * emu_udma_start() - start executing the host-device DMA queues.
 * @cfg: where the registers and memory are.
 *
 * Return: the model, or an ERR_PTR.
 */
struct emu_udma *emu_udma_start(const struct emu_udma_cfg *cfg)
{
	struct emu_udma *u;
	unsigned int n;
	int ret = -ENOMEM;

	u = kzalloc(struct_size(u, q, cfg->nc), GFP_KERNEL);
	if (!u)
		return ERR_PTR(-ENOMEM);
	u->cfg = *cfg;
	u->nq = cfg->nc;
	for (n = 0; n < u->nq; n++) {
		u->q[n].eng = cfg->eng_off(n);
		u->q[n].qid = cfg->qid(n);
	}
	u->bounce = kmalloc(UDMA_DESC_MAX_LEN, GFP_KERNEL);
	u->dram = ioremap(cfg->dram_pa, cfg->dram_size);
	if (!u->bounce || !u->dram)
		goto err;
	u->thread = kthread_create(udma_thread, u, "neuronprof_udma");
	if (IS_ERR(u->thread)) {
		ret = PTR_ERR(u->thread);
		goto err;
	}
	/* An engine does not wait for the CPU: nor does its model behind the VM's tasks. */
	sched_set_fifo_low(u->thread);
	wake_up_process(u->thread);
	return u;
err:
	if (u->dram)
		iounmap(u->dram);
	kfree(u->bounce);
	kfree(u);
	return ERR_PTR(ret);
}

/**
 * emu_udma_stop() - stop the model and free it.
 * @u: from emu_udma_start(), or NULL.
 */
void emu_udma_stop(struct emu_udma *u)
{
	if (!u)
		return;
	kthread_stop(u->thread);
	iounmap(u->dram);
	kfree(u->bounce);
	kfree(u);
}

/**
 * emu_udma_show() - one line per core's queue, for debugfs.
 * @m: the file.
 * @u: the model, or NULL (not started: one line saying so).
 */
void emu_udma_show(struct seq_file *m, struct emu_udma *u)
{
	unsigned int n;

	if (!u) {
		seq_puts(m, "off\n");
		return;
	}
	for (n = 0; n < u->nq; n++) {
		struct emu_udma_q *q = &u->q[n];

		seq_printf(m, "core %u engine 0x%llx queue %u tx_head %u rx_head %u pairs %llu bytes %llu errors %llu%s\n",
			   n, q->eng, q->qid, READ_ONCE(q->tx_head), READ_ONCE(q->rx_head),
			   READ_ONCE(q->pairs), READ_ONCE(q->bytes), READ_ONCE(q->errors),
			   READ_ONCE(q->halted) ? " halted" : "");
	}
}
