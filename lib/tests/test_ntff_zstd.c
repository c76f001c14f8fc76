// SPDX-License-Identifier: MIT
/*
 * Host tests of compressed NTFF files (major 4, zstd blocks): the same
 * appends written with and without compression read identically in every
 * reader mode (metadata, records, entries); blocks that do not compress
 * are stored as is; a damaged stored block, frame or table is refused
 * naming the block and the file's bytes; a reader of majors 1 to 3 cannot
 * mistake the file for one of its own; a pending (streaming) writer
 * survives a failed append; the inspect configuration's level and its
 * environment variable.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>

#include "harness.h"
#include "util/internal.h"
#include "ntff/ntff_internal.h"
#include "ntff_test_util.h"

#define BS	4096u		/* small blocks: many of them */

/* xorshift64*: bytes no compressor shrinks. */
static unsigned char noise_byte(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return (unsigned char)((*x * 2685821657736338717ULL) >> 56);
}

/* Entries of @es bytes, seq from @seq; @noise: all but timestamp and seq random. */
static unsigned char *entries(size_t n, size_t es, uint64_t seq, bool noise, uint64_t *rnd)
{
	unsigned char *p = calloc(n, es);
	size_t i, k;

	for (i = 0; p && i < n; i++) {
		unsigned char *e = p + i * es;
		uint64_t ts = htole64(5000 + 37 * (seq + i)), s = htole64(seq + i);

		memcpy(e, &ts, 8);
		memcpy(e + 8, &s, 8);
		for (k = 16; k < es; k++)
			e[k] = noise ? noise_byte(rnd) : (unsigned char)((i * 7 + k) % 11);
	}
	return p;
}

static void desc(struct nprof_ntff_queue_desc *q, uint32_t qt, uint32_t es, uint64_t lost)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->queue_type = qt;
	q->target_kind = NEURONPROF_TARGET_CORE;
	q->target_index = 1;
	q->engine = qt == NEURONPROF_QT_ERROR ? 0 : 2;
	q->entry_size = es;
	q->lost_count = lost;
}

/*
 * The same appends into @w: a TRACE queue of 64-byte entries drained three
 * times, the last drain a wrapped ring (two spans), interleaved with an
 * EVENT queue of 24-byte entries (which straddle blocks), a DMA queue of
 * 2048-byte random entries (blocks that do not compress) and an empty
 * ERROR queue with losses. Return: 0 or the failing append's error.
 */
static int appends(struct nprof_ntff_writer *w)
{
	struct nprof_ntff_queue_desc q;
	uint64_t rnd = 0x9e3779b97f4a7c15ULL;
	unsigned char *a, *b, *c;
	int ret = 0;

	a = entries(3000, 64, 100, false, &rnd);
	b = entries(2000, 24, 9000, false, &rnd);
	c = entries(25, 2048, 40, true, &rnd);
	if (!a || !b || !c) {
		ret = -ENOMEM;
		goto out;
	}
	desc(&q, NEURONPROF_QT_TRACE, 64, 0);
	ret = nprof_ntff_writer_append(w, &q, a, 1000 * 64, NULL, 0);
	desc(&q, NEURONPROF_QT_EVENT, 24, 3);
	if (ret >= 0)
		ret = nprof_ntff_writer_append(w, &q, b, 1111 * 24, NULL, 0);
	desc(&q, NEURONPROF_QT_TRACE, 64, 0);
	if (ret >= 0)
		ret = nprof_ntff_writer_append(w, &q, a + 1000 * 64, 900 * 64, NULL, 0);
	desc(&q, NEURONPROF_QT_DMA, 2048, 0);
	if (ret >= 0)
		ret = nprof_ntff_writer_append(w, &q, c, 25 * 2048, NULL, 0);
	desc(&q, NEURONPROF_QT_ERROR, 64, 5);
	q.ring_flags = NEURONPROF_RING_OVERFLOWED;
	if (ret >= 0)
		ret = nprof_ntff_writer_append(w, &q, NULL, 0, NULL, 0);
	desc(&q, NEURONPROF_QT_EVENT, 24, 0);
	if (ret >= 0)
		ret = nprof_ntff_writer_append(w, &q, b + 1111 * 24, 889 * 24, NULL, 0);
	desc(&q, NEURONPROF_QT_TRACE, 64, 2);
	/* A wrapped ring: the later entries first in memory. */
	if (ret >= 0)
		ret = nprof_ntff_writer_append(w, &q, a + 1900 * 64, 700 * 64, a + 2600 * 64, 400 * 64);
out:
	free(a);
	free(b);
	free(c);
	return ret < 0 ? ret : 0;
}

