#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench.py's figures come only from complete captures.

test_bench.py CASE: writes what the rig's benchmark mode leaves in its
output directory (nrt_play's lines, each captured run's record status and
`neuronprof dump --entries 0` summary), here made up, and checks what
bench.py says of it. CASE is one of:
  complete   every captured run delivered all entries: the figure is printed
  lost       one streaming run lost entries: no figure, the run named
  failed     one record exited 1: no figure, the run named
Exit status 0 when bench.py behaved, 1 with the reason otherwise.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = 5
CONSUMED = 128000


def play(head_ns, copy_ns):
    return (f"init 0 core 0 1 handle=0x1 offset=0x100037430000\n"
            f"bench 64 entries of 64 bytes per head write, 2000 rounds: head write {head_ns} ns, "
            f"memcpy {copy_ns} ns (means of the rounds under 10x their median; of all rounds: 1 and 1)\n"
            f"queue 0 core 0 1 produced={CONSUMED} consumed={CONSUMED}\n")


def dump(delivered, lost):
    half = delivered // 2
    return ("file: /out/x/profile_nc_0_session_1.ntff\n"
            f"queues: 2 records, {delivered} entries\n"
            f"  [0] TRACE core 0 engine 0 (tensor): instruction/engine, {half} entries, lost {lost}, "
            f"seq 0..{half - 1}, entry size 64, data +0 len {half * 64}, ring flags 0x0\n"
            f"  [1] TRACE core 0 engine 0 (tensor): instruction/engine, {delivered - half} entries, "
            f"lost 0, seq {half}..{delivered - 1}, entry size 64, data +{half * 64} len "
            f"{(delivered - half) * 64}, ring flags 0x0\n")


def main():
    case = sys.argv[1]
    with tempfile.TemporaryDirectory() as out:
        for kind, head in (("off", 7000), ("on", 9000), ("off2", 7100), ("nostream", 9500)):
            with open(os.path.join(out, f"{kind}.txt"), "w") as f:
                for t in range(RUNS):
                    f.write(play(head + 10 * t, 1500))
            if kind in ("on", "nostream"):
                for t in range(1, RUNS + 1):
                    delivered, lost, rc = 2 * CONSUMED, 0, 0
                    if case == "lost" and kind == "on" and t == 2:
                        delivered, lost = 2 * CONSUMED - 1000, 1000
                    if case == "failed" and kind == "nostream" and t == 4:
                        rc = 1
                    with open(os.path.join(out, f"{kind}{t}.rc"), "w") as f:
                        f.write(f"{rc}\n")
                    with open(os.path.join(out, f"{kind}{t}.dump"), "w") as f:
                        f.write(dump(delivered, lost))
        p = subprocess.run([sys.executable, os.path.join(HERE, "bench.py"), out],
                           capture_output=True, text=True)
    text = p.stdout + p.stderr
    last = text.strip().splitlines()[-1] if text.strip() else ""
    if case == "complete":
        # Each streaming run's head write is 2000 ns over the run before it,
        # whose memcpy took 1500 ns: 1.33 memcpys, 2000 ns.
        ok = (p.returncode == 0 and "adds 2000 ns per head write of 64 x 64-byte entries" in last
              and "1.33x a memcpy of the consumed bytes" in last)
    elif case == "lost":
        ok = (p.returncode == 1 and "on run 2: 255000 ring entries delivered and 1000 lost" in text
              and "x a memcpy" not in text)
    elif case == "failed":
        ok = (p.returncode == 1 and "nostream run 4: neuronprof record exited with status 1" in text
              and "x a memcpy" not in text)
    else:
        sys.exit(f"unknown case {case}")
    if not ok:
        print(f"bench.py exited {p.returncode}:\n{text}")
        sys.exit(1)


main()
