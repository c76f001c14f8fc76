/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: the inspect session, the process-wide profiling controller
 * (the runtime's nrt_inspect_begin / _begin_with_options / _stop / _close).
 *
 * One session at a time per process. Begin arms what the configuration
 * asks for (the activity fan-out):
 *
 *	system_profile          the host system trace (<neuronprof/sys_trace.h>)
 *	cpu_util, host_memory   the system monitor (<neuronprof/monitor.h>)
 *	device_profile/SESSION  a capture session on every enabled NeuronCore of
 *	                        every neuronprof device (all or nothing)
 *	device_profile/MODEL    nothing at begin: the runtime hooks
 *	                        (<neuronprof/runtime.h>) capture the first
 *	                        execution of each model on each core
 *
 * and writes everything into one directory,
 * <base>/<instance_id>-<pid>/<session_init_ns>/ (<neuronprof/output.h>).
 * Stop is the one point where captures are harvested and written: every
 * core's profile_nc_<vnc>_session_<id>.ntff, then the system profile
 * (ntrace.pb, trace_info.pb, cpu_util.pb, host_mem.pb). The same harvest
 * runs when the process exits (atexit) or receives a fatal signal while a
 * session is active; every file appears complete or not at all.
 *
 * Virtual cores: the NeuronCores of all neuronprof devices are numbered
 * 0, 1, ... in device-index order (device 0's cores first); configurations,
 * file names and the runtime hooks use these numbers ("vnc").
 *
 * Documentation/inspect.rst describes the controller, the crash flush and
 * every difference from the Neuron runtime.
 */
#ifndef NEURONPROF_INSPECT_H
#define NEURONPROF_INSPECT_H

#include <stddef.h>
#include <stdint.h>

#include <neuronprof/common.h>
#include <neuronprof/config.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * nprof_inspect_begin() - begin a session configured by the environment.
 *
 * Allocates a configuration with the defaults, applies the NEURON_RT_INSPECT_*
 * and NEURON_RT_PROFILE_BUF_*_MB variables (nprof_inspect_config_parse_env())
 * and calls nprof_inspect_begin_with_options(). NEURON_RT_INSPECT_ENABLE is
 * the master switch: when neither it nor NEURON_RT_INSPECT_ON_FAIL is 1, no
 * session begins and 0 is returned.
 *
 * Return: as nprof_inspect_begin_with_options(); -EINVAL also for a
 * malformed variable (the message names it); -ENOMEM.
 */
NPROF_API int nprof_inspect_begin(void);

/**
 * nprof_inspect_begin_with_options() - begin a session as @cfg says.
 * @cfg: the configuration; it is copied, and the environment is ignored.
 *
 * With inspect and inspect-on-fail both off in @cfg nothing begins (a
 * warning is logged) and 0 is returned. With inspect off and inspect-on-fail
 * on, the session arms no activity: it only captures the device profile of
 * failing executions. Otherwise the session arms every enabled activity, in
 * the order system trace, monitor, device sessions; if one fails, whatever
 * was armed before it is disarmed again and the error is returned (a failing
 * core's message names it and the cores rolled back).
 *
 * Device profiling (activity device_profile with a mode other than DISABLED)
 * is refused while continuous profiling is enabled.
 *
 * Crash safety is installed on the first begin: handlers for SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM and SIGINT (except those the
 * process ignores), chained to the handlers they replace, and an atexit
 * hook. Both harvest an active session as nprof_inspect_stop() does.
 *
 * Return: 0; -EINVAL (@cfg NULL, a refused output directory); -EBUSY (a
 * session is already active; continuous profiling is enabled); the error of
 * creating the output directory (-EPERM for a foreign symbolic link,
 * -ENOTDIR, ...); or that of the activity that could not be armed.
 */
NPROF_API int nprof_inspect_begin_with_options(const struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_stop() - harvest and write everything the session captured
 * and end it.
 *
 * For every core with a device session: stop it, then write
 * profile_nc_<vnc>_session_<id>.ntff into the session directory. Captures of
 * executions still in progress are abandoned (logged). Then the system trace
 * and the monitor stop and the system profile is written: ntrace.pb and
 * trace_info.pb with the system_profile activity, cpu_util.pb with cpu_util,
 * host_mem.pb with host_memory. A part that fails does not keep the others
 * from being written; the first error is returned.
 *
 * Return: 0; -EALREADY if no session is active (nothing is written, e.g.
 * after the crash flush or the atexit hook already harvested it); or the
 * first error of writing a file (the message names it).
 */
NPROF_API int nprof_inspect_stop(void);

/**
 * nprof_inspect_close() - nprof_inspect_stop() if a session is active, then
 * release the session: the MODEL record map is cleared and, if any session
 * since the last close had inspect-on-fail on, the profiles this process
 * salvaged into ./tmp are removed, then its directory
 * ./tmp/<instance_id>-<pid>, then ./tmp itself if that left it empty.
 *
 * Return: 0, or the error of the stop (the release happens regardless).
 */
NPROF_API int nprof_inspect_close(void);

/**
 * nprof_inspect_is_active() - is a session active in this process.
 *
 * Return: 1 or 0. Never fails.
 */
NPROF_API int nprof_inspect_is_active(void);

/**
 * nprof_inspect_session_dir() - the active session's directory,
 * "<base>/<instance_id>-<pid>/<session_init_ns>".
 * @buf: out, NUL-terminated.
 * @len: size of @buf; PATH_MAX always suffices.
 *
 * Return: the length of the path; -EINVAL (@buf NULL); -ENOENT (no active
 * session); -ENAMETOOLONG (@len too small).
 */
NPROF_API int nprof_inspect_session_dir(char *buf, size_t len);

/**
 * nprof_inspect_salvage_dir() - where this process moves the profiles of
 * failed executions: "./tmp/<instance_id>-<pid>" (relative to the working
 * directory of the first salvage, or of this call if none happened yet).
 * @buf, @len: as for nprof_inspect_session_dir().
 *
 * Return: the length; -EINVAL; -ENAMETOOLONG; or the error of finding the
 * instance id.
 */
NPROF_API int nprof_inspect_salvage_dir(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_INSPECT_H */
