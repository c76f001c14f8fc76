// SPDX-License-Identifier: MIT
/*
 * sim_run CORE COUNT ITERATIONS INSTRUCTIONS DMA: run COUNT synthetic
 * programs (THROTTLE on) on one core of the first simulated device through
 * SIM_EXEC, without subscribing to anything, and print what the simulator
 * reported:
 *   iterations I
 *   produced P0,P1,...,P8        (per queue type, over every program)
 * so that vm.sh can compare neuronprof top's totals, taken from its own
 * subscriptions, with what the device produced.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/config.h>
#include <neuronprof/device.h>

#include "sim_util.h"

int main(int argc, char **argv)
{
	uint64_t produced[NPROF_QUEUE_TYPES] = { 0 }, iterations = 0;
	struct nprof_device *dev = NULL;
	unsigned long a[5];
	uint32_t engines;

	if (!sim_args(argc, argv, "CORE COUNT ITERATIONS INSTRUCTIONS DMA", 5, a))
		return 2;
	engines = sim_engines("sim_run", &dev);
	if (!engines)
		return 1;
	for (unsigned long i = 0; i < a[1]; i++) {
		struct nprof_sim_program p = {
			.size = sizeof(p),
			.core = (uint32_t)a[0],
			.model_id = 77,
			.iterations = (uint32_t)a[2],
			.dma_transfers = (uint32_t)a[4],
			.flags = NPROF_SIM_EXEC_THROTTLE,
		};
		struct nprof_sim_result res = { .size = sizeof(res) };

		for (uint32_t e = 0; e < engines; e++)
			p.instructions[e] = (uint32_t)a[3];
		if (nprof_device_sim_exec(dev, &p, &res)) {
			fprintf(stderr, "sim_run: program %lu: %s\n", i, nprof_strerror_last());
			return 1;
		}
		iterations += a[2];
		for (int t = 0; t < NPROF_QUEUE_TYPES; t++)
			produced[t] += res.produced[t];
	}
	printf("iterations %" PRIu64 "\n", iterations);
	sim_print_produced(produced);
	nprof_device_close(dev);
	return 0;
}
