/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * neuronprof: NeuronCore notification queues as mmap-able rings.
 *
 * This is the only header shared by the kernel modules and userspace. Every
 * struct here has fixed-width members, explicit padding and a size that is a
 * multiple of 8, so it has the same layout for i386 and x86_64 userspace.
 * Flags, pads and reserved members must be zero on input or the ioctl fails
 * with EINVAL. Command numbers are explicit constants and never reused.
 *
 * Documentation/uapi.rst describes every ioctl, its arguments and every errno;
 * Documentation/ring.rst describes the ring protocol.
 */
#ifndef _UAPI_NEURONPROF_DRM_H_
#define _UAPI_NEURONPROF_DRM_H_

#ifdef __KERNEL__
#include <drm/drm.h>
#else
#include "drm.h"	/* from libdrm: pkg-config --cflags libdrm */
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/** NEURONPROF_DRIVER_NAME - the DRM driver name reported by DRM_IOCTL_VERSION. */
#define NEURONPROF_DRIVER_NAME		"neuronprof"

/** NEURONPROF_UAPI_VERSION - bumped when a struct grows or semantics extend. */
#define NEURONPROF_UAPI_VERSION		5

/*
 * DRM ioctls on the render node (driver-private range). SIM_EXEC belongs to
 * the simulator section at the end of this header: only devices reporting
 * NEURONPROF_CAP_SIM_EXEC implement it.
 */
#define DRM_NEURONPROF_GET_INFO		0x00
#define DRM_NEURONPROF_NQ_SUBSCRIBE	0x01
#define DRM_NEURONPROF_SIM_EXEC		0x02	/* simulator section */
#define DRM_NEURONPROF_NQ_HOLDERS	0x03	/* uapi 4 */

#define DRM_IOCTL_NEURONPROF_GET_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NEURONPROF_GET_INFO, struct drm_neuronprof_get_info)
#define DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NEURONPROF_NQ_SUBSCRIBE, struct drm_neuronprof_nq_subscribe)
#define DRM_IOCTL_NEURONPROF_SIM_EXEC \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NEURONPROF_SIM_EXEC, struct drm_neuronprof_sim_exec)
#define DRM_IOCTL_NEURONPROF_NQ_HOLDERS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NEURONPROF_NQ_HOLDERS, struct drm_neuronprof_nq_holders)

/**
 * NEURONPROF_MAX_SUBSCRIBERS - most subscriptions one queue has at a time
 * (uapi 4; before it, one). Each has its own ring, watermark, loss count
 * and memory charge; device_info.max_subscribers reports the limit.
 */
#define NEURONPROF_MAX_SUBSCRIBERS	8

/* ioctls on a subscription fd (not a DRM fd: its own magic). */
#define NEURONPROF_NQ_IOC_MAGIC		0xB9
#define NEURONPROF_IOCTL_NQ_DRAIN \
	_IOWR(NEURONPROF_NQ_IOC_MAGIC, 0x01, struct neuronprof_nq_drain)

/**
 * enum neuronprof_arch - device architecture.
 * @NEURONPROF_ARCH_TRN1: Trainium1, 2 NeuronCore-v2, 6 TopSPs.
 * @NEURONPROF_ARCH_INF2: Inferentia2, 2 NeuronCore-v2, 6 TopSPs.
 * @NEURONPROF_ARCH_TRN2: Trainium2, 8 physical NeuronCore-v3, 16 TopSPs.
 */
enum neuronprof_arch {
	NEURONPROF_ARCH_TRN1 = 1,
	NEURONPROF_ARCH_INF2 = 2,
	NEURONPROF_ARCH_TRN2 = 3,
};

/**
 * enum neuronprof_target_kind - what a queue belongs to.
 * @NEURONPROF_TARGET_CORE: a NeuronCore (index < num_cores).
 * @NEURONPROF_TARGET_TOPSP: a TopSP (index < num_topsps). TopSP t serves
 *	NeuronCore t / (num_topsps / num_cores).
 */
enum neuronprof_target_kind {
	NEURONPROF_TARGET_CORE = 0,
	NEURONPROF_TARGET_TOPSP = 1,
};

