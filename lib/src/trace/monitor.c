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
#include "util/parse.h"

#define DEFAULT_PROC_STAT	"/proc/stat"
#define DEFAULT_PROC_MEMINFO	"/proc/meminfo"
#define DEFAULT_PROC_STATUS	"/proc/self/status"

/* More CPU lines than this in /proc/stat is not a real file. */
#define MAX_CPUS		65536

/* Absolute /proc/stat counters of one CPU. */
struct cpu_snap {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
	bool online;
};

/* Tick deltas of one CPU over one interval (the categories we report). */
struct cpu_delta {
	uint64_t user;		/* user + nice */
	uint64_t system;	/* system + irq + softirq */
	uint64_t idle;
	uint64_t iowait;
	uint64_t steal;
	bool online;		/* present in both readings */
};

struct mon_sample {
	uint64_t ts_ns;
	uint64_t interval_ns;
	bool has_cpu;
	bool has_mem;
	struct nprof_mem_usage mem;
};

struct nprof_monitor {
	struct nprof_monitor *fork_prev, *fork_next;	/* live monitors, under fork_lock */
	pthread_mutex_t lock;		/* everything below */
	pthread_cond_t cond;		/* wakes the sampler for stop */
	pthread_t thread;
	pid_t owner;			/* process whose thread samples */
	bool thread_running;
	bool stopping;
	bool stopped;

	uint32_t period_ms;
	uint32_t eff_period_ms;
	uint32_t what;
	uint32_t max_samples;
	char *path_stat, *path_meminfo, *path_status;

	uint32_t ncpus;			/* CPU slots: highest CPU number at start + 1 */
	struct cpu_snap prev_agg;	/* the last reading */
	struct cpu_snap *prev;		/* [ncpus] */
	struct cpu_snap cur_agg;	/* scratch of a reading */
	struct cpu_snap *cur;		/* [ncpus] */
	char *line;			/* getline() buffer */
	size_t line_cap;

	struct mon_sample *samples;	/* [max_samples] */
	struct cpu_delta *deltas;	/* [max_samples][ncpus + 1], [0] is the aggregate */
	uint32_t count;
	uint64_t taken;
	uint64_t decimations;
	uint64_t read_errors;
};

/* ---- parsing ------------------------------------------------------------------ */

/* Parse an unsigned decimal at *p, skipping blanks first; 0 or -1. */
static int parse_field(const char **p, uint64_t *v)
{
	const char *s = *p;
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strspn(s, "0123456789");
	if (nprof_parse_u64(s, n, 10, v))
		return -1;
	s += n;
	if (*s && *s != ' ' && *s != '\t' && *s != '\n')
		return -1;
	*p = s;
	return 0;
}

static bool line_end(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return !*s || *s == '\n';
}

/*
 * One "cpu[N] user nice system idle [iowait irq softirq steal guest
 * guest_nice]" line after the "cpu[N]" word. At least four values; missing
 * trailing ones (old kernels) are zero; guest time is already in user and
 * nice, so it is not read.
 */
static int parse_cpu_values(const char *s, struct cpu_snap *c)
{
	uint64_t v[8] = { 0 };
	int i;

	for (i = 0; i < 8 && !line_end(s); i++)
		if (parse_field(&s, &v[i]))
			return -1;
	if (i < 4)
		return -1;
	c->user = v[0];
	c->nice = v[1];
	c->system = v[2];
	c->idle = v[3];
	c->iowait = v[4];
	c->irq = v[5];
	c->softirq = v[6];
	c->steal = v[7];
	c->online = true;
	return 0;
}

/*
 * Read /proc/stat into m->cur_agg and m->cur[]. With @grow (the first
 * reading), the CPU slots are sized from the file. Only the leading cpu
 * lines are read: the rest of the file (the long "intr" line) is skipped.
 */
static int read_stat(struct nprof_monitor *m, bool grow)
{
	unsigned int lineno = 0;
	bool have_agg = false;
	FILE *f;
	ssize_t n;
	int ret = 0;

	f = fopen(m->path_stat, "re");
	if (!f)
		return nprof_err(errno, "cannot open %s: %s", m->path_stat, strerror(errno));
	memset(&m->cur_agg, 0, sizeof(m->cur_agg));
	if (m->cur)
		memset(m->cur, 0, m->ncpus * sizeof(*m->cur));
	while ((n = getline(&m->line, &m->line_cap, f)) > 0) {
		const char *s = m->line;
		struct cpu_snap c;
		uint64_t id;

		lineno++;
		if (strncmp(s, "cpu", 3))
			break;
		s += 3;
		if (*s == ' ' || *s == '\t') {
			if (parse_cpu_values(s, &c)) {
				ret = nprof_err(EPROTO, "%s: line %u: cannot parse the cpu line",
						m->path_stat, lineno);
				goto out;
			}
			m->cur_agg = c;
			have_agg = true;
			continue;
		}
		if (parse_field(&s, &id) || id >= MAX_CPUS || parse_cpu_values(s, &c)) {
			ret = nprof_err(EPROTO, "%s: line %u: cannot parse a per-CPU line",
					m->path_stat, lineno);
			goto out;
		}
		if (id >= m->ncpus) {
			struct cpu_snap *p;

			if (!grow)
				continue;	/* came online after start: no slot */
			p = realloc(m->cur, (id + 1) * sizeof(*p));
			if (!p) {
				ret = nprof_err(ENOMEM, "cannot allocate %" PRIu64 " CPU slots", id + 1);
				goto out;
			}
			memset(p + m->ncpus, 0, (id + 1 - m->ncpus) * sizeof(*p));
			m->cur = p;
			m->ncpus = (uint32_t)id + 1;
		}
		m->cur[id] = c;
	}
	if (ferror(f)) {
		ret = nprof_err(EIO, "cannot read %s: %s", m->path_stat, strerror(errno));
		goto out;
	}
	if (!have_agg)
		ret = nprof_err(EPROTO, "%s: no aggregate \"cpu\" line", m->path_stat);
out:
	fclose(f);
	return ret;
}

