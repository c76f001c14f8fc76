// SPDX-License-Identifier: MIT
/*
 * Host tests of the inspect session controller: output directory templating
 * through begin, the refused directories, the activity fan-out and what
 * stop writes, the environment path, rollback of device sessions, SESSION
 * capture on fake devices with virtual core numbering (and the events it
 * traces), and the mutual exclusion with continuous profiling.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "harness.h"
#include "inspect_util.h"
#include "ntrace_util.h"

#define NO_DEVICE_ACTS	(NPROF_ACTIVITY_SYSTEM_PROFILE | NPROF_ACTIVITY_CPU_UTIL | \
			 NPROF_ACTIVITY_HOST_MEMORY)

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Every NEURON_RT_* variable the parser reads, so each test starts clean. */
static void clear_env(void)
{
	static const char *const vars[] = {
		"NEURON_RT_INSPECT_ENABLE", "NEURON_RT_INSPECT_OUTPUT_DIR",
		"NEURON_RT_INSPECT_SYSTEM_PROFILE", "NEURON_RT_INSPECT_DEVICE_PROFILE",
		"NEURON_RT_INSPECT_ON_FAIL", "NEURON_RT_INSPECT_CPU_UTIL",
		"NEURON_RT_INSPECT_HOST_MEMORY", "NEURON_RT_INSPECT_EVENT_FILTER_NC",
		"NEURON_RT_INSPECT_EVENT_FILTER_TYPE",
		"NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC",
	};
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

TEST(begin_null_options)
{
	CHECK_ERR_MSG(nprof_inspect_begin_with_options(NULL), EINVAL,
		      "nprof_inspect_begin_with_options() called with null options");
	CHECK_INT(nprof_inspect_is_active(), 0);
}

TEST(begin_disabled_config_begins_nothing)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	struct scratch s;

	CHECK(!scratch_enter(&s));
	CHECK(cfg != NULL);
	/* The defaults have inspect and inspect-on-fail off. */
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK_INT(nprof_inspect_is_active(), 0);
	CHECK(!path_exists("output"));
	CHECK_INT(nprof_sys_trace_is_active(), 0);
	nprof_inspect_config_free(cfg);
	scratch_leave(&s);
}

/* The directory is <base>/<instance_id>-<pid>/<session_init_ns>. */
TEST(begin_templates_the_session_dir)
{
	char dir[PATH_MAX], want[PATH_MAX], inst[NPROF_INSTANCE_ID_MAX + 1];
	struct nprof_inspect_config *cfg;
	unsigned long long ns;
	uint64_t t0, t1;
	struct scratch s;
	int n;

	CHECK(!scratch_enter(&s));
	cfg = cfg_new("out/base/", NPROF_ACTIVITY_SYSTEM_PROFILE, NPROF_DEVICE_PROFILE_DISABLED);
	CHECK(cfg != NULL);
	CHECK(nprof_output_instance_id(NULL, inst, sizeof(inst)) > 0);
	t0 = realtime_ns();
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	t1 = realtime_ns();
	CHECK_INT(nprof_inspect_is_active(), 1);
	n = nprof_inspect_session_dir(dir, sizeof(dir));
	CHECK(n > 0);
	snprintf(want, sizeof(want), "out/base/%s-%ld/", inst, (long)getpid());
	CHECK(!strncmp(dir, want, strlen(want)));
	CHECK_INT(sscanf(dir + strlen(want), "%llu", &ns), 1);
	CHECK(ns >= t0 && ns <= t1);
	CHECK(path_exists(dir));
	CHECK_INT(nprof_inspect_session_dir(dir, 4), -ENAMETOOLONG);
	CHECK_INT(nprof_inspect_stop(), 0);
	CHECK_INT(nprof_inspect_is_active(), 0);
	CHECK_INT(nprof_inspect_session_dir(dir, sizeof(dir)), -ENOENT);
	CHECK_INT(nprof_inspect_close(), 0);
	nprof_inspect_config_free(cfg);
	scratch_leave(&s);
}

