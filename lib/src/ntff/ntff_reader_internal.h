/* SPDX-License-Identifier: MIT */
/*
 * The NTFF reader's state, shared by its two files: ntff_reader.c (open,
 * accessors, the entry and chunk iterators) and ntff_reader_validate.c
 * (the checks of a file's framing at open, and of its data blocks).
 */
#ifndef NEURONPROF_NTFF_READER_INTERNAL_H
#define NEURONPROF_NTFF_READER_INTERNAL_H

#include <stdbool.h>
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
	const unsigned char *data;
	const unsigned char *table;	/* block table */
	uint64_t nblocks;
	unsigned int block_shift;	/* log2 of the block size */
	unsigned int flags;
	uint64_t *verified;		/* bit per block, one-pass mode only */
	const char *what;		/* file name or "buffer", for messages */
};

#define BAD(r, fmt, ...) nprof_err(EBADMSG, "%s: " fmt, (r)->what, ##__VA_ARGS__)

/*
 * Check all of @r's file (header, block table, metadata, queue records and,
 * with NPROF_NTFF_READ_VERIFY_AT_OPEN, every data block) before anything is
 * handed out. Return: 0 or a negative errno, the reason set.
 */
int ntff_reader_validate(struct nprof_ntff_reader *r);

/*
 * One-pass mode: verify the data blocks [@off, @off + @len) of queue record
 * @rec touches that were not verified yet. Return: 0 or -EBADMSG.
 */
int ntff_reader_verify_range(struct nprof_ntff_reader *r, uint64_t off, uint64_t len, size_t rec);

#endif /* NEURONPROF_NTFF_READER_INTERNAL_H */
