# SPDX-License-Identifier: MIT
"""The simulator's device-time model, computed from the program, against the tool.

The model is Documentation/simulator.rst, "Device time", written again from
the text. Given what a recording's program was (the options of `record`) and
the seed of neuronprof_sim, it knows every timestamp of every execution but
for one number per execution: the start, the one read of the host clock.
That start is taken from the recording (the INFER_STATUS start of iteration 0);
everything else is computed here, and compared with

  * every entry of every queue of the dumps (`neuronprof dump --json`): the
    device produced exactly the model's timestamps;
  * every figure of `summary --json` that the timing model of
    Documentation/analysis.rst derives from them: per core the inferences,
    busy time, span, utilisation, executions, idle gaps and throttling; per
    engine and TopSP the instructions, busy time, utilisation, EVENT busy
    time, DMA, idle gaps and every op's count, total, min, avg, median, p95
    and max; per model the execution latencies.

  model_check.py SUMMARY.json TOP PROGRAM DUMP.json...
      TOP: the --top summary was run with; PROGRAM: a JSON object with
      seed, model_id, iterations, instructions, dma, throttle, error

Prints what differs ("# ..." lines) and a summary line; exits 1 on a
difference, else 0.
"""
import collections
import json
import sys

import checklib
from checklib import (check_dist, check_throttle, dist, errors, expect, pct, print_errors,
                      union_ns)

M64 = (1 << 64) - 1
BASE = [4000, 2000, 1500, 3000, 400, 1000, 1000, 1000]
STEP = [250, 100, 80, 150, 20, 50, 50, 50]
LAUNCH, SYNC, RELAUNCH = 1000, 500, 2000
TOPSP_NS, TOPSP_STEP = 9000, 1500
JITTER = 511

# The simulator's op names (Documentation/simulator.rst, "Op names"): opcode
# (e + 1) << 8 | k of engine e is family k % n of the engine's n families.
FAMILIES = [["matmult", "matmult", "matmult", "transpose"],
            ["tensor_tensor", "tensor_scalar", "tensor_reduce", "tensor_copy", "bn_stats",
             "bn_aggr", "tensor_tensor_scan", "select_reduce"],
            ["activation", "activation", "activation_reduce", "tensor_scalar"],
            ["iota", "memset", "affine_select", "local_gather", "range_select", "tensor_copy",
             "tensor_tensor", "tensor_scalar"],
            ["sync_wait", "sync_signal"]]


def op_name(code):
    f = FAMILIES[min((code >> 8) - 1, 4)]
    return f[(code & 0xff) % len(f)]


def code_int(v, what):
    """An op code as every output spells it, "0x000102", as an int."""
    if isinstance(v, str) and len(v) >= 8 and v.startswith("0x") and \
            all(c in "0123456789abcdef" for c in v[2:]):
        return int(v, 16)
    errors.append(f"{what}: code {v!r} is not spelled 0x000102")
    return -1


def cost(e, k, level):
    return (BASE[e] + STEP[e] * ((7 * k) % 32)) * 100 // (100 - 25 * level)


def jitter_seed(seed, model, it, e):
    z = (seed ^ (model << 32) ^ (it << 8) ^ e) & M64
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z ^= z >> 31
    return (z & 0xFFFFFFFF) | 1


def xorshift(x):
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    return x


