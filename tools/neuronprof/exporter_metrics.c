// SPDX-License-Identifier: MIT
/*
 * neuronprof exporter: its metric families (names, help, types; the list
 * is Documentation/analysis.rst's) and the labels of their series.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/device.h>

#include "analysis/summary.h"
#include "live.h"
#include "exporter.h"
#include "util/util.h"
#include "util/prom.h"

const struct prom_family families[F_COUNT] = {
	[F_ENGINE_BUSY] = { "neuronprof_engine_busy_seconds_total",
		"Time the engine (or TopSP) spent in instructions (summary's busy time).",
		PROM_COUNTER, PROM_NS_AS_SECONDS },
	[F_ENGINE_INSTR] = { "neuronprof_engine_instructions_total",
		"Instructions (TRACE entries) the engine (or TopSP) executed.",
		PROM_COUNTER, PROM_INT },
	[F_ENGINE_DMA] = { "neuronprof_engine_dma_transfers_total",
		"DMA transfers (DMA entries) of the engine.", PROM_COUNTER, PROM_INT },
	[F_ENGINE_DMA_BYTES] = { "neuronprof_engine_dma_bytes_total",
		"Bytes the engine's DMA transfers moved.", PROM_COUNTER, PROM_INT },
	[F_CORE_BUSY] = { "neuronprof_core_busy_seconds_total",
		"Time the NeuronCore had any engine in an instruction (the union of its engines' busy time).",
		PROM_COUNTER, PROM_NS_AS_SECONDS },
	[F_CORE_INFER] = { "neuronprof_core_inferences_total",
		"Inferences (INFER_STATUS start/stop pairs) the NeuronCore completed.",
		PROM_COUNTER, PROM_INT },
	[F_CORE_ERRORS] = { "neuronprof_core_errors_total",
		"Error notifications of the NeuronCore and its TopSPs.", PROM_COUNTER, PROM_INT },
	[F_CORE_THROTTLE] = { "neuronprof_core_throttle_level",
		"The NeuronCore's last throttle level (0: not throttled).", PROM_GAUGE, PROM_INT },
	[F_QUEUE_ENTRIES] = { "neuronprof_queue_entries_total",
		"Entries the queue delivered to the exporter.", PROM_COUNTER, PROM_INT },
	[F_QUEUE_LOST] = { "neuronprof_queue_lost_entries_total",
		"Entries the queue lost because its ring was full.", PROM_COUNTER, PROM_INT },
	[F_QUEUE_GAPS] = { "neuronprof_queue_sequence_gaps_total",
		"Sequence numbers the queue's entries skip (entries that vanished, counted or not).",
		PROM_COUNTER, PROM_INT },
	[F_QUEUE_FILL] = { "neuronprof_queue_ring_fill_ratio",
		"Highest fill of the queue's ring seen before a drain in the last interval (0 to 1).",
		PROM_GAUGE, PROM_REAL },
	[F_QUEUE_CAPTURED] = { "neuronprof_queue_captured_elsewhere",
		"1 while the queue has as many subscribers as it takes, so the exporter does not see it (it subscribes once one is freed).",
		PROM_GAUGE, PROM_INT },
	[F_REPLAY_PROGRESS] = { "neuronprof_exporter_replay_progress_ratio",
		"Share of the recording's changes of these metrics replayed so far (1: the replay is over).",
		PROM_GAUGE, PROM_REAL },
	[F_PUBLICATIONS] = { "neuronprof_exporter_publications_total",
		"Times the exporter has published its metrics.", PROM_COUNTER, PROM_INT },
};

/* The engine label of a queue: its engine, its TopSP, or none (NULL). */
const char *queue_engine_label(uint32_t kind, uint32_t type, uint32_t index,
				      uint32_t engine, char *buf, size_t len)
{
	const char *name;

	if (kind == NPROF_TARGET_TOPSP || type == NEURONPROF_QT_TOPSP_TRACE ||
	    type == NEURONPROF_QT_TOPSP_EVENT || type == NEURONPROF_QT_TOPSP_ERROR) {
		snprintf(buf, len, "topsp%u", index);
		return buf;
	}
	if (type != NEURONPROF_QT_TRACE && type != NEURONPROF_QT_EVENT && type != NEURONPROF_QT_DMA)
		return NULL;
	name = engine_name(engine);
	if (name)
		return name;
	snprintf(buf, len, "%u", engine);
	return buf;
}

const char *prom_unit_label(bool topsp, uint32_t index, char *buf, size_t len)
{
	const char *name = topsp ? NULL : engine_name(index);

	if (name)
		return name;
	snprintf(buf, len, topsp ? "topsp%u" : "%u", index);
	return buf;
}

void label_lower(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		dst[i] = (char)(src[i] >= 'A' && src[i] <= 'Z' ? src[i] - 'A' + 'a' : src[i]);
	dst[i] = '\0';
}