/**
 * enum neuronprof_queue_type - notification queue types.
 *
 * The values follow the device notification types the Neuron runtime
 * collects and are ABI. The types in drm_neuronprof_device_info's
 * per_engine_queue_types have one queue per engine (per instance: up to
 * queue_instances, e.g. DMA per SDMA engine); every other type has a single
 * queue per target (engine must be 0). Values from NEURONPROF_QT_COUNT on
 * are uapi version 2: a consumer built against version 1 never subscribes
 * them.
 *
 * @NEURONPROF_QT_TRACE: instruction trace, code = opcode.
 * @NEURONPROF_QT_EVENT: engine events, code = event id.
 * @NEURONPROF_QT_ERROR: execution errors, code = error code.
 * @NEURONPROF_QT_INFER_STATUS: execution start/stop, code = start/stop marker.
 * @NEURONPROF_QT_DMA: DMA descriptors completed, code = DMA queue.
 * @NEURONPROF_QT_THROTTLE: power/thermal throttling, code = throttle level.
 * @NEURONPROF_QT_TOPSP_TRACE: TopSP instruction trace.
 * @NEURONPROF_QT_TOPSP_EVENT: TopSP events (collectives).
 * @NEURONPROF_QT_TOPSP_ERROR: TopSP errors.
 * @NEURONPROF_QT_COUNT: number of queue types of uapi version 1.
 * @NEURONPROF_QT_NOTIFY: explicit notifications of NOTIFY instructions (the
 *	vendor's NOTIFY type).
 * @NEURONPROF_QT_TOPSP_NOTIFY: TopSP explicit notifications.
 * @NEURONPROF_QT_TOPSP_DMA: TopSP DMA notifications.
 * @NEURONPROF_QT_TOPSP_THROTTLE: TopSP throttling notifications.
 * @NEURONPROF_QT_MAX: number of queue type values of this uapi version.
 */
enum neuronprof_queue_type {
	NEURONPROF_QT_TRACE = 0,
	NEURONPROF_QT_EVENT = 1,
	NEURONPROF_QT_ERROR = 2,
	NEURONPROF_QT_INFER_STATUS = 3,
	NEURONPROF_QT_DMA = 4,
	NEURONPROF_QT_THROTTLE = 5,
	NEURONPROF_QT_TOPSP_TRACE = 6,
	NEURONPROF_QT_TOPSP_EVENT = 7,
	NEURONPROF_QT_TOPSP_ERROR = 8,
	NEURONPROF_QT_COUNT = 9,
	NEURONPROF_QT_NOTIFY = 9,
	NEURONPROF_QT_TOPSP_NOTIFY = 10,
	NEURONPROF_QT_TOPSP_DMA = 11,
	NEURONPROF_QT_TOPSP_THROTTLE = 12,
	NEURONPROF_QT_MAX = 13,
};

/**
 * enum neuronprof_engine - NeuronCore engines (the @engine of a queue).
 * @NEURONPROF_ENGINE_TENSOR: the tensor (PE array) engine.
 * @NEURONPROF_ENGINE_VECTOR: the vector engine.
 * @NEURONPROF_ENGINE_SCALAR: the scalar (activation) engine.
 * @NEURONPROF_ENGINE_GPSIMD: the general-purpose SIMD engine.
 * @NEURONPROF_ENGINE_SYNC: the sync engine (NeuronCore-v3 only).
 */
enum neuronprof_engine {
	NEURONPROF_ENGINE_TENSOR = 0,
	NEURONPROF_ENGINE_VECTOR = 1,
	NEURONPROF_ENGINE_SCALAR = 2,
	NEURONPROF_ENGINE_GPSIMD = 3,
	NEURONPROF_ENGINE_SYNC = 4,
};

/** NEURONPROF_MAX_ENGINES - upper bound of engines_per_core on any device. */
#define NEURONPROF_MAX_ENGINES		8

/**
 * NEURONPROF_MAX_INSTANCES - upper bound of queue_instances: queues of one
 * per-engine type on one target (the vendor driver has 16 per type).
 */
