// SPDX-License-Identifier: MIT
/*
 * CRC32C (Castagnoli, reflected polynomial 0x82f63b78), the NTFF checksum.
 *
 * It is computed over every byte of a profile both when writing and when
 * reading, so its speed bounds the writer and reader benchmarks. On x86-64
 * with SSE4.2 the crc32 instruction is used on three independent streams at
 * once: the instruction has a latency of three cycles but a throughput of
 * one, so one stream would leave two thirds of it idle. The three partial
 * CRCs are then joined with "shift" tables: the CRC register is linear over
 * GF(2), so feeding L zero bytes is a fixed 32x32 bit matrix, applied as four
 * 256-entry byte tables. Elsewhere, slicing-by-8 tables are used.
 *
 * Large buffers (the data region of a profile) go faster still with
 * carry-less multiplication (VPCLMULQDQ on 512-bit registers), "folding"
 * 128-bit blocks forward: for a block A that sits D bits before block B,
 * A * x^D mod P is a product of A's two 64-bit halves with the constants
 * x^(63+D) and x^(D-1) mod P (one less than the distance because the
 * reflected product lands one bit low), and it can be XORed into B without
 * changing the message's residue. Four 512-bit accumulators fold 256 bytes
 * per step; they are folded into one 128-bit block, which the crc32
 * instruction finishes, together with the tail.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "util/internal.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#define HAVE_X86_CRC 1
#endif

#define CRC32C_POLY	0x82f63b78u

/* Stream lengths of the three-way loop; see crc_hw(). */
#define LONG_BLOCK	4096
#define SHORT_BLOCK	256

static uint32_t sw_table[8][256];
static uint32_t shift_long[4][256];	/* register after LONG_BLOCK zero bytes */
static uint32_t shift_short[4][256];	/* register after SHORT_BLOCK zero bytes */
static int hw_available;
static int clmul_available;
static uint64_t fold512[2];	/* folding constants for D = 512 bits */
static uint64_t fold128[2];	/* and D = 128 bits */
static uint64_t fold2048[2];	/* and D = 2048 bits */
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void sw_tables_init(void)
{
	uint32_t c;
	int n, k, b;

	for (n = 0; n < 256; n++) {
		c = (uint32_t)n;
		for (b = 0; b < 8; b++)
			c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		sw_table[0][n] = c;
	}
	for (n = 0; n < 256; n++)
		for (k = 1; k < 8; k++)
			sw_table[k][n] = (sw_table[k - 1][n] >> 8) ^ sw_table[0][sw_table[k - 1][n] & 0xff];
}

