// SPDX-License-Identifier: MIT
/*
 * pack_raw IN.ntff DIR NAME: write DIR/NAME, the recording IN (unpacked raw
 * entries, NTFF 2.x) as the packed raw records (NTFF 3.x, uapi
 * NEURONPROF_RAW_PACKED) the provider would have made of the same capture:
 * consecutive device entries of one queue record with the same capture
 * time and consecutive sequence numbers become one record (a header with
 * the first one's seq, index and time, then their bytes), each queue
 * record's lost and trimmed counts and ring flags as they were. tools/tests/raw_record.sh
 * checks that every reader prints of the packed file what it prints of the
 * unpacked one, part by part.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/neuronprof_drm.h>

#include "ntff_copy.h"

#define SLOT sizeof(struct neuronprof_notification)

/*
 * Pack the @n ring entries at @e (whole device entries of @parts parts
 * each) into @out; returns the ring entries written, or 0 when the entries
 * are not whole device entries.
 */
static size_t pack(const struct neuronprof_notification *e, size_t n, uint32_t parts,
		   struct neuronprof_notification *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		struct neuronprof_notification *h = &out[o];
		unsigned char *b = (unsigned char *)(h + 1);
		size_t k = 0;

		if (n - i < parts || NEURONPROF_RAW_PART(e[i].code) != 0)
			return 0;
		*h = (struct neuronprof_notification){
			.timestamp_ns = e[i].timestamp_ns, .seq = e[i].seq,
			.queue_type = e[i].queue_type, .engine = e[i].engine,
			.code = NEURONPROF_RAW_PACKED, .model_id = e[i].model_id,
			.iteration = e[i].iteration, .payload = { e[i].iteration },
		};
		/* One record: the same capture time, no gap in the seqs. */
		while (i + k < n && e[i + k].timestamp_ns == h->timestamp_ns &&
		       e[i + k].seq == h->seq + k) {
			memcpy(b + k * NEURONPROF_RAW_BYTES_PER_ENTRY, e[i + k].payload,
			       NEURONPROF_RAW_BYTES_PER_ENTRY);
			k++;
		}
		k -= k % parts;
		if (!k)
			return 0;
		memset(b + k * NEURONPROF_RAW_BYTES_PER_ENTRY, 0,
		       (NEURONPROF_RAW_PACKED_SLOTS(k * 32) - 1) * SLOT - k * 32);
		h->payload[1] = NEURONPROF_RAW_PACKED_INFO(k * NEURONPROF_RAW_BYTES_PER_ENTRY,
							  parts * NEURONPROF_RAW_BYTES_PER_ENTRY);
		o += NEURONPROF_RAW_PACKED_SLOTS(k * NEURONPROF_RAW_BYTES_PER_ENTRY);
		i += k;
	}
	return o;
}

int main(int argc, char **argv)
{
	struct nprof_ntff_info info;
	struct nprof_ntff_reader *r;
	struct nprof_ntff_writer *w;
	int nq, i;

	if (argc != 4) {
		fprintf(stderr, "Usage: pack_raw IN.ntff DIR NAME\n");
		return 2;
	}
	r = copy_open(argv[1], &info);
	if (info.device.raw_format == NEURONPROF_RAW_FORMAT_NONE || info.device.raw_packed) {
		fprintf(stderr, "pack_raw: %s is not a recording of unpacked raw entries\n", argv[1]);
		return 1;
	}
	info.device.raw_packed = 1;
	w = nprof_ntff_writer_create(argv[2], argv[3], 0);
	if (!w || nprof_ntff_writer_set_info(w, &info))
		copy_die("writer");
	nq = nprof_ntff_reader_queue_count(r);
	for (i = 0; i < nq; i++) {
		struct nprof_ntff_queue q;
		struct nprof_ntff_queue_desc d;
		struct neuronprof_notification *out;
		uint32_t parts;
		size_t n, o;

		copy_queue(r, i, &q, &d);
		n = q.entry_count;
		parts = n ? NEURONPROF_RAW_PARTS(((const struct neuronprof_notification *)
						  q.entries)->code) : 1;
		out = calloc(2 * n + 1, SLOT);
		if (!out)
			copy_die("calloc");
		o = n ? pack(q.entries, n, parts ? parts : 1, out) : 0;
		if (n && !o) {
			fprintf(stderr, "pack_raw: queue record %d is not whole device entries\n", i);
			return 1;
		}
		if (nprof_ntff_writer_append(w, &d, n ? out : NULL, n ? o * SLOT : 0, NULL, 0) < 0)
			copy_die("append");
		free(out);
	}
	if (nprof_ntff_writer_finalize(w))
		copy_die("finalize");
	nprof_ntff_reader_close(r);
	return 0;
}
