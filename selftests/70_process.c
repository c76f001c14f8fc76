// SPDX-License-Identifier: GPL-2.0
/*
 * Subscriptions and processes: a subscription is a file descriptor of the
 * process that created it and nothing else. Another process cannot take the
 * same queue while it is held, cannot use the descriptor number, and gets
 * the queue once the holder exits (however it exits). The data of a ring
 * reaches the process that holds it whoever runs the program.
 */
#include "nprof_test.h"

#include <sys/socket.h>

#define PROG 7
#define DEV_ID NPROF_TEST_ID(PROG, 0)
#define MODEL_ID 0x7011u

static const struct selftest_queue trace0 = {
	NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0
};

/* Exit codes of the children, so the parent can say what went wrong. */
enum {
	CHILD_OK = 0,
	CHILD_OPEN = 10,
	CHILD_SUBSCRIBE,
	CHILD_MMAP,
	CHILD_PIPE,
	CHILD_POLL,
	CHILD_CONSUME,
};

FIXTURE(process) {
	struct nprof_dev dev;
	int to_child[2];
	int from_child[2];
	pid_t pid;
};

FIXTURE_SETUP(process)
{
	self->pid = -1;
	self->to_child[0] = self->to_child[1] = -1;
	self->from_child[0] = self->from_child[1] = -1;
	SETUP_SIM_DEV(&self->dev, DEV_ID, NULL);
	ASSERT_EQ(0, pipe2(self->to_child, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(self->from_child, O_CLOEXEC));
}

FIXTURE_TEARDOWN(process)
{
	int k;

	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
	for (k = 0; k < 2; k++) {
		if (self->to_child[k] >= 0)
			close(self->to_child[k]);
		if (self->from_child[k] >= 0)
			close(self->from_child[k]);
	}
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

/*
 * Child side: open the render node itself, subscribe @trace0 and map the
 * ring, report the subscription's descriptor number, then wait for the
 * parent's word (or for a signal).
 */
static void child_hold(FIXTURE_DATA(process) *self)
{
	struct nprof_dev dev;
	struct selftest_ring r;
	char c;

	if (nprof_dev_open(self->dev.node, &dev))
		_exit(CHILD_OPEN);
	if (selftest_ring_open(dev.fd, &trace0, dev.info.min_ring_size, 0, &r))
		_exit(CHILD_SUBSCRIBE);
	if (write(self->from_child[1], &r.fd, sizeof(r.fd)) != sizeof(r.fd))
		_exit(CHILD_PIPE);
	if (read(self->to_child[0], &c, 1) != 1)
		_exit(CHILD_PIPE);
	_exit(CHILD_OK);
}

/* Fork a holder and return the descriptor number it subscribed with. */
static int start_holder(struct __test_metadata *_metadata,
			FIXTURE_DATA(process) *self)
{
	int fd = -1;

	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0)
		child_hold(self);
	ASSERT_EQ((ssize_t)sizeof(fd), read(self->from_child[0], &fd, sizeof(fd)))
		TH_LOG("the child died before subscribing");
	ASSERT_LE(0, fd);
	return fd;
}

static void wait_child(struct __test_metadata *_metadata,
		       FIXTURE_DATA(process) *self)
{
	int status;

	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	self->pid = -1;
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("child status %#x", status);
	ASSERT_EQ(CHILD_OK, WEXITSTATUS(status))
		TH_LOG("child failed with code %d", WEXITSTATUS(status));
}

/*
 * Another process's subscription is one of the queue's subscribers: this
 * process subscribes beside it, NQ_HOLDERS names the other process, and
 * its subscription goes when it exits.
 */
TEST_F(process, queue_shared_with_other_process)
{
	struct drm_neuronprof_nq_holders h;
	struct drm_neuronprof_nq_subscribe sub;
	char c = 'x';
	int fd;

	start_holder(_metadata, self);
	fd = nprof_subscribe_q(self->dev.fd, &trace0,
			       self->dev.info.min_ring_size, 0, &sub);
	ASSERT_LE(0, fd) TH_LOG("subscribe beside the child: %s", strerror(-fd));
	ASSERT_EQ(0, nprof_holders(self->dev.fd, &trace0, &h));
	ASSERT_EQ(2u, h.count);
	EXPECT_EQ(self->pid, h.holders[0].pid);
	EXPECT_EQ(getpid(), h.holders[1].pid);
	ASSERT_EQ(1, write(self->to_child[1], &c, 1));
	wait_child(_metadata, self);
	/* The holder is gone, and its subscription with it. */
	ASSERT_EQ(0, nprof_holders(self->dev.fd, &trace0, &h));
	ASSERT_EQ(1u, h.count);
	EXPECT_EQ(getpid(), h.holders[0].pid);
	close(fd);
}

/* The holder's descriptor number means nothing in another process. */
TEST_F(process, other_process_fd_number_useless)
{
	struct neuronprof_nq_drain d = { 0 };
	char c = 'x';
	void *p;
	int fd;

	fd = start_holder(_metadata, self);
	ASSERT_ERRNO(EBADF, fcntl(fd, F_GETFD));
	ASSERT_ERRNO(EBADF, ioctl(fd, NEURONPROF_IOCTL_NQ_DRAIN, &d));
	p = mmap(NULL, (size_t)nprof_page_size(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(p == MAP_FAILED);
	ASSERT_EQ(EBADF, errno);
	ASSERT_EQ(1, write(self->to_child[1], &c, 1));
	wait_child(_metadata, self);
}

/* A holder killed while subscribed and mapped frees the queue. */
TEST_F(process, killed_holder_frees_queue)
{
	struct drm_neuronprof_nq_subscribe sub;
	int status, fd;

	start_holder(_metadata, self);
	ASSERT_EQ(0, kill(self->pid, SIGKILL));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	self->pid = -1;
	ASSERT_TRUE(WIFSIGNALED(status));
	fd = nprof_subscribe_q(self->dev.fd, &trace0,
			       self->dev.info.min_ring_size, 0, &sub);
	ASSERT_LE(0, fd) TH_LOG("subscribe after the holder was killed: %s",
				strerror(-fd));
	close(fd);
}

/*
 * The child consumes, the parent runs the program: the child's ring gets
 * every notification, delivered or lost.
 */
static void child_consume(FIXTURE_DATA(process) *self)
{
	struct pollfd p;
	struct nprof_dev dev;
	struct selftest_ring r;
	__u64 report[2];
	int ready = 1;

	if (nprof_dev_open(self->dev.node, &dev))
		_exit(CHILD_OPEN);
	if (selftest_ring_open(dev.fd, &trace0, dev.info.min_ring_size, 0, &r))
		_exit(CHILD_SUBSCRIBE);
	if (write(self->from_child[1], &ready, sizeof(ready)) != sizeof(ready))
		_exit(CHILD_PIPE);
	p.fd = r.fd;
	p.events = POLLIN;
	if (poll(&p, 1, 30000) != 1 || !(p.revents & POLLIN))
		_exit(CHILD_POLL);
	/* Wait for the parent's word: the program is over. */
	if (read(self->to_child[0], &ready, 1) != 1)
		_exit(CHILD_PIPE);
	if (selftest_ring_settle(&r, NULL, dev.info.caps & NEURONPROF_CAP_FLUSH))
		_exit(CHILD_CONSUME);
	report[0] = r.delivered;
	report[1] = r.hdr->lost;
	if (write(self->from_child[1], report, sizeof(report)) != sizeof(report))
		_exit(CHILD_PIPE);
	_exit(CHILD_OK);
}

TEST_F(process, child_receives_parent_program)
{
	struct drm_neuronprof_sim_exec ex;
	__u64 report[2];
	char c = 'x';
	int ready;

	REQUIRE_SIM_EXEC(&self->dev);
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0)
		child_consume(self);
	ASSERT_EQ((ssize_t)sizeof(ready),
		  read(self->from_child[0], &ready, sizeof(ready)));
	nprof_exec_init(&ex, 0, MODEL_ID, 2, 0, 0, 0);
	ex.instructions[0] = 100;
	ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
	ASSERT_EQ(1, write(self->to_child[1], &c, 1));
	ASSERT_EQ((ssize_t)sizeof(report),
		  read(self->from_child[0], report, sizeof(report)));
	wait_child(_metadata, self);
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE], report[0] + report[1]);
	ASSERT_LT(0ull, report[0]);
}

