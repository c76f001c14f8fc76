/* SPDX-License-Identifier: MIT */
/*
 * The clock of every timestamp the library takes (sys_trace_clock.c):
 * CLOCK_MONOTONIC nanoseconds from the TSC where the kernel says that is
 * exact, clock_gettime() otherwise. In trace/base/, on the lowest layer,
 * because every layer takes timestamps (the device layer's trace points too); the public entry points
 * are nprof_sys_trace_clock_ns() and nprof_sys_trace_clock()
 * (<neuronprof/sys_trace.h>). What follows is for tests.
 *
 * May call: the C library and util/ (its logging).
 */
#ifndef NEURONPROF_SYS_TRACE_CLOCK_H
#define NEURONPROF_SYS_TRACE_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_mmap_page;

/*
 * The kernel's TSC-to-nanoseconds conversion (perf_event.h, time_zero):
 * zero + (cyc * mult) >> shift, computed without overflow for any @cyc.
 * @shift must be below 64.
 */
uint64_t nprof_st_tsc_to_ns(uint64_t cyc, uint32_t mult, uint16_t shift, uint64_t zero);

/*
 * Whether the text of /proc/cpuinfo and of the current clocksource allow the
 * TSC (constant_tsc, nonstop_tsc, clocksource tsc); if not, why.
 */
bool nprof_st_clock_conditions(const char *cpuinfo, const char *clocksource, char *why,
			       size_t len);

/* Tests only: forget the clock decision; the next read decides again. */
void nprof_st_clock_test_reset(void);

/*
 * Tests only: read the TSC through @pg, a page the caller keeps valid and
 * fills as the kernel would, calibrated now; -EINVAL if @pg offers no
 * time_zero or the calibration fails.
 */
int nprof_st_clock_test_use_page(const struct perf_event_mmap_page *pg);

/*
 * Tests only: use the measured conversion (as where the kernel's page offers
 * no time_zero), calibrated now; -EINVAL if it cannot be (not x86-64, or no
 * narrow bracket).
 */
int nprof_st_clock_test_use_cal(void);

/* Tests only: points the measured conversion took after its first two. */
unsigned long nprof_st_clock_test_renewals(void);

#endif /* NEURONPROF_SYS_TRACE_CLOCK_H */
