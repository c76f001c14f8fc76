// SPDX-License-Identifier: MIT
/*
 * NTFF reader: the checks of the data blocks against the block table, one
 * block at a time (the one-pass mode's chunk iterator, and the records'
 * first and last entries at open) or all of them at open
 * (NPROF_NTFF_READ_VERIFY_AT_OPEN), on the calling thread and, for a large
 * data region, one helper thread beside it.
 *
 * A 256 MiB file takes one core about as long to checksum as a streaming
 * read() takes to copy it, and the caller then iterates it a second time
 * from memory: the open is half of that mode's time. Two cores read memory
 * faster than one (each core has only so many misses in flight), so the
 * blocks are handed out in claims of about 1 MiB, taken in file order by
 * whichever thread is free; both only read. The helper is joined before
 * the open returns: the reader's threading rule (one thread per object at a
 * time, Documentation/library.rst) holds for the caller, and nothing runs
 * once the open has returned. A helper that has not started by the time
 * the caller's thread has taken every claim is called off and never
 * touches the file (a busy machine does not make the open wait for it).
 *
 * The result is the sequential loop's: the blocks before the lowest
 * damaged one any thread found were all checked, and that block is checked
 * again on the calling thread for the message (thread-local, like every
 * message of the library).
 *
 * NPROF_NTFF_VERIFY_THREADS=1 keeps it all on the calling thread (any
 * other value, or none: up to 2 threads); so does a process allowed on one
 * CPU only.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/internal.h"
#include "ntff/ntff_internal.h"
#include "ntff/ntff_reader_internal.h"

/* Data regions smaller than this are checked on the calling thread alone. */
#define VERIFY_PAR_MIN		(8ull << 20)
/* Bytes of blocks per claim (at least one block). */
#define VERIFY_CLAIM		(1ull << 20)
#define NO_BAD			UINT64_MAX

enum { HELPER_PENDING, HELPER_RUNNING, HELPER_CALLED_OFF };

struct verify_job {
	const unsigned char *data;
	const unsigned char *table;
	uint64_t data_size;
	uint64_t nblocks;
	unsigned int block_shift;
	uint64_t per_claim;		/* blocks per claim */
	uint64_t nclaims;
	atomic_uint_fast64_t next;	/* next claim to take */
	atomic_uint_fast64_t bad;	/* lowest damaged block found, NO_BAD */
	atomic_int helper;		/* HELPER_* */
	atomic_int refs;		/* the calling thread's and the helper's */
};

/*
 * Check data block @blk against the block table. @rec is the record whose
 * entries are wanted, for the message; SIZE_MAX names the first record with
 * entries in the block, if any.
 */
static int check_block(const struct nprof_ntff_reader *r, uint64_t blk, size_t rec)
{
	uint64_t start = blk << r->block_shift, len = r->data_size - start;
	uint32_t stored, csum;
	char what[160];
	size_t i;

	/* Major 4: the stored block is checked, then decompressed (its own branch). */
	if (r->zstd)
		return ntff_zstd_block(r, blk, rec);
	if (len > (1ULL << r->block_shift))
		len = 1ULL << r->block_shift;
	memcpy(&stored, r->table + blk * NTFF_BLOCK_CSUM_SIZE, sizeof(stored));
	stored = le32toh(stored);
	csum = nprof_crc32c_update(0, r->data + start, (size_t)len);
	if (csum == stored)
		return 0;
	for (i = 0; rec == SIZE_MAX && r->info && i < r->info->n_trace; i++)
		if (ntff_reader_overlap(r->info->trace[i]->data_offset, r->info->trace[i]->data_length, start, len))
			rec = i;
	ntff_reader_describe(r, rec, what, sizeof(what));
	return BAD(r, "data checksum mismatch: stored 0x%08x, computed 0x%08x in block %llu (bytes %llu..%llu of the data region, %s)",
		   stored, csum, (unsigned long long)blk, (unsigned long long)start,
		   (unsigned long long)(start + len - 1), what);
}

/* check_block() once per reader: a verified block is remembered. */
static int verify_block(struct nprof_ntff_reader *r, uint64_t blk, size_t rec)
{
	uint64_t bit = 1ULL << (blk % 64);
	int ret;

	if (r->verified[blk / 64] & bit)
		return 0;
	ret = check_block(r, blk, rec);
	if (!ret)
		r->verified[blk / 64] |= bit;
	return ret;
}

