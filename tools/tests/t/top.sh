# SPDX-License-Identifier: MIT
#
# The tool's tests: top.
# Sourced by tests/run.sh in its suite(), which gives the helpers (run,
# run_if, skip_test, expect_exit, has, count_is, check_py, summary_sql) and
# the variables (np, gen, build, label, tmp, fx, basic, prof, py, here,
# tools, repo, ko_core, ko_sim); not run on its own.

run "top --batch --json: exit 2" \
	expect_exit 2 "--batch and --json exclude each other" "$np" top --batch --json
run "top without a terminal and without --batch/--json: exit 2" \
	expect_exit 2 "stdout is not a terminal: use --batch or --json" "$np" top
run "top --interval below 100 ms: exit 2" \
	expect_exit 2 "--interval: 50 is out of range" "$np" top --json --interval 50
run "top with an operand: exit 2" expect_exit 2 "" "$np" top --json extra
t_top_n() {
	expect_exit 2 "top: -n: 0 is out of range" "$np" top --json -n 0 &&
	expect_exit 2 "top: --count: 0 is out of range" "$np" top --json --count 0 &&
	expect_exit 2 "option '-n' needs a value" "$np" top --json -n
}
run "top -n N is --count N (as top and perf top take it)" t_top_n


t_record_env() {
	(cd "$tmp" && "$np" record -o "$tmp/recdir" --mode session --cores 0,1 --ring-size 2M \
		--cpu-util --event-types hardware --max-events 1000 -- env) >"$tmp/env" 2>"$tmp/e" ||
		{ cat "$tmp/e"; return 1; }
	has "NEURON_RT_INSPECT_ENABLE=1" "$tmp/env" &&
	has "NEURON_RT_INSPECT_OUTPUT_DIR=$tmp/recdir" "$tmp/env" &&
	has "NEURON_RT_INSPECT_DEVICE_PROFILE=session" "$tmp/env" &&
	has "NEURON_RT_INSPECT_EVENT_FILTER_NC=0,1" "$tmp/env" &&
	has "NEURON_RT_INSPECT_CPU_UTIL=1" "$tmp/env" &&
	has "NEURON_RT_INSPECT_EVENT_FILTER_TYPE=hardware" "$tmp/env" &&
	has "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC=1000" "$tmp/env" &&
	has "NEURON_RT_PROFILE_BUF_TRACE_MB=2" "$tmp/env" &&
	has "NEURON_RT_PROFILE_BUF_TOPSP_ERROR_MB=2" "$tmp/env" &&
	has "env exited with status 0" "$tmp/e"
}
run "record -- CMD: the inspect environment from the options" t_record_env
t_record_range_env() {
	"$np" record -o "$tmp/recdir" --executions 100-110 -- env \
		>"$tmp/env" 2>"$tmp/e" || { cat "$tmp/e"; return 1; }
	has "NEURON_RT_INSPECT_CAPTURE_EXECUTIONS=100-110" "$tmp/env"
}
run "record -- CMD: --executions A-B passes the capture range" t_record_range_env
t_record_iter_env() {
	"$np" record -o "$tmp/recdir" --iterations 2-3 -- env \
		>"$tmp/env" 2>"$tmp/e" || { cat "$tmp/e"; return 1; }
	has "NEURON_RT_INSPECT_CAPTURE_ITERATIONS=2-3" "$tmp/env" &&
	! grep -q "NEURON_RT_INSPECT_CAPTURE_EXECUTIONS" "$tmp/env"
}
run "record -- CMD: --iterations A-B passes the iteration range" t_record_iter_env
run "record: --iterations A-B that ends before it begins" \
	expect_exit 2 "--iterations 3-2: the range ends before it begins" "$np" record --iterations 3-2
run "record -- CMD: --executions A-B with --delay needs SESSION mode" \
	expect_exit 2 "with --delay or --control needs --mode session" \
	"$np" record --executions 1-2 --delay 1 -- true
run "record: --executions A-B that ends before it begins" \
	expect_exit 2 "the range ends before it begins" "$np" record --executions 5-4
run "record: --control takes fifo:CTL[,ACK]" \
	expect_exit 2 "expected fifo:CTL" "$np" record --control ctl -- true
run "record: --control refuses what is not a FIFO" \
	expect_exit 1 "is not a FIFO" "$np" record --control "fifo:$repo/README.md" -- true

# The control page as the command sees it (the page's second word,
# read through the inherited descriptor): --delay -1 starts it off, each
# command of the FIFO flips it before its ack, twice on and off; then
# --delay 0.3 turns it on by itself.
t_record_control() {
	local script out
	rm -f "$tmp/ctl" "$tmp/ack"
	mkfifo "$tmp/ctl" "$tmp/ack" || return 1
	# shellcheck disable=SC2016
	script='v() { od -An -tu8 -j8 -N8 "/dev/fd/$NEURONPROF_CONTROL_FD" | tr -d " "; }
		echo "start $(v)"
		for c in enable disable enable disable; do
			echo $c >"$1"; read -r a <"$2"; echo "$c $a $(v)"
		done'
	out=$("$np" record -o "$tmp/recdir" --delay -1 --control "fifo:$tmp/ctl,$tmp/ack" \
		-- sh -c "$script" sh "$tmp/ctl" "$tmp/ack" 2>"$tmp/e") || { cat "$tmp/e"; return 1; }
	[ "$out" = "$(printf 'start 0\nenable ack 1\ndisable ack 0\nenable ack 1\ndisable ack 0')" ] ||
		{ echo "control page seen: $out"; return 1; }
	# shellcheck disable=SC2016
	script='v() { od -An -tu8 -j8 -N8 "/dev/fd/$NEURONPROF_CONTROL_FD" | tr -d " "; }
		echo "$(v)"; sleep 1.5; echo "$(v)"'
	out=$("$np" record -o "$tmp/recdir" --delay 0.3 -- sh -c "$script" 2>"$tmp/e") ||
		{ cat "$tmp/e"; return 1; }
	[ "$out" = "$(printf '0\n1')" ] || { echo "--delay 0.3: control page seen: $out"; return 1; }
}
run "record -- CMD: --control fifo:CTL,ACK and --delay drive the control page" t_record_control
run "record -- CMD: the command's exit status" \
	expect_exit 3 "sh exited with status 3" "$np" record -o "$tmp/recdir" -- sh -c 'exit 3'
