/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): number formatting and a write buffer for the exporters'
 * hot paths. An export formats several numbers per entry for millions of
 * entries, and printf's format parsing was most of its time; these do the
 * same digits with none of it.
 */
#ifndef NEURONPROF_TOOL_FMT_H
#define NEURONPROF_TOOL_FMT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Decimal digits of @v (1 for 0). */
static inline int fmt_u64_digits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
		1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	/* floor(log10(2^bits)) approximates the count; one compare corrects it. */
	int t = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;

	return t + ((v | 1) >= pow10[t]);
}

/*
 * Writes @v in decimal at @p (no NUL); returns the end. At most 20 chars.
 * The digits go straight to their place, two at a time from a table: a
 * number built in a scratch array and copied after was read back before its
 * byte stores had landed, a store-forwarding stall per number.
 */
static inline char *fmt_u64(char *p, uint64_t v)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char *end = p + fmt_u64_digits(v), *q = end;

	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		q -= 2;
		q[0] = pairs[2 * r];
		q[1] = pairs[2 * r + 1];
	}
	if (v >= 10) {
		q[-2] = pairs[2 * v];
		q[-1] = pairs[2 * v + 1];
	} else {
		q[-1] = (char)('0' + v);
	}
	return end;
}

/* The two lowercase hex digits of every byte value, in memory order. */
static const char fmt_hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* Writes @v in lowercase hex, at least @min digits, no prefix; at most 16 chars. */
static inline char *fmt_hex(char *p, uint64_t v, int min)
{
	int n = (64 - __builtin_clzll(v | 1) + 3) / 4;
	char *q;

	if (n < min)
		n = min;
	/* Two digits per byte of @v, from the end; a leading odd digit alone. */
	for (q = p + n; q - p >= 2; q -= 2, v >>= 8) {
		q[-2] = fmt_hex_pairs[2 * (v & 0xff)];
		q[-1] = fmt_hex_pairs[2 * (v & 0xff) + 1];
	}
	if (q > p)
		q[-1] = fmt_hex_pairs[2 * (v & 0xf) + 1];
	return p + n;
}

/* Writes @v in decimal, with a minus sign when negative; at most 20 chars. */
static inline char *fmt_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return fmt_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return fmt_u64(p, (uint64_t)v);
}

/* Copies the NUL-terminated @s at @p; returns the end. */
static inline char *fmt_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

#define OBUF_SIZE	(64 * 1024)

/* Output collected in memory and written with fwrite() when full. */
struct obuf {
	FILE *f;
	size_t len;
	char buf[OBUF_SIZE];
};

static inline void ob_flush(struct obuf *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, o->f);	/* errors: ferror() at the end */
	o->len = 0;
}

/* Room for @n more bytes (n <= OBUF_SIZE); write them at the pointer, then ob_commit(). */
static inline char *ob_reserve(struct obuf *o, size_t n)
{
	if (o->len + n > OBUF_SIZE)
		ob_flush(o);
	return o->buf + o->len;
}

static inline void ob_commit(struct obuf *o, const char *end)
{
	o->len = (size_t)(end - o->buf);
}

static inline void ob_mem(struct obuf *o, const void *p, size_t n)
{
	if (n > OBUF_SIZE / 2) {
		ob_flush(o);
		fwrite(p, 1, n, o->f);
		return;
	}
	memcpy(ob_reserve(o, n), p, n);
	o->len += n;
}

static inline void ob_str(struct obuf *o, const char *s)
{
	ob_mem(o, s, strlen(s));
}

static inline void ob_u64(struct obuf *o, uint64_t v)
{
	ob_commit(o, fmt_u64(ob_reserve(o, 20), v));
}

static inline void ob_i64(struct obuf *o, int64_t v)
{
	ob_commit(o, fmt_i64(ob_reserve(o, 21), v));
}

#endif /* NEURONPROF_TOOL_FMT_H */
