// SPDX-License-Identifier: MIT
/*
 * neuronprof exporter, live: the queues of a device watched as top watches
 * them (live.h) and folded into the metrics every --interval.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/device.h>

#include "analysis/summary.h"
#include "live.h"
#include "exporter.h"
#include "util/util.h"
#include "util/prom.h"

/* ---- live: a device --------------------------------------------------------- */

struct live_ids {
	size_t *q_entries, *q_lost, *q_fill, *q_captured;
	size_t (*e)[NPROF_MAX_ENGINES][4];	/* per core: busy, instr, dma, dma bytes */
	size_t (*c)[4];				/* per core: busy, infer, errors, throttle */
};

static void live_series(struct exporter *x, struct live *l, struct live_ids *ids)
{
	char dev[16], core[16], eng[24], qn[32];

	snprintf(dev, sizeof(dev), "%u", l->info.device_index);
	ids->q_entries = xcalloc(l->nq, sizeof(size_t));
	ids->q_lost = xcalloc(l->nq, sizeof(size_t));
	ids->q_fill = xcalloc(l->nq, sizeof(size_t));
	ids->q_captured = xcalloc(l->nq, sizeof(size_t));
	ids->e = xcalloc(l->info.num_cores, sizeof(*ids->e));
	ids->c = xcalloc(l->info.num_cores, sizeof(*ids->c));
	for (uint32_t c = 0; c < l->info.num_cores; c++) {
		snprintf(core, sizeof(core), "%u", c);
		for (uint32_t e = 0; e < l->info.engines_per_core && e < NPROF_MAX_ENGINES; e++) {
			const char *en = prom_unit_label(false, e, eng, sizeof(eng));

			for (int k = 0; k < 4; k++)
				ids->e[c][e][k] = prom_series(&x->prom, (size_t)(F_ENGINE_BUSY + k),
							      "device", dev, "core", core,
							      "engine", en, NULL);
		}
		for (int k = 0; k < 4; k++)
			ids->c[c][k] = prom_series(&x->prom, (size_t)(F_CORE_BUSY + k), "device", dev,
						   "core", core, NULL);
	}
	for (size_t i = 0; i < l->nq; i++) {
		const struct live_queue *q = &l->q[i];
		const char *en = queue_engine_label(q->kind, q->type, q->index, q->engine, eng,
						    sizeof(eng));

		snprintf(core, sizeof(core), "%u", q->core);
		label_lower(qn, queue_name(q->type), sizeof(qn));
#define QS(f) prom_series(&x->prom, f, "device", dev, "core", core, "queue", qn, "engine", en, NULL)
		ids->q_entries[i] = QS(F_QUEUE_ENTRIES);
		ids->q_lost[i] = QS(F_QUEUE_LOST);
		ids->q_fill[i] = QS(F_QUEUE_FILL);
		ids->q_captured[i] = QS(F_QUEUE_CAPTURED);
#undef QS
	}
}

static void live_update(struct exporter *x, struct live *l, const struct live_ids *ids)
{
	struct prom_series *s = x->prom.s;

	for (uint32_t c = 0; c < l->info.num_cores; c++) {
		const struct live_core *k = &l->cores[c];

		for (uint32_t e = 0; e < l->info.engines_per_core && e < NPROF_MAX_ENGINES; e++) {
			s[ids->e[c][e][0]].u = k->eng[e].t_busy_ns;
			s[ids->e[c][e][1]].u = k->eng[e].t_instr;
			s[ids->e[c][e][2]].u = k->eng[e].t_dma;
			s[ids->e[c][e][3]].u = k->eng[e].t_dma_bytes;
		}
		s[ids->c[c][0]].u = k->t_busy_ns;
		s[ids->c[c][1]].u = k->t_execs;
		s[ids->c[c][2]].u = k->t_errors;
		s[ids->c[c][3]].u = k->throttle_level;
	}
	for (size_t i = 0; i < l->nq; i++) {
		const struct live_queue *q = &l->q[i];

		s[ids->q_entries[i]].u = q->entries;
		s[ids->q_lost[i]].u = live_queue_lost(q);
		s[ids->q_fill[i]].d = q->ring_size ? (double)q->fill_max / (double)q->ring_size : 0;
		s[ids->q_captured[i]].u = !q->nq;
	}
}

int exporter_run_live(struct exporter *x, int device, uint64_t ring)
{
	struct live l;
	struct live_ids ids = { 0 };
	struct pollfd *pfd = NULL;
	uint64_t next;
	int ret;

	memset(&l, 0, sizeof(l));
	l.min_gap_ns = EXPORTER_DRAIN_GAP_MS * 1000000ULL;
	ret = live_open(&l, device, ring);
	if (ret)
		goto out;
	if (l.busy)
		warn("%zu of %zu queues already have as many subscribers as they take: %s says which (they are taken once freed)",
		     l.busy, l.nq, families[F_QUEUE_CAPTURED].name);
	pfd = live_pollfds(&l, -1);
	if (!pfd) {
		ret = fail("out of memory");
		goto out;
	}
	live_series(x, &l, &ids);
	live_update(x, &l, &ids);
	ret = exporter_publish(x);
	next = live_now_ns() + x->interval_ns;
	while (!ret && !exporter_quit && (!x->count || x->publications < x->count)) {
		live_wait(&l, pfd, next, exporter_stop, NULL, NULL);
		if (l.oom) {
			ret = fail("out of memory");
			break;
		}
		if (exporter_quit)
			break;
		/* Below the watermark is not nothing: what is unread belongs to this publication. */
		live_drain(&l, false);
		live_settle(&l);
		live_update(x, &l, &ids);
		ret = exporter_publish(x);
		live_interval_reset(&l);
		next += x->interval_ns;
		if (next < live_now_ns())
			next = live_now_ns() + x->interval_ns;
	}
	if (!ret && exporter_quit) {
		/* The last notifications in flight, then a last publication. */
		live_drain(&l, (l.info.caps & NPROF_DEVICE_CAP_FLUSH) != 0);
		live_settle(&l);
		live_update(x, &l, &ids);
		ret = exporter_publish(x);
	}
out:
	free(pfd);
	free(ids.q_entries);
	free(ids.q_lost);
	free(ids.q_fill);
	free(ids.q_captured);
	free(ids.e);
	free(ids.c);
	live_free(&l);
	return ret;
}

