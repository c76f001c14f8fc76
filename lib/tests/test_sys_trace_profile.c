// SPDX-License-Identifier: MIT
/*
 * Host tests of the system-profile files: decoded by protoc and protobuf-c,
 * written into a FIFO, through a symbolic link, into a character device.
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
#include "ntrace_util.h"

static char tdir[128];

/* A fresh scratch directory in tdir; false (the case failed) if none. */
static bool fresh_tdir(void)
{
	snprintf(tdir, sizeof(tdir), "/tmp/nprof-test-sysprof-XXXXXX");
	if (mkdtemp(tdir))
		return true;
	FAIL("mkdtemp");
	return false;
}


/* Lines of `protoc --decode=<msg>` on @file that equal @line exactly. */
static int protoc_count(const char *msg, const char *file, const char *line)
{
	char cmd[3 * PATH_MAX], buf[1024];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd),
		 "protoc --decode=neuronprof.system.%s -I'%s' '%s/system_profile.proto' < '%s/%s' 2>&1",
		 msg, PROTO_DIR, PROTO_DIR, tdir, file);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(buf, sizeof(buf), p))
		n += !strcmp(buf, line);
	if (pclose(p))
		return -1;
	return n;
}

TEST(system_profile_files_decode)
{
	struct nprof_monitor_opts mo = { .size = sizeof(mo), .period_ms = NPROF_MONITOR_MAX_PERIOD_MS };
	struct nprof_system_profile_opts po = { .size = sizeof(po) };
	struct nprof_sys_trace_attr a[2] = {
		{ .key = "model", .type = NPROF_SYS_TRACE_ATTR_STR, .v.s = "resnet" },
		{ .key = "status", .type = NPROF_SYS_TRACE_ATTR_INT, .v.i = -3 },
	};
	struct nprof_sys_trace_event ev = {
		.type = NPROF_EV_NRT_EXECUTE, .source = SRC_RT, .core = 0, .start_ns = 1000,
		.end_ns = 1500, .flags = NPROF_SYS_TRACE_F_MODEL_ID | NPROF_SYS_TRACE_F_FLOW_ID,
		.model_id = 5, .flow_id = 66, .attrs = a, .nattrs = 2,
	};
	char stat_p[PATH_MAX], mem_p[PATH_MAX], status_p[PATH_MAX], path[PATH_MAX];
	Neuronprof__System__TraceInfo *ti = NULL;
	Neuronprof__System__Ntrace *nt = NULL;
	Neuronprof__System__CpuUtil *cu = NULL;
	Neuronprof__System__HostMem *hm = NULL;
	struct nprof_monitor *mon;

	if (!fresh_tdir())
		return;
	snprintf(stat_p, sizeof(stat_p), "%s/stat.fixture", tdir);
	snprintf(mem_p, sizeof(mem_p), "%s/meminfo.fixture", tdir);
	snprintf(status_p, sizeof(status_p), "%s/status.fixture", tdir);
	write_text(stat_p, "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0 0 0\n"
			   "cpu1 50 0 50 400 0 0 0 0 0 0\nintr 1 2 3\n");
	write_text(mem_p, "MemTotal: 1000 kB\nMemFree: 300 kB\nMemAvailable: 600 kB\n");
	write_text(status_p, "Name: x\nVmSize: 50 kB\nVmHWM: 30 kB\nVmRSS: 20 kB\n");
	mo.proc_stat = stat_p;
	mo.proc_meminfo = mem_p;
	mo.proc_self_status = status_p;

	if (trace_restart(NULL, 2))
		{ FAIL("start"); return; }
	mon = nprof_monitor_start(&mo);
	if (!mon)
		{ FAIL("monitor: %s", nprof_strerror_last()); return; }
	CHECK_INT(nprof_sys_trace_record_event(&ev), 1);
	for (int i = 0; i < 3; i++)
		rec(NPROF_EV_MODEL_LOAD, 3, 2000 + (uint64_t)i);	/* one overwritten */
	rec(NPROF_EV_INSPECT_BEGIN, NPROF_SYS_TRACE_NO_CORE, 10);
	write_text(stat_p, "cpu  150 0 150 900 0 0 0 0 0 0\ncpu0 100 0 50 450 0 0 0 0 0 0\n"
			   "cpu1 50 0 100 450 0 0 0 0 0 0\n");
	write_text(mem_p, "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 400 kB\n");
	CHECK_INT(nprof_monitor_stop(mon), 0);
	CHECK_INT(nprof_sys_trace_stop(), 0);

	po.instance_id = "i-0123456789abcdef0";
	po.session_init_ns = 123456789;
	po.monitor = mon;
	CHECK_INT(nprof_system_profile_write(tdir, &po), 0);
	CHECK_INT(dir_entries(tdir), 3 + 4);	/* the fixtures and the four files, no temporaries */
	CHECK_INT(stats_of(0).pending, 0);	/* drained */

	if (system("protoc --version > /dev/null 2>&1") == 0) {
		CHECK_INT(protoc_count("ntrace", "ntrace.pb", "events {\n"), 4);
		CHECK_INT(protoc_count("ntrace", "ntrace.pb", "  name: \"nrt_execute\"\n"), 1);
		CHECK_INT(protoc_count("ntrace", "ntrace.pb", "    string_value: \"resnet\"\n"), 1);
		CHECK_INT(protoc_count("ntrace", "ntrace.pb", "    int_value: -3\n"), 1);
		CHECK_INT(protoc_count("ntrace", "ntrace.pb", "  flow_ids: 66\n"), 1);
		CHECK_INT(protoc_count("ntrace", "ntrace.pb", "  instance_id: \"i-0123456789abcdef0\"\n"), 4);
		CHECK_INT(protoc_count("ntrace", "ntrace.pb", "  source: SOURCE_NEURON_RT\n"), 4);
		CHECK_INT(protoc_count("trace_info", "trace_info.pb", "  overwritten: 1\n"), 1);
		CHECK_INT(protoc_count("trace_info", "trace_info.pb", "session_init_ns: 123456789\n"), 1);
		CHECK_INT(protoc_count("trace_info", "trace_info.pb", "clock_domain: \"CLOCK_MONOTONIC\"\n"), 1);
		CHECK_INT(protoc_count("trace_info", "trace_info.pb", "event_types {\n"),
			  NPROF_SYS_TRACE_EVENT_COUNT);
		CHECK_INT(protoc_count("trace_info", "trace_info.pb", "  group: GROUP_HARDWARE\n"), 7);
		CHECK_INT(protoc_count("cpu_util", "cpu_util.pb", "samples {\n"), 2);
		CHECK_INT(protoc_count("cpu_util", "cpu_util.pb", "    util_pct: 50\n"), 3);
		CHECK_INT(protoc_count("host_mem", "host_mem.pb", "  host_used_bytes: 614400\n"), 1);
		CHECK_INT(protoc_count("host_mem", "host_mem.pb", "  process_rss_bytes: 20480\n"), 2);
	} else {
		printf("# protoc not installed: decoding with protobuf-c only\n");
	}

	/* Field-level checks with the generated decoder. */
	nt = pb_load(&neuronprof__system__ntrace__descriptor, tdir, "ntrace.pb");
	CHECK(nt != NULL);
	if (nt && nt->n_events == 4) {
		Neuronprof__System__NtraceEvent *e = nt->events[0];

		CHECK_INT(e->id, 1);
		CHECK_STR(e->name, "nrt_execute");
		CHECK_INT(e->type, NPROF_EV_NRT_EXECUTE);
		CHECK_INT(e->start_ns, 1000);
		CHECK_INT(e->end_ns, 1500);
		CHECK_INT(e->duration_ns, 500);
		CHECK(e->has_core_index && e->core_index == 0);
		CHECK(e->has_model_id && e->model_id == 5);
		CHECK_INT(e->pid, getpid());
		CHECK_INT(e->tid, syscall(SYS_gettid));
		CHECK(!e->has_worker_global_id);
		CHECK_INT(e->n_attributes, 2);
		CHECK_STR(e->attributes[0]->key, "model");
		/* Core 3 kept the two newest; the no-core event comes last. */
		CHECK_INT(nt->events[1]->start_ns, 2001);
		CHECK_INT(nt->events[1]->id, (3ULL << 40) | 2);
		CHECK(!nt->events[3]->has_core_index);
		CHECK_STR(nt->events[3]->name, "inspect_begin");
	} else {
		FAIL("ntrace has %zu events, expected 4", nt ? nt->n_events : 0);
	}
	ti = pb_load(&neuronprof__system__trace_info__descriptor, tdir, "trace_info.pb");
	CHECK(ti != NULL);
	if (ti) {
		CHECK_STR(ti->instance_id, "i-0123456789abcdef0");
		CHECK_INT(ti->pid, getpid());
		CHECK_INT(ti->n_cores, 3);	/* cores 0 and 3, the no-core ring */
		CHECK_INT(ti->overwritten_total, 1);
		CHECK_INT(ti->max_events_per_nc, 2);
		CHECK_INT(ti->n_captured_cores, NPROF_MAX_CORES);
		CHECK(ti->has_stop_ns && ti->stop_ns >= ti->start_ns);
		/*
		 * The clock mapping of the session start pairs the same two clocks
		 * as the one taken at write time: their offsets agree (within a
		 * second, whatever adjusted the wall clock meanwhile).
		 */
		CHECK(ti->has_start_realtime_ns && ti->has_sync_realtime_ns);
		CHECK(llabs((long long)(ti->start_realtime_ns - ti->start_ns) -
			    (long long)(ti->sync_realtime_ns - ti->sync_monotonic_ns)) < 1000000000LL);
		CHECK(ti->host_name != NULL);
		for (size_t i = 0; i < ti->n_cores; i++)
			if (ti->cores[i]->has_core_index && ti->cores[i]->core_index == 3) {
				CHECK_INT(ti->cores[i]->recorded, 3);
				CHECK_INT(ti->cores[i]->consumed, 2);
				CHECK_INT(ti->cores[i]->pending, 0);
			}
		CHECK_STR(ti->event_types[NPROF_EV_HW_NOTIFY]->name, "hw_notify");
	}
	cu = pb_load(&neuronprof__system__cpu_util__descriptor, tdir, "cpu_util.pb");
	CHECK(cu != NULL);
	if (cu && cu->n_samples == 2) {
		Neuronprof__System__CpuUtilSample *s = cu->samples[1];

		CHECK_INT(cu->num_cpus, 2);
		CHECK_INT(s->n_cpus, 2);
		/* 100 busy of 200 ticks; cpu0 50 of 100; cpu1 50 of 100. */
		CHECK(s->total->util_pct == 50.0 && s->total->total_ticks == 200);
		CHECK(!s->total->has_cpu);
		CHECK(s->cpus[0]->cpu == 0 && s->cpus[0]->user_pct == 50.0 && s->cpus[0]->system_pct == 0);
		CHECK(s->cpus[1]->cpu == 1 && s->cpus[1]->system_pct == 50.0);
		CHECK_INT(cu->samples[0]->interval_ns, 0);
	} else {
		FAIL("cpu_util has %zu samples, expected 2", cu ? cu->n_samples : 0);
	}
	hm = pb_load(&neuronprof__system__host_mem__descriptor, tdir, "host_mem.pb");
	CHECK(hm != NULL);
	if (hm && hm->n_samples == 2) {
		CHECK_INT(hm->samples[0]->host_used_bytes, 400 * 1024);
		CHECK_INT(hm->samples[1]->host_used_bytes, 600 * 1024);
		CHECK_INT(hm->samples[1]->host_free_bytes, 100 * 1024);
		CHECK_INT(hm->samples[1]->process_hwm_bytes, 30 * 1024);
		CHECK_INT(hm->samples[1]->process_vm_bytes, 50 * 1024);
	} else {
		FAIL("host_mem has %zu samples, expected 2", hm ? hm->n_samples : 0);
	}
	if (nt)
		neuronprof__system__ntrace__free_unpacked(nt, NULL);
	if (ti)
		neuronprof__system__trace_info__free_unpacked(ti, NULL);
	if (cu)
		neuronprof__system__cpu_util__free_unpacked(cu, NULL);
	if (hm)
		neuronprof__system__host_mem__free_unpacked(hm, NULL);
	nprof_monitor_free(mon);

	/* Again, without a monitor and with the files replaced atomically. */
	po.monitor = NULL;
	po.files = NPROF_SYSPROF_CPU_UTIL | NPROF_SYSPROF_NTRACE;
	CHECK_INT(nprof_system_profile_write(tdir, &po), 0);
	CHECK_INT(dir_entries(tdir), 7);
	if (system("protoc --version > /dev/null 2>&1") == 0) {
		CHECK_INT(protoc_count("ntrace", "ntrace.pb", "events {\n"), 0);
		CHECK_INT(protoc_count("cpu_util", "cpu_util.pb", "samples {\n"), 0);
	}
	po.files = 0x10;
	CHECK_ERR_MSG(nprof_system_profile_write(tdir, &po), EINVAL, "unknown system profile files 0x10");
	po.files = 0;
	CHECK_INT(nprof_system_profile_write("/nonexistent-dir-for-test", &po), -ENOENT);
	CHECK_CONTAINS(nprof_strerror_last(), "cannot open directory /nonexistent-dir-for-test");
	trace_end_all();
	snprintf(path, sizeof(path), "rm -rf '%s'", tdir);
	if (system(path))
		printf("# cannot remove %s\n", tdir);
}

