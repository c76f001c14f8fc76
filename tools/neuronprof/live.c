// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the queues of a device watched live (live.h), shared by
 * top and exporter.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#include "live.h"
#include "tool.h"
#include "util/ringmem.h"

#define EVENT_END		2

uint64_t live_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- queues ---------------------------------------------------------------- */

static int add_queue(struct live *l, uint32_t kind, uint32_t index, uint32_t type,
		     uint32_t engine, uint32_t core, uint64_t ring)
{
	struct nprof_nq_params p = {
		.size = sizeof(p), .target_kind = kind, .target_index = index,
		.queue_type = type, .engine = engine, .ring_size = ring,
		/* record's watermark: poll() reports a quarter-full ring */
		.watermark = (uint32_t)(nprof_device_ring_size(l->dev, ring) / 4),
	};
	struct live_queue *q = &l->q[l->nq++];

	q->kind = kind;
	q->index = index;
	q->type = type;
	q->engine = engine;
	q->core = core;
	q->ring_size = nprof_device_ring_size(l->dev, ring);
	q->nq = nprof_nq_subscribe(l->dev, &p);
	if (!q->nq) {
		if (errno != EBUSY)
			return fail("cannot subscribe %s %u %s engine %u: %s",
				    kind == NPROF_TARGET_CORE ? "core" : "TopSP", index,
				    queue_name(type), engine, nprof_strerror_last());
		l->busy++;
		return 0;
	}
	q->lost_mark = 0;
	return 0;
}

/*
 * Every queue type the library knows, on every core and TopSP: with @plan,
 * only counted into it; else subscribed.
 */
static int for_each_queue(struct live *l, uint64_t ring, struct ring_plan *plan)
{
	const struct nprof_device_info *in = &l->info;
	uint32_t per = in->num_cores ? in->num_topsps / in->num_cores : 0;
	uint64_t size = nprof_device_ring_size(l->dev, ring);
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	for (uint32_t c = 0; c < in->num_cores; c++) {
		for (uint32_t ty = 0; ty < NPROF_QUEUE_TYPES; ty++) {
			uint32_t engines;

			if (!(in->core_queue_types & (1u << ty)))
				continue;
			engines = in->per_engine_queue_types & (1u << ty) ? in->engines_per_core : 1;
			for (uint32_t e = 0; e < engines && e < NPROF_MAX_ENGINES; e++) {
				if (plan)
					ring_plan_add(plan, size, 1, page);
				else if (add_queue(l, NPROF_TARGET_CORE, c, ty, e, c, ring))
					return EXIT_FAIL;
			}
		}
	}
	for (uint32_t s = 0; per && s < in->num_topsps; s++)
		for (uint32_t ty = 0; ty < NPROF_QUEUE_TYPES; ty++) {
			if (!(in->topsp_queue_types & (1u << ty)))
				continue;
			if (plan)
				ring_plan_add(plan, size, 1, page);
			else if (add_queue(l, NPROF_TARGET_TOPSP, s, ty, 0, s / per, ring))
				return EXIT_FAIL;
		}
	return 0;
}

static int subscribe_all(struct live *l, uint64_t ring)
{
	const struct nprof_device_info *in = &l->info;
	size_t max = (size_t)(in->num_cores * NPROF_QUEUE_TYPES * NPROF_MAX_ENGINES +
			      in->num_topsps * NPROF_QUEUE_TYPES);
	struct ring_plan plan = { 0 };
	struct ring_limits lim;
	char why[512];

	/* What the rings take, refused up front rather than OOM-killed. */
	for_each_queue(l, ring, &plan);
	if (ring > in->max_ring_size)
		plan.largest = ring;
	ring_limits_read(&lim, "");
	if (ring_plan_check(&plan, in->max_ring_size, &lim, why, sizeof(why)))
		return fail("cannot subscribe the queues of %s: %s", nprof_device_path(l->dev), why);

	l->q = calloc(max ? max : 1, sizeof(*l->q));
	if (!l->q)
		return fail("out of memory");
	if (for_each_queue(l, ring, NULL))
		return EXIT_FAIL;
	if (l->busy == l->nq)
		warn("every queue of %s already has as many subscribers as it takes: waiting for one to be freed",
		     nprof_device_path(l->dev));
	return 0;
}

