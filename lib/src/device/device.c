// SPDX-License-Identifier: MIT
/*
 * One device handle: opening a render node by its path (checking that it is
 * neuronprof's, GET_INFO, the code names), the test devices of
 * nprof_device_create(), the accessors and the close, with their
 * device_open and device_close trace points. Which node to open is
 * device_enum.c's and device_open.c's; the ioctls behind a handle are
 * device_ioctl.c's; subscriptions and rings are device_nq.c's and
 * device_ring.c's, the module diagnosis device_kmod.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "device/device_internal.h"
#include "ntff/ntff_internal.h"
#include "util/internal.h"
#include "trace/base/tracepoint.h"

/* ---- system trace ------------------------------------------------------------ */

uint32_t nprof_device_trace_core(const struct nprof_device *dev, uint32_t target_kind,
				 uint32_t target_index)
{
	uint32_t per, core;

	if (target_kind == NPROF_TARGET_CORE) {
		core = target_index;
	} else if (target_kind == NPROF_TARGET_TOPSP) {
		/* As nprof_device_topsp_core(), without its messages. */
		per = dev->info.num_cores ? dev->info.num_topsps / dev->info.num_cores : 0;
		if (!per)
			return NPROF_SYS_TRACE_NO_CORE;
		core = target_index / per;
	} else {
		return NPROF_SYS_TRACE_NO_CORE;
	}
	if (core >= dev->info.num_cores ||
	    (uint64_t)dev->trace_core_base + core >= NPROF_SYS_TRACE_NO_CORE)
		return NPROF_SYS_TRACE_NO_CORE;
	return dev->trace_core_base + core;
}

/* Append attribute @key to @a at *@n, as a number or (@s not NULL) a string. */
static void add_attr(struct nprof_sys_trace_attr *a, uint32_t *n, const char *key, uint64_t u,
		     const char *s)
{
	a[*n].key = key;
	a[*n].type = s ? NPROF_SYS_TRACE_ATTR_STR : NPROF_SYS_TRACE_ATTR_UINT;
	if (s)
		a[*n].v.s = s;
	else
		a[*n].v.u = u;
	(*n)++;
}

/*
 * The attributes of device_open and device_close: the device index, its
 * node (interned: the device and its path go away before the event is
 * read) and, at open, what the device is. Returns how many were filled.
 */
static uint32_t device_attrs(const struct nprof_device *dev, bool open,
			     struct nprof_sys_trace_attr a[NPROF_SYS_TRACE_MAX_ATTRS])
{
	const char *path = nprof_tp_intern(dev->path);
	const char *provider = open ? nprof_tp_intern(dev->info.provider) : NULL;
	uint32_t n = 0;

	memset(a, 0, NPROF_SYS_TRACE_MAX_ATTRS * sizeof(*a));
	add_attr(a, &n, "device", dev->info.device_index, NULL);
	if (path)
		add_attr(a, &n, "path", 0, path);
	if (open)
		add_attr(a, &n, "cores", dev->info.num_cores, NULL);
	if (provider)
		add_attr(a, &n, "provider", 0, provider);
	return n;
}

/* End the device_open begun before the device was opened; @want: what begin returned. */
static void trace_open_end(struct nprof_sys_trace_event *ev, int want,
			   const struct nprof_device *dev)
{
	struct nprof_sys_trace_attr a[NPROF_SYS_TRACE_MAX_ATTRS];

	/* Filtered out or off at begin: nothing to prepare. */
	if (want != 1)
		return;
	ev->nattrs = device_attrs(dev, true, a);
	ev->attrs = a;
	nprof_tp_end(ev);
}

/* ---- describing a device ---------------------------------------------------- */

