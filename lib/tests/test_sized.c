// SPDX-License-Identifier: MIT
/*
 * Host tests of the one check of caller-sized structs (util/sized.c,
 * NPROF_SIZED_VALID()): a struct the library reads must not carry a newer
 * caller's non-zero member it does not know, a struct it fills may be any
 * size from its first version up, and the public entry points apply it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <drm/neuronprof_drm.h>

#include "harness.h"
#include "util/internal.h"

/* A made-up struct of this library (24 bytes, first version 16). */
struct sized_demo {
	size_t size;
	uint64_t a;
	uint64_t b;		/* added in the second version */
};

#define DEMO_V1	offsetof(struct sized_demo, b)

/* A newer caller's struct: two members this library does not know. */
struct sized_demo_newer {
	struct sized_demo ours;
	uint64_t c;
	uint64_t d;
};

TEST(sized_too_small)
{
	struct sized_demo s = { .size = 8 };

	errno = 0;
	CHECK_INT(NPROF_SIZED_VALID(&s, sized_demo, NPROF_SIZED_IN), -EINVAL);
	CHECK_INT(errno, EINVAL);
	CHECK_STR(nprof_strerror_last(), "struct sized_demo size 8 is smaller than 24");
	CHECK_INT(NPROF_SIZED_VALID(&s, sized_demo, NPROF_SIZED_OUT), -EINVAL);
	s.size = DEMO_V1 - 1;
	CHECK_INT(NPROF_SIZED_VALID_SINCE(&s, sized_demo, DEMO_V1, NPROF_SIZED_OUT), -EINVAL);
	CHECK_STR(nprof_strerror_last(),
		  "struct sized_demo size 15 is smaller than 16 (this library's is 24)");
}

TEST(sized_first_version_and_ours)
{
	struct sized_demo s = { .size = DEMO_V1, .a = 1, .b = 0x5a5a };

	/* An older caller: its struct ends before b (b here is not its). */
	CHECK_INT(NPROF_SIZED_VALID_SINCE(&s, sized_demo, DEMO_V1, NPROF_SIZED_IN), 0);
	CHECK_INT(NPROF_SIZED_VALID_SINCE(&s, sized_demo, DEMO_V1, NPROF_SIZED_OUT), 0);
	/* ... which a check without a first version refuses. */
	CHECK_INT(NPROF_SIZED_VALID(&s, sized_demo, NPROF_SIZED_IN), -EINVAL);
	s.size = sizeof(s);
	CHECK_INT(NPROF_SIZED_VALID(&s, sized_demo, NPROF_SIZED_IN), 0);
	CHECK_INT(NPROF_SIZED_VALID(&s, sized_demo, NPROF_SIZED_OUT), 0);
}

TEST(sized_newer_caller)
{
	struct sized_demo_newer n;

	memset(&n, 0, sizeof(n));
	n.ours.size = sizeof(n);
	/* Members this library does not know, all zero: accepted. */
	CHECK_INT(NPROF_SIZED_VALID(&n.ours, sized_demo, NPROF_SIZED_IN), 0);
	/* One of them set: it reads the struct, so it refuses. */
	n.d = 1;
	errno = 0;
	CHECK_INT(NPROF_SIZED_VALID(&n.ours, sized_demo, NPROF_SIZED_IN), -EINVAL);
	CHECK_INT(errno, EINVAL);
	CHECK_STR(nprof_strerror_last(),
		  "struct sized_demo size 40 has a non-zero byte at offset 32, past the 24 bytes "
		  "this library knows");
	/* It fills the struct: the caller's bytes past ours are the caller's. */
	CHECK_INT(NPROF_SIZED_VALID(&n.ours, sized_demo, NPROF_SIZED_OUT), 0);
	/* A size smaller than the caller's whole struct hides what lies past it. */
	n.ours.size = offsetof(struct sized_demo_newer, d);
	CHECK_INT(NPROF_SIZED_VALID(&n.ours, sized_demo, NPROF_SIZED_IN), 0);
}

/* No more than NPROF_SIZED_TAIL_MAX bytes past ours are read. */
TEST(sized_tail_bound)
{
	size_t len = sizeof(struct sized_demo) + NPROF_SIZED_TAIL_MAX + 8;
	unsigned char *buf = calloc(1, len);
	struct sized_demo *s = (struct sized_demo *)buf;

	CHECK(buf != NULL);
	if (!buf)
		return;
	s->size = len;
	buf[sizeof(*s) + NPROF_SIZED_TAIL_MAX] = 1;
	CHECK_INT(NPROF_SIZED_VALID(s, sized_demo, NPROF_SIZED_IN), 0);
	buf[sizeof(*s) + NPROF_SIZED_TAIL_MAX - 1] = 1;
	CHECK_INT(NPROF_SIZED_VALID(s, sized_demo, NPROF_SIZED_IN), -EINVAL);
	free(buf);
}

/* The entry points use it: an input struct with a newer caller's member set. */
TEST(sized_entry_points_read)
{
	struct {
		struct nprof_instance_probe p;
		uint64_t newer;
	} probe;
	struct {
		struct nprof_monitor_opts o;
		uint64_t newer;
	} mon;
	char id[NPROF_INSTANCE_ID_MAX + 1];

	memset(&probe, 0, sizeof(probe));
	probe.p.size = sizeof(probe);
	probe.p.hostname = "sized-host";
	CHECK_INT(nprof_output_instance_id(&probe.p, id, sizeof(id)), 10);
	CHECK_STR(id, "sized-host");
	probe.newer = 7;
	CHECK_INT(nprof_output_instance_id(&probe.p, id, sizeof(id)), -EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "struct nprof_instance_probe size");
	CHECK_CONTAINS(nprof_strerror_last(), "has a non-zero byte at offset");

	memset(&mon, 0, sizeof(mon));
	mon.o.size = sizeof(mon);
	mon.newer = 1;
	errno = 0;
	CHECK(nprof_monitor_start(&mon.o) == NULL);
	CHECK_INT(errno, EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "monitor options size");
	CHECK_CONTAINS(nprof_strerror_last(), "has a non-zero byte at offset");
}

/* ... and a struct the library fills may be larger than it knows. */
TEST(sized_entry_points_fill)
{
	struct {
		struct nprof_capture_opts o;
		uint64_t newer;
	} opts;
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();

	CHECK(cfg != NULL);
	if (!cfg)
		return;
	memset(&opts, 0, sizeof(opts));
	opts.o.size = sizeof(opts);
	opts.newer = 0x1122334455667788ULL;
	CHECK_INT(nprof_capture_opts_from_config(&opts.o, cfg), 0);
	CHECK_INT(opts.o.size, sizeof(opts));
	CHECK_INT(opts.newer, 0x1122334455667788ULL);
	CHECK_INT(opts.o.ring_size[NEURONPROF_QT_DMA], nprof_ring_size_default(NEURONPROF_QT_DMA));
	opts.o.size = offsetof(struct nprof_capture_opts, flags) - 1;
	CHECK_INT(nprof_capture_opts_from_config(&opts.o, cfg), -EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "struct nprof_capture_opts size");
	nprof_inspect_config_free(cfg);
}

HARNESS_MAIN
