// SPDX-License-Identifier: MIT
/*
 * The MODEL record map (the seed's ntff_record_map): which per-model
 * profiles of the session exist, keyed by their file name
 * "<model_name>_vnc_<interned id>.ntff", each with a complete flag. A record is
 * inserted when an execution arms a capture and completed when the
 * execution ends; a second stop of the same record is refused ("Trying to
 * stop already completed profile"). A complete record that stays keeps the
 * model from being captured again on that core in this session.
 *
 * A list under its own mutex (the seed's ntff_record_lock): the map holds
 * one record per model per core, and it is only touched when an execution
 * begins or ends with profiling on.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "modes/modes.h"
#include "util/internal.h"

struct rec_node {
	struct rec_node *next;
	struct nprof_record r;
};

/* Protects recs. */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rec_node *recs;

static struct rec_node **rec_find(const char *name)
{
	struct rec_node **p;

	for (p = &recs; *p; p = &(*p)->next)
		if (!strcmp((*p)->r.name, name))
			return p;
	return NULL;
}

int nprof_records_insert(const struct nprof_record *r)
{
	struct rec_node *n;
	int ret = 0;

	if (!r || !r->name[0])
		return nprof_err(EINVAL, "record without a name");
	pthread_mutex_lock(&rec_lock);
	if (rec_find(r->name)) {
		ret = nprof_err(EEXIST, "profile %s is already recorded in this session", r->name);
		goto out;
	}
	n = calloc(1, sizeof(*n));
	if (!n) {
		ret = nprof_err(ENOMEM, "cannot allocate the record of profile %s", r->name);
		goto out;
	}
	n->r = *r;
	n->r.complete = false;
	n->r.abandoned = false;
	n->next = recs;
	recs = n;
out:
	pthread_mutex_unlock(&rec_lock);
	return ret;
}

int nprof_records_set_armed(const char *name, struct nprof_capture *cap, uint32_t local)
{
	struct rec_node **p;
	int ret = 0;

	pthread_mutex_lock(&rec_lock);
	p = rec_find(name);
	if (!p) {
		ret = nprof_err(ENOENT, "no record of profile %s", name);
	} else {
		(*p)->r.armed = true;
		(*p)->r.cap = cap;
		(*p)->r.local = local;
	}
	pthread_mutex_unlock(&rec_lock);
	return ret;
}

int nprof_records_complete(const char *name, struct nprof_record *out)
{
	struct rec_node **p;
	int ret = 0;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!name)
		return nprof_err(EINVAL, "record name is NULL");
	pthread_mutex_lock(&rec_lock);
	p = rec_find(name);
	if (!p || (*p)->r.complete) {
		if (p && out)
			*out = (*p)->r;
		ret = nprof_err(EALREADY, "Trying to stop already completed profile %s", name);
		goto out;
	}
	(*p)->r.complete = true;
	if (out)
		*out = (*p)->r;
out:
	pthread_mutex_unlock(&rec_lock);
	return ret;
}

bool nprof_records_armed(const char *name)
{
	struct rec_node **p;
	bool armed;

	pthread_mutex_lock(&rec_lock);
	p = name ? rec_find(name) : NULL;
	armed = p && (*p)->r.armed && !(*p)->r.complete;
	pthread_mutex_unlock(&rec_lock);
	return armed;
}

int nprof_records_erase(const char *name)
{
	struct rec_node **p, *n;
	int ret = 0;

	pthread_mutex_lock(&rec_lock);
	p = name ? rec_find(name) : NULL;
	if (!p) {
		ret = nprof_err(ENOENT, "no record of profile %s", name ? name : "(null)");
	} else {
		n = *p;
		*p = n->next;
		free(n);
	}
	pthread_mutex_unlock(&rec_lock);
	return ret;
}

size_t nprof_records_abandon(struct nprof_record *out, size_t max)
{
	struct rec_node *n;
	size_t count = 0;

	pthread_mutex_lock(&rec_lock);
	for (n = recs; n; n = n->next) {
		if (n->r.complete)
			continue;
		n->r.complete = true;
		n->r.abandoned = true;
		if (count < max)
			out[count] = n->r;
		count++;
	}
	pthread_mutex_unlock(&rec_lock);
	return count;
}

size_t nprof_records_count(size_t *complete)
{
	struct rec_node *n;
	size_t count = 0, done = 0;

	pthread_mutex_lock(&rec_lock);
	for (n = recs; n; n = n->next) {
		count++;
		done += n->r.complete;
	}
	pthread_mutex_unlock(&rec_lock);
	if (complete)
		*complete = done;
	return count;
}

void nprof_records_clear(void)
{
	struct rec_node *n;

	pthread_mutex_lock(&rec_lock);
	while (recs) {
		n = recs;
		recs = n->next;
		free(n);
	}
	pthread_mutex_unlock(&rec_lock);
}
