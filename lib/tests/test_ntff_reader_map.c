// SPDX-License-Identifier: MIT
/*
 * How the reader maps a file: a file of 2 MiB or more is mapped with
 * MADV_HUGEPAGE (the "hg" flag of its mapping in /proc/self/smaps), so
 * that what is read into the page cache for it comes in 2 MiB folios; a
 * smaller one is not; the entries read back the same either way, in both
 * modes.
 */
#include <stdint.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#include "harness.h"

#define ENTRIES_PER_APPEND	4096

/* A file of @n entries (seq = index) as @dir/@name; 0 or -1. */
static int write_file(const char *dir, const char *name, size_t n)
{
	struct nprof_ntff_queue_desc q = { .size = sizeof(q), .queue_type = NEURONPROF_QT_TRACE,
					    .entry_size = sizeof(struct neuronprof_notification) };
	struct neuronprof_notification *e = calloc(ENTRIES_PER_APPEND, sizeof(*e));
	struct nprof_ntff_writer *w = nprof_ntff_writer_create(dir, name, 0);
	size_t done = 0, k;
	int ret = 0;

	if (!e || !w) {
		free(e);
		if (w)
			nprof_ntff_writer_abort(w);
		return -1;
	}
	while (!ret && done < n) {
		size_t m = n - done < ENTRIES_PER_APPEND ? n - done : ENTRIES_PER_APPEND;

		for (k = 0; k < m; k++) {
			e[k].seq = done + k;
			e[k].timestamp_ns = 100 * (done + k);
		}
		if (nprof_ntff_writer_append(w, &q, e, m * sizeof(*e), NULL, 0) < 0)
			ret = -1;
		done += m;
	}
	free(e);
	if (ret) {
		nprof_ntff_writer_abort(w);
		return -1;
	}
	return nprof_ntff_writer_finalize(w) ? -1 : 0;
}

/* 1: the mapping of @path has VmFlags "hg"; 0: it has not; -1: no mapping of it. */
static int mapped_hugepage(const char *path)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[4352];
	bool ours = false;
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line), k = strlen(path), h;

		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		h = strspn(line, "0123456789abcdef");
		if (h && line[h] == '-') {
			ours = n >= k && !strcmp(line + n - k, path);
			continue;
		}
		if (ours && !strncmp(line, "VmFlags:", 8)) {
			found = strstr(line, " hg") ? 1 : 0;
			if (found == 1)
				break;
		}
	}
	fclose(f);
	return found;
}

/* Every entry of @path in @flags's mode, in order; the count or -1. */
static long long read_all(struct nprof_ntff_reader *r, bool chunks)
{
	struct nprof_ntff_queue q = { .size = sizeof(q) };
	long long count = 0;

	if (nprof_ntff_reader_queue_count(r) != 1 || nprof_ntff_reader_queue(r, 0, &q))
		return -1;
	if (chunks) {
		struct nprof_ntff_chunk_iter it;
		const unsigned char *p;
		int n;

		if (nprof_ntff_chunk_iter_init(&it, r, 0))
			return -1;
		while ((n = nprof_ntff_chunk_iter_next(&it, (const void **)&p)) > 0)
			for (; n; n--, p += q.entry_size, count++)
				if (((const struct neuronprof_notification *)(const void *)p)->seq !=
				    (uint64_t)count)
					return -1;
		return n < 0 ? -1 : count;
	} else {
		struct nprof_ntff_entry_iter it;
		const struct neuronprof_notification *e;

		nprof_ntff_entry_iter_init(&it, &q);
		while ((e = nprof_ntff_entry_iter_next(&it)))
			if (e->seq != (uint64_t)count++)
				return -1;
		return count;
	}
}

static void check_file(size_t entries, bool want_hg)
{
	char dir[] = "/tmp/nprof-test-map-XXXXXX", path[64];
	unsigned int modes[] = { 0, NPROF_NTFF_READ_VERIFY_AT_OPEN };

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/m.ntff", dir);
	CHECK(!write_file(dir, "m.ntff", entries));
	for (size_t m = 0; m < 2; m++) {
		struct nprof_ntff_reader *r = nprof_ntff_reader_open(path, modes[m]);
		int hg;

		CHECK(r != NULL);
		if (!r)
			continue;
		hg = mapped_hugepage(path);
		if (hg < 0)
			FAIL("no mapping of %s in /proc/self/smaps", path);
		else if (want_hg && access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0)
			CHECK_INT(hg, 1);
		else if (!want_hg)
			CHECK_INT(hg, 0);
		if (read_all(r, !modes[m]) != (long long)entries)
			FAIL("%zu entries read back wrong in mode %u", entries, modes[m]);
		nprof_ntff_reader_close(r);
	}
	rm_rf(dir);
}

TEST(reader_maps_a_large_file_with_hugepage_advice)
{
	/* 4 MiB of 64-byte entries. */
	check_file(65536, true);
}

TEST(reader_leaves_a_small_file_without_it)
{
	/* 64 KiB: below the 2 MiB threshold. */
	check_file(1024, false);
}

HARNESS_MAIN