TEST(empty_output_dir_defaults_to_output)
{
	struct nprof_inspect_config *cfg;
	char dir[PATH_MAX];
	struct scratch s;

	CHECK(!scratch_enter(&s));
	cfg = cfg_new("", NPROF_ACTIVITY_SYSTEM_PROFILE, NPROF_DEVICE_PROFILE_DISABLED);
	CHECK(cfg != NULL);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK(nprof_inspect_session_dir(dir, sizeof(dir)) > 0);
	CHECK(!strncmp(dir, "./output/", 9));
	CHECK_INT(nprof_inspect_close(), 0);
	CHECK(path_exists("output"));
	nprof_inspect_config_free(cfg);
	scratch_leave(&s);
}

/*
 * The configuration setter refuses ./tmp and /dev/null; begin checks again,
 * because the current directory may have changed since.
 */
TEST(begin_refuses_tmp_after_chdir)
{
	struct nprof_inspect_config *cfg;
	char base[PATH_MAX + 8];
	struct scratch s;
	int root;

	CHECK(!scratch_enter(&s));
	snprintf(base, sizeof(base), "%s/tmp", s.dir);
	root = open("/", O_RDONLY | O_DIRECTORY);
	CHECK(root >= 0 && !fchdir(root));
	cfg = cfg_new(base, NPROF_ACTIVITY_SYSTEM_PROFILE, NPROF_DEVICE_PROFILE_DISABLED);
	CHECK(cfg != NULL);
	CHECK(!chdir(s.dir));
	CHECK_INT(nprof_inspect_begin_with_options(cfg), -EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "reserved for on-fail salvage");
	CHECK_INT(nprof_inspect_is_active(), 0);
	CHECK_INT(nprof_sys_trace_is_active(), 0);
	CHECK(!path_exists("tmp"));
	CHECK_ERR_MSG(nprof_inspect_config_set_output_dir(cfg, "/dev/null"), EINVAL,
		      "output directory '/dev/null' is refused: it is /dev/null");
	close(root);
	nprof_inspect_config_free(cfg);
	scratch_leave(&s);
}

TEST(begin_twice_and_stop_twice)
{
	struct nprof_inspect_config *cfg;
	struct scratch s;

	CHECK(!scratch_enter(&s));
	cfg = cfg_new("out", NPROF_ACTIVITY_SYSTEM_PROFILE, NPROF_DEVICE_PROFILE_DISABLED);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), -EBUSY);
	CHECK_CONTAINS(nprof_strerror_last(), "an inspect session is already active");
	CHECK_INT(nprof_inspect_stop(), 0);
	CHECK_ERR_MSG(nprof_inspect_stop(), EALREADY, "no inspect session is active");
	/* A new session may begin after a stop, without a close. */
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK_INT(nprof_inspect_close(), 0);
	CHECK_INT(nprof_inspect_close(), 0);
	nprof_inspect_config_free(cfg);
	scratch_leave(&s);
}

/* Stop writes exactly the files of the armed activities, complete. */
static void check_files(unsigned int acts)
{
	struct nprof_inspect_config *cfg;
	char dir[PATH_MAX];
	struct scratch s;
	int expect = 0;

	CHECK(!scratch_enter(&s));
	cfg = cfg_new("out", acts, NPROF_DEVICE_PROFILE_DISABLED);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK_INT(nprof_sys_trace_is_active(), !!(acts & NPROF_ACTIVITY_SYSTEM_PROFILE));
	CHECK(nprof_inspect_session_dir(dir, sizeof(dir)) > 0);
	nprof_sys_trace_record(NPROF_EV_USER, NPROF_SYS_TRACE_SRC_FRAMEWORK, 0, 1, 2);
	CHECK_INT(nprof_inspect_stop(), 0);
	CHECK_INT(nprof_sys_trace_is_active(), 0);
	if (acts & NPROF_ACTIVITY_SYSTEM_PROFILE)
		expect += 2;
	if (acts & NPROF_ACTIVITY_CPU_UTIL)
		expect++;
	if (acts & NPROF_ACTIVITY_HOST_MEMORY)
		expect++;
	CHECK_INT(file_exists(dir, "ntrace.pb"), !!(acts & NPROF_ACTIVITY_SYSTEM_PROFILE));
	CHECK_INT(file_exists(dir, "trace_info.pb"), !!(acts & NPROF_ACTIVITY_SYSTEM_PROFILE));
	CHECK_INT(file_exists(dir, "cpu_util.pb"), !!(acts & NPROF_ACTIVITY_CPU_UTIL));
	CHECK_INT(file_exists(dir, "host_mem.pb"), !!(acts & NPROF_ACTIVITY_HOST_MEMORY));
	CHECK_INT(dir_entries(dir), expect);
	CHECK_INT(dir_hidden(dir), 0);
	CHECK_INT(nprof_inspect_close(), 0);
	nprof_inspect_config_free(cfg);
	scratch_leave(&s);
}

