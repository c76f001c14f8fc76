/* SPDX-License-Identifier: MIT */
/*
 * What the tests' programs that write a recording again through the
 * library's writer (pack_raw.c, ntff_zcopy.c) share: dying with the
 * library's or the system's reason, opening IN with its description, and
 * reading each queue record with the description that appends it again as
 * it was (queue, entry size, ring flags, lost and trimmed counts).
 */
#ifndef NPROF_TOOL_TESTS_NTFF_COPY_H
#define NPROF_TOOL_TESTS_NTFF_COPY_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/neuronprof.h>
#include <neuronprof/ntff.h>

/* Exit 1 after "<program>: @what: <why>", the library's last error or errno's. */
__attribute__((noreturn)) static inline void copy_die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		nprof_strerror_last()[0] ? nprof_strerror_last() : strerror(errno));
	exit(1);
}

/* @path opened (checked whole) and its description in *@info; dies on failure. */
static inline struct nprof_ntff_reader *copy_open(const char *path, struct nprof_ntff_info *info)
{
	struct nprof_ntff_reader *r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);

	*info = (struct nprof_ntff_info){ .size = sizeof(*info) };
	if (!r)
		copy_die(path);
	if (nprof_ntff_reader_info(r, info))
		copy_die("info");
	return r;
}

/* Queue record @i of @r into *@q, and into *@d the description appending it as it was. */
static inline void copy_queue(struct nprof_ntff_reader *r, int i, struct nprof_ntff_queue *q,
			      struct nprof_ntff_queue_desc *d)
{
	*q = (struct nprof_ntff_queue){ .size = sizeof(*q) };
	if (nprof_ntff_reader_queue(r, (size_t)i, q))
		copy_die("queue");
	*d = (struct nprof_ntff_queue_desc){
		.size = sizeof(*d), .queue_type = q->queue_type, .target_kind = q->target_kind,
		.target_index = q->target_index, .engine = q->engine,
		.entry_size = q->entry_size, .ring_flags = q->ring_flags,
		.lost_count = q->lost_count, .trimmed_count = q->trimmed_count,
	};
}

#endif
