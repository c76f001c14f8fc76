// SPDX-License-Identifier: MIT
/*
 * capture_vm OUTDIR: the end-to-end SESSION capture test, run inside the VM
 * (lib/vmtests/run.sh) on a freshly booted kernel where neuronprof is
 * installed but not loaded.
 *
 *  1. The "no device" diagnosis through libkmod: installed but not loaded;
 *     after loading only neuronprof.ko, loaded without a device; then
 *     nprof_device_open() loads neuronprof_sim.ko itself.
 *  2. A SESSION on every core of the trn2 device: cores 0-6 with 1 MiB
 *     rings, core 7 with one-page rings on a second capture engine so that
 *     entries are lost. Every core runs its own SIM_EXEC programs in its own
 *     thread (one with THROTTLE, one with ERROR, one with both), then stops,
 *     and serializes into OUTDIR; core 0 then runs a second session, and
 *     core 1 two sessions where the second starts while the first is still
 *     stashed (it continues the same subscriptions), serialized in reverse.
 *  3. A second simulated device (new_device): nprof_device_list() finds
 *     both render nodes with distinct device indexes, each opens by its
 *     index, and a SESSION on core 0 of the second device captures its
 *     programs (into OUTDIR/device1) while a session on core 0 of the first
 *     device sees none of them.
 *  4. Captures longer than their rings (OUTDIR/stream): a streaming session
 *     on core 2 with one-page rings runs 80 programs that together put 20
 *     to 40 rings' worth on every queue but the error queues, waiting for
 *     the drainer (nprof_capture_session_sync()) between programs, and loses
 *     nothing; the same programs on core 3 without streaming
 *     (NPROF_CAPTURE_ZERO_COPY) lose exactly what one ring cannot hold.
 *  5. OUTDIR/manifest.txt records the device, every session and every
 *     execution with what SIM_EXEC reported per queue type, for the host
 *     checker (check_ntff.c) to compare the NTFF files against; the
 *     streaming session is marked "stream 1".
 *
 * Output: "ok N - ..." / "not ok N - ..." lines, then "N passed, N failed".
 */
#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <time.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/capture.h>
#include <neuronprof/device.h>
#include <neuronprof/ntff.h>

#include "../tests/harness.h"

#define NCORES		8
#define ENGINES		5
#define LOSSY_CORE	7
#define MAX_EXECS	2
#define LONG_EXECS	80	/* programs of a long session */
#define LONG_SUBDIR	"stream"
#define QT		NPROF_SIM_QUEUE_TYPES
#define NEW_DEVICE	"/sys/bus/platform/drivers/neuronprof_sim/new_device"
#define SECOND_SUBDIR	"device1"
#define SECOND_MODELS	1000	/* added to the second device's model ids */

struct exec_rec {
	struct nprof_sim_program prog;
	struct nprof_sim_result res;
	int ret;
};

struct core_run {
	uint32_t nc;
	struct nprof_device *dev;
	struct nprof_capture *cap;
	const char *outdir;
	const char *subdir;		/* of the manifest's OUTDIR, or NULL */
	uint32_t device_index;
	uint32_t model_offset;		/* added to program_for()'s model ids */
	struct exec_rec execs[LONG_EXECS];
	int nexecs;
	uint64_t session_id;
	int stop_ret, ser_ret;
	struct nprof_capture_stats stats;
	int stats_ret;
	bool streamed;			/* a long session of a streaming engine */
};

/* An empty program of model @model_id on core @nc. */
static void program_init(struct nprof_sim_program *p, uint32_t nc, uint32_t model_id)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->core = nc;
	p->model_id = model_id;
}

