# SPDX-License-Identifier: MIT
#
# The tool's tests: compressed recordings (NTFF major 4, zstd blocks).
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.
#
# Every fixture, packed raw records (pack_raw of a raw recording) and a
# recording of many blocks (gen_diff), written again
# with compressed blocks by the library's writer (tests/ntff_zcopy.c, which
# checks that the copy's records and metadata are the original's): every
# reader must print of the copy exactly what it prints of the original.

zplain=$tmp/zstd-plain
zcomp=$tmp/zstd-z
zpaths=(basic.ntff gap.ntff prof named raw straggler hosts)
t_zstd_copies() {
	local f
	rm -rf "$zplain" "$zcomp"
	mkdir -p "$zplain" || return 1
	# The generator's fixtures (other subjects add files of their own to $fx).
	for f in "${zpaths[@]}"; do
		cp -r "$fx/$f" "$zplain/" || return 1
	done
	# Packed raw records (NTFF 3.x) of a committed raw recording, compressed too.
	mkdir -p "$zplain/packed" &&
	"$build/tests/pack_raw" "$here/fixtures/raw-record-1/counter128.ntff" "$zplain/packed" \
		packed.ntff &&
	"$build/tests/gen_diff" --executions 400 "$zplain/many" >/dev/null &&
	cp -r "$zplain" "$zcomp" || return 1
	while IFS= read -r f; do
		"$build/tests/ntff_zcopy" "$zplain/$f" "$zcomp/$(dirname "$f")" "$(basename "$f")" 1 ||
			return 1
	done < <(cd "$zplain" && find . -name '*.ntff')
	# Compressed, and smaller: the many-block recording by far.
	"$np" dump --no-entries "$zcomp/many/profile_nc_0_session_0.ntff" >"$tmp/zd.txt" &&
	has "version 4.4," "$tmp/zd.txt" &&
	has "compressed: zstd, 332800 bytes of entries stored in " "$tmp/zd.txt" &&
	[ "$(stat -c %s "$zcomp/many/profile_nc_0_session_0.ntff")" -lt \
	  "$(( $(stat -c %s "$zplain/many/profile_nc_0_session_0.ntff") / 4 ))" ]
}
run "record without a command: --max-size counts the bytes the files store (record_limit_unit)" \
	"$build/tests/record_limit_unit"
run "zstd: every fixture and a many-block recording copied with compressed blocks" t_zstd_copies

# The outputs of PATH (relative, the same in both trees) must be the same bytes.
zsame() {
	local p=$1 out=$tmp/zstd-out
	rm -rf "$out"
	mkdir -p "$out/p" "$out/z" || return 1
	for t in p z; do
		local root=$zplain
		[ $t = z ] && root=$zcomp
		(cd "$root" &&
		 "$np" summary --json "$p" >"$out/$t/summary.json" &&
		 "$np" summary "$p" >"$out/$t/summary.txt" &&
		 "$np" export -f json -o "$out/$t/trace.json" "$p" 2>/dev/null &&
		 "$np" export -f perfetto -o "$out/$t/trace.pftrace" "$p" 2>/dev/null &&
		 "$np" export -f sqlite -o "$out/$t/trace.db" "$p" 2>/dev/null &&
		 "$np" report -o "$out/$t/report.html" "$p" >/dev/null) || return 1
		# dump: all but the header's framing lines (version, lengths, offsets).
		if [ -f "$root/$p" ]; then
			(cd "$root" && "$np" dump "$p") |
				grep -Ev '^  (version |data: |compressed: |block table: |metadata: |created )' \
				>"$out/$t/dump.txt" || return 1
			(cd "$root" && "$np" dump --json "$p") >"$out/$t/dump.json" || return 1
		fi
		"$py" - "$out/$t/trace.db" >"$out/$t/db.sql" <<-'PY' || return 1
		import sqlite3, sys
		for line in sqlite3.connect(sys.argv[1]).iterdump():
		    print(line)
		PY
	done
	for f in summary.json summary.txt trace.json trace.pftrace db.sql report.html dump.txt; do
		[ -f "$out/p/$f" ] || continue
		cmp "$out/p/$f" "$out/z/$f" || { diff "$out/p/$f" "$out/z/$f" | head -20; return 1; }
	done
	[ -f "$out/p/dump.json" ] || return 0
	# dump --json: the same but for the header.
	"$py" - "$out/p/dump.json" "$out/z/dump.json" <<-'PY'
	import json, sys
	a, b = (json.load(open(p)) for p in sys.argv[1:3])
	assert b["header"]["version_major"] == 4, b["header"]
	assert b["header"]["data_size"] == a["header"]["data_length"], (a["header"], b["header"])
	for d in (a, b):
	    del d["header"]
	if a != b:
	    sys.exit("dump --json differs beyond the header")
	PY
}
for p in "${zpaths[@]}" packed/packed.ntff many many/profile_nc_1_session_0.ntff; do
	run "zstd: $p reads the same compressed: dump, summary, export json/perfetto/sqlite, report" \
		zsame "$p"
done

t_zstd_diff() {
	"$np" diff "$zplain/many" "$zcomp/many" >"$tmp/zdiff.txt" &&
	has "(no change)" "$tmp/zdiff.txt"
}
run "zstd: diff of a recording and its compressed copy finds no change" t_zstd_diff

# A flipped byte in a stored frame: every command names the file and the
# block as for a plain file, with where the frame is stored.
t_zstd_damaged() {
	local f=$tmp/zstd-bad.ntff
	cp "$zcomp/many/profile_nc_0_session_0.ntff" "$f" || return 1
	printf '\xff' | dd of="$f" bs=1 seek=5000 conv=notrunc status=none || return 1
	expect_exit 1 "$f: data checksum mismatch: stored 0x" "$np" summary "$f" &&
	expect_exit 1 "stored zstd-compressed in bytes" "$np" dump "$f" &&
	expect_exit 1 "$f: data checksum mismatch: stored 0x" "$np" export -f json -o "$tmp/zbad.json" "$f"
}
run "zstd: a damaged compressed block fails summary, dump and export, named" t_zstd_damaged

run "record --compression-level 23: exit 2, range named" \
	expect_exit 2 "--compression-level: 23 is out of range \[1, 22\]" \
	"$np" record --compression-level 23
