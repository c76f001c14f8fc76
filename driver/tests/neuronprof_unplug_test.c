// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_unplug: a device registered by the test provider
 * (neuronprof_test_util.c) on a test root device, subscribed in-kernel,
 * flushed, drained, fed from hard IRQ context, and unregistered while a
 * subscription is live; and a queue's handle (nprof_queue_handle(), which a
 * provider looks up once per subscription) with the packed span on it
 * (nprof_notify_begin_packed_at()): a span on the handle is the span on the
 * address without its lookup, so it must refuse what the address refuses,
 * a queue nobody subscribes any more, after unsubscription or after the
 * device's unregistration, and an address that is not the queue's (no
 * handle).
 */

#include "neuronprof_test_util.h"

static enum nprof_notify_result tp_notify(struct nprof_drmdev *ndev,
					  const struct drm_neuronprof_nq_subscribe *args,
					  u32 code)
{
	const struct nprof_queue_id q = {
		args->target_kind, args->target_index, args->queue_type, args->engine
	};
	struct neuronprof_notification n = { .code = code };

	return nprof_notify(ndev, &q, &n, false);
}

static void unplug_test_subscribe_notify_release(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_sub *sub;

	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 1), NPROF_NOTIFY_UNSUBSCRIBED);
	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 1);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(sub) & EPOLLIN);

	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 42), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, sub->ring.prod, ENTRY);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->code, 42U);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->seq, 0ULL);
	/* Watermark 0: one entry makes the subscription readable. */
	KUNIT_EXPECT_EQ(test, nprof_sub_poll_mask(sub), (__poll_t)(EPOLLIN | EPOLLRDNORM));
	/* Another queue of the device is not subscribed. */
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &(struct drm_neuronprof_nq_subscribe){
				.queue_type = NEURONPROF_QT_TRACE, .engine = 1 }, 1),
			NPROF_NOTIFY_UNSUBSCRIBED);

	tp_unsubscribe(test, sub);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->stops), 1);
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 1), NPROF_NOTIFY_UNSUBSCRIBED);

	/* The queue is free for the next subscriber, whose ring starts afresh. */
	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 43), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->seq, 0ULL);
}

/*
 * A queue address that is not one of the device's finds nothing, even where
 * its slot in the device's table (nprof_queue_slot()) holds a subscribed
 * queue: a core index past the cores is the first TopSP's slot, an engine
 * past the instances the next queue type's, an unknown kind a NeuronCore's.
 * The notify functions take a provider's address as it is (nprof_queue_find()).
 */
static void unplug_test_notify_alias(struct kunit *test)
{
	static const struct drm_neuronprof_nq_subscribe subs[] = {
		{ .target_kind = NEURONPROF_TARGET_TOPSP, .queue_type = NEURONPROF_QT_TOPSP_TRACE,
		  .ring_size = 4 * PAGE_SIZE },
		{ .target_kind = NEURONPROF_TARGET_CORE, .queue_type = NEURONPROF_QT_EVENT,
		  .ring_size = 4 * PAGE_SIZE },
		{ .target_kind = NEURONPROF_TARGET_CORE, .queue_type = NEURONPROF_QT_TRACE,
		  .ring_size = 4 * PAGE_SIZE },
	};
	static const struct nprof_queue_id alias[] = {
		{ NEURONPROF_TARGET_CORE, 2, NEURONPROF_QT_TOPSP_TRACE, 0 },
		{ NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_EVENT - 1, NEURONPROF_MAX_INSTANCES },
		{ 7, 0, NEURONPROF_QT_TRACE, 0 },
	};
	struct tp_ctx *ctx = test->priv;
	struct neuronprof_notification n = { .code = 1 };
	struct nprof_notify_span span;
	struct nprof_sub *sub;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(subs); i++) {
		const struct nprof_queue_id q = {
			subs[i].target_kind, subs[i].target_index, subs[i].queue_type,
			subs[i].engine
		};

		KUNIT_ASSERT_FALSE(test, nprof_queue_valid(&test_desc, &alias[i]));
		KUNIT_ASSERT_EQ(test, nprof_queue_slot(&test_desc, &alias[i]),
				nprof_queue_slot(&test_desc, &q));
		sub = tp_subscribe(test, ctx->ndev, &subs[i]);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
		KUNIT_EXPECT_EQ_MSG(test, nprof_notify(ctx->ndev, &alias[i], &n, false),
				    NPROF_NOTIFY_UNSUBSCRIBED, "alias %u", i);
		KUNIT_EXPECT_EQ(test, nprof_notify_lost(ctx->ndev, &alias[i], 3),
				NPROF_NOTIFY_UNSUBSCRIBED);
		KUNIT_EXPECT_EQ(test, nprof_notify_begin(ctx->ndev, &alias[i], 1, &span), -ENOENT);
		KUNIT_EXPECT_EQ(test, nprof_notify_begin_packed(ctx->ndev, &alias[i], 2,
								NPROF_ENTRY_SIZE, &span), -ENOENT);
		KUNIT_EXPECT_EQ(test, sub->ring.prod, 0ULL);
		KUNIT_EXPECT_EQ(test, sub->ring.seq, 0ULL);
		KUNIT_EXPECT_EQ(test, sub->ring.lost, 0ULL);
		/* The queue itself is found. */
		KUNIT_EXPECT_EQ(test, nprof_notify(ctx->ndev, &q, &n, false),
				NPROF_NOTIFY_DELIVERED);
		tp_unsubscribe(test, sub);
	}
}

