// SPDX-License-Identifier: MIT
/*
 * Device layer: enumeration with libdrm, opening a render node, GET_INFO,
 * the ioctl-backed queue operations and SIM_EXEC. Subscriptions and their
 * rings are in device_nq.c and device_ring.c; the module diagnosis is in
 * device_kmod.c.
 *
 * Every ioctl goes through drmIoctl(), which restarts on EINTR and EAGAIN:
 * the uapi promises that each of them is restartable.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "device/device_internal.h"
#include "ntff/ntff_internal.h"
#include "util/internal.h"
#include "util/tracepoint.h"

/* ---- hooks ------------------------------------------------------------------ */

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

static struct nprof_device_hooks get_hooks(void)
{
	struct nprof_device_hooks h;

	pthread_mutex_lock(&hooks_lock);
	h = hooks;
	pthread_mutex_unlock(&hooks_lock);
	return h;
}

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
	a[n].key = "device";
	a[n].type = NPROF_SYS_TRACE_ATTR_UINT;
	a[n++].v.u = dev->info.device_index;
	if (path) {
		a[n].key = "path";
		a[n].type = NPROF_SYS_TRACE_ATTR_STR;
		a[n++].v.s = path;
	}
	if (open) {
		a[n].key = "cores";
		a[n].type = NPROF_SYS_TRACE_ATTR_UINT;
		a[n++].v.u = dev->info.num_cores;
	}
	if (provider) {
		a[n].key = "provider";
		a[n].type = NPROF_SYS_TRACE_ATTR_STR;
		a[n++].v.s = provider;
	}
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
static int query_info(int fd, const char *path, struct nprof_device_info *out)
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
static int is_neuronprof(int fd)
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
	ret = is_neuronprof(dev->fd);
	if (ret <= 0) {
		err = ret ? -ret : ENODEV;
		device_free(dev);
		return nprof_err_ptr(err, "%s is not a neuronprof device%s%s", path,
				     ret ? ": " : "", ret ? strerror(-ret) : "");
	}
	ret = query_info(dev->fd, path, &dev->info);
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

/* ---- enumeration -------------------------------------------------------------- */

static int cmp_drm_nodes(const void *a, const void *b)
{
	const struct nprof_drm_node *x = a, *y = b;

	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t nprof_drm_nodes_unique(struct nprof_drm_node *nodes, size_t n)
{
	size_t i, kept = 0;

	if (!n)
		return 0;
	qsort(nodes, n, sizeof(*nodes), cmp_drm_nodes);
	for (i = 0; i < n; i++) {
		if (kept && nodes[kept - 1].major == nodes[i].major &&
		    nodes[kept - 1].minor == nodes[i].minor)
			continue;
		nodes[kept++] = nodes[i];
	}
	return kept;
}

/* Render node candidates, in the order they were found. */
struct node_vec {
	struct nprof_drm_node *v;
	size_t n, cap;
};

/*
 * Add @path if it is a character device; anything else (a stale entry, a
 * path too long for a node) is not a render node and is left out quietly.
 */
static int node_vec_add(struct node_vec *nv, const char *path)
{
	struct nprof_drm_node *n;
	struct stat st;

	if (strlen(path) >= NPROF_DEVICE_PATH_MAX || stat(path, &st) || !S_ISCHR(st.st_mode))
		return 0;
	if (nv->n == nv->cap) {
		size_t cap = nv->cap ? nv->cap * 2 : 16;
		void *p = realloc(nv->v, cap * sizeof(*nv->v));

		if (!p)
			return nprof_err(ENOMEM, "cannot allocate %zu render node entries", cap);
		nv->v = p;
		nv->cap = cap;
	}
	n = &nv->v[nv->n];
	memset(n, 0, sizeof(*n));
	snprintf(n->path, sizeof(n->path), "%s", path);
	n->major = major(st.st_rdev);
	n->minor = minor(st.st_rdev);
	n->seq = nv->n++;
	return 0;
}

/* The render nodes of the DRM devices libdrm reports. */
static int nodes_from_libdrm(struct node_vec *nv)
{
	drmDevicePtr *devs;
	int ndev, i, ret;

	ndev = drmGetDevices2(0, NULL, 0);
	if (ndev == -ENOENT || ndev == 0)	/* no /dev/dri at all */
		return 0;
	if (ndev < 0)
		return nprof_err(-ndev, "cannot enumerate DRM devices: %s", strerror(-ndev));
	devs = calloc((size_t)ndev, sizeof(*devs));
	if (!devs)
		return nprof_err(ENOMEM, "cannot allocate %d DRM device entries", ndev);
	ret = drmGetDevices2(0, devs, ndev);
	if (ret < 0) {
		free(devs);
		return nprof_err(-ret, "cannot enumerate DRM devices: %s", strerror(-ret));
	}
	ndev = ret < ndev ? ret : ndev;
	ret = 0;
	for (i = 0; i < ndev && !ret; i++)
		if ((devs[i]->available_nodes & (1 << DRM_NODE_RENDER)) &&
		    devs[i]->nodes[DRM_NODE_RENDER])
			ret = node_vec_add(nv, devs[i]->nodes[DRM_NODE_RENDER]);
	drmFreeDevices(devs, ndev);
	free(devs);
	return ret;
}

/*
 * Every render node of @dir. drmGetDevices2() folds devices whose bus
 * information compares equal into one entry that keeps a single render
 * node; platform devices without a device-tree node (neuronprof_sim's) all
 * carry the same bus information (libdrm falls back to the MODALIAS,
 * "platform:neuronprof_sim"), so all but one of them would be lost. Each
 * render node is its own DRM device, so the directory is the complete list.
 */
static int nodes_from_dir(struct node_vec *nv, const char *dir)
{
	const size_t plen = strlen(DRM_RENDER_MINOR_NAME);
	char path[NPROF_DEVICE_PATH_MAX + 1];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return nprof_err(errno, "cannot read %s: %s", dir, strerror(errno));
	}
	while (!ret && (de = readdir(d))) {
		if (strncmp(de->d_name, DRM_RENDER_MINOR_NAME, plen))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		ret = node_vec_add(nv, path);
	}
	closedir(d);
	return ret;
}

