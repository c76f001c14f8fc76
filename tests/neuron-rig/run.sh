#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The hardware layer: the vendor's own neuron.ko (with the hook series of
# driver/neuron/vendor/ and nothing else changed) probes an emulated trn1
# PCI function (driver/tests/trn_emu.c) in the QEMU VM, then, in the same VM
# after unloading both, an emulated trn2 (the driver's v3 DHAL); a program plays the
# runtime through the vendor's uapi (nrt_play.c, built against the vendor
# tree's neuron_ioctl.h) and `neuronprof record` captures what it consumes.
# Each scenario sets the entry size, the head unit and the head's start
# value in the device model, the runtime and neuronprof_neuron's
# parameters alike, and checks with check.py that every byte the hardware
# wrote and the runtime consumed arrived, delivered + lost = consumed per
# queue, for NeuronCore, TRACE_DMA and TopSP queues.
#
# The vendor tree comes from NEURON_DRIVER_SRC (a directory or a .tar.gz),
# else /usr/src/aws-neuronx-*/, else ../shared/vendor/*.tar.gz beside the
# repository (scripts/vendor-tree.sh); without one the layer is skipped
# with the reason. Needs `make modules lib tools`. Boots QEMU with 8 GiB,
# 4352 MiB of which memmap= reserves at 4 GiB for the BARs: the trn2's
# register BAR is 4 GiB (its BAR4 256 MiB after it); the trn1 uses the first
# 1 GiB + 64 MiB of the same memory. Guest memory is given to QEMU as the
# guest touches it, so the reservation costs the host what the models write.
#
# Which vendor series the rig's neuron.ko carries (RIG_SERIES):
#   both   (default) the fixes series (driver/neuron/vendor/fixes/), then the
#          hook series, applied by scripts/neuron-vendor-hook.sh;
#   fixes  the fixes alone (--fixes-only): the provider cannot load, so the
#          scenarios only play the runtime (no capture is checked) and the
#          hostile runtime's scenarios run; calibration and the device-memory
#          checks are left out;
#   hooks  the hook series alone, without the fixes: the vendor's holes are
#          open, and the hostile runtime's scenarios are expected to fail
#          (this is how their "before" is shown).
# RIG_HOOK_DIR applies the hook series from another directory (with patch,
# after the fixes unless RIG_SERIES=hooks), e.g. an older version of it;
# RIG_FIXES_DIR the fixes series (with patch), e.g. the series with one fix
# left out, to measure how often the race that fix closes is seen.
# RIG_PERSONAS="SPEC..." replaces the personalities' list (below),
# RIG_SEED repeats a drawn one, RIG_V3_PERSONAS="NAME..." names those the
# trn2 runs too (default p-default p-flipall p-seedN; "none" for none),
# RIG_PERSONAS_ONLY=1 runs only the personalities (on both devices).
# RIG_DMA=0 leaves out the vendor's DMA copy on the device model's
# host-device queues (nrt_play dmacopy, trn_emu_udma.c); RIG_DMA_COPIES
# ("NC:SIZE:ROUNDS...", default "0:200000:2 1:4096:3") names the trn1's
# copies, RIG_DMA_COPIES_V3 (default "0:65536:2 3:4096:1 5:4096:2 6:4096:1") the trn2's;
# RIG_EMU_ARGS adds parameters to the emulated function's insmod (udma=0:
# no DMA copy completes, how the check's "before" is shown).
# RIG_EARLY=0 leaves out the runtime that opens the device while it is
# probed (the hook must announce a device before its queues can be
# programmed; neuronprof_neuron's early_queues stays 0).
# RIG_HOSTILE=0 leaves the hostile runtime's scenarios out, RIG_HOSTILE_ONLY
# selects some by name (and leaves the personalities out: with RIG_ONLY=none
# and RIG_CALIBRATE=0 a run is the hostile steps alone); RIG_CALIBRATE=0
# leaves out calibration, the device-memory queues and the parameter
# checks (to look at a few scenarios quickly, with RIG_ONLY).
#
# The hostile runtime (nrt_play's hostile steps, through the vendor's uapi
# like any runtime; each passes when the driver refuses and fails naming
# the hole when it does not): BAR_READ of a kernel address (linux_banner),
# DEVICE_INFO's BAR addresses, an unaligned BAR_WRITE, BAR_WRITEs past
# BAR0's end, a BAR_WRITE of 2^30 registers, NOTIFICATIONS_INIT with
# engine index 16 (TRACE_DMA, TRACE, TopSP), the emulated device
# writing into a queue whose memory the runtime freed with MEM_FREE, a
# MEM_FREE of a freed handle freeing the allocation that took its index,
# MEM_GET_EXTENDED_INFO answering a kernel address for a handle, and
# DEVICE_BDF_EXT of devices 64, 255, 256 and 2^32 - 1 on an O_WRONLY open
# (bdfext, fix 13: a kernel BUG without it); the
# races of fixes 5 and 6 (nrt_race.c: race-initfree, race-resetinit) and
# the probe race of fixes 9 and 10 (nrt_probe.c: race-probe, opening and
# closing the device while it is probed, RIG_PROBE_ROUNDS (5) times); a
# device unbound from neuron-driver and bound again (rebind, fix 12) and a
# probe that fails after the node exists (probe-fail, fix 11: the emulated
# function makes nmetric_init() fail, trn_emu.c fail_probe), then the node
# opened before and after neuron.ko is unloaded (a node that outlives
# neuron.ko is opened only with RIG_PROBE_FAIL_OOPS=1: the oops hangs the VM).
#
# Ends with "N passed, N failed[, N skipped]".
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kver=${KVER:-$(bash "$repo/scripts/kver.sh")}
kdir=${KDIR:-/lib/modules/$kver/build}
# shellcheck source=../lib.sh
. "$repo/tests/lib.sh"

# result NAME STATUS [LOG]: one result line; a failure shows LOG's tail.
result() {
	if [ "$2" -eq 0 ]; then
		ok "$1"
	elif [ -n "${3:-}" ] && [ -s "$3" ]; then
		not_ok "$1" "$(tail -n 30 "$3")"
	else
		not_ok "$1"
	fi
}

skip() {
	echo "neuron-rig: skipped: $1"
	skipped "the hardware layer" "$1"
	finish
}

# The benchmark's arithmetic, on made-up runs (no VM): a figure only from
# captures that delivered every consumed entry.
if [ "${RIG_BENCH:-0}" != 1 ]; then
	for c in "complete:prints the head-write figure when every captured run delivered all entries" \
		"lost:prints no figure when a captured run lost entries, and names the run" \
		"failed:prints no figure when a record failed, and names the run"; do
		python3 "$here/test_bench.py" "${c%%:*}" >"${TMPDIR:-/tmp}/nprof-rig-bench-$$.log" 2>&1
		result "bench.py ${c#*:}" $? "${TMPDIR:-/tmp}/nprof-rig-bench-$$.log"
	done
	rm -f "${TMPDIR:-/tmp}/nprof-rig-bench-$$.log"
fi

src=$(vendor_source) ||
	skip "no vendor tree: set NEURON_DRIVER_SRC, install aws-neuronx-dkms, or put the tarball in ../shared/vendor/"
[ -d "$kdir" ] || skip "no kernel build tree $kdir"
emu=$repo/driver/tests/neuronprof_trn_emu.ko
for f in "$emu" "$repo/driver/core/neuronprof.ko" "$repo/driver/neuron/neuronprof_neuron.ko"; do
	[ -f "$f" ] || fatal "$f missing: run make modules"
done
make -s -C "$repo/tools" build/neuronprof build/tests/inspect_run >/dev/null 2>&1 ||
	fatal "cannot build the tool"
np=$repo/tools/build/neuronprof

work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-rig.XXXXXX") || exit 1
[ -n "${RIG_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tree"
if [ -d "$src" ]; then
	cp -a "$src/." "$work/tree/"
else
	tar -xzf "$src" -C "$work/tree" --strip-components=1
fi
echo "vendor tree: $src"
series=${RIG_SERIES:-both}
hookdir=${RIG_HOOK_DIR:-}
fixdir=${RIG_FIXES_DIR:-}
prov=1
[ "$series" = fixes ] && prov=0
# The personalities (and the captures of existing queues and device
# memory after them) need the provider; RIG_HOSTILE_ONLY leaves them out.
pers=$prov
[ -n "${RIG_HOSTILE_ONLY:-}" ] && pers=0
case $series in
both | fixes)
	if [ -z "$fixdir" ] && { [ -z "$hookdir" ] || [ "$series" = fixes ]; }; then
		opt=
		[ "$series" = fixes ] && opt=--fixes-only
		bash "$repo/scripts/neuron-vendor-hook.sh" apply $opt --src "$work/tree" >"$work/apply.log" 2>&1
	else
		hp=()
		[ "$series" = both ] && hp=("${hookdir:-$repo/driver/neuron/vendor}"/0*.patch)
		for p in "${fixdir:-$repo/driver/neuron/vendor/fixes}"/0*.patch "${hp[@]}"; do
			patch -d "$work/tree" -p1 -s -f <"$p" || break
		done >"$work/apply.log" 2>&1
	fi
	;;
hooks)
	for p in "${hookdir:-$repo/driver/neuron/vendor}"/0*.patch; do
		patch -d "$work/tree" -p1 -s -f <"$p" || break
	done >"$work/apply.log" 2>&1
	;;
