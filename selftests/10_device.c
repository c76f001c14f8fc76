// SPDX-License-Identifier: GPL-2.0
/*
 * The neuronprof device as userspace finds it: a DRM render node whose
 * driver is "neuronprof", and DRM_IOCTL_NEURONPROF_GET_INFO with its
 * size-query protocol and its argument checks; the name table of the
 * codes (NEURONPROF_INFO_CODE_NAMES); the topology of every simulated
 * architecture.
 */
#include "nprof_test.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <sys/sysmacros.h>

#define PROG 1
#define DEV_ID NPROF_TEST_ID(PROG, 0)

/* First minor of render nodes (DRM_MINOR_RENDER * 64 in drm_drv.c). */
#define DRM_RENDER_MINOR_BASE	128
#define DRM_MAJOR_NR		226

static int get_info_raw(int fd, struct drm_neuronprof_get_info *gi)
{
	return ioctl(fd, DRM_IOCTL_NEURONPROF_GET_INFO, gi);
}

static void init_get_info(struct drm_neuronprof_get_info *gi, void *buf,
			  uint32_t size)
{
	memset(gi, 0, sizeof(*gi));
	gi->query = NEURONPROF_INFO_DEVICE;
	gi->size = size;
	gi->data = (uintptr_t)buf;
}

static bool all_bytes(const void *buf, size_t len, unsigned char c)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != c)
			return false;
	return true;
}

/* Whatever modprobe created: every neuronprof node is a sane render node. */
TEST(render_nodes_of_loaded_devices)
{
	char nodes[NPROF_NODE_MAX][NPROF_PATH_MAX];
	uint32_t indices[NPROF_NODE_MAX];
	int n, i, j;

	if (geteuid() != 0)
		SKIP(return, "the neuronprof selftests must run as root");
	n = nprof_list_nodes(nodes, NPROF_NODE_MAX);
	ASSERT_LE(0, n) TH_LOG("cannot scan /dev/dri: %s", strerror(-n));
	if (n == 0)
		SKIP(return, "no neuronprof render node (modprobe neuronprof_sim)");

	for (i = 0; i < n; i++) {
		struct nprof_dev dev;
		struct stat st;
		int ret;

		ASSERT_EQ(0, stat(nodes[i], &st));
		ASSERT_TRUE(S_ISCHR(st.st_mode)) TH_LOG("%s", nodes[i]);
		ASSERT_EQ(DRM_MAJOR_NR, (int)major(st.st_rdev));
		ASSERT_LE(DRM_RENDER_MINOR_BASE, (int)minor(st.st_rdev))
			TH_LOG("%s is not a render node", nodes[i]);
		ret = nprof_dev_open(nodes[i], &dev);
		ASSERT_EQ(0, ret) TH_LOG("%s: %s", nodes[i], strerror(-ret));
		ASSERT_EQ((uint32_t)NEURONPROF_UAPI_VERSION, dev.info.uapi_version);
		indices[i] = dev.info.device_index;
		for (j = 0; j < i; j++) {
			ASSERT_NE(indices[j], indices[i])
				TH_LOG("%s and %s share device_index %u",
				       nodes[j], nodes[i], indices[i]);
		}
		nprof_dev_close(&dev);
	}
}

FIXTURE(device) {
	struct nprof_dev dev;
};

FIXTURE_SETUP(device)
{
	SETUP_SIM_DEV(&self->dev, DEV_ID, NULL);
}

FIXTURE_TEARDOWN(device)
{
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

TEST_F(device, driver_name_is_neuronprof)
{
	char name[64] = "", desc[128] = "", date[32] = "";
	struct drm_version v;

	memset(&v, 0, sizeof(v));
	v.name = name;
	v.name_len = sizeof(name) - 1;
	v.desc = desc;
	v.desc_len = sizeof(desc) - 1;
	v.date = date;
	v.date_len = sizeof(date) - 1;
	ASSERT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_VERSION, &v));
	ASSERT_STREQ(NEURONPROF_DRIVER_NAME, name);
	ASSERT_EQ(strlen(NEURONPROF_DRIVER_NAME), v.name_len);
}

