// SPDX-License-Identifier: MIT
/*
 * nprof_sys_trace_fetch_events(): the pending events of the system trace
 * and the state of its rings as one JSON document, and the options that
 * choose which rings and how many events.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/internal.h"
#include "util/json.h"
#include "trace/sys_trace_internal.h"

struct nprof_sys_trace_fetch_options {
	uint64_t max_events_per_nc;	/* 0: all pending */
	uint32_t nc;			/* ring, or NPROF_SYS_TRACE_ALL_CORES */
};

NPROF_API struct nprof_sys_trace_fetch_options *nprof_sys_trace_fetch_options_allocate(void)
{
	struct nprof_sys_trace_fetch_options *o = calloc(1, sizeof(*o));

	if (!o)
		return nprof_err_ptr(ENOMEM, "cannot allocate system-trace fetch options");
	o->nc = NPROF_SYS_TRACE_ALL_CORES;
	return o;
}

NPROF_API void nprof_sys_trace_fetch_options_free(struct nprof_sys_trace_fetch_options *opts)
{
	free(opts);
}

NPROF_API int nprof_sys_trace_fetch_options_set_defaults(struct nprof_sys_trace_fetch_options *opts)
{
	if (!opts)
		return nprof_err(EINVAL, "system-trace fetch options are NULL");
	opts->max_events_per_nc = 0;
	opts->nc = NPROF_SYS_TRACE_ALL_CORES;
	return 0;
}

NPROF_API int nprof_sys_trace_fetch_options_set_max_events_per_nc(
	struct nprof_sys_trace_fetch_options *opts, uint64_t max)
{
	if (!opts)
		return nprof_err(EINVAL, "system-trace fetch options are NULL");
	opts->max_events_per_nc = max;
	return 0;
}

NPROF_API int nprof_sys_trace_fetch_options_set_nc_idx(struct nprof_sys_trace_fetch_options *opts,
						       uint32_t nc)
{
	if (!opts)
		return nprof_err(EINVAL, "system-trace fetch options are NULL");
	if (nc > NPROF_SYS_TRACE_NO_CORE && nc != NPROF_SYS_TRACE_ALL_CORES)
		return nprof_err(EINVAL,
				 "core index %u is out of range [0, %d] (or %d for no core, %u for all)",
				 nc, NPROF_MAX_CORES - 1, NPROF_SYS_TRACE_NO_CORE,
				 NPROF_SYS_TRACE_ALL_CORES);
	opts->nc = nc;
	return 0;
}

static void json_core(struct nprof_json *j, const char *key, uint32_t core)
{
	nprof_json_key(j, key);
	if (core == NPROF_SYS_TRACE_NO_CORE)
		nprof_json_null(j);
	else
		nprof_json_u64(j, core);
}

static void json_event(struct nprof_json *j, const struct nprof_sys_trace_record *rec,
		       const char *instance_id, int64_t gid)
{
	uint32_t i;

	nprof_json_obj_begin(j);
	nprof_json_key_u64(j, "id", rec->id);
	nprof_json_key_str(j, "name", nprof_sys_trace_event_type_name(rec->type));
	nprof_json_key_u64(j, "type", rec->type);
	nprof_json_key_str(j, "group", nprof_st_group_name(rec->type));
	nprof_json_key_str(j, "source", nprof_sys_trace_source_name(rec->source));
	nprof_json_key_u64(j, "start_ns", rec->start_ns);
	nprof_json_key_u64(j, "end_ns", rec->end_ns);
	nprof_json_key_u64(j, "duration_ns", rec->end_ns - rec->start_ns);
	nprof_json_key_str(j, "instance_id", instance_id);
	nprof_json_key_u64(j, "pid", rec->pid);
	nprof_json_key_u64(j, "tid", rec->tid);
	json_core(j, "core_index", rec->core);
	nprof_json_key(j, "worker_global_id");
	if (gid >= 0)
		nprof_json_u64(j, (uint64_t)gid);
	else
		nprof_json_null(j);
	nprof_json_key(j, "model_id");
	if (rec->flags & NPROF_SYS_TRACE_F_MODEL_ID)
		nprof_json_u64(j, rec->model_id);
	else
		nprof_json_null(j);
	nprof_json_key(j, "flow_ids");
	nprof_json_arr_begin(j);
	if (rec->flags & NPROF_SYS_TRACE_F_FLOW_ID)
		nprof_json_u64(j, rec->flow_id);
	nprof_json_arr_end(j);
	nprof_json_key(j, "attributes");
	nprof_json_obj_begin(j);
	for (i = 0; i < rec->nattrs; i++) {
		const struct nprof_sys_trace_attr *a = &rec->attrs[i];

		nprof_json_key(j, a->key);
		switch (a->type) {
		case NPROF_SYS_TRACE_ATTR_INT:
			nprof_json_i64(j, a->v.i);
			break;
		case NPROF_SYS_TRACE_ATTR_UINT:
			nprof_json_u64(j, a->v.u);
			break;
		case NPROF_SYS_TRACE_ATTR_DOUBLE:
			nprof_json_double(j, a->v.d);
			break;
		default:
			nprof_json_str(j, a->v.s);
			break;
		}
	}
	nprof_json_obj_end(j);
	nprof_json_obj_end(j);
}

