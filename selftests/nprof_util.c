// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the neuronprof uapi selftests (see nprof_util.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nprof_util.h"

static const char *const qt_names[NEURONPROF_QT_COUNT] = {
	[NEURONPROF_QT_TRACE] = "TRACE",
	[NEURONPROF_QT_EVENT] = "EVENT",
	[NEURONPROF_QT_ERROR] = "ERROR",
	[NEURONPROF_QT_INFER_STATUS] = "INFER_STATUS",
	[NEURONPROF_QT_DMA] = "DMA",
	[NEURONPROF_QT_THROTTLE] = "THROTTLE",
	[NEURONPROF_QT_TOPSP_TRACE] = "TOPSP_TRACE",
	[NEURONPROF_QT_TOPSP_EVENT] = "TOPSP_EVENT",
	[NEURONPROF_QT_TOPSP_ERROR] = "TOPSP_ERROR",
};

const char *nprof_qt_name(__u32 type)
{
	return type < NEURONPROF_QT_COUNT ? qt_names[type] : "?";
}

__u64 nprof_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

bool nprof_is_pow2(__u64 v)
{
	return v && !(v & (v - 1));
}

/* The descriptor number the next open() gets, to spot leaked descriptors. */
int nprof_lowest_free_fd(void)
{
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd;
}

long nprof_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* 1 if @fd is a DRM node whose driver is neuronprof, 0 if not, -errno. */
int nprof_is_neuronprof_fd(int fd)
{
	char name[64] = "";
	struct drm_version v;

	memset(&v, 0, sizeof(v));
	v.name = name;
	v.name_len = sizeof(name) - 1;
	if (ioctl(fd, DRM_IOCTL_VERSION, &v))
		return -errno;
	/* name_len comes back as the full length even when truncated. */
	if (v.name_len != strlen(NEURONPROF_DRIVER_NAME))
		return 0;
	return !strcmp(name, NEURONPROF_DRIVER_NAME);
}

static int node_number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "renderD", 7))
		return -1;
	n = strtol(name + 7, &end, 10);
	if (*end || end == name + 7 || n < 0)
		return -1;
	return (int)n;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * Fill @nodes with the neuronprof render nodes, in minor order. Returns how
 * many there are (at most @max) or -errno when /dev/dri cannot be read.
 */
int nprof_list_nodes(char nodes[][NPROF_PATH_MAX], int max)
{
	int minors[NPROF_NODE_MAX];
	int nminors = 0, count = 0, i;
	struct dirent *de;
	DIR *dir;

	dir = opendir("/dev/dri");
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir)) && nminors < NPROF_NODE_MAX) {
		int n = node_number(de->d_name);

		if (n >= 0)
			minors[nminors++] = n;
	}
	closedir(dir);
	qsort(minors, nminors, sizeof(minors[0]), cmp_int);

	for (i = 0; i < nminors && count < max; i++) {
		char path[NPROF_PATH_MAX];
		int fd, ret;

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", minors[i]);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		ret = nprof_is_neuronprof_fd(fd);
		close(fd);
		if (ret == 1)
			snprintf(nodes[count++], NPROF_PATH_MAX, "%s", path);
	}
	return count;
}

int nprof_get_info(int fd, struct drm_neuronprof_device_info *info)
{
	struct drm_neuronprof_get_info gi;

	memset(info, 0, sizeof(*info));
	memset(&gi, 0, sizeof(gi));
	gi.query = NEURONPROF_INFO_DEVICE;
	gi.size = sizeof(*info);
	gi.data = (uintptr_t)info;
	if (ioctl(fd, DRM_IOCTL_NEURONPROF_GET_INFO, &gi))
		return -errno;
	return 0;
}

int nprof_dev_open(const char *node, struct nprof_dev *dev)
{
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->fd = open(node, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0)
		return -errno;
	snprintf(dev->node, sizeof(dev->node), "%s", node);
	ret = nprof_is_neuronprof_fd(dev->fd);
	if (ret == 0)
		ret = -ENODEV;
	if (ret == 1)
		ret = nprof_get_info(dev->fd, &dev->info);
	if (ret) {
		close(dev->fd);
		dev->fd = -1;
	}
	return ret;
}