#define NEURONPROF_MAX_INSTANCES	16

/* Codes of NEURONPROF_QT_INFER_STATUS entries. */
#define NEURONPROF_INFER_START		1
#define NEURONPROF_INFER_STOP		2

/**
 * struct neuronprof_notification - one ring entry (entry_size bytes).
 *
 * Devices may report a larger entry_size in the future; consumers step by
 * entry_size and read only the members they know.
 *
 * Raw entries (devices with NEURONPROF_CAP_RAW): the device's own entry,
 * whose layout this uapi does not know, travels as bytes. @timestamp_ns is
 * then the time the provider captured it (see clock_domain), @code is
 * NEURONPROF_RAW_CODE(), @model_id the raw format (NEURONPROF_RAW_FORMAT_*),
 * @iteration the index of the device entry among those captured from the
 * queue since the subscription (low 32 bits), and @payload holds bytes
 * [32 * part, 32 * part + len) of it. A device entry longer than 32 bytes
 * takes several consecutive ring entries, parts 0 to parts - 1.
 *
 * @timestamp_ns: time the device produced it, in the device's clock domain.
 * @seq: per-queue sequence number. It starts at 0 when the queue is
 *	subscribed and counts every notification the queue produced, delivered or
 *	lost, so a gap between two entries equals the notifications lost there.
 * @queue_type: enum neuronprof_queue_type of the queue.
 * @engine: engine of the queue.
 * @code: type-specific code (opcode, event id, error code, DMA queue, ...).
 * @model_id: model id of the program that produced it.
 * @iteration: iteration of the program that produced it.
 * @payload: type-specific payload words.
 */
struct neuronprof_notification {
	__u64 timestamp_ns;
	__u64 seq;
	__u16 queue_type;
	__u16 engine;
	__u32 code;
	__u32 model_id;
	__u32 iteration;
	__u64 payload[4];
};

/* Capability bits of drm_neuronprof_device_info.caps. */
#define NEURONPROF_CAP_SIM_EXEC		(1ULL << 0)	/* SIM_EXEC is supported */
#define NEURONPROF_CAP_FLUSH		(1ULL << 1)	/* NQ_DRAIN can flush */
#define NEURONPROF_CAP_RAW		(1ULL << 2)	/* entries are raw device entries */
#define NEURONPROF_CAP_RAW_PACKED	(1ULL << 3)	/* raw, in packed records (uapi 5) */

/* code of a raw entry: bytes in this entry's payload, part, parts. */
#define NEURONPROF_RAW_CODE(len, part, parts) \
	((__u32)(len) | (__u32)(part) << 8 | (__u32)(parts) << 16)
#define NEURONPROF_RAW_LEN(code)	((code) & 0xff)
#define NEURONPROF_RAW_PART(code)	(((code) >> 8) & 0xff)
#define NEURONPROF_RAW_PARTS(code)	(((code) >> 16) & 0xff)
/* Raw bytes one ring entry carries (sizeof payload). */
#define NEURONPROF_RAW_BYTES_PER_ENTRY	32

/*
 * Packed raw records (uapi 5, devices with NEURONPROF_CAP_RAW_PACKED
 * instead of NEURONPROF_CAP_RAW): what one capture of consecutive device
 * entries delivers is one record: a header entry followed by the device's
 * bytes as they were, copied whole into the ring entries after it
 * (NEURONPROF_RAW_PACKED_SLOTS() entries in all, never across the end of
 * the data area). Only the header is a struct neuronprof_notification:
 * @timestamp_ns the capture time, @seq the first of its sequence numbers,
 * @queue_type and @engine as usual, @code NEURONPROF_RAW_PACKED, @model_id
 * the raw format, @iteration the low 32 bits of payload[0], payload[0]
 * the index of its first device entry among those the queue consumed
 * since the subscription (delivered or not), payload[1]
 * NEURONPROF_RAW_PACKED_INFO(bytes, entry size), payload[2] and [3] zero.
 * A record takes NEURONPROF_RAW_PACKED_SEQS(bytes) sequence numbers: one
 * per 32 device bytes, as many as the unpacked raw entries of uapi 4 took,
 * so seq gaps and lost counts mean the same in both. A header with 0 bytes
 * is a filler: one ring entry, no sequence number, put where the room left
 * before the end of the data area is too small for a record. The ring
 * entries after a header hold bytes, not entries: a reader walks headers.
 * A reader that does not know the packing sees NEURONPROF_CAP_RAW_PACKED
 * without NEURONPROF_CAP_RAW and a raw format, and refuses the device.
 */
