// SPDX-License-Identifier: MIT
/*
 * Host tests of the NTFF container: writer/reader round trips, drains
 * sharing a record, the queue type mapping, the writer's abort and errors.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>

#include "harness.h"
#include "special_files.h"
#include "util/internal.h"
#include "ntff/ntff_internal.h"
#include "ntff_test_util.h"

/*
 * Queue record @i of @r into @q: of queue type @qt, which the file maps to
 * trace type @tt and block type @bt.
 */
static void check_queue_kind(struct nprof_ntff_reader *r, size_t i, struct nprof_ntff_queue *q,
			     uint32_t qt, uint32_t tt, uint32_t bt)
{
	CHECK_INT(nprof_ntff_reader_queue(r, i, q), 0);
	CHECK_INT(q->queue_type, qt);
	CHECK_INT(q->trace_type, tt);
	CHECK_INT(q->block_type, bt);
}

/* @q holds @count entries, seq @first to @last, from data offset @off. */
static void check_queue_span(const struct nprof_ntff_queue *q, uint64_t count, uint64_t first,
			     uint64_t last, uint64_t off)
{
	CHECK_INT(q->entry_count, count);
	CHECK_INT(q->first_seq, first);
	CHECK_INT(q->last_seq, last);
	CHECK_INT(q->data_offset, off);
}

TEST(ntff_round_trip)
{
	char path[PATH_MAX];
	struct nprof_ntff_reader *r;
	struct nprof_ntff_info info = { .size = sizeof(info) };
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	const struct nprof_ntff_header *h;
	struct nprof_ntff_entry_iter it;
	const struct neuronprof_notification *e;
	uint64_t want;
	struct stat st;
	int n;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	CHECK_INT(ntff_test_write_sample(dir, "profile.ntff", path, sizeof(path)), 0);
	/* Only the final file: the temporary one was renamed. */
	CHECK_INT(dir_entries(dir), 1);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == (0644 & ~(mode_t)umask(022)));

	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (!r) {
		printf("# %s\n", nprof_strerror_last());
		rm_rf(dir);
		return;
	}
	h = nprof_ntff_reader_header(r);
	CHECK_INT(h->version_major, 1);
	CHECK_INT(h->version_minor, 4);
	CHECK_INT(h->header_size, 128);
	CHECK_INT(h->data_offset, 128);
	CHECK_INT(h->data_length, 54 * ENTRY);
	/* One partial block: its checksum is the table's only entry. */
	CHECK_INT(h->block_size, NPROF_NTFF_BLOCK_SIZE_DEFAULT);
	CHECK_INT(h->block_table_offset, 128 + 54 * ENTRY);
	CHECK_INT(h->block_table_length, 4);
	CHECK_INT(h->metadata_offset, 128 + 54 * ENTRY + 4);
	CHECK_INT(h->producer_version, nprof_version());
	CHECK(h->creation_time_ns > 1600000000ULL * 1000000000ULL);

	CHECK_INT(nprof_ntff_reader_info(r, &info), 0);
	CHECK_INT(info.pid, 4242);
	CHECK_INT(info.core, 1);
	CHECK_INT(info.capture_kind, NPROF_NTFF_CAPTURE_MODEL);
	CHECK_INT(info.clock_id, 1);
	CHECK_INT(info.session_id, 3);
	CHECK_INT(info.model_id, 77);
	CHECK_STR(info.model_name, "resnet50");
	CHECK_STR(info.instance_id, "i-0123456789abcdef0");
	CHECK_STR(info.hostname, "trn1-host");
	CHECK_INT(info.start_ns, 1000);
	CHECK_INT(info.stop_ns, 99999);
	CHECK_INT(info.device.arch, NEURONPROF_ARCH_TRN1);
	CHECK_INT(info.device.num_topsps, 6);
	CHECK_INT(info.device.engines_per_core, 4);
	CHECK_INT(info.device.entry_size, 64);
	CHECK_STR(info.device.provider, "sim");

	n = nprof_ntff_reader_queue_count(r);
	CHECK_INT(n, 3);

	check_queue_kind(r, 0, &q, NEURONPROF_QT_TRACE, NPROF_NTFF_TRACE_INSTRUCTION,
			 NPROF_NTFF_BLOCK_ENGINE);
	CHECK_INT(q.target_index, 1);
	CHECK_INT(q.engine, 2);
	check_queue_span(&q, 44, 1000, 1043, 0);
	CHECK_INT(q.data_length, 44 * ENTRY);
	/* Entries come back in ring order across the wrap, one by one. */
	want = 1000;
	nprof_ntff_entry_iter_init(&it, &q);
	while ((e = nprof_ntff_entry_iter_next(&it))) {
		if (e->seq != want || e->queue_type != NEURONPROF_QT_TRACE || e->model_id != 77)
			FAIL("entry seq %llu, expected %llu", (unsigned long long)e->seq,
			     (unsigned long long)want);
		want++;
	}
	CHECK_INT(want, 1044);

	check_queue_kind(r, 1, &q, NEURONPROF_QT_ERROR, NPROF_NTFF_TRACE_ERROR, NPROF_NTFF_BLOCK_CORE);
	CHECK_INT(q.entry_count, 0);
	CHECK_INT(q.lost_count, 5);
	CHECK_INT(q.ring_flags, NEURONPROF_RING_OVERFLOWED);
	nprof_ntff_entry_iter_init(&it, &q);
	CHECK(nprof_ntff_entry_iter_next(&it) == NULL);

	check_queue_kind(r, 2, &q, NEURONPROF_QT_TOPSP_EVENT, NPROF_NTFF_TRACE_EVENT,
			 NPROF_NTFF_BLOCK_TOPSP);
	CHECK_INT(q.target_kind, NEURONPROF_TARGET_TOPSP);
	CHECK_INT(q.target_index, 3);
	check_queue_span(&q, 10, 500, 509, 44 * ENTRY);
	CHECK(((const struct neuronprof_notification *)q.entries)[9].payload[3] == ~(uint64_t)9);
	CHECK(((uintptr_t)q.entries & 7) == 0);

	CHECK_ERR_MSG(nprof_ntff_reader_queue(r, 3, &q), ERANGE,
		      "queue record 3 does not exist (the file has 3)");
	q.size = 8;
	CHECK_INT(nprof_ntff_reader_queue(r, 0, &q), -EINVAL);
	nprof_ntff_reader_close(r);
	rm_rf(dir);
}

