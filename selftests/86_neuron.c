// SPDX-License-Identifier: GPL-2.0
/*
 * The provider for neuron.ko devices (neuronprof_neuron.ko) on the fake
 * neuron.ko (neuronprof_fake_neuron.ko), from userspace: the device says it
 * is raw; what the fake runtime consumes arrives as raw entries carrying the
 * fake hardware's bytes in order across wraps, delivered + lost = produced;
 * removal while the ring is mapped and polled gives EPOLLHUP and DEAD; two
 * processes capture their own queues and a second process subscribes a
 * queue beside the first. The modules are loaded here and unloaded at the end.
 */
#include "nprof_test.h"

#include <stdarg.h>

#define CTL "/sys/kernel/debug/neuronprof_fake_neuron/ctl"
#define WORD0(q, seq) (0xFA4EULL << 48 | (__u64)(q) << 32 | (__u32)(seq))
#define DEV_RING 4096u		/* 64 fake entries of 64 bytes */

/* Write a command to the fake's ctl file; return its result. */
static long ctl(const char *fmt, ...)
{
	char cmd[128], res[32] = "";
	va_list ap;
	long v;
	int fd;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fd = open(CTL, O_RDWR);
	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) < 0) {
		v = -errno;
		close(fd);
		return v;
	}
	if (pread(fd, res, sizeof(res) - 1, 0) < 0)
		res[0] = 0;
	close(fd);
	v = strtol(res, NULL, 10);
	return v;
}

/* The render node whose provider is "neuron", opened; -1 if none. */
static int open_neuron(struct nprof_dev *dev)
{
	char nodes[16][NPROF_PATH_MAX];
	int i, n = nprof_list_nodes(nodes, 16);

	for (i = 0; i < n; i++) {
		if (nprof_dev_open(nodes[i], dev))
			continue;
		if (!strcmp(dev->info.provider, "neuron"))
			return 0;
		nprof_dev_close(dev);
	}
	return -1;
}

FIXTURE(neuron) {
	struct nprof_dev dev;
	int fdev;
};

FIXTURE_SETUP(neuron)
{
	REQUIRE_ROOT();
	self->dev.fd = -1;
	/*
	 * The fake device is a test module: it is loaded only where the
	 * runner says this is a test machine (the project's VM), never by
	 * default on a host or a Neuron instance.
	 */
	if (!getenv("NPROF_SELFTEST_LOAD_FAKE_NEURON"))
		SETUP_SKIP("neuronprof_fake_neuron is not to be loaded here (set NPROF_SELFTEST_LOAD_FAKE_NEURON=1 on a test machine)");
	if (system("modprobe neuronprof_fake_neuron && modprobe neuronprof_neuron"))
		SETUP_SKIP("neuronprof_fake_neuron or neuronprof_neuron cannot be loaded");
	self->fdev = (int)ctl("add 2 2 6");
	ASSERT_LE(0, self->fdev);
	ASSERT_EQ(0, open_neuron(&self->dev));
}

FIXTURE_TEARDOWN(neuron)
{
	nprof_dev_close(&self->dev);
	ctl("remove %d", self->fdev);
	EXPECT_EQ(0, system("rmmod neuronprof_neuron && rmmod neuronprof_fake_neuron"));
}

TEST_F(neuron, raw_device_info)
{
	const struct drm_neuronprof_device_info *i = &self->dev.info;

	EXPECT_EQ(NEURONPROF_UAPI_VERSION, i->uapi_version);
	EXPECT_TRUE(i->caps & NEURONPROF_CAP_RAW_PACKED);
	EXPECT_FALSE(i->caps & NEURONPROF_CAP_RAW);
	EXPECT_EQ(NEURONPROF_RAW_FORMAT_NEURON_V2, i->raw_format);
	EXPECT_EQ(64u, i->raw_entry_size);
	EXPECT_EQ(NEURONPROF_CLOCK_CAPTURED, i->clock_domain);
	EXPECT_EQ((__u32)NEURONPROF_MAX_INSTANCES, i->queue_instances);
	EXPECT_EQ(2u, i->num_cores);
	EXPECT_EQ(6u, i->num_topsps);
}

