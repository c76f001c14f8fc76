// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): writing a named output (export's -o, summary's CSV tables),
 * by the one rule of Documentation/design.rst ("Writing an output"):
 *   - a regular file, or a name that does not exist, is written to a
 *     temporary file in its directory and renamed over it only once
 *     complete, so it is never seen half written;
 *   - a character or block device, a FIFO, or "-" (standard output, where
 *     the command takes it) is written in place: never renamed over, never
 *     unlinked, never truncated;
 *   - a symbolic link is followed to the file it names (created if it does
 *     not exist), which the two rules above then apply to: the link stays
 *     (followed by the library's own code, lib/src/util/place.c);
 *   - a directory is refused before any work is done.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <neuronprof/output.h>

#include "util/output.h"
#include "util/util.h"
#include "src/util/place.h"

/*
 * The path @name leads to once its symbolic links are followed (allocated),
 * and what is there (*exists false for a new name): the library's walk
 * (lib/src/util/place.h), following links of any owner as cp does. NULL
 * after a message.
 */
static char *resolve(const char *name, struct stat *st, bool *exists)
{
	struct nprof_place p = { .track_dir = true, .any_owner = true };
	const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
	char why[PATH_MAX + 256], dir[PATH_MAX], *final = NULL;
	int ret;

	/* "dir/", "." or "..": a directory, which output_open() refuses. */
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) > NAME_MAX) {
		if (lstat(name, st)) {
			if (errno != ENOENT) {
				fail("cannot write %s: %s", name, strerror(errno));
				return NULL;
			}
			*exists = false;
		} else {
			*exists = true;
		}
		return xstrdup(name);
	}
	if (!slash)
		snprintf(p.dir, sizeof(p.dir), ".");
	else if (slash == name)
		snprintf(p.dir, sizeof(p.dir), "/");
	else
		snprintf(p.dir, sizeof(p.dir), "%.*s", (int)(slash - name), name);
	memcpy(p.name, base, strlen(base) + 1);
	p.dirfd = open(p.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p.dirfd < 0) {
		/* A new file in a directory that output_open() will make. */
		if (errno == ENOENT) {
			*exists = false;
			return xstrdup(name);
		}
		fail("cannot write %s: %s", name, strerror(errno));
		return NULL;
	}
	p.own_dirfd = true;
	snprintf(dir, sizeof(dir), "%s", p.dir);
	ret = nprof_place_follow(&p, name, why, sizeof(why));
	if (ret) {
		fail("%s", why);
	} else {
		*exists = p.exists;
		*st = p.st;
		if (!strcmp(p.name, base) && !strcmp(p.dir, dir)) {
			final = xstrdup(name);	/* no link on the way */
		} else {
			size_t n = strlen(p.dir) + 1 + strlen(p.name) + 1;

			final = xrealloc(NULL, n);
			snprintf(final, n, "%s/%s", p.dir, p.name);
		}
	}
	nprof_place_release(&p);
	return final;
}

/*
 * A new file named by @fmt and @arg (ending in XXXXXX), its name into *@path.
 * Return: its descriptor, or -1 with *@path NULL and errno saying why.
 */
static int temp_file(char **path, const char *fmt, const char *arg)
{
	int fd, err;

	if (asprintf(path, fmt, arg) < 0) {
		*path = NULL;
		errno = ENOMEM;
		return -1;
	}
	fd = mkstemp(*path);
	if (fd < 0) {
		err = errno;
		free(*path);
		*path = NULL;
		errno = err;
	}
	return fd;
}

int output_mkdir(const char *dir, const char *name)
{
	int fd = nprof_output_mkdir_p(dir, 0777);

	if (fd < 0) {
		if (strcmp(dir, name))
			fail("cannot create directory %s for %s: %s", dir, name, strerror(-fd));
		else
			fail("cannot create directory %s: %s", dir, strerror(-fd));
		return -1;
	}
	close(fd);
	return 0;
}

/* Create the missing directories above the new file @path (named @name). */
static int make_parent(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	char *dir;
	int rc = 0;

	if (!slash || slash == path)
		return 0;
	dir = xstrdup(path);
	dir[slash - path] = '\0';
	if (stat(dir, &st) && errno == ENOENT)
		rc = output_mkdir(dir, name);
	free(dir);
	return rc;
}

