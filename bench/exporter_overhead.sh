#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What `neuronprof exporter` costs at the demo's load: its CPU time (user +
# system, every thread, from /proc/PID/task/*/schedstat) over the wall time of the load, as a
# fraction of one core. Goal: under 2% (0.02).
#
# The load is the demo's (scripts/demo.sh: `record --mode session --cores
# all --executions 3 --iterations 4` on a trn2 simulator, 8 cores, record's
# 32 instructions per engine and 8 DMA transfers per iteration), issued by
# tools/tests/sim_run on every core at once without subscribing (the
# exporter holds the queues), and repeated back to back for DURATION seconds
# (default 20) so the figure is over more than one short burst. The
# exporter runs with the packaged defaults (--interval 5000, /metrics on
# 127.0.0.1:9474) plus --textfile, so both outputs are rendered and written
# at every publication. It runs in a QEMU VM (scripts/vm-run.sh, one vCPU
# for the guest's clock, see sim_producer.sh) under TCG, as every VM of
# the project runs (KVM does not work on the machines it is tested on);
# emulation inflates every CPU figure, so the ratio is an upper bound. The simulator and the load's own CPU time are not
# counted; the kernel's work on the exporter's behalf (its syscalls,
# poll wake-ups) is, as system time.
#
# Usage: bench/exporter_overhead.sh [DURATION]
# Needs make modules lib tools (and tools/build/tests/sim_run: make -C tools
# check builds it, or make -C tools build/tests/sim_run); boots QEMU: run it
# under flock /tmp/nprof-vm.lock. The last line is the ratio against one
# core.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
duration=${1:-20}
case $duration in '' | *[!0-9]*) echo "exporter_overhead.sh: '$duration' is not a number of seconds" >&2; exit 2 ;; esac
np=$repo/tools/build/neuronprof
sim_run=$repo/tools/build/tests/sim_run
for f in "$np" "$sim_run"; do
	[ -x "$f" ] || { echo "exporter_overhead.sh: $f not built (make tools; make -C tools build/tests/sim_run)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-exporter-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/out"

cat >"$work/guest.sh" <<GUEST
np=/tool/neuronprof
cd /tmp
ip link set lo up 2>/dev/null
# The CPU time of every thread of a process, in ns (the scheduler's own
# account, /proc/PID/task/TID/schedstat, not tick samples).
cputime() {
	cat /proc/\$1/task/*/schedstat | awk '{ t += \$1 } END { printf "%.0f\\n", t }'
}
modprobe neuronprof_sim arch=trn2 || { echo "modprobe failed" >/out/errors; exit 1; }
\$np exporter --interval 5000 --listen 127.0.0.1:9474 --textfile /out/m.prom 2>/out/exporter.err &
ep=\$!
n=0
while [ ! -s /out/m.prom ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n + 1)); done
cores=8		# a trn2 device's NeuronCores, as the demo's --cores all
read -r up0 _ </proc/uptime
t0=\$(cputime \$ep)
end=\$(echo "\$up0 + $duration" | awk '{ print \$1 + \$3 }')
rounds=0
while :; do
	read -r up _ </proc/uptime
	[ "\$(awk -v a="\$up" -v b="\$end" 'BEGIN { print (a >= b) }')" = 1 ] && break
	c=0
	pids=
	while [ \$c -lt \$cores ]; do
		/tool/sim_run \$c 3 4 32 8 >>/out/sim_run.txt 2>>/out/sim_run.err &
		pids="\$pids \$!"
		c=\$((c + 1))
	done
	wait \$pids
	rounds=\$((rounds + 1))
done
read -r up1 _ </proc/uptime
t1=\$(cputime \$ep)
kill -TERM \$ep
wait \$ep
echo "\$?" >/out/exporter.rc
echo "\$up0 \$up1 \$t0 \$t1 \$rounds \$cores" >/out/cpu
GUEST

accel=TCG	# scripts/vm-run.sh: -accel tcg
echo "exporter_overhead: the demo's load on every core of a trn2 simulator for ${duration} s, in a QEMU VM ($accel)"
VM_SMP=${VM_SMP:-1} bash "$repo/scripts/vm-run.sh" --timeout $((duration + 240)) --outdir "$work/out" \
	--file "$np:/tool/neuronprof" --file "$sim_run:/tool/sim_run" \
	--file "$work/guest.sh:/tool/guest.sh" -- sh /tool/guest.sh >"$work/vm.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] || [ ! -s "$work/out/cpu" ]; then
	echo "exporter_overhead: the VM run failed ($rc)" >&2
	tail -n 30 "$work/vm.log" >&2
	cat "$work/out/errors" "$work/out/exporter.err" 2>/dev/null >&2
	exit 1
fi
/usr/bin/python3 - "$work/out" "$accel" <<'PY'
import re, sys
out, accel = sys.argv[1], sys.argv[2]
up0, up1, t0, t1, rounds, cores = open(f"{out}/cpu").read().split()
wall = float(up1) - float(up0)
cpu = (int(t1) - int(t0)) / 1e9            # ns of CPU, every thread (schedstat)
entries = lost = 0.0
for line in open(f"{out}/m.prom"):
    m = re.match(r'^(neuronprof_queue_(?:entries|lost_entries)_total)\{.*\} (\S+)$', line)
    if m:
        if m.group(1).endswith("lost_entries_total"):
            lost += float(m.group(2))
        else:
            entries += float(m.group(2))
rc = open(f"{out}/exporter.rc").read().strip()
print(f"load: {rounds} rounds of the demo's programs on {cores} cores, {wall:.2f} s wall")
print(f"exporter: {entries:.0f} entries delivered ({entries / wall:.0f}/s), {lost:.0f} lost, exit {rc}")
print(f"exporter CPU (all threads, user + system, schedstat): {cpu:.3f} s; measured in a QEMU VM under {accel}"
      + (" (emulation inflates CPU time)" if accel == "TCG" else ""))
print(f"ratio exporter CPU time / wall time, as a fraction of one core "
      f"(baseline: one core busy for the whole load = 1.0; goal < 0.02): {cpu / wall:.4f}")
PY
