// SPDX-License-Identifier: MIT
/*
 * Export throughput of the neuronprof tool: entries per second turned into
 * Chrome trace JSON and into a Perfetto trace, against the rate at which
 * the library's default one-pass reader alone opens, validates and iterates
 * the same file (the floor under any export, and the fastest way a user of
 * the library reads it); and rows per second written into an SQLite
 * database (a real file in $BENCH_DIR), against a bare loop that inserts
 * the same rows (read back from an export's database beforehand) into the
 * same schema with the same pragmas, one prepared statement per table, in
 * one transaction, indices after the rows. Built by `make -C tools bench`
 * with the tool's own export code, run by `make -C tools bench-run`.
 *
 *   bench-export [ENTRIES]     default 2000000; scratch file in $BENCH_DIR
 *                              (default /var/tmp)
 *
 * The profile has the simulator's mix (per iteration: 64 instructions on
 * each of 4 engines with their start/end events, 16 DMA transfers, an
 * inference start/stop pair, a throttle sample). Outputs go to a stdio
 * stream that counts the bytes and discards them, so the figures are the
 * exporters' cost, not the disk's. Each figure is the best of seven
 * interleaved runs (three for SQLite and its baseline, which take seconds):
 * on a shared machine a run of a tenth of a second is interrupted more
 * often than one of a hundredth, and more runs give both a quiet one. The
 * best CPU times are compared too (the steadier estimate when the machine
 * is shared), and printed as absolute rates too. The goals are absolute:
 * JSON >= 25 M entries/s, Perfetto >= 30 M entries/s (wall time, best
 * run). The last line is each export's rate against its baseline measured
 * in the same run, in wall time, with the absolute rates beside: the
 * reader's for JSON and Perfetto, the bare insert loop's for SQLite.
 *
 * Also printed: bytes per entry of the JSON and Perfetto outputs, and
 * the peak heap of each export (profile loading, the timing model, the
 * layout, the encoder, SQLite's page cache; the file itself is mapped, not
 * on the heap), for the
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

#include <sqlite3.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#include "export/export.h"
#include "analysis/profile.h"

#define RUNS		7	/* the reader, JSON and Perfetto */
#define SQL_RUNS	3	/* SQLite and its baseline (seconds each) */
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

/* CPU time of the process: the steadier estimate when the machine is shared. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double min_d(double a, double b)
{
	return a < b ? a : b;
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

/*
 * The baseline: the default one-pass reader, as a user of the library gets
 * it (nprof_ntff_reader_open() with flags 0: each data block verified by
 * the chunk iterator just before its entries are handed out), decoding
 * every entry.
 */
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
		struct nprof_ntff_chunk_iter it;
		const unsigned char *p;
		int k;

		if (nprof_ntff_reader_queue(r, (size_t)i, &q) ||
		    nprof_ntff_chunk_iter_init(&it, r, (size_t)i))
			die("queue");
		while ((k = nprof_ntff_chunk_iter_next(&it, (const void **)&p)) > 0) {
			for (; k; k--, p += q.entry_size) {
				struct entry e;

				entry_decode(p, q.entry_size, &e);
				sum += e.ts ^ e.seq ^ e.code;
				n++;
			}
		}
		if (k < 0)
			die("chunk");
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

/* One export, profile loading included (the tool does the same work, in one pass). */
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

	if (!out || profile_load_one_pass(path, &prof))
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

enum kind { K_JSON, K_PERFETTO, K_SQLITE };

/*
 * The peak heap of one export of a fresh profile of @entries, in a child:
 * above what the child held before it (generating the profile frees all it
 * allocates but what stdio keeps). SQLite's own allocations count: it
 * allocates with malloc().
 */
static double sqlite_once(const char *path, const char *dir, uint64_t *rows, char *keep);

static double heap_of(const char *dir, uint64_t entries, enum kind kind)
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
		if (kind == K_SQLITE)
			sqlite_once(path, dir, &bytes, NULL);
		else
			export_once(path, kind == K_PERFETTO, &bytes);
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

