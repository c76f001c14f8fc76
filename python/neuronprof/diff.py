# SPDX-License-Identifier: MIT
"""Two recordings' SQLite exports compared, as ``neuronprof diff`` does.

``neuronprof.diff(base, new)`` takes two databases written by ``neuronprof
export --format sqlite`` (paths) and returns a dict of pandas DataFrames
with the numbers of ``neuronprof diff --json`` (Documentation/analysis.rst,
"Comparing two recordings"):

* ``ops`` (an op of one engine or TopSP of one core), ``ops_all`` (an op
  across the cores) and ``latency`` (a model's execution latency): per side
  ``n``, ``total``, ``mean_ns``, ``median_ns``, ``p95_ns``, ``executions``
  and ``per_execution_ns``; ``change`` (of the mean), ``change_pct``,
  ``change_per_execution_ns``; the Mann-Whitney ``u``, ``z``, ``p``,
  ``p_adjusted`` (Holm, over the rows of the three frames that are
  tested), ``tested``, ``significant`` and ``verdict``;
* ``cores``: per core and side busy time (the union of its instructions),
  utilisation (busy over the span of its entries), DMA bytes and errors.

The samples, ranks and U come from the SQL views of VIEWS (the file
Documentation/analysis-diff.sql, installed with analysis-queries.sql),
run on the BASE database with NEW attached; the rest is here.
"""
import math
import sqlite3

import numpy as np
import pandas as pd

from .database import Database, _frame, unit_name
from .machines import _busy_by_core

MIN_SAMPLES = 8

