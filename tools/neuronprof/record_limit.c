// SPDX-License-Identifier: MIT
/*
 * neuronprof record without a command: the --max-size rule of the synthetic
 * model's rounds (Documentation/tool.rst, "record").
 *
 * A plain file stores its entries as they are, so what is written equals
 * what was produced and the rule is the one of an uncompressed estimate. A
 * compressed one (-z) stores less: the rule counts what the files took, as
 * the progress page says, so the model keeps executing until the stored
 * bytes, not the uncompressed ones, near the limit.
 */
#include "record_limit.h"

bool record_max_size_reached(uint64_t limit, const struct record_limit_state *s, uint64_t round)
{
	uint64_t done = s->streamed + s->lost;
	uint64_t pending = s->produced > done ? s->produced - done : 0;

	if (!limit)
		return false;
	/* Each term at most the limit: no sum wraps. */
	if (s->stored > limit || pending > limit || round > limit)
		return true;
	return s->stored + pending + round + RECORD_MAX_SIZE_RESERVE > limit;
}
