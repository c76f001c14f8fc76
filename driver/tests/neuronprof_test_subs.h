/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel subscriptions a KUnit test holds (neuronprof_unplug_test.c,
 * neuronprof_sim_device_test.c, neuronprof_sim_bench_test.c): created
 * through the list, so that the suite's exit destroys whatever a failed
 * assertion left behind.
 */
#ifndef _NEURONPROF_TEST_SUBS_H_
#define _NEURONPROF_TEST_SUBS_H_

#include <kunit/test.h>
#include <linux/err.h>

#include "core/neuronprof_core.h"

#define NPROF_TEST_MAX_SUBS	(NEURONPROF_MAX_SUBSCRIBERS + 8)

struct nprof_test_subs {
	struct nprof_sub *sub[NPROF_TEST_MAX_SUBS];
	unsigned int nr;
};

/* nprof_sub_create(), remembered in @s if it succeeds. */
static inline struct nprof_sub *
nprof_test_subs_create(struct kunit *test, struct nprof_test_subs *s,
		       struct nprof_device *ndev,
		       const struct drm_neuronprof_nq_subscribe *args)
{
	struct nprof_sub *sub;

	KUNIT_ASSERT_LT(test, s->nr, (unsigned int)NPROF_TEST_MAX_SUBS);
	sub = nprof_sub_create(ndev, args);
	if (!IS_ERR(sub))
		s->sub[s->nr++] = sub;
	return sub;
}

/* nprof_sub_destroy() of a subscription of @s; a stranger fails the test. */
static inline void nprof_test_subs_destroy(struct kunit *test, struct nprof_test_subs *s,
					   struct nprof_sub *sub)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		if (s->sub[i] != sub)
			continue;
		s->sub[i] = s->sub[--s->nr];
		nprof_sub_destroy(sub);
		return;
	}
	KUNIT_FAIL(test, "unsubscribing an unknown subscription");
}

/* For a suite's exit: a failed assertion must not leave subscriptions behind. */
static inline void nprof_test_subs_destroy_all(struct nprof_test_subs *s)
{
	while (s->nr)
		nprof_sub_destroy(s->sub[--s->nr]);
}

#endif /* _NEURONPROF_TEST_SUBS_H_ */
