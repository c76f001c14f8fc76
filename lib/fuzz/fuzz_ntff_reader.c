// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the NTFF reader on arbitrary bytes. Each input is opened
 * as is, then once more with every checksum recomputed (the block table
 * included), so mutations reach the protobuf decode and the trace_info
 * checks instead of stopping at a checksum mismatch. Each time it is opened
 * in the three validation modes, whatever opens is walked completely (the
 * lazy reader with the chunk iterator), and the modes must agree: the lazy
 * mode skips only the data blocks' checksums at open, and never hands out
 * an entry of a file the verify-at-open mode refuses.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/ntff.h>

#include "util/internal.h"
#include "ntff/ntff_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void walk(struct nprof_ntff_reader *r)
{
	struct nprof_ntff_info info = { .size = sizeof(info) };
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	struct nprof_ntff_entry_iter it;
	const unsigned char *e;
	size_t mlen;
	int i, n;

	if (nprof_ntff_reader_info(r, &info))
		abort();
	if (info.model_name)
		sink += strlen(info.model_name);
	if (info.device.provider)
		sink += strlen(info.device.provider);
	if (!nprof_ntff_reader_header(r) || !nprof_ntff_reader_metadata(r, &mlen))
		abort();
	n = nprof_ntff_reader_queue_count(r);
	for (i = 0; i < n; i++) {
		uint64_t seq, count = 0;

		if (nprof_ntff_reader_queue(r, (size_t)i, &q))
			abort();
		nprof_ntff_entry_iter_init(&it, &q);
		while ((e = nprof_ntff_entry_iter_next(&it))) {
			/* Touch both ends of every entry the reader vouched for. */
			memcpy(&seq, e + 8, sizeof(seq));
			sink += seq + e[q.entry_size - 1];
			count++;
		}
		if (count != (q.entries ? q.entry_count : 0))
			abort();
	}
}

/*
 * Walk record @idx in chunks; every chunk must follow the previous one and
 * fit in a block. Returns 0 after the last entry or the iterator's error;
 * *first is the first entry (NULL if none was handed out).
 */
static int walk_chunks(struct nprof_ntff_reader *r, size_t idx, const void **first)
{
	const struct nprof_ntff_header *h = nprof_ntff_reader_header(r);
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	struct nprof_ntff_chunk_iter it;
	const unsigned char *p, *next = NULL;
	uint64_t count = 0, seq;
	int n, k;

	*first = NULL;
	if (nprof_ntff_reader_queue(r, idx, &q) || nprof_ntff_chunk_iter_init(&it, r, idx))
		abort();
	while ((n = nprof_ntff_chunk_iter_next(&it, (const void **)&p)) > 0) {
		if ((uint64_t)n * q.entry_size > h->block_size || (next && p != next))
			abort();
		if (!*first)
			*first = p;
		for (k = 0; k < n; k++) {
			const unsigned char *e = p + (size_t)k * q.entry_size;

			memcpy(&seq, e + 8, sizeof(seq));
			sink += seq + e[q.entry_size - 1];
		}
		next = p + (size_t)n * q.entry_size;
		count += (uint64_t)n;
	}
	if (n == 0 && count != q.entry_count)
		abort();
	/* A damaged block; or (major 4) a frame that does not decompress to its block. */
	if (n < 0 && (n != -EBADMSG || (!strstr(nprof_strerror_last(), "data checksum mismatch") &&
					!strstr(nprof_strerror_last(), "does not decompress"))))
		abort();
	return n;
}

