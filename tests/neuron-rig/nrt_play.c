// SPDX-License-Identifier: GPL-2.0
/*
 * nrt_play: plays the Neuron runtime against the vendor's neuron.ko through
 * the vendor's own uapi (neuron_ioctl.h of the vendor tree, included at
 * build time), on the emulated trn1 or trn2 function of neuronprof_trn_emu
 * (the architecture NEURON_IOCTL_DEVICE_INFO reports picks the register
 * map of trn_emu_regs.h): it
 * asks for notification queues, has the emulated hardware write entries,
 * reads them through the driver's mmap and consumes them by writing the
 * head register with NEURON_IOCTL_BAR_WRITE, frees queue memory and resets
 * cores, as the runtime does.
 *
 * Usage: nrt_play [-e ENTRY_SIZE] [-u index|byte|counter] [-s HEAD_START]
 *                 [-E T0,T1,T2,T3,T4,T5] [-L LAG] [-I] [-P BIT] [-T]
 *                 [-R reset|head] [-D] [-H] [-Z VALUE] [-W MS] [-d DEVICE] STEP...
 * -W: the device may not exist yet: wait up to MS milliseconds for its
 * node, then 20 ms more, then open it again until it opens (a runtime
 * started while the device is probed). The 20 ms steps around a hole of
 * the vendor's driver: ncdev_init_device_node() (neuron_cdev.c:3050-3101)
 * creates the node before it sets the node's device, and an open in
 * between dereferences NULL in ncdev_open() (an oops). No DEVICE_INFO
 * then (the device is taken for a trn1), so that the first
 * NOTIFICATIONS_INIT follows the open at once, and the device model's
 * ``config`` is not written (its debugfs files appear
 * only after the probe), so only init and realloc steps make sense.
 * The options are the rig's personality (Documentation/neuron-rig.rst),
 * handed to the emulated device too: -E the entry size of each vendor
 * queue type (0: -e); -L the head lags the consumed position by LAG bytes
 * (the 2.1.5 runtime's 256), and, unless -I, the runtime writes the head
 * right after programming a queue, before it consumed anything (head =
 * start - LAG); -P the runtime flips head bit BIT each time the head wraps
 * (index and byte heads); -T the runtime writes the head of a queue that
 * is not TRACE_DMA into register set TYPE * 16 + ENGINE (the vendor's
 * decoder's reading), not the set the driver programmed (ENGINE); -R where
 * the device writes a queue re-programmed without a reset (trn_emu.c); -D
 * every queue in device memory (BAR4; its entries are not read back here),
 * as if each init step said :dev; -H a read of a head register returns the
 * device's consumed position (the head without the lag and the phase bit,
 * in the head unit), not the last head written: after each head write the
 * player has the device model set the register to it (``headread``); -Z a
 * read of a head register returns VALUE (0, or its reset value) whatever
 * was written: the device model keeps its own head, and the player tells
 * it of each head write (``headwritten``).
 * Steps (Q counts the queues asked for, from 0):
 *   init:core|ts:ID:NQ_TYPE:ENGINE:SIZE[:dev]   NOTIFICATIONS_INIT_V2
 *   realloc:core|ts:ID:NQ_TYPE:ENGINE:SIZE      ..._WITH_REALLOC_V2
 *   produce:Q:N     the emulated hardware writes N entries
 *   consume:Q:N     read N entries through mmap, check them, write the head
 *   heads:Q:N:K     consume N entries, writing the head every K entries
 *   free:Q          NEURON_IOCTL_MEM_FREE of the queue's memory handle; later
 *                   head writes of Q (consume) are not consumption: the
 *                   queue is gone, the register still holds its address
 *   rewind:Q:N      write a head N entries behind the last one (a runtime
 *                   that restarts its count), not consumption
 *   reset[:NC_MAP]  NEURON_IOCTL_NC_RESET and wait for it (the emulated
 *                   device's head registers then read HEAD_START); the
 *                   driver destroys the cores' queues, and what they
 *                   consumed before stays counted in their lines
 *   sleep:MS
 *   wait:PATH       create PATH.waiting, then wait (up to 60 s) until PATH exists
 *   mark:Q          what Q consumed so far is left out of its line (base=)
 *   dmacopy:NC:SIZE:ROUNDS  the vendor's DMA copy, through the core's
 *                   host-device queue (the device model's UDMA): allocate
 *                   SIZE bytes of core NC's device memory, then ROUNDS times
 *                   write a pattern into it with MEM_BUF_COPY (host to
 *                   device) and read it back with MEM_BUF_COPY (device to
 *                   host, ndma_memcpy_buf_from_mc()), and MEM_COPY it to a
 *                   host allocation read back too; prints "dmacopy ok ..."
 *                   or exits 1 naming the first byte that differs
 * Steps of a hostile runtime (each passes when the driver refuses, prints
 * "refused STEP: ERRNO"; one the driver lets through prints "HOLE STEP:
 * what happened" and exits 1):
 *   kread           BAR_READ of 4 registers at linux_banner's kernel address
 *                   (/proc/kallsyms), compared with /proc/version
 *   devinfo         DEVICE_INFO's BAR addresses must not be kernel addresses
 *   wunaligned      BAR_WRITE of an unaligned register 6 bytes before BAR0's end
 *   wpast:B         BAR_WRITE at BAR0's size minus B (0..3): past the BAR
 *   bigcount        BAR_WRITE of 2^30 registers (an unbounded allocation)
 *   badinit:core|ts:ID:NQ_TYPE:ENGINE:SIZE
 *                   NOTIFICATIONS_INIT_WITH_REALLOC_V2 with that engine index
 *   freed:Q:N       after free:Q, the emulated hardware writes N entries into
 *                   queue Q's registers: refused when the queue was halted
 *   extinfo         MEM_GET_EXTENDED_INFO of a live allocation must answer its
 *                   handle, not a kernel address
 *   stale           MEM_FREE of a freed handle after another allocation took
 *                   its index: refused when B, the new allocation, survives
 *   bdfext          DEVICE_BDF_EXT, on a second open of the device O_WRONLY
 *                   (any user's), of device 0 (must answer) and of the
 *                   indices 64, 255, 256 and 2^32 - 1 past the driver's
 *                   64-device table: refused, never a kernel BUG
 *   bench:Q:K:N[:US]
 *                   N rounds: the hardware writes K entries, the runtime
 *                   consumes them with one head write; prints the mean ns
 *                   of the BAR_WRITE and of a memcpy of the K entries. With
 *                   US, each round first spins US microseconds (untimed), as
 *                   a runtime computes between head writes, so that a
 *                   capture's drainer on the other CPU keeps up; spinning,
 *                   not sleeping, keeps this CPU as warm as a runtime's
 * Prints one line per queue at the end:
 *   queue Q BLOCK N SET produced=P consumed=C type=T es=E [base=B]
 * (C counts from entry B on, after a mark)
 * Exit status 0, or 1 with a message naming the step that failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "neuron_ioctl.h"
#include "trn_emu_regs.h"	/* driver/tests/: the emulated register map */

