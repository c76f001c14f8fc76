// SPDX-License-Identifier: MIT
/*
 * Host tests of the NTFF data blocks: round trips with wrapped spans and many
 * blocks, the default size, the commit retried after a failed trailer, the
 * writer's rules, bad layouts rejected and bit flips found at open and, in
 * the one-pass mode, at the chunk holding them.
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
	return load_written(s, write_blocks_sample, "b.ntff");
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
	file = ntff_test_read_whole(path, &flen);
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

	w = fresh_writer("d.ntff");
	if (!w)
		return;
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

	w = fresh_writer("w.ntff");
	if (!w)
		return;
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
	ntff_test_reseal(out);
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
	ntff_test_reseal(b);
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
		big.buf = ntff_test_read_whole(path, &big.len);
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
	ntff_test_reseal(b);
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

HARNESS_MAIN
