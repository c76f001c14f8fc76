/* SPDX-License-Identifier: MIT */
/*
 * What the system trace tests (test_sys_trace_*.c) share: the helpers that
 * restart and finish the trace, read its statistics and record an event.
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
#include "trace/sys_trace_internal.h"
#include "system_profile.pb-c.h"

#define SRC_RT	NPROF_SYS_TRACE_SRC_NEURON_RT

/* Start a fresh trace with @cfg (or the defaults with @max events per core). */
static inline int restart(const struct nprof_sys_trace_config *cfg, uint64_t max)
{
	struct nprof_sys_trace_config *def = NULL;
	int ret;

	nprof_sys_trace_stop();
	nprof_sys_trace_release();
	if (!cfg) {
		def = nprof_sys_trace_config_allocate();
		if (!def)
			return -ENOMEM;
		if (max)
			nprof_sys_trace_config_set_max_events_per_nc(def, max);
		cfg = def;
	}
	ret = nprof_sys_trace_start(cfg);
	nprof_sys_trace_config_free(def);
	if (ret)
		printf("# start: %s\n", nprof_strerror_last());
	return ret;
}

static inline void finish(void)
{
	nprof_sys_trace_stop();
	nprof_sys_trace_release();
}

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
