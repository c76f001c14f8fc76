/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the tool's bottom layer (util/): messages and the exit
 * status convention, number and list parsing, allocation that cannot
 * fail, and the names of the uapi's numbers. Everything above includes it;
 * it includes nothing of the tool's. The progress bar has its own header,
 * progress.h.
 *
 * Exit status of every subcommand: 0 on success, 1 when the work failed
 * (a file that does not read, no device, a problem that doctor found), 2
 * for a command line that is wrong (unknown option or value). Errors go to
 * stderr as "neuronprof: <subcommand>: <what was wrong>".
 */
#ifndef NEURONPROF_UTIL_H
#define NEURONPROF_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EXIT_FAIL	1
#define EXIT_USAGE	2

/* ---- messages (util.c) ------------------------------------------------- */

/* Name of the running subcommand, for messages ("dump", ...). */
extern const char *tool_cmd;

/* "neuronprof: <cmd>: <msg>" on stderr; returns EXIT_FAIL. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* As fail(), followed by "Try 'neuronprof <cmd> --help'."; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "neuronprof: <cmd>: warning: <msg>" on stderr. */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * option_error() - the usage error for what getopt_long() returned for a bad
 * option: ':' (an option without its value, with "+:" leading the short
 * options) or anything else (an unknown option). Returns EXIT_USAGE.
 */
int option_error(int c, char **argv);

/*
 * check_operands() - checks that exactly @want operands (0 or 1) follow the
 * options at argv[optind]; @name names the one wanted ("FILE", "PATH").
 * Return: 0, or EXIT_USAGE after the usage error.
 */
int check_operands(int argc, char **argv, int want, const char *name);

/*
 * flush_stdout() - writes out what stdout holds and reports a failed write
 * made at any time. Return: 0, or EXIT_FAIL after the message.
 */
int flush_stdout(void);

/* ---- parsing (util.c) ------------------------------------------------------ */

/*
 * parse_u64() - a whole decimal (or 0x hex) number in [min, max], with an
 * optional binary suffix K, M, G (KiB, MiB, GiB) when @suffixes is set (the
 * one parser of every size option: record's and top's --ring-size). A
 * negative value is refused saying what the option takes; a range in a
 * message is in the suffixes when the option takes them.
 * Return: 0, or -1 after printing a usage error naming @what and the value.
 */
int parse_u64(const char *what, const char *s, uint64_t min, uint64_t max, bool suffixes,
	      uint64_t *out);

/*
 * parse_seconds() - a duration in seconds, whole or with a decimal fraction
 * ("2", "1.5", "0.25"; no sign, exponent or unit), into nanoseconds in
 * [min_ns, max_ns]: the one parser of every option given in seconds.
 * Return: 0, or -1 after printing a usage error naming @what and the value.
 */
int parse_seconds(const char *what, const char *s, uint64_t min_ns, uint64_t max_ns,
		  uint64_t *out_ns);

/*
 * parse_core_list() - "0", "0,2,4", "0-3" and combinations (the library's
 * nprof_parse_core_list(), src/util/parse.h), or "all", into a bitmap of
 * @nbits bits (all set for "all").
 * Return: 0, or -1 after printing a usage error naming @what, the bad
 * element and the whole list, and for a malformed one what a list is like.
 */
int parse_core_list(const char *what, const char *s, uint8_t *bitmap, unsigned int nbits);

/* ---- memory (util.c) ------------------------------------------------------ */

/*
 * Allocation that cannot fail: on failure each prints "out of memory" and
 * exits with EXIT_FAIL (the profile's reading is of no use half done).
 *   xrealloc()  realloc() of @n bytes (at least one)
 *   xcalloc()   calloc() of @n elements of @size (at least one)
 *   xstrdup()   strdup()
 *   xgrow()     @v with room for element @n, *@cap doubled when full
 *   xgrow1()    @v with @n + 1 elements, the new one zeroed
 */
void *xrealloc(void *p, size_t n);
void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s);
void *xgrow(void *v, size_t n, size_t *cap, size_t size);
void *xgrow1(void *v, size_t n, size_t size);

/* XAPPEND(v, n): array @v grown by one zeroed element, counted in @n: its address. */
#define XAPPEND(v, n)	((v) = xgrow1((v), (n), sizeof(*(v))), &(v)[(n)++])

/* ---- ordering ------------------------------------------------------------- */

/*
 * cmp_int() - -1, 0 or 1 as @l is below, equal to or above @r, for qsort()
 * comparators (as the kernel's cmp_int()): several keys chain with "?:",
 * a key that sorts from the largest swaps its operands.
 */
#define cmp_int(l, r)	(((l) > (r)) - ((l) < (r)))

/* ---- names (util.c) -------------------------------------------------------- */

const char *arch_name(uint32_t arch);		/* "trn1", "inf2", "trn2", "unknown" */
const char *engine_name(uint32_t engine);	/* "tensor", ..., "sync", NULL if unknown */
const char *queue_name(uint32_t queue_type);	/* "TRACE", ..., or "UNKNOWN" */
const char *clock_name(uint32_t clock_id);	/* "CLOCK_MONOTONIC", ... */
const char *capture_kind_name(uint32_t kind);	/* "session", "model", ... */
const char *raw_format_name(uint32_t format);	/* "neuron-v2", "neuron-v3", "unknown" */
/* "produced" (NEURONPROF_CLOCK_PRODUCED), "captured", or "unknown". */
const char *clock_domain_name(uint32_t domain);

/* @n bytes as lower-case hex into @buf (2 * @n + 1 bytes); returns @buf. */
char *hex_bytes(char *buf, const unsigned char *p, size_t n);

#endif /* NEURONPROF_UTIL_H */