/*
 * One SQLite export into a file of @dir (the format needs one), loading
 * included; the database is kept at @keep when it is not NULL.
 */
static double sqlite_once(const char *path, const char *dir, uint64_t *rows, char *keep)
{
	struct export_stats st;
	struct progress pg;
	struct profile prof;
	char db[4096];
	double t0 = now();
	int ret;

	snprintf(db, sizeof(db), "%s/bench-export-%d.db", dir, (int)getpid());
	unlink(db);
	if (profile_load_one_pass(path, &prof))
		die("export setup");
	progress_start(&pg, PROGRESS_NEVER, "export", prof.entries);
	ret = sqlite_export(&prof, path, db, db, &pg, &st);
	profile_free(&prof);
	t0 = now() - t0;
	if (keep)
		strcpy(keep, db);
	else
		unlink(db);
	if (ret)
		die("sqlite export");
	*rows = st.rows;
	return t0;
}

/*
 * The SQLite baseline: the rows the export wrote, read back from its
 * database into memory, then inserted into a fresh database with the same
 * schema, the same pragmas (export_sqlite.c's SQLITE_EXPORT_PRAGMAS), one
 * prepared statement per table, in one transaction, indices after the
 * rows. What it does not do, and the export does, is everything else:
 * loading and checking the profile, the timing model, deciding the rows.
 */
struct bvalue {
	int type;		/* SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB, _NULL */
	int len;
	union {
		int64_t i;
		double d;
		void *p;
	};
};

struct btable {
	char *insert;		/* INSERT INTO "name" VALUES (?, ...) */
	int ncols;
	size_t nrows;
	struct bvalue *v;	/* nrows * ncols */
};

struct brows {
	char *schema;		/* CREATE TABLE and VIEW statements, in creation order */
	char *indices;		/* CREATE INDEX statements */
	struct btable *t;
	size_t nt;
	uint64_t rows;
};

static char *append(char *s, const char *add)
{
	size_t a = s ? strlen(s) : 0, b = strlen(add);
	char *r = realloc(s, a + b + 3);

	if (!r)
		die("out of memory");
	memcpy(r + a, add, b);
	memcpy(r + a + b, ";\n", 3);
	return r;
}

static void sq_check(sqlite3 *db, int rc, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "bench-export: %s: %s\n", what, sqlite3_errmsg(db));
		exit(1);
	}
}

