// SPDX-License-Identifier: MIT
/*
 * fanout: what each extra subscriber of a queue costs the kernel's
 * producer, against a memcpy of the 64-byte entry (ARCHITECTURE.md §8).
 *
 * It runs on a machine with neuronprof_sim loaded unpaced (bench/fanout.sh
 * boots the distribution kernel in QEMU for that) and uses the raw uapi.
 * The TRACE queue of engine 0 of NeuronCore 0 is subscribed 1, 2, 3 and 4
 * times, each with a ring that holds all one execution puts there; a round
 * runs one SIM_EXEC on core 0 with instructions on engine 0 only (almost
 * every notification a TRACE entry of that queue, built in place by the
 * generator between nprof_notify_begin() and nprof_notify_end()), timed
 * with CLOCK_MONOTONIC around the ioctl, then checks that every ring got
 * every entry with nothing lost and releases them. Per round the four
 * subscriptions are made, then measured with 4, 3, 2 and 1 of them (one is
 * closed after each); the best of each is kept.
 *
 * The cost of a subscriber beyond the first is (t(4) - t(1)) / 3 per
 * notification; the baseline, in the same process and rounds, copies one
 * entry (its seq changing each time) into consecutive slots of a prefaulted
 * buffer as large as one ring, once per notification.
 *
 * Usage: fanout [ITERATIONS [INSTRUCTIONS [ROUNDS]]] (defaults 64, 4096, 5).
 * Last line: "ratio each subscriber beyond the first / memcpy of the entry
 * (...): %.2fx".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>

#define ES	sizeof(struct neuronprof_notification)
#define SUBS	4

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "fanout: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int open_sim(struct drm_neuronprof_device_info *info)
{
	struct dirent *de;
	DIR *dir = opendir("/dev/dri");
	char node[300];

	if (!dir)
		die("/dev/dri: %s (is neuronprof_sim loaded?)", strerror(errno));
	while ((de = readdir(dir))) {
		struct drm_neuronprof_get_info gi = { 0 };
		int fd;

		if (strncmp(de->d_name, "renderD", 7))
			continue;
		snprintf(node, sizeof(node), "/dev/dri/%s", de->d_name);
		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(info, 0, sizeof(*info));
		gi.query = NEURONPROF_INFO_DEVICE;
		gi.size = sizeof(*info);
		gi.data = (uintptr_t)info;
		if (!ioctl(fd, DRM_IOCTL_NEURONPROF_GET_INFO, &gi) && !strcmp(info->provider, "sim") &&
		    (info->caps & NEURONPROF_CAP_SIM_EXEC)) {
			closedir(dir);
			return fd;
		}
		close(fd);
	}
	closedir(dir);
	die("no neuronprof sim device under /dev/dri (modprobe neuronprof_sim)");
}

static int subscribe(int dev, uint64_t ring)
{
	struct drm_neuronprof_nq_subscribe s = {
		.target_kind = NEURONPROF_TARGET_CORE, .queue_type = NEURONPROF_QT_TRACE,
		.ring_size = ring,
	};

	if (ioctl(dev, DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE, &s))
		die("subscribe core 0 TRACE engine 0 (%llu-byte ring): %s",
		    (unsigned long long)ring, strerror(errno));
	return s.fd;
}

/* Every ring got @n entries since the last check, none lost; release them. */
static void check_and_release(const int *fds, uint64_t *pos, int k, uint64_t n)
{
	for (int i = 0; i < k; i++) {
		struct neuronprof_nq_drain d = { 0 };

		if (ioctl(fds[i], NEURONPROF_IOCTL_NQ_DRAIN, &d))
			die("drain: %s", strerror(errno));
		if (d.producer_pos - pos[i] != n * ES || d.lost)
			die("subscriber %d of %d got %llu entries of %llu, lost %llu", i + 1, k,
			    (unsigned long long)((d.producer_pos - pos[i]) / ES),
			    (unsigned long long)n, (unsigned long long)d.lost);
		pos[i] = d.producer_pos;
		d.flags = NEURONPROF_DRAIN_RELEASE;
		d.release_pos = pos[i];
		if (ioctl(fds[i], NEURONPROF_IOCTL_NQ_DRAIN, &d))
			die("release: %s", strerror(errno));
	}
}

