/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the host tests that check what the library's own entry points
 * record into the system trace: a trace capturing every type on every core,
 * the events of one ring taken out as records, and questions about them.
 */
#ifndef NPROF_TRACE_UTIL_H
#define NPROF_TRACE_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <neuronprof/sys_trace.h>

#include "harness.h"

#define TRACE_LOG_MAX	1024

/* Events taken out of one ring, oldest first. */
struct trace_log {
	struct nprof_sys_trace_record r[TRACE_LOG_MAX];
	size_t n;
};

/*
 * A fresh trace with @cfg, or when @cfg is NULL the defaults with @max
 * events per core (0: the default number); whatever ran before is dropped.
 */
static inline int trace_restart(const struct nprof_sys_trace_config *cfg, uint64_t max)
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
		printf("# trace start: %s\n", nprof_strerror_last());
	return ret;
}

/* A fresh trace of every type on every core, TRACE_LOG_MAX events each. */
static inline int trace_start_all(void)
{
	return trace_restart(NULL, TRACE_LOG_MAX);
}

static inline void trace_end_all(void)
{
	nprof_sys_trace_stop();
	nprof_sys_trace_release();
}

/* Take every pending event of ring @core into @log (emptied first). */
static inline size_t trace_take(uint32_t core, struct trace_log *log)
{
	int n = nprof_sys_trace_drain(core, log->r, TRACE_LOG_MAX);

	log->n = n > 0 ? (size_t)n : 0;
	return log->n;
}

/* Events of @type in @log. */
static inline size_t trace_count(const struct trace_log *log, uint32_t type)
{
	size_t i, n = 0;

	for (i = 0; i < log->n; i++)
		n += log->r[i].type == type;
	return n;
}

/* Events of @type in @log about model @model. */
static inline size_t trace_count_model(const struct trace_log *log, uint32_t type, uint64_t model)
{
	size_t i, n = 0;

	for (i = 0; i < log->n; i++)
		n += log->r[i].type == type && (log->r[i].flags & NPROF_SYS_TRACE_F_MODEL_ID) &&
		     log->r[i].model_id == model;
	return n;
}

/* The @nth (from 0) event of @type in @log, or NULL. */
static inline const struct nprof_sys_trace_record *trace_nth(const struct trace_log *log,
							     uint32_t type, size_t nth)
{
	size_t i;

	for (i = 0; i < log->n; i++)
		if (log->r[i].type == type && !nth--)
			return &log->r[i];
	return NULL;
}

/* trace_nth(), and the case fails if there is no such event. */
static inline const struct nprof_sys_trace_record *trace_want(const struct trace_log *log,
							      uint32_t type, size_t nth)
{
	const struct nprof_sys_trace_record *r = trace_nth(log, type, nth);

	if (!r)
		FAIL("no event %zu of type %u among the %zu taken", nth, type, log->n);
	return r;
}

static inline const struct nprof_sys_trace_attr *rec_attr(const struct nprof_sys_trace_record *r,
							  const char *key)
{
	uint32_t i;

	for (i = 0; r && i < r->nattrs; i++)
		if (!strcmp(r->attrs[i].key, key))
			return &r->attrs[i];
	return NULL;
}

/* An unsigned attribute; UINT64_MAX when absent or of another type. */
static inline uint64_t rec_uint(const struct nprof_sys_trace_record *r, const char *key)
{
	const struct nprof_sys_trace_attr *a = rec_attr(r, key);

	return a && a->type == NPROF_SYS_TRACE_ATTR_UINT ? a->v.u : UINT64_MAX;
}

/* A string attribute; "" when absent or of another type. */
static inline const char *rec_str(const struct nprof_sys_trace_record *r, const char *key)
{
	const struct nprof_sys_trace_attr *a = rec_attr(r, key);

	return a && a->type == NPROF_SYS_TRACE_ATTR_STR ? a->v.s : "";
}

#endif /* NPROF_TRACE_UTIL_H */
