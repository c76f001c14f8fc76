// SPDX-License-Identifier: MIT
/*
 * Ring consumer: the arithmetic of a ring shared with the kernel, consumed
 * in place. The kernel side is driver/core/neuronprof_ring.c and the
 * protocol Documentation/ring.rst:
 *
 *   kernel (producer)                  this file (consumer)
 *   A: cons = load_acquire(consumer)   C: prod = load_acquire(producer_pos)
 *      if room: write the entry           read entries below prod
 *   B: store_release(producer_pos)     D: store_release(consumer, new cons)
 *
 * Positions are free-running 64-bit byte counters, so every comparison below
 * is a distance from the consumer position and stays right when they wrap.
 * Values read from the shared pages are read once and checked, never trusted
 * to be sane.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_internal.h"
#include "util/internal.h"
#include "ntff/ntff_internal.h"

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int nprof_ring_init(struct nprof_ring *ring, const void *header, size_t header_size,
		    void *consumer, size_t consumer_size, const void *data, size_t data_size)
{
	const struct neuronprof_ring_header *h = header;
	uint32_t version, hsize, es;
	uint64_t rs;

	if (!ring || !header || !consumer || !data)
		return nprof_err(EINVAL, "ring regions must not be NULL");
	if (header_size < sizeof(*h))
		return nprof_err(EINVAL, "ring header region of %zu bytes is smaller than the %zu-byte header",
				 header_size, sizeof(*h));
	if (consumer_size < sizeof(struct neuronprof_ring_consumer))
		return nprof_err(EINVAL, "ring consumer region of %zu bytes is too small", consumer_size);
	if ((uintptr_t)header % 8 || (uintptr_t)consumer % 8 || (uintptr_t)data % 8)
		return nprof_err(EINVAL, "ring regions must be 8-byte aligned");

	version = __atomic_load_n(&h->version, __ATOMIC_RELAXED);
	hsize = __atomic_load_n(&h->header_size, __ATOMIC_RELAXED);
	es = __atomic_load_n(&h->entry_size, __ATOMIC_RELAXED);
	rs = __atomic_load_n(&h->ring_size, __ATOMIC_RELAXED);
	if (version < NEURONPROF_RING_VERSION)
		return nprof_err(EINVAL, "ring header version %u is not supported (need %u or later)",
				 version, NEURONPROF_RING_VERSION);
	if (hsize < sizeof(*h) || hsize > header_size)
		return nprof_err(EINVAL, "ring header_size %u is outside [%zu, %zu]", hsize,
				 sizeof(*h), header_size);
	if (!is_pow2(es) || es < NTFF_MIN_ENTRY_SIZE)
		return nprof_err(EINVAL, "ring entry size %u is not a power of two of at least %d bytes",
				 es, NTFF_MIN_ENTRY_SIZE);
	if (rs != data_size)
		return nprof_err(EINVAL, "ring header says %llu data bytes, the data region has %zu",
				 (unsigned long long)rs, data_size);
	if (!is_pow2(rs) || rs < es)
		return nprof_err(EINVAL, "ring size %llu is not a power of two of at least one entry",
				 (unsigned long long)rs);
	if (rs / es > INT_MAX)
		return nprof_err(EINVAL, "ring of %llu entries holds more than %d entries",
				 (unsigned long long)(rs / es), INT_MAX);

	*ring = (struct nprof_ring){
		.hdr = h,
		.cons = consumer,
		.data = data,
		.size = rs,
		.entry_size = es,
		.queue_type = __atomic_load_n(&h->queue_type, __ATOMIC_RELAXED),
		.target_kind = __atomic_load_n(&h->target_kind, __ATOMIC_RELAXED),
		.target_index = __atomic_load_n(&h->target_index, __ATOMIC_RELAXED),
		.engine = __atomic_load_n(&h->engine, __ATOMIC_RELAXED),
	};
	return 0;
}

NPROF_API struct nprof_ring *nprof_ring_attach(const void *header, size_t header_size,
					       void *consumer, size_t consumer_size,
					       const void *data, size_t data_size)
{
	struct nprof_ring tmp, *ring;
	int ret;

	ret = nprof_ring_init(&tmp, header, header_size, consumer, consumer_size, data, data_size);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	ring = malloc(sizeof(*ring));
	if (!ring)
		return nprof_err_ptr(ENOMEM, "cannot allocate a ring view");
	*ring = tmp;
	return ring;
}

NPROF_API void nprof_ring_detach(struct nprof_ring *ring)
{
	free(ring);
}

/*
 * Check the shared positions: whole entries, and no more unread bytes than
 * the ring holds. Anything else means the pages were scribbled on.
 */
