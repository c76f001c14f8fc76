#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: build everything, then run every test layer (in two lanes,
# see below) and sum their results.
#
#   build   make modules, lib, tools and the tool's gen_fixtures and gen_diff
#           (a failure counts as one failed test;
#           a successful build counts nothing)
#   host    the uapi layout test (scripts/uapi-layout/run.sh), this driver
#           on made-up layers (tests/check/run.sh), the kernel
#           lint (scripts/lint-kernel.sh: checkpatch --strict, W=1 -Werror), the
#           vendor hook (scripts/vendor-hook-test.sh: the vendor tree with and
#           without driver/neuron/vendor/ builds and loads in the VM), and
#           `make -C DIR check` for lib/, compat/, tools/ and python/ where their
#           Makefile has a check target (tools/: `make -C tools check-host`
#           here, all but its VM tests, and `make -C tools check-vm`, those,
#           as the layer vm/tools; python/: neuronprof-analyze on a Dask
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
# Two lanes run at once after the build, each its layers in order:
#   vm    every layer that boots QEMU (one VM at a time), and those that
#         build in a directory a VM layer also builds in: host/vendor-hook,
#         vm/tools (the tool's VM tests), host/kselftest (selftests/, as vm
#         does), vm, vm/neuron-rig (tools/build), lib/vmtests*, demo
#   host  the rest: host/uapi, host/check (this driver on made-up layers),
#         host/kernel-lint (a scratch copy), host/names, host/circles (reads
#         the objects in lib/build and tools/build),
#         host/lib, host/compat, host/tools (the tool's other tests, and
#         its sanitizer build in tools/build/san), host/python (reads
#         tools/build), kunit (its
#         own cache and flock), install, packages (a copy of the tree)
# No two layers of different lanes share a temporary directory (each makes
# its own with mktemp), a build output they write (the build step makes
# everything both lanes' makes need, the tool's gen_fixtures and gen_diff
# included, so those makes find it up to date), or a fixed port (the
# exporter and Prometheus tests ask the kernel for free ports, Dask binds
# port 0). Each
# layer's output goes whole to its log and, when it ends, whole to stdout
# under "=== NAME: CMD"; the summary lists the layers in the order below.
#
# Environment: NPROF_JOBS (make -j, default 2), CHECK_LOGDIR (where each
# layer's log is kept, default a temporary directory removed at exit),
# CHECK_JOBS (lanes at once: 2, the default, or 1 for one lane in the
# order below), CHECK_LAYERS (space-separated glob patterns: only the
# layers whose names match run, and the build only if "build" matches),
# CHECK_LAYER_TABLE (a file defining the layers in place of the list below,
# with the same `layer LANE NAME CMD...` lines: for testing this driver).
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
rm -f "$logdir"/*.counts "$logdir"/*.row

total_pass=0
total_fail=0
total_skip=0
lanes=${CHECK_JOBS:-2}
case $lanes in 1|2) ;; *) echo "check: CHECK_JOBS must be 1 or 2" >&2; exit 2 ;; esac
t0=$SECONDS

# selected NAME: NAME matches CHECK_LAYERS (every name when it is unset).
selected() {
	local pat
	[ -z "${CHECK_LAYERS:-}" ] && return 0
	for pat in $CHECK_LAYERS; do
		# shellcheck disable=SC2053
		[[ $1 == $pat ]] && return 0
	done
	return 1
}

# record NAME RESULT SECONDS: one summary row, kept in NAME's result file.
record() {
	printf '%-14s %-48s %5ss\n' "$1" "$2" "$3" >"$logdir/${1//\//-}.row"
}

# add P F S: add to the totals.
add() {
	total_pass=$((total_pass + $1))
	total_fail=$((total_fail + $2))
	total_skip=$((total_skip + $3))
}

# show NAME CMD...: NAME's log, whole, on stdout, not interleaved with
# another lane's.
show() {
	local name=$1
	shift
	{
		flock 9
		echo
		echo "=== $name: $*"
		cat "$logdir/${name//\//-}.log"
	} 9>>"$logdir/.stdout.lock"
}

# run_layer NAME CMD...: run a command that ends with a result line; its
# counts go to NAME's .counts file, its row to its .row file.
run_layer() {
	local name=$1 base=$logdir/${1//\//-} start rc line p f s note=
	shift
	start=$SECONDS
	"$@" >"$base.log" 2>&1 </dev/null
	rc=$?
	show "$name" "$@"
	line=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$base.log" | tail -n 1)
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
	echo "$p $f $s" >"$base.counts"
	record "$name" "$p passed, $f failed, $s skipped${note:+ ($note)}" $((SECONDS - start))
}

# not_present NAME WHY: every layer exists in this tree, so one that went
# missing is a failure, not a silent gap.
not_present() {
	local name=$1 base=$logdir/${1//\//-}
	echo "MISSING ($2)" >"$base.log"
	show "$name" "MISSING"
	echo "0 1 0" >"$base.counts"
	record "$name" "MISSING ($2), counts as 1 failed" 0
}

# has_check DIR: DIR/Makefile defines a check target.
has_check() {
	[ -f "$1/Makefile" ] && grep -Eq '^check[[:space:]]*:' "$1/Makefile"
}

# The layers, in summary order: layer LANE NAME CMD... (CMD "not_present
# WHY" for a layer whose inputs are missing).
order=()
lane_vm=()
lane_host=()
layer() {
	local lane=$1 name=$2
	shift 2
	selected "$name" || return 0
	order+=("$name")
	printf -v "cmd_${#order[@]}" '%q ' "$@"
	case $lane in
	vm) lane_vm+=(${#order[@]}) ;;
	host) lane_host+=(${#order[@]}) ;;
	*) echo "check: layer $name: unknown lane $lane" >&2; exit 2 ;;
	esac
}

define_layers() {
	local d t
	layer host host/uapi bash "$here/uapi-layout/run.sh"
	# This driver on made-up layers: the lanes, the order, the sums.
	layer host host/check bash tests/check/run.sh
	layer host host/kernel-lint bash "$here/lint-kernel.sh"
	# One name, one definition across kernel, library, selftests and tools.
	layer host host/names python3 tests/names/check-names.py
	# No circle of uses between the files of lib/src or of the tool
	# (scripts/check-circles.py on the objects the build made), shown to
	# catch planted ones.
	layer host host/circles bash tests/circles/run.sh
	# The vendor hook: the patched and unpatched vendor trees build (W=1,
	# no new warning) and load in the VM next to the provider (skipped
	# without a tree).
	layer vm host/vendor-hook bash "$here/vendor-hook-test.sh"
	for d in lib compat tools python; do
		if ! has_check "$d"; then
			layer host "host/$d" not_present "no check target in $d/Makefile"
		elif [ "$d" = tools ]; then
			# tools: its end-to-end tests boot the VM; the rest runs
			# in the host lane.
			layer host host/tools "$MAKE" -j"$jobs" --no-print-directory -C tools check-host
			layer vm vm/tools "$MAKE" -j"$jobs" --no-print-directory -C tools check-vm
		else
			layer host "host/$d" "$MAKE" -j"$jobs" --no-print-directory -C "$d" check
		fi
	done
	if [ -f tests/kselftest/run.sh ]; then
		layer vm host/kselftest bash tests/kselftest/run.sh
	else
		layer vm host/kselftest not_present "no tests/kselftest/run.sh"
	fi
	if [ -f driver/tests/.kunitconfig ]; then
		layer host kunit bash "$here/kunit.sh"
	else
		layer host kunit not_present "no driver/tests/.kunitconfig"
	fi
	# VM layer: the uapi kselftests, then end-to-end library runs whose
	# NTFF files the host reads back.
	if [ -f selftests/Makefile ]; then
		layer vm vm bash "$here/vm-selftests.sh"
	else
		layer vm vm not_present "no selftests/Makefile"
	fi
	# The hardware layer: the vendor's own neuron.ko, hooked, on an
	# emulated trn1 PCI function (skipped without a vendor tree).
	layer vm vm/neuron-rig bash tests/neuron-rig/run.sh
	for t in lib/vmtests*/run.sh; do
		[ -f "$t" ] || continue
		layer vm "vm/$(basename "$(dirname "$t")")" env NPROF_KO_DIR="$repo/driver" bash "$t"
	done
	# Install layer: make install into a staging root, then uninstall.
	if [ -f tests/install/run.sh ]; then
		layer host install bash tests/install/run.sh
	else
		layer host install not_present "no tests/install/run.sh"
	fi
	# Package layer: make deb and make rpm into a temporary directory, checked.
	if [ -f tests/packages/run.sh ]; then
		layer host packages bash tests/packages/run.sh
	else
		layer host packages not_present "no tests/packages/run.sh"
	fi
	# Demo layer: the README's main command, short, into a temporary directory.
	if [ -f tests/demo/run.sh ]; then
		layer vm demo bash tests/demo/run.sh
	else
		layer vm demo not_present "no tests/demo/run.sh"
	fi
}

