/* SPDX-License-Identifier: MIT */
/*
 * NTFF internals shared by the writer and the reader: header encoding and
 * the checks of caller-sized structs.
 *
 * ntff/ is layer 2 of the library (lib/src/README): it may call util/
 * only.
 */
#ifndef NEURONPROF_NTFF_INTERNAL_H
#define NEURONPROF_NTFF_INTERNAL_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <neuronprof/ntff.h>

#include "ntff.pb-c.h"

/* Bytes covered by header_csum: everything before it. */
#define NTFF_HEADER_CSUM_SPAN	offsetof(struct nprof_ntff_header, header_csum)

/* Sanity bound of an entry size (the uapi's entries are 64 bytes). */
#define NTFF_MAX_ENTRY_SIZE	(1u << 18)

/* Offset of the seq member in a device entry (struct neuronprof_notification). */
#define NTFF_ENTRY_SEQ_OFFSET	8
#define NTFF_MIN_ENTRY_SIZE	16

/* The largest data region the writer produces. */
#define NTFF_MAX_DATA		(1ULL << 62)

/* Bytes per block table entry (a little-endian CRC32C). */
#define NTFF_BLOCK_CSUM_SIZE	4

/*
 * A pending writer starts the writeback (sync_file_range(WRITE)) of every
 * this many bytes of data it wrote; bench/stream_capture's baseline writes
 * with the same strategy. Measured with that benchmark: 8 to 32 MiB did
 * best; 1 to 4 MiB cost more in calls than they saved, and waiting for the
 * previous chunk's writeback slowed the drainer more than it shortened the
 * fsync.
 */
#define NTFF_WRITEBACK_CHUNK	(8ULL << 20)

/*
 * The file's data starts after the 128-byte header, so an append of whole
 * pages of entries would start and end inside pages of the file, and the
 * kernel pays for the two partial pages of every write: a loop of 256 KiB
 * pwrite() calls (a quarter of bench/stream_capture's 1 MiB rings) with the
 * writer's writeback took about a third more CPU time at file offset 128
 * than at 0 (ext4, the 2-core development VM). The
 * drainer therefore cuts a streamed window where the file reaches a multiple
 * of this many bytes (nprof_ntff_writer_page_cut()) and leaves the rest, less
 * than this, in the ring for the next drain, or for the tail pass when no
 * wake-up comes within NPROF_DRAIN_TAIL_MS (capture/capture_stream.h).
 */
#define NTFF_WRITE_ALIGN	4096u

/* Every entry the writer accepts fits in a block it may choose. */
_Static_assert(NTFF_MAX_ENTRY_SIZE <= NPROF_NTFF_BLOCK_SIZE_MAX, "NTFF entry larger than a block");

/*
 * Use @block_size (a power of two in [NPROF_NTFF_BLOCK_SIZE_MIN,
 * NPROF_NTFF_BLOCK_SIZE_MAX]) instead of the default; only before the first
 * append. Appends of entries larger than a block are then refused (without
 * it, the first data appended may raise the block size to its entry size).
 * Not exported: tests and the fuzz corpus use it to make many-block files
 * small.
 */
int nprof_ntff_writer_set_block_size(struct nprof_ntff_writer *w, uint32_t block_size);

/*
 * The length of the longest prefix of @len bytes of @es-byte entries which,
 * appended to @w, ends its file on a multiple of NTFF_WRITE_ALIGN: @len less
 * the bytes past the last such boundary; 0 when there is no boundary after
 * the first byte of the window, or when the boundary falls inside an entry.
 */
uint64_t nprof_ntff_writer_page_cut(const struct nprof_ntff_writer *w, uint64_t len, uint32_t es);

/*
 * A pending writer: the NTFF file of a capture still running, written as
 * its entries arrive, before its name and directory are known. The file is
 * an unnamed temporary file in @dir (O_TMPFILE; a hidden temporary name
 * where the file system lacks it), so a process that dies leaves nothing.
 * Unlike the public writer, an append that fails (a full disk) changes
 * nothing and may be retried. NULL with errno and the message on failure.
 */
