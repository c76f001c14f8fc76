// SPDX-License-Identifier: MIT
/*
 * Reader benchmark: open + validate (every checksum, protobuf decode, every
 * trace_info) + iterate every entry + close, on a large NTFF file in a warm
 * page cache, against the cheapest way of reading the same file: read()
 * streaming through one reused 1 MiB buffer, which keeps nothing and looks
 * at nothing. Target (ARCHITECTURE.md §8): ratio reader/streaming read
 * >= 0.8.
 *
 * Two modes are measured: the default one (flags 0, library 1.3: the
 * chunk iterator verifies each data block just before the loop reads its
 * entries from the cache, one pass over memory), and
 * NPROF_NTFF_READ_VERIFY_AT_OPEN, which the tool uses (every block verified
 * at open, then the inline entry iterator over the entries pointers: two
 * passes over memory), with its two phases. For information, read() of the
 * whole file into a freshly allocated buffer (what a reader that does not
 * map the file would have to do to hand out pointers to entries; page
 * faults on the new buffer make that far slower). The last line is the
 * default mode, what a user of the reader pays unless asking for the other,
 * against the streaming read() measured in the same run, with the
 * verify-at-open mode's ratio beside it.
 *
 * The page faults of one reader run tell how the page cache holds the file:
 * about one per 2 MiB with 2 MiB folios (each fault maps a whole folio),
 * about one per 64 KiB with 4 KiB folios (fault-around maps 16 pages); the
 * latter makes both read() and the mapping several times slower, and which
 * one a freshly written file gets depends on memory fragmentation.
 *
 * The machine may be shared: the four measurements are interleaved round
 * by round and the best of each is kept.
 *
 * Usage: ntff_reader [MiB [ROUNDS]]   (default 256 and 7; scratch file in
 * $BENCH_DIR)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#define CHUNK		(16u << 20)	/* bytes per appended record */
#define ROUNDS		7

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

/* Default-mode run: open (one pass), chunk iteration of every record, close. */
static double time_reader_default(const char *path, uint64_t *entries, uint32_t *block_size)
{
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	struct nprof_ntff_chunk_iter it;
	const unsigned char *p;
	struct nprof_ntff_reader *r;
	uint64_t count = 0, sum = 0;
	double t0 = now();
	int i, k, n, nq;

	r = nprof_ntff_reader_open(path, 0);
	if (!r) {
		fprintf(stderr, "ntff_reader: %s\n", nprof_strerror_last());
		return -1;
	}
	nq = nprof_ntff_reader_queue_count(r);
	for (i = 0; i < nq; i++) {
		nprof_ntff_reader_queue(r, (size_t)i, &q);
		nprof_ntff_chunk_iter_init(&it, r, (size_t)i);
		while ((n = nprof_ntff_chunk_iter_next(&it, (const void **)&p)) > 0) {
			for (k = 0; k < n; k++, p += q.entry_size)
				sum += ((const struct neuronprof_notification *)(const void *)p)->seq;
			count += (uint64_t)n;
		}
		if (n < 0) {
			fprintf(stderr, "ntff_reader: %s\n", nprof_strerror_last());
			nprof_ntff_reader_close(r);
			return -1;
		}
	}
	*block_size = nprof_ntff_reader_header(r)->block_size;
	nprof_ntff_reader_close(r);
	if (sum != count * (count - 1) / 2) {
		fprintf(stderr, "ntff_reader: entries read back wrong\n");
		return -1;
	}
	*entries = count;
	return now() - t0;
}

/*
 * NPROF_NTFF_READ_VERIFY_AT_OPEN run; *t_open and *t_iter are its
 * open+validate and iteration.
 */
static double time_reader_at_open(const char *path, uint64_t *entries, double *t_open,
				  double *t_iter)
{
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	struct nprof_ntff_entry_iter it;
	const struct neuronprof_notification *e;
	struct nprof_ntff_reader *r;
	uint64_t count = 0, sum = 0;
	double t0 = now(), t1, t2;
	int i, nq;

	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	if (!r) {
		fprintf(stderr, "ntff_reader: %s\n", nprof_strerror_last());
		return -1;
	}
	t1 = now();
	nq = nprof_ntff_reader_queue_count(r);
	for (i = 0; i < nq; i++) {
		nprof_ntff_reader_queue(r, (size_t)i, &q);
		nprof_ntff_entry_iter_init(&it, &q);
		while ((e = nprof_ntff_entry_iter_next(&it))) {
			sum += e->seq;
			count++;
		}
	}
	t2 = now();
	nprof_ntff_reader_close(r);
	if (sum != count * (count - 1) / 2) {
		fprintf(stderr, "ntff_reader: entries read back wrong\n");
		return -1;
	}
	*entries = count;
	*t_open = t1 - t0;
	*t_iter = t2 - t1;
	return now() - t0;
}

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static double rate(size_t bytes, double t)
{
	return (double)bytes / t / 1e6;
}

