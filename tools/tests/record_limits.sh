#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# record's output limits and rotation on the host, run by tests/run.sh:
#   tests/record_limits.sh BUILD_DIR WORK_DIR
# What reaches a recorded command (`record ... -- env` prints it):
# --max-size as NEURON_RT_INSPECT_CAPTURE_MAX_SIZE in bytes, which the
# library's parser accepts; --switch-output a control page and SESSION mode
# (a SIZE in the page's switch_size);
# and the refusals of the grammar (perf's: signal, SIZE with B/K/M/G, TIME
# with s/m/h/d) and of the combinations. The captures themselves, on the
# simulator, are tests/vm_limits.sh's. Prints what failed and exits 1, or
# exits 0.
set -uo pipefail

np=$(cd "${1:?usage: record_limits.sh BUILD_DIR WORK_DIR}" && pwd)/neuronprof
work=${2:?usage: record_limits.sh BUILD_DIR WORK_DIR}
mkdir -p "$work" || exit 1
failed=0

bad() {
	echo "FAIL: $*"
	failed=1
}

# want_env ARGS... -- PATTERN...: `record ARGS -- env` exits 0 and prints every PATTERN.
want_env() {
	local args=() p
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	"$np" record -o "$work/rec" "${args[@]}" -- env >"$work/env" 2>"$work/err" ||
		{ bad "record ${args[*]} -- env: exit $?: $(cat "$work/err")"; return; }
	for p; do
		grep -Eq -- "$p" "$work/env" || bad "record ${args[*]} -- env: no /$p/ in its environment"
	done
}

# refused PATTERN ARGS...: `record ARGS` exits 2 saying PATTERN.
refused() {
	local pat=$1 rc
	shift
	"$np" record -o "$work/rec" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc = 2 ] || bad "record $*: exit $rc, expected 2: $(cat "$work/err")"
	grep -Eq -- "$pat" "$work/err" || bad "record $*: stderr does not say /$pat/: $(cat "$work/err")"
}

want_env --max-size 50M -- '^NEURON_RT_INSPECT_CAPTURE_MAX_SIZE=52428800$'
want_env --max-size 3G -- '^NEURON_RT_INSPECT_CAPTURE_MAX_SIZE=3221225472$'
grep -q NEURONPROF_CONTROL_FD "$work/env" && bad "--max-size alone creates a control page"
# The library's parser takes what record passes (record checks with it first).
want_env --switch-output=100M -- '^NEURON_RT_INSPECT_DEVICE_PROFILE=session$' '^NEURONPROF_CONTROL_FD=[0-9]+$'
want_env --switch-output=30s --switch-max-files 3 -- '^NEURONPROF_CONTROL_FD=[0-9]+$'
want_env --switch-output=signal --mode session -- '^NEURON_RT_INSPECT_DEVICE_PROFILE=session$'
grep -q "switch-output: 0 switches" "$work/err" || bad "no rotation report: $(cat "$work/err")"
# A SIZE goes into the control page (its 4th word, switch_size) for the library
# to switch by itself; a TIME leaves it 0 (record bumps switch_seq).
page_words() {
	"$np" record -o "$work/rec" "$@" -- sh -c 'od -An -tu8 -v /proc/self/fd/$NEURONPROF_CONTROL_FD' \
		2>"$work/err" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'
}
w=$(page_words --switch-output=3M)
[ "$(cut -d' ' -f4 <<<"$w")" = 3145728 ] || bad "--switch-output=3M: control page words '$w', switch_size not 3145728"
w=$(page_words --switch-output=30s)
[ "$(cut -d' ' -f4 <<<"$w")" = 0 ] || bad "--switch-output=30s: control page words '$w', switch_size not 0"

refused "--switch-output 100: expected signal, a size with a B, K, M or G suffix" --switch-output=100 -- true
refused "--switch-output 512K: a size of at least 1M" --switch-output=512K -- true
refused "--switch-output 5x: expected signal" --switch-output=5x -- true
refused "--switch-output starts new files of SESSION captures: not with --mode model" \
	--switch-output=1m --mode model -- true
refused "--switch-max-files keeps the newest of the files --switch-output starts" \
	--switch-max-files 2 -- true
refused "--switch-output applies to a command" --switch-output=10s
refused "--max-size: 512K is out of range" --max-size 512K -- true

exit $failed
