#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The simulator's device-time model against the tool, run by tests/run.sh:
#   tests/vm_model.sh BUILD_DIR WORK_DIR
# Boots the Debian kernel in QEMU with the modules (scripts/vm-run.sh),
# loads neuronprof_sim with a seed, and records several programs with
# `record`'s defaults: the demo's SESSION and MODEL recordings, a DMA-bound
# program, a long throttled one that raises an error, one bound by its TopSPs.
# On the host, model_check.py computes every timestamp from the program and
# the seed (Documentation/simulator.rst, "Device time") and compares it with
# the recorded entries and with every figure of `summary --json`. Then
# record's defaults against the paced simulator (time_scale 100): the
# command of a modest run, a long MODEL capture and a --duration run lose
# nothing; and at time_scale 5 with 1 MiB rings, what is lost is counted
# and reported. The VM has one CPU and counts time in its instructions
# (scripts/vm-run.sh, VM_ICOUNT=1: 2 ns each, a 500 MIPS CPU, slower than
# any host a Neuron device sits in): whether the drainer keeps the device's
# pace is then a property of the code, not of what else the host ran (on
# the host's clock a loaded host starved the drainer's CPU and the loss
# checks failed at random). Each loss run also reports how far the
# simulator fell behind its own pace (debugfs pace_behind_ns).
# Prints what failed and exits 1, or exits 0.
set -uo pipefail

. "$(dirname "$0")/common.sh"
vm_setup "$@"
seed=424242
top=100000

# name|record options|program for model_check.py (record's defaults: 32
# instructions, 8 DMA, model 1). The demo's recordings are those of
# scripts/demo.sh without DEMO_SHORT.
programs=(
	"session|--mode session --cores all --executions 3 --iterations 4 --throttle|{\"model_id\":1,\"executions\":3,\"iterations\":4,\"instructions\":32,\"dma\":8,\"throttle\":true,\"error\":false}"
	"model|--mode model --model-name synthetic_mlp --model-id 2 --cores all --executions 3 --iterations 4|{\"model_id\":2,\"executions\":1,\"iterations\":4,\"instructions\":32,\"dma\":8,\"throttle\":false,\"error\":false}"
	"dma|--cores 2 --executions 3 --iterations 4 --instructions 16 --dma 200|{\"model_id\":1,\"executions\":3,\"iterations\":4,\"instructions\":16,\"dma\":200,\"throttle\":false,\"error\":false}"
	"error|--cores 3 --executions 2 --iterations 7 --instructions 200 --dma 3 --throttle --error --model-id 9|{\"model_id\":9,\"executions\":2,\"iterations\":7,\"instructions\":200,\"dma\":3,\"throttle\":true,\"error\":true,\"failing_exec\":1}"
	"topsp|--cores 5 --executions 2 --iterations 3 --instructions 1 --dma 0|{\"model_id\":1,\"executions\":2,\"iterations\":3,\"instructions\":1,\"dma\":0,\"throttle\":false,\"error\":false}"
)

# name|record options: must lose nothing with the default rings.
losses=(
	"loss_session|--mode session --cores 0 --executions 40 --iterations 50"
	"loss_model|--mode model --cores 0 --iterations 2000"
	"loss_duration|--cores 0 --duration 3"
)
# Past what the drainer sustains: 1 MiB rings and the simulator 20 times
# faster than its device lose about half.
fast="--mode session --cores 0 --executions 40 --iterations 50 --ring-size 1M"

