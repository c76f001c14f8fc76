// SPDX-License-Identifier: MIT
/*
 * The clock of the system trace: CLOCK_MONOTONIC nanoseconds, read from the
 * TSC where the kernel says that is exact (Documentation/sys_trace.rst,
 * "The clock").
 *
 * Why: an event costs its timestamp plus the ring write, and the ring write
 * is about half a clock_gettime(). Reading the TSC and converting it with
 * the kernel's own mult/shift skips the vDSO's generic path (its clocksource
 * dispatch, its timespec normalisation and ours back to nanoseconds).
 *
 * How, as perf does (include/uapi/linux/perf_event.h, "time_zero"): a
 * dummy software event is opened on the calling thread and its first page
 * mapped; under the page's seqlock the kernel publishes time_mult,
 * time_shift and time_zero, its sched_clock conversion of the TSC:
 *
 *	perf_ns = time_zero + (cyc >> shift) * mult + ((cyc & mask) * mult >> shift)
 *
 * That clock runs at the TSC's nominal rate, which is CLOCK_MONOTONIC's rate
 * too when the clocksource is the TSC and NTP applies no frequency or phase
 * correction, but from another origin: the offset CLOCK_MONOTONIC - perf_ns
 * is measured once, when the clock is decided (the first read or trace
 * start), as the midpoint of the narrowest of CALIB_TRIES clock_gettime()
 * pairs bracketing one perf read.
 *
 * Where the page offers no time_zero (a guest whose sched_clock is the
 * hypervisor's, though its clocksource is the TSC), the same conversion is
 * measured instead (CLK_TSC_CAL): CLOCK_MONOTONIC is then a linear function
 * of the TSC, so the rate is the slope between two (TSC, CLOCK_MONOTONIC)
 * points, each the midpoint of the narrowest of a few clock_gettime() pairs
 * bracketing one TSC read. The first two points are CAL_BOOT_NS apart; the
 * reads then re-measure once per interval, an interval as long as the
 * baseline so far (doubling) up to CAL_MAX_INTERVAL_NS, always against the
 * first point, so the slope's error falls as the run goes on. A new point
 * never makes the clock jump: the conversion goes on from where the old one
 * is at that TSC value, at the rate that meets the measured line one
 * interval later (as NTP slews rather than steps), so a thread's readings
 * never go back and the error stays within about three bracket widths (an
 * error over CAL_MAX_SLEW_NS, which only a stopped clock could cause, is
 * stepped away instead).
 *
 * Used only when all of these hold, else every read is a clock_gettime
 * (CLOCK_MONOTONIC), the fallback, and nprof_sys_trace_clock() says why:
 * x86-64; NPROF_SYS_TRACE_CLOCK unset or "auto"; /proc/cpuinfo lists
 * constant_tsc and nonstop_tsc; the current clocksource is tsc; adjtimex()
 * reports no NTP frequency, phase or tick correction; the calibration's
 * narrowest bracket is under CALIB_MAX_WIDTH_NS. A page that later drops
 * cap_user_time_zero (the kernel found the TSC unstable) sends each read to
 * clock_gettime().
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <neuronprof/sys_trace_events.h>

#include "util/internal.h"
#include "trace/base/sys_trace_clock.h"

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* clock_gettime() pairs tried around one perf read when calibrating. */
#define CALIB_TRIES		64
/* The narrowest pair must be this narrow, or the offset is not trusted. */
#define CALIB_MAX_WIDTH_NS	20000
/* Measured conversion: pairs tried per point, a point's widest bracket. */
#define CAL_TRIES		8
#define CAL_MAX_WIDTH_NS	2000
/* Measured conversion: the first slope's baseline, the longest interval. */
#define CAL_BOOT_NS		2000000ULL
#define CAL_MAX_INTERVAL_NS	100000000ULL
/* Measured conversion: an error beyond this is stepped away, not slewed. */
#define CAL_MAX_SLEW_NS		1000000ULL
/* Measured conversion: ns = ns0 + ((cyc - cyc0) * mult) >> CAL_SHIFT. */
#define CAL_SHIFT		32

enum clk_kind { CLK_UNSET, CLK_TSC, CLK_TSC_CAL, CLK_MONOTONIC };

