// SPDX-License-Identifier: MIT
/*
 * Host tests of the NTFF container: CRC32C, writer/reader round trips with
 * wrapped spans and many data blocks, atomic appearance, rejection of
 * damaged files at open (and, in the one-pass mode, at the chunk holding the
 * damage), and decoding of the metadata by an independent protobuf
 * implementation (protoc).
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

#define ENTRY sizeof(struct neuronprof_notification)

static char dir[128];

static const char *fresh_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/nprof-test-ntff-XXXXXX");
	return mkdtemp(dir);
}

static void *read_whole(const char *path, size_t *len)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf && read(fd, buf, (size_t)st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

static int write_whole(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, buf, len) == (ssize_t)len;
	close(fd);
	return ok ? 0 : -1;
}

/* ---- CRC32C --------------------------------------------------------------- */

TEST(crc32c_vectors_and_paths)
{
	static unsigned char buf[100003];
	uint32_t whole, part;
	size_t i, len, off, split;

	CHECK(nprof_crc32c_update(0, "123456789", 9) == 0xe3069283u);
	CHECK(nprof_crc32c_update_sw(0, "123456789", 9) == 0xe3069283u);
	CHECK(nprof_crc32c_update(0, "", 0) == 0);
	srand(7);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rand();
	/* Folding, three streams (both block sizes) and tables all agree. */
	for (i = 0; i < 400; i++) {
		off = (size_t)rand() % 16;
		len = (size_t)rand() % (sizeof(buf) - off);
		if (i == 0)
			len = sizeof(buf) - off;
		else if (i < 200)
			len = (size_t)rand() % 1024;	/* around the folding threshold */
		whole = nprof_crc32c_update(0, buf + off, len);
		if (whole != nprof_crc32c_update_sw(0, buf + off, len) ||
		    whole != nprof_crc32c_update_crc32_insn(0, buf + off, len))
			FAIL("crc mismatch at off %zu len %zu", off, len);
		split = len ? (size_t)rand() % len : 0;
		part = nprof_crc32c_update(0, buf + off, split);
		part = nprof_crc32c_update(part, buf + off + split, len - split);
		if (part != whole)
			FAIL("incremental crc differs at split %zu of %zu", split, len);
	}
	printf("# crc32c hardware path: %s\n", nprof_crc32c_hw_available() ? "yes" : "no");
}

/* ---- round trip ----------------------------------------------------------- */

/* A ring of @n entries with seq = base + i, as the device would write them. */
static struct neuronprof_notification *make_ring(size_t n, uint16_t qt, uint64_t base)
{
	struct neuronprof_notification *r = calloc(n, ENTRY);
	size_t i;

	for (i = 0; r && i < n; i++) {
		r[i].timestamp_ns = 1000 + 10 * (base + i);
		r[i].seq = base + i;
		r[i].queue_type = qt;
		r[i].engine = 2;
		r[i].code = (uint32_t)(0xc0de0000u + i);
		r[i].model_id = 77;
		r[i].payload[3] = ~(uint64_t)i;
	}
	return r;
}

static const struct nprof_ntff_info sample_info = {
	.size = sizeof(struct nprof_ntff_info),
	.pid = 4242,
	.core = 1,
	.capture_kind = NPROF_NTFF_CAPTURE_MODEL,
	.clock_id = 1,
	.session_id = 3,
	.model_id = 77,
	.model_name = "resnet50",
	.instance_id = "i-0123456789abcdef0",
	.hostname = "trn1-host",
	.start_ns = 1000,
	.stop_ns = 99999,
	.device = {
		.arch = NEURONPROF_ARCH_TRN1,
		.uapi_version = NEURONPROF_UAPI_VERSION,
		.num_cores = 2,
		.num_topsps = 6,
		.engines_per_core = 4,
		.entry_size = 64,
		.device_index = 0,
		.provider = "sim",
	},
};

/*
 * Write a file with: a TRACE queue whose ring wrapped (entries 40..63 then
 * 0..19 of the ring, seq 1000..1043), an empty ERROR queue with 5 lost, and
 * a TOPSP_EVENT queue in one span. Returns the path in @path.
 */