static void unplug_test_subscriber_limit(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct drm_neuronprof_nq_subscribe other = sub_base;
	struct nprof_sub *subs[NEURONPROF_MAX_SUBSCRIBERS];
	int i;

	for (i = 0; i < NEURONPROF_MAX_SUBSCRIBERS; i++) {
		subs[i] = tp_subscribe(test, ctx->ndev, &sub_base);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, subs[i]);
	}
	/* The first subscription starts the queue, the others join it. */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tp_subscribe(test, ctx->ndev, &sub_base)), -EBUSY);
	/* A full queue never reaches the provider. */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 1);
	other.engine = 1;
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, tp_subscribe(test, ctx->ndev, &other));
	other.target_kind = NEURONPROF_TARGET_TOPSP;
	other.queue_type = NEURONPROF_QT_TOPSP_TRACE;
	other.engine = 0;
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, tp_subscribe(test, ctx->ndev, &other));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 3);

	/* A freed place is taken again; the queue is stopped after the last. */
	tp_unsubscribe(test, subs[0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->stops), 0);
	subs[0] = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, subs[0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 3);
	for (i = 0; i < NEURONPROF_MAX_SUBSCRIBERS; i++)
		tp_unsubscribe(test, subs[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->stops), 1);
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 1), NPROF_NOTIFY_UNSUBSCRIBED);
	subs[0] = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, subs[0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 4);
}

/* Consume everything @sub's ring holds, as a reader keeping up would. */
/* delivered + lost == produced, and the seq of every entry in the ring. */
static void tp_expect_accounting(struct kunit *test, struct nprof_sub *sub,
				 u64 produced, u64 lost)
{
	KUNIT_EXPECT_EQ(test, sub->ring.seq, produced);
	KUNIT_EXPECT_EQ(test, sub->ring.lost, lost);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sub->ring.hdr->lost), lost);
	KUNIT_EXPECT_EQ(test, sub->ring.prod / ENTRY + lost, produced);
	KUNIT_EXPECT_EQ(test, !!(sub->ring.flags & NEURONPROF_RING_OVERFLOWED), lost > 0);
}

/*
 * Several subscriptions of one queue: each ring gets every notification
 * with its own seq, and the one nobody reads (stalled) loses only its own
 * entries, through nprof_notify(), nprof_notify_batch(),
 * nprof_notify_begin()/end() and nprof_notify_lost().
 */
