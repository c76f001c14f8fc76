# SPDX-License-Identifier: MIT
"""neuronprof-analyze: several machines' recordings compared on a Dask cluster.

Each database (a recording's ``neuronprof export --format sqlite``) is read
by one Dask task on a worker of a ``distributed`` cluster
(machines.recording_stats); one more task puts the results together
(machines.compare) as ``neuronprof summary`` compares machines, with the
same numbers. The cluster is a LocalCluster started for the run (worker
processes on 127.0.0.1, no dashboard), or the scheduler given with
--scheduler, whose workers must be able to import this package and read the
databases at the paths given (a shared file system).

``neuronprof-analyze diff BASE NEW [BASE NEW ...]`` compares pairs of
databases as ``neuronprof diff`` does, one Dask task per pair
(neuronprof.diff.document), and prints diff --json's document.

Manual: neuronprof-analyze(1).
"""
import argparse
import contextlib
import json
import logging
import os
import shutil
import sqlite3
import sys
import tempfile

PROG = "neuronprof-analyze"

EXIT_FAIL = 1
EXIT_USAGE = 2


def _msg(text):
    print(f"{PROG}: {text}", file=sys.stderr, flush=True)


def _warn(text):
    _msg(f"warning: {text}")


@contextlib.contextmanager
def cluster(scheduler=None, workers=2, threads=1):
    """A distributed Client: on @scheduler ("tcp://host:8786"), else on a
    LocalCluster of @workers worker processes started here and closed (with
    its processes) on leaving."""
    from distributed import Client, LocalCluster

    if scheduler:
        client = Client(scheduler, timeout="20s")
        try:
            yield client
        finally:
            client.close()
        return
    # The workers' scratch space, removed with them.
    scratch = tempfile.mkdtemp(prefix="neuronprof-analyze.")
    try:
        local = LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
                             host="127.0.0.1", dashboard_address=None,
                             local_directory=scratch, silence_logs=logging.ERROR)
        try:
            client = Client(local)
            try:
                yield client
            finally:
                client.close()
        finally:
            local.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _task_stats(path, name):
    """One Dask task: the numbers of one database, with where it ran."""
    from distributed import get_worker

    from .machines import recording_stats

    st = recording_stats(path, name)
    st["name"] = name
    try:
        st["worker"] = get_worker().address
    except ValueError:
        st["worker"] = None
    st["pid"] = os.getpid()
    return st


def _task_compare(stats, top):
    """The last Dask task: the machines of every database compared."""
    from .machines import compare

    return compare(stats, top)


def run(client, paths, top=5, keep_going=False):
    """Compare the machines of the databases @paths on @client.

    One task per database, then one that compares. Returns a dict:
    ``machines_compared`` (None with fewer than two machines), ``warnings``,
    ``errors`` ((path, message) per database that could not be read, the
    message naming it), ``skipped`` (how many were left out), ``tasks`` ({"path",
    "worker", "recordings"} per database read). Without @keep_going, a
    database that cannot be read leaves ``machines_compared`` None and
    nothing compared.
    """
    futures = [client.submit(_task_stats, os.path.abspath(p), p, pure=False) for p in paths]
    stats = client.gather(futures)
    errors = [(st["name"], st["error"]) for st in stats if "error" in st]
    good = [f for f, st in zip(futures, stats) if "error" not in st]
    out = {"errors": errors, "skipped": len(errors), "warnings": [],
           "machines_compared": None,
           "tasks": [{"path": st["name"], "worker": st["worker"], "pid": st["pid"],
                      "recordings": len(st["recordings"])}
                     for st in stats if "error" not in st]}
    if errors and not keep_going:
        return out
    if good:
        # The results stay on the workers: the comparing task takes them there.
        x, warnings = client.submit(_task_compare, good, top, pure=False).result()
        out["machines_compared"] = x
        out["warnings"] = warnings
    return out


def _task_diff(base, new, base_name, new_name, alpha):
    """One Dask task: diff --json's document of one pair of databases."""
    from distributed import get_worker

    from .database import DatabaseError
    from .diff import document

    try:
        doc = document(base, new, alpha)
        doc["base"]["paths"] = [base_name]
        doc["new"]["paths"] = [new_name]
    except (DatabaseError, sqlite3.Error) as e:
        return {"error": "%s -- %s: %s" % (base_name, new_name, e)}
    try:
        worker = get_worker().address
    except ValueError:
        worker = None
    return {"document": doc, "worker": worker, "pid": os.getpid()}


def run_diff(client, pairs, alpha=0.05):
    """diff --json's document of each (BASE, NEW) pair of databases, one Dask
    task per pair. Returns a list of {"document", "worker", "pid"} or
    {"error"}, in the order of @pairs."""
    futures = [client.submit(_task_diff, os.path.abspath(b), os.path.abspath(n), b, n, alpha,
                             pure=False) for b, n in pairs]
    return client.gather(futures)


