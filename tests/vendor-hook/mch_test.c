// SPDX-License-Identifier: GPL-2.0
/*
 * The vendor's memory-handle table (neuron_mc_handle.c) with fix 7 of
 * driver/neuron/vendor/fixes/, in userspace: scripts/vendor-hook-test.sh
 * copies the tree's neuron_mc_handle.c and .h beside the stand-in headers
 * of mch/ (the two structures it uses, a mutex, allocation) and builds them
 * with this file. The table is used as the driver uses it: a handle is
 * allocated for a chunk when the runtime first gets it
 * (ncdev_mem_chunk_to_mem_handle()), looked up for every ioctl that takes
 * one (mc_handle_find()), and freed with the chunk (mc_free()).
 *
 *   - a handle freed once and whose index was handed out again (the free
 *     list is last-freed-first) finds nothing, and freeing it again fails,
 *     while the chunk that now holds the index is found by its own handle;
 *   - over many allocations and frees no stale handle ever finds a chunk,
 *     every live one finds its own, handles are never 0 and keep bit 63
 *     clear;
 *   - a handle with a live chunk's index but other upper bits finds
 *     nothing.
 *
 * Built against 2.24.7.0 without the fix the first case fails (the stale
 * handle finds the new chunk): vendor-hook-test.sh checks that too.
 * Prints "ok"/"not ok" lines and ends with "N passed, N failed".
 */
#define HARNESS_STANDALONE
#include "../../lib/tests/harness.h"

#include "neuron_device.h"

#define LIVE	64
#define ROUNDS	20000

static struct neuron_device nd;

/* What the driver does when the runtime first gets a chunk's handle. */
static u64 give(struct mem_chunk *mc)
{
	mc->magic = 0x1234;
	mc->mc_handle = NMCH_INVALID_HANDLE;
	if (nmch_handle_alloc(&nd, mc, &mc->mc_handle))
		return 0;
	return mc->mc_handle;
}

/* What mc_free() does with the handle before the chunk goes. */
static int drop(struct mem_chunk *mc)
{
	int ret = nmch_handle_free(&nd, mc->mc_handle);

	mc->magic = 0xDEAD;
	return ret;
}

int main(void)
{
	static struct mem_chunk a, b, pool[LIVE];
	static u64 live[LIVE], stale[LIVE];
	u64 ha, hb, h;
	unsigned long r, bad_stale = 0, bad_live = 0, bad_form = 0;
	unsigned int i;

	if (nmch_handle_init(&nd))
		return 1;

	ha = give(&a);
	harness_result(ha != 0 && drop(&a) == 0, "A's handle 0x%llx is handed out and freed",
		       (unsigned long long)ha);
	hb = give(&b);
	harness_result(hb != 0 && (hb & 0xffffffffULL) == (ha & 0xffffffffULL),
		       "B takes A's table index (last-freed-first): handle 0x%llx", (unsigned long long)hb);
	harness_result(mc_handle_find(&nd, ha) == NULL,
		       "A's stale handle finds nothing (2.24.7.0: it finds B)");
	harness_result(mc_handle_find(&nd, hb) == &b, "B's handle finds B");
	harness_result(nmch_handle_free(&nd, ha) != 0 && mc_handle_find(&nd, hb) == &b,
		       "freeing A's stale handle fails and leaves B's handle alone");
	harness_result(mc_handle_find(&nd, hb ^ (1ULL << 40)) == NULL &&
		       mc_handle_find(&nd, hb | (1ULL << 63)) == NULL && mc_handle_find(&nd, 0) == NULL,
		       "B's index with other upper bits, and handle 0, find nothing");
	drop(&b);

	/* Many chunks, freed and handed out again in turn. */
	for (i = 0; i < LIVE; i++)
		live[i] = give(&pool[i]);
	for (r = 0; r < ROUNDS; r++) {
		i = (r * 37) % LIVE;
		stale[i] = live[i];
		drop(&pool[i]);
		h = give(&pool[i]);
		live[i] = h;
		if (!h || (h >> 63))
			bad_form++;
		if (mc_handle_find(&nd, stale[i]) != NULL)
			bad_stale++;
		if (mc_handle_find(&nd, h) != &pool[i])
			bad_live++;
	}
	for (i = 0; i < LIVE; i++) {
		if (mc_handle_find(&nd, live[i]) != &pool[i])
			bad_live++;
		if (stale[i] && mc_handle_find(&nd, stale[i]) != NULL)
			bad_stale++;
	}
	harness_result(!bad_stale, "%d rounds of free and allocate: no stale handle finds a chunk (%lu did)",
		       ROUNDS, bad_stale);
	harness_result(!bad_live, "every live handle finds its own chunk (%lu did not)", bad_live);
	harness_result(!bad_form, "no handle is 0 or has bit 63 set (%lu had)", bad_form);
	nmch_handle_cleanup(&nd);
	return harness_done();
}
