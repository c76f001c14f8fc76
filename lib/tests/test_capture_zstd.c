// SPDX-License-Identifier: MIT
/*
 * Host tests of compressed capture files, on a fake device: a streaming
 * SESSION capture of an inspect session whose configuration asks for zstd
 * (nprof_inspect_config_set_capture_compression()) writes an NTFF major-4
 * file that holds every entry the device produced, smaller than the plain
 * file of the same run; under a size limit the limit counts the bytes
 * stored, so the compressed file stays within it and holds more entries
 * than the plain file does under the same limit, with entries plus lost
 * equal to what the device produced in both; a run that passes the limit
 * even compressed stops writing within it.
 *
 * The fake device's rings are one page (64 entries) and its SIM_EXEC paces
 * itself to the streaming consumer, so nothing here depends on timing.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "harness.h"
#include "inspect_util.h"

#define ITERATIONS	2000u		/* per queue: 24 queues of 64-byte entries, 3 MB */
#define QUEUES		24u
#define LIMIT		(1ULL << 20)

struct run {
	uint64_t entries, lost;
	int major;
	off_t size;
};

/*
 * One SESSION capture of core 2, @iters iterations per queue, at zstd
 * @level (0: none) under @limit (0: none).
 */
static int capture(uint32_t iters, int level, uint64_t limit, struct run *out)
{
	struct nprof_sim_program p = fakex_prog(iters, false);
	struct nprof_sim_result res = { .size = sizeof(res) };
	struct nprof_inspect_config *cfg;
	struct nprof_ntff_reader *r;
	char dir[PATH_MAX], path[2 * PATH_MAX];
	struct nprof_model *m;
	struct scratch s;
	struct fakex x;
	struct stat sb;
	int n, ret = -1;

	memset(out, 0, sizeof(*out));
	if (scratch_enter(&s))
		return -1;
	if (fakex_setup(&x, 1))
		goto leave;
	x.dev[0]->info.max_ring_size = 4096;
	x.fd[0]->pace = true;
	cfg = cfg_new("out", NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_SESSION);
	for (uint32_t nc = 0; nc < NPROF_MAX_CORES; nc++)
		nprof_inspect_config_set_capture_enabled_for_nc(cfg, nc, nc == 2);
	CHECK_INT(nprof_inspect_config_set_capture_max_size(cfg, limit), 0);
	CHECK_INT(nprof_inspect_config_set_capture_compression(cfg, level), 0);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK(nprof_inspect_session_dir(dir, sizeof(dir)) > 0);
	m = nprof_model_load("big", 5, 2);
	CHECK(m != NULL);
	CHECK_INT(m ? nprof_model_sim_execute(m, &p, &res) : -1, 0);
	CHECK_INT(nprof_inspect_stop(), 0);
	snprintf(path, sizeof(path), "%s/profile_nc_2_session_0.ntff", dir);
	r = nprof_ntff_reader_open(path, 0);
	if (r) {
		out->major = nprof_ntff_reader_header(r)->version_major;
		n = nprof_ntff_reader_queue_count(r);
		for (int i = 0; i < n; i++) {
			struct nprof_ntff_queue q = { .size = sizeof(q) };
			struct nprof_ntff_chunk_iter it;
			const void *e;
			int k;

			CHECK_INT(nprof_ntff_reader_queue(r, (size_t)i, &q), 0);
			out->lost += q.lost_count;
			/* Every entry through the one-pass reader: each block verified. */
			CHECK_INT(nprof_ntff_chunk_iter_init(&it, r, (size_t)i), 0);
			while ((k = nprof_ntff_chunk_iter_next(&it, &e)) > 0)
				out->entries += (uint64_t)k;
			CHECK_INT(k, 0);
		}
		nprof_ntff_reader_close(r);
		ret = stat(path, &sb) ? -1 : 0;
		out->size = sb.st_size;
	} else {
		printf("#   %s\n", nprof_strerror_last());
	}
	nprof_model_unload(m);
	nprof_inspect_close();
	nprof_inspect_config_free(cfg);
	fakex_teardown(&x);
leave:
	scratch_leave(&s);
	return ret;
}

TEST(session_compressed_holds_every_entry)
{
	struct run plain, z;

	CHECK_INT(capture(ITERATIONS, 0, 0, &plain), 0);
	CHECK_INT(capture(ITERATIONS, 1, 0, &z), 0);
	CHECK_INT(plain.major, NPROF_NTFF_VERSION_MAJOR);
	CHECK_INT(z.major, NPROF_NTFF_VERSION_MAJOR_ZSTD);
	CHECK_INT(plain.entries, (uint64_t)QUEUES * ITERATIONS);
	CHECK_INT(z.entries, (uint64_t)QUEUES * ITERATIONS);
	CHECK_INT(z.lost, 0);
	CHECK(z.size < plain.size / 2);
	printf("#   plain %lld bytes, zstd %lld bytes\n", (long long)plain.size, (long long)z.size);
}

TEST(session_compressed_limit_counts_bytes_stored)
{
	struct run plain, z;

	CHECK_INT(capture(ITERATIONS, 0, LIMIT, &plain), 0);
	CHECK_INT(capture(ITERATIONS, 1, LIMIT, &z), 0);
	CHECK_INT(plain.entries + plain.lost, (uint64_t)QUEUES * ITERATIONS);
	CHECK_INT(z.entries + z.lost, (uint64_t)QUEUES * ITERATIONS);
	CHECK(plain.lost > 0);
	CHECK((uint64_t)z.size <= LIMIT);
	/* The stored bytes are counted: more of the run fits compressed. */
	CHECK(z.entries > plain.entries);
	printf("#   under %llu bytes: plain %llu entries in %lld bytes, zstd %llu entries in %lld bytes\n",
	       (unsigned long long)LIMIT, (unsigned long long)plain.entries, (long long)plain.size,
	       (unsigned long long)z.entries, (long long)z.size);
}

/* Five times as much: even compressed it passes the limit, and stops within it. */
TEST(session_compressed_stops_at_the_limit)
{
	struct run z;

	CHECK_INT(capture(5 * ITERATIONS, 1, LIMIT, &z), 0);
	CHECK_INT(z.entries + z.lost, (uint64_t)QUEUES * 5 * ITERATIONS);
	CHECK(z.lost > 0);
	CHECK(z.entries > 0);
	CHECK((uint64_t)z.size <= LIMIT);
	printf("#   under %llu bytes: zstd %llu entries, %llu lost, in %lld bytes\n",
	       (unsigned long long)LIMIT, (unsigned long long)z.entries,
	       (unsigned long long)z.lost, (long long)z.size);
}

int main(void)
{
	return harness_main();
}
