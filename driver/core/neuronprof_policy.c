// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: observation and memory policy
 *
 * neuronprof policy: who may observe a device, and whom the memory of a ring
 * is charged to. Both follow perf and the DRM perf streams (i915/xe), whose
 * knobs administrators already know.
 *
 * Observation. The entries of a notification queue are the instruction
 * traces, events and errors of whatever runs on a NeuronCore, other users'
 * work included. Subscribing is therefore privileged: perfmon_capable()
 * (CAP_PERFMON or CAP_SYS_ADMIN), unless the administrator clears the
 * observe_paranoid module parameter, as dev.i915.perf_stream_paranoid does
 * for i915. Opening the render node and everything that only reads the
 * device's description stay governed by the node's permissions.
 *
 * Memory. A ring is kernel memory that stays resident while its
 * subscription lives, so it is charged twice, as perf charges its ring
 * buffers: its pages to the subscriber's memory cgroup (the allocation is
 * __GFP_ACCOUNT), and its size against a locked-memory budget: first a
 * per-user allowance (mlock_kb, the counterpart of perf_event_mlock_kb) in
 * the user's locked_vm, then beyond it the subscribing process's pinned_vm
 * against RLIMIT_MEMLOCK. CAP_IPC_LOCK lifts the limit, not the charge.
 * Both charges are released when the ring is freed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <kunit/visibility.h>

#include "neuronprof_core.h"

static bool nprof_observe_paranoid = true;
module_param_named(observe_paranoid, nprof_observe_paranoid, bool, 0644);
MODULE_PARM_DESC(observe_paranoid,
		 "Subscribing to a queue needs CAP_PERFMON or CAP_SYS_ADMIN (default Y); N lets whoever may open the render node observe");

/* Default: what perf allows a user per CPU (perf_event_mlock_kb), times 16. */
static unsigned int nprof_mlock_kb = 8256;
module_param_named(mlock_kb, nprof_mlock_kb, uint, 0644);
MODULE_PARM_DESC(mlock_kb,
		 "Ring memory (KiB) each user may lock beyond RLIMIT_MEMLOCK (default 8256)");

/**
 * nprof_observe_check() - whether the caller may subscribe to queues.
 *
 * Return: 0, or -EACCES (with a rate-limited message naming the knob) when
 * observe_paranoid is set and the caller is not perfmon_capable().
 */
int nprof_observe_check(void)
{
	if (!READ_ONCE(nprof_observe_paranoid) || perfmon_capable())
		return 0;
	pr_info_ratelimited("%s[%d]: observing a device needs CAP_PERFMON or CAP_SYS_ADMIN (or neuronprof.observe_paranoid=0)\n",
			    current->comm, task_pid_nr(current));
	return -EACCES;
}

/**
 * nprof_charge_split() - how much of a charge the per-user allowance covers.
 * @user_locked: pages the user has locked already.
 * @pages: pages to charge.
 * @allowance: the per-user allowance in pages.
 *
 * Return: the pages beyond the allowance, which go against RLIMIT_MEMLOCK;
 * the rest (@pages minus that) is charged to the user. A user already over
 * the allowance (it may have been lowered) gets nothing more from it.
 */
VISIBLE_IF_KUNIT u64 nprof_charge_split(u64 user_locked, u64 pages, u64 allowance)
{
	if (user_locked >= allowance)
		return pages;
	return pages - min(pages, allowance - user_locked);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_charge_split);

/**
 * nprof_charge() - charge a ring's pages to the calling task's user and mm.
 * @c: out, what was charged, for nprof_uncharge().
 * @pages: pages of the ring.
 *
 * Return: 0; -EPERM when the pages beyond the user's allowance would take
 * the process's pinned memory over RLIMIT_MEMLOCK and it lacks
 * CAP_IPC_LOCK (nothing is charged then).
 */
int nprof_charge(struct nprof_charge *c, u64 pages)
{
	u64 allowance = (u64)READ_ONCE(nprof_mlock_kb) >> (PAGE_SHIFT - 10);
	struct user_struct *user = current_user();
	struct mm_struct *mm = current->mm;
	u64 extra, limit;

	*c = (struct nprof_charge) {};
	/*
	 * Take the user's share first, then check what it left over, so that
	 * concurrent charges cannot both fit in the same room.
	 */
	atomic_long_add(pages, &user->locked_vm);
	extra = nprof_charge_split(atomic_long_read(&user->locked_vm) - pages,
				   pages, allowance);
	atomic_long_sub(extra, &user->locked_vm);

	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	if (extra) {
		bool over = !mm || atomic64_add_return(extra, &mm->pinned_vm) > limit;

		if (over && !capable(CAP_IPC_LOCK)) {
			if (mm)
				atomic64_sub(extra, &mm->pinned_vm);
			atomic_long_sub(pages - extra, &user->locked_vm);
			pr_info_ratelimited("%s[%d]: a %llu-page ring exceeds the locked-memory allowance (neuronprof.mlock_kb) and RLIMIT_MEMLOCK\n",
					    current->comm, task_pid_nr(current), pages);
			return -EPERM;
		}
		if (mm) {
			mmgrab(mm);
			c->mm = mm;
			c->pinned_pages = extra;
		}
	}
	c->user = get_current_user();
	c->user_pages = pages - extra;
	return 0;
}

/**
 * nprof_uncharge() - release what nprof_charge() charged.
 * @c: the charge; may be from another task or a process that exited.
 */
void nprof_uncharge(struct nprof_charge *c)
{
	if (c->mm) {
		atomic64_sub(c->pinned_pages, &c->mm->pinned_vm);
		mmdrop(c->mm);
	}
	if (c->user) {
		atomic_long_sub(c->user_pages, &c->user->locked_vm);
		free_uid(c->user);
	}
	*c = (struct nprof_charge) {};
}