/* The node of device ID is a render node whose parent is the sim's device. */
TEST_F(device, render_node_of_sim_device)
{
	char link[PATH_MAX], sysfs[128], expect[64];
	const char *base;
	struct stat st;
	ssize_t len;

	ASSERT_EQ(0, strncmp(self->dev.node, "/dev/dri/renderD", 16));
	ASSERT_EQ(0, stat(self->dev.node, &st));
	ASSERT_LE(DRM_RENDER_MINOR_BASE, (int)minor(st.st_rdev));

	snprintf(sysfs, sizeof(sysfs), "/sys/class/drm/%s/device",
		 self->dev.node + strlen("/dev/dri/"));
	len = readlink(sysfs, link, sizeof(link) - 1);
	ASSERT_LT(0, len) TH_LOG("readlink %s: %s", sysfs, strerror(errno));
	link[len] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	snprintf(expect, sizeof(expect), "neuronprof_sim.%u", DEV_ID);
	ASSERT_STREQ(expect, base);
}

/* The primary node of the same device accepts the ioctls too. */
TEST_F(device, primary_node_accepts_ioctls)
{
	struct drm_neuronprof_device_info info;
	char dir[128], path[300];
	struct dirent *de;
	DIR *d;
	int fd = -1, ret;

	snprintf(dir, sizeof(dir), "/sys/class/drm/%s/device/drm",
		 self->dev.node + strlen("/dev/dri/"));
	d = opendir(dir);
	ASSERT_TRUE(d != NULL) TH_LOG("%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "card", 4))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		break;
	}
	closedir(d);
	if (fd < 0)
		SKIP(return, "no primary node for %s", self->dev.node);
	ASSERT_EQ(1, nprof_is_neuronprof_fd(fd));
	ret = nprof_get_info(fd, &info);
	ASSERT_EQ(0, ret) TH_LOG("GET_INFO on %s: %s", path, strerror(-ret));
	ASSERT_EQ(self->dev.info.device_index, info.device_index);
	close(fd);
}

/* size 0 asks for the size and copies nothing. */
TEST_F(device, get_info_size_query)
{
	struct drm_neuronprof_device_info info;
	struct drm_neuronprof_get_info gi;

	memset(&info, 0xa5, sizeof(info));
	init_get_info(&gi, &info, 0);
	ASSERT_EQ(0, get_info_raw(self->dev.fd, &gi));
	ASSERT_EQ(sizeof(info), gi.size);
	ASSERT_TRUE(all_bytes(&info, sizeof(info), 0xa5))
		TH_LOG("the size query wrote into the buffer");
}

/* The size query needs no buffer at all. */
TEST_F(device, get_info_size_query_null_data)
{
	struct drm_neuronprof_get_info gi;

	init_get_info(&gi, NULL, 0);
	ASSERT_EQ(0, get_info_raw(self->dev.fd, &gi));
	ASSERT_EQ(sizeof(struct drm_neuronprof_device_info), gi.size);
}

TEST_F(device, get_info_too_small)
{
	struct drm_neuronprof_device_info info;
	struct drm_neuronprof_get_info gi;

	/* Below the first version of the struct (it ends at reserved). */
	memset(&info, 0xa5, sizeof(info));
	init_get_info(&gi, &info, offsetof(struct drm_neuronprof_device_info, queue_instances) - 8);
	ASSERT_ERRNO(EINVAL, get_info_raw(self->dev.fd, &gi));
	ASSERT_TRUE(all_bytes(&info, sizeof(info), 0xa5))
		TH_LOG("a failed GET_INFO wrote into the buffer");
}

/* A caller built against uapi version 1 gets the version-1 struct, no more. */
TEST_F(device, get_info_version1_size)
{
	const size_t v1 = offsetof(struct drm_neuronprof_device_info, queue_instances);
	struct drm_neuronprof_device_info info;
	struct drm_neuronprof_get_info gi;

	memset(&info, 0xa5, sizeof(info));
	init_get_info(&gi, &info, v1);
	ASSERT_EQ(0, get_info_raw(self->dev.fd, &gi));
	ASSERT_EQ(v1, gi.size);
	ASSERT_EQ((uint32_t)NEURONPROF_UAPI_VERSION, info.uapi_version);
	ASSERT_TRUE(all_bytes((char *)&info + v1, sizeof(info) - v1, 0xa5))
		TH_LOG("GET_INFO wrote past the size it was given");
}

