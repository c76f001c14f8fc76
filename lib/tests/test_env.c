// SPDX-License-Identifier: MIT
/* Host tests of the NEURON_RT_INSPECT_* / NEURON_RT_PROFILE_BUF_* parser. */
#include "harness.h"

#define MiB (1ULL << 20)

/* Parse a NULL-terminated list of "NAME=value" into a fresh config. */
static struct nprof_inspect_config *parse(int *ret, char *const envp[])
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();

	*ret = nprof_inspect_config_parse_envp(cfg, envp);
	return cfg;
}

/* Expect one variable setting to fail with exactly @msg and change nothing. */
static void expect_bad(const char *assignment, const char *msg)
{
	char *envp[] = { (char *)assignment, NULL };
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	struct nprof_inspect_config *ref = nprof_inspect_config_allocate();
	int ret;

	/* Make the config differ from the defaults so "unchanged" means something. */
	nprof_inspect_config_set_session_id(cfg, 9);
	nprof_inspect_config_set_capture_enabled_for_nc(cfg, 5, false);
	nprof_inspect_config_copy(ref, cfg);
	ret = nprof_inspect_config_parse_envp(cfg, envp);
	if (ret != -EINVAL)
		FAIL("%s: returned %d, expected -EINVAL", assignment, ret);
	else if (strcmp(nprof_strerror_last(), msg))
		FAIL("%s: message \"%s\", expected \"%s\"", assignment, nprof_strerror_last(), msg);
	if (nprof_inspect_config_get_session_id(cfg) != 9 ||
	    nprof_inspect_config_get_capture_enabled_for_nc(cfg, 5) != 0 ||
	    nprof_inspect_config_get_capture_enabled_for_nc(cfg, 0) != 1 ||
	    nprof_inspect_config_get_enable_inspect(cfg) != 0 ||
	    nprof_inspect_config_get_activity_mask(cfg) != 0xf)
		FAIL("%s: the config changed although parsing failed", assignment);
	nprof_inspect_config_free(cfg);
	nprof_inspect_config_free(ref);
}

TEST(env_empty_keeps_defaults)
{
	char *envp[] = { "PATH=/bin", NULL };
	int ret;
	struct nprof_inspect_config *cfg = parse(&ret, envp);

	CHECK_INT(ret, 0);
	CHECK_INT(nprof_inspect_config_get_enable_inspect(cfg), 0);
	CHECK_INT(nprof_inspect_config_get_activity_mask(cfg), 0xf);
	CHECK_STR(nprof_inspect_config_get_output_dir(cfg), "./output");
	nprof_inspect_config_free(cfg);
}

TEST(env_switches)
{
	char *envp[] = {
		"NEURON_RT_INSPECT_ENABLE=1",
		"NEURON_RT_INSPECT_ON_FAIL=1",
		"NEURON_RT_INSPECT_SYSTEM_PROFILE=0",
		"NEURON_RT_INSPECT_CPU_UTIL=0",
		"NEURON_RT_INSPECT_HOST_MEMORY=1",
		"NEURON_RT_INSPECT_OUTPUT_DIR=/data/prof",
		"NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC=4096",
		NULL,
	};
	int ret;
	struct nprof_inspect_config *cfg = parse(&ret, envp);

	CHECK_INT(ret, 0);
	CHECK_INT(nprof_inspect_config_get_enable_inspect(cfg), 1);
	CHECK_INT(nprof_inspect_config_get_enable_inspect_on_fail(cfg), 1);
	CHECK_INT(nprof_inspect_config_get_activity_mask(cfg),
		  NPROF_ACTIVITY_DEVICE_PROFILE | NPROF_ACTIVITY_HOST_MEMORY);
	CHECK_STR(nprof_inspect_config_get_output_dir(cfg), "/data/prof");
	CHECK_INT(nprof_sys_trace_config_get_max_events_per_nc(nprof_inspect_config_sys_trace(cfg)), 4096);
	nprof_inspect_config_free(cfg);
}

