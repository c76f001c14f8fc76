/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: the device layer.
 *
 * Finds neuronprof devices (DRM render nodes whose driver is "neuronprof"),
 * opens one, describes it, subscribes to its notification queues and
 * consumes their rings in place, and runs synthetic programs on simulated
 * devices. When no device exists it says why (the kernel module is not
 * installed, installed but not loaded, or loaded without a device) and, only
 * if the caller allows it, loads the module. Documentation/library.rst
 * ("Device layer") and Documentation/ring.rst describe the protocol.
 *
 * A ring is consumed without copying: nprof_ring_peek() returns the unread
 * region as at most two spans of the mapped data area (two when it wraps
 * past the end), which can be handed to writev() or to the NTFF writer
 * directly; nprof_ring_release() then gives the space back to the device.
 * The pairing of memory barriers with the kernel follows the perf ring: an
 * acquire load of the producer position before reading entries, a release
 * store of the consumer position after.
 *
 * Thread safety: a device may be used from several threads at once. A
 * subscription and its ring have a single consumer; calls on one
 * subscription must not run concurrently.
 *
 * System trace: opening and closing a device record device_open and
 * device_close (no core); a successful subscription nq_subscribe, a
 * successful drain nq_drain, and a drain that finds the queue's lost count
 * grown since the previous one nq_overflow, on the queue's core (a TopSP's:
 * the core it serves). Documentation/sys_trace.rst lists their attributes.
 */
#ifndef NEURONPROF_DEVICE_H
#define NEURONPROF_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <neuronprof/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants mirrored from the uapi (drm/neuronprof_drm.h) -------------- */

/* Target kinds of a queue (enum neuronprof_target_kind). */
#define NPROF_TARGET_CORE		0	/* a NeuronCore */
#define NPROF_TARGET_TOPSP		1	/* a TopSP */

/* Capability bits of nprof_device_info.caps (NEURONPROF_CAP_*). */
#define NPROF_DEVICE_CAP_SIM_EXEC	(1ULL << 0)	/* nprof_device_sim_exec() works */
#define NPROF_DEVICE_CAP_FLUSH		(1ULL << 1)	/* drains can flush in-flight entries */
#define NPROF_DEVICE_CAP_RAW		(1ULL << 2)	/* entries are raw device entries */
#define NPROF_DEVICE_CAP_RAW_PACKED	(1ULL << 3)	/* raw, in packed records (uapi 5) */

/* Bits of nprof_ring_state.flags (NEURONPROF_RING_*). */
#define NPROF_RING_OVERFLOWED		(1U << 0)	/* at least one entry was lost */
#define NPROF_RING_DEAD			(1U << 1)	/* the device is gone */
#define NPROF_RING_BAD_CONSUMER		(1U << 2)	/* the kernel ignored a consumer position */
#define NPROF_RING_UNREADABLE		(1U << 3)	/* the provider cannot read the queue (neuron: device memory) */

/* Upper bound of engines per NeuronCore on any device (NEURONPROF_MAX_ENGINES). */
#define NPROF_MAX_ENGINES		8

/* Longest render node path, with its NUL ("/dev/dri/renderD128"). */
#define NPROF_DEVICE_PATH_MAX		64

/* ---- finding and opening devices ------------------------------------------ */

/* Opaque handle of an open neuronprof render node. */
struct nprof_device;

/* nprof_device_open(): any device (the lowest device index). */
#define NPROF_DEVICE_ANY		(-1)

/* Flags of nprof_device_open(). Without them no module is ever loaded. */
#define NPROF_DEVICE_LOAD_MODULE	(1u << 0)	/* may load neuronprof.ko (hardware provider) */
#define NPROF_DEVICE_LOAD_SIM		(1u << 1)	/* may load neuronprof_sim.ko (simulated devices) */

/*
 * struct nprof_device_node - one neuronprof device found by nprof_device_list().
 * @size: sizeof(struct nprof_device_node) as the caller compiled it (set it
 *	in every element before the call); a newer library fills only that much.
 * @path: the render node, e.g. "/dev/dri/renderD128".
 * @device_index: the device's index among neuronprof devices.
 * @arch: enum neuronprof_arch (1 trn1, 2 inf2, 3 trn2).
 * @num_cores: NeuronCores.
 * @provider: provider name ("sim", ...), NUL-terminated.
 */
struct nprof_device_node {
	size_t size;
	char path[NPROF_DEVICE_PATH_MAX];
	uint32_t device_index;
	uint32_t arch;
	uint32_t num_cores;
	char provider[16];
};

