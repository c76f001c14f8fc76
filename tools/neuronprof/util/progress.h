/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): a progress bar on stderr for long work (progress.c): off
 * unless stderr is a terminal and the work is long, or it is forced.
 * progress_update() is cheap enough to call once per entry.
 */
#ifndef NEURONPROF_PROGRESS_H
#define NEURONPROF_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

enum progress_mode {
	PROGRESS_AUTO,		/* on when stderr is a terminal and the work is long */
	PROGRESS_ALWAYS,
	PROGRESS_NEVER,
};

/* Below this many entries the work is short and AUTO shows no bar. */
#define PROGRESS_AUTO_MIN	200000ULL

struct progress {
	bool on;
	const char *label;
	uint64_t total;
	uint64_t next_check;	/* done count at which the clock is read again */
	uint64_t last_ns;
	int last_permille;
};

void progress_start(struct progress *p, enum progress_mode mode, const char *label,
		    uint64_t total);
void progress_slow(struct progress *p, uint64_t done);
void progress_finish(struct progress *p);

/* Cheap enough to call once per entry: a compare, nothing more, most of the time. */
static inline void progress_update(struct progress *p, uint64_t done)
{
	if (p->on && done >= p->next_check)
		progress_slow(p, done);
}

/* Parses --progress=auto|always|never; returns 0 or -1 (usage error printed). */
int parse_progress(const char *s, enum progress_mode *mode);

#endif /* NEURONPROF_PROGRESS_H */
