// SPDX-License-Identifier: MIT
/*
 * Linked against the installed kind of static archive, libneuronprof.a,
 * by a program that defines functions and objects under names the library
 * uses internally (its error and log helpers, the NTFF header and CRC32C
 * helpers, generated protobuf-c code). The link must succeed (no duplicate
 * definition), and the library must keep calling its own internals, never
 * these: a write, a read back and an error message go through all of them.
 */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

static int hijacked;

/* The program's own symbols; the library's internals bear the same names. */
int nprof_err(int errnum, const char *fmt, ...);
void nprof_log(int level, const char *fmt, ...);
void nprof_ntff_header_decode(const void *in, void *h);
void nprof_ntff_header_encode(const void *h, void *out);
uint32_t nprof_crc32c_update(uint32_t crc, const void *buf, size_t len);
int nprof_json_init(void);
extern const char neuronprof__ntff__ntff_info__descriptor[];

int nprof_err(int errnum, const char *fmt, ...)
{
	(void)fmt;
	hijacked++;
	return -errnum;
}

void nprof_log(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
	hijacked++;
}

void nprof_ntff_header_decode(const void *in, void *h)
{
	(void)in;
	(void)h;
	hijacked++;
}

void nprof_ntff_header_encode(const void *h, void *out)
{
	(void)h;
	(void)out;
	hijacked++;
}

uint32_t nprof_crc32c_update(uint32_t crc, const void *buf, size_t len)
{
	(void)buf;
	(void)len;
	hijacked++;
	return crc;
}

int nprof_json_init(void)
{
	return hijacked++;
}

const char neuronprof__ntff__ntff_info__descriptor[] = "the program's own";

TEST(static_internals_stay_the_library_s)
{
	struct nprof_ntff_queue_desc qd = { .size = sizeof(qd), .queue_type = 1, .entry_size = 16 };
	struct nprof_ntff_info info = { .size = sizeof(info) };
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	uint64_t entries[2][2] = { { 10, 7 }, { 11, 8 } };
	char dir[] = "/tmp/nprof-test-static-XXXXXX", path[PATH_MAX];
	struct nprof_ntff_writer *w;
	struct nprof_ntff_reader *r;

	CHECK(mkdtemp(dir) != NULL);
	w = nprof_ntff_writer_create(dir, "static.ntff", 0);
	CHECK(w != NULL);
	if (!w)
		return;
	info.core = 3;
	info.session_id = 9;
	CHECK_INT(nprof_ntff_writer_set_info(w, &info), 0);
	CHECK_INT(nprof_ntff_writer_append(w, &qd, entries, sizeof(entries), NULL, 0), 0);
	CHECK_INT(nprof_ntff_writer_finalize(w), 0);
	snprintf(path, sizeof(path), "%s/static.ntff", dir);
	/* The reader checks the header, every CRC32C and the metadata. */
	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (r) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		CHECK_INT(nprof_ntff_reader_info(r, &info), 0);
		CHECK_INT(info.core, 3);
		CHECK_INT(info.session_id, 9);
		CHECK_INT(nprof_ntff_reader_queue(r, 0, &q), 0);
		CHECK_INT(q.entry_count, 2);
	}
	nprof_ntff_reader_close(r);
	unlink(path);
	rmdir(dir);

	/* An error message is composed by the library's own nprof_err(). */
	CHECK(nprof_ntff_reader_open(path, 0) == NULL);
	CHECK_INT(errno, ENOENT);
	CHECK_CONTAINS(nprof_strerror_last(), "static.ntff");
	CHECK_INT(hijacked, 0);
	CHECK_STR(neuronprof__ntff__ntff_info__descriptor, "the program's own");
}

HARNESS_MAIN