/*
 * The measured conversion, valid for TSC values in [cyc0, cyc0 + span);
 * published under the seqlock @seq (odd while the one writer, holding
 * cal_lock, changes it). @base_cyc/@base_ns: the first point, which every
 * slope is measured from.
 */
static struct {
	_Atomic uint32_t seq;
	_Atomic uint64_t cyc0, ns0, mult, span;
	uint64_t base_cyc, base_ns;
	unsigned long renewals;		/* points measured after the first two */
} cal;
static pthread_mutex_t cal_lock = PTHREAD_MUTEX_INITIALIZER;

/* Written under clk_lock before clk_kind is released; read-only after. */
static _Atomic int clk_kind;
static const volatile struct perf_event_mmap_page *clk_page;
static uint64_t clk_offset;		/* CLOCK_MONOTONIC - perf clock, mod 2^64 */
static char clk_why[320];
static int clk_fd = -1;
static void *clk_map;
static size_t clk_map_len;
/* Protects the detection: one thread calibrates, the others wait for it. */
static pthread_mutex_t clk_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t nprof_st_tsc_to_ns(uint64_t cyc, uint32_t mult, uint16_t shift, uint64_t zero)
{
	uint64_t quot = cyc >> shift;
	uint64_t rem = cyc & ((1ULL << shift) - 1);

	/* Split as the kernel's comment does; the remainder's product in 128 bits. */
	return zero + quot * mult + (uint64_t)(((unsigned __int128)rem * mult) >> shift);
}

#if defined(__x86_64__)
/*
 * A timestamp's TSC read: rdtsc, as perf_event.h's example of a user-space
 * read does. It does not wait for earlier instructions to complete, so it
 * may be taken up to the CPU's out-of-order window (tens of nanoseconds)
 * before them; the vDSO's ordered read (lfence; rdtsc, or rdtscp) waits,
 * and on the development VM (AMD EPYC) that wait cost 10-12 ns a read,
 * half of a whole clock_gettime(). Documentation/sys_trace.rst, "The
 * clock", says what that means for events of different threads.
 */
static inline uint64_t read_tsc(void)
{
	return __rdtsc();
}

/* The calibration's read: ordered, so it lies inside its bracket. */
static inline uint64_t read_tsc_ordered(void)
{
	_mm_lfence();
	return __rdtsc();
}

/* The page's perf clock now; false if the page offers none (no time_zero). */
static inline bool page_ns(const volatile struct perf_event_mmap_page *pg, uint64_t *ns)
{
	uint64_t cyc, zero;
	uint32_t seq, mult;
	uint16_t shift;
	bool cap;

	/* The seqlock of perf_event.h: retry while the kernel updates the page. */
	do {
		seq = pg->lock;
		__asm__ __volatile__("" ::: "memory");
		cap = pg->cap_user_time_zero;
		mult = pg->time_mult;
		shift = pg->time_shift;
		zero = pg->time_zero;
		cyc = read_tsc();
		__asm__ __volatile__("" ::: "memory");
	} while (unlikely(pg->lock != seq));
	if (unlikely(!cap || shift >= 64))
		return false;
	*ns = nprof_st_tsc_to_ns(cyc, mult, shift, zero);
	return true;
}
#else
static inline bool page_ns(const volatile struct perf_event_mmap_page *pg, uint64_t *ns)
{
	(void)pg;
	(void)ns;
	return false;
}
#endif

/* True if the space-separated @list holds the word @w. */
static bool has_word(const char *list, size_t len, const char *w)
{
	size_t wl = strlen(w), i = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && list[j] != ' ' && list[j] != '\t')
			j++;
		if (j - i == wl && !memcmp(list + i, w, wl))
			return true;
		i = j + 1;
	}
	return false;
}

bool nprof_st_clock_conditions(const char *cpuinfo, const char *clocksource, char *why,
			       size_t len)
{
	static const char *const flags[] = { "constant_tsc", "nonstop_tsc" };
	const char *line = cpuinfo, *end;
	size_t cl, i;

	/* The first "flags" line: the kernel prints the same set for every CPU. */
	while (line && strncmp(line, "flags", 5)) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!line || !(line = strchr(line, ':'))) {
		snprintf(why, len, "/proc/cpuinfo has no flags line");
		return false;
	}
	line++;
	end = strchrnul(line, '\n');
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!has_word(line, (size_t)(end - line), flags[i])) {
			snprintf(why, len, "the CPU flags lack %s", flags[i]);
			return false;
		}
	cl = strcspn(clocksource, "\n");
	if (cl != 3 || memcmp(clocksource, "tsc", 3)) {
		snprintf(why, len, "the clocksource is %.*s, not tsc", (int)(cl > 32 ? 32 : cl),
			 clocksource);
		return false;
	}
	return true;
}

