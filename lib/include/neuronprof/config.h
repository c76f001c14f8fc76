/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: the inspect configuration (the options bag of an inspect
 * session), its system-trace part, and the one parser of the
 * NEURON_RT_INSPECT_* and NEURON_RT_PROFILE_BUF_<TYPE>_MB environment.
 *
 * Names and defaults follow the public Neuron runtime (nrt_inspect_config_*,
 * nrt_sys_trace_config_*): session id 1, output directory "./output", every
 * activity on, every core and every event type captured, inspect off,
 * inspect-on-fail off. Documentation/library.rst has the full table.
 */
#ifndef NEURONPROF_CONFIG_H
#define NEURONPROF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <neuronprof/common.h>
#include <neuronprof/output.h>
#include <neuronprof/sys_trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * NPROF_MAX_CORES and NPROF_QUEUE_TYPES are in <neuronprof/common.h>,
 * NPROF_DEFAULT_OUTPUT_DIR in <neuronprof/output.h>, the system-trace ring's
 * NPROF_SYS_TRACE_DEFAULT_MAX_EVENTS and _MAX_EVENTS_LIMIT in
 * <neuronprof/sys_trace.h>; all three are included here.
 */

/* Limits of a per-queue-type ring size, in MiB (NEURON_RT_PROFILE_BUF_*_MB). */
#define NPROF_RING_SIZE_MIN_MB		1ULL
#define NPROF_RING_SIZE_MAX_MB		16384ULL

/*
 * Activities of an inspect session: which producers a session arms. The bit
 * values are those of nrt_inspect_activities_t.
 */
enum nprof_activity {
	NPROF_ACTIVITY_SYSTEM_PROFILE = 1u << 0,	/* "system_profile": host sys_trace ring */
	NPROF_ACTIVITY_DEVICE_PROFILE = 1u << 1,	/* "device_profile": device queues to NTFF */
	NPROF_ACTIVITY_HOST_MEMORY = 1u << 2,		/* "host_memory": host_mem.pb */
	NPROF_ACTIVITY_CPU_UTIL = 1u << 3,		/* "cpu_util": cpu_util.pb */
};

/* Every activity bit ("all"). */
#define NPROF_ACTIVITY_ALL	0xfu

/*
 * How device profiles are captured when the device_profile activity is on.
 * A device profile is produced only if the activity is enabled AND the mode
 * is not DISABLED.
 */
enum nprof_device_profile_mode {
	NPROF_DEVICE_PROFILE_DISABLED = 0,
	NPROF_DEVICE_PROFILE_MODEL = 1,		/* per execution, one file per model per core */
	NPROF_DEVICE_PROFILE_SESSION = 2,	/* all device activity of a core in one file */
};

/* Opaque options bags. */
struct nprof_inspect_config;
struct nprof_sys_trace_config;

/* ---- activity names ------------------------------------------------------ */

/**
 * nprof_activity_from_name() - bits of an activity name.
 * @name: "system_profile", "device_profile", "host_memory", "cpu_util" or
 *	"all" (exact, case-sensitive).
 *
 * Return: the enum nprof_activity bit (NPROF_ACTIVITY_ALL for "all"), or
 * -EINVAL if @name is NULL or unknown (the message names it).
 */
NPROF_API int nprof_activity_from_name(const char *name);

/**
 * nprof_activity_name() - name of one activity bit.
 * @activity: exactly one enum nprof_activity bit.
 *
 * Return: the static name, or NULL with errno EINVAL if @activity is not
 * exactly one known bit.
 */
NPROF_API const char *nprof_activity_name(unsigned int activity);

/* ---- inspect configuration ---------------------------------------------- */

/**
 * nprof_inspect_config_allocate() - allocate a configuration with defaults.
 *
 * Return: the new configuration (release it with nprof_inspect_config_free()),
 * or NULL with errno ENOMEM.
 */
