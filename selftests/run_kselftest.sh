#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run installed kselftests (`make -C selftests install INSTALL_PATH=DIR`),
# as the kernel's tools/testing/selftests/run_kselftest.sh does: every
# COLLECTION:TEST line of kselftest-list.txt, or those selected, with KTAP
# output (kselftest/runner.sh). Documentation/testing.rst.
#
# The neuronprof tests need root and neuronprof_sim loaded
# (modprobe neuronprof_sim); without them every test skips and says why.
BASE_DIR=$(cd "$(dirname "$0")" && pwd -P)
cd "$BASE_DIR" || exit 1
LIST="$BASE_DIR"/kselftest-list.txt
if [ ! -r "$LIST" ]; then
	echo "$0: Could not find list of tests to run ($LIST)" >&2
	available=""
else
	available="$(cat "$LIST")"
fi

. ./kselftest/runner.sh

usage()
{
	cat <<EOT
Usage: $0 [OPTIONS]
  -s | --summary		Print summary with detailed log in output.log
  -t | --test COLLECTION:TEST	Run TEST from COLLECTION
  -c | --collection COLLECTION	Run all tests from COLLECTION
  -l | --list			List the available collection:test entries
  -d | --dry-run		Don't actually run any tests
  -o | --override-timeout SEC	Timeout of every test, in seconds (0: none)
  -h | --help			Show this usage info
EOT
	exit "$1"
}

COLLECTIONS=""
TESTS=""
dryrun=""
while true; do
	case "$1" in
	-s | --summary)
		logfile="$BASE_DIR"/output.log
		: >"$logfile"
		shift ;;
	-t | --test)
		TESTS="$TESTS $2"
		shift 2 ;;
	-c | --collection)
		COLLECTIONS="$COLLECTIONS $2"
		shift 2 ;;
	-l | --list)
		echo "$available"
		exit 0 ;;
	-d | --dry-run)
		dryrun="echo"
		shift ;;
	-o | --override-timeout)
		case $2 in
		'' | *[!0-9]*) echo "$0: --override-timeout needs seconds, not '$2'" >&2; exit 1 ;;
		esac
		kselftest_override_timeout=$2
		shift 2 ;;
	-h | --help)
		usage 0 ;;
	"")
		break ;;
	*)
		usage 1 ;;
	esac
done

if [ -n "$COLLECTIONS" ]; then
	for collection in $COLLECTIONS; do
		found="$(echo "$available" | grep "^$collection:")"
		if [ -z "$found" ]; then
			echo "No such collection '$collection'" >&2
			exit 1
		fi
		TESTS="$TESTS $found"
	done
fi
if [ -n "$TESTS" ]; then
	valid=""
	for test in $TESTS; do
		found="$(echo "$available" | grep -x "$test")"
		if [ -z "$found" ]; then
			echo "No such test '$test'" >&2
			exit 1
		fi
		valid="$valid $found"
	done
	available="$(echo "$valid" | tr ' ' '\n' | grep .)"
fi

collections=$(echo "$available" | cut -d: -f1 | uniq)
for collection in $collections; do
	[ -w /dev/kmsg ] && echo "kselftest: Running tests in $collection" >>/dev/kmsg
	tests=$(echo "$available" | grep "^$collection:" | cut -d: -f2)
	# shellcheck disable=SC2086
	(cd "$collection" && $dryrun run_many $tests)
done
