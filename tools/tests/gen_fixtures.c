// SPDX-License-Identifier: MIT
/*
 * Writes the NTFF fixtures of the tool's tests with the library's writer.
 * Everything is deterministic (timestamps, sequence numbers, payloads), so
 * tests/run.sh can assert exact counts; the numbers each fixture must give
 * are listed in tests/run.sh next to the checks.
 *
 * Usage: gen_fixtures [--split C] DIR        the test fixtures
 *        gen_fixtures [--split C] --large N FILE   one file of about N entries
 *                                      (benchmarks)
 *        gen_fixtures [--split C] --jitter N FILE  the same with steps of 50 to
 *                                      249 ns between entries instead of 100
 *                                      (distributions)
 *        gen_fixtures [--split C] --fleet N DIR  N machines (2 to 64) of
 *                                      a fleet (below), for the Python
 *                                      analysis (python/tests)
 *        gen_fixtures [--split C] --loss DIR  the planted-loss fixtures
 *        gen_fixtures [--split C] --errors DIR  errors of two codes on two cores
 *                                      (below)
 *        gen_fixtures --exec-range A-B ...  any of the above, every file
 *                                      saying it holds executions A to B
 *                                      (NTFF 1.3, record --executions A-B)
 *        gen_fixtures -h | --help      the usage, on stdout; any other
 *                                      argument starting with '-' where DIR
 *                                      goes is refused (exit 2), never made
 *                                      a directory
 *
 * Each queue is one record, appended whole, in the order the queues first
 * appear. With --split C, the same entries are appended as a streaming
 * capture drains them: C entries of each queue in turn, round after round,
 * so that every queue with more than C entries is several records
 * interleaved with the other queues' (the writer extends a record only when
 * the same queue is appended twice in a row). A queue's lost count and ring
 * flags go with its first record; an empty queue is one empty record. The
 * profile is the same; only its records differ.
 *
 * DIR/basic.ntff      NeuronCore 0 of a trn1 sim device, 2 iterations:
 *                     INFER_STATUS start/stop pairs (the second stop with
 *                     status 1004), EVENT start/end pairs and TRACE on
 *                     engines 0 and 1, DMA on both, THROTTLE, ERROR, and
 *                     TopSPs 0 and 1 (TOPSP_EVENT pairs, TOPSP_TRACE,
 *                     TOPSP_ERROR). TRACE engine 1 skips 2 sequence numbers
 *                     and records lost = 2.
 * DIR/prof/           a directory: basic.ntff again as
 *                     profile_nc_0_session_3.ntff, sub/profile_nc_1_session_0.ntff
 *                     (core 1: one iteration plus a start without a stop,
 *                     and an empty DMA queue that recorded 5 lost), and
 *                     files a reader must skip.
 * DIR/gap.ntff        one TRACE queue with a gap of 3 but lost = 1: entries
 *                     vanished without being counted.
 * DIR/hosts/{a,b,c}/  three recordings of machines host-a, host-b, host-c
 *                     (core 1's content, instance ids set accordingly); a/
 *                     and b/ have a trace_info.pb whose clock mapping
 *                     (start_ns, start_realtime_ns) is 1000000 ->
 *                     1700000000000000000 and 5000000 -> 1700000000000500000;
 *                     c/ has none.
 * DIR/straggler/{0,1,2,3}/  four machines strag-0 .. strag-3 (trace_info.pb
 *                     with a clock mapping on all but strag-3), each with
 *                     cores 0 and 1 (profile_nc_C_session_0.ntff): 4
 *                     executions of one inference each, every one START,
 *                     ops 0x301, 0x302, 0x303 on engine 0, STOP, 100 ns
 *                     apart. On core 0 of machine h, op 0x301 takes 10 * h
 *                     ns more. The planted straggler: strag-2's core 1,
 *                     whose op 0x302 takes 5000 ns more in executions 1
 *                     and 3.
 * DIR/raw/raw.ntff   core 1 of a raw device (neuronprof_neuron, trn1, raw
 *                     format neuron-v2, 64-byte device entries, capture-time
 *                     clock): TRACE engine 0 with 3 device entries (6 ring
 *                     entries, parts 0 and 1 of 2) and DMA engine 2 with 2
 *                     device entries of which the first lost its part 0
 *                     (3 ring entries, lost = 1). Payload byte k of ring
 *                     entry seq s is (0x40 * queue + 2 * s + k) & 0xff;
 *                     codes, model ids and iterations are the raw ones, so a
 *                     tool that decoded them would show opcodes 0x20000 and
 *                     0x20100.
 * DIR/named/synthetic_mlp_vnc_0.ntff  basic.ntff's entries as a MODEL capture
 *                     of model "synthetic_mlp" (id 7) on a device that names
 *                     some of its codes (NTFF 1.2 code_names): TRACE 0x100
 *                     and 0x101 "matmult", 0x200 "tensor_tensor",
 *                     TOPSP_TRACE 0x700 "collective", DMA 0 "dma_copy";
 *                     0x102, 0x201, 0x202, 0x701 and DMA 1 and 2 have no
 *                     name.
 * DIR/prof/           also holds a system profile written by the library
 *                     (nprof_system_profile_write()): ntrace.pb with 6 host
 *                     events of one process on 2 threads (3 + 1 on the main
 *                     thread, 2 on another), trace_info.pb, and cpu_util.pb
 *                     and host_mem.pb from a monitor that took 3 samples
 *                     (start, one on demand, stop).
 *
 * With --fleet N, DIR/H/ for H = 0 .. N-1: machine fleet-H (trace_info.pb
 * with a clock mapping on every machine but fleet-6), cores 0 and 1
 * (profile_nc_C_session_0.ntff). Core C of machine H runs 3 + (H + C) % 3
 * executions of model 11 (so later execution indexes have fewer cores),
 * each one inference: START, an EVENT start/end pair around TRACE ops
 * 0x401, 0x402, 0x403 on engine 0 and 0x501, 0x502 on engine 1, a
 * TOPSP_TRACE 0x701 on TopSP 0, a DMA of 1024 * (H + 1) bytes on engine 0,
 * STOP; 1000 ns between executions. On core 0 of machine H, op 0x401 takes
 * 10 * H ns more; core 1 is the same on every machine (ties: the first
 * machine is named). Machines with H % 4 == 3 report an ERROR (code 1005)
 * in core 0's last execution; the DMA queue of odd machines records 1 lost.
 * The planted straggler: fleet-5's core 1, whose op 0x502 takes 7000 ns
 * more in execution 2 (fleets of 6 machines or more).
 *
 * With --errors, DIR/profile_nc_C_session_0.ntff for cores C = 0 and 1 of a
 * device that names some codes: TRACE 0x100 "activation_gelu_approx3" (the
 * longest name NTFF allows) and 0x101 "matmult", ERROR 0x31
 * "nc_sema_timeout"; ERROR 0x32 has no name. Each core runs 3 inferences
 * of model 5: START, on engine 0 an EVENT start, TRACE 0x100 and 0x101, an
 * EVENT end, an ERROR 0x31 (core 0 also an ERROR 0x32 in inference 2), a
 * TOPSP_ERROR 0x32 on its first TopSP (3 * C) in inference 1, STOP; 100
 * ns between entries. Core 1's ERROR queue loses the 0x31 of inference 1
 * (a sequence gap, lost = 1). Errors: core 0 3 x 0x31 and 2 x 0x32,
 * core 1 2 x 0x31 and 1 x 0x32, 1 lost on an error queue.
 *
 * With --loss, planted losses (Documentation/analysis.rst, Loss windows),
 * core 0 running 4 iterations of: INFER_STATUS start, on engines 0 and 1 an
 * EVENT start, 5 TRACE ops ((e + 1) << 8 | i), an EVENT end; a DMA on
 * engine 0; TOPSP_EVENT start, TOPSP_TRACE 0x700, TOPSP_EVENT end on TopSP
 * 0; INFER_STATUS stop; 100 ns between entries, so every instruction the
 * model can time lasts exactly 100 ns. A lost notification still takes its
 * sequence number and its time, and counts in its queue's lost.
 * DIR/tail.ntff        rings of 12 entries never drained (record
 *                      --no-streaming): each TRACE queue keeps its first 12
 *                      of 20 and loses the rest after its last entry.
 * DIR/gapped.ntff      a streamed capture whose TRACE, EVENT and
 *                      INFER_STATUS queues lose every notification from
 *                      iteration 1's first engine 1 op to iteration 2's
 *                      second engine 0 op: sequence gaps inside EVENT
 *                      windows and an inference.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <pthread.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/config.h>
#include <neuronprof/monitor.h>
#include <neuronprof/ntff.h>
#include <neuronprof/sys_trace.h>

#include "gen_util.h"
#include "system_profile.pb-c.h"

#define MAX_QUEUES	32

struct queue {
	uint32_t qt, kind, index, engine;
	uint64_t lost;
	uint64_t next_seq;
	struct neuronprof_notification *e;
	size_t n, cap;
};

struct fixture {
	struct queue q[MAX_QUEUES];
	int nq;
	uint64_t now;		/* timestamp of the next entry */
	uint32_t model_id;
	uint32_t jitter;	/* non-zero: steps of 50 to 249 ns from this LCG state */
	/* --loss: rings of @ring_cap entries (0: unbounded), and a window of loss. */
	size_t ring_cap;
	uint64_t drop_from, drop_to;	/* lost: entries timed in [from, to) ... */
	uint32_t drop_types;		/* ... of these queue types (bit per type) */
};

