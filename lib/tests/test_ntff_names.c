// SPDX-License-Identifier: MIT
/*
 * Host tests of the NTFF code names (NTFF 1.2): round trips, the writer's
 * rules, the reader's checks.
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

/* The names a file holds come back as written, in order, strings included. */
TEST(ntff_code_names_round_trip)
{
	struct nprof_ntff_info out = { .size = sizeof(out) };
	struct nprof_ntff_reader *r;
	struct sample s;
	size_t i;

	if (!got_sample(load_named_sample, &s))
		return;
	r = open_buf(s.buf, s.len);
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
		CHECK_INT(ntff_test_write_raw(dir, "bad.ntff", &in, ring, 4), -EINVAL);
		CHECK_CONTAINS(nprof_strerror_last(), bad[i].msg);
	}
	/* The longest name is fine. */
	memcpy(names, sample_names, sizeof(names));
	names[0].name = "abcdefghijklmnopqrstu.9";
	CHECK_INT(ntff_test_write_raw(dir, "long.ntff", &in, ring, 4), 0);
	/* A count without names, and names of a raw device. */
	in.code_names = NULL;
	CHECK_INT(ntff_test_write_raw(dir, "bad.ntff", &in, ring, 4), -EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "without the names");
	in.code_names = sample_names;
	in.device.raw_format = NEURONPROF_RAW_FORMAT_NEURON_V2;
	in.device.raw_entry_size = 64;
	CHECK_INT(ntff_test_write_raw(dir, "bad.ntff", &in, ring, 4), -EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "raw device names nothing");
	/* A library 1.1.0 caller's struct ends before the names: none written. */
	in = sample_info;
	in.size = NPROF_NTFF_INFO_SIZE_V2;
	CHECK_INT(ntff_test_write_raw(dir, "v2.ntff", &in, ring, 4), 0);
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
	struct edited e;
	struct sample s;

	if (!got_sample(load_named_sample, &s))
		return;
	expect_edit_rejected(&s, edit_names_unsorted, 0, 0, EBADMSG,
			     "not sorted by (queue_type, code) or a pair twice (code name 2 of 5)");
	expect_edit_rejected(&s, edit_name_bad, 0, 0, EBADMSG,
			     "1 to 23 characters of [a-z0-9_.] (code name 1 of 5)");
	expect_edit_rejected(&s, edit_name_missing, 0, 0, EBADMSG,
			     "code name 4 lacks its queue type, code or name");
	/* Names in a raw file (major 2, so that only the names are wrong). */
	expect_edit_rejected(&s, edit_names_raw, 8, NPROF_NTFF_VERSION_MAJOR_RAW, EBADMSG,
			     "raw device names nothing");
	/* An NTFF 1.1 file: minor 1, no names. */
	if (open_edited(&e, &s, edit_drop_names, 10, 1)) {
		CHECK_INT(e.info.num_code_names, 0);
		CHECK(e.info.code_names == NULL);
		CHECK_STR(e.info.model_name, "resnet50");
	}
	edited_close(&e);
	free(s.buf);
}

HARNESS_MAIN
