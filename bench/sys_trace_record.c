// SPDX-License-Identifier: MIT
/*
 * sys_trace_record: what a program pays to record one system-trace event
 * with its timestamp, that is one nprof_sys_trace_now() read for the event
 * plus nprof_sys_trace_record(), against one clock_gettime(CLOCK_MONOTONIC)
 * alone, the cheapest way to learn the time (the target being <= 1.0x,
 * issue 20). nprof_sys_trace_now() reads the TSC where the kernel says it
 * is exact and clock_gettime() otherwise; the first line names the path
 * this run measured and why (Documentation/sys_trace.rst, "The clock").
 * Each event spans from the previous event's timestamp to its own, so one
 * clock read per event is all a stream of back-to-back events needs; the
 * clock read is never precomputed.
 *
 * Measured single-threaded and with one thread per online CPU recording at
 * once, each thread into its own core's ring (the normal case: a runtime
 * thread drives one NeuronCore). The baseline runs in the same
 * configuration right before, and each figure is the median of several
 * rounds, so noise on a shared machine mostly cancels out. The rings are
 * small and filled once before timing, so the figures are those of a trace
 * in steady state (pages present, oldest events being overwritten).
 *
 * Informational lines, each with its clock reads: the library's clock
 * alone, a complete begin/end pair (two clock reads plus the record), an
 * event with two attributes, a filtered-out event, and all threads
 * recording into the same core's ring (lock contention).
 *
 *   sys_trace_record [iterations per round]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/neuronprof.h>
#include <neuronprof/sys_trace.h>

#define ROUNDS		7
#define RING_EVENTS	65536
#define MAX_THREADS	256

enum op { OP_CLOCK, OP_NOW, OP_RECORD, OP_RECORD_ATTRS, OP_BEGIN_END, OP_FILTERED };

static uint64_t iters = 2000000;
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Run @op @iters times on ring @core; returns ns per operation. */
static double run_op(enum op op, uint32_t core)
{
	static const struct nprof_sys_trace_attr attrs[2] = {
		{ .key = "bytes", .type = NPROF_SYS_TRACE_ATTR_UINT, .v.u = 4096 },
		{ .key = "queue", .type = NPROF_SYS_TRACE_ATTR_INT, .v.i = 3 },
	};
	struct nprof_sys_trace_event ev;
	uint64_t t0, t1, t, prev, i, acc = 0;
	struct timespec ts;
	int r;

	memset(&ev, 0, sizeof(ev));
	ev.type = NPROF_EV_NRT_EXECUTE;
	ev.source = NPROF_SYS_TRACE_SRC_NEURON_RT;
	ev.core = core;
	ev.flags = NPROF_SYS_TRACE_F_MODEL_ID;
	ev.model_id = 7;
	ev.attrs = attrs;
	ev.nattrs = 2;
	t0 = now_ns();
	switch (op) {
	case OP_CLOCK:
		for (i = 0; i < iters; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			acc += (uint64_t)ts.tv_nsec;
		}
		break;
	case OP_NOW:
		for (i = 0; i < iters; i++)
			acc += nprof_sys_trace_now();
		break;
	case OP_RECORD:
		prev = nprof_sys_trace_now();
		for (i = 0; i < iters; i++) {
			t = nprof_sys_trace_now();
			r = nprof_sys_trace_record(NPROF_EV_NRT_EXECUTE, NPROF_SYS_TRACE_SRC_NEURON_RT,
						   core, prev, t);
			prev = t;
			acc += (uint64_t)r;
		}
		break;
	case OP_RECORD_ATTRS:
		prev = nprof_sys_trace_now();
		for (i = 0; i < iters; i++) {
			t = nprof_sys_trace_now();
			ev.start_ns = prev;
			ev.end_ns = t;
			prev = t;
			acc += (uint64_t)nprof_sys_trace_record_event(&ev);
		}
		break;
	case OP_BEGIN_END:
		for (i = 0; i < iters; i++) {
			nprof_sys_trace_begin(&ev, NPROF_EV_NRT_EXECUTE, NPROF_SYS_TRACE_SRC_NEURON_RT, core);
			acc += (uint64_t)nprof_sys_trace_end(&ev);
		}
		break;
	case OP_FILTERED:
		/* nrt_load is excluded from the configuration below. */
		prev = nprof_sys_trace_now();
		for (i = 0; i < iters; i++) {
			t = nprof_sys_trace_now();
			acc += (uint64_t)nprof_sys_trace_record(NPROF_EV_NRT_LOAD,
								NPROF_SYS_TRACE_SRC_NEURON_RT, core,
								prev, t);
			prev = t;
		}
		break;
	}
	t1 = now_ns();
	sink += acc;
	if ((op == OP_RECORD || op == OP_RECORD_ATTRS || op == OP_BEGIN_END) && acc != iters) {
		fprintf(stderr, "sys_trace_record: only %llu of %llu events were recorded\n",
			(unsigned long long)acc, (unsigned long long)iters);
		exit(1);
	}
	return (double)(t1 - t0) / (double)iters;
}

struct worker {
	pthread_t thread;
	pthread_barrier_t *start;
	enum op op;
	uint32_t core;
	double ns;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->start);
	w->ns = run_op(w->op, w->core);
	return NULL;
}