/* Open the first neuronprof render node; -ENODEV when there is none. */
int nprof_dev_open_any(struct nprof_dev *dev)
{
	char nodes[NPROF_NODE_MAX][NPROF_PATH_MAX];
	int n;

	dev->fd = -1;
	n = nprof_list_nodes(nodes, NPROF_NODE_MAX);
	if (n < 0)
		return n;
	if (n == 0)
		return -ENODEV;
	return nprof_dev_open(nodes[0], dev);
}

void nprof_dev_close(struct nprof_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

bool nprof_has_core_type(const struct drm_neuronprof_device_info *info,
			 __u32 kind, __u32 type)
{
	__u32 mask = kind == NEURONPROF_TARGET_CORE ?
			info->core_queue_types : info->topsp_queue_types;

	return type < 32 && (mask & (1u << type));
}

bool nprof_per_engine(const struct drm_neuronprof_device_info *info,
		      __u32 type)
{
	return type < 32 && (info->per_engine_queue_types & (1u << type));
}

int nprof_write_file(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t ret;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write(fd, val, len);
	if (ret < 0)
		ret = -errno;
	else if ((size_t)ret != len)
		ret = -EIO;
	else
		ret = 0;
	close(fd);
	return (int)ret;
}

bool nprof_sim_loaded(void)
{
	struct stat st;

	return !stat(NPROF_SIM_DRIVER_DIR "/new_device", &st);
}

int nprof_sim_del_device(unsigned int id)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u\n", id);
	return nprof_write_file(NPROF_SIM_DRIVER_DIR "/del_device", buf);
}

/*
 * Create simulated device @id and open its render node. The node is the
 * neuronprof node that did not exist before the write: devtmpfs creates it
 * before new_device's write returns.
 */
int nprof_sim_new_device(unsigned int id, const char *arch,
			 struct nprof_dev *dev)
{
	char before[NPROF_NODE_MAX][NPROF_PATH_MAX];
	char after[NPROF_NODE_MAX][NPROF_PATH_MAX];
	int nbefore, nafter, i, j, found = -1;
	char buf[64];
	int ret;

	dev->fd = -1;
	/* A test killed by its timeout leaves its device behind. */
	nprof_sim_del_device(id);

	nbefore = nprof_list_nodes(before, NPROF_NODE_MAX);
	if (nbefore < 0)
		return nbefore;
	if (arch)
		snprintf(buf, sizeof(buf), "%u %s\n", id, arch);
	else
		snprintf(buf, sizeof(buf), "%u\n", id);
	ret = nprof_write_file(NPROF_SIM_DRIVER_DIR "/new_device", buf);
	if (ret)
		return ret;
	nafter = nprof_list_nodes(after, NPROF_NODE_MAX);
	if (nafter < 0)
		return nafter;
	for (i = 0; i < nafter; i++) {
		for (j = 0; j < nbefore; j++)
			if (!strcmp(after[i], before[j]))
				break;
		if (j == nbefore) {
			if (found >= 0)
				return -EEXIST;	/* ambiguous */
			found = i;
		}
	}
	if (found < 0)
		return -ENOENT;
	return nprof_dev_open(after[found], dev);
}

int nprof_sim_knob_write(unsigned int id, const char *knob, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), NPROF_SIM_DEBUGFS_DIR "/%u/%s", id, knob);
	return nprof_write_file(path, val);
}

int nprof_sim_knob_read(unsigned int id, const char *knob, char *buf,
			size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), NPROF_SIM_DEBUGFS_DIR "/%u/%s", id, knob);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n < 0 ? (int)n : 0;
}

int nprof_subscribe(int devfd, struct drm_neuronprof_nq_subscribe *sub)
{
	if (ioctl(devfd, DRM_IOCTL_NEURONPROF_NQ_SUBSCRIBE, sub))
		return -errno;
	return sub->fd;
}

int nprof_subscribe_q(int devfd, const struct selftest_queue *q,
		      __u64 ring_size, __u32 watermark,
		      struct drm_neuronprof_nq_subscribe *sub)
{
	memset(sub, 0, sizeof(*sub));
	sub->target_kind = q->kind;
	sub->target_index = q->index;
	sub->queue_type = q->type;
	sub->engine = q->engine;
	sub->ring_size = ring_size;
	sub->watermark = watermark;
	sub->fd = -1;
	return nprof_subscribe(devfd, sub);
}