/* Raw register update (no inversion) with the tables. */
static uint32_t crc_sw_raw(uint32_t r, const unsigned char *p, size_t len)
{
	uint64_t w;

	while (len && ((uintptr_t)p & 7)) {
		r = (r >> 8) ^ sw_table[0][(r ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap64(w);
#endif
		w ^= r;
		r = sw_table[7][w & 0xff] ^ sw_table[6][(w >> 8) & 0xff] ^
		    sw_table[5][(w >> 16) & 0xff] ^ sw_table[4][(w >> 24) & 0xff] ^
		    sw_table[3][(w >> 32) & 0xff] ^ sw_table[2][(w >> 40) & 0xff] ^
		    sw_table[1][(w >> 48) & 0xff] ^ sw_table[0][w >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		r = (r >> 8) ^ sw_table[0][(r ^ *p++) & 0xff];
	return r;
}

/* Register after feeding @len zero bytes to register @r, bit by bit. */
static uint32_t zeros_raw(uint32_t r, size_t len)
{
	static const unsigned char zero[64];

	while (len) {
		size_t n = len < sizeof(zero) ? len : sizeof(zero);

		r = crc_sw_raw(r, zero, n);
		len -= n;
	}
	return r;
}

static void shift_table_init(uint32_t table[4][256], size_t len)
{
	uint32_t col[32];
	int i, k, b;

	for (i = 0; i < 32; i++)
		col[i] = zeros_raw(1u << i, len);
	for (k = 0; k < 4; k++)
		for (b = 0; b < 256; b++) {
			uint32_t v = 0;

			for (i = 0; i < 8; i++)
				if (b & (1 << i))
					v ^= col[8 * k + i];
			table[k][b] = v;
		}
}

static inline uint32_t shift(const uint32_t table[4][256], uint32_t r)
{
	return table[0][r & 0xff] ^ table[1][(r >> 8) & 0xff] ^
	       table[2][(r >> 16) & 0xff] ^ table[3][r >> 24];
}

/* x^n mod P in normal (unreflected) bit order; P = x^32 + 0x1edc6f41. */
static uint32_t xpow_mod(unsigned int n)
{
	uint64_t r = 1;

	while (n--) {
		r <<= 1;
		if (r & (1ULL << 32))
			r ^= (1ULL << 32) | 0x1edc6f41u;
	}
	return (uint32_t)r;
}

static uint32_t reflect32(uint32_t v)
{
	uint32_t r = 0;
	int i;

	for (i = 0; i < 32; i++)
		if (v & (1u << i))
			r |= 1u << (31 - i);
	return r;
}

/* [0] multiplies the block's first 8 bytes, [1] its last 8 bytes. */
static void fold_constants(uint64_t k[2], unsigned int distance)
{
	k[0] = (uint64_t)reflect32(xpow_mod(63 + distance)) << 32;
	k[1] = (uint64_t)reflect32(xpow_mod(distance - 1)) << 32;
}

static void crc_init(void)
{
	sw_tables_init();
#ifdef HAVE_X86_CRC
	__builtin_cpu_init();
	hw_available = __builtin_cpu_supports("sse4.2");
	if (hw_available) {
		shift_table_init(shift_long, LONG_BLOCK);
		shift_table_init(shift_short, SHORT_BLOCK);
		/*
		 * Folding 128 bits at a time measured slower than three crc32
		 * streams; 512-bit folding is twice as fast as them.
		 */
		clmul_available = __builtin_cpu_supports("pclmul") &&
				  __builtin_cpu_supports("avx512f") &&
				  __builtin_cpu_supports("vpclmulqdq");
		fold_constants(fold512, 512);
		fold_constants(fold128, 128);
		fold_constants(fold2048, 2048);
	}
#endif
}

#ifdef HAVE_X86_CRC
#include <xmmintrin.h>

/*
 * Software prefetch distance of the three-stream loop, ahead of the front
 * it reads in address order: for each 64 bytes that each stream consumes,
 * the three lines HW_PREFETCH_AHEAD bytes past the front are asked for.
 * A profile's data is checksummed one block (16 KiB) at a time, and the
 * caller then reads the block from the cache; without the prefetches
 * nothing asks for the next block while that happens, and the checksum of
 * memory that is not cached ran at 0.8-0.95 of a streaming read() of a
 * mapped file (AMD EPYC, Zen 2, no AVX-512); with them at 1.05-1.2.
 * 2, 4, 8, 12, 16 and 32 KiB were tried there; 8 KiB did best, as for the
 * folding loop. Prefetches never fault, so running past the end of the
 * buffer is harmless, and they cost nothing measurable on cached data.
 */
#define HW_PREFETCH_AHEAD	8192
#define PREFETCH3(a)	(_mm_prefetch((const char *)(a), _MM_HINT_T0), \
			 _mm_prefetch((const char *)(a) + 64, _MM_HINT_T0), \
			 _mm_prefetch((const char *)(a) + 128, _MM_HINT_T0))

/*
 * The CRC of 3 * @block bytes at @p continuing @c0: three streams of
 * @block bytes each, joined by shifting with @table (the shift over
 * @block bytes). Inlined with a constant @block, so the loops unroll as
 * they would written out.
 */
__attribute__((target("sse4.2"), always_inline))
static inline uint64_t crc_hw_streams(uint64_t c0, const unsigned char *p, size_t block,
				      const uint32_t table[4][256])
{
	const unsigned char *ahead = p + HW_PREFETCH_AHEAD;
	uint64_t c1 = 0, c2 = 0, w0, w1, w2;
	size_t i, k;

	for (i = 0; i < block; i += 64) {
		PREFETCH3(ahead);
		ahead += 3 * 64;
		for (k = i; k < i + 64; k += 8) {
			memcpy(&w0, p + k, 8);
			memcpy(&w1, p + block + k, 8);
			memcpy(&w2, p + 2 * block + k, 8);
			c0 = _mm_crc32_u64(c0, w0);
			c1 = _mm_crc32_u64(c1, w1);
			c2 = _mm_crc32_u64(c2, w2);
		}
	}
	c0 = shift(table, (uint32_t)c0) ^ (uint32_t)c1;
	return shift(table, (uint32_t)c0) ^ (uint32_t)c2;
}

__attribute__((target("sse4.2")))
static uint32_t crc_hw_raw(uint32_t r, const unsigned char *p, size_t len)
{
	uint64_t c0, w0;

	while (len && ((uintptr_t)p & 7)) {
		r = _mm_crc32_u8(r, *p++);
		len--;
	}
	c0 = r;
	/* Three streams of LONG_BLOCK, then SHORT_BLOCK, bytes, joined by shifting. */
	while (len >= 3 * LONG_BLOCK) {
		c0 = crc_hw_streams(c0, p, LONG_BLOCK, shift_long);
		p += 3 * LONG_BLOCK;
		len -= 3 * LONG_BLOCK;
	}
	while (len >= 3 * SHORT_BLOCK) {
		c0 = crc_hw_streams(c0, p, SHORT_BLOCK, shift_short);
		p += 3 * SHORT_BLOCK;
		len -= 3 * SHORT_BLOCK;
	}
	while (len >= 8) {
		memcpy(&w0, p, 8);
		c0 = _mm_crc32_u64(c0, w0);
		p += 8;
		len -= 8;
	}
	r = (uint32_t)c0;
	while (len--)
		r = _mm_crc32_u8(r, *p++);
	return r;
}
#endif

#ifdef HAVE_X86_CRC
#include <immintrin.h>

/* Minimum length for the folding path; below it the streams are faster. */
#define CLMUL_MIN	1024

/* Software prefetch distance of the folding loop (best of 1-32 KiB tried). */
#define PREFETCH_AHEAD	8192

__attribute__((target("pclmul,sse4.2")))
static inline __m128i fold(__m128i a, __m128i b, __m128i k)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00),
					   _mm_clmulepi64_si128(a, k, 0x11)), b);
}

