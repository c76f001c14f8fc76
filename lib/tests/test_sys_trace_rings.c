// SPDX-License-Identifier: MIT
/*
 * Host tests of the system trace's rings: overwrite accounting per core, only
 * unread events counted, one event per core, stop and start, control errors,
 * huge rings reserved and not committed.
 */
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
#include "sys_trace_test_util.h"

TEST(overwrite_counts_oldest_per_core)
{
	struct nprof_sys_trace_record r[8];
	struct nprof_sys_trace_stats st;
	int i, n;

	if (trace_restart(NULL, 4))
		{ FAIL("start"); return; }
	for (i = 0; i < 10; i++)
		CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 3, 1000 + i), 1);
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 5, 1), 1);
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 5, 2), 1);

	st = stats_of(3);
	CHECK_INT(st.capacity, 4);
	CHECK_INT(st.recorded, 10);
	CHECK_INT(st.overwritten, 6);
	CHECK_INT(st.pending, 4);
	CHECK_INT(st.consumed, 0);
	st = stats_of(5);
	CHECK_INT(st.recorded, 2);
	CHECK_INT(st.overwritten, 0);

	n = nprof_sys_trace_drain(3, r, 8);
	CHECK_INT(n, 4);
	for (i = 0; i < n && i < 4; i++) {
		/* The four newest survive, oldest first; ids keep their sequence number. */
		CHECK_INT(r[i].start_ns, 1006 + i);
		CHECK_INT(r[i].end_ns, 1016 + i);
		CHECK_INT(r[i].id, (3ULL << 40) | (uint64_t)(7 + i));
		CHECK_INT(r[i].core, 3);
		CHECK_INT(r[i].type, NPROF_EV_NRT_EXECUTE);
		CHECK_INT(r[i].source, SRC_RT);
		CHECK_INT(r[i].pid, getpid());
		CHECK_INT(r[i].tid, syscall(SYS_gettid));
	}
	st = stats_of(3);
	CHECK_INT(st.consumed, 4);
	CHECK_INT(st.pending, 0);
	CHECK_INT(nprof_sys_trace_drain(3, r, 8), 0);
	trace_end_all();
}

TEST(overwrite_only_counts_unread_events)
{
	struct nprof_sys_trace_record r[8];
	struct nprof_sys_trace_stats st;

	if (trace_restart(NULL, 4))
		{ FAIL("start"); return; }
	for (int i = 0; i < 3; i++)
		rec(NPROF_EV_MODEL_LOAD, 0, (uint64_t)i);
	CHECK_INT(nprof_sys_trace_drain(0, r, 2), 2);
	for (int i = 3; i < 7; i++)
		rec(NPROF_EV_MODEL_LOAD, 0, (uint64_t)i);
	/* 1 unread + 4 new = 5 for 4 slots: exactly one overwrite. */
	st = stats_of(0);
	CHECK_INT(st.recorded, 7);
	CHECK_INT(st.consumed, 2);
	CHECK_INT(st.overwritten, 1);
	CHECK_INT(st.pending, 4);
	CHECK_INT(nprof_sys_trace_drain(0, r, 8), 4);
	CHECK_INT(r[0].start_ns, 3);
	CHECK_INT(r[3].start_ns, 6);
	/* The gap in sequence numbers (3 -> 4 missing one) is the overwrite. */
	CHECK_INT(r[0].id & 0xffffffffffULL, 4);
	trace_end_all();
}