TEST(ntff_consecutive_drains_share_a_record)
{
	struct neuronprof_notification *ring = make_ring(8, NEURONPROF_QT_DMA, 0);
	struct nprof_ntff_queue_desc q = { .size = sizeof(q), .queue_type = NEURONPROF_QT_DMA,
					    .entry_size = ENTRY };
	struct nprof_ntff_queue rq = { .size = sizeof(rq) };
	struct nprof_ntff_entry_iter it;
	const struct neuronprof_notification *e;
	struct nprof_ntff_reader *r;
	struct nprof_ntff_writer *w;
	char path[PATH_MAX];
	uint64_t want = 0;
	int k;

	w = fresh_writer("m.ntff");
	if (!w)
		return;
	/* Three drains of one queue: seq 0..7, 8..15, 16..23; one record. */
	for (k = 0; k < 3; k++) {
		int i;

		for (i = 0; i < 8; i++)
			ring[(i + 5) % 8].seq = (uint64_t)(8 * k + i);
		q.lost_count = (uint64_t)k;
		q.ring_flags = k == 1 ? NEURONPROF_RING_OVERFLOWED : 0;
		CHECK_INT(nprof_ntff_writer_append(w, &q, &ring[5], 3 * ENTRY, ring, 5 * ENTRY), 0);
	}
	/* An empty drain of the same queue still extends it. */
	q.lost_count = 9;
	CHECK_INT(nprof_ntff_writer_append(w, &q, NULL, 0, NULL, 0), 0);
	/* Another engine starts a record; going back starts another one. */
	q.engine = 1;
	CHECK_INT(nprof_ntff_writer_append(w, &q, ring, ENTRY, NULL, 0), 1);
	q.engine = 0;
	CHECK_INT(nprof_ntff_writer_append(w, &q, ring, ENTRY, NULL, 0), 2);
	/* A seq that does not move forward cannot extend a record. */
	CHECK_INT(nprof_ntff_writer_append(w, &q, ring, ENTRY, NULL, 0), 3);
	CHECK_INT(nprof_ntff_writer_finalize(w), 0);

	snprintf(path, sizeof(path), "%s/m.ntff", dir);
	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(nprof_ntff_reader_queue_count(r), 4);
		CHECK_INT(nprof_ntff_reader_queue(r, 0, &rq), 0);
		CHECK_INT(rq.entry_count, 24);
		CHECK_INT(rq.first_seq, 0);
		CHECK_INT(rq.last_seq, 23);
		CHECK_INT(rq.lost_count, 0 + 1 + 2 + 9);
		CHECK_INT(rq.ring_flags, NEURONPROF_RING_OVERFLOWED);
		nprof_ntff_entry_iter_init(&it, &rq);
		while ((e = nprof_ntff_entry_iter_next(&it)))
			if (e->seq != want++)
				FAIL("entry %llu has seq %llu", (unsigned long long)want - 1,
				     (unsigned long long)e->seq);
		CHECK_INT(want, 24);
		CHECK_INT(nprof_ntff_reader_queue(r, 1, &rq), 0);
		CHECK_INT(rq.engine, 1);
		CHECK_INT(rq.data_offset, 24 * ENTRY);
	}
	nprof_ntff_reader_close(r);
	free(ring);
	rm_rf(dir);
}

