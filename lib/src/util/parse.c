// SPDX-License-Identifier: MIT
/*
 * The number parser and the core-list parser of parse.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/parse.h"

/* The value of the digit @c in @base, or -1. */
static int digit(char c, unsigned int base)
{
	int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return (unsigned int)d < base ? d : -1;
}

int nprof_parse_u64(const char *s, size_t len, int base, uint64_t *out)
{
	unsigned int b = 10;
	bool over = false;
	uint64_t v = 0;
	size_t i = 0, start;
	int d;

	if (base == 0 && len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    digit(s[2], 16) >= 0) {
		b = 16;
		i = 2;
	} else if (base == 0 && len > 0 && s[0] == '0') {
		b = 8;
	}
	start = i;
	for (; i < len && (d = digit(s[i], b)) >= 0; i++) {
		if (v > (UINT64_MAX - (unsigned int)d) / b)
			over = true;
		v = v * b + (unsigned int)d;
	}
	if (i == start)
		return -EINVAL;
	if (over)
		return -ERANGE;
	if (i != len)
		return -EINVAL;
	*out = v;
	return 0;
}

/* One index "N" of a core list; the message quotes the element and the list. */
static int parse_core(const char *whole, const char *s, size_t len, unsigned int nbits,
		      unsigned int *core, char *why, size_t why_len)
{
	uint64_t v = 0;
	int ret = nprof_parse_u64(s, len, 10, &v);

	if (ret == -EINVAL) {
		snprintf(why, why_len, "bad core index '%.*s' in '%s'", (int)len, s, whole);
		return -EINVAL;
	}
	if (ret == -ERANGE || v >= nbits) {
		snprintf(why, why_len, "core index %.*s is out of range [0, %u] in '%s'", (int)len,
			 s, nbits - 1, whole);
		return -ERANGE;
	}
	*core = (unsigned int)v;
	return 0;
}

int nprof_parse_core_list(const char *s, uint8_t *bitmap, unsigned int nbits, char *why,
			  size_t len)
{
	const char *p = s;

	memset(bitmap, 0, (nbits + 7) / 8);
	if (!*s) {
		snprintf(why, len, "empty core list");
		return -EINVAL;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *dash = memchr(p, '-', n);
		unsigned int lo, hi, c;
		int ret;

		if (!n) {
			snprintf(why, len, "empty element in '%s'", s);
			return -EINVAL;
		}
		if (dash) {
			ret = parse_core(s, p, (size_t)(dash - p), nbits, &lo, why, len);
			if (!ret)
				ret = parse_core(s, dash + 1, n - (size_t)(dash - p) - 1, nbits, &hi,
						 why, len);
			if (ret)
				return ret;
			if (lo > hi) {
				snprintf(why, len, "range '%.*s' is reversed in '%s'", (int)n, p, s);
				return -EINVAL;
			}
		} else {
			ret = parse_core(s, p, n, nbits, &lo, why, len);
			if (ret)
				return ret;
			hi = lo;
		}
		for (c = lo; c <= hi; c++)
			bitmap[c / 8] |= (uint8_t)(1u << (c % 8));
		if (!end)
			return 0;
		p = end + 1;
	}
}
