// SPDX-License-Identifier: MIT
/*
 * neuronprof record: the synthetic model's capture loop (no command).
 *
 * One inspect session of the library, begun with options (never the
 * environment), on simulated NeuronCores. A synthetic model is loaded on
 * every chosen core through the runtime hooks and executed there (SIM_EXEC
 * between nprof_model_execute_begin() and _end()), so the library captures
 * exactly as it would for a runtime: SESSION mode writes
 * profile_nc_<vnc>_session_<id>.ntff per core covering every execution,
 * MODEL mode writes <model>_vnc_<interned id>.ntff with the first execution
 * of the model on each core; the system profile (ntrace.pb, trace_info.pb,
 * cpu_util.pb, host_mem.pb) comes from the same session. Everything lands in
 * the session directory <out>/<instance_id>-<pid>/<session_init_ns>/. The
 * tool then reads the directory back and proves the capture complete: for
 * every core and queue type, the entries in its file plus the notifications
 * the file counts as lost must equal what the simulator says the captured
 * executions produced.
 *
 * --duration SEC executes the model until SEC have passed; --max-size stops
 * before the next round of executions could pass the limit.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/config.h>
#include <neuronprof/device.h>
#include <neuronprof/inspect.h>
#include <neuronprof/ntff.h>
#include <neuronprof/output.h>
#include <neuronprof/runtime.h>

#include "util/json.h"
#include "analysis/profile.h"
#include "record.h"
#include "record_limit.h"
#include "record_status.h"
#include "util/options.h"
#include "tool.h"

/*
 * Ring sizes of a synthetic run without --ring-size. The runtime's 64-128 MiB
 * per queue would not fit a test VM. Most of the model's entries are
 * instruction traces (320000 of the 372000 of 40 executions of record's
 * default program), so the TRACE rings get the room that rides out a drainer
 * kept off the CPU for a while (a vCPU the host does not run): at the
 * simulator's pace a 4 MiB TRACE ring holds about a second of one engine's
 * trace, where 1 MiB lost entries under a loaded host. Documentation/tool.rst,
 * "record".
 */
#define RECORD_SYNTH_RING		(1ULL << 20)
#define RECORD_SYNTH_TRACE_RING		(4ULL << 20)

static uint64_t synthetic_ring_size(uint32_t queue_type)
{
	return queue_type == NEURONPROF_QT_TRACE ? RECORD_SYNTH_TRACE_RING : RECORD_SYNTH_RING;
}

/* ---- synthetic mode ------------------------------------------------------- */

/* What one core of the synthetic model did and what its profile holds. */
struct core_result {
	uint32_t device;		/* the device's index */
	uint32_t core;			/* device-local index */
	uint32_t vnc;			/* virtual core: the library's numbering */
	char name[48];			/* "NC <vnc> (device <d> core <c>)", as the library says */
	uint32_t executions;		/* executions the profile covers */
	uint32_t status;		/* first failure among them, else 0 */
	uint64_t session_id;
	uint64_t produced[NPROF_QUEUE_TYPES];
	uint64_t trimmed[NPROF_QUEUE_TYPES];	/* left out for --iterations A-B */
	uint64_t captured[NPROF_QUEUE_TYPES];
	uint64_t lost[NPROF_QUEUE_TYPES];
	const char *file;		/* in the loaded profile; NULL if none */
	uint32_t files;			/* profiles expected: capture windows opened */
	bool window_open;
};

static const char *const sysprof_files[] = {
	"ntrace.pb", "trace_info.pb", "cpu_util.pb", "host_mem.pb",
};

/* Which system profile files the options ask for: a bit per sysprof_files[]. */
static unsigned int sysprof_wanted(const struct record_opts *o)
{
	return (o->sysprof == 1 ? 3u : 0u) | (o->cpu_util ? 4u : 0u) | (o->host_mem ? 8u : 0u);
}

/*
 * The virtual core of the device's first NeuronCore: the library numbers
 * the cores of every neuronprof device it can open in device-index order.
 */