struct nprof_ntff_writer *nprof_ntff_writer_create_pending(const char *dir);

/*
 * Complete a pending writer's file and put it in place as @name in @dirfd
 * by nprof_tmpfile_place(): linked (renamed) there when @dirfd is on the
 * same file system, else copied; written into a device or FIFO of that
 * name; through a symbolic link to the file it names. On success, and on a failure once the file is in place (the
 * directory's sync), the writer is freed and *@wp set to NULL; on any other
 * failure it is left as it was, for another commit or an abort.
 */
int nprof_ntff_writer_commit(struct nprof_ntff_writer **wp, int dirfd, const char *name);

/*
 * Free a writer inherited through fork(): close the child's descriptors and
 * remove nothing (the file is the parent's).
 */
void nprof_ntff_writer_forget(struct nprof_ntff_writer *w);

/*
 * Bytes of data @w has taken on disk or will: its data length, or for a
 * compressed writer the stored blocks plus the bytes of the partial block
 * (at most what they will take). 0 for NULL.
 */
uint64_t nprof_ntff_writer_stored(const struct nprof_ntff_writer *w);

/* Whether @w stores its blocks compressed (nprof_ntff_writer_set_compression()). */
bool nprof_ntff_writer_compressed(const struct nprof_ntff_writer *w);

/* Number of blocks of @block_size covering @data_length bytes. */
static inline uint64_t ntff_block_count(uint64_t data_length, uint32_t block_size)
{
	return data_length / block_size + (data_length % block_size != 0);
}

void nprof_ntff_header_encode(const struct nprof_ntff_header *h,
			      unsigned char out[NPROF_NTFF_HEADER_SIZE]);
void nprof_ntff_header_decode(const unsigned char in[NPROF_NTFF_HEADER_SIZE],
			      struct nprof_ntff_header *h);

/*
 * Check a name table (struct nprof_ntff_info.code_names): sorted by
 * (queue_type, code) with each pair once, every name 1 to
 * NPROF_NTFF_CODE_NAME_MAX characters of [a-z0-9_.], none with a raw
 * format. NULL if good, else what is wrong (a static string); *@at is the
 * index of the offending entry.
 */
const char *nprof_ntff_code_names_problem(const struct nprof_ntff_code_name *names, size_t n,
					  uint32_t raw_format, size_t *at);

static inline uint64_t ntff_entry_seq(const unsigned char *entry)
{
	uint64_t v;

	memcpy(&v, entry + NTFF_ENTRY_SEQ_OFFSET, sizeof(v));
	return le64toh(v);
}

/*
 * What the packed raw records (uapi NEURONPROF_RAW_PACKED) of one span of a
 * queue's data say: @first and @last, the first and last sequence number of
 * the 32-byte parts their bytes hold (a record of b bytes takes b / 32 from
 * its header's seq on), both 0 when no record holds bytes (fillers only);
 * @parts, how many. ntff_packed_walk() fills it.
 */
struct ntff_packed_span {
	uint64_t first, last, parts;
	bool any;
};

/*
 * Walk the packed records of @len bytes at @p (64-byte ring entries): they
 * must be whole records, each a header of code NEURONPROF_RAW_PACKED whose
 * bytes are whole device entries of its entry size (a power of two from 32
 * to 256), with seqs that go forward. NULL if good, else what is wrong (a
 * static string), *@at the byte offset of the header at fault.
 */
const char *ntff_packed_walk(const unsigned char *p, uint64_t len, struct ntff_packed_span *s,
			     uint64_t *at);

/*
 * Make @w a writer of packed raw records before anything is appended (a
 * pending writer learns its info only at the end): its appends are then
 * walked as records, and the file gets NPROF_NTFF_VERSION_MAJOR_PACKED.
 */
int nprof_ntff_writer_set_raw_packed(struct nprof_ntff_writer *w);

#endif /* NEURONPROF_NTFF_INTERNAL_H */
