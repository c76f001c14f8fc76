// SPDX-License-Identifier: MIT
/*
 * Writes the NTFF reader's seed corpus into the directory given: small valid
 * files made by the library's own writer, so the corpus always matches the
 * current format and no binary is committed. One has several data blocks
 * (the smallest block size) with entries that straddle them, so mutations
 * start from a block table worth exercising.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#include "ntff/ntff_internal.h"

static int write_file(const char *dir, const char *name, int nqueues, int entries, int wrap)
{
	struct nprof_ntff_info info = {
		.size = sizeof(info), .pid = 1, .core = 0, .capture_kind = NPROF_NTFF_CAPTURE_SESSION,
		.clock_id = 1, .session_id = 1, .model_name = "m", .instance_id = "host",
		.device = { .arch = NEURONPROF_ARCH_INF2, .num_cores = 2, .entry_size = 64,
			    .provider = "sim" },
	};
	struct neuronprof_notification ring[16];
	struct nprof_ntff_queue_desc q = { .size = sizeof(q), .entry_size = sizeof(ring[0]) };
	struct nprof_ntff_writer *w;
	int i, k;

	w = nprof_ntff_writer_create(dir, name, 0);
	if (!w)
		return -errno;
	nprof_ntff_writer_set_info(w, &info);
	for (k = 0; k < nqueues; k++) {
		memset(ring, 0, sizeof(ring));
		for (i = 0; i < entries; i++) {
			ring[i].seq = (uint64_t)(wrap ? (i + entries - wrap) % entries : i);
			ring[i].queue_type = (uint16_t)(k % NEURONPROF_QT_COUNT);
			ring[i].timestamp_ns = 100 + (uint64_t)i;
		}
		q.queue_type = (uint32_t)(k % NEURONPROF_QT_COUNT);
		q.target_kind = q.queue_type >= NEURONPROF_QT_TOPSP_TRACE;
		q.lost_count = (uint64_t)k;
		if (nprof_ntff_writer_append(w, &q, &ring[wrap], (size_t)(entries - wrap) * sizeof(ring[0]),
					     ring, (size_t)wrap * sizeof(ring[0])) < 0) {
			nprof_ntff_writer_abort(w);
			return -errno;
		}
	}
	return nprof_ntff_writer_finalize(w);
}

/*
 * 4 KiB blocks: 81 entries of 64 bytes, then 250 of 24 bytes in two spans,
 * then 16 of 64 bytes: 12 KiB of data, 3 blocks, the last partial, and the
 * 24-byte entries cross a block boundary; with @zlevel, the blocks zstd
 * frames (NTFF major 4).
 */
static int write_blocks(const char *dir, const char *name, int zlevel)
{
	static const struct { uint32_t qt, es, n; } recs[] = {
		{ NEURONPROF_QT_TRACE, 64, 81 }, { NEURONPROF_QT_DMA, 24, 250 },
		{ NEURONPROF_QT_EVENT, 64, 16 },
	};
	struct nprof_ntff_queue_desc q = { .size = sizeof(q) };
	static uint64_t e[250 * 3];
	struct nprof_ntff_writer *w;
	uint64_t seq = 0;
	size_t k, i, words, half;

	w = nprof_ntff_writer_create(dir, name, 0);
	if (!w)
		return -errno;
	if (nprof_ntff_writer_set_block_size(w, NPROF_NTFF_BLOCK_SIZE_MIN) ||
	    nprof_ntff_writer_set_compression(w, zlevel))
		goto fail;
	for (k = 0; k < 3; k++) {
		words = recs[k].es / 8;
		for (i = 0; i < recs[k].n * words; i++)
			e[i] = i % words == 1 ? seq++ : i;
		q.queue_type = recs[k].qt;
		q.entry_size = recs[k].es;
		half = recs[k].n / 2 * recs[k].es;
		if (nprof_ntff_writer_append(w, &q, e, half, (char *)e + half,
					     (size_t)recs[k].n * recs[k].es - half) < 0)
			goto fail;
	}
	return nprof_ntff_writer_finalize(w);
fail:
	nprof_ntff_writer_abort(w);
	return -1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	if (write_file(argv[1], "empty.ntff", 0, 0, 0) || write_file(argv[1], "one.ntff", 1, 4, 0) ||
	    write_file(argv[1], "wrapped.ntff", 1, 8, 3) || write_file(argv[1], "all-types.ntff", 9, 2, 0) ||
	    write_blocks(argv[1], "blocks.ntff", 0) ||
	    write_blocks(argv[1], "blocks-zstd.ntff", 1)) {
		fprintf(stderr, "gen_ntff_corpus: %s\n", nprof_strerror_last());
		return 1;
	}
	return 0;
}
