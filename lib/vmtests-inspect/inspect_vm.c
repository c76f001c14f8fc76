// SPDX-License-Identifier: MIT
/*
 * The guest side of the session-layer VM test: scenarios run on simulated
 * devices (neuronprof_sim), each in its own directory under /out. A
 * scenario checks what only the guest can see (return codes, the salvage
 * directory before close removes it) and writes expect.txt, which tells
 * check_inspect on the host what the directory must hold: the session tree,
 * every NTFF file with its kind, core, model and exact entry count (the
 * counts the simulator reported producing), files that must be absent, and
 * the events of ntrace.pb (each kind on its core with its attributes, and
 * their total, derived from what the scenario did).
 *
 *   inspect_vm session DIR      environment-driven session, SESSION mode
 *   inspect_vm session2 DIR     the same on two simulated devices: virtual
 *                               cores run across both, in device order
 *   inspect_vm model DIR        MODEL mode with inspect-on-fail
 *   inspect_vm onfail DIR       inspect-on-fail alone
 *   inspect_vm continuous DIR   continuous profiling
 *   inspect_vm crash DIR        SESSION mode, then abort() without a stop
 *
 * Captures longer than their rings (Documentation/capture.rst, "Streaming"):
 *
 *   inspect_vm model_stream DIR     MODEL capture of one execution that puts
 *                                   LONG_RINGS rings' worth on every TRACE
 *                                   and DMA queue of its core
 *   inspect_vm model_zerocopy DIR   the same with NEURON_RT_INSPECT_STREAMING=0
 *   inspect_vm continuous_stream DIR     the same execution as a continuous
 *                                   profile, sized and switched by an on-fail
 *                                   inspect session's environment
 *   inspect_vm continuous_zerocopy DIR   the same with streaming off
 *   inspect_vm crash_stream DIR     SESSION mode on core 0: abort() after the
 *                                   drainer wrote part of the file
 *   inspect_vm kill_stream DIR      the same, then SIGKILL (no flush)
 *
 * The streaming scenarios check that the environment switched streaming as
 * their name says; their expect.txt gives check_inspect's "queues" line:
 * every entry present in order, and entries + lost equal to what SIM_EXEC
 * reported producing.
 *
 * The environment (NEURON_RT_INSPECT_*, NEURON_RT_PROFILE_BUF_*_MB) comes
 * from the caller; relative output directories are relative to DIR, which
 * becomes the working directory. Each run ends with "N passed, N failed".
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/capture.h>
#include <neuronprof/config.h>
#include <neuronprof/device.h>
#include <neuronprof/inspect.h>
#include <neuronprof/ntff.h>
#include <neuronprof/output.h>
#include <neuronprof/profile.h>
#include <neuronprof/runtime.h>

#include "../tests/harness.h"

static FILE *expect_file;

/* One result; a failed one names the library's last error. */
static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (ok)
		harness_result(true, "%s", what);
	else
		harness_result(false, "%s (%s)", what, nprof_strerror_last());
}

static void expect(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(expect_file, fmt, ap);
	va_end(ap);
	fputc('\n', expect_file);
	fflush(expect_file);
}

static struct nprof_device_node nodes[16];
static int nnodes;

/* The devices, as the session layer numbers them (nprof_device_list() order). */
static void list_devices(void)
{
	int i;

	for (i = 0; i < 16; i++)
		nodes[i].size = sizeof(nodes[i]);
	nnodes = nprof_device_list(nodes, 16);
	if (nnodes > 16)
		nnodes = 16;
}

static uint32_t total_cores(void)
{
	uint32_t n = 0;
	int i;

	list_devices();
	for (i = 0; i < nnodes; i++)
		n += nodes[i].num_cores;
	return n;
}

/*
 * The node (nodes[] index) of virtual core @vnc, -1 if none; *@local: its
 * core on that device. The devices' cores follow each other.
 */
static int node_of(uint32_t vnc, uint32_t *local)
{
	int i;

	for (i = 0; i < nnodes; i++) {
		if (vnc < nodes[i].num_cores) {
			if (local)
				*local = vnc;
			return i;
		}
		vnc -= nodes[i].num_cores;
	}
	return -1;
}

/* The device index of virtual core @vnc. */
static uint32_t device_of(uint32_t vnc)
{
	int i = node_of(vnc, NULL);

	return i < 0 ? UINT32_MAX : nodes[i].device_index;
}

/* ---- the system trace -------------------------------------------------------------- */

/* Queues the library subscribes to capture one core of each listed device. */
static uint32_t queues[16];

