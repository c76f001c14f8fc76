// SPDX-License-Identifier: MIT
/*
 * The system monitor: host CPU utilisation and host/process memory,
 * sampled by a thread at a fixed period (Documentation/sys_trace.rst).
 *
 * CPU utilisation is a ratio of /proc/stat tick deltas between two
 * readings, so a sample stores the deltas of its interval rather than
 * percentages: two adjacent intervals then merge exactly by adding their
 * deltas, which is what keeps decimation (the answer to a full buffer)
 * lossless for the average utilisation of every retained interval.
 *
 * This file: the samples, their decimation, the sampling thread, fork and
 * the API; monitor_proc.c reads the /proc files.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/monitor.h>

#include "util/internal.h"
#include "trace/monitor_internal.h"

/* ---- samples ------------------------------------------------------------------------ */

static inline uint64_t sub_sat(uint64_t a, uint64_t b)
{
	/* A counter that went backwards (CPU hotplug) contributes nothing. */
	return a > b ? a - b : 0;
}

static void make_delta(const struct cpu_snap *cur, const struct cpu_snap *prev, bool first,
		       struct cpu_delta *d)
{
	static const struct cpu_snap zero;

	memset(d, 0, sizeof(*d));
	if (!cur->online || (!first && !prev->online))
		return;
	if (first)
		prev = &zero;
	d->user = sub_sat(cur->user, prev->user) + sub_sat(cur->nice, prev->nice);
	d->system = sub_sat(cur->system, prev->system) + sub_sat(cur->irq, prev->irq) +
		    sub_sat(cur->softirq, prev->softirq);
	d->idle = sub_sat(cur->idle, prev->idle);
	d->iowait = sub_sat(cur->iowait, prev->iowait);
	d->steal = sub_sat(cur->steal, prev->steal);
	d->online = true;
}

static void merge_delta(struct cpu_delta *into, const struct cpu_delta *d)
{
	into->user += d->user;
	into->system += d->system;
	into->idle += d->idle;
	into->iowait += d->iowait;
	into->steal += d->steal;
	into->online = into->online || d->online;
}

static inline struct cpu_delta *deltas_of(const struct nprof_monitor *m, uint32_t idx)
{
	return &m->deltas[(size_t)idx * (m->ncpus + 1)];
}

/*
 * The buffer is full: keep the start sample, merge the others pairwise
 * (the earlier of a pair absorbs nothing: the pair becomes one interval
 * ending at the later one's time) and double the period.
 */
static void decimate(struct nprof_monitor *m)
{
	uint32_t src = 1, dst = 1, k;

	while (src < m->count) {
		struct mon_sample s = m->samples[src];
		struct cpu_delta *d = deltas_of(m, dst);

		if (dst != src)
			memcpy(d, deltas_of(m, src), (m->ncpus + 1) * sizeof(*d));
		if (src + 1 < m->count) {
			const struct mon_sample *b = &m->samples[src + 1];
			const struct cpu_delta *bd = deltas_of(m, src + 1);

			for (k = 0; k <= m->ncpus; k++)
				merge_delta(&d[k], &bd[k]);
			s.interval_ns += b->interval_ns;
			s.ts_ns = b->ts_ns;
			s.has_cpu = s.has_cpu || b->has_cpu;
			if (b->has_mem) {
				s.mem = b->mem;
				s.has_mem = true;
			}
		}
		m->samples[dst++] = s;
		src += 2;
	}
	m->count = dst;
	m->decimations++;
	if (m->eff_period_ms <= NPROF_MONITOR_MAX_PERIOD_MS / 2)
		m->eff_period_ms *= 2;
	else
		m->eff_period_ms = NPROF_MONITOR_MAX_PERIOD_MS;
}

