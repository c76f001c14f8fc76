// SPDX-License-Identifier: MIT
/*
 * Temporary files for the writers that rename a file into place only once
 * it is complete (the NTFF writer, the system-profile writer), so a reader
 * never sees a partial file under its final name; and the one function that
 * puts a complete file at its name, which renames over a regular file only:
 * a device or a FIFO is written in place, a symbolic link is followed
 * (Documentation/design.rst, "Writing an output"). Also how a writer given
 * a directory by name opens it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/internal.h"
#include "util/place.h"

int nprof_dir_open(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return nprof_err(errno, "cannot open directory %s: %s", dir, strerror(errno));
	return fd;
}

static uint64_t tmp_suffix(void)
{
	static _Atomic uint64_t counter;
	struct timespec ts;
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	/* No entropy yet (early boot): still unique within this host. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)getpid() << 40) ^ ((uint64_t)ts.tv_nsec << 8) ^ (uint64_t)ts.tv_sec ^
	       atomic_fetch_add(&counter, 1);
}

/*
 * Draw temporary names for @name in @dirfd until @try does not say EEXIST
 * (another writer of the same name may hold a suffix).
 */
static int tmp_name_loop(int dirfd, const char *name, char *tmp, size_t size,
			 int (*try)(int dirfd, const char *tmp, void *arg), void *arg)
{
	int tries, ret = -EEXIST;

	for (tries = 0; tries < 100 && ret == -EEXIST; tries++) {
		snprintf(tmp, size, ".%s.%016" PRIx64 ".tmp", name, tmp_suffix());
		ret = try(dirfd, tmp, arg);
	}
	if (ret)
		tmp[0] = '\0';
	return ret;
}

static int try_link(int dirfd, const char *tmp, void *arg)
{
	int fd = *(int *)arg;
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, dirfd, tmp, AT_SYMLINK_FOLLOW))
		return 0;
	/* Without /proc, the privileged way. */
	if (errno == ENOENT && !linkat(fd, "", dirfd, tmp, AT_EMPTY_PATH))
		return 0;
	return -errno;
}

int nprof_tmpfile_link(int fd, int dirfd, const char *name, char *tmp, size_t size)
{
	return tmp_name_loop(dirfd, name, tmp, size, try_link, &fd);
}

struct rename_arg {
	int olddirfd;
	const char *oldname;
};

static int try_rename(int dirfd, const char *tmp, void *arg)
{
	const struct rename_arg *r = arg;

	return renameat2(r->olddirfd, r->oldname, dirfd, tmp, RENAME_NOREPLACE) ? -errno : 0;
}

int nprof_tmpfile_rename(int olddirfd, const char *oldname, int dirfd, const char *name,
			 char *tmp, size_t size)
{
	struct rename_arg r = { olddirfd, oldname };

	return tmp_name_loop(dirfd, name, tmp, size, try_rename, &r);
}

static int try_create(int dirfd, const char *tmp, void *arg)
{
	int fd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	*(int *)arg = fd;
	return 0;
}

int nprof_tmpfile_create(int dirfd, const char *name, char *tmp, size_t size)
{
	int fd = -1, ret;

	ret = tmp_name_loop(dirfd, name, tmp, size, try_create, &fd);
	if (ret) {
		errno = -ret;
		return -1;
	}
	return fd;
}

/* ---- putting a complete file at its name ------------------------------------ */

/* Copy all of @in (from offset 0) to @out at its current position. */
static int copy_all(int in, int out, const char *label)
{
	char *buf = NULL;
	struct stat st;
	off_t off = 0;
	int ret = 0;

	if (fstat(in, &st))
		return nprof_err(errno, "cannot stat the temporary file of %s: %s", label,
				 strerror(errno));
	/* In the kernel when it can (any output since Linux 2.6.33), else through a buffer. */
	while (off < st.st_size) {
		ssize_t n = sendfile(out, in, &off, (size_t)(st.st_size - off));

		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EINVAL || errno == ENOSYS) && !off)
			break;
		return nprof_err(n ? errno : EIO, "cannot write %s: %s", label,
				 n ? strerror(errno) : "the temporary file ended early");
	}
	if (off < st.st_size) {
		buf = malloc(1 << 20);
		if (!buf)
			return nprof_err(ENOMEM, "cannot allocate a copy buffer for %s", label);
	}
	while (off < st.st_size && !ret) {
		ssize_t n = pread(in, buf, 1 << 20, off), done = 0;

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			ret = nprof_err(n ? errno : EIO, "cannot read the temporary file of %s: %s",
					label, n ? strerror(errno) : "it ended early");
			break;
		}
		while (done < n && !ret) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));

			if (w > 0)
				done += w;
			else if (w < 0 && errno != EINTR)
				ret = nprof_err(errno, "cannot write %s: %s", label, strerror(errno));
		}
		off += n;
	}
	free(buf);
	return ret;
}

