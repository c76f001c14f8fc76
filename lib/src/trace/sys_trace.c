// SPDX-License-Identifier: MIT
/*
 * The host system trace: one bounded event ring per core plus one for
 * events not tied to a core (Documentation/sys_trace.rst).
 *
 * Design, and why:
 *  - The hot path (record) must cost about one clock_gettime(). It checks
 *    the filter with two plain loads first (an inactive trace has an empty
 *    type mask, so "off" costs the same as "filtered"), then takes the
 *    ring's spinlock, writes one 128-byte slot and releases it: one atomic
 *    exchange and one release store. No allocation, no system call: the
 *    thread id is cached in TLS and the pid in a global refreshed at fork.
 *  - A spinlock per ring rather than a lock-free claim: it makes the
 *    overwrite count exact at the moment of the overwrite, lets readers
 *    take events out in order without racing a writer on the same slot,
 *    and makes ring teardown safe (a writer touches slots only under the
 *    lock, after checking the ring still has them). Writers of different
 *    cores never share a lock or a cache line; critical sections are a
 *    handful of stores, so contention on one core only costs spinning for
 *    that long (after a while, the waiter yields the CPU).
 *  - Positions are 64-bit counters: head counts events recorded, tail is
 *    the oldest pending event; head - tail <= capacity. The write index
 *    wraps without a division. When the ring is full the oldest pending
 *    event is overwritten: tail moves on and the overwrite is counted.
 *  - Slots are reserved with mmap(MAP_NORESERVE) at start, for captured
 *    cores only, so a large default (1000000 events per core) costs address
 *    space, not memory, until events arrive.
 *
 * This file: the rings, start/stop/release, recording and reading;
 * sys_trace_intern.c interns the strings of attributes, sys_trace_fetch.c
 * writes the pending events as JSON, sys_trace_profile.c the system profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/internal.h"
#include "util/json.h"
#include "trace/sys_trace_internal.h"

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* ID layout: ring index above bit 40, per-ring sequence number below. */
#define ST_ID_SHIFT	40

/* Marker nprof_sys_trace_begin() leaves in ev->reserved for a filtered event. */
#define ST_BEGIN_SKIPPED	NPROF_TP_SKIPPED


/* Spins before a waiter starts yielding the CPU. */
#define ST_SPINS	1024

struct st_attr {
	const char *key;
	uint64_t v;		/* the union's bits */
};

/* One event in a ring: two cache lines. */
struct st_slot {
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t model_id;
	uint64_t flow_id;
	uint32_t pid;
	uint32_t tid;
	uint8_t type;
	uint8_t source;
	uint8_t flags;
	uint8_t nattrs;
	uint8_t attr_type[NPROF_SYS_TRACE_MAX_ATTRS];
	struct st_attr attr[NPROF_SYS_TRACE_MAX_ATTRS];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct st_slot) == 128, "a slot is two cache lines");
_Static_assert(NPROF_SYS_TRACE_EVENT_COUNT <= 64 && NPROF_SYS_TRACE_EVENT_COUNT <= 255,
	       "event types fit the mask and a byte");

struct st_ring {
	atomic_uint lock;
	uint32_t cap;		/* events; 0: no ring (core not captured) */
	uint32_t w;		/* next slot to write */
	uint32_t reserved;
	struct st_slot *slots;
	size_t map_len;
	uint64_t head;		/* events recorded since start */
	uint64_t tail;		/* position of the oldest pending event */
	uint64_t overwritten;
} __attribute__((aligned(64)));

static struct st_ring rings[NPROF_ST_RINGS];

static _Atomic uint32_t st_pid;
static atomic_bool st_active;
static _Atomic int64_t st_worker_gid = -1;
static __thread uint32_t st_tid __attribute__((tls_model("initial-exec")));

/* Control state: start/stop/release and the session description. */
static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nprof_st_session sess;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static const char *const source_names[NPROF_SYS_TRACE_SRC_COUNT] = {
	[NPROF_SYS_TRACE_SRC_NEURON_RT] = "neuron_rt",
	[NPROF_SYS_TRACE_SRC_NEURON_HW] = "neuron_hw",
	[NPROF_SYS_TRACE_SRC_FRAMEWORK] = "framework",
};

