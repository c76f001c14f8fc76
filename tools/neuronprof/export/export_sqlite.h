/* SPDX-License-Identifier: MIT */
/*
 * neuronprof export --format sqlite: the schema (export_sqlite_schema.c)
 * that the writer (export_sqlite.c) fills.
 */
#ifndef NEURONPROF_TOOL_EXPORT_SQLITE_H
#define NEURONPROF_TOOL_EXPORT_SQLITE_H

/* meta.schema_version; raise it with any change to the schema. */
/* 8: queues.unit_name, the unit as summary names it ("0:tensor", "topsp3"). */
#define SQLITE_SCHEMA_VERSION	"8"

/* CREATE TABLE and CREATE VIEW statements, made before any row. */
extern const char sqlite_schema[];

/* CREATE INDEX statements, made after every row. */
extern const char sqlite_indices[];

#endif /* NEURONPROF_TOOL_EXPORT_SQLITE_H */
