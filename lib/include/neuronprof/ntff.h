/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: NTFF, the profile container.
 *
 * An NTFF file is a 128-byte little-endian header, a data region holding
 * device queue entries exactly as the device wrote them, a block table (a
 * CRC32C per fixed-size block of the data region) and an ntff_info protobuf
 * message (proto/ntff.proto) describing the capture and, per drained queue,
 * where its entries lie in the data region.
 * Documentation/ntff.rst is the format specification; this header is the
 * API of the writer and the reader.
 *
 * Writer: entries go from the caller's memory (typically the mapped ring) to
 * the file with writev(), never through a heap copy (but when asked to
 * compress the blocks: nprof_ntff_writer_set_compression()); the block
 * checksums are computed over the same memory. The file appears under its final name only
 * when complete (temporary name, fsync, rename, fsync of the directory).
 *
 * Reader: maps the file and validates everything but the data blocks before
 * returning; accessors return pointers into the mapping. By default (one
 * pass, library 1.3) the chunk iterator verifies each data block just before
 * its entries are handed out. With NPROF_NTFF_READ_VERIFY_AT_OPEN every
 * block is verified at open instead, and each record's entries pointer is
 * given (two passes over the data).
 */
#ifndef NEURONPROF_NTFF_H
#define NEURONPROF_NTFF_H

#include <stddef.h>
#include <stdint.h>

#include <neuronprof/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- on-disk header --------------------------------------------------- */

#define NPROF_NTFF_MAGIC		"NTFF\r\n\x1a\n"	/* 8 bytes, no NUL */
#define NPROF_NTFF_MAGIC_LEN		8
#define NPROF_NTFF_VERSION_MAJOR	1
#define NPROF_NTFF_VERSION_MINOR	4
/*
 * Files whose entries are raw device entries (nprof_ntff_device.raw_format
 * not NONE) have this major version: a reader of major 1 only would decode
 * their bytes as notifications, so it must refuse them. Otherwise they are
 * the same format; this reader reads both.
 */
#define NPROF_NTFF_VERSION_MAJOR_RAW	2
/*
 * Files of packed raw records (nprof_ntff_device.raw_packed, NTFF 1.4): a
 * queue record's data is headers each followed by the
 * device's bytes (uapi NEURONPROF_RAW_PACKED), which a reader of major 2
 * would decode as raw entries, so they have this major version. This
 * reader reads majors 1 to 3.
 */
#define NPROF_NTFF_VERSION_MAJOR_PACKED	3
/*
 * Files whose data blocks are stored compressed (nprof_ntff_writer_set_compression(),
 * library 1.4): the data region holds each block as stored (as is, or one
 * zstd frame), the block table has NPROF_NTFF_ZBLOCK_ENTRY_SIZE bytes per
 * block, and the header's reserved bytes 0 to 7 give the data region's
 * length once decompressed. A reader of majors 1 to 3 would take the stored
 * bytes for entries, so such files have this major version, whatever their
 * entries (plain, raw or packed raw records, as device_info says). This
 * reader reads majors 1 to 4.
 */
#define NPROF_NTFF_VERSION_MAJOR_ZSTD	4
/*
 * A major-4 block table entry, little-endian: u64 offset of the block's
 * stored bytes from the start of the data region, u32 their length with
 * NPROF_NTFF_ZBLOCK_ZSTD set when they are a zstd frame (else the block's
 * bytes as is), u32 CRC32C of the stored bytes.
 */
#define NPROF_NTFF_ZBLOCK_ENTRY_SIZE	16
#define NPROF_NTFF_ZBLOCK_ZSTD		(1u << 31)
/* zstd levels of nprof_ntff_writer_set_compression(): 0 (none), 1 to 22. */
#define NPROF_NTFF_ZSTD_LEVEL_MAX	22
#define NPROF_NTFF_HEADER_SIZE		128

/* Checksum algorithms (header.checksum_type). */
#define NPROF_NTFF_CSUM_CRC32C		1	/* Castagnoli, reflected, init/xorout ~0 */

/*
 * Data blocks: header.block_size is a power of two in this range. The writer
 * uses NPROF_NTFF_BLOCK_SIZE_DEFAULT, or, when the first entries it is given
 * are larger, the next power of two (entries reach 256 KiB). No entry is
 * larger than a block (a reader refuses a record whose entry size exceeds
 * the block size), so an entry spans at most two blocks. 16 KiB blocks stay
 * in the L1 data cache of current server CPUs (32 to 48 KiB) between their
 * check and the caller's reads in the one-pass mode (Documentation/ntff.rst
 * gives the measurements). Library 1.0-1.2 wrote 256 KiB blocks.
 */
