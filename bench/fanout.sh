#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What each extra subscriber of a queue costs the producer, on the
# distribution kernel: boots it in QEMU with the modules under driver/
# (scripts/vm-run.sh; build them with make modules), loads neuronprof_sim
# unpaced (time_scale=0: the producer's cost, not the device's pace) and
# runs bench/fanout.c (built here if missing). The last line is the cost of
# each subscriber beyond the first against a memcpy of the entry measured in
# the same run. Boots QEMU: run it under flock /tmp/nprof-qemu.lock.
#
#   bench/fanout.sh [ITERATIONS [INSTRUCTIONS [ROUNDS]]]
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

for a in "$@"; do
	case $a in
	'' | *[!0-9]*)
		echo "usage: $0 [ITERATIONS [INSTRUCTIONS [ROUNDS]]]" >&2
		exit 2 ;;
	esac
done
[ $# -le 3 ] || { echo "usage: $0 [ITERATIONS [INSTRUCTIONS [ROUNDS]]]" >&2; exit 2; }
[ -n "$(find "$repo/driver" -name '*.ko' -print -quit 2>/dev/null)" ] ||
	{ echo "fanout.sh: no kernel modules under $repo/driver (make modules)" >&2; exit 2; }
prog=${FANOUT_BENCH:-$here/build/fanout}
if [ ! -x "$prog" ]; then
	"${MAKE:-make}" -s --no-print-directory -C "$here" build/fanout >&2 ||
		{ echo "fanout.sh: cannot build $prog" >&2; exit 2; }
fi
prog=$(readlink -f "$prog")

export VM_SMP=${VM_SMP:-1}
export VM_APPEND="${VM_APPEND:+$VM_APPEND }tsc=reliable"
exec bash "$repo/scripts/vm-run.sh" --timeout "${FANOUT_BENCH_TIMEOUT:-900}" --file "$prog" -- \
	"modprobe neuronprof_sim arch=trn2 time_scale=0 || exit 3; '$prog' $*"