/*
 * Subscribe again the queues that were full, and watch the new
 * subscriptions in @pfd (and the epoll set, once made): a queue another
 * process gave back is observed from the next interval on.
 */
static void live_retry(struct live *l, struct pollfd *pfd)
{
	for (size_t i = 0; i < l->nq; i++) {
		struct live_queue *q = &l->q[i];
		struct nprof_nq_params p = {
			.size = sizeof(p), .target_kind = q->kind, .target_index = q->index,
			.queue_type = q->type, .engine = q->engine, .ring_size = q->ring_size,
			.watermark = (uint32_t)(q->ring_size / 4),
		};

		if (q->nq)
			continue;
		q->nq = nprof_nq_subscribe(l->dev, &p);
		if (!q->nq)
			continue;
		l->busy--;
		q->lost_mark = 0;
		pfd[i + 1].fd = nprof_nq_fd(q->nq);
		if (l->ep_on) {
			struct epoll_event ev = { .events = EPOLLIN, .data.u64 = i + 1 };

			if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, pfd[i + 1].fd, &ev))
				l->oom = true;
		}
	}
}

int live_open(struct live *l, int device, uint64_t ring)
{
	l->dev = nprof_device_open(device, 0);
	if (!l->dev)
		return fail("%s", nprof_strerror_last());
	l->info.size = sizeof(l->info);
	if (nprof_device_get_info(l->dev, &l->info))
		return fail("%s", nprof_strerror_last());
	l->cores = calloc(l->info.num_cores ? l->info.num_cores : 1, sizeof(*l->cores));
	if (!l->cores)
		return fail("out of memory");
	return subscribe_all(l, ring);
}

void live_free(struct live *l)
{
	for (size_t i = 0; l->q && i < l->nq; i++)
		nprof_nq_close(l->q[i].nq);	/* gives the queue back */
	for (uint32_t c = 0; l->cores && c < l->info.num_cores; c++) {
		free(l->cores[c].stops.v);
		free(l->cores[c].iv);
		for (uint32_t e = 0; e < NPROF_MAX_ENGINES; e++) {
			free(l->cores[c].eng[e].tr.v);
			free(l->cores[c].eng[e].ev_end.v);
		}
	}
	free(l->q);
	free(l->cores);
	if (l->ep_on)
		close(l->epfd);
	nprof_device_close(l->dev);
	memset(l, 0, sizeof(*l));
}

/* ---- folding entries ---------------------------------------------------------- */

static void push(struct live *l, struct u64v *a, uint64_t v)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		uint64_t *nv = realloc(a->v, cap * sizeof(*nv));

		if (!nv) {
			l->oom = true;
			return;
		}
		a->v = nv;
		a->cap = cap;
	}
	a->v[a->n++] = v;
}

static void fold(struct live *l, const struct live_queue *q,
		 const struct neuronprof_notification *n)
{
	struct live_core *c = &l->cores[q->core];
	struct live_engine *e = &c->eng[n->engine < NPROF_MAX_ENGINES ? n->engine : 0];
	uint64_t ts = n->timestamp_ns;

	if (!c->i_any || ts < c->i_first)
		c->i_first = ts;
	if (!c->i_any || ts > c->i_last)
		c->i_last = ts;
	c->i_any = true;
	switch (n->queue_type) {
	case NEURONPROF_QT_TRACE:
		e->i_instr++;
		e->t_instr++;
		c->t_instr++;
		push(l, &e->tr, ts);
		break;
	case NEURONPROF_QT_EVENT:
		if (n->code == EVENT_END)
			push(l, &e->ev_end, ts);
		break;
	case NEURONPROF_QT_INFER_STATUS:
		if (n->code == NEURONPROF_INFER_START) {
			c->infer_ts = n->timestamp_ns;
			c->model_id = n->model_id;
			c->model_seen = true;
		} else if (n->code == NEURONPROF_INFER_STOP) {
			push(l, &c->stops, ts);
			uint64_t lat = c->infer_ts ? n->timestamp_ns - c->infer_ts : 0;

			c->i_execs++;
			c->t_execs++;
			c->i_lat_sum += lat;
			if (lat > c->i_lat_max)
				c->i_lat_max = lat;
			c->infer_ts = 0;
		}
		break;
	case NEURONPROF_QT_DMA:
		c->i_dma++;
		c->t_dma++;
		c->i_dma_bytes += n->payload[0];
		c->t_dma_bytes += n->payload[0];
		e->t_dma++;
		e->t_dma_bytes += n->payload[0];
		break;
	case NEURONPROF_QT_THROTTLE:
		c->throttle_level = n->code;
		c->throttle_pct = (uint32_t)n->payload[0];
		break;
	case NEURONPROF_QT_ERROR:
		c->t_errors++;
		break;
	default:
		break;
	}
}

