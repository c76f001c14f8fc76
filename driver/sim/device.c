// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: simulated device
 *
 * One simulated Neuron device: the platform driver whose probe announces the
 * device to the neuronprof core and whose remove unplugs it, and the provider
 * callbacks (queue start/stop, flush, program execution) with their fault
 * injection.
 *
 * Removal while userspace holds subscriptions or mappings is the core's job
 * (DEAD rings, ENODEV); ours is that nothing of the simulator still produces
 * into the device: remove sets @dying, which makes executions stop with
 * -ENODEV within NPROF_SIM_POLL_INTERVAL notifications (and wakes those
 * sleeping for their pace) and stalled flushes return, then takes every
 * core's execution lock before unregistering.
 */

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/export.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "sim.h"

#define NPROF_SIM_CORE_QUEUE_TYPES					\
	(BIT(NEURONPROF_QT_TRACE) | BIT(NEURONPROF_QT_EVENT) |		\
	 BIT(NEURONPROF_QT_ERROR) | BIT(NEURONPROF_QT_INFER_STATUS) |	\
	 BIT(NEURONPROF_QT_DMA) | BIT(NEURONPROF_QT_THROTTLE))
#define NPROF_SIM_TOPSP_QUEUE_TYPES					\
	(BIT(NEURONPROF_QT_TOPSP_TRACE) | BIT(NEURONPROF_QT_TOPSP_EVENT) | \
	 BIT(NEURONPROF_QT_TOPSP_ERROR))
#define NPROF_SIM_PER_ENGINE_QUEUE_TYPES				\
	(BIT(NEURONPROF_QT_TRACE) | BIT(NEURONPROF_QT_EVENT) |		\
	 BIT(NEURONPROF_QT_DMA))
#define NPROF_SIM_MAX_RING_SIZE		SZ_64M

static const struct nprof_sim_arch nprof_sim_archs[] = {
	{ "trn1", NEURONPROF_ARCH_TRN1, 2, 6, 4 },
	{ "inf2", NEURONPROF_ARCH_INF2, 2, 6, 4 },
	{ "trn2", NEURONPROF_ARCH_TRN2, 8, 16, 5 },
};

/**
 * nprof_sim_arch_by_name() - look an architecture up by name.
 * @name: "trn1", "inf2" or "trn2".
 *
 * Return: the architecture, or NULL if @name is none of them.
 */
const struct nprof_sim_arch *nprof_sim_arch_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nprof_sim_archs); i++)
		if (!strcmp(nprof_sim_archs[i].name, name))
			return &nprof_sim_archs[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_arch_by_name);

/**
 * nprof_sim_arch_by_id() - look an architecture up by enum neuronprof_arch.
 * @arch: the architecture.
 *
 * Return: the architecture, or NULL if the simulator has no such one.
 */
const struct nprof_sim_arch *nprof_sim_arch_by_id(u32 arch)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nprof_sim_archs); i++)
		if (nprof_sim_archs[i].arch == arch)
			return &nprof_sim_archs[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_arch_by_id);

/**
 * nprof_sim_fill_desc() - the device description of an architecture.
 * @a: the architecture.
 * @desc: out.
 * @names: out, NPROF_SIM_MAX_CODE_NAMES entries: the name table @desc
 *	points to (nprof_sim_code_names()).
 */
void nprof_sim_fill_desc(const struct nprof_sim_arch *a,
			 struct nprof_device_desc *desc,
			 struct neuronprof_code_name *names)
{
	*desc = (struct nprof_device_desc) {
		.provider = "sim",
		.arch = a->arch,
		.num_cores = a->num_cores,
		.num_topsps = a->num_topsps,
		.engines_per_core = a->engines_per_core,
		.core_queue_types = NPROF_SIM_CORE_QUEUE_TYPES,
		.topsp_queue_types = NPROF_SIM_TOPSP_QUEUE_TYPES,
		.per_engine_queue_types = NPROF_SIM_PER_ENGINE_QUEUE_TYPES,
		.min_ring_size = PAGE_SIZE,
		.max_ring_size = NPROF_SIM_MAX_RING_SIZE,
		.caps = NEURONPROF_CAP_SIM_EXEC | NEURONPROF_CAP_FLUSH,
		.code_names = names,
		.num_code_names = nprof_sim_code_names(a->engines_per_core, names),
	};
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_fill_desc);