#define EMU "/sys/kernel/debug/neuronprof_trn_emu/"
#define MAXQ 64
#define NQ_HEAD_REG(blk, set)	((blk) + NQ_SET(set) + NQ_HEAD)
#define NQ_TYPE_TRACE_DMA	4

enum unit { U_INDEX, U_BYTE, U_COUNTER };

struct queue {
	const char *block;	/* core, ts, sdma: the block holding its registers */
	unsigned int n, set;
	unsigned int type, es;	/* vendor queue type, its entry size */
	unsigned int start;	/* ring index of the device's entry 0 (trn_emu.c) */
	__u32 last_off;		/* last head's ring offset, for the phase bit */
	unsigned int phase, heads;
	__u64 head_reg;
	__u64 mem_handle, mmap_offset;
	__u32 size;
	unsigned char *map;
	unsigned long long produced, consumed;
	unsigned long long pos;	/* entries the head is past: consumed, rewound, after free */
	unsigned long long base;	/* entries consumed before mark: not counted */
	int freed;
};

static int fd = -1;
static unsigned int entry_size = 64, head_start;
static unsigned int type_es[6], lag, phase_bit, typed_sets, no_init_head;
static const char *reprogram = "reset";
static int all_dev, read_pos;
static const char *read_fixed;	/* -Z: what a head register read returns */
static enum unit unit = U_INDEX;
static __u64 bar0;
static int v3;		/* the device is a trn2: NEURON_ARCH_V3 */
static struct queue qs[MAXQ];
static unsigned int nq;

/*
 * The bench's rounds: a round over OUTLIER_X times the median is the host
 * descheduling the VM's CPU (milliseconds), not the head write's work (a
 * wake-up of the reader included, microseconds), so means leave it out.
 */
#define OUTLIER_X	10

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Busy for @us microseconds of CLOCK_MONOTONIC. */
static void spin_us(unsigned long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < (long)us);
}

static double mean(const double *v, unsigned long n)
{
	double sum = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		sum += v[i];
	return sum / n;
}

static double kept_mean(const double *v, unsigned long n)
{
	double *sorted = malloc(n * sizeof(*v)), sum = 0, limit;
	unsigned long i, kept = 0;

	if (!sorted)
		return mean(v, n);
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*v), cmp_double);
	limit = sorted[n / 2] * OUTLIER_X;
	for (i = 0; i < n; i++)
		if (v[i] <= limit) {
			sum += v[i];
			kept++;
		}
	free(sorted);
	return sum / kept;
}

static void die(const char *step, const char *what)
{
	fprintf(stderr, "nrt_play: %s: %s%s%s\n", step, what, errno ? ": " : "",
		errno ? strerror(errno) : "");
	exit(1);
}

static void write_file(const char *step, const char *path, const char *s)
{
	int f = open(path, O_WRONLY);

	if (f < 0 || write(f, s, strlen(s)) != (ssize_t)strlen(s))
		die(step, path);
	close(f);
}

static void bar_write(const char *step, __u64 off, __u32 v)
{
	__u64 addr = bar0 + off;
	struct neuron_ioctl_bar_rw rw = { .bar = 0, .address = &addr, .data = &v, .count = 1 };

	if (ioctl(fd, NEURON_IOCTL_BAR_WRITE, &rw))
		die(step, "NEURON_IOCTL_BAR_WRITE");
}

static void head_write(const char *step, struct queue *q);

/*
 * The device sees a programmed queue at its first produce (trn_emu.c):
 * produce 0 entries, and read back where it writes entry 0.
 */
static void latch(const char *step, struct queue *q)
{
	char buf[96];
	int f;
	ssize_t r;

	snprintf(buf, sizeof(buf), "%s %u %u 0 %u", q->block, q->n, q->set, q->type);
	f = open(EMU "produce", O_WRONLY);
	r = f < 0 ? -1 : write(f, buf, strlen(buf));
	if (f >= 0)
		close(f);
	q->start = 0;
	if (r < 0)
		return;		/* a ring the model cannot write: nothing will be produced */
	f = open(EMU "produce", O_RDONLY);
	r = f < 0 ? -1 : read(f, buf, sizeof(buf) - 1);
	if (f >= 0)
		close(f);
	errno = 0;
	if (r <= 0)
		die(step, "reading the device's start");
	buf[r] = 0;
	if (sscanf(buf, "0 start=%u", &q->start) != 1)
		q->start = 0;	/* device memory: not modelled, nothing produced */
}

