#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs installed kselftest programs and prints KTAP, as the kernel's
# tools/testing/selftests/kselftest/runner.sh does: sourced by
# run_kselftest.sh with BASE_DIR set; run_many TEST... runs each TEST of the
# current collection directory.
#
# Per program: a "# selftests: COLLECTION: TEST" line, the program's own
# output with every line prefixed "# ", then "ok N ...", "ok N ... # SKIP"
# (exit status 4, every test skipped), "not ok N ... # exit=RC" or
# "not ok N ... # TIMEOUT SEC seconds". A collection's "settings" file sets
# timeout=SEC (default 45); kselftest_override_timeout overrides it.
#
# Differences from the kernel's: POSIX sh plus the utilities busybox has
# (the VM that runs these is busybox), so no perl prefixer and `timeout`
# without --foreground; a program killed at its timeout is recognised by
# the time it took as well as by timeout's exit status 124.
export skip_rc=4
export timeout_rc=124
export logfile=${logfile:-/dev/stdout}
export kselftest_default_timeout=45

if [ -z "$BASE_DIR" ]; then
	echo "Error: BASE_DIR must be set before sourcing." >&2
	exit 1
fi

# tap_timeout CMD...: CMD with the current timeout, when timeout exists.
tap_timeout()
{
	if command -v timeout >/dev/null 2>&1 && [ "$kselftest_timeout" -gt 0 ]; then
		timeout -k 10 "$kselftest_timeout" "$@"
	else
		"$@"
	fi
}

run_one()
{
	DIR="$1"
	TEST="$2"
	NUM="$3"
	BASENAME_TEST=$(basename "$TEST")

	kselftest_timeout=$kselftest_default_timeout
	settings="$BASE_DIR/$DIR/settings"
	if [ -r "$settings" ]; then
		while read -r line; do
			case $line in
			timeout=*) kselftest_timeout=${line#timeout=} ;;
			esac
		done <"$settings"
	fi
	[ -z "$kselftest_override_timeout" ] || kselftest_timeout=$kselftest_override_timeout

	# Arguments for one program: KSELFTEST_<NAME>_ARGS, NAME upper-cased
	# with every other character than [A-Z0-9_] made "_".
	args_var="KSELFTEST_$(echo "$BASENAME_TEST" | tr -c '[:alnum:]_\n' '_' | tr '[:lower:]' '[:upper:]')_ARGS"
	eval "kselftest_cmd_args=\${$args_var:-}"

	TEST_HDR_MSG="selftests: $DIR: $BASENAME_TEST"
	echo "# $TEST_HDR_MSG"
	if [ ! -x "$TEST" ]; then
		echo "# Warning: file $TEST is missing or not executable"
		echo "not ok $NUM $TEST_HDR_MSG"
		return
	fi
	cd "$(dirname "$TEST")" >/dev/null || return
	start=$(date +%s)
	# The program's output goes through the prefixing sed to fd 4 (the
	# log, or standard output), its exit status through fd 3 into rc.
	if [ "$logfile" = /dev/stdout ]; then
		exec 4>&1
	else
		exec 4>>"$logfile"
	fi
	# shellcheck disable=SC2086
	rc=$( { { tap_timeout "./$BASENAME_TEST" $kselftest_cmd_args 2>&1 3>&- 4>&-; echo $? >&3; } |
		sed -e 's/^/# /' >&4; } 3>&1)
	exec 4>&-
	elapsed=$(($(date +%s) - start))
	if [ "$rc" = 0 ]; then
		echo "ok $NUM $TEST_HDR_MSG"
	elif [ "$rc" = "$skip_rc" ]; then
		echo "ok $NUM $TEST_HDR_MSG # SKIP"
	elif [ "$rc" = "$timeout_rc" ] ||
		{ [ "$kselftest_timeout" -gt 0 ] && [ "$elapsed" -ge "$kselftest_timeout" ] &&
			{ [ "$rc" = 143 ] || [ "$rc" = 137 ]; }; }; then
		echo "#"
		echo "not ok $NUM $TEST_HDR_MSG # TIMEOUT $kselftest_timeout seconds"
	else
		echo "not ok $NUM $TEST_HDR_MSG # exit=$rc"
	fi
	cd - >/dev/null || return
}

run_many()
{
	echo "TAP version 13"
	DIR="${PWD#"$BASE_DIR"/}"
	test_num=0
	total=$(echo "$@" | wc -w)
	echo "1..$total"
	for TEST in "$@"; do
		test_num=$((test_num + 1))
		run_one "$DIR" "./$TEST" "$test_num"
	done
}
