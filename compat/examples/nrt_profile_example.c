// SPDX-License-Identifier: MIT
/*
 * An application written against the Neuron runtime's profiling headers
 * only (nrt/nrt_profile.h, nrt/nrt_sys_trace.h, nrt/nrt_status.h), plus
 * libnrtprof's simulator stand-ins for nrt_load/nrt_execute
 * (nrt/nrt_sim.h). It runs two models on NeuronCores 0 and 1 and profiles
 * them one of five ways:
 *
 *   nrt_profile_example env [fail]       inspect session from NEURON_RT_INSPECT_*,
 *                                        begun by nrt_init, written by nrt_close;
 *                                        "fail" makes one execution fail
 *   nrt_profile_example options DIR      nrt_inspect_begin_with_options into DIR
 *   nrt_profile_example profile FILE     nrt_profile_start/stop of one model
 *   nrt_profile_example continuous DIR   continuous profiling, saves of both cores
 *   nrt_profile_example systrace         the system trace, fetched as JSON
 *
 * Every call's status is printed; the exit status is 0 only if every call
 * returned what the runtime's documentation says it returns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nrt/nrt_profile.h>
#include <nrt/nrt_sim.h>
#include <nrt/nrt_status.h>
#include <nrt/nrt_sys_trace.h>

static int failures;

static void expect(const char *what, NRT_STATUS got, NRT_STATUS want)
{
	printf("example: %-44s status %d%s\n", what, (int)got,
	       got == want ? "" : " (UNEXPECTED)");
	if (got != want) {
		printf("example:   expected %d: %s\n", (int)want, nrtsim_last_error());
		failures++;
	}
}

static nrt_model_t *mlp, *cnn;

static void load_models(void)
{
	expect("nrtsim_load(mlp, NC 0)", nrtsim_load("mlp", 101, 0, &mlp), NRT_SUCCESS);
	expect("nrtsim_load(cnn, NC 1)", nrtsim_load("cnn", 102, 1, &cnn), NRT_SUCCESS);
}

static void execute(int n, int fail_at)
{
	int i;

	for (i = 0; i < n; i++) {
		expect("execute mlp", nrtsim_execute(mlp, 2 + (uint32_t)i, false), NRT_SUCCESS);
		expect(i == fail_at ? "execute cnn (failing)" : "execute cnn",
		       nrtsim_execute(cnn, 3, i == fail_at),
		       i == fail_at ? NRT_EXEC_COMPLETED_WITH_ERR : NRT_SUCCESS);
	}
}

static void unload_models(void)
{
	expect("nrt_unload(mlp)", nrt_unload(mlp), NRT_SUCCESS);
	expect("nrt_unload(cnn)", nrt_unload(cnn), NRT_SUCCESS);
}

static void run_env(int fail)
{
	expect("nrt_init", nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "1.0", "1.0"), NRT_SUCCESS);
	load_models();
	execute(3, fail ? 1 : -1);
	unload_models();
	nrt_close();
}

static void run_options(const char *dir)
{
	nrt_inspect_config_t *cfg = NULL;
	const char **names;
	size_t n;

	expect("nrt_init", nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL), NRT_SUCCESS);
	expect("nrt_inspect_config_allocate", nrt_inspect_config_allocate(&cfg), NRT_SUCCESS);
	expect("nrt_inspect_config_set_output_dir(/dev/null)",
	       nrt_inspect_config_set_output_dir(cfg, "/dev/null"), NRT_INVALID);
	expect("nrt_inspect_config_set_output_dir", nrt_inspect_config_set_output_dir(cfg, dir),
	       NRT_SUCCESS);
	expect("nrt_inspect_config_set_session_id", nrt_inspect_config_set_session_id(cfg, 7),
	       NRT_SUCCESS);
	expect("nrt_inspect_config_set_activity(all)", nrt_inspect_config_set_activity(cfg, "all", true),
	       NRT_SUCCESS);
	/*
	 * Device profiles of a configuration use the runtime's ring sizes
	 * (64-128 MiB per queue), more than a small test VM has; the env mode
	 * shows device profiles with NEURON_RT_PROFILE_BUF_*_MB.
	 */
	expect("nrt_inspect_config_set_activity(device_profile, off)",
	       nrt_inspect_config_set_activity(cfg, "device_profile", false), NRT_SUCCESS);
	expect("nrt_inspect_config_set_activity(bogus)",
	       nrt_inspect_config_set_activity(cfg, "bogus", true), NRT_INVALID);
	expect("nrt_inspect_config_get_enabled_activity_types",
	       nrt_inspect_config_get_enabled_activity_types(cfg, &names, &n), NRT_SUCCESS);
	printf("example: %zu activities enabled\n", n);
	if (n != 3)
		failures++;
	nrt_inspect_config_free_activity_types(names, n);
	expect("nrt_inspect_config_set_sys_trace_max_events_per_nc",
	       nrt_inspect_config_set_sys_trace_max_events_per_nc(cfg, 4096), NRT_SUCCESS);
	expect("nrt_inspect_config_set_enable_inspect", nrt_inspect_config_set_enable_inspect(cfg, true),
	       NRT_SUCCESS);
	expect("nrt_inspect_begin_with_options", nrt_inspect_begin_with_options(cfg), NRT_SUCCESS);
	expect("nrt_inspect_begin_with_options (again)", nrt_inspect_begin_with_options(cfg),
	       NRT_FAILURE);
	load_models();
	execute(2, -1);
	unload_models();
	expect("nrt_inspect_stop", nrt_inspect_stop(), NRT_SUCCESS);
	expect("nrt_inspect_stop (nothing to stop)", nrt_inspect_stop(), NRT_SUCCESS);
	expect("nrt_inspect_config_free", nrt_inspect_config_free(cfg), NRT_SUCCESS);
	nrt_close();
}

