#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The export's one-pass reading of a damaged file, run by tests/run.sh:
#   tests/export_damaged.sh BUILD_DIR WORK_DIR
# The export checksums each data block as its walk reaches it
# (profile_load_one_pass()), not all of them at open. A file of several
# blocks (gen_fixtures --large) with one byte changed in the middle of its
# data, so that the walk has written events before it reaches the damaged
# block, must still fail every format with exit 1 and the library's
# message naming the block, and leave no output file (nor its temporary);
# with --keep-going, in a directory, the damaged file is skipped at load
# (named, exit 1) and the good one exported.
# Prints what failed and exits 1, or exits 0.
set -uo pipefail

build=$(cd "${1:?usage: export_damaged.sh BUILD_DIR WORK_DIR}" && pwd)
work=${2:?usage: export_damaged.sh BUILD_DIR WORK_DIR}
np=$build/neuronprof

rm -rf "$work"
mkdir -p "$work/dir" || exit 1
"$build/tests/gen_fixtures" --large 20000 "$work/good.ntff" >/dev/null || exit 1
cp "$work/good.ntff" "$work/bad.ntff" || exit 1
size=$(stat -c %s "$work/bad.ntff")
# The byte in the middle of the file lies in the data region (most of the
# file); its complement makes sure it changes.
byte=$(od -An -tu1 -j $((size / 2)) -N1 "$work/bad.ntff" | tr -d ' ')
printf "\\$(printf %03o $((255 - byte)))" |
	dd of="$work/bad.ntff" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null || exit 1
cmp -s "$work/good.ntff" "$work/bad.ntff" && { echo "the byte did not change"; exit 1; }

fails=0
for fmt in json perfetto sqlite; do
	"$np" export --format "$fmt" -o "$work/out.$fmt" "$work/bad.ntff" >"$work/o" 2>"$work/e"
	rc=$?
	if [ "$rc" -ne 1 ]; then
		echo "$fmt: exit status $rc, expected 1"; cat "$work/e"; fails=1
	fi
	if ! grep -Eq "bad\.ntff: data checksum mismatch: stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8} in block [1-9][0-9]* " "$work/e"; then
		echo "$fmt: no message naming a block past the first:"; cat "$work/e"; fails=1
	fi
	if ls "$work" | grep -q "^out\.$fmt"; then
		echo "$fmt: output left behind:"; ls "$work"; fails=1
	fi
	# The same file undamaged exports.
	if ! "$np" export --format "$fmt" -o "$work/out.$fmt" "$work/good.ntff" >"$work/o" 2>"$work/e"; then
		echo "$fmt: the undamaged file does not export:"; cat "$work/e"; fails=1
	fi
done

# To standard output the walk has written events before it fails.
"$np" export --format json "$work/bad.ntff" >"$work/stdout.json" 2>"$work/e"
rc=$?
[ "$rc" -eq 1 ] || { echo "json to standard output: exit status $rc, expected 1"; fails=1; }
grep -q "data checksum mismatch" "$work/e" || { echo "json to standard output: no message"; fails=1; }

cp "$work/good.ntff" "$work/bad.ntff" "$work/dir/" || exit 1
"$np" export --format json --keep-going -o "$work/kept.json" "$work/dir" >"$work/o" 2>"$work/e"
rc=$?
[ "$rc" -eq 1 ] || { echo "--keep-going: exit status $rc, expected 1"; cat "$work/e"; fails=1; }
grep -Eq "dir/bad\.ntff: data checksum mismatch: .*: skipped \(--keep-going\)" "$work/e" ||
	{ echo "--keep-going: the damaged file not named as skipped:"; cat "$work/e"; fails=1; }
grep -q "kept.json: .* entries from 1 file" "$work/o" ||
	{ echo "--keep-going: the good file not exported:"; cat "$work/o"; fails=1; }
exit $fails
