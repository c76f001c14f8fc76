// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the --ring-size grammar and the ring memory check
 * (ringmem.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util/ringmem.h"
#include "util/util.h"

int parse_ring_size(const char *what, const char *s, uint64_t min, uint64_t *out)
{
	uint64_t v;

	if (parse_u64(what, s, min, RING_SIZE_MAX, true, &v))
		return -1;
	if (v & (v - 1)) {
		usage_error("%s: %s is not a power of two (rings are %s, %s, %s ... 1G)", what, s,
			    min == RING_SIZE_MIN ? "4K" : "1M", min == RING_SIZE_MIN ? "8K" : "2M",
			    min == RING_SIZE_MIN ? "16K" : "4M");
		return -1;
	}
	*out = v;
	return 0;
}

void ring_plan_add(struct ring_plan *p, uint64_t size, size_t count, uint64_t page)
{
	p->total += (uint64_t)count * (size + RING_EXTRA_PAGES * page);
	p->rings += count;
	if (count && size > p->largest)
		p->largest = size;
}

const char *ring_bytes_str(uint64_t v, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int u = -1;

	while (d >= 1024 && u < 3) {
		d /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64 " bytes", v);
	else if (d == (double)(uint64_t)d)
		snprintf(buf, len, "%" PRIu64 " %s", (uint64_t)d, units[u]);
	else
		snprintf(buf, len, "%.1f %s", d, units[u]);
	return buf;
}

/* The first number in file @path after @key (NULL: at its start); 0 if found. */
static int read_num(const char *path, const char *key, uint64_t *out)
{
	char line[512];
	FILE *f = fopen(path, "re");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;
		char *end;

		if (key) {
			if (strncmp(line, key, strlen(key)))
				continue;
			p += strlen(key);
		}
		while (*p == ' ' || *p == '\t')
			p++;
		*out = strtoull(p, &end, key && !strcmp(key, "CapEff:") ? 16 : 10);
		ret = end == p ? -1 : 0;
		break;
	}
	fclose(f);
	return ret;
}

/* Room left in the memory cgroup of this process and its ancestors (v2). */
static uint64_t cgroup_room(const char *root)
{
	char path[4096], line[4096], dir[4096];
	uint64_t room = UINT64_MAX, max, cur;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/self/cgroup", root);
	f = fopen(path, "re");
	if (!f)
		return UINT64_MAX;
	dir[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(dir, sizeof(dir), "%s", line + 3);
			break;
		}
	}
	fclose(f);
	if (!dir[0])
		return UINT64_MAX;	/* cgroup v1 only: not looked at */
	for (;;) {
		char *slash;

		snprintf(path, sizeof(path), "%s/sys/fs/cgroup%s/memory.max", root,
			 strcmp(dir, "/") ? dir : "");
		/* "max" is no number: no limit at this level. */
		if (!read_num(path, NULL, &max)) {
			snprintf(path, sizeof(path), "%s/sys/fs/cgroup%s/memory.current", root,
				 strcmp(dir, "/") ? dir : "");
			if (!read_num(path, NULL, &cur) && max - (cur < max ? cur : max) < room)
				room = max - (cur < max ? cur : max);
		}
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	return room;
}

void ring_limits_read(struct ring_limits *l, const char *root)
{
	char path[4096];
	uint64_t v, caps;
	struct rlimit rl;

	l->memlock = UINT64_MAX;
	l->cgroup = cgroup_room(root);
	l->avail = UINT64_MAX;
	l->mem_available = UINT64_MAX;

	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	if (!read_num(path, "MemAvailable:", &v)) {
		l->mem_available = v * 1024;
		l->avail = l->mem_available / RING_MEM_AVAIL_SHARE;
	}
	/* CAP_IPC_LOCK (bit 14) lifts the locked-memory limit, as for mlock(). */
	snprintf(path, sizeof(path), "%s/proc/self/status", root);
	if (!read_num(path, "CapEff:", &caps) && (caps & (1ULL << 14)))
		return;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return;
	l->memlock = (uint64_t)rl.rlim_cur;
	snprintf(path, sizeof(path), "%s/sys/module/neuronprof/parameters/mlock_kb", root);
	if (!read_num(path, NULL, &v))
		l->memlock += v * 1024;
}

/* @v in the --ring-size grammar: "64M", "256K", "1G" (a power of two). */
static const char *grammar_str(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMG";
	int u = -1;

	while (v && u < 2 && !(v & 1023)) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64, v);
	else
		snprintf(buf, len, "%" PRIu64 "%c", v, units[u]);
	return buf;
}

int ring_plan_check(const struct ring_plan *p, uint64_t device_max, const struct ring_limits *l,
		    char *why, size_t len)
{
	const char *fewer = p->fewer ? p->fewer : "";
	char total[32], lim[32], a[32], b[32];

	if (device_max && p->largest > device_max) {
		snprintf(why, len, "a %s ring is larger than the device takes (max_ring_size %s); use --ring-size %s or less",
			 ring_bytes_str(p->largest, a, sizeof(a)),
			 ring_bytes_str(device_max, b, sizeof(b)),
			 grammar_str(device_max, lim, sizeof(lim)));
		return -1;
	}
	ring_bytes_str(p->total, total, sizeof(total));
	if (p->total > l->memlock) {
		snprintf(why, len, "%zu rings take %s of locked memory, more than this process may lock (%s: RLIMIT_MEMLOCK plus neuronprof.mlock_kb); use a smaller --ring-size%s, raise `ulimit -l`, or run with CAP_IPC_LOCK",
			 p->rings, total, ring_bytes_str(l->memlock, lim, sizeof(lim)), fewer);
		return -1;
	}
	if (p->total > l->cgroup) {
		snprintf(why, len, "%zu rings take %s, more than the room left in this process's memory cgroup (%s: memory.max - memory.current); use a smaller --ring-size%s",
			 p->rings, total, ring_bytes_str(l->cgroup, lim, sizeof(lim)), fewer);
		return -1;
	}
	if (p->total > l->avail) {
		snprintf(why, len, "%zu rings take %s, more than the rings may take of this host's available memory (%s: 1/%d of MemAvailable %s; ring memory cannot be swapped); use a smaller --ring-size%s",
			 p->rings, total, ring_bytes_str(l->avail, lim, sizeof(lim)), RING_MEM_AVAIL_SHARE,
			 ring_bytes_str(l->mem_available, a, sizeof(a)), fewer);
		return -1;
	}
	return 0;
}