TEST_F(device, get_info_one_byte)
{
	struct drm_neuronprof_get_info gi;
	unsigned char b = 0xa5;

	init_get_info(&gi, &b, 1);
	ASSERT_ERRNO(EINVAL, get_info_raw(self->dev.fd, &gi));
	ASSERT_EQ(0xa5, b);
}

TEST_F(device, get_info_exact)
{
	const struct drm_neuronprof_device_info *i = &self->dev.info;
	struct drm_neuronprof_get_info gi;
	struct drm_neuronprof_device_info info;
	long page = nprof_page_size();
	size_t plen;

	memset(&info, 0xa5, sizeof(info));
	init_get_info(&gi, &info, sizeof(info));
	ASSERT_EQ(0, get_info_raw(self->dev.fd, &gi));
	ASSERT_EQ(sizeof(info), gi.size);
	ASSERT_EQ(0, memcmp(&info, i, sizeof(info)))
		TH_LOG("two GET_INFO calls disagree");

	ASSERT_EQ((uint32_t)NEURONPROF_UAPI_VERSION, i->uapi_version);
	ASSERT_TRUE(i->arch >= NEURONPROF_ARCH_TRN1 && i->arch <= NEURONPROF_ARCH_TRN2)
		TH_LOG("arch %u", i->arch);
	plen = strnlen(i->provider, sizeof(i->provider));
	ASSERT_LT(0u, plen) TH_LOG("empty provider name");
	ASSERT_GT(sizeof(i->provider), plen) TH_LOG("provider not NUL-terminated");
	ASSERT_TRUE(all_bytes(i->provider + plen, sizeof(i->provider) - plen, 0))
		TH_LOG("provider has bytes after its NUL");
	ASSERT_LE(1u, i->num_cores);
	ASSERT_EQ(0u, i->num_topsps % i->num_cores);
	ASSERT_LE(1u, i->engines_per_core);
	ASSERT_GE((uint32_t)NEURONPROF_MAX_ENGINES, i->engines_per_core);
	ASSERT_TRUE(nprof_is_pow2(i->entry_size)) TH_LOG("entry_size %u", i->entry_size);
	ASSERT_LE(sizeof(struct neuronprof_notification), i->entry_size);
	ASSERT_NE(0u, i->core_queue_types);
	ASSERT_EQ(0u, i->core_queue_types & ~0x3fu)
		TH_LOG("core_queue_types %#x has non-core types", i->core_queue_types);
	ASSERT_EQ(0u, i->topsp_queue_types & ~0x1c0u)
		TH_LOG("topsp_queue_types %#x has non-TopSP types", i->topsp_queue_types);
	ASSERT_EQ(0u, i->per_engine_queue_types &
		     ~(i->core_queue_types | i->topsp_queue_types));
	ASSERT_EQ(0ull, i->caps & ~(NEURONPROF_CAP_SIM_EXEC | NEURONPROF_CAP_FLUSH))
		TH_LOG("unknown caps %#llx", (unsigned long long)i->caps);
	ASSERT_TRUE(nprof_is_pow2(i->min_ring_size));
	ASSERT_TRUE(nprof_is_pow2(i->max_ring_size));
	ASSERT_EQ(0ull, i->min_ring_size % (uint64_t)page);
	ASSERT_LE(i->min_ring_size, i->max_ring_size);
	ASSERT_LE(i->entry_size, i->min_ring_size);
	ASSERT_EQ(0u, i->pad);
	ASSERT_TRUE(all_bytes(i->reserved, sizeof(i->reserved), 0));
}

