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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <neuronprof/capture.h>

#include "record.h"
#include "record_status.h"
#include "tool.h"

#define STATUS_PERIOD_NS	1000000000ULL

int record_status_start(struct record_status *st)
{
	memset(st, 0, sizeof(*st));
	st->on = isatty(STDERR_FILENO);
	st->start_ns = st->last_ns = record_monotonic_ns();
	st->page = record_page_share("neuronprof-progress", sizeof(*st->page), NPROF_PROGRESS_FD_ENV,
				     "progress", &st->fd);
	if (!st->page)
		return EXIT_FAIL;
	st->page->magic = NPROF_PROGRESS_MAGIC;
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
	uint64_t now = record_monotonic_ns(), entries, bytes, lost;
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
