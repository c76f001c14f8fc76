/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: profiling of AWS Neuron devices through the neuronprof
 * DRM driver. This umbrella header pulls in every public header.
 *
 * Conventions shared by every public function (Documentation/library.rst):
 *  - functions returning int return 0 (or a count, or a file descriptor)
 *    on success and a negative errno value on failure;
 *  - functions returning a pointer return NULL on failure and set errno;
 *  - after a failure, nprof_strerror_last() returns a message that names
 *    what was wrong; it stays valid until the next failure in this thread.
 *  - names are nprof_<object>_<verb>; objects are opaque structs.
 */
#ifndef NEURONPROF_NEURONPROF_H
#define NEURONPROF_NEURONPROF_H

#include <neuronprof/common.h>
#include <neuronprof/config.h>
#include <neuronprof/sys_trace_events.h>
#include <neuronprof/output.h>
#include <neuronprof/ntff.h>
#include <neuronprof/device.h>
#include <neuronprof/capture.h>
#include <neuronprof/sys_trace.h>
#include <neuronprof/monitor.h>
#include <neuronprof/inspect.h>
#include <neuronprof/runtime.h>
#include <neuronprof/profile.h>

#endif /* NEURONPROF_NEURONPROF_H */
