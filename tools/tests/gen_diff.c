// SPDX-License-Identifier: MIT
/*
 * Writes one recording for the tests of `neuronprof diff` with the
 * library's NTFF writer: a session directory of two NeuronCores of a trn1
 * sim device, DIR/profile_nc_C_session_0.ntff for C = 0, 1, whose
 * durations are drawn from a seeded generator (xorshift64*), so that two
 * seeds give two runs of the same workload and the same seed the same
 * recording.
 *
 * Usage: gen_diff [--seed S] [--executions N] [--planted] DIR
 *
 * Core C runs N executions (default 100) of model 11 + C, each one
 * inference: INFER_STATUS start; 200 ns later an EVENT start/end pair on
 * engine 0 around TRACE ops 0x401, 0x402, 0x403, then 50 ns later one on
 * engine 1 around 0x501, 0x502, 0x503; a DMA of 4096 bytes on engine 0;
 * 50 ns later an idle tail of 2000 ns +- 100 ns; INFER_STATUS stop; 1000
 * ns to the next execution. Op 0x(4+e)0i lasts 400 + 200 i + 100 e ns
 * times a factor drawn uniformly from [0.9, 1.1) (the next TRACE starts
 * when it ends, the last one ends its EVENT window), so a model's mean
 * latency is 7400 ns.
 *
 * --planted: the regression diff must find, and nothing else:
 *  - op 0x402 of engine 0 on core 1 lasts 15% longer; core 1's idle tail
 *    is shortened by the time added, so model 12's latency is unchanged;
 *  - model 11 (core 0) has 370 ns (5% of 7400 ns) more idle tail: its
 *    latency is 5% longer, its ops unchanged;
 *  - a new op 0x5ff on engine 1 of core 0 after 0x503, of 300 ns times
 *    the factor, whose time is taken from core 0's tail (so model 11 is
 *    still exactly 5% slower).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#include "gen_util.h"

#define MAX_QUEUES	8

struct queue {
	uint32_t qt, engine;
	uint64_t seq;
	struct neuronprof_notification *e;
	size_t n, cap;
};

struct core {
	uint32_t core;
	struct queue q[MAX_QUEUES];
	int nq;
	uint64_t rng;
};

/* xorshift64*: a factor uniform in [0.9, 1.1). */
static double factor(struct core *c)
{
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return 0.9 + 0.2 * (double)((c->rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void emit(struct core *c, uint32_t qt, uint32_t engine, uint64_t ts, uint32_t code,
		 uint64_t p0)
{
	struct queue *q = NULL;
	struct neuronprof_notification *n;

	for (int i = 0; i < c->nq; i++)
		if (c->q[i].qt == qt && c->q[i].engine == engine)
			q = &c->q[i];
	if (!q) {
		q = gen_new_queue(c->q, &c->nq, MAX_QUEUES, sizeof(*q));
		q->qt = qt;
		q->engine = engine;
	}
	n = gen_push(&q->e, &q->n, &q->cap, 64);
	n->timestamp_ns = ts;
	n->seq = q->seq++;
	n->queue_type = (uint16_t)qt;
	n->engine = (uint16_t)engine;
	n->code = code;
	n->model_id = 11 + c->core;
	n->payload[0] = p0;
}

static void run_core(struct core *c, uint64_t execs, bool planted)
{
	uint64_t t = 1000000;

	for (uint64_t x = 0; x < execs; x++) {
		double tail = 2000;

		emit(c, NEURONPROF_QT_INFER_STATUS, 0, t, NEURONPROF_INFER_START, 1);
		t += 200;
		for (uint32_t e = 0; e < 2; e++) {
			emit(c, NEURONPROF_QT_EVENT, e, t, 1, 3);
			for (uint32_t i = 1; i <= 3; i++) {
				double d = (400 + 200 * i + 100 * e) * factor(c);

				if (planted && c->core == 1 && e == 0 && i == 2) {
					tail -= 0.15 * d;
					d *= 1.15;
				}
				emit(c, NEURONPROF_QT_TRACE, e, t, ((4 + e) << 8) | i, 16 * i);
				t += (uint64_t)(d + 0.5);
			}
			if (planted && c->core == 0 && e == 1) {
				double d = 300 * factor(c);

				emit(c, NEURONPROF_QT_TRACE, e, t, 0x5ff, 0);
				t += (uint64_t)(d + 0.5);
				tail -= d;
			}
			emit(c, NEURONPROF_QT_EVENT, e, t, 2, 0);
			t += 50;
		}
		emit(c, NEURONPROF_QT_DMA, 0, t, 0, 4096);
		if (planted && c->core == 0)
			tail += 370;
		tail += 1000 * (factor(c) - 1);		/* +- 100 ns */
		t += (uint64_t)(tail + 0.5);
		emit(c, NEURONPROF_QT_INFER_STATUS, 0, t, NEURONPROF_INFER_STOP, 0);
		t += 1000;
	}
}

static void write_core(struct core *c, const char *dir)
{
	struct nprof_ntff_info info = {
		.size = sizeof(info),
		.pid = 4242,
		.core = c->core,
		.capture_kind = NPROF_NTFF_CAPTURE_SESSION,
		.clock_id = CLOCK_MONOTONIC,
		.session_id = 0,
		.instance_id = "i-0d1ff0000000000001",
		.hostname = "diff-host",
		.start_ns = 1000000,
		.device = gen_trn1_sim(NEURONPROF_UAPI_VERSION),
	};
	char name[64];
	struct nprof_ntff_writer *w;

	snprintf(name, sizeof(name), "profile_nc_%u_session_0.ntff", c->core);
	w = nprof_ntff_writer_create(dir, name, 0);
	if (!w)
		gen_die(name);
	for (int i = 0; i < c->nq; i++)
		if (c->q[i].n && c->q[i].e[c->q[i].n - 1].timestamp_ns + 1000 > info.stop_ns)
			info.stop_ns = c->q[i].e[c->q[i].n - 1].timestamp_ns + 1000;
	if (nprof_ntff_writer_set_info(w, &info))
		gen_die("set_info");
	for (int i = 0; i < c->nq; i++) {
		struct nprof_ntff_queue_desc d = {
			.size = sizeof(d),
			.queue_type = c->q[i].qt,
			.target_kind = NEURONPROF_TARGET_CORE,
			.target_index = c->core,
			.engine = c->q[i].engine,
			.entry_size = ENTRY,
		};

		if (nprof_ntff_writer_append(w, &d, c->q[i].e, c->q[i].n * ENTRY, NULL, 0) < 0)
			gen_die("append");
		free(c->q[i].e);
	}
	if (nprof_ntff_writer_finalize(w))
		gen_die("finalize");
}

static const char usage[] = "usage: gen_diff [--seed S] [--executions N] [--planted] DIR\n";

int main(int argc, char **argv)
{
	uint64_t seed = 1, execs = 100;
	bool planted = false;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--planted")) {
			planted = true;
		} else if (i + 1 < argc && !strcmp(argv[i], "--seed")) {
			seed = strtoull(argv[++i], NULL, 0);
		} else if (i + 1 < argc && !strcmp(argv[i], "--executions")) {
			execs = strtoull(argv[++i], NULL, 0);
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (i != argc - 1 || !execs) {
		fputs(usage, stderr);
		return 2;
	}
	if (mkdir(argv[i], 0755) && errno != EEXIST)
		gen_die(argv[i]);
	for (uint32_t k = 0; k < 2; k++) {
		struct core c = { .core = k };

		c.rng = (seed + 1) * 0x9e3779b97f4a7c15ull + k * 0xbf58476d1ce4e5b9ull;
		if (!c.rng)
			c.rng = 1;
		run_core(&c, execs, planted);
		write_core(&c, argv[i]);
	}
	return 0;
}