static int write_sample(const char *d, const char *name, char *path, size_t plen)
{
	struct neuronprof_notification *ring, *ev;
	struct nprof_ntff_queue_desc q = { .size = sizeof(q) };
	struct nprof_ntff_writer *w;
	size_t i;
	int ret;

	ring = make_ring(64, NEURONPROF_QT_TRACE, 0);
	ev = make_ring(10, NEURONPROF_QT_TOPSP_EVENT, 500);
	/* Ring positions 40..63 hold seq 1000..1023, 0..19 hold 1024..1043. */
	for (i = 0; i < 64; i++)
		ring[i].seq = i >= 40 ? 1000 + (i - 40) : 1024 + i;
	w = nprof_ntff_writer_create(d, name, 0);
	if (!w)
		return -errno;
	CHECK_INT(nprof_ntff_writer_set_info(w, &sample_info), 0);
	q.queue_type = NEURONPROF_QT_TRACE;
	q.target_kind = NEURONPROF_TARGET_CORE;
	q.target_index = 1;
	q.engine = 2;
	q.entry_size = ENTRY;
	q.lost_count = 0;
	CHECK_INT(nprof_ntff_writer_append(w, &q, &ring[40], 24 * ENTRY, &ring[0], 20 * ENTRY), 0);
	q.queue_type = NEURONPROF_QT_ERROR;
	q.engine = 0;
	q.lost_count = 5;
	q.ring_flags = NEURONPROF_RING_OVERFLOWED;
	CHECK_INT(nprof_ntff_writer_append(w, &q, NULL, 0, NULL, 0), 1);
	q.queue_type = NEURONPROF_QT_TOPSP_EVENT;
	q.target_kind = NEURONPROF_TARGET_TOPSP;
	q.target_index = 3;
	q.lost_count = 0;
	q.ring_flags = 0;
	CHECK_INT(nprof_ntff_writer_append(w, &q, NULL, 0, ev, 10 * ENTRY), 2);
	/* Nothing under the final name before finalize. */
	snprintf(path, plen, "%s/%s", d, name);
	CHECK(access(path, F_OK) && errno == ENOENT);
	ret = nprof_ntff_writer_finalize(w);
	free(ring);
	free(ev);
	return ret;
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
	CHECK_INT(write_sample(dir, "profile.ntff", path, sizeof(path)), 0);
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

	CHECK_INT(nprof_ntff_reader_queue(r, 0, &q), 0);
	CHECK_INT(q.queue_type, NEURONPROF_QT_TRACE);
	CHECK_INT(q.trace_type, NPROF_NTFF_TRACE_INSTRUCTION);
	CHECK_INT(q.block_type, NPROF_NTFF_BLOCK_ENGINE);
	CHECK_INT(q.target_index, 1);
	CHECK_INT(q.engine, 2);
	CHECK_INT(q.entry_count, 44);
	CHECK_INT(q.first_seq, 1000);
	CHECK_INT(q.last_seq, 1043);
	CHECK_INT(q.data_offset, 0);
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

	CHECK_INT(nprof_ntff_reader_queue(r, 1, &q), 0);
	CHECK_INT(q.queue_type, NEURONPROF_QT_ERROR);
	CHECK_INT(q.trace_type, NPROF_NTFF_TRACE_ERROR);
	CHECK_INT(q.block_type, NPROF_NTFF_BLOCK_CORE);
	CHECK_INT(q.entry_count, 0);
	CHECK_INT(q.lost_count, 5);
	CHECK_INT(q.ring_flags, NEURONPROF_RING_OVERFLOWED);
	nprof_ntff_entry_iter_init(&it, &q);
	CHECK(nprof_ntff_entry_iter_next(&it) == NULL);

	CHECK_INT(nprof_ntff_reader_queue(r, 2, &q), 0);
	CHECK_INT(q.queue_type, NEURONPROF_QT_TOPSP_EVENT);
	CHECK_INT(q.trace_type, NPROF_NTFF_TRACE_EVENT);
	CHECK_INT(q.block_type, NPROF_NTFF_BLOCK_TOPSP);
	CHECK_INT(q.target_kind, NEURONPROF_TARGET_TOPSP);
	CHECK_INT(q.target_index, 3);
	CHECK_INT(q.entry_count, 10);
	CHECK_INT(q.first_seq, 500);
	CHECK_INT(q.last_seq, 509);
	CHECK_INT(q.data_offset, 44 * ENTRY);
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

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	w = nprof_ntff_writer_create(dir, "m.ntff", 0);
	CHECK(w != NULL);
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

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	w = nprof_ntff_writer_create(dir, "a.ntff", 0);
	CHECK(w != NULL);
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
		char *b = read_whole(path, &len);

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

/* ---- targets that are not regular files ----------------------------------- */

/* A one-queue file finalized as @name in dir; the return of finalize. */
static int write_small(const char *name, unsigned int flags)
{
	struct nprof_ntff_queue_desc q = { .size = sizeof(q), .entry_size = ENTRY };
	struct neuronprof_notification *ring = make_ring(8, NEURONPROF_QT_TRACE, 0);
	struct nprof_ntff_writer *w = nprof_ntff_writer_create(dir, name, flags);
	int ret;

	if (!w || !ring) {
		free(ring);
		nprof_ntff_writer_abort(w);
		return -ENOMEM;
	}
	CHECK_INT(nprof_ntff_writer_set_info(w, &sample_info), 0);
	CHECK_INT(nprof_ntff_writer_append(w, &q, ring, 8 * ENTRY, NULL, 0), 0);
	ret = nprof_ntff_writer_finalize(w);
	free(ring);
	return ret;
}

/* @path reads back as the file write_small() writes: one queue of 8 entries. */
static void check_small(const char *path)
{
	struct nprof_ntff_reader *r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	struct nprof_ntff_queue q = { .size = sizeof(q) };

	CHECK(r != NULL);
	if (!r) {
		printf("#   %s: %s\n", path, nprof_strerror_last());
		return;
	}
	CHECK_INT(nprof_ntff_reader_queue_count(r), 1);
	CHECK_INT(nprof_ntff_reader_queue(r, 0, &q), 0);
	CHECK_INT(q.entry_count, 8);
	nprof_ntff_reader_close(r);
}

/* A FIFO gets the whole file through it, in place, and stays a FIFO. */
TEST(ntff_writer_into_a_fifo)
{
	char fifo[PATH_MAX], got[PATH_MAX];
	pid_t reader;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	snprintf(fifo, sizeof(fifo), "%s/a.ntff", dir);
	snprintf(got, sizeof(got), "%s.read", dir);
	reader = fifo_reader_start(fifo, got);
	CHECK(reader > 0);
	CHECK_INT(write_small("a.ntff", 0), 0);
	CHECK_INT(fifo_reader_finish(reader, false), 0);
	CHECK(is_fifo(fifo));
	CHECK_INT(dir_entries(dir), 1);		/* no temporary left */
	check_small(got);
	/* NOREPLACE: the FIFO is a name that exists. */
	CHECK_INT(write_small("a.ntff", NPROF_NTFF_WRITE_NOREPLACE), -EEXIST);
	CHECK(is_fifo(fifo));
	CHECK_INT(dir_entries(dir), 1);
	unlink(got);
	rm_rf(dir);
}

/* A character device is written into, never renamed over nor unlinked. */
TEST(ntff_writer_into_a_character_device)
{
	char node[PATH_MAX];
	const char *why;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	snprintf(node, sizeof(node), "%s/a.ntff", dir);
	why = make_null_node(node);
	if (why) {
		rm_rf(dir);
		SKIP(why);
	}
	CHECK_INT(write_small("a.ntff", 0), 0);
	CHECK(is_null_node(node));
	CHECK_INT(dir_entries(dir), 1);
	rm_rf(dir);
}

/*
 * A symbolic link is followed: the file it names is created (a dangling
 * link), then replaced by a rename in its own directory; the link stays.
 * A link to a directory is refused before anything is renamed.
 */
TEST(ntff_writer_through_a_symlink)
{
	char link[PATH_MAX], sub[PATH_MAX], target[PATH_MAX];

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(link, sizeof(link), "%s/a.ntff", dir);
	snprintf(target, sizeof(target), "%s/sub/real.ntff", dir);
	CHECK_INT(mkdir(sub, 0755), 0);
	CHECK_INT(symlink("sub/real.ntff", link), 0);
	CHECK_INT(write_small("a.ntff", 0), 0);
	CHECK(is_symlink(link));
	check_small(target);
	CHECK_INT(dir_entries(dir), 2);		/* the link and sub/, no temporary */
	CHECK_INT(dir_entries(sub), 1);
	/* Again, over the regular file the link now names. */
	CHECK_INT(write_small("a.ntff", 0), 0);
	CHECK(is_symlink(link));
	check_small(target);
	CHECK_INT(dir_entries(dir), 2);
	CHECK_INT(dir_entries(sub), 1);
	/* A link to a link to a directory: refused, nothing renamed, nothing left. */
	snprintf(link, sizeof(link), "%s/dirlink", dir);
	CHECK_INT(symlink("sub", link), 0);
	snprintf(link, sizeof(link), "%s/d.ntff", dir);
	CHECK_INT(symlink("dirlink", link), 0);
	CHECK_ERR_MSG(write_small("d.ntff", 0), EISDIR, "cannot write d.ntff: it is a directory");
	CHECK(is_symlink(link));
	CHECK_INT(dir_entries(dir), 4);
	CHECK_INT(dir_entries(sub), 1);
	/* Another user's link (made so by root) is not followed. */
	if (!geteuid()) {
		snprintf(link, sizeof(link), "%s/o.ntff", dir);
		CHECK_INT(symlink("sub/o.ntff", link), 0);
		CHECK_INT(lchown(link, 65534, 65534), 0);
		CHECK_ERR_MSG(write_small("o.ntff", 0), EPERM,
			      "cannot write o.ntff: the symbolic link o.ntff belongs to uid 65534, neither this user nor root");
		CHECK(is_symlink(link));
		CHECK_INT(dir_entries(dir), 5);
		CHECK_INT(dir_entries(sub), 1);
	} else {
		printf("# not root: another user's link is not made\n");
	}
	rm_rf(dir);
}

/*
 * A link to a file on another file system (/dev/shm, a tmpfs): the file is
 * copied into a temporary beside the target and renamed there; nothing is
 * left in either directory but the link and the file.
 */
TEST(ntff_writer_through_a_symlink_to_another_file_system)
{
	char other[] = "/dev/shm/nprof-test-ntff-XXXXXX", link[PATH_MAX], target[PATH_MAX];
	struct stat a, b;

	if (!mkdtemp(other))
		SKIP("no /dev/shm to link to");
	if (!fresh_dir()) {
		rm_rf(other);
		FAIL("mkdtemp");
		return;
	}
	if (stat(other, &a) || stat(dir, &b) || a.st_dev == b.st_dev) {
		rm_rf(other);
		rm_rf(dir);
		SKIP("/dev/shm and /tmp are one file system");
	}
	snprintf(link, sizeof(link), "%s/a.ntff", dir);
	snprintf(target, sizeof(target), "%s/real.ntff", other);
	CHECK_INT(symlink(target, link), 0);
	CHECK_INT(write_small("a.ntff", 0), 0);
	CHECK(is_symlink(link));
	check_small(target);
	CHECK_INT(dir_entries(dir), 1);
	CHECK_INT(dir_entries(other), 1);
	rm_rf(other);
	rm_rf(dir);
}

/* ---- rejection ------------------------------------------------------------ */

struct sample {
	unsigned char *buf;
	size_t len;
};

static int load_sample(struct sample *s)
{
	char path[PATH_MAX];

	if (!fresh_dir())
		return -1;
	if (write_sample(dir, "s.ntff", path, sizeof(path)))
		return -1;
	s->buf = read_whole(path, &s->len);
	rm_rf(dir);
	return s->buf ? 0 : -1;
}

/* Re-seal the header checksum after editing header fields. */
static void reseal(unsigned char *buf)
{
	uint32_t c = htole32(nprof_crc32c_update(0, buf, NTFF_HEADER_CSUM_SPAN));

	memcpy(buf + offsetof(struct nprof_ntff_header, header_csum), &c, 4);
}

static void put64(unsigned char *buf, size_t off, uint64_t v)
{
	v = htole64(v);
	memcpy(buf + off, &v, 8);
}

static void put16(unsigned char *buf, size_t off, uint16_t v)
{
	v = htole16(v);
	memcpy(buf + off, &v, 2);
}

/*
 * Open a copy of @len bytes of @buf with @flags; expect failure with @err
 * and @msg in the message.
 */
static void expect_reject_flags(const unsigned char *buf, size_t len, unsigned int flags, int err,
				const char *msg)
{
	unsigned char *copy = malloc(len ? len : 1);
	struct nprof_ntff_reader *r;

	memcpy(copy, buf, len);
	r = nprof_ntff_reader_open_mem(copy, len, flags);
	if (r) {
		FAIL("accepted a file that should fail with \"%s\"", msg);
		nprof_ntff_reader_close(r);
	} else {
		if (errno != err)
			FAIL("errno %d, expected %d (%s)", errno, err, nprof_strerror_last());
		if (!strstr(nprof_strerror_last(), msg))
			FAIL("message \"%s\" lacks \"%s\"", nprof_strerror_last(), msg);
	}
	free(copy);
}

static void expect_reject(const unsigned char *buf, size_t len, int err, const char *msg)
{
	expect_reject_flags(buf, len, NPROF_NTFF_READ_VERIFY_AT_OPEN, err, msg);
}

TEST(ntff_rejects_damaged_files)
{
	struct sample s;
	struct nprof_ntff_header h;
	unsigned char *b;
	char msg[256];

	if (load_sample(&s)) {
		FAIL("cannot produce the sample file");
		return;
	}
	b = malloc(s.len);
	nprof_ntff_header_decode(s.buf, &h);

	/* Truncations at every region. */
	expect_reject(s.buf, 0, EBADMSG, "buffer: truncated: 0 bytes, shorter than the 128-byte NTFF header");
	expect_reject(s.buf, 10, EBADMSG, "truncated: 10 bytes");
	/* A few bytes that are not the start of an NTFF file are no NTFF file. */
	expect_reject((const unsigned char *)"hello\n", 6, EBADMSG,
		      "buffer: bad magic: not an NTFF file (6 bytes, which do not start like one)");
	expect_reject(s.buf, 5, EBADMSG, "truncated: 5 bytes");
	expect_reject(s.buf, 100, EBADMSG, "truncated: 100 bytes");
	/* Cut anywhere past the header: "truncated", the region and where it ends. */
	snprintf(msg, sizeof(msg), "buffer: truncated: metadata [offset %llu, length %llu] ends at byte %llu, past the end of the file (%zu bytes)",
		 (unsigned long long)h.metadata_offset, (unsigned long long)h.metadata_length,
		 (unsigned long long)(h.metadata_offset + h.metadata_length), s.len - 1);
	expect_reject(s.buf, s.len - 1, EBADMSG, msg);
	expect_reject(s.buf, 128 + 100, EBADMSG, "buffer: truncated: ");
	expect_reject(s.buf, 128 + 100, EBADMSG, "past the end of the file (228 bytes)");

	/* Wrong magic. */
	memcpy(b, s.buf, s.len);
	b[0] = 'X';
	expect_reject(b, s.len, EBADMSG, "bad magic 58 54 46 46 0d 0a 1a 0a: not an NTFF file");

	/* Unknown major version; a higher minor is accepted. */
	memcpy(b, s.buf, s.len);
	put16(b, 8, 4);
	reseal(b);
	expect_reject(b, s.len, EPROTONOSUPPORT,
		      "NTFF version 4.4 is not supported: major version 4 is unknown (this reader reads 1.x, 2.x and 3.x)");
	/* Major 3 is for packed raw records only. */
	memcpy(b, s.buf, s.len);
	put16(b, 8, 3);
	reseal(b);
	expect_reject(b, s.len, EBADMSG, "major version 3 with raw format 0 (raw entries are major 2, others 1), packed 0");
	/* Major 2 is for raw entries only, and raw entries are major 2 only. */
	memcpy(b, s.buf, s.len);
	put16(b, 8, 2);
	reseal(b);
	expect_reject(b, s.len, EBADMSG, "major version 2 with raw format 0 (raw entries are major 2, others 1)");
	memcpy(b, s.buf, s.len);
	put16(b, 10, 7);
	b[0x60] = 1;	/* a later minor may use reserved bytes */
	reseal(b);
	{
		struct nprof_ntff_reader *r = nprof_ntff_reader_open_mem(b, s.len, NPROF_NTFF_READ_VERIFY_AT_OPEN);

		CHECK(r != NULL);
		if (r)
			CHECK_INT(nprof_ntff_reader_header(r)->version_minor, 7);
		else
			printf("# %s\n", nprof_strerror_last());
		nprof_ntff_reader_close(r);
	}
	memcpy(b, s.buf, s.len);
	b[0x60] = 1;
	reseal(b);
	expect_reject(b, s.len, EBADMSG, "reserved header byte at offset 96 is 0x01, not 0");
	memcpy(b, s.buf, s.len);
	b[0x7b] = 0x80;
	reseal(b);
	expect_reject(b, s.len, EBADMSG, "reserved header byte at offset 123 is 0x80, not 0");

	/* Bit flips: header, data, metadata. */
	memcpy(b, s.buf, s.len);
	b[0x30] ^= 0x04;
	expect_reject(b, s.len, EBADMSG, "header checksum mismatch");
	memcpy(b, s.buf, s.len);
	b[h.data_offset + 77] ^= 0x10;
	expect_reject(b, s.len, EBADMSG, "data checksum mismatch: stored");
	expect_reject(b, s.len, EBADMSG,
		      "in block 0 (bytes 0..3455 of the data region, queue record 0 (TRACE core 1 engine 2))");
	memcpy(b, s.buf, s.len);
	b[h.metadata_offset + 3] ^= 0x01;
	expect_reject(b, s.len, EBADMSG, "metadata checksum mismatch: stored");
	memcpy(b, s.buf, s.len);
	b[h.block_table_offset + 2] ^= 0x01;
	expect_reject(b, s.len, EBADMSG, "block table checksum mismatch: stored");
	/* The quick-look flag skips only the data blocks' checksums. */
	memcpy(b, s.buf, s.len);
	b[h.data_offset + 77] ^= 0x10;
	{
		struct nprof_ntff_reader *r = nprof_ntff_reader_open_mem(b, s.len, NPROF_NTFF_READ_NO_DATA_CSUM);

		CHECK(r != NULL);
		nprof_ntff_reader_close(r);
	}
	b[h.block_table_offset + 2] ^= 0x01;
	expect_reject_flags(b, s.len, NPROF_NTFF_READ_NO_DATA_CSUM, EBADMSG,
			    "block table checksum mismatch: stored");

	/* Oversized and overflowing offsets. */
	memcpy(b, s.buf, s.len);
	put64(b, offsetof(struct nprof_ntff_header, metadata_offset), 1ULL << 40);
	reseal(b);
	expect_reject(b, s.len, EBADMSG, "metadata [offset 1099511627776, length");
	memcpy(b, s.buf, s.len);
	put64(b, offsetof(struct nprof_ntff_header, data_offset), UINT64_MAX - 8);
	reseal(b);
	expect_reject(b, s.len, EBADMSG, "data region [offset 18446744073709551607, length 3456] extends past the end");
	memcpy(b, s.buf, s.len);
	put64(b, offsetof(struct nprof_ntff_header, data_length), UINT64_MAX);
	reseal(b);
	expect_reject(b, s.len, EBADMSG, "data region [offset 128, length 18446744073709551615] extends past the end");
	memcpy(b, s.buf, s.len);
	put64(b, offsetof(struct nprof_ntff_header, data_offset), 64);
	reseal(b);
	expect_reject(b, s.len, EBADMSG, "overlaps the 128-byte header");
	memcpy(b, s.buf, s.len);
	put64(b, offsetof(struct nprof_ntff_header, data_length), h.data_length + 8);
	reseal(b);
	expect_reject(b, s.len, EBADMSG, "overlap");
	memcpy(b, s.buf, s.len);
	b[offsetof(struct nprof_ntff_header, checksum_type)] = 9;
	reseal(b);
	expect_reject(b, s.len, EBADMSG, "unknown checksum type 9");
	memcpy(b, s.buf, s.len);
	b[offsetof(struct nprof_ntff_header, header_size)] = 100;
	reseal(b);
	expect_reject(b, s.len, EBADMSG, "header size 100 is outside [128,");

	free(b);
	free(s.buf);
}

/*
 * Re-encode the sample with its metadata edited by @edit, resealing every
 * checksum, so only the semantic check can catch it.
 */
static unsigned char *with_metadata(const struct sample *s, void (*edit)(Neuronprof__Ntff__NtffInfo *),
				    size_t *out_len)
{
	struct nprof_ntff_header h;
	Neuronprof__Ntff__NtffInfo *m;
	unsigned char *out;
	size_t mlen;

	nprof_ntff_header_decode(s->buf, &h);
	m = neuronprof__ntff__ntff_info__unpack(NULL, h.metadata_length, s->buf + h.metadata_offset);
	if (!m)
		return NULL;
	edit(m);
	mlen = neuronprof__ntff__ntff_info__get_packed_size(m);
	*out_len = h.metadata_offset + mlen;
	out = malloc(*out_len);
	memcpy(out, s->buf, h.metadata_offset);
	neuronprof__ntff__ntff_info__pack(m, out + h.metadata_offset);
	neuronprof__ntff__ntff_info__free_unpacked(m, NULL);
	h.metadata_length = mlen;
	h.metadata_csum = nprof_crc32c_update(0, out + h.metadata_offset, mlen);
	nprof_ntff_header_encode(&h, out);
	reseal(out);
	return out;
}

static void edit_range_out(Neuronprof__Ntff__NtffInfo *m) { m->trace[2]->data_offset += 64; }
static void edit_offset_huge(Neuronprof__Ntff__NtffInfo *m) { m->trace[0]->data_offset = UINT64_MAX - 10; }
static void edit_len_not_multiple(Neuronprof__Ntff__NtffInfo *m) { m->trace[0]->data_length -= 8; }
static void edit_count(Neuronprof__Ntff__NtffInfo *m) { m->trace[0]->entry_count = 45; }
static void edit_first_seq(Neuronprof__Ntff__NtffInfo *m) { m->trace[0]->first_seq = 999; }
static void edit_queue_type(Neuronprof__Ntff__NtffInfo *m) { m->trace[1]->queue_type = 9; }
static void edit_trace_type(Neuronprof__Ntff__NtffInfo *m) { m->trace[0]->trace_type = 4; }
static void edit_entry_size(Neuronprof__Ntff__NtffInfo *m) { m->trace[0]->entry_size = 60; }
static void edit_empty_seq(Neuronprof__Ntff__NtffInfo *m) { m->trace[1]->last_seq = 3; }
static void edit_missing(Neuronprof__Ntff__NtffInfo *m) { m->trace[0]->has_entry_size = 0; }

TEST(ntff_rejects_bad_trace_info)
{
	static const struct {
		void (*edit)(Neuronprof__Ntff__NtffInfo *);
		const char *msg;
	} cases[] = {
		{ edit_range_out, "trace_info 2: entries [offset 2880, length 640] lie outside the 3456-byte data region" },
		{ edit_offset_huge, "trace_info 0: entries [offset 18446744073709551605, length 2816] lie outside" },
		{ edit_len_not_multiple, "trace_info 0: data length 2808 is not a multiple of entry size 64" },
		{ edit_count, "trace_info 0: entry count 45 does not match 2816 bytes of 64-byte entries" },
		{ edit_first_seq, "trace_info 0: first/last seq 999/1043 differ from its entries' 1000/1043" },
		{ edit_queue_type, "trace_info 1 has unknown queue type 9" },
		{ edit_trace_type, "trace_info 0: queue type 0 maps to trace type 0 / block type 0, file says 4 / 0" },
		{ edit_entry_size, "trace_info 0: entry size 60 is not a multiple of 8 in [16, 262144]" },
		{ edit_empty_seq, "trace_info 1: no entries but first/last seq 0/3" },
		{ edit_missing, "trace_info 0 lacks queue_type, entry_size" },
	};
	struct sample s;
	size_t i, len;

	if (load_sample(&s)) {
		FAIL("cannot produce the sample file");
		return;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned char *b = with_metadata(&s, cases[i].edit, &len);

		if (!b) {
			FAIL("cannot re-encode case %zu", i);
			continue;
		}
		expect_reject(b, len, EBADMSG, cases[i].msg);
		free(b);
	}
	/* Metadata that is not protobuf at all, with a valid checksum. */
	{
		struct nprof_ntff_header h;
		unsigned char *b = malloc(s.len);

		memcpy(b, s.buf, s.len);
		nprof_ntff_header_decode(b, &h);
		memset(b + h.metadata_offset, 0xff, h.metadata_length);
		h.metadata_csum = nprof_crc32c_update(0, b + h.metadata_offset, h.metadata_length);
		nprof_ntff_header_encode(&h, b);
		reseal(b);
		expect_reject(b, s.len, EBADMSG, "is not a valid ntff_info message");
		free(b);
	}
	free(s.buf);
}

TEST(ntff_reader_open_errors)
{
	char path[PATH_MAX];

	CHECK(!nprof_ntff_reader_open("/nonexistent.ntff", 0) && errno == ENOENT);
	CHECK_STR(nprof_strerror_last(), "cannot open /nonexistent.ntff: No such file or directory");
	CHECK(!nprof_ntff_reader_open("/tmp", 0) && errno == EINVAL);
	CHECK(!nprof_ntff_reader_open("/dev/null", 0) && errno == EINVAL);
	CHECK(!nprof_ntff_reader_open_mem("x", 1, 0x10) && errno == EINVAL);
	CHECK(!nprof_ntff_reader_open_mem("x", 1, NPROF_NTFF_READ_NO_DATA_CSUM |
					  NPROF_NTFF_READ_VERIFY_LAZY) && errno == EINVAL);
	CHECK_STR(nprof_strerror_last(),
		  "NTFF reader flags 0x3 name more than one of NPROF_NTFF_READ_NO_DATA_CSUM, NPROF_NTFF_READ_VERIFY_LAZY and NPROF_NTFF_READ_VERIFY_AT_OPEN");
	CHECK(!nprof_ntff_reader_open_mem("x", 1, NPROF_NTFF_READ_VERIFY_AT_OPEN |
					  NPROF_NTFF_READ_VERIFY_LAZY) && errno == EINVAL);
	CHECK(!nprof_ntff_reader_open_mem("x", 1, NPROF_NTFF_READ_VERIFY_AT_OPEN |
					  NPROF_NTFF_READ_NO_DATA_CSUM) && errno == EINVAL);
	CHECK(!nprof_ntff_reader_open_mem("x", 1, 0x8) && errno == EINVAL);
	CHECK_STR(nprof_strerror_last(), "unknown NTFF reader flags 0x8");
	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/empty.ntff", dir);
	CHECK(!write_whole(path, "", 0));
	CHECK(!nprof_ntff_reader_open(path, 0) && errno == EBADMSG);
	CHECK_CONTAINS(nprof_strerror_last(), "empty.ntff: truncated: 0 bytes");
	rm_rf(dir);
}

/* ---- data blocks ------------------------------------------------------------ */

/*
 * Entries of @es bytes for the block tests: word 0 the timestamp, word 1 the
 * seq, every further word a function of the seq and the word's index, so a
 * reader that hands out the wrong bytes is caught.
 */
static uint64_t word_of(uint64_t seq, size_t k)
{
	return k == 0 ? 10 * seq : k == 1 ? seq : (seq << 8) ^ (0x5bd1e995u * k);
}

static unsigned char *make_entries(size_t n, size_t es, uint64_t seq0)
{
	unsigned char *b = malloc(n * es);
	size_t i, k;

	for (i = 0; b && i < n; i++)
		for (k = 0; k < es / 8; k++) {
			uint64_t w = htole64(word_of(seq0 + i, k));

			memcpy(b + i * es + 8 * k, &w, 8);
		}
	return b;
}

static bool entry_ok(const unsigned char *e, size_t es, uint64_t seq)
{
	size_t k;

	for (k = 0; k < es / 8; k++) {
		uint64_t w;

		memcpy(&w, e + 8 * k, 8);
		if (le64toh(w) != word_of(seq, k))
			return false;
	}
	return true;
}

/*
 * The many-block sample: 4 KiB blocks, and
 *   record 0: TRACE core 0 engine 0, 100 entries of 64 bytes (data 0..6399);
 *   record 1: DMA core 0 engine 1, 700 entries of 24 bytes, seq 1000.., given
 *	as two spans (a wrapped ring) (data 6400..23199): its entries straddle
 *	block boundaries;
 *   record 2: EVENT core 1 engine 2, 30 entries of 64 bytes, seq 5000..
 *	(data 23200..25119),
 * so 7 blocks, the last one partial (544 bytes).
 */
#define MB_BS		4096u
#define MB_DATA		25120u
#define MB_BLOCKS	7u

static const struct {
	uint32_t queue_type, engine, target_index, es, count;
	uint64_t seq0;
} mb_recs[] = {
	{ NEURONPROF_QT_TRACE, 0, 0, 64, 100, 0 },
	{ NEURONPROF_QT_DMA, 1, 0, 24, 700, 1000 },
	{ NEURONPROF_QT_EVENT, 2, 1, 64, 30, 5000 },
};

static int write_blocks_sample(const char *d, const char *name, char *path, size_t plen)
{
	struct nprof_ntff_queue_desc q = { .size = sizeof(q), .target_kind = NEURONPROF_TARGET_CORE };
	struct nprof_ntff_writer *w;
	unsigned char *e;
	size_t i, split;
	int ret = 0;

	w = nprof_ntff_writer_create(d, name, 0);
	if (!w)
		return -errno;
	CHECK_INT(nprof_ntff_writer_set_block_size(w, MB_BS), 0);
	for (i = 0; i < 3 && !ret; i++) {
		q.queue_type = mb_recs[i].queue_type;
		q.engine = mb_recs[i].engine;
		q.target_index = mb_recs[i].target_index;
		q.entry_size = mb_recs[i].es;
		e = make_entries(mb_recs[i].count, mb_recs[i].es, mb_recs[i].seq0);
		/* Record 1 in two spans, the first ending mid-block. */
		split = i == 1 ? 333 * mb_recs[i].es : (size_t)mb_recs[i].count * mb_recs[i].es;
		ret = nprof_ntff_writer_append(w, &q, e, split, e + split,
					       (size_t)mb_recs[i].count * mb_recs[i].es - split);
		ret = ret == (int)i ? 0 : -1;
		free(e);
	}
	if (ret) {
		nprof_ntff_writer_abort(w);
		return ret;
	}
	snprintf(path, plen, "%s/%s", d, name);
	return nprof_ntff_writer_finalize(w);
}

static int load_blocks_sample(struct sample *s)
{
	char path[PATH_MAX];

	if (!fresh_dir())
		return -1;
	if (write_blocks_sample(dir, "b.ntff", path, sizeof(path)))
		return -1;
	s->buf = read_whole(path, &s->len);
	rm_rf(dir);
	return s->buf ? 0 : -1;
}

/*
 * Walk record @idx with the chunk iterator, checking every entry and the
 * chunk rule: whole entries, no larger than a block, inside one block or a
 * single entry that crosses into the next. Returns the entries delivered
 * before the end or the first error (*err), and counts single-entry
 * crossing chunks in *crossing.
 */
static uint64_t walk_chunks(struct nprof_ntff_reader *r, size_t idx, int *err, int *crossing)
{
	const struct nprof_ntff_header *h = nprof_ntff_reader_header(r);
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	struct nprof_ntff_chunk_iter it;
	const unsigned char *data = NULL, *p;
	uint64_t done = 0, off, want;
	int n;

	*err = 0;
	CHECK_INT(nprof_ntff_reader_queue(r, idx, &q), 0);
	CHECK_INT(nprof_ntff_chunk_iter_init(&it, r, idx), 0);
	while ((n = nprof_ntff_chunk_iter_next(&it, (const void **)&p)) > 0) {
		size_t len = (size_t)n * q.entry_size, i;

		if (!data)	/* where the record starts, from its first chunk */
			data = p - q.data_offset;
		off = (uint64_t)(p - data);
		want = q.data_offset + done * q.entry_size;
		if (off != want)
			FAIL("record %zu: chunk at data offset %llu, expected %llu", idx,
			     (unsigned long long)off, (unsigned long long)want);
		if (len > h->block_size)
			FAIL("record %zu: chunk of %zu bytes exceeds the %u-byte block", idx, len,
			     h->block_size);
		if (off / h->block_size != (off + len - 1) / h->block_size) {
			if (n != 1)
				FAIL("record %zu: chunk of %d entries at %llu crosses a block boundary",
				     idx, n, (unsigned long long)off);
			(*crossing)++;
		}
		for (i = 0; i < (size_t)n; i++)
			if (!entry_ok(p + i * q.entry_size, q.entry_size, q.first_seq + done + i))
				FAIL("record %zu: entry %llu is wrong", idx,
				     (unsigned long long)(done + i));
		done += (uint64_t)n;
	}
	*err = n;
	if (!n)
		CHECK_INT(done, q.entry_count);
	return done;
}

TEST(ntff_blocks_round_trip)
{
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	const struct nprof_ntff_header *h;
	struct nprof_ntff_entry_iter it;
	struct nprof_ntff_reader *r, *lazy, *dflt;
	const unsigned char *e, *data;
	unsigned char *file;
	char path[PATH_MAX];
	size_t i, flen;
	int err, crossing, mode;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	CHECK_INT(write_blocks_sample(dir, "b.ntff", path, sizeof(path)), 0);
	file = read_whole(path, &flen);
	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	lazy = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_LAZY);
	/* The default mode is the one-pass mode, NPROF_NTFF_READ_VERIFY_LAZY. */
	dflt = nprof_ntff_reader_open(path, 0);
	CHECK(r && lazy && dflt && file);
	if (!r || !lazy || !dflt || !file) {
		printf("# %s\n", nprof_strerror_last());
		goto out;
	}
	h = nprof_ntff_reader_header(r);
	CHECK_INT(h->block_size, MB_BS);
	CHECK_INT(h->data_length, MB_DATA);
	CHECK_INT(h->block_table_offset, 128 + MB_DATA);
	CHECK_INT(h->block_table_length, 4 * MB_BLOCKS);
	CHECK_INT(h->metadata_offset, 128 + MB_DATA + 4 * MB_BLOCKS);
	CHECK_INT(h->block_table_csum, nprof_crc32c_update(0, file + h->block_table_offset,
							    4 * MB_BLOCKS));
	/* Each table entry is the CRC32C of its block, the last one partial. */
	data = file + h->data_offset;
	for (i = 0; i < MB_BLOCKS; i++) {
		size_t len = i + 1 < MB_BLOCKS ? MB_BS : MB_DATA % MB_BS;
		uint32_t stored;

		memcpy(&stored, file + h->block_table_offset + 4 * i, 4);
		if (le32toh(stored) != nprof_crc32c_update(0, data + i * MB_BS, len))
			FAIL("block %zu: table entry 0x%08x is not the block's CRC32C", i,
			     le32toh(stored));
	}

	CHECK_INT(nprof_ntff_reader_queue_count(r), 3);
	for (i = 0; i < 3; i++) {
		uint64_t n = 0;

		CHECK_INT(nprof_ntff_reader_queue(r, i, &q), 0);
		CHECK_INT(q.entry_size, mb_recs[i].es);
		CHECK_INT(q.entry_count, mb_recs[i].count);
		CHECK_INT(q.first_seq, mb_recs[i].seq0);
		CHECK_INT(q.last_seq, mb_recs[i].seq0 + mb_recs[i].count - 1);
		nprof_ntff_entry_iter_init(&it, &q);
		while ((e = nprof_ntff_entry_iter_next(&it)))
			if (!entry_ok(e, q.entry_size, q.first_seq + n++))
				FAIL("record %zu: entry %llu is wrong", i, (unsigned long long)n - 1);
		CHECK_INT(n, mb_recs[i].count);

		/* A one-pass reader gives no pointer to unverified entries. */
		CHECK_INT(nprof_ntff_reader_queue(lazy, i, &q), 0);
		CHECK(q.entries == NULL);
		CHECK_INT(q.entry_count, mb_recs[i].count);
		nprof_ntff_entry_iter_init(&it, &q);
		CHECK(nprof_ntff_entry_iter_next(&it) == NULL);
		CHECK_INT(nprof_ntff_reader_queue(dflt, i, &q), 0);
		CHECK(q.entries == NULL);
		CHECK_INT(q.entry_count, mb_recs[i].count);
	}

	/*
	 * The chunk iterator in every mode, the one-pass ones twice (blocks
	 * now known good).
	 */
	for (mode = 0; mode < 5; mode++) {
		crossing = 0;
		for (i = 0; i < 3; i++) {
			walk_chunks(!mode ? r : mode < 3 ? lazy : dflt, i, &err, &crossing);
			CHECK_INT(err, 0);
		}
		/*
		 * Record 1's 24-byte entries cross 3 of the 4 block boundaries
		 * inside it (16384 falls between two), record 2's 64-byte ones,
		 * which start at 23200, cross 24576.
		 */
		CHECK_INT(crossing, 4);
	}

	/* Iterator misuse. */
	{
		struct nprof_ntff_chunk_iter ci;
		const void *p;

		CHECK_ERR_MSG(nprof_ntff_chunk_iter_init(&ci, lazy, 3), ERANGE,
			      "queue record 3 does not exist (the file has 3)");
		CHECK_INT(nprof_ntff_chunk_iter_init(NULL, lazy, 0), -EINVAL);
		CHECK_INT(nprof_ntff_chunk_iter_init(&ci, lazy, 1), 0);
		CHECK_INT(nprof_ntff_chunk_iter_next(&ci, NULL), -EINVAL);
		ci.pos += 8;
		CHECK_ERR_MSG(nprof_ntff_chunk_iter_next(&ci, &p), EINVAL,
			      "NTFF chunk iterator state is inconsistent (position 6408, end 23200, entry size 24)");
		ci.pos = 0;
		ci.end = MB_DATA + 24;
		CHECK_INT(nprof_ntff_chunk_iter_next(&ci, &p), -EINVAL);
	}
out:
	nprof_ntff_reader_close(dflt);
	nprof_ntff_reader_close(r);
	nprof_ntff_reader_close(lazy);
	free(file);
	rm_rf(dir);
}