TEST(stop_writes_the_armed_activities)
{
	check_files(NPROF_ACTIVITY_SYSTEM_PROFILE);
	check_files(NPROF_ACTIVITY_CPU_UTIL);
	check_files(NPROF_ACTIVITY_HOST_MEMORY | NPROF_ACTIVITY_CPU_UTIL);
	check_files(NO_DEVICE_ACTS);
}

/* An unwritable base: nothing is armed and the error names the directory. */
TEST(begin_fails_cleanly_on_a_bad_directory)
{
	struct nprof_inspect_config *cfg;
	struct scratch s;
	int fd;

	CHECK(!scratch_enter(&s));
	fd = open("afile", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0);
	close(fd);
	cfg = cfg_new("afile/sub", NO_DEVICE_ACTS, NPROF_DEVICE_PROFILE_DISABLED);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), -ENOTDIR);
	CHECK_CONTAINS(nprof_strerror_last(), "afile exists and is not a directory");
	CHECK_INT(nprof_inspect_is_active(), 0);
	CHECK_INT(nprof_sys_trace_is_active(), 0);
	nprof_inspect_config_free(cfg);
	scratch_leave(&s);
}

TEST(environment_drives_begin)
{
	char dir[PATH_MAX];
	struct scratch s;

	CHECK(!scratch_enter(&s));
	clear_env();
	/* Not enabled: nothing begins, nothing is created. */
	CHECK_INT(nprof_inspect_begin(), 0);
	CHECK_INT(nprof_inspect_is_active(), 0);
	setenv("NEURON_RT_INSPECT_ENABLE", "1", 1);
	setenv("NEURON_RT_INSPECT_OUTPUT_DIR", "envout", 1);
	setenv("NEURON_RT_INSPECT_DEVICE_PROFILE", "0", 1);
	setenv("NEURON_RT_INSPECT_CPU_UTIL", "0", 1);
	setenv("NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC", "64", 1);
	CHECK_INT(nprof_inspect_begin(), 0);
	CHECK_INT(nprof_inspect_is_active(), 1);
	CHECK(nprof_inspect_session_dir(dir, sizeof(dir)) > 0);
	CHECK(!strncmp(dir, "envout/", 7));
	CHECK_INT(nprof_inspect_stop(), 0);
	CHECK(file_exists(dir, "ntrace.pb"));
	CHECK(file_exists(dir, "trace_info.pb"));
	CHECK(file_exists(dir, "host_mem.pb"));
	CHECK(!file_exists(dir, "cpu_util.pb"));
	CHECK_INT(nprof_inspect_close(), 0);

	/* A bad variable fails begin with the parser's message. */
	setenv("NEURON_RT_INSPECT_OUTPUT_DIR", "./tmp/", 1);
	CHECK_INT(nprof_inspect_begin(), -EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "NEURON_RT_INSPECT_OUTPUT_DIR");
	CHECK_INT(nprof_inspect_is_active(), 0);
	setenv("NEURON_RT_INSPECT_OUTPUT_DIR", "/dev/null", 1);
	CHECK_INT(nprof_inspect_begin(), -EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "it is /dev/null");
	clear_env();
	CHECK(!path_exists("tmp"));
	scratch_leave(&s);
}

/* begin_with_options ignores the environment. */
TEST(options_ignore_the_environment)
{
	struct nprof_inspect_config *cfg;
	char dir[PATH_MAX];
	struct scratch s;

	CHECK(!scratch_enter(&s));
	setenv("NEURON_RT_INSPECT_OUTPUT_DIR", "envout", 1);
	setenv("NEURON_RT_INSPECT_SYSTEM_PROFILE", "0", 1);
	cfg = cfg_new("cfgout", NPROF_ACTIVITY_SYSTEM_PROFILE, NPROF_DEVICE_PROFILE_DISABLED);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK(nprof_inspect_session_dir(dir, sizeof(dir)) > 0);
	CHECK(!strncmp(dir, "cfgout/", 7));
	CHECK_INT(nprof_sys_trace_is_active(), 1);
	CHECK_INT(nprof_inspect_close(), 0);
	clear_env();
	nprof_inspect_config_free(cfg);
	scratch_leave(&s);
}

