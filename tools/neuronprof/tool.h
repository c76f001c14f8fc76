/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the subcommands, one cmd_<name>.c each (as perf's
 * builtin-*.c), which main.c dispatches to. The tool's layers, from the
 * bottom: util/ (messages, parsing, JSON and protobuf writers, outputs,
 * option tables), analysis/ (loading profiles, the timing model, the
 * statistics of summary and report, machines), export/ (the timeline
 * formats), then the subcommands. A layer includes only those below it.
 */
#ifndef NEURONPROF_TOOL_H
#define NEURONPROF_TOOL_H

#include "util/util.h"

/* Subcommands: argv[0] is the subcommand name. */
int cmd_devices(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_exporter(int argc, char **argv);

#endif /* NEURONPROF_TOOL_H */
