/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): summary's text on standard output (summary_text.c).
 */
#ifndef NEURONPROF_TOOL_SUMMARY_TEXT_H
#define NEURONPROF_TOOL_SUMMARY_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/summary_columns.h"

/*
 * summary_text() - the text of the recordings' statistics @stats (@n of
 * them), then of the machines compared @xh (NULL when not two machines):
 * @top rows per ranked table, durations in whole nanoseconds with @ns,
 * one row per core with @brief.
 */
void summary_text(const struct rec_stats *stats, size_t n, const struct xhost *xh,
		  unsigned int top, bool ns, bool brief);

#endif
