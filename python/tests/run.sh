#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Tests of the neuronprof Python package (python/Makefile check):
#   tests/run.sh TOOLS_BUILD_DIR
# TOOLS_BUILD_DIR holds neuronprof, tests/gen_fixtures and tests/gen_diff.
# Runs test_diff.py (neuronprof.diff()) and test_analyze.py with Debian's interpreter (PYTHON, default
# /usr/bin/python3: the python3 first in PATH may lack Debian's modules);
# the last line of each is "N passed, N failed". Without pandas or distributed
# (scripts/deps.sh installs python3-pandas and python3-distributed) that is
# one failure, not a skip.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:?usage: run.sh TOOLS_BUILD_DIR}
py=${PYTHON:-/usr/bin/python3}
# fatal, for what the tests need; the tests print their own lines.
# shellcheck source=../../tests/lib.sh
. "$repo/tests/lib.sh"

for f in "$build/neuronprof" "$build/tests/gen_fixtures" "$build/tests/gen_diff"; do
	[ -x "$f" ] || fatal "$f is not built (make -C tools)"
done
if ! missing=$("$py" -c 'import pandas, distributed' 2>&1); then
	not_ok "$py has pandas and distributed (scripts/deps.sh: python3-pandas, python3-distributed)"
	sed 's/^/# /' <<<"$missing"
	finish
fi
# No network: a LocalCluster on 127.0.0.1 is all the tests use. No
# __pycache__ left in the tree.
export PYTHONDONTWRITEBYTECODE=1
# neuronprof.diff() against `neuronprof diff --json` (no cluster), then the rest.
"$py" "$here/test_diff.py" "$build"
diff_status=$?
"$py" "$here/test_analyze.py" "$build" && exit "$diff_status"
