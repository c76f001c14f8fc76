#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Compressed recordings on the simulator, run by tests/run.sh:
#   tests/vm_zstd.sh BUILD_DIR WORK_DIR
# Boots the Debian kernel in QEMU with the modules (scripts/vm-run.sh),
# loads neuronprof_sim and records:
#  - the same synthetic workload (2 cores, 3 executions of 3 iterations)
#    with -z and without: both exit 0 (record reads its files back: entries
#    plus lost equal to what the simulator produced), the -z files are NTFF
#    major 4 and the others major 1, and both count the same entries per
#    core and queue type;
#  - tests/model_run under record --compression-level 3 --max-size 2M
#    (the library's NEURON_RT_INSPECT_CAPTURE_COMPRESSION, streamed): exit
#    0, files of major 4 within 2 MiB, entries plus lost equal to what the
#    simulator produced;
#  - the synthetic model (1 core, up to 200 executions, 1 MiB rings)
#    under --max-size 4M with -z and without: both exit 0 within 4 MiB,
#    and the -z run executes more (the rounds stop at what the files
#    store, not at the uncompressed bytes: record_limit.c).
# On the host, each compressed recording is written again with plain blocks
# (tests/ntff_zcopy.c, level 0): summary --json and the Perfetto and SQLite
# exports of the two are the same bytes.
# Prints what failed and exits 1, or exits 0.
set -uo pipefail

. "$(dirname "$0")/common.sh"
vm_setup "$@"

{
	guest_prelude
	cat <<'EOF'
$np record --cores 0-1 --executions 3 --iterations 3 -z -o /out/z --json >/out/z.json 2>/out/z.err
echo $? >/out/z.rc
$np record --cores 0-1 --executions 3 --iterations 3 -o /out/p --json >/out/p.json 2>/out/p.err
echo $? >/out/p.rc
$np record --mode session --cores 0 --ring-size 1M --compression-level 3 --max-size 2M -o /out/zlim -- \
	/tool/model_run 0 40 64 0 >/out/zlim.txt 2>/out/zlim.err
echo $? >/out/zlim.rc
for t in zsyn psyn; do
	z=; [ $t = zsyn ] && z=-z
	$np record --cores 0 --executions 200 --ring-size 1M --max-size 4M $z -o /out/$t --json \
		>/out/$t.json 2>/out/$t.err
	echo $? >/out/$t.rc
done
EOF
} >"$work/guest.sh"

vm_run "$build/tests/model_run:/tool/model_run"

for t in z p zlim zsyn psyn; do
	rc=$(cat "$out/$t.rc" 2>/dev/null)
	[ "$rc" = 0 ] || bad "record ($t) exited with '$rc': $(cat "$out/$t.err" 2>/dev/null)"
done
for f in $(find "$out/z" "$out/p" "$out/zlim" "$out/zsyn" "$out/psyn" -name '*.ntff' 2>/dev/null); do
	"$np" dump --json --no-entries "$f" >"$f.json" 2>"$f.err" || bad "dump $f: $(cat "$f.err")"
done

# Each compressed recording, its blocks written again plain: the same outputs.
for t in z zlim; do
	rm -rf "$out/$t-plain"
	cp -r "$out/$t" "$out/$t-plain" || bad "cp $t"
	while IFS= read -r f; do
		rel=${f#"$out/$t/"}
		"$build/tests/ntff_zcopy" "$f" "$out/$t-plain/$(dirname "$rel")" "$(basename "$rel")" 0 ||
			bad "ntff_zcopy $f"
	done < <(find "$out/$t" -name '*.ntff')
	for v in "$t" "$t-plain"; do
		(cd "$out/$v" &&
		 "$np" summary --json . >"$out/$v.summary" &&
		 "$np" export -f perfetto -o "$out/$v.pftrace" . 2>/dev/null &&
		 "$np" export -f sqlite -o "$out/$v.db" . 2>/dev/null) || bad "summary/export of $v"
		"$py" -c 'import sqlite3, sys
for line in sqlite3.connect(sys.argv[1]).iterdump(): print(line)' "$out/$v.db" >"$out/$v.sql" ||
			bad "sqlite dump of $v"
	done
	for x in summary pftrace sql; do
		cmp -s "$out/$t.$x" "$out/$t-plain.$x" ||
			bad "$t: $x of the compressed recording differs from that of its plain copy"
	done
done

"$py" - "$out" <<'PY' || bad "compressed recordings (above)"
import glob, json, os, sys
out = sys.argv[1]
ok = True
def fail(msg):
    global ok
    print("FAIL:", msg)
    ok = False

def files(t):
    return sorted(glob.glob(os.path.join(out, t, "**", "*.ntff"), recursive=True))

def size(t):
    return sum(os.path.getsize(f) for f in files(t))

for t, major in (("z", 4), ("p", 1), ("zlim", 4), ("zsyn", 4), ("psyn", 1)):
    if not files(t):
        fail(f"{t}: no file")
    for f in files(t):
        h = json.load(open(f + ".json"))["header"]
        if h["version_major"] != major:
            fail(f"{f}: major {h['version_major']}, expected {major}")
        if major == 4 and not h.get("data_size", 0) > h["data_length"]:
            fail(f"{f}: {h['data_length']} bytes stored for {h.get('data_size')} of entries")

def counts(t):
    d = json.load(open(os.path.join(out, t + ".json")))
    return [(c["core"], {k: (v["produced"], v["captured"], v["lost"])
                         for k, v in c["queue_types"].items()}) for c in d["cores"]]
if counts("z") != counts("p"):
    fail(f"-z and plain recordings count differently:\n{counts('z')}\n{counts('p')}")

produced = -1
for line in open(os.path.join(out, "zlim.txt")):
    if line.startswith("produced "):
        produced = sum(int(x) for x in line.split()[1].split(","))
entries = lost = 0
for f in files("zlim"):
    for q in json.load(open(f + ".json"))["queues"]:
        entries += q["entry_count"]
        lost += q["lost_count"]
if entries + lost != produced or not entries:
    fail(f"zlim: {entries} entries + {lost} lost != {produced} produced")
if size("zlim") > 2 << 20:
    fail(f"zlim: {size('zlim')} bytes, over --max-size 2M")
def executions(t):
    return sum(c["executions"] for c in json.load(open(os.path.join(out, t + ".json")))["cores"])
for t in ("zsyn", "psyn"):
    if size(t) > 4 << 20:
        fail(f"{t}: {size(t)} bytes, over --max-size 4M")
if not executions("zsyn") > executions("psyn"):
    fail(f"--max-size 4M: -z ran {executions('zsyn')} executions, plain {executions('psyn')}: "
         "the compressed run should store more of them")
print(f"--max-size 4M: -z {executions('zsyn')} executions in {size('zsyn')} bytes, plain "
      f"{executions('psyn')} in {size('psyn')} bytes")
print(f"z: {size('z')} bytes, p: {size('p')} bytes; zlim: {size('zlim')} bytes, "
      f"{entries} entries + {lost} lost = {produced} produced")
sys.exit(0 if ok else 1)
PY

exit $failed
