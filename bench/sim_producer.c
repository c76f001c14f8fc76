// SPDX-License-Identifier: MIT
/*
 * sim_producer: what the kernel pays per notification it produces into a
 * subscribed ring, against a memcpy of the 64-byte entry into successive
 * slots of a buffer as large as the rings (ARCHITECTURE.md §8).
 *
 * It runs on a machine with neuronprof_sim loaded (bench/sim_producer.sh
 * boots the distribution kernel in QEMU for that) and talks to the device
 * with the raw uapi, so nothing between the ioctl and the ring is measured
 * but the kernel. Every queue of NeuronCore 0 and of the TopSPs serving it
 * is subscribed with a ring large enough for all a program produces, the
 * expected count of each queue worked out from the simulator's documented
 * formulas (Documentation/simulator.rst). A round is one SIM_EXEC on core 0,
 * timed with CLOCK_MONOTONIC around the ioctl, followed by a check that
 * every queue got exactly its count with nothing lost, and the release of
 * the rings so the next round writes the same memory again. The cost per
 * notification is the time over the sum of produced[].
 *
 * The baseline, in the same process and rounds: copy one entry, its seq
 * changing each time like the producer's, into consecutive 64-byte slots of
 * a prefaulted buffer as large as all the rings' data, once per
 * notification. Informational: the same program on the last core, whose
 * queues nobody subscribed, costs the generator (timestamps, entry
 * building) plus the lookup that finds no subscriber, with produced all 0.
 * So that the generator builds every entry there, TRACE ones included
 * (it skips building those no ring would take), the device's debugfs knob
 * build_unstarted is set around that run: the TRACE entries are built in a
 * scratch buffer of the execution and dropped. Without the knob (no debugfs)
 * the benchmark stops rather than print a generator figure that builds less
 * than the producer does.
 *
 * Rounds are interleaved (baseline, producer, generator) and the best of
 * each is kept, so noise of a shared machine does not decide the ratio.
 *
 * Usage: sim_producer [ITERATIONS [INSTRUCTIONS [ROUNDS]]]
 *   (defaults 128, 4096 per engine, 5). DMA transfers per iteration are a
 *   quarter of INSTRUCTIONS, and every iteration throttles.
 * Last line: the ratio, printed as "ratio SIM_EXEC into subscribed rings /
 * memcpy of the entry (...): %.2fx".
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>

#define ES		sizeof(struct neuronprof_notification)
#define MAX_QUEUES	256

struct queue {
	uint32_t kind, index, type, engine;
	uint64_t expect;	/* notifications per execution */
	uint64_t ring_size;
	int fd;
	uint64_t pos;		/* producer position after the last round */
};

static const char *const qt_names[NEURONPROF_QT_COUNT] = {
	"TRACE", "EVENT", "ERROR", "INFER_STATUS", "DMA", "THROTTLE",
	"TOPSP_TRACE", "TOPSP_EVENT", "TOPSP_ERROR",
};

static struct queue queues[MAX_QUEUES];
static unsigned int nqueues;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("sim_producer: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first render node whose driver is neuronprof and whose provider is sim. */
static int open_sim(char *node, size_t len, struct drm_neuronprof_device_info *info)
{
	struct dirent *de;
	DIR *dir = opendir("/dev/dri");

	if (!dir)
		die("/dev/dri: %s (is neuronprof_sim loaded?)", strerror(errno));
	while ((de = readdir(dir))) {
		struct drm_neuronprof_get_info gi;
		struct drm_version v;
		char name[32] = "";
		int fd;

		if (strncmp(de->d_name, "renderD", 7))
			continue;
		snprintf(node, len, "/dev/dri/%s", de->d_name);
		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&v, 0, sizeof(v));
		v.name = name;
		v.name_len = sizeof(name) - 1;
		memset(&gi, 0, sizeof(gi));
		memset(info, 0, sizeof(*info));
		gi.query = NEURONPROF_INFO_DEVICE;
		gi.size = sizeof(*info);
		gi.data = (uintptr_t)info;
		if (!ioctl(fd, DRM_IOCTL_VERSION, &v) && !strcmp(name, NEURONPROF_DRIVER_NAME) &&
		    !ioctl(fd, DRM_IOCTL_NEURONPROF_GET_INFO, &gi) &&
		    !strcmp(info->provider, "sim") && (info->caps & NEURONPROF_CAP_SIM_EXEC)) {
			closedir(dir);
			return fd;
		}
		close(fd);
	}
	closedir(dir);
	die("no neuronprof sim device under /dev/dri (modprobe neuronprof_sim)");
}

/*
 * The build_unstarted debugfs knob of the sim device (there is one device:
 * modprobe neuronprof_sim arch=trn2), debugfs mounted first if it is not.
 */
