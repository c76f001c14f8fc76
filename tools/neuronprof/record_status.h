/* SPDX-License-Identifier: MIT */
/*
 * neuronprof record's status line (record_status.c): entries per second, MB
 * written, the size projected for the whole run and notifications lost so
 * far, from the library's progress page.
 */
#ifndef NEURONPROF_RECORD_STATUS_H
#define NEURONPROF_RECORD_STATUS_H

#include <stdbool.h>
#include <stdint.h>

struct nprof_progress_page;

struct record_status {
	bool on;			/* stderr is a terminal */
	bool drawn;
	int fd;				/* the memfd, -1 if none */
	struct nprof_progress_page *page;
	uint64_t start_ns, last_ns, last_entries;
	/*
	 * For the projected size: the run's planned length (plan_ns, or
	 * plan_units executions of which done_units are done; 0 when not
	 * known) and the --max-size limit (0: none), set by the caller.
	 */
	uint64_t plan_ns, plan_units, done_units, max_size;
};

/*
 * Create the progress page and name it in this process's environment (so
 * before any capture begins, and before the command is started). Return 0,
 * or EXIT_FAIL after the message.
 */
int record_status_start(struct record_status *st);

/* Redraw if a second passed since the last time (or @force). */
void record_status_tick(struct record_status *st, bool force);

/* The page's counters now. */
void record_status_read(const struct record_status *st, uint64_t *entries, uint64_t *bytes,
			uint64_t *lost);

/* Erase the line, drop the page and its environment variable. */
void record_status_finish(struct record_status *st);

#endif /* NEURONPROF_RECORD_STATUS_H */
