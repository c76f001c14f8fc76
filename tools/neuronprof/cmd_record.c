// SPDX-License-Identifier: MIT
/*
 * neuronprof record: capture a profile.
 *
 * Synthetic mode (no command): runs a synthetic model on simulated
 * NeuronCores (SIM_EXEC) inside SESSION captures of the library and writes
 * one NTFF file per core. It then proves the capture complete: for every
 * queue type, the entries captured plus the notifications the rings counted
 * as lost must equal what the simulator says it produced.
 *
 * Command mode (`record [options] -- CMD ARGS`): runs CMD with
 * NEURON_RT_INSPECT_ENABLE=1 and the other inspect variables set from the
 * options, so a program using the library's inspect session profiles
 * itself. The variables are first checked with the library's own parser, so
 * a bad value is reported here rather than by the program.
 *
 * MODEL-keyed capture and the system profile need the library's inspect
 * session and MODEL capture engine, which do not exist yet; the synthetic
 * mode refuses them instead of pretending.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/capture.h>
#include <neuronprof/config.h>
#include <neuronprof/device.h>
#include <neuronprof/output.h>

#include "json.h"
#include "tool.h"

static const char record_usage[] =
	"Usage: neuronprof record [--mode session] [--cores LIST] [--iterations N]\n"
	"                         [--ring-size BYTES] [-o DIR] [synthetic options]\n"
	"       neuronprof record [inspect options] [-o DIR] -- CMD [ARGS...]\n"
	"\n"
	"Without a command: run a synthetic model on simulated NeuronCores\n"
	"(neuronprof_sim) inside SESSION captures and write\n"
	"DIR/profile_nc_<core>_session_<id>.ntff per core; the entries captured\n"
	"plus those lost are checked against what the simulator produced.\n"
	"With a command: run it with NEURON_RT_INSPECT_ENABLE=1 and the inspect\n"
	"environment below, and exit with its status.\n"
	"\n"
	"Common options:\n"
	"  -o, --output DIR      output directory (default ./output)\n"
	"  --mode session|model  device profile mode (synthetic: session only;\n"
	"                        model needs the MODEL capture, not available yet)\n"
	"  --cores LIST          NeuronCores: 0 | 0,2 | 0-3 | all (default all)\n"
	"  --ring-size BYTES     ring size per queue (K, M, G suffixes; default 1M;\n"
	"                        with a command, whole MiB)\n"
	"Synthetic options:\n"
	"  --device N            device index (default: the first)\n"
	"  --iterations N        iterations of the model (default 4, at most 65536)\n"
	"  --instructions N      instructions per engine per iteration (default 32)\n"
	"  --dma N               DMA transfers per iteration (default 8)\n"
	"  --model-id N          model id written into every entry (default 1)\n"
	"  --throttle            throttle every iteration (THROTTLE entries)\n"
	"  --error               raise an execution error in the last iteration\n"
	"  --load-sim            load neuronprof_sim if no device exists\n"
	"  --timeout SEC         give up on an execution after SEC seconds\n"
	"  --json                machine-readable result\n"
	"Inspect options (with a command):\n"
	"  --system-profile, --no-system-profile   NEURON_RT_INSPECT_SYSTEM_PROFILE\n"
	"  --cpu-util            NEURON_RT_INSPECT_CPU_UTIL=1\n"
	"  --host-memory         NEURON_RT_INSPECT_HOST_MEMORY=1\n"
	"  --on-fail             NEURON_RT_INSPECT_ON_FAIL=1\n"
	"  --event-types LIST    NEURON_RT_INSPECT_EVENT_FILTER_TYPE\n"
	"  --max-events N        NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC\n"
	"  -h, --help            this text\n";

enum {
	OPT_MODE = 256, OPT_CORES, OPT_ITER, OPT_RING, OPT_DEVICE, OPT_INSTR, OPT_DMA,
	OPT_MODEL_ID, OPT_THROTTLE, OPT_ERROR, OPT_LOAD_SIM, OPT_TIMEOUT, OPT_JSON,
	OPT_SYSPROF, OPT_NO_SYSPROF, OPT_CPU_UTIL, OPT_HOST_MEM, OPT_ON_FAIL,
	OPT_EVENT_TYPES, OPT_MAX_EVENTS,
};

struct record_opts {
	const char *outdir;
	const char *mode;		/* NULL: not given */
	const char *cores;		/* NULL: all */
	uint8_t core_map[NPROF_MAX_CORES / 8];
	uint64_t ring_size;		/* 0: not given */
	/* synthetic */
	uint64_t device, iterations, instructions, dma, model_id, timeout_s;
	bool device_given, throttle, error, load_sim, json;
	const char *synthetic_only;	/* first synthetic-only option seen */
	/* command */
	int sysprof;			/* -1 not given, else 0/1 */
	bool cpu_util, host_mem, on_fail;
	const char *event_types, *max_events;
	const char *command_only;	/* first command-only option seen */
	const char *unavailable;	/* an option that needs what does not exist yet */
};

