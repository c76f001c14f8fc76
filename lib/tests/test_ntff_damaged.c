// SPDX-License-Identifier: MIT
/*
 * Host tests of the NTFF reader on damaged files: rejection at open of bad
 * headers, trailers and metadata, and the reader's open errors.
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
	expect_header16_rejected(s.buf, s.len, 8, 5, EPROTONOSUPPORT,
				 "NTFF version 5.4 is not supported: major version 5 is unknown (this reader reads 1.x, 2.x, 3.x and 4.x)");
	/* Major 3 is for packed raw records only. */
	expect_header16_rejected(s.buf, s.len, 8, 3, EBADMSG,
				 "major version 3 with raw format 0 (raw entries are major 2, others 1), packed 0");
	/* Major 2 is for raw entries only, and raw entries are major 2 only. */
	expect_header16_rejected(s.buf, s.len, 8, 2, EBADMSG,
				 "major version 2 with raw format 0 (raw entries are major 2, others 1)");
	memcpy(b, s.buf, s.len);
	put16(b, 10, 7);
	b[0x60] = 1;	/* a later minor may use reserved bytes */
	ntff_test_reseal(b);
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
	ntff_test_reseal(b);
	expect_reject(b, s.len, EBADMSG, "reserved header byte at offset 96 is 0x01, not 0");
	memcpy(b, s.buf, s.len);
	b[0x7b] = 0x80;
	ntff_test_reseal(b);
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
	ntff_test_reseal(b);
	expect_reject(b, s.len, EBADMSG, "metadata [offset 1099511627776, length");
	memcpy(b, s.buf, s.len);
	put64(b, offsetof(struct nprof_ntff_header, data_offset), UINT64_MAX - 8);
	ntff_test_reseal(b);
	expect_reject(b, s.len, EBADMSG, "data region [offset 18446744073709551607, length 3456] extends past the end");
	memcpy(b, s.buf, s.len);
	put64(b, offsetof(struct nprof_ntff_header, data_length), UINT64_MAX);
	ntff_test_reseal(b);
	expect_reject(b, s.len, EBADMSG, "data region [offset 128, length 18446744073709551615] extends past the end");
	memcpy(b, s.buf, s.len);
	put64(b, offsetof(struct nprof_ntff_header, data_offset), 64);
	ntff_test_reseal(b);
	expect_reject(b, s.len, EBADMSG, "overlaps the 128-byte header");
	memcpy(b, s.buf, s.len);
	put64(b, offsetof(struct nprof_ntff_header, data_length), h.data_length + 8);
	ntff_test_reseal(b);
	expect_reject(b, s.len, EBADMSG, "overlap");
	memcpy(b, s.buf, s.len);
	b[offsetof(struct nprof_ntff_header, checksum_type)] = 9;
	ntff_test_reseal(b);
	expect_reject(b, s.len, EBADMSG, "unknown checksum type 9");
	memcpy(b, s.buf, s.len);
	b[offsetof(struct nprof_ntff_header, header_size)] = 100;
	ntff_test_reseal(b);
	expect_reject(b, s.len, EBADMSG, "header size 100 is outside [128,");

	free(b);
	free(s.buf);
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
	size_t i;

	if (load_sample(&s)) {
		FAIL("cannot produce the sample file");
		return;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		expect_edit_rejected(&s, cases[i].edit, 0, 0, EBADMSG, cases[i].msg);
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
		ntff_test_reseal(b);
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

HARNESS_MAIN
