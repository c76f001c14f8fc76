/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: the system monitor, a sampler thread for host CPU
 * utilisation (per CPU and total, from /proc/stat deltas) and memory (the
 * host from /proc/meminfo, this process from /proc/self/status) at a fixed
 * period, with one sample at start and one at stop. The samples stay in
 * memory, bounded, for the system-profile writer (cpu_util.pb and
 * host_mem.pb, see <neuronprof/sys_trace.h>).
 *
 * Bound: at most max_samples samples are kept. When a new sample finds the
 * buffer full, the buffer is decimated: the start sample stays, the others
 * are merged pairwise (CPU ticks of two adjacent intervals are summed, so
 * utilisation stays exact; of two memory readings the later is kept), and
 * the sampling period doubles. The samples therefore always cover the
 * whole run at even spacing, and memory never grows past max_samples.
 * Documentation/sys_trace.rst has the details.
 */
#ifndef NEURONPROF_MONITOR_H
#define NEURONPROF_MONITOR_H

#include <stddef.h>
#include <stdint.h>

#include <neuronprof/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPROF_MONITOR_DEFAULT_PERIOD_MS		100
#define NPROF_MONITOR_MAX_PERIOD_MS		3600000
#define NPROF_MONITOR_DEFAULT_MAX_SAMPLES	2048
#define NPROF_MONITOR_MIN_MAX_SAMPLES		4
#define NPROF_MONITOR_MAX_MAX_SAMPLES		(1u << 20)

/* What a monitor samples. */
#define NPROF_MONITOR_CPU	(1u << 0)
#define NPROF_MONITOR_MEMORY	(1u << 1)
#define NPROF_MONITOR_ALL	0x3u

/*
 * struct nprof_monitor_opts - how a monitor samples.
 * @size: sizeof(struct nprof_monitor_opts).
 * @period_ms: 1..NPROF_MONITOR_MAX_PERIOD_MS; 0 means the default.
 * @what: NPROF_MONITOR_* bits; 0 means both.
 * @max_samples: bound of the kept samples, NPROF_MONITOR_MIN_MAX_SAMPLES..
 *	NPROF_MONITOR_MAX_MAX_SAMPLES; 0 means the default.
 * @proc_stat, @proc_meminfo, @proc_self_status: files read instead of
 *	/proc/stat, /proc/meminfo and /proc/self/status (tests use fixture
 *	files); NULL means the real one. The paths are copied.
 */
struct nprof_monitor_opts {
	size_t size;
	uint32_t period_ms;
	uint32_t what;
	uint32_t max_samples;
	uint32_t reserved;	/* zero */
	const char *proc_stat;
	const char *proc_meminfo;
	const char *proc_self_status;
};

struct nprof_monitor;

/*
 * struct nprof_cpu_util - utilisation of one CPU (or all of them) over an
 * interval. Percentages are of @total_ticks; busy is user + nice + system +
 * irq + softirq (idle, iowait and steal are not busy).
 * @cpu: CPU number, or UINT32_MAX for the all-CPU aggregate.
 */
struct nprof_cpu_util {
	uint32_t cpu;
	uint32_t reserved;
	double util_pct;
	double user_pct;	/* user + nice */
	double system_pct;	/* system + irq + softirq */
	double iowait_pct;
	double steal_pct;
	uint64_t total_ticks;	/* USER_HZ ticks of the interval */
	uint64_t busy_ticks;
};

/*
 * struct nprof_mem_usage - one memory reading, in bytes. A field the
 * source file lacks is 0. host_used = MemTotal - MemAvailable (MemTotal -
 * MemFree - Buffers - Cached on kernels without MemAvailable).
 */
struct nprof_mem_usage {
	uint64_t host_total;
	uint64_t host_available;
	uint64_t host_used;
	uint64_t host_free;
	uint64_t host_buffers;
	uint64_t host_cached;
	uint64_t swap_total;
	uint64_t swap_free;
	uint64_t process_rss;	/* VmRSS */
	uint64_t process_hwm;	/* VmHWM */
	uint64_t process_vm;	/* VmSize */
};

/*
 * struct nprof_monitor_sample - one kept sample.
 * @ts_ns: CLOCK_MONOTONIC time of the reading.
 * @interval_ns: time since the previous kept sample; 0 for the first one,
 *	whose CPU figures cover the time since boot.
 * @has_cpu, @has_mem: which parts the sample has.
 * @total: the all-CPU utilisation over the interval.
 * @ncpus: per-CPU entries the sample has (see nprof_monitor_get_sample()).
 */
