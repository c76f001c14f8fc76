// SPDX-License-Identifier: MIT
/*
 * neuronprof record: the ring memory a recording will ask for, added up
 * before anything runs (util/ringmem.h), with or without a command.
 *
 * Both count rings as the library's queue plan does: per core, every core
 * queue type (one per engine where the type has one) and the queues of the
 * core's TopSPs, each of its type's ring size (at least the device's
 * min_ring_size). The synthetic model takes the sizes of --ring-size or
 * record's own defaults; a command's runtime those its inspect
 * configuration will say, parsed from the environment the command gets
 * (record's variables over the user's NEURON_RT_PROFILE_BUF_<TYPE>_MB, or
 * the library's defaults), on the cores that configuration captures
 * (NEURON_RT_INSPECT_EVENT_FILTER_NC, from --cores) of every device, in the
 * library's numbering (the cores of lower devices first). A --ring-size
 * above a device's max_ring_size is refused; a size from the environment
 * or the defaults above it counts as the maximum, which the library
 * shrinks it to (the runtime's 128 MiB TRACE default on a 64 MiB device).
 */
#include <string.h>
#include <unistd.h>

#include <neuronprof/config.h>
#include <neuronprof/device.h>

#include "record.h"
#include "util/ringmem.h"
#include "tool.h"

void record_ring_plan_cores(struct ring_plan *p, const struct nprof_device_info *info,
			    size_t ncores, const uint64_t size[NPROF_QUEUE_TYPES])
{
	uint32_t per = info->num_cores ? info->num_topsps / info->num_cores : 0;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
		uint64_t sz = size[t] < info->min_ring_size ? info->min_ring_size : size[t];
		size_t n = 0;

		if (info->core_queue_types & (1u << t))
			n += info->per_engine_queue_types & (1u << t) ? info->engines_per_core : 1;
		if (info->topsp_queue_types & (1u << t))
			n += per;
		ring_plan_add(p, sz, n * ncores, page);
	}
}

int record_command_rings(const struct nprof_inspect_config *cfg, uint64_t asked,
			 const struct nprof_device_info *infos, size_t ndev,
			 const struct ring_limits *lim, char *why, size_t len)
{
	struct ring_plan plan = { .fewer = " or fewer --cores" };
	uint64_t device_max = 0;
	uint32_t vnc = 0;
	size_t ncores = 0;
	int mask = nprof_inspect_config_get_activity_mask(cfg);

	/* No device profile (nor on-fail capture): the runtime subscribes nothing. */
	if (mask < 0 || (!(mask & NPROF_ACTIVITY_DEVICE_PROFILE) &&
			 nprof_inspect_config_get_enable_inspect_on_fail(cfg) != 1))
		return 0;
	for (size_t d = 0; d < ndev; d++) {
		const struct nprof_device_info *info = &infos[d];
		uint64_t size[NPROF_QUEUE_TYPES];
		size_t n = 0;

		for (uint32_t c = 0; c < info->num_cores && vnc < NPROF_MAX_CORES; c++, vnc++)
			n += nprof_inspect_config_get_capture_enabled_for_nc(cfg, vnc) == 1;
		if (!n)
			continue;
		for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
			if (nprof_inspect_config_get_ring_size(cfg, t, &size[t]))
				size[t] = nprof_ring_size_default(t);
			/* Not record's --ring-size: what the library shrinks it to. */
			if (size[t] != asked && info->max_ring_size &&
			    size[t] > info->max_ring_size)
				size[t] = info->max_ring_size;
		}
		record_ring_plan_cores(&plan, info, n, size);
		if (info->max_ring_size && (!device_max || info->max_ring_size < device_max))
			device_max = info->max_ring_size;
		ncores += n;
	}
	if (!ncores || !ring_plan_check(&plan, device_max, lim, why, len))
		return 0;
	return -1;
}

int record_check_command_rings(const char *cmd, char *const envp[], uint64_t asked)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	struct nprof_device_info infos[16];
	struct nprof_device_node nodes[16];
	struct ring_limits lim;
	size_t ndev = 0;
	char why[512];
	int n, ret = 0;

	if (!cfg)
		return fail("out of memory");
	/* As the runtime will see it: the user's environment, then record's variables. */
	if (nprof_inspect_config_parse_env(cfg, NULL, NULL))
		nprof_inspect_config_set_defaults(cfg);
	if (nprof_inspect_config_parse_envp(cfg, envp))
		goto out;	/* record's own variables were checked before */
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		nodes[i].size = sizeof(nodes[i]);
	/* No device (yet): the runtime finds none either, and says so. */
	n = nprof_device_list(nodes, sizeof(nodes) / sizeof(nodes[0]));
	for (int i = 0; i < n && i < (int)(sizeof(nodes) / sizeof(nodes[0])); i++) {
		struct nprof_device *dev = nprof_device_open((int)nodes[i].device_index, 0);

		infos[ndev].size = sizeof(infos[ndev]);
		if (!dev || nprof_device_get_info(dev, &infos[ndev])) {
			/* Its cores still count in the numbering; no rings of it are known. */
			memset(&infos[ndev], 0, sizeof(infos[ndev]));
			infos[ndev].num_cores = nodes[i].num_cores;
		}
		ndev++;
		if (dev)
			nprof_device_close(dev);
	}
	ring_limits_read(&lim, "");
	if (record_command_rings(cfg, asked, infos, ndev, &lim, why, sizeof(why)))
		ret = fail("not running %s: the rings its runtime would ask for do not fit: %s",
			   cmd, why);
out:
	nprof_inspect_config_free(cfg);
	return ret;
}
