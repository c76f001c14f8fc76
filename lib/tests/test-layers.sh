#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-layers.sh: the library's layering (check-layers.py) on the objects of
# this build ($LAYERS_OBJDIR, default build/obj), then on made-up objects
# that break it, so the checker is known to catch a file cycle, a folder
# cycle, an upward use and a use on one layer that the using folder's "may
# call" list leaves out. Last line "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
objdir=${LAYERS_OBJDIR:-build/obj}
cc=${CC:-cc}
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok: $1"; fail=$((fail + 1)); }

if out=$(python3 "$here/check-layers.py" "$objdir" 2>&1); then
	ok "the library's objects: $out"
else
	printf '%s\n' "$out"
	not_ok "the library's objects have a cycle, an upward use or a use outside a may-call list"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-layers.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/obj/util" "$work/obj/device" "$work/obj/session"
obj() { # obj FOLDER/NAME 'C source'
	printf '%s\n' "$2" > "$work/src.c"
	"$cc" -c -o "$work/obj/$1.o" "$work/src.c"
}
# A clean tree: session -> device -> util.
obj util/a 'int ua(void); int ua(void) { return 1; }'
obj device/d 'int ua(void); int dd(void); int dd(void) { return ua(); }'
obj session/s 'int dd(void); int ss(void); int ss(void) { return dd(); }'
if python3 "$here/check-layers.py" "$work/obj" >/dev/null; then
	ok "a tree that calls down only passes"
else
	not_ok "a tree that calls down only passes"
fi
# util calls device: an upward use, and a folder cycle.
obj util/a 'int dd(void); int ua(void); int ua(void) { return 0; } int ub(void); int ub(void) { return dd(); }'
out=$(python3 "$here/check-layers.py" "$work/obj")
rc=$?
if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q 'upward use: util/a (layer 1) -> device/d (layer 3): dd' &&
   printf '%s\n' "$out" | grep -q 'folder cycle: device <-> util'; then
	ok "an upward use and the folder cycle it makes are caught"
else
	printf '%s\n' "$out"
	not_ok "an upward use and the folder cycle it makes are caught"
fi
# Two files of one folder calling each other: a file cycle.
obj util/a 'int ub(void); int ua(void); int ua(void) { return ub(); }'
obj util/b 'int ua(void); int ub(void); int ub(void) { return ua(); }'
out=$(python3 "$here/check-layers.py" "$work/obj")
rc=$?
if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q 'file cycle: util/a <-> util/b'; then
	ok "a file cycle inside a folder is caught"
else
	printf '%s\n' "$out"
	not_ok "a file cycle inside a folder is caught"
fi
# capture/ and trace/ share layer 4, but capture/ may not call trace/ (its
# events go through util/tracepoint.h): a sideways use without a cycle.
rm -f "$work/obj/util/b.o"
obj util/a 'int ua(void); int ua(void) { return 1; }'
mkdir -p "$work/obj/capture" "$work/obj/trace"
obj trace/t 'int ua(void); int tt(void); int tt(void) { return ua(); }'
obj capture/c 'int tt(void); int cc(void); int cc(void) { return tt(); }'
out=$(python3 "$here/check-layers.py" "$work/obj")
rc=$?
if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q "use outside what capture/ may call: capture/c -> trace/t: tt" &&
   ! printf '%s\n' "$out" | grep -q 'cycle\|upward'; then
	ok "a use on one layer outside the folder's may-call list is caught"
else
	printf '%s\n' "$out"
	not_ok "a use on one layer outside the folder's may-call list is caught"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
