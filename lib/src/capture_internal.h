/* SPDX-License-Identifier: MIT */
/*
 * Capture-engine internals the host tests reach: which queues a session on
 * a core subscribes.
 */
#ifndef NEURONPROF_CAPTURE_INTERNAL_H
#define NEURONPROF_CAPTURE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <neuronprof/device.h>

/* One queue of a device. */
struct nprof_queue_id {
	uint32_t target_kind;
	uint32_t target_index;
	uint32_t queue_type;
	uint32_t engine;
};

/*
 * The queues of a session on core @nc of a device described by @info: every
 * queue type of the core (one per engine for per-engine types), then every
 * queue type of each TopSP serving the core, in type and engine order.
 * Types this library does not know are left out with a debug message.
 * Fills at most @max ids (@out may be NULL when @max is 0).
 *
 * Return: the number of queues (which may exceed @max).
 */
size_t nprof_capture_plan(const struct nprof_device_info *info, uint32_t nc,
			  struct nprof_queue_id *out, size_t max);

#endif /* NEURONPROF_CAPTURE_INTERNAL_H */