/* ---- synthetic mode ------------------------------------------------------- */

struct core_result {
	uint32_t core;
	uint64_t session_id;
	struct nprof_sim_result res;
	struct nprof_capture_stats stats;
	char file[64];
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void print_results(const struct record_opts *o, const struct core_result *cr, int n,
			  const char *node)
{
	if (o->json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj_begin(&j, NULL);
		json_str(&j, "device", node);
		json_str(&j, "output_dir", o->outdir);
		json_arr_begin(&j, "cores");
		for (int i = 0; i < n; i++) {
			json_obj_begin(&j, NULL);
			json_u64(&j, "core", cr[i].core);
			json_u64(&j, "session_id", cr[i].session_id);
			json_str(&j, "file", cr[i].file);
			json_u64(&j, "status", cr[i].res.status);
			json_obj_begin(&j, "queue_types");
			for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
				json_obj_begin(&j, queue_name(t));
				json_u64(&j, "produced", cr[i].res.produced[t]);
				json_u64(&j, "captured", cr[i].stats.entries[t]);
				json_u64(&j, "lost", cr[i].stats.lost[t]);
				json_obj_end(&j);
			}
			json_obj_end(&j);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
		json_finish(&j);
		return;
	}
	for (int i = 0; i < n; i++) {
		uint64_t cap = 0, lost = 0, prod = 0;

		for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
			cap += cr[i].stats.entries[t];
			lost += cr[i].stats.lost[t];
			prod += cr[i].res.produced[t];
		}
		printf("%s/%s: NeuronCore %u, session %" PRIu64 ": %" PRIu64 " entries, %" PRIu64
		       " lost, %" PRIu64 " produced%s\n", o->outdir, cr[i].file, cr[i].core,
		       cr[i].session_id, cap, lost, prod,
		       cr[i].res.status ? " (execution raised an error)" : "");
	}
}

