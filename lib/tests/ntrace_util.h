/* SPDX-License-Identifier: MIT */
/*
 * Questions the session-layer host tests ask about the ntrace.pb a session
 * wrote (decoded with the library's generated protobuf-c code): how many
 * events of a kind, on which core, with which attribute or model; and any
 * system-profile file decoded (pb_load()).
 */
#ifndef NPROF_NTRACE_UTIL_H
#define NPROF_NTRACE_UTIL_H

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <neuronprof/sys_trace.h>

#include "harness.h"
#include "system_profile.pb-c.h"

/*
 * Message @desc decoded from file @name in @dir (of path @name when @dir is
 * NULL); NULL if it cannot be read or decoded. Release with
 * protobuf_c_message_free_unpacked().
 */
static inline void *pb_load(const ProtobufCMessageDescriptor *desc, const char *dir, const char *name)
{
	char path[2 * PATH_MAX];
	size_t len = 0;
	void *buf, *m;

	if (snprintf(path, sizeof(path), "%s%s%s", dir ? dir : "", dir ? "/" : "", name) >=
	    (int)sizeof(path))
		return NULL;
	buf = read_whole(path, &len);
	m = buf ? protobuf_c_message_unpack(desc, NULL, len, buf) : NULL;
	free(buf);
	return m;
}

/* ntrace.pb of @dir decoded, or NULL; release with ntrace_free(). */
static inline Neuronprof__System__Ntrace *ntrace_load(const char *dir)
{
	return pb_load(&neuronprof__system__ntrace__descriptor, dir, "ntrace.pb");
}

static inline void ntrace_free(Neuronprof__System__Ntrace *nt)
{
	if (nt)
		neuronprof__system__ntrace__free_unpacked(nt, NULL);
}

/* The value of unsigned attribute @key of @e; UINT64_MAX when absent. */
static inline uint64_t ntrace_uint(const Neuronprof__System__NtraceEvent *e, const char *key)
{
	size_t i;

	for (i = 0; i < e->n_attributes; i++)
		if (!strcmp(e->attributes[i]->key, key) && e->attributes[i]->has_uint_value)
			return e->attributes[i]->uint_value;
	return UINT64_MAX;
}

/* Core filter of ntrace_count(): any core, or none. */
#define NTRACE_ANY_CORE	UINT32_MAX
#define NTRACE_NO_CORE	NPROF_SYS_TRACE_NO_CORE

/*
 * Events named @name on @core (NTRACE_NO_CORE: without a core,
 * NTRACE_ANY_CORE: any); with @key, only those whose unsigned attribute
 * @key is @value.
 */
static inline size_t ntrace_count(const Neuronprof__System__Ntrace *nt, const char *name,
				  uint32_t core, const char *key, uint64_t value)
{
	size_t i, n = 0;

	for (i = 0; nt && i < nt->n_events; i++) {
		const Neuronprof__System__NtraceEvent *e = nt->events[i];

		if (strcmp(e->name, name))
			continue;
		if (core == NTRACE_NO_CORE && e->has_core_index)
			continue;
		if (core != NTRACE_NO_CORE && core != NTRACE_ANY_CORE &&
		    (!e->has_core_index || e->core_index != core))
			continue;
		if (key && ntrace_uint(e, key) != value)
			continue;
		n++;
	}
	return n;
}

/* Events named @name on core @core that carry model id @model. */
static inline size_t ntrace_count_model(const Neuronprof__System__Ntrace *nt, const char *name,
					uint32_t core, uint64_t model)
{
	size_t i, n = 0;

	for (i = 0; nt && i < nt->n_events; i++) {
		const Neuronprof__System__NtraceEvent *e = nt->events[i];

		n += !strcmp(e->name, name) && e->has_core_index && e->core_index == core &&
		     e->has_model_id && e->model_id == model;
	}
	return n;
}

#endif /* NPROF_NTRACE_UTIL_H */
