/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in (decode_test.c): nothing is needed from it. */
#include <linux/types.h>