#define NEURONPROF_RAW_PACKED		0x80000000u	/* code of a packed record's header */
#define NEURONPROF_RAW_PACKED_INFO(bytes, es) ((__u64)(__u32)(bytes) | (__u64)(es) << 32)
#define NEURONPROF_RAW_PACKED_BYTES(info)	((__u32)(info))
#define NEURONPROF_RAW_PACKED_ENTRY_SIZE(info)	((__u32)((info) >> 32))
/* Ring entries of a record of @bytes: its header and the bytes, 64 per entry. */
#define NEURONPROF_RAW_PACKED_SLOTS(bytes)	(1 + ((__u64)(bytes) + 63) / 64)
/* Sequence numbers a record of @bytes takes. */
#define NEURONPROF_RAW_PACKED_SEQS(bytes)	((__u64)(bytes) / NEURONPROF_RAW_BYTES_PER_ENTRY)

/*
 * Raw formats (device_info.raw_format, a raw entry's model_id): whose
 * entries the bytes are. The layouts are not public; a decoder for one is
 * added when it is known (Documentation/hardware.rst).
 */
#define NEURONPROF_RAW_FORMAT_NONE	0	/* not raw */
#define NEURONPROF_RAW_FORMAT_NEURON_V2	1	/* NeuronCore-v2 (trn1, inf2) queue entries */
#define NEURONPROF_RAW_FORMAT_NEURON_V3	2	/* NeuronCore-v3 (trn2) queue entries */

/*
 * Clock domains (device_info.clock_domain, ring header clock_domain): what
 * timestamp_ns measures, either way a time of the clock clock_id.
 * CAPTURED: when the host captured the entry; the device's own times are in
 * the raw bytes, in a clock whose relation to clock_id is not known.
 */
#define NEURONPROF_CLOCK_PRODUCED	0	/* when the device produced the entry */
#define NEURONPROF_CLOCK_CAPTURED	1	/* when the host captured it */

/* Queries of DRM_IOCTL_NEURONPROF_GET_INFO. */
#define NEURONPROF_INFO_DEVICE		1	/* struct drm_neuronprof_device_info */
#define NEURONPROF_INFO_CODE_NAMES	2	/* struct drm_neuronprof_code_names (uapi 3) */

/**
 * struct drm_neuronprof_get_info - argument of DRM_IOCTL_NEURONPROF_GET_INFO.
 *
 * @query: in, NEURONPROF_INFO_*.
 * @size: in/out. In: size of the buffer at @data; 0 asks for the size the
 *	query needs, which is returned here without copying anything. Out: the
 *	number of bytes written (at most the size passed in). A buffer smaller
 *	than the first version of the query's struct fails with EINVAL.
 * @flags: in, must be 0.
 * @pad: must be 0.
 * @data: in, user pointer to the buffer.
 */
struct drm_neuronprof_get_info {
	__u32 query;
	__u32 size;
	__u32 flags;
	__u32 pad;
	__u64 data;
};