/* A buffer larger than the struct gets the struct and nothing more. */
TEST_F(device, get_info_larger_buffer)
{
	unsigned char buf[sizeof(struct drm_neuronprof_device_info) + 64];
	struct drm_neuronprof_get_info gi;

	memset(buf, 0xa5, sizeof(buf));
	init_get_info(&gi, buf, sizeof(buf));
	ASSERT_EQ(0, get_info_raw(self->dev.fd, &gi));
	ASSERT_EQ(sizeof(struct drm_neuronprof_device_info), gi.size);
	ASSERT_EQ(0, memcmp(buf, &self->dev.info, gi.size));
	ASSERT_TRUE(all_bytes(buf + gi.size, sizeof(buf) - gi.size, 0xa5))
		TH_LOG("GET_INFO wrote beyond the size it returned");
}

TEST_F(device, get_info_unknown_query)
{
	static const uint32_t bad[] = { 0, NEURONPROF_INFO_CODE_NAMES + 1, 0xffffffffu };
	struct drm_neuronprof_device_info info;
	struct drm_neuronprof_get_info gi;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		init_get_info(&gi, &info, sizeof(info));
		gi.query = bad[i];
		ASSERT_EQ(-1, get_info_raw(self->dev.fd, &gi))
			TH_LOG("query %u succeeded", bad[i]);
		ASSERT_EQ(EINVAL, errno)
			TH_LOG("query %u: %s", bad[i], strerror(errno));
	}
}

TEST_F(device, get_info_unknown_query_size_query)
{
	struct drm_neuronprof_get_info gi;

	init_get_info(&gi, NULL, 0);
	gi.query = NEURONPROF_INFO_CODE_NAMES + 1;
	ASSERT_ERRNO(EINVAL, get_info_raw(self->dev.fd, &gi));
}

TEST_F(device, get_info_flags_nonzero)
{
	struct drm_neuronprof_device_info info;
	struct drm_neuronprof_get_info gi;

	init_get_info(&gi, &info, sizeof(info));
	gi.flags = 1;
	ASSERT_ERRNO(EINVAL, get_info_raw(self->dev.fd, &gi));
}

TEST_F(device, get_info_pad_nonzero)
{
	struct drm_neuronprof_device_info info;
	struct drm_neuronprof_get_info gi;

	init_get_info(&gi, &info, sizeof(info));
	gi.pad = 1;
	ASSERT_ERRNO(EINVAL, get_info_raw(self->dev.fd, &gi));
}

TEST_F(device, get_info_bad_pointer)
{
	struct drm_neuronprof_get_info gi;

	init_get_info(&gi, NULL, sizeof(struct drm_neuronprof_device_info));
	ASSERT_ERRNO(EFAULT, get_info_raw(self->dev.fd, &gi));
}

/* A newer userspace passes a longer, zero-extended argument. */
TEST_F(device, get_info_longer_argument)
{
	struct {
		struct drm_neuronprof_get_info gi;
		uint64_t newer[2];
	} arg;
	struct drm_neuronprof_device_info info;
	unsigned long cmd = DRM_IOWR(DRM_COMMAND_BASE + DRM_NEURONPROF_GET_INFO,
				     arg);

	memset(&arg, 0, sizeof(arg));
	init_get_info(&arg.gi, &info, sizeof(info));
	ASSERT_EQ(0, ioctl(self->dev.fd, cmd, &arg));
	ASSERT_EQ(sizeof(info), arg.gi.size);
	ASSERT_EQ(0, memcmp(&info, &self->dev.info, sizeof(info)));
}

/* A driver ioctl number this uapi does not define. */
TEST_F(device, unknown_driver_ioctl_enotty)
{
	struct drm_neuronprof_get_info gi;
	/* One past the last driver ioctl (NQ_HOLDERS, uapi 4). */
	unsigned long cmd = DRM_IOWR(DRM_COMMAND_BASE + DRM_NEURONPROF_NQ_HOLDERS + 1,
				     struct drm_neuronprof_get_info);

	init_get_info(&gi, NULL, 0);
	ASSERT_ERRNO(ENOTTY, ioctl(self->dev.fd, cmd, &gi));
}