int nprof_device_info_check(const struct nprof_device_info *info)
{
	uint32_t es = info->entry_size;

	if (info->uapi_version < 1)
		return nprof_err(EPROTO, "device reports uapi version %u", info->uapi_version);
	if (!info->num_cores || info->num_cores > 256)
		return nprof_err(EPROTO, "device reports %u NeuronCores (expected 1 to 256)",
				 info->num_cores);
	if (info->num_topsps > 1024)
		return nprof_err(EPROTO, "device reports %u TopSPs (expected at most 1024)",
				 info->num_topsps);
	if (!info->engines_per_core || info->engines_per_core > NPROF_MAX_ENGINES)
		return nprof_err(EPROTO, "device reports %u engines per core (expected 1 to %d)",
				 info->engines_per_core, NPROF_MAX_ENGINES);
	if (es < sizeof(struct neuronprof_notification) || es & (es - 1) || es > NTFF_MAX_ENTRY_SIZE)
		return nprof_err(EPROTO, "device reports entry size %u (expected a power of two from %zu)",
				 es, sizeof(struct neuronprof_notification));
	/* Raw entries are carried into NTFF as such, which needs their format. */
	if (!(info->caps & (NEURONPROF_CAP_RAW | NEURONPROF_CAP_RAW_PACKED)) !=
	    (info->raw_format == NEURONPROF_RAW_FORMAT_NONE) ||
	    (info->caps & NEURONPROF_CAP_RAW && info->caps & NEURONPROF_CAP_RAW_PACKED) ||
	    (info->raw_format != NEURONPROF_RAW_FORMAT_NONE && !info->raw_entry_size))
		return nprof_err(EPROTO, "device reports raw capability %d with raw format %u and "
				 "raw entry size %u, packed %d", !!(info->caps & NEURONPROF_CAP_RAW),
				 info->raw_format, info->raw_entry_size,
				 !!(info->caps & NEURONPROF_CAP_RAW_PACKED));
	if (info->clock_domain > NEURONPROF_CLOCK_CAPTURED)
		return nprof_err(EPROTO, "device reports clock domain %u (expected %d or %d)",
				 info->clock_domain, NEURONPROF_CLOCK_PRODUCED,
				 NEURONPROF_CLOCK_CAPTURED);
	if (!info->min_ring_size || info->min_ring_size > info->max_ring_size ||
	    info->min_ring_size < es)
		return nprof_err(EPROTO, "device reports ring sizes %llu to %llu",
				 (unsigned long long)info->min_ring_size,
				 (unsigned long long)info->max_ring_size);
	return 0;
}

/* struct drm_neuronprof_device_info of uapi version 1 ends at reserved. */
#define DEVICE_INFO_UAPI_V1_SIZE	offsetof(struct drm_neuronprof_device_info, queue_instances)

