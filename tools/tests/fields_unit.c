// SPDX-License-Identifier: MIT
/*
 * Unit tests of the field tables that drive summary's three writers
 * (neuronprof/analysis/fields.c), run by tests/run.sh: fields_unit. Prints
 * "ok N - name" or "not ok N - name" with what was written and what was
 * expected on "# " lines, and exits 1 if anything failed.
 *
 *  - the CSV header has the lead column, then only the columns with a CSV
 *    name (no text-only column, no JSON object bracket);
 *  - a CSV row quotes a value holding a comma or a quote, writes a NULL
 *    string and a column the row does not have as empty cells, percentages
 *    with 2 decimals, FK_BOOL as true/false, FK_FLAG as 1/0, signed
 *    nanoseconds with their sign and a code as code_str() spells it;
 *  - JSON brackets the columns between FK_BEGIN and FK_END in an object,
 *    writes an object the row does not have as null (none of its members
 *    are written) and leaves out a member the row does not have;
 *  - the text pads each column to its width (negative: left-aligned), puts
 *    the "%" of a percentage in the column's last place, writes durations
 *    with their unit (whole ns with raw_ns), signed ones after "+" or "-",
 *    a NULL string and an absent value as "-", and FIELD_LAST unpadded
 *    after two spaces;
 *  - fields_json_obj() writes the members in an object of its own, named;
 *  - a duration takes the largest unit it reaches: field_dur() with three
 *    decimals, field_dur_short() with three significant digits;
 *  - a column without an accessor reads its member (FIELD_AT) or the member
 *    of the struct a member points to (FIELD_VIA) by its size and sign (1,
 *    2, 4 and 8 bytes beside bytes that are not zero, negative values of
 *    signed ones), a double, a bool and a string pointer, in all three
 *    writers; an integer member of a percentage column is its value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fields.h"
#include "../../lib/tests/harness.h"

/* One result: @got (freed here) is @want; both shown when not. */
static void check(const char *name, char *got, const char *want)
{
	bool ok = !strcmp(got, want);

	harness_result(ok, "%s", name);
	if (!ok) {
		harness_diag("got:  [%s]", got);
		harness_diag("want: [%s]", want);
	}
	free(got);
}

struct row {
	const char *name;
	uint64_t count, ns;
	int64_t diff;
	double pct;
	bool flag, has_host, has_flow;
	uint64_t host_ns, flow;
	uint32_t code;
};

FIELD_GET(r_name, struct row, s, r->name)
FIELD_GET(r_count, struct row, u, r->count)
FIELD_GET(r_ns, struct row, u, r->ns)
FIELD_GET(r_diff, struct row, i, r->diff)
FIELD_GET(r_pct, struct row, d, r->pct)
FIELD_GET(r_flag, struct row, b, r->flag)
FIELD_GET(r_code, struct row, u, r->code)
FIELD_GET(r_host_ns, struct row, u, r->host_ns)
FIELD_GET(r_flow, struct row, u, r->flow)

static bool r_has_host(const void *row)
{
	return ((const struct row *)row)->has_host;
}

static bool r_has_flow(const void *row)
{
	return ((const struct row *)row)->has_flow;
}

static const struct field cols[] = {
	FIELD("name", "name", "name", -8, FK_STR, r_name),
	SAME("count", "count", 6, FK_U64, r_count),
	SAME("time_ns", "time", 10, FK_NS, r_ns),
	SAME("diff_ns", "diff", 10, FK_SNS, r_diff),
	SAME("pct", "%busy", 7, FK_PCT, r_pct),
	FIELD(NULL, NULL, "code", -8, FK_CODE, r_code),
	FIELD("code", "code", NULL, 0, FK_CODE, r_code),
	SAME("ok", NULL, 0, FK_BOOL, r_flag),
	FIELD(NULL, "flag", NULL, 0, FK_FLAG, r_flag),
	FIELD_OPT("host", NULL, NULL, 0, FK_BEGIN, NULL, r_has_host),
	FIELD_OPT("ns", "host_ns", "host", 8, FK_NS, r_host_ns, r_has_host),
	FIELD_OPT("flow", "flow", NULL, 0, FK_U64, r_flow, r_has_flow),
	FIELD(NULL, NULL, NULL, 0, FK_END, NULL),
	FIELD(NULL, NULL, "tail", FIELD_LAST, FK_STR, r_name),
};
static const struct field_table t = FIELD_TABLE(cols);
/* Its first two columns. */
static const struct field_table t2 = { cols, 2 };

