/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel headers the vendor's notific.c/.h and
 * the hook's decode header include: the types and nothing else. Used by
 * decode_test.c only.
 */
#ifndef NPROF_SHIM_LINUX_TYPES_H
#define NPROF_SHIM_LINUX_TYPES_H
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int32_t __s32;
typedef int64_t __s64;
#define __iomem
#endif
