#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end test of the tool on the simulator, run by tests/run.sh:
#   tests/vm.sh BUILD_DIR WORK_DIR
# Boots the Debian kernel in QEMU with the modules (scripts/vm-run.sh),
# loads neuronprof_sim (one trn2 device: 8 NeuronCores, 2 TopSPs each, 5
# engines) and runs devices, doctor (as root, then as a user without access
# to the render node) and record; the host then checks what came back,
# and summarizes and exports the recorded profiles. Prints what failed and
# exits 1, or exits 0.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: vm.sh BUILD_DIR WORK_DIR}" && pwd)
work=${2:?usage: vm.sh BUILD_DIR WORK_DIR}
np=$build/neuronprof
mkdir -p "$work" || exit 1
out=$work/out

py=
for cand in python3 /usr/bin/python3; do
	if command -v "$cand" >/dev/null && "$cand" -c 'import google.protobuf' 2>/dev/null; then
		py=$cand
		break
	fi
done
[ -n "$py" ] || py=python3

failed=0
bad() {
	echo "FAIL: $*"
	failed=1
}

# The guest's half. Exit statuses are recorded, not fatal, so the host sees
# everything that happened.
cat >"$work/guest.sh" <<'EOF'
np=/tool/neuronprof
cd /tmp
modprobe neuronprof_sim || echo "modprobe failed: $?" >/out/errors
$np devices >/out/devices.txt 2>&1; echo $? >/out/devices.rc
$np devices --json >/out/devices.json 2>/out/devices.err
$np doctor --json >/out/doctor.json 2>/out/doctor.err; echo $? >/out/doctor.rc
$np record --cores 0-1 --iterations 3 --throttle --error -o /out/rec --json \
	>/out/record.json 2>/out/record.err; echo $? >/out/record.rc
$np record --cores 2 --iterations 50 --ring-size 4096 -o /out/small \
	>/out/small.txt 2>&1; echo $? >/out/small.rc
$np record --cores 9 -o /out/none >/out/badcore.txt 2>&1; echo $? >/out/badcore.rc
# A user outside the node's group: doctor must say how to get access.
node=$(ls /dev/dri/renderD* | head -n 1)
chgrp render "$node" && chmod 0660 "$node"
su -s /bin/sh nobody -c "$np doctor" >/out/doctor-nobody.txt 2>&1; echo $? >/out/doctor-nobody.rc
su -s /bin/sh nobody -c "$np record --cores 0 -o /tmp/x" >/out/record-nobody.txt 2>&1
echo $? >/out/record-nobody.rc
true
EOF

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

status() {
	local got
	got=$(cat "$out/$1.rc" 2>/dev/null)
	[ "$got" = "$2" ] || { bad "$1 exited with '$got', expected $2"; sed 's/^/  /' "$out/$1".{txt,err} 2>/dev/null; }
}

check() {
	"$py" "$here/check.py" "$@" || bad "check.py $1 $2"
}

status devices 0
grep -Eq '^/dev/dri/renderD[0-9]+: device 0, trn2, provider sim$' "$out/devices.txt" ||
	bad "devices text: $(cat "$out/devices.txt")"
check devices-json "$out/devices.json" devices.0.arch=trn2 devices.0.provider=sim \
	devices.0.num_cores=8 devices.0.num_topsps=16 devices.0.engines_per_core=5 \
	devices.0.engines.4=sync devices.0.caps.0=SIM_EXEC devices.0.caps.1=FLUSH \
	devices.0.core_queue_types.5=THROTTLE devices.0.topsp_queue_types.0=TOPSP_TRACE \
	devices.0.per_engine_queue_types.2=DMA devices.0.clock=CLOCK_MONOTONIC \
	devices.0.min_ring_size=4096 devices.0.max_ring_size=67108864