#define NPROF_NTFF_BLOCK_SIZE_MIN	(1u << 12)
#define NPROF_NTFF_BLOCK_SIZE_MAX	(1u << 30)
#define NPROF_NTFF_BLOCK_SIZE_DEFAULT	(1u << 14)

/*
 * struct nprof_ntff_header - the first 128 bytes of an NTFF file.
 *
 * Every multi-byte field is little-endian. Offsets are from the start of the
 * file. The header is followed (in files this library writes) by the data
 * region, the block table, then the metadata; readers must rely on the
 * offsets only.
 *
 * @magic: NPROF_NTFF_MAGIC.
 * @version_major: incompatible format revisions; readers refuse an unknown one.
 * @version_minor: compatible additions; readers accept any minor.
 * @header_size: bytes of header, >= 128; a later minor may grow it.
 * @flags: no flag is defined in 1.0; readers ignore bits they do not know.
 * @checksum_type: NPROF_NTFF_CSUM_CRC32C.
 * @metadata_offset: offset of the ntff_info message.
 * @metadata_length: its length in bytes.
 * @data_offset: offset of the data region.
 * @data_length: its length in bytes.
 * @metadata_csum: checksum of the metadata bytes.
 * @block_table_csum: checksum of the block table bytes.
 * @creation_time_ns: CLOCK_REALTIME when the file was finalized.
 * @producer_version: NPROF_VERSION_CODE() of the library that wrote it.
 * @block_size: bytes per data block, a power of two in
 *	[NPROF_NTFF_BLOCK_SIZE_MIN, NPROF_NTFF_BLOCK_SIZE_MAX]; block i covers
 *	bytes [i * block_size, (i + 1) * block_size) of the data region, the
 *	last one is partial unless the data length is a multiple.
 * @block_table_offset: offset of the block table: one little-endian u32
 *	checksum per data block, in order.
 * @block_table_length: its length, 4 * ceil(data_length / block_size).
 * @reserved: zero in 1.0; in major 4 (NPROF_NTFF_VERSION_MAJOR_ZSTD) bytes
 *	0 to 7 are the little-endian u64 length of the data region once
 *	decompressed, on which the blocks and the records' offsets count,
 *	while @data_length is what the region stores.
 * @header_csum: checksum of bytes 0..123 of the header.
 */
struct nprof_ntff_header {
	char magic[NPROF_NTFF_MAGIC_LEN];	/* 0x00 */
	uint16_t version_major;			/* 0x08 */
	uint16_t version_minor;			/* 0x0a */
	uint32_t header_size;			/* 0x0c */
	uint32_t flags;				/* 0x10 */
	uint32_t checksum_type;			/* 0x14 */
	uint64_t metadata_offset;		/* 0x18 */
	uint64_t metadata_length;		/* 0x20 */
	uint64_t data_offset;			/* 0x28 */
	uint64_t data_length;			/* 0x30 */
	uint32_t metadata_csum;			/* 0x38 */
	uint32_t block_table_csum;		/* 0x3c */
	uint64_t creation_time_ns;		/* 0x40 */
	uint32_t producer_version;		/* 0x48 */
	uint32_t block_size;			/* 0x4c */
	uint64_t block_table_offset;		/* 0x50 */
	uint64_t block_table_length;		/* 0x58 */
	uint8_t reserved[28];			/* 0x60 */
	uint32_t header_csum;			/* 0x7c */
};

#ifdef __cplusplus
static_assert(sizeof(struct nprof_ntff_header) == NPROF_NTFF_HEADER_SIZE, "NTFF header size");
#else
_Static_assert(sizeof(struct nprof_ntff_header) == NPROF_NTFF_HEADER_SIZE, "NTFF header size");
#endif

/* ---- type mapping ------------------------------------------------------- */

/*
 * Notification trace types (ntff.proto notification_trace_type). The nine
 * device queue types collapse onto these six; see nprof_ntff_map_queue_type().
 */
enum nprof_ntff_trace_type {
	NPROF_NTFF_TRACE_INSTRUCTION = 0,
	NPROF_NTFF_TRACE_EVENT = 1,
	NPROF_NTFF_TRACE_ERROR = 2,
	NPROF_NTFF_TRACE_INFER_STATUS = 3,
	NPROF_NTFF_TRACE_DMA = 4,
	NPROF_NTFF_TRACE_THROTTLE = 5,
};

/* Block types (ntff.proto block_type): which block produced a queue. */
enum nprof_ntff_block_type {
	NPROF_NTFF_BLOCK_ENGINE = 0,	/* one engine of a NeuronCore */
	NPROF_NTFF_BLOCK_CORE = 1,	/* a NeuronCore as a whole */
	NPROF_NTFF_BLOCK_TOPSP = 2,	/* a TopSP */
};

