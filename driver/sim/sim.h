/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuronprof_sim internals shared by the files of the module and by its KUnit
 * suites: architectures, the program generator (program.c), the simulated
 * device (device.c), the device list behind new_device/del_device (main.c)
 * and the fault-injection knobs (debugfs.c).
 */
#ifndef _NPROF_SIM_H_
#define _NPROF_SIM_H_

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <drm/neuronprof_drm.h>

#include "neuronprof_provider.h"

struct dentry;

#define NPROF_SIM_DRV_NAME		"neuronprof_sim"

/*
 * args->status and the code of the ERROR/TOPSP_ERROR entries of an execution
 * that raised an error: NRT_EXEC_COMPLETED_WITH_ERR of the Neuron runtime, so
 * tools that know runtime status codes read it correctly.
 */
#define NPROF_SIM_EXEC_ERROR_STATUS	1004

/* Largest id accepted by new_device: platform device ids are ints. */
#define NPROF_SIM_MAX_ID		INT_MAX

/* Bounds of the debugfs knobs. */
#define NPROF_SIM_MAX_ERRNO		4095
#define NPROF_SIM_MAX_FLUSH_STALL_MS	10000

/* EVENT and TOPSP_EVENT codes. */
#define NPROF_SIM_EVENT_START		1
#define NPROF_SIM_EVENT_END		2

/**
 * struct nprof_sim_arch - topology of one simulated architecture.
 * @name: the name accepted by the arch parameter and new_device.
 * @arch: enum neuronprof_arch.
 * @num_cores: NeuronCores.
 * @num_topsps: TopSPs, a multiple of @num_cores.
 * @engines_per_core: engines of a NeuronCore.
 */
struct nprof_sim_arch {
	const char *name;
	u32 arch;
	u32 num_cores;
	u32 num_topsps;
	u32 engines_per_core;
};

const struct nprof_sim_arch *nprof_sim_arch_by_name(const char *name);
const struct nprof_sim_arch *nprof_sim_arch_by_id(u32 arch);
void nprof_sim_fill_desc(const struct nprof_sim_arch *a,
			 struct nprof_device_desc *desc,
			 struct neuronprof_code_name *names);

/**
 * struct nprof_sim_gen_program - a synthetic program, as SIM_EXEC describes it
 * to the generator (the library's own is struct nprof_sim_program).
 * @model_id: written into every notification.
 * @iterations: 1..NEURONPROF_SIM_MAX_ITERATIONS.
 * @instructions: TRACE entries per engine per iteration.
 * @dma_transfers: DMA entries per iteration.
 * @throttle: one THROTTLE entry per iteration.
 * @error: raise an execution error in the last iteration.
 * @seed: seeds the jitter of the device-time model (nprof_sim_jitter_seed()).
 */
struct nprof_sim_gen_program {
	u64 seed;
	u32 model_id;
	u32 iterations;
	u32 instructions[NEURONPROF_MAX_ENGINES];
	u32 dma_transfers;
	bool throttle;
	bool error;
};

/**
 * struct nprof_sim_run - one execution of a program by the generator.
 * @prog: the program.
 * @core: the NeuronCore it runs on.
 * @engines: engines of the core (instructions beyond it are ignored).
 * @topsps_per_core: TopSPs serving each core; those of @core are
 *	@core * @topsps_per_core onwards.
 * @emit: receives every notification in order. The generator filled every
 *	member but @n->seq. A non-zero return stops the run with that value.
 * @reserve: optional, with @commit: the TRACE entries of an engine are
 *	then built in place, up to NPROF_SIM_BATCH at a time, instead of
 *	going to @emit. Returns where to build *@got (<= @want) entries, the
 *	first with seq *@seq; or NULL when none are wanted (queue not
 *	started): the @want entries are then produced without being built.
 *	A non-NULL return with *@got 0 means no room: all @want are lost.
 * @commit: after each @reserve: @written entries were built, @produced
 *	(>= @written) notifications were produced; the rest are lost. A
 *	non-zero return stops the run with that value.
 * @poll: optional; called before every iteration (@boundary true) and every
 *	NPROF_SIM_POLL_INTERVAL notifications (@boundary false). A non-zero
 *	return stops the run with that value.
 * @priv: for the caller.
 * @last_ts: in/out: the floor: every notification gets a larger timestamp;
 *	out: the latest timestamp of the run (or of the instruction it stopped
 *	in).
 * @start_ns: in/out: device time of the first iteration's start; 0 reads
 *	the clock. Raised above @last_ts if needed.
 * @next_start: the next iteration's start (device time).
 * @engine_start: the current iteration's engines' start.
 * @level: the current iteration's throttle level, 0 for none.
 * @iteration: out: the iteration being (or last) generated.
 * @emitted: out: notifications handed to @emit.
 * @status: out: 0, or NPROF_SIM_EXEC_ERROR_STATUS once the error was raised.
 */
