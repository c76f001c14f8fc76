#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run.sh RESULTS LABEL PROGRAM...: run each test program, echo its output,
# and append "LABEL/program passed failed skipped" to RESULTS. A program that
# crashes, hangs past TEST_TIMEOUT seconds (default 300) or exits non-zero
# without a summary counts as one failure.
set -u
results=$1 label=$2
shift 2
limit=${TEST_TIMEOUT:-300}
# Output goes through a file, not a pipe: a process the test forked and
# left behind would hold a pipe open and stall this script past the timeout.
outfile=$(mktemp "${TMPDIR:-/tmp}/nprof-test.XXXXXX") || exit 1
trap 'rm -f "$outfile"' EXIT
for prog in "$@"; do
	name=$(basename "$prog")
	timeout --kill-after=10 "$limit" "$prog" > "$outfile" 2>&1
	rc=$?
	out=$(cat "$outfile")
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		out="$out
timed out after ${limit}s"
	fi
	printf '%s\n' "$out" | sed "s|^|[$label/$name] |"
	summary=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$summary" ]; then
		echo "[$label/$name] no summary line, exit status $rc"
		echo "$label/$name 0 1 0" >> "$results"
		continue
	fi
	p=$(echo "$summary" | sed -E 's/^([0-9]+) passed.*/\1/')
	f=$(echo "$summary" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
	s=$(echo "$summary" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
	[ -n "$s" ] || s=0
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "[$label/$name] exit status $rc despite no failed case"
		f=1
	fi
	echo "$label/$name $p $f $s" >> "$results"
done
exit 0
