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

int main(int argc, char **argv)
{
	uint64_t produced[NPROF_QUEUE_TYPES] = { 0 }, iterations = 0;
	struct nprof_device_info info = { .size = sizeof(info) };
	struct nprof_device *dev;
	unsigned long core, count, iters, instr, dma;

	if (argc != 6) {
		fprintf(stderr, "usage: %s CORE COUNT ITERATIONS INSTRUCTIONS DMA\n", argv[0]);
		return 2;
	}
	core = strtoul(argv[1], NULL, 0);
	count = strtoul(argv[2], NULL, 0);
	iters = strtoul(argv[3], NULL, 0);
	instr = strtoul(argv[4], NULL, 0);
	dma = strtoul(argv[5], NULL, 0);
	dev = nprof_device_open(NPROF_DEVICE_ANY, 0);
	if (!dev || nprof_device_get_info(dev, &info)) {
		fprintf(stderr, "sim_run: %s\n", nprof_strerror_last());
		return 1;
	}
	for (unsigned long i = 0; i < count; i++) {
		struct nprof_sim_program p = {
			.size = sizeof(p),
			.core = (uint32_t)core,
			.model_id = 77,
			.iterations = (uint32_t)iters,
			.dma_transfers = (uint32_t)dma,
			.flags = NPROF_SIM_EXEC_THROTTLE,
		};
		struct nprof_sim_result res = { .size = sizeof(res) };

		for (uint32_t e = 0; e < info.engines_per_core && e < NPROF_MAX_ENGINES; e++)
			p.instructions[e] = (uint32_t)instr;
		if (nprof_device_sim_exec(dev, &p, &res)) {
			fprintf(stderr, "sim_run: program %lu: %s\n", i, nprof_strerror_last());
			return 1;
		}
		iterations += iters;
		for (int t = 0; t < NPROF_QUEUE_TYPES; t++)
			produced[t] += res.produced[t];
	}
	printf("iterations %" PRIu64 "\nproduced ", iterations);
	for (int t = 0; t < NPROF_QUEUE_TYPES; t++)
		printf("%s%" PRIu64, t ? "," : "", produced[t]);
	printf("\n");
	nprof_device_close(dev);
	return 0;
}