TEST(ntff_blocks_default_size)
{
	struct nprof_ntff_queue_desc qd = { .size = sizeof(qd), .queue_type = NEURONPROF_QT_TRACE,
					     .entry_size = ENTRY };
	/* 10 x 62.5 KiB: 39 blocks of 16 KiB and 1 KiB of a 40th. */
	const size_t per = 1000, appends = 10, blocks = 40, last = 16;
	const struct nprof_ntff_header *h;
	struct nprof_ntff_reader *r;
	struct nprof_ntff_writer *w;
	char path[PATH_MAX];
	unsigned char *e;
	int err, crossing = 0, chunks = 0, mode;
	size_t k;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	w = nprof_ntff_writer_create(dir, "d.ntff", 0);
	CHECK(w != NULL);
	if (!w)
		goto out;
	for (k = 0; k < appends; k++) {
		e = make_entries(per, ENTRY, k * per);
		CHECK_INT(nprof_ntff_writer_append(w, &qd, e, per * ENTRY, NULL, 0), 0);
		free(e);
	}
	CHECK_INT(nprof_ntff_writer_finalize(w), 0);
	snprintf(path, sizeof(path), "%s/d.ntff", dir);
	for (mode = 0; mode < 2; mode++) {
		struct nprof_ntff_chunk_iter it;
		const void *p;
		int n;

		r = nprof_ntff_reader_open(path, mode ? NPROF_NTFF_READ_VERIFY_LAZY : NPROF_NTFF_READ_VERIFY_AT_OPEN);
		CHECK(r != NULL);
		if (!r)
			break;
		h = nprof_ntff_reader_header(r);
		CHECK_INT(h->block_size, 16 * 1024);
		CHECK_INT(h->block_size, NPROF_NTFF_BLOCK_SIZE_DEFAULT);
		CHECK_INT(h->data_length, appends * per * ENTRY);
		CHECK_INT(h->block_table_length, blocks * 4);
		CHECK_INT(walk_chunks(r, 0, &err, &crossing), appends * per);
		CHECK_INT(err, 0);
		CHECK_INT(crossing, 0);
		/* One chunk per block: 16 KiB (256 entries) each, then 1 KiB. */
		nprof_ntff_chunk_iter_init(&it, r, 0);
		while ((n = nprof_ntff_chunk_iter_next(&it, &p)) > 0)
			CHECK_INT(n, (chunks++ % blocks == blocks - 1 ? last : 256));
		nprof_ntff_reader_close(r);
	}
	CHECK_INT(chunks, 2 * blocks);
out:
	rm_rf(dir);
}

