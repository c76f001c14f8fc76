#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# `neuronprof diff` of two recordings against `neuronprof summary --json` of
# both (one process, the same two PATHs): files of ENTRIES entries each
# (default 2000000) with the simulator's mix (tools/tests/gen_fixtures
# --large for BASE, --jitter for NEW: the same ops with other durations),
# written into BENCH_DIR (default /var/tmp). Each command runs three times,
# whole processes (loading and validating both files included), output
# discarded; the best time of each counts. Printed: both times, entries per
# second, the rows compared, and last the speed ratio of diff to summary
# ("ratio diff/summary: 0.NNx"; the goal is at least 0.5x).
#
# Usage: bench/diff.sh [ENTRIES]
# Environment: BENCH_DIR, TOOL_BUILD (default tools/build; neuronprof and
# tests/gen_fixtures are built there when missing).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tool_bench.sh"
tool_bench_setup diff "${1:-2000000}"
"$gen" --large "$entries" "$dir/base.ntff"
"$gen" --jitter "$entries" "$dir/new.ntff"

best "$np" summary --json "$dir/base.ntff" "$dir/new.ntff"
sum_ns=$best
best "$np" diff --json "$dir/base.ntff" "$dir/new.ntff"
diff_ns=$best
rows=$("$np" diff --csv "$dir/base.ntff" "$dir/new.ntff" | tail -n +2 | wc -l)
awk -v e="$((2 * entries))" -v s="$sum_ns" -v d="$diff_ns" -v r="$rows" 'BEGIN {
	printf "entries: %d (two files)\n", e
	printf "summary --json of both: %.3f s (%.2f M entries/s)\n", s / 1e9, e / (s / 1e9) / 1e6
	printf "diff --json:            %.3f s (%.2f M entries/s), %d rows\n", d / 1e9, e / (d / 1e9) / 1e6, r
	printf "ratio diff/summary: %.2fx\n", s / d
}'
