#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Installed as NAME_m32 (selftests/Makefile, install) for each i386 build of
# a uapi program, which lies in m32/NAME_m32: runs it with the arguments
# given, its ioctls going through the kernel's compat path. A kernel without
# IA32 emulation cannot start an i386 program at all; there the program
# skips with that reason (exit status 4, KSFT_SKIP), as any test skips what
# the machine lacks, instead of failing to run. m32/ia32_probe tells which.
dir=$(dirname "$0")
name=${0##*/}
if [ "$("$dir/m32/ia32_probe" 2>/dev/null)" != ia32 ]; then
	echo "TAP version 13"
	echo "1..1"
	echo "ok 1 $name # SKIP this kernel cannot execute i386 programs (no IA32 emulation)"
	echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
	exit 4
fi
exec "$dir/m32/$name" "$@"
