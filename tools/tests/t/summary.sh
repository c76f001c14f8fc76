# SPDX-License-Identifier: MIT
#
# The tool's tests: summary.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

# The field tables its three writers take their columns from, on their
# own (tests/fields_unit.c).
run "summary: field tables write CSV, JSON and text columns (fields_unit)" \
	"$build/tests/fields_unit"

# diff on recordings of tests/gen_diff.c (tests/diff_check.py): a planted
# regression found exactly, in every format; the gate; false alarms on 50
# pairs of runs of one workload.
t_diff() {
	rm -rf "$tmp/diff" && mkdir -p "$tmp/diff" &&
		"$py" "$here/diff_check.py" "$np" "$build/tests/gen_diff" "$tmp/diff"
}
run "diff: planted regression named exactly (text, JSON, CSV), gate, <= 5% false alarms" t_diff

# Files that record a capture range (NTFF 1.3: record --executions
# A-B): summary and diff say what was captured, in text and JSON; files
# without one say nothing of it.
t_capture_ranges() {
	rm -rf "$tmp/ranged" && "$build/tests/gen_fixtures" --exec-range 100-110 "$tmp/ranged" \
		>/dev/null || return 1
	"$np" summary --brief "$tmp/ranged/prof" >"$tmp/rs" || return 1
	has "captured executions 100-110 of NeuronCore 0 (profile_nc_0_session_3.ntff)" "$tmp/rs" &&
	"$np" diff "$tmp/ranged/prof" "$fx/prof" >"$tmp/rd" || return 1
	count_is 1 "captured executions 100-110 of NeuronCore 1 \(profile_nc_1_session_0.ntff\)" "$tmp/rd" &&
	"$np" summary --json "$tmp/ranged/prof" >"$tmp/rs.json" &&
	"$np" diff --json "$tmp/ranged/prof" "$fx/prof" >"$tmp/rd.json" &&
	"$py" - "$tmp/rs.json" "$tmp/rd.json" <<'PY' || return 1
import json, sys
s = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
r = s["recordings"][0]["capture_ranges"]
assert [(x["core"], x["first_execution"], x["last_execution"]) for x in r] == [(0, 100, 110)], r
b = d["base"]["capture_ranges"]
assert sorted((x["core"], x["first_execution"], x["last_execution"]) for x in b) == \
    [(0, 100, 110), (1, 100, 110)], b
assert "capture_ranges" not in d["new"], d["new"]
PY
	"$np" summary --brief "$fx/prof" >"$tmp/rs" && ! grep -q "captured executions" "$tmp/rs"
}
run "summary and diff: the capture range a file records (NTFF 1.3)" t_capture_ranges

