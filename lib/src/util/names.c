// SPDX-License-Identifier: MIT
/*
 * Name lists handed to callers (activity names, event-type names): fresh
 * arrays of fresh strings that nprof_free_name_list() releases.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/internal.h"

int nprof_dup_name_list(const char *const *src, size_t n, uint64_t mask, const char ***names,
			size_t *count)
{
	size_t i, k = 0, sel = 0;
	const char **out;

	if (!names || !count)
		return nprof_err(EINVAL, "name list output pointer is NULL");
	for (i = 0; i < n; i++)
		sel += (mask >> i) & 1;
	out = calloc(sel ? sel : 1, sizeof(*out));
	if (!out)
		return nprof_err(ENOMEM, "cannot allocate a list of %zu names", sel);
	for (i = 0; i < n; i++) {
		if (!((mask >> i) & 1))
			continue;
		out[k] = strdup(src[i]);
		if (!out[k]) {
			nprof_free_name_list(out, k);
			return nprof_err(ENOMEM, "cannot allocate a list of %zu names", sel);
		}
		k++;
	}
	*names = out;
	*count = sel;
	return 0;
}

void nprof_free_name_list(const char **names, size_t count)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < count; i++)
		free((char *)names[i]);
	free(names);
}
