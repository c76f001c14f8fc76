// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_neuron_dma: queues in device memory read by the
 * vendor's DMA copy (devmem_read=dma, driver/neuron/head_write.c). The
 * fake neuron.ko hands the hook its ring as the BAR4 mapping; this suite
 * plays the hook's neuron_nq_hook_dma_read() over it, checking what the
 * hook checks (the queue announced, no read past the ring's end, a
 * buffer in the linear map) and failing a copy when told to, and counts
 * any memcpy_fromio() read, which devmem_read=dma must not make. Every
 * case checks that each consumed entry arrived once, in order, with the
 * device's bytes, or was counted lost.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/io.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "neuronprof_neuron_test_util.h"
#include "neuronprof_packed_walk.h"

static atomic_t nn_dma_calls, nn_dma_wraps, nn_dma_fromio, nn_dma_atomic;
static atomic64_t nn_dma_bytes;
/* The copy that fails (counting from 1), 0 for none. */
static atomic_t nn_dma_fail_at;
static u32 nn_dma_ring_size;

/* The hook's neuron_nq_hook_dma_read(), on the fake's "device memory". */
static int nn_dma_read(const struct neuron_nq_hook_dev *d, const struct neuron_nq_hook_qid *qid,
		       const void __iomem *io, u32 off, void *buf, u32 len)
{
	int call = atomic_inc_return(&nn_dma_calls);

	/* The copy waits for an engine: never inside a span (interrupts off). */
	if (irqs_disabled())
		atomic_inc(&nn_dma_atomic);

	if (!d || !qid || !io || !len || off >= nn_dma_ring_size ||
	    len > nn_dma_ring_size - off || !virt_addr_valid(buf) ||
	    !virt_addr_valid((u8 *)buf + len - 1))
		return -EINVAL;
	if (call == atomic_read(&nn_dma_fail_at)) {
		/* What a failed engine leaves: not the ring's bytes. */
		memset(buf, 0xa5, len);
		return -EIO;
	}
	if (off + len == nn_dma_ring_size)
		atomic_inc(&nn_dma_wraps);
	atomic64_add(len, &nn_dma_bytes);
	memcpy(buf, (__force const u8 *)io + off, len);
	return 0;
}

/* devmem_read=dma must not read through BAR4. */
static void nn_dma_fromio_read(void *dst, const void __iomem *src, size_t len)
{
	atomic_inc(&nn_dma_fromio);
	memcpy(dst, (__force const void *)src, len);
}

static int nn_dma_init(struct kunit *test)
{
	int ret = nn_init(test);

	if (ret)
		return ret;
	atomic_set(&nn_dma_calls, 0);
	atomic_set(&nn_dma_wraps, 0);
	atomic_set(&nn_dma_fromio, 0);
	atomic_set(&nn_dma_atomic, 0);
	atomic_set(&nn_dma_fail_at, 0);
	atomic64_set(&nn_dma_bytes, 0);
	WRITE_ONCE(nprof_nn_io_read, nn_dma_fromio_read);
	WRITE_ONCE(nprof_nn_dma_read, nn_dma_read);
	WRITE_ONCE(nprof_nn_devmem_read, NPROF_NN_DEVMEM_DMA);
	nprof_fake_set_devmem_io(true);
	return 0;
}

static void nn_dma_exit(struct kunit *test)
{
	nn_exit(test);
	nprof_fake_set_devmem_io(false);
	WRITE_ONCE(nprof_nn_devmem_read, NPROF_NN_DEVMEM_FROMIO);
	WRITE_ONCE(nprof_nn_dma_read, NULL);
	WRITE_ONCE(nprof_nn_io_read, NULL);
}

/* A trn1-like device, a subscription and a TRACE queue of @size bytes in device memory. */
static int nn_dma_setup(struct kunit *test, u32 size)
{
	nn_dma_ring_size = size;
	return nn_devmem_queue(test, NEURONPROF_QT_TRACE, 16 * PAGE_SIZE, size);
}

/*
 * Head writes of a 64-entry device-memory ring, 250 entries across its
 * wraps: each arrives once, in order, read by the DMA copy (a wrapping
 * round in two copies, none past the ring's end) with interrupts on,
 * exactly the consumed bytes, and nothing through BAR4.
 */
static void nn_dma_delivers_consumed(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	int q = nn_dma_setup(test, 64 * 64);

	nn_wrap_rounds(test, q);
	KUNIT_EXPECT_EQ(test, ctx->sub[0]->ring.lost, 0ULL);
	KUNIT_EXPECT_EQ(test, nn_check_parts(test, q, 0, 0, 0), 500ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nn_dma_bytes), 250LL * 64);
	/* 250 entries wrap the 64-entry ring 3 times; some head writes straddle a wrap. */
	KUNIT_EXPECT_GE(test, atomic_read(&nn_dma_wraps), 1);
	KUNIT_EXPECT_GT(test, atomic_read(&nn_dma_calls), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&nn_dma_fromio), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&nn_dma_atomic), 0);
}

/*
 * A copy that fails: its round's entries are counted lost, none of the
 * bytes the failed engine left is delivered, and the next head write
 * goes on with the entries after them (delivered + lost = consumed).
 */
static void nn_dma_failed_copy_counts_lost(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	int q = nn_dma_setup(test, 64 * 64);
	u64 from;

	nn_head_write(test, q, 40);
	KUNIT_ASSERT_EQ(test, ctx->sub[0]->ring.lost, 0ULL);
	KUNIT_EXPECT_EQ(test, nn_check_parts(test, q, 0, 0, 0), 80ULL);
	from = ctx->sub[0]->ring.prod;
	/* The next copy fails (entries 40..69, a round that wraps): 60 parts lost, none written. */
	atomic_set(&nn_dma_fail_at, atomic_read(&nn_dma_calls) + 1);
	nn_head_write(test, q, 30);
	KUNIT_EXPECT_EQ(test, ctx->sub[0]->ring.lost, 60ULL);
	KUNIT_EXPECT_EQ(test, ctx->sub[0]->ring.prod, from);
	/* Then 20 more (entries 70..89): delivered, after the lost ones' sequence numbers. */
	nn_head_write(test, q, 20);
	KUNIT_EXPECT_EQ(test, nn_check_parts(test, q, from, 140, 70), 40ULL);
	KUNIT_EXPECT_EQ(test, ctx->sub[0]->ring.lost, 60ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&nn_dma_fromio), 0);
}

static struct kunit_case nn_dma_cases[] = {
	KUNIT_CASE(nn_dma_delivers_consumed),
	KUNIT_CASE(nn_dma_failed_copy_counts_lost),
	{}
};

static struct kunit_suite nn_dma_suite = {
	.name = "neuronprof_neuron_dma", .init = nn_dma_init, .exit = nn_dma_exit,
	.test_cases = nn_dma_cases,
};

kunit_test_suite(nn_dma_suite);
