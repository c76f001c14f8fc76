#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# neuronprof top against the paced simulator, run by tests/run.sh:
#   tests/vm_top.sh BUILD_DIR WORK_DIR
# Boots the Debian kernel in QEMU with the modules (scripts/vm-run.sh),
# loads neuronprof_sim (time_scale 100: programs take their device time) and
# runs `top --batch --count 5` with its defaults beside sim_run, which
# executes 20 programs of 8 iterations (32 instructions, 8 DMA) on core 1
# without subscribing. top drains each ring when it reaches its watermark,
# as record does, so it must lose nothing: every queue line of every sample
# says lost 0 and total lost 0; it must have seen the load (instructions on
# core 1's engines), and an engine with instructions in a sample has a
# nonzero utilisation (summary's definition: its instructions' durations
# over the core's active span). Prints what failed and exits 1, or exits 0.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: vm_top.sh BUILD_DIR WORK_DIR}" && pwd)
work=${2:?usage: vm_top.sh BUILD_DIR WORK_DIR}
np=$build/neuronprof
mkdir -p "$work" || exit 1
out=$work/out

cat >"$work/guest.sh" <<'GUEST'
np=/tool/neuronprof
cd /tmp
modprobe neuronprof_sim || echo "modprobe failed: $?" >/out/errors
$np top --batch --count 5 >/out/top.txt 2>/out/top.err &
tp=$!
n=0
while [ ! -s /out/top.txt ] && [ $n -lt 600 ] && kill -0 $tp 2>/dev/null; do
	sleep 0.1
	n=$((n + 1))
done
/tool/sim_run 1 20 8 32 8 >/out/sim_run.txt 2>/out/sim_run.err &
sp=$!
wait $tp; echo $? >/out/top.rc
wait $sp; echo $? >/out/sim_run.rc
GUEST

rm -rf "$out"
mkdir -p "$out"
bash "$repo/scripts/vm-run.sh" --timeout "${VM_TIMEOUT:-300}" --outdir "$out" \
	--file "$np:/tool/neuronprof" --file "$build/tests/sim_run:/tool/sim_run" \
	--file "$work/guest.sh:/tool/guest.sh" -- sh /tool/guest.sh >"$work/vm-run.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "vm-run exited with $rc:"
	tail -n 40 "$work/vm-run.log"
	exit 1
fi
[ -s "$out/errors" ] && { echo "FAIL: guest: $(cat "$out/errors")"; exit 1; }

python3 - "$out" <<'PY'
import re, sys
out = sys.argv[1]
rc = open(f"{out}/top.rc").read().strip()
text = open(f"{out}/top.txt").read()
err = open(f"{out}/top.err").read()
assert rc == "0", f"top exited with {rc}: {err}"
assert open(f"{out}/sim_run.rc").read().strip() == "0", open(f"{out}/sim_run.err").read()
samples = [s for s in text.split("\n\n") if s.startswith("sample ")]
assert len(samples) == 5, f"{len(samples)} samples:\n{text}"
queues = instr = 0
bad = []
for s in samples:
    core = None
    for line in s.splitlines():
        m = re.match(r"NC(\d+)\s", line)
        if m:
            core = int(m.group(1))
            continue
        m = re.match(r"\s+(\S+)\s+util\s+(\d+)%\s+instr/s\s+(\d+)$", line)
        if m:
            util, ips = int(m.group(2)), int(m.group(3))
            if core == 1:
                instr += ips
            if ips and not util:
                bad.append(f"util 0% beside instr/s {ips}: NC{core} {line.strip()}")
            continue
        m = re.match(r"\s+(core|topsp)\s.*\slost\s+(\d+)\s+total lost\s+(\d+)$", line)
        if m:
            queues += 1
            if int(m.group(2)) or int(m.group(3)):
                bad.append(f"lost: {line.strip()}")
        elif "lost" in line:
            bad.append(f"unparsed: {line}")
print(f"{len(samples)} samples, {queues} queue lines, core 1 instr/s summed {instr}")
assert instr > 0 and queues > 0, f"top saw nothing of the load:\n{text}"
assert not bad, "\n".join(bad[:40]) + f"\n{text[-3000:]}"
PY
