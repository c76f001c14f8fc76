/* SPDX-License-Identifier: MIT */
/*
 * The C test harness of every layer (KTAP-style output), in two forms:
 *
 * Registered cases (the library's host tests, compat's): TEST() registers a
 * case, CHECK*() record failures without stopping the case, SKIP() ends it
 * as skipped. The program prints "ok N - name" / "not ok N - name" per case
 * and ends with "N passed, N failed, N skipped"; it exits 1 if any case
 * failed. A program registers at most MAX_TESTS cases: one more makes the
 * run fail with a "not ok" line that says so, rather than leave cases out
 * unnoticed.
 *
 * Results as they are found (programs that walk a recording or a VM run and
 * report each finding: lib/vmtests*, the tool's unit programs, the vendor
 * hook's decoder test): harness_result() prints "ok N - what" or
 * "not ok N - what", harness_skip() "ok N - what # SKIP why",
 * harness_diag() a "# " line under it, harness_check() a result with its
 * reason on such a line when it failed; all three may be called from several
 * threads. harness_done() prints "N passed, N failed" (", N skipped" when
 * some were) and returns the exit status, 1 if any failed.
 *
 * Defining HARNESS_STANDALONE before including this file leaves out the
 * library (CHECK_ERR_MSG), for a program built without its headers.
 */
#ifndef NPROF_TEST_HARNESS_H
#define NPROF_TEST_HARNESS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef HARNESS_STANDALONE
#include <neuronprof/neuronprof.h>
#endif

/* HARNESS_ASAN: 1 in a build with AddressSanitizer (GCC's or Clang's way of saying so), else 0. */
#if defined(__SANITIZE_ADDRESS__)
#define HARNESS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HARNESS_ASAN 1
#endif
#endif
#ifndef HARNESS_ASAN
#define HARNESS_ASAN 0
#endif

typedef void (*test_fn)(void);

struct test_case {
	const char *name;
	test_fn fn;
};

#ifndef MAX_TESTS
#define MAX_TESTS 256
#endif
static struct test_case tests[MAX_TESTS];
static int ntests;
static int ntests_dropped;
static int cur_failed;
static const char *cur_skip;

static inline void harness_register(const char *name, test_fn fn)
{
	if (ntests < MAX_TESTS)
		tests[ntests++] = (struct test_case){ name, fn };
	else
		ntests_dropped++;
}

