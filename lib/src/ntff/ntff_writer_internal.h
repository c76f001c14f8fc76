/* SPDX-License-Identifier: MIT */
/*
 * The NTFF writer's state, shared by its two files: ntff_writer.c (create,
 * append, finalize, pending writers) and ntff_writer_info.c (the capture
 * description a writer is given: nprof_ntff_writer_set_info()).
 */
#ifndef NEURONPROF_NTFF_WRITER_INTERNAL_H
#define NEURONPROF_NTFF_WRITER_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/internal.h"
#include "ntff/ntff_internal.h"

struct nprof_ntff_writer {
	int dirfd;
	int fd;
	unsigned int flags;
	char *name;			/* NULL for a pending writer until commit */
	char *tmpname;			/* "" when there is no name to remove */
	bool pending;			/* nprof_ntff_writer_create_pending() */
	uint64_t writeback;		/* data below it is under writeback */
	int error;			/* sticky negative errno once failed */
	char *error_msg;		/* its message, replayed by later calls */
	uint64_t data_len;
	uint32_t block_size;		/* a power of two */
	bool block_size_set;		/* by nprof_ntff_writer_set_block_size() */
	bool raw_packed;		/* appends are packed raw records */
	uint32_t block_csum;		/* CRC32C of the partial block at data_len */
	uint32_t *blocks;		/* CRC32C of each complete block */
	size_t nblocks;
	size_t blocks_cap;
	/* Compressed blocks (ntff_writer_zstd.c); zlevel 0: blocks as is. */
	int zlevel;
	void *zcctx;			/* ZSTD_CCtx */
	unsigned char *zpart;		/* the partial block's bytes at data_len */
	unsigned char *zsave;		/* zpart before a pending writer's append */
	unsigned char *zout;		/* stored blocks not written yet */
	size_t zout_len, zout_cap;
	uint64_t zstored;		/* bytes of stored blocks, written or in zout */
	struct ntff_zblock *zblocks;	/* one per complete block (nblocks) */
	Neuronprof__Ntff__NtffInfo info;
	Neuronprof__Ntff__DeviceInfo device;
	/* device.code_names: the messages, their pointers, the names' copies. */
	Neuronprof__Ntff__CodeName *names;
	Neuronprof__Ntff__CodeName **name_ptrs;
	char (*name_strs)[NPROF_NTFF_CODE_NAME_MAX + 1];
	Neuronprof__Ntff__TraceInfo *traces;
	size_t ntraces;
	size_t traces_cap;
};

/* A major-4 block table entry, in host order. */
struct ntff_zblock {
	uint64_t off;			/* of the stored bytes, from the data region's start */
	uint32_t len;			/* stored bytes | NPROF_NTFF_ZBLOCK_ZSTD */
	uint32_t csum;			/* CRC32C of the stored bytes */
};

/*
 * Store the complete blocks that @len0 bytes at @span0 then @len1 at
 * @span1 (appended at w->data_len) complete, compressed, and keep the rest
 * in w->zpart; the caller then adds the bytes to w->data_len. On failure
 * the block state is as before the call (a pending writer retries).
 * Return: 0 or a negative errno, the message set.
 */
int ntff_wz_append(struct nprof_ntff_writer *w, const void *span0, size_t len0,
		   const void *span1, size_t len1);

/*
 * The block table of a compressed writer, little-endian, with its partial
 * last block (stored at data offset w->zstored, its bytes in *@tail, of
 * *@tail_len bytes, to be written before the table): a new buffer of
 * *@tlen bytes, freed by the caller; the writer's state is unchanged.
 * NULL with the message set on failure.
 */
unsigned char *ntff_wz_table(struct nprof_ntff_writer *w, const unsigned char **tail,
			     size_t *tail_len, size_t *tlen);

/* Free what a compressed writer holds. */
void ntff_wz_free(struct nprof_ntff_writer *w);

/* The error a failed writer keeps, reported again (its message set); negative errno. */
static inline int ntff_writer_replay(const struct nprof_ntff_writer *w)
{
	return nprof_err(-w->error, "%s", w->error_msg ? w->error_msg : "NTFF writer failed earlier");
}

/*
 * Make room for @need entries in the block table whose pointer is at
 * @tablep (the plain writer's &w->blocks of CRCs or the compressed
 * writer's &w->zblocks), of @elem-byte entries with room for *@cap now:
 * grown by doubling, the pointer and *@cap updated. Return: 0, or -ENOMEM
 * with the message set and the table as it was.
 */
static inline int ntff_writer_grow_table(void *tablep, size_t elem, size_t *cap,
					 uint64_t need)
{
	void *table, *p;
	size_t n;

	if (need <= *cap)
		return 0;
	if (need > SIZE_MAX / 2 / elem)
		return nprof_err(ENOMEM, "cannot hold a block table of %llu blocks",
				 (unsigned long long)need);
	n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	/* @tablep is a uint32_t ** or a struct ntff_zblock **: copied, not cast. */
	memcpy(&table, tablep, sizeof(table));
	p = realloc(table, n * elem);
	if (!p)
		return nprof_err(ENOMEM, "cannot grow the block table to %zu blocks", n);
	memcpy(tablep, &p, sizeof(p));
	*cap = n;
	return 0;
}

/* Free the copies of the device's code names a writer holds. */
void ntff_writer_free_names(struct nprof_ntff_writer *w);

#endif /* NEURONPROF_NTFF_WRITER_INTERNAL_H */
