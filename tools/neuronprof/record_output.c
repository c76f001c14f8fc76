// SPDX-License-Identifier: MIT
/*
 * neuronprof record: the output's checks and size limits. -o's check before
 * any work, the bytes a recording holds, and what --max-size says of them;
 * and the two helpers record's files share: the clock, and the pages
 * (progress, control) shared with the library.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/output.h>

#include "record.h"
#include "tool.h"

uint64_t record_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void *record_page_share(const char *name, size_t size, const char *env, const char *what, int *fd)
{
	char num[16];
	void *page;

	*fd = memfd_create(name, 0);
	if (*fd < 0 || ftruncate(*fd, (off_t)size)) {
		fail("cannot create the %s page: %s", what, strerror(errno));
		goto close;
	}
	page = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (page == MAP_FAILED) {
		fail("cannot map the %s page: %s", what, strerror(errno));
		goto close;
	}
	snprintf(num, sizeof(num), "%d", *fd);
	if (!setenv(env, num, 1))
		return page;
	fail("cannot set %s: %s", env, strerror(errno));
	munmap(page, size);
close:
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return NULL;
}

bool record_session_mode(const struct record_opts *o)
{
	return !o->mode || !strcmp(o->mode, "session");
}

/*
 * -o names the base directory of the session directories: one to create, or
 * one that exists (through a symbolic link too). A device, a FIFO or a file
 * there is refused before any work, and is never written nor replaced.
 * Return: 0, or -1 after the usage error.
 */
int record_check_outdir(const char *dir)
{
	struct stat st;

	if (nprof_output_check_base(dir)) {
		usage_error("-o %s: %s", dir, nprof_strerror_last());
		return -1;
	}
	if (!stat(dir, &st) && !S_ISDIR(st.st_mode)) {
		usage_error("-o %s: not a directory (record writes a session directory under it)",
			    dir);
		return -1;
	}
	return 0;
}

/* The bytes of the regular files under @dir, recursively, modified at @since or later. */
uint64_t record_dir_bytes(const char *dir, time_t since)
{
	uint64_t total = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		char path[PATH_MAX];
		struct stat sb;

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (lstat(path, &sb))
			continue;
		if (S_ISDIR(sb.st_mode))
			total += record_dir_bytes(path, since);
		else if (S_ISREG(sb.st_mode) && sb.st_mtime >= since)
			total += (uint64_t)sb.st_size;
	}
	closedir(dp);
	return total;
}

/*
 * After a run with --max-size: the recording's size (its files under @dir
 * modified at @since or later) against the limit, on stderr (stdout stays
 * the result). Return: 0, or -1 when it is over the limit (which the
 * library's limit and the synthetic model's estimate are there to prevent).
 */
int record_max_size_report(const struct record_opts *o, const char *dir, time_t since)
{
	uint64_t bytes = record_dir_bytes(dir, since);

	if (bytes > o->max_size) {
		fail("%s: %" PRIu64 " bytes, over --max-size %" PRIu64, dir, bytes, o->max_size);
		return -1;
	}
	if (o->max_size_hit)
		warn("--max-size %" PRIu64 ": stopped before the next executions would pass it; "
		     "%s holds %" PRIu64 " bytes", o->max_size, dir, bytes);
	else
		fprintf(stderr, "neuronprof: record: %s holds %" PRIu64 " bytes%s, within --max-size %"
			PRIu64 "\n", dir, bytes, since ? " of this recording" : "", o->max_size);
	return 0;
}

