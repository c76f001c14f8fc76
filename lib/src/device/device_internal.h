/* SPDX-License-Identifier: MIT */
/*
 * Device-layer internals shared by device*.c and the capture engine, and the
 * seams the host tests use to run the layer without a kernel: a device whose
 * queue operations are functions of the test (rings in ordinary memory) and
 * replaceable module-state and enumeration hooks.
 *
 * device/ is layer 3 of the library (lib/src/README): it may call util/
 * and ntff/ (whose entry-size bounds a device's entries must meet, a
 * header's constants only); it records its system-
 * trace events through trace/base/tracepoint.h, never by calling trace/.
 */
#ifndef NEURONPROF_DEVICE_INTERNAL_H
#define NEURONPROF_DEVICE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/device.h>
#include <neuronprof/ntff.h>

/*
 * The library's ring (the public handle of <neuronprof/device.h>; the kernel's
 * is struct nprof_kring, the selftests' struct selftest_ring): a view, with
 * pointers into the three regions and what the header said.
 */
struct nprof_ring {
	const struct neuronprof_ring_header *hdr;
	struct neuronprof_ring_consumer *cons;
	const unsigned char *data;
	uint64_t size;		/* data bytes, a power of two */
	uint32_t entry_size;	/* a power of two dividing size */
	uint32_t queue_type;
	uint32_t target_kind;
	uint32_t target_index;
	uint32_t engine;
};

/* Validate the regions and fill @ring; 0 or -EINVAL with a message. */
int nprof_ring_init(struct nprof_ring *ring, const void *header, size_t header_size,
		    void *consumer, size_t consumer_size, const void *data, size_t data_size);

/* Producer position, acquire (C in Documentation/ring.rst). */
static inline uint64_t nprof_ring_load_producer(const struct nprof_ring *ring)
{
	return __atomic_load_n(&ring->hdr->producer_pos, __ATOMIC_ACQUIRE);
}

static inline uint64_t nprof_ring_load_consumer(const struct nprof_ring *ring)
{
	return __atomic_load_n(&ring->cons->consumer_pos, __ATOMIC_ACQUIRE);
}

struct nprof_nq;

/*
 * How a device reaches its queues. The real device issues ioctls and maps
 * the subscription; the host tests supply rings in ordinary memory.
 * subscribe() fills nq->fd, nq->ring and the mapping fields, with
 * nq->params already rounded; drain() fills @st; unsubscribe() undoes
 * subscribe(); sim_exec() runs a program.
 */
struct nprof_device_ops {
	int (*subscribe)(struct nprof_device *dev, struct nprof_nq *nq);
	int (*drain)(struct nprof_nq *nq, uint32_t flags, struct neuronprof_nq_drain *st);
	void (*unsubscribe)(struct nprof_nq *nq);
	int (*sim_exec)(struct nprof_device *dev, struct drm_neuronprof_sim_exec *args);
	/* Who holds the queue of @nq's params (NQ_HOLDERS); optional. */
	int (*holders)(struct nprof_device *dev, const struct nprof_nq *nq,
		       struct drm_neuronprof_nq_holders *h);
};

struct nprof_device {
	int fd;
	char path[NPROF_DEVICE_PATH_MAX];
	struct nprof_device_info info;
	const struct nprof_device_ops *ops;
	void *priv;			/* the test backend's */
	/*
	 * The system trace's index of core 0 of this device: the session
	 * layer's device registry numbers the cores of all devices one after
	 * the other (virtual cores) and sets it; 0 for a device used alone.
	 */
	uint32_t trace_core_base;
	/*
	 * The device's names of its codes (NEURONPROF_INFO_CODE_NAMES, uapi
	 * version 3), as the capture writes them into its files: @names
	 * point into @name_buf. None for a device of an older module, one
	 * that names nothing, or a raw device.
	 */
	struct nprof_ntff_code_name *names;
	struct neuronprof_code_name *name_buf;
	size_t num_names;
};

struct nprof_nq {
	struct nprof_device *dev;
	int fd;
	struct nprof_nq_params params;	/* ring_size as subscribed */
	void *maps[3];			/* header, consumer, data mappings */
	size_t map_len[3];
	struct nprof_ring ring;
	uint64_t lost_seen;		/* lost count of the last drain, for nq_overflow */
	void *priv;			/* the test backend's */
};

