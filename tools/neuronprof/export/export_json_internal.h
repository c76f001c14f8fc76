/* SPDX-License-Identifier: MIT */
/*
 * neuronprof export --format json: what its two files share: the
 * exporter's state, the slots of what repeats, and the formatting of the
 * fast paths (export_json.c: every event and the format's table;
 * export_json_instrs.c: the instructions, nearly all of them, and the DMA
 * transfers). Below both, it calls neither.
 */
#ifndef NEURONPROF_TOOL_EXPORT_JSON_INTERNAL_H
#define NEURONPROF_TOOL_EXPORT_JSON_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "export/export.h"
#include "util/fmt.h"

/* Argument keys remembered by address (see key_slot()). */
#define KEY_CACHE	256
#define TAIL_CAT_MAX	64
#define SLOT		64

struct key_slot {
	const char *s;
	size_t len;
	char text[SLOT];	/* "key": */
};

/* Slice names remembered by their name_key (see name_slot()). */
#define NAME_CACHE	256
#define NAME_SLOT	48

struct name_slot {
	uint64_t key;		/* 0: empty */
	size_t len;
	char text[NAME_SLOT];	/* the name's bytes, no quotes */
};

/*
 * What repeats in the instructions of one name and opcode (see j_instrs();
 * the slots are looked up by xinstr_set(), export.h):
 * the name's bytes in one cache line, and for a named instruction those
 * from "args" to the first hex digit of "pc" in a second: the slots of the
 * opcodes a program runs stay in the cache while the output streams past.
 */
#define INSTR_ARGS	38
#define INSTR_NAME	46

struct instr_slot {
	uint64_t key;			/* name_key; 0: empty */
	uint64_t tag;			/* XINSTR_TAG(code, named) */
	uint8_t name_len, args_len;
	char name[INSTR_NAME];		/* the name's bytes, no quotes */
	/* Named instructions only (the others' are INSTR_ARGS_PLAIN): a second line. */
	char args[INSTR_ARGS];		/* ,"args":{"code":"0x000102","pc":"0x */
} __attribute__((aligned(64)));

#define INSTR_ARGS_PLAIN	",\"args\":{\"pc\":\"0x"

struct json_export {
	bool first;
	struct key_slot keys[KEY_CACHE];
	struct name_slot names[NAME_CACHE];
	/* What follows the name for one track, category and phase (see tail()). */
	const struct xtrack *tail_track;
	const char *tail_cat;
	char tail_ph;
	size_t tail_len;
	char tail[160];
	char frac[1000][4];	/* ".000" to ".999" */
	/* The microseconds of the last timestamp put_ts() wrote, and their digits. */
	uint64_t last_us;
	size_t last_us_len;
	char last_us_text[24];
	struct instr_slot instrs[XINSTR_CACHE];
	struct obuf ob;
};

/* Room the fast path asks for: enough for its longest event (FAST_STR_MAX strings). */
#define FAST_ROOM	4096
#define FAST_STR_MAX	128

/* A byte that JSON needs escaped, or that the fast path leaves to the escaper. */
static inline bool needs_escape(unsigned char c)
{
	return c < 0x20 || c >= 0x7f || c == '"' || c == '\\';
}

/*
 * Copies the string @s to @p while checking it; returns the end, or NULL
 * if it needs escaping or is longer than FAST_STR_MAX. Byte by byte, with
 * one table lookup each: names were just written byte by byte, and a wider
 * load of them (strlen()'s, a word's) would wait for those stores to land.
 */
static inline char *copy_plain(char *p, const char *s)
{
	/* 1 for the bytes that end the fast path: NUL and those needs_escape() names. */
	static const uint8_t stop[256] = {
		[0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x7f ... 0xff] = 1,
	};
	unsigned char c = 0;
	int i;

	for (i = 0; i < FAST_STR_MAX; i++) {
		c = (unsigned char)s[i];
		if (stop[c])
			break;
		p[i] = (char)c;
	}
	return c ? NULL : p + i;
}

static inline char *xj_put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

#define PUT(p, lit)	xj_put(p, lit, sizeof(lit) - 1)

/*
 * The first @len bytes of @src, a slot of @size bytes, at @p by a
 * fixed-size copy (a few moves, no call): of @small bytes when @len fits
 * in them, else of the whole slot; the room after @p holds it. Only @len
 * of them count: returns p + len.
 */
