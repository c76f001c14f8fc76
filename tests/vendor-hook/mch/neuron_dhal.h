/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in (mch_test.c): nothing is needed from it. */
