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

#endif /* NEURONPROF_RECORD_H */