/* A subscription does not depend on the render node it was made through. */
TEST_F(process, subscription_outlives_render_fd)
{
	struct drm_neuronprof_sim_exec ex;
	struct nprof_dev other;
	struct selftest_ring r;
	int ret;

	REQUIRE_SIM_EXEC(&self->dev);
	ret = nprof_dev_open(self->dev.node, &other);
	ASSERT_EQ(0, ret);
	ret = selftest_ring_open(other.fd, &trace0, self->dev.info.min_ring_size, 0, &r);
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	nprof_dev_close(&other);

	nprof_exec_init(&ex, 0, MODEL_ID, 1, 0, 0, 0);
	ex.instructions[0] = 9;
	ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
	ASSERT_RING_OK(&r, selftest_ring_settle(&r, NULL, true));
	ASSERT_EQ(ex.produced[NEURONPROF_QT_TRACE], r.delivered);
	ASSERT_LT(0ull, r.delivered);
	selftest_ring_close(&r);
}

/* exec() drops the subscription (O_CLOEXEC): the queue is free after it. */
TEST_F(process, exec_drops_subscription)
{
	struct drm_neuronprof_nq_subscribe sub;
	int status, fd;

	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0) {
		struct nprof_dev dev;

		if (nprof_dev_open(self->dev.node, &dev))
			_exit(CHILD_OPEN);
		if (nprof_subscribe_q(dev.fd, &trace0, dev.info.min_ring_size,
				      0, &sub) < 0)
			_exit(CHILD_SUBSCRIBE);
		/*
		 * Only the pipe ends survive exec (dup2 clears O_CLOEXEC).
		 * The shell says it runs, which is after exec closed the
		 * subscription, then waits for the parent.
		 */
		if (dup2(self->to_child[0], 0) != 0 || dup2(self->from_child[1], 1) != 1)
			_exit(CHILD_PIPE);
		execl("/bin/sh", "sh", "-c", "echo r; read x", (char *)NULL);
		_exit(CHILD_PIPE);
	}
	{
		char c = 0;

		ASSERT_EQ(1, read(self->from_child[0], &c, 1))
			TH_LOG("the child did not get to exec /bin/sh");
		ASSERT_EQ('r', c);
	}
	fd = nprof_subscribe_q(self->dev.fd, &trace0,
			       self->dev.info.min_ring_size, 0, &sub);
	EXPECT_LE(0, fd) TH_LOG("the subscription survived exec: %s",
				fd < 0 ? strerror(-fd) : "");
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(2, write(self->to_child[1], "x\n", 2));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	self->pid = -1;
}

