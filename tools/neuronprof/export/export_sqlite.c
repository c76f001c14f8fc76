// SPDX-License-Identifier: MIT
/*
 * neuronprof export --format sqlite, the rows: a profile as an SQLite database, for
 * analysis with SQL, in the spirit of Nsight Systems' export. The schema is
 * documented in Documentation/analysis.rst, with the queries that
 * reproduce summary's tables (Documentation/analysis-queries.sql, which the
 * tests run). Everything is written in one transaction with prepared
 * statements; indices are made after the rows.
 *
 * Recordings are those of summary (the directories holding profiles);
 * instructions carry their duration under the timing model (timing.h);
 * entries that are not instructions are kept whole in `entries`; raw
 * entries (a device whose entries are not decoded) are kept as bytes in
 * `raw_entries`. With several machines, every time is moved onto one
 * timeline as the JSON and Perfetto exports do (machines.h), and `machines`
 * says how. This file writes the rows; the schema they go into is
 * export_sqlite_schema.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include <sqlite3.h>

#include <neuronprof/common.h>

#include "export/export.h"
#include "analysis/machines.h"
#include "analysis/names.h"
#include "analysis/summary.h"
#include "analysis/timing.h"
#include "analysis/raw.h"

#include "export/export_sqlite.h"


enum stmt {
	ST_STRING, ST_MACHINE, ST_RECORDING, ST_RAW, ST_FILE, ST_DEVICE, ST_CODE_NAME, ST_CORE,
	ST_QUEUE, ST_ENTRY,
	ST_INSTRUCTION, ST_INFERENCE, ST_EXECUTION, ST_HOST, ST_CPU, ST_MEM, ST_META,
	ST_EVENT_TYPE, ST_STATUS, ST_COUNT,
};

/*
 * The table each statement inserts a row into, with a value for each of its
 * columns but `id` (stmt_prepare()), bound by their place in the schema;
 * @enum_table: a row may be there already (the names of the integer codes
 * other tables hold), and is not added again.
 */
static const struct {
	const char *name;
	bool enum_table;
} stmt_table[ST_COUNT] = {
	[ST_STRING] = { .name = "strings" },
	[ST_MACHINE] = { .name = "machines" },
	[ST_RECORDING] = { .name = "recordings" },
	[ST_RAW] = { .name = "raw_entries" },
	[ST_FILE] = { .name = "files" },
	[ST_DEVICE] = { .name = "devices" },
	[ST_CODE_NAME] = { .name = "code_names" },
	[ST_CORE] = { .name = "cores" },
	[ST_QUEUE] = { .name = "queues" },
	[ST_ENTRY] = { .name = "entries" },
	[ST_INSTRUCTION] = { .name = "instructions" },
	[ST_INFERENCE] = { .name = "inferences" },
	[ST_EXECUTION] = { .name = "executions" },
	[ST_HOST] = { .name = "host_events" },
	[ST_CPU] = { .name = "cpu_samples" },
	[ST_MEM] = { .name = "mem_samples" },
	[ST_META] = { .name = "meta" },
	[ST_EVENT_TYPE] = { .name = "host_event_types", .enum_table = true },
	[ST_STATUS] = { .name = "statuses", .enum_table = true },
};

struct sq {
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	const char *name;	/* the file asked for, which messages name */
	int rc;			/* first failure */
	/* Strings already in the table: a small open-addressing map to their id. */
	char **skey;
	int64_t *sid;
	size_t sslots, nstr;
	struct export_stats *stats;
	uint64_t rows;
	int64_t shift;		/* of the recording being written: its machine's */
};

static int sq_fail(struct sq *q, const char *what)
{
	if (!q->rc)
		fail("%s: %s: %s", q->name, what, sqlite3_errmsg(q->db));
	q->rc = -1;
	return -1;
}

