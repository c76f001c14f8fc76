# SPDX-License-Identifier: MIT
#
# The tool's tests: export: Chrome JSON.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# basic.ntff: 26 slices = 2 iterations + 8 engine/TopSP event pairs + 15
# instructions (the 16th is cut by engine 1's sequence gap) + 1 loss
# window; 8 instants = 6 DMA + 2 errors; 1 execution (2 iterations). JSON: X for iterations, executions and instructions, B/E
# for event pairs; 14 threads = 13 queues + the executions track.
t_export_json() {
	"$np" export --format json -o "$tmp/b.json" "$basic" >"$tmp/o" || return 1
	has "$tmp/b.json: 46 entries from 1 file: 26 slices (1 loss windows), 8 instants, 2 counter samples, 1 executions" "$tmp/o" &&
	has "$tmp/b.json: losses: 2 entries lost as the rings counted, 2 missing from sequence numbers, 2 in the loss windows; 1 instruction cut by a loss not drawn" "$tmp/o" &&
	check_py chrome-json "$tmp/b.json" ph.M=30 ph.X=19 ph.B=8 ph.E=8 ph.i=8 ph.C=2 \
		lost_markers=1 processes=1 threads=14 "name:lost 2=1" "name:model 7 iteration=2" \
		"name:model 7 execution=1" "name:0x000100=2" "name:0x000700=2" \
		"name:error 1004=2" "name:throttle=2" ph.s=0 ph.f=0
}
run "export json: valid, event counts per phase, B/E balanced, names" t_export_json

# The directory adds core 1 (one iteration and its execution, 4
# instructions, an unmatched start, an empty queue) and the system profile
# (6 host events of 1 process on 2 threads, the device_exec event, which
# overlaps both nrt_execute calls of its thread, on a second lane; 2 CPU
# samples with an interval and 3 memory samples). The first nrt_execute
# started the execution of core 0: one flow. Core 1's empty DMA queue
# lost 5 after its (no) last entry: a loss window over the capture.
t_export_json_dir() {
	"$np" export --format json -o "$tmp/p.json" "$prof" >"$tmp/o" || return 1
	has "$tmp/p.json: system profile of 1 directory: 6 host events, 5 host samples, 1 host calls linked to their execution by a flow" "$tmp/o" &&
	check_py chrome-json "$tmp/p.json" ph.M=52 ph.X=32 ph.B=9 ph.E=9 ph.i=12 ph.C=7 \
		ph.s=1 ph.f=1 "flow:nrt_execute>model 7 execution=1" processes=3 threads=23 \
		"name:infer start without stop=1" \
		"name:nrt_execute=2" "name:device_exec=1" "name:model_load=1" \
		"name:nrt_tensor_write=1" "name:model 9 execution=1" \
		"name:host cpu=2" "name:host memory=3"
}
run "export json of a directory: both cores, unmatched start, system profile, a flow" t_export_json_dir

