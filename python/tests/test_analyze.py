#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Tests of the neuronprof Python package and neuronprof-analyze.

    tests/test_analyze.py TOOLS_BUILD_DIR

TOOLS_BUILD_DIR holds neuronprof and tests/gen_fixtures. The fixtures: the
tool's test fixtures (tools/tests/gen_fixtures.c) and a fleet of 8 machines
(gen_fixtures --fleet 8), each machine's recording exported to SQLite with
``neuronprof export``. One Dask LocalCluster (2 worker processes) is
started for the run; neuronprof-analyze is pointed at it with --scheduler,
and one test starts its own LocalCluster the way the command does by
default. Every number of neuronprof-analyze is compared with
``neuronprof summary --json`` over the same recordings, integers exactly.

One line per test ("ok N - name", or "not ok N - name" and the reason on
"# " lines); the last line is "N passed, N failed". Worker processes must
all be gone at the end (a test of its own).
"""
import json
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
PYROOT = os.path.dirname(HERE)
sys.path.insert(0, PYROOT)

import neuronprof  # noqa: E402
from neuronprof import analyze  # noqa: E402

ANALYZE = os.path.join(PYROOT, "bin", "neuronprof-analyze")
PY = sys.executable
NO_MAPPING = ("no clock mapping (trace_info.pb with start_ns and start_realtime_ns): "
              "compared by execution index and durations only")

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


class Env:
    pass


E = Env()


def sh(*cmd, ok=(0,), cwd=None):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd,
                       timeout=300)
    if ok is not None and p.returncode not in ok:
        raise AssertionError(f"{' '.join(map(str, cmd))}: exit {p.returncode}\n{p.stderr}")
    return p


def summary_json(*paths, top=None, keep=False):
    args = [E.tool, "summary", "--json"]
    if keep:
        args.append("--keep-going")
    if top:
        args += ["--top", str(top)]
    p = sh(*args, *paths, ok=(0, 1))
    return json.loads(p.stdout) if p.stdout else None, p


def analyze_cli(*args, ok=(0,), scheduler=True):
    cmd = [PY, ANALYZE] + (["--scheduler", E.scheduler] if scheduler else []) + list(args)
    return sh(*cmd, ok=ok, cwd=E.work)


def analyze_json(*args, ok=(0,)):
    p = analyze_cli("--json", *args, ok=ok)
    return json.loads(p.stdout), p


def eq(what, got, want):
    if got != want:
        raise AssertionError(f"{what}:\n  got  {json.dumps(got, sort_keys=True)[:3000]}\n"
                             f"  want {json.dumps(want, sort_keys=True)[:3000]}")


def stderr_lines(p, prefix):
    return [ln[len(prefix):] for ln in p.stderr.splitlines() if ln.startswith(prefix)]


def fleet_dirs(order=range(8)):
    return [os.path.join(E.fleet, str(h)) for h in order]


def fleet_dbs(order=range(8)):
    return [os.path.join(E.dbs, f"fleet-{h}.sqlite") for h in order]


# ---- set-up ---------------------------------------------------------------------

@test
def fixtures_and_exports():
    """gen_fixtures (the tool's fixtures and --fleet 8) and one SQLite export per recording."""
    sh(E.gen, E.fx)
    sh(E.gen, "--fleet", "8", E.fleet)
    os.mkdir(E.dbs)
    for h, d in enumerate(fleet_dirs()):
        sh(E.tool, "export", "--format", "sqlite", "-o", fleet_dbs()[h], d)
    # Several machines in one database: the four of straggler/.
    sh(E.tool, "export", "--format", "sqlite", "-o", os.path.join(E.dbs, "straggler.sqlite"),
       os.path.join(E.fx, "straggler"))
    # A recording with a system profile (host events), TopSPs, DMA and errors.
    sh(E.tool, "export", "--format", "sqlite", "-o", os.path.join(E.dbs, "prof.sqlite"),
       os.path.join(E.fx, "prof"))
    for h in range(8):
        if not os.path.getsize(fleet_dbs()[h]):
            raise AssertionError(f"{fleet_dbs()[h]} is empty")


# ---- neuronprof.open ------------------------------------------------------------

def sqlite3_cli(db, sql):
    p = sh("sqlite3", "-json", db, sql)
    return json.loads(p.stdout) if p.stdout.strip() else []


@test
def open_tables_and_views():
    """open(): every table and view as a DataFrame with sqlite3's columns and rows."""
    for db_path in (fleet_dbs()[6], os.path.join(E.dbs, "prof.sqlite"),
                    os.path.join(E.dbs, "straggler.sqlite")):
        objs = sqlite3_cli(db_path, "SELECT name, type FROM sqlite_master WHERE type IN"
                           " ('table', 'view') ORDER BY name")
        names = {o["name"] for o in objs}
        with neuronprof.open(db_path) as db:
            eq("tables and views", set(db.tables) | set(db.views), names)
            for want in ("executions", "host_events", "machines", "recordings", "cores",
                         "instructions", "machine_executions", "ops"):
                if want not in db.names:
                    raise AssertionError(f"{db_path}: no DataFrame {want}: {db.names}")
            for name in names:
                df = db[name]
                cols = [r["name"] for r in sqlite3_cli(
                    db_path, f"SELECT name FROM pragma_table_info('{name}')")]
                eq(f"{db_path}: {name} columns", list(df.columns), cols)
                rows = sqlite3_cli(db_path, f'SELECT * FROM "{name}"')
                eq(f"{db_path}: {name} rows", len(df), len(rows))
                # Every value as sqlite3 gives it (blobs: skipped; reals to 1e-9).
                for col in cols:
                    if name == "raw_entries" and col == "bytes":
                        continue
                    got = [norm(v) for v in df[col].tolist()]
                    want = [r[col] for r in rows]
                    if any(isinstance(v, float) for v in want):
                        close = all((g is None and w is None) or
                                    (g is not None and w is not None and abs(g - w) <= 1e-9 *
                                     max(1.0, abs(w))) for g, w in zip(got, want))
                        if not close:
                            eq(f"{db_path}: {name}.{col}", got, want)
                    else:
                        eq(f"{db_path}: {name}.{col}", got, want)
            if getattr(db, "executions") is not db["executions"]:
                raise AssertionError("db.executions is not db['executions']")


def pd_na():
    import pandas as pd
    return pd.NA


def norm(v):
    """A DataFrame value as Python's own: None, int, float or str."""
    if v is None or v is pd_na() or (isinstance(v, float) and v != v):
        return None
    if hasattr(v, "item"):
        v = v.item()
    return v


@test
def open_integers_exact():
    """open(): times above 2^53 ns stay exact, NULLs beside them (nullable Int64)."""
    with neuronprof.open(os.path.join(E.dbs, "straggler.sqlite")) as db:
        m = db.machines
        eq("machine names", list(m["name"]), ["strag-0", "strag-1", "strag-2", "strag-3"])
        eq("mapping_realtime_ns dtype", str(m["mapping_realtime_ns"].dtype), "Int64")
        eq("mapping_realtime_ns", [None if v is pd_na() else int(v) for v in
                                   m["mapping_realtime_ns"]],
           [1700000000000000000 + 1000 * h for h in range(3)] + [None])
        eq("offset_ns", [int(v) for v in m["offset_ns"]],
           [r["offset_ns"] for r in sqlite3_cli(os.path.join(E.dbs, "straggler.sqlite"),
                                                "SELECT offset_ns FROM machines ORDER BY id")])


@test
def open_ops_executions_host_events_as_summary():
    """open(): ops, executions and host_events give summary --json's numbers."""
    prof = os.path.join(E.fx, "prof")
    s, _ = summary_json(prof)
    with neuronprof.open(os.path.join(E.dbs, "prof.sqlite")) as db:
        ops = db.ops
        for rec in s["recordings"]:
            want, got = [], []
            for c in rec["cores"]:
                for kind, units in (("engine", c["engines"]), ("topsp", c["topsps"])):
                    for u in units:
                        for o in u["ops"]:
                            want.append([c["device"], c["core"], kind, u[kind],
                                         o["op"], o["code"], o["count"], o["total_ns"],
                                         o["min_ns"], o["avg_ns"], o["median_ns"], o["p95_ns"],
                                         o["max_ns"], o["busy_pct"]])
            for r in ops[ops["recording"] == rec["path"]].itertuples(index=False):
                got.append([int(r.device), int(r.core), r.unit_kind, int(r.unit_index),
                            r.op, r.code, int(r.count), int(r.total_ns), int(r.min_ns),
                            int(r.avg_ns), int(r.median_ns), int(r.p95_ns), int(r.max_ns),
                            float(r.busy_pct)])
            if not want:
                continue
            eq(f"{rec['path']}: ops", sorted(got, key=str), sorted(want, key=str))
        # Executions: per core, index and latency.
        x = db.executions.merge(db.cores, left_on="core_id", right_on="id")
        got = sorted((int(r.core), int(r.idx), int(r.latency_ns), int(r.model_id))
                     for r in x.itertuples(index=False))
        want = sorted((e["core"], e["index"], e["latency_ns"], e["model_id"])
                      for rec in s["recordings"] for e in rec["executions"])
        eq("executions", got, want)
        # Host events: count and total per name.
        h = db.host_events.merge(db.strings, left_on="name_id", right_on="id")
        got = {n: [int(len(g)), int(g["dur_ns"].sum())] for n, g in h.groupby("value")}
        want = {t["name"]: [t["count"], t["total_ns"]]
                for rec in s["recordings"] if rec["host"] for t in rec["host"]["event_types"]}
        eq("host events", got, want)
        if not want:
            raise AssertionError("the fixture has no host events")


# ---- the analysis against summary ------------------------------------------------

@test
def api_on_the_cluster_equals_summary():
    """analyze.run() on the LocalCluster (2 workers): one task per database, summary's numbers."""
    s, _ = summary_json(*fleet_dirs())
    res = analyze.run(E.client, fleet_dbs())
    eq("machines_compared", res["machines_compared"], s["machines_compared"])
    eq("tasks", len(res["tasks"]), 8)
    workers = set(E.client.scheduler_info()["workers"])
    for t in res["tasks"]:
        if t["worker"] not in workers or t["pid"] == os.getpid():
            raise AssertionError(f"task {t} did not run on a worker of the cluster {workers}")
    eq("warnings", res["warnings"], [f"fleet-6: {NO_MAPPING}"])


@test
def cli_json_equals_summary_8_machines():
    """neuronprof-analyze --json over 8 recordings: machines_compared equals summary --json's."""
    s, sp = summary_json(*fleet_dirs())
    a, ap = analyze_json(*fleet_dbs())
    x = s["machines_compared"]
    if x is None or len(x["machines"]) != 8:
        raise AssertionError("summary compared no 8 machines")
    eq("machines_compared", a["machines_compared"], x)
    eq("skipped", a["skipped"], 0)
    eq("paths", a["paths"], fleet_dbs())
    eq("tasks", [t["path"] for t in a["tasks"]], fleet_dbs())
    # The planted straggler is named as summary names it.
    eq("slowest", a["machines_compared"]["slowest"], "fleet-5")
    e2 = a["machines_compared"]["executions"][2]["slowest"]
    eq("straggler of execution 2", [e2["machine"], e2["core"]], ["fleet-5", 1])
    eq("op differing most", a["machines_compared"]["ops"][0]["code"], "0x000502")
    # Same warning lines as summary's.
    eq("warnings", stderr_lines(ap, "neuronprof-analyze: warning: "),
       stderr_lines(sp, "neuronprof: summary: warning: "))


@test
def cli_text_equals_summary():
    """Text (and --ns) is summary's "machines compared" section, line for line."""
    for extra in ([], ["--ns"]):
        sp = sh(E.tool, "summary", *extra, *fleet_dirs())
        want = sp.stdout[sp.stdout.index("\nmachines compared:"):]
        ap = analyze_cli(*extra, *fleet_dbs())
        eq(f"text {extra}", ap.stdout.splitlines(), want.splitlines())


@test
def cli_top_equals_summary():
    """--top 2 and --top 100 keep as many ops as summary's."""
    for top in (2, 100):
        s, _ = summary_json(*fleet_dirs(), top=top)
        a, _ = analyze_json("--top", str(top), *fleet_dbs())
        eq(f"--top {top}", a["machines_compared"], s["machines_compared"])


@test
def cli_order_and_ties_as_summary():
    """Another order of the recordings: ties go to the first machine, as in summary."""
    order = [7, 3, 6, 1, 0, 5, 2, 4]
    s, _ = summary_json(*fleet_dirs(order))
    a, _ = analyze_json(*fleet_dbs(order))
    eq("machines_compared", a["machines_compared"], s["machines_compared"])
    eq("first machine", a["machines_compared"]["machines"][0]["name"], "fleet-7")
    # Two machines, the median the lower one.
    s, _ = summary_json(*fleet_dirs([2, 4]))
    a, _ = analyze_json(*fleet_dbs([2, 4]))
    eq("two machines", a["machines_compared"], s["machines_compared"])


@test
def cli_database_of_several_machines():
    """A database holding four machines (straggler/) with fleet recordings: as summary."""
    s, _ = summary_json(os.path.join(E.fx, "straggler"), *fleet_dirs([0, 5]))
    a, _ = analyze_json(os.path.join(E.dbs, "straggler.sqlite"), *fleet_dbs([0, 5]))
    eq("machines_compared", a["machines_compared"], s["machines_compared"])
    eq("machines", len(a["machines_compared"]["machines"]), 6)
    eq("strag-2's op", a["machines_compared"]["ops"][0]["code"], "0x000502")


@test
def cli_one_machine():
    """One machine: machines_compared is null, as summary's."""
    s, _ = summary_json(fleet_dirs()[0])
    a, _ = analyze_json(fleet_dbs()[0])
    eq("machines_compared", a["machines_compared"], s["machines_compared"])
    eq("null", a["machines_compared"], None)
    p = analyze_cli(fleet_dbs()[0])
    if "fewer than two machines" not in p.stdout:
        raise AssertionError(p.stdout)


@test
def cli_default_local_cluster_leaves_no_process():
    """Without --scheduler: its own LocalCluster of 2 workers; nothing of it remains."""
    s, _ = summary_json(*fleet_dirs())
    p = subprocess.Popen([PY, ANALYZE, "--json", *fleet_dbs()], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=E.work)
    out, err = p.communicate(timeout=120)
    sid = p.pid
    eq("exit status", p.returncode, 0)
    a = json.loads(out)
    eq("machines_compared", a["machines_compared"], s["machines_compared"])
    pids = {t["pid"] for t in a["tasks"]}
    if not 1 <= len(pids) <= 2 or p.pid in pids:
        raise AssertionError(f"tasks ran in {pids}, not in the command's 2 workers")
    deadline = time.time() + 10
    while True:
        left = session_processes(sid)
        if not left or time.time() > deadline:
            break
        time.sleep(0.2)
    eq("processes of its session left", left, [])
    for pid in pids:
        if os.path.exists(f"/proc/{pid}"):
            raise AssertionError(f"worker {pid} still runs")
    eq("files left in the working directory", os.listdir(E.work), [])


def session_processes(sid):
    """Processes whose session is @sid (field 6 of /proc/PID/stat), but zombies."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rindex(")") + 2:].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            out.append(int(d))
    return out


# ---- bad input -------------------------------------------------------------------

@test
def missing_recording_is_an_error_naming_it():
    """A DATABASE that does not exist: an error naming it, exit 1, nothing printed."""
    missing = os.path.join(E.dbs, "fleet-9.sqlite")
    p = analyze_cli("--json", *fleet_dbs([0, 1]), missing, fleet_dbs()[2], ok=(1,))
    eq("stdout", p.stdout, "")
    eq("errors", stderr_lines(p, "neuronprof-analyze: "), [f"{missing}: no such file"])


@test
def missing_recording_keep_going_as_summary():
    """--keep-going: the missing one skipped with a warning naming it, the rest as summary."""
    missing_db = os.path.join(E.dbs, "fleet-9.sqlite")
    missing_dir = os.path.join(E.fleet, "9")
    s, sp = summary_json(*fleet_dirs([0, 1]), missing_dir, *fleet_dirs([2, 3]), keep=True)
    eq("summary's exit", sp.returncode, 1)
    a, ap = analyze_json("--keep-going", *fleet_dbs([0, 1]), missing_db, *fleet_dbs([2, 3]),
                         ok=(1,))
    eq("machines_compared", a["machines_compared"], s["machines_compared"])
    eq("skipped", a["skipped"], 1)
    lines = stderr_lines(ap, "neuronprof-analyze: ")
    for want in (f"{missing_db}: no such file", f"warning: {missing_db}: skipped (--keep-going)",
                 "1 database skipped (--keep-going): the comparison leaves it out"):
        if want not in lines:
            raise AssertionError(f"no line {want!r} in {lines}")


@test
def host_without_clock_mapping_warns():
    """fleet-6 has no clock mapping: compared, with summary's warning naming it, exit 0."""
    s, sp = summary_json(*fleet_dirs([5, 6]))
    a, ap = analyze_json(*fleet_dbs([5, 6]))
    eq("machines_compared", a["machines_compared"], s["machines_compared"])
    eq("clock_mapping", [m["clock_mapping"] for m in a["machines_compared"]["machines"]],
       [True, False])
    eq("warning", stderr_lines(ap, "neuronprof-analyze: warning: "), [f"fleet-6: {NO_MAPPING}"])
    eq("summary's warning", stderr_lines(sp, "neuronprof: summary: warning: "),
       [f"fleet-6: {NO_MAPPING}"])


def corrupt_databases():
    """Databases that are not a recording's export, each with what its error must say."""
    d = os.path.join(E.tmp, "bad")
    if not os.path.isdir(d):
        os.mkdir(d)
        with open(os.path.join(d, "garbage.sqlite"), "wb") as f:
            f.write(b"this is not an SQLite database\n" * 200)
        with open(fleet_dbs()[3], "rb") as f:
            data = f.read()
        with open(os.path.join(d, "truncated.sqlite"), "wb") as f:
            f.write(data[:len(data) // 3])
        # Valid SQLite, another schema.
        c = sqlite3.connect(os.path.join(d, "other.sqlite"))
        c.execute("CREATE TABLE t (x)")
        c.commit()
        c.close()
        # An export of schema version 2.
        shutil.copy(fleet_dbs()[3], os.path.join(d, "old.sqlite"))
        c = sqlite3.connect(os.path.join(d, "old.sqlite"))
        c.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
        c.commit()
        c.close()
        os.mkdir(os.path.join(d, "dir.sqlite"))
    return [(os.path.join(d, "garbage.sqlite"), "not an SQLite database"),
            (os.path.join(d, "truncated.sqlite"), ""),
            (os.path.join(d, "other.sqlite"), "not a neuronprof export: no table meta"),
            (os.path.join(d, "old.sqlite"), "schema version 2"),
            (os.path.join(d, "dir.sqlite"), "a directory")]


@test
def corrupt_database_is_an_error_naming_it():
    """Garbage, a truncated export, another schema, version 2, a directory: errors naming each."""
    for path, what in corrupt_databases():
        p = analyze_cli(fleet_dbs()[0], path, fleet_dbs()[1], ok=(1,))
        eq(f"{path}: stdout", p.stdout, "")
        lines = stderr_lines(p, "neuronprof-analyze: ")
        if len(lines) != 1 or not lines[0].startswith(f"{path}: ") or what not in lines[0]:
            raise AssertionError(f"{path}: expected one error naming it ({what!r}): {lines}")
        try:
            neuronprof.open(path).close()
        except neuronprof.DatabaseError as e:
            if not str(e).startswith(f"{path}: "):
                raise AssertionError(f"open: {e}") from None
        else:
            raise AssertionError(f"open({path}) did not fail")


@test
def corrupt_database_keep_going_as_summary():
    """--keep-going: every bad database left out with a warning, the rest as summary."""
    bad = [p for p, _ in corrupt_databases()]
    s, _ = summary_json(*fleet_dirs([4, 5, 6]))
    a, ap = analyze_json("--keep-going", bad[0], fleet_dbs()[4], bad[1], fleet_dbs()[5], *bad[2:],
                         fleet_dbs()[6], ok=(1,))
    eq("machines_compared", a["machines_compared"], s["machines_compared"])
    eq("skipped", a["skipped"], len(bad))
    warned = stderr_lines(ap, "neuronprof-analyze: warning: ")
    for path in bad:
        if f"{path}: skipped (--keep-going)" not in warned:
            raise AssertionError(f"no warning naming {path}: {warned}")


@test
def nothing_readable():
    """No DATABASE can be read: "nothing to analyze", exit 1 (also with --keep-going)."""
    bad = [p for p, _ in corrupt_databases()]
    p = analyze_cli("--keep-going", *bad[:2], ok=(1,))
    if "neuronprof-analyze: nothing to analyze: no DATABASE could be read" not in p.stderr:
        raise AssertionError(p.stderr)
    eq("stdout", p.stdout, "")


@test
def usage_errors():
    """No DATABASE, --top 0, --json with --ns: exit 2."""
    for args in ([], ["--top", "0", fleet_dbs()[0]], ["--json", "--ns", fleet_dbs()[0]]):
        p = analyze_cli(*args, ok=(2,))
        if "usage:" not in p.stderr:
            raise AssertionError(f"{args}: {p.stderr}")


# ---- the cluster ------------------------------------------------------------------

def start_cluster():
    from distributed import Client, LocalCluster

    E.scratch = tempfile.mkdtemp(prefix="dask-", dir=E.tmp)
    E.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                             host="127.0.0.1", dashboard_address=None,
                             local_directory=E.scratch, silence_logs=logging.ERROR)
    E.client = Client(E.cluster)
    E.scheduler = E.cluster.scheduler_address
    E.worker_pids = set(E.client.run(os.getpid).values())


def stop_cluster():
    E.client.close()
    E.cluster.close()


def main():
    build = os.path.abspath(sys.argv[1])
    E.tool = os.path.join(build, "neuronprof")
    E.gen = os.path.join(build, "tests", "gen_fixtures")
    E.tmp = tempfile.mkdtemp(prefix="nprof-python-test.")
    E.fx = os.path.join(E.tmp, "fx")
    E.fleet = os.path.join(E.tmp, "fleet")
    E.dbs = os.path.join(E.tmp, "db")
    # The commands' working directory, which they must leave empty.
    E.work = os.path.join(E.tmp, "work")
    os.mkdir(E.work)
    passed = failed = 0
    n = 0

    def report(name, err):
        nonlocal passed, failed, n
        n += 1
        if err is None:
            print(f"ok {n} - {name}", flush=True)
            passed += 1
        else:
            print(f"not ok {n} - {name}", flush=True)
            for line in str(err).splitlines():
                print(f"# {line}", flush=True)
            failed += 1

    t0 = time.time()
    try:
        start_cluster()
        report(f"a LocalCluster of 2 worker processes ({E.scheduler}, started in "
               f"{time.time() - t0:.1f} s)",
               None if len(E.worker_pids) == 2 else f"workers {E.worker_pids}")
        for fn in TESTS:
            try:
                fn()
                err = None
            except AssertionError as e:
                err = e
            except Exception:  # pylint: disable=broad-except
                err = traceback.format_exc()
            report(fn.__doc__.strip().splitlines()[0], err)
        stop_cluster()
        left = []
        deadline = time.time() + 10
        while time.time() < deadline:
            left = [p for p in E.worker_pids if os.path.exists(f"/proc/{p}")]
            if not left:
                break
            time.sleep(0.2)
        report("no worker process remains after the cluster is closed",
               f"still running: {left}" if left else None)
    finally:
        shutil.rmtree(E.tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
