// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_fanout_bench: what each extra subscription of a
 * queue costs the producer, through nprof_notify_begin()/end() on the test
 * provider's device, against a memcpy of the entry measured in the same run.
 * It reports, it never asserts on time.
 */

#include "neuronprof_test_util.h"

#define FANOUT_BENCH_ENTRIES	16384U
#define FANOUT_BENCH_RING	(FANOUT_BENCH_ENTRIES * NPROF_ENTRY_SIZE)
#define FANOUT_BENCH_SPAN	64U
#define FANOUT_BENCH_ROUNDS	7
#define FANOUT_BENCH_SUBS	4

/* The test device with rings large enough for a whole round. */
static const struct nprof_device_desc fanout_bench_desc = {
	.provider = "kunit",
	.arch = NEURONPROF_ARCH_TRN1,
	.num_cores = 1,
	.num_topsps = 0,
	.engines_per_core = 1,
	.core_queue_types = BIT(NEURONPROF_QT_TRACE),
	.min_ring_size = PAGE_SIZE,
	.max_ring_size = FANOUT_BENCH_RING,
	.caps = NEURONPROF_CAP_FLUSH,
};

int fanout_bench_init(struct kunit *test)
{
	return tp_fixture_init(test, &fanout_bench_desc, "neuronprof_kunit_bench");
}

/*
 * One round as a provider produces: spans of nprof_notify_begin()/end(),
 * each entry written in place (a prepared entry, its seq, type and engine),
 * every ring emptied first so that nothing is lost.
 */
static u64 fanout_bench_round(struct kunit *test, struct nprof_sub **subs, int n)
{
	const struct nprof_queue_id q = { NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0 };
	struct neuronprof_notification src = { .code = 1, .model_id = 2 };
	struct nprof_drmdev *ndev = ((struct tp_ctx *)test->priv)->ndev;
	struct nprof_notify_span span;
	unsigned int done = 0, i;
	u64 t0;
	int k;

	for (k = 0; k < n; k++)
		tp_consume_all(subs[k]);
	t0 = ktime_get_ns();
	while (done < FANOUT_BENCH_ENTRIES) {
		if (nprof_notify_begin(ndev, &q, FANOUT_BENCH_SPAN, &span))
			return 0;
		for (i = 0; i < span.count; i++) {
			src.seq = span.seq + i;
			src.queue_type = span.queue_type;
			src.engine = span.engine;
			memcpy(&span.entries[i], &src, sizeof(src));
		}
		nprof_notify_end(&span, span.count, span.count);
		done += span.count ?: FANOUT_BENCH_SPAN;
	}
	return ktime_get_ns() - t0;
}

static void fanout_bench_report(struct kunit *test, const char *what, u64 t, u64 t_copy)
{
	u64 ps = div_u64(t * 1000, FANOUT_BENCH_ENTRIES);
	u64 copy_ps = div_u64(t_copy * 1000, FANOUT_BENCH_ENTRIES) ?: 1;

	kunit_info(test, "%s: %llu.%03llu ns/notification, ratio to memcpy of the entry %llu.%02llu\n",
		   what, ps / 1000, ps % 1000, div_u64(ps, copy_ps),
		   div_u64(ps * 100, copy_ps) % 100);
}

/*
 * 1 to FANOUT_BENCH_SUBS subscriptions of one queue, the best of
 * FANOUT_BENCH_ROUNDS rounds each: the producer's time per notification
 * against a memcpy of one entry, measured in the same run, and last the
 * average cost of each subscription beyond the first.
 */
static void fanout_bench_subscribers(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct drm_neuronprof_nq_subscribe args = {
		.target_kind = NEURONPROF_TARGET_CORE,
		.queue_type = NEURONPROF_QT_TRACE,
		.ring_size = FANOUT_BENCH_RING,
	};
	struct nprof_sub *subs[FANOUT_BENCH_SUBS];
	u64 t[FANOUT_BENCH_SUBS + 1], t_copy, best, r_t, extra;
	char what[64];
	int k, r;

	t_copy = nprof_bench_memcpy_ns(test, FANOUT_BENCH_ENTRIES, FANOUT_BENCH_ROUNDS);
	for (k = 1; k <= FANOUT_BENCH_SUBS; k++) {
		subs[k - 1] = tp_subscribe(test, ctx->ndev, &args);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, subs[k - 1]);
		best = U64_MAX;
		for (r = 0; r < FANOUT_BENCH_ROUNDS; r++) {
			r_t = fanout_bench_round(test, subs, k);
			KUNIT_ASSERT_NE(test, r_t, 0ULL);
			best = min(best, r_t);
		}
		for (r = 0; r < k; r++)
			KUNIT_ASSERT_EQ(test, subs[r]->ring.lost, 0ULL);
		t[k] = best;
		snprintf(what, sizeof(what), "%d subscriber%s", k, k == 1 ? "" : "s");
		fanout_bench_report(test, what, t[k], t_copy);
	}
	extra = t[FANOUT_BENCH_SUBS] > t[1] ?
		div_u64(t[FANOUT_BENCH_SUBS] - t[1], FANOUT_BENCH_SUBS - 1) : 0;
	fanout_bench_report(test, "each subscriber beyond the first", extra, t_copy);
}

struct kunit_case nprof_fanout_bench_cases[] = {
	KUNIT_CASE(fanout_bench_subscribers),
	{}
};