def _diff_main(argv):
    p = argparse.ArgumentParser(
        prog=PROG + " diff",
        description="Compare pairs of recordings' SQLite exports as neuronprof diff does "
        "(Documentation/analysis.rst, \"Comparing two recordings\"): each BASE NEW pair "
        "is one Dask task on a distributed cluster, and prints the test and the rows of "
        "neuronprof diff --json, the same numbers.",
        epilog="Exit status: 0, 1 if a database could not be read or the cluster failed, "
        "2 for a usage error. Manual: neuronprof-analyze(1).")
    p.add_argument("databases", metavar="BASE NEW", nargs="+",
                   help="pairs of SQLite exports: BASE NEW [BASE NEW ...]")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="family-wise significance level (default 0.05)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a running distributed scheduler (tcp://host:8786) instead of "
                   "a LocalCluster")
    p.add_argument("--workers", type=_positive, default=2, metavar="N",
                   help="worker processes of the LocalCluster (default 2)")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else 0
    if len(args.databases) % 2 or not 0 < args.alpha < 1:
        p.print_usage(sys.stderr)
        _msg("diff: give databases in BASE NEW pairs" if len(args.databases) % 2 else
             "diff: --alpha must be between 0 and 1")
        return EXIT_USAGE
    pairs = list(zip(args.databases[0::2], args.databases[1::2]))
    try:
        with cluster(args.scheduler, args.workers) as client:
            res = run_diff(client, pairs, args.alpha)
    except (OSError, TimeoutError) as e:
        _msg(f"cannot reach the cluster{' at ' + args.scheduler if args.scheduler else ''}: {e}")
        return EXIT_FAIL
    except Exception as e:  # pylint: disable=broad-except
        _msg(f"the analysis failed on the cluster: {type(e).__name__}: {e}")
        return EXIT_FAIL
    errors = [r["error"] for r in res if "error" in r]
    for e in errors:
        _msg(e)
    if errors:
        return EXIT_FAIL
    out = [dict(r["document"], task={"worker": r["worker"], "pid": r["pid"]}) for r in res]
    json.dump(out[0] if len(out) == 1 else out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    try:
        sys.stdout.flush()
    except OSError as e:
        _msg(f"standard output: {e}")
        return EXIT_FAIL
    return 0


def _positive(text):
    try:
        v = int(text, 10)
    except ValueError:
        v = 0
    if v < 1 or v > 1000000:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number from 1 to 1000000")
    return v


def _parser():
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Compare several machines' recordings (their SQLite exports, "
        "neuronprof export --format sqlite) as neuronprof summary does: per machine "
        "totals, per execution index the slowest and fastest machine/device/core and "
        "the skew, and the ops that differ most between the slowest machine and the "
        "median one. Each database is read by one Dask task on a distributed cluster.",
        epilog="Exit status: 0, 1 if a database could not be read (with --keep-going, "
        "after the others were compared), 2 for a usage error. Manual: neuronprof-analyze(1).")
    p.add_argument("databases", metavar="DATABASE", nargs="+",
                   help="a recording's SQLite export; several, one per machine or more")
    p.add_argument("--json", action="store_true",
                   help="JSON: {paths, skipped, tasks, machines_compared} with "
                   "machines_compared as in summary --json")
    p.add_argument("--top", type=_positive, default=5, metavar="N",
                   help="the N ops differing most (default 5, as summary)")
    p.add_argument("--ns", action="store_true", help="durations in whole nanoseconds")
    p.add_argument("--keep-going", action="store_true",
                   help="a database that cannot be read is left out with a warning "
                   "naming it; the others are compared (exit status 1)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a running distributed scheduler (tcp://host:8786) instead of "
                   "a LocalCluster")
    p.add_argument("--workers", type=_positive, default=2, metavar="N",
                   help="worker processes of the LocalCluster (default 2)")
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "diff":
        return _diff_main(argv[1:])
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else 0
    if args.json and args.ns:
        parser.print_usage(sys.stderr)
        _msg("--json and --ns are exclusive")
        return EXIT_USAGE
    try:
        with cluster(args.scheduler, args.workers) as client:
            res = run(client, args.databases, args.top, args.keep_going)
    except (OSError, TimeoutError) as e:
        _msg(f"cannot reach the cluster{' at ' + args.scheduler if args.scheduler else ''}: {e}")
        return EXIT_FAIL
    except Exception as e:  # pylint: disable=broad-except
        # A worker lost under a task (KilledWorker), a scheduler gone, ...
        _msg(f"the analysis failed on the cluster: {type(e).__name__}: {e}")
        return EXIT_FAIL
    for path, err in res["errors"]:
        _msg(err)
        if args.keep_going:
            _warn(f"{path}: skipped (--keep-going)")
    if res["errors"] and not args.keep_going:
        return EXIT_FAIL
    if not res["tasks"]:
        _msg("nothing to analyze: no DATABASE could be read")
        return EXIT_FAIL
    for w in res["warnings"]:
        _warn(w)
    x = res["machines_compared"]
    if args.json:
        json.dump({"paths": args.databases, "skipped": res["skipped"], "tasks": res["tasks"],
                   "machines_compared": x}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif x is None:
        print("machines compared: fewer than two machines, nothing to compare")
    else:
        from .machines import text
        sys.stdout.write(text(x, args.top, args.ns))
    try:
        sys.stdout.flush()
    except OSError as e:
        _msg(f"standard output: {e}")
        return EXIT_FAIL
    if res["skipped"]:
        n = res["skipped"]
        _msg(f"{n} database{'' if n == 1 else 's'} skipped (--keep-going): the comparison "
             f"leaves {'it' if n == 1 else 'them'} out")
        return EXIT_FAIL
    return 0


if __name__ == "__main__":
    sys.exit(main())
