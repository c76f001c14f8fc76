/* SPDX-License-Identifier: MIT */
/*
 * The targets a writer must not replace (Documentation/design.rst,
 * "Writing an output"), for the tests of every writer of the library: a
 * character device node of the test's own (a copy of /dev/null's numbers,
 * 1:3, made with mknod(2) in the test's directory, so that the real
 * /dev/null is never at stake), a FIFO with a reader process that keeps
 * what it reads in a file, and a symbolic link.
 */
#ifndef NPROF_TEST_SPECIAL_FILES_H
#define NPROF_TEST_SPECIAL_FILES_H

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * make_null_node() - a character device node 1:3 at @path.
 * Return: NULL, or why there is none (the reason of a SKIP: mknod of a
 * device needs root).
 */
static inline const char *make_null_node(const char *path)
{
	if (geteuid())
		return "mknod of a character device node needs root";
	if (mknod(path, S_IFCHR | 0666, makedev(1, 3)))
		return "mknod of a character device node failed";
	return NULL;
}

/* @path is still the character device node 1:3 that make_null_node() made. */
static inline bool is_null_node(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

static inline bool is_fifo(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISFIFO(st.st_mode);
}

static inline bool is_symlink(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISLNK(st.st_mode);
}

/*
 * fifo_reader_start() - make the FIFO @fifo and a process that reads it to
 * its end into the regular file @out. The reader gives up after 20 seconds
 * (a writer that never opens the FIFO fails the test instead of hanging it).
 * Return: the reader's pid, or -1.
 */
static inline pid_t fifo_reader_start(const char *fifo, const char *out)
{
	pid_t pid;

	if (mkfifo(fifo, 0644))
		return -1;
	pid = fork();
	if (pid)
		return pid;
	alarm(20);
	{
		int in = open(fifo, O_RDONLY), o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		char buf[65536];
		ssize_t n;

		if (in < 0 || o < 0)
			_exit(2);
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(o, buf, (size_t)n) != n)
				_exit(3);
		_exit(n ? 4 : 0);
	}
}

/* Wait for the reader (killed if it still runs): 0 when it read to the end. */
static inline int fifo_reader_finish(pid_t pid, bool kill_it)
{
	int status;

	if (kill_it)
		kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif /* NPROF_TEST_SPECIAL_FILES_H */
