/* SPDX-License-Identifier: MIT */
/*
 * The system monitor's state (monitor.c), shared with the reader of the
 * /proc files it samples (monitor_proc.c).
 *
 * May call: util/ (see sys_trace_internal.h for the folder's rule).
 */
#ifndef NEURONPROF_MONITOR_INTERNAL_H
#define NEURONPROF_MONITOR_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <neuronprof/monitor.h>

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

/*
 * Read /proc/stat into m->cur_agg and m->cur[]. With @grow (the first
 * reading), the CPU slots are sized from the file. 0 or -errno with a
 * message (monitor_proc.c).
 */
int nprof_monitor_read_stat(struct nprof_monitor *m, bool grow);

/* Host and process memory from /proc/meminfo and /proc/self/status; 0 or -errno. */
int nprof_monitor_read_mem(struct nprof_monitor *m, struct nprof_mem_usage *u);

#endif /* NEURONPROF_MONITOR_INTERNAL_H */