# Files of a capture of a range of iterations (NTFF 1.4: record
# --iterations A-B): every entry but a queue's first follows 3 sequence
# numbers the writer left out (trimmed_count). The analyses count none of
# them as lost: the losses, gaps, loss windows and every other figure are
# those of the same entries without the trims; summary and diff say the
# range, in text and JSON.
t_iteration_ranges() {
	rm -rf "$tmp/iters" && "$build/tests/gen_fixtures" --iter-range 2-3 "$tmp/iters" \
		>/dev/null || return 1
	"$np" summary --json "$tmp/iters/prof" >"$tmp/is.json" &&
	"$np" summary --json "$fx/prof" >"$tmp/fs.json" &&
	"$np" summary --brief "$tmp/iters/prof" >"$tmp/is" || return 1
	has "captured iterations 2-3 of every execution of NeuronCore 0 (profile_nc_0_session_3.ntff)" "$tmp/is" &&
	"$np" diff "$tmp/iters/prof" "$fx/prof" >"$tmp/id" || return 1
	count_is 1 "captured iterations 2-3 of every execution of NeuronCore 1 \(profile_nc_1_session_0.ntff\)" "$tmp/id" &&
	"$np" diff --json "$tmp/iters/prof" "$fx/prof" >"$tmp/id.json" &&
	"$py" - "$tmp/is.json" "$tmp/fs.json" "$tmp/id.json" <<'PY' || return 1
import json, sys
s = json.load(open(sys.argv[1]))["recordings"][0]
f = json.load(open(sys.argv[2]))["recordings"][0]
d = json.load(open(sys.argv[3]))
assert [(x["core"], x["first_iteration"], x["last_iteration"]) for x in s["capture_ranges"]] \
    == [(0, 2, 3)], s["capture_ranges"]
assert "first_execution" not in s["capture_ranges"][0], s["capture_ranges"]
# The same entries, losses and figures as without the trims.
for k in ("entries", "cores", "ops_across_cores", "models", "totals"):
    assert s[k] == f[k], (k, s[k], f[k])
# Losses name the file and its records, which the trims split: the rest agrees.
strip = lambda ls: [{k: v for k, v in x.items() if k not in ("file", "record", "records")}
                    for x in ls]
assert s["losses"] and strip(s["losses"]) == strip(f["losses"]), (s["losses"], f["losses"])
b = d["base"]["capture_ranges"]
assert sorted((x["core"], x["first_iteration"], x["last_iteration"]) for x in b) == \
    [(0, 2, 3), (1, 2, 3)], b
assert "capture_ranges" not in d["new"], d["new"]
PY
	! grep -q "captured iterations" "$tmp/rs"
}
run "summary and diff: the iteration range a file records, trims not lost (NTFF 1.4)" t_iteration_ranges
# prof/ holds two recordings: prof/ (core 0 and the system profile) and
# prof/sub/ (core 1); each is summarized on its own.
t_summary_text() {
	"$np" summary "$prof" >"$tmp/s" || return 1
	count_is 2 '^recording ' "$tmp/s" &&
	has "recording $prof: 1 file, 14 queue records, 46 entries; system trace: 6 host events" "$tmp/s" &&
	has "recording $prof/sub: 1 file, 5 queue records, 12 entries; no system trace" "$tmp/s" &&
	has "device 0 (trn1, sim) NeuronCore 0: 46 entries, active 4.500us (1000100 .. 1004600 ns)" "$tmp/s" &&
	has "inferences 2 (1 failed), executions 1, busy 1.000us, utilisation 40.00%, in inferences 4.400us" "$tmp/s" &&
	has "LOSSES: busy and utilisation are over observed time only, 2.500us of the 4.500us span (2.000us in loss windows); 1 instruction cut by a loss left out" "$tmp/s" &&
	has "1:vector: observed 2.500us, busy 500ns, utilisation 20.00% of observed, 1 cut" "$tmp/s" &&
	has "loss window TRACE core 0 engine 1: 2 lost in a sequence gap, 1001000 .. 1003000 ns (2.000us)" "$tmp/s" &&
	has "errors 2, throttle events 2 (max level 2)" "$tmp/s" &&
	has "lost 2 recorded, 2 missing from sequence numbers" "$tmp/s" &&
	has "lost 5 recorded, 0 missing from sequence numbers" "$tmp/s" &&
	has "totals: instructions 16, events 16, dma 6 (49152 bytes), inferences 2 (1 failed), executions 1, errors 2, throttle events 2, lost 2, sequence gaps 2" "$tmp/s" &&
	has "totals: instructions 4, events 2, dma 3 (24576 bytes), inferences 1 (0 failed), executions 1, errors 0, throttle events 0, lost 5, sequence gaps 0" "$tmp/s" &&
	has "host system trace: 6 events; 2 nrt_execute calls, 1 matched to a device execution" "$tmp/s" &&
	count_is 0 '^warning:' "$tmp/s"
}
run "summary of a directory: one summary per recording, exact counts" t_summary_text

