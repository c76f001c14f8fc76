// SPDX-License-Identifier: MIT
/* Host tests of the inspect and system-trace configuration objects. */
#include "harness.h"

TEST(config_defaults)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	struct nprof_sys_trace_config *st;
	uint64_t size;
	uint32_t nc;
	int qt;

	CHECK(cfg);
	if (!cfg)
		return;
	CHECK_INT(nprof_inspect_config_get_session_id(cfg), 1);
	CHECK_STR(nprof_inspect_config_get_output_dir(cfg), "./output");
	CHECK_INT(nprof_inspect_config_get_activity_mask(cfg), 0xf);
	CHECK_INT(nprof_inspect_config_get_device_profile_mode(cfg), NPROF_DEVICE_PROFILE_MODEL);
	CHECK_INT(nprof_inspect_config_get_enable_inspect(cfg), 0);
	CHECK_INT(nprof_inspect_config_get_enable_inspect_on_fail(cfg), 0);
	for (nc = 0; nc < NPROF_MAX_CORES; nc++)
		if (nprof_inspect_config_get_capture_enabled_for_nc(cfg, nc) != 1)
			FAIL("core %u not captured by default", nc);
	st = nprof_inspect_config_sys_trace(cfg);
	CHECK_INT(nprof_sys_trace_config_get_max_events_per_nc(st), 1000000);
	CHECK(nprof_sys_trace_config_get_event_type_mask(st) == NPROF_SYS_TRACE_ALL_MASK);
	CHECK_INT(nprof_sys_trace_config_get_capture_enabled_for_nc(st, 255), 1);
	for (qt = 0; qt < NPROF_QUEUE_TYPES; qt++) {
		CHECK_INT(nprof_inspect_config_get_ring_size(cfg, (uint32_t)qt, &size), 0);
		CHECK(size == nprof_ring_size_default((uint32_t)qt));
		CHECK(size >= 1024 * 1024);
	}
	CHECK(nprof_ring_size_default(1) == 64ULL << 20);
	CHECK(nprof_ring_size_default(9) == 0);
	nprof_inspect_config_free(cfg);
}