/* Read the files and append one sample. Called with m->lock held. */
static int take_sample(struct nprof_monitor *m, bool first)
{
	struct nprof_mem_usage mem;
	struct mon_sample *s;
	struct cpu_delta *d;
	uint64_t ts;
	uint32_t k;
	int ret;

	if (m->what & NPROF_MONITOR_CPU) {
		ret = nprof_monitor_read_stat(m, first);
		if (ret)
			goto fail;
	}
	if (m->what & NPROF_MONITOR_MEMORY) {
		ret = nprof_monitor_read_mem(m, &mem);
		if (ret)
			goto fail;
	}
	ts = nprof_mono_ns();
	if (first && (m->what & NPROF_MONITOR_CPU)) {
		/* Now the CPU count is known: size everything that depends on it. */
		m->prev = calloc(m->ncpus ? m->ncpus : 1, sizeof(*m->prev));
		m->deltas = calloc((size_t)m->max_samples * (m->ncpus + 1), sizeof(*m->deltas));
		if (!m->prev || !m->deltas || (m->ncpus && !m->cur)) {
			ret = nprof_err(ENOMEM, "cannot allocate the samples of %u CPUs", m->ncpus);
			goto fail;
		}
	} else if (first) {
		m->deltas = calloc(m->max_samples, sizeof(*m->deltas));
		if (!m->deltas) {
			ret = nprof_err(ENOMEM, "cannot allocate the monitor samples");
			goto fail;
		}
	}
	if (m->count == m->max_samples)
		decimate(m);
	s = &m->samples[m->count];
	memset(s, 0, sizeof(*s));
	s->ts_ns = ts;
	s->interval_ns = m->count ? ts - m->samples[m->count - 1].ts_ns : 0;
	d = deltas_of(m, m->count);
	memset(d, 0, (m->ncpus + 1) * sizeof(*d));
	if (m->what & NPROF_MONITOR_CPU) {
		make_delta(&m->cur_agg, &m->prev_agg, first, &d[0]);
		for (k = 0; k < m->ncpus; k++)
			make_delta(&m->cur[k], &m->prev[k], first, &d[k + 1]);
		m->prev_agg = m->cur_agg;
		memcpy(m->prev, m->cur, m->ncpus * sizeof(*m->prev));
		s->has_cpu = true;
	}
	if (m->what & NPROF_MONITOR_MEMORY) {
		s->mem = mem;
		s->has_mem = true;
	}
	m->count++;
	m->taken++;
	return 0;
fail:
	m->read_errors++;
	return ret;
}

/* ---- thread ---------------------------------------------------------------------------- */

static void add_ms(struct timespec *ts, uint32_t ms)
{
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *sampler(void *arg)
{
	struct nprof_monitor *m = arg;
	struct timespec next, now;

	pthread_mutex_lock(&m->lock);
	clock_gettime(CLOCK_MONOTONIC, &next);
	add_ms(&next, m->eff_period_ms);
	while (!m->stopping) {
		int ret = pthread_cond_timedwait(&m->cond, &m->lock, &next);

		if (m->stopping)
			break;
		if (ret != ETIMEDOUT)
			continue;	/* spurious wakeup */
		if (take_sample(m, false))
			nprof_log(NPROF_LOG_DEBUG, "monitor: sample skipped: %s", nprof_strerror_last());
		/* Keep the grid; if we fell behind (a stall), restart it from now. */
		add_ms(&next, m->eff_period_ms);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) {
			next = now;
			add_ms(&next, m->eff_period_ms);
		}
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* ---- fork --------------------------------------------------------------------------------- */

/*
 * A child forked while a sampler thread held its monitor's lock would
 * inherit the lock held by a thread it does not have, and its first stop
 * or free would wait forever. Every live monitor's lock is held across
 * fork(), as the system trace does for its rings.
 */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;	/* Protects the list. */
static struct nprof_monitor *fork_list;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_prepare(void)
{
	struct nprof_monitor *m;

	pthread_mutex_lock(&fork_lock);
	for (m = fork_list; m; m = m->fork_next)
		pthread_mutex_lock(&m->lock);
}

static void fork_done(void)
{
	struct nprof_monitor *m;

	for (m = fork_list; m; m = m->fork_next)
		pthread_mutex_unlock(&m->lock);
	pthread_mutex_unlock(&fork_lock);
}

/* The condition variable wakes the sampler of @m for stop; waits use CLOCK_MONOTONIC. */
static void cond_init(struct nprof_monitor *m)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->cond, &ca);
	pthread_condattr_destroy(&ca);
}

/*
 * The child has no sampler thread, but the condition variable it inherits
 * still counts the parent's sampler as a waiter when it was waiting at the
 * fork, and destroying it would wait for that thread forever: the child
 * starts from a fresh one.
 */
static void fork_child(void)
{
	struct nprof_monitor *m;

	for (m = fork_list; m; m = m->fork_next)
		cond_init(m);
	fork_done();
}

static void fork_register_handlers(void)
{
	pthread_atfork(fork_prepare, fork_done, fork_child);
}

static void fork_track(struct nprof_monitor *m)
{
	pthread_once(&fork_once, fork_register_handlers);
	pthread_mutex_lock(&fork_lock);
	m->fork_next = fork_list;
	if (fork_list)
		fork_list->fork_prev = m;
	fork_list = m;
	pthread_mutex_unlock(&fork_lock);
}

static void fork_untrack(struct nprof_monitor *m)
{
	pthread_mutex_lock(&fork_lock);
	if (m->fork_prev)
		m->fork_prev->fork_next = m->fork_next;
	else
		fork_list = m->fork_next;
	if (m->fork_next)
		m->fork_next->fork_prev = m->fork_prev;
	pthread_mutex_unlock(&fork_lock);
}

