#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What the provider's head-write path costs natively: the KUnit suite
# neuronprof_neuron_bench (driver/tests/neuronprof_neuron_bench.c) in a UML
# kernel built with its own kunitconfig (driver/tests/bench/.kunitconfig:
# no KASAN, no lockdep) in a build directory of its own, so it never
# rebuilds the test suites' cache. UML runs the provider's code on this
# CPU; the baseline is UML's memcpy() (memcpy_orig: UML applies no
# alternatives, so not the ERMS rep movsb of a kernel on an instance).
# Prints the interrupts-off span figures, what each piece of a head write
# costs timed alone, a table of head writes of 1, 8, 64 and 512 entries
# against memcpy, then the per-run figures of 64 entries of 64 bytes, the
# floor (the capture time's clock read and the memcpy at the ring's layout,
# nothing else), and last the median of 5 paired runs of head write /
# memcpy (the goal's figure). Information for a
# person, not a pass/fail check (no timed assertion): it fails only when
# the suite cannot run or a head write lost entries.
#
# Environment: NPROF_CACHE (scripts/kunit.sh), NPROF_BENCH_BUILD_DIR (default
# $NPROF_CACHE/kunit-bench-build).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
NPROF_CACHE=${NPROF_CACHE:-/var/cache/neuronprof}
build=${NPROF_BENCH_BUILD_DIR:-$NPROF_CACHE/kunit-bench-build}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

bash "$here/../scripts/kunit.sh" \
	--kunitconfig drivers/gpu/drm/neuronprof/driver/tests/bench \
	--build-dir "$build" -- 'neuronprof_neuron_bench' >"$out" 2>&1
rc=$?
lines=$(grep -ho 'neuron_head_write_native: .*' "$build/test.log" 2>/dev/null)
if [ "$rc" -ne 0 ] || [ -z "$lines" ]; then
	tail -n 30 "$out" >&2
	echo "neuron_head_write_native: the benchmark suite did not run (exit $rc; see above)" >&2
	exit 1
fi
echo "$lines"