static void queue_init(const char *step, char *args, int realloc_)
{
	char kind[8] = "", loc[8] = "";
	unsigned int id, type, engine, size;
	struct queue *q = &qs[nq];
	int dev_type;

	errno = 0;
	if (nq == MAXQ ||
	    sscanf(args, "%7[a-z]:%u:%u:%u:%u:%7s", kind, &id, &type, &engine, &size, loc) < 5)
		die(step, "want core|ts:ID:NQ_TYPE:ENGINE:SIZE[:dev]");
	if (all_dev && !loc[0])
		strcpy(loc, "dev");
	dev_type = !strcmp(kind, "ts") ? NQ_DEVICE_TYPE_TOPSP : NQ_DEVICE_TYPE_NEURON_CORE;
	if (realloc_) {
		struct neuron_ioctl_notifications_init_with_realloc_v2 a = {
			.nq_dev_id = id, .nq_dev_type = dev_type, .nq_type = type,
			.engine_index = engine, .size = size, .on_host_memory = !loc[0],
			.force_alloc_mem = 1,
		};
		if (ioctl(fd, NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2, &a))
			die(step, "NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2");
		q->mem_handle = a.mem_handle;
		q->mmap_offset = a.mmap_offset;
	} else {
		struct neuron_ioctl_notifications_init_v2 a = {
			.nq_dev_id = id, .nq_dev_type = dev_type, .nq_type = type,
			.engine_index = engine, .size = size, .on_host_memory = !loc[0],
		};
		if (ioctl(fd, NEURON_IOCTL_NOTIFICATIONS_INIT_V2, &a))
			die(step, "NEURON_IOCTL_NOTIFICATIONS_INIT_V2");
		q->mem_handle = a.mem_handle;
		q->mmap_offset = a.mmap_offset;
	}
	/*
	 * Where the driver writes base and size (nnq_set_hwaddr_v2,
	 * ts_nq_set_hwaddr_v2): TRACE_DMA in set 0 of the SDMA engine's own
	 * block, every other queue in set ENGINE of its core's or TopSP's.
	 */
	if (dev_type == NQ_DEVICE_TYPE_TOPSP) {
		q->block = "ts";
		q->n = id;
		q->set = engine;
		q->head_reg = NQ_HEAD_REG(v3 ? EMU_V3_TS_NOTIFIC(id) : TS_NOTIFIC(id), engine);
	} else if (type == NQ_TYPE_TRACE_DMA) {
		q->block = "sdma";
		q->n = id * 16 + engine;
		q->set = 0;
		q->head_reg = NQ_HEAD_REG(v3 ? EMU_V3_SDMA_NOTIFIC(id, engine) :
					  SDMA_NOTIFIC(id, engine), 0);
	} else {
		q->block = "core";
		q->n = id;
		q->set = engine;
		q->head_reg = NQ_HEAD_REG(v3 ? EMU_V3_CORE_NOTIFIC(id) : CORE_NOTIFIC(id), engine);
	}
	if (typed_sets && type != NQ_TYPE_TRACE_DMA)
		q->head_reg += NQ_SET(type * 16 + engine) - NQ_SET(engine);
	q->type = type;
	q->es = type < 6 && type_es[type] ? type_es[type] : entry_size;
	q->size = size;
	q->produced = q->consumed = q->pos = 0;
	q->freed = 0;
	q->heads = 0;
	q->phase = 0;
	q->base = 0;
	q->map = NULL;
	if (!loc[0]) {
		q->map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, (off_t)q->mmap_offset);
		if (q->map == MAP_FAILED)
			die(step, "mmap of the queue");
	}
	latch(step, q);
	printf("init %u %s %u %u type=%u es=%u start=%u handle=0x%llx offset=0x%llx\n", nq,
	       q->block, q->n, q->set, q->type, q->es, q->start,
	       (unsigned long long)q->mem_handle, (unsigned long long)q->mmap_offset);
	nq++;
	/*
	 * The 2.1.5 runtime: head = start - LAG before anything is consumed,
	 * in a queue the driver programmed (not one handed out again).
	 */
	if (lag && !no_init_head && realloc_)
		head_write(step, q);
}

static struct queue *queue_arg(const char *step, char **p)
{
	unsigned long i = strtoul(*p, p, 10);

	errno = 0;
	if (i >= nq)
		die(step, "no such queue");
	if (**p == ':')
		(*p)++;
	return &qs[i];
}

/* Check entry @seq of @q as trn_emu.c writes it. */
static void check_entry(const char *step, struct queue *q, unsigned long long seq)
{
	unsigned int entry_size = q->es, nent = q->size / entry_size, key, j;
	const unsigned char *e = q->map + ((q->start + seq) % nent) * entry_size;
	__u64 w0, want;

	if (!q->map)
		return;
	key = EMU_ENTRY_KEY(!strcmp(q->block, "ts") ? 1u : !strcmp(q->block, "sdma") ? 2u : 0u,
			    q->n, q->set);
	want = EMU_ENTRY_WORD0(key, seq);
	memcpy(&w0, e, 8);
	errno = 0;
	if (w0 != want) {
		fprintf(stderr, "nrt_play: %s: entry %llu at ring offset %u: word 0 0x%016llx, expected 0x%016llx\n",
			step, seq, (unsigned int)(e - q->map), (unsigned long long)w0,
			(unsigned long long)want);
		die(step, "an entry read through mmap is not what the hardware wrote");
	}
	for (j = 8; j < entry_size; j++)
		if (e[j] != (unsigned char)(seq * 31 + j))
			die(step, "an entry's bytes read through mmap differ");
}

/*
 * @q's position in the head unit, @l bytes behind it, without a phase bit.
 */
static __u32 head_pos(const struct queue *q, unsigned int l, __u32 *off_out)
{
	long long pos = (long long)(q->start + q->pos) * q->es - l;
	__u32 off = (__u32)(((pos % q->size) + q->size) % q->size);

	*off_out = off;
	if (unit == U_COUNTER)
		return (__u32)(head_start + q->pos) - l / q->es;
	return unit == U_BYTE ? off : off / q->es;
}