static int record_synthetic(struct record_opts *o)
{
	struct nprof_capture_opts copts = { .size = sizeof(copts) };
	struct nprof_device_info info = { .size = sizeof(info) };
	struct core_result *cr = NULL;
	struct nprof_capture *cap = NULL;
	struct nprof_device *dev;
	uint32_t cores[NPROF_MAX_CORES];
	int ncores = 0, started = 0, ret = EXIT_FAIL, dirfd = -1;
	char node[NPROF_DEVICE_PATH_MAX];

	if (o->mode && strcmp(o->mode, "session"))
		return fail("--mode %s: MODEL capture is not available yet in libneuronprof (it "
			    "needs the inspect/MODEL capture engine); use --mode session, or "
			    "record a program that uses the runtime with: record --mode model -- "
			    "CMD", o->mode);
	if (o->unavailable)
		return fail("%s: the system profile (host trace, CPU utilisation, host memory) is "
			    "not available yet in libneuronprof (it needs the inspect session); "
			    "it can only be requested for a command: record %s -- CMD",
			    o->unavailable, o->unavailable);
	if (o->command_only)
		return usage_error("%s applies to a command (record %s -- CMD), not to the "
				   "synthetic model", o->command_only, o->command_only);

	dev = nprof_device_open(o->device_given ? (int)o->device : NPROF_DEVICE_ANY,
				o->load_sim ? NPROF_DEVICE_LOAD_SIM : 0);
	if (!dev)
		return fail("%s", nprof_strerror_last());
	snprintf(node, sizeof(node), "%s", nprof_device_path(dev));
	if (nprof_device_get_info(dev, &info)) {
		fail("%s: %s", node, nprof_strerror_last());
		goto out;
	}
	if (!(info.caps & NPROF_DEVICE_CAP_SIM_EXEC)) {
		fail("%s (provider %s) is not simulated: the synthetic model runs only on "
		     "neuronprof_sim devices (to profile a real workload: record -- CMD)", node,
		     info.provider);
		goto out;
	}
	for (uint32_t c = 0; c < info.num_cores && c < NPROF_MAX_CORES; c++)
		if (!o->cores || (o->core_map[c / 8] & (1u << (c % 8))))
			cores[ncores++] = c;
	if (o->cores) {
		for (uint32_t c = info.num_cores; c < NPROF_MAX_CORES; c++) {
			if (o->core_map[c / 8] & (1u << (c % 8))) {
				ret = usage_error("--cores %s: %s has %u NeuronCores (0 to %u)",
						  o->cores, node, info.num_cores,
						  info.num_cores - 1);
				goto out;
			}
		}
	}
	for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++)
		copts.ring_size[t] = o->ring_size;
	cap = nprof_capture_create(dev, &copts);
	if (!cap) {
		fail("%s", nprof_strerror_last());
		goto out;
	}
	cr = calloc((size_t)ncores, sizeof(*cr));
	if (!cr) {
		fail("out of memory");
		goto out;
	}
	dirfd = nprof_output_mkdir_p(o->outdir, 0755);
	if (dirfd < 0) {
		fail("cannot create output directory %s: %s", o->outdir, nprof_strerror_last());
		goto out;
	}

	for (started = 0; started < ncores; started++) {
		if (nprof_capture_session_start(cap, cores[started])) {
			fail("cannot start a session on NeuronCore %u: %s", cores[started],
			     nprof_strerror_last());
			goto out;
		}
	}
	for (int i = 0; i < ncores; i++) {
		struct nprof_sim_program prog = {
			.size = sizeof(prog),
			.core = cores[i],
			.flags = (o->throttle ? NPROF_SIM_EXEC_THROTTLE : 0) |
				 (o->error ? NPROF_SIM_EXEC_ERROR : 0),
			.model_id = (uint32_t)o->model_id,
			.iterations = (uint32_t)o->iterations,
			.dma_transfers = (uint32_t)o->dma,
			.timeout_ns = o->timeout_s ? monotonic_ns() + o->timeout_s * 1000000000ULL : 0,
		};

		for (uint32_t e = 0; e < info.engines_per_core && e < NPROF_MAX_ENGINES; e++)
			prog.instructions[e] = (uint32_t)o->instructions;
		cr[i].core = cores[i];
		cr[i].res.size = sizeof(cr[i].res);
		if (nprof_device_sim_exec(dev, &prog, &cr[i].res)) {
			fail("%s", nprof_strerror_last());
			goto out;
		}
	}
	for (int i = 0; i < ncores; i++) {
		int err = nprof_capture_session_stop(cap, cores[i], &cr[i].session_id);

		if (err) {
			fail("cannot stop the session on NeuronCore %u: %s", cores[i],
			     nprof_strerror_last());
			goto out;
		}
		cr[i].stats.size = sizeof(cr[i].stats);
		if (nprof_capture_session_stats(cap, cores[i], cr[i].session_id, &cr[i].stats)) {
			fail("NeuronCore %u: %s", cores[i], nprof_strerror_last());
			goto out;
		}
		nprof_output_session_ntff_name(cr[i].file, sizeof(cr[i].file), cores[i],
					       cr[i].session_id);
		if (nprof_capture_session_serialize_at(cap, cores[i], cr[i].session_id, dirfd)) {
			fail("%s", nprof_strerror_last());
			goto out;
		}
	}
	started = 0;	/* every session was stopped */
	ret = 0;
	for (int i = 0; i < ncores; i++) {
		for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
			uint64_t got = cr[i].stats.entries[t] + cr[i].stats.lost[t];

			if (got != cr[i].res.produced[t]) {
				fail("NeuronCore %u, %s: the simulator produced %" PRIu64
				     " notifications but the profile holds %" PRIu64 " and counts %"
				     PRIu64 " lost", cores[i], queue_name(t), cr[i].res.produced[t],
				     cr[i].stats.entries[t], cr[i].stats.lost[t]);
				ret = EXIT_FAIL;
			}
		}
	}
	print_results(o, cr, ncores, node);
