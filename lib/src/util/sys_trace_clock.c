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
 * Used only when all of these hold, else every read is a clock_gettime
 * (CLOCK_MONOTONIC), the fallback, and nprof_sys_trace_clock() says why:
 * x86-64; NPROF_SYS_TRACE_CLOCK unset or "auto"; /proc/cpuinfo lists
 * constant_tsc and nonstop_tsc; the current clocksource is tsc; adjtimex()
 * reports no NTP frequency, phase or tick correction; perf_event_open() and
 * the mapping work and the page has cap_user_time_zero; the calibration's
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
#include "util/sys_trace_clock.h"

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* clock_gettime() pairs tried around one perf read when calibrating. */
#define CALIB_TRIES		64
/* The narrowest pair must be this narrow, or the offset is not trusted. */
#define CALIB_MAX_WIDTH_NS	20000

enum clk_kind { CLK_UNSET, CLK_TSC, CLK_MONOTONIC };

/* Written under clk_lock before clk_kind is released; read-only after. */
static _Atomic int clk_kind;
static const volatile struct perf_event_mmap_page *clk_page;
static uint64_t clk_offset;		/* CLOCK_MONOTONIC - perf clock, mod 2^64 */
static char clk_why[192];
static int clk_fd = -1;
static void *clk_map;
static size_t clk_map_len;
/* Protects the detection: one thread calibrates, the others wait for it. */
static pthread_mutex_t clk_lock = PTHREAD_MUTEX_INITIALIZER;

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t nprof_st_tsc_to_ns(uint64_t cyc, uint32_t mult, uint16_t shift, uint64_t zero)
{
	uint64_t quot = cyc >> shift;
	uint64_t rem = cyc & ((1ULL << shift) - 1);

	/* Split as the kernel's comment does; the remainder's product in 128 bits. */
	return zero + quot * mult + (uint64_t)(((unsigned __int128)rem * mult) >> shift);
}

#if defined(__x86_64__)
/* rdtscp waits for earlier instructions, as the vDSO's ordered read does. */
static inline uint64_t read_tsc(void)
{
	unsigned int aux;

	return __rdtscp(&aux);
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
 * Measure CLOCK_MONOTONIC - perf clock on @pg; false (and why) if the page
 * has no time_zero or clock_gettime() never brackets a read narrowly.
 */
static bool calibrate(const volatile struct perf_event_mmap_page *pg, uint64_t *offset,
		      char *why, size_t len)
{
	uint64_t best = UINT64_MAX, t1, t2, p;
	int i;

	for (i = 0; i < CALIB_TRIES; i++) {
		t1 = mono_ns();
		if (!page_ns(pg, &p)) {
			snprintf(why, len, "the perf_event page offers no time_zero "
				 "(cap_user_time_zero is 0: the kernel's sched_clock is not the TSC)");
			return false;
		}
		t2 = mono_ns();
		if (t2 - t1 < best) {
			best = t2 - t1;
			*offset = t1 + (t2 - t1) / 2 - p;
		}
	}
	if (best > CALIB_MAX_WIDTH_NS) {
		snprintf(why, len, "calibration: clock_gettime() brackets a TSC read in %llu ns at best",
			 (unsigned long long)best);
		return false;
	}
	return true;
}

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
	if (tsc_allowed(why, sizeof(why)) && open_page(why, sizeof(why))) {
		if (calibrate(clk_map, &off, why, sizeof(why))) {
			clk_page = clk_map;
			clk_offset = off;
			kind = CLK_TSC;
			snprintf(why, sizeof(why),
				 "TSC through the perf_event page (mult %u, shift %u), offset to "
				 "CLOCK_MONOTONIC %lld ns",
				 clk_page->time_mult, clk_page->time_shift, (long long)off);
		} else {
			close_page();
		}
	}
	memcpy(clk_why, why, sizeof(why));
	nprof_log(NPROF_LOG_DEBUG, "system trace clock: %s%s",
		  kind == CLK_TSC ? "" : "clock_gettime(CLOCK_MONOTONIC): ", why);
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
	} else if (unlikely(kind == CLK_UNSET)) {
		clock_init();
		return nprof_sys_trace_clock_ns();
	}
	return mono_ns();
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
	return kind == CLK_TSC ? NPROF_SYS_TRACE_CLOCK_TSC : NPROF_SYS_TRACE_CLOCK_MONOTONIC;
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