/* The first @len - 1 bytes of @path, NUL-terminated; false if unreadable. */
static bool read_text(const char *path, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	while (n < len - 1 && (r = read(fd, buf + n, len - 1 - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return false;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return true;
}

/* True if CLOCK_MONOTONIC runs at the clocksource's nominal rate. */
static bool ntp_idle(char *why, size_t len)
{
	struct timex tx;
	long hz = sysconf(_SC_CLK_TCK);

	memset(&tx, 0, sizeof(tx));
	if (adjtimex(&tx) < 0) {
		snprintf(why, len, "adjtimex: %s", strerror(errno));
		return false;
	}
	if (tx.freq || tx.offset || (hz > 0 && tx.tick != 1000000 / hz)) {
		snprintf(why, len,
			 "NTP corrects CLOCK_MONOTONIC (freq %ld, offset %ld, tick %ld): "
			 "its rate is not the TSC's", tx.freq, tx.offset, tx.tick);
		return false;
	}
	return true;
}

/*
 * The narrowest of @tries clock_gettime(CLOCK_MONOTONIC) pairs around one
 * @read(@ctx, &value) each: the value read inside it in *@v and the pair's
 * midpoint in *@mid. Returns that pair's width, or UINT64_MAX as soon as a
 * @read fails.
 */
static uint64_t bracket(int tries, bool (*read)(const volatile void *ctx, uint64_t *v),
			const volatile void *ctx, uint64_t *v, uint64_t *mid)
{
	uint64_t best = UINT64_MAX, t1, t2, x;
	int i;

	for (i = 0; i < tries; i++) {
		t1 = nprof_mono_ns();
		if (!read(ctx, &x))
			return UINT64_MAX;
		t2 = nprof_mono_ns();
		if (t2 - t1 < best) {
			best = t2 - t1;
			*v = x;
			*mid = t1 + (t2 - t1) / 2;
		}
	}
	return best;
}

static bool read_page(const volatile void *pg, uint64_t *ns)
{
	return page_ns(pg, ns);
}

/*
 * Measure CLOCK_MONOTONIC - perf clock on @pg; false (and why) if the page
 * has no time_zero or clock_gettime() never brackets a read narrowly.
 */
static bool calibrate(const volatile struct perf_event_mmap_page *pg, uint64_t *offset,
		      char *why, size_t len)
{
	uint64_t p = 0, mid = 0, width = bracket(CALIB_TRIES, read_page, pg, &p, &mid);

	if (width == UINT64_MAX) {
		snprintf(why, len, "the perf_event page offers no time_zero "
			 "(cap_user_time_zero is 0: the kernel's sched_clock is not the TSC)");
		return false;
	}
	if (width > CALIB_MAX_WIDTH_NS) {
		snprintf(why, len, "calibration: clock_gettime() brackets a TSC read in %llu ns at best",
			 (unsigned long long)width);
		return false;
	}
	*offset = mid - p;
	return true;
}

#if defined(__x86_64__)
/* bracket()'s read of the TSC, ordered against the clock reads around it. */
static bool read_ordered(const volatile void *unused, uint64_t *cyc)
{
	(void)unused;
	*cyc = read_tsc_ordered();
	return true;
}

/*
 * One point of the measured conversion: the TSC at the midpoint of the
 * narrowest of CAL_TRIES clock_gettime() pairs around a TSC read; false if
 * none was narrower than CAL_MAX_WIDTH_NS (the thread was preempted).
 */
static bool cal_point(uint64_t *cyc, uint64_t *ns)
{
	return bracket(CAL_TRIES, read_ordered, NULL, cyc, ns) <= CAL_MAX_WIDTH_NS;
}

/* ns0 + (@d cycles at @mult), for @d of either sign. */
static inline uint64_t cal_conv(uint64_t ns0, uint64_t mult, uint64_t d)
{
	if (likely((int64_t)d >= 0))
		return ns0 + (uint64_t)(((unsigned __int128)d * mult) >> CAL_SHIFT);
	/* A TSC read on a CPU a few cycles behind the one that set cyc0. */
	return ns0 - (uint64_t)(((unsigned __int128)(0 - d) * mult) >> CAL_SHIFT);
}

/* @ns nanoseconds over @cyc cycles as a CAL_SHIFT fixed-point rate. */
static inline uint64_t cal_rate(uint64_t ns, uint64_t cyc)
{
	return (uint64_t)(((unsigned __int128)ns << CAL_SHIFT) / cyc);
}

static void cal_publish(uint64_t cyc0, uint64_t ns0, uint64_t mult, uint64_t span)
{
	uint32_t s = atomic_load_explicit(&cal.seq, memory_order_relaxed);

	atomic_store_explicit(&cal.seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&cal.cyc0, cyc0, memory_order_relaxed);
	atomic_store_explicit(&cal.ns0, ns0, memory_order_relaxed);
	atomic_store_explicit(&cal.mult, mult, memory_order_relaxed);
	atomic_store_explicit(&cal.span, span, memory_order_relaxed);
	atomic_store_explicit(&cal.seq, s + 2, memory_order_release);
}

/*
 * The first two points, CAL_BOOT_NS apart; false (and why) if either
 * could not be bracketed or the TSC did not advance.
 */
static bool cal_start(char *why, size_t len)
{
	uint64_t c0 = 0, n0 = 0, c1 = 0, n1 = 0;

	if (!cal_point(&c0, &n0)) {
		snprintf(why, len, "calibration: clock_gettime() never bracketed a TSC read "
			 "within %d ns", CAL_MAX_WIDTH_NS);
		return false;
	}
	while (nprof_mono_ns() - n0 < CAL_BOOT_NS)
		;
	if (!cal_point(&c1, &n1) || c1 <= c0 || n1 <= n0) {
		snprintf(why, len, "calibration: no second point (bracket over %d ns, or the TSC "
			 "did not advance)", CAL_MAX_WIDTH_NS);
		return false;
	}
	cal.base_cyc = c0;
	cal.base_ns = n0;
	cal.renewals = 0;
	cal_publish(c1, n1, cal_rate(n1 - n0, c1 - c0), c1 - c0);
	return true;
}

/*
 * Past the interval (@cyc beyond the published span): measure a point and
 * go on from the current conversion at the rate that meets the measured
 * line one interval later. One thread does it; the others keep using the
 * published conversion meanwhile, which stays exact enough for that long.
 */
static void cal_renew(void)
{
	uint64_t c = 0, n = 0, cyc0, ns0, mult, span, base, rate, here, target, interval;

	if (pthread_mutex_trylock(&cal_lock))
		return;
	cyc0 = atomic_load_explicit(&cal.cyc0, memory_order_relaxed);
	ns0 = atomic_load_explicit(&cal.ns0, memory_order_relaxed);
	mult = atomic_load_explicit(&cal.mult, memory_order_relaxed);
	span = atomic_load_explicit(&cal.span, memory_order_relaxed);
	if (!cal_point(&c, &n) || c - cyc0 < span || c <= cal.base_cyc) {
		/* Preempted while measuring: try again a tenth of an interval on. */
		if (c - cyc0 >= span)
			cal_publish(cyc0, ns0, mult, span + span / 10);
		goto out;
	}
	base = c - cal.base_cyc;
	rate = cal_rate(n - cal.base_ns, base);
	here = cal_conv(ns0, mult, c - cyc0);
	interval = base;
	if ((((unsigned __int128)interval * rate) >> CAL_SHIFT) > CAL_MAX_INTERVAL_NS)
		interval = (uint64_t)(((unsigned __int128)CAL_MAX_INTERVAL_NS << CAL_SHIFT) / rate);
	/* Further off than slewing should take (a suspend?): step to the line. */
	if (here > n + CAL_MAX_SLEW_NS || n > here + CAL_MAX_SLEW_NS)
		here = n;
	target = n + (uint64_t)(((unsigned __int128)interval * rate) >> CAL_SHIFT);
	if (target <= here)
		target = here + 1;
	cal_publish(c, here, cal_rate(target - here, interval), interval);
	cal.renewals++;
out:
	pthread_mutex_unlock(&cal_lock);
}

static inline uint64_t cal_ns(void)
{
	uint64_t cyc0, ns0, mult, span, cyc;
	uint32_t s;

	for (;;) {
		do {
			s = atomic_load_explicit(&cal.seq, memory_order_acquire);
			cyc0 = atomic_load_explicit(&cal.cyc0, memory_order_relaxed);
			ns0 = atomic_load_explicit(&cal.ns0, memory_order_relaxed);
			mult = atomic_load_explicit(&cal.mult, memory_order_relaxed);
			span = atomic_load_explicit(&cal.span, memory_order_relaxed);
			atomic_thread_fence(memory_order_acquire);
		} while (unlikely((s & 1) || s != atomic_load_explicit(&cal.seq,
								       memory_order_relaxed)));
		cyc = read_tsc();
		if (likely(cyc - cyc0 < span))
			return cal_conv(ns0, mult, cyc - cyc0);
		if ((int64_t)(cyc - cyc0) < 0)
			return cal_conv(ns0, mult, cyc - cyc0);
		cal_renew();
		/* Again with what it published (or another thread did). */
		if (atomic_load_explicit(&cal.seq, memory_order_acquire) == s)
			return cal_conv(ns0, mult, cyc - cyc0);
	}
}
#else
static bool cal_start(char *why, size_t len)
{
	snprintf(why, len, "TSC reads are implemented on x86-64 only");
	return false;
}

static inline uint64_t cal_ns(void)
{
	return nprof_mono_ns();
}
#endif

/* Open the dummy event and map its page; false (and why) on failure. */
static bool open_page(char *why, size_t len)
{
	struct perf_event_attr attr;
	long psz = sysconf(_SC_PAGESIZE);
	int fd;
	void *p;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;	/* allowed at perf_event_paranoid 2 */
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "perf_event_open(PERF_COUNT_SW_DUMMY): %s", strerror(errno));
		return false;
	}
	p = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		snprintf(why, len, "mmap of the perf_event page: %s", strerror(errno));
		close(fd);
		return false;
	}
	clk_fd = fd;
	clk_map = p;
	clk_map_len = (size_t)psz;
	return true;
}