# Documentation/analysis-diff.sql, byte for byte (python/tests check it).
VIEWS = r"""-- SPDX-License-Identifier: MIT
--
-- Views comparing two databases written by `neuronprof export --format
-- sqlite`, as `neuronprof diff BASE NEW` compares the recordings
-- (Documentation/analysis.rst, "Comparing two recordings"). Open the BASE
-- database, attach the NEW one as "new", then run this file:
--
--   sqlite3 base.sqlite
--   sqlite> ATTACH 'new.sqlite' AS new;
--   sqlite> .read analysis-diff.sql
--   sqlite> SELECT * FROM diff_tests ORDER BY abs(change_per_execution_ns) DESC;
--
-- The views are TEMP (a view of one database cannot name another). All the
-- recordings of a database are one side, as all the files of a side are for
-- diff; cores are matched by device index and core number.
--
-- diff_tests: one row per op of each engine and TopSP of each core (kind
-- 'op'), per op across the cores ('op_all') and per model's execution
-- latency ('latency'): on each side n, total, mean, median and p95
-- (nearest rank, as summary), the executions the time per execution
-- divides by (the core's; of the cores that ran the op; the model's) and
-- that time; the Mann-Whitney U of BASE from the ranks of both sides
-- (ties: their mean rank), U's mean, and its variance corrected for ties.
-- z = (|u - u_mean| - 0.5) / sqrt(u_var), p = erfc(|z| / sqrt(2)); the
-- Holm adjustment over the rows tested (both sides with 8 samples or more)
-- is left to the caller (neuronprof.diff() in the Python package does it).
-- The file is python/neuronprof/diff.py's VIEWS, which the tests check.

DROP VIEW IF EXISTS temp.diff_tests;
DROP VIEW IF EXISTS temp.diff_samples;
DROP VIEW IF EXISTS temp.diff_executions;
DROP VIEW IF EXISTS temp.diff_instructions;

CREATE TEMP VIEW diff_instructions AS
SELECT 0 AS side, dv.device_index AS device, c.core, q.unit_kind, q.unit_index, i.opcode,
       i.dur_ns
FROM main.instructions i JOIN main.queues q ON q.id = i.queue_id
JOIN main.cores c ON c.id = q.core_id JOIN main.devices dv ON dv.id = c.device_id
UNION ALL
SELECT 1, dv.device_index, c.core, q.unit_kind, q.unit_index, i.opcode, i.dur_ns
FROM new.instructions i JOIN new.queues q ON q.id = i.queue_id
JOIN new.cores c ON c.id = q.core_id JOIN new.devices dv ON dv.id = c.device_id;

CREATE TEMP VIEW diff_executions AS
SELECT 0 AS side, dv.device_index AS device, c.core, e.model_id, e.latency_ns
FROM main.executions e JOIN main.cores c ON c.id = e.core_id
JOIN main.devices dv ON dv.id = c.device_id
UNION ALL
SELECT 1, dv.device_index, c.core, e.model_id, e.latency_ns
FROM new.executions e JOIN new.cores c ON c.id = e.core_id
JOIN new.devices dv ON dv.id = c.device_id;

CREATE TEMP VIEW diff_samples AS
SELECT 'op' AS kind, side, device, core, unit_kind, unit_index, opcode AS code,
       NULL AS model_id, dur_ns AS v
FROM diff_instructions
UNION ALL
SELECT 'op_all', side, NULL, NULL, unit_kind, unit_index, opcode, NULL, dur_ns
FROM diff_instructions
UNION ALL
SELECT 'latency', side, NULL, NULL, NULL, NULL, NULL, model_id, latency_ns
FROM diff_executions;

CREATE TEMP VIEW diff_tests AS
WITH r AS (
  SELECT kind, side, device, core, unit_kind, unit_index, code, model_id, v,
         rank() OVER (k ORDER BY v) AS rk,
         count(*) OVER (PARTITION BY kind, device, core, unit_kind, unit_index, code,
                        model_id, v) AS t,
         row_number() OVER (PARTITION BY kind, device, core, unit_kind, unit_index, code,
                            model_id, side ORDER BY v) AS rn,
         count(*) OVER (PARTITION BY kind, device, core, unit_kind, unit_index, code,
                        model_id, side) AS n
  FROM diff_samples
  WINDOW k AS (PARTITION BY kind, device, core, unit_kind, unit_index, code, model_id)
), g AS (
  SELECT kind, device, core, unit_kind, unit_index, code, model_id,
         sum(side = 0) AS base_n, sum(side = 1) AS new_n,
         sum(CASE WHEN side = 0 THEN v END) AS base_total,
         sum(CASE WHEN side = 1 THEN v END) AS new_total,
         max(CASE WHEN side = 0 AND rn = (n * 50 + 99) / 100 THEN v END) AS base_median_ns,
         max(CASE WHEN side = 1 AND rn = (n * 50 + 99) / 100 THEN v END) AS new_median_ns,
         max(CASE WHEN side = 0 AND rn = (n * 95 + 99) / 100 THEN v END) AS base_p95_ns,
         max(CASE WHEN side = 1 AND rn = (n * 95 + 99) / 100 THEN v END) AS new_p95_ns,
         sum(CASE WHEN side = 0 THEN rk + (t - 1) / 2.0 END) AS base_rank_sum,
         sum(t * t - 1) AS ties
  FROM r GROUP BY kind, device, core, unit_kind, unit_index, code, model_id
), core_execs AS (
  SELECT side, device, core, count(*) AS executions FROM diff_executions
  GROUP BY side, device, core
), op_cores AS (
  SELECT DISTINCT side, device, core, unit_kind, unit_index, opcode FROM diff_instructions
), op_all_execs AS (
  SELECT o.side, o.unit_kind, o.unit_index, o.opcode,
         sum(coalesce(x.executions, 0)) AS executions
  FROM op_cores o LEFT JOIN core_execs x
    ON x.side = o.side AND x.device = o.device AND x.core = o.core
  GROUP BY o.side, o.unit_kind, o.unit_index, o.opcode
), e AS (
  SELECT g.*,
         CASE g.kind WHEN 'latency' THEN g.base_n
           WHEN 'op' THEN (SELECT coalesce(sum(x.executions), 0) FROM core_execs x
                           WHERE x.side = 0 AND x.device = g.device AND x.core = g.core)
           ELSE (SELECT a.executions FROM op_all_execs a WHERE a.side = 0
                 AND a.unit_kind = g.unit_kind AND a.unit_index = g.unit_index
                 AND a.opcode = g.code) END AS base_executions,
         CASE g.kind WHEN 'latency' THEN g.new_n
           WHEN 'op' THEN (SELECT coalesce(sum(x.executions), 0) FROM core_execs x
                           WHERE x.side = 1 AND x.device = g.device AND x.core = g.core)
           ELSE (SELECT a.executions FROM op_all_execs a WHERE a.side = 1
                 AND a.unit_kind = g.unit_kind AND a.unit_index = g.unit_index
                 AND a.opcode = g.code) END AS new_executions
  FROM g
)
SELECT kind, device, core, unit_kind, unit_index,
       CASE WHEN code IS NOT NULL THEN printf('0x%06x', code) END AS code, model_id,
       base_n, new_n, base_total, new_total,
       1.0 * base_total / nullif(base_n, 0) AS base_mean_ns,
       1.0 * new_total / nullif(new_n, 0) AS new_mean_ns,
       base_median_ns, new_median_ns, base_p95_ns, new_p95_ns,
       CASE WHEN base_n > 0 THEN base_executions END AS base_executions,
       CASE WHEN new_n > 0 THEN new_executions END AS new_executions,
       CASE WHEN base_n > 0 THEN 1.0 * base_total / coalesce(nullif(base_executions, 0), 1)
         END AS base_per_execution_ns,
       CASE WHEN new_n > 0 THEN 1.0 * new_total / coalesce(nullif(new_executions, 0), 1)
         END AS new_per_execution_ns,
       coalesce(1.0 * new_total / coalesce(nullif(new_executions, 0), 1), 0) -
         coalesce(1.0 * base_total / coalesce(nullif(base_executions, 0), 1), 0)
         AS change_per_execution_ns,
       CASE WHEN base_n > 0 AND new_n > 0 THEN base_rank_sum - base_n * (base_n + 1) / 2.0
         END AS u,
       base_n * new_n / 2.0 AS u_mean,
       CASE WHEN base_n + new_n > 1 THEN base_n * new_n / 12.0 *
         ((base_n + new_n + 1) - ties / (1.0 * (base_n + new_n) * (base_n + new_n - 1)))
         END AS u_var
FROM e;
"""


