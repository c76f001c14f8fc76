// SPDX-License-Identifier: MIT
/*
 * The system-profile writer: ntrace.pb, trace_info.pb, cpu_util.pb and
 * host_mem.pb (proto/system_profile.proto, Documentation/sys_trace.rst).
 *
 * ntrace.pb can hold millions of events, so it is streamed: the wire form
 * of "repeated ntrace_event events = 1" is just one (tag, length, message)
 * triple per element, so each event is packed on its own and appended,
 * and memory use does not depend on the number of events. The three other
 * messages are small and packed whole.
 *
 * Every file is written under a temporary name and renamed only when all
 * of them are complete, so the directory never shows a partial file; a
 * name that is a device or a FIFO is written into instead, and a symbolic
 * link is followed (nprof_tmpfile_place()).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/monitor.h>

#include "util/internal.h"
#include "trace/sys_trace_internal.h"
#include "system_profile.pb-c.h"

#define DRAIN_CHUNK	256
#define WBUF_SIZE	(64 * 1024)

enum { F_NTRACE, F_TRACE_INFO, F_CPU_UTIL, F_HOST_MEM, F_COUNT };

static const char *const file_names[F_COUNT] = {
	[F_NTRACE] = "ntrace.pb",
	[F_TRACE_INFO] = "trace_info.pb",
	[F_CPU_UTIL] = "cpu_util.pb",
	[F_HOST_MEM] = "host_mem.pb",
};

struct out_file {
	int fd;
	char tmp[NAME_MAX + 1];
	const char *name;
	char *buf;		/* write buffer */
	size_t len;
};

struct writer {
	int dirfd;
	struct out_file f[F_COUNT];
	struct nprof_st_session sess;
	const char *instance_id;
	uint64_t session_init_ns;
	const struct nprof_monitor *mon;
	uint32_t pid;
	char producer[32];
};

/* ---- files -------------------------------------------------------------------- */

static int file_open(struct writer *w, struct out_file *f, const char *name)
{
	f->name = name;
	f->buf = malloc(WBUF_SIZE);
	if (!f->buf)
		return nprof_err(ENOMEM, "cannot allocate a write buffer for %s", name);
	f->fd = nprof_tmpfile_create(w->dirfd, name, f->tmp, sizeof(f->tmp));
	if (f->fd < 0)
		return nprof_err(errno, "cannot create a temporary file for %s: %s", name,
				 strerror(errno));
	return 0;
}