/*
 * Lay the queues of the device out in one bitmap: all NeuronCores, then all
 * TopSPs; within a target the queue types in order, per-engine ones taking
 * engines_per_core slots.
 */
static void nprof_sim_layout_queues(struct nprof_sim_device *sdev)
{
	const u32 types[2] = { sdev->desc.core_queue_types,
			       sdev->desc.topsp_queue_types };
	const u32 targets[2] = { sdev->desc.num_cores, sdev->desc.num_topsps };
	u32 kind, type, base = 0;

	for (kind = 0; kind < 2; kind++) {
		u32 slot = 0;

		for (type = 0; type < NEURONPROF_QT_COUNT; type++) {
			sdev->type_offset[kind][type] = slot;
			if (!(types[kind] & BIT(type)))
				continue;
			slot += sdev->desc.per_engine_queue_types & BIT(type) ?
				sdev->desc.engines_per_core : 1;
		}
		sdev->queue_base[kind] = base;
		sdev->queue_stride[kind] = slot;
		base += slot * targets[kind];
	}
	sdev->num_queues = base;
}

/*
 * Bit of a queue of the device in the active bitmap. The ops get queues the
 * core validated (nprof_subscribe_validate() at SUBSCRIBE, with
 * nprof_queue_valid()), so they compute the bit without checking again.
 */
static unsigned int nprof_sim_queue_slot(const struct nprof_sim_device *sdev,
					 const struct nprof_queue_id *q)
{
	return sdev->queue_base[q->kind] + q->index * sdev->queue_stride[q->kind] +
	       sdev->type_offset[q->kind][q->type] + q->engine;
}

/**
 * nprof_sim_queue_index() - bit of a queue in the active bitmap.
 * @sdev: the device.
 * @q: the queue, of the simulator's own making (a producer's address).
 *
 * Whether the device has @q is the core's check, nprof_queue_valid(): the
 * simulator keeps no copy of it.
 *
 * Return: the index, or -EINVAL if the device has no such queue.
 */
int nprof_sim_queue_index(const struct nprof_sim_device *sdev,
			  const struct nprof_queue_id *q)
{
	/* type_offset[] has a row per uapi version 1 type: the sim has no other. */
	BUILD_BUG_ON((NPROF_SIM_CORE_QUEUE_TYPES | NPROF_SIM_TOPSP_QUEUE_TYPES) &
		     ~GENMASK(NEURONPROF_QT_COUNT - 1, 0));
	if (!nprof_queue_valid(&sdev->desc, q))
		return -EINVAL;
	return nprof_sim_queue_slot(sdev, q);
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_queue_index);

static int nprof_sim_queue_start(struct nprof_drmdev *ndev,
				 const struct nprof_queue_id *q)
{
	struct nprof_sim_device *sdev = nprof_device_priv(ndev);
	unsigned int idx = nprof_sim_queue_slot(sdev, q);
	int err;

	err = atomic_xchg(nprof_sim_knob(sdev, NPROF_SIM_FAIL_NEXT_SUBSCRIBE), 0);
	if (err)
		return -err;
	/* The core allows one subscriber per queue; a second start is its bug. */
	if (test_and_set_bit(idx, sdev->active)) {
		dev_warn_once(sdev->dev, "queue %u/%u/%u/%u started twice\n",
			      q->kind, q->index, q->type, q->engine);
		return -EBUSY;
	}
	return 0;
}