def _tests(base, new):
    con = sqlite3.connect("file:%s?mode=ro" % base, uri=True)
    try:
        con.execute("ATTACH ? AS new", ("file:%s?mode=ro" % new,))
        con.executescript(VIEWS)
        return _frame(con.execute("SELECT * FROM diff_tests"))
    finally:
        con.close()


def _verdict(row):
    if not row["base_n"]:
        return "new"
    if not row["new_n"]:
        return "gone"
    if not row["tested"]:
        return "untested"
    if not row["significant"]:
        return "unchanged"
    return "slower" if row["z"] > 0 else "faster"


def _holm(p, alpha):
    """Holm's step-down adjusted p-values of @p (an array), in its order."""
    order = np.argsort(p, kind="mergesort")
    adj = np.empty(len(p))
    run = 0.0
    for i, k in enumerate(order):
        a = min(1.0, (len(p) - i) * p[k])
        run = max(run, a)
        adj[k] = run
    return adj


def _core_stats(path):
    with Database(path) as db:
        cores = db.query(
            "SELECT c.id AS core_id, d.device_index AS device, c.core"
            " FROM cores c JOIN devices d ON d.id = c.device_id WHERE d.raw_format IS NULL")
        instr = db.query(
            "SELECT q.core_id, i.start_ns, i.end_ns FROM instructions i"
            " JOIN queues q ON q.id = i.queue_id")
        span = db.query(
            "SELECT q.core_id, min(e.ts_ns) AS first, max(e.ts_ns) AS last FROM entries e"
            " JOIN queues q ON q.id = e.queue_id GROUP BY q.core_id")
        dma = db.query(
            "SELECT q.core_id, sum(e.payload0) AS dma_bytes FROM entries e"
            " JOIN queues q ON q.id = e.queue_id WHERE q.queue_type = 'DMA' GROUP BY q.core_id")
        err = db.query(
            "SELECT q.core_id, count(*) AS errors FROM entries e JOIN queues q"
            " ON q.id = e.queue_id WHERE q.queue_type IN ('ERROR', 'TOPSP_ERROR')"
            " GROUP BY q.core_id")
        execs = db.query("SELECT core_id, count(*) AS executions FROM executions GROUP BY core_id")
    busy = _busy_by_core(instr) if len(instr) else {}
    out = cores.assign(busy_ns=cores["core_id"].map(lambda c: busy.get(int(c), 0)))
    for frame in (span, dma, err, execs):
        if len(frame):
            out = out.merge(frame.astype("int64"), on="core_id", how="left")
        else:
            out = out.assign(**{c: np.nan for c in frame.columns if c != "core_id"})
    out = out.fillna({"dma_bytes": 0, "errors": 0, "executions": 0})
    span_ns = (out["last"] - out["first"]).astype("float64")
    out["util_pct"] = np.where(span_ns > 0, 100.0 * out["busy_ns"] / span_ns.where(span_ns > 0, 1), 0.0)
    return out[["device", "core", "busy_ns", "util_pct", "dma_bytes", "errors", "executions"]]


