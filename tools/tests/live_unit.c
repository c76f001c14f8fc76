// SPDX-License-Identifier: MIT
/*
 * live_unit FILE.ntff: what top and exporter (neuronprof/live.c) count of
 * the entries of a recording, fed to live_fold_span() as a drain feeds it
 * the spans of a ring: each queue record's data as the ring held it (for a
 * packed raw recording, NTFF 3.x, the header entries and the device's
 * bytes after them, exactly as the provider wrote them to the ring). No
 * device is opened: the device is the file's (raw format, packed or not).
 *
 * Prints one JSON object per queue (target_kind, target_index, queue_type,
 * engine, "entries": what live counts delivered, "lost": the queue
 * records' lost counts, which is what the ring's lost counter said when
 * record drained it, "produced": the last sequence number + 1), then one
 * {"totals": ...} of the figures live folds per core: instructions, dma,
 * dma_bytes, inferences, errors. tests/t/top.sh compares them with
 * summary --json of the same file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/device.h>
#include <neuronprof/ntff.h>

#include "live.h"

struct qsum {
	struct live_queue *lq;
	uint64_t lost, produced;
};

static int fail_with(const char *what)
{
	fprintf(stderr, "live_unit: %s: %s\n", what, nprof_strerror_last());
	return 1;
}

int main(int argc, char **argv)
{
	struct nprof_ntff_info info = { .size = sizeof(info) };
	struct nprof_ntff_reader *r;
	struct live l;
	struct qsum *qs;
	uint32_t per;
	int nq;

	if (argc != 2) {
		fprintf(stderr, "usage: live_unit FILE.ntff\n");
		return 2;
	}
	r = nprof_ntff_reader_open(argv[1], NPROF_NTFF_READ_VERIFY_AT_OPEN);
	if (!r || nprof_ntff_reader_info(r, &info))
		return fail_with(argv[1]);
	nq = nprof_ntff_reader_queue_count(r);
	if (nq < 0)
		return fail_with("queue count");

	memset(&l, 0, sizeof(l));
	l.info.size = sizeof(l.info);
	l.info.num_cores = info.device.num_cores;
	l.info.num_topsps = info.device.num_topsps;
	l.info.engines_per_core = info.device.engines_per_core;
	l.info.entry_size = info.device.entry_size;
	l.info.raw_format = info.device.raw_format;
	l.info.raw_entry_size = info.device.raw_entry_size;
	if (info.device.raw_packed)
		l.info.caps |= NPROF_DEVICE_CAP_RAW_PACKED;
	else if (info.device.raw_format != NEURONPROF_RAW_FORMAT_NONE)
		l.info.caps |= NPROF_DEVICE_CAP_RAW;
	per = l.info.num_cores ? l.info.num_topsps / l.info.num_cores : 0;
	l.cores = calloc(l.info.num_cores ? l.info.num_cores : 1, sizeof(*l.cores));
	l.q = calloc(nq ? (size_t)nq : 1, sizeof(*l.q));
	qs = calloc(nq ? (size_t)nq : 1, sizeof(*qs));
	if (!l.cores || !l.q || !qs)
		return fail_with("out of memory");

	for (int i = 0; i < nq; i++) {
		struct nprof_ntff_queue q = { .size = sizeof(q) };
		struct live_queue *lq = NULL;
		size_t k;

		if (nprof_ntff_reader_queue(r, (size_t)i, &q))
			return fail_with("queue");
		/* A queue's records in order, as its ring gave them: one live queue. */
		for (k = 0; k < l.nq; k++)
			if (l.q[k].kind == q.target_kind && l.q[k].index == q.target_index &&
			    l.q[k].type == q.queue_type && l.q[k].engine == q.engine)
				break;
		lq = &l.q[k];
		if (k == l.nq) {
			l.nq++;
			*lq = (struct live_queue){
				.kind = q.target_kind, .index = q.target_index,
				.type = q.queue_type, .engine = q.engine,
				.core = q.target_kind == NPROF_TARGET_CORE ? q.target_index :
					per ? q.target_index / per : 0,
			};
			if (lq->core >= l.info.num_cores) {
				fprintf(stderr, "live_unit: record %d: core %u of %u\n", i, lq->core,
					l.info.num_cores);
				return 1;
			}
		}
		if (q.entries && q.data_length)
			live_fold_span(&l, lq, q.entries, (size_t)q.data_length);
		qs[k].lost += q.lost_count;
		if (q.entry_count && q.last_seq + 1 > qs[k].produced)
			qs[k].produced = q.last_seq + 1;
	}
	live_settle(&l);

	for (size_t k = 0; k < l.nq; k++)
		printf("{\"target_kind\":\"%s\",\"target_index\":%u,\"queue_type\":\"%s\","
		       "\"engine\":%u,\"entries\":%" PRIu64 ",\"lost\":%" PRIu64
		       ",\"produced\":%" PRIu64 "}\n",
		       l.q[k].kind == NPROF_TARGET_CORE ? "core" : "topsp", l.q[k].index,
		       nprof_queue_type_name(l.q[k].type), l.q[k].engine, l.q[k].entries,
		       qs[k].lost, qs[k].produced);
	{
		uint64_t instr = 0, dma = 0, dma_bytes = 0, execs = 0, errors = 0;

		for (uint32_t c = 0; c < l.info.num_cores; c++) {
			instr += l.cores[c].t_instr;
			dma += l.cores[c].t_dma;
			dma_bytes += l.cores[c].t_dma_bytes;
			execs += l.cores[c].t_execs;
			errors += l.cores[c].t_errors;
		}
		printf("{\"totals\":{\"instructions\":%" PRIu64 ",\"dma\":%" PRIu64
		       ",\"dma_bytes\":%" PRIu64 ",\"inferences\":%" PRIu64 ",\"errors\":%" PRIu64 "}}\n",
		       instr, dma, dma_bytes, execs, errors);
	}
	live_free(&l);
	free(qs);
	nprof_ntff_reader_close(r);
	return 0;
}