/* ---- API ----------------------------------------------------------------------------------- */

static void monitor_release(struct nprof_monitor *m)
{
	fork_untrack(m);
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
	free(m->path_stat);
	free(m->path_meminfo);
	free(m->path_status);
	free(m->prev);
	free(m->cur);
	free(m->line);
	free(m->samples);
	free(m->deltas);
	free(m);
}

static int check_opts(const struct nprof_monitor_opts *o)
{
	if (nprof_sized_valid(o, sizeof(*o), sizeof(*o), NPROF_SIZED_IN, "monitor options"))
		return -EINVAL;
	if (o->period_ms > NPROF_MONITOR_MAX_PERIOD_MS)
		return nprof_err(EINVAL, "monitor period %u ms is out of range [1, %u]", o->period_ms,
				 NPROF_MONITOR_MAX_PERIOD_MS);
	if (o->what & ~NPROF_MONITOR_ALL)
		return nprof_err(EINVAL, "unknown monitor sample kinds %#x", o->what & ~NPROF_MONITOR_ALL);
	if (o->max_samples && (o->max_samples < NPROF_MONITOR_MIN_MAX_SAMPLES ||
			       o->max_samples > NPROF_MONITOR_MAX_MAX_SAMPLES))
		return nprof_err(EINVAL, "monitor max samples %u is out of range [%u, %u]",
				 o->max_samples, NPROF_MONITOR_MIN_MAX_SAMPLES,
				 NPROF_MONITOR_MAX_MAX_SAMPLES);
	if (o->reserved)
		return nprof_err(EINVAL, "monitor options: reserved field is %#x, not 0", o->reserved);
	return 0;
}

NPROF_API struct nprof_monitor *nprof_monitor_start(const struct nprof_monitor_opts *opts)
{
	struct nprof_monitor_opts def = { .size = sizeof(def) };
	sigset_t all, old;
	struct nprof_monitor *m;
	int ret;

	if (!opts)
		opts = &def;
	ret = check_opts(opts);
	if (ret)
		return nprof_err_ptr(-ret, "%s", nprof_strerror_last());
	m = calloc(1, sizeof(*m));
	if (!m)
		return nprof_err_ptr(ENOMEM, "cannot allocate a monitor");
	pthread_mutex_init(&m->lock, NULL);
	fork_track(m);
	cond_init(m);
	m->period_ms = opts->period_ms ? opts->period_ms : NPROF_MONITOR_DEFAULT_PERIOD_MS;
	m->eff_period_ms = m->period_ms;
	m->what = opts->what ? opts->what : NPROF_MONITOR_ALL;
	m->max_samples = opts->max_samples ? opts->max_samples : NPROF_MONITOR_DEFAULT_MAX_SAMPLES;
	m->path_stat = strdup(opts->proc_stat ? opts->proc_stat : DEFAULT_PROC_STAT);
	m->path_meminfo = strdup(opts->proc_meminfo ? opts->proc_meminfo : DEFAULT_PROC_MEMINFO);
	m->path_status = strdup(opts->proc_self_status ? opts->proc_self_status : DEFAULT_PROC_STATUS);
	m->samples = calloc(m->max_samples, sizeof(*m->samples));
	if (!m->path_stat || !m->path_meminfo || !m->path_status || !m->samples) {
		monitor_release(m);
		return nprof_err_ptr(ENOMEM, "cannot allocate a monitor");
	}

	pthread_mutex_lock(&m->lock);
	ret = take_sample(m, true);
	pthread_mutex_unlock(&m->lock);
	if (ret) {
		monitor_release(m);
		return nprof_err_ptr(-ret, "monitor start sample: %s", nprof_strerror_last());
	}

	/* The application's signal handlers must never run on our thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&m->thread, NULL, sampler, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		monitor_release(m);
		return nprof_err_ptr(ret, "cannot start the monitor thread: %s", strerror(ret));
	}
	m->thread_running = true;
	m->owner = getpid();
	return m;
}

static void stop_thread(struct nprof_monitor *m)
{
	pthread_mutex_lock(&m->lock);
	m->stopping = true;
	pthread_cond_signal(&m->cond);
	pthread_mutex_unlock(&m->lock);
	/* A forked child inherits the monitor but not its thread. */
	if (m->owner == getpid())
		pthread_join(m->thread, NULL);
	m->thread_running = false;
}

