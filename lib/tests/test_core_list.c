// SPDX-License-Identifier: MIT
/*
 * Host tests of the project's one core-list parser (util/parse.c,
 * nprof_parse_core_list()), which the library's NEURON_RT_INSPECT_EVENT_FILTER_NC
 * (test_env.c) and the tool's --cores (tools/tests/t/cores.sh) both read
 * through: the bits it sets, the bound it is given, and a message per kind
 * of mistake that names the element and quotes the list.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "util/parse.h"

static int bit(const uint8_t *map, unsigned int c)
{
	return (map[c / 8] >> (c % 8)) & 1;
}

/* The cores set in @map (of @nbits), as "0,2,5" for comparison. */
static const char *set_cores(const uint8_t *map, unsigned int nbits)
{
	static char out[1024];
	size_t n = 0;

	out[0] = '\0';
	for (unsigned int c = 0; c < nbits; c++)
		if (bit(map, c))
			n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%u", n ? "," : "", c);
	return out;
}

TEST(core_list_elements_and_ranges)
{
	uint8_t map[32];
	char why[256] = "";

	CHECK_INT(nprof_parse_core_list("0-3,8,10-11,255", map, 256, why, sizeof(why)), 0);
	CHECK_STR(set_cores(map, 256), "0,1,2,3,8,10,11,255");
	CHECK_INT(nprof_parse_core_list("7", map, 256, why, sizeof(why)), 0);
	CHECK_STR(set_cores(map, 256), "7");	/* the map is cleared first */
	CHECK_INT(nprof_parse_core_list("3-3,1,1", map, 256, why, sizeof(why)), 0);
	CHECK_STR(set_cores(map, 256), "1,3");
	CHECK_STR(why, "");
}

TEST(core_list_bound_is_the_callers)
{
	uint8_t map[2] = { 0xff, 0xff };
	char why[256];

	CHECK_INT(nprof_parse_core_list("0,9", map, 10, why, sizeof(why)), 0);
	CHECK_STR(set_cores(map, 10), "0,9");
	CHECK_INT(map[1], 0x02);	/* (nbits + 7) / 8 bytes, all cleared first */
	CHECK_INT(nprof_parse_core_list("0-10", map, 10, why, sizeof(why)), -ERANGE);
	CHECK_STR(why, "core index 10 is out of range [0, 9] in '0-10'");
}

/* Each mistake: its return, and the message naming the element. */
TEST(core_list_mistakes_named)
{
	static const struct {
		const char *in;
		int ret;
		const char *why;
	} cases[] = {
		{ "", -EINVAL, "empty core list" },
		{ "0,,2", -EINVAL, "empty element in '0,,2'" },
		{ "0,", -EINVAL, "empty element in '0,'" },
		{ "0-3,x", -EINVAL, "bad core index 'x' in '0-3,x'" },
		{ "1-", -EINVAL, "bad core index '' in '1-'" },
		{ "-1", -EINVAL, "bad core index '' in '-1'" },
		{ " 1", -EINVAL, "bad core index ' 1' in ' 1'" },
		{ "+1", -EINVAL, "bad core index '+1' in '+1'" },
		{ "0x1", -EINVAL, "bad core index '0x1' in '0x1'" },
		{ "1-2-3", -EINVAL, "bad core index '2-3' in '1-2-3'" },
		{ "3-1", -EINVAL, "range '3-1' is reversed in '3-1'" },
		{ "0,256", -ERANGE, "core index 256 is out of range [0, 255] in '0,256'" },
		{ "99999999999999999999", -ERANGE,
		  "core index 99999999999999999999 is out of range [0, 255] in '99999999999999999999'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t map[32];
		char why[256] = "";

		CHECK_INT(nprof_parse_core_list(cases[i].in, map, 256, why, sizeof(why)),
			  cases[i].ret);
		CHECK_STR(why, cases[i].why);
	}
}

/* A message longer than the caller's buffer is cut, never overrun. */
TEST(core_list_message_fits_the_buffer)
{
	uint8_t map[32];
	char why[16 + 1];

	memset(why, 'z', sizeof(why));
	CHECK_INT(nprof_parse_core_list("0-3,x", map, 256, why, 16), -EINVAL);
	CHECK_STR(why, "bad core index ");
	CHECK_INT(why[16], 'z');
}

HARNESS_MAIN
