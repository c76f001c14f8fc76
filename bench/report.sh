#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# `neuronprof report` against `neuronprof summary --json` on the same
# recording: a file of ENTRIES entries (default 2000000) with the
# simulator's mix (tools/tests/gen_fixtures --large: INFER_STATUS pairs,
# EVENT pairs and TRACE on 4 engines, DMA, THROTTLE), written into
# BENCH_DIR (default /var/tmp). Each command runs three times, whole
# processes (loading and validating the file included), output discarded;
# the best time of each counts. Printed: both times, entries per second,
# the page's size, and last the speed ratio of report to summary
# ("ratio report/summary: 0.NNx"; the goal is at least 0.5x).
#
# Usage: bench/report.sh [ENTRIES]
# Environment: BENCH_DIR, TOOL_BUILD (default tools/build; neuronprof and
# tests/gen_fixtures are built there when missing).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tool_bench.sh"
tool_bench_setup report "${1:-2000000}"
"$gen" --large "$entries" "$dir/large.ntff"

best "$np" summary --json "$dir/large.ntff"
sum_ns=$best
best "$np" report -o "$dir/report.html" "$dir/large.ntff"
rep_ns=$best
size=$(stat -c %s "$dir/report.html")
awk -v e="$entries" -v s="$sum_ns" -v r="$rep_ns" -v z="$size" 'BEGIN {
	printf "entries: %d\n", e
	printf "summary --json: %.3f s (%.2f M entries/s)\n", s / 1e9, e / (s / 1e9) / 1e6
	printf "report:         %.3f s (%.2f M entries/s), page %.1f KiB\n", r / 1e9, e / (r / 1e9) / 1e6, z / 1024
	printf "ratio report/summary: %.2fx\n", s / r
}'
