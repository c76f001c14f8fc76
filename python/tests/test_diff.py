#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Tests of neuronprof.diff() and the SQL views of analysis-diff.sql.

    tests/test_diff.py TOOLS_BUILD_DIR

TOOLS_BUILD_DIR holds neuronprof and tests/gen_diff. Recordings of
tools/tests/gen_diff.c (BASE, NEW with a planted regression, and another
run of BASE's workload) are exported to SQLite; neuronprof.diff() of the
databases must give the numbers of ``neuronprof diff --json`` of the
recordings: every op (per core and across cores) and every model's latency
with n, total, mean, median, p95, executions, time per execution, change,
U, z, p, Holm-adjusted p and verdict; per core busy time, utilisation, DMA
bytes and errors. One line per test ("ok N - name" or "not ok N - name"
and the reason on "# " lines); the last line is "N passed, N failed".
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
PYROOT = os.path.dirname(HERE)
REPO = os.path.dirname(PYROOT)
sys.path.insert(0, PYROOT)

import neuronprof  # noqa: E402
diffmod = sys.modules["neuronprof.diff"]  # the module (neuronprof.diff is the function)

BUILD = sys.argv[1]
NP = os.path.join(BUILD, "neuronprof")
GEN = os.path.join(BUILD, "tests", "gen_diff")


def close(a, b, rel=1e-6, absolute=1e-3):
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)):
        return (a is None or (isinstance(a, float) and math.isnan(a))) and \
               (b is None or (isinstance(b, float) and math.isnan(b)))
    return abs(a - b) <= max(absolute, rel * max(abs(a), abs(b)))


def nn(v):
    """None for a NULL/NaN of pandas, else the value."""
    if v is None:
        return None
    try:
        if math.isnan(v):
            return None
    except TypeError:
        pass
    return v


def compare(tmp, b, n):
    """neuronprof.diff() of the exports of @b and @n against diff --json."""
    dbs = []
    for r in (b, n):
        db = os.path.join(tmp, os.path.basename(r) + ".sqlite")
        if not os.path.exists(db):
            subprocess.run([NP, "export", "--format", "sqlite", "-o", db, r], check=True,
                           capture_output=True)
        dbs.append(db)
    doc = json.loads(subprocess.run([NP, "diff", "--json", b, n], capture_output=True,
                                    text=True).stdout)
    frames = neuronprof.diff(dbs[0], dbs[1])
    checked = 0
    for row in doc["rows"]:
        kind = row["kind"]
        if kind in ("op", "op_all", "latency"):
            f = frames[{"op": "ops", "op_all": "ops_all", "latency": "latency"}[kind]]
            if kind == "latency":
                m = f[f["model_id"] == row["model_id"]]
            else:
                m = f[(f["code"] == row["code"]) &
                      (f["unit_index"] == int(row["unit"].split(":")[0].replace("topsp", "")))]
                if kind == "op":
                    m = m[(m["device"] == row["device"]) & (m["core"] == row["core"])]
            assert len(m) == 1, "%s %s: %d rows in neuronprof.diff()" % (kind, row["what"], len(m))
            p = m.iloc[0]
            for side in ("base", "new"):
                s = row[side]
                if s is None:
                    assert not p[side + "_n"], "%s: %s has %s" % (row["what"], side, p[side + "_n"])
                    continue
                for jk, pk in (("n", "_n"), ("total", "_total"), ("value", "_mean_ns"),
                               ("median_ns", "_median_ns"), ("p95_ns", "_p95_ns"),
                               ("executions", "_executions"),
                               ("per_execution_ns", "_per_execution_ns")):
                    assert close(float(s[jk]), float(p[side + pk])), \
                        "%s %s %s: json %s, python %s" % (row["what"], side, jk, s[jk], p[side + pk])
            for jk, pk in (("change_per_execution_ns", "change_per_execution_ns"),
                           ("change_pct", "change_pct"), ("change", "change"), ("u", "u"),
                           ("z", "z"), ("p", "p"), ("p_adjusted", "p_adjusted")):
                jv, pv = row[jk], nn(p[pk])
                if jk == "change" and (row["base"] is None or row["new"] is None):
                    continue
                ok = (jv is None and pv is None) or (
                    jv is not None and pv is not None and
                    (close(jv, pv, rel=1e-5) if jk in ("p", "p_adjusted", "u", "z")
                     else close(jv, pv)))
                assert ok, "%s %s: json %s, python %s" % (row["what"], jk, jv, pv)
            assert row["verdict"] == p["verdict"], "%s: verdict %s, python %s" % (
                row["what"], row["verdict"], p["verdict"])
            assert row["significant"] == bool(p["significant"])
            checked += 1
        elif kind in ("busy", "util", "dma_bytes", "errors"):
            f = frames["cores"]
            m = f[(f["device"] == row["device"]) & (f["core"] == row["core"])]
            assert len(m) == 1
            col = {"busy": "busy_ns", "util": "util_pct", "dma_bytes": "dma_bytes",
                   "errors": "errors"}[kind]
            for side, suf in (("base", "_base"), ("new", "_new")):
                if row[side] is None:
                    continue
                assert close(float(row[side]["value"]), float(m.iloc[0][col + suf])), \
                    "core %d %s %s: json %s, python %s" % (row["core"], kind, side,
                                                            row[side]["value"],
                                                            m.iloc[0][col + suf])
            checked += 1
    want = sum(1 for r in doc["rows"])
    assert checked == want, "%d of %d rows checked" % (checked, want)
    return checked, doc


