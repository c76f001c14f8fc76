# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the tool's whole-process benchmarks (report.sh, diff.sh):
# tool_bench_setup NAME ENTRIES checks ENTRIES, builds neuronprof and
# tests/gen_fixtures in TOOL_BUILD (default tools/build) when missing, and
# sets $np, $gen and $dir (a scratch directory in BENCH_DIR, default
# /var/tmp, removed at exit); best CMD... puts the shortest of three runs of
# CMD, in nanoseconds, output discarded, into $best.

tool_bench_setup() {
	local name=$1 repo
	entries=$2
	case $entries in '' | *[!0-9]*) echo "$name.sh: '$entries' is not a number" >&2; exit 2 ;; esac
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	build=${TOOL_BUILD:-$repo/tools/build}
	np=$build/neuronprof
	gen=$build/tests/gen_fixtures
	if [ ! -x "$np" ] || [ ! -x "$gen" ]; then
		make -C "$repo/tools" --no-print-directory O="$build" "$np" "$gen" >/dev/null
	fi
	dir=$(mktemp -d "${BENCH_DIR:-/var/tmp}/nprof-bench-$name.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
}

best() {
	local t0 t1 i
	best=
	for i in 1 2 3; do
		t0=$(date +%s%N)
		"$@" >/dev/null
		t1=$(date +%s%N)
		if [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ]; then
			best=$((t1 - t0))
		fi
	done
}
