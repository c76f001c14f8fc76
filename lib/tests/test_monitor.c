// SPDX-License-Identifier: MIT
/*
 * Host tests of the system monitor, on fixture /proc files: CPU
 * utilisation computed from two /proc/stat readings (per CPU and total,
 * hotplug, counters going backwards), memory fields, parse errors,
 * decimation when the sample buffer is full, the sampler thread, and a run
 * on the real /proc.
 */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <neuronprof/monitor.h>

#include "harness.h"

static char fdir[128];
static char stat_p[PATH_MAX], mem_p[PATH_MAX], status_p[PATH_MAX];

static const char *const STAT_A =
	"cpu  1000 200 300 5000 100 10 20 30 0 0\n"
	"cpu0 500 100 150 2500 50 5 10 15 0 0\n"
	"cpu1 500 100 150 2500 50 5 10 15 0 0\n"
	"intr 12345 1 2 3 4 5 6 7 8 9 10\n"
	"ctxt 99\n";

/* cpu1's "system" goes backwards (counts nothing); guest columns are ignored. */
static const char *const STAT_B =
	"cpu  1600 300 500 5600 200 20 40 40 999 999\n"
	"cpu0 1100 150 400 2600 100 15 30 20 999 999\n"
	"cpu1 500 150 100 3000 100 5 10 20 0 0\n"
	"intr 12345 1 2 3 4 5 6 7 8 9 10\n";

static const char *const MEMINFO =
	"MemTotal:       16000000 kB\n"
	"MemFree:         2000000 kB\n"
	"MemAvailable:   10000000 kB\n"
	"Buffers:          500000 kB\n"
	"Cached:          4000000 kB\n"
	"SwapCached:            7 kB\n"
	"SwapTotal:       1000000 kB\n"
	"SwapFree:         900000 kB\n"
	"HugePages_Total:       0\n";

static const char *const STATUS =
	"Name:\tapp\n"
	"VmPeak:\t  300000 kB\n"
	"VmSize:\t  250000 kB\n"
	"VmHWM:\t   90000 kB\n"
	"VmRSS:\t   80000 kB\n"
	"Threads:\t4\n";

#define CHECK_PCT(a, num, den) \
	do { \
		double e_ = 100.0 * (double)(num) / (double)(den); \
		if (fabs((a) - e_) > 1e-9) \
			FAIL("%s == %.12f, expected %.12f", #a, (double)(a), e_); \
	} while (0)

static int fixtures(void)
{
	snprintf(fdir, sizeof(fdir), "/tmp/nprof-test-monitor-XXXXXX");
	if (!mkdtemp(fdir)) {
		FAIL("mkdtemp");
		return -1;
	}
	snprintf(stat_p, sizeof(stat_p), "%s/stat", fdir);
	snprintf(mem_p, sizeof(mem_p), "%s/meminfo", fdir);
	snprintf(status_p, sizeof(status_p), "%s/status", fdir);
	write_text(stat_p, STAT_A);
	write_text(mem_p, MEMINFO);
	write_text(status_p, STATUS);
	return 0;
}

static void cleanup(void)
{
	char cmd[PATH_MAX];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fdir);
	if (system(cmd))
		printf("# cannot remove %s\n", fdir);
}

/* Options on the fixtures; the period is so long the thread never samples. */
static struct nprof_monitor_opts fixture_opts(void)
{
	struct nprof_monitor_opts o = {
		.size = sizeof(o),
		.period_ms = NPROF_MONITOR_MAX_PERIOD_MS,
		.proc_stat = stat_p,
		.proc_meminfo = mem_p,
		.proc_self_status = status_p,
	};

	return o;
}

/*
 * Start a monitor with @o on the fixtures. On failure the case fails, the
 * fixtures are removed and NULL is returned.
 */
static struct nprof_monitor *start_on_fixtures(const struct nprof_monitor_opts *o)
{
	struct nprof_monitor *m = nprof_monitor_start(o);

	if (!m) {
		FAIL("start: %s", nprof_strerror_last());
		cleanup();
	}
	return m;
}

