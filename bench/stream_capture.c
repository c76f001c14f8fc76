// SPDX-License-Identifier: MIT
/*
 * stream_capture: streaming capture (Documentation/capture.rst, "Streaming")
 * measured on the library's real capture engine: its drainer thread writing
 * the session's file while the device produces, stop and serialize.
 *
 * A host has no kernel rings, so the device is the host tests' fake
 * (lib/tests/fake_device.h): rings laid out exactly like subscriptions,
 * whose subscription descriptors are eventfds signalled when the unread
 * bytes cross the watermark, as the kernel wakes a subscriber. This
 * program's main thread is the device: it writes batches of entries as the
 * kernel's batched producer does (never over unread entries; one release
 * store of the producer position per batch), in memory faulted in before
 * the clock starts and laid out with the members that do not change
 * (ring_template()), so that it writes only what changes per entry.
 *
 * 1. Throughput. One session on the 24 queues of core 0 (1 MiB rings); the
 *    producer fills them as fast as the drainer frees them (it waits for
 *    space instead of losing, so nothing is lost and the drainer sets the
 *    pace) until MiB of entries went through, then stop and serialize. The
 *    capture rate is entries per second from the first entry to the NTFF
 *    file renamed into place. Two baselines write the same bytes from
 *    memory into one file, in the same run: a write() loop that starts the
 *    writeback of every NTFF_WRITEBACK_CHUNK (8 MiB) with
 *    sync_file_range(SYNC_FILE_RANGE_WRITE), as the capture's writer does,
 *    then fsync(); and a plain write() loop then fsync(). Best of ROUNDS
 *    interleaved rounds for each, each round starting with the next of
 *    the three. Five by default: on the shared development VM any single
 *    round of any of the three can crawl (write+fsync rounds at 0.3 GB/s
 *    beside others at 2 GB/s), and with three a measurement hit twice
 *    decided the ratio. The last line is the capture against the
 *    faster of the two. The drainer's rate while the device produced (no
 *    fsync yet) is compared with the baselines' write loops alone (no fsync
 *    either). The default volume, 512 MiB, is a sustained capture.
 * 2. Highest loss-free rate. The producer is paced at R rings per second on
 *    each of the 24 queues (256 KiB rings) and loses what does not fit; a
 *    trial produces 20 rings per queue. Each rate is tried 3 times and
 *    passes when the median trial lost nothing. R starts at 8, doubles while
 *    it passes (or halves until it does), then is bisected 4 times between
 *    the highest pass and the lowest failure; the highest passing R is
 *    reported as a multiple of the ring size per second.
 *
 * Usage: stream_capture [DIR [MiB [ROUNDS]]] (default: $BENCH_DIR or
 * /var/tmp, 512, 5). Last line: "ratio capture / best baseline (...)"
 * (target >= 0.8).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/capture.h>

#include "fake_device.h"
#include "ntff/ntff_internal.h"

#define ES		64u
#define QUEUES		24
#define TP_RING		(1ULL << 20)
#define RATE_RING	(256ULL << 10)
#define RATE_RINGS	20		/* per queue and trial */
#define RATE_TRIALS	3		/* per rate: the median decides */
#define BATCH_DIV	16		/* the paced producer's batch: 1/16 ring */

struct rig {
	struct fake_dev *fd;
	struct nprof_device *dev;
	struct nprof_capture *cap;
	struct fake_queue *q[QUEUES];
	int nq;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "stream_capture: %s: %s\n", what, nprof_strerror_last());
	exit(1);
}

/*
 * Every slot of @q's ring holds the members of its entries that do not
 * change (queue type, engine, model id; the rest zero) before the clock
 * starts, as a device's notification memory holds its layout: the producer
 * then writes what changes, the sequence number and the timestamp, and
 * what the capture reads and writes is byte for byte what a producer
 * copying whole entries would have left. The device's own work is not
 * what this benchmark measures; on two cores a costlier producer takes
 * CPU from the capture's drainer and the kernel's writeback, which the
 * baselines do not share.
 */
static void ring_template(struct fake_queue *q)
{
	struct neuronprof_notification e;
	uint64_t off;

	memset(&e, 0, sizeof(e));
	e.queue_type = (uint16_t)q->type;
	e.engine = (uint16_t)q->engine;
	e.model_id = 1;
	for (off = 0; off < q->data_size; off += ES)
		memcpy(q->data + off, &e, sizeof(e));
}

