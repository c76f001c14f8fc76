/* SPDX-License-Identifier: MIT */
/*
 * What the system trace tests (test_sys_trace_*.c) share: the helpers that
 * read the trace's statistics and record an event; trace_util.h's restart
 * and end it.
 */
#ifndef NPROF_TEST_SYS_TRACE_TEST_UTIL_H
#define NPROF_TEST_SYS_TRACE_TEST_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <neuronprof/monitor.h>
#include <neuronprof/sys_trace.h>

#include "harness.h"
#include "special_files.h"
#include "trace_util.h"
#include "trace/sys_trace_internal.h"
#include "system_profile.pb-c.h"

#define SRC_RT	NPROF_SYS_TRACE_SRC_NEURON_RT

static inline struct nprof_sys_trace_stats stats_of(uint32_t core)
{
	struct nprof_sys_trace_stats st = { .size = sizeof(st) };

	if (nprof_sys_trace_get_stats(core, &st))
		FAIL("get_stats(%u): %s", core, nprof_strerror_last());
	return st;
}

static inline int rec(uint32_t type, uint32_t core, uint64_t start)
{
	return nprof_sys_trace_record(type, SRC_RT, core, start, start + 10);
}

#endif /* NPROF_TEST_SYS_TRACE_TEST_UTIL_H */
