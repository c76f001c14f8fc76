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

/* Any protobuf decoder sees the names with proto/ntff.proto. */
TEST(ntff_code_names_decode_with_protoc)
{
	char meta[PATH_MAX], cmd[3 * PATH_MAX], line[512];
	struct nprof_ntff_reader *r;
	struct sample s;
	const void *m;
	size_t mlen;
	FILE *p;
	int names = 0, matmult = 0, topsp = 0;

	if (system("protoc --version > /dev/null 2>&1"))
		SKIP("protoc is not installed");
	CHECK_INT(load_named_sample(&s), 0);
	if (!s.buf || !fresh_dir()) {
		free(s.buf);
		return;
	}
	r = nprof_ntff_reader_open_mem(s.buf, s.len, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (r) {
		m = nprof_ntff_reader_metadata(r, &mlen);
		snprintf(meta, sizeof(meta), "%s/meta.bin", dir);
		CHECK(!write_whole(meta, m, mlen));
		nprof_ntff_reader_close(r);
		snprintf(cmd, sizeof(cmd),
			 "protoc --decode=neuronprof.ntff.ntff_info -I'%s' '%s/ntff.proto' < '%s' 2>&1",
			 PROTO_DIR, PROTO_DIR, meta);
		p = popen(cmd, "r");
		CHECK(p != NULL);
		while (p && fgets(line, sizeof(line), p)) {
			names += !strcmp(line, "  code_names {\n");
			matmult += !strcmp(line, "    name: \"matmult\"\n");
			topsp += !strcmp(line, "    code: 32513\n");
		}
		CHECK(p && pclose(p) == 0);
	}
	CHECK_INT(names, 5);
	CHECK_INT(matmult, 2);
	CHECK_INT(topsp, 1);
	rm_rf(dir);
	free(s.buf);
}

TEST(ntff_metadata_decodes_with_protoc)
{
	char path[PATH_MAX], meta[PATH_MAX], cmd[3 * PATH_MAX], line[512];
	struct nprof_ntff_reader *r;
	const void *m;
	size_t mlen;
	FILE *p;
	int traces = 0, saw_model = 0, saw_instr = 0, saw_topsp = 0, saw_lost = 0, saw_seq = 0;

	if (system("protoc --version > /dev/null 2>&1"))
		SKIP("protoc is not installed");
	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return;
	}
	CHECK_INT(ntff_test_write_sample(dir, "p.ntff", path, sizeof(path)), 0);
	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (!r) {
		rm_rf(dir);
		return;
	}
	m = nprof_ntff_reader_metadata(r, &mlen);
	snprintf(meta, sizeof(meta), "%s/meta.bin", dir);
	CHECK(!write_whole(meta, m, mlen));
	nprof_ntff_reader_close(r);

	snprintf(cmd, sizeof(cmd),
		 "protoc --decode=neuronprof.ntff.ntff_info -I'%s' '%s/ntff.proto' < '%s' 2>&1",
		 PROTO_DIR, PROTO_DIR, meta);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	while (p && fgets(line, sizeof(line), p)) {
		traces += !strcmp(line, "trace {\n");
		saw_model += !strcmp(line, "model_name: \"resnet50\"\n");
		saw_instr += !strcmp(line, "  trace_type: NTT_INSTRUCTION\n");
		saw_topsp += !strcmp(line, "  block_type: BLOCK_TOPSP\n");
		saw_lost += !strcmp(line, "  lost_count: 5\n");
		saw_seq += !strcmp(line, "  last_seq: 1043\n");
	}
	CHECK(p && pclose(p) == 0);
	CHECK_INT(traces, 3);
	CHECK_INT(saw_model, 1);
	CHECK_INT(saw_instr, 1);
	CHECK_INT(saw_topsp, 1);
	CHECK_INT(saw_lost, 1);
	CHECK_INT(saw_seq, 1);
	rm_rf(dir);
}

HARNESS_MAIN