/*
 * The trailer is written from the writer's own block table (no copy at
 * finalize): a commit whose trailer write fails (the file size limit) leaves
 * the table as it was, and the retry writes a file whose blocks, the
 * partial last one included, all verify.
 */
TEST(ntff_commit_retried_after_a_failed_trailer)
{
	struct nprof_ntff_queue_desc qd = { .size = sizeof(qd), .queue_type = NEURONPROF_QT_TRACE,
					     .entry_size = ENTRY };
	const size_t per = 1000, appends = 10;	/* 39 blocks of 16 KiB and part of a 40th */
	struct rlimit old, tiny;
	const struct nprof_ntff_header *h;
	struct nprof_ntff_reader *r;
	struct nprof_ntff_writer *w;
	void (*old_xfsz)(int);
	char path[PATH_MAX];
	int dirfd, err, crossing = 0;
	unsigned char *e;
	size_t k;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	w = nprof_ntff_writer_create_pending(dir);
	CHECK(dirfd >= 0 && w != NULL);
	if (dirfd < 0 || !w)
		goto out;
	for (k = 0; k < appends; k++) {
		e = make_entries(per, ENTRY, k * per);
		CHECK_INT(nprof_ntff_writer_append(w, &qd, e, per * ENTRY, NULL, 0), 0);
		free(e);
	}
	/* The data is written: the limit lets nothing past it be. */
	CHECK_INT(getrlimit(RLIMIT_FSIZE, &old), 0);
	tiny = old;
	tiny.rlim_cur = NPROF_NTFF_HEADER_SIZE + appends * per * ENTRY;
	old_xfsz = signal(SIGXFSZ, SIG_IGN);
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &tiny), 0);
	CHECK(nprof_ntff_writer_commit(&w, dirfd, "c.ntff") < 0);
	CHECK(w != NULL);
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_xfsz);
	snprintf(path, sizeof(path), "%s/c.ntff", dir);
	CHECK(access(path, F_OK) != 0);
	if (!w)
		goto out;
	CHECK_INT(nprof_ntff_writer_commit(&w, dirfd, "c.ntff"), 0);
	CHECK(w == NULL);
	nprof_ntff_writer_forget(w);
	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (r) {
		h = nprof_ntff_reader_header(r);
		CHECK_INT(h->data_length, appends * per * ENTRY);
		CHECK_INT(h->block_table_length, 40 * 4);
		CHECK_INT(walk_chunks(r, 0, &err, &crossing), appends * per);
		CHECK_INT(err, 0);
		nprof_ntff_reader_close(r);
	}