/**
 * struct drm_neuronprof_device_info - reply to NEURONPROF_INFO_DEVICE.
 *
 * @uapi_version: NEURONPROF_UAPI_VERSION of the running module.
 * @arch: enum neuronprof_arch.
 * @provider: NUL-terminated name of the provider ("sim", ...).
 * @num_cores: number of NeuronCores.
 * @num_topsps: number of TopSPs.
 * @engines_per_core: engines of a NeuronCore (per-engine queues).
 * @entry_size: bytes per ring entry (a power of two).
 * @core_queue_types: bit (1 << type) set for each type a NeuronCore has.
 * @topsp_queue_types: bit (1 << type) set for each type a TopSP has.
 * @per_engine_queue_types: bit (1 << type) set for types with a queue per engine.
 * @clock_id: clock domain of timestamps (a clockid_t, CLOCK_MONOTONIC = 1).
 * @caps: NEURONPROF_CAP_* bits.
 * @min_ring_size: smallest ring data size accepted, in bytes.
 * @max_ring_size: largest ring data size accepted, in bytes.
 * @device_index: index of this device among neuronprof devices.
 * @pad: zero.
 * @reserved: zero.
 * @queue_instances: uapi version 2: queues of a per-engine type per target
 *	(engine is below it), at most NEURONPROF_MAX_INSTANCES.
 * @clock_domain: uapi version 2: NEURONPROF_CLOCK_*.
 * @raw_format: uapi version 2: NEURONPROF_RAW_FORMAT_* of the entries,
 *	NEURONPROF_RAW_FORMAT_NONE unless caps has NEURONPROF_CAP_RAW.
 * @raw_entry_size: uapi version 2: bytes of one device entry in a raw
 *	format (the provider's setting), 0 when not raw.
 * @max_subscribers: uapi version 4: subscriptions one queue takes at a
 *	time (NEURONPROF_MAX_SUBSCRIBERS); 0 from an older module, which
 *	takes one.
 * @pad2: zero.
 * @reserved2: zero.
 *
 * Version 1 ends at @reserved; GET_INFO copies what the caller's size
 * holds, so a caller built against version 1 keeps working, and one built
 * against version 2 on a version-1 module gets the version-1 size back and
 * treats the rest as zero (queue_instances then equals engines_per_core).
 */
struct drm_neuronprof_device_info {
	__u32 uapi_version;
	__u32 arch;
	char provider[16];
	__u32 num_cores;
	__u32 num_topsps;
	__u32 engines_per_core;
	__u32 entry_size;
	__u32 core_queue_types;
	__u32 topsp_queue_types;
	__u32 per_engine_queue_types;
	__u32 clock_id;
	__u64 caps;
	__u64 min_ring_size;
	__u64 max_ring_size;
	__u32 device_index;
	__u32 pad;
	__u64 reserved[4];
	__u32 queue_instances;
	__u32 clock_domain;
	__u32 raw_format;
	__u32 raw_entry_size;
	__u32 max_subscribers;
	__u32 pad2;
	__u64 reserved2;
};

/** NEURONPROF_CODE_NAME_LEN - bytes of a name, its terminating NUL included. */
#define NEURONPROF_CODE_NAME_LEN	24

/** NEURONPROF_MAX_CODE_NAMES - most names a device describes. */
#define NEURONPROF_MAX_CODE_NAMES	1024

/**
 * struct neuronprof_code_name - the name of one code of one queue type.
 *
 * A device may describe the codes its entries carry, so that a profiler
 * shows "matmult" where the entry says 0x000100. The name is the device's
 * own: a code without a name is shown as a code, never given one by
 * userspace. A device of raw entries (NEURONPROF_CAP_RAW) names nothing.
 *
 * @queue_type: enum neuronprof_queue_type whose @code this names (for
 *	NEURONPROF_QT_TRACE and NEURONPROF_QT_TOPSP_TRACE the opcode).
 * @code: the code, as in struct neuronprof_notification.
 * @name: NUL-terminated, 1 to NEURONPROF_CODE_NAME_LEN - 1 characters of
 *	[a-z0-9_.], NUL-padded. Several codes may share a name (an
 *	instruction family with several opcodes); the code tells them apart.
 */
struct neuronprof_code_name {
	__u32 queue_type;
	__u32 code;
	char name[NEURONPROF_CODE_NAME_LEN];
};

/** NEURONPROF_CODE_NAMES_VERSION - version of struct drm_neuronprof_code_names. */
#define NEURONPROF_CODE_NAMES_VERSION	1

