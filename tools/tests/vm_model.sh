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
# the recorded entries and with every figure of `summary --json`. Prints
# what failed and exits 1, or exits 0.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: vm_model.sh BUILD_DIR WORK_DIR}" && pwd)
work=${2:?usage: vm_model.sh BUILD_DIR WORK_DIR}
np=$build/neuronprof
mkdir -p "$work" || exit 1
out=$work/out
seed=424242
top=100000

failed=0
bad() {
	echo "FAIL: $*"
	failed=1
}

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

{
	echo 'np=/tool/neuronprof'
	echo 'cd /tmp'
	echo "modprobe neuronprof_sim seed=$seed || echo \"modprobe failed: \$?\" >/out/errors"
	for p in "${programs[@]}"; do
		IFS='|' read -r name opts _ <<<"$p"
		echo "\$np record $opts -o /out/$name --json >/out/$name.json 2>/out/$name.err; echo \$? >/out/$name.rc"
	done
} >"$work/guest.sh"

rm -rf "$out"
mkdir -p "$out"
bash "$repo/scripts/vm-run.sh" --timeout "${VM_TIMEOUT:-300}" --outdir "$out" \
	--file "$np:/tool/neuronprof" --file "$work/guest.sh:/tool/guest.sh" \
	-- sh /tool/guest.sh >"$work/vm-run.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "vm-run exited with $rc:"
	tail -n 40 "$work/vm-run.log"
	exit 1
fi
[ -s "$out/errors" ] && bad "guest: $(cat "$out/errors")"

for p in "${programs[@]}"; do
	IFS='|' read -r name _ prog <<<"$p"
	if [ "$(cat "$out/$name.rc" 2>/dev/null)" != 0 ]; then
		bad "record $name exited with $(cat "$out/$name.rc" 2>/dev/null): $(cat "$out/$name.err")"
		continue
	fi
	dir=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session_dir"])' \
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
	python3 "$here/model_check.py" "$work/$name-summary.json" "$top" "$prog" "${dumps[@]}" ||
		bad "$name: summary and entries against the device-time model"
done

exit "$failed"