/*
 * The head the runtime writes for its position: LAG bytes behind it, in
 * the head unit, with the phase bit flipped on each wrap of the head (as
 * 2.1.5 tracked it: a head below the last one).
 */
static __u32 head_value(struct queue *q)
{
	__u32 off, v = head_pos(q, lag, &off);

	if (unit == U_COUNTER)
		return v;
	if (q->heads++ && off < q->last_off)
		q->phase ^= 1;
	q->last_off = off;
	if (phase_bit && q->phase)
		v |= 1u << phase_bit;
	return v;
}

/*
 * Write @q's head; with -H the device model then makes the register read
 * the consumed position (no lag, no phase bit).
 */
static void head_write(const char *step, struct queue *q)
{
	char buf[64];
	__u32 off;

	bar_write(step, q->head_reg, head_value(q));
	if (read_fixed) {
		snprintf(buf, sizeof(buf), "%llx", (unsigned long long)q->head_reg);
		write_file(step, EMU "headwritten", buf);
	}
	if (!read_pos)
		return;
	snprintf(buf, sizeof(buf), "%llx %u", (unsigned long long)q->head_reg, head_pos(q, 0, &off));
	write_file(step, EMU "headread", buf);
}

static void consume(const char *step, struct queue *q, unsigned long n, unsigned long every)
{
	unsigned long i;

	errno = 0;
	if (!q->freed && q->consumed + n > q->produced)
		die(step, "consuming more than was produced");
	for (i = 0; i < n; i++) {
		if (!q->freed) {
			check_entry(step, q, q->consumed);
			q->consumed++;
		}
		q->pos++;
		if ((i + 1) % every == 0 || i + 1 == n)
			head_write(step, q);
	}
}

/* ---- a hostile runtime ------------------------------------------------ */

static void hole(const char *step, const char *what)
{
	printf("HOLE %s: %s\n", step, what);
	fflush(stdout);
	errno = 0;
	die(step, what);
}

static void refused(const char *step, int err)
{
	printf("refused %s: %s\n", step, strerror(err));
}

/* NEURON_IOCTL_BAR_READ or _WRITE as given; 0 or the errno. */
static int bar_rw_raw(unsigned long cmd, __u32 bar, __u64 *addr, __u32 *data, __u32 count)
{
	struct neuron_ioctl_bar_rw rw = { .bar = bar, .address = addr, .data = data,
					  .count = count };

	return ioctl(fd, cmd, &rw) ? errno : 0;
}

/*
 * A kernel address: the upper half of the x86-64 address space (from
 * 0xffff800000000000 with 4-level page tables, 0xff00000000000000 with 5).
 */
static int kernel_address(__u64 a)
{
	return a >> 63;
}

static void hostile_kread(const char *step)
{
	char line[256], name[128], want[17] = "", got[17] = "";
	unsigned long long a = 0, v;
	__u64 addr[4];
	__u32 data[4];
	FILE *f = fopen("/proc/kallsyms", "r");
	int i, err;

	errno = 0;
	if (!f)
		die(step, "/proc/kallsyms");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %*s %127s", &v, name) == 2 && !strcmp(name, "linux_banner")) {
			a = v;
			break;
		}
	fclose(f);
	if (!a)
		die(step, "no address for linux_banner in /proc/kallsyms");
	f = fopen("/proc/version", "r");
	if (!f || !fread(want, 1, 16, f))
		die(step, "/proc/version");
	fclose(f);
	for (i = 0; i < 4; i++)
		addr[i] = a + 4 * i;
	memset(data, 0, sizeof(data));
	err = bar_rw_raw(NEURON_IOCTL_BAR_READ, 0, addr, data, 4);
	if (err) {
		refused(step, err);
		return;
	}
	memcpy(got, data, 16);
	if (!memcmp(got, want, 16))
		snprintf(line, sizeof(line), "BAR_READ at 0x%llx returned the kernel's bytes \"%s\"", a, got);
	else
		snprintf(line, sizeof(line), "BAR_READ at kernel address 0x%llx succeeded", a);
	hole(step, line);
}

static void hostile_devinfo(const char *step, const struct neuron_ioctl_device_info *info)
{
	char msg[128];
	int i;

	for (i = 0; i < NEURON_MAX_BARS; i++)
		if (kernel_address(info->bar_address[i])) {
			snprintf(msg, sizeof(msg), "DEVICE_INFO bar_address[%d] is the kernel address 0x%llx",
				 i, (unsigned long long)info->bar_address[i]);
			hole(step, msg);
		}
	printf("refused %s: bar_address 0x%llx 0x%llx\n", step,
	       (unsigned long long)info->bar_address[0], (unsigned long long)info->bar_address[1]);
}

static void hostile_wunaligned(const char *step, __u64 size)
{
	__u64 addr[2] = { bar0 + size - 8, bar0 + size - 4 }, uaddr = bar0 + size - 6;
	__u32 zero[2] = { 0, 0 }, v = 0xa5a5a5a5, back[2] = { 0, 0 };
	char msg[128];
	int err;

	if (bar_rw_raw(NEURON_IOCTL_BAR_WRITE, 0, addr, zero, 2))
		die(step, "BAR_WRITE of two aligned registers at BAR0's end");
	err = bar_rw_raw(NEURON_IOCTL_BAR_WRITE, 0, &uaddr, &v, 1);
	if (err) {
		refused(step, err);
		return;
	}
	bar_rw_raw(NEURON_IOCTL_BAR_READ, 0, addr, back, 2);
	snprintf(msg, sizeof(msg), "BAR_WRITE at offset 0x%llx took an unaligned register (read back 0x%08x 0x%08x)",
		 (unsigned long long)(size - 6), back[0], back[1]);
	hole(step, msg);
}

