/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof internals shared between source files. Nothing here is
 * exported (the library is built with -fvisibility=hidden).
 */
#ifndef NEURONPROF_INTERNAL_H
#define NEURONPROF_INTERNAL_H

#include <stdarg.h>
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
 * Create the temporary file of @name in @dirfd (exclusive, write-only, mode
 * 0644 less the umask, close-on-exec) under a fresh random suffix; its name
 * goes to @tmp (@size bytes). Return: the descriptor, or -1 with errno set
 * and @tmp emptied.
 */
int nprof_tmpfile_create(int dirfd, const char *name, char *tmp, size_t size);

/*
 * Internal view of the config objects, shared by config.c and env.c.
 */
#include <limits.h>
#include <stdbool.h>
#include <neuronprof/config.h>

struct nprof_sys_trace_config {
	uint64_t max_events_per_nc;
	uint64_t event_type_mask;		/* bit per enum nprof_sys_trace_event_type */
	uint8_t capture_nc[NPROF_MAX_CORES];	/* 1 = capture */
};

struct nprof_inspect_config {
	int session_id;
	unsigned int activities;		/* enum nprof_activity bits */
	enum nprof_device_profile_mode device_profile_mode;
	bool enable_inspect;
	bool enable_inspect_on_fail;
	uint8_t capture_nc[NPROF_MAX_CORES];
	uint64_t ring_size[NPROF_QUEUE_TYPES];	/* bytes */
	struct nprof_sys_trace_config sys_trace;
	char output_dir[PATH_MAX];
};

/* Parse "group or name" event-type selectors into a mask; 0 or -EINVAL. */
int nprof_sys_trace_event_selector(const char *name, uint64_t *mask);

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