static void unplug_test_fanout_stalled(struct kunit *test)
{
	const struct nprof_queue_id q = { NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0 };
	const u64 cap = sub_base.ring_size / ENTRY;
	struct tp_ctx *ctx = test->priv;
	struct neuronprof_notification *batch;
	struct nprof_notify_stats st;
	struct nprof_notify_span span;
	struct nprof_sub *live, *stalled, *late;
	u64 i, produced = 0;
	u32 lost;

	live = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, live);
	stalled = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, stalled);

	/* One at a time: both rings fill up to the stalled one's capacity. */
	for (i = 0; i < cap; i++, produced++) {
		KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, (u32)i),
				NPROF_NOTIFY_DELIVERED);
		tp_consume_all(live);
	}
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 7), NPROF_NOTIFY_LOST);
	produced++;
	tp_consume_all(live);
	tp_expect_accounting(test, live, produced, 0);
	tp_expect_accounting(test, stalled, produced, 1);
	KUNIT_EXPECT_EQ(test, ring_at(&stalled->ring, (cap - 1) * ENTRY)->seq, cap - 1);
	KUNIT_EXPECT_EQ(test, ring_at(&live->ring, cap * ENTRY)->seq, cap);
	KUNIT_EXPECT_EQ(test, ring_at(&live->ring, cap * ENTRY)->code, 7U);

	/* A subscription that joins late counts from its own start. */
	late = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, late);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 1);

	/* A batch: the stalled ring loses all of it, the others none. */
	batch = kunit_kcalloc(test, 16, sizeof(*batch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, batch);
	for (i = 0; i < 16; i++)
		batch[i].code = 100 + i;
	KUNIT_EXPECT_EQ(test, nprof_notify_batch(ctx->ndev, &q, batch, 16, false, &st),
			NPROF_NOTIFY_LOST);
	KUNIT_EXPECT_EQ(test, st.delivered, 0U);
	KUNIT_EXPECT_EQ(test, st.lost, 16U);
	produced += 16;
	tp_consume_all(live);
	tp_expect_accounting(test, live, produced, 0);
	tp_expect_accounting(test, stalled, produced, 17);
	tp_expect_accounting(test, late, 16, 0);
	KUNIT_EXPECT_EQ(test, ring_at(&late->ring, 15 * ENTRY)->seq, 15ULL);
	KUNIT_EXPECT_EQ(test, ring_at(&late->ring, 15 * ENTRY)->code, 115U);

	/* In place: the span goes where there is room; the copy follows. */
	KUNIT_ASSERT_EQ(test, nprof_notify_begin(ctx->ndev, &q, 8, &span), 0);
	KUNIT_EXPECT_EQ(test, span.count, 8U);
	KUNIT_EXPECT_TRUE(test, span.sub == live || span.sub == late);
	for (i = 0; i < 8; i++)
		span.entries[i] = (struct neuronprof_notification){
			.seq = span.seq + i, .queue_type = span.queue_type,
			.engine = span.engine, .code = 200 + i,
		};
	lost = nprof_notify_end(&span, 8, 10);
	KUNIT_EXPECT_EQ(test, lost, 2U);
	produced += 10;
	tp_consume_all(live);
	tp_expect_accounting(test, live, produced, 2);
	tp_expect_accounting(test, stalled, produced, 17 + 10);
	tp_expect_accounting(test, late, 16 + 10, 2);
	KUNIT_EXPECT_EQ(test, ring_at(&late->ring, (16 + 7) * ENTRY)->seq, 16ULL + 7);
	KUNIT_EXPECT_EQ(test, ring_at(&late->ring, (16 + 7) * ENTRY)->code, 207U);

	/* Uncaptured notifications count in every ring. */
	KUNIT_EXPECT_EQ(test, nprof_notify_lost(ctx->ndev, &q, 5), NPROF_NOTIFY_LOST);
	produced += 5;
	tp_expect_accounting(test, live, produced, 7);
	tp_expect_accounting(test, stalled, produced, 17 + 15);
	tp_expect_accounting(test, late, 16 + 15, 7);

	/* The stalled reader leaves; the others go on. */
	tp_unsubscribe(test, stalled);
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 9), NPROF_NOTIFY_DELIVERED);
	tp_expect_accounting(test, late, 16 + 15 + 1, 7);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->stops), 0);
}

/* The span goes to a ring with room even when the oldest subscriber's is full. */
static void unplug_test_fanout_span_room(struct kunit *test)
{
	const struct nprof_queue_id q = { NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0 };
	const u64 cap = sub_base.ring_size / ENTRY;
	struct tp_ctx *ctx = test->priv;
	struct nprof_notify_span span;
	struct nprof_sub *stalled, *live;
	u64 i;

	stalled = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, stalled);
	for (i = 0; i < cap; i++)
		tp_notify(ctx->ndev, &sub_base, 1);
	live = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, live);

	KUNIT_ASSERT_EQ(test, nprof_notify_begin(ctx->ndev, &q, 4, &span), 0);
	KUNIT_EXPECT_PTR_EQ(test, span.sub, live);
	KUNIT_EXPECT_EQ(test, span.count, 4U);
	for (i = 0; i < 4; i++)
		span.entries[i] = (struct neuronprof_notification){ .seq = span.seq + i };
	KUNIT_EXPECT_EQ(test, nprof_notify_end(&span, 4, 4), 0U);
	tp_expect_accounting(test, live, 4, 0);
	tp_expect_accounting(test, stalled, cap + 4, 4);

	/* Room for 2 of 4 in the slow ring: it gets the first 2 and loses 2. */
	smp_store_release(&stalled->ring.cons_page->consumer_pos, 2 * ENTRY);	/* D */
	tp_consume_all(live);
	KUNIT_ASSERT_EQ(test, nprof_notify_begin(ctx->ndev, &q, 4, &span), 0);
	KUNIT_EXPECT_PTR_EQ(test, span.sub, live);
	for (i = 0; i < 4; i++)
		span.entries[i] = (struct neuronprof_notification){
			.seq = span.seq + i, .code = 300 + i, .payload = { i, 2 * i, 3 * i, 4 * i },
		};
	KUNIT_EXPECT_EQ(test, nprof_notify_end(&span, 4, 4), 0U);
	tp_expect_accounting(test, live, 8, 0);
	tp_expect_accounting(test, stalled, cap + 8, 6);
	for (i = 0; i < 2; i++) {
		const struct neuronprof_notification *n;

		n = ring_at(&stalled->ring, (cap + i) * ENTRY);

		KUNIT_EXPECT_EQ(test, n->seq, cap + 4 + i);
		KUNIT_EXPECT_EQ(test, n->code, 300U + (u32)i);
		KUNIT_EXPECT_EQ(test, n->queue_type, (u16)NEURONPROF_QT_TRACE);
		KUNIT_EXPECT_EQ(test, n->payload[3], 4 * i);
	}
}

