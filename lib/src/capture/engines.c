// SPDX-License-Identifier: MIT
/*
 * The device registry shared by the capture modes: every neuronprof device of the
 * process, numbered into virtual cores, with one capture engine per device
 * that lives only while something captures (see engines.h).
 *
 * Why one registry: a queue takes a bounded number of subscribers (one
 * before uapi 4), each with a ring of its own, so the inspect session, the
 * runtime hooks, direct and continuous profiling share one capture engine
 * per device rather than each subscribing every queue; and they must agree
 * on which device a virtual core is.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture_internal.h"
#include "device/device_internal.h"
#include "capture/engines.h"
#include "util/internal.h"

/* More neuronprof devices than any machine has. */
#define RT_MAX_DEVICES	64

struct rt_dev {
	struct nprof_device *dev;
	bool owned;			/* opened here, closed at the last put */
	uint32_t first_vnc;
	uint32_t ncores;
	struct nprof_capture *cap;	/* NULL while nobody captures */
	unsigned int cap_users;
};

/* Protects every variable below. */
static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_dev rt_devs[RT_MAX_DEVICES];
static size_t rt_ndevs;
static unsigned int rt_refs;
static uint32_t rt_ncores;
static char rt_why[512];		/* why there is no device, for messages */
static struct nprof_capture_opts rt_opts = { .size = sizeof(rt_opts) };
static uint64_t rt_keep_first, rt_keep_last;	/* nprof_rt_set_capture_iterations() */
static char rt_spool_dir[PATH_MAX];	/* rt_opts.spool_dir points here */
static struct nprof_device *test_devs[RT_MAX_DEVICES];
static size_t test_ndevs;
static bool test_mode;

static void rt_add(struct nprof_device *dev, bool owned)
{
	struct nprof_device_info info = { .size = sizeof(info) };
	struct rt_dev *d;

	if (rt_ndevs == RT_MAX_DEVICES || nprof_device_get_info(dev, &info)) {
		if (owned)
			nprof_device_close(dev);
		return;
	}
	d = &rt_devs[rt_ndevs++];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	d->owned = owned;
	d->first_vnc = rt_ncores;
	d->ncores = info.num_cores;
	rt_ncores += info.num_cores;
	/* Its queue and capture events carry virtual cores, like the runtime's. */
	dev->trace_core_base = d->first_vnc;
}

/* Open every device; called locked on the first reference. */
static void rt_open_all(void)
{
	struct nprof_device_node nodes[RT_MAX_DEVICES];
	struct nprof_device *dev;
	size_t i;
	int n;

	rt_ndevs = 0;
	rt_ncores = 0;
	rt_why[0] = '\0';
	if (test_mode) {
		for (i = 0; i < test_ndevs; i++)
			rt_add(test_devs[i], false);
		if (!test_ndevs)
			snprintf(rt_why, sizeof(rt_why), "the test registry has no device");
		return;
	}
	for (i = 0; i < RT_MAX_DEVICES; i++)
		nodes[i].size = sizeof(nodes[i]);
	n = nprof_device_list(nodes, RT_MAX_DEVICES);
	if (n <= 0) {
		/* nprof_device_open() composes the diagnosis (module missing, ...). */
		dev = nprof_device_open(NPROF_DEVICE_ANY, 0);
		if (dev) {
			rt_add(dev, true);
			return;
		}
		snprintf(rt_why, sizeof(rt_why), "%s", nprof_err_current());
		nprof_log(NPROF_LOG_DEBUG, "no neuronprof device: %s", rt_why);
		return;
	}
	for (i = 0; i < (size_t)n && i < RT_MAX_DEVICES; i++) {
		dev = nprof_device_open((int)nodes[i].device_index, 0);
		if (!dev) {
			nprof_log(NPROF_LOG_WARN, "cannot open neuronprof device %u (%s): %s",
				  nodes[i].device_index, nodes[i].path, nprof_err_current());
			snprintf(rt_why, sizeof(rt_why), "%s", nprof_err_current());
			continue;
		}
		rt_add(dev, true);
	}
}

static void rt_close_all(void)
{
	size_t i;

	for (i = 0; i < rt_ndevs; i++) {
		struct rt_dev *d = &rt_devs[i];

		if (d->cap) {
			nprof_log(NPROF_LOG_DEBUG, "closing the capture engine of device %zu with %u users",
				  i, d->cap_users);
			nprof_capture_close(d->cap);
		}
		if (d->owned)
			nprof_device_close(d->dev);
		else
			d->dev->trace_core_base = 0;
		memset(d, 0, sizeof(*d));
	}
	rt_ndevs = 0;
	rt_ncores = 0;
}

void nprof_rt_get(void)
{
	pthread_mutex_lock(&rt_lock);
	if (!rt_refs++)
		rt_open_all();
	pthread_mutex_unlock(&rt_lock);
}

void nprof_rt_put(void)
{
	pthread_mutex_lock(&rt_lock);
	if (rt_refs && !--rt_refs)
		rt_close_all();
	pthread_mutex_unlock(&rt_lock);
}

uint32_t nprof_rt_num_cores(void)
{
	uint32_t n;

	pthread_mutex_lock(&rt_lock);
	n = rt_refs ? rt_ncores : 0;
	pthread_mutex_unlock(&rt_lock);
	return n;
}

