// SPDX-License-Identifier: GPL-2.0
/*
 * neuronprof_neuron: the calibration mode.
 */

/**
 * DOC: calibration mode
 *
 * The entry size and the head register's unit of a real device are not
 * public (Documentation/hardware.rst); ``neuronprof calibrate`` measures
 * them on the first run on an instance. For it, neuronprof_neuron keeps a
 * table of the queues the vendor driver programs (size, whether in host
 * memory) at all times and, while its parameter ``calibrate`` is 1, logs
 * every head write the runtime makes (value, time) and keeps a copy of the
 * ring's first bytes (up to 16 KiB) as they were at the last head write.
 * Setting ``calibrate`` to 1 clears the log; setting it to 0 stops logging
 * and keeps the log for reading. debugfs ``neuronprof_neuron/calibration``
 * (root only) prints it, one line per fact::
 *
 *   device DEV arch ARCH
 *   queue DEV nc|ts ID SDMA INSTANCE REG SIZE ON_HOST TYPE ENGINE HEAD FRESH PREV
 *   head DEV nc|ts ID SDMA INSTANCE REG VALUE NS FIRST END
 *   ring DEV nc|ts ID SDMA INSTANCE REG HEX...
 *
 * A queue is named as the hook names it (struct neuron_nq_hook_qid); for a
 * queue outside an SDMA block INSTANCE is printed as 0, as its head writes
 * cannot tell it. A queue line also gives the vendor queue type and
 * engine index asked for, the head register when programmed, whether in
 * new memory and the last head written to the register set before, since
 * the log began and the last reset of its core (``-`` for none: where the
 * device writes it, if not from the reset, when a read of the register
 * says nothing); a queue handed out again keeps its head lines and gets
 *
 *   again DEV nc|ts ID SDMA INSTANCE REG HEAD N
 *
 * with its head register then, after its first N head writes. A head line
 * gives the byte offsets of the first and past the last non-zero byte of
 * the ring's first 16 KiB at that write (where the device had written: a
 * ring in new memory starts zeroed); rings in device memory are read
 * through BAR4. Nothing here depends on the provider's parameters, which
 * are what it measures. At most 16384 head writes per queue and 256
 * queues are kept; more are counted and dropped.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include "neuron.h"

#define CAL_QUEUES	256
#define CAL_HEADS	16384
#define CAL_RING	SZ_16K
#define CAL_DEVICES	64

struct cal_head {
	u32 value;
	u64 ns;
	u32 first, end;		/* non-zero bytes of the ring at the write */
};

struct cal_queue {
	u32 dev;
	u8 target, id, sdma, instance, reg;
	u32 size;
	bool on_host;
	u8 nq_type, engine, fresh;
	u32 head;		/* the head register when programmed */
	u32 written;		/* the last head written to the set, if written_ok */
	bool written_ok;	/* since the log began and the core's last reset */
	u32 prev;		/* @written when programmed, if prev_ok */
	bool prev_ok;
	bool again;		/* handed out again since: */
	u32 again_head;		/* the head register then */
	u32 again_at;		/* head writes logged before */
	void *va;		/* host ring while programmed, else NULL */
	void __iomem *io;	/* device-memory ring through BAR4, else NULL */
	struct cal_head *heads;
	u32 nheads;
	u32 dropped;
	u8 *ring;
	u32 ring_len;
};

/* Serialises the queue table, the log and nprof_nn_cal_on. */
static DEFINE_MUTEX(cal_lock);
static struct cal_queue cal_queues[CAL_QUEUES];
static u32 cal_nqueues;
static u32 cal_arch[CAL_DEVICES];
/* The calibration mode is on: head writes are logged (nprof_nn_cal_head()). */
bool nprof_nn_cal_on;
static struct dentry *cal_dir;

static void cal_clear_log(void)
{
	u32 i;

	for (i = 0; i < cal_nqueues; i++) {
		cal_queues[i].written_ok = false;
		cal_queues[i].prev_ok = false;
		cal_queues[i].nheads = 0;
		cal_queues[i].dropped = 0;
		cal_queues[i].ring_len = 0;
	}
}

static int cal_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	mutex_lock(&cal_lock);
	if (on && !nprof_nn_cal_on)
		cal_clear_log();
	WRITE_ONCE(nprof_nn_cal_on, on);
	mutex_unlock(&cal_lock);
	return 0;
}

static int cal_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(nprof_nn_cal_on));
}

static const struct kernel_param_ops cal_param_ops = {
	.set = cal_param_set,
	.get = cal_param_get,
};
module_param_cb(calibrate, &cal_param_ops, NULL, 0644);
MODULE_PARM_DESC(calibrate, "1: log head writes and ring bytes for neuronprof calibrate (debugfs neuronprof_neuron/calibration); setting it clears the log");

/* The table slot of a queue; NULL if the table is full. cal_lock held. */
static struct cal_queue *cal_find(u32 dev, const struct neuron_nq_hook_qid *qid, bool add)
{
	u8 inst = qid->sdma ? qid->instance : 0;
	struct cal_queue *q;
	u32 i;

