// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): recordings (summary.h): the PATHs given loaded, and
 * their files split into recordings, one per directory holding NTFF files
 * or a system profile.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/names.h"
#include "analysis/summary.h"
#include "util/util.h"

/* ---- recordings ------------------------------------------------------------ */

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *d;

	if (!slash)
		return xstrdup(".");
	d = xstrdup(path);
	d[slash - path] = '\0';
	return d;
}

static int cmp_rec(const void *a, const void *b)
{
	return strcmp(((const struct recording *)a)->path, ((const struct recording *)b)->path);
}

static struct recording *rec_for(struct recording **v, size_t *n, char *dir)
{
	struct recording *r;

	for (size_t i = 0; i < *n; i++) {
		if (!strcmp((*v)[i].path, dir)) {
			free(dir);
			return &(*v)[i];
		}
	}
	r = XAPPEND(*v, *n);
	r->path = dir;
	return r;
}

struct recording *recordings_split(const struct profile *p, const char *arg, bool is_file,
			       size_t *nrec)
{
	struct recording *v = NULL, *r;
	size_t n = 0;

	for (size_t i = 0; i < p->nfiles; i++) {
		char *d = is_file ? xstrdup(arg) : dir_of(p->files[i].path);

		r = rec_for(&v, &n, d);
		r->files = xrealloc(r->files, (r->nfiles + 1) * sizeof(*r->files));
		r->files[r->nfiles++] = &p->files[i];
	}
	for (size_t i = 0; i < p->nsys; i++) {
		rec_for(&v, &n, xstrdup(p->sys[i].dir))->sys = &p->sys[i];
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_rec);
	*nrec = n;
	return v;
}

void recordings_free(struct recording *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].path);
		free(r[i].files);
	}
	free(r);
}

int paths_load(struct path_set *ps, char *const *paths, size_t n, bool keep, const char *verb)
{
	bool loaded_any = false;
	size_t k = 0;

	*ps = (struct path_set){ .paths = xcalloc(n, sizeof(*ps->paths)), .npaths = n };
	for (size_t i = 0; i < n; i++) {
		struct path_recordings *p = &ps->paths[i];
		struct stat st;
		size_t nskip = 0;

		if (profile_load_opts(paths[i], &p->prof, keep, &nskip)) {
			ps->skipped += nskip + 1;
			if (!keep)
				return EXIT_FAIL;
			warn("%s: skipped (--keep-going)", paths[i]);
			continue;
		}
		ps->skipped += nskip;
		loaded_any = true;
		p->loaded = true;
		p->recs = recordings_split(&p->prof, paths[i],
					   !stat(paths[i], &st) && !S_ISDIR(st.st_mode), &p->nrec);
		ps->nrec += p->nrec;
		ps->nfiles += p->prof.nfiles;
		ps->entries += p->prof.entries;
	}
	if (!loaded_any)
		return fail("nothing to %s: no PATH could be read", verb);
	ps->recs = xcalloc(ps->nrec, sizeof(*ps->recs));
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < ps->paths[i].nrec; r++)
			ps->recs[k++] = &ps->paths[i].recs[r];
	return 0;
}

void paths_free(struct path_set *ps)
{
	for (size_t i = 0; i < ps->npaths; i++) {
		if (!ps->paths[i].loaded)
			continue;
		recordings_free(ps->paths[i].recs, ps->paths[i].nrec);
		profile_free(&ps->paths[i].prof);
	}
	free(ps->paths);
	free(ps->recs);
}

bool recording_range_text(const struct prof_file *f, char *buf, size_t len)
{
	const char *base = strrchr(f->path, '/');
	size_t n = 0;

	if (!f->info.exec_first && !f->info.iter_first)
		return false;
	n += (size_t)snprintf(buf, len, "captured ");
	if (f->info.exec_first && n < len)
		n += (size_t)snprintf(buf + n, len - n, "executions %" PRIu64 "-%" PRIu64 "%s",
				      f->info.exec_first, f->info.exec_last,
				      f->info.iter_first ? ", " : "");
	if (f->info.iter_first && n < len)
		n += (size_t)snprintf(buf + n, len - n, "iterations %" PRIu64 "-%" PRIu64 " of %s",
				      f->info.iter_first, f->info.iter_last,
				      f->info.exec_first ? "each" : "every execution");
	if (n < len)
		snprintf(buf + n, len - n, " of NeuronCore %u (%s)", f->info.core,
			 base ? base + 1 : f->path);
	return true;
}

void recording_print_ranges(const struct recording *r, const char *indent)
{
	char line[PATH_MAX + 160];

	for (size_t i = 0; i < r->nfiles; i++)
		if (recording_range_text(r->files[i], line, sizeof(line)))
			printf("%s%s\n", indent, line);
}
