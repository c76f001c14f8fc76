#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The head-write benchmark's figures (tests/neuron-rig/run.sh, RIG_BENCH=1).

bench.py OUT: OUT holds nrt_play's output of the runs with the queue not
subscribed (off.txt, off2.txt), captured by neuronprof record streaming
(on.txt) and by record --no-streaming (nostream.txt), the same number of
runs each, in turn OFF, ON, OFF2, NOSTREAM; and for captured run T of
each kind its record's exit status (onT.rc, nostreamT.rc) and `neuronprof
dump --entries 0` of the profiles it wrote (onT.dump, nostreamT.dump).

First each captured run must have delivered every device entry the
runtime consumed (entry_size / 32 sequence numbers each, the parts of
its records) and lost none: a
capture that dropped entries costs less and would flatter the figure, so
then nothing else is printed and the exit status is 1. Then: the medians,
what capture without streaming adds and, last, what capture as record
does it by default (streaming) adds, each in memcpys of the consumed
bytes measured in the same processes (the ns beside it: that ratio times
the median memcpy).
"""
import os
import re
import statistics
import sys
from collections import namedtuple

RAW_BYTES_PER_ENTRY = 32        # NEURONPROF_RAW_BYTES_PER_ENTRY: device bytes per ring entry

# One nrt_play run: its bench line (K entries of ES bytes per head write,
# ROUNDS head writes, the mean head write and memcpy) and its queue line.
Run = namedtuple("Run", "head copy consumed k es rounds")


def runs(path):
    """The runs of one nrt_play output file, in order."""
    text = open(path).read()
    bench = re.findall(r"bench (\d+) entries of (\d+) bytes per head write, (\d+) rounds: "
                       r"head write (\d+) ns, memcpy (\d+) ns", text)
    consumed = [int(m.group(1)) for m in
                re.finditer(r"^queue \d+ \w+ \d+ \d+ produced=\d+ consumed=(\d+)", text, re.M)]
    if len(consumed) != len(bench):
        sys.exit(f"{path}: {len(bench)} bench lines but {len(consumed)} queue lines")
    return [Run(float(h), float(c), n, int(k), int(es), int(r))
            for (k, es, r, h, c), n in zip(bench, consumed)]


def captured_problem(out, kind, t, run):
    """Why captured run T of KIND is not a complete capture, or None."""
    try:
        rc = open(os.path.join(out, f"{kind}{t}.rc")).read().strip()
        dump = open(os.path.join(out, f"{kind}{t}.dump")).read()
    except OSError as e:
        return f"{e.filename}: {e.strerror}"
    if rc != "0":
        return f"neuronprof record exited with status {rc}"
    recs = re.findall(r"^\s+\[\d+\] .*?, (\d+) entries, lost (\d+), seq (\d+)\.\.(\d+),",
                      dump, re.M)
    if not recs:
        return "no queue records in its profiles (" + (dump.strip().splitlines() or ["no profile"])[-1] + ")"
    # Delivered 32-byte parts: a record's seq range (packed raw records take
    # one seq per 32 device bytes, as the unpacked ring entries did).
    entries = sum(int(b) - int(a) + 1 for e, _, a, b in recs if int(e))
    lost = sum(int(lo) for _, lo, _, _ in recs)
    want = run.consumed * (run.es // RAW_BYTES_PER_ENTRY)
    if entries != want or lost:
        return (f"{entries} ring entries delivered and {lost} lost, where the runtime consumed "
                f"{run.consumed} device entries ({want} ring entries)")
    return None


out = sys.argv[1]
off, on, off2, nostream = (runs(os.path.join(out, f"{k}.txt"))
                           for k in ("off", "on", "off2", "nostream"))
t = len(off)
if t < 3 or any(len(r) != t for r in (on, off2, nostream)):
    sys.exit(f"expected as many runs (3 or more) each way, got "
             f"{[len(r) for r in (off, on, off2, nostream)]}")
bad = [f"{kind} run {i + 1}: {why}"
       for kind, rr in (("on", on), ("nostream", nostream))
       for i, r in enumerate(rr)
       if (why := captured_problem(out, kind, i + 1, r))]
if bad:
    print("neuron head write: no figure, a capture was incomplete:")
    for b in bad:
        print(f"  {b}")
    sys.exit(1)
r0 = on[0]
print(f"every captured run delivered all {r0.consumed * (r0.es // RAW_BYTES_PER_ENTRY)} ring "
      f"entries of its {r0.consumed} consumed device entries and lost none")
h_off = statistics.median(r.head for r in off + off2)
h_on = statistics.median(r.head for r in on)
h_ns = statistics.median(r.head for r in nostream)
# The whole VM runs faster or slower from one run to the next (under TCG a
# run's head write and memcpy move together, by up to 2x), so each run's
# head write is counted in memcpys of that run. Each captured run came
# right after a run without capture: their difference is the least
# disturbed by whatever else the machine did.
def added(base, captured):
    return statistics.median(b.head / b.copy - a.head / a.copy for a, b in zip(base, captured))


x_on, x_ns = added(off, on), added(off2, nostream)
cp = statistics.median(r.copy for r in off + on + off2 + nostream)
added_on, added_ns = x_on * cp, x_ns * cp
print(f"head write, queue not subscribed: {h_off:.0f} ns (median of {2 * t} runs of {r0.rounds}; "
      "a run's mean leaves out rounds over 10x its median: the host descheduling the VM)")
print(f"head write, captured by neuronprof record, streaming: {h_on:.0f} ns")
print(f"head write, captured by neuronprof record --no-streaming: {h_ns:.0f} ns")
print(f"memcpy of the {r0.k * r0.es} consumed bytes: {cp:.0f} ns")
print(f"info: with record --no-streaming it adds {added_ns:.0f} ns ({x_ns:.2f}x, median of {t} paired "
      "runs): the entries stay in a 32 MiB ring, so each head write writes pages not touched "
      "since the capture began")
print(f"neuron head write: capture by neuronprof record (streaming, its default) adds {added_on:.0f} ns "
      f"per head write of {r0.k} x {r0.es}-byte entries (median of {t} paired runs): {x_on:.2f}x a memcpy of "
      "the consumed bytes (information only: TCG; the goal is measured natively by "
      "bench/neuron_head_write_native.sh)")
