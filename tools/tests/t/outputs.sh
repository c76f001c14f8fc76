# SPDX-License-Identifier: MIT
#
# The tool's tests: outputs that are not regular files.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# Documentation/design.rst, "Writing an output": a device or a FIFO is
# written in place, never renamed over nor unlinked; a symbolic link is
# followed and stays a link. The device is a node of our own (1:3, as
# /dev/null) in the test's directory: the real /dev/null is never at stake.
# ref_outputs DIR: every writer's output as a regular file, to compare with.
ref_outputs() {
	local f
	rm -rf "$1" && mkdir -p "$1" || return 1
	for f in json perfetto sqlite; do
		"$np" export --format $f -o "$1/x.$f" "$prof" >/dev/null || return 1
	done
	"$np" summary --csv "$1/csv" "$prof" >/dev/null
}
# same_db A B: two SQLite databases with the same rows in every table.
same_db() {
	local t
	for t in $(sqlite3 "$1" "select name from sqlite_master where type = 'table' order by name"); do
		[ "$(sqlite3 "$1" "select * from $t")" = "$(sqlite3 "$2" "select * from $t")" ] ||
			{ echo "table $t differs between $1 and $2"; return 1; }
	done
}
# same_output FORMAT GOT REF: the bytes (SQLite: the rows) REF has.
same_output() {
	if [ "$1" = sqlite ]; then
		same_db "$2" "$3"
	else
		cmp "$2" "$3"
	fi
}

t_out_chardev() {
	local d=$tmp/outdev f
	rm -rf "$d" && mkdir -p "$d" || return 1
	ref_outputs "$d/ref" || return 1
	mknod "$d/null" c 1 3 || return 1
	for f in json perfetto sqlite; do
		"$np" export --format $f -o "$d/null" "$prof" >"$tmp/o" ||
			{ echo "export $f into a device failed"; return 1; }
		[ -c "$d/null" ] && [ "$(stat -c %t:%T "$d/null")" = 1:3 ] ||
			{ echo "$f: the device node was replaced: $(ls -l "$d/null")"; return 1; }
	done
	mkdir -p "$d/csv" && mknod "$d/csv/cores.csv" c 1 3 || return 1
	"$np" summary --csv "$d/csv" "$prof" >/dev/null || return 1
	[ -c "$d/csv/cores.csv" ] || { echo "summary replaced the device cores.csv"; return 1; }
	cmp "$d/csv/units.csv" "$d/ref/csv/units.csv" &&
	[ -z "$(ls -A "$d" | grep -v '^ref$\|^null$\|^csv$')" ] &&
	[ -z "$(ls -A "$d/csv" | grep '\.tmp')" ] || { echo "temporary files left"; ls -A "$d" "$d/csv"; return 1; }
}
if [ "$(id -u)" -ne 0 ]; then
	skip_test "export and summary --csv into a character device: written in place, never replaced" \
		"mknod of a character device needs root"
else
	run "export and summary --csv into a character device: written in place, never replaced" \
		t_out_chardev
fi

t_out_fifo() {
	local d=$tmp/outfifo f rp
	rm -rf "$d" && mkdir -p "$d" || return 1
	ref_outputs "$d/ref" || return 1
	for f in json perfetto sqlite; do
		mkfifo "$d/fifo.$f" || return 1
		timeout 20 cat "$d/fifo.$f" >"$d/got.$f" &
		rp=$!
		"$np" export --format $f -o "$d/fifo.$f" "$prof" >"$tmp/o" ||
			{ echo "export $f into a FIFO failed"; kill $rp; return 1; }
		wait $rp || { echo "$f: the reader of the FIFO got no end of file"; return 1; }
		[ -p "$d/fifo.$f" ] || { echo "$f: the FIFO was replaced: $(ls -l "$d/fifo.$f")"; return 1; }
		same_output $f "$d/got.$f" "$d/ref/x.$f" || { echo "$f: what came through the FIFO differs"; return 1; }
	done
	mkdir -p "$d/csv" && mkfifo "$d/csv/ops.csv" || return 1
	timeout 20 cat "$d/csv/ops.csv" >"$d/got-ops.csv" &
	rp=$!
	"$np" summary --csv "$d/csv" "$prof" >/dev/null || { kill $rp; return 1; }
	wait $rp && [ -p "$d/csv/ops.csv" ] && cmp "$d/got-ops.csv" "$d/ref/csv/ops.csv" ||
		{ echo "summary --csv through a FIFO"; return 1; }
	[ -z "$(ls -A "$d" "$d/csv" | grep '\.tmp')" ] || { echo "temporary files left"; return 1; }
}
run "export (json, perfetto, sqlite) and summary --csv through a FIFO: data through it, still a FIFO" t_out_fifo

