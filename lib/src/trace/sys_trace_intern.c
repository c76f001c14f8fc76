// SPDX-License-Identifier: MIT
/*
 * The system trace's string table: interned strings (attribute values,
 * node paths) live until the process ends, so an event can point at them
 * after whatever they were copied from is gone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/internal.h"
#include "trace/sys_trace_internal.h"

#define INTERN_BUCKETS	1024
#define INTERN_MAX	65536
#define INTERN_MAX_LEN	4095

struct intern_node {
	struct intern_node *next;
	char s[];
};

static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static struct intern_node *intern_tab[INTERN_BUCKETS];
static size_t intern_count;

/* The interning itself; -errno in *@err on failure, no message. */
static const char *intern(const char *s, size_t len, int *err)
{
	struct intern_node *n;
	uint32_t h = 2166136261u;	/* FNV-1a */
	const char *ret = NULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	pthread_mutex_lock(&intern_lock);
	for (n = intern_tab[h % INTERN_BUCKETS]; n; n = n->next)
		if (!strcmp(n->s, s)) {
			ret = n->s;
			goto out;
		}
	if (intern_count >= INTERN_MAX) {
		*err = -ENOSPC;
		goto out;
	}
	n = malloc(sizeof(*n) + len + 1);
	if (!n) {
		*err = -ENOMEM;
		goto out;
	}
	memcpy(n->s, s, len + 1);
	n->next = intern_tab[h % INTERN_BUCKETS];
	intern_tab[h % INTERN_BUCKETS] = n;
	intern_count++;
	ret = n->s;
out:
	pthread_mutex_unlock(&intern_lock);
	return ret;
}

const char *nprof_st_intern(const char *s)
{
	size_t len;
	int err = 0;

	if (!s)
		return NULL;
	len = strnlen(s, INTERN_MAX_LEN + 1);
	return len > INTERN_MAX_LEN ? NULL : intern(s, len, &err);
}

NPROF_API const char *nprof_sys_trace_intern(const char *s)
{
	const char *ret;
	size_t len;
	int err = 0;

	if (!s)
		return nprof_err_ptr(EINVAL, "string to intern is NULL");
	len = strnlen(s, INTERN_MAX_LEN + 1);
	if (len > INTERN_MAX_LEN)
		return nprof_err_ptr(EINVAL, "string to intern is longer than %d bytes", INTERN_MAX_LEN);
	ret = intern(s, len, &err);
	if (err == -ENOSPC)
		return nprof_err_ptr(ENOSPC, "cannot intern '%.64s': %d strings are interned already",
				     s, INTERN_MAX);
	if (err)
		return nprof_err_ptr(ENOMEM, "cannot intern a string of %zu bytes", len);
	return ret;
}