static void unplug_test_start_error(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct drm_neuronprof_nq_subscribe bad = sub_base;
	struct nprof_sub *sub;

	ctx->start_ret = -EIO;
	KUNIT_EXPECT_EQ(test, PTR_ERR(tp_subscribe(test, ctx->ndev, &sub_base)), -EIO);
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 1), NPROF_NOTIFY_UNSUBSCRIBED);
	/* Invalid arguments fail before the provider is asked. */
	ctx->start_ret = 0;
	bad.ring_size = 3 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, PTR_ERR(tp_subscribe(test, ctx->ndev, &bad)), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 0);
	/* The failed subscription did not keep the queue. */
	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->stops), 0);
}

static void unplug_test_live_subscription(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct neuronprof_nq_drain d = {};
	struct nprof_sub *sub;
	unsigned int refs;
	u64 prod;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 1), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 2), NPROF_NOTIFY_DELIVERED);
	prod = sub->ring.prod;

	nprof_device_unregister(ctx->ndev);
	ctx->unregistered = true;

	KUNIT_EXPECT_TRUE(test, READ_ONCE(sub->ring.hdr->flags) & NEURONPROF_RING_DEAD);
	KUNIT_EXPECT_EQ(test, nprof_sub_poll_mask(sub) & (EPOLLHUP | EPOLLERR),
			(__poll_t)(EPOLLHUP | EPOLLERR));
	/* What was delivered stays readable. */
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(sub) & EPOLLIN);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->code, 1U);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, ENTRY)->code, 2U);

	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 3), NPROF_NOTIFY_UNSUBSCRIBED);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sub->ring.hdr->producer_pos), prod);
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -ENODEV);
	KUNIT_EXPECT_EQ(test, PTR_ERR(tp_subscribe(test, ctx->ndev, &sub_base)), -ENODEV);

	/*
	 * Releasing the subscription drops its device reference and never
	 * calls the provider of a gone device.
	 */
	refs = kref_read(&ctx->ndev->drm.ref);
	KUNIT_EXPECT_GE(test, refs, 2U);
	tp_unsubscribe(test, sub);
	KUNIT_EXPECT_EQ(test, kref_read(&ctx->ndev->drm.ref), refs - 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->stops), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->flushes), 0);
}

/* Every subscription of a queue dies with the device; each is released on its own. */
static void unplug_test_live_subscribers(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_sub *subs[3];
	int i;

	for (i = 0; i < 3; i++) {
		subs[i] = tp_subscribe(test, ctx->ndev, &sub_base);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, subs[i]);
	}
	/* One leaves before the device does. */
	tp_unsubscribe(test, subs[1]);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 1), NPROF_NOTIFY_DELIVERED);

	nprof_device_unregister(ctx->ndev);
	ctx->unregistered = true;

	for (i = 0; i < 3; i += 2) {
		KUNIT_EXPECT_TRUE(test, READ_ONCE(subs[i]->ring.hdr->flags) & NEURONPROF_RING_DEAD);
		KUNIT_EXPECT_EQ(test, nprof_sub_poll_mask(subs[i]) & (EPOLLHUP | EPOLLERR),
				(__poll_t)(EPOLLHUP | EPOLLERR));
		KUNIT_EXPECT_EQ(test, ring_at(&subs[i]->ring, 0)->code, 1U);
	}
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 2), NPROF_NOTIFY_UNSUBSCRIBED);
	tp_unsubscribe(test, subs[2]);
	tp_unsubscribe(test, subs[0]);
	/* The provider of a gone device is never called again. */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->stops), 0);
}

/* The device goes away with its parent while a subscription outlives both. */
static void unplug_test_parent_gone_first(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_sub *sub;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 7), NPROF_NOTIFY_DELIVERED);

	nprof_device_unregister(ctx->ndev);
	ctx->unregistered = true;
	/* The parent's managed reference to the DRM device goes here. */
	KUNIT_EXPECT_EQ(test, kref_read(&ctx->ndev->drm.ref), 2U);
	root_device_unregister(ctx->parent);
	KUNIT_EXPECT_EQ(test, kref_read(&ctx->ndev->drm.ref), 1U);
	ctx->parent = root_device_register("neuronprof_kunit");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->parent);

	/* The ring is still there; the last put frees the device (KASAN watches). */
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->code, 7U);
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(sub) & EPOLLHUP);
	tp_unsubscribe(test, sub);
}