static void nprof_sim_queue_stop(struct nprof_drmdev *ndev,
				 const struct nprof_queue_id *q)
{
	struct nprof_sim_device *sdev = nprof_device_priv(ndev);
	unsigned int idx = nprof_sim_queue_slot(sdev, q);

	if (!test_and_clear_bit(idx, sdev->active))
		dev_warn_once(sdev->dev, "queue %u/%u/%u/%u stopped but not started\n",
			      q->kind, q->index, q->type, q->engine);
}

static int nprof_sim_flush(struct nprof_drmdev *ndev,
			   const struct nprof_queue_id *q)
{
	struct nprof_sim_device *sdev = nprof_device_priv(ndev);
	unsigned int stall_ms;
	long left;
	int err;

	err = atomic_read(nprof_sim_knob(sdev, NPROF_SIM_FLUSH_FAIL));
	if (err)
		return -err;
	stall_ms = atomic_read(nprof_sim_knob(sdev, NPROF_SIM_FLUSH_STALL_MS));
	if (stall_ms) {
		/* Removal must not wait for a stalled flush: it wakes us. */
		left = wait_event_interruptible_timeout(sdev->dying_wq,
							READ_ONCE(sdev->dying),
							msecs_to_jiffies(stall_ms));
		if (left < 0)
			return left;
		if (READ_ONCE(sdev->dying))
			return -ENODEV;
	}
	/*
	 * Executions push every notification synchronously through
	 * nprof_notify(), so nothing is ever in flight: the ring already holds
	 * everything the queue produced.
	 */
	return 0;
}

/**
 * struct nprof_sim_exec_ctx - an execution on a device.
 * @run: the generator's state.
 * @sdev: the device.
 * @args: the ioctl arguments (produced[] is filled here).
 * @bq: the queue of the entries in @batch.
 * @bn: entries in @batch.
 * @batch: consecutive entries of one queue not yet handed to the core.
 * @span: room in a ring the generator builds TRACE entries in.
 * @spanned: @span is held (between reserve and commit).
 * @scratch: where TRACE entries of queues that are not started are built
 *	and dropped, under NPROF_SIM_BUILD_UNSTARTED; NULL otherwise.
 * @host_start: CLOCK_MONOTONIC when the execution started.
 * @scale: the time_scale parameter when it started (0: not paced).
 * @work: runs the program on the core (nprof_sim_exec_work()).
 * @done: completed when @work has ended, with @ret.
 * @cancel: set when the caller was killed: the execution stops.
 * @ret: what the execution ended with.
 */
struct nprof_sim_exec_ctx {
	struct nprof_sim_run run;
	struct nprof_sim_device *sdev;
	struct drm_neuronprof_sim_exec *args;
	struct nprof_queue_id bq;
	u32 bn;
	struct neuronprof_notification *batch;
	struct nprof_notify_span span;
	bool spanned;
	struct neuronprof_notification *scratch;
	u64 host_start;
	u32 scale;
	struct work_struct work;
	struct completion done;
	bool cancel;
	int ret;
};

/* Pacing sleeps only when the device is this far ahead of the host. */
#define NPROF_SIM_PACE_AHEAD_NS		(50 * NSEC_PER_USEC)
/* How late a pacing sleep may end, so wakeups can be merged. */
#define NPROF_SIM_PACE_SLACK_NS		(20 * NSEC_PER_USEC)

/*
 * Pacing: the host clock follows the device's. The entries up to device time
 * run->last_ts are produced; sleep until the host clock reaches the time
 * they took on the device (scaled by time_scale), if that is more than
 * @ahead away. Removal and a cancel end the sleep; the caller checks for
 * them. The sleep is TASK_IDLE: the worker has no signals to take, and a long
 * pace is neither load nor a hung task. How far the host clock is past the
 * due time (a host too slow or too loaded to keep the pace) raises the
 * device's pace_behind_max.
 */
