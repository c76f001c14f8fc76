// SPDX-License-Identifier: MIT
/*
 * Host tests of the system trace's fetch: each event once, overwritten events
 * reported, JSON valid with hostile strings (a strict RFC 8259 checker here,
 * and python3's json module), the checker itself.
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

/*
 * The members of an object (@close '}': "key": value pairs) or the
 * elements of an array (@close ']') after its opening bracket, through the
 * closing one.
 */
static int jitems(struct jp *j, char close)
{
	jws(j);
	if (*j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		jws(j);
		if (close == '}') {
			if (jstring(j))
				return -1;
			jws(j);
			if (*j->p++ != ':')
				return -1;
		}
		if (jvalue(j))
			return -1;
		jws(j);
		if (*j->p != ',')
			break;
		j->p++;
	}
	return *j->p++ == close ? 0 : -1;
}

/* The literal @word (true, false, null). */
static int jliteral(struct jp *j, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(j->p, word, n))
		return -1;
	j->p += n;
	return 0;
}

static int jvalue(struct jp *j)
{
	int ret;

	jws(j);
	if (++j->depth > 64)
		return -1;
	switch (*j->p) {
	case '{':
	case '[':
		j->p++;
		ret = jitems(j, j->p[-1] == '{' ? '}' : ']');
		break;
	case '"':
		ret = jstring(j);
		break;
	case 't':
		ret = jliteral(j, "true");
		break;
	case 'f':
		ret = jliteral(j, "false");
		break;
	case 'n':
		ret = jliteral(j, "null");
		break;
	default:
		ret = jnumber(j);
	}
	if (ret)
		return -1;
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

TEST(fetch_returns_each_event_once)
{
	struct nprof_sys_trace_fetch_options *o = nprof_sys_trace_fetch_options_allocate();
	char *b;

	if (!o || trace_restart(NULL, 100))
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
	trace_end_all();
}

TEST(fetch_reports_overwritten_events)
{
	char *b;

	if (trace_restart(NULL, 3))
		{ FAIL("start"); return; }
	for (int i = 0; i < 8; i++)
		rec(NPROF_EV_NRT_EXECUTE, 6, (uint64_t)i);
	b = fetch(NULL);
	CHECK_CONTAINS(b, "{\"core_index\":6,\"capacity\":3,\"fetched\":3,\"pending\":0,\"recorded\":8,"
			  "\"overwritten\":5}");
	CHECK_CONTAINS(b, "\"start_ns\":5,");
	nprof_sys_trace_buffer_free(b);
	trace_end_all();
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

	if (trace_restart(NULL, 16))
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
		trace_end_all();
		return;
	}
	CHECK_CONTAINS(b, "\"k\\\"ey\\n\":\"quote \\\" backslash \\\\ slash /\"");
	CHECK_CONTAINS(b, "\\u0007 esc\\u001b");
	CHECK_CONTAINS(b, "\"bad utf8 \\ufffd\\ufffd \\ufffd\\ufffd \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\"");
	CHECK_CONTAINS(b, "\"nan\":null,\"neg\":-9223372036854775808,\"max\":18446744073709551615,\"pi\":3.25");
	CHECK_CONTAINS(b, "\"core_index\":null,\"worker_global_id\":12,\"model_id\":null,\"flow_ids\":[77]");
	if (!have_python()) {
		trace_end_all();
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
	trace_end_all();
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

HARNESS_MAIN
