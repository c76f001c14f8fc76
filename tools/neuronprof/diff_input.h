/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the two sides of `diff` and `report --diff` (cmd_diff.c):
 * their PATHs from the command line, loaded and summarized with their
 * durations kept (analysis/diff.h), and diff's JSON document.
 */
#ifndef NEURONPROF_TOOL_DIFF_INPUT_H
#define NEURONPROF_TOOL_DIFF_INPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/diff.h"
#include "analysis/summary.h"
#include "util/util.h"
#include "util/progress.h"

/* One side: its PATHs loaded, and all their files as one recording. */
struct diff_input {
	char *const *paths;
	size_t npaths;
	struct path_set ps;
	struct recording rec;
	struct rec_stats stats;
	bool loaded, built;
};

/*
 * diff_inputs_parse() - the operands argv[@first..@argc) as BASE NEW, or
 * BASE... -- NEW...; into @in. Return: 0, or EXIT_USAGE after the message.
 */
int diff_inputs_parse(struct diff_input in[2], int argc, char **argv, int first);

/*
 * diff_inputs_load() - load both sides (each one machine's files) and
 * build their statistics with their durations (rec_stats_build_durations()).
 * Return: 0, or EXIT_FAIL after the message. diff_inputs_free() either way.
 */
int diff_inputs_load(struct diff_input in[2], enum progress_mode pmode, const char *label);
void diff_inputs_free(struct diff_input in[2]);

/* What a row is ("op 0x000402 matmult", "latency model 11") and where ("core 1 0:tensor"). */
const char *diff_row_what(const struct diff_row *r, char *buf, size_t len);
const char *diff_row_where(const struct diff_row *r, char *buf, size_t len);

/* The document of diff --json, to @f. */
void diff_json_write(FILE *f, const struct diff *d, const struct diff_input *in,
		     const struct diff_gate *gate);

/*
 * report_diff() - report --diff (report_diff.c): the page of the comparison
 * of the operands argv[@first..@argc) into @outpath ("-": stdout), the
 * @top rows of its ranked sections, at significance level @alpha.
 */
int report_diff(const char *outpath, int argc, char **argv, int first,
		enum progress_mode pmode, size_t top, double alpha);

#endif /* NEURONPROF_TOOL_DIFF_INPUT_H */
