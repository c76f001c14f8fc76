// SPDX-License-Identifier: GPL-2.0
/*
 * mmap of a subscription: the three areas at the offsets NQ_SUBSCRIBE
 * returned, their protections (header and data read-only for good, the
 * consumer page read-write), what a fresh ring looks like, and one test per
 * rejected mapping.
 */
#include "nprof_test.h"

#define PROG 3
#define DEV_ID NPROF_TEST_ID(PROG, 0)

FIXTURE(mmap) {
	struct nprof_dev dev;
	struct drm_neuronprof_nq_subscribe sub;
	int fd;
	long page;
};

FIXTURE_SETUP(mmap)
{
	struct selftest_queue q = { NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0 };
	__u64 size;

	self->fd = -1;
	self->page = nprof_page_size();
	SETUP_SIM_DEV(&self->dev, DEV_ID, NULL);
	/* Several pages, so that part of the data area can be asked for. */
	size = self->dev.info.min_ring_size;
	while (size < 4 * (__u64)self->page && size < self->dev.info.max_ring_size)
		size *= 2;
	self->fd = nprof_subscribe_q(self->dev.fd, &q, size, 0, &self->sub);
	ASSERT_LE(0, self->fd) TH_LOG("subscribe: %s", strerror(-self->fd));
}

FIXTURE_TEARDOWN(mmap)
{
	if (self->fd >= 0)
		close(self->fd);
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

static void *map(FIXTURE_DATA(mmap) *self, __u64 len, int prot, int flags,
		 __u64 off)
{
	return mmap(NULL, len, prot, flags, self->fd, (off_t)off);
}

static bool all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* Assert that mmap fails with @err. */
#define ASSERT_MAP_FAILS(err, len, prot, flags, off) do {		\
	void *__p = map(self, (len), (prot), (flags), (off));		\
	int __e = errno;						\
	if (__p != MAP_FAILED)						\
		munmap(__p, (len));					\
	ASSERT_TRUE(__p == MAP_FAILED)					\
		TH_LOG("mmap(len %llu, off %llu) succeeded, expected %s", \
		       (unsigned long long)(len), (unsigned long long)(off), \
		       strerror(err));					\
	ASSERT_EQ((err), __e) TH_LOG("mmap: %s, expected %s",		\
				     strerror(__e), strerror(err));	\
} while (0)

TEST_F(mmap, fresh_ring_layout)
{
	const struct drm_neuronprof_nq_subscribe *s = &self->sub;
	const struct neuronprof_ring_header *h;
	struct neuronprof_ring_consumer *c;
	const unsigned char *d;

	h = map(self, s->header_size, PROT_READ, MAP_SHARED, s->header_offset);
	ASSERT_TRUE(h != MAP_FAILED) TH_LOG("header: %s", strerror(errno));
	c = map(self, s->consumer_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		s->consumer_offset);
	ASSERT_TRUE(c != MAP_FAILED) TH_LOG("consumer: %s", strerror(errno));
	d = map(self, s->data_size, PROT_READ, MAP_SHARED, s->data_offset);
	ASSERT_TRUE(d != MAP_FAILED) TH_LOG("data: %s", strerror(errno));

	EXPECT_EQ((__u32)NEURONPROF_RING_VERSION, h->version);
	EXPECT_LE((__u32)sizeof(*h), h->header_size);
	EXPECT_EQ(self->dev.info.entry_size, h->entry_size);
	EXPECT_EQ(0u, h->flags);
	EXPECT_EQ(s->ring_size, h->ring_size);
	EXPECT_EQ((__u32)NEURONPROF_QT_TRACE, h->queue_type);
	EXPECT_EQ((__u32)NEURONPROF_TARGET_CORE, h->target_kind);
	EXPECT_EQ(0u, h->target_index);
	EXPECT_EQ(0u, h->engine);
	EXPECT_TRUE(all_zero(h->reserved0, sizeof(h->reserved0)));
	EXPECT_EQ(0ull, h->producer_pos);
	EXPECT_EQ(0ull, h->lost);
	EXPECT_TRUE(all_zero(h->reserved1, sizeof(h->reserved1)));
	/* 64-bit positions are naturally aligned, for atomic access. */
	EXPECT_EQ(0u, offsetof(struct neuronprof_ring_header, producer_pos) % 8);
	EXPECT_EQ(0u, offsetof(struct neuronprof_ring_consumer, consumer_pos) % 8);
	/* Nothing of the kernel's memory shows in pages handed to userspace. */
	EXPECT_TRUE(all_zero((const char *)h + sizeof(*h),
			     s->header_size - sizeof(*h)))
		TH_LOG("header page has bytes beyond the header");
	EXPECT_TRUE(all_zero(c, s->consumer_size))
		TH_LOG("consumer page of a fresh ring is not zero");
	EXPECT_TRUE(all_zero(d, s->data_size))
		TH_LOG("data area of a fresh ring is not zero");

	/* The consumer page is writable and keeps what was written. */
	__atomic_store_n(&c->consumer_pos, 0, __ATOMIC_RELEASE);
	EXPECT_EQ(0ull, c->consumer_pos);

	munmap((void *)h, s->header_size);
	munmap(c, s->consumer_size);
	munmap((void *)d, s->data_size);
}