# Instructions 100 ns apart: each lasts until the next entry of its
# queue, bounded by its engine's EVENT end, so 6 x 100 ns on engine 0.
# Engine 1 loses 2 notifications after its third entry (1001000 ns):
# its next entry (1003000) follows the sequence gap, so the window
# 1001000 .. 1003000 is not observed and the third instruction, whose
# end the loss hides, is cut: 5 x 100 ns over 4.5 - 2 = 2.5 us. The
# core is busy while any unit is, outside the window: 1000 ns (the
# engines' and the TopSPs' 2 x 200 ns never overlap; 500 ns of them lie
# in the window) over the 2.5 us observed.
t_summary_json() {
	"$np" summary --json "$prof" >"$tmp/s.json" || return 1
	check_py summary-json "$tmp/s.json" files=2 entries=58 \
		recordings.0.path="$prof" recordings.1.path="$prof/sub" \
		recordings.0.files=1 recordings.0.queue_records=14 recordings.0.entries=46 \
		recordings.0.cores.0.core=0 recordings.0.cores.0.busy_ns=1000 \
		recordings.0.cores.0.inference_busy_ns=4400 recordings.0.cores.0.utilization_pct=40.0 \
		recordings.0.cores.0.observed_ns=2500 recordings.0.cores.0.cut_instructions=1 \
		recordings.0.cores.0.engines.1.busy_ns=500 recordings.0.cores.0.engines.1.observed_ns=2500 \
		recordings.0.cores.0.engines.1.cut_instructions=1 \
		recordings.0.cores.0.engines.1.utilization_pct=20.0 \
		recordings.0.cores.0.loss_windows.0.queue_type=TRACE \
		recordings.0.cores.0.loss_windows.0.engine=1 recordings.0.cores.0.loss_windows.0.kind=sequence_gap \
		recordings.0.cores.0.loss_windows.0.start_ns=1001000 \
		recordings.0.cores.0.loss_windows.0.end_ns=1003000 recordings.0.cores.0.loss_windows.0.lost=2 \
		recordings.0.cores.0.inferences=2 recordings.0.cores.0.inferences_failed=1 \
		recordings.0.cores.0.executions=1 recordings.0.cores.0.errors=2 \
		recordings.0.cores.0.throttle_events=2 recordings.0.cores.0.max_throttle_level=2 \
		recordings.0.cores.0.lost=2 recordings.0.cores.0.seq_gaps=2 \
		recordings.0.cores.0.first_ns=1000100 recordings.0.cores.0.last_ns=1004600 \
		recordings.0.cores.0.engines.0.instructions=6 recordings.0.cores.0.engines.0.busy_ns=600 \
		recordings.0.cores.0.engines.0.event_busy_ns=800 recordings.0.cores.0.engines.0.dma=4 \
		recordings.0.cores.0.engines.0.dma_bytes=32768 recordings.0.cores.0.engines.0.events=4 \
		recordings.0.cores.0.engines.0.event_slices=2 recordings.0.cores.0.engines.1.name=vector \
		recordings.0.cores.0.engines.0.ops.0.code=0x000100 recordings.0.cores.0.engines.0.ops.0.count=2 \
		recordings.0.cores.0.engines.0.ops.0.total_ns=200 recordings.0.cores.0.engines.0.ops.0.busy_pct=33.33 \
		recordings.0.cores.0.topsps.0.instructions=2 recordings.0.cores.0.topsps.0.errors=1 \
		recordings.0.cores.0.topsps.1.events=4 \
		recordings.0.cores.0.throttle.0.level=1 recordings.0.cores.0.throttle.0.time_ns=2200 \
		recordings.0.cores.0.throttle.1.level=2 recordings.0.cores.0.throttle.1.time_ns=900 \
		recordings.0.cores.0.errors_by_code.0.code=1004 recordings.0.cores.0.errors_by_code.0.count=2 \
		recordings.0.models.0.model_id=7 recordings.0.models.0.latency.count=1 \
		recordings.0.models.0.latency.max_ns=4500 recordings.0.models.0.host_matched=1 \
		recordings.0.executions.0.host_call.start_ns=1000100 recordings.0.executions.0.host_call.flow_id=1 \
		recordings.0.executions.0.iterations=2 recordings.0.executions.0.failed=true \
		recordings.0.host.events=6 recordings.0.host.nrt_execute_calls=2 recordings.0.host.nrt_execute_matched=1 \
		recordings.0.host.event_types.2.name=nrt_execute recordings.0.host.event_types.2.total_ns=4400 \
		recordings.0.totals.instructions=16 recordings.0.totals.dma=6 recordings.0.totals.errors=2 \
		recordings.0.totals.lost=2 recordings.0.totals.seq_gaps=2 \
		recordings.0.totals.records_with_unexplained_gaps=0 \
		recordings.0.losses.0.seq_gaps=2 recordings.0.losses.0.lost=2 recordings.0.losses.0.explained=true \
		recordings.1.cores.0.core=1 recordings.1.cores.0.entries=12 recordings.1.cores.0.inferences=1 \
		recordings.1.cores.0.lost=5 recordings.1.cores.0.seq_gaps=0 \
		recordings.1.cores.0.engines.1.engine=2 recordings.1.cores.0.engines.1.dma=3 \
		recordings.1.cores.0.engines.2.engine=3 recordings.1.cores.0.engines.2.dma=0 \
		recordings.1.host=None recordings.1.losses.0.lost=5 recordings.1.losses.0.explained=true
}
run "summary --json: per recording, exact per-core, per-engine, per-op, host numbers" t_summary_json