static int write_file(const char *name, int level, char *path, size_t plen)
{
	struct nprof_ntff_writer *w = nprof_ntff_writer_create(dir, name, 0);
	int ret;

	if (!w)
		return -errno;
	snprintf(path, plen, "%s/%s", dir, name);
	if (nprof_ntff_writer_set_block_size(w, BS) || nprof_ntff_writer_set_info(w, &sample_info) ||
	    nprof_ntff_writer_set_compression(w, level)) {
		nprof_ntff_writer_abort(w);
		return -EINVAL;
	}
	ret = appends(w);
	if (ret) {
		nprof_ntff_writer_abort(w);
		return ret;
	}
	return nprof_ntff_writer_finalize(w);
}

/* Every entry of record @i, through the chunk iterator, in a new buffer. */
static unsigned char *chunks(struct nprof_ntff_reader *r, size_t i, size_t len, int *err)
{
	struct nprof_ntff_chunk_iter it;
	unsigned char *out = malloc(len ? len : 1);
	const void *p;
	size_t at = 0;
	int n;

	*err = 0;
	if (!out || nprof_ntff_chunk_iter_init(&it, r, i)) {
		free(out);
		*err = -EINVAL;
		return NULL;
	}
	while ((n = nprof_ntff_chunk_iter_next(&it, &p)) > 0) {
		size_t bytes = (size_t)n * it.entry_size;

		if (at + bytes > len) {
			*err = -ERANGE;
			break;
		}
		memcpy(out + at, p, bytes);
		at += bytes;
	}
	if (n < 0)
		*err = n;
	else if (!*err && at != len)
		*err = -ERANGE;
	return out;
}

/* @z reads as @plain in mode @flags: metadata, every record, every entry. */
static void same_reading(const char *plain, const char *z, unsigned int flags)
{
	struct nprof_ntff_reader *p = nprof_ntff_reader_open(plain, flags);
	struct nprof_ntff_reader *c = nprof_ntff_reader_open(z, flags);
	const void *pm, *cm;
	size_t plen, clen, i;
	int n;

	CHECK(p != NULL);
	CHECK(c != NULL);
	if (!p || !c) {
		printf("#   mode 0x%x: %s\n", flags, nprof_strerror_last());
		goto out;
	}
	pm = nprof_ntff_reader_metadata(p, &plen);
	cm = nprof_ntff_reader_metadata(c, &clen);
	/* The records' offsets count decompressed bytes: the metadata is the same. */
	CHECK(plen == clen && !memcmp(pm, cm, plen));
	n = nprof_ntff_reader_queue_count(p);
	CHECK_INT(nprof_ntff_reader_queue_count(c), n);
	CHECK_INT(n, 7);
	for (i = 0; n > 0 && i < (size_t)n; i++) {
		struct nprof_ntff_queue pq = { .size = sizeof(pq) }, cq = { .size = sizeof(cq) };
		unsigned char *pe, *ce;
		int perr, cerr;

		CHECK_INT(nprof_ntff_reader_queue(p, i, &pq), 0);
		CHECK_INT(nprof_ntff_reader_queue(c, i, &cq), 0);
		CHECK((pq.entries == NULL) == (cq.entries == NULL));
		if (pq.entries && cq.entries)
			CHECK(!memcmp(pq.entries, cq.entries, pq.data_length));
		pq.entries = cq.entries = NULL;
		CHECK(!memcmp(&pq, &cq, sizeof(pq)));
		pe = chunks(p, i, pq.data_length, &perr);
		ce = chunks(c, i, cq.data_length, &cerr);
		CHECK_INT(perr, 0);
		CHECK_INT(cerr, 0);
		CHECK(pe && ce && !memcmp(pe, ce, pq.data_length));
		free(pe);
		free(ce);
	}
out:
	nprof_ntff_reader_close(p);
	nprof_ntff_reader_close(c);
}