static void nprof_sim_exec_pace(struct nprof_sim_exec_ctx *ctx, u64 ahead)
{
	struct nprof_sim_run *run = &ctx->run;
	atomic64_t *behind_max = &ctx->sdev->pace_behind_max;
	DEFINE_WAIT(wait);
	u64 target, now;
	s64 behind, max;
	ktime_t kt;

	if (!ctx->scale || run->last_ts <= run->start_ns)
		return;
	target = ctx->host_start + div_u64((run->last_ts - run->start_ns) * ctx->scale, 100);
	now = ktime_get_ns();
	if (target <= now + ahead) {
		behind = now - target;
		max = atomic64_read(behind_max);
		while (behind > max && !atomic64_try_cmpxchg(behind_max, &max, behind))
			;
		return;
	}
	kt = ns_to_ktime(target);
	prepare_to_wait(&ctx->sdev->dying_wq, &wait, TASK_IDLE);
	if (!READ_ONCE(ctx->sdev->dying) && !READ_ONCE(ctx->cancel))
		schedule_hrtimeout_range(&kt, NPROF_SIM_PACE_SLACK_NS, HRTIMER_MODE_ABS);
	finish_wait(&ctx->sdev->dying_wq, &wait);
}

/* Hand the staged entries to the core: one lookup, lock and wakeup. */
static void nprof_sim_exec_flush_batch(struct nprof_sim_exec_ctx *ctx)
{
	struct nprof_sim_device *sdev = ctx->sdev;
	bool lost;

	if (!ctx->bn)
		return;
	lost = atomic_read(nprof_sim_knob(sdev, NPROF_SIM_FORCE_OVERFLOW));
	if (nprof_notify_batch(sdev->ndev, &ctx->bq, ctx->batch, ctx->bn, lost, NULL) !=
	    NPROF_NOTIFY_UNSUBSCRIBED)
		ctx->args->produced[ctx->bq.type] += ctx->bn;
	ctx->bn = 0;
}

static int nprof_sim_exec_emit(struct nprof_sim_run *run,
			       const struct nprof_queue_id *q,
			       struct neuronprof_notification *n)
{
	struct nprof_sim_exec_ctx *ctx = container_of(run, struct nprof_sim_exec_ctx, run);
	struct nprof_sim_device *sdev = ctx->sdev;
	int idx = nprof_sim_queue_index(sdev, q);

	/* A queue that was not started produces nothing, like the hardware. */
	if (idx < 0 || !test_bit(idx, sdev->active))
		return 0;
	if (ctx->bn && (ctx->bn == NPROF_SIM_BATCH || memcmp(&ctx->bq, q, sizeof(*q))))
		nprof_sim_exec_flush_batch(ctx);
	if (!ctx->bn)
		ctx->bq = *q;
	ctx->batch[ctx->bn++] = *n;
	return 0;
}

/* Room for a run of TRACE entries of one queue, in its ring. */
static struct neuronprof_notification *
nprof_sim_exec_reserve(struct nprof_sim_run *run, const struct nprof_queue_id *q,
		       u32 want, u32 *got, u64 *seq)
{
	struct nprof_sim_exec_ctx *ctx = container_of(run, struct nprof_sim_exec_ctx, run);
	struct nprof_sim_device *sdev = ctx->sdev;
	int idx = nprof_sim_queue_index(sdev, q);

	ctx->spanned = false;
	*got = 0;
	if (idx < 0 || !test_bit(idx, sdev->active)) {
		if (!ctx->scratch)
			return NULL;
		/* Built and dropped: want is at most NPROF_SIM_BATCH. */
		*got = want;
		*seq = 0;
		atomic64_add(want, &sdev->unstarted_built);
		return ctx->scratch;
	}
	/* Staged entries of other queues may go later; of this one not. */
	nprof_sim_exec_flush_batch(ctx);
	if (nprof_notify_begin(sdev->ndev, q, want, &ctx->span))
		return NULL;
	ctx->spanned = true;
	if (atomic_read(nprof_sim_knob(sdev, NPROF_SIM_FORCE_OVERFLOW)))
		ctx->span.count = 0;
	*got = ctx->span.count;
	*seq = ctx->span.seq;
	return ctx->span.entries;
}