static void hostile_wpast(const char *step, __u64 size, unsigned long back)
{
	__u64 addr = bar0 + size - back;
	__u32 v = 0x5a5a5a5a;
	char msg[128];
	int err;

	printf("%s: BAR_WRITE at offset 0x%llx of a BAR of 0x%llx bytes\n", step,
	       (unsigned long long)(size - back), (unsigned long long)size);
	fflush(stdout);
	err = bar_rw_raw(NEURON_IOCTL_BAR_WRITE, 0, &addr, &v, 1);
	if (err) {
		refused(step, err);
		return;
	}
	snprintf(msg, sizeof(msg), "BAR_WRITE at offset 0x%llx, past the BAR, succeeded",
		 (unsigned long long)(size - back));
	hole(step, msg);
}

static void hostile_bigcount(const char *step)
{
	__u64 addr = bar0;
	__u32 v = 0;
	int err = bar_rw_raw(NEURON_IOCTL_BAR_WRITE, 0, &addr, &v, 1U << 30);

	if (err == EINVAL) {
		refused(step, err);
		return;
	}
	errno = err;
	hole(step, "BAR_WRITE of 2^30 registers was not refused as invalid (the driver tried to allocate for it)");
}

static void hostile_badinit(const char *step, const char *args)
{
	char kind[8] = "", msg[128];
	unsigned int id, type, engine, size;
	struct neuron_ioctl_notifications_init_with_realloc_v2 a;

	errno = 0;
	if (sscanf(args, "%7[a-z]:%u:%u:%u:%u", kind, &id, &type, &engine, &size) != 5)
		die(step, "want core|ts:ID:NQ_TYPE:ENGINE:SIZE");
	memset(&a, 0, sizeof(a));
	a.nq_dev_id = id;
	a.nq_dev_type = !strcmp(kind, "ts") ? NQ_DEVICE_TYPE_TOPSP : NQ_DEVICE_TYPE_NEURON_CORE;
	a.nq_type = type;
	a.engine_index = engine;
	a.size = size;
	a.on_host_memory = 1;
	a.force_alloc_mem = 1;
	if (ioctl(fd, NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2, &a)) {
		refused(step, errno);
		return;
	}
	snprintf(msg, sizeof(msg), "NOTIFICATIONS_INIT of a %s %u queue of type %u with engine index %u succeeded",
		 kind, id, type, engine);
	hole(step, msg);
}

/* The emulated hardware writes @n entries into freed queue @q's registers. */
static void hostile_freed(const char *step, struct queue *q, unsigned long n)
{
	char buf[96];
	int f = open(EMU "produce", O_WRONLY), err = 0;

	errno = 0;
	if (!q->freed)
		die(step, "the queue was not freed");
	if (f < 0)
		die(step, EMU "produce");
	snprintf(buf, sizeof(buf), "%s %u %u %lu", q->block, q->n, q->set, n);
	if (write(f, buf, strlen(buf)) < 0)
		err = errno;
	close(f);
	if (err == ENOENT) {
		printf("refused %s: the queue's base and size are zero (halted)\n", step);
		return;
	}
	snprintf(buf, sizeof(buf), "the device wrote %lu entries into the freed queue's chunk (produce: %s)",
		 n, err ? strerror(err) : "ok");
	hole(step, buf);
}

/* NEURON_IOCTL_MEM_ALLOC_V2 of @size bytes of host memory: the handle. */
static __u64 mem_alloc(const char *step, __u64 size)
{
	__u64 h = 0;
	struct neuron_ioctl_mem_alloc_v2 a = { .size = size, .align = 0, .host_memory = 1,
					       .mem_handle = &h };

	if (ioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2, &a))
		die(step, "NEURON_IOCTL_MEM_ALLOC_V2");
	return h;
}

/* NEURON_IOCTL_MEM_FREE of @h: 0 or the errno. */
static int mem_free(__u64 h)
{
	struct neuron_ioctl_mem_free f = { .mem_handle = h };

	return ioctl(fd, NEURON_IOCTL_MEM_FREE, &f) ? errno : 0;
}

/* NEURON_IOCTL_MEM_BUF_COPY64 of @size bytes between @buf and @h + @off. */
static void buf_copy(const char *step, __u64 h, void *buf, __u64 off, __u64 size, int to_handle)
{
	struct neuron_ioctl_mem_buf_copy64 c = { .mem_handle = h, .buffer = buf, .size = size,
						 .offset = off, .copy_to_mem_handle = to_handle };

	if (ioctl(fd, NEURON_IOCTL_MEM_BUF_COPY64, &c))
		die(step, to_handle ? "NEURON_IOCTL_MEM_BUF_COPY64 to device memory" :
			  "NEURON_IOCTL_MEM_BUF_COPY64 from device memory");
}

/* Fail @step at the first byte of @got that is not @want's. */
static void same(const char *step, const char *what, const unsigned char *want,
		 const unsigned char *got, size_t size, unsigned int round)
{
	size_t i;

	for (i = 0; i < size; i++)
		if (want[i] != got[i]) {
			fprintf(stderr, "%s: round %u, %s: byte %zu is 0x%02x, want 0x%02x\n",
				step, round, what, i, got[i], want[i]);
			exit(1);
		}
}

/*
 * The vendor's DMA copy on core @arg's host-device queue (the step's
 * comment above): every byte must come back, each round a new pattern.
 */
