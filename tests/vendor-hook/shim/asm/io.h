/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in (decode_test.c): register access is never called. */
#include <linux/types.h>
