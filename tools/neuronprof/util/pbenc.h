/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): a streaming protobuf encoder for the Perfetto export.
 *
 * Fields go straight into one large buffer as tags and varints. A nested
 * message is opened with its tag and one byte reserved for its length;
 * closing it writes the length there, and only when the length needs more
 * than one varint byte (128 bytes or more) is the body moved up to make
 * room, so the encoding stays minimal while nothing is sized twice. The
 * buffer is written out with fwrite() between top-level messages once it
 * holds PBENC_FLUSH bytes; a message larger than what is left grows it.
 *
 * No allocation or error check per field: the buffer always has
 * PBENC_SLACK bytes of room beyond what pb_need() was told, which covers
 * any run of fixed-size fields (tags, varints, fixed64, doubles) a caller
 * writes between two pb_need() calls; strings and bytes call pb_need()
 * themselves. When growing fails, nomem is set, the buffered bytes are
 * dropped and later fields land in the slack of the old buffer, never
 * written: the caller reports the failure at the end.
 */
#ifndef NEURONPROF_TOOL_PBENC_H
#define NEURONPROF_TOOL_PBENC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PBENC_FLUSH	(1u << 20)
#define PBENC_SLACK	4096
#define PBENC_DEPTH	8

enum pb_wire {
	PB_VARINT = 0,
	PB_FIXED64 = 1,
	PB_LEN = 2,
	PB_FIXED32 = 5,
};

struct pbenc {
	FILE *f;
	uint8_t *buf;
	size_t len, cap;		/* cap excludes the slack */
	size_t open[PBENC_DEPTH];	/* offset of each open message's length byte */
	int depth;
	bool nomem;			/* an allocation failed: the output is incomplete */
};

/* 0, or -1 when out of memory. */
int pb_init(struct pbenc *e, FILE *f);
void pb_free(struct pbenc *e);
/* Room for @n more bytes (plus the slack); sets nomem on failure. */
void pb_grow(struct pbenc *e, size_t n);
/* Writes out what is buffered; only between top-level messages. */
void pb_flush(struct pbenc *e);

static inline void pb_need(struct pbenc *e, size_t n)
{
	if (e->len + n > e->cap)
		pb_grow(e, n);
}