/*
 * The trace of session_mode_on_two_devices: inspect_begin and _stop; per
 * armed core (1, and 9 = core 1 of device 1) one capture, so profile_start,
 * _stop and _serialize once and, per queue of the core, one nq_subscribe
 * (at begin, naming the core's device) and one nq_drain (the harvest's).
 * The registry does not open test devices (no device_open) and the 1 MiB
 * rings lose nothing (no nq_overflow): 2 + 2 x (3 + 2 x 24) events.
 */
static void check_session_trace(const char *dir)
{
	Neuronprof__System__Ntrace *nt = ntrace_load(dir);
	const uint32_t cores[2] = { 1, 9 };
	int i;

	CHECK(nt != NULL);
	if (!nt)
		return;
	CHECK_INT(nt->n_events, 2 + 2 * (3 + 2 * 24));
	CHECK_INT(ntrace_count(nt, "inspect_begin", NTRACE_NO_CORE, NULL, 0), 1);
	CHECK_INT(ntrace_count(nt, "inspect_stop", NTRACE_NO_CORE, NULL, 0), 1);
	CHECK_INT(ntrace_count(nt, "device_open", NTRACE_ANY_CORE, NULL, 0), 0);
	CHECK_INT(ntrace_count(nt, "nq_overflow", NTRACE_ANY_CORE, NULL, 0), 0);
	for (i = 0; i < 2; i++) {
		uint32_t c = cores[i];

		CHECK_INT(ntrace_count(nt, "profile_start", c, "queues", 24), 1);
		CHECK_INT(ntrace_count(nt, "profile_stop", c, "session_id", 0), 1);
		CHECK_INT(ntrace_count(nt, "profile_serialize", c, "session_id", 0), 1);
		CHECK_INT(ntrace_count(nt, "nq_subscribe", c, "device", (uint64_t)i), 24);
		CHECK_INT(ntrace_count(nt, "nq_drain", c, "flush", 1), 24);
	}
	ntrace_free(nt);
}

/* SESSION mode on two fake devices: virtual cores, the capture filter, the files. */
TEST(session_mode_on_two_devices)
{
	struct fx_session f;
	struct nprof_ntff_info info;

	fxs_open(&f, 2, NPROF_ACTIVITY_ALL, NPROF_DEVICE_PROFILE_SESSION);
	cfg_cores(f.cfg, 1, 1);
	nprof_inspect_config_set_capture_enabled_for_nc(f.cfg, 9, true);
	fxs_begin(&f);
	/* Core 1 of device 0 and core 1 of device 1 (virtual core 9): 24 queues each. */
	CHECK_INT(fake_subscribed(f.x.fd[0]), 24);
	CHECK_INT(fake_subscribed(f.x.fd[1]), 24);
	CHECK(fake_produce(f.x.fd[0], fake_find(f.x.fd[0], NPROF_TARGET_CORE, 1, NEURONPROF_QT_TRACE, 0), 7, 5) == 7);
	CHECK(fake_produce(f.x.fd[1], fake_find(f.x.fd[1], NPROF_TARGET_CORE, 1, NEURONPROF_QT_ERROR, 0), 3, 6) == 3);
	CHECK_INT(nprof_inspect_stop(), 0);
	CHECK_INT(fakex_subscribed(&f.x), 0);
	CHECK_INT(ntff_check(f.dir, "profile_nc_1_session_0.ntff", &info), 7);
	CHECK_INT(info.capture_kind, NPROF_NTFF_CAPTURE_SESSION);
	CHECK_INT(info.core, 1);
	CHECK_INT(ntff_check(f.dir, "profile_nc_9_session_0.ntff", &info), 3);
	CHECK_INT(info.core, 9);
	CHECK_INT(info.device.device_index, 1);
	CHECK(file_exists(f.dir, "ntrace.pb"));
	/* Two profiles and the four system-profile files, nothing else. */
	CHECK_INT(dir_entries(f.dir), 6);
	check_session_trace(f.dir);
	CHECK_INT(nprof_inspect_close(), 0);
	fxs_close(&f);
}

