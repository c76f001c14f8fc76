// SPDX-License-Identifier: MIT
/*
 * Writer benchmark: serialize entries from a memory region into NTFF
 * against plain write() of the same bytes from the same memory, with the
 * same pieces (ring-sized drains, each split in two spans where the ring
 * wrapped) and the same durability (both end with fsync; the NTFF writer
 * also writes metadata and header, renames and syncs the directory). The
 * write() baseline runs twice: as it is, and with the writer's writeback
 * strategy (sync_file_range() to start the writeback of each drain once
 * written); the last line compares with the faster.
 * Also shown: the append phase alone against the write() calls alone, which
 * is where checksumming costs show. The device-backed version (drain from
 * mapped rings) comes with the device layer. Target: ratio >= 0.9.
 *
 * Usage: ntff_write [MiB]   (default 256; scratch files in $BENCH_DIR)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#define RING_SIZE	(8u << 20)
#define ROUNDS		5

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Where drain @k of a ring splits (the consumer position moves). */
static size_t split_of(size_t k)
{
	return ((k * 997) % (RING_SIZE / sizeof(struct neuronprof_notification))) *
	       sizeof(struct neuronprof_notification);
}

static int plain_write(const char *path, const unsigned char *region, size_t total,
		       bool range, double *t_total, double *t_writes)
{
	double t0 = now(), t1;
	size_t k, off;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	for (k = 0, off = 0; off < total; k++, off += RING_SIZE) {
		const unsigned char *ring = region + off;
		size_t s = split_of(k);

		if (write(fd, ring + s, RING_SIZE - s) != (ssize_t)(RING_SIZE - s) ||
		    (s && write(fd, ring, s) != (ssize_t)s) ||
		    (range && sync_file_range(fd, (off_t)off, RING_SIZE, SYNC_FILE_RANGE_WRITE))) {
			close(fd);
			return -1;
		}
	}
	t1 = now();
	if (fsync(fd)) {
		close(fd);
		return -1;
	}
	close(fd);
	*t_writes = t1 - t0;
	*t_total = now() - t0;
	return 0;
}

static int ntff_write(const char *dir, const unsigned char *region, size_t total,
		      double *t_total, double *t_appends)
{
	struct nprof_ntff_queue_desc q = { .size = sizeof(q), .queue_type = NEURONPROF_QT_TRACE,
					    .entry_size = sizeof(struct neuronprof_notification) };
	double t0 = now(), t1;
	struct nprof_ntff_writer *w;
	size_t k, off;

	w = nprof_ntff_writer_create(dir, "bench.ntff", 0);
	if (!w)
		return -1;
	for (k = 0, off = 0; off < total; k++, off += RING_SIZE) {
		const unsigned char *ring = region + off;
		size_t s = split_of(k);

		if (nprof_ntff_writer_append(w, &q, ring + s, RING_SIZE - s, ring, s) < 0) {
			nprof_ntff_writer_abort(w);
			return -1;
		}
	}
	t1 = now();
	if (nprof_ntff_writer_finalize(w))
		return -1;
	*t_appends = t1 - t0;
	*t_total = now() - t0;
	return 0;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 256, total, i, k;
	const char *base = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/var/tmp";
	double best_plain = 1e9, best_ntff = 1e9, best_w = 1e9, best_a = 1e9, t, tp;
	double best_range = 1e9, best_base;
	struct neuronprof_notification *e;
	char dir[4096], path[4200];
	unsigned char *region;

	total = (mib << 20) / RING_SIZE * RING_SIZE;
	snprintf(dir, sizeof(dir), "%s/nprof-bench-XXXXXX", base);
	if (!total || !mkdtemp(dir)) {
		fprintf(stderr, "ntff_write: cannot create a directory in %s\n", base);
		return 1;
	}
	region = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return 1;
	/* Each ring-sized piece holds consecutive seq starting at its split. */
	e = (struct neuronprof_notification *)region;
	for (k = 0; k < total / RING_SIZE; k++) {
		size_t n = RING_SIZE / sizeof(*e), s = split_of(k) / sizeof(*e);

		for (i = 0; i < n; i++) {
			struct neuronprof_notification *x = &e[k * n + (s + i) % n];

			memset(x, 0, sizeof(*x));
			x->seq = k * n + i;
			x->timestamp_ns = x->seq * 3;
		}
	}
	snprintf(path, sizeof(path), "%s/plain.bin", dir);
	for (i = 0; i < ROUNDS; i++) {
		if (plain_write(path, region, total, false, &t, &tp)) {
			perror("ntff_write: write");
			return 1;
		}
		if (t < best_plain)
			best_plain = t;
		if (tp < best_w)
			best_w = tp;
		unlink(path);
		if (plain_write(path, region, total, true, &t, &tp)) {
			perror("ntff_write: write");
			return 1;
		}
		if (t < best_range)
			best_range = t;
		unlink(path);
		if (ntff_write(dir, region, total, &t, &tp)) {
			fprintf(stderr, "ntff_write: %s\n", nprof_strerror_last());
			return 1;
		}
		if (t < best_ntff)
			best_ntff = t;
		if (tp < best_a)
			best_a = tp;
		snprintf(path, sizeof(path), "%s/bench.ntff", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/plain.bin", dir);
	}
	rmdir(dir);
	munmap(region, total);
	printf("data: %zu bytes in %zu drains of %u bytes, best of %d rounds\n", total,
	       total / RING_SIZE, RING_SIZE, ROUNDS);
	printf("write() calls only:             %8.1f MB/s\n", (double)total / best_w / 1e6);
	printf("NTFF appends only:              %8.1f MB/s (ratio %.2f)\n",
	       (double)total / best_a / 1e6, best_w / best_a);
	printf("write() + fsync:                %8.1f MB/s\n", (double)total / best_plain / 1e6);
	printf("write() + sync_file_range + fsync: %5.1f MB/s\n", (double)total / best_range / 1e6);
	printf("NTFF appends + finalize:        %8.1f MB/s\n", (double)total / best_ntff / 1e6);
	best_base = best_range < best_plain ? best_range : best_plain;
	printf("ratio NTFF appends+finalize / best baseline of the same spans measured in this run "
	       "(%s): %.2f\n", best_range < best_plain ? "write()+sync_file_range+fsync" :
	       "write()+fsync", best_base / best_ntff);
	return 0;
}
