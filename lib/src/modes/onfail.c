// SPDX-License-Identifier: MIT
/*
 * On-fail capture (the seed's inspect_on_fail and its "./tmp" salvage): the
 * profile of a failed execution is captured by the per-execution capture
 * of model.c and moved here, into ./tmp/<instance_id>-<pid>/; close removes
 * what this process put there. The mode's own ops remember the session's
 * instance id and clean up at close.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modes/modes.h"
#include "util/internal.h"

/*
 * Profiles of failed executions moved into ./tmp/<instance_id>-<pid>/. Only
 * files this process put there are ever removed; the directory is reached
 * through descriptors, so a later chdir() changes nothing.
 */
struct salvaged {
	struct salvaged *next;
	char name[NAME_MAX + 1];
};

/* Protects every member of salv. */
static pthread_mutex_t salv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int cwdfd;		/* directory holding tmp/, -1 until the first salvage */
	int dirfd;		/* tmp/<instance_id>-<pid> */
	pid_t pid;
	char sub[NPROF_INSTANCE_ID_MAX + 32];
	struct salvaged *files;
} salv = { .cwdfd = -1, .dirfd = -1 };

/* The instance id of the last session begun (under salv_lock); "" before the first. */
static char last_instance[NPROF_INSTANCE_ID_MAX + 1];

/* Whether a session since the last close had on-fail on (under salv_lock). */
static bool on_fail_seen;

static int salvage_subdir(char *buf, size_t len)
{
	char inst[NPROF_INSTANCE_ID_MAX + 1];
	int ret, n;

	pthread_mutex_lock(&salv_lock);
	snprintf(inst, sizeof(inst), "%s", last_instance);
	pthread_mutex_unlock(&salv_lock);
	if (!inst[0]) {
		ret = nprof_output_instance_id(NULL, inst, sizeof(inst));
		if (ret < 0)
			return ret;
	}
	n = snprintf(buf, len, "%s-%ld", inst, (long)getpid());
	if (n < 0 || (size_t)n >= len)
		return nprof_err(ENAMETOOLONG, "salvage directory name does not fit in %zu bytes", len);
	return n;
}

/* Open (creating) the salvage directory. Called with salv_lock held. */
static int salvage_open(const char *instance_id)
{
	char path[sizeof(salv.sub) + 16];
	int ret, n;

	if (salv.dirfd >= 0 && salv.pid == getpid())
		return 0;
	salv.dirfd = -1;
	salv.cwdfd = -1;
	salv.files = NULL;
	n = snprintf(salv.sub, sizeof(salv.sub), "%s-%ld", instance_id, (long)getpid());
	ret = n < 0 || (size_t)n >= sizeof(salv.sub) ?
		nprof_err(ENAMETOOLONG, "salvage directory name does not fit in %zu bytes",
			  sizeof(salv.sub)) : 0;
	if (ret < 0)
		return ret;
	salv.cwdfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (salv.cwdfd < 0)
		return nprof_err(errno, "cannot open the current directory: %s", strerror(errno));
	snprintf(path, sizeof(path), NPROF_OUTPUT_FAIL_DIR "/%s", salv.sub);
	ret = nprof_output_mkdir_p(path, 0755);
	if (ret < 0) {
		close(salv.cwdfd);
		salv.cwdfd = -1;
		return ret;
	}
	salv.dirfd = ret;
	salv.pid = getpid();
	return 0;
}

int nprof_onfail_salvage(const struct nprof_session_view *v, const char *name)
{
	struct salvaged *s;
	int ret;

	pthread_mutex_lock(&salv_lock);
	ret = salvage_open(v->instance_id);
	if (ret)
		goto out;
	if (renameat(v->dirfd, name, salv.dirfd, name)) {
		ret = nprof_err(errno, "cannot move %s/%s to " NPROF_OUTPUT_FAIL_DIR "/%s/%s: %s",
				v->dir, name, salv.sub, name, strerror(errno));
		goto out;
	}
	nprof_log(NPROF_LOG_INFO, "Move %s/%s to " NPROF_OUTPUT_FAIL_DIR "/%s/%s", v->dir,
		  name, salv.sub, name);
	for (s = salv.files; s; s = s->next)
		if (!strcmp(s->name, name))
			goto out;
	s = calloc(1, sizeof(*s));
	if (!s) {
		/* The file stays; only its removal at close is lost. */
		nprof_log(NPROF_LOG_WARN, "cannot remember salvaged file %s: out of memory", name);
		goto out;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->next = salv.files;
	salv.files = s;
out:
	pthread_mutex_unlock(&salv_lock);
	return ret;
}

/*
 * nprof_inspect_close() after a session with on-fail: remove what this
 * process salvaged, then the directories if empty.
 */
static void onfail_close(void)
{
	char path[sizeof(salv.sub) + 16];
	struct salvaged *s;

	pthread_mutex_lock(&salv_lock);
	if (!on_fail_seen)
		goto out;
	on_fail_seen = false;
	if (salv.dirfd < 0 || salv.pid != getpid())
		goto out;
	while (salv.files) {
		s = salv.files;
		salv.files = s->next;
		if (unlinkat(salv.dirfd, s->name, 0) && errno != ENOENT)
			nprof_log(NPROF_LOG_WARN, "cannot remove " NPROF_OUTPUT_FAIL_DIR "/%s/%s: %s",
				  salv.sub, s->name, strerror(errno));
		free(s);
	}
	close(salv.dirfd);
	salv.dirfd = -1;
	snprintf(path, sizeof(path), "tmp/%s", salv.sub);
	/* Directories that still hold someone else's files stay. */
	if (unlinkat(salv.cwdfd, path, AT_REMOVEDIR) && errno != ENOENT)
		nprof_log(NPROF_LOG_DEBUG, "keeping " NPROF_OUTPUT_FAIL_DIR "/%s: %s", salv.sub,
			  strerror(errno));
	if (unlinkat(salv.cwdfd, "tmp", AT_REMOVEDIR) && errno != ENOENT)
		nprof_log(NPROF_LOG_DEBUG, "keeping " NPROF_OUTPUT_FAIL_DIR ": %s", strerror(errno));
	close(salv.cwdfd);
	salv.cwdfd = -1;
out:
	pthread_mutex_unlock(&salv_lock);
}

int nprof_onfail_salvage_dir(char *buf, size_t len)
{
	char sub[sizeof(salv.sub)];
	int n;

	if (!buf)
		return nprof_err(EINVAL, "buffer is NULL");
	n = salvage_subdir(sub, sizeof(sub));
	if (n < 0)
		return n;
	n = snprintf(buf, len, NPROF_OUTPUT_FAIL_DIR "/%s", sub);
	if (n < 0 || (size_t)n >= len)
		return nprof_err(ENAMETOOLONG, "salvage directory does not fit in %zu bytes", len);
	return n;
}

static int onfail_begin(const struct nprof_session_view *v)
{
	pthread_mutex_lock(&salv_lock);
	snprintf(last_instance, sizeof(last_instance), "%s", v->instance_id);
	on_fail_seen |= v->on_fail;
	pthread_mutex_unlock(&salv_lock);
	return 0;
}

const struct nprof_mode_ops nprof_mode_onfail = {
	.name = "on-fail",
	.begin = onfail_begin,
	.close = onfail_close,
};