/* Programs differ per core: iterations, instructions, DMA and flags. */
static void program_for(uint32_t nc, int exec, struct nprof_sim_program *p)
{
	uint32_t e;

	program_init(p, nc, 1000 + nc * 10 + (uint32_t)exec);
	if (exec == 1) {
		/* A short second execution: the session spans executions. */
		p->iterations = 1;
		p->instructions[0] = 3;
		p->dma_transfers = 2;
		return;
	}
	p->iterations = 2 + nc % 3;
	for (e = 0; e < ENGINES; e++)
		p->instructions[e] = (nc + 1) * 4 + e;
	if (nc == 1)
		p->instructions[3] = 0;	/* an idle engine: no EVENT either */
	p->dma_transfers = nc;		/* core 0: none */
	if (nc == 2 || nc == 4 || nc == LOSSY_CORE)
		p->flags |= NPROF_SIM_EXEC_THROTTLE;
	if (nc == 3 || nc == 4)
		p->flags |= NPROF_SIM_EXEC_ERROR;
	if (nc == LOSSY_CORE)
		for (e = 0; e < ENGINES; e++)
			p->instructions[e] = 150;	/* 3 x 150 TRACE per engine, 64 slots */
}

/* Into @buf: "" for the first device, "device N: " for another (messages). */
static const char *dev_tag(const struct core_run *r, char *buf, size_t len)
{
	if (!r->device_index)
		buf[0] = '\0';
	else
		snprintf(buf, len, "device %u: ", r->device_index);
	return buf;
}

/* Run programs @first..@last (program_for() numbers), then stop. */
static void exec_and_stop(struct core_run *r, int first, int last)
{
	char tag[32];
	int i;

	dev_tag(r, tag, sizeof(tag));
	for (i = first; i <= last && r->nexecs < MAX_EXECS; i++) {
		struct exec_rec *x = &r->execs[r->nexecs++];

		program_for(r->nc, i, &x->prog);
		x->prog.model_id += r->model_offset;
		x->res.size = sizeof(x->res);
		x->ret = nprof_device_sim_exec(r->dev, &x->prog, &x->res);
		harness_result(!x->ret, "%score %u: SIM_EXEC %d (model %u, %u iterations, flags 0x%x)%s%s",
		       tag, r->nc, i, x->prog.model_id, x->prog.iterations, x->prog.flags,
		       x->ret ? ": " : "", x->ret ? nprof_strerror_last() : "");
	}
	r->stop_ret = nprof_capture_session_stop(r->cap, r->nc, &r->session_id);
	harness_result(!r->stop_ret, "%score %u: session stopped, id %" PRIu64 "%s%s", tag, r->nc,
	       r->session_id, r->stop_ret ? ": " : "", r->stop_ret ? nprof_strerror_last() : "");
	if (r->stop_ret)
		return;
	r->stats.size = sizeof(r->stats);
	r->stats_ret = nprof_capture_session_stats(r->cap, r->nc, r->session_id, &r->stats);
}

static void serialize(struct core_run *r)
{
	char tag[32];

	dev_tag(r, tag, sizeof(tag));
	r->ser_ret = nprof_capture_session_serialize(r->cap, r->nc, r->session_id, r->outdir);
	harness_result(!r->ser_ret, "%score %u: session %" PRIu64 " serialized into %s%s%s", tag, r->nc,
	       r->session_id, r->outdir, r->ser_ret ? ": " : "",
	       r->ser_ret ? nprof_strerror_last() : "");
}

static void *core_thread(void *arg)
{
	struct core_run *r = arg;

	exec_and_stop(r, 0, MAX_EXECS - 1);
	if (!r->stop_ret)
		serialize(r);
	return NULL;
}

/* In-VM check: the stash's counts against what SIM_EXEC reported. */
static void check_counts(const struct core_run *r)
{
	uint64_t produced[QT] = { 0 };
	bool ok = !r->stats_ret;
	char tag[32];
	int i, t;

	dev_tag(r, tag, sizeof(tag));
	for (i = 0; i < r->nexecs; i++)
		for (t = 0; t < QT; t++)
			produced[t] += r->execs[i].res.produced[t];
	for (t = 0; ok && t < QT; t++)
		if (r->stats.entries[t] + r->stats.lost[t] != produced[t]) {
			harness_diag("%score %u type %d: %" PRIu64 " entries + %" PRIu64 " lost != %" PRIu64
			     " produced", tag, r->nc, t, r->stats.entries[t], r->stats.lost[t], produced[t]);
			ok = false;
		}
	harness_result(ok, "%score %u: entries + lost == produced for every queue type", tag, r->nc);
	if (r->nc == LOSSY_CORE) {
		uint64_t lost = 0;

		for (t = 0; t < QT; t++)
			lost += r->stats.lost[t];
		harness_result(lost > 0 && (r->stats.ring_flags & NPROF_RING_OVERFLOWED),
		       "core %u: one-page rings lost %" PRIu64 " notifications and say OVERFLOWED",
		       r->nc, lost);
	}
}