out:
	if (dirfd >= 0)
		close(dirfd);
	rm_rf(dir);
}

TEST(ntff_blocks_writer_rules)
{
	struct nprof_ntff_queue_desc qd = { .size = sizeof(qd), .queue_type = NEURONPROF_QT_TRACE,
					     .entry_size = 8192 };
	unsigned char *e = make_entries(2, 8192, 0);
	struct nprof_ntff_writer *w;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	w = nprof_ntff_writer_create(dir, "w.ntff", 0);
	CHECK(w != NULL);
	CHECK_ERR_MSG(nprof_ntff_writer_set_block_size(w, 0), EINVAL,
		      "NTFF block size 0 is not a power of two in [4096, 1073741824]");
	CHECK_INT(nprof_ntff_writer_set_block_size(w, 12288), -EINVAL);
	CHECK_INT(nprof_ntff_writer_set_block_size(w, 2048), -EINVAL);
	CHECK_INT(nprof_ntff_writer_set_block_size(w, 1u << 31), -EINVAL);
	CHECK_INT(nprof_ntff_writer_set_block_size(w, 4096), 0);
	/* An entry must fit in a block. */
	CHECK_ERR_MSG(nprof_ntff_writer_append(w, &qd, e, 2 * 8192, NULL, 0), EINVAL,
		      "entry size 8192 exceeds the file's block size 4096");
	CHECK_INT(nprof_ntff_writer_set_block_size(w, 8192), 0);
	CHECK_INT(nprof_ntff_writer_append(w, &qd, e, 2 * 8192, NULL, 0), 0);
	CHECK_ERR_MSG(nprof_ntff_writer_set_block_size(w, 16384), EINVAL,
		      "NTFF block size must be set before the first append");
	nprof_ntff_writer_abort(w);
	free(e);
	rm_rf(dir);
}

/*
 * Without a block size set, the first data of entries larger than the
 * default block gets blocks of the next power of two; later, larger entries
 * are refused; the file reads back in every mode.
 */
TEST(ntff_blocks_fit_large_entries)
{
	const uint32_t big = 3 * NPROF_NTFF_BLOCK_SIZE_DEFAULT / 2 + 8;
	struct nprof_ntff_queue_desc qd = { .size = sizeof(qd), .queue_type = NEURONPROF_QT_TRACE,
					     .entry_size = big };
	struct nprof_ntff_queue_desc qs = qd;
	unsigned char *e = make_entries(5, big, 0), *huge = make_entries(1, 4 * big, 10);
	const struct nprof_ntff_header *h;
	struct nprof_ntff_reader *r;
	struct nprof_ntff_writer *w;
	char path[PATH_MAX];
	int err, crossing = 0, mode;

	if (!fresh_dir() || !e || !huge) {
		FAIL("mkdtemp or malloc");
		goto out;
	}
	w = nprof_ntff_writer_create(dir, "big.ntff", 0);
	CHECK(w != NULL);
	if (!w)
		goto out;
	/* An empty record first: it has no data, so it does not decide. */
	qs.entry_size = ENTRY;
	CHECK_INT(nprof_ntff_writer_append(w, &qs, NULL, 0, NULL, 0), 0);
	CHECK_INT(nprof_ntff_writer_append(w, &qd, e, 5 * (size_t)big, NULL, 0), 1);	/* record 1 */
	qs.entry_size = 4 * big;
	CHECK_ERR_MSG(nprof_ntff_writer_append(w, &qs, huge, 4 * (size_t)big, NULL, 0), EINVAL,
		      "entry size 98336 exceeds the file's block size 32768");
	CHECK_INT(nprof_ntff_writer_finalize(w), 0);
	snprintf(path, sizeof(path), "%s/big.ntff", dir);
	for (mode = 0; mode < 2; mode++) {
		r = nprof_ntff_reader_open(path, mode ? 0 : NPROF_NTFF_READ_VERIFY_AT_OPEN);
		CHECK(r != NULL);
		if (!r)
			break;
		h = nprof_ntff_reader_header(r);
		CHECK_INT(h->block_size, 2 * NPROF_NTFF_BLOCK_SIZE_DEFAULT);
		CHECK_INT(walk_chunks(r, 1, &err, &crossing), 5);
		CHECK_INT(err, 0);
		nprof_ntff_reader_close(r);
	}
out:
	free(e);
	free(huge);
	rm_rf(dir);
}

/*
 * @s laid out again with @block_size: header | data | new block table |
 * metadata, every checksum recomputed, so only the block rules can refuse it.
 */
static unsigned char *with_block_size(const struct sample *s, uint32_t block_size, size_t *out_len)
{
	struct nprof_ntff_header h;
	unsigned char *out;
	uint64_t n, i;

	nprof_ntff_header_decode(s->buf, &h);
	n = ntff_block_count(h.data_length, block_size);
	*out_len = 128 + h.data_length + 4 * n + h.metadata_length;
	out = calloc(1, *out_len);
	memcpy(out + 128, s->buf + h.data_offset, h.data_length);
	for (i = 0; i < n; i++) {
		uint64_t len = h.data_length - i * block_size;
		uint32_t c;

		c = htole32(nprof_crc32c_update(0, out + 128 + i * block_size,
						len < block_size ? len : block_size));
		memcpy(out + 128 + h.data_length + 4 * i, &c, 4);
	}
	memcpy(out + 128 + h.data_length + 4 * n, s->buf + h.metadata_offset, h.metadata_length);
	h.data_offset = 128;
	h.block_size = block_size;
	h.block_table_offset = 128 + h.data_length;
	h.block_table_length = 4 * n;
	h.block_table_csum = nprof_crc32c_update(0, out + h.block_table_offset, 4 * n);
	h.metadata_offset = h.block_table_offset + 4 * n;
	nprof_ntff_header_encode(&h, out);
	reseal(out);
	return out;
}

/* A copy of @s with the header field at @off set to @v (32 bits if @bits is 32) and resealed. */
static unsigned char *with_field(const struct sample *s, size_t off, int bits, uint64_t v)
{
	unsigned char *b = malloc(s->len);

	memcpy(b, s->buf, s->len);
	if (bits == 32) {
		uint32_t v32 = htole32((uint32_t)v);

		memcpy(b + off, &v32, 4);
	} else {
		put64(b, off, v);
	}
	reseal(b);
	return b;
}

