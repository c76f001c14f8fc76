#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end test of the tool on the simulator, run by tests/run.sh:
#   tests/vm.sh BUILD_DIR WORK_DIR
# Boots the Debian kernel in QEMU with the modules (scripts/vm-run.sh),
# loads neuronprof_sim (one trn2 device: 8 NeuronCores, 2 TopSPs each, 5
# engines) and runs devices, doctor (as root, then as a user without access
# to the render node) and record: SESSION capture with the whole system
# profile, MODEL capture with the system trace only, a recording whose rings
# overflow; the host then checks what came back, and summarizes and exports
# the recorded profiles. Every expected number follows from the simulator's
# formulas (Documentation/simulator.rst) and the events the library records
# per model, execution and core (Documentation/tool.rst, "record"). Prints
# what failed and exits 1, or exits 0.
set -uo pipefail

. "$(dirname "$0")/common.sh"
vm_setup "$@"

# The guest's half. Exit statuses are recorded, not fatal, so the host sees
# everything that happened.
{
guest_prelude
cat <<'EOF'
$np devices >/out/devices.txt 2>&1; echo $? >/out/devices.rc
$np devices --json >/out/devices.json 2>/out/devices.err
$np doctor --json >/out/doctor.json 2>/out/doctor.err; echo $? >/out/doctor.rc
$np record --cores 0-1 --executions 2 --iterations 3 --throttle --error --system-profile \
	--cpu-util --host-memory -o /out/rec --json >/out/record.json 2>/out/record.err
echo $? >/out/record.rc
$np record --mode model --model-name 'my model' --model-id 7 --cores 1,3 --executions 3 \
	--iterations 2 --error --system-profile -o /out/model --json >/out/model.json 2>/out/model.err
echo $? >/out/model.rc
$np record --cores 2 --iterations 1 --instructions 20000 --dma 0 --ring-size 1M --system-profile \
	--no-streaming -o /out/small >/out/small.txt 2>&1; echo $? >/out/small.rc
# Long runs: executions until 2 s have passed; a command stopped after 1 s.
# Small programs, and the files outside /out (only the JSON report is
# checked): on an idle host the simulator executes fast enough to fill the
# guest's memory within the duration otherwise.
$np record --cores 0 --iterations 2 --instructions 4 --dma 1 --duration 2 -o /tmp/dur \
	--json >/out/dur.json 2>/out/dur.err
echo $? >/out/dur.rc
rm -rf /tmp/dur
$np record --cores 0 --ring-size 1M --duration 1 -o /out/durcmd -- sleep 60 >/out/durcmd.txt 2>&1; echo $? >/out/durcmd.rc
# A bounded recording: executions for up to 20 s, stopped at 2 MiB.
$np record --cores 0-1 --iterations 4 --instructions 64 --dma 4 --duration 20 --max-size 2M \
	-o /tmp/max --json >/out/max.json 2>/out/max.err
echo $? >/out/max.rc
du -sb /tmp/max >/out/max.du 2>&1
rm -rf /tmp/max
# top watches core 1 while sim_run executes there without subscribing; top's
# first sample says the queues are watched, SIGTERM ends it with a final one.
$np top --json --interval 200 >/out/top.json 2>/out/top.err &
tp=$!
wait_for -s /out/top.json 600 $tp
$np sim run --cores 1 --executions 5 --iterations 4 --instructions 6 --dma 3 --throttle \
	--model-id 77 --json >/out/sim_run.json 2>/out/sim_run.err; echo $? >/out/sim_run.rc
kill -TERM $tp
wait $tp; echo $? >/out/top.rc
$np record --cores all --iterations 1 -o /out/all >/out/all.txt 2>&1; echo $? >/out/all.rc
# sim run's other knobs: every second program raises an error; a duration;
# every core at once.
$np sim run --cores 0,3 --executions 4 --errors 2 --iterations 1 --instructions 2 --dma 1 \
	>/out/simerr.txt 2>&1; echo $? >/out/simerr.rc
$np sim run --cores 2 --duration 1 --iterations 1 --instructions 1 --dma 0 --json \
	>/out/simdur.json 2>/out/simdur.err; echo $? >/out/simdur.rc
$np sim run --iterations 1 --json >/out/simall.json 2>/out/simall.err; echo $? >/out/simall.rc
$np sim run --cores 9 >/out/simbad.txt 2>&1; echo $? >/out/simbad.rc
# A second machine: the instance id falls back on the host name in the VM.
vmhost=$(hostname)
hostname vm-b
$np record --cores 0 --executions 2 --iterations 1 --system-profile -o /out/hostb \
	>/out/hostb.txt 2>&1; echo $? >/out/hostb.rc
hostname "$vmhost"
$np record --cores 9 -o /out/none >/out/badcore.txt 2>&1; echo $? >/out/badcore.rc
# A user outside the node's group: doctor must say how to get access.
node=$(ls /dev/dri/renderD* | head -n 1)
chgrp render "$node" && chmod 0660 "$node"
su -s /bin/sh nobody -c "$np doctor" >/out/doctor-nobody.txt 2>&1; echo $? >/out/doctor-nobody.rc
su -s /bin/sh nobody -c "$np record --cores 0 -o /tmp/x" >/out/record-nobody.txt 2>&1
echo $? >/out/record-nobody.rc
# A raw device: neuronprof_neuron on the fake neuron.ko (test modules, loaded
# only in this VM). A runtime's inspect session (inspect_run) records while
# the fake hardware produces and the fake runtime consumes: core 0's TRACE
# instance 1 (10 device entries, 5 times) and DMA instance 2 (3, 5 times).
rmmod neuronprof_sim
if modprobe neuronprof_fake_neuron && modprobe neuronprof_neuron; then
	ctl=/sys/kernel/debug/neuronprof_fake_neuron/ctl
	echo "add 2 2 6" >$ctl; dev=$(cat $ctl)
	echo "program $dev 0 0 0 1 4096" >$ctl; qt=$(cat $ctl)
	echo "program $dev 0 0 4 2 4096" >$ctl; qd=$(cat $ctl)
	echo "$qt $qd" >/out/raw.queues
	$np record --mode session --ring-size 1M --duration 10 -o /out/raw -- /tool/inspect_run /tmp/raw.ready \
		>/out/raw.txt 2>&1 &
	rp=$!
	wait_for -e /tmp/raw.ready 80 $rp
	for r in 1 2 3 4 5; do
		echo "produce $dev $qt 10" >$ctl; echo "consume $dev $qt 10" >$ctl
		echo "produce $dev $qd 3" >$ctl; echo "consume $dev $qd 3" >$ctl
	done
	wait $rp; echo $? >/out/raw.rc
	echo "remove $dev" >$ctl
	rmmod neuronprof_neuron neuronprof_fake_neuron
else
	echo "raw device modules: $?" >>/out/errors
fi
true
EOF
} >"$work/guest.sh"

