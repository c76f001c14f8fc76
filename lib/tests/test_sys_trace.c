// SPDX-License-Identifier: MIT
/*
 * Host tests of the system trace: ring overwrite accounting, the core and
 * event-type filters as configured through the config API and the
 * environment, fetch-once JSON (validated by a strict checker here and by
 * python3's json module), concurrent recording, the record API's argument
 * checks, and the system-profile files decoded by protoc and protobuf-c.
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

#define SRC_RT	NPROF_SYS_TRACE_SRC_NEURON_RT

/* ---- helpers ------------------------------------------------------------- */

/* Start a fresh trace with @cfg (or the defaults with @max events per core). */
static int restart(const struct nprof_sys_trace_config *cfg, uint64_t max)
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

static void finish(void)
{
	nprof_sys_trace_stop();
	nprof_sys_trace_release();
}

static struct nprof_sys_trace_stats stats_of(uint32_t core)
{
	struct nprof_sys_trace_stats st = { .size = sizeof(st) };

	if (nprof_sys_trace_get_stats(core, &st))
		FAIL("get_stats(%u): %s", core, nprof_strerror_last());
	return st;
}

static int rec(uint32_t type, uint32_t core, uint64_t start)
{
	return nprof_sys_trace_record(type, SRC_RT, core, start, start + 10);
}

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

/* ---- a strict JSON checker (RFC 8259), independent of the writer ---------- */

struct jp {
	const char *p;
	int depth;
};

static void jws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static int jvalue(struct jp *j);

static int jstring(struct jp *j)
{
	const unsigned char *s;

	if (*j->p != '"')
		return -1;
	s = (const unsigned char *)++j->p;
	for (;;) {
		if (*s == '"') {
			j->p = (const char *)s + 1;
			return 0;
		}
		if (*s < 0x20)
			return -1;	/* raw control character, or the end */
		if (*s == '\\') {
			s++;
			if (*s == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
					      (s[i] >= 'A' && s[i] <= 'F')))
						return -1;
				s += 5;
			} else if (strchr("\"\\/bfnrt", *s) && *s) {
				s++;
			} else {
				return -1;
			}
			continue;
		}
		if (*s < 0x80) {
			s++;
			continue;
		}
		/* UTF-8: a lead byte and the right number of continuation bytes. */
		int n = (*s >= 0xc2 && *s <= 0xdf) ? 1 : (*s >= 0xe0 && *s <= 0xef) ? 2 :
			(*s >= 0xf0 && *s <= 0xf4) ? 3 : -1;
		if (n < 0)
			return -1;
		for (int i = 1; i <= n; i++)
			if ((s[i] & 0xc0) != 0x80)
				return -1;
		s += n + 1;
	}
}

static int jnumber(struct jp *j)
{
	const char *p = j->p;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return -1;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	j->p = p;
	return 0;
}

static int jvalue(struct jp *j)
{
	jws(j);
	if (++j->depth > 64)
		return -1;
	switch (*j->p) {
	case '{':
		j->p++;
		jws(j);
		if (*j->p == '}') {
			j->p++;
			break;
		}
		for (;;) {
			jws(j);
			if (jstring(j))
				return -1;
			jws(j);
			if (*j->p++ != ':')
				return -1;
			if (jvalue(j))
				return -1;
			jws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p++ != '}')
				return -1;
			break;
		}
		break;
	case '[':
		j->p++;
		jws(j);
		if (*j->p == ']') {
			j->p++;
			break;
		}
		for (;;) {
			if (jvalue(j))
				return -1;
			jws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p++ != ']')
				return -1;
			break;
		}
		break;
	case '"':
		if (jstring(j))
			return -1;
		break;
	case 't':
		if (strncmp(j->p, "true", 4))
			return -1;
		j->p += 4;
		break;
	case 'f':
		if (strncmp(j->p, "false", 5))
			return -1;
		j->p += 5;
		break;
	case 'n':
		if (strncmp(j->p, "null", 4))
			return -1;
		j->p += 4;
		break;
	default:
		if (jnumber(j))
			return -1;
	}
	j->depth--;
	return 0;
}

