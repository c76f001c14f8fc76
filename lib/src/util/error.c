// SPDX-License-Identifier: MIT
/*
 * The one error convention: every failing call records a thread-local
 * message naming what was wrong, and returns -errno (int functions) or NULL
 * with errno set (pointer functions). Also the log sink and the version.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/internal.h"

/* Long enough for two paths and a reason. */
#define ERRBUF_SIZE	(2 * PATH_MAX + 256)

static __thread char errbuf[ERRBUF_SIZE];

static void errbuf_vset(const char *fmt, va_list ap)
{
	char tmp[ERRBUF_SIZE];

	/* Format into a scratch buffer so a message may quote the previous one. */
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	memcpy(errbuf, tmp, sizeof(errbuf));
}

int nprof_err(int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf_vset(fmt, ap);
	va_end(ap);
	return -errnum;
}

void *nprof_err_ptr(int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf_vset(fmt, ap);
	va_end(ap);
	errno = errnum;
	return NULL;
}

const char *nprof_err_current(void)
{
	return errbuf;
}

NPROF_API const char *nprof_strerror_last(void)
{
	return errbuf;
}

NPROF_API unsigned int nprof_version(void)
{
	return NPROF_VERSION_CODE(NPROF_VERSION_MAJOR, NPROF_VERSION_MINOR, NPROF_VERSION_PATCH);
}

#define STR_(x) #x
#define STR(x) STR_(x)

NPROF_API const char *nprof_version_string(void)
{
	return STR(NPROF_VERSION_MAJOR) "." STR(NPROF_VERSION_MINOR) "." STR(NPROF_VERSION_PATCH);
}

/* ---- logging ---------------------------------------------------------------- */

/* Protects log_fn, log_ctx and log_max (read on every message). */
static pthread_rwlock_t log_lock = PTHREAD_RWLOCK_INITIALIZER;
static nprof_log_fn log_fn;
static void *log_ctx;
static enum nprof_log_level log_max = NPROF_LOG_WARN;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void log_init_from_env(void)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	const char *v = getenv("NPROF_LOG_LEVEL");
	size_t i;

	if (!v)
		return;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcasecmp(v, names[i]))
			log_max = (enum nprof_log_level)i;
}

static void log_default(enum nprof_log_level level, const char *msg)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };

	fprintf(stderr, "neuronprof: %s%s\n", prefix[level], msg);
}

NPROF_API int nprof_log_set_handler(nprof_log_fn fn, void *ctx, enum nprof_log_level max_level)
{
	if ((unsigned int)max_level > NPROF_LOG_DEBUG)
		return nprof_err(EINVAL, "log level %d is not a valid nprof_log_level", (int)max_level);
	pthread_once(&log_once, log_init_from_env);
	pthread_rwlock_wrlock(&log_lock);
	log_fn = fn;
	log_ctx = ctx;
	log_max = max_level;
	pthread_rwlock_unlock(&log_lock);
	return 0;
}

void nprof_log(enum nprof_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	pthread_once(&log_once, log_init_from_env);
	pthread_rwlock_rdlock(&log_lock);
	if (level > log_max) {
		pthread_rwlock_unlock(&log_lock);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_fn)
		log_fn(level, msg, log_ctx);
	else
		log_default(level, msg);
	pthread_rwlock_unlock(&log_lock);
}
