// SPDX-License-Identifier: MIT
/*
 * Host tests of the NTFF container: CRC32C (the standard vectors, and the
 * hardware and table paths agreeing).
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

TEST(crc32c_vectors_and_paths)
{
	static unsigned char buf[100003];
	uint32_t whole, part;
	size_t i, len, off, split;

	CHECK(nprof_crc32c_update(0, "123456789", 9) == 0xe3069283u);
	CHECK(nprof_crc32c_update_sw(0, "123456789", 9) == 0xe3069283u);
	CHECK(nprof_crc32c_update(0, "", 0) == 0);
	srand(7);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rand();
	/* Folding, three streams (both block sizes) and tables all agree. */
	for (i = 0; i < 400; i++) {
		off = (size_t)rand() % 16;
		len = (size_t)rand() % (sizeof(buf) - off);
		if (i == 0)
			len = sizeof(buf) - off;
		else if (i < 200)
			len = (size_t)rand() % 1024;	/* around the folding threshold */
		whole = nprof_crc32c_update(0, buf + off, len);
		if (whole != nprof_crc32c_update_sw(0, buf + off, len) ||
		    whole != nprof_crc32c_update_crc32_insn(0, buf + off, len))
			FAIL("crc mismatch at off %zu len %zu", off, len);
		split = len ? (size_t)rand() % len : 0;
		part = nprof_crc32c_update(0, buf + off, split);
		part = nprof_crc32c_update(part, buf + off + split, len - split);
		if (part != whole)
			FAIL("incremental crc differs at split %zu of %zu", split, len);
	}
	printf("# crc32c hardware path: %s\n", nprof_crc32c_hw_available() ? "yes" : "no");
}

HARNESS_MAIN
