// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_queue_handle: a queue's handle
 * (nprof_queue_handle(), which a provider looks up once per subscription)
 * and the packed span on it (nprof_notify_begin_packed_at()), on the test
 * provider's device. A span on the handle is the span on the address
 * without its lookup, so it must refuse what the address refuses: a queue
 * nobody subscribes any more, after unsubscription or after the device's
 * unregistration, and an address that is not the queue's (no handle).
 */

#include <kunit/test.h>

#include "neuronprof_test_util.h"

/* @sub_base's queue. */
static struct nprof_queue_id qh_queue(void)
{
	return (struct nprof_queue_id){ sub_base.target_kind, sub_base.target_index,
					sub_base.queue_type, sub_base.engine };
}

/* One empty packed span on @queue: its result (0 with nothing written). */
static int qh_span(struct nprof_queue *queue)
{
	struct nprof_notify_span span;
	int ret = nprof_notify_begin_packed_at(queue, 2, NPROF_ENTRY_SIZE, &span);

	if (!ret)
		nprof_notify_end_packed(&span, 0, 0);
	return ret;
}

/* One packed record of one 64-byte device entry on @queue, as a provider writes it. */
static int qh_record(struct nprof_queue *queue)
{
	struct neuronprof_notification *h;
	struct nprof_notify_span span;
	int ret = nprof_notify_begin_packed_at(queue, 2, NPROF_ENTRY_SIZE, &span);

	if (ret)
		return ret;
	if (span.count < 2) {
		nprof_notify_end_packed(&span, 0, NEURONPROF_RAW_PACKED_SEQS(NPROF_ENTRY_SIZE));
		return -ENOSPC;
	}
	h = span.entries;
	*h = (struct neuronprof_notification){
		.seq = span.seq, .queue_type = span.queue_type, .engine = span.engine,
		.code = NEURONPROF_RAW_PACKED,
		.payload[1] = NEURONPROF_RAW_PACKED_INFO(NPROF_ENTRY_SIZE, NPROF_ENTRY_SIZE),
	};
	memset(h + 1, 0x5a, NPROF_ENTRY_SIZE);
	nprof_notify_end_packed(&span, 2, 0);
	return 0;
}

/*
 * The handle delivers while subscribed, refuses after unsubscription, and
 * stays the queue's.
 */
static void qh_test_unsubscribe(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	const struct nprof_queue_id q = qh_queue();
	struct nprof_queue *handle;
	struct nprof_sub *sub;

	KUNIT_EXPECT_NULL(test, nprof_queue_handle(ctx->ndev, &q));
	KUNIT_EXPECT_EQ(test, qh_span(NULL), -ENOENT);
	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	handle = nprof_queue_handle(ctx->ndev, &q);
	KUNIT_ASSERT_NOT_NULL(test, handle);
	KUNIT_EXPECT_EQ(test, qh_record(handle), 0);
	KUNIT_EXPECT_EQ(test, sub->ring.prod, 2ULL * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, sub->ring.seq, (u64)NEURONPROF_RAW_PACKED_SEQS(NPROF_ENTRY_SIZE));
	tp_unsubscribe(test, sub);

	/* Nobody subscribes it: refused, nothing written anywhere. */
	KUNIT_EXPECT_EQ(test, qh_span(handle), -ENOENT);
	KUNIT_EXPECT_EQ(test, qh_record(handle), -ENOENT);

	/* Subscribed again: the same handle, delivering into the new ring. */
	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_PTR_EQ(test, nprof_queue_handle(ctx->ndev, &q), handle);
	KUNIT_EXPECT_EQ(test, qh_record(handle), 0);
	KUNIT_EXPECT_EQ(test, sub->ring.prod, 2ULL * NPROF_ENTRY_SIZE);
	tp_unsubscribe(test, sub);
}

/* After the device's unregistration a live subscription's handle refuses. */
static void qh_test_unplug(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	const struct nprof_queue_id q = qh_queue();
	struct nprof_queue *handle;
	struct nprof_sub *sub;
	u64 prod;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	handle = nprof_queue_handle(ctx->ndev, &q);
	KUNIT_ASSERT_NOT_NULL(test, handle);
	KUNIT_EXPECT_EQ(test, qh_record(handle), 0);
	prod = sub->ring.prod;

	nprof_device_unregister(ctx->ndev);
	ctx->unregistered = true;

	KUNIT_EXPECT_EQ(test, qh_span(handle), -ENOENT);
	KUNIT_EXPECT_EQ(test, qh_record(handle), -ENOENT);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sub->ring.hdr->producer_pos), prod);
	KUNIT_EXPECT_EQ(test, sub->ring.prod, prod);
	tp_unsubscribe(test, sub);
}

/* An address whose slot holds another queue has no handle (the identity check). */
static void qh_test_alias(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	const struct nprof_queue_id q = qh_queue();
	struct nprof_queue_id alias = q;
	struct nprof_sub *sub;

	/* A kind that is neither a core nor a TopSP takes a core's slot. */
	alias.kind = 7;
	KUNIT_ASSERT_EQ(test, nprof_queue_slot(&test_desc, &alias),
			nprof_queue_slot(&test_desc, &q));
	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_NULL(test, nprof_queue_handle(ctx->ndev, &alias));
	KUNIT_EXPECT_NOT_NULL(test, nprof_queue_handle(ctx->ndev, &q));
	tp_unsubscribe(test, sub);
}

struct kunit_case nprof_queue_handle_cases[] = {
	KUNIT_CASE(qh_test_unsubscribe),
	KUNIT_CASE(qh_test_unplug),
	KUNIT_CASE(qh_test_alias),
	{}
};