/* A core that cannot start rolls back every core armed before it. */
TEST(session_mode_rolls_back)
{
	struct fx_session f;

	fxs_open(&f, 1, NPROF_ACTIVITY_ALL, NPROF_DEVICE_PROFILE_SESSION);
	cfg_cores(f.cfg, 0, 3);
	/* Cores 0..2 subscribe 24 queues each; core 3 fails at its 5th. */
	fakex_fail_subscribe(&f.x, 0, 3 * 24 + 5, ENOSPC);
	CHECK_INT(nprof_inspect_begin_with_options(f.cfg), -ENOSPC);
	CHECK_CONTAINS(nprof_strerror_last(), "cannot start the device profile session on NC 3");
	CHECK_CONTAINS(nprof_strerror_last(), "already started on NC 0-2 were stopped and dropped");
	CHECK_INT(fake_subscribed(f.x.fd[0]), 0);
	CHECK_INT(nprof_inspect_is_active(), 0);
	CHECK_INT(nprof_sys_trace_is_active(), 0);
	/* The empty session directories are gone again. */
	CHECK_INT(dir_entries("out"), 0);
	/* And a session can begin after it. */
	f.x.fd[0]->subscribe_fail_at = 0;
	CHECK_INT(nprof_inspect_begin_with_options(f.cfg), 0);
	CHECK_INT(fake_subscribed(f.x.fd[0]), 4 * 24);
	CHECK_INT(nprof_inspect_close(), 0);
	CHECK_INT(fake_subscribed(f.x.fd[0]), 0);
	fxs_close(&f);
}

/* SESSION mode without any device: a warning, and the rest of the session. */
TEST(session_mode_without_device)
{
	struct nprof_inspect_config *cfg;
	struct nprof_device *none = NULL;
	char dir[PATH_MAX], name[NAME_MAX + 1];
	struct scratch s;

	CHECK(!scratch_enter(&s));
	/* An empty test registry, so a real device on this host does not matter. */
	CHECK_INT(nprof_rt_set_test_devices(&none, 0), 0);
	cfg = cfg_new("out", NPROF_ACTIVITY_SYSTEM_PROFILE | NPROF_ACTIVITY_DEVICE_PROFILE,
		      NPROF_DEVICE_PROFILE_SESSION);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK(nprof_inspect_session_dir(dir, sizeof(dir)) > 0);
	CHECK_INT(nprof_inspect_stop(), 0);
	CHECK(file_exists(dir, "ntrace.pb"));
	CHECK(!dir_find(dir, "profile_nc_", name, sizeof(name)));
	CHECK_INT(nprof_inspect_close(), 0);
	nprof_inspect_config_free(cfg);
	nprof_rt_set_test_devices(NULL, 0);
	scratch_leave(&s);
}

/* Continuous profiling and inspect device profiling exclude each other. */
TEST(continuous_excludes_device_profiling)
{
	struct nprof_inspect_config *cfg, *sys;
	struct scratch s;

	CHECK(!scratch_enter(&s));
	cfg = cfg_new("out", NPROF_ACTIVITY_ALL, NPROF_DEVICE_PROFILE_MODEL);
	sys = cfg_new("out", NPROF_ACTIVITY_SYSTEM_PROFILE, NPROF_DEVICE_PROFILE_MODEL);

	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK_INT(nprof_profile_continuous_start(NULL), -EBUSY);
	CHECK_CONTAINS(nprof_strerror_last(),
		       "Please disable inspect device profiling (NEURON_RT_INSPECT_DEVICE_PROFILE=0)");
	CHECK_INT(nprof_profile_continuous_is_enabled(), 0);
	CHECK_INT(nprof_inspect_close(), 0);

	CHECK_INT(nprof_profile_continuous_start(NULL), 0);
	CHECK_INT(nprof_profile_continuous_start(NULL), -EALREADY);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), -EBUSY);
	CHECK_CONTAINS(nprof_strerror_last(), "Continuous profiling is already enabled");
	CHECK_INT(nprof_inspect_is_active(), 0);
	/* A session without device profiling is fine. */
	CHECK_INT(nprof_inspect_begin_with_options(sys), 0);
	CHECK_INT(nprof_inspect_close(), 0);
	CHECK_INT(nprof_profile_continuous_stop(), 0);
	CHECK_INT(nprof_profile_continuous_stop(), -EALREADY);
	/* With continuous off again, device profiling may begin. */
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK_INT(nprof_inspect_close(), 0);
	nprof_inspect_config_free(cfg);
	nprof_inspect_config_free(sys);
	scratch_leave(&s);
}