/*
 * The system-trace core of a queue of @dev: trace_core_base plus the core
 * (a TopSP's: the core it serves), or NPROF_SYS_TRACE_NO_CORE when there is
 * none. Never fails and records no message.
 */
uint32_t nprof_device_trace_core(const struct nprof_device *dev, uint32_t target_kind,
				 uint32_t target_index);

/* The real (ioctl) operations. */
extern const struct nprof_device_ops nprof_drm_ops;

/*
 * Create a device backed by @ops (the tests' fake rings). @info is copied;
 * its size member is ignored. Close it with nprof_device_close().
 */
struct nprof_device *nprof_device_create(const struct nprof_device_info *info,
					 const struct nprof_device_ops *ops, void *priv);

/*
 * Give the device @n code names (copied; checked as a file's are), e.g. a
 * test device's. 0, or -EINVAL/-ENOMEM with a message.
 */
int nprof_device_set_code_names(struct nprof_device *dev,
				const struct neuronprof_code_name *names, size_t n);

/* Check a device description for values the library cannot work with. */
int nprof_device_info_check(const struct nprof_device_info *info);

/*
 * A render node found while enumerating: its path, its device number, and
 * @seq, the order it was found in (libdrm's nodes first, then the DRM
 * directory's).
 */
struct nprof_drm_node {
	char path[NPROF_DEVICE_PATH_MAX];
	unsigned int major;
	unsigned int minor;
	size_t seq;
};

/*
 * Sort @nodes by device number and keep one entry per device number, the
 * one found first (two paths may name one node: libdrm's and the
 * directory's, or a link). Returns the number kept, at the start of @nodes.
 */
size_t nprof_drm_nodes_unique(struct nprof_drm_node *nodes, size_t n);

/* ---- module state (libkmod) ---------------------------------------------- */

enum nprof_mod_state {
	NPROF_MOD_UNKNOWN = 0,		/* libkmod could not tell */
	NPROF_MOD_NOT_INSTALLED,	/* not in the module tree of this kernel */
	NPROF_MOD_NOT_LOADED,		/* installed, not loaded */
	NPROF_MOD_LOADED,		/* live (or built in) */
};

/*
 * What the host knows when no device was found: both modules' states,
 * the running kernel release, why the state is unknown, and whether some
 * neuronprof-looking render node could not be opened.
 */
struct nprof_mod_report {
	enum nprof_mod_state core;	/* neuronprof */
	enum nprof_mod_state sim;	/* neuronprof_sim */
	char release[65];
	bool no_headers;	/* no /lib/modules/<release>/build to build the modules with */
	char why_unknown[128];
	char denied_node[NPROF_DEVICE_PATH_MAX];	/* "" if none */
	int denied_errno;
};

/*
 * Compose the "no device" error from @r: records the message (nprof_err)
 * and returns -errno (ENODEV, or the denied node's errno).
 */
int nprof_device_missing_error(const struct nprof_mod_report *r);

/*
 * Seams. query() fills the module states of @r; load() loads a module by
 * name and returns 0 or -errno with a message; list() enumerates as
 * nprof_device_list() and reports an unopenable node through @r. Any NULL
 * member keeps the real implementation. Passing NULL restores all.
 */
struct nprof_device_hooks {
	int (*query)(struct nprof_mod_report *r);
	int (*load)(const char *module);
	int (*list)(struct nprof_device_node *nodes, size_t max, struct nprof_mod_report *r);
};

void nprof_device_set_hooks(const struct nprof_device_hooks *hooks);
/* The hooks now (device_hooks.c); a member left NULL means the real one. */
struct nprof_device_hooks nprof_device_hooks_get(void);

/* 1 if @fd's DRM driver is neuronprof, 0 if another driver, -errno (device.c). */
int nprof_device_is_neuronprof(int fd);
/* GET_INFO on @fd (opened from @path), checked; 0 or -errno with a message (device.c). */
int nprof_device_query_info(int fd, const char *path, struct nprof_device_info *out);
/*
 * The neuronprof nodes, through the list hook if one is set (device_enum.c):
 * fills at most @max, sorted by device index; the total or -errno.
 */
int nprof_device_list_nodes(struct nprof_device_node *nodes, size_t max,
			    struct nprof_mod_report *r);

/* The real implementations (device_kmod.c), used when no hook is set. */
int nprof_kmod_query(struct nprof_mod_report *r);
int nprof_kmod_load(const char *module);

#endif /* NEURONPROF_DEVICE_INTERNAL_H */