/*
 * @follows: the session whose subscriptions this one continued (-1: fresh
 * subscriptions, sequence numbers start at 0). A streamed session is marked
 * "stream 1": its small rings lose nothing.
 */
static void manifest_session(FILE *m, const struct core_run *r, uint64_t ring_size,
			     int64_t follows)
{
	int i, t, e;

	fprintf(m, "session core %u id %" PRIu64 " file %s%sprofile_nc_%u_session_%" PRIu64
		   ".ntff ring_size %" PRIu64 " follows %" PRId64 " device %u%s\n",
		r->nc, r->session_id, r->subdir ? r->subdir : "", r->subdir ? "/" : "", r->nc,
		r->session_id, ring_size, follows, r->device_index, r->streamed ? " stream 1" : "");
	for (i = 0; i < r->nexecs; i++) {
		const struct exec_rec *x = &r->execs[i];

		if (x->ret)
			continue;
		fprintf(m, "exec core %u id %" PRIu64 " model %u iterations %u flags %u dma %u instr ",
			r->nc, r->session_id, x->prog.model_id, x->prog.iterations, x->prog.flags,
			x->prog.dma_transfers);
		for (e = 0; e < ENGINES; e++)
			fprintf(m, "%s%u", e ? "," : "", x->prog.instructions[e]);
		fprintf(m, " status %u produced ", x->res.status);
		for (t = 0; t < QT; t++)
			fprintf(m, "%s%" PRIu64, t ? "," : "", x->res.produced[t]);
		fprintf(m, "\n");
	}
}

/* Programs of a long session: at most 32 notifications per queue each. */
static void long_program(uint32_t nc, int i, struct nprof_sim_program *p)
{
	uint32_t e;

	program_init(p, nc, 5000 + nc * 100 + (uint32_t)i);
	p->iterations = 16;
	for (e = 0; e < ENGINES; e++)
		p->instructions[e] = 2;
	p->dma_transfers = ENGINES;
	p->flags = NPROF_SIM_EXEC_THROTTLE | NPROF_SIM_EXEC_ERROR;
}

/*
 * Step 4: LONG_EXECS programs on core @nc of a fresh engine with one-page
 * rings, streaming into @outdir's spools or (@zero_copy) not, serialized
 * into @outdir. Fills @r for the manifest.
 */