vm_run "$build/tests/inspect_run:/tool/inspect_run"

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
status model 0
status small 0
status dur 0
"$py" - "$out/dur.json" <<'PY' || bad "record --duration: $(cat "$out/dur.json" "$out/dur.err")"
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cores"][0]
# Executions until the duration passed, every one in the profile: what the
# simulator produced was captured or counted as lost, exactly. Whether any
# is lost depends on how fast this VM runs the drainer against a simulator
# that never waits (the loss-free guarantees are checked where the test
# paces the programs: lib/vmtests and lib/vmtests-inspect).
assert c["core"] == 0 and c["executions"] >= 1, c
for name, q in c["queue_types"].items():
    assert q["captured"] + q["lost"] == q["produced"], (name, q)
assert sum(q["captured"] for q in c["queue_types"].values()) > 0, c
PY
status durcmd 143
# --max-size: record stops before the limit, says so, and the directory
# (files, system profile) stays under it; what it kept is complete
# (delivered + lost = produced, checked by record itself: exit 0).
status max 0
"$py" - "$out/max.err" "$out/max.du" "$out/max.json" <<'PY' || bad "record --max-size 2M: $(cat "$out/max.err" "$out/max.du")"
import json, re, sys
err = open(sys.argv[1]).read()
m = re.search(r"--max-size 2097152: stopped before the next executions would pass it; (\S+) holds (\d+) bytes", err)
assert m, err
du = int(open(sys.argv[2]).read().split()[0])
assert int(m.group(2)) <= 2097152 and du <= 2097152, (m.group(2), du)
assert int(m.group(2)) > 1024 * 1024, m.group(2)  # it ran until near the limit
rec = json.load(open(sys.argv[3]))
assert all(c["executions"] > 1 for c in rec["cores"]), rec["cores"]
PY
grep -q "1s passed: stopping sleep with SIGTERM" "$out/durcmd.txt" ||
	bad "record --duration with a command: $(cat "$out/durcmd.txt")"
