// SPDX-License-Identifier: MIT
/*
 * The number parser of parse.h.
 */
#include <errno.h>
#include <stdbool.h>

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