/*
 * The library's queue plan (Documentation/capture.rst): every core queue
 * type, one per engine for per-engine types, and every TopSP queue type of
 * each of the core's TopSPs. Every type the simulator has is one the
 * library knows. Read with the trace off, so it is not in any session.
 */
static void count_queues(void)
{
	int i;

	for (i = 0; i < nnodes; i++) {
		struct nprof_device_info info = { .size = sizeof(info) };
		struct nprof_device *dev = nprof_device_open((int)nodes[i].device_index, 0);
		uint32_t t, n = 0;

		queues[i] = 0;
		check(dev && !nprof_device_get_info(dev, &info), "device %u described",
		      nodes[i].device_index);
		nprof_device_close(dev);
		if (!dev || !info.num_cores)
			continue;
		for (t = 0; t < 32; t++) {
			if (info.core_queue_types & (1u << t))
				n += info.per_engine_queue_types & (1u << t) ? info.engines_per_core : 1;
			if (info.topsp_queue_types & (1u << t))
				n += info.num_topsps / info.num_cores;
		}
		queues[i] = n;
	}
}

static uint32_t queues_of(uint32_t vnc)
{
	int i = node_of(vnc, NULL);

	return i < 0 ? 0 : queues[i];
}

/*
 * What a session's begin records of the devices: the library opens every
 * device (device_open, no core) after the trace started; they close after
 * it stopped. Returns the events.
 */
static uint32_t expect_devices(void)
{
	int i;

	for (i = 0; i < nnodes; i++)
		expect("trace $S/ntrace.pb device_open none 1 device=%u path=%s cores=%u provider=%s",
		       nodes[i].device_index, nodes[i].path, nodes[i].num_cores, nodes[i].provider);
	expect("trace $S/ntrace.pb device_open none %d", nnodes);
	expect("trace $S/ntrace.pb device_close * 0");
	return (uint32_t)nnodes;
}

/*
 * One capture of @vnc (about @model if non-zero) that harvested @entries:
 * profile_start, _stop, _serialize once, and per queue one nq_subscribe
 * (naming the device) and one nq_drain (the harvest's, with a flush); the
 * 1 MiB rings lose nothing. Returns the events.
 */
static uint32_t expect_capture(uint32_t vnc, uint64_t model, uint64_t entries)
{
	uint32_t q = queues_of(vnc);
	char m[32] = "";

	if (model)
		snprintf(m, sizeof(m), " model=%llu", (unsigned long long)model);
	expect("trace $S/ntrace.pb profile_start %u 1 queues=%u%s", vnc, q, m);
	expect("trace $S/ntrace.pb profile_stop %u 1 session_id=0 entries=%llu lost=0%s", vnc,
	       (unsigned long long)entries, m);
	expect("trace $S/ntrace.pb profile_serialize %u 1 session_id=0%s", vnc, m);
	expect("trace $S/ntrace.pb nq_subscribe %u %u device=%u", vnc, q, device_of(vnc));
	expect("trace $S/ntrace.pb nq_drain %u %u flush=1", vnc, q);
	expect("trace $S/ntrace.pb nq_overflow %u 0", vnc);
	return 3 + 2 * q;
}

/* Run one execution; returns the notifications the simulator produced. */
static uint64_t run(struct nprof_model *m, uint32_t iterations, bool fail)
{
	struct nprof_sim_result res = { .size = sizeof(res) };
	struct nprof_sim_program p;
	uint64_t total = 0;
	int ret, t;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.iterations = iterations;
	p.instructions[0] = 5;
	p.instructions[1] = 3;
	p.instructions[2] = 1;
	p.dma_transfers = 2;
	p.flags = fail ? NPROF_SIM_EXEC_ERROR : 0;
	ret = nprof_model_sim_execute(m, &p, &res);
	check(!ret && res.status == (fail ? 1004u : 0u), "execute %s on NC %d, %u iterations%s: status %u",
	      nprof_model_name(m), nprof_model_vnc(m), iterations, fail ? ", failing" : "", res.status);
	for (t = 0; t < NPROF_SIM_QUEUE_TYPES; t++)
		total += res.produced[t];
	return total;
}

static struct nprof_model *load(const char *name, uint64_t id, uint32_t vnc)
{
	struct nprof_model *m = nprof_model_load(name, id, vnc);

	check(m != NULL, "load %s on NC %u", name, vnc);
	if (!m)
		exit(1);
	return m;
}

