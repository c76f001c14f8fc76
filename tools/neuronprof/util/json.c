// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the tool's layer over the library's JSON writer (see json.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "util/json.h"

void jw_init(struct json *j, FILE *f, bool pretty)
{
	nprof_json_init_file(&j->w, f, pretty);
}

static void key(struct json *j, const char *k)
{
	if (k)
		nprof_json_key(&j->w, k);
}

void jw_write_string(FILE *f, const char *s)
{
	struct nprof_json w;

	nprof_json_init_file(&w, f, false);
	nprof_json_str(&w, s);
}

void jw_obj_begin(struct json *j, const char *k)
{
	key(j, k);
	nprof_json_obj_begin(&j->w);
}

void jw_obj_end(struct json *j)
{
	nprof_json_obj_end(&j->w);
}

void jw_arr_begin(struct json *j, const char *k)
{
	key(j, k);
	nprof_json_arr_begin(&j->w);
}

void jw_arr_end(struct json *j)
{
	nprof_json_arr_end(&j->w);
}

void jw_str(struct json *j, const char *k, const char *val)
{
	key(j, k);
	if (val)
		nprof_json_str(&j->w, val);
	else
		nprof_json_null(&j->w);
}

void jw_u64(struct json *j, const char *k, uint64_t val)
{
	key(j, k);
	nprof_json_u64(&j->w, val);
}

void jw_i64(struct json *j, const char *k, int64_t val)
{
	key(j, k);
	nprof_json_i64(&j->w, val);
}

void jw_fixed(struct json *j, const char *k, double val, int decimals)
{
	char b[352];	/* DBL_MAX in %f */

	snprintf(b, sizeof(b), "%.*f", decimals, val);
	key(j, k);
	nprof_json_raw(&j->w, b);
}

void jw_g(struct json *j, const char *k, double val)
{
	char b[32];

	snprintf(b, sizeof(b), "%.6g", val);
	key(j, k);
	nprof_json_raw(&j->w, b);
}

void jw_null(struct json *j, const char *k)
{
	key(j, k);
	nprof_json_null(&j->w);
}

void jw_bool(struct json *j, const char *k, bool val)
{
	key(j, k);
	nprof_json_bool(&j->w, val);
}

void jw_hex(struct json *j, const char *k, uint64_t val)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%" PRIx64, val);
	key(j, k);
	nprof_json_str(&j->w, b);
}

void jw_finish(struct json *j)
{
	fputc('\n', j->w.f);
}