status sim_run 0
status top 0
"$py" - "$out/top.json" "$out/sim_run.json" <<'PY' || bad "top --json against sim run: $(tail -c 600 "$out/top.json"; cat "$out/top.err" "$out/sim_run.json" "$out/sim_run.err")"
import json, sys
samples = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sim = json.load(open(sys.argv[2]))
assert [c["core"] for c in sim["cores"]] == [1] and sim["cores"][0]["programs"] == 5, sim
produced = [sim["cores"][0]["produced"][t] for t in
            "TRACE EVENT ERROR INFER_STATUS DMA THROTTLE TOPSP_TRACE TOPSP_EVENT TOPSP_ERROR".split()]
iterations = sim["cores"][0]["iterations"]
assert iterations == 20 and sim["cores"][0]["failed"] == 0, sim
assert len(samples) >= 2 and samples[0]["sample"] == 1 and not samples[0]["final"], samples[0]
last = samples[-1]
assert last["final"] and last["busy_queues"] == 0, last
core = last["cores"][1]["totals"]
# TRACE 0, DMA 4 (enum neuronprof_queue_type); one execution per iteration.
assert core["instructions"] == produced[0], (core, produced)
assert core["dma_transfers"] == produced[4], (core, produced)
assert core["inferences"] == iterations, (core, iterations)
# Every sample's per-interval figures add up to the totals.
assert sum(s["cores"][1]["inferences"] for s in samples) == iterations
assert sum(e["instructions"] for s in samples for e in s["cores"][1]["engines"]) == produced[0]
assert all(q["total_lost"] == 0 for q in last["queues"])
# Only core 1 ran.
assert all(c["totals"]["instructions"] == 0 for i, c in enumerate(last["cores"]) if i != 1)
PY
status badcore 2
status all 0
# sim run: --errors 2 fails programs 2 and 4 of each core; --duration runs
# programs until 1 s has passed; without --cores every core runs; a core
# the device lacks is a usage error naming the range.
status simerr 0
grep -q "^  core 0: 4 programs (2 with an error), 4 iterations" "$out/simerr.txt" &&
grep -q "^  core 3: 4 programs (2 with an error), 4 iterations" "$out/simerr.txt" &&
grep -q "^total: 8 programs (4 with an error), 8 iterations" "$out/simerr.txt" ||
	bad "sim run --errors 2: $(cat "$out/simerr.txt")"
status simdur 0
"$py" - "$out/simdur.json" "$out/simall.json" <<'PY' || bad "sim run --duration / all cores: $(cat "$out/simdur.json" "$out/simdur.err" "$out/simall.json" "$out/simall.err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [c["core"] for c in d["cores"]] == [2] and d["cores"][0]["programs"] > 1, d
assert d["elapsed_ns"] >= 10**9, d
a = json.load(open(sys.argv[2]))
assert [c["core"] for c in a["cores"]] == list(range(8)), a
assert all(c["programs"] == 1 and c["iterations"] == 1 for c in a["cores"]), a
PY
status simall 0
status simbad 2
grep -q -- "--cores 9: device 0 has 8 NeuronCores (0 to 7)" "$out/simbad.txt" ||
	bad "sim run --cores 9: $(cat "$out/simbad.txt")"
# 1 iteration: 2 INFER_STATUS, 5 x (32 TRACE + 2 EVENT), 8 DMA, 2 x (1 TOPSP_TRACE + 2 TOPSP_EVENT).
count=$(grep -Ec '^  profile_nc_[0-7]_session_0.ntff: NC [0-7] \(device 0 core [0-7]\), session 0, 1 execution: 186 entries, 0 lost, 186 produced$' "$out/all.txt")
[ "$count" = 8 ] || bad "record --cores all: $(cat "$out/all.txt")"
grep -q -- "--cores 9: /dev/dri/renderD[0-9]* has 8 NeuronCores (0 to 7)" "$out/badcore.txt" ||
	bad "record --cores 9: $(cat "$out/badcore.txt")"

# jq-less field access: field FILE PATH
field() {
	"$py" -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v=v[int(k)] if isinstance(v,list) else v[k]
print(v)' "$1" "$2" 2>/dev/null
}
# The guest's session directory under the host's copy of /out.
host_dir() {
	local d
	d=$(field "$1" session_dir) || return 1
	echo "$out/${d#/out/}"
}

