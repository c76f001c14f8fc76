// SPDX-License-Identifier: MIT
/*
 * The ioctls behind a device handle: SIM_EXEC (nprof_device_sim_exec()) and
 * the ioctl-backed queue operations (nprof_drm_ops: subscribe and its
 * mappings, drain, unsubscribe, holders). Every ioctl goes through
 * drmIoctl(), which restarts on EINTR and EAGAIN: the uapi promises that
 * each of them is restartable.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "device/device_internal.h"
#include "util/internal.h"

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