static int first_vnc(uint32_t device_index, uint32_t *vnc)
{
	struct nprof_device_node nodes[64];
	int n;

	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		nodes[i].size = sizeof(nodes[i]);
	n = nprof_device_list(nodes, sizeof(nodes) / sizeof(nodes[0]));
	if (n < 0)
		return fail("cannot list the neuronprof devices: %s", nprof_strerror_last());
	*vnc = 0;
	for (int i = 0; i < n && i < (int)(sizeof(nodes) / sizeof(nodes[0])); i++)
		if (nodes[i].device_index < device_index)
			*vnc += nodes[i].num_cores;
	return 0;
}

/*
 * The rings a synthetic capture of @ncores cores asks for (the library's
 * queue plan, record_rings.c), checked against the device and the host
 * before anything is subscribed (util/ringmem.h).
 */
static int check_ring_memory(const struct record_opts *o, const struct nprof_device_info *info,
			     int ncores, const char *node)
{
	struct ring_plan plan = { .fewer = " or fewer --cores" };
	uint64_t size[NPROF_QUEUE_TYPES];
	struct ring_limits lim;
	char why[512];

	for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++)
		size[t] = o->ring_size ? o->ring_size : synthetic_ring_size(t);
	record_ring_plan_cores(&plan, info, (size_t)ncores, size);
	ring_limits_read(&lim, "");
	if (ring_plan_check(&plan, info->max_ring_size, &lim, why, sizeof(why)))
		return fail("cannot record %d NeuronCore%s of %s: %s", ncores, ncores == 1 ? "" : "s",
			    node, why);
	return 0;
}

static int build_config(const struct record_opts *o, const uint32_t *vncs, int n,
			struct nprof_inspect_config **out)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	unsigned int acts = NPROF_ACTIVITY_DEVICE_PROFILE;
	char *envp[2] = { NULL, NULL };
	int ret = EXIT_FAIL;

	if (!cfg)
		return fail("out of memory");
	if (o->sysprof == 1)
		acts |= NPROF_ACTIVITY_SYSTEM_PROFILE;
	if (o->cpu_util)
		acts |= NPROF_ACTIVITY_CPU_UTIL;
	if (o->host_mem)
		acts |= NPROF_ACTIVITY_HOST_MEMORY;
	if (nprof_inspect_config_set_enable_inspect(cfg, true) ||
	    nprof_inspect_config_set_activity_mask(cfg, acts) ||
	    nprof_inspect_config_set_device_profile_mode(cfg, record_session_mode(o) ?
							 NPROF_DEVICE_PROFILE_SESSION :
							 NPROF_DEVICE_PROFILE_MODEL)) {
		fail("%s", nprof_strerror_last());
		goto out;
	}
	if (nprof_inspect_config_set_output_dir(cfg, o->outdir)) {
		ret = usage_error("-o %s: %s", o->outdir, nprof_strerror_last());
		goto out;
	}
	/* Only the chosen cores are profiled and traced. */
	for (uint32_t c = 0; c < NPROF_MAX_CORES; c++)
		nprof_inspect_config_set_capture_enabled_for_nc(cfg, c, false);
	for (int i = 0; i < n; i++)
		nprof_inspect_config_set_capture_enabled_for_nc(cfg, vncs[i], true);
	for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
		if (nprof_inspect_config_set_ring_size(cfg, t, o->ring_size ? o->ring_size :
						       synthetic_ring_size(t))) {
			ret = usage_error("--ring-size: %s", nprof_strerror_last());
			goto out;
		}
	}
	/* The library stops writing at the limit; the rounds below stop before it. */
	if (o->max_size && nprof_inspect_config_set_capture_max_size(cfg, o->max_size)) {
		ret = usage_error("--max-size: %s", nprof_strerror_last());
		goto out;
	}
	if (nprof_inspect_config_set_capture_compression(cfg, record_zlevel(o))) {
		ret = usage_error("--compression-level: %s", nprof_strerror_last());
		goto out;
	}
	if (o->exec_first && nprof_inspect_config_set_capture_executions(cfg, o->exec_first,
									  o->exec_last)) {
		fail("%s", nprof_strerror_last());
		goto out;
	}
	if (o->iter_first && nprof_inspect_config_set_capture_iterations(cfg, o->iter_first,
									  o->iter_last)) {
		fail("%s", nprof_strerror_last());
		goto out;
	}
	if (o->max_events &&
	    nprof_inspect_config_set_sys_trace_max_events_per_nc(cfg, o->max_events_n)) {
		ret = usage_error("--max-events %s: %s", o->max_events, nprof_strerror_last());
		goto out;
	}
	/* The list grammar (groups, ^exclusions) is the library parser's. */
	if (o->event_types) {
		if (asprintf(&envp[0], "NEURON_RT_INSPECT_EVENT_FILTER_TYPE=%s",
			     o->event_types) < 0) {
			envp[0] = NULL;
			fail("out of memory");
			goto out;
		}
		if (nprof_inspect_config_parse_envp(cfg, envp)) {
			ret = usage_error("--event-types: %s", nprof_strerror_last());
			goto out;
		}
	}
	*out = cfg;
	cfg = NULL;
	ret = 0;
