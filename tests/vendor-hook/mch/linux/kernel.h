/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for what the vendor's neuron_mc_handle.c takes from
 * the kernel headers (mch_test.c): allocation, a mutex that is never
 * contended, and pr_err().
 */
#ifndef NPROF_MCH_SHIM_KERNEL_H
#define NPROF_MCH_SHIM_KERNEL_H
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef uint32_t u32;
typedef uint64_t u64;

#define GFP_KERNEL	0
#define kzalloc(n, gfp)	calloc(1, (n))
#define kfree(p)	free(p)
/* Not format-checked: the kernel's u64 is unsigned long long, printed with %llx. */
static inline void nprof_pr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define pr_err(fmt, ...)	nprof_pr_err(pr_fmt(fmt), ##__VA_ARGS__)

struct mutex {
	int held;
};

static inline void mutex_init(struct mutex *m)
{
	m->held = 0;
}

static inline void mutex_lock(struct mutex *m)
{
	if (m->held++)
		abort();	/* single-threaded: never taken twice */
}

static inline void mutex_unlock(struct mutex *m)
{
	m->held--;
}
#endif
