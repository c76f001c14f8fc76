// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): op and model names of a profile's files (names.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "analysis/names.h"

const char *code_str(uint32_t code, char buf[CODE_LEN])
{
	snprintf(buf, CODE_LEN, CODE_FMT, code);
	return buf;
}

const char *code_name_in(const struct nprof_ntff_code_name *names, size_t n,
			 uint32_t queue_type, uint32_t code)
{
	size_t lo = 0, hi = n;

	/* The reader checked the order: (queue_type, code) ascending. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct nprof_ntff_code_name *c = &names[mid];

		if (c->queue_type == queue_type && c->code == code)
			return c->name;
		if (c->queue_type < queue_type || (c->queue_type == queue_type && c->code < code))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *file_code_name(const struct prof_file *f, uint32_t queue_type, uint32_t code)
{
	if (!f || f->info.device.raw_format)
		return NULL;
	return code_name_in(f->info.code_names, f->info.num_code_names, queue_type, code);
}

const char *files_model_name(const struct prof_file *const *files, size_t n,
			     uint64_t model_id)
{
	for (size_t i = 0; i < n; i++) {
		const struct nprof_ntff_info *in = &files[i]->info;

		if (in->device.raw_format || !in->model_name || !in->model_name[0])
			continue;
		if ((in->capture_kind == NPROF_NTFF_CAPTURE_MODEL ||
		     in->capture_kind == NPROF_NTFF_CAPTURE_CONTINUOUS) && in->model_id == model_id)
			return in->model_name;
	}
	return NULL;
}