out:
	free(envp[0]);
	nprof_inspect_config_free(cfg);
	return ret;
}

/*
 * --max-size: a round of executions (one per core) starts only while what
 * the recording will hold at most stays within the limit with one more
 * round like the last (record_max_size_reached(), Documentation/tool.rst,
 * "record"): the bytes the files took so far, from the progress page
 * (compressed ones with -z), plus every notification produced into the
 * captured executions and not yet written or counted as lost, written
 * whole, plus the last round whole.
 */
static bool max_size_reached(const struct record_opts *o, const struct record_status *st,
			     uint32_t entry_size, uint64_t produced, uint64_t round)
{
	struct record_limit_state s = { .produced = produced };
	uint64_t entries, lost;

	if (!o->max_size)
		return false;
	record_status_read(st, &entries, &s.stored, &lost);
	s.streamed = entries * entry_size;
	s.lost = lost * entry_size;
	return record_max_size_reached(o->max_size, &s, round);
}

/* Runs the executions; every model is loaded before and unloaded after. */
static int run_model(struct record_opts *o, const struct nprof_device_info *info,
		     struct core_result *cr, int n, struct record_status *st)
{
	struct nprof_model **models = calloc((size_t)n, sizeof(*models));
	uint64_t until = o->duration_ns ? record_monotonic_ns() + o->duration_ns : 0;
	uint64_t est = 0, round = 0;
	int ret = 0;

	if (!models)
		return fail("out of memory");
	for (int i = 0; i < n; i++) {
		models[i] = nprof_model_load(o->model_name, o->model_id, cr[i].vnc);
		if (!models[i]) {
			ret = fail("cannot load model %s on %s: %s", o->model_name,
				   cr[i].name, nprof_strerror_last());
			goto out;
		}
	}
	/* Round robin, so every core's first execution comes before any second one. */
	st->plan_ns = o->duration_ns;
	st->plan_units = until ? 0 : o->executions;
	st->max_size = o->max_size;
	for (uint32_t x = 0; until ? x == 0 || record_monotonic_ns() < until : x < o->executions; x++) {
		bool last = !until && x + 1 == o->executions;
		/* What the library decides at the executions' begin: --executions A-B, --delay, --control. */
		bool in_range = !o->exec_first || (x + 1 >= o->exec_first && x + 1 <= o->exec_last);
		bool enabled;

		record_control_poll(&o->ctl);
		enabled = record_control_enabled(&o->ctl);

		if (x && max_size_reached(o, st, info->entry_size, est + round, round)) {
			o->max_size_hit = true;
			break;
		}
		est += round;
		round = 0;
		st->done_units = x;

		for (int i = 0; i < n; i++) {
			struct nprof_sim_result res = { .size = sizeof(res) };
			struct nprof_sim_program prog = {
				.size = sizeof(prog),
				.flags = (o->throttle ? NPROF_SIM_EXEC_THROTTLE : 0) |
					 (o->error && last ? NPROF_SIM_EXEC_ERROR : 0),
				.iterations = (uint32_t)o->iterations,
				.dma_transfers = (uint32_t)o->dma,
				.timeout_ns = o->timeout_ns ?
					      record_monotonic_ns() + o->timeout_ns : 0,
			};
			bool counted = record_session_mode(o) ? in_range && enabled :
				       o->exec_first ? in_range : !cr[i].files && enabled;
			/* Where the library opens a window (a file). */
			bool opens = record_session_mode(o) ? counted && !cr[i].window_open :
				     o->exec_first ? x + 1 == o->exec_first : counted;

			for (uint32_t e = 0; e < info->engines_per_core && e < NPROF_MAX_ENGINES; e++)
				prog.instructions[e] = (uint32_t)o->instructions;
			if (nprof_model_sim_execute(models[i], &prog, &res)) {
				ret = fail("execution %u of model %s on %s: %s", x + 1,
					   o->model_name, cr[i].name, nprof_strerror_last());
				goto out;
			}
			record_status_tick(st, false);
			if (opens)
				cr[i].files++;
			cr[i].window_open = counted && record_session_mode(o) &&
					    !(o->exec_first && x + 1 == o->exec_last);
			if (!counted)
				continue;
			cr[i].executions++;
			if (!cr[i].status)
				cr[i].status = res.status;
			for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
				cr[i].produced[t] += res.produced[t];
				round += res.produced[t] * info->entry_size;
			}
		}
	}