*) fatal "RIG_SERIES=$series: want both, fixes or hooks" ;;
esac
result "the vendor series apply ($series${hookdir:+, hook series from $hookdir}${fixdir:+, fixes from $fixdir})" $? "$work/apply.log"
sed -i 's/ -Werror//' "$work/tree/Kbuild"
make -C "$kdir" M="$work/tree" -j"${NPROF_JOBS:-2}" modules >"$work/build.log" 2>&1
result "the vendor neuron.ko ($series) builds" $? "$work/build.log"
cc -Wall -Wextra -Werror -O2 -I"$work/tree" -I"$repo/driver/tests" -o "$work/nrt_play" "$here/nrt_play.c" >"$work/cc.log" 2>&1
result "nrt_play builds against the vendor's neuron_ioctl.h" $? "$work/cc.log"
cc -Wall -Wextra -Werror -O2 -pthread -I"$work/tree" -I"$repo/driver/tests" -o "$work/nrt_race" "$here/nrt_race.c" >"$work/cc-race.log" 2>&1
result "nrt_race builds against the vendor's neuron_ioctl.h" $? "$work/cc-race.log"
cc -Wall -Wextra -Werror -O2 -pthread -I"$work/tree" -o "$work/nrt_probe" "$here/nrt_probe.c" >"$work/cc-probe.log" 2>&1
result "nrt_probe builds against the vendor's neuron_ioctl.h" $? "$work/cc-probe.log"
[ -f "$work/tree/neuron.ko" ] && [ -x "$work/nrt_play" ] || finish

# check_capture NAME ENTRY_SIZE: check.py on what record wrote under
# $out/NAME against nrt_play's $out/NAME.play; its lines go to
# $work/NAME.check. Returns check.py's status.
check_capture() {
	local name=$1 es=$2 f i=0 dumps=()

	while IFS= read -r f; do
		"$np" dump --json "$f" >"$work/$name.$i.json" 2>>"$work/$name.dump.log" && dumps+=("$work/$name.$i.json")
		i=$((i + 1))
	done < <(find "$out/$name" -name '*.ntff' 2>/dev/null | sort)
	python3 "$here/check.py" "$out/$name.play" "$es" "${dumps[@]}" >"$work/$name.check" 2>&1
	local rc=$?
	[ -n "${RIG_KEEP:-}" ] || rm -f "$work/$name".*.json
	return $rc
}

# vm_run GUEST_SCRIPT: boot the rig's VM (8 GiB, 4352 MiB at 4 GiB
# reserved for the emulated function's BARs) with the modules and programs,
# /out into $out. The guest keeps time with the TSC, as instances do (their
# clocksource is tsc or kvm-clock, both a TSC read): left to itself under
# TCG it picks QEMU's emulated HPET, where one read costs about a
# microsecond, which would put an emulation artefact into every timestamp
# the provider takes. RIG_VM_APPEND adds to the guest's command line (the
# last clocksource= wins: RIG_VM_APPEND=clocksource=hpet to compare).
# The guest is fully preemptible (preempt=full; Debian's kernel boots with
# voluntary preemption): the vendor's DMA copy polls for its completion in
# the ioctl, in process context under a mutex, and the device model's
# thread that executes the copy (trn_emu_udma.c), when it is woken on the
# CPU where the driver polls, must preempt the poll, as an engine does not
# wait for the CPU (the dmacopy check's shared-CPU copy shows it).
out=$work/out
vm_run() {
	mkdir -p "$out"
	VM_MEM=8G VM_APPEND="memmap=4352M\$0x100000000 tsc=reliable clocksource=tsc preempt=full ${RIG_VM_APPEND:-}" \
		bash "$repo/scripts/vm-run.sh" --timeout "${VM_TIMEOUT:-1200}" --outdir "$out" \
		--ko "$work/tree/neuron.ko" --ko "$emu" --ko "$repo/driver/core/neuronprof.ko" \
		--ko "${RIG_PROVIDER:-$repo/driver/neuron/neuronprof_neuron.ko}" \
		--file "$emu:/rig/neuronprof_trn_emu.ko" --file "$work/nrt_play:/rig/nrt_play" \
		--file "$work/nrt_race:/rig/nrt_race" --file "$work/nrt_probe:/rig/nrt_probe" \
		--file "$np:/rig/neuronprof" --file "$repo/tools/build/tests/inspect_run:/rig/inspect_run" \
		--file "$1:/rig/guest.sh" -- sh /rig/guest.sh >"$work/vm.log" 2>&1
}

# RIG_BENCH=1 (bench/neuron_head_write.sh): what a captured head write
# costs. The runtime consumes 64 entries of 64 bytes per head write, 2000
# times, with the queue not subscribed, captured by neuronprof record as it
# runs by default (streaming: its drainer empties the ring on the other CPU
# meanwhile; 8 MiB rings, as the runtime's default of 64 MiB per queue does
# not fit the VM's memory) and captured by record --no-streaming (the
# entries stay in a ring large enough for them, so each head write writes
# ring pages not touched before), five times each, in turn. A capture that
# did not deliver every consumed entry would look cheap, so every captured
# run's profile is summed (`neuronprof dump --entries 0` in the guest) and
# bench.py prints no ratio unless each delivered all of them and lost none
# (test_bench.py checks that). The runtime spins RIG_BENCH_GAP_US (200)
# before each head write, untimed, so that the drainer keeps up under TCG.
# What a capture adds is the
# median of the five differences with the run just before, each run's head
# write counted in memcpys of the 4096 consumed bytes timed in the same
# process (bench.py); the last line is the streaming one. A run's figure
# is the mean of its rounds under 10x their median (nrt_play.c: longer
# rounds are the host descheduling the VM, milliseconds).
if [ "${RIG_BENCH:-0}" = 1 ]; then
	cat >"$work/bench.sh" <<GUEST
#!/bin/sh
cat /sys/devices/system/clocksource/clocksource0/current_clocksource >/out/clocksource.txt
insmod /rig/neuronprof_trn_emu.ko base=0x100000000
modprobe neuron
n=0
while ! dmesg | grep -q "nd0: reset request .* completed" && [ \$n -lt 300 ]; do
	sleep 0.1
	n=\$((n + 1))
done
modprobe neuronprof
modprobe neuronprof_neuron entry_size_v2=64 head_mode_v2=0
play() {
	/rig/nrt_play -e 64 realloc:core:0:0:1:65536 bench:0:64:2000:${RIG_BENCH_GAP_US:-200} >>/out/\$1.txt 2>&1
}
# captured NAME RECORD-OPTIONS: play while record captures the session.
captured() {
	name=\$1
	shift
	/rig/neuronprof record --mode session --duration 600 "\$@" -o /out/\$name\$t \\
		-- /rig/inspect_run /tmp/ready\$name\$t >/out/record-\$name\$t.txt 2>&1 &
	rp=\$!
	n=0
	while [ ! -e /tmp/ready\$name\$t ] && [ \$n -lt 100 ]; do sleep 0.1; n=\$((n + 1)); done
	play \$name
	kill -TERM \$(pidof inspect_run) 2>/dev/null
	wait \$rp
	echo \$? >/out/\$name\$t.rc
	for f in \$(find /out/\$name\$t -name '*.ntff'); do
		/rig/neuronprof dump --entries 0 \$f
	done >/out/\$name\$t.dump 2>&1
	rm -rf /out/\$name\$t
}
for t in 1 2 3 4 5; do
	play off
	captured on --ring-size 8M
	play off2
	captured nostream --no-streaming --ring-size 32M --cores 0
done
true
GUEST
	vm_run "$work/bench.sh" || { echo "neuron-rig bench: the VM run failed:"; tail -n 30 "$work/vm.log"; exit 1; }
	echo "guest clocksource: $(cat "$out/clocksource.txt")"
	python3 "$here/bench.py" "$out"
	exit $?
fi

# Scenarios: name entry_size head_unit head_start provider_head_mode steps
# arch (2: the trn1, 3: the trn2).
scenarios=(
	"index64 64 index 0 0 main 2"
	"byte32 32 byte 5 1 main 2"
	"counter128 128 counter 3 2 main 2"
	"memfree 64 index 0 0 memfree 2"
	"rewind 64 counter 0 2 rewind 2"
	"v3byte32 32 byte 5 1 v3main 3"
	"v3counter128 128 counter 3 2 v3main 3"
	"small-index 64 index 0 0 small 2"
	"small-byte 64 byte 5 1 small 2"
	"small-counter 64 counter 3 2 small 2"
)
# Calibration: 25 rounds of 16 entries, the head written per entry.
calsteps="realloc:core:0:0:9:4096"
for _ in $(seq 25); do calsteps="$calsteps produce:0:16 consume:0:16"; done
# RIG_ONLY="NAME..." runs only those scenarios (to look at one).
if [ -n "${RIG_ONLY:-}" ]; then
	sel=()
	for s in "${scenarios[@]}"; do
		case " $RIG_ONLY " in *" ${s%% *} "*) sel+=("$s") ;; esac
	done
	scenarios=("${sel[@]}")
