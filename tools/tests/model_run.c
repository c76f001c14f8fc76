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

#include "sim_util.h"

int main(int argc, char **argv)
{
	uint64_t produced[NPROF_QUEUE_TYPES] = { 0 };
	unsigned long a[4], i;
	struct nprof_model *m;
	struct timespec ts;
	uint32_t engines;

	if (!sim_args(argc, argv, "CORE COUNT ITERATIONS PAUSE_MS", 4, a))
		return 2;
	engines = sim_engines("model_run", NULL);
	if (!engines)
		return 1;
	if (nprof_inspect_begin()) {
		fprintf(stderr, "model_run: %s\n", nprof_strerror_last());
		return 1;
	}
	m = nprof_model_load("model_run", 9, (uint32_t)a[0]);
	if (!m) {
		fprintf(stderr, "model_run: %s\n", nprof_strerror_last());
		return 1;
	}
	ts.tv_sec = (time_t)(a[3] / 1000);
	ts.tv_nsec = (long)(a[3] % 1000) * 1000000L;
	for (i = 0; i < a[1]; i++) {
		struct nprof_sim_program p = {
			.size = sizeof(p),
			.iterations = (uint32_t)a[2],
			.dma_transfers = 1,
		};
		struct nprof_sim_result res = { .size = sizeof(res) };

		for (uint32_t e = 0; e < engines; e++)
			p.instructions[e] = 8;
		if (nprof_model_sim_execute(m, &p, &res)) {
			fprintf(stderr, "model_run: execution %lu: %s\n", i + 1, nprof_strerror_last());
			return 1;
		}
		for (int t = 0; t < NPROF_QUEUE_TYPES; t++)
			produced[t] += res.produced[t];
		if (a[3])
			nanosleep(&ts, NULL);
	}
	nprof_model_unload(m);
	if (nprof_inspect_stop() || nprof_inspect_close()) {
		fprintf(stderr, "model_run: %s\n", nprof_strerror_last());
		return 1;
	}
	printf("executions %lu\n", a[1]);
	sim_print_produced(produced);
	return 0;
}