run "record -- CMD: a command that does not exist: 127" \
	expect_exit 127 "cannot run $tmp/nonexistent" "$np" record -o "$tmp/recdir" -- "$tmp/nonexistent"
run "record -- CMD: synthetic options refused" \
	expect_exit 2 "--iterations applies to the synthetic model" "$np" record --iterations 3 -- true
run "record -- CMD: ring size must be a power of two in whole MiB" \
	expect_exit 2 "1536K is not a power of two \(rings are 1M, 2M" "$np" record --ring-size 1536K -- true
run "record -- CMD: the library's parser rejects a bad event type" \
	expect_exit 2 "NEURON_RT_INSPECT_EVENT_FILTER_TYPE: unknown event type 'bogus'" \
	"$np" record --event-types bogus -- true
run "record -- CMD: /dev/null refused as output" \
	expect_exit 2 "'/dev/null' is refused" "$np" record -o /dev/null -- true

# live_check FILE: what top and exporter count of FILE's entries when a ring
# gives them (tests/live_unit, live.c's fold) is what summary --json says of
# FILE: per queue the entries (raw: 32-byte parts) and the lost count, and
# entries + lost is what the queue produced (its last seq + 1); the totals
# of instructions, DMA, DMA bytes, inferences and errors (none on a raw
# device, which nothing decodes; on a decoded one, those that live counts
# as summary does: DMA, DMA bytes, inferences).
live_check() {
	"$build/tests/live_unit" "$1" >"$tmp/lu.json" || return 1
	"$np" summary --json "$1" >"$tmp/lu-sum.json" || return 1
	"$py" - "$tmp/lu.json" "$tmp/lu-sum.json" <<'PY'
import json, sys
live = [json.loads(l) for l in open(sys.argv[1])]
rec = json.load(open(sys.argv[2]))["recordings"][0]
tot = live.pop()["totals"]
qs = {(q["target_kind"], q["target_index"], q["queue_type"], q["engine"]): q for q in live}
bad = []
if "raw_queues" in rec and rec["raw_queues"]:
    want = {}
    for q in rec["raw_queues"]:
        k = (q["target_kind"], q["target_index"], q["queue_type"], q["engine"])
        w = want.setdefault(k, {"entries": 0, "lost": 0})
        w["entries"] += q["entries"]
        w["lost"] += q["lost"]
    if set(want) != set(qs):
        bad.append(f"queues {sorted(qs)} != summary's {sorted(want)}")
    for k, w in want.items():
        g = qs.get(k, {})
        for f in ("entries", "lost"):
            if g.get(f) != w[f]:
                bad.append(f"{k} {f}: live {g.get(f)}, summary {w[f]}")
    if sum(q["entries"] for q in live) != rec["raw_entries"]:
        bad.append(f"entries: live {sum(q['entries'] for q in live)}, summary raw_entries {rec['raw_entries']}")
    names = ("instructions", "dma", "dma_bytes", "inferences", "errors")
    if not any(q["entries"] for q in live):
        bad.append("no raw entries counted at all")
else:
    if sum(q["entries"] for q in live) != rec["entries"]:
        bad.append(f"entries: live {sum(q['entries'] for q in live)}, summary {rec['entries']}")
    names = ("dma", "dma_bytes", "inferences")
for n in names:
    if tot[n] != rec["totals"][n]:
        bad.append(f"{n}: live {tot[n]}, summary {rec['totals'][n]}")
for k, q in qs.items():
    if q["produced"] and q["entries"] + q["lost"] != q["produced"]:
        bad.append(f"{k}: entries {q['entries']} + lost {q['lost']} != produced {q['produced']}")
if bad:
    sys.exit("\n".join(bad))
PY
}
t_live_counts() {
	local f w=$tmp/live-packed

	mkdir -p "$w" || return 1
	live_check "$basic" || return 1
	# Unpacked raw entries (NPROF_DEVICE_CAP_RAW): parts on TRACE and DMA queues.
	live_check "$fx/raw/raw.ntff" || return 1
	for f in index64 byte32 counter128; do
		# Packed records the provider wrote on the rig, and those packed here of
		# the unpacked recording of the same capture.
		live_check "$here/fixtures/raw-record-2/$f.ntff" || return 1
		"$build/tests/pack_raw" "$here/fixtures/raw-record-1/$f.ntff" "$w" "$f.ntff" &&
			live_check "$w/$f.ntff" || return 1
	done
}
run "top and exporter count a ring's entries as summary counts the recording: raw ones (packed or not) in 32-byte parts, nothing decoded; delivered + lost = produced" t_live_counts
