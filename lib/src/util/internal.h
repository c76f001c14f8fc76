/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof internals shared between source files: errors and logging,
 * CRC32C, temporary files, name lists. Nothing here is exported (the
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

#include <neuronprof/common.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

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

/* Number of queue types the library knows (NPROF_QUEUE_TYPES). */
#define NPROF_QT_COUNT	NPROF_QUEUE_TYPES

#endif /* NEURONPROF_INTERNAL_H */
