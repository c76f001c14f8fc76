// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the NTFF reader on arbitrary bytes. Each input is opened
 * as is, then once more with every checksum recomputed, so mutations reach
 * the protobuf decode and the trace_info checks instead of stopping at a
 * checksum mismatch. Whatever opens is walked completely.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/ntff.h>

#include "internal.h"
#include "ntff_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(struct nprof_ntff_reader *r)
{
	struct nprof_ntff_info info = { .size = sizeof(info) };
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	struct nprof_ntff_entry_iter it;
	volatile uint64_t sink = 0;
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
		if (count != q.entry_count)
			abort();
	}
	(void)sink;
}

static void reseal(unsigned char *b, size_t size)
{
	struct nprof_ntff_header h;

	if (size < NPROF_NTFF_HEADER_SIZE)
		return;
	ntff_header_decode(b, &h);
	if (h.metadata_offset <= size && h.metadata_length <= size - h.metadata_offset)
		h.metadata_csum = nprof_crc32c_update(0, b + h.metadata_offset, h.metadata_length);
	if (h.data_offset <= size && h.data_length <= size - h.data_offset)
		h.data_csum = nprof_crc32c_update(0, b + h.data_offset, h.data_length);
	ntff_header_encode(&h, b);
	h.header_csum = nprof_crc32c_update(0, b, NTFF_HEADER_CSUM_SPAN);
	ntff_header_encode(&h, b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nprof_ntff_reader *r;
	unsigned char *copy;

	r = nprof_ntff_reader_open_mem(data, size, 0);
	if (r) {
		walk(r);
		nprof_ntff_reader_close(r);
	} else if (!*nprof_strerror_last()) {
		abort();	/* every refusal must say why */
	}

	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	reseal(copy, size);
	r = nprof_ntff_reader_open_mem(copy, size, 0);
	if (r) {
		walk(r);
		nprof_ntff_reader_close(r);
	}
	free(copy);
	return 0;
}