static uint64_t reserved_size(const struct nprof_ntff_header *h)
{
	uint64_t v;

	memcpy(&v, h->reserved, 8);
	return le64toh(v);
}

/* Table entry @blk of a major-4 image. */
static void zentry(const unsigned char *buf, uint64_t blk, uint64_t *off, uint32_t *word)
{
	struct nprof_ntff_header h;
	const unsigned char *e;

	nprof_ntff_header_decode(buf, &h);
	e = buf + h.block_table_offset + blk * NPROF_NTFF_ZBLOCK_ENTRY_SIZE;
	memcpy(off, e, 8);
	memcpy(word, e + 8, 4);
	*off = le64toh(*off);
	*word = le32toh(*word);
}

TEST(ntff_zstd_reads_as_plain)
{
	struct nprof_ntff_reader *r;
	const struct nprof_ntff_header *h;
	char plain[PATH_MAX], z[PATH_MAX], z19[PATH_MAX];
	uint64_t blk, off, nz = 0, nas_is = 0;
	uint32_t word;
	unsigned char *buf;
	size_t len;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	CHECK_INT(write_file("p.ntff", 0, plain, sizeof(plain)), 0);
	CHECK_INT(write_file("z.ntff", 1, z, sizeof(z)), 0);
	CHECK_INT(write_file("z19.ntff", 19, z19, sizeof(z19)), 0);
	same_reading(plain, z, 0);
	same_reading(plain, z, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	same_reading(plain, z, NPROF_NTFF_READ_NO_DATA_CSUM);
	same_reading(plain, z19, 0);
	same_reading(plain, z19, NPROF_NTFF_READ_VERIFY_AT_OPEN);

	r = nprof_ntff_reader_open(plain, 0);
	CHECK(r != NULL);
	if (r) {
		h = nprof_ntff_reader_header(r);
		CHECK_INT(h->version_major, NPROF_NTFF_VERSION_MAJOR);
		len = h->data_length;
		nprof_ntff_reader_close(r);
	} else {
		len = 0;
	}
	r = nprof_ntff_reader_open(z, 0);
	CHECK(r != NULL);
	if (r) {
		h = nprof_ntff_reader_header(r);
		CHECK_INT(h->version_major, NPROF_NTFF_VERSION_MAJOR_ZSTD);
		CHECK_INT(reserved_size(h), len);
		CHECK_INT(h->block_size, BS);
		CHECK_INT(h->block_table_length, (len + BS - 1) / BS * NPROF_NTFF_ZBLOCK_ENTRY_SIZE);
		/* Stored smaller, and some blocks as is (the random DMA entries). */
		CHECK(h->data_length < len / 2);
		printf("#   %zu bytes of entries stored in %llu (level 1)\n", len,
		       (unsigned long long)h->data_length);
		nprof_ntff_reader_close(r);
	}
	buf = ntff_test_read_whole(z, &len);
	CHECK(buf != NULL);
	for (blk = 0; buf && blk < (reserved_size((const void *)buf) + BS - 1) / BS; blk++) {
		zentry(buf, blk, &off, &word);
		if (word & NPROF_NTFF_ZBLOCK_ZSTD)
			nz++;
		else
			nas_is++;
	}
	CHECK(nz > 0);
	CHECK(nas_is > 0);
	free(buf);
	rm_rf(dir);
}

/* The first zstd block of @buf: its number, stored offset (in the file) and length. */
static bool first_zblock(const unsigned char *buf, uint64_t *blk, uint64_t *at, uint32_t *slen)
{
	struct nprof_ntff_header h;
	uint64_t off, n;
	uint32_t word;

	nprof_ntff_header_decode(buf, &h);
	n = (reserved_size(&h) + h.block_size - 1) / h.block_size;
	for (*blk = 1; *blk < n; (*blk)++) {
		zentry(buf, *blk, &off, &word);
		if (word & NPROF_NTFF_ZBLOCK_ZSTD) {
			*at = h.data_offset + off;
			*slen = word & ~NPROF_NTFF_ZBLOCK_ZSTD;
			return true;
		}
	}
	return false;
}

/* The fixture of the damage cases: z.ntff, written at level 1 in a fresh scratch directory (dir). */
struct zfile {
	char path[PATH_MAX];
	unsigned char *buf;	/* its bytes */
	size_t len;
	uint64_t blk, at;	/* its first compressed block, stored at byte @at */
	uint32_t slen;		/* in @slen bytes */
};

static void z_close(struct zfile *f)
{
	free(f->buf);
	rm_rf(dir);
}

/* Make @f: false if the case failed (then nothing is left to close). */
static bool z_open(struct zfile *f)
{
	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return false;
	}
	CHECK_INT(write_file("z.ntff", 1, f->path, sizeof(f->path)), 0);
	f->buf = ntff_test_read_whole(f->path, &f->len);
	CHECK(f->buf != NULL);
	if (f->buf && !first_zblock(f->buf, &f->blk, &f->at, &f->slen))
		FAIL("no zstd block in the file");
	else if (f->buf)
		return true;
	z_close(f);
	return false;
}

