#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run the kernel producer benchmark (sim_producer.c) where the modules can
# run: a QEMU VM booting the distribution kernel (scripts/vm-run.sh) with
# the modules under driver/ (make modules) and neuronprof_sim loaded as a
# trn2 device. Its output, ending with the ratio line (printed as
# "ratio SIM_EXEC into subscribed rings / memcpy of the entry ...: %.2fx"),
# is shown as it comes.
#
# Usage: bench/sim_producer.sh [ITERATIONS [INSTRUCTIONS [ROUNDS]]]
#   (passed to sim_producer; see there for the defaults)
#
# Environment: SIM_PRODUCER (the program, default build/sim_producer next to
# this script, built with make when missing), SIM_BENCH_TIMEOUT (seconds
# for the whole VM run, default 900), VM_SMP (default 1, see below) and the
# other variables of scripts/vm-run.sh.
#
# The VM has one CPU unless VM_SMP says otherwise: with two, the guest
# kernel finds the TSCs of the emulated CPUs unsynchronised and falls back to
# the HPET, whose every read is an emulated MMIO access, so the clock read
# the simulator does per notification would dominate the figure; with one it
# uses the TSC like a real host. The benchmark is single-threaded anyway.
# Even with one CPU, the guest's clocksource watchdog can declare the TSC
# unstable while it boots on a loaded host (emulated time drifts against
# the HPET), and the same program then measured 3.16x instead of 2.35x;
# tsc=reliable (appended to VM_APPEND) skips that watchdog, so the guest
# uses the TSC as a host with a constant, nonstop TSC does. The program
# prints the clocksource it ran with.
#
# Exit status: that of sim_producer, or of vm-run.sh (125: the VM could not
# be prepared, e.g. modules built for another kernel; 124: timeout).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

for a in "$@"; do
	case $a in
	'' | *[!0-9]*)
		echo "sim_producer.sh: '$a' is not a number" >&2
		echo "usage: $0 [ITERATIONS [INSTRUCTIONS [ROUNDS]]]" >&2
		exit 2 ;;
	esac
done
[ $# -le 3 ] || { echo "usage: $0 [ITERATIONS [INSTRUCTIONS [ROUNDS]]]" >&2; exit 2; }

kos=()
while IFS= read -r -d '' ko; do
	kos+=("$ko")
done < <(find "$repo/driver" -name '*.ko' -print0 2>/dev/null | sort -z)
if [ ${#kos[@]} -eq 0 ]; then
	echo "sim_producer.sh: no kernel modules under $repo/driver (build them with make modules)" >&2
	exit 2
fi
newer=$(find "$repo/driver" "$repo/uapi" \( -name '*.c' -o -name '*.h' \) -newer "${kos[0]}" -print -quit)
if [ -n "$newer" ]; then
	echo "sim_producer.sh: warning: $newer is newer than the modules (make modules)" >&2
fi

prog=${SIM_PRODUCER:-$here/build/sim_producer}
if [ ! -x "$prog" ]; then
	"${MAKE:-make}" -s --no-print-directory -C "$here" build/sim_producer >&2 ||
		{ echo "sim_producer.sh: cannot build $prog" >&2; exit 2; }
fi
prog=$(readlink -f "$prog")

export VM_SMP=${VM_SMP:-1}
export VM_APPEND="${VM_APPEND:+$VM_APPEND }tsc=reliable"
exec bash "$repo/scripts/vm-run.sh" --timeout "${SIM_BENCH_TIMEOUT:-900}" --file "$prog" -- \
	"modprobe neuronprof_sim arch=trn2 time_scale=0 || exit 3; '$prog' $*"
