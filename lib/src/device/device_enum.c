// SPDX-License-Identifier: MIT
/*
 * Enumeration: the render nodes libdrm reports and those of the DRM
 * directory, each device number once, kept if their driver is neuronprof,
 * sorted by device index (nprof_device_list()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>

#include "device/device_internal.h"
#include "util/internal.h"

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
		is = nprof_device_is_neuronprof(fd);
		if (is == 1 && !nprof_device_query_info(fd, path, &info)) {
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

int nprof_device_list_nodes(struct nprof_device_node *nodes, size_t max, struct nprof_mod_report *r)
{
	struct nprof_device_hooks h = nprof_device_hooks_get();

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
	ret = nprof_device_list_nodes(tmp, max, NULL);
	for (i = 0; ret > 0 && i < max && i < (size_t)ret; i++) {
		size_t size = nodes[i].size;

		nodes[i] = tmp[i];
		nodes[i].size = size;
	}
	free(tmp);
	return ret;
}