/**
 * struct drm_neuronprof_code_names - reply to NEURONPROF_INFO_CODE_NAMES.
 *
 * The device's name table: this header, then @count entries of @entry_size
 * bytes (struct neuronprof_code_name) right after it, sorted by
 * (queue_type, code), each pair once. A device without
 * names answers @count 0. GET_INFO with size 0 returns the bytes of the
 * whole table; a smaller buffer (at least the header) gets the header and
 * the whole entries that fit, and size says how many bytes were written.
 * Consumers step by @entry_size and read only the members they know: a
 * later version may append members to an entry. Modules before uapi
 * version 3 fail the query with EINVAL (unknown query).
 *
 * @version: NEURONPROF_CODE_NAMES_VERSION.
 * @entry_size: bytes per entry (sizeof(struct neuronprof_code_name) in
 *	version 1).
 * @count: entries of the whole table, whether or not they all fit.
 * @pad: zero.
 */
struct drm_neuronprof_code_names {
	__u32 version;
	__u32 entry_size;
	__u32 count;
	__u32 pad;
};

/**
 * struct drm_neuronprof_nq_subscribe - argument of DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE.
 *
 * Creates a subscription to one queue: a new file descriptor (O_CLOEXEC)
 * that is the subscription. A queue takes up to NEURONPROF_MAX_SUBSCRIBERS
 * subscriptions at a time (uapi 4; one before), from any processes: each
 * gets every notification produced while it is subscribed into its own
 * ring, with its own seq (from 0), watermark and lost count, so one that
 * falls behind loses only its own entries. Beyond the limit SUBSCRIBE
 * fails with EBUSY and DRM_IOCTL_NEURONPROF_NQ_HOLDERS says who holds the
 * queue.
 *
 * @target_kind: in, enum neuronprof_target_kind.
 * @target_index: in, core or TopSP index.
 * @queue_type: in, enum neuronprof_queue_type, valid for @target_kind.
 * @engine: in, engine (instance); 0 for queue types without per-engine
 *	queues, else below the device's queue_instances.
 * @ring_size: in, bytes of the data area: a power of two, a multiple of the
 *	page size, within [min_ring_size, max_ring_size].
 * @watermark: in, bytes unread before poll reports EPOLLIN; 0 means one entry.
 *	At most @ring_size.
 * @flags: in, must be 0.
 * @fd: out, the subscription file descriptor.
 * @pad: must be 0.
 * @header_offset: out, mmap offset of the header page (read-only).
 * @header_size: out, its size.
 * @consumer_offset: out, mmap offset of the consumer page (read-write).
 * @consumer_size: out, its size.
 * @data_offset: out, mmap offset of the data area (read-only).
 * @data_size: out, its size (== @ring_size).
 * @reserved: must be 0.
 */
struct drm_neuronprof_nq_subscribe {
	__u32 target_kind;
	__u32 target_index;
	__u32 queue_type;
	__u32 engine;
	__u64 ring_size;
	__u32 watermark;
	__u32 flags;
	__s32 fd;
	__u32 pad;
	__u64 header_offset;
	__u64 header_size;
	__u64 consumer_offset;
	__u64 consumer_size;
	__u64 data_offset;
	__u64 data_size;
	__u64 reserved[2];
};

/**
 * struct neuronprof_nq_holder - one subscription of a queue (NQ_HOLDERS).
 * @pid: the process (thread group id, in the caller's pid namespace; 0
 *	when it has none there) that created the subscription.
 * @pad: zero.
 * @comm: its command name when it subscribed, NUL-terminated.
 * @ring_size: bytes of the subscription's data area.
 */
struct neuronprof_nq_holder {
	__s32 pid;
	__u32 pad;
	char comm[16];
	__u64 ring_size;
};

/**
 * struct drm_neuronprof_nq_holders - argument of DRM_IOCTL_NEURONPROF_NQ_HOLDERS.
 *
 * Who holds a queue: the subscriptions it has now, so a subscriber refused
 * with EBUSY can name what to stop. The same privilege as SUBSCRIBE.
 * (uapi 4; older modules fail it with ENOTTY.)
 *
 * @target_kind: in, enum neuronprof_target_kind.
 * @target_index: in, core or TopSP index.
 * @queue_type: in, enum neuronprof_queue_type, valid for @target_kind.
 * @engine: in, engine (instance), as for SUBSCRIBE.
 * @flags: in, must be 0.
 * @count: out, subscriptions of the queue now, at most @max_subscribers.
 * @max_subscribers: out, NEURONPROF_MAX_SUBSCRIBERS of the module.
 * @pad: must be 0.
 * @holders: out, the first @count are the subscriptions, oldest first.
 */
