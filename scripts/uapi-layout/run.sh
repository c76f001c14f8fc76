#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of the uapi header: it must compile on its own in C and C++,
# for i386 and x86_64, with gcc and clang, without a warning; and every
# struct must have the same layout on every ABI, a size that is a multiple
# of 8 and no implicit padding (members tile the struct exactly), so that
# 32-bit userspace on a 64-bit kernel needs no compat ioctl code.
#
# Prints one TAP-style line per test and ends with `N passed, N failed`.
#
# Environment: UAPI_HEADER (default uapi/drm/neuronprof_drm.h of this
# repository), CC, CXX, CLANG, CLANGXX (compilers; gcc, g++, clang, clang++).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
header=${UAPI_HEADER:-$repo/uapi/drm/neuronprof_drm.h}
CC=${CC:-gcc}
CXX=${CXX:-g++}
CLANG=${CLANG:-clang}
CLANGXX=${CLANGXX:-clang++}

if [ ! -f "$header" ]; then
	echo "uapi-layout: header $header not found" >&2
	exit 1
fi
if ! drm_cflags=$(pkg-config --cflags libdrm 2>/dev/null); then
	echo "uapi-layout: pkg-config cannot find libdrm (install libdrm-dev: make deps)" >&2
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/uapi-layout.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The result lines and their counts; result DESC STATUS [LOGFILE] records
# one test and shows the log on failure.
# shellcheck source=../../tests/lib.sh
. "$repo/tests/lib.sh"

cwarn=(-Wall -Wextra -Werror -pedantic)
# C11 is the oldest standard libdrm's drm_mode.h (anonymous unions) allows
# with -pedantic; C++11 likewise for C++.
declare -A std=([c]=-std=c11 [c++]=-std=c++11)

# Standalone compile: an empty translation unit that includes the header
# twice, so a missing include or a broken include guard fails too.
for spec in "$CC c 64" "$CC c 32" "$CLANG c 64" "$CLANG c 32" \
	    "$CXX c++ 64" "$CXX c++ 32" "$CLANGXX c++ 64" "$CLANGXX c++ 32"; do
	read -r cc lang bits <<<"$spec"
	log=$work/compile-$cc-$bits.log
	# shellcheck disable=SC2086 # drm_cflags is a word list from pkg-config
	"$cc" -m"$bits" "${std[$lang]}" "${cwarn[@]}" $drm_cflags -x "$lang" \
		-include "$header" -include "$header" -c /dev/null -o /dev/null >"$log" 2>&1
	result "header compiles standalone: $cc -m$bits ${std[$lang]}" $? "$log"
done

# Layout program, generated from the header.
if ! python3 "$here/gen_layout.py" "$header" >"$work/layout.c" 2>"$work/gen.log"; then
	result "generate layout program from $(basename "$header")" 1 "$work/gen.log"
	finish
fi

# i386 programs run natively where the host kernel has IA32 emulation, else
# under qemu-i386 (Debian's qemu-user): some hosts are built without it. They
# are linked statically so that neither way needs i386 shared libraries.
probe=$work/probe32
run32=()
if printf 'int main(void) { return 0; }\n' | $CC -m32 -static -x c - -o "$probe" 2>/dev/null &&
	! "$probe" 2>/dev/null; then
	if command -v qemu-i386 >/dev/null; then
		run32=(qemu-i386)
		echo "# this kernel cannot execute i386 programs: running them under qemu-i386"
	fi
fi

abis=("$CC 64" "$CC 32" "$CLANG 64" "$CLANG 32")
for spec in "${abis[@]}"; do
	read -r cc bits <<<"$spec"
	out=$work/layout-$cc-$bits
	runner=()
	[ "$bits" = 32 ] && runner=("${run32[@]}")
	# shellcheck disable=SC2086
	if "$cc" -m"$bits" -static -std=c11 "${cwarn[@]}" $drm_cflags "$work/layout.c" \
		-o "$out" >"$out.log" 2>&1 && "${runner[@]}" "$out" >"$out.txt" 2>>"$out.log"; then
		result "layout program builds and runs: $cc -m$bits" 0
	else
		result "layout program builds and runs: $cc -m$bits" 1 "$out.log"
		rm -f "$out.txt"
	fi
done

ref=$work/layout-$CC-64.txt
if [ -f "$ref" ]; then
	for spec in "${abis[@]:1}"; do
		read -r cc bits <<<"$spec"
		txt=$work/layout-$cc-$bits.txt
		if [ -f "$txt" ]; then
			diff -u "$ref" "$txt" >"$txt.diff" 2>&1
			result "layout and ioctl numbers of $cc -m$bits equal $CC -m64" $? "$txt.diff"
		else
			echo "layout: no output from $cc -m$bits" >"$txt.diff"
			result "layout and ioctl numbers of $cc -m$bits equal $CC -m64" 1 "$txt.diff"
		fi
	done

	# Per struct: size multiple of 8, and members tile [0, size) with no
	# gap, which is what "explicit padding only" means.
	while read -r name size; do
		log=$work/struct-$name.log
		awk -v s="$name" '
			$1 == "member" {
				split($2, a, ".")
				if (a[1] != s)
					next
				off = $4; sz = $6
				if (off != end)
					printf "gap of %d bytes before %s at offset %d\n", off - end, $2, off
				end = off + sz
			}
			$1 == "struct" && $2 == s { size = $4 }
			END {
				if (end != size)
					printf "implicit tail padding: members end at %d, size is %d\n", end, size
			}' end=0 "$ref" >"$log"
		[ ! -s "$log" ]
		result "struct $name has no implicit padding" $? "$log"
		if [ $((size % 8)) -eq 0 ]; then
			result "struct $name size $size is a multiple of 8" 0
		else
			echo "sizeof(struct $name) = $size" >"$log"
			result "struct $name size $size is a multiple of 8" 1 "$log"
		fi
	done < <(awk '$1 == "struct" { print $2, $4 }' "$ref")
fi

finish
