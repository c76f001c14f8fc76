// SPDX-License-Identifier: MIT
/*
 * ntff_drain: drain + serialize rate of the capture path against a plain
 * write() of the same bytes from the same memory.
 *
 * A host cannot map a kernel ring, so the ring is an mmap'd region laid out
 * exactly like a subscription (header page, consumer page, data area; the
 * header filled as the kernel fills it) holding 64-byte entries, with the
 * unread range placed so that it wraps past the end of the data area. The
 * measured path is the library's own: nprof_ring_attach() on the region,
 * nprof_ring_peek() for the two spans, nprof_ntff_writer_append() of the
 * spans (writev() straight from the "mapping", CRC32C over the same memory),
 * nprof_ring_release(), then finalize (metadata, header, fsync, rename,
 * directory fsync) - what nprof_capture_session_serialize() does per queue.
 *
 * The baselines write the same two spans to a new file with write() and
 * give it the same durability (fsync, then close): one as they are, one
 * with the writer's writeback strategy (sync_file_range() to start the
 * writeback of what was written, then fsync). The last line compares with
 * the faster of the two. The rate of write() without the fsync is printed
 * for reference only (no ratio: the capture path always syncs, so it would
 * not compare like with like). Each variant runs ROUNDS times interleaved;
 * the best round of each is compared, so that noise of a shared machine
 * does not decide the ratio.
 *
 * Both wall time and the thread's CPU time (user + the kernel's copies)
 * are measured; on a machine shared with other work the CPU time ratio is
 * the steadier estimate of the library's overhead, the wall time ratio
 * includes waiting for the disk.
 *
 * Usage: ntff_drain [DIR [MiB [ROUNDS]]]  (default: $BENCH_DIR or /var/tmp,
 * 256, 9). DIR should be a disk-backed file system for the I/O to count.
 * Last line: the ratio of wall times against the best baseline, "ratio ring
 * -> NTFF / best baseline measured in this run (NAME, wall time): %.2fx"
 * (target >= 0.9).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/device.h>
#include <neuronprof/ntff.h>

#define ES	sizeof(struct neuronprof_notification)

struct region {
	unsigned char *base;
	size_t len;
	struct neuronprof_ring_header *hdr;
	struct neuronprof_ring_consumer *cons;
	unsigned char *data;
	uint64_t size;
	uint64_t begin;		/* consumer position of every round */
	uint64_t end;		/* producer position */
};

/* Wall time, and the CPU time of this thread (user + kernel copies). */
struct stamp {
	double wall;
	double cpu;
};

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct stamp now(void)
{
	return (struct stamp){ clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_THREAD_CPUTIME_ID) };
}

static struct stamp since(struct stamp t0)
{
	struct stamp t1 = now();

	return (struct stamp){ t1.wall - t0.wall, t1.cpu - t0.cpu };
}

static void keep_best(struct stamp *best, struct stamp t)
{
	if (t.wall < best->wall)
		best->wall = t.wall;
	if (t.cpu < best->cpu)
		best->cpu = t.cpu;
}

static void die(const char *what)
{
	fprintf(stderr, "ntff_drain: %s: %s\n", what, nprof_strerror_last()[0] ? nprof_strerror_last() :
						      strerror(errno));
	exit(1);
}

/*
 * A ring of @size data bytes whose unread range is all but one page of it,
 * starting in the second half so that it wraps.
 */
static void region_init(struct region *r, uint64_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t n, i;

	r->len = 2 * page + size;
	r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r->base == MAP_FAILED)
		die("mmap");
	r->hdr = (struct neuronprof_ring_header *)r->base;
	r->cons = (struct neuronprof_ring_consumer *)(r->base + page);
	r->data = r->base + 2 * page;
	r->size = size;
	r->hdr->version = NEURONPROF_RING_VERSION;
	r->hdr->header_size = sizeof(*r->hdr);
	r->hdr->entry_size = ES;
	r->hdr->ring_size = size;
	r->hdr->queue_type = NEURONPROF_QT_TRACE;
	r->begin = size / 2 + page;
	r->end = r->begin + size - page;
	for (n = r->begin / ES, i = 0; i < (size - page) / ES; i++, n++) {
		struct neuronprof_notification e;

		memset(&e, 0, sizeof(e));
		e.timestamp_ns = 1000 + n * 10;
		e.seq = n;
		e.queue_type = NEURONPROF_QT_TRACE;
		e.code = (uint32_t)(n & 0x1f);
		e.payload[0] = n * 16;
		memcpy(r->data + ((n * ES) & (size - 1)), &e, ES);
	}
}

/* "Produce": the unread range is [begin, end) again. */
static void region_reset(struct region *r)
{
	__atomic_store_n(&r->cons->consumer_pos, r->begin, __ATOMIC_RELAXED);
	__atomic_store_n(&r->hdr->producer_pos, r->end, __ATOMIC_RELEASE);
}

static struct stamp run_ntff(struct region *r, const char *dir)
{
	struct nprof_ntff_queue_desc desc = { .size = sizeof(desc) };
	struct nprof_ntff_info info = { .size = sizeof(info) };
	struct nprof_ntff_writer *w;
	struct nprof_ring_spans sp;
	struct nprof_ring *ring;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct stamp t0, t;
	char path[4096];

