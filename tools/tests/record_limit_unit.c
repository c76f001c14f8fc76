// SPDX-License-Identifier: MIT
/*
 * Unit tests of the synthetic model's --max-size rule
 * (neuronprof/record_limit.c), run by tests/run.sh:
 *   record_limit_unit
 * A round may start while the bytes the files took, the entries produced
 * and not yet written (whole), one more round (whole) and the reserve stay
 * within the limit. Plain recordings, where the files take what was
 * produced; compressed ones (-z), where they take a tenth of it and the
 * rounds must go on until the stored bytes near the limit, not stop where
 * the uncompressed bytes would have reached it; entries not yet written
 * and entries lost. The limits are computed here from the figures given.
 * Prints "ok N - name" or "not ok N - name" and exits 1 if anything failed.
 */
#include <stdint.h>
#include <stdio.h>

#include "record_limit.h"
#include "../../lib/tests/harness.h"

#define KiB	(1ULL << 10)
#define MiB	(1ULL << 20)

static bool reached(uint64_t limit, uint64_t produced, uint64_t streamed, uint64_t stored,
		    uint64_t lost, uint64_t round)
{
	struct record_limit_state s = {
		.produced = produced, .streamed = streamed, .stored = stored, .lost = lost,
	};

	return record_max_size_reached(limit, &s, round);
}

int main(void)
{
	const uint64_t limit = 2 * MiB, round = 100 * KiB;
	/* Exactly at the limit: the most a plain recording may have produced. */
	const uint64_t plain_max = limit - RECORD_MAX_SIZE_RESERVE - round;

	harness_result(!reached(0, 1ULL << 40, 1ULL << 40, 1ULL << 40, 0, round),
		       "no limit: never reached");
	harness_result(!reached(limit, plain_max, plain_max, plain_max, 0, round),
		       "plain, all written: files + round + reserve at the limit passes");
	harness_result(reached(limit, plain_max + 1, plain_max + 1, plain_max + 1, 0, round),
		       "plain, all written: one byte more is reached");
	harness_result(reached(limit, plain_max + 1, 0, 0, 0, round),
		       "plain, nothing written yet: what was produced counts whole");
	/*
	 * -z, files a tenth of what was produced: 3 MiB produced, above the
	 * limit uncompressed, 307 KiB stored, so more rounds fit.
	 */
	harness_result(!reached(limit, 3 * MiB, 3 * MiB, 3 * MiB / 10, 0, round),
		       "compressed, all written: 3 MiB produced in 307 KiB of files, 2 MiB "
		       "limit: not reached");
	harness_result(!reached(limit, 10 * plain_max, 10 * plain_max, plain_max, 0, round),
		       "compressed: stored bytes + round + reserve at the limit pass");
	harness_result(reached(limit, 10 * plain_max + 10, 10 * plain_max + 10, plain_max + 1, 0,
			       round),
		       "compressed: one stored byte more is reached");
	/* Not yet drained: counted uncompressed, as the library grants writes. */
	harness_result(reached(limit, 3 * MiB, 3 * MiB / 2, 3 * MiB / 20, 0, round),
		       "compressed, 1.5 MiB not yet written: counts whole, reached");
	harness_result(!reached(limit, 3 * MiB, 2 * MiB + 512 * KiB, 2 * MiB / 10, 0, round),
		       "compressed, 512 KiB not yet written: within");
	/* Lost entries are never written: they do not count as pending. */
	harness_result(!reached(limit, 3 * MiB, 2 * MiB, 2 * MiB / 10, 1 * MiB, round),
		       "compressed, 1 MiB counted as lost: not pending, within");
	harness_result(reached(limit, 3 * MiB, 2 * MiB, 2 * MiB / 10, 0, limit + 1),
		       "a round above the limit is reached");
	harness_result(reached(limit, UINT64_MAX, 0, UINT64_MAX, 0, UINT64_MAX),
		       "sums near 2^64 do not wrap");
	return harness_done();
}