static void find_build_unstarted(char *path, size_t len)
{
	const char *root = "/sys/kernel/debug/neuronprof_sim";
	struct dirent *de;
	struct stat st;
	DIR *dir;

	if (stat(root, &st) && mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL))
		die("cannot mount debugfs on /sys/kernel/debug: %s", strerror(errno));
	dir = opendir(root);
	if (!dir)
		die("%s: %s (the generator-alone run needs the build_unstarted knob)", root,
		    strerror(errno));
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, len, "%s/%s/build_unstarted", root, de->d_name);
		if (!access(path, W_OK)) {
			closedir(dir);
			return;
		}
	}
	closedir(dir);
	die("no build_unstarted knob under %s", root);
}

static void set_knob(const char *path, int on)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, on ? "1" : "0", 1) != 1)
		die("cannot set %s to %d: %s", path, on, strerror(errno));
	close(fd);
}

/* Smallest power of two >= @v. */
static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static void add_queue(const struct drm_neuronprof_device_info *info, uint32_t kind,
		      uint32_t index, uint32_t type, uint32_t engine, uint64_t expect)
{
	struct queue *q;
	uint64_t size = pow2_at_least(expect * ES);

	if (nqueues == MAX_QUEUES)
		die("more than %d queues", MAX_QUEUES);
	if (size < info->min_ring_size)
		size = info->min_ring_size;
	if (size > info->max_ring_size)
		die("queue %s engine %u needs %llu bytes of ring, the device allows %llu: "
		    "use fewer iterations or instructions", qt_names[type], engine,
		    (unsigned long long)size, (unsigned long long)info->max_ring_size);
	q = &queues[nqueues++];
	*q = (struct queue){ .kind = kind, .index = index, .type = type, .engine = engine,
			     .expect = expect, .ring_size = size, .fd = -1 };
}

/*
 * Every queue of core 0 and its TopSPs, with what one execution of the
 * program produces into each (Documentation/simulator.rst, "Programs").
 */
static void plan_queues(const struct drm_neuronprof_device_info *info,
			const struct drm_neuronprof_sim_exec *p)
{
	uint32_t engines = info->engines_per_core;
	uint32_t tpc = info->num_topsps / info->num_cores;
	uint64_t it = p->iterations, d = p->dma_transfers;
	uint32_t type, e, t;

	for (type = 0; type < NEURONPROF_QT_COUNT; type++) {
		uint32_t n = info->per_engine_queue_types & (1u << type) ? engines : 1;

		if (!(info->core_queue_types & (1u << type)))
			continue;
		for (e = 0; e < n; e++) {
			uint64_t c = 0;

			switch (type) {
			case NEURONPROF_QT_TRACE:
				c = it * p->instructions[e];
				break;
			case NEURONPROF_QT_EVENT:
				c = p->instructions[e] ? 2 * it : 0;
				break;
			case NEURONPROF_QT_INFER_STATUS:
				c = 2 * it;
				break;
			case NEURONPROF_QT_DMA:
				c = it * (d / engines + (e < d % engines));
				break;
			case NEURONPROF_QT_THROTTLE:
				c = p->flags & NEURONPROF_SIM_EXEC_THROTTLE ? it : 0;
				break;
			}
			add_queue(info, NEURONPROF_TARGET_CORE, 0, type, e, c);
		}
	}
	for (t = 0; t < tpc; t++)
		for (type = 0; type < NEURONPROF_QT_COUNT; type++) {
			uint64_t c = 0;

			if (!(info->topsp_queue_types & (1u << type)))
				continue;
			if (type == NEURONPROF_QT_TOPSP_TRACE)
				c = it;
			else if (type == NEURONPROF_QT_TOPSP_EVENT)
				c = 2 * it;
			add_queue(info, NEURONPROF_TARGET_TOPSP, t, type, 0, c);
		}
}

static void subscribe_all(int dev)
{
	unsigned int i;

	for (i = 0; i < nqueues; i++) {
		struct queue *q = &queues[i];
		struct drm_neuronprof_nq_subscribe s;

		memset(&s, 0, sizeof(s));
		s.target_kind = q->kind;
		s.target_index = q->index;
		s.queue_type = q->type;
		s.engine = q->engine;
		s.ring_size = q->ring_size;
		/* Nobody polls: waking readers is not what is measured. */
		s.watermark = (uint32_t)(q->ring_size > UINT32_MAX ? UINT32_MAX : q->ring_size);
		if (ioctl(dev, DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE, &s))
			die("subscribe %s %u engine %u (%llu-byte ring): %s", qt_names[q->type],
			    q->index, q->engine, (unsigned long long)q->ring_size,
			    strerror(errno));
		q->fd = s.fd;
	}
}