TEST(max_one_event_per_core)
{
	struct nprof_sys_trace_record r;
	struct nprof_sys_trace_stats st;

	if (trace_restart(NULL, 1))
		{ FAIL("start"); return; }
	for (int i = 0; i < 5; i++)
		rec(NPROF_EV_USER, NPROF_SYS_TRACE_NO_CORE, (uint64_t)i);
	st = stats_of(NPROF_SYS_TRACE_NO_CORE);
	CHECK_INT(st.capacity, 1);
	CHECK_INT(st.overwritten, 4);
	CHECK_INT(nprof_sys_trace_drain(NPROF_SYS_TRACE_NO_CORE, &r, 1), 1);
	CHECK_INT(r.start_ns, 4);
	CHECK_INT(r.core, NPROF_SYS_TRACE_NO_CORE);
	CHECK_INT(r.id >> 40, NPROF_SYS_TRACE_NO_CORE);
	trace_end_all();
}

TEST(stop_keeps_events_and_start_discards_them)
{
	struct nprof_sys_trace_record r[4];

	if (trace_restart(NULL, 16))
		{ FAIL("start"); return; }
	CHECK_INT(nprof_sys_trace_is_active(), 1);
	rec(NPROF_EV_NRT_LOAD, 1, 5);
	CHECK_INT(nprof_sys_trace_stop(), 0);
	CHECK_INT(nprof_sys_trace_is_active(), 0);
	CHECK_INT(rec(NPROF_EV_NRT_LOAD, 1, 6), 0);	/* inactive */
	CHECK_INT(stats_of(1).pending, 1);
	CHECK_ERR_MSG(nprof_sys_trace_stop(), EALREADY, "the system trace is not active");

	if (trace_restart(NULL, 16))
		{ FAIL("restart"); return; }
	CHECK_INT(stats_of(1).pending, 0);
	CHECK_INT(stats_of(1).recorded, 0);
	CHECK_INT(nprof_sys_trace_drain(1, r, 4), 0);
	trace_end_all();
}

TEST(control_errors)
{
	struct nprof_sys_trace_config *cfg = nprof_sys_trace_config_allocate();

	CHECK_ERR_MSG(nprof_sys_trace_start(NULL), EINVAL, "system-trace config is NULL");
	if (trace_restart(NULL, 8))
		{ FAIL("start"); return; }
	CHECK_ERR_MSG(nprof_sys_trace_start(cfg), EBUSY, "the system trace is already active");
	CHECK_ERR_MSG(nprof_sys_trace_release(), EBUSY,
		      "the system trace is active; stop it before releasing it");
	trace_end_all();
	CHECK_INT(nprof_sys_trace_is_active(), 0);
	nprof_sys_trace_config_free(cfg);
}

static long vm_rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

TEST(huge_rings_are_reserved_not_committed)
{
	struct nprof_sys_trace_config *cfg = nprof_sys_trace_config_allocate();
	long before, after;
	int ret;

	if (!cfg) {
		FAIL("alloc");
		return;
	}
	trace_end_all();
	/* 2^28 events of 128 bytes: 32 GiB per ring, 257 rings. */
	nprof_sys_trace_config_set_max_events_per_nc(cfg, NPROF_SYS_TRACE_MAX_EVENTS_LIMIT);
	before = vm_rss_kb();
	ret = nprof_sys_trace_start(cfg);
	if (ret) {
		/* Strict overcommit: refused, cleanly, with the size in the message. */
		CHECK_INT(ret, -ENOMEM);
		CHECK_CONTAINS(nprof_strerror_last(), "cannot reserve 32768 MiB for the system-trace ring");
		CHECK_INT(nprof_sys_trace_is_active(), 0);
	} else {
		for (int i = 0; i < 1000; i++)
			CHECK_INT(rec(NPROF_EV_USER, (uint32_t)(i % 8), (uint64_t)i), 1);
		after = vm_rss_kb();
		CHECK_INT(stats_of(0).capacity, NPROF_SYS_TRACE_MAX_EVENTS_LIMIT);
		/* Only the pages of the events written are committed. */
		if (before < 0 || after < 0 || after - before > 16 * 1024)
			FAIL("RSS grew from %ld kB to %ld kB", before, after);
	}
	trace_end_all();
	nprof_sys_trace_config_free(cfg);
}

HARNESS_MAIN
