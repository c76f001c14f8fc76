// SPDX-License-Identifier: MIT
/*
 * Host tests of the system trace's record API: argument checks, begin/end
 * pairs, interned strings, worker ids, a forked child's own pid.
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

TEST(record_rejects_bad_arguments)
{
	struct nprof_sys_trace_attr a = { .key = "k", .type = NPROF_SYS_TRACE_ATTR_STR, .v.s = NULL };
	struct nprof_sys_trace_event ev = { .type = 0, .core = 0, .attrs = &a, .nattrs = 1 };

	if (trace_restart(NULL, 8))
		{ FAIL("start"); return; }
	CHECK_ERR_MSG(nprof_sys_trace_record(NPROF_SYS_TRACE_EVENT_COUNT, SRC_RT, 0, 1, 2), EINVAL,
		      "unknown system-trace event type 38");
	CHECK_ERR_MSG(nprof_sys_trace_record(0, 3, 0, 1, 2), EINVAL, "unknown system-trace event source 3");
	CHECK_ERR_MSG(nprof_sys_trace_record(0, SRC_RT, 257, 1, 2), EINVAL,
		      "core index 257 is out of range [0, 255] (or 256 for no core)");
	CHECK_ERR_MSG(nprof_sys_trace_record(0, SRC_RT, 0, 5, 4), EINVAL,
		      "event ends (4 ns) before it starts (5 ns)");
	CHECK_ERR_MSG(nprof_sys_trace_record_event(NULL), EINVAL, "system-trace event is NULL");
	CHECK_ERR_MSG(nprof_sys_trace_record_event(&ev), EINVAL,
		      "attribute 'k' is a string but its value is NULL");
	a.type = 9;
	CHECK_ERR_MSG(nprof_sys_trace_record_event(&ev), EINVAL, "attribute 'k' has unknown type 9");
	a.type = NPROF_SYS_TRACE_ATTR_INT;
	a.key = NULL;
	CHECK_ERR_MSG(nprof_sys_trace_record_event(&ev), EINVAL, "attribute 0 has no key");
	a.key = "k";
	ev.nattrs = 5;
	CHECK_ERR_MSG(nprof_sys_trace_record_event(&ev), EINVAL, "5 attributes, at most 4 are allowed");
	ev.nattrs = 1;
	ev.flags = 4;
	CHECK_ERR_MSG(nprof_sys_trace_record_event(&ev), EINVAL, "unknown system-trace event flags 0x4");
	ev.flags = 0;
	CHECK_INT(nprof_sys_trace_record_event(&ev), 1);
	/* Arguments are checked even while the trace is off. */
	trace_end_all();
	CHECK_ERR_MSG(nprof_sys_trace_record(0, SRC_RT, 0, 5, 4), EINVAL,
		      "event ends (4 ns) before it starts (5 ns)");
	CHECK_INT(nprof_sys_trace_record(0, SRC_RT, 0, 4, 5), 0);
}