static void rig_open(struct rig *r, uint64_t ring, const char *dir)
{
	struct nprof_device_info info = fake_trn2_info();
	struct nprof_capture_opts o = { .size = sizeof(o), .spool_dir = dir };
	int i, t;

	memset(r, 0, sizeof(*r));
	r->fd = fake_dev_new();
	r->dev = r->fd ? nprof_device_create(&info, &fake_ops, r->fd) : NULL;
	for (t = 0; t < NPROF_QUEUE_TYPES; t++)
		o.ring_size[t] = ring;
	r->cap = r->dev ? nprof_capture_create(r->dev, &o) : NULL;
	if (!r->cap)
		die("cannot create the capture engine");
	if (nprof_capture_session_start(r->cap, 0))
		die("cannot start a session");
	for (i = 0; i < FAKE_MAX_QUEUES && r->nq < QUEUES; i++) {
		struct fake_queue *q = &r->fd->q[i];

		if (q->used && (q->kind == NPROF_TARGET_CORE ? q->index == 0 : q->index / 2 == 0))
			r->q[r->nq++] = q;
	}
	if (r->nq != QUEUES) {
		fprintf(stderr, "stream_capture: %d queues on core 0, expected %d\n", r->nq, QUEUES);
		exit(1);
	}
	for (i = 0; i < QUEUES; i++)
		ring_template(r->q[i]);
}

/*
 * Stop and serialize into @dir (the file is complete under its name when
 * this returns; *@done_s says when), then close and clean up; returns the
 * losses of the session.
 */
static uint64_t rig_finish(struct rig *r, const char *dir, double *done_s)
{
	struct nprof_capture_stats st = { .size = sizeof(st) };
	uint64_t id, lost = 0;
	char path[4096];
	int t;

	if (nprof_capture_session_stop(r->cap, 0, &id) ||
	    nprof_capture_session_stats(r->cap, 0, id, &st) ||
	    nprof_capture_session_serialize(r->cap, 0, id, dir))
		die("cannot stop and serialize");
	if (done_s)
		*done_s = now_s();
	for (t = 0; t < NPROF_QUEUE_TYPES; t++)
		lost += st.lost[t];
	nprof_capture_close(r->cap);
	nprof_device_close(r->dev);
	fake_dev_free(r->fd);
	snprintf(path, sizeof(path), "%s/profile_nc_0_session_%llu.ntff", dir, (unsigned long long)id);
	unlink(path);
	return lost;
}

/*
 * The device's side, batched as the kernel's producer is: @n entries (no
 * more than fit) written into the ring, the producer position published
 * once with a release store, the subscriber woken when the unread bytes
 * cross the watermark. Returns the entries written.
 */
static uint64_t produce_batch(struct fake_queue *q, uint64_t n)
{
	uint64_t cons = __atomic_load_n(&q->cons->consumer_pos, __ATOMIC_ACQUIRE);
	uint64_t unread = q->prod - cons, fit = (q->data_size - unread) / ES, i;
	struct neuronprof_notification *e;

	if (n > fit)
		n = fit;
	for (i = 0; i < n; i++) {
		e = (struct neuronprof_notification *)(q->data + ((q->prod + i * ES) & (q->data_size - 1)));
		e->seq = q->seq++;
		e->timestamp_ns = e->seq;
	}
	q->prod += n * ES;
	__atomic_store_n(&q->hdr->producer_pos, q->prod, __ATOMIC_RELEASE);
	if (n && unread < q->watermark && q->prod - cons >= q->watermark)
		fake_wake(q);
	return n;
}

static uint64_t room(const struct fake_queue *q)
{
	return (q->data_size - (q->prod - __atomic_load_n(&q->cons->consumer_pos, __ATOMIC_ACQUIRE))) /
	       ES;
}

/* ---- 1. throughput ------------------------------------------------------------ */

/*
 * One capture of @per_queue entries on each queue: returns entries per
 * second to the file in place; *@drain_rate, while the producer ran (the
 * drainer's sustained rate, before stop and serialize).
 */
static double capture_round(const char *dir, uint64_t per_queue, double *drain_rate)
{
	uint64_t done[QUEUES] = { 0 }, left = per_queue * QUEUES;
	double t0, t, t1 = 0;
	struct rig r;

	rig_open(&r, TP_RING, dir);
	/* The device's memory exists before the capture (rig_open() wrote it): no first-touch faults. */
	t0 = now_s();
	while (left) {
		bool moved = false;

		for (int i = 0; i < QUEUES; i++) {
			uint64_t n = room(r.q[i]);

			if (n > per_queue - done[i])
				n = per_queue - done[i];
			if (!n)
				continue;
			n = produce_batch(r.q[i], n);
			done[i] += n;
			left -= n;
			moved = true;
		}
		if (!moved) {
			/* Every ring full: the drainer sets the pace; leave it the CPU. */
			struct timespec ts = { 0, 20000 };

			nanosleep(&ts, NULL);
		}
	}
	t = now_s();
	if (rig_finish(&r, dir, &t1))
		die("the throughput capture lost entries");
	*drain_rate = (double)(per_queue * QUEUES) / (t - t0);
	return (double)(per_queue * QUEUES) / (t1 - t0);
}