t_out_symlink() {
	local d=$tmp/outlink f round
	rm -rf "$d" && mkdir -p "$d" || return 1
	ref_outputs "$d/ref" || return 1
	mkdir -p "$d/real" || return 1
	for f in json perfetto sqlite; do
		ln -s "real/x.$f" "$d/link.$f" || return 1
		# First the link dangles (the file is created), then it names that file.
		for round in 1 2; do
			"$np" export --format $f -o "$d/link.$f" "$prof" >"$tmp/o" ||
				{ echo "export $f through a link failed"; return 1; }
			[ -L "$d/link.$f" ] || { echo "$f: the link was replaced: $(ls -l "$d/link.$f")"; return 1; }
			[ -f "$d/real/x.$f" ] && same_output $f "$d/real/x.$f" "$d/ref/x.$f" ||
				{ echo "$f: the link's target does not hold the output"; return 1; }
		done
	done
	mkdir -p "$d/csv" && ln -s ../real/host.csv "$d/csv/host_events.csv" || return 1
	"$np" summary --csv "$d/csv" "$prof" >/dev/null || return 1
	[ -L "$d/csv/host_events.csv" ] && cmp "$d/real/host.csv" "$d/ref/csv/host_events.csv" ||
		{ echo "summary --csv through a link"; return 1; }
	# A link to a directory is a directory: refused.
	ln -s real "$d/dirlink" &&
	expect_exit 1 "cannot write $d/dirlink: it is a directory" \
		"$np" export --format json -o "$d/dirlink" "$prof" || return 1
	[ -L "$d/dirlink" ] &&
	[ -z "$(ls -A "$d" "$d/real" "$d/csv" | grep '\.tmp')" ] || { echo "temporary files left"; return 1; }
}
run "export (json, perfetto, sqlite) and summary --csv through a symbolic link: the link stays, its target has the output" \
	t_out_symlink

# -o naming a directory fails before any work: here the PATH does not
# even exist, and the message is about -o.
run "export -o a directory: exit 1 before reading anything, named" \
	expect_exit 1 "cannot write $tmp: it is a directory" \
	"$np" export --format perfetto -o "$tmp" "$fx/does-not-exist"
run "export sqlite -o a directory: exit 1 up front" \
	expect_exit 1 "cannot write $tmp: it is a directory" \
	"$np" export --format sqlite -o "$tmp" "$fx/does-not-exist"
run "summary --csv naming a file: exit 1 up front" \
	expect_exit 1 "--csv $basic: not a directory" "$np" summary --csv "$basic" "$fx/does-not-exist"

t_export_sqlite_stdout() {
	"$np" export --format sqlite "$prof" >"$tmp/stdout.db" &&
	"$np" export --format sqlite -o - "$prof" >"$tmp/stdout2.db" &&
	"$np" export --format sqlite -o "$tmp/file.db" "$prof" >/dev/null || return 1
	same_db "$tmp/stdout.db" "$tmp/file.db" && same_db "$tmp/stdout2.db" "$tmp/file.db"
}
run "export sqlite to standard output (no -o, and -o -): the database -o writes" t_export_sqlite_stdout

# record's -o is a directory to write session directories under.
t_record_out_special() {
	local d=$tmp/recout
	rm -rf "$d" && mkdir -p "$d/base" && mkfifo "$d/fifo" || return 1
	expect_exit 2 "-o $d/fifo: not a directory" "$np" record -o "$d/fifo" -- true || return 1
	[ -p "$d/fifo" ] || { echo "the FIFO was replaced"; return 1; }
	if [ "$(id -u)" -eq 0 ]; then
		mknod "$d/null" c 1 3 &&
		expect_exit 2 "-o $d/null: not a directory" "$np" record -o "$d/null" -- true || return 1
		[ -c "$d/null" ] || { echo "the device node was replaced"; return 1; }
	fi
	ln -s base "$d/link" &&
	"$np" record -o "$d/link" -- sh -c 'echo "$NEURON_RT_INSPECT_OUTPUT_DIR"' >"$tmp/o" 2>/dev/null &&
	has "$d/link" "$tmp/o" && [ -L "$d/link" ] || { echo "record -o a link to a directory"; return 1; }
}
run "record -o a FIFO or a device: refused up front, left alone; a link to a directory: used" \
	t_record_out_special
