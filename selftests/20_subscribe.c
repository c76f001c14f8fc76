// SPDX-License-Identifier: GPL-2.0
/*
 * DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE: what a subscription returns, one test
 * per rejected argument, and one subscriber per queue.
 */
#include "nprof_test.h"

#define PROG 2
#define DEV_ID NPROF_TEST_ID(PROG, 0)

FIXTURE(subscribe) {
	struct nprof_dev dev;
	struct drm_neuronprof_nq_subscribe sub;	/* a valid request */
	int fd;
	int fd2;
};

FIXTURE_SETUP(subscribe)
{
	self->fd = -1;
	self->fd2 = -1;
	SETUP_SIM_DEV(&self->dev, DEV_ID, NULL);
	memset(&self->sub, 0, sizeof(self->sub));
	self->sub.target_kind = NEURONPROF_TARGET_CORE;
	self->sub.target_index = 0;
	self->sub.queue_type = NEURONPROF_QT_TRACE;
	self->sub.engine = 0;
	self->sub.ring_size = self->dev.info.min_ring_size;
	self->sub.watermark = 0;
}

FIXTURE_TEARDOWN(subscribe)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->fd2 >= 0)
		close(self->fd2);
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

static int do_subscribe(FIXTURE_DATA(subscribe) *self)
{
	return ioctl(self->dev.fd, DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE, &self->sub);
}

/* A page-aligned [off, off + len) that does not overlap [off2, off2 + len2). */
static bool disjoint(__u64 off, __u64 len, __u64 off2, __u64 len2)
{
	return off + len <= off2 || off2 + len2 <= off;
}

TEST_F(subscribe, returns_fd_and_layout)
{
	const struct drm_neuronprof_nq_subscribe *s = &self->sub;
	__u64 page = (__u64)nprof_page_size();
	int flags;

	ASSERT_EQ(0, do_subscribe(self)) TH_LOG("%s", strerror(errno));
	self->fd = s->fd;
	ASSERT_LE(0, s->fd);
	flags = fcntl(s->fd, F_GETFD);
	ASSERT_LE(0, flags) TH_LOG("returned fd %d is not open", s->fd);
	ASSERT_TRUE(flags & FD_CLOEXEC) TH_LOG("subscription fd without O_CLOEXEC");

	ASSERT_LE((__u64)sizeof(struct neuronprof_ring_header), s->header_size);
	ASSERT_LE((__u64)sizeof(struct neuronprof_ring_consumer), s->consumer_size);
	ASSERT_EQ(s->ring_size, s->data_size);
	ASSERT_EQ(0ull, s->header_offset % page);
	ASSERT_EQ(0ull, s->consumer_offset % page);
	ASSERT_EQ(0ull, s->data_offset % page);
	ASSERT_EQ(0ull, s->header_size % page);
	/* The consumer word has a page of its own: it is the only RW part. */
	ASSERT_EQ(0ull, s->consumer_size % page);
	ASSERT_TRUE(disjoint(s->header_offset, s->header_size,
			     s->consumer_offset, s->consumer_size));
	ASSERT_TRUE(disjoint(s->header_offset, s->header_size,
			     s->data_offset, s->data_size));
	ASSERT_TRUE(disjoint(s->consumer_offset, s->consumer_size,
			     s->data_offset, s->data_size));
	ASSERT_EQ(0u, s->pad);
	ASSERT_EQ(0ull, s->reserved[0]);
	ASSERT_EQ(0ull, s->reserved[1]);
}

/* Out members are ignored on input and overwritten. */
TEST_F(subscribe, out_members_ignored_on_input)
{
	struct drm_neuronprof_nq_subscribe ref;

	ASSERT_EQ(0, do_subscribe(self));
	ref = self->sub;
	ASSERT_EQ(0, close(ref.fd));
	self->sub.fd = 12345;
	self->sub.header_offset = ~0ull;
	self->sub.header_size = 1;
	self->sub.consumer_offset = 3;
	self->sub.consumer_size = ~0ull;
	self->sub.data_offset = 1ull << 40;
	self->sub.data_size = 5;
	ASSERT_EQ(0, do_subscribe(self)) TH_LOG("%s", strerror(errno));
	self->fd = self->sub.fd;
	ASSERT_NE(12345, self->sub.fd);
	ASSERT_EQ(ref.header_offset, self->sub.header_offset);
	ASSERT_EQ(ref.header_size, self->sub.header_size);
	ASSERT_EQ(ref.consumer_offset, self->sub.consumer_offset);
	ASSERT_EQ(ref.consumer_size, self->sub.consumer_size);
	ASSERT_EQ(ref.data_offset, self->sub.data_offset);
	ASSERT_EQ(ref.data_size, self->sub.data_size);
}