/*
 * The 32-byte parts of the packed raw records at @p (uapi
 * NEURONPROF_RAW_PACKED; records never cross the end of the data area, so
 * a span holds whole ones): a header entry, then the device's bytes, 64 per
 * ring entry; a record of B bytes is B / 32 parts, as many as the sequence
 * numbers it takes and as the walker of the recordings (analysis/raw.h)
 * gives. A header that is not one (the provider writes none) ends the
 * span, as it ends that walker.
 */
static uint64_t packed_parts(const unsigned char *p, size_t len, size_t step)
{
	const struct neuronprof_notification *h;
	uint64_t parts = 0, slots;
	uint32_t bytes, es;

	for (size_t off = 0; step && len - off >= step; off += slots * step) {
		h = (const void *)(p + off);
		bytes = NEURONPROF_RAW_PACKED_BYTES(h->payload[1]);
		es = NEURONPROF_RAW_PACKED_ENTRY_SIZE(h->payload[1]);
		slots = NEURONPROF_RAW_PACKED_SLOTS(bytes);
		if (h->code != NEURONPROF_RAW_PACKED ||
		    (bytes && (es < NEURONPROF_RAW_BYTES_PER_ENTRY ||
			       es % NEURONPROF_RAW_BYTES_PER_ENTRY)) ||
		    slots > (len - off) / step)
			break;
		parts += NEURONPROF_RAW_PACKED_SEQS(bytes);	/* 0 for a filler */
	}
	return parts;
}

/*
 * A device of raw entries (NPROF_DEVICE_CAP_RAW, or _RAW_PACKED in packed
 * records) gives its own entries as bytes, whose layout is not known here:
 * as in summary, nothing of them is read as instructions, inferences, DMA,
 * errors or throttling, and a queue's entries count 32-byte parts (a
 * packed record's header and byte entries are not entries), the unit of
 * its sequence numbers and of its ring's lost count.
 */
void live_fold_span(struct live *l, struct live_queue *q, const void *p, size_t len)
{
	const size_t step = l->info.entry_size;

	if (l->info.caps & NPROF_DEVICE_CAP_RAW_PACKED) {
		q->entries += packed_parts(p, len, step);
		return;
	}
	if (step)
		q->entries += len / step;
	if ((l->info.caps & NPROF_DEVICE_CAP_RAW) || l->info.raw_format != NEURONPROF_RAW_FORMAT_NONE)
		return;
	for (size_t off = 0; step && off < len; off += step)
		fold(l, q, (const void *)((const char *)p + off));
}

void live_drain_queue(struct live *l, struct live_queue *q, bool flush)
{
	struct nprof_ring *ring;
	struct nprof_ring_spans sp;

	if (!q->nq)
		return;
	if (flush) {
		struct nprof_nq_drain_state st = { .size = sizeof(st) };

		nprof_nq_drain(q->nq, NPROF_NQ_DRAIN_FLUSH, &st);
	}
	ring = nprof_nq_ring(q->nq);
	if (nprof_ring_peek(ring, &sp) <= 0)
		return;
	if (sp.end - sp.begin > q->fill_max)
		q->fill_max = sp.end - sp.begin;
	for (int s = 0; s < 2; s++)
		live_fold_span(l, q, sp.ptr[s], sp.len[s]);
	nprof_ring_release(ring, sp.end);
}

void live_drain(struct live *l, bool flush)
{
	for (size_t i = 0; i < l->nq; i++)
		live_drain_queue(l, &l->q[i], flush);
}

