// SPDX-License-Identifier: MIT
/*
 * Following a named output's symbolic links (place.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/place.h"

static void set_dir(struct nprof_place *p, int dirfd)
{
	if (p->own_dirfd)
		close(p->dirfd);
	p->dirfd = dirfd;
	p->own_dirfd = true;
}

/* @p->dir joined with the directory part @d of a link (absolute: replaced). */
static int join_dir(struct nprof_place *p, const char *d, const char *label, char *why,
		    size_t len)
{
	char joined[PATH_MAX];
	int n;

	if (d[0] == '/')
		n = snprintf(joined, sizeof(joined), "%s", d);
	else
		n = snprintf(joined, sizeof(joined), "%s/%s", p->dir, d);
	if (n < 0 || (size_t)n >= sizeof(joined)) {
		snprintf(why, len, "cannot write %s: the path its links lead to is too long", label);
		return -ENAMETOOLONG;
	}
	memcpy(p->dir, joined, (size_t)n + 1);
	return 0;
}

int nprof_place_follow(struct nprof_place *p, const char *label, char *why, size_t len)
{
	char link[PATH_MAX];
	const char *base;
	char *slash;
	ssize_t n;
	int fd, ret;

	for (int hops = 0;; hops++) {
		if (fstatat(p->dirfd, p->name, &p->st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT) {
				ret = -errno;
				snprintf(why, len, "cannot look at %s: %s", label, strerror(errno));
				return ret;
			}
			p->exists = false;
			return 0;
		}
		p->exists = true;
		if (!S_ISLNK(p->st.st_mode))
			return 0;
		if (hops == NPROF_PLACE_MAX_LINKS) {
			snprintf(why, len, "cannot write %s: more than %d symbolic links", label,
				 NPROF_PLACE_MAX_LINKS);
			return -ELOOP;
		}
		/* Another user's link may be a trap in a shared directory. */
		if (!p->any_owner && p->st.st_uid != geteuid() && p->st.st_uid != 0) {
			snprintf(why, len, "cannot write %s: the symbolic link %s belongs to uid %u, "
				 "neither this user nor root", label, p->name,
				 (unsigned int)p->st.st_uid);
			return -EPERM;
		}
		n = readlinkat(p->dirfd, p->name, link, sizeof(link));
		if (n < 0) {
			ret = -errno;
			snprintf(why, len, "cannot read the link %s: %s", label, strerror(errno));
			return ret;
		}
		if ((size_t)n >= sizeof(link)) {
			snprintf(why, len, "the link %s is too long to follow", label);
			return -ENAMETOOLONG;
		}
		link[n] = '\0';
		/* The link's last component, in the directory its other components name. */
		slash = strrchr(link, '/');
		base = slash ? slash + 1 : link;
		if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
			snprintf(why, len, "cannot write %s: the link %s names a directory", label, link);
			return -EISDIR;
		}
		if (strlen(base) > NAME_MAX) {
			snprintf(why, len, "cannot write %s: the link %s names a file name longer "
				 "than %d bytes", label, link, NAME_MAX);
			return -ENAMETOOLONG;
		}
		if (slash) {
			*slash = '\0';
			fd = openat(p->dirfd, slash == link ? "/" : link,
				    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0) {
				ret = -errno;
				snprintf(why, len, "cannot write %s: the directory %s its link leads "
					 "to: %s", label, slash == link ? "/" : link, strerror(errno));
				return ret;
			}
			set_dir(p, fd);
			if (p->track_dir) {
				ret = join_dir(p, slash == link ? "/" : link, label, why, len);
				if (ret)
					return ret;
			}
		}
		memmove(p->name, base, strlen(base) + 1);
	}
}

void nprof_place_release(struct nprof_place *p)
{
	if (p->own_dirfd)
		close(p->dirfd);
	p->own_dirfd = false;
}
