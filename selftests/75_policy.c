// SPDX-License-Identifier: GPL-2.0
/*
 * Who may observe a device, and what a ring costs its owner: an
 * unprivileged process (uid 65534, no capabilities) may open the render
 * node but not subscribe while neuronprof.observe_paranoid is set (EACCES),
 * and may once an administrator clears it; its rings are charged to its
 * user's locked-memory allowance (neuronprof.mlock_kb) and beyond it to
 * RLIMIT_MEMLOCK (EPERM when over, CAP_IPC_LOCK exempt); ring memory is
 * charged to the subscriber's memory cgroup. Both refusals leave a kernel
 * message that names the parameter to change. On the primary (card) node,
 * a file that is not authenticated gets EACCES for every ioctl. The module
 * parameters are restored after each test.
 */
#include "nprof_test.h"

#include <dirent.h>
#include <grp.h>
#include <sys/mount.h>

#define PROG 7
#define DEV_ID NPROF_TEST_ID(PROG, 50)

#define PARAM_DIR	"/sys/module/neuronprof/parameters"
#define PARANOID	PARAM_DIR "/observe_paranoid"
#define MLOCK_KB	PARAM_DIR "/mlock_kb"
#define NOBODY		65534
#define CGROOT		"/sys/fs/cgroup"
#define CGDIR		CGROOT "/neuronprof_selftest"

static const struct selftest_queue trace0 = {
	NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0
};
static const struct selftest_queue trace1 = {
	NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 1
};

static int read_param(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

FIXTURE(policy) {
	struct nprof_dev dev;
	char paranoid[16];
	char mlock_kb[32];
	mode_t mode;
};

FIXTURE_SETUP(policy)
{
	struct stat st;

	SETUP_SIM_DEV(&self->dev, DEV_ID, NULL);
	ASSERT_EQ(0, read_param(PARANOID, self->paranoid, sizeof(self->paranoid)))
		TH_LOG("no %s: the module has no observation knob", PARANOID);
	ASSERT_EQ(0, read_param(MLOCK_KB, self->mlock_kb, sizeof(self->mlock_kb)));
	/* The default is strict. */
	ASSERT_STREQ("Y", self->paranoid);
	/* The node itself may be open to everyone; observation is not. */
	ASSERT_EQ(0, stat(self->dev.node, &st));
	self->mode = st.st_mode & 07777;
	ASSERT_EQ(0, chmod(self->dev.node, 0666));
}

FIXTURE_TEARDOWN(policy)
{
	chmod(self->dev.node, self->mode);
	EXPECT_EQ(0, nprof_write_file(PARANOID, self->paranoid));
	EXPECT_EQ(0, nprof_write_file(MLOCK_KB, self->mlock_kb));
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

/* /dev/kmsg, positioned after the last message: what comes next. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether a kernel message logged since kmsg_open() contains @what. */
static bool kmsg_has(int fd, const char *what)
{
	char rec[2048];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten meanwhile: go on */
		if (n < 0)
			return false;	/* EAGAIN: no more messages */
		rec[n] = '\0';
		if (strstr(rec, what))
			return true;
	}
}

/* Become uid/gid 65534 with no capabilities left. */
static int drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -errno;
	return 0;
}

/*
 * In a child dropped to nobody with RLIMIT_MEMLOCK @memlock (bytes, or
 * RLIM_INFINITY to leave it): open the node, subscribe @q with a ring of
 * @ring bytes (and, when @ring2, trace1 with @ring2 bytes while holding the
 * first). Exit status: 0 when everything subscribed, else the errno of the
 * first failure (100 + errno if the setup failed).
 */