static void check_modes(const unsigned char *buf, size_t size)
{
	struct nprof_ntff_reader *eager, *lazy, *quick, *dflt;
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	const void *first;
	int i, n, ret;
	/*
	 * Major 4 (compressed blocks): each reader decompresses into a mapping
	 * of its own, so pointers of two readers differ (their entries must
	 * not); the one-pass mode decompresses, so verifies, the blocks of the
	 * records' first and last entries at open, and NO_DATA_CSUM
	 * decompresses every block at open: either may refuse what the other
	 * opens.
	 */
	bool zstd = size >= 10 && buf[8] == NPROF_NTFF_VERSION_MAJOR_ZSTD && !buf[9];

	eager = nprof_ntff_reader_open_mem(buf, size, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	if (eager)
		walk(eager);
	else if (!*nprof_strerror_last())
		abort();	/* every refusal must say why */
	lazy = nprof_ntff_reader_open_mem(buf, size, NPROF_NTFF_READ_VERIFY_LAZY);
	quick = nprof_ntff_reader_open_mem(buf, size, NPROF_NTFF_READ_NO_DATA_CSUM);
	/* The default is the one-pass mode: it opens exactly what that opens. */
	dflt = nprof_ntff_reader_open_mem(buf, size, 0);
	if (!dflt != !lazy)
		abort();
	nprof_ntff_reader_close(dflt);
	/* Both skip the data blocks at open; the lazy one checks seqs' blocks only to name them. */
	if ((!zstd && !lazy != !quick) || (eager && !lazy) || (eager && !quick))
		abort();
	if (quick)
		walk(quick);
	if (lazy) {
		walk(lazy);
		n = nprof_ntff_reader_queue_count(lazy);
		for (i = 0; i < n; i++) {
			ret = walk_chunks(lazy, (size_t)i, &first);
			/* A block the verify-at-open mode accepted cannot fail later. */
			if (ret && eager)
				abort();
			if (eager && !nprof_ntff_reader_queue(eager, (size_t)i, &q) && q.entry_count &&
			    (zstd ? !first || memcmp(first, q.entries, q.entry_size) : first != q.entries))
				abort();
			if (quick && walk_chunks(quick, (size_t)i, &first))
				abort();
		}
	}
	nprof_ntff_reader_close(eager);
	nprof_ntff_reader_close(lazy);
	nprof_ntff_reader_close(quick);
}

/* Recompute every checksum the header and the block table hold. */
static void reseal(unsigned char *b, size_t size)
{
	struct nprof_ntff_header h;
	uint32_t bs;
	uint64_t i, n;

	if (size < NPROF_NTFF_HEADER_SIZE)
		return;
	nprof_ntff_header_decode(b, &h);
	bs = h.block_size;
	if (bs >= NPROF_NTFF_BLOCK_SIZE_MIN && bs <= NPROF_NTFF_BLOCK_SIZE_MAX && !(bs & (bs - 1)) &&
	    h.data_offset <= size && h.data_length <= size - h.data_offset &&
	    h.block_table_offset <= size && h.block_table_length <= size - h.block_table_offset) {
		n = ntff_block_count(h.data_length, bs);
		if (h.block_table_length == n * NTFF_BLOCK_CSUM_SIZE) {
			for (i = 0; i < n; i++) {
				uint64_t len = h.data_length - i * bs;
				uint32_t c = htole32(nprof_crc32c_update(0, b + h.data_offset + i * bs,
									 len < bs ? len : bs));

				memcpy(b + h.block_table_offset + i * NTFF_BLOCK_CSUM_SIZE, &c, sizeof(c));
			}
		}
		h.block_table_csum = nprof_crc32c_update(0, b + h.block_table_offset,
							 h.block_table_length);
	}
	if (h.metadata_offset <= size && h.metadata_length <= size - h.metadata_offset)
		h.metadata_csum = nprof_crc32c_update(0, b + h.metadata_offset, h.metadata_length);
	nprof_ntff_header_encode(&h, b);
	h.header_csum = nprof_crc32c_update(0, b, NTFF_HEADER_CSUM_SPAN);
	nprof_ntff_header_encode(&h, b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy;

	check_modes(data, size);
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	reseal(copy, size);
	check_modes(copy, size);
	free(copy);
	return 0;
}
