/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): summary --csv DIR (summary_csv.c): one CSV file per
 * section, each written by the rule of util/output.h.
 */
#ifndef NEURONPROF_TOOL_SUMMARY_CSV_H
#define NEURONPROF_TOOL_SUMMARY_CSV_H

#include <stddef.h>

#include "analysis/summary_columns.h"
#include "util/output.h"

/* How many tables (files) summary --csv writes. */
#define SUMMARY_CSV_TABLES	17

struct summary_csv {
	struct output o[SUMMARY_CSV_TABLES];
};

/*
 * summary_csv_open() - every table of @dir opened (made when missing), its
 * header written, before any work. Return: 0, or -1 after a message (no
 * file left behind).
 */
int summary_csv_open(struct summary_csv *c, const char *dir);

/*
 * summary_csv_write() - the rows of @stats (@n recordings) and of the
 * machines compared @xh (NULL: none), then every table committed.
 * Return: 0 or EXIT_FAIL after a message.
 */
int summary_csv_write(struct summary_csv *c, const struct rec_stats *stats, size_t n,
		      const struct xhost *xh);

/* summary_csv_abort() - remove what summary_csv_open() made. */
void summary_csv_abort(struct summary_csv *c);

#endif
