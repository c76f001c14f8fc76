// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: subscription file
 *
 * neuronprof subscription files: what userspace does with the file
 * NQ_SUBSCRIBE returned (mmap of the three regions and their page faults,
 * poll, read, NQ_DRAIN, release). Creating and destroying the subscription
 * behind it is neuronprof_sub.c's.
 */

#include <linux/anon_inodes.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>
#include <kunit/visibility.h>

#include "neuronprof_core.h"

#define NPROF_DRAIN_FLAGS	(NEURONPROF_DRAIN_FLUSH | NEURONPROF_DRAIN_RELEASE)

/**
 * nprof_sub_poll_mask() - the poll events a subscription reports now.
 * @sub: the subscription.
 *
 * Return: EPOLLIN | EPOLLRDNORM when at least the watermark is unread, or
 * when anything produced before the last flush is unread; EPOLLHUP |
 * EPOLLERR once the device is gone.
 */
VISIBLE_IF_KUNIT __poll_t nprof_sub_poll_mask(struct nprof_sub *sub)
{
	struct nprof_kring *ring = &sub->ring;
	unsigned long flags;
	__poll_t mask = 0;

	spin_lock_irqsave(sub->lock, flags);
	nprof_kring_sync_consumer(ring);
	if (nprof_kring_unread(ring) >= ring->watermark ||
	    (s64)(sub->flush_pos - ring->cons) > 0)
		mask |= EPOLLIN | EPOLLRDNORM;
	if (sub->dead)
		mask |= EPOLLHUP | EPOLLERR;
	spin_unlock_irqrestore(sub->lock, flags);
	return mask;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sub_poll_mask);

/**
 * nprof_sub_drain() - the work of NEURONPROF_IOCTL_NQ_DRAIN.
 * @sub: the subscription.
 * @d: the argument, in and out.
 *
 * Return: 0; -EINVAL for unknown flags, non-zero pads, a release_pos without
 * NEURONPROF_DRAIN_RELEASE or an invalid release_pos; -ENODEV when the
 * device is gone; -EOPNOTSUPP for FLUSH without a provider flush; the
 * provider's flush error.
 */
VISIBLE_IF_KUNIT int nprof_sub_drain(struct nprof_sub *sub,
				     struct neuronprof_nq_drain *d)
{
	struct nprof_drmdev *ndev = sub->ndev;
	struct nprof_kring *ring = &sub->ring;
	unsigned long flags;
	bool wake = false;
	int idx, ret = 0;

	if (d->flags & ~NPROF_DRAIN_FLAGS || d->pad || d->pad2)
		return -EINVAL;
	if (!(d->flags & NEURONPROF_DRAIN_RELEASE) && d->release_pos)
		return -EINVAL;
	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;

	if (d->flags & NEURONPROF_DRAIN_FLUSH) {
		ret = ndev->ops->flush ? ndev->ops->flush(ndev, &sub->q) : -EOPNOTSUPP;
		if (ret)
			goto out;
	}

	spin_lock_irqsave(sub->lock, flags);
	nprof_kring_sync_consumer(ring);
	if (d->flags & NEURONPROF_DRAIN_RELEASE) {
		if (!nprof_kring_consumer_valid(ring->cons, d->release_pos, ring->prod)) {
			ret = -EINVAL;
			goto unlock;
		}
		nprof_kring_consume(ring, d->release_pos);
	}
	if (d->flags & NEURONPROF_DRAIN_FLUSH) {
		sub->flush_pos = ring->prod;
		wake = nprof_kring_unread(ring) > 0;
	}
	d->producer_pos = ring->prod;
	d->consumer_pos = ring->cons;
	d->lost = ring->lost;
	d->ring_flags = ring->flags;
unlock:
	spin_unlock_irqrestore(sub->lock, flags);
	if (wake)
		wake_up_interruptible_poll(&sub->wq, EPOLLIN | EPOLLRDNORM);
out:
	drm_dev_exit(idx);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sub_drain);

static int nprof_sub_release(struct inode *inode, struct file *file)
{
	nprof_sub_destroy(file->private_data);
	return 0;
}

/**
 * nprof_sub_fault_page() - the page of a subscription's buffer at an offset.
 * @sub: the subscription.
 * @pgoff: page offset in the mapping space (header, consumer, data pages).
 * @page: out, the page.
 *
 * Return: 0, or VM_FAULT_SIGBUS past the end of the buffer.
 */
