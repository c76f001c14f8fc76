// SPDX-License-Identifier: MIT
/*
 * Host tests of streaming capture (capture_stream.c) on the fake device of
 * fake_device.h, whose subscription descriptors are eventfds signalled as
 * the kernel wakes a subscriber (watermark crossings and flushes): a session
 * twenty rings long on every queue of a core loses nothing and keeps every
 * entry in order, while the same production without streaming loses exactly
 * what does not fit; a stashed session no longer pins the rings; a spool
 * that cannot be created degrades to the rings with the seed's losses; and a
 * forked child lets go of an inherited engine without touching it.
 *
 * The producer waits for the drainer between batches by watching the
 * consumer position it publishes: the drainer is woken only by the
 * watermark crossings, so a missed wakeup hangs the test (and the runner's
 * timeout fails it) rather than passing by luck. Nothing is timed but the
 * tail pass, whose test waits a bounded time for what the drainer must
 * bring without a wake-up.
 */
#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <neuronprof/capture.h>

#include "capture/capture_engine.h"
#include "capture/capture_stream.h"
#include "ntff/ntff_internal.h"
#include "capture_fixture.h"
#include "harness.h"
#include "ntff_check.h"
#include "special_files.h"

#define ES		64u
#define RING		4096u			/* 64 entries */
#define RING_ENTRIES	(RING / ES)
#define BATCH		(RING_ENTRIES / 4)	/* one watermark */
#define ROUNDS		80			/* 80 * 16 = 20 rings */
#define TOTAL		(ROUNDS * BATCH)

/* Heap a queue record of a file being written may take, at most (twice its size). */
#define NPROF_TEST_RECORD_HEAP	512

/* A fixture whose rings are @ring bytes. */
static int setup_ring(struct fixture *f, uint32_t flags, const char *spool_dir, uint64_t ring)
{
	struct nprof_device_info info = fake_trn2_info();

	return setup_device(f, &info, ring, flags, spool_dir);
}

static int setup(struct fixture *f, uint32_t flags, const char *spool_dir)
{
	return setup_ring(f, flags, spool_dir, RING);
}

/* Whether fake queue @q belongs to core @nc (its own, or a TopSP serving it). */
static bool of_core(const struct fake_queue *q, uint32_t nc)
{
	return q->used && (q->kind == NPROF_TARGET_CORE ? q->index == nc : q->index / 2 == nc);
}

/* Produce @n on every queue of core @nc; return how many were delivered. */
static uint64_t produce_core(struct fixture *f, uint32_t nc, uint64_t n, uint32_t model)
{
	uint64_t delivered = 0;
	int i;

	for (i = 0; i < FAKE_MAX_QUEUES; i++)
		if (of_core(&f->fd->q[i], nc))
			delivered += fake_produce(f->fd, &f->fd->q[i], n, model);
	return delivered;
}

/* Wait until the drainer has consumed everything produced on core @nc. */
static void wait_drained(struct fixture *f, uint32_t nc)
{
	int i;

	for (i = 0; i < FAKE_MAX_QUEUES; i++) {
		struct fake_queue *q = &f->fd->q[i];

		if (!of_core(q, nc))
			continue;
		while (__atomic_load_n(&q->cons->consumer_pos, __ATOMIC_ACQUIRE) != q->prod)
			sched_yield();
	}
}

/* The queues of a profile: @entries each from seq @first, @lost lost; their number. */
static int check_file(const char *path, uint64_t entries, uint64_t first, uint64_t lost)
{
	return ntff_check_queues(path, entries, first, lost);
}

/* A progress page as neuronprof record makes one; before the library's first look. */
static struct nprof_progress_page *progress_page(void)
{
	static struct nprof_progress_page *pg;
	char num[16];
	int fd;

	if (pg)
		return pg;
	fd = memfd_create("nprof-test-progress", 0);
	if (fd < 0 || ftruncate(fd, 4096))
		return NULL;
	pg = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED)
		return NULL;
	pg->magic = NPROF_PROGRESS_MAGIC;
	snprintf(num, sizeof(num), "%d", fd);
	setenv(NPROF_PROGRESS_FD_ENV, num, 1);
	return pg;
}