out:
	for (int i = 0; i < n; i++) {
		if (models[i] && nprof_model_unload(models[i]) && !ret)
			ret = fail("cannot unload model %s on %s: %s", o->model_name,
				   cr[i].name, nprof_strerror_last());
	}
	free(models);
	return ret;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * Of @produced notifications of queue type @t, those of the iterations
 * --iterations A-B keeps: the simulator gives every iteration the same
 * notifications of each type but ERROR and TOPSP_ERROR, which only the
 * last iteration of an erroring execution has (driver/sim/program.c).
 */
static uint64_t kept_of(const struct record_opts *o, uint32_t t, uint64_t produced)
{
	uint64_t last = o->iter_last < o->iterations ? o->iter_last : o->iterations;

	if (!o->iter_first)
		return produced;
	if (t == NEURONPROF_QT_ERROR || t == NEURONPROF_QT_TOPSP_ERROR)
		return o->iter_last >= o->iterations && o->iter_first <= o->iterations ?
		       produced : 0;
	if (o->iter_first > last)
		return 0;
	return produced / o->iterations * (last - o->iter_first + 1);
}

/*
 * Reads the session directory back with the tool's own loader (every file
 * validated, checksums included) and matches each core with its file: the
 * entries in the file plus the losses it records must be what the simulator
 * produced, per queue type.
 */
static int verify(const struct record_opts *o, const char *dir, struct core_result *cr, int n,
		  struct profile *prof)
{
	size_t nwant = 0;
	int ret = 0;

