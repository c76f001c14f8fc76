/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): a named output (output.c has the rule): a regular file is
 * written to a temporary and renamed over it when complete; a device, a
 * FIFO or "-" is written in place; a symbolic link is followed; a
 * directory is refused up front; missing directories above it are created.
 */
#ifndef NEURONPROF_TOOL_OUTPUT_H
#define NEURONPROF_TOOL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/* output_open() flags */
#define OUTPUT_STDOUT	(1u << 0)	/* "-" is standard output */
#define OUTPUT_BY_NAME	(1u << 1)	/* the writer opens ->path itself, and seeks (SQLite) */

struct output {
	const char *name;	/* as given: every message names it */
	FILE *f;		/* where to write; NULL with OUTPUT_BY_NAME */
	const char *path;	/* OUTPUT_BY_NAME: the file to write (a temporary) */
	char *final;		/* the file the name leads to (links followed) */
	char *tmp;		/* temporary beside @final, renamed over it at commit */
	char *scratch;		/* OUTPUT_BY_NAME in place: copied into @fd at commit */
	int fd;			/* the descriptor written in place, or -1 */
	bool in_place;		/* a device, a FIFO or standard output */
	bool to_stdout;
};

/*
 * output_mkdir() - create the directory @dir and its missing parents
 * (nprof_output_mkdir_p(), as record does for -o), for the output @name.
 * Return: 0, or -1 after a message naming both.
 */
int output_mkdir(const char *dir, const char *name);

/*
 * output_open() - get @name ready for writing, before any work: missing
 * directories above a new file are created (output_mkdir()); a directory
 * or a device that does not open fails here. A FIFO's open waits for a
 * reader.
 * Return: 0, or -1 after a message naming @name.
 */
int output_open(struct output *o, const char *name, unsigned int flags);

/*
 * output_commit() - complete the output: flush, sync and rename a
 * temporary over the file, or copy the scratch file into the device, FIFO
 * or standard output. Return: 0, or EXIT_FAIL after a message naming it.
 */
int output_commit(struct output *o);

/* output_abort() - remove what the output made (never its target) and free it. */
void output_abort(struct output *o);

#endif /* NEURONPROF_TOOL_OUTPUT_H */