TEST(config_setters_and_set_defaults)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	struct nprof_inspect_config *copy = nprof_inspect_config_allocate();
	uint64_t size;

	CHECK_INT(nprof_inspect_config_set_session_id(cfg, 7), 0);
	CHECK_INT(nprof_inspect_config_get_session_id(cfg), 7);
	CHECK_ERR_MSG(nprof_inspect_config_set_session_id(cfg, -1), EINVAL, "session id -1 is negative");
	CHECK_INT(nprof_inspect_config_set_output_dir(cfg, "/var/profiles"), 0);
	CHECK_STR(nprof_inspect_config_get_output_dir(cfg), "/var/profiles");
	CHECK_INT(nprof_inspect_config_set_output_dir(cfg, ""), 0);
	CHECK_STR(nprof_inspect_config_get_output_dir(cfg), "");
	CHECK_ERR_MSG(nprof_inspect_config_set_output_dir(cfg, "/dev/null"), EINVAL,
		      "output directory '/dev/null' is refused: it is /dev/null");
	CHECK_STR(nprof_inspect_config_get_output_dir(cfg), "");
	CHECK_INT(nprof_inspect_config_set_device_profile_mode(cfg, NPROF_DEVICE_PROFILE_SESSION), 0);
	CHECK_INT(nprof_inspect_config_get_device_profile_mode(cfg), NPROF_DEVICE_PROFILE_SESSION);
	CHECK_ERR_MSG(nprof_inspect_config_set_device_profile_mode(cfg, (enum nprof_device_profile_mode)3),
		      EINVAL, "unknown device profile mode 3");
	CHECK_INT(nprof_inspect_config_set_enable_inspect(cfg, true), 0);
	CHECK_INT(nprof_inspect_config_get_enable_inspect(cfg), 1);
	CHECK_INT(nprof_inspect_config_set_enable_inspect_on_fail(cfg, true), 0);
	CHECK_INT(nprof_inspect_config_get_enable_inspect_on_fail(cfg), 1);
	CHECK_INT(nprof_inspect_config_set_capture_enabled_for_nc(cfg, 3, false), 0);
	CHECK_INT(nprof_inspect_config_get_capture_enabled_for_nc(cfg, 3), 0);
	CHECK_INT(nprof_sys_trace_config_get_capture_enabled_for_nc(nprof_inspect_config_sys_trace(cfg), 3), 0);
	CHECK_INT(nprof_inspect_config_get_capture_enabled_for_nc(cfg, 4), 1);
	CHECK_ERR_MSG(nprof_inspect_config_set_capture_enabled_for_nc(cfg, 256, true), EINVAL,
		      "core index 256 is out of range [0, 255]");
	CHECK_ERR_MSG(nprof_inspect_config_get_capture_enabled_for_nc(cfg, 1000), EINVAL,
		      "core index 1000 is out of range [0, 255]");
	CHECK_INT(nprof_inspect_config_set_ring_size(cfg, 4, 256ULL << 20), 0);
	CHECK_INT(nprof_inspect_config_get_ring_size(cfg, 4, &size), 0);
	CHECK(size == 256ULL << 20);
	CHECK_ERR_MSG(nprof_inspect_config_set_ring_size(cfg, 4, (1ULL << 20) + 1), EINVAL,
		      "ring size 1048577 bytes is not a whole number of MiB in [1, 16384] MiB");
	CHECK_ERR_MSG(nprof_inspect_config_set_ring_size(cfg, 9, 1ULL << 20), EINVAL,
		      "unknown queue type 9");
	CHECK_INT(nprof_inspect_config_set_ring_size(cfg, 0, 0), -EINVAL);
	CHECK_INT(nprof_inspect_config_set_ring_size(cfg, 0, 16385ULL << 20), -EINVAL);

	CHECK_INT(nprof_inspect_config_copy(copy, cfg), 0);
	CHECK_INT(nprof_inspect_config_get_session_id(copy), 7);
	CHECK_INT(nprof_inspect_config_get_capture_enabled_for_nc(copy, 3), 0);

	CHECK_INT(nprof_inspect_config_set_defaults(cfg), 0);
	CHECK_INT(nprof_inspect_config_get_session_id(cfg), 1);
	CHECK_STR(nprof_inspect_config_get_output_dir(cfg), "./output");
	CHECK_INT(nprof_inspect_config_get_enable_inspect(cfg), 0);
	CHECK_INT(nprof_inspect_config_get_capture_enabled_for_nc(cfg, 3), 1);
	CHECK_INT(nprof_inspect_config_get_ring_size(cfg, 4, &size), 0);
	CHECK(size == 64ULL << 20);

	CHECK_ERR_MSG(nprof_inspect_config_set_session_id(NULL, 1), EINVAL, "inspect config is NULL");
	CHECK(!nprof_inspect_config_get_output_dir(NULL) && errno == EINVAL);
	nprof_inspect_config_free(cfg);
	nprof_inspect_config_free(copy);
	nprof_inspect_config_free(NULL);
}

