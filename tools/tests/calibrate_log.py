#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a calibration log as neuronprof_neuron's calibration mode does
(Documentation/hardware.rst), for a runtime that consumes CONSUMED entries
of one queue ENTRIES_PER_WRITE at a time, heads in UNIT (index, byte,
counter) from START, entries like the emulated hardware's (a constant
marker in each entry's first bytes).

calibrate_log.py ENTRY_SIZE UNIT START RING_SIZE CONSUMED ENTRIES_PER_WRITE [--no-ring]
"""
import sys

es, unit, start, size, consumed, per = (int(sys.argv[1]), sys.argv[2], int(sys.argv[3]),
                                        int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
nent = size // es
print("# neuronprof_neuron calibration log 1")
print("device 0 arch 2")
print(f"queue 0 nc 0 0 1 1 {size} 1")
pos = 0
while pos < consumed:
    pos = min(pos + per, consumed)
    p = start + pos
    v = {"index": p % nent, "byte": (p % nent) * es, "counter": p & 0xffffffff}[unit]
    print(f"head 0 nc 0 0 1 1 {v} {1000 * pos}")
ring = bytearray(size)
for i in range(min(consumed, nent) if "--no-ring" not in sys.argv else 0):
    seq = consumed - 1 - i
    off = ((start + seq) % nent) * es
    e = bytearray((seq * 31 + j) & 0xff for j in range(es))
    e[0:8] = (0xE3D0 << 48 | 0x41 << 32 | seq).to_bytes(8, "little")
    ring[off:off + es] = e
if "--no-ring" not in sys.argv:
    print("ring 0 nc 0 0 1 1 " + ring.hex())
