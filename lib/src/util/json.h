/* SPDX-License-Identifier: MIT */
/*
 * The project's one JSON writer: into a growing heap buffer (the library's
 * documents) or straight to a stdio stream as it is described (the tool's
 * output, whatever its size), compact or pretty (a newline and two spaces
 * per level before every member). Commas and nesting are tracked by the
 * writer; strings are escaped (quote, backslash, control characters, the
 * short forms of RFC 8259 where there is one) and invalid UTF-8 is
 * replaced by U+FFFD, so the output is always valid JSON. Errors are
 * sticky: after an allocation failure every call is a no-op and
 * nprof_json_finish() reports -ENOMEM.
 *
 * The tool builds this file too (libneuronprof_common.a, lib/Makefile):
 * this header includes nothing but the C library's.
 */
#ifndef NEURONPROF_JSON_H
#define NEURONPROF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	32

struct nprof_json {
	char *buf;
	size_t len;
	size_t cap;
	FILE *f;			/* when set: written there, not buffered */
	bool pretty;			/* newline and indent before every member */
	int err;			/* 0 or negative errno, sticky */
	int depth;
	bool first[JSON_MAX_DEPTH];	/* nothing written yet at this level */
	bool after_key;			/* a value completes "key": */
};

void nprof_json_init(struct nprof_json *j);
/*
 * Write to @f as the calls come instead: nothing is buffered, and the
 * caller checks @f for write errors (ferror()) and frees nothing.
 */
void nprof_json_init_file(struct nprof_json *j, FILE *f, bool pretty);
void nprof_json_obj_begin(struct nprof_json *j);
void nprof_json_obj_end(struct nprof_json *j);
void nprof_json_arr_begin(struct nprof_json *j);
void nprof_json_arr_end(struct nprof_json *j);
void nprof_json_key(struct nprof_json *j, const char *key);
void nprof_json_str(struct nprof_json *j, const char *s);
void nprof_json_u64(struct nprof_json *j, uint64_t v);
void nprof_json_i64(struct nprof_json *j, int64_t v);
/* NaN and infinities have no JSON form; they are written as null. */
void nprof_json_double(struct nprof_json *j, double v);
void nprof_json_null(struct nprof_json *j);
void nprof_json_bool(struct nprof_json *j, bool v);
/* A member of the object being written: "@key": value. */
void nprof_json_key_str(struct nprof_json *j, const char *key, const char *s);
void nprof_json_key_u64(struct nprof_json *j, const char *key, uint64_t v);
void nprof_json_key_bool(struct nprof_json *j, const char *key, bool v);
/* A value already in its JSON form (a number the caller formatted its own way). */
void nprof_json_raw(struct nprof_json *j, const char *text);

/*
 * Hand the NUL-terminated buffer to the caller (*buf, *len) or, on error,
 * free it. Return: 0, -ENOMEM, or -EINVAL if containers are left open.
 */
int nprof_json_finish(struct nprof_json *j, char **buf, size_t *len);

/* Free the buffer without handing it over. */
void nprof_json_discard(struct nprof_json *j);

#endif /* NEURONPROF_JSON_H */
