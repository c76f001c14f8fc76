// SPDX-License-Identifier: MIT
/*
 * neuronprof exporter: the table of its metric families (made from their
 * list in exporter.h, which is Documentation/analysis.rst's) and the labels
 * of their series.
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
#define FAMILY(id, name, type, unit, help)	[id] = { name, help, type, unit },
	EXPORTER_FAMILIES(FAMILY)
#undef FAMILY
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
