# SPDX-License-Identifier: MIT
#
# Shell helpers of the tool's tests, sourced (not run):
#   tests/run.sh                 pick_python, raw_reads_as_made (t/raw.sh,
#                                raw_record.sh)
#   tests/vm.sh, vm_model.sh,    vm_setup (their arguments and variables),
#   vm_top.sh, vm_exporter.sh,   guest_prelude (the start of a guest script),
#   vm_capture.sh, vm_limits.sh  vm_run (the VM boot), bad (a failure),
#                                exited_0 (guest commands' statuses)

# pick_python: sets py to a python3 with the protobuf module Debian installs
# for the system interpreter (python3-protobuf): the python3 first in PATH
# may lack it.
pick_python() {
	local cand
	py=
	for cand in python3 /usr/bin/python3; do
		if command -v "$cand" >/dev/null && "$cand" -c 'import google.protobuf' 2>/dev/null; then
			py=$cand
			return
		fi
	done
	py=python3
}

# raw_reads_as_made FIXTURE: each rig recording of fixtures/FIXTURE
# (scenarios index64, byte32, counter128) reads as it did when it was made:
# what raw_record.py prints of it (dump, dump --json, summary --json,
# export json, sqlite raw_entries) is its .expected. Uses $np, $py, $here,
# $tmp of tests/run.sh.
raw_reads_as_made() {
	local f d=$here/fixtures/$1

	for f in index64 byte32 counter128; do
		(cd "$d" && "$py" "$here/raw_record.py" "$np" "$f.ntff") >"$tmp/$1-$f.txt" || return 1
		diff -u "$d/$f.expected" "$tmp/$1-$f.txt" | head -n 20
		cmp -s "$d/$f.expected" "$tmp/$1-$f.txt" || { echo "$f.ntff reads differently"; return 1; }
	done
}

# vm_setup "$@": the arguments of a VM test, BUILD_DIR WORK_DIR. Sets here
# (tools/tests), repo, build, np (the tool under test), work (created),
# out (where vm_run brings the guest's /out), py (pick_python) and
# failed=0.
vm_setup() {
	if [ $# -ne 2 ]; then
		echo "usage: $(basename "$0") BUILD_DIR WORK_DIR" >&2
		exit 2
	fi
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	repo=$(cd "$here/../.." && pwd)
	build=$(cd "$1" && pwd) || exit 2
	work=$2
	np=$build/neuronprof
	mkdir -p "$work" || exit 1
	out=$work/out
	pick_python
	failed=0
}

# bad WHAT: one failure of a VM test; it exits with $failed at its end.
bad() {
	echo "FAIL: $*"
	failed=1
}

# exited_0 NAME...: each guest command's status ($out/NAME.rc) is 0; a
# failure (bad) names it and shows its $out/NAME.err.
exited_0() {
	local t rc
	for t; do
		rc=$(cat "$out/$t.rc" 2>/dev/null)
		[ "$rc" = 0 ] || bad "record ($t) exited with '$rc': $(cat "$out/$t.err" 2>/dev/null)"
	done
}

# guest_prelude [MODPROBE_ARGS]: the start of a guest script, for busybox
# sh: np names the tool, the simulator is loaded (with MODPROBE_ARGS;
# a failure goes to /out/errors, which vm_run reports), and wait_for is
# defined:
#   wait_for TEST FILE TENTHS PID   until [ TEST FILE ] holds, TENTHS tenths
#                                   of a second have passed or PID has exited
guest_prelude() {
	cat <<EOF
np=/tool/neuronprof
cd /tmp
modprobe neuronprof_sim${1:+ $1} || echo "modprobe failed: \$?" >/out/errors
wait_for() {
	n=0
	while [ ! "\$1" "\$2" ] && [ \$n -lt "\$3" ] && kill -0 "\$4" 2>/dev/null; do
		sleep 0.1
		n=\$((n + 1))
	done
}
EOF
}

# vm_run [HOST:GUEST...]: boots the VM (scripts/vm-run.sh) with the tool
# as /tool/neuronprof, $work/guest.sh as /tool/guest.sh and each file
# given, runs the guest script and brings its /out back into $out (emptied
# first). A VM run that fails ends the test (exit 1) with its log's tail;
# what the guest wrote to /out/errors is a failure (bad).
vm_run() {
	local files=(--file "$np:/tool/neuronprof" --file "$work/guest.sh:/tool/guest.sh") f rc
	for f; do
		files+=(--file "$f")
	done
	rm -rf "$out"
	mkdir -p "$out"
	bash "$repo/scripts/vm-run.sh" --timeout "${VM_TIMEOUT:-300}" --outdir "$out" \
		"${files[@]}" -- sh /tool/guest.sh >"$work/vm-run.log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "vm-run exited with $rc:"
		tail -n 40 "$work/vm-run.log"
		exit 1
	fi
	if [ -s "$out/errors" ]; then
		bad "guest: $(cat "$out/errors")"
	fi
}