static const struct row full = {
	.name = "a,\"b\"", .count = 3, .ns = 4400, .diff = -1500, .pct = 12.345,
	.flag = true, .has_host = true, .has_flow = true, .host_ns = 700, .flow = 9,
	.code = 0x102,
};
static const struct row bare = { .count = 0, .ns = 2000000, .diff = 25, .pct = 100, .code = 0x102 };
static const struct row noflow = {
	.name = "x", .count = 1, .ns = 5, .has_host = true, .host_ns = 6,
	.code = 0x102,
};

/* What @fn writes, as a string. */
#define CAPTURE(call)								\
	({									\
		char *buf_ = NULL;						\
		size_t len_ = 0;						\
		FILE *f = open_memstream(&buf_, &len_);				\
		call;								\
		fclose(f);							\
		buf_;								\
	})

static char *json_of(const struct row *r)
{
	return CAPTURE({
		struct json j;

		jw_init(&j, f, false);
		jw_obj_begin(&j, NULL);
		fields_json(&j, &t, r);
		jw_obj_end(&j);
		jw_finish(&j);
	});
}

/*
 * Members of each size and sign, each beside bytes that are not zero (a
 * read of the wrong size would take them in).
 */
struct inner {
	uint8_t pad;
	uint16_t u16;
	int32_t i32;
	const char *s;
};

struct mrow {
	uint8_t u8, next;
	uint32_t u32;
	uint64_t u64;
	int64_t i64;
	double pct;
	unsigned int whole;
	bool flag;
	const char *name;
	uint32_t code;
	const struct inner *in;
};

static const struct field mcols[] = {
	SAME("u8", "u8", 4, FK_U64, FIELD_AT(struct mrow, u8)),
	SAME("u32", "u32", 11, FK_U64, FIELD_AT(struct mrow, u32)),
	SAME("u64", "u64", 9, FK_NS, FIELD_AT(struct mrow, u64)),
	SAME("i64", "i64", 10, FK_SNS, FIELD_AT(struct mrow, i64)),
	SAME("pct", "pct", 7, FK_PCT, FIELD_AT(struct mrow, pct)),
	SAME("whole", "whole", 7, FK_PCT, FIELD_AT(struct mrow, whole)),
	SAME("flag", "flag", 6, FK_BOOL, FIELD_AT(struct mrow, flag)),
	FIELD(NULL, "flag01", NULL, 0, FK_FLAG, FIELD_AT(struct mrow, flag)),
	SAME("name", "name", -5, FK_STR, FIELD_AT(struct mrow, name)),
	SAME("code", "code", -8, FK_CODE, FIELD_AT(struct mrow, code)),
	FIELD("inner", NULL, NULL, 0, FK_BEGIN, NULL),
	SAME("u16", "u16", 6, FK_U64, FIELD_VIA(struct mrow, in, u16)),
	SAME("i32", "i32", 6, FK_SNS, FIELD_VIA(struct mrow, in, i32)),
	SAME("s", "s", FIELD_LAST, FK_STR, FIELD_VIA(struct mrow, in, s)),
	FIELD(NULL, NULL, NULL, 0, FK_END, NULL),
};
static const struct field_table mt = FIELD_TABLE(mcols);

