// SPDX-License-Identifier: MIT
/*
 * Host tests of the system trace's clock (trace/base/sys_trace_clock.c): the
 * kernel's TSC conversion on fixed mult/shift values (no overflow for large
 * TSC values), the CPU-flag and clocksource conditions, the fallback forced
 * by NPROF_SYS_TRACE_CLOCK, the TSC read path on a page built here (so it
 * runs even where the kernel offers none), the measured conversion forced
 * (monotonic and within the bound across its renewals), and a 10 s run in which the
 * clock stays within 1 us of clock_gettime(CLOCK_MONOTONIC) read beside it,
 * on whichever path this machine gives (the output says which).
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <neuronprof/sys_trace.h>

#include "harness.h"
#include "trace/base/sys_trace_clock.h"

/* Seconds of the accuracy run, the interval between samples, the bound. */
#define RUN_SECONDS	10
#define SAMPLE_NS	1000000ULL
#define BOUND_NS	1000ULL

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t ref_convert(uint64_t cyc, uint32_t mult, uint16_t shift, uint64_t zero)
{
	return zero + (uint64_t)(((unsigned __int128)cyc * mult) >> shift);
}

TEST(tsc_conversion_on_fixed_values)
{
	/* cyc2ns-like values of a 2.6 GHz TSC, a clocksource-like pair, extremes. */
	static const struct { uint32_t mult; uint16_t shift; } ms[] = {
		{ 827188396u, 31 }, { 6463104u, 24 }, { 1u, 0 }, { 3u, 1 },
		{ UINT32_MAX, 32 }, { UINT32_MAX, 63 }, { 0x80000000u, 31 },
	};
	static const uint64_t cycles[] = {
		0, 1, 2596124000ULL, 0xffffffffULL, 0x100000000ULL, 1ULL << 40,
		0x0123456789abcdefULL, 1ULL << 62, (1ULL << 63) - 1, UINT64_MAX,
	};
	size_t i, j;

	/* Values worked out by hand. */
	CHECK_INT(nprof_st_tsc_to_ns(10, 3, 1, 0), 15);
	CHECK_INT(nprof_st_tsc_to_ns(10, 3, 1, 1000), 1015);
	/* 2^62 cycles at 1 ns each: a 64-bit cyc * mult would have wrapped to 0. */
	CHECK(nprof_st_tsc_to_ns(1ULL << 62, 0x80000000u, 31, 0) == 1ULL << 62);
	/* One second of a 2.6 GHz TSC, as cyc2ns mult 827188396 >> 31 has it (rounded down). */
	CHECK_INT(nprof_st_tsc_to_ns(2596124000ULL, 827188396u, 31, 0), 999999999);
	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
		for (j = 0; j < sizeof(cycles) / sizeof(cycles[0]); j++) {
			uint64_t got = nprof_st_tsc_to_ns(cycles[j], ms[i].mult, ms[i].shift, 12345);
			uint64_t want = ref_convert(cycles[j], ms[i].mult, ms[i].shift, 12345);

			if (got != want)
				FAIL("cyc %#llx mult %u shift %u: %llu, the 128-bit product gives %llu",
				     (unsigned long long)cycles[j], ms[i].mult, ms[i].shift,
				     (unsigned long long)got, (unsigned long long)want);
		}
}

TEST(tsc_conditions_need_both_flags_and_the_tsc_clocksource)
{
	static const char good[] = "processor\t: 0\nflags\t\t: fpu tsc constant_tsc rep_good "
				   "nopl nonstop_tsc cpuid\nbogomips\t: 5192.24\n";
	char why[128];

	CHECK(nprof_st_clock_conditions(good, "tsc\n", why, sizeof(why)));
	CHECK(!nprof_st_clock_conditions(good, "kvm-clock\n", why, sizeof(why)));
	CHECK_STR(why, "the clocksource is kvm-clock, not tsc");
	CHECK(!nprof_st_clock_conditions(good, "tsc-early\n", why, sizeof(why)));
	CHECK(!nprof_st_clock_conditions("flags\t: fpu constant_tsc\n", "tsc\n", why, sizeof(why)));
	CHECK_STR(why, "the CPU flags lack nonstop_tsc");
	/* A word that merely contains the flag does not count. */
	CHECK(!nprof_st_clock_conditions("flags\t: xconstant_tsc nonstop_tsc\n", "tsc", why,
					 sizeof(why)));
	CHECK_STR(why, "the CPU flags lack constant_tsc");
	/* Only the flags line counts, not a flag named on another line. */
	CHECK(!nprof_st_clock_conditions("bugs\t: constant_tsc nonstop_tsc\nflags\t: fpu\n", "tsc",
					 why, sizeof(why)));
	CHECK(!nprof_st_clock_conditions("processor: 0\n", "tsc", why, sizeof(why)));
	CHECK_STR(why, "/proc/cpuinfo has no flags line");
}