static void close_page(void)
{
	if (clk_map)
		munmap(clk_map, clk_map_len);
	if (clk_fd >= 0)
		close(clk_fd);
	clk_map = NULL;
	clk_fd = -1;
	clk_page = NULL;
}

/* True if every condition but the page's holds; else false and why. */
static bool tsc_allowed(char *why, size_t len)
{
	const char *force = getenv("NPROF_SYS_TRACE_CLOCK");
	static char cpuinfo[65536];
	char cs[64];

	if (force && *force && strcmp(force, "auto")) {
		if (!strcmp(force, "monotonic"))
			snprintf(why, len, "NPROF_SYS_TRACE_CLOCK=monotonic");
		else
			snprintf(why, len, "NPROF_SYS_TRACE_CLOCK=%.32s is neither auto nor monotonic",
				 force);
		return false;
	}
#if !defined(__x86_64__)
	snprintf(why, len, "TSC reads are implemented on x86-64 only");
	return false;
#endif
	if (!read_text("/proc/cpuinfo", cpuinfo, sizeof(cpuinfo))) {
		snprintf(why, len, "cannot read /proc/cpuinfo: %s", strerror(errno));
		return false;
	}
	if (!read_text("/sys/devices/system/clocksource/clocksource0/current_clocksource", cs,
		       sizeof(cs))) {
		snprintf(why, len, "cannot read the current clocksource: %s", strerror(errno));
		return false;
	}
	return nprof_st_clock_conditions(cpuinfo, cs, why, len) && ntp_idle(why, len);
}