/* The first test: the progress page is looked up once per process. */
TEST(streaming_session_twenty_rings_long_loses_nothing)
{
	struct nprof_progress_page *pg = progress_page();
	struct nprof_capture_progress p = { .size = sizeof(p) };
	struct nprof_capture_stats st = { .size = sizeof(st) };
	struct fixture f;
	uint64_t id, delivered = 0;
	int round;

	CHECK(pg != NULL);
	if (setup(&f, 0, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	for (round = 0; round < ROUNDS; round++) {
		delivered += produce_core(&f, 0, BATCH, 1);
		wait_drained(&f, 0);
	}
	CHECK_INT(delivered, 24ULL * TOTAL);
	CHECK_INT(nprof_capture_get_progress(f.cap, &p), 0);
	CHECK_INT(p.streaming, 1);
	CHECK_INT(p.queues, 24);
	CHECK_INT(p.entries, 24ULL * TOTAL);
	CHECK_INT(p.bytes, 24ULL * TOTAL * ES);
	CHECK_INT(p.lost, 0);
	CHECK_INT(nprof_capture_session_stop(f.cap, 0, &id), 0);
	CHECK_INT(nprof_capture_session_stats(f.cap, 0, id, &st), 0);
	CHECK_INT(st.entries[NEURONPROF_QT_TRACE], 5ULL * TOTAL);
	CHECK_INT(st.lost[NEURONPROF_QT_TRACE], 0);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 0, id, f.dir), 0);
	CHECK_INT(check_file(file_of(&f, 0, id), TOTAL, 0, 0), 24);
	teardown(&f);
	if (pg) {
		CHECK_INT(pg->entries, 24ULL * TOTAL);
		CHECK_INT(pg->bytes, 24ULL * TOTAL * ES);
		CHECK_INT(pg->lost, 0);
	}
}

/* The progress page also counts the losses of a capture that does not stream. */
/*
 * Entries go from the rings to the file without the heap: twenty rings of
 * every queue streamed grow the heap by the file's queue records only (one
 * per drain of a queue, each of at least a watermark of entries), never by
 * the entries.
 */