static int json_valid(const char *s)
{
	struct jp j = { s, 0 };

	if (jvalue(&j))
		return 0;
	jws(&j);
	return *j.p == '\0';
}

static int count_str(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

static char *fetch(const struct nprof_sys_trace_fetch_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	int ret = nprof_sys_trace_fetch_events(&buf, &len, o);

	if (ret) {
		FAIL("fetch: %d %s", ret, nprof_strerror_last());
		return NULL;
	}
	if (strlen(buf) != len)
		FAIL("fetch length %zu, string length %zu", len, strlen(buf));
	if (!json_valid(buf))
		FAIL("fetch returned invalid JSON: %s", buf);
	return buf;
}

/* Run a python3 program on a JSON text; returns its exit status (or -1). */
static int python_check(const char *json, const char *program)
{
	char path[] = "/tmp/nprof-test-json-XXXXXX";
	char cmd[8192];
	int fd, st;
	ssize_t n;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	n = write(fd, json, strlen(json));
	close(fd);
	if (n != (ssize_t)strlen(json)) {
		unlink(path);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "python3 -c '%s' '%s'", program, path);
	st = system(cmd);
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int have_python(void)
{
	return system("python3 -c 'import json' > /dev/null 2>&1") == 0;
}

/* ---- rings ---------------------------------------------------------------- */

TEST(overwrite_counts_oldest_per_core)
{
	struct nprof_sys_trace_record r[8];
	struct nprof_sys_trace_stats st;
	int i, n;

	if (restart(NULL, 4))
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
	finish();
}

TEST(overwrite_only_counts_unread_events)
{
	struct nprof_sys_trace_record r[8];
	struct nprof_sys_trace_stats st;

	if (restart(NULL, 4))
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
	finish();
}

TEST(max_one_event_per_core)
{
	struct nprof_sys_trace_record r;
	struct nprof_sys_trace_stats st;

	if (restart(NULL, 1))
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
	finish();
}

TEST(stop_keeps_events_and_start_discards_them)
{
	struct nprof_sys_trace_record r[4];

	if (restart(NULL, 16))
		{ FAIL("start"); return; }
	CHECK_INT(nprof_sys_trace_is_active(), 1);
	rec(NPROF_EV_NRT_LOAD, 1, 5);
	CHECK_INT(nprof_sys_trace_stop(), 0);
	CHECK_INT(nprof_sys_trace_is_active(), 0);
	CHECK_INT(rec(NPROF_EV_NRT_LOAD, 1, 6), 0);	/* inactive */
	CHECK_INT(stats_of(1).pending, 1);
	CHECK_ERR_MSG(nprof_sys_trace_stop(), EALREADY, "the system trace is not active");

	if (restart(NULL, 16))
		{ FAIL("restart"); return; }
	CHECK_INT(stats_of(1).pending, 0);
	CHECK_INT(stats_of(1).recorded, 0);
	CHECK_INT(nprof_sys_trace_drain(1, r, 4), 0);
	finish();
}

TEST(control_errors)
{
	struct nprof_sys_trace_config *cfg = nprof_sys_trace_config_allocate();

	CHECK_ERR_MSG(nprof_sys_trace_start(NULL), EINVAL, "system-trace config is NULL");
	if (restart(NULL, 8))
		{ FAIL("start"); return; }
	CHECK_ERR_MSG(nprof_sys_trace_start(cfg), EBUSY, "the system trace is already active");
	CHECK_ERR_MSG(nprof_sys_trace_release(), EBUSY,
		      "the system trace is active; stop it before releasing it");
	finish();
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
	finish();
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
	finish();
	nprof_sys_trace_config_free(cfg);
}

/* ---- filters ------------------------------------------------------------------ */

TEST(filter_cores_from_environment_list_and_ranges)
{
	char *env[] = { "NEURON_RT_INSPECT_EVENT_FILTER_NC=0,2-3,7", NULL };
	struct nprof_inspect_config *cfg = config_from_env(env);
	uint32_t c;

	if (!cfg)
		return;
	if (restart(nprof_inspect_config_sys_trace(cfg), 0))
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
	finish();
	nprof_inspect_config_free(cfg);
}

TEST(filter_cores_through_config_setters)
{
	struct nprof_inspect_config *icfg = nprof_inspect_config_allocate();
	struct nprof_sys_trace_config *cfg = nprof_sys_trace_config_allocate();

	if (!cfg || !icfg)
		{ FAIL("alloc"); return; }
	CHECK_INT(nprof_sys_trace_config_set_capture_enabled_for_nc(cfg, 4, false), 0);
	if (restart(cfg, 0))
		{ FAIL("start"); return; }
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 4, 1), 0);
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 5, 1), 1);
	/* The trace took a copy: changing the config now changes nothing. */
	nprof_sys_trace_config_set_capture_enabled_for_nc(cfg, 5, false);
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 5, 1), 1);

	/* The inspect config's per-core setter reaches the embedded trace config. */
	CHECK_INT(nprof_inspect_config_set_capture_enabled_for_nc(icfg, 9, false), 0);
	if (restart(nprof_inspect_config_sys_trace(icfg), 0))
		{ FAIL("start"); return; }
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 9, 1), 0);
	CHECK_INT(rec(NPROF_EV_NRT_EXECUTE, 8, 1), 1);
	finish();
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
	if (restart(nprof_inspect_config_sys_trace(cfg), 0)) {
		FAIL("start");
		return;
	}
	got = recorded_types(1);
	if (got != want)
		FAIL("filter '%s': recorded types %#llx, expected %#llx", filter,
		     (unsigned long long)got, (unsigned long long)want);
	finish();
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
	if (restart(cfg, 0))
		{ FAIL("start"); return; }
	got = recorded_types(0);
	CHECK_INT(got, (NPROF_SYS_TRACE_HARDWARE_MASK & ~type_bit("hw_notify")) | type_bit("model_load"));

	CHECK_INT(nprof_inspect_config_set_capture_enabled_for_event_type_string(icfg, "hardware",
										  false), 0);
	if (restart(nprof_inspect_config_sys_trace(icfg), 0))
		{ FAIL("start"); return; }
	CHECK_INT(recorded_types(0), NPROF_SYS_TRACE_ALL_MASK & ~NPROF_SYS_TRACE_HARDWARE_MASK);
	finish();
	nprof_sys_trace_config_free(cfg);
	nprof_inspect_config_free(icfg);
}