/* The device of @vnc; -ENODEV with the message. Called locked. */
static int rt_find(uint32_t vnc, struct rt_dev **out)
{
	size_t i;

	for (i = 0; rt_refs && i < rt_ndevs; i++) {
		if (vnc >= rt_devs[i].first_vnc && vnc - rt_devs[i].first_vnc < rt_devs[i].ncores) {
			*out = &rt_devs[i];
			return 0;
		}
	}
	if (!rt_ncores)
		return nprof_err(ENODEV, "no neuronprof device holds NC %u: %s", vnc,
				 rt_why[0] ? rt_why : "no device was found");
	return nprof_err(ENODEV, "no neuronprof device holds NC %u (the %zu device%s hold%s NC 0..%u)",
			 vnc, rt_ndevs, rt_ndevs == 1 ? "" : "s", rt_ndevs == 1 ? "s" : "",
			 rt_ncores - 1);
}

int nprof_rt_device(uint32_t vnc, struct nprof_device **dev, uint32_t *local)
{
	struct rt_dev *d;
	int ret;

	pthread_mutex_lock(&rt_lock);
	ret = rt_find(vnc, &d);
	if (!ret) {
		*dev = d->dev;
		*local = vnc - d->first_vnc;
	}
	pthread_mutex_unlock(&rt_lock);
	return ret;
}

const char *nprof_rt_nc_name(uint32_t vnc, char *buf, size_t len)
{
	size_t i;

	/* Not rt_find(): a name must not replace the error being reported. */
	snprintf(buf, len, "NC %u", vnc);
	pthread_mutex_lock(&rt_lock);
	for (i = 0; rt_refs && i < rt_ndevs; i++) {
		const struct rt_dev *d = &rt_devs[i];

		if (vnc >= d->first_vnc && vnc - d->first_vnc < d->ncores) {
			snprintf(buf, len, "NC %u (device %u core %u)", vnc,
				 d->dev->info.device_index, vnc - d->first_vnc);
			break;
		}
	}
	pthread_mutex_unlock(&rt_lock);
	return buf;
}

int nprof_rt_capture_get(uint32_t vnc, struct nprof_capture **cap, uint32_t *local)
{
	struct rt_dev *d;
	int ret;

	pthread_mutex_lock(&rt_lock);
	ret = rt_find(vnc, &d);
	if (ret)
		goto out;
	if (!d->cap) {
		d->cap = nprof_capture_create(d->dev, &rt_opts);
		if (!d->cap) {
			ret = -errno;
			goto out;
		}
		ret = nprof_capture_set_iterations(d->cap, rt_keep_first, rt_keep_last);
		if (ret) {
			nprof_capture_close(d->cap);
			d->cap = NULL;
			goto out;
		}
	}
	d->cap_users++;
	/* A capture keeps the devices open even if its model is unloaded. */
	rt_refs++;
	*cap = d->cap;
	*local = vnc - d->first_vnc;
out:
	pthread_mutex_unlock(&rt_lock);
	return ret;
}

int nprof_rt_capture_start(uint32_t vnc, const uint64_t *model_id, struct nprof_capture **cap,
			   uint32_t *local)
{
	int ret;

	ret = nprof_rt_capture_get(vnc, cap, local);
	if (ret)
		return ret;
	ret = nprof_capture_session_start_for(*cap, *local, model_id);
	if (ret)
		nprof_rt_capture_put(vnc);
	return ret;
}

void nprof_rt_capture_put(uint32_t vnc)
{
	struct rt_dev *d;

	pthread_mutex_lock(&rt_lock);
	if (!rt_find(vnc, &d) && d->cap_users) {
		if (!--d->cap_users) {
			/* Nothing captures on this device: give its rings back. */
			nprof_capture_close(d->cap);
			d->cap = NULL;
		}
		if (!--rt_refs)
			rt_close_all();
	}
	pthread_mutex_unlock(&rt_lock);
}

void nprof_rt_set_capture_opts(const struct nprof_capture_opts *opts)
{
	pthread_mutex_lock(&rt_lock);
	memset(&rt_opts, 0, sizeof(rt_opts));
	rt_spool_dir[0] = '\0';
	if (opts) {
		memcpy(rt_opts.ring_size, opts->ring_size, sizeof(rt_opts.ring_size));
		rt_opts.flags = opts->flags;
		if (opts->spool_dir)
			snprintf(rt_spool_dir, sizeof(rt_spool_dir), "%s", opts->spool_dir);
	}
	rt_opts.spool_dir = rt_spool_dir[0] ? rt_spool_dir : NULL;
	rt_opts.size = sizeof(rt_opts);
	pthread_mutex_unlock(&rt_lock);
}

void nprof_rt_set_capture_iterations(uint64_t first, uint64_t last)
{
	pthread_mutex_lock(&rt_lock);
	rt_keep_first = first;
	rt_keep_last = last;
	pthread_mutex_unlock(&rt_lock);
}

int nprof_rt_set_test_devices(struct nprof_device *const *devs, size_t n)
{
	int ret = 0;

	if (n > RT_MAX_DEVICES)
		return nprof_err(EINVAL, "at most %d test devices", RT_MAX_DEVICES);
	pthread_mutex_lock(&rt_lock);
	if (rt_refs) {
		ret = nprof_err(EBUSY, "the device registry is in use (%u references)", rt_refs);
	} else {
		if (n)
			memcpy(test_devs, devs, n * sizeof(*devs));
		test_ndevs = n;
		test_mode = devs != NULL;
	}
	pthread_mutex_unlock(&rt_lock);
	return ret;
}