/* ---- ring lock ------------------------------------------------------------ */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

static void __attribute__((noinline)) ring_lock_slow(struct st_ring *r)
{
	unsigned int spins = 0;

	do {
		while (atomic_load_explicit(&r->lock, memory_order_relaxed)) {
			/* The holder may be preempted: stop burning its CPU. */
			if (++spins > ST_SPINS)
				sched_yield();
			else
				cpu_relax();
		}
	} while (atomic_exchange_explicit(&r->lock, 1, memory_order_acquire));
}

static inline void ring_lock(struct st_ring *r)
{
	if (likely(!atomic_exchange_explicit(&r->lock, 1, memory_order_acquire)))
		return;
	ring_lock_slow(r);
}

static inline void ring_unlock(struct st_ring *r)
{
	atomic_store_explicit(&r->lock, 0, memory_order_release);
}

/*
 * Set while this thread saves profiling data from a fatal-signal handler
 * (crash.c). The signal may have interrupted this very thread inside a ring
 * lock, which it would then wait for forever: in that context the paths a
 * harvest takes (recording the library's own events, draining, statistics)
 * try the lock a bounded number of times and give up, losing that event or
 * those pending events rather than hanging the process.
 */
static _Thread_local bool st_in_signal;

void nprof_st_set_signal_context(bool on)
{
	st_in_signal = on;
}

/* Tests only: take ring @core's lock and keep it, as interrupted code would. */
void nprof_st_test_hold_ring_lock(uint32_t core)
{
	if (core <= NPROF_SYS_TRACE_NO_CORE)
		ring_lock(&rings[core]);
}

/* ring_lock(), except that in a signal handler it may fail: false then. */
static inline bool ring_lock_harvest(struct st_ring *r)
{
	unsigned int spins;

	if (likely(!atomic_exchange_explicit(&r->lock, 1, memory_order_acquire)))
		return true;
	if (!st_in_signal) {
		ring_lock_slow(r);
		return true;
	}
	for (spins = 0; spins < ST_SPINS; spins++) {
		cpu_relax();
		if (!atomic_load_explicit(&r->lock, memory_order_relaxed) &&
		    !atomic_exchange_explicit(&r->lock, 1, memory_order_acquire))
			return true;
	}
	return false;
}

/* ---- identity -------------------------------------------------------------- */

static inline uint32_t cur_tid(void)
{
	uint32_t t = st_tid;

	if (unlikely(!t))
		st_tid = t = (uint32_t)syscall(SYS_gettid);
	return t;
}

/*
 * Fork: hold every lock across it, so the child never inherits one held by
 * a thread that does not exist there; the child gets its own pid and its
 * only thread's id.
 */
static void atfork_prepare(void)
{
	size_t i;

	pthread_mutex_lock(&ctl_lock);
	for (i = 0; i < NPROF_ST_RINGS; i++)
		ring_lock(&rings[i]);
}

static void atfork_parent(void)
{
	size_t i;

	for (i = 0; i < NPROF_ST_RINGS; i++)
		ring_unlock(&rings[NPROF_ST_RINGS - 1 - i]);
	pthread_mutex_unlock(&ctl_lock);
}

static void atfork_child(void)
{
	st_tid = 0;
	atomic_store_explicit(&st_pid, (uint32_t)getpid(), memory_order_relaxed);
	sess.pid = (uint32_t)getpid();
	atfork_parent();
}