static void unplug_test_drain(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct neuronprof_nq_drain d;
	struct nprof_sub *sub;
	int i;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, i), NPROF_NOTIFY_DELIVERED);

	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_FLUSH };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->flushes), 1);
	KUNIT_EXPECT_EQ(test, d.producer_pos, 5 * ENTRY);
	KUNIT_EXPECT_EQ(test, d.consumer_pos, 0ULL);
	KUNIT_EXPECT_EQ(test, d.lost, 0ULL);
	KUNIT_EXPECT_EQ(test, d.ring_flags, 0U);

	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_RELEASE,
					  .release_pos = 2 * ENTRY };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), 0);
	KUNIT_EXPECT_EQ(test, d.consumer_pos, 2 * ENTRY);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sub->ring.cons_page->consumer_pos), 2 * ENTRY);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->flushes), 1);

	/* release_pos: behind the consumer, past the producer, misaligned. */
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_RELEASE, .release_pos = ENTRY };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_RELEASE,
					  .release_pos = 6 * ENTRY };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_RELEASE,
					  .release_pos = 3 * ENTRY + 8 };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, sub->ring.cons, 2 * ENTRY);
	/* Malformed arguments. */
	d = (struct neuronprof_nq_drain){ .release_pos = 3 * ENTRY };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	d = (struct neuronprof_nq_drain){ .flags = BIT(2) };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	d = (struct neuronprof_nq_drain){ .pad = 1 };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);
	d = (struct neuronprof_nq_drain){ .pad2 = 1 };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EINVAL);

	/* Release everything. */
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_RELEASE,
					  .release_pos = 5 * ENTRY };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), 0);
	KUNIT_EXPECT_EQ(test, d.consumer_pos, 5 * ENTRY);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(sub) & EPOLLIN);

	/* The provider's flush error comes back as is. */
	ctx->flush_ret = -EIO;
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_FLUSH };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EIO);
}

static void unplug_test_drain_no_flush(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_device_desc desc = test_desc;
	struct neuronprof_nq_drain d = { .flags = NEURONPROF_DRAIN_FLUSH };
	struct nprof_sub *sub;

	desc.caps = 0;
	ctx->ndev_noflush = tp_register(ctx->parent, &desc, &tp_ops_noflush, ctx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->ndev_noflush);
	sub = tp_subscribe(test, ctx->ndev_noflush, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), -EOPNOTSUPP);
	d = (struct neuronprof_nq_drain){};
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(sub, &d), 0);
	/* Two devices, two indexes. */
	KUNIT_EXPECT_NE(test, ctx->ndev_noflush->index, ctx->ndev->index);
}

static void unplug_test_flushed_wakes(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct drm_neuronprof_nq_subscribe core0 = sub_base, topsp2 = sub_base,
					   topsp3 = sub_base, core1 = sub_base;
	struct nprof_sub *s_core0, *s_topsp2, *s_topsp3, *s_core1;
	struct neuronprof_nq_drain d;

	core0.watermark = 4 * ENTRY;
	topsp2 = core0;
	topsp2.target_kind = NEURONPROF_TARGET_TOPSP;
	topsp2.target_index = 2;	/* the last TopSP of core 0 */
	topsp2.queue_type = NEURONPROF_QT_TOPSP_EVENT;
	topsp3 = topsp2;
	topsp3.target_index = 3;	/* the first TopSP of core 1 */
	core1 = core0;
	core1.target_index = 1;

	s_core0 = tp_subscribe(test, ctx->ndev, &core0);
	s_topsp2 = tp_subscribe(test, ctx->ndev, &topsp2);
	s_topsp3 = tp_subscribe(test, ctx->ndev, &topsp3);
	s_core1 = tp_subscribe(test, ctx->ndev, &core1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s_core0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s_topsp2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s_topsp3);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s_core1);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &core0, 1), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &topsp2, 1), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &topsp3, 1), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &core1, 1), NPROF_NOTIFY_DELIVERED);
	/* One entry is below the watermark of four. */
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_core0) & EPOLLIN);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_topsp2) & EPOLLIN);

	nprof_queues_flushed(ctx->ndev, 0);
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(s_core0) & EPOLLIN);
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(s_topsp2) & EPOLLIN);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_topsp3) & EPOLLIN);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_core1) & EPOLLIN);

	/* Once consumed past the flush, the watermark rules again. */
	smp_store_release(&s_core0->ring.cons_page->consumer_pos, ENTRY);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_core0) & EPOLLIN);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &core0, 2), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_core0) & EPOLLIN);

	/* NQ_DRAIN with FLUSH does the same for one queue. */
	d = (struct neuronprof_nq_drain){ .flags = NEURONPROF_DRAIN_FLUSH };
	KUNIT_EXPECT_EQ(test, nprof_sub_drain(s_core1, &d), 0);
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(s_core1) & EPOLLIN);

	/* Out-of-range cores are ignored. */
	nprof_queues_flushed(ctx->ndev, 2);
	nprof_queues_flushed(ctx->ndev, U32_MAX);
	KUNIT_EXPECT_FALSE(test, nprof_sub_poll_mask(s_topsp3) & EPOLLIN);
}

