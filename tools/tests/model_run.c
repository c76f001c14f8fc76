// SPDX-License-Identifier: MIT
/*
 * model_run CORE COUNT ITERATIONS PAUSE_MS: what a runtime does for the
 * library, with a workload: begin the inspect session from the environment
 * (`neuronprof record -- model_run ...` sets it), load a model on the
 * virtual core CORE, execute COUNT synthetic programs of ITERATIONS
 * iterations through the runtime hooks (nprof_model_sim_execute(), so the
 * library sees each execution begin and end, as record's synthetic model),
 * PAUSE_MS milliseconds apart, then stop and close the session, which
 * writes the profiles. Prints what the simulator produced:
 *   executions N
 *   produced P0,P1,...,P8        (per queue type, over every program)
 * for vm_limits.sh.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <neuronprof/config.h>
#include <neuronprof/device.h>
#include <neuronprof/inspect.h>
#include <neuronprof/runtime.h>

int main(int argc, char **argv)
{
	uint64_t produced[NPROF_QUEUE_TYPES] = { 0 };
	struct nprof_device_info info = { .size = sizeof(info) };
	unsigned long core, count, iters, pause_ms, i;
	struct nprof_device *dev;
	struct nprof_model *m;
	struct timespec ts;

	if (argc != 5) {
		fprintf(stderr, "usage: %s CORE COUNT ITERATIONS PAUSE_MS\n", argv[0]);
		return 2;
	}
	core = strtoul(argv[1], NULL, 0);
	count = strtoul(argv[2], NULL, 0);
	iters = strtoul(argv[3], NULL, 0);
	pause_ms = strtoul(argv[4], NULL, 0);
	dev = nprof_device_open(NPROF_DEVICE_ANY, 0);
	if (!dev || nprof_device_get_info(dev, &info)) {
		fprintf(stderr, "model_run: %s\n", nprof_strerror_last());
		return 1;
	}
	nprof_device_close(dev);
	if (nprof_inspect_begin()) {
		fprintf(stderr, "model_run: %s\n", nprof_strerror_last());
		return 1;
	}
	m = nprof_model_load("model_run", 9, (uint32_t)core);
	if (!m) {
		fprintf(stderr, "model_run: %s\n", nprof_strerror_last());
		return 1;
	}
	ts.tv_sec = (time_t)(pause_ms / 1000);
	ts.tv_nsec = (long)(pause_ms % 1000) * 1000000L;
	for (i = 0; i < count; i++) {
		struct nprof_sim_program p = {
			.size = sizeof(p),
			.iterations = (uint32_t)iters,
			.dma_transfers = 1,
		};
		struct nprof_sim_result res = { .size = sizeof(res) };

		for (uint32_t e = 0; e < info.engines_per_core && e < NPROF_MAX_ENGINES; e++)
			p.instructions[e] = 8;
		if (nprof_model_sim_execute(m, &p, &res)) {
			fprintf(stderr, "model_run: execution %lu: %s\n", i + 1, nprof_strerror_last());
			return 1;
		}
		for (int t = 0; t < NPROF_QUEUE_TYPES; t++)
			produced[t] += res.produced[t];
		if (pause_ms)
			nanosleep(&ts, NULL);
	}
	nprof_model_unload(m);
	if (nprof_inspect_stop() || nprof_inspect_close()) {
		fprintf(stderr, "model_run: %s\n", nprof_strerror_last());
		return 1;
	}
	printf("executions %lu\nproduced ", count);
	for (int t = 0; t < NPROF_QUEUE_TYPES; t++)
		printf("%s%" PRIu64, t ? "," : "", produced[t]);
	printf("\n");
	return 0;
}