/* Decide the clock once; later callers see the decision. */
static void clock_init(void)
{
	char why[sizeof(clk_why)];
	uint64_t off = 0;
	int kind = CLK_MONOTONIC;

	pthread_mutex_lock(&clk_lock);
	if (atomic_load_explicit(&clk_kind, memory_order_relaxed) != CLK_UNSET)
		goto out;
	if (tsc_allowed(why, sizeof(why))) {
		if (open_page(why, sizeof(why)) && calibrate(clk_map, &off, why, sizeof(why))) {
			clk_page = clk_map;
			clk_offset = off;
			kind = CLK_TSC;
			snprintf(why, sizeof(why),
				 "TSC through the perf_event page (mult %u, shift %u), offset to "
				 "CLOCK_MONOTONIC %lld ns",
				 clk_page->time_mult, clk_page->time_shift, (long long)off);
		} else {
			char no_page[sizeof(clk_why)];

			close_page();
			memcpy(no_page, why, sizeof(no_page));
			if (cal_start(why, sizeof(why))) {
				kind = CLK_TSC_CAL;
				snprintf(why, sizeof(why),
					 "TSC converted at a rate measured against CLOCK_MONOTONIC "
					 "(%.6f ns per cycle at first), as %.200s", (double)cal.mult /
					 (double)(1ULL << CAL_SHIFT), no_page);
			}
		}
	}
	memcpy(clk_why, why, sizeof(why));
	nprof_log(NPROF_LOG_DEBUG, "system trace clock: %s%s",
		  kind != CLK_MONOTONIC ? "" : "clock_gettime(CLOCK_MONOTONIC): ", why);
	atomic_store_explicit(&clk_kind, kind, memory_order_release);
out:
	pthread_mutex_unlock(&clk_lock);
}

