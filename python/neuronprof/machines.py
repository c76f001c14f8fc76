# SPDX-License-Identifier: MIT
"""Several machines' recordings compared, as ``neuronprof summary`` does.

The definitions are those of ``summary`` (tools/neuronprof/analysis/xhost.h,
Documentation/analysis.rst, "Comparing machines"); the numbers must be the
same, and the tests check that they are:

* recordings belong to machines by name (``machines.name``: the instance
  id, else the host name); machines are numbered in the order their first
  recording comes, databases in the order given and recordings by id;
* per machine: recordings, cores (of decoded devices), executions and
  their total latency, busy time (per core the union of its instructions),
  instructions, DMA bytes, errors (``ERROR`` and ``TOPSP_ERROR`` entries),
  lost entries (of its decoded queues), and whether it has a clock mapping;
* per execution index: execution k of every core of every machine by
  latency; the slowest and the fastest (the first of equal latencies by
  machine, device and core) and the skew;
* the slowest machine (most execution time in total; ties: the later
  machine) and the median one (the lower median by that total, ties in
  machine order): per op code over all units, count and total on both, the
  ``top`` differing most by absolute difference, ties by code.

``recording_stats(path)`` reads one database into plain numbers (what a
Dask task returns); ``compare(stats, top)`` puts them together.
"""
import numpy as np
import pandas as pd

from .database import Database, DatabaseError

U64 = (1 << 64) - 1
NO_MAPPING = ("no clock mapping (trace_info.pb with start_ns and start_realtime_ns): "
              "compared by execution index and durations only")


def _u64_sum(series):
    """Sum of int64 @series as uint64 (C's unsigned arithmetic, modulo 2^64)."""
    if len(series) == 0:
        return 0
    return int(series.to_numpy(dtype="int64").view("uint64").sum(dtype="uint64"))


def _busy_by_core(instr, windows=None):
    """Per core_id, the time covered by the union of its instructions' intervals,
    outside the loss windows of its instruction queues (@windows: core_id,
    start_ns, end_ns, clipped to the core's span; analysis.rst, Loss windows):
    the union of both less the union of the windows. An instruction a loss cut
    (NULL end) has no interval.

    In integers throughout: times of a database of several machines are on
    CLOCK_REALTIME (about 2^60 ns), beyond a float's exact integers.
    """
    iv = instr.dropna(subset=["end_ns"])
    iv = iv.loc[iv["end_ns"] > iv["start_ns"], ["core_id", "start_ns", "end_ns"]]
    if windows is None or windows.empty:
        return _union_by_core(iv)
    w = windows.loc[windows["end_ns"] > windows["start_ns"], ["core_id", "start_ns", "end_ns"]]
    both = _union_by_core(pd.concat([iv.astype("int64"), w.astype("int64")]))
    lost = _union_by_core(w)
    return {k: v - lost.get(k, 0) for k, v in both.items()}


def _union_by_core(iv):
    """Per core_id, the time the union of the (core_id, start_ns, end_ns) rows covers."""
    if iv.empty:
        return {}
    iv = iv.astype("int64").sort_values(["core_id", "start_ns", "end_ns"], kind="mergesort")
    core = iv["core_id"].to_numpy()
    ts = iv["start_ns"].to_numpy()
    end = iv["end_ns"].to_numpy()
    # The latest end before each interval of its core (none for the first).
    run = iv.groupby("core_id", sort=False)["end_ns"].cummax().to_numpy(dtype="int64")
    prev = np.empty_like(run)
    prev[0] = np.iinfo("int64").min
    prev[1:] = run[:-1]
    first = np.ones(len(core), dtype=bool)
    first[1:] = core[1:] != core[:-1]
    prev[first] = np.iinfo("int64").min
    add = np.maximum(end - np.maximum(ts, prev), 0)
    return {int(k): int(v) for k, v in
            pd.Series(add, index=core).groupby(level=0).sum().items()}


