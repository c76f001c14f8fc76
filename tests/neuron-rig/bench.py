#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The head-write benchmark's figures (tests/neuron-rig/run.sh, RIG_BENCH=1).

bench.py OFF ON OFF2 NOSTREAM: nrt_play's "bench" lines with the queue not
subscribed (OFF, OFF2), captured by neuronprof record streaming (ON) and by
record --no-streaming (NOSTREAM), the same number of runs each, in turn
OFF, ON, OFF2, NOSTREAM. Prints the medians, what capture without
streaming adds and, last, what capture as record does it by default
(streaming) adds, each in memcpys of the
consumed bytes measured in the same processes (the ns beside it: that
ratio times the median memcpy).
"""
import re
import statistics
import sys


def runs(path):
    text = open(path).read()
    return [(float(m.group(1)), float(m.group(2))) for m in
            re.finditer(r"head write (\d+) ns, memcpy (\d+) ns", text)]


off, on, off2, nostream = (runs(p) for p in sys.argv[1:5])
t = len(off)
if t < 3 or any(len(r) != t for r in (on, off2, nostream)):
    sys.exit(f"expected as many runs (3 or more) each way, got "
             f"{[len(r) for r in (off, on, off2, nostream)]}")
h_off = statistics.median(h for h, _ in off + off2)
h_on = statistics.median(h for h, _ in on)
h_ns = statistics.median(h for h, _ in nostream)
# The whole VM runs faster or slower from one run to the next (under TCG a
# run's head write and memcpy move together, by up to 2x), so each run's
# head write is counted in memcpys of that run. Each captured run came
# right after a run without capture: their difference is the least
# disturbed by whatever else the machine did.
def added(base, captured):
    return statistics.median(b[0] / b[1] - a[0] / a[1] for a, b in zip(base, captured))


x_on, x_ns = added(off, on), added(off2, nostream)
cp = statistics.median(c for _, c in off + on + off2 + nostream)
added_on, added_ns = x_on * cp, x_ns * cp
print(f"head write, queue not subscribed: {h_off:.0f} ns (median of {2 * t} runs of 2000; "
      "a run's mean leaves out rounds over 10x its median: the host descheduling the VM)")
print(f"head write, captured by neuronprof record, streaming: {h_on:.0f} ns")
print(f"head write, captured by neuronprof record --no-streaming: {h_ns:.0f} ns")
print(f"memcpy of the 4096 consumed bytes: {cp:.0f} ns")
print(f"info: with record --no-streaming it adds {added_ns:.0f} ns ({x_ns:.2f}x, median of {t} paired "
      "runs): the entries stay in a 32 MiB ring, so each head write writes pages not touched "
      "since the capture began")
print(f"neuron head write: capture by neuronprof record (streaming, its default) adds {added_on:.0f} ns "
      f"per head write of 64 x 64-byte entries (median of {t} paired runs): {x_on:.2f}x a memcpy of "
      "the consumed bytes (goal <= 2x)")