VISIBLE_IF_KUNIT vm_fault_t nprof_sub_fault_page(struct nprof_sub *sub,
						 pgoff_t pgoff,
						 struct page **page)
{
	if (pgoff >= sub->mem_size >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	*page = vmalloc_to_page(sub->mem + (pgoff << PAGE_SHIFT));
	return *page ? 0 : VM_FAULT_SIGBUS;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sub_fault_page);

/*
 * Pages are mapped when touched, as perf maps its ring buffer: whatever zaps
 * the page tables of a mapping (MADV_DONTNEED, ...) only makes the next
 * access fault the same page in again. The mapping holds the file, so the
 * buffer outlives it.
 */
static vm_fault_t nprof_sub_vm_fault(struct vm_fault *vmf)
{
	struct nprof_sub *sub = vmf->vma->vm_file->private_data;
	struct page *page;
	vm_fault_t ret;

	ret = nprof_sub_fault_page(sub, vmf->pgoff, &page);
	if (ret)
		return ret;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct nprof_sub_vm_ops = {
	.fault = nprof_sub_vm_fault,
};

/*
 * Exactly one region per mapping, at exactly its offset and size: the header
 * page and the data area read-only (and never upgradable by mprotect()), the
 * consumer page read-write. MAP_SHARED only: a private copy of a ring is
 * never what the caller wants.
 *
 * Errors: EINVAL not MAP_SHARED, or an offset/size that is not exactly one
 * region; EPERM writable mapping of the header or data.
 */
static int nprof_sub_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct nprof_sub *sub = file->private_data;
	unsigned long size = vma->vm_end - vma->vm_start;
	bool writable = false;
	u64 want;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	switch (vma->vm_pgoff) {
	case NPROF_HEADER_PGOFF:
		want = PAGE_SIZE;
		break;
	case NPROF_CONSUMER_PGOFF:
		want = PAGE_SIZE;
		writable = true;
		break;
	case NPROF_DATA_PGOFF:
		want = sub->ring.size;
		break;
	default:
		return -EINVAL;
	}
	if (size != want)
		return -EINVAL;
	if (!writable) {
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		vma->vm_flags &= ~VM_MAYWRITE;
	}
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_ops = &nprof_sub_vm_ops;
	return 0;
}

static __poll_t nprof_sub_poll(struct file *file, poll_table *wait)
{
	struct nprof_sub *sub = file->private_data;

	poll_wait(file, &sub->wq, wait);
	return nprof_sub_poll_mask(sub);
}

/**
 * nprof_sub_read_claim() - claim unread entries for a read() and copy them.
 * @sub: the subscription.
 * @buf: kernel buffer the entries are copied into.
 * @max: bytes of @buf, a multiple of the entry size.
 * @start: out, the position of the first entry claimed.
 *
 * Under the ring's lock, so the entries are copied while nothing can
 * overwrite them, whatever the consumer page or a concurrent NQ_DRAIN
 * release does meanwhile. Claims start at the consumer position or where
 * an earlier read() claim ended, whichever is further, so concurrent
 * read() calls never return the same entry twice.
 *
 * Return: bytes claimed and copied, 0 when nothing is unread.
 */
VISIBLE_IF_KUNIT u64 nprof_sub_read_claim(struct nprof_sub *sub, void *buf,
					  u64 max, u64 *start)
{
	struct nprof_kring *ring = &sub->ring;
	unsigned long flags;
	u64 pos, len, off, first;

	spin_lock_irqsave(sub->lock, flags);
	nprof_kring_sync_consumer(ring);
	pos = (s64)(sub->read_pos - ring->cons) > 0 ? sub->read_pos : ring->cons;
	len = min(ring->prod - pos, max);
	if (len) {
		off = pos & (ring->size - 1);
		first = min(len, ring->size - off);
		memcpy(buf, ring->data + off, first);
		memcpy(buf + first, ring->data, len - first);
		sub->read_pos = pos + len;
	}
	spin_unlock_irqrestore(sub->lock, flags);
	*start = pos;
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sub_read_claim);

/**
 * nprof_sub_read_commit() - finish a claim of nprof_sub_read_claim().
 * @sub: the subscription.
 * @start: the claim's first position.
 * @len: the claim's bytes.
 * @copied: the entries reached userspace.
 *
 * Copied entries are consumed (unless the consumer is already past them);
 * a claim that did not reach userspace is given back, unless a later claim
 * was made meanwhile, so the entries stay for the next read().
 */
VISIBLE_IF_KUNIT void nprof_sub_read_commit(struct nprof_sub *sub, u64 start,
					    u64 len, bool copied)
{
	unsigned long flags;

	spin_lock_irqsave(sub->lock, flags);
	if (copied)
		nprof_kring_consume(&sub->ring, start + len);
	else if (sub->read_pos == start + len)
		sub->read_pos = start;
	spin_unlock_irqrestore(sub->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sub_read_commit);

/* Bytes one read() copies at most: a bounce buffer's worth. */
#define NPROF_READ_CHUNK	SZ_16K

/*
 * Copies whole entries (as many as fit in @count, are unread and fit in
 * NPROF_READ_CHUNK) and consumes them. An empty ring: 0 once the device is
 * gone, EAGAIN with O_NONBLOCK, otherwise sleep until poll would report
 * EPOLLIN or EPOLLHUP. The entries go through a kernel buffer filled under
 * the ring's lock (nprof_sub_read_claim()), so no lock is held while
 * userspace memory is touched.
 *
 * Errors: EINVAL @count smaller than one entry; EAGAIN; ERESTARTSYS
 * interrupted; ENOMEM; EFAULT bad buffer (nothing is consumed then, unless
 * a concurrent read() consumed past it).
 */
static ssize_t nprof_sub_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct nprof_sub *sub = file->private_data;
	u64 max, start, len;
	unsigned long flags;
	void *kbuf;
	ssize_t ret;
	bool dead;

	if (count < NPROF_ENTRY_SIZE)
		return -EINVAL;
	max = round_down(min_t(size_t, count, NPROF_READ_CHUNK), NPROF_ENTRY_SIZE);
	kbuf = kmalloc(max, GFP_KERNEL);
	if (!kbuf)
		return -ENOMEM;

	for (;;) {
		len = nprof_sub_read_claim(sub, kbuf, max, &start);
		if (len)
			break;
		spin_lock_irqsave(sub->lock, flags);
		dead = sub->dead;
		spin_unlock_irqrestore(sub->lock, flags);
		ret = 0;
		if (dead)
			goto out;
		ret = -EAGAIN;
		if (file->f_flags & O_NONBLOCK)
			goto out;
		ret = wait_event_interruptible(sub->wq, nprof_sub_poll_mask(sub) &
					       (EPOLLIN | EPOLLHUP));
		if (ret)
			goto out;
	}

	ret = copy_to_user(buf, kbuf, len) ? -EFAULT : (ssize_t)len;
	nprof_sub_read_commit(sub, start, len, ret > 0);
out:
	kfree(kbuf);
	return ret;
}

/*
 * NEURONPROF_IOCTL_NQ_DRAIN, the only ioctl of a subscription file.
 *
 * Errors: ENOTTY unknown command; EFAULT bad argument pointer; EINVAL unknown
 * flags, non-zero pad/pad2, release_pos without NEURONPROF_DRAIN_RELEASE, or
 * a release_pos that is not entry-aligned or not between the consumer and
 * producer positions; ENODEV the device is gone; EOPNOTSUPP FLUSH on a device
 * without flush; the provider's flush error.
 */
static long nprof_sub_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct neuronprof_nq_drain d;
	int ret;

	if (cmd != NEURONPROF_IOCTL_NQ_DRAIN)
		return -ENOTTY;
	if (copy_from_user(&d, uarg, sizeof(d)))
		return -EFAULT;
	ret = nprof_sub_drain(file->private_data, &d);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &d, sizeof(d)))
		return -EFAULT;
	return 0;
}

const struct file_operations nprof_sub_fops = {
	.owner		= THIS_MODULE,
	.release	= nprof_sub_release,
	.read		= nprof_sub_read,
	.poll		= nprof_sub_poll,
	.mmap		= nprof_sub_mmap,
	.unlocked_ioctl	= nprof_sub_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= no_llseek,
};
EXPORT_SYMBOL_IF_KUNIT(nprof_sub_fops);