# Host events of a recording (Documentation/tool.rst, "record"):
# inspect_begin and inspect_stop; one device_open (one device); per core
# model_load, nrt_unload, profile_start, profile_stop, profile_serialize
# and, per queue of the core, one nq_subscribe and one nq_drain (the
# harvest's); per execution nrt_execute and sim_exec; one exec_error per
# failed execution; one nq_overflow per queue that lost notifications. A
# trn2 core has 24 queues: TRACE, EVENT and DMA on each of 5 engines, ERROR,
# INFER_STATUS and THROTTLE, and 3 queue types on each of its 2 TopSPs.
queues=$((3 * 5 + 3 + 2 * 3))
# host_events CORES EXECUTIONS FAILED OVERFLOWS
host_events() {
	echo $((2 + 1 + $1 * (5 + 2 * queues) + 2 * $2 + $3 + $4))
}

# SESSION: two cores, 2 executions of 3 iterations, 32 instructions on each
# of 5 engines, 8 DMA, throttled, an error in the last iteration of the
# last execution. One file per core covers both executions.
host_session=$(host_events 2 4 2 0)
check summary-json "$out/record.json" mode=session cores.0.core=0 cores.1.core=1 \
	cores.0.executions=2 cores.0.status=1004 cores.0.file=profile_nc_0_session_0.ntff \
	cores.1.file=profile_nc_1_session_0.ntff \
	cores.0.queue_types.TRACE.produced=960 cores.0.queue_types.TRACE.captured=960 \
	cores.0.queue_types.TOPSP_EVENT.produced=24 cores.1.queue_types.DMA.captured=48 \
	cores.1.queue_types.THROTTLE.captured=6 cores.0.queue_types.ERROR.captured=1 \
	system_profile.ntrace=true system_profile.trace_info=true \
	system_profile.cpu_util=true system_profile.host_mem=true \
	system_profile.host_events=$host_session
rec=$(host_dir "$out/record.json") || bad "record.json has no session_dir"
for f in profile_nc_0_session_0.ntff profile_nc_1_session_0.ntff ntrace.pb trace_info.pb \
	cpu_util.pb host_mem.pb; do
	[ -f "$rec/$f" ] || bad "record did not write $f: $(ls "$rec" 2>&1)"
done
case "$rec" in
"$out"/rec/neuronprof-vm-[0-9]*/[0-9]*) ;;
*) bad "session directory $rec is not <out>/<instance_id>-<pid>/<session_init_ns>" ;;
esac
"$np" summary --json "$rec" >"$work/summary.json" || bad "summary of the recording"
# One recording; errors count the core's ERROR and its TopSP's TOPSP_ERROR.
# Executions: 2 per core of 3 iterations, each started by one nrt_execute.
check summary-json "$work/summary.json" files=2 recordings.0.cores.0.inferences=6 \
	recordings.0.cores.0.inferences_failed=1 recordings.0.cores.0.executions=2 \
	recordings.0.cores.0.errors=2 recordings.0.cores.0.throttle_events=6 \
	recordings.0.cores.0.engines.4.name=sync \
	recordings.0.cores.0.engines.4.instructions=192 recordings.0.cores.0.engines.0.dma=12 \
	recordings.0.cores.0.engines.4.dma=6 recordings.0.cores.0.topsps.0.topsp=0 \
	recordings.0.cores.0.topsps.1.topsp=1 recordings.0.cores.1.topsps.0.topsp=2 \
	recordings.0.cores.0.topsps.0.errors=1 recordings.0.cores.0.topsps.1.instructions=6 \
	recordings.0.cores.0.errors_by_code.0.code=1004 recordings.0.cores.0.errors_by_code.0.count=2 \
	recordings.0.totals.instructions=1944 recordings.0.totals.dma=96 recordings.0.totals.errors=4 \
	recordings.0.totals.throttle_events=12 recordings.0.totals.executions=4 \
	recordings.0.totals.inferences=12 recordings.0.totals.lost=0 recordings.0.totals.seq_gaps=0 \
	recordings.0.host.nrt_execute_calls=4 recordings.0.host.nrt_execute_matched=4 \
	recordings.0.models.0.latency.count=4 recordings.0.models.0.host_matched=4
# Every number of the summary, recomputed from the dumps and ntrace.pb.
mkdir -p "$work/sys_pb2" && protoc --python_out="$work/sys_pb2" -I"$repo/proto" \
	"$repo/proto/system_profile.proto" || bad "protoc --python_out system_profile"
"$np" dump --json "$rec/profile_nc_0_session_0.ntff" >"$work/d0.json" &&
"$np" dump --json "$rec/profile_nc_1_session_0.ntff" >"$work/d1.json" ||
	bad "dump of the session files"