def diff(base, new, alpha=0.05):
    """Compare the databases @base and @new; a dict of DataFrames (module doc)."""
    t = _tests(base, new)
    for col in ("base_n", "new_n"):
        t[col] = t[col].fillna(0).astype("int64")
    t["tested"] = (t["base_n"] >= MIN_SAMPLES) & (t["new_n"] >= MIN_SAMPLES)
    z = np.zeros(len(t))
    p = np.ones(len(t))
    for i, row in enumerate(t.itertuples(index=False)):
        if not row.tested or not row.u_var or row.u_var <= 0:
            continue
        dev = max(abs(row.u - row.u_mean) - 0.5, 0.0)
        z[i] = dev / math.sqrt(row.u_var) * (-1 if row.u > row.u_mean else 1)
        p[i] = math.erfc(abs(z[i]) / math.sqrt(2))
    t["z"] = np.where(t["tested"], z, np.nan)
    t["p"] = np.where(t["tested"], p, np.nan)
    adj = np.full(len(t), np.nan)
    tested = np.flatnonzero(t["tested"].to_numpy())
    if len(tested):
        adj[tested] = _holm(p[tested], alpha)
    t["p_adjusted"] = adj
    t["significant"] = t["tested"] & (t["p_adjusted"] < alpha)
    t["change"] = t["new_mean_ns"].fillna(0) - t["base_mean_ns"].fillna(0)
    both = (t["base_n"] > 0) & (t["new_n"] > 0) & (t["base_mean_ns"] != 0)
    t["change_pct"] = np.where(both, 100.0 * (t["new_mean_ns"] - t["base_mean_ns"]) /
                               t["base_mean_ns"].where(both, 1), np.nan)
    t["verdict"] = [_verdict(r) for _, r in t.iterrows()]
    frames = {}
    for kind, name, cols in (("op", "ops", ["device", "core", "unit_kind", "unit_index", "code"]),
                             ("op_all", "ops_all", ["unit_kind", "unit_index", "code"]),
                             ("latency", "latency", ["model_id"])):
        f = t[t["kind"] == kind].drop(columns=["kind"])
        drop = [c for c in ("device", "core", "unit_kind", "unit_index", "code", "model_id")
                if c not in cols]
        frames[name] = f.drop(columns=drop).sort_values(
            "change_per_execution_ns", key=abs, ascending=False, kind="mergesort"
        ).reset_index(drop=True)
    b, n = _core_stats(base), _core_stats(new)
    frames["cores"] = b.merge(n, on=["device", "core"], how="outer",
                              suffixes=("_base", "_new")).sort_values(["device", "core"]
                                                                      ).reset_index(drop=True)
    return frames