out:
	/* nprof_capture_close() discards sessions still active or stashed. */
	nprof_capture_close(cap);
	nprof_device_close(dev);
	if (dirfd >= 0)
		close(dirfd);
	free(cr);
	return ret;
}

/* ---- command mode ---------------------------------------------------------- */

#define MAX_ENV	(8 + NPROF_QUEUE_TYPES)

struct env_list {
	char *v[MAX_ENV + 1];
	int n;
};

static int env_add(struct env_list *e, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int env_add(struct env_list *e, const char *name, const char *fmt, ...)
{
	char value[512];
	va_list ap;

	if (e->n == MAX_ENV)
		return -1;
	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (asprintf(&e->v[e->n], "%s=%s", name, value) < 0)
		return -1;
	e->n++;
	e->v[e->n] = NULL;
	return 0;
}

static void env_free(struct env_list *e)
{
	for (int i = 0; i < e->n; i++)
		free(e->v[i]);
	e->n = 0;
}

static int count_ntff(const char *dir, int depth)
{
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char sub[4096];
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR)
			n += count_ntff(sub, depth + 1);
		else if (len > 5 && !strcmp(de->d_name + len - 5, ".ntff"))
			n++;
	}
	closedir(d);
	return n;
}

static int build_env(const struct record_opts *o, struct env_list *e)
{
	bool ok = true;

	ok &= !env_add(e, "NEURON_RT_INSPECT_ENABLE", "1");
	ok &= !env_add(e, "NEURON_RT_INSPECT_OUTPUT_DIR", "%s", o->outdir);
	if (o->mode)
		ok &= !env_add(e, "NEURON_RT_INSPECT_DEVICE_PROFILE", "%s", o->mode);
	if (o->sysprof >= 0)
		ok &= !env_add(e, "NEURON_RT_INSPECT_SYSTEM_PROFILE", "%d", o->sysprof);
	if (o->cpu_util)
		ok &= !env_add(e, "NEURON_RT_INSPECT_CPU_UTIL", "1");
	if (o->host_mem)
		ok &= !env_add(e, "NEURON_RT_INSPECT_HOST_MEMORY", "1");
	if (o->on_fail)
		ok &= !env_add(e, "NEURON_RT_INSPECT_ON_FAIL", "1");
	if (o->cores && strcmp(o->cores, "all"))
		ok &= !env_add(e, "NEURON_RT_INSPECT_EVENT_FILTER_NC", "%s", o->cores);
	if (o->event_types)
		ok &= !env_add(e, "NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "%s", o->event_types);
	if (o->max_events)
		ok &= !env_add(e, "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC", "%s",
			       o->max_events);
	if (o->ring_size) {
		for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
			char name[64];

			snprintf(name, sizeof(name), "NEURON_RT_PROFILE_BUF_%s_MB", queue_name(t));
			ok &= !env_add(e, name, "%" PRIu64, o->ring_size >> 20);
		}
	}
	if (!ok)
		fail("out of memory");
	return ok ? 0 : -1;
}