TEST(begin_end_pair)
{
	struct nprof_sys_trace_attr a[2] = {
		{ .key = "bytes", .type = NPROF_SYS_TRACE_ATTR_UINT, .v.u = 4096 },
		{ .key = "ratio", .type = NPROF_SYS_TRACE_ATTR_DOUBLE, .v.d = 0.5 },
	};
	struct nprof_sys_trace_config *cfg = nprof_sys_trace_config_allocate();
	struct nprof_sys_trace_event ev;
	struct nprof_sys_trace_record r[2];
	uint64_t before, after;

	if (!cfg)
		{ FAIL("alloc"); return; }
	nprof_sys_trace_config_set_capture_enabled_for_event_type(cfg, "nrt_load", false);
	if (trace_restart(cfg, 0))
		{ FAIL("start"); return; }
	before = nprof_sys_trace_now();
	CHECK_INT(nprof_sys_trace_begin(&ev, NPROF_EV_TENSOR_WRITE, NPROF_SYS_TRACE_SRC_FRAMEWORK, 2), 1);
	ev.flags = NPROF_SYS_TRACE_F_MODEL_ID | NPROF_SYS_TRACE_F_FLOW_ID;
	ev.model_id = 42;
	ev.flow_id = 9;
	ev.attrs = a;
	ev.nattrs = 2;
	CHECK_INT(nprof_sys_trace_end(&ev), 1);
	after = nprof_sys_trace_now();
	CHECK_INT(nprof_sys_trace_drain(2, r, 2), 1);
	CHECK(r[0].start_ns >= before && r[0].start_ns <= r[0].end_ns && r[0].end_ns <= after);
	CHECK_INT(r[0].type, NPROF_EV_TENSOR_WRITE);
	CHECK_INT(r[0].source, NPROF_SYS_TRACE_SRC_FRAMEWORK);
	CHECK_INT(r[0].model_id, 42);
	CHECK_INT(r[0].flow_id, 9);
	CHECK_INT(r[0].nattrs, 2);
	CHECK_STR(r[0].attrs[0].key, "bytes");
	CHECK_INT(r[0].attrs[0].v.u, 4096);
	CHECK(r[0].attrs[1].v.d == 0.5);

	/* Filtered out at begin: the clock is not read and the end is a no-op. */
	CHECK_INT(nprof_sys_trace_begin(&ev, NPROF_EV_NRT_LOAD, SRC_RT, 2), 0);
	CHECK_INT(ev.start_ns, 0);
	CHECK_INT(nprof_sys_trace_end(&ev), 0);
	CHECK_INT(stats_of(2).recorded, 1);
	CHECK_ERR_MSG(nprof_sys_trace_begin(&ev, 99, SRC_RT, 2), EINVAL, "unknown system-trace event type 99");
	CHECK_INT(nprof_sys_trace_end(&ev), 0);
	trace_end_all();
	nprof_sys_trace_config_free(cfg);
}

TEST(intern_returns_one_stable_copy)
{
	char buf[32];
	const char *a, *b;

	snprintf(buf, sizeof(buf), "model_%d", 17);
	a = nprof_sys_trace_intern(buf);
	CHECK(a != NULL && a != buf);
	CHECK_STR(a, "model_17");
	snprintf(buf, sizeof(buf), "model_%d", 17);
	b = nprof_sys_trace_intern(buf);
	CHECK(a == b);
	CHECK(nprof_sys_trace_intern("other") != a);
	CHECK(nprof_sys_trace_intern(NULL) == NULL && errno == EINVAL);
	/* The library's trace points intern the same way and leave the last error alone. */
	CHECK(nprof_st_intern("model_17") == a);
	CHECK(nprof_st_intern(NULL) == NULL);
	CHECK_STR(nprof_strerror_last(), "string to intern is NULL");
}

TEST(worker_global_id_range)
{
	CHECK_ERR_MSG(nprof_sys_trace_set_worker_global_id(-2), EINVAL,
		      "worker global id -2 is out of range [-1, 4294967295]");
	CHECK_INT(nprof_sys_trace_set_worker_global_id(3), 0);
	CHECK_INT(nprof_sys_trace_set_worker_global_id(-1), 0);
}

TEST(forked_child_records_its_own_pid)
{
	struct nprof_sys_trace_record r;
	int pipefd[2], st;
	pid_t pid;
	uint32_t got[2] = { 0, 0 };

	if (trace_restart(NULL, 8))
		{ FAIL("start"); return; }
	if (pipe(pipefd))
		{ FAIL("pipe"); return; }
	rec(NPROF_EV_USER, 0, 1);	/* caches this thread's id before the fork */
	pid = fork();
	if (pid == 0) {
		uint32_t v[2] = { 0, 0 };

		nprof_sys_trace_drain(0, &r, 1);
		rec(NPROF_EV_USER, 0, 2);
		if (nprof_sys_trace_drain(0, &r, 1) == 1) {
			v[0] = r.pid;
			v[1] = r.tid;
		}
		if (write(pipefd[1], v, sizeof(v)) != sizeof(v))
			_exit(2);
		_exit(0);
	}
	close(pipefd[1]);
	CHECK(read(pipefd[0], got, sizeof(got)) == sizeof(got));
	close(pipefd[0]);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_INT(got[0], pid);
	CHECK_INT(got[1], pid);	/* the child's only thread */
	trace_end_all();
}

HARNESS_MAIN