{
	guest_prelude "seed=$seed"
	for p in "${programs[@]}"; do
		IFS='|' read -r name opts _ <<<"$p"
		echo "\$np record $opts -o /out/$name --json >/out/$name.json 2>/out/$name.err; echo \$? >/out/$name.rc"
	done
	# Loss: record's defaults against the paced simulator (time_scale 100),
	# files outside /out; then the simulator 20 times faster than its device.
	echo 'pace=/sys/kernel/debug/neuronprof_sim/0/pace_behind_ns'
	for p in "${losses[@]}"; do
		IFS='|' read -r name opts <<<"$p"
		echo "echo 0 >\$pace"
		echo "\$np record $opts -o /tmp/$name --json >/out/$name.json 2>/out/$name.err; echo \$? >/out/$name.rc; rm -rf /tmp/$name"
		echo "cat \$pace >/out/$name.behind"
	done
	echo 'echo 5 >/sys/module/neuronprof_sim/parameters/time_scale'
	echo "\$np record $fast -o /tmp/fast >/out/fast.txt 2>&1; echo \$? >/out/fast.rc"
} >"$work/guest.sh"

VM_SMP=1 VM_ICOUNT=1 vm_run

for p in "${programs[@]}"; do
	IFS='|' read -r name _ prog <<<"$p"
	if [ "$(cat "$out/$name.rc" 2>/dev/null)" != 0 ]; then
		bad "record $name exited with $(cat "$out/$name.rc" 2>/dev/null): $(cat "$out/$name.err")"
		continue
	fi
	dir=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_dir"])' \
		"$out/$name.json") || { bad "$name: no session_dir"; continue; }
	dir=$out/${dir#/out/}
	"$np" summary --json --top "$top" "$dir" >"$work/$name-summary.json" ||
		{ bad "summary of $name"; continue; }
	dumps=()
	for f in "$dir"/*.ntff; do
		d=$work/$name-$(basename "$f" .ntff).json
		"$np" dump --json "$f" >"$d" || bad "dump of $f"
		dumps+=("$d")
	done
	prog=${prog%\}},\"seed\":$seed\}
	echo "$name: $prog"
	"$py" "$here/model_check.py" "$work/$name-summary.json" "$top" "$prog" "${dumps[@]}" ||
		bad "$name: summary and entries against the device-time model"
done

# Every entry captured: captured = produced per queue type, and none lost.
for p in "${losses[@]}"; do
	IFS='|' read -r name opts <<<"$p"
	behind=$(cat "$out/$name.behind" 2>/dev/null)
	echo "$name: the simulator was at most ${behind:-?} ns behind its pace"
	"$py" - "$out/$name.json" "$(cat "$out/$name.rc" 2>/dev/null)" <<'PY' ||
import json, sys
assert sys.argv[2] == "0", f"record exited with {sys.argv[2]}"
r = json.load(open(sys.argv[1]))
tot = {"captured": 0, "lost": 0, "produced": 0}
for c in r["cores"]:
    for q in c["queue_types"].values():
        for k in tot:
            tot[k] += q[k]
print(f"{sys.argv[1]}: {tot}")
assert tot["produced"] > 0 and tot["lost"] == 0 and tot["captured"] == tot["produced"], tot
PY
		bad "record $opts lost entries (the simulator at most ${behind:-?} ns behind its pace): $(cat "$out/$name.err")"
done
# Beyond what the drainer sustains, what is lost is counted and reported:
# entries + lost = produced, the 372000 the program produces.
line=$(grep -E '^  profile_nc_0_session_0.ntff: NC 0 \(device 0 core 0\), session 0, 40 executions: [0-9]+ entries, [0-9]+ lost, 372000 produced$' "$out/fast.txt")
if [ "$(cat "$out/fast.rc" 2>/dev/null)" != 0 ] || [ -z "$line" ]; then
	bad "record at time_scale 5: $(cat "$out/fast.txt")"
else
	read -r kept lost <<<"$(echo "$line" | sed -E 's/.*: ([0-9]+) entries, ([0-9]+) lost.*/\1 \2/')"
	echo "time_scale 5: $kept entries, $lost lost"
	[ $((kept + lost)) = 372000 ] && [ "$lost" -gt 0 ] || bad "record at time_scale 5: $line"
fi

exit "$failed"