/* ---- record API ------------------------------------------------------------------ */

TEST(record_rejects_bad_arguments)
{
	struct nprof_sys_trace_attr a = { .key = "k", .type = NPROF_SYS_TRACE_ATTR_STR, .v.s = NULL };
	struct nprof_sys_trace_event ev = { .type = 0, .core = 0, .attrs = &a, .nattrs = 1 };

	if (restart(NULL, 8))
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
	finish();
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
	if (restart(cfg, 0))
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
	finish();
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

	if (restart(NULL, 8))
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
	finish();
}

/* ---- fetch ------------------------------------------------------------------------ */

TEST(fetch_returns_each_event_once)
{
	struct nprof_sys_trace_fetch_options *o = nprof_sys_trace_fetch_options_allocate();
	char *b;

	if (!o || restart(NULL, 100))
		{ FAIL("setup"); return; }
	for (int i = 0; i < 3; i++)
		rec(NPROF_EV_NRT_EXECUTE, 0, 100 + (uint64_t)i);
	b = fetch(NULL);
	CHECK_INT(count_str(b ? b : "", "\"name\":\"nrt_execute\""), 3);
	CHECK_CONTAINS(b, "\"start_ns\":100,");
	CHECK_CONTAINS(b, "\"start_ns\":102,");
	nprof_sys_trace_buffer_free(b);

	for (int i = 0; i < 2; i++)
		rec(NPROF_EV_MODEL_LOAD, 0, 200 + (uint64_t)i);
	b = fetch(NULL);
	CHECK_INT(count_str(b ? b : "", "\"name\":"), 2);
	CHECK_INT(count_str(b ? b : "", "\"name\":\"nrt_execute\""), 0);
	CHECK_CONTAINS(b, "\"start_ns\":200,");
	CHECK_CONTAINS(b, "\"id\":4,");
	CHECK_CONTAINS(b, "\"fetched\":2,\"pending\":0,\"recorded\":5,\"overwritten\":0");
	nprof_sys_trace_buffer_free(b);

	b = fetch(NULL);
	CHECK_CONTAINS(b, "\"events\":[]");
	nprof_sys_trace_buffer_free(b);

	/* One core, at most two events: the rest stays for later. */
	for (int i = 0; i < 5; i++) {
		rec(NPROF_EV_NRT_EXECUTE, 1, 300 + (uint64_t)i);
		rec(NPROF_EV_NRT_EXECUTE, 2, 400 + (uint64_t)i);
	}
	CHECK_INT(nprof_sys_trace_fetch_options_set_nc_idx(o, 1), 0);
	CHECK_INT(nprof_sys_trace_fetch_options_set_max_events_per_nc(o, 2), 0);
	b = fetch(o);
	CHECK_INT(count_str(b ? b : "", "\"core_index\":1,\"worker"), 2);
	CHECK_INT(count_str(b ? b : "", "\"core_index\":2"), 0);
	CHECK_CONTAINS(b, "\"start_ns\":301,");
	CHECK_CONTAINS(b, "\"rings\":[{\"core_index\":1,\"capacity\":100,\"fetched\":2,\"pending\":3");
	nprof_sys_trace_buffer_free(b);
	CHECK_INT(stats_of(1).pending, 3);
	CHECK_INT(stats_of(2).pending, 5);
	CHECK_INT(nprof_sys_trace_fetch_options_set_defaults(o), 0);
	b = fetch(o);
	CHECK_INT(count_str(b ? b : "", "\"name\":"), 8);
	nprof_sys_trace_buffer_free(b);

	CHECK_ERR_MSG(nprof_sys_trace_fetch_options_set_nc_idx(o, 300), EINVAL,
		      "core index 300 is out of range [0, 255] (or 256 for no core, 4294967295 for all)");
	CHECK_ERR_MSG(nprof_sys_trace_fetch_events(NULL, NULL, o), EINVAL,
		      "fetch output buffer or length pointer is NULL");
	nprof_sys_trace_fetch_options_free(o);
	finish();
}

