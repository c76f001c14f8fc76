// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the summary's writers driven by tables of columns (fields.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fields.h"
#include "analysis/names.h"

/*
 * field_<what>_<name>(): an accessor of rows whose first member is a
 * `const @type *`, reading its @member.
 */
#define FIRST_GET(what, type, name, member)					\
	union field_val field_##what##_##name(const void *row)			\
	{									\
		const type *p = *(const type *const *)row;			\
		return (union field_val){ .u = p->member };			\
	}

FIRST_GET(dist, struct dist, count, count)
FIRST_GET(dist, struct dist, total, total)
FIRST_GET(dist, struct dist, min, min)
FIRST_GET(dist, struct dist, avg, avg)
FIRST_GET(dist, struct dist, median, median)
FIRST_GET(dist, struct dist, p95, p95)
FIRST_GET(dist, struct dist, p99, p99)
FIRST_GET(dist, struct dist, max, max)
FIRST_GET(core, struct core_stats, dev, dev)
FIRST_GET(core, struct core_stats, core, core)

/* The @size bytes at @p as an unsigned (or, @sign, a signed) integer. */
static uint64_t member_int(const char *p, size_t size, bool sign)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64 = 0;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return sign ? (uint64_t)(int64_t)(int8_t)u8 : u8;
	case 2:
		memcpy(&u16, p, 2);
		return sign ? (uint64_t)(int64_t)(int16_t)u16 : u16;
	case 4:
		memcpy(&u32, p, 4);
		return sign ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	default:
		memcpy(&u64, p, sizeof(u64));
		return u64;
	}
}

/*
 * The value of column @fd in @row: its accessor's, or its member's in the
 * union's member its kind reads (a member's integer as a percentage,
 * signed duration or flag where the kind says so).
 */
static union field_val field_value(const struct field *fd, const void *row)
{
	const struct field_at *at = &fd->at;
	const char *p = row;
	union field_val v = { .u = 0 };
	uint64_t n = 0;
	double d;

	if (fd->get)
		return fd->get(row);
	if (at->via)
		memcpy(&p, p + at->via - 1, sizeof(p));
	p += at->off;
	switch (at->store) {
	case FS_STR:
		memcpy(&v.s, p, sizeof(v.s));
		return v;
	case FS_DOUBLE:
		memcpy(&d, p, sizeof(d));
		/* Read as anything but a percentage: its whole part, or whether it is 0. */
		switch (fd->kind) {
		case FK_PCT:
			v.d = d;
			break;
		case FK_SNS:
			v.i = (int64_t)d;
			break;
		case FK_BOOL:
		case FK_FLAG:
			v.b = d != 0;
			break;
		default:
			v.u = d > 0 ? (uint64_t)d : 0;
			break;
		}
		return v;
	case FS_BOOL:
		n = *(const bool *)p;
		break;
	case FS_UINT:
	case FS_INT:
		n = member_int(p, at->size, at->store == FS_INT);
		break;
	default:
		return v;
	}
	switch (fd->kind) {
	case FK_SNS:
		v.i = (int64_t)n;
		break;
	case FK_PCT:
		v.d = at->store == FS_INT ? (double)(int64_t)n : (double)n;
		break;
	case FK_BOOL:
	case FK_FLAG:
		v.b = n != 0;
		break;
	default:
		v.u = n;
		break;
	}
	return v;
}

