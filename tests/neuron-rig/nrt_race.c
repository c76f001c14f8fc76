// SPDX-License-Identifier: GPL-2.0
/*
 * nrt_race: a hostile runtime that races two of its threads through the
 * vendor's uapi (neuron_ioctl.h of the vendor tree, included at build
 * time) on the emulated trn1 or trn2 of neuronprof_trn_emu, for the races
 * that fixes 5 and 6 of driver/neuron/vendor/fixes/ close. Each race runs
 * rounds for a bounded time and checks every round with an observable a
 * runtime has (the queue registers read back with BAR_READ, the driver's
 * answer to MEM_FREE of a handle), so no kernel sanitizer is needed:
 *
 *   initfree   fix 5: one thread asks NOTIFICATIONS_INIT_WITH_REALLOC_V2
 *              for a queue's slot (core 0, TRACE, engine 5) while the
 *              other MEM_FREEs the handle of the memory the slot holds,
 *              the MEM_FREE delayed by a swept 0..SWEEP microseconds.
 *              Serialised, either the INIT comes first (it frees the old
 *              memory, the MEM_FREE finds a stale handle) or the MEM_FREE
 *              (the INIT then allocates afresh); either way the queue the
 *              INIT returned is programmed afterwards. A round fails when
 *              the INIT succeeded and the queue's size register reads 0
 *              (the MEM_FREE halted the new queue: it found the slot still
 *              holding the old memory after the INIT had programmed the
 *              new), or when a thread's ioctl does not return within
 *              10 s (both freed the old memory: the second mc_free() hits
 *              the vendor's BUG_ON; the kernel log names it).
 *   resetinit  fix 6: a queue (core 0, TRACE, engine 5) is programmed;
 *              one thread resets the device (NC_RESET, then
 *              NC_RESET_READY) while the other reads the queue's size
 *              register until the reset's halt has zeroed it and then
 *              asks for another queue of core 0 (TRACE, engine 6). The
 *              INIT began after the reset halted core 0's queues, so it
 *              is a queue programmed after the reset, and its handle must
 *              still name its memory once the reset is done (MEM_FREE of
 *              it succeeds). A round fails when the reset's second pass
 *              freed it (MEM_FREE: EINVAL). A round where the halt was not
 *              seen before the reset returned is counted as missed.
 *
 * Usage: nrt_race [-t SECONDS] [-n ROUNDS] [-s SWEEP_US] [-d DEVICE] RACE
 * Prints "race RACE: R rounds, F failed, M missed (...)" and one line per
 * failed round (the first 10); exit status 0 when no round failed, 1 when
 * one did, 2 on a usage or set-up error.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "neuron_ioctl.h"
#include "trn_emu_regs.h"	/* driver/tests/: the emulated register map */

#define NQ_TYPE_TRACE	0
#define ENGINE_A	5
#define ENGINE_B	6
#define RING		4096
#define STUCK_S		10

static int fd = -1;
static __u64 bar0;
static int v3;
static unsigned int sweep_us = 50;