struct nprof_sim_run {
	const struct nprof_sim_gen_program *prog;
	u32 core;
	u32 engines;
	u32 topsps_per_core;
	int (*emit)(struct nprof_sim_run *run, const struct nprof_queue_id *q,
		    struct neuronprof_notification *n);
	struct neuronprof_notification *(*reserve)(struct nprof_sim_run *run,
						   const struct nprof_queue_id *q,
						   u32 want, u32 *got, u64 *seq);
	int (*commit)(struct nprof_sim_run *run, const struct nprof_queue_id *q,
		      u32 written, u32 produced);
	int (*poll)(struct nprof_sim_run *run, bool boundary);
	void *priv;
	u64 last_ts;
	u64 start_ns;
	u64 next_start;
	u64 engine_start;
	u32 level;
	u32 iteration;
	u64 emitted;
	u32 status;
};

/* Entries of one queue the generator builds at once (@reserve). */
#define NPROF_SIM_BATCH			64

/*
 * The device-time model (program.c, Documentation/simulator.rst "Device
 * time"), in nanoseconds of device time.
 */
#define NPROF_SIM_LAUNCH_NS		1000	/* INFER start to the units' start */
#define NPROF_SIM_SYNC_NS		500	/* last unit done to INFER stop */
#define NPROF_SIM_RELAUNCH_NS		2000	/* INFER stop to the next start */
#define NPROF_SIM_DMA_SETUP_NS		64	/* per transfer */
#define NPROF_SIM_DMA_BYTES_PER_NS	32	/* 32 GB/s */
#define NPROF_SIM_TOPSP_NS		9000	/* first TopSP of a core */
#define NPROF_SIM_TOPSP_STEP_NS		1500	/* more per further TopSP */
#define NPROF_SIM_JITTER_MASK		511	/* jitter 0..511 ns per instruction */
#define NPROF_SIM_THROTTLE_LEVELS	3

/* Percent of the full clock at throttle level @level (0: not throttled). */
static inline u32 nprof_sim_throttle_pct(u32 level)
{
	return 100 - 25 * level;
}

/* The seed and time_scale module parameters (main.c). */
extern unsigned long long nprof_sim_seed;
extern unsigned int nprof_sim_time_scale;

/* Largest time_scale: an execution 1000 times slower than the device. */
#define NPROF_SIM_MAX_TIME_SCALE	100000

u32 nprof_sim_op_cost_ns(u32 engine, u32 op, u32 level);

/* Most entries of the simulator's name table: TRACE, DMA, TOPSP_TRACE. */
#define NPROF_SIM_MAX_CODE_NAMES	(NEURONPROF_MAX_ENGINES * 32 + 16 + 1)
const char *nprof_sim_op_name(u32 engine, u32 op);
u32 nprof_sim_code_names(u32 engines, struct neuronprof_code_name *out);
u64 nprof_sim_dma_ns(u64 bytes);
u32 nprof_sim_jitter_seed(u64 seed, u32 model_id, u32 iteration, u32 engine);

/* Notifications between two mid-iteration polls (and cond_resched()s). */
#define NPROF_SIM_POLL_INTERVAL		1024

int nprof_sim_program_run(struct nprof_sim_run *run);
u64 nprof_sim_program_count(const struct nprof_sim_gen_program *prog, u32 engines,
			    u32 topsps_per_core, u64 counts[NEURONPROF_QT_COUNT]);

/**
 * struct nprof_sim_core - per-NeuronCore execution state.
 * @exec_lock: Protects @last_ts and serialises executions on the core.
 * @last_ts: timestamp of the last notification of the core and its TopSPs.
 */
struct nprof_sim_core {
	/* Protects @last_ts; held for a whole execution to serialise them. */
	struct mutex exec_lock;
	u64 last_ts;
};

/**
 * enum nprof_sim_knob_id - fault-injection knobs (debugfs files).
 * @NPROF_SIM_FAIL_NEXT_SUBSCRIBE: errno the next queue_start fails with.
 * @NPROF_SIM_FORCE_OVERFLOW: every notification is passed as lost while set.
 * @NPROF_SIM_FLUSH_STALL_MS: flush sleeps that long.
 * @NPROF_SIM_FLUSH_FAIL: errno flush fails with while set.
 * @NPROF_SIM_EXEC_ERROR: the next execution raises an error.
 * @NPROF_SIM_BUILD_UNSTARTED: while set, an execution builds the TRACE
 *	entries of queues that are not started into a scratch buffer and drops
 *	them (nothing is produced or counted), so that bench/sim_producer can
 *	time the generator with every entry built and none delivered.
 * @NPROF_SIM_NUM_KNOBS: number of knobs.
 */
