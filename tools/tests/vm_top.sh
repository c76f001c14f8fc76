#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# neuronprof top against the paced simulator, run by tests/run.sh:
#   tests/vm_top.sh BUILD_DIR WORK_DIR
# Boots the Debian kernel in QEMU with the modules (scripts/vm-run.sh),
# loads neuronprof_sim and runs `top --batch --count 5` with its defaults
# beside sim_run, which executes programs on core 1 without subscribing:
# the issue's load (20 programs of 8 iterations, 32 instructions and 8 DMA
# each) with the simulator 5 times faster than its device (time_scale 20),
# and 4 programs of 8 iterations with 1024 instructions at the device's own
# pace (time_scale 100). top drains each ring when it reaches its watermark,
# as record does, so it must lose nothing: every queue line of every sample
# says lost 0 and total lost 0 (a top that drained ten times a second into
# 256 KiB rings lost 5120 and 35776 entries); it must have seen the load
# (instructions on core 1's engines), and an engine with instructions in a
# sample has a nonzero utilisation (summary's definition: its instructions'
# durations over the core's active span); a SIGWINCH does not make a
# --batch top spin (it uses under half a CPU in the idle second after it).
# Prints what failed and exits 1,
# or exits 0.
set -uo pipefail

. "$(dirname "$0")/common.sh"
vm_setup "$@"

# time_scale|sim_run arguments
cases=("20|1 20 8 32 8" "100|1 4 8 1024 8")
{
	guest_prelude
	i=0
	for c in "${cases[@]}"; do
		IFS='|' read -r ts load <<<"$c"
		cat <<GUEST
echo $ts >/sys/module/neuronprof_sim/parameters/time_scale
\$np top --batch --count 5 >/out/top$i.txt 2>/out/top$i.err &
tp=\$!
wait_for -s /out/top$i.txt 600 \$tp
# A resize signal means nothing to --batch: top must keep sleeping in poll().
cut -d' ' -f14,15 /proc/\$tp/stat >/out/top$i.cpu
kill -WINCH \$tp
sleep 1
cut -d' ' -f14,15 /proc/\$tp/stat >>/out/top$i.cpu
/tool/sim_run $load >/out/sim_run$i.txt 2>/out/sim_run$i.err &
sp=\$!
wait \$tp; echo \$? >/out/top$i.rc
wait \$sp; echo \$? >/out/sim_run$i.rc
GUEST
		i=$((i + 1))
	done
} >"$work/guest.sh"

VM_SMP=1 VM_ICOUNT=1 vm_run "$build/tests/sim_run:/tool/sim_run"
# A guest that could not load the simulator has nothing to check.
[ "$failed" = 0 ] || exit 1

i=0
for c in "${cases[@]}"; do
	IFS='|' read -r ts load <<<"$c"
	"$py" - "$out" "$i" "time_scale $ts, sim_run $load" <<'PY' || failed=1
import re, sys
out, i, what = sys.argv[1], sys.argv[2], sys.argv[3]
rc = open(f"{out}/top{i}.rc").read().strip()
text = open(f"{out}/top{i}.txt").read()
err = open(f"{out}/top{i}.err").read()
try:
    assert rc == "0", f"top exited with {rc}: {err}"
    assert open(f"{out}/sim_run{i}.rc").read().strip() == "0", open(f"{out}/sim_run{i}.err").read()
    before, after = (sum(int(v) for v in l.split()) for l in open(f"{out}/top{i}.cpu"))
    ticks = after - before
    # user + system clock ticks (100 a second) of its first second after SIGWINCH
    assert ticks < 50, f"top used {ticks} ticks of CPU in an idle second after SIGWINCH"
    samples = [s for s in text.split("\n\n") if s.startswith("sample ")]
    assert len(samples) == 5, f"{len(samples)} samples:\n{text}"
    queues = instr = 0
    bad = []
    models = {}
    for s in samples:
        core = None
        for line in s.splitlines():
            m = re.match(r"NC(\d+)\s+model\s+(\S+)\s", line)
            if m:
                core = int(m.group(1))
                models.setdefault(core, set()).add(m.group(2))
                continue
            if line.startswith("NC"):
                bad.append(f"core line without its model: {line}")
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
    print(f"{what}: {len(samples)} samples, {queues} queue lines, core 1 instr/s summed {instr}")
    assert instr > 0 and queues > 0, f"top saw nothing of the load:\n{text}"
    # sim_run runs model 77 on core 1; a core that ran nothing shows "-".
    assert "77" in models.get(1, ()), f"core 1's model column: {models.get(1)}"
    assert models.get(0) == {"-"}, f"core 0 ran nothing, its model column: {models.get(0)}"
    assert not bad, "\n".join(bad[:40]) + f"\n{text[-3000:]}"
except AssertionError as e:
    print(f"FAIL: {what}: {e}")
    sys.exit(1)
PY
	i=$((i + 1))
done
exit "$failed"