#define TEST(name) \
	static void name(void); \
	__attribute__((constructor)) static void register_##name(void) \
	{ \
		harness_register(#name, name); \
	} \
	static void name(void)

#define FAIL(fmt, ...) \
	do { \
		printf("#   %s:%d: " fmt "\n", __FILE__, __LINE__, ##__VA_ARGS__); \
		cur_failed = 1; \
	} while (0)

#define CHECK(cond) \
	do { \
		if (!(cond)) \
			FAIL("CHECK(%s) failed", #cond); \
	} while (0)

#define CHECK_INT(a, b) \
	do { \
		long long a_ = (long long)(a), b_ = (long long)(b); \
		if (a_ != b_) \
			FAIL("%s == %lld, expected %s == %lld", #a, a_, #b, b_); \
	} while (0)

#define CHECK_STR(a, b) \
	do { \
		const char *a_ = (a), *b_ = (b); \
		if (!a_ || !b_ || strcmp(a_, b_)) \
			FAIL("%s == \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

#define CHECK_CONTAINS(hay, needle) \
	do { \
		const char *h_ = (hay), *n_ = (needle); \
		if (!h_ || !strstr(h_, n_)) \
			FAIL("%s == \"%s\" does not contain \"%s\"", #hay, h_ ? h_ : "(null)", n_); \
	} while (0)

#ifndef HARNESS_STANDALONE
/* expr must return -err and leave exactly msg as the last error. */
#define CHECK_ERR_MSG(expr, err, msg) \
	do { \
		long long r_ = (long long)(expr); \
		if (r_ != -(long long)(err)) \
			FAIL("%s returned %lld, expected %d (%s)", #expr, r_, -(int)(err), \
			     nprof_strerror_last()); \
		else if (strcmp(nprof_strerror_last(), (msg))) \
			FAIL("%s: message \"%s\", expected \"%s\"", #expr, nprof_strerror_last(), (msg)); \
	} while (0)
#endif

#define SKIP(reason) \
	do { \
		cur_skip = (reason); \
		return; \
	} while (0)

static inline int harness_main(void)
{
	int i, passed = 0, failed = 0, skipped = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%d\n", ntests + (ntests_dropped ? 1 : 0));
	for (i = 0; i < ntests; i++) {
		cur_failed = 0;
		cur_skip = NULL;
		tests[i].fn();
		if (cur_failed) {
			printf("not ok %d - %s\n", i + 1, tests[i].name);
			failed++;
		} else if (cur_skip) {
			printf("ok %d - %s # SKIP %s\n", i + 1, tests[i].name, cur_skip);
			skipped++;
		} else {
			printf("ok %d - %s\n", i + 1, tests[i].name);
			passed++;
		}
	}
	if (ntests_dropped) {
		printf("not ok %d - %d more test cases than MAX_TESTS (%d) were registered "
		       "and not run: raise MAX_TESTS in harness.h\n",
		       ntests + 1, ntests_dropped, MAX_TESTS);
		failed++;
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

/* ---- results as they are found ------------------------------------------ */

static pthread_mutex_t harness_lock = PTHREAD_MUTEX_INITIALIZER;
static int harness_n, harness_passed, harness_failed, harness_skipped;

/*
 * One result line: "ok N - " or "not ok N - ", @fmt, then " # SKIP @skip"
 * (when not NULL), for a program's own wrapper that takes a va_list.
 */
static inline void harness_vresult(bool ok, const char *skip, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&harness_lock);
	printf("%s %d - ", ok ? "ok" : "not ok", ++harness_n);
	vprintf(fmt, ap);
	if (skip)
		printf(" # SKIP %s", skip);
	printf("\n");
	if (!ok)
		harness_failed++;
	else if (skip)
		harness_skipped++;
	else
		harness_passed++;
	fflush(stdout);
	pthread_mutex_unlock(&harness_lock);
}

static inline void harness_result(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void harness_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	harness_vresult(ok, NULL, fmt, ap);
	va_end(ap);
}

static inline void harness_skip(const char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void harness_skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	harness_vresult(true, why, fmt, ap);
	va_end(ap);
}

/* A "# " line: what a result line's reader needs to know about it. */
static inline void harness_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void harness_diag(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&harness_lock);
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&harness_lock);
}

/* harness_diag() of a va_list. */
static inline void harness_vdiag(const char *fmt, va_list ap)
{
	pthread_mutex_lock(&harness_lock);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&harness_lock);
}

/* harness_result() of @what, and when it failed a "# " line of why (@fmt). */
static inline void harness_check(bool ok, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void harness_check(bool ok, const char *what, const char *fmt, ...)
{
	va_list ap;

	harness_result(ok, "%s", what);
	if (!ok) {
		va_start(ap, fmt);
		harness_vdiag(fmt, ap);
		va_end(ap);
	}
}

/* The result line of the results so far; returns the exit status. */
static inline int harness_done(void)
{
	pthread_mutex_lock(&harness_lock);
	if (harness_skipped)
		printf("%d passed, %d failed, %d skipped\n", harness_passed, harness_failed,
		       harness_skipped);
	else
		printf("%d passed, %d failed\n", harness_passed, harness_failed);
	fflush(stdout);
	pthread_mutex_unlock(&harness_lock);
	return harness_failed ? 1 : 0;
}

/* The results so far: failed ones. */
static inline int harness_failures(void)
{
	return harness_failed;
}

#define HARNESS_MAIN \
	int main(void) \
	{ \
		return harness_main(); \
	}

/* Remove @path and everything under it (a test's scratch directory). */
static inline void rm_rf(const char *path)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (lstat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char sub[2 * PATH_MAX];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >= (int)sizeof(sub))
			continue;
		rm_rf(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

/* Entries of directory @path, hidden ones included; -1 if it cannot be read. */
static inline int dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/*
 * The bytes of file @path in a buffer the caller frees, with a NUL after
 * them (so a text file is a string); their count into *@len. NULL if the
 * file cannot be read whole.
 */
static inline void *read_whole(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && (buf = malloc((size_t)st.st_size + 1))) {
		if (read(fd, buf, (size_t)st.st_size) == st.st_size) {
			buf[st.st_size] = '\0';
			*len = (size_t)st.st_size;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	close(fd);
	return buf;
}

/* Write @text into file @path (created or truncated); the case fails if it cannot. */
static inline void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0)
		FAIL("cannot write %s", path);
	if (f && fclose(f))
		FAIL("cannot write %s", path);
}

#endif /* NPROF_TEST_HARNESS_H */