def dask_diff(tmp, rec):
    """`dask scheduler` and two `dask worker` processes on 127.0.0.1, started and
    stopped here; neuronprof-analyze diff --scheduler on two pairs of databases
    gives diff --json's test and rows exactly; no process of theirs remains."""
    import signal
    import time

    sched_file = os.path.join(tmp, "scheduler.json")
    env = dict(os.environ, PYTHONPATH=PYROOT, PYTHONDONTWRITEBYTECODE="1")
    procs = []

    def start(*cmd):
        log = open(os.path.join(tmp, "dask-%d.log" % len(procs)), "w")
        procs.append(subprocess.Popen(list(cmd), stdout=log, stderr=subprocess.STDOUT, env=env,
                                      cwd=tmp, start_new_session=True))
        log.close()

    try:
        start("dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", sched_file)
        deadline = time.time() + 60
        while not os.path.exists(sched_file) and time.time() < deadline:
            time.sleep(0.2)
        with open(sched_file) as f:
            address = json.load(f)["address"]
        for i in range(2):
            start("dask", "worker", "--scheduler-file", sched_file, "--host", "127.0.0.1",
                  "--nthreads", "1", "--nworkers", "1", "--no-dashboard",
                  "--local-directory", os.path.join(tmp, "worker%d" % i))
        from distributed import Client
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
            workers = set(client.scheduler_info()["workers"])
        assert len(workers) == 2, workers
        pairs = [(rec["base"], rec["planted"]), (rec["same"], rec["base"])]
        dbs = []
        for b, n in pairs:
            dbs += [os.path.join(tmp, os.path.basename(b) + ".sqlite"),
                    os.path.join(tmp, os.path.basename(n) + ".sqlite")]
        for r, db in zip([x for pair in pairs for x in pair], dbs):
            if not os.path.exists(db):
                subprocess.run([NP, "export", "--format", "sqlite", "-o", db, r], check=True,
                               capture_output=True)
        out = subprocess.run([sys.executable, os.path.join(PYROOT, "bin", "neuronprof-analyze"),
                              "diff", "--scheduler", address] + dbs, capture_output=True,
                             text=True, env=env, timeout=300)
        assert out.returncode == 0, out.stderr
        docs = json.loads(out.stdout)
        assert len(docs) == 2, docs
        for (b, n), doc in zip(pairs, docs):
            c = json.loads(subprocess.run([NP, "diff", "--json", b, n], capture_output=True,
                                          text=True).stdout)
            assert doc["test"] == c["test"], (doc["test"], c["test"])
            assert doc["rows"] == c["rows"], "%s %s: rows differ from diff --json's" % (b, n)
            assert doc["task"]["worker"] in workers, doc["task"]
            print("# %s -- %s: %d rows equal, on worker %s" % (
                os.path.basename(b), os.path.basename(n), len(c["rows"]), doc["task"]["worker"]))
        # The cross-machine comparison on the same cluster: summary's numbers.
        fleet = os.path.join(tmp, "fleet")
        subprocess.run([os.path.join(BUILD, "tests", "gen_fixtures"), "--fleet", "3", fleet],
                       check=True, capture_output=True)
        fdbs = []
        for h in range(3):
            fdbs.append(os.path.join(tmp, "fleet%d.sqlite" % h))
            subprocess.run([NP, "export", "--format", "sqlite", "-o", fdbs[-1],
                            os.path.join(fleet, str(h))], check=True, capture_output=True)
        out = subprocess.run([sys.executable, os.path.join(PYROOT, "bin", "neuronprof-analyze"),
                              "--json", "--scheduler", address] + fdbs, capture_output=True,
                             text=True, env=env, timeout=300)
        assert out.returncode == 0, out.stderr
        got = json.loads(out.stdout)
        want = json.loads(subprocess.run([NP, "summary", "--json"] +
                                         [os.path.join(fleet, str(h)) for h in range(3)],
                                         capture_output=True, text=True).stdout)
        assert got["machines_compared"] == want["machines_compared"], \
            "neuronprof-analyze: machines_compared differs from summary --json's"
        assert all(t["worker"] in workers for t in got["tasks"]), got["tasks"]
        print("# neuronprof-analyze of 3 machines on the same cluster: summary's "
              "machines_compared exactly")
    finally:
        for p in reversed(procs):
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    deadline = time.time() + 20
    left = procs
    while left and time.time() < deadline:
        left = []
        for p in procs:
            try:
                os.killpg(p.pid, 0)
                left.append(p.pid)
            except ProcessLookupError:
                pass
        if left:
            time.sleep(0.2)
    assert not left, "process groups still running: %s" % left
    print("# scheduler and workers stopped, no process of theirs remains")