/* Put the CRC32C of the stored bytes of @blk in its table entry and reseal. */
static void reseal_block(unsigned char *buf, uint64_t blk)
{
	struct nprof_ntff_header h;
	uint64_t off;
	uint32_t word, c;

	nprof_ntff_header_decode(buf, &h);
	zentry(buf, blk, &off, &word);
	c = htole32(nprof_crc32c_update(0, buf + h.data_offset + off, word & ~NPROF_NTFF_ZBLOCK_ZSTD));
	memcpy(buf + h.block_table_offset + blk * NPROF_NTFF_ZBLOCK_ENTRY_SIZE + 12, &c, 4);
	c = htole32(nprof_crc32c_update(0, buf + h.block_table_offset, h.block_table_length));
	memcpy(buf + offsetof(struct nprof_ntff_header, block_table_csum), &c, 4);
	ntff_test_reseal(buf);
}

TEST(ntff_zstd_damaged_block)
{
	struct nprof_ntff_reader *r;
	char msg[256];
	struct zfile f;
	size_t i;
	int err;

	if (!z_open(&f))
		return;
	/* One flipped bit of a stored frame: named like a plain block, with its place in the file. */
	f.buf[f.at + f.slen / 2] ^= 0x10;
	CHECK_INT(write_whole(f.path, f.buf, f.len), 0);
	snprintf(msg, sizeof(msg), " in block %llu (bytes %llu..%llu of the data region, stored zstd-compressed in bytes %llu..%llu of the file, queue record 0 (TRACE core 1 engine 2))",
		 (unsigned long long)f.blk, (unsigned long long)f.blk * BS,
		 (unsigned long long)(f.blk + 1) * BS - 1, (unsigned long long)f.at,
		 (unsigned long long)(f.at + f.slen - 1));
	r = nprof_ntff_reader_open(f.path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r == NULL && errno == EBADMSG);
	CHECK_CONTAINS(nprof_strerror_last(), f.path);
	CHECK_CONTAINS(nprof_strerror_last(), ": data checksum mismatch: stored 0x");
	CHECK_CONTAINS(nprof_strerror_last(), msg);
	nprof_ntff_reader_close(r);
	/* One pass: open succeeds; the iterator hands out the blocks before, then fails. */
	r = nprof_ntff_reader_open(f.path, 0);
	CHECK(r != NULL);
	if (r) {
		free(chunks(r, 0, 3000 * 64, &err));
		CHECK_INT(err, -EBADMSG);
		CHECK_CONTAINS(nprof_strerror_last(), msg);
		/* Records whose blocks are whole still read. */
		free(chunks(r, 3, 25 * 2048, &err));
		CHECK_INT(err, 0);
		nprof_ntff_reader_close(r);
	}

	/* A frame that fails to decode although its checksum matches. */
	f.buf[f.at + f.slen / 2] ^= 0x10;
	for (i = 0; i < 4; i++)
		f.buf[f.at + i] = 0xee;	/* not a zstd frame's magic */
	reseal_block(f.buf, f.blk);
	CHECK_INT(write_whole(f.path, f.buf, f.len), 0);
	snprintf(msg, sizeof(msg), "block %llu (bytes %llu..%llu of the data region, a zstd frame in bytes %llu..%llu of the file, queue record 0 (TRACE core 1 engine 2)) does not decompress to its %u bytes: ",
		 (unsigned long long)f.blk, (unsigned long long)f.blk * BS,
		 (unsigned long long)(f.blk + 1) * BS - 1, (unsigned long long)f.at,
		 (unsigned long long)(f.at + f.slen - 1), BS);
	r = nprof_ntff_reader_open(f.path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r == NULL && errno == EBADMSG);
	CHECK_CONTAINS(nprof_strerror_last(), msg);
	nprof_ntff_reader_close(r);
	r = nprof_ntff_reader_open(f.path, NPROF_NTFF_READ_NO_DATA_CSUM);
	CHECK(r == NULL && errno == EBADMSG);
	CHECK_CONTAINS(nprof_strerror_last(), msg);
	nprof_ntff_reader_close(r);
	z_close(&f);
}