/* The subscription fd is not a DRM fd: DRM ioctls do not reach a driver. */
TEST_F(subscribe, subscription_fd_is_not_drm)
{
	struct drm_neuronprof_device_info info;
	struct drm_neuronprof_get_info gi = {
		.query = NEURONPROF_INFO_DEVICE,
		.size = sizeof(info),
		.data = (uintptr_t)&info,
	};

	ASSERT_EQ(0, do_subscribe(self));
	self->fd = self->sub.fd;
	ASSERT_ERRNO(ENOTTY, ioctl(self->fd, DRM_IOCTL_NEURONPROF_GET_INFO, &gi));
}

TEST_F(subscribe, flags_nonzero)
{
	self->sub.flags = 1;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, flags_high_bit)
{
	self->sub.flags = 1u << 31;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, pad_nonzero)
{
	self->sub.pad = 1;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, reserved0_nonzero)
{
	self->sub.reserved[0] = 1;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, reserved1_nonzero)
{
	self->sub.reserved[1] = 1ull << 63;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, unknown_target_kind)
{
	self->sub.target_kind = NEURONPROF_TARGET_TOPSP + 1;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, unknown_queue_type)
{
	self->sub.queue_type = NEURONPROF_QT_COUNT;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

/* Types past any bitmask width must not index or shift out of range. */
TEST_F(subscribe, huge_queue_type)
{
	static const __u32 bad[] = { 31, 32, 63, 64, 0x80000000u, 0xffffffffu };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		self->sub.queue_type = bad[i];
		ASSERT_EQ(-1, do_subscribe(self))
			TH_LOG("queue_type %#x accepted", bad[i]);
		ASSERT_EQ(EINVAL, errno)
			TH_LOG("queue_type %#x: %s", bad[i], strerror(errno));
	}
}