def main():
    tmp = tempfile.mkdtemp(prefix="nprof-pydiff.")
    passed = failed = 0

    def report(name, fn):
        nonlocal passed, failed
        try:
            fn()
            print("ok %d - %s" % (passed + failed + 1, name), flush=True)
            passed += 1
        except Exception as e:  # pylint: disable=broad-except
            print("not ok %d - %s" % (passed + failed + 1, name), flush=True)
            for line in (str(e) if isinstance(e, AssertionError) else
                         traceback.format_exc()).splitlines():
                print("# " + line, flush=True)
            failed += 1

    try:
        rec = {}
        for name, args in (("base", ["--seed", "1"]), ("planted", ["--seed", "2", "--planted"]),
                           ("same", ["--seed", "3"])):
            rec[name] = os.path.join(tmp, name)
            subprocess.run([GEN] + args + [rec[name]], check=True)

        def views_file():
            with open(os.path.join(REPO, "Documentation", "analysis-diff.sql")) as f:
                assert f.read() == diffmod.VIEWS, \
                    "python/neuronprof/diff.py's VIEWS is not Documentation/analysis-diff.sql"

        def planted():
            n, doc = compare(tmp, rec["base"], rec["planted"])
            sig = sorted(r["what"] + " " + str(r["core"]) for r in doc["rows"] if r["significant"])
            assert len(sig) == 3, sig
            print("# %d rows equal diff --json's; significant: %s" % (n, ", ".join(sig)))

        def same():
            n, doc = compare(tmp, rec["base"], rec["same"])
            assert not any(r["significant"] for r in doc["rows"])
            print("# %d rows equal diff --json's, none significant" % n)

        def identical():
            n, _ = compare(tmp, rec["base"], rec["base"])
            print("# %d rows" % n)

        def dask_cluster():
            dask_diff(tmp, rec)

        report("diff.py's VIEWS is Documentation/analysis-diff.sql", views_file)
        report("neuronprof.diff() of the planted regression: the numbers of diff --json", planted)
        report("neuronprof.diff() of two runs of one workload: the numbers of diff --json", same)
        report("neuronprof.diff() of one recording with itself: the numbers of diff --json",
               identical)
        report("neuronprof-analyze diff (and of 3 machines) on a dask scheduler and 2 dask "
               "workers: diff --json's test and rows (summary's machines) exactly, no process "
               "left", dask_cluster)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