/* "Key:   123 kB" lines; @keys[i] gets the value in bytes, or stays 0. */
static int read_kv_file(struct nprof_monitor *m, const char *path, const char *const *keys,
			uint64_t *vals, bool *found, size_t nkeys)
{
	unsigned int lineno = 0;
	FILE *f;
	size_t i;
	int ret = 0;

	f = fopen(path, "re");
	if (!f)
		return nprof_err(errno, "cannot open %s: %s", path, strerror(errno));
	while (getline(&m->line, &m->line_cap, f) > 0) {
		const char *s;
		uint64_t v;

		lineno++;
		for (i = 0; i < nkeys; i++) {
			size_t kl = strlen(keys[i]);

			if (!strncmp(m->line, keys[i], kl) && m->line[kl] == ':')
				break;
		}
		if (i == nkeys)
			continue;
		s = m->line + strlen(keys[i]) + 1;
		if (parse_field(&s, &v)) {
			ret = nprof_err(EPROTO, "%s: line %u: bad value of %s", path, lineno, keys[i]);
			goto out;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		if (!strncmp(s, "kB", 2)) {
			if (v > UINT64_MAX / 1024) {
				ret = nprof_err(EPROTO, "%s: line %u: %s is too large", path, lineno,
						keys[i]);
				goto out;
			}
			v *= 1024;
			s += 2;
		}
		if (!line_end(s)) {
			ret = nprof_err(EPROTO, "%s: line %u: unexpected text after the value of %s",
					path, lineno, keys[i]);
			goto out;
		}
		vals[i] = v;
		found[i] = true;
	}
	if (ferror(f))
		ret = nprof_err(EIO, "cannot read %s: %s", path, strerror(errno));
out:
	fclose(f);
	return ret;
}

enum { MI_TOTAL, MI_FREE, MI_AVAIL, MI_BUFFERS, MI_CACHED, MI_SWAPTOTAL, MI_SWAPFREE, MI_N };

static int read_mem(struct nprof_monitor *m, struct nprof_mem_usage *u)
{
	static const char *const mi_keys[MI_N] = {
		"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "SwapTotal", "SwapFree",
	};
	static const char *const st_keys[3] = { "VmRSS", "VmHWM", "VmSize" };
	uint64_t mi[MI_N] = { 0 }, st[3] = { 0 };
	bool mf[MI_N] = { false }, sf[3] = { false };
	uint64_t reclaimable;
	int ret;

	ret = read_kv_file(m, m->path_meminfo, mi_keys, mi, mf, MI_N);
	if (ret)
		return ret;
	if (!mf[MI_TOTAL] || !mf[MI_FREE])
		return nprof_err(EPROTO, "%s: no %s line", m->path_meminfo,
				 mf[MI_TOTAL] ? "MemFree" : "MemTotal");
	ret = read_kv_file(m, m->path_status, st_keys, st, sf, 3);
	if (ret)
		return ret;
	memset(u, 0, sizeof(*u));
	u->host_total = mi[MI_TOTAL];
	u->host_free = mi[MI_FREE];
	u->host_buffers = mi[MI_BUFFERS];
	u->host_cached = mi[MI_CACHED];
	u->swap_total = mi[MI_SWAPTOTAL];
	u->swap_free = mi[MI_SWAPFREE];
	if (mf[MI_AVAIL]) {
		u->host_available = mi[MI_AVAIL];
	} else {
		/* Kernels before 3.14: the classic estimate. */
		reclaimable = mi[MI_FREE] + mi[MI_BUFFERS] + mi[MI_CACHED];
		u->host_available = reclaimable < mi[MI_TOTAL] ? reclaimable : mi[MI_TOTAL];
	}
	u->host_used = u->host_available < u->host_total ? u->host_total - u->host_available : 0;
	u->process_rss = st[0];
	u->process_hwm = st[1];
	u->process_vm = st[2];
	return 0;
}

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
		ret = read_stat(m, first);
		if (ret)
			goto fail;
	}
	if (m->what & NPROF_MONITOR_MEMORY) {
		ret = read_mem(m, &mem);
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
	if (NPROF_SIZED_VALID(st, nprof_monitor_stats, NPROF_SIZED_OUT))
		return -EINVAL;
	memset((char *)st + sizeof(st->size), 0, st->size - sizeof(st->size));
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