TEST(ntff_blocks_rejects_bad_layout)
{
	static const struct {
		size_t off;
		int bits;
		uint64_t v;
		const char *msg;
	} cases[] = {
		{ offsetof(struct nprof_ntff_header, block_size), 32, 0,
		  "block size 0 is not a power of two in [4096, 1073741824]" },
		{ offsetof(struct nprof_ntff_header, block_size), 32, 6144,
		  "block size 6144 is not a power of two in [4096, 1073741824]" },
		{ offsetof(struct nprof_ntff_header, block_size), 32, 4097,
		  "block size 4097 is not a power of two" },
		{ offsetof(struct nprof_ntff_header, block_size), 32, 2048,
		  "block size 2048 is not a power of two in [4096, 1073741824]" },
		{ offsetof(struct nprof_ntff_header, block_size), 32, 1u << 31,
		  "block size 2147483648 is not a power of two in [4096, 1073741824]" },
		{ offsetof(struct nprof_ntff_header, block_size), 32, 8192,
		  "block table length 28 does not match the 25120-byte data region: 4 blocks of 8192 bytes need 16" },
		{ offsetof(struct nprof_ntff_header, block_table_length), 64, 24,
		  "block table length 24 does not match the 25120-byte data region: 7 blocks of 4096 bytes need 28" },
		{ offsetof(struct nprof_ntff_header, block_table_length), 64, 0,
		  "block table length 0 does not match" },
		{ offsetof(struct nprof_ntff_header, data_length), 64, MB_DATA - 4096,
		  "block table length 28 does not match the 21024-byte data region: 6 blocks of 4096 bytes need 24" },
		{ offsetof(struct nprof_ntff_header, block_table_length), 64, 32,
		  "block table [25248, +32] and metadata [25276, +" },
		{ offsetof(struct nprof_ntff_header, block_table_offset), 64, 25240,
		  "block table [25240, +28] and data [128, +25120] overlap" },
		{ offsetof(struct nprof_ntff_header, block_table_offset), 64, 100,
		  "block table offset 100 overlaps the 128-byte header" },
		{ offsetof(struct nprof_ntff_header, block_table_offset), 64, UINT64_MAX - 3,
		  "block table [offset 18446744073709551612, length 28] extends past the end of the file" },
		{ offsetof(struct nprof_ntff_header, block_table_length), 64, UINT64_MAX,
		  "block table [offset 25248, length 18446744073709551615] extends past the end" },
	};
	struct nprof_ntff_header h;
	struct sample s, big;
	unsigned char *b;
	size_t i, len;

	if (load_blocks_sample(&s)) {
		FAIL("cannot produce the many-block sample");
		return;
	}
	nprof_ntff_header_decode(s.buf, &h);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b = with_field(&s, cases[i].off, cases[i].bits, cases[i].v);
		expect_reject(b, s.len, EBADMSG, cases[i].msg);
		expect_reject_flags(b, s.len, NPROF_NTFF_READ_VERIFY_LAZY, EBADMSG, cases[i].msg);
		free(b);
	}

	/* The table's own checksum, whatever the mode. */
	b = malloc(s.len);
	memcpy(b, s.buf, s.len);
	b[h.block_table_offset + 9] ^= 0x40;
	expect_reject(b, s.len, EBADMSG, "block table checksum mismatch: stored");
	expect_reject_flags(b, s.len, NPROF_NTFF_READ_VERIFY_LAZY, EBADMSG,
			    "block table checksum mismatch: stored");
	free(b);

	/* Any block size in range reads back the same; a larger entry does not fit. */
	b = with_block_size(&s, 8192, &len);
	{
		struct nprof_ntff_reader *r = nprof_ntff_reader_open_mem(b, len, NPROF_NTFF_READ_VERIFY_LAZY);
		int err, crossing = 0;

		CHECK(r != NULL);
		for (i = 0; r && i < 3; i++) {
			walk_chunks(r, i, &err, &crossing);
			CHECK_INT(err, 0);
		}
		CHECK_INT(crossing, 2);	/* 8192 and 24576 */
		nprof_ntff_reader_close(r);
	}
	free(b);
	if (!fresh_dir()) {
		FAIL("mkdtemp");
	} else {
		struct nprof_ntff_queue_desc qd = { .size = sizeof(qd),
						     .queue_type = NEURONPROF_QT_TRACE,
						     .entry_size = 8192 };
		struct nprof_ntff_writer *w = nprof_ntff_writer_create(dir, "e.ntff", 0);
		unsigned char *e = make_entries(3, 8192, 0);
		char path[PATH_MAX];

		CHECK_INT(nprof_ntff_writer_append(w, &qd, e, 3 * 8192, NULL, 0), 0);
		CHECK_INT(nprof_ntff_writer_finalize(w), 0);
		free(e);
		snprintf(path, sizeof(path), "%s/e.ntff", dir);
		big.buf = read_whole(path, &big.len);
		rm_rf(dir);
		if (big.buf) {
			b = with_block_size(&big, 4096, &len);
			expect_reject(b, len, EBADMSG,
				      "trace_info 0: entry size 8192 exceeds the block size 4096");
			free(b);
			b = with_block_size(&big, 8192, &len);
			{
				struct nprof_ntff_reader *r = nprof_ntff_reader_open_mem(b, len, NPROF_NTFF_READ_VERIFY_AT_OPEN);

				CHECK(r != NULL);
				nprof_ntff_reader_close(r);
			}
			free(b);
		}
		free(big.buf);
	}
	free(s.buf);
}

/*
 * A bit flipped in data block @blk (at data offset @off): the verify-at-open
 * mode refuses the file naming the block (and @where); the one-pass mode
 * (the default, and NPROF_NTFF_READ_VERIFY_LAZY by name) opens it, and for
 * each record with entries in the block hands out every entry of the
 * earlier blocks, none of that block, and fails at the chunk that needs it,
 * naming the block and the record. Other records read completely.
 */
static void check_flip_one_pass(const struct nprof_ntff_header *hp, const unsigned char *b,
				size_t len, unsigned int flags, uint64_t blk);

static void check_flip(const struct sample *s, uint64_t off, uint64_t blk, const char *where)
{
	struct nprof_ntff_header h;
	unsigned char *b = malloc(s->len);
	int mode;

	nprof_ntff_header_decode(s->buf, &h);
	memcpy(b, s->buf, s->len);
	b[h.data_offset + off] ^= 0x20;
	expect_reject(b, s->len, EBADMSG, "data checksum mismatch: stored 0x");
	expect_reject(b, s->len, EBADMSG, where);
	for (mode = 0; mode < 2; mode++)
		check_flip_one_pass(&h, b, s->len, mode ? NPROF_NTFF_READ_VERIFY_LAZY : 0, blk);
	free(b);
}

static void check_flip_one_pass(const struct nprof_ntff_header *hp, const unsigned char *b,
				size_t len, unsigned int flags, uint64_t blk)
{
	const struct nprof_ntff_header h = *hp;
	struct nprof_ntff_reader *r;
	uint64_t done, before;
	int err, crossing = 0;
	size_t i;
	char msg[256];

	r = nprof_ntff_reader_open_mem(b, len, flags);
	CHECK(r != NULL);
	if (!r) {
		printf("# %s\n", nprof_strerror_last());
		return;
	}
	for (i = 0; i < 3; i++) {
		struct nprof_ntff_queue q = { .size = sizeof(q) };
		uint64_t start;

		nprof_ntff_reader_queue(r, i, &q);
		start = q.data_offset;
		done = walk_chunks(r, i, &err, &crossing);
		if (start >= (blk + 1) * h.block_size || start + q.data_length <= blk * h.block_size) {
			CHECK_INT(err, 0);
			continue;
		}
		CHECK_INT(err, -EBADMSG);
		CHECK_CONTAINS(nprof_strerror_last(), "data checksum mismatch: stored 0x");
		snprintf(msg, sizeof(msg), "in block %llu (bytes %llu..", (unsigned long long)blk,
			 (unsigned long long)blk * h.block_size);
		CHECK_CONTAINS(nprof_strerror_last(), msg);
		snprintf(msg, sizeof(msg), " of the data region, queue record %zu (", i);
		CHECK_CONTAINS(nprof_strerror_last(), msg);
		/* Exactly the entries that end before the block were handed out. */
		before = blk * h.block_size > start ? (blk * h.block_size - start) / q.entry_size : 0;
		CHECK_INT(done, before);
		CHECK(done < q.entry_count);
		/* The failure sticks. */
		{
			struct nprof_ntff_chunk_iter it;
			const void *p;

			nprof_ntff_chunk_iter_init(&it, r, i);
			while ((err = nprof_ntff_chunk_iter_next(&it, &p)) > 0)
				;
			CHECK_INT(err, -EBADMSG);
		}
	}
	nprof_ntff_reader_close(r);
}

TEST(ntff_blocks_detect_bit_flips)
{
	struct nprof_ntff_header h;
	struct nprof_ntff_reader *r;
	struct sample s;
	unsigned char *b;

	if (load_blocks_sample(&s)) {
		FAIL("cannot produce the many-block sample");
		return;
	}
	nprof_ntff_header_decode(s.buf, &h);
	/* Block 3 lies inside record 1 (a word of its entry 249, not the seq). */
	check_flip(&s, 3 * MB_BS + 110, 3,
		   "in block 3 (bytes 12288..16383 of the data region, queue record 1 (DMA core 0 engine 1))");
	/*
	 * Block 1 holds the end of record 0 and the start of record 1: both
	 * fail in the one-pass mode, the verify-at-open mode names the first.
	 */
	check_flip(&s, 6400 + 100, 1,
		   "in block 1 (bytes 4096..8191 of the data region, queue record 0 (TRACE core 0 engine 0))");
	/* The last, partial block, the end of record 2. */
	check_flip(&s, 6 * MB_BS + 50, 6,
		   "in block 6 (bytes 24576..25119 of the data region, queue record 2 (EVENT core 1 engine 2))");

	/*
	 * A flipped seq of a record's first entry: the lazy open reads it
	 * before the block is verified, and reports the block, not the seq.
	 */
	b = malloc(s.len);
	memcpy(b, s.buf, s.len);
	b[h.data_offset + 23200 + 8] ^= 0x01;
	expect_reject_flags(b, s.len, NPROF_NTFF_READ_VERIFY_LAZY, EBADMSG,
			    "data checksum mismatch: stored 0x");
	expect_reject_flags(b, s.len, NPROF_NTFF_READ_VERIFY_LAZY, EBADMSG,
			    "in block 5 (bytes 20480..24575 of the data region, queue record 2 (EVENT core 1 engine 2))");
	expect_reject(b, s.len, EBADMSG, "in block 5 (bytes 20480..24575");
	expect_reject_flags(b, s.len, NPROF_NTFF_READ_NO_DATA_CSUM, EBADMSG,
			    "trace_info 2: first/last seq 5000/5029 differ from its entries' 5001/5029");

	/* A table entry that disagrees with its block (table resealed). */
	memcpy(b, s.buf, s.len);
	b[h.block_table_offset + 4 * 2] ^= 0x01;
	h.block_table_csum = nprof_crc32c_update(0, b + h.block_table_offset, h.block_table_length);
	nprof_ntff_header_encode(&h, b);
	reseal(b);
	expect_reject(b, s.len, EBADMSG,
		      "in block 2 (bytes 8192..12287 of the data region, queue record 1 (DMA core 0 engine 1))");
	r = nprof_ntff_reader_open_mem(b, s.len, NPROF_NTFF_READ_VERIFY_LAZY);
	CHECK(r != NULL);
	if (r) {
		int err, crossing = 0;

		CHECK_INT(walk_chunks(r, 0, &err, &crossing), 100);
		CHECK_INT(err, 0);
		/* 8192 - 6400 = 1792 bytes: 74 whole entries before block 2. */
		CHECK_INT(walk_chunks(r, 1, &err, &crossing), 74);
		CHECK_INT(err, -EBADMSG);
		nprof_ntff_reader_close(r);
	}
	free(b);
	free(s.buf);
}