static void instance(char *buf, size_t len)
{
	if (nprof_output_instance_id(NULL, buf, len) < 0)
		snprintf(buf, len, "unknown");
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	size_t n;
	int ret = 0;

	if (!in || !out)
		ret = -1;
	while (!ret && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			ret = -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		ret = -1;
	return ret;
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* ---- captures longer than their rings ------------------------------------------- */

#define LONG_RINGS	20			/* rings' worth on every TRACE and DMA queue */
#define LONG_PARTS	(2 * LONG_RINGS)	/* programs of half a ring each */
#define LONG_INSNS	128			/* per engine and iteration; DMA transfers too */
#define STREAM_WAIT_S	60			/* for the drainer, at most */

/* The progress page the capture engines of this process count into (capture.h). */
static struct nprof_progress_page *progress;

/* Create the progress page and name it in the environment: before the first capture. */
static void progress_open(void)
{
	char fd_str[16];
	int fd = memfd_create("nprof-progress", 0);
	void *p = MAP_FAILED;

	if (fd >= 0 && !ftruncate(fd, sizeof(*progress)))
		p = mmap(NULL, sizeof(*progress), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	check(p != MAP_FAILED, "a progress page in a memfd%s%s", p == MAP_FAILED ? ": " : "",
	      p == MAP_FAILED ? strerror(errno) : "");
	if (p == MAP_FAILED)
		exit(1);
	progress = p;
	progress->magic = NPROF_PROGRESS_MAGIC;
	snprintf(fd_str, sizeof(fd_str), "%d", fd);
	setenv(NPROF_PROGRESS_FD_ENV, fd_str, 1);
}

/* Entries the engines of this process wrote into capture files so far. */
static uint64_t streamed(void)
{
	return __atomic_load_n(&progress->entries, __ATOMIC_RELAXED);
}

/* Wait until the drainer wrote @target entries in all; false after STREAM_WAIT_S. */
static bool wait_streamed(uint64_t target)
{
	struct timespec ms = { 0, 1000000 };
	long i;

	for (i = 0; i < STREAM_WAIT_S * 1000L && streamed() < target; i++)
		nanosleep(&ms, NULL);
	return streamed() >= target;
}

/* What the executions of a scenario produced, and the rings they went to. */
struct long_exec {
	struct nprof_device *dev;
	struct nprof_device_info info;
	uint32_t local;				/* the core on dev */
	uint64_t ring[NPROF_QUEUE_TYPES];	/* entries of a ring of each type */
	uint64_t min_ring;			/* of the smallest */
	uint64_t produced[NPROF_SIM_QUEUE_TYPES];
	uint64_t total;
};

/*
 * Open the device of virtual core @vnc and size its rings as a capture
 * does: the environment's NEURON_RT_PROFILE_BUF_<TYPE>_MB, as the device
 * layer rounds them. Checks that the environment switches streaming as
 * @streaming says.
 */
static void long_setup(uint32_t vnc, bool streaming, struct long_exec *x)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	int node, on = -1;
	uint64_t size;
	uint32_t t;

	memset(x, 0, sizeof(*x));
	x->info.size = sizeof(x->info);
	list_devices();
	node = node_of(vnc, &x->local);
	x->dev = node < 0 ? NULL : nprof_device_open((int)nodes[node].device_index, 0);
	check(x->dev && !nprof_device_get_info(x->dev, &x->info) && x->info.entry_size,
	      "the device of NC %u opened", vnc);
	check(cfg && !nprof_inspect_config_parse_env(cfg, NULL, NULL),
	      "the configuration of the environment");
	if (!x->dev || !cfg || !x->info.entry_size)
		exit(1);
	x->min_ring = UINT64_MAX;
	for (t = 0; t < NPROF_QUEUE_TYPES; t++) {
		if (nprof_inspect_config_get_ring_size(cfg, t, &size))
			size = 0;
		x->ring[t] = nprof_device_ring_size(x->dev, size) / x->info.entry_size;
		if (x->ring[t] < x->min_ring)
			x->min_ring = x->ring[t];
	}
	on = nprof_inspect_config_get_streaming(cfg);
	nprof_inspect_config_free(cfg);
	check(on == streaming, "the environment switches streaming %s", streaming ? "on" : "off");
	check(x->min_ring >= 2 * LONG_INSNS, "rings of at least %llu entries (the smallest: %llu)",
	      2ULL * LONG_INSNS, (unsigned long long)x->min_ring);
	if (on != streaming || x->min_ring < 2 * LONG_INSNS)
		exit(1);
}

/*
 * A program of @m putting @per entries (a multiple of LONG_INSNS) on every
 * TRACE and DMA queue of its core, and fewer on every other queue: per
 * iteration LONG_INSNS instructions and DMA transfers per engine, against
 * at most 2 entries per queue of the other types.
 */
static void long_program(const struct long_exec *x, const struct nprof_model *m, uint64_t per,
			 struct nprof_sim_program *p)
{
	uint32_t e;

	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->core = x->local;
	p->model_id = (uint32_t)nprof_model_id(m);
	p->iterations = (uint32_t)(per / LONG_INSNS);
	for (e = 0; e < x->info.engines_per_core && e < NPROF_MAX_ENGINES; e++)
		p->instructions[e] = LONG_INSNS;
	p->dma_transfers = x->info.engines_per_core * LONG_INSNS;
	p->flags = NPROF_SIM_EXEC_THROTTLE;
}

/* Add what an execution reported. */
static void long_add(struct long_exec *x, const struct nprof_sim_result *res)
{
	int t;

	for (t = 0; t < NPROF_SIM_QUEUE_TYPES; t++) {
		x->produced[t] += res->produced[t];
		x->total += res->produced[t];
	}
}

/*
 * One execution of @m between the runtime hooks, LONG_RINGS rings long on
 * every TRACE and DMA queue of its core: LONG_PARTS programs of half the
 * smallest ring each, run on the device directly. @paced: after each, wait
 * until the drainer wrote everything produced so far (the progress page),
 * as capture_vm's long session waits in nprof_capture_session_sync(), so
 * that "nothing lost" does not depend on timing. Half a ring, because the
 * drainer counts a range as written just before it releases its ring
 * space: the next program may find that much not released yet.
 */
static void long_execution(struct nprof_model *m, bool paced, struct long_exec *x)
{
	uint64_t base = streamed(), lost = __atomic_load_n(&progress->lost, __ATOMIC_RELAXED);
	struct nprof_sim_program p;
	int i, ret = 0, waits = 0;
	uint32_t status = 0;

	long_program(x, m, x->min_ring / 2 / LONG_INSNS * LONG_INSNS, &p);
	check(!nprof_model_execute_begin(m), "execution of %s begins", nprof_model_name(m));
	for (i = 0; !ret && i < LONG_PARTS; i++) {
		struct nprof_sim_result res = { .size = sizeof(res) };

		ret = nprof_device_sim_exec(x->dev, &p, &res);
		long_add(x, &res);
		status = res.status;
		if (!ret && paced && !wait_streamed(base + x->total))
			waits++;
	}
	check(!ret, "%d programs of %u iterations on NC %d (%llu notifications)", i, p.iterations,
	      nprof_model_vnc(m), (unsigned long long)x->total);
	if (paced)
		check(!waits, "the drainer kept up: %d waits of %d s failed", waits, STREAM_WAIT_S);
	check(!nprof_model_execute_end(m, ret ? 1 : status), "execution of %s ends",
	      nprof_model_name(m));
	/* The execution's capture is stopped: everything is in the file, or lost. */
	if (paced)
		check(streamed() - base == x->total &&
		      __atomic_load_n(&progress->lost, __ATOMIC_RELAXED) == lost,
		      "streamed %llu entries, all that were produced, none lost",
		      (unsigned long long)(streamed() - base));
	else
		check(streamed() == base && __atomic_load_n(&progress->lost, __ATOMIC_RELAXED) > lost,
		      "nothing streamed, %llu lost",
		      (unsigned long long)(__atomic_load_n(&progress->lost, __ATOMIC_RELAXED) - lost));
}

/*
 * The profile at @path, described by @desc ("kind=N core=N ..."): holds
 * every entry produced (@streaming) or some; and check_inspect's "queues"
 * line: every entry in order, none lost (@streaming) or some, entries +
 * lost == produced per queue type, and with @rings that many rings' worth
 * on every TRACE and DMA queue.
 */
static void expect_profile(const char *path, const char *desc, bool streaming,
			   const struct long_exec *x, uint64_t rings)
{
	char list[NPROF_SIM_QUEUE_TYPES * 24] = "", least[128] = "";
	size_t len = 0;
	int t;

	if (streaming)
		expect("ntff %s %s entries=%llu", path, desc, (unsigned long long)x->total);
	else
		expect("ntff %s %s entries=+", path, desc);
	for (t = 0; t < NPROF_SIM_QUEUE_TYPES; t++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%llu", t ? "," : "",
					(unsigned long long)x->produced[t]);
	if (rings)
		snprintf(least, sizeof(least), " TRACE>=%llu DMA>=%llu",
			 (unsigned long long)(rings * x->ring[nprof_queue_type_from_name("TRACE")]),
			 (unsigned long long)(rings * x->ring[nprof_queue_type_from_name("DMA")]));
	expect("queues %s %s %s%s", path, streaming ? "0" : "+", list, least);
}

/*
 * The start of a scenario on NC 0: the progress page, the device and its
 * rings (long_setup()), nprof_inspect_begin() from the environment.
 */
static void long_begin(char *inst, size_t len, bool streaming, struct long_exec *x)
{
	instance(inst, len);
	progress_open();
	long_setup(0, streaming, x);
	check(!nprof_inspect_begin(), "nprof_inspect_begin() from the environment");
}

/* MODEL mode (the environment of scenario_model()): one execution LONG_RINGS rings long. */
static void scenario_long_model(bool streaming)
{
	char inst[NPROF_INSTANCE_ID_MAX + 1];
	struct nprof_model *m;
	struct long_exec x;

	long_begin(inst, sizeof(inst), streaming, &x);
	m = load("long", 41, 0);
	long_execution(m, streaming, &x);
	nprof_model_unload(m);
	check(!nprof_inspect_close(), "nprof_inspect_close()");
	nprof_device_close(x.dev);

	expect("tree out %s-%ld", inst, (long)getpid());
	expect_profile("$S/long_vnc_0.ntff", "kind=2 core=0 model=41", streaming, &x, LONG_RINGS);
	expect("count $S 5");
	expect("nohidden $S");
}

/*
 * Continuous profiling of one execution LONG_RINGS rings long. An inspect
 * session with on-fail alone (its capture steps aside for continuous
 * profiling) gives the captures the environment's ring sizes and
 * streaming switch, and its directory for the pending files.
 */
static void scenario_long_continuous(bool streaming)
{
	struct nprof_profile_continuous_options *o = nprof_profile_continuous_options_allocate();
	char inst[NPROF_INSTANCE_ID_MAX + 1];
	struct nprof_model *m;
	struct long_exec x;

	long_begin(inst, sizeof(inst), streaming, &x);
	check(o && !nprof_profile_continuous_options_set_output_dir(o, "saves"), "options");
	check(!nprof_profile_continuous_start(o), "nprof_profile_continuous_start()");
	m = load("long", 42, 0);
	long_execution(m, streaming, &x);
	check(!nprof_profile_continuous_save(0, o), "save NC 0");
	check(!nprof_profile_continuous_stop(), "nprof_profile_continuous_stop()");
	nprof_model_unload(m);
	check(!nprof_inspect_close(), "nprof_inspect_close()");
	nprof_profile_continuous_options_free(o);
	nprof_device_close(x.dev);

	expect("count saves 1");
	expect("nohidden saves");
	expect("match saves ^model_42_pid_%ld_vnc_0_inst_%s_[0-9]{8}_[0-9]{6}\\.ntff$ 1", (long)getpid(),
	       inst);
	expect_profile("$M", "kind=3 core=0 model=42", streaming, &x, LONG_RINGS);
	/* The pending file lived in the session directory, unnamed. */
	expect("tree out %s-%ld", inst, (long)getpid());
	expect("count $S 0");
	expect("nohidden $S");
}

/*
 * A crash in the middle of a streaming SESSION capture of core 0
 * (NEURON_RT_INSPECT_EVENT_FILTER_NC=0): an execution the drainer wrote
 * (part of the file), a second one it may still be writing or not have
 * seen, then @sig. SIGABRT: the crash flush leaves the complete file, every
 * entry in order, and the system profile; SIGKILL (no flush possible):
 * nothing at all. Neither leaves a temporary file.
 */
static void scenario_crash_stream(int sig)
{
	char inst[NPROF_INSTANCE_ID_MAX + 1], dir[4096];
	struct nprof_sim_program p;
	struct nprof_model *m;
	struct long_exec x;
	uint64_t first = 0;
	int i, ret = 0;

	long_begin(inst, sizeof(inst), true, &x);
	check(nprof_inspect_session_dir(dir, sizeof(dir)) > 0, "session directory %s", dir);
	m = load("net0", 600, 0);
	/* Two iterations, far below the watermark (a quarter of a ring): a small file. */
	long_program(&x, m, 2 * LONG_INSNS, &p);
	for (i = 0; !ret && i < 2; i++) {
		struct nprof_sim_result res = { .size = sizeof(res) };

		ret = nprof_model_sim_execute(m, &p, &res);
		check(!ret && !res.status, "execution %d of %s: %u iterations", i + 1,
		      nprof_model_name(m), p.iterations);
		long_add(&x, &res);
		if (!i) {
			first = x.total;
			check(wait_streamed(first), "the drainer wrote the %llu entries of the first",
			      (unsigned long long)first);
		}
	}
	nprof_device_close(x.dev);

	expect("tree out %s-%ld", inst, (long)getpid());
	if (sig == SIGKILL) {
		expect("absent $S/profile_nc_0_session_0.ntff");
		expect("count $S 0");
	} else {
		expect_profile("$S/profile_nc_0_session_0.ntff", "kind=1 core=0", true, &x, 0);
		expect("file $S/ntrace.pb");
		expect("count $S 5");
	}
	expect("nohidden $S");
	fflush(NULL);
	harness_done();
	fflush(stdout);
	if (sig == SIGABRT)
		abort();
	raise(sig);
	exit(1);
}

/* ---- scenarios ------------------------------------------------------------------- */

/*
 * NEURON_RT_INSPECT_DEVICE_PROFILE=session: every core of every device in
 * one file each. @devices: how many devices there must be (0: any).
 */
static void scenario_session(bool crash, int devices)
{
	char inst[NPROF_INSTANCE_ID_MAX + 1], dir[4096];
	uint32_t n = total_cores(), vnc;
	uint64_t produced[64] = { 0 };
	struct nprof_model *m[64];
	uint32_t events;

	instance(inst, sizeof(inst));
	check(n >= 2 && n <= 64, "%u NeuronCores on the simulated devices", n);
	if (devices) {
		int i;
		bool distinct = nnodes == devices;

		for (i = 1; distinct && i < nnodes; i++)
			distinct = nodes[i].device_index > nodes[i - 1].device_index;
		check(distinct, "%d devices with distinct indexes (found %d)", devices, nnodes);
		if (!distinct)
			exit(1);
	}
	count_queues();
	check(!nprof_inspect_begin(), "nprof_inspect_begin() from the environment");
	check(nprof_inspect_is_active() == 1, "the session is active");
	check(nprof_inspect_session_dir(dir, sizeof(dir)) > 0, "session directory %s", dir);
	for (vnc = 0; vnc < n && vnc < 64; vnc++) {
		char name[32];

		snprintf(name, sizeof(name), "net%u", vnc);
		m[vnc] = load(name, 500 + vnc, vnc);
	}
	/* Cores 0 and the last execute twice; the others stay idle. */
	produced[0] += run(m[0], 2, false);
	produced[0] += run(m[0], 3, false);
	produced[n - 1] += run(m[n - 1], 4, false);
	produced[n - 1] += run(m[n - 1], 1, true);

	expect("tree out %s-%ld", inst, (long)getpid());
	for (vnc = 0; vnc < n; vnc++)
		expect("ntff $S/profile_nc_%u_session_0.ntff kind=1 core=%u device=%u entries=%llu",
		       vnc, vnc, device_of(vnc), (unsigned long long)produced[vnc]);
	expect("file $S/ntrace.pb");
	expect("file $S/trace_info.pb");
	expect("file $S/cpu_util.pb");
	expect("file $S/host_mem.pb");
	expect("count $S %u", n + 4);
	expect("nohidden $S");

	/*
	 * The trace: inspect_begin and _stop; the devices; one capture per
	 * core; per core the model's model_load (and nrt_unload, which comes
	 * before the close's harvest; the crash never unloads); per execution
	 * nrt_execute and sim_exec, and the failed one's exec_error.
	 */
	events = 2 + expect_devices();
	expect("trace $S/ntrace.pb inspect_begin none 1");
	expect("trace $S/ntrace.pb inspect_stop none 1");
	for (vnc = 0; vnc < n; vnc++) {
		events += expect_capture(vnc, 0, produced[vnc]);
		expect("trace $S/ntrace.pb model_load %u 1 model=%u", vnc, 500 + vnc);
		expect("trace $S/ntrace.pb nrt_unload %u %d model=%u", vnc, !crash, 500 + vnc);
		events += 1 + !crash;
	}
	expect("trace $S/ntrace.pb nrt_execute 0 2 model=500");
	expect("trace $S/ntrace.pb nrt_execute %u 2 model=%u", n - 1, 500 + n - 1);
	expect("trace $S/ntrace.pb sim_exec * 4");
	expect("trace $S/ntrace.pb exec_error %u 1 model=%u status=1004", n - 1, 500 + n - 1);
	events += 4 + 4 + 1;
	expect("trace $S/ntrace.pb * * %u", events);
	if (crash) {
		/* The crash flush writes all of it: no stop, no close. */
		fflush(NULL);
		harness_done();
		fflush(stdout);
		abort();
	}
	for (vnc = 0; vnc < n; vnc++)
		nprof_model_unload(m[vnc]);
	check(!nprof_inspect_close(), "nprof_inspect_close()");
	check(nprof_inspect_is_active() == 0, "the session ended");
	check(exists(dir), "%s stays", dir);
}

/* MODEL mode and inspect-on-fail (NEURON_RT_INSPECT_DEVICE_PROFILE=model, _ON_FAIL=1). */
static void scenario_model(void)
{
	char inst[NPROF_INSTANCE_ID_MAX + 1], salv[4096], path[8192];
	struct nprof_model *a, *b, *c;
	uint64_t pa, pb, pc;
	uint32_t events;
	FILE *keep;

	instance(inst, sizeof(inst));
	list_devices();
	count_queues();
	/* Someone else's file in ./tmp: close must leave it. */
	mkdir("tmp", 0755);
	keep = fopen("tmp/keep.txt", "w");
	check(keep && fputs("not ours\n", keep) >= 0 && !fclose(keep), "tmp/keep.txt written");
	check(!nprof_inspect_begin(), "nprof_inspect_begin() from the environment");
	check(nprof_inspect_salvage_dir(salv, sizeof(salv)) > 0, "salvage directory %s", salv);
	a = load("encoder", 11, 0);
	b = load("decoder", 12, 1);
	c = load("broken", 13, 2);
	pa = run(a, 2, false);
	run(a, 5, false);
	run(a, 1, true);
	pb = run(b, 3, false);
	run(b, 2, true);
	pc = run(c, 4, true);
	run(c, 4, true);

	/* The failing first execution of "broken" went to ./tmp; keep a copy. */
	snprintf(path, sizeof(path), "%s/broken_vnc_2.ntff", salv);
	check(exists(path), "%s exists before close", path);
	mkdir("salvaged", 0755);
	check(!copy_file(path, "salvaged/broken_vnc_2.ntff"), "copied %s", path);
	nprof_model_unload(a);
	nprof_model_unload(b);
	nprof_model_unload(c);
	check(!nprof_inspect_close(), "nprof_inspect_close()");
	check(!exists(salv), "close removed %s", salv);
	check(exists("tmp/keep.txt"), "close left tmp/keep.txt");

	expect("tree out %s-%ld", inst, (long)getpid());
	expect("ntff $S/encoder_vnc_0.ntff kind=2 core=0 model=11 entries=%llu", (unsigned long long)pa);
	expect("ntff $S/decoder_vnc_1.ntff kind=2 core=1 model=12 entries=%llu", (unsigned long long)pb);
	expect("absent $S/broken_vnc_2.ntff");
	expect("ntff salvaged/broken_vnc_2.ntff kind=2 core=2 model=13 entries=%llu",
	       (unsigned long long)pc);
	expect("count $S 6");
	expect("nohidden $S");
	expect("file tmp/keep.txt");
	expect("count tmp 1");

	/*
	 * The trace: inspect_begin and _stop; the devices (begun with on-fail
	 * on, the session opens them); one capture per model, its first
	 * execution (the record it leaves keeps the later ones, failing or
	 * not, from being captured); 3 model_load and nrt_unload (before the
	 * close); 7 nrt_execute and sim_exec; 4 failed executions.
	 */
	events = 2 + expect_devices();
	expect("trace $S/ntrace.pb inspect_begin none 1");
	expect("trace $S/ntrace.pb inspect_stop none 1");
	events += expect_capture(0, 11, pa) + expect_capture(1, 12, pb) + expect_capture(2, 13, pc);
	expect("trace $S/ntrace.pb model_load * 3");
	expect("trace $S/ntrace.pb nrt_unload * 3");
	expect("trace $S/ntrace.pb nrt_execute 0 3 model=11");
	expect("trace $S/ntrace.pb nrt_execute 1 2 model=12");
	expect("trace $S/ntrace.pb nrt_execute 2 2 model=13");
	expect("trace $S/ntrace.pb sim_exec * 7");
	expect("trace $S/ntrace.pb exec_error * 4 status=1004");
	expect("trace $S/ntrace.pb exec_error 2 2 model=13");
	events += 3 + 3 + 7 + 7 + 4;
	expect("trace $S/ntrace.pb * * %u", events);
}

/* Inspect-on-fail alone (NEURON_RT_INSPECT_ENABLE=0, _ON_FAIL=1). */
static void scenario_onfail(void)
{
	char inst[NPROF_INSTANCE_ID_MAX + 1], salv[4096], path[8192];
	struct nprof_model *d;
	uint64_t pd;

	instance(inst, sizeof(inst));
	check(!nprof_inspect_begin(), "nprof_inspect_begin() from the environment");
	check(nprof_inspect_is_active() == 1, "an on-fail session is active");
	check(nprof_inspect_salvage_dir(salv, sizeof(salv)) > 0, "salvage directory %s", salv);
	d = load("flaky", 21, 1);
	run(d, 2, false);
	run(d, 3, false);
	snprintf(path, sizeof(path), "%s/flaky_vnc_0.ntff", salv);
	check(!exists(path), "successful executions leave nothing in %s", salv);
	pd = run(d, 5, true);
	check(exists(path), "%s exists after the failure", path);
	mkdir("salvaged", 0755);
	check(!copy_file(path, "salvaged/flaky_vnc_0.ntff"), "copied %s", path);
	nprof_model_unload(d);
	check(!nprof_inspect_close(), "nprof_inspect_close()");
	check(!exists("tmp"), "close removed ./tmp");

	expect("tree out %s-%ld", inst, (long)getpid());
	expect("count $S 0");
	expect("ntff salvaged/flaky_vnc_0.ntff kind=2 core=1 model=21 entries=%llu",
	       (unsigned long long)pd);
	expect("absent tmp");
}

static void scenario_continuous(void)
{
	struct nprof_profile_continuous_options *o = nprof_profile_continuous_options_allocate();
	char inst[NPROF_INSTANCE_ID_MAX + 1];
	uint32_t last = total_cores() - 1;
	struct nprof_model *a, *b;
	uint64_t pa = 0, pb = 0;
	int i;

	instance(inst, sizeof(inst));
	check(o && !nprof_profile_continuous_options_set_output_dir(o, "saves"), "options");
	check(nprof_profile_continuous_save(0, o) == -EINVAL, "save before start refused");
	check(!nprof_profile_continuous_start(o), "nprof_profile_continuous_start()");
	a = load("ranker", 31, 0);
	b = load("scorer", 32, last);
	for (i = 1; i <= 3; i++)
		pa = run(a, (uint32_t)i, false);
	pb = run(b, 2, false);
	pb = run(b, 6, true);
	check(!nprof_profile_continuous_save(0, o), "save NC 0");
	check(!nprof_profile_continuous_save(last, o), "save NC %u", last);
	check(nprof_profile_continuous_save(0, o) == -ENOENT, "a second save needs another execution");
	check(!nprof_profile_continuous_stop(), "nprof_profile_continuous_stop()");
	nprof_model_unload(a);
	nprof_model_unload(b);
	nprof_profile_continuous_options_free(o);

	expect("count saves 2");
	expect("match saves ^model_31_pid_%ld_vnc_0_inst_%s_[0-9]{8}_[0-9]{6}\\.ntff$ 1", (long)getpid(),
	       inst);
	expect("ntff $M kind=3 core=0 model=31 entries=%llu", (unsigned long long)pa);
	expect("match saves ^model_32_pid_%ld_vnc_%u_inst_%s_[0-9]{8}_[0-9]{6}\\.ntff$ 1",
	       (long)getpid(), last, inst);
	expect("ntff $M kind=3 core=%u model=32 entries=%llu", last, (unsigned long long)pb);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (argc != 3) {
		fprintf(stderr,
			"usage: %s session|session2|model|onfail|continuous|crash|model_stream|model_zerocopy|continuous_stream|continuous_zerocopy|crash_stream|kill_stream DIR\n",
			argv[0]);
		return 2;
	}
	mkdir(argv[2], 0755);
	if (chdir(argv[2])) {
		perror(argv[2]);
		return 2;
	}
	expect_file = fopen("expect.txt", "w");
	if (!expect_file) {
		perror("expect.txt");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(what, "session"))
		scenario_session(false, 0);
	else if (!strcmp(what, "session2"))
		scenario_session(false, 2);
	else if (!strcmp(what, "crash"))
		scenario_session(true, 0);
	else if (!strcmp(what, "model"))
		scenario_model();
	else if (!strcmp(what, "onfail"))
		scenario_onfail();
	else if (!strcmp(what, "continuous"))
		scenario_continuous();
	else if (!strcmp(what, "model_stream") || !strcmp(what, "model_zerocopy"))
		scenario_long_model(!strcmp(what, "model_stream"));
	else if (!strcmp(what, "continuous_stream") || !strcmp(what, "continuous_zerocopy"))
		scenario_long_continuous(!strcmp(what, "continuous_stream"));
	else if (!strcmp(what, "crash_stream"))
		scenario_crash_stream(SIGABRT);
	else if (!strcmp(what, "kill_stream"))
		scenario_crash_stream(SIGKILL);
	else
		check(0, "unknown scenario %s", what);
	fclose(expect_file);
	return harness_done();
}