/* What kind of capture produced a file (ntff.proto capture_kind). */
enum nprof_ntff_capture_kind {
	NPROF_NTFF_CAPTURE_UNSPECIFIED = 0,
	NPROF_NTFF_CAPTURE_SESSION = 1,
	NPROF_NTFF_CAPTURE_MODEL = 2,
	NPROF_NTFF_CAPTURE_CONTINUOUS = 3,
};

/**
 * nprof_ntff_map_queue_type() - trace type and block type of a queue type.
 * @queue_type: an enum neuronprof_queue_type value.
 * @trace_type: out (may be NULL), an enum nprof_ntff_trace_type.
 * @block_type: out (may be NULL), an enum nprof_ntff_block_type.
 *
 * Return: 0, or -EINVAL if @queue_type is unknown; callers drop such queues
 * (never write them unmapped).
 */
NPROF_API int nprof_ntff_map_queue_type(uint32_t queue_type, uint32_t *trace_type,
					uint32_t *block_type);

/**
 * nprof_queue_type_name() - "TRACE", "EVENT", ..., "TOPSP_ERROR".
 *
 * Return: the static name, or NULL with errno EINVAL for an unknown type.
 */
NPROF_API const char *nprof_queue_type_name(uint32_t queue_type);

/**
 * nprof_queue_type_from_name() - inverse of nprof_queue_type_name()
 * (exact, case-sensitive).
 *
 * Return: the queue type (>= 0), or -EINVAL if @name is NULL or unknown.
 */
NPROF_API int nprof_queue_type_from_name(const char *name);

/**
 * nprof_ntff_trace_type_name() - "instruction", "event", "error",
 * "infer_status", "dma", "throttle".
 *
 * Return: the static name, or NULL with errno EINVAL for an unknown value.
 */
NPROF_API const char *nprof_ntff_trace_type_name(uint32_t trace_type);

/**
 * nprof_ntff_block_type_name() - "engine", "core", "topsp".
 *
 * Return: the static name, or NULL with errno EINVAL for an unknown value.
 */
NPROF_API const char *nprof_ntff_block_type_name(uint32_t block_type);

/* ---- capture description -------------------------------------------- */

/*
 * struct nprof_ntff_device - the device a capture came from (from the
 * driver's struct drm_neuronprof_device_info). Strings are NUL-terminated.
 *
 * @clock_domain, @raw_format and @raw_entry_size were added in 1.1.0 and
 * are NTFF 1.1 (a caller or file without them has 0: timestamps of when
 * the device produced the entries, entries that are not raw). A raw format
 * other than NEURONPROF_RAW_FORMAT_NONE means every entry of the file is a
 * raw entry (uapi/drm/neuronprof_drm.h): code NEURONPROF_RAW_CODE(len, part, parts),
 * model_id the raw format, iteration the index of the device entry, the
 * device's bytes in the payload; its layout is not known to this library.
 * @raw_packed (NTFF 1.4, in the four bytes that were the zero pad2
 * before) says the raw entries are packed records instead: a header
 * (code NEURONPROF_RAW_PACKED) followed by the device's bytes, 64 per
 * entry (uapi/drm/neuronprof_drm.h); such a file has major version
 * NPROF_NTFF_VERSION_MAJOR_PACKED, and every append of its queues holds
 * whole records (the writer refuses any other).
 */
struct nprof_ntff_device {
	uint32_t arch;			/* enum neuronprof_arch */
	uint32_t uapi_version;
	uint32_t num_cores;
	uint32_t num_topsps;
	uint32_t engines_per_core;
	uint32_t entry_size;		/* bytes per ring entry */
	uint32_t device_index;
	uint32_t pad;			/* zero */
	const char *provider;		/* "sim", ...; NULL if unknown */
	uint32_t clock_domain;		/* NEURONPROF_CLOCK_*: what timestamps measure */
	uint32_t raw_format;		/* NEURONPROF_RAW_FORMAT_*, NONE if not raw */
	uint32_t raw_entry_size;	/* bytes of one device entry, 0 if not raw */
	uint32_t raw_packed;		/* 1: raw entries in packed records (NTFF 1.4), else 0 */
};

/* Longest name of a code (nprof_ntff_code_name.name), its NUL excluded. */
#define NPROF_NTFF_CODE_NAME_MAX	23

/*
 * struct nprof_ntff_code_name - the device's name of one code (NTFF 1.2).
 * @queue_type: enum neuronprof_queue_type whose entries' code this names.
 * @code: the code (the opcode of TRACE and TOPSP_TRACE entries).
 * @name: 1 to NPROF_NTFF_CODE_NAME_MAX characters of [a-z0-9_.]. Several
 *	codes may share a name; the code tells them apart.
 */
struct nprof_ntff_code_name {
	uint32_t queue_type;
	uint32_t code;
	const char *name;
};