/*
 * The fixtures made and a monitor started on them, sampling every
 * @period_ms (0: so seldom that the thread never samples); NULL (the case
 * failed, the fixtures removed) if either fails.
 */
static struct nprof_monitor *monitor_on_fixtures(uint32_t period_ms)
{
	struct nprof_monitor_opts o;

	if (fixtures())
		return NULL;
	o = fixture_opts();
	if (period_ms)
		o.period_ms = period_ms;
	return start_on_fixtures(&o);
}

/*
 * The fixtures made and a monitor of @what alone (CPU or memory) started
 * on them, the other kind's file named where nothing is, to show that it
 * is not read; NULL as monitor_on_fixtures().
 */
static struct nprof_monitor *monitor_of_one(uint32_t what)
{
	struct nprof_monitor_opts o;

	if (fixtures())
		return NULL;
	o = fixture_opts();
	o.what = what;
	if (what == NPROF_MONITOR_CPU)
		o.proc_meminfo = "/nonexistent/meminfo";
	else
		o.proc_stat = "/nonexistent/stat";
	return start_on_fixtures(&o);
}

/*
 * /proc/stat becomes @stat and a sample is taken: sample @i must hold @n
 * CPUs, the one at @k being cpu @cpu with @ticks ticks, @busy of them busy.
 */
static void sample_stat(struct nprof_monitor *m, const char *stat, size_t i, int n, int k,
			uint32_t cpu, uint64_t ticks, uint64_t busy)
{
	struct nprof_monitor_sample s;
	struct nprof_cpu_util c[8];

	write_text(stat_p, stat);
	CHECK_INT(nprof_monitor_sample_now(m), 0);
	CHECK_INT(nprof_monitor_get_sample(m, i, &s, c, 8), n);
	if (k >= n)
		return;
	CHECK_INT(c[k].cpu, cpu);
	CHECK_INT(c[k].total_ticks, ticks);
	CHECK_PCT(c[k].util_pct, busy, ticks);
}

/*
 * Stop and free @m in a forked child, which has no sampler thread (stop must
 * not wait for one), and check that the child saw at least two samples;
 * then stop and free it in the parent.
 */
static void stop_in_forked_child_then_parent(struct nprof_monitor *m)
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0) {
		int ok = nprof_monitor_stop(m) == 0 && nprof_monitor_sample_count(m) >= 2;

		nprof_monitor_free(m);
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_INT(nprof_monitor_stop(m), 0);
	nprof_monitor_free(m);
}

