// SPDX-License-Identifier: GPL-2.0
/*
 * What a hostile or careless process does to the uapi, and must survive:
 * - racing device creation: threads open, subscribe and run programs on
 *   every render node the moment it appears, while devices are created and
 *   removed in a loop (a provider that published its device before it was
 *   ready crashed the kernel here);
 * - zapping the page tables of ring mappings (MADV_DONTNEED): the next
 *   access faults the same pages back in, no SIGBUS;
 * - read() racing NQ_DRAIN releases and consumer-page stores: read() never
 *   returns an entry that the producer overwrote while it was copied.
 */
#include "nprof_test.h"

#include <dirent.h>
#include <linux/userfaultfd.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#define PROG 8
#define DEV_ID NPROF_TEST_ID(PROG, 50)
#define RACE_DEV_ID NPROF_TEST_ID(PROG, 51)
#define MODEL_ID 0x85a0u

#define RACE_CYCLES	150
#define RACE_THREADS	2
#define RACE_MINORS	64	/* render minors 128..191 */

static const struct selftest_queue trace0 = {
	NEURONPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0
};

struct race {
	atomic_bool stop;
	bool stable[RACE_MINORS];	/* nodes that existed before: not raced */
	atomic_ulong opened;
	atomic_ulong subscribed;
	atomic_ulong executed;
};

/* Open, subscribe and execute on a node, as fast as possible. */
static void race_node(struct race *rc, int minor)
{
	struct drm_neuronprof_nq_subscribe sub;
	struct drm_neuronprof_sim_exec ex;
	char path[NPROF_PATH_MAX];
	int fd, sfd;

	snprintf(path, sizeof(path), "/dev/dri/renderD%d", 128 + minor);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	atomic_fetch_add(&rc->opened, 1);
	sfd = nprof_subscribe_q(fd, &trace0, 4096, 0, &sub);
	if (sfd >= 0)
		atomic_fetch_add(&rc->subscribed, 1);
	nprof_exec_init(&ex, 0, MODEL_ID, 1, 8, 0, 1);
	if (!nprof_exec(fd, &ex))
		atomic_fetch_add(&rc->executed, 1);
	if (sfd >= 0)
		close(sfd);
	close(fd);
}

static void *race_fn(void *arg)
{
	struct race *rc = arg;
	int m;

	while (!atomic_load(&rc->stop))
		for (m = 0; m < RACE_MINORS; m++)
			if (!rc->stable[m])
				race_node(rc, m);
	return NULL;
}

FIXTURE(race) {
	int unused;
};

FIXTURE_SETUP(race)
{
	REQUIRE_ROOT();
	if (!nprof_sim_loaded())
		SETUP_SKIP("neuronprof_sim is not loaded");
}

FIXTURE_TEARDOWN(race)
{
}

/*
 * Devices are created and removed while other threads hammer every new
 * node. Before providers had to finish initialising before publication,
 * this oopsed (NULL device in the producer) and then hung removal.
 */
TEST_F_TIMEOUT(race, probe_race, 300)
{
	pthread_t th[RACE_THREADS];
	struct race rc = { 0 };
	char path[NPROF_PATH_MAX], buf[32];
	int i, cycle, ret = 0;

	nprof_sim_del_device(RACE_DEV_ID);
	for (i = 0; i < RACE_MINORS; i++) {
		snprintf(path, sizeof(path), "/dev/dri/renderD%d", 128 + i);
		rc.stable[i] = access(path, F_OK) == 0;
	}
	for (i = 0; i < RACE_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, race_fn, &rc));
	for (cycle = 0; cycle < RACE_CYCLES; cycle++) {
		snprintf(buf, sizeof(buf), "%u\n", RACE_DEV_ID);
		ret = nprof_write_file(NPROF_SIM_DRIVER_DIR "/new_device", buf);
		if (ret)
			break;
		ret = nprof_sim_del_device(RACE_DEV_ID);
		if (ret)
			break;
	}
	atomic_store(&rc.stop, true);
	for (i = 0; i < RACE_THREADS; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	ASSERT_EQ(0, ret) TH_LOG("cycle %d: %s", cycle, strerror(-ret));
	TH_LOG("%d cycles: %lu opens, %lu subscriptions, %lu executions on new nodes",
	       cycle, atomic_load(&rc.opened), atomic_load(&rc.subscribed),
	       atomic_load(&rc.executed));
	/* The race was run, not missed: new nodes were reached and used. */
	ASSERT_LT(0ul, atomic_load(&rc.executed));
}

