// SPDX-License-Identifier: MIT
/*
 * The CRC32C paths at the edges of their loops: the three-stream crc32
 * path (which prefetches 8 KiB ahead of what it reads) and the path the
 * library chooses, against the tables, for every length around the
 * three-stream loops' steps (3 x 4096 and 3 x 256 bytes), an NTFF block
 * (16 KiB) and its neighbours, at every start alignment, on buffers that end
 * right before an inaccessible page: a load past the end faults, a
 * prefetch past it must not.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "harness.h"
#include "util/internal.h"

/* @len bytes ending right before a PROT_NONE page; NULL if mapping failed. */
static unsigned char *at_guard(unsigned char *area, size_t area_len, size_t len)
{
	return len <= area_len ? area + area_len - len : NULL;
}

TEST(crc32c_loop_edges_against_tables)
{
	static const size_t lens[] = {
		0, 1, 7, 8, 9, 255, 256, 767, 768, 769, 1023, 1024, 1025, 1535, 1536,
		4095, 4096, 12287, 12288, 12289, 12288 + 767, 12288 + 768, 16383, 16384,
		16385, 24575, 24576, 24577, 3 * 16384 + 5, 65536, 65536 + 12288 + 768 + 9,
	};
	size_t page = (size_t)sysconf(_SC_PAGESIZE), area_len = 128 << 10;
	unsigned char *map, *area;
	size_t i, k, off;

	map = mmap(NULL, area_len + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	CHECK(map != MAP_FAILED);
	if (map == MAP_FAILED)
		return;
	area = map;
	CHECK(!mprotect(area + area_len, page, PROT_NONE));
	for (i = 0; i < area_len; i++)
		area[i] = (unsigned char)(i * 2654435761u >> 13);
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
		for (off = 0; off < 8; off++) {
			/* The data ends at the guard page; @off moves its start. */
			unsigned char *p = at_guard(area, area_len - off, lens[k]);
			uint32_t sw, hw, any;

			if (!p)
				continue;
			sw = nprof_crc32c_update_sw(0x12345678u, p, lens[k]);
			hw = nprof_crc32c_update_crc32_insn(0x12345678u, p, lens[k]);
			any = nprof_crc32c_update(0x12345678u, p, lens[k]);
			if (sw != hw || sw != any)
				FAIL("length %zu at offset %zu: tables 0x%08x, crc32 streams 0x%08x, chosen path 0x%08x",
				     lens[k], off, sw, hw, any);
		}
	munmap(map, area_len + page);
}

/* Blocks of an NTFF file checked one by one, as the reader's chunk iterator does. */
TEST(crc32c_consecutive_blocks_match_one_pass)
{
	size_t len = 40 * 16384 + 4096, i;
	unsigned char *buf = malloc(len);
	uint32_t whole = 0, sum = 0;

	CHECK(buf != NULL);
	if (!buf)
		return;
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(i ^ (i >> 9));
	whole = nprof_crc32c_update_sw(0, buf, len);
	for (i = 0; i < len; i += 16384)
		sum = nprof_crc32c_update(sum, buf + i, len - i < 16384 ? len - i : 16384);
	if (sum != whole)
		FAIL("blockwise 0x%08x, whole 0x%08x", sum, whole);
	free(buf);
}

HARNESS_MAIN