status doctor 0
check doctor-json "$out/doctor.json" ok=true modules.0.installed=true modules.0.loaded=true \
	modules.0.state=live modules.1.state=live modules.1.parameters.devices=1 \
	modules.1.parameters.arch=trn2 usable_devices=1 neuronprof_nodes=1 nodes.0.neuronprof=true \
	nodes.0.driver=neuronprof nodes.0.num_cores=8

status doctor-nobody 1
grep -q "cannot be opened by nobody: Permission denied" "$out/doctor-nobody.txt" &&
grep -q "fix: add your user to group render: sudo usermod -aG render nobody, then log in again" \
	"$out/doctor-nobody.txt" || bad "doctor as nobody: $(cat "$out/doctor-nobody.txt")"
status record-nobody 1
grep -q "Permission denied\|cannot be opened\|permission" "$out/record-nobody.txt" ||
	bad "record as nobody: $(cat "$out/record-nobody.txt")"

status record 0
status small 0
status badcore 2
grep -q -- "--cores 9: /dev/dri/renderD[0-9]* has 8 NeuronCores (0 to 7)" "$out/badcore.txt" ||
	bad "record --cores 9: $(cat "$out/badcore.txt")"

# Two cores, 3 iterations, 32 instructions on each of 5 engines, 8 DMA,
# throttled, an error in the last iteration; Documentation/simulator.rst
# gives what the simulator produces per queue type.
check summary-json "$out/record.json" cores.0.core=0 cores.1.core=1 \
	cores.0.queue_types.TRACE.produced=480 cores.0.queue_types.TRACE.captured=480 \
	cores.0.queue_types.TOPSP_EVENT.produced=12 cores.1.queue_types.DMA.captured=24 \
	cores.0.status=1004 cores.0.file=profile_nc_0_session_0.ntff
[ -f "$out/rec/profile_nc_0_session_0.ntff" ] && [ -f "$out/rec/profile_nc_1_session_0.ntff" ] ||
	bad "record wrote: $(ls "$out/rec")"
"$np" summary --json "$out/rec" >"$work/summary.json" || bad "summary of the recording"
check summary-json "$work/summary.json" files=2 cores.0.inferences=3 cores.0.inferences_failed=1 \
	cores.0.errors=1 cores.0.throttle_events=3 cores.0.engines.4.name=sync \
	cores.0.engines.4.instructions=96 cores.0.engines.0.dma=6 cores.0.engines.4.dma=3 \
	cores.0.topsps.0.topsp=0 cores.0.topsps.1.topsp=1 cores.1.topsps.0.topsp=2 \
	cores.0.topsps.0.errors=1 cores.0.topsps.1.instructions=3 \
	totals.instructions=972 totals.dma=48 totals.errors=4 totals.throttle_events=6 \
	totals.inferences=6 totals.lost=0 totals.seq_gaps=0
"$np" export --format json -o "$work/rec.json" "$out/rec" >/dev/null || bad "export json"
check chrome-json "$work/rec.json" ph.X=6 ph.B=42 ph.E=42 ph.i=1024 ph.C=6 processes=2
"$np" export --format perfetto -o "$work/rec.pftrace" "$out/rec" >/dev/null || bad "export perfetto"
mkdir -p "$work/pb2" && protoc --python_out="$work/pb2" -I"$repo/proto" \
	"$repo/proto/perfetto_trace.proto" || bad "protoc --python_out"
check perfetto "$work/rec.pftrace" "$work/pb2" processes=2 TYPE_SLICE_BEGIN=48 \
	TYPE_SLICE_END=48 TYPE_INSTANT=1024 TYPE_COUNTER=12

# 4096-byte rings hold 64 entries: the rest of 50 iterations is lost, and
# counted. Lost at the end of a ring leaves no gap in sequence numbers.
"$np" summary --json "$out/small" >"$work/small.json" || bad "summary of the small-ring recording"
check summary-json "$work/small.json" cores.0.core=2 cores.0.lost=8076 cores.0.seq_gaps=0 \
	totals.records_with_unexplained_gaps=0 cores.0.engines.0.instructions=64

exit "$failed"
