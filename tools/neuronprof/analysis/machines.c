// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the machines of a profile and their clocks (machines.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/machines.h"
#include "analysis/summary.h"
#include "util/util.h"

static const char *recording_machine(const struct recording *r)
{
	const struct sysprof *s = r->sys;

	for (size_t i = 0; i < r->nfiles; i++) {
		const struct nprof_ntff_info *in = &r->files[i]->info;

		if (in->instance_id && *in->instance_id)
			return in->instance_id;
		if (in->hostname && *in->hostname)
			return in->hostname;
	}
	if (s && s->info && s->info->instance_id && *s->info->instance_id)
		return s->info->instance_id;
	if (s && s->ntrace && s->ntrace->n_events && s->ntrace->events[0]->instance_id)
		return s->ntrace->events[0]->instance_id;
	if (s && s->cpu && s->cpu->instance_id)
		return s->cpu->instance_id;
	if (s && s->mem && s->mem->instance_id)
		return s->mem->instance_id;
	return "unknown";
}

/* The clock mapping of a recording (CLOCK_MONOTONIC, CLOCK_REALTIME); false if none. */
static bool recording_mapping(const struct recording *r, uint64_t *mono, uint64_t *real)
{
	const Neuronprof__System__TraceInfo *ti = r->sys ? r->sys->info : NULL;

	if (ti && ti->has_start_ns && ti->has_start_realtime_ns) {
		*mono = ti->start_ns;
		*real = ti->start_realtime_ns;
		return true;
	}
	if (ti && ti->has_sync_monotonic_ns && ti->has_sync_realtime_ns) {
		*mono = ti->sync_monotonic_ns;
		*real = ti->sync_realtime_ns;
		return true;
	}
	return false;
}

static void earliest(struct machine *m, uint64_t t)
{
	if (!m->has_start || t < m->start_ns) {
		m->start_ns = t;
		m->has_start = true;
	}
}

/*
 * The earliest time of a recording, on its machine's clock: its files'
 * capture starts (the first entry of each queue of a file that has none),
 * its system profile's start, first host event and first samples.
 */
static void recording_start(struct machine *m, const struct recording *r)
{
	const struct sysprof *s = r->sys;

	for (size_t i = 0; i < r->nfiles; i++) {
		const struct prof_file *f = r->files[i];

		if (f->info.start_ns) {
			earliest(m, f->info.start_ns);
			continue;
		}
		for (size_t k = 0; k < f->nlqueues; k++) {
			struct queue_iter it;
			const void *p;
			struct entry e;

			queue_iter_init(&it, f, &f->lqueues[k]);
			if ((p = queue_iter_next(&it))) {
				entry_decode(p, it.entry_size, &e);
				earliest(m, e.ts);
			}
		}
	}
	if (!s)
		return;
	if (s->info && s->info->has_start_ns && s->info->start_ns)
		earliest(m, s->info->start_ns);
	for (size_t i = 0; s->ntrace && i < s->ntrace->n_events; i++)
		earliest(m, s->ntrace->events[i]->start_ns);
	if (s->cpu && s->cpu->n_samples)
		earliest(m, s->cpu->samples[0]->ts_ns);
	if (s->mem && s->mem->n_samples)
		earliest(m, s->mem->samples[0]->ts_ns);
}

void machines_build(struct machines *m, const struct profile *prof,
		    const struct recording *recs, size_t nrec)
{
	bool any_mapped = false, have_anchor = false;
	uint64_t anchor = 0;

	memset(m, 0, sizeof(*m));
	m->file_machine = xcalloc(prof->nfiles + 1, sizeof(*m->file_machine));
	m->sys_machine = xcalloc(prof->nsys + 1, sizeof(*m->sys_machine));
	m->rec_machine = xcalloc(nrec + 1, sizeof(*m->rec_machine));
	m->v = xcalloc(nrec + 1, sizeof(*m->v));
	for (size_t i = 0; i < nrec; i++) {
		const struct recording *r = &recs[i];
		const char *name = recording_machine(r);
		struct machine *mc;
		size_t k;

		for (k = 0; k < m->n && strcmp(m->v[k].name, name); k++)
			;
		mc = &m->v[k];
		if (k == m->n) {
			snprintf(mc->name, sizeof(mc->name), "%s", name);
			m->n++;
		}
		for (size_t f = 0; f < r->nfiles && !mc->hostname; f++)
			if (r->files[f]->info.hostname && *r->files[f]->info.hostname)
				mc->hostname = r->files[f]->info.hostname;
		if (!mc->has_mapping)
			mc->has_mapping = recording_mapping(r, &mc->map_monotonic_ns,
							    &mc->map_realtime_ns);
		recording_start(mc, r);
		m->rec_machine[i] = (uint32_t)k;
		for (size_t f = 0; f < r->nfiles; f++)
			m->file_machine[r->files[f] - prof->files] = (uint32_t)k;
		if (r->sys)
			m->sys_machine[r->sys - prof->sys] = (uint32_t)k;
	}
	m->aligned = m->n > 1;
	if (!m->aligned) {
		/* One machine: its own clock, as recorded, mapping or not. */
		for (size_t k = 0; k < m->n; k++)
			m->v[k].clock = MACHINE_AS_RECORDED;
		return;
	}
	for (size_t k = 0; k < m->n; k++) {
		struct machine *mc = &m->v[k];

		if (!mc->has_mapping)
			continue;
		any_mapped = true;
		mc->clock = MACHINE_MAPPED;
		mc->shift = (int64_t)(mc->map_realtime_ns - mc->map_monotonic_ns);
		if (mc->has_start && (!have_anchor || mc->start_ns + (uint64_t)mc->shift < anchor)) {
			anchor = mc->start_ns + (uint64_t)mc->shift;
			have_anchor = true;
		}
	}
	/* With no mapping anywhere, the timeline starts with the earliest machine. */
	for (size_t k = 0; !any_mapped && k < m->n; k++)
		if (m->v[k].has_start && (!have_anchor || m->v[k].start_ns < anchor)) {
			anchor = m->v[k].start_ns;
			have_anchor = true;
		}
	for (size_t k = 0; k < m->n; k++) {
		struct machine *mc = &m->v[k];

		if (mc->clock == MACHINE_MAPPED)
			continue;
		mc->clock = MACHINE_PLACED;
		mc->shift = mc->has_start && have_anchor ? (int64_t)(anchor - mc->start_ns) : 0;
		m->unmapped++;
		warn("%s: no clock mapping (trace_info.pb with start_ns and start_realtime_ns): "
		     "placed by its own clock, its start on that of the %s (moved by %+" PRId64
		     " ns); its offset from the other machines is not known",
		     mc->name, any_mapped ? "mapped machines" : "earliest machine",
		     mc->shift);
	}
}

void machines_free(struct machines *m)
{
	free(m->file_machine);
	free(m->sys_machine);
	free(m->rec_machine);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

const char *machine_clock_name(enum machine_clock c)
{
	switch (c) {
	case MACHINE_MAPPED: return "realtime";
	case MACHINE_PLACED: return "placed";
	default: return "as recorded";
	}
}

const char *recording_machine_name(const struct recording *r)
{
	return recording_machine(r);
}

bool recording_has_mapping(const struct recording *r)
{
	uint64_t mono, real;

	return recording_mapping(r, &mono, &real);
}