/* Edit table entry @blk's offset or length word (resealing) and expect @msg at open. */
static void table_edit(const unsigned char *orig, size_t len, uint64_t blk, size_t field,
		       uint32_t delta, const char *msg)
{
	struct nprof_ntff_header h;
	unsigned char *b = malloc(len);
	uint32_t v, c;

	memcpy(b, orig, len);
	nprof_ntff_header_decode(b, &h);
	memcpy(&v, b + h.block_table_offset + blk * NPROF_NTFF_ZBLOCK_ENTRY_SIZE + field, 4);
	v = htole32(le32toh(v) + delta);
	memcpy(b + h.block_table_offset + blk * NPROF_NTFF_ZBLOCK_ENTRY_SIZE + field, &v, 4);
	c = htole32(nprof_crc32c_update(0, b + h.block_table_offset, h.block_table_length));
	memcpy(b + offsetof(struct nprof_ntff_header, block_table_csum), &c, 4);
	ntff_test_reseal(b);
	expect_reject_flags(b, len, 0, EBADMSG, msg);
	free(b);
}

TEST(ntff_zstd_damaged_table)
{
	struct zfile f;
	char msg[160];

	if (!z_open(&f))
		return;
	snprintf(msg, sizeof(msg), "buffer: block %llu is stored at byte ", (unsigned long long)f.blk);
	table_edit(f.buf, f.len, f.blk, 0, 8, msg);
	/* A longer block moves the next one. */
	snprintf(msg, sizeof(msg), "buffer: block %llu is stored at byte ", (unsigned long long)f.blk + 1);
	table_edit(f.buf, f.len, f.blk, 8, 1, msg);
	/* A frame as long as its block (the writer stores such a block as is). */
	snprintf(msg, sizeof(msg), "buffer: block %llu stores 4096 bytes as a zstd frame for 4096 bytes of data",
		 (unsigned long long)f.blk);
	table_edit(f.buf, f.len, f.blk, 8, BS - f.slen, msg);
	/* A frame taken for the block as is. */
	snprintf(msg, sizeof(msg), "buffer: block %llu stores %u bytes as is for 4096 bytes of data",
		 (unsigned long long)f.blk, f.slen);
	table_edit(f.buf, f.len, f.blk, 8, (uint32_t)-NPROF_NTFF_ZBLOCK_ZSTD, msg);
	z_close(&f);
}

