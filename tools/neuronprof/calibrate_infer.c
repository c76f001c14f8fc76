// SPDX-License-Identifier: MIT
/*
 * neuronprof calibrate: what a queue's head writes and ring bytes say:
 * the head unit (entry index, byte offset or free-running counter, from
 * wrap points and strides), the entry size (from the stride and wrap point
 * of the heads, and from the period of the ring's bytes), the phase bit,
 * the lag and where the device starts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "calibrate.h"
#include "util/util.h"

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/*
 * The smallest period P (32..256) at which some byte column of the ring's
 * written entries holds one value in at least 90% of them: entries start
 * with a field that does not change, as every entry format seen has. 0 if
 * none (the ring's bytes do not tell).
 */
static uint32_t ring_period(const struct cq *q)
{
	uint32_t p;

	for (p = 32; p <= 256; p *= 2) {
		size_t nent = q->ring_len / p, k, j;

		if (nent < 4)
			break;
		for (k = 0; k < p; k++) {
			unsigned int count[256] = { 0 }, best = 0, written = 0;

			for (j = 0; j < nent; j++) {
				const uint8_t *e = q->ring + j * p;
				size_t z;

				for (z = 0; z < p && !e[z]; z++)
					;
				if (z == p)
					continue;	/* never written */
				written++;
				if (++count[e[k]] > best)
					best = count[e[k]];
			}
			if (written >= 4 && best * 10 >= written * 9 && count[0] != best)
				return p;
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	return cmp_int(*(const uint32_t *)a, *(const uint32_t *)b);
}

/* The most frequent value of @v[0..n) (sorts @v); 0 for none. */
static uint32_t mode_of(uint32_t *v, size_t n)
{
	uint32_t best = 0;
	size_t i, run = 0, bc = 0;

	qsort(v, n, sizeof(*v), cmp_u32);
	for (i = 0; i < n; i++) {
		run = i && v[i] == v[i - 1] ? run + 1 : 1;
		if (run > bc) {
			bc = run;
			best = v[i];
		}
	}
	return best;
}

void cal_infer(const struct cq *q, struct verdict *v)
{
	uint32_t max = 0, pring = ring_period(q), *d, dmode, *nest;
	size_t i, nd = 0, nw = 0, wraps = 0;
	uint64_t g = 0;

	memset(v, 0, sizeof(*v));
	v->unit = U_UNKNOWN;
	if (!q->have_size) {
		v->why = "the queue's size was not logged (it was programmed before logging began)";
		return;
	}
	if (q->nheads < MIN_HEADS) {
		v->why = "fewer than 8 head writes";
		return;
	}
	d = xcalloc(q->nheads, sizeof(*d));
	nest = xcalloc(q->nheads, sizeof(*nest));
	for (i = 0; i < q->nheads; i++) {
		/* Steps modulo 2^32: a counter that passes 2^32 goes on forward. */
		int32_t step = i ? (int32_t)(q->heads[i] - q->heads[i - 1]) : 0;

		if (q->heads[i] > max)
			max = q->heads[i];
		g = gcd64(g, q->heads[i]);
		if (step > 0)
			d[nd++] = (uint32_t)step;
		else if (step < 0)
			wraps++;
	}
	for (i = 0; i < nd; i++)
		g = gcd64(g, d[i]);
	dmode = mode_of(d, nd);
	/* At a wrap from h to h' after a step of dmode, the ring held h + dmode - h'. */
	for (i = 1; i < q->nheads && dmode; i++)
		if (q->heads[i] < q->heads[i - 1])
			nest[nw++] = q->heads[i - 1] + dmode - q->heads[i];

	if (!wraps) {
		if (max >= q->size || (max >= q->size / 32 && g < 32)) {
			/* Past any index or byte offset of the ring, and never back. */
			v->unit = U_COUNTER;
			v->entry_size = pring;
			snprintf(v->detail, sizeof(v->detail),
				 "%zu head writes up to %u without a wrap in a %u-byte ring; entry size from the ring's period",
				 q->nheads, max, q->size);
			if (!pring)
				v->why = "a counter's heads do not give the entry size, and the ring's bytes show no period";
		} else {
			v->why = "no head went back (no wrap seen) and none passed the ring: run longer";
		}
	} else if (max < q->size / 2 || g < 32) {
		uint32_t n = mode_of(nest, nw);

		v->unit = U_INDEX;
		if (n && is_pow2(n) && q->size % n == 0 && q->size / n >= 32)
			v->entry_size = q->size / n;
		if (pring && v->entry_size && pring != v->entry_size) {
			v->why = "the wrap point and the ring's period disagree";
			v->entry_size = 0;
		} else if (!v->entry_size) {
			v->entry_size = pring;
		}
		snprintf(v->detail, sizeof(v->detail),
			 "%zu head writes, %zu wraps at %u entries of a %u-byte ring%s", q->nheads,
			 wraps, n, q->size, pring ? ", ring period agrees" : "");
		if (!v->entry_size && !v->why)
			v->why = "neither the wrap point nor the ring's bytes give the entry size";
	} else {
		v->unit = U_BYTE;
		if (pring && g % pring == 0)
			v->entry_size = pring;
		else if (!pring && g == 32)
			v->entry_size = 32;	/* the smallest entry size there is */
		snprintf(v->detail, sizeof(v->detail),
			 "%zu head writes, %zu wraps, every head a multiple of %llu bytes below %u%s",
			 q->nheads, wraps, (unsigned long long)g, q->size,
			 pring ? ", ring period agrees" : "");
		if (!v->entry_size)
			v->why = pring ? "the heads' stride is no multiple of the ring's period" :
				 "the heads' stride is a multiple of the entry size, and the ring's bytes show no period to say which";
	}
	free(d);
	free(nest);
}

/*
 * A head bit the runtime flips on each wrap (2.1.5 kept one): set in some
 * heads, above every byte offset of the ring, and flipping exactly where
 * the rest of the head goes back, at least twice (or, with @known, the bit
 * other queues showed, as often as this one wrapped). It is cleared from
 * the heads (and the head at programming) before anything else is
 * inferred. Returns 1 when it found one.
 */
int cal_find_phase(struct cq *q, int known)
{
	uint32_t high = 0, bit;
	size_t i, flips = 0;

	if (q->phase_bit >= 0 || !q->have_size || !q->nheads || !is_pow2(q->size))
		return 0;
	for (i = 0; i < q->nheads; i++)
		high |= q->heads[i] & ~(q->size - 1);
	if (known >= 0 && !(high & ~(1u << known)))
		high = 1u << known;
	if (!high || (high & (high - 1)))
		return 0;
	bit = high;
	for (i = 1; i < q->nheads; i++) {
		int flip = !!((q->heads[i] ^ q->heads[i - 1]) & bit);
		int back = (q->heads[i] & ~bit) < (q->heads[i - 1] & ~bit);

		if (flip != back)
			return 0;
		flips += flip;
	}
	if (flips < 2 && (known < 0 || bit != 1u << known))
		return 0;
	q->phase_bit = __builtin_ctz(bit);
	for (i = 0; i < q->nheads; i++)
		q->heads[i] &= ~bit;
	q->head0 &= ~bit;
	return 1;
}

/* The ring index a head (phase bit cleared) names, as written. */
uint32_t cal_pos_of(enum unit u, uint32_t es, uint32_t n, uint32_t h)
{
	return n ? (u == U_BYTE ? h / es : h) % n : 0;
}

/*
 * Where the device wrote the queue's first entry (the first non-zero byte
 * of the ring at a head write: a ring in new memory starts zeroed) and how
 * far the head lags the entries consumed: at each head write before the
 * device wrapped, the entries written (from the ring's bytes) less the
 * entries the head passed. The smallest such gap is the lag when the
 * runtime at some head write had consumed all that was written (the
 * calibration workload does, and the 2.1.5 runtime's head write at
 * programming, before any entry, does too). Rings over 16 KiB are not
 * measured (the log keeps their first 16 KiB), nor rings in device memory,
 * which the driver does not clear: a chunk used before holds old entries.
 */
void cal_infer_more(struct cq *q, enum unit u, uint32_t es)
{
	uint32_t n = es ? q->size / es : 0;
	int64_t minlag = -1;
	size_t i;

	q->lag_entries = -1;
	q->start = -1;
	if (!q->have_type || !q->fresh || !n || q->size > 16384 || !q->on_host)
		return;
	for (i = 0; i < q->nheads; i++)
		if (q->end[i]) {
			q->start = (int)(q->first[i] / es);
			break;
		}
	if (q->start < 0)
		return;
	for (i = 0; i < q->nheads; i++) {
		uint32_t w, p, gap;

		if (q->end[i] && (q->first[i] / es != (uint32_t)q->start ||
				  q->end[i] - q->first[i] > q->size - es))
			break;	/* the device wrapped */
		w = q->end[i] ? (q->end[i] - q->first[i] + es - 1) / es : 0;
		p = cal_pos_of(u, es, n, q->heads[i]);
		gap = ((uint32_t)q->start + w + n - p) % n;
		if (minlag < 0 || gap < minlag)
			minlag = gap;
	}
	q->lag_entries = (int)minlag;
}

const char *const cal_type_names[6] = { "TRACE", "NOTIFY", "EVENT", "ERROR", "TRACE_DMA",
					    "THROTTLE" };

/*
 * Head writes to a register set no queue was programmed in, whose set
 * decodes (type set / 16, engine set % 16) to a queue that was: the runtime
 * writes heads where the vendor's decoder reads them. Their heads join that
 * queue. Returns how many such sets; *@own counts queues other than TRACE
 * and TRACE_DMA with head writes in their own set.
 */
int cal_merge_typed(unsigned int arch, int *own)
{
	size_t i, j;
	int typed = 0;

	*own = 0;
	for (i = 0; i < cal_nqueues; i++) {
		struct cq *h = &cal_queues[i], *q = NULL;
		unsigned int a = h->dev < 64 && cal_dev_arch[h->dev] ? cal_dev_arch[h->dev] : 2;

		if (a != arch)
			continue;
		if (h->have_type && h->nheads && h->nq_type != 0 && h->nq_type != 4 && !h->sdma)
			(*own)++;
		if (h->have_size || !h->nheads || h->sdma || h->reg < 16)
			continue;
		for (j = 0; j < cal_nqueues; j++)
			if (cal_queues[j].have_type && cal_queues[j].dev == h->dev && !cal_queues[j].sdma &&
			    !strcmp(cal_queues[j].target, h->target) && cal_queues[j].id == h->id &&
			    cal_queues[j].reg == h->reg % 16 && cal_queues[j].nq_type == h->reg / 16)
				q = &cal_queues[j];
		if (!q)
			continue;
		typed++;
		if (!q->nheads) {
			/* Swap the evidence: the programmed queue's are the typed set's. */
			struct cq tmp = *q;

			q->heads = h->heads;
			q->first = h->first;
			q->end = h->end;
			q->nheads = h->nheads;
			q->cap = h->cap;
			h->heads = tmp.heads;
			h->first = tmp.first;
			h->end = tmp.end;
			h->nheads = tmp.nheads;
			h->cap = tmp.cap;
		}
	}
	return typed;
}

/* Infer and print; 0 when every fact of every architecture seen was decided. */