static void keep_best(double *best, double t)
{
	if (t < *best)
		*best = t;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 256, bytes = 0;
	int rounds = argc > 2 ? atoi(argv[2]) : ROUNDS;
	const char *base = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/var/tmp";
	double best_whole = 1e9, best_stream = 1e9, best_reader = 1e9, best_open = 1e9;
	double best_iter = 1e9, best_default = 1e9, t, t_open, t_iter;
	long faults = 0, faults_default = 0;
	char dir[4096], path[4200];
	uint64_t entries = 0, entries_default = 0;
	uint32_t block_size = 0;
	int i;

	snprintf(dir, sizeof(dir), "%s/nprof-bench-XXXXXX", base);
	if (!mib || rounds < 1 || !mkdtemp(dir)) {
		fprintf(stderr, "ntff_reader: usage: ntff_reader [MiB [ROUNDS]]; scratch directory in %s\n",
			base);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/big.ntff", dir);
	if (make_file(dir, "big.ntff", mib << 20)) {
		fprintf(stderr, "ntff_reader: cannot write %s: %s\n", path, nprof_strerror_last());
		rmdir(dir);
		return 1;
	}
	time_read_stream(path, &bytes);	/* warm the page cache */
	for (i = 0; i < rounds; i++) {
		t = time_read_stream(path, &bytes);
		if (t < 0)
			goto fail;
		keep_best(&best_stream, t);
		faults_default = minor_faults();
		t = time_reader_default(path, &entries_default, &block_size);
		if (t < 0)
			goto fail;
		faults_default = minor_faults() - faults_default;
		keep_best(&best_default, t);
		faults = minor_faults();
		t = time_reader_at_open(path, &entries, &t_open, &t_iter);
		if (t < 0)
			goto fail;
		faults = minor_faults() - faults;
		keep_best(&best_reader, t);
		keep_best(&best_open, t_open);
		keep_best(&best_iter, t_iter);
		t = time_read_whole(path, bytes);
		if (t < 0)
			goto fail;
		keep_best(&best_whole, t);
	}
	unlink(path);
	rmdir(dir);
	if (entries_default != entries) {
		fprintf(stderr, "ntff_reader: the two modes read %llu and %llu entries\n",
			(unsigned long long)entries_default, (unsigned long long)entries);
		return 1;
	}
	printf("file: %zu bytes, %llu entries, %u-byte blocks, best of %d rounds\n", bytes,
	       (unsigned long long)entries, block_size, rounds);
	printf("read() streaming via a reused 1 MiB buffer: %8.1f MB/s (baseline)\n",
	       rate(bytes, best_stream));
	printf("NTFF reader, default mode (one pass: open, chunks):  %8.1f MB/s (%.2f ms, %ld page faults, ratio %.2f)\n",
	       rate(bytes, best_default), best_default * 1e3, faults_default, best_stream / best_default);
	printf("NTFF reader, NPROF_NTFF_READ_VERIFY_AT_OPEN (verify all at open, then iterate):\n");
	printf("  open+validate+iterate+close:              %8.1f MB/s (%.2f ms, %ld page faults, ratio %.2f)\n",
	       rate(bytes, best_reader), best_reader * 1e3, faults, best_stream / best_reader);
	printf("  open+validate (checksums every byte):     %8.1f MB/s (%.2f ms)\n",
	       rate(bytes, best_open), best_open * 1e3);
	printf("  iterate every entry:                      %8.1f MB/s (%.2f ms)\n",
	       rate(bytes, best_iter), best_iter * 1e3);
	/*
	 * In this mode every block is verified before any entry is handed
	 * out, and a file larger than the last-level cache is evicted
	 * by the time iteration starts, so it reads memory twice where the
	 * baseline reads it once. At the iteration's rate (a plain pass over
	 * the mapping) that caps its ratio, even if mapping cost nothing, at:
	 */
	printf("  two-pass bound, mapping aside (stream / 2 x iterate): %.2f\n",
	       best_stream / (2 * best_iter));
	printf("read() into a fresh whole-file buffer:      %8.1f MB/s (informational: default reader/this %.2f)\n",
	       rate(bytes, best_whole), best_whole / best_default);
	printf("ratio reader / streaming read() (the baseline measured in this run): "
	       "default mode %.2f, verify-at-open mode %.2f\n",
	       best_stream / best_default, best_stream / best_reader);
	return 0;
fail:
	unlink(path);
	rmdir(dir);
	return 1;
}