fi
# scenario_list ARCH: the scenarios of ARCH, for the guest (fields joined by commas).
scenario_list() {
	local s
	for s in "${scenarios[@]}"; do
		[ "${s##* }" = "$1" ] && printf '%s ' "${s// /,}"
	done
}
# The runtime's steps, the same in each scenario: a device reset (after
# which the emulated head registers read the scenario's start), core 0 TRACE engine 1,
# core 0 TRACE_DMA on SDMA engine 2, core 1 EVENT engine 3, TopSP 1
# TRACE; every ring 4 KiB, produced and consumed across wraps, the head
# written per entry and in batches.
steps="reset realloc:core:0:0:1:4096 realloc:core:0:4:2:4096 realloc:core:1:2:3:4096 realloc:ts:1:0:0:4096"
consumption="produce:0:20 consume:0:20 produce:1:7 consume:1:7 produce:2:9 heads:2:9:3"
consumption="$consumption produce:3:11 consume:3:11 produce:0:30 heads:0:30:10 produce:1:25 consume:1:25"
consumption="$consumption produce:3:25 heads:3:25:8 produce:3:20 consume:3:20 produce:2:15 consume:2:15"
steps="$steps $consumption"
# The same on the trn2, on blocks whose offsets only v3 has: core 5 (the
# second IO die, SENG 2) TRACE engine 1, its TRACE_DMA on SDMA engine 2,
# core 2 (SENG 1) EVENT engine 3, TopSP 11 (second die, core 5's pair)
# TRACE. The driver's QEMU device reset is invisible to the device model
# (trn_emu.c), so the runtime resets the TPBs it uses: cores 2 and 5 with
# their SDMA engines and TopSPs (nc_map 0x24).
v3steps="reset:0x24 realloc:core:5:0:1:4096 realloc:core:5:4:2:4096 realloc:core:2:2:3:4096"
v3steps="$v3steps realloc:ts:11:0:0:4096 $consumption"
# MEM_FREE of a queue's memory handle while it is captured: the runtime
# frees queue 0 after consuming 5 of 10 entries and asks for another queue
# (which may get the same pages); a head write to the freed queue's
# register afterwards must deliver nothing (the memory is gone).
memfree="reset realloc:core:1:0:0:4096 produce:0:10 consume:0:5 free:0 realloc:core:1:0:2:4096"
memfree="$memfree produce:1:12 consume:0:5 consume:1:12"
# Rings smaller than a page (the driver's chunk is rounded up to one, the
# registers hold the size asked for): a 1 KiB ring (16 entries) and a
# 2 KiB ring (32), each written around several times, heads per entry and
# in batches of fewer entries than the ring holds (an index or byte head
# that comes back to where it was is no consumption).
small="reset realloc:core:0:0:1:1024 realloc:core:0:2:3:2048 produce:0:10 consume:0:10"
small="$small produce:0:12 heads:0:12:4 produce:1:20 consume:1:20 produce:1:30 heads:1:30:10"
small="$small produce:0:15 consume:0:15 produce:1:25 heads:1:25:5 produce:0:14 heads:0:14:7"
# The hostile runtime, one nrt_play per hole so that each is seen on its
# own: name and steps (commas for spaces). wpast and bdfext go last:
# without the fixes they fault in the kernel (bdfext: a kernel BUG).
hostile_v2="devinfo:devinfo kread:kread wunaligned:wunaligned bigcount:bigcount"
hostile_v2="$hostile_v2 engine-dma:badinit:core:0:4:16:4096 engine-trace:badinit:core:0:0:16:4096"
hostile_v2="$hostile_v2 engine-ts:badinit:ts:0:0:16:4096"
hostile_v2="$hostile_v2 memfree:reset,realloc:core:0:0:5:4096,produce:0:4,consume:0:4,free:0,freed:0:4"
hostile_v2="$hostile_v2 stale:stale extinfo:extinfo wpast-end:wpast:0 wpast-3:wpast:3 bdfext:bdfext"
hostile_v3="devinfo:devinfo kread:kread wunaligned:wunaligned engine-dma:badinit:core:1:4:16:4096"
hostile_v3="$hostile_v3 memfree:reset:0x24,realloc:core:5:0:5:4096,produce:0:4,consume:0:4,free:0,freed:0:4"
hostile_v3="$hostile_v3 stale:stale extinfo:extinfo wpast-end:wpast:0 bdfext:bdfext"
# The races of fixes 5 and 6 (nrt_race.c), each run for RIG_RACE_SECONDS
# (10) on each device, after the hostile steps; selected with the hostile
# steps (RIG_HOSTILE, RIG_HOSTILE_ONLY) by the names race-initfree and
# race-resetinit.
races_v2="race-initfree race-resetinit"
races_v3="race-initfree race-resetinit"
# The vendor's DMA copies (nrt_play dmacopy:NC:SIZE:ROUNDS) on each
# device: on the trn1 cores 0 and 1 (engines 32 and 33), on the trn2 cores
# 0, 3, 5 and 6, one on each SENG's host engine (two per IO die; queue 0 on
# two of them, queue 1 on the others).
dma_v2=${RIG_DMA_COPIES:-0:200000:2 1:4096:3}
dma_v3=${RIG_DMA_COPIES_V3:-0:65536:2 3:4096:1 5:4096:2 6:4096:1}
# The probe race of fixes 9 and 10 (nrt_probe.c), on the trn1 again after
# the trn2 (last: without the fixes it oopses), RIG_PROBE_ROUNDS (5)
# times: neuron.ko is loaded with no_reset=1 (the device is marked ready
# inside the probe, before its datastore exists) and the emulated function
# appears while nrt_probe opens and closes /dev/neuron0 in a tight loop;
# selected with the hostile steps by the name race-probe.
probe_race=race-probe
# The removal and the failed probe of fixes 12 and 11, last of all (without
# fix 11 the open of the node after neuron.ko is unloaded oopses): rebind
# and probe-fail.
probe_fail="rebind probe-fail"
[ "${RIG_HOSTILE:-1}" = 1 ] || hostile_v2= hostile_v3= races_v2= races_v3= probe_race= probe_fail=
# RIG_HOSTILE_ONLY="NAME...": only those hostile steps (to show the holes
# of a driver without the fixes without the faults of wpast-*).
if [ -n "${RIG_HOSTILE_ONLY:-}" ]; then
	for v in hostile_v2 hostile_v3 races_v2 races_v3 probe_race probe_fail; do
		sel=
		for h in ${!v}; do
			case " $RIG_HOSTILE_ONLY " in *" ${h%%:*} "*) sel="$sel $h" ;; esac
		done
		printf -v "$v" '%s' "$sel"
	done
fi
# A counter head that goes backwards (a runtime restarting its count):
# neither lost entries nor a stall.
rewind="reset realloc:core:1:0:4:4096 produce:0:10 consume:0:10 rewind:0:8 produce:0:4 sleep:200"