static void long_session(struct nprof_device *dev, uint32_t nc, bool zero_copy,
			 const char *outdir, struct core_run *r)
{
	struct nprof_capture_opts o = { .size = sizeof(o) };
	uint64_t produced[QT] = { 0 }, lost = 0, below = 0;
	const char *what = zero_copy ? "without streaming" : "streaming";
	struct nprof_capture *cap;
	int i, t, ret, sync_fail = 0;

	memset(r, 0, sizeof(*r));
	r->stop_ret = r->ser_ret = -ENOENT;
	r->nc = nc;
	r->dev = dev;
	r->outdir = outdir;
	r->subdir = LONG_SUBDIR;
	r->streamed = !zero_copy;
	for (t = 0; t < NPROF_QUEUE_TYPES; t++)
		o.ring_size[t] = 1;	/* one page */
	o.flags = zero_copy ? NPROF_CAPTURE_ZERO_COPY : 0;
	o.spool_dir = outdir;
	cap = nprof_capture_create(dev, &o);
	r->cap = cap;
	ret = cap ? nprof_capture_session_start(cap, nc) : -errno;
	harness_result(!ret, "core %u: long session %s, one-page rings, started%s%s", nc, what,
	       ret ? ": " : "", ret ? nprof_strerror_last() : "");
	if (ret) {
		nprof_capture_close(cap);
		return;
	}
	for (i = 0; i < LONG_EXECS; i++) {
		struct exec_rec *x = &r->execs[r->nexecs++];

		long_program(nc, i, &x->prog);
		x->res.size = sizeof(x->res);
		x->ret = nprof_device_sim_exec(dev, &x->prog, &x->res);
		if (x->ret) {
			harness_result(false, "core %u: long session: SIM_EXEC %d: %s", nc, i,
			       nprof_strerror_last());
			break;
		}
		/* Waits for the drainer, which frees the ring for the next program. */
		if (nprof_capture_session_sync(cap, nc))
			sync_fail++;
		for (t = 0; t < QT; t++)
			produced[t] += x->res.produced[t];
	}
	harness_result(!sync_fail, "core %u: long session %s: %d syncs failed", nc, what, sync_fail);
	r->stop_ret = nprof_capture_session_stop(cap, nc, &r->session_id);
	r->stats.size = sizeof(r->stats);
	r->stats_ret = r->stop_ret ? r->stop_ret :
				     nprof_capture_session_stats(cap, nc, r->session_id, &r->stats);
	harness_result(!r->stats_ret, "core %u: long session %s stopped%s%s", nc, what,
	       r->stats_ret ? ": " : "", r->stats_ret ? nprof_strerror_last() : "");
	if (r->stats_ret) {
		nprof_capture_close(cap);
		return;
	}
	check_counts(r);
	for (t = 0; t < QT; t++)
		lost += r->stats.lost[t];
	/* Every TRACE queue got 40 rings' worth; one ring of each was kept without streaming. */
	below = produced[NEURONPROF_QT_TRACE] - (uint64_t)ENGINES * 64;
	if (zero_copy)
		harness_result(r->stats.entries[NEURONPROF_QT_TRACE] == (uint64_t)ENGINES * 64 &&
		       r->stats.lost[NEURONPROF_QT_TRACE] == below,
		       "core %u: without streaming TRACE kept %" PRIu64 " (one ring per engine) and lost %" PRIu64 " of %" PRIu64,
		       nc, r->stats.entries[NEURONPROF_QT_TRACE], r->stats.lost[NEURONPROF_QT_TRACE],
		       produced[NEURONPROF_QT_TRACE]);
	else
		harness_result(lost == 0 && produced[NEURONPROF_QT_DMA] >= 20ULL * 64 * ENGINES &&
		       produced[NEURONPROF_QT_TOPSP_TRACE] >= 20ULL * 64 * 2,
		       "core %u: streaming lost %" PRIu64 " of %" PRIu64 " TRACE, %" PRIu64 " DMA, %" PRIu64 " TOPSP_TRACE notifications (20 rings and more per queue)",
		       nc, lost, produced[NEURONPROF_QT_TRACE], produced[NEURONPROF_QT_DMA],
		       produced[NEURONPROF_QT_TOPSP_TRACE]);
	r->ser_ret = nprof_capture_session_serialize(cap, nc, r->session_id, outdir);
	harness_result(!r->ser_ret, "core %u: long session %s serialized into %s%s%s", nc, what, outdir,
	       r->ser_ret ? ": " : "", r->ser_ret ? nprof_strerror_last() : "");
	nprof_capture_close(cap);
	r->cap = NULL;
}

static struct nprof_device *diagnose_and_open(void)
{
	struct nprof_device_node nodes[4];
	struct nprof_device *dev;
	int n, i;

	for (i = 0; i < 4; i++)
		nodes[i].size = sizeof(nodes[i]);
	n = nprof_device_list(nodes, 4);
	harness_result(n == 0, "no neuronprof device before any module is loaded (found %d)", n);

