// SPDX-License-Identifier: MIT
/*
 * neuronprof record: the live status line of a long capture.
 *
 * The figures come from the library's progress page (<neuronprof/capture.h>,
 * NPROF_PROGRESS_FD_ENV): a memfd this process creates and names in the
 * environment before any capture begins, so the capture engines of this
 * process (synthetic mode) or of the recorded command (command mode, which
 * inherits the descriptor) add what they spool and lose to it. The line is
 * drawn on stderr when it is a terminal, at most once a second, and erased
 * at the end; scripts never see it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/capture.h>

#include "record_status.h"
#include "tool.h"

#define STATUS_PERIOD_NS	1000000000ULL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int record_status_start(struct record_status *st)
{
	char num[16];
	int fd;

	memset(st, 0, sizeof(*st));
	st->fd = -1;
	st->on = isatty(STDERR_FILENO);
	st->start_ns = st->last_ns = now_ns();
	/* Inherited by the recorded command: no close-on-exec. */
	fd = memfd_create("neuronprof-progress", 0);
	if (fd < 0 || ftruncate(fd, (off_t)sizeof(*st->page))) {
		if (fd >= 0)
			close(fd);
		return fail("cannot create the progress page: %s", strerror(errno));
	}
	st->page = mmap(NULL, sizeof(*st->page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (st->page == MAP_FAILED) {
		st->page = NULL;
		close(fd);
		return fail("cannot map the progress page: %s", strerror(errno));
	}
	st->page->magic = NPROF_PROGRESS_MAGIC;
	st->fd = fd;
	snprintf(num, sizeof(num), "%d", fd);
	if (setenv(NPROF_PROGRESS_FD_ENV, num, 1))
		return fail("cannot set %s: %s", NPROF_PROGRESS_FD_ENV, strerror(errno));
	return 0;
}

void record_status_read(const struct record_status *st, uint64_t *entries, uint64_t *bytes,
			uint64_t *lost)
{
	*entries = st->page ? __atomic_load_n(&st->page->entries, __ATOMIC_RELAXED) : 0;
	*bytes = st->page ? __atomic_load_n(&st->page->bytes, __ATOMIC_RELAXED) : 0;
	*lost = st->page ? __atomic_load_n(&st->page->lost, __ATOMIC_RELAXED) : 0;
}

void record_status_tick(struct record_status *st, bool force)
{
	uint64_t now = now_ns(), entries, bytes, lost;
	double rate;

	if (!st->on || (!force && now - st->last_ns < STATUS_PERIOD_NS))
		return;
	record_status_read(st, &entries, &bytes, &lost);
	rate = now > st->last_ns ? (double)(entries - st->last_entries) * 1e9 /
					   (double)(now - st->last_ns) : 0;
	fprintf(stderr, "\r\033[K[%5llus] %10.0f entries/s  %9.1f MB written",
		(unsigned long long)((now - st->start_ns) / 1000000000ULL), rate,
		(double)bytes / 1e6);
	/* Projected: what was written so far, scaled to the whole run. */
	if (st->plan_ns && now > st->start_ns)
		fprintf(stderr, ", ~%.1f MB projected", (double)bytes * (double)st->plan_ns /
			(double)(now - st->start_ns) / 1e6);
	else if (st->plan_units && st->done_units)
		fprintf(stderr, ", ~%.1f MB projected", (double)bytes * (double)st->plan_units /
			(double)st->done_units / 1e6);
	if (st->max_size)
		fprintf(stderr, " (limit %.1f MB)", (double)st->max_size / 1e6);
	fprintf(stderr, "  %llu lost", (unsigned long long)lost);
	fflush(stderr);
	st->drawn = true;
	st->last_ns = now;
	st->last_entries = entries;
}

void record_status_finish(struct record_status *st)
{
	if (st->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	if (st->page)
		munmap(st->page, sizeof(*st->page));
	if (st->fd >= 0)
		close(st->fd);
	unsetenv(NPROF_PROGRESS_FD_ENV);
	st->page = NULL;
	st->fd = -1;
}
