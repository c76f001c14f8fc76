/* SPDX-License-Identifier: MIT */
/*
 * Internals of libnrtprof: the export macro and the one place where a
 * libneuronprof result becomes an NRT_STATUS.
 */
#ifndef NRTPROF_INTERNAL_H
#define NRTPROF_INTERNAL_H

#include <stddef.h>

#include <nrt/nrt_status.h>

/* Exported from libnrtprof.so (built with -fvisibility=hidden). */
#define NRT_API __attribute__((visibility("default")))

/*
 * The NRT_STATUS of a libneuronprof result @ret (0 or a count: success;
 * -errno: failure). A failure is logged with libneuronprof's message,
 * naming @fn, as the runtime logs its errors; NEURON_RT_LOG_LEVEL=OFF
 * (or FATAL) silences it.
 */
NRT_STATUS nrtprof_status(const char *fn, int ret);

/*
 * A failure found by libnrtprof itself (a NULL handle, a second nrt_init):
 * logged like nrtprof_status() with @msg, and returned as @st.
 */
NRT_STATUS nrtprof_error(const char *fn, NRT_STATUS st, const char *msg);

/*
 * @msg into @out (@size bytes) with every nprof_<name>() that has an
 * nrt_<name>() counterpart in this API renamed to it: messages through
 * this API name the functions the caller used.
 */
void nrtprof_nrt_names(const char *msg, char *out, size_t size);

/* The NRT_STATUS of a positive errno value, without logging. */
NRT_STATUS nrtprof_errno_status(int err);

/* The message of the last failure in this thread (nrtsim_last_error()). */
const char *nrtprof_last_error(void);

#endif /* NRTPROF_INTERNAL_H */
