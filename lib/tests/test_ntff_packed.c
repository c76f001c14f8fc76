// SPDX-License-Identifier: MIT
/*
 * NTFF files of packed raw records (NTFF 3.x, uapi NEURONPROF_RAW_PACKED):
 * the writer takes each append as whole records and records the first and
 * last sequence number of the parts they hold (not the bytes 8..15 of the
 * first and last 64-byte entries, which in a packed record are device
 * bytes); the reader checks the same at open, refuses what is not whole
 * records, and the major version keeps readers of 2.x from misreading.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>

#include "harness.h"
#include "util/internal.h"
#include "ntff/ntff_internal.h"
#include "ntff_test_util.h"

/*
 * Write a record of @n device entries of @es bytes from index @index at
 * @seq into @e (the byte j of entry i is (i * 7 + j) & 0xff, so that bytes
 * 8..15 of a data entry never look like a seq the test expects); returns
 * the ring entries it took.
 */
static size_t put_record(struct neuronprof_notification *e, uint64_t seq, uint64_t index,
			 uint32_t n, uint32_t es)
{
	unsigned char *b = (unsigned char *)(e + 1);
	uint32_t bytes = n * es;

	memset(e, 0, NEURONPROF_RAW_PACKED_SLOTS(bytes) * ENTRY);
	e->timestamp_ns = 5000 + seq;
	e->seq = seq;
	e->queue_type = NEURONPROF_QT_TRACE;
	e->code = NEURONPROF_RAW_PACKED;
	e->model_id = NEURONPROF_RAW_FORMAT_NEURON_V2;
	e->iteration = (uint32_t)index;
	e->payload[0] = index;
	e->payload[1] = NEURONPROF_RAW_PACKED_INFO(bytes, es);
	for (uint32_t i = 0; i < bytes; i++)
		b[i] = (unsigned char)((index + i / es) * 7 + i % es);
	return NEURONPROF_RAW_PACKED_SLOTS(bytes);
}

static size_t put_filler(struct neuronprof_notification *e, uint64_t seq)
{
	memset(e, 0, ENTRY);
	e->seq = seq;
	e->code = NEURONPROF_RAW_PACKED;
	e->model_id = NEURONPROF_RAW_FORMAT_NEURON_V2;
	return 1;
}

/*
 * What a case writes: a ring of entries to fill with records, the TRACE
 * queue they are appended to and the file's description (packed).
 */
struct packed_case {
	struct neuronprof_notification *ring;
	struct nprof_ntff_queue_desc q;
	struct nprof_ntff_info info;
};

/*
 * @c with a ring of @n entries, in a fresh scratch directory; false (the
 * case failed) without them.
 */
static bool packed_setup(struct packed_case *c, size_t n)
{
	c->ring = calloc(n, ENTRY);
	c->q = (struct nprof_ntff_queue_desc){
		.size = sizeof(c->q), .queue_type = NEURONPROF_QT_TRACE,
		.target_kind = NEURONPROF_TARGET_CORE, .entry_size = ENTRY,
	};
	c->info = raw_sample_info(true);
	if (!c->ring || !fresh_dir()) {
		FAIL("setup");
		free(c->ring);
		return false;
	}
	return true;
}

/* Undo packed_setup() of @c, @path (if any) removed. */
static void packed_teardown(struct packed_case *c, const char *path)
{
	free(c->ring);
	if (path && path[0])
		unlink(path);
	rmdir(dir);
}

/*
 * A ring of 64 entries as a capture sees it: records at 0 (10 entries of
 * 64 bytes, seq 0..19) and 11 (30 entries, seq 20..79), then a drain; a
 * record at 42 (20 entries, seq 80..119), a filler at 63 and a record at 0
 * of the wrapped ring (5 entries after 4 lost ones, seq 128..137) in a
 * second drain of two spans.
 */
