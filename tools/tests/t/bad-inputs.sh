# SPDX-License-Identifier: MIT
#
# The tool's tests: bad inputs.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

run "missing file: exit 1, names it" \
	expect_exit 1 "cannot open $fx/nope.ntff: No such file or directory" "$np" dump "$fx/nope.ntff"
run "not an NTFF file: exit 1, says so" \
	expect_exit 1 "notes.txt: bad magic .*: not an NTFF file" "$np" summary "$prof/notes.txt"
printf 'hello\n' >"$fx/short.txt"
run "a short text file is not an NTFF file, not a truncated one" \
	expect_exit 1 "short.txt: bad magic: not an NTFF file \(6 bytes" "$np" dump "$fx/short.txt"
head -c 1000 "$basic" >"$fx/truncated.ntff"
run "truncated file: exit 1, names the file, says truncated and what is past the end" \
	expect_exit 1 "$fx/truncated.ntff: truncated: metadata .* ends at byte [0-9]+, past the end of the file \(1000 bytes\)" \
	"$np" dump "$fx/truncated.ntff"
cp "$basic" "$fx/flipped.ntff"
printf '\377' | dd of="$fx/flipped.ntff" bs=1 seek=300 conv=notrunc 2>/dev/null
run "corrupted data: exit 1, checksum mismatch" \
	expect_exit 1 "flipped.ntff: data checksum mismatch" "$np" export --format json "$fx/flipped.ntff"
run "unknown export format: exit 2, named" \
	expect_exit 2 "unknown format 'xml' \(expected json, perfetto or sqlite\)" "$np" export --format xml "$basic"
run "export without --format: exit 2" expect_exit 2 "missing --format" "$np" export "$basic"
mkdir -p "$fx/empty"
mkdir -p "$fx/badsys"
printf '\377\377\377' >"$fx/badsys/ntrace.pb"
run "a system profile file that does not decode: exit 1, named" \
	expect_exit 1 "badsys/ntrace.pb: not a valid neuronprof.system.ntrace message" \
	"$np" export --format json "$fx/badsys"
run "directory without profiles: exit 1" \
	expect_exit 1 "no .ntff files \(nor a system profile\) under directory $fx/empty" "$np" summary "$fx/empty"
mkdir -p "$fx/mixed"
cp "$basic" "$fx/mixed/a.ntff"
cp "$fx/truncated.ntff" "$fx/mixed/b.ntff"
t_bad_in_dir() {
	expect_exit 1 "mixed/b.ntff: truncated: metadata" "$np" summary "$fx/mixed" &&
	expect_exit 1 "mixed/b.ntff: truncated: metadata" "$np" report -o "$tmp/bad.html" "$fx/mixed" &&
	expect_exit 1 "mixed/b.ntff: truncated: metadata" "$np" export --format json -o "$tmp/bad.json" "$fx/mixed" &&
	[ ! -e "$tmp/bad.html" ] && [ ! -e "$tmp/bad.json" ] || { echo "output written"; return 1; }
}
run "a bad file inside a directory fails summary, report and export alike, named, nothing written" t_bad_in_dir

t_summary_keep_going() {
	"$np" summary --keep-going "$fx/mixed" >"$tmp/s" 2>"$tmp/e"
	[ $? -eq 1 ] || { echo "expected exit 1"; return 1; }
	has "warning: $fx/mixed/b.ntff: truncated: metadata" "$tmp/e" &&
	has "skipped (--keep-going)" "$tmp/e" &&
	has "1 file skipped (--keep-going)" "$tmp/e" &&
	has "recording $fx/mixed: 1 file, 14 queue records, 46 entries" "$tmp/s" || return 1
	"$np" summary --keep-going --json "$fx/mixed" >"$tmp/s.json" 2>/dev/null
	check_py summary-json "$tmp/s.json" files=1 entries=46 skipped=1 recordings.0.entries=46 \
		recordings.0.totals.instructions=16
}
run "summary --keep-going: the bad file named and skipped, the rest summarized, exit 1" \
	t_summary_keep_going

