// SPDX-License-Identifier: MIT
/*
 * head_write_copy: what the copy of one head write can cost on this CPU,
 * natively, for the head-write goal of Documentation/neuron-rig.rst ("What
 * a captured head write costs"): the provider's copy at most 2x a memcpy
 * of the consumed bytes. The rig measures the whole head write in a QEMU
 * guest under TCG; this measures only the copy, on the host, with the
 * consumed bytes (64 device entries of 64 bytes, 4096 bytes) hot in the
 * cache, as the rig's memcpy baseline has them.
 *
 * The copies are in head_write_copy_kernel.c, built as kernel code is
 * (general-purpose registers only); they model the shape of the provider's
 * loop, they are not the provider. Each is timed against glibc's memcpy()
 * of the same 4096 bytes (SIMD), the rig's baseline, measured in the same
 * run; each figure is the best of ROUNDS rounds of REPS copies.
 *
 *   - the provider's shape before raw format 5 (uapi NEURONPROF_RAW_PACKED):
 *     a 64-byte ring entry per 32 device bytes, four header words and the
 *     32 bytes (8192 bytes written), for comparison;
 *   - the consumed bytes with 8-byte loads and stores: any copy of them
 *     without SIMD, whatever the format;
 *   - the consumed bytes with rep movsb, the kernel's memcpy() on
 *     FSRM/ERMS CPUs;
 *   - the provider's shape since raw format 5: one packed record, a
 *     64-byte header before the block of device entries, copied with the
 *     kernel's memcpy() (rep movsb on FSRM/ERMS CPUs; head_write.c).
 *
 * The last line is the provider's shape against memcpy, with the old
 * per-entry shape's beside it.
 *
 *   head_write_copy [ROUNDS]   (default 200)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "head_write_copy.h"

#define CONSUMED	4096	/* 64 device entries of 64 bytes */
#define REPS		1000

static unsigned char src[CONSUMED] __attribute__((aligned(64)));
static unsigned char dst[2 * CONSUMED + 64] __attribute__((aligned(64)));

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Every copy as one signature: @now is the timestamp the encodings write. */
static void c_memcpy(void *d, const void *s, size_t len, uint64_t now)
{
	(void)now;
	memcpy(d, s, len);
}

static void c_words(void *d, const void *s, size_t len, uint64_t now)
{
	(void)now;
	hwc_words(d, s, len);
}

static void c_movsb(void *d, const void *s, size_t len, uint64_t now)
{
	(void)now;
	hwc_movsb(d, s, len);
}

enum shape { MEMCPY, RING, WORDS, MOVSB, PACKED, SHAPES };

static const struct {
	const char *name;
	void (*copy)(void *dst, const void *src, size_t len, uint64_t now);
} shapes[SHAPES] = {
	[MEMCPY] = { "glibc memcpy() of the consumed bytes (the baseline)", c_memcpy },
	[RING] = { "the old shape (raw format 4): ring entries, GPRs", hwc_ring_entries },
	[WORDS] = { "the consumed bytes, 8-byte GPR copy", c_words },
	[MOVSB] = { "the consumed bytes, rep movsb", c_movsb },
	[PACKED] = { "the provider's shape: packed header + rep movsb", hwc_packed },
};

static double round_ns(enum shape s)
{
	double t = now_ns();
	int i;

	for (i = 0; i < REPS; i++) {
		shapes[s].copy(dst, src, CONSUMED, (uint64_t)i);
		__asm__ volatile("" : : "r"(dst) : "memory");
	}
	return (now_ns() - t) / REPS;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200, r, s;
	double best[SHAPES];

	if (rounds < 1) {
		fprintf(stderr, "usage: head_write_copy [ROUNDS >= 1]\n");
		return 2;
	}
	memset(src, 0x5a, sizeof(src));
	for (s = 0; s < SHAPES; s++)
		best[s] = 1e30;
	/* Interleaved, so that a disturbance of the machine hits every shape alike. */
	for (r = 0; r < rounds; r++)
		for (s = 0; s < SHAPES; s++) {
			double t = round_ns((enum shape)s);

			if (t < best[s])
				best[s] = t;
		}
	printf("head_write_copy: 64 device entries of 64 bytes per head write, hot in the cache, "
	       "best of %d rounds of %d\n", rounds, REPS);
	for (s = 0; s < SHAPES; s++)
		printf("  %-52s %7.1f ns  %5.2fx memcpy\n", shapes[s].name, best[s], best[s] / best[MEMCPY]);
	printf("ratio provider's copy shape / glibc memcpy() measured in this run: %.2fx "
	       "(goal <= 2x); the old per-entry shape: %.2fx\n",
	       best[PACKED] / best[MEMCPY], best[RING] / best[MEMCPY]);
	return 0;
}
