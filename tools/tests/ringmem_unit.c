// SPDX-License-Identifier: MIT
/*
 * Unit tests of the --ring-size grammar and the ring memory check
 * (neuronprof/util/ringmem.c), run by tests/run.sh:
 *   ringmem_unit WORK_DIR
 * WORK_DIR is an empty directory the tests make a fake /proc and /sys in.
 * Prints "ok N - name" or "not ok N - name" and exits 1 if anything failed.
 *
 *  - sizes take K, M, G (either case), must be powers of two within
 *    [min, 1G], and each refusal says why in the same units;
 *  - a plan adds every ring with its header and consumer pages;
 *  - the check refuses a ring above the device's maximum, and a total
 *    above the memlock, cgroup or available-memory limit, naming the total
 *    and the limit; at the limit it passes;
 *  - the limits are read from MemAvailable, the cgroup v2 hierarchy (the
 *    tightest ancestor) and neuronprof.mlock_kb.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/ringmem.h"
#include "util/util.h"
#include "../../lib/tests/harness.h"

static void size_ok(const char *s, uint64_t min, uint64_t want)
{
	uint64_t v = 0;
	int r = parse_ring_size("--ring-size", s, min, &v);
	char name[96];

	snprintf(name, sizeof(name), "ring size %s is %llu", s, (unsigned long long)want);
	harness_check(!r && v == want, name, "returned %d, value %llu", r, (unsigned long long)v);
}

static void size_bad(const char *s, uint64_t min)
{
	uint64_t v = 12345;
	int r = parse_ring_size("--ring-size", s, min, &v);
	char name[96];

	snprintf(name, sizeof(name), "ring size '%s' (min %llu) is refused", s,
		 (unsigned long long)min);
	harness_check(r == -1 && v == 12345, name, "returned %d, value %llu", r, (unsigned long long)v);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

/*
 * The plan @p checked against the limits @l, on a device whose rings are
 * at most 64 MiB: refused (-1) when @refused, and then its reason holds
 * each of the strings that follow @what (up to a NULL).
 */
static void plan_case(const struct ring_plan *p, const struct ring_limits *l, bool refused,
		      const char *what, ...)
{
	char why[512] = "";
	const char *s;
	bool ok;
	va_list ap;
	int r;

	r = ring_plan_check(p, 64ULL << 20, l, why, sizeof(why));
	ok = refused ? r == -1 : r == 0;
	va_start(ap, what);
	while (ok && refused && (s = va_arg(ap, const char *)))
		ok = strstr(why, s) != NULL;
	va_end(ap);
	harness_check(ok, what, "returned %d: %s", r, why);
}

