// SPDX-License-Identifier: MIT
/*
 * neuronprof calibrate: the first run on a Neuron instance measures the two
 * facts about notification queues that public information does not give
 * (Documentation/hardware.rst): the bytes of a queue entry and what a head
 * register holds. neuronprof_neuron's calibration mode logs every queue the
 * vendor driver programs (its size), every head write the runtime makes
 * (its value) and the ring's bytes at the last head write; from those this
 * command infers the head unit (entry index, byte offset or free-running
 * counter: from wrap points and strides) and the entry size (from the
 * stride and wrap point of the heads, and from the period of the ring's
 * bytes), prints the module parameters to set with how sure it is, and
 * writes a report file to attach to a bug. With too few head writes, or
 * evidence that does not decide, it says "not enough data" and names what
 * is missing rather than guessing.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/options.h"
#include "tool.h"

#define CAL_PARAM "/sys/module/neuronprof_neuron/parameters/calibrate"
#define CAL_LOG "/sys/kernel/debug/neuronprof_neuron/calibration"
#define MIN_HEADS 8
#define MAX_QUEUES 512


enum unit { U_UNKNOWN = -1, U_INDEX = 0, U_BYTE = 1, U_COUNTER = 2 };
static const char *const unit_names[] = { "entry index", "byte offset", "free-running counter" };

struct cq {
	char key[64];		/* DEV TARGET ID SDMA INSTANCE REG */
	unsigned int dev, id, sdma, reg;
	char target[8];
	uint32_t size;
	int on_host, have_size;
	/* From the queue line (log 2): type, engine, head register, in new memory. */
	int have_type;
	unsigned int nq_type, engine, fresh;
	uint32_t head0;
	uint32_t *heads, *first, *end;	/* end 0: no ring bytes at that write */
	size_t nheads, cap;
	uint8_t *ring;
	size_t ring_len;
	/* Inferred by infer_more(). */
	int phase_bit;			/* -1 none, else the bit */
	int read_eq, read_ne;		/* handed out again: register = last head written, or not */
	int lag_entries;		/* -1 not measured */
	int start;			/* ring index of the device's first entry, -1 unknown */
};

struct verdict {
	enum unit unit;
	uint32_t entry_size;	/* 0: not determined */
	const char *why;	/* when not decided */
	char detail[160];
};

static struct cq queues[MAX_QUEUES];
static size_t nqueues;
static unsigned int dev_arch[64];

static struct cq *cq_get(const char *key, unsigned int dev)
{
	size_t i;