/* @n threads run @op at once; returns the mean of their ns per operation. */
static double run_threads(enum op op, int n, int same_core)
{
	static struct worker w[MAX_THREADS];
	pthread_barrier_t start;
	double sum = 0;
	int i;

	pthread_barrier_init(&start, NULL, (unsigned int)n);
	for (i = 0; i < n; i++) {
		w[i].start = &start;
		w[i].op = op;
		w[i].core = same_core ? 0 : (uint32_t)i;
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		sum += w[i].ns;
	}
	pthread_barrier_destroy(&start);
	return sum / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* Median over ROUNDS of (baseline, op) measured back to back. */
static void measure(enum op op, int threads, int same_core, double *base, double *cost)
{
	double b[ROUNDS], c[ROUNDS];
	int r;

	for (r = 0; r < ROUNDS; r++) {
		b[r] = run_threads(OP_CLOCK, threads, same_core);
		c[r] = run_threads(op, threads, same_core);
	}
	*base = median(b, ROUNDS);
	*cost = median(c, ROUNDS);
}

int main(int argc, char **argv)
{
	struct nprof_sys_trace_config *cfg;
	struct nprof_sys_trace_stats st = { .size = sizeof(st) };
	double b1, c1, bn, cn, b, c;
	char clock_why[256];
	const char *clock_name;
	int clock_kind;
	long nproc = sysconf(_SC_NPROCESSORS_ONLN);
	int threads, ret, i;

	if (argc > 1)
		iters = strtoull(argv[1], NULL, 10);
	if (!iters) {
		fprintf(stderr, "usage: sys_trace_record [iterations per round]\n");
		return 2;
	}
	threads = nproc < 1 ? 1 : nproc > MAX_THREADS ? MAX_THREADS : (int)nproc;

	cfg = nprof_sys_trace_config_allocate();
	if (!cfg || nprof_sys_trace_config_set_max_events_per_nc(cfg, RING_EVENTS) ||
	    nprof_sys_trace_config_set_capture_enabled_for_event_type(cfg, "nrt_load", false)) {
		fprintf(stderr, "sys_trace_record: config: %s\n", nprof_strerror_last());
		return 1;
	}
	ret = nprof_sys_trace_start(cfg);
	if (ret) {
		fprintf(stderr, "sys_trace_record: start: %s\n", nprof_strerror_last());
		return 1;
	}
	/* Fill every ring once: timing starts in steady state. */
	for (i = 0; i < threads; i++)
		for (int k = 0; k < RING_EVENTS; k++)
			nprof_sys_trace_record(NPROF_EV_NRT_EXECUTE, NPROF_SYS_TRACE_SRC_NEURON_RT,
					       (uint32_t)i, 1, 2);

	printf("iterations per round %llu, %d rounds (median), ring of %d events, %d CPUs\n",
	       (unsigned long long)iters, ROUNDS, RING_EVENTS, threads);
	clock_kind = nprof_sys_trace_clock(clock_why, sizeof(clock_why));
	clock_name = clock_kind == NPROF_SYS_TRACE_CLOCK_TSC ? "TSC" : "clock_gettime";
	printf("event clock: %s (%s)\n", clock_name, clock_why);

	measure(OP_RECORD, 1, 0, &b1, &c1);
	printf("1 thread:    clock_gettime %.2f ns, nprof_sys_trace_now + record %.2f ns\n", b1, c1);

	measure(OP_RECORD, threads, 0, &bn, &cn);
	printf("%d threads:   clock_gettime %.2f ns, nprof_sys_trace_now + record %.2f ns (each thread its own core)\n",
	       threads, bn, cn);

	measure(OP_NOW, 1, 0, &b, &c);
	printf("info: nprof_sys_trace_now alone (%s) %.2f ns (%.2fx)\n", clock_name, c, c / b);
	measure(OP_RECORD_ATTRS, 1, 0, &b, &c);
	printf("info: event with model id and 2 attributes, its clock read included %.2f ns (%.2fx)\n",
	       c, c / b);
	measure(OP_BEGIN_END, 1, 0, &b, &c);
	printf("info: begin/end pair, 2 clock reads included %.2f ns (%.2fx)\n", c, c / b);
	measure(OP_FILTERED, 1, 0, &b, &c);
	printf("info: filtered-out event, its clock read included %.2f ns (%.2fx)\n", c, c / b);
	if (threads > 1) {
		measure(OP_RECORD, threads, 1, &b, &c);
		printf("info: %d threads into one core's ring %.2f ns (%.2fx)\n", threads, c, c / b);
	}

	nprof_sys_trace_stop();
	nprof_sys_trace_get_stats(0, &st);
	printf("ring 0: recorded %llu, overwritten %llu, pending %llu\n",
	       (unsigned long long)st.recorded, (unsigned long long)st.overwritten,
	       (unsigned long long)st.pending);
	if (st.recorded != st.overwritten + st.pending + st.consumed) {
		fprintf(stderr, "sys_trace_record: ring 0 counters do not add up\n");
		return 1;
	}
	nprof_sys_trace_release();
	nprof_sys_trace_config_free(cfg);
	printf("ratio event with its timestamp (nprof_sys_trace_now, %s, + record) / one "
	       "clock_gettime alone, the baseline measured in this run: 1 thread %.2fx, "
	       "%d threads %.2fx (target <= 1.0x)\n",
	       clock_name, c1 / b1, threads, cn / bn);
	return 0;
}