int nprof_holders(int devfd, const struct selftest_queue *q,
		  struct drm_neuronprof_nq_holders *h)
{
	memset(h, 0, sizeof(*h));
	h->target_kind = q->kind;
	h->target_index = q->index;
	h->queue_type = q->type;
	h->engine = q->engine;
	if (ioctl(devfd, DRM_IOCTL_NEURONPROF_NQ_HOLDERS, h))
		return -errno;
	return 0;
}

int nprof_fill_queue(int devfd, const struct selftest_queue *q, __u64 ring_size, int *fds)
{
	struct drm_neuronprof_nq_subscribe sub;
	int n = 0, fd;

	while (n < NEURONPROF_MAX_SUBSCRIBERS) {
		fd = nprof_subscribe_q(devfd, q, ring_size, 0, &sub);
		if (fd == -EBUSY)
			break;
		if (fd < 0) {
			while (n)
				close(fds[--n]);
			return fd;
		}
		fds[n++] = fd;
	}
	return n;
}

int nprof_drain(int fd, __u32 flags, __u64 release_pos,
		struct neuronprof_nq_drain *out)
{
	struct neuronprof_nq_drain d;

	memset(&d, 0, sizeof(d));
	d.flags = flags;
	d.release_pos = release_pos;
	if (ioctl(fd, NEURONPROF_IOCTL_NQ_DRAIN, &d))
		return -errno;
	if (out)
		*out = d;
	return 0;
}

int nprof_exec(int devfd, struct drm_neuronprof_sim_exec *ex)
{
	if (ioctl(devfd, DRM_IOCTL_NEURONPROF_SIM_EXEC, ex))
		return -errno;
	return 0;
}

void nprof_exec_init(struct drm_neuronprof_sim_exec *ex, __u32 core,
		     __u32 model_id, __u32 iterations,
		     __u32 instructions, __u32 dma, __u32 engines)
{
	__u32 e;

	memset(ex, 0, sizeof(*ex));
	ex->core = core;
	ex->model_id = model_id;
	ex->iterations = iterations;
	for (e = 0; e < engines && e < NEURONPROF_MAX_ENGINES; e++)
		ex->instructions[e] = instructions;
	ex->dma_transfers = dma;
}

int selftest_ring_map(struct selftest_ring *r)
{
	const struct drm_neuronprof_nq_subscribe *s = &r->sub;
	void *p;
	int ret;

	p = mmap(NULL, s->header_size, PROT_READ, MAP_SHARED, r->fd,
		 (off_t)s->header_offset);
	if (p == MAP_FAILED)
		return -errno;
	r->hdr = p;
	p = mmap(NULL, s->consumer_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 r->fd, (off_t)s->consumer_offset);
	if (p == MAP_FAILED)
		goto err;
	r->cons = p;
	p = mmap(NULL, s->data_size, PROT_READ, MAP_SHARED, r->fd,
		 (off_t)s->data_offset);
	if (p == MAP_FAILED)
		goto err;
	r->data = p;
	r->entry_size = r->hdr->entry_size;
	return 0;
err:
	ret = -errno;
	selftest_ring_unmap(r);
	return ret;
}

void selftest_ring_unmap(struct selftest_ring *r)
{
	if (r->hdr)
		munmap((void *)r->hdr, r->sub.header_size);
	if (r->cons)
		munmap(r->cons, r->sub.consumer_size);
	if (r->data)
		munmap((void *)r->data, r->sub.data_size);
	r->hdr = NULL;
	r->cons = NULL;
	r->data = NULL;
}

/* Subscribe @q and map its ring; on failure nothing is left open. */
int selftest_ring_open(int devfd, const struct selftest_queue *q, __u64 ring_size,
		       __u32 watermark, struct selftest_ring *r)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->q = *q;
	r->fd = nprof_subscribe_q(devfd, q, ring_size, watermark, &r->sub);
	if (r->fd < 0)
		return r->fd;
	ret = selftest_ring_map(r);
	if (ret) {
		close(r->fd);
		r->fd = -1;
	}
	return ret;
}

