// SPDX-License-Identifier: MIT
/*
 * NTFF writer: the capture description. One job: nprof_ntff_writer_set_info()
 * checks what the caller describes (device, names of codes, ranges) and
 * copies it into the writer's metadata messages, written at finalize by
 * ntff_writer.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/neuronprof_drm.h>

#include "util/internal.h"
#include "ntff/ntff_internal.h"
#include "ntff/ntff_writer_internal.h"

static int dup_str(char **dst, const char *src)
{
	char *s = NULL;

	if (src) {
		s = strdup(src);
		if (!s)
			return nprof_err(ENOMEM, "cannot copy a string of the capture description");
	}
	free(*dst);
	*dst = s;
	return 0;
}

void ntff_writer_free_names(struct nprof_ntff_writer *w)
{
	free(w->names);
	free(w->name_ptrs);
	free(w->name_strs);
	w->names = NULL;
	w->name_ptrs = NULL;
	w->name_strs = NULL;
	w->device.code_names = NULL;
	w->device.n_code_names = 0;
}

/* Copy the checked name table @info gives into the device message. */
static int set_names(struct nprof_ntff_writer *w, const struct nprof_ntff_info *info)
{
	size_t i, n = info->num_code_names;

	ntff_writer_free_names(w);
	if (!n)
		return 0;
	w->names = calloc(n, sizeof(*w->names));
	w->name_ptrs = calloc(n, sizeof(*w->name_ptrs));
	w->name_strs = calloc(n, sizeof(*w->name_strs));
	if (!w->names || !w->name_ptrs || !w->name_strs) {
		ntff_writer_free_names(w);
		return nprof_err(ENOMEM, "cannot copy %zu code names", n);
	}
	for (i = 0; i < n; i++) {
		Neuronprof__Ntff__CodeName *c = &w->names[i];

		neuronprof__ntff__code_name__init(c);
		c->has_queue_type = 1, c->queue_type = info->code_names[i].queue_type;
		c->has_code = 1, c->code = info->code_names[i].code;
		snprintf(w->name_strs[i], sizeof(w->name_strs[i]), "%s", info->code_names[i].name);
		c->name = w->name_strs[i];
		w->name_ptrs[i] = c;
	}
	w->device.code_names = w->name_ptrs;
	w->device.n_code_names = n;
	return 0;
}

NPROF_API int nprof_ntff_writer_set_info(struct nprof_ntff_writer *w,
					 const struct nprof_ntff_info *given)
{
	struct nprof_ntff_info copy, *info = &copy;
	Neuronprof__Ntff__NtffInfo *m;
	const char *why;
	size_t at;
	int ret;

	if (!w || !given)
		return nprof_err(EINVAL, "NTFF writer or info is NULL");
	if (NPROF_SIZED_VALID_SINCE(given, nprof_ntff_info, NPROF_NTFF_INFO_SIZE_V1, NPROF_SIZED_IN))
		return -EINVAL;
	/* Older callers' structs end before the raw fields or the names: they read as 0. */
	memset(&copy, 0, sizeof(copy));
	memcpy(&copy, given, given->size < sizeof(copy) ? given->size : sizeof(copy));
	if (info->device.raw_format != NEURONPROF_RAW_FORMAT_NONE && !info->device.raw_entry_size)
		return nprof_err(EINVAL, "raw format %u without a raw entry size",
				 info->device.raw_format);
	if (info->device.raw_packed > 1 ||
	    (info->device.raw_packed && info->device.raw_format == NEURONPROF_RAW_FORMAT_NONE))
		return nprof_err(EINVAL, "raw_packed %u with raw format %u", info->device.raw_packed,
				 info->device.raw_format);
	/* The appends so far were taken as what they are. */
	if (!info->device.raw_packed != !w->raw_packed && w->ntraces)
		return nprof_err(EINVAL, "raw_packed %u, but queues were appended as %s",
				 info->device.raw_packed, w->raw_packed ? "packed records" : "entries");
	if ((info->exec_first || info->exec_last) &&
	    (!info->exec_first || info->exec_last < info->exec_first))
		return nprof_err(EINVAL, "execution range %" PRIu64 "-%" PRIu64 " is empty",
				 info->exec_first, info->exec_last);
	if ((info->iter_first || info->iter_last) &&
	    (!info->iter_first || info->iter_last < info->iter_first ||
	     info->iter_last > (uint64_t)UINT32_MAX + 1))
		return nprof_err(EINVAL, "iteration range %" PRIu64 "-%" PRIu64
				 " is empty or past 2^32", info->iter_first, info->iter_last);
	if (info->iter_first && info->device.raw_format != NEURONPROF_RAW_FORMAT_NONE)
		return nprof_err(EINVAL, "iteration range %" PRIu64 "-%" PRIu64
				 " with raw entries, which carry no iteration",
				 info->iter_first, info->iter_last);
	why = nprof_ntff_code_names_problem(info->code_names, info->num_code_names,
					    info->device.raw_format, &at);
	if (why)
		return nprof_err(EINVAL, "%s (code name %zu of %zu)", why, at, info->num_code_names);
	if (w->error)
		return ntff_writer_replay(w);
	m = &w->info;
	ret = dup_str(&m->instance_id, info->instance_id);
	if (!ret)
		ret = dup_str(&m->hostname, info->hostname);
	if (!ret)
		ret = dup_str(&m->model_name, info->model_name);
	if (!ret)
		ret = dup_str(&w->device.provider, info->device.provider);
	if (!ret)
		ret = set_names(w, info);
	if (ret)
		return ret;
	m->has_pid = 1, m->pid = info->pid;
	m->has_core = 1, m->core = info->core;
	m->has_capture_kind = 1;
	m->capture_kind = (Neuronprof__Ntff__CaptureKind)info->capture_kind;
	m->has_clock_id = 1, m->clock_id = info->clock_id;
	m->has_session_id = 1, m->session_id = info->session_id;
	m->has_model_id = 1, m->model_id = info->model_id;
	m->has_start_ns = 1, m->start_ns = info->start_ns;
	m->has_stop_ns = 1, m->stop_ns = info->stop_ns;
	m->has_first_execution = info->exec_first != 0, m->first_execution = info->exec_first;
	m->has_last_execution = info->exec_first != 0, m->last_execution = info->exec_last;
	m->has_first_iteration = info->iter_first != 0, m->first_iteration = info->iter_first;
	m->has_last_iteration = info->iter_first != 0, m->last_iteration = info->iter_last;
	w->device.has_arch = 1, w->device.arch = info->device.arch;
	w->device.has_uapi_version = 1, w->device.uapi_version = info->device.uapi_version;
	w->device.has_num_cores = 1, w->device.num_cores = info->device.num_cores;
	w->device.has_num_topsps = 1, w->device.num_topsps = info->device.num_topsps;
	w->device.has_engines_per_core = 1, w->device.engines_per_core = info->device.engines_per_core;
	w->device.has_entry_size = 1, w->device.entry_size = info->device.entry_size;
	w->device.has_device_index = 1, w->device.device_index = info->device.device_index;
	w->device.has_clock_domain = 1, w->device.clock_domain = info->device.clock_domain;
	w->device.has_raw_format = 1, w->device.raw_format = info->device.raw_format;
	w->device.has_raw_entry_size = 1, w->device.raw_entry_size = info->device.raw_entry_size;
	w->device.has_raw_packed = info->device.raw_packed != 0;
	w->device.raw_packed = info->device.raw_packed;
	w->raw_packed = info->device.raw_packed;
	m->device = &w->device;
	return 0;
}