static const struct inner in_full = { .pad = 0x77, .u16 = 65535, .i32 = -5, .s = "in" };
static const struct inner in_bare = { .pad = 0x77, .u16 = 7 };
static const struct mrow m_full = {
	.u8 = 0xfe, .next = 0x11, .u32 = 4000000000u, .u64 = 4400, .i64 = -1500,
	.pct = 12.345, .whole = 50, .flag = true, .name = "m", .code = 0x102, .in = &in_full,
};
static const struct mrow m_bare = { .next = 0xff, .u64 = 1ULL << 40, .i64 = 3, .in = &in_bare };

/* A double member read as each kind that is not a percentage. */
struct drow {
	double d;
};

static const struct field dcols[] = {
	SAME("u", NULL, 0, FK_U64, FIELD_AT(struct drow, d)),
	SAME("ns", NULL, 0, FK_NS, FIELD_AT(struct drow, d)),
	SAME("sns", NULL, 0, FK_SNS, FIELD_AT(struct drow, d)),
	SAME("flag", NULL, 0, FK_FLAG, FIELD_AT(struct drow, d)),
	SAME("pct", NULL, 0, FK_PCT, FIELD_AT(struct drow, d)),
};
static const struct field_table dt = FIELD_TABLE(dcols);
static const struct drow drows[] = { { 12.9 }, { -3.7 }, { 0.25 }, { 0 } };

/* Durations around each unit's threshold, one per line. */
static char *durations(const char *(*dur)(uint64_t ns, char *buf, size_t len))
{
	static const uint64_t ns[] = { 999, 1000, 4400, 999999, 1000000, 1234567, 2000000000 };

	return CAPTURE({
		char b[32];

		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
			fprintf(f, "%s\n", dur(ns[i], b, sizeof(b)));
	});
}

static const char *dur_decimals(uint64_t ns, char *buf, size_t len)
{
	return field_dur(ns, false, buf, len);
}

