// SPDX-License-Identifier: MIT
/*
 * NTFF reader: compressed blocks (major 4, Documentation/ntff.rst
 * "Compressed blocks"). The block table gives each block's stored offset,
 * stored length (a zstd frame, or the block as is) and the CRC32C of the
 * stored bytes. The reader decompresses each block once, after checking
 * its stored bytes, into an anonymous mapping of the whole decompressed
 * region, at the block's own offset: every pointer the reader hands out
 * (entries pointers, chunks, the first and last entries it reads at open)
 * then means what it means for a plain file, and stays valid until close,
 * whichever iterators run at once. Only the blocks read are decompressed
 * (and take memory): in the one-pass mode those the chunk iterator reaches,
 * in the modes that give entries pointers all of them, at open.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <zstd.h>

#include "util/internal.h"
#include "ntff/ntff_internal.h"
#include "ntff/ntff_reader_internal.h"

/* Block @blk's table entry. */
static void zentry(const struct nprof_ntff_reader *r, uint64_t blk, uint64_t *off, uint32_t *word,
		   uint32_t *csum)
{
	const unsigned char *e = r->table + blk * NPROF_NTFF_ZBLOCK_ENTRY_SIZE;
	uint64_t o;
	uint32_t w, c;

	memcpy(&o, e, 8);
	memcpy(&w, e + 8, 4);
	memcpy(&c, e + 12, 4);
	*off = le64toh(o);
	*word = le32toh(w);
	*csum = le32toh(c);
}

/* Bytes of block @blk once decompressed. */
static uint64_t block_len(const struct nprof_ntff_reader *r, uint64_t blk)
{
	uint64_t start = blk << r->block_shift, len = r->data_size - start;

	return len < (1ULL << r->block_shift) ? len : 1ULL << r->block_shift;
}

int ntff_zstd_open(struct nprof_ntff_reader *r)
{
	uint64_t blk, next = 0, off, len;
	uint32_t word, csum;

	/* The table: blocks stored in order, back to back, filling the region. */
	for (blk = 0; blk < r->nblocks; blk++) {
		zentry(r, blk, &off, &word, &csum);
		len = word & ~NPROF_NTFF_ZBLOCK_ZSTD;
		if (off != next)
			return BAD(r, "block %llu is stored at byte %llu of the data region, not at %llu where block %llu ends",
				   (unsigned long long)blk, (unsigned long long)off,
				   (unsigned long long)next, (unsigned long long)blk - 1);
		if (word & NPROF_NTFF_ZBLOCK_ZSTD ? !len || len >= block_len(r, blk) :
		    len != block_len(r, blk))
			return BAD(r, "block %llu stores %llu bytes %s for %llu bytes of data",
				   (unsigned long long)blk, (unsigned long long)len,
				   word & NPROF_NTFF_ZBLOCK_ZSTD ? "as a zstd frame" : "as is",
				   (unsigned long long)block_len(r, blk));
		if (len > r->hdr.data_length - next)
			return BAD(r, "block %llu (%llu bytes at byte %llu) ends past the %llu-byte stored data region",
				   (unsigned long long)blk, (unsigned long long)len,
				   (unsigned long long)off, (unsigned long long)r->hdr.data_length);
		next += len;
	}
	if (next != r->hdr.data_length)
		return BAD(r, "the blocks store %llu bytes, the data region holds %llu",
			   (unsigned long long)next, (unsigned long long)r->hdr.data_length);
	if (r->data_size > SIZE_MAX / 2)
		return BAD(r, "data region of %llu bytes once decompressed cannot be mapped",
			   (unsigned long long)r->data_size);
	r->zdctx = ZSTD_createDCtx();
	if (!r->zdctx)
		return nprof_err(ENOMEM, "cannot allocate a zstd decompression context for %s",
				 r->what);
	if (!r->data_size) {
		r->data = (const unsigned char *)"";
		return 0;
	}
	/* Pages are taken only as blocks are decompressed into them. */
	r->zmap = mmap(NULL, (size_t)r->data_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->zmap == MAP_FAILED) {
		r->zmap = NULL;
		return nprof_err(errno == ENOMEM ? ENOMEM : errno,
				 "cannot map the %llu bytes of %s decompressed: %s",
				 (unsigned long long)r->data_size, r->what, strerror(errno));
	}
	r->zmap_len = (size_t)r->data_size;
	r->data = r->zmap;
	/*
	 * Fewer faults: 2 MiB pages where the kernel has them. A 32 MiB file
	 * of zstd blocks read in one pass at 428 MB/s without, 818 MB/s with
	 * (bench/ntff_zstd, the development VM, one run each).
	 */
	if (r->zmap_len >= (2u << 20))
		(void)madvise(r->zmap, r->zmap_len, MADV_HUGEPAGE);
	return 0;
}