TEST(env_device_profile_modes)
{
	static const struct {
		const char *v;
		int mode;
		int bit;
	} cases[] = {
		{ "0", NPROF_DEVICE_PROFILE_DISABLED, 0 },
		{ "1", NPROF_DEVICE_PROFILE_MODEL, 1 },
		{ "model", NPROF_DEVICE_PROFILE_MODEL, 1 },
		{ "session", NPROF_DEVICE_PROFILE_SESSION, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		char *envp[] = { buf, NULL };
		struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();

		/* Start from the opposite so both directions are seen. */
		nprof_inspect_config_set_activity(cfg, "device_profile", !cases[i].bit);
		snprintf(buf, sizeof(buf), "NEURON_RT_INSPECT_DEVICE_PROFILE=%s", cases[i].v);
		CHECK_INT(nprof_inspect_config_parse_envp(cfg, envp), 0);
		CHECK_INT(nprof_inspect_config_get_device_profile_mode(cfg), cases[i].mode);
		CHECK_INT(!!(nprof_inspect_config_get_activity_mask(cfg) & NPROF_ACTIVITY_DEVICE_PROFILE),
			  cases[i].bit);
		nprof_inspect_config_free(cfg);
	}
}

TEST(env_filter_nc)
{
	char *envp[] = { "NEURON_RT_INSPECT_EVENT_FILTER_NC=0-3,8,10-11,255", NULL };
	int ret, nc, want;
	struct nprof_inspect_config *cfg = parse(&ret, envp);

	CHECK_INT(ret, 0);
	for (nc = 0; nc < NPROF_MAX_CORES; nc++) {
		want = nc <= 3 || nc == 8 || nc == 10 || nc == 11 || nc == 255;
		if (nprof_inspect_config_get_capture_enabled_for_nc(cfg, (uint32_t)nc) != want ||
		    nprof_sys_trace_config_get_capture_enabled_for_nc(nprof_inspect_config_sys_trace(cfg),
								       (uint32_t)nc) != want)
			FAIL("core %d: expected capture %d", nc, want);
	}
	nprof_inspect_config_free(cfg);

	{
		char *one[] = { "NEURON_RT_INSPECT_EVENT_FILTER_NC=2", NULL };

		cfg = parse(&ret, one);
		CHECK_INT(ret, 0);
		CHECK_INT(nprof_inspect_config_get_capture_enabled_for_nc(cfg, 2), 1);
		CHECK_INT(nprof_inspect_config_get_capture_enabled_for_nc(cfg, 0), 0);
		CHECK_INT(nprof_inspect_config_get_capture_enabled_for_nc(cfg, 3), 0);
		nprof_inspect_config_free(cfg);
	}
}

TEST(env_filter_nc_errors)
{
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_NC=0-3,x",
		   "NEURON_RT_INSPECT_EVENT_FILTER_NC: bad core index 'x' in '0-3,x'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_NC=0,,2",
		   "NEURON_RT_INSPECT_EVENT_FILTER_NC: empty element in '0,,2'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_NC=",
		   "NEURON_RT_INSPECT_EVENT_FILTER_NC: empty core list");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_NC=3-1",
		   "NEURON_RT_INSPECT_EVENT_FILTER_NC: range '3-1' is reversed in '3-1'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_NC=0,256",
		   "NEURON_RT_INSPECT_EVENT_FILTER_NC: core index 256 is out of range [0, 255] in '0,256'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_NC=1-",
		   "NEURON_RT_INSPECT_EVENT_FILTER_NC: bad core index '' in '1-'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_NC=-1",
		   "NEURON_RT_INSPECT_EVENT_FILTER_NC: bad core index '' in '-1'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_NC= 1",
		   "NEURON_RT_INSPECT_EVENT_FILTER_NC: bad core index ' 1' in ' 1'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_NC=1-2-3",
		   "NEURON_RT_INSPECT_EVENT_FILTER_NC: bad core index '2-3' in '1-2-3'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_NC=99999999999999999999",
		   "NEURON_RT_INSPECT_EVENT_FILTER_NC: core index 99999999999999999999 is out of range [0, 255] in '99999999999999999999'");
}

TEST(env_filter_type)
{
	struct {
		const char *v;
		uint64_t mask;
	} cases[] = {
		{ "hardware", NPROF_SYS_TRACE_HARDWARE_MASK },
		{ "software", NPROF_SYS_TRACE_ALL_MASK & ~NPROF_SYS_TRACE_HARDWARE_MASK },
		{ "nrt_load,hw_notify", (1ULL << NPROF_EV_NRT_LOAD) | (1ULL << NPROF_EV_HW_NOTIFY) },
		{ "^nrt_load", NPROF_SYS_TRACE_ALL_MASK & ~(1ULL << NPROF_EV_NRT_LOAD) },
		{ "hardware,^hw_notify", NPROF_SYS_TRACE_HARDWARE_MASK & ~(1ULL << NPROF_EV_HW_NOTIFY) },
		{ "^software", NPROF_SYS_TRACE_HARDWARE_MASK },
		{ "nrt_execute,^nrt_execute", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[128];
		char *envp[] = { buf, NULL };
		int ret;
		struct nprof_inspect_config *cfg;

		snprintf(buf, sizeof(buf), "NEURON_RT_INSPECT_EVENT_FILTER_TYPE=%s", cases[i].v);
		cfg = parse(&ret, envp);
		CHECK_INT(ret, 0);
		if (nprof_sys_trace_config_get_event_type_mask(nprof_inspect_config_sys_trace(cfg)) !=
		    cases[i].mask)
			FAIL("'%s': mask 0x%llx, expected 0x%llx", cases[i].v,
			     (unsigned long long)nprof_sys_trace_config_get_event_type_mask(
				     nprof_inspect_config_sys_trace(cfg)),
			     (unsigned long long)cases[i].mask);
		nprof_inspect_config_free(cfg);
	}
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_TYPE=nrt_load,foo",
		   "NEURON_RT_INSPECT_EVENT_FILTER_TYPE: unknown event type 'foo' in 'nrt_load,foo'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_TYPE=^bar",
		   "NEURON_RT_INSPECT_EVENT_FILTER_TYPE: unknown event type 'bar' in '^bar'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_TYPE=nrt_load,",
		   "NEURON_RT_INSPECT_EVENT_FILTER_TYPE: empty element in 'nrt_load,'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_TYPE=^",
		   "NEURON_RT_INSPECT_EVENT_FILTER_TYPE: empty element in '^'");
	expect_bad("NEURON_RT_INSPECT_EVENT_FILTER_TYPE=",
		   "NEURON_RT_INSPECT_EVENT_FILTER_TYPE: empty event type list");
}