FIXTURE(hostile) {
	struct nprof_dev dev;
	struct selftest_ring r;
};

FIXTURE_SETUP(hostile)
{
	int ret;

	self->r.fd = -1;
	SETUP_SIM_DEV(&self->dev, DEV_ID, NULL);
	REQUIRE_SIM_EXEC(&self->dev);
	ret = selftest_ring_open(self->dev.fd, &trace0, self->dev.info.min_ring_size,
				 0, &self->r);
	ASSERT_EQ(0, ret) TH_LOG("subscribe+mmap: %s", strerror(-ret));
}

FIXTURE_TEARDOWN(hostile)
{
	selftest_ring_close(&self->r);
	TEARDOWN_SIM_DEV(&self->dev, DEV_ID);
}

static jmp_buf zap_env;

static void zap_sigbus(int sig)
{
	longjmp(zap_env, sig);
}

/* MADV_DONTNEED on every mapping, then read and write through them all. */
TEST_F(hostile, mappings_survive_zap)
{
	struct sigaction sa = { .sa_handler = zap_sigbus }, old_bus, old_segv;
	struct drm_neuronprof_sim_exec ex;
	const struct neuronprof_notification *n;
	__u64 prod, half, size = self->r.sub.data_size;
	volatile __u64 seq0 = 0, seen_prod = 0;
	int sig;

	nprof_exec_init(&ex, 0, MODEL_ID, 1, 0, 0, 0);
	ex.instructions[0] = RING_ENTRIES(&self->dev, size) / 2;
	ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
	prod = selftest_ring_producer(&self->r);
	ASSERT_LT(0ull, prod);
	half = prod / self->r.entry_size / 2 * self->r.entry_size;
	selftest_ring_set_consumer(&self->r, half);

	ASSERT_EQ(0, madvise((void *)self->r.hdr, self->r.sub.header_size, MADV_DONTNEED));
	ASSERT_EQ(0, madvise(self->r.cons, self->r.sub.consumer_size, MADV_DONTNEED));
	ASSERT_EQ(0, madvise((void *)self->r.data, size, MADV_DONTNEED));

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, &old_bus));
	ASSERT_EQ(0, sigaction(SIGSEGV, &sa, &old_segv));
	sig = setjmp(zap_env);
	if (!sig) {
		n = (const void *)self->r.data;
		seq0 = n->seq;
		seen_prod = selftest_ring_producer(&self->r);
		/* The consumer page kept what was stored before the zap. */
		if (selftest_ring_consumer_pos(&self->r) != half)
			sig = -1;
		selftest_ring_set_consumer(&self->r, prod);
	}
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	ASSERT_EQ(0, sig) TH_LOG("signal %d after MADV_DONTNEED (-1: consumer page lost)", sig);
	ASSERT_EQ(0ull, seq0);
	ASSERT_EQ(prod, seen_prod);

	/* The kernel sees the store made through the re-faulted page. */
	ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
	ASSERT_EQ(2 * prod, selftest_ring_producer(&self->r));
	n = (const void *)(self->r.data + (prod & (size - 1)));
	ASSERT_EQ(prod / self->r.entry_size, n->seq);
}

struct racer {
	FIXTURE_DATA(hostile) *self;
	atomic_bool stop;
	unsigned long count;
	int err;
};

/* Produce: many times the ring per program, until told to stop. */
static void *producer_fn(void *arg)
{
	struct racer *p = arg;
	struct drm_neuronprof_sim_exec ex;

	nprof_exec_init(&ex, 0, MODEL_ID, 1, 0, 0, 0);
	ex.instructions[0] = 4 * RING_ENTRIES(&p->self->dev, p->self->r.sub.data_size);
	while (!atomic_load(&p->stop) && p->count < 200) {
		p->err = nprof_exec(p->self->dev.fd, &ex);
		if (p->err)
			break;
		p->count++;
	}
	return NULL;
}

