/* SPDX-License-Identifier: MIT */
/*
 * The NTFF reader's state, shared by its files: ntff_reader.c (open,
 * accessors, the entry and chunk iterators), ntff_reader_validate.c (the
 * checks of a file's framing at open), ntff_reader_verify.c (the checks of
 * its data blocks) and ntff_reader_zstd.c (compressed blocks).
 */
#ifndef NEURONPROF_NTFF_READER_INTERNAL_H
#define NEURONPROF_NTFF_READER_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "ntff/ntff_internal.h"

struct nprof_ntff_reader {
	const unsigned char *base;
	size_t len;
	void *map;			/* mmap()ed region, NULL for open_mem */
	size_t map_len;
	struct nprof_ntff_header hdr;	/* host byte order */
	bool packed;			/* major 3: packed raw records */
	Neuronprof__Ntff__NtffInfo *info;
	struct nprof_ntff_code_name *names;	/* info->device->code_names, checked */
	size_t nnames;
	const unsigned char *data;	/* the data region (decompressed, for major 4) */
	uint64_t data_size;		/* its length */
	const unsigned char *table;	/* block table */
	uint64_t nblocks;
	unsigned int block_shift;	/* log2 of the block size */
	unsigned int flags;
	uint64_t *verified;		/* bit per block, one-pass mode only */
	const char *what;		/* file name or "buffer", for messages */
	/*
	 * Major 4 (compressed blocks, ntff_reader_zstd.c): the blocks are
	 * decompressed into @zmap, an anonymous mapping of data_size bytes
	 * that @data points to, each once, when verified (so, in the one-pass
	 * mode, as the chunk iterator first reaches it).
	 */
	bool zstd;
	const unsigned char *stored;	/* the data region as stored */
	void *zmap;
	size_t zmap_len;
	void *zdctx;			/* ZSTD_DCtx */
};

#define BAD(r, fmt, ...) nprof_err(EBADMSG, "%s: " fmt, (r)->what, ##__VA_ARGS__)

/*
 * Check all of @r's file (header, block table, metadata, queue records and,
 * with NPROF_NTFF_READ_VERIFY_AT_OPEN, every data block) before anything is
 * handed out. Return: 0 or a negative errno, the reason set.
 */
int ntff_reader_validate(struct nprof_ntff_reader *r);

/*
 * NPROF_NTFF_READ_VERIFY_AT_OPEN, uncompressed: check every data block,
 * on up to two threads (ntff_reader_verify.c); the result and message are
 * those of checking them in file order. Return: 0 or -EBADMSG.
 */
int ntff_reader_verify_all(struct nprof_ntff_reader *r);

/* Two non-empty ranges, both known to be in bounds, share a byte. */
static inline bool ntff_reader_overlap(uint64_t a_off, uint64_t a_len, uint64_t b_off,
				       uint64_t b_len)
{
	return a_len && b_len && a_off < b_off + b_len && b_off < a_off + a_len;
}

/*
 * One-pass mode: verify the data blocks [@off, @off + @len) of queue record
 * @rec touches that were not verified yet. Return: 0 or -EBADMSG.
 */
int ntff_reader_verify_range(struct nprof_ntff_reader *r, uint64_t off, uint64_t len, size_t rec);

/* "queue record 2 (DMA core 0 engine 1)", or "outside every queue record" for SIZE_MAX. */
static inline void ntff_reader_describe(const struct nprof_ntff_reader *r, size_t idx, char *buf, size_t size)
{
	const Neuronprof__Ntff__TraceInfo *t;
	const char *qt;

	if (idx == SIZE_MAX) {
		snprintf(buf, size, "outside every queue record");
		return;
	}
	t = r->info->trace[idx];
	qt = nprof_queue_type_name(t->queue_type);
	if (qt)
		snprintf(buf, size, "queue record %zu (%s %s %u engine %u)", idx, qt,
			 t->target_kind ? "topsp" : "core", t->target_index, t->engine);
	else
		snprintf(buf, size, "queue record %zu (queue type %u %s %u engine %u)", idx,
			 t->queue_type, t->target_kind ? "topsp" : "core", t->target_index,
			 t->engine);
}

/*
 * Major 4, after the block table's checksum: check every entry of the
 * table (stored in order, one after another, each no longer than its
 * block, filling the stored region) and map the decompressed region.
 */
int ntff_zstd_open(struct nprof_ntff_reader *r);

/*
 * Major 4: check block @blk's stored bytes against the table (unless
 * NPROF_NTFF_READ_NO_DATA_CSUM) and decompress them into r->data. @rec as
 * for the plain blocks' check, naming the record in messages (SIZE_MAX:
 * the first with entries in the block). Return: 0 or -EBADMSG.
 */
int ntff_zstd_block(const struct nprof_ntff_reader *r, uint64_t blk, size_t rec);

/* Free what ntff_zstd_open() took. */
void ntff_zstd_close(struct nprof_ntff_reader *r);

#endif /* NEURONPROF_NTFF_READER_INTERNAL_H */