/* What the simulator announces, as Documentation/simulator.rst has it. */
TEST_F(device, sim_device_info)
{
	const struct drm_neuronprof_device_info *i = &self->dev.info;

	ASSERT_STREQ("sim", i->provider);
	ASSERT_EQ(NEURONPROF_CAP_SIM_EXEC | NEURONPROF_CAP_FLUSH, i->caps);
	ASSERT_EQ(CLOCK_MONOTONIC, (int)i->clock_id);
	ASSERT_EQ(0x3fu, i->core_queue_types);
	ASSERT_EQ(0x1c0u, i->topsp_queue_types);
	/* uapi: TRACE, EVENT and DMA have one queue per engine. */
	ASSERT_EQ((1u << NEURONPROF_QT_TRACE) | (1u << NEURONPROF_QT_EVENT) |
		  (1u << NEURONPROF_QT_DMA), i->per_engine_queue_types);
}

TEST_F(device, device_index_unique)
{
	struct nprof_dev second;
	int ret;

	ret = nprof_sim_new_device(DEV_ID + 1, NULL, &second);
	ASSERT_EQ(0, ret) TH_LOG("new_device %u: %s", DEV_ID + 1, strerror(-ret));
	EXPECT_NE(self->dev.info.device_index, second.info.device_index);
	EXPECT_STRNE(self->dev.node, second.node);
	nprof_dev_close(&second);
	ASSERT_EQ(0, nprof_sim_del_device(DEV_ID + 1));
}

/* ---- NEURONPROF_INFO_CODE_NAMES ---------------------------------------- */

#define NAMES_HDR	sizeof(struct drm_neuronprof_code_names)
#define NAME_SIZE	sizeof(struct neuronprof_code_name)

static void init_names(struct drm_neuronprof_get_info *gi, void *buf, uint32_t size)
{
	init_get_info(gi, buf, size);
	gi->query = NEURONPROF_INFO_CODE_NAMES;
}

/* The whole table of @fd, malloc()ed; NULL on failure (the test failed). */
static struct drm_neuronprof_code_names *read_names(struct __test_metadata *_metadata,
						     int fd)
{
	struct drm_neuronprof_code_names *t;
	struct drm_neuronprof_get_info gi;
	uint32_t size;

	init_names(&gi, NULL, 0);
	EXPECT_EQ(0, get_info_raw(fd, &gi));
	size = gi.size;
	EXPECT_LE(NAMES_HDR, size);
	EXPECT_EQ(0u, (size - NAMES_HDR) % NAME_SIZE);
	t = malloc(size);
	if (!t)
		return NULL;
	init_names(&gi, t, size);
	EXPECT_EQ(0, get_info_raw(fd, &gi));
	EXPECT_EQ(size, gi.size);
	EXPECT_EQ((uint32_t)NEURONPROF_CODE_NAMES_VERSION, t->version);
	EXPECT_EQ(NAME_SIZE, t->entry_size);
	EXPECT_EQ(size, NAMES_HDR + t->count * NAME_SIZE);
	return t;
}

/* The entries follow the header. */
static const struct neuronprof_code_name *names_of(const struct drm_neuronprof_code_names *t)
{
	return (const void *)(t + 1);
}

static const char *find_name(const struct drm_neuronprof_code_names *t, uint32_t type,
			     uint32_t code)
{
	const struct neuronprof_code_name *names = names_of(t);
	uint32_t i;

	for (i = 0; i < t->count; i++)
		if (names[i].queue_type == type && names[i].code == code)
			return names[i].name;
	return NULL;
}

/*
 * The simulator's table: sorted, each (queue_type, code) once, names of
 * [a-z0-9_.] NUL-padded, and every opcode and DMA queue a program produces
 * named after its NKI family.
 */
