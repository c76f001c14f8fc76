#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check one rig scenario: what neuronprof recorded against what the
emulated hardware wrote and the runtime consumed.

check.py PLAY_OUTPUT ENTRY_SIZE DUMP_JSON...

PLAY_OUTPUT holds nrt_play's "queue Q BLOCK N SET produced=P consumed=C"
lines; each DUMP_JSON is `neuronprof dump --json` of one NTFF file of the
recording. For every queue the runtime consumed from: the entries that
arrived are exactly the emulated hardware's bytes (trn_emu.c: word 0 is
0xE3D0 << 48 | key << 32 | index, key = block << 14 | instance << 7 | set,
byte J >= 8 is (index * 31 + J) & 0xff),
each device entry once, in order, none the runtime did not consume, and
delivered + lost = consumed. Prints one line per queue; exit 1 on a problem.
"""
import json
import re
import sys

BLOCKS = {"core": 0, "ts": 1, "sdma": 2}


def main():
    play, esize, dumps = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    want = {}
    for line in open(play):
        m = re.match(r"queue (\d+) (\w+) (\d+) (\d+) produced=(\d+) consumed=(\d+)", line)
        if m:
            # EMU_ENTRY_KEY() of driver/tests/trn_emu_regs.h
            key = BLOCKS[m.group(2)] << 14 | int(m.group(3)) << 7 | int(m.group(4))
            want[key] = (f"{m.group(2)} {m.group(3)} set {m.group(4)}", int(m.group(6)))
    if not want:
        sys.exit(f"{play}: no queue lines")

    got = {}        # key -> list of (entry index, bytes)
    lost = {}       # key -> lost parts
    bad = []
    for path in dumps:
        d = json.load(open(path))
        for q in d.get("queues", []):
            parts = {}
            keys = set()
            for e in q.get("entries", []):
                r = e.get("raw")
                if r is None:
                    continue
                parts.setdefault(r["entry"], {})[r["part"]] = (r["parts"], bytes.fromhex(r["bytes"]))
            for idx in sorted(parts):
                p = parts[idx]
                n = next(iter(p.values()))[0]
                if sorted(p) != list(range(n)):
                    bad.append(f"{path}: device entry {idx} has parts {sorted(p)} of {n}")
                    continue
                raw = b"".join(p[i][1] for i in range(n))
                if len(raw) != esize:
                    bad.append(f"{path}: device entry {idx} is {len(raw)} bytes, expected {esize}")
                    continue
                w0 = int.from_bytes(raw[:8], "little")
                key, seq = (w0 >> 32) & 0xffff, w0 & 0xffffffff
                if w0 >> 48 != 0xE3D0 or key not in want:
                    bad.append(f"{path}: device entry {idx} was never written by the hardware "
                               f"(word 0 0x{w0:016x})")
                    continue
                keys.add(key)
                got.setdefault(key, []).append((seq, raw))
            for key in keys:
                lost[key] = lost.get(key, 0) + q.get("lost_count", 0)

    for key, (name, consumed) in sorted(want.items()):
        ents = got.get(key, [])
        seqs = [s for s, _ in ents]
        if seqs != sorted(set(seqs)):
            bad.append(f"{name}: entries out of order or twice: {seqs[:20]}")
        for s, raw in ents:
            exp = bytes((s * 31 + j) & 0xff for j in range(8, esize))
            if raw[8:] != exp:
                bad.append(f"{name}: entry {s}: bytes differ from what the hardware wrote")
                break
            if s >= consumed:
                bad.append(f"{name}: entry {s} arrived but the runtime consumed only {consumed}")
                break
        parts = esize // 32 if esize >= 32 else 1
        lparts = lost.get(key, 0)
        print(f"{name}: consumed {consumed}, delivered {len(ents)}, lost {lparts} parts")
        if not ents and consumed:
            bad.append(f"{name}: nothing arrived of {consumed} consumed entries")
        elif len(ents) * parts + lparts != consumed * parts:
            bad.append(f"{name}: delivered {len(ents)} + lost {lparts // parts} != consumed {consumed}")
    if bad:
        print("\n".join(bad[:20]))
        sys.exit(1)


main()