struct tp_irq {
	struct hrtimer timer;
	struct nprof_drmdev *ndev;
	enum nprof_notify_result res;
	bool hardirq;
	struct completion done;
};

static enum hrtimer_restart tp_irq_fire(struct hrtimer *timer)
{
	struct tp_irq *irq = container_of(timer, struct tp_irq, timer);
	const struct nprof_queue_id q = {
		sub_base.target_kind, sub_base.target_index, sub_base.queue_type,
		sub_base.engine
	};
	struct neuronprof_notification n = { .code = 99 };

	irq->hardirq = in_hardirq();
	irq->res = nprof_notify(irq->ndev, &q, &n, false);
	complete(&irq->done);
	return HRTIMER_NORESTART;
}

/* The producer path from hard IRQ context (lockdep checks the locking). */
static void unplug_test_notify_hardirq(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct tp_irq irq = { .ndev = ctx->ndev, .res = NPROF_NOTIFY_UNSUBSCRIBED };
	struct nprof_sub *sub;
	unsigned long left;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);

	init_completion(&irq.done);
	hrtimer_init_on_stack(&irq.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	irq.timer.function = tp_irq_fire;
	hrtimer_start(&irq.timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
	left = wait_for_completion_timeout(&irq.done, 10 * HZ);
	hrtimer_cancel(&irq.timer);
	destroy_hrtimer_on_stack(&irq.timer);

	KUNIT_ASSERT_NE(test, left, 0UL);
	KUNIT_EXPECT_TRUE(test, irq.hardirq);
	KUNIT_EXPECT_EQ(test, irq.res, NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, ring_at(&sub->ring, 0)->code, 99U);
	KUNIT_EXPECT_TRUE(test, nprof_sub_poll_mask(sub) & EPOLLIN);
	/* And from process context with the same lock afterwards. */
	KUNIT_EXPECT_EQ(test, tp_notify(ctx->ndev, &sub_base, 100), NPROF_NOTIFY_DELIVERED);
}

static void unplug_test_register_rejects(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_device_desc desc = test_desc;

	KUNIT_EXPECT_EQ(test, PTR_ERR(nprof_device_alloc(NULL, &test_desc, &tp_ops, ctx)),
			-EINVAL);
	desc.num_cores = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(nprof_device_alloc(ctx->parent, &desc, &tp_ops, ctx)),
			-EINVAL);
	/* The accessors of a registered device. */
	KUNIT_EXPECT_PTR_EQ(test, nprof_device_priv(ctx->ndev), (void *)ctx);
	KUNIT_EXPECT_EQ(test, nprof_device_desc(ctx->ndev)->num_topsps, test_desc.num_topsps);
	KUNIT_EXPECT_STREQ(test, nprof_device_desc(ctx->ndev)->provider, "kunit");
	KUNIT_EXPECT_PTR_NE(test, nprof_device_desc(ctx->ndev)->provider, test_desc.provider);
}

/* The name table is the device's own copy: the provider's may go away. */
static void unplug_test_code_names_copied(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_device_desc desc = test_desc;
	const struct nprof_device_desc *d;
	struct neuronprof_code_name *names;
	struct nprof_drmdev *ndev;

	names = kunit_kcalloc(test, 2, sizeof(*names), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, names);
	names[0] = (struct neuronprof_code_name){ NEURONPROF_QT_TRACE, 0x100, "matmult" };
	names[1] = (struct neuronprof_code_name){ NEURONPROF_QT_TOPSP_TRACE, 0x7f01, "collective" };
	desc.code_names = names;
	desc.num_code_names = 2;
	ndev = nprof_device_alloc(ctx->parent, &desc, &tp_ops, ctx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ndev);
	memset(names, 0xff, 2 * sizeof(*names));
	d = nprof_device_desc(ndev);
	KUNIT_EXPECT_PTR_NE(test, (const void *)d->code_names, (const void *)names);
	KUNIT_ASSERT_EQ(test, d->num_code_names, 2U);
	KUNIT_EXPECT_EQ(test, d->code_names[1].queue_type, (u32)NEURONPROF_QT_TOPSP_TRACE);
	KUNIT_EXPECT_EQ(test, d->code_names[1].code, 0x7f01U);
	KUNIT_EXPECT_STREQ(test, d->code_names[0].name, "matmult");
	nprof_device_free(ndev);
}

