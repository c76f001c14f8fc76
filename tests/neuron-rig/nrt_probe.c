// SPDX-License-Identifier: GPL-2.0
/*
 * nrt_probe: a hostile runtime that opens and closes the vendor's device
 * node in a tight loop while the device is probed, through the vendor's
 * uapi (open, close, and NEURON_IOCTL_DEVICE_INFO of neuron_ioctl.h of the
 * vendor tree, included at build time), for the holes that fixes 9 and
 * 10 of driver/neuron/vendor/fixes/ close. Started before the emulated
 * function appears (neuron.ko already loaded), it runs three threads that
 * try to open the node before it exists (so that the first open follows
 * its creation at once) until SECONDS after it appeared:
 *
 *   rw   open(O_RDWR) and close, again and again: an open between the
 *        node's creation and the setting of its device dereferences NULL
 *        in ncdev_open() (fix 9); one that succeeds before the probe has
 *        initialised the device's datastore, closed before it has, makes
 *        the last release clear the datastore through NULL (fix 10);
 *   rw2  the same, so that one thread's close is not always the last;
 *   wo   open(O_WRONLY) and close (the vendor's "free access", which
 *        neither waits for nor attaches to the device): its open and
 *        flush read the node's device too (fix 9).
 *
 * Each counts its opens that succeeded and those refused, by errno; a
 * thread that does not come back from its loop died in the driver (an
 * oops kills the thread, not the process). After
 * SECONDS from the node's appearance, the device must open (O_RDWR,
 * EAGAIN retried for up to 10 s: the probe may still be running) and
 * answer DEVICE_INFO as a trn1 or trn2: a driver that refused every open
 * would pass the loop without being usable.
 *
 * Without the fixes the kernel oopses (the rig reads the kernel log); the
 * threads of this process may then hang in the driver, which the rig
 * bounds. With them, an open during the probe is refused with EAGAIN
 * (fix 10) and nothing oopses.
 *
 * Usage: nrt_probe [-t SECONDS] [-w WAIT_S] [-d DEVICE]
 * Prints "probe: node after N ms; rw: O opened, R refused (EAGAIN), ...;
 * then: DEVICE_INFO architecture A"; exit status 0 when the device was
 * usable after the loop, no thread died and no open failed with an errno
 * other than ENOENT (no node yet), ENXIO or ENODEV (none yet or already
 * gone) and EAGAIN, 1 otherwise, 2 when the node never appeared within
 * WAIT_S (60) seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "neuron_ioctl.h"

struct looper {
	const char *name;
	int flags;
	pthread_t thread;
	unsigned long opened, again, absent, other;
	int other_errno;
	int done;	/* 0 after the join: the thread died in the driver */
};

static const char *dev = "/dev/neuron0";
static volatile double t_end = 1e300;	/* until the node appears + SECONDS */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void *loop(void *arg)
{
	struct looper *l = arg;

	while (now() < t_end) {
		int fd = open(dev, l->flags);

		if (fd >= 0) {
			l->opened++;
			close(fd);
		} else if (errno == EAGAIN) {
			l->again++;
		} else if (errno == ENOENT || errno == ENXIO || errno == ENODEV) {
			l->absent++;
		} else {
			l->other++;
			l->other_errno = errno;
		}
	}
	l->done = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	struct looper l[3] = {
		{ .name = "rw", .flags = O_RDWR },
		{ .name = "rw2", .flags = O_RDWR },
		{ .name = "wo", .flags = O_WRONLY },
	};
	struct neuron_ioctl_device_info info;
	double seconds = 3, wait_s = 60, t0, t_node;
	int c, i, fd = -1, bad = 0;

	while ((c = getopt(argc, argv, "t:w:d:")) != -1) {
		switch (c) {
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		case 'w':
			wait_s = strtod(optarg, NULL);
			break;
		case 'd':
			dev = optarg;
			break;
		default:
			fprintf(stderr, "usage: nrt_probe [-t SECONDS] [-w WAIT_S] [-d DEVICE]\n");
			return 2;
		}
	}
	t0 = now();
	for (i = 0; i < 3; i++) {
		if (pthread_create(&l[i].thread, NULL, loop, &l[i])) {
			fprintf(stderr, "nrt_probe: pthread_create failed\n");
			return 2;
		}
	}
	while (access(dev, F_OK)) {
		if (now() - t0 > wait_s) {
			fprintf(stderr, "nrt_probe: %s did not appear in %.0f s\n", dev, wait_s);
			t_end = 0;
			for (i = 0; i < 3; i++)
				pthread_join(l[i].thread, NULL);
			return 2;
		}
		usleep(1000);
	}
	t_node = now();
	t_end = t_node + seconds;
	for (i = 0; i < 3; i++)
		pthread_join(l[i].thread, NULL);
	printf("probe: node after %.0f ms", (t_node - t0) * 1000);
	for (i = 0; i < 3; i++) {
		printf("; %s: %lu opened, %lu refused (EAGAIN), %lu absent, %lu other", l[i].name,
		       l[i].opened, l[i].again, l[i].absent, l[i].other);
		if (l[i].other) {
			printf(" (last: %s)", strerror(l[i].other_errno));
			bad = 1;
		}
		if (!l[i].done) {
			printf(" (died in the driver)");
			bad = 1;
		}
	}
	t0 = now();
	while (fd < 0 && now() - t0 < 10) {
		fd = open(dev, O_RDWR);
		if (fd < 0 && errno != EAGAIN)
			break;
	}
	if (fd < 0) {
		printf("; then: open: %s\n", strerror(errno));
		return 1;
	}
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, NEURON_IOCTL_DEVICE_INFO, &info)) {
		printf("; then: DEVICE_INFO: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	printf("; then: DEVICE_INFO architecture %u\n", (unsigned int)info.architecture);
	if (info.architecture != 2 && info.architecture != 3)
		bad = 1;
	return bad;
}
