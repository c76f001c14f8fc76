#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Capture ranges of record on the simulator, run by tests/run.sh:
#   tests/vm_capture.sh BUILD_DIR WORK_DIR
# Boots the Debian kernel in QEMU with the modules (scripts/vm-run.sh),
# loads neuronprof_sim and runs
#  - record --executions 200 --executions 100-110 on cores 0 and 1: each
#    core's file holds exactly 11 executions (record's read-back: entries
#    plus lost equal what the simulator produced for executions 100-110
#    only; summary counts 11 executions per core from the entries) and
#    records the range 100-110, which summary --json reports; the same in
#    MODEL mode on core 2 (the model's file holds executions 100-110);
#  - record --delay -1 --control fifo:CTL,ACK --duration 3 on core 0 while
#    the guest script enables and disables capture twice through the FIFO,
#    each command acknowledged: two files, whose ranges are two disjoint
#    stretches of executions with executions left out before, between and
#    after them (the disabled stretches), and whose executions add up to
#    what record counted as captured (its read-back checked every entry
#    against the simulator for exactly those executions);
#  - record --iterations 6 --iterations 2-4 on core 0 (and the same with
#    --executions 3-4 in MODEL mode on core 3): record's read-back checks
#    that each file holds exactly the simulator's notifications of
#    iterations 2-4 and that entries, losses and trimmed sequence numbers
#    add up to what it produced; summary reports the range and no loss.
# Prints what failed and exits 1, or exits 0.
set -uo pipefail

. "$(dirname "$0")/common.sh"
vm_setup "$@"

{
	guest_prelude
	cat <<'EOF'
$np record --cores 0,1 --executions 200 --executions 100-110 --iterations 1 --instructions 2 \
	--dma 1 -o /out/range --json >/out/range.json 2>/out/range.err
echo $? >/out/range.rc
$np summary --json /out/range >/out/range-summary.json 2>/out/range-summary.err
$np record --mode model --cores 2 --executions 200 --executions 100-110 --iterations 1 \
	--instructions 2 --dma 1 -o /out/mrange --json >/out/mrange.json 2>/out/mrange.err
echo $? >/out/mrange.rc
$np summary --json /out/mrange >/out/mrange-summary.json 2>/out/mrange-summary.err
mkfifo /tmp/ctl /tmp/ack
$np record --cores 0 --delay -1 --control fifo:/tmp/ctl,/tmp/ack --duration 3 --iterations 1 \
	--instructions 2 --dma 1 -o /tmp/ctlrec --json >/out/ctl.json 2>/out/ctl.err &
rp=$!
sleep 0.5
for c in enable disable enable disable; do
	echo $c >/tmp/ctl
	read -r a </tmp/ack
	echo "$c $a" >>/out/ctl.acks
	sleep 0.4
done
wait $rp; echo $? >/out/ctl.rc
$np summary --json /tmp/ctlrec >/out/ctl-summary.json 2>/out/ctl-summary.err
$np record --cores 0 --executions 5 --iterations 6 --iterations 2-4 --instructions 2 --dma 1 \
	-o /out/iters --json >/out/iters.json 2>/out/iters.err
echo $? >/out/iters.rc
$np summary --json /out/iters >/out/iters-summary.json 2>/out/iters-summary.err
$np record --mode model --cores 3 --executions 5 --executions 3-4 --iterations 6 \
	--iterations 2-4 --instructions 2 --dma 1 -o /out/miters --json >/out/miters.json 2>/out/miters.err
echo $? >/out/miters.rc
$np summary --json /out/miters >/out/miters-summary.json 2>/out/miters-summary.err
EOF
} >"$work/guest.sh"

vm_run

exited_0 range mrange ctl iters miters
[ "$(cat "$out/ctl.acks" 2>/dev/null)" = "$(printf 'enable ack\ndisable ack\nenable ack\ndisable ack')" ] ||
	bad "control FIFO acks: $(cat "$out/ctl.acks" 2>/dev/null)"

