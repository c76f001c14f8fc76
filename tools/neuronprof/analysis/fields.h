/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): one table of columns per section of the summary, from
 * which its three writers take their fields (Documentation/tool.rst). A
 * section whose rows are records (ops per unit, host events, machines...)
 * declares an array of struct field, one a column, in the order of the
 * columns: the key each has in JSON, its CSV header and its heading in the
 * text table (NULL where a writer leaves it out), its width in the text, its
 * kind (how each writer spells the value) and where the value is: a member
 * of the section's row or of a struct the row points to (FIELD_AT,
 * FIELD_VIA), or else what an accessor computes from the row; a struct
 * field_table holds that array and its length. fields_json(),
 * fields_csv_header(), fields_csv_row(), fields_text_header() and
 * fields_text_row() then write the JSON members, the CSV header and rows
 * and the text table from that one table, so a column is named and typed in
 * one place.
 */
#ifndef NEURONPROF_TOOL_FIELDS_H
#define NEURONPROF_TOOL_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/summary.h"
#include "util/json.h"

enum field_kind {
	FK_U64,		/* a count: an integer everywhere */
	FK_NS,		/* nanoseconds: an integer in JSON and CSV, a duration in the text */
	FK_SNS,		/* signed nanoseconds (.i): the text prefixes + or - */
	FK_PCT,		/* a percentage (.d) with 2 decimals; the text adds "%" */
	FK_STR,		/* a string (.s); NULL: JSON null, CSV empty, text "-" */
	FK_CODE,	/* an op code (.u) spelled by code_str() */
	FK_BOOL,	/* .b: JSON true/false, CSV "true"/"false" */
	FK_FLAG,	/* .b: JSON true/false, CSV 1/0 */
	FK_BEGIN,	/* JSON only: the fields up to FK_END in an object named .json */
	FK_END,
};

union field_val {
	uint64_t u;
	int64_t i;
	double d;
	const char *s;
	bool b;
};

/*
 * Text widths: negative left-aligns; FIELD_LAST is the unpadded last column,
 * two spaces after the one before it.
 */
#define FIELD_LAST	0

/* How a member a column reads is stored (its C type): FIELD_AT, FIELD_VIA. */
enum field_store {
	FS_NONE,	/* not a member: an accessor */
	FS_UINT,	/* an unsigned integer (or enum) of 1, 2, 4 or 8 bytes */
	FS_INT,		/* a signed integer of 1, 2, 4 or 8 bytes */
	FS_DOUBLE,	/* itself as FK_PCT, else its whole part (unsigned: 0 if negative) */
	FS_BOOL,
	FS_STR,		/* a pointer to a string, not an array */
};

/*
 * The member a column reads: at @off in the row itself (@via 0) or in the
 * struct a pointer at offset @via - 1 of the row points to; @size bytes
 * stored as @store says.
 */
struct field_at {
	size_t via, off;
	unsigned char size, store;
};

struct field {
	const char *json;	/* JSON key, or NULL */
	const char *csv;	/* CSV header, or NULL */
	const char *text;	/* text heading, or NULL */
	int width;		/* text column width */
	enum field_kind kind;
	/* The value: what @get returns, or where it is stored when @get is NULL. */
	union field_val (*get)(const void *row);
	struct field_at at;
	/*
	 * Optional: whether the row has this value. When not, the CSV cell is
	 * empty, the text "-", and JSON leaves the member out (an FK_BEGIN
	 * object is null).
	 */
	bool (*present)(const void *row);
};

/* A section's columns: a table of them (@f) and how many (@n). */
struct field_table {
	const struct field *f;
	size_t n;
};

/* The struct field_table of @cols, an array of struct field. */
#define FIELD_TABLE(cols)	{ cols, sizeof(cols) / sizeof((cols)[0]) }

/*
 * A column; FIELD_OPT: one a row may not have (@has: its .present). Its
 * value (last) is an accessor, or FIELD_AT() or FIELD_VIA() naming the
 * member it reads, whose commas pass through SAME() and FIELD() as their
 * variable arguments.
 */
#define FIELD(json, csv, text, width, kind, ...)				\
	{ json, csv, text, width, kind, __VA_ARGS__, .present = NULL }
#define FIELD_OPT(json, csv, text, width, kind, get, has)			\
	{ json, csv, text, width, kind, get, .present = has }
