/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): one option table per subcommand, from which both the
 * parsing and the usage text come (as perf's parse-options does), so that
 * an option cannot be parsed without being documented or documented
 * without being parsed.
 *
 * A command declares its options in a table ending with OPT_END(); its
 * synopsis is made from that table (each option as @syn says, the default
 * "[--name ARG]"; one usage line per form, OPT_FORM(), for a table that has
 * them), followed by the operands of its struct cmd_desc in the
 * list of commands (commands.c), which also holds what it does and any
 * other form of the command; main() makes the running one tool_desc. opts_parse() parses argv with getopt_long()
 * ("+": options stop at the first operand or "--"), stores each value
 * where its entry points, checks numbers against their ranges, answers
 * -h/--help (added to every table) with the usage text of tool_desc and
 * the table, and reports every mistake as a usage error naming the option.
 */
#ifndef NEURONPROF_OPTIONS_H
#define NEURONPROF_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>	/* optind: where the operands start */

#include "util/ringmem.h"
#include "util/progress.h"

enum opt_kind {
	OPT_KIND_END,
	OPT_KIND_BOOL,		/* no value: *(bool *)value = true */
	OPT_KIND_STRING,	/* *(const char **)value = the value, which must not be empty */
	OPT_KIND_U64,		/* *(uint64_t *)value, decimal or 0x hex in [min, max] */
	OPT_KIND_SIZE,		/* as OPT_KIND_U64, with a K, M or G suffix allowed */
	OPT_KIND_RING_SIZE,	/* a ring size (util/ringmem.h), at least min */
	OPT_KIND_SECONDS,	/* *(uint64_t *)value in ns from seconds "1.5" in [min, max] ns */
	OPT_KIND_PROGRESS,	/* *(enum progress_mode *)value from auto|always|never */
	OPT_KIND_CALLBACK,	/* cb(opt, value or NULL, ctx) */
	OPT_KIND_GROUP,		/* no option: a heading (@help) in the usage text */
};

struct opt;

/* How an option joins the one before it in the synopsis (struct opt's @syn_join). */
enum syn_join {
	SYN_ALONE,		/* "[-a] [-b]" */
	SYN_OR,			/* "[-a | -b]": one or the other */
	SYN_IN,			/* "[-a [-b]]": -b only with -a */
};

/* struct opt's @syn for an option the synopsis leaves out (shown in another form). */
#define SYN_NONE	""

/* Return: 0, or EXIT_USAGE after printing a usage error. */
typedef int (*opt_cb)(const struct opt *opt, const char *arg, void *ctx);

/**
 * struct opt - one option of a command.
 * @kind: what it stores.
 * @short_name: its letter, or 0 for a long option only.
 * @long_name: its name without "--".
 * @argh: what its value is called in the usage text ("FILE"), or NULL when it
 *	takes none.
 * @help: its description; a '\n' starts a continuation line.
 * @value: where it stores (see enum opt_kind).
 * @min: smallest value of a number.
 * @max: largest value of a number.
 * @cb: the callback of OPT_KIND_CALLBACK.
 * @tag: for the callback, to tell its options apart.
 * @first: when set and *@first is NULL, given the option's long name
 *	("dma") the first time one of the options sharing it is given (to say
 *	which option a later check refuses).
 * @syn: the option in its command's synopsis when not the default
 *	"[-s ARGH]" (a letter) or "[--long ARGH]", brackets included; SYN_NONE
 *	leaves it out.
 * @syn_join: how it joins the option before it there (enum syn_join).
 * @form: of a heading (OPT_FORM()), the operands of the form it starts;
 *	NULL for a heading that starts none.
 */
struct opt {
	enum opt_kind kind;
	char short_name;
	const char *long_name;
	const char *argh;
	const char *help;
	void *value;
	uint64_t min, max;
	opt_cb cb;
	int tag;
	const char **first;
	const char *syn;
	enum syn_join syn_join;
	const char *form;
};

/*
 * The entries of a table. Each takes more designated initializers after its
 * arguments, e.g. OPT_U64(..., .first = &o.synthetic_only).
 */
#define OPT_END()	{ .kind = OPT_KIND_END }
#define OPT_GROUP(title) \
	{ .kind = OPT_KIND_GROUP, .help = (title) }
/*
 * A heading that starts a form of the command: its options, up to the next
 * form, with those before the first form (every form's), make a usage line
 * of their own that ends with @operands ("" for none): "record [common]
 * [synthetic]", "record [common] [command-only] -- CMD [ARGS...]".
 */
#define OPT_FORM(title, operands) \
	{ .kind = OPT_KIND_GROUP, .help = (title), .form = (operands) }
#define OPT_BOOL(s, l, v, h, ...) \
	{ .kind = OPT_KIND_BOOL, .short_name = (s), .long_name = (l), .value = (v), .help = (h), \
	  ##__VA_ARGS__ }
#define OPT_STRING(s, l, v, a, h, ...) \
	{ .kind = OPT_KIND_STRING, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), ##__VA_ARGS__ }
#define OPT_U64(s, l, v, a, lo, hi, h, ...) \
	{ .kind = OPT_KIND_U64, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .min = (lo), .max = (hi), .help = (h), ##__VA_ARGS__ }
#define OPT_SIZE(s, l, v, a, lo, hi, h, ...) \
	{ .kind = OPT_KIND_SIZE, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .min = (lo), .max = (hi), .help = (h), ##__VA_ARGS__ }
/* --ring-size of every command: the grammar of util/ringmem.h, at least @lo. */
#define OPT_RING_SIZE(v, lo, h, ...) \
	{ .kind = OPT_KIND_RING_SIZE, .long_name = "ring-size", .value = (v), .argh = "SIZE", \
	  .min = (lo), .max = RING_SIZE_MAX, .help = (h), ##__VA_ARGS__ }
#define OPT_SECONDS(s, l, v, lo, hi, h, ...) \
	{ .kind = OPT_KIND_SECONDS, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = "SEC", .min = (lo), .max = (hi), .help = (h), ##__VA_ARGS__ }
#define OPT_PROGRESS(v) \
	{ .kind = OPT_KIND_PROGRESS, .long_name = "progress", .value = (v), .argh = "WHEN", \
	  .help = "progress bar on stderr: auto (default: on a terminal,\n" \
		  "for long work), always or never", .syn = "[--progress=auto|always|never]" }
#define OPT_CALLBACK(s, l, a, c, t, h, ...) \
	{ .kind = OPT_KIND_CALLBACK, .short_name = (s), .long_name = (l), .argh = (a), \
	  .cb = (c), .tag = (t), .help = (h), ##__VA_ARGS__ }

/**
 * struct cmd_desc - what a command's usage text says besides its options.
 * @name: the subcommand ("record").
 * @usage: the words after "neuronprof " on the synopsis's first line, before
 *	the options (default: @name; "sim run").
 * @operands: what follows the options on that line ("PATH..."), or NULL.
 * @forms: further forms of the command, one usage line each after
 *	"neuronprof ", '\n' between them, or NULL.
 * @about: what the command does (a paragraph, lines ending in '\n').
 * @describe: when set, writes more of the description after @about (a list
 *	that comes from a table, say).
 * @notes: text after the options, or NULL.
 */
struct cmd_desc {
	const char *name;
	const char *usage;
	const char *operands;
	const char *forms;
	const char *about;
	void (*describe)(FILE *f);
	const char *notes;
};

/* The running command's description, set by main() with tool_cmd. */
extern const struct cmd_desc *tool_desc;

/*
 * opts_parse() - parses the options of @argv into where @opts point.
 * @opts: the command's options, ending with OPT_END(); -h/--help is added.
 * @ctx: passed to callbacks.
 * @status: out: what the command returns when this returns true.
 *
 * Return: false to go on with the operands at argv[optind]; true when the
 * command has to return *@status now: 0 after printing the usage (of
 * tool_desc and @opts) for -h, EXIT_USAGE after a usage error.
 */
bool opts_parse(int argc, char **argv, const struct opt *opts, void *ctx, int *status);

/* opts_usage() - writes the usage text of @d and its options @opts to @f. */
void opts_usage(FILE *f, const struct cmd_desc *d, const struct opt *opts);

/* opt_name() - "--long" (or "-s" for a short-only option) of @o. */
const char *opt_name(const struct opt *o, char *buf, size_t len);

#endif