/*
 * An allocated device is invisible until published: no render node, no op
 * called, producers harmless; dropped unpublished, it takes its index along.
 */
static void unplug_test_alloc_unpublished(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_drmdev *ndev;
	int index;

	ndev = nprof_device_alloc(ctx->parent, &test_desc, &tp_ops, ctx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ndev);
	KUNIT_EXPECT_PTR_EQ(test, nprof_device_priv(ndev), (void *)ctx);
	KUNIT_EXPECT_FALSE(test, ndev->published);
	KUNIT_EXPECT_FALSE(test, drm_dev_is_unplugged(&ndev->drm));
	KUNIT_EXPECT_TRUE(test, !ndev->drm.render || !ndev->drm.render->kdev ||
			  !device_is_registered(ndev->drm.render->kdev));
	KUNIT_EXPECT_EQ(test, tp_notify(ndev, &sub_base, 1), NPROF_NOTIFY_UNSUBSCRIBED);
	index = ndev->index;
	nprof_device_free(ndev);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->starts), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->flushes), 0);

	/* Published, the same parent gets a render node and the index again. */
	ndev = tp_register(ctx->parent, &test_desc, &tp_ops, ctx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ndev);
	KUNIT_EXPECT_TRUE(test, ndev->published);
	KUNIT_EXPECT_EQ(test, ndev->index, index);
	KUNIT_EXPECT_TRUE(test, ndev->drm.render && device_is_registered(ndev->drm.render->kdev));
	nprof_device_unregister(ndev);
}

/* read(): claims copy under the lock and never hand out an entry twice. */
static void unplug_test_read_claim(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct neuronprof_notification buf[4];
	struct nprof_sub *sub;
	u64 start, len;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	KUNIT_EXPECT_EQ(test, nprof_sub_read_claim(sub, buf, sizeof(buf), &start), 0ULL);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 10), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 11), NPROF_NOTIFY_DELIVERED);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 12), NPROF_NOTIFY_DELIVERED);

	/* Two claims in flight take disjoint entries. */
	len = nprof_sub_read_claim(sub, buf, 2 * NPROF_ENTRY_SIZE, &start);
	KUNIT_EXPECT_EQ(test, len, 2 * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, start, 0ULL);
	KUNIT_EXPECT_EQ(test, buf[0].code, 10U);
	KUNIT_EXPECT_EQ(test, buf[1].code, 11U);
	len = nprof_sub_read_claim(sub, &buf[2], 2 * NPROF_ENTRY_SIZE, &start);
	KUNIT_EXPECT_EQ(test, len, (u64)NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, start, 2 * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, buf[2].code, 12U);

	/* The later claim failed: given back, the entry is read again. */
	nprof_sub_read_commit(sub, start, len, false);
	KUNIT_EXPECT_EQ(test, sub->read_pos, 2 * NPROF_ENTRY_SIZE);
	nprof_sub_read_commit(sub, 0, 2 * NPROF_ENTRY_SIZE, true);
	KUNIT_EXPECT_EQ(test, sub->ring.cons, 2 * NPROF_ENTRY_SIZE);

	/*
	 * A release (NQ_DRAIN or the consumer page) past a claim: the claim's
	 * copy is already safe in its buffer, its commit does not move the
	 * consumer back, and the next claim starts at the new consumer.
	 */
	len = nprof_sub_read_claim(sub, buf, sizeof(buf), &start);
	KUNIT_EXPECT_EQ(test, len, (u64)NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, buf[0].code, 12U);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 13), NPROF_NOTIFY_DELIVERED);
	nprof_kring_consume(&sub->ring, 4 * NPROF_ENTRY_SIZE);
	nprof_sub_read_commit(sub, start, len, true);
	KUNIT_EXPECT_EQ(test, sub->ring.cons, 4 * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, nprof_sub_read_claim(sub, buf, sizeof(buf), &start), 0ULL);
	KUNIT_ASSERT_EQ(test, tp_notify(ctx->ndev, &sub_base, 14), NPROF_NOTIFY_DELIVERED);
	KUNIT_EXPECT_EQ(test, nprof_sub_read_claim(sub, buf, sizeof(buf), &start),
			(u64)NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, start, 4 * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, buf[0].code, 14U);
}

