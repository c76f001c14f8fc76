#!/bin/sh
# SPDX-License-Identifier: MIT
#
# summary.sh RESULTS: sum the per-program lines of RESULTS, print the
# "N passed, N failed, N skipped" line and exit non-zero on any failure.
set -u
awk '{ p += $2; f += $3; s += $4 } END {
	printf "%d passed, %d failed, %d skipped\n", p, f, s
	exit (f > 0 || NR == 0) ? 1 : 0
}' "$1"
