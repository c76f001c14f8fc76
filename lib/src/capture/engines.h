/* SPDX-License-Identifier: MIT */
/*
 * The capture engines of the process's devices (engines.c): the device
 * registry every capture mode shares.
 *
 * capture/ is layer 4 of the library (lib/src/README): it may call util/,
 * model/, ntff/, output/, device/ and record trace points through
 * trace/base/tracepoint.h; never trace/ (same layer, the other way round), the
 * modes, config/ or session/.
 */
#ifndef NEURONPROF_CAPTURE_ENGINES_H
#define NEURONPROF_CAPTURE_ENGINES_H

#include <stddef.h>
#include <stdint.h>

#include <neuronprof/capture.h>
#include <neuronprof/device.h>

/*
 * Every neuronprof device of the process, opened once and shared by the
 * inspect session, the runtime hooks, direct and continuous profiling, with
 * one capture engine per device (two engines on one device would each
 * subscribe every queue: twice the ring memory, and a queue takes a bounded
 * number of subscribers). Virtual cores number the cores of
 * all devices in device-index order.
 */

/*
 * Take a reference; the first one opens every device (none is not an
 * error: the registry is then empty and says why when a core is asked for).
 */
void nprof_rt_get(void);

/* Drop a reference; the last one closes the devices and their engines. */
void nprof_rt_put(void);

/* Virtual cores of the registry (0 when it holds no device). */
uint32_t nprof_rt_num_cores(void);

/*
 * The device holding virtual core @vnc and the core's index on it, for
 * callers holding a reference. -ENODEV with a message if no device does.
 */
int nprof_rt_device(uint32_t vnc, struct nprof_device **dev, uint32_t *local);

/*
 * The name of virtual core @vnc in messages: "NC 8 (device 1 core 0)", the
 * library's global number (that of file names) and the device's own, or
 * "NC 8" when no device holds it. Returns @buf.
 */
const char *nprof_rt_nc_name(uint32_t vnc, char *buf, size_t len);

/*
 * The capture engine of the device holding @vnc, created on first use with
 * the ring sizes of nprof_rt_set_capture_opts(); counts a user of it (and
 * holds a registry reference) until nprof_rt_capture_put(). The engine is
 * closed when its last user goes, so rings are only held while something
 * captures.
 */
int nprof_rt_capture_get(uint32_t vnc, struct nprof_capture **cap, uint32_t *local);
void nprof_rt_capture_put(uint32_t vnc);

/*
 * nprof_rt_capture_get() and a session started on the core, about the model
 * *@model_id (NULL: a SESSION capture; see
 * nprof_capture_session_start_for()): on success the caller holds the
 * engine (nprof_rt_capture_put() when done with the session); on failure
 * nothing is held and the message is recorded.
 */
int nprof_rt_capture_start(uint32_t vnc, const uint64_t *model_id, struct nprof_capture **cap,
			   uint32_t *local);

/* Ring sizes of engines created from now on; NULL restores the defaults. */
void nprof_rt_set_capture_opts(const struct nprof_capture_opts *opts);

/*
 * Iterations the engines created from now on write (counted from 1; 0, 0:
 * every one; see nprof_capture_set_iterations()). An engine on a device
 * of raw entries then fails to be created, -EOPNOTSUPP.
 */
void nprof_rt_set_capture_iterations(uint64_t first, uint64_t last);

/*
 * Test seam: use these @n devices instead of enumerating (they are not
 * closed by the registry); @n may be 0 for a registry without devices.
 * @devs NULL restores enumeration. -EBUSY while referenced.
 */
int nprof_rt_set_test_devices(struct nprof_device *const *devs, size_t n);

#endif /* NEURONPROF_CAPTURE_ENGINES_H */
