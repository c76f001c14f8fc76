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
 * The environment (NEURON_RT_INSPECT_*, NEURON_RT_PROFILE_BUF_*_MB) comes
 * from the caller; relative output directories are relative to DIR, which
 * becomes the working directory. Each run ends with "N passed, N failed".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <neuronprof/device.h>
#include <neuronprof/inspect.h>
#include <neuronprof/ntff.h>
#include <neuronprof/output.h>
#include <neuronprof/profile.h>
#include <neuronprof/runtime.h>

static int passed, failed;
static FILE *expect_file;

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok)
		printf(" (%s)", nprof_strerror_last());
	printf("\n");
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
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

/* The device index of virtual core @vnc: the devices' cores follow each other. */
static uint32_t device_of(uint32_t vnc)
{
	int i;

	for (i = 0; i < nnodes; i++) {
		if (vnc < nodes[i].num_cores)
			return nodes[i].device_index;
		vnc -= nodes[i].num_cores;
	}
	return UINT32_MAX;
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
	int i;

	for (i = 0; i < nnodes; i++) {
		if (vnc < nodes[i].num_cores)
			return queues[i];
		vnc -= nodes[i].num_cores;
	}
	return 0;
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
		printf("%d passed, %d failed\n", passed, failed);
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
		fprintf(stderr, "usage: %s session|session2|model|onfail|continuous|crash DIR\n",
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
	else
		check(0, "unknown scenario %s", what);
	fclose(expect_file);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
