#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-circles.py, the circles of uses between files (layer
# host/circles, after `make lib tools`):
#   - on a scratch copy of the tool's sources and objects, a planted pair of
#     files calling each other is reported as a circle with the symbols of
#     both edges, and so is a pair that closes only through a header's
#     inline function (attributed to the header's .c), the shape that an
#     include check cannot see; a chain of calls is not a circle, and the
#     file that calls the inline uses the header's .c, not what it calls;
#   - a source newer than its object is refused (exit 2), not read stale;
#   - the real trees, lib/src and tools/neuronprof, have no circle.
# Ends with `N passed, N failed`.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../lib.sh
. "$repo/tests/lib.sh"

py=${PYTHON:-python3}
cc=${CC:-cc}
checker=$repo/scripts/check-circles.py
work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-circles.XXXXXX") || fatal "cannot create a work directory"
trap 'rm -rf "$work"' EXIT

[ -d "$repo/tools/build/obj" ] || fatal "no tools/build/obj: run make tools first"

# The scratch copy: the tool's sources and objects, times kept.
mkdir -p "$work/src" "$work/obj"
cp -a "$repo/tools/neuronprof/." "$work/src/"
cp -a "$repo/tools/build/obj/." "$work/obj/"
u=$work/src/util

# Two files calling each other.
cat >"$u/circle_a.c" <<'C'
int circle_b(int n);
int circle_a(int n);
int circle_a(int n) { return n ? circle_b(n - 1) : 0; }
C
cat >"$u/circle_b.c" <<'C'
int circle_a(int n);
int circle_b(int n);
int circle_b(int n) { return n ? circle_a(n - 1) : 1; }
C
# A chain: chain_a calls chain_b, nothing calls back.
cat >"$u/chain_a.c" <<'C'
int chain_b(int n);
int chain_a(int n);
int chain_a(int n) { return chain_b(n) + 1; }
C
cat >"$u/chain_b.c" <<'C'
int chain_b(int n);
int chain_b(int n) { return n * 2; }
C
# The inline shape: inl.h's inline calls use_slow() of use.c, use.c calls
# inl_base() of inl.c, and only user.c instantiates the inline, so no
# object of inl.c or use.c shows a call the other way.
cat >"$u/inl.h" <<'C'
int inl_base(int n);
int use_slow(int n);
static inline int inl_tick(int n)
{
	return n > 100 ? use_slow(n) : n;
}
C
cat >"$u/inl.c" <<'C'
#include "inl.h"
int inl_base(int n) { return n + 1; }
C
cat >"$u/use.c" <<'C'
#include "inl.h"
int use_slow(int n) { return inl_base(n) - 1; }
C
cat >"$u/user.c" <<'C'
#include "inl.h"
int user_run(int n);
int user_run(int n) { return inl_tick(n); }
C
built=0
for f in circle_a circle_b chain_a chain_b inl use user; do
	"$cc" -O2 -c -o "$work/obj/util/$f.o" "$u/$f.c" 2>"$work/cc.log" || built=1
done
result "the planted files compile" "$built" "$work/cc.log"

"$py" "$checker" --graph "scratch=$work/src:$work/obj" >"$work/out" 2>&1
rc=$?
check "exit 1 on the scratch copy (a circle)" test "$rc" -eq 1
check "the pair calling each other is a circle" \
	grep -qx 'check-circles: scratch: circle of 2 files: util/circle_a.c util/circle_b.c' "$work/out"
check "with the symbol of each edge" \
	bash -c 'grep -qx "  util/circle_a.c -> util/circle_b.c: circle_b" "$1" &&
		grep -qx "  util/circle_b.c -> util/circle_a.c: circle_a" "$1"' _ "$work/out"
check "the pair closed through inl.h's inline is a circle" \
	grep -qx 'check-circles: scratch: circle of 2 files: util/inl.c util/use.c' "$work/out"
check "its edge from inl.c names the inline and the header" \
	grep -qx '  util/inl.c -> util/use.c: use_slow (in inl_tick, util/inl.h)' "$work/out"
check "the file calling the inline uses inl.c, not use.c" \
	bash -c 'grep -qx "scratch: util/user.c -> util/inl.c: inl_tick (util/inl.h)" "$1" &&
		! grep -q "^scratch: util/user.c -> util/use.c" "$1"' _ "$work/out"
check "a chain of calls is no circle" \
	bash -c 'grep -qx "scratch: util/chain_a.c -> util/chain_b.c: chain_b" "$1" &&
		! grep -q "circle of.*chain_" "$1"' _ "$work/out"
[ "$rc" -eq 1 ] || sed 's/^/# /' "$work/out"

touch -d '+1 minute' "$u/chain_b.c"
"$py" "$checker" "scratch=$work/src:$work/obj" >"$work/stale" 2>&1
rc=$?
check "a source newer than its object: exit 2, named" \
	bash -c '[ "$1" -eq 2 ] && grep -q "util/chain_b.c: newer than" "$2"' _ "$rc" "$work/stale"

"$py" "$checker" >"$work/real" 2>&1
rc=$?
sed 's/^/# /' "$work/real"
check "lib/src and tools/neuronprof: no circle" test "$rc" -eq 0
finish
