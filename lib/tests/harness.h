/* SPDX-License-Identifier: MIT */
/*
 * A small TAP-like test harness: TEST() registers a case, CHECK*() record
 * failures without stopping the case, SKIP() ends it as skipped. The program
 * prints "ok N - name" / "not ok N - name" per case and ends with
 * "N passed, N failed, N skipped"; it exits 1 if any case failed.
 * A program registers at most MAX_TESTS cases: one more makes the run fail
 * with a "not ok" line that says so, rather than leave cases out unnoticed.
 */
#ifndef NPROF_TEST_HARNESS_H
#define NPROF_TEST_HARNESS_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <neuronprof/neuronprof.h>

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

#endif /* NPROF_TEST_HARNESS_H */