static struct queue *queue(struct fixture *f, uint32_t qt, uint32_t kind, uint32_t index,
			   uint32_t engine)
{
	struct queue *q;

	for (int i = 0; i < f->nq; i++) {
		q = &f->q[i];
		if (q->qt == qt && q->kind == kind && q->index == index && q->engine == engine)
			return q;
	}
	q = gen_new_queue(f->q, &f->nq, MAX_QUEUES, sizeof(*q));
	q->qt = qt;
	q->kind = kind;
	q->index = index;
	q->engine = engine;
	return q;
}

/* One notification on a queue, 100 ns after the previous one of the fixture. */
static void emit(struct fixture *f, uint32_t qt, uint32_t kind, uint32_t index, uint32_t engine,
		 uint32_t code, uint32_t iter, uint64_t p0, uint64_t p1, uint64_t p2, uint64_t p3)
{
	struct queue *q = queue(f, qt, kind, index, engine);
	struct neuronprof_notification *n;

	if ((f->ring_cap && q->n >= f->ring_cap) ||
	    ((f->drop_types & (1u << qt)) && f->now + 100 >= f->drop_from &&
	     f->now + 100 < f->drop_to)) {
		/* Lost: it takes its time and its sequence number all the same. */
		f->now += 100;
		q->next_seq++;
		q->lost++;
		return;
	}
	n = gen_push(&q->e, &q->n, &q->cap, 16);
	if (f->jitter) {
		f->jitter = f->jitter * 1103515245u + 12345u;
		f->now += 50 + (f->jitter >> 16) % 200;
	} else {
		f->now += 100;
	}
	n->timestamp_ns = f->now;
	n->seq = q->next_seq++;
	n->queue_type = (uint16_t)qt;
	n->engine = (uint16_t)engine;
	n->code = code;
	n->model_id = f->model_id;
	n->iteration = iter;
	n->payload[0] = p0;
	n->payload[1] = p1;
	n->payload[2] = p2;
	n->payload[3] = p3;
}

static const char *fixture_instance = "i-0123456789abcdef0";

/* The device of raw_fixture(): what neuronprof_neuron reports. */
static bool fixture_raw;