static int file_flush(struct out_file *f)
{
	size_t off = 0;

	while (off < f->len) {
		ssize_t n = write(f->fd, f->buf + off, f->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return nprof_err(errno, "cannot write %s: %s", f->name, strerror(errno));
		off += (size_t)n;
	}
	f->len = 0;
	return 0;
}

static int file_put(struct out_file *f, const void *p, size_t n)
{
	int ret;

	while (n) {
		size_t room = WBUF_SIZE - f->len, k = n < room ? n : room;

		memcpy(f->buf + f->len, p, k);
		f->len += k;
		p = (const char *)p + k;
		n -= k;
		if (f->len == WBUF_SIZE) {
			ret = file_flush(f);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int file_finish(struct out_file *f)
{
	int ret = file_flush(f);

	if (ret)
		return ret;
	if (fsync(f->fd))
		return nprof_err(errno, "cannot sync %s: %s", f->name, strerror(errno));
	return 0;
}

static void file_cleanup(struct writer *w, struct out_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp[0])
		unlinkat(w->dirfd, f->tmp, 0);
	f->tmp[0] = '\0';
	free(f->buf);
	f->buf = NULL;
}

/* Pack a whole message into @f. */
static int put_message(struct out_file *f, const ProtobufCMessage *msg)
{
	size_t len = protobuf_c_message_get_packed_size(msg);
	uint8_t *buf = malloc(len ? len : 1);
	int ret;

	if (!buf)
		return nprof_err(ENOMEM, "cannot allocate %zu bytes for %s", len, f->name);
	protobuf_c_message_pack(msg, buf);
	ret = file_put(f, buf, len);
	free(buf);
	return ret;
}

/* ---- ntrace.pb ------------------------------------------------------------------- */

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static void fill_event(const struct writer *w, const struct nprof_sys_trace_record *r,
		       Neuronprof__System__NtraceEvent *e, Neuronprof__System__Attribute *attrs,
		       Neuronprof__System__Attribute **attr_ptrs, uint64_t *flow)
{
	uint32_t i;

	neuronprof__system__ntrace_event__init(e);
	e->has_id = 1;
	e->id = r->id;
	e->name = (char *)nprof_sys_trace_event_type_name(r->type);
	e->has_type = 1;
	e->type = r->type;
	e->has_start_ns = 1;
	e->start_ns = r->start_ns;
	e->has_end_ns = 1;
	e->end_ns = r->end_ns;
	e->has_duration_ns = 1;
	e->duration_ns = r->end_ns - r->start_ns;
	e->has_source = 1;
	e->source = (Neuronprof__System__EventSource)r->source;
	e->instance_id = (char *)w->instance_id;
	e->has_pid = 1;
	e->pid = r->pid;
	e->has_tid = 1;
	e->tid = r->tid;
	if (r->core != NPROF_SYS_TRACE_NO_CORE) {
		e->has_core_index = 1;
		e->core_index = r->core;
	}
	if (w->sess.worker_gid >= 0) {
		e->has_worker_global_id = 1;
		e->worker_global_id = (uint32_t)w->sess.worker_gid;
	}
	if (r->flags & NPROF_SYS_TRACE_F_FLOW_ID) {
		*flow = r->flow_id;
		e->n_flow_ids = 1;
		e->flow_ids = flow;
	}
	if (r->flags & NPROF_SYS_TRACE_F_MODEL_ID) {
		e->has_model_id = 1;
		e->model_id = r->model_id;
	}
	for (i = 0; i < r->nattrs; i++) {
		const struct nprof_sys_trace_attr *a = &r->attrs[i];
		Neuronprof__System__Attribute *pa = &attrs[i];

		neuronprof__system__attribute__init(pa);
		pa->key = (char *)a->key;
		switch (a->type) {
		case NPROF_SYS_TRACE_ATTR_INT:
			pa->has_int_value = 1;
			pa->int_value = a->v.i;
			break;
		case NPROF_SYS_TRACE_ATTR_UINT:
			pa->has_uint_value = 1;
			pa->uint_value = a->v.u;
			break;
		case NPROF_SYS_TRACE_ATTR_DOUBLE:
			pa->has_double_value = 1;
			pa->double_value = a->v.d;
			break;
		default:
			pa->string_value = (char *)a->v.s;
			break;
		}
		attr_ptrs[i] = pa;
	}
	e->n_attributes = r->nattrs;
	e->attributes = r->nattrs ? attr_ptrs : NULL;
}

static int write_ntrace(struct writer *w)
{
	Neuronprof__System__Attribute attrs[NPROF_SYS_TRACE_MAX_ATTRS];
	Neuronprof__System__Attribute *attr_ptrs[NPROF_SYS_TRACE_MAX_ATTRS];
	struct out_file *f = &w->f[F_NTRACE];
	struct nprof_sys_trace_record *recs;
	uint8_t *pack = NULL;
	size_t pack_cap = 0;
	uint32_t core;
	int ret = 0;

	recs = malloc(DRAIN_CHUNK * sizeof(*recs));
	if (!recs)
		return nprof_err(ENOMEM, "cannot allocate the drain buffer");
	for (core = 0; core <= NPROF_SYS_TRACE_NO_CORE && !ret; core++) {
		struct nprof_sys_trace_stats st = { .size = sizeof(st) };
		uint64_t left;

		nprof_sys_trace_get_stats(core, &st);
		/* What is pending now: a busy writer cannot keep this loop going. */
		left = st.pending;
		while (left && !ret) {
			int n = nprof_sys_trace_drain(core, recs,
						      left < DRAIN_CHUNK ? (size_t)left : DRAIN_CHUNK);

			if (n <= 0)
				break;
			left -= (uint64_t)n;
			for (int i = 0; i < n && !ret; i++) {
				Neuronprof__System__NtraceEvent e;
				uint8_t head[1 + 10];
				uint64_t flow;
				size_t len, hl;

				fill_event(w, &recs[i], &e, attrs, attr_ptrs, &flow);
				len = neuronprof__system__ntrace_event__get_packed_size(&e);
				if (len > pack_cap) {
					uint8_t *p = realloc(pack, len);

					if (!p) {
						ret = nprof_err(ENOMEM, "cannot allocate %zu bytes for an event",
								len);
						break;
					}
					pack = p;
					pack_cap = len;
				}
				neuronprof__system__ntrace_event__pack(&e, pack);
				head[0] = (1 << 3) | 2;	/* field 1, length-delimited */
				hl = 1 + put_varint(head + 1, len);
				ret = file_put(f, head, hl);
				if (!ret)
					ret = file_put(f, pack, len);
			}
		}
	}
	free(pack);
	free(recs);
	return ret;
}

/* ---- trace_info.pb ------------------------------------------------------------------ */

static int write_trace_info(struct writer *w)
{
	Neuronprof__System__EventType types[NPROF_SYS_TRACE_EVENT_COUNT];
	Neuronprof__System__EventType *type_ptrs[NPROF_SYS_TRACE_EVENT_COUNT];
	Neuronprof__System__CoreRing *rings, **ring_ptrs;
	Neuronprof__System__TraceInfo ti;
	uint32_t captured[NPROF_MAX_CORES];
	char host[256];
	struct timespec mono, real;
	size_t nrings = 0, ncap = 0, i;
	uint64_t total_ow = 0;
	int ret;

	rings = calloc(NPROF_ST_RINGS, sizeof(*rings));
	ring_ptrs = calloc(NPROF_ST_RINGS, sizeof(*ring_ptrs));
	if (!rings || !ring_ptrs) {
		free(rings);
		free(ring_ptrs);
		return nprof_err(ENOMEM, "cannot allocate the ring table");
	}
	neuronprof__system__trace_info__init(&ti);
	ti.instance_id = (char *)w->instance_id;
	ti.has_pid = 1;
	ti.pid = w->pid;
	ti.has_session_init_ns = 1;
	ti.session_init_ns = w->session_init_ns;
	ti.clock_domain = "CLOCK_MONOTONIC";
	for (i = 0; i < NPROF_SYS_TRACE_EVENT_COUNT; i++) {
		neuronprof__system__event_type__init(&types[i]);
		types[i].name = (char *)nprof_sys_trace_event_type_name((unsigned int)i);
		types[i].has_id = 1;
		types[i].id = (uint32_t)i;
		types[i].has_group = 1;
		types[i].group = nprof_sys_trace_event_type_is_hardware((unsigned int)i) ?
			NEURONPROF__SYSTEM__EVENT_GROUP__GROUP_HARDWARE :
			NEURONPROF__SYSTEM__EVENT_GROUP__GROUP_SOFTWARE;
		types[i].has_captured = 1;
		types[i].captured = w->sess.started && ((w->sess.type_mask >> i) & 1);
		type_ptrs[i] = &types[i];
	}
	ti.n_event_types = NPROF_SYS_TRACE_EVENT_COUNT;
	ti.event_types = type_ptrs;
	for (i = 0; i < NPROF_ST_RINGS; i++) {
		struct nprof_sys_trace_stats st = { .size = sizeof(st) };
		Neuronprof__System__CoreRing *r = &rings[nrings];

		nprof_sys_trace_get_stats((uint32_t)i, &st);
		total_ow += st.overwritten;
		if (!st.capacity || (!st.recorded && !st.overwritten))
			continue;
		neuronprof__system__core_ring__init(r);
		if (i != NPROF_SYS_TRACE_NO_CORE) {
			r->has_core_index = 1;
			r->core_index = (uint32_t)i;
		}
		r->has_capacity = 1;
		r->capacity = st.capacity;
		r->has_recorded = 1;
		r->recorded = st.recorded;
		r->has_overwritten = 1;
		r->overwritten = st.overwritten;
		r->has_consumed = 1;
		r->consumed = st.consumed;
		r->has_pending = 1;
		r->pending = st.pending;
		ring_ptrs[nrings++] = r;
	}
	ti.n_cores = nrings;
	ti.cores = ring_ptrs;
	if (!gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		ti.host_name = host;
	}
	if (w->sess.started) {
		ti.has_start_ns = 1;
		ti.start_ns = w->sess.start_ns;
		/* Read with start_ns at session start: the session's clock mapping. */
		ti.has_start_realtime_ns = 1;
		ti.start_realtime_ns = w->sess.start_real_ns;
		if (!w->sess.active) {
			ti.has_stop_ns = 1;
			ti.stop_ns = w->sess.stop_ns;
		}
		ti.has_max_events_per_nc = 1;
		ti.max_events_per_nc = w->sess.max_events;
		for (i = 0; i < NPROF_MAX_CORES; i++)
			if (w->sess.capture_nc[i])
				captured[ncap++] = (uint32_t)i;
		ti.n_captured_cores = ncap;
		ti.captured_cores = captured;
	}
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	ti.has_sync_monotonic_ns = 1;
	ti.sync_monotonic_ns = (uint64_t)mono.tv_sec * 1000000000ULL + (uint64_t)mono.tv_nsec;
	ti.has_sync_realtime_ns = 1;
	ti.sync_realtime_ns = (uint64_t)real.tv_sec * 1000000000ULL + (uint64_t)real.tv_nsec;
	ti.has_overwritten_total = 1;
	ti.overwritten_total = total_ow;
	ti.producer = w->producer;
	if (w->sess.worker_gid >= 0) {
		ti.has_worker_global_id = 1;
		ti.worker_global_id = (uint32_t)w->sess.worker_gid;
	}
	ret = put_message(&w->f[F_TRACE_INFO], &ti.base);
	free(rings);
	free(ring_ptrs);
	return ret;
}

/* ---- cpu_util.pb and host_mem.pb ------------------------------------------------------- */

static void fill_core_util(const struct nprof_cpu_util *u, bool aggregate,
			   Neuronprof__System__CpuCoreUtil *c)
{
	neuronprof__system__cpu_core_util__init(c);
	if (!aggregate) {
		c->has_cpu = 1;
		c->cpu = u->cpu;
	}
	c->has_util_pct = c->has_user_pct = c->has_system_pct = 1;
	c->has_iowait_pct = c->has_steal_pct = 1;
	c->has_total_ticks = c->has_busy_ticks = 1;
	c->util_pct = u->util_pct;
	c->user_pct = u->user_pct;
	c->system_pct = u->system_pct;
	c->iowait_pct = u->iowait_pct;
	c->steal_pct = u->steal_pct;
	c->total_ticks = u->total_ticks;
	c->busy_ticks = u->busy_ticks;
}

/*
 * The monitor's samples for one host file, read before its message is
 * built: its statistics, and the kept samples that have the file's part
 * (CPU figures for cpu_util.pb, with up to @per rows each in @cpus, and
 * @s[i].ncpus the rows stored; memory figures for host_mem.pb). No
 * monitor means no samples and no statistics.
 */
struct host_samples {
	struct nprof_monitor_stats ms;
	struct nprof_monitor_sample *s;
	struct nprof_cpu_util *cpus;	/* per rows a sample */
	size_t n, per;
};

static void host_samples_free(struct host_samples *hs)
{
	free(hs->s);
	free(hs->cpus);
}

static int host_samples_get(const struct writer *w, bool cpu, struct host_samples *hs)
{
	size_t count, i;
	int ret, n;

	memset(hs, 0, sizeof(*hs));
	hs->ms.size = sizeof(hs->ms);
	if (!w->mon)
		return 0;
	ret = nprof_monitor_get_stats(w->mon, &hs->ms);
	if (ret)
		return ret;
	n = nprof_monitor_sample_count(w->mon);
	if (n <= 0)
		return n;
	count = (size_t)n;
	hs->per = cpu ? (hs->ms.ncpus ? hs->ms.ncpus : 1) : 0;
	hs->s = calloc(count, sizeof(*hs->s));
	hs->cpus = calloc(cpu ? count * hs->per : 1, sizeof(*hs->cpus));
	if (!hs->s || !hs->cpus) {
		ret = nprof_err(ENOMEM, "cannot allocate %zu %s samples", count,
				cpu ? "CPU" : "memory");
		goto fail;
	}
	for (i = 0; i < count; i++) {
		struct nprof_monitor_sample *s = &hs->s[hs->n];

		n = nprof_monitor_get_sample(w->mon, i, s, &hs->cpus[hs->n * hs->per], hs->per);
		if (n < 0) {
			ret = n;
			goto fail;
		}
		if (!(cpu ? s->has_cpu : s->has_mem))
			continue;
		s->ncpus = (uint32_t)((size_t)n < hs->per ? (size_t)n : hs->per);
		hs->n++;
	}
	return 0;
fail:
	host_samples_free(hs);
	return ret;
}

/*
 * The members cpu_util and host_mem share (generated structs of two
 * types): who wrote the file and, with a monitor, its sampling.
 */
#define SET_HOST_HEADER(m, w, ms)						\
	do {									\
		(m).instance_id = (char *)(w)->instance_id;			\
		(m).has_pid = 1;						\
		(m).pid = (w)->pid;						\
		(m).clock_domain = "CLOCK_MONOTONIC";				\
		if ((w)->mon) {							\
			(m).has_period_ms = (m).has_effective_period_ms = 1;	\
			(m).has_decimations = 1;				\
			(m).period_ms = (ms).period_ms;				\
			(m).effective_period_ms = (ms).effective_period_ms;	\
			(m).decimations = (uint32_t)(ms).decimations;		\
		}								\
	} while (0)

/*
 * A repeated message field's storage, which protobuf-c wants as an array of
 * pointers: @ptrs (of type T **) set to @n pointers followed, in the same
 * zeroed block, by the @n messages they point at; NULL if it cannot be had.
 * One free() releases it.
 */
#define ALLOC_REPEATED(ptrs, n)							\
	do {									\
		size_t n_ = (n), i_;						\
		__typeof__(ptrs) p_ = calloc(1, n_ * (sizeof(*p_) + sizeof(**p_)) + 1); \
										\
		for (i_ = 0; p_ && i_ < n_; i_++)				\
			p_[i_] = (__typeof__(*p_))(p_ + n_) + i_;		\
		(ptrs) = p_;							\
	} while (0)

static int write_cpu_util(struct writer *w)
{
	Neuronprof__System__CpuCoreUtil **utils = NULL, *totals = NULL;
	Neuronprof__System__CpuUtilSample **samples = NULL;
	Neuronprof__System__CpuUtil cu;
	struct host_samples hs;
	size_t used = 0, i, k;
	int ret;

	ret = host_samples_get(w, true, &hs);
	if (ret)
		return ret;
	neuronprof__system__cpu_util__init(&cu);
	SET_HOST_HEADER(cu, w, hs.ms);
	if (w->mon) {
		cu.has_num_cpus = 1;
		cu.num_cpus = hs.ms.ncpus;
	}
	ALLOC_REPEATED(samples, hs.n);
	ALLOC_REPEATED(utils, hs.n * hs.per);
	totals = calloc(hs.n + 1, sizeof(*totals));
	if (!samples || !utils || !totals) {
		ret = nprof_err(ENOMEM, "cannot allocate %zu CPU samples", hs.n);
		goto out;
	}
	for (i = 0; i < hs.n; i++) {
		const struct nprof_monitor_sample *s = &hs.s[i];
		Neuronprof__System__CpuUtilSample *ps = samples[i];

		neuronprof__system__cpu_util_sample__init(ps);
		ps->has_ts_ns = ps->has_interval_ns = 1;
		ps->ts_ns = s->ts_ns;
		ps->interval_ns = s->interval_ns;
		fill_core_util(&s->total, true, &totals[i]);
		ps->total = &totals[i];
		ps->cpus = &utils[used];
		for (k = 0; k < s->ncpus; k++)
			fill_core_util(&hs.cpus[i * hs.per + k], false, utils[used++]);
		ps->n_cpus = s->ncpus;
	}
	cu.n_samples = hs.n;
	cu.samples = samples;
	ret = put_message(&w->f[F_CPU_UTIL], &cu.base);
out:
	free(samples);
	free(utils);
	free(totals);
	host_samples_free(&hs);
	return ret;
}

static int write_host_mem(struct writer *w)
{
	Neuronprof__System__HostMemSample **samples = NULL;
	Neuronprof__System__HostMem hm;
	struct host_samples hs;
	size_t i;
	int ret;

	ret = host_samples_get(w, false, &hs);
	if (ret)
		return ret;
	neuronprof__system__host_mem__init(&hm);
	SET_HOST_HEADER(hm, w, hs.ms);
	ALLOC_REPEATED(samples, hs.n);
	if (!samples) {
		ret = nprof_err(ENOMEM, "cannot allocate %zu memory samples", hs.n);
		goto out;
	}
	for (i = 0; i < hs.n; i++) {
		const struct nprof_mem_usage *mem = &hs.s[i].mem;
		Neuronprof__System__HostMemSample *p = samples[i];

		neuronprof__system__host_mem_sample__init(p);
		p->has_ts_ns = 1;
		p->ts_ns = hs.s[i].ts_ns;
		p->has_host_total_bytes = p->has_host_available_bytes = p->has_host_used_bytes = 1;
		p->has_host_free_bytes = p->has_host_buffers_bytes = p->has_host_cached_bytes = 1;
		p->has_swap_total_bytes = p->has_swap_free_bytes = 1;
		p->has_process_rss_bytes = p->has_process_hwm_bytes = p->has_process_vm_bytes = 1;
		p->host_total_bytes = mem->host_total;
		p->host_available_bytes = mem->host_available;
		p->host_used_bytes = mem->host_used;
		p->host_free_bytes = mem->host_free;
		p->host_buffers_bytes = mem->host_buffers;
		p->host_cached_bytes = mem->host_cached;
		p->swap_total_bytes = mem->swap_total;
		p->swap_free_bytes = mem->swap_free;
		p->process_rss_bytes = mem->process_rss;
		p->process_hwm_bytes = mem->process_hwm;
		p->process_vm_bytes = mem->process_vm;
	}
	hm.n_samples = hs.n;
	hm.samples = samples;
	ret = put_message(&w->f[F_HOST_MEM], &hm.base);
out:
	free(samples);
	host_samples_free(&hs);
	return ret;
}

/* ---- entry points ---------------------------------------------------------------------------- */

static int check_opts(const struct nprof_system_profile_opts *o)
{
	if (nprof_sized_valid(o, sizeof(*o), sizeof(*o), NPROF_SIZED_IN, "system profile options"))
		return -EINVAL;
	if (o->files & ~NPROF_SYSPROF_ALL)
		return nprof_err(EINVAL, "unknown system profile files %#x", o->files & ~NPROF_SYSPROF_ALL);
	if (o->reserved)
		return nprof_err(EINVAL, "system profile options: reserved field is %#x, not 0",
				 o->reserved);
	if (o->instance_id && (!*o->instance_id || strlen(o->instance_id) > NPROF_INSTANCE_ID_MAX))
		return nprof_err(EINVAL, "instance id must be 1 to %d bytes long",
				 NPROF_INSTANCE_ID_MAX);
	return 0;
}

NPROF_API int nprof_system_profile_writeat(int dirfd, const struct nprof_system_profile_opts *opts)
{
	static int (*const writers[F_COUNT])(struct writer *) = {
		[F_NTRACE] = write_ntrace,
		[F_TRACE_INFO] = write_trace_info,
		[F_CPU_UTIL] = write_cpu_util,
		[F_HOST_MEM] = write_host_mem,
	};
	struct nprof_system_profile_opts def = { .size = sizeof(def) };
	char instance[NPROF_INSTANCE_ID_MAX + 1];
	unsigned int files;
	struct writer w;
	int ret = 0, i;

	if (!opts)
		opts = &def;
	ret = check_opts(opts);
	if (ret)
		return ret;
	if (dirfd < 0)
		return nprof_err(EBADF, "system profile directory descriptor %d is invalid", dirfd);
	files = opts->files ? opts->files : NPROF_SYSPROF_ALL;

	memset(&w, 0, sizeof(w));
	for (i = 0; i < F_COUNT; i++)
		w.f[i].fd = -1;
	w.dirfd = dirfd;
	w.mon = opts->monitor;
	w.pid = (uint32_t)getpid();
	nprof_st_session_get(&w.sess);
	if (opts->instance_id) {
		w.instance_id = opts->instance_id;
	} else if (w.sess.started) {
		w.instance_id = w.sess.instance_id;
	} else {
		if (nprof_output_instance_id(NULL, instance, sizeof(instance)) < 0)
			snprintf(instance, sizeof(instance), "unknown");
		w.instance_id = instance;
	}
	w.session_init_ns = opts->session_init_ns ? opts->session_init_ns : w.sess.start_real_ns;
	snprintf(w.producer, sizeof(w.producer), "libneuronprof %s", nprof_version_string());

	for (i = 0; i < F_COUNT && !ret; i++) {
		if (!(files & (1u << i)))
			continue;
		ret = file_open(&w, &w.f[i], file_names[i]);
		if (!ret)
			ret = writers[i](&w);
		if (!ret)
			ret = file_finish(&w.f[i]);
	}
	for (i = 0; i < F_COUNT && !ret; i++) {
		struct out_file *f = &w.f[i];

		if (f->fd < 0)
			continue;
		/* Renamed over a regular file, written into a device or FIFO, through a link. */
		ret = nprof_tmpfile_place(f->fd, dirfd, f->tmp, dirfd, f->name, false, f->name,
					  NULL);
	}
	for (i = 0; i < F_COUNT; i++)
		file_cleanup(&w, &w.f[i]);
	return ret;
}

NPROF_API int nprof_system_profile_write(const char *dir, const struct nprof_system_profile_opts *opts)
{
	int fd, ret;

	if (!dir)
		return nprof_err(EINVAL, "system profile directory is NULL");
	fd = nprof_dir_open(dir);
	if (fd < 0)
		return fd;
	ret = nprof_system_profile_writeat(fd, opts);
	close(fd);
	return ret;
}
