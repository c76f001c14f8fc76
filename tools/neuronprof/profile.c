// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): loading a profile (one NTFF file or a directory of them).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <neuronprof/common.h>

#include "profile.h"
#include "tool.h"

struct path_list {
	char **v;
	size_t n, cap;
};

static int path_list_add(struct path_list *l, const char *dir, const char *name)
{
	char *p;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return -1;
	l->v[l->n++] = p;
	return 0;
}

static bool has_ntff_suffix(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && !strcmp(name + n - 5, ".ntff");
}

/* Collects *.ntff under @dir, depth first; -1 after an error message. */
static int scan_dir(const char *dir, struct path_list *l, int depth)
{
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (depth > 64) {
		fail("%s: directories nested more than 64 deep", dir);
		return -1;
	}
	d = opendir(dir);
	if (!d) {
		fail("cannot open directory %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		char sub[PATH_MAX];
		struct stat st;

		/* Dot files include a writer's ".<name>.<random>.tmp" in progress. */
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >= sizeof(sub)) {
			fail("path too long under %s: %s", dir, de->d_name);
			ret = -1;
			break;
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			fail("cannot stat %s: %s", sub, strerror(errno));
			ret = -1;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			if (scan_dir(sub, l, depth + 1)) {
				ret = -1;
				break;
			}
		} else if (S_ISREG(st.st_mode) && has_ntff_suffix(de->d_name)) {
			if (path_list_add(l, dir, de->d_name)) {
				fail("out of memory");
				ret = -1;
				break;
			}
		}
	}
	closedir(d);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int open_file(struct prof_file *f, char *path)
{
	int n;

	f->path = path;
	f->reader = nprof_ntff_reader_open(path, 0);
	if (!f->reader) {
		/* The library's message names the file and the failed check. */
		fail("%s", nprof_strerror_last());
		return -1;
	}
	f->info.size = sizeof(f->info);
	if (nprof_ntff_reader_info(f->reader, &f->info)) {
		fail("%s: %s", path, nprof_strerror_last());
		return -1;
	}
	n = nprof_ntff_reader_queue_count(f->reader);
	if (n < 0) {
		fail("%s: %s", path, nprof_strerror_last());
		return -1;
	}
	f->nqueues = (size_t)n;
	f->queues = calloc(f->nqueues ? f->nqueues : 1, sizeof(*f->queues));
	if (!f->queues) {
		fail("out of memory");
		return -1;
	}
	for (size_t i = 0; i < f->nqueues; i++) {
		f->queues[i].size = sizeof(f->queues[i]);
		if (nprof_ntff_reader_queue(f->reader, i, &f->queues[i])) {
			fail("%s: queue record %zu: %s", path, i, nprof_strerror_last());
			return -1;
		}
		f->entries += f->queues[i].entry_count;
	}
	return 0;
}

int profile_load(const char *path, struct profile *p)
{
	struct path_list l = { 0 };
	struct stat st;

	memset(p, 0, sizeof(*p));
	if (stat(path, &st)) {
		fail("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		if (scan_dir(path, &l, 0))
			goto err;
		if (!l.n) {
			fail("no .ntff files under directory %s", path);
			goto err;
		}
		qsort(l.v, l.n, sizeof(*l.v), cmp_str);
	} else {
		char *dup = strdup(path);

		if (!dup || !(l.v = malloc(sizeof(*l.v)))) {
			free(dup);
			fail("out of memory");
			goto err;
		}
		l.v[0] = dup;
		l.n = 1;
	}
	p->files = calloc(l.n, sizeof(*p->files));
	if (!p->files) {
		fail("out of memory");
		goto err;
	}
	for (size_t i = 0; i < l.n; i++) {
		p->nfiles = i + 1;
		if (open_file(&p->files[i], l.v[i])) {
			/* Ownership of the remaining paths stays with the list. */
			for (size_t k = i + 1; k < l.n; k++)
				free(l.v[k]);
			free(l.v);
			profile_free(p);
			return -1;
		}
		p->entries += p->files[i].entries;
	}
	free(l.v);
	return 0;
err:
	for (size_t k = 0; k < l.n; k++)
		free(l.v[k]);
	free(l.v);
	return -1;
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->nfiles; i++) {
		nprof_ntff_reader_close(p->files[i].reader);
		free(p->files[i].queues);
		free(p->files[i].path);
	}
	free(p->files);
	memset(p, 0, sizeof(*p));
}

uint32_t queue_core(const struct prof_file *f, const struct nprof_ntff_queue *q)
{
	const struct nprof_ntff_device *d = &f->info.device;

	if (q->target_kind == NEURONPROF_TARGET_CORE)
		return q->target_index;
	if (d->num_cores && d->num_topsps >= d->num_cores)
		return q->target_index / (d->num_topsps / d->num_cores);
	return f->info.core;
}