struct listed {
	struct nprof_device_node node;
	unsigned int minor;
};

/* By device index; the render node's minor orders equal indexes. */
static int cmp_listed(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;

	if (x->node.device_index != y->node.device_index)
		return x->node.device_index < y->node.device_index ? -1 : 1;
	return x->minor < y->minor ? -1 : x->minor > y->minor;
}

/*
 * The real enumeration: the render nodes libdrm reports and those of the
 * DRM directory, each device number once. Nodes that cannot be opened are
 * remembered in @r (the first one), so "no device" can say the permissions
 * are the reason. Fills at most @max nodes, sorted by device index; returns
 * the total.
 */
static int drm_list(struct nprof_device_node *nodes, size_t max, struct nprof_mod_report *r)
{
	struct node_vec nv = { 0 };
	struct listed *all = NULL;
	size_t i, ncand, count = 0;
	int ret;

	ret = nodes_from_libdrm(&nv);
	if (!ret)
		ret = nodes_from_dir(&nv, DRM_DIR_NAME);
	if (ret)
		goto out;
	ncand = nprof_drm_nodes_unique(nv.v, nv.n);
	if (ncand > INT_MAX) {
		ret = nprof_err(EOVERFLOW, "%zu render nodes are more than can be counted", ncand);
		goto out;
	}
	all = calloc(ncand ? ncand : 1, sizeof(*all));
	if (!all) {
		ret = nprof_err(ENOMEM, "cannot allocate %zu device nodes", ncand);
		goto out;
	}
	for (i = 0; i < ncand; i++) {
		const char *path = nv.v[i].path;
		struct nprof_device_info info;
		int fd, is;

		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			if (r && !r->denied_node[0] && (errno == EACCES || errno == EPERM)) {
				snprintf(r->denied_node, sizeof(r->denied_node), "%s", path);
				r->denied_errno = errno;
			}
			continue;
		}
		is = is_neuronprof(fd);
		if (is == 1 && !query_info(fd, path, &info)) {
			struct listed *l = &all[count++];
			struct nprof_device_node *n = &l->node;

			n->size = sizeof(*n);
			snprintf(n->path, sizeof(n->path), "%s", path);
			n->device_index = info.device_index;
			n->arch = info.arch;
			n->num_cores = info.num_cores;
			memcpy(n->provider, info.provider, sizeof(n->provider));
			l->minor = nv.v[i].minor;
		} else if (is == 1) {
			nprof_log(NPROF_LOG_WARN, "skipping %s: %s", path, nprof_err_current());
		}
		close(fd);
	}
	qsort(all, count, sizeof(*all), cmp_listed);
	for (i = 0; i < count && i < max; i++)
		nodes[i] = all[i].node;
	ret = (int)count;
out:
	free(nv.v);
	free(all);
	return ret;
}

