/* SPDX-License-Identifier: MIT */
/*
 * The inspect configuration (config.c) and its environment parser (env.c):
 * the options bag the inspect controller is given.
 *
 * config/ is layer 5 of the library (lib/src/README), next to the capture
 * modes: it may call util/ (among it the event taxonomy), output/ (the
 * output-directory policy), capture/ (the struct nprof_capture_opts that
 * nprof_capture_opts_from_config() fills) and trace/ (the system-trace
 * configuration's struct), never the modes or session/.
 */
#ifndef NEURONPROF_CONFIG_INTERNAL_H
#define NEURONPROF_CONFIG_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <neuronprof/config.h>

#include "trace/sys_trace_internal.h"
#include "util/internal.h"

/* The smallest capture size limit (NEURON_RT_INSPECT_CAPTURE_MAX_SIZE). */
#define NPROF_CAPTURE_MAX_SIZE_MIN	(1ULL << 20)

struct nprof_inspect_config {
	int session_id;
	unsigned int activities;		/* enum nprof_activity bits */
	enum nprof_device_profile_mode device_profile_mode;
	bool enable_inspect;
	bool enable_inspect_on_fail;
	bool streaming;				/* device profiles stream to spools */
	uint8_t capture_nc[NPROF_MAX_CORES];
	uint64_t ring_size[NPROF_QUEUE_TYPES];	/* bytes */
	uint64_t exec_first, exec_last;		/* capture range; 0, 0: every execution */
	uint64_t iter_first, iter_last;		/* iterations kept; 0, 0: every iteration */
	uint64_t max_size;			/* bytes of entries written; 0: no limit */
	int compression;			/* zstd level of the NTFF files; 0: none */
	struct nprof_sys_trace_config sys_trace;
	char output_dir[PATH_MAX];
};

/*
 * The device profile mode NEURON_RT_INSPECT_DEVICE_PROFILE asks for
 * (NPROF_DEVICE_PROFILE_DISABLED when it is unset or 0), as
 * nprof_inspect_config_parse_env() reads it; -EINVAL with a message for a
 * value it would refuse.
 */
int nprof_env_device_profile_mode(void);

/*
 * Whether NEURON_RT_INSPECT_STREAMING asks for streaming (1, also when it
 * is unset) or not (0), as nprof_inspect_config_parse_env() reads it;
 * -EINVAL with a message for a value it would refuse.
 */
int nprof_env_streaming(void);

#endif /* NEURONPROF_CONFIG_INTERNAL_H */