TEST(ntff_zstd_refused_by_older_readers)
{
	struct zfile f;
	unsigned char *b;

	if (!z_open(&f))
		return;
	/* Readers of majors 1 to 3 refuse major 4 by its number, at the first check. */
	CHECK_INT(f.buf[8] | f.buf[9] << 8, NPROF_NTFF_VERSION_MAJOR_ZSTD);
	b = malloc(f.len);
	/*
	 * Were the major that of a plain file, the framing alone would still
	 * be refused: the table's length is not 4 bytes a block.
	 */
	memcpy(b, f.buf, f.len);
	put16(b, 8, NPROF_NTFF_VERSION_MAJOR);
	memset(b + offsetof(struct nprof_ntff_header, reserved), 0, 8);
	ntff_test_reseal(b);
	expect_reject(b, f.len, EBADMSG, "block table length");
	/* Compressed blocks of more than 256 KiB: no writer makes them. */
	memcpy(b, f.buf, f.len);
	{
		uint32_t v = htole32(1u << 19);

		memcpy(b + offsetof(struct nprof_ntff_header, block_size), &v, 4);
	}
	ntff_test_reseal(b);
	expect_reject(b, f.len, EBADMSG, "block size 524288 of compressed blocks is over 262144");
	/* A later major is refused as older readers refuse this one. */
	free(b);
	expect_header16_rejected(f.buf, f.len, 8, 5, EPROTONOSUPPORT,
				 "NTFF version 5.4 is not supported: major version 5 is unknown (this reader reads 1.x, 2.x, 3.x and 4.x)");
	z_close(&f);
}

TEST(ntff_zstd_pending_writer)
{
	struct nprof_ntff_writer *w;
	struct rlimit old, tiny;
	void (*old_xfsz)(int);
	char plain[PATH_MAX], z[PATH_MAX];
	int dirfd, ret;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	CHECK_INT(write_file("p.ntff", 0, plain, sizeof(plain)), 0);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	w = nprof_ntff_writer_create_pending(dir);
	CHECK(dirfd >= 0 && w != NULL);
	if (dirfd < 0 || !w)
		goto out;
	CHECK_INT(nprof_ntff_writer_set_block_size(w, BS), 0);
	CHECK_INT(nprof_ntff_writer_set_compression(w, 3), 0);
	CHECK_INT(nprof_ntff_writer_set_info(w, &sample_info), 0);
	/* A file that may not grow: the appends fail (ntff_zstd_pending_append_undone retries one). */
	CHECK_INT(getrlimit(RLIMIT_FSIZE, &old), 0);
	tiny = old;
	tiny.rlim_cur = NPROF_NTFF_HEADER_SIZE + 1000;
	old_xfsz = signal(SIGXFSZ, SIG_IGN);
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &tiny), 0);
	ret = appends(w);
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_xfsz);
	CHECK_INT(ret, -EFBIG);
	/* A new pending writer, streamed and committed: it reads as the plain file. */
	nprof_ntff_writer_forget(w);
	w = nprof_ntff_writer_create_pending(dir);
	CHECK(w != NULL);
	if (!w)
		goto out;
	CHECK_INT(nprof_ntff_writer_set_block_size(w, BS), 0);
	CHECK_INT(nprof_ntff_writer_set_compression(w, 3), 0);
	CHECK_INT(nprof_ntff_writer_set_info(w, &sample_info), 0);
	CHECK_INT(appends(w), 0);
	CHECK_INT(nprof_ntff_writer_commit(&w, dirfd, "z.ntff"), 0);
	CHECK(w == NULL);
	snprintf(z, sizeof(z), "%s/z.ntff", dir);
	same_reading(plain, z, 0);
	same_reading(plain, z, NPROF_NTFF_READ_VERIFY_AT_OPEN);
