// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the option tables' parser and usage text (options.h).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "util/options.h"
#include "util/util.h"

/* getopt_long()'s value of table entry @i without a letter. */
#define OPT_VAL_LONG	256
/* Option labels longer than this put their help on the next line. */
#define OPT_COL_MAX	24
/* The synopsis wraps before this column. */
#define SYN_WIDTH	80

const struct cmd_desc *tool_desc;

static const struct opt opt_help = {
	.kind = OPT_KIND_BOOL, .short_name = 'h', .long_name = "help", .help = "this text",
};

static size_t opts_count(const struct opt *opts)
{
	size_t n = 0;

	while (opts[n].kind != OPT_KIND_END)
		n++;
	return n;
}

static bool opt_takes_value(const struct opt *o)
{
	return o->argh != NULL;
}

const char *opt_name(const struct opt *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

/* "  -o, --output FILE" (or "      --json") into @buf; returns its length. */
static int opt_label(const struct opt *o, char *buf, size_t len)
{
	const char *sep = o->kind == OPT_KIND_PROGRESS ? "=" : " ";

	if (o->short_name && o->long_name)
		return snprintf(buf, len, "  -%c, --%s%s%s", o->short_name, o->long_name,
				o->argh ? sep : "", o->argh ? o->argh : "");
	if (o->short_name)
		return snprintf(buf, len, "  -%c%s%s", o->short_name, o->argh ? " " : "",
				o->argh ? o->argh : "");
	return snprintf(buf, len, "      --%s%s%s", o->long_name, o->argh ? sep : "",
			o->argh ? o->argh : "");
}

static void opt_usage_line(FILE *f, const struct opt *o, int col)
{
	char label[128];
	const char *h = o->help, *nl;
	int n = opt_label(o, label, sizeof(label));

	fputs(label, f);
	if (n + 2 > col)
		fprintf(f, "\n%*s", col, "");
	else
		fprintf(f, "%*s", col - n, "");
	for (;;) {
		nl = strchr(h, '\n');
		if (!nl) {
			fprintf(f, "%s\n", h);
			return;
		}
		fprintf(f, "%.*s\n%*s", (int)(nl - h), h, col, "");
		h = nl + 1;
	}
}

/* @s's lines after "       ", "neuronprof " before those not starting with blanks. */
static void usage_lines(FILE *f, const char *s)
{
	const char *nl;

	for (;;) {
		nl = strchr(s, '\n');
		/* A line starting with blanks continues the one above. */
		fprintf(f, "       %s%.*s\n", *s == ' ' ? "" : "neuronprof ",
			nl ? (int)(nl - s) : (int)strlen(s), s);
		if (!nl || !nl[1])
			break;
		s = nl + 1;
	}
}

/* @o as the synopsis shows it by default: "[-o FILE]", "[--json]", "[--top N]". */
static void syn_default(const struct opt *o, char *buf, size_t len)
{
	if (o->short_name)
		snprintf(buf, len, "[-%c%s%s]", o->short_name, o->argh ? " " : "",
			 o->argh ? o->argh : "");
	else
		snprintf(buf, len, "[--%s%s%s]", o->long_name, o->argh ? " " : "",
			 o->argh ? o->argh : "");
}

#define SYN_ITEMS	64

/* The synopsis's items: "[-o FILE]", "[--a | --b]", ..., the operands last. */
struct syn_items {
	char item[SYN_ITEMS][160];
	size_t n;
};

/* Add @opts[@from, @to) to @it, each as its @syn says, joined as its @syn_join says. */
static void syn_add(struct syn_items *it, const struct opt *opts, size_t from, size_t to)
{
	char frag[160];

	for (size_t i = from; i < to; i++) {
		const struct opt *o = &opts[i];
		size_t len;

		if (o->kind == OPT_KIND_GROUP || (o->syn && !*o->syn))
			continue;
		if (o->syn)
			snprintf(frag, sizeof(frag), "%s", o->syn);
		else
			syn_default(o, frag, sizeof(frag));
		if (o->syn_join == SYN_ALONE || !it->n) {
			if (it->n < SYN_ITEMS)
				snprintf(it->item[it->n++], sizeof(it->item[0]), "%s", frag);
			continue;
		}
		/* Into the brackets of the one before: "[a | b]" or "[a [b]]". */
		len = strlen(it->item[it->n - 1]);
		it->item[it->n - 1][len - 1] = '\0';
		if (o->syn_join == SYN_OR && frag[0] == '[') {
			frag[strlen(frag) - 1] = '\0';
			snprintf(it->item[it->n - 1] + len - 1, sizeof(it->item[0]) - (len - 1),
				 " | %s]", frag + 1);
		} else {
			snprintf(it->item[it->n - 1] + len - 1, sizeof(it->item[0]) - (len - 1),
				 " %s]", frag);
		}
	}
}

/*
 * One usage line: @lead ("Usage: " or blanks), "neuronprof CMD", the items
 * and @operands; wrapped before SYN_WIDTH columns, the lines that continue
 * it indented under its first option.
 */
static void syn_line(FILE *f, const char *lead, const struct cmd_desc *d, struct syn_items *it,
		     const char *operands)
{
	int col, indent;

	if (operands && *operands && it->n < SYN_ITEMS)
		snprintf(it->item[it->n++], sizeof(it->item[0]), "%s", operands);
	col = fprintf(f, "%sneuronprof %s", lead, d->usage ? d->usage : d->name);
	indent = col + 1;
	for (size_t i = 0; i < it->n; i++) {
		int w = (int)strlen(it->item[i]);

		if (col > indent && col + 1 + w > SYN_WIDTH)
			col = fprintf(f, "\n%*s", indent - 1, "") - 1;
		col += fprintf(f, " %s", it->item[i]);
	}
	fputc('\n', f);
}

/*
 * The synopsis made from @opts: one line of every option and the operands;
 * or, for a table with forms (OPT_FORM()), one line per form of the options
 * before the first form and those of the form, ending with its operands.
 */
static void synopsis(FILE *f, const struct cmd_desc *d, const struct opt *opts, size_t n)
{
	size_t first = n, lines = 0;

	for (size_t i = 0; i < n && first == n; i++)
		if (opts[i].kind == OPT_KIND_GROUP && opts[i].form)
			first = i;
	if (first == n) {
		struct syn_items it = { .n = 0 };

		syn_add(&it, opts, 0, n);
		syn_line(f, "Usage: ", d, &it, d->operands);
		return;
	}
	for (size_t i = first; i < n; i++) {
		struct syn_items it = { .n = 0 };
		size_t end = i + 1;

		if (opts[i].kind != OPT_KIND_GROUP || !opts[i].form)
			continue;
		while (end < n && !(opts[end].kind == OPT_KIND_GROUP && opts[end].form))
			end++;
		syn_add(&it, opts, 0, first);
		syn_add(&it, opts, i + 1, end);
		syn_line(f, lines++ ? "       " : "Usage: ", d, &it, opts[i].form);
	}
}

void opts_usage(FILE *f, const struct cmd_desc *d, const struct opt *opts)
{
	size_t n = opts_count(opts);
	char label[128];
	int col = 0, w;

	synopsis(f, d, opts, n);
	if (d->forms)
		usage_lines(f, d->forms);
	fprintf(f, "\n%s", d->about);
	if (d->describe)
		d->describe(f);
	fputc('\n', f);
	for (size_t i = 0; i <= n; i++) {
		if (i < n && opts[i].kind == OPT_KIND_GROUP)
			continue;
		w = opt_label(i < n ? &opts[i] : &opt_help, label, sizeof(label)) + 2;
		if (w <= OPT_COL_MAX && w > col)
			col = w;
	}
	for (size_t i = 0; i < n; i++) {
		if (opts[i].kind == OPT_KIND_GROUP)
			fprintf(f, "%s\n", opts[i].help);
		else
			opt_usage_line(f, &opts[i], col);
	}
	opt_usage_line(f, &opt_help, col);
	if (d->notes)
		fprintf(f, "\n%s", d->notes);
}

/* @as_short: the option was spelled by its letter, which messages then name. */
static int opt_apply(const struct opt *o, const char *arg, void *ctx, bool as_short)
{
	char name[64];

	if (as_short)
		snprintf(name, sizeof(name), "-%c", o->short_name);
	else
		opt_name(o, name, sizeof(name));
	if (o->first && !*o->first)
		*o->first = o->long_name;
	switch (o->kind) {
	case OPT_KIND_BOOL:
		*(bool *)o->value = true;
		break;
	case OPT_KIND_STRING:
		if (!*arg)
			return usage_error("%s: empty value", name);
		*(const char **)o->value = arg;
		break;
	case OPT_KIND_U64:
	case OPT_KIND_SIZE:
		if (parse_u64(name, arg, o->min, o->max, o->kind == OPT_KIND_SIZE, o->value))
			return EXIT_USAGE;
		break;
	case OPT_KIND_RING_SIZE:
		if (parse_ring_size(name, arg, o->min, o->value))
	case OPT_KIND_SECONDS:
		if (parse_seconds(name, arg, o->min, o->max, o->value))
			return EXIT_USAGE;
		break;
	case OPT_KIND_PROGRESS:
		if (parse_progress(arg, o->value))
			return EXIT_USAGE;
		break;
	case OPT_KIND_CALLBACK:
		return o->cb(o, arg, ctx);
	case OPT_KIND_END:
	case OPT_KIND_GROUP:
		break;
	}
	return 0;
}

bool opts_parse(int argc, char **argv, const struct opt *opts, void *ctx, int *status)
{
	size_t n = opts_count(opts), k = 0, j = 2;
	struct option *longopts = xcalloc(n + 2, sizeof(*longopts));
	char *shortopts = xcalloc(2 * n + 4, 1);
	int c;

	memcpy(shortopts, "+:", 2);
	for (size_t i = 0; i < n; i++) {
		const struct opt *o = &opts[i];
		int val = o->short_name ? o->short_name : OPT_VAL_LONG + (int)i;

		if (o->kind == OPT_KIND_GROUP)
			continue;
		if (o->short_name) {
			shortopts[j++] = o->short_name;
			if (opt_takes_value(o))
				shortopts[j++] = ':';
		}
		if (o->long_name)
			longopts[k++] = (struct option){
				o->long_name, opt_takes_value(o) ? required_argument : no_argument,
				NULL, val,
			};
	}
	shortopts[j] = 'h';
	longopts[k] = (struct option){ "help", no_argument, NULL, 'h' };

	*status = 0;
	opterr = 0;
	for (;;) {
		const struct opt *o = NULL;
		int li = -1;

		c = getopt_long(argc, argv, shortopts, longopts, &li);
		if (c == -1)
			break;
		if (c == 'h') {
			opts_usage(stdout, tool_desc, opts);
			break;
		}
		if (c >= OPT_VAL_LONG && c < OPT_VAL_LONG + (int)n)
			o = &opts[c - OPT_VAL_LONG];
		for (size_t i = 0; !o && c > 0 && c < OPT_VAL_LONG && c != '?' && c != ':' &&
		     i < n; i++)
			if (opts[i].short_name == c)
				o = &opts[i];
		if (!o) {
			*status = option_error(c, argv);
			break;
		}
		*status = opt_apply(o, optarg, ctx, li < 0);
		if (*status)
			break;
	}
	free(longopts);
	free(shortopts);
	return c != -1;
}