def recording_stats(path, name=None):
    """The numbers of every recording of the database at @path, for compare().

    Returns {"path", "recordings": [...]}, each recording a dict of plain
    integers (machine, mapped, cores, executions, exec_ns, busy, instructions,
    dma_bytes, errors, lost, ops: {code: [count, total]}, samples: [[index,
    device, core, latency], ...]); or {"path", "error"} for a database that
    cannot be read (DatabaseError's message, which names it: @name if given).
    """
    try:
        with Database(path, name) as db:
            return {"path": path, "recordings": _stats(db)}
    except DatabaseError as e:
        return {"path": path, "error": str(e)}


def _stats(db):
    recs = db.query(
        "SELECT r.id, m.name AS machine, (m.mapping_monotonic_ns IS NOT NULL AND"
        " m.mapping_realtime_ns IS NOT NULL) AS mapped"
        " FROM recordings r JOIN machines m ON m.id = r.machine_id ORDER BY r.id")
    # Cores of decoded devices: raw entries make no core in summary.
    cores = db.query(
        "SELECT c.id AS core_id, c.recording_id, d.device_index AS device, c.core"
        " FROM cores c JOIN devices d ON d.id = c.device_id WHERE d.raw_format IS NULL")
    core_rec = dict(zip(cores["core_id"].astype("int64"), cores["recording_id"].astype("int64")))
    queues = db.queues
    queues = queues[queues["core_id"].isin(core_rec.keys())]
    lost = queues.groupby("core_id")["lost_count"].apply(_u64_sum)
    err = db.query(
        "SELECT q.core_id, count(*) AS n FROM entries e JOIN queues q ON q.id = e.queue_id"
        " WHERE q.queue_type IN ('ERROR', 'TOPSP_ERROR') GROUP BY q.core_id")
    dma = db.query(
        "SELECT q.core_id, e.payload0 FROM entries e JOIN queues q ON q.id = e.queue_id"
        " WHERE q.queue_type = 'DMA'")
    instr = db.query(
        "SELECT q.core_id, i.start_ns, i.end_ns, i.dur_ns, i.opcode, n.name FROM instructions i"
        " JOIN queues q ON q.id = i.queue_id JOIN cores c ON c.id = q.core_id"
        " LEFT JOIN code_names n ON n.device_id = c.device_id"
        " AND n.queue_type = q.queue_type AND n.code = i.opcode")
    execs = db.query("SELECT core_id, idx, latency_ns FROM executions ORDER BY core_id, idx")
    windows = None
    if db.schema_version >= 7:
        # Loss windows of the instruction queues, clipped to each core's span.
        windows = db.query(
            "WITH t AS (SELECT queue_id, ts_ns AS ts FROM entries"
            " UNION ALL SELECT queue_id, start_ns FROM instructions),"
            " span AS (SELECT q.core_id, min(t.ts) AS f, max(t.ts) AS l"
            " FROM t JOIN queues q ON q.id = t.queue_id GROUP BY q.core_id)"
            " SELECT w.core_id, max(w.start_ns, span.f) AS start_ns,"
            " min(w.end_ns, span.l) AS end_ns FROM loss_windows w JOIN span USING (core_id)"
            " WHERE w.queue_type IN ('TRACE', 'TOPSP_TRACE')")

    busy = _busy_by_core(instr, windows)
    instr = instr[instr["core_id"].isin(core_rec.keys())]
    instr = instr.assign(recording_id=instr["core_id"].map(core_rec))
    dma = dma[dma["core_id"].isin(core_rec.keys())]
    dma = dma.assign(recording_id=dma["core_id"].map(core_rec))
    execs = execs.merge(cores, on="core_id")

    out = []
    for rec in recs.itertuples(index=False):
        rid = int(rec.id)
        rc = cores[cores["recording_id"] == rid]
        ids = [int(c) for c in rc["core_id"]]
        ri = instr[instr["recording_id"] == rid]
        ops = {}
        # An instruction a loss cut has no duration and is no op's.
        for code, g in ri.dropna(subset=["dur_ns"]).groupby("opcode", sort=True):
            names = [n for n in g["name"] if isinstance(n, str)]
            ops[int(code)] = [len(g), _u64_sum(g["dur_ns"]), names[0] if names else None]
        rx = execs[execs["recording_id"] == rid]
        out.append({
            "machine": rec.machine,
            "mapped": bool(rec.mapped),
            "cores": len(ids),
            "busy": sum(busy.get(c, 0) for c in ids) & U64,
            "errors": int(err.loc[err["core_id"].isin(ids), "n"].sum()),
            "lost": sum(int(lost.get(c, 0)) for c in ids) & U64,
            "instructions": len(ri),
            "dma_bytes": _u64_sum(dma.loc[dma["recording_id"] == rid, "payload0"]),
            "executions": len(rx),
            "exec_ns": _u64_sum(rx["latency_ns"]),
            "ops": ops,
            "samples": [[int(i), int(d), int(c), int(lat) & U64] for i, d, c, lat in
                        zip(rx["idx"], rx["device"], rx["core"], rx["latency_ns"])],
        })
    return out


