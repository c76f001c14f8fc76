/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: version, export macro, the base constants every part of
 * the library shares (cores, queue types, model names), error reporting
 * and logging. Every other public header includes it.
 */
#ifndef NEURONPROF_COMMON_H
#define NEURONPROF_COMMON_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * NPROF_API marks a function exported from libneuronprof.so. The library is
 * built with -fvisibility=hidden, so anything without it stays internal; the
 * linker map libneuronprof.map additionally puts every export in the
 * NEURONPROF_1.0 version node, and the build fails if the two disagree.
 */
#ifndef NPROF_API
#define NPROF_API __attribute__((visibility("default")))
#endif

/* Version of the library these headers belong to. */
#define NPROF_VERSION_MAJOR 1
#define NPROF_VERSION_MINOR 4
#define NPROF_VERSION_PATCH 0

/* NPROF_VERSION_CODE(1, 0, 0): one integer that orders versions. */
#define NPROF_VERSION_CODE(major, minor, patch) \
	(((major) << 16) | ((minor) << 8) | (patch))

/* ---- base constants ------------------------------------------------------ */

/* Number of NeuronCores a configuration can address (indices 0..255). */
#define NPROF_MAX_CORES			256

/* Number of device queue types (enum neuronprof_queue_type in the uapi). */
#define NPROF_QUEUE_TYPES		9

/* Longest model name, without the NUL. */
#define NPROF_MODEL_NAME_MAX		200

/* Status of an execution: 0 is success; other values are failures. The
 * NRT_STATUS values of <nrt/nrt_status.h> are a good choice. */
#define NPROF_EXEC_OK			0u

/**
 * nprof_version() - version of the running library.
 *
 * Return: NPROF_VERSION_CODE() of the library actually loaded, which may be
 * newer than the headers the caller was compiled against. Never fails.
 */
NPROF_API unsigned int nprof_version(void);

/**
 * nprof_version_string() - version of the running library as text.
 *
 * Return: a static string such as "1.3.0". Never fails.
 */
NPROF_API const char *nprof_version_string(void);

/**
 * nprof_strerror_last() - message describing the last failure in this thread.
 *
 * Every libneuronprof function that fails records a message naming what was
 * wrong, e.g. "NEURON_RT_INSPECT_EVENT_FILTER_NC: bad core index 'x' in
 * '0-3,x'". The message is thread-local; successful calls do not clear it,
 * so only read it right after a call reported failure.
 *
 * Return: the message, or "" if nothing failed yet in this thread. The
 * pointer stays valid until the next failure in the same thread. Never fails.
 */
NPROF_API const char *nprof_strerror_last(void);

/* Severity of a log message; lower is more severe. */
enum nprof_log_level {
	NPROF_LOG_ERROR = 0,
	NPROF_LOG_WARN = 1,
	NPROF_LOG_INFO = 2,
	NPROF_LOG_DEBUG = 3,
};

/*
 * nprof_log_fn - receives one log message (no trailing newline).
 * @level: severity; @msg: the message; @ctx: the pointer given at install.
 * Called from whichever thread logged; it must be thread-safe.
 */
typedef void (*nprof_log_fn)(enum nprof_log_level level, const char *msg, void *ctx);

/**
 * nprof_log_set_handler() - route library log messages.
 * @fn: handler, or NULL for the default (stderr, prefixed "neuronprof: ").
 * @ctx: passed to @fn unchanged.
 * @max_level: messages with a level above this are not produced at all.
 *
 * The default handler prints warnings and errors only. The environment
 * variable NPROF_LOG_LEVEL (error, warn, info, debug) sets the initial
 * level; it is read once, the first time the library logs or a handler is
 * installed.
 *
 * Return: 0, or -EINVAL if @max_level is not an enum nprof_log_level.
 */
NPROF_API int nprof_log_set_handler(nprof_log_fn fn, void *ctx, enum nprof_log_level max_level);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_COMMON_H */