/*
 * Release all but the newest half ring every 200 us: through the consumer
 * page, and every few rounds through NQ_DRAIN.
 */
static void *releaser_fn(void *arg)
{
	struct racer *rl = arg;
	struct selftest_ring *r = &rl->self->r;
	struct neuronprof_nq_drain d;
	__u64 half = rl->self->r.sub.data_size / 2, prod;

	while (!atomic_load(&rl->stop)) {
		/*
		 * Release all but the newest half ring: the race with read()
		 * is at that boundary, and what is left is read()'s.
		 */
		prod = selftest_ring_producer(r);
		if (prod < half || prod - half <= selftest_ring_consumer_pos(r))
			continue;
		prod -= half;
		/* Paced, so that read() gets its share of the entries. */
		usleep(200);
		if (rl->count % 8) {
			selftest_ring_set_consumer(r, prod);
		} else {
			rl->err = nprof_drain(r->fd, NEURONPROF_DRAIN_RELEASE, prod, &d);
			/* A racing read() or store may have passed prod already. */
			if (rl->err && rl->err != -EINVAL)
				break;
		}
		rl->count++;
	}
	return NULL;
}

/*
 * read() while other threads produce and release the ring under it: every
 * entry read() returns is whole and in order (sequence numbers only grow,
 * the model id is the one the program wrote), whatever was released.
 */