/* @ns in the largest unit it reaches, printed by @fmt (a double, then the unit). */
static const char *dur_in(uint64_t ns, bool raw_ns, const char *fmt, char *buf, size_t len)
{
	static const struct {
		double ns;
		const char *unit;
	} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };

	for (size_t i = 0; !raw_ns && i < sizeof(units) / sizeof(units[0]); i++) {
		if ((double)ns >= units[i].ns) {
			snprintf(buf, len, fmt, (double)ns / units[i].ns, units[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64 "ns", ns);
	return buf;
}

const char *field_dur(uint64_t ns, bool raw_ns, char *buf, size_t len)
{
	return dur_in(ns, raw_ns, "%.3f%s", buf, len);
}

const char *field_dur_short(uint64_t ns, char *buf, size_t len)
{
	return dur_in(ns, false, "%.3g%s", buf, len);
}

void field_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void fields_json(struct json *j, const struct field_table *tab, const void *row)
{
	const struct field *t = tab->f;
	size_t n = tab->n;
	char code[CODE_LEN];

	for (size_t i = 0; i < n; i++) {
		const struct field *fd = &t[i];
		union field_val v;

		if (fd->kind == FK_BEGIN && fd->present && !fd->present(row)) {
			/* null, and on past its FK_END */
			jw_null(j, fd->json);
			for (int depth = 1; depth && i + 1 < n; i++) {
				if (t[i + 1].kind == FK_BEGIN)
					depth++;
				else if (t[i + 1].kind == FK_END)
					depth--;
			}
			continue;
		}
		if (fd->kind == FK_BEGIN) {
			jw_obj_begin(j, fd->json);
			continue;
		}
		if (fd->kind == FK_END) {
			jw_obj_end(j);
			continue;
		}
		if (!fd->json || (fd->present && !fd->present(row)))
			continue;
		v = field_value(fd, row);
		switch (fd->kind) {
		case FK_U64:
		case FK_NS:
			jw_u64(j, fd->json, v.u);
			break;
		case FK_SNS:
			jw_i64(j, fd->json, v.i);
			break;
		case FK_PCT:
			jw_fixed(j, fd->json, v.d, 2);
			break;
		case FK_STR:
			jw_str(j, fd->json, v.s);
			break;
		case FK_CODE:
			jw_str(j, fd->json, code_str((uint32_t)v.u, code));
			break;
		case FK_BOOL:
		case FK_FLAG:
			jw_bool(j, fd->json, v.b);
			break;
		default:
			break;
		}
	}
}

void fields_json_obj(struct json *j, const char *key, const struct field_table *tab,
		     const void *row)
{
	jw_obj_begin(j, key);
	fields_json(j, tab, row);
	jw_obj_end(j);
}

void fields_csv_header(FILE *f, const struct field_table *tab, const char *lead)
{
	const struct field *t = tab->f;
	size_t n = tab->n;
	bool first = true;

	if (lead) {
		fputs(lead, f);
		first = false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!t[i].csv || t[i].kind == FK_BEGIN || t[i].kind == FK_END)
			continue;
		fprintf(f, "%s%s", first ? "" : ",", t[i].csv);
		first = false;
	}
	fputc('\n', f);
}

void fields_csv_row(FILE *f, const struct field_table *tab, const void *row,
		    const char *lead)
{
	const struct field *t = tab->f;
	size_t n = tab->n;
	char code[CODE_LEN];
	bool first = true;

	if (lead) {
		field_csv_str(f, lead);
		first = false;
	}
	for (size_t i = 0; i < n; i++) {
		const struct field *fd = &t[i];
		union field_val v;

		if (!fd->csv || fd->kind == FK_BEGIN || fd->kind == FK_END)
			continue;
		if (!first)
			fputc(',', f);
		first = false;
		if (fd->present && !fd->present(row))
			continue;
		v = field_value(fd, row);
		switch (fd->kind) {
		case FK_U64:
		case FK_NS:
			fprintf(f, "%" PRIu64, v.u);
			break;
		case FK_SNS:
			fprintf(f, "%" PRId64, v.i);
			break;
		case FK_PCT:
			fprintf(f, "%.2f", v.d);
			break;
		case FK_STR:
			field_csv_str(f, v.s ? v.s : "");
			break;
		case FK_CODE:
			fputs(code_str((uint32_t)v.u, code), f);
			break;
		case FK_BOOL:
			fputs(v.b ? "true" : "false", f);
			break;
		case FK_FLAG:
			fputc(v.b ? '1' : '0', f);
			break;
		default:
			break;
		}
	}
	fputc('\n', f);
}

/* The separator before text column @i of those shown (@first: none yet). */
static void text_sep(FILE *f, const struct field *fd, bool first, const char *indent)
{
	if (first)
		fputs(indent, f);
	else
		fputs(fd->width == FIELD_LAST ? "  " : " ", f);
}

void fields_text_header(FILE *f, const struct field_table *tab, const char *indent)
{
	const struct field *t = tab->f;
	size_t n = tab->n;
	bool first = true;

	for (size_t i = 0; i < n; i++) {
		if (!t[i].text || t[i].kind == FK_BEGIN || t[i].kind == FK_END)
			continue;
		text_sep(f, &t[i], first, indent);
		first = false;
		if (t[i].width == FIELD_LAST)
			fputs(t[i].text, f);
		else
			fprintf(f, "%*s", t[i].width, t[i].text);
	}
	fputc('\n', f);
}

void fields_text_row(FILE *f, const struct field_table *tab, const void *row,
		     const char *indent, bool raw_ns)
{
	const struct field *t = tab->f;
	size_t n = tab->n;
	char buf[48], code[CODE_LEN];
	bool first = true;

	for (size_t i = 0; i < n; i++) {
		const struct field *fd = &t[i];
		const char *s = buf;
		union field_val v;

		if (!fd->text || fd->kind == FK_BEGIN || fd->kind == FK_END)
			continue;
		text_sep(f, fd, first, indent);
		first = false;
		if (fd->present && !fd->present(row)) {
			fprintf(f, "%*s", fd->width == FIELD_LAST ? 1 : fd->width, "-");
			continue;
		}
		v = field_value(fd, row);
		switch (fd->kind) {
		case FK_U64:
			snprintf(buf, sizeof(buf), "%" PRIu64, v.u);
			break;
		case FK_NS:
			field_dur(v.u, raw_ns, buf, sizeof(buf));
			break;
		case FK_SNS:
			buf[0] = v.i < 0 ? '-' : '+';
			field_dur((uint64_t)llabs(v.i), raw_ns, buf + 1, sizeof(buf) - 1);
			break;
		case FK_PCT:
			/* The "%" takes the last place of the column. */
			fprintf(f, "%*.2f%%", fd->width < 0 ? fd->width + 1 : fd->width - 1, v.d);
			continue;
		case FK_STR:
			s = or_dash(v.s);
			break;
		case FK_CODE:
			s = code_str((uint32_t)v.u, code);
			break;
		case FK_BOOL:
		case FK_FLAG:
			s = v.b ? "true" : "false";
			break;
		default:
			continue;
		}
		if (fd->width == FIELD_LAST)
			fputs(s, f);
		else
			fprintf(f, "%*s", fd->width, s);
	}
	fputc('\n', f);
}