/* The names and the model of DIR/named (see the header); none elsewhere. */
static const struct nprof_ntff_code_name fixture_names[] = {
	{ NEURONPROF_QT_TRACE, 0x100, "matmult" },
	{ NEURONPROF_QT_TRACE, 0x101, "matmult" },
	{ NEURONPROF_QT_TRACE, 0x200, "tensor_tensor" },
	{ NEURONPROF_QT_DMA, 0, "dma_copy" },
	{ NEURONPROF_QT_TOPSP_TRACE, 0x700, "collective" },
};
static bool fixture_named;
/* The names of --errors (see the header). */
static const struct nprof_ntff_code_name fixture_err_names[] = {
	{ NEURONPROF_QT_TRACE, 0x100, "activation_gelu_approx3" },
	{ NEURONPROF_QT_TRACE, 0x101, "matmult" },
	{ NEURONPROF_QT_ERROR, 0x31, "nc_sema_timeout" },
};
static bool fixture_errors;
/* --exec-range A-B: the executions every file says it holds (0, 0: none). */
static uint64_t fixture_exec_first, fixture_exec_last;

/*
 * --iter-range A-B: the iterations every file says it holds (0, 0: none);
 * before each entry but a queue's first, FIXTURE_TRIM sequence numbers are
 * left out as a capture of the range leaves them (trimmed_count), so each
 * entry's seq grows by FIXTURE_TRIM per entry before it.
 */
static uint64_t fixture_iter_first, fixture_iter_last;
#define FIXTURE_TRIM	3

/* Entries per append with --split; 0: each queue in one append. */
static size_t fixture_chunk;

/* --ring-flags: NEURONPROF_RING_* bits every queue's record carries. */
static uint32_t fixture_ring_flags;

/* Appends entries [@from, @from + @n) of @q, with its losses if @from is 0. */
static void append_queue(struct nprof_ntff_writer *w, const struct queue *q, size_t from,
			 size_t n)
{
	struct nprof_ntff_queue_desc d = {
		.size = sizeof(d),
		.queue_type = q->qt,
		.target_kind = q->kind,
		.target_index = q->index,
		.engine = q->engine,
		.entry_size = ENTRY,
		.ring_flags = (q->lost && !from ? NEURONPROF_RING_OVERFLOWED : 0) |
			      fixture_ring_flags,
		.lost_count = from ? 0 : q->lost,
	};

	if (fixture_iter_first && !fixture_raw) {
		/* One append per entry, each after the FIXTURE_TRIM left out before it. */
		for (size_t k = from; k < from + n; k++) {
			struct neuronprof_notification e = q->e[k];

			e.seq += FIXTURE_TRIM * k;
			d.trimmed_count = k ? FIXTURE_TRIM : 0;
			if (nprof_ntff_writer_append(w, &d, &e, ENTRY, NULL, 0) < 0)
				gen_die("append");
			d.lost_count = 0;
			d.ring_flags = 0;
		}
		return;
	}
	if (nprof_ntff_writer_append(w, &d, q->e + from, n * ENTRY, NULL, 0) < 0)
		gen_die("append");
}

static void write_file(struct fixture *f, const char *dir, const char *name, uint32_t core,
		       uint64_t session_id)
{
	struct nprof_ntff_info info = {
		.size = sizeof(info),
		.pid = 4242,
		.core = core,
		.capture_kind = NPROF_NTFF_CAPTURE_SESSION,
		.clock_id = CLOCK_MONOTONIC,
		.session_id = session_id,
		.instance_id = fixture_instance,
		.hostname = "fixture-host",
		.start_ns = 1000000,
		.stop_ns = f->now + 1000,
		/* A recording from a version-1 sim module. */
		.device = gen_trn1_sim(1),
	};
	struct nprof_ntff_writer *w = nprof_ntff_writer_create(dir, name, 0);

	if (fixture_raw) {
		info.device.uapi_version = NEURONPROF_UAPI_VERSION;
		info.device.provider = "neuron";
		info.device.clock_domain = NEURONPROF_CLOCK_CAPTURED;
		info.device.raw_format = NEURONPROF_RAW_FORMAT_NEURON_V2;
		info.device.raw_entry_size = 64;
	}
	info.exec_first = fixture_exec_first;
	info.exec_last = fixture_exec_last;
	/* Raw entries carry no iteration: their files never hold a range. */
	info.iter_first = fixture_raw ? 0 : fixture_iter_first;
	info.iter_last = fixture_raw ? 0 : fixture_iter_last;
	if (fixture_named) {
		info.device.uapi_version = NEURONPROF_UAPI_VERSION;
		info.capture_kind = NPROF_NTFF_CAPTURE_MODEL;
		info.model_name = "synthetic_mlp";
		info.model_id = f->model_id;
		info.code_names = fixture_names;
		info.num_code_names = sizeof(fixture_names) / sizeof(fixture_names[0]);
	}
	if (fixture_errors) {
		info.device.uapi_version = NEURONPROF_UAPI_VERSION;
		info.code_names = fixture_err_names;
		info.num_code_names = sizeof(fixture_err_names) / sizeof(fixture_err_names[0]);
	}
	if (!w)
		gen_die(name);
	if (nprof_ntff_writer_set_info(w, &info))
		gen_die("set_info");
	if (!fixture_chunk) {
		for (int i = 0; i < f->nq; i++)
			append_queue(w, &f->q[i], 0, f->q[i].n);
	} else {
		bool more = true;

		for (size_t from = 0; more; from += fixture_chunk) {
			more = false;
			for (int i = 0; i < f->nq; i++) {
				const struct queue *q = &f->q[i];

				if (from >= q->n && (from || q->n))
					continue;
				append_queue(w, q, from, q->n - from < fixture_chunk ?
					     q->n - from : fixture_chunk);
				more |= q->n - from > fixture_chunk;
			}
		}
	}
	if (nprof_ntff_writer_finalize(w))
		gen_die("finalize");
}

static void fixture_free(struct fixture *f)
{
	for (int i = 0; i < f->nq; i++)
		free(f->q[i].e);
	memset(f, 0, sizeof(*f));
}

#define CORE	NEURONPROF_TARGET_CORE
#define TOPSP	NEURONPROF_TARGET_TOPSP