TEST(packed_round_trip)
{
	struct neuronprof_notification *ring, *wrap = calloc(64, ENTRY);
	struct packed_case c;
	char path[PATH_MAX] = "";
	const struct nprof_ntff_header *h;
	struct nprof_ntff_queue rec = { .size = sizeof(rec) };
	struct nprof_ntff_info in = { .size = sizeof(in) };
	struct nprof_ntff_reader *r;
	struct nprof_ntff_writer *w;
	size_t at = 0, at2;

	if (!packed_setup(&c, 64)) {
		free(wrap);
		return;
	}
	ring = c.ring;
	if (!wrap) {
		FAIL("setup");
		goto out;
	}
	at += put_record(ring + at, 0, 0, 10, 64);
	at += put_record(ring + at, 20, 10, 30, 64);
	CHECK_INT(at, 42);
	at2 = at;
	at2 += put_record(ring + at2, 80, 40, 20, 64);
	at2 += put_filler(ring + at2, 120);
	CHECK_INT(at2, 64);
	CHECK_INT(put_record(wrap, 128, 64, 5, 64), 6);

	w = new_writer(dir, "p.ntff");
	if (!w)
		goto out;
	CHECK_INT(nprof_ntff_writer_set_info(w, &c.info), 0);
	/* A page boundary may fall inside a record: a packed writer never cuts there. */
	CHECK_INT(nprof_ntff_writer_page_cut(w, 64 * ENTRY, ENTRY), 0);
	CHECK_INT(nprof_ntff_writer_append(w, &c.q, ring, 42 * ENTRY, NULL, 0), 0);
	CHECK_INT(nprof_ntff_writer_append(w, &c.q, ring + 42, 22 * ENTRY, wrap, 6 * ENTRY), 0);
	CHECK_INT(nprof_ntff_writer_finalize(w), 0);

	snprintf(path, sizeof(path), "%s/p.ntff", dir);
	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (!r) {
		printf("# %s\n", nprof_err_current());
		goto out;
	}
	h = nprof_ntff_reader_header(r);
	CHECK_INT(h->version_major, NPROF_NTFF_VERSION_MAJOR_PACKED);
	CHECK_INT(h->version_minor, NPROF_NTFF_VERSION_MINOR);
	CHECK_INT(nprof_ntff_reader_info(r, &in), 0);
	CHECK_INT(in.device.raw_packed, 1);
	CHECK_INT(in.device.raw_format, NEURONPROF_RAW_FORMAT_NEURON_V2);
	CHECK_INT(nprof_ntff_reader_queue_count(r), 1);
	CHECK_INT(nprof_ntff_reader_queue(r, 0, &rec), 0);
	/* The seqs of the parts, from the headers; not the data entries' bytes 8..15. */
	CHECK_INT(rec.first_seq, 0);
	CHECK_INT(rec.last_seq, 137);
	CHECK_INT(rec.entry_count, 70);
	CHECK_INT(rec.data_length, 70 * ENTRY);
	nprof_ntff_reader_close(r);
	/* The default one-pass mode reads it too. */
	r = nprof_ntff_reader_open(path, 0);
	CHECK(r != NULL);
	nprof_ntff_reader_close(r);
out:
	free(wrap);
	packed_teardown(&c, path);
}

/* An append must be whole packed records, their seqs going forward. */
TEST(packed_append_refuses_what_is_not_records)
{
	struct packed_case c;
	struct nprof_ntff_writer *w;
	size_t n;

	if (!packed_setup(&c, 64))
		return;
	n = put_record(c.ring, 0, 0, 10, 64);
	put_record(c.ring + n, 0, 10, 4, 64);
	w = new_writer(dir, "x.ntff");
	if (!w)
		goto out;
	CHECK_INT(nprof_ntff_writer_set_info(w, &c.info), 0);
	/* Cut inside the first record. */
	CHECK_INT(nprof_ntff_writer_append(w, &c.q, c.ring, 5 * ENTRY, NULL, 0), -EINVAL);
	CHECK(strstr(nprof_err_current(), "runs past the end") != NULL);
	/* The second record's seq goes back. */
	CHECK_INT(nprof_ntff_writer_append(w, &c.q, c.ring, (n + 5) * ENTRY, NULL, 0), -EINVAL);
	CHECK(strstr(nprof_err_current(), "goes back") != NULL);
	/* Not a packed header at all. */
	c.ring[0].code = NEURONPROF_RAW_CODE(32, 0, 2);
	CHECK_INT(nprof_ntff_writer_append(w, &c.q, c.ring, n * ENTRY, NULL, 0), -EINVAL);
	CHECK(strstr(nprof_err_current(), "another code") != NULL);
	c.ring[0].code = NEURONPROF_RAW_PACKED;
	/* Device entries of a size that is not one. */
	c.ring[0].payload[1] = NEURONPROF_RAW_PACKED_INFO(640, 40);
	CHECK_INT(nprof_ntff_writer_append(w, &c.q, c.ring, n * ENTRY, NULL, 0), -EINVAL);
	c.ring[0].payload[1] = NEURONPROF_RAW_PACKED_INFO(640, 64);
	/* Entries of another size than the ring's 64 bytes. */
	c.q.entry_size = 128;
	CHECK_INT(nprof_ntff_writer_append(w, &c.q, c.ring, 12 * 64, NULL, 0), -EINVAL);
	c.q.entry_size = ENTRY;
	/* Whole records go in. */
	CHECK_INT(nprof_ntff_writer_append(w, &c.q, c.ring, n * ENTRY, NULL, 0), 0);
	nprof_ntff_writer_abort(w);
out:
	packed_teardown(&c, NULL);
}

