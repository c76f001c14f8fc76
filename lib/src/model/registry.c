// SPDX-License-Identifier: MIT
/*
 * The model registry (see registry.h): a short list, one entry per distinct
 * (name, model id, core) of the loaded models with the number of loads that
 * hold it. Only nprof_model_load() and nprof_model_unload() touch it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/registry.h"
#include "util/internal.h"

struct entry {
	struct entry *next;
	struct nprof_model_info info;
	unsigned int loads;
};

/* Protects entries. */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *entries;

static bool same_model(const struct nprof_model_info *a, const struct nprof_model_info *b)
{
	return a->id == b->id && a->vnc == b->vnc && !strcmp(a->name, b->name);
}

static bool id_taken(uint32_t id)
{
	struct entry *e;

	for (e = entries; e; e = e->next)
		if (e->info.interned == id)
			return true;
	return false;
}

int nprof_model_register(struct nprof_model_info *info)
{
	struct entry *e;
	uint32_t id = 0;
	int ret = 0;

	pthread_mutex_lock(&reg_lock);
	for (e = entries; e; e = e->next)
		if (same_model(&e->info, info))
			break;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			ret = nprof_err(ENOMEM, "cannot register model %s", info->name);
			goto out;
		}
		while (id_taken(id))
			id++;
		e->info = *info;
		e->info.interned = id;
		e->next = entries;
		entries = e;
	}
	e->loads++;
	info->interned = e->info.interned;
out:
	pthread_mutex_unlock(&reg_lock);
	return ret;
}

void nprof_model_unregister(const struct nprof_model_info *info)
{
	struct entry **p, *e;

	pthread_mutex_lock(&reg_lock);
	for (p = &entries; (e = *p); p = &e->next) {
		if (!same_model(&e->info, info))
			continue;
		if (!--e->loads) {
			*p = e->next;
			free(e);
		}
		break;
	}
	pthread_mutex_unlock(&reg_lock);
}
