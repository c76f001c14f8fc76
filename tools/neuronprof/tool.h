/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the subcommands, one cmd_<name>.c each (as perf's
 * builtin-*.c), listed in commands.c, which main.c dispatches to. The
 * tool's layers, from the bottom: util/ (messages, parsing, JSON and
 * protobuf writers, outputs, option tables), analysis/ (loading profiles,
 * the timing model, the statistics of summary and report, machines),
 * export/ (the timeline formats), then the subcommands. A layer includes
 * only those below it.
 */
#ifndef NEURONPROF_TOOL_H
#define NEURONPROF_TOOL_H

#include <stddef.h>
#include <stdio.h>

#include "util/options.h"
#include "util/util.h"

/* Subcommands: argv[0] is the subcommand name. */
int cmd_devices(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_exporter(int argc, char **argv);
int cmd_sim(int argc, char **argv);

/* export's list of formats, after its description (cmd_export.c). */
void export_describe(FILE *f);

/**
 * struct subcommand - a subcommand of the list (commands.c).
 * @fn: runs it.
 * @summary: its line in "neuronprof --help".
 * @desc: its "neuronprof <name> --help" but for the options.
 */
struct subcommand {
	int (*fn)(int argc, char **argv);
	const char *summary;
	struct cmd_desc desc;
};

extern const struct subcommand subcommands[];
extern const size_t nsubcommands;

#endif /* NEURONPROF_TOOL_H */