out:
	nprof_ntff_writer_forget(w);
	if (dirfd >= 0)
		close(dirfd);
	rm_rf(dir);
}

/* A failed append of a pending writer leaves it as it was: the retry completes the file. */
TEST(ntff_zstd_pending_append_undone)
{
	struct nprof_ntff_queue_desc q;
	struct nprof_ntff_writer *w, *pw;
	struct rlimit old, tiny;
	void (*old_xfsz)(int);
	char plain[PATH_MAX], z[PATH_MAX];
	uint64_t rnd = 88172645463325252ULL;
	unsigned char *a;
	int dirfd, ret;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	a = entries(4000, 64, 1, true, &rnd);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	w = nprof_ntff_writer_create(dir, "p.ntff", 0);
	pw = nprof_ntff_writer_create_pending(dir);
	CHECK(a && dirfd >= 0 && w && pw);
	if (!a || dirfd < 0 || !w || !pw)
		goto out;
	CHECK_INT(nprof_ntff_writer_set_block_size(w, BS), 0);
	CHECK_INT(nprof_ntff_writer_set_block_size(pw, BS), 0);
	CHECK_INT(nprof_ntff_writer_set_compression(pw, 1), 0);
	desc(&q, NEURONPROF_QT_TRACE, 64, 0);
	/* A partial block first, so that the failing append must restore it. */
	CHECK_INT(nprof_ntff_writer_append(w, &q, a, 100 * 64, NULL, 0), 0);
	CHECK_INT(nprof_ntff_writer_append(pw, &q, a, 100 * 64, NULL, 0), 0);
	CHECK_INT(getrlimit(RLIMIT_FSIZE, &old), 0);
	tiny = old;
	tiny.rlim_cur = NPROF_NTFF_HEADER_SIZE + 3 * BS;
	old_xfsz = signal(SIGXFSZ, SIG_IGN);
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &tiny), 0);
	ret = nprof_ntff_writer_append(pw, &q, a + 100 * 64, 3900 * 64, NULL, 0);
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_xfsz);
	CHECK_INT(ret, -EFBIG);
	CHECK_INT(nprof_ntff_writer_append(pw, &q, a + 100 * 64, 3900 * 64, NULL, 0), 0);
	CHECK_INT(nprof_ntff_writer_append(w, &q, a + 100 * 64, 3900 * 64, NULL, 0), 0);
	CHECK_INT(nprof_ntff_writer_set_info(w, &sample_info), 0);
	CHECK_INT(nprof_ntff_writer_set_info(pw, &sample_info), 0);
	CHECK_INT(nprof_ntff_writer_finalize(w), 0);
	w = NULL;
	CHECK_INT(nprof_ntff_writer_commit(&pw, dirfd, "z.ntff"), 0);
	snprintf(plain, sizeof(plain), "%s/p.ntff", dir);
	snprintf(z, sizeof(z), "%s/z.ntff", dir);
	{
		struct nprof_ntff_reader *p = nprof_ntff_reader_open(plain, NPROF_NTFF_READ_VERIFY_AT_OPEN);
		struct nprof_ntff_reader *c = nprof_ntff_reader_open(z, NPROF_NTFF_READ_VERIFY_AT_OPEN);
		struct nprof_ntff_queue pq = { .size = sizeof(pq) }, cq = { .size = sizeof(cq) };

		CHECK(p && c);
		if (p && c) {
			CHECK_INT(nprof_ntff_reader_queue(p, 0, &pq), 0);
			CHECK_INT(nprof_ntff_reader_queue(c, 0, &cq), 0);
			CHECK_INT(cq.entry_count, 4000);
			CHECK(!memcmp(pq.entries, cq.entries, pq.data_length));
			CHECK(!memcmp(cq.entries, a, 4000 * 64));
		} else {
			printf("#   %s\n", nprof_strerror_last());
		}
		nprof_ntff_reader_close(p);
		nprof_ntff_reader_close(c);
	}