/* ---- independent decoder ------------------------------------------------- */

/* ---- raw entries ---------------------------------------------------------- */

/*
 * Ring entries of a raw device (uapi/drm/neuronprof_drm.h): device entries
 * of 64 bytes in two parts each, the bytes recognisable by entry and offset.
 */
static struct neuronprof_notification *make_raw_ring(size_t n)
{
	struct neuronprof_notification *r = calloc(n, ENTRY);
	size_t i, k;

	for (i = 0; r && i < n; i++) {
		unsigned char *b = (unsigned char *)r[i].payload;

		r[i].timestamp_ns = 5000 + i;
		r[i].seq = i;
		r[i].queue_type = NEURONPROF_QT_DMA;
		r[i].engine = 3;
		r[i].code = NEURONPROF_RAW_CODE(32, i % 2, 2);
		r[i].model_id = NEURONPROF_RAW_FORMAT_NEURON_V2;
		r[i].iteration = (uint32_t)(i / 2);
		for (k = 0; k < sizeof(r[i].payload); k++)
			b[k] = (unsigned char)(i * 7 + k);
	}
	return r;
}

static int write_raw(const char *d, const char *name, const struct nprof_ntff_info *info,
		     const struct neuronprof_notification *ring, size_t n)
{
	struct nprof_ntff_queue_desc q = {
		.size = sizeof(q), .queue_type = NEURONPROF_QT_DMA,
		.target_kind = NEURONPROF_TARGET_CORE, .target_index = 1, .engine = 3,
		.entry_size = ENTRY,
	};
	struct nprof_ntff_writer *w = nprof_ntff_writer_create(d, name, 0);
	int ret;

	if (!w)
		return -errno;
	ret = nprof_ntff_writer_set_info(w, info);
	if (!ret)
		ret = nprof_ntff_writer_append(w, &q, ring, n * ENTRY, NULL, 0) < 0 ? -1 : 0;
	if (ret) {
		nprof_ntff_writer_abort(w);
		return ret;
	}
	return nprof_ntff_writer_finalize(w);
}

/*
 * @n entries of make_raw_ring() written with @info to @name in a fresh
 * directory (dir), and opened: the reader, and the ring in *@ring. The
 * caller closes the reader, frees the ring and removes dir. NULL after
 * recording the failure if a step fails; then nothing is left to free.
 */
static struct nprof_ntff_reader *open_raw_file(const char *name, const struct nprof_ntff_info *info,
					       size_t n, struct neuronprof_notification **ring)
{
	struct nprof_ntff_reader *r = NULL;
	char path[PATH_MAX];
	int ret;

	*ring = make_raw_ring(n);
	if (!*ring || !fresh_dir()) {
		FAIL("calloc or mkdtemp");
		free(*ring);
		*ring = NULL;
		return NULL;
	}
	ret = write_raw(dir, name, info, *ring, n);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (ret)
		FAIL("writing %s: %d: %s", path, ret, nprof_strerror_last());
	else if (!(r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN)))
		FAIL("opening %s: %s", path, nprof_strerror_last());
	if (!r) {
		free(*ring);
		*ring = NULL;
		rm_rf(dir);
	}
	return r;
}

TEST(ntff_raw_round_trip)
{
	struct nprof_ntff_info in = sample_info, out = { .size = sizeof(out) };
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	struct neuronprof_notification *ring;
	struct nprof_ntff_reader *r;

	in.device.provider = "neuron";
	in.device.clock_domain = NEURONPROF_CLOCK_CAPTURED;
	in.device.raw_format = NEURONPROF_RAW_FORMAT_NEURON_V2;
	in.device.raw_entry_size = 64;
	r = open_raw_file("raw.ntff", &in, 12, &ring);
	if (!r)
		return;
	/* Readers of major 1 only refuse it: they would decode the bytes. */
	CHECK_INT(nprof_ntff_reader_header(r)->version_major, NPROF_NTFF_VERSION_MAJOR_RAW);
	CHECK_INT(nprof_ntff_reader_info(r, &out), 0);
	CHECK_INT(out.device.clock_domain, NEURONPROF_CLOCK_CAPTURED);
	CHECK_INT(out.device.raw_format, NEURONPROF_RAW_FORMAT_NEURON_V2);
	CHECK_INT(out.device.raw_entry_size, 64);
	CHECK_STR(out.device.provider, "neuron");
	CHECK_INT(nprof_ntff_reader_queue(r, 0, &q), 0);
	CHECK_INT(q.entry_count, 12);
	/* Every byte as written: nothing was decoded on the way. */
	CHECK(q.entries && !memcmp(q.entries, ring, 12 * ENTRY));
	nprof_ntff_reader_close(r);

	/* A raw format without its device entry size describes nothing. */
	in.device.raw_entry_size = 0;
	CHECK(write_raw(dir, "bad.ntff", &in, ring, 12) == -EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "raw format 1 without a raw entry size");
	free(ring);
	rm_rf(dir);
}

/*
 * Callers of library 1.0.0 know nothing of raw entries: a 1.0-sized struct
 * is accepted both ways, and what it lacks reads as not raw, clocks of
 * production.
 */
TEST(ntff_raw_fields_absent_in_old_structs)
{
	struct nprof_ntff_info in = sample_info, out;
	struct neuronprof_notification *ring;
	struct nprof_ntff_reader *r;

	/* Whatever lies past a 1.0.0 caller's struct is not read. */
	in.size = NPROF_NTFF_INFO_SIZE_V1;
	in.device.raw_format = NEURONPROF_RAW_FORMAT_NEURON_V3;
	in.device.clock_domain = NEURONPROF_CLOCK_CAPTURED;
	r = open_raw_file("old.ntff", &in, 4, &ring);
	if (!r)
		return;
	CHECK_INT(nprof_ntff_reader_header(r)->version_major, 1);
	memset(&out, 0xa5, sizeof(out));
	out.size = NPROF_NTFF_INFO_SIZE_V1;
	CHECK_INT(nprof_ntff_reader_info(r, &out), 0);
	CHECK_INT(out.device.num_cores, 2);
	/* Nothing written past the caller's size. */
	CHECK_INT(out.device.clock_domain, 0xa5a5a5a5u);
	out.size = sizeof(out);
	CHECK_INT(nprof_ntff_reader_info(r, &out), 0);
	CHECK_INT(out.device.raw_format, NEURONPROF_RAW_FORMAT_NONE);
	CHECK_INT(out.device.clock_domain, NEURONPROF_CLOCK_PRODUCED);
	out.size = NPROF_NTFF_INFO_SIZE_V1 - 1;
	CHECK_INT(nprof_ntff_reader_info(r, &out), -EINVAL);
	nprof_ntff_reader_close(r);
	free(ring);
	rm_rf(dir);
}

static void edit_drop_raw(Neuronprof__Ntff__NtffInfo *m)
{
	m->device->has_clock_domain = m->device->has_raw_format = 0;
	m->device->has_raw_entry_size = 0;
}

static void edit_raw_in_v1(Neuronprof__Ntff__NtffInfo *m)
{
	m->device->raw_format = NEURONPROF_RAW_FORMAT_NEURON_V2;
	m->device->raw_entry_size = 64;
}

/*
 * A 1.0 file, whose device_info has no raw fields, reads as not raw with
 * clocks of production; a major-1 file that says raw is refused (its
 * writer broke the rule that keeps major-1 readers from decoding raw bytes).
 */
TEST(ntff_old_files_read_as_not_raw)
{
	struct nprof_ntff_info out = { .size = sizeof(out) };
	struct nprof_ntff_reader *r;
	unsigned char *b;
	struct sample s;
	size_t len;

	CHECK_INT(load_sample(&s), 0);
	if (!s.buf)
		return;
	b = with_metadata(&s, edit_drop_raw, &len);
	CHECK(b != NULL);
	put16(b, 10, 0);
	reseal(b);
	r = b ? nprof_ntff_reader_open_mem(b, len, NPROF_NTFF_READ_VERIFY_AT_OPEN) : NULL;
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(nprof_ntff_reader_header(r)->version_minor, 0);
		out.device.raw_format = out.device.clock_domain = out.device.raw_entry_size = 7;
		CHECK_INT(nprof_ntff_reader_info(r, &out), 0);
		CHECK_INT(out.device.raw_format, NEURONPROF_RAW_FORMAT_NONE);
		CHECK_INT(out.device.raw_entry_size, 0);
		CHECK_INT(out.device.clock_domain, NEURONPROF_CLOCK_PRODUCED);
		CHECK_INT(out.device.num_cores, 2);
	}
	nprof_ntff_reader_close(r);
	free(b);
	b = with_metadata(&s, edit_raw_in_v1, &len);
	CHECK(b != NULL);
	if (b)
		expect_reject(b, len, EBADMSG, "major version 1 with raw format 1");
	free(b);
	free(s.buf);
}

/* ---- code names (NTFF 1.2) ---------------------------------------------- */

static const struct nprof_ntff_code_name sample_names[] = {
	{ NEURONPROF_QT_TRACE, 0x100, "matmult" },
	{ NEURONPROF_QT_TRACE, 0x101, "matmult" },
	{ NEURONPROF_QT_TRACE, 0x203, "tensor_tensor" },
	{ NEURONPROF_QT_DMA, 5, "dma_copy" },
	{ NEURONPROF_QT_TOPSP_TRACE, 0x7f01, "collective.v2" },
};

/* The sample file with sample_names, written as write_sample() does. */
static int load_named_sample(struct sample *s)
{
	struct nprof_ntff_info in = sample_info;
	struct neuronprof_notification *ring;
	char path[PATH_MAX];
	int ret;

	s->buf = NULL;
	in.code_names = sample_names;
	in.num_code_names = 5;
	ring = make_ring(8, NEURONPROF_QT_TRACE, 0);
	if (!ring || !fresh_dir()) {
		free(ring);
		return -ENOMEM;
	}
	ret = write_raw(dir, "named.ntff", &in, ring, 8);
	free(ring);
	snprintf(path, sizeof(path), "%s/named.ntff", dir);
	if (!ret) {
		s->buf = read_whole(path, &s->len);
		ret = s->buf ? 0 : -EIO;
	}
	rm_rf(dir);
	return ret;
}