static void run_profile(const char *file)
{
	expect("nrt_init", nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL), NRT_SUCCESS);
	load_models();
	expect("nrt_profile_start", nrt_profile_start(mlp, file), NRT_SUCCESS);
	execute(2, -1);
	expect("nrt_profile_stop", nrt_profile_stop(file), NRT_SUCCESS);
	expect("nrt_profile_stop (again)", nrt_profile_stop(file), NRT_FAILURE);
	expect("nrt_profile_stop (never started)", nrt_profile_stop("never.ntff"), NRT_INVALID);
	unload_models();
	nrt_close();
}

static void run_continuous(const char *dir)
{
	nrt_profile_continuous_options_t *opts = NULL;

	expect("nrt_init", nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL), NRT_SUCCESS);
	load_models();
	expect("nrt_profile_continuous_options_allocate",
	       nrt_profile_continuous_options_allocate(&opts), NRT_SUCCESS);
	expect("nrt_profile_continuous_options_set_output_dir",
	       nrt_profile_continuous_options_set_output_dir(opts, dir), NRT_SUCCESS);
	expect("nrt_profile_continuous_save (not started)", nrt_profile_continuous_save(0, opts),
	       NRT_INVALID);
	expect("nrt_profile_continuous_start", nrt_profile_continuous_start(opts), NRT_SUCCESS);
	execute(3, 2);
	expect("nrt_profile_continuous_save(NC 0)", nrt_profile_continuous_save(0, opts), NRT_SUCCESS);
	expect("nrt_profile_continuous_save(NC 1)", nrt_profile_continuous_save(1, opts), NRT_SUCCESS);
	expect("nrt_profile_continuous_save(NC 0) again", nrt_profile_continuous_save(0, opts),
	       NRT_INVALID);
	expect("nrt_profile_continuous_stop", nrt_profile_continuous_stop(), NRT_SUCCESS);
	expect("nrt_profile_continuous_options_free", nrt_profile_continuous_options_free(opts),
	       NRT_SUCCESS);
	unload_models();
	nrt_close();
}

static void run_systrace(void)
{
	nrt_sys_trace_fetch_options_t *fo = NULL;
	nrt_sys_trace_config_t *cfg = NULL;
	const char **types;
	char *json = NULL;
	size_t n, len = 0;

	expect("nrt_init", nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL), NRT_SUCCESS);
	expect("nrt_sys_trace_get_event_types", nrt_sys_trace_get_event_types(&types, &n), NRT_SUCCESS);
	printf("example: %zu event types\n", n);
	nrt_sys_trace_free_event_types(types, n);
	expect("nrt_sys_trace_config_allocate", nrt_sys_trace_config_allocate(&cfg), NRT_SUCCESS);
	nrt_sys_trace_config_set_max_events_per_nc(cfg, 1024);
	expect("nrt_sys_trace_config_set_capture_enabled_for_event_type(hardware, off)",
	       nrt_sys_trace_config_set_capture_enabled_for_event_type(cfg, "hardware", false),
	       NRT_SUCCESS);
	expect("nrt_sys_trace_start", nrt_sys_trace_start(cfg), NRT_SUCCESS);
	load_models();
	execute(2, 0);
	unload_models();
	expect("nrt_sys_trace_fetch_options_allocate", nrt_sys_trace_fetch_options_allocate(&fo),
	       NRT_SUCCESS);
	expect("nrt_sys_trace_fetch_events", nrt_sys_trace_fetch_events(&json, &len, fo), NRT_SUCCESS);
	printf("example: fetched %zu bytes of JSON\n", len);
	if (!json || !strstr(json, "\"nrt_execute\"") || !strstr(json, "\"exec_error\"")) {
		printf("example: the events lack nrt_execute or exec_error\n");
		failures++;
	}
	nrt_sys_trace_buffer_free(json);
	json = NULL;
	expect("nrt_sys_trace_fetch_events (again)", nrt_sys_trace_fetch_events(&json, &len, fo),
	       NRT_SUCCESS);
	if (!json || strstr(json, "\"nrt_execute\"")) {
		printf("example: events were fetched twice\n");
		failures++;
	}
	nrt_sys_trace_buffer_free(json);
	expect("nrt_sys_trace_fetch_options_free", nrt_sys_trace_fetch_options_free(fo), NRT_SUCCESS);
	expect("nrt_sys_trace_stop", nrt_sys_trace_stop(), NRT_SUCCESS);
	nrt_sys_trace_config_free(cfg);
	nrt_close();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "env")) {
		run_env(argc > 2 && !strcmp(argv[2], "fail"));
	} else if (!strcmp(mode, "options") && argc > 2) {
		run_options(argv[2]);
	} else if (!strcmp(mode, "profile") && argc > 2) {
		run_profile(argv[2]);
	} else if (!strcmp(mode, "continuous") && argc > 2) {
		run_continuous(argv[2]);
	} else if (!strcmp(mode, "systrace")) {
		run_systrace();
	} else {
		fprintf(stderr,
			"usage: %s env [fail] | options DIR | profile FILE | continuous DIR | systrace\n",
			argv[0]);
		return 2;
	}
	printf("example: %s: %s\n", mode, failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