/* What the simulator does per iteration, scaled down (simulator.rst). */
static void basic(struct fixture *f)
{
	const uint32_t iters = 2, instr = 3;

	memset(f, 0, sizeof(*f));
	f->now = 1000000;
	f->model_id = 7;
	/* Queues in the order a capture appends them. */
	queue(f, NEURONPROF_QT_INFER_STATUS, CORE, 0, 0);
	for (uint32_t it = 0; it < iters; it++) {
		bool last = it == iters - 1;

		emit(f, NEURONPROF_QT_INFER_STATUS, CORE, 0, 0, NEURONPROF_INFER_START, it, iters,
		     0, 0, 0);
		for (uint32_t e = 0; e < 2; e++) {
			emit(f, NEURONPROF_QT_EVENT, CORE, 0, e, 1, it, instr, 0, 0, 0);
			for (uint32_t i = 0; i < instr; i++) {
				struct queue *q = queue(f, NEURONPROF_QT_TRACE, CORE, 0, e);

				/* Engine 1 loses two notifications after its third. */
				if (e == 1 && q->n == 3) {
					q->next_seq += 2;
					q->lost = 2;
				}
				emit(f, NEURONPROF_QT_TRACE, CORE, 0, e, ((e + 1) << 8) | i, it,
				     16 * i, 0x1000 + i, 0x2000 + i, i);
			}
			emit(f, NEURONPROF_QT_EVENT, CORE, 0, e, 2, it, 0, 0, 0, 0);
		}
		for (uint32_t d = 0; d < 3; d++)
			emit(f, NEURONPROF_QT_DMA, CORE, 0, d % 2, d % 16, it, 4096 * (d + 1),
			     0x10000000 + d, 0x20000000 + d, d);
		emit(f, NEURONPROF_QT_THROTTLE, CORE, 0, 0, 1 + it, it, 90 - 10 * it, 0, 0, 0);
		for (uint32_t t = 0; t < 2; t++) {
			emit(f, NEURONPROF_QT_TOPSP_EVENT, TOPSP, t, 0, 1, it, t, 0, 0, 0);
			emit(f, NEURONPROF_QT_TOPSP_TRACE, TOPSP, t, 0, 0x700 | t, it, t, 0, 0, 0);
			emit(f, NEURONPROF_QT_TOPSP_EVENT, TOPSP, t, 0, 2, it, t, 0, 0, 0);
		}
		if (last) {
			emit(f, NEURONPROF_QT_ERROR, CORE, 0, 0, 1004, it, it, 0, 0, 0);
			emit(f, NEURONPROF_QT_TOPSP_ERROR, TOPSP, 0, 0, 1004, it, it, 0, 0, 0);
		}
		emit(f, NEURONPROF_QT_INFER_STATUS, CORE, 0, 0,
		     NEURONPROF_INFER_STOP, it, last ? 1004 : 0, 0, 0, 0);
	}
}

static void core1(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->now = 2000000;
	f->model_id = 9;
	emit(f, NEURONPROF_QT_INFER_STATUS, CORE, 1, 0, NEURONPROF_INFER_START, 0, 1, 0, 0, 0);
	emit(f, NEURONPROF_QT_EVENT, CORE, 1, 0, 1, 0, 4, 0, 0, 0);
	for (uint32_t i = 0; i < 4; i++)
		emit(f, NEURONPROF_QT_TRACE, CORE, 1, 0, 0x100 | i, 0, 16 * i, 0, 0, 0);
	emit(f, NEURONPROF_QT_EVENT, CORE, 1, 0, 2, 0, 0, 0, 0, 0);
	for (uint32_t d = 0; d < 3; d++)
		emit(f, NEURONPROF_QT_DMA, CORE, 1, 2, d, 0, 8192, 0x1000, 0x2000, d);
	emit(f, NEURONPROF_QT_INFER_STATUS, CORE, 1, 0, NEURONPROF_INFER_STOP, 0, 0, 0, 0, 0);
	/* The next iteration starts; the capture stopped before it ended. */
	emit(f, NEURONPROF_QT_INFER_STATUS, CORE, 1, 0, NEURONPROF_INFER_START, 1, 1, 0, 0, 0);
	/* A queue that delivered nothing but counted 5 lost. */
	queue(f, NEURONPROF_QT_DMA, CORE, 1, 3)->lost = 5;
}

/* One core of a machine of DIR/straggler (see the header). */
static void straggler(struct fixture *f, uint32_t machine, uint32_t core)
{
	memset(f, 0, sizeof(*f));
	f->now = 2000000;
	f->model_id = 5;
	for (uint32_t x = 0; x < 4; x++) {
		emit(f, NEURONPROF_QT_INFER_STATUS, CORE, core, 0, NEURONPROF_INFER_START, 0, 1,
		     0, 0, 0);
		for (uint32_t i = 1; i <= 3; i++) {
			emit(f, NEURONPROF_QT_TRACE, CORE, core, 0, 0x300 | i, 0, 16 * i, 0, 0, 0);
			if (i == 1 && core == 0)
				f->now += 10 * machine;
			if (i == 2 && machine == 2 && core == 1 && (x == 1 || x == 3))
				f->now += 5000;
		}
		emit(f, NEURONPROF_QT_INFER_STATUS, CORE, core, 0, NEURONPROF_INFER_STOP, 0, 0,
		     0, 0, 0);
		f->now += 1000;
	}
}