	for (i = 0; i < cal_nqueues; i++) {
		q = &cal_queues[i];
		if (q->dev == dev && q->target == qid->target && q->id == qid->id &&
		    q->sdma == qid->sdma && q->instance == inst && q->reg == qid->reg)
			return q;
	}
	if (!add || cal_nqueues == CAL_QUEUES)
		return NULL;
	q = &cal_queues[cal_nqueues++];
	memset(q, 0, sizeof(*q));
	q->dev = dev;
	q->target = qid->target;
	q->id = qid->id;
	q->sdma = qid->sdma;
	q->instance = inst;
	q->reg = qid->reg;
	return q;
}

/*
 * The queue a head write to register set @qid->reg stands for when no
 * queue was programmed there: the one of type reg / 16 and engine reg % 16
 * (the vendor decoder's reading), whose ring it reads. cal_lock held.
 */
static struct cal_queue *cal_typed(const struct cal_queue *hq,
				   const struct neuron_nq_hook_qid *qid)
{
	u32 i;

	for (i = 0; i < cal_nqueues; i++) {
		struct cal_queue *q = &cal_queues[i];

		if (q->dev == hq->dev && q->target == qid->target && q->id == qid->id &&
		    !q->sdma && q->size && q->reg == qid->reg % 16 &&
		    q->nq_type == qid->reg / 16)
			return q;
	}
	return NULL;
}

void nprof_nn_cal_device(const struct neuron_nq_hook_dev *hd)
{
	if (hd->device_index < CAL_DEVICES)
		WRITE_ONCE(cal_arch[hd->device_index], hd->arch);
}

void nprof_nn_cal_programmed(const struct neuron_nq_hook_dev *hd,
			     const struct neuron_nq_hook_queue *hq)
{
	struct cal_queue *q;

	mutex_lock(&cal_lock);
	q = cal_find(hd->device_index, &hq->qid, true);
	if (q) {
		if (!hq->fresh && q->size) {
			q->again = true;
			q->again_head = hq->head;
			q->again_at = q->nheads;
		} else {
			q->size = hq->size;
			q->nq_type = hq->qid.nq_type;
			q->engine = hq->qid.instance;
			q->head = hq->head;
			q->fresh = hq->fresh;
			q->again = false;
			q->prev = q->written;
			q->prev_ok = q->written_ok;
		}
		q->on_host = hq->on_host && hq->va;
		q->va = q->on_host ? hq->va : NULL;
		q->io = hq->on_host ? NULL : hq->io;
		/*
		 * What was logged belongs to the queue that was there before,
		 * unless the queue is only handed out again: then its heads go
		 * on (and its head register then says what a read returns).
		 */
		if (hq->fresh) {
			q->nheads = 0;
			q->dropped = 0;
			q->ring_len = 0;
		}
	}
	mutex_unlock(&cal_lock);
}

/*
 * The halted queue's memory is about to be freed: no queue of the table
 * may keep it. The halt does not always name the register set the queue
 * was programmed at: the driver announces a freed chunk for each queue
 * slot pointing at it (patch 5, mc_free()), named by the slot's type and
 * engine, and a queue programmed with an engine index of 16 or more sits
 * in another type's slot (nq_id = type * 16 + index), so its halt names
 * set index % 16, not the set index it was programmed at. So every queue
 * of the device whose ring is that memory forgets it, whatever it is
 * named.
 */
void nprof_nn_cal_halted(const struct neuron_nq_hook_dev *hd,
			 const struct neuron_nq_hook_queue *hq)
{
	struct cal_queue *q;
	u32 i;

	mutex_lock(&cal_lock);
	q = cal_find(hd->device_index, &hq->qid, false);
	if (q) {
		q->va = NULL;	/* its memory is about to be freed */
		q->io = NULL;
	}
	for (i = 0; hq->va && i < cal_nqueues; i++)
		if (cal_queues[i].dev == hd->device_index && cal_queues[i].va == hq->va) {
			cal_queues[i].va = NULL;
			cal_queues[i].io = NULL;
		}
	mutex_unlock(&cal_lock);
}

/*
 * A core reset (patch 10, whatever queues the core has) resets the heads
 * of the register sets of the core, its SDMA engines and its TopSPs.
 */
