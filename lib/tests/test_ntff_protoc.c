// SPDX-License-Identifier: MIT
/*
 * Host tests of the NTFF metadata against an independent protobuf
 * implementation: protoc decodes the code names and the metadata.
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

/* A line that protoc's decoding must print, and how many times. */
struct decoded_line {
	const char *text;
	int times;
};

/*
 * Decode the metadata of @r (closed here; NULL fails the case) with protoc
 * and proto/ntff.proto, through a file in the scratch directory: each of
 * the @n @lines must be printed as many times as it says.
 */
static void check_protoc_decode(struct nprof_ntff_reader *r, const struct decoded_line *lines,
				size_t n)
{
	char meta[PATH_MAX], cmd[3 * PATH_MAX], line[512];
	int seen[16] = { 0 };
	const void *m;
	size_t mlen, i;
	FILE *p;

	CHECK(r != NULL);
	CHECK(n <= sizeof(seen) / sizeof(seen[0]));
	if (r && n <= sizeof(seen) / sizeof(seen[0])) {
		m = nprof_ntff_reader_metadata(r, &mlen);
		snprintf(meta, sizeof(meta), "%s/meta.bin", dir);
		CHECK(!write_whole(meta, m, mlen));
		snprintf(cmd, sizeof(cmd),
			 "protoc --decode=neuronprof.ntff.ntff_info -I'%s' '%s/ntff.proto' < '%s' 2>&1",
			 PROTO_DIR, PROTO_DIR, meta);
		p = popen(cmd, "r");
		CHECK(p != NULL);
		while (p && fgets(line, sizeof(line), p))
			for (i = 0; i < n; i++)
				seen[i] += !strcmp(line, lines[i].text);
		CHECK(p && pclose(p) == 0);
	}
	if (r)
		nprof_ntff_reader_close(r);
	for (i = 0; i < n && i < sizeof(seen) / sizeof(seen[0]); i++)
		if (seen[i] != lines[i].times)
			FAIL("protoc printed \"%.*s\" %d times, expected %d",
			     (int)strcspn(lines[i].text, "\n"), lines[i].text, seen[i], lines[i].times);
}

/* Any protobuf decoder sees the names with proto/ntff.proto. */
TEST(ntff_code_names_decode_with_protoc)
{
	static const struct decoded_line want[] = {
		{ "  code_names {\n", 5 },
		{ "    name: \"matmult\"\n", 2 },
		{ "    code: 32513\n", 1 },
	};
	struct sample s;

	if (system("protoc --version > /dev/null 2>&1"))
		SKIP("protoc is not installed");
	CHECK_INT(load_named_sample(&s), 0);
	if (!s.buf || !fresh_dir()) {
		free(s.buf);
		return;
	}
	check_protoc_decode(nprof_ntff_reader_open_mem(s.buf, s.len, NPROF_NTFF_READ_VERIFY_AT_OPEN),
			    want, sizeof(want) / sizeof(want[0]));
	rm_rf(dir);
	free(s.buf);
}

TEST(ntff_metadata_decodes_with_protoc)
{
	static const struct decoded_line want[] = {
		{ "trace {\n", 3 },
		{ "model_name: \"resnet50\"\n", 1 },
		{ "  trace_type: NTT_INSTRUCTION\n", 1 },
		{ "  block_type: BLOCK_TOPSP\n", 1 },
		{ "  lost_count: 5\n", 1 },
		{ "  last_seq: 1043\n", 1 },
	};
	char path[PATH_MAX];

	if (system("protoc --version > /dev/null 2>&1"))
		SKIP("protoc is not installed");
	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	CHECK_INT(ntff_test_write_sample(dir, "p.ntff", path, sizeof(path)), 0);
	check_protoc_decode(nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN), want,
			    sizeof(want) / sizeof(want[0]));
	rm_rf(dir);
}

HARNESS_MAIN