static int list_nodes(struct nprof_device_node *nodes, size_t max, struct nprof_mod_report *r)
{
	struct nprof_device_hooks h = get_hooks();

	return h.list ? h.list(nodes, max, r) : drm_list(nodes, max, r);
}

NPROF_API int nprof_device_list(struct nprof_device_node *nodes, size_t max)
{
	struct nprof_device_node *tmp;
	size_t i;
	int ret;

	if (max && !nodes)
		return nprof_err(EINVAL, "device node array is NULL");
	for (i = 0; i < max; i++)
		if (NPROF_SIZED_VALID(&nodes[i], nprof_device_node, NPROF_SIZED_OUT))
			return -EINVAL;
	/* Fill a private array so a caller's larger elements keep their stride. */
	tmp = calloc(max ? max : 1, sizeof(*tmp));
	if (!tmp)
		return nprof_err(ENOMEM, "cannot allocate %zu device nodes", max);
	ret = list_nodes(tmp, max, NULL);
	for (i = 0; ret > 0 && i < max && i < (size_t)ret; i++) {
		size_t size = nodes[i].size;

		nodes[i] = tmp[i];
		nodes[i].size = size;
	}
	free(tmp);
	return ret;
}

/* ---- opening "a" device, with the diagnosis ------------------------------ */

#define MAX_LISTED	64

/* Look for the device; 1 found (@path filled), 0 not found, -errno. */
static int find_device(int device_index, char *path, struct nprof_mod_report *r, int *total)
{
	struct nprof_device_node nodes[MAX_LISTED];
	int n, i;

	n = list_nodes(nodes, MAX_LISTED, r);
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
	struct nprof_device_hooks h = get_hooks();

	return h.query ? h.query(r) : nprof_kmod_query(r);
}

static int load_module(const char *name)
{
	struct nprof_device_hooks h = get_hooks();

	return h.load ? h.load(name) : nprof_kmod_load(name);
}

NPROF_API struct nprof_device *nprof_device_open(int device_index, unsigned int flags)
{
	const unsigned int known = NPROF_DEVICE_LOAD_MODULE | NPROF_DEVICE_LOAD_SIM;
	char path[NPROF_DEVICE_PATH_MAX];
	struct nprof_mod_report r;
	int found, total = 0, ret, tries;
	const char *want = NULL;
	enum nprof_mod_state want_state = NPROF_MOD_UNKNOWN;

	if (flags & ~known)
		return nprof_err_ptr(EINVAL, "unknown device open flags 0x%x", flags & ~known);
	if (device_index < NPROF_DEVICE_ANY)
		return nprof_err_ptr(EINVAL, "device index %d is invalid", device_index);

	memset(&r, 0, sizeof(r));
	found = find_device(device_index, path, &r, &total);
	if (found < 0) {
		errno = -found;
		return NULL;
	}
	if (found)
		return nprof_device_open_path(path);
	if (total > 0)
		return nprof_err_ptr(ENODEV, "no neuronprof device with index %d (%d other device%s found)",
				     device_index, total, total == 1 ? "" : "s");

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

		memset(&r, 0, sizeof(r));
		found = find_device(device_index, path, &r, &total);
		if (found < 0) {
			errno = -found;
			return NULL;
		}
		if (found)
			return nprof_device_open_path(path);
		if (total > 0)
			return nprof_err_ptr(ENODEV, "no neuronprof device with index %d after loading %s (%d other device%s found)",
					     device_index, want, total, total == 1 ? "" : "s");
		nanosleep(&ts, NULL);
	}
	query_modules(&r);
	ret = nprof_device_missing_error(&r);
	errno = -nprof_err(-ret, "after loading %s: %s", want, nprof_err_current());
	return NULL;
}

/* ---- SIM_EXEC ----------------------------------------------------------------- */

NPROF_API int nprof_device_sim_exec(struct nprof_device *dev, const struct nprof_sim_program *prog,
				    struct nprof_sim_result *res)
{
	struct drm_neuronprof_sim_exec args;
	size_t size;
	int i, ret;

