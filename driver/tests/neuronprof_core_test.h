/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of the neuronprof core share (neuronprof_ring_test.c,
 * neuronprof_subscribe_test.c, neuronprof_device_test.c and
 * neuronprof_unplug_test.c, a module each): table-driven argument patches,
 * the reference device description and subscription, and the test provider
 * whose ops the device and unplug suites hand to the core.
 */
#ifndef _NEURONPROF_CORE_TEST_H_
#define _NEURONPROF_CORE_TEST_H_

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "core/neuronprof_core.h"
#include "neuronprof_test_subs.h"

#define ENTRY			((u64)NPROF_ENTRY_SIZE)

#define CORE_TYPES	GENMASK(NEURONPROF_QT_THROTTLE, NEURONPROF_QT_TRACE)
#define TOPSP_TYPES	GENMASK(NEURONPROF_QT_TOPSP_ERROR, NEURONPROF_QT_TOPSP_TRACE)
#define ENGINE_TYPES	(BIT(NEURONPROF_QT_TRACE) | BIT(NEURONPROF_QT_EVENT) | \
			 BIT(NEURONPROF_QT_DMA))

/*
 * A table-driven test changes up to three members of a valid argument
 * struct; each change is (offset, size, value) so one table fits any struct.
 */
struct field_patch {
	size_t off;
	size_t size;
	u64 value;
};

#define PATCH(type, member, val) \
	{ offsetof(type, member), sizeof_field(type, member), (val) }

static inline void apply_patches(void *base, const struct field_patch *p, int n)
{
	int i;

	for (i = 0; i < n && p[i].size; i++) {
		if (p[i].size == sizeof(u32)) {
			u32 v = p[i].value;

			memcpy(base + p[i].off, &v, sizeof(v));
		} else {
			memcpy(base + p[i].off, &p[i].value, sizeof(u64));
		}
	}
}

struct patch_case {
	const char *name;
	struct field_patch p[3];
};

static inline void patch_case_desc(const struct patch_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static inline const struct neuronprof_notification *
ring_at(const struct nprof_kring *ring, u64 pos)
{
	return (const void *)(ring->data + (pos & (ring->size - 1)));
}

/* 2 cores, 3 TopSPs per core, 4 engines, rings of 2 to 16 pages. */
static const struct nprof_device_desc test_desc __maybe_unused = {
	.provider = "kunit",
	.arch = NEURONPROF_ARCH_TRN1,
	.num_cores = 2,
	.num_topsps = 6,
	.engines_per_core = 4,
	.core_queue_types = CORE_TYPES,
	.topsp_queue_types = TOPSP_TYPES,
	.per_engine_queue_types = ENGINE_TYPES,
	.min_ring_size = 2 * PAGE_SIZE,
	.max_ring_size = 16 * PAGE_SIZE,
	.caps = NEURONPROF_CAP_FLUSH,
};

/* A valid subscription of test_desc: the TRACE queue of core 0, engine 0. */
static const struct drm_neuronprof_nq_subscribe sub_base __maybe_unused = {
	.target_kind = NEURONPROF_TARGET_CORE,
	.target_index = 0,
	.queue_type = NEURONPROF_QT_TRACE,
	.engine = 0,
	.ring_size = 4 * PAGE_SIZE,
};

/* ---- the test provider -------------------------------------------------- */

/* The test provider: counts its callbacks, fails them on request. */
struct tp_ctx {
	struct kunit *test;
	struct device *parent;
	struct nprof_device *ndev;
	struct nprof_device *ndev_noflush;
	bool unregistered;
	struct nprof_test_subs subs;
	atomic_t starts;
	atomic_t stops;
	atomic_t flushes;
	int start_ret;
	int flush_ret;
};

static inline int tp_queue_start(struct nprof_device *ndev, const struct nprof_queue_id *q)
{
	struct tp_ctx *ctx = nprof_device_priv(ndev);

	if (ctx->start_ret)
		return ctx->start_ret;
	atomic_inc(&ctx->starts);
	return 0;
}

static inline void tp_queue_stop(struct nprof_device *ndev, const struct nprof_queue_id *q)
{
	struct tp_ctx *ctx = nprof_device_priv(ndev);

	atomic_inc(&ctx->stops);
}

static inline int tp_flush(struct nprof_device *ndev, const struct nprof_queue_id *q)
{
	struct tp_ctx *ctx = nprof_device_priv(ndev);

	atomic_inc(&ctx->flushes);
	return ctx->flush_ret;
}

/* Never registered with a device: only its presence in an ops struct matters. */
static inline int tp_sim_exec(struct nprof_device *ndev, struct drm_neuronprof_sim_exec *args)
{
	return -EOPNOTSUPP;
}

static const struct nprof_hw_ops tp_ops __maybe_unused = {
	.owner = THIS_MODULE,
	.queue_start = tp_queue_start,
	.queue_stop = tp_queue_stop,
	.flush = tp_flush,
};

static const struct nprof_hw_ops tp_ops_noflush __maybe_unused = {
	.owner = THIS_MODULE,
	.queue_start = tp_queue_start,
	.queue_stop = tp_queue_stop,
};

#endif /* _NEURONPROF_CORE_TEST_H_ */