"$py" "$here/summary_check.py" recompute "$work/summary.json" 0 5 --ntrace "$rec/ntrace.pb" \
	"$work/sys_pb2" "$work/d0.json" "$work/d1.json" || bad "summary recomputed from the dumps"
"$np" summary --ns "$rec" >"$work/summary.txt" &&
"$py" "$here/summary_check.py" text "$work/summary.json" "$work/summary.txt" ||
	bad "summary text and JSON disagree"
# Host events as above, X slices with the 12 inferences; the queue and
# capture events on their cores with their attributes, the device on none.
# Counters: one C per THROTTLE entry, one "host cpu" per CPU sample but the
# first, one "host memory" per memory sample.
cpu=$(field "$out/record.json" system_profile.cpu_util_samples)
mem=$(field "$out/record.json" system_profile.host_mem_samples)
[ -n "$cpu" ] && [ "$cpu" -ge 1 ] && [ -n "$mem" ] && [ "$mem" -ge 1 ] ||
	bad "cpu_util/host_mem samples: '$cpu' '$mem'"
"$np" export --format json -o "$work/rec.json" "$rec" >/dev/null || bad "export json"
# Instructions (1944, TopSPs' included) are X slices; the instants left
# are 96 DMA transfers and 4 errors. 4 executions (X), each linked by a
# flow to the nrt_execute that started it.
check chrome-json "$work/rec.json" ph.X=$((host_session + 12 + 4 + 1944)) ph.B=84 ph.E=84 \
	ph.i=100 ph.s=4 ph.f=4 "flow:nrt_execute>model 1 execution=4" \
	processes=3 name:nrt_execute=4 name:sim_exec=4 name:model_load=2 name:exec_error=2 \
	name:inspect_begin=1 name:throttle=12 "name:host cpu=$((cpu - 1))" "name:host memory=$mem" \
	"event:device_open@core:-@device:0@cores:8@provider:sim=1" name:device_close=0 \
	"event:nq_subscribe@core:0@device:0=$queues" "event:nq_subscribe@core:1@device:0=$queues" \
	"event:nq_subscribe@core:0@queue_type:TRACE=5" "event:nq_subscribe@core:1@topsp:2=3" \
	"event:nq_subscribe@core:1@topsp:3@queue_type:TOPSP_EVENT=1" \
	"event:nq_drain@core:0@flush:1=$queues" "event:nq_drain@core:1@flush:1=$queues" \
	"event:profile_start@core:0@queues:$queues@model_id:-=1" "event:profile_start@core:1=1" \
	"event:profile_stop@core:1@session_id:0@lost:0=1" "event:profile_serialize@core:0=1" \
	name:nq_overflow=0
"$np" export --format perfetto -o "$work/rec.pftrace" "$rec" >/dev/null || bad "export perfetto"
mkdir -p "$work/pb2" && protoc --python_out="$work/pb2" -I"$repo/proto" \
	"$repo/proto/perfetto_trace.proto" || bad "protoc --python_out"
# A slice begin and end per B/E pair and per X event.
# Processes: the device (its cores are tracks under it) and the host.
check perfetto "$work/rec.pftrace" "$work/pb2" processes=2 flows=4 \
	"flow:nrt_execute>model 1 execution=4" "parent:NeuronCore 1>device 0 (trn2 sim)=1" \
	TYPE_SLICE_BEGIN=$((84 + 1944 + host_session + 12 + 4)) \
	TYPE_SLICE_END=$((84 + 1944 + host_session + 12 + 4)) TYPE_INSTANT=100 \
	TYPE_COUNTER=$((12 * 2 + 4 * (cpu - 1) + 3 * mem))

# MODEL: cores 1 and 3, 3 executions of 2 iterations, the last one failing.
# Only the first execution on each core is captured, into
# <model name with '_' for ' '>_vnc_<interned id>.ntff (0 and 1: the models were
# loaded in core order; the dump shows core 3); cpu_util and host_mem were
# not asked for.
host_model=$(host_events 2 6 2 0)
check summary-json "$out/model.json" mode=model model_name="my model" model_id=7 \
	cores.0.core=1 cores.1.core=3 cores.0.file=my_model_vnc_0.ntff \
	cores.1.file=my_model_vnc_1.ntff cores.0.executions=1 cores.0.status=0 \
	cores.1.queue_types.TRACE.produced=320 cores.1.queue_types.TRACE.captured=320 \
	cores.1.queue_types.ERROR.produced=0 cores.0.queue_types.INFER_STATUS.captured=4 \
	system_profile.ntrace=true system_profile.cpu_util=false \
	system_profile.host_mem=false system_profile.host_events=$host_model
