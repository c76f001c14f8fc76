// SPDX-License-Identifier: MIT
/*
 * Compressed NTFF blocks (zstd, NTFF major 4) against plain blocks, measured
 * in the same run on the same entries: the compression ratio, the writer's
 * cost (appends of ring-sized drains, each in two spans where the ring
 * wrapped, + finalize with its fsync) and the reader's (open + every entry
 * through the chunk iterator + close, in the default one-pass mode, and
 * open + the entries pointers in NPROF_NTFF_READ_VERIFY_AT_OPEN, the tool's
 * mode), each the best of ROUNDS interleaved rounds, wall time.
 *
 * Entries: by default a stream shaped like the simulator's
 * (driver/sim/program.c: per engine a TRACE entry per instruction, opcode
 * cycling through the engine's 16, payload pc / operands / immediate; DMA
 * entries every 8 instructions) with timestamps advancing by a seeded
 * jitter. The ratio depends on the entries: UNVERIFIED for a real device,
 * whose entries this repository has never seen; to measure it, give a
 * recording (neuronprof record on the device) as the argument, whose
 * entries are then used (repeated up to the size), or look at the ratio
 * `neuronprof dump` prints of a `record -z` file. A second stream of
 * entries whose payloads are random bytes bounds the ratio from below.
 *
 * No goal: the figures are information (compression trades CPU time for
 * disk). Usage: ntff_zstd [MiB | FILE.ntff]   (default 64; scratch files in
 * $BENCH_DIR, default /var/tmp)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#define RING_SIZE	(8u << 20)
#define ROUNDS		3
#define ES		sizeof(struct neuronprof_notification)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t xs(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

/* The simulator's shape; @noise: payloads of random bytes instead. */
static void fill_sim(struct neuronprof_notification *e, size_t n, bool noise)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL, ts = 1000000;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t insn = (uint32_t)(i / 4), engine = (uint32_t)(i % 4);

		memset(&e[i], 0, ES);
		ts += 20 + xs(&x) % 200;
		e[i].timestamp_ns = ts;
		e[i].seq = i;
		e[i].model_id = 11;
		e[i].iteration = (uint32_t)(i / 40000);
		if (i % 8 == 7) {
			e[i].queue_type = NEURONPROF_QT_DMA;
			e[i].engine = engine;
			e[i].code = insn % 16;
			e[i].payload[0] = 4096ULL << (insn % 4);
			e[i].payload[1] = 0x10000000ULL + (uint64_t)insn * 65536;
			e[i].payload[2] = 0x20000000ULL + (uint64_t)insn * 65536;
			e[i].payload[3] = insn;
		} else {
			e[i].queue_type = NEURONPROF_QT_TRACE;
			e[i].engine = engine;
			e[i].code = (engine + 1) << 8 | (insn % 16);
			e[i].payload[0] = (uint64_t)insn * 16;
			e[i].payload[1] = insn % 64;
			e[i].payload[2] = (insn + 1) % 64;
			e[i].payload[3] = insn ^ e[i].iteration;
		}
		if (noise)
			for (int k = 0; k < 4; k++)
				e[i].payload[k] = xs(&x);
	}
}

/* The entries of a recording, repeated to @n (their seqs made to go forward). */
static int fill_file(struct neuronprof_notification *e, size_t n, const char *path)
{
	struct nprof_ntff_reader *r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	size_t at = 0, have = 0;
	int nq;

	if (!r) {
		fprintf(stderr, "ntff_zstd: %s\n", nprof_strerror_last());
		return -1;
	}
	nq = nprof_ntff_reader_queue_count(r);
	while (at < n) {
		for (int i = 0; i < nq && at < n; i++) {
			struct nprof_ntff_queue q = { .size = sizeof(q) };
			size_t k;

			if (nprof_ntff_reader_queue(r, (size_t)i, &q) || q.entry_size != ES)
				continue;
			k = q.entry_count < n - at ? q.entry_count : n - at;
			memcpy(&e[at], q.entries, k * ES);
			at += k;
			have += k;
		}
		if (!have) {
			fprintf(stderr, "ntff_zstd: %s has no entries of %zu bytes\n", path, ES);
			nprof_ntff_reader_close(r);
			return -1;
		}
	}
	for (size_t i = 0; i < n; i++)
		e[i].seq = i;
	nprof_ntff_reader_close(r);
	return 0;
}

/* Write @total bytes at @region as ring-sized drains of one TRACE queue. */
static double write_file(const char *dir, const char *name, const unsigned char *region,
			 size_t total, int level)
{
	struct nprof_ntff_queue_desc d = { .size = sizeof(d) };
	struct nprof_ntff_writer *w;
	double t0 = now();
	size_t off;

	d.queue_type = NEURONPROF_QT_TRACE;
	d.target_kind = NEURONPROF_TARGET_CORE;
	d.entry_size = ES;
	w = nprof_ntff_writer_create(dir, name, 0);
	if (!w || nprof_ntff_writer_set_compression(w, level))
		return -1;
	for (off = 0; off < total; off += RING_SIZE) {
		size_t len = total - off < RING_SIZE ? total - off : RING_SIZE;
		size_t split = len / 2 / ES * ES;

		/* Two spans, as a wrapped ring gives them. */
		if (nprof_ntff_writer_append(w, &d, region + off, split, region + off + split,
					     len - split) < 0) {
			nprof_ntff_writer_abort(w);
			return -1;
		}
	}
	if (nprof_ntff_writer_finalize(w))
		return -1;
	return now() - t0;
}