	for (i = 0; i < nqueues; i++)
		if (!strcmp(queues[i].key, key))
			return &queues[i];
	if (nqueues == MAX_QUEUES)
		return NULL;
	memset(&queues[nqueues], 0, sizeof(queues[0]));
	snprintf(queues[nqueues].key, sizeof(queues[0].key), "%s", key);
	queues[nqueues].dev = dev;
	queues[nqueues].phase_bit = -1;
	queues[nqueues].lag_entries = -1;
	queues[nqueues].start = -1;
	return &queues[nqueues++];
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Parse one line of the log; 0, or -1 for a line that is not one. */
static int parse_line(const char *line)
{
	char t[8], key[64], rest[16];
	unsigned int dev, id, sdma, inst, reg, ty, en, fr;
	unsigned long long a, b, c, d2;
	int n = 0;
	struct cq *q;

	if (line[0] == '#' || line[0] == '\n' || !line[0])
		return 0;
	if (sscanf(line, "device %u arch %llu", &dev, &a) == 2) {
		if (dev < 64)
			dev_arch[dev] = (unsigned int)a;
		return 0;
	}
	if (sscanf(line, "%15s %u %7s %u %u %u %u %n", rest, &dev, t, &id, &sdma, &inst, &reg, &n) < 7 || !n)
		return -1;
	snprintf(key, sizeof(key), "%u %s %u %u %u %u", dev, t, id, sdma, inst, reg);
	q = cq_get(key, dev);
	if (!q)
		return -1;
	q->id = id;
	q->sdma = sdma;
	q->reg = reg;
	snprintf(q->target, sizeof(q->target), "%s", t);
	line += n;
	if (!strcmp(rest, "queue")) {
		int k = sscanf(line, "%llu %llu %u %u %llu %u", &a, &b, &ty, &en, &c, &fr);

		if (k != 2 && k != 6)
			return -1;
		q->size = (uint32_t)a;
		q->on_host = (int)b;
		q->have_size = 1;
		q->have_type = k == 6;
		if (k == 6) {
			q->nq_type = ty;
			q->engine = en;
			q->head0 = (uint32_t)c;
			q->fresh = fr;
		}
		/* A queue programmed again starts its evidence again. */
		q->nheads = 0;
		q->ring_len = 0;
	} else if (!strcmp(rest, "head")) {
		int k = sscanf(line, "%llu %llu %llu %llu", &a, &b, &c, &d2);

		if (k < 1)
			return -1;
		if (q->nheads == q->cap) {
			q->cap = q->cap ? 2 * q->cap : 64;
			q->heads = xrealloc(q->heads, q->cap * sizeof(*q->heads));
			q->first = xrealloc(q->first, q->cap * sizeof(*q->first));
			q->end = xrealloc(q->end, q->cap * sizeof(*q->end));
		}
		q->first[q->nheads] = k == 4 ? (uint32_t)c : 0;
		q->end[q->nheads] = k == 4 ? (uint32_t)d2 : 0;
		q->heads[q->nheads++] = (uint32_t)a;
	} else if (!strcmp(rest, "again")) {
		/* Handed out again after N head writes: does a read give the last one? */
		if (sscanf(line, "%llu %llu", &a, &b) != 2)
			return -1;
		if (b && b <= q->nheads) {
			if ((uint32_t)a == q->heads[b - 1])
				q->read_eq++;
			else
				q->read_ne++;
		}
	} else if (!strcmp(rest, "ring")) {
		size_t len = strcspn(line, " \n"), i;

		free(q->ring);
		q->ring = xcalloc(len / 2 + 1, 1);
		for (i = 0; i + 1 < len; i += 2) {
			int hi = hexval(line[i]), lo = hexval(line[i + 1]);

			if (hi < 0 || lo < 0)
				return -1;
			q->ring[i / 2] = (uint8_t)(hi << 4 | lo);
		}
		q->ring_len = len / 2;
	} else {
		return -1;
	}
	return 0;
}

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

static void infer(const struct cq *q, struct verdict *v)
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
static int find_phase(struct cq *q, int known)
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
static uint32_t pos_of(enum unit u, uint32_t es, uint32_t n, uint32_t h)
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
static void infer_more(struct cq *q, enum unit u, uint32_t es)
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
		p = pos_of(u, es, n, q->heads[i]);
		gap = ((uint32_t)q->start + w + n - p) % n;
		if (minlag < 0 || gap < minlag)
			minlag = gap;
	}
	q->lag_entries = (int)minlag;
}

static const char *const type_names[6] = { "TRACE", "NOTIFY", "EVENT", "ERROR", "TRACE_DMA",
					    "THROTTLE" };

/*
 * Head writes to a register set no queue was programmed in, whose set
 * decodes (type set / 16, engine set % 16) to a queue that was: the runtime
 * writes heads where the vendor's decoder reads them. Their heads join that
 * queue. Returns how many such sets; *@own counts queues other than TRACE
 * and TRACE_DMA with head writes in their own set.
 */
