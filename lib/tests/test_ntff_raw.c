// SPDX-License-Identifier: MIT
/*
 * Host tests of the NTFF raw entries: round trips, the fields absent in old
 * structs, old files read as not raw.
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
	ret = ntff_test_write_raw(dir, name, info, *ring, n);
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
	struct nprof_ntff_info in = raw_sample_info(false), out = { .size = sizeof(out) };
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	struct neuronprof_notification *ring;
	struct nprof_ntff_reader *r;

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
	CHECK(ntff_test_write_raw(dir, "bad.ntff", &in, ring, 12) == -EINVAL);
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
	struct edited e;
	struct sample s;

	if (!got_sample(load_sample, &s))
		return;
	if (open_edited(&e, &s, edit_drop_raw, 10, 0)) {
		CHECK_INT(nprof_ntff_reader_header(e.r)->version_minor, 0);
		CHECK_INT(e.info.device.raw_format, NEURONPROF_RAW_FORMAT_NONE);
		CHECK_INT(e.info.device.raw_entry_size, 0);
		CHECK_INT(e.info.device.clock_domain, NEURONPROF_CLOCK_PRODUCED);
		CHECK_INT(e.info.device.num_cores, 2);
	}
	edited_close(&e);
	expect_edit_rejected(&s, edit_raw_in_v1, 0, 0, EBADMSG, "major version 1 with raw format 1");
	free(s.buf);
}

HARNESS_MAIN