/*
 * As the runtime: continuous profiling refuses to start while
 * NEURON_RT_INSPECT_DEVICE_PROFILE asks for device profiling, session or
 * not; 0 does not ask, and a bad value is reported as the parser reports it.
 */
TEST(continuous_refuses_the_device_profile_environment)
{
	static const char *const asking[] = { "1", "model", "session" };
	size_t i;

	clear_env();
	for (i = 0; i < sizeof(asking) / sizeof(asking[0]); i++) {
		setenv("NEURON_RT_INSPECT_DEVICE_PROFILE", asking[i], 1);
		CHECK_INT(nprof_profile_continuous_start(NULL), -EBUSY);
		CHECK_CONTAINS(nprof_strerror_last(),
			       "Please disable inspect device profiling (NEURON_RT_INSPECT_DEVICE_PROFILE=0) before starting continuous profiling");
		CHECK_CONTAINS(nprof_strerror_last(), asking[i]);
		CHECK_INT(nprof_profile_continuous_is_enabled(), 0);
	}
	setenv("NEURON_RT_INSPECT_DEVICE_PROFILE", "sometimes", 1);
	CHECK_ERR_MSG(nprof_profile_continuous_start(NULL), EINVAL,
		      "NEURON_RT_INSPECT_DEVICE_PROFILE: expected 0, 1, model or session, got 'sometimes'");
	setenv("NEURON_RT_INSPECT_DEVICE_PROFILE", "0", 1);
	CHECK_INT(nprof_profile_continuous_start(NULL), 0);
	CHECK_INT(nprof_profile_continuous_stop(), 0);
	clear_env();
	CHECK_INT(nprof_profile_continuous_start(NULL), 0);
	CHECK_INT(nprof_profile_continuous_stop(), 0);
}

/*
 * A begin that fails after the device profiling of its session was claimed
 * against continuous profiling (here: a SESSION core that cannot start)
 * gives the claim back.
 */
TEST(failed_begin_releases_the_continuous_exclusion)
{
	struct fx_session f;

	fxs_open(&f, 1, NPROF_ACTIVITY_ALL, NPROF_DEVICE_PROFILE_SESSION);
	fakex_fail_subscribe(&f.x, 0, 1, ENOSPC);
	CHECK_INT(nprof_inspect_begin_with_options(f.cfg), -ENOSPC);
	CHECK_INT(nprof_inspect_is_active(), 0);
	CHECK_INT(nprof_profile_continuous_start(NULL), 0);
	CHECK_INT(nprof_profile_continuous_stop(), 0);
	fxs_close(&f);
}

/* The session records its own events and the runtime hooks' into the trace. */
TEST(session_traces_hooks)
{
	struct nprof_inspect_config *cfg;
	struct nprof_model *m;
	struct scratch s;
	char *json = NULL;
	size_t len = 0;

	CHECK(!scratch_enter(&s));
	cfg = cfg_new("out", NPROF_ACTIVITY_SYSTEM_PROFILE, NPROF_DEVICE_PROFILE_DISABLED);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	m = nprof_model_load("tracer", 77, 3);
	CHECK(m != NULL);
	CHECK_INT(nprof_model_execute_begin(m), 0);
	CHECK_INT(nprof_model_execute_end(m, 1004), 0);
	CHECK_INT(nprof_model_unload(m), 0);
	CHECK_INT(nprof_sys_trace_fetch_events(&json, &len, NULL), 0);
	CHECK_CONTAINS(json, "\"inspect_begin\"");
	CHECK_CONTAINS(json, "\"model_load\"");
	CHECK_CONTAINS(json, "\"nrt_execute\"");
	CHECK_CONTAINS(json, "\"exec_error\"");
	CHECK_CONTAINS(json, "\"nrt_unload\"");
	CHECK_CONTAINS(json, "tracer");
	nprof_sys_trace_buffer_free(json);
	CHECK_INT(nprof_inspect_close(), 0);
	nprof_inspect_config_free(cfg);
	scratch_leave(&s);
}

HARNESS_MAIN