struct nprof_monitor_sample {
	uint64_t ts_ns;
	uint64_t interval_ns;
	uint32_t has_cpu;
	uint32_t has_mem;
	struct nprof_cpu_util total;
	struct nprof_mem_usage mem;
	uint32_t ncpus;
	uint32_t reserved;
};

/*
 * struct nprof_monitor_stats - about a monitor.
 * @size: set by the caller to sizeof(struct nprof_monitor_stats).
 * @samples: samples kept now.
 * @taken: samples taken since start (kept or merged).
 * @decimations: times the buffer was halved.
 * @read_errors: samples skipped because a /proc file could not be read or
 *	parsed (the last reason is logged at debug level).
 * @period_ms: requested period; @effective_period_ms: after decimations.
 * @ncpus: CPU slots (highest CPU number in /proc/stat at start, plus one).
 * @running: 1 while the sampler thread runs.
 */
struct nprof_monitor_stats {
	size_t size;
	uint64_t samples;
	uint64_t taken;
	uint64_t decimations;
	uint64_t read_errors;
	uint32_t period_ms;
	uint32_t effective_period_ms;
	uint32_t ncpus;
	uint32_t running;
};

/**
 * nprof_monitor_start() - take the start sample and start the sampler.
 * @opts: as above, or NULL for the defaults.
 *
 * The start sample is taken before this returns, so a /proc file that
 * cannot be read or parsed fails the start. The sampler thread runs with
 * every signal blocked. A child created by fork() inherits the samples but
 * not the thread; it may read, stop (the stop sample is then the child's)
 * and free the monitor.
 *
 * Return: the monitor (nprof_monitor_free() releases it), or NULL with
 * errno EINVAL (bad @opts; the message names the field), ENOMEM, the
 * errno of opening a /proc file, or EPROTO if one cannot be parsed (the
 * message names the file and the line).
 */
NPROF_API struct nprof_monitor *nprof_monitor_start(const struct nprof_monitor_opts *opts);

/**
 * nprof_monitor_sample_now() - take one sample now, in the calling thread,
 * besides the periodic ones.
 *
 * Return: 0; -EINVAL if @m is NULL; -EALREADY if the monitor is stopped;
 * the errors of reading the files as for nprof_monitor_start() (the sample
 * is then not kept and read_errors counts it).
 */
NPROF_API int nprof_monitor_sample_now(struct nprof_monitor *m);

/**
 * nprof_monitor_stop() - stop the sampler thread and take the stop sample.
 *
 * Return: 0; -EINVAL if @m is NULL; -EALREADY if already stopped; or the
 * error of the stop sample (the thread is stopped anyway).
 */
NPROF_API int nprof_monitor_stop(struct nprof_monitor *m);

/**
 * nprof_monitor_free() - stop @m if it runs (without a stop sample) and
 * release it. NULL is allowed.
 */
NPROF_API void nprof_monitor_free(struct nprof_monitor *m);

/**
 * nprof_monitor_sample_count() - number of kept samples.
 *
 * Return: the count, or -EINVAL if @m is NULL.
 */
NPROF_API int nprof_monitor_sample_count(const struct nprof_monitor *m);

/**
 * nprof_monitor_get_sample() - one kept sample, oldest first.
 * @idx: below nprof_monitor_sample_count().
 * @s: out.
 * @cpus: out, per-CPU utilisation (CPUs that were online in both readings
 *	of the interval), or NULL.
 * @ncpus: room in @cpus.
 *
 * Return: the number of per-CPU entries the sample has (@s->ncpus; at most
 * @ncpus of them were written); -EINVAL for NULL @m or @s, or @idx out of
 * range.
 */
NPROF_API int nprof_monitor_get_sample(const struct nprof_monitor *m, size_t idx,
				       struct nprof_monitor_sample *s,
				       struct nprof_cpu_util *cpus, size_t ncpus);

/**
 * nprof_monitor_get_stats() - counters of @m.
 *
 * Return: 0, or -EINVAL for NULL arguments or a too small @stats->size.
 */
NPROF_API int nprof_monitor_get_stats(const struct nprof_monitor *m, struct nprof_monitor_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_MONITOR_H */