TEST_F(mmap, header_writable_eperm)
{
	ASSERT_MAP_FAILS(EPERM, self->sub.header_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, self->sub.header_offset);
}

TEST_F(mmap, data_writable_eperm)
{
	ASSERT_MAP_FAILS(EPERM, self->sub.data_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, self->sub.data_offset);
}

TEST_F(mmap, header_write_only_eperm)
{
	ASSERT_MAP_FAILS(EPERM, self->sub.header_size, PROT_WRITE, MAP_SHARED,
			 self->sub.header_offset);
}

/* A read-only mapping cannot be made writable later either. */
TEST_F(mmap, header_mprotect_writable_fails)
{
	void *p = map(self, self->sub.header_size, PROT_READ, MAP_SHARED,
		      self->sub.header_offset);

	ASSERT_TRUE(p != MAP_FAILED) TH_LOG("%s", strerror(errno));
	ASSERT_ERRNO(EACCES, mprotect(p, self->sub.header_size,
				      PROT_READ | PROT_WRITE));
	munmap(p, self->sub.header_size);
}

TEST_F(mmap, data_mprotect_writable_fails)
{
	void *p = map(self, self->sub.data_size, PROT_READ, MAP_SHARED,
		      self->sub.data_offset);

	ASSERT_TRUE(p != MAP_FAILED) TH_LOG("%s", strerror(errno));
	ASSERT_ERRNO(EACCES, mprotect(p, self->sub.data_size,
				      PROT_READ | PROT_WRITE));
	munmap(p, self->sub.data_size);
}

TEST_F(mmap, header_map_private_einval)
{
	ASSERT_MAP_FAILS(EINVAL, self->sub.header_size, PROT_READ, MAP_PRIVATE,
			 self->sub.header_offset);
}

/*
 * A private writable mapping of the data would let a write fault copy the
 * page; the ring must be shared or nothing.
 */
TEST_F(mmap, data_map_private_einval)
{
	ASSERT_MAP_FAILS(EINVAL, self->sub.data_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE, self->sub.data_offset);
}

TEST_F(mmap, consumer_map_private_einval)
{
	ASSERT_MAP_FAILS(EINVAL, self->sub.consumer_size,
			 PROT_READ | PROT_WRITE, MAP_PRIVATE,
			 self->sub.consumer_offset);
}

/* An offset no area starts at. */
TEST_F(mmap, offset_inside_data_einval)
{
	ASSERT_MAP_FAILS(EINVAL, (__u64)self->page, PROT_READ, MAP_SHARED,
			 self->sub.data_offset + (__u64)self->page);
}

TEST_F(mmap, offset_past_end_einval)
{
	__u64 end = self->sub.data_offset + self->sub.data_size;

	if (self->sub.header_offset + self->sub.header_size > end)
		end = self->sub.header_offset + self->sub.header_size;
	if (self->sub.consumer_offset + self->sub.consumer_size > end)
		end = self->sub.consumer_offset + self->sub.consumer_size;
	ASSERT_MAP_FAILS(EINVAL, (__u64)self->page, PROT_READ, MAP_SHARED, end);
}

/* Far beyond the areas, where an offset-to-page lookup could overflow. */
TEST_F(mmap, offset_far_einval)
{
	ASSERT_MAP_FAILS(EINVAL, (__u64)self->page, PROT_READ, MAP_SHARED,
			 1ull << 44);
}

TEST_F(mmap, header_size_too_big_einval)
{
	ASSERT_MAP_FAILS(EINVAL, self->sub.header_size + (__u64)self->page,
			 PROT_READ, MAP_SHARED, self->sub.header_offset);
}

TEST_F(mmap, consumer_size_too_big_einval)
{
	ASSERT_MAP_FAILS(EINVAL, self->sub.consumer_size + (__u64)self->page,
			 PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->sub.consumer_offset);
}

TEST_F(mmap, data_size_too_small_einval)
{
	ASSERT_MAP_FAILS(EINVAL, self->sub.data_size - (__u64)self->page,
			 PROT_READ, MAP_SHARED, self->sub.data_offset);
}

TEST_F(mmap, data_size_too_big_einval)
{
	ASSERT_MAP_FAILS(EINVAL, self->sub.data_size + (__u64)self->page,
			 PROT_READ, MAP_SHARED, self->sub.data_offset);
}

