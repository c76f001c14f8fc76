# SPDX-License-Identifier: GPL-2.0
#
# What the shell test layers under tests/ share, sourced after `set -uo
# pipefail` with $repo set: TAP-style result lines, their counts, and the
# final `N passed, N failed[, N skipped]` line.
#
#   ok NAME / not_ok NAME / skipped NAME WHY     one result line
#   check NAME CMD...   a test that passes when CMD succeeds; CMD's output is
#                       shown only on failure, its first $CHECK_SHOW_LINES
#                       lines (all when unset)
#   finish              the result line; exits non-zero after a failure
#   fatal WHY           one more failure, then finish
#   library_version     the library's version from its header; fails without one

export LC_ALL=C

pass=0
fail=0
skip=0

ok() {
	pass=$((pass + 1))
	echo "ok - $*"
}

not_ok() {
	fail=$((fail + 1))
	echo "not ok - $*"
}

skipped() {
	skip=$((skip + 1))
	echo "ok - $1 # SKIP $2"
}

check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		not_ok "$name"
		[ -z "$out" ] || printf '%s\n' "$out" | head -n "${CHECK_SHOW_LINES:--0}" | sed 's/^/#   /'
	fi
}

finish() {
	if [ "$skip" -gt 0 ]; then
		echo "$pass passed, $fail failed, $skip skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	[ "$fail" -eq 0 ]
	exit
}

fatal() {
	not_ok "$*"
	finish
}

library_version() {
	local v

	v=$(awk '/^#define NPROF_VERSION_(MAJOR|MINOR|PATCH)/ { v = v (v == "" ? "" : ".") $3 } END { print v }' \
		"$repo/lib/include/neuronprof/common.h")
	[ -n "$v" ] && echo "$v"
}