/**
 * nprof_device_list() - find the neuronprof devices.
 * @nodes: out, up to @max nodes sorted by device index (may be NULL if @max
 *	is 0).
 * @max: elements of @nodes.
 *
 * Gathers the render nodes of the DRM devices libdrm reports
 * (drmGetDevices2()) and those of the DRM directory (/dev/dri/renderD*),
 * which libdrm may fold together (it merges devices whose bus information
 * compares equal, as the simulator's platform devices do), keeps each
 * device number once, opens each node and keeps those whose driver
 * (drmGetVersion()) is "neuronprof". Render nodes this process may not open
 * are skipped. Never loads a module.
 *
 * Return: the number of neuronprof devices, which may exceed @max (only
 * @max are filled); -EINVAL for bad arguments or a bad @nodes[i].size;
 * -ENOMEM; the error of drmGetDevices2(), or that of reading the DRM
 * directory.
 */
NPROF_API int nprof_device_list(struct nprof_device_node *nodes, size_t max);

/**
 * nprof_device_open() - open a neuronprof device.
 * @device_index: the device index (nprof_device_node.device_index), or
 *	NPROF_DEVICE_ANY for the lowest.
 * @flags: NPROF_DEVICE_LOAD_* bits: when no neuronprof device exists at all,
 *	load neuronprof_sim.ko (NPROF_DEVICE_LOAD_SIM, which pulls in
 *	neuronprof.ko) or neuronprof.ko (NPROF_DEVICE_LOAD_MODULE) with libkmod
 *	and look again. With both, the simulator is loaded.
 *
 * When no device exists the error says why, from libkmod: "the kernel module
 * neuronprof is not installed", "... is installed but not loaded", or "...
 * is loaded but no device is registered" (naming neuronprof_sim's state), or
 * that a render node exists but cannot be opened (permissions).
 *
 * Return: the device (release with nprof_device_close()), or NULL with
 * errno: EINVAL (flags), ENODEV (no such device; the message says why),
 * EACCES/EPERM (a node or a module load was refused), ENOMEM, or the error
 * of opening the node or of the device's GET_INFO.
 */
NPROF_API struct nprof_device *nprof_device_open(int device_index, unsigned int flags);

/**
 * nprof_device_open_path() - open a given render node.
 * @path: e.g. "/dev/dri/renderD128".
 *
 * Return: the device, or NULL with errno: ENODEV if the node's driver is not
 * neuronprof, the error of open(), ENOMEM, or that of GET_INFO.
 */
NPROF_API struct nprof_device *nprof_device_open_path(const char *path);

/**
 * nprof_device_close() - close a device. NULL is allowed. Every subscription
 * of the device must have been closed first.
 */
NPROF_API void nprof_device_close(struct nprof_device *dev);

/**
 * nprof_device_fd() - the render node's file descriptor (owned by @dev).
 *
 * Return: the descriptor, or -EINVAL if @dev is NULL.
 */
NPROF_API int nprof_device_fd(const struct nprof_device *dev);

/**
 * nprof_device_path() - the render node's path.
 *
 * Return: a string owned by @dev, or NULL with errno EINVAL.
 */
NPROF_API const char *nprof_device_path(const struct nprof_device *dev);

/*
 * struct nprof_device_info - a device's description (GET_INFO).
 * @size: sizeof(struct nprof_device_info) as the caller compiled it.
 * @uapi_version: NEURONPROF_UAPI_VERSION of the running module.
 * @arch: enum neuronprof_arch.
 * @provider: provider name, NUL-terminated.
 * @num_cores, @num_topsps: NeuronCores and TopSPs. TopSP t serves core
 *	t / (num_topsps / num_cores).
 * @engines_per_core: engines of a core (queues of per-engine types).
 * @entry_size: bytes per ring entry.
 * @core_queue_types, @topsp_queue_types: bit (1 << type) per queue type a
 *	core, a TopSP has.
 * @per_engine_queue_types: bit per type with one queue per engine.
 * @clock_id: clockid_t of every timestamp (CLOCK_MONOTONIC = 1).
 * @caps: NPROF_DEVICE_CAP_* bits.
 * @min_ring_size, @max_ring_size: accepted ring data sizes in bytes.
 * @device_index: index among neuronprof devices.
 * @clock_domain: what timestamps measure (NEURONPROF_CLOCK_*: when the
 *	device produced an entry, or when the host captured it) (added in 1.1.0).
 * @raw_format: NEURONPROF_RAW_FORMAT_* of the entries, NONE unless @caps
 *	has NPROF_DEVICE_CAP_RAW or NPROF_DEVICE_CAP_RAW_PACKED (added in 1.1.0).
 * @raw_entry_size: bytes of one device entry when raw, else 0 (added in 1.1.0).
 *
 * A caller built against library 1.0.0 passes the size of the struct ending
 * at @pad (NPROF_DEVICE_INFO_SIZE_V1) and gets that much.
 */
