#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-exports.sh LIB MAP NODE: the dynamic symbols LIB defines must be
# exactly the global symbols listed in MAP, each bound to version NODE.
#
# check-exports.sh --archive ARCHIVE MAP: the global (and weak) symbols the
# static ARCHIVE defines must be exactly the global symbols listed in MAP:
# an internal symbol left global could collide with a symbol of the program
# that links the archive.
#
# Environment: NM (default nm), READELF (default readelf).
set -eu
NM=${NM:-nm}
READELF=${READELF:-readelf}
archive=0
if [ "${1:-}" = --archive ]; then
	archive=1
	shift
fi
lib=$1 map=$2
node=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Global names of the map: "name;" lines between "global:" and "local:".
sed -n '/global:/,/local:/p' "$map" | sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*$/\1/p' |
	sort > "$tmp/map"
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

[ -n "$node" ] || { echo "usage: check-exports.sh LIB MAP NODE | --archive ARCHIVE MAP" >&2; exit 2; }
# Defined dynamic symbols (readelf prints name@@version for versioned ones).
"$READELF" --dyn-syms -W "$lib" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && $8 != "" { print $8 }' |
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
exit $status