def compare(stats, top=5):
    """The machines of @stats (recording_stats() results, in order) compared.

    Returns (machines_compared, warnings): the first shaped as summary's JSON
    ``machines_compared``, or None with fewer than two machines; the second
    the warnings summary prints (a machine without a clock mapping).
    """
    machines = []
    index = {}
    samples = []
    for st in stats:
        for r in st["recordings"]:
            k = index.get(r["machine"])
            if k is None:
                k = index[r["machine"]] = len(machines)
                machines.append({"name": r["machine"], "clock_mapping": False,
                                 "recordings": 0, "cores": 0, "executions": 0,
                                 "execution_ns": 0, "busy_ns": 0, "instructions": 0,
                                 "dma_bytes": 0, "errors": 0, "lost": 0, "_ops": {}})
            m = machines[k]
            m["recordings"] += 1
            m["clock_mapping"] |= r["mapped"]
            m["cores"] += r["cores"]
            for key, src in (("busy_ns", "busy"), ("errors", "errors"), ("lost", "lost"),
                             ("instructions", "instructions"), ("dma_bytes", "dma_bytes"),
                             ("executions", "executions"), ("execution_ns", "exec_ns")):
                m[key] = (m[key] + r[src]) & U64
            for code, (count, total, name) in r["ops"].items():
                o = m["_ops"].setdefault(int(code), [0, 0, None])
                o[0] += count
                o[1] = (o[1] + total) & U64
                o[2] = o[2] or name
            samples.extend([idx, k, dev, core, ns] for idx, dev, core, ns in r["samples"])
    if len(machines) < 2:
        return None, []
    warnings = [f"{m['name']}: {NO_MAPPING}" for m in machines if not m["clock_mapping"]]

    executions = []
    if samples:
        v = pd.DataFrame(samples, columns=["index", "machine", "device", "core", "ns"])
        # The slowest: the first of the largest in (machine, device, core)
        # order; the fastest likewise, as summary's scan of the sorted samples.
        key = ["index", "machine", "device", "core"]
        slow = v.sort_values(["index", "ns"] + key[1:], ascending=[True, False, True, True, True],
                             kind="mergesort").groupby("index", sort=True).first()
        fast = v.sort_values(["index", "ns"] + key[1:], kind="mergesort").groupby(
            "index", sort=True).first()
        counts = v.groupby("index", sort=True).agg(cores=("ns", "size"),
                                                   machines=("machine", "nunique"))
        for i in counts.index:
            s, f = slow.loc[i], fast.loc[i]
            executions.append({
                "index": int(i),
                "cores": int(counts.at[i, "cores"]),
                "machines": int(counts.at[i, "machines"]),
                "slowest": _side(machines, s),
                "fastest": _side(machines, f),
                "skew_ns": (int(s["ns"]) - int(f["ns"])) & U64,
            })

    order = sorted(range(len(machines)), key=lambda k: (machines[k]["execution_ns"], k))
    slowest, median = order[-1], order[(len(machines) - 1) // 2]
    so, mo = machines[slowest]["_ops"], machines[median]["_ops"]
    ops = []
    for code in list(so) + [c for c in mo if c not in so]:
        sc, stot, sname = so.get(code, (0, 0, None))
        mc, mtot, mname = mo.get(code, (0, 0, None))
        # The device's name of the op (the slowest machine's, else the
        # median's), None when it names none; the code spelled 0x000102.
        ops.append({"op": sname or mname, "code": code, "slowest_count": sc,
                    "slowest_total_ns": stot, "median_count": mc, "median_total_ns": mtot,
                    "difference_ns": _i64(stot - mtot)})
    ops.sort(key=lambda d: (-abs(d["difference_ns"]), d["code"]))
    for d in ops:
        d["code"] = f"0x{d['code']:06x}"
    for m in machines:
        del m["_ops"]
    return {
        "slowest": machines[slowest]["name"],
        "median": machines[median]["name"],
        "machines": machines,
        "executions": executions,
        "ops": ops[:top],
    }, warnings


def _i64(v):
    """@v as C's int64_t of two uint64 totals' difference."""
    v &= U64
    return v - (1 << 64) if v >> 63 else v


def _side(machines, row):
    return {"machine": machines[int(row["machine"])]["name"], "device": int(row["device"]),
            "core": int(row["core"]), "latency_ns": int(row["ns"])}


def duration(ns, raw_ns=False):
    """A duration as summary prints it: 430ns, 1.530us, 2.106ms, 1.000s (--ns: 4300ns,
    whole nanoseconds with their unit)."""
    if raw_ns or ns < 1000:
        return f"{ns}ns"
    if ns < 1000000:
        return "%.3fus" % (ns / 1e3)
    if ns < 1000000000:
        return "%.3fms" % (ns / 1e6)
    return "%.3fs" % (ns / 1e9)


def text(x, top, raw_ns=False):
    """@x (compare()'s first result) as summary's text prints it, lines joined."""
    D = lambda ns: duration(ns, raw_ns)  # noqa: E731
    ms = x["machines"]
    lines = ["",
             f"machines compared: {len(ms)}; slowest {x['slowest']}, median {x['median']}"
             " (by total execution time)",
             "  per machine:",
             "    %-24s %5s %5s %10s %12s %12s %12s %12s %12s %7s %7s %s" % (
                 "machine", "recs", "cores", "executions", "exec_total", "exec_avg", "busy",
                 "instr", "dma_bytes", "errors", "lost", "clock")]
    for m in ms:
        avg = m["execution_ns"] // m["executions"] if m["executions"] else 0
        lines.append("    %-24s %5d %5d %10d %12s %12s %12s %12d %12d %7d %7d %s" % (
            m["name"], m["recordings"], m["cores"], m["executions"], D(m["execution_ns"]),
            D(avg), D(m["busy_ns"]), m["instructions"], m["dma_bytes"], m["errors"],
            m["lost"], "mapped" if m["clock_mapping"] else "no mapping"))
    lines.append("  per execution index (latency; skew = slowest - fastest):")
    lines.append("    %-6s %5s %-32s %12s %-32s %12s %12s" % (
        "index", "cores", "slowest", "latency", "fastest", "latency", "skew"))
    side = lambda s: f"{s['machine']} dev{s['device']} nc{s['core']}"  # noqa: E731
    for e in x["executions"]:
        lines.append("    %-6d %5d %-32s %12s %-32s %12s %12s" % (
            e["index"], e["cores"], side(e["slowest"]), D(e["slowest"]["latency_ns"]),
            side(e["fastest"]), D(e["fastest"]["latency_ns"]), D(e["skew_ns"])))
    lines.append(f"  ops differing most, slowest {x['slowest']} against median {x['median']}"
                 f" (total time, top {top}):")
    lines.append("    %-18s %-8s %8s %12s %8s %12s %12s" % (
        "op", "code", "count", "slowest", "count", "median", "difference"))
    for d in x["ops"]:
        diff = ("-" if d["difference_ns"] < 0 else "+") + D(abs(d["difference_ns"]))
        lines.append("    %-18s %-8s %8d %12s %8d %12s %12s" % (
            d["op"] or "-", d["code"], d["slowest_count"], D(d["slowest_total_ns"]),
            d["median_count"], D(d["median_total_ns"]), diff))
    return "\n".join(lines) + "\n"
