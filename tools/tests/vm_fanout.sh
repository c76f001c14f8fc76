#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# record, top and exporter at once on the same queues, and rings refused up
# front, run by tests/run.sh:
#   tests/vm_fanout.sh BUILD_DIR WORK_DIR
# Boots the Debian kernel in QEMU (1 GiB, scripts/vm-run.sh) with the
# modules and neuronprof_sim, then:
#  - ring memory: `record --ring-size 64M --cores 0` (24 rings, 1.5 GiB),
#    `record --ring-size 1G --cores 0` (above the device's maximum of 64M)
#    and `top --ring-size 64M` end with exit status 1 and a message naming
#    the total (or the ring) and the limit, never an OOM kill (137);
#  - three subscribers per queue: `exporter --textfile` and `top --json` are
#    started, then `record --cores 0-1 --executions 5` runs on the same cores
#    (the issue's command), then top and exporter end with SIGTERM after a
#    final drain. Each says delivered + lost = produced for itself: record's
#    captured + lost equals what the device produced per core and type, and
#    top's (total_entries + total_lost) and the exporter's (entries_total +
#    lost_entries_total) over every queue equal the same total; record loses
#    nothing with the other two attached;
#  - a freed queue is taken back: 8 `top --ring-size 4K` fill every queue,
#    an exporter started then publishes neuronprof_queue_captured_elsewhere
#    1 for every queue and names no holder as an error; once one top is
#    stopped, its next publications say 0 for every queue.
# Prints what failed and exits 1, or exits 0.
set -uo pipefail

. "$(dirname "$0")/common.sh"
vm_setup "$@"

{
	guest_prelude
	cat <<'GUEST'
# -- ring memory refused up front
$np record -o /out/r64 --ring-size 64M --cores 0 >/out/r64.txt 2>/out/r64.err
echo $? >/out/r64.rc
$np record -o /out/r1g --ring-size 1G --cores 0 >/out/r1g.txt 2>/out/r1g.err
echo $? >/out/r1g.rc
$np top --json --count 1 --ring-size 64M >/out/t64.txt 2>/out/t64.err
echo $? >/out/t64.rc
grep MemAvailable /proc/meminfo >/out/meminfo

# -- record, top and exporter at once
$np exporter --listen none --textfile /out/live.prom --interval 500 2>/out/exp.err &
ep=$!
$np top --json --interval 500 >/out/top.json 2>/out/top.err &
tp=$!
wait_for -s /out/live.prom 600 $ep
wait_for -s /out/top.json 600 $tp
$np record -o /out/rec --cores 0-1 --executions 5 --json >/out/rec.json 2>/out/rec.err
echo $? >/out/rec.rc
sleep 1
kill -TERM $tp $ep
wait $tp; echo $? >/out/top.rc
wait $ep; echo $? >/out/exp.rc
cp /out/live.prom /out/live.final.prom

# -- a full queue taken back once freed
pids=
for i in 1 2 3 4 5 6 7 8; do
	$np top --json --interval 1000 --ring-size 4K >/out/full$i.json 2>/out/full$i.err &
	pids="$pids $!"
	wait_for -s /out/full$i.json 600 $!
done
$np exporter --listen none --textfile /out/full.prom --interval 300 2>/out/full-exp.err &
ep=$!
wait_for -s /out/full.prom 600 $ep
sleep 1
cp /out/full.prom /out/full.before.prom
set -- $pids
kill -TERM $1
wait $1
sleep 2
cp /out/full.prom /out/full.after.prom
kill -TERM $ep $pids
wait
GUEST
} >"$work/guest.sh"

VM_SMP=1 VM_ICOUNT=1 VM_TIMEOUT=${VM_TIMEOUT:-600} vm_run
[ "$failed" = 0 ] || exit 1

"$py" - "$out" <<'PY' || failed=1
import json, re, sys
out = sys.argv[1]
rd = lambda n: open(f"{out}/{n}").read()
bad = []

# ring memory
for name, want in (("r64", r"24 rings take 1\.5 GiB, more than .* \(\d+(\.\d)? MiB: 1/2 of MemAvailable"),
                   ("r1g", r"a 1 GiB ring is larger than the device takes \(max_ring_size 64 MiB\); use --ring-size 64M or less"),
                   ("t64", r"\d+ rings take \d+(\.\d)? GiB, more than")):
    rc, err = rd(f"{name}.rc").strip(), rd(f"{name}.err")
    if rc != "1" or not re.search(want, err):
        bad.append(f"{name}: exit {rc}, stderr: {err.strip()}")
    else:
        print(f"{name}: refused: {err.strip()}")

# three at once: record
if rd("rec.rc").strip() != "0":
    bad.append(f"record exited {rd('rec.rc').strip()}: {rd('rec.err')}")
else:
    rec = json.loads(rd("rec.json"))
    produced = 0
    for c in rec["cores"]:
        for t, v in c["queue_types"].items():
            produced += v["produced"]
            if v["captured"] + v["lost"] != v["produced"]:
                bad.append(f"record core {c['core']} {t}: captured {v['captured']} + lost {v['lost']} != produced {v['produced']}")
            if v["lost"]:
                bad.append(f"record core {c['core']} {t} lost {v['lost']} beside top and exporter")
    print(f"record: produced {produced} on cores 0-1")
    # top: its last sample, every queue of the device (only cores 0-1 ran)
    if rd("top.rc").strip() != "0":
        bad.append(f"top exited {rd('top.rc').strip()}: {rd('top.err')}")
    samples = [json.loads(l) for l in rd("top.json").splitlines() if l.strip()]
    last = samples[-1]
    busy = [q for q in last["queues"] if q["busy"]]
    got = sum(q["total_entries"] + q["total_lost"] for q in last["queues"])
    print(f"top: {len(samples)} samples, delivered + lost {got}, busy queues {len(busy)}")
    if busy or got != produced:
        bad.append(f"top: delivered + lost {got} != produced {produced} (busy {len(busy)})")
    # exporter: its final publication
    if rd("exp.rc").strip() != "0":
        bad.append(f"exporter exited {rd('exp.rc').strip()}: {rd('exp.err')}")
    prom = rd("live.final.prom")
    val = lambda fam: sum(float(m.group(1)) for m in re.finditer(rf"^{fam}\{{[^}}]*\}} (\S+)$", prom, re.M))
    got = val("neuronprof_queue_entries_total") + val("neuronprof_queue_lost_entries_total")
    print(f"exporter: delivered + lost {got:.0f}, captured elsewhere {val('neuronprof_queue_captured_elsewhere'):.0f}")
    if got != produced or val("neuronprof_queue_captured_elsewhere"):
        bad.append(f"exporter: delivered + lost {got:.0f} != produced {produced}")

# a full queue taken back
before, after = rd("full.before.prom"), rd("full.after.prom")
cap = lambda p: [float(v) for v in re.findall(r"^neuronprof_queue_captured_elsewhere\{[^}]*\} (\S+)$", p, re.M)]
b, a = cap(before), cap(after)
err = rd("full-exp.err")
print(f"full queues: captured elsewhere before {sum(b):.0f}/{len(b)}, after {sum(a):.0f}/{len(a)}")
if not b or sum(b) != len(b):
    bad.append(f"exporter beside 8 tops: captured_elsewhere {b}; stderr {err}")
if not a or sum(a) != 0:
    bad.append(f"exporter after one top left: captured_elsewhere {a}")
if "already have as many subscribers" not in err:
    bad.append(f"exporter did not say why it waits: {err}")

if bad:
    print("FAIL:\n" + "\n".join(bad))
    sys.exit(1)
PY
exit "$failed"
