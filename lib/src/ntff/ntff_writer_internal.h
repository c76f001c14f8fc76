/* SPDX-License-Identifier: MIT */
/*
 * The NTFF writer's state, shared by its two files: ntff_writer.c (create,
 * append, finalize, pending writers) and ntff_writer_info.c (the capture
 * description a writer is given: nprof_ntff_writer_set_info()).
 */
#ifndef NEURONPROF_NTFF_WRITER_INTERNAL_H
#define NEURONPROF_NTFF_WRITER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The error a failed writer keeps, reported again (its message set); negative errno. */
static inline int ntff_writer_replay(const struct nprof_ntff_writer *w)
{
	return nprof_err(-w->error, "%s", w->error_msg ? w->error_msg : "NTFF writer failed earlier");
}

/* Free the copies of the device's code names a writer holds. */
void ntff_writer_free_names(struct nprof_ntff_writer *w);

#endif /* NEURONPROF_NTFF_WRITER_INTERNAL_H */
