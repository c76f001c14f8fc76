// SPDX-License-Identifier: MIT
/*
 * Writes the NTFF reader's seed corpus into the directory given: small valid
 * files made by the library's own writer, so the corpus always matches the
 * current format and no binary is committed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

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

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	if (write_file(argv[1], "empty.ntff", 0, 0, 0) || write_file(argv[1], "one.ntff", 1, 4, 0) ||
	    write_file(argv[1], "wrapped.ntff", 1, 8, 3) || write_file(argv[1], "all-types.ntff", 9, 2, 0)) {
		fprintf(stderr, "gen_ntff_corpus: %s\n", nprof_strerror_last());
		return 1;
	}
	return 0;
}