TEST(env_bad_values)
{
	expect_bad("NEURON_RT_INSPECT_ENABLE=yes",
		   "NEURON_RT_INSPECT_ENABLE: expected 0 or 1, got 'yes'");
	expect_bad("NEURON_RT_INSPECT_ON_FAIL=2", "NEURON_RT_INSPECT_ON_FAIL: expected 0 or 1, got '2'");
	expect_bad("NEURON_RT_INSPECT_CPU_UTIL=", "NEURON_RT_INSPECT_CPU_UTIL: expected 0 or 1, got ''");
	expect_bad("NEURON_RT_INSPECT_HOST_MEMORY=01",
		   "NEURON_RT_INSPECT_HOST_MEMORY: expected 0 or 1, got '01'");
	expect_bad("NEURON_RT_INSPECT_SYSTEM_PROFILE=true",
		   "NEURON_RT_INSPECT_SYSTEM_PROFILE: expected 0 or 1, got 'true'");
	expect_bad("NEURON_RT_INSPECT_DEVICE_PROFILE=all",
		   "NEURON_RT_INSPECT_DEVICE_PROFILE: expected 0, 1, model or session, got 'all'");
	expect_bad("NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC=12a",
		   "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC: '12a' is not a non-negative decimal number");
	expect_bad("NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC=-5",
		   "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC: '-5' is not a non-negative decimal number");
	expect_bad("NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC=0",
		   "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC: 0 is out of range [1, 268435456]");
	expect_bad("NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC=268435457",
		   "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC: 268435457 is out of range [1, 268435456]");
	expect_bad("NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC=184467440737095516160",
		   "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC: 184467440737095516160 is out of range [1, 268435456]");
	expect_bad("NEURON_RT_INSPECT_OUTPUT_DIR=/dev/null",
		   "NEURON_RT_INSPECT_OUTPUT_DIR: output directory '/dev/null' is refused: it is /dev/null");
	expect_bad("NEURON_RT_INSPECT_OUTPUT_DIR=./tmp/",
		   "NEURON_RT_INSPECT_OUTPUT_DIR: output directory './tmp/' is refused: ./tmp is reserved for on-fail salvage");
	expect_bad("NEURON_RT_PROFILE_BUF_DMA_MB=0",
		   "NEURON_RT_PROFILE_BUF_DMA_MB: 0 is out of range [1, 16384]");
	expect_bad("NEURON_RT_PROFILE_BUF_EVENT_MB=64MB",
		   "NEURON_RT_PROFILE_BUF_EVENT_MB: '64MB' is not a non-negative decimal number");
	expect_bad("NEURON_RT_PROFILE_BUF_THROTTLE_MB=16385",
		   "NEURON_RT_PROFILE_BUF_THROTTLE_MB: 16385 is out of range [1, 16384]");
}

TEST(env_failure_is_all_or_nothing)
{
	/* Valid variables before and after the bad one must not be applied. */
	char *envp[] = {
		"NEURON_RT_INSPECT_ENABLE=1",
		"NEURON_RT_INSPECT_OUTPUT_DIR=/data/x",
		"NEURON_RT_INSPECT_DEVICE_PROFILE=session",
		"NEURON_RT_INSPECT_EVENT_FILTER_NC=0-3,x",
		"NEURON_RT_PROFILE_BUF_DMA_MB=2",
		NULL,
	};
	uint64_t size;
	int ret;
	struct nprof_inspect_config *cfg = parse(&ret, envp);

	CHECK_INT(ret, -EINVAL);
	CHECK_STR(nprof_strerror_last(), "NEURON_RT_INSPECT_EVENT_FILTER_NC: bad core index 'x' in '0-3,x'");
	CHECK_INT(nprof_inspect_config_get_enable_inspect(cfg), 0);
	CHECK_STR(nprof_inspect_config_get_output_dir(cfg), "./output");
	CHECK_INT(nprof_inspect_config_get_device_profile_mode(cfg), NPROF_DEVICE_PROFILE_MODEL);
	CHECK_INT(nprof_inspect_config_get_capture_enabled_for_nc(cfg, 7), 1);
	CHECK_INT(nprof_inspect_config_get_ring_size(cfg, 4, &size), 0);
	CHECK(size == 64 * MiB);
	nprof_inspect_config_free(cfg);
}