struct nprof_device_info {
	size_t size;
	uint32_t uapi_version;
	uint32_t arch;
	char provider[16];
	uint32_t num_cores;
	uint32_t num_topsps;
	uint32_t engines_per_core;
	uint32_t entry_size;
	uint32_t core_queue_types;
	uint32_t topsp_queue_types;
	uint32_t per_engine_queue_types;
	uint32_t clock_id;
	uint64_t caps;
	uint64_t min_ring_size;
	uint64_t max_ring_size;
	uint32_t device_index;
	uint32_t pad;
	uint32_t clock_domain;
	uint32_t raw_format;
	uint32_t raw_entry_size;
	uint32_t pad2;
};

/* sizeof(struct nprof_device_info) in library 1.0.0. */
#define NPROF_DEVICE_INFO_SIZE_V1	offsetof(struct nprof_device_info, clock_domain)

/**
 * nprof_device_get_info() - the device's description, read once at open.
 * @info: out; set @info->size first.
 *
 * Return: 0, or -EINVAL for NULL arguments or a bad @info->size.
 */
NPROF_API int nprof_device_get_info(const struct nprof_device *dev, struct nprof_device_info *info);

/**
 * nprof_device_ring_size() - the ring size a subscription asking for
 * @requested bytes gets: rounded up to a power of two and a whole number of
 * pages, then clamped to the device's [min_ring_size, max_ring_size].
 *
 * Return: the size, or 0 if @dev is NULL.
 */
NPROF_API uint64_t nprof_device_ring_size(const struct nprof_device *dev, uint64_t requested);

/**
 * nprof_device_topsp_core() - the NeuronCore a TopSP serves.
 * @topsp: TopSP index.
 *
 * Return: the core index, or -EINVAL if @dev is NULL, @topsp is out of
 * range or the device has fewer TopSPs than cores.
 */
NPROF_API int nprof_device_topsp_core(const struct nprof_device *dev, uint32_t topsp);

/* ---- rings ------------------------------------------------------------------ */

/*
 * Opaque view of a ring laid out as a subscription maps it: a read-only
 * header (struct neuronprof_ring_header), a read-write consumer word and a
 * read-only data area. Positions are free-running 64-bit byte counters.
 */
struct nprof_ring;

/*
 * struct nprof_ring_spans - a range of ring entries as at most two spans of
 * the mapped data area, in order.
 * @ptr: start of each span; @ptr[1] is NULL when the range does not wrap.
 * @len: bytes of each span (whole entries); @len[1] is 0 without a wrap.
 * @begin: ring position of the first byte.
 * @end: ring position after the last byte (@end - @begin = @len[0] + @len[1]).
 */
struct nprof_ring_spans {
	const void *ptr[2];
	size_t len[2];
	uint64_t begin;
	uint64_t end;
};

/*
 * struct nprof_ring_state - a snapshot of a ring.
 * @size: sizeof(struct nprof_ring_state) as the caller compiled it.
 * @producer_pos: bytes produced (acquire load).
 * @consumer_pos: bytes consumed.
 * @lost: notifications lost because the ring was full.
 * @flags: NPROF_RING_* bits.
 * @ring_size: bytes of the data area.
 * @entry_size: bytes per entry.
 * @queue_type, @target_kind, @target_index, @engine: the queue.
 */
struct nprof_ring_state {
	size_t size;
	uint64_t producer_pos;
	uint64_t consumer_pos;
	uint64_t lost;
	uint32_t flags;
	uint32_t entry_size;
	uint64_t ring_size;
	uint32_t queue_type;
	uint32_t target_kind;
	uint32_t target_index;
	uint32_t engine;
};

/**
 * nprof_ring_attach() - view memory laid out like a subscription's mappings.
 * @header: the header page (struct neuronprof_ring_header).
 * @header_size: its mapped size.
 * @consumer: the consumer page (struct neuronprof_ring_consumer).
 * @consumer_size: its mapped size.
 * @data: the data area.
 * @data_size: its size; must equal the header's ring_size.
 *
 * Subscriptions attach their own mappings (nprof_nq_ring()); this is for
 * rings mapped some other way, such as a test or benchmark that lays one out
 * in ordinary memory. Nothing is copied; the memory must outlive the view.
 *
 * Return: the view (release with nprof_ring_detach()), or NULL with errno
 * EINVAL (NULL pointers; header version, entry size or ring size that is not
 * a usable ring, or more than INT_MAX entries; the message says which) or
 * ENOMEM.
 */