/*
 * struct nprof_ntff_info - what a file describes, beyond its queues.
 *
 * @size: sizeof(struct nprof_ntff_info) as the caller compiled it; set it
 *	before passing the struct in either direction. A newer library fills
 *	only what fits; an older library refuses a larger struct whose extra
 *	bytes are not zero. NPROF_NTFF_INFO_SIZE_V1 is the size of library
 *	1.0.0's struct, which ends before @device.clock_domain.
 * @pid: process that captured.
 * @core: NeuronCore (virtual core) index of the capture.
 * @capture_kind: enum nprof_ntff_capture_kind.
 * @clock_id: clock domain of every timestamp in the file (a clockid_t).
 * @session_id: session id (SESSION captures).
 * @model_id: model id (MODEL and CONTINUOUS captures).
 * @model_name: model name, or NULL.
 * @instance_id: machine instance id (nprof_output_instance_id()), or NULL.
 * @hostname: host name, or NULL.
 * @start_ns: capture start, in @clock_id.
 * @stop_ns: capture stop, in @clock_id.
 * @device: the device.
 * @code_names: the device's names of the codes of its entries, sorted by
 *	(queue_type, code) with each pair once, or NULL (added in 1.2.0, NTFF
 *	1.2). Names come from the device (NEURONPROF_INFO_CODE_NAMES); a
 *	device of raw entries has none, and a writer refuses names with a raw
 *	format. Files before NTFF 1.2 read as none.
 * @num_code_names: entries of @code_names.
 * @exec_first, @exec_last: the range of executions the capture was limited
 *	to (counted from 1, inclusive; per core for SESSION, per model on its
 *	core for MODEL captures), or 0, 0 for a capture not limited to one
 *	(added in 1.4.0, NTFF 1.3; older files read as 0, 0).
 * @iter_first, @iter_last: the range of iterations the file's decoded
 *	entries were limited to (counted from 1: iteration N is the entries
 *	whose iteration member is N - 1; inclusive, @iter_last at most 2^32),
 *	or 0, 0 when every iteration was kept (added in 1.4.0, NTFF 1.4; older
 *	files read as 0, 0). A writer refuses a range with raw entries. What
 *	it leaves out is the queues' trimmed_count, not loss.
 *
 * Strings and arrays returned by the reader point into the reader and stay valid until
 * it is closed; the writer copies the strings it is given.
 */
struct nprof_ntff_info {
	size_t size;
	uint32_t pid;
	uint32_t core;
	uint32_t capture_kind;
	uint32_t clock_id;
	uint64_t session_id;
	uint64_t model_id;
	const char *model_name;
	const char *instance_id;
	const char *hostname;
	uint64_t start_ns;
	uint64_t stop_ns;
	struct nprof_ntff_device device;
	const struct nprof_ntff_code_name *code_names;
	size_t num_code_names;
	uint64_t exec_first;
	uint64_t exec_last;
	uint64_t iter_first;
	uint64_t iter_last;
};

/* sizeof(struct nprof_ntff_info) in library 1.0.0 (NTFF 1.0). */
#define NPROF_NTFF_INFO_SIZE_V1	offsetof(struct nprof_ntff_info, device.clock_domain)
/* sizeof(struct nprof_ntff_info) in library 1.1.0 (NTFF 1.1). */
#define NPROF_NTFF_INFO_SIZE_V2	offsetof(struct nprof_ntff_info, code_names)
/* sizeof(struct nprof_ntff_info) in library 1.2.0 and 1.3.0 (NTFF 1.2). */
#define NPROF_NTFF_INFO_SIZE_V3	offsetof(struct nprof_ntff_info, exec_first)

/*
 * struct nprof_ntff_queue_desc - a queue drain handed to the writer.
 *
 * @size: sizeof(struct nprof_ntff_queue_desc) (see nprof_ntff_info.size).
 * @queue_type: enum neuronprof_queue_type.
 * @target_kind: enum neuronprof_target_kind.
 * @target_index: core or TopSP index.
 * @engine: engine (0 for queues without per-engine instances).
 * @entry_size: bytes per entry, a multiple of 8, at least 16 (the entry's
 *	timestamp_ns and seq, which the writer reads for first/last seq).
 * @ring_flags: NEURONPROF_RING_* flags seen at drain time.
 * @lost_count: notifications the queue lost during the span these entries
 *	cover (the growth of the ring header's lost counter since the queue's
 *	previous append).
 * @trimmed_count: sequence numbers left out on purpose just before these
 *	entries, since the queue's previous append (entries outside the
 *	capture's iteration range; added in 1.4.0, NTFF 1.4): not lost. An
 *	append with it starts a new record unless the queue's last record has
 *	no entries yet. A caller of an older size has none.
 */
