#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The `make check` driver itself (scripts/check.sh), on made-up layers
# (CHECK_LAYER_TABLE) that take no time and touch nothing of the tree:
#   - the two lanes run at once: a host layer waits for a file a vm layer
#     writes, and the vm layer for one the host layer writes;
#   - the vm lane runs one layer at a time, in order: each vm layer finds
#     the one before it finished;
#   - each layer's output is whole under its "=== NAME" line, not mixed
#     with the other lane's;
#   - results are summed, a layer that exits non-zero after reporting no
#     failure or prints no result line counts as one failure, a missing one
#     as MISSING; the summary lists the layers in table order; the exit
#     status follows the failures;
#   - CHECK_JOBS=1 runs the layers one after the other in table order;
#     CHECK_LAYERS selects layers by glob.
# Ends with `N passed, N failed`.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../lib.sh
. "$repo/tests/lib.sh"

# Nothing of the make check this may run under: its log directory above all.
unset CHECK_LOGDIR CHECK_JOBS CHECK_LAYERS CHECK_LAYER_TABLE

work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-check-test.XXXXXX") || fatal "cannot create a work directory"
trap 'rm -rf "$work"' EXIT

# The made-up layers. A layer is `bash $work/layer.sh NAME ...`:
#   wait FILE     wait ($WAIT_TENTHS tenths of a second, default 100) for
#                 FILE, else fail
#   touch FILE    create FILE
#   after FILE    fail unless FILE exists (the layer before ended)
#   lines N       print N lines "NAME line I", a little apart
#   result LINE   print LINE last
#   exit N        exit with N
cat >"$work/layer.sh" <<'SH'
name=$1
shift
ok=1
while [ $# -gt 0 ]; do
	case $1 in
	wait) i=0; while [ ! -e "$2" ] && [ $i -lt "${WAIT_TENTHS:-100}" ]; do sleep 0.1; i=$((i + 1)); done
	      [ -e "$2" ] || { echo "$name: $2 never came"; ok=0; }; shift 2 ;;
	touch) : >"$2"; shift 2 ;;
	after) [ -e "$2" ] || { echo "$name: started before $2"; ok=0; }; shift 2 ;;
	lines) for i in $(seq 1 "$2"); do echo "$name line $i"; sleep 0.02; done; shift 2 ;;
	result) [ $ok -eq 1 ] && echo "$2"; shift 2 ;;
	exit) exit "$2" ;;
	esac
done
[ $ok -eq 1 ]
SH
w=$work
cat >"$work/table.sh" <<EOF
layer vm v/first bash $w/layer.sh v/first touch $w/v1-started wait $w/h1-started lines 20 touch $w/v1-done result "3 passed, 0 failed"
layer host h/first bash $w/layer.sh h/first touch $w/h1-started wait $w/v1-started lines 20 result "2 passed, 0 failed, 1 skipped"
layer vm v/second bash $w/layer.sh v/second after $w/v1-done lines 5 touch $w/v2-done result "v: 4 passed, 0 failed"
layer host h/failing bash $w/layer.sh h/failing lines 3 result "1 passed, 2 failed" exit 1
layer vm v/third bash $w/layer.sh v/third after $w/v2-done lines 3 result "5 passed, 0 failed" exit 3
layer host h/silent bash $w/layer.sh h/silent lines 2 exit 0
layer host h/missing not_present "made up"
EOF

CHECK_LAYER_TABLE=$work/table.sh CHECK_LAYERS='v/* h/*' CHECK_LOGDIR=$work/logs \
	bash "$repo/scripts/check.sh" >"$work/out" 2>&1
rc=$?
check "the driver exits non-zero after failures (exit $rc)" test "$rc" -ne 0
check "the two lanes ran at once and the vm lane one layer at a time, in order" \
	bash -c '! grep -E "never came|started before" "$1"' _ "$work/out"
# 15 passed (3+2+4+1+5), failures: 2 + v/third (exit 3 after no failure)
# + h/silent (no result line) + h/missing, 1 skipped.
check "the last line sums them: 15 passed, 5 failed, 1 skipped" \
	bash -c '[ "$(tail -n 1 "$1")" = "15 passed, 5 failed, 1 skipped" ]' _ "$work/out"
check "the summary lists the layers in table order" \
	bash -c '[ "$(sed -n "/^=== summary/,\$p" "$1" | awk "NR > 1 { print \$1 }" | head -n 7 | tr "\n" " ")" = "v/first h/first v/second h/failing v/third h/silent h/missing " ]' _ "$work/out"
check "a layer exiting non-zero after no failure, one with no result line and a missing one each count as one failure" \
	bash -c 'grep -q "^v/third .*5 passed, 1 failed, 0 skipped (crashed: exit 3 after reporting no failure)" "$1" &&
		grep -q "^h/silent .*0 passed, 1 failed, 0 skipped (crashed: exit 0, no result line)" "$1" &&
		grep -q "^h/missing .*MISSING (made up), counts as 1 failed" "$1"' _ "$work/out"
# Each layer's lines follow its "=== NAME" line, none of another layer's among them.
check "each layer's output is whole under its === line" \
	bash -c 'awk "/^=== / { cur = \$2; sub(/:\$/, \"\", cur); next }
		/ line [0-9]+\$/ { if (\$1 != cur) { print \"line of \" \$1 \" under \" cur; bad = 1 } }
		END { exit bad }" "$1"' _ "$work/out"
check "each layer's log is kept whole" \
	bash -c '[ "$(grep -c "line" "$1/h-first.log")" -eq 20 ] && [ "$(grep -c "line" "$1/v-first.log")" -eq 20 ]' _ "$work/logs"

# One lane: in table order, so v/first waits for h/first's start in vain.
rm -f "$work"/v1-* "$work"/h1-* "$work"/v2-*
WAIT_TENTHS=10 CHECK_JOBS=1 CHECK_LAYER_TABLE=$work/table.sh CHECK_LAYERS='v/first h/first' \
	bash "$repo/scripts/check.sh" >"$work/out1" 2>&1
check "CHECK_JOBS=1: one lane in table order (the second layer starts after the first ended)" \
	bash -c 'grep -q "v/first: $2/h1-started never came" "$1" &&
		[ "$(grep -o "^=== [vh]/[a-z]*" "$1" | tr "\n" " ")" = "=== v/first === h/first " ]' _ "$work/out1" "$work"
check "CHECK_LAYERS: only the selected layers run (no build)" \
	bash -c '! grep -q "=== build" "$1" && [ "$(grep -c "^=== [vh]/" "$1")" -eq 2 ]' _ "$work/out1"

finish
