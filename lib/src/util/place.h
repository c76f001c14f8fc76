/* SPDX-License-Identifier: MIT */
/*
 * Where a named output lands (place.c): its symbolic links followed, by
 * the one rule of every writer of the project (Documentation/design.rst,
 * "Writing an output"): at most 40 links, each naming a file (not a
 * directory) in the directory its other components name, and, for the
 * library's writers, each owned by the effective uid or root. The library's writers (tmpfile.c) and the tool's
 * outputs (tools/neuronprof/util/output.c) both follow links with it.
 *
 * The tool builds this file too (libneuronprof_common.a, lib/Makefile):
 * this header includes nothing but the C library's, and place.c reports
 * its failures in a buffer of the caller's rather than through error.c.
 */
#ifndef NEURONPROF_PLACE_H
#define NEURONPROF_PLACE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#define NPROF_PLACE_MAX_LINKS	40	/* as the kernel's path walk (MAXSYMLINKS) */

/**
 * struct nprof_place - a name in a directory, followed.
 * @dirfd: the directory holding @name (the caller's at first).
 * @own_dirfd: @dirfd was opened while following a link (nprof_place_release()
 *	closes it).
 * @name: a file name, no slash.
 * @dir: with @track_dir, the path of @dirfd as the caller named it at
 *	first, then joined with each link's directory part.
 * @track_dir: keep @dir.
 * @any_owner: follow links of any owner (the tool: its user named the path,
 *	as cp follows it); else only the effective uid's and root's.
 * @exists: something is at @name (after nprof_place_follow()).
 * @st: what, when it exists (lstat(), not followed: never a link then).
 */
struct nprof_place {
	int dirfd;
	bool own_dirfd;
	char name[NAME_MAX + 1];
	char dir[PATH_MAX];
	bool track_dir;
	bool any_owner;
	bool exists;
	struct stat st;
};

/*
 * nprof_place_follow() - follow @p's name while it is a symbolic link.
 * Return: 0; or -errno with a message naming @label in @why (@len bytes).
 */
int nprof_place_follow(struct nprof_place *p, const char *label, char *why, size_t len);

/* nprof_place_release() - close what nprof_place_follow() opened. */
void nprof_place_release(struct nprof_place *p);

#endif /* NEURONPROF_PLACE_H */