mdl=$(host_dir "$out/model.json") || bad "model.json has no session_dir"
[ "$(ls "$mdl" 2>&1 | tr '\n' ' ')" = "my_model_vnc_0.ntff my_model_vnc_1.ntff ntrace.pb trace_info.pb " ] ||
	bad "model recording wrote: $(ls "$mdl" 2>&1)"
"$np" dump --json "$mdl/my_model_vnc_1.ntff" >"$work/model-dump.json" || bad "dump of the model profile"
check dump-json "$work/model-dump.json" capture.kind=model capture.core=3 capture.model_id=7 \
	"capture.model_name=my model" device.num_cores=8
"$np" summary --json "$mdl" >"$work/model-summary.json" || bad "summary of the model recording"
check summary-json "$work/model-summary.json" files=2 recordings.0.cores.0.core=1 \
	recordings.0.cores.1.core=3 recordings.0.cores.0.inferences=2 \
	recordings.0.cores.0.inferences_failed=0 recordings.0.totals.errors=0 \
	recordings.0.totals.instructions=648 recordings.0.totals.lost=0 \
	recordings.0.totals.executions=2 recordings.0.host.nrt_execute_calls=6 \
	recordings.0.host.nrt_execute_matched=2
"$np" export --format json -o "$work/model-export.json" "$mdl" >/dev/null || bad "export json of the model"
# Events as for SESSION, 3 executions per core, the 4 inferences, 2 executions
# and 648 instructions of the captured first executions (2 linked by a flow to
# their call); the capture events carry the model id.
check chrome-json "$work/model-export.json" ph.X=$((host_model + 4 + 2 + 648)) processes=3 ph.s=2 \
	"flow:nrt_execute>my model execution=2" "name:my model iteration=4" "name:model 7 iteration=0" \
	name:profile_start=2 name:nrt_execute=6 name:sim_exec=6 name:exec_error=2 \
	name:profile_serialize=2 "event:profile_start@core:1@model_id:7=1" \
	"event:profile_stop@core:3@model_id:7=1" "event:profile_serialize@core:3@model_id:7=1" \
	"event:nq_subscribe@core:3=$queues" "event:nq_drain@core:1=$queues" \
	name:nq_subscribe=$((2 * queues)) name:device_open=1 name:nq_overflow=0

# 1 MiB rings hold 16384 entries: of 20000 instructions per engine 3616 are
# lost, and counted. Lost at the end of a ring leaves no gap in sequence numbers.
grep -Eq '^  profile_nc_2_session_0.ntff: NC 2 \(device 0 core 2\), session 0, 1 execution: 81938 entries, 18080 lost, 100018 produced$' \
	"$out/small.txt" || bad "small rings: $(cat "$out/small.txt")"
sml=$(sed -n 's|^session directory /out/\([^ ]*\) .*|\1|p' "$out/small.txt")
"$np" summary --json "$out/$sml" >"$work/small.json" || bad "summary of the small-ring recording"
check summary-json "$work/small.json" recordings.0.cores.0.core=2 recordings.0.cores.0.lost=18080 \
	recordings.0.cores.0.seq_gaps=0 recordings.0.totals.records_with_unexplained_gaps=0 \
	recordings.0.cores.0.engines.0.instructions=16384 \
	recordings.0.cores.0.engines.0.cut_instructions=1 \
	recordings.0.cores.0.loss_windows.0.kind=after_last_entry
# Each TRACE ring lost its last 3616 after its last entry (Loss windows):
# the last delivered instruction of each engine is cut, no op takes time
# across the loss, and the model recomputed from dump --json agrees.
"$np" dump --json "$out/$sml/profile_nc_2_session_0.ntff" >"$work/small-dump.json" &&
"$py" "$here/summary_check.py" recompute "$work/small.json" 0 5 --ntrace "$out/$sml/ntrace.pb" \
	"$work/sys_pb2" "$work/small-dump.json" ||
	bad "small rings: summary's loss model against the recomputation"
"$py" - "$work/small.json" <<'PY' || bad "small rings: an op spans the loss"
import json, sys
c = json.load(open(sys.argv[1]))["recordings"][0]["cores"][0]
for u in c["engines"]:
    assert u["cut_instructions"] == 1 and u["observed_ns"] < c["span_ns"], u
