/* SPDX-License-Identifier: MIT */
/*
 * neuronprof record's output rotation (record_rotate.c): --switch-output
 * starts new files at a size, a time or a signal, as perf record's option
 * of the same name, and --switch-max-files keeps only the newest files.
 */
#ifndef NEURONPROF_RECORD_ROTATE_H
#define NEURONPROF_RECORD_ROTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct record_control;

enum record_rotate_mode { ROTATE_NONE, ROTATE_SIGNAL, ROTATE_SIZE, ROTATE_TIME };

struct record_rotate {
	enum record_rotate_mode mode;
	uint64_t size;			/* ROTATE_SIZE: bytes of entries per file */
	uint64_t period_ns;		/* ROTATE_TIME */
	uint64_t max_files;		/* --switch-max-files, per core; 0: keep all */
	const char *dir;		/* where the recording's files appear */
	time_t since;			/* its files are modified at or after this */
	uint64_t base_ns;		/* at the last switch */
	uint64_t switches, removed;	/* SIZE: the most switches a core made */
};

/* Parse --switch-output's value (signal, SIZE with B/K/M/G, TIME with s/m/h/d); 0 or EXIT_USAGE. */
int record_rotate_parse(struct record_rotate *r, const char *arg);

/* Is the output rotated (--switch-output given)? */
bool record_rotate_wanted(const struct record_rotate *r);

/*
 * Start watching: the recording's files appear under @dir from now on
 * (SIGUSR2 asks for a switch in signal mode; a SIZE goes into the control
 * page @ctl, for the library to switch by itself). 0, or EXIT_FAIL after
 * the message.
 */
int record_rotate_start(struct record_rotate *r, struct record_control *ctl, const char *dir);

/*
 * Switch when the time or signal says so (through the control page @ctl:
 * the library starts the next file at the next execution that begins), and
 * remove the files beyond --switch-max-files; never blocks.
 */
void record_rotate_tick(struct record_rotate *r, struct record_control *ctl);

/* Remove what the last files leave beyond --switch-max-files and say what rotation did. */
void record_rotate_finish(struct record_rotate *r);

#endif /* NEURONPROF_RECORD_ROTATE_H */
