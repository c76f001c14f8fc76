#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test-harness.sh: harness.h itself. A program with three TEST()s built with
# MAX_TESTS=3 runs all three and passes; built with MAX_TESTS=2 it must not
# pass quietly with two: it reports the case it could not run as "not ok"
# and exits 1. Last line "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-cc}
cflags="-std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I$here/include -I$here/../uapi $(pkg-config --cflags libdrm)"
repo=$(cd "$here/.." && pwd)
# shellcheck source=../../tests/lib.sh
. "$repo/tests/lib.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-harness.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cat > "$work/three.c" <<'SRC'
#include "harness.h"
TEST(first) { CHECK(1); }
TEST(second) { CHECK(1); }
TEST(third) { CHECK(1); }
HARNESS_MAIN
SRC

# run MAX: build three.c with MAX_TESTS=MAX, run it; output in $work/out.
run() {
	# shellcheck disable=SC2086
	"$cc" $cflags -DMAX_TESTS="$1" -I"$here/tests" -o "$work/three-$1" "$work/three.c" ||
		{ echo "# cannot build three.c with MAX_TESTS=$1"; return 125; }
	"$work/three-$1" > "$work/out" 2>&1
}

run 3
rc=$?
if [ $rc -eq 0 ] && grep -qx "1..3" "$work/out" && grep -qx "ok 3 - third" "$work/out" &&
   grep -qx "3 passed, 0 failed, 0 skipped" "$work/out"; then
	ok "three cases under MAX_TESTS=3 all run and pass"
else
	sed 's/^/# /' "$work/out"
	not_ok "three cases under MAX_TESTS=3 all run and pass (exit $rc)"
fi
run 2
rc=$?
if [ $rc -eq 1 ] && grep -qx "1..3" "$work/out" && ! grep -q "^ok 3 " "$work/out" &&
   grep -q "^not ok 3 - 1 more test cases than MAX_TESTS (2) were registered and not run" "$work/out" &&
   grep -qx "2 passed, 1 failed, 0 skipped" "$work/out"; then
	ok "a case past MAX_TESTS=2 fails the run (not ok 3, exit 1)"
else
	sed 's/^/# /' "$work/out"
	not_ok "a case past MAX_TESTS=2 fails the run (exit $rc)"
fi
finish
