#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The `demo` layer of `make check`: runs the short demo
# (DEMO_SHORT=1 scripts/demo.sh: 2 NeuronCores, 2 executions of 2
# iterations, SESSION and MODEL recordings with the system profile) into a
# temporary directory and checks what it wrote and printed:
#  - the session directories hold exactly the expected files;
#  - the summaries agree with the simulator's formulas and with each other
#    (a SESSION file covers every execution, a MODEL file the first one);
#  - the exports decode (Python's json; protoc for the Perfetto trace) and
#    count the inferences, executions and host events both recordings made;
#  - the held-out validator (tools/tests/heldout) decodes both timelines
#    with no problem;
#  - report.html carries the numbers of summary --json of the demo's output
#    (tools/tests/report_check.py) and, in headless Chromium when it is
#    installed, renders without a console error into every table (its
#    screenshot: tools/build/test-output/demo-report.png);
#  - the demo printed the recordings, the paths and the ui.perfetto.dev hint.
# Skipped when QEMU is missing or NPROF_SKIP_VM=1. The last line is
# "N passed, N failed[, N skipped]"; the exit status is non-zero on failure.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
np=$repo/tools/build/neuronprof
cores=2 executions=2 iterations=2
model=synthetic_mlp

. "$repo/tests/lib.sh"

why=
if [ "${NPROF_SKIP_VM:-0}" = 1 ]; then
	why="NPROF_SKIP_VM=1"
elif ! command -v "${QEMU:-qemu-system-x86_64}" >/dev/null; then
	why="no QEMU"
fi
if [ -n "$why" ]; then
	skipped "make demo DEMO_SHORT=1" "$why"
	finish
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nprof-demo-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
out=$tmp/demo-output
log=$tmp/demo.log
py=python3

if DEMO_SHORT=1 DEMO_OUT=$out bash "$repo/scripts/demo.sh" >"$log" 2>&1; then
	ok "make demo DEMO_SHORT=1 exits 0"
else
	not_ok "make demo DEMO_SHORT=1 exits 0" "$(tail -n 40 "$log")"
	finish
fi

# field FILE PATH: one value of a JSON document ("totals.lost", "cores.0.entries").
field() {
	"$py" -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v=v[int(k)] if isinstance(v,list) else v[k]
print(v)' "$1" "$2"
}

