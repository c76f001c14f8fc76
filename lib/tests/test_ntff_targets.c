// SPDX-License-Identifier: MIT
/*
 * Host tests of the NTFF writer on targets that are not regular files: a
 * FIFO, a character device, a symbolic link (also to another file system).
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>

#include "harness.h"
#include "special_files.h"
#include "util/internal.h"
#include "ntff/ntff_internal.h"
#include "ntff_test_util.h"

/* A one-queue file finalized as @name in dir; the return of finalize. */
static int write_small(const char *name, unsigned int flags)
{
	struct nprof_ntff_queue_desc q = { .size = sizeof(q), .entry_size = ENTRY };
	struct neuronprof_notification *ring = make_ring(8, NEURONPROF_QT_TRACE, 0);
	struct nprof_ntff_writer *w = nprof_ntff_writer_create(dir, name, flags);
	int ret;

	if (!w || !ring) {
		free(ring);
		nprof_ntff_writer_abort(w);
		return -ENOMEM;
	}
	CHECK_INT(nprof_ntff_writer_set_info(w, &sample_info), 0);
	CHECK_INT(nprof_ntff_writer_append(w, &q, ring, 8 * ENTRY, NULL, 0), 0);
	ret = nprof_ntff_writer_finalize(w);
	free(ring);
	return ret;
}

/* @path reads back as the file write_small() writes: one queue of 8 entries. */
static void check_small(const char *path)
{
	struct nprof_ntff_reader *r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	struct nprof_ntff_queue q = { .size = sizeof(q) };

	CHECK(r != NULL);
	if (!r) {
		printf("#   %s: %s\n", path, nprof_strerror_last());
		return;
	}
	CHECK_INT(nprof_ntff_reader_queue_count(r), 1);
	CHECK_INT(nprof_ntff_reader_queue(r, 0, &q), 0);
	CHECK_INT(q.entry_count, 8);
	nprof_ntff_reader_close(r);
}

/* A FIFO gets the whole file through it, in place, and stays a FIFO. */
TEST(ntff_writer_into_a_fifo)
{
	char fifo[PATH_MAX], got[PATH_MAX];
	pid_t reader;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	snprintf(fifo, sizeof(fifo), "%s/a.ntff", dir);
	snprintf(got, sizeof(got), "%s.read", dir);
	reader = fifo_reader_start(fifo, got);
	CHECK(reader > 0);
	CHECK_INT(write_small("a.ntff", 0), 0);
	CHECK_INT(fifo_reader_finish(reader, false), 0);
	CHECK(is_fifo(fifo));
	CHECK_INT(dir_entries(dir), 1);		/* no temporary left */
	check_small(got);
	/* NOREPLACE: the FIFO is a name that exists. */
	CHECK_INT(write_small("a.ntff", NPROF_NTFF_WRITE_NOREPLACE), -EEXIST);
	CHECK(is_fifo(fifo));
	CHECK_INT(dir_entries(dir), 1);
	unlink(got);
	rm_rf(dir);
}

/* A character device is written into, never renamed over nor unlinked. */
TEST(ntff_writer_into_a_character_device)
{
	char node[PATH_MAX];
	const char *why;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	snprintf(node, sizeof(node), "%s/a.ntff", dir);
	why = make_null_node(node);
	if (why) {
		rm_rf(dir);
		SKIP(why);
	}
	CHECK_INT(write_small("a.ntff", 0), 0);
	CHECK(is_null_node(node));
	CHECK_INT(dir_entries(dir), 1);
	rm_rf(dir);
}

/*
 * A symbolic link is followed: the file it names is created (a dangling
 * link), then replaced by a rename in its own directory; the link stays.
 * A link to a directory is refused before anything is renamed.
 */
TEST(ntff_writer_through_a_symlink)
{
	char link[PATH_MAX], sub[PATH_MAX], target[PATH_MAX];

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(link, sizeof(link), "%s/a.ntff", dir);
	snprintf(target, sizeof(target), "%s/sub/real.ntff", dir);
	CHECK_INT(mkdir(sub, 0755), 0);
	CHECK_INT(symlink("sub/real.ntff", link), 0);
	CHECK_INT(write_small("a.ntff", 0), 0);
	CHECK(is_symlink(link));
	check_small(target);
	CHECK_INT(dir_entries(dir), 2);		/* the link and sub/, no temporary */
	CHECK_INT(dir_entries(sub), 1);
	/* Again, over the regular file the link now names. */
	CHECK_INT(write_small("a.ntff", 0), 0);
	CHECK(is_symlink(link));
	check_small(target);
	CHECK_INT(dir_entries(dir), 2);
	CHECK_INT(dir_entries(sub), 1);
	/* A link to a link to a directory: refused, nothing renamed, nothing left. */
	snprintf(link, sizeof(link), "%s/dirlink", dir);
	CHECK_INT(symlink("sub", link), 0);
	snprintf(link, sizeof(link), "%s/d.ntff", dir);
	CHECK_INT(symlink("dirlink", link), 0);
	CHECK_ERR_MSG(write_small("d.ntff", 0), EISDIR, "cannot write d.ntff: it is a directory");
	CHECK(is_symlink(link));
	CHECK_INT(dir_entries(dir), 4);
	CHECK_INT(dir_entries(sub), 1);
	/* Another user's link (made so by root) is not followed. */
	if (!geteuid()) {
		snprintf(link, sizeof(link), "%s/o.ntff", dir);
		CHECK_INT(symlink("sub/o.ntff", link), 0);
		CHECK_INT(lchown(link, 65534, 65534), 0);
		CHECK_ERR_MSG(write_small("o.ntff", 0), EPERM,
			      "cannot write o.ntff: the symbolic link o.ntff belongs to uid 65534, neither this user nor root");
		CHECK(is_symlink(link));
		CHECK_INT(dir_entries(dir), 5);
		CHECK_INT(dir_entries(sub), 1);
	} else {
		printf("# not root: another user's link is not made\n");
	}
	rm_rf(dir);
}

/*
 * A link to a file on another file system (/dev/shm, a tmpfs): the file is
 * copied into a temporary beside the target and renamed there; nothing is
 * left in either directory but the link and the file.
 */
TEST(ntff_writer_through_a_symlink_to_another_file_system)
{
	char other[] = "/dev/shm/nprof-test-ntff-XXXXXX", link[PATH_MAX], target[PATH_MAX];
	struct stat a, b;

	if (!mkdtemp(other))
		SKIP("no /dev/shm to link to");
	if (!fresh_dir()) {
		rm_rf(other);
		FAIL("mkdtemp");
		return;
	}
	if (stat(other, &a) || stat(dir, &b) || a.st_dev == b.st_dev) {
		rm_rf(other);
		rm_rf(dir);
		SKIP("/dev/shm and /tmp are one file system");
	}
	snprintf(link, sizeof(link), "%s/a.ntff", dir);
	snprintf(target, sizeof(target), "%s/real.ntff", other);
	CHECK_INT(symlink(target, link), 0);
	CHECK_INT(write_small("a.ntff", 0), 0);
	CHECK(is_symlink(link));
	check_small(target);
	CHECK_INT(dir_entries(dir), 1);
	CHECK_INT(dir_entries(other), 1);
	rm_rf(other);
	rm_rf(dir);
}

HARNESS_MAIN