# run_lane INDEX...: the layers of one lane, in order.
run_lane() {
	local i name cmd
	for i in "$@"; do
		name=${order[i - 1]}
		cmd=cmd_$i
		eval "set -- ${!cmd}"
		if [ "$1" = not_present ]; then
			not_present "$name" "$2"
		else
			run_layer "$name" "$@"
		fi
	done
}

# Build: a part that does not build fails the run even if no test covers it.
if selected build; then
	for part in modules lib tools; do
		echo
		echo "=== build: make $part"
		start=$SECONDS
		if "$MAKE" -j"$jobs" --no-print-directory "$part" 2>&1 | tee "$logdir/build-$part.log"; [ "${PIPESTATUS[0]}" -eq 0 ]; then
			if grep -qx "$part: not present" "$logdir/build-$part.log"; then
				add 0 1 0
				record "build/$part" "MISSING, counts as 1 failed" $((SECONDS - start))
			else
				record "build/$part" "built" $((SECONDS - start))
			fi
		else
			add 0 1 0
			record "build/$part" "FAILED (counts as 1 failed)" $((SECONDS - start))
		fi
	done
fi

# The tool's test programs that layers of both lanes build (host/tools and
# host/python in the host lane, vm/tools in the vm lane): built here, before
# the lanes start, so that no two makes write the same file at once.
if selected build; then
	echo
	echo "=== build: make -C tools check-programs"
	start=$SECONDS
	if "$MAKE" -j"$jobs" --no-print-directory -C tools check-programs \
		2>&1 | tee "$logdir/build-fixtures.log"; [ "${PIPESTATUS[0]}" -eq 0 ]; then
		record "build/fixtures" "built" $((SECONDS - start))
	else
		add 0 1 0
		record "build/fixtures" "FAILED (counts as 1 failed)" $((SECONDS - start))
	fi
