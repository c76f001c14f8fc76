#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# neuronprof exporter against the simulator, run by tests/run.sh:
#   tests/vm_exporter.sh BUILD_DIR WORK_DIR
# Boots the Debian kernel in QEMU with the modules (scripts/vm-run.sh),
# loads neuronprof_sim and runs `exporter --interval 200` with a textfile
# and /metrics on 127.0.0.1 beside sim_run, which executes 20 programs of 8
# iterations (32 instructions per engine, 8 DMA) on core 1 without
# subscribing; fetches /metrics with busybox wget, then stops the exporter
# with SIGTERM (a last publication after a flush). On the host:
#   - the exporter exited 0;
#   - `promtool check metrics` accepts the textfile and what /metrics served;
#   - core 1's entries delivered (neuronprof_queue_entries_total summed)
#     equal what the simulator produced on it (sim_run's "produced"), its
#     instructions (neuronprof_engine_instructions_total) the TRACE entries
#     produced, and nothing was lost (every neuronprof_queue_lost_entries_total
#     is 0): the watermark drain keeps up;
#   - core 1's busy time is above zero and no engine's exceeds the core's;
#   - core 1's inferences are the 160 iterations.
# Prints what failed and exits 1, or exits 0.
set -uo pipefail

. "$(dirname "$0")/common.sh"
vm_setup "$@"

{
guest_prelude
cat <<'GUEST'
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
$np exporter --interval 200 --textfile /out/m.prom --listen 127.0.0.1:9474 2>/out/exporter.err &
ep=$!
wait_for -s /out/m.prom 600 $ep
/tool/sim_run 1 20 8 32 8 >/out/sim_run.txt 2>/out/sim_run.err
echo $? >/out/sim_run.rc
sleep 1
wget -q -O /out/http.prom http://127.0.0.1:9474/metrics || echo "wget failed: $?" >>/out/errors
kill -TERM $ep
wait $ep
echo $? >/out/exporter.rc
GUEST
} >"$work/guest.sh"

VM_SMP=1 VM_ICOUNT=1 vm_run "$build/tests/sim_run:/tool/sim_run"
for f in m.prom http.prom; do
	if command -v promtool >/dev/null; then
		promtool check metrics <"$out/$f" >"$work/promtool.$f" 2>&1 ||
			bad "promtool check metrics $f: $(cat "$work/promtool.$f")"
	fi
done
"$py" - "$out" <<'PY' || failed=1
import re, sys
out = sys.argv[1]
LINE = re.compile(r'^([a-z_]+)\{(.*)\} (\S+)$')
def parse(p):
    m = {}
    for line in open(p):
        x = LINE.match(line.strip())
        if x:
            m[(x.group(1), x.group(2))] = float(x.group(3))
    return m
def total(m, name, core):
    return sum(v for (n, l), v in m.items() if n == name and f'core="{core}"' in l)
try:
    rc = open(f"{out}/exporter.rc").read().strip()
    assert rc == "0", f"exporter exited {rc}: {open(out + '/exporter.err').read()}"
    assert open(f"{out}/sim_run.rc").read().strip() == "0", open(f"{out}/sim_run.err").read()
    sim = open(f"{out}/sim_run.txt").read()
    produced = [int(v) for v in re.search(r"produced (\S+)", sim).group(1).split(",")]
    m = parse(f"{out}/m.prom")
    entries = total(m, "neuronprof_queue_entries_total", 1)
    instr = total(m, "neuronprof_engine_instructions_total", 1)
    lost = sum(v for (n, l), v in m.items() if n == "neuronprof_queue_lost_entries_total")
    busy = m.get(("neuronprof_core_busy_seconds_total", 'device="0",core="1"'), 0)
    eng = [v for (n, l), v in m.items()
           if n == "neuronprof_engine_busy_seconds_total" and 'core="1"' in l]
    infer = m.get(("neuronprof_core_inferences_total", 'device="0",core="1"'), -1)
    print(f"core 1: {entries:.0f} entries (produced {sum(produced)}), {instr:.0f} instructions "
          f"(TRACE produced {produced[0]}), lost {lost:.0f}, busy {busy} s, inferences {infer:.0f}")
    assert entries == sum(produced), f"entries delivered {entries}, produced {sum(produced)}"
    assert instr == produced[0], f"instructions {instr}, TRACE produced {produced[0]}"
    assert lost == 0, f"{lost} entries lost"
    assert busy > 0 and eng and max(eng) <= busy, f"core busy {busy}, engines {eng}"
    assert infer == 160, f"inferences {infer}, expected 160"
    h = parse(f"{out}/http.prom")
    assert total(h, "neuronprof_queue_entries_total", 1) > 0, "/metrics showed no entries of core 1"
except (AssertionError, OSError, AttributeError) as e:
    print(f"FAIL: {e}")
    sys.exit(1)
PY
exit "$failed"