static int merge_typed(unsigned int arch, int *own)
{
	size_t i, j;
	int typed = 0;

	*own = 0;
	for (i = 0; i < nqueues; i++) {
		struct cq *h = &queues[i], *q = NULL;
		unsigned int a = h->dev < 64 && dev_arch[h->dev] ? dev_arch[h->dev] : 2;

		if (a != arch)
			continue;
		if (h->have_type && h->nheads && h->nq_type != 0 && h->nq_type != 4 && !h->sdma)
			(*own)++;
		if (h->have_size || !h->nheads || h->sdma || h->reg < 16)
			continue;
		for (j = 0; j < nqueues; j++)
			if (queues[j].have_type && queues[j].dev == h->dev && !queues[j].sdma &&
			    !strcmp(queues[j].target, h->target) && queues[j].id == h->id &&
			    queues[j].reg == h->reg % 16 && queues[j].nq_type == h->reg / 16)
				q = &queues[j];
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
static int report(FILE *out, FILE *conf)
{
	unsigned int arch;
	int undecided = 0, any = 0;

	for (arch = 2; arch <= 3; arch++) {
		int votes[3][512] = { { 0 } };
		int nq = 0, u, e, bu = -1, be = -1, best = 0, total = 0, own, typed;
		uint32_t tes[6] = { 0 };
		int tconf[6] = { 0 }, lag = -1, lagq = 0, phase = -1, phaseq = 0, nophase = 0;
		int from_head = 0, from_reset = 0, reset_head = -1, head_differs = 0;
		int64_t reset_raw = -1;
		int bad = 0, read_eq = 0, read_ne = 0;
		char seen_not[64] = "";
		size_t i;

		typed = merge_typed(arch, &own);
		for (i = 0; i < nqueues; i++) {
			unsigned int a = queues[i].dev < 64 && dev_arch[queues[i].dev] ?
					 dev_arch[queues[i].dev] : 2;

			if (a == arch) {
				read_eq += queues[i].read_eq;
				read_ne += queues[i].read_ne;
			}
		}
		/* The phase bit: first where it shows twice, then where it may show less. */
		for (i = 0, u = -1; i < nqueues; i++) {
			struct cq *q = &queues[i];
			unsigned int a = q->dev < 64 && dev_arch[q->dev] ? dev_arch[q->dev] : 2;

			if (a == arch && q->nheads >= MIN_HEADS && find_phase(q, -1))
				u = q->phase_bit;
		}
		for (i = 0; i < nqueues && u >= 0; i++) {
			unsigned int a = queues[i].dev < 64 && dev_arch[queues[i].dev] ?
					 dev_arch[queues[i].dev] : 2;

			if (a == arch)
				find_phase(&queues[i], u);
		}
		for (i = 0; i < nqueues; i++) {
			struct cq *q = &queues[i];
			struct verdict v;
			unsigned int a = q->dev < 64 && dev_arch[q->dev] ? dev_arch[q->dev] : 2;

			if (a != arch || !q->have_size || (!q->nheads && !q->have_type))
				continue;
			nq++;
			infer(q, &v);
			if (v.why) {
				fprintf(out, "  queue %s: %s%s%s\n", q->key,
					v.unit == U_UNKNOWN ? "" : unit_names[v.unit],
					v.unit == U_UNKNOWN ? "" : "; ", v.why);
				continue;
			}
			fprintf(out, "  queue %s%s%s: %s, %u-byte entries (%s)%s\n", q->key,
				q->have_type ? " " : "", q->have_type && q->nq_type < 6 ?
				type_names[q->nq_type] : "", unit_names[v.unit], v.entry_size,
				v.detail, q->phase_bit >= 0 ? "; phase bit flips on each wrap" : "");
			votes[v.unit][v.entry_size / 32 < 512 ? v.entry_size / 32 : 511]++;
			total++;
			if (q->have_type && q->nq_type < 6) {
				if (tes[q->nq_type] && tes[q->nq_type] != v.entry_size)
					bad = 1;
				tes[q->nq_type] = v.entry_size;
				tconf[q->nq_type]++;
			}
		}
		if (!nq)
			continue;
		any = 1;
		for (u = 0; u < 3; u++)
			for (e = 0; e < 512; e++)
				if (votes[u][e] > best) {
					best = votes[u][e];
					bu = u;
					be = e;
				}
		if (!best) {
			fprintf(out, "v%u: not enough data: no queue decided (see above); run a workload that consumes at least two rings' worth of entries\n",
				arch);
			undecided = 1;
			continue;
		}
		/* One head unit for every queue; entry sizes may differ per type. */
		for (e = 0, u = 0; e < 512; e++)
			u += votes[bu][e];
		if (u != total || bad) {
			fprintf(out, "v%u: the queues disagree on the head unit, or queues of one type on the entry size (see above)\n",
				arch);
			undecided = 1;
			continue;
		}
		if (tes[0])
			be = (int)(tes[0] / 32);
		fprintf(out, "v%u: %s, %u-byte entries (TRACE's, else the most common), from %d queues that agree on the unit (confidence %s)\n",
			arch, unit_names[bu], be * 32, total, total >= 2 ? "high" : "medium");
		for (i = 0; i < 6; i++)
			if (tes[i])
				fprintf(out, "v%u: %s entries %u bytes (%d queue%s)\n", arch, type_names[i],
					tes[i], tconf[i], tconf[i] == 1 ? "" : "s");
			else
				snprintf(seen_not + strlen(seen_not), sizeof(seen_not) - strlen(seen_not),
					 "%s%s", seen_not[0] ? ", " : "", type_names[i]);
		if (seen_not[0])
			fprintf(out, "v%u: not measured (no queue of the type): %s; they get entry_size_v%u\n",
				arch, seen_not, arch);

		/* The further facts, from the queues decided. */
		for (i = 0; i < nqueues; i++) {
			struct cq *q = &queues[i];
			unsigned int a = q->dev < 64 && dev_arch[q->dev] ? dev_arch[q->dev] : 2;
			uint32_t es = q->have_type && q->nq_type < 6 && tes[q->nq_type] ?
				      tes[q->nq_type] : (uint32_t)be * 32, n, h;
			int wraps = 0;
			size_t k;

			if (a != arch || !q->have_size || q->nheads < MIN_HEADS || !es)
				continue;
			n = q->size / es;
			for (k = 1; k < q->nheads; k++)
				wraps += (int32_t)(q->heads[k] - q->heads[k - 1]) < 0;
			if (q->phase_bit >= 0) {
				if (phase >= 0 && phase != q->phase_bit)
					phase = -2;
				else if (phase != -2)
					phase = q->phase_bit;
				phaseq++;
			} else if (wraps >= 2 && bu != U_COUNTER) {
				nophase++;
			}
			infer_more(q, (enum unit)bu, es);
			if (q->lag_entries >= 0) {
				int l = q->lag_entries * (int)es;

				if (lag >= 0 && lag != l)
					lag = -2;
				else if (lag != -2)
					lag = l;
				lagq++;
			}
			if (q->start < 0)
				continue;
			h = pos_of((enum unit)bu, es, n, q->head0);
			/*
			 * Item 7: written from where its head register pointed,
			 * or not; those that were all had one register value
			 * (after a reset) or not.
			 */
			if (h == (uint32_t)q->start) {
				from_head++;
				if (reset_raw < 0)
					reset_raw = q->head0;
				else if (reset_raw != q->head0)
					head_differs = 1;
			} else {
				from_reset++;
			}
		}
		/* Written from the reset's start: each of those at the others' register value. */
		for (i = 0; i < nqueues && from_reset && reset_raw >= 0; i++) {
			struct cq *q = &queues[i];
			uint32_t es = q->have_type && q->nq_type < 6 && tes[q->nq_type] ?
				      tes[q->nq_type] : (uint32_t)be * 32;

			if (q->have_size && q->start >= 0 && pos_of((enum unit)bu, es, q->size / es, q->head0) != (uint32_t)q->start &&
			    pos_of((enum unit)bu, es, q->size / es, (uint32_t)reset_raw) != (uint32_t)q->start)
				head_differs = 1;
		}
		if (from_reset && !head_differs)
			reset_head = (int)reset_raw;
		if (phase == -2 || (phaseq && nophase)) {
			fprintf(out, "v%u: phase bit: the queues disagree (%d with one, %d wrapping twice without)\n",
				arch, phaseq, nophase);
			undecided = 1;
		} else if (phaseq) {
			fprintf(out, "v%u: phase bit %d flips on each wrap of the head (%d queues)\n", arch,
				phase, phaseq);
		} else if (nophase || bu == U_COUNTER) {
			phase = 0;
			fprintf(out, "v%u: no phase bit (%s)\n", arch, bu == U_COUNTER ?
				"a counter does not wrap" : "heads wrapped twice with no bit flipping");
		} else {
			fprintf(out, "v%u: phase bit: not enough data: no queue's head wrapped twice\n", arch);
			undecided = 1;
		}
		if (lag == -2) {
			fprintf(out, "v%u: head lag: the queues disagree\n", arch);
			undecided = 1;
		} else if (lag < 0) {
			fprintf(out, "v%u: head lag: not enough data: no head write to a queue in new host memory of at most 16 KiB before the device wrapped it (a device-memory ring may hold old entries)\n",
				arch);
			undecided = 1;
		} else {
			fprintf(out, "v%u: the head lags the consumed entries by %d bytes (%d queues; %s)\n",
				arch, lag, lagq, lag == 0 ? "it names the next entry to read" :
				lag == be * 32 ? "it names the last entry read" : "2.1.5 kept such a gap");
		}
		if (typed && !own) {
			fprintf(out, "v%u: heads are written to register set type * 16 + engine (%d sets no queue was programmed in)\n",
				arch, typed);
		} else if (own && !typed) {
			fprintf(out, "v%u: heads are written to the register set the driver programmed (%d queues other than TRACE and TRACE_DMA)\n",
				arch, own);
		} else {
			fprintf(out, "v%u: register sets of heads: %s\n", arch, own ?
				"the queues disagree" :
				"not enough data: no head write of a queue other than TRACE or TRACE_DMA");
			undecided = 1;
		}
		if (from_reset && from_head && !head_differs) {
			fprintf(out, "v%u: a queue programmed in new memory is written from the reset's start (%d queues programmed again without a reset; head register %d after a reset)\n",
				arch, from_reset, reset_head);
		} else if (from_head && !from_reset && head_differs) {
			reset_head = -1;
			fprintf(out, "v%u: a queue programmed in new memory is written from where its head register points (%d queues)\n",
				arch, from_head);
		} else {
			fprintf(out, "v%u: where a queue programmed again without a reset is written: %s\n",
				arch, from_reset && !from_head ?
				"not enough data: no queue programmed after a reset to compare with" :
				from_reset ? "the queues disagree" :
				"not enough data: every queue was programmed with its head at one place (program one again without a reset)");
			undecided = 1;
		}
		/* A read of the head register: only where heads are written to it. */
		if (typed && !own) {
			read_eq = 0;
			fprintf(out, "v%u: a read of a head register does not return the runtime's head (it writes other register sets)\n",
				arch);
		} else if (read_eq && !read_ne) {
			fprintf(out, "v%u: a read of a head register returns the last head written (%d queues handed out again)\n",
				arch, read_eq);
		} else if (read_ne) {
			read_eq = 0;
			fprintf(out, "v%u: a read of a head register does not return the last head written (%d of %d queues handed out again)\n",
				arch, read_ne, read_ne + read_eq);
		} else {
			fprintf(out, "v%u: what a read of a head register returns: not enough data: no queue was handed out again (NOTIFICATIONS_INIT without reallocation) after head writes\n",
				arch);
			undecided = 1;
		}
		if (undecided)
			continue;
		fprintf(out, "set: modprobe neuronprof_neuron entry_size_v%u=%u head_mode_v%u=%d type_entry_size_v%u=%u,%u,%u,%u,%u,%u head_lag_v%u=%d phase_bit_v%u=%d head_sets_v%u=%d reprogram_v%u=%d reset_head_v%u=%d head_read_v%u=%d\n",
			arch, be * 32, arch, bu, arch, tes[0], tes[1], tes[2], tes[3], tes[4], tes[5],
			arch, lag, arch, phase, arch, typed ? 1 : 0, arch, reset_head >= 0 ? 1 : 0,
			arch, reset_head >= 0 ? reset_head : 0, arch, read_eq ? 1 : 0);
		if (conf)
			fprintf(conf, "entry_size_v%u=%u head_mode_v%u=%d type_entry_size_v%u=%u,%u,%u,%u,%u,%u head_lag_v%u=%d phase_bit_v%u=%d head_sets_v%u=%d reprogram_v%u=%d reset_head_v%u=%d head_read_v%u=%d ",
				arch, be * 32, arch, bu, arch, tes[0], tes[1], tes[2], tes[3], tes[4],
				tes[5], arch, lag, arch, phase, arch, typed ? 1 : 0, arch,
				reset_head >= 0 ? 1 : 0, arch, reset_head >= 0 ? reset_head : 0, arch,
				read_eq ? 1 : 0);
	}
	if (!any) {
		fprintf(out, "not enough data: the log holds no queue (was a workload running?)\n");
		return 1;
	}
	return undecided;
}

static int read_log(const char *path, char **text, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0, n = 0;
	ssize_t r;
	unsigned long lineno = 0;

	if (!f) {
		fprintf(stderr, "neuronprof calibrate: %s: %s\n", path, strerror(errno));
		return -1;
	}
	*text = NULL;
	*len = 0;
	while ((r = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (parse_line(line)) {
			fprintf(stderr, "neuronprof calibrate: %s:%lu: not a calibration log line: %.60s\n",
				path, lineno, line);
			free(line);
			if (f != stdin)
				fclose(f);
			return -1;
		}
		*text = xrealloc(*text, n + (size_t)r + 1);
		memcpy(*text + n, line, (size_t)r + 1);
		n += (size_t)r;
	}
	*len = n;
	free(line);
	if (f != stdin)
		fclose(f);
	return 0;
}

static int set_param(const char *v)
{
	FILE *f = fopen(CAL_PARAM, "w");

	if (!f || fputs(v, f) < 0 || fclose(f)) {
		fprintf(stderr, "neuronprof calibrate: %s: %s (is neuronprof_neuron loaded, and are you root?)\n",
			CAL_PARAM, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

/* --apply: each NAME=VALUE of @params into /sys/module/neuronprof_neuron/parameters/NAME. */
static int apply_config(const char *params)
{
	char *copy = xstrdup(params), *tok, *save = NULL;
	int ret = 0;

	for (tok = strtok_r(copy, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		char path[128], *eq = strchr(tok, '=');
		FILE *f;

		if (!eq)
			continue;
		*eq = 0;
		snprintf(path, sizeof(path), "/sys/module/neuronprof_neuron/parameters/%s", tok);
		f = fopen(path, "w");
		if (!f || fprintf(f, "%s\n", eq + 1) < 0 || fclose(f)) {
			fprintf(stderr, "neuronprof calibrate: --apply: %s: %s\n", path, strerror(errno));
			ret = -1;
			f = NULL;
		}
	}
	if (!ret)
		fprintf(stderr, "neuronprof calibrate: applied; devices added from now on use it (rmmod neuronprof_neuron; modprobe neuronprof_neuron)\n");
	free(copy);
	return ret;
}

int cmd_calibrate(int argc, char **argv)
{
	const char *from = NULL, *outp = "neuronprof-calibration.txt", *config = NULL;
	bool apply = false;
	uint64_t duration_ns = 10000000000ULL;
	double duration;
	char *text = NULL;
	size_t len = 0;
	int rc;
	FILE *out;
	const struct opt opts[] = {
		OPT_SECONDS(0, "duration", &duration_ns, 1000000, 86400 * 1000000000ULL,
			    "log for SEC seconds (default 10), or until COMMAND ends"),
		OPT_STRING(0, "from", &from, "LOG", "infer from a calibration log saved earlier"),
		OPT_STRING(0, "config", &config, "FILE",
			   "write the provider's configuration there when every fact\n"
			   "was decided (an options line for /etc/modprobe.d/)"),
		OPT_BOOL(0, "apply", &apply,
			 "set the decided facts as neuronprof_neuron's parameters;\n"
			 "devices added afterwards use them (reload the module)"),
		OPT_STRING('o', "output", &outp, "REPORT",
			   "write the report (verdict and log) to REPORT\n"
			   "(default neuronprof-calibration.txt; - for none)"),
		OPT_END(),
	};

	if (opts_parse(argc, argv, opts, NULL, &rc))
		return rc;
	duration = duration_ns / 1e9;
	if (from && optind < argc) {
		return usage_error("--from reads a log; it runs no command");
	}
	if (!from) {
		pid_t pid = 0;

		if (set_param("1\n"))
			return 1;
		if (optind < argc) {
			pid = fork();
			if (pid == 0) {
				execvp(argv[optind], argv + optind);
				fprintf(stderr, "neuronprof calibrate: %s: %s\n", argv[optind], strerror(errno));
				_exit(127);
			}
		}
		fprintf(stderr, "neuronprof calibrate: logging head writes for %s%gs...\n",
			pid > 0 ? "the command or " : "", duration);
		for (double t = 0; t < duration; t += 0.1) {
			struct timespec ts = { 0, 100000000 };

			if (pid > 0 && waitpid(pid, NULL, WNOHANG) == pid) {
				pid = 0;
				break;
			}
			nanosleep(&ts, NULL);
		}
		if (pid > 0) {
			kill(pid, SIGTERM);
			waitpid(pid, NULL, 0);
		}
		rc = read_log(CAL_LOG, &text, &len);
		set_param("0\n");
		if (rc)
			return 1;
	} else if (read_log(from, &text, &len)) {
		return 1;
	}

	/* Inference changes the evidence (phase bits cleared, sets merged): once. */
	char *buf = NULL, *cbuf = NULL, *line, *save = NULL;
	size_t blen = 0, clen = 0;
	FILE *mem = open_memstream(&buf, &blen), *cmem = open_memstream(&cbuf, &clen);

	if (!mem || !cmem) {
		fprintf(stderr, "neuronprof calibrate: %s\n", strerror(errno));
		return 1;
	}
	rc = report(mem, cmem);
	fclose(mem);
	fclose(cmem);
	fputs(buf, stdout);
	if (config) {
		FILE *cf = fopen(config, "w");

		/* Only a decided configuration is written; an undecided run leaves it empty. */
		if (!cf || (!rc && fprintf(cf, "# neuronprof calibrate\noptions neuronprof_neuron %s\n",
					   cbuf) < 0) || fclose(cf)) {
			fprintf(stderr, "neuronprof calibrate: %s: %s\n", config, strerror(errno));
			rc = 1;
		} else if (!rc) {
			fprintf(stderr, "neuronprof calibrate: configuration written to %s (modprobe.d format)\n",
				config);
		}
	}
	if (apply && !rc && apply_config(cbuf))
		rc = 1;
	free(cbuf);
	if (strcmp(outp, "-")) {
		out = fopen(outp, "w");
		if (!out) {
			fprintf(stderr, "neuronprof calibrate: %s: %s\n", outp, strerror(errno));
			free(text);
			free(buf);
			return 1;
		}
		fprintf(out, "# neuronprof calibrate report\n");
		for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(out, "# %s\n", line);
		if (len)
			fwrite(text, 1, len, out);
		if (fclose(out)) {
			fprintf(stderr, "neuronprof calibrate: %s: %s\n", outp, strerror(errno));
			rc = 1;
		} else {
			fprintf(stderr, "neuronprof calibrate: report written to %s\n", outp);
		}
	}
	free(buf);
	free(text);
	for (size_t i = 0; i < nqueues; i++) {
		free(queues[i].heads);
		free(queues[i].first);
		free(queues[i].end);
		free(queues[i].ring);
	}
	return rc ? 1 : 0;
}