struct fetch_ring {
	uint32_t core;
	uint64_t fetched;
};

NPROF_API int nprof_sys_trace_fetch_events(char **buf, size_t *len,
					   const struct nprof_sys_trace_fetch_options *opts)
{
	struct nprof_sys_trace_fetch_options def = { 0, NPROF_SYS_TRACE_ALL_CORES };
	struct nprof_sys_trace_record *recs;
	struct fetch_ring fetched[NPROF_ST_RINGS];
	struct nprof_st_session s;
	uint32_t first, last, c;
	size_t nrings = 0, i;
	struct nprof_json j;
	int ret;

	if (!buf || !len)
		return nprof_err(EINVAL, "fetch output buffer or length pointer is NULL");
	*buf = NULL;
	*len = 0;
	if (!opts)
		opts = &def;
	if (opts->nc == NPROF_SYS_TRACE_ALL_CORES) {
		first = 0;
		last = NPROF_SYS_TRACE_NO_CORE;
	} else {
		first = last = opts->nc;
	}
	recs = malloc(NPROF_ST_READ_CHUNK * sizeof(*recs));
	if (!recs)
		return nprof_err(ENOMEM, "cannot allocate the fetch buffer");
	nprof_st_session_get(&s);

	nprof_json_init(&j);
	nprof_json_obj_begin(&j);
	nprof_json_key_str(&j, "clock_domain", "CLOCK_MONOTONIC");
	nprof_json_key_str(&j, "instance_id", s.instance_id);
	nprof_json_key_u64(&j, "pid", s.pid);
	nprof_json_key_bool(&j, "active", s.active);
	nprof_json_key(&j, "events");
	nprof_json_arr_begin(&j);
	for (c = first; c <= last; c++) {
		struct nprof_sys_trace_stats st;
		uint64_t want, got = 0;

		nprof_st_ring_stats(c, &st);
		if (opts->nc == NPROF_SYS_TRACE_ALL_CORES && !st.recorded)
			continue;
		/* Only what is pending now: a busy writer cannot keep the fetch going. */
		want = st.pending;
		if (opts->max_events_per_nc && opts->max_events_per_nc < want)
			want = opts->max_events_per_nc;
		while (got < want) {
			uint64_t left = want - got;
			size_t n = nprof_st_ring_take(c, recs, left < NPROF_ST_READ_CHUNK ?
						      (size_t)left : NPROF_ST_READ_CHUNK);

			if (!n)
				break;
			for (i = 0; i < n; i++)
				json_event(&j, &recs[i], s.instance_id, s.worker_gid);
			got += n;
		}
		fetched[nrings].core = c;
		fetched[nrings].fetched = got;
		nrings++;
	}
	nprof_json_arr_end(&j);
	nprof_json_key(&j, "rings");
	nprof_json_arr_begin(&j);
	for (i = 0; i < nrings; i++) {
		struct nprof_sys_trace_stats st;

		nprof_st_ring_stats(fetched[i].core, &st);
		nprof_json_obj_begin(&j);
		json_core(&j, "core_index", fetched[i].core);
		nprof_json_key_u64(&j, "capacity", st.capacity);
		nprof_json_key_u64(&j, "fetched", fetched[i].fetched);
		nprof_json_key_u64(&j, "pending", st.pending);
		nprof_json_key_u64(&j, "recorded", st.recorded);
		nprof_json_key_u64(&j, "overwritten", st.overwritten);
		nprof_json_obj_end(&j);
	}
	nprof_json_arr_end(&j);
	nprof_json_obj_end(&j);
	free(recs);
	ret = nprof_json_finish(&j, buf, len);
	if (ret)
		return nprof_err(-ret, "cannot build the system-trace JSON: %s", strerror(-ret));
	return 0;
}

NPROF_API void nprof_sys_trace_buffer_free(char *buf)
{
	free(buf);
}