TEST(ntff_type_mapping)
{
	static const uint32_t want[NEURONPROF_QT_COUNT][2] = {
		[NEURONPROF_QT_TRACE] = { NPROF_NTFF_TRACE_INSTRUCTION, NPROF_NTFF_BLOCK_ENGINE },
		[NEURONPROF_QT_EVENT] = { NPROF_NTFF_TRACE_EVENT, NPROF_NTFF_BLOCK_ENGINE },
		[NEURONPROF_QT_ERROR] = { NPROF_NTFF_TRACE_ERROR, NPROF_NTFF_BLOCK_CORE },
		[NEURONPROF_QT_INFER_STATUS] = { NPROF_NTFF_TRACE_INFER_STATUS, NPROF_NTFF_BLOCK_CORE },
		[NEURONPROF_QT_DMA] = { NPROF_NTFF_TRACE_DMA, NPROF_NTFF_BLOCK_ENGINE },
		[NEURONPROF_QT_THROTTLE] = { NPROF_NTFF_TRACE_THROTTLE, NPROF_NTFF_BLOCK_CORE },
		[NEURONPROF_QT_TOPSP_TRACE] = { NPROF_NTFF_TRACE_INSTRUCTION, NPROF_NTFF_BLOCK_TOPSP },
		[NEURONPROF_QT_TOPSP_EVENT] = { NPROF_NTFF_TRACE_EVENT, NPROF_NTFF_BLOCK_TOPSP },
		[NEURONPROF_QT_TOPSP_ERROR] = { NPROF_NTFF_TRACE_ERROR, NPROF_NTFF_BLOCK_TOPSP },
	};
	uint32_t qt, tt, bt;

	for (qt = 0; qt < NEURONPROF_QT_COUNT; qt++) {
		CHECK_INT(nprof_ntff_map_queue_type(qt, &tt, &bt), 0);
		CHECK_INT(tt, want[qt][0]);
		CHECK_INT(bt, want[qt][1]);
		CHECK_INT(nprof_queue_type_from_name(nprof_queue_type_name(qt)), qt);
	}
	CHECK_ERR_MSG(nprof_ntff_map_queue_type(NEURONPROF_QT_COUNT, &tt, &bt), EINVAL,
		      "unknown queue type 9");
	CHECK_STR(nprof_queue_type_name(NEURONPROF_QT_INFER_STATUS), "INFER_STATUS");
	CHECK_STR(nprof_ntff_trace_type_name(NPROF_NTFF_TRACE_INFER_STATUS), "infer_status");
	CHECK_STR(nprof_ntff_block_type_name(NPROF_NTFF_BLOCK_TOPSP), "topsp");
	CHECK(!nprof_ntff_trace_type_name(6) && errno == EINVAL);
	CHECK(!nprof_ntff_block_type_name(3));
	CHECK_INT(nprof_queue_type_from_name("trace"), -EINVAL);
}

