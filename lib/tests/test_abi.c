// SPDX-License-Identifier: MIT
/*
 * Linked against libneuronprof.so only: the exported API is reachable
 * through the dynamic symbol table, and a round trip works through it; the
 * old versions of changed functions keep their old meaning.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

TEST(abi_version)
{
	CHECK(nprof_version() == NPROF_VERSION_CODE(NPROF_VERSION_MAJOR, NPROF_VERSION_MINOR,
						     NPROF_VERSION_PATCH));
	CHECK_STR(nprof_version_string(), "1.4.0");
}

/*
 * A file of one queue record, @len bytes of 16-byte @entries, in a new
 * directory made from the template @dir; its path in @path. 0, or -1 after
 * a failed check (the directory removed).
 */
static int write_sample(char *dir, const char *name, const void *entries, size_t len,
			char *path, size_t plen)
{
	struct nprof_ntff_queue_desc qd = { .size = sizeof(qd), .queue_type = 1, .entry_size = 16 };
	struct nprof_ntff_writer *w;

	CHECK(mkdtemp(dir) != NULL);
	w = nprof_ntff_writer_create(dir, name, 0);
	CHECK(w != NULL);
	if (!w) {
		rmdir(dir);
		return -1;
	}
	CHECK_INT(nprof_ntff_writer_append(w, &qd, entries, len, NULL, 0), 0);
	CHECK_INT(nprof_ntff_writer_finalize(w), 0);
	snprintf(path, plen, "%s/%s", dir, name);
	return 0;
}

TEST(abi_config_and_ntff)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	uint64_t entries[2][2] = { { 10, 7 }, { 11, 8 } };
	char dir[] = "/tmp/nprof-test-abi-XXXXXX", path[PATH_MAX];
	struct nprof_ntff_reader *r;

	CHECK(cfg != NULL);
	CHECK_INT(nprof_inspect_config_set_activity(cfg, "cpu_util", false), 0);
	CHECK_INT(nprof_inspect_config_get_activity_mask(cfg), 7);
	nprof_inspect_config_free(cfg);

	if (write_sample(dir, "abi.ntff", entries, sizeof(entries), path, sizeof(path)))
		return;
	r = nprof_ntff_reader_open(path, 0);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(nprof_ntff_reader_queue(r, 0, &q), 0);
		CHECK_INT(q.first_seq, 7);
		CHECK_INT(q.last_seq, 8);
		CHECK_INT(q.entry_count, 2);
	}
	nprof_ntff_reader_close(r);
	unlink(path);
	rmdir(dir);
}

typedef struct nprof_ntff_reader *(*open_fn)(const char *path, unsigned int flags);
typedef struct nprof_ntff_reader *(*open_mem_fn)(const void *buf, size_t len, unsigned int flags);

/* Entries walked by the chunk iterator: their count, or its error. */
static int walk(struct nprof_ntff_reader *r)
{
	struct nprof_ntff_chunk_iter it;
	const void *p;
	int n, total = 0;

	if (nprof_ntff_chunk_iter_init(&it, r, 0))
		return -EINVAL;
	while ((n = nprof_ntff_chunk_iter_next(&it, &p)) > 0)
		total += n;
	return n < 0 ? n : total;
}

/*
 * Library 1.3 changed what flags 0 means to nprof_ntff_reader_open() and
 * nprof_ntff_reader_open_mem(): one pass, data blocks verified as the chunk
 * iterator reaches them, no entries pointers. Programs linked against 1.0-1.2
 * call the NEURONPROF_1.0 versions, which keep verifying every block at
 * open; this program, built against 1.3, binds to the NEURONPROF_1.3 ones.
 */
TEST(abi_reader_open_versions)
{
	open_fn open_1_0 = (open_fn)dlvsym(RTLD_DEFAULT, "nprof_ntff_reader_open", "NEURONPROF_1.0");
	open_fn open_1_3 = (open_fn)dlvsym(RTLD_DEFAULT, "nprof_ntff_reader_open", "NEURONPROF_1.3");
	open_mem_fn mem_1_0 = (open_mem_fn)dlvsym(RTLD_DEFAULT, "nprof_ntff_reader_open_mem",
						  "NEURONPROF_1.0");
	open_mem_fn mem_1_3 = (open_mem_fn)dlvsym(RTLD_DEFAULT, "nprof_ntff_reader_open_mem",
						  "NEURONPROF_1.3");
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	uint64_t entries[64][2];
	char dir[] = "/tmp/nprof-test-abi-XXXXXX", path[PATH_MAX];
	unsigned char buf[4096];
	struct nprof_ntff_reader *r;
	ssize_t len;
	int fd, i;

	CHECK(open_1_0 && open_1_3 && mem_1_0 && mem_1_3);
	if (!open_1_0 || !open_1_3 || !mem_1_0 || !mem_1_3)
		return;
	CHECK(open_1_0 != open_1_3 && mem_1_0 != mem_1_3);
	CHECK(open_1_3 == nprof_ntff_reader_open && mem_1_3 == nprof_ntff_reader_open_mem);

	for (i = 0; i < 64; i++) {
		entries[i][0] = 100 + (uint64_t)i;
		entries[i][1] = (uint64_t)i;	/* seq */
	}
	if (write_sample(dir, "v.ntff", entries, sizeof(entries), path, sizeof(path)))
		return;

	/* A sound file: the old default gives entries pointers, the new one not. */
	r = open_1_0(path, 0);
	CHECK(r && !nprof_ntff_reader_queue(r, 0, &q) && q.entries != NULL);
	nprof_ntff_reader_close(r);
	r = open_1_3(path, 0);
	CHECK(r && !nprof_ntff_reader_queue(r, 0, &q) && q.entries == NULL);
	CHECK(r && walk(r) == 64);
	nprof_ntff_reader_close(r);
	r = open_1_3(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r && !nprof_ntff_reader_queue(r, 0, &q) && q.entries != NULL);
	nprof_ntff_reader_close(r);

	/* The same file with an entry's word flipped (not its seq). */
	fd = open(path, O_RDONLY);
	len = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	if (fd >= 0)
		close(fd);
	CHECK(len > 128 + 16 * 10);
	if (len <= 128 + 16 * 10)
		goto out;
	buf[128 + 16 * 10] ^= 0x04;
	/* The old default refuses it at open, as 1.0-1.2 did... */
	r = mem_1_0(buf, (size_t)len, 0);
	CHECK(r == NULL && errno == EBADMSG);
	nprof_ntff_reader_close(r);
	/* ...the new one opens it, and its walk stops at the damaged block. */
	r = mem_1_3(buf, (size_t)len, 0);
	CHECK(r != NULL);
	if (r)
		CHECK_INT(walk(r), -EBADMSG);
	nprof_ntff_reader_close(r);
	r = mem_1_3(buf, (size_t)len, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r == NULL && errno == EBADMSG);
	/* Flags other than 0 mean the same in both versions. */
	r = mem_1_0(buf, (size_t)len, NPROF_NTFF_READ_VERIFY_LAZY);
	CHECK(r != NULL);
	if (r)
		CHECK_INT(walk(r), -EBADMSG);
	nprof_ntff_reader_close(r);
out:
	unlink(path);
	rmdir(dir);
}

HARNESS_MAIN