/* GET_INFO in its two steps: ask for the size, then fetch the struct. */
int nprof_device_query_info(int fd, const char *path, struct nprof_device_info *out)
{
	struct drm_neuronprof_device_info *di;
	struct drm_neuronprof_get_info gi;
	uint32_t need;
	int ret = 0;

	memset(&gi, 0, sizeof(gi));
	gi.query = NEURONPROF_INFO_DEVICE;
	if (drmIoctl(fd, DRM_IOCTL_NEURONPROF_GET_INFO, &gi))
		return nprof_err(errno, "%s: GET_INFO size query failed: %s", path, strerror(errno));
	need = gi.size;
	if (need < DEVICE_INFO_UAPI_V1_SIZE)
		return nprof_err(EPROTO, "%s: GET_INFO reports a %u-byte device info, smaller than the %zu bytes of uapi version 1",
				 path, need, DEVICE_INFO_UAPI_V1_SIZE);
	/*
	 * A newer kernel's struct is larger; take it whole and read our prefix.
	 * A version-1 kernel's is smaller: what it lacks reads as zero.
	 */
	di = calloc(1, need > sizeof(*di) ? need : sizeof(*di));
	if (!di)
		return nprof_err(ENOMEM, "cannot allocate %u bytes of device info", need);
	memset(&gi, 0, sizeof(gi));
	gi.query = NEURONPROF_INFO_DEVICE;
	gi.size = need;
	gi.data = (uintptr_t)di;
	if (drmIoctl(fd, DRM_IOCTL_NEURONPROF_GET_INFO, &gi)) {
		ret = nprof_err(errno, "%s: GET_INFO failed: %s", path, strerror(errno));
		goto out;
	}
	if (gi.size < DEVICE_INFO_UAPI_V1_SIZE) {
		ret = nprof_err(EPROTO, "%s: GET_INFO returned %u bytes, expected at least %zu", path,
				gi.size, DEVICE_INFO_UAPI_V1_SIZE);
		goto out;
	}
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->uapi_version = di->uapi_version;
	out->arch = di->arch;
	memcpy(out->provider, di->provider, sizeof(out->provider));
	out->provider[sizeof(out->provider) - 1] = '\0';
	out->num_cores = di->num_cores;
	out->num_topsps = di->num_topsps;
	out->engines_per_core = di->engines_per_core;
	out->entry_size = di->entry_size;
	out->core_queue_types = di->core_queue_types;
	out->topsp_queue_types = di->topsp_queue_types;
	out->per_engine_queue_types = di->per_engine_queue_types;
	out->clock_id = di->clock_id;
	out->caps = di->caps;
	out->min_ring_size = di->min_ring_size;
	out->max_ring_size = di->max_ring_size;
	out->device_index = di->device_index;
	/* Zero from a version-1 module, whose struct ends before them. */
	out->clock_domain = di->clock_domain;
	out->raw_format = di->raw_format;
	out->raw_entry_size = di->raw_entry_size;
	ret = nprof_device_info_check(out);
	if (ret)
		ret = nprof_err(-ret, "%s: %s", path, nprof_err_current());
out:
	free(di);
	return ret;
}

/* 1 if @fd's DRM driver is neuronprof, 0 if another driver, -errno. */
int nprof_device_is_neuronprof(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);
	int ret;

	if (!v)
		return -(errno ? errno : ENOTTY);
	ret = v->name && !strcmp(v->name, NEURONPROF_DRIVER_NAME);
	drmFreeVersion(v);
	return ret;
}

static struct nprof_device *device_alloc(void)
{
	struct nprof_device *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return nprof_err_ptr(ENOMEM, "cannot allocate a device");
	dev->fd = -1;
	return dev;
}

/*
 * Close and free, untraced: the failure paths of open use it, so that only
 * a device whose open was traced is traced closing.
 */
static void device_free(struct nprof_device *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	free(dev->names);
	free(dev->name_buf);
	free(dev);
}

int nprof_device_set_code_names(struct nprof_device *dev,
				const struct neuronprof_code_name *names, size_t n)
{
	struct nprof_ntff_code_name *v = NULL;
	struct neuronprof_code_name *buf = NULL;
	const char *why;
	size_t i, at;

	if (n) {
		v = calloc(n, sizeof(*v));
		buf = calloc(n, sizeof(*buf));
		if (!v || !buf) {
			free(v);
			free(buf);
			return nprof_err(ENOMEM, "cannot hold %zu code names", n);
		}
		memcpy(buf, names, n * sizeof(*buf));
		for (i = 0; i < n; i++) {
			buf[i].name[sizeof(buf[i].name) - 1] = '\0';
			v[i].queue_type = buf[i].queue_type;
			v[i].code = buf[i].code;
			v[i].name = buf[i].name;
		}
		why = nprof_ntff_code_names_problem(v, n, dev->info.raw_format, &at);
		if (why) {
			free(v);
			free(buf);
			return nprof_err(EINVAL, "%s: %s (code name %zu of %zu)", dev->path, why, at, n);
		}
	}
	free(dev->names);
	free(dev->name_buf);
	dev->names = v;
	dev->name_buf = buf;
	dev->num_names = n;
	return 0;
}

/*
 * NEURONPROF_INFO_CODE_NAMES (uapi version 3): the size, then the table,
 * stepping by the module's entry size. A module before version 3 has no
 * such query: no names.
 */