TEST(fetch_reports_overwritten_events)
{
	char *b;

	if (restart(NULL, 3))
		{ FAIL("start"); return; }
	for (int i = 0; i < 8; i++)
		rec(NPROF_EV_NRT_EXECUTE, 6, (uint64_t)i);
	b = fetch(NULL);
	CHECK_CONTAINS(b, "{\"core_index\":6,\"capacity\":3,\"fetched\":3,\"pending\":0,\"recorded\":8,"
			  "\"overwritten\":5}");
	CHECK_CONTAINS(b, "\"start_ns\":5,");
	nprof_sys_trace_buffer_free(b);
	finish();
}

TEST(fetch_json_is_valid_with_hostile_strings)
{
	static const char *const vals[] = {
		"quote \" backslash \\ slash /",
		"newline\nreturn\rtab\tbell\x07 esc\x1b del\x7f",
		"utf8 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		"bad utf8 \xff\xfe \xc0\xaf \xed\xa0\x80 \xe2\x82",
	};
	struct nprof_sys_trace_attr a[4];
	struct nprof_sys_trace_event ev = {
		.type = NPROF_EV_USER, .source = NPROF_SYS_TRACE_SRC_FRAMEWORK,
		.core = NPROF_SYS_TRACE_NO_CORE, .start_ns = 1, .end_ns = 3,
		.flags = NPROF_SYS_TRACE_F_FLOW_ID, .flow_id = 77, .attrs = a, .nattrs = 4,
	};
	char *b;
	int i;

	if (restart(NULL, 16))
		{ FAIL("start"); return; }
	nprof_sys_trace_set_worker_global_id(12);
	for (i = 0; i < 4; i++)
		a[i] = (struct nprof_sys_trace_attr){ .key = "s", .type = NPROF_SYS_TRACE_ATTR_STR,
						      .v.s = vals[i] };
	a[0].key = "k\"ey\n";
	CHECK_INT(nprof_sys_trace_record_event(&ev), 1);
	a[0] = (struct nprof_sys_trace_attr){ .key = "nan", .type = NPROF_SYS_TRACE_ATTR_DOUBLE,
					      .v.d = 0.0 / 0.0 };
	a[1] = (struct nprof_sys_trace_attr){ .key = "neg", .type = NPROF_SYS_TRACE_ATTR_INT,
					      .v.i = INT64_MIN };
	a[2] = (struct nprof_sys_trace_attr){ .key = "max", .type = NPROF_SYS_TRACE_ATTR_UINT,
					      .v.u = UINT64_MAX };
	a[3] = (struct nprof_sys_trace_attr){ .key = "pi", .type = NPROF_SYS_TRACE_ATTR_DOUBLE,
					      .v.d = 3.25 };
	CHECK_INT(nprof_sys_trace_record_event(&ev), 1);
	b = fetch(NULL);
	nprof_sys_trace_set_worker_global_id(-1);
	if (!b) {
		finish();
		return;
	}
	CHECK_CONTAINS(b, "\"k\\\"ey\\n\":\"quote \\\" backslash \\\\ slash /\"");
	CHECK_CONTAINS(b, "\\u0007 esc\\u001b");
	CHECK_CONTAINS(b, "\"bad utf8 \\ufffd\\ufffd \\ufffd\\ufffd \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\"");
	CHECK_CONTAINS(b, "\"nan\":null,\"neg\":-9223372036854775808,\"max\":18446744073709551615,\"pi\":3.25");
	CHECK_CONTAINS(b, "\"core_index\":null,\"worker_global_id\":12,\"model_id\":null,\"flow_ids\":[77]");
	if (!have_python()) {
		finish();
		nprof_sys_trace_buffer_free(b);
		SKIP("python3 is not installed (the C checker passed)");
	}
	/* An independent parser reads back exactly what was recorded. */
	CHECK_INT(python_check(b,
		"import json, sys\n"
		"d = json.load(open(sys.argv[1], encoding=\"utf-8\"))\n"
		"e = d[\"events\"]\n"
		"assert len(e) == 2, e\n"
		"a = e[0][\"attributes\"]\n"
		"assert a[\"k\\\"ey\\n\"] == \"quote \\\" backslash \\\\ slash /\", a\n"
		"assert e[0][\"group\"] == \"software\" and e[0][\"source\"] == \"framework\"\n"
		"assert e[0][\"duration_ns\"] == 2 and e[0][\"core_index\"] is None\n"
		"assert e[1][\"attributes\"] == {\"nan\": None, \"neg\": -2**63, \"max\": 2**64 - 1, \"pi\": 3.25}\n"
		"r = [x for x in d[\"rings\"] if x[\"core_index\"] is None][0]\n"
		"assert r[\"fetched\"] == 2 and r[\"recorded\"] == 2\n"),
		0);
	nprof_sys_trace_buffer_free(b);
	finish();
}

