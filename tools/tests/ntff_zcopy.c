// SPDX-License-Identifier: MIT
/*
 * ntff_zcopy IN.ntff DIR NAME LEVEL: write DIR/NAME, the recording IN
 * written again by the library's writer with its data blocks compressed at
 * zstd LEVEL (0: not compressed): the same description, the same queue records appended in order,
 * each with its lost count, ring flags and trimmed count. The records and
 * the metadata must come out as they were (checked: the copy's metadata
 * bytes are IN's), so every reader that reads both must print the same of
 * them (tools/tests/t/zstd.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntff_copy.h"

int main(int argc, char **argv)
{
	struct nprof_ntff_info info;
	struct nprof_ntff_reader *r, *c;
	struct nprof_ntff_writer *w;
	const void *m0, *m1;
	size_t l0, l1;
	char path[4096];
	int nq, i;

	if (argc != 5) {
		fprintf(stderr, "Usage: ntff_zcopy IN.ntff DIR NAME LEVEL\n");
		return 2;
	}
	r = copy_open(argv[1], &info);
	w = nprof_ntff_writer_create(argv[2], argv[3], 0);
	if (!w || nprof_ntff_writer_set_compression(w, atoi(argv[4])) ||
	    nprof_ntff_writer_set_info(w, &info))
		copy_die("writer");
	nq = nprof_ntff_reader_queue_count(r);
	for (i = 0; i < nq; i++) {
		struct nprof_ntff_queue q;
		struct nprof_ntff_queue_desc d;
		int at;

		copy_queue(r, i, &q, &d);
		at = nprof_ntff_writer_append(w, &d, q.data_length ? q.entries : NULL,
					      q.data_length, NULL, 0);
		if (at < 0)
			copy_die("append");
		if (at != i) {
			fprintf(stderr, "ntff_zcopy: queue record %d of %s went to record %d\n", i,
				argv[1], at);
			return 1;
		}
	}
	if (nprof_ntff_writer_finalize(w))
		copy_die("finalize");
	snprintf(path, sizeof(path), "%s/%s", argv[2], argv[3]);
	c = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	if (!c)
		copy_die(path);
	m0 = nprof_ntff_reader_metadata(r, &l0);
	m1 = nprof_ntff_reader_metadata(c, &l1);
	if (l0 != l1 || memcmp(m0, m1, l0)) {
		fprintf(stderr, "ntff_zcopy: %s does not describe what %s does\n", path, argv[1]);
		return 1;
	}
	nprof_ntff_reader_close(c);
	nprof_ntff_reader_close(r);
	return 0;
}
