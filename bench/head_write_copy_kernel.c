// SPDX-License-Identifier: MIT
/*
 * The copies of head_write_copy.c, built as kernel code is built on x86-64:
 * general-purpose registers only (-mgeneral-regs-only: the kernel is built
 * with -mno-sse -mno-avx and may use SIMD only between kernel_fpu_begin()
 * and kernel_fpu_end()), no vectorising.
 */
#include <stddef.h>
#include <stdint.h>

#include "head_write_copy.h"

/*
 * The shape of the provider's copy (driver/neuron/provider.c,
 * nprof_nn_fill()): per 32 bytes of device entry one 64-byte ring entry,
 * its four header words (timestamp, sequence number and the two words
 * computed once per span) and the 32 bytes.
 */
void hwc_ring_entries(void *dst, const void *src, size_t len, uint64_t now)
{
	uint64_t *d = dst, seq = 0;
	const uint64_t *s = src;
	size_t i;

	for (i = 0; i < len / 32; i++, d += 8, s += 4) {
		d[0] = now;
		d[1] = seq++;
		d[2] = 0x0000000100000000ULL;
		d[3] = 0x0000000700000001ULL + (i >> 1);
		d[4] = s[0];
		d[5] = s[1];
		d[6] = s[2];
		d[7] = s[3];
	}
}

/* The consumed bytes copied with 8-byte loads and stores. */
void hwc_words(void *dst, const void *src, size_t len)
{
	uint64_t *d = dst;
	const uint64_t *s = src;
	size_t i;

	for (i = 0; i < len / 8; i++)
		d[i] = s[i];
}

/* The consumed bytes copied with rep movsb, the kernel's memcpy() on FSRM/ERMS CPUs. */
void hwc_movsb(void *dst, const void *src, size_t len)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(len) : : "memory");
}

/*
 * A packed encoding, not built: one 64-byte header before the block of
 * device entries, then the entries with rep movsb.
 */
void hwc_packed(void *dst, const void *src, size_t len, uint64_t now)
{
	uint64_t *d = dst;

	d[0] = now;
	d[1] = 0;
	d[2] = 0x0000000100000000ULL;
	d[3] = len;
	d[4] = d[5] = d[6] = d[7] = 0;
	hwc_movsb(d + 8, src, len);
}
