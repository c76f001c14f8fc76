// SPDX-License-Identifier: MIT
/*
 * neuronprof record: its options and the dispatch to the synthetic model
 * (record_synth.c, no command) or to a command (record_command.c,
 * `record [options] -- CMD ARGS`).
 *
 * Captures stream to disk by default (--no-streaming keeps them in the
 * rings); on a terminal a status line shows entries per second, MB written
 * and notifications lost so far (record_status.c). --executions A-B,
 * --delay and --control choose what is captured (record_control.c); -o and
 * --max-size what is written (record_output.c).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/config.h>
#include <neuronprof/device.h>
#include <neuronprof/inspect.h>
#include <neuronprof/ntff.h>
#include <neuronprof/output.h>

#include "record.h"
#include "record_control.h"
#include "util/options.h"
#include "tool.h"

enum { REC_MODE, REC_CORES, REC_EXECUTIONS, REC_ITERATIONS, REC_DEVICE, REC_MODEL_NAME, REC_SYSPROF,
       REC_NO_SYSPROF, REC_MAX_EVENTS, REC_DELAY, REC_CONTROL, REC_SWITCH_OUTPUT };

/*
 * --executions A-B: executions A to B (from 1, inclusive) of each core's
 * SESSION capture; --iterations A-B: iterations A to B (from 1, inclusive,
 * at most @max) of every execution. @opt names the option.
 */
static int parse_range(const char *opt, const char *arg, uint64_t max, uint64_t *a, uint64_t *b)
{
	const char *dash = strchr(arg, '-');
	char first[32];

	if ((size_t)(dash - arg) >= sizeof(first))
		return usage_error("%s %s: expected N or A-B", opt, arg);
	memcpy(first, arg, (size_t)(dash - arg));
	first[dash - arg] = '\0';
	if (parse_u64(opt, first, 1, max, false, a) || parse_u64(opt, dash + 1, 1, max, false, b))
		return EXIT_USAGE;
	if (*b < *a)
		return usage_error("%s %s: the range ends before it begins", opt, arg);
	return 0;
}

/*
 * --executions and --iterations (@name): A-B a range (of at most
 * @range_max) into *@first, *@last, which applies to a command too; N the
 * synthetic model's count into *@count, *@given set.
 */
static int count_or_range(struct record_opts *o, const char *name, const char *arg,
			  uint64_t range_max, uint64_t *first, uint64_t *last, uint64_t *count,
			  bool *given)
{
	char opt[32];

	snprintf(opt, sizeof(opt), "--%s", name);
	if (strchr(arg, '-')) {
		/* The range applies to a command too: not a synthetic-only use. */
		if (o->synthetic_only && !strcmp(o->synthetic_only, name) && !*given)
			o->synthetic_only = NULL;
		return parse_range(opt, arg, range_max, first, last);
	}
	if (parse_u64(opt, arg, 1, NEURONPROF_SIM_MAX_ITERATIONS, false, count))
		return EXIT_USAGE;
	*given = true;
	return 0;
}

