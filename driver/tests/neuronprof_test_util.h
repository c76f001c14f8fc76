/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixtures every KUnit suite of the neuronprof core and simulator shares
 * (one test module, neuronprof_kunit; the code is in neuronprof_test_util.c):
 * the in-kernel subscriptions a test holds, table-driven argument patches,
 * the reference device description, subscription and SIM_EXEC, the test
 * provider and its device, simulated devices and a recorder of generated
 * notifications, the benchmarks' memcpy baseline, and each suite's table of
 * cases.
 */
#ifndef _NEURONPROF_TEST_UTIL_H_
#define _NEURONPROF_TEST_UTIL_H_

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "core/neuronprof_core.h"
#include "sim/sim.h"

/* ---- the subscriptions a test holds -------------------------------------- */

#define NPROF_TEST_MAX_SUBS	(NEURONPROF_MAX_SUBSCRIBERS + 8)

/*
 * In-kernel subscriptions created through the list, so that the suite's exit
 * destroys whatever a failed assertion left behind.
 */
struct nprof_test_subs {
	struct nprof_sub *sub[NPROF_TEST_MAX_SUBS];
	unsigned int nr;
};

struct nprof_sub *nprof_test_subs_create(struct kunit *test, struct nprof_test_subs *s,
					 struct nprof_drmdev *ndev,
					 const struct drm_neuronprof_nq_subscribe *args);
void nprof_test_subs_destroy(struct kunit *test, struct nprof_test_subs *s,
			     struct nprof_sub *sub);
void nprof_test_subs_destroy_all(struct nprof_test_subs *s);

/* ---- table-driven argument patches --------------------------------------- */

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

struct patch_case {
	const char *name;
	struct field_patch p[3];
};

/*
 * What a table of patch cases patches: a valid argument struct for
 * test_desc, which a patched copy of goes through the core's validation.
 */
enum patch_subject {
	PATCH_DESC,		/* test_desc itself, nprof_desc_validate() with tp_ops */
	PATCH_SUBSCRIBE,	/* sub_base, nprof_subscribe_validate() */
	PATCH_SIM_EXEC,		/* sim_exec_base, nprof_sim_exec_validate() */
};

void apply_patches(void *base, const struct field_patch *p, int n);
void patch_case_desc(const struct patch_case *c, char *desc);
void patch_case_check(struct kunit *test, enum patch_subject what, bool valid);

static inline const struct neuronprof_notification *
ring_at(const struct nprof_kring *ring, u64 pos)
{
	return (const void *)(ring->data + (pos & (ring->size - 1)));
}

/* 2 cores, 3 TopSPs per core, 4 engines, rings of 2 to 16 pages. */
extern const struct nprof_device_desc test_desc;
/* A valid subscription of test_desc: the TRACE queue of core 0, engine 0. */
extern const struct drm_neuronprof_nq_subscribe sub_base;
/* A valid SIM_EXEC of test_desc: one iteration of 10 instructions on core 0. */
extern const struct drm_neuronprof_sim_exec sim_exec_base;

/* ---- the test provider ---------------------------------------------------- */

/* The test provider: counts its callbacks, fails them on request. */
struct tp_ctx {
	struct kunit *test;
	struct device *parent;
	struct nprof_drmdev *ndev;
	struct nprof_drmdev *ndev_noflush;
	bool unregistered;
	struct nprof_test_subs subs;
	atomic_t starts;
	atomic_t stops;
	atomic_t flushes;
	int start_ret;
	int flush_ret;
};

extern const struct nprof_hw_ops tp_ops;
extern const struct nprof_hw_ops tp_ops_noflush;

int tp_sim_exec(struct nprof_drmdev *ndev, struct drm_neuronprof_sim_exec *args);
struct nprof_drmdev *tp_register(struct device *parent, const struct nprof_device_desc *desc,
				 const struct nprof_hw_ops *ops, void *priv);
int tp_fixture_init(struct kunit *test, const struct nprof_device_desc *desc,
		    const char *parent_name);
void tp_fixture_exit(struct kunit *test);
struct nprof_sub *tp_subscribe(struct kunit *test, struct nprof_drmdev *ndev,
			       const struct drm_neuronprof_nq_subscribe *args);
void tp_unsubscribe(struct kunit *test, struct nprof_sub *sub);
void tp_consume_all(struct nprof_sub *sub);

/* ---- simulated devices and the program recorder --------------------------- */

/* Device ids of the test devices: far above those created at load. */
#define SIM_TEST_ID		4000

#define SIM_TEST_MAX_RECORDS	4096

struct sim_test_record {
	struct nprof_queue_id q;
	struct neuronprof_notification n;
};

struct sim_test_rec {
	struct kunit *test;
	struct sim_test_record *recs;
	unsigned int nr;
	unsigned int cap;
	int fail_at;		/* emit fails with -EIO at this record, -1 never */
	u32 stop_iteration;	/* poll stops the run before it, 0 never */
	u64 polls_mid;
	u64 polls_boundary;
};

int sim_test_emit(struct nprof_sim_run *run, const struct nprof_queue_id *q,
		  struct neuronprof_notification *n);
struct sim_test_rec *sim_test_rec_new(struct kunit *test, unsigned int cap);

/* What a device test leaves behind, torn down by sim_device_exit(). */
struct sim_test_ctx {
	struct nprof_test_subs subs;
	unsigned int time_scale;	/* the parameter's value before the test */
};

int sim_device_init(struct kunit *test);
void sim_device_exit(struct kunit *test);
struct nprof_sim_device *sim_test_dev_new(struct kunit *test, u32 id, const char *arch);
struct nprof_sub *sim_test_try_subscribe(struct kunit *test, struct nprof_sim_device *sdev,
					 u32 kind, u32 index, u32 type, u32 engine,
					 u64 ring_size);
struct nprof_sub *sim_test_subscribe(struct kunit *test, struct nprof_sim_device *sdev,
				     u32 kind, u32 index, u32 type, u32 engine, u64 ring_size);
void sim_test_unsubscribe(struct kunit *test, struct nprof_sub *sub);
int sim_test_exec(struct nprof_drmdev *ndev, struct drm_neuronprof_sim_exec *args);

/* ---- benchmarks ----------------------------------------------------------- */

u64 nprof_bench_memcpy_ns(struct kunit *test, unsigned int entries, unsigned int rounds);

/* ---- the suites' tables of cases (neuronprof_test_util.c lists the suites) */

extern struct kunit_case nprof_ring_cases[];
extern struct kunit_case nprof_subscribe_cases[];
extern struct kunit_case nprof_device_cases[];
extern struct kunit_case nprof_unplug_cases[];
extern struct kunit_case nprof_fanout_bench_cases[];
extern struct kunit_case nprof_sim_program_cases[];
extern struct kunit_case nprof_sim_device_cases[];
extern struct kunit_case nprof_sim_bench_cases[];

int fanout_bench_init(struct kunit *test);

#endif /* _NEURONPROF_TEST_UTIL_H_ */
