// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): loading a profile (one NTFF file or a directory of them).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <neuronprof/common.h>

#include "analysis/profile.h"
#include "util/util.h"

/*
 * profile_load_skipping()'s @why while it runs: a bad file is a warning
 * saying why it is skipped; NULL, an error.
 */
static const char *skip_why;

/* profile_load_one_pass()'s mode while it runs. */
static bool load_one_pass;

/* A problem with one file: an error, or with --keep-going a warning that it is skipped. */
static void __attribute__((format(printf, 1, 2))) file_problem(const char *fmt, ...)
{
	char msg[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (skip_why)
		warn("%s: skipped (%s)", msg, skip_why);
	else
		fail("%s", msg);
}

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

static bool is_sysprof_file(const char *name)
{
	return !strcmp(name, "ntrace.pb") || !strcmp(name, "cpu_util.pb") ||
	       !strcmp(name, "host_mem.pb") || !strcmp(name, "trace_info.pb");
}

/*
 * Collects *.ntff under @dir into @l and the directories holding system
 * profile files into @sys, depth first; -1 after an error message.
 */
static int scan_dir(const char *dir, struct path_list *l, struct path_list *sys, int depth)
{
	struct dirent *de;
	bool sys_here = false;
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
			if (scan_dir(sub, l, sys, depth + 1)) {
				ret = -1;
				break;
			}
		} else if (S_ISREG(st.st_mode) && has_ntff_suffix(de->d_name)) {
			if (path_list_add(l, dir, de->d_name)) {
				fail("out of memory");
				ret = -1;
				break;
			}
		} else if (S_ISREG(st.st_mode) && is_sysprof_file(de->d_name)) {
			sys_here = true;
		}
	}
	closedir(d);
	if (!ret && sys_here && path_list_add(sys, dir, ".")) {
		fail("out of memory");
		ret = -1;
	}
	return ret;
}

/* Reads @dir/@name whole; 0 and *buf NULL if it does not exist. */
static int read_profile_file(const char *dir, const char *name, uint8_t **buf, size_t *len)
{
	char path[PATH_MAX];
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd;

	*buf = NULL;
	*len = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		file_problem("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		file_problem("%s is not a regular file", path);
		close(fd);
		return -1;
	}
	*buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!*buf) {
		fail("out of memory reading %s", path);
		close(fd);
		return -1;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, *buf + got, (size_t)st.st_size - got);
		if (n <= 0) {
			file_problem("cannot read %s: %s", path, n ? strerror(errno) : "unexpected end");
			free(*buf);
			*buf = NULL;
			close(fd);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return 0;
}

static int load_message(const char *dir, const char *name,
			const ProtobufCMessageDescriptor *desc, void **out)
{
	uint8_t *buf;
	size_t len;

	*out = NULL;
	if (read_profile_file(dir, name, &buf, &len))
		return -1;
	if (!buf)
		return 0;
	*out = protobuf_c_message_unpack(desc, NULL, len, buf);
	free(buf);
	if (!*out) {
		file_problem("%s/%s: not a valid %s message (proto/system_profile.proto)", dir, name,
		     desc->name);
		return -1;
	}
	return 0;
}

static int load_sysprof(struct sysprof *s)
{
	if (load_message(s->dir, "ntrace.pb", &neuronprof__system__ntrace__descriptor,
			 (void **)&s->ntrace) ||
	    load_message(s->dir, "cpu_util.pb", &neuronprof__system__cpu_util__descriptor,
			 (void **)&s->cpu) ||
	    load_message(s->dir, "host_mem.pb", &neuronprof__system__host_mem__descriptor,
			 (void **)&s->mem) ||
	    load_message(s->dir, "trace_info.pb", &neuronprof__system__trace_info__descriptor,
			 (void **)&s->info))
		return -1;
	return 0;
}