void ntff_zstd_close(struct nprof_ntff_reader *r)
{
	ZSTD_freeDCtx(r->zdctx);
	r->zdctx = NULL;
	if (r->zmap)
		munmap(r->zmap, r->zmap_len);
	r->zmap = NULL;
}

/* The first record with entries in [start, start + len), or SIZE_MAX. */
static size_t record_at(const struct nprof_ntff_reader *r, uint64_t start, uint64_t len)
{
	size_t i;

	for (i = 0; r->info && i < r->info->n_trace; i++) {
		const Neuronprof__Ntff__TraceInfo *t = r->info->trace[i];

		if (t->data_length && t->data_offset < start + len && start < t->data_offset + t->data_length)
			return i;
	}
	return SIZE_MAX;
}

int ntff_zstd_block(const struct nprof_ntff_reader *r, uint64_t blk, size_t rec)
{
	uint64_t start = blk << r->block_shift, len = block_len(r, blk), off;
	unsigned char *dst = (unsigned char *)r->data + start;
	const unsigned char *src;
	uint32_t word, stored, csum;
	size_t slen, n;
	char what[160];

	zentry(r, blk, &off, &word, &stored);
	src = r->stored + off;
	slen = word & ~NPROF_NTFF_ZBLOCK_ZSTD;
	if (!(r->flags & NPROF_NTFF_READ_NO_DATA_CSUM)) {
		csum = nprof_crc32c_update(0, src, slen);
		if (csum != stored) {
			if (rec == SIZE_MAX)
				rec = record_at(r, start, len);
			ntff_reader_describe(r, rec, what, sizeof(what));
			return BAD(r, "data checksum mismatch: stored 0x%08x, computed 0x%08x in block %llu (bytes %llu..%llu of the data region, stored %s in bytes %llu..%llu of the file, %s)",
				   stored, csum, (unsigned long long)blk,
				   (unsigned long long)start, (unsigned long long)(start + len - 1),
				   word & NPROF_NTFF_ZBLOCK_ZSTD ? "zstd-compressed" : "as is",
				   (unsigned long long)(r->hdr.data_offset + off),
				   (unsigned long long)(r->hdr.data_offset + off + slen - 1), what);
		}
	}
	if (!(word & NPROF_NTFF_ZBLOCK_ZSTD)) {
		memcpy(dst, src, slen);
		return 0;
	}
	n = ZSTD_decompressDCtx(r->zdctx, dst, (size_t)len, src, slen);
	if (!ZSTD_isError(n) && n == len)
		return 0;
	if (rec == SIZE_MAX)
		rec = record_at(r, start, len);
	ntff_reader_describe(r, rec, what, sizeof(what));
	return BAD(r, "block %llu (bytes %llu..%llu of the data region, a zstd frame in bytes %llu..%llu of the file, %s) does not decompress to its %llu bytes: %s",
		   (unsigned long long)blk, (unsigned long long)start,
		   (unsigned long long)(start + len - 1),
		   (unsigned long long)(r->hdr.data_offset + off),
		   (unsigned long long)(r->hdr.data_offset + off + slen - 1), what,
		   (unsigned long long)len,
		   ZSTD_isError(n) ? ZSTD_getErrorName(n) : "a different length");
}
