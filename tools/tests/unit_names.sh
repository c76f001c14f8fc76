#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# One name per unit in every output, run by tests/run.sh:
#   tests/unit_names.sh BUILD_DIR RECORDING WORK_DIR [PYTHON]
# summary --json names each engine and TopSP of RECORDING ("0:tensor",
# "topsp3"); export --format sqlite writes the same names in
# queues.unit_name (schema 8, the column added at the end of the table);
# and the Python package's ops frame, when pandas is there, has them in
# its unit column. Prints what differs and exits 1, or exits 0.
set -uo pipefail

np=$(cd "${1:?usage: unit_names.sh BUILD_DIR RECORDING WORK_DIR [PYTHON]}" && pwd)/neuronprof
rec=${2:?}
work=${3:?}
py=${4:-python3}
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work" || exit 1
failed=0

"$np" summary --json "$rec" >"$work/s.json" || exit 1
rm -f "$work/u.db"
"$np" export --format sqlite -o "$work/u.db" "$rec" >/dev/null 2>&1 || { echo "export failed"; exit 1; }
[ "$(sqlite3 "$work/u.db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 8 ] ||
	{ echo "FAIL: schema_version is not 8"; failed=1; }
# Appended, so positional readers of the earlier columns still read them.
[ "$(sqlite3 "$work/u.db" "SELECT name FROM pragma_table_info('queues') ORDER BY cid DESC LIMIT 1")" = unit_name ] ||
	{ echo "FAIL: unit_name is not the last column of queues"; failed=1; }
sqlite3 -separator ' ' "$work/u.db" \
	"SELECT DISTINCT c.core, q.unit_name FROM queues q JOIN cores c ON c.id = q.core_id
	 WHERE q.queue_type IN ('TRACE', 'TOPSP_TRACE') ORDER BY 1, 2" >"$work/sql.txt"
[ "$(sqlite3 "$work/u.db" "SELECT count(*) FROM queues WHERE unit_kind IS NULL AND unit_name IS NOT NULL")" = 0 ] ||
	{ echo "FAIL: a core-level queue has a unit_name"; failed=1; }

"$py" - "$work/s.json" "$work/sql.txt" "$work/u.db" "$repo/python" <<'PY' || failed=1
import json, sys
s = json.load(open(sys.argv[1]))
# summary's JSON gives engine and name, or topsp; its tables print them as
# "0:tensor" and "topsp0": the name every other output must use.
want, with_ops = set(), set()
for r in s["recordings"]:
    for c in r["cores"]:
        for e in c.get("engines", []):
            u = "%d:%s" % (e["engine"], e["name"]) if e.get("name") else "%d" % e["engine"]
            if e.get("instructions"):
                want.add((int(c["core"]), u))
            if e.get("ops"):
                with_ops.add((int(c["core"]), u))
        for t in c.get("topsps", []):
            u = "topsp%d" % t["topsp"]
            if t.get("instructions"):
                want.add((int(c["core"]), u))
            if t.get("ops"):
                with_ops.add((int(c["core"]), u))
got = set()
for line in open(sys.argv[2]):
    core, unit = line.split()
    got.add((int(core), unit))
if not want:
    print("FAIL: summary --json names no unit")
    sys.exit(1)
if not want <= got:
    print(f"FAIL: summary's units {sorted(want - got)} are not in queues.unit_name {sorted(got)}")
    sys.exit(1)
print(f"units {sorted(want)}: the same in summary and SQLite")
try:
    sys.path.insert(0, sys.argv[4])
    import neuronprof
except ImportError as e:
    print(f"no Python check: {e}")
    sys.exit(0)
db = neuronprof.open(sys.argv[3])
py = {(int(r.core), r.unit) for r in db.ops.itertuples()}
if py != with_ops:
    print(f"FAIL: the Python ops frame's units {sorted(py)}, summary's {sorted(with_ops)}")
    sys.exit(1)
print("and in the Python package's ops frame")
PY
exit $failed
