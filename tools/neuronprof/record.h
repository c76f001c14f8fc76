/* SPDX-License-Identifier: MIT */
/*
 * neuronprof record, shared between its files: the options (cmd_record.c
 * parses them and dispatches), the synthetic model's capture loop
 * (record_synth.c), the command's run (record_command.c) and the output's
 * checks and size limits (record_output.c).
 */
#ifndef NEURONPROF_RECORD_H
#define NEURONPROF_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <neuronprof/config.h>

#include "record_control.h"
#include "record_rotate.h"

struct record_opts {
	const char *outdir;
	const char *mode;		/* NULL: not given */
	const char *cores;		/* NULL: all */
	uint8_t core_map[NPROF_MAX_CORES / 8];
	uint64_t ring_size;		/* 0: not given */
	int sysprof;			/* -1 not given, else 0/1 */
	bool cpu_util, host_mem;
	const char *event_types, *max_events;
	uint64_t max_events_n;
	/* synthetic */
	uint64_t device, executions, iterations, instructions, dma, model_id, timeout_ns;
	uint64_t duration_ns;		/* 0: not given */
	uint64_t max_size;		/* --max-size, 0: none */
	bool compress;			/* -z */
	uint64_t compression;		/* --compression-level, 0: not given */
	bool max_size_hit;		/* run_model() stopped for it */
	bool executions_given, no_streaming;
	const char *model_name;
	bool device_given, throttle, error, load_sim, json;
	const char *synthetic_only;	/* first synthetic-only option seen */
	/* command */
	bool on_fail;
	const char *command_only;	/* first command-only option seen */
	/* capture ranges: --executions A-B, --delay, --control */
	uint64_t exec_first, exec_last;	/* 0, 0: every execution */
	uint64_t iter_first, iter_last;	/* --iterations A-B; 0, 0: every iteration */
	bool iterations_given;		/* --iterations N */
	struct record_control ctl;
	/* output rotation: --switch-output, --switch-max-files */
	struct record_rotate rot;
};

/* The zstd level of -z and --compression-level (0: none). */
static inline int record_zlevel(const struct record_opts *o)
{
	return o->compression ? (int)o->compression : o->compress ? 1 : 0;
}

/* CLOCK_MONOTONIC now, in nanoseconds. */
uint64_t record_monotonic_ns(void);

/*
 * record_page_share() - a zeroed page of @size bytes shared with the
 * library of this process or of the recorded command: a memfd (inherited:
 * no close-on-exec) named @name, mapped here, its descriptor named by the
 * environment variable @env. *@fd gets the descriptor. NULL after the
 * message ("cannot create the @what page: ...").
 */
void *record_page_share(const char *name, size_t size, const char *env, const char *what, int *fd);

/* Whether the options ask for a SESSION capture (the synthetic default). */
bool record_session_mode(const struct record_opts *o);

/* record_synth.c: the synthetic model (no command). Return the exit code. */
int record_synthetic(struct record_opts *o);

/* record_command.c: run @cmd with the inspect variables. Return the exit code. */
int record_command(struct record_opts *o, char **cmd);

/*
 * record_output.c: -o's check (0, or -1 after the usage error); the bytes
 * of the files under a directory modified at @since or later (0: all);
 * after a run with --max-size, the recording's size against the limit (0,
 * or -1 when over it).
 */
int record_check_outdir(const char *dir);
uint64_t record_dir_bytes(const char *dir, time_t since);
int record_max_size_report(const struct record_opts *o, const char *dir, time_t since);

/*
 * record_rings.c: the ring memory of a recording, before anything runs.
 * _plan_cores() adds the rings of @ncores cores of a device described by
 * @info, @size bytes per queue type (the library's queue plan);
 * _command_rings() checks those a command's runtime would ask for with
 * @cfg on the devices @infos (in index order) against the device maximum
 * (for @asked, the --ring-size given, 0: none) and @lim: 0 when they fit,
 * else -1 with @why (util/ringmem.h); record_check_command_rings() does
 * that for command @cmd with the inspect variables @envp over this
 * process's environment, on the devices present: 0, or EXIT_FAIL after the
 * message naming the total and the limit.
 */
struct nprof_device_info;
struct nprof_inspect_config;
struct ring_limits;
struct ring_plan;
void record_ring_plan_cores(struct ring_plan *p, const struct nprof_device_info *info,
			    size_t ncores, const uint64_t size[NPROF_QUEUE_TYPES]);
int record_command_rings(const struct nprof_inspect_config *cfg, uint64_t asked,
			 const struct nprof_device_info *infos, size_t ndev,
			 const struct ring_limits *lim, char *why, size_t len);
int record_check_command_rings(const char *cmd, char *const envp[], uint64_t asked);

#endif /* NEURONPROF_RECORD_H */