TEST_F(device, code_names_table)
{
	struct drm_neuronprof_code_names *t = read_names(_metadata, self->dev.fd);
	uint32_t i, e, k, engines = self->dev.info.engines_per_core;

	ASSERT_TRUE(t != NULL);
	ASSERT_EQ(engines * 32 + 16 + 1, t->count);
	for (i = 0; i < t->count; i++) {
		const struct neuronprof_code_name *c = &names_of(t)[i];
		size_t len = strnlen(c->name, sizeof(c->name)), j;

		ASSERT_LT(0u, len);
		ASSERT_GT(sizeof(c->name), len);
		for (j = 0; j < len; j++)
			ASSERT_TRUE(islower(c->name[j]) || isdigit(c->name[j]) ||
				    c->name[j] == '_' || c->name[j] == '.')
				TH_LOG("entry %u: name '%s'", i, c->name);
		ASSERT_TRUE(all_bytes(c->name + len, sizeof(c->name) - len, 0));
		if (i)
			ASSERT_TRUE(c->queue_type > c[-1].queue_type ||
				    (c->queue_type == c[-1].queue_type && c->code > c[-1].code))
				TH_LOG("entry %u out of order", i);
	}
	for (e = 0; e < engines; e++)
		for (k = 0; k < 32; k++)
			ASSERT_TRUE(find_name(t, NEURONPROF_QT_TRACE, (e + 1) << 8 | k) != NULL)
				TH_LOG("opcode 0x%x has no name", (e + 1) << 8 | k);
	ASSERT_STREQ("matmult", find_name(t, NEURONPROF_QT_TRACE, 0x100));
	ASSERT_STREQ("transpose", find_name(t, NEURONPROF_QT_TRACE, 0x103));
	ASSERT_STREQ("tensor_tensor", find_name(t, NEURONPROF_QT_TRACE, 0x200));
	ASSERT_STREQ("activation", find_name(t, NEURONPROF_QT_TRACE, 0x300));
	ASSERT_STREQ("dma_copy", find_name(t, NEURONPROF_QT_DMA, 15));
	ASSERT_STREQ("collective", find_name(t, NEURONPROF_QT_TOPSP_TRACE, 0x7f01));
	ASSERT_TRUE(find_name(t, NEURONPROF_QT_TRACE, (engines + 1) << 8) == NULL);
	ASSERT_TRUE(find_name(t, NEURONPROF_QT_INFER_STATUS, NEURONPROF_INFER_START) == NULL);
	free(t);
}

/* A buffer short of the table gets the header and the whole entries that fit. */
TEST_F(device, code_names_partial)
{
	struct drm_neuronprof_code_names *t = read_names(_metadata, self->dev.fd);
	unsigned char buf[NAMES_HDR + 2 * NAME_SIZE + 10];
	struct drm_neuronprof_code_names *p = (void *)buf;
	struct drm_neuronprof_get_info gi;

	ASSERT_TRUE(t != NULL);
	memset(buf, 0xa5, sizeof(buf));
	init_names(&gi, buf, sizeof(buf));
	ASSERT_EQ(0, get_info_raw(self->dev.fd, &gi));
	ASSERT_EQ(NAMES_HDR + 2 * NAME_SIZE, gi.size);
	ASSERT_EQ(t->count, p->count);
	ASSERT_EQ(0, memcmp(names_of(p), names_of(t), 2 * NAME_SIZE));
	ASSERT_TRUE(all_bytes(buf + gi.size, sizeof(buf) - gi.size, 0xa5))
		TH_LOG("GET_INFO wrote beyond the whole entries that fit");

	/* The header alone: the count, no entry. */
	memset(buf, 0xa5, sizeof(buf));
	init_names(&gi, buf, NAMES_HDR);
	ASSERT_EQ(0, get_info_raw(self->dev.fd, &gi));
	ASSERT_EQ(NAMES_HDR, gi.size);
	ASSERT_EQ(t->count, p->count);
	ASSERT_TRUE(all_bytes(buf + NAMES_HDR, sizeof(buf) - NAMES_HDR, 0xa5));
	free(t);
}

/* Below the header: EINVAL, nothing written. */
TEST_F(device, code_names_too_small)
{
	unsigned char buf[NAMES_HDR];
	struct drm_neuronprof_get_info gi;

	memset(buf, 0xa5, sizeof(buf));
	init_names(&gi, buf, NAMES_HDR - 1);
	ASSERT_ERRNO(EINVAL, get_info_raw(self->dev.fd, &gi));
	ASSERT_TRUE(all_bytes(buf, sizeof(buf), 0xa5));
}

TEST_F(device, code_names_bad_pointer)
{
	struct drm_neuronprof_get_info gi;

	init_names(&gi, (void *)8, 4096);
	ASSERT_ERRNO(EFAULT, get_info_raw(self->dev.fd, &gi));
}