NPROF_API struct nprof_ring *nprof_ring_attach(const void *header, size_t header_size,
					       void *consumer, size_t consumer_size,
					       const void *data, size_t data_size);

/**
 * nprof_ring_detach() - release a view from nprof_ring_attach(). NULL is
 * allowed. Never pass the ring of a subscription.
 */
NPROF_API void nprof_ring_detach(struct nprof_ring *ring);

/**
 * nprof_ring_get_state() - positions, lost count and flags of a ring.
 * @st: out; set @st->size first.
 *
 * Return: 0; -EINVAL for NULL arguments or a bad @st->size.
 */
NPROF_API int nprof_ring_get_state(const struct nprof_ring *ring, struct nprof_ring_state *st);

/**
 * nprof_ring_peek() - the unread entries, in place.
 * @sp: out, the range [consumer position, producer position) as spans.
 *
 * Loads the producer position with acquire semantics, so every entry inside
 * the spans is completely written. The entries stay valid and unchanged
 * until nprof_ring_release() moves the consumer position past them.
 *
 * Return: the number of unread entries (0 when empty; a ring never holds
 * more than INT_MAX entries, nprof_ring_attach() refuses larger ones);
 * -EINVAL for NULL arguments; -EIO if the positions in the shared pages are
 * inconsistent (the message gives them).
 */
NPROF_API int nprof_ring_peek(struct nprof_ring *ring, struct nprof_ring_spans *sp);

/**
 * nprof_ring_window() - a range of entries that are not yet released.
 * @begin: ring position of the first entry.
 * @end: ring position after the last entry.
 * @sp: out, the range as spans.
 *
 * The range must lie between the consumer and the producer positions, so
 * the device cannot be writing it; the entries stay valid until released.
 *
 * Return: the number of entries in the range; -EINVAL for NULL arguments, a
 * position that is not a whole number of entries or a range outside
 * [consumer, producer]; -EIO for inconsistent shared positions.
 */
NPROF_API int nprof_ring_window(struct nprof_ring *ring, uint64_t begin, uint64_t end,
				struct nprof_ring_spans *sp);

/**
 * nprof_ring_release() - hand consumed space back to the device.
 * @pos: the new consumer position, typically nprof_ring_spans.end; a whole
 *	number of entries between the current consumer and producer positions.
 *
 * Stores the consumer position with release semantics, so every read of the
 * entries below @pos happens before the device may overwrite them.
 *
 * Return: 0; -EINVAL for a NULL ring or a bad @pos (the message gives the
 * positions).
 */
NPROF_API int nprof_ring_release(struct nprof_ring *ring, uint64_t pos);

/* ---- subscriptions ------------------------------------------------------------ */

/* Opaque subscription to one notification queue, with its ring mapped. */
struct nprof_nq;

/*
 * struct nprof_nq_params - which queue to subscribe and how.
 * @size: sizeof(struct nprof_nq_params) as the caller compiled it.
 * @target_kind: NPROF_TARGET_CORE or NPROF_TARGET_TOPSP.
 * @target_index: core or TopSP index.
 * @queue_type: enum neuronprof_queue_type, available for @target_kind.
 * @engine: engine for per-engine queue types, else 0.
 * @ring_size: wanted data size in bytes; nprof_device_ring_size() rounds it.
 * @watermark: bytes unread before poll() on the descriptor reports
 *	readable; 0 means one entry.
 * @flags: must be 0.
 */
struct nprof_nq_params {
	size_t size;
	uint32_t target_kind;
	uint32_t target_index;
	uint32_t queue_type;
	uint32_t engine;
	uint64_t ring_size;
	uint32_t watermark;
	uint32_t flags;
};

/**
 * nprof_nq_subscribe() - subscribe to a queue and map its ring.
 *
 * Issues NQ_SUBSCRIBE, then maps the header, consumer and data regions at
 * the offsets the kernel returned. A queue takes up to
 * NEURONPROF_MAX_SUBSCRIBERS subscribers at a time (uapi 4; one before),
 * each with its own ring, seq, watermark and lost count.
 *
 * Return: the subscription (release with nprof_nq_close()), or NULL with
 * errno: EINVAL (bad parameters; the message names the queue), EBUSY (the
 * queue has as many subscribers as it takes; the message names their
 * processes, pid and command, and says to stop one), ENODEV (the device is
 * gone), ENOMEM, EMFILE, or the error of mmap().
 */
NPROF_API struct nprof_nq *nprof_nq_subscribe(struct nprof_device *dev,
					      const struct nprof_nq_params *params);