TEST(env_ring_sizes)
{
	char *envp[] = {
		"NEURON_RT_PROFILE_BUF_EVENT_MB=32",
		"NEURON_RT_PROFILE_BUF_DMA_MB=128",
		"NEURON_RT_PROFILE_BUF_THROTTLE_MB=2",
		"NEURON_RT_PROFILE_BUF_CC_CORE_INSTRUCTION_MB=256",
		"NEURON_RT_PROFILE_BUF_CC_CORE_EVENT_MB=8",
		"NEURON_RT_PROFILE_BUF_TRACE_MB=512",
		"NEURON_RT_PROFILE_BUF_TOPSP_TRACE_MB=256",
		NULL,
	};
	static const struct {
		uint32_t qt;
		uint64_t mb;
	} want[] = { { 1, 32 }, { 4, 128 }, { 5, 2 }, { 6, 256 }, { 7, 8 }, { 0, 512 }, { 2, 1 } };
	uint64_t size;
	size_t i;
	int ret;
	struct nprof_inspect_config *cfg = parse(&ret, envp);

	CHECK_INT(ret, 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CHECK_INT(nprof_inspect_config_get_ring_size(cfg, want[i].qt, &size), 0);
		if (size != want[i].mb * MiB)
			FAIL("queue type %u: %llu bytes, expected %llu MiB", want[i].qt,
			     (unsigned long long)size, (unsigned long long)want[i].mb);
	}
	nprof_inspect_config_free(cfg);

	{
		char *conflict[] = {
			"NEURON_RT_PROFILE_BUF_CC_CORE_EVENT_MB=8",
			"NEURON_RT_PROFILE_BUF_TOPSP_EVENT_MB=16",
			NULL,
		};
		cfg = parse(&ret, conflict);
		CHECK_INT(ret, -EINVAL);
		CHECK_STR(nprof_strerror_last(),
			  "NEURON_RT_PROFILE_BUF_TOPSP_EVENT_MB=16 conflicts with NEURON_RT_PROFILE_BUF_CC_CORE_EVENT_MB=8");
		nprof_inspect_config_free(cfg);
	}
}

struct kv {
	const char *name;
	const char *value;
};

static const char *kv_lookup(const char *name, void *ctx)
{
	const struct kv *kv;

	for (kv = ctx; kv->name; kv++)
		if (!strcmp(kv->name, name))
			return kv->value;
	return NULL;
}

TEST(env_lookup_function)
{
	struct kv vars[] = {
		{ "NEURON_RT_INSPECT_ENABLE", "1" },
		{ "NEURON_RT_INSPECT_DEVICE_PROFILE", "session" },
		{ "NEURON_RT_INSPECT_OUTPUT_DIR", "" },
		{ NULL, NULL },
	};
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();

	CHECK_INT(nprof_inspect_config_parse_env(cfg, kv_lookup, vars), 0);
	CHECK_INT(nprof_inspect_config_get_enable_inspect(cfg), 1);
	CHECK_INT(nprof_inspect_config_get_device_profile_mode(cfg), NPROF_DEVICE_PROFILE_SESSION);
	CHECK_STR(nprof_inspect_config_get_output_dir(cfg), "");
	CHECK_INT(nprof_inspect_config_parse_env(NULL, kv_lookup, vars), -EINVAL);
	CHECK_INT(nprof_inspect_config_parse_envp(cfg, NULL), -EINVAL);
	nprof_inspect_config_free(cfg);
}

static int warnings;

static void count_warn(enum nprof_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == NPROF_LOG_WARN && strstr(msg, "NEURON_RT_INSPECT_ENABLED"))
		warnings++;
}

TEST(env_unknown_variable_warns)
{
	char *envp[] = { "NEURON_RT_INSPECT_ENABLED=1", NULL };
	int ret;
	struct nprof_inspect_config *cfg;

	nprof_log_set_handler(count_warn, NULL, NPROF_LOG_WARN);
	cfg = parse(&ret, envp);
	nprof_log_set_handler(NULL, NULL, NPROF_LOG_WARN);
	CHECK_INT(ret, 0);
	CHECK_INT(warnings, 1);
	CHECK_INT(nprof_inspect_config_get_enable_inspect(cfg), 0);
	nprof_inspect_config_free(cfg);
}

HARNESS_MAIN