/* One core of machine @machine of a fleet (see the header). */
static void fleet_core(struct fixture *f, uint32_t machine, uint32_t core)
{
	uint32_t nexec = 3 + (machine + core) % 3;

	memset(f, 0, sizeof(*f));
	f->now = 4000000;
	f->model_id = 11;
	for (uint32_t x = 0; x < nexec; x++) {
		emit(f, NEURONPROF_QT_INFER_STATUS, CORE, core, 0, NEURONPROF_INFER_START, 0, 1,
		     0, 0, 0);
		for (uint32_t e = 0; e < 2; e++) {
			emit(f, NEURONPROF_QT_EVENT, CORE, core, e, 1, 0, 3, 0, 0, 0);
			for (uint32_t i = 1; i <= 3 - e; i++) {
				emit(f, NEURONPROF_QT_TRACE, CORE, core, e, ((4 + e) << 8) | i, 0,
				     16 * i, 0, 0, 0);
				if (e == 0 && i == 1 && core == 0)
					f->now += 10 * machine;
				if (e == 1 && i == 2 && machine == 5 && core == 1 && x == 2)
					f->now += 7000;
			}
			emit(f, NEURONPROF_QT_EVENT, CORE, core, e, 2, 0, 0, 0, 0, 0);
		}
		emit(f, NEURONPROF_QT_TOPSP_TRACE, TOPSP, 0, 0, 0x701, 0, 0, 0, 0, 0);
		emit(f, NEURONPROF_QT_DMA, CORE, core, 0, 0, 0, 1024 * (machine + 1), 0x1000,
		     0x2000, 0);
		if (machine % 4 == 3 && core == 0 && x == nexec - 1)
			emit(f, NEURONPROF_QT_ERROR, CORE, core, 0, 1005, 0, 0, 0, 0, 0);
		emit(f, NEURONPROF_QT_INFER_STATUS, CORE, core, 0, NEURONPROF_INFER_STOP, 0, 0,
		     0, 0, 0);
		f->now += 1000;
	}
	if (machine % 2)
		queue(f, NEURONPROF_QT_DMA, CORE, core, 0)->lost = 1;
}

static void gap(struct fixture *f)
{
	struct queue *q;

	memset(f, 0, sizeof(*f));
	f->now = 3000000;
	f->model_id = 1;
	for (uint32_t i = 0; i < 4; i++) {
		q = queue(f, NEURONPROF_QT_TRACE, CORE, 0, 0);
		if (i == 2)
			q->next_seq += 3;
		emit(f, NEURONPROF_QT_TRACE, CORE, 0, 0, 0x100 | i, 0, 16 * i, 0, 0, 0);
	}
	q->lost = 1;
}

static void mkdir_or_die(const char *path);

/* The workload of the --loss fixtures (see the header). */
static void loss_workload(struct fixture *f)
{
	for (uint32_t it = 0; it < 4; it++) {
		emit(f, NEURONPROF_QT_INFER_STATUS, CORE, 0, 0, NEURONPROF_INFER_START, it, 4,
		     0, 0, 0);
		for (uint32_t e = 0; e < 2; e++) {
			emit(f, NEURONPROF_QT_EVENT, CORE, 0, e, 1, it, 5, 0, 0, 0);
			for (uint32_t i = 0; i < 5; i++)
				emit(f, NEURONPROF_QT_TRACE, CORE, 0, e, ((e + 1) << 8) | i, it,
				     16 * i, 0, 0, 0);
			emit(f, NEURONPROF_QT_EVENT, CORE, 0, e, 2, it, 0, 0, 0, 0);
		}
		emit(f, NEURONPROF_QT_DMA, CORE, 0, 0, 0, it, 4096, 0x1000, 0x2000, 0);
		emit(f, NEURONPROF_QT_TOPSP_EVENT, TOPSP, 0, 0, 1, it, 0, 0, 0, 0);
		emit(f, NEURONPROF_QT_TOPSP_TRACE, TOPSP, 0, 0, 0x700, it, 0, 0, 0, 0);
		emit(f, NEURONPROF_QT_TOPSP_EVENT, TOPSP, 0, 0, 2, it, 0, 0, 0, 0);
		emit(f, NEURONPROF_QT_INFER_STATUS, CORE, 0, 0, NEURONPROF_INFER_STOP, it, 0,
		     0, 0, 0);
	}
}

static void loss_fixtures(const char *dir)
{
	struct fixture f;

	mkdir_or_die(dir);
	memset(&f, 0, sizeof(f));
	f.now = 5000000;
	f.model_id = 3;
	f.ring_cap = 12;
	loss_workload(&f);
	write_file(&f, dir, "tail.ntff", 0, 0);
	fixture_free(&f);

	/*
	 * An iteration is 20 entries (2000 ns): iteration 1 starts at
	 * 5002100; its first engine 1 op is its 10th entry, iteration 2's
	 * second engine 0 op its 4th.
	 */
	memset(&f, 0, sizeof(f));
	f.now = 5000000;
	f.model_id = 3;
	f.drop_from = 5002100 + 9 * 100;
	f.drop_to = 5004100 + 4 * 100;
	f.drop_types = 1u << NEURONPROF_QT_TRACE | 1u << NEURONPROF_QT_EVENT |
		       1u << NEURONPROF_QT_INFER_STATUS;
	loss_workload(&f);
	write_file(&f, dir, "gapped.ntff", 0, 0);
	fixture_free(&f);
}

/* The --errors fixtures (see the header): errors of two codes on two cores. */
static void error_fixtures(const char *dir)
{
	struct fixture f;
	char name[64];

	mkdir_or_die(dir);
	fixture_errors = true;
	for (uint32_t c = 0; c < 2; c++) {
		memset(&f, 0, sizeof(f));
		f.now = 6000000 + 1000000 * c;
		f.model_id = 5;
		for (uint32_t it = 0; it < 3; it++) {
			emit(&f, NEURONPROF_QT_INFER_STATUS, CORE, c, 0, NEURONPROF_INFER_START, it,
			     3, 0, 0, 0);
			emit(&f, NEURONPROF_QT_EVENT, CORE, c, 0, 1, it, 2, 0, 0, 0);
			emit(&f, NEURONPROF_QT_TRACE, CORE, c, 0, 0x100, it, 0, 0, 0, 0);
			emit(&f, NEURONPROF_QT_TRACE, CORE, c, 0, 0x101, it, 16, 0, 0, 0);
			emit(&f, NEURONPROF_QT_EVENT, CORE, c, 0, 2, it, 0, 0, 0, 0);
			if (c == 1 && it == 1) {
				struct queue *q = queue(&f, NEURONPROF_QT_ERROR, CORE, c, 0);

				/* Lost: its time and sequence number pass all the same. */
				f.now += 100;
				q->next_seq++;
				q->lost++;
			} else {
				emit(&f, NEURONPROF_QT_ERROR, CORE, c, 0, 0x31, it, it, 0, 0, 0);
			}
			if (c == 0 && it == 2)
				emit(&f, NEURONPROF_QT_ERROR, CORE, c, 0, 0x32, it, it, 0, 0, 0);
			if (it == 1)
				emit(&f, NEURONPROF_QT_TOPSP_ERROR, TOPSP, 3 * c, 0, 0x32, it, it, 0,
				     0, 0);
			emit(&f, NEURONPROF_QT_INFER_STATUS, CORE, c, 0, NEURONPROF_INFER_STOP, it,
			     0, 0, 0, 0);
		}
		snprintf(name, sizeof(name), "profile_nc_%u_session_0.ntff", c);
		write_file(&f, dir, name, c, 0);
		fixture_free(&f);
	}
	fixture_errors = false;
}