struct write_rate {
	double writing;		/* entries/s of the write() loop alone */
	double total;		/* entries/s to the file durable (fsync returned) */
};

/*
 * A write() loop of @bytes from @buf (@len at a time) into a new file, then
 * fsync(); with @writeback, the writeback of every NTFF_WRITEBACK_CHUNK is
 * started as it is written, as the capture's writer does.
 */
static struct write_rate write_round(const char *dir, uint64_t bytes, const unsigned char *buf,
				     size_t len, bool writeback)
{
	struct write_rate r;
	uint64_t wb = 0;
	char path[4096];
	double t0, tw, t;
	int fd;

	/* Like the capture's file: complete and durable, then timed; removed untimed. */
	snprintf(path, sizeof(path), "%s/stream_capture.write", dir);
	t0 = now_s();
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror("stream_capture: baseline");
		exit(1);
	}
	for (uint64_t off = 0; off < bytes;) {
		size_t n = bytes - off < len ? (size_t)(bytes - off) : len;
		ssize_t w = write(fd, buf, n);

		if (w <= 0) {
			perror("stream_capture: baseline write");
			exit(1);
		}
		off += (uint64_t)w;
		if (writeback && off - wb >= NTFF_WRITEBACK_CHUNK) {
			if (sync_file_range(fd, (off_t)wb, (off_t)(off - wb), SYNC_FILE_RANGE_WRITE))
				perror("stream_capture: baseline sync_file_range");
			wb = off;
		}
	}
	tw = now_s();
	if (fsync(fd))
		perror("stream_capture: baseline fsync");
	close(fd);
	t = now_s();
	unlink(path);
	r.writing = (double)(bytes / ES) / (tw - t0);
	r.total = (double)(bytes / ES) / (t - t0);
	return r;
}

/* ---- 2. highest loss-free rate --------------------------------------------------- */