# Personalities (Documentation/neuron-rig.rst): the hardware and runtime
# facts that are not public, handed to the device model and the runtime
# player and hidden from the provider and calibrate.
# name/unit/start/es/type entry sizes/lag/phase bit/typed sets/reprogram/
# init write/placement[/head read]: head read "pos", a read of a head
# register returns the device's consumed position (nrt_play -H); "zero",
# it returns 0 whatever was written, "reset", the value a reset leaves
# in it (the start, in the head's unit), whatever was written (nrt_play
# -Z); else the last head written.
personas=(
	"p-default/index/0/64/0,0,0,0,0,0/0/0/0/reset/1/host"
	"p-flipall/byte/5/128/64,0,32,0,32,0/256/30/1/head/1/dev"
	"p-2.1.5/byte/0/64/0,0,0,0,0,0/256/31/0/reset/1/host"
	"p-lastread/index/0/64/0,0,0,0,0,0/64/0/0/reset/0/host"
	"p-types/byte/0/64/64,0,128,0,32,0/0/0/0/reset/1/host"
	"p-typed/index/0/64/0,0,0,0,0,0/0/0/1/reset/1/host"
	"p-reprog-reset/index/3/64/0,0,0,0,0,0/0/0/0/reset/1/host"
	"p-reprog-head/index/3/64/0,0,0,0,0,0/0/20/0/head/1/host"
	"p-counter-lag/counter/3/128/0,0,0,0,0,0/256/0/0/reset/1/host"
	"p-devmem/index/0/64/0,0,0,0,0,0/0/0/0/reset/1/dev"
	"p-undecided/index/0/64/0,0,0,0,0,0/0/0/0/reset/1/host"
	"p-headread/byte/0/64/0,0,0,0,0,0/256/31/0/reset/1/host/pos"
	"p-headzero/index/3/64/0,0,0,0,0,0/0/0/0/head/1/host/zero"
	"p-headreset/byte/5/64/0,0,0,0,0,0/0/0/0/reset/1/host/reset"
)
# One more, drawn from the parameter space by a seed printed in the log
# (RIG_SEED to repeat one): a counter head with re-programming from the
# head is not drawn (nrt_play's counter restarts from the reset's start),
# nor the head read (to keep the seeds of earlier logs).
seed=${RIG_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "neuron-rig: drawn personality seed $seed (RIG_SEED=$seed repeats it)"
RANDOM=$seed
# draw VAR CHOICE...: one of the choices, in this shell (a subshell would
# not advance the seeded sequence, and bash reseeds it there).
draw() {
	local -n v=$1
	shift
	local a=("$@")
	v=${a[RANDOM % ${#a[@]}]}
}
draw d_unit index byte counter
draw d_es 32 64 128
draw t0 0 32 64 128
draw t2 0 32 64 128
draw t4 0 32 64 128
# A lag the runtime can write in every queue's unit: whole entries of the
# largest size drawn (a 64-byte lag on 128-byte entries is no head at all).
d_esmax=$d_es
for v in "$t0" "$t2" "$t4"; do
	[ "$v" -gt "$d_esmax" ] && d_esmax=$v
done
draw d_lag 0 0 256 "$d_esmax"
d_phase=0
[ "$d_unit" = counter ] || draw d_phase 0 16 24 31
draw d_reprog reset head
[ "$d_unit" = counter ] && d_reprog=reset
draw d_typed 0 1
draw d_init 0 1
draw d_place host dev
personas+=("p-seed$seed/$d_unit/$((RANDOM % 8))/$d_es/$t0,0,$t2,0,$t4,0/$d_lag/$d_phase/$d_typed/$d_reprog/$d_init/$d_place")
[ -n "${RIG_PERSONAS:-}" ] && read -ra personas <<<"$RIG_PERSONAS"
echo "neuron-rig: personalities: ${personas[*]}"
# The trn2 (v3 DHAL) runs the personalities named in RIG_V3_PERSONAS (by
# default p-default, p-flipall and the drawn one; "none" for none) of the
# list above: fewer than the trn1, as each costs a calibration and a capture.
v3names=${RIG_V3_PERSONAS-p-default p-flipall p-headzero p-seed$seed}
v3personas=()
for s in "${personas[@]}"; do
	case " $v3names " in *" ${s%%/*} "*) v3personas+=("$s") ;; esac
done
echo "neuron-rig: trn2 personalities: ${v3personas[*]}"
# What a personality's runtime does: the main steps, then queue 0 (core 0
# TRACE engine 1) re-programmed in new memory without a reset (item 7 of
# Documentation/hardware.rst's table), then core 1 TRACE engine 3, whose
# register set the driver shares with core 1's EVENT engine 3 (queue 2).
psteps="$steps realloc:core:0:0:1:8192 produce:4:40 heads:4:40:5 realloc:core:1:0:3:4096"
psteps="$psteps produce:5:30 heads:5:30:4"
# Its calibration: the same queue types, each consumed entry by entry over
# several wraps, then a re-program without a reset.
pcal="reset realloc:core:0:0:9:4096 realloc:core:0:4:2:4096 realloc:core:1:2:3:4096 realloc:ts:1:0:0:4096"
for _ in $(seq 25); do
	pcal="$pcal produce:0:16 consume:0:16 produce:1:16 consume:1:16 produce:2:16 consume:2:16"
	pcal="$pcal produce:3:16 consume:3:16"
done
# p-undecided calibrates without them: where a re-programmed queue is
# written and what a head register read returns stay undecided.
pcal_short=$pcal
pcal="$pcal realloc:core:0:0:9:4096"
for _ in $(seq 10); do pcal="$pcal produce:4:4 consume:4:4"; done
# ... and core 1's EVENT queue handed out again (what a head register read returns).
pcal="$pcal init:core:1:2:3:4096"
# The same on the trn2, on the blocks of its scenarios (v3steps): core 5
# TRACE engine 1, its TRACE_DMA on SDMA engine 2, core 2 EVENT engine 3,
# TopSP 11; then core 5's TRACE queue re-programmed without a reset and
# core 2 TRACE engine 3 sharing the EVENT queue's register set. Its
# resets are TPB resets of cores 2 and 5 (the device model does not see
# the driver's device reset on v3).
v3reset="reset:0x24"
v3psteps="$v3steps realloc:core:5:0:1:8192 produce:4:40 heads:4:40:5 realloc:core:2:0:3:4096"
v3psteps="$v3psteps produce:5:30 heads:5:30:4"
v3pcal="$v3reset realloc:core:5:0:9:4096 realloc:core:5:4:2:4096 realloc:core:2:2:3:4096 realloc:ts:11:0:0:4096"
for _ in $(seq 25); do
	v3pcal="$v3pcal produce:0:16 consume:0:16 produce:1:16 consume:1:16 produce:2:16 consume:2:16"
	v3pcal="$v3pcal produce:3:16 consume:3:16"
done
v3pcal_short=$v3pcal
v3pcal="$v3pcal realloc:core:5:0:9:4096"
for _ in $(seq 10); do v3pcal="$v3pcal produce:4:4 consume:4:4"; done
v3pcal="$v3pcal init:core:2:2:3:4096"
# A personality whose head register reads one value (head_read 2) goes on:
# the runtime frees every queue of core 0 (core 5 on the trn2: its TRACE,
# TRACE_DMA and TopSP queues), resets (the device; the trn2 cores 2 and 5),
# so that the core is reset while it has no queue programmed, and programs
# the core's TRACE engine 1 queue again in new memory. The device writes it
# from the reset's start; the last head written to its register set before
# the reset no longer counts (hook patch 10 announces the reset: patch 9
# announced only the queues a reset found).
prsteps="free:4 free:1 free:3 reset realloc:core:0:0:1:4096 produce:6:30 heads:6:30:3"
v3prsteps="free:4 free:1 free:3 $v3reset realloc:core:5:0:1:4096 produce:6:30 heads:6:30:3"
# Queues programmed before neuronprof_neuron loads: the runtime programs
# and consumes, waits while the provider (configured as p-default was) and
# a capture start, and goes on with the same queues; only what it consumes
# after that (mark) is expected.
existing="reset realloc:core:0:0:1:4096 realloc:ts:1:0:0:4096 produce:0:10 consume:0:10 produce:1:5"
existing="$existing consume:1:5 wait:/tmp/exgo mark:0 mark:1 produce:0:30 heads:0:30:7 produce:1:20 consume:1:20"
# RIG_CONF_SED: a sed expression applied to each personality's
# configuration before the provider loads it (to show how a capture fails
# with one fact configured wrong, e.g. 's/head_read_v2=2/head_read_v2=1/').
# RIG_TOLD=1: the provider is told the entry size and head unit, as the
# scenarios above do, instead of being configured by calibrate (how the
# personalities fail against a provider that knows only those two).

cat >"$work/guest.sh" <<EOF
#!/bin/sh
# record_start NAME: neuronprof record of one session into /out/NAME, its
# runtime (inspect_run) waiting on /tmp/NAME.ready; returns once that
# runtime is ready (at most 10 s), the recorder's pid in rp.
record_start() {
	/rig/neuronprof record --mode session --ring-size 1M --duration 60 -o /out/\$1 \\
		-- /rig/inspect_run /tmp/\$1.ready >/out/\$1.record 2>&1 &
	rp=\$!
	n=0
	while [ ! -e /tmp/\$1.ready ] && [ \$n -lt 100 ] && kill -0 \$rp 2>/dev/null; do
		sleep 0.1
		n=\$((n + 1))
	done
}
# probe ARCH PREFIX: load the emulated function and the vendor's driver,
# wait for the first device reset to complete.
probe() {
	insmod /rig/neuronprof_trn_emu.ko arch=\$1 base=0x100000000 ${RIG_EMU_ARGS:-} || echo "emu \$1: \$?" >>/out/errors
	# The driver's pool for small device allocations lies at the top of
	# HBM 0 (mempool_small_pool_size, 1 GiB below 16 GiB), past the
	# emulated BAR4 (64 MiB; on an instance BAR4 covers the HBM): without
	# it a device-memory queue comes from the main pool, inside BAR4.
	small=
	[ \$1 = v2 ] && small=mempool_small_pool_size=0
	modprobe neuron \$small || echo "neuron \$1: \$?" >>/out/errors
	n=0
	while ! dmesg | grep -q "nd0: reset request .* completed" && [ \$n -lt 300 ]; do
		sleep 0.1
		n=\$((n + 1))
	done
	dmesg >/out/\${2}probe.log
	ls -l /dev/neuron0 >/out/\${2}dev.txt 2>&1
	modprobe neuronprof
}
# scenarios LIST: each scenario captured by neuronprof record while the
# runtime plays its steps.
scenarios() {
	for s in \$1; do
		set -- \$(echo \$s | tr , ' ')
		name=\$1 es=\$2 unit=\$3 start=\$4 mode=\$5 v=\$7
		case \$6 in
		main) steps="$steps" ;;
		v3main) steps="$v3steps" ;;
		memfree) steps="$memfree" ;;
		rewind) steps="$rewind" ;;
		small) steps="$small" ;;
		esac
		if [ $prov = 0 ]; then
			/rig/nrt_play -e \$es -u \$unit -s \$start \$steps >/out/\$name.play 2>&1
			echo \$? >/out/\$name.play.rc
			continue
		fi
		modprobe neuronprof_neuron entry_size_v\$v=\$es head_mode_v\$v=\$mode ||
			echo "provider \$name: \$?" >>/out/errors
		record_start \$name
		/rig/nrt_play -e \$es -u \$unit -s \$start \$steps >/out/\$name.play 2>&1
		echo \$? >/out/\$name.play.rc
		cat /sys/kernel/debug/neuronprof_trn_emu/queues >/out/\$name.queues
		kill -TERM \$(pidof inspect_run) 2>/dev/null
		wait \$rp
		echo \$? >/out/\$name.record.rc
		rmmod neuronprof_neuron
	done
}
# calibrate PREFIX ES:UNIT...: neuronprof calibrate names the entry size
# and head unit the emulated hardware and the runtime use, without being told.
calibrate() {
	p=\$1
	shift
	modprobe neuronprof_neuron
	for c in "\$@"; do
		es=\${c%:*} unit=\${c#*:}
		/rig/neuronprof calibrate --duration 120 -o /out/\${p}cal-\$es-\$unit.rep -- \\
			/rig/nrt_play -e \$es -u \$unit -s 0 $calsteps >/out/\${p}cal-\$es-\$unit.out 2>&1
		echo \$? >/out/\${p}cal-\$es-\$unit.rc
	done
}
# hostile PREFIX LIST: the hostile runtime, one nrt_play per NAME:STEPS
# (with the provider loaded where it can be), then what the device model
# saw.
hostile() {
	p=\$1
	modprobe neuronprof_neuron 2>/dev/null
	for h in \$2; do
		name=\${h%%:*}
		/rig/nrt_play \$(echo \${h#*:} | tr , ' ') >/out/\${p}hostile-\$name.out 2>&1
		echo \$? >/out/\${p}hostile-\$name.rc
		cat /sys/kernel/debug/neuronprof_trn_emu/programmed >/out/\${p}hostile-\$name.programmed
	done
	rmmod neuronprof_neuron 2>/dev/null
	true
}
# races PREFIX LIST: nrt_race per race-NAME (with the provider loaded where
# it can be), each bounded: a thread stuck in the driver must not hang the
# run.
races() {
	p=\$1
	modprobe neuronprof_neuron 2>/dev/null
	for r in \$2; do
		name=\${r#race-}
		rm -f /out/\${p}\$r.rc
		# A runtime stuck in the driver (killed by a BUG_ON with a lock held)
		# must not hold the guest's output open either.
		( /rig/nrt_race -t ${RIG_RACE_SECONDS:-10} \$name >/out/\${p}\$r.out 2>&1; echo \$? >/out/\${p}\$r.rc ) \
			</dev/null >/dev/null 2>&1 &
		n=0
		while [ ! -e /out/\${p}\$r.rc ] && [ \$n -lt $((${RIG_RACE_SECONDS:-10} * 10 + 300)) ]; do
			sleep 0.1
			n=\$((n + 1))
		done
		[ -e /out/\${p}\$r.rc ] || echo stuck >/out/\${p}\$r.rc
	done
	rmmod neuronprof_neuron 2>/dev/null
	true
}
# unload RCFILE: removal runs the vendor's nnq_destroy_all(); bounded, so
# that /out comes back even if it never returns.
unload() {
	( rmmod neuronprof neuron neuronprof_trn_emu; echo \$? >\$1 ) &
	n=0
	while [ ! -e \$1 ] && [ \$n -lt 100 ]; do
		sleep 0.1
		n=\$((n + 1))
	done
}

# personas PREFIX LIST: per personality, calibrate infers its facts and
# writes the provider's configuration; the provider loads it; record
# captures while the runtime plays the personality's steps. PREFIX v3-
# plays the trn2's steps. Each personality's seconds go to PREFIXNAME.time.
personas() {
	p=\$1 v=2 ps="$psteps" pc="$pcal" sc="$pcal_short" rs=reset pr="$prsteps"
	[ "\$p" = v3- ] && v=3 ps="$v3psteps" pc="$v3pcal" sc="$v3pcal_short" rs=$v3reset pr="$v3prsteps"
	for s in \$2; do
		t0=\$(date +%s)
		set -- \$(echo \$s | tr / ' ')
		name=\$p\$1
		flags="-u \$2 -s \$3 -e \$4 -E \$5 -L \$6 -P \$7 -R \$9"
		[ "\$8" = 1 ] && flags="\$flags -T"
		[ "\${10}" = 0 ] && flags="\$flags -I"
		[ "\${11}" = dev ] && flags="\$flags -D"
		[ "\${12:-last}" = pos ] && flags="\$flags -H"
		[ "\${12:-last}" = zero ] && flags="\$flags -Z 0"
		if [ "\${12:-last}" = reset ]; then
			rv=\$3
			[ \$2 = byte ] && rv=\$((\$3 * \$4))
			flags="\$flags -Z \$rv"
		fi
		echo "\$flags" >/out/\$name.flags
		pst="\$ps"
		case "\${12:-last}" in zero | reset) pst="\$ps \$pr" ;; esac
		if [ "${RIG_TOLD:-0}" = 1 ]; then
			case \$2 in index) m=0 ;; byte) m=1 ;; *) m=2 ;; esac
			echo "options neuronprof_neuron entry_size_v\$v=\$4 head_mode_v\$v=\$m" >/out/\$name.conf
		else
			modprobe neuronprof_neuron
			cal="\$pc"
			[ \$1 = p-undecided ] && cal="\$sc"
			# Calibrated on host-memory queues: a device-memory ring is not
			# cleared when allocated, so where the device wrote cannot be told.
			/rig/neuronprof calibrate --duration 300 -o /out/\$name.cal --config /out/\$name.conf \\
				-- /rig/nrt_play \$(echo \$flags | sed 's/ -D//') \$cal >/out/\$name.cal.out 2>&1
			echo \$? >/out/\$name.cal.rc
			rmmod neuronprof_neuron
			if [ "\$(cat /out/\$name.cal.rc)" != 0 ]; then
				echo \$((\$(date +%s) - t0)) >/out/\$name.time
				continue
			fi
		fi
		[ -n "${RIG_CONF_SED:-}" ] && sed -i "${RIG_CONF_SED:-}" /out/\$name.conf
		modprobe neuronprof_neuron \$(sed -n 's/^options neuronprof_neuron //p' /out/\$name.conf) ||
			echo "provider \$name: \$?" >>/out/errors
		/rig/nrt_play \$rs >/dev/null 2>&1
		record_start \$name
		/rig/nrt_play \$flags \$pst >/out/\$name.play 2>&1
		echo \$? >/out/\$name.play.rc
		cat /sys/kernel/debug/neuronprof_trn_emu/queues >/out/\$name.queues
		kill -TERM \$(pidof inspect_run) 2>/dev/null
		wait \$rp
		echo \$? >/out/\$name.record.rc
		rmmod neuronprof_neuron
		echo \$((\$(date +%s) - t0)) >/out/\$name.time
	done
}

