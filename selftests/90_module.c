// SPDX-License-Identifier: GPL-2.0
/*
 * Module lifetime: neuronprof_sim cannot be unloaded while a subscription
 * or a mapping of one exists, and can once both are gone; unloading it under
 * an open render node unplugs the device; neuronprof and neuronprof_sim
 * unload and load again cleanly, repeatedly.
 *
 * This program unloads the modules, so it runs last. It always leaves
 * neuronprof_sim loaded, with the parameters it found.
 */
#include "nprof_test.h"

#include <dirent.h>
#include <sys/syscall.h>

#define PROG 9
#define DEV_ID NPROF_TEST_ID(PROG, 0)
#define MODEL_ID 0x90d0u
#define SIM "neuronprof_sim"
#define CORE "neuronprof"
#define RELOADS 5

static const struct selftest_queue trace0 = {
	NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0
};

static bool module_loaded(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", name);
	return !stat(path, &st);
}

/* 0 or -errno of delete_module(2), as rmmod does it (O_NONBLOCK). */
static int unload(const char *name)
{
	if (syscall(SYS_delete_module, name, O_NONBLOCK))
		return -errno;
	return 0;
}

/*
 * The module's parameters as "name=value" words, so it can be loaded again
 * as it was. Only readable parameters can be carried over.
 */
static int module_params(const char *name, char params[][128], int max)
{
	char dir[128], path[512];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", name);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char val[96];
		ssize_t len;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, val, sizeof(val) - 1);
		close(fd);
		if (len <= 0)
			continue;
		val[len] = '\0';
		val[strcspn(val, "\n")] = '\0';
		snprintf(params[n++], 128, "%.30s=%.90s", de->d_name, val);
	}
	closedir(d);
	return n;
}

/* Run modprobe NAME PARAMS...; its exit status, or -1 if it could not run. */
static int modprobe(const char *name, char params[][128], int nparams)
{
	static const char *const paths[] = {
		"/sbin/modprobe", "/usr/sbin/modprobe", "/bin/modprobe",
		"/usr/bin/modprobe",
	};
	char *argv[20];
	int status, i, argc = 0;
	pid_t pid;

	argv[argc++] = "modprobe";
	argv[argc++] = (char *)name;
	for (i = 0; i < nparams && argc < 19; i++)
		argv[argc++] = params[i];
	argv[argc] = NULL;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		for (i = 0; i < (int)(sizeof(paths) / sizeof(paths[0])); i++)
			execv(paths[i], argv);
		execvp("modprobe", argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

FIXTURE(modules) {
	char params[16][128];
	int nparams;
	int ndevices;		/* neuronprof nodes after loading the sim */
	struct nprof_dev dev;
	bool own_dev;
};

FIXTURE_SETUP(modules)
{
	char nodes[NPROF_NODE_MAX][NPROF_PATH_MAX];

	self->dev.fd = -1;
	REQUIRE_ROOT();
	if (!module_loaded(SIM))
		SETUP_SKIP(SIM " is not loaded as a module");
	self->nparams = module_params(SIM, self->params, 16);
	self->ndevices = nprof_list_nodes(nodes, NPROF_NODE_MAX);
	ASSERT_LE(0, self->ndevices);
}

/* Whatever happened, leave neuronprof_sim loaded as it was found. */
FIXTURE_TEARDOWN(modules)
{
	nprof_dev_close(&self->dev);
	if (self->own_dev && module_loaded(SIM))
		nprof_sim_del_device(DEV_ID);
	if (!module_loaded(SIM))
		EXPECT_EQ(0, modprobe(SIM, self->params, self->nparams));
	EXPECT_TRUE(module_loaded(SIM));
}

static void new_dev(struct __test_metadata *_metadata,
		    FIXTURE_DATA(modules) *self)
{
	int ret = nprof_sim_new_device(DEV_ID, NULL, &self->dev);

	ASSERT_EQ(0, ret) TH_LOG("new_device: %s", strerror(-ret));
	self->own_dev = true;
}

/* delete_module refuses a module in use with EWOULDBLOCK (or EBUSY). */
#define ASSERT_UNLOAD_REFUSED(name) do {				\
	int __ret = unload(name);					\
	ASSERT_TRUE(__ret == -EWOULDBLOCK || __ret == -EBUSY)		\
		TH_LOG("unloading %s: %s, expected EWOULDBLOCK or EBUSY", \
		       (name), __ret ? strerror(-__ret) : "it unloaded"); \
	ASSERT_TRUE(module_loaded(name));				\
} while (0)

#define ASSERT_UNLOAD_OK(name) do {					\
	int __ret = unload(name);					\
	ASSERT_EQ(0, __ret) TH_LOG("unloading %s: %s", (name),		\
				   strerror(-__ret));			\
	ASSERT_FALSE(module_loaded(name));				\
} while (0)

#define ASSERT_RELOAD_SIM(self) do {					\
	ASSERT_EQ(0, modprobe(SIM, (self)->params, (self)->nparams))	\
		TH_LOG("modprobe " SIM " failed");			\
	ASSERT_TRUE(module_loaded(SIM));				\
} while (0)

