// SPDX-License-Identifier: MIT
/*
 * The one check of a caller-sized struct (a public struct whose first
 * member is its size, so it can grow): util/internal.h, NPROF_SIZED_VALID().
 */
#include <errno.h>
#include <string.h>

#include "util/internal.h"

int nprof_sized_valid(const void *p, size_t oldest, size_t ours, enum nprof_sized_dir dir,
		      const char *name)
{
	const unsigned char *b = p;
	size_t size, i;
	int ret = 0;

	memcpy(&size, p, sizeof(size));
	if (size < oldest) {
		if (oldest == ours)
			ret = nprof_err(EINVAL, "%s size %zu is smaller than %zu", name, size, oldest);
		else
			ret = nprof_err(EINVAL, "%s size %zu is smaller than %zu (this library's is %zu)",
					name, size, oldest, ours);
	} else if (dir == NPROF_SIZED_IN) {
		for (i = ours; i < size && i < ours + NPROF_SIZED_TAIL_MAX; i++) {
			if (b[i]) {
				ret = nprof_err(EINVAL,
						"%s size %zu has a non-zero byte at offset %zu, past the %zu bytes this library knows",
						name, size, i, ours);
				break;
			}
		}
	}
	/* For the entry points that return a pointer: NULL with errno set. */
	if (ret)
		errno = -ret;
	return ret;
}

int nprof_sized_out_clear(void *p, size_t ours, const char *name)
{
	size_t size;
	int ret = nprof_sized_valid(p, ours, ours, NPROF_SIZED_OUT, name);

	if (ret)
		return ret;
	memcpy(&size, p, sizeof(size));
	memset((char *)p + sizeof(size), 0, (size < ours ? size : ours) - sizeof(size));
	return 0;
}
