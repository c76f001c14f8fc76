#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check one rig scenario: what neuronprof recorded against what the
emulated hardware wrote and the runtime consumed.

check.py PLAY_OUTPUT ENTRY_SIZE DUMP_JSON...

PLAY_OUTPUT holds nrt_play's "queue Q BLOCK N SET produced=P consumed=C
[type=T es=E] [base=B]" lines (ENTRY_SIZE is the entry size of a line
without es=; queues of the same register set are told apart by their type;
C counts from entry B on, what was consumed before the capture began); each DUMP_JSON is `neuronprof dump --json` of one NTFF file of the
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
# Vendor queue type -> neuronprof queue type name (provider.c's tables).
TYPES = ["TRACE", "NOTIFY", "EVENT", "ERROR", "DMA", "THROTTLE"]


def main():
    play, esize, dumps = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    want = {}
    base = {}       # (key, type) -> entries consumed before the capture (mark)
    for line in open(play):
        m = re.match(r"queue (\d+) (\w+) (\d+) (\d+) produced=(\d+) consumed=(\d+)"
                     r"(?: type=(\d+) es=(\d+))?(?: base=(\d+))?", line)
        if m:
            # EMU_ENTRY_KEY() of driver/tests/trn_emu_regs.h
            key = BLOCKS[m.group(2)] << 14 | int(m.group(3)) << 7 | int(m.group(4))
            qt = None
            if m.group(7) is not None:
                qt = ("TOPSP_" if m.group(2) == "ts" else "") + TYPES[int(m.group(7))]
            es = int(m.group(8)) if m.group(8) else esize
            name = f"{m.group(2)} {m.group(3)} set {m.group(4)}" + (f" {qt}" if qt else "")
            # A queue programmed again in the same set, of the same type, is
            # a later generation of the same record: its entries count from 0.
            if m.group(9) and int(m.group(9)):
                base[(key, qt)] = int(m.group(9))
            if (key, qt) in want:
                n0, c0, e0, gens = want[(key, qt)]
                want[(key, qt)] = (n0, c0 + int(m.group(6)), e0, gens + [int(m.group(6))])
            else:
                want[(key, qt)] = (name, int(m.group(6)), es, [int(m.group(6))])
    if not want:
        sys.exit(f"{play}: no queue lines")

    got = {}        # key -> list of (entry index, bytes)
    lost = {}       # key -> lost parts
    bad = []
    typed = any(qt for _, qt in want)
    for path in dumps:
        d = json.load(open(path))
        # The records of one queue in file order, as one: a record may end
        # in the middle of a device entry (a halt flushes the ring) and the
        # next one hold its other parts.
        merged = {}
        for q in d.get("queues", []):
            ident = (q.get("queue_type"), q.get("target_kind"), q.get("target_index"),
                     q.get("engine"))
            m = merged.setdefault(ident, {"queue_type": q.get("queue_type"), "entries": [],
                                          "lost_count": 0})
            m["entries"] += q.get("entries", [])
            m["lost_count"] += q.get("lost_count", 0)
        for q in merged.values():
            qt = q.get("queue_type") if typed else None
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
                w0 = int.from_bytes(raw[:8], "little")
                key, seq = (w0 >> 32) & 0xffff, w0 & 0xffffffff
                key = (key, qt)
                if key in want and len(raw) != want[key][2]:
                    bad.append(f"{path}: device entry {idx} is {len(raw)} bytes, expected {want[key][2]}")
                    continue
                if w0 >> 48 != 0xE3D0 or key not in want:
                    bad.append(f"{path}: device entry {idx} was never written by the hardware "
                               f"(word 0 0x{w0:016x})")
                    continue
                keys.add(key)
                got.setdefault(key, []).append((seq, raw))
            for key in keys:
                lost[key] = lost.get(key, 0) + q.get("lost_count", 0)

    for key, (name, consumed, esize, gens) in sorted(want.items(), key=lambda kv: kv[1][0]):
        ents = got.get(key, [])
        b = base.get(key, 0)
        if any(s < b for s, _ in ents):
            bad.append(f"{name}: an entry consumed before the capture began arrived")
        seqs = [s - b for s, _ in ents]
        # Split into generations where the count starts again; each run in
        # order, once, within what its generation consumed.
        runs, cur = [], []
        for s in seqs:
            if cur and s <= cur[-1]:
                runs.append(cur)
                cur = []
            cur.append(s)
        if cur:
            runs.append(cur)
        g = 0
        for run in runs:
            while g < len(gens) and run[-1] >= gens[g]:
                g += 1
            if g == len(gens):
                bad.append(f"{name}: entries out of order, twice, or never consumed: {seqs[:40]}")
                break
            g += 1
        for s, raw in ents:
            exp = bytes((s * 31 + j) & 0xff for j in range(8, esize))
            if raw[8:] != exp:
                bad.append(f"{name}: entry {s}: bytes differ from what the hardware wrote")
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