static inline uint8_t *pb_varint_at(uint8_t *p, uint64_t v)
{
	/* Most values of a trace are small: one or two bytes without a loop. */
	if (v < 0x80) {
		*p = (uint8_t)v;
		return p + 1;
	}
	if (v < 0x4000) {
		p[0] = (uint8_t)(v | 0x80);
		p[1] = (uint8_t)(v >> 7);
		return p + 2;
	}
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * pb_varint_at() of a value that is seldom small (a timestamp), without a
 * loop: 3 and 4 bytes written out, and from 2^28 to 2^56 the seven-bit
 * groups spread over the bytes of one word and written in one store of 8
 * bytes, of which the varint's count. The 8 bytes must be writable (the
 * cursor's slack, pbenc.h).
 */
static inline uint8_t *pb_varint_wide_at(uint8_t *p, uint64_t v)
{
	uint64_t x;
	int n;

	if (v < 0x4000 || v >= 1ULL << 56)
		return pb_varint_at(p, v);
	if (v < 1u << 21) {
		p[0] = (uint8_t)(v | 0x80);
		p[1] = (uint8_t)(v >> 7 | 0x80);
		p[2] = (uint8_t)(v >> 14);
		return p + 3;
	}
	if (v < 1u << 28) {
		p[0] = (uint8_t)(v | 0x80);
		p[1] = (uint8_t)(v >> 7 | 0x80);
		p[2] = (uint8_t)(v >> 14 | 0x80);
		p[3] = (uint8_t)(v >> 21);
		return p + 4;
	}
	x = (v & 0x7f) | (v & 0x3f80) << 1 | (v & 0x1fc000) << 2 | (v & 0xfe00000) << 3 |
	    (v & 0x7f0000000ULL) << 4 | (v & 0x3f800000000ULL) << 5 |
	    (v & 0x1fc0000000000ULL) << 6 | (v & 0xfe000000000000ULL) << 7;
	/* 2 to 8 bytes, a continuation bit in all but the last. */
	n = (63 - __builtin_clzll(v)) / 7 + 1;
	x |= 0x0080808080808080ULL >> (8 * (8 - n));
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	memcpy(p, &x, 8);
	return p + n;
}

static inline void pb_raw_varint(struct pbenc *e, uint64_t v)
{
	e->len = (size_t)(pb_varint_at(e->buf + e->len, v) - e->buf);
}

static inline void pb_tag(struct pbenc *e, uint32_t field, enum pb_wire wire)
{
	pb_raw_varint(e, (uint64_t)field << 3 | wire);
}

static inline void pb_uint(struct pbenc *e, uint32_t field, uint64_t v)
{
	pb_tag(e, field, PB_VARINT);
	pb_raw_varint(e, v);
}

/* int32/int64 fields: negative values as 10-byte two's complement, as protobuf does. */
static inline void pb_int(struct pbenc *e, uint32_t field, int64_t v)
{
	pb_uint(e, field, (uint64_t)v);
}

static inline void pb_fixed64(struct pbenc *e, uint32_t field, uint64_t v)
{
	pb_tag(e, field, PB_FIXED64);
	for (int i = 0; i < 8; i++)
		e->buf[e->len++] = (uint8_t)(v >> (8 * i));
}

static inline void pb_double(struct pbenc *e, uint32_t field, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	pb_fixed64(e, field, v);
}

static inline void pb_bytes(struct pbenc *e, uint32_t field, const void *p, size_t n)
{
	pb_need(e, n + 16);
	if (e->nomem)
		return;
	pb_tag(e, field, PB_LEN);
	pb_raw_varint(e, n);
	memcpy(e->buf + e->len, p, n);
	e->len += n;
}

static inline void pb_str(struct pbenc *e, uint32_t field, const char *s)
{
	pb_bytes(e, field, s, strlen(s));
}

/* Opens nested message @field; every pb_open() has its pb_close(). */
static inline void pb_open(struct pbenc *e, uint32_t field)
{
	pb_tag(e, field, PB_LEN);
	e->open[e->depth++] = e->len++;
}

static inline void pb_close(struct pbenc *e)
{
	size_t at = e->open[--e->depth];
	size_t n = e->len - at - 1;

	/* Out of memory: the output is abandoned; only the nesting is kept. */
	if (e->nomem)
		return;

	if (n < 0x80) {
		e->buf[at] = (uint8_t)n;
		return;
	}
	/* A longer length: move the body up by the extra varint bytes. */
	{
		uint8_t tmp[10];
		size_t k = (size_t)(pb_varint_at(tmp, n) - tmp);

		pb_need(e, k);
		if (e->nomem)
			return;
		memmove(e->buf + at + k, e->buf + at + 1, n);
		memcpy(e->buf + at, tmp, k);
		e->len += k - 1;
	}
}

/*
 * Cursor encoding, for hot paths: the same fields written through a local
 * pointer that the compiler can keep in a register (a store through a
 * uint8_t pointer may alias e->len and e->buf, so the functions above
 * reload both after every byte). pb_cursor() starts, pb_commit() ends; in
 * between only pbc_* calls, into room the caller asked pb_need() for (the
 * slack covers the length bytes pbc_close() may add).
 */
static inline uint8_t *pb_cursor(struct pbenc *e)
{
	return e->buf + e->len;
}

static inline void pb_commit(struct pbenc *e, uint8_t *p)
{
	e->len = (size_t)(p - e->buf);
}

static inline uint8_t *pbc_uint(uint8_t *p, uint32_t field, uint64_t v)
{
	return pb_varint_at(pb_varint_at(p, (uint64_t)field << 3 | PB_VARINT), v);
}

static inline uint8_t *pbc_int(uint8_t *p, uint32_t field, int64_t v)
{
	return pbc_uint(p, field, (uint64_t)v);
}

static inline uint8_t *pbc_fixed64(uint8_t *p, uint32_t field, uint64_t v)
{
	p = pb_varint_at(p, (uint64_t)field << 3 | PB_FIXED64);
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static inline uint8_t *pbc_double(uint8_t *p, uint32_t field, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	return pbc_fixed64(p, field, v);
}

static inline uint8_t *pbc_bytes(uint8_t *p, uint32_t field, const void *s, size_t n)
{
	p = pb_varint_at(pb_varint_at(p, (uint64_t)field << 3 | PB_LEN), n);
	memcpy(p, s, n);
	return p + n;
}

/* Opens nested message @field; *@at is where pbc_close() puts its length. */
static inline uint8_t *pbc_open(uint8_t *p, uint32_t field, uint8_t **at)
{
	p = pb_varint_at(p, (uint64_t)field << 3 | PB_LEN);
	*at = p;
	return p + 1;
}

static inline uint8_t *pbc_close(uint8_t *at, uint8_t *p)
{
	size_t n = (size_t)(p - at - 1);
	uint8_t tmp[10];
	size_t k;

	if (n < 0x80) {
		*at = (uint8_t)n;
		return p;
	}
	/* As pb_close(): move the body up by the extra varint bytes. */
	k = (size_t)(pb_varint_at(tmp, n) - tmp);
	memmove(at + k, at + 1, n);
	memcpy(at, tmp, k);
	return p + k - 1;
}

#endif /* NEURONPROF_TOOL_PBENC_H */