TEST_F(subscribe, topsp_type_on_core)
{
	self->sub.queue_type = NEURONPROF_QT_TOPSP_TRACE;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, core_type_on_topsp)
{
	self->sub.target_kind = NEURONPROF_TARGET_TOPSP;
	self->sub.queue_type = NEURONPROF_QT_TRACE;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, core_out_of_range)
{
	self->sub.target_index = self->dev.info.num_cores;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, core_index_huge)
{
	self->sub.target_index = 0xffffffffu;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, topsp_out_of_range)
{
	self->sub.target_kind = NEURONPROF_TARGET_TOPSP;
	self->sub.queue_type = NEURONPROF_QT_TOPSP_TRACE;
	self->sub.target_index = self->dev.info.num_topsps;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, engine_out_of_range)
{
	self->sub.engine = self->dev.info.engines_per_core;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, engine_huge)
{
	self->sub.engine = 0xffffffffu;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

/* Types with one queue per target take engine 0 only. */
TEST_F(subscribe, engine_on_single_queue_type)
{
	self->sub.queue_type = NEURONPROF_QT_ERROR;
	self->sub.engine = 1;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, engine_on_topsp_queue)
{
	self->sub.target_kind = NEURONPROF_TARGET_TOPSP;
	self->sub.queue_type = NEURONPROF_QT_TOPSP_EVENT;
	self->sub.engine = 1;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, ring_size_zero)
{
	self->sub.ring_size = 0;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, ring_size_not_power_of_two)
{
	self->sub.ring_size = 3 * self->dev.info.min_ring_size;
	if (self->sub.ring_size > self->dev.info.max_ring_size)
		SKIP(return, "3 * min_ring_size is above max_ring_size");
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

/*
 * A power of two that is not a page multiple is below a page, so below
 * min_ring_size too: both checks reject it.
 */
TEST_F(subscribe, ring_size_not_page_multiple)
{
	self->sub.ring_size = (__u64)nprof_page_size() / 2;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

/* A page multiple just below max_ring_size, which is no power of two. */
TEST_F(subscribe, ring_size_below_max_not_power_of_two)
{
	__u64 page = (__u64)nprof_page_size();

	self->sub.ring_size = self->dev.info.max_ring_size - page;
	if (self->dev.info.max_ring_size < 4 * page ||
	    self->sub.ring_size < self->dev.info.min_ring_size)
		SKIP(return, "max_ring_size - page is a power of two or below min_ring_size");
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, ring_size_too_small)
{
	self->sub.ring_size = self->dev.info.min_ring_size / 2;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, ring_size_too_large)
{
	self->sub.ring_size = self->dev.info.max_ring_size * 2;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

/* Large enough to overflow a 32-bit size or a page count. */
TEST_F(subscribe, ring_size_huge)
{
	self->sub.ring_size = 1ull << 63;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, ring_size_max_accepted)
{
	if (self->dev.info.max_ring_size > (64ull << 20))
		SKIP(return, "max_ring_size %llu is too much memory for the VM",
		     (unsigned long long)self->dev.info.max_ring_size);
	self->sub.ring_size = self->dev.info.max_ring_size;
	ASSERT_EQ(0, do_subscribe(self)) TH_LOG("%s", strerror(errno));
	self->fd = self->sub.fd;
	ASSERT_EQ(self->dev.info.max_ring_size, self->sub.data_size);
}

TEST_F(subscribe, watermark_above_ring_size)
{
	self->sub.watermark = (__u32)self->sub.ring_size + 1;
	ASSERT_ERRNO(EINVAL, do_subscribe(self));
}

TEST_F(subscribe, watermark_equal_ring_size_accepted)
{
	self->sub.watermark = (__u32)self->sub.ring_size;
	ASSERT_EQ(0, do_subscribe(self)) TH_LOG("%s", strerror(errno));
	self->fd = self->sub.fd;
}

/*
 * A queue takes max_subscribers subscriptions, each its own ring; the next
 * one is refused with EBUSY and NQ_HOLDERS names who holds the queue.
 */
TEST_F(subscribe, subscribers_up_to_limit)
{
	const struct selftest_queue q = { self->sub.target_kind, self->sub.target_index,
				       self->sub.queue_type, self->sub.engine };
	struct drm_neuronprof_nq_subscribe again = self->sub;
	struct drm_neuronprof_nq_holders h;
	int fds[NEURONPROF_MAX_SUBSCRIBERS], n, i;
	char comm[16] = "";
	FILE *f;

	ASSERT_EQ((__u32)NEURONPROF_MAX_SUBSCRIBERS, self->dev.info.max_subscribers);
	ASSERT_LE(4u, self->dev.info.max_subscribers);
	n = nprof_fill_queue(self->dev.fd, &q, self->sub.ring_size, fds);
	ASSERT_EQ(NEURONPROF_MAX_SUBSCRIBERS, n) TH_LOG("%s", n < 0 ? strerror(-n) : "");
	/* Each has its own ring: distinct files, each mapping its own pages. */
	for (i = 1; i < n; i++)
		EXPECT_NE(fds[0], fds[i]);
	ASSERT_ERRNO(EBUSY, ioctl(self->dev.fd, DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE, &again));

	ASSERT_EQ(0, nprof_holders(self->dev.fd, &q, &h));
	EXPECT_EQ((__u32)NEURONPROF_MAX_SUBSCRIBERS, h.count);
	EXPECT_EQ((__u32)NEURONPROF_MAX_SUBSCRIBERS, h.max_subscribers);
	f = fopen("/proc/self/comm", "r");
	ASSERT_TRUE(f != NULL);
	ASSERT_TRUE(fgets(comm, sizeof(comm), f) != NULL);
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	for (i = 0; i < (int)h.count; i++) {
		EXPECT_EQ(getpid(), h.holders[i].pid);
		EXPECT_STREQ(comm, h.holders[i].comm);
		EXPECT_EQ(self->sub.ring_size, h.holders[i].ring_size);
	}
	/* A freed place is taken again. */
	close(fds[0]);
	fds[0] = nprof_subscribe(self->dev.fd, &again);
	EXPECT_LE(0, fds[0]) TH_LOG("%s", strerror(-fds[0]));
	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	ASSERT_EQ(0, nprof_holders(self->dev.fd, &q, &h));
	EXPECT_EQ(0u, h.count);
}

/* NQ_HOLDERS checks its arguments as SUBSCRIBE does. */
TEST_F(subscribe, holders_bad_args)
{
	const struct selftest_queue q = { self->sub.target_kind, self->sub.target_index,
				       self->sub.queue_type, self->sub.engine };
	struct drm_neuronprof_nq_holders h;

	ASSERT_EQ(0, nprof_holders(self->dev.fd, &q, &h));
	EXPECT_EQ(0u, h.count);
	h.flags = 1;
	ASSERT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_NEURONPROF_NQ_HOLDERS, &h));
	h.flags = 0;
	h.pad = 1;
	ASSERT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_NEURONPROF_NQ_HOLDERS, &h));
	h.pad = 0;
	h.target_index = self->dev.info.num_cores;
	ASSERT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_NEURONPROF_NQ_HOLDERS, &h));
}

