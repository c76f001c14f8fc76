#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Bounded recordings of record -- CMD on the simulator, run by tests/run.sh:
#   tests/vm_limits.sh BUILD_DIR WORK_DIR
# Boots the Debian kernel in QEMU with the modules (scripts/vm-run.sh),
# loads neuronprof_sim and records tests/model_run (a runtime's inspect
# session executing 40 programs of about 200 KB of entries each on core 0;
# 1 MiB rings, as the runtime's defaults would not fit the VM):
#  - with --max-size 2M: the command runs to its end (exit 0), the library
#    says once that it stopped writing (no message per queue), the
#    recording stays within 2 MiB, and its files, complete, hold entries
#    plus lost equal to what the simulator produced;
#  - into a 4 MiB tmpfs (mounted in the guest): the same with one message
#    naming the directory and "No space left on device";
#  - with --switch-output=1M --switch-max-files 2 (executions 300 ms
#    apart): record switches files at least twice, removes the older ones
#    and leaves the newest two, which hold consecutive executions ending
#    with the last one; the library switches at the first execution that
#    begins once a file holds 1 MiB of entries, so the older of the two
#    holds at least 1 MiB of entries and less than 1 MiB plus one of its
#    (equal) executions, and the newer one less than that;
#  - with --ring-size 64M on every core: refused before the command runs,
#    naming the rings' total and the limit (exit 1, the command never ran).
# Prints what failed and exits 1, or exits 0.
set -uo pipefail

. "$(dirname "$0")/common.sh"
vm_setup "$@"

{
	guest_prelude
	cat <<'EOF'
$np record --mode session --cores 0 --ring-size 1M --max-size 2M -o /out/lim -- /tool/model_run 0 40 64 0 \
	>/out/lim.txt 2>/out/lim.err
echo $? >/out/lim.rc
mkdir -p /tmp/small && mount -t tmpfs -o size=4m tmpfs /tmp/small || echo "cannot mount a tmpfs" >/out/errors
$np record --mode session --cores 0 --ring-size 1M -o /tmp/small/rec -- /tool/model_run 0 40 64 0 \
	>/out/full.txt 2>/out/full.err
echo $? >/out/full.rc
cp -r /tmp/small/rec /out/full
umount /tmp/small
$np record --cores 0 --ring-size 1M --switch-output=1M --switch-max-files 2 -o /out/sw -- \
	/tool/model_run 0 30 64 300 >/out/sw.txt 2>/out/sw.err
echo $? >/out/sw.rc
$np record --ring-size 64M -o /out/big -- /tool/model_run 0 1 1 0 >/out/big.txt 2>/out/big.err
echo $? >/out/big.rc
EOF
} >"$work/guest.sh"

vm_run "$build/tests/model_run:/tool/model_run"

exited_0 lim full sw
for f in $(find "$out/lim" "$out/full" "$out/sw" -name '*.ntff' 2>/dev/null); do
	"$np" dump --json --no-entries "$f" >"$f.json" 2>"$f.err" || bad "dump $f: $(cat "$f.err")"
done
for t in lim full sw; do
	"$np" summary --json "$out/$t" >"$out/$t-summary.json" 2>"$out/$t-summary.err" ||
		bad "summary $t: $(cat "$out/$t-summary.err")"
done

PYTHONPATH="$here" "$py" - "$out" <<'PY' || bad "bounded recordings (above)"
import glob, json, os, sys
from vm_check import done, fail
out = sys.argv[1]

def produced(t):
    for line in open(os.path.join(out, t + ".txt")):
        if line.startswith("produced "):
            return sum(int(x) for x in line.split()[1].split(","))
    fail(f"{t}: model_run printed no produced line")
    return -1

def files(t):
    return sorted(glob.glob(os.path.join(out, t, "**", "*.ntff"), recursive=True))

