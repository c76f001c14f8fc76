#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test-abi.sh: the version nodes of the built libneuronprof.so ($ABI_LIB,
# default build/libneuronprof.so.$VERSION) against the checked-in list
# libneuronprof.abi (check-exports.sh), and debian/libneuronprof1.symbols
# against the same list (each symbol at the library version of its node, or
# later); then made-up libraries and lists that break the rules, so the
# checks are known to catch a symbol added to an old node, a symbol moved
# between nodes, a node that does not inherit the one before it, a node newer
# than the library and a symbols file that disagrees. Last line
# "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
version=${VERSION:-$(sed -n 's/^#define NPROF_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
	"$here/include/neuronprof/common.h" | paste -sd.)}
lib=${ABI_LIB:-$here/build/libneuronprof.so.$version}
cc=${CC:-cc}
repo=$(cd "$here/.." && pwd)
# shellcheck source=../../tests/lib.sh
. "$repo/tests/lib.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-abi.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# debian_agrees ABI SYMBOLS: every "NODE symbol" of ABI is " symbol@NODE V" in
# SYMBOLS with V at least the node's release (NEURONPROF_1.1 -> 1.1.0), every
# node has its " NODE@NODE X.Y.0" line, and SYMBOLS names nothing else.
debian_agrees() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1" | awk '{ print $2 "@" $1 }' > "$work/want"
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1" | awk '{ print $1 "@" $1 }' | sort -u >> "$work/want"
	sort -o "$work/want" "$work/want"
	grep '^ ' "$2" | awk '{ print $1 }' | sort > "$work/have"
	if ! diff -u "$work/want" "$work/have" > "$work/diff"; then
		echo "# $2 and $1 list different symbols (- list only, + symbols file only):"
		grep '^[-+][A-Za-z]' "$work/diff" | sed 's/^/#   /'
		return 1
	fi
	bad=$(grep '^ ' "$2" | while read -r sym ver; do
		node=${sym#*@}
		min=${node##*_}.0
		if [ "$(printf '%s\n%s\n' "$min" "$ver" | sort -V | head -n 1)" != "$min" ]; then
			echo "$sym $ver (node $node is $min)"
		fi
	done)
	if [ -n "$bad" ]; then
		echo "# symbols older than their node in $2:"
		printf '#   %s\n' "$bad"
		return 1
	fi
	return 0
}

# The real library, list and symbols file.
if out=$(VERSION=$version sh "$here/check-exports.sh" "$lib" "$here/libneuronprof.map" \
	"$here/libneuronprof.abi" 2>&1); then
	ok "$(basename "$lib"): every export in the node libneuronprof.abi gives it, nodes chained, none newer than $version"
else
	printf '%s\n' "$out" | sed 's/^/# /'
	not_ok "$(basename "$lib"): every export in the node libneuronprof.abi gives it, nodes chained, none newer than $version"
fi
if nodes=$(nm --dynamic --with-symbol-versions --defined-only "$lib" 2>/dev/null |
	awk '$3 ~ /@/ { sub(/.*@@?/, "", $3); print $3 }' | sort | uniq -c | awk '{ print $2 "=" $1 }' | paste -sd' ') &&
	[ "$nodes" = "$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/libneuronprof.abi" |
		awk '{ print $1 }' | sort | uniq -c | awk '{ print $2 "=" $1 }' | paste -sd' ')" ]; then
	ok "nm --with-symbol-versions counts the same symbols per node as libneuronprof.abi ($nodes)"
else
	not_ok "nm --with-symbol-versions counts the same symbols per node as libneuronprof.abi (library: $nodes)"
fi
if debian_agrees "$here/libneuronprof.abi" "$here/../debian/libneuronprof1.symbols"; then
	ok "debian/libneuronprof1.symbols lists each symbol of libneuronprof.abi at its node's version or later"
else
	not_ok "debian/libneuronprof1.symbols lists each symbol of libneuronprof.abi at its node's version or later"
fi

# Made-up libraries: nprof_a in 1.0, nprof_b in 1.1.
cat > "$work/lib.c" <<'EOF'
int nprof_a(void);
int nprof_b(void);
int nprof_c(void);
int nprof_a(void) { return 1; }
int nprof_b(void) { return 2; }
#ifdef WITH_C
int nprof_c(void) { return 3; }
#endif
EOF
# vmap NODE-1.0-SYMBOLS NODE-1.1-SYMBOLS [orphan]: a version script whose
# NEURONPROF_1.0 exports the first list (words; "" for none), NEURONPROF_1.1
# the second, the 1.1 node inheriting 1.0 unless the third word is orphan.
vmap() {
	printf 'NEURONPROF_1.0 {\n'
	if [ -n "$1" ]; then
		printf '\tglobal:\n'
		printf '\t\t%s;\n' $1
	fi
	printf '\tlocal:\n\t\t*;\n};\nNEURONPROF_1.1 {\n\tglobal:\n'
	printf '\t\t%s;\n' $2
	if [ "${3:-}" = orphan ]; then
		printf '};\n'
	else
		printf '} NEURONPROF_1.0;\n'
	fi
}
mklib() { # mklib NAME MAP-TEXT [CFLAGS...]
	name=$1 map=$2
	shift 2
	printf '%s\n' "$map" > "$work/$name.map"
	rm -f "$work/$name.so"
	"$cc" -shared -fPIC -o "$work/$name.so" "$@" -Wl,--version-script="$work/$name.map" "$work/lib.c" ||
		not_ok "the made-up library $name links"
}
check_passes() { # check_passes WHAT VERSION LIB MAP ABI
	if out=$(VERSION=$2 sh "$here/check-exports.sh" "$3" "$4" "$5" 2>&1); then
		ok "$1"
	else
		printf '%s\n' "$out" | sed 's/^/# /'
		not_ok "$1"
	fi
}
check_fails() { # check_fails WHAT EXPECTED-MESSAGE VERSION LIB MAP ABI
	what=$1 msg=$2
	shift 2
	[ -f "$2" ] || { not_ok "$what (no library $2)"; return; }
	out=$(VERSION=$1 sh "$here/check-exports.sh" "$2" "$3" "$4" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -qF -- "$msg"; then
		ok "$what"
	else
		printf '%s\n' "$out" | sed 's/^/# /'
		not_ok "$what"
	fi
}
printf 'NEURONPROF_1.0 nprof_a\nNEURONPROF_1.1 nprof_b\n' > "$work/good.abi"
mklib good "$(vmap nprof_a nprof_b)"
check_passes "a library whose nodes match its list passes" \
	1.1.0 "$work/good.so" "$work/good.map" "$work/good.abi"
# A new symbol added to the released 1.0 node.
mklib old-node "$(vmap "nprof_a nprof_c" nprof_b)" -DWITH_C
check_fails "a new symbol added to an old node is caught" "+NEURONPROF_1.0 nprof_c" \
	1.1.0 "$work/old-node.so" "$work/old-node.map" "$work/good.abi"
# ... and listed in the new node, but put in the old one in the map.
printf 'NEURONPROF_1.0 nprof_a\nNEURONPROF_1.1 nprof_b\nNEURONPROF_1.1 nprof_c\n' > "$work/c-in-1.1.abi"
check_fails "a symbol the list puts in 1.1 but the map in 1.0 is caught" "-NEURONPROF_1.1 nprof_c" \
	1.1.0 "$work/old-node.so" "$work/old-node.map" "$work/c-in-1.1.abi"
# A released symbol moved to the newer node.
mklib moved "$(vmap "" "nprof_a nprof_b")"
check_fails "a symbol moved from 1.0 to 1.1 is caught" "-NEURONPROF_1.0 nprof_a" \
	1.1.0 "$work/moved.so" "$work/moved.map" "$work/good.abi"
# A 1.1 node that does not inherit 1.0.
mklib orphan "$(vmap nprof_a nprof_b orphan)"
check_fails "a node that does not inherit the one before it is caught" \
	"version node NEURONPROF_1.1 inherits nothing where it should inherit NEURONPROF_1.0" \
	1.1.0 "$work/orphan.so" "$work/orphan.map" "$work/good.abi"
# A node newer than the library's version.
check_fails "a node newer than the library's version is caught" \
	"version node NEURONPROF_1.1 is newer than the library (1.0.3)" \
	1.0.3 "$work/good.so" "$work/good.map" "$work/good.abi"
# A function with two versions: nprof_a@NEURONPROF_1.0 kept for old
# programs, nprof_a@@NEURONPROF_1.1 the default (as nprof_ntff_reader_open).
cat > "$work/twover.c" <<'EOF'
int nprof_a_1_0(void) __attribute__((symver("nprof_a@NEURONPROF_1.0")));
int nprof_a_1_1(void) __attribute__((symver("nprof_a@@NEURONPROF_1.1")));
int nprof_b(void);
int nprof_a_1_0(void) { return 1; }
int nprof_a_1_1(void) { return 11; }
int nprof_b(void) { return 2; }
EOF
vmap nprof_a "nprof_a nprof_b" > "$work/twover.map"
"$cc" -shared -fPIC -o "$work/twover.so" -Wl,--version-script="$work/twover.map" "$work/twover.c" ||
	not_ok "the made-up library twover links"
printf 'NEURONPROF_1.0 nprof_a\nNEURONPROF_1.1 nprof_a\nNEURONPROF_1.1 nprof_b\n' > "$work/twover.abi"
check_passes "a function with an old and a default version, both listed, passes" \
	1.1.0 "$work/twover.so" "$work/twover.map" "$work/twover.abi"
check_fails "a function's default version missing from the list is caught" "+NEURONPROF_1.1 nprof_a" \
	1.1.0 "$work/twover.so" "$work/twover.map" "$work/good.abi"
# An old version whose default version is gone.
sed 's/^int nprof_a_1_1(void) __attribute__.*$/int nprof_a_1_1(void);/' "$work/twover.c" > "$work/lone.c"
"$cc" -shared -fPIC -o "$work/lone.so" -Wl,--version-script="$work/twover.map" "$work/lone.c" ||
	not_ok "the made-up library lone links"
printf 'NEURONPROF_1.0 nprof_a\nNEURONPROF_1.1 nprof_b\n' > "$work/lone.abi"
check_fails "an old version with no default version in a newer node is caught" \
	"nprof_a@NEURONPROF_1.0 is an old version with no default version in a newer node" \
	1.1.0 "$work/lone.so" "$work/twover.map" "$work/lone.abi"
# debian_refuses WHAT SYMBOLS MESSAGE: debian_agrees finds SYMBOLS at odds
# with good.abi and says MESSAGE.
debian_refuses() {
	if out=$(debian_agrees "$work/good.abi" "$2"); then
		not_ok "$1"
	elif printf '%s\n' "$out" | grep -qF -- "$3"; then
		ok "$1"
	else
		printf '%s\n' "$out"
		not_ok "$1"
	fi
}
# Symbols files that disagree with the list.
printf 'lib.so.1 lib1 #MINVER#\n NEURONPROF_1.0@NEURONPROF_1.0 1.0.0\n NEURONPROF_1.1@NEURONPROF_1.1 1.1.0\n nprof_a@NEURONPROF_1.0 1.0.0\n nprof_b@NEURONPROF_1.1 1.1.0\n' \
	> "$work/good.symbols"
if debian_agrees "$work/good.abi" "$work/good.symbols" > /dev/null; then
	ok "a symbols file that agrees with its list passes"
else
	not_ok "a symbols file that agrees with its list passes"
fi
sed 's/^ nprof_b@NEURONPROF_1.1 1.1.0$/ nprof_b@NEURONPROF_1.1 1.0.0/' "$work/good.symbols" > "$work/early.symbols"
debian_refuses "a 1.1 symbol the symbols file dates 1.0.0 is caught" "$work/early.symbols" \
	"nprof_b@NEURONPROF_1.1 1.0.0 (node NEURONPROF_1.1 is 1.1.0)"
sed 's/NEURONPROF_1.1 1.1.0$/NEURONPROF_1.0 1.0.0/; s/^ nprof_b@NEURONPROF_1.1/ nprof_b@NEURONPROF_1.0/' \
	"$work/good.symbols" > "$work/wrong-node.symbols"
grep -v '^ nprof_a@' "$work/good.symbols" > "$work/missing.symbols"
for f in wrong-node missing; do
	debian_refuses "a symbols file with a $f symbol is caught" "$work/$f.symbols" \
		"list different symbols"
done
finish