/* Subscribers of one queue may come from any open file of the device. */
TEST_F(subscribe, second_open_file_subscribes_too)
{
	struct drm_neuronprof_nq_subscribe again = self->sub;
	int fd2, ret;

	ASSERT_EQ(0, do_subscribe(self));
	self->fd = self->sub.fd;
	fd2 = open(self->dev.node, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ret = nprof_subscribe(fd2, &again);
	EXPECT_LE(0, ret) TH_LOG("%s", strerror(-ret));
	if (ret >= 0)
		close(ret);
	close(fd2);
}

/* Neighbouring queues are distinct queues. */
TEST_F(subscribe, other_engine_and_type_not_busy)
{
	struct drm_neuronprof_nq_subscribe other = self->sub;

	ASSERT_EQ(0, do_subscribe(self));
	self->fd = self->sub.fd;
	other.engine = 1;
	ASSERT_LE(0, nprof_subscribe(self->dev.fd, &other));
	self->fd2 = other.fd;
	close(self->fd2);
	other = self->sub;
	other.queue_type = NEURONPROF_QT_EVENT;
	ASSERT_LE(0, nprof_subscribe(self->dev.fd, &other));
	self->fd2 = other.fd;
}

/* The same queue of another device is another queue. */
TEST_F(subscribe, same_queue_other_device)
{
	struct drm_neuronprof_nq_subscribe other = self->sub;
	struct nprof_dev dev2;
	int ret;

	ASSERT_EQ(0, do_subscribe(self));
	self->fd = self->sub.fd;
	ret = nprof_sim_new_device(DEV_ID + 1, NULL, &dev2);
	ASSERT_EQ(0, ret) TH_LOG("new_device: %s", strerror(-ret));
	ret = nprof_subscribe(dev2.fd, &other);
	EXPECT_LE(0, ret) TH_LOG("%s", strerror(-ret));
	if (ret >= 0)
		close(ret);
	nprof_dev_close(&dev2);
	ASSERT_EQ(0, nprof_sim_del_device(DEV_ID + 1));
}

TEST_F(subscribe, close_unsubscribes)
{
	ASSERT_EQ(0, do_subscribe(self));
	ASSERT_EQ(0, close(self->sub.fd));
	self->sub.fd = -1;
	ASSERT_EQ(0, do_subscribe(self)) TH_LOG("%s", strerror(errno));
	self->fd = self->sub.fd;
}

/*
 * A subscription is its file, which every mapping holds: closing the fd
 * while the ring is mapped keeps the queue subscribed (and the mapping
 * live) until the last mapping goes away.
 */
TEST_F(subscribe, mapping_keeps_subscription)
{
	const struct selftest_queue q = { self->sub.target_kind, self->sub.target_index,
				       self->sub.queue_type, self->sub.engine };
	struct drm_neuronprof_nq_subscribe first;
	const struct neuronprof_ring_header *h;
	struct drm_neuronprof_nq_holders who;

	ASSERT_EQ(0, do_subscribe(self));
	first = self->sub;
	h = mmap(NULL, first.header_size, PROT_READ, MAP_SHARED, first.fd,
		 (off_t)first.header_offset);
	ASSERT_TRUE(h != MAP_FAILED) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, close(first.fd));
	ASSERT_EQ(0, nprof_holders(self->dev.fd, &q, &who));
	EXPECT_EQ(1u, who.count);
	EXPECT_EQ((__u32)NEURONPROF_RING_VERSION, h->version);
	EXPECT_EQ(first.ring_size, h->ring_size);
	EXPECT_EQ(0u, h->flags);
	ASSERT_EQ(0, munmap((void *)h, first.header_size));
	ASSERT_EQ(0, nprof_holders(self->dev.fd, &q, &who));
	EXPECT_EQ(0u, who.count);
	ASSERT_EQ(0, do_subscribe(self)) TH_LOG("%s", strerror(errno));
	self->fd = self->sub.fd;
}

/*
 * NQ_SUBSCRIBE creates a descriptor, so it takes exactly the struct of the
 * uapi header: an encoding with another size is refused, and no descriptor
 * is left behind.
 */
