// SPDX-License-Identifier: MIT
/*
 * Host tests of NPROF_NTFF_READ_VERIFY_AT_OPEN on a data region large
 * enough for its checksums to run on two threads (ntff_reader_verify.c):
 * a clean file opens and reads back whole; a damaged one is refused with
 * exactly the result of the calling thread alone (NPROF_NTFF_VERIFY_THREADS=1),
 * which names the first damaged block in file order, wherever the damage
 * is (first, last, either side of a claim's edge) and with two damaged
 * blocks whichever thread reaches which first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ntff_test_util.h"

#define BIG_ENTRIES	(24u << 20) / ENTRY	/* 24 MiB of entries: three times the threshold */
#define REPEAT		8			/* opens per case, threads racing differently */

/* The big file, whole; NULL (the case failed) if it cannot be written. */
static unsigned char *big_file(size_t *len, struct nprof_ntff_header *h)
{
	struct nprof_ntff_queue_desc q = { .size = sizeof(q), .queue_type = NEURONPROF_QT_TRACE,
					    .entry_size = ENTRY };
	struct neuronprof_notification *e = make_ring(BIG_ENTRIES, NEURONPROF_QT_TRACE, 1);
	struct nprof_ntff_writer *w = e ? fresh_writer("big.ntff") : NULL;
	unsigned char *buf = NULL;
	char path[256];

	if (!w) {
		free(e);
		if (!e)
			FAIL("out of memory");
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/big.ntff", dir);
	if (nprof_ntff_writer_append(w, &q, e, (size_t)BIG_ENTRIES * ENTRY, NULL, 0) < 0 ||
	    nprof_ntff_writer_finalize(w)) {
		FAIL("cannot write %s: %s", path, nprof_strerror_last());
	} else {
		buf = ntff_test_read_whole(path, len);
		if (!buf)
			FAIL("cannot read %s back", path);
		else
			nprof_ntff_header_decode(buf, h);
	}
	free(e);
	rm_rf(dir);
	return buf;
}

/* Open @buf verifying every block at open; *@err and @msg say how it went. */
static void open_at_open(const unsigned char *buf, size_t len, bool one_thread, int *err,
			 char *msg, size_t size)
{
	struct nprof_ntff_reader *r;

	if (one_thread)
		setenv("NPROF_NTFF_VERIFY_THREADS", "1", 1);
	else
		unsetenv("NPROF_NTFF_VERIFY_THREADS");
	r = nprof_ntff_reader_open_mem(buf, len, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	unsetenv("NPROF_NTFF_VERIFY_THREADS");
	*err = r ? 0 : errno;
	snprintf(msg, size, "%s", r ? "" : nprof_strerror_last());
	nprof_ntff_reader_close(r);
}

TEST(ntff_verify_threads_clean_file_reads_back)
{
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	struct nprof_ntff_entry_iter it;
	const struct neuronprof_notification *e;
	struct nprof_ntff_reader *r;
	struct nprof_ntff_header h;
	uint64_t n = 0, bad = 0;
	unsigned char *buf;
	size_t len;

	buf = big_file(&len, &h);
	if (!buf)
		return;
	CHECK(h.data_length >= (16u << 20));
	unsetenv("NPROF_NTFF_VERIFY_THREADS");
	r = nprof_ntff_reader_open_mem(buf, len, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (r && !nprof_ntff_reader_queue(r, 0, &q)) {
		nprof_ntff_entry_iter_init(&it, &q);
		while ((e = nprof_ntff_entry_iter_next(&it)))
			bad += e->seq != ++n;
	}
	CHECK_INT(n, BIG_ENTRIES);
	CHECK_INT(bad, 0);
	nprof_ntff_reader_close(r);
	free(buf);
}

/* Flip a byte of each of data blocks @blk (UINT64_MAX: none) of a copy of @buf. */
static void expect_same_refusal(const unsigned char *buf, size_t len,
				const struct nprof_ntff_header *h, uint64_t blk1, uint64_t blk2)
{
	uint64_t nblocks = (h->data_length + h->block_size - 1) / h->block_size;
	uint64_t want_blk = blk1 < blk2 ? blk1 : blk2;
	unsigned char *b = malloc(len);
	char msg1[512], msg2[512], want[64];
	int err1, err2;

	if (!b) {
		FAIL("out of memory");
		return;
	}
	memcpy(b, buf, len);
	if (blk1 < nblocks)
		b[h->data_offset + blk1 * h->block_size + 77] ^= 0x5a;
	if (blk2 < nblocks)
		b[h->data_offset + blk2 * h->block_size + 3] ^= 0xa5;
	snprintf(want, sizeof(want), "in block %llu (", (unsigned long long)want_blk);
	open_at_open(b, len, true, &err1, msg1, sizeof(msg1));
	CHECK_INT(err1, EBADMSG);
	CHECK_CONTAINS(msg1, "data checksum mismatch");
	CHECK_CONTAINS(msg1, want);
	for (int i = 0; i < REPEAT; i++) {
		open_at_open(b, len, false, &err2, msg2, sizeof(msg2));
		CHECK_INT(err2, err1);
		CHECK_STR(msg2, msg1);
	}
	free(b);
}

TEST(ntff_verify_threads_refuse_as_one_thread)
{
	struct nprof_ntff_header h;
	uint64_t nblocks, per_claim;
	unsigned char *buf;
	size_t len;

	buf = big_file(&len, &h);
	if (!buf)
		return;
	nblocks = (h.data_length + h.block_size - 1) / h.block_size;
	/* Claims of 1 MiB of blocks (ntff_reader_verify.c): their edges. */
	per_claim = (1u << 20) / h.block_size;
	CHECK(nblocks > 4 * per_claim);
	expect_same_refusal(buf, len, &h, 0, UINT64_MAX);
	expect_same_refusal(buf, len, &h, nblocks - 1, UINT64_MAX);
	expect_same_refusal(buf, len, &h, per_claim - 1, UINT64_MAX);
	expect_same_refusal(buf, len, &h, per_claim, UINT64_MAX);
	expect_same_refusal(buf, len, &h, 3 * per_claim + 1, UINT64_MAX);
	/* Two damaged blocks: the first in file order is named. */
	expect_same_refusal(buf, len, &h, nblocks - 1, per_claim + 2);
	expect_same_refusal(buf, len, &h, 1, nblocks - 2);
	expect_same_refusal(buf, len, &h, 2 * per_claim + 5, 2 * per_claim + 3);
	expect_same_refusal(buf, len, &h, nblocks / 2, nblocks / 2 + per_claim);
	free(buf);
}

HARNESS_MAIN
