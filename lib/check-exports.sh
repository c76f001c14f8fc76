#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-exports.sh LIB MAP NODE: the dynamic symbols LIB defines must be
# exactly the global symbols listed in MAP, each bound to version NODE.
set -eu
lib=$1 map=$2 node=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Global names of the map: "name;" lines between "global:" and "local:".
sed -n '/global:/,/local:/p' "$map" | sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*$/\1/p' |
	sort > "$tmp/map"
# Defined dynamic symbols (readelf prints name@@version for versioned ones).
readelf --dyn-syms -W "$lib" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && $8 != "" { print $8 }' |
	sort > "$tmp/dyn"
sed 's/@.*//' "$tmp/dyn" | grep -v "^$node\$" | sort > "$tmp/names" || true

status=0
if ! diff -u "$tmp/map" "$tmp/names" > "$tmp/diff"; then
	echo "check-exports: $lib exports differ from $map (- map only, + library only):" >&2
	sed -n 's/^\([-+][A-Za-z_]\)/\1/p' "$tmp/diff" | grep -v '^[-+][-+]' >&2 || true
	status=1
fi
# Every export must be bound to the version node.
if grep -v "^$node\(@@$node\)\{0,1\}\$" "$tmp/dyn" | grep -v "@@$node\$" > "$tmp/unversioned"; then
	echo "check-exports: symbols not in version $node:" >&2
	cat "$tmp/unversioned" >&2
	status=1
fi
[ "$(wc -l < "$tmp/map")" -gt 0 ] || { echo "check-exports: no symbol in $map" >&2; status=1; }
exit $status