static void subscribe_with_size(struct __test_metadata *_metadata,
				FIXTURE_DATA(subscribe) *self, size_t size)
{
	struct {
		struct drm_neuronprof_nq_subscribe sub;
		__u64 more[2];
	} arg;
	unsigned long cmd = _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE,
				 DRM_COMMAND_BASE + DRM_NEURONPROF_NQ_SUBSCRIBE,
				 size);
	int before, after;

	before = nprof_lowest_free_fd();
	ASSERT_LE(0, before);
	memset(&arg, 0, sizeof(arg));
	arg.sub = self->sub;
	ASSERT_ERRNO(EINVAL, ioctl(self->dev.fd, cmd, &arg));
	after = nprof_lowest_free_fd();
	ASSERT_LE(0, after);
	ASSERT_EQ(before, after) TH_LOG("a descriptor was left open");
	/* The queue was not taken either. */
	ASSERT_EQ(0, do_subscribe(self)) TH_LOG("%s", strerror(errno));
	self->fd = self->sub.fd;
}

TEST_F(subscribe, longer_struct_einval)
{
	subscribe_with_size(_metadata, self,
			    sizeof(struct drm_neuronprof_nq_subscribe) + 16);
}

TEST_F(subscribe, shorter_struct_einval)
{
	subscribe_with_size(_metadata, self,
			    sizeof(struct drm_neuronprof_nq_subscribe) - 16);
}

/* The queue a subscription was made for is the one its header names. */
TEST_F(subscribe, header_names_queue)
{
	const struct drm_neuronprof_device_info *i = &self->dev.info;
	const struct neuronprof_ring_header *h;
	__u32 last = i->num_topsps - 1;

	if (!i->num_topsps)
		SKIP(return, "device has no TopSP");
	self->sub.target_kind = NEURONPROF_TARGET_TOPSP;
	self->sub.target_index = last;
	self->sub.queue_type = NEURONPROF_QT_TOPSP_ERROR;
	ASSERT_EQ(0, do_subscribe(self)) TH_LOG("%s", strerror(errno));
	self->fd = self->sub.fd;
	h = mmap(NULL, self->sub.header_size, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)self->sub.header_offset);
	ASSERT_TRUE(h != MAP_FAILED) TH_LOG("%s", strerror(errno));
	EXPECT_EQ((__u32)NEURONPROF_TARGET_TOPSP, h->target_kind);
	EXPECT_EQ(last, h->target_index);
	EXPECT_EQ((__u32)NEURONPROF_QT_TOPSP_ERROR, h->queue_type);
	EXPECT_EQ(0u, h->engine);
	munmap((void *)h, self->sub.header_size);
}

/*
 * The result cannot be written back: no descriptor may be left behind for
 * a subscription userspace never learnt of, and the queue stays free.
 */
TEST_F(subscribe, unwritable_argument_efault_no_leak)
{
	size_t page = (size_t)nprof_page_size();
	struct drm_neuronprof_nq_subscribe *ro;
	int before, after;

	ro = mmap(NULL, page, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(ro != MAP_FAILED);
	memcpy(ro, &self->sub, sizeof(*ro));
	ASSERT_EQ(0, mprotect(ro, page, PROT_READ));
	before = nprof_lowest_free_fd();
	ASSERT_ERRNO(EFAULT, ioctl(self->dev.fd, DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE, ro));
	after = nprof_lowest_free_fd();
	munmap(ro, page);
	ASSERT_EQ(before, after) TH_LOG("a descriptor was left open");
	ASSERT_EQ(0, do_subscribe(self)) TH_LOG("queue still taken: %s", strerror(errno));
	self->fd = self->sub.fd;
}

/* No descriptor left: EMFILE, and the queue stays free. */
TEST_F(subscribe, fd_limit_emfile)
{
	struct rlimit old, lim;
	int ret, err;

	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &old));
	lim = old;
	lim.rlim_cur = (rlim_t)nprof_lowest_free_fd();
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &lim));
	ret = do_subscribe(self);
	err = errno;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &old));
	ASSERT_EQ(-1, ret) TH_LOG("subscribed beyond RLIMIT_NOFILE");
	ASSERT_EQ(EMFILE, err) TH_LOG("%s", strerror(err));
	ASSERT_EQ(0, do_subscribe(self)) TH_LOG("queue still taken: %s", strerror(errno));
	self->fd = self->sub.fd;
}

TEST_F(subscribe, closed_render_fd_ebadf)
{
	int fd = dup(self->dev.fd);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, close(fd));
	ASSERT_ERRNO(EBADF, ioctl(fd, DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE, &self->sub));
}

TEST_HARNESS_MAIN