/* Verify the blocks holding data bytes [off, off + len), len > 0. */
int ntff_reader_verify_range(struct nprof_ntff_reader *r, uint64_t off, uint64_t len, size_t rec)
{
	uint64_t blk, last = (off + len - 1) >> r->block_shift;
	int ret;

	for (blk = off >> r->block_shift; blk <= last; blk++) {
		ret = r->verified ? verify_block(r, blk, rec) : check_block(r, blk, rec);
		if (ret)
			return ret;
	}
	return 0;
}

/* Block @blk's checksum matches the table (check_block()'s test, no message). */
static bool block_ok(const struct verify_job *j, uint64_t blk)
{
	uint64_t start = blk << j->block_shift, len = j->data_size - start;
	uint32_t stored;

	if (len > (1ULL << j->block_shift))
		len = 1ULL << j->block_shift;
	memcpy(&stored, j->table + blk * NTFF_BLOCK_CSUM_SIZE, sizeof(stored));
	return nprof_crc32c_update(0, j->data + start, (size_t)len) == le32toh(stored);
}

/* Take claims until none is left or none can hold a block before a damaged one. */
static void verify_claims(struct verify_job *j)
{
	uint64_t c, blk, last;

	while ((c = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->nclaims) {
		blk = c * j->per_claim;
		last = blk + j->per_claim < j->nblocks ? blk + j->per_claim : j->nblocks;
		for (; blk < last; blk++) {
			uint64_t bad = atomic_load_explicit(&j->bad, memory_order_relaxed);

			if (blk > bad)
				return;
			if (block_ok(j, blk))
				continue;
			/* The lowest damaged block wins. */
			while (blk < bad && !atomic_compare_exchange_weak(&j->bad, &bad, blk))
				;
			return;
		}
	}
}

static void job_put(struct verify_job *j)
{
	if (atomic_fetch_sub(&j->refs, 1) == 1)
		free(j);
}

static void *helper_main(void *arg)
{
	struct verify_job *j = arg;
	int pending = HELPER_PENDING;

	if (atomic_compare_exchange_strong(&j->helper, &pending, HELPER_RUNNING))
		verify_claims(j);
	job_put(j);
	return NULL;
}

/* Up to two threads, unless NPROF_NTFF_VERIFY_THREADS=1 or one CPU is all the process has. */
static bool want_helper(void)
{
	const char *v = getenv("NPROF_NTFF_VERIFY_THREADS");
	cpu_set_t cpus;

	if (v && !strcmp(v, "1"))
		return false;
	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		return true;
	return CPU_COUNT(&cpus) > 1;
}

/* A helper thread on @j, with every signal blocked; false if none could start. */
static bool helper_start(struct verify_job *j, pthread_t *th)
{
	sigset_t all, old;
	bool ok;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ok = !pthread_create(th, NULL, helper_main, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

int ntff_reader_verify_all(struct nprof_ntff_reader *r)
{
	struct verify_job *j;
	int running = HELPER_PENDING;
	uint64_t blk, bad;
	pthread_t th;
	int ret;

	if (r->data_size < VERIFY_PAR_MIN || !want_helper() || !(j = calloc(1, sizeof(*j)))) {
		/* In file order, so that pages are faulted in sequentially. */
		for (blk = 0; blk < r->nblocks; blk++) {
			ret = check_block(r, blk, SIZE_MAX);
			if (ret)
				return ret;
		}
		return 0;
	}
	j->data = r->data;
	j->table = r->table;
	j->data_size = r->data_size;
	j->nblocks = r->nblocks;
	j->block_shift = r->block_shift;
	j->per_claim = VERIFY_CLAIM >> r->block_shift ? VERIFY_CLAIM >> r->block_shift : 1;
	j->nclaims = (r->nblocks + j->per_claim - 1) / j->per_claim;
	atomic_init(&j->next, 0);
	atomic_init(&j->bad, NO_BAD);
	atomic_init(&j->helper, HELPER_PENDING);
	atomic_init(&j->refs, 2);
	if (!helper_start(j, &th)) {
		atomic_init(&j->refs, 1);
		atomic_init(&j->helper, HELPER_CALLED_OFF);
	}
	verify_claims(j);
	/* Every claim is taken: a helper that has not started never will. */
	if (atomic_compare_exchange_strong(&j->helper, &running, HELPER_CALLED_OFF))
		pthread_detach(th);
	else if (running == HELPER_RUNNING)
		pthread_join(th, NULL);
	bad = atomic_load(&j->bad);
	job_put(j);
	/* The message of the first damaged block, made on this thread. */
	return bad == NO_BAD ? 0 : check_block(r, bad, SIZE_MAX);
}