/* Every architecture the simulator offers, created through new_device. */
FIXTURE(topology) {
	struct nprof_dev dev;
};

FIXTURE_VARIANT(topology) {
	const char *name;
	uint32_t arch;
	uint32_t cores;
	uint32_t topsps;
	uint32_t engines;
};

FIXTURE_VARIANT_ADD(topology, trn1) {
	.name = "trn1", .arch = NEURONPROF_ARCH_TRN1,
	.cores = 2, .topsps = 6, .engines = 4,
};

FIXTURE_VARIANT_ADD(topology, inf2) {
	.name = "inf2", .arch = NEURONPROF_ARCH_INF2,
	.cores = 2, .topsps = 6, .engines = 4,
};

FIXTURE_VARIANT_ADD(topology, trn2) {
	.name = "trn2", .arch = NEURONPROF_ARCH_TRN2,
	.cores = 8, .topsps = 16, .engines = 5,
};

FIXTURE_SETUP(topology)
{
	SETUP_SIM_DEV(&self->dev, DEV_ID, variant->name);
}

FIXTURE_TEARDOWN(topology)
{
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

TEST_F(topology, matches_arch)
{
	const struct drm_neuronprof_device_info *i = &self->dev.info;

	ASSERT_EQ(variant->arch, i->arch);
	ASSERT_EQ(variant->cores, i->num_cores);
	ASSERT_EQ(variant->topsps, i->num_topsps);
	ASSERT_EQ(variant->engines, i->engines_per_core);
}

/* Every architecture names the opcodes of each of its engines. */
TEST_F(topology, code_names_per_engine)
{
	struct drm_neuronprof_code_names *t = read_names(_metadata, self->dev.fd);

	ASSERT_TRUE(t != NULL);
	ASSERT_EQ(variant->engines * 32 + 16 + 1, t->count);
	ASSERT_STREQ("matmult", find_name(t, NEURONPROF_QT_TRACE, 0x100));
	ASSERT_TRUE(find_name(t, NEURONPROF_QT_TRACE, variant->engines << 8 | 31) != NULL);
	ASSERT_TRUE(find_name(t, NEURONPROF_QT_TRACE, (variant->engines + 1) << 8) == NULL);
	free(t);
}

/*
 * Every queue of the device can be subscribed at once, and each header
 * names the queue it was subscribed for.
 */
TEST_F(topology, every_queue_subscribable)
{
	const struct drm_neuronprof_device_info *i = &self->dev.info;
	struct selftest_queue q[512];
	int fds[512];
	int n = 0, k, c, ret;

	for (c = 0; c < (int)i->num_cores; c++) {
		ret = nprof_core_queues(i, c, q + n, 512 - n);
		ASSERT_LE(0, ret);
		n += ret;
	}
	ASSERT_EQ(variant->cores * (3 * variant->engines + 3) + variant->topsps * 3,
		  (uint32_t)n);

	for (k = 0; k < n; k++) {
		struct drm_neuronprof_nq_subscribe sub;
		const struct neuronprof_ring_header *h;

		fds[k] = nprof_subscribe_q(self->dev.fd, &q[k], i->min_ring_size,
					   0, &sub);
		ASSERT_LE(0, fds[k])
			TH_LOG("subscribe %s kind %u index %u engine %u: %s",
			       nprof_qt_name(q[k].type), q[k].kind, q[k].index,
			       q[k].engine, strerror(-fds[k]));
		h = mmap(NULL, sub.header_size, PROT_READ, MAP_SHARED, fds[k],
			 (off_t)sub.header_offset);
		ASSERT_TRUE(h != MAP_FAILED) TH_LOG("mmap header: %s", strerror(errno));
		EXPECT_EQ(q[k].kind, h->target_kind);
		EXPECT_EQ(q[k].index, h->target_index);
		EXPECT_EQ(q[k].type, h->queue_type);
		EXPECT_EQ(q[k].engine, h->engine);
		munmap((void *)h, sub.header_size);
	}
	for (k = 0; k < n; k++)
		close(fds[k]);
}

TEST_HARNESS_MAIN