struct drm_neuronprof_nq_holders {
	__u32 target_kind;
	__u32 target_index;
	__u32 queue_type;
	__u32 engine;
	__u32 flags;
	__u32 count;
	__u32 max_subscribers;
	__u32 pad;
	struct neuronprof_nq_holder holders[NEURONPROF_MAX_SUBSCRIBERS];
};

/* Bits of neuronprof_ring_header.flags. */
#define NEURONPROF_RING_OVERFLOWED	(1U << 0)	/* at least one entry was lost */
#define NEURONPROF_RING_DEAD		(1U << 1)	/* the device is gone */
#define NEURONPROF_RING_BAD_CONSUMER	(1U << 2)	/* an invalid consumer_pos was ignored */
/*
 * The provider cannot read the observed queue where it lives (neuron: the
 * runtime placed it in device memory): nothing of it is captured.
 */
#define NEURONPROF_RING_UNREADABLE	(1U << 3)

/** NEURONPROF_RING_VERSION - version of struct neuronprof_ring_header. */
#define NEURONPROF_RING_VERSION		1

/**
 * struct neuronprof_ring_header - the read-only header page of a subscription.
 *
 * Positions are free-running byte counters; the entry at position p is at
 * data + (p & (ring_size - 1)). Entries never straddle the end of the data
 * area (ring_size is a multiple of entry_size).
 *
 * Ordering (see Documentation/ring.rst): the kernel writes entries, then
 * stores @producer_pos with release semantics (B); userspace loads
 * @producer_pos with acquire semantics (C), reads the entries, then stores
 * neuronprof_ring_consumer.consumer_pos with release semantics (D); the
 * kernel loads consumer_pos with acquire semantics (A) before reusing space.
 * A pairs with D, B pairs with C.
 *
 * @version: NEURONPROF_RING_VERSION.
 * @header_size: bytes of this struct the kernel fills.
 * @entry_size: bytes per entry.
 * @flags: NEURONPROF_RING_* bits.
 * @ring_size: bytes of the data area.
 * @queue_type: the subscribed queue type.
 * @target_kind: the subscribed target kind.
 * @target_index: the subscribed target index.
 * @engine: the subscribed engine.
 * @raw_format: NEURONPROF_RAW_FORMAT_* of the entries (0 before uapi
 *	version 2, and for devices without NEURONPROF_CAP_RAW).
 * @clock_domain: NEURONPROF_CLOCK_* of the timestamps (0 before version 2).
 * @reserved0: zero.
 * @producer_pos: bytes produced (written by the kernel only). The consumer
 *	position lives on a page of its own, so the two never share a cache
 *	line.
 * @lost: notifications lost because the ring was full.
 * @reserved1: zero.
 */
struct neuronprof_ring_header {
	__u32 version;
	__u32 header_size;
	__u32 entry_size;
	__u32 flags;
	__u64 ring_size;
	__u32 queue_type;
	__u32 target_kind;
	__u32 target_index;
	__u32 engine;
	__u32 raw_format;
	__u32 clock_domain;
	__u64 reserved0[3];
	__u64 producer_pos;
	__u64 lost;
	__u64 reserved1[6];
};

/**
 * struct neuronprof_ring_consumer - the read-write consumer page.
 * @consumer_pos: bytes consumed; written by userspace only. The kernel reads
 *	it once per use, and ignores (and flags with NEURONPROF_RING_BAD_CONSUMER)
 *	a value that moves backwards, passes producer_pos or is not a multiple of
 *	entry_size.
 */
struct neuronprof_ring_consumer {
	__u64 consumer_pos;
};