static unsigned long arg(int argc, char **argv, int i, unsigned long def, unsigned long max)
{
	unsigned long v;
	char *end;

	if (argc <= i)
		return def;
	errno = 0;
	v = strtoul(argv[i], &end, 10);
	if (errno || *end || end == argv[i] || !v || v > max) {
		fprintf(stderr, "usage: fanout [ITERATIONS [INSTRUCTIONS [ROUNDS]]]\n"
				"  '%s' must be a number from 1 to %lu\n", argv[i], max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	double best[SUBS + 1], best_copy = 1e30, t, per[SUBS + 1], copy, extra;
	struct drm_neuronprof_device_info info;
	struct neuronprof_notification *buf, e = { .code = 1, .model_id = 2 };
	unsigned long iters, insns, rounds;
	uint64_t produced = 0, ring = 1, pos[SUBS];
	int dev, fds[SUBS], k, r;

	iters = arg(argc, argv, 1, 64, NEURONPROF_SIM_MAX_ITERATIONS);
	insns = arg(argc, argv, 2, 4096, NEURONPROF_SIM_MAX_INSTRUCTIONS);
	rounds = arg(argc, argv, 3, 5, 1000);
	dev = open_sim(&info);
	if (info.entry_size != ES)
		die("the device's entries are %u bytes, this program knows %zu", info.entry_size, ES);
	if (info.max_subscribers < SUBS)
		die("the module takes %u subscribers per queue, this measures %d",
		    info.max_subscribers, SUBS);
	/* One execution's TRACE entries of engine 0, and room to spare. */
	while (ring < (uint64_t)iters * (insns + 8) * ES)
		ring *= 2;
	if (ring > info.max_ring_size)
		die("%lu iterations of %lu instructions need %llu-byte rings, above the device's %llu",
		    iters, insns, (unsigned long long)ring, (unsigned long long)info.max_ring_size);
	buf = mmap(NULL, ring, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("cannot map %llu bytes for the baseline: %s", (unsigned long long)ring,
		    strerror(errno));
	memset(buf, 0, ring);
	for (k = 0; k <= SUBS; k++)
		best[k] = 1e30;

	for (r = 0; r < (int)rounds; r++) {
		for (k = 0; k < SUBS; k++) {
			fds[k] = subscribe(dev, ring);
			pos[k] = 0;
		}
		for (k = SUBS; k >= 1; k--) {
			struct drm_neuronprof_sim_exec ex = {
				.core = 0, .model_id = 1, .iterations = (uint32_t)iters,
			};

			ex.instructions[0] = (uint32_t)insns;
			t = now_ns();
			if (ioctl(dev, DRM_IOCTL_NEURONPROF_SIM_EXEC, &ex))
				die("SIM_EXEC: %s", strerror(errno));
			t = now_ns() - t;
			if (ex.status)
				die("SIM_EXEC status %u", ex.status);
			produced = ex.produced[NEURONPROF_QT_TRACE];
			check_and_release(fds, pos, k, produced);
			if (t < best[k])
				best[k] = t;
			close(fds[k - 1]);
		}
		/* The baseline: one entry per notification into a ring-sized buffer. */
		t = now_ns();
		for (uint64_t i = 0; i < produced; i++) {
			e.seq = i;
			memcpy(&buf[i % (ring / ES)], &e, ES);
			__asm__ __volatile__("" ::: "memory");
		}
		t = now_ns() - t;
		if (t < best_copy)
			best_copy = t;
	}

	copy = best_copy / (double)produced;
	printf("fanout: core 0 TRACE engine 0, %llu notifications per execution, %llu-byte rings, best of %lu rounds\n",
	       (unsigned long long)produced, (unsigned long long)ring, rounds);
	printf("memcpy of one %zu-byte entry: %.2f ns\n", ES, copy);
	for (k = 1; k <= SUBS; k++) {
		per[k] = best[k] / (double)produced;
		printf("%d subscriber%s: %.2f ns/notification (%.2fx memcpy)\n", k, k == 1 ? "" : "s",
		       per[k], per[k] / copy);
	}
	extra = (per[SUBS] - per[1]) / (SUBS - 1);
	printf("each subscriber beyond the first: %.2f ns/notification\n", extra);
	printf("ratio each subscriber beyond the first / memcpy of the entry (the baseline measured in this run): %.2fx\n",
	       extra / copy);
	return 0;
}
