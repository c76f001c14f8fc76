/* SPDX-License-Identifier: MIT */
/*
 * A small JSON writer into a growing heap buffer. Commas and nesting are
 * tracked by the writer; strings are escaped (quote, backslash, control
 * characters) and invalid UTF-8 is replaced by U+FFFD, so the output is
 * always valid JSON. Errors are sticky: after an allocation failure every
 * call is a no-op and json_finish() reports -ENOMEM.
 */
#ifndef NEURONPROF_JSON_H
#define NEURONPROF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH	16

struct json {
	char *buf;
	size_t len;
	size_t cap;
	int err;			/* 0 or negative errno, sticky */
	int depth;
	bool first[JSON_MAX_DEPTH];	/* nothing written yet at this level */
	bool after_key;			/* a value completes "key": */
};

void json_init(struct json *j);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
/* NaN and infinities have no JSON form; they are written as null. */
void json_double(struct json *j, double v);
void json_null(struct json *j);
void json_bool(struct json *j, bool v);

/*
 * Hand the NUL-terminated buffer to the caller (*buf, *len) or, on error,
 * free it. Return: 0, -ENOMEM, or -EINVAL if containers are left open.
 */
int json_finish(struct json *j, char **buf, size_t *len);

/* Free the buffer without handing it over. */
void json_discard(struct json *j);

#endif /* NEURONPROF_JSON_H */
