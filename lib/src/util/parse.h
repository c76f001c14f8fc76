/* SPDX-License-Identifier: MIT */
/*
 * The project's one number parser and one core-list parser (parse.c): the
 * library's environment and /proc readers and the tool's command-line
 * parser (which adds its messages, ranges and K/M/G suffixes on top of the
 * numbers, and "all" on top of the core lists) all read them with it.
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

/*
 * nprof_parse_core_list() - the core list @s ("0", "0,2,4", "0-3",
 * "0-3,8": decimal indexes below @nbits, a range "lo-hi" with lo <= hi; no
 * sign, no blanks, no empty element) into @bitmap, @nbits bits (core c is
 * bit c % 8 of byte c / 8), which it clears first.
 *
 * Return: 0; or, with a message in @why (@len bytes) naming the element
 * that is wrong and quoting @s whole, for the caller to put after the name
 * of the variable or option @s came from: -ERANGE for an index of @nbits or
 * more, -EINVAL for anything else.
 */
int nprof_parse_core_list(const char *s, uint8_t *bitmap, unsigned int nbits, char *why,
			  size_t len);

#endif /* NEURONPROF_PARSE_H */
