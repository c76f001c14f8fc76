// SPDX-License-Identifier: MIT
/*
 * Reader benchmark: open + validate (both checksums, protobuf decode, every
 * trace_info) + iterate every entry of a large NTFF file, against reading
 * the same file with read() into a buffer that holds the whole file (freshly
 * allocated, as a reader without mmap needs to hand out pointers to
 * entries). Also shown, for scale: read() streaming through one reused
 * 1 MiB buffer, which keeps nothing and looks at nothing. Everything runs on
 * a warm page cache; the best of several rounds is kept.
 * Target: ratio against the whole-file read >= 0.8.
 *
 * Usage: ntff_reader [MiB]   (default 256; scratch file in $BENCH_DIR)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#define CHUNK		(16u << 20)	/* bytes per appended record */
#define ROUNDS		5

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int make_file(const char *dir, const char *name, size_t total)
{
	struct nprof_ntff_queue_desc q = { .size = sizeof(q), .queue_type = NEURONPROF_QT_TRACE,
					    .entry_size = sizeof(struct neuronprof_notification) };
	struct neuronprof_notification *e = malloc(CHUNK);
	size_t n = CHUNK / sizeof(*e), i, done;
	struct nprof_ntff_writer *w;
	uint64_t seq = 0;

	if (!e)
		return -ENOMEM;
	w = nprof_ntff_writer_create(dir, name, 0);
	if (!w) {
		free(e);
		return -errno;
	}
	memset(e, 0, CHUNK);
	for (done = 0; done < total; done += CHUNK) {
		for (i = 0; i < n; i++) {
			e[i].seq = seq++;
			e[i].timestamp_ns = e[i].seq * 7;
			e[i].code = (uint32_t)i;
		}
		if (nprof_ntff_writer_append(w, &q, e, CHUNK, NULL, 0) < 0) {
			nprof_ntff_writer_abort(w);
			free(e);
			return -errno;
		}
	}
	free(e);
	return nprof_ntff_writer_finalize(w);
}

static double time_read_stream(const char *path, size_t *bytes)
{
	static char buf[1 << 20];
	double t0 = now();
	size_t total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += (size_t)n;
	close(fd);
	*bytes = total;
	return now() - t0;
}

static double time_read_whole(const char *path, size_t size)
{
	double t0 = now();
	size_t off = 0;
	ssize_t n;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	buf = malloc(size);
	if (!buf) {
		close(fd);
		return -1;
	}
	while (off < size && (n = read(fd, buf + off, size - off)) > 0)
		off += (size_t)n;
	close(fd);
	free(buf);
	return off == size ? now() - t0 : -1;
}

static double time_reader(const char *path, uint64_t *entries)
{
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	struct nprof_ntff_entry_iter it;
	const struct neuronprof_notification *e;
	struct nprof_ntff_reader *r;
	uint64_t count = 0, sum = 0;
	double t0 = now();
	int i, nq;

	r = nprof_ntff_reader_open(path, 0);
	if (!r) {
		fprintf(stderr, "ntff_reader: %s\n", nprof_strerror_last());
		return -1;
	}
	nq = nprof_ntff_reader_queue_count(r);
	for (i = 0; i < nq; i++) {
		nprof_ntff_reader_queue(r, (size_t)i, &q);
		nprof_ntff_entry_iter_init(&it, &q);
		while ((e = nprof_ntff_entry_iter_next(&it))) {
			sum += e->seq;
			count++;
		}
	}
	nprof_ntff_reader_close(r);
	if (sum != count * (count - 1) / 2) {
		fprintf(stderr, "ntff_reader: entries read back wrong\n");
		return -1;
	}
	*entries = count;
	return now() - t0;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 256, bytes = 0;
	const char *base = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/var/tmp";
	double best_read = 1e9, best_stream = 1e9, best_reader = 1e9, t;
	double rate_read, rate_stream, rate_reader;
	char dir[4096], path[4200];
	uint64_t entries = 0;
	int i;

	snprintf(dir, sizeof(dir), "%s/nprof-bench-XXXXXX", base);
	if (!mib || !mkdtemp(dir)) {
		fprintf(stderr, "ntff_reader: cannot create a directory in %s\n", base);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/big.ntff", dir);
	if (make_file(dir, "big.ntff", mib << 20)) {
		fprintf(stderr, "ntff_reader: cannot write %s: %s\n", path, nprof_strerror_last());
		return 1;
	}
	time_read_stream(path, &bytes);	/* warm the page cache */
	for (i = 0; i < ROUNDS; i++) {
		t = time_read_stream(path, &bytes);
		if (t < 0)
			return 1;
		if (t < best_stream)
			best_stream = t;
		t = time_read_whole(path, bytes);
		if (t < 0)
			return 1;
		if (t < best_read)
			best_read = t;
		t = time_reader(path, &entries);
		if (t < 0)
			return 1;
		if (t < best_reader)
			best_reader = t;
	}
	unlink(path);
	rmdir(dir);
	rate_read = (double)bytes / best_read / 1e6;
	rate_stream = (double)bytes / best_stream / 1e6;
	rate_reader = (double)bytes / best_reader / 1e6;
	printf("file: %zu bytes, %llu entries, best of %d rounds\n", bytes,
	       (unsigned long long)entries, ROUNDS);
	printf("read() streaming via 1 MiB buffer:    %8.1f MB/s (reader/stream %.2f)\n", rate_stream,
	       rate_reader / rate_stream);
	printf("read() of the file into a buffer:     %8.1f MB/s\n", rate_read);
	printf("open+validate+iterate (NTFF reader):  %8.1f MB/s\n", rate_reader);
	printf("ratio reader/read: %.2f\n", rate_reader / rate_read);
	return 0;
}