static int nprof_sim_exec_commit(struct nprof_sim_run *run, const struct nprof_queue_id *q,
				 u32 written, u32 produced)
{
	struct nprof_sim_exec_ctx *ctx = container_of(run, struct nprof_sim_exec_ctx, run);

	if (!ctx->spanned)
		return 0;
	nprof_notify_end(&ctx->span, written, produced);
	ctx->spanned = false;
	ctx->args->produced[q->type] += produced;
	return 0;
}

static int nprof_sim_exec_poll(struct nprof_sim_run *run, bool boundary)
{
	struct nprof_sim_exec_ctx *ctx = container_of(run, struct nprof_sim_exec_ctx, run);

	/* What was produced so far is in the rings before anyone looks. */
	nprof_sim_exec_flush_batch(ctx);
	nprof_sim_exec_pace(ctx, NPROF_SIM_PACE_AHEAD_NS);
	if (READ_ONCE(ctx->sdev->dying))
		return -ENODEV;
	if (READ_ONCE(ctx->cancel))
		return -EINTR;
	if (boundary && ctx->args->timeout_ns && ktime_get_ns() >= ctx->args->timeout_ns)
		return -ETIMEDOUT;
	return 0;
}

/*
 * The core running the program, as a device runs it: in a worker of its own,
 * apart from the thread that asked for it, paced by the device-time model.
 */
static void nprof_sim_exec_work(struct work_struct *work)
{
	struct nprof_sim_exec_ctx *ctx = container_of(work, struct nprof_sim_exec_ctx, work);
	int ret = nprof_sim_program_run(&ctx->run);

	nprof_sim_exec_flush_batch(ctx);
	/* A device's execution ends when its last entry is due. */
	if (!ret) {
		nprof_sim_exec_pace(ctx, 0);
		if (READ_ONCE(ctx->sdev->dying))
			ret = -ENODEV;
		else if (READ_ONCE(ctx->cancel))
			ret = -EINTR;
	}
	ctx->ret = ret;
	complete(&ctx->done);
}

/* The program of validated SIM_EXEC arguments (see nprof_hw_ops.sim_exec). */
static void nprof_sim_exec_program(const struct drm_neuronprof_sim_exec *args,
				   struct nprof_sim_gen_program *prog)
{
	*prog = (struct nprof_sim_gen_program) {
		.seed = READ_ONCE(nprof_sim_seed),
		.model_id = args->model_id,
		.iterations = args->iterations,
		.dma_transfers = args->dma_transfers,
		.throttle = args->flags & NEURONPROF_SIM_EXEC_THROTTLE,
		.error = args->flags & NEURONPROF_SIM_EXEC_ERROR,
	};
	memcpy(prog->instructions, args->instructions, sizeof(prog->instructions));
}

/**
 * nprof_sim_exec() - the sim_exec callback: run a program on a core.
 * @ndev: the device.
 * @args: the program; status and produced are filled.
 *
 * Executions on one core are serialised; their notifications go into the
 * started queues of the core and of its TopSPs. @args were validated by the
 * core (struct nprof_hw_ops); waking the pollers afterwards is the core's
 * job too. The program runs asynchronously, in a worker of the unbound
 * workqueue, while the caller waits for it; it is paced by the device-time
 * model: with the time_scale parameter at 100 it takes the host as long as
 * the device (its entries are produced as their device time passes); 0
 * produces at memory speed. A caller killed meanwhile cancels it.
 *
 * Return: 0; -EINTR when
 * interrupted while waiting for the core or killed; -ETIMEDOUT when
 * args->timeout_ns passed before an iteration; -ENODEV when the device is
 * being removed. produced counts what was produced until then.
 */