void selftest_ring_close(struct selftest_ring *r)
{
	selftest_ring_unmap(r);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* (C) in the uapi header: pairs with the kernel's release store (B). */
__u64 selftest_ring_producer(const struct selftest_ring *r)
{
	return __atomic_load_n(&r->hdr->producer_pos, __ATOMIC_ACQUIRE);
}

__u64 selftest_ring_consumer_pos(const struct selftest_ring *r)
{
	return __atomic_load_n(&r->cons->consumer_pos, __ATOMIC_RELAXED);
}

/* (D) in the uapi header: pairs with the kernel's acquire load (A). */
void selftest_ring_set_consumer(struct selftest_ring *r, __u64 pos)
{
	__atomic_store_n(&r->cons->consumer_pos, pos, __ATOMIC_RELEASE);
}

#define RING_ERR(r, ...) do {						\
	if (!(r)->err[0])						\
		snprintf((r)->err, sizeof((r)->err), __VA_ARGS__);	\
} while (0)

/* Check one entry against the queue and @exp and account it. */
int selftest_ring_check_entry(struct selftest_ring *r,
			      const struct neuronprof_notification *n,
			      const struct nprof_expect *exp)
{
	const char *qn = nprof_qt_name(r->q.type);

	if (n->queue_type != r->q.type || n->engine != r->q.engine) {
		RING_ERR(r, "%s/%u[%u] engine %u: entry seq %llu"
			 " has queue_type %u engine %u", qn, r->q.index,
			 r->q.engine, r->q.engine, n->seq, n->queue_type,
			 n->engine);
		return -1;
	}
	if (n->seq < r->next_seq) {
		RING_ERR(r, "%s/%u[%u]: seq %llu after seq %llu"
			 " (must increase)", qn, r->q.index, r->q.engine,
			 n->seq, r->next_seq - 1);
		return -1;
	}
	if (exp && exp->check_model && n->model_id != exp->model_id) {
		RING_ERR(r, "%s/%u[%u]: seq %llu has model_id %u, not %u",
			 qn, r->q.index, r->q.engine, n->seq, n->model_id,
			 exp->model_id);
		return -1;
	}
	if (exp && exp->iterations && n->iteration >= exp->iterations) {
		RING_ERR(r, "%s/%u[%u]: seq %llu has iteration %u of %u",
			 qn, r->q.index, r->q.engine, n->seq, n->iteration,
			 exp->iterations);
		return -1;
	}
	if (exp && exp->ts_max &&
	    (n->timestamp_ns < exp->ts_min || n->timestamp_ns > exp->ts_max)) {
		RING_ERR(r, "%s/%u[%u]: seq %llu timestamp %llu"
			 " outside [%llu, %llu]", qn, r->q.index,
			 r->q.engine, n->seq, n->timestamp_ns, exp->ts_min,
			 exp->ts_max);
		return -1;
	}
	if (exp && exp->ts_increasing && r->delivered &&
	    n->timestamp_ns <= r->last_ts) {
		RING_ERR(r, "%s/%u[%u]: seq %llu timestamp %llu not after %llu",
			 qn, r->q.index, r->q.engine, n->seq, n->timestamp_ns,
			 r->last_ts);
		return -1;
	}
	r->gaps += n->seq - r->next_seq;
	r->next_seq = n->seq + 1;
	r->delivered++;
	r->last_ts = n->timestamp_ns;
	if (n->code < 4)
		r->code_hist[n->code]++;
	return 0;
}

/*
 * Read every entry between the consumer and producer positions, check each,
 * and release the space. Returns the number of entries read, or -1 with
 * r->err describing the first inconsistency.
 */
