// SPDX-License-Identifier: MIT
/*
 * neuronprof record: output rotation, as perf record's --switch-output and
 * --switch-max-files.
 *
 * --switch-output=signal|TIME asks the library for a new file of every
 * core at SIGUSR2 or every TIME. The switch goes through the control page
 * (record_control.c): this process adds 1 to its switch_seq and the
 * library ends each core's open capture window at the next execution that
 * begins there, writing its file (profile_nc_<nc>_session_<w>.ntff, w
 * counting the core's windows), and opens the next window with that
 * execution. --switch-output=SIZE is decided by the library itself, which
 * writes the files and so knows their size at every execution's begin:
 * this process puts SIZE into the page's switch_size, and a core's window
 * ends at the first execution that begins once it holds SIZE bytes of
 * entries. So files switch at execution boundaries, never inside an
 * execution, and a SIZE is reached, not cut at: a file's entries pass
 * SIZE by at most those of its last execution.
 *
 * --switch-max-files=N keeps the newest N complete files of each core of
 * the recording (the highest w) and removes the older ones, as soon as a
 * newer one is complete; a file being written is a hidden temporary file
 * until complete, so it is never one of them. Documentation/tool.rst,
 * "record".
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <neuronprof/capture.h>

#include "record.h"
#include "record_control.h"
#include "record_rotate.h"
#include "tool.h"
#include "util/util.h"

static volatile sig_atomic_t switch_signal;

static void on_usr2(int sig)
{
	(void)sig;
	switch_signal = 1;
}

int record_rotate_parse(struct record_rotate *r, const char *arg)
{
	static const struct { char c; uint64_t mul; } sizes[] = {
		{ 'B', 1 }, { 'K', 1ULL << 10 }, { 'M', 1ULL << 20 }, { 'G', 1ULL << 30 },
	}, times[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	size_t len = strlen(arg);
	char num[32];
	uint64_t n;

	if (!strcmp(arg, "signal")) {
		r->mode = ROTATE_SIGNAL;
		return 0;
	}
	if (len < 2 || len > sizeof(num))
		goto bad;
	memcpy(num, arg, len - 1);
	num[len - 1] = '\0';
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (arg[len - 1] != sizes[i].c && arg[len - 1] != (char)(sizes[i].c | 0x20))
			continue;
		if (sizes[i].c == 'M' && arg[len - 1] == 'm')
			break;	/* m is minutes */
		if (parse_u64("--switch-output", num, 1, (1ULL << 40) / sizes[i].mul, false, &n))
			return EXIT_USAGE;
		r->mode = ROTATE_SIZE;
		r->size = n * sizes[i].mul;
		if (r->size < (1ULL << 20))
			return usage_error("--switch-output %s: a size of at least 1M", arg);
		return 0;
	}
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		if (arg[len - 1] != times[i].c)
			continue;
		if (parse_u64("--switch-output", num, 1, 7 * 86400 / times[i].mul, false, &n))
			return EXIT_USAGE;
		r->mode = ROTATE_TIME;
		r->period_ns = n * times[i].mul * 1000000000ULL;
		return 0;
	}
bad:
	return usage_error("--switch-output %s: expected signal, a size with a B, K, M or G "
			   "suffix (100M) or a time with an s, m, h or d suffix (30s)", arg);
}

bool record_rotate_wanted(const struct record_rotate *r)
{
	return r->mode != ROTATE_NONE;
}

int record_rotate_start(struct record_rotate *r, struct record_control *ctl, const char *dir)
{
	if (r->mode == ROTATE_SIZE)
		record_control_switch_size(ctl, r->size);
	r->dir = dir;
	r->since = time(NULL);
	r->base_ns = record_monotonic_ns();
	if (r->mode == ROTATE_SIGNAL) {
		struct sigaction sa = { .sa_handler = on_usr2 };

		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGUSR2, &sa, NULL))
			return fail("--switch-output signal: cannot catch SIGUSR2: %s",
				    strerror(errno));
	}
	return 0;
}

/* A file of the recording: profile_nc_<nc>_session_<w>.ntff under a directory. */
struct rot_file {
	char path[PATH_MAX];
	char dir[PATH_MAX];
	unsigned long nc, w;
};