/* Flags of struct neuronprof_nq_drain. */
#define NEURONPROF_DRAIN_FLUSH		(1U << 0)	/* flush in-flight notifications first */
#define NEURONPROF_DRAIN_RELEASE	(1U << 1)	/* release space up to release_pos */

/**
 * struct neuronprof_nq_drain - argument of NEURONPROF_IOCTL_NQ_DRAIN.
 *
 * @flags: in, NEURONPROF_DRAIN_* bits.
 * @pad: must be 0.
 * @release_pos: in with NEURONPROF_DRAIN_RELEASE: the new consumer position,
 *	a multiple of entry_size between the current consumer and producer
 *	positions; must be 0 without that flag.
 * @producer_pos: out, producer position.
 * @consumer_pos: out, consumer position (after the release).
 * @lost: out, notifications lost so far.
 * @ring_flags: out, NEURONPROF_RING_* bits.
 * @pad2: zero.
 */
struct neuronprof_nq_drain {
	__u32 flags;
	__u32 pad;
	__u64 release_pos;
	__u64 producer_pos;
	__u64 consumer_pos;
	__u64 lost;
	__u32 ring_flags;
	__u32 pad2;
};

/*
 * Simulator section. DRM_IOCTL_NEURONPROF_SIM_EXEC runs a synthetic workload
 * on a simulated device (neuronprof_sim); a device without
 * NEURONPROF_CAP_SIM_EXEC, such as one of real hardware, fails it with
 * EOPNOTSUPP, so a production program never depends on it. It stays in this
 * header, with its command number reserved, because it is the workload side
 * of the same render node that is observed: tests and the demo drive and
 * observe one device through one interface. Running it is a workload, not
 * observation: whoever may open the render node may run it, as whoever may
 * open a Neuron device may run a model on it, and its entries go into the
 * rings of whoever observes that core's queues (Documentation/uapi.rst).
 */

/* Flags of struct drm_neuronprof_sim_exec. */
#define NEURONPROF_SIM_EXEC_ERROR	(1U << 0)	/* raise an execution error */
#define NEURONPROF_SIM_EXEC_THROTTLE	(1U << 1)	/* throttle every iteration */

/* Limits of a SIM_EXEC program. */
#define NEURONPROF_SIM_MAX_ITERATIONS		65536
#define NEURONPROF_SIM_MAX_INSTRUCTIONS		(1U << 20)	/* per engine per iteration */
#define NEURONPROF_SIM_MAX_DMA			(1U << 20)	/* per iteration */
#define NEURONPROF_SIM_MAX_NOTIFICATIONS	(1ULL << 26)	/* per program */

/**
 * struct drm_neuronprof_sim_exec - argument of DRM_IOCTL_NEURONPROF_SIM_EXEC.
 *
 * Runs a synthetic program on one NeuronCore of a device that reports
 * NEURONPROF_CAP_SIM_EXEC and blocks until it completes. What it produces per
 * iteration is described in Documentation/simulator.rst.
 *
 * @core: in, NeuronCore index.
 * @flags: in, NEURONPROF_SIM_EXEC_* bits.
 * @model_id: in, written into every notification.
 * @iterations: in, 1..NEURONPROF_SIM_MAX_ITERATIONS.
 * @instructions: in, instructions per engine per iteration; entries at and
 *	beyond engines_per_core must be 0.
 * @dma_transfers: in, DMA transfers per iteration.
 * @status: out, 0 on success, else the error code the execution raised.
 * @timeout_ns: in, absolute CLOCK_MONOTONIC deadline, 0 for none.
 * @produced: out, notifications produced per queue type, delivered or lost
 *	(queues nobody subscribed discard theirs and are not counted).
 * @reserved: must be 0.
 */
struct drm_neuronprof_sim_exec {
	__u32 core;
	__u32 flags;
	__u32 model_id;
	__u32 iterations;
	__u32 instructions[NEURONPROF_MAX_ENGINES];
	__u32 dma_transfers;
	__u32 status;
	__u64 timeout_ns;
	__u64 produced[16];
	__u64 reserved[2];
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_NEURONPROF_DRM_H_ */