/* Send @fd over the unix socket @sock (SCM_RIGHTS). */
static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * A subscription fd passed to another process is owned by it like any
 * file: the sender can close its copy, the receiver drains and holds the
 * queue until it closes it.
 */
TEST_F(process, fd_passed_with_scm_rights)
{
	struct drm_neuronprof_nq_holders h;
	struct drm_neuronprof_nq_subscribe sub;
	int sv[2], fd, status;
	char c = 'x';

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0) {
		struct neuronprof_nq_drain d;
		int got = recv_fd(sv[1]);

		if (got < 0)
			_exit(CHILD_PIPE);
		if (nprof_drain(got, 0, 0, &d))
			_exit(CHILD_CONSUME);
		if (write(self->from_child[1], &c, 1) != 1)
			_exit(CHILD_PIPE);
		if (read(self->to_child[0], &c, 1) != 1)
			_exit(CHILD_PIPE);
		close(got);
		if (write(self->from_child[1], &c, 1) != 1)
			_exit(CHILD_PIPE);
		_exit(CHILD_OK);
	}
	fd = nprof_subscribe_q(self->dev.fd, &trace0,
			       self->dev.info.min_ring_size, 0, &sub);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, send_fd(sv[0], fd));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(1, read(self->from_child[0], &c, 1)) TH_LOG("the child could not drain");
	/* The child holds it now: the only subscription of the queue. */
	ASSERT_EQ(0, nprof_holders(self->dev.fd, &trace0, &h));
	ASSERT_EQ(1u, h.count);
	ASSERT_EQ(1, write(self->to_child[1], &c, 1));
	ASSERT_EQ(1, read(self->from_child[0], &c, 1));
	/* Closed by the child, and gone. */
	ASSERT_EQ(0, nprof_holders(self->dev.fd, &trace0, &h));
	EXPECT_EQ(0u, h.count);
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	self->pid = -1;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(CHILD_OK, WEXITSTATUS(status));
	close(sv[0]);
	close(sv[1]);
}

TEST_HARNESS_MAIN