static char *statements(sqlite3 *db, const char *types)
{
	char sql[160], *out = NULL;
	sqlite3_stmt *st;

	snprintf(sql, sizeof(sql), "SELECT sql FROM sqlite_master WHERE type IN (%s)"
		 " AND sql IS NOT NULL ORDER BY rowid", types);
	sq_check(db, sqlite3_prepare_v2(db, sql, -1, &st, NULL), sql);
	while (sqlite3_step(st) == SQLITE_ROW)
		out = append(out, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out ? out : append(NULL, "");
}

static void rows_load(const char *path, struct brows *b)
{
	sqlite3_stmt *names, *st;
	sqlite3 *db;

	memset(b, 0, sizeof(*b));
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		die("open the exported database");
	b->schema = statements(db, "'table', 'view'");
	b->indices = statements(db, "'index'");
	sq_check(db, sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'"
					" ORDER BY rowid", -1, &names, NULL), "tables");
	while (sqlite3_step(names) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(names, 0);
		struct btable *t;
		char sql[256];
		size_t cap = 0;
		char *ins;

		b->t = realloc(b->t, (b->nt + 1) * sizeof(*b->t));
		if (!b->t)
			die("out of memory");
		t = &b->t[b->nt++];
		memset(t, 0, sizeof(*t));
		snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\" ORDER BY rowid", name);
		sq_check(db, sqlite3_prepare_v2(db, sql, -1, &st, NULL), sql);
		t->ncols = sqlite3_column_count(st);
		ins = malloc(64 + strlen(name) + 3 * (size_t)t->ncols);
		if (!ins)
			die("out of memory");
		sprintf(ins, "INSERT INTO \"%s\" VALUES (", name);
		for (int c = 0; c < t->ncols; c++)
			strcat(ins, c ? ", ?" : "?");
		strcat(ins, ")");
		t->insert = ins;
		while (sqlite3_step(st) == SQLITE_ROW) {
			struct bvalue *v;

			if (t->nrows == cap) {
				cap = cap ? 2 * cap : 1024;
				t->v = realloc(t->v, cap * (size_t)t->ncols * sizeof(*t->v));
				if (!t->v)
					die("out of memory");
			}
			v = &t->v[t->nrows++ * (size_t)t->ncols];
			for (int c = 0; c < t->ncols; c++) {
				v[c].type = sqlite3_column_type(st, c);
				if (v[c].type == SQLITE_INTEGER) {
					v[c].i = sqlite3_column_int64(st, c);
				} else if (v[c].type == SQLITE_FLOAT) {
					v[c].d = sqlite3_column_double(st, c);
				} else if (v[c].type == SQLITE_TEXT || v[c].type == SQLITE_BLOB) {
					const void *p = v[c].type == SQLITE_TEXT ?
							(const void *)sqlite3_column_text(st, c) :
							sqlite3_column_blob(st, c);

					v[c].len = sqlite3_column_bytes(st, c);
					v[c].p = malloc((size_t)v[c].len + 1);
					if (!v[c].p)
						die("out of memory");
					if (v[c].len)
						memcpy(v[c].p, p, (size_t)v[c].len);
				}
			}
		}
		sqlite3_finalize(st);
		b->rows += t->nrows;
	}
	sqlite3_finalize(names);
	sqlite3_close(db);
}

static void rows_free(struct brows *b)
{
	for (size_t i = 0; i < b->nt; i++) {
		struct btable *t = &b->t[i];

		for (size_t k = 0; k < t->nrows * (size_t)t->ncols; k++)
			if (t->v[k].type == SQLITE_TEXT || t->v[k].type == SQLITE_BLOB)
				free(t->v[k].p);
		free(t->v);
		free(t->insert);
	}
	free(b->t);
	free(b->schema);
	free(b->indices);
}

/* The bare loop: every row of @b into a fresh database of @dir. */
static double baseline_once(const struct brows *b, const char *dir)
{
	char db_path[4096];
	double t0;
	sqlite3 *db;

	snprintf(db_path, sizeof(db_path), "%s/bench-baseline-%d.db", dir, (int)getpid());
	unlink(db_path);
	t0 = now();
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK)
		die("baseline database");
	sq_check(db, sqlite3_exec(db, SQLITE_EXPORT_PRAGMAS, NULL, NULL, NULL), "pragmas");
	sq_check(db, sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), "begin");
	sq_check(db, sqlite3_exec(db, b->schema, NULL, NULL, NULL), "schema");
	for (size_t i = 0; i < b->nt; i++) {
		const struct btable *t = &b->t[i];
		sqlite3_stmt *st;

		sq_check(db, sqlite3_prepare_v2(db, t->insert, -1, &st, NULL), t->insert);
		for (size_t r = 0; r < t->nrows; r++) {
			const struct bvalue *v = &t->v[r * (size_t)t->ncols];

			for (int c = 0; c < t->ncols; c++) {
				switch (v[c].type) {
				case SQLITE_INTEGER:
					sqlite3_bind_int64(st, c + 1, v[c].i);
					break;
				case SQLITE_FLOAT:
					sqlite3_bind_double(st, c + 1, v[c].d);
					break;
				case SQLITE_TEXT:
					sqlite3_bind_text(st, c + 1, v[c].p, v[c].len, SQLITE_STATIC);
					break;
				case SQLITE_BLOB:
					sqlite3_bind_blob(st, c + 1, v[c].p, v[c].len, SQLITE_STATIC);
					break;
				default:
					sqlite3_bind_null(st, c + 1);
				}
			}
			sq_check(db, sqlite3_step(st), t->insert);
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
	}
	sq_check(db, sqlite3_exec(db, b->indices, NULL, NULL, NULL), "indices");
	sq_check(db, sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), "commit");
	if (sqlite3_close(db) != SQLITE_OK)
		die("baseline close");
	t0 = now() - t0;
	unlink(db_path);
	return t0;
}

