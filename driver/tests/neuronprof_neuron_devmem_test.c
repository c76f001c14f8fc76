// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite neuronprof_neuron_devmem: queues in device memory, read by
 * the provider (driver/neuron/provider.c) through BAR4. The fake neuron.ko
 * hands the hook its ring as the BAR4 mapping, and the provider reads it
 * through this suite's read function, which checks the context of every
 * read: device memory is read with interrupts on, outside the spans a
 * copy holds a subscription's lock in (uncached reads over PCIe are slow,
 * and such a span is bounded to 50 us). Every case also checks that each
 * consumed entry arrived once, in order, with the device's bytes.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/irqflags.h>
#include <linux/sizes.h>

#include "neuronprof_neuron_test_util.h"
#include "neuronprof_packed_walk.h"

static atomic_t nn_dm_reads, nn_dm_atomic_reads;
static atomic64_t nn_dm_bytes;

/*
 * The fake BAR4 (the fake's "device memory" is host memory, which UML's
 * memcpy_fromio() cannot read): counts reads, and those made with
 * interrupts off (as under a subscription's lock).
 */
static void nn_dm_read(void *dst, const void __iomem *src, size_t len)
{
	atomic_inc(&nn_dm_reads);
	atomic64_add(len, &nn_dm_bytes);
	if (irqs_disabled())
		atomic_inc(&nn_dm_atomic_reads);
	memcpy(dst, (__force const void *)src, len);
}

/* The fixture's, with this suite's read function and the fake's BAR4. */
int nn_dm_init(struct kunit *test)
{
	int ret = nn_init(test);

	if (ret)
		return ret;
	atomic_set(&nn_dm_reads, 0);
	atomic_set(&nn_dm_atomic_reads, 0);
	atomic64_set(&nn_dm_bytes, 0);
	WRITE_ONCE(nprof_nn_io_read, nn_dm_read);
	nprof_fake_set_devmem_io(true);
	return 0;
}

void nn_dm_exit(struct kunit *test)
{
	nn_exit(test);
	nprof_fake_set_devmem_io(false);
	WRITE_ONCE(nprof_nn_io_read, NULL);
}

/*
 * Head writes of a device-memory queue, across its wrap: every read of
 * device memory happens with interrupts on, not in atomic context, and
 * the entries arrive in order.
 */
static void nn_dm_reads_with_irqs_on(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	int q = nn_devmem_queue(test, NEURONPROF_QT_TRACE, 16 * PAGE_SIZE, 64 * 64);

	nn_wrap_rounds(test, q);
	KUNIT_EXPECT_EQ(test, ctx->sub[0]->ring.lost, 0ULL);
	KUNIT_EXPECT_EQ(test, nn_check_parts(test, q, 0, 0, 0), 500ULL);
	KUNIT_EXPECT_GE(test, atomic_read(&nn_dm_reads), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&nn_dm_atomic_reads), 0);
}

/*
 * One head write of 1000 entries: rounds of NPROF_NN_SPAN * 32 device
 * bytes, one of which meets the end of the neuronprof ring's data area and
 * takes fewer entries than it read; the rest is read again in the next round
 * (so more bytes are read than consumed), and nothing arrives twice or
 * out of order.
 */
static void nn_dm_short_span_read_again(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	/*
	 * 64 KiB of device ring (1024 entries), a 64 KiB neuronprof ring
	 * (1024 ring entries): 100 device entries are one record of 101
	 * ring entries, 1000 more are rounds of 256 (records of 257), the
	 * fourth of which meets the data area's end with room for 151.
	 */
	int q = nn_devmem_queue(test, NEURONPROF_QT_TRACE, 16 * PAGE_SIZE, SZ_64K);
	u64 from;

	nn_head_write(test, q, 100);
	KUNIT_ASSERT_EQ(test, ctx->sub[0]->ring.prod, 101 * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, nn_check_parts(test, q, 0, 0, 0), 200ULL);
	from = ctx->sub[0]->ring.prod;
	/* The reader read them: publishes the consumer position as a reader does. */
	smp_store_release(&ctx->sub[0]->ring.cons_page->consumer_pos, from);
	atomic64_set(&nn_dm_bytes, 0);
	KUNIT_ASSERT_GT(test, from + (1000 + 4) * NPROF_ENTRY_SIZE, ctx->sub[0]->ring.size);
	nn_head_write(test, q, 1000);
	KUNIT_EXPECT_EQ(test, ctx->sub[0]->ring.lost, 0ULL);
	KUNIT_EXPECT_EQ(test, nn_check_parts(test, q, from, 200, 100), 2000ULL);
	/* A short span: some entries were read twice. */
	KUNIT_EXPECT_GT(test, atomic64_read(&nn_dm_bytes), 1000LL * 64);
	KUNIT_EXPECT_EQ(test, atomic_read(&nn_dm_atomic_reads), 0);
}

/*
 * A head write while the neuronprof ring is full: the rounds that can
 * only count losses read nothing from device memory (on hardware each
 * such round would cost 16 KiB of uncached reads for nothing): two rounds
 * are read, the one that fills the ring and the first that finds it full.
 */
static void nn_dm_full_ring_reads_nothing(struct kunit *test)
{
	struct nn_ctx *ctx = test->priv;
	/* A one-page ring: 64 ring entries, 32 device entries of 64 bytes. */
	int q = nn_devmem_queue(test, NEURONPROF_QT_TRACE, PAGE_SIZE, SZ_64K);
	u64 ring_entries = PAGE_SIZE / NPROF_ENTRY_SIZE, from;

	nn_head_write(test, q, 1000);
	/* delivered + lost = consumed, in 32-byte parts; the first ones arrived. */
	KUNIT_EXPECT_EQ(test, ctx->sub[0]->ring.prod, ring_entries * NPROF_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, nn_check_parts(test, q, 0, 0, 0) + ctx->sub[0]->ring.lost, 2000ULL);
	KUNIT_EXPECT_LE(test, atomic64_read(&nn_dm_bytes),
			2LL * NPROF_NN_SPAN * NEURONPROF_RAW_BYTES_PER_ENTRY);
	KUNIT_EXPECT_EQ(test, atomic_read(&nn_dm_atomic_reads), 0);
	/* Room again (the reader read them all): the next head write reads and delivers. */
	from = ctx->sub[0]->ring.prod;
	/* The reader read them all: publishes its position as a reader does. */
	smp_store_release(&ctx->sub[0]->ring.cons_page->consumer_pos, from);
	nn_head_write(test, q, 10);
	/* One record: a header and the 10 entries. */
	KUNIT_EXPECT_EQ(test, ctx->sub[0]->ring.prod, from + 11 * NPROF_ENTRY_SIZE);
}

struct kunit_case nn_dm_cases[] = {
	KUNIT_CASE(nn_dm_reads_with_irqs_on),
	KUNIT_CASE(nn_dm_short_span_read_again),
	KUNIT_CASE(nn_dm_full_ring_reads_nothing),
	{}
};