/* A large profile for benchmarks: the simulator's pattern, repeated. */
/* Ring entry @part of device entry @index on a raw queue (see the header). */
static void raw_part(struct fixture *f, uint32_t qt, uint32_t engine, uint32_t index,
		     uint32_t part, uint32_t qbytes)
{
	struct queue *q = queue(f, qt, NEURONPROF_TARGET_CORE, 1, engine);
	uint64_t p[4];
	unsigned char *b = (unsigned char *)p;

	for (int k = 0; k < 32; k++)
		b[k] = (unsigned char)(qbytes + 2 * q->next_seq + (uint64_t)k);
	for (int i = 0; i < 4; i++)
		p[i] = le64toh(p[i]);
	f->model_id = NEURONPROF_RAW_FORMAT_NEURON_V2;
	emit(f, qt, NEURONPROF_TARGET_CORE, 1, engine, NEURONPROF_RAW_CODE(32, part, 2), index,
	     p[0], p[1], p[2], p[3]);
}

static void raw_fixture(struct fixture *f)
{
	struct queue *dma;

	memset(f, 0, sizeof(*f));
	f->now = 3000000;
	for (uint32_t i = 0; i < 3; i++) {
		raw_part(f, NEURONPROF_QT_TRACE, 0, i, 0, 0x40);
		raw_part(f, NEURONPROF_QT_TRACE, 0, i, 1, 0x40);
	}
	/* Device entry 0's part 0 was lost: the ring counted it. */
	dma = queue(f, NEURONPROF_QT_DMA, NEURONPROF_TARGET_CORE, 1, 2);
	dma->next_seq = 1;
	dma->lost = 1;
	raw_part(f, NEURONPROF_QT_DMA, 2, 0, 1, 0x80);
	raw_part(f, NEURONPROF_QT_DMA, 2, 1, 0, 0x80);
	raw_part(f, NEURONPROF_QT_DMA, 2, 1, 1, 0x80);
}

static void large_body(struct fixture *f, uint64_t entries)
{
	const uint32_t instr = 64, dma = 16;
	/* Per iteration: 2 INFER + 4 * (2 EVENT + instr TRACE) + dma DMA + 1 THROTTLE. */
	uint64_t per_iter = 2 + 4 * (2 + instr) + dma + 1;
	uint32_t iters = (uint32_t)((entries + per_iter - 1) / per_iter);

	f->model_id = 3;
	for (uint32_t it = 0; it < iters; it++) {
		emit(f, NEURONPROF_QT_INFER_STATUS, CORE, 0, 0, NEURONPROF_INFER_START, it, iters,
		     0, 0, 0);
		for (uint32_t e = 0; e < 4; e++) {
			emit(f, NEURONPROF_QT_EVENT, CORE, 0, e, 1, it, instr, 0, 0, 0);
			for (uint32_t i = 0; i < instr; i++)
				emit(f, NEURONPROF_QT_TRACE, CORE, 0, e, ((e + 1) << 8) | (i % 32),
				     it, 16 * i, i, i + 1, i + 2);
			emit(f, NEURONPROF_QT_EVENT, CORE, 0, e, 2, it, 0, 0, 0, 0);
		}
		for (uint32_t d = 0; d < dma; d++)
			emit(f, NEURONPROF_QT_DMA, CORE, 0, d % 4, d % 16, it, 4096, 0x1000 * d,
			     0x2000 * d, d);
		emit(f, NEURONPROF_QT_THROTTLE, CORE, 0, 0, 1 + it % 3, it, 90, 0, 0, 0);
		emit(f, NEURONPROF_QT_INFER_STATUS, CORE, 0, 0, NEURONPROF_INFER_STOP, it, 0, 0,
		     0, 0);
	}
}

static void large(struct fixture *f, uint64_t entries)
{
	memset(f, 0, sizeof(*f));
	f->now = 1000000;
	large_body(f, entries);
}

static void large_jitter(struct fixture *f, uint64_t entries)
{
	memset(f, 0, sizeof(*f));
	f->now = 1000000;
	f->jitter = 1;
	large_body(f, entries);
}

static void record(const struct nprof_sys_trace_event *ev)
{
	if (nprof_sys_trace_record_event(ev) != 1)
		gen_die("nprof_sys_trace_record_event");
}

static void *second_thread(void *arg)
{
	struct nprof_sys_trace_event ev = {
		.type = NPROF_EV_NRT_TENSOR_WRITE, .source = NPROF_SYS_TRACE_SRC_FRAMEWORK,
		.core = 0, .start_ns = 1000050, .end_ns = 1000090,
	};

	(void)arg;
	record(&ev);
	ev.type = NPROF_EV_NRT_TENSOR_READ;
	ev.start_ns = 1004700;
	ev.end_ns = 1004800;
	record(&ev);
	return NULL;
}