# ---- diff --json's document ------------------------------------------------------------

KIND_ORDER = {"op": 0, "op_all": 1, "latency": 2, "busy": 3, "util": 4, "dma_bytes": 5,
              "errors": 6}


def _f3(v):
    """@v as diff --json writes it ("%.3f")."""
    return float("%.3f" % v)


def _g6(v):
    return float("%.6g" % v)


def _unit(kind, index):
    return unit_name(kind, index)


def _names(path):
    """{(unit kind, code): name} of the database's devices, and {model_id: name}."""
    with Database(path) as db:
        ops = db.query("SELECT queue_type, code, name FROM code_names"
                       " WHERE queue_type IN ('TRACE', 'TOPSP_TRACE')")
        models = db.query("SELECT model_id, name FROM models WHERE name IS NOT NULL")
    opn = {}
    for r in ops.itertuples(index=False):
        opn.setdefault(("topsp" if r.queue_type == "TOPSP_TRACE" else "engine", int(r.code)),
                       r.name)
    return opn, {int(r.model_id): r.name for r in models.itertuples(index=False)}


def _sample_side(r, side):
    n = int(r[side + "_n"])
    if not n:
        return None
    return {"n": n, "value": _f3(r[side + "_mean_ns"]), "total": int(r[side + "_total"]),
            "median_ns": int(r[side + "_median_ns"]), "p95_ns": int(r[side + "_p95_ns"]),
            "executions": int(r[side + "_executions"]),
            "per_execution_ns": _f3(r[side + "_per_execution_ns"])}