TEST(cpu_utilisation_from_two_stat_readings)
{
	struct nprof_monitor_sample s;
	struct nprof_cpu_util c[4];
	struct nprof_monitor *m;
	int n;

	m = monitor_on_fixtures(0);
	if (!m)
		return;
	write_text(stat_p, STAT_B);
	CHECK_INT(nprof_monitor_stop(m), 0);
	CHECK_INT(nprof_monitor_sample_count(m), 2);

	/* The start sample: counters since boot. */
	n = nprof_monitor_get_sample(m, 0, &s, c, 4);
	CHECK_INT(n, 2);
	CHECK_INT(s.interval_ns, 0);
	CHECK_INT(s.has_cpu, 1);
	CHECK_INT(s.total.total_ticks, 1200 + 330 + 5000 + 100 + 30);
	CHECK_INT(s.total.busy_ticks, 1530);
	CHECK_PCT(s.total.util_pct, 1530, 6660);
	CHECK_INT(s.total.cpu, UINT32_MAX);

	/*
	 * The interval: user 600+100, system 200+10+20, idle 600, iowait 100,
	 * steal 10 -> 1640 ticks, 930 busy.
	 */
	n = nprof_monitor_get_sample(m, 1, &s, c, 4);
	CHECK_INT(n, 2);
	CHECK(s.interval_ns > 0);
	CHECK_INT(s.total.total_ticks, 1640);
	CHECK_INT(s.total.busy_ticks, 930);
	CHECK_PCT(s.total.util_pct, 930, 1640);
	CHECK_PCT(s.total.user_pct, 700, 1640);
	CHECK_PCT(s.total.system_pct, 230, 1640);
	CHECK_PCT(s.total.iowait_pct, 100, 1640);
	CHECK_PCT(s.total.steal_pct, 10, 1640);
	/* cpu0: user 650, system 280, idle 100, iowait 50, steal 5 -> 1085. */
	CHECK_INT(c[0].cpu, 0);
	CHECK_INT(c[0].total_ticks, 1085);
	CHECK_PCT(c[0].util_pct, 930, 1085);
	CHECK_PCT(c[0].user_pct, 650, 1085);
	CHECK_PCT(c[0].system_pct, 280, 1085);
	CHECK_PCT(c[0].iowait_pct, 50, 1085);
	CHECK_PCT(c[0].steal_pct, 5, 1085);
	/* cpu1: system went backwards and counts 0; user 50, idle 500, iowait 50, steal 5. */
	CHECK_INT(c[1].cpu, 1);
	CHECK_INT(c[1].total_ticks, 605);
	CHECK_INT(c[1].busy_ticks, 50);
	CHECK_PCT(c[1].util_pct, 50, 605);
	CHECK(c[1].system_pct == 0.0);

	/* Room for one per-CPU entry: the count still says two. */
	CHECK_INT(nprof_monitor_get_sample(m, 1, &s, c, 1), 2);
	CHECK_INT(nprof_monitor_get_sample(m, 1, &s, NULL, 0), 2);
	CHECK_ERR_MSG(nprof_monitor_get_sample(m, 2, &s, NULL, 0), EINVAL,
		      "sample 2 does not exist (2 kept)");
	nprof_monitor_free(m);
	cleanup();
}

TEST(cpu_hotplug_between_readings)
{
	struct nprof_monitor_opts o;
	struct nprof_monitor_sample s;
	struct nprof_monitor_stats st = { .size = sizeof(st) };
	struct nprof_cpu_util c[8];
	struct nprof_monitor *m;

	if (fixtures())
		return;
	write_text(stat_p, "cpu  30 0 0 300 0 0 0 0\ncpu0 10 0 0 100 0 0 0 0\n"
		    "cpu2 20 0 0 200 0 0 0 0\n");
	o = fixture_opts();
	m = start_on_fixtures(&o);
	if (!m)
		return;
	CHECK_INT(nprof_monitor_get_stats(m, &st), 0);
	CHECK_INT(st.ncpus, 3);	/* slots 0..2; cpu1 offline */
	CHECK_INT(nprof_monitor_get_sample(m, 0, &s, c, 8), 2);
	CHECK_INT(c[0].cpu, 0);
	CHECK_INT(c[1].cpu, 2);
	/* cpu1 comes online, cpu2 goes away, cpu5 has no slot: only cpu0 was online in both. */
	sample_stat(m, "cpu  60 0 0 600 0 0 0 0\ncpu0 20 0 0 200 0 0 0 0\n"
		       "cpu1 5 0 0 50 0 0 0 0\ncpu5 1 0 0 1 0 0 0 0\n", 1, 1, 0, 0, 110, 10);
	/* cpu1 is back in the next interval. */
	sample_stat(m, "cpu  70 0 0 700 0 0 0 0\ncpu0 30 0 0 300 0 0 0 0\n"
		       "cpu1 15 0 0 60 0 0 0 0\n", 2, 2, 1, 1, 20, 10);
	nprof_monitor_free(m);
	cleanup();
}

