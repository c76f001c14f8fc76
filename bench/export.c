// SPDX-License-Identifier: MIT
/*
 * Export throughput of the neuronprof tool: entries per second turned into
 * Chrome trace JSON and into a Perfetto trace, and rows per second written
 * into an SQLite database (a real file in $BENCH_DIR), against the rate at which
 * the library's reader alone opens, validates and iterates the same file
 * (the floor under any export). Built by `make -C tools bench` with the
 * tool's own export code, run by `make -C tools bench-run`.
 *
 *   bench-export [ENTRIES]     default 2000000; scratch file in $BENCH_DIR
 *                              (default /var/tmp)
 *
 * The profile has the simulator's mix (per iteration: 64 instructions on
 * each of 4 engines with their start/end events, 16 DMA transfers, an
 * inference start/stop pair, a throttle sample). Outputs go to a stdio
 * stream that counts the bytes and discards them, so the figures are the
 * exporters' cost, not the disk's. Each figure is the best of three
 * runs. The last line is each export's rate against the reader's, the
 * baseline measured in the same run.
 *
 * Also printed: bytes per entry of the JSON and Perfetto outputs, and
 * the peak heap of each export (profile loading, the timing model, the
 * layout, the encoder; the file itself is mapped, not on the heap), for the
 * profile and for one a quarter its size, in a child process each. The
 * benchmark counts the heap itself: it defines malloc() and its siblings,
 * which forward to glibc's and add up the usable size of every block live.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#include "export/export.h"
#include "analysis/profile.h"

#define RUNS		3
#define CHUNK		4096	/* entries per writer append */
#define INSTR		64
#define ENGINES		4
#define DMA		16
#define PER_ITER	(ENGINES * (INSTR + 2) + DMA + 2 + 1)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench-export: %s: %s\n", what,
		nprof_strerror_last()[0] ? nprof_strerror_last() : strerror(errno));
	exit(1);
}

/* One queue being generated: a chunk of entries appended when full. */
struct gen_queue {
	struct nprof_ntff_queue_desc desc;
	struct neuronprof_notification buf[CHUNK];
	size_t n;
	uint64_t seq;
};

static void flush_queue(struct nprof_ntff_writer *w, struct gen_queue *q)
{
	if (!q->n)
		return;
	if (nprof_ntff_writer_append(w, &q->desc, q->buf, q->n * sizeof(q->buf[0]), NULL, 0) < 0)
		die("append");
	q->n = 0;
}

static void put(struct nprof_ntff_writer *w, struct gen_queue *q, uint64_t ts, uint32_t code,
		uint32_t iter, uint64_t p0)
{
	struct neuronprof_notification *e = &q->buf[q->n++];

	memset(e, 0, sizeof(*e));
	e->timestamp_ns = ts;
	e->seq = q->seq++;
	e->queue_type = (uint16_t)q->desc.queue_type;
	e->engine = (uint16_t)q->desc.engine;
	e->code = code;
	e->model_id = 1;
	e->iteration = iter;
	e->payload[0] = p0;
	e->payload[1] = 0x1000 + p0;
	e->payload[2] = 0x2000 + p0;
	if (q->n == CHUNK)
		flush_queue(w, q);
}

static void generate(const char *dir, const char *name, uint64_t entries)
{
	/* queues: TRACE x4, EVENT x4, DMA x4, INFER_STATUS, THROTTLE */
	enum { NQ = 3 * ENGINES + 2 };
	struct nprof_ntff_info info = {
		.size = sizeof(info), .pid = (uint32_t)getpid(), .capture_kind = 1,
		.clock_id = CLOCK_MONOTONIC, .hostname = "bench",
		.device = { .arch = 3, .uapi_version = 1, .num_cores = 8, .num_topsps = 16,
			    .engines_per_core = 5, .entry_size = 64, .provider = "sim" },
	};
	struct gen_queue *q = calloc(NQ, sizeof(*q));
	struct nprof_ntff_writer *w = nprof_ntff_writer_create(dir, name, 0);
	uint64_t iters = (entries + PER_ITER - 1) / PER_ITER, ts = 1000000;

	if (!q || !w)
		die("cannot create the profile");
	for (int i = 0; i < NQ; i++) {
		uint32_t qt = i < ENGINES ? NEURONPROF_QT_TRACE : i < 2 * ENGINES ?
			      NEURONPROF_QT_EVENT : i < 3 * ENGINES ? NEURONPROF_QT_DMA :
			      i == 3 * ENGINES ? NEURONPROF_QT_INFER_STATUS :
			      NEURONPROF_QT_THROTTLE;

		q[i].desc = (struct nprof_ntff_queue_desc){
			.size = sizeof(q[i].desc), .queue_type = qt,
			.engine = i < 3 * ENGINES ? (uint32_t)i % ENGINES : 0, .entry_size = 64,
		};
	}
	if (nprof_ntff_writer_set_info(w, &info))
		die("set_info");
	for (uint32_t it = 0; it < iters; it++) {
		put(w, &q[3 * ENGINES], ts += 10, NEURONPROF_INFER_START, it, iters);
		for (int e = 0; e < ENGINES; e++) {
			put(w, &q[ENGINES + e], ts += 10, 1, it, INSTR);
			for (uint32_t i = 0; i < INSTR; i++)
				put(w, &q[e], ts += 10, (uint32_t)(e + 1) << 8 | (i % 32), it, 16 * i);
			put(w, &q[ENGINES + e], ts += 10, 2, it, 0);
		}
		for (uint32_t d = 0; d < DMA; d++)
			put(w, &q[2 * ENGINES + d % ENGINES], ts += 10, d, it, 4096);
		put(w, &q[3 * ENGINES + 1], ts += 10, 1 + it % 3, it, 90);
		put(w, &q[3 * ENGINES], ts += 10, NEURONPROF_INFER_STOP, it, 0);
	}
	for (int i = 0; i < NQ; i++)
		flush_queue(w, &q[i]);
	if (nprof_ntff_writer_finalize(w))
		die("finalize");
	free(q);
}