/*
 * Check that every queue got exactly its share of the last execution with
 * nothing lost, then hand all of it back so the next one has the room.
 */
static void check_and_release(void)
{
	unsigned int i;

	for (i = 0; i < nqueues; i++) {
		struct queue *q = &queues[i];
		struct neuronprof_nq_drain d;

		memset(&d, 0, sizeof(d));
		if (ioctl(q->fd, NEURONPROF_IOCTL_NQ_DRAIN, &d))
			die("drain %s engine %u: %s", qt_names[q->type], q->engine, strerror(errno));
		if (d.lost)
			die("%s %u engine %u lost %llu notifications: its ring is too small",
			    qt_names[q->type], q->index, q->engine, (unsigned long long)d.lost);
		if (d.producer_pos - q->pos != q->expect * ES)
			die("%s %u engine %u got %llu notifications, the simulator documents %llu",
			    qt_names[q->type], q->index, q->engine,
			    (unsigned long long)((d.producer_pos - q->pos) / ES),
			    (unsigned long long)q->expect);
		q->pos = d.producer_pos;
		memset(&d, 0, sizeof(d));
		d.flags = NEURONPROF_DRAIN_RELEASE;
		d.release_pos = q->pos;
		if (ioctl(q->fd, NEURONPROF_IOCTL_NQ_DRAIN, &d))
			die("release %s engine %u: %s", qt_names[q->type], q->engine,
			    strerror(errno));
	}
}

static uint64_t sum_produced(const struct drm_neuronprof_sim_exec *a)
{
	uint64_t s = 0;
	unsigned int t;

	for (t = 0; t < NEURONPROF_QT_COUNT; t++)
		s += a->produced[t];
	return s;
}

/* One execution of @prog on @core; returns its wall time in seconds. */
static double exec_once(int dev, const struct drm_neuronprof_sim_exec *prog, uint32_t core,
			struct drm_neuronprof_sim_exec *out)
{
	double t0, t;

	*out = *prog;
	out->core = core;
	t0 = now_s();
	if (ioctl(dev, DRM_IOCTL_NEURONPROF_SIM_EXEC, out))
		die("SIM_EXEC on core %u: %s", core, strerror(errno));
	t = now_s() - t0;
	if (out->status)
		die("SIM_EXEC on core %u ended with status %u", core, out->status);
	return t;
}

/*
 * The baseline: @n copies of one entry into consecutive slots of @buf (as
 * the producer fills a ring), the seq changing every time as the producer's
 * does. Returns the wall time in seconds.
 */
static double memcpy_once(struct neuronprof_notification *buf, uint64_t n)
{
	struct neuronprof_notification src;
	uint64_t i;
	double t0;

	memset(&src, 0, sizeof(src));
	src.queue_type = NEURONPROF_QT_TRACE;
	src.code = 0x101;
	src.model_id = 1;
	t0 = now_s();
	for (i = 0; i < n; i++) {
		src.seq = i;
		memcpy(&buf[i], &src, ES);
		/* Keep the compiler from merging the copies or dropping them. */
		__asm__ __volatile__("" : : "r"(&buf[i]) : "memory");
	}
	return now_s() - t0;
}