PYTHONPATH="$here" "$py" - "$out" <<'PY' || bad "capture ranges (above)"
import json, os, sys
from vm_check import done, fail
out = sys.argv[1]

rec = json.load(open(os.path.join(out, "range.json")))
for c in rec["cores"]:
    if c["executions"] != 11 or c["files"] != 1:
        fail(f"range: core {c['vnc']}: {c['executions']} executions in {c['files']} files, expected 11 in 1")
s = json.load(open(os.path.join(out, "range-summary.json")))
r = s["recordings"][0]
got = sorted((x["core"], x["first_execution"], x["last_execution"]) for x in r.get("capture_ranges", []))
if got != [(0, 100, 110), (1, 100, 110)]:
    fail(f"range: summary's capture_ranges {got}")
execs = {c["core"]: c["executions"] for c in r["cores"]}
if execs != {0: 11, 1: 11}:
    fail(f"range: summary counts executions {execs}, expected 11 per core")
print(f"range: cores {sorted(execs)} hold executions 100-110, 11 each")

rec = json.load(open(os.path.join(out, "mrange.json")))
c = rec["cores"][0]
if c["executions"] != 11 or c["files"] != 1:
    fail(f"MODEL range: {c['executions']} executions in {c['files']} files, expected 11 in 1")
r = json.load(open(os.path.join(out, "mrange-summary.json")))["recordings"][0]
got = [(x["core"], x["first_execution"], x["last_execution"]) for x in r.get("capture_ranges", [])]
if got != [(2, 100, 110)] or [c["executions"] for c in r["cores"]] != [11]:
    fail(f"MODEL range: capture_ranges {got}, executions {[c['executions'] for c in r['cores']]}")
print("MODEL range: the model's file on core 2 holds executions 100-110")

ctl = json.load(open(os.path.join(out, "ctl.json")))
core = ctl["cores"][0]
s = json.load(open(os.path.join(out, "ctl-summary.json")))
wins = sorted((x["first_execution"], x["last_execution"])
              for x in s["recordings"][0].get("capture_ranges", []))
if core["files"] != 2 or len(wins) != 2:
    fail(f"control: {core['files']} files, capture_ranges {wins}: expected two windows")
else:
    (a1, b1), (a2, b2) = wins
    if not (1 < a1 <= b1 < a2 - 1 and a2 <= b2):
        fail(f"control: windows {wins} are not two disjoint stretches with executions left out")
    if (b1 - a1 + 1) + (b2 - a2 + 1) != core["executions"]:
        fail(f"control: windows {wins} hold {(b1 - a1 + 1) + (b2 - a2 + 1)} executions, "
             f"record captured {core['executions']}")
    print(f"control: windows {wins}, {core['executions']} executions captured")

for t, want in (("iters", [(0, None, 2, 4)]), ("miters", [(3, (3, 4), 2, 4)])):
    rec = json.load(open(os.path.join(out, t + ".json")))
    qt = rec["cores"][0]["queue_types"]
    cap = sum(v["captured"] for v in qt.values())
    trim = sum(v["trimmed"] for v in qt.values())
    prod = sum(v["produced"] for v in qt.values())
    # Every iteration gives each queue the same notifications: 3 of 6 kept.
    if not cap or cap + trim != prod or sum(v["lost"] for v in qt.values()) or 2 * cap != prod:
        fail(f"{t}: captured {cap}, trimmed {trim}, produced {prod}: expected half kept, none lost")
    r = json.load(open(os.path.join(out, t + "-summary.json")))["recordings"][0]
    got = [(x["core"], (x["first_execution"], x["last_execution"]) if "first_execution" in x
            else None, x["first_iteration"], x["last_iteration"])
           for x in r.get("capture_ranges", [])]
    if got != want or r.get("losses"):
        fail(f"{t}: capture_ranges {got}, losses {r.get('losses')}")
    print(f"{t}: {cap} of {prod} notifications kept (iterations 2-4), {trim} trimmed, none lost")
done()
PY

exit $failed
