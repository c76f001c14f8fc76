// SPDX-License-Identifier: MIT
/*
 * Opening "a" device by index (nprof_device_open()): find its node, and
 * where there is no device at all, say why and load a module if the caller
 * allows it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "device/device_internal.h"
#include "util/internal.h"

#define MAX_LISTED	64

/* Look for the device; 1 found (@path filled), 0 not found, -errno. */
static int find_device(int device_index, char *path, struct nprof_mod_report *r, int *total)
{
	struct nprof_device_node nodes[MAX_LISTED];
	int n, i;

	n = nprof_device_list_nodes(nodes, MAX_LISTED, r);
	if (n < 0)
		return n;
	*total = n;
	if (n > MAX_LISTED)
		n = MAX_LISTED;
	for (i = 0; i < n; i++) {
		if (device_index == NPROF_DEVICE_ANY || nodes[i].device_index == (uint32_t)device_index) {
			snprintf(path, NPROF_DEVICE_PATH_MAX, "%s", nodes[i].path);
			return 1;
		}
	}
	return 0;
}

static int query_modules(struct nprof_mod_report *r)
{
	struct nprof_device_hooks h = nprof_device_hooks_get();

	return h.query ? h.query(r) : nprof_kmod_query(r);
}

static int load_module(const char *name)
{
	struct nprof_device_hooks h = nprof_device_hooks_get();

	return h.load ? h.load(name) : nprof_kmod_load(name);
}

/*
 * Find the device and open it. True when that settles the call: *@dev is
 * the open device, or NULL with errno and the message set (an error, or
 * other devices but not this one); false when there is no device at all,
 * @r then says what was seen. @loaded: the module just loaded, or NULL.
 */
static bool find_and_open(int device_index, const char *loaded, struct nprof_mod_report *r,
			  struct nprof_device **dev)
{
	char path[NPROF_DEVICE_PATH_MAX];
	int found, total = 0;

	memset(r, 0, sizeof(*r));
	found = find_device(device_index, path, r, &total);
	if (found < 0) {
		errno = -found;
		*dev = NULL;
		return true;
	}
	if (found) {
		*dev = nprof_device_open_path(path);
		return true;
	}
	if (total > 0) {
		*dev = nprof_err_ptr(ENODEV, "no neuronprof device with index %d%s%s (%d other device%s found)",
				     device_index, loaded ? " after loading " : "",
				     loaded ? loaded : "", total, total == 1 ? "" : "s");
		return true;
	}
	return false;
}

NPROF_API struct nprof_device *nprof_device_open(int device_index, unsigned int flags)
{
	const unsigned int known = NPROF_DEVICE_LOAD_MODULE | NPROF_DEVICE_LOAD_SIM;
	struct nprof_mod_report r;
	struct nprof_device *dev;
	int ret, tries;
	const char *want = NULL;
	enum nprof_mod_state want_state = NPROF_MOD_UNKNOWN;

	if (flags & ~known)
		return nprof_err_ptr(EINVAL, "unknown device open flags 0x%x", flags & ~known);
	if (device_index < NPROF_DEVICE_ANY)
		return nprof_err_ptr(EINVAL, "device index %d is invalid", device_index);

	if (find_and_open(device_index, NULL, &r, &dev))
		return dev;

	/* No device at all: find out why, and load a module if allowed. */
	query_modules(&r);
	if (flags & NPROF_DEVICE_LOAD_SIM) {
		want = "neuronprof_sim";
		want_state = r.sim;
	} else if (flags & NPROF_DEVICE_LOAD_MODULE) {
		want = "neuronprof";
		want_state = r.core;
	}
	if (!want || want_state == NPROF_MOD_LOADED || want_state == NPROF_MOD_NOT_INSTALLED ||
	    r.denied_node[0]) {
		errno = -nprof_device_missing_error(&r);
		return NULL;
	}
	ret = load_module(want);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	nprof_log(NPROF_LOG_INFO, "loaded kernel module %s", want);
	/* Nodes appear as the module registers devices; give them a moment. */
	for (tries = 0; tries < 40; tries++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		if (find_and_open(device_index, want, &r, &dev))
			return dev;
		nanosleep(&ts, NULL);
	}
	query_modules(&r);
	ret = nprof_device_missing_error(&r);
	errno = -nprof_err(-ret, "after loading %s: %s", want, nprof_err_current());
	return NULL;
}