/* nprof_sys_trace_clock_ns() lies within @bound of clock_gettime() read around it. */
static int bracketed(uint64_t bound)
{
	uint64_t m1 = mono_ns(), v = nprof_sys_trace_clock_ns(), m2 = mono_ns();

	return v + bound >= m1 && v <= m2 + bound;
}

TEST(fallback_forced_by_the_environment)
{
	char why[256];
	int i, ok = 1;

	setenv("NPROF_SYS_TRACE_CLOCK", "monotonic", 1);
	nprof_st_clock_test_reset();
	CHECK_INT(nprof_sys_trace_clock(why, sizeof(why)), NPROF_SYS_TRACE_CLOCK_MONOTONIC);
	CHECK_STR(why, "NPROF_SYS_TRACE_CLOCK=monotonic");
	/* clock_gettime() itself: no bound needed. */
	for (i = 0; i < 1000; i++)
		ok &= bracketed(0);
	CHECK(ok);

	setenv("NPROF_SYS_TRACE_CLOCK", "tsc", 1);
	nprof_st_clock_test_reset();
	CHECK_INT(nprof_sys_trace_clock(why, sizeof(why)), NPROF_SYS_TRACE_CLOCK_MONOTONIC);
	CHECK_STR(why, "NPROF_SYS_TRACE_CLOCK=tsc is neither auto nor monotonic");

	unsetenv("NPROF_SYS_TRACE_CLOCK");
	nprof_st_clock_test_reset();
	nprof_sys_trace_clock(why, sizeof(why));
	CHECK(!strstr(why, "NPROF_SYS_TRACE_CLOCK"));
}

#if defined(__x86_64__)
/*
 * rdtscp waits for earlier instructions, the lfence keeps later ones (the
 * library's own unordered rdtsc) from starting before it: a read between
 * two of these lies between them.
 */
static uint64_t tsc(void)
{
	unsigned int aux;
	uint64_t c = __rdtscp(&aux);

	_mm_lfence();
	return c;
}

TEST(tsc_path_reads_the_page_and_falls_back_when_it_loses_time_zero)
{
	static struct perf_event_mmap_page pg __attribute__((aligned(4096)));
	uint64_t m0, c0, m1, c1, off_lo = 0, off_hi = UINT64_MAX, v, c;
	struct timespec pause = { 0, 20000000 };
	int i, ok = 1;

	/* A rough ns-per-cycle over 20 ms, as the kernel's cyc2ns would give. */
	m0 = mono_ns();
	c0 = tsc();
	nanosleep(&pause, NULL);
	m1 = mono_ns();
	c1 = tsc();
	if (c1 <= c0)
		SKIP("the TSC does not advance");
	memset(&pg, 0, sizeof(pg));
	pg.time_shift = 31;
	pg.time_mult = (uint32_t)((double)(m1 - m0) / (double)(c1 - c0) * 2147483648.0);
	pg.time_zero = 0;
	CHECK_INT(nprof_st_clock_test_use_page(&pg), -EINVAL);	/* no cap_user_time_zero */

	pg.cap_user_time_zero = 1;
	CHECK_INT(nprof_st_clock_test_use_page(&pg), 0);
	CHECK_INT(nprof_sys_trace_clock(NULL, 0), NPROF_SYS_TRACE_CLOCK_TSC);
	/*
	 * Each read is the page's conversion of a TSC read plus one constant
	 * offset: the TSC read before and after bound it, always the same one.
	 */
	for (i = 0; i < 1000; i++) {
		uint64_t lo, hi;

		c0 = tsc();
		v = nprof_sys_trace_clock_ns();
		c1 = tsc();
		lo = v - nprof_st_tsc_to_ns(c1, pg.time_mult, pg.time_shift, 0);
		hi = v - nprof_st_tsc_to_ns(c0, pg.time_mult, pg.time_shift, 0);
		if (lo > off_lo)
			off_lo = lo;
		if (hi < off_hi)
			off_hi = hi;
	}
	CHECK(off_lo <= off_hi);
	/* Calibrated against CLOCK_MONOTONIC: right after, far closer than 50 us. */
	for (i = 0; i < 100; i++)
		ok &= bracketed(50000);
	CHECK(ok);

	/* A new mult on the page is used by the next read: it doubles the time. */
	c = tsc();
	pg.lock++;
	pg.time_mult *= 2;
	pg.lock++;
	v = nprof_sys_trace_clock_ns();
	CHECK(v > mono_ns() + nprof_st_tsc_to_ns(c, pg.time_mult / 2, pg.time_shift, 0) / 2);

	/* The kernel clears cap_user_time_zero: reads become clock_gettime(). */
	pg.lock++;
	pg.cap_user_time_zero = 0;
	pg.lock++;
	for (i = 0, ok = 1; i < 1000; i++)
		ok &= bracketed(0);
	CHECK(ok);
	nprof_st_clock_test_reset();
}

