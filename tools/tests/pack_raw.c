// SPDX-License-Identifier: MIT
/*
 * pack_raw IN.ntff DIR NAME: write DIR/NAME, the recording IN (unpacked raw
 * entries, NTFF 2.x) as the packed raw records (NTFF 3.x, uapi
 * NEURONPROF_RAW_PACKED) the provider would have made of the same capture:
 * consecutive device entries of one queue record with the same capture
 * time and consecutive sequence numbers become one record (a header with
 * the first one's seq, index and time, then their bytes), each queue
 * record's lost count and ring flags as they were. tools/tests/raw_record.sh
 * checks that every reader prints of the packed file what it prints of the
 * unpacked one, part by part.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/ntff.h>
#include <drm/neuronprof_drm.h>

#define SLOT sizeof(struct neuronprof_notification)

static int pack_fail(const char *what)
{
	fprintf(stderr, "pack_raw: %s: %s\n", what, strerror(errno));
	return 1;
}

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
	struct nprof_ntff_info info = { .size = sizeof(info) };
	struct nprof_ntff_reader *r;
	struct nprof_ntff_writer *w;
	int nq, i;

	if (argc != 4) {
		fprintf(stderr, "Usage: pack_raw IN.ntff DIR NAME\n");
		return 2;
	}
	r = nprof_ntff_reader_open(argv[1], NPROF_NTFF_READ_VERIFY_AT_OPEN);
	if (!r)
		return pack_fail(argv[1]);
	if (nprof_ntff_reader_info(r, &info))
		return pack_fail("info");
	if (info.device.raw_format == NEURONPROF_RAW_FORMAT_NONE || info.device.raw_packed) {
		fprintf(stderr, "pack_raw: %s is not a recording of unpacked raw entries\n", argv[1]);
		return 1;
	}
	info.device.raw_packed = 1;
	w = nprof_ntff_writer_create(argv[2], argv[3], 0);
	if (!w || nprof_ntff_writer_set_info(w, &info))
		return pack_fail("writer");
	nq = nprof_ntff_reader_queue_count(r);
	for (i = 0; i < nq; i++) {
		struct nprof_ntff_queue q = { .size = sizeof(q) };
		struct nprof_ntff_queue_desc d = { .size = sizeof(d) };
		struct neuronprof_notification *out;
		uint32_t parts;
		size_t n, o;

		if (nprof_ntff_reader_queue(r, (size_t)i, &q))
			return pack_fail("queue");
		n = q.entry_count;
		parts = n ? NEURONPROF_RAW_PARTS(((const struct neuronprof_notification *)
						  q.entries)->code) : 1;
		out = calloc(2 * n + 1, SLOT);
		if (!out)
			return pack_fail("calloc");
		o = n ? pack(q.entries, n, parts ? parts : 1, out) : 0;
		if (n && !o) {
			fprintf(stderr, "pack_raw: queue record %d is not whole device entries\n", i);
			return 1;
		}
		d.queue_type = q.queue_type;
		d.target_kind = q.target_kind;
		d.target_index = q.target_index;
		d.engine = q.engine;
		d.entry_size = q.entry_size;
		d.ring_flags = q.ring_flags;
		d.lost_count = q.lost_count;
		if (nprof_ntff_writer_append(w, &d, n ? out : NULL, n ? o * SLOT : 0, NULL, 0) < 0)
			return pack_fail("append");
		free(out);
	}
	if (nprof_ntff_writer_finalize(w))
		return pack_fail("finalize");
	nprof_ntff_reader_close(r);
	return 0;
}