struct nprof_ntff_queue_desc {
	size_t size;
	uint32_t queue_type;
	uint32_t target_kind;
	uint32_t target_index;
	uint32_t engine;
	uint32_t entry_size;
	uint32_t ring_flags;
	uint64_t lost_count;
	uint64_t trimmed_count;
};

/* sizeof(struct nprof_ntff_queue_desc) before library 1.4.0. */
#define NPROF_NTFF_QUEUE_DESC_SIZE_V1	offsetof(struct nprof_ntff_queue_desc, trimmed_count)

/*
 * struct nprof_ntff_queue - one trace_info record of a file, as read.
 *
 * @size: sizeof(struct nprof_ntff_queue) (see nprof_ntff_info.size).
 * @trace_type, @block_type: the mapped types (nprof_ntff_map_queue_type()).
 * @queue_type, @target_kind, @target_index, @engine, @entry_size,
 *	@ring_flags, @lost_count: as given to the writer.
 * @entry_count: entries in this record.
 * @first_seq, @last_seq: seq of its first and last entry (0 if none).
 * @data_offset: offset of its entries from the start of the data region.
 * @data_length: entry_count * entry_size.
 * @entries: its first entry, inside the reader's mapping; entries follow
 *	every @entry_size bytes. Aligned to 8 bytes for files opened with
 *	nprof_ntff_reader_open(); for nprof_ntff_reader_open_mem() the alignment
 *	follows that of the buffer. Given only by a reader opened with
 *	NPROF_NTFF_READ_VERIFY_AT_OPEN or NPROF_NTFF_READ_NO_DATA_CSUM; NULL
 *	for the default one-pass reader, whose entries are unverified until
 *	the chunk iterator hands them out (nprof_ntff_chunk_iter_next()).
 * @trimmed_count: sequence numbers the writer left out on purpose just
 *	before @first_seq, after the queue's previous record (NTFF 1.4, added
 *	in 1.4.0; 0 in older files): a gap of that many is not loss.
 */
struct nprof_ntff_queue {
	size_t size;
	uint32_t trace_type;
	uint32_t block_type;
	uint32_t queue_type;
	uint32_t target_kind;
	uint32_t target_index;
	uint32_t engine;
	uint32_t entry_size;
	uint32_t ring_flags;
	uint64_t entry_count;
	uint64_t lost_count;
	uint64_t first_seq;
	uint64_t last_seq;
	uint64_t data_offset;
	uint64_t data_length;
	const void *entries;
	uint64_t trimmed_count;
};

/* sizeof(struct nprof_ntff_queue) before library 1.4.0. */
#define NPROF_NTFF_QUEUE_SIZE_V1	offsetof(struct nprof_ntff_queue, trimmed_count)

/* ---- writer --------------------------------------------------------------- */

struct nprof_ntff_writer;

/* Flags of nprof_ntff_writer_create(). */
#define NPROF_NTFF_WRITE_NOREPLACE	(1u << 0)	/* fail with EEXIST if the final name exists */

/**
 * nprof_ntff_writer_create() - start a new NTFF file.
 * @dir: directory of the file (opened with O_DIRECTORY).
 * @name: final file name inside @dir: not empty, no '/', not "." or "..".
 * @flags: NPROF_NTFF_WRITE_* bits.
 *
 * Creates "<dir>/.<name>.<random>.tmp" with O_EXCL and mode 0644 (less the
 * umask). Nothing exists under @name until nprof_ntff_writer_finalize()
 * succeeds.
 *
 * Return: the writer, or NULL with errno set: EINVAL (bad name or flags),
 * ENAMETOOLONG, ENOMEM, or the errno of opening @dir or creating the file.
 */
NPROF_API struct nprof_ntff_writer *nprof_ntff_writer_create(const char *dir, const char *name,
							     unsigned int flags);

/**
 * nprof_ntff_writer_createat() - nprof_ntff_writer_create() in the directory
 * @dirfd (for example from nprof_output_mkdir_p()). @dirfd is duplicated;
 * the caller keeps ownership of its descriptor.
 */
NPROF_API struct nprof_ntff_writer *nprof_ntff_writer_createat(int dirfd, const char *name,
							       unsigned int flags);

/**
 * nprof_ntff_writer_set_compression() - store data blocks compressed.
 * @level: 0, blocks as is (the default); 1 to NPROF_NTFF_ZSTD_LEVEL_MAX, the
 *	zstd level (1 fastest; perf record -z's default).
 *
 * Only before the first append. Each complete data block is compressed on
 * its own as one zstd frame, and stored so when that is shorter, else as
 * is; the block table then gives each block's stored offset, length and
 * the CRC32C of its stored bytes, and the file has major version
 * NPROF_NTFF_VERSION_MAJOR_ZSTD, which older readers refuse. Readers of
 * this library decompress such files transparently (Documentation/ntff.rst,
 * "Compressed blocks"). The writer then holds one block of entries and the
 * compressed output of an append on its heap (a copy it otherwise avoids),
 * and 16 bytes of table per block.
 *
 * Return: 0; -EINVAL (NULL writer, a level out of range, data already
 * appended); -ENOMEM.
 */
