/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the neuronprof uapi selftests: finding a neuronprof
 * render node, driving the simulator's sysfs and debugfs controls, and a
 * reference ring consumer that checks every entry it reads.
 *
 * These helpers know nothing about the kselftest harness (which can only be
 * included once per program): they return 0 or -errno and leave the
 * assertions to the tests.
 */
#ifndef NPROF_UTIL_H
#define NPROF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "neuronprof_drm.h"

/* Where the simulator's controls live (netdevsim style). */
#define NPROF_SIM_DRIVER_DIR	"/sys/bus/platform/drivers/neuronprof_sim"
#define NPROF_SIM_DEBUGFS_DIR	"/sys/kernel/debug/neuronprof_sim"

#define NPROF_NODE_MAX		64	/* render nodes scanned */
#define NPROF_PATH_MAX		64

/* An open neuronprof render node and what GET_INFO said about it. */
struct nprof_dev {
	int fd;
	char node[NPROF_PATH_MAX];
	struct drm_neuronprof_device_info info;
};

/* Address of one queue (the selftests' own; the kernel's is struct nprof_queue). */
struct selftest_queue {
	__u32 kind;
	__u32 index;
	__u32 type;
	__u32 engine;
};

/* What a consumer expects of every entry it reads from a ring. */
struct nprof_expect {
	bool check_model;
	__u32 model_id;
	__u32 iterations;	/* entry iteration must be below; 0: unchecked */
	__u64 ts_min;	/* timestamp bounds; ts_max == 0: unchecked */
	__u64 ts_max;
	bool ts_increasing;	/* strictly increasing within the queue */
};

/*
 * The selftests' ring, named after their layer (the kernel's is struct
 * nprof_kring, the library's struct nprof_ring): a mapped subscription and
 * the state of the reference consumer: the sequence number it expects
 * next, how many entries it read, and the sum of the sequence gaps it saw
 * (notifications the kernel says were lost between two delivered entries).
 */
struct selftest_ring {
	int fd;
	struct selftest_queue q;
	struct drm_neuronprof_nq_subscribe sub;
	const struct neuronprof_ring_header *hdr;
	struct neuronprof_ring_consumer *cons;
	const unsigned char *data;
	__u64 entry_size;
	__u64 next_seq;
	__u64 delivered;
	__u64 gaps;
	__u64 last_ts;
	__u64 code_hist[4];	/* INFER_STATUS: count of code 0..3 */
	char err[256];		/* first inconsistency found, "" if none */
};

/* Device discovery. */
int nprof_is_neuronprof_fd(int fd);
int nprof_list_nodes(char nodes[][NPROF_PATH_MAX], int max);
int nprof_dev_open(const char *node, struct nprof_dev *dev);
int nprof_dev_open_any(struct nprof_dev *dev);
void nprof_dev_close(struct nprof_dev *dev);
int nprof_get_info(int fd, struct drm_neuronprof_device_info *info);
bool nprof_has_core_type(const struct drm_neuronprof_device_info *info,
			 __u32 kind, __u32 type);
bool nprof_per_engine(const struct drm_neuronprof_device_info *info,
		      __u32 type);

/* The simulator's runtime controls. */
bool nprof_sim_loaded(void);
int nprof_sim_new_device(unsigned int id, const char *arch,
			 struct nprof_dev *dev);
int nprof_sim_del_device(unsigned int id);
int nprof_sim_knob_write(unsigned int id, const char *knob, const char *val);
int nprof_sim_knob_read(unsigned int id, const char *knob, char *buf,
			size_t len);
int nprof_write_file(const char *path, const char *val);

/* ioctl wrappers: 0 (or an fd) on success, -errno on failure. */
int nprof_subscribe(int devfd, struct drm_neuronprof_nq_subscribe *sub);
int nprof_subscribe_q(int devfd, const struct selftest_queue *q,
		      __u64 ring_size, __u32 watermark,
		      struct drm_neuronprof_nq_subscribe *sub);
/* NQ_HOLDERS of @q into @h: 0 or -errno. */
int nprof_holders(int devfd, const struct selftest_queue *q,
		  struct drm_neuronprof_nq_holders *h);
/*
 * Subscribe @q until it is full (the device's max_subscribers): the fds
 * go into @fds (room for NEURONPROF_MAX_SUBSCRIBERS). Return: how many, or
 * -errno of the first failure that is not EBUSY.
 */
int nprof_fill_queue(int devfd, const struct selftest_queue *q, __u64 ring_size, int *fds);
int nprof_drain(int fd, __u32 flags, __u64 release_pos,
		struct neuronprof_nq_drain *out);
int nprof_exec(int devfd, struct drm_neuronprof_sim_exec *ex);
void nprof_exec_init(struct drm_neuronprof_sim_exec *ex, __u32 core,
		     __u32 model_id, __u32 iterations,
		     __u32 instructions, __u32 dma,
		     __u32 engines);

/* Rings. */
int selftest_ring_open(int devfd, const struct selftest_queue *q, __u64 ring_size,
		       __u32 watermark, struct selftest_ring *r);
int selftest_ring_map(struct selftest_ring *r);
void selftest_ring_unmap(struct selftest_ring *r);
void selftest_ring_close(struct selftest_ring *r);
__u64 selftest_ring_producer(const struct selftest_ring *r);
__u64 selftest_ring_consumer_pos(const struct selftest_ring *r);
void selftest_ring_set_consumer(struct selftest_ring *r, __u64 pos);
long selftest_ring_consume(struct selftest_ring *r, const struct nprof_expect *exp);
int selftest_ring_check_entry(struct selftest_ring *r,
			      const struct neuronprof_notification *n,
			      const struct nprof_expect *exp);
int selftest_ring_settle(struct selftest_ring *r, const struct nprof_expect *exp,
			 bool flush);

/* Every queue of a NeuronCore and of the TopSPs that serve it. */
int nprof_core_queues(const struct drm_neuronprof_device_info *info,
		      __u32 core, struct selftest_queue *out, int max);

/* Misc. */
int nprof_lowest_free_fd(void);
__u64 nprof_now_ns(void);
bool nprof_is_pow2(__u64 v);
long nprof_page_size(void);
const char *nprof_qt_name(__u32 type);

#endif /* NPROF_UTIL_H */