TEST(json_checker_rejects_bad_json)
{
	/* The checker the fetch tests rely on must be able to say no. */
	CHECK(json_valid("{\"a\":[1,2.5e3,true,null,\"\\u00e9\"]}"));
	CHECK(!json_valid("{\"a\":1,}"));
	CHECK(!json_valid("{\"a\":\"x\ny\"}"));
	CHECK(!json_valid("{\"a\":\"\xff\"}"));
	CHECK(!json_valid("{\"a\":01}"));
	CHECK(!json_valid("{\"a\":NaN}"));
	CHECK(!json_valid("[1] [2]"));
}

/* ---- concurrency ------------------------------------------------------------------- */

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

	if (restart(NULL, 1000))
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
	finish();
}

/* ---- system profile files ------------------------------------------------------------ */

static char tdir[128];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0)
		FAIL("cannot write %s", path);
	if (f)
		fclose(f);
}

static void *slurp(const char *path, size_t *len)
{
	struct stat st;
	void *buf = NULL;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st)) {
		buf = malloc((size_t)st.st_size + 1);
		if (buf && read(fd, buf, (size_t)st.st_size) != st.st_size) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)st.st_size;
	}
	close(fd);
	return buf;
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
	uint8_t *buf;
	size_t len;

	snprintf(tdir, sizeof(tdir), "/tmp/nprof-test-sysprof-XXXXXX");
	if (!mkdtemp(tdir))
		{ FAIL("mkdtemp"); return; }
	snprintf(stat_p, sizeof(stat_p), "%s/stat.fixture", tdir);
	snprintf(mem_p, sizeof(mem_p), "%s/meminfo.fixture", tdir);
	snprintf(status_p, sizeof(status_p), "%s/status.fixture", tdir);
	write_file(stat_p, "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0 0 0\n"
			   "cpu1 50 0 50 400 0 0 0 0 0 0\nintr 1 2 3\n");
	write_file(mem_p, "MemTotal: 1000 kB\nMemFree: 300 kB\nMemAvailable: 600 kB\n");
	write_file(status_p, "Name: x\nVmSize: 50 kB\nVmHWM: 30 kB\nVmRSS: 20 kB\n");
	mo.proc_stat = stat_p;
	mo.proc_meminfo = mem_p;
	mo.proc_self_status = status_p;

	if (restart(NULL, 2))
		{ FAIL("start"); return; }
	mon = nprof_monitor_start(&mo);
	if (!mon)
		{ FAIL("monitor: %s", nprof_strerror_last()); return; }
	CHECK_INT(nprof_sys_trace_record_event(&ev), 1);
	for (int i = 0; i < 3; i++)
		rec(NPROF_EV_MODEL_LOAD, 3, 2000 + (uint64_t)i);	/* one overwritten */
	rec(NPROF_EV_INSPECT_BEGIN, NPROF_SYS_TRACE_NO_CORE, 10);
	write_file(stat_p, "cpu  150 0 150 900 0 0 0 0 0 0\ncpu0 100 0 50 450 0 0 0 0 0 0\n"
			   "cpu1 50 0 100 450 0 0 0 0 0 0\n");
	write_file(mem_p, "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 400 kB\n");
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
	snprintf(path, sizeof(path), "%s/ntrace.pb", tdir);
	buf = slurp(path, &len);
	nt = buf ? neuronprof__system__ntrace__unpack(NULL, len, buf) : NULL;
	free(buf);
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
	snprintf(path, sizeof(path), "%s/trace_info.pb", tdir);
	buf = slurp(path, &len);
	ti = buf ? neuronprof__system__trace_info__unpack(NULL, len, buf) : NULL;
	free(buf);
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
	snprintf(path, sizeof(path), "%s/cpu_util.pb", tdir);
	buf = slurp(path, &len);
	cu = buf ? neuronprof__system__cpu_util__unpack(NULL, len, buf) : NULL;
	free(buf);
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
	snprintf(path, sizeof(path), "%s/host_mem.pb", tdir);
	buf = slurp(path, &len);
	hm = buf ? neuronprof__system__host_mem__unpack(NULL, len, buf) : NULL;
	free(buf);
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
	finish();
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
	size_t len = 0;
	pid_t reader;
	void *buf;

	snprintf(tdir, sizeof(tdir), "/tmp/nprof-sysprof-special-XXXXXX");
	if (!mkdtemp(tdir)) {
		FAIL("mkdtemp");
		return;
	}
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
	buf = slurp(got, &len);
	ti = buf ? neuronprof__system__trace_info__unpack(NULL, len, buf) : NULL;
	CHECK(ti != NULL);
	if (ti) {
		CHECK_STR(ti->instance_id, "i-0123456789abcdef0");
		neuronprof__system__trace_info__free_unpacked(ti, NULL);
	}
	free(buf);
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

	snprintf(tdir, sizeof(tdir), "/tmp/nprof-sysprof-special-XXXXXX");
	if (!mkdtemp(tdir)) {
		FAIL("mkdtemp");
		return;
	}
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