int main(int argc, char **argv)
{
	const uint64_t page = 4096, M = 1ULL << 20;
	struct ring_limits none = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX }, l;
	struct ring_plan p = { 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: ringmem_unit WORK_DIR\n");
		return 2;
	}

	/* The grammar. */
	size_ok("4K", RING_SIZE_MIN, 4096);
	size_ok("4096", RING_SIZE_MIN, 4096);
	size_ok("256k", RING_SIZE_MIN, 256 << 10);
	size_ok("2048K", RING_SIZE_MIN_RECORD, 2 * M);
	size_ok("64M", RING_SIZE_MIN_RECORD, 64 * M);
	size_ok("1G", RING_SIZE_MIN, 1ULL << 30);
	size_ok("1g", RING_SIZE_MIN_RECORD, 1ULL << 30);
	size_bad("2G", RING_SIZE_MIN);
	size_bad("16G", RING_SIZE_MIN_RECORD);
	size_bad("2K", RING_SIZE_MIN);
	size_bad("512K", RING_SIZE_MIN_RECORD);
	size_bad("3M", RING_SIZE_MIN);
	size_bad("1536K", RING_SIZE_MIN_RECORD);
	size_bad("8T", RING_SIZE_MIN);
	size_bad("-1", RING_SIZE_MIN);
	size_bad("", RING_SIZE_MIN);
	size_bad("1MB", RING_SIZE_MIN);
	size_bad("0", RING_SIZE_MIN);

	/* A plan: 24 rings of 64 MiB, as record --ring-size 64M --cores 0. */
	ring_plan_add(&p, 64 * M, 24, page);
	p.fewer = " or fewer --cores";
	harness_check(p.total == 24 * (64 * M + 2 * page) && p.rings == 24 && p.largest == 64 * M,
		      "a plan counts each ring with its two pages", "total %llu rings %zu largest %llu",
		      (unsigned long long)p.total, p.rings, (unsigned long long)p.largest);

	plan_case(&p, &none, false, "no limit: 24 x 64M passes", NULL);
	l = none;
	l.mem_available = 800 * M;
	l.avail = 400 * M;
	plan_case(&p, &l, true, "24 x 64M above half of MemAvailable: refused, naming total and limit",
		  "24 rings take 1.5 GiB", "400 MiB", "MemAvailable 800 MiB", "or fewer --cores", NULL);
	l = none;
	l.memlock = 64 * M;
	plan_case(&p, &l, true, "above the memlock limit: refused, naming total and limit",
		  "1.5 GiB", "64 MiB", "RLIMIT_MEMLOCK", NULL);
	l = none;
	l.cgroup = 100 * M;
	plan_case(&p, &l, true, "above the cgroup's room: refused, naming total and limit",
		  "1.5 GiB", "100 MiB", "cgroup", NULL);
	l = none;
	l.avail = p.total;
	plan_case(&p, &l, false, "exactly at the limit: passes", NULL);
	l.avail = p.total - 1;
	plan_case(&p, &l, true, "one byte above the limit: refused", NULL);

	memset(&p, 0, sizeof(p));
	ring_plan_add(&p, 1ULL << 30, 1, page);
	plan_case(&p, &none, true, "a ring above the device's maximum: refused",
		  "1 GiB ring", "max_ring_size 64 MiB", "--ring-size 64M or less", NULL);

	/* The limits from a fake /proc and /sys. */
	put(argv[1], "proc/meminfo", "MemTotal:        1000000 kB\nMemAvailable:     819200 kB\n");
	put(argv[1], "proc/self/cgroup", "0::/system.slice/np.service\n");
	put(argv[1], "proc/self/status", "Name:\tx\nCapEff:\t0000000000000000\n");
	put(argv[1], "sys/fs/cgroup/system.slice/np.service/memory.max", "max\n");
	put(argv[1], "sys/fs/cgroup/system.slice/np.service/memory.current", "1000\n");
	put(argv[1], "sys/fs/cgroup/system.slice/memory.max", "209715200\n");
	put(argv[1], "sys/fs/cgroup/system.slice/memory.current", "104857600\n");
	put(argv[1], "sys/module/neuronprof/parameters/mlock_kb", "8256\n");
	ring_limits_read(&l, argv[1]);
	harness_check(l.mem_available == 800 * M && l.avail == 400 * M,
		      "MemAvailable read, half of it for rings", "available %llu share %llu",
		      (unsigned long long)l.mem_available, (unsigned long long)l.avail);
	harness_check(l.cgroup == 100 * M, "the tightest cgroup ancestor's room", "cgroup %llu",
		      (unsigned long long)l.cgroup);
	harness_check(l.memlock == UINT64_MAX || l.memlock >= 8256ULL * 1024,
		      "memlock: RLIMIT_MEMLOCK plus mlock_kb (or unlimited)", "memlock %llu",
		      (unsigned long long)l.memlock);
	put(argv[1], "proc/self/status", "Name:\tx\nCapEff:\t0000000000004000\n");
	ring_limits_read(&l, argv[1]);
	harness_check(l.memlock == UINT64_MAX, "CAP_IPC_LOCK lifts the memlock limit", "memlock %llu",
		      (unsigned long long)l.memlock);

	return harness_done();
}
