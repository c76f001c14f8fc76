// SPDX-License-Identifier: MIT
/*
 * neuronprof sim run: a workload on the simulator (neuronprof_sim), for
 * trying `top`, `exporter` and `record -a`-style captures without a
 * runtime: synthetic programs (Documentation/simulator.rst) executed
 * through SIM_EXEC on the chosen cores at once, one thread per core, each
 * program --iterations long with --instructions per engine and --dma
 * transfers per iteration, --executions programs per core or back to back
 * until --duration has passed (SIGINT or SIGTERM stops after the programs
 * running). It subscribes to nothing: whoever watches the queues sees the
 * load. At the end it prints, per core and in total, the programs run,
 * the iterations, the programs that raised an error and what the
 * simulator says it produced into subscribed queues, per queue type.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/config.h>
#include <neuronprof/device.h>

#include "util/json.h"
#include "util/options.h"
#include "tool.h"

static volatile sig_atomic_t sim_stop;

static void on_stop(int sig)
{
	(void)sig;
	sim_stop = 1;
}

struct sim_opts {
	uint64_t device, executions, iterations, instructions, dma, model_id, errors;
	uint64_t duration_ns;
	bool executions_given, throttle, json;
	const char *cores;
	uint8_t core_map[NPROF_MAX_CORES / 8];
};

/* One core's worker and what it did. */
struct sim_core {
	const struct sim_opts *o;
	uint32_t core, engines;
	uint64_t until;			/* CLOCK_MONOTONIC deadline of --duration, else 0 */
	uint64_t programs, iterations, failed;
	uint64_t produced[NPROF_SIM_QUEUE_TYPES];
	char err[256];			/* the failure that ended it, or empty */
	pthread_t thread;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *sim_core_run(void *arg)
{
	struct sim_core *c = arg;
	const struct sim_opts *o = c->o;
	struct nprof_device *dev = nprof_device_open((int)o->device, 0);

	if (!dev) {
		snprintf(c->err, sizeof(c->err), "%s", nprof_strerror_last());
		return NULL;
	}
	while (!sim_stop && (c->until ? now_ns() < c->until : c->programs < o->executions)) {
		struct nprof_sim_program p = {
			.size = sizeof(p),
			.core = c->core,
			.model_id = (uint32_t)o->model_id,
			.iterations = (uint32_t)o->iterations,
			.dma_transfers = (uint32_t)o->dma,
			.flags = o->throttle ? NPROF_SIM_EXEC_THROTTLE : 0,
		};
		struct nprof_sim_result res = { .size = sizeof(res) };

		/* --errors N: every Nth program of the core raises an execution error. */
		if (o->errors && (c->programs + 1) % o->errors == 0)
			p.flags |= NPROF_SIM_EXEC_ERROR;
		for (uint32_t e = 0; e < c->engines && e < NPROF_MAX_ENGINES; e++)
			p.instructions[e] = (uint32_t)o->instructions;
		if (nprof_device_sim_exec(dev, &p, &res)) {
			snprintf(c->err, sizeof(c->err), "program %" PRIu64 ": %s", c->programs,
				 nprof_strerror_last());
			break;
		}
		c->programs++;
		c->iterations += o->iterations;
		if (res.status)
			c->failed++;
		for (int t = 0; t < NPROF_SIM_QUEUE_TYPES; t++)
			c->produced[t] += res.produced[t];
	}
	nprof_device_close(dev);
	return NULL;
}

enum { SIM_CORES, SIM_EXECUTIONS };

static int sim_opt(const struct opt *opt, const char *arg, void *ctx)
{
	struct sim_opts *o = ctx;

	switch (opt->tag) {
	case SIM_CORES:
		if (parse_core_list("--cores", arg, o->core_map, NPROF_MAX_CORES))
			return EXIT_USAGE;
		o->cores = strcmp(arg, "all") ? arg : NULL;
		return 0;
	case SIM_EXECUTIONS:
		if (parse_u64("--executions", arg, 1, UINT32_MAX, false, &o->executions))
			return EXIT_USAGE;
		o->executions_given = true;
		return 0;
	}
	return 0;
}

static void print_text(const struct sim_core *cs, size_t n, const struct nprof_device_info *info,
		       uint64_t elapsed_ns)
{
	uint64_t tot[NPROF_SIM_QUEUE_TYPES] = { 0 }, programs = 0, iterations = 0, failed = 0;

	printf("device %u (%s): %zu core%s, %.3f s\n", info->device_index, info->provider, n,
	       n == 1 ? "" : "s", (double)elapsed_ns / 1e9);
	for (size_t i = 0; i < n; i++) {
		const struct sim_core *c = &cs[i];
		uint64_t sum = 0;

		for (int t = 0; t < NPROF_SIM_QUEUE_TYPES; t++) {
			sum += c->produced[t];
			tot[t] += c->produced[t];
		}
		programs += c->programs;
		iterations += c->iterations;
		failed += c->failed;
		printf("  core %u: %" PRIu64 " programs (%" PRIu64 " with an error), %" PRIu64
		       " iterations, %" PRIu64 " notifications produced into subscribed queues\n",
		       c->core, c->programs, c->failed, c->iterations, sum);
	}
	printf("total: %" PRIu64 " programs (%" PRIu64 " with an error), %" PRIu64
	       " iterations; produced per queue type:", programs, failed, iterations);
	for (int t = 0; t < NPROF_SIM_QUEUE_TYPES; t++)
		printf(" %s %" PRIu64, queue_name((uint32_t)t), tot[t]);
	printf("\n");
}

static void print_json(const struct sim_core *cs, size_t n, const struct nprof_device_info *info,
		       uint64_t elapsed_ns)
{
	struct json j;

	jw_init(&j, stdout, false);
	jw_obj_begin(&j, NULL);
	jw_u64(&j, "device", info->device_index);
	jw_str(&j, "provider", info->provider);
	jw_u64(&j, "elapsed_ns", elapsed_ns);
	jw_arr_begin(&j, "cores");
	for (size_t i = 0; i < n; i++) {
		const struct sim_core *c = &cs[i];

		jw_obj_begin(&j, NULL);
		jw_u64(&j, "core", c->core);
		jw_u64(&j, "programs", c->programs);
		jw_u64(&j, "failed", c->failed);
		jw_u64(&j, "iterations", c->iterations);
		jw_obj_begin(&j, "produced");
		for (int t = 0; t < NPROF_SIM_QUEUE_TYPES; t++)
			jw_u64(&j, queue_name((uint32_t)t), c->produced[t]);
		jw_obj_end(&j);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_finish(&j);
	fputc('\n', stdout);
}

int cmd_sim(int argc, char **argv)
{
	struct sim_opts o = {
		.executions = 1, .iterations = 4, .instructions = 32, .dma = 8, .model_id = 1,
	};
	const struct opt opts[] = {
		OPT_U64(0, "device", &o.device, "N", 0, INT32_MAX, "device index (default: 0)"),
		OPT_CALLBACK(0, "cores", "LIST", sim_opt, SIM_CORES,
			     "NeuronCores to load: 0,2-3 or all (default all)"),
		OPT_CALLBACK(0, "executions", "N", sim_opt, SIM_EXECUTIONS,
			     "programs per core (default 1)"),
		OPT_SECONDS(0, "duration", &o.duration_ns, 1000000, 7 * 86400 * 1000000000ULL,
			"run programs back to back for SEC seconds instead", .syn_join = SYN_OR),
		OPT_U64(0, "iterations", &o.iterations, "N", 1, NEURONPROF_SIM_MAX_ITERATIONS,
			"iterations per program (default 4)"),
		OPT_U64(0, "instructions", &o.instructions, "N", 0, NEURONPROF_SIM_MAX_INSTRUCTIONS,
			"instructions per engine per iteration (default 32)"),
		OPT_U64(0, "dma", &o.dma, "N", 0, NEURONPROF_SIM_MAX_DMA,
			"DMA transfers per iteration (default 8)"),
		OPT_U64(0, "errors", &o.errors, "N", 0, UINT32_MAX,
			"every Nth program of a core raises an execution error\n"
			"(status 1004); 0, the default: none"),
		OPT_U64(0, "model-id", &o.model_id, "N", 0, UINT32_MAX,
			"model id of every notification (default 1)"),
		OPT_BOOL(0, "throttle", &o.throttle, "throttle every iteration (THROTTLE entries)"),
		OPT_BOOL(0, "json", &o.json, "machine-readable result"),
		OPT_END(),
	};
	struct nprof_device_info info = { .size = sizeof(info) };
	struct sigaction sa = { .sa_handler = on_stop };
	struct nprof_device *dev;
	struct sim_core *cs;
	uint64_t start;
	size_t n = 0;
	int ret;

	/* "sim run [options]"; "sim --help" and "sim run --help" both print the usage. */
	if (argc >= 2 && !strcmp(argv[1], "run")) {
		argc--;
		argv++;
	} else if (argc < 2 || argv[1][0] != '-') {
		return usage_error(argc < 2 ? "missing what to do: sim run" :
				   "unknown sim command '%s': sim run", argv[argc < 2 ? 0 : 1]);
	}
	if (opts_parse(argc, argv, opts, &o, &ret))
		return ret;
	if (argv[0] && strcmp(argv[0], "run"))
		return usage_error("missing what to do: sim run");
	if (check_operands(argc, argv, 0, NULL))
		return EXIT_USAGE;
	if (o.duration_ns && o.executions_given)
		return usage_error("--duration and --executions both say how long to run: give one");
	dev = nprof_device_open((int)o.device, 0);
	if (!dev || nprof_device_get_info(dev, &info)) {
		fail("%s", nprof_strerror_last());
		if (dev)
			nprof_device_close(dev);
		return EXIT_FAIL;
	}
	nprof_device_close(dev);
	if (!(info.caps & NPROF_DEVICE_CAP_SIM_EXEC))
		return fail("device %" PRIu64 " is not simulated (provider %s): sim run needs "
			    "neuronprof_sim", o.device, info.provider);
	for (uint32_t c = 0; c < NPROF_MAX_CORES; c++)
		if (o.cores && (o.core_map[c / 8] & (1u << (c % 8))) && c >= info.num_cores)
			return usage_error("--cores %u: device %" PRIu64 " has %u NeuronCores (0 to %u)",
					   c, o.device, info.num_cores, info.num_cores - 1);
	cs = xcalloc(info.num_cores ? info.num_cores : 1, sizeof(*cs));
	ret = 0;
	start = now_ns();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (uint32_t c = 0; c < info.num_cores; c++) {
		struct sim_core *k;

		if (o.cores && !(o.core_map[c / 8] & (1u << (c % 8))))
			continue;
		k = &cs[n++];
		k->o = &o;
		k->core = c;
		k->engines = info.engines_per_core;
		k->until = o.duration_ns ? start + o.duration_ns : 0;
		if (pthread_create(&k->thread, NULL, sim_core_run, k)) {
			n--;
			sim_stop = 1;
			fail("cannot start a thread for core %u: %s", c, strerror(errno));
			break;
		}
	}
	for (size_t i = 0; i < n; i++)
		pthread_join(cs[i].thread, NULL);
	for (size_t i = 0; i < n; i++)
		if (cs[i].err[0])
			ret = fail("core %u: %s", cs[i].core, cs[i].err);
	if (o.json)
		print_json(cs, n, &info, now_ns() - start);
	else
		print_text(cs, n, &info, now_ns() - start);
	free(cs);
	return ret ? EXIT_FAIL : 0;
}