	dev = nprof_device_open(NPROF_DEVICE_ANY, 0);
	harness_result(!dev && errno == ENODEV &&
	       strstr(nprof_strerror_last(), "the kernel module neuronprof is installed but not loaded"),
	       "no device, module not loaded: \"%s\"", nprof_strerror_last());
	nprof_device_close(dev);

	dev = nprof_device_open(NPROF_DEVICE_ANY, NPROF_DEVICE_LOAD_MODULE);
	harness_result(!dev && errno == ENODEV &&
	       strstr(nprof_strerror_last(),
		      "neuronprof is loaded but no device is registered; no Neuron hardware was found and neuronprof_sim is not loaded"),
	       "no device after loading neuronprof.ko alone: \"%s\"", nprof_strerror_last());
	nprof_device_close(dev);

	dev = nprof_device_open(NPROF_DEVICE_ANY, NPROF_DEVICE_LOAD_SIM);
	harness_result(dev != NULL, "nprof_device_open() loads neuronprof_sim and opens %s%s%s",
	       dev ? nprof_device_path(dev) : "nothing", dev ? "" : ": ",
	       dev ? "" : nprof_strerror_last());
	n = nprof_device_list(nodes, 4);
	harness_result(n == 1 && nodes[0].device_index == 0 && nodes[0].arch == 3 &&
	       !strcmp(nodes[0].provider, "sim") && nodes[0].num_cores == NCORES,
	       "libdrm enumeration finds one trn2 sim device (found %d: %s)", n,
	       n > 0 ? nodes[0].path : "-");
	return dev;
}

/* Create simulated device @id through the simulator's new_device. */
static int sim_new_device(unsigned int id)
{
	FILE *f = fopen(NEW_DEVICE, "w");

	if (!f)
		return -errno;
	fprintf(f, "%u\n", id);
	/* The write happens at the flush: its error is the driver's answer. */
	return fclose(f) ? -errno : 0;
}

/*
 * A second device (id 1): both are enumerated, each opens by its index, and
 * a SESSION on core 0 of the second one captures its programs while core 0
 * of the first (@cap0) has a session too, which must see nothing of them.
 * The second device's session goes to @r (serialized into @subdir_path,
 * OUTDIR/device1); its device and engine are returned in @dev1 and @cap1.
 */
static void second_device(struct nprof_capture *cap0, const char *subdir_path, struct core_run *r,
			  struct nprof_device **dev1, struct nprof_capture **cap1)
{
	struct nprof_device_info i0 = { .size = sizeof(i0) }, i1 = { .size = sizeof(i1) };
	struct nprof_capture_stats st0 = { .size = sizeof(st0) };
	struct nprof_device_node nodes[4];
	struct nprof_device *d0 = NULL, *d1 = NULL;
	uint64_t id0 = 0, seen0 = 0, produced = 0;
	int n = 0, i, t, ret, ret0, tries;
	bool ok;

	memset(r, 0, sizeof(*r));
	r->stop_ret = r->ser_ret = -ENOENT;	/* nothing to put in the manifest yet */
	ret = sim_new_device(1);
	harness_result(!ret, "second simulated device created through %s%s%s", NEW_DEVICE,
	       ret ? ": " : "", ret ? strerror(-ret) : "");
	if (ret)
		return;
	/* Probing is synchronous, but leave the render node a moment anyway. */
	for (tries = 0; tries < 40; tries++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		for (i = 0; i < 4; i++)
			nodes[i].size = sizeof(nodes[i]);
		n = nprof_device_list(nodes, 4);
		if (n >= 2)
			break;
		nanosleep(&ts, NULL);
	}
	ok = n == 2 && nodes[0].device_index == 0 && nodes[1].device_index > 0 &&
	     strcmp(nodes[0].path, nodes[1].path);
	for (i = 0; ok && i < 2; i++)
		ok = nodes[i].arch == 3 && !strcmp(nodes[i].provider, "sim") &&
		     nodes[i].num_cores == NCORES;
	harness_result(ok, "nprof_device_list() finds both sim devices, sorted by index (found %d: %s index %u, %s index %u)",
	       n, n > 0 ? nodes[0].path : "-", n > 0 ? nodes[0].device_index : 0,
	       n > 1 ? nodes[1].path : "-", n > 1 ? nodes[1].device_index : 0);
	if (n != 2)
		return;