TEST_F_TIMEOUT(hostile, read_races_release, 300)
{
	struct racer prod = { .self = self }, rel = { .self = self };
	const struct neuronprof_notification *n;
	__u64 last_seq = 0, got = 0, reads = 0;
	size_t len = 4 * 4096;
	pthread_t pth, rth;
	bool any = false;
	ssize_t got_now, off;
	unsigned char *buf;

	ASSERT_EQ(0, fcntl(self->r.fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, pthread_create(&rth, NULL, releaser_fn, &rel));
	ASSERT_EQ(0, pthread_create(&pth, NULL, producer_fn, &prod));
	while (!atomic_load(&prod.stop)) {
		/* A fresh buffer each time: copying into it faults, slowly. */
		buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_TRUE(buf != MAP_FAILED);
		got_now = read(self->r.fd, buf, len);
		if (got_now < 0) {
			ASSERT_EQ(EAGAIN, errno);
			/* The producer ended and nothing is left. */
			if (prod.count >= 200 || prod.err)
				atomic_store(&prod.stop, true);
		}
		for (off = 0; off < got_now; off += (ssize_t)self->r.entry_size) {
			n = (const void *)(buf + off);
			if (any)
				ASSERT_LT(last_seq, n->seq)
					TH_LOG("entry %llu after %llu: overwritten while read",
					       (unsigned long long)n->seq,
					       (unsigned long long)last_seq);
			ASSERT_EQ(MODEL_ID, n->model_id);
			ASSERT_EQ(NEURONPROF_QT_TRACE, n->queue_type);
			last_seq = n->seq;
			any = true;
			got++;
		}
		reads++;
		munmap(buf, len);
	}
	atomic_store(&rel.stop, true);
	ASSERT_EQ(0, pthread_join(pth, NULL));
	ASSERT_EQ(0, pthread_join(rth, NULL));
	TH_LOG("%llu reads returned %llu entries; %lu programs, %lu releases",
	       (unsigned long long)reads, (unsigned long long)got, prod.count, rel.count);
	ASSERT_EQ(0, prod.err);
	ASSERT_EQ(0, rel.err == -EINVAL ? 0 : rel.err);
	/*
	 * How many releases and reads met during the race depends on
	 * scheduling (on a fast machine the programs may all end before the
	 * first read); the deterministic form of this race is
	 * read_copy_stalled_by_userfaultfd. What the races must not break:
	 * one more program, nobody releasing, and read() returns its entries,
	 * whole and after everything read before.
	 */
	atomic_store(&prod.stop, false);
	prod.count = 199;
	producer_fn(&prod);
	ASSERT_EQ(0, prod.err);
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(buf != MAP_FAILED);
	got_now = read(self->r.fd, buf, len);
	ASSERT_LT(0, got_now) TH_LOG("read() after the races: %s",
				     got_now < 0 ? strerror(errno) : "nothing");
	for (off = 0; off < got_now; off += (ssize_t)self->r.entry_size) {
		n = (const void *)(buf + off);
		if (any)
			ASSERT_LT(last_seq, n->seq);
		ASSERT_EQ(MODEL_ID, n->model_id);
		last_seq = n->seq;
		any = true;
	}
	munmap(buf, len);
}

struct uffd_reader {
	int fd;
	void *buf;
	size_t len;
	ssize_t ret;
	int err;
	atomic_bool done;
};

static void *uffd_read_fn(void *arg)
{
	struct uffd_reader *rd = arg;

	rd->ret = read(rd->fd, rd->buf, rd->len);
	rd->err = errno;
	atomic_store(&rd->done, true);
	return NULL;
}

/* Wait up to @ms for @rd to finish. */
static bool uffd_reader_done(struct uffd_reader *rd, int ms)
{
	while (ms-- > 0 && !atomic_load(&rd->done))
		usleep(1000);
	return atomic_load(&rd->done);
}

/*
 * Deterministic form of the race: read() into a buffer whose first page is
 * missing under userfaultfd, so the copy to userspace stops. Meanwhile the
 * entries being read are released and overwritten by a full ring of new
 * ones, and a second read() runs. read() must return the entries as they
 * were when it claimed them, and must not hold up the second reader while
 * its own copy waits.
 */
TEST_F(hostile, read_copy_stalled_by_userfaultfd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffdio_zeropage zero = { 0 };
	struct uffd_reader rd = { .fd = self->r.fd }, rd2 = { .fd = self->r.fd };
	struct drm_neuronprof_sim_exec ex;
	const struct neuronprof_notification *n;
	__u64 ring = RING_ENTRIES(&self->dev, self->r.sub.data_size);
	__u64 half = ring / 2, i;
	struct pollfd pfd;
	struct uffd_msg msg;
	unsigned char small[4096];
	pthread_t th, th2;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), map_len;
	bool second_blocked;
	int uffd;

	uffd = (int)syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		SKIP(return, "userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	rd.len = half * self->r.entry_size;
	ASSERT_GE(sizeof(small), rd.len);
	map_len = (rd.len + page - 1) / page * page;
	rd.buf = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(rd.buf != MAP_FAILED);
	reg.range.start = (unsigned long)rd.buf;
	reg.range.len = map_len;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));

	/* Entries 0 .. half-1 are unread. */
	nprof_exec_init(&ex, 0, MODEL_ID, 1, 0, 0, 0);
	ex.instructions[0] = half;
	ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
	ASSERT_EQ(0, pthread_create(&th, NULL, uffd_read_fn, &rd));
	pfd = (struct pollfd){ .fd = uffd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, WAIT_TIMEOUT_MS)) TH_LOG("read() never touched its buffer");
	ASSERT_EQ((ssize_t)sizeof(msg), read(uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* While its copy waits: release what it reads, overwrite a whole ring. */
	selftest_ring_set_consumer(&self->r, selftest_ring_producer(&self->r));
	ex.instructions[0] = ring;
	ASSERT_EQ(0, nprof_exec(self->dev.fd, &ex));
	/* Another reader of the same subscription is not held up. */
	rd2.buf = small;
	rd2.len = sizeof(small);
	ASSERT_EQ(0, fcntl(self->r.fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, pthread_create(&th2, NULL, uffd_read_fn, &rd2));
	second_blocked = !uffd_reader_done(&rd2, 5000);

	zero.range = reg.range;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_ZEROPAGE, &zero));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, pthread_join(th2, NULL));
	close(uffd);
	ASSERT_EQ((ssize_t)rd.len, rd.ret) TH_LOG("read: %s", strerror(rd.err));
	for (i = 0; i < half; i++) {
		n = (const void *)((unsigned char *)rd.buf + i * self->r.entry_size);
		ASSERT_EQ(i, n->seq) TH_LOG("entry %llu: overwritten while read",
					    (unsigned long long)i);
	}
	ASSERT_FALSE(second_blocked) TH_LOG("a read() waiting on its buffer blocked another");
	munmap(rd.buf, map_len);
}

TEST_HARNESS_MAIN
