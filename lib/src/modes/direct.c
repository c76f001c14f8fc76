// SPDX-License-Identifier: MIT
/*
 * Direct MODEL profiles (the seed's nrt_profile_start / nrt_profile_stop,
 * its requested_model_profiles map): one capture per file name around
 * whatever the caller runs between start and stop, written to that file
 * with the model in its description. Not an inspect mode: no session is
 * involved.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <neuronprof/ntff.h>
#include <neuronprof/profile.h>

#include "capture/capture_internal.h"
#include "capture/engines.h"
#include "model/registry.h"
#include "util/internal.h"

struct direct_profile {
	struct direct_profile *next;
	char filename[PATH_MAX];
	bool complete;
	uint32_t vnc;
	uint32_t local;
	struct nprof_capture *cap;
	uint64_t model_id;
	char model_name[NPROF_MODEL_NAME_MAX + 1];
};

/* Protects directs (the seed's requested_model_profiles). */
static pthread_mutex_t direct_lock = PTHREAD_MUTEX_INITIALIZER;
static struct direct_profile *directs;

static struct direct_profile *direct_find(const char *filename)
{
	struct direct_profile *d;

	for (d = directs; d; d = d->next)
		if (!strcmp(d->filename, filename))
			return d;
	return NULL;
}

NPROF_API int nprof_profile_start(struct nprof_model *m, const char *filename)
{
	const struct nprof_model_info *info;
	struct direct_profile *d;
	struct nprof_capture *cap;
	uint32_t vnc, local;
	uint64_t model_id;
	bool fresh = false;
	int ret;

	if (!m || !filename || !*filename)
		return nprof_err(EINVAL, "model or file name is NULL or empty");
	if (strlen(filename) >= PATH_MAX)
		return nprof_err(ENAMETOOLONG, "file name of %zu bytes is longer than PATH_MAX",
				 strlen(filename));
	info = nprof_model_info(m);
	vnc = info->vnc;
	pthread_mutex_lock(&direct_lock);
	d = direct_find(filename);
	if (d && !d->complete) {
		ret = nprof_err(EBUSY, "a profile is already being captured into %s", filename);
		goto out;
	}
	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d) {
			ret = nprof_err(ENOMEM, "cannot allocate the profile of %s", filename);
			goto out;
		}
		fresh = true;
	}
	/* The registry must be open to find the core: the model holds it open. */
	model_id = info->id;
	ret = nprof_rt_capture_start(vnc, &model_id, &cap, &local);
	if (ret) {
		ret = nprof_err(-ret, "cannot start the profile of model %s on NC %u: %s",
				info->name, vnc, nprof_err_current());
		if (fresh)
			free(d);
		goto out;
	}
	snprintf(d->filename, sizeof(d->filename), "%s", filename);
	d->complete = false;
	d->vnc = vnc;
	d->local = local;
	d->cap = cap;
	d->model_id = model_id;
	snprintf(d->model_name, sizeof(d->model_name), "%s", info->name);
	if (fresh) {
		d->next = directs;
		directs = d;
	}
out:
	pthread_mutex_unlock(&direct_lock);
	return ret;
}

/* Split @path into a directory descriptor and the last component. */
static int open_parent(const char *path, const char **base)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
		*base = path;
	} else {
		size_t len = slash == path ? 1 : (size_t)(slash - path);

		snprintf(dir, sizeof(dir), "%.*s", (int)len, path);
		*base = slash + 1;
	}
	if (!**base)
		return nprof_err(EINVAL, "%s names a directory, not a file", path);
	return nprof_dir_open(dir);
}

NPROF_API int nprof_profile_stop(const char *filename)
{
	struct nprof_capture_label label;
	struct direct_profile *d;
	const char *base;
	uint64_t sid;
	int ret, fd;

	if (!filename)
		return nprof_err(EINVAL, "file name is NULL");
	pthread_mutex_lock(&direct_lock);
	d = direct_find(filename);
	if (!d) {
		ret = nprof_err(ENOENT, "no profile was started for %s", filename);
		goto out;
	}
	if (d->complete) {
		ret = nprof_err(EALREADY, "Trying to stop already completed profile %s", filename);
		goto out;
	}
	d->complete = true;
	ret = nprof_capture_session_stop(d->cap, d->local, &sid);
	if (ret)
		goto put;
	fd = open_parent(filename, &base);
	if (fd < 0) {
		ret = fd;
		nprof_capture_session_drop(d->cap, d->local, sid);
		goto put;
	}
	nprof_capture_label_model(&label, d->vnc, d->model_name, d->model_id);
	ret = nprof_capture_session_serialize_named(d->cap, d->local, sid, fd, base, &label);
	close(fd);
	if (ret)
		nprof_capture_session_drop(d->cap, d->local, sid);
put:
	nprof_rt_capture_put(d->vnc);
	d->cap = NULL;
out:
	pthread_mutex_unlock(&direct_lock);
	return ret;
}
