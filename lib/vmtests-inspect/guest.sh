#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The guest side of lib/vmtests-inspect (run by run.sh through
# scripts/vm-run.sh): load one simulated trn2 device (8 NeuronCores), run
# every scenario in its own directory under /out, record each exit status
# in /out/runs.txt ("run NAME STATUS WANTED") and, for the compat example,
# write the expect.txt that check_inspect reads on the host. Then captures
# longer than their rings: MODEL and continuous with streaming on and off,
# checked here (guest_check), and crashes during a streaming capture. Last,
# add a second device and run the SESSION scenario across both (16 cores).
set -u
runs=/out/runs.txt
: >"$runs"

if ! modprobe neuronprof_sim devices=1 arch=trn2; then
	echo "inspect-guest: modprobe neuronprof_sim failed"
	echo "run modprobe 1 0" >>"$runs"
	exit 3
fi
ls -l /dev/dri

# 1 MiB rings: the runtime's 64-128 MiB defaults do not fit the VM.
BUF="NEURON_RT_PROFILE_BUF_TRACE_MB=1 NEURON_RT_PROFILE_BUF_EVENT_MB=1
NEURON_RT_PROFILE_BUF_ERROR_MB=1 NEURON_RT_PROFILE_BUF_INFER_STATUS_MB=1
NEURON_RT_PROFILE_BUF_DMA_MB=1 NEURON_RT_PROFILE_BUF_THROTTLE_MB=1
NEURON_RT_PROFILE_BUF_TOPSP_TRACE_MB=1 NEURON_RT_PROFILE_BUF_TOPSP_EVENT_MB=1
NEURON_RT_PROFILE_BUF_TOPSP_ERROR_MB=1"

# run NAME WANTED DIR CMD...: run CMD in DIR, record its status.
run() {
	name=$1 want=$2 dir=$3
	shift 3
	echo "=== inspect-guest: $name"
	mkdir -p "$dir"
	(cd "$dir" && "$@")
	rc=$?
	echo "=== inspect-guest: $name exited $rc"
	echo "run $name $rc $want" >>"$runs"
}

# guest_check NAME SCENARIO...: check_inspect on scenarios whose files are
# too large for the serial console that brings /out back (8 MB take about a
# minute there), here; then their NTFF files go, and their expect.txt
# becomes expect.guest.txt, which the host does not read again.
guest_check() {
	name=$1
	shift
	echo "=== inspect-guest: check_inspect $*"
	/check_inspect /out "$@"
	echo "run $name $? 0" >>"$runs"
	for s in "$@"; do
		find "/out/$s" -name '*.ntff' -type f -exec rm -f {} +
		mv "/out/$s/expect.txt" "/out/$s/expect.guest.txt"
	done
}

# shellcheck disable=SC2086
run session 0 /out env $BUF NEURON_RT_INSPECT_ENABLE=1 NEURON_RT_INSPECT_OUTPUT_DIR=out \
	NEURON_RT_INSPECT_DEVICE_PROFILE=session /inspect_vm session /out/session
# shellcheck disable=SC2086
run model 0 /out env $BUF NEURON_RT_INSPECT_ENABLE=1 NEURON_RT_INSPECT_OUTPUT_DIR=out \
	NEURON_RT_INSPECT_DEVICE_PROFILE=model NEURON_RT_INSPECT_ON_FAIL=1 \
	/inspect_vm model /out/model
# shellcheck disable=SC2086
run onfail 0 /out env $BUF NEURON_RT_INSPECT_ENABLE=0 NEURON_RT_INSPECT_OUTPUT_DIR=out \
	NEURON_RT_INSPECT_ON_FAIL=1 /inspect_vm onfail /out/onfail
run continuous 0 /out /inspect_vm continuous /out/continuous
# shellcheck disable=SC2086
run crash signal /out env $BUF NEURON_RT_INSPECT_ENABLE=1 NEURON_RT_INSPECT_OUTPUT_DIR=out \
	NEURON_RT_INSPECT_DEVICE_PROFILE=session /inspect_vm crash /out/crash