/* Packed or not is said before anything is appended, and only of raw entries. */
TEST(packed_declared_before_appends)
{
	struct packed_case c;
	struct nprof_ntff_info info;
	struct nprof_ntff_writer *w;

	if (!packed_setup(&c, 16))
		return;
	info = c.info;
	info.device.raw_format = NEURONPROF_RAW_FORMAT_NONE;
	info.device.raw_entry_size = 0;
	w = new_writer(dir, "y.ntff");
	if (!w)
		goto out;
	CHECK_INT(nprof_ntff_writer_set_info(w, &info), -EINVAL);
	info = c.info;
	info.device.raw_packed = 2;
	CHECK_INT(nprof_ntff_writer_set_info(w, &info), -EINVAL);
	/* Appended as raw entries (not packed), then declared packed: refused. */
	info.device.raw_packed = 0;
	CHECK_INT(nprof_ntff_writer_set_info(w, &info), 0);
	CHECK_INT(nprof_ntff_writer_append(w, &c.q, c.ring, 16 * ENTRY, NULL, 0), 0);
	CHECK_INT(nprof_ntff_writer_set_info(w, &c.info), -EINVAL);
	CHECK_INT(nprof_ntff_writer_set_raw_packed(w), -EINVAL);
	nprof_ntff_writer_abort(w);
	/* A pending writer learns it first and its info at the end. */
	w = new_writer(dir, "z.ntff");
	if (!w)
		goto out;
	CHECK_INT(nprof_ntff_writer_set_raw_packed(w), 0);
	put_record(c.ring, 0, 0, 3, 64);
	CHECK_INT(nprof_ntff_writer_append(w, &c.q, c.ring, 4 * ENTRY, NULL, 0), 0);
	CHECK_INT(nprof_ntff_writer_set_info(w, &info), -EINVAL);	/* raw_packed 0 */
	CHECK_INT(nprof_ntff_writer_set_info(w, &c.info), 0);
	nprof_ntff_writer_abort(w);
out:
	packed_teardown(&c, NULL);
}

/*
 * The reader walks every header at open: a header that is not one is
 * refused (with the data checksums off, so that the walk is what finds it;
 * with them, the corrupt block is reported).
 */
TEST(packed_reader_refuses_a_bad_header)
{
	struct packed_case c;
	char path[PATH_MAX] = "";
	struct nprof_ntff_reader *r;
	struct nprof_ntff_writer *w;
	unsigned char *buf = NULL;
	size_t n, len = 0, off;

	if (!packed_setup(&c, 32))
		return;
	n = put_record(c.ring, 0, 0, 10, 64);
	n += put_record(c.ring + n, 20, 10, 10, 64);
	w = new_writer(dir, "b.ntff");
	if (!w)
		goto out;
	CHECK_INT(nprof_ntff_writer_set_info(w, &c.info), 0);
	CHECK_INT(nprof_ntff_writer_append(w, &c.q, c.ring, n * ENTRY, NULL, 0), 0);
	CHECK_INT(nprof_ntff_writer_finalize(w), 0);
	snprintf(path, sizeof(path), "%s/b.ntff", dir);
	buf = read_whole(path, &len);
	CHECK(buf != NULL && len > NPROF_NTFF_HEADER_SIZE + n * ENTRY);
	if (!buf)
		goto out;
	r = nprof_ntff_reader_open_mem(buf, len, NPROF_NTFF_READ_NO_DATA_CSUM);
	CHECK(r != NULL);
	nprof_ntff_reader_close(r);
	/* The second header's byte count: its record now runs past the end. */
	off = NPROF_NTFF_HEADER_SIZE + 11 * ENTRY + offsetof(struct neuronprof_notification, payload[1]);
	buf[off + 1] ^= 0x40;
	errno = 0;
	r = nprof_ntff_reader_open_mem(buf, len, NPROF_NTFF_READ_NO_DATA_CSUM);
	CHECK(r == NULL && errno == EBADMSG);
	CHECK(strstr(nprof_err_current(), "runs past the end") != NULL);
	nprof_ntff_reader_close(r);
	/* With the checksums, the block is the diagnosis. */
	r = nprof_ntff_reader_open_mem(buf, len, 0);
	CHECK(r == NULL && errno == EBADMSG);
	CHECK(strstr(nprof_err_current(), "checksum") != NULL);
	nprof_ntff_reader_close(r);
out:
	free(buf);
	packed_teardown(&c, path);
}

HARNESS_MAIN
