#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test-layers.sh: the library's layering (check-layers.py) on the objects and
# sources of this build ($LAYERS_OBJDIR, default build/obj), then on made-up
# objects that break it, so the checker is known to catch a file cycle, a
# folder cycle, an upward use, a use on one layer that the using folder's
# "may call" list leaves out and a folder inside another (trace/base/) that
# keeps its own layer; then on the real tree with one thing changed:
# an edited src/README (the checker's only table), an upward #include
# planted in a source file and in a public header, and two headers that
# include each other. Last line "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
objdir=${LAYERS_OBJDIR:-build/obj}
cc=${CC:-cc}
py=${PYTHON:-/usr/bin/python3}
repo=$(cd "$here/.." && pwd)
# shellcheck source=../../tests/lib.sh
. "$repo/tests/lib.sh"

if out=$($py "$here/check-layers.py" "$objdir" 2>&1); then
	ok "the library's objects: $out"
else
	printf '%s\n' "$out"
	not_ok "the library's objects have a cycle, an upward use or a use outside a may-call list"
fi

# caught WHAT RC OUT PATTERN...: ok if the check failed (RC not 0) and its
# output OUT matches every grep PATTERN, and none of those written !PATTERN;
# else OUT is shown and the case fails.
caught() {
	what=$1 rc=$2 out=$3
	shift 3
	good=1
	[ "$rc" -ne 0 ] || good=0
	for pat in "$@"; do
		case $pat in
		!*) ! printf '%s\n' "$out" | grep -q -- "${pat#!}" || good=0 ;;
		*) printf '%s\n' "$out" | grep -q -- "$pat" || good=0 ;;
		esac
	done
	if [ $good -eq 1 ]; then
		ok "$what"
	else
		printf '%s\n' "$out"
		not_ok "$what"
	fi
}

work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-layers.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/obj/util" "$work/obj/device" "$work/obj/session" "$work/nosrc" "$work/noinc"
# The made-up objects have no sources and no public headers of their own
# (the layer table is still the real README's).
fake() { $py "$here/check-layers.py" --src "$work/nosrc" --include "$work/noinc" \
	--readme "$here/src/README" "$@"; }
obj() { # obj FOLDER/NAME 'C source'
	printf '%s\n' "$2" > "$work/src.c"
	"$cc" -c -o "$work/obj/$1.o" "$work/src.c"
}
# A clean tree: session -> device -> util.
obj util/a 'int ua(void); int ua(void) { return 1; }'
obj device/d 'int ua(void); int dd(void); int dd(void) { return ua(); }'
obj session/s 'int dd(void); int ss(void); int ss(void) { return dd(); }'
if fake "$work/obj" >/dev/null; then
	ok "a tree that calls down only passes"
else
	not_ok "a tree that calls down only passes"
fi
# util calls device: an upward use, and a folder cycle.
obj util/a 'int dd(void); int ua(void); int ua(void) { return 0; } int ub(void); int ub(void) { return dd(); }'
out=$(fake "$work/obj")
caught "an upward use and the folder cycle it makes are caught" $? "$out" \
	'upward use: util/a (layer 1) -> device/d (layer 3): dd' \
	'folder cycle: device <-> util'
# Two files of one folder calling each other: a file cycle.
obj util/a 'int ub(void); int ua(void); int ua(void) { return ub(); }'
obj util/b 'int ua(void); int ub(void); int ub(void) { return ua(); }'
out=$(fake "$work/obj")
caught "a file cycle inside a folder is caught" $? "$out" \
	'file cycle: util/a <-> util/b'
# capture/ and trace/ share layer 4, but capture/ may not call trace/ (its
# events go through trace/base/tracepoint.h): a sideways use without a cycle.
rm -f "$work/obj/util/b.o"
obj util/a 'int ua(void); int ua(void) { return 1; }'
mkdir -p "$work/obj/capture" "$work/obj/trace"
obj trace/t 'int ua(void); int tt(void); int tt(void) { return ua(); }'
obj capture/c 'int tt(void); int cc(void); int cc(void) { return tt(); }'
out=$(fake "$work/obj")
caught "a use on one layer outside the folder's may-call list is caught" $? "$out" \
	"use outside what capture/ may call: capture/c -> trace/t: tt" \
	'!cycle\|upward'