# dmacopy PREFIX COPIES: the vendor's own DMA copy on each core's
# host-device queue, which the device model executes (trn_emu_udma.c):
# MEM_BUF_COPY to and from device memory and MEM_COPY from it to host
# memory must bring every byte back. Then one more copy (the first
# copy's core, 4096 bytes) with the model's thread and nrt_play both on
# CPU 0: the copy completes only if the thread preempts the driver's poll
# (preempt=full, above); the thread's affinity is given back after it.
dmacopy() {
	[ "${RIG_DMA:-1}" = 1 ] || return 0
	for c in \$2; do
		/rig/nrt_play dmacopy:\$c >>/out/\$1dmacopy.out 2>&1
		echo \$? >>/out/\$1dmacopy.rc
	done
	cat /sys/kernel/debug/neuronprof_trn_emu/udma >/out/\$1dmacopy.udma 2>&1
	udma_pid=
	for f in /proc/[0-9]*/comm; do
		[ "\$(cat \$f 2>/dev/null)" = neuronprof_udma ] || continue
		udma_pid=\${f%/comm}
		udma_pid=\${udma_pid#/proc/}
	done
	first=\${2%% *}
	{
		[ -n "\$udma_pid" ] || echo "no neuronprof_udma thread"
		taskset -p 1 \$udma_pid && taskset 1 /rig/nrt_play dmacopy:\${first%%:*}:4096:1
		echo "rc \$?"
		taskset -p ffffffff \$udma_pid
	} >/out/\$1dmacopy-shared.out 2>&1
}
probe v2 ""
dmacopy "" "$dma_v2"
if [ $pers = 1 ]; then
personas "" "${personas[*]}"
rm -f /tmp/exgo /tmp/exgo.waiting
/rig/nrt_play \$(cat /out/p-default.flags) $existing >/out/existing.play 2>&1 &
pp=\$!
n=0
while [ ! -e /tmp/exgo.waiting ] && [ \$n -lt 300 ]; do sleep 0.1; n=\$((n + 1)); done
modprobe neuronprof_neuron \$(sed -n 's/^options neuronprof_neuron //p' /out/p-default.conf) ||
	echo "provider existing: \$?" >>/out/errors
record_start existing
touch /tmp/exgo
wait \$pp
echo \$? >/out/existing.play.rc
kill -TERM \$(pidof inspect_run) 2>/dev/null
wait \$rp
echo \$? >/out/existing.record.rc
rmmod neuronprof_neuron
# p-devmem again, its device-memory queues read by the vendor's DMA copy
# (devmem_read=dma, hook patch 11) on the device model's UDMA: the same
# configuration otherwise, the same steps.
if [ -s /out/p-devmem.conf ]; then
	name=p-devmem-dma
	t0=\$(date +%s)
	cp /out/p-devmem.flags /out/\$name.flags
	cp /out/p-devmem.cal.rc /out/\$name.cal.rc 2>/dev/null
	sed '/^options neuronprof_neuron/s/\$/ devmem_read=dma/' /out/p-devmem.conf >/out/\$name.conf
	cat /sys/kernel/debug/neuronprof_trn_emu/udma >/out/\$name.udma-before
	modprobe neuronprof_neuron \$(sed -n 's/^options neuronprof_neuron //p' /out/\$name.conf) ||
		echo "provider \$name: \$?" >>/out/errors
	/rig/nrt_play reset >/dev/null 2>&1
	record_start \$name
	/rig/nrt_play \$(cat /out/\$name.flags) $psteps >/out/\$name.play 2>&1
	echo \$? >/out/\$name.play.rc
	kill -TERM \$(pidof inspect_run) 2>/dev/null
	wait \$rp
	echo \$? >/out/\$name.record.rc
	cat /sys/kernel/debug/neuronprof_trn_emu/udma >/out/\$name.udma-after
	rmmod neuronprof_neuron
	echo \$((\$(date +%s) - t0)) >/out/\$name.time
fi
# What a captured head write costs on a queue in device memory, read
# through BAR4 (dev) or by the vendor's DMA copy (dma, devmem_read=dma),
# and in host memory: 64 entries of 64 bytes per head write, not
# subscribed and captured, RIG_DEVBENCH_RUNS (3) times each, in turn.
modprobe neuronprof_neuron \$(sed -n 's/^options neuronprof_neuron //p' /out/p-default.conf)
for t in \$(seq ${RIG_DEVBENCH_RUNS:-3}); do
	for where in dev dma host; do
		d=; [ \$where != host ] && d=-D
		if [ \$where = dma ]; then
			rmmod neuronprof_neuron
			modprobe neuronprof_neuron \$(sed -n 's/^options neuronprof_neuron //p' /out/p-default.conf) \\
				devmem_read=dma || echo "provider devbench dma: \$?" >>/out/errors
		fi
		/rig/nrt_play \$d reset realloc:core:0:0:1:65536 bench:0:64:500:200 >>/out/devbench-\$where-off.txt 2>&1
		/rig/neuronprof record --mode session --ring-size 8M --duration 60 -o /out/devbench \\
			-- /rig/inspect_run /tmp/devbench.ready >/out/devbench.record 2>&1 &
		rp=\$!
		n=0
		while [ ! -e /tmp/devbench.ready ] && [ \$n -lt 100 ] && kill -0 \$rp 2>/dev/null; do
			sleep 0.1
			n=\$((n + 1))
		done
		/rig/nrt_play \$d reset realloc:core:0:0:1:65536 bench:0:64:500:200 >>/out/devbench-\$where-on.txt 2>&1
		kill -TERM \$(pidof inspect_run) 2>/dev/null
		wait \$rp
		for f in \$(find /out/devbench -name '*.ntff'); do
			/rig/neuronprof dump --entries 0 \$f
		done >>/out/devbench-\$where-on.dump 2>&1
		rm -rf /out/devbench /tmp/devbench.ready
		if [ \$where = dma ]; then
			rmmod neuronprof_neuron
			modprobe neuronprof_neuron \$(sed -n 's/^options neuronprof_neuron //p' /out/p-default.conf)
		fi
	done
done
rmmod neuronprof_neuron
fi
if [ "${RIG_PERSONAS_ONLY:-0}" != 1 ]; then
scenarios "$(scenario_list 2)"
if [ $prov = 1 ] && [ ${RIG_CALIBRATE:-1} = 1 ]; then
calibrate "" 32:index 64:index 128:index 32:byte 64:byte 128:byte 32:counter 64:counter 128:counter
/rig/neuronprof calibrate --duration 60 -o - -- /rig/nrt_play realloc:core:0:0:9:4096 \\
	produce:0:3 consume:0:3 >/out/cal-few.out 2>&1
echo \$? >/out/cal-few.rc
rmmod neuronprof_neuron
# Last: before the fix, a bad entry size oopsed the kernel.
# Parameters a copy would divide by or overrun with: refused at load.
for bad in entry_size_v2=16 entry_size_v2=48 entry_size_v3=8 head_mode_v2=3; do
	if modprobe neuronprof_neuron \$bad 2>/dev/null; then
		echo "\$bad" >>/out/params.accepted
		rmmod neuronprof_neuron
	fi
done
: >/out/params.done
fi
hostile "" "$hostile_v2"
races "" "$races_v2"
fi
unload /out/rmmod.rc
dmesg >/out/dmesg.txt

# A runtime that opens the device while it is probed: neuronprof_neuron is
# loaded before the device appears, and the runtime opens /dev/neuron0 as
# soon as it exists and programs a queue. With no_reset=1 the driver marks
# the device ready inside its probe (nr_start_ncs()), so the runtime's
# NOTIFICATIONS_INIT can come before the probe ends. Every queue must be
# programmed after the hook announced the device: the walk at the
# announcement finds none (early_queues 0). The runtime keeps the device
# open 3 s: closing it before the probe initialised the datastore
# dereferences NULL in the vendor's neuron_ds_clear() (ncdev_release(), an
# oops), as opening it before the node's device is set does in
# ncdev_open() (nrt_play -W waits 20 ms for that).
if [ $prov = 1 ] && [ "${RIG_EARLY:-1}" = 1 ] && [ "\$(cat /out/rmmod.rc 2>/dev/null)" = 0 ]; then
	dmesg -c >/dev/null
	modprobe neuron no_reset=1 mempool_small_pool_size=0 && modprobe neuronprof &&
		modprobe neuronprof_neuron || echo "early: modules: \$?" >>/out/errors
	/rig/nrt_play -W 30000 realloc:core:0:0:1:4096 realloc:ts:1:0:0:4096 sleep:3000 \\
		>/out/early.play 2>&1 &
	ep=\$!
	sleep 1
	insmod /rig/neuronprof_trn_emu.ko arch=v2 base=0x100000000 || echo "early: emu: \$?" >>/out/errors
	wait \$ep
	echo \$? >/out/early.play.rc
	cat /sys/module/neuronprof_neuron/parameters/early_queues >/out/early.count 2>&1
	rmmod neuronprof_neuron
	unload /out/early-rmmod.rc
	dmesg >/out/early.dmesg
	[ "\$(cat /out/early-rmmod.rc 2>/dev/null)" = 0 ] || exit 0
fi

# The trn2, in the same VM: the vendor's driver takes its v3 DHAL.
[ "\$(cat /out/rmmod.rc 2>/dev/null)" = 0 ] || exit 0
dmesg -c >/dev/null
probe v3 v3-
dmacopy v3- "$dma_v3"
[ $pers = 1 ] && personas v3- "${v3personas[*]}"
if [ "${RIG_PERSONAS_ONLY:-0}" != 1 ]; then
scenarios "$(scenario_list 3)"
if [ $prov = 1 ] && [ ${RIG_CALIBRATE:-1} = 1 ]; then
calibrate v3- 32:index 64:byte 128:counter
rmmod neuronprof_neuron
fi
hostile v3- "$hostile_v3"
races v3- "$races_v3"
fi
unload /out/v3-rmmod.rc
dmesg >/out/v3-dmesg.txt

# The probe race (fixes 9 and 10), last: without the fixes it oopses.
# nrt_probe opens and closes the device from the moment its node appears,
# for 2 s; each round bounded, and the rounds stop at the first oops or
# stuck runtime (the VM is then left as it is: nothing more can be
# unloaded).
if [ -n "$probe_race" ] && [ "\$(cat /out/v3-rmmod.rc 2>/dev/null)" = 0 ]; then
	dmesg -c >/dev/null
	: >/out/probe-race.rcs
	for i in \$(seq ${RIG_PROBE_ROUNDS:-5}); do
		modprobe neuron no_reset=1 mempool_small_pool_size=0 || echo "probe-race: neuron: \$?" >>/out/errors
		rm -f /out/probe-race.rc
		( /rig/nrt_probe -t 2 >>/out/probe-race.out 2>&1; echo \$? >/out/probe-race.rc ) \
			</dev/null >/dev/null 2>&1 &
		sleep 0.5
		insmod /rig/neuronprof_trn_emu.ko arch=v2 base=0x100000000 || echo "probe-race: emu: \$?" >>/out/errors
		n=0
		while [ ! -e /out/probe-race.rc ] && [ \$n -lt 300 ]; do
			sleep 0.1
			n=\$((n + 1))
		done
		rc=\$(cat /out/probe-race.rc 2>/dev/null || echo stuck)
		echo \$rc >>/out/probe-race.rcs
		if [ \$rc = stuck ] || dmesg | grep -q "BUG:\\|Oops\\|general protection"; then
			dmesg >/out/probe-race.dmesg
			exit 0
		fi
		rm -f /out/probe-race-rmmod.rc
		( rmmod neuron neuronprof_trn_emu; echo \$? >/out/probe-race-rmmod.rc ) &
		n=0
		while [ ! -e /out/probe-race-rmmod.rc ] && [ \$n -lt 100 ]; do
			sleep 0.1
			n=\$((n + 1))
		done
		if [ "\$(cat /out/probe-race-rmmod.rc 2>/dev/null)" != 0 ]; then
			echo "probe-race: rmmod: \$(cat /out/probe-race-rmmod.rc 2>/dev/null || echo stuck)" >>/out/errors
			dmesg >/out/probe-race.dmesg
			exit 0
		fi
	done
	dmesg >/out/probe-race.dmesg
fi

# Fix 12: the trn1 unbound from neuron-driver and bound again; the probe
# finds its routing id's slot of neuron_devices[] taken unless the removal
# cleared it (dup_helper_enable=0: no "modprobe -r neuron" scheduled).
# Fix 11: the trn1's probe fails in nmetric_init(), after /dev/neuron0
# exists; then the node is opened, neuron.ko unloaded, the node opened
# again. Last: without fix 11 the second open oopses.
wait_file() {
	n=0
	while [ ! -e \$1 ] && [ \$n -lt 100 ]; do
		sleep 0.1
		n=\$((n + 1))
	done
}
if [ -n "$probe_fail" ] && [ ! -d /sys/module/neuron ] && [ ! -d /sys/module/neuronprof_trn_emu ]; then
	case " $probe_fail " in
	*" rebind "*)
		dmesg -c >/dev/null
		modprobe neuron dup_helper_enable=0 mempool_small_pool_size=0 || echo "rebind: neuron: \$?" >>/out/errors
		insmod /rig/neuronprof_trn_emu.ko arch=v2 base=0x100000000 || echo "rebind: emu: \$?" >>/out/errors
		n=0
		while [ "\$(dmesg | grep -c 'nd0: reset request .* completed')" -lt 1 ] && [ \$n -lt 300 ]; do
			sleep 0.1
			n=\$((n + 1))
		done
		drv=/sys/bus/pci/drivers/neuron-driver
		bdf=\$(ls \$drv | grep ':' | head -n 1)
		echo "bound: \$bdf" >/out/rebind.out
		echo \$bdf >\$drv/unbind 2>>/out/rebind.out
		echo "unbind: \$?" >>/out/rebind.out
		ls /dev/neuron0 >>/out/rebind.out 2>&1
		echo \$bdf >\$drv/bind 2>>/out/rebind.out
		echo \$? >/out/rebind.bind
		n=0
		while [ "\$(dmesg | grep -c 'nd0: reset request .* completed')" -lt 2 ] && [ \$n -lt 300 ] &&
			[ "\$(cat /out/rebind.bind)" = 0 ]; do
			sleep 0.1
			n=\$((n + 1))
		done
		# <> would create a file where the node is missing.
		if [ -c /dev/neuron0 ]; then
			( : <>/dev/neuron0 ) 2>>/out/rebind.out
			echo \$? >/out/rebind.open
		else
			echo "no node" >/out/rebind.open
		fi
		( rmmod neuron neuronprof_trn_emu; echo \$? >/out/rebind-rmmod.rc ) &
		wait_file /out/rebind-rmmod.rc
		dmesg >/out/rebind.dmesg
		;;
	esac
	case " $probe_fail " in
	*" probe-fail "*)
		[ -d /sys/module/neuron ] && exit 0
		dmesg -c >/dev/null
		modprobe neuron mempool_small_pool_size=0 || echo "probe-fail: neuron: \$?" >>/out/errors
		insmod /rig/neuronprof_trn_emu.ko arch=v2 base=0x100000000 fail_probe=nmetric_init ||
			echo "probe-fail: emu: \$?" >>/out/errors
		# The reset the probe queued runs (or not) meanwhile.
		sleep 2
		ls -l /dev/neuron0 >/out/probe-fail.out 2>&1
		[ -e /dev/neuron0 ] && [ ! -c /dev/neuron0 ] && echo "/dev/neuron0 is no device node" >>/out/probe-fail.out
		echo "reset threads: \$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^nd0 reset')" >>/out/probe-fail.out
		( : </dev/neuron0 ) 2>>/out/probe-fail.out
		echo "open: \$?" >>/out/probe-fail.out
		( rmmod neuron; echo \$? >/out/probe-fail-rmmod.rc ) &
		wait_file /out/probe-fail-rmmod.rc
		echo "rmmod neuron: \$(cat /out/probe-fail-rmmod.rc 2>/dev/null || echo stuck)" >>/out/probe-fail.out
		# A node that outlived neuron.ko opens into the module's freed
		# memory: an oops in chrdev_open() with cdev_lock held, after which
		# no character device opens and the VM hangs (RIG_PROBE_FAIL_OOPS=1).
		if [ -c /dev/neuron0 ] && [ "${RIG_PROBE_FAIL_OOPS:-0}" != 1 ]; then
			echo "open after rmmod: skipped, the node outlived neuron.ko" >>/out/probe-fail.out
		else
			( : </dev/neuron0 ) 2>>/out/probe-fail.out
			echo "open after rmmod: \$?" >>/out/probe-fail.out
		fi
		sleep 1
		dmesg >/out/probe-fail.dmesg
		rmmod neuronprof_trn_emu
		;;
	esac
