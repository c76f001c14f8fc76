// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the streaming JSON writer (see json.h).
 */
#include <inttypes.h>
#include <string.h>

#include "util/json.h"

void jw_init(struct json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	j->first[0] = true;
}

/* Length of the valid UTF-8 sequence at @s, or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0xc2)
		return 0;
	if (s[0] < 0xe0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] < 0xf0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] < 0xf5) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void jw_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		unsigned char c = *s;

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			s++;
		} else if (c == '\n') {
			fputs("\\n", f);
			s++;
		} else if (c == '\t') {
			fputs("\\t", f);
			s++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			s++;
		} else if (c < 0x80) {
			fputc(c, f);
			s++;
		} else {
			size_t n = utf8_len(s);

			if (n) {
				fwrite(s, 1, n, f);
				s += n;
			} else {
				fputs("\\ufffd", f);
				s++;
			}
		}
	}
	fputc('"', f);
}

static void indent(struct json *j)
{
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator and key of the next value. */
static void member(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->pretty && j->depth > 0)
		indent(j);
	if (key) {
		jw_write_string(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (j->pretty && !empty)
		indent(j);
	fputc(c, j->f);
}

void jw_obj_begin(struct json *j, const char *key)
{
	open_(j, key, '{');
}

void jw_obj_end(struct json *j)
{
	close_(j, '}');
}

void jw_arr_begin(struct json *j, const char *key)
{
	open_(j, key, '[');
}

void jw_arr_end(struct json *j)
{
	close_(j, ']');
}

void jw_str(struct json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		jw_write_string(j->f, val);
	else
		fputs("null", j->f);
}

void jw_u64(struct json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void jw_fixed(struct json *j, const char *key, double val, int decimals)
{
	member(j, key);
	fprintf(j->f, "%.*f", decimals, val);
}

void jw_g(struct json *j, const char *key, double val)
{
	member(j, key);
	fprintf(j->f, "%.6g", val);
}

void jw_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void jw_i64(struct json *j, const char *key, int64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void jw_bool(struct json *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void jw_hex(struct json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->f, "\"0x%" PRIx64 "\"", val);
}

void jw_finish(struct json *j)
{
	fputc('\n', j->f);
}