static void register_atfork(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- control ----------------------------------------------------------------- */

static void *map_slots(uint64_t cap, size_t *len)
{
	void *p;

	*len = (size_t)cap * sizeof(struct st_slot);
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* The recorder handed down to the device and capture layers (trace/base/tracepoint.h). */
static const struct nprof_tracepoint_ops st_tracepoint_ops;

static void set_masks(uint64_t type_mask, const uint8_t *capture)
{
	uint64_t words[NPROF_ST_MASK_WORDS] = { 0 };
	size_t i;

	if (capture) {
		for (i = 0; i < NPROF_MAX_CORES; i++)
			if (capture[i])
				words[i >> 6] |= 1ULL << (i & 63);
		words[NPROF_SYS_TRACE_NO_CORE >> 6] |= 1ULL << (NPROF_SYS_TRACE_NO_CORE & 63);
	}
	/* Before any filter bit: a trace point that passes the filter finds the recorder. */
	if (type_mask)
		nprof_tp_install(&st_tracepoint_ops);
	for (i = 0; i < NPROF_ST_MASK_WORDS; i++)
		atomic_store_explicit(&nprof_st_core_mask[i], words[i], memory_order_relaxed);
	/* Publishes the rings and core bits to writers that see the type bits. */
	atomic_store_explicit(&nprof_st_type_mask, type_mask, memory_order_release);
}

NPROF_API int nprof_sys_trace_start(const struct nprof_sys_trace_config *cfg)
{
	struct st_slot *fresh[NPROF_ST_RINGS] = { NULL };
	size_t fresh_len[NPROF_ST_RINGS] = { 0 };
	struct st_slot *old[NPROF_ST_RINGS] = { NULL };
	size_t old_len[NPROF_ST_RINGS] = { 0 };
	uint64_t max;
	size_t i;
	int ret = 0;

	if (!cfg)
		return nprof_err(EINVAL, "system-trace config is NULL");
	max = cfg->max_events_per_nc;
	if (max < 1 || max > NPROF_SYS_TRACE_MAX_EVENTS_LIMIT)
		return nprof_err(EINVAL, "max events per core %" PRIu64 " is out of range [1, %llu]",
				 max, NPROF_SYS_TRACE_MAX_EVENTS_LIMIT);
	pthread_once(&atfork_once, register_atfork);
	/* Decide the clock (and calibrate it) now, not at the first event. */
	nprof_sys_trace_clock(NULL, 0);

	pthread_mutex_lock(&ctl_lock);
	if (sess.active) {
		ret = nprof_err(EBUSY, "the system trace is already active");
		goto out;
	}
	/* Reserve every new ring before touching the old ones: all or nothing. */
	for (i = 0; i < NPROF_ST_RINGS; i++) {
		bool want = i == NPROF_SYS_TRACE_NO_CORE || cfg->capture_nc[i];

		if (!want || rings[i].cap == max)
			continue;
		fresh[i] = map_slots(max, &fresh_len[i]);
		if (!fresh[i]) {
			ret = nprof_err(ENOMEM,
					"cannot reserve %zu MiB for the system-trace ring of %s %zu (%" PRIu64
					" events of %zu bytes): %s",
					fresh_len[i] >> 20, i == NPROF_SYS_TRACE_NO_CORE ? "ring" : "core",
					i, max, sizeof(struct st_slot), strerror(errno));
			while (i--)
				if (fresh[i])
					munmap(fresh[i], fresh_len[i]);
			goto out;
		}
	}
	for (i = 0; i < NPROF_ST_RINGS; i++) {
		struct st_ring *r = &rings[i];
		bool want = i == NPROF_SYS_TRACE_NO_CORE || cfg->capture_nc[i];

		ring_lock(r);
		if (fresh[i] || (!want && r->slots)) {
			old[i] = r->slots;
			old_len[i] = r->map_len;
			r->slots = fresh[i];
			r->map_len = fresh_len[i];
		}
		r->cap = want ? (uint32_t)max : 0;
		r->w = 0;
		r->head = r->tail = r->overwritten = 0;
		ring_unlock(r);
	}
	for (i = 0; i < NPROF_ST_RINGS; i++)
		if (old[i])
			munmap(old[i], old_len[i]);

	atomic_store_explicit(&st_pid, (uint32_t)getpid(), memory_order_relaxed);
	sess.pid = (uint32_t)getpid();
	sess.max_events = max;
	sess.type_mask = cfg->event_type_mask & NPROF_SYS_TRACE_ALL_MASK;
	memcpy(sess.capture_nc, cfg->capture_nc, sizeof(sess.capture_nc));
	if (nprof_output_instance_id(NULL, sess.instance_id, sizeof(sess.instance_id)) < 0) {
		nprof_log(NPROF_LOG_DEBUG, "system trace: no instance id (%s), using \"unknown\"",
			  nprof_strerror_last());
		snprintf(sess.instance_id, sizeof(sess.instance_id), "unknown");
	}
	sess.start_real_ns = clock_ns(CLOCK_REALTIME);
	sess.start_ns = clock_ns(CLOCK_MONOTONIC);
	sess.stop_ns = 0;
	sess.started = true;
	sess.active = true;
	set_masks(sess.type_mask, sess.capture_nc);
	atomic_store(&st_active, true);
out:
	pthread_mutex_unlock(&ctl_lock);
	return ret;
}

NPROF_API int nprof_sys_trace_stop(void)
{
	int ret = 0;

	pthread_mutex_lock(&ctl_lock);
	if (!sess.active) {
		ret = nprof_err(EALREADY, "the system trace is not active");
	} else {
		set_masks(0, NULL);
		sess.active = false;
		atomic_store(&st_active, false);
		sess.stop_ns = clock_ns(CLOCK_MONOTONIC);
	}
	pthread_mutex_unlock(&ctl_lock);
	return ret;
}

NPROF_API int nprof_sys_trace_is_active(void)
{
	return atomic_load_explicit(&st_active, memory_order_relaxed);
}

NPROF_API int nprof_sys_trace_release(void)
{
	size_t i;
	int ret = 0;

	pthread_mutex_lock(&ctl_lock);
	if (sess.active) {
		ret = nprof_err(EBUSY, "the system trace is active; stop it before releasing it");
		goto out;
	}
	for (i = 0; i < NPROF_ST_RINGS; i++) {
		struct st_ring *r = &rings[i];
		struct st_slot *slots;
		size_t len;

		ring_lock(r);
		slots = r->slots;
		len = r->map_len;
		r->slots = NULL;
		r->map_len = 0;
		r->cap = r->w = 0;
		r->head = r->tail = r->overwritten = 0;
		ring_unlock(r);
		if (slots)
			munmap(slots, len);
	}
	sess.started = false;
out:
	pthread_mutex_unlock(&ctl_lock);
	return ret;
}

NPROF_API int nprof_sys_trace_set_worker_global_id(int64_t gid)
{
	if (gid < -1 || gid > (int64_t)UINT32_MAX)
		return nprof_err(EINVAL, "worker global id %" PRId64 " is out of range [-1, %u]", gid,
				 UINT32_MAX);
	atomic_store_explicit(&st_worker_gid, gid, memory_order_relaxed);
	return 0;
}

void nprof_st_session_get(struct nprof_st_session *s)
{
	pthread_mutex_lock(&ctl_lock);
	*s = sess;
	pthread_mutex_unlock(&ctl_lock);
	s->worker_gid = atomic_load_explicit(&st_worker_gid, memory_order_relaxed);
}

NPROF_API const char *nprof_sys_trace_source_name(uint32_t source)
{
	if (source >= NPROF_SYS_TRACE_SRC_COUNT)
		return nprof_err_ptr(EINVAL, "unknown system-trace event source %u", source);
	return source_names[source];
}

/* ---- recording ------------------------------------------------------------------ */

static int bad_scalar(uint32_t type, uint32_t source, uint32_t core, uint64_t start_ns,
		      uint64_t end_ns)
{
	if (type >= NPROF_SYS_TRACE_EVENT_COUNT)
		return nprof_err(EINVAL, "unknown system-trace event type %u", type);
	if (source >= NPROF_SYS_TRACE_SRC_COUNT)
		return nprof_err(EINVAL, "unknown system-trace event source %u", source);
	if (core > NPROF_SYS_TRACE_NO_CORE)
		return nprof_err(EINVAL, "core index %u is out of range [0, %d] (or %d for no core)",
				 core, NPROF_MAX_CORES - 1, NPROF_SYS_TRACE_NO_CORE);
	if (end_ns < start_ns)
		return nprof_err(EINVAL, "event ends (%" PRIu64 " ns) before it starts (%" PRIu64 " ns)",
				 end_ns, start_ns);
	return 0;
}

static inline bool scalars_ok(uint32_t type, uint32_t source, uint32_t core, uint64_t start_ns,
			      uint64_t end_ns)
{
	return type < NPROF_SYS_TRACE_EVENT_COUNT && source < NPROF_SYS_TRACE_SRC_COUNT &&
	       core <= NPROF_SYS_TRACE_NO_CORE && end_ns >= start_ns;
}

/* Take the next slot of @r; the caller fills it and calls ring_commit(). */
static inline struct st_slot *ring_claim(struct st_ring *r)
{
	if (unlikely(!ring_lock_harvest(r)))
		return NULL;
	if (unlikely(!r->cap)) {
		ring_unlock(r);
		return NULL;
	}
	return &r->slots[r->w];
}

static inline void ring_commit(struct st_ring *r)
{
	r->w = r->w + 1 == r->cap ? 0 : r->w + 1;
	r->head++;
	if (r->head - r->tail > r->cap) {
		r->tail++;
		r->overwritten++;
	}
	ring_unlock(r);
}

NPROF_API int nprof_sys_trace_record(uint32_t type, uint32_t source, uint32_t core,
				     uint64_t start_ns, uint64_t end_ns)
{
	struct st_ring *r;
	struct st_slot *s;
	uint32_t pid, tid;

	if (unlikely(!scalars_ok(type, source, core, start_ns, end_ns)))
		return bad_scalar(type, source, core, start_ns, end_ns);
	if (!nprof_st_wanted(type, core))
		return 0;
	pid = atomic_load_explicit(&st_pid, memory_order_relaxed);
	tid = cur_tid();
	r = &rings[core];
	s = ring_claim(r);
	if (unlikely(!s))
		return 0;
	s->start_ns = start_ns;
	s->end_ns = end_ns;
	s->pid = pid;
	s->tid = tid;
	s->type = (uint8_t)type;
	s->source = (uint8_t)source;
	s->flags = 0;
	s->nattrs = 0;
	ring_commit(r);
	return 1;
}

static int bad_event(const struct nprof_sys_trace_event *ev)
{
	uint32_t i;
	int ret;

	ret = bad_scalar(ev->type, ev->source, ev->core, ev->start_ns, ev->end_ns);
	if (ret)
		return ret;
	if (ev->flags & ~NPROF_SYS_TRACE_F_ALL)
		return nprof_err(EINVAL, "unknown system-trace event flags %#x",
				 ev->flags & ~NPROF_SYS_TRACE_F_ALL);
	if (ev->reserved)
		return nprof_err(EINVAL, "reserved field of a system-trace event is %#x, not 0",
				 ev->reserved);
	if (ev->nattrs > NPROF_SYS_TRACE_MAX_ATTRS)
		return nprof_err(EINVAL, "%u attributes, at most %d are allowed", ev->nattrs,
				 NPROF_SYS_TRACE_MAX_ATTRS);
	if (ev->nattrs && !ev->attrs)
		return nprof_err(EINVAL, "%u attributes but the attribute array is NULL", ev->nattrs);
	for (i = 0; i < ev->nattrs; i++) {
		const struct nprof_sys_trace_attr *a = &ev->attrs[i];

		if (!a->key)
			return nprof_err(EINVAL, "attribute %u has no key", i);
		if (a->type < NPROF_SYS_TRACE_ATTR_INT || a->type > NPROF_SYS_TRACE_ATTR_STR)
			return nprof_err(EINVAL, "attribute '%s' has unknown type %u", a->key, a->type);
		if (a->reserved)
			return nprof_err(EINVAL, "attribute '%s': reserved field is %#x, not 0", a->key,
					 a->reserved);
		if (a->type == NPROF_SYS_TRACE_ATTR_STR && !a->v.s)
			return nprof_err(EINVAL, "attribute '%s' is a string but its value is NULL",
					 a->key);
	}
	return 0;
}

static inline bool event_ok(const struct nprof_sys_trace_event *ev)
{
	uint32_t i;

	if (!scalars_ok(ev->type, ev->source, ev->core, ev->start_ns, ev->end_ns) ||
	    (ev->flags & ~NPROF_SYS_TRACE_F_ALL) || ev->reserved ||
	    ev->nattrs > NPROF_SYS_TRACE_MAX_ATTRS || (ev->nattrs && !ev->attrs))
		return false;
	for (i = 0; i < ev->nattrs; i++) {
		const struct nprof_sys_trace_attr *a = &ev->attrs[i];

		if (!a->key || a->type < NPROF_SYS_TRACE_ATTR_INT || a->type > NPROF_SYS_TRACE_ATTR_STR ||
		    a->reserved || (a->type == NPROF_SYS_TRACE_ATTR_STR && !a->v.s))
			return false;
	}
	return true;
}

NPROF_API int nprof_sys_trace_record_event(const struct nprof_sys_trace_event *ev)
{
	struct st_ring *r;
	struct st_slot *s;
	uint32_t pid, tid, i;

	if (unlikely(!ev))
		return nprof_err(EINVAL, "system-trace event is NULL");
	if (unlikely(!event_ok(ev)))
		return bad_event(ev);
	if (!nprof_st_wanted(ev->type, ev->core))
		return 0;
	pid = atomic_load_explicit(&st_pid, memory_order_relaxed);
	tid = cur_tid();
	r = &rings[ev->core];
	s = ring_claim(r);
	if (unlikely(!s))
		return 0;
	s->start_ns = ev->start_ns;
	s->end_ns = ev->end_ns;
	s->model_id = ev->model_id;
	s->flow_id = ev->flow_id;
	s->pid = pid;
	s->tid = tid;
	s->type = (uint8_t)ev->type;
	s->source = (uint8_t)ev->source;
	s->flags = (uint8_t)ev->flags;
	s->nattrs = (uint8_t)ev->nattrs;
	for (i = 0; i < ev->nattrs; i++) {
		s->attr_type[i] = (uint8_t)ev->attrs[i].type;
		s->attr[i].key = ev->attrs[i].key;
		memcpy(&s->attr[i].v, &ev->attrs[i].v, sizeof(s->attr[i].v));
	}
	ring_commit(r);
	return 1;
}

NPROF_API int nprof_sys_trace_begin(struct nprof_sys_trace_event *ev, uint32_t type,
				    uint32_t source, uint32_t core)
{
	int ret;

	if (!ev)
		return nprof_err(EINVAL, "system-trace event is NULL");
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->source = source;
	ev->core = core;
	if (unlikely(!scalars_ok(type, source, core, 0, 0))) {
		ret = bad_scalar(type, source, core, 0, 0);
		ev->reserved = ST_BEGIN_SKIPPED;
		return ret;
	}
	if (!nprof_st_wanted(type, core)) {
		ev->reserved = ST_BEGIN_SKIPPED;
		return 0;
	}
	ev->start_ns = nprof_sys_trace_now();
	return 1;
}

NPROF_API int nprof_sys_trace_end(struct nprof_sys_trace_event *ev)
{
	if (!ev)
		return nprof_err(EINVAL, "system-trace event is NULL");
	if (ev->reserved == ST_BEGIN_SKIPPED)
		return 0;
	ev->end_ns = nprof_sys_trace_now();
	return nprof_sys_trace_record_event(ev);
}

static const struct nprof_tracepoint_ops st_tracepoint_ops = {
	.begin = nprof_sys_trace_begin,
	.end = nprof_sys_trace_end,
	.record = nprof_sys_trace_record_event,
	.intern = nprof_st_intern,
};

/* ---- reading ---------------------------------------------------------------------- */

static void slot_to_record(const struct st_slot *s, uint32_t ring, uint64_t pos,
			   struct nprof_sys_trace_record *rec)
{
	uint32_t i;

	memset(rec, 0, sizeof(*rec));
	rec->id = ((uint64_t)ring << ST_ID_SHIFT) | (pos + 1);
	rec->start_ns = s->start_ns;
	rec->end_ns = s->end_ns;
	rec->flags = s->flags;
	rec->model_id = (s->flags & NPROF_SYS_TRACE_F_MODEL_ID) ? s->model_id : 0;
	rec->flow_id = (s->flags & NPROF_SYS_TRACE_F_FLOW_ID) ? s->flow_id : 0;
	rec->type = s->type;
	rec->source = s->source;
	rec->core = ring;
	rec->pid = s->pid;
	rec->tid = s->tid;
	rec->nattrs = s->nattrs;
	for (i = 0; i < s->nattrs; i++) {
		rec->attrs[i].key = s->attr[i].key;
		rec->attrs[i].type = s->attr_type[i];
		memcpy(&rec->attrs[i].v, &s->attr[i].v, sizeof(rec->attrs[i].v));
	}
}

/* Take up to @max oldest events of ring @core; one lock hold. */
size_t nprof_st_ring_take(uint32_t core, struct nprof_sys_trace_record *out, size_t max)
{
	struct st_ring *r = &rings[core];
	uint64_t pending;
	uint32_t idx;
	size_t n, i;

	if (!ring_lock_harvest(r))
		return 0;
	pending = r->head - r->tail;
	n = pending < max ? (size_t)pending : max;
	if (!r->cap || !n) {
		ring_unlock(r);
		return 0;
	}
	/* The oldest pending event sits @pending slots behind the write index. */
	idx = r->w >= pending ? r->w - (uint32_t)pending : r->w + r->cap - (uint32_t)pending;
	for (i = 0; i < n; i++) {
		slot_to_record(&r->slots[idx], core, r->tail + i, &out[i]);
		idx = idx + 1 == r->cap ? 0 : idx + 1;
	}
	r->tail += n;
	ring_unlock(r);
	return n;
}

NPROF_API int nprof_sys_trace_drain(uint32_t core, struct nprof_sys_trace_record *out, size_t max)
{
	size_t total = 0, n;

	if (core > NPROF_SYS_TRACE_NO_CORE)
		return nprof_err(EINVAL, "core index %u is out of range [0, %d] (or %d for no core)",
				 core, NPROF_MAX_CORES - 1, NPROF_SYS_TRACE_NO_CORE);
	if (!out && max)
		return nprof_err(EINVAL, "record buffer is NULL");
	if (max > INT_MAX)
		max = INT_MAX;
	while (total < max) {
		size_t want = max - total;

		n = nprof_st_ring_take(core, out + total,
				       want < NPROF_ST_READ_CHUNK ? want : NPROF_ST_READ_CHUNK);
		if (!n)
			break;
		total += n;
	}
	return (int)total;
}

void nprof_st_ring_stats(uint32_t core, struct nprof_sys_trace_stats *st)
{
	struct st_ring *r = &rings[core];

	if (!ring_lock_harvest(r))
		return;		/* in a signal handler only: the stats stay zero */
	st->capacity = r->cap;
	st->recorded = r->head;
	st->overwritten = r->overwritten;
	st->pending = r->head - r->tail;
	st->consumed = r->tail - r->overwritten;
	ring_unlock(r);
}

NPROF_API int nprof_sys_trace_get_stats(uint32_t core, struct nprof_sys_trace_stats *stats)
{
	if (core > NPROF_SYS_TRACE_NO_CORE)
		return nprof_err(EINVAL, "core index %u is out of range [0, %d] (or %d for no core)",
				 core, NPROF_MAX_CORES - 1, NPROF_SYS_TRACE_NO_CORE);
	if (!stats)
		return nprof_err(EINVAL, "stats is NULL");
	if (NPROF_SIZED_OUT_CLEAR(stats, nprof_sys_trace_stats))
		return -EINVAL;
	nprof_st_ring_stats(core, stats);
	return 0;
}
