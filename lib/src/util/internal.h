/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof internals shared between source files: errors and logging,
 * CRC32C, temporary files, name lists, the check of caller-sized structs. Nothing here is exported (the
 * library is built with -fvisibility=hidden).
 *
 * util/ is layer 1 of the library (lib/src/README): it may call nothing
 * but the C library; every other layer may call it.
 */
#ifndef NEURONPROF_INTERNAL_H
#define NEURONPROF_INTERNAL_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <neuronprof/common.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* CLOCK_MONOTONIC now, in nanoseconds. */
static inline uint64_t nprof_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#define NPROF_PRINTF(f, a)	__attribute__((format(printf, f, a)))

/*
 * Record the thread's last-error message and return -errnum, so a failing
 * path reads "return nprof_err(EINVAL, "...", ...);".
 */
int nprof_err(int errnum, const char *fmt, ...) NPROF_PRINTF(2, 3);

/* Same for pointer functions: records the message, sets errno, returns NULL. */
void *nprof_err_ptr(int errnum, const char *fmt, ...) NPROF_PRINTF(2, 3);

/* The current message, for prefixing it ("while X: <message>"). */
const char *nprof_err_current(void);

/* Log through the installed handler when @level is enabled. */
void nprof_log(enum nprof_log_level level, const char *fmt, ...) NPROF_PRINTF(2, 3);

/*
 * CRC32C (Castagnoli). crc32c_update() continues a checksum: start with
 * crc = 0 and feed buffers in order; the result equals the checksum of their
 * concatenation (pre- and post-inversion are handled inside).
 */
uint32_t nprof_crc32c_update(uint32_t crc, const void *buf, size_t len);

/* The portable table implementation, always available (tests compare). */
uint32_t nprof_crc32c_update_sw(uint32_t crc, const void *buf, size_t len);

/* The crc32-instruction path without carry-less folding (tests compare). */
uint32_t nprof_crc32c_update_crc32_insn(uint32_t crc, const void *buf, size_t len);

/* Whether nprof_crc32c_update() uses the SSE4.2 instruction. */
int nprof_crc32c_hw_available(void);

/*
 * Open the directory @dir for a writer to write in (O_RDONLY | O_DIRECTORY
 * | O_CLOEXEC): the descriptor, or -errno with "cannot open directory @dir:
 * <why>" recorded.
 */
int nprof_dir_open(const char *dir);

/* The temporary name of a file "name" is ".name.<16 hex digits>.tmp". */
#define NPROF_TMP_EXTRA	(1 + 1 + 16 + 4)

/*
 * Create the temporary file of @name in @dirfd (exclusive, read-write, mode
 * 0644 less the umask, close-on-exec) under a fresh random suffix; its name
 * goes to @tmp (@size bytes). Return: the descriptor, or -1 with errno set
 * and @tmp emptied.
 */
int nprof_tmpfile_create(int dirfd, const char *name, char *tmp, size_t size);

/*
 * Give the file open at @fd (an O_TMPFILE one, without a name) the
 * temporary name of @name in @dirfd, written to @tmp. Return 0 or -errno
 * (-EXDEV: another file system), @tmp emptied on failure.
 */
int nprof_tmpfile_link(int fd, int dirfd, const char *name, char *tmp, size_t size);

/* Move @oldname of @olddirfd to the temporary name of @name in @dirfd, as above. */
int nprof_tmpfile_rename(int olddirfd, const char *oldname, int dirfd, const char *name,
			 char *tmp, size_t size);