NPROF_API int nprof_ntff_writer_set_compression(struct nprof_ntff_writer *w, int level);

/**
 * nprof_ntff_writer_set_info() - describe the capture (may be called any
 * number of times before finalize; the last call wins). Strings are copied.
 *
 * Return: 0; -EINVAL for NULL arguments or a bad @info->size; -ENOMEM.
 */
NPROF_API int nprof_ntff_writer_set_info(struct nprof_ntff_writer *w,
					 const struct nprof_ntff_info *info);

/**
 * nprof_ntff_writer_append() - write one drained queue.
 * @w: the writer.
 * @desc: what the entries are.
 * @span0: first entries (may be NULL when @len0 is 0).
 * @len0: bytes at @span0, a multiple of @desc->entry_size.
 * @span1: entries following @span0 in ring order (the part after a ring
 *	wrap), or NULL.
 * @len1: bytes at @span1, a multiple of @desc->entry_size.
 *
 * Writes both spans with one pwritev() (more on a short write) directly
 * from the caller's memory and folds them into the checksums of the data
 * blocks they fall in; no entry is copied. Whenever 8 MiB or more have been
 * written since it last did, it starts their writeback (sync_file_range());
 * this writer checksums after that, so that the disk writes while the
 * checksum reads the memory. The memory is not referenced after return.
 * The writer reads the seq member (offset 8) of the first and last entry
 * for first/last seq.
 *
 * Records: a call adds one trace_info record, except that a call for the
 * same queue (queue type, target kind and index, engine, entry size) as the
 * previous call, whose first seq follows the previous record's last seq,
 * extends that record; so a queue drained many times in a row costs one
 * record, and the writer's heap stays proportional to the number of
 * interleaved drains, never to the bytes. An extended record adds
 * @desc->lost_count to its lost count and ORs the ring flags.
 * A queue with no entries may be appended to record its lost count. The
 * caller drops queue types that nprof_ntff_map_queue_type() does not know.
 *
 * After an I/O error the writer is failed: every later call returns the
 * same error and only nprof_ntff_writer_abort() or _finalize() (which then
 * fails and removes the temporary file) remain useful.
 *
 * Return: the index of the record the entries went to (>= 0); -EINVAL (bad descriptor, an
 * unknown queue type, a length that is not a whole number of entries);
 * -EFBIG (data region over 2^62 bytes); -ENOMEM; or the errno of writev().
 * The writer's heap holds the records and the block table (4 bytes per
 * NPROF_NTFF_BLOCK_SIZE_DEFAULT bytes of data), never entries.
 */
NPROF_API int nprof_ntff_writer_append(struct nprof_ntff_writer *w,
				       const struct nprof_ntff_queue_desc *desc,
				       const void *span0, size_t len0,
				       const void *span1, size_t len1);

/**
 * nprof_ntff_writer_finalize() - complete the file and free the writer.
 *
 * Writes the block table and the metadata after the data, then the header,
 * fsyncs the file,
 * renames it to its final name (atomically replacing an existing regular
 * file unless NPROF_NTFF_WRITE_NOREPLACE) and fsyncs the directory. A
 * final name that is a character or block device or a FIFO is never
 * replaced: the file's bytes are written into it and the temporary file
 * removed. A final name that is a symbolic link is followed: the file it
 * names (created if missing) gets the rename, and the link stays a link.
 * On failure the temporary file is removed and nothing appears under the
 * final name. The writer is freed in every case.
 *
 * Return: 0, or a negative errno (-EINVAL if @w is NULL, the stored error of
 * a failed writer, -EEXIST with NOREPLACE (a link or device included),
 * -EISDIR when the name is a directory, or that of the failing call).
 */
NPROF_API int nprof_ntff_writer_finalize(struct nprof_ntff_writer *w);

/**
 * nprof_ntff_writer_abort() - remove the temporary file and free the writer.
 * NULL is allowed.
 */
NPROF_API void nprof_ntff_writer_abort(struct nprof_ntff_writer *w);

/* ---- reader --------------------------------------------------------------- */

struct nprof_ntff_reader;

/*
 * Flags of nprof_ntff_reader_open(): at most one of them, naming the mode.
 * None is the one-pass mode, NPROF_NTFF_READ_VERIFY_LAZY by name (kept for
 * programs written for library 1.0-1.2, where it had to be asked for).
 */
#define NPROF_NTFF_READ_NO_DATA_CSUM	(1u << 0)	/* skip the data blocks' checksums (quick look) */
#define NPROF_NTFF_READ_VERIFY_LAZY	(1u << 1)	/* verify data blocks as the chunk iterator reaches them */
#define NPROF_NTFF_READ_VERIFY_AT_OPEN	(1u << 2)	/* verify every data block at open; entries pointers */