	for (int i = 0; i < n; i++)
		nwant += cr[i].files;
	/* --delay or --control kept capture off throughout: nothing to read back. */
	if (!nwant && !sysprof_wanted(o) && record_control_wanted(&o->ctl)) {
		fprintf(stderr, "neuronprof: record: no execution began while capture was enabled: "
			"no device profile in %s\n", dir);
		return 0;
	}
	if (profile_load(dir, prof))
		return EXIT_FAIL;
	for (int i = 0; i < n; i++) {
		char want[NAME_MAX + 1];

		if (record_session_mode(o)) {
			snprintf(want, sizeof(want), "profile_nc_%u_session_", cr[i].vnc);
		} else {
			/*
			 * "<model>_vnc_<interned id>.ntff": the id is the library's,
			 * so the file of this core is the one with the prefix that
			 * describes this core.
			 */
			int len = nprof_output_model_ntff_name(want, sizeof(want), o->model_name, 0);

			if (len < (int)sizeof("0.ntff"))
				return fail("model name %s gives no file name", o->model_name);
			want[len - (int)strlen("0.ntff")] = '\0';
		}
		for (size_t k = 0; k < prof->nfiles; k++) {
			const struct prof_file *f = &prof->files[k];
			const char *name = base_name(f->path);

			if (strncmp(name, want, strlen(want)))
				continue;
			if (!record_session_mode(o) && f->info.core != cr[i].vnc &&
			    f->info.capture_kind == NPROF_NTFF_CAPTURE_MODEL)
				continue;	/* the model's file of another core */
			if (f->info.core != cr[i].vnc || f->info.capture_kind !=
			    (record_session_mode(o) ? NPROF_NTFF_CAPTURE_SESSION : NPROF_NTFF_CAPTURE_MODEL)) {
				ret = fail("%s: describes a %s capture of NC %u, expected a %s "
					   "capture of %s", f->path,
					   capture_kind_name(f->info.capture_kind), f->info.core,
					   record_session_mode(o) ? "session" : "model", cr[i].name);
				continue;
			}
			/* Capture windows: one file per window, their sum checked below. */
			if (cr[i].file && cr[i].files < 2) {
				ret = fail("%s has two profiles in %s: %s and %s", cr[i].name,
					   dir, cr[i].file, name);
				continue;
			}
			if (!cr[i].file) {	/* the first window's */
				cr[i].session_id = f->info.session_id;
				cr[i].file = name;
			}
			for (size_t q = 0; q < f->nqueues; q++) {
				struct nprof_ntff_queue r;

				file_record(f, q, &r);
				if (r.queue_type >= NPROF_QUEUE_TYPES)
					continue;
				cr[i].captured[r.queue_type] += r.entry_count;
				cr[i].lost[r.queue_type] += r.lost_count;
				cr[i].trimmed[r.queue_type] += r.trimmed_count;
			}
		}
		if (!cr[i].file && cr[i].files) {
			ret = fail("%s: no profile %s%s in %s (the library's messages above "
				   "say why)", cr[i].name, want, "<id>.ntff", dir);
			continue;
		}
		for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
			uint64_t kept = kept_of(o, t, cr[i].produced[t]);

			if (cr[i].captured[t] + cr[i].lost[t] + cr[i].trimmed[t] != cr[i].produced[t])
				ret = fail("%s, %s: the simulator produced %" PRIu64
					   " notifications but %s holds %" PRIu64 ", counts %" PRIu64
					   " lost and %" PRIu64 " trimmed", cr[i].name, queue_name(t),
					   cr[i].produced[t], cr[i].file, cr[i].captured[t],
					   cr[i].lost[t], cr[i].trimmed[t]);
			else if (!cr[i].lost[t] && cr[i].captured[t] != kept)
				ret = fail("%s, %s: iterations %" PRIu64 "-%" PRIu64 " of the "
					   "simulator's are %" PRIu64 " notifications, but %s holds %"
					   PRIu64, cr[i].name, queue_name(t), o->iter_first,
					   o->iter_last, kept, cr[i].file, cr[i].captured[t]);
		}
	}
	if (nwant != prof->nfiles)
		ret = fail("%s holds %zu profiles for %d NeuronCore%s, expected %zu (one per capture "
			   "window)", dir, prof->nfiles, n, n == 1 ? "" : "s", nwant);
	for (size_t s = 0; s < sizeof(sysprof_files) / sizeof(sysprof_files[0]); s++) {
		char path[PATH_MAX + 16];
		bool want = sysprof_wanted(o) & (1u << s);
		bool have;

		snprintf(path, sizeof(path), "%s/%s", dir, sysprof_files[s]);
		have = !access(path, F_OK);
		if (want != have)
			ret = fail("%s %s", path, want ? "is missing" : "was not asked for");
	}
	return ret;
}