out:
	nprof_ntff_writer_abort(w);
	nprof_ntff_writer_forget(pw);
	free(a);
	if (dirfd >= 0)
		close(dirfd);
	rm_rf(dir);
}

TEST(ntff_zstd_writer_refusals)
{
	struct nprof_ntff_queue_desc q;
	struct nprof_ntff_writer *w;
	unsigned char e[64] = { 0 };

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	CHECK_ERR_MSG(nprof_ntff_writer_set_compression(NULL, 1), EINVAL, "NTFF writer is NULL");
	w = nprof_ntff_writer_create(dir, "x.ntff", 0);
	CHECK(w != NULL);
	if (w) {
		CHECK_ERR_MSG(nprof_ntff_writer_set_compression(w, -1), EINVAL,
			      "NTFF compression level -1 is not in [0, 22] (0: none)");
		CHECK_ERR_MSG(nprof_ntff_writer_set_compression(w, 23), EINVAL,
			      "NTFF compression level 23 is not in [0, 22] (0: none)");
		CHECK_INT(nprof_ntff_writer_set_compression(w, 1), 0);
		CHECK_INT(nprof_ntff_writer_set_compression(w, 0), 0);
		desc(&q, NEURONPROF_QT_TRACE, 64, 0);
		CHECK_INT(nprof_ntff_writer_append(w, &q, e, sizeof(e), NULL, 0), 0);
		CHECK_ERR_MSG(nprof_ntff_writer_set_compression(w, 1), EINVAL,
			      "NTFF compression must be set before the first append");
		nprof_ntff_writer_abort(w);
	}
	rm_rf(dir);
}

TEST(ntff_zstd_config_and_env)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	char *ok[] = { "NEURON_RT_INSPECT_CAPTURE_COMPRESSION=19", NULL };
	char *bad[] = { "NEURON_RT_INSPECT_CAPTURE_COMPRESSION=23", NULL };
	char *word[] = { "NEURON_RT_INSPECT_CAPTURE_COMPRESSION=fast", NULL };

	CHECK(cfg != NULL);
	if (!cfg)
		return;
	CHECK_INT(nprof_inspect_config_get_capture_compression(cfg), 0);
	CHECK_INT(nprof_inspect_config_set_capture_compression(cfg, 1), 0);
	CHECK_INT(nprof_inspect_config_get_capture_compression(cfg), 1);
	CHECK_ERR_MSG(nprof_inspect_config_set_capture_compression(cfg, 23), EINVAL,
		      "capture compression level 23: expected 0 (none) to 22");
	CHECK_INT(nprof_inspect_config_get_capture_compression(cfg), 1);
	CHECK_INT(nprof_inspect_config_get_capture_compression(NULL), 0);
	CHECK_INT(nprof_inspect_config_parse_envp(cfg, ok), 0);
	CHECK_INT(nprof_inspect_config_get_capture_compression(cfg), 19);
	CHECK_ERR_MSG(nprof_inspect_config_parse_envp(cfg, bad), EINVAL,
		      "NEURON_RT_INSPECT_CAPTURE_COMPRESSION: expected a zstd level from 0 (none) to 22, got '23'");
	CHECK(nprof_inspect_config_parse_envp(cfg, word) == -EINVAL);
	nprof_inspect_config_free(cfg);
}

int main(void)
{
	return harness_main();
}
