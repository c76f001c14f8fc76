// SPDX-License-Identifier: MIT
/*
 * Temporary files for the writers that rename a file into place only once
 * it is complete (the NTFF writer, the system-profile writer), so a reader
 * never sees a partial file under its final name.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "util/internal.h"

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