#define LOAD(p)	_mm_loadu_si128((const __m128i *)(const void *)(p))

#define VTARGET __attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.2")))

VTARGET static inline __m512i vfold(__m512i a, __m512i b, __m512i k)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(a, k, 0x00),
					 _mm512_clmulepi64_epi128(a, k, 0x11), b, 0x96);
}

#define VLOAD(p) _mm512_loadu_si512((const void *)(p))

VTARGET static uint32_t crc_clmul_raw(uint32_t r, const unsigned char *p, size_t len)
{
	const __m512i k2048 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold2048[1],
								    (long long)fold2048[0]));
	const __m512i k512 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold512[1],
								   (long long)fold512[0]));
	const __m128i k128 = _mm_set_epi64x((long long)fold128[1], (long long)fold128[0]);
	__m512i y0, y1, y2, y3;
	__m128i x;
	uint64_t lo, hi;

	y0 = _mm512_xor_si512(VLOAD(p), _mm512_castsi128_si512(_mm_cvtsi32_si128((int)r)));
	y1 = VLOAD(p + 64);
	y2 = VLOAD(p + 128);
	y3 = VLOAD(p + 192);
	p += 256;
	len -= 256;
	while (len >= 256) {
		/*
		 * A buffer larger than the caches (the data region of a big
		 * profile) streams from DRAM, and the hardware prefetcher
		 * alone kept this loop at about 36 GB/s; asking for the lines
		 * PREFETCH_AHEAD bytes ahead brought it to the ~40 GB/s of a
		 * plain load loop, and costs nothing on cached data.
		 * Prefetches never fault, so running past the end is harmless.
		 */
		_mm_prefetch((const char *)p + PREFETCH_AHEAD, _MM_HINT_T0);
		_mm_prefetch((const char *)p + PREFETCH_AHEAD + 64, _MM_HINT_T0);
		_mm_prefetch((const char *)p + PREFETCH_AHEAD + 128, _MM_HINT_T0);
		_mm_prefetch((const char *)p + PREFETCH_AHEAD + 192, _MM_HINT_T0);
		y0 = vfold(y0, VLOAD(p), k2048);
		y1 = vfold(y1, VLOAD(p + 64), k2048);
		y2 = vfold(y2, VLOAD(p + 128), k2048);
		y3 = vfold(y3, VLOAD(p + 192), k2048);
		p += 256;
		len -= 256;
	}
	y0 = vfold(y0, y1, k512);
	y0 = vfold(y0, y2, k512);
	y0 = vfold(y0, y3, k512);
	while (len >= 64) {
		y0 = vfold(y0, VLOAD(p), k512);
		p += 64;
		len -= 64;
	}
	x = _mm512_extracti32x4_epi32(y0, 0);
	x = fold(x, _mm512_extracti32x4_epi32(y0, 1), k128);
	x = fold(x, _mm512_extracti32x4_epi32(y0, 2), k128);
	x = fold(x, _mm512_extracti32x4_epi32(y0, 3), k128);
	while (len >= 16) {
		x = fold(x, LOAD(p), k128);
		p += 16;
		len -= 16;
	}
	lo = (uint64_t)_mm_cvtsi128_si64(x);
	hi = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x));
	r = (uint32_t)_mm_crc32_u64(0, lo);
	r = (uint32_t)_mm_crc32_u64(r, hi);
	while (len--)
		r = _mm_crc32_u8(r, *p++);
	return r;
}
#endif

uint32_t nprof_crc32c_update_sw(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return ~crc_sw_raw(~crc, buf, len);
}

uint32_t nprof_crc32c_update(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
#ifdef HAVE_X86_CRC
	if (clmul_available && len >= CLMUL_MIN)
		return ~crc_clmul_raw(~crc, buf, len);
	if (hw_available)
		return ~crc_hw_raw(~crc, buf, len);
#endif
	return ~crc_sw_raw(~crc, buf, len);
}

/* The three-way crc32 path alone, for tests that compare implementations. */
uint32_t nprof_crc32c_update_crc32_insn(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
#ifdef HAVE_X86_CRC
	if (hw_available)
		return ~crc_hw_raw(~crc, buf, len);
#endif
	return ~crc_sw_raw(~crc, buf, len);
}

int nprof_crc32c_hw_available(void)
{
	pthread_once(&crc_once, crc_init);
	return hw_available;
}