static int record_command(struct record_opts *o, char **cmd)
{
	struct nprof_inspect_config *cfg;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	struct env_list env = { .n = 0 };
	int status, ret;
	pid_t pid;

	if (o->synthetic_only)
		return usage_error("%s applies to the synthetic model, not to a command",
				   o->synthetic_only);
	if (o->ring_size && (o->ring_size & ((1ULL << 20) - 1)))
		return usage_error("--ring-size %" PRIu64 ": the runtime's buffers are sized in "
				   "whole MiB (NEURON_RT_PROFILE_BUF_<TYPE>_MB)", o->ring_size);
	if (build_env(o, &env))
		return EXIT_FAIL;

	/* The library's parser is the authority on what the program will accept. */
	cfg = nprof_inspect_config_allocate();
	if (!cfg) {
		env_free(&env);
		return fail("out of memory");
	}
	if (nprof_inspect_config_parse_envp(cfg, env.v)) {
		ret = usage_error("%s", nprof_strerror_last());
		nprof_inspect_config_free(cfg);
		env_free(&env);
		return ret;
	}
	nprof_inspect_config_free(cfg);
	if (nprof_output_check_base(o->outdir)) {
		ret = usage_error("-o %s: %s", o->outdir, nprof_strerror_last());
		env_free(&env);
		return ret;
	}

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		env_free(&env);
		return fail("cannot fork: %s", strerror(errno));
	}
	if (!pid) {
		for (int i = 0; i < env.n; i++)
			putenv(env.v[i]);
		execvp(cmd[0], cmd);
		fprintf(stderr, "neuronprof: record: cannot run %s: %s\n", cmd[0],
			strerror(errno));
		_exit(127);
	}
	/* Like system(): the terminal's ^C and ^\ are for the command. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	env_free(&env);
	if (status == -1)
		return fail("cannot wait for %s: %s", cmd[0], strerror(errno));
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "neuronprof: record: %s was killed by signal %d; %d .ntff "
			"file%s under %s\n", cmd[0], WTERMSIG(status), count_ntff(o->outdir, 0),
			count_ntff(o->outdir, 0) == 1 ? "" : "s", o->outdir);
		return 128 + WTERMSIG(status);
	}
	ret = WEXITSTATUS(status);
	fprintf(stderr, "neuronprof: record: %s exited with status %d; %d .ntff file%s under %s\n",
		cmd[0], ret, count_ntff(o->outdir, 0), count_ntff(o->outdir, 0) == 1 ? "" : "s",
		o->outdir);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "cores", required_argument, NULL, OPT_CORES },
		{ "iterations", required_argument, NULL, OPT_ITER },
		{ "ring-size", required_argument, NULL, OPT_RING },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "instructions", required_argument, NULL, OPT_INSTR },
		{ "dma", required_argument, NULL, OPT_DMA },
		{ "model-id", required_argument, NULL, OPT_MODEL_ID },
		{ "throttle", no_argument, NULL, OPT_THROTTLE },
		{ "error", no_argument, NULL, OPT_ERROR },
		{ "load-sim", no_argument, NULL, OPT_LOAD_SIM },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "system-profile", no_argument, NULL, OPT_SYSPROF },
		{ "no-system-profile", no_argument, NULL, OPT_NO_SYSPROF },
		{ "cpu-util", no_argument, NULL, OPT_CPU_UTIL },
		{ "host-memory", no_argument, NULL, OPT_HOST_MEM },
		{ "on-fail", no_argument, NULL, OPT_ON_FAIL },
		{ "event-types", required_argument, NULL, OPT_EVENT_TYPES },
		{ "max-events", required_argument, NULL, OPT_MAX_EVENTS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record_opts o = {
		.outdir = NPROF_DEFAULT_OUTPUT_DIR,
		.iterations = 4,
		.instructions = 32,
		.dma = 8,
		.model_id = 1,
		.sysprof = -1,
	};
	uint64_t v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:h", longopts, NULL)) != -1) {
		const char *opt = argv[optind - 1];

		switch (c) {
		case 'o':
			if (!*optarg)
				return usage_error("-o: empty directory name");
			o.outdir = optarg;
			break;
		case OPT_MODE:
			if (strcmp(optarg, "session") && strcmp(optarg, "model"))
				return usage_error("--mode: '%s' is not session or model", optarg);
			o.mode = optarg;
			break;
		case OPT_CORES:
			if (parse_core_list("--cores", optarg, o.core_map, NPROF_MAX_CORES))
				return EXIT_USAGE;
			o.cores = optarg;
			break;
		case OPT_ITER:
			if (parse_u64("--iterations", optarg, 1, NEURONPROF_SIM_MAX_ITERATIONS,
				      false, &o.iterations))
				return EXIT_USAGE;
			o.synthetic_only = o.synthetic_only ? o.synthetic_only : "--iterations";
			break;
		case OPT_RING:
			if (parse_u64("--ring-size", optarg, 4096, 16ULL << 30, true, &o.ring_size))
				return EXIT_USAGE;
			break;
		case OPT_DEVICE:
			if (parse_u64("--device", optarg, 0, INT32_MAX, false, &o.device))
				return EXIT_USAGE;
			o.device_given = true;
			o.synthetic_only = o.synthetic_only ? o.synthetic_only : "--device";
			break;
		case OPT_INSTR:
			if (parse_u64("--instructions", optarg, 0, NEURONPROF_SIM_MAX_INSTRUCTIONS,
				      false, &o.instructions))
				return EXIT_USAGE;
			o.synthetic_only = o.synthetic_only ? o.synthetic_only : "--instructions";
			break;
		case OPT_DMA:
			if (parse_u64("--dma", optarg, 0, NEURONPROF_SIM_MAX_DMA, false, &o.dma))
				return EXIT_USAGE;
			o.synthetic_only = o.synthetic_only ? o.synthetic_only : "--dma";
			break;
		case OPT_MODEL_ID:
			if (parse_u64("--model-id", optarg, 0, UINT32_MAX, false, &o.model_id))
				return EXIT_USAGE;
			o.synthetic_only = o.synthetic_only ? o.synthetic_only : "--model-id";
			break;
		case OPT_THROTTLE:
			o.throttle = true;
			o.synthetic_only = o.synthetic_only ? o.synthetic_only : "--throttle";
			break;
		case OPT_ERROR:
			o.error = true;
			o.synthetic_only = o.synthetic_only ? o.synthetic_only : "--error";
			break;
		case OPT_LOAD_SIM:
			o.load_sim = true;
			o.synthetic_only = o.synthetic_only ? o.synthetic_only : "--load-sim";
			break;
		case OPT_TIMEOUT:
			if (parse_u64("--timeout", optarg, 1, 86400, false, &o.timeout_s))
				return EXIT_USAGE;
			o.synthetic_only = o.synthetic_only ? o.synthetic_only : "--timeout";
			break;
		case OPT_JSON:
			o.json = true;
			o.synthetic_only = o.synthetic_only ? o.synthetic_only : "--json";
			break;
		case OPT_SYSPROF:
		case OPT_NO_SYSPROF:
			o.sysprof = c == OPT_SYSPROF;
			if (c == OPT_SYSPROF && !o.unavailable)
				o.unavailable = "--system-profile";
			break;
		case OPT_CPU_UTIL:
			o.cpu_util = true;
			if (!o.unavailable)
				o.unavailable = "--cpu-util";
			break;
		case OPT_HOST_MEM:
			o.host_mem = true;
			if (!o.unavailable)
				o.unavailable = "--host-memory";
			break;
		case OPT_ON_FAIL:
			o.on_fail = true;
			o.command_only = o.command_only ? o.command_only : "--on-fail";
			break;
		case OPT_EVENT_TYPES:
			o.event_types = optarg;
			o.command_only = o.command_only ? o.command_only : "--event-types";
			break;
		case OPT_MAX_EVENTS:
			if (parse_u64("--max-events", optarg, 1, NPROF_SYS_TRACE_MAX_EVENTS_LIMIT,
				      false, &v))
				return EXIT_USAGE;
			o.max_events = optarg;
			o.command_only = o.command_only ? o.command_only : "--max-events";
			break;
		case 'h':
			fputs(record_usage, stdout);
			return 0;
		case ':':
			return usage_error("option '%s' needs a value", opt);
		default:
			return usage_error("unknown option '%s'", opt);
		}
	}
	if (optind < argc)
		return record_command(&o, argv + optind);
	return record_synthetic(&o);
}