static int as_nobody(const char *node, __u64 ring, __u64 ring2, rlim_t memlock)
{
	struct drm_neuronprof_nq_subscribe sub;
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		struct rlimit rl = { memlock, memlock };
		int fd, s1, s2;

		if (memlock != RLIM_INFINITY && setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(100 + errno);
		if (drop_privileges())
			_exit(100 + errno);
		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(100 + errno);
		s1 = nprof_subscribe_q(fd, &trace0, ring, 0, &sub);
		if (s1 < 0)
			_exit(-s1);
		if (ring2) {
			s2 = nprof_subscribe_q(fd, &trace1, ring2, 0, &sub);
			if (s2 < 0)
				_exit(-s2);
		}
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(policy, unprivileged_observation_refused)
{
	struct drm_neuronprof_device_info info;
	struct drm_neuronprof_nq_subscribe sub;
	pid_t pid;
	int status, fd, kmsg;

	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg) TH_LOG("/dev/kmsg: %s", strerror(errno));
	ASSERT_EQ(EACCES, as_nobody(self->dev.node, self->dev.info.min_ring_size, 0,
				    RLIM_INFINITY));
	/* The refusal says which knob an administrator would change. */
	EXPECT_TRUE(kmsg_has(kmsg, "neuronprof.observe_paranoid"))
		TH_LOG("no kernel message naming neuronprof.observe_paranoid");
	close(kmsg);
	/* Opening and asking what the device is stays allowed. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (drop_privileges())
			_exit(1);
		fd = open(self->dev.node, O_RDWR | O_CLOEXEC);
		_exit(fd >= 0 && !nprof_get_info(fd, &info) ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* And root (CAP_PERFMON) subscribes as before. */
	fd = nprof_subscribe_q(self->dev.fd, &trace0, self->dev.info.min_ring_size, 0, &sub);
	ASSERT_LE(0, fd);
	close(fd);
}

TEST_F(policy, observation_allowed_when_relaxed)
{
	ASSERT_EQ(0, nprof_write_file(PARANOID, "0"));
	ASSERT_EQ(0, as_nobody(self->dev.node, self->dev.info.min_ring_size, 0,
			       RLIM_INFINITY));
	ASSERT_EQ(0, nprof_write_file(PARANOID, "1"));
	ASSERT_EQ(EACCES, as_nobody(self->dev.node, self->dev.info.min_ring_size, 0,
				    RLIM_INFINITY));
}

/*
 * A ring's pages (plus its header and consumer page) count against the
 * user's allowance first, then against RLIMIT_MEMLOCK.
 */
TEST_F(policy, memlock_allowance_then_rlimit)
{
	__u64 small = self->dev.info.min_ring_size;
	__u64 big = 64 * small;
	char kb[32];
	int kmsg;

	ASSERT_LE(big, self->dev.info.max_ring_size);
	ASSERT_EQ(0, nprof_write_file(PARANOID, "0"));
	/* Room for the small ring (and its two pages), not for the big one. */
	snprintf(kb, sizeof(kb), "%llu", (unsigned long long)(small + 2 * 4096) / 1024);
	ASSERT_EQ(0, nprof_write_file(MLOCK_KB, kb));
	ASSERT_EQ(0, as_nobody(self->dev.node, small, 0, 0));
	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg) TH_LOG("/dev/kmsg: %s", strerror(errno));
	ASSERT_EQ(EPERM, as_nobody(self->dev.node, small, big, 0));
	/* The refusal names the allowance an administrator would raise. */
	EXPECT_TRUE(kmsg_has(kmsg, "neuronprof.mlock_kb"))
		TH_LOG("no kernel message naming neuronprof.mlock_kb");
	close(kmsg);
	ASSERT_EQ(EPERM, as_nobody(self->dev.node, big, 0, 0));
	/* RLIMIT_MEMLOCK takes what the allowance cannot. */
	ASSERT_EQ(0, as_nobody(self->dev.node, small, big, big + 2 * 4096));
	/* Nothing stays charged: the first runs again within the allowance. */
	ASSERT_EQ(0, as_nobody(self->dev.node, small, 0, 0));
	/* No allowance at all: the rlimit alone decides. */
	ASSERT_EQ(0, nprof_write_file(MLOCK_KB, "0"));
	ASSERT_EQ(EPERM, as_nobody(self->dev.node, small, 0, 0));
	ASSERT_EQ(0, as_nobody(self->dev.node, small, 0, small + 2 * 4096));
}

/*
 * A place among the queue's subscribers is claimed before the ring is
 * charged or allocated: a subscription to a full queue fails with EBUSY, at
 * no cost, even when its ring could not have been charged (EPERM once a
 * place is free).
 */
TEST_F(policy, full_queue_refused_before_charge)
{
	int fds[NEURONPROF_MAX_SUBSCRIBERS], n;
	__u64 max = self->dev.info.max_ring_size;

	ASSERT_EQ(0, nprof_write_file(PARANOID, "0"));
	ASSERT_EQ(0, nprof_write_file(MLOCK_KB, "0"));
	n = nprof_fill_queue(self->dev.fd, &trace0, self->dev.info.min_ring_size, fds);
	ASSERT_EQ(NEURONPROF_MAX_SUBSCRIBERS, n) TH_LOG("%s", n < 0 ? strerror(-n) : "");
	ASSERT_EQ(EBUSY, as_nobody(self->dev.node, max, 0, 0));
	close(fds[--n]);
	ASSERT_EQ(EPERM, as_nobody(self->dev.node, max, 0, 0));
	while (n)
		close(fds[--n]);
}

/* CAP_IPC_LOCK (root here) is exempt from the limit. */
TEST_F(policy, ipc_lock_exempt)
{
	struct drm_neuronprof_nq_subscribe sub;
	struct rlimit old, zero = { 0, 0 };
	int fd;

	ASSERT_EQ(0, nprof_write_file(MLOCK_KB, "0"));
	ASSERT_EQ(0, getrlimit(RLIMIT_MEMLOCK, &old));
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &zero));
	fd = nprof_subscribe_q(self->dev.fd, &trace0, 64 * self->dev.info.min_ring_size,
			       0, &sub);
	setrlimit(RLIMIT_MEMLOCK, &old);
	ASSERT_LE(0, fd) TH_LOG("subscribe: %s", strerror(-fd));
	close(fd);
}