# Captures twenty rings long on every TRACE and DMA queue (1 MiB rings, the
# smallest the environment sets): streaming loses nothing, without it the
# losses are exact. Continuous profiles take the ring sizes and the switch
# of an on-fail inspect session. Then crashes while a streaming capture has
# written part of its file, on core 0 alone.
for s in 1 0; do
	mode=stream
	[ $s = 1 ] || mode=zerocopy
	# shellcheck disable=SC2086
	run model_$mode 0 /out env $BUF NEURON_RT_INSPECT_ENABLE=1 NEURON_RT_INSPECT_OUTPUT_DIR=out \
		NEURON_RT_INSPECT_DEVICE_PROFILE=model NEURON_RT_INSPECT_ON_FAIL=1 \
		NEURON_RT_INSPECT_STREAMING=$s /inspect_vm model_$mode /out/model_$mode
done
guest_check guest_check_model model_stream model_zerocopy
for s in 1 0; do
	mode=stream
	[ $s = 1 ] || mode=zerocopy
	# shellcheck disable=SC2086
	run continuous_$mode 0 /out env $BUF NEURON_RT_INSPECT_ENABLE=0 \
		NEURON_RT_INSPECT_OUTPUT_DIR=out NEURON_RT_INSPECT_ON_FAIL=1 \
		NEURON_RT_INSPECT_STREAMING=$s /inspect_vm continuous_$mode /out/continuous_$mode
done
guest_check guest_check_continuous continuous_stream continuous_zerocopy
for c in crash kill; do
	# shellcheck disable=SC2086
	run ${c}_stream signal /out env $BUF NEURON_RT_INSPECT_ENABLE=1 \
		NEURON_RT_INSPECT_OUTPUT_DIR=out NEURON_RT_INSPECT_DEVICE_PROFILE=session \
		NEURON_RT_INSPECT_EVENT_FILTER_NC=0 /inspect_vm ${c}_stream /out/${c}_stream
done

# The compat example: the runtime's API, environment-driven and explicit.
# shellcheck disable=SC2086
run compat_env 0 /out/compat_env env $BUF NEURON_RT_INSPECT_ENABLE=1 \
	NEURON_RT_INSPECT_OUTPUT_DIR=out NEURON_RT_INSPECT_DEVICE_PROFILE=model \
	NEURON_RT_INSPECT_ON_FAIL=1 /nrt_profile_example env fail
cat >/out/compat_env/expect.txt <<'X'
tree out *
ntff $S/mlp_vnc_0.ntff kind=2 core=0 model=101 entries=+
ntff $S/cnn_vnc_1.ntff kind=2 core=1 model=102 entries=+
file $S/ntrace.pb
file $S/trace_info.pb
file $S/cpu_util.pb
file $S/host_mem.pb
count $S 6
nohidden $S
absent tmp
X
run compat_options 0 /out/compat_options /nrt_profile_example options out
cat >/out/compat_options/expect.txt <<'X'
tree out *
file $S/ntrace.pb
file $S/trace_info.pb
file $S/cpu_util.pb
file $S/host_mem.pb
count $S 4
nohidden $S
X
run compat_profile 0 /out/compat_profile /nrt_profile_example profile mlp.ntff
cat >/out/compat_profile/expect.txt <<'X'
ntff mlp.ntff kind=2 core=0 model=101 entries=+
absent never.ntff
X
run compat_continuous 0 /out/compat_continuous /nrt_profile_example continuous saves
cat >/out/compat_continuous/expect.txt <<'X'
count saves 2
match saves ^model_101_pid_[0-9]+_vnc_0_inst_.+_[0-9]{8}_[0-9]{6}\.ntff$ 1
ntff $M kind=3 core=0 model=101 entries=+
match saves ^model_102_pid_[0-9]+_vnc_1_inst_.+_[0-9]{8}_[0-9]{6}\.ntff$ 1
ntff $M kind=3 core=1 model=102 entries=+
X
run compat_systrace 0 /out/compat_systrace /nrt_profile_example systrace

# Two devices: virtual cores 0-7 on device 0, 8-15 on device 1.
if echo 1 >/sys/bus/platform/drivers/neuronprof_sim/new_device; then
	ls -l /dev/dri
	# shellcheck disable=SC2086
	run session2 0 /out env $BUF NEURON_RT_INSPECT_ENABLE=1 NEURON_RT_INSPECT_OUTPUT_DIR=out \
		NEURON_RT_INSPECT_DEVICE_PROFILE=session /inspect_vm session2 /out/session2
else
	echo "inspect-guest: cannot create a second simulated device"
	echo "run new_device 1 0" >>"$runs"
fi
echo "inspect-guest: done"