enum nprof_sim_knob_id {
	NPROF_SIM_FAIL_NEXT_SUBSCRIBE,
	NPROF_SIM_FORCE_OVERFLOW,
	NPROF_SIM_FLUSH_STALL_MS,
	NPROF_SIM_FLUSH_FAIL,
	NPROF_SIM_EXEC_ERROR,
	NPROF_SIM_BUILD_UNSTARTED,
	NPROF_SIM_NUM_KNOBS,
};

/**
 * struct nprof_sim_knob - the value of one knob of one device.
 * @sdev: the device (the debugfs file's data is the knob).
 * @value: the value; 0 means off.
 */
struct nprof_sim_knob {
	struct nprof_sim_device *sdev;
	atomic_t value;
};

/**
 * struct nprof_sim_device - one simulated device (drvdata of its platform
 * device).
 * @dev: the platform device's struct device.
 * @id: the device id (platform device id).
 * @arch: its architecture.
 * @desc: what was announced to the core.
 * @ndev: the core's device.
 * @queue_base: per target kind, index of the first queue of target 0 in
 *	@active.
 * @queue_stride: per target kind, queues of one target.
 * @type_offset: per target kind and queue type, offset of the type's first
 *	queue within a target.
 * @num_queues: bits of @active.
 * @active: bit per queue, set between queue_start and queue_stop; only
 *	started queues produce.
 * @dying: set when removal starts: executions and stalled flushes stop.
 * @dying_wq: woken when @dying is set.
 * @debugfs: the device's debugfs directory.
 * @tainted: fault injection was enabled once (warned once).
 * @knobs: the fault-injection knobs, by enum nprof_sim_knob_id.
 * @unstarted_built: TRACE entries built into the scratch buffer of
 *	executions under NPROF_SIM_BUILD_UNSTARTED.
 * @pace_behind_max: the most host time, in ns, a paced execution was
 *	found behind its device-time pace since this was last reset (debugfs
 *	pace_behind_ns): the host did not give the device its pace, and the
 *	execution then produced what was due at memory speed.
 * @code_names: the name table @desc points to (nprof_sim_code_names()).
 * @cores: per-core state.
 */
struct nprof_sim_device {
	struct device *dev;
	u32 id;
	const struct nprof_sim_arch *arch;
	struct nprof_device_desc desc;
	struct nprof_drmdev *ndev;

	u32 queue_base[2];
	u32 queue_stride[2];
	u8 type_offset[2][NEURONPROF_QT_COUNT];
	u32 num_queues;
	unsigned long *active;

	bool dying;
	wait_queue_head_t dying_wq;

	struct dentry *debugfs;
	atomic_t tainted;
	struct nprof_sim_knob knobs[NPROF_SIM_NUM_KNOBS];
	atomic64_t unstarted_built;
	atomic64_t pace_behind_max;
	struct neuronprof_code_name code_names[NPROF_SIM_MAX_CODE_NAMES];

	struct nprof_sim_core cores[];
};

static inline atomic_t *nprof_sim_knob(struct nprof_sim_device *sdev,
				       enum nprof_sim_knob_id id)
{
	return &sdev->knobs[id].value;
}

/**
 * struct nprof_sim_pdata - platform data of a simulated device.
 * @arch: enum neuronprof_arch.
 * @probe_err: written by probe, so new_device can report why it failed.
 */
struct nprof_sim_pdata {
	u32 arch;
	int probe_err;
};

struct platform_device;

int nprof_sim_probe(struct platform_device *pdev);
int nprof_sim_remove(struct platform_device *pdev);

int nprof_sim_queue_index(const struct nprof_sim_device *sdev,
			  const struct nprof_queue_id *q);
int nprof_sim_exec(struct nprof_drmdev *ndev,
		   struct drm_neuronprof_sim_exec *args);

int nprof_sim_parse_new_device(const char *buf, u32 *id,
			       const struct nprof_sim_arch **arch);
int nprof_sim_dev_new(u32 id, const struct nprof_sim_arch *arch);
int nprof_sim_dev_del(u32 id);
struct nprof_sim_device *nprof_sim_dev_find(u32 id);

void nprof_sim_debugfs_register(void);
void nprof_sim_debugfs_unregister(void);
void nprof_sim_debugfs_init(struct nprof_sim_device *sdev);
void nprof_sim_debugfs_fini(struct nprof_sim_device *sdev);

#endif /* _NPROF_SIM_H_ */