# A bad file in a directory is one behaviour for summary, report and
# export (tool.rst, Conventions): it fails the command, named, nothing
# written; with --keep-going the export goes on without it: every
# format written, with the rest, the file named; exit status 1. A raw
# file beside it is exported too.
t_export_skips_bad_file() {
	local f o
	cp -r "$fx/raw" "$fx/mixed/" || return 1
	for f in json perfetto sqlite; do
		o=$tmp/mixed.$f
		rm -f "$o"
		expect_exit 1 "^neuronprof: export: $fx/mixed/b.ntff: truncated: metadata" \
			"$np" export --format "$f" -o "$o" "$fx/mixed" &&
		[ ! -e "$o" ] || { echo "$f: written without --keep-going"; return 1; }
		"$np" export --keep-going --format "$f" -o "$o" "$fx/mixed" >"$tmp/s" 2>"$tmp/e"
		[ $? -eq 1 ] || { echo "$f: expected exit 1"; cat "$tmp/e"; return 1; }
		has "warning: $fx/mixed/b.ntff: truncated: metadata" "$tmp/e" &&
		has "skipped (--keep-going)" "$tmp/e" &&
		has "1 file of $fx/mixed skipped (--keep-going): the export leaves it out" "$tmp/e" &&
		has "$o: 55 entries from 2 files" "$tmp/s" &&
		[ -s "$o" ] || { echo "$f"; return 1; }
	done
	check_py chrome-json "$tmp/mixed.json" "name:raw neuron-v2=9" &&
	[ "$(sqlite3 "$tmp/mixed.sqlite" 'SELECT count(*) FROM files; SELECT count(*) FROM raw_entries;
		SELECT count(*) FROM instructions' | tr '\n' ' ')" = "2 9 16 " ] ||
		{ echo "database rows"; return 1; }
	# A FILE operand that does not read still fails, and writes nothing.
	rm -f "$tmp/one.json"
	expect_exit 1 "mixed/b.ntff: truncated: metadata" \
		"$np" export --keep-going --format json -o "$tmp/one.json" "$fx/mixed/b.ntff" &&
	[ ! -e "$tmp/one.json" ] || { echo "output written for a bad FILE"; return 1; }
	rm -rf "$fx/mixed/raw"
}
run_if sqlite3 "export of a directory with a bad file: fails, named; with --keep-going skipped, the rest exported, exit 1" \
	t_export_skips_bad_file

t_summary_paths() {
	"$np" summary --json "$basic" "$fx/gap.ntff" "$prof" >"$tmp/s.json" || return 1
	check_py summary-json "$tmp/s.json" path="$basic" paths.0="$basic" paths.1="$fx/gap.ntff" \
		paths.2="$prof" files=4 entries=$((46 + 4 + 58)) skipped=0 \
		recordings.0.path="$basic" recordings.1.path="$fx/gap.ntff" \
		recordings.2.path="$prof" recordings.3.path="$prof/sub" \
		recordings.1.totals.seq_gaps=3 recordings.3.cores.0.core=1 || return 1
	"$np" summary "$fx/gap.ntff" "$basic" >"$tmp/s" || return 1
	[ "$(grep '^recording ' "$tmp/s" | cut -d: -f1)" = "recording $fx/gap.ntff
recording $basic" ] || { echo "recordings not in the order of the PATHs:"; grep '^recording ' "$tmp/s"; return 1; }
	rm -rf "$tmp/csvp" && "$np" summary --csv "$tmp/csvp" "$basic" "$fx/gap.ntff" >"$tmp/o" &&
	has "$tmp/csvp: 17 tables of 2 recordings" "$tmp/o" || return 1
	expect_exit 1 "cannot open $fx/nope.ntff" "$np" summary "$basic" "$fx/nope.ntff"
}
run "summary of several PATHs: each one's recordings, in order" t_summary_paths

t_no_partial() {
	expect_exit 1 "checksum mismatch" "$np" export --format json -o "$tmp/partial.json" \
		"$fx/flipped.ntff" || return 1
	[ ! -e "$tmp/partial.json" ] || { echo "partial output left behind"; return 1; }
	ls "$tmp" | grep -q 'partial.json.tmp' && { echo "temporary file left behind"; return 1; }
	# The file asked for is named, not the writer's temporary one.
	expect_exit 1 "cannot write $basic/x\.json: Not a directory" \
		"$np" export --format json -o "$basic/x.json" "$basic" || return 1
	grep -q '\.tmp' "$tmp/err" && { echo "temporary name in the message"; return 1; }
	return 0
}
run "failed export leaves no output file; bad -o file named, not its temporary" t_no_partial
run "export of a file damaged past its first block: each format fails naming the block, leaves no file; --keep-going skips it (export_damaged.sh)" bash "$here/export_damaged.sh" "$build" "$tmp/damaged"

# A write that fails half way (the file size limit, as a full disk):
# every format names the -o file, never the temporary it writes first,
# and leaves neither behind.
t_write_fails() {
	local f d=$tmp/wfail
	rm -rf "$d" && mkdir -p "$d" || return 1
	for f in json perfetto sqlite; do
		(ulimit -f 1; trap '' XFSZ; exec "$np" export --format "$f" -o "$d/x.$f" "$prof") \
			>"$tmp/out" 2>"$tmp/err"
		[ $? -eq 1 ] || { echo "$f: expected exit 1"; cat "$tmp/err"; return 1; }
		grep -qF -- "$d/x.$f: " "$tmp/err" ||
			{ echo "$f: the -o file is not named:"; cat "$tmp/err"; return 1; }
		grep -q '\.tmp' "$tmp/err" && { echo "$f: temporary name in the message:"; cat "$tmp/err"; return 1; }
	done
	[ -z "$(ls -A "$d")" ] || { echo "left behind:"; ls -A "$d"; return 1; }
}
run "export whose write fails: the message names the -o file, not its temporary" t_write_fails