/* The fault handler's pages: the buffer's own, nothing past it. */
static void unplug_test_fault_pages(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct nprof_sub *sub;
	struct page *page;
	pgoff_t pg, pages;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	pages = NPROF_DATA_PGOFF + sub_base.ring_size / PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, sub->mem_size, (u64)pages * PAGE_SIZE);
	for (pg = 0; pg < pages; pg++) {
		page = NULL;
		KUNIT_EXPECT_EQ(test, nprof_sub_fault_page(sub, pg, &page), (vm_fault_t)0);
		KUNIT_EXPECT_PTR_EQ(test, page, vmalloc_to_page(sub->mem + pg * PAGE_SIZE));
	}
	KUNIT_EXPECT_EQ(test, nprof_sub_fault_page(sub, pages, &page), VM_FAULT_SIGBUS);
	KUNIT_EXPECT_EQ(test, nprof_sub_fault_page(sub, ULONG_MAX, &page), VM_FAULT_SIGBUS);
}

/* A ring is charged to its subscriber's user while it exists. */
static void unplug_test_ring_charged(struct kunit *test)
{
	struct tp_ctx *ctx = test->priv;
	struct user_struct *user = current_user();
	long before = atomic_long_read(&user->locked_vm);
	u64 pages = NPROF_DATA_PGOFF + sub_base.ring_size / PAGE_SIZE;
	struct nprof_sub *more[NEURONPROF_MAX_SUBSCRIBERS];
	struct nprof_sub *sub;
	long charged;
	int i;

	sub = tp_subscribe(test, ctx->ndev, &sub_base);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sub);
	charged = sub->charge.user_pages;
	KUNIT_EXPECT_PTR_EQ(test, sub->charge.user, user);
	KUNIT_EXPECT_EQ(test, sub->charge.user_pages + sub->charge.pinned_pages, pages);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->locked_vm) - before,
			(long)sub->charge.user_pages);
	/* Each subscription of a queue is charged for its own ring. */
	for (i = 1; i < NEURONPROF_MAX_SUBSCRIBERS; i++) {
		more[i] = tp_subscribe(test, ctx->ndev, &sub_base);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, more[i]);
		charged += more[i]->charge.user_pages;
		KUNIT_EXPECT_EQ(test, more[i]->charge.user_pages + more[i]->charge.pinned_pages,
				pages);
	}
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->locked_vm) - before, charged);
	/* A full queue is refused before anything is allocated or charged. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(tp_subscribe(test, ctx->ndev, &sub_base)), -EBUSY);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->locked_vm) - before, charged);
	for (i = 1; i < NEURONPROF_MAX_SUBSCRIBERS; i++)
		tp_unsubscribe(test, more[i]);
	tp_unsubscribe(test, sub);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&user->locked_vm), before);
}

/* nprof_charge_split(): the allowance first, the rest against the rlimit. */
static void unplug_test_charge_split(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, nprof_charge_split(0, 10, 100), 0ULL);
	KUNIT_EXPECT_EQ(test, nprof_charge_split(95, 10, 100), 5ULL);
	KUNIT_EXPECT_EQ(test, nprof_charge_split(90, 10, 100), 0ULL);
	KUNIT_EXPECT_EQ(test, nprof_charge_split(100, 10, 100), 10ULL);
	/* Over an allowance that was lowered: nothing more from it. */
	KUNIT_EXPECT_EQ(test, nprof_charge_split(150, 10, 100), 10ULL);
	KUNIT_EXPECT_EQ(test, nprof_charge_split(0, 10, 0), 10ULL);
	KUNIT_EXPECT_EQ(test, nprof_charge_split(0, 0, 0), 0ULL);
}

/* ---- a queue's handle ---------------------------------------------------- */

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

struct kunit_case nprof_unplug_cases[] = {
	KUNIT_CASE(unplug_test_subscribe_notify_release),
	KUNIT_CASE(unplug_test_notify_alias),
	KUNIT_CASE(qh_test_unsubscribe),
	KUNIT_CASE(qh_test_unplug),
	KUNIT_CASE(qh_test_alias),
	KUNIT_CASE(unplug_test_subscriber_limit),
	KUNIT_CASE(unplug_test_fanout_stalled),
	KUNIT_CASE(unplug_test_fanout_span_room),
	KUNIT_CASE(unplug_test_start_error),
	KUNIT_CASE(unplug_test_live_subscription),
	KUNIT_CASE(unplug_test_live_subscribers),
	KUNIT_CASE(unplug_test_parent_gone_first),
	KUNIT_CASE(unplug_test_drain),
	KUNIT_CASE(unplug_test_drain_no_flush),
	KUNIT_CASE(unplug_test_flushed_wakes),
	KUNIT_CASE(unplug_test_notify_hardirq),
	KUNIT_CASE(unplug_test_register_rejects),
	KUNIT_CASE(unplug_test_code_names_copied),
	KUNIT_CASE(unplug_test_alloc_unpublished),
	KUNIT_CASE(unplug_test_read_claim),
	KUNIT_CASE(unplug_test_fault_pages),
	KUNIT_CASE(unplug_test_ring_charged),
	KUNIT_CASE(unplug_test_charge_split),
	{}
};