TEST(config_activities_by_name)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	const char **names;
	size_t n;

	CHECK_INT(nprof_activity_from_name("system_profile"), 1);
	CHECK_INT(nprof_activity_from_name("device_profile"), 2);
	CHECK_INT(nprof_activity_from_name("host_memory"), 4);
	CHECK_INT(nprof_activity_from_name("cpu_util"), 8);
	CHECK_INT(nprof_activity_from_name("all"), 0xf);
	CHECK_ERR_MSG(nprof_activity_from_name("gpu_util"), EINVAL,
		      "unknown activity 'gpu_util' (expected system_profile, device_profile, host_memory, cpu_util or all)");
	CHECK_STR(nprof_activity_name(NPROF_ACTIVITY_CPU_UTIL), "cpu_util");
	CHECK(!nprof_activity_name(3) && errno == EINVAL);
	CHECK(!nprof_activity_name(16));

	CHECK_INT(nprof_inspect_config_set_activity(cfg, "device_profile", false), 0);
	CHECK_INT(nprof_inspect_config_get_activity_mask(cfg), 0xd);
	CHECK_INT(nprof_inspect_config_set_activity(cfg, "all", false), 0);
	CHECK_INT(nprof_inspect_config_get_activity_mask(cfg), 0);
	CHECK_INT(nprof_inspect_config_set_activity(cfg, "cpu_util", true), 0);
	CHECK_INT(nprof_inspect_config_set_activity(cfg, "system_profile", true), 0);
	CHECK_INT(nprof_inspect_config_get_activity_mask(cfg), 0x9);
	CHECK_ERR_MSG(nprof_inspect_config_set_activity(cfg, "bogus", true), EINVAL,
		      "unknown activity 'bogus' (expected system_profile, device_profile, host_memory, cpu_util or all)");
	CHECK_INT(nprof_inspect_config_get_activity_mask(cfg), 0x9);
	CHECK_ERR_MSG(nprof_inspect_config_set_activity_mask(cfg, 0x13), EINVAL,
		      "activity mask 0x13 has unknown bits 0x10");

	CHECK_INT(nprof_inspect_config_get_enabled_activity_types(cfg, &names, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_STR(names[0], "system_profile");
		CHECK_STR(names[1], "cpu_util");
	}
	nprof_inspect_config_free_activity_types(names, n);

	CHECK_INT(nprof_inspect_config_get_all_activity_types(&names, &n), 0);
	CHECK_INT(n, 4);
	if (n == 4) {
		CHECK_STR(names[0], "system_profile");
		CHECK_STR(names[1], "device_profile");
		CHECK_STR(names[2], "host_memory");
		CHECK_STR(names[3], "cpu_util");
	}
	nprof_inspect_config_free_activity_types(names, n);
	CHECK_INT(nprof_inspect_config_get_all_activity_types(NULL, &n), -EINVAL);
	nprof_inspect_config_free(cfg);
}

TEST(sys_trace_taxonomy)
{
	static const char *const hardware[] = {
		"nc_exec_running", "cc_running", "cc_exec_barrier", "numerical_err",
		"nrt_model_switch", "timestamp_sync_point", "hw_notify",
	};
	static const char *const documented_software[] = {
		"model_load", "nrt_load", "nrt_execute", "runtime_execute", "nrt_tensor_read",
		"nrt_tensor_write", "tensor_read", "tensor_write", "device_exec",
		"nrta_execute_schedule", "kbl_exec_wait", "kmgr_exec_core", "cc_exec",
		"dmem_buf_copyin", "dmem_buf_copyout",
	};
	const char **names;
	size_t i, n, nhw = 0;
	int t;

	for (i = 0; i < sizeof(hardware) / sizeof(hardware[0]); i++) {
		t = nprof_sys_trace_event_type_from_name(hardware[i]);
		CHECK(t >= 0);
		CHECK(nprof_sys_trace_event_type_is_hardware((unsigned int)t));
	}
	for (i = 0; i < sizeof(documented_software) / sizeof(documented_software[0]); i++) {
		t = nprof_sys_trace_event_type_from_name(documented_software[i]);
		if (t < 0)
			FAIL("documented event type %s missing", documented_software[i]);
		else
			CHECK(!nprof_sys_trace_event_type_is_hardware((unsigned int)t));
	}
	CHECK_INT(nprof_sys_trace_get_event_types(&names, &n), 0);
	CHECK_INT(n, NPROF_SYS_TRACE_EVENT_COUNT);
	for (i = 0; i < n; i++) {
		CHECK_STR(names[i], nprof_sys_trace_event_type_name((unsigned int)i));
		CHECK_INT(nprof_sys_trace_event_type_from_name(names[i]), i);
		nhw += nprof_sys_trace_event_type_is_hardware((unsigned int)i);
	}
	/* The hardware group is exactly the seven documented types. */
	CHECK_INT(nhw, 7);
	nprof_sys_trace_free_event_types(names, n);
	CHECK_ERR_MSG(nprof_sys_trace_event_type_from_name("hardware"), EINVAL,
		      "unknown system-trace event type 'hardware'");
	CHECK(!nprof_sys_trace_event_type_name(NPROF_SYS_TRACE_EVENT_COUNT));
	CHECK(!nprof_sys_trace_event_type_is_hardware(200));
}

