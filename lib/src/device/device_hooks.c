// SPDX-License-Identifier: MIT
/*
 * The hooks through which the tests replace enumeration, the module query
 * and the module load (struct nprof_device_hooks).
 */
#include <pthread.h>
#include <string.h>

#include "device/device_internal.h"

/* Protects hooks: the tests swap them while nothing else runs, but be safe. */
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nprof_device_hooks hooks;

void nprof_device_set_hooks(const struct nprof_device_hooks *h)
{
	pthread_mutex_lock(&hooks_lock);
	if (h)
		hooks = *h;
	else
		memset(&hooks, 0, sizeof(hooks));
	pthread_mutex_unlock(&hooks_lock);
}

struct nprof_device_hooks nprof_device_hooks_get(void)
{
	struct nprof_device_hooks h;

	pthread_mutex_lock(&hooks_lock);
	h = hooks;
	pthread_mutex_unlock(&hooks_lock);
	return h;
}