/* A device or a FIFO: the bytes go into it; nothing is renamed or unlinked there. */
static int place_in_place(int fd, int tmpdirfd, char *tmp, const struct nprof_place *t,
			  const char *label, bool *placed)
{
	int out, ret;

	out = openat(t->dirfd, t->name, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (out < 0)
		return nprof_err(errno, "cannot open %s: %s", label, strerror(errno));
	ret = copy_all(fd, out, label);
	if (close(out) && !ret)
		ret = nprof_err(errno, "cannot write %s: %s", label, strerror(errno));
	if (!ret && tmp[0]) {
		unlinkat(tmpdirfd, tmp, 0);
		tmp[0] = '\0';
	}
	*placed = !ret;
	return ret;
}

static bool same_dir(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Absent or a regular file: a temporary in the target's directory, renamed over it. */
static int place_rename(int fd, int tmpdirfd, char *tmp, const struct nprof_place *t,
			bool noreplace, const char *label, bool *placed)
{
	unsigned int flags = noreplace ? RENAME_NOREPLACE : 0;
	char there[NAME_MAX + 1];
	int ret, out;

	if (tmp[0] && same_dir(tmpdirfd, t->dirfd)) {
		if (renameat2(tmpdirfd, tmp, t->dirfd, t->name, flags))
			return nprof_err(errno, "cannot put %s in place: %s", label, strerror(errno));
		tmp[0] = '\0';
		goto placed;
	}
	/* First a temporary name in the target's directory: linked, moved or copied there. */
	if (tmp[0])
		ret = nprof_tmpfile_rename(tmpdirfd, tmp, t->dirfd, t->name, there, sizeof(there));
	else
		ret = nprof_tmpfile_link(fd, t->dirfd, t->name, there, sizeof(there));
	if (!ret) {
		tmp[0] = '\0';
	} else if (ret == -EXDEV) {
		nprof_log(NPROF_LOG_DEBUG, "%s: another file system than its temporary file; "
			  "copying", label);
		out = nprof_tmpfile_create(t->dirfd, t->name, there, sizeof(there));
		if (out < 0)
			return nprof_err(errno, "cannot create a temporary file for %s: %s", label,
					 strerror(errno));
		ret = copy_all(fd, out, label);
		if (!ret && fsync(out))
			ret = nprof_err(errno, "cannot sync the copy of %s: %s", label,
					strerror(errno));
		close(out);
		if (ret) {
			unlinkat(t->dirfd, there, 0);
			return ret;
		}
		if (tmp[0]) {
			unlinkat(tmpdirfd, tmp, 0);
			tmp[0] = '\0';
		}
	} else {
		return nprof_err(-ret, "cannot link %s into its directory: %s", label,
				 strerror(-ret));
	}
	if (renameat2(t->dirfd, there, t->dirfd, t->name, flags)) {
		ret = nprof_err(errno, "cannot put %s in place: %s", label, strerror(errno));
		unlinkat(t->dirfd, there, 0);
		return ret;
	}
placed:
	*placed = true;
	/* The rename is durable only once the directory is. */
	if (fsync(t->dirfd))
		return nprof_err(errno, "cannot sync the directory of %s: %s", label,
				 strerror(errno));
	return 0;
}

int nprof_tmpfile_place(int fd, int tmpdirfd, char *tmp, int dirfd, const char *name,
			bool noreplace, const char *label, bool *placed)
{
	struct nprof_place t = { .dirfd = dirfd };
	bool done = false;
	char why[PATH_MAX + 256];
	int ret = 0;

	if (strlen(name) > NAME_MAX)
		return nprof_err(ENAMETOOLONG, "cannot write %s: name longer than %d bytes", label,
				 NAME_MAX);
	memcpy(t.name, name, strlen(name) + 1);
	/* Nothing may exist under the name: no link is followed, the rename says EEXIST. */
	if (!noreplace) {
		ret = nprof_place_follow(&t, label, why, sizeof(why));
		if (ret)
			ret = nprof_err(-ret, "%s", why);
	}
	if (!ret && t.exists && S_ISDIR(t.st.st_mode))
		ret = nprof_err(EISDIR, "cannot write %s: it is a directory", label);
	else if (!ret && !noreplace && t.exists && !S_ISREG(t.st.st_mode))
		ret = place_in_place(fd, tmpdirfd, tmp, &t, label, &done);
	else if (!ret)
		ret = place_rename(fd, tmpdirfd, tmp, &t, noreplace, label, &done);
	nprof_place_release(&t);
	if (placed)
		*placed = done;
	return ret;
}
