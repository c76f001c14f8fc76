// SPDX-License-Identifier: MIT
/*
 * The queue plan: which queues a capture of one NeuronCore subscribes
 * (nprof_capture_plan(), capture_internal.h), from the device's
 * description alone.
 */
#include <stddef.h>
#include <stdint.h>

#include "capture/capture_internal.h"
#include "device/device_internal.h"
#include "ntff/ntff_internal.h"
#include "util/internal.h"

static void plan_add(struct nprof_capture_qid *out, size_t max, size_t *n, uint32_t kind,
		     uint32_t index, uint32_t type, uint32_t engine)
{
	if (*n < max)
		out[*n] = (struct nprof_capture_qid){ kind, index, type, engine };
	(*n)++;
}

static void plan_target(const struct nprof_device_info *info, uint32_t nc, uint32_t kind,
			uint32_t index, struct nprof_capture_qid *out, size_t max, size_t *n)
{
	uint32_t types = kind == NPROF_TARGET_CORE ? info->core_queue_types : info->topsp_queue_types;
	uint32_t type, engine, engines;

	for (type = 0; type < 32; type++) {
		if (!(types & (1u << type)))
			continue;
		if (nprof_ntff_map_queue_type(type, NULL, NULL)) {
			/* The seed drops unmapped types the same way: never written. */
			nprof_log(NPROF_LOG_DEBUG,
				  "NC %u: dropping queue type %u of %s %u: not a queue type this library knows",
				  nc, type, kind == NPROF_TARGET_CORE ? "core" : "TopSP", index);
			continue;
		}
		engines = kind == NPROF_TARGET_CORE && (info->per_engine_queue_types & (1u << type)) ?
				  info->engines_per_core : 1;
		for (engine = 0; engine < engines; engine++)
			plan_add(out, max, n, kind, index, type, engine);
	}
}

size_t nprof_capture_plan(const struct nprof_device_info *info, uint32_t nc,
			  struct nprof_capture_qid *out, size_t max)
{
	uint32_t per = info->num_cores ? info->num_topsps / info->num_cores : 0;
	size_t n = 0;
	uint32_t t;

	plan_target(info, nc, NPROF_TARGET_CORE, nc, out, max, &n);
	for (t = 0; per && t < info->num_topsps; t++)
		if (t / per == nc)
			plan_target(info, nc, NPROF_TARGET_TOPSP, t, out, max, &n);
	return n;
}