static inline __attribute__((always_inline)) char *put_slot(char *p, const char *src,
							    size_t len, size_t small,
							    size_t size)
{
	if (len <= small)
		memcpy(p, src, small);
	else
		memcpy(p, src, size);
	return p + len;
}

/* Eight nibbles of @v, most significant first, as lowercase hex characters in memory order. */
static inline uint64_t hex8(uint32_t v)
{
	uint64_t d = v, m;

	/* Each nibble to a byte of its own, the least significant in byte 0... */
	d = (d | d << 16) & 0x0000ffff0000ffffULL;
	d = (d | d << 8) & 0x00ff00ff00ff00ffULL;
	d = (d | d << 4) & 0x0f0f0f0f0f0f0f0fULL;
	/* ...then to '0'..'9' and 'a'..'f' (39 more than '0' + 10)... */
	m = ((d + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	d += 0x3030303030303030ULL + m * 39;
	/* ...the most significant first in memory. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	d = __builtin_bswap64(d);
#endif
	return d;
}

/*
 * Lowercase hex of @v, no leading zeros, at @p, which has 16 bytes of room:
 * the digits are made four (two table lookups) or eight at a time and
 * stored shifted so that the significant ones come first; the bytes past
 * the end are overwritten by what follows.
 */
static inline __attribute__((always_inline)) char *put_hex(char *p, uint64_t v)
{
	int n = (64 - __builtin_clzll(v | 1) + 3) / 4;
	uint64_t h[2];

	if (n <= 4) {
		/* Most arguments (addresses within a program, operands) are short. */
		uint16_t hi, lo;
		uint32_t w;

		memcpy(&hi, fmt_hex_pairs + 2 * ((v >> 8) & 0xff), 2);
		memcpy(&lo, fmt_hex_pairs + 2 * (v & 0xff), 2);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		w = (uint32_t)hi | (uint32_t)lo << 16;
#else
		w = (uint32_t)hi << 16 | lo;
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		w >>= 8 * (4 - n);
#else
		w <<= 8 * (4 - n);
#endif
		memcpy(p, &w, 4);
	} else if (n <= 8) {
		h[0] = hex8((uint32_t)v << (4 * (8 - n)));
		memcpy(p, h, 8);
	} else {
		v <<= 4 * (16 - n);
		h[0] = hex8((uint32_t)(v >> 32));
		h[1] = hex8((uint32_t)v);
		memcpy(p, h, 16);
	}
	return p + n;
}

/*
 * A member of the fast paths: the literal @lit (the separator, the key and
 * what opens the value), then @v in decimal (PUT_U64) or in hex digits
 * (PUT_HEX, put_hex()).
 */
#define PUT_U64(p, lit, v)	fmt_u64(PUT(p, lit), v)
#define PUT_HEX(p, lit, v)	put_hex(PUT(p, lit), v)

/*
 * A time in microseconds with the nanoseconds as three decimals, as
 * ts_us(). Events of a queue come microseconds apart or less: the digits of
 * the microseconds are those of the last timestamp more often than not, and
 * are then copied (a fixed-size copy; only their length counts).
 */
static inline char *put_ts(struct json_export *x, char *p, uint64_t ns)
{
	uint64_t us = ns / 1000;

	if (us != x->last_us) {
		x->last_us = us;
		x->last_us_len = (size_t)(fmt_u64(x->last_us_text, us) - x->last_us_text);
	}
	memcpy(p, x->last_us_text, sizeof(x->last_us_text));
	p += x->last_us_len;
	memcpy(p, x->frac[ns - us * 1000], 4);
	return p + 4;
}

/* A duration, as put_ts(): most are below a microsecond. */
static inline char *put_dur(const struct json_export *x, char *p, uint64_t ns)
{
	uint64_t us = ns / 1000;

	if (!us)
		*p++ = '0';
	else
		p = fmt_u64(p, us);
	memcpy(p, x->frac[ns - us * 1000], 4);
	return p + 4;
}

/*
 * The instructions of xformat.instrs and the DMA transfers of xformat.dmas
 * (export_json_instrs.c); what takes no fast path goes through @fmt's
 * slice() or instant() (xinstr_slice(), xdma_instant()), @fmt being the
 * format's table, which export_json.c hands down.
 */
int json_instrs(const struct xformat *fmt, void *ctx, const struct xtrack *t,
		const struct xinstr *v, size_t n);
int json_dmas(const struct xformat *fmt, void *ctx, const struct xtrack *t,
	      const struct xdma *v, size_t n);

#endif /* NEURONPROF_TOOL_EXPORT_JSON_INTERNAL_H */