/* The baseline: open with every check, then decode every entry. */
static double read_once(const char *path, uint64_t *count)
{
	double t0 = now();
	struct nprof_ntff_reader *r = nprof_ntff_reader_open(path, 0);
	uint64_t n = 0, sum = 0;
	int nq;

	if (!r)
		die("reader");
	nq = nprof_ntff_reader_queue_count(r);
	for (int i = 0; i < nq; i++) {
		struct nprof_ntff_queue q = { .size = sizeof(q) };
		struct nprof_ntff_entry_iter it;
		const void *p;

		if (nprof_ntff_reader_queue(r, (size_t)i, &q))
			die("queue");
		nprof_ntff_entry_iter_init(&it, &q);
		while ((p = nprof_ntff_entry_iter_next(&it))) {
			struct entry e;

			entry_decode(p, q.entry_size, &e);
			sum += e.ts ^ e.seq ^ e.code;
			n++;
		}
	}
	nprof_ntff_reader_close(r);
	/* The sum keeps the decoding from being optimized away. */
	if (sum == 42)
		fputs("", stderr);
	*count = n;
	return now() - t0;
}

/* A sink that counts what it is given and keeps none of it. */
static ssize_t count_write(void *cookie, const char *buf, size_t len)
{
	(void)buf;
	*(uint64_t *)cookie += len;
	return (ssize_t)len;
}

/*
 * The heap's live bytes and their peak: every allocation of the process goes
 * through these definitions (glibc lets a program replace malloc and its
 * siblings), which call glibc's own and count malloc_usable_size() of each
 * block.
 */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static size_t heap_live, heap_peak;

static void *counted(void *p)
{
	if (p) {
		size_t live = __atomic_add_fetch(&heap_live, malloc_usable_size(p),
						  __ATOMIC_RELAXED);
		size_t peak = __atomic_load_n(&heap_peak, __ATOMIC_RELAXED);

		while (live > peak && !__atomic_compare_exchange_n(&heap_peak, &peak, live, true,
								   __ATOMIC_RELAXED,
								   __ATOMIC_RELAXED))
			;
	}
	return p;
}

static void uncount(void *p)
{
	if (p)
		__atomic_sub_fetch(&heap_live, malloc_usable_size(p), __ATOMIC_RELAXED);
}

void *malloc(size_t n)
{
	return counted(__libc_malloc(n));
}

void *calloc(size_t n, size_t size)
{
	return counted(__libc_calloc(n, size));
}

void *realloc(void *p, size_t n)
{
	size_t old = p ? malloc_usable_size(p) : 0;
	void *q = __libc_realloc(p, n);

	if (q || !n) {
		/* The old block is gone (a failed realloc keeps it). */
		__atomic_sub_fetch(&heap_live, old, __ATOMIC_RELAXED);
		counted(q);
	}
	return q;
}

void free(void *p)
{
	uncount(p);
	__libc_free(p);
}

void *memalign(size_t align, size_t n)
{
	return counted(__libc_memalign(align, n));
}

void *aligned_alloc(size_t align, size_t n)
{
	return counted(__libc_memalign(align, n));
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	p = counted(__libc_memalign(align, n));
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *valloc(size_t n)
{
	return counted(__libc_memalign((size_t)sysconf(_SC_PAGESIZE), n));
}

void *pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return counted(__libc_memalign(page, (n + page - 1) / page * page));
}

/* One export, profile loading included (the tool does the same work). */
static double export_once(const char *path, bool perfetto, uint64_t *bytes)
{
	cookie_io_functions_t io = { .write = count_write };
	struct export_stats st;
	struct progress pg;
	struct profile prof;
	double t0 = now();
	FILE *out;
	int ret;

	*bytes = 0;
	out = fopencookie(bytes, "w", io);

	if (!out || profile_load(path, &prof))
		die("export setup");
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	progress_start(&pg, PROGRESS_NEVER, "export", prof.entries);
	if (perfetto) {
		struct perfetto_export *x = perfetto_export_new(out);

		ret = export_run(&prof, path, &perfetto_format, x, &pg, &st);
		perfetto_export_free(x);
	} else {
		struct json_export *x = json_export_new(out);

		ret = export_run(&prof, path, &json_format, x, &pg, &st);
		json_export_free(x);
	}
	fclose(out);
	profile_free(&prof);
	if (ret)
		die("export");
	return now() - t0;
}