# trace/base/ sits inside trace/ but is a folder of its own on layer 1: a
# use of trace/ from it runs up, and capture/ may call it but not trace/.
mkdir -p "$work/obj/trace/base"
obj trace/base/b 'int tt(void); int bb(void); int bb(void) { return tt(); }'
out=$(fake "$work/obj")
caught "a folder inside another is a folder of its own, with its own layer" $? "$out" \
	"upward use: trace/base/b (layer 1) -> trace/t (layer 4): tt"
rm -f "$work/obj/trace/base/b.o"
obj trace/base/b 'int bb(void); int bb(void) { return 1; }'
obj capture/c 'int bb(void); int cc(void); int cc(void) { return bb(); }'
out=$(fake "$work/obj")
rc=$?
if [ $rc -eq 0 ]; then
	ok "capture/ may call trace/base/"
else
	printf '%s\n' "$out"
	not_ok "capture/ may call trace/base/"
fi

# ---- the real tree with one thing changed ----
real() { $py "$here/check-layers.py" "$@" "$objdir"; }
# readme_caught WHAT README PATTERN: the real tree against an edited README
# fails and says PATTERN (an edit that changed nothing proves nothing).
readme_caught() {
	out=$(real --readme "$2")
	rc=$?
	cmp -s "$here/src/README" "$2" && rc=0
	caught "$1" $rc "$out" "$3"
}

# The count of arrows up the layers is printed, and is 0.
out=$(real)
if printf '%s\n' "$out" | grep -q ' arrows between folders, 0 running up the layers$'; then
	ok "the arrows between folders are counted: none runs up"
else
	printf '%s\n' "$out"
	not_ok "the arrows between folders are counted: none runs up"
fi

# The layer table is the README's: capture/ moved down to layer 2 makes its
# uses of device/ (layer 3) upward, with no change to the sources.
sed 's|^4      capture/ |2      capture/ |' "$here/src/README" > "$work/README.lowered"
readme_caught "a README that lowers capture/ makes capture/'s calls of device/ upward" \
	"$work/README.lowered" 'upward use: capture/[a-z_]* (layer 2) -> device/[a-z_]* (layer 3)'
# ... and so is the may-call column: model/ may no longer call util/.
awk '/^1      model\/ /{sub(/util\/$/, "nothing")} {print}' "$here/src/README" > "$work/README.nocall"
readme_caught "a README whose model/ may not call util/ fails model/'s calls of util/" \
	"$work/README.nocall" 'use outside what model/ may call: model/registry -> util/error: nprof_err'
# ... and so is the public headers' table: a header it leaves out fails.
grep -v '^modes/ ' "$here/src/README" > "$work/README.noheader"
out=$(real --readme "$work/README.noheader")
caught "a public header the README does not place fails" $? "$out" \
	'<neuronprof/profile.h>: public header with no folder'

# An upward #include planted in a source file of the bottom layer.
cp -R "$here/src" "$work/src"
printf '#include "session/session_internal.h"\n' >> "$work/src/util/names.c"
out=$(real --src "$work/src" --readme "$here/src/README")
caught "a planted upward include in a source file fails, and is counted" $? "$out" \
	'upward include: util/names (layer 1) -> session/session_internal.h (layer 6)' \
	' arrows between folders, 1 running up the layers: util/ -> session/$'
rm -rf "$work/src"

# An upward #include planted in a public header (common.h is util/'s).
cp -R "$here/include/neuronprof" "$work/inc"
printf '#include <neuronprof/inspect.h>\n' >> "$work/inc/common.h"
out=$(real --include "$work/inc")
caught "a planted upward include in a public header fails" $? "$out" \
	'upward include: <neuronprof/common.h> (layer 1) -> <neuronprof/inspect.h> (layer 6)'
rm -rf "$work/inc"

# Two headers of one folder that include each other: a file cycle.
cp -R "$here/src" "$work/src"
printf '#include "trace/base/tracepoint.h"\n' >> "$work/src/trace/base/sys_trace_clock.h"
printf '#include "trace/base/sys_trace_clock.h"\n' >> "$work/src/trace/base/tracepoint.h"
out=$(real --src "$work/src" --readme "$here/src/README")
caught "two headers that include each other are a file cycle" $? "$out" \
	'file cycle: trace/base/sys_trace_clock.h <-> trace/base/tracepoint.h'
rm -rf "$work/src"
finish
