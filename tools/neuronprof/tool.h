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

/*
 * A subcommand: argv[0] is its name; returns the exit status. Each is
 * cmd_<name>() of cmd_<name>.c, declared here by this one type, in the
 * order of the list (commands.c).
 */
typedef int subcommand_fn(int argc, char **argv);

subcommand_fn cmd_devices, cmd_doctor, cmd_calibrate, cmd_record, cmd_dump, cmd_summary,
	cmd_diff, cmd_report, cmd_export, cmd_top, cmd_exporter, cmd_sim;

/* export's list of formats, after its description (cmd_export.c). */
void export_describe(FILE *f);

/**
 * struct subcommand - a subcommand of the list (commands.c).
 * @fn: runs it.
 * @summary: its line in "neuronprof --help".
 * @desc: its "neuronprof <name> --help" but for the options.
 */
struct subcommand {
	subcommand_fn *fn;
	const char *summary;
	struct cmd_desc desc;
};

extern const struct subcommand subcommands[];
extern const size_t nsubcommands;

#endif /* NEURONPROF_TOOL_H */
