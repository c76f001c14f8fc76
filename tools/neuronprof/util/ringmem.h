/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): ring sizes and the ring memory a command is about to ask
 * the kernel for (util/ringmem.c).
 *
 * One grammar for --ring-size in every command (record, top, exporter):
 * a whole number of bytes with an optional K, M or G suffix (KiB, MiB,
 * GiB), a power of two, at most RING_SIZE_MAX. Each command has its
 * smallest size: top and exporter RING_SIZE_MIN (a page), record
 * RING_SIZE_MIN_RECORD (the runtime's variables and the inspect
 * configuration count whole MiB).
 *
 * Before subscribing, a command adds up the memory of every ring it will
 * ask for (data area plus the header and consumer pages) and refuses,
 * naming the total and the limit, when a ring is above the device's
 * max_ring_size or the total is above what the host lets it lock: the
 * locked-memory allowance (neuronprof.mlock_kb plus RLIMIT_MEMLOCK, unless
 * the process has CAP_IPC_LOCK), the room left in its memory cgroup and
 * its ancestors (memory.max - memory.current), and RING_MEM_AVAIL_SHARE of
 * the host's MemAvailable. The rings are kernel memory nothing can swap or
 * reclaim: asking for more than that gets the process, or the workload,
 * OOM-killed rather than refused.
 */
#ifndef NEURONPROF_RINGMEM_H
#define NEURONPROF_RINGMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RING_SIZE_MIN		4096ULL			/* top, exporter */
#define RING_SIZE_MIN_RECORD	(1ULL << 20)		/* record: whole MiB */
#define RING_SIZE_MAX		(1ULL << 30)		/* the core's NPROF_RING_SIZE_LIMIT */
/* Pages of a subscription besides its data area: header and consumer. */
#define RING_EXTRA_PAGES	2
/* Rings may take at most 1/RING_MEM_AVAIL_SHARE of MemAvailable. */
#define RING_MEM_AVAIL_SHARE	2

/*
 * parse_ring_size() - the one --ring-size grammar (see above), at least
 * @min. Return: 0, or -1 after printing a usage error naming @what.
 */
int parse_ring_size(const char *what, const char *s, uint64_t min, uint64_t *out);

/* The rings a command is about to ask for. */
struct ring_plan {
	uint64_t total;		/* bytes of every ring, with its two pages */
	uint64_t largest;	/* the largest data area */
	size_t rings;
	const char *fewer;	/* more advice, e.g. " or fewer --cores" (NULL: none) */
};

/* @count rings of @size data bytes each; @page is the page size. */
void ring_plan_add(struct ring_plan *p, uint64_t size, size_t count, uint64_t page);

/* What limits the rings of this process; unknown members are UINT64_MAX. */
struct ring_limits {
	uint64_t memlock;	/* mlock_kb allowance + RLIMIT_MEMLOCK */
	uint64_t cgroup;	/* room left in the memory cgroup (tightest ancestor) */
	uint64_t avail;		/* MemAvailable / RING_MEM_AVAIL_SHARE */
	uint64_t mem_available;	/* MemAvailable itself, for the message */
};

/*
 * ring_limits_read() - the limits of the calling process, from the files
 * under @root ("" on a live system: /proc, /sys; a test directory in unit
 * tests), RLIMIT_MEMLOCK and CAP_IPC_LOCK of /proc/self/status.
 */
void ring_limits_read(struct ring_limits *l, const char *root);

/*
 * ring_plan_check() - whether the rings of @p may be asked for: each at
 * most @device_max bytes, all of them within @l. On refusal writes into
 * @why (what was asked, its total, the limit and what to change) and
 * returns -1; 0 when they fit.
 */
int ring_plan_check(const struct ring_plan *p, uint64_t device_max, const struct ring_limits *l,
		    char *why, size_t len);

/* "1.5 GiB", "64 MiB", "12 KiB", "100 bytes" */
const char *ring_bytes_str(uint64_t v, char *buf, size_t len);

#endif /* NEURONPROF_RINGMEM_H */
