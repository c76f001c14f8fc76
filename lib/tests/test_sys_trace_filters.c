// SPDX-License-Identifier: MIT
/*
 * Host tests of the system trace's core and event-type filters, as
 * configured through the environment and through the config setters.
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

/* Parse a config from an environment; NULL on failure (reported). */
static struct nprof_inspect_config *config_from_env(char *const envp[])
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();

	if (!cfg)
		return NULL;
	if (nprof_inspect_config_parse_envp(cfg, envp)) {
		FAIL("parse_envp: %s", nprof_strerror_last());
		nprof_inspect_config_free(cfg);
		return NULL;
	}
	return cfg;
}

/* Bit per event type that nprof_sys_trace_record() accepted on @core. */
static uint64_t recorded_types(uint32_t core)
{
	uint64_t mask = 0;
	unsigned int t;

	for (t = 0; t < NPROF_SYS_TRACE_EVENT_COUNT; t++) {
		int r = rec(t, core, 100);

		if (r < 0)
			FAIL("record type %u: %s", t, nprof_strerror_last());
		if (r == 1)
			mask |= 1ULL << t;
	}
	return mask;
}

static uint64_t type_bit(const char *name)
{
	int t = nprof_sys_trace_event_type_from_name(name);

	if (t < 0) {
		FAIL("unknown type %s", name);
		return 0;
	}
	return 1ULL << t;
}

TEST(filter_cores_from_environment_list_and_ranges)
{
	char *env[] = { "NEURON_RT_INSPECT_EVENT_FILTER_NC=0,2-3,7", NULL };
	struct nprof_inspect_config *cfg = config_from_env(env);
	uint32_t c;

	if (!cfg)
		return;
	if (trace_restart(nprof_inspect_config_sys_trace(cfg), 0))
		{ FAIL("start"); return; }
	for (c = 0; c < 10; c++) {
		int want = c == 0 || c == 2 || c == 3 || c == 7;

		CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, c, 1), want);
		CHECK_INT(stats_of(c).recorded, want);
		CHECK_INT(stats_of(c).capacity, want ? NPROF_SYS_TRACE_DEFAULT_MAX_EVENTS : 0);
	}
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 255, 1), 0);
	/* The core filter does not apply to events not tied to a core. */
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, NPROF_SYS_TRACE_NO_CORE, 1), 1);
	trace_end_all();
	nprof_inspect_config_free(cfg);
}

TEST(filter_cores_through_config_setters)
{
	struct nprof_inspect_config *icfg = nprof_inspect_config_allocate();
	struct nprof_sys_trace_config *cfg = nprof_sys_trace_config_allocate();

	if (!cfg || !icfg)
		{ FAIL("alloc"); return; }
	CHECK_INT(nprof_sys_trace_config_set_capture_enabled_for_nc(cfg, 4, false), 0);
	if (trace_restart(cfg, 0))
		{ FAIL("start"); return; }
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 4, 1), 0);
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 5, 1), 1);
	/* The trace took a copy: changing the config now changes nothing. */
	nprof_sys_trace_config_set_capture_enabled_for_nc(cfg, 5, false);
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 5, 1), 1);

	/* The inspect config's per-core setter reaches the embedded trace config. */
	CHECK_INT(nprof_inspect_config_set_capture_enabled_for_nc(icfg, 9, false), 0);
	if (trace_restart(nprof_inspect_config_sys_trace(icfg), 0))
		{ FAIL("start"); return; }
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 9, 1), 0);
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 8, 1), 1);
	trace_end_all();
	nprof_sys_trace_config_free(cfg);
	nprof_inspect_config_free(icfg);
}

static void check_type_filter(const char *filter, uint64_t want)
{
	char var[256];
	char *env[] = { var, NULL };
	struct nprof_inspect_config *cfg;
	uint64_t got;

	snprintf(var, sizeof(var), "NEURON_RT_INSPECT_EVENT_FILTER_TYPE=%s", filter);
	cfg = config_from_env(env);
	if (!cfg)
		return;
	if (trace_restart(nprof_inspect_config_sys_trace(cfg), 0)) {
		FAIL("start");
		return;
	}
	got = recorded_types(1);
	if (got != want)
		FAIL("filter '%s': recorded types %#llx, expected %#llx", filter,
		     (unsigned long long)got, (unsigned long long)want);
	trace_end_all();
	nprof_inspect_config_free(cfg);
}

TEST(filter_event_types_from_environment)
{
	uint64_t all = NPROF_SYS_TRACE_ALL_MASK, hw = NPROF_SYS_TRACE_HARDWARE_MASK;

	check_type_filter("nrt_execute", type_bit("nrt_execute"));
	check_type_filter("nrt_execute,model_load", type_bit("nrt_execute") | type_bit("model_load"));
	check_type_filter("hardware", hw);
	check_type_filter("software", all & ~hw);
	check_type_filter("^nrt_execute", all & ~type_bit("nrt_execute"));
	check_type_filter("hardware,^hw_notify", hw & ~type_bit("hw_notify"));
	check_type_filter("^software", hw);
	check_type_filter("software,nc_exec_running,^user",
			  ((all & ~hw) | type_bit("nc_exec_running")) & ~type_bit("user"));
}

TEST(filter_event_types_through_config_setters)
{
	struct nprof_sys_trace_config *cfg = nprof_sys_trace_config_allocate();
	struct nprof_inspect_config *icfg = nprof_inspect_config_allocate();
	uint64_t got;

	if (!cfg || !icfg)
		{ FAIL("alloc"); return; }
	CHECK_INT(nprof_sys_trace_config_set_capture_enabled_for_event_type(cfg, "software", false), 0);
	CHECK_INT(nprof_sys_trace_config_set_capture_enabled_for_event_type(cfg, "model_load", true), 0);
	CHECK_INT(nprof_sys_trace_config_set_capture_enabled_for_event_type(cfg, "hw_notify", false), 0);
	if (trace_restart(cfg, 0))
		{ FAIL("start"); return; }
	got = recorded_types(0);
	CHECK_INT(got, (NPROF_SYS_TRACE_HARDWARE_MASK & ~type_bit("hw_notify")) | type_bit("model_load"));

	CHECK_INT(nprof_inspect_config_set_capture_enabled_for_event_type_string(icfg, "hardware",
										  false), 0);
	if (trace_restart(nprof_inspect_config_sys_trace(icfg), 0))
		{ FAIL("start"); return; }
	CHECK_INT(recorded_types(0), NPROF_SYS_TRACE_ALL_MASK & ~NPROF_SYS_TRACE_HARDWARE_MASK);
	trace_end_all();
	nprof_sys_trace_config_free(cfg);
	nprof_inspect_config_free(icfg);
}

HARNESS_MAIN
