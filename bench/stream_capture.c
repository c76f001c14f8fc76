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
 * the clock starts.
 *
 * 1. Throughput. One session on the 24 queues of core 0 (1 MiB rings); the
 *    producer fills them as fast as the drainer frees them (it waits for
 *    space instead of losing, so nothing is lost and the drainer sets the
 *    pace) until MiB of entries went through, then stop and serialize. The
 *    capture rate is entries per second from the first entry to the NTFF
 *    file renamed into place; the baseline is a plain write() of the same
 *    bytes from memory into one file followed by fsync(), in the same run.
 *    Best of ROUNDS interleaved rounds. The default volume, 512 MiB, is a
 *    sustained capture: the fsync at the end waits only for the writeback
 *    still in flight, a fixed tail that dominates captures of a tenth of a
 *    second (Documentation/capture.rst, "Benchmark", has the figures by
 *    volume).
 * 2. Highest loss-free rate. The producer is paced at R rings per second on
 *    each of the 24 queues (256 KiB rings) and loses what does not fit; a
 *    trial produces 20 rings per queue and passes when nothing was lost. R
 *    doubles from 1 until a trial loses, then is bisected; the highest
 *    passing R is reported as a multiple of the ring size per second.
 *
 * Usage: stream_capture [DIR [MiB [ROUNDS]]] (default: $BENCH_DIR or
 * /var/tmp, 512, 3). Last line: the ratio, printed as
 * "ratio stream/write+fsync: %.2fx" (target >= 0.8).
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

#define ES		64u
#define QUEUES		24
#define TP_RING		(1ULL << 20)
#define RATE_RING	(256ULL << 10)
#define RATE_RINGS	20		/* per queue and trial */
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
	struct neuronprof_notification e;

	if (n > fit)
		n = fit;
	memset(&e, 0, sizeof(e));
	e.queue_type = (uint16_t)q->type;
	e.engine = (uint16_t)q->engine;
	e.model_id = 1;
	for (i = 0; i < n; i++) {
		e.seq = q->seq++;
		e.timestamp_ns = e.seq;
		memcpy(q->data + ((q->prod + i * ES) & (q->data_size - 1)), &e, sizeof(e));
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
	/* The device's memory exists before the capture: no first-touch faults in the figures. */
	for (int i = 0; i < QUEUES; i++)
		memset(r.q[i]->data, 0, r.q[i]->data_size);
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

static double write_round(const char *dir, uint64_t bytes, const unsigned char *buf, size_t len)
{
	char path[4096];
	double t0, t;
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
	}
	if (fsync(fd))
		perror("stream_capture: baseline fsync");
	close(fd);
	t = now_s() - t0;
	unlink(path);
	return (double)(bytes / ES) / t;
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

int main(int argc, char **argv)
{
	const char *env = getenv("BENCH_DIR");
	const char *dir = argc > 1 ? argv[1] : env && *env ? env : "/var/tmp";
	uint64_t mib = argc > 2 ? strtoull(argv[2], NULL, 0) : 512;
	int rounds = argc > 3 ? atoi(argv[3]) : 3;
	uint64_t per_queue = (mib << 20) / ES / QUEUES;
	double best_cap = 0, best_drain = 0, best_write = 0, lo, hi;
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
		double d, c = capture_round(dir, per_queue, &d);
		double w = write_round(dir, per_queue * QUEUES * ES, buf, TP_RING);

		printf("  round %d: capture %.0f entries/s (%.1f MB/s; drainer while producing %.1f MB/s), write+fsync %.0f entries/s (%.1f MB/s)\n",
		       i + 1, c, c * ES / 1e6, d * ES / 1e6, w, w * ES / 1e6);
		if (c > best_cap)
			best_cap = c;
		if (d > best_drain)
			best_drain = d;
		if (w > best_write)
			best_write = w;
	}
	free(buf);

	/* Doubling, then bisection between the last pass and the first loss. */
	lo = 0;
	hi = 1;
	while (hi <= 65536) {
		uint64_t lost = rate_trial(dir, hi);

		printf("  paced %.0f rings/s per queue: %llu lost\n", hi, (unsigned long long)lost);
		if (lost)
			break;
		lo = hi;
		hi *= 2;
	}
	for (int i = 0; lo && hi <= 65536 && i < 4; i++) {
		double mid = (lo + hi) / 2;
		uint64_t lost = rate_trial(dir, mid);

		printf("  paced %.0f rings/s per queue: %llu lost\n", mid, (unsigned long long)lost);
		if (lost)
			hi = mid;
		else
			lo = mid;
	}
	printf("drainer (ring -> file being captured) while the device produced: %.0f entries/s, %.2fx write+fsync\n",
	       best_drain, best_write ? best_drain / best_write : 0.0);
	printf("capture (ring -> NTFF, complete under its name): %.0f entries/s\n", best_cap);
	printf("write()+fsync of the same bytes: %.0f entries/s\n", best_write);
	printf("highest loss-free production: %.0fx the ring size per second per queue (%d queues of %llu KiB, %.0f MB/s in all)\n",
	       lo, QUEUES, (unsigned long long)(RATE_RING >> 10), lo * QUEUES * RATE_RING / 1e6);
	printf("ratio stream/write+fsync: %.2fx\n", best_write ? best_cap / best_write : 0.0);
	return 0;
}
