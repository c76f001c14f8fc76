#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Each command's synopsis is made from its option table (util/options.c),
# run by tests/run.sh:
#   tests/synopsis.sh BUILD_DIR
# For every command, every option its --help lists is named in its usage
# lines (record's in one of its two forms), and nothing in the usage lines is an option the list
# does not have; the usage lines fit in 80 columns unless one option alone
# does not. Prints what failed and exits 1, or exits 0.
set -uo pipefail

build=$(cd "${1:?usage: synopsis.sh BUILD_DIR}" && pwd)
np=$build/neuronprof
failed=0

for c in devices doctor calibrate record dump summary diff report export top exporter sim; do
	h=$("$np" "$c" --help) || { echo "FAIL: $c --help: exit status $?"; failed=1; continue; }
	usage=$(sed -n '/^Usage:/,/^$/p' <<<"$h")
	listed=$(sed '1,/^$/d' <<<"$h" | grep -E '^ +(-[a-z], )?--[a-z]' | grep -oE -- '--[a-z][a-z-]*' |
		 grep -vx -- '--help' | sort -u)
	named=$(grep -oE -- '--[a-z][a-z-]*' <<<"$usage" | sort -u)
	for o in $listed; do
		# An option with a letter may be named by it ("[-o FILE]").
		s=$(sed '1,/^$/d' <<<"$h" | grep -E -- "^ +-[a-z], $o( |=|$)" | grep -oE -- '^ +-[a-z]' | tr -d ' ')
		grep -qx -- "$o" <<<"$named" || { [ -n "$s" ] && grep -qE -- "\\[$s( |\\])" <<<"$usage"; } ||
			{ echo "FAIL: $c: $o is in the options, not in the synopsis"; failed=1; }
	done
	for o in $named; do
		grep -qx -- "$o" <<<"$listed" || { echo "FAIL: $c: $o is in the synopsis, not in the options"; failed=1; }
	done
	while IFS= read -r l; do
		[ ${#l} -le 80 ] && continue
		# Too long only if it holds more than one option.
		[ "$(grep -o '\[' <<<"$l" | wc -l)" -le 1 ] && continue
		echo "FAIL: $c: usage line of ${#l} columns: $l"
		failed=1
	done <<<"$usage"
done
exit $failed
