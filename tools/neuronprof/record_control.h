/* SPDX-License-Identifier: MIT */
/*
 * neuronprof record's capture control (record_control.c): --delay and
 * --control fifo:CTL[,ACK] switch capture on and off through the library's
 * control page (<neuronprof/capture.h>, NPROF_CONTROL_FD_ENV).
 */
#ifndef NEURONPROF_RECORD_CONTROL_H
#define NEURONPROF_RECORD_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

struct nprof_control_page;

struct record_control {
	const char *ctl_path, *ack_path;	/* --control fifo:CTL[,ACK]; NULL: none */
	int64_t delay_ms;			/* --delay: -1 off until enabled; 0 none */
	bool delay_given;
	int fd;					/* the page's memfd, -1 if none */
	struct nprof_control_page *page;
	int ctl_fd, ack_fd;			/* -1 if none */
	uint64_t enable_at_ns;			/* --delay's moment; 0 none pending */
	char line[64];				/* a command being read */
	size_t len;
	uint64_t enables, disables;		/* commands obeyed */
	bool rotate;				/* --switch-output: a page to switch files */
};

/* Parse --control's value; 0 or EXIT_USAGE after the message. */
int record_control_parse(struct record_control *rc, const char *spec);

/* Parse --delay's value (seconds, decimals allowed, or -1); 0 or EXIT_USAGE. */
int record_control_parse_delay(struct record_control *rc, const char *arg);

/* Is capture controlled at all (--delay or --control)? */
bool record_control_wanted(const struct record_control *rc);

/*
 * Open the FIFOs, create the page (capture off with --delay, else on), name
 * it in this process's environment (the recorded command inherits it), and
 * start the --delay clock. 0, or EXIT_FAIL after the message.
 */
int record_control_start(struct record_control *rc);

/* Act on --delay's moment and on the commands the FIFO holds; never blocks. */
void record_control_poll(struct record_control *rc);

/* Milliseconds until --delay's moment (-1: none pending), for poll(). */
int record_control_timeout_ms(const struct record_control *rc);

/* Ask the library for a new file of every core (--switch-output). */
void record_control_switch(struct record_control *rc);

/*
 * Ask the library to start a new file of a core itself at the first
 * execution that begins once the core's file holds @bytes of entries
 * (--switch-output SIZE; the page's switch_size).
 */
void record_control_switch_size(struct record_control *rc, uint64_t bytes);

/* Is capture enabled now? */
bool record_control_enabled(const struct record_control *rc);

/* Close everything and drop the environment variable. */
void record_control_finish(struct record_control *rc);

#endif /* NEURONPROF_RECORD_CONTROL_H */