/* A mapping cannot be grown past what was checked at mmap time. */
TEST_F(mmap, data_mremap_grow_fails)
{
	void *p = map(self, self->sub.data_size, PROT_READ, MAP_SHARED,
		      self->sub.data_offset);
	void *q;

	ASSERT_TRUE(p != MAP_FAILED) TH_LOG("%s", strerror(errno));
	q = mremap(p, self->sub.data_size, self->sub.data_size * 2, MREMAP_MAYMOVE);
	if (q != MAP_FAILED)
		munmap(q, self->sub.data_size * 2);
	else
		munmap(p, self->sub.data_size);
	ASSERT_TRUE(q == MAP_FAILED) TH_LOG("mremap grew the data mapping");
}

#define SMAPS_LINE 512

/* The VmFlags line of the /proc/self/smaps entry starting at @addr. */
static bool vm_flags_of(const void *addr, char flags[SMAPS_LINE])
{
	char line[SMAPS_LINE], start[32];
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return false;
	snprintf(start, sizeof(start), "%lx-", (unsigned long)addr);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, start, strlen(start)))
			in = true;
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			memcpy(flags, line + 8, strlen(line + 8) + 1);
			fclose(f);
			return true;
		}
	}
	fclose(f);
	return false;
}

/* Ring mappings are left out of core dumps and cannot be expanded. */
TEST_F(mmap, mappings_dontdump_dontexpand)
{
	const struct drm_neuronprof_nq_subscribe *s = &self->sub;
	struct { __u64 off, len; int prot; const char *name; } area[3] = {
		{ s->header_offset, s->header_size, PROT_READ, "header" },
		{ s->consumer_offset, s->consumer_size, PROT_READ | PROT_WRITE, "consumer" },
		{ s->data_offset, s->data_size, PROT_READ, "data" },
	};
	char flags[SMAPS_LINE];
	int k;

	for (k = 0; k < 3; k++) {
		void *p = map(self, area[k].len, area[k].prot, MAP_SHARED, area[k].off);

		ASSERT_TRUE(p != MAP_FAILED) TH_LOG("%s: %s", area[k].name, strerror(errno));
		ASSERT_TRUE(vm_flags_of(p, flags))
			TH_LOG("%s not found in /proc/self/smaps", area[k].name);
		EXPECT_TRUE(strstr(flags, " dd") != NULL) TH_LOG("%s: VmFlags%s", area[k].name, flags);
		EXPECT_TRUE(strstr(flags, " de") != NULL) TH_LOG("%s: VmFlags%s", area[k].name, flags);
		if (area[k].prot == PROT_READ) {
			EXPECT_TRUE(strstr(flags, " mw") == NULL)
				TH_LOG("%s may be made writable: VmFlags%s", area[k].name, flags);
		}
		munmap(p, area[k].len);
	}
}

/* The mappings outlive the fd. */
TEST_F(mmap, mapping_outlives_fd)
{
	const struct neuronprof_ring_header *h;
	const unsigned char *d;

	h = map(self, self->sub.header_size, PROT_READ, MAP_SHARED,
		self->sub.header_offset);
	ASSERT_TRUE(h != MAP_FAILED);
	d = map(self, self->sub.data_size, PROT_READ, MAP_SHARED,
		self->sub.data_offset);
	ASSERT_TRUE(d != MAP_FAILED);
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	EXPECT_EQ((__u32)NEURONPROF_RING_VERSION, h->version);
	EXPECT_EQ(self->sub.ring_size, h->ring_size);
	EXPECT_TRUE(all_zero(d, self->sub.data_size));
	munmap((void *)h, self->sub.header_size);
	munmap((void *)d, self->sub.data_size);
}

/* Mapping an area twice gives the same memory. */
TEST_F(mmap, consumer_mapped_twice_shares)
{
	struct neuronprof_ring_consumer *a, *b;

	a = map(self, self->sub.consumer_size, PROT_READ | PROT_WRITE,
		MAP_SHARED, self->sub.consumer_offset);
	ASSERT_TRUE(a != MAP_FAILED);
	b = map(self, self->sub.consumer_size, PROT_READ | PROT_WRITE,
		MAP_SHARED, self->sub.consumer_offset);
	ASSERT_TRUE(b != MAP_FAILED);
	__atomic_store_n(&a->consumer_pos, 0, __ATOMIC_RELEASE);
	((volatile unsigned char *)a)[self->sub.consumer_size - 1] = 0x5a;
	EXPECT_EQ(0x5a, ((volatile unsigned char *)b)[self->sub.consumer_size - 1]);
	((volatile unsigned char *)a)[self->sub.consumer_size - 1] = 0;
	munmap(a, self->sub.consumer_size);
	munmap(b, self->sub.consumer_size);
}

TEST_F(mmap, render_node_mmap_fails)
{
	void *p = mmap(NULL, (size_t)self->page, PROT_READ, MAP_SHARED,
		       self->dev.fd, (off_t)self->sub.header_offset);

	if (p != MAP_FAILED)
		munmap(p, (size_t)self->page);
	ASSERT_TRUE(p == MAP_FAILED)
		TH_LOG("the render node mapped a subscription's offset");
}

TEST_HARNESS_MAIN