long selftest_ring_consume(struct selftest_ring *r, const struct nprof_expect *exp)
{
	__u64 ring_size = r->sub.data_size;
	__u64 prod = selftest_ring_producer(r);
	__u64 cons = selftest_ring_consumer_pos(r);
	long count = 0;

	if (prod < cons || prod - cons > ring_size) {
		RING_ERR(r, "%s/%u[%u]: producer_pos %llu"
			 " consumer_pos %llu ring_size %llu",
			 nprof_qt_name(r->q.type), r->q.index, r->q.engine,
			 prod, cons, ring_size);
		return -1;
	}
	if (!r->entry_size || (prod - cons) % r->entry_size) {
		RING_ERR(r, "%s/%u[%u]: producer_pos %llu"
			 " not a whole number of %llu-byte entries",
			 nprof_qt_name(r->q.type), r->q.index, r->q.engine,
			 prod, r->entry_size);
		return -1;
	}
	while (cons < prod) {
		struct neuronprof_notification n;
		size_t len = r->entry_size < sizeof(n) ? r->entry_size : sizeof(n);

		memset(&n, 0, sizeof(n));
		/* One copy: the entry is read once, like the kernel would. */
		memcpy(&n, r->data + (cons & (ring_size - 1)), len);
		if (selftest_ring_check_entry(r, &n, exp))
			return -1;
		cons += r->entry_size;
		count++;
	}
	selftest_ring_set_consumer(r, cons);
	return count;
}

/*
 * Consume, optionally flush in-flight notifications with NQ_DRAIN, consume
 * again, and cross-check NQ_DRAIN's report against the header page.
 */
int selftest_ring_settle(struct selftest_ring *r, const struct nprof_expect *exp,
			 bool flush)
{
	struct neuronprof_nq_drain d;
	int ret;

	if (selftest_ring_consume(r, exp) < 0)
		return -1;
	if (flush) {
		ret = nprof_drain(r->fd, NEURONPROF_DRAIN_FLUSH, 0, &d);
		if (ret) {
			RING_ERR(r, "%s/%u[%u]: NQ_DRAIN(FLUSH): %s",
				 nprof_qt_name(r->q.type), r->q.index,
				 r->q.engine, strerror(-ret));
			return -1;
		}
		if (selftest_ring_consume(r, exp) < 0)
			return -1;
	}
	ret = nprof_drain(r->fd, 0, 0, &d);
	if (ret) {
		RING_ERR(r, "%s/%u[%u]: NQ_DRAIN: %s", nprof_qt_name(r->q.type),
			 r->q.index, r->q.engine, strerror(-ret));
		return -1;
	}
	if (d.producer_pos != selftest_ring_producer(r) ||
	    d.consumer_pos != selftest_ring_consumer_pos(r) ||
	    d.lost != r->hdr->lost) {
		RING_ERR(r, "%s/%u[%u]: NQ_DRAIN says producer %llu"
			 " consumer %llu lost %llu"
			 ", the mapping says %llu %llu %llu",
			 nprof_qt_name(r->q.type), r->q.index, r->q.engine,
			 (__u64)d.producer_pos, (__u64)d.consumer_pos,
			 (__u64)d.lost, selftest_ring_producer(r),
			 selftest_ring_consumer_pos(r), (__u64)r->hdr->lost);
		return -1;
	}
	return 0;
}

static int add_queues(const struct drm_neuronprof_device_info *info,
		      __u32 kind, __u32 index, struct selftest_queue *out,
		      int n, int max)
{
	__u32 type, e, engines;

	for (type = 0; type < NEURONPROF_QT_COUNT; type++) {
		if (!nprof_has_core_type(info, kind, type))
			continue;
		engines = nprof_per_engine(info, type) ? info->engines_per_core : 1;
		for (e = 0; e < engines; e++) {
			if (n >= max)
				return -ENOSPC;
			out[n].kind = kind;
			out[n].index = index;
			out[n].type = type;
			out[n].engine = e;
			n++;
		}
	}
	return n;
}

/*
 * Every queue of NeuronCore @core and of its TopSPs (TopSP t serves core
 * t / (num_topsps / num_cores)). Returns the count or -ENOSPC.
 */
int nprof_core_queues(const struct drm_neuronprof_device_info *info,
		      __u32 core, struct selftest_queue *out, int max)
{
	__u32 per = info->num_cores ? info->num_topsps / info->num_cores : 0;
	__u32 t;
	int n;

	n = add_queues(info, NEURONPROF_TARGET_CORE, core, out, 0, max);
	for (t = core * per; n >= 0 && t < (core + 1) * per; t++)
		n = add_queues(info, NEURONPROF_TARGET_TOPSP, t, out, n, max);
	return n;
}