# A second computation of every number from dump --json (and ntrace.pb
# decoded by python's protobuf), in tests/summary_check.py.
t_summary_recompute() {
	mkdir -p "$tmp/sys_pb2" &&
	protoc --python_out="$tmp/sys_pb2" -I"$repo/proto" "$repo/proto/system_profile.proto" || return 1
	"$np" dump --json "$prof/profile_nc_0_session_3.ntff" >"$tmp/d0.json" &&
	"$np" dump --json "$prof/sub/profile_nc_1_session_0.ntff" >"$tmp/d1.json" || return 1
	for top in 1 5; do
		"$np" summary --json --top $top "$prof" >"$tmp/s.json" || return 1
		"$py" "$here/summary_check.py" recompute "$tmp/s.json" 0 $top \
			--ntrace "$prof/ntrace.pb" "$tmp/sys_pb2" "$tmp/d0.json" &&
		"$py" "$here/summary_check.py" recompute "$tmp/s.json" 1 $top "$tmp/d1.json" || return 1
	done
	"$gen" --jitter 20000 "$fx/jitter.ntff" &&
	"$np" dump --json "$fx/jitter.ntff" >"$tmp/dj.json" &&
	"$np" summary --json --top 4 "$fx/jitter.ntff" >"$tmp/sj.json" &&
	"$py" "$here/summary_check.py" recompute "$tmp/sj.json" 0 4 "$tmp/dj.json"
}
run "summary: every number recomputed from dump --json by a second implementation" t_summary_recompute