int output_open(struct output *o, const char *name, unsigned int flags)
{
	struct stat st;
	bool exists;
	mode_t um;
	int fd;

	memset(o, 0, sizeof(*o));
	o->name = name;
	o->fd = -1;
	if (!strcmp(name, "-")) {
		if (!(flags & OUTPUT_STDOUT)) {
			fail("-: standard output is not an output of this command");
			return -1;
		}
		o->to_stdout = true;
		o->in_place = true;
		o->fd = STDOUT_FILENO;
		o->f = stdout;
	} else {
		o->final = resolve(name, &st, &exists);
		if (!o->final)
			return -1;
		if (exists && S_ISDIR(st.st_mode)) {
			fail("cannot write %s: it is a directory", name);
			output_abort(o);
			return -1;
		}
		if (exists && !S_ISREG(st.st_mode)) {
			/* A device or FIFO (a FIFO's open waits for its reader). */
			o->in_place = true;
			o->fd = open(o->final, O_WRONLY | O_CLOEXEC | O_NOCTTY);
			if (o->fd < 0) {
				fail("cannot open %s: %s", name, strerror(errno));
				output_abort(o);
				return -1;
			}
		}
	}
	if (o->in_place && (flags & OUTPUT_BY_NAME)) {
		/* The writer needs a file to seek in: a scratch one, copied at commit. */
		const char *dir = getenv("TMPDIR");

		o->f = NULL;

		fd = temp_file(&o->scratch, "%s/neuronprof-output.XXXXXX", dir && *dir ? dir : "/tmp");
		if (fd < 0) {
			fail("cannot create a scratch file for %s: %s", name, strerror(errno));
			output_abort(o);
			return -1;
		}
		close(fd);
		o->path = o->scratch;
		return 0;
	}
	if (o->in_place) {
		if (!o->f)
			o->f = fdopen(o->fd, "w");
		if (!o->f) {
			fail("cannot open %s: %s", name, strerror(errno));
			output_abort(o);
			return -1;
		}
		return 0;
	}
	/* A new name in a missing directory: the directory is made, as record's. */
	if (!exists && make_parent(o->final, name)) {
		output_abort(o);
		return -1;
	}
	/* A regular file or a new name: a temporary beside it. */
	fd = temp_file(&o->tmp, "%s.tmp.XXXXXX", o->final);
	if (fd < 0) {
		fail("cannot create %s: %s", name, strerror(errno));
		output_abort(o);
		return -1;
	}
	/* mkstemp makes 0600: a replaced file keeps its mode, a new one gets the umask's. */
	um = umask(0);
	umask(um);
	if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~um))
		warn("cannot set the mode of %s: %s", name, strerror(errno));
	if (flags & OUTPUT_BY_NAME) {
		close(fd);
		o->path = o->tmp;
		return 0;
	}
	o->fd = fd;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		fail("cannot open %s: %s", name, strerror(errno));
		output_abort(o);
		return -1;
	}
	return 0;
}

/* The scratch file's bytes into the target, at its current position. */
static int copy_scratch(struct output *o)
{
	int in = open(o->scratch, O_RDONLY | O_CLOEXEC);
	char buf[1 << 16];
	struct stat st;
	off_t off = 0;
	int ret = 0;

	if (in < 0 || fstat(in, &st)) {
		ret = fail("cannot read the scratch file of %s: %s", o->name, strerror(errno));
		goto out;
	}
	while (off < st.st_size) {
		ssize_t n = sendfile(o->fd, in, &off, (size_t)(st.st_size - off));

		if (n > 0 || (n < 0 && errno == EINTR))
			continue;
		if (n < 0 && (errno == EINVAL || errno == ENOSYS) && !off)
			break;		/* not into this output: through a buffer */
		ret = fail("cannot write %s: %s", o->name, n ? strerror(errno) : "short copy");
		goto out;
	}
	while (off < st.st_size) {
		ssize_t n = pread(in, buf, sizeof(buf), off), done = 0;

		if (n <= 0) {
			ret = fail("cannot read the scratch file of %s: %s", o->name,
				   n ? strerror(errno) : "it ended early");
			goto out;
		}
		while (done < n) {
			ssize_t w = write(o->fd, buf + done, (size_t)(n - done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				ret = fail("cannot write %s: %s", o->name, strerror(errno));
				goto out;
			}
			done += w;
		}
		off += n;
	}
out:
	if (in >= 0)
		close(in);
	return ret;
}

int output_commit(struct output *o)
{
	int ret = 0;

	if (o->to_stdout && o->f) {
		ret = flush_stdout();
		o->f = NULL;
	} else if (o->f) {
		if (fflush(o->f) || ferror(o->f))
			ret = fail("cannot write %s: %s", o->name, strerror(errno));
		else if (o->tmp && fsync(fileno(o->f)))
			ret = fail("cannot write %s: %s", o->name, strerror(errno));
		if (fclose(o->f) && !ret)
			ret = fail("cannot write %s: %s", o->name, strerror(errno));
		o->f = NULL;
		o->fd = -1;
	} else if (o->scratch) {
		ret = copy_scratch(o);
		if (o->to_stdout)
			o->fd = -1;
	} else if (o->tmp) {
		/* Written by name (SQLite): synced through a descriptor of its own. */
		int fd = open(o->tmp, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || fsync(fd))
			ret = fail("cannot write %s: %s", o->name, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	if (!ret && o->tmp) {
		if (rename(o->tmp, o->final)) {
			ret = fail("cannot put %s in place: %s", o->name, strerror(errno));
		} else {
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	output_abort(o);
	return ret ? EXIT_FAIL : 0;
}

void output_abort(struct output *o)
{
	/* Never the target itself: only what this output made. */
	if (o->f && !o->to_stdout)
		fclose(o->f);
	else if (o->fd >= 0 && !o->to_stdout)
		close(o->fd);
	o->f = NULL;
	o->fd = -1;
	if (o->tmp)
		unlink(o->tmp);
	if (o->scratch)
		unlink(o->scratch);
	free(o->tmp);
	free(o->scratch);
	free(o->final);
	o->tmp = o->scratch = o->final = NULL;
	o->path = NULL;
}