# Three machines (hosts/a, b, c: core 1's content each): a and b have a
# clock mapping (trace_info.pb), c has none. On one timeline each keeps its
# own processes, and a's and b's timestamps move to CLOCK_REALTIME: the
# first iteration starts at 2000100 ns on each machine's CLOCK_MONOTONIC.
# Each machine starts at 1000000 (its files' start_ns; b's trace_info.pb
# says 5000000, earlier on its realtime clock: 1.7e18 - 3500000). c, on
# its own clock, is placed with its start on the mapped machines'
# earliest: moved by 1.7e18 - 4500000, never left 53 years before them.
t_export_machines() {
	"$np" export --format json -o "$tmp/h.json" "$fx/hosts" >"$tmp/o" 2>"$tmp/e" || return 1
	has "$tmp/h.json: 3 machines on one timeline (CLOCK_REALTIME, by their clock mappings); 1 without a mapping placed by its own clock at the start of the others" "$tmp/o" &&
	has "warning: host-c: no clock mapping (trace_info.pb with start_ns and start_realtime_ns): placed by its own clock, its start on that of the mapped machines (moved by +1699999999995500000 ns)" "$tmp/e" &&
	check_py chrome-json "$tmp/h.json" processes=3 "name:model 9 iteration=3" || return 1
	"$py" - "$tmp/h.json" <<-'PY' || return 1
	import decimal, json, sys
	d = json.load(open(sys.argv[1]), parse_float=decimal.Decimal)["traceEvents"]
	names = {e["pid"]: e["args"]["name"] for e in d if e.get("name") == "process_name"}
	got = sorted((names[e["pid"]].split(":")[0], int(e["ts"] * 1000))
	             for e in d if e.get("name") == "model 9 iteration")
	want = [("host-a", 2000100 - 1000000 + 1700000000000000000),
	        ("host-b", 2000100 - 5000000 + 1700000000000500000),
	        ("host-c", 2000100 - 1000000 + 1700000000000000000 - 3500000)]
	if got != want:
	    sys.exit(f"iterations at {got}, expected {want}")
	if len(set(names)) != 3:
	    sys.exit(f"processes {names}")
	PY
	mkdir -p "$tmp/pb2" && protoc --python_out="$tmp/pb2" -I"$repo/proto" "$proto" &&
	"$np" export --format perfetto -o "$tmp/h.pftrace" "$fx/hosts" >/dev/null 2>&1 &&
	check_py perfetto "$tmp/h.pftrace" "$tmp/pb2" processes=3 "track:host-a: device 0 (trn1 sim)=1" \
		"track:host-c: device 0 (trn1 sim)=1" || return 1
	# No mapping anywhere: each machine on its own clock, all starting together.
	rm -rf "$tmp/hn" && cp -r "$fx/hosts" "$tmp/hn" && rm "$tmp"/hn/*/trace_info.pb &&
	"$np" export --format json -o "$tmp/hn.json" "$tmp/hn" >"$tmp/o" 2>"$tmp/e" || return 1
	has "$tmp/hn.json: 3 machines on one timeline, none with a clock mapping: each placed by its own clock, all starting together" "$tmp/o" &&
	count_is 3 "warning: host-.: no clock mapping .*its start on that of the earliest machine \(moved by \+0 ns\)" "$tmp/e" &&
	"$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["traceEvents"]; t=sorted(e["ts"] for e in d if e.get("name") == "model 9 iteration"); sys.exit(0 if t == [2000.1] * 3 else f"iterations at {t}")' "$tmp/hn.json" || return 1
	# Perfetto: the same times as JSON (the clock of its first slice of each machine).
	"$py" - "$tmp/h.pftrace" "$tmp/pb2" <<-'PY'
	import sys
	sys.path.insert(0, sys.argv[2])
	import perfetto_trace_pb2 as pb
	t = pb.Trace(); t.ParseFromString(open(sys.argv[1], "rb").read())
	ts = sorted(p.timestamp for p in t.packet if p.HasField("track_event") and p.timestamp)
	if not ts or ts[-1] - ts[0] > 3600 * 10**9:
	    sys.exit(f"events span {ts[-1] - ts[0] if ts else 0} ns: machines not on one timeline")
	PY
}
run "export of three machines: one timeline by their clock mappings, one group each" t_export_machines

# The database puts the machines on the same timeline as JSON and says how.
t_sqlite_machines() {
	rm -f "$tmp/h.db" &&
	"$np" export --format sqlite -o "$tmp/h.db" "$fx/hosts" >"$tmp/o" 2>"$tmp/e" || return 1
	has "$tmp/h.db: 3 machines on one timeline (CLOCK_REALTIME, by their clock mappings); 1 without a mapping placed by its own clock at the start of the others" "$tmp/o" &&
	has "warning: host-c: no clock mapping" "$tmp/e" || return 1
	[ "$(sqlite3 "$tmp/h.db" 'PRAGMA foreign_keys = ON; PRAGMA foreign_key_check' 2>&1)" = "" ] ||
		{ echo "foreign keys broken"; return 1; }
	[ "$(sqlite3 -separator ' ' "$tmp/h.db" "SELECT name, hostname, clock, coalesce(mapping_monotonic_ns, '-'),
		coalesce(mapping_realtime_ns, '-'), offset_ns FROM machines ORDER BY id")" = "host-a fixture-host realtime 1000000 1700000000000000000 1699999999999000000
host-b fixture-host realtime 5000000 1700000000000500000 1699999999995500000
host-c fixture-host placed - - 1699999999995500000" ] || { echo "machines table:"; sqlite3 "$tmp/h.db" 'SELECT * FROM machines'; return 1; }
	# Every time of the database as on the JSON timeline: the iterations,
	# the files' starts, the instructions.
	[ "$(sqlite3 -separator ' ' "$tmp/h.db" "SELECT m.name, i.start_ns FROM inferences i
		JOIN cores c ON c.id = i.core_id JOIN recordings r ON r.id = c.recording_id
		JOIN machines m ON m.id = r.machine_id ORDER BY m.name")" = "host-a $((2000100 - 1000000 + 1700000000000000000))
host-b $((2000100 - 5000000 + 1700000000000500000))
host-c $((2000100 - 4500000 + 1700000000000000000))" ] || { echo "inferences:"; sqlite3 "$tmp/h.db" 'SELECT * FROM inferences'; return 1; }
	[ "$(sqlite3 "$tmp/h.db" "SELECT count(DISTINCT f.start_ns - m.offset_ns), count(*) FROM files f
		JOIN recordings r ON r.id = f.recording_id JOIN machines m ON m.id = r.machine_id")" = "1|3" ] &&
	[ "$(sqlite3 "$tmp/h.db" "SELECT max(start_ns) - min(start_ns) < 3600000000000 FROM instructions")" = 1 ] ||
		{ echo "times not moved by their machine's offset"; return 1; }
	# One machine: as recorded, offset 0, mapping kept.
	rm -f "$tmp/h1.db" && "$np" export --format sqlite -o "$tmp/h1.db" "$fx/hosts/a" >/dev/null 2>"$tmp/e" &&
	[ ! -s "$tmp/e" ] &&
	[ "$(sqlite3 -separator ' ' "$tmp/h1.db" "SELECT name, clock, mapping_monotonic_ns, offset_ns FROM machines;
		SELECT min(start_ns) FROM inferences")" = "host-a as recorded 1000000 0
2000100" ] || { echo "one machine:"; sqlite3 "$tmp/h1.db" 'SELECT * FROM machines'; return 1; }
}
run_if sqlite3 "export sqlite of three machines: the JSON timeline, a machines table referenced by recordings" t_sqlite_machines
# The schema's two documents (the installed man page and analysis.rst)
# name every table, view and column of a database, the man page in order.
t_schema_doc() {
	rm -f "$tmp/sd.db" && "$np" export --format sqlite -o "$tmp/sd.db" "$prof" >/dev/null &&
	check_py schema-doc "$tmp/sd.db" "$repo/man/neuronprof-sqlite.5" "$repo/Documentation/analysis.rst"
}
run "export sqlite: neuronprof-sqlite(5) and analysis.rst document every table and column" t_schema_doc
# The man pages' examples run: every SQL example of neuronprof-sqlite(5)
# on the databases it names (prof.db a recording, runs.db three
# machines, raw.db a raw recording), every example of neuronprof(1) that
# needs no device on a directory laid out as record writes it.
t_man_sql_examples() {
	local d=$tmp/mex
	rm -rf "$d" && mkdir -p "$d" &&
	"$np" export --format sqlite -o "$d/prof.db" "$prof" >/dev/null 2>&1 &&
	"$np" export --format sqlite -o "$d/runs.db" "$fx/hosts" >/dev/null 2>&1 &&
	"$np" export --format sqlite -o "$d/raw.db" "$fx/raw" >/dev/null 2>&1 || { echo "exports failed"; return 1; }
	"$py" "$here/doc_check.py" sql "$repo/man/neuronprof-sqlite.5" \
		prof.db="$d/prof.db" runs.db="$d/runs.db" raw.db="$d/raw.db"
}
run "neuronprof-sqlite(5): every SQL example runs on an exported database and gives rows" t_man_sql_examples
t_man_cmd_examples() {
	local d=$tmp/mcx
	rm -rf "$d" && mkdir -p "$d/prof/app-100/1" &&
	cp "$fx"/straggler/0/*.ntff "$d/prof/app-100/1/" &&
	"$py" "$here/doc_check.py" commands "$repo/man/neuronprof.1" "$np" "$d" \
		summary,report,dump,export devices,record,exporter &&
	[ -s "$d/report.html" ] && [ -s "$d/prof.pftrace" ] || { echo "no report.html or prof.pftrace"; return 1; }
}
run "neuronprof(1): every example that needs no device runs on a recording" t_man_cmd_examples
run "versions: every man page footer, the RPM spec and debian/changelog carry the library's version" \
	"$py" "$here/doc_check.py" versions "$repo"
run "tool.rst: no sentence twice" "$py" "$here/doc_check.py" sentences "$repo/Documentation/tool.rst"

# Machines compared (straggler/, gen_fixtures.c): four machines of two
# cores, 4 executions each of START, ops 0x301-0x303 100 ns apart, STOP
# (400 ns); core 0 of machine h takes 10 * h ns more in 0x301; strag-2's
# core 1 takes 5000 ns more in 0x302 in executions 1 and 3; strag-3 has
# no clock mapping. The comparison names strag-2, core 1 and op 0x302;
# the text, JSON, CSV and the SQLite view agree (check.py machines).
t_summary_machines() {
	local s=$fx/straggler
	"$np" summary --ns --top 3 "$s" >"$tmp/m.txt" 2>"$tmp/m.err" &&
	"$np" summary --json --top 3 "$s" >"$tmp/m.json" 2>/dev/null &&
	rm -rf "$tmp/mcsv" && "$np" summary --csv "$tmp/mcsv" --top 3 "$s" >/dev/null 2>&1 &&
	rm -f "$tmp/m.db" && "$np" export --format sqlite -o "$tmp/m.db" "$s" >/dev/null 2>&1 ||
		return 1
	has "machines compared: 4; slowest strag-2, median strag-1 (by total execution time)" "$tmp/m.txt" &&
	has "warning: strag-3: no clock mapping (trace_info.pb with start_ns and start_realtime_ns): compared by execution index and durations only" "$tmp/m.err" &&
	count_is 2 '^    [13] +8 strag-2 dev0 nc1 +5400ns strag-0 dev0 nc0 +400ns +5000ns$' "$tmp/m.txt" &&
	count_is 2 '^    [02] +8 strag-3 dev0 nc0 +430ns strag-0 dev0 nc0 +400ns +30ns$' "$tmp/m.txt" &&
	has "    -                  0x000302        8      10800ns        8        800ns     +10000ns" "$tmp/m.txt" &&
	check_py machines "$tmp/m.txt" "$tmp/m.json" "$tmp/mcsv" "$tmp/m.db" \
		slowest=strag-2 median=strag-1 machines.3.clock_mapping=false \
		machines.2.execution_ns=13280 machines.1.execution_ns=3240 \
		executions.1.slowest.machine=strag-2 executions.1.slowest.core=1 \
		executions.1.slowest.latency_ns=5400 executions.1.skew_ns=5000 \
		executions.0.slowest.machine=strag-3 executions.0.skew_ns=30 \
		executions.3.cores=8 executions.3.machines=4 \
		ops.0.code=0x000302 ops.0.difference_ns=10000 ops.1.code=0x000301 ops.1.difference_ns=40
}
run "summary: machines compared name the straggler's host, core and op; text, JSON, CSV and SQL agree" t_summary_machines

# One machine (prof/: two recordings of one instance): nothing to compare.
t_summary_one_machine() {
	"$np" summary --json "$prof" >"$tmp/m1.json" &&
	"$np" summary "$prof" >"$tmp/m1.txt" || return 1
	check_py summary-json "$tmp/m1.json" machines_compared=None &&
	count_is 0 '^machines compared' "$tmp/m1.txt"
}
run "summary: one machine, no comparison (null in JSON)" t_summary_one_machine

# A recording missing from the list: named; with --keep-going the rest
# are compared and the exit status is 1.
t_summary_machines_missing() {
	local s=$fx/straggler
	expect_exit 1 "cannot open $s/9: No such file" \
		"$np" summary "$s/0" "$s/9" "$s/2" || return 1
	expect_exit 1 "warning: $s/9: skipped \(--keep-going\)" \
		"$np" summary --ns --keep-going "$s/0" "$s/9" "$s/2" "$s/3" || return 1
	has "machines compared: 3; slowest strag-2, median strag-3 (by total execution time)" "$tmp/out" &&
	grep -q "warning: strag-3: no clock mapping" "$tmp/err"
}
run "summary: a recording missing from the list named, the rest compared with --keep-going" t_summary_machines_missing

t_export_stdout() {
	"$np" export --format json "$basic" >"$tmp/stdout.json" || return 1
	cmp "$tmp/stdout.json" "$tmp/b.json"
}
run "export json to stdout equals -o output" t_export_stdout
