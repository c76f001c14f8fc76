/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the tool's JSON output, the library's one JSON writer
 * (lib/src/util/json.h) writing straight to a stream: output is produced
 * as it is described, never built in memory, so a dump of millions of
 * entries needs no more memory than one of ten. Layered on top here: a
 * key with every value (NULL for elements of arrays), NULL strings as
 * null, and the number forms the text output prints (fixed decimals,
 * "%.6g", hex strings).
 */
#ifndef NEURONPROF_TOOL_JSON_H
#define NEURONPROF_TOOL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/util/json.h"

struct json {
	struct nprof_json w;
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
