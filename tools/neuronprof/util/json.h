/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): a streaming JSON writer.
 *
 * Output is produced as it is described, never built in memory, so a dump
 * of millions of entries needs no more memory than one of ten. The writer
 * tracks nesting to place commas; keys are given for members of objects and
 * NULL for elements of arrays. Strings are escaped per RFC 8259 (control
 * characters as \u00XX; bytes >= 0x80 pass through, so UTF-8 stays UTF-8
 * and other bytes are replaced by U+FFFD to keep the document valid).
 */
#ifndef NEURONPROF_TOOL_JSON_H
#define NEURONPROF_TOOL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	32

struct json {
	FILE *f;
	bool pretty;		/* newline and indent before every member */
	int depth;
	bool first[JSON_MAX_DEPTH];
};

void jw_init(struct json *j, FILE *f, bool pretty);
void jw_obj_begin(struct json *j, const char *key);
void jw_obj_end(struct json *j);
void jw_arr_begin(struct json *j, const char *key);
void jw_arr_end(struct json *j);
void jw_str(struct json *j, const char *key, const char *val);	/* NULL -> null */
void jw_u64(struct json *j, const char *key, uint64_t val);
void jw_i64(struct json *j, const char *key, int64_t val);
/* A number with @decimals digits after the point, as the text output prints it. */
void jw_fixed(struct json *j, const char *key, double val, int decimals);
/* A finite number in six significant digits ("%.6g": 1.5e-30, 0.0421). */
void jw_g(struct json *j, const char *key, double val);
void jw_null(struct json *j, const char *key);
void jw_bool(struct json *j, const char *key, bool val);
void jw_hex(struct json *j, const char *key, uint64_t val);	/* "0x..." string */
/* Ends the document with a newline. */
void jw_finish(struct json *j);

/* Writes @s as a JSON string literal (with quotes). */
void jw_write_string(FILE *f, const char *s);

#endif /* NEURONPROF_TOOL_JSON_H */