TEST(memory_fields)
{
	struct nprof_monitor_sample s;
	struct nprof_monitor *m;

	m = monitor_of_one(NPROF_MONITOR_MEMORY);
	if (!m)
		return;
	CHECK_INT(nprof_monitor_get_sample(m, 0, &s, NULL, 0), 0);
	CHECK_INT(s.has_cpu, 0);
	CHECK_INT(s.has_mem, 1);
	CHECK_INT(s.mem.host_total, 16000000ULL * 1024);
	CHECK_INT(s.mem.host_available, 10000000ULL * 1024);
	CHECK_INT(s.mem.host_used, 6000000ULL * 1024);
	CHECK_INT(s.mem.host_free, 2000000ULL * 1024);
	CHECK_INT(s.mem.host_buffers, 500000ULL * 1024);
	CHECK_INT(s.mem.host_cached, 4000000ULL * 1024);	/* not SwapCached */
	CHECK_INT(s.mem.swap_total, 1000000ULL * 1024);
	CHECK_INT(s.mem.swap_free, 900000ULL * 1024);
	CHECK_INT(s.mem.process_rss, 80000ULL * 1024);
	CHECK_INT(s.mem.process_hwm, 90000ULL * 1024);
	CHECK_INT(s.mem.process_vm, 250000ULL * 1024);

	/* A kernel without MemAvailable: free + buffers + cached. */
	write_text(mem_p, "MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 50 kB\nCached: 250 kB\n");
	CHECK_INT(nprof_monitor_sample_now(m), 0);
	CHECK_INT(nprof_monitor_get_sample(m, 1, &s, NULL, 0), 0);
	CHECK_INT(s.mem.host_available, 400 * 1024);
	CHECK_INT(s.mem.host_used, 600 * 1024);
	CHECK_INT(s.mem.swap_total, 0);
	nprof_monitor_free(m);
	cleanup();
}

TEST(cpu_only_has_no_memory)
{
	struct nprof_monitor_sample s;
	struct nprof_monitor *m;

	m = monitor_of_one(NPROF_MONITOR_CPU);
	if (!m)
		return;
	CHECK_INT(nprof_monitor_get_sample(m, 0, &s, NULL, 0), 2);
	CHECK_INT(s.has_mem, 0);
	CHECK_INT(s.mem.host_total, 0);
	nprof_monitor_free(m);
	cleanup();
}

static void check_start_fails(const char *stat_text, const char *mem_text, int err, const char *msg)
{
	struct nprof_monitor_opts o = fixture_opts();
	struct nprof_monitor *m;

	write_text(stat_p, stat_text);
	write_text(mem_p, mem_text);
	m = nprof_monitor_start(&o);
	CHECK(m == NULL);
	if (m) {
		nprof_monitor_free(m);
		return;
	}
	CHECK_INT(errno, err);
	CHECK_CONTAINS(nprof_strerror_last(), msg);
}

TEST(unparsable_files_fail_the_start)
{
	char want[PATH_MAX + 64];

	if (fixtures())
		return;
	snprintf(want, sizeof(want), "monitor start sample: %s: line 1: cannot parse the cpu line",
		 stat_p);
	check_start_fails("cpu  1 2 x 4\n", MEMINFO, EPROTO, want);
	check_start_fails("cpu  1 2 3\n", MEMINFO, EPROTO, "cannot parse the cpu line");
	check_start_fails("cpu  1 2 3 4\ncpu0 1 2\n", MEMINFO, EPROTO,
			  "line 2: cannot parse a per-CPU line");
	check_start_fails("intr 1 2\n", MEMINFO, EPROTO, "no aggregate \"cpu\" line");
	check_start_fails(STAT_A, "MemFree: 1 kB\n", EPROTO, "meminfo: no MemTotal line");
	check_start_fails(STAT_A, "MemTotal: 1 kB\nMemFree: lots kB\n", EPROTO,
			  "meminfo: line 2: bad value of MemFree");
	check_start_fails(STAT_A, "MemTotal: 1 kB junk\nMemFree: 1 kB\n", EPROTO,
			  "line 1: unexpected text after the value of MemTotal");
	check_start_fails(STAT_A, "MemTotal: 99999999999999999999 kB\n", EPROTO,
			  "bad value of MemTotal");
	unlink(status_p);
	snprintf(want, sizeof(want), "cannot open %s: No such file or directory", status_p);
	check_start_fails(STAT_A, MEMINFO, ENOENT, want);
	cleanup();
}