fi

if [ -n "${CHECK_LAYER_TABLE:-}" ]; then
	# shellcheck source=/dev/null
	. "$CHECK_LAYER_TABLE" || exit 2
else
	define_layers
fi

echo
if [ "$lanes" -eq 1 ]; then
	echo "=== layers: one lane"
	run_lane $(seq 1 ${#order[@]})
else
	echo "=== layers: two lanes, vm: ${#lane_vm[@]} layers, host: ${#lane_host[@]} layers"
	run_lane "${lane_vm[@]}" &
	vm_pid=$!
	run_lane "${lane_host[@]}" &
	host_pid=$!
	trap 'kill "$vm_pid" "$host_pid" 2>/dev/null; exit 130' INT TERM
	wait "$vm_pid"
	wait "$host_pid"
fi

echo
echo "=== summary ($((SECONDS - t0)) s, wall clock)"
for part in modules lib tools fixtures; do
	[ -f "$logdir/build-$part.row" ] && cat "$logdir/build-$part.row"
done
for name in "${order[@]}"; do
	base=$logdir/${name//\//-}
	if [ -f "$base.counts" ] && [ -f "$base.row" ]; then
		read -r p f s <"$base.counts"
		add "$p" "$f" "$s"
		cat "$base.row"
	else
		add 0 1 0
		printf '%-14s %-48s %5ss\n' "$name" "did not run (its lane stopped), counts as 1 failed" 0
	fi
done
if [ "$total_skip" -gt 0 ]; then
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
else
	echo "$total_pass passed, $total_fail failed"
fi
[ "$total_fail" -eq 0 ]
