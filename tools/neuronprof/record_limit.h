/* SPDX-License-Identifier: MIT */
/*
 * neuronprof record without a command: whether the synthetic model may run
 * one more round of executions under --max-size (record_limit.c).
 */
#ifndef NEURONPROF_RECORD_LIMIT_H
#define NEURONPROF_RECORD_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

/* The library's reserve for what is written besides entries (capture.rst). */
#define RECORD_MAX_SIZE_RESERVE	(512ULL << 10)

/*
 * What the recording's entries so far take, the captured executions'
 * notifications and the progress page's counters at one moment.
 */
struct record_limit_state {
	uint64_t produced;	/* bytes of entries the captured executions produced */
	uint64_t streamed;	/* bytes of those entries written into files (uncompressed) */
	uint64_t stored;	/* what those writes took in the files (compressed or not) */
	uint64_t lost;		/* bytes of entries counted as lost (never written) */
};

/*
 * True when a round of executions producing @round bytes of entries (the
 * last round's) could take the recording past @limit (0: no limit): what
 * the files hold (@s->stored), plus the entries produced but not yet
 * written counted whole, plus @round whole, plus the reserve. Entries not
 * yet written count uncompressed because the library grants a write by its
 * uncompressed bytes (nprof_capture_output_claim()).
 */
bool record_max_size_reached(uint64_t limit, const struct record_limit_state *s, uint64_t round);

#endif /* NEURONPROF_RECORD_LIMIT_H */
