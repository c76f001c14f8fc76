#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-exports.sh LIB MAP ABI: the dynamic symbols LIB defines must be
# exactly the global symbols listed in MAP, and each must be bound to the
# version node that the checked-in list ABI ("NODE symbol" lines) gives it.
# The version nodes LIB defines must be exactly the nodes of ABI, each
# inheriting the one before it (NEURONPROF_1.1 from NEURONPROF_1.0, ...), and
# none may be newer than the library's version (VERSION, "major.minor.patch",
# when set): a symbol added to an old node, or to a node of its own, fails.
# A function may be listed in two nodes: its old version, kept for programs
# linked before its meaning changed (name@NODE, bound by a symver attribute),
# and its default version (name@@NODE) in a newer node; an old version
# without a newer default one fails.
#
# check-exports.sh --archive ARCHIVE MAP: the global (and weak) symbols the
# static ARCHIVE defines must be exactly the global symbols listed in MAP:
# an internal symbol left global could collide with a symbol of the program
# that links the archive.
#
# Environment: NM (default nm), READELF (default readelf), VERSION.
set -eu
NM=${NM:-nm}
READELF=${READELF:-readelf}
archive=0
if [ "${1:-}" = --archive ]; then
	archive=1
	shift
fi
lib=$1 map=$2
abi=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Global names of the map: "name;" lines between "global:" and "local:".
sed -n '/global:/,/local:/p' "$map" | sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*$/\1/p' |
	sort -u > "$tmp/map"
[ "$(wc -l < "$tmp/map")" -gt 0 ] || { echo "check-exports: no symbol in $map" >&2; exit 1; }

if [ "$archive" -eq 1 ]; then
	# nm -g --defined-only prints "member:" headers, blank lines and
	# "value type name" lines; keep the names.
	"$NM" -g --defined-only "$lib" > "$tmp/nm" ||
		{ echo "check-exports: $NM cannot read $lib" >&2; exit 1; }
	awk 'NF == 3 { print $3 }' "$tmp/nm" | sort > "$tmp/names"
	if ! diff -u "$tmp/map" "$tmp/names" > "$tmp/diff"; then
		echo "check-exports: the global symbols of $lib differ from $map (- map only, + archive only):" >&2
		sed -n 's/^\([-+][A-Za-z_]\)/\1/p' "$tmp/diff" | grep -v '^[-+][-+]' >&2 || true
		exit 1
	fi
	exit 0
fi

[ -n "$abi" ] || { echo "usage: check-exports.sh LIB MAP ABI | --archive ARCHIVE MAP" >&2; exit 2; }
# The checked-in list without comments and blank lines, as "node symbol".
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$abi" | awk '{ print $1, $2 }' | sort > "$tmp/abi"
[ "$(wc -l < "$tmp/abi")" -gt 0 ] || { echo "check-exports: no symbol in $abi" >&2; exit 1; }
# Defined dynamic symbols: readelf prints name@@node for default versions,
# name@node for old ones and the bare node name for each node's own (ABS)
# symbol.
"$READELF" --dyn-syms -W "$lib" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && $8 != "" { print $8 }' |
	sort > "$tmp/dyn"
# Version definitions, in file order, as "node parent" (parent "-" if none).
"$READELF" -V -W "$lib" | awk '
	/^Version definition section/ { in_d = 1; next }
	/^Version (needs|symbols) section/ { in_d = 0 }
	in_d && /Flags: BASE/ { next }
	in_d && /Name: / { if (node != "") print node, parent; node = $NF; parent = "-"; next }
	in_d && /Parent 1: / { parent = $NF }
	END { if (node != "") print node, parent }' > "$tmp/nodes"
awk '{ print $1 }' "$tmp/abi" | sort -u -V > "$tmp/abi-nodes"
sort -u "$tmp/abi-nodes" > "$tmp/abi-nodes-sorted"

status=0
sed 's/@.*//' "$tmp/dyn" | grep -vxF -f "$tmp/abi-nodes-sorted" | sort -u > "$tmp/names" || true
if ! diff -u "$tmp/map" "$tmp/names" > "$tmp/diff"; then
	echo "check-exports: $lib exports differ from $map (- map only, + library only):" >&2
	sed -n 's/^\([-+][A-Za-z_]\)/\1/p' "$tmp/diff" | grep -v '^[-+][-+]' >&2 || true
	status=1
fi
# Every export in the node the list gives it, and in no other.
grep '@' "$tmp/dyn" | sed 's/@@*/ /' | awk '{ print $2, $1 }' | sort > "$tmp/bound"
if grep -v '@' "$tmp/dyn" | grep -vxF -f "$tmp/abi-nodes-sorted" > "$tmp/unversioned"; then
	echo "check-exports: symbols of $lib without a version node:" >&2
	cat "$tmp/unversioned" >&2
	status=1
fi
if ! diff -u "$tmp/abi" "$tmp/bound" > "$tmp/diff"; then
	echo "check-exports: version nodes of $lib differ from $abi (- list only, + library only);" >&2
	echo "check-exports: a released node never changes, a new symbol goes in the node of the library's version:" >&2
	sed -n 's/^\([-+][A-Z]\)/\1/p' "$tmp/diff" | grep -v '^[-+][-+]' >&2 || true
	status=1
fi
# An old version (name@NODE) needs a default one (name@@NEWER).
grep '@' "$tmp/dyn" | grep -v '@@' | while IFS=@ read -r name node; do
	new=$(grep "^$name@@" "$tmp/dyn" | sed 's/.*@@//')
	if [ -z "$new" ] || [ "$(printf '%s\n%s\n' "${node##*_}" "${new##*_}" | sort -V | tail -n 1)" = "${node##*_}" ]; then
		echo "check-exports: $name@$node is an old version with no default version in a newer node"
	fi
done > "$tmp/orphans"
if [ -s "$tmp/orphans" ]; then
	cat "$tmp/orphans" >&2
	status=1
fi
# The nodes: those of the list, oldest first, each inheriting the one before.
awk '{ print $1 }' "$tmp/nodes" > "$tmp/lib-nodes"
if ! diff -u "$tmp/abi-nodes" "$tmp/lib-nodes" > "$tmp/diff"; then
	echo "check-exports: $lib defines the version nodes" $(cat "$tmp/lib-nodes") \
		"where $abi has" $(cat "$tmp/abi-nodes") >&2
	status=1
fi
prev=-
while read -r node parent; do
	if [ "$parent" != "$prev" ]; then
		echo "check-exports: version node $node inherits $(echo "$parent" | sed 's/^-$/nothing/')" \
			"where it should inherit $(echo "$prev" | sed 's/^-$/nothing/')" >&2
		status=1
	fi
	prev=$node
done < "$tmp/nodes"
if [ -n "${VERSION:-}" ]; then
	cur=$(echo "$VERSION" | awk -F. '{ print $1 "." $2 }')
	while read -r node; do
		v=${node##*_}
		if [ "$(printf '%s\n%s\n' "$v" "$cur" | sort -V | tail -n 1)" != "$cur" ]; then
			echo "check-exports: version node $node is newer than the library ($VERSION)" >&2
			status=1
		fi
	done < "$tmp/abi-nodes"
fi
exit $status