/**
 * nprof_ntff_reader_open() - map and validate an NTFF file.
 * @path: the file.
 * @flags: NPROF_NTFF_READ_* bits.
 *
 * Validates, in order: the size holds a header; magic; major version (an
 * unknown major is refused, naming it); header size; checksum type; header
 * checksum; reserved bytes; every region (metadata, data, block table) within
 * the file without overflow, after the header and not overlapping another;
 * block size and block table length; metadata and block table checksums; the
 * protobuf decode; each trace_info: known queue type with matching trace and
 * block type, entry size (multiple of 8, >= 16, <= block size), byte range
 * inside the data region, length equal to entry_count * entry_size,
 * first/last seq equal to the seq of its first/last entry and
 * last_seq - first_seq + 1 >= entry_count.
 *
 * The data blocks, by mode:
 *
 * - default (0, or NPROF_NTFF_READ_VERIFY_LAZY): one pass over the data.
 *   nprof_ntff_reader_queue() gives no entries pointer, and
 *   nprof_ntff_chunk_iter_next() verifies each block, once, before handing
 *   out any entry from it; a damaged block is reported there (-EBADMSG),
 *   when the walk reaches it.
 * - NPROF_NTFF_READ_VERIFY_AT_OPEN: the checksum of every data block is
 *   checked here, so a damaged file fails at open, and
 *   nprof_ntff_reader_queue() gives each record's entries pointer. A file
 *   larger than the CPU caches is then read from memory twice (here, and
 *   again by the caller).
 * - NPROF_NTFF_READ_NO_DATA_CSUM: the data blocks are not checked at all
 *   (corruption of entries goes unnoticed); entries pointers are given.
 *
 * A file of compressed blocks (NPROF_NTFF_VERSION_MAJOR_ZSTD) reads the
 * same way, each block decompressed once, after its stored bytes pass
 * their checksum, into an anonymous mapping that every pointer handed out
 * points into (valid until close): in the default mode as the chunk
 * iterator reaches it (and, here, the blocks of each record's first and
 * last entries, or of every packed record, which this reads), in the other
 * two modes every block here (NO_DATA_CSUM without the checksums). The
 * table entries are checked with the block table (Documentation/ntff.rst,
 * "Compressed blocks").
 *
 * Up to library 1.2, flags 0 meant NPROF_NTFF_READ_VERIFY_AT_OPEN; programs
 * linked against those versions (symbol version NEURONPROF_1.0) keep that
 * meaning. A program rebuilt against 1.3 that uses entries pointers must ask
 * for NPROF_NTFF_READ_VERIFY_AT_OPEN (or move to the chunk iterator).
 *
 * Return: the reader, or NULL with errno: EINVAL (an unknown flag, or more
 * than one), EBADMSG (any validation failure; the message says which check
 * and the values), EPROTONOSUPPORT (unknown major version), ENOMEM, or the
 * errno of open/fstat/mmap.
 */
NPROF_API struct nprof_ntff_reader *nprof_ntff_reader_open(const char *path, unsigned int flags);

/**
 * nprof_ntff_reader_open_mem() - validate an NTFF image in memory, as
 * nprof_ntff_reader_open(). @buf is not copied and must stay valid and
 * unchanged until the reader is closed; it need not be aligned.
 */
NPROF_API struct nprof_ntff_reader *nprof_ntff_reader_open_mem(const void *buf, size_t len,
							       unsigned int flags);

/**
 * nprof_ntff_reader_close() - unmap and free. NULL is allowed.
 */
NPROF_API void nprof_ntff_reader_close(struct nprof_ntff_reader *r);

/**
 * nprof_ntff_reader_header() - the validated header, converted to host byte
 * order (a copy inside the reader).
 *
 * Return: the header, or NULL with errno EINVAL if @r is NULL.
 */
NPROF_API const struct nprof_ntff_header *nprof_ntff_reader_header(const struct nprof_ntff_reader *r);

/**
 * nprof_ntff_reader_info() - the capture description.
 * @info: out; set @info->size first.
 *
 * Return: 0, or -EINVAL for NULL arguments or a bad @info->size.
 */
NPROF_API int nprof_ntff_reader_info(const struct nprof_ntff_reader *r, struct nprof_ntff_info *info);

/**
 * nprof_ntff_reader_queue_count() - number of trace_info records.
 *
 * Return: the count, or -EINVAL if @r is NULL.
 */
NPROF_API int nprof_ntff_reader_queue_count(const struct nprof_ntff_reader *r);