static int exec_sql(struct sq *q, const char *sql, const char *what)
{
	char *msg = NULL;

	if (sqlite3_exec(q->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		if (!q->rc)
			fail("%s: %s: %s", q->name, what, msg ? msg : "failed");
		sqlite3_free(msg);
		q->rc = -1;
		return -1;
	}
	return 0;
}

/*
 * Prepares @st: an INSERT into its table of every column the schema gives it
 * but `id` (the row id SQLite assigns), in their order; a column left unbound
 * is NULL.
 */
static void stmt_prepare(struct sq *q, enum stmt st)
{
	sqlite3_str *cols = sqlite3_str_new(q->db), *vals = sqlite3_str_new(q->db);
	sqlite3_stmt *info = NULL;
	char *c, *v, *sql;

	if (sqlite3_prepare_v2(q->db, "SELECT name FROM pragma_table_info(?) WHERE name != 'id'"
			       " ORDER BY cid", -1, &info, NULL) != SQLITE_OK) {
		char what[96];

		snprintf(what, sizeof(what), "cannot read the columns of table %s", stmt_table[st].name);
		sq_fail(q, what);
	} else {
		sqlite3_bind_text(info, 1, stmt_table[st].name, -1, SQLITE_STATIC);
		while (sqlite3_step(info) == SQLITE_ROW) {
			const char *sep = sqlite3_str_length(cols) ? ", " : "";

			sqlite3_str_appendf(cols, "%s%s", sep, sqlite3_column_text(info, 0));
			sqlite3_str_appendf(vals, "%s?", sep);
		}
	}
	sqlite3_finalize(info);
	if (!q->rc && !sqlite3_str_length(cols)) {
		if (sqlite3_str_errcode(cols))
			fail("%s: out of memory", q->name);
		else
			fail("%s: the schema gives table %s no columns", q->name, stmt_table[st].name);
		q->rc = -1;
	}
	c = sqlite3_str_finish(cols);
	v = sqlite3_str_finish(vals);
	sql = sqlite3_mprintf("INSERT%s INTO %s (%s) VALUES (%s)",
			      stmt_table[st].enum_table ? " OR IGNORE" : "", stmt_table[st].name,
			      c ? c : "", v ? v : "");
	if (!q->rc && (!sql || sqlite3_prepare_v2(q->db, sql, -1, &q->st[st], NULL) != SQLITE_OK))
		sq_fail(q, sql ? sql : "out of memory");
	sqlite3_free(sql);
	sqlite3_free(v);
	sqlite3_free(c);
}

/* Binds the values of @st in order, runs it and resets it. */
static int64_t step(struct sq *q, enum stmt st)
{
	sqlite3_stmt *s = q->st[st];

	if (q->rc)
		return 0;
	if (sqlite3_step(s) != SQLITE_DONE) {
		sq_fail(q, sqlite3_sql(s));
		return 0;
	}
	sqlite3_reset(s);
	/* INSERT OR IGNORE of an enum row already there adds none. */
	q->rows += (uint64_t)sqlite3_changes(q->db);
	return sqlite3_last_insert_rowid(q->db);
}

static void b_i64(struct sq *q, enum stmt st, int col, int64_t v)
{
	sqlite3_bind_int64(q->st[st], col, v);
}

/* Timestamps and counts are uint64; SQLite integers are int64 (2^63 ns is 292 years). */
static void b_u64(struct sq *q, enum stmt st, int col, uint64_t v)
{
	sqlite3_bind_int64(q->st[st], col, (int64_t)v);
}

/* A time of the recording being written, moved onto the export's timeline. */
static void b_ts(struct sq *q, enum stmt st, int col, uint64_t v)
{
	sqlite3_bind_int64(q->st[st], col, (int64_t)(v + (uint64_t)q->shift));
}

/* A span of the recording being written: its start, end (b_ts()) and length from @col. */
static void b_span(struct sq *q, enum stmt st, int col, uint64_t start, uint64_t end)
{
	b_ts(q, st, col, start);
	b_ts(q, st, col + 1, end);
	b_u64(q, st, col + 2, end - start);
}

static void b_text(struct sq *q, enum stmt st, int col, const char *s)
{
	if (s)
		sqlite3_bind_text(q->st[st], col, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(q->st[st], col);
}

static void b_null(struct sq *q, enum stmt st, int col)
{
	sqlite3_bind_null(q->st[st], col);
}

/* @v, or NULL when the row has no such value (@has false). */
static void b_u64_or_null(struct sq *q, enum stmt st, int col, bool has, uint64_t v)
{
	if (has)
		b_u64(q, st, col, v);
	else
		b_null(q, st, col);
}

/* A time (b_ts()), or NULL when it is not known (@has false). */
static void b_ts_or_null(struct sq *q, enum stmt st, int col, bool has, uint64_t v)
{
	if (has)
		b_ts(q, st, col, v);
	else
		b_null(q, st, col);
}

/* The id of @s in the string table (NULL stays NULL: returns 0, bound as NULL). */
static int64_t string_id(struct sq *q, const char *s)
{
	uint32_t h = 2166136261u;
	size_t i;

	if (!s)
		return 0;
	for (const char *p = s; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	if ((q->nstr + 1) * 2 > q->sslots) {
		size_t n = q->sslots ? q->sslots * 2 : 256;
		char **key = xcalloc(n, sizeof(*key));
		int64_t *sid = xcalloc(n, sizeof(*sid));

		for (size_t k = 0; k < q->sslots; k++) {
			uint32_t hk = 2166136261u;

			if (!q->skey[k])
				continue;
			for (const char *p = q->skey[k]; *p; p++)
				hk = (hk ^ (uint8_t)*p) * 16777619u;
			for (i = hk & (n - 1); key[i]; i = (i + 1) & (n - 1))
				;
			key[i] = q->skey[k];
			sid[i] = q->sid[k];
		}
		free(q->skey);
		free(q->sid);
		q->skey = key;
		q->sid = sid;
		q->sslots = n;
	}
	for (i = h & (q->sslots - 1); q->skey[i]; i = (i + 1) & (q->sslots - 1))
		if (!strcmp(q->skey[i], s))
			return q->sid[i];
	q->skey[i] = xstrdup(s);
	b_text(q, ST_STRING, 1, s);
	q->sid[i] = step(q, ST_STRING);
	q->nstr++;
	return q->sid[i];
}

static void b_string(struct sq *q, enum stmt st, int col, const char *s)
{
	int64_t id = string_id(q, s);

	if (id)
		b_i64(q, st, col, id);
	else
		b_null(q, st, col);
}

struct core_row {
	uint32_t dev, core;
	int64_t id;
};

struct sq_rec {
	int64_t id;
	struct core_row *cores;
	size_t ncores;
	int64_t *dev_id;	/* by device index; 0 = not yet */
	size_t ndev;
};

/* The device's names of its codes (none for a raw device: the reader refuses them). */
static void code_name_rows(struct sq *q, int64_t dev_id, const struct prof_file *f)
{
	char code[CODE_LEN];

	for (size_t i = 0; i < f->info.num_code_names; i++) {
		const struct nprof_ntff_code_name *c = &f->info.code_names[i];

		b_i64(q, ST_CODE_NAME, 1, dev_id);
		b_text(q, ST_CODE_NAME, 2, queue_name(c->queue_type));
		b_u64(q, ST_CODE_NAME, 3, c->code);
		b_text(q, ST_CODE_NAME, 4, code_str(c->code, code));
		b_text(q, ST_CODE_NAME, 5, c->name);
		step(q, ST_CODE_NAME);
	}
}

static int64_t device_row(struct sq *q, struct sq_rec *r, const struct prof_file *f)
{
	uint32_t d = f->info.device.device_index;

	if (d >= r->ndev) {
		int64_t *v = xrealloc(r->dev_id, (d + 1) * sizeof(*v));

		memset(v + r->ndev, 0, (d + 1 - r->ndev) * sizeof(*v));
		r->dev_id = v;
		r->ndev = d + 1;
	}
	if (!r->dev_id[d]) {
		b_u64(q, ST_DEVICE, 1, d);
		b_text(q, ST_DEVICE, 2, arch_name(f->info.device.arch));
		b_text(q, ST_DEVICE, 3, f->info.device.provider);
		b_u64(q, ST_DEVICE, 4, f->info.device.num_cores);
		b_u64(q, ST_DEVICE, 5, f->info.device.num_topsps);
		b_u64(q, ST_DEVICE, 6, f->info.device.engines_per_core);
		if (file_is_raw(f)) {
			b_text(q, ST_DEVICE, 7, raw_format_name(f->info.device.raw_format));
			b_u64(q, ST_DEVICE, 8, f->info.device.raw_entry_size);
		} else {
			b_null(q, ST_DEVICE, 7);
			b_null(q, ST_DEVICE, 8);
		}
		b_text(q, ST_DEVICE, 9, clock_domain_name(f->info.device.clock_domain));
		r->dev_id[d] = step(q, ST_DEVICE);
		code_name_rows(q, r->dev_id[d], f);
	}
	return r->dev_id[d];
}

static int64_t core_row(struct sq *q, struct sq_rec *r, const struct prof_file *f, uint32_t core,
			const struct timing *tm)
{
	uint32_t dev = f->info.device.device_index;
	const struct core_timing *ct;
	struct core_row *c;

	for (size_t i = 0; i < r->ncores; i++)
		if (r->cores[i].dev == dev && r->cores[i].core == core)
			return r->cores[i].id;
	r->cores = xrealloc(r->cores, (r->ncores + 1) * sizeof(*r->cores));
	c = &r->cores[r->ncores++];
	c->dev = dev;
	c->core = core;
	b_i64(q, ST_CORE, 1, r->id);
	b_i64(q, ST_CORE, 2, device_row(q, r, f));
	b_u64(q, ST_CORE, 3, core);
	ct = timing_core(tm, dev, core);
	b_u64_or_null(q, ST_CORE, 4, ct != NULL, ct ? ct->vcore : 0);
	c->id = step(q, ST_CORE);
	return c->id;
}

/*
 * The first columns of an entry of queue @qid in `entries` and in
 * `raw_entries`: the queue, the time (b_ts()) and the sequence number.
 */
static void b_entry(struct sq *q, enum stmt st, int64_t qid, const struct entry *e)
{
	b_i64(q, st, 1, qid);
	b_ts(q, st, 2, e->ts);
	b_u64(q, st, 3, e->seq);
}

/* An instruction, @cut by a loss (its end and duration NULL) or ending at @end. */
static void write_instruction(struct sq *q, int64_t qid, const struct entry *e, uint64_t end,
			      bool cut)
{
	b_i64(q, ST_INSTRUCTION, 1, qid);
	if (cut) {
		b_ts(q, ST_INSTRUCTION, 2, e->ts);
		b_null(q, ST_INSTRUCTION, 3);
		b_null(q, ST_INSTRUCTION, 4);
	} else {
		b_span(q, ST_INSTRUCTION, 2, e->ts, end);
	}
	b_u64(q, ST_INSTRUCTION, 5, e->code);
	b_u64(q, ST_INSTRUCTION, 6, e->seq);
	b_u64(q, ST_INSTRUCTION, 7, e->model_id);
	b_u64(q, ST_INSTRUCTION, 8, e->iteration);
	for (int i = 0; i < 3; i++)
		b_u64(q, ST_INSTRUCTION, 9 + i, e->payload[i]);
	step(q, ST_INSTRUCTION);
}

/*
 * The entries of a raw queue (profile.h): each ring entry a row with its
 * part of a device entry as bytes, never decoded; its time is of the
 * device's clock domain (the capture time for NEURONPROF_CLOCK_CAPTURED).
 */
static void write_raw(struct sq *q, const struct prof_file *f, const struct prof_queue *lq,
		      int64_t qid, struct progress *pg, uint64_t *done)
{
	uint64_t base = *done;
	struct raw_parts rp;
	struct raw_part part;
	struct queue_iter it;
	struct entry e;

	queue_iter_init(&it, f, lq);
	raw_parts_init(&rp, f, raw_slot_queue, &it);
	while (!q->rc && raw_parts_next(&rp, &e, &part)) {
		*done = base + rp.slots;
		progress_update(pg, *done);
		q->stats->entries++;
		q->stats->raw_entries++;
		b_entry(q, ST_RAW, qid, &e);
		b_u64(q, ST_RAW, 4, part.index);
		b_u64(q, ST_RAW, 5, part.part);
		b_u64(q, ST_RAW, 6, part.parts);
		sqlite3_bind_blob(q->st[ST_RAW], 7, part.bytes, (int)part.len, SQLITE_TRANSIENT);
		step(q, ST_RAW);
	}
}

/*
 * A queue of @f, all its records in order: one row in `queues`, its
 * instructions (an instruction at the end of one record ends at the next
 * record's first entry) and its other entries.
 */
static void write_queue(struct sq *q, struct sq_rec *r, const struct prof_file *f,
			int64_t file_id, const struct prof_queue *lq, const struct timing *tm,
			struct progress *pg, uint64_t *done)
{
	const struct nprof_ntff_queue *qu = &lq->q;
	uint32_t core = queue_core(f, qu);
	bool tsp = qu->target_kind == NEURONPROF_TARGET_TOPSP;
	bool trace = qu->queue_type == NEURONPROF_QT_TRACE ||
		     qu->queue_type == NEURONPROF_QT_TOPSP_TRACE;
	bool unit = trace || qu->queue_type == NEURONPROF_QT_EVENT ||
		    qu->queue_type == NEURONPROF_QT_DMA || qu->queue_type == NEURONPROF_QT_TOPSP_EVENT ||
		    qu->queue_type == NEURONPROF_QT_TOPSP_ERROR;
	int64_t core_id = core_row(q, r, f, core, tm), qid;
	struct queue_iter it;
	struct instr_clock clk;
	struct entry e, pend;
	bool have_pend = false;
	struct seq_track seq = { 0 };
	uint64_t gaps = 0, g;
	char un[32];		/* unit_name, bound until the row is stepped */
	const void *p;

	b_i64(q, ST_QUEUE, 1, file_id);
	b_u64(q, ST_QUEUE, 2, lq->first);
	b_i64(q, ST_QUEUE, 3, core_id);
	b_text(q, ST_QUEUE, 4, queue_name(qu->queue_type));
	if (unit) {
		b_text(q, ST_QUEUE, 5, tsp ? "topsp" : "engine");
		b_u64(q, ST_QUEUE, 6, tsp ? qu->target_index : qu->engine);
	} else {
		b_null(q, ST_QUEUE, 5);
		b_null(q, ST_QUEUE, 6);
	}
	b_text(q, ST_QUEUE, 7, tsp ? "topsp" : "core");
	b_u64(q, ST_QUEUE, 8, qu->target_index);
	b_u64(q, ST_QUEUE, 9, qu->engine);
	b_u64(q, ST_QUEUE, 10, qu->entry_size);
	b_u64(q, ST_QUEUE, 11, qu->entry_count);
	b_u64(q, ST_QUEUE, 12, qu->lost_count);
	b_u64(q, ST_QUEUE, 13, qu->first_seq);
	b_u64(q, ST_QUEUE, 14, qu->last_seq);
	b_u64(q, ST_QUEUE, 15, lq->nrec);
	if (unit) {
		/* The name summary's tables give the unit (unit_label()). */
		const char *en = tsp ? NULL : engine_name(qu->engine);

		if (tsp)
			snprintf(un, sizeof(un), "topsp%u", qu->target_index);
		else if (en)
			snprintf(un, sizeof(un), "%u:%s", qu->engine, en);
		else
			snprintf(un, sizeof(un), "%u", qu->engine);
		b_text(q, ST_QUEUE, 16, un);
	} else {
		b_null(q, ST_QUEUE, 16);
	}
	qid = step(q, ST_QUEUE);

	if (file_is_raw(f)) {
		write_raw(q, f, lq, qid, pg, done);
		return;
	}
	instr_clock_init(&clk, timing_core(tm, f->info.device.device_index, core), tsp,
			 tsp ? qu->target_index : qu->engine);
	queue_iter_init(&it, f, lq);
	while (!q->rc && (p = queue_iter_next(&it))) {
		entry_decode(p, it.entry_size, &e);
		progress_update(pg, ++*done);
		q->stats->entries++;
		g = seq_skipped_iter(&seq, &it, e.seq);
		gaps += g;
		if (trace) {
			/* An instruction ends when the next entry of its queue says, or a loss cuts it. */
			if (have_pend && g)
				write_instruction(q, qid, &pend, 0, true);
			else if (have_pend)
				write_instruction(q, qid, &pend, instr_end(&clk, pend.ts, true, e.ts),
						  false);
			pend = e;
			have_pend = true;
			continue;
		}
		b_entry(q, ST_ENTRY, qid, &e);
		b_u64(q, ST_ENTRY, 4, e.code);
		b_u64(q, ST_ENTRY, 5, e.model_id);
		b_u64(q, ST_ENTRY, 6, e.iteration);
		for (int i = 0; i < 4; i++)
			b_u64(q, ST_ENTRY, 7 + i, e.payload[i]);
		step(q, ST_ENTRY);
	}
	/* Losses after the last entry cut the last instruction. */
	if (have_pend && !q->rc && qu->lost_count > gaps)
		write_instruction(q, qid, &pend, 0, true);
	else if (have_pend && !q->rc)
		write_instruction(q, qid, &pend, instr_end(&clk, pend.ts, false, 0), false);
	instr_clock_free(&clk);
}

/* Host events of @s; their row ids by event into @rows, for the executions' host_event_id. */
static void write_sysprof(struct sq *q, int64_t rec_id, const struct sysprof *s,
			  struct event_ids *rows)
{
	const Neuronprof__System__Ntrace *nt = s->ntrace;

	rows->v = xcalloc(nt ? nt->n_events : 0, sizeof(*rows->v));
	rows->n = 0;
	for (size_t i = 0; nt && !q->rc && i < nt->n_events; i++) {
		const Neuronprof__System__NtraceEvent *ev = nt->events[i];
		uint64_t end = ev->end_ns > ev->start_ns ? ev->end_ns : ev->start_ns;

		b_i64(q, ST_HOST, 1, rec_id);
		b_u64(q, ST_HOST, 2, ev->id);
		b_string(q, ST_HOST, 3, ev->name && *ev->name ? ev->name : "event");
		b_u64(q, ST_HOST, 4, ev->type);
		b_u64(q, ST_EVENT_TYPE, 1, ev->type);
		b_text(q, ST_EVENT_TYPE, 2, ev->name && *ev->name ? ev->name : "event");
		step(q, ST_EVENT_TYPE);
		b_string(q, ST_HOST, 5, host_source_name(ev->source));
		b_span(q, ST_HOST, 6, ev->start_ns, end);
		b_u64(q, ST_HOST, 9, ev->pid);
		b_u64(q, ST_HOST, 10, ev->tid);
		b_u64_or_null(q, ST_HOST, 11, ev->has_core_index, ev->core_index);
		b_u64_or_null(q, ST_HOST, 12, ev->has_model_id, ev->model_id);
		b_u64_or_null(q, ST_HOST, 13, ev->n_flow_ids != 0,
			      ev->n_flow_ids ? ev->flow_ids[0] : 0);
		b_text(q, ST_HOST, 14, ev->instance_id && *ev->instance_id ? ev->instance_id : NULL);
		rows->v[rows->n].ev = ev;
		rows->v[rows->n++].id = (uint64_t)step(q, ST_HOST);
		q->stats->host_events++;
	}
	for (size_t i = 0; s->cpu && !q->rc && i < s->cpu->n_samples; i++) {
		const Neuronprof__System__CpuUtilSample *cs = s->cpu->samples[i];

		if (!cs->total || !cs->interval_ns)
			continue;
		b_i64(q, ST_CPU, 1, rec_id);
		b_ts(q, ST_CPU, 2, cs->ts_ns);
		b_u64(q, ST_CPU, 3, cs->interval_ns);
		sqlite3_bind_double(q->st[ST_CPU], 4, cs->total->util_pct);
		sqlite3_bind_double(q->st[ST_CPU], 5, cs->total->user_pct);
		sqlite3_bind_double(q->st[ST_CPU], 6, cs->total->system_pct);
		sqlite3_bind_double(q->st[ST_CPU], 7, cs->total->iowait_pct);
		step(q, ST_CPU);
		q->stats->host_samples++;
	}
	for (size_t i = 0; s->mem && !q->rc && i < s->mem->n_samples; i++) {
		const Neuronprof__System__HostMemSample *ms = s->mem->samples[i];

		b_i64(q, ST_MEM, 1, rec_id);
		b_ts(q, ST_MEM, 2, ms->ts_ns);
		b_u64(q, ST_MEM, 3, ms->host_used_bytes);
		b_u64(q, ST_MEM, 4, ms->host_available_bytes);
		b_u64(q, ST_MEM, 5, ms->process_rss_bytes);
		step(q, ST_MEM);
		q->stats->host_samples++;
	}
	event_ids_sort(rows);
}

static void write_timing(struct sq *q, struct sq_rec *r, const struct timing *tm,
			 const struct event_ids *hr)
{
	for (size_t i = 0; i < tm->ncores && !q->rc; i++) {
		const struct core_timing *c = &tm->cores[i];
		int64_t core_id = 0;

		for (size_t k = 0; k < r->ncores; k++)
			if (r->cores[k].dev == c->dev && r->cores[k].core == c->core)
				core_id = r->cores[k].id;
		for (size_t k = 0; k < c->ninf && !q->rc; k++) {
			const struct inference *in = &c->inf[k];

			b_i64(q, ST_INFERENCE, 1, core_id);
			b_u64(q, ST_INFERENCE, 2, in->model_id);
			b_u64(q, ST_INFERENCE, 3, in->iteration);
			b_span(q, ST_INFERENCE, 4, in->start, in->stop);
			b_u64(q, ST_INFERENCE, 7, in->status);
			b_u64(q, ST_STATUS, 1, in->status);
			step(q, ST_STATUS);
			step(q, ST_INFERENCE);
		}
		for (size_t k = 0; k < c->nexec && !q->rc; k++) {
			const struct execution *x = &c->exec[k];
			uint64_t host_id = event_ids_find(hr, x->host);

			b_i64(q, ST_EXECUTION, 1, core_id);
			b_u64(q, ST_EXECUTION, 2, k);
			b_u64(q, ST_EXECUTION, 3, x->model_id);
			b_span(q, ST_EXECUTION, 4, x->start, x->stop);
			b_u64(q, ST_EXECUTION, 7, x->iterations);
			b_u64(q, ST_EXECUTION, 8, x->failed);
			if (host_id)
				b_i64(q, ST_EXECUTION, 9, (int64_t)host_id);
			else
				b_null(q, ST_EXECUTION, 9);
			step(q, ST_EXECUTION);
			q->stats->executions++;
		}
	}
}

static void write_recording(struct sq *q, const struct recording *rec, int64_t machine_id,
			    int64_t shift, struct progress *pg, uint64_t *done)
{
	struct sq_rec r = { 0 };
	struct event_ids hr = { 0 };
	struct timing tm;

	b_string(q, ST_RECORDING, 1, rec->path);
	b_i64(q, ST_RECORDING, 2, machine_id);
	r.id = step(q, ST_RECORDING);
	q->shift = shift;
	timing_build(&tm, rec->files, rec->nfiles, NULL, rec->sys, rec->sys ? 1 : 0, NULL, 0);
	for (size_t i = 0; i < rec->nfiles && !q->rc; i++) {
		const struct prof_file *f = rec->files[i];
		const struct nprof_ntff_info *in = &f->info;
		int64_t file_id;

		b_i64(q, ST_FILE, 1, r.id);
		b_string(q, ST_FILE, 2, f->path);
		b_u64(q, ST_FILE, 3, in->pid);
		b_text(q, ST_FILE, 4, in->instance_id);
		b_string(q, ST_FILE, 5, in->hostname);
		b_u64(q, ST_FILE, 6, in->core);
		b_text(q, ST_FILE, 7, capture_kind_name(in->capture_kind));
		b_u64(q, ST_FILE, 8, in->session_id);
		b_string(q, ST_FILE, 9, in->model_name);
		b_u64(q, ST_FILE, 10, in->model_id);
		/* 0: not known, not a time. */
		b_ts_or_null(q, ST_FILE, 11, in->start_ns != 0, in->start_ns);
		b_ts_or_null(q, ST_FILE, 12, in->stop_ns != 0, in->stop_ns);
		b_u64(q, ST_FILE, 13, in->clock_id);
		file_id = step(q, ST_FILE);
		for (size_t k = 0; k < f->nlqueues && !q->rc; k++)
			write_queue(q, &r, f, file_id, &f->lqueues[k], &tm, pg, done);
	}
	if (rec->sys && !q->rc)
		write_sysprof(q, r.id, rec->sys, &hr);
	write_timing(q, &r, &tm, &hr);
	free(hr.v);
	timing_free(&tm);
	free(r.cores);
	free(r.dev_id);
}

/* A machine's row: its name, and how its times were put on the export's timeline. */
static int64_t write_machine(struct sq *q, const struct machine *m)
{
	b_text(q, ST_MACHINE, 1, m->name);
	b_text(q, ST_MACHINE, 2, m->hostname);
	b_text(q, ST_MACHINE, 3, machine_clock_name(m->clock));
	if (m->has_mapping) {
		b_u64(q, ST_MACHINE, 4, m->map_monotonic_ns);
		b_u64(q, ST_MACHINE, 5, m->map_realtime_ns);
	} else {
		b_null(q, ST_MACHINE, 4);
		b_null(q, ST_MACHINE, 5);
	}
	b_i64(q, ST_MACHINE, 6, m->shift);
	return step(q, ST_MACHINE);
}

int sqlite_export(const struct profile *prof, const char *source, const char *path,
		  const char *name, struct progress *pg, struct export_stats *st)
{
	struct sq q = { .name = name, .stats = st };
	struct recording *recs;
	struct machines mach;
	int64_t *mid;
	size_t nrec;
	uint64_t done = 0;
	struct stat sb;
	bool is_file = !stat(source, &sb) && !S_ISDIR(sb.st_mode);

	memset(st, 0, sizeof(*st));
	if (sqlite3_open_v2(path, &q.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		sq_fail(&q, "cannot open the database");
		sqlite3_close(q.db);
		return -1;
	}
	/* The file is a fresh temporary renamed only when complete: no journal needed. */
	exec_sql(&q, SQLITE_EXPORT_PRAGMAS, "pragmas");
	exec_sql(&q, "BEGIN", "begin the transaction");
	exec_sql(&q, sqlite_schema, "create the schema");
	/* The schema's own rows (the statuses) are rows of the database too. */
	q.rows = (uint64_t)sqlite3_total_changes64(q.db);
	for (int i = 0; i < ST_COUNT && !q.rc; i++)
		stmt_prepare(&q, (enum stmt)i);
	b_text(&q, ST_META, 1, "schema_version");
	b_text(&q, ST_META, 2, SQLITE_SCHEMA_VERSION);
	step(&q, ST_META);
	b_text(&q, ST_META, 1, "producer");
	b_text(&q, ST_META, 2, nprof_version_string());
	step(&q, ST_META);
	b_text(&q, ST_META, 1, "source");
	b_text(&q, ST_META, 2, source);
	step(&q, ST_META);
	recs = recordings_split(prof, source, is_file, &nrec);
	machines_build(&mach, prof, recs, nrec);
	st->machines = mach.n;
	st->unmapped = mach.unmapped;
	mid = xcalloc(mach.n + 1, sizeof(*mid));
	for (size_t i = 0; i < mach.n && !q.rc; i++)
		mid[i] = write_machine(&q, &mach.v[i]);
	for (size_t i = 0; i < nrec && !q.rc; i++) {
		write_recording(&q, &recs[i], mid[mach.rec_machine[i]],
				mach.v[mach.rec_machine[i]].shift, pg, &done);
		/* One-pass loading: a damaged block, reported by the walk, fails the export. */
		if (profile_damaged(prof))
			q.rc = -1;
	}
	free(mid);
	machines_free(&mach);
	recordings_free(recs, nrec);
	if (profile_damaged(prof))
		q.rc = -1;
	if (!q.rc)
		exec_sql(&q, sqlite_indices, "create the indices");
	if (!q.rc)
		exec_sql(&q, "COMMIT", "commit");
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(q.st[i]);
	if (sqlite3_close(q.db) != SQLITE_OK && !q.rc) {
		fail("%s: cannot close the database", name);
		q.rc = -1;
	}
	for (size_t i = 0; i < q.sslots; i++)
		free(q.skey[i]);
	free(q.skey);
	free(q.sid);
	st->rows = q.rows;
	return q.rc;
}