PY
# The harvest's drain of each TRACE ring finds its 3616 lost: one nq_overflow
# each, on core 2.
grep -q "^  ntrace.pb: $(host_events 1 1 0 5) host events$" "$out/small.txt" ||
	bad "small rings: host events: $(grep ntrace.pb "$out/small.txt")"
"$np" export --format json -o "$work/small-export.json" "$out/$sml" >/dev/null ||
	bad "export json of the small-ring recording"
check chrome-json "$work/small-export.json" name:nq_overflow=5 \
	"event:nq_overflow@core:2@queue_type:TRACE@lost:3616@lost_total:3616=5" \
	"event:profile_stop@core:2@lost:18080@entries:81938=1"

# Two machines (the SESSION recording, and one made under another host
# name), exported together: each on CLOCK_REALTIME by its trace_info.pb's
# clock mapping, so every event of a machine falls within its session's
# wall-clock window, and the second recording's after the first's.
[ "$(cat "$out/hostb.rc" 2>/dev/null)" = 0 ] || bad "record as vm-b: $(cat "$out/hostb.txt")"
hb=$(sed -n 's|^session directory /out/\([^ ]*\) .*|\1|p' "$out/hostb.txt")
rm -rf "$work/machines" && mkdir -p "$work/machines" &&
cp -r "$rec" "$work/machines/a" && cp -r "$out/$hb" "$work/machines/b" ||
	bad "cannot gather the two machines' recordings"
"$np" export --format json -o "$work/machines.json" "$work/machines" >"$work/machines.out" 2>&1 ||
	bad "export of two machines: $(cat "$work/machines.out")"
grep -q "2 machines on one timeline (CLOCK_REALTIME, by their clock mappings)$" "$work/machines.out" ||
	bad "export of two machines: $(cat "$work/machines.out")"
"$py" - "$work/machines.json" "$work/machines" "$work/sys_pb2" <<'PY' || bad "two machines on one timeline"
import decimal, json, sys
sys.path.insert(0, sys.argv[3])
import system_profile_pb2 as pb
win = {}
for m in ("a", "b"):
    ti = pb.trace_info()
    ti.ParseFromString(open(f"{sys.argv[2]}/{m}/trace_info.pb", "rb").read())
    shift = ti.start_realtime_ns - ti.start_ns
    win[ti.instance_id] = (ti.start_ns + shift, ti.stop_ns + shift)
