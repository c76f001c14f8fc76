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
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

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

static void crc_init(void)
{
	sw_tables_init();
#ifdef HAVE_X86_CRC
	__builtin_cpu_init();
	hw_available = __builtin_cpu_supports("sse4.2");
	if (hw_available) {
		shift_table_init(shift_long, LONG_BLOCK);
		shift_table_init(shift_short, SHORT_BLOCK);
	}
#endif
}

#ifdef HAVE_X86_CRC
__attribute__((target("sse4.2")))
static uint32_t crc_hw_raw(uint32_t r, const unsigned char *p, size_t len)
{
	uint64_t c0, c1, c2, w0, w1, w2;
	size_t i;

	while (len && ((uintptr_t)p & 7)) {
		r = _mm_crc32_u8(r, *p++);
		len--;
	}
	c0 = r;
	/* Three streams of LONG_BLOCK bytes, joined by shifting. */
	while (len >= 3 * LONG_BLOCK) {
		c1 = c2 = 0;
		for (i = 0; i < LONG_BLOCK; i += 8) {
			memcpy(&w0, p + i, 8);
			memcpy(&w1, p + LONG_BLOCK + i, 8);
			memcpy(&w2, p + 2 * LONG_BLOCK + i, 8);
			c0 = _mm_crc32_u64(c0, w0);
			c1 = _mm_crc32_u64(c1, w1);
			c2 = _mm_crc32_u64(c2, w2);
		}
		c0 = shift(shift_long, (uint32_t)c0) ^ (uint32_t)c1;
		c0 = shift(shift_long, (uint32_t)c0) ^ (uint32_t)c2;
		p += 3 * LONG_BLOCK;
		len -= 3 * LONG_BLOCK;
	}
	while (len >= 3 * SHORT_BLOCK) {
		c1 = c2 = 0;
		for (i = 0; i < SHORT_BLOCK; i += 8) {
			memcpy(&w0, p + i, 8);
			memcpy(&w1, p + SHORT_BLOCK + i, 8);
			memcpy(&w2, p + 2 * SHORT_BLOCK + i, 8);
			c0 = _mm_crc32_u64(c0, w0);
			c1 = _mm_crc32_u64(c1, w1);
			c2 = _mm_crc32_u64(c2, w2);
		}
		c0 = shift(shift_short, (uint32_t)c0) ^ (uint32_t)c1;
		c0 = shift(shift_short, (uint32_t)c0) ^ (uint32_t)c2;
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

uint32_t nprof_crc32c_update_sw(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return ~crc_sw_raw(~crc, buf, len);
}

uint32_t nprof_crc32c_update(uint32_t crc, const void *buf, size_t len)
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