static int query_code_names(struct nprof_device *dev)
{
	const struct drm_neuronprof_code_names *hdr;
	struct neuronprof_code_name *names = NULL;
	struct drm_neuronprof_get_info gi;
	unsigned char *buf;
	uint32_t need, i;
	int ret = 0;

	if (dev->info.uapi_version < 3)
		return 0;
	memset(&gi, 0, sizeof(gi));
	gi.query = NEURONPROF_INFO_CODE_NAMES;
	if (drmIoctl(dev->fd, DRM_IOCTL_NEURONPROF_GET_INFO, &gi))
		return nprof_err(errno, "%s: GET_INFO code names size query failed: %s",
				 dev->path, strerror(errno));
	need = gi.size;
	if (need < sizeof(*hdr))
		return nprof_err(EPROTO, "%s: GET_INFO reports a %u-byte name table, smaller than its header",
				 dev->path, need);
	buf = calloc(1, need);
	if (!buf)
		return nprof_err(ENOMEM, "cannot allocate %u bytes of code names", need);
	gi.size = need;
	gi.data = (uintptr_t)buf;
	if (drmIoctl(dev->fd, DRM_IOCTL_NEURONPROF_GET_INFO, &gi)) {
		ret = nprof_err(errno, "%s: GET_INFO code names failed: %s", dev->path, strerror(errno));
		goto out;
	}
	hdr = (const void *)buf;
	if (hdr->version < 1 || hdr->entry_size < sizeof(*names) ||
	    hdr->count > NEURONPROF_MAX_CODE_NAMES ||
	    gi.size != sizeof(*hdr) + (uint64_t)hdr->count * hdr->entry_size) {
		ret = nprof_err(EPROTO, "%s: GET_INFO returned a name table of version %u, %u entries of %u bytes in %u bytes",
				dev->path, hdr->version, hdr->count, hdr->entry_size, gi.size);
		goto out;
	}
	if (hdr->count) {
		names = calloc(hdr->count, sizeof(*names));
		if (!names) {
			ret = nprof_err(ENOMEM, "cannot allocate %u code names", hdr->count);
			goto out;
		}
	}
	for (i = 0; i < hdr->count; i++)
		memcpy(&names[i], buf + sizeof(*hdr) + (size_t)i * hdr->entry_size, sizeof(*names));
	ret = nprof_device_set_code_names(dev, names, hdr->count);
out:
	free(names);
	free(buf);
	return ret;
}

NPROF_API struct nprof_device *nprof_device_open_path(const char *path)
{
	struct nprof_sys_trace_event ev;
	struct nprof_device *dev;
	int ret, err, want;

	if (!path)
		return nprof_err_ptr(EINVAL, "device path is NULL");
	if (strlen(path) >= NPROF_DEVICE_PATH_MAX)
		return nprof_err_ptr(ENAMETOOLONG, "device path %s is too long", path);
	want = nprof_tp_begin(&ev, NPROF_EV_DEVICE_OPEN, NPROF_SYS_TRACE_SRC_NEURON_RT,
				     NPROF_SYS_TRACE_NO_CORE);
	dev = device_alloc();
	if (!dev)
		return NULL;
	snprintf(dev->path, sizeof(dev->path), "%s", path);
	dev->ops = &nprof_drm_ops;
	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		err = errno;
		free(dev);
		return nprof_err_ptr(err, "cannot open %s: %s", path, strerror(err));
	}
	ret = nprof_device_is_neuronprof(dev->fd);
	if (ret <= 0) {
		err = ret ? -ret : ENODEV;
		device_free(dev);
		return nprof_err_ptr(err, "%s is not a neuronprof device%s%s", path,
				     ret ? ": " : "", ret ? strerror(-ret) : "");
	}
	ret = nprof_device_query_info(dev->fd, path, &dev->info);
	if (!ret)
		ret = query_code_names(dev);
	if (ret) {
		device_free(dev);
		errno = -ret;
		return NULL;
	}
	trace_open_end(&ev, want, dev);
	return dev;
}

