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

int nprof_tmpfile_create(int dirfd, const char *name, char *tmp, size_t size)
{
	int tries, fd = -1;

	/* Another writer of the same name may hold a suffix: draw again. */
	for (tries = 0; tries < 100; tries++) {
		snprintf(tmp, size, ".%s.%016" PRIx64 ".tmp", name, tmp_suffix());
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		tmp[0] = '\0';	/* nothing to unlink */
	return fd;
}