static void collect(const struct record_rotate *r, const char *dir, int depth,
		    struct rot_file **files, size_t *n, size_t *cap)
{
	DIR *d = depth < 8 ? opendir(dir) : NULL;
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		unsigned long nc, w;
		struct stat sb;
		int used = 0;

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    lstat(path, &sb))
			continue;
		if (S_ISDIR(sb.st_mode)) {
			collect(r, path, depth + 1, files, n, cap);
			continue;
		}
		if (!S_ISREG(sb.st_mode) || sb.st_mtime < r->since ||
		    sscanf(de->d_name, "profile_nc_%lu_session_%lu.ntff%n", &nc, &w, &used) != 2 ||
		    (size_t)used != strlen(de->d_name))
			continue;
		if (*n == *cap) {
			size_t ncap = *cap ? 2 * *cap : 16;
			struct rot_file *f = realloc(*files, ncap * sizeof(*f));

			if (!f)
				break;
			*files = f;
			*cap = ncap;
		}
		snprintf((*files)[*n].path, sizeof((*files)[*n].path), "%s", path);
		snprintf((*files)[*n].dir, sizeof((*files)[*n].dir), "%s", dir);
		(*files)[*n].nc = nc;
		(*files)[*n].w = w;
		(*n)++;
	}
	closedir(d);
}

/* Newest first within a directory and core. */
static int cmp_file(const void *a, const void *b)
{
	const struct rot_file *x = a, *y = b;
	int c = strcmp(x->dir, y->dir);

	if (c)
		return c;
	if (x->nc != y->nc)
		return x->nc < y->nc ? -1 : 1;
	return x->w > y->w ? -1 : x->w < y->w ? 1 : 0;
}

/*
 * Remove each core's files beyond the newest max_files; with a SIZE, count
 * the switches the library made (a core's newest file is its w-th switch).
 */
static void prune(struct record_rotate *r)
{
	struct rot_file *files = NULL;
	size_t n = 0, cap = 0, kept = 0;

	if (!r->dir || (!r->max_files && r->mode != ROTATE_SIZE))
		return;
	collect(r, r->dir, 0, &files, &n, &cap);
	for (size_t i = 0; i < n && r->mode == ROTATE_SIZE; i++)
		if (files[i].w > r->switches)
			r->switches = files[i].w;
	if (!r->max_files)
		n = 0;
	if (n)
		qsort(files, n, sizeof(*files), cmp_file);
	for (size_t i = 0; i < n; i++) {
		if (i && (strcmp(files[i].dir, files[i - 1].dir) || files[i].nc != files[i - 1].nc))
			kept = 0;
		if (++kept <= r->max_files)
			continue;
		if (unlink(files[i].path))
			fprintf(stderr, "neuronprof: record: --switch-max-files: cannot remove %s: %s\n",
				files[i].path, strerror(errno));
		else
			r->removed++;
	}
	free(files);
}

void record_rotate_tick(struct record_rotate *r, struct record_control *ctl)
{
	uint64_t now = record_monotonic_ns();
	bool now_switch = false;

	switch (r->mode) {
	case ROTATE_NONE:
		return;
	case ROTATE_SIGNAL:
		now_switch = switch_signal;
		switch_signal = 0;
		break;
	case ROTATE_SIZE:
		/* The library switches by itself (the page's switch_size). */
		break;
	case ROTATE_TIME:
		now_switch = now - r->base_ns >= r->period_ns;
		break;
	}
	if (now_switch) {
		record_control_switch(ctl);
		r->switches++;
		r->base_ns = now;
	}
	prune(r);
}

void record_rotate_finish(struct record_rotate *r)
{
	if (r->mode == ROTATE_NONE)
		return;
	if (r->mode == ROTATE_SIGNAL)
		signal(SIGUSR2, SIG_DFL);
	prune(r);
	fprintf(stderr, "neuronprof: record: --switch-output: %" PRIu64 " switch%s",
		r->switches, r->switches == 1 ? "" : "es");
	if (r->max_files)
		fprintf(stderr, "; --switch-max-files %" PRIu64 ": %" PRIu64
			" older file%s removed", r->max_files, r->removed,
			r->removed == 1 ? "" : "s");
	fputc('\n', stderr);
}