struct nprof_device *nprof_device_create(const struct nprof_device_info *info,
					 const struct nprof_device_ops *ops, void *priv)
{
	struct nprof_sys_trace_event ev;
	struct nprof_device *dev;
	int ret, want;

	if (!info || !ops)
		return nprof_err_ptr(EINVAL, "device info or operations are NULL");
	ret = nprof_device_info_check(info);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	/* Traced as an open, so that its nprof_device_close() pairs with something. */
	want = nprof_tp_begin(&ev, NPROF_EV_DEVICE_OPEN, NPROF_SYS_TRACE_SRC_NEURON_RT,
				     NPROF_SYS_TRACE_NO_CORE);
	dev = device_alloc();
	if (!dev)
		return NULL;
	dev->info = *info;
	dev->info.size = sizeof(dev->info);
	dev->ops = ops;
	dev->priv = priv;
	snprintf(dev->path, sizeof(dev->path), "(test device %u)", info->device_index);
	trace_open_end(&ev, want, dev);
	return dev;
}

NPROF_API void nprof_device_close(struct nprof_device *dev)
{
	struct nprof_sys_trace_attr a[NPROF_SYS_TRACE_MAX_ATTRS];
	struct nprof_sys_trace_event ev;

	if (!dev)
		return;
	if (nprof_tp_begin(&ev, NPROF_EV_DEVICE_CLOSE, NPROF_SYS_TRACE_SRC_NEURON_RT,
				  NPROF_SYS_TRACE_NO_CORE) == 1) {
		/* The attributes outlive the device: take them before it goes. */
		ev.nattrs = device_attrs(dev, false, a);
		ev.attrs = a;
	}
	device_free(dev);
	nprof_tp_end(&ev);
}

NPROF_API int nprof_device_fd(const struct nprof_device *dev)
{
	if (!dev)
		return nprof_err(EINVAL, "device is NULL");
	return dev->fd;
}

NPROF_API const char *nprof_device_path(const struct nprof_device *dev)
{
	if (!dev)
		return nprof_err_ptr(EINVAL, "device is NULL");
	return dev->path;
}

NPROF_API int nprof_device_get_info(const struct nprof_device *dev, struct nprof_device_info *info)
{
	size_t size;

	if (!dev || !info)
		return nprof_err(EINVAL, "device or info is NULL");
	if (NPROF_SIZED_VALID_SINCE(info, nprof_device_info, NPROF_DEVICE_INFO_SIZE_V1,
				    NPROF_SIZED_OUT))
		return -EINVAL;
	size = info->size;
	/* A 1.0 caller's struct ends before the raw fields. */
	memcpy(info, &dev->info, size < sizeof(*info) ? size : sizeof(*info));
	info->size = size;
	return 0;
}

NPROF_API uint64_t nprof_device_ring_size(const struct nprof_device *dev, uint64_t requested)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), size = page;

	if (!dev)
		return 0;
	while (size < requested && size < dev->info.max_ring_size)
		size <<= 1;
	if (size < dev->info.min_ring_size)
		size = dev->info.min_ring_size;
	if (size > dev->info.max_ring_size)
		size = dev->info.max_ring_size;
	return size;
}

NPROF_API int nprof_device_topsp_core(const struct nprof_device *dev, uint32_t topsp)
{
	uint32_t per;

	if (!dev)
		return nprof_err(EINVAL, "device is NULL");
	if (topsp >= dev->info.num_topsps)
		return nprof_err(EINVAL, "TopSP %u does not exist (the device has %u)", topsp,
				 dev->info.num_topsps);
	per = dev->info.num_topsps / dev->info.num_cores;
	if (!per)
		return nprof_err(EINVAL, "the device has fewer TopSPs (%u) than cores (%u)",
				 dev->info.num_topsps, dev->info.num_cores);
	/* A remainder of TopSPs beyond num_cores * per serves no core. */
	if (topsp / per >= dev->info.num_cores)
		return nprof_err(EINVAL, "TopSP %u serves no core", topsp);
	return (int)(topsp / per);
}