/* The primary (card) node of the device whose render node is @render. */
static int card_node(const char *render, char *out, size_t len)
{
	char dir[320];
	struct dirent *de;
	int ret = -ENOENT;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/class/drm/%s/device/drm",
		 render + strlen("/dev/dri/"));
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "card", 4))
			continue;
		snprintf(out, len, "/dev/dri/%s", de->d_name);
		ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

/*
 * The render node is the interface; on the primary (card) node every ioctl
 * needs DRM_AUTH. A file of an unprivileged user there is neither the DRM
 * master (root holds the node open, so a master exists) nor authenticated
 * by it: GET_INFO, NQ_SUBSCRIBE and SIM_EXEC fail with EACCES. The same
 * user on the render node is served (observation relaxed, so that only the
 * node makes the difference). Exit status of the child: the failed step.
 */
TEST_F(policy, card_node_needs_auth)
{
	struct drm_neuronprof_device_info info;
	struct drm_neuronprof_nq_subscribe sub;
	struct drm_neuronprof_sim_exec ex;
	char card[300];
	int master, status;
	struct stat st;
	pid_t pid;

	REQUIRE_SIM_EXEC(&self->dev);
	if (card_node(self->dev.node, card, sizeof(card)))
		SKIP(return, "no primary node for %s", self->dev.node);
	ASSERT_EQ(0, nprof_write_file(PARANOID, "0"));
	master = open(card, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, master) TH_LOG("%s: %s", card, strerror(errno));
	/* Root is authenticated (and the first opener is the master). */
	ASSERT_EQ(0, nprof_get_info(master, &info));
	ASSERT_EQ(0, stat(card, &st));
	ASSERT_EQ(0, chmod(card, 0666));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd, sfd;

		if (drop_privileges())
			_exit(100);
		fd = open(card, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(101);
		if (nprof_get_info(fd, &info) != -EACCES)
			_exit(1);
		if (nprof_subscribe_q(fd, &trace0, self->dev.info.min_ring_size, 0,
				      &sub) != -EACCES)
			_exit(2);
		nprof_exec_init(&ex, 0, 1, 1, 1, 0, 1);
		if (nprof_exec(fd, &ex) != -EACCES)
			_exit(3);
		close(fd);
		fd = open(self->dev.node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(102);
		if (nprof_get_info(fd, &info))
			_exit(4);
		sfd = nprof_subscribe_q(fd, &trace0, self->dev.info.min_ring_size, 0, &sub);
		if (sfd < 0)
			_exit(5);
		nprof_exec_init(&ex, 0, 1, 1, 1, 0, 1);
		if (nprof_exec(fd, &ex))
			_exit(6);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	chmod(card, st.st_mode & 07777);
	close(master);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status))
		TH_LOG("step %d: 1-3 GET_INFO, NQ_SUBSCRIBE, SIM_EXEC on %s not EACCES; 4-6 the same failed on %s",
		       WEXITSTATUS(status), card, self->dev.node);
}

static long long cg_read(const char *file)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), CGDIR "/%s", file);
	if (read_param(path, buf, sizeof(buf)))
		return -1;
	return atoll(buf);
}

/* The ring's memory shows up in the subscriber's memory cgroup. */
TEST_F(policy, ring_charged_to_memcg)
{
	struct drm_neuronprof_nq_subscribe sub;
	__u64 ring = 16ull << 20;
	long long before, during, after;
	char pid[32];
	int fd;

	if (ring > self->dev.info.max_ring_size)
		ring = self->dev.info.max_ring_size;
	if (access(CGROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CGROOT, "cgroup2", 0, NULL))
		SKIP(return, "cannot mount cgroup2 on %s: %s", CGROOT, strerror(errno));
	if (nprof_write_file(CGROOT "/cgroup.subtree_control", "+memory"))
		SKIP(return, "no memory controller");
	rmdir(CGDIR);
	ASSERT_EQ(0, mkdir(CGDIR, 0755));
	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_EQ(0, nprof_write_file(CGDIR "/cgroup.procs", pid));

	before = cg_read("memory.current");
	fd = nprof_subscribe_q(self->dev.fd, &trace0, ring, 0, &sub);
	during = cg_read("memory.current");
	if (fd >= 0)
		close(fd);
	after = cg_read("memory.current");

	nprof_write_file(CGROOT "/cgroup.procs", pid);
	rmdir(CGDIR);
	ASSERT_LE(0, fd) TH_LOG("subscribe: %s", strerror(-fd));
	ASSERT_LE(0, before);
	TH_LOG("memory.current %lld -> %lld -> %lld for a %llu-byte ring",
	       before, during, after, (unsigned long long)ring);
	ASSERT_LE(before + (long long)ring, during);
	ASSERT_GT(before + (long long)ring / 2, after);
}

TEST_HARNESS_MAIN