fi
EOF

vm_run "$work/guest.sh"
rc=$?
result "the VM ran the rig cleanly (no WARN, oops, KASAN or lockdep report; exit $rc)" $rc "$work/vm.log"
[ -s "$out/errors" ] && sed 's/^/# /' "$out/errors"
[ "$(cat "$out/rmmod.rc" 2>/dev/null)" = 0 ]
result "neuron.ko, neuronprof and the emulated function unload" $? "$out/dmesg.txt"

grep -q "nd0: reset request .* completed" "$out/probe.log" 2>/dev/null && grep -q "^c" "$out/dev.txt" 2>/dev/null
result "the vendor's neuron.ko probes the emulated trn1 and its reset completes: /dev/neuron0" $? "$out/probe.log"
# dma_checks PREFIX DEVICE COPIES: every copy succeeded, and the device
# model executed descriptors on each core's queue, with no error.
dma_checks() {
	local copies=$3 ncopies ncores rc
	[ "${RIG_DMA:-1}" = 1 ] || return 0
	ncopies=$(wc -w <<<"$copies")
	ncores=$(tr ' ' '\n' <<<"$copies" | cut -d: -f1 | sort -u | wc -l)
	[ "$(tr -d '\n' <"$out/$1dmacopy.rc" 2>/dev/null)" = "$(printf '0%.0s' $(seq "$ncopies"))" ] &&
		[ "$(grep -c '^dmacopy ok' "$out/$1dmacopy.out" 2>/dev/null)" = "$ncopies" ] &&
		[ "$(grep -c 'pairs [1-9][0-9]* .*errors 0$' "$out/$1dmacopy.udma" 2>/dev/null)" -ge "$ncores" ] &&
		! grep -q 'errors [1-9]' "$out/$1dmacopy.udma"
	rc=$?	# before the command substitution below changes $?
	result "the vendor's DMA copy (MEM_BUF_COPY, MEM_COPY) through device memory brings every byte back on each core's host-device queue ($2: $copies; the device model's UDMA: $(tr '\n' ';' <"$out/$1dmacopy.udma" 2>/dev/null))" $rc "$out/$1dmacopy.out"
	grep -q "new affinity mask: 1$" "$out/$1dmacopy-shared.out" 2>/dev/null &&
		grep -q '^dmacopy ok' "$out/$1dmacopy-shared.out" && grep -qx 'rc 0' "$out/$1dmacopy-shared.out"
	result "$2: a DMA copy completes while the driver polls for it on the CPU the device model's thread is on (both on CPU 0)" $? "$out/$1dmacopy-shared.out"
}
dma_checks "" trn1 "$dma_v2"
if [ $pers = 1 ]; then
# persona_checks PREFIX DEVICE SPEC...: each personality's results on
# DEVICE (its files under PREFIX), with the seconds it took in the VM.
persona_checks() {
	local p=$1 dev=$2 s name es rc n
	shift 2
	for s in "$@"; do
		IFS=/ read -r name _ _ es _ _ _ _ _ _ _ hr <<<"$s"
		n=$name name=$p$name
		echo "# $n ($dev): $(cat "$out/$name.time" 2>/dev/null || echo '?') s (calibration and capture)"
		if [ "${RIG_TOLD:-0}" != 1 ] && [ "$(cat "$out/$name.cal.rc" 2>/dev/null)" != 0 ]; then
			# Undecided: it must say which fact and why, and configure nothing;
			# only p-undecided's calibration lacks the evidence.
			[ "$n" = p-undecided ] && grep -q "not enough data" "$out/$name.cal.out" 2>/dev/null &&
				[ ! -s "$out/$name.conf" ]
			rc=$?	# before the command substitution below changes $?
			result "$n ($dev): calibrate cannot decide and names the fact ($(grep -m1 -o 'not enough data.*' "$out/$name.cal.out" 2>/dev/null))" $rc "$out/$name.cal.out"
			continue
		fi
		if [ "${hr:-last}" = pos ] && [ "${RIG_TOLD:-0}" != 1 ]; then
			# A register that reads the consumed position, not the head
			# written: calibrate must not take a read as the runtime's head.
			grep -q "head_read_v[23]=0" "$out/$name.conf" 2>/dev/null &&
				grep -q "a read of a head register does not return the last head written" "$out/$name.cal.out"
			result "$n ($dev): calibrate finds that a read of a head register is not the last head written (head_read 0)" $? "$out/$name.cal.out"
		fi
		if [ "${hr:-last}" = zero ] || [ "${hr:-last}" = reset ] && [ "${RIG_TOLD:-0}" != 1 ]; then
			# A register that reads one value: calibrate must find it and
			# follow the heads written (head_read 2), not take a read.
			grep -q "head_read_v[23]=2" "$out/$name.conf" 2>/dev/null &&
				grep -q "a read of a head register returns [0-9]* whatever was written" "$out/$name.cal.out"
			result "$n ($dev): calibrate finds that a read of a head register returns one value whatever was written (head_read 2)" $? "$out/$name.cal.out"
		fi
		[ "$(cat "$out/$name.play.rc" 2>/dev/null)" = 0 ]
		rc=$?	# before the command substitution below changes $?
		result "$n ($dev): the runtime's steps succeed ($(cat "$out/$name.flags" 2>/dev/null))" $rc "$out/$name.play"
		[ "$(cat "$out/$name.record.rc" 2>/dev/null)" = 0 ]
		result "$n ($dev): neuronprof record succeeds" $? "$out/$name.record"
		check_capture "$name" "$es"
		rc=$?
		result "$n ($dev): configured by calibrate ($(sed -n 's/^options neuronprof_neuron //p' "$out/$name.conf" 2>/dev/null)), every consumed byte arrives once, delivered + lost = consumed" $rc "$work/$name.check"
		[ $rc -eq 0 ] && sed 's/^/# /' "$work/$name.check"
	done
}
persona_checks "" trn1 "${personas[@]}"
if [ -s "$out/p-devmem-dma.conf" ]; then
	for s in "${personas[@]}"; do
		[ "${s%%/*}" = p-devmem ] && persona_checks "" trn1 "p-devmem-dma/${s#*/}"
	done
	# Its device-memory queues were read by DMA: the device model executed
	# descriptors meanwhile, without an error.
	b=$(awk '{ s += $12 } END { print s + 0 }' "$out/p-devmem-dma.udma-before" 2>/dev/null)
	a=$(awk '{ s += $12 } END { print s + 0 }' "$out/p-devmem-dma.udma-after" 2>/dev/null)
	[ "${a:-0}" -gt "${b:-0}" ] && ! grep -q "errors [1-9]" "$out/p-devmem-dma.udma-after"
	rc=$?
	result "p-devmem-dma (trn1): the provider read the device-memory queues by the vendor's DMA copy (the device model executed $((${a:-0} - ${b:-0})) descriptor pairs)" $rc "$out/p-devmem-dma.udma-after"
