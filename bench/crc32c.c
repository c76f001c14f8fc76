// SPDX-License-Identifier: MIT
/*
 * CRC32C benchmark: what the NTFF checksum costs per byte on this CPU, for
 * each implementation the library has here (lib/src/util/crc32c.c: the one
 * it chooses at run time, the three-stream crc32 path alone, the table
 * path), on data in the L1 cache (16 KiB, an NTFF block), in L2 (256 KiB)
 * and in memory (256 MiB), in GB/s and in core cycles per byte. The cycles
 * come from the core clock estimated in the same run with a chain of
 * dependent additions (one cycle each), since a VM rarely offers the cycle
 * counter. The baseline is a plain pass that loads every 8 bytes of the same
 * memory and sums them: the last line is the chosen path's rate of memory
 * against it (a checksum at memory speed is 1.0).
 *
 * Usage: crc32c [ROUNDS]   (default 15; best of ROUNDS, interleaved)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "util/internal.h"

#define MEM_SIZE	(256u << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile uint64_t sink;

/* Core cycles per second: 4 x 10^7 dependent additions, best of 60. */
static double core_hz(void)
{
	double best = 1e9;

	for (int r = 0; r < 60; r++) {
		uint64_t x = 0;
		double t = now();

		for (long i = 0; i < 10000000; i++)
#if defined(__x86_64__) || defined(__i386__)
			__asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
					 : "+r"(x));
#elif defined(__aarch64__)
			__asm__ volatile("add %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1\n\t"
					 "add %0, %0, #1" : "+r"(x));
#else
			x += 4, __asm__ volatile("" : "+r"(x));
#endif
		t = now() - t;
		sink += x;
		if (t < best)
			best = t;
	}
	return 4e7 / best;
}

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static uint32_t load_pass(uint32_t crc, const void *buf, size_t len)
{
	const uint64_t *p = buf;
	uint64_t s0 = crc, s1 = 0, s2 = 0, s3 = 0;

	for (size_t i = 0; i + 4 <= len / 8; i += 4) {
		s0 += p[i];
		s1 += p[i + 1];
		s2 += p[i + 2];
		s3 += p[i + 3];
	}
	s0 += s1 + s2 + s3;
	return (uint32_t)(s0 ^ (s0 >> 32));
}

static const struct {
	const char *name;
	crc_fn fn;
} impls[] = {
	{ "library's choice", nprof_crc32c_update },
	{ "three crc32 streams", nprof_crc32c_update_crc32_insn },
	{ "slicing-by-8 tables", nprof_crc32c_update_sw },
	{ "plain load pass (baseline)", load_pass },
};
#define NIMPL	(sizeof(impls) / sizeof(impls[0]))

static const size_t sizes[] = { 16u << 10, 256u << 10, MEM_SIZE };
static const char *const where[] = { "L1 (16 KiB)", "L2 (256 KiB)", "memory (256 MiB)" };
#define NSIZE	3

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 15;
	double best[NIMPL][NSIZE], hz;
	unsigned char *mem;
	size_t i, k;

	if (rounds < 1) {
		fprintf(stderr, "usage: crc32c [ROUNDS]\n");
		return 2;
	}
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("crc32c: mmap");
		return 1;
	}
	for (i = 0; i < MEM_SIZE; i++)
		mem[i] = (unsigned char)(i * 131 + (i >> 13));
	/* The implementations agree, or the figures mean nothing. */
	for (k = 0; k < 3; k++)
		if (impls[k].fn(0, mem + 3, 100003) != impls[2].fn(0, mem + 3, 100003)) {
			fprintf(stderr, "crc32c: %s disagrees with the tables\n", impls[k].name);
			return 1;
		}
	hz = core_hz();
	for (i = 0; i < NIMPL; i++)
		for (k = 0; k < NSIZE; k++)
			best[i][k] = 1e9;
	for (int r = 0; r < rounds; r++)
		for (k = 0; k < NSIZE; k++)
			for (i = 0; i < NIMPL; i++) {
				/* Small sizes: enough repetitions for a millisecond or more. */
				size_t reps = k == NSIZE - 1 ? 1 : (16u << 20) / sizes[k];
				uint32_t c = 0;
				double t;

				if (i == 2 && k == NSIZE - 1 && r > 0)
					continue;	/* the table path: slow, one round */
				if (k < NSIZE - 1)
					impls[i].fn(0, mem, sizes[k]);	/* into the cache */
				t = now();
				for (size_t n = 0; n < reps; n++)
					c ^= impls[i].fn(c, mem, sizes[k]);
				t = (now() - t) / (double)reps;
				sink += c;
				if (t < best[i][k])
					best[i][k] = t;
			}
	printf("core clock (estimated: dependent additions, one a cycle): %.2f GHz\n", hz / 1e9);
	printf("the library uses: %s\n", nprof_crc32c_hw_available() ?
	       "the SSE4.2 crc32 instruction (three streams), or 512-bit VPCLMULQDQ folding where the CPU has AVX-512 and VPCLMULQDQ" :
	       "slicing-by-8 tables");
	for (k = 0; k < NSIZE; k++)
		for (i = 0; i < NIMPL; i++)
			printf("%-18s %-28s %8.2f GB/s  %6.3f cycles/byte\n", where[k], impls[i].name,
			       (double)sizes[k] / best[i][k] / 1e9, best[i][k] * hz / (double)sizes[k]);
	printf("ratio CRC32C of memory (library's choice) / a plain load pass of the same memory, the baseline measured in this run: %.2f\n",
	       best[NIMPL - 1][NSIZE - 1] / best[0][NSIZE - 1]);
	munmap(mem, MEM_SIZE);
	return 0;
}