static void print_results(const struct record_opts *o, const struct core_result *cr, int n,
			  const char *node, const char *dir, const struct profile *prof)
{
	const struct sysprof *sp = prof->nsys ? &prof->sys[0] : NULL;
	unsigned int sysw = sysprof_wanted(o);

	if (o->json) {
		struct json j;

		jw_init(&j, stdout, true);
		jw_obj_begin(&j, NULL);
		jw_str(&j, "device", node);
		jw_str(&j, "output_dir", o->outdir);
		jw_str(&j, "session_dir", dir);
		jw_str(&j, "mode", record_session_mode(o) ? "session" : "model");
		jw_str(&j, "model_name", o->model_name);
		jw_u64(&j, "model_id", o->model_id);
		jw_u64(&j, "executions", o->executions);
		jw_u64(&j, "iterations", o->iterations);
		if (o->exec_first) {
			jw_u64(&j, "capture_first_execution", o->exec_first);
			jw_u64(&j, "capture_last_execution", o->exec_last);
		}
		if (o->iter_first) {
			jw_u64(&j, "capture_first_iteration", o->iter_first);
			jw_u64(&j, "capture_last_iteration", o->iter_last);
		}
		jw_arr_begin(&j, "cores");
		for (int i = 0; i < n; i++) {
			jw_obj_begin(&j, NULL);
			jw_u64(&j, "core", cr[i].core);
			jw_u64(&j, "vnc", cr[i].vnc);
			jw_u64(&j, "session_id", cr[i].session_id);
			jw_str(&j, "file", cr[i].file);
			jw_u64(&j, "executions", cr[i].executions);
			jw_u64(&j, "files", cr[i].files);
			jw_u64(&j, "status", cr[i].status);
			jw_obj_begin(&j, "queue_types");
			for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
				jw_obj_begin(&j, queue_name(t));
				jw_u64(&j, "produced", cr[i].produced[t]);
				jw_u64(&j, "captured", cr[i].captured[t]);
				jw_u64(&j, "lost", cr[i].lost[t]);
				jw_u64(&j, "trimmed", cr[i].trimmed[t]);
				jw_obj_end(&j);
			}
			jw_obj_end(&j);
			jw_obj_end(&j);
		}
		jw_arr_end(&j);
		jw_obj_begin(&j, "system_profile");
		/* Keys without ".pb", so that paths like system_profile.ntrace work. */
		for (size_t s = 0; s < sizeof(sysprof_files) / sizeof(sysprof_files[0]); s++) {
			char key[32];

			snprintf(key, sizeof(key), "%.*s", (int)strcspn(sysprof_files[s], "."),
				 sysprof_files[s]);
			jw_bool(&j, key, sysw & (1u << s));
		}
		jw_u64(&j, "host_events", sp && sp->ntrace ? sp->ntrace->n_events : 0);
		jw_u64(&j, "cpu_util_samples", sp && sp->cpu ? sp->cpu->n_samples : 0);
		jw_u64(&j, "host_mem_samples", sp && sp->mem ? sp->mem->n_samples : 0);
		jw_obj_end(&j);
		jw_obj_end(&j);
		jw_finish(&j);
		return;
	}
	printf("session directory %s (%s capture, %s)\n", dir,
	       record_session_mode(o) ? "SESSION" : "MODEL", node);
	for (int i = 0; i < n; i++) {
		uint64_t cap = 0, lost = 0, prod = 0, trim = 0;

		for (uint32_t t = 0; t < NPROF_QUEUE_TYPES; t++) {
			cap += cr[i].captured[t];
			lost += cr[i].lost[t];
			prod += cr[i].produced[t];
			trim += cr[i].trimmed[t];
		}
		if (record_session_mode(o))
			printf("  %s: %s, session %" PRIu64 ", %u execution%s", cr[i].file,
			       cr[i].name, cr[i].session_id, cr[i].executions,
			       cr[i].executions == 1 ? "" : "s");
		else
			printf("  %s: %s, model %s (id %" PRIu64 "), first of %" PRIu64
			       " execution%s", cr[i].file, cr[i].name, o->model_name, o->model_id,
			       o->executions, o->executions == 1 ? "" : "s");
		printf(": %" PRIu64 " entries, %" PRIu64 " lost, %" PRIu64 " produced", cap, lost,
		       prod);
		if (o->iter_first)
			printf(", %" PRIu64 " outside iterations %" PRIu64 "-%" PRIu64 " left out",
			       trim, o->iter_first, o->iter_last);
		printf("%s\n", cr[i].status ? " (execution raised an error)" : "");
	}
	if (sysw & 1)
		printf("  ntrace.pb: %zu host events\n", sp && sp->ntrace ? sp->ntrace->n_events : 0);
	if (sysw & 2)
		printf("  trace_info.pb\n");
	if (sysw & 4)
		printf("  cpu_util.pb: %zu samples\n", sp && sp->cpu ? sp->cpu->n_samples : 0);
	if (sysw & 8)
		printf("  host_mem.pb: %zu samples\n", sp && sp->mem ? sp->mem->n_samples : 0);
}