/* The names a file holds come back as written, in order, strings included. */
TEST(ntff_code_names_round_trip)
{
	struct nprof_ntff_info out = { .size = sizeof(out) };
	struct nprof_ntff_reader *r;
	struct sample s;
	size_t i;

	CHECK_INT(load_named_sample(&s), 0);
	if (!s.buf)
		return;
	r = nprof_ntff_reader_open_mem(s.buf, s.len, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(nprof_ntff_reader_header(r)->version_minor, 4);
		CHECK_INT(nprof_ntff_reader_info(r, &out), 0);
		CHECK_INT(out.num_code_names, 5);
		for (i = 0; out.code_names && i < 5 && i < out.num_code_names; i++) {
			CHECK_INT(out.code_names[i].queue_type, sample_names[i].queue_type);
			CHECK_INT(out.code_names[i].code, sample_names[i].code);
			CHECK_STR(out.code_names[i].name, sample_names[i].name);
		}
		CHECK_STR(out.model_name, "resnet50");
		/* A library 1.1.0 caller's struct ends before the names: not written. */
		memset(&out, 0xa5, sizeof(out));
		out.size = NPROF_NTFF_INFO_SIZE_V2;
		CHECK_INT(nprof_ntff_reader_info(r, &out), 0);
		CHECK_INT(out.num_code_names, (size_t)0xa5a5a5a5a5a5a5a5ull);
		CHECK_INT(out.device.num_cores, 2);
	}
	nprof_ntff_reader_close(r);
	free(s.buf);
}

/* The writer takes names as the device gives them, and nothing else. */
TEST(ntff_code_names_writer_rules)
{
	struct nprof_ntff_code_name names[5];
	struct nprof_ntff_info in = sample_info;
	struct neuronprof_notification *ring = make_ring(4, NEURONPROF_QT_TRACE, 0);
	static const struct {
		size_t at;
		struct nprof_ntff_code_name c;
		const char *msg;
	} bad[] = {
		{ 1, { NEURONPROF_QT_TRACE, 0x100, "matmult" }, "not sorted" },
		{ 2, { NEURONPROF_QT_TOPSP_TRACE, 0, "collective" }, "not sorted" },
		{ 0, { NEURONPROF_QT_TRACE, 0x100, "" }, "1 to 23 characters" },
		{ 0, { NEURONPROF_QT_TRACE, 0x100, NULL }, "1 to 23 characters" },
		{ 0, { NEURONPROF_QT_TRACE, 0x100, "MatMult" }, "1 to 23 characters" },
		{ 0, { NEURONPROF_QT_TRACE, 0x100, "a,b" }, "1 to 23 characters" },
		{ 0, { NEURONPROF_QT_TRACE, 0x100, "abcdefghijklmnopqrstuvwx" }, "1 to 23 characters" },
	};
	size_t i;

	if (!ring || !fresh_dir()) {
		FAIL("calloc or mkdtemp");
		free(ring);
		return;
	}
	in.code_names = names;
	in.num_code_names = 5;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(names, sample_names, sizeof(names));
		names[bad[i].at] = bad[i].c;
		CHECK_INT(write_raw(dir, "bad.ntff", &in, ring, 4), -EINVAL);
		CHECK_CONTAINS(nprof_strerror_last(), bad[i].msg);
	}
	/* The longest name is fine. */
	memcpy(names, sample_names, sizeof(names));
	names[0].name = "abcdefghijklmnopqrstu.9";
	CHECK_INT(write_raw(dir, "long.ntff", &in, ring, 4), 0);
	/* A count without names, and names of a raw device. */
	in.code_names = NULL;
	CHECK_INT(write_raw(dir, "bad.ntff", &in, ring, 4), -EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "without the names");
	in.code_names = sample_names;
	in.device.raw_format = NEURONPROF_RAW_FORMAT_NEURON_V2;
	in.device.raw_entry_size = 64;
	CHECK_INT(write_raw(dir, "bad.ntff", &in, ring, 4), -EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "raw device names nothing");
	/* A library 1.1.0 caller's struct ends before the names: none written. */
	in = sample_info;
	in.size = NPROF_NTFF_INFO_SIZE_V2;
	CHECK_INT(write_raw(dir, "v2.ntff", &in, ring, 4), 0);
	free(ring);
	rm_rf(dir);
}

static void edit_names_unsorted(Neuronprof__Ntff__NtffInfo *m)
{
	m->device->code_names[2]->code = 0x100;
}

static void edit_name_bad(Neuronprof__Ntff__NtffInfo *m)
{
	m->device->code_names[1]->name[0] = '"';
}

static void edit_name_missing(Neuronprof__Ntff__NtffInfo *m)
{
	m->device->code_names[4]->has_code = 0;
}

static void edit_names_raw(Neuronprof__Ntff__NtffInfo *m)
{
	m->device->raw_format = NEURONPROF_RAW_FORMAT_NEURON_V2;
}

static void edit_drop_names(Neuronprof__Ntff__NtffInfo *m)
{
	/* Freed here: the message frees its array, not elements past the count. */
	for (size_t i = 0; i < m->device->n_code_names; i++)
		neuronprof__ntff__code_name__free_unpacked(m->device->code_names[i], NULL);
	m->device->n_code_names = 0;
}

/*
 * A file's names reach every output of the tool: the reader checks them as
 * the writer does. A file of NTFF 1.1 (no names) reads as naming nothing.
 */
TEST(ntff_code_names_reader_checks)
{
	struct nprof_ntff_info out = { .size = sizeof(out) };
	struct nprof_ntff_reader *r;
	unsigned char *b;
	struct sample s;
	size_t len;

	CHECK_INT(load_named_sample(&s), 0);
	if (!s.buf)
		return;
	b = with_metadata(&s, edit_names_unsorted, &len);
	if (b)
		expect_reject(b, len, EBADMSG, "not sorted by (queue_type, code) or a pair twice (code name 2 of 5)");
	free(b);
	b = with_metadata(&s, edit_name_bad, &len);
	if (b)
		expect_reject(b, len, EBADMSG, "1 to 23 characters of [a-z0-9_.] (code name 1 of 5)");
	free(b);
	b = with_metadata(&s, edit_name_missing, &len);
	if (b)
		expect_reject(b, len, EBADMSG, "code name 4 lacks its queue type, code or name");
	free(b);
	/* Names in a raw file (major 2, so that only the names are wrong). */
	b = with_metadata(&s, edit_names_raw, &len);
	if (b) {
		put16(b, 8, NPROF_NTFF_VERSION_MAJOR_RAW);
		reseal(b);
		expect_reject(b, len, EBADMSG, "raw device names nothing");
	}
	free(b);
	/* An NTFF 1.1 file: minor 1, no names. */
	b = with_metadata(&s, edit_drop_names, &len);
	CHECK(b != NULL);
	if (b) {
		put16(b, 10, 1);
		reseal(b);
	}
	r = b ? nprof_ntff_reader_open_mem(b, len, NPROF_NTFF_READ_VERIFY_AT_OPEN) : NULL;
	CHECK(r != NULL);
	if (r) {
		out.num_code_names = 9;
		CHECK_INT(nprof_ntff_reader_info(r, &out), 0);
		CHECK_INT(out.num_code_names, 0);
		CHECK(out.code_names == NULL);
		CHECK_STR(out.model_name, "resnet50");
	}
	nprof_ntff_reader_close(r);
	free(b);
	free(s.buf);
}

/* Any protobuf decoder sees the names with proto/ntff.proto. */
TEST(ntff_code_names_decode_with_protoc)
{
	char meta[PATH_MAX], cmd[3 * PATH_MAX], line[512];
	struct nprof_ntff_reader *r;
	struct sample s;
	const void *m;
	size_t mlen;
	FILE *p;
	int names = 0, matmult = 0, topsp = 0;

	if (system("protoc --version > /dev/null 2>&1"))
		SKIP("protoc is not installed");
	CHECK_INT(load_named_sample(&s), 0);
	if (!s.buf || !fresh_dir()) {
		free(s.buf);
		return;
	}
	r = nprof_ntff_reader_open_mem(s.buf, s.len, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (r) {
		m = nprof_ntff_reader_metadata(r, &mlen);
		snprintf(meta, sizeof(meta), "%s/meta.bin", dir);
		CHECK(!write_whole(meta, m, mlen));
		nprof_ntff_reader_close(r);
		snprintf(cmd, sizeof(cmd),
			 "protoc --decode=neuronprof.ntff.ntff_info -I'%s' '%s/ntff.proto' < '%s' 2>&1",
			 PROTO_DIR, PROTO_DIR, meta);
		p = popen(cmd, "r");
		CHECK(p != NULL);
		while (p && fgets(line, sizeof(line), p)) {
			names += !strcmp(line, "  code_names {\n");
			matmult += !strcmp(line, "    name: \"matmult\"\n");
			topsp += !strcmp(line, "    code: 32513\n");
		}
		CHECK(p && pclose(p) == 0);
	}
	CHECK_INT(names, 5);
	CHECK_INT(matmult, 2);
	CHECK_INT(topsp, 1);
	rm_rf(dir);
	free(s.buf);
}

TEST(ntff_metadata_decodes_with_protoc)
{
	char path[PATH_MAX], meta[PATH_MAX], cmd[3 * PATH_MAX], line[512];
	struct nprof_ntff_reader *r;
	const void *m;
	size_t mlen;
	FILE *p;
	int traces = 0, saw_model = 0, saw_instr = 0, saw_topsp = 0, saw_lost = 0, saw_seq = 0;

	if (system("protoc --version > /dev/null 2>&1"))
		SKIP("protoc is not installed");
	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	CHECK_INT(write_sample(dir, "p.ntff", path, sizeof(path)), 0);
	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (!r) {
		rm_rf(dir);
		return;
	}
	m = nprof_ntff_reader_metadata(r, &mlen);
	snprintf(meta, sizeof(meta), "%s/meta.bin", dir);
	CHECK(!write_whole(meta, m, mlen));
	nprof_ntff_reader_close(r);

	snprintf(cmd, sizeof(cmd),
		 "protoc --decode=neuronprof.ntff.ntff_info -I'%s' '%s/ntff.proto' < '%s' 2>&1",
		 PROTO_DIR, PROTO_DIR, meta);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	while (p && fgets(line, sizeof(line), p)) {
		traces += !strcmp(line, "trace {\n");
		saw_model += !strcmp(line, "model_name: \"resnet50\"\n");
		saw_instr += !strcmp(line, "  trace_type: NTT_INSTRUCTION\n");
		saw_topsp += !strcmp(line, "  block_type: BLOCK_TOPSP\n");
		saw_lost += !strcmp(line, "  lost_count: 5\n");
		saw_seq += !strcmp(line, "  last_seq: 1043\n");
	}
	CHECK(p && pclose(p) == 0);
	CHECK_INT(traces, 3);
	CHECK_INT(saw_model, 1);
	CHECK_INT(saw_instr, 1);
	CHECK_INT(saw_topsp, 1);
	CHECK_INT(saw_lost, 1);
	CHECK_INT(saw_seq, 1);
	rm_rf(dir);
}

HARNESS_MAIN
