#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What every reader of raw entries makes of one recording, as text.

    raw_record.py NEURONPROF FILE.ntff

Runs `neuronprof dump`, `dump --json`, `summary --json`, `export --format
json` and `export --format sqlite` on FILE (a path relative to the current
directory, so that the output names it the same wherever it is run) and
prints, one section per reader, only what they say about raw entries: the
dump's record and entry lines, the JSON dump's device raw fields and
queues, the summary's raw counts and losses, the trace's raw instants and
the database's raw_entries rows (bytes in hex). tools/tests/run.sh compares
it with FILE's .expected beside it: recordings made before a change of the
raw record must read exactly as they did. Anything else the readers print
is left out, so that changes elsewhere in their output do not touch it.
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def line(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def main():
    np, path = sys.argv[1], sys.argv[2]
    out = []

    out.append("# dump")
    for ln in run(np, "dump", path).splitlines():
        if ln.startswith(("  [", "    seq ", "      entry ")) or ln.startswith("  raw entries"):
            out.append(ln)

    out.append("# dump --json")
    d = json.loads(run(np, "dump", "--json", path))
    out.append(line({k: v for k, v in d["device"].items()
                     if k.startswith("raw_") or k.startswith("clock_domain") or k == "entry_size"}))
    out.append(line({"entry_count": d["entry_count"]}))
    for q in d["queues"]:
        out.append(line({k: v for k, v in q.items() if k not in ("data_offset",)}))

    out.append("# summary --json")
    s = json.loads(run(np, "summary", "--json", path))
    for r in s["recordings"]:
        out.append(line({"entries": r["entries"], "raw_entries": r["raw_entries"]}))
        for q in r["raw_queues"]:
            out.append(line(q))
        for q in r["losses"]:
            out.append(line(q))

    with tempfile.TemporaryDirectory() as tmp:
        out.append("# export --format json")
        trace = os.path.join(tmp, "t.json")
        run(np, "export", "--format", "json", "-o", trace, path)
        with open(trace) as f:
            t = json.load(f)
        for e in t["traceEvents"]:
            if e.get("cat") == "raw":
                out.append(line(e))

        out.append("# export --format sqlite: raw_entries")
        db = os.path.join(tmp, "t.db")
        run(np, "export", "--format", "sqlite", "-o", db, path)
        con = sqlite3.connect(db)
        cur = con.execute("SELECT * FROM raw_entries ORDER BY queue_id, entry_index, seq")
        names = [c[0] for c in cur.description]
        out.append("|".join(names))
        for row in cur:
            out.append("|".join(v.hex() if isinstance(v, bytes) else str(v) for v in row))
        con.close()

    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
