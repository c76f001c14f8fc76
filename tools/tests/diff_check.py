#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tests of `neuronprof diff` on recordings of tests/gen_diff.c.

    diff_check.py NEURONPROF GEN_DIFF WORKDIR

1. planted: BASE (seed 1) against NEW (seed 2 with --planted: op 0x402 of
   engine 0 on core 1 15% slower, model 11's latency 5% slower, op 0x5ff new
   on core 0). Exactly those are significant or new, in the JSON, the CSV
   (the same numbers, field by field) and the text (the same percentages
   and verdicts); the U and p of two rows equal a naive recomputation from
   the entries (`neuronprof dump --json`).
2. gate: --fail-above 10 exits 3 naming op 0x402 on core 1 only; identical
   runs and two runs of the same workload exit 0; the per-metric forms.
3. null: 50 pairs of recordings of the same workload (seeds 101..200): the
   share of comparisons (pairs) with a significant change, and of single
   tests, printed; each at most 5%.

Prints what it checked; exits 1 on the first failure.
"""
import csv
import io
import json
import math
import os
import re
import subprocess
import sys

NP, GEN, WORK = sys.argv[1:4]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def gen(name, seed, planted=False, execs=100):
    path = os.path.join(WORK, name)
    if not os.path.isdir(path):
        cmd = [GEN, "--seed", str(seed), "--executions", str(execs)]
        if planted:
            cmd.append("--planted")
        subprocess.run(cmd + [path], check=True)
    return path


def run(*args):
    return subprocess.run([NP, "diff"] + list(args), capture_output=True, text=True)


def diff_json(base, new, *opts):
    r = run("--json", *opts, base, new)
    if r.returncode not in (0, 3):
        fail("diff --json exited %d: %s" % (r.returncode, r.stderr))
    return json.loads(r.stdout), r


def key(row):
    return (row["kind"], row["core"], row["unit"], row["code"], row["model_id"])


def flagged(doc):
    return {key(r) for r in doc["rows"] if r["significant"]}


def one_sided(doc):
    return {(key(r), r["verdict"]) for r in doc["rows"] if r["verdict"] in ("new", "gone")}


# ---- naive recomputation from the entries ------------------------------------------

def entries(path, core):
    f = os.path.join(path, "profile_nc_%d_session_0.ntff" % core)
    d = json.loads(subprocess.run([NP, "dump", "--json", f], capture_output=True,
                                  text=True, check=True).stdout)
    return {(q["queue_type"], q["engine"]): q["entries"] for q in d["queues"]}


def latencies(path, core):
    inf = entries(path, core)[("INFER_STATUS", 0)]
    out, start = [], None
    for e in inf:
        if int(e["code"], 16) == 1:
            start = e["timestamp_ns"]
        else:
            out.append(e["timestamp_ns"] - start)
    return out


def op_durations(path, core, engine, code):
    q = entries(path, core)
    trace, ev = q[("TRACE", engine)], q[("EVENT", engine)]
    ends = [e["timestamp_ns"] for e in ev if int(e["code"], 16) == 2]
    out = []
    for i, e in enumerate(trace):
        if int(e["code"], 16) != code:
            continue
        end = min(x for x in ends if x >= e["timestamp_ns"])
        if i + 1 < len(trace) and trace[i + 1]["timestamp_ns"] < end:
            end = trace[i + 1]["timestamp_ns"]
        out.append(end - e["timestamp_ns"])
    return out


def mann_whitney(a, b):
    """U of a, tie-corrected normal approximation with continuity correction."""
    u = sum((x > y) + 0.5 * (x == y) for x in a for y in b)
    n1, n2 = len(a), len(b)
    n = n1 + n2
    counts = {}
    for v in a + b:
        counts[v] = counts.get(v, 0) + 1
    ties = sum(t ** 3 - t for t in counts.values())
    var = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1)))
    z = max(abs(u - n1 * n2 / 2.0) - 0.5, 0) / math.sqrt(var)
    return u, math.erfc(z / math.sqrt(2))


def close(a, b, rel=1e-5):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


# ---- 1. the planted regression ------------------------------------------------------

base = gen("base", 1)
planted = gen("planted", 2, planted=True)
doc, _ = diff_json(base, planted)
want = {("op", 1, "0:tensor", "0x000402", None), ("op_all", None, "0:tensor", "0x000402", None),
        ("latency", None, None, None, 11)}
got = flagged(doc)
if got != want:
    fail("planted: significant %s, want %s" % (sorted(map(str, got)), sorted(map(str, want))))
want_new = {(("op", 0, "1:vector", "0x0005ff", None), "new"),
            (("op_all", None, "1:vector", "0x0005ff", None), "new")}
if one_sided(doc) != want_new:
    fail("planted: one-sided rows %s" % sorted(map(str, one_sided(doc))))
rows = {key(r): r for r in doc["rows"]}
op = rows[("op", 1, "0:tensor", "0x000402", None)]
lat = rows[("latency", None, None, None, 11)]
if not (10 < op["change_pct"] < 20 and op["verdict"] == "slower"):
    fail("planted op: %+.3f%% %s" % (op["change_pct"], op["verdict"]))
if not (3 < lat["change_pct"] < 7 and lat["verdict"] == "slower"):
    fail("planted latency: %+.3f%% %s" % (lat["change_pct"], lat["verdict"]))
print("planted: significant exactly op 0x402 on core 1 (%+.1f%%, n %d/%d), across cores, "
      "latency of model 11 (%+.1f%%, n %d/%d); new exactly op 0x5ff"
      % (op["change_pct"], op["base"]["n"], op["new"]["n"], lat["change_pct"],
         lat["base"]["n"], lat["new"]["n"]))

# The test itself, recomputed naively from the entries.
for row, a, b in ((lat, latencies(base, 0), latencies(planted, 0)),
                  (op, op_durations(base, 1, 0, 0x402), op_durations(planted, 1, 0, 0x402))):
    u, p = mann_whitney(a, b)
    if len(a) != row["base"]["n"] or len(b) != row["new"]["n"]:
        fail("%s: %d/%d samples, diff says %d/%d" % (row["what"], len(a), len(b),
                                                     row["base"]["n"], row["new"]["n"]))
    if abs(sum(a) / len(a) - row["base"]["value"]) > 0.001 or \
       abs(sum(b) / len(b) - row["new"]["value"]) > 0.001:
        fail("%s: means differ from the entries'" % row["what"])
    if not close(u, row["u"]) or not close(p, row["p"]):
        fail("%s: U %s p %s, recomputed U %s p %s" % (row["what"], row["u"], row["p"], u, p))
print("Mann-Whitney U and p of two rows equal a naive recomputation from the entries")

# CSV: the same rows, the same numbers, field by field.
r = run("--csv", base, planted)
table = list(csv.DictReader(io.StringIO(r.stdout)))
if len(table) != len(doc["rows"]):
    fail("csv: %d rows, json %d" % (len(table), len(doc["rows"])))


def fmt(v, col):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if col in ("p", "p_adjusted", "u"):
            return v
        return "%.3f" % v
    return str(v)


for jr, cr in zip(doc["rows"], table):
    flat = dict(jr)
    for side in ("base", "new"):
        for k in ("n", "value", "total", "median_ns", "p95_ns", "executions",
                  "per_execution_ns"):
            flat["%s_%s" % (side, k)] = jr[side][k] if jr[side] else None
    for col, cv in cr.items():
        jv = fmt(flat[col], col)
        if isinstance(jv, float):
            if not close(jv, float(cv)):
                fail("csv row %s %s: %s, json %s" % (cr["rank"], col, cv, jv))
        elif jv != cv:
            fail("csv row %s %s: '%s', json '%s'" % (cr["rank"], col, cv, jv))
print("csv: %d rows equal the json's, field by field" % len(table))

# Text: the flagged and new rows, with the JSON's percentages and verdicts.
r = run(base, planted)
text = r.stdout.splitlines()
marked = [l for l in text if l.rstrip().endswith(("slower", "new", "faster", "gone"))]
if len(marked) != 5:
    fail("text: %d rows slower/faster/new/gone, want 5:\n%s" % (len(marked), "\n".join(marked)))
for k in sorted(want | {w[0] for w in want_new}, key=str):
    jr = rows[k]
    where = ("core %d %s" % (jr["core"], jr["unit"]) if jr["core"] is not None
             else "all cores" + (" " + jr["unit"] if jr["unit"] else ""))
    line = [l for l in marked if l.strip().startswith(jr["what"]) and where in l]
    if len(line) != 1:
        fail("text: no single row for %s on %s" % (jr["what"], where))
    pct = "%+.1f%%" % jr["change_pct"] if jr["change_pct"] is not None else "-"
    if pct not in line[0].split() or jr["verdict"] not in line[0].split():
        fail("text: '%s' lacks %s %s" % (line[0], pct, jr["verdict"]))
print("text: the same 5 rows, percentages and verdicts")

# ---- 2. the gate ----------------------------------------------------------------------

same = gen("same", 3)
r = run("--fail-above", "10", base, planted)
regs = [l for l in r.stderr.splitlines() if "regression:" in l]
if r.returncode != 3 or len(regs) != 1 or "op 0x000402 on core 1 0:tensor" not in regs[0]:
    fail("gate planted: exit %d, %s" % (r.returncode, r.stderr))
print("gate: --fail-above 10 on the planted case exits 3: %s" % regs[0])
for b, n, what in ((base, base, "identical runs"), (base, same, "two runs of one workload")):
    r = run("--fail-above", "10", b, n)
    if r.returncode != 0 or r.stderr:
        fail("gate on %s: exit %d %s" % (what, r.returncode, r.stderr))
    print("gate: --fail-above 10 on %s exits 0" % what)
r = run("--fail-above-latency", "4", base, planted)
if r.returncode != 3 or "latency model 11 on all cores" not in r.stderr or "op 0x" in r.stderr:
    fail("--fail-above-latency 4: exit %d %s" % (r.returncode, r.stderr))
r = run("--fail-above", "20", base, planted)
if r.returncode != 0:
    fail("--fail-above 20: exit %d %s" % (r.returncode, r.stderr))
r = run("--fail-above-busy", "3", base, planted)
if r.returncode != 3 or "busy time on core 0" not in r.stderr:
    fail("--fail-above-busy 3: exit %d %s" % (r.returncode, r.stderr))
print("gate: --fail-above-latency 4 names model 11 only, --fail-above 20 passes, "
      "--fail-above-busy 3 names core 0's busy time")

# ---- report --diff -------------------------------------------------------------------

def page(b, n, name):
    out = os.path.join(WORK, name)
    r = subprocess.run([NP, "report", "--diff", "-o", out, b, n], capture_output=True,
                       text=True)
    if r.returncode:
        fail("report --diff exited %d: %s" % (r.returncode, r.stderr))
    with open(out) as f:
        return f.read()


html = page(base, planted, "planted.html")
m = re.search(r'<script type="application/json" id="diff-data">(.*?)</script>', html, re.S)
if not m or json.loads(m.group(1)) != doc:
    fail("report --diff: its data is not diff --json's document")
regs = re.findall(r'<div class="regression" data-what="([^"]*)"', html)
order = [r for r in doc["rows"] if r["verdict"] == "slower"] + \
        [r for r in doc["rows"] if r["verdict"] == "new" and r["kind"] in ("op", "op_all")]


def where(r):
    return ("core %d %s" % (r["core"], r["unit"]) if r["core"] is not None
            else "all cores" + (" " + r["unit"] if r["unit"] else ""))


want_regs = ["%s on %s" % (r["what"], where(r)) for r in order]
if regs != want_regs or len(regs) != 5:
    fail("report --diff: regressions %s, want %s" % (regs, want_regs))
if html.find('id="regressions"') > html.find('id="per-execution"'):
    fail("report --diff: the regressions do not come first")
rowsby = {"%s on %s" % (r["what"], where(r)): r for r in doc["rows"]}
pairs = re.findall(r'<div class="(?:regression|latency)" data-what="([^"]*)">.*?'
                   r'<svg class="pair"[^>]*data-ymax="(\d+)">(.*?)</svg>', html, re.S)
if len(pairs) != 7:
    fail("report --diff: %d histogram pairs, want 7 (5 regressions, 2 models)" % len(pairs))
for what, ymax, body in pairs:
    counts = [[int(c) for c in x.split(",")] for x in
              re.findall(r'class="panel" data-side="[A-Z]+" data-counts="([^"]*)"', body)]
    r = rowsby[what]
    ns = [r[s]["n"] if r[s] else 0 for s in ("base", "new")]
    if len(counts) != 2 or [sum(c) for c in counts] != ns or \
       max(max(c) for c in counts) != int(ymax):
        fail("report --diff: %s: panels %s, n %s, shared y max %s" % (what, [sum(c) for c in counts],
                                                                       ns, ymax))
print("report --diff: diff --json's data; regressions first, exactly the 3 slower rows then "
      "the 2 new ops; 7 BASE/NEW histogram pairs on shared axes holding every sample")
if "Regressions (0)" not in page(base, same, "same.html"):
    fail("report --diff of two runs of one workload shows regressions")
print("report --diff of two runs of one workload: no regression")

# ---- 3. the same distribution: false alarms ------------------------------------------

pairs, tests, flagged_pairs, flagged_tests = 50, 0, 0, 0
for i in range(pairs):
    a = gen("null%03d" % (2 * i), 101 + 2 * i)
    b = gen("null%03d" % (2 * i + 1), 102 + 2 * i)
    d, _ = diff_json(a, b)
    t = sum(1 for row in d["rows"] if row["tested"])
    s = sum(1 for row in d["rows"] if row["significant"])
    if t != d["test"]["tests"] or t < 20:
        fail("null pair %d: %d tests" % (i, t))
    tests += t
    flagged_tests += s
    flagged_pairs += s > 0
    if one_sided(d):
        fail("null pair %d: one-sided rows %s" % (i, one_sided(d)))
print("null: %d of %d comparisons (%.1f%%) flagged a significant change; %d of %d tests "
      "(%.2f%%)" % (flagged_pairs, pairs, 100.0 * flagged_pairs / pairs, flagged_tests, tests,
                    100.0 * flagged_tests / tests))
if flagged_pairs > 0.05 * pairs or flagged_tests > 0.05 * tests:
    fail("more than 5% false alarms")
