// SPDX-License-Identifier: MIT
/*
 * Linked against libneuronprof.so only: the exported API is reachable
 * through the dynamic symbol table, and a round trip works through it.
 */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

TEST(abi_version)
{
	CHECK(nprof_version() == NPROF_VERSION_CODE(NPROF_VERSION_MAJOR, NPROF_VERSION_MINOR,
						     NPROF_VERSION_PATCH));
	CHECK_STR(nprof_version_string(), "1.2.0");
}

TEST(abi_config_and_ntff)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	struct nprof_ntff_queue_desc qd = { .size = sizeof(qd), .queue_type = 1, .entry_size = 16 };
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	uint64_t entries[2][2] = { { 10, 7 }, { 11, 8 } };
	char dir[] = "/tmp/nprof-test-abi-XXXXXX", path[PATH_MAX];
	struct nprof_ntff_writer *w;
	struct nprof_ntff_reader *r;

	CHECK(cfg != NULL);
	CHECK_INT(nprof_inspect_config_set_activity(cfg, "cpu_util", false), 0);
	CHECK_INT(nprof_inspect_config_get_activity_mask(cfg), 7);
	nprof_inspect_config_free(cfg);

	CHECK(mkdtemp(dir) != NULL);
	w = nprof_ntff_writer_create(dir, "abi.ntff", 0);
	CHECK(w != NULL);
	if (!w)
		return;
	CHECK_INT(nprof_ntff_writer_append(w, &qd, entries, sizeof(entries), NULL, 0), 0);
	CHECK_INT(nprof_ntff_writer_finalize(w), 0);
	snprintf(path, sizeof(path), "%s/abi.ntff", dir);
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

HARNESS_MAIN
