// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the command-line front end of libneuronprof. This file only
 * dispatches to the subcommands; each lives in cmd_<name>.c.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/common.h>

#include "tool.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
	{ "devices", cmd_devices, "list neuronprof devices and what they offer" },
	{ "doctor", cmd_doctor, "check the kernel modules and device nodes, say how to fix them" },
	{ "calibrate", cmd_calibrate, "measure a Neuron device's queue entry size and head unit" },
	{ "record", cmd_record, "capture a profile on the simulator, or of a command" },
	{ "dump", cmd_dump, "print an NTFF file: header, metadata, entries" },
	{ "summary", cmd_summary, "per-core and per-engine activity of a profile" },
	{ "report", cmd_report, "one self-contained HTML page of a profile, with plots" },
	{ "export", cmd_export, "convert a profile to Chrome trace JSON, Perfetto or SQLite" },
	{ "top", cmd_top, "a live view of a device: utilisation, rates, queues" },
	{ "exporter", cmd_exporter, "a device's activity (or a recording's) as Prometheus metrics" },
};

#define NSUBCOMMANDS	(sizeof(subcommands) / sizeof(subcommands[0]))

static const struct subcommand *subcommand_find(const char *name)
{
	for (size_t i = 0; i < NSUBCOMMANDS; i++)
		if (!strcmp(name, subcommands[i].name))
			return &subcommands[i];
	return NULL;
}

/* "devices, doctor, ..., top": the commands, for messages. */
static const char *subcommand_names(void)
{
	static char buf[256];
	size_t off = 0;

	for (size_t i = 0; i < NSUBCOMMANDS && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? ", " : "",
					subcommands[i].name);
	return buf;
}

static void usage(FILE *f)
{
	fputs("Usage: neuronprof [--version] [--help] <command> [<args>]\n"
	      "\n"
	      "Commands:\n", f);
	for (size_t i = 0; i < NSUBCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", subcommands[i].name, subcommands[i].summary);
	fputs("\n'neuronprof <command> --help' describes a command; man neuronprof has it all.\n",
	      f);
}

int main(int argc, char **argv)
{
	const struct subcommand *sub;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	/* "help CMD" is "CMD --help". */
	if (!strcmp(argv[1], "help")) {
		static char help_opt[] = "--help";
		char *help_argv[] = { argv[2], help_opt, NULL };

		if (argc > 3)
			return usage_error("help takes one command, not '%s'", argv[3]);
		sub = subcommand_find(argv[2]);
		if (!sub)
			return usage_error("help: unknown command '%s' (commands: %s)", argv[2],
					   subcommand_names());
		tool_cmd = sub->name;
		optind = 1;
		return sub->fn(2, help_argv);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("neuronprof (libneuronprof %s)\n", nprof_version_string());
		return 0;
	}
	sub = subcommand_find(argv[1]);
	if (sub) {
		tool_cmd = sub->name;
		return sub->fn(argc - 1, argv + 1);
	}
	if (argv[1][0] == '-')
		return usage_error("unknown option '%s'", argv[1]);
	return usage_error("unknown command '%s' (commands: %s)", argv[1], subcommand_names());
}