	/* Freeing the previous round's file is not part of the work measured. */
	snprintf(path, sizeof(path), "%s/bench_drain.ntff", dir);
	unlink(path);
	region_reset(r);
	t0 = now();
	ring = nprof_ring_attach(r->hdr, page, r->cons, page, r->data, r->size);
	if (!ring)
		die("nprof_ring_attach");
	w = nprof_ntff_writer_create(dir, "bench_drain.ntff", 0);
	if (!w)
		die("nprof_ntff_writer_create");
	info.capture_kind = NPROF_NTFF_CAPTURE_SESSION;
	info.clock_id = CLOCK_MONOTONIC;
	info.device.entry_size = ES;
	if (nprof_ntff_writer_set_info(w, &info))
		die("nprof_ntff_writer_set_info");
	if (nprof_ring_peek(ring, &sp) < 0)
		die("nprof_ring_peek");
	if (!sp.len[1])
		die("the unread range does not wrap");
	desc.queue_type = NEURONPROF_QT_TRACE;
	desc.entry_size = ES;
	if (nprof_ntff_writer_append(w, &desc, sp.ptr[0], sp.len[0], sp.ptr[1], sp.len[1]) < 0)
		die("nprof_ntff_writer_append");
	if (nprof_ring_release(ring, sp.end))
		die("nprof_ring_release");
	if (nprof_ntff_writer_finalize(w))
		die("nprof_ntff_writer_finalize");
	nprof_ring_detach(ring);
	t = since(t0);
	return t;
}

static void write_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write");
		p += n;
		len -= (size_t)n;
	}
}

/*
 * The baselines: write() of the same spans, then nothing (@sync 0), fsync
 * (1), or sync_file_range() to start the writeback of what is written and
 * then fsync (2): the writer's own strategy (it starts the writeback of
 * every 8 MiB written, here the whole drain at once, before checksumming).
 */
static struct stamp run_write(struct region *r, const char *dir, int sync)
{
	uint64_t off = r->begin & (r->size - 1);
	size_t len0 = (size_t)(r->size - off), len1 = (size_t)(r->end - r->begin) - len0;
	char path[4096];
	struct stamp t0;
	int fd;

	snprintf(path, sizeof(path), "%s/bench_plain.bin", dir);
	unlink(path);
	region_reset(r);
	t0 = now();
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path);
	write_all(fd, r->data + off, len0);
	write_all(fd, r->data, len1);
	if (sync == 2 && sync_file_range(fd, 0, (off_t)(len0 + len1), SYNC_FILE_RANGE_WRITE))
		die("sync_file_range");
	if (sync && fsync(fd))
		die("fsync");
	close(fd);
	return since(t0);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/var/tmp";
	unsigned long mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 256;
	int rounds = argc > 3 ? atoi(argv[3]) : 9, i;
	struct stamp ntff = { 1e9, 1e9 }, wsync = { 1e9, 1e9 }, plain = { 1e9, 1e9 };
	struct stamp wrange = { 1e9, 1e9 }, best;
	const char *best_name;
	struct region r;
	char path[4096];
	double mb;

	if (!mib || mib & (mib - 1) || mib > 4096 || rounds < 1) {
		fprintf(stderr, "usage: %s [DIR [MiB (a power of two) [ROUNDS]]]\n", argv[0]);
		return 2;
	}
	region_init(&r, (uint64_t)mib << 20);
	mb = (double)(r.end - r.begin) / 1048576;
	for (i = 0; i < rounds; i++) {
		keep_best(&ntff, run_ntff(&r, dir));
		keep_best(&wsync, run_write(&r, dir, 1));
		keep_best(&wrange, run_write(&r, dir, 2));
		keep_best(&plain, run_write(&r, dir, 0));
	}
	best = wrange.wall < wsync.wall ? wrange : wsync;
	best_name = wrange.wall < wsync.wall ? "write()+sync_file_range+fsync" : "write()+fsync";
	snprintf(path, sizeof(path), "%s/bench_drain.ntff", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bench_plain.bin", dir);
	unlink(path);

	printf("ntff_drain: %.0f MiB of 64-byte entries from a wrapped ring, best of %d, in %s\n",
	       mb, rounds, dir);
	printf("%-56s %9s %9s\n", "", "wall", "cpu");
	printf("%-56s %6.0f MB/s %6.0f MB/s\n", "ring -> NTFF (peek, writev+crc32c, release, finalize)",
	       mb / ntff.wall, mb / ntff.cpu);
	printf("%-56s %6.0f MB/s %6.0f MB/s\n", "plain write() + fsync of the same bytes",
	       mb / wsync.wall, mb / wsync.cpu);
	printf("%-56s %6.0f MB/s %6.0f MB/s\n",
	       "plain write() + sync_file_range + fsync",
	       mb / wrange.wall, mb / wrange.cpu);
	printf("%-56s %6.0f MB/s %6.0f MB/s\n", "plain write() without fsync (reference)",
	       mb / plain.wall, mb / plain.cpu);
	printf("cpu time, ring -> NTFF / write()+fsync: %.2fx\n", wsync.cpu / ntff.cpu);
	printf("ratio ring -> NTFF / write()+fsync: %.2fx; / write()+sync_file_range+fsync: %.2fx\n",
	       wsync.wall / ntff.wall, wrange.wall / ntff.wall);
	printf("ratio ring -> NTFF / best baseline measured in this run (%s, wall time): %.2fx\n",
	       best_name, best.wall / ntff.wall);
	return 0;
}