	if (!dev || !prog || !res)
		return nprof_err(EINVAL, "device, program or result is NULL");
	if (NPROF_SIZED_VALID(prog, nprof_sim_program, NPROF_SIZED_IN) ||
	    NPROF_SIZED_VALID(res, nprof_sim_result, NPROF_SIZED_OUT))
		return -EINVAL;
	if (!(dev->info.caps & NPROF_DEVICE_CAP_SIM_EXEC))
		return nprof_err(EOPNOTSUPP, "%s (provider %s) cannot run synthetic programs",
				 dev->path, dev->info.provider);
	if (prog->pad)
		return nprof_err(EINVAL, "struct nprof_sim_program pad must be 0");
	memset(&args, 0, sizeof(args));
	args.core = prog->core;
	args.flags = prog->flags;
	args.model_id = prog->model_id;
	args.iterations = prog->iterations;
	for (i = 0; i < NPROF_MAX_ENGINES; i++)
		args.instructions[i] = prog->instructions[i];
	args.dma_transfers = prog->dma_transfers;
	args.timeout_ns = prog->timeout_ns;
	ret = dev->ops->sim_exec ? dev->ops->sim_exec(dev, &args) : -EOPNOTSUPP;
	if (ret)
		return nprof_err(-ret, "SIM_EXEC on %s core %u failed: %s", dev->path, prog->core,
				 strerror(-ret));
	size = res->size;
	memset(res, 0, sizeof(*res));
	res->size = size;
	res->status = args.status;
	for (i = 0; i < NPROF_SIM_QUEUE_TYPES; i++)
		res->produced[i] = args.produced[i];
	return 0;
}

/* ---- the ioctl-backed queue operations ------------------------------------- */

static int drm_subscribe(struct nprof_device *dev, struct nprof_nq *nq)
{
	struct drm_neuronprof_nq_subscribe s;
	static const int prot[3] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_READ };
	uint64_t off[3], len[3];
	int i, err;

	memset(&s, 0, sizeof(s));
	s.target_kind = nq->params.target_kind;
	s.target_index = nq->params.target_index;
	s.queue_type = nq->params.queue_type;
	s.engine = nq->params.engine;
	s.ring_size = nq->params.ring_size;
	s.watermark = nq->params.watermark;
	if (drmIoctl(dev->fd, DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE, &s))
		return -errno;
	nq->fd = s.fd;
	off[0] = s.header_offset, len[0] = s.header_size;
	off[1] = s.consumer_offset, len[1] = s.consumer_size;
	off[2] = s.data_offset, len[2] = s.data_size;
	for (i = 0; i < 3; i++) {
		void *p = mmap(NULL, (size_t)len[i], prot[i], MAP_SHARED, nq->fd, (off_t)off[i]);

		if (p == MAP_FAILED) {
			static const char *const names[3] = { "header", "consumer", "data" };
			int failed = i;

			err = errno;
			while (i--) {
				munmap(nq->maps[i], nq->map_len[i]);
				nq->maps[i] = NULL;
			}
			close(nq->fd);
			nq->fd = -1;
			return nprof_err(err, "cannot map the %s region (offset %llu, %llu bytes) of the subscription: %s",
					 names[failed], (unsigned long long)off[failed],
					 (unsigned long long)len[failed], strerror(err));
		}
		nq->maps[i] = p;
		nq->map_len[i] = (size_t)len[i];
	}
	return 0;
}

static int drm_drain(struct nprof_nq *nq, uint32_t flags, struct neuronprof_nq_drain *st)
{
	memset(st, 0, sizeof(*st));
	st->flags = flags;
	if (drmIoctl(nq->fd, NEURONPROF_IOCTL_NQ_DRAIN, st))
		return -errno;
	return 0;
}

static void drm_unsubscribe(struct nprof_nq *nq)
{
	int i;

	for (i = 0; i < 3; i++)
		if (nq->maps[i])
			munmap(nq->maps[i], nq->map_len[i]);
	if (nq->fd >= 0)
		close(nq->fd);
	nq->fd = -1;
}

static int drm_sim_exec(struct nprof_device *dev, struct drm_neuronprof_sim_exec *args)
{
	if (drmIoctl(dev->fd, DRM_IOCTL_NEURONPROF_SIM_EXEC, args))
		return -errno;
	return 0;
}

static int drm_holders(struct nprof_device *dev, const struct nprof_nq *nq,
		       struct drm_neuronprof_nq_holders *h)
{
	memset(h, 0, sizeof(*h));
	h->target_kind = nq->params.target_kind;
	h->target_index = nq->params.target_index;
	h->queue_type = nq->params.queue_type;
	h->engine = nq->params.engine;
	if (drmIoctl(dev->fd, DRM_IOCTL_NEURONPROF_NQ_HOLDERS, h))
		return -errno;
	return 0;
}

const struct nprof_device_ops nprof_drm_ops = {
	.subscribe = drm_subscribe,
	.drain = drm_drain,
	.unsubscribe = drm_unsubscribe,
	.sim_exec = drm_sim_exec,
	.holders = drm_holders,
};
