// SPDX-License-Identifier: MIT
/*
 * The JSON writer of json.h, shared by the library and the tool.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

void nprof_json_init(struct nprof_json *j)
{
	memset(j, 0, sizeof(*j));
	j->first[0] = true;
}

void nprof_json_init_file(struct nprof_json *j, FILE *f, bool pretty)
{
	nprof_json_init(j);
	j->f = f;
	j->pretty = pretty;
}

static bool reserve(struct nprof_json *j, size_t more)
{
	size_t cap;
	char *p;

	if (j->err)
		return false;
	if (j->len + more + 1 <= j->cap)
		return true;
	cap = j->cap ? j->cap : 4096;
	while (cap < j->len + more + 1) {
		if (cap > SIZE_MAX / 2) {
			j->err = -ENOMEM;
			return false;
		}
		cap *= 2;
	}
	p = realloc(j->buf, cap);
	if (!p) {
		j->err = -ENOMEM;
		return false;
	}
	j->buf = p;
	j->cap = cap;
	return true;
}

static void put(struct nprof_json *j, const char *s, size_t n)
{
	if (j->f) {
		fwrite(s, 1, n, j->f);
		return;
	}
	if (!reserve(j, n))
		return;
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

/* A newline and the indent of the current level (pretty output). */
static void indent(struct nprof_json *j)
{
	put(j, "\n", 1);
	for (int i = 0; i < j->depth; i++)
		put(j, "  ", 2);
}

/* Separator before a value or a key at the current level. */
static void sep(struct nprof_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		put(j, ",", 1);
	j->first[j->depth] = false;
	if (j->pretty && j->depth > 0)
		indent(j);
}

static void open_container(struct nprof_json *j, char c)
{
	sep(j);
	if (j->depth + 1 >= JSON_MAX_DEPTH) {
		if (!j->err)
			j->err = -EINVAL;
		return;
	}
	put(j, &c, 1);
	j->depth++;
	j->first[j->depth] = true;
}

static void close_container(struct nprof_json *j, char c)
{
	bool empty;

	if (j->depth == 0 || j->after_key) {
		if (!j->err)
			j->err = -EINVAL;
		return;
	}
	empty = j->first[j->depth];
	j->depth--;
	if (j->pretty && !empty)
		indent(j);
	put(j, &c, 1);
}

void nprof_json_obj_begin(struct nprof_json *j)
{
	open_container(j, '{');
}

void nprof_json_obj_end(struct nprof_json *j)
{
	close_container(j, '}');
}

void nprof_json_arr_begin(struct nprof_json *j)
{
	open_container(j, '[');
}

void nprof_json_arr_end(struct nprof_json *j)
{
	close_container(j, ']');
}

/*
 * Length of the valid UTF-8 sequence at @s (at most @n bytes), or 0 if it
 * is not one: overlong forms, surrogates and code points above U+10FFFF are
 * invalid (RFC 3629).
 */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* The characters JSON escapes with a letter, and their letters. */
static const char letter_escaped[] = "\"\\\n\r\t\b\f";
static const char escape_letter[] = "\"\\nrtbf";

static void put_escaped(struct nprof_json *j, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, run;
	const char *e;
	char esc[8];

	put(j, "\"", 1);
	while (i < n) {
		/* Copy the longest run that needs no escaping in one go. */
		run = i;
		while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\')
			run++;
		if (run > i) {
			put(j, str + i, run - i);
			i = run;
			continue;
		}
		e = memchr(letter_escaped, s[i], sizeof(letter_escaped) - 1);
		if (e) {
			esc[0] = '\\';
			esc[1] = escape_letter[e - letter_escaped];
			put(j, esc, 2);
		} else if (s[i] < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", s[i]);
			put(j, esc, 6);
		} else {
			size_t len = utf8_seq(s + i, n - i);

			if (len) {
				put(j, str + i, len);
				i += len;
				continue;
			}
			put(j, "\\ufffd", 6);
		}
		i++;
	}
	put(j, "\"", 1);
}

void nprof_json_key(struct nprof_json *j, const char *key)
{
	sep(j);
	put_escaped(j, key);
	if (j->pretty)
		put(j, ": ", 2);
	else
		put(j, ":", 1);
	j->after_key = true;
}

void nprof_json_str(struct nprof_json *j, const char *s)
{
	sep(j);
	put_escaped(j, s ? s : "");
}

void nprof_json_u64(struct nprof_json *j, uint64_t v)
{
	char b[24];
	int n = snprintf(b, sizeof(b), "%" PRIu64, v);

	sep(j);
	put(j, b, (size_t)n);
}

void nprof_json_i64(struct nprof_json *j, int64_t v)
{
	char b[24];
	int n = snprintf(b, sizeof(b), "%" PRId64, v);

	sep(j);
	put(j, b, (size_t)n);
}

void nprof_json_double(struct nprof_json *j, double v)
{
	char b[40];
	int n;

	if (!isfinite(v)) {
		nprof_json_null(j);
		return;
	}
	/* 17 significant digits round-trip any double. */
	n = snprintf(b, sizeof(b), "%.17g", v);
	sep(j);
	put(j, b, (size_t)n);
}

void nprof_json_raw(struct nprof_json *j, const char *text)
{
	sep(j);
	put(j, text, strlen(text));
}

void nprof_json_null(struct nprof_json *j)
{
	sep(j);
	put(j, "null", 4);
}

void nprof_json_bool(struct nprof_json *j, bool v)
{
	sep(j);
	if (v)
		put(j, "true", 4);
	else
		put(j, "false", 5);
}

void nprof_json_key_str(struct nprof_json *j, const char *key, const char *s)
{
	nprof_json_key(j, key);
	nprof_json_str(j, s);
}

void nprof_json_key_u64(struct nprof_json *j, const char *key, uint64_t v)
{
	nprof_json_key(j, key);
	nprof_json_u64(j, v);
}

void nprof_json_key_bool(struct nprof_json *j, const char *key, bool v)
{
	nprof_json_key(j, key);
	nprof_json_bool(j, v);
}

int nprof_json_finish(struct nprof_json *j, char **buf, size_t *len)
{
	int err = j->err;

	if (!err && (j->depth || j->after_key))
		err = -EINVAL;
	if (!err && !j->buf && !reserve(j, 0))
		err = j->err;
	if (err) {
		nprof_json_discard(j);
		return err;
	}
	j->buf[j->len] = '\0';
	*buf = j->buf;
	*len = j->len;
	j->buf = NULL;
	j->len = j->cap = 0;
	return 0;
}

void nprof_json_discard(struct nprof_json *j)
{
	free(j->buf);
	j->buf = NULL;
	j->len = j->cap = 0;
}