/* The system profile of a session, from the library's own writer. */
static void system_profile(const char *dir)
{
	struct nprof_sys_trace_config *cfg = nprof_sys_trace_config_allocate();
	struct nprof_monitor_opts mopts = { .size = sizeof(mopts), .period_ms = 3600000 };
	struct nprof_system_profile_opts sopts = { .size = sizeof(sopts) };
	const struct nprof_sys_trace_attr attrs[2] = {
		{ .key = "bytes", .type = NPROF_SYS_TRACE_ATTR_UINT, .v.u = 4096 },
		{ .key = "tensor", .type = NPROF_SYS_TRACE_ATTR_STR, .v.s = "input0" },
	};
	struct nprof_sys_trace_event ev = {
		.type = NPROF_EV_NRT_EXECUTE, .source = NPROF_SYS_TRACE_SRC_NEURON_RT, .core = 0,
		.flags = NPROF_SYS_TRACE_F_MODEL_ID | NPROF_SYS_TRACE_F_FLOW_ID,
		.start_ns = 1000100, .end_ns = 1002200, .model_id = 7, .flow_id = 1,
		.attrs = attrs, .nattrs = 2,
	};
	struct nprof_monitor *mon;
	pthread_t th;

	if (!cfg || nprof_sys_trace_start(cfg))
		gen_die("nprof_sys_trace_start");
	mon = nprof_monitor_start(&mopts);
	if (!mon)
		gen_die("nprof_monitor_start");
	record(&ev);			/* iteration 0 */
	ev.start_ns = 1002300;		/* iteration 1 */
	ev.end_ns = 1004600;
	ev.flow_id = 2;
	record(&ev);
	ev = (struct nprof_sys_trace_event){
		.type = NPROF_EV_DEVICE_EXEC, .source = NPROF_SYS_TRACE_SRC_NEURON_HW, .core = 0,
		.start_ns = 1000150, .end_ns = 1004550,
	};
	record(&ev);
	ev = (struct nprof_sys_trace_event){
		.type = NPROF_EV_MODEL_LOAD, .source = NPROF_SYS_TRACE_SRC_NEURON_RT,
		.core = NPROF_SYS_TRACE_NO_CORE, .start_ns = 900000, .end_ns = 1000000,
	};
	record(&ev);
	if (pthread_create(&th, NULL, second_thread, NULL) || pthread_join(th, NULL))
		gen_die("pthread");
	if (nprof_monitor_sample_now(mon) || nprof_monitor_stop(mon))
		gen_die("monitor");
	sopts.monitor = mon;
	if (nprof_sys_trace_stop() || nprof_system_profile_write(dir, &sopts))
		gen_die("nprof_system_profile_write");
	nprof_monitor_free(mon);
	nprof_sys_trace_release();
	nprof_sys_trace_config_free(cfg);
}

/* A trace_info.pb holding only a machine's name and its clock mapping. */
static void write_trace_info(const char *dir, const char *instance, uint64_t mono, uint64_t real)
{
	Neuronprof__System__TraceInfo ti = NEURONPROF__SYSTEM__TRACE_INFO__INIT;
	char path[4096];
	uint8_t *buf;
	size_t len;
	FILE *fp;

	ti.instance_id = (char *)instance;
	ti.has_start_ns = 1;
	ti.start_ns = mono;
	ti.has_start_realtime_ns = 1;
	ti.start_realtime_ns = real;
	len = neuronprof__system__trace_info__get_packed_size(&ti);
	buf = malloc(len ? len : 1);
	if (!buf)
		gen_die("malloc");
	neuronprof__system__trace_info__pack(&ti, buf);
	snprintf(path, sizeof(path), "%s/trace_info.pb", dir);
	fp = fopen(path, "wb");
	if (!fp || fwrite(buf, 1, len, fp) != len || fclose(fp))
		gen_die(path);
	free(buf);
}

static void mkdir_or_die(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		gen_die(path);
}

static void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (!fp || fputs(text, fp) < 0 || fclose(fp))
		gen_die(path);
}

/*
 * @n machines' recordings under @dir: machine h in DIR/h, named PREFIX-h,
 * cores 0 and 1 made by @core_fn, and a trace_info.pb (CLOCK_MONOTONIC 1 ms
 * at CLOCK_REALTIME 1700000000 s + h * @step ns) but for machine @no_info.
 */
static void machines(const char *dir, const char *prefix, uint32_t n,
		     void (*core_fn)(struct fixture *f, uint32_t machine, uint32_t core),
		     uint32_t no_info, uint64_t step)
{
	const char *instance = fixture_instance;
	struct fixture f;
	char path[4096];

	mkdir_or_die(dir);
	for (uint32_t h = 0; h < n; h++) {
		char name[32];

		snprintf(name, sizeof(name), "%s-%u", prefix, h);
		snprintf(path, sizeof(path), "%s/%u", dir, h);
		mkdir_or_die(path);
		fixture_instance = name;
		for (uint32_t c = 0; c < 2; c++) {
			char file[64];

			core_fn(&f, h, c);
			snprintf(file, sizeof(file), "profile_nc_%u_session_0.ntff", c);
			write_file(&f, path, file, c, 0);
			fixture_free(&f);
		}
		if (h != no_info)
			write_trace_info(path, name, 1000000, 1700000000000000000ULL + step * h);
	}
	fixture_instance = instance;
}

/* ROOT/@sub/@file, core @core: what @build makes, written with @flag set. */
static void flagged_file(const char *root, const char *sub, void (*build)(struct fixture *f),
			 bool *flag, const char *file, uint32_t core)
{
	struct fixture f;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, sub);
	mkdir_or_die(path);
	build(&f);
	*flag = true;
	write_file(&f, path, file, core, 0);
	*flag = false;
	fixture_free(&f);
}

static const char usage_text[] =
	"Usage: gen_fixtures [--split C] DIR              the test fixtures\n"
	"       gen_fixtures [--split C] --large N FILE   one file of about N entries\n"
	"       gen_fixtures [--split C] --jitter N FILE  the same, 50 to 249 ns steps\n"
	"       gen_fixtures [--split C] --fleet N DIR    N machines' recordings\n"
	"       gen_fixtures [--split C] --loss DIR       the planted-loss fixtures\n"
	"       gen_fixtures [--split C] --errors DIR     errors of two codes on two cores\n"
	"       gen_fixtures --ring-flags F ...           any of these, every queue's record\n"
	"                                                 carrying ring flags F (NEURONPROF_RING_*)\n"
	"       gen_fixtures --exec-range A-B ...         any of these, holding executions A-B\n"
	"       gen_fixtures --iter-range A-B ...         any of these, holding iterations A-B\n"
	"                                                 (3 seqs left out before each entry)\n"
	"       gen_fixtures -h | --help                  this text\n";