	d0 = nprof_device_open((int)nodes[0].device_index, 0);
	d1 = nprof_device_open((int)nodes[1].device_index, 0);
	ok = d0 && d1 && !nprof_device_get_info(d0, &i0) && !nprof_device_get_info(d1, &i1) &&
	     i0.device_index == nodes[0].device_index && i1.device_index == nodes[1].device_index &&
	     !strcmp(nprof_device_path(d0), nodes[0].path) &&
	     !strcmp(nprof_device_path(d1), nodes[1].path);
	harness_result(ok, "each device opens by its index: GET_INFO device_index %u at %s, %u at %s%s%s",
	       i0.device_index, d0 ? nprof_device_path(d0) : "-", i1.device_index,
	       d1 ? nprof_device_path(d1) : "-", ok ? "" : ": ", ok ? "" : nprof_strerror_last());
	nprof_device_close(d0);
	if (!ok) {
		nprof_device_close(d1);
		return;
	}
	*dev1 = d1;
	*cap1 = nprof_capture_create(d1, NULL);
	harness_result(*cap1 != NULL, "device %u: capture engine created%s%s", i1.device_index,
	       *cap1 ? "" : ": ", *cap1 ? "" : nprof_strerror_last());
	if (!*cap1)
		return;

	/* The same core number on both devices: distinct queues, no EBUSY. */
	ret = nprof_capture_session_start(*cap1, 0);
	harness_result(!ret, "device %u: core 0 session started%s%s", i1.device_index, ret ? ": " : "",
	       ret ? nprof_strerror_last() : "");
	ret0 = nprof_capture_session_start(cap0, 0);
	harness_result(!ret0, "device 0: core 0 session started alongside it%s%s", ret0 ? ": " : "",
	       ret0 ? nprof_strerror_last() : "");
	if (ret)
		return;

	r->nc = 0;
	r->dev = d1;
	r->cap = *cap1;
	r->outdir = subdir_path;
	r->subdir = SECOND_SUBDIR;
	r->device_index = i1.device_index;
	r->model_offset = SECOND_MODELS;
	r->stop_ret = r->ser_ret = 0;
	exec_and_stop(r, 0, MAX_EXECS - 1);
	check_counts(r);
	for (i = 0; i < r->nexecs; i++)
		for (t = 0; t < QT; t++)
			produced += r->execs[i].res.produced[t];

	if (!ret0) {
		ret0 = nprof_capture_session_stop(cap0, 0, &id0);
		if (!ret0)
			ret0 = nprof_capture_session_stats(cap0, 0, id0, &st0);
		for (t = 0; !ret0 && t < QT; t++)
			seen0 += st0.entries[t] + st0.lost[t];
		harness_result(!ret0 && seen0 == 0 && produced > 0,
		       "device 0: core 0 saw %" PRIu64 " of the %" PRIu64 " notifications device %u produced%s%s",
		       seen0, produced, i1.device_index, ret0 ? ": " : "",
		       ret0 ? nprof_strerror_last() : "");
	}

	if (r->stop_ret)
		return;
	ret = mkdir(subdir_path, 0755) ? -errno : 0;
	harness_result(!ret, "%s created%s%s", subdir_path, ret ? ": " : "", ret ? strerror(-ret) : "");
	if (ret) {
		r->ser_ret = ret;
		return;
	}
	serialize(r);
}