/* One trial at @rings_per_s rings per second per queue; returns the losses. */
static uint64_t rate_trial(const char *dir, double rings_per_s)
{
	uint64_t ring_entries = RATE_RING / ES, batch = ring_entries / BATCH_DIV;
	uint64_t batches = RATE_RINGS * BATCH_DIV;
	double period = 1.0 / (rings_per_s * BATCH_DIV), t0, due;
	uint64_t lost = 0;
	struct rig r;

	rig_open(&r, RATE_RING, dir);
	t0 = now_s();
	for (uint64_t b = 0; b < batches; b++) {
		due = t0 + (double)b * period;
		while (now_s() < due) {
			double wait = due - now_s();

			if (wait > 2e-4) {
				struct timespec ts = { 0, (long)((wait - 1e-4) * 1e9) };

				nanosleep(&ts, NULL);
			}
		}
		for (int i = 0; i < QUEUES; i++)
			lost += batch - produce_batch(r.q[i], batch);
	}
	/* What did not fit was never produced into the ring: count it here. */
	return rig_finish(&r, dir, NULL) + lost;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* RATE_TRIALS trials at @r; true when the median one lost nothing. */
static bool rate_passes(const char *dir, double r)
{
	uint64_t lost[RATE_TRIALS];
	int i;

	printf("  paced %.0f rings/s per queue: lost", r);
	for (i = 0; i < RATE_TRIALS; i++) {
		lost[i] = rate_trial(dir, r);
		printf(" %llu", (unsigned long long)lost[i]);
	}
	qsort(lost, RATE_TRIALS, sizeof(lost[0]), cmp_u64);
	printf(" (median %llu)\n", (unsigned long long)lost[RATE_TRIALS / 2]);
	fflush(stdout);
	return lost[RATE_TRIALS / 2] == 0;
}

static double mbps(double entries_per_s)
{
	return entries_per_s * ES / 1e6;
}

int main(int argc, char **argv)
{
	const char *env = getenv("BENCH_DIR");
	const char *dir = argc > 1 ? argv[1] : env && *env ? env : "/var/tmp";
	uint64_t mib = argc > 2 ? strtoull(argv[2], NULL, 0) : 512;
	int rounds = argc > 3 ? atoi(argv[3]) : 5;
	uint64_t per_queue = (mib << 20) / ES / QUEUES;
	struct write_rate best_wb = { 0, 0 }, best_plain = { 0, 0 };
	double best_cap = 0, best_drain = 0, best_write, best_loop, lo, hi;
	const char *best_name, *loop_name;
	unsigned char *buf;

	if (!mib || rounds < 1) {
		fprintf(stderr, "usage: %s [DIR [MiB [ROUNDS]]]\n", argv[0]);
		return 2;
	}
	nprof_log_set_handler(NULL, NULL, NPROF_LOG_ERROR);
	buf = malloc(TP_RING);
	if (!buf)
		return 1;
	for (size_t i = 0; i < TP_RING; i++)
		buf[i] = (unsigned char)(i * 131);

	printf("stream_capture: %s, %llu MiB through 24 queues of 1 MiB, %d rounds\n", dir,
	       (unsigned long long)mib, rounds);
	for (int i = 0; i < rounds; i++) {
		uint64_t bytes = per_queue * QUEUES * ES;
		struct write_rate wb = { 0, 0 }, pl = { 0, 0 };
		double d = 0, c = 0;

		/*
		 * Each round starts with another of the three: whichever goes
		 * first pays for memory the VM has not touched lately (the first
		 * round's first measurement ran several times slower), so no
		 * one of them always does.
		 */
		for (int k = 0; k < 3; k++) {
			switch ((i + k) % 3) {
			case 0:
				c = capture_round(dir, per_queue, &d);
				break;
			case 1:
				wb = write_round(dir, bytes, buf, TP_RING, true);
				break;
			default:
				pl = write_round(dir, bytes, buf, TP_RING, false);
				break;
			}
		}

		printf("  round %d: capture %.1f MB/s (drainer while producing %.1f MB/s); "
		       "write+sync_file_range+fsync %.1f MB/s (loop %.1f); write+fsync %.1f MB/s (loop %.1f)\n",
		       i + 1, mbps(c), mbps(d), mbps(wb.total), mbps(wb.writing), mbps(pl.total),
		       mbps(pl.writing));
		fflush(stdout);
		if (c > best_cap)
			best_cap = c;
		if (d > best_drain)
			best_drain = d;
		if (wb.total > best_wb.total)
			best_wb.total = wb.total;
		if (wb.writing > best_wb.writing)
			best_wb.writing = wb.writing;
		if (pl.total > best_plain.total)
			best_plain.total = pl.total;
		if (pl.writing > best_plain.writing)
			best_plain.writing = pl.writing;
	}
	free(buf);

	/* Up from 8 while passing (down while failing), then bisection. */
	lo = 0;
	hi = 8;
	if (rate_passes(dir, hi)) {
		do {
			lo = hi;
			hi *= 2;
		} while (hi <= 65536 && rate_passes(dir, hi));
	} else {
		while (hi > 1) {
			hi /= 2;
			if (rate_passes(dir, hi)) {
				lo = hi;
				hi *= 2;
				break;
			}
		}
	}
	for (int i = 0; lo && hi <= 65536 && i < 4; i++) {
		double mid = (lo + hi) / 2;

		if (rate_passes(dir, mid))
			lo = mid;
		else
			hi = mid;
	}

	best_write = best_wb.total > best_plain.total ? best_wb.total : best_plain.total;
	best_name = best_wb.total > best_plain.total ? "write+sync_file_range+fsync" : "write+fsync";
	best_loop = best_wb.writing > best_plain.writing ? best_wb.writing : best_plain.writing;
	loop_name = best_wb.writing > best_plain.writing ? "write+sync_file_range loop" : "write loop";
	printf("capture (ring -> NTFF, complete under its name): %.0f entries/s (%.1f MB/s)\n", best_cap,
	       mbps(best_cap));
	printf("write()+sync_file_range every %llu MiB+fsync of the same bytes: %.0f entries/s (%.1f MB/s), capture %.2fx\n",
	       NTFF_WRITEBACK_CHUNK >> 20, best_wb.total, mbps(best_wb.total), best_cap / best_wb.total);
	printf("write()+fsync of the same bytes: %.0f entries/s (%.1f MB/s), capture %.2fx\n",
	       best_plain.total, mbps(best_plain.total), best_cap / best_plain.total);
	printf("drainer while the device produced, no fsync: %.1f MB/s; write+sync_file_range loop, no fsync: %.1f MB/s (%.2fx); write loop, no fsync: %.1f MB/s (%.2fx)\n",
	       mbps(best_drain), mbps(best_wb.writing), best_drain / best_wb.writing,
	       mbps(best_plain.writing), best_drain / best_plain.writing);
	printf("drainer while producing / best loop without fsync (%s): %.2fx\n", loop_name,
	       best_drain / best_loop);
	printf("highest loss-free production (median of %d trials per rate): %.0fx the ring size per second per queue (%d queues of %llu KiB, %.0f MB/s in all)\n",
	       RATE_TRIALS, lo, QUEUES, (unsigned long long)(RATE_RING >> 10),
	       lo * QUEUES * RATE_RING / 1e6);
	printf("ratio capture / best baseline measured in this run (%s): %.2fx (target >= 0.8)\n",
	       best_name, best_cap / best_write);
	return 0;
}