t_summary_formats() {
	"$np" summary --json --top 3 "$prof" >"$tmp/s.json" &&
	"$np" summary --ns --top 3 "$prof" >"$tmp/s.txt" &&
	"$py" "$here/summary_check.py" text "$tmp/s.json" "$tmp/s.txt" || return 1
	# --ns prints whole nanoseconds and keeps the unit.
	has "active 4500ns (1000100 .. 1004600 ns)" "$tmp/s.txt" &&
	has "busy 1000ns, utilisation 40.00%, in inferences 4400ns" "$tmp/s.txt" || return 1
	check_py summary-json "$tmp/s.json" format_version=2 recordings.0.executions.0.end_ns=1004600 \
		recordings.0.cores.0.engines.0.dma_bytes_per_s=7281777777 || return 1
	rm -rf "$tmp/csv" &&
	"$np" summary --csv "$tmp/csv" --top 3 "$prof" >"$tmp/o" || return 1
	has "$tmp/csv: 17 tables of 2 recordings" "$tmp/o" &&
	"$py" "$here/summary_check.py" csv "$tmp/s.json" "$tmp/csv" || return 1
	"$np" summary --ns --brief --top 3 "$prof" >"$tmp/sb.txt" &&
	"$py" "$here/summary_check.py" text "$tmp/s.json" "$tmp/sb.txt" || return 1
	# --brief: one row per core, none of the per-core sections.
	grep -q "^cores (" "$tmp/sb.txt" && ! grep -q "^device \|longest idle" "$tmp/sb.txt" ||
		{ echo "--brief printed a per-core section"; return 1; }
	# --top bounds every ranked table: the ops across cores, and per core
	# the core's idle gaps and its units' idle gaps (all units together).
	"$np" summary --ns --top 2 "$prof" >"$tmp/s2.txt" &&
	"$np" summary --json --top 2 "$prof" >"$tmp/s2.json" &&
	"$py" "$here/summary_check.py" text "$tmp/s2.json" "$tmp/s2.txt" || return 1
	"$py" - "$tmp/s2.json" "$tmp/s2.txt" <<'EOF' || return 1
import json, sys
recs = json.load(open(sys.argv[1]))["recordings"]
xops, gaps, sec = [], [], None
for line in open(sys.argv[2]).read().splitlines():
    if line.startswith("recording "):
        xops.append(0)
    elif line.startswith("ops across cores"):
        sec = "x"
    elif line.startswith("  longest idle gaps"):
        sec = "g"
        gaps.append(0)
    elif sec and line.split()[:1] == ["unit"]:
        continue
    elif sec == "x" and line.startswith("  ") and not line.startswith("   "):
        xops[-1] += 1
    elif sec == "g" and line.startswith("    ") and line.split()[0] != "core":
        gaps[-1] += 1
    elif not line.startswith("    "):
        sec = None
want = [min(2, len(r["ops_across_cores"])) for r in recs]
if xops != want or not any(want):
    sys.exit(f"--top 2: rows of ops across cores per recording {xops}, expected {want}")
if not gaps or max(gaps) > 2 or max(gaps) < 2:
    sys.exit(f"--top 2: unit idle-gap rows per core {gaps}, expected at most 2 (and 2 somewhere)")
EOF
	"$np" summary --json --top 3 "$fx/jitter.ntff" >"$tmp/sj.json" &&
	"$np" summary --ns --top 3 "$fx/jitter.ntff" >"$tmp/sj.txt" &&
	"$py" "$here/summary_check.py" text "$tmp/sj.json" "$tmp/sj.txt" &&
	rm -rf "$tmp/csvj" && "$np" summary --csv "$tmp/csvj" --top 3 "$fx/jitter.ntff" >/dev/null &&
	"$py" "$here/summary_check.py" csv "$tmp/sj.json" "$tmp/csvj"
}
run "summary: text (--ns), CSV and JSON carry the same numbers" t_summary_formats

t_summary_sys_only() {
	mkdir -p "$fx/sysonly" && cp "$prof/ntrace.pb" "$prof/cpu_util.pb" "$fx/sysonly/" &&
	"$np" summary "$fx/sysonly" >"$tmp/s" || return 1
	has "recording $fx/sysonly: a system profile without NTFF files; system trace: 6 host events" "$tmp/s" &&
	count_is 0 '0 files|0 entries' "$tmp/s" &&
	has "host system trace: 6 events; 2 nrt_execute calls, 0 matched to a device execution" "$tmp/s" &&
	"$np" summary --json "$fx/sysonly" >"$tmp/s.json" &&
	check_py summary-json "$tmp/s.json" files=0 recordings.0.host.events=6 \
		recordings.0.host.event_types.0.name=device_exec recordings.0.host.event_types.0.total_ns=4400
}
run "summary of a directory with only a system profile" t_summary_sys_only

t_summary_gap() {
	"$np" summary "$fx/gap.ntff" >"$tmp/s" || return 1
	has "warning: $fx/gap.ntff record 0 (TRACE core 0 engine 0): lost 1 recorded, 3 missing from sequence numbers: entries vanished without being counted as lost" "$tmp/s" &&
	"$np" summary --json "$fx/gap.ntff" >"$tmp/s.json" &&
	check_py summary-json "$tmp/s.json" recordings.0.totals.seq_gaps=3 recordings.0.totals.lost=1 \
		recordings.0.totals.records_with_unexplained_gaps=1 recordings.0.losses.0.explained=false
}
run "summary: a gap larger than the recorded loss is flagged" t_summary_gap