static void fatal(const char *what)
{
	fprintf(stderr, "nrt_race: %s%s%s\n", what, errno ? ": " : "", errno ? strerror(errno) : "");
	exit(2);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void spin_us(unsigned int us)
{
	double end = now_s() + us / 1e6;

	while (now_s() < end)
		;
}

/* INIT_WITH_REALLOC_V2 of core 0's TRACE queue on @engine: 0 or the errno. */
static int queue_init(unsigned int engine, __u64 *handle)
{
	struct neuron_ioctl_notifications_init_with_realloc_v2 a = {
		.nq_dev_id = 0, .nq_dev_type = NQ_DEVICE_TYPE_NEURON_CORE,
		.nq_type = NQ_TYPE_TRACE, .engine_index = engine, .size = RING,
		.on_host_memory = 1, .force_alloc_mem = 1,
	};

	if (ioctl(fd, NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2, &a))
		return errno;
	*handle = a.mem_handle;
	return 0;
}

static int mem_free(__u64 h)
{
	struct neuron_ioctl_mem_free f = { .mem_handle = h };

	return ioctl(fd, NEURON_IOCTL_MEM_FREE, &f) ? errno : 0;
}

/* The size register of core 0's register set @engine, read with BAR_READ. */
static __u32 queue_size_reg(unsigned int engine)
{
	__u64 addr = bar0 + (v3 ? EMU_V3_CORE_NOTIFIC(0) : CORE_NOTIFIC(0)) + NQ_SET(engine) + NQ_SIZE;
	__u32 v = 0xffffffff;
	struct neuron_ioctl_bar_rw rw = { .bar = 0, .address = &addr, .data = &v, .count = 1 };

	if (ioctl(fd, NEURON_IOCTL_BAR_READ, &rw))
		fatal("BAR_READ of a queue's size register");
	return v;
}

static int device_reset(void)
{
	struct neuron_ioctl_device_reset r = { .nc_map = NEURON_NC_MAP_DEVICE };
	struct neuron_ioctl_device_ready rd;

	if (ioctl(fd, NEURON_IOCTL_NC_RESET, &r))
		return errno;
	rd.request_id = r.request_id;
	rd.result = -1;
	if (ioctl(fd, NEURON_IOCTL_NC_RESET_READY, &rd))
		return errno;
	return rd.result ? EIO : 0;
}

/* ---- the two threads of a round ---------------------------------------- */

struct round {
	volatile int go, done[2];
	unsigned int delay_us;
	__u64 old_handle, new_handle;
	int init_err, free_err, reset_err;
	int halt_seen, reset_running_at_init;
	volatile int reset_returned;
};

static struct round rd;
static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int generation, quit;

static void wait_round(int *seen)
{
	pthread_mutex_lock(&mx);
	while (generation == *seen && !quit)
		pthread_cond_wait(&cv, &mx);
	*seen = generation;
	pthread_mutex_unlock(&mx);
}

static void *initfree_init(void *arg)
{
	int seen = 0;

	(void)arg;
	for (;;) {
		wait_round(&seen);
		if (quit)
			return NULL;
		while (!rd.go)
			;
		rd.init_err = queue_init(ENGINE_A, &rd.new_handle);
		__atomic_store_n(&rd.done[0], 1, __ATOMIC_SEQ_CST);
	}
}

static void *initfree_free(void *arg)
{
	int seen = 0;

	(void)arg;
	for (;;) {
		wait_round(&seen);
		if (quit)
			return NULL;
		while (!rd.go)
			;
		spin_us(rd.delay_us);
		rd.free_err = mem_free(rd.old_handle);
		__atomic_store_n(&rd.done[1], 1, __ATOMIC_SEQ_CST);
	}
}

static void *resetinit_reset(void *arg)
{
	int seen = 0;

	(void)arg;
	for (;;) {
		wait_round(&seen);
		if (quit)
			return NULL;
		while (!rd.go)
			;
		rd.reset_err = device_reset();
		rd.reset_returned = 1;
		__atomic_store_n(&rd.done[0], 1, __ATOMIC_SEQ_CST);
	}
}

static void *resetinit_init(void *arg)
{
	int seen = 0;

	(void)arg;
	for (;;) {
		wait_round(&seen);
		if (quit)
			return NULL;
		while (!rd.go)
			;
		while (!rd.reset_returned && queue_size_reg(ENGINE_A))
			;
		rd.halt_seen = !rd.reset_returned;
		if (rd.halt_seen) {
			rd.init_err = queue_init(ENGINE_B, &rd.new_handle);
			rd.reset_running_at_init = !rd.reset_returned;
		}
		__atomic_store_n(&rd.done[1], 1, __ATOMIC_SEQ_CST);
	}
}

/* Start a round's two threads and wait for both; 0, or 1 if one is stuck. */
static int run_round(void)
{
	double t0;

	rd.go = 0;
	rd.done[0] = rd.done[1] = 0;
	pthread_mutex_lock(&mx);
	generation++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mx);
	usleep(1000);	/* both threads spin on go by now, or soon after */
	__atomic_store_n(&rd.go, 1, __ATOMIC_SEQ_CST);
	t0 = now_s();
	while (!(__atomic_load_n(&rd.done[0], __ATOMIC_SEQ_CST) &&
		 __atomic_load_n(&rd.done[1], __ATOMIC_SEQ_CST))) {
		if (now_s() - t0 > STUCK_S)
			return 1;
		usleep(100);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/neuron0", *race;
	struct neuron_ioctl_device_info info;
	unsigned long max_rounds = 1000, r, failed = 0, missed = 0, extra = 0;
	double seconds = 10, t_end;
	pthread_t a, b;
	int c;

	while ((c = getopt(argc, argv, "t:n:s:d:")) != -1) {
		switch (c) {
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		case 'n':
			max_rounds = strtoul(optarg, NULL, 0);
			break;
		case 's':
			sweep_us = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dev = optarg;
			break;
		default:
			optind = argc;
			break;
		}
	}
	if (optind != argc - 1 || (strcmp(argv[optind], "initfree") && strcmp(argv[optind], "resetinit"))) {
		fprintf(stderr, "usage: nrt_race [-t SECONDS] [-n ROUNDS] [-s SWEEP_US] [-d DEVICE] initfree|resetinit\n");
		return 2;
	}
	race = argv[optind];
	fd = open(dev, O_RDWR);
	if (fd < 0)
		fatal(dev);
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, NEURON_IOCTL_DEVICE_INFO, &info))
		fatal("NEURON_IOCTL_DEVICE_INFO");
	errno = 0;
	if (info.architecture != 2 && info.architecture != 3)
		fatal("the device is neither v2 (trn1) nor v3 (trn2)");
	bar0 = info.bar_address[0];
	v3 = info.architecture == 3;
	if (device_reset())
		fatal("the first reset");
	if (!strcmp(race, "initfree")) {
		pthread_create(&a, NULL, initfree_init, NULL);
		pthread_create(&b, NULL, initfree_free, NULL);
	} else {
		pthread_create(&a, NULL, resetinit_reset, NULL);
		pthread_create(&b, NULL, resetinit_init, NULL);
	}
	t_end = now_s() + seconds;
	for (r = 0; r < max_rounds && now_s() < t_end; r++) {
		const char *bad = NULL;
		char why[160];

		memset(&rd, 0, sizeof(rd));
		errno = queue_init(ENGINE_A, &rd.old_handle);
		if (errno)
			fatal("NOTIFICATIONS_INIT_WITH_REALLOC_V2 of a round's queue");
		rd.delay_us = sweep_us ? (unsigned int)(r * 7 % (sweep_us + 1)) : 0;
		if (run_round()) {
			printf("round %lu: FAILED: a thread's ioctl did not return within %d s (%s); see the kernel log\n",
			       r, STUCK_S, rd.done[0] ? "the second" : "the first");
			printf("race %s: %lu rounds, %lu failed, %lu missed: a thread is stuck in the driver\n",
			       race, r + 1, failed + 1, missed);
			fflush(stdout);
			_exit(1);
		}
		if (!strcmp(race, "initfree")) {
			if (rd.init_err) {
				snprintf(why, sizeof(why), "NOTIFICATIONS_INIT failed: %s", strerror(rd.init_err));
				bad = why;
			} else if (queue_size_reg(ENGINE_A) != RING) {
				snprintf(why, sizeof(why),
					 "the queue NOTIFICATIONS_INIT returned (handle 0x%llx) is halted: size register 0x%x; MEM_FREE of the old handle 0x%llx: %s",
					 (unsigned long long)rd.new_handle, queue_size_reg(ENGINE_A),
					 (unsigned long long)rd.old_handle,
					 rd.free_err ? strerror(rd.free_err) : "ok");
				bad = why;
			}
			if (!rd.free_err)
				extra++;	/* the MEM_FREE came first */
		} else {
			if (rd.reset_err) {
				errno = rd.reset_err;
				fatal("the device reset");
			}
			if (!rd.halt_seen) {
				missed++;
			} else if (rd.init_err) {
				snprintf(why, sizeof(why), "NOTIFICATIONS_INIT during the reset failed: %s",
					 strerror(rd.init_err));
				bad = why;
			} else {
				int err = mem_free(rd.new_handle);

				if (err) {
					snprintf(why, sizeof(why),
						 "the queue programmed after the reset's halt (handle 0x%llx%s) was freed by the reset: MEM_FREE: %s",
						 (unsigned long long)rd.new_handle,
						 rd.reset_running_at_init ? ", INIT returned while the reset ran" : "",
						 strerror(err));
					bad = why;
				}
				if (rd.reset_running_at_init)
					extra++;
			}
		}
		if (bad) {
			if (failed < 10)
				printf("round %lu: FAILED: %s\n", r, bad);
			failed++;
		}
	}
	quit = 1;
	pthread_mutex_lock(&mx);
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mx);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (!strcmp(race, "initfree"))
		printf("race %s: %lu rounds, %lu failed, %lu missed (MEM_FREE delayed 0..%u us; it came first in %lu)\n",
		       race, r, failed, missed, sweep_us, extra);
	else
		printf("race %s: %lu rounds, %lu failed, %lu missed (halt not seen before the reset returned; INIT returned while the reset ran in %lu)\n",
		       race, r, failed, missed, extra);
	return failed ? 1 : 0;
}