static int check_positions(const struct nprof_ring *ring, uint64_t cons, uint64_t prod)
{
	if ((cons | prod) & (ring->entry_size - 1) || prod - cons > ring->size)
		return nprof_err(EIO,
				 "ring of queue type %u target %u/%u engine %u: consumer position %llu and producer position %llu are inconsistent (ring size %llu, entry size %u)",
				 ring->queue_type, ring->target_kind, ring->target_index, ring->engine,
				 (unsigned long long)cons, (unsigned long long)prod,
				 (unsigned long long)ring->size, ring->entry_size);
	return 0;
}

/* Split [begin, end) (validated, at most one ring long) into spans. */
static int make_spans(const struct nprof_ring *ring, uint64_t begin, uint64_t end,
		      struct nprof_ring_spans *sp)
{
	uint64_t len = end - begin;
	uint64_t off = begin & (ring->size - 1);
	uint64_t first = len < ring->size - off ? len : ring->size - off;

	sp->begin = begin;
	sp->end = end;
	sp->ptr[0] = len ? ring->data + off : NULL;
	sp->len[0] = (size_t)first;
	sp->ptr[1] = len > first ? ring->data : NULL;
	sp->len[1] = (size_t)(len - first);
	return (int)(len / ring->entry_size);
}

/* The checked consumer and producer positions of @ring; 0 or -errno with a message. */
static int load_positions(struct nprof_ring *ring, const struct nprof_ring_spans *sp,
			  uint64_t *cons, uint64_t *prod)
{
	if (!ring || !sp)
		return nprof_err(EINVAL, "ring or spans is NULL");
	*prod = nprof_ring_load_producer(ring);	/* C */
	*cons = nprof_ring_load_consumer(ring);
	return check_positions(ring, *cons, *prod);
}

NPROF_API int nprof_ring_peek(struct nprof_ring *ring, struct nprof_ring_spans *sp)
{
	uint64_t prod = 0, cons = 0;
	int ret;

	ret = load_positions(ring, sp, &cons, &prod);
	if (ret)
		return ret;
	return make_spans(ring, cons, prod, sp);
}

NPROF_API int nprof_ring_window(struct nprof_ring *ring, uint64_t begin, uint64_t end,
				struct nprof_ring_spans *sp)
{
	uint64_t prod = 0, cons = 0;
	int ret;

	ret = load_positions(ring, sp, &cons, &prod);
	if (ret)
		return ret;
	if ((begin | end) & (ring->entry_size - 1))
		return nprof_err(EINVAL, "ring window [%llu, %llu) is not a whole number of %u-byte entries",
				 (unsigned long long)begin, (unsigned long long)end, ring->entry_size);
	if (begin - cons > prod - cons || end - begin > prod - begin)
		return nprof_err(EINVAL,
				 "ring window [%llu, %llu) is outside the unreleased range [%llu, %llu)",
				 (unsigned long long)begin, (unsigned long long)end,
				 (unsigned long long)cons, (unsigned long long)prod);
	return make_spans(ring, begin, end, sp);
}

NPROF_API int nprof_ring_release(struct nprof_ring *ring, uint64_t pos)
{
	uint64_t prod, cons;
	int ret;

	if (!ring)
		return nprof_err(EINVAL, "ring is NULL");
	prod = nprof_ring_load_producer(ring);
	cons = nprof_ring_load_consumer(ring);
	ret = check_positions(ring, cons, prod);
	if (ret)
		return ret;
	if (pos & (ring->entry_size - 1) || pos - cons > prod - cons)
		return nprof_err(EINVAL,
				 "cannot release ring to position %llu: not a whole entry in [consumer %llu, producer %llu]",
				 (unsigned long long)pos, (unsigned long long)cons,
				 (unsigned long long)prod);
	/* D: the reads of the entries below @pos happen before the kernel reuses them. */
	__atomic_store_n(&ring->cons->consumer_pos, pos, __ATOMIC_RELEASE);
	return 0;
}

NPROF_API int nprof_ring_get_state(const struct nprof_ring *ring, struct nprof_ring_state *st)
{
	if (!ring || !st)
		return nprof_err(EINVAL, "ring or state is NULL");
	if (NPROF_SIZED_OUT_CLEAR(st, nprof_ring_state))
		return -EINVAL;
	st->producer_pos = nprof_ring_load_producer(ring);
	st->consumer_pos = nprof_ring_load_consumer(ring);
	st->lost = __atomic_load_n(&ring->hdr->lost, __ATOMIC_RELAXED);
	st->flags = __atomic_load_n(&ring->hdr->flags, __ATOMIC_RELAXED);
	st->entry_size = ring->entry_size;
	st->ring_size = ring->size;
	st->queue_type = ring->queue_type;
	st->target_kind = ring->target_kind;
	st->target_index = ring->target_index;
	st->engine = ring->engine;
	return 0;
}