static void free_sysprof(struct sysprof *s)
{
	if (s->ntrace)
		neuronprof__system__ntrace__free_unpacked(s->ntrace, NULL);
	if (s->cpu)
		neuronprof__system__cpu_util__free_unpacked(s->cpu, NULL);
	if (s->mem)
		neuronprof__system__host_mem__free_unpacked(s->mem, NULL);
	if (s->info)
		neuronprof__system__trace_info__free_unpacked(s->info, NULL);
	free(s->dir);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool same_queue(const struct nprof_ntff_queue *a, const struct nprof_ntff_queue *b)
{
	return a->queue_type == b->queue_type && a->target_kind == b->target_kind &&
	       a->target_index == b->target_index && a->engine == b->engine;
}

static size_t queue_hash(const struct nprof_ntff_queue *q)
{
	uint64_t h = (uint64_t)q->queue_type << 48 ^ (uint64_t)q->target_kind << 40 ^
		     (uint64_t)q->target_index << 20 ^ q->engine;

	return (size_t)((h * 0x9e3779b97f4a7c15ull) >> 32);
}

/* Adds record @i, @r, to queue @lq, after the records it has. */
static void queue_merge(struct prof_queue *lq, size_t i, const struct nprof_ntff_queue *r)
{
	struct nprof_ntff_queue *q = &lq->q;

	if (!lq->nrec) {
		*q = *r;
		q->entries = NULL;
		lq->first = i;
	} else {
		if (r->entry_count && !q->entry_count)
			q->first_seq = r->first_seq;
		if (r->entry_count)
			q->last_seq = r->last_seq;
		q->entry_count += r->entry_count;
		q->lost_count += r->lost_count;
		q->trimmed_count += r->trimmed_count;
		q->data_length += r->data_length;
		q->ring_flags |= r->ring_flags;
	}
	lq->last = i;
	lq->nrec++;
}

/* A hash of queue identities to queue numbers, sized for @n queues. */
static int slots_build(struct prof_file *f, size_t **slot, size_t *nslots, size_t n)
{
	size_t ns = 16, *s;

	while (ns < 2 * n)
		ns *= 2;
	s = malloc(ns * sizeof(*s));
	if (!s)
		return -1;
	memset(s, 0xff, ns * sizeof(*s));
	for (size_t k = 0; k < f->nlqueues; k++) {
		size_t h = queue_hash(&f->lqueues[k].q) & (ns - 1);

		while (s[h] != SIZE_MAX)
			h = (h + 1) & (ns - 1);
		s[h] = k;
	}
	free(*slot);
	*slot = s;
	*nslots = ns;
	return 0;
}

/*
 * Groups the records of @f into its queues (struct prof_queue), one record
 * at a time, and counts the file's entries: what this keeps follows the
 * number of queues, not of records.
 */
static int group_queues(struct prof_file *f)
{
	size_t nslots = 0, cap = 0, *slot = NULL;

	if (slots_build(f, &slot, &nslots, 0))
		goto nomem;
	for (size_t i = 0; i < f->nqueues; i++) {
		struct nprof_ntff_queue r;
		size_t h;

		file_record(f, i, &r);
		f->entries += r.entry_count;
		h = queue_hash(&r) & (nslots - 1);
		while (slot[h] != SIZE_MAX && !same_queue(&f->lqueues[slot[h]].q, &r))
			h = (h + 1) & (nslots - 1);
		if (slot[h] == SIZE_MAX) {
			if (f->nlqueues == cap) {
				struct prof_queue *lq;

				cap = cap ? 2 * cap : 16;
				lq = realloc(f->lqueues, cap * sizeof(*lq));
				if (!lq)
					goto nomem;
				f->lqueues = lq;
			}
			memset(&f->lqueues[f->nlqueues], 0, sizeof(*f->lqueues));
			slot[h] = f->nlqueues;
			queue_merge(&f->lqueues[f->nlqueues++], i, &r);
			/* Half full at most, so probing stays short. */
			if (2 * f->nlqueues > nslots && slots_build(f, &slot, &nslots, f->nlqueues))
				goto nomem;
			continue;
		}
		queue_merge(&f->lqueues[slot[h]], i, &r);
	}
	if (!f->lqueues && !(f->lqueues = calloc(1, sizeof(*f->lqueues))))
		goto nomem;
	free(slot);
	return 0;
nomem:
	free(slot);
	fail("out of memory");
	return -1;
}

void file_record(const struct prof_file *f, size_t i, struct nprof_ntff_queue *q)
{
	q->size = sizeof(*q);
	/* A record of a validated file: only an index out of range could fail. */
	if (nprof_ntff_reader_queue(f->reader, i, q)) {
		fail("%s: queue record %zu: %s", f->path, i, nprof_strerror_last());
		exit(EXIT_FAIL);
	}
}

/*
 * One-pass mode: the current record's next chunk, verified by the library,
 * into @it->it; false at the record's end, or at a damaged block (reported,
 * and the file marked damaged so that every later walk of it ends too).
 */
static bool queue_iter_chunk(struct queue_iter *it)
{
	const void *p;
	int n;

	if (it->f->damaged) {
		n = -EBADMSG;
	} else {
		n = nprof_ntff_chunk_iter_next(&it->chunks, &p);
		if (n > 0) {
			it->it.pos = p;
			it->it.end = it->it.pos + (size_t)n * it->entry_size;
			it->it.step = it->entry_size;
			return true;
		}
	}
	it->in_record = false;
	if (n < 0) {
		if (!it->f->damaged) {
			/* The library's message names the file and the block, as at open. */
			fail("%s", nprof_strerror_last());
			/* The reader is the file's, not the walk's: so is what it found. */
			((struct prof_file *)it->f)->damaged = true;
		}
		it->left = 0;
	}
	return false;
}

bool queue_iter_record(struct queue_iter *it)
{
	const struct nprof_ntff_queue *id = &it->lq->q;
	struct nprof_ntff_queue r;

	if (it->in_record && queue_iter_chunk(it))
		return true;
	while (it->left) {
		size_t idx = it->next++;

		file_record(it->f, idx, &r);
		if (!same_queue(&r, id))
			continue;
		it->left--;
		it->entry_size = r.entry_size;
		it->trimmed += r.trimmed_count;
		if (!it->f->one_pass) {
			nprof_ntff_entry_iter_init(&it->it, &r);
			return true;
		}
		if (nprof_ntff_chunk_iter_init(&it->chunks, it->f->reader, idx)) {
			fail("%s: queue record %zu: %s", it->f->path, idx, nprof_strerror_last());
			exit(EXIT_FAIL);
		}
		it->in_record = true;
		if (queue_iter_chunk(it))
			return true;
	}
	return false;
}

bool profile_damaged(const struct profile *p)
{
	for (size_t i = 0; i < p->nfiles; i++)
		if (p->files[i].damaged)
			return true;
	return false;
}

static int open_file(struct prof_file *f, char *path)
{
	int n;

	f->path = path;
	/*
	 * Every block verified at open: the analyses walk queues several
	 * times through entries pointers, and a damaged file fails here, never
	 * part-way through a command (Documentation/design.rst). The export
	 * walks each queue once and checks profile_damaged() before it commits
	 * its output: one pass (profile_load_one_pass()).
	 */
	f->one_pass = load_one_pass;
	f->reader = nprof_ntff_reader_open(path, f->one_pass ? 0 : NPROF_NTFF_READ_VERIFY_AT_OPEN);
	if (!f->reader) {
		/* The library's message names the file and the failed check. */
		file_problem("%s", nprof_strerror_last());
		return -1;
	}
	f->info.size = sizeof(f->info);
	if (nprof_ntff_reader_info(f->reader, &f->info)) {
		file_problem("%s: %s", path, nprof_strerror_last());
		return -1;
	}
	n = nprof_ntff_reader_queue_count(f->reader);
	if (n < 0) {
		file_problem("%s: %s", path, nprof_strerror_last());
		return -1;
	}
	f->nqueues = (size_t)n;
	return group_queues(f);
}

static void free_list(struct path_list *l)
{
	for (size_t k = 0; k < l->n; k++)
		free(l->v[k]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int profile_load(const char *path, struct profile *p)
{
	return profile_load_opts(path, p, false, NULL);
}

int profile_load_one_pass(const char *path, struct profile *p)
{
	int ret;

	load_one_pass = true;
	ret = profile_load_skipping(path, p, NULL, NULL);
	load_one_pass = false;
	return ret;
}

/* Frees what open_file() took of a file that did not read. */
static void drop_file(struct prof_file *f)
{
	nprof_ntff_reader_close(f->reader);
	free(f->lqueues);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

int profile_load_opts(const char *path, struct profile *p, bool keep, size_t *skipped)
{
	return profile_load_skipping(path, p, keep ? "--keep-going" : NULL, skipped);
}

int profile_load_skipping(const char *path, struct profile *p, const char *why, size_t *skipped)
{
	struct path_list l = { 0 }, sys = { 0 };
	struct stat st;
	size_t nskip = 0;
	bool keep = why != NULL;

	memset(p, 0, sizeof(*p));
	skip_why = why;
	if (stat(path, &st)) {
		fail("cannot open %s: %s", path, strerror(errno));
		goto err;
	}
	if (S_ISDIR(st.st_mode)) {
		if (scan_dir(path, &l, &sys, 0))
			goto err;
		if (!l.n && !sys.n) {
			fail("no .ntff files (nor a system profile) under directory %s", path);
			goto err;
		}
		/* qsort() must not see the NULL of an empty list. */
		if (l.n > 1)
			qsort(l.v, l.n, sizeof(*l.v), cmp_str);
		if (sys.n > 1)
			qsort(sys.v, sys.n, sizeof(*sys.v), cmp_str);
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
	p->files = calloc(l.n ? l.n : 1, sizeof(*p->files));
	p->sys = calloc(sys.n ? sys.n : 1, sizeof(*p->sys));
	if (!p->files || !p->sys) {
		fail("out of memory");
		goto err_free;
	}
	/* From here on the profile owns each path as soon as it takes it. */
	for (size_t i = 0; i < l.n; i++) {
		struct prof_file *f = &p->files[p->nfiles++];
		int bad = open_file(f, l.v[i]);

		l.v[i] = NULL;
		if (bad && !keep)
			goto err_free;
		if (bad) {
			drop_file(f);
			p->nfiles--;
			nskip++;
			continue;
		}
		p->entries += f->entries;
	}
	for (size_t i = 0; i < sys.n; i++) {
		/* scan_dir() recorded "<dir>/."; the directory itself is the name. */
		size_t n = strlen(sys.v[i]);
		struct sysprof *s = &p->sys[p->nsys++];

		sys.v[i][n - 2] = '\0';
		s->dir = sys.v[i];
		sys.v[i] = NULL;
		if (load_sysprof(s)) {
			if (!keep)
				goto err_free;
			free_sysprof(s);
			memset(s, 0, sizeof(*s));
			p->nsys--;
			nskip++;
			continue;
		}
		if (s->ntrace)
			p->host_events += s->ntrace->n_events;
	}
	if (!p->nfiles && !p->nsys) {
		fail("nothing left to read in %s: every file was skipped", path);
		goto err_free;
	}
	free_list(&l);
	free_list(&sys);
	skip_why = NULL;
	if (skipped)
		*skipped = nskip;
	return 0;
err_free:
	profile_free(p);
err:
	free_list(&l);
	free_list(&sys);
	skip_why = NULL;
	if (skipped)
		*skipped = nskip;
	return -1;
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->nfiles; i++) {
		nprof_ntff_reader_close(p->files[i].reader);
		free(p->files[i].lqueues);
		free(p->files[i].path);
	}
	for (size_t i = 0; i < p->nsys; i++)
		free_sysprof(&p->sys[i]);
	free(p->files);
	free(p->sys);
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