fi
[ "$(cat "$out/existing.play.rc" 2>/dev/null)" = 0 ] && [ "$(cat "$out/existing.record.rc" 2>/dev/null)" = 0 ]
result "queues programmed before neuronprof_neuron loaded: the runtime and record succeed" $? "$out/existing.play"
check_capture existing 64
rc=$?
result "queues programmed before neuronprof_neuron loaded: what the runtime consumed after the capture began arrives, delivered + lost = consumed" $rc "$work/existing.check"
[ $rc -eq 0 ] && sed 's/^/# /' "$work/existing.check"
# devbench_median FILE: the median of the head-write times FILE's runs printed.
devbench_median() {
	sed -n 's/.*head write \([0-9]*\) ns.*/\1/p' "$1" 2>/dev/null | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
for where in dev dma host; do
	for c in off on; do
		echo "# head write, queue in $where memory, $([ $c = on ] && echo captured || echo not subscribed):" \
			$(sed -n 's/.*head write \([0-9]*\) ns.*/\1/p' "$out/devbench-$where-$c.txt" 2>/dev/null | tr '\n' ' ') ns
	done
	# What the capture adds per head write (4 KiB consumed), medians of the runs.
	on=$(devbench_median "$out/devbench-$where-on.txt")
	off=$(devbench_median "$out/devbench-$where-off.txt")
	[ -n "$on" ] && [ -n "$off" ] &&
		echo "# $where: a captured head write adds $((on - off)) ns, $(((on - off) / 4)) ns per KiB (medians)"
done
grep -h "ring entries\|lost" "$out"/devbench-*-on.dump 2>/dev/null | sed 's/^/# /' | head -n 12
fi
if [ $prov = 1 ] && [ "${RIG_EARLY:-1}" = 1 ]; then
	[ "$(cat "$out/early.play.rc" 2>/dev/null)" = 0 ]
	result "a runtime that opens the device while it is probed: its steps succeed" $? "$out/early.play"
	early=$(cat "$out/early.count" 2>/dev/null)
	[ "$early" = 0 ] && ! grep -q "was programmed before neuron" "$out/early.dmesg"
	result "the hook announces the device before its queues can be programmed (queues found programmed at the announcement: ${early:-none read})" $? "$out/early.dmesg"
fi
grep -q "trn2 function .*(v3 DHAL)" "$out/v3-probe.log" 2>/dev/null &&
	grep -q "nd0: reset request .* completed" "$out/v3-probe.log" && grep -q "^c" "$out/v3-dev.txt" 2>/dev/null
result "the vendor's neuron.ko probes the emulated trn2 (v3 DHAL) and its reset completes: /dev/neuron0" $? "$out/v3-probe.log"
dma_checks v3- trn2 "$dma_v3"
[ "$(cat "$out/v3-rmmod.rc" 2>/dev/null)" = 0 ]
result "neuron.ko, neuronprof and the emulated trn2 unload" $? "$out/v3-dmesg.txt"
[ $pers = 1 ] && persona_checks v3- trn2 "${v3personas[@]}"
[ "${RIG_PERSONAS_ONLY:-0}" = 1 ] && finish

cal=${RIG_CALIBRATE:-1}
[ $prov = 1 ] || cal=0
if [ "$cal" = 1 ]; then
[ -e "$out/params.done" ] && [ ! -s "$out/params.accepted" ]
result "neuronprof_neuron refuses entry sizes below 32 or not a power of two and unknown head modes at load" $? "$out/params.accepted"
fi

for s in "${scenarios[@]}"; do
	set -- $s
	name=$1 es=$2
	dev=trn1
	[ "$7" = 3 ] && dev=trn2
	[ "$(cat "$out/$name.play.rc" 2>/dev/null)" = 0 ]
	result "$name: the runtime's steps through the vendor uapi succeed" $? "$out/$name.play"
	[ $prov = 1 ] || continue
	[ "$(cat "$out/$name.record.rc" 2>/dev/null)" = 0 ]
	result "$name: neuronprof record succeeds" $? "$out/$name.record"
	check_capture "$name" "$es"
	rc=$?
	result "$name ($dev): every consumed byte arrives, delivered + lost = consumed (core, TRACE_DMA, TopSP)" $rc "$work/$name.check"
	[ $rc -eq 0 ] && sed 's/^/# /' "$work/$name.check"
done

# hostile_checks PREFIX DEVICE LIST: each hostile step was refused.
hostile_checks() {
	local p=$1 dev=$2 h name
	for h in $3; do
		name=${h%%:*}
		what=$(grep -h -m1 '^refused \|^HOLE ' "$out/${p}hostile-$name.out" 2>/dev/null | cut -c1-100)
		[ "$(cat "$out/${p}hostile-$name.rc" 2>/dev/null)" = 0 ] &&
			grep -q "^refused " "$out/${p}hostile-$name.out" && ! grep -q "^HOLE " "$out/${p}hostile-$name.out"
		result "hostile runtime ($dev) $name: the driver refuses (${what:-no answer})" $? \
			"$out/${p}hostile-$name.out"
	done
}
hostile_checks "" trn1 "$hostile_v2"
hostile_checks v3- trn2 "$hostile_v3"
# race_checks PREFIX DEVICE LIST: no round of a race failed.
race_checks() {
	local p=$1 dev=$2 r what rc
	for r in $3; do
		what=$(grep -h -m1 '^race ' "$out/$p$r.out" 2>/dev/null | cut -c1-160)
		[ "$(cat "$out/$p$r.rc" 2>/dev/null)" = 0 ] && grep -q "^race .* 0 failed" "$out/$p$r.out"
		rc=$?	# before the command substitution below changes $?
		result "hostile runtime ($dev) $r: no round fails (${what:-no answer: $(cat "$out/$p$r.rc" 2>/dev/null)})" $rc \
			"$out/$p$r.out"
	done
}
race_checks "" trn1 "$races_v2"
race_checks v3- trn2 "$races_v3"
# The probe race: every round's nrt_probe found the device usable after
# the loop, none got stuck, and the kernel log of the rounds shows no oops.
if [ -n "$probe_race" ]; then
	rcs=$(tr '\n' ' ' <"$out/probe-race.rcs" 2>/dev/null)
	again=$(grep -o '[0-9]* refused (EAGAIN)' "$out/probe-race.out" 2>/dev/null | awk '{ n += $1 } END { print n + 0 }')
	[ -s "$out/probe-race.dmesg" ] && ! grep -q "BUG:\|Oops\|general protection" "$out/probe-race.dmesg" &&
		[ "$rcs" = "$(printf '0 %.0s' $(seq "${RIG_PROBE_ROUNDS:-5}"))" ]
	rc=$?
	if [ $rc -ne 0 ] && [ -s "$out/probe-race.dmesg" ]; then
		grep -m1 -B2 -A12 "BUG:\|Oops\|general protection" "$out/probe-race.dmesg" >"$work/probe-race.why" 2>/dev/null ||
			cp "$out/probe-race.out" "$work/probe-race.why"
	else
		cp "$out/probe-race.out" "$work/probe-race.why" 2>/dev/null
	fi
	result "hostile runtime (trn1) race-probe: opening and closing the device while it is probed, ${RIG_PROBE_ROUNDS:-5} rounds: no oops, the device usable after each (rounds' status: ${rcs:-none}; opens refused with EAGAIN: $again)" $rc \
		"$work/probe-race.why"
	sed 's/^/# /' "$out/probe-race.out" 2>/dev/null | head -n 10
fi

# Fix 12: the device bound again probes (its slot was cleared) and opens.
case " $probe_fail " in
*" rebind "*)
	[ "$(cat "$out/rebind.bind" 2>/dev/null)" = 0 ] && [ "$(cat "$out/rebind.open" 2>/dev/null)" = 0 ] &&
		! grep -q "duplicate routing id\|BUG:\|Oops\|general protection" "$out/rebind.dmesg" 2>/dev/null &&
		[ "$(cat "$out/rebind-rmmod.rc" 2>/dev/null)" = 0 ]
	rc=$?
	{ cat "$out/rebind.out"; grep -m3 "duplicate routing id\|BUG:\|Oops\|general protection" "$out/rebind.dmesg"; } \
		>"$work/rebind.why" 2>/dev/null
	result "hostile runtime (trn1) rebind: a device unbound and bound again probes and opens (bind status $(cat "$out/rebind.bind" 2>/dev/null || echo none))" $rc "$work/rebind.why"
	;;
