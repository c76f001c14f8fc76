// SPDX-License-Identifier: MIT
/*
 * Host tests of the system trace under concurrent recording: every event
 * accounted for.
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

#define CONC_THREADS	8

#define CONC_EVENTS	50000

static _Atomic int conc_done;

static _Atomic uint64_t conc_drained[2];

static void *conc_writer(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	uint64_t ok = 0;

	for (uint64_t i = 0; i < CONC_EVENTS; i++)
		ok += (uint64_t)rec(NPROF_EV_NRT_EXECUTE, (uint32_t)(id % 2), i) == 1;
	return (void *)(uintptr_t)ok;
}

static void *conc_reader(void *arg)
{
	struct nprof_sys_trace_record r[64];
	uint64_t last_seq[2] = { 0, 0 };
	uintptr_t bad = 0;

	(void)arg;
	while (!atomic_load(&conc_done)) {
		for (uint32_t c = 0; c < 2; c++) {
			int n = nprof_sys_trace_drain(c, r, 64);

			for (int i = 0; i < n; i++) {
				uint64_t seq = r[i].id & ((1ULL << 40) - 1);

				/* Sequence numbers only grow; gaps are overwrites. */
				if (seq <= last_seq[c] || r[i].core != c || r[i].end_ns != r[i].start_ns + 10)
					bad++;
				last_seq[c] = seq;
			}
			atomic_fetch_add(&conc_drained[c], (uint64_t)(n > 0 ? n : 0));
		}
	}
	return (void *)bad;
}

TEST(concurrent_recording_accounts_for_every_event)
{
	pthread_t w[CONC_THREADS], rd;
	uint64_t ok = 0, total_rec = 0;
	void *ret;

	if (trace_restart(NULL, 1000))
		{ FAIL("start"); return; }
	atomic_store(&conc_done, 0);
	atomic_store(&conc_drained[0], 0);
	atomic_store(&conc_drained[1], 0);
	CHECK(pthread_create(&rd, NULL, conc_reader, NULL) == 0);
	for (uintptr_t i = 0; i < CONC_THREADS; i++)
		CHECK(pthread_create(&w[i], NULL, conc_writer, (void *)i) == 0);
	for (int i = 0; i < CONC_THREADS; i++) {
		pthread_join(w[i], &ret);
		ok += (uint64_t)(uintptr_t)ret;
	}
	atomic_store(&conc_done, 1);
	pthread_join(rd, &ret);
	CHECK_INT((uintptr_t)ret, 0);
	CHECK_INT(ok, (uint64_t)CONC_THREADS * CONC_EVENTS);
	for (uint32_t c = 0; c < 2; c++) {
		struct nprof_sys_trace_stats st = stats_of(c);

		total_rec += st.recorded;
		CHECK_INT(st.recorded, (uint64_t)CONC_THREADS / 2 * CONC_EVENTS);
		CHECK_INT(st.recorded, st.overwritten + st.consumed + st.pending);
		CHECK_INT(st.consumed, atomic_load(&conc_drained[c]));
		CHECK(st.pending <= 1000);
	}
	CHECK_INT(total_rec, ok);
	trace_end_all();
}

HARNESS_MAIN