static void dmacopy(const char *step, const char *arg)
{
	unsigned int nc = 0, rounds = 1, r;
	unsigned long size = 0;
	__u64 dev = 0, host;
	unsigned char *want, *got;
	size_t i;

	if (sscanf(arg, "%u:%lu:%u", &nc, &size, &rounds) < 2 || !size || size > (1UL << 24)) {
		errno = EINVAL;
		die(step, "want dmacopy:NC:SIZE[:ROUNDS]");
	}
	{
		struct neuron_ioctl_mem_alloc_v2 a = { .size = size, .align = 0, .host_memory = 0,
						       .nc_id = nc, .mem_handle = &dev };

		if (ioctl(fd, NEURON_IOCTL_MEM_ALLOC_V2, &a))
			die(step, "NEURON_IOCTL_MEM_ALLOC_V2 of device memory");
	}
	host = mem_alloc(step, size);
	want = malloc(size);
	got = malloc(size);
	if (!want || !got)
		die(step, "malloc");
	for (r = 0; r < rounds; r++) {
		struct neuron_ioctl_mem_copy64 c = { .src_mem_handle = dev, .dst_mem_handle = host,
						     .size = size };

		for (i = 0; i < size; i++)
			want[i] = (unsigned char)(i * 131 + r * 17 + i / 251);
		buf_copy(step, dev, want, 0, size, 1);
		memset(got, 0, size);
		buf_copy(step, dev, got, 0, size, 0);
		same(step, "MEM_BUF_COPY back from device memory", want, got, size, r);
		if (ioctl(fd, NEURON_IOCTL_MEM_COPY64, &c))
			die(step, "NEURON_IOCTL_MEM_COPY64 device to host");
		memset(got, 0, size);
		buf_copy(step, host, got, 0, size, 0);
		same(step, "MEM_COPY from device to host memory", want, got, size, r);
	}
	printf("dmacopy ok core %u %lu bytes %u rounds\n", nc, size, rounds);
	free(want);
	free(got);
	mem_free(host);
	mem_free(dev);
}

/*
 * MEM_FREE of a stale handle: A allocated and freed, B allocated (the
 * vendor's handle table hands B A's handle), then A's handle freed again.
 * The driver must refuse it and leave B alone: B's own MEM_FREE then
 * succeeds. Otherwise the stale free freed B, which B's own MEM_FREE shows
 * (its handle names no memory any more).
 */
static void hostile_stale(const char *step)
{
	__u64 a, b;
	char msg[200];
	int err, berr;

	a = mem_alloc(step, 4096);
	errno = mem_free(a);
	if (errno)
		die(step, "MEM_FREE of a live handle");
	b = mem_alloc(step, 4096);
	printf("%s: A's handle 0x%llx (freed), B's handle 0x%llx\n", step,
	       (unsigned long long)a, (unsigned long long)b);
	err = mem_free(a);
	berr = mem_free(b);
	if (err) {
		errno = berr;
		if (berr)
			die(step, "the stale MEM_FREE was refused, but B's own MEM_FREE failed");
		refused(step, err);
		return;
	}
	if (berr)
		snprintf(msg, sizeof(msg),
			 "MEM_FREE of A's stale handle 0x%llx freed B (B's own MEM_FREE of 0x%llx then failed: %s)",
			 (unsigned long long)a, (unsigned long long)b, strerror(berr));
	else
		snprintf(msg, sizeof(msg), "MEM_FREE of A's stale handle 0x%llx succeeded",
			 (unsigned long long)a);
	hole(step, msg);
}

/*
 * MEM_GET_EXTENDED_INFO of a live allocation must name it by its handle:
 * 2.24.7.0 answers with the chunk's kernel address in mem_handle.
 */
static void hostile_extinfo(const char *step)
{
	__u64 h = mem_alloc(step, 4096);
	struct neuron_ioctl_mem_get_extended_info x;
	char msg[160];
	int rc;

	memset(&x, 0, sizeof(x));
	x.mem_handle = h;
	x.version = 1;
	rc = ioctl(fd, NEURON_IOCTL_MEM_GET_EXTENDED_INFO, &x);
	errno = rc < 0 ? errno : rc;	/* the driver returns a positive errno too */
	if (rc)
		die(step, "NEURON_IOCTL_MEM_GET_EXTENDED_INFO of a live handle");
	errno = mem_free(h);
	if (errno)
		die(step, "MEM_FREE of a live handle");
	if (kernel_address(x.mem_handle)) {
		snprintf(msg, sizeof(msg), "MEM_GET_EXTENDED_INFO of handle 0x%llx answered the kernel address 0x%llx",
			 (unsigned long long)h, (unsigned long long)x.mem_handle);
		hole(step, msg);
	}
	if (x.mem_handle != h) {
		snprintf(msg, sizeof(msg), "MEM_GET_EXTENDED_INFO of handle 0x%llx answered mem_handle 0x%llx",
			 (unsigned long long)h, (unsigned long long)x.mem_handle);
		hole(step, msg);
	}
	printf("refused %s: mem_handle is the handle 0x%llx, version %u\n", step,
	       (unsigned long long)x.mem_handle, x.version);
}

/*
 * DEVICE_BDF_EXT of an index past the driver's table of 64 devices must be
 * refused: 2.24.7.0 truncates nd_index + the device's index to a u8 for
 * neuron_pci_get_device(), whose BUG_ON() takes 64..255 (a kernel BUG
 * from any open of the node), and 256 reads device 0.
 */
