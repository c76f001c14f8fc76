/* SPDX-License-Identifier: MIT */
/*
 * The project's one number parser (parse.c): the library's environment
 * and /proc readers and the tool's command-line parser (which adds its
 * messages, ranges and K/M/G suffixes on top) all read numbers with it.
 *
 * The tool builds this file too (libneuronprof_common.a, lib/Makefile):
 * this header includes nothing but the C library's.
 */
#ifndef NEURONPROF_PARSE_H
#define NEURONPROF_PARSE_H

#include <stddef.h>
#include <stdint.h>

/*
 * nprof_parse_u64() - the @len bytes at @s, all of them, as an unsigned
 * number: decimal digits with @base 10; with @base 0 as C writes them
 * (a "0x" or "0X" prefix for hex, a leading 0 for octal). No sign, no
 * blanks. *@out is written on success only.
 *
 * Return: 0; -ERANGE when the digits exceed UINT64_MAX (even if a byte
 * that is no digit follows them, as strtoull() says); -EINVAL when there
 * are no digits or a byte is not one.
 */
int nprof_parse_u64(const char *s, size_t len, int base, uint64_t *out);

#endif /* NEURONPROF_PARSE_H */
