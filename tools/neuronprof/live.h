/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): the queues of a device watched live, as top and exporter
 * watch them.
 *
 * live_open() subscribes every queue of every core and TopSP of a device
 * with record's watermark (a quarter of the ring), live_wait() sleeps in
 * poll() on the subscriptions' descriptors and consumes a ring in place
 * whenever it reaches its watermark, as record's drainer does. What it reads
 * is folded into per-interval figures (i_*) and figures since the start
 * (t_*): per core and engine the busy time as summary defines it (the
 * instructions' durations; a core's busy time is the union of its engines'
 * instruction intervals), instructions (TRACE entries), inferences and
 * their latency (INFER_STATUS start to stop), DMA transfers and bytes,
 * errors, the last throttle level, and per queue the entries consumed, the
 * highest fill seen before a drain and the notifications lost. On a device
 * of raw entries (NPROF_DEVICE_CAP_RAW or NPROF_DEVICE_CAP_RAW_PACKED)
 * nothing is decoded, as in summary: only the queues' figures count, in
 * 32-byte parts (a packed record of B device bytes is B / 32 entries, not
 * its ring entries), the unit of the sequence numbers and of the ring's
 * lost count, so entries + lost is what the queue produced. A queue
 * already has up to NEURONPROF_MAX_SUBSCRIBERS other subscribers (record,
 * another top or exporter), each with its own ring; one that is full
 * (EBUSY) is counted busy and subscribed again at each live_wait() until it
 * takes this one too. live_open() refuses, naming the total, rings whose
 * memory the host cannot give (util/ringmem.h).
 */
#ifndef NEURONPROF_TOOL_LIVE_H
#define NEURONPROF_TOOL_LIVE_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <neuronprof/config.h>
#include <neuronprof/device.h>

/*
 * top's and exporter's ring: small, since a queue takes several subscribers
 * and each ring is memory nothing can swap (at the simulator's pace a
 * quarter of it is about 16 ms of one engine's trace; the drain wakes at
 * that watermark).
 */
#define LIVE_RING_DEFAULT	(256ULL << 10)

struct live_queue {
	struct nprof_nq *nq;		/* NULL: not subscribed (busy) */
	uint32_t kind, index, type, engine;
	uint32_t core;			/* the core it belongs to */
	uint64_t ring_size;
	uint64_t lost_mark;		/* at the last sample */
	uint64_t fill_max;		/* bytes unread at a drain, this interval */
	uint64_t entries;		/* total consumed (raw: 32-byte parts) */
};

struct u64v {
	uint64_t *v;
	size_t n, cap;
};

struct live_iv {
	uint64_t start, end;
};

/*
 * An instruction (TRACE entry) lasts, as in summary, until the next entry
 * of its queue, bounded by the end of the engine's EVENT window and by the
 * stop of the core's inference that contain it; the timestamps of an
 * interval are kept until live_settle() settles them, since the queues are
 * drained one by one.
 */
struct live_engine {
	struct u64v tr;			/* TRACE timestamps of the interval */
	struct u64v ev_end;		/* EVENT end timestamps of the interval */
	uint64_t pend;			/* an instruction whose end is not known yet */
	bool have_pend;
	uint64_t i_busy_ns, i_instr;
	uint64_t t_busy_ns, t_instr, t_dma, t_dma_bytes;
};

struct live_core {
	struct live_engine eng[NPROF_MAX_ENGINES];
	struct u64v stops;		/* INFER_STATUS stops of the interval */
	struct live_iv *iv;		/* instruction intervals of the interval */
	size_t niv, iv_cap;
	uint64_t i_first, i_last;	/* the core's active span in the interval */
	bool i_any;
	uint64_t i_busy_ns;		/* the union of iv */
	uint64_t infer_ts;		/* the last INFER_STATUS start, 0 if none */
	uint64_t i_execs, i_lat_sum, i_lat_max, i_dma_bytes, i_dma;
	uint64_t t_busy_ns, t_execs, t_instr, t_dma, t_dma_bytes, t_errors;
	uint32_t throttle_level, throttle_pct;
	uint32_t model_id;		/* of the last inference started ... */
	bool model_seen;		/* ... if one was */
};

struct live {
	struct nprof_device *dev;
	struct nprof_device_info info;
	struct live_queue *q;
	size_t nq, busy;
	struct live_core *cores;
	bool oom;
	int epfd;			/* live_wait()'s epoll set, once made */
	bool ep_on;
	/*
	 * live_wait() waits at least this long after a wake-up before it
	 * waits for the next (0: none, as top): wake-ups coalesce, at the cost
	 * of the latency nobody but a screen needs.
	 */
	uint64_t min_gap_ns;
};

/*
 * live_open() - open device @device (NPROF_DEVICE_ANY: the first) and
 * subscribe all its queues with rings of @ring bytes. Return: 0, or
 * EXIT_FAIL after the message (live_free() then frees what was made).
 */
int live_open(struct live *l, int device, uint64_t ring);
void live_free(struct live *l);

/*
 * live_fold_span() - fold @len bytes of @q's ring at @p (whole ring
 * entries, one span of what a drain peeked; with packed raw records, whole
 * records) into @l's figures, as the device's caps and raw format say.
 */
void live_fold_span(struct live *l, struct live_queue *q, const void *p, size_t len);

/* Consume one ring, or every ring; @flush asks for in-flight notifications first. */
void live_drain_queue(struct live *l, struct live_queue *q, bool flush);
void live_drain(struct live *l, bool flush);

/* Settle what the drains gave: instruction durations and busy times. */
void live_settle_core(struct live *l, struct live_core *c);
void live_settle(struct live *l);

/* The notifications @q lost since it was subscribed. */
uint64_t live_queue_lost(const struct live_queue *q);

/* The core's active span in the interval: first to last timestamp. */
static inline uint64_t live_span(const struct live_core *c)
{
	return c->i_any ? c->i_last - c->i_first : 0;
}

/* Start a new interval: the i_* figures and the queues' fill back to zero. */
void live_interval_reset(struct live *l);

/*
 * live_wait() - sleep until @deadline (CLOCK_MONOTONIC ns), draining each
 * ring that reaches its watermark (or holds what a flush delivered) as soon
 * as it does. @pfd has a slot for the caller's own descriptor (@extra is
 * called with its poll events; fd -1 for none), then one per queue
 * (live_pollfds()); a queue whose device is gone gets fd -1. The
 * descriptors are watched with epoll, made at the first call: a wake-up
 * costs the queues that are ready, not a scan of all of them (a device's
 * end of execution wakes each queue of the core in turn). Returns at the
 * deadline, or early when @stop (may be NULL) returns true.
 */
void live_wait(struct live *l, struct pollfd *pfd, uint64_t deadline,
	       bool (*stop)(void *ctx), void (*extra)(void *ctx, short revents), void *ctx);

/* The poll slots of live_wait(): @fd0 first, then the queues. NULL on OOM. */
struct pollfd *live_pollfds(const struct live *l, int fd0);

uint64_t live_now_ns(void);

#endif /* NEURONPROF_TOOL_LIVE_H */