/*
 * Option @opt A-B (1 <= A <= B) at the front of the arguments, taken off
 * them into @first and @last; false (said) if it is there but malformed.
 */
static bool range_option(int *argc, char ***argv, const char *opt, uint64_t *first,
			 uint64_t *last)
{
	if (*argc <= 2 || strcmp((*argv)[1], opt))
		return true;
	if (sscanf((*argv)[2], "%" SCNu64 "-%" SCNu64, first, last) != 2 || !*first ||
	    *last < *first) {
		fprintf(stderr, "gen_fixtures: %s needs A-B with 1 <= A <= B\n", opt);
		return false;
	}
	*argc -= 2;
	*argv += 2;
	return true;
}

int main(int argc, char **argv)
{
	struct fixture f;
	char path[4096];

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!range_option(&argc, &argv, "--exec-range", &fixture_exec_first, &fixture_exec_last) ||
	    !range_option(&argc, &argv, "--iter-range", &fixture_iter_first, &fixture_iter_last))
		return 2;
	if (argc > 2 && !strcmp(argv[1], "--ring-flags")) {
		char *end;
		unsigned long v = strtoul(argv[2], &end, 0);

		if (*end || !v || v > UINT32_MAX) {
			fprintf(stderr, "gen_fixtures: --ring-flags needs non-zero flag bits, not '%s'\n",
				argv[2]);
			return 2;
		}
		fixture_ring_flags = (uint32_t)v;
		argc -= 2;
		argv += 2;
	}
	if (argc > 2 && !strcmp(argv[1], "--split")) {
		fixture_chunk = strtoull(argv[2], NULL, 0);
		if (!fixture_chunk) {
			fprintf(stderr, "gen_fixtures: --split needs a positive count\n");
			return 2;
		}
		argc -= 2;
		argv += 2;
	}
	if (argc == 3 && !strcmp(argv[1], "--errors")) {
		error_fixtures(argv[2]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--loss")) {
		loss_fixtures(argv[2]);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "--fleet")) {
		unsigned long n = strtoul(argv[2], NULL, 0);

		if (n < 2 || n > 64) {
			fprintf(stderr, "gen_fixtures: --fleet needs 2 to 64 machines\n");
			return 2;
		}
		machines(argv[3], "fleet", (uint32_t)n, fleet_core, 6, 2000);
		return 0;
	}
	if (argc == 4 && (!strcmp(argv[1], "--large") || !strcmp(argv[1], "--jitter"))) {
		char *copy = strdup(argv[3]), *slash, *name, *dir;

		if (!copy)
			gen_die("strdup");
		slash = strrchr(copy, '/');
		if (slash) {
			*slash = '\0';
			dir = copy;
			name = slash + 1;
		} else {
			dir = ".";
			name = copy;
		}
		if (!strcmp(argv[1], "--jitter"))
			large_jitter(&f, strtoull(argv[2], NULL, 0));
		else
			large(&f, strtoull(argv[2], NULL, 0));
		write_file(&f, dir, name, 0, 0);
		fixture_free(&f);
		free(copy);
		return 0;
	}
	/* An option where DIR belongs is an option this program does not know, not a name. */
	if (argc != 2 || argv[1][0] == '-') {
		if (argc == 2)
			fprintf(stderr, "gen_fixtures: unknown option '%s'\n", argv[1]);
		fputs(usage_text, stderr);
		return 2;
	}
	mkdir_or_die(argv[1]);
	snprintf(path, sizeof(path), "%s/prof", argv[1]);
	mkdir_or_die(path);
	snprintf(path, sizeof(path), "%s/prof/sub", argv[1]);
	mkdir_or_die(path);

	basic(&f);
	write_file(&f, argv[1], "basic.ntff", 0, 3);
	snprintf(path, sizeof(path), "%s/prof", argv[1]);
	write_file(&f, path, "profile_nc_0_session_3.ntff", 0, 3);
	fixture_free(&f);

	core1(&f);
	snprintf(path, sizeof(path), "%s/prof/sub", argv[1]);
	write_file(&f, path, "profile_nc_1_session_0.ntff", 1, 0);
	fixture_free(&f);

	gap(&f);
	write_file(&f, argv[1], "gap.ntff", 0, 0);
	fixture_free(&f);

	snprintf(path, sizeof(path), "%s/hosts", argv[1]);
	mkdir_or_die(path);
	for (int h = 0; h < 3; h++) {
		static const char *const names[3] = { "host-a", "host-b", "host-c" };

		snprintf(path, sizeof(path), "%s/hosts/%c", argv[1], 'a' + h);
		mkdir_or_die(path);
		fixture_instance = names[h];
		core1(&f);
		write_file(&f, path, "profile_nc_1_session_0.ntff", 1, 0);
		fixture_free(&f);
		if (h == 0)
			write_trace_info(path, names[h], 1000000, 1700000000000000000ULL);
		else if (h == 1)
			write_trace_info(path, names[h], 5000000, 1700000000000500000ULL);
	}
	snprintf(path, sizeof(path), "%s/straggler", argv[1]);
	machines(path, "strag", 4, straggler, 3, 1000);
	fixture_instance = "i-0123456789abcdef0";

	flagged_file(argv[1], "named", basic, &fixture_named, "synthetic_mlp_vnc_0.ntff", 0);
	flagged_file(argv[1], "raw", raw_fixture, &fixture_raw, "raw.ntff", 1);

	snprintf(path, sizeof(path), "%s/prof", argv[1]);
	system_profile(path);

	/* What a directory scan must skip: other files, a writer's temporary file. */
	snprintf(path, sizeof(path), "%s/prof/notes.txt", argv[1]);
	write_text(path, "not a profile\n");
	snprintf(path, sizeof(path), "%s/prof/.profile_nc_0_session_4.ntff.Ab12Cd.tmp", argv[1]);
	write_text(path, "NTFF\r\n\x1a\n(incomplete)");
	return 0;
}