NPROF_API uint64_t nprof_sys_trace_clock_ns(void)
{
	int kind = atomic_load_explicit(&clk_kind, memory_order_acquire);
	uint64_t ns;

	if (likely(kind == CLK_TSC)) {
		if (likely(page_ns(clk_page, &ns)))
			return ns + clk_offset;
	} else if (kind == CLK_TSC_CAL) {
		return cal_ns();
	} else if (unlikely(kind == CLK_UNSET)) {
		clock_init();
		return nprof_sys_trace_clock_ns();
	}
	return nprof_mono_ns();
}

NPROF_API int nprof_sys_trace_clock(char *why, size_t len)
{
	int kind = atomic_load_explicit(&clk_kind, memory_order_acquire);

	if (kind == CLK_UNSET) {
		clock_init();
		kind = atomic_load_explicit(&clk_kind, memory_order_acquire);
	}
	if (why && len)
		snprintf(why, len, "%s", clk_why);
	return kind != CLK_MONOTONIC ? NPROF_SYS_TRACE_CLOCK_TSC : NPROF_SYS_TRACE_CLOCK_MONOTONIC;
}

void nprof_st_clock_test_reset(void)
{
	pthread_mutex_lock(&clk_lock);
	atomic_store_explicit(&clk_kind, CLK_UNSET, memory_order_relaxed);
	close_page();
	clk_offset = 0;
	clk_why[0] = '\0';
	pthread_mutex_unlock(&clk_lock);
}

int nprof_st_clock_test_use_page(const struct perf_event_mmap_page *pg)
{
	char why[sizeof(clk_why)];
	uint64_t off = 0;
	int ret = 0;

	pthread_mutex_lock(&clk_lock);
	close_page();
	if (!calibrate(pg, &off, why, sizeof(why))) {
		ret = -EINVAL;
		goto out;
	}
	clk_page = pg;
	clk_offset = off;
	snprintf(clk_why, sizeof(clk_why), "TSC through a page the caller built");
	atomic_store_explicit(&clk_kind, CLK_TSC, memory_order_release);
out:
	pthread_mutex_unlock(&clk_lock);
	return ret;
}

int nprof_st_clock_test_use_cal(void)
{
	char why[sizeof(clk_why)];
	int ret = 0;

	pthread_mutex_lock(&clk_lock);
	close_page();
	if (!cal_start(why, sizeof(why))) {
		ret = -EINVAL;
		goto out;
	}
	snprintf(clk_why, sizeof(clk_why), "TSC at a measured rate, forced by a test");
	atomic_store_explicit(&clk_kind, CLK_TSC_CAL, memory_order_release);
out:
	pthread_mutex_unlock(&clk_lock);
	return ret;
}

unsigned long nprof_st_clock_test_renewals(void)
{
	unsigned long n;

	pthread_mutex_lock(&cal_lock);
	n = cal.renewals;
	pthread_mutex_unlock(&cal_lock);
	return n;
}
