/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): metrics in Prometheus's text exposition format 0.0.4, and
 * the atomic file writer of node exporter's textfile collector
 * (Documentation/analysis.rst, "neuronprof exporter").
 *
 * A struct prom holds series (a family and a set of labels) with their
 * current values; prom_render() writes every family that has a series as
 * its HELP and TYPE lines, once, followed by all its series in the order
 * they were made. Label values are escaped as the format says (backslash,
 * double quote and line feed), HELP texts likewise (backslash, line feed).
 */
#ifndef NEURONPROF_TOOL_PROM_H
#define NEURONPROF_TOOL_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum prom_type { PROM_COUNTER, PROM_GAUGE };

/* How a series' value is written. */
enum prom_unit {
	PROM_INT,		/* the integer @u */
	PROM_NS_AS_SECONDS,	/* @u nanoseconds, written as exact decimal seconds */
	PROM_REAL,		/* the double @d */
};

struct prom_family {
	const char *name;
	const char *help;
	enum prom_type type;
	enum prom_unit unit;
};

struct prom_series {
	size_t fam;
	char *labels;		/* `a="x",b="y"`, escaped; "" for none */
	uint64_t u;
	double d;
};

struct prom {
	const struct prom_family *fams;
	size_t nfams;
	struct prom_series *s;
	size_t n, cap;
};

void prom_init(struct prom *p, const struct prom_family *fams, size_t nfams);
void prom_free(struct prom *p);

/*
 * prom_series() - the series of family @fam with the labels given as
 * name, value pairs ending with NULL (a NULL value leaves its label out):
 * the existing one, else a new one with value 0. Returns its index.
 */
size_t prom_series(struct prom *p, size_t fam, ...) __attribute__((sentinel));

/* Escape @v as a label value into @out (at least 2 * strlen(v) + 1 bytes). */
void prom_escape_label(char *out, const char *v);

/*
 * prom_render() - the exposition of @p into a new buffer (*@buf, *@len;
 * free()). Return: 0, or -1 on allocation failure.
 */
int prom_render(const struct prom *p, char **buf, size_t *len);

/*
 * textfile_check() - whether @path may be the target of textfile_write():
 * it must end with ".prom" (the collector reads nothing else), its
 * directory must exist, and it must be a new name or a regular file (not
 * a symbolic link, directory, FIFO, socket or device node).
 * Return: 0, or -1 with the reason in @why (@len bytes).
 */
int textfile_check(const char *path, char *why, size_t len);

/*
 * textfile_write() - replace @path by @len bytes of @buf atomically, as the
 * prometheus-node-exporter-collectors scripts do: a temporary file in the
 * same directory (a hidden name the collector ignores), written, made
 * 0644, fsync()ed, renamed over @path, the directory fsync()ed. A reader
 * sees the old file or the new one, never a part. The target is checked
 * again (textfile_check()) before the rename.
 * Return: 0, or -1 with the reason in @why (the temporary file removed).
 */
int textfile_write(const char *path, const char *buf, size_t len, char *why, size_t wlen);

#endif /* NEURONPROF_TOOL_PROM_H */
