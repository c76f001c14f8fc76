// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): Prometheus text exposition and the textfile writer (prom.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/prom.h"
#include "util/util.h"

void prom_init(struct prom *p, const struct prom_family *fams, size_t nfams)
{
	memset(p, 0, sizeof(*p));
	p->fams = fams;
	p->nfams = nfams;
}

void prom_free(struct prom *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->s[i].labels);
	free(p->s);
	p->s = NULL;
	p->n = p->cap = 0;
}

void prom_escape_label(char *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"') {
			*out++ = '\\';
			*out++ = *v;
		} else if (*v == '\n') {
			*out++ = '\\';
			*out++ = 'n';
		} else {
			*out++ = *v;
		}
	}
	*out = '\0';
}

size_t prom_series(struct prom *p, size_t fam, ...)
{
	char *labels = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&labels, &len);
	const char *name;
	bool first = true;
	va_list ap;

	if (!m) {
		fputs("neuronprof: out of memory\n", stderr);
		exit(EXIT_FAIL);
	}
	va_start(ap, fam);
	while ((name = va_arg(ap, const char *))) {
		const char *v = va_arg(ap, const char *);
		char *esc;

		if (!v)
			continue;
		esc = xrealloc(NULL, 2 * strlen(v) + 1);
		prom_escape_label(esc, v);
		fprintf(m, "%s%s=\"%s\"", first ? "" : ",", name, esc);
		free(esc);
		first = false;
	}
	va_end(ap);
	if (fclose(m)) {
		fputs("neuronprof: out of memory\n", stderr);
		exit(EXIT_FAIL);
	}
	for (size_t i = 0; i < p->n; i++) {
		if (p->s[i].fam == fam && !strcmp(p->s[i].labels, labels)) {
			free(labels);
			return i;
		}
	}
	p->s = xgrow(p->s, p->n, &p->cap, sizeof(*p->s));
	p->s[p->n] = (struct prom_series){ .fam = fam, .labels = labels };
	return p->n++;
}

static void help_escaped(FILE *m, const char *h)
{
	for (; *h; h++) {
		if (*h == '\\')
			fputs("\\\\", m);
		else if (*h == '\n')
			fputs("\\n", m);
		else
			fputc(*h, m);
	}
}

int prom_render(const struct prom *p, char **buf, size_t *len)
{
	FILE *m;

	*buf = NULL;
	*len = 0;
	m = open_memstream(buf, len);
	if (!m)
		return -1;
	for (size_t f = 0; f < p->nfams; f++) {
		const struct prom_family *fa = &p->fams[f];
		bool head = false;

		for (size_t i = 0; i < p->n; i++) {
			const struct prom_series *s = &p->s[i];

			if (s->fam != f)
				continue;
			if (!head) {
				fprintf(m, "# HELP %s ", fa->name);
				help_escaped(m, fa->help);
				fprintf(m, "\n# TYPE %s %s\n", fa->name,
					fa->type == PROM_COUNTER ? "counter" : "gauge");
				head = true;
			}
			fputs(fa->name, m);
			if (*s->labels)
				fprintf(m, "{%s}", s->labels);
			switch (fa->unit) {
			case PROM_INT:
				fprintf(m, " %" PRIu64 "\n", s->u);
				break;
			case PROM_NS_AS_SECONDS:
				fprintf(m, " %" PRIu64 ".%09" PRIu64 "\n", s->u / UINT64_C(1000000000),
					s->u % UINT64_C(1000000000));
				break;
			case PROM_REAL:
				fprintf(m, " %.17g\n", s->d);
				break;
			}
		}
	}
	if (fclose(m)) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	return 0;
}

/* ---- the textfile ------------------------------------------------------------ */

static const char *kind_of(mode_t m)
{
	static const struct {
		mode_t type;
		const char *name;
	} kinds[] = {
		{ S_IFLNK, "a symbolic link" },
		{ S_IFDIR, "a directory" },
		{ S_IFIFO, "a FIFO" },
		{ S_IFSOCK, "a socket" },
		{ S_IFCHR, "a character device" },
		{ S_IFBLK, "a block device" },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((m & S_IFMT) == kinds[i].type)
			return kinds[i].name;
	return "not a regular file";
}

int textfile_check(const char *path, char *why, size_t len)
{
	size_t n = strlen(path);
	char *dup, *dir;
	struct stat st;
	int ret = 0;

	if (n < 6 || strcmp(path + n - 5, ".prom") || path[n - 6] == '/') {
		snprintf(why, len, "%s: the name must end with .prom (the textfile collector reads only those)",
			 path);
		return -1;
	}
	if (!lstat(path, &st)) {
		if (!S_ISREG(st.st_mode)) {
			snprintf(why, len, "%s is %s, not a regular file: refusing to replace it",
				 path, kind_of(st.st_mode));
			return -1;
		}
		return 0;
	}
	if (errno != ENOENT) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	dup = xstrdup(path);
	dir = dirname(dup);
	if (stat(dir, &st)) {
		snprintf(why, len, "%s: directory %s: %s", path, dir, strerror(errno));
		ret = -1;
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s: %s is not a directory", path, dir);
		ret = -1;
	}
	free(dup);
	return ret;
}

int textfile_write(const char *path, const char *buf, size_t len, char *why, size_t wlen)
{
	char *d1 = xstrdup(path), *d2 = xstrdup(path), *tmp = NULL;
	const char *dir = dirname(d1), *base = basename(d2);
	int fd = -1, dfd, ret = -1;
	size_t off = 0;

	if (asprintf(&tmp, "%s/.%s.XXXXXX", dir, base) < 0) {
		tmp = NULL;
		snprintf(why, wlen, "out of memory");
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(why, wlen, "cannot create a temporary file in %s: %s", dir, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			snprintf(why, wlen, "%s: %s", tmp, w < 0 ? strerror(errno) : "short write");
			goto out_unlink;
		}
		off += (size_t)w;
	}
	if (fchmod(fd, 0644) || fsync(fd)) {
		snprintf(why, wlen, "%s: %s", tmp, strerror(errno));
		goto out_unlink;
	}
	if (close(fd)) {
		fd = -1;
		snprintf(why, wlen, "%s: %s", tmp, strerror(errno));
		goto out_unlink;
	}
	fd = -1;
	/* Something else may have appeared at the name since the start. */
	if (textfile_check(path, why, wlen))
		goto out_unlink;
	if (rename(tmp, path)) {
		snprintf(why, wlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		goto out_unlink;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);	/* the rename on disk; a failure changes nothing for readers */
		close(dfd);
	}
	ret = 0;
	goto out;
out_unlink:
	if (fd >= 0)
		close(fd);
	fd = -1;
	unlink(tmp);
out:
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(d1);
	free(d2);
	return ret;
}