TEST(measured_rate_stays_within_1us_and_monotonic_across_renewals)
{
	uint64_t start, v, prev = 0, m1, m2, err, worst = 0;
	unsigned long reads = 0, back = 0, late = 0;

	if (nprof_st_clock_test_use_cal())
		SKIP("no TSC to measure here (not x86-64, or no narrow bracket)");
	CHECK_INT(nprof_sys_trace_clock(NULL, 0), NPROF_SYS_TRACE_CLOCK_TSC);
	CHECK_INT((long)nprof_st_clock_test_renewals(), 0);
	/*
	 * 1.5 s of back-to-back reads: the intervals double from 2 ms to
	 * 100 ms, so the conversion is renewed about twenty times; across each renewal
	 * the readings must go on without a step back or out of the bound.
	 */
	start = mono_ns();
	do {
		m1 = mono_ns();
		v = nprof_sys_trace_clock_ns();
		m2 = mono_ns();
		err = v < m1 ? m1 - v : v > m2 ? v - m2 : 0;
		if (err > worst)
			worst = err;
		late += err > BOUND_NS;
		back += v < prev;
		prev = v;
		reads++;
	} while (m2 - start < 1500000000ULL);
	printf("# %lu reads over 1.5 s, %lu renewals: worst %llu ns outside the bracket\n",
	       reads, nprof_st_clock_test_renewals(), (unsigned long long)worst);
	CHECK(nprof_st_clock_test_renewals() >= 5);
	CHECK_INT((long)late, 0);
	CHECK_INT((long)back, 0);
	nprof_st_clock_test_reset();
}
#endif

TEST(ten_seconds_within_1us_of_clock_gettime)
{
	uint64_t start, next, prev = 0, worst = 0, samples = 0, late = 0, back = 0;
	char why[256];
	int kind;

	nprof_st_clock_test_reset();
	kind = nprof_sys_trace_clock(why, sizeof(why));
	printf("# measured path: %s (%s)\n",
	       kind == NPROF_SYS_TRACE_CLOCK_TSC ? "TSC" : "clock_gettime(CLOCK_MONOTONIC)", why);
	start = next = mono_ns();
	while (next - start < RUN_SECONDS * 1000000000ULL) {
		uint64_t m1, v, m2, err = 0;

		struct timespec at = { (time_t)(next / 1000000000ULL), (long)(next % 1000000000ULL) };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
		m1 = mono_ns();
		v = nprof_sys_trace_clock_ns();
		m2 = mono_ns();
		if (v < m1)
			err = m1 - v;
		else if (v > m2)
			err = v - m2;
		if (err > worst)
			worst = err;
		if (err > BOUND_NS)
			late++;
		if (v < prev)
			back++;
		prev = v;
		samples++;
		next += SAMPLE_NS;
	}
	printf("# %llu samples over %d s: worst %llu ns outside the clock_gettime() bracket\n",
	       (unsigned long long)samples, RUN_SECONDS, (unsigned long long)worst);
	CHECK(samples >= RUN_SECONDS * 900);
	CHECK_INT(late, 0);
	CHECK_INT(back, 0);
}

HARNESS_MAIN