/* ---- settling an interval: instruction durations and busy time ---------------- */

static int cmp_u64(const void *a, const void *b)
{
	return cmp_int(*(const uint64_t *)a, *(const uint64_t *)b);
}

static int cmp_iv(const void *a, const void *b)
{
	const struct live_iv *x = a, *y = b;

	return cmp_int(x->start, y->start) ?: cmp_int(x->end, y->end);
}

static void iv_add(struct live *l, struct live_core *c, uint64_t start, uint64_t end)
{
	if (end <= start)
		return;
	/* Instructions of a queue follow each other: extend the last interval. */
	if (c->niv && start >= c->iv[c->niv - 1].start && start <= c->iv[c->niv - 1].end) {
		if (end > c->iv[c->niv - 1].end)
			c->iv[c->niv - 1].end = end;
		return;
	}
	if (c->niv == c->iv_cap) {
		size_t cap = c->iv_cap ? c->iv_cap * 2 : 256;
		struct live_iv *n = realloc(c->iv, cap * sizeof(*n));

		if (!n) {
			l->oom = true;
			return;
		}
		c->iv = n;
		c->iv_cap = cap;
	}
	c->iv[c->niv++] = (struct live_iv){ start, end };
}

/*
 * Sort @a unless it is in order already, as it nearly always is: each array
 * holds the entries of one queue, which come in time order.
 */
static void sort_u64v(struct u64v *a)
{
	for (size_t i = 1; i < a->n; i++) {
		if (a->v[i] < a->v[i - 1]) {
			qsort(a->v, a->n, sizeof(uint64_t), cmp_u64);
			return;
		}
	}
}

/* The first value of sorted @a at or after @ts from *@k on, else UINT64_MAX. */
static uint64_t first_from(const struct u64v *a, size_t *k, uint64_t ts)
{
	while (*k < a->n && a->v[*k] < ts)
		(*k)++;
	return *k < a->n ? a->v[*k] : UINT64_MAX;
}

/* An engine's instructions of the interval get their durations. */
static void settle_engine(struct live *l, struct live_core *c, struct live_engine *e)
{
	size_t ke = 0, ks = 0;

	sort_u64v(&e->tr);
	sort_u64v(&e->ev_end);
	for (size_t i = 0; i <= e->tr.n; i++) {
		uint64_t ts, next, end;

		if (i == 0) {
			if (!e->have_pend)
				continue;
			ts = e->pend;
		} else {
			ts = e->tr.v[i - 1];
		}
		next = i < e->tr.n ? e->tr.v[i] : UINT64_MAX;
		end = first_from(&e->ev_end, &ke, ts);
		if (next < end)
			end = next;
		next = first_from(&c->stops, &ks, ts);
		if (next < end)
			end = next;
		if (end == UINT64_MAX) {
			/* The last one, whose end a later drain tells. */
			e->pend = ts;
			e->have_pend = true;
			break;
		}
		e->have_pend = false;
		e->i_busy_ns += end - ts;
		e->t_busy_ns += end - ts;
		iv_add(l, c, ts, end);
	}
	e->tr.n = e->ev_end.n = 0;
}

/*
 * The core's busy time: the union of its engines' instruction intervals
 * settled since the interval began.
 */
void live_settle_core(struct live *l, struct live_core *c)
{
	uint64_t total = 0, end = 0;

	sort_u64v(&c->stops);
	for (uint32_t e = 0; e < NPROF_MAX_ENGINES; e++)
		settle_engine(l, c, &c->eng[e]);
	if (c->niv > 1)
		qsort(c->iv, c->niv, sizeof(*c->iv), cmp_iv);
	for (size_t i = 0; i < c->niv; i++) {
		uint64_t from = i && c->iv[i].start < end ? end : c->iv[i].start;

		if (c->iv[i].end > from)
			total += c->iv[i].end - from;
		if (!i || c->iv[i].end > end)
			end = c->iv[i].end;
	}
	c->i_busy_ns += total;
	c->t_busy_ns += total;
	c->niv = 0;
	c->stops.n = 0;
}

void live_settle(struct live *l)
{
	for (uint32_t c = 0; c < l->info.num_cores; c++)
		live_settle_core(l, &l->cores[c]);
}