TEST(option_checks)
{
	struct nprof_monitor_opts o = { .size = sizeof(o) };

	o.size = 8;
	CHECK(nprof_monitor_start(&o) == NULL && errno == EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "monitor options size 8 is smaller than");
	o.size = sizeof(o);
	o.period_ms = NPROF_MONITOR_MAX_PERIOD_MS + 1;
	CHECK(nprof_monitor_start(&o) == NULL && errno == EINVAL);
	CHECK_STR(nprof_strerror_last(), "monitor period 3600001 ms is out of range [1, 3600000]");
	o.period_ms = 0;
	o.what = 4;
	CHECK(nprof_monitor_start(&o) == NULL);
	CHECK_STR(nprof_strerror_last(), "unknown monitor sample kinds 0x4");
	o.what = 0;
	o.max_samples = 3;
	CHECK(nprof_monitor_start(&o) == NULL);
	CHECK_STR(nprof_strerror_last(), "monitor max samples 3 is out of range [4, 1048576]");
	CHECK_ERR_MSG(nprof_monitor_stop(NULL), EINVAL, "monitor is NULL");
	CHECK_ERR_MSG(nprof_monitor_sample_count(NULL), EINVAL, "monitor is NULL");
	nprof_monitor_free(NULL);
}

/* Agg line after @k intervals of 10 busy + 30 idle ticks each. */
static void put_step(int k)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "cpu  %d 0 0 %d 0 0 0 0\ncpu0 %d 0 0 %d 0 0 0 0\n", 100 + 10 * k,
		 1000 + 30 * k, 100 + 10 * k, 1000 + 30 * k);
	write_text(stat_p, buf);
}

TEST(full_buffer_is_decimated_exactly)
{
	struct nprof_monitor_stats st = { .size = sizeof(st) };
	struct nprof_monitor_sample s, prev;
	struct nprof_monitor_opts o;
	struct nprof_monitor *m;
	uint64_t total = 0, busy = 0, interval = 0, first_ts = 0;
	int count, k;

	if (fixtures())
		return;
	o = fixture_opts();
	o.max_samples = 4;
	o.period_ms = 1000;
	put_step(0);
	m = start_on_fixtures(&o);
	if (!m)
		return;
	for (k = 1; k <= 9; k++) {
		put_step(k);
		CHECK_INT(nprof_monitor_sample_now(m), 0);
		count = nprof_monitor_sample_count(m);
		CHECK(count >= 2 && count <= 4);
	}
	put_step(10);
	CHECK_INT(nprof_monitor_stop(m), 0);
	CHECK_INT(nprof_monitor_get_stats(m, &st), 0);
	CHECK_INT(st.taken, 11);
	CHECK(st.samples <= 4);
	CHECK(st.decimations >= 2);
	CHECK_INT(st.effective_period_ms, 1000u << st.decimations);
	CHECK_INT(st.period_ms, 1000);
	CHECK_INT(st.running, 0);

	count = nprof_monitor_sample_count(m);
	CHECK_INT(nprof_monitor_get_sample(m, 0, &prev, NULL, 0), 1);
	/* The start sample survives every decimation, untouched. */
	CHECK_INT(prev.total.total_ticks, 1100);
	CHECK_INT(prev.interval_ns, 0);
	first_ts = prev.ts_ns;
	for (k = 1; k < count; k++) {
		CHECK_INT(nprof_monitor_get_sample(m, (size_t)k, &s, NULL, 0), 1);
		CHECK(s.ts_ns >= prev.ts_ns);
		CHECK_INT(s.interval_ns, s.ts_ns - prev.ts_ns);
		total += s.total.total_ticks;
		busy += s.total.busy_ticks;
		interval += s.interval_ns;
		/* Every merged interval is still exactly 25% busy. */
		CHECK_PCT(s.total.util_pct, 1, 4);
		prev = s;
	}
	/* Merged intervals add up to the whole run, to the tick. */
	CHECK_INT(total, 10 * 40);
	CHECK_INT(busy, 10 * 10);
	CHECK_INT(interval, prev.ts_ns - first_ts);
	nprof_monitor_free(m);
	cleanup();
}