int nprof_sim_exec(struct nprof_drmdev *ndev, struct drm_neuronprof_sim_exec *args)
{
	struct nprof_sim_device *sdev = nprof_device_priv(ndev);
	struct nprof_sim_gen_program prog;
	struct nprof_sim_core *core;
	struct nprof_sim_exec_ctx ctx = {
		.sdev = sdev,
		.args = args,
		.run = {
			.prog = &prog,
			.engines = sdev->desc.engines_per_core,
			.topsps_per_core = sdev->desc.num_topsps / sdev->desc.num_cores,
			.emit = nprof_sim_exec_emit,
			.reserve = nprof_sim_exec_reserve,
			.commit = nprof_sim_exec_commit,
			.poll = nprof_sim_exec_poll,
		},
	};
	int ret;

	nprof_sim_exec_program(args, &prog);
	ctx.batch = kmalloc_array(NPROF_SIM_BATCH, sizeof(*ctx.batch), GFP_KERNEL);
	if (!ctx.batch)
		return -ENOMEM;
	ctx.run.core = args->core;
	core = &sdev->cores[args->core];

	if (mutex_lock_interruptible(&core->exec_lock)) {
		kfree(ctx.batch);
		return -EINTR;
	}
	if (READ_ONCE(sdev->dying)) {
		mutex_unlock(&core->exec_lock);
		kfree(ctx.batch);
		return -ENODEV;
	}
	if (atomic_xchg(nprof_sim_knob(sdev, NPROF_SIM_EXEC_ERROR), 0))
		prog.error = true;
	if (atomic_read(nprof_sim_knob(sdev, NPROF_SIM_BUILD_UNSTARTED))) {
		ctx.scratch = kmalloc_array(NPROF_SIM_BATCH, sizeof(*ctx.scratch), GFP_KERNEL);
		if (!ctx.scratch) {
			mutex_unlock(&core->exec_lock);
			kfree(ctx.batch);
			return -ENOMEM;
		}
	}
	ctx.run.last_ts = core->last_ts;
	ctx.scale = READ_ONCE(nprof_sim_time_scale);
	ctx.host_start = ktime_get_ns();
	ctx.run.start_ns = ctx.host_start;

	init_completion(&ctx.done);
	INIT_WORK_ONSTACK(&ctx.work, nprof_sim_exec_work);
	queue_work(system_unbound_wq, &ctx.work);
	if (wait_for_completion_killable(&ctx.done)) {
		/* Killed: the core stops within NPROF_SIM_POLL_INTERVAL entries. */
		WRITE_ONCE(ctx.cancel, true);
		wake_up_all(&sdev->dying_wq);
		wait_for_completion(&ctx.done);
	}
	destroy_work_on_stack(&ctx.work);
	kfree(ctx.scratch);
	kfree(ctx.batch);
	ret = ctx.ret;

	core->last_ts = ctx.run.last_ts;
	args->status = ctx.run.status;
	mutex_unlock(&core->exec_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(nprof_sim_exec);

static const struct nprof_hw_ops nprof_sim_ops = {
	.owner = THIS_MODULE,
	.queue_start = nprof_sim_queue_start,
	.queue_stop = nprof_sim_queue_stop,
	.flush = nprof_sim_flush,
	.sim_exec = nprof_sim_exec,
};

/**
 * nprof_sim_probe() - announce a simulated device to the neuronprof core.
 * @pdev: its platform device, with a struct nprof_sim_pdata.
 *
 * Return: 0 or a negative errno, also stored in the platform data.
 */
int nprof_sim_probe(struct platform_device *pdev)
{
	struct nprof_sim_pdata *pdata = dev_get_platdata(&pdev->dev);
	const struct nprof_sim_arch *arch;
	struct nprof_sim_device *sdev;
	struct nprof_drmdev *ndev;
	u32 i;
	int err;

	if (!pdata) {
		dev_err(&pdev->dev, "no platform data: create devices with new_device\n");
		return -EINVAL;
	}
	arch = nprof_sim_arch_by_id(pdata->arch);
	if (!arch || pdev->id < 0) {
		dev_err(&pdev->dev, "bad platform data: arch %u, id %d\n",
			pdata->arch, pdev->id);
		err = -EINVAL;
		goto err_out;
	}

	sdev = devm_kzalloc(&pdev->dev, struct_size(sdev, cores, arch->num_cores),
			    GFP_KERNEL);
	if (!sdev) {
		err = -ENOMEM;
		goto err_out;
	}
	sdev->dev = &pdev->dev;
	sdev->id = pdev->id;
	sdev->arch = arch;
	nprof_sim_fill_desc(arch, &sdev->desc, sdev->code_names);
	nprof_sim_layout_queues(sdev);
	sdev->active = devm_bitmap_zalloc(&pdev->dev, sdev->num_queues, GFP_KERNEL);
	if (!sdev->active) {
		err = -ENOMEM;
		goto err_out;
	}
	init_waitqueue_head(&sdev->dying_wq);
	for (i = 0; i < arch->num_cores; i++)
		mutex_init(&sdev->cores[i].exec_lock);
	platform_set_drvdata(pdev, sdev);

	/*
	 * Everything the ops and the producers use is ready before the
	 * device becomes visible: userspace may subscribe and execute on the
	 * render node from inside nprof_device_publish().
	 */
	ndev = nprof_device_alloc(&pdev->dev, &sdev->desc, &nprof_sim_ops, sdev);
	if (IS_ERR(ndev)) {
		err = PTR_ERR(ndev);
		dev_err(&pdev->dev, "cannot create %s device %u in neuronprof: %d\n",
			arch->name, sdev->id, err);
		goto err_mutex;
	}
	sdev->ndev = ndev;
	nprof_sim_debugfs_init(sdev);
	err = nprof_device_publish(ndev);
	if (err) {
		dev_err(&pdev->dev, "cannot publish %s device %u: %d\n",
			arch->name, sdev->id, err);
		goto err_debugfs;
	}
	pdata->probe_err = 0;
	dev_info(&pdev->dev, "simulated %s device %u: %u cores, %u TopSPs, %u engines\n",
		 arch->name, sdev->id, arch->num_cores, arch->num_topsps,
		 arch->engines_per_core);
	return 0;

err_debugfs:
	nprof_sim_debugfs_fini(sdev);
	nprof_device_free(ndev);
err_mutex:
	for (i = 0; i < arch->num_cores; i++)
		mutex_destroy(&sdev->cores[i].exec_lock);
err_out:
	pdata->probe_err = err;
	return err;
}

/**
 * nprof_sim_remove() - unplug a simulated device.
 * @pdev: its platform device.
 *
 * Return: 0.
 */
int nprof_sim_remove(struct platform_device *pdev)
{
	struct nprof_sim_device *sdev = platform_get_drvdata(pdev);
	u32 i;

	nprof_sim_debugfs_fini(sdev);

	WRITE_ONCE(sdev->dying, true);
	wake_up_all(&sdev->dying_wq);
	/*
	 * An execution holds its core's lock from start to end and sees
	 * @dying within NPROF_SIM_POLL_INTERVAL notifications; once we got
	 * every lock, nothing produces into the device any more.
	 */
	for (i = 0; i < sdev->desc.num_cores; i++) {
		mutex_lock(&sdev->cores[i].exec_lock);
		mutex_unlock(&sdev->cores[i].exec_lock);
	}

	nprof_device_unregister(sdev->ndev);
	for (i = 0; i < sdev->desc.num_cores; i++)
		mutex_destroy(&sdev->cores[i].exec_lock);
	return 0;
}