def dma_ns(nbytes):
    return 64 + -(-nbytes // 32)


def execution(p, t0, engines, topsps, first_topsp, failing):
    """Every entry of one execution: {queue key: [(ts, code, payload0)]}, and its inferences."""
    q = collections.defaultdict(list)
    infs = []
    for it in range(p["iterations"]):
        level = it % 3 + 1 if p["throttle"] else 0
        launch = t0 + LAUNCH
        start = launch + (dma_ns(4096) if p["dma"] else 0)
        done = launch
        q[("INFER_STATUS", 0)].append((t0, 1, p["iterations"]))
        if p["throttle"]:
            q[("THROTTLE", 0)].append((t0, level, 100 - 25 * level))
        for e in range(engines):
            n = p["instructions"]
            if not n:
                continue
            x = jitter_seed(p["seed"], p["model_id"], it, e)
            ts = start
            q[("EVENT", e)].append((start, 1, n))
            for i in range(n):
                x = xorshift(x)
                q[("TRACE", e)].append((ts, (e + 1) << 8 | i % 32, 16 * i))
                ts += cost(e, i % 32, level) + (x & JITTER)
            q[("EVENT", e)].append((ts, 2, n))
            done = max(done, ts)
        ts = launch
        for i in range(p["dma"]):
            nbytes = 4096 << (i % 4)
            ts += dma_ns(nbytes)
            q[("DMA", i % engines)].append((ts, i % 16, nbytes))
        done = max(done, ts)
        for j in range(topsps):
            t = first_topsp + j
            end = launch + TOPSP_NS + TOPSP_STEP * j
            q[("TOPSP_EVENT", t)] += [(launch, 1, t), (end, 2, t)]
            q[("TOPSP_TRACE", t)].append((launch, 0x7F01, t))
            done = max(done, end)
        status = 1004 if failing and it == p["iterations"] - 1 else 0
        if status:
            q[("ERROR", 0)].append((done, 1004, it))
            if topsps:
                q[("TOPSP_ERROR", first_topsp)].append((done, 1004, it))
        stop = done + SYNC
        q[("INFER_STATUS", 0)].append((stop, 2, status))
        infs.append((t0, stop, status))
        t0 = stop + RELAUNCH
    return q, infs


def key_of(qd):
    if qd["target_kind"] == "core":
        return (qd["queue_type"], qd["engine"])
    return (qd["queue_type"], qd["target_index"])


def gaps_top(pairs, top):
    """Idle gaps between consecutive (start, end) intervals, longest first, ties in time order."""
    g = [(b[0] - a[1], a[1]) for a, b in zip(pairs, pairs[1:]) if b[0] > a[1]]
    return sorted(g, key=lambda x: (-x[0], x[1]))[:top]


def main():
    summary, top, prog = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    rec = json.load(open(summary))["recordings"][0]
    prog.setdefault("seed", 0)
    dumps = [json.load(open(p)) for p in sys.argv[4:]]
    for d in dumps:
        for qd in d["queues"]:
            for e in qd.get("entries", []):
                e["code"] = code_int(e["code"], "dump")
    for c in rec["cores"]:
        for u in c["engines"] + c["topsps"]:
            for o in u["ops"]:
                o["code"] = code_int(o["code"], "summary op")
                want = "collective" if "topsp" in u else op_name(o["code"])
                expect(f"op {o['code']:#x} name", o["op"], want)
    by_core = {}
    for d in dumps:
        dev = d["device"]
        tpc = dev["num_topsps"] // dev["num_cores"]
        queues = collections.defaultdict(list)
        core = None
        for qd in d["queues"]:
            queues[key_of(qd)] += [(e["timestamp_ns"], e["code"], e["payload"][0])
                                   for e in qd["entries"]]
            if qd["target_kind"] == "core":
                core = qd["target_index"]
        # The anchors: the one number per execution the model does not know.
        anchors = [ts for ts, code, _ in queues[("INFER_STATUS", 0)] if code == 1]
        iters = [e["iteration"] for qd in d["queues"] if qd["queue_type"] == "INFER_STATUS"
                 for e in qd["entries"] if e["code"] == 1]
        anchors = [ts for ts, it in zip(anchors, iters) if it == 0]
        failing_exec = prog.get("failing_exec", -1)
        model_q = collections.defaultdict(list)
        infs, execs = [], []
        for x, t0 in enumerate(anchors):
            q, xi = execution(prog, t0, dev["engines_per_core"], tpc, core * tpc,
                              prog["error"] and x == failing_exec)
            for k, v in q.items():
                model_q[k] += v
            infs += xi
            execs.append((t0, xi[-1][1], any(s for _, _, s in xi)))
        tag = f"core {core}"
        expect(f"{tag} executions in the file", len(anchors), prog["executions"])
        expect(f"{tag} queues", sorted(k for k, v in queues.items() if v), sorted(model_q))
        for k in sorted(model_q):
            got, want = queues.get(k, []), model_q[k]
            expect(f"{tag} {k} entries", len(got), len(want))
            bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
            if bad:
                i, g, w = bad[0]
                errors.append(f"{tag} {k}: {len(bad)} entries differ, first #{i}: "
                              f"(ts, code, payload0) {g}, model {w}")
        by_core[core] = (dev, model_q, infs, execs, tpc)

    expect("cores", sorted(c["core"] for c in rec["cores"]), sorted(by_core))
    all_execs = []
    for jc in rec["cores"]:
        if jc["core"] not in by_core:
            continue
        dev, q, infs, execs, tpc = by_core[jc["core"]]
        tag = f"core {jc['core']}"
        all_ts = [ts for v in q.values() for ts, _, _ in v]
        first, last = min(all_ts), max(all_ts)
        span = last - first
        busy = sum(b - a for a, b, _ in infs)
        expect(f"{tag} first_ns", jc["first_ns"], first)
        expect(f"{tag} span_ns", jc["span_ns"], span)
        expect(f"{tag} inferences", jc["inferences"], len(infs))
        expect(f"{tag} inferences_failed", jc["inferences_failed"], sum(1 for i in infs if i[2]))
        expect(f"{tag} inference_busy_ns", jc["inference_busy_ns"], busy)
        expect(f"{tag} executions", jc["executions"], len(execs))
        expect(f"{tag} idle gaps", [(g["idle_ns"], g["start_ns"]) for g in jc["idle_gaps"]],
               gaps_top([(a, b) for a, b, _ in infs], top))
        all_execs += execs
        unit_busy = []
        units = [(False, e) for e in range(dev["engines_per_core"])] + \
            [(True, jc["core"] * tpc + j) for j in range(tpc)]
        ju_of = {(False, u["engine"]): u for u in jc["engines"]}
        ju_of.update({(True, u["topsp"]): u for u in jc["topsps"]})
        for topsp, idx in units:
            ut = f"{tag} {'topsp' if topsp else 'engine'} {idx}"
            tr = q.get(("TOPSP_TRACE" if topsp else "TRACE", idx), [])
            ev = q.get(("TOPSP_EVENT" if topsp else "EVENT", idx), [])
            wins = [(a[0], b[0]) for a, b in zip(ev[0::2], ev[1::2])]
            # Each instruction lasts until the next, the last of a window until its end.
            ins = []
            for i, (ts, code, _) in enumerate(tr):
                end = min(s for b, s in wins if b <= ts <= s)
                if i + 1 < len(tr) and tr[i + 1][0] < end:
                    end = tr[i + 1][0]
                ins.append((ts, end, code))
            ju = ju_of.get((topsp, idx))
            if ju is None:
                if ins or q.get(("DMA", idx)):
                    errors.append(f"{ut}: missing from the summary")
                continue
            ubusy = sum(e - s for s, e, _ in ins)
            unit_busy += [(s, e) for s, e, _ in ins]
            expect(f"{ut} instructions", ju["instructions"], len(ins))
            expect(f"{ut} busy_ns", ju["busy_ns"], ubusy)
            expect(f"{ut} utilization_pct", ju["utilization_pct"], pct(ubusy, span))
            expect(f"{ut} event_busy_ns", ju["event_busy_ns"], sum(s - b for b, s in wins))
            expect(f"{ut} idle gaps", [(g["idle_ns"], g["start_ns"]) for g in ju["idle_gaps"]],
                   gaps_top([(s, e) for s, e, _ in ins], top))
            if not topsp:
                dma = q.get(("DMA", idx), [])
                expect(f"{ut} dma", ju["dma"], len(dma))
                expect(f"{ut} dma_bytes", ju["dma_bytes"], sum(b for _, _, b in dma))
            durs = collections.defaultdict(list)
            for s, e, code in ins:
                durs[code].append(e - s)
            expect(f"{ut} ops", sorted(o["code"] for o in ju["ops"]), sorted(durs))
            for o in ju["ops"]:
                check_dist(f"{ut} op {o['code']:#x}", o, durs.get(o["code"], []))
            if not topsp and ins and len(durs) > 1:
                meds = {dist(v)["median_ns"] for v in durs.values()}
                expect(f"{ut} distinct op medians", len(meds) > 1, True)
        # One definition: the time any unit executes over the active span.
        cbusy = union_ns(unit_busy)
        expect(f"{tag} busy_ns", jc["busy_ns"], cbusy)
        expect(f"{tag} utilization_pct", jc["utilization_pct"], pct(cbusy, span))
        best = max((u["utilization_pct"] for u in jc["engines"] + jc["topsps"]), default=0)
        expect(f"{tag} utilisation at least its busiest unit's", jc["utilization_pct"] >= best, True)
        expect(f"{tag} utilisation at most the units' sum",
               jc["utilization_pct"] <= sum(u["utilization_pct"]
                                            for u in jc["engines"] + jc["topsps"]) + 0.01, True)
        check_throttle(tag, jc["throttle"],
                       sorted((ts, lvl) for ts, lvl, _ in q.get(("THROTTLE", 0), [])), last)
    jx = sorted(x["latency_ns"] for x in rec["executions"])
    expect("execution latencies", jx, sorted(b - a for a, b, _ in all_execs))
    for m in rec["models"]:
        expect("model id", m["model_id"], prog["model_id"])
        check_dist(f"model {m['model_id']} latency", m["latency"], [b - a for a, b, _ in all_execs])
        expect(f"model {m['model_id']} failed", m["failed"], sum(1 for x in all_execs if x[2]))
    status = print_errors()
    print(f"model_check: {checklib.checked} figures compared, {len(errors)} differ")
    return status


if __name__ == "__main__":
    sys.exit(main())