int main(int argc, char **argv)
{
	struct nprof_capture_opts small = { .size = sizeof(small) };
	struct nprof_device_info info = { .size = sizeof(info) };
	struct nprof_capture *cap = NULL, *lossy = NULL, *cap1 = NULL;
	struct core_run runs[NCORES], again, reuse[2], second, longs[2];
	pthread_t threads[NCORES];
	struct nprof_device *dev, *dev1 = NULL;
	char path[512], subdir[512];
	FILE *m = NULL;
	uint32_t nc;
	int t, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	dev = diagnose_and_open();
	if (!dev)
		goto out;
	ret = nprof_device_get_info(dev, &info);
	harness_result(!ret && info.arch == 3 && info.num_cores == NCORES && info.num_topsps == 16 &&
	       info.engines_per_core == ENGINES && info.entry_size == 64 &&
	       (info.caps & NPROF_DEVICE_CAP_SIM_EXEC) && (info.caps & NPROF_DEVICE_CAP_FLUSH),
	       "GET_INFO: arch %u, %u cores, %u TopSPs, %u engines, %u-byte entries, caps 0x%" PRIx64,
	       info.arch, info.num_cores, info.num_topsps, info.engines_per_core, info.entry_size,
	       info.caps);
	if (ret || info.num_cores != NCORES || info.engines_per_core != ENGINES)
		goto out;

	cap = nprof_capture_create(dev, NULL);
	for (t = 0; t < NPROF_QUEUE_TYPES; t++)
		small.ring_size[t] = 1;	/* rounded up to one page */
	small.flags = NPROF_CAPTURE_ZERO_COPY;	/* the seed's behaviour: what does not fit is lost */
	lossy = nprof_capture_create(dev, &small);
	harness_result(cap && lossy, "two capture engines on the device");
	if (!cap || !lossy)
		goto out;

	for (nc = 0; nc < NCORES; nc++) {
		struct nprof_capture *c = nc == LOSSY_CORE ? lossy : cap;

		ret = nprof_capture_session_start(c, nc);
		harness_result(!ret, "core %u: session started%s%s", nc, ret ? ": " : "",
		       ret ? nprof_strerror_last() : "");
	}
	ret = nprof_capture_session_start(cap, 3);
	harness_result(ret == -EBUSY, "a second start on core 3 fails with EBUSY (%d: %s)", ret,
	       nprof_strerror_last());
	/*
	 * The other engine holds core 7's queues; since uapi 4 a queue takes
	 * several subscribers, each with its own ring, so a second engine's
	 * session starts beside it. It is stopped and dropped at once, which
	 * leaves the lossy engine alone on core 7 for what follows.
	 */
	ret = nprof_capture_session_start(cap, LOSSY_CORE);
	{
		bool both = !ret && nprof_capture_session_active(cap, LOSSY_CORE) == 1 &&
			    nprof_capture_session_active(lossy, LOSSY_CORE) == 1;
		uint64_t sid = 0;
		int sret = ret ? -1 : nprof_capture_session_stop(cap, LOSSY_CORE, &sid);

		if (!sret)
			sret = nprof_capture_session_drop(cap, LOSSY_CORE, sid);
		harness_result(both && !sret && nprof_capture_session_active(cap, LOSSY_CORE) == 0 &&
		       nprof_capture_session_active(lossy, LOSSY_CORE) == 1,
		       "core 7 on a second engine: a second subscriber beside the first, stopped and dropped (%d: %s)",
		       ret, ret ? nprof_strerror_last() : "ok");
	}

	for (nc = 0; nc < NCORES; nc++) {
		memset(&runs[nc], 0, sizeof(runs[nc]));
		runs[nc].nc = nc;
		runs[nc].dev = dev;
		runs[nc].cap = nc == LOSSY_CORE ? lossy : cap;
		runs[nc].outdir = argv[1];
		pthread_create(&threads[nc], NULL, core_thread, &runs[nc]);
	}
	for (nc = 0; nc < NCORES; nc++)
		pthread_join(threads[nc], NULL);
	for (nc = 0; nc < NCORES; nc++) {
		harness_result(runs[nc].session_id == 0, "core %u: first session id is 0", nc);
		check_counts(&runs[nc]);
	}

	/* A second session on core 0: fresh subscriptions, the next id. */
	memset(&again, 0, sizeof(again));
	again.nc = 0;
	again.dev = dev;
	again.cap = cap;
	again.outdir = argv[1];
	ret = nprof_capture_session_start(cap, 0);
	harness_result(!ret, "core 0: second session started%s%s", ret ? ": " : "",
	       ret ? nprof_strerror_last() : "");
	core_thread(&again);
	harness_result(again.session_id == 1, "core 0: second session id is 1 (%" PRIu64 ")",
	       again.session_id);
	check_counts(&again);
	ret = nprof_capture_session_serialize(cap, 0, 0, argv[1]);
	harness_result(ret == -ENOENT && !strcmp(nprof_strerror_last(), "unable to find profile session id 0"),
	       "serializing session 0 again: \"%s\"", nprof_strerror_last());

	/*
	 * Core 1: a session stopped and left stashed keeps the rings; the next
	 * session continues them. Serialize the later one first.
	 */
	for (t = 0; t < 2; t++) {
		memset(&reuse[t], 0, sizeof(reuse[t]));
		reuse[t].nc = 1;
		reuse[t].dev = dev;
		reuse[t].cap = cap;
		reuse[t].outdir = argv[1];
		ret = nprof_capture_session_start(cap, 1);
		harness_result(!ret, "core 1: session %d started%s%s", t + 1, ret ? ": " : "",
		       ret ? nprof_strerror_last() : "");
		exec_and_stop(&reuse[t], t, t);
		harness_result(reuse[t].session_id == (uint64_t)t + 1, "core 1: session id %" PRIu64,
		       reuse[t].session_id);
		check_counts(&reuse[t]);
	}
	serialize(&reuse[1]);
	serialize(&reuse[0]);

	snprintf(subdir, sizeof(subdir), "%s/%s", argv[1], SECOND_SUBDIR);
	second_device(cap, subdir, &second, &dev1, &cap1);

	snprintf(subdir, sizeof(subdir), "%s/%s", argv[1], LONG_SUBDIR);
	ret = mkdir(subdir, 0755) ? -errno : 0;
	harness_result(!ret, "%s created%s%s", subdir, ret ? ": " : "", ret ? strerror(-ret) : "");
	long_session(dev, 2, false, subdir, &longs[0]);
	long_session(dev, 3, true, subdir, &longs[1]);

	snprintf(path, sizeof(path), "%s/manifest.txt", argv[1]);
	m = fopen(path, "w");
	harness_result(m != NULL, "manifest %s created", path);
	if (m) {
		fprintf(m, "device arch %u cores %u topsps %u engines %u entry_size %u clock %u\n",
			info.arch, info.num_cores, info.num_topsps, info.engines_per_core,
			info.entry_size, info.clock_id);
		for (nc = 0; nc < NCORES; nc++)
			if (!runs[nc].ser_ret && !runs[nc].stop_ret)
				manifest_session(m, &runs[nc],
						 nc == LOSSY_CORE ? 4096 : NPROF_CAPTURE_DEFAULT_RING_SIZE, -1);
		if (!again.ser_ret && !again.stop_ret)
			manifest_session(m, &again, NPROF_CAPTURE_DEFAULT_RING_SIZE, -1);
		if (!reuse[0].ser_ret && !reuse[0].stop_ret)
			manifest_session(m, &reuse[0], NPROF_CAPTURE_DEFAULT_RING_SIZE, -1);
		if (!reuse[1].ser_ret && !reuse[1].stop_ret)
			manifest_session(m, &reuse[1], NPROF_CAPTURE_DEFAULT_RING_SIZE,
					 (int64_t)reuse[0].session_id);
		if (!second.ser_ret && !second.stop_ret)
			manifest_session(m, &second, NPROF_CAPTURE_DEFAULT_RING_SIZE, -1);
		for (t = 0; t < 2; t++)
			if (!longs[t].ser_ret && !longs[t].stop_ret)
				manifest_session(m, &longs[t], 4096, -1);
		harness_result(!fclose(m), "manifest written");
	}
out:
	nprof_capture_close(cap);
	nprof_capture_close(lossy);
	nprof_capture_close(cap1);
	nprof_device_close(dev1);
	nprof_device_close(dev);
	return harness_done();
}