/* A raw device keeps its bytes: no code has a name. */
TEST_F(neuron, raw_device_names_nothing)
{
	struct drm_neuronprof_code_names names;
	struct drm_neuronprof_get_info gi = {
		.query = NEURONPROF_INFO_CODE_NAMES,
		.size = sizeof(names),
		.data = (uintptr_t)&names,
	};

	memset(&names, 0xa5, sizeof(names));
	ASSERT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_NEURONPROF_GET_INFO, &gi));
	EXPECT_EQ(sizeof(names), gi.size);
	EXPECT_EQ(NEURONPROF_CODE_NAMES_VERSION, names.version);
	EXPECT_EQ(sizeof(struct neuronprof_code_name), names.entry_size);
	EXPECT_EQ(0u, names.count);
}

/*
 * Check the packed raw records in the first @len bytes of @r: fake queue
 * @q's device entries of 64 bytes from @first on, in order, each record's
 * seq the next one (two per device entry). Returns the device entries, or
 * -1.
 */
static long check_raw(struct selftest_ring *r, int q, __u32 first, __u64 len)
{
	__u64 pos = 0, seq = 0, idx = first, i;

	while (pos < len) {
		const struct neuronprof_notification *h = (const void *)
			(r->data + pos % r->sub.ring_size);
		__u32 bytes = NEURONPROF_RAW_PACKED_BYTES(h->payload[1]);

		if (h->seq != seq || h->code != NEURONPROF_RAW_PACKED ||
		    h->model_id != NEURONPROF_RAW_FORMAT_NEURON_V2 || h->payload[0] != idx ||
		    NEURONPROF_RAW_PACKED_ENTRY_SIZE(h->payload[1]) != 64 || bytes % 64)
			return -1;
		for (i = 0; i < bytes / 64; i++)
			if (h[1 + i].timestamp_ns != WORD0(q, idx + i))
				return -1;
		pos += NEURONPROF_RAW_PACKED_SLOTS(bytes) * r->entry_size;
		seq += NEURONPROF_RAW_PACKED_SEQS(bytes);
		idx += bytes / 64;
	}
	return pos == len ? (long)(idx - first) : -1;
}

TEST_F(neuron, capture_wrap_and_overflow)
{
	const struct selftest_queue q = { NEURONPROF_TARGET_CORE, 1, NEURONPROF_QT_TRACE, 7 };
	struct selftest_ring r;
	__u64 prod, lost;
	int fq, round;

	/*
	 * The default entry size is 64 bytes: a head write of 50 is a packed
	 * record of 51 ring entries (100 seqs); the ring holds 256, five.
	 */
	ASSERT_EQ(0, selftest_ring_open(self->dev.fd, &q, 4 * nprof_page_size(), 0, &r));
	fq = (int)ctl("program %d 0 1 0 7 %u", self->fdev, DEV_RING);
	ASSERT_LE(0, fq);
	for (round = 0; round < 6; round++) {
		ASSERT_EQ(50, ctl("produce %d %d 50", self->fdev, fq));
		ASSERT_EQ(50, ctl("consume %d %d 50", self->fdev, fq));
	}
	prod = selftest_ring_producer(&r);
	lost = __atomic_load_n(&r.hdr->lost, __ATOMIC_RELAXED);
	EXPECT_EQ(5 * 51u, prod / r.entry_size);
	EXPECT_EQ(100u, lost);
	EXPECT_TRUE(r.hdr->flags & NEURONPROF_RING_OVERFLOWED);
	EXPECT_EQ(NEURONPROF_RAW_FORMAT_NEURON_V2, r.hdr->raw_format);
	EXPECT_EQ(NEURONPROF_CLOCK_CAPTURED, r.hdr->clock_domain);
	EXPECT_EQ(250, check_raw(&r, fq, 0, prod));
	selftest_ring_close(&r);
}

