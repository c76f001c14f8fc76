/* SPDX-License-Identifier: MIT */
/*
 * What the recording generators of the tool's tests (gen_fixtures.c,
 * gen_diff.c) share: dying with the library's or the system's reason, a
 * growing array of notifications, a new queue out of a fixed table, and
 * the trn1 sim device their recordings come from.
 */
#ifndef NPROF_TOOL_TESTS_GEN_UTIL_H
#define NPROF_TOOL_TESTS_GEN_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#define ENTRY		sizeof(struct neuronprof_notification)

/* Exit 1 after "<program>: @what: <why>", the library's last error or errno's. */
__attribute__((noreturn)) static void gen_die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		nprof_strerror_last()[0] ? nprof_strerror_last() : strerror(errno));
	exit(1);
}

/*
 * A new zeroed notification at the end of *@e, which holds *@n of *@cap
 * (doubled when full, @first the first time).
 */
static struct neuronprof_notification *gen_push(struct neuronprof_notification **e, size_t *n,
						 size_t *cap, size_t first)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : first;
		*e = realloc(*e, *cap * ENTRY);
		if (!*e)
			gen_die("realloc");
	}
	memset(&(*e)[*n], 0, ENTRY);
	return &(*e)[(*n)++];
}

/* The next of @max queue slots of @size bytes at @slots (*@n used), zeroed; exits when none is left. */
static void *gen_new_queue(void *slots, int *n, int max, size_t size)
{
	void *q;

	if (*n == max) {
		errno = ENOSPC;
		gen_die("too many queues");
	}
	q = (char *)slots + (size_t)(*n)++ * size;
	memset(q, 0, size);
	return q;
}

/* The trn1 device of a sim module of uapi @uapi that the recordings describe. */
static struct nprof_ntff_device gen_trn1_sim(uint32_t uapi)
{
	struct nprof_ntff_device d = {
		.arch = NEURONPROF_ARCH_TRN1,
		.uapi_version = uapi,
		.num_cores = 2,
		.num_topsps = 6,
		.engines_per_core = 4,
		.entry_size = ENTRY,
		.device_index = 0,
		.provider = "sim",
	};

	return d;
}

#endif /* NPROF_TOOL_TESTS_GEN_UTIL_H */