/**
 * nprof_nq_close() - unmap the ring and close the subscription; the last
 * subscription of a queue stops the queue. NULL is allowed.
 */
NPROF_API void nprof_nq_close(struct nprof_nq *nq);

/**
 * nprof_nq_fd() - the subscription's descriptor, for poll()/epoll (readable
 * at the watermark or after a flush; POLLHUP once the device is gone).
 *
 * Return: the descriptor (owned by @nq), or -EINVAL.
 */
NPROF_API int nprof_nq_fd(const struct nprof_nq *nq);

/**
 * nprof_nq_ring() - the subscription's ring, for nprof_ring_peek() and
 * friends. It is owned by @nq and valid until nprof_nq_close().
 *
 * Return: the ring, or NULL with errno EINVAL.
 */
NPROF_API struct nprof_ring *nprof_nq_ring(struct nprof_nq *nq);

/* Flags of nprof_nq_drain(). */
#define NPROF_NQ_DRAIN_FLUSH		(1u << 0)	/* flush in-flight notifications first */

/*
 * struct nprof_nq_drain_state - what NQ_DRAIN reports, atomically.
 * @size: sizeof(struct nprof_nq_drain_state) as the caller compiled it.
 * @producer_pos, @consumer_pos: positions.
 * @lost: notifications lost so far.
 * @ring_flags: NPROF_RING_* bits.
 */
struct nprof_nq_drain_state {
	size_t size;
	uint64_t producer_pos;
	uint64_t consumer_pos;
	uint64_t lost;
	uint32_t ring_flags;
	uint32_t pad;
};

/**
 * nprof_nq_drain() - ask the device for the ring's positions.
 * @flags: NPROF_NQ_DRAIN_FLUSH to have in-flight notifications pushed into
 *	the ring first (needs NPROF_DEVICE_CAP_FLUSH).
 * @st: out; set @st->size first.
 *
 * Restarted on EINTR. Nothing is consumed.
 *
 * Return: 0; -EINVAL (bad arguments), -EOPNOTSUPP (flush not supported),
 * -ENODEV (device gone), or the device's flush error.
 */
NPROF_API int nprof_nq_drain(struct nprof_nq *nq, unsigned int flags,
			     struct nprof_nq_drain_state *st);

/* ---- simulated devices -------------------------------------------------------- */

/* Flags of nprof_sim_program (NEURONPROF_SIM_EXEC_*). */
#define NPROF_SIM_EXEC_ERROR		(1u << 0)	/* raise an execution error (status 1004) */
#define NPROF_SIM_EXEC_THROTTLE		(1u << 1)	/* throttle every iteration */

/*
 * struct nprof_sim_program - a synthetic program (Documentation/simulator.rst).
 * @size: sizeof(struct nprof_sim_program) as the caller compiled it.
 * @core: NeuronCore to run on.
 * @flags: NPROF_SIM_EXEC_* bits.
 * @model_id: written into every notification.
 * @iterations: 1..65536.
 * @instructions: per engine per iteration; engines beyond the device's must be 0.
 * @dma_transfers: per iteration.
 * @timeout_ns: absolute CLOCK_MONOTONIC deadline, 0 for none.
 */
struct nprof_sim_program {
	size_t size;
	uint32_t core;
	uint32_t flags;
	uint32_t model_id;
	uint32_t iterations;
	uint32_t instructions[NPROF_MAX_ENGINES];
	uint32_t dma_transfers;
	uint32_t pad;
	uint64_t timeout_ns;
};

/* Number of queue types a result reports (NEURONPROF_QT_COUNT). */
#define NPROF_SIM_QUEUE_TYPES		9

/*
 * struct nprof_sim_result - what an execution reported.
 * @size: sizeof(struct nprof_sim_result) as the caller compiled it.
 * @status: 0, or the error the execution raised (1004).
 * @produced: notifications produced per queue type into subscribed queues,
 *	delivered or lost.
 */
struct nprof_sim_result {
	size_t size;
	uint32_t status;
	uint32_t pad;
	uint64_t produced[NPROF_SIM_QUEUE_TYPES];
};

/**
 * nprof_device_sim_exec() - run a synthetic program and wait for its end.
 * @res: out; set @res->size first.
 *
 * Return: 0 (check @res->status for the execution's own error); -EINVAL
 * (bad program), -EOPNOTSUPP (the device is not simulated), -ETIMEDOUT,
 * -ENODEV (device removed); the message names the core.
 */
NPROF_API int nprof_device_sim_exec(struct nprof_device *dev, const struct nprof_sim_program *prog,
				    struct nprof_sim_result *res);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_DEVICE_H */