/**
 * nprof_ntff_reader_queue() - one trace_info record.
 * @idx: below nprof_ntff_reader_queue_count().
 * @q: out; set @q->size first.
 *
 * Return: 0, or -EINVAL (NULL argument, bad @q->size), -ERANGE (@idx).
 */
NPROF_API int nprof_ntff_reader_queue(const struct nprof_ntff_reader *r, size_t idx,
				      struct nprof_ntff_queue *q);

/**
 * nprof_ntff_reader_metadata() - the raw ntff_info bytes (for other decoders).
 * @len: out, their length.
 *
 * Return: a pointer into the mapping, or NULL with errno EINVAL.
 */
NPROF_API const void *nprof_ntff_reader_metadata(const struct nprof_ntff_reader *r, size_t *len);

/*
 * struct nprof_ntff_entry_iter - walks the entries of one queue record of a
 * reader opened with NPROF_NTFF_READ_VERIFY_AT_OPEN or
 * NPROF_NTFF_READ_NO_DATA_CSUM, the modes that give entries pointers (a
 * record without one, as in the default one-pass mode, yields nothing: use
 * struct nprof_ntff_chunk_iter there):
 *
 *	struct nprof_ntff_entry_iter it;
 *	const struct neuronprof_notification *n;
 *
 *	nprof_ntff_entry_iter_init(&it, &q);
 *	while ((n = nprof_ntff_entry_iter_next(&it)))
 *		use(n);	// read only the members of the first entry_size bytes
 */
struct nprof_ntff_entry_iter {
	const unsigned char *pos;
	const unsigned char *end;
	size_t step;
};

static inline void nprof_ntff_entry_iter_init(struct nprof_ntff_entry_iter *it,
					      const struct nprof_ntff_queue *q)
{
	it->pos = (const unsigned char *)q->entries;
	it->end = it->pos ? it->pos + q->data_length : it->pos;
	it->step = q->entry_size;
}

/* Returns the next entry, or NULL after the last one. */
static inline const void *nprof_ntff_entry_iter_next(struct nprof_ntff_entry_iter *it)
{
	const unsigned char *cur = it->pos;

	if (cur == it->end)
		return NULL;
	it->pos = cur + it->step;
	return cur;
}

/*
 * struct nprof_ntff_chunk_iter - walks the entries of one queue record in
 * chunks, verifying each data block before any of its entries is handed
 * out; the way to read the entries of a reader in the default one-pass mode
 * (it works in every mode):
 *
 *	struct nprof_ntff_chunk_iter it;
 *	const unsigned char *p;
 *	int n;
 *
 *	nprof_ntff_chunk_iter_init(&it, r, idx);
 *	while ((n = nprof_ntff_chunk_iter_next(&it, (const void **)&p)) > 0)
 *		for (int i = 0; i < n; i++)
 *			use(p + (size_t)i * q.entry_size);
 *	if (n < 0)
 *		fail();		// -EBADMSG: a corrupt block, named in the message
 *
 * The members are the iterator's state; callers only read @entry_size.
 */
struct nprof_ntff_chunk_iter {
	struct nprof_ntff_reader *reader;
	uint64_t pos;		/* next entry, from the start of the data region */
	uint64_t end;		/* end of the record's entries */
	size_t queue;		/* record index */
	uint32_t entry_size;	/* bytes per entry */
	uint32_t pad;
};

/**
 * nprof_ntff_chunk_iter_init() - start walking record @idx of @r.
 *
 * Return: 0, or -EINVAL (NULL argument), -ERANGE (@idx not below
 * nprof_ntff_reader_queue_count()).
 */
NPROF_API int nprof_ntff_chunk_iter_init(struct nprof_ntff_chunk_iter *it,
					 struct nprof_ntff_reader *r, size_t idx);

/**
 * nprof_ntff_chunk_iter_next() - the next chunk of entries.
 * @it: the iterator.
 * @entries: out, the chunk's first entry, inside the reader's mapping;
 *	entries follow every @it->entry_size bytes.
 *
 * A chunk is the record's next entries up to the end of the data block they
 * start in, or a single entry that crosses into the next block; so it is
 * never larger than a block. Every block the chunk touches is verified
 * against the block table before it is returned (unless the reader was
 * opened with NPROF_NTFF_READ_NO_DATA_CSUM); a block is verified once per
 * reader, whichever record or iterator reaches it first. A reader opened
 * with NPROF_NTFF_READ_VERIFY_AT_OPEN verified every block at open.
 *
 * Return: the number of entries in the chunk (> 0); 0 after the last one;
 * -EINVAL (NULL argument); -EBADMSG if a block fails its checksum (the
 * message names the block, its byte range and the record; no entry of it is
 * returned and later calls fail the same way).
 */
NPROF_API int nprof_ntff_chunk_iter_next(struct nprof_ntff_chunk_iter *it, const void **entries);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_NTFF_H */
