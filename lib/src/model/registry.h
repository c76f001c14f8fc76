/* SPDX-License-Identifier: MIT */
/*
 * The model registry: what is known about each loaded model (name, id,
 * core) and its interned id, the number the runtime writes into the name of
 * a MODEL capture ("<model_name>_vnc_<interned id>.ntff").
 *
 * Interning: every distinct (name, model id, core) of the loaded models has
 * one interned id, the smallest number not held by another; loading the
 * same model on the same core again while it is loaded gives the same id,
 * and an id is free again once no loaded model holds it. So the ids stay
 * small and dense, as the runtime's, and two loads of one model on two
 * cores never share a file name.
 *
 * model/ is layer 1 of the library (lib/src/README): everyone reads it; it
 * may call util/ only.
 */
#ifndef NEURONPROF_MODEL_REGISTRY_H
#define NEURONPROF_MODEL_REGISTRY_H

#include <stdint.h>

#include <neuronprof/common.h>

struct nprof_model_info {
	char name[NPROF_MODEL_NAME_MAX + 1];
	uint64_t id;			/* the caller's model id */
	uint32_t vnc;			/* the virtual core it is loaded on */
	uint32_t interned;		/* set by nprof_model_register() */
};

/*
 * struct nprof_model is the runtime hooks' object (session/runtime.c); its
 * first member is its struct nprof_model_info, which is all the layers
 * below the hooks read of it.
 */
struct nprof_model;

static inline const struct nprof_model_info *nprof_model_info(const struct nprof_model *m)
{
	return (const struct nprof_model_info *)(const void *)m;
}

/* Register a loaded model and set @info->interned; 0 or -ENOMEM. */
int nprof_model_register(struct nprof_model_info *info);

/* The model of @info is unloaded. */
void nprof_model_unregister(const struct nprof_model_info *info);

#endif /* NEURONPROF_MODEL_REGISTRY_H */
