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

/* Writes @v in decimal at @p (no NUL); returns the end. At most 20 chars. */
static inline char *fmt_u64(char *p, uint64_t v)
{
	char tmp[20];
	int i = 20;

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(p, tmp + i, (size_t)(20 - i));
	return p + (20 - i);
}

/* Writes @v in lowercase hex, at least @min digits, no prefix; at most 16 chars. */
static inline char *fmt_hex(char *p, uint64_t v, int min)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int i = 16;

	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v || 16 - i < min);
	memcpy(p, tmp + i, (size_t)(16 - i));
	return p + (16 - i);
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
	char *p = ob_reserve(o, 21);

	if (v < 0) {
		*p++ = '-';
		ob_commit(o, fmt_u64(p, (uint64_t)0 - (uint64_t)v));
	} else {
		ob_commit(o, fmt_u64(p, (uint64_t)v));
	}
}

#endif /* NEURONPROF_TOOL_FMT_H */