TEST(sampler_thread_samples_periodically)
{
	struct nprof_monitor_stats st = { .size = sizeof(st) };
	struct timespec ts = { 0, 150 * 1000000L };
	struct nprof_monitor *m;

	m = monitor_on_fixtures(10);
	if (!m)
		return;
	CHECK_INT(nprof_monitor_get_stats(m, &st), 0);
	CHECK_INT(st.running, 1);
	nanosleep(&ts, NULL);
	CHECK_INT(nprof_monitor_stop(m), 0);
	CHECK_INT(nprof_monitor_get_stats(m, &st), 0);
	CHECK_INT(st.running, 0);
	/* 150 ms at 10 ms: about 15 periodic samples; ask for a few. */
	CHECK(st.samples >= 4);
	CHECK_INT(st.read_errors, 0);
	CHECK_ERR_MSG(nprof_monitor_stop(m), EALREADY, "monitor is already stopped");
	CHECK_ERR_MSG(nprof_monitor_sample_now(m), EALREADY, "monitor is stopped");
	nprof_monitor_free(m);
	cleanup();
}

TEST(unreadable_file_while_running_is_counted)
{
	struct nprof_monitor_stats st = { .size = sizeof(st) };
	struct nprof_monitor *m;

	m = monitor_on_fixtures(0);
	if (!m)
		return;
	write_text(stat_p, "garbage\n");
	CHECK_INT(nprof_monitor_sample_now(m), -EPROTO);
	CHECK_INT(nprof_monitor_get_stats(m, &st), 0);
	CHECK_INT(st.read_errors, 1);
	CHECK_INT(st.samples, 1);
	write_text(stat_p, STAT_B);
	CHECK_INT(nprof_monitor_sample_now(m), 0);
	CHECK_INT(nprof_monitor_sample_count(m), 2);
	nprof_monitor_free(m);	/* running: stops the thread, no stop sample */
	cleanup();
}

/*
 * A monitor sampling every @period_ms, @settle_us after its start stopped
 * and freed in a forked child, then in the parent
 * (stop_in_forked_child_then_parent()).
 */
static void forked_case(uint32_t period_ms, useconds_t settle_us)
{
	struct nprof_monitor *m = monitor_on_fixtures(period_ms);

	if (!m)
		return;
	if (settle_us)
		usleep(settle_us);
	stop_in_forked_child_then_parent(m);
	cleanup();
}

TEST(forked_child_can_stop_an_inherited_monitor)
{
	forked_case(5, 0);
}

/*
 * The child inherits the condition variable the parent's sampler waits on,
 * with that waiter counted: destroying it there must not wait for a thread
 * the child does not have. The sampler waits on its condition variable
 * when fork() happens.
 */
TEST(forked_child_frees_a_monitor_whose_sampler_waits)
{
	forked_case(60000, 100 * 1000);
}

TEST(real_proc_files)
{
	struct nprof_monitor_opts o = { .size = sizeof(o), .period_ms = 5 };
	struct nprof_monitor_sample s;
	struct nprof_cpu_util *c;
	struct nprof_monitor *m;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct timespec ts = { 0, 30 * 1000000L };
	int n, count;

	if (access("/proc/stat", R_OK))
		SKIP("no /proc");
	m = nprof_monitor_start(&o);
	if (!m) {
		FAIL("start: %s", nprof_strerror_last());
		return;
	}
	nanosleep(&ts, NULL);
	CHECK_INT(nprof_monitor_stop(m), 0);
	count = nprof_monitor_sample_count(m);
	CHECK(count >= 2);
	c = calloc((size_t)(ncpu > 0 ? ncpu : 1) + 64, sizeof(*c));
	n = nprof_monitor_get_sample(m, (size_t)count - 1, &s, c, (size_t)ncpu + 64);
	CHECK(n >= 1);
	CHECK(s.has_cpu && s.has_mem);
	CHECK(s.total.util_pct >= 0.0 && s.total.util_pct <= 100.0);
	CHECK(s.mem.host_total > 0 && s.mem.host_available <= s.mem.host_total);
	CHECK(s.mem.process_rss > 0 && s.mem.process_hwm >= s.mem.process_rss);
	free(c);
	nprof_monitor_free(m);
}

HARNESS_MAIN