int main(void)
{
	check("CSV header: lead, then the CSV columns only",
	      CAPTURE(fields_csv_header(f, &t, "recording")),
	      "recording,name,count,time_ns,diff_ns,pct,code,ok,flag,host_ns,flow\n");
	check("CSV header without a lead", CAPTURE(fields_csv_header(f, &t2, NULL)),
	      "name,count\n");
	check("CSV row: quoting, pct, bool, flag, signed ns, code",
	      CAPTURE(fields_csv_row(f, &t, &full, "rec,1")),
	      "\"rec,1\",\"a,\"\"b\"\"\",3,4400,-1500,12.35,0x000102,true,1,700,9\n");
	check("CSV row: NULL string and absent columns are empty cells",
	      CAPTURE(fields_csv_row(f, &t, &bare, "r")),
	      "r,,0,2000000,25,100.00,0x000102,false,0,,\n");
	check("CSV row: one absent column among present ones",
	      CAPTURE(fields_csv_row(f, &t, &noflow, NULL)),
	      "x,1,5,0,0.00,0x000102,false,0,6,\n");
	check("JSON: an object bracketed, every member present", json_of(&full),
	      "{\"name\":\"a,\\\"b\\\"\",\"count\":3,\"time_ns\":4400,\"diff_ns\":-1500,"
	      "\"pct\":12.35,\"code\":\"0x000102\",\"ok\":true,\"host\":{\"ns\":700,"
	      "\"flow\":9}}\n");
	check("JSON: an absent object is null, a NULL string null", json_of(&bare),
	      "{\"name\":null,\"count\":0,\"time_ns\":2000000,\"diff_ns\":25,"
	      "\"pct\":100.00,\"code\":\"0x000102\",\"ok\":false,\"host\":null}\n");
	check("JSON: an absent member is left out", json_of(&noflow),
	      "{\"name\":\"x\",\"count\":1,\"time_ns\":5,\"diff_ns\":0,\"pct\":0.00,"
	      "\"code\":\"0x000102\",\"ok\":false,\"host\":{\"ns\":6}}\n");
	check("text header: widths, alignment, FIELD_LAST",
	      CAPTURE(fields_text_header(f, &t, "  ")),
	      "  name      count       time       diff   %busy code         host  tail\n");
	check("text row: durations, signs, pct, code",
	      CAPTURE(fields_text_row(f, &t, &full, "  ", false)),
	      "  a,\"b\"         3    4.400us   -1.500us  12.35% 0x000102    700ns  a,\"b\"\n");
	check("text row: NULL string and absent value as -, raw ns",
	      CAPTURE(fields_text_row(f, &t, &bare, "  ", true)),
	      "  -             0  2000000ns      +25ns 100.00% 0x000102        -  -\n");
	check("JSON: fields_json_obj() names the row's object",
	      CAPTURE({
		      struct json j;

		      jw_init(&j, f, false);
		      jw_obj_begin(&j, NULL);
		      fields_json_obj(&j, "row", &t2, &full);
		      jw_obj_end(&j);
		      jw_finish(&j);
	      }),
	      "{\"row\":{\"name\":\"a,\\\"b\\\"\",\"count\":3}}\n");
	check("durations: field_dur(), three decimals in the largest unit reached",
	      durations(dur_decimals),
	      "999ns\n1.000us\n4.400us\n999.999us\n1.000ms\n1.235ms\n2.000s\n");
	check("durations: field_dur_short(), three significant digits",
	      durations(field_dur_short), "999ns\n1us\n4.4us\n1e+03us\n1ms\n1.23ms\n2s\n");
	check("members: JSON", CAPTURE({
		      struct json j;

		      jw_init(&j, f, false);
		      jw_arr_begin(&j, NULL);
		      fields_json_obj(&j, NULL, &mt, &m_full);
		      fields_json_obj(&j, NULL, &mt, &m_bare);
		      jw_arr_end(&j);
		      jw_finish(&j);
	      }),
	      "[{\"u8\":254,\"u32\":4000000000,\"u64\":4400,\"i64\":-1500,\"pct\":12.35,"
	      "\"whole\":50.00,\"flag\":true,\"name\":\"m\",\"code\":\"0x000102\","
	      "\"inner\":{\"u16\":65535,\"i32\":-5,\"s\":\"in\"}},"
	      "{\"u8\":0,\"u32\":0,\"u64\":1099511627776,\"i64\":3,\"pct\":0.00,"
	      "\"whole\":0.00,\"flag\":false,\"name\":null,\"code\":\"0x000000\","
	      "\"inner\":{\"u16\":7,\"i32\":0,\"s\":null}}]\n");
	check("members: CSV", CAPTURE({
		      fields_csv_header(f, &mt, NULL);
		      fields_csv_row(f, &mt, &m_full, NULL);
		      fields_csv_row(f, &mt, &m_bare, NULL);
	      }),
	      "u8,u32,u64,i64,pct,whole,flag,flag01,name,code,u16,i32,s\n"
	      "254,4000000000,4400,-1500,12.35,50.00,true,1,m,0x000102,65535,-5,in\n"
	      "0,0,1099511627776,3,0.00,0.00,false,0,,0x000000,7,0,\n");
	check("members: text", CAPTURE({
		      fields_text_header(f, &mt, "");
		      fields_text_row(f, &mt, &m_full, "", false);
		      fields_text_row(f, &mt, &m_bare, "", true);
	      }),
	      "  u8         u32       u64        i64     pct   whole   flag name  code        u16    i32  s\n"
	      " 254  4000000000   4.400us   -1.500us  12.35%  50.00%   true m     0x000102  65535   -5ns  in\n"
	      "   0           0 1099511627776ns       +3ns   0.00%   0.00%  false -     0x000000      7   +0ns  -\n");
	check("members: a double read as a count, duration, signed duration, flag, percentage",
	      CAPTURE({
		      fields_csv_header(f, &dt, NULL);
		      for (size_t i = 0; i < sizeof(drows) / sizeof(drows[0]); i++)
			      fields_csv_row(f, &dt, &drows[i], NULL);
	      }),
	      "u,ns,sns,flag,pct\n12,12,12,1,12.90\n0,0,-3,1,-3.70\n0,0,0,1,0.25\n0,0,0,0,0.00\n");
	return harness_done();
}
