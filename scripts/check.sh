#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: build everything, then run every test layer in order and
# sum their results.
#
#   build   make modules, lib, tools (a failure counts as one failed test;
#           a successful build counts nothing)
#   host    the uapi layout test (scripts/uapi-layout/run.sh), the kernel
#           lint (scripts/lint-kernel.sh: checkpatch --strict, W=1 -Werror), the
#           vendor hook (scripts/vendor-hook-test.sh: the vendor tree with and
#           without driver/neuron/vendor/ builds and loads in the VM), and
#           `make -C DIR check` for lib/, compat/, tools/ and python/ where their
#           Makefile has a check target (python/: neuronprof-analyze on a Dask
#           LocalCluster against summary, about 35 s), and tests/kselftest/run.sh
#           (the kselftest conventions of selftests/: install, run_tests, the
#           runner)
#   kunit   scripts/kunit.sh: the driver's KUnit suites in UML
#   vm      scripts/vm-selftests.sh: the kselftests in a QEMU VM, then each
#           lib/vmtests*/run.sh (library end to end in the VM, checked on
#           the host)
#   install tests/install/run.sh: make install into a staging root
#   packages tests/packages/run.sh: make deb and make rpm, lintian, the
#           .debs unpacked and used, the DKMS sources built, the RPMs'
#           file lists against the .debs'
#   demo    tests/demo/run.sh: `make demo` in its short form (DEMO_SHORT=1),
#           its files, summaries and exports checked
#
# Every layer ends its output with `N passed, N failed[, N skipped]`. A
# layer whose inputs are missing is reported as MISSING and counts as one
# failure. A layer that exits non-zero without reporting a failure,
# or prints no result line, counts as one failure ("crashed"). The last line
# is the sum; the exit status is non-zero if anything failed.
#
# Environment: NPROF_JOBS (make -j, default 2), CHECK_LOGDIR (where each
# layer's log is kept, default a temporary directory removed at exit).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cd "$repo" || exit 1
MAKE=${MAKE:-make}
export MAKE
jobs=${NPROF_JOBS:-2}

if [ -n "${CHECK_LOGDIR:-}" ]; then
	logdir=$CHECK_LOGDIR
	mkdir -p "$logdir" || exit 1
else
	logdir=$(mktemp -d "${TMPDIR:-/tmp}/nprof-check.XXXXXX") || exit 1
	trap 'rm -rf "$logdir"' EXIT
fi

total_pass=0
total_fail=0
total_skip=0
summary=()

# record NAME RESULT SECONDS: one summary row.
record() {
	summary+=("$(printf '%-14s %-48s %5ss' "$1" "$2" "$3")")
}

# run_layer NAME CMD...: run a command that ends with a result line.
run_layer() {
	local name=$1 log=$logdir/${1//\//-}.log start rc line p f s note=
	shift
	echo
	echo "=== $name: $*"
	start=$SECONDS
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		p=0 f=1 s=0
		note="crashed: exit $rc, no result line"
	else
		line=${line#*: }
		p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
		s=0
		[[ $line == *skipped ]] && s=$(sed -E 's/.* ([0-9]+) skipped$/\1/' <<<"$line")
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1
			note="crashed: exit $rc after reporting no failure"
		fi
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
	record "$name" "$p passed, $f failed, $s skipped${note:+ ($note)}" $((SECONDS - start))
}

# not_present NAME WHY: every layer exists in this tree, so one that went
# missing is a failure, not a silent gap.
not_present() {
	echo
	echo "=== $1: MISSING ($2)"
	total_fail=$((total_fail + 1))
	record "$1" "MISSING ($2), counts as 1 failed" 0
}

# has_check DIR: DIR/Makefile defines a check target.
has_check() {
	[ -f "$1/Makefile" ] && grep -Eq '^check[[:space:]]*:' "$1/Makefile"
}

# Build: a part that does not build fails the run even if no test covers it.
for part in modules lib tools; do
	echo
	echo "=== build: make $part"
	start=$SECONDS
	if "$MAKE" -j"$jobs" --no-print-directory "$part" 2>&1 | tee "$logdir/build-$part.log"; [ "${PIPESTATUS[0]}" -eq 0 ]; then
		if grep -qx "$part: not present" "$logdir/build-$part.log"; then
			total_fail=$((total_fail + 1))
			record "build/$part" "MISSING, counts as 1 failed" $((SECONDS - start))
		else
			record "build/$part" "built" $((SECONDS - start))
		fi
	else
		total_fail=$((total_fail + 1))
		record "build/$part" "FAILED (counts as 1 failed)" $((SECONDS - start))
	fi
done

# Host layer.
run_layer host/uapi bash "$here/uapi-layout/run.sh"
run_layer host/kernel-lint bash "$here/lint-kernel.sh"
# One name, one definition across kernel, library, selftests and tools.
run_layer host/names python3 tests/names/check-names.py
# The vendor hook: the patched and unpatched vendor trees build (W=1, no new
# warning) and load in the VM next to the provider (skipped without a tree).
run_layer host/vendor-hook bash "$here/vendor-hook-test.sh"
for d in lib compat tools python; do
	if has_check "$d"; then
		run_layer "host/$d" "$MAKE" -j"$jobs" --no-print-directory -C "$d" check
	else
		not_present "host/$d" "no check target in $d/Makefile"
	fi
done

if [ -f tests/kselftest/run.sh ]; then
	run_layer host/kselftest bash tests/kselftest/run.sh
else
	not_present host/kselftest "no tests/kselftest/run.sh"
fi

# KUnit layer.
if [ -f driver/tests/.kunitconfig ]; then
	run_layer kunit bash "$here/kunit.sh"
else
	not_present kunit "no driver/tests/.kunitconfig"
fi

# VM layer: the uapi kselftests, then end-to-end library runs whose NTFF
# files the host reads back.
if [ -f selftests/Makefile ]; then
	run_layer vm bash "$here/vm-selftests.sh"
else
	not_present vm "no selftests/Makefile"
fi
# The hardware layer: the vendor's own neuron.ko, hooked, on an emulated
# trn1 PCI function (skipped without a vendor tree).
run_layer vm/neuron-rig bash tests/neuron-rig/run.sh
for t in lib/vmtests*/run.sh; do
	[ -f "$t" ] || continue
	run_layer "vm/$(basename "$(dirname "$t")")" env NPROF_KO_DIR="$repo/driver" bash "$t"
done

# Install layer: make install into a staging root, then uninstall.
if [ -f tests/install/run.sh ]; then
	run_layer install bash tests/install/run.sh
else
	not_present install "no tests/install/run.sh"
fi

# Package layer: make deb and make rpm into a temporary directory, checked.
if [ -f tests/packages/run.sh ]; then
	run_layer packages bash tests/packages/run.sh
else
	not_present packages "no tests/packages/run.sh"
fi

# Demo layer: the README's main command, short, into a temporary directory.
if [ -f tests/demo/run.sh ]; then
	run_layer demo bash tests/demo/run.sh
else
	not_present demo "no tests/demo/run.sh"
fi

echo
echo "=== summary"
for row in "${summary[@]}"; do
	echo "$row"
done
if [ "$total_skip" -gt 0 ]; then
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
else
	echo "$total_pass passed, $total_fail failed"
fi
[ "$total_fail" -eq 0 ]