/* A column with the same name in JSON and CSV. */
#define SAME(key, text, width, kind, ...)	FIELD(key, key, text, width, kind, __VA_ARGS__)

/*
 * The enum field_store of the member @m by its C type; a type that is none
 * of them (a char array, a struct) does not compile.
 */
#define FIELD_STR_(m)								\
	_Generic(&(m), char **: FS_STR, const char **: FS_STR, char *const *: FS_STR, \
		 const char *const *: FS_STR, default: FS_NONE)
#define FIELD_STORE_(m)								\
	_Generic((m), _Bool: FS_BOOL, double: FS_DOUBLE,			\
		 char *: FIELD_STR_(m), const char *: FIELD_STR_(m),		\
		 signed char: FS_INT, short: FS_INT, int: FS_INT, long: FS_INT,	\
		 long long: FS_INT, unsigned char: FS_UINT, unsigned short: FS_UINT, \
		 unsigned int: FS_UINT, unsigned long: FS_UINT,			\
		 unsigned long long: FS_UINT, default: FS_NONE)
#define FIELD_STORE(m)	(FIELD_STORE_(m) + 0 * sizeof(char[FIELD_STORE_(m) ? 1 : -1]))

/* The member @m of the row, a @type. */
#define FIELD_AT(type, m)							\
	.at = { 0, offsetof(type, m), sizeof(((type *)0)->m), FIELD_STORE(((type *)0)->m) }
/* The member @m of the struct that the member @ptr of the row (a @type) points to. */
#define FIELD_VIA(type, ptr, m)							\
	.at = { 1 + offsetof(type, ptr), offsetof(__typeof__(*((type *)0)->ptr), m),	\
		sizeof(((type *)0)->ptr->m), FIELD_STORE(((type *)0)->ptr->m) }

/*
 * An accessor @name of a row of type @type (as r) returning @expr in @member,
 * for a value that is no member (FIELD_AT, FIELD_VIA).
 */
#define FIELD_GET(name, type, member, expr)					\
	static union field_val name(const void *row_)				\
	{									\
		const type *r = row_;						\
		return (union field_val){ .member = (expr) };			\
	}

/*
 * Accessors of a struct dist, for rows whose first member is a
 * `const struct dist *`.
 */
union field_val field_dist_count(const void *row);
union field_val field_dist_total(const void *row);
union field_val field_dist_min(const void *row);
union field_val field_dist_avg(const void *row);
union field_val field_dist_median(const void *row);
union field_val field_dist_p95(const void *row);
union field_val field_dist_p99(const void *row);
union field_val field_dist_max(const void *row);

/*
 * The device and core numbers of a NeuronCore, for rows whose first member
 * is a `const struct core_stats *`; CORE_ID_FIELDS: their CSV columns.
 */
union field_val field_core_dev(const void *row);
union field_val field_core_core(const void *row);

#define CORE_ID_FIELDS								\
	FIELD(NULL, "device", NULL, 0, FK_U64, field_core_dev),			\
	FIELD(NULL, "core", NULL, 0, FK_U64, field_core_core)

/* A duration as one token with its unit ("4.400us"), or whole ns if @raw_ns. */
const char *field_dur(uint64_t ns, bool raw_ns, char *buf, size_t len);
/* The same in three significant digits ("4.4us"), for labels. */
const char *field_dur_short(uint64_t ns, char *buf, size_t len);

/* A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
void field_csv_str(FILE *f, const char *s);

/* The JSON members of @row (the caller opens and closes its object). */
void fields_json(struct json *j, const struct field_table *t, const void *row);

/* @row as a JSON object of its members, named @key (NULL in an array). */
void fields_json_obj(struct json *j, const char *key, const struct field_table *t,
		     const void *row);

/* The CSV header line: @lead (when not NULL) then the columns with a CSV name. */
void fields_csv_header(FILE *f, const struct field_table *t, const char *lead);

/* One CSV line: @lead (when not NULL, quoted as needed) then the columns. */
void fields_csv_row(FILE *f, const struct field_table *t, const void *row,
		    const char *lead);

/* The text table's heading line, after @indent. */
void fields_text_header(FILE *f, const struct field_table *t, const char *indent);

/* One text row after @indent; durations as field_dur() with @raw_ns. */
void fields_text_row(FILE *f, const struct field_table *t, const void *row,
		     const char *indent, bool raw_ns);

#endif