NPROF_API int nprof_monitor_sample_now(struct nprof_monitor *m)
{
	int ret;

	if (!m)
		return nprof_err(EINVAL, "monitor is NULL");
	pthread_mutex_lock(&m->lock);
	if (m->stopped || m->stopping)
		ret = nprof_err(EALREADY, "monitor is stopped");
	else
		ret = take_sample(m, false);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

NPROF_API int nprof_monitor_stop(struct nprof_monitor *m)
{
	int ret;

	if (!m)
		return nprof_err(EINVAL, "monitor is NULL");
	pthread_mutex_lock(&m->lock);
	if (m->stopped || m->stopping) {
		pthread_mutex_unlock(&m->lock);
		return nprof_err(EALREADY, "monitor is already stopped");
	}
	pthread_mutex_unlock(&m->lock);
	stop_thread(m);
	pthread_mutex_lock(&m->lock);
	ret = take_sample(m, false);
	m->stopped = true;
	pthread_mutex_unlock(&m->lock);
	if (ret)
		return nprof_err(-ret, "monitor stop sample: %s", nprof_strerror_last());
	return 0;
}

NPROF_API void nprof_monitor_free(struct nprof_monitor *m)
{
	if (!m)
		return;
	if (m->thread_running)
		stop_thread(m);
	monitor_release(m);
}

NPROF_API int nprof_monitor_sample_count(const struct nprof_monitor *m)
{
	struct nprof_monitor *mm = (struct nprof_monitor *)m;
	int n;

	if (!m)
		return nprof_err(EINVAL, "monitor is NULL");
	pthread_mutex_lock(&mm->lock);
	n = (int)m->count;
	pthread_mutex_unlock(&mm->lock);
	return n;
}

static void fill_util(const struct cpu_delta *d, uint32_t cpu, struct nprof_cpu_util *u)
{
	uint64_t total = d->user + d->system + d->idle + d->iowait + d->steal;

	memset(u, 0, sizeof(*u));
	u->cpu = cpu;
	u->total_ticks = total;
	u->busy_ticks = d->user + d->system;
	if (!total)
		return;
	u->util_pct = 100.0 * (double)u->busy_ticks / (double)total;
	u->user_pct = 100.0 * (double)d->user / (double)total;
	u->system_pct = 100.0 * (double)d->system / (double)total;
	u->iowait_pct = 100.0 * (double)d->iowait / (double)total;
	u->steal_pct = 100.0 * (double)d->steal / (double)total;
}

NPROF_API int nprof_monitor_get_sample(const struct nprof_monitor *m, size_t idx,
				       struct nprof_monitor_sample *s,
				       struct nprof_cpu_util *cpus, size_t ncpus)
{
	struct nprof_monitor *mm = (struct nprof_monitor *)m;
	const struct mon_sample *ms;
	const struct cpu_delta *d;
	uint32_t k, n = 0;

	if (!m || !s)
		return nprof_err(EINVAL, "monitor or sample is NULL");
	pthread_mutex_lock(&mm->lock);
	if (idx >= m->count) {
		pthread_mutex_unlock(&mm->lock);
		return nprof_err(EINVAL, "sample %zu does not exist (%u kept)", idx, m->count);
	}
	ms = &m->samples[idx];
	d = deltas_of(m, (uint32_t)idx);
	memset(s, 0, sizeof(*s));
	s->ts_ns = ms->ts_ns;
	s->interval_ns = ms->interval_ns;
	s->has_cpu = ms->has_cpu;
	s->has_mem = ms->has_mem;
	s->mem = ms->mem;
	if (ms->has_cpu) {
		fill_util(&d[0], UINT32_MAX, &s->total);
		for (k = 0; k < m->ncpus; k++) {
			if (!d[k + 1].online)
				continue;
			if (cpus && n < ncpus)
				fill_util(&d[k + 1], k, &cpus[n]);
			n++;
		}
	}
	s->ncpus = n;
	pthread_mutex_unlock(&mm->lock);
	return (int)n;
}

NPROF_API int nprof_monitor_get_stats(const struct nprof_monitor *m, struct nprof_monitor_stats *st)
{
	struct nprof_monitor *mm = (struct nprof_monitor *)m;

	if (!m || !st)
		return nprof_err(EINVAL, "monitor or stats is NULL");
	if (NPROF_SIZED_OUT_CLEAR(st, nprof_monitor_stats))
		return -EINVAL;
	pthread_mutex_lock(&mm->lock);
	st->samples = m->count;
	st->taken = m->taken;
	st->decimations = m->decimations;
	st->read_errors = m->read_errors;
	st->period_ms = m->period_ms;
	st->effective_period_ms = m->eff_period_ms;
	st->ncpus = m->ncpus;
	st->running = m->thread_running && !m->stopping;
	pthread_mutex_unlock(&mm->lock);
	return 0;
}
