/* SPDX-License-Identifier: MIT */
/*
 * Capture-engine internals the capture modes and the host tests reach:
 * which queues a session on a core subscribes, captures about a model, and
 * files written under another name.
 *
 * capture/ is layer 4 of the library (lib/src/README): it may call util/,
 * model/, ntff/, output/ and device/, and records its system-trace events
 * through trace/base/tracepoint.h; never trace/, config/, the modes or session/.
 */
#ifndef NEURONPROF_CAPTURE_INTERNAL_H
#define NEURONPROF_CAPTURE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <neuronprof/device.h>
#include <neuronprof/ntff.h>

struct nprof_capture;

/* One queue of a device (the kernel's providers have struct nprof_queue_id). */
struct nprof_capture_qid {
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
			  struct nprof_capture_qid *out, size_t max);

/*
 * nprof_capture_session_start() of a capture about one model (MODEL,
 * on-fail and continuous captures): the session's profile_start,
 * profile_stop and profile_serialize events carry *@model_id. NULL is
 * nprof_capture_session_start().
 */
int nprof_capture_session_start_for(struct nprof_capture *cap, uint32_t nc,
				    const uint64_t *model_id);

/*
 * How a file written by nprof_capture_session_serialize_named() describes
 * itself, for the captures built on the SESSION engine (MODEL, CONTINUOUS).
 * @capture_kind: enum nprof_ntff_capture_kind.
 * @has_core, @core: the core written into the file (the runtime's virtual
 *	core), instead of the device's core index.
 * @model_name, @model_id: the model (@model_name may be NULL).
 */
struct nprof_capture_label {
	uint32_t capture_kind;
	bool has_core;
	uint32_t core;
	const char *model_name;
	uint64_t model_id;
	uint64_t exec_first, exec_last;	/* the executions captured; 0, 0: not a range */
	bool has_session_id;		/* the caller's session id, not the engine's */
	uint64_t session_id;
};

/* The description of a MODEL capture of model @name (@id) on virtual core @vnc. */
static inline void nprof_capture_label_model(struct nprof_capture_label *label, uint32_t vnc,
					     const char *name, uint64_t id)
{
	memset(label, 0, sizeof(*label));
	label->capture_kind = NPROF_NTFF_CAPTURE_MODEL;
	label->has_core = true;
	label->core = vnc;
	label->model_name = name;
	label->model_id = id;
}

/*
 * nprof_capture_session_serialize_at() under another file name and
 * description: the MODEL and continuous captures harvest through the
 * SESSION engine and only differ in what the file is called and says.
 * @fname: a file name in @dirfd, or NULL for profile_nc_<nc>_session_<id>.ntff.
 * @label: the description, or NULL for a SESSION capture.
 */
int nprof_capture_session_serialize_named(struct nprof_capture *cap, uint32_t nc,
					  uint64_t session_id, int dirfd, const char *fname,
					  const struct nprof_capture_label *label);

/*
 * The bytes of entries core @nc's active session holds so far: over its
 * queues, from the session's first entry up to the producer's position in
 * the ring (written into its file or not yet), as its file will hold them
 * (before an iteration range trims them) if it stopped now. Cheap: reads
 * the mapped ring headers, no call into the kernel.
 *
 * Return: 0 with *@bytes, -EINVAL (with the message) when no session is
 * active there, or the errors of a core that cannot be entered.
 */
int nprof_capture_session_bytes(struct nprof_capture *cap, uint32_t nc, uint64_t *bytes);

/*
 * Write only the decoded entries of iterations @first to @last (counted
 * from 1: iteration N is the entries whose iteration member is N - 1) of
 * every queue into the files, from now on; 0, 0 writes every entry. The
 * entries left out are each record's trimmed_count (not lost) and the
 * files say the range (nprof_ntff_info.iter_first/iter_last). Set before
 * any session starts.
 *
 * Return: 0, -EOPNOTSUPP for a device of raw entries (they carry no
 * iteration), -EINVAL for an empty range or one past 2^32.
 */
int nprof_capture_set_iterations(struct nprof_capture *cap, uint64_t first, uint64_t last);

#endif /* NEURONPROF_CAPTURE_INTERNAL_H */