int record_synthetic(struct record_opts *o)
{
	struct nprof_device_info info = { .size = sizeof(info) };
	struct nprof_inspect_config *cfg = NULL;
	struct record_status st = { .fd = -1 };
	struct profile prof = { 0 };
	struct core_result *cr = NULL;
	struct nprof_device *dev;
	char node[NPROF_DEVICE_PATH_MAX], dir[PATH_MAX];
	uint32_t vncs[NPROF_MAX_CORES], base = 0;
	int ncores = 0, ret = EXIT_FAIL, r;
	bool begun = false;

	if (o->command_only)
		return usage_error("--%s applies to a command (record --%s -- CMD), not to the "
				   "synthetic model", o->command_only, o->command_only);
	if ((o->event_types || o->max_events) && o->sysprof != 1)
		return usage_error("%s configures the system trace: add --system-profile",
				   o->event_types ? "--event-types" : "--max-events");
	if (o->duration_ns && o->executions_given)
		return usage_error("--duration and --executions both say how long to run: give one");
	if (o->duration_ns && o->error)
		return usage_error("--error raises the error in the last execution, which --duration "
				   "does not know in advance: use --executions");
	/* Before anything is loaded or opened. */
	if (record_check_outdir(o->outdir))
		return EXIT_USAGE;
	dev = nprof_device_open(o->device_given ? (int)o->device : NPROF_DEVICE_ANY,
				o->load_sim ? NPROF_DEVICE_LOAD_SIM : 0);
	if (!dev)
		return fail("%s", nprof_strerror_last());
	snprintf(node, sizeof(node), "%s", nprof_device_path(dev));
	r = nprof_device_get_info(dev, &info);
	/* The library opens the devices itself; this handle was only for the checks. */
	nprof_device_close(dev);
	if (r)
		return fail("%s: %s", node, nprof_strerror_last());
	if (!(info.caps & NPROF_DEVICE_CAP_SIM_EXEC))
		return fail("%s (provider %s) is not simulated: the synthetic model runs only on "
			    "neuronprof_sim devices (to profile a real workload: record -- CMD)",
			    node, info.provider);
	if (o->cores) {
		for (uint32_t c = info.num_cores; c < NPROF_MAX_CORES; c++)
			if (o->core_map[c / 8] & (1u << (c % 8)))
				return usage_error("--cores %s: %s has %u NeuronCores (0 to %u)",
						   o->cores, node, info.num_cores,
						   info.num_cores - 1);
	}
	if (first_vnc(info.device_index, &base))
		return EXIT_FAIL;
	cr = calloc(info.num_cores ? info.num_cores : 1, sizeof(*cr));
	if (!cr)
		return fail("out of memory");
	for (uint32_t c = 0; c < info.num_cores && base + c < NPROF_MAX_CORES; c++) {
		if (o->cores && !(o->core_map[c / 8] & (1u << (c % 8))))
			continue;
		cr[ncores].device = info.device_index;
		cr[ncores].core = c;
		cr[ncores].vnc = base + c;
		snprintf(cr[ncores].name, sizeof(cr[ncores].name), "NC %u (device %u core %u)",
			 base + c, info.device_index, c);
		vncs[ncores] = base + c;
		ncores++;
	}
	if (check_ring_memory(o, &info, ncores, node))
		goto out;
	ret = build_config(o, vncs, ncores, &cfg);
	if (ret)
		goto out;
	ret = EXIT_FAIL;
	if (o->no_streaming && nprof_inspect_config_set_streaming(cfg, false)) {
		fail("%s", nprof_strerror_last());
		goto out;
	}
	/* Before the session: the library looks for the page at its first capture. */
	if (record_status_start(&st))
		goto out;
	/* And for the control page at the session's begin. */
	if (record_control_wanted(&o->ctl) && record_control_start(&o->ctl))
		goto out;
	if (nprof_inspect_begin_with_options(cfg)) {
		fail("cannot begin the inspect session: %s", nprof_strerror_last());
		goto out;
	}
	begun = true;
	if (nprof_inspect_session_dir(dir, sizeof(dir)) < 0) {
		fail("%s", nprof_strerror_last());
		goto out;
	}
	if (run_model(o, &info, cr, ncores, &st))
		goto out;
	begun = false;
	if (nprof_inspect_stop()) {
		fail("%s", nprof_strerror_last());
		goto out;
	}
	record_status_finish(&st);
	ret = verify(o, dir, cr, ncores, &prof);
	/* Also after a mismatch: the figures show what is off. */
	if (prof.files)
		print_results(o, cr, ncores, node, dir, &prof);
	if (o->max_size && record_max_size_report(o, dir, 0) && !ret)
		ret = EXIT_FAIL;
out:
	/* A session that failed half way still writes what it captured. */
	if (begun && nprof_inspect_stop())
		fail("%s", nprof_strerror_last());
	nprof_inspect_close();
	record_status_finish(&st);
	record_control_finish(&o->ctl);
	nprof_inspect_config_free(cfg);
	profile_free(&prof);
	free(cr);
	return ret;
}