void nprof_nn_cal_reset(const struct neuron_nq_hook_dev *hd, u32 nc_id)
{
	u32 per = hd->nc_count ? hd->ts_count / hd->nc_count : 0, i;
	struct cal_queue *q;

	mutex_lock(&cal_lock);
	for (i = 0; i < cal_nqueues; i++) {
		q = &cal_queues[i];
		if (q->dev == hd->device_index &&
		    (q->target == NEURON_NQ_HOOK_TOPSP ? per && q->id / per == nc_id :
		     q->id == nc_id))
			q->written_ok = false;
	}
	mutex_unlock(&cal_lock);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * nprof_nn_cal_holds() - whether the calibration table keeps a ring (KUnit).
 * @device_index: N of /dev/neuronN.
 * @va: the ring's kernel address.
 *
 * Return: true if a queue of the device in the table has @va as its ring,
 * that is, a head write in calibration mode would copy from it.
 */
bool nprof_nn_cal_holds(u32 device_index, const void *va)
{
	bool held = false;
	u32 i;

	mutex_lock(&cal_lock);
	for (i = 0; i < cal_nqueues; i++)
		if (cal_queues[i].dev == device_index && cal_queues[i].va == va)
			held = true;
	mutex_unlock(&cal_lock);
	return held;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_cal_holds);
#endif

void nprof_nn_cal_log_head(const struct neuron_nq_hook_dev *hd,
			   const struct neuron_nq_hook_qid *qid, u32 head)
{
	struct cal_queue *q, *rq;

	mutex_lock(&cal_lock);
	q = nprof_nn_cal_on ? cal_find(hd->device_index, qid, true) : NULL;
	if (!q)
		goto out;
	q->written = head;
	q->written_ok = true;
	if (!q->heads)
		q->heads = kvcalloc(CAL_HEADS, sizeof(*q->heads), GFP_KERNEL);
	if (!q->heads || q->nheads == CAL_HEADS) {
		q->dropped++;
		goto out;
	}
	q->heads[q->nheads] = (struct cal_head){ .value = head, .ns = ktime_get_ns() };
	rq = q;
	if (!rq->va && !rq->io && !qid->sdma)
		rq = cal_typed(q, qid) ?: q;
	if ((rq->va || rq->io) && rq->size) {
		/* The hook calls before the head reaches the device: the bytes stay. */
		if (!rq->ring)
			rq->ring = kvmalloc(CAL_RING, GFP_KERNEL);
		if (rq->ring) {
			u32 i, first = U32_MAX, end = 0;

			rq->ring_len = min_t(u32, rq->size, CAL_RING);
			if (rq->va)
				memcpy(rq->ring, rq->va, rq->ring_len);
			else
				memcpy_fromio(rq->ring, rq->io, rq->ring_len);
			for (i = 0; i < rq->ring_len; i++)
				if (rq->ring[i]) {
					first = min(first, i);
					end = i + 1;
				}
			q->heads[q->nheads].first = first == U32_MAX ? 0 : first;
			q->heads[q->nheads].end = end;
		}
	}
	q->nheads++;
out:
	mutex_unlock(&cal_lock);
}

static int cal_show(struct seq_file *m, void *v)
{
	u32 i, j;

	mutex_lock(&cal_lock);
	seq_printf(m, "# neuronprof_neuron calibration log 1 (calibrate=%d)\n", nprof_nn_cal_on);
	for (i = 0; i < CAL_DEVICES; i++)
		if (cal_arch[i])
			seq_printf(m, "device %u arch %u\n", i, cal_arch[i]);
	for (i = 0; i < cal_nqueues; i++) {
		struct cal_queue *q = &cal_queues[i];
		char key[48];

		snprintf(key, sizeof(key), "%u %s %u %u %u %u", q->dev,
			 q->target == NEURON_NQ_HOOK_TOPSP ? "ts" : "nc", q->id, q->sdma,
			 q->instance, q->reg);
		if (q->size && q->prev_ok)
			seq_printf(m, "queue %s %u %u %u %u %u %u %u\n", key, q->size, q->on_host,
				   q->nq_type, q->engine, q->head, q->fresh, q->prev);
		else if (q->size)
			seq_printf(m, "queue %s %u %u %u %u %u %u -\n", key, q->size, q->on_host,
				   q->nq_type, q->engine, q->head, q->fresh);
		for (j = 0; j < q->nheads; j++)
			seq_printf(m, "head %s %u %llu %u %u\n", key, q->heads[j].value,
				   q->heads[j].ns, q->heads[j].first, q->heads[j].end);
		if (q->again)
			seq_printf(m, "again %s %u %u\n", key, q->again_head, q->again_at);
		if (q->dropped)
			seq_printf(m, "# %s: %u head writes not logged (the log is full)\n", key,
				   q->dropped);
		if (q->ring_len) {
			seq_printf(m, "ring %s ", key);
			for (j = 0; j < q->ring_len; j++)
				seq_printf(m, "%02x", q->ring[j]);
			seq_putc(m, '\n');
		}
	}
	mutex_unlock(&cal_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cal);

void nprof_nn_cal_init(void)
{
	cal_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("calibration", 0400, cal_dir, NULL, &cal_fops);
}

void nprof_nn_cal_exit(void)
{
	u32 i;

	debugfs_remove_recursive(cal_dir);
	for (i = 0; i < cal_nqueues; i++) {
		kvfree(cal_queues[i].heads);
		kvfree(cal_queues[i].ring);
	}
	cal_nqueues = 0;
}
