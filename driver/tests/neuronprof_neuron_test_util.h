/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture every KUnit suite of the neuron.ko provider shares (one test
 * module, neuronprof_neuron_kunit, with the fake neuron.ko; the code is in
 * neuronprof_neuron_test_util.c): a device of the fake neuron.ko and the
 * subscriptions a test holds, torn down by the suite's exit, the runtime's
 * produce-and-consume of a queue, and each suite's table of cases. Its own
 * file rather than neuronprof_test_util.c: the core's test module links
 * that one, and two modules built in with one object would define its
 * symbols twice.
 */
#ifndef _NEURONPROF_NEURON_TEST_UTIL_H_
#define _NEURONPROF_NEURON_TEST_UTIL_H_

#include <kunit/test.h>

#include "core/neuronprof_core.h"
#include "fake_neuron.h"
#include "neuron/neuron.h"

#define NN_MAX_SUBS	3

/* What a test leaves behind: a fake device (-1 none) and its subscriptions. */
struct nn_ctx {
	int dev;
	struct nprof_sub *sub[NN_MAX_SUBS];
};

int nn_init(struct kunit *test);
void nn_exit(struct kunit *test);
struct nprof_drmdev *nn_device(struct kunit *test);
struct nprof_drmdev *nn_format_device(struct kunit *test, u32 entry_size, u32 head_mode);
struct nprof_sub *nn_subscribe(struct kunit *test, struct nprof_drmdev *ndev,
			       const struct drm_neuronprof_nq_subscribe *args);
struct nprof_sub *nn_subscribe_queue(struct kunit *test, struct nprof_drmdev *ndev, u32 kind,
				     u32 index, u32 type, u32 engine, u64 ring_size);
int nn_program(struct kunit *test, u32 target, u32 id, u32 nq_type, u32 engine, u32 size);
int nn_devmem_queue(struct kunit *test, u32 type, u64 ring_size, u32 size);
u64 nn_check_parts(struct kunit *test, int q, u64 from, u64 seq, u32 first);
void nn_wrap_rounds(struct kunit *test, int q);
void nn_head_write(struct kunit *test, int q, u32 n);

/* ---- the suites' tables of cases (neuronprof_neuron_test_util.c lists the suites) */

extern struct kunit_case nn_cases[];
extern struct kunit_case nn_dm_cases[];
extern struct kunit_case np_cases[];
extern struct kunit_case nw_cases[];
extern struct kunit_case nb_cases[];
extern struct kunit_case nn_hr_cases[];

int nn_dm_init(struct kunit *test);
void nn_dm_exit(struct kunit *test);
int nn_hr_init(struct kunit *test);
void nn_hr_exit(struct kunit *test);

#endif /* _NEURONPROF_NEURON_TEST_UTIL_H_ */