TEST_F(modules, sim_unload_refused_while_subscribed)
{
	struct drm_neuronprof_sim_exec ex;
	struct selftest_ring r, r2;
	struct selftest_queue q = trace0;
	int ret;

	new_dev(_metadata, self);
	ret = selftest_ring_open(self->dev.fd, &trace0, self->dev.info.min_ring_size, 0, &r);
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	ASSERT_UNLOAD_REFUSED(SIM);
	/* The refused unload left everything working. */
	q.engine = 1;
	ret = selftest_ring_open(self->dev.fd, &q, self->dev.info.min_ring_size, 0, &r2);
	ASSERT_EQ(0, ret) TH_LOG("subscribe after the refused unload: %s",
				 strerror(-ret));
	nprof_exec_init(&ex, 0, MODEL_ID, 1, 3, 0, 2);
	ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
	ASSERT_RING_OK(&r, selftest_ring_settle(&r, NULL, true));
	ASSERT_RING_OK(&r2, selftest_ring_settle(&r2, NULL, true));
	ASSERT_LT(0ull, r.delivered);
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE], r.delivered + r2.delivered);
	selftest_ring_close(&r2);
	selftest_ring_close(&r);
}

/* The core is in use by the simulator. */
TEST_F(modules, core_unload_refused_while_sim_loaded)
{
	ASSERT_UNLOAD_REFUSED(CORE);
}

/* A mapping alone keeps the subscription, and the module, alive. */
TEST_F(modules, sim_unload_refused_while_mapped_then_clean)
{
	struct selftest_ring r;
	int ret;

	new_dev(_metadata, self);
	ret = selftest_ring_open(self->dev.fd, &trace0, self->dev.info.min_ring_size, 0, &r);
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	ASSERT_EQ(0, close(r.fd));
	r.fd = -1;
	ASSERT_UNLOAD_REFUSED(SIM);
	selftest_ring_unmap(&r);
	nprof_dev_close(&self->dev);
	ASSERT_UNLOAD_OK(SIM);
	self->own_dev = false;
	ASSERT_RELOAD_SIM(self);
}

TEST_F(modules, sim_unload_clean_after_close_and_munmap)
{
	struct selftest_ring r;
	int ret;

	new_dev(_metadata, self);
	ret = selftest_ring_open(self->dev.fd, &trace0, self->dev.info.min_ring_size, 0, &r);
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	selftest_ring_unmap(&r);
	ASSERT_EQ(0, close(r.fd));
	ASSERT_UNLOAD_OK(SIM);
	self->own_dev = false;
	ASSERT_RELOAD_SIM(self);
}

/*
 * An open render node does not pin the provider: unloading it unplugs the
 * device under the open file, which then gets ENODEV.
 */
TEST_F(modules, sim_unload_with_open_render_node)
{
	struct drm_neuronprof_device_info info;

	new_dev(_metadata, self);
	ASSERT_UNLOAD_OK(SIM);
	self->own_dev = false;
	ASSERT_NEG_ERRNO(ENODEV, nprof_get_info(self->dev.fd, &info));
	nprof_dev_close(&self->dev);
	ASSERT_RELOAD_SIM(self);
}

/* Unload both modules and load them again, several times. */
TEST_F_TIMEOUT(modules, unload_reload_loop, 300)
{
	char nodes[NPROF_NODE_MAX][NPROF_PATH_MAX];
	int i, n;

	for (i = 0; i < RELOADS; i++) {
		ASSERT_UNLOAD_OK(SIM);
		ASSERT_UNLOAD_OK(CORE);
		ASSERT_EQ(0, nprof_list_nodes(nodes, NPROF_NODE_MAX));

		ASSERT_EQ(0, modprobe(CORE, NULL, 0)) TH_LOG("modprobe " CORE " failed");
		ASSERT_TRUE(module_loaded(CORE));
		/* The core alone has no device. */
		ASSERT_EQ(0, nprof_list_nodes(nodes, NPROF_NODE_MAX));

		ASSERT_RELOAD_SIM(self);
		n = nprof_list_nodes(nodes, NPROF_NODE_MAX);
		ASSERT_EQ(self->ndevices, n)
			TH_LOG("round %d: %d devices after reloading, %d before",
			       i, n, self->ndevices);
	}

	/* The reloaded stack works end to end. */
	{
		struct drm_neuronprof_sim_exec ex;
		struct selftest_ring r;
		int ret;

		new_dev(_metadata, self);
		ret = selftest_ring_open(self->dev.fd, &trace0,
					 self->dev.info.min_ring_size, 0, &r);
		ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
		nprof_exec_init(&ex, 0, MODEL_ID, 2, 5, 0, 1);
		ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
		ASSERT_RING_OK(&r, selftest_ring_settle(&r, NULL, true));
		ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE], r.delivered);
		selftest_ring_close(&r);
	}
}

TEST_HARNESS_MAIN