/*
 * nprof_tmpfile_place() - put the complete file open at @fd at @name in
 * @dirfd, by the rule of every writer of a named output
 * (Documentation/design.rst, "Writing an output"):
 *  - @name absent or a regular file: the file is renamed over it (from
 *    @tmp, its hidden name in @tmpdirfd, or linked in first when @tmp is ""
 *    as for an O_TMPFILE file; copied first when the target's directory is
 *    on another file system), and the target's directory is synced;
 *  - a symbolic link: followed (at most 40 links, each owned by the
 *    effective uid or root, else -EPERM), and the file it names (which may
 *    not exist yet) is treated by this rule; the link stays;
 *  - a character or block device, a FIFO: the file's bytes are written
 *    into it in place; it is never renamed over nor unlinked;
 *  - a directory: -EISDIR; a socket: the error of opening it.
 * With @noreplace, @name must not exist at all, not even as a link:
 * -EEXIST. @label names the file in messages. *@placed (when not NULL)
 * says whether the file reached its target, which a failure can follow
 * (the sync of the directory).
 *
 * Return: 0, with the temporary gone (@tmp emptied); or -errno with the
 * message recorded and @tmp, when not "", still naming the temporary for
 * the caller to remove.
 */
int nprof_tmpfile_place(int fd, int tmpdirfd, char *tmp, int dirfd, const char *name,
			bool noreplace, const char *label, bool *placed);

/*
 * Copy the names @src[i] (i < @n <= 64) whose bit i is set in @mask into a
 * fresh array of fresh strings; nprof_free_name_list() releases it.
 */
int nprof_dup_name_list(const char *const *src, size_t n, uint64_t mask, const char ***names,
			size_t *count);
void nprof_free_name_list(const char **names, size_t count);

/*
 * Caller-sized structs. A public struct that can grow has "size_t size" as
 * its first member, which the caller sets to the sizeof it was compiled
 * with; members are only ever appended, so any size from the struct's
 * first version (@oldest) up is one some caller may pass. Every entry point
 * given such a struct checks it with nprof_sized_valid(), through
 * NPROF_SIZED_VALID() or NPROF_SIZED_VALID_SINCE(), and nothing else:
 *  - a size below @oldest is refused;
 *  - a struct the library reads (NPROF_SIZED_IN) is refused if any of the
 *    caller's bytes past the @ours this library knows is non-zero: a newer
 *    caller set a member this library does not have, asking for something
 *    it cannot do (at most NPROF_SIZED_TAIL_MAX bytes past @ours are read);
 *  - a struct the library fills (NPROF_SIZED_OUT) may be of any size from
 *    @oldest up; bytes past @ours are the caller's and left alone.
 * The entry point then reads or fills min(size, @ours) bytes and leaves
 * size as the caller set it. @name names the struct in the message.
 *
 * Return: 0, or -EINVAL with the message recorded ("<name> size N is
 * smaller than M", "<name> size N has a non-zero byte at offset O, ...")
 * and errno set to EINVAL, so an entry point returning a pointer returns
 * NULL.
 */
enum nprof_sized_dir {
	NPROF_SIZED_IN,		/* the library reads it */
	NPROF_SIZED_OUT,	/* the library fills it */
};

#define NPROF_SIZED_TAIL_MAX	4096

int nprof_sized_valid(const void *p, size_t oldest, size_t ours, enum nprof_sized_dir dir,
		      const char *name);

/* @p points to a struct @type (the tag: NPROF_SIZED_VALID(q, nprof_nq_params, ...)). */
#define NPROF_SIZED_VALID(p, type, dir) \
	nprof_sized_valid((p), sizeof(struct type), sizeof(struct type), (dir), "struct " #type)

/* The same for a struct that grew: its first version was @oldest bytes. */
#define NPROF_SIZED_VALID_SINCE(p, type, oldest, dir) \
	nprof_sized_valid((p), (oldest), sizeof(struct type), (dir), "struct " #type)

/*
 * An entry point's first step with a struct @type it fills, @p: checked as
 * NPROF_SIZED_VALID(@p, @type, NPROF_SIZED_OUT) does, then its @ours bytes
 * past size zeroed (the caller's bytes past them are left alone), so that
 * what the entry point does not set reads 0. Return: 0 or -EINVAL.
 */
#define NPROF_SIZED_OUT_CLEAR(p, type) \
	nprof_sized_out_clear((p), sizeof(struct type), "struct " #type)

int nprof_sized_out_clear(void *p, size_t ours, const char *name);

/* Number of queue types the library knows (NPROF_QUEUE_TYPES). */
#define NPROF_QT_COUNT	NPROF_QUEUE_TYPES

#endif /* NEURONPROF_INTERNAL_H */
