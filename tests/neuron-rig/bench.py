#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The head-write benchmark's figures (tests/neuron-rig/run.sh, RIG_BENCH=1).

bench.py OFF ON: nrt_play's "bench" lines with the queue not subscribed
(OFF) and captured (ON), the same number of runs each, alternating. Prints the medians and, last, the
cost a capture adds per head write against a memcpy of the consumed bytes.
"""
import re
import statistics
import sys


def runs(path):
    text = open(path).read()
    return [(float(m.group(1)), float(m.group(2))) for m in
            re.finditer(r"head write (\d+) ns, memcpy (\d+) ns", text)]


off, on = runs(sys.argv[1]), runs(sys.argv[2])
if len(off) < 3 or len(off) != len(on):
    sys.exit(f"expected as many runs (3 or more) each way, got {len(off)} and {len(on)}")
t = len(off)
h_off = statistics.median(h for h, _ in off)
h_on = statistics.median(h for h, _ in on)
# Run i with the queue captured came right after run i without: their
# difference is the least disturbed by whatever else the machine did.
added = statistics.median(b[0] - a[0] for a, b in zip(off, on))
cp = statistics.median(c for _, c in off + on)
print(f"head write, queue not subscribed: {h_off:.0f} ns (median of {t} runs of 2000; "
      "a run's mean leaves out rounds over 10x its median: the host descheduling the VM)")
print(f"head write, captured by neuronprof record: {h_on:.0f} ns")
print(f"memcpy of the 4096 consumed bytes: {cp:.0f} ns")
print(f"neuron head write: capture adds {added:.0f} ns per head write of 64 x 64-byte entries "
      f"(median of {t} paired runs): {added / cp:.2f}x a memcpy of the consumed bytes (goal <= 2x)")
