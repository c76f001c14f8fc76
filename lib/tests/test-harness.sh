#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test-harness.sh: harness.h itself. A program with three TEST()s built with
# MAX_TESTS=3 runs all three and passes; built with MAX_TESTS=2 it must not
# pass quietly with two: it reports the case it could not run as "not ok"
# and exits 1. The results-as-found form (harness_result, harness_skip,
# harness_diag, harness_done) numbers its lines, counts a skip apart and
# exits 1 after a failure, with and without the library's headers. Last line
# "N passed, N failed".
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

# Results as they are found: numbered in order, a skip counted apart, the
# result line and the exit status from what was reported; diagnostics on
# "# " lines; HARNESS_STANDALONE builds without the library's headers.
cat > "$work/found.c" <<'SRC'
#include "harness.h"
int main(int argc, char **argv)
{
	harness_result(true, "first %d", 1);
	harness_diag("about %s", "the second");
	harness_result(argc < 2, "second");
	harness_skip("not here", "third");
	(void)argv;
	return harness_done();
}
SRC
# shellcheck disable=SC2086
if "$cc" $cflags -I"$here/tests" -o "$work/found" "$work/found.c" &&
   "$cc" -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -DHARNESS_STANDALONE -I"$here/tests" \
	-o "$work/found-alone" "$work/found.c"; then
	"$work/found" > "$work/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ "$(cat "$work/out")" = "ok 1 - first 1
# about the second
ok 2 - second
ok 3 - third # SKIP not here
2 passed, 0 failed, 1 skipped" ]; then
		ok "results as found: numbered lines, a diagnostic, a skip, the result line, exit 0"
	else
		sed 's/^/# /' "$work/out"
		not_ok "results as found: numbered lines, a diagnostic, a skip, the result line, exit 0 (exit $rc)"
	fi
	"$work/found-alone" fail > "$work/out" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && grep -qx "not ok 2 - second" "$work/out" &&
	   grep -qx "1 passed, 1 failed, 1 skipped" "$work/out"; then
		ok "results as found: a failed one is not ok and exits 1 (built without the library)"
	else
		sed 's/^/# /' "$work/out"
		not_ok "results as found: a failed one is not ok and exits 1 (exit $rc)"
	fi
else
	not_ok "results as found: found.c builds, with and without the library's headers"
fi
finish