TEST(streaming_keeps_the_heap_flat)
{
	struct nprof_ntff_reader *r;
	struct fixture f;
	size_t before, after;
	uint64_t id;
	int round, records = 0;

#if HARNESS_ASAN
	SKIP("AddressSanitizer's allocator does not report through mallinfo2()");
#endif
	if (setup(&f, 0, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	/* One round first: whatever is allocated once is allocated by then. */
	CHECK_INT(produce_core(&f, 0, BATCH, 1), 24 * BATCH);
	wait_drained(&f, 0);
	before = mallinfo2().uordblks;
	for (round = 1; round < ROUNDS; round++) {
		produce_core(&f, 0, BATCH, 1);
		wait_drained(&f, 0);
	}
	after = mallinfo2().uordblks;
	id = stop_and_write(&f, 0);
	r = nprof_ntff_reader_open(file_of(&f, 0, id), NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (r) {
		records = nprof_ntff_reader_queue_count(r);
		nprof_ntff_reader_close(r);
	}
	/* The records of a streamed file (the block table is 16 bytes per MiB). */
	CHECK(records >= 24 && after <= before + NPROF_TEST_RECORD_HEAP * (size_t)records);
	printf("# heap in use: %zu bytes before, %zu after %d rings per queue (%d records, %zu bytes of entries)\n",
	       before, after, ROUNDS * BATCH / RING_ENTRIES, records,
	       (size_t)ROUNDS * BATCH * 24 * ES);
	teardown(&f);
}

TEST(zero_copy_session_loses_exactly_what_does_not_fit)
{
	struct nprof_progress_page *pg = progress_page();
	uint64_t id, delivered = 0, lost0 = pg ? pg->lost : 0, entries0 = pg ? pg->entries : 0;
	struct fixture f;
	int round;

	if (setup(&f, NPROF_CAPTURE_ZERO_COPY, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	for (round = 0; round < ROUNDS; round++)
		delivered += produce_core(&f, 0, BATCH, 1);
	CHECK_INT(delivered, 24ULL * RING_ENTRIES);
	CHECK_INT(nprof_capture_session_sync(f.cap, 0), 0);	/* nothing to move */
	id = stop_and_write(&f, 0);
	CHECK_INT(check_file(file_of(&f, 0, id), RING_ENTRIES, 0, TOTAL - RING_ENTRIES), 24);
	teardown(&f);
	/* Losses counted at stop; nothing spooled. */
	CHECK(pg != NULL);
	if (pg) {
		CHECK_INT(pg->lost - lost0, 24ULL * (TOTAL - RING_ENTRIES));
		CHECK_INT(pg->entries - entries0, 0);
	}
}

/* The final part below the watermark: moved by stop, in order. */
TEST(stop_moves_what_the_drainer_has_not)
{
	struct fixture f;
	uint64_t id;

	if (setup(&f, 0, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(produce_core(&f, 0, 3 * BATCH, 1), 24ULL * 3 * BATCH);
	wait_drained(&f, 0);
	CHECK_INT(produce_core(&f, 0, BATCH - 1, 1), 24ULL * (BATCH - 1));
	id = stop_and_write(&f, 0);
	CHECK_INT(check_file(file_of(&f, 0, id), 4 * BATCH - 1, 0, 0), 24);
	teardown(&f);
}

/*
 * Woken by a queue, the drainer writes only up to where the file reaches a
 * multiple of NTFF_WRITE_ALIGN (the data starts after the 128-byte header),
 * so its writes are page-aligned; what is past that boundary, less than
 * NTFF_WRITE_ALIGN per queue, stays in the ring until the next drain, and a
 * sync writes it. Rings of 64 KiB (a 16 KiB watermark, which the fixture's
 * 4 KiB rings are too small for: those drains write everything). The tail
 * pass (next test) is put off for ten minutes, so that what the woken
 * drains left can be seen.
 */
TEST(woken_drains_end_on_page_boundaries_and_sync_writes_the_rest)
{
	const uint64_t ring = 64u << 10, n = ring / 4 / ES + 10;
	struct nprof_capture_progress p = { .size = sizeof(p) };
	struct fixture f;
	uint64_t id;
	int i;

	if (setup_ring(&f, 0, NULL, ring))
		FAIL("setup: %s", nprof_strerror_last());
	f.cap->tail_ms = 600000;
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(produce_core(&f, 0, n, 1), 24 * n);
	/*
	 * Every queue crossed its watermark once: one woken drain each, which
	 * releases (after counting its bytes) at least the watermark less a
	 * page, and leaves less than the watermark, so no second one.
	 */
	for (i = 0; i < FAKE_MAX_QUEUES; i++) {
		struct fake_queue *q = &f.fd->q[i];

		if (!of_core(q, 0))
			continue;
		while (!__atomic_load_n(&q->cons->consumer_pos, __ATOMIC_ACQUIRE))
			sched_yield();
		CHECK(q->cons->consumer_pos >= ring / 4 - NTFF_WRITE_ALIGN);
	}
	CHECK_INT(nprof_capture_get_progress(f.cap, &p), 0);
	CHECK((NPROF_NTFF_HEADER_SIZE + p.bytes) % NTFF_WRITE_ALIGN == 0);
	/* 24 * n entries end inside a page: some were left in the rings. */
	CHECK((NPROF_NTFF_HEADER_SIZE + 24 * n * ES) % NTFF_WRITE_ALIGN != 0);
	CHECK(p.bytes < 24 * n * ES);
	/* A sync writes what the woken drains left. */
	CHECK_INT(nprof_capture_session_sync(f.cap, 0), 0);
	CHECK_INT(nprof_capture_get_progress(f.cap, &p), 0);
	CHECK_INT(p.bytes, 24 * n * ES);
	wait_drained(&f, 0);
	id = stop_and_write(&f, 0);
	CHECK_INT(check_file(file_of(&f, 0, id), n, 0, 0), 24);
	teardown(&f);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * What the woken drains leave in the rings (under a page per queue, as in
 * the previous test) reaches the file with no sync and no further wake-up.
 * Production stops with the entry that crosses each queue's watermark, so
 * the woken drain sees every entry, and only its cut at a page boundary of
 * the file leaves some (the file's data starts at 128 bytes, so 24
 * watermarks of 16 KiB cannot all end on one). The fake device, like the
 * kernel, wakes a queue only at a crossing or a flush (and nothing flushes
 * here), so the drainer's tail pass, NPROF_DRAIN_TAIL_MS after a queue's
 * last drain, is all that can bring the rest. Waits up to 5 s, for a
 * loaded machine; without the tail pass nothing comes at all.
 */
TEST(tail_pass_writes_what_woken_drains_left_without_a_wakeup)
{
	const uint64_t ring = 64u << 10, n = ring / 4 / ES;
	struct nprof_capture_progress p = { .size = sizeof(p) };
	unsigned int drains;
	struct fixture f;
	double t0;
	uint64_t id;
	int i;

	if (setup_ring(&f, 0, NULL, ring))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(f.cap->tail_ms, NPROF_DRAIN_TAIL_MS);
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	drains = f.fd->drains;
	CHECK_INT(produce_core(&f, 0, n, 1), 24 * n);
	/* 24 * n entries end inside a page: woken drains leave some. */
	CHECK((NPROF_NTFF_HEADER_SIZE + 24 * n * ES) % NTFF_WRITE_ALIGN != 0);
	t0 = mono_s();
	do {
		struct timespec ms = { 0, 1000000 };

		CHECK_INT(nprof_capture_get_progress(f.cap, &p), 0);
		if (p.bytes == 24 * n * ES)
			break;
		nanosleep(&ms, NULL);
	} while (mono_s() - t0 < 5.0);
	CHECK_INT(p.bytes, 24 * n * ES);
	printf("# the rest streamed %.0f ms after production ended\n", (mono_s() - t0) * 1e3);
	/* One wake-up per queue (its crossing), no flush: the tail pass did it. */
	CHECK_INT(f.fd->drains, drains);
	for (i = 0; i < FAKE_MAX_QUEUES; i++) {
		struct fake_queue *q = &f.fd->q[i];

		if (!of_core(q, 0))
			continue;
		CHECK_INT(__atomic_load_n(&q->wakes, __ATOMIC_RELAXED), 1);
		CHECK_INT(__atomic_load_n(&q->cons->consumer_pos, __ATOMIC_ACQUIRE), q->prod);
	}
	id = stop_and_write(&f, 0);
	CHECK_INT(check_file(file_of(&f, 0, id), n, 0, 0), 24);
	teardown(&f);
}

/*
 * A stashed session's entries are in the spool, so the next session has
 * the whole ring; entries between the two sessions are in neither.
 */
TEST(stashed_session_does_not_pin_streamed_rings)
{
	struct fixture f;
	uint64_t id0, id1;
	int round;

	if (setup(&f, 0, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(produce_core(&f, 0, 40, 1), 24 * 40);
	CHECK_INT(nprof_capture_session_stop(f.cap, 0, &id0), 0);
	CHECK_INT(produce_core(&f, 0, 5, 1), 24 * 5);
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	for (round = 0; round < 10; round++) {
		CHECK_INT(produce_core(&f, 0, BATCH, 2), 24 * BATCH);
		CHECK_INT(nprof_capture_session_sync(f.cap, 0), 0);
	}
	CHECK_INT(nprof_capture_session_stop(f.cap, 0, &id1), 0);
	/* Out of order: the later session first. */
	CHECK_INT(nprof_capture_session_serialize(f.cap, 0, id1, f.dir), 0);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 0, id0, f.dir), 0);
	CHECK_INT(check_file(file_of(&f, 0, id0), 40, 0, 0), 24);
	CHECK_INT(check_file(file_of(&f, 0, id1), 10 * BATCH, 45, 0), 24);
	teardown(&f);
}

/*
 * A session without entries on a queue, stashed while the next one (on the
 * same subscriptions) streams past it: written later, its empty record does
 * not look for a ring range the drainer has long released.
 */
TEST(empty_stashed_window_behind_the_drainer)
{
	struct fixture f;
	uint64_t id0, id1;

	if (setup(&f, 0, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(nprof_capture_session_stop(f.cap, 0, &id0), 0);
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(produce_core(&f, 0, 2 * BATCH, 1), 24 * 2 * BATCH);
	CHECK_INT(nprof_capture_session_sync(f.cap, 0), 0);
	id1 = stop_and_write(&f, 0);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 0, id0, f.dir), 0);
	CHECK_INT(check_file(file_of(&f, 0, id0), 0, 0, 0), 24);
	CHECK_INT(check_file(file_of(&f, 0, id1), 2 * BATCH, 0, 0), 24);
	teardown(&f);
}

/*
 * The spool directory on another file system than the output directory
 * (/dev/shm, a tmpfs, against the scratch directory): serialize cannot link
 * the file there and copies it; the copy is complete and nothing is left in
 * either directory but the profile.
 */
TEST(serialize_copies_across_file_systems)
{
	char spool[] = "/dev/shm/nprof-stream-spool.XXXXXX";
	struct stat a, b;
	struct fixture f;
	uint64_t id;

	if (!mkdtemp(spool))
		SKIP("no /dev/shm to put a spool directory in");
	if (setup(&f, 0, spool))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(stat(spool, &a), 0);
	CHECK_INT(stat(f.dir, &b), 0);
	if (a.st_dev == b.st_dev) {
		teardown(&f);
		rm_rf(spool);
		SKIP("/dev/shm and the scratch directory are one file system");
	}
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(produce_core(&f, 0, 3 * BATCH, 1), 24 * 3 * BATCH);
	CHECK_INT(nprof_capture_session_sync(f.cap, 0), 0);
	id = stop_and_write(&f, 0);
	CHECK_INT(check_file(file_of(&f, 0, id), 3 * BATCH, 0, 0), 24);
	CHECK_INT(dir_entries(spool), 0);
	CHECK_INT(dir_entries(f.dir), 1);
	teardown(&f);
	rm_rf(spool);
}

/*
 * A streamed session of 2 * BATCH entries per queue, every one through the
 * spool file (the pending writer that serialize commits); its id.
 */
static uint64_t streamed_session(struct fixture *f)
{
	uint64_t id = 0;

	CHECK_INT(nprof_capture_session_start(f->cap, 0), 0);
	CHECK_INT(produce_core(f, 0, BATCH, 1), 24 * BATCH);
	CHECK_INT(nprof_capture_session_sync(f->cap, 0), 0);
	CHECK_INT(produce_core(f, 0, BATCH, 1), 24 * BATCH);
	CHECK_INT(nprof_capture_session_sync(f->cap, 0), 0);
	CHECK_INT(nprof_capture_session_stop(f->cap, 0, &id), 0);
	return id;
}

/* The profile's name is a FIFO: the profile goes through it; it stays a FIFO. */
TEST(serialize_into_a_fifo)
{
	char got[300];
	struct fixture f;
	pid_t reader;
	uint64_t id;

	if (setup(&f, 0, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	id = streamed_session(&f);
	snprintf(got, sizeof(got), "%s.read", f.dir);
	reader = fifo_reader_start(file_of(&f, 0, id), got);
	CHECK(reader > 0);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 0, id, f.dir), 0);
	CHECK_INT(fifo_reader_finish(reader, false), 0);
	CHECK(is_fifo(file_of(&f, 0, id)));
	CHECK_INT(check_file(got, 2 * BATCH, 0, 0), 24);
	CHECK_INT(dir_entries(f.dir), 1);	/* the FIFO; no spool, no temporary */
	unlink(got);
	teardown(&f);
}

/* The profile's name is a character device: written into, never replaced. */
TEST(serialize_into_a_character_device)
{
	struct fixture f;
	const char *why;
	uint64_t id;

	if (setup(&f, 0, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	id = streamed_session(&f);
	why = make_null_node(file_of(&f, 0, id));
	if (why) {
		CHECK_INT(nprof_capture_session_serialize(f.cap, 0, id, f.dir), 0);
		teardown(&f);
		SKIP(why);
	}
	CHECK_INT(nprof_capture_session_serialize(f.cap, 0, id, f.dir), 0);
	CHECK(is_null_node(file_of(&f, 0, id)));
	CHECK_INT(dir_entries(f.dir), 1);
	teardown(&f);
}

/* The profile's name is a symbolic link: the file it names gets the profile. */
TEST(serialize_through_a_symlink)
{
	char sub[300], target[400];
	struct fixture f;
	uint64_t id;

	if (setup(&f, 0, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	id = streamed_session(&f);
	snprintf(sub, sizeof(sub), "%s/kept", f.dir);
	snprintf(target, sizeof(target), "%s/kept/profile.ntff", f.dir);
	CHECK_INT(mkdir(sub, 0755), 0);
	CHECK_INT(symlink("kept/profile.ntff", file_of(&f, 0, id)), 0);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 0, id, f.dir), 0);
	CHECK(is_symlink(file_of(&f, 0, id)));
	CHECK_INT(check_file(target, 2 * BATCH, 0, 0), 24);
	CHECK_INT(dir_entries(f.dir), 2);	/* the link and kept/ */
	CHECK_INT(dir_entries(sub), 1);
	teardown(&f);
}

/* No file to stream into: the queues keep their entries in the rings, as without streaming. */
TEST(spool_that_cannot_be_created_falls_back_to_the_rings)
{
	struct fixture f;
	uint64_t id;

	if (setup(&f, 0, "/nonexistent-nprof-spool-dir"))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(produce_core(&f, 0, 100, 1), 24ULL * RING_ENTRIES);
	CHECK_ERR_MSG(nprof_capture_session_sync(f.cap, 0), ENOENT,
		      "NC 0: the profile session does not stream: cannot open directory /nonexistent-nprof-spool-dir: No such file or directory");
	id = stop_and_write(&f, 0);
	CHECK_INT(check_file(file_of(&f, 0, id), RING_ENTRIES, 0, 100 - RING_ENTRIES), 24);
	teardown(&f);
}

/*
 * A full disk (here the file size limit, which fails writes with EFBIG the
 * same way): the queues keep their entries in the rings, what does not fit
 * is counted as lost, sync says why, the next drain after the disk has room
 * writes what the rings kept, and the file is complete with nothing counted
 * twice.
 */
TEST(write_that_fails_keeps_entries_in_the_rings_and_is_retried)
{
	struct rlimit old, tiny = { .rlim_cur = 4096 };
	void (*old_xfsz)(int);
	struct fixture f;
	uint64_t id;

	if (setup(&f, 0, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(getrlimit(RLIMIT_FSIZE, &old), 0);
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(produce_core(&f, 0, BATCH, 1), 24 * BATCH);
	CHECK_INT(nprof_capture_session_sync(f.cap, 0), 0);

	/* The file is past 4 KiB: every further write fails. */
	old_xfsz = signal(SIGXFSZ, SIG_IGN);
	tiny.rlim_max = old.rlim_max;
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &tiny), 0);
	CHECK_INT(produce_core(&f, 0, 2 * RING_ENTRIES, 1), 24ULL * RING_ENTRIES);
	CHECK_ERR_MSG(nprof_capture_session_sync(f.cap, 0), EFBIG,
		      "NC 0: queue type 0 target 0/0 engine 0 does not stream");
	/* Nothing left the rings: they are full. */
	CHECK_INT(produce_core(&f, 0, 1, 1), 0);

	/* Room again: the next drain writes what the rings kept. */
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_xfsz);
	CHECK_INT(nprof_capture_session_sync(f.cap, 0), 0);
	id = stop_and_write(&f, 0);
	CHECK_INT(check_file(file_of(&f, 0, id), BATCH + RING_ENTRIES, 0, RING_ENTRIES + 1), 24);
	teardown(&f);
}

/* Files being captured are unnamed: nothing but the profile ever appears in the directory. */
TEST(spools_leave_no_file)
{
	struct fixture f;

	if (setup(&f, 0, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(produce_core(&f, 0, 2 * BATCH, 1), 24 * 2 * BATCH);
	CHECK_INT(nprof_capture_session_sync(f.cap, 0), 0);
	/* Hidden names count too: a temporary file is not allowed either. */
	CHECK_INT(dir_entries(f.dir), 0);
	stop_and_write(&f, 0);
	CHECK_INT(dir_entries(f.dir), 1);
	teardown(&f);
}

/*
 * A child forked during a streaming capture owns none of it: closing its
 * copy neither waits for a drainer that does not exist in it nor disturbs
 * the parent, whose capture goes on.
 */
TEST(forked_child_lets_go_of_the_engine)
{
	struct fixture f;
	uint64_t id;
	int status = -1;
	pid_t pid;

	if (setup(&f, 0, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(produce_core(&f, 0, BATCH, 1), 24 * BATCH);
	pid = fork();
	if (pid == 0) {
		nprof_capture_close(f.cap);
		_exit(0);
	}
	CHECK(pid > 0);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_INT(produce_core(&f, 0, BATCH, 1), 24 * BATCH);
	id = stop_and_write(&f, 0);
	CHECK_INT(check_file(file_of(&f, 0, id), 2 * BATCH, 0, 0), 24);
	teardown(&f);
}

TEST(bad_options_are_refused)
{
	struct nprof_device_info info = fake_trn2_info();
	struct nprof_capture_opts opts = { .size = sizeof(opts), .flags = 1u << 7 };
	struct fake_dev *fd = fake_dev_new();
	struct nprof_device *dev = nprof_device_create(&info, &fake_ops, fd);

	CHECK(dev != NULL);
	CHECK(nprof_capture_create(dev, &opts) == NULL);
	CHECK_INT(errno, EINVAL);
	CHECK_STR(nprof_strerror_last(), "unknown capture option flags 0x80 or reserved 0x0");
	opts.flags = 0;
	opts.reserved = 1;
	CHECK(nprof_capture_create(dev, &opts) == NULL);
	CHECK_INT(errno, EINVAL);
	nprof_device_close(dev);
	fake_dev_free(fd);
}

HARNESS_MAIN