d = json.load(open(sys.argv[1]), parse_float=decimal.Decimal)["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in d if e.get("name") == "process_name"}
seen = {}
for e in d:
    if e["ph"] not in "XBi" or not names.get(e["pid"], "").split(": ")[0] in win:
        continue
    m = names[e["pid"]].split(": ")[0]
    ts = int(e["ts"] * 1000)
    lo, hi = win[m]
    if not lo <= ts <= hi:
        sys.exit(f"{m}: event {e['name']} at {ts} outside its session [{lo}, {hi}]")
    seen.setdefault(m, []).append(ts)
if sorted(seen) != sorted(win):
    sys.exit(f"machines with device events: {sorted(seen)}, expected {sorted(win)}")
(a, ea), (b, eb) = sorted(seen.items(), key=lambda kv: min(kv[1]))
if max(ea) >= min(eb):
    sys.exit(f"{a}'s events do not all come before {b}'s")
PY

# The raw device: SESSION files of both cores with packed raw records (NTFF 3.x), the
# fake hardware's bytes as it wrote them (fake.c: word 0 is
# 0xFA4E << 48 | queue << 32 | entry, byte k >= 8 is (entry + k) & 0xff),
# delivered + lost = produced, and dump, summary and export on them.
status raw 0
read -r qt qd <"$out/raw.queues" 2>/dev/null
rawf=$(find "$out/raw" -name 'profile_nc_0_session_*.ntff' 2>/dev/null | head -n 1)
if [ -z "$rawf" ] || [ -z "$qt" ]; then
	bad "raw device: no SESSION file of core 0 under $out/raw: $(cat "$out/raw.txt")"
else
	"$np" dump --json "$rawf" >"$work/raw-dump.json" || bad "dump of $rawf"
	"$py" - "$work/raw-dump.json" "$qt" "$qd" <<'PY' || bad "raw entries of $rawf"
import json, sys
d = json.load(open(sys.argv[1]))
qt, qd = int(sys.argv[2]), int(sys.argv[3])
dev = d["device"]
want = {"raw_format_name": "neuron-v2", "raw_entry_size": 64, "clock_domain_name": "captured",
        "provider": "neuron"}
for k, v in want.items():
    if dev.get(k) != v:
        sys.exit(f"device {k} = {dev.get(k)!r}, expected {v!r}")
# Packed raw records (NTFF 3.x): the provider copies a head write's bytes whole.
if d["header"]["version_major"] != 3:
    sys.exit(f"major version {d['header']['version_major']}, expected 3 (packed raw records)")
def queue(qtype, engine):
    for q in d["queues"]:
        if q["queue_type"] == qtype and q["target_kind"] == "core" and q["engine"] == engine:
            return q
    sys.exit(f"no {qtype} engine {engine} record")
for fq, qtype, engine, produced in ((qt, "TRACE", 1, 50), (qd, "DMA", 2, 15)):
    q = queue(qtype, engine)
    # Loss counts 32-byte parts, as the dump lists them (two per device entry).
    parts = len(q["entries"])
    if parts + q["lost_count"] != 2 * produced or not parts:
        sys.exit(f"{qtype}: {parts} parts + {q['lost_count']} lost, "
                 f"expected {2 * produced} produced")
    for e in q["entries"]:
        r = e["raw"]
        b = bytes.fromhex(r["bytes"])
        i, off = r["entry"], 32 * r["part"]
        want = bytearray((i + off + k) & 0xff for k in range(32))
        if r["part"] == 0:
            want[0:8] = (0xFA4E << 48 | fq << 32 | i).to_bytes(8, "little")
        if r["parts"] != 2 or b != bytes(want):
            sys.exit(f"{qtype} entry {i} part {r['part']}: {r['bytes']}, expected {bytes(want).hex()}")
PY
	"$np" dump "$rawf" >"$work/raw-dump.txt" &&
	grep -q "raw entries, not decoded: format neuron-v2 (1), device entries of 64 bytes" "$work/raw-dump.txt" ||
		bad "dump text of $rawf: $(head -n 20 "$work/raw-dump.txt")"
	"$np" summary --json "$out/raw" >"$work/raw-summary.json" || bad "summary of $out/raw"
	"$py" - "$work/raw-summary.json" <<'PY' || bad "summary of the raw recording"
import json, sys
r = json.load(open(sys.argv[1]))["recordings"][0]
got = {(q["queue_type"], q["core"], q["engine"]): q for q in r["raw_queues"] if q["entries"]}
for key, n in ((("TRACE", 0, 1), 50), (("DMA", 0, 2), 15)):
    q = got.get(key)
    if not q or q["device_entries"] + q["lost"] // 2 != n or q["decoded"]:
        sys.exit(f"{key}: {q}, expected {n} device entries")
if len(got) != 2 or r["cores"] or r["models"]:
    sys.exit(f"raw queues with entries {sorted(got)}, cores {r['cores']}, models {r['models']}")
PY
	"$np" export --format perfetto -o "$work/raw.pftrace" "$out/raw" >"$work/raw-export.txt" &&
	"$np" export --format json -o "$work/raw.json" "$out/raw" >>"$work/raw-export.txt" ||
		bad "export of $out/raw"
	mkdir -p "$work/pb2" && protoc --python_out="$work/pb2" -I"$repo/proto" "$repo/proto/perfetto_trace.proto" &&
	n=$("$py" -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("name") == "raw neuron-v2"))' "$work/raw.json") &&
	"$py" "$here/check.py" perfetto "$work/raw.pftrace" "$work/pb2" "name:raw neuron-v2=$n" \
		"track:executions=0" || bad "export of the raw recording (JSON: $n raw instants)"
	[ "${n:-0}" -gt 0 ] || bad "no raw instants in the JSON export"
	# The database holds the same ring entries as bytes, and its raw_queues
	# and losses queries give summary's numbers.
	if command -v sqlite3 >/dev/null; then
		rm -f "$work/raw.db"
		"$np" export --format sqlite -o "$work/raw.db" "$out/raw" >>"$work/raw-export.txt" ||
			bad "export sqlite of $out/raw: $(cat "$work/raw-export.txt")"
		[ "$(sqlite3 "$work/raw.db" 'SELECT count(*) FROM raw_entries')" = "${n:-0}" ] ||
			bad "export sqlite of the raw recording: raw_entries rows differ from the JSON's $n raw instants"
		"$py" "$here/summary_check.py" sql "$work/raw-summary.json" "$work/raw.db" \
			"$repo/Documentation/analysis-queries.sql" || bad "SQL queries on the raw recording"
	fi
fi

exit "$failed"