/*
 * The files' names taken by a FIFO (with a reader) and a symbolic link:
 * written in place or through the link, neither replaced, no temporary left.
 */
TEST(system_profile_into_a_fifo_and_through_a_symlink)
{
	struct nprof_system_profile_opts po = { .size = sizeof(po) };
	char path[PATH_MAX], got[PATH_MAX], sub[PATH_MAX];
	Neuronprof__System__TraceInfo *ti;
	pid_t reader;

	if (!fresh_tdir())
		return;
	po.instance_id = "i-0123456789abcdef0";
	po.files = NPROF_SYSPROF_TRACE_INFO | NPROF_SYSPROF_CPU_UTIL;
	snprintf(path, sizeof(path), "%s/trace_info.pb", tdir);
	snprintf(got, sizeof(got), "%s.read", tdir);
	reader = fifo_reader_start(path, got);
	CHECK(reader > 0);
	snprintf(sub, sizeof(sub), "%s/kept", tdir);
	CHECK_INT(mkdir(sub, 0755), 0);
	snprintf(path, sizeof(path), "%s/cpu_util.pb", tdir);
	CHECK_INT(symlink("kept/cpu.pb", path), 0);
	CHECK_INT(nprof_system_profile_write(tdir, &po), 0);
	CHECK_INT(fifo_reader_finish(reader, false), 0);
	snprintf(path, sizeof(path), "%s/trace_info.pb", tdir);
	CHECK(is_fifo(path));
	ti = pb_load(&neuronprof__system__trace_info__descriptor, NULL, got);
	CHECK(ti != NULL);
	if (ti) {
		CHECK_STR(ti->instance_id, "i-0123456789abcdef0");
		neuronprof__system__trace_info__free_unpacked(ti, NULL);
	}
	snprintf(path, sizeof(path), "%s/cpu_util.pb", tdir);
	CHECK(is_symlink(path));
	snprintf(path, sizeof(path), "%s/kept/cpu.pb", tdir);
	CHECK(access(path, R_OK) == 0);
	CHECK_INT(dir_entries(tdir), 3);	/* trace_info.pb, cpu_util.pb, kept/ */
	CHECK_INT(dir_entries(sub), 1);
	unlink(got);
	rm_rf(tdir);
}

/* ntrace.pb's name taken by a character device node: written into, not replaced. */
TEST(system_profile_into_a_character_device)
{
	struct nprof_system_profile_opts po = { .size = sizeof(po) };
	char path[PATH_MAX];
	const char *why;

	if (!fresh_tdir())
		return;
	po.instance_id = "i-0123456789abcdef0";
	po.files = NPROF_SYSPROF_NTRACE | NPROF_SYSPROF_TRACE_INFO;
	snprintf(path, sizeof(path), "%s/trace_info.pb", tdir);
	why = make_null_node(path);
	if (why) {
		rm_rf(tdir);
		SKIP(why);
	}
	CHECK_INT(nprof_system_profile_write(tdir, &po), 0);
	CHECK(is_null_node(path));
	CHECK_INT(dir_entries(tdir), 2);	/* the node and ntrace.pb */
	rm_rf(tdir);
}

HARNESS_MAIN