uint64_t live_queue_lost(const struct live_queue *q)
{
	struct nprof_ring_state st = { .size = sizeof(st) };

	if (!q->nq || nprof_ring_get_state(nprof_nq_ring(q->nq), &st))
		return 0;
	return st.lost;
}

void live_interval_reset(struct live *l)
{
	for (uint32_t c = 0; c < l->info.num_cores; c++) {
		struct live_core *k = &l->cores[c];

		k->i_execs = k->i_lat_sum = k->i_lat_max = k->i_dma = k->i_dma_bytes = 0;
		k->i_busy_ns = 0;
		k->i_any = false;
		for (uint32_t e = 0; e < NPROF_MAX_ENGINES; e++)
			k->eng[e].i_busy_ns = k->eng[e].i_instr = 0;
	}
	for (size_t i = 0; i < l->nq; i++) {
		l->q[i].fill_max = 0;
		l->q[i].lost_mark = live_queue_lost(&l->q[i]);
	}
}

/* ---- waiting ------------------------------------------------------------------ */

struct pollfd *live_pollfds(const struct live *l, int fd0)
{
	struct pollfd *pfd = calloc(l->nq + 1, sizeof(*pfd));

	if (!pfd)
		return NULL;
	pfd[0] = (struct pollfd){ .fd = fd0, .events = POLLIN };
	for (size_t i = 0; i < l->nq; i++)
		pfd[i + 1] = (struct pollfd){ .fd = l->q[i].nq ? nprof_nq_fd(l->q[i].nq) : -1,
					      .events = POLLIN };
	return pfd;
}

/* The epoll set of @pfd: slot i has data i. Return: 0, or -1 (l->oom set). */
static int ep_make(struct live *l, struct pollfd *pfd)
{
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		l->oom = true;
		return -1;
	}
	l->ep_on = true;
	for (size_t i = 0; i <= l->nq; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = i };

		if (pfd[i].fd >= 0 && epoll_ctl(l->epfd, EPOLL_CTL_ADD, pfd[i].fd, &ev)) {
			l->oom = true;
			return -1;
		}
	}
	return 0;
}

void live_wait(struct live *l, struct pollfd *pfd, uint64_t deadline,
	       bool (*stop)(void *ctx), void (*extra)(void *ctx, short revents), void *ctx)
{
	struct epoll_event evs[64];
	uint64_t now;

	if (l->busy)
		live_retry(l, pfd);
	if (!l->ep_on && ep_make(l, pfd))
		return;
	while (!(stop && stop(ctx)) && (now = live_now_ns()) < deadline) {
		int ms = (int)((deadline - now + 999999) / 1000000);
		int n = epoll_wait(l->epfd, evs, (int)(sizeof(evs) / sizeof(evs[0])), ms);

		for (int k = 0; k < n; k++) {
			size_t i = (size_t)evs[k].data.u64;
			uint32_t re = evs[k].events;

			if (i == 0) {
				if (extra)
					extra(ctx, (short)((re & EPOLLIN ? POLLIN : 0) |
							   (re & EPOLLHUP ? POLLHUP : 0) |
							   (re & EPOLLERR ? POLLERR : 0)));
				continue;
			}
			if (re & EPOLLIN)
				live_drain_queue(l, &l->q[i - 1], false);
			if (re & (EPOLLHUP | EPOLLERR)) {
				/* The device is gone: what is left, then no more waiting on it. */
				live_drain_queue(l, &l->q[i - 1], false);
				epoll_ctl(l->epfd, EPOLL_CTL_DEL, pfd[i].fd, NULL);
				pfd[i].fd = -1;
			}
		}
		if (n > 0 && l->min_gap_ns) {
			uint64_t until = live_now_ns() + l->min_gap_ns;
			struct timespec ts;

			if (until > deadline)
				until = deadline;
			now = live_now_ns();
			if (until > now && !(stop && stop(ctx))) {
				ts.tv_sec = (time_t)((until - now) / 1000000000ULL);
				ts.tv_nsec = (long)((until - now) % 1000000000ULL);
				nanosleep(&ts, NULL);	/* a signal cuts it short */
			}
		}
	}
}