NPROF_API struct nprof_inspect_config *nprof_inspect_config_allocate(void);

/**
 * nprof_inspect_config_free() - release a configuration. NULL is allowed.
 */
NPROF_API void nprof_inspect_config_free(struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_config_set_defaults() - reset every option to its default,
 * including the embedded system-trace configuration and the ring sizes.
 *
 * Return: 0, or -EINVAL if @cfg is NULL.
 */
NPROF_API int nprof_inspect_config_set_defaults(struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_config_copy() - copy every option of @src into @dst.
 *
 * Return: 0, or -EINVAL if either is NULL.
 */
NPROF_API int nprof_inspect_config_copy(struct nprof_inspect_config *dst,
					const struct nprof_inspect_config *src);

/**
 * nprof_inspect_config_set_session_id() - session id written into outputs.
 * @id: a non-negative id (default 1).
 *
 * Return: 0, or -EINVAL if @cfg is NULL or @id is negative.
 */
NPROF_API int nprof_inspect_config_set_session_id(struct nprof_inspect_config *cfg, int id);

/**
 * nprof_inspect_config_get_session_id() - the session id.
 *
 * Return: the id (>= 0), or -EINVAL if @cfg is NULL.
 */
NPROF_API int nprof_inspect_config_get_session_id(const struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_config_set_output_dir() - base output directory.
 * @dir: the base directory; "" means NPROF_DEFAULT_OUTPUT_DIR. The string is
 *	copied. Policy checks (nprof_output_check_base()) run here, so "/dev/null"
 *	and "./tmp" are refused at once.
 *
 * Return: 0; -EINVAL if @cfg or @dir is NULL or the policy refuses @dir;
 * -ENAMETOOLONG if @dir does not fit in PATH_MAX.
 */
NPROF_API int nprof_inspect_config_set_output_dir(struct nprof_inspect_config *cfg,
						  const char *dir);

/**
 * nprof_inspect_config_get_output_dir() - the base output directory as set
 * ("" if set to the empty string; the session resolves it to "./output").
 *
 * Return: a pointer into @cfg valid until it is changed or freed, or NULL with
 * errno EINVAL if @cfg is NULL.
 */
NPROF_API const char *nprof_inspect_config_get_output_dir(const struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_config_set_activity() - enable or disable an activity by name.
 * @activity: an activity name or "all" (see nprof_activity_from_name()).
 * @enable: true to enable.
 *
 * Return: 0, or -EINVAL if @cfg is NULL or the name is unknown (the message
 * names it).
 */
NPROF_API int nprof_inspect_config_set_activity(struct nprof_inspect_config *cfg,
						const char *activity, bool enable);

/**
 * nprof_inspect_config_set_activity_mask() - set every activity bit at once.
 * @mask: a combination of enum nprof_activity bits.
 *
 * Return: 0, or -EINVAL if @cfg is NULL or @mask has unknown bits.
 */
NPROF_API int nprof_inspect_config_set_activity_mask(struct nprof_inspect_config *cfg,
						     unsigned int mask);

/**
 * nprof_inspect_config_get_activity_mask() - the enabled activity bits.
 *
 * Return: the mask (>= 0), or -EINVAL if @cfg is NULL.
 */
NPROF_API int nprof_inspect_config_get_activity_mask(const struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_config_get_all_activity_types() - names of every activity.
 * @names: out, a newly allocated array of newly allocated strings, in bit
 *	order; "all" is an alias, not an activity, and is not listed.
 * @count: out, number of names.
 *
 * Release with nprof_inspect_config_free_activity_types().
 *
 * Return: 0; -EINVAL if an argument is NULL; -ENOMEM.
 */
NPROF_API int nprof_inspect_config_get_all_activity_types(const char ***names, size_t *count);

/**
 * nprof_inspect_config_get_enabled_activity_types() - names of the enabled
 * activities of @cfg, as for nprof_inspect_config_get_all_activity_types().
 *
 * Return: 0; -EINVAL if an argument is NULL; -ENOMEM.
 */
NPROF_API int nprof_inspect_config_get_enabled_activity_types(const struct nprof_inspect_config *cfg,
							      const char ***names, size_t *count);

/**
 * nprof_inspect_config_free_activity_types() - release a name array returned
 * by the two functions above. NULL is allowed.
 */
NPROF_API void nprof_inspect_config_free_activity_types(const char **names, size_t count);

/**
 * nprof_inspect_config_set_device_profile_mode() - how device profiles are
 * captured (default NPROF_DEVICE_PROFILE_MODEL, the runtime's "1").
 *
 * Return: 0, or -EINVAL if @cfg is NULL or @mode is unknown.
 */
NPROF_API int nprof_inspect_config_set_device_profile_mode(struct nprof_inspect_config *cfg,
							   enum nprof_device_profile_mode mode);

/**
 * nprof_inspect_config_get_device_profile_mode() - the device profile mode.
 *
 * Return: an enum nprof_device_profile_mode (>= 0), or -EINVAL if @cfg is NULL.
 */
NPROF_API int nprof_inspect_config_get_device_profile_mode(const struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_config_set_capture_enabled_for_nc() - capture a NeuronCore.
 * @nc: core index, below NPROF_MAX_CORES.
 * @enable: true to capture.
 *
 * Sets both the session's per-core bitmap (which cores get device profiles)
 * and the embedded system-trace per-core filter, as the runtime does.
 *
 * Return: 0, or -EINVAL if @cfg is NULL or @nc is out of range.
 */
NPROF_API int nprof_inspect_config_set_capture_enabled_for_nc(struct nprof_inspect_config *cfg,
							      uint32_t nc, bool enable);

/**
 * nprof_inspect_config_get_capture_enabled_for_nc() - is a core captured.
 *
 * Return: 1 or 0, or -EINVAL if @cfg is NULL or @nc is out of range.
 */
NPROF_API int nprof_inspect_config_get_capture_enabled_for_nc(const struct nprof_inspect_config *cfg,
							      uint32_t nc);

/**
 * nprof_inspect_config_set_sys_trace_max_events_per_nc() - forwarder to
 * nprof_sys_trace_config_set_max_events_per_nc() on the embedded config.
 */
NPROF_API int nprof_inspect_config_set_sys_trace_max_events_per_nc(struct nprof_inspect_config *cfg,
								   uint64_t max_events);

/**
 * nprof_inspect_config_set_capture_enabled_for_event_type_string() -
 * forwarder to nprof_sys_trace_config_set_capture_enabled_for_event_type()
 * on the embedded config.
 */
NPROF_API int nprof_inspect_config_set_capture_enabled_for_event_type_string(
	struct nprof_inspect_config *cfg, const char *event_type, bool enable);

/**
 * nprof_inspect_config_sys_trace() - the embedded system-trace configuration.
 *
 * Return: a pointer into @cfg (do not free it), or NULL with errno EINVAL if
 * @cfg is NULL.
 */
NPROF_API struct nprof_sys_trace_config *nprof_inspect_config_sys_trace(struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_config_set_enable_inspect() - the master switch (default off).
 *
 * Return: 0, or -EINVAL if @cfg is NULL.
 */
NPROF_API int nprof_inspect_config_set_enable_inspect(struct nprof_inspect_config *cfg, bool enable);

/**
 * nprof_inspect_config_get_enable_inspect() - the master switch.
 *
 * Return: 1 or 0, or -EINVAL if @cfg is NULL.
 */
NPROF_API int nprof_inspect_config_get_enable_inspect(const struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_config_set_enable_inspect_on_fail() - dump device profiles
 * when an execution fails (default off).
 *
 * Return: 0, or -EINVAL if @cfg is NULL.
 */
NPROF_API int nprof_inspect_config_set_enable_inspect_on_fail(struct nprof_inspect_config *cfg,
							      bool enable);

/**
 * nprof_inspect_config_get_enable_inspect_on_fail() - on-fail switch.
 *
 * Return: 1 or 0, or -EINVAL if @cfg is NULL.
 */
NPROF_API int nprof_inspect_config_get_enable_inspect_on_fail(const struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_config_set_streaming() - stream device profiles to disk
 * while they are captured (default on; NEURON_RT_INSPECT_STREAMING). On, a
 * drainer writes ring contents into the profile files (unnamed until
 * complete) in the output directory as the capture runs, so a capture larger than its rings loses nothing while
 * the disk keeps up; off, entries stay in the rings until the profile is
 * written (zero copy) and what does not fit is counted as lost.
 *
 * Return: 0, or -EINVAL if @cfg is NULL.
 */
NPROF_API int nprof_inspect_config_set_streaming(struct nprof_inspect_config *cfg, bool enable);

/**
 * nprof_inspect_config_get_streaming() - the streaming switch.
 *
 * Return: 1 or 0, or -EINVAL if @cfg is NULL.
 */
NPROF_API int nprof_inspect_config_get_streaming(const struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_config_set_capture_executions() - capture only a range of
 * executions (NEURON_RT_INSPECT_CAPTURE_EXECUTIONS=A-B; added in 1.4.0).
 * @first: first execution captured, counted from 1.
 * @last: last execution captured (inclusive), at least @first.
 *
 * SESSION mode counts executions per NeuronCore from the session's begin
 * (every model's executions on the core): the core's capture starts when
 * its execution @first begins and stops, and its file is written, when
 * execution @last ends (or at the session's stop, if that comes first).
 * MODEL mode counts each model's executions on its core and captures
 * executions @first to @last into the model's one file instead of the first
 * execution (the core's capture stays on between them, so other models'
 * executions on the core then are in it too). The file records the
 * executions it holds (NTFF 1.3, nprof_ntff_info.exec_first/exec_last).
 * 0, 0 (the default) captures every execution (SESSION) or the first
 * (MODEL), as before.
 *
 * Return: 0, or -EINVAL for a NULL @cfg, @first 0 with @last not 0, or
 * @last below @first.
 */
NPROF_API int nprof_inspect_config_set_capture_executions(struct nprof_inspect_config *cfg,
							  uint64_t first, uint64_t last);

/**
 * nprof_inspect_config_get_capture_executions() - the capture range (0, 0:
 * every execution; added in 1.4.0).
 *
 * Return: 0, or -EINVAL for NULL arguments.
 */
NPROF_API int nprof_inspect_config_get_capture_executions(const struct nprof_inspect_config *cfg,
							  uint64_t *first, uint64_t *last);

/**
 * nprof_inspect_config_set_capture_iterations() - keep only a range of
 * iterations of every execution
 * (NEURON_RT_INSPECT_CAPTURE_ITERATIONS=A-B; added in 1.4.0).
 * @first: first iteration kept, counted from 1 (iteration N is the entries
 *	whose iteration member is N - 1: the device counts from 0).
 * @last: last iteration kept (inclusive), at least @first, at most 2^32.
 *
 * SESSION and MODEL captures write only the decoded entries whose
 * iteration lies in the range; the rest of each queue is left out of the
 * file as it is written (NTFF 1.4, nprof_ntff_queue.trimmed_count: the
 * sequence numbers left out are not counted as lost), and the file records
 * the range (nprof_ntff_info.iter_first/iter_last). Entries of a device of
 * raw entries carry no iteration: its capture cannot start (-EOPNOTSUPP;
 * a SESSION session armed at begin fails to begin, MODEL captures and
 * capture windows log it at the execution). 0, 0 (the default) keeps every
 * iteration.
 *
 * Return: 0, or -EINVAL for a NULL @cfg, @first 0 with @last not 0, @last
 * below @first or above 2^32.
 */
NPROF_API int nprof_inspect_config_set_capture_iterations(struct nprof_inspect_config *cfg,
							  uint64_t first, uint64_t last);

/**
 * nprof_inspect_config_get_capture_iterations() - the iterations kept (0,
 * 0: every iteration; added in 1.4.0).
 *
 * Return: 0, or -EINVAL for NULL arguments.
 */
NPROF_API int nprof_inspect_config_get_capture_iterations(const struct nprof_inspect_config *cfg,
							  uint64_t *first, uint64_t *last);

/**
 * nprof_inspect_config_set_capture_max_size() - bound what the session's
 * device profiles write (NEURON_RT_INSPECT_CAPTURE_MAX_SIZE=SIZE; added in
 * 1.4.0).
 * @bytes: at most this many bytes of entries over all the session's files
 *	(each file's metadata and the system profile come on top, within a
 *	reserve of 512 KiB), at least 1 MiB; 0 (the default): no limit.
 *
 * Whatever the limit, a write that would leave less than the reserve free
 * on the output's file system is cut short too. Once a write is cut short
 * at the limit (or fails with ENOSPC, EFBIG or EDQUOT), the session's
 * captures stop
 * writing entries: they count them as lost in the files instead, and the
 * files stay complete. The library says so once, naming the directory and
 * the bytes written, and again at the session's stop with the entries
 * counted as lost. Documentation/capture.rst, "Output limits".
 *
 * Return: 0, or -EINVAL for a NULL @cfg or @bytes from 1 to 1 MiB - 1.
 */
NPROF_API int nprof_inspect_config_set_capture_max_size(struct nprof_inspect_config *cfg,
							uint64_t bytes);

/**
 * nprof_inspect_config_get_capture_max_size() - the limit (0: none; added
 * in 1.4.0).
 *
 * Return: the limit in bytes, 0 without one or for a NULL @cfg.
 */
NPROF_API uint64_t nprof_inspect_config_get_capture_max_size(const struct nprof_inspect_config *cfg);

/* The highest zstd level of the capture's compression (NPROF_NTFF_ZSTD_LEVEL_MAX). */
#define NPROF_CAPTURE_COMPRESSION_MAX	22

/**
 * nprof_inspect_config_set_capture_compression() - store the data blocks
 * of the session's device profiles zstd-compressed
 * (NEURON_RT_INSPECT_CAPTURE_COMPRESSION=LEVEL; added in 1.4.0).
 * @level: 0 (the default): none; 1 (fastest) to NPROF_CAPTURE_COMPRESSION_MAX
 *	(22, smallest), the zstd level, as perf record's -z (level 1) and
 *	--compression-level take it.
 *
 * The files are then NTFF major 4 (nprof_ntff_writer_set_compression(),
 * Documentation/ntff.rst "Compressed blocks"), which this library reads
 * transparently and older readers refuse. The capture size limit
 * (nprof_inspect_config_set_capture_max_size()) counts the bytes stored;
 * a write is granted while its entries fit uncompressed
 * (Documentation/capture.rst, "Output limits").
 *
 * Return: 0, or -EINVAL for a NULL @cfg or a level out of range.
 */
NPROF_API int nprof_inspect_config_set_capture_compression(struct nprof_inspect_config *cfg,
							   int level);

/**
 * nprof_inspect_config_get_capture_compression() - the zstd level (0:
 * none; added in 1.4.0).
 *
 * Return: the level, 0 without compression or for a NULL @cfg.
 */
NPROF_API int nprof_inspect_config_get_capture_compression(const struct nprof_inspect_config *cfg);

/**
 * nprof_inspect_config_set_ring_size() - ring size of one queue type.
 * @queue_type: an enum neuronprof_queue_type value (below NPROF_QUEUE_TYPES).
 * @bytes: requested ring size in bytes, a whole number of MiB within
 *	[NPROF_RING_SIZE_MIN_MB, NPROF_RING_SIZE_MAX_MB]. The device layer rounds
 *	it up to a power of two and clamps it to the device's limits.
 *
 * Return: 0, or -EINVAL if @cfg is NULL, @queue_type is unknown or @bytes is
 * out of range or not a multiple of 1 MiB.
 */
NPROF_API int nprof_inspect_config_set_ring_size(struct nprof_inspect_config *cfg,
						 uint32_t queue_type, uint64_t bytes);

/**
 * nprof_inspect_config_get_ring_size() - ring size of one queue type.
 * @size: out, the size in bytes.
 *
 * Return: 0, or -EINVAL if an argument is NULL or @queue_type is unknown.
 */
NPROF_API int nprof_inspect_config_get_ring_size(const struct nprof_inspect_config *cfg,
						 uint32_t queue_type, uint64_t *size);

/**
 * nprof_ring_size_default() - default ring size of a queue type in bytes.
 *
 * Return: the size, or 0 if @queue_type is unknown.
 */
NPROF_API uint64_t nprof_ring_size_default(uint32_t queue_type);

/* ---- environment ---------------------------------------------------------- */

/*
 * nprof_env_lookup_fn - returns the value of environment variable @name, or
 * NULL when it is not set. @ctx is the pointer given to the parser. The
 * returned string must stay valid until the parser returns.
 */
typedef const char *(*nprof_env_lookup_fn)(const char *name, void *ctx);

/**
 * nprof_inspect_config_parse_env() - apply the inspect environment to @cfg.
 * @cfg: configuration to update.
 * @lookup: variable lookup, or NULL for getenv().
 * @ctx: passed to @lookup.
 *
 * Reads NEURON_RT_INSPECT_ENABLE, _OUTPUT_DIR, _SYSTEM_PROFILE,
 * _DEVICE_PROFILE (0, 1, model, session), _ON_FAIL, _CPU_UTIL, _HOST_MEMORY,
 * _EVENT_FILTER_NC ("0", "0,2,4", "0-3" and combinations), _EVENT_FILTER_TYPE
 * (event type names, the groups "hardware" and "software", "^name" to
 * exclude), _SYS_TRACE_MAX_EVENTS_PER_NC, and NEURON_RT_PROFILE_BUF_<TYPE>_MB
 * for TYPE in EVENT, DMA, THROTTLE, CC_CORE_INSTRUCTION, CC_CORE_EVENT and
 * every queue type name (TRACE, ERROR, INFER_STATUS, TOPSP_TRACE, ...).
 * Variables that are not set leave their option unchanged. The table of
 * semantics is in Documentation/library.rst.
 *
 * All or nothing: on failure @cfg is left exactly as it was.
 *
 * Return: 0; -EINVAL if @cfg is NULL or a value is malformed or out of range
 * (the message names the variable, the bad part and the whole value).
 */
NPROF_API int nprof_inspect_config_parse_env(struct nprof_inspect_config *cfg,
					     nprof_env_lookup_fn lookup, void *ctx);

/**
 * nprof_inspect_config_parse_envp() - nprof_inspect_config_parse_env() over
 * an envp-style NULL-terminated array of "NAME=value" strings.
 *
 * Return: as nprof_inspect_config_parse_env().
 */
NPROF_API int nprof_inspect_config_parse_envp(struct nprof_inspect_config *cfg,
					      char *const envp[]);

/* ---- system-trace configuration ----------------------------------------- */

/**
 * nprof_sys_trace_config_allocate() - allocate a system-trace configuration
 * with defaults (1000000 events per core, every core and event type).
 *
 * Return: the configuration, or NULL with errno ENOMEM.
 */
NPROF_API struct nprof_sys_trace_config *nprof_sys_trace_config_allocate(void);

/**
 * nprof_sys_trace_config_free() - release it. NULL is allowed. Never pass
 * the configuration embedded in an inspect configuration.
 */
NPROF_API void nprof_sys_trace_config_free(struct nprof_sys_trace_config *cfg);

/**
 * nprof_sys_trace_config_set_defaults() - reset to defaults.
 *
 * Return: 0, or -EINVAL if @cfg is NULL.
 */
NPROF_API int nprof_sys_trace_config_set_defaults(struct nprof_sys_trace_config *cfg);

/**
 * nprof_sys_trace_config_set_max_events_per_nc() - size of the per-core host
 * event ring (the oldest event is overwritten when it is full).
 * @max_events: 1..NPROF_SYS_TRACE_MAX_EVENTS_LIMIT.
 *
 * Return: 0, or -EINVAL if @cfg is NULL or @max_events is out of range.
 */
NPROF_API int nprof_sys_trace_config_set_max_events_per_nc(struct nprof_sys_trace_config *cfg,
							   uint64_t max_events);

/**
 * nprof_sys_trace_config_get_max_events_per_nc() - ring size in events.
 *
 * Return: the value, or 0 if @cfg is NULL.
 */
NPROF_API uint64_t nprof_sys_trace_config_get_max_events_per_nc(const struct nprof_sys_trace_config *cfg);

/**
 * nprof_sys_trace_config_set_capture_enabled_for_nc() - record events of a
 * core. @nc below NPROF_MAX_CORES.
 *
 * Return: 0, or -EINVAL if @cfg is NULL or @nc is out of range.
 */
NPROF_API int nprof_sys_trace_config_set_capture_enabled_for_nc(struct nprof_sys_trace_config *cfg,
								uint32_t nc, bool enable);

/**
 * nprof_sys_trace_config_get_capture_enabled_for_nc() - are a core's events
 * recorded.
 *
 * Return: 1 or 0, or -EINVAL if @cfg is NULL or @nc is out of range.
 */
NPROF_API int nprof_sys_trace_config_get_capture_enabled_for_nc(const struct nprof_sys_trace_config *cfg,
								uint32_t nc);

/**
 * nprof_sys_trace_config_set_capture_enabled_for_event_type() - record an
 * event type.
 * @event_type: an event type name (see <neuronprof/sys_trace_events.h>) or a
 *	group name, "hardware" or "software", which applies to the whole group.
 *
 * Return: 0, or -EINVAL if an argument is NULL or the name is unknown.
 */
NPROF_API int nprof_sys_trace_config_set_capture_enabled_for_event_type(
	struct nprof_sys_trace_config *cfg, const char *event_type, bool enable);

/**
 * nprof_sys_trace_config_get_event_type_mask() - enabled event types as a
 * bit mask: bit (1 << enum nprof_sys_trace_event_type) per enabled type.
 *
 * Return: the mask, or 0 if @cfg is NULL.
 */
NPROF_API uint64_t nprof_sys_trace_config_get_event_type_mask(const struct nprof_sys_trace_config *cfg);

/**
 * nprof_sys_trace_config_get_enabled_event_types() - names of the enabled
 * event types, in enum order. Release with nprof_sys_trace_free_event_types().
 *
 * Return: 0; -EINVAL if an argument is NULL; -ENOMEM.
 */
NPROF_API int nprof_sys_trace_config_get_enabled_event_types(const struct nprof_sys_trace_config *cfg,
							     const char ***names, size_t *count);

/**
 * nprof_sys_trace_get_event_types() - names of every event type, in enum
 * order. Release with nprof_sys_trace_free_event_types().
 *
 * Return: 0; -EINVAL if an argument is NULL; -ENOMEM.
 */
NPROF_API int nprof_sys_trace_get_event_types(const char ***names, size_t *count);

/**
 * nprof_sys_trace_free_event_types() - release a name array returned by the
 * two functions above. NULL is allowed.
 */
NPROF_API void nprof_sys_trace_free_event_types(const char **names, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_CONFIG_H */