/* Open, every entry (its seq summed) and close; -1 on failure. */
static double read_file(const char *path, unsigned int flags, uint64_t *sum)
{
	struct nprof_ntff_reader *r;
	double t0 = now();
	int nq;

	*sum = 0;
	r = nprof_ntff_reader_open(path, flags);
	if (!r)
		return -1;
	nq = nprof_ntff_reader_queue_count(r);
	for (int i = 0; i < nq; i++) {
		struct nprof_ntff_queue q = { .size = sizeof(q) };
		struct nprof_ntff_chunk_iter it;
		const unsigned char *p;
		int n;

		if (flags == NPROF_NTFF_READ_VERIFY_AT_OPEN) {
			struct nprof_ntff_entry_iter ei;
			const struct neuronprof_notification *e;

			nprof_ntff_reader_queue(r, (size_t)i, &q);
			nprof_ntff_entry_iter_init(&ei, &q);
			while ((e = nprof_ntff_entry_iter_next(&ei)))
				*sum += e->seq;
			continue;
		}
		nprof_ntff_chunk_iter_init(&it, r, (size_t)i);
		while ((n = nprof_ntff_chunk_iter_next(&it, (const void **)&p)) > 0)
			for (int k = 0; k < n; k++)
				*sum += ((const struct neuronprof_notification *)(p + (size_t)k * ES))->seq;
		if (n < 0) {
			nprof_ntff_reader_close(r);
			return -1;
		}
	}
	nprof_ntff_reader_close(r);
	return now() - t0;
}

static double best(double a, double b)
{
	return a < 0 ? b : b < a ? b : a;
}

struct run {
	const char *what;
	int level;
	double w, r, v;		/* best write, one-pass read, verify-at-open read */
	off_t size;
};

static int measure(const char *what, const unsigned char *region, size_t total, const char *dir)
{
	struct run runs[] = {
		{ "plain", 0, -1, -1, -1, 0 },
		{ "zstd 1", 1, -1, -1, -1, 0 },
		{ "zstd 3", 3, -1, -1, -1, 0 },
	};
	const size_t nr = sizeof(runs) / sizeof(runs[0]);
	uint64_t want = (uint64_t)(total / ES) * (total / ES - 1) / 2, sum;
	char path[4096], name[64];
	struct stat st;

	printf("%s: %zu bytes of entries, best of %d rounds (wall time)\n", what, total, ROUNDS);
	for (int round = 0; round < ROUNDS; round++) {
		for (size_t k = 0; k < nr; k++) {
			double t;

			snprintf(name, sizeof(name), "ntff_zstd.%d.ntff", runs[k].level);
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			t = write_file(dir, name, region, total, runs[k].level);
			if (t < 0) {
				fprintf(stderr, "ntff_zstd: write %s: %s\n", path, nprof_strerror_last());
				return -1;
			}
			runs[k].w = best(runs[k].w, t);
			t = read_file(path, 0, &sum);
			if (t < 0 || sum != want) {
				fprintf(stderr, "ntff_zstd: read %s: %s\n", path,
					t < 0 ? nprof_strerror_last() : "wrong entries");
				return -1;
			}
			runs[k].r = best(runs[k].r, t);
			t = read_file(path, NPROF_NTFF_READ_VERIFY_AT_OPEN, &sum);
			if (t < 0 || sum != want) {
				fprintf(stderr, "ntff_zstd: read %s: %s\n", path,
					t < 0 ? nprof_strerror_last() : "wrong entries");
				return -1;
			}
			runs[k].v = best(runs[k].v, t);
			if (stat(path, &st))
				return -1;
			runs[k].size = st.st_size;
			unlink(path);
		}
	}
	for (size_t k = 0; k < nr; k++)
		printf("  %-7s file %10lld bytes (ratio %5.2f)  write %7.1f MB/s  read one-pass %7.1f MB/s  verify-at-open %7.1f MB/s\n",
		       runs[k].what, (long long)runs[k].size,
		       (double)runs[0].size / (double)runs[k].size, total / runs[k].w / 1e6,
		       total / runs[k].r / 1e6, total / runs[k].v / 1e6);
	printf("ratio zstd 1 / plain measured in this run (%s): size %.3f, write time %.2fx, read time %.2fx one-pass, %.2fx verify-at-open (no goal: information)\n",
	       what, (double)runs[1].size / (double)runs[0].size, runs[1].w / runs[0].w,
	       runs[1].r / runs[0].r, runs[1].v / runs[0].v);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/var/tmp";
	const char *file = NULL;
	size_t mib = 64, total, n;
	struct neuronprof_notification *e;

	if (argc > 1) {
		size_t l = strlen(argv[1]);

		if (l > 5 && !strcmp(argv[1] + l - 5, ".ntff"))
			file = argv[1];
		else
			mib = strtoul(argv[1], NULL, 10);
	}
	if (!mib)
		mib = 64;
	total = mib << 20;
	n = total / ES;
	e = malloc(total);
	if (!e)
		return 1;
	if (file) {
		if (fill_file(e, n, file))
			return 1;
		return measure(file, (const unsigned char *)e, total, dir) ? 1 : 0;
	}
	fill_sim(e, n, true);
	if (measure("entries with random payloads", (const unsigned char *)e, total, dir))
		return 1;
	fill_sim(e, n, false);
	if (measure("simulator-shaped entries", (const unsigned char *)e, total, dir))
		return 1;
	free(e);
	return 0;
}
