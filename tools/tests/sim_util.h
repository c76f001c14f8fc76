/* SPDX-License-Identifier: MIT */
/*
 * What the programs that drive the simulator for the VM tests (sim_run.c,
 * model_run.c) share: their numeric arguments, the engines of the first
 * simulated device, and the line of what the simulator produced.
 */
#ifndef NPROF_TOOL_TESTS_SIM_UTIL_H
#define NPROF_TOOL_TESTS_SIM_UTIL_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <neuronprof/config.h>
#include <neuronprof/device.h>

/*
 * The @n numbers after the program name into @v, or false (the usage line,
 * @names after the program's name, said) if there are not exactly @n.
 */
static bool sim_args(int argc, char **argv, const char *names, int n, unsigned long *v)
{
	if (argc != n + 1) {
		fprintf(stderr, "usage: %s %s\n", argv[0], names);
		return false;
	}
	for (int i = 0; i < n; i++)
		v[i] = strtoul(argv[i + 1], NULL, 0);
	return true;
}

/*
 * The engines per core of the first simulated device, opened here and
 * closed again unless @devp takes it; 0 (the reason said as @prog's) if
 * there is none.
 */
static uint32_t sim_engines(const char *prog, struct nprof_device **devp)
{
	struct nprof_device_info info = { .size = sizeof(info) };
	struct nprof_device *dev = nprof_device_open(NPROF_DEVICE_ANY, 0);

	if (!dev || nprof_device_get_info(dev, &info)) {
		fprintf(stderr, "%s: %s\n", prog, nprof_strerror_last());
		nprof_device_close(dev);
		return 0;
	}
	if (devp)
		*devp = dev;
	else
		nprof_device_close(dev);
	return info.engines_per_core < NPROF_MAX_ENGINES ? info.engines_per_core : NPROF_MAX_ENGINES;
}

/* "produced P0,P1,...": what the simulator produced per queue type. */
static void sim_print_produced(const uint64_t *produced)
{
	printf("produced ");
	for (int t = 0; t < NPROF_QUEUE_TYPES; t++)
		printf("%s%" PRIu64, t ? "," : "", produced[t]);
	printf("\n");
}

#endif /* NPROF_TOOL_TESTS_SIM_UTIL_H */
