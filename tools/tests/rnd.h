/* SPDX-License-Identifier: MIT */
/*
 * The test programs' pseudo-random numbers (xorshift64): define RND_SEED
 * before including, so each program keeps its own repeatable sequence.
 */
#ifndef NPROF_TESTS_RND_H
#define NPROF_TESTS_RND_H

#include <stdint.h>

#ifndef RND_SEED
#error "define RND_SEED before including rnd.h"
#endif

static uint64_t rng = RND_SEED;

static inline uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A value of a random width: 0 to 64 significant bits. */
static inline uint64_t rnd_width(void)
{
	unsigned int bits = (unsigned int)(rnd() % 65);

	return bits ? rnd() >> (64 - bits) : 0;
}

#endif