TEST(ntff_writer_abort_and_errors)
{
	struct nprof_ntff_queue_desc q = { .size = sizeof(q), .queue_type = 0, .entry_size = 64 };
	struct nprof_ntff_writer *w;
	struct neuronprof_notification *ring = make_ring(4, 0, 0);
	char path[PATH_MAX];
	int fd;

	w = fresh_writer("a.ntff");
	if (!w)
		return;
	CHECK_INT(nprof_ntff_writer_append(w, &q, ring, 4 * ENTRY, NULL, 0), 0);
	/* The temporary file exists, hidden, and the final name does not. */
	CHECK_INT(dir_entries(dir), 1);
	snprintf(path, sizeof(path), "%s/a.ntff", dir);
	CHECK(access(path, F_OK) != 0);
	CHECK_ERR_MSG(nprof_ntff_writer_append(w, &q, ring, 100, NULL, 0), EINVAL,
		      "span lengths 100 and 0 are not multiples of entry size 64");
	q.queue_type = 9;
	CHECK_ERR_MSG(nprof_ntff_writer_append(w, &q, ring, 64, NULL, 0), EINVAL,
		      "cannot append queue type 9: not a known queue type");
	q.queue_type = 0;
	q.entry_size = 12;
	CHECK_ERR_MSG(nprof_ntff_writer_append(w, &q, ring, 48, NULL, 0), EINVAL,
		      "entry size 12 is not a multiple of 8 in [16, 262144]");
	q.entry_size = 64;
	q.size = 4;
	CHECK_INT(nprof_ntff_writer_append(w, &q, ring, 64, NULL, 0), -EINVAL);
	nprof_ntff_writer_abort(w);
	CHECK_INT(dir_entries(dir), 0);

	/* Bad names never create anything. */
	CHECK(!nprof_ntff_writer_create(dir, "a/b", 0) && errno == EINVAL);
	CHECK_STR(nprof_strerror_last(), "NTFF file name 'a/b' is not a plain file name");
	CHECK(!nprof_ntff_writer_create(dir, "..", 0) && errno == EINVAL);
	CHECK(!nprof_ntff_writer_create(dir, "", 0) && errno == EINVAL);
	CHECK(!nprof_ntff_writer_create(dir, "x", 0x80) && errno == EINVAL);
	CHECK(!nprof_ntff_writer_create("/nonexistent/dir", "x", 0) && errno == ENOENT);
	CHECK_STR(nprof_strerror_last(), "cannot open directory /nonexistent/dir: No such file or directory");

	/* NOREPLACE keeps an existing file and leaves no temporary behind. */
	CHECK(!write_whole(path, "keep", 4));
	w = nprof_ntff_writer_create(dir, "a.ntff", NPROF_NTFF_WRITE_NOREPLACE);
	CHECK(w != NULL);
	CHECK_INT(nprof_ntff_writer_finalize(w), -EEXIST);
	/* The message names the file asked for, not the writer's temporary one. */
	CHECK_STR(nprof_strerror_last(), "cannot put a.ntff in place: File exists");
	CHECK_INT(dir_entries(dir), 1);
	{
		size_t len;
		char *b = ntff_test_read_whole(path, &len);

		CHECK(b && len == 4 && !memcmp(b, "keep", 4));
		free(b);
	}
	/* Without NOREPLACE the existing file is replaced atomically. */
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	w = nprof_ntff_writer_createat(fd, "a.ntff", 0);
	close(fd);
	CHECK(w != NULL);
	CHECK_INT(nprof_ntff_writer_finalize(w), 0);
	{
		struct nprof_ntff_reader *r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);

		CHECK(r != NULL);
		if (r)
			CHECK_INT(nprof_ntff_reader_queue_count(r), 0);
		nprof_ntff_reader_close(r);
	}
	CHECK_INT(dir_entries(dir), 1);
	free(ring);
	rm_rf(dir);
}

HARNESS_MAIN