esac
# Fix 11: the probe failed where it was made to (the emulated function's
# log says so) and left no node, no reset thread, nothing to open before
# or after neuron.ko is unloaded, and no oops.
case " $probe_fail " in
*" probe-fail "*)
	grep -q "fail_probe: nmetric_init returns -ENOMEM" "$out/probe-fail.dmesg" 2>/dev/null &&
		grep -q "^reset threads: 0$" "$out/probe-fail.out" &&
		[ "$(grep -ci "no such file" "$out/probe-fail.out")" = 3 ] &&
		grep -q "^open: [1-9]" "$out/probe-fail.out" && grep -q "^open after rmmod: [1-9]" "$out/probe-fail.out" &&
		grep -q "^rmmod neuron: 0$" "$out/probe-fail.out" &&
		! grep -q "BUG:\|Oops\|general protection\|ncdev is not NULL" "$out/probe-fail.dmesg"
	rc=$?
	{ cat "$out/probe-fail.out"; grep "fail_probe\|probe of\|nd0: reset request\|ncdev is not NULL" "$out/probe-fail.dmesg"
		grep -m1 -B2 -A12 "BUG:\|Oops\|general protection" "$out/probe-fail.dmesg"; } \
		>"$work/probe-fail.why" 2>/dev/null
	result "hostile runtime (trn1) probe-fail: a probe failing after the node exists leaves no node, no reset thread, no oops on open" $rc \
		"$work/probe-fail.why"
	;;
esac

if [ "$cal" = 1 ]; then
# calibrated PREFIX V DEVICE ES:UNIT...: calibrate's verdicts.
calibrated() {
	local p=$1 v=$2 dev=$3 c es unit m
	shift 3
	for c in "$@"; do
		es=${c%:*} unit=${c#*:}
		case $unit in index) m="entry index" ;; byte) m="byte offset" ;; *) m="free-running counter" ;; esac
		# One TRACE queue, never re-programmed or handed out again: entry
		# size and head unit decided, the further facts named as not
		# decided (the personalities above decide them), no configuration.
		grep -qF "v$v: $m, $es-byte entries" "$out/${p}cal-$es-$unit.out" 2>/dev/null &&
			grep -q "not enough data" "$out/${p}cal-$es-$unit.out" &&
			[ "$(cat "$out/${p}cal-$es-$unit.rc")" = 1 ] && [ -s "$out/${p}cal-$es-$unit.rep" ]
		result "calibrate names $es-byte entries and $unit heads on the $dev, and the facts one queue cannot decide (report written)" $? \
			"$out/${p}cal-$es-$unit.out"
	done
}
calibrated "" 2 trn1 32:index 64:index 128:index 32:byte 64:byte 128:byte 32:counter 64:counter 128:counter
calibrated v3- 3 trn2 32:index 64:byte 128:counter
grep -q "not enough data" "$out/cal-few.out" 2>/dev/null && ! grep -q "^set:" "$out/cal-few.out" &&
	[ "$(cat "$out/cal-few.rc")" = 1 ]
result "calibrate says not enough data for 3 head writes" $? "$out/cal-few.out"
fi

finish