TEST(sys_trace_config)
{
	struct nprof_sys_trace_config *st = nprof_sys_trace_config_allocate();
	const char **names;
	size_t n;

	CHECK_INT(nprof_sys_trace_config_set_max_events_per_nc(st, 5), 0);
	CHECK_INT(nprof_sys_trace_config_get_max_events_per_nc(st), 5);
	CHECK_ERR_MSG(nprof_sys_trace_config_set_max_events_per_nc(st, 0), EINVAL,
		      "max events per core 0 is out of range [1, 268435456]");
	CHECK_INT(nprof_sys_trace_config_set_max_events_per_nc(st, (1ULL << 28) + 1), -EINVAL);
	CHECK_INT(nprof_sys_trace_config_get_max_events_per_nc(st), 5);

	CHECK_INT(nprof_sys_trace_config_set_capture_enabled_for_event_type(st, "software", false), 0);
	CHECK(nprof_sys_trace_config_get_event_type_mask(st) == NPROF_SYS_TRACE_HARDWARE_MASK);
	CHECK_INT(nprof_sys_trace_config_set_capture_enabled_for_event_type(st, "hw_notify", false), 0);
	CHECK_INT(nprof_sys_trace_config_set_capture_enabled_for_event_type(st, "nrt_execute", true), 0);
	CHECK(nprof_sys_trace_config_get_event_type_mask(st) ==
	      ((NPROF_SYS_TRACE_HARDWARE_MASK & ~(1ULL << NPROF_EV_HW_NOTIFY)) | (1ULL << NPROF_EV_NRT_EXECUTE)));
	CHECK_ERR_MSG(nprof_sys_trace_config_set_capture_enabled_for_event_type(st, "nrt_exec", true),
		      EINVAL, "unknown system-trace event type 'nrt_exec'");
	CHECK_INT(nprof_sys_trace_config_set_capture_enabled_for_event_type(st, "hardware", false), 0);
	CHECK_INT(nprof_sys_trace_config_get_enabled_event_types(st, &names, &n), 0);
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_STR(names[0], "nrt_execute");
	nprof_sys_trace_free_event_types(names, n);

	CHECK_INT(nprof_sys_trace_config_set_capture_enabled_for_nc(st, 255, false), 0);
	CHECK_INT(nprof_sys_trace_config_get_capture_enabled_for_nc(st, 255), 0);
	CHECK_INT(nprof_sys_trace_config_set_capture_enabled_for_nc(st, 256, false), -EINVAL);

	CHECK_INT(nprof_sys_trace_config_set_defaults(st), 0);
	CHECK(nprof_sys_trace_config_get_event_type_mask(st) == NPROF_SYS_TRACE_ALL_MASK);
	CHECK_INT(nprof_sys_trace_config_get_capture_enabled_for_nc(st, 255), 1);
	CHECK_INT(nprof_sys_trace_config_get_max_events_per_nc(st), 1000000);
	nprof_sys_trace_config_free(st);
}

TEST(inspect_config_forwards_to_sys_trace)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	struct nprof_sys_trace_config *st = nprof_inspect_config_sys_trace(cfg);

	CHECK_INT(nprof_inspect_config_set_sys_trace_max_events_per_nc(cfg, 42), 0);
	CHECK_INT(nprof_sys_trace_config_get_max_events_per_nc(st), 42);
	CHECK_INT(nprof_inspect_config_set_capture_enabled_for_event_type_string(cfg, "hardware", false), 0);
	CHECK(nprof_sys_trace_config_get_event_type_mask(st) ==
	      (NPROF_SYS_TRACE_ALL_MASK & ~NPROF_SYS_TRACE_HARDWARE_MASK));
	nprof_inspect_config_free(cfg);
}

TEST(error_message_is_thread_local)
{
	nprof_activity_from_name("one");
	CHECK_CONTAINS(nprof_strerror_last(), "'one'");
	/* A successful call leaves the message alone. */
	CHECK_INT(nprof_activity_from_name("all"), 0xf);
	CHECK_CONTAINS(nprof_strerror_last(), "'one'");
	CHECK(nprof_version() == NPROF_VERSION_CODE(1, 4, 0));
	CHECK_STR(nprof_version_string(), "1.4.0");
	CHECK_INT(nprof_log_set_handler(NULL, NULL, (enum nprof_log_level)9), -EINVAL);
}

HARNESS_MAIN