def document(base, new, alpha=0.05, frames=None):
    """The document ``neuronprof diff --json`` writes for the recordings these
    databases were exported from: ``test`` and ``rows`` (every figure, ranked),
    with ``base`` and ``new`` holding the databases' ``paths``, ``cores`` and
    ``executions``; no gate (its thresholds null, no row a regression)."""
    f = frames if frames is not None else diff(base, new, alpha)
    bnames, bmodels = _names(base)
    nnames, nmodels = _names(new)
    rows = []
    for kind, frame in (("op", f["ops"]), ("op_all", f["ops_all"]), ("latency", f["latency"])):
        for _, r in frame.iterrows():
            code = int(r["code"], 16) if kind != "latency" else 0
            uk = r["unit_kind"] if kind != "latency" else None
            ui = int(r["unit_index"]) if kind != "latency" else 0
            if kind == "latency":
                mid = int(r["model_id"])
                name = bmodels.get(mid) if r["base_n"] else None
                name = name or nmodels.get(mid)
                what = "latency model %d" % mid
            else:
                name = (bnames.get((uk, code)) if r["base_n"] else None) or \
                    (nnames.get((uk, code)) if r["new_n"] else None)
                what = "op " + r["code"]
            if name:
                what += " " + name
            both = r["base_n"] > 0 and r["new_n"] > 0
            change = (r["new_mean_ns"] if r["new_n"] else 0.0) - \
                (r["base_mean_ns"] if r["base_n"] else 0.0)
            row = {
                "kind": kind, "what": what, "verdict": r["verdict"],
                "device": int(r["device"]) if kind == "op" else None,
                "core": int(r["core"]) if kind == "op" else None,
                "unit": _unit(uk, ui) if kind != "latency" else None,
                "code": r["code"] if kind != "latency" else None,
                "model_id": int(r["model_id"]) if kind == "latency" else None,
                "name": name, "base": _sample_side(r, "base"), "new": _sample_side(r, "new"),
                "change": _f3(change),
                "change_pct": _f3(r["change_pct"]) if both and r["base_mean_ns"] else None,
                "change_per_execution_ns": _f3(r["change_per_execution_ns"]),
                "tested": bool(r["tested"]),
                "u": float("%.1f" % r["u"]) if r["tested"] else None,
                "z": _f3(r["z"]) if r["tested"] else None,
                "p": _g6(r["p"]) if r["tested"] else None,
                "p_adjusted": _g6(r["p_adjusted"]) if r["tested"] else None,
                "significant": bool(r["significant"]), "regression": False,
            }
            key = (KIND_ORDER[kind] > 3, -abs(r["change_per_execution_ns"]), KIND_ORDER[kind],
                   row["device"] or 0, row["core"] or 0, uk == "topsp", ui, code,
                   row["model_id"] or 0)
            rows.append((key, row))
    cores = f["cores"]
    for _, c in cores.iterrows():
        sides = {s: not math.isnan(c["busy_ns_" + s]) if isinstance(c["busy_ns_" + s], float)
                 else c["busy_ns_" + s] is not None for s in ("base", "new")}
        for kind, col in (("busy", "busy_ns"), ("util", "util_pct"), ("dma_bytes", "dma_bytes"),
                          ("errors", "errors")):
            val, per, ex, tot = {}, {}, {}, {}
            side_doc = {}
            for s in ("base", "new"):
                if not sides[s]:
                    side_doc[s] = None
                    val[s], per[s] = 0.0, 0.0
                    continue
                ex[s] = int(c["executions_" + s])
                v = float(c[col + "_" + s])
                val[s] = v
                tot[s] = int(v) if kind != "util" else 0
                per[s] = (v / ex[s] if ex[s] else v) if kind == "busy" else 0.0
                side_doc[s] = {"n": 0, "value": _f3(v), "total": tot[s], "median_ns": 0,
                               "p95_ns": 0, "executions": ex[s], "per_execution_ns": _f3(per[s])}
            change = val["new"] - val["base"]
            pct = None
            if side_doc["base"] and side_doc["new"]:
                bv, nv = val["base"], val["new"]
                if kind in ("busy", "dma_bytes") and ex["base"] and ex["new"]:
                    bv, nv = bv / ex["base"], nv / ex["new"]
                if bv != 0:
                    pct = _f3(100.0 * (nv - bv) / bv)
            if not side_doc["base"]:
                verdict = "new"
            elif not side_doc["new"]:
                verdict = "gone"
            else:
                verdict = "more" if change > 0 else "less" if change < 0 else "unchanged"
            cpe = per["new"] - per["base"] if kind == "busy" else 0.0
            row = {
                "kind": kind, "what": {"busy": "busy time", "util": "utilisation",
                                       "dma_bytes": "DMA bytes", "errors": "errors"}[kind],
                "verdict": verdict, "device": int(c["device"]), "core": int(c["core"]),
                "unit": None, "code": None, "model_id": None, "name": None,
                "base": side_doc["base"], "new": side_doc["new"], "change": _f3(change),
                "change_pct": pct, "change_per_execution_ns": _f3(cpe), "tested": False,
                "u": None, "z": None, "p": None, "p_adjusted": None, "significant": False,
                "regression": False,
            }
            key = (KIND_ORDER[kind] > 3, -abs(cpe), KIND_ORDER[kind], row["device"], row["core"],
                   False, 0, 0, 0)
            rows.append((key, row))
    rows.sort(key=lambda kr: kr[0])
    out = []
    for i, (_, row) in enumerate(rows):
        out.append(dict({"rank": i + 1}, **row))
    ntests = sum(1 for _, r in rows if r["tested"])
    execs = {s: int(cores["executions_" + s].fillna(0).sum()) for s in ("base", "new")}
    ncores = {s: int(cores["busy_ns_" + s].notna().sum()) for s in ("base", "new")}
    return {
        "format_version": 1,
        "base": {"paths": [base], "cores": ncores["base"], "executions": execs["base"]},
        "new": {"paths": [new], "cores": ncores["new"], "executions": execs["new"]},
        "test": {"method": "mann-whitney-u",
                 "approximation": "normal, tie-corrected, continuity-corrected",
                 "adjustment": "holm", "alpha": _g6(alpha), "tests": ntests,
                 "min_samples": MIN_SAMPLES},
        "gate": {"op_pct": None, "latency_pct": None, "busy_pct": None, "dma_pct": None,
                 "errors": False},
        "rows": out,
    }