/* @n clock_gettime(CLOCK_MONOTONIC) calls: seconds per call, what a clock read costs here. */
static double clock_once(uint64_t n)
{
	struct timespec ts;
	uint64_t i, acc = 0;
	double t0;

	t0 = now_s();
	for (i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		acc += (uint64_t)ts.tv_nsec;
	}
	__asm__ __volatile__("" : : "r"(acc));
	return (now_s() - t0) / (double)n;
}

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static unsigned long arg(int argc, char **argv, int i, unsigned long def, unsigned long max)
{
	char *end;
	unsigned long v;

	if (argc <= i)
		return def;
	errno = 0;
	v = strtoul(argv[i], &end, 10);
	if (errno || *end || end == argv[i] || !v || v > max) {
		fprintf(stderr, "usage: sim_producer [ITERATIONS [INSTRUCTIONS [ROUNDS]]]\n"
				"  '%s' must be a number from 1 to %lu\n", argv[i], max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct drm_neuronprof_sim_exec prog, res;
	struct drm_neuronprof_device_info info;
	struct neuronprof_notification *buf;
	double best_prod = 1e30, best_copy = 1e30, best_gen = 1e30, best_clock = 1e30, t;
	uint64_t expect = 0, ring_bytes = 0, produced = 0;
	char node[300], clocksource[64], knob[512];
	unsigned long iters, insns, rounds;
	unsigned int i, e, r;
	uint32_t gen_core;
	struct utsname un;
	int dev;

	iters = arg(argc, argv, 1, 128, NEURONPROF_SIM_MAX_ITERATIONS);
	insns = arg(argc, argv, 2, 4096, NEURONPROF_SIM_MAX_INSTRUCTIONS);
	rounds = arg(argc, argv, 3, 5, 1000);

	dev = open_sim(node, sizeof(node), &info);
	if (info.entry_size != ES)
		die("the device's entries are %u bytes, this program knows %zu", info.entry_size, ES);
	if (info.num_cores < 2)
		die("the device has %u core(s); the generator-alone figure needs a second one",
		    info.num_cores);
	gen_core = info.num_cores - 1;
	find_build_unstarted(knob, sizeof(knob));

	memset(&prog, 0, sizeof(prog));
	prog.model_id = 1;
	prog.iterations = (uint32_t)iters;
	prog.flags = NEURONPROF_SIM_EXEC_THROTTLE;
	for (e = 0; e < info.engines_per_core && e < NEURONPROF_MAX_ENGINES; e++)
		prog.instructions[e] = (uint32_t)insns;
	prog.dma_transfers = (uint32_t)(insns / 4);

	plan_queues(&info, &prog);
	for (i = 0; i < nqueues; i++) {
		expect += queues[i].expect;
		ring_bytes += queues[i].ring_size;
	}
	/* Same bytes written per round as the producer, each slot once. */
	buf = mmap(NULL, expect * ES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("cannot map %llu bytes for the baseline: %s",
		    (unsigned long long)(expect * ES), strerror(errno));
	/* The kernel's rings are zeroed at subscription: prefault ours too. */
	memset(buf, 0, expect * ES);
	subscribe_all(dev);

	for (r = 0; r < rounds; r++) {
		t = memcpy_once(buf, expect);
		if (t < best_copy)
			best_copy = t;

		t = exec_once(dev, &prog, 0, &res);
		produced = sum_produced(&res);
		if (produced != expect)
			die("SIM_EXEC produced %llu notifications, the simulator documents %llu",
			    (unsigned long long)produced, (unsigned long long)expect);
		check_and_release();
		if (t < best_prod)
			best_prod = t;

		set_knob(knob, 1);
		t = exec_once(dev, &prog, gen_core, &res);
		set_knob(knob, 0);
		if (sum_produced(&res))
			die("SIM_EXEC on core %u, which nobody subscribed, produced %llu",
			    gen_core, (unsigned long long)sum_produced(&res));
		if (t < best_gen)
			best_gen = t;

		t = clock_once(expect / 16 + 1);
		if (t < best_clock)
			best_clock = t;
	}
	for (i = 0; i < nqueues; i++)
		close(queues[i].fd);
	munmap(buf, expect * ES);
	close(dev);

	uname(&un);
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  clocksource, sizeof(clocksource));
	printf("sim_producer: %s, %u cores, %u engines, kernel %s, clocksource %s, best of %lu rounds\n",
	       node, info.num_cores, info.engines_per_core, un.release, clocksource, rounds);
	printf("note: under QEMU TCG (no KVM) both sides run many times slower than on hardware;\n"
	       "      only the ratio to the memcpy baseline means something\n");
	printf("program: %lu iterations x %u engines x %lu instructions, %u DMA, throttle:\n"
	       "         %llu notifications into %u queues of core 0 and its TopSPs (%llu MiB of ring), none lost\n",
	       iters, info.engines_per_core, insns, prog.dma_transfers,
	       (unsigned long long)expect, nqueues, (unsigned long long)(ring_bytes >> 20));
	printf("%-62s %8.1f ns/notification (%.3f s)\n",
	       "SIM_EXEC into subscribed rings (generator + producer)",
	       best_prod * 1e9 / (double)expect, best_prod);
	printf("%-62s %8.1f ns/entry\n", "memcpy of one 64-byte entry into successive slots",
	       best_copy * 1e9 / (double)expect);
	printf("info: generator alone (core %u, nothing subscribed, every entry built, TRACE in a scratch buffer) %.1f ns/notification (%.2fx memcpy)\n",
	       gen_core, best_gen * 1e9 / (double)expect, best_gen / best_copy);
	printf("info: delivery (producer - generator alone) %.1f ns/notification (%.2fx memcpy)\n",
	       (best_prod - best_gen) * 1e9 / (double)expect, (best_prod - best_gen) / best_copy);
	printf("info: clock_gettime(CLOCK_MONOTONIC) from userspace %.1f ns (the generator reads the clock once per execution)\n",
	       best_clock * 1e9);
	printf("ratio SIM_EXEC into subscribed rings / memcpy of the entry (the baseline measured in this run): %.2fx\n",
	       best_prod / best_copy);
	return 0;
}
