// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the command-line front end of libneuronprof. This file only
 * dispatches to the subcommands (commands.c lists them); each lives in
 * cmd_<name>.c.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/common.h>

#include "tool.h"

/* The subcommand @name, made the running one (its messages and usage), or NULL. */
static const struct subcommand *subcommand_find(const char *name)
{
	for (size_t i = 0; i < nsubcommands; i++) {
		if (!strcmp(name, subcommands[i].desc.name)) {
			tool_cmd = subcommands[i].desc.name;
			tool_desc = &subcommands[i].desc;
			return &subcommands[i];
		}
	}
	return NULL;
}

/* "devices, doctor, ..., top": the commands, for messages. */
static const char *subcommand_names(void)
{
	static char buf[256];
	size_t off = 0;

	for (size_t i = 0; i < nsubcommands && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? ", " : "",
					subcommands[i].desc.name);
	return buf;
}

static void usage(FILE *f)
{
	fputs("Usage: neuronprof [--version] [--help] <command> [<args>]\n"
	      "\n"
	      "Commands:\n", f);
	for (size_t i = 0; i < nsubcommands; i++)
		fprintf(f, "  %-9s %s\n", subcommands[i].desc.name, subcommands[i].summary);
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
		optind = 1;
		return sub->fn(2, help_argv);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("neuronprof (libneuronprof %s)\n", nprof_version_string());
		return 0;
	}
	sub = subcommand_find(argv[1]);
	if (sub)
		return sub->fn(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return usage_error("unknown option '%s'", argv[1]);
	return usage_error("unknown command '%s' (commands: %s)", argv[1], subcommand_names());
}