static int record_opt(const struct opt *opt, const char *arg, void *ctx)
{
	struct record_opts *o = ctx;
	uint64_t v;

	switch (opt->tag) {
	case REC_MODE:
		if (strcmp(arg, "session") && strcmp(arg, "model"))
			return usage_error("--mode: '%s' is not session or model", arg);
		o->mode = arg;
		break;
	case REC_CORES:
		if (parse_core_list("--cores", arg, o->core_map, NPROF_MAX_CORES))
			return EXIT_USAGE;
		/* "all" means every core the device has, not all 256 indices. */
		o->cores = strcmp(arg, "all") ? arg : NULL;
		break;
	case REC_EXECUTIONS:
		/* A-B: the capture range (both modes); N: the synthetic model's executions. */
		return count_or_range(o, "executions", arg, UINT32_MAX, &o->exec_first,
				      &o->exec_last, &o->executions, &o->executions_given);
	case REC_ITERATIONS:
		/* A-B: iterations kept (both modes); N: the synthetic program's iterations. */
		return count_or_range(o, "iterations", arg, (uint64_t)UINT32_MAX + 1,
				      &o->iter_first, &o->iter_last, &o->iterations,
				      &o->iterations_given);
	case REC_DELAY:
		return record_control_parse_delay(&o->ctl, arg);
	case REC_CONTROL:
		return record_control_parse(&o->ctl, arg);
	case REC_SWITCH_OUTPUT:
		if (record_rotate_parse(&o->rot, arg))
			return EXIT_USAGE;
		o->ctl.rotate = true;
		if (!o->command_only)
			o->command_only = "switch-output";
		break;
	case REC_DEVICE:
		if (parse_u64("--device", arg, 0, INT32_MAX, false, &o->device))
			return EXIT_USAGE;
		o->device_given = true;
		break;
	case REC_MODEL_NAME:
		if (!*arg || strlen(arg) > NPROF_MODEL_NAME_MAX)
			return usage_error("--model-name: '%s' is not 1 to %d bytes long", arg,
					   NPROF_MODEL_NAME_MAX);
		o->model_name = arg;
		break;
	case REC_SYSPROF:
	case REC_NO_SYSPROF:
		o->sysprof = opt->tag == REC_SYSPROF;
		break;
	case REC_MAX_EVENTS:
		if (parse_u64("--max-events", arg, 1, NPROF_SYS_TRACE_MAX_EVENTS_LIMIT, false, &v))
			return EXIT_USAGE;
		o->max_events = arg;
		o->max_events_n = v;
		break;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {
		.outdir = NPROF_DEFAULT_OUTPUT_DIR,
		.executions = 1,
		.iterations = 4,
		.model_name = "synthetic",
		.instructions = 32,
		.dma = 8,
		.model_id = 1,
		.sysprof = -1,
		.ctl = { .fd = -1, .ctl_fd = -1, .ack_fd = -1 },
		.rot = { .mode = ROTATE_NONE },
	};
	const char **syn = &o.synthetic_only;
	const struct opt opts[] = {
		OPT_GROUP("Common options:"),
		OPT_STRING('o', "output", &o.outdir, "DIR", "output base directory (default ./output)"),
		OPT_CALLBACK(0, "mode", "session|model", record_opt, REC_MODE,
			     "device profile mode (synthetic default: session;\n"
			     "with a command: the library's default, model)"),
		OPT_CALLBACK(0, "cores", "LIST", record_opt, REC_CORES,
			     "NeuronCores: 0 | 0,2 | 0-3 | all (default all)"),
		OPT_CALLBACK(0, "delay", "SEC", record_opt, REC_DELAY,
			     "capture nothing for the first SEC seconds (decimals\n"
			     "allowed); -1: until --control enables it"),
		OPT_CALLBACK(0, "control", "fifo:CTL[,ACK]", record_opt, REC_CONTROL,
			     "commands enable and disable from the FIFO CTL,\n"
			     "each answered with ack on the FIFO ACK (as perf's)"),
		OPT_SECONDS(0, "duration", &o.duration_ns, 1000000, 7 * 86400 * 1000000000ULL,
			"synthetic: execute until SEC seconds have passed\n"
			"(instead of --executions); command: stop it with\n"
			"SIGTERM after SEC seconds"),
		OPT_SIZE(0, "max-size", &o.max_size, "SIZE", 1ULL << 20, 1ULL << 40,
			 "stop writing entries before the recording passes\n"
			 "SIZE (1M to 1T; K, M, G): the rest count as lost,\n"
			 "the command runs on; synthetic: also no more\n"
			 "executions once the next could pass it"),
		OPT_BOOL('z', NULL, &o.compress,
			 "compress the profiles' data blocks with zstd, level 1\n"
			 "(NEURON_RT_INSPECT_CAPTURE_COMPRESSION=1; as perf's)"),
		OPT_U64(0, "compression-level", &o.compression, "N", 1, NPROF_NTFF_ZSTD_LEVEL_MAX,
			"compress with zstd level N: 1 (fastest) to 22\n(smallest)"),
		OPT_BOOL(0, "no-streaming", &o.no_streaming,
			 "keep entries in the rings until the profile is\n"
			 "written (NEURON_RT_INSPECT_STREAMING=0): what does not\n"
			 "fit is counted as lost"),
		OPT_RING_SIZE(&o.ring_size, RING_SIZE_MIN_RECORD,
			      "ring per queue: a power of two, 1M to 1G, whole MiB\n"
			      "as the runtime counts (K, M, G suffixes: 1M, 2048K,\n"
			      "1G; synthetic default 4M for instruction traces, 1M\n"
			      "for the rest)"),
		OPT_CALLBACK(0, "system-profile", NULL, record_opt, REC_SYSPROF,
			     "the host system trace: ntrace.pb, trace_info.pb\n"
			     "(--no-system-profile: off; synthetic default off)"),
		OPT_CALLBACK(0, "no-system-profile", NULL, record_opt, REC_NO_SYSPROF,
			     "no host system trace", .syn_join = SYN_OR),
		OPT_BOOL(0, "cpu-util", &o.cpu_util, "CPU utilisation samples: cpu_util.pb"),
		OPT_BOOL(0, "host-memory", &o.host_mem, "host and process memory samples: host_mem.pb"),
		OPT_STRING(0, "event-types", &o.event_types, "LIST",
			   "system trace event types (names, hardware, software,\n"
			   "^name to exclude)"),
		OPT_CALLBACK(0, "max-events", "N", record_opt, REC_MAX_EVENTS,
			     "system trace events kept per NeuronCore"),
		OPT_FORM("Synthetic options:", ""),
		OPT_CALLBACK(0, "device", "N", record_opt, REC_DEVICE,
			     "device index (default: the first); --cores are its\n"
			     "own cores, files name them by the library's global\n"
			     "numbering (the cores of lower devices come first)", .first = syn),
		OPT_CALLBACK(0, "executions", "N|A-B", record_opt, REC_EXECUTIONS,
			     "executions of the model per core (default 1);\n"
			     "A-B (also with a command): keep only executions A\n"
			     "to B of each core (SESSION) or model (MODEL)", .first = syn),
		OPT_CALLBACK(0, "iterations", "N|A-B", record_opt, REC_ITERATIONS,
			     "iterations per execution (default 4, at most\n"
			     "65536); A-B (also with a command): keep only the\n"
			     "entries of iterations A to B of every execution", .first = syn),
		OPT_U64(0, "instructions", &o.instructions, "N", 0, NEURONPROF_SIM_MAX_INSTRUCTIONS,
			"instructions per engine per iteration (default 32)", .first = syn),
		OPT_U64(0, "dma", &o.dma, "N", 0, NEURONPROF_SIM_MAX_DMA,
			"DMA transfers per iteration (default 8)", .first = syn),
		OPT_CALLBACK(0, "model-name", "NAME", record_opt, REC_MODEL_NAME,
			     "name of the model (default synthetic)", .first = syn),
		OPT_U64(0, "model-id", &o.model_id, "N", 0, UINT32_MAX,
			"model id written into every entry (default 1)", .first = syn),
		OPT_BOOL(0, "throttle", &o.throttle, "throttle every iteration (THROTTLE entries)",
			 .first = syn),
		OPT_BOOL(0, "error", &o.error,
			 "raise an execution error in the last iteration of\n"
			 "the last execution", .first = syn),
		OPT_BOOL(0, "load-sim", &o.load_sim, "load neuronprof_sim if no device exists",
			 .first = syn),
		OPT_SECONDS(0, "timeout", &o.timeout_ns, 1000000, 86400 * 1000000000ULL,
			"give up on an execution after SEC seconds", .first = syn),
		OPT_BOOL(0, "json", &o.json, "machine-readable result", .first = syn),
		OPT_FORM("Command-only options:", "-- CMD [ARGS...]"),
		OPT_BOOL(0, "on-fail", &o.on_fail, "NEURON_RT_INSPECT_ON_FAIL=1",
			 .first = &o.command_only),
		OPT_CALLBACK(0, "switch-output", "signal|SIZE|TIME", record_opt, REC_SWITCH_OUTPUT,
			     "new files at SIGUSR2, every TIME (s, m, h, d: 30s)\n"
			     "or once a core's file holds SIZE of entries (B, K,\n"
			     "M, G: 100M), at the next execution (SESSION mode,\n"
			     "the default with it)"),
		OPT_U64(0, "switch-max-files", &o.rot.max_files, "N", 1, 1000000,
			"with --switch-output: keep the newest N files of\n"
			"each core, remove the older ones", .first = &o.command_only),
		OPT_END(),
	};
	int rc;

	if (opts_parse(argc, argv, opts, &o, &rc))
		return rc;
	if (o.rot.max_files && !record_rotate_wanted(&o.rot))
		return usage_error("--switch-max-files keeps the newest of the files --switch-output "
				   "starts: add --switch-output");
	/* Files switch between the capture windows of SESSION mode. */
	if (record_rotate_wanted(&o.rot)) {
		if (o.mode && strcmp(o.mode, "session"))
			return usage_error("--switch-output starts new files of SESSION captures: "
					   "not with --mode %s", o.mode);
		o.mode = "session";
	}
	/* A MODEL range's window is decided at its first execution: no switch inside it. */
	if (o.exec_first && record_control_wanted(&o.ctl) &&
	    (optind < argc ? !o.mode || !strcmp(o.mode, "model") : !record_session_mode(&o)))
		return usage_error("--executions A-B with --delay or --control needs --mode session");
	/* A range alone runs the synthetic model up to its end. */
	if (o.exec_first && optind >= argc && !o.executions_given && !o.duration_ns)
		o.executions = o.exec_last;
	if (optind < argc)
		return record_command(&o, argv + optind);
	return record_synthetic(&o);
}