TEST_F(neuron, removal_while_mapped_and_polled)
{
	const struct selftest_queue q = { NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_DMA, 15 };
	struct selftest_ring r;
	struct pollfd pfd;
	pid_t pid;
	int fq, st;

	ASSERT_EQ(0, selftest_ring_open(self->dev.fd, &q, nprof_page_size(), 0, &r));
	fq = (int)ctl("program %d 0 0 4 15 %u", self->fdev, DEV_RING);
	ASSERT_LE(0, fq);
	ASSERT_EQ(10, ctl("produce %d %d 10", self->fdev, fq));
	ASSERT_EQ(10, ctl("consume %d %d 10", self->fdev, fq));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		usleep(200 * 1000);
		_exit(ctl("remove %d", self->fdev) == 0 ? 0 : 1);
	}
	/* Poll with everything read: only the removal wakes us. */
	selftest_ring_set_consumer(&r, selftest_ring_producer(&r));
	pfd = (struct pollfd){ .fd = r.fd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, WAIT_TIMEOUT_MS));
	EXPECT_TRUE(pfd.revents & POLLHUP);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	EXPECT_TRUE(r.hdr->flags & NEURONPROF_RING_DEAD);
	/* The mapping is still readable: the 10 entries are there, one record. */
	EXPECT_EQ(11u, selftest_ring_producer(&r) / r.entry_size);
	EXPECT_EQ(10, check_raw(&r, fq, 0, selftest_ring_producer(&r)));
	selftest_ring_close(&r);
	self->fdev = (int)ctl("add 2 2 6");	/* for the teardown */
}

TEST_F(neuron, two_processes)
{
	const struct selftest_queue q0 = { NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_EVENT, 0 };
	const struct selftest_queue q1 = { NEURONPROF_TARGET_TOPSP, 3, NEURONPROF_QT_TOPSP_TRACE, 0 };
	struct drm_neuronprof_nq_subscribe sub;
	int fq0, fq1, up[2], down[2], st;
	struct selftest_ring r;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct nprof_dev d;
		struct selftest_ring cr;
		int ok, fd;

		if (open_neuron(&d) || selftest_ring_open(d.fd, &q1, nprof_page_size(), 0, &cr))
			_exit(2);
		if (write(up[1], "s", 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(3);
		/* The parent's queue takes this process as a second subscriber. */
		fd = nprof_subscribe_q(d.fd, &q0, nprof_page_size(), 0, &sub);
		ok = fd >= 0;
		if (fd >= 0)
			close(fd);
		ok = ok && selftest_ring_producer(&cr) / cr.entry_size == 1 + 7;
		_exit(ok ? 0 : 1);
	}
	ASSERT_EQ(0, selftest_ring_open(self->dev.fd, &q0, nprof_page_size(), 0, &r));
	ASSERT_EQ(1, read(up[0], &c, 1));
	fq0 = (int)ctl("program %d 0 0 2 0 %u", self->fdev, DEV_RING);
	fq1 = (int)ctl("program %d 1 3 0 0 %u", self->fdev, DEV_RING);
	ASSERT_LE(0, fq0);
	ASSERT_LE(0, fq1);
	ASSERT_EQ(5, ctl("produce %d %d 5", self->fdev, fq0));
	ASSERT_EQ(5, ctl("consume %d %d 5", self->fdev, fq0));
	ASSERT_EQ(7, ctl("produce %d %d 7", self->fdev, fq1));
	ASSERT_EQ(7, ctl("consume %d %d 7", self->fdev, fq1));
	ASSERT_EQ(1, write(down[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	EXPECT_EQ(6u, selftest_ring_producer(&r) / r.entry_size);
	EXPECT_EQ(5, check_raw(&r, fq0, 0, selftest_ring_producer(&r)));
	selftest_ring_close(&r);
}

TEST_HARNESS_MAIN