/*
 * BENCH_EXPORT_ONLY=json|perfetto: that export alone, ONLY_RUNS times, for
 * perf record/perf stat (no goals judged, nothing else measured);
 * BENCH_EXPORT_ONLY=keep: the profile only, kept, its path printed (a
 * recording for tools/tests/export_compare.sh).
 */
#define ONLY_RUNS	20

static int only(const char *path, const char *what)
{
	bool perfetto = !strcmp(what, "perfetto");
	double best = 1e30, cpu = 1e30, t;
	uint64_t bytes = 0, n = 0;

	if (!strcmp(what, "keep")) {
		printf("%s\n", path);
		return 0;
	}
	if (!perfetto && strcmp(what, "json")) {
		unlink(path);
		fprintf(stderr, "bench-export: BENCH_EXPORT_ONLY is json, perfetto or keep, not %s\n", what);
		return 2;
	}
	read_once(path, &n);
	for (int i = 0; i < ONLY_RUNS; i++) {
		double c = cpu_now();

		t = export_once(path, perfetto, &bytes);
		best = t < best ? t : best;
		cpu = min_d(cpu, cpu_now() - c);
	}
	unlink(path);
	printf("export %s alone: best of %d runs %.3f s, %.2f M entries/s (cpu %.2f M/s), %llu bytes out\n",
	       what, ONLY_RUNS, best, (double)n / best / 1e6, (double)n / cpu / 1e6,
	       (unsigned long long)bytes);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t entries = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000;
	const char *dir = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/var/tmp";
	double best_read = 1e30, best_json = 1e30, best_pf = 1e30, best_sq = 1e30;
	double best_base = 1e30, r_read, r_json, r_pf, r_sq, r_base;
	double cpu_read = 1e30, cpu_json = 1e30, cpu_pf = 1e30;
	uint64_t n = 0, json_bytes = 0, pf_bytes = 0, rows = 0;
	char name[64], path[4096], db[4096];
	struct brows base;

	if (!entries) {
		fprintf(stderr, "usage: bench-export [ENTRIES]\n");
		return 2;
	}
	tool_cmd = "bench-export";
	snprintf(name, sizeof(name), "bench-export-%d.ntff", (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	generate(dir, name, entries);
	if (getenv("BENCH_EXPORT_ONLY"))
		return only(path, getenv("BENCH_EXPORT_ONLY"));
	/* The rows of the SQLite baseline: those of one export, read back. */
	sqlite_once(path, dir, &rows, db);
	rows_load(db, &base);
	unlink(db);
	if (base.rows != rows) {
		fprintf(stderr, "bench-export: the export wrote %llu rows, %llu read back\n",
			(unsigned long long)rows, (unsigned long long)base.rows);
		return 1;
	}
	for (int i = 0; i < RUNS; i++) {
		double c = cpu_now(), t = read_once(path, &n);

		best_read = t < best_read ? t : best_read;
		cpu_read = min_d(cpu_read, cpu_now() - c);
		c = cpu_now();
		t = export_once(path, false, &json_bytes);
		best_json = t < best_json ? t : best_json;
		cpu_json = min_d(cpu_json, cpu_now() - c);
		c = cpu_now();
		t = export_once(path, true, &pf_bytes);
		best_pf = t < best_pf ? t : best_pf;
		cpu_pf = min_d(cpu_pf, cpu_now() - c);
		if (i >= SQL_RUNS)
			continue;
		t = sqlite_once(path, dir, &rows, NULL);
		best_sq = t < best_sq ? t : best_sq;
		t = baseline_once(&base, dir);
		best_base = t < best_base ? t : best_base;
	}
	unlink(path);
	rows_free(&base);
	r_read = (double)n / best_read;
	r_json = (double)n / best_json;
	r_pf = (double)n / best_pf;
	r_sq = (double)rows / best_sq;
	r_base = (double)rows / best_base;
	printf("profile: %llu entries (%.1f MiB of entries), best of %d runs (SQLite: %d)\n",
	       (unsigned long long)n, (double)n * 64 / (1 << 20), RUNS, SQL_RUNS);
	printf("reader (default one-pass: open, chunks, decode): %8.3f s  %7.2f M entries/s (cpu %7.2f M/s)\n",
	       best_read, r_read / 1e6, (double)n / cpu_read / 1e6);
	printf("export json:                      %8.3f s  %7.2f M entries/s (cpu %7.2f M/s)  %.1f MiB out\n",
	       best_json, r_json / 1e6, (double)n / cpu_json / 1e6, (double)json_bytes / (1 << 20));
	printf("export perfetto:                  %8.3f s  %7.2f M entries/s (cpu %7.2f M/s)  %.1f MiB out\n",
	       best_pf, r_pf / 1e6, (double)n / cpu_pf / 1e6, (double)pf_bytes / (1 << 20));
	printf("export sqlite (into a file):      %8.3f s  %7.2f M rows/s  %llu rows\n", best_sq,
	       r_sq / 1e6, (unsigned long long)rows);
	printf("bare insert loop, the same rows:  %8.3f s  %7.2f M rows/s  (one prepared statement "
	       "per table, one transaction, indices after)\n", best_base, r_base / 1e6);
	printf("output per entry: json %.1f bytes, perfetto %.1f bytes\n",
	       (double)json_bytes / (double)n, (double)pf_bytes / (double)n);
	printf("peak heap of an export, %llu / %llu entries: perfetto %.0f / %.0f KiB, "
	       "json %.0f / %.0f KiB, sqlite %.0f / %.0f KiB\n", (unsigned long long)(entries / 4),
	       (unsigned long long)entries, heap_of(dir, entries / 4, K_PERFETTO),
	       heap_of(dir, entries, K_PERFETTO), heap_of(dir, entries / 4, K_JSON),
	       heap_of(dir, entries, K_JSON), heap_of(dir, entries / 4, K_SQLITE),
	       heap_of(dir, entries, K_SQLITE));
	printf("cpu time, export / reader's iteration: json %.3f (%.2f / %.2f M entries/s), "
	       "perfetto %.3f (%.2f / %.2f M entries/s)\n",
	       cpu_read / cpu_json, (double)n / cpu_json / 1e6, (double)n / cpu_read / 1e6,
	       cpu_read / cpu_pf, (double)n / cpu_pf / 1e6, (double)n / cpu_read / 1e6);
	printf("goal: export json >= 25 M entries/s: %.2f M entries/s (cpu %.2f): %s\n",
	       r_json / 1e6, (double)n / cpu_json / 1e6, r_json >= 25e6 ? "met" : "NOT met");
	printf("goal: export perfetto >= 30 M entries/s: %.2f M entries/s (cpu %.2f): %s\n",
	       r_pf / 1e6, (double)n / cpu_pf / 1e6, r_pf >= 30e6 ? "met" : "NOT met");
	printf("ratio export / its baseline measured in this run: json %.3f (%.2f / %.2f M entries/s) "
	       "and perfetto %.3f (%.2f / %.2f M entries/s) of the default one-pass reader's "
	       "iteration (open, validate, decode every entry), sqlite %.3f (%.2f / %.2f M rows/s) "
	       "of a bare insert loop of the same rows\n",
	       r_json / r_read, r_json / 1e6, r_read / 1e6, r_pf / r_read, r_pf / 1e6, r_read / 1e6,
	       r_sq / r_base, r_sq / 1e6, r_base / 1e6);
	return 0;
}