static void hostile_bdfext(const char *step, const char *dev)
{
	static const __u32 bad[] = { 64, 255, 256, 0xffffffffu };
	struct neuron_ioctl_device_bdf_ext b;
	char msg[160];
	unsigned int i;
	int wfd = open(dev, O_WRONLY);

	if (wfd < 0)
		die(step, "open O_WRONLY");
	memset(&b, 0, sizeof(b));
	if (ioctl(wfd, NEURON_IOCTL_DEVICE_BDF_EXT, &b))
		die(step, "NEURON_IOCTL_DEVICE_BDF_EXT of device 0");
	printf("%s: device 0 is %04x:%02x:%02x.%u\n", step, b.domain, b.bus_number, b.slot, b.func);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&b, 0, sizeof(b));
		b.nd_index = bad[i];
		fflush(stdout);	/* what was refused before a BUG kills us */
		if (!ioctl(wfd, NEURON_IOCTL_DEVICE_BDF_EXT, &b)) {
			snprintf(msg, sizeof(msg), "DEVICE_BDF_EXT of device %u answered %04x:%02x:%02x.%u",
				 bad[i], b.domain, b.bus_number, b.slot, b.func);
			hole(step, msg);
		}
		if (errno != EINVAL && errno != ENODEV)
			die(step, "DEVICE_BDF_EXT past the table failed, but not with EINVAL or ENODEV");
		printf("refused %s: device %u: %s\n", step, bad[i], strerror(errno));
	}
	close(wfd);
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/neuron0";
	unsigned long wait_ms = 0;
	struct neuron_ioctl_device_info info;
	char buf[96];
	int c, i;

	while ((c = getopt(argc, argv, "e:u:s:d:E:L:IP:TR:DHW:Z:")) != -1) {
		switch (c) {
		case 'e':
			entry_size = strtoul(optarg, NULL, 0);
			break;
		case 'u':
			unit = !strcmp(optarg, "byte") ? U_BYTE :
			       !strcmp(optarg, "counter") ? U_COUNTER : U_INDEX;
			break;
		case 's':
			head_start = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dev = optarg;
			break;
		case 'E':
			if (sscanf(optarg, "%u,%u,%u,%u,%u,%u", &type_es[0], &type_es[1], &type_es[2],
				   &type_es[3], &type_es[4], &type_es[5]) != 6) {
				fprintf(stderr, "nrt_play: -E wants six entry sizes\n");
				return 2;
			}
			break;
		case 'L':
			lag = strtoul(optarg, NULL, 0);
			break;
		case 'I':
			no_init_head = 1;
			break;
		case 'P':
			phase_bit = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			typed_sets = 1;
			break;
		case 'R':
			reprogram = optarg;
			break;
		case 'D':
			all_dev = 1;
			break;
		case 'H':
			read_pos = 1;
			break;
		case 'W':
			wait_ms = strtoul(optarg, NULL, 0);
			break;
		case 'Z':
			read_fixed = optarg;
			break;
		default:
			fprintf(stderr, "usage: nrt_play [-e ENTRY_SIZE] [-u index|byte|counter] [-s HEAD_START] [-E T0,..,T5] [-L LAG] [-I] [-P BIT] [-T] [-R reset|head] [-D] [-H] [-Z VALUE] [-W MS] [-d DEVICE] STEP...\n");
			return 2;
		}
	}
	fd = wait_ms ? -1 : open(dev, O_RDWR);
	if (wait_ms) {
		struct timespec t0, t;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		t = t0;
		while (access(dev, F_OK) &&
		       (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < (long)wait_ms)
			clock_gettime(CLOCK_MONOTONIC, &t);
		usleep(20000);
		while (fd < 0 && (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 <
				 (long)wait_ms) {
			fd = open(dev, O_RDWR);
			clock_gettime(CLOCK_MONOTONIC, &t);
		}
	}
	if (fd < 0)
		die("open", dev);
	memset(&info, 0, sizeof(info));
	/* -W: the first NOTIFICATIONS_INIT as soon as the device opens (a trn1). */
	info.architecture = 2;
	if (!wait_ms && ioctl(fd, NEURON_IOCTL_DEVICE_INFO, &info))
		die("open", "NEURON_IOCTL_DEVICE_INFO");
	bar0 = info.bar_address[0];
	/* enum neuron_arch (neuron_arch.h): NEURON_ARCH_V2 2, NEURON_ARCH_V3 3. */
	errno = 0;
	if (info.architecture != 2 && info.architecture != 3)
		die("open", "the device is neither v2 (trn1) nor v3 (trn2)");
	v3 = info.architecture == 3;
	if (!wait_ms) {
		char cfg[200];

		snprintf(cfg, sizeof(cfg),
			 "entry_size=%u head_start=%u head_unit=%s type_entry_size=%u,%u,%u,%u,%u,%u reprogram=%s phase_bit=%u head_read=%s",
			 entry_size, head_start,
			 unit == U_BYTE ? "byte" : unit == U_COUNTER ? "counter" : "index",
			 type_es[0], type_es[1], type_es[2], type_es[3], type_es[4], type_es[5],
			 reprogram, phase_bit, read_fixed ? read_fixed : "last");
		write_file("config", EMU "config", cfg);
	}

	for (i = optind; i < argc; i++) {
		char *step = argv[i], *p = strchr(step, ':');
		const char *name = step;

		if (p)
			*p++ = 0;
		else
			p = step + strlen(step);
		if (!strcmp(name, "init") || !strcmp(name, "realloc")) {
			queue_init(name, p, name[0] == 'r');
		} else if (!strcmp(name, "produce")) {
			struct queue *q = queue_arg(name, &p);
			unsigned long n = strtoul(p, NULL, 10);

			snprintf(buf, sizeof(buf), "%s %u %u %lu %u", q->block, q->n, q->set, n, q->type);
			write_file(name, EMU "produce", buf);
			q->produced += n;
		} else if (!strcmp(name, "consume") || !strcmp(name, "heads")) {
			struct queue *q = queue_arg(name, &p);
			unsigned long n = strtoul(p, &p, 10), every = 1;

			if (name[0] == 'h' && *p == ':')
				every = strtoul(p + 1, NULL, 10);
			consume(name, q, n, every ? every : 1);
		} else if (!strcmp(name, "free")) {
			struct queue *q = queue_arg(name, &p);
			struct neuron_ioctl_mem_free f = { .mem_handle = q->mem_handle };

			if (q->map)
				munmap(q->map, q->size);
			q->map = NULL;
			q->freed = 1;
			if (ioctl(fd, NEURON_IOCTL_MEM_FREE, &f))
				die(name, "NEURON_IOCTL_MEM_FREE");
		} else if (!strcmp(name, "rewind")) {
			struct queue *q = queue_arg(name, &p);
			unsigned long n = strtoul(p, NULL, 10);

			q->pos = n > q->pos ? 0 : q->pos - n;
			head_write(name, q);
		} else if (!strcmp(name, "reset")) {
			struct neuron_ioctl_device_reset r = {
				.nc_map = *p ? (__u32)strtoul(p, NULL, 0) : NEURON_NC_MAP_DEVICE,
			};
			struct neuron_ioctl_device_ready rd;

			if (ioctl(fd, NEURON_IOCTL_NC_RESET, &r))
				die(name, "NEURON_IOCTL_NC_RESET");
			rd.request_id = r.request_id;
			rd.result = -1;
			/* nr_wait(): blocks until the reset thread is done with the request. */
			if (ioctl(fd, NEURON_IOCTL_NC_RESET_READY, &rd))
				die(name, "NEURON_IOCTL_NC_RESET_READY");
			errno = 0;
			if (rd.result)
				die(name, "the reset failed");
		} else if (!strcmp(name, "bench")) {
			struct queue *q = queue_arg(name, &p);
			unsigned long k = strtoul(p, &p, 10), rounds = 0, gap_us = 0, r;
			struct timespec a, b;
			double *t_head, *t_copy;
			unsigned char *dst, *src;

			if (*p == ':')
				rounds = strtoul(p + 1, &p, 10);
			if (*p == ':')
				gap_us = strtoul(p + 1, &p, 10);
			errno = 0;
			if (!k || !rounds || *p || k * q->es > q->size)
				die(name, "want bench:Q:K:N[:US] with K entries fitting the ring");
			dst = malloc(k * entry_size);
			src = malloc(k * entry_size);
			t_head = calloc(rounds, sizeof(*t_head));
			t_copy = calloc(rounds, sizeof(*t_copy));
			if (!dst || !src || !t_head || !t_copy)
				die(name, "malloc");
			memset(src, 0x5a, k * entry_size);
			memset(dst, 0, k * entry_size);
			for (r = 0; r < rounds; r++) {
				if (gap_us)
					spin_us(gap_us);
				snprintf(buf, sizeof(buf), "%s %u %u %lu %u", q->block, q->n, q->set, k, q->type);
				write_file(name, EMU "produce", buf);
				q->produced += k;
				q->consumed += k;
				q->pos += k;
				clock_gettime(CLOCK_MONOTONIC, &a);
				bar_write(name, q->head_reg, head_value(q));
				clock_gettime(CLOCK_MONOTONIC, &b);
				t_head[r] = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
				/* The baseline: as many bytes, cached memory to cached memory. */
				clock_gettime(CLOCK_MONOTONIC, &a);
				memcpy(dst, src, k * entry_size);
				__asm__ volatile("" : : "r"(dst) : "memory");
				clock_gettime(CLOCK_MONOTONIC, &b);
				t_copy[r] = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
			}
			printf("bench %lu entries of %u bytes per head write, %lu rounds: head write %.0f ns, memcpy %.0f ns "
			       "(means of the rounds under %dx their median; of all rounds: %.0f and %.0f)\n",
			       k, entry_size, rounds, kept_mean(t_head, rounds), kept_mean(t_copy, rounds),
			       OUTLIER_X, mean(t_head, rounds), mean(t_copy, rounds));
			free(t_head);
			free(t_copy);
			free(dst);
			free(src);
		} else if (!strcmp(name, "wait")) {
			char w[200];
			int n;

			snprintf(w, sizeof(w), "%s.waiting", p);
			close(open(w, O_WRONLY | O_CREAT, 0644));
			for (n = 0; n < 600 && access(p, F_OK); n++)
				usleep(100000);
			errno = 0;
			if (access(p, F_OK))
				die(name, "nobody created the file waited for");
		} else if (!strcmp(name, "mark")) {
			struct queue *q = queue_arg(name, &p);

			q->base = q->consumed;
		} else if (!strcmp(name, "kread")) {
			hostile_kread(name);
		} else if (!strcmp(name, "devinfo")) {
			hostile_devinfo(name, &info);
		} else if (!strcmp(name, "wunaligned")) {
			hostile_wunaligned(name, info.bar_size[0]);
		} else if (!strcmp(name, "wpast")) {
			hostile_wpast(name, info.bar_size[0], strtoul(p, NULL, 10));
		} else if (!strcmp(name, "bigcount")) {
			hostile_bigcount(name);
		} else if (!strcmp(name, "badinit")) {
			hostile_badinit(name, p);
		} else if (!strcmp(name, "extinfo")) {
			hostile_extinfo(name);
		} else if (!strcmp(name, "stale")) {
			hostile_stale(name);
		} else if (!strcmp(name, "bdfext")) {
			hostile_bdfext(name, dev);
		} else if (!strcmp(name, "freed")) {
			struct queue *q = queue_arg(name, &p);

			hostile_freed(name, q, strtoul(p, NULL, 10));
		} else if (!strcmp(name, "dmacopy")) {
			dmacopy(name, p);
		} else if (!strcmp(name, "sleep")) {
			usleep(strtoul(p, NULL, 10) * 1000);
		} else {
			errno = 0;
			die(name, "unknown step");
		}
	}
	for (i = 0; i < (int)nq; i++)
		printf("queue %d %s %u %u produced=%llu consumed=%llu type=%u es=%u base=%llu\n", i,
		       qs[i].block, qs[i].n, qs[i].set, qs[i].produced, qs[i].consumed - qs[i].base,
		       qs[i].type, qs[i].es, qs[i].base);
	close(fd);
	return 0;
}