# The one session directory <kind>/<instance>-<pid>/<session_init_ns> and
# exactly the files it must hold.
session_dir() {
	local kind=$1 d
	shift
	d=$(find "$out/$kind" -mindepth 2 -maxdepth 2 -type d)
	if [ "$(printf '%s\n' "$d" | grep -c .)" -ne 1 ] ||
	   ! [[ $d =~ ^$out/$kind/[A-Za-z0-9._-]+-[0-9]+/[0-9]+$ ]]; then
		not_ok "$kind: one session directory <instance>-<pid>/<session_init_ns>" "found: $d"
		return 1
	fi
	local got want
	got=$(cd "$d" && ls | sort | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		ok "$kind: $d holds $*"
	else
		not_ok "$kind: session directory holds the expected files" "got:  $got" "want: $want"
	fi
}

sysprof=(ntrace.pb trace_info.pb cpu_util.pb host_mem.pb)
session_dir session profile_nc_0_session_0.ntff profile_nc_1_session_0.ntff "${sysprof[@]}"
session_dir model "${model}_vnc_0.ntff" "${model}_vnc_1.ntff" "${sysprof[@]}"

for f in profile.pftrace profile.json; do
	if [ -s "$out/$f" ]; then ok "$f written"; else not_ok "$f written"; fi
done

# expect NAME GOT WANT
expect() {
	if [ "$2" = "$3" ]; then ok "$1 = $3"; else not_ok "$1" "got $2, expected $3"; fi
}

"$np" summary --json "$out/session" >"$tmp/session.json" 2>"$tmp/err" &&
"$np" summary --json "$out/model" >"$tmp/model.json" 2>>"$tmp/err" ||
	not_ok "summary --json of both recordings" "$(cat "$tmp/err")"
if [ -s "$tmp/session.json" ] && [ -s "$tmp/model.json" ]; then
	s=$tmp/session.json m=$tmp/model.json
	expect "session: inferences (cores x executions x iterations)" \
		"$(field "$s" recordings.0.totals.inferences)" $((cores * executions * iterations))
	expect "model: inferences (cores x iterations, first execution only)" \
		"$(field "$m" recordings.0.totals.inferences)" $((cores * iterations))
	expect "session: throttle events (--throttle)" "$(field "$s" recordings.0.totals.throttle_events)" \
		$((cores * executions * iterations))
	expect "model: throttle events" "$(field "$m" recordings.0.totals.throttle_events)" 0
	for f in "$s" "$m"; do
		k=$(basename "$f" .json)
		expect "$k: lost, sequence gaps, failed inferences" \
			"$(field "$f" recordings.0.totals.lost) $(field "$f" recordings.0.totals.seq_gaps) $(field "$f" recordings.0.totals.inferences_failed)" "0 0 0"
	done
	# One model execution of 2 iterations: 186 entries per iteration
	# (Documentation/simulator.rst); SESSION adds the THROTTLE entries.
	for c in 0 1; do
		me=$(field "$m" recordings.0.cores.$c.entries) se=$(field "$s" recordings.0.cores.$c.entries)
		expect "core $c: model entries (2 iterations x 186)" "$me" $((iterations * 186))
		expect "core $c: session entries = executions x (model entries + throttle)" \
			"$se" $((executions * (me + iterations)))
	done
	# What the demo printed agrees with the files.
	me=$(field "$m" recordings.0.cores.0.entries)
	if grep -Eq "^  ${model}_vnc_0.ntff: NC 0 \(device 0 core 0\), model $model \(id 2\), first of $executions executions: $me entries, 0 lost, $me produced$" "$log"; then
		ok "the MODEL record line of core 0 says $me entries"
	else
		not_ok "the MODEL record line of core 0" "$(grep "_vnc_0.ntff" "$log")"
	fi
	se=$(field "$s" recordings.0.cores.1.entries)
	if grep -Eq "^  profile_nc_1_session_0.ntff: NC 1 \(device 0 core 1\), session 0, $executions executions: $se entries, 0 lost, $se produced$" "$log"; then
		ok "the SESSION record line of core 1 says $se entries"
	else
		not_ok "the SESSION record line of core 1" "$(grep "profile_nc_1" "$log")"
	fi
fi

# The printed summaries fit a screen (--brief: a row per core) and carry
# summary --json's numbers (the cross-core op table included); the closing
# query prints each recording's own 3 ops with the most time, equal to its
# summary's ops across cores, never the recordings added together.
for kind in SESSION MODEL; do
	n=$(awk -v k="==> summary of the $kind recording" 'index($0, k) == 1 { on = 1; next }
		on && /^==> / { exit } on { n++ } END { print n + 0 }' "$log")
	if [ "$n" -gt 0 ] && [ "$n" -le 50 ]; then
		ok "the $kind summary fits one screen ($n lines)"
	else
		not_ok "the $kind summary fits one screen" "$n lines"
	fi
done
for kind in session model; do
	"$np" summary --json --top 5 "$out/$kind" >"$tmp/$kind-5.json" &&
	"$np" summary --ns --brief --top 5 "$out/$kind" >"$tmp/$kind-b.txt" &&
	"$py" "$repo/tools/tests/summary_check.py" text "$tmp/$kind-5.json" "$tmp/$kind-b.txt" \
		>"$tmp/err" 2>&1 &&
	[ "$(grep -c '^  [0-9]:[a-z]* *0x' "$tmp/$kind-b.txt")" -eq 0 ] &&
	[ "$(grep -Ec '^  [0-9]:[a-z]+ +[a-z][a-z0-9_.]* +0x[0-9a-f]{6} ' "$tmp/$kind-b.txt")" -ge 3 ] &&
		ok "$kind: summary --brief (rows per core, ops across cores named by op) = summary --json" ||
		not_ok "$kind: summary --brief = summary --json, ops named" \
			"$(head -n 10 "$tmp/err")" "$(grep -E '^  [0-9]:' "$tmp/$kind-b.txt" | head -n 5)"
done
# The op table shows the simulator's names (Documentation/simulator.rst, Op
# names), as the device gave them, computed here from the opcode: family
# k % n of engine e's n families.
for kind in session model; do
	if "$py" - "$tmp/$kind-5.json" >"$tmp/err" 2>&1 <<'EOF'
import json, sys
FAM = [["matmult", "matmult", "matmult", "transpose"],
       ["tensor_tensor", "tensor_scalar", "tensor_reduce", "tensor_copy", "bn_stats", "bn_aggr",
        "tensor_tensor_scan", "select_reduce"],
       ["activation", "activation", "activation_reduce", "tensor_scalar"],
       ["iota", "memset", "affine_select", "local_gather", "range_select", "tensor_copy",
        "tensor_tensor", "tensor_scalar"],
       ["sync_wait", "sync_signal"]]
rec = json.load(open(sys.argv[1]))["recordings"][0]
bad, n = [], 0
for c in rec["cores"]:
    for u in c["engines"]:
        for o in u["ops"]:
            code = int(o["code"], 16)
            e, k = (code >> 8) - 1, code & 0xff
            want = FAM[min(e, 4)][k % len(FAM[min(e, 4)])]
            n += 1
            if o["op"] != want or e != u["engine"] or o["code"] != "0x%06x" % code:
                bad.append(f"engine {u['engine']} {o['code']}: {o['op']!r}, expected {want!r}")
    for u in c["topsps"]:
        for o in u["ops"]:
            n += 1
            if (o["op"], o["code"]) != ("collective", "0x007f01"):
                bad.append(f"topsp {u['topsp']} {o['code']}: {o['op']!r}")
print("\n".join(bad[:10]) if bad else "", end="")
sys.exit(1 if bad or not n else 0)
EOF
	then
		ok "$kind: every op of summary --json named after its NKI family, the code 0x000102"
	else
		not_ok "$kind: ops named after their NKI families" "$(head -n 10 "$tmp/err")"
	fi
done
if ! command -v sqlite3 >/dev/null; then
	skipped "the closing query per recording" "no sqlite3"
else
	for kind in session model; do
		want=$("$py" -c 'import json,sys
x=json.load(open(sys.argv[1]))["recordings"][0]["ops_across_cores"][:3]
print(" ".join("%d:%s %s/%d/%d" % (i + 1, o["op"] or "-", o["code"], o["count"], o["total_ns"]) for i, o in enumerate(x)))' "$tmp/$kind-5.json")
		got=$(awk -v k="$kind" '/^==> both recordings as an SQLite/ { on = 1; next }
			on && /^==> / { exit }
			on && $1 == k && $2 ~ /^[0-9]+$/ { printf "%s%s:%s %s/%s/%s", n++ ? " " : "", $2, $5, $6, $7, $8 }' "$log")
		expect "the closing query: $kind's 3 ops with the most time (rank:op code/count/total)" "$got" "$want"
	done
fi

# The timeline: both recordings, their host processes and host events.
# Host events per recording (Documentation/tool.rst, "record"):
# inspect_begin and _stop; device_open of the one device; per core
# model_load, nrt_unload, profile_start, profile_stop, profile_serialize
# (one capture per core in either mode) and per queue of the core one
# nq_subscribe and one nq_drain; per execution nrt_execute and sim_exec. A
# trn2 core has 24 queues: TRACE, EVENT and DMA on each of 5 engines, ERROR,
# INFER_STATUS and THROTTLE, and 3 on each of its 2 TopSPs. Nothing fails
# and the rings lose nothing.
queues=$((3 * 5 + 3 + 2 * 3))
host_session=$((2 + 1 + cores * (5 + 2 * queues) + cores * executions * 2))
host_model=$host_session
if "$py" - "$out/profile.json" >"$tmp/counts" 2>"$tmp/err" <<'EOF'
import collections, json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = collections.Counter(e["name"] for e in ev if e["ph"] == "X")
procs = sum(1 for e in ev if e["ph"] == "M" and e["name"] == "process_name")
# The SESSION files do not name the model (model 2 iteration); the MODEL
# files do (synthetic_mlp iteration).
infer = sum(v for k, v in names.items() if k.endswith(" iteration") and
            (k.startswith("model ") or k == "synthetic_mlp iteration"))
named = names["synthetic_mlp iteration"]
sub = collections.Counter(e["args"].get("core") for e in ev
                          if e["ph"] == "X" and e["name"] == "nq_subscribe")
print(names["nrt_execute"], names["sim_exec"], names["profile_start"], infer, procs,
      names["device_open"], names["nq_drain"], sub[0], sub[1], len(sub), named,
      names["matmult"] > 0)
EOF
then
	read -r nrt sim start infer procs dev drain sub0 sub1 subcores named matmult <"$tmp/counts"
	expect "profile.json: nrt_execute slices (2 recordings)" "$nrt" $((2 * cores * executions))
	expect "profile.json: sim_exec slices" "$sim" $((2 * cores * executions))
	expect "profile.json: profile_start slices (a capture per core, 2 recordings)" "$start" \
		$((2 * cores))
	expect "profile.json: device_open slices (1 device, 2 recordings)" "$dev" 2
	expect "profile.json: nq_drain slices (2 recordings)" "$drain" $((2 * cores * queues))
	expect "profile.json: nq_subscribe slices on core 0, core 1, cores" "$sub0 $sub1 $subcores" \
		"$((2 * queues)) $((2 * queues)) $cores"
	expect "profile.json: inference slices" "$infer" \
		$((cores * executions * iterations + cores * iterations))
	expect "profile.json: processes (2 cores, 2 host processes)" "$procs" $((cores + 2))
	expect "profile.json: inference slices named by the MODEL files' model name" "$named" \
		$((cores * iterations))
	expect "profile.json: instruction slices named by op (matmult)" "$matmult" True
else
	not_ok "profile.json parses" "$(cat "$tmp/err")"
fi
if grep -Fq "profile.pftrace: system profile of 2 directories: $((host_session + host_model)) host events" "$log"; then
	ok "the export counted $((host_session + host_model)) host events"
else
	not_ok "host events of the export" "$(grep "host events" "$log")"
fi
if protoc --decode=perfetto.protos.Trace -I"$repo/proto" "$repo/proto/perfetto_trace.proto" \
	<"$out/profile.pftrace" >"$tmp/pf.txt" 2>"$tmp/err"; then
	# Processes: the device (its cores are tracks under it) and 2 host processes.
	expect "profile.pftrace: track descriptors of processes" \
		"$(grep -c '^    process {' "$tmp/pf.txt")" 3
else
	not_ok "profile.pftrace decodes with protoc" "$(head -n 5 "$tmp/err")"
fi

# The held-out validator (tools/tests/heldout, no code shared with the
# exporters) decodes both timelines of the demo with no problem.
v=$repo/tools/tests/heldout/validate_trace.py
mkdir -p "$tmp/heldout-pb2"
if protoc --python_out="$tmp/heldout-pb2" -I"$repo/tools/tests/heldout" \
	"$repo/tools/tests/heldout/perfetto_published.proto" 2>"$tmp/err" &&
   /usr/bin/python3 "$v" perfetto "$out/profile.pftrace" "$tmp/heldout-pb2" >"$tmp/hv" 2>&1; then
	ok "held-out validator: $(tail -n 1 "$tmp/hv")"
else
	not_ok "held-out validator of profile.pftrace" "$(head -n 20 "$tmp/hv" "$tmp/err" 2>/dev/null)"
fi
if /usr/bin/python3 "$v" json "$out/profile.json" >"$tmp/hv" 2>&1; then
	ok "held-out validator: $(tail -n 1 "$tmp/hv")"
else
	not_ok "held-out validator of profile.json" "$(head -n 20 "$tmp/hv")"
fi

# The HTML page of both recordings: summary's numbers, and in a browser.
"$np" summary --json "$out" >"$tmp/all.json" 2>"$tmp/err" || not_ok "summary --json of the demo" "$(cat "$tmp/err")"
if [ -s "$out/report.html" ] &&
   "$py" "$repo/tools/tests/report_check.py" data "$out/report.html" "$tmp/all.json" 10 >"$tmp/err" 2>&1; then
	ok "report.html: the data and plots equal summary --json of both recordings"
else
	not_ok "report.html: the data and plots equal summary --json of both recordings" "$(head -n 20 "$tmp/err")"
fi
if ! command -v chromium >/dev/null; then
	skipped "report.html in headless Chromium" "no chromium (scripts/deps.sh installs Debian's)"
else
	shots=$repo/tools/build/test-output
	mkdir -p "$shots" "$tmp/chromium"
	flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
	       --disable-component-update --disable-sync --no-first-run
	       --user-data-dir="$tmp/chromium")
	if timeout 120 chromium "${flags[@]}" --enable-logging=stderr --v=0 \
		--dump-dom "file://$out/report.html" >"$tmp/dom.html" 2>"$tmp/chr.err" &&
	   ! grep -E "Uncaught|ERROR:CONSOLE|CONSOLE\([0-9]+\)" "$tmp/chr.err" >"$tmp/err" &&
	   "$py" "$repo/tools/tests/report_check.py" dom "$tmp/dom.html" "$out/report.html" >>"$tmp/err" 2>&1 &&
	   timeout 120 chromium "${flags[@]}" --hide-scrollbars --window-size=1100,2400 \
		--screenshot="$shots/demo-report.png" "file://$out/report.html" >/dev/null 2>&1 &&
	   [ -s "$shots/demo-report.png" ]; then
		ok "report.html in headless Chromium: no console error, every table built ($shots/demo-report.png)"
	else
		not_ok "report.html in headless Chromium" "$(head -n 20 "$tmp/err")"
	fi
fi

if grep -Fq "Open $out/profile.pftrace at https://ui.perfetto.dev" "$log" &&
   grep -Fq "timeline:  $out/profile.pftrace (Perfetto), $out/profile.json (Chrome JSON)" "$log"; then
	ok "the demo printed the paths and the ui.perfetto.dev hint"
else
	not_ok "the demo printed the paths and the ui.perfetto.dev hint" "$(tail -n 4 "$log")"
fi

finish