def counts(t):
    entries = lost = 0
    for f in files(t):
        d = json.load(open(f + ".json"))
        for q in d["queues"]:
            entries += q["entry_count"]
            lost += q["lost_count"]
    return entries, lost

def size(t):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(os.path.join(out, t))
               for f in fs if not f.endswith((".json", ".err")))

for t, say in (("lim", "capture output limit of 2097152 bytes reached"),
               ("full", "No space left on device after")):
    err = open(os.path.join(out, t + ".err")).read()
    p = produced(t)
    e, l = counts(t)
    n = err.count(say)
    if n != 1:
        fail(f"{t}: '{say}' said {n} times, expected once:\n{err}")
    if "cannot be written" in err:
        fail(f"{t}: a message per queue:\n{err}")
    if not files(t):
        fail(f"{t}: no file")
    if e + l != p or l == 0 or e == 0:
        fail(f"{t}: {e} entries + {l} lost != {p} produced (or nothing lost / written)")
    print(f"{t}: {len(files(t))} file(s), {size(t)} bytes, {e} entries + {l} lost = {p} produced")
if size("lim") > 2 << 20:
    fail(f"lim: {size('lim')} bytes, over --max-size 2M")

err = open(os.path.join(out, "sw.err")).read()
fs = files("sw")
if len(fs) != 2:
    fail(f"sw: {len(fs)} files left, expected 2 (--switch-max-files 2): {fs}")
import re
m = re.search(r"--switch-output: (\d+) switch(?:es)?; --switch-max-files 2: (\d+) older file", err)
if not m or int(m.group(1)) < 2 or int(m.group(2)) < 1:
    fail(f"sw: record's rotation report: {err}")
r = json.load(open(os.path.join(out, "sw-summary.json")))["recordings"][0]
wins = sorted((x["first_execution"], x["last_execution"]) for x in r.get("capture_ranges", []))
if len(wins) != 2 or wins[0][1] + 1 != wins[1][0] or wins[1][1] != 30:
    fail(f"sw: the two files left hold executions {wins}, expected consecutive ranges ending with 30")
else:
    print(f"sw: {m.group(1) if m else '?'} switches, files left hold executions {wins}")
# The size of each file left: its entries in bytes, against 1 MiB and one execution's.
MiB = 1 << 20
for f in fs:
    d = json.load(open(f + ".json"))
    b = sum(q["entry_count"] * q["entry_size"] for q in d["queues"])
    print(f"sw: {os.path.basename(f)}: {b} bytes of entries")
if len(wins) == 2 and len(fs) == 2:
    sizes = sorted((os.path.basename(f), sum(q["entry_count"] * q["entry_size"]
                    for q in json.load(open(f + ".json"))["queues"])) for f in fs)
    # profile_nc_0_session_<w>: the older file has the lower w
    sizes.sort(key=lambda x: int(re.search(r"_session_(\d+)\.ntff$", x[0]).group(1)))
    (older, bo), (newer, bn) = sizes
    n_old = wins[0][1] - wins[0][0] + 1
    per = bo / n_old
    if not (MiB <= bo < MiB + per):
        fail(f"sw: {older} holds {bo} bytes of entries in {n_old} executions: not within [1 MiB, 1 MiB + one execution ({per:.0f}))")
    if bn >= MiB + per:
        fail(f"sw: {newer}, the last file, holds {bn} bytes of entries: past 1 MiB + one execution")

big_rc = open(os.path.join(out, "big.rc")).read().strip()
big_err = open(os.path.join(out, "big.err")).read()
if big_rc != "1" or "not running /tool/model_run: the rings its runtime would ask for do not fit" not in big_err \
        or "rings take" not in big_err or os.path.exists(os.path.join(out, "big.txt")) and \
        open(os.path.join(out, "big.txt")).read():
    fail(f"big: --ring-size 64M on every core: exit {big_rc}, expected 1 with the refusal and no run: {big_err}")
else:
    print(f"big: refused: {big_err.strip()}")
done()
PY

exit $failed