/*
 * The peak heap of one export of a fresh profile of @entries, in a child:
 * above what the child held before it (generating the profile frees all it
 * allocates but what stdio keeps).
 */
static double heap_of(const char *dir, uint64_t entries, bool perfetto)
{
	int fds[2];
	double kib = -1;
	pid_t pid;

	if (pipe(fds))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		char name[64], path[4096];
		uint64_t bytes;
		size_t before;

		snprintf(name, sizeof(name), "bench-heap-%d.ntff", (int)getpid());
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		generate(dir, name, entries);
		before = __atomic_load_n(&heap_live, __ATOMIC_RELAXED);
		__atomic_store_n(&heap_peak, before, __ATOMIC_RELAXED);
		export_once(path, perfetto, &bytes);
		unlink(path);
		kib = (double)(__atomic_load_n(&heap_peak, __ATOMIC_RELAXED) - before) / 1024;
		if (write(fds[1], &kib, sizeof(kib)) != sizeof(kib))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &kib, sizeof(kib)) != sizeof(kib))
		kib = -1;
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return kib;
}

/* One SQLite export into a file of @dir (the format needs one), loading included. */
static double sqlite_once(const char *path, const char *dir, uint64_t *rows)
{
	struct export_stats st;
	struct progress pg;
	struct profile prof;
	char db[4096];
	double t0 = now();
	int ret;

	snprintf(db, sizeof(db), "%s/bench-export-%d.db", dir, (int)getpid());
	unlink(db);
	if (profile_load(path, &prof))
		die("export setup");
	progress_start(&pg, PROGRESS_NEVER, "export", prof.entries);
	ret = sqlite_export(&prof, path, db, db, &pg, &st);
	profile_free(&prof);
	unlink(db);
	if (ret)
		die("sqlite export");
	*rows = st.rows;
	return now() - t0;
}

int main(int argc, char **argv)
{
	uint64_t entries = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000;
	const char *dir = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/var/tmp";
	double best_read = 1e30, best_json = 1e30, best_pf = 1e30, best_sq = 1e30;
	double r_read, r_json, r_pf, r_sq;
	uint64_t n = 0, json_bytes = 0, pf_bytes = 0, rows = 0;
	char name[64], path[4096];

	if (!entries) {
		fprintf(stderr, "usage: bench-export [ENTRIES]\n");
		return 2;
	}
	tool_cmd = "bench-export";
	snprintf(name, sizeof(name), "bench-export-%d.ntff", (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	generate(dir, name, entries);
	for (int i = 0; i < RUNS; i++) {
		double t = read_once(path, &n);

		best_read = t < best_read ? t : best_read;
		t = export_once(path, false, &json_bytes);
		best_json = t < best_json ? t : best_json;
		t = export_once(path, true, &pf_bytes);
		best_pf = t < best_pf ? t : best_pf;
		t = sqlite_once(path, dir, &rows);
		best_sq = t < best_sq ? t : best_sq;
	}
	unlink(path);
	r_read = (double)n / best_read;
	r_json = (double)n / best_json;
	r_pf = (double)n / best_pf;
	r_sq = (double)rows / best_sq;
	printf("profile: %llu entries (%.1f MiB of entries), best of %d runs\n",
	       (unsigned long long)n, (double)n * 64 / (1 << 20), RUNS);
	printf("reader (open, validate, iterate): %8.3f s  %7.2f M entries/s\n", best_read,
	       r_read / 1e6);
	printf("export json:                      %8.3f s  %7.2f M entries/s  %.1f MiB out\n",
	       best_json, r_json / 1e6, (double)json_bytes / (1 << 20));
	printf("export perfetto:                  %8.3f s  %7.2f M entries/s  %.1f MiB out\n",
	       best_pf, r_pf / 1e6, (double)pf_bytes / (1 << 20));
	printf("export sqlite (into a file):      %8.3f s  %7.2f M rows/s  %llu rows\n", best_sq,
	       r_sq / 1e6, (unsigned long long)rows);
	printf("output per entry: json %.1f bytes, perfetto %.1f bytes\n",
	       (double)json_bytes / (double)n, (double)pf_bytes / (double)n);
	printf("peak heap of an export, %llu / %llu entries: perfetto %.0f / %.0f KiB, "
	       "json %.0f / %.0f KiB\n", (unsigned long long)(entries / 4),
	       (unsigned long long)entries, heap_of(dir, entries / 4, true),
	       heap_of(dir, entries, true), heap_of(dir, entries / 4, false),
	       heap_of(dir, entries, false));
	printf("ratio export / reader's iteration (open, validate, decode every entry; the baseline "
	       "measured in this run): json %.3f, perfetto %.3f, sqlite rows %.3f\n",
	       r_json / r_read, r_pf / r_read, r_sq / r_read);
	return 0;
}
