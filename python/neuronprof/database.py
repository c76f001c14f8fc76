# SPDX-License-Identifier: MIT
"""A recording's SQLite export as pandas DataFrames.

``neuronprof export --format sqlite`` writes the database; its schema is
neuronprof-sqlite(5) (Documentation/analysis.rst, "SQLite"). ``open(path)``
reads it without changing it: every table and view becomes a DataFrame of
the same name with the schema's column names (``db.executions``,
``db.host_events``, ``db.machines``, ``db["machine_executions"]``), read
when first asked for. ``db.ops`` is the ops table of ``summary`` (one row per
op of each engine and TopSP: the ``ops`` query of analysis-queries.sql).

Integers stay exact: a column of integers is ``int64``, or pandas' nullable
``Int64`` when it holds NULLs (a float column would round times above 2^53
ns). Unsigned 64-bit values are SQLite's signed integers, as stored.
"""
import os
import sqlite3

import pandas as pd

# The tool's engine_name(), by engine index.
ENGINES = ("tensor", "vector", "scalar", "gpsimd", "sync")


def unit_name(kind, index):
    """A unit as every output of the tool names it: "0:tensor", "7", "topsp3"
    (summary's tables, diff, queues.unit_name of schema 8)."""
    index = int(index)
    if kind == "topsp":
        return "topsp%d" % index
    return "%d:%s" % (index, ENGINES[index]) if index < len(ENGINES) else "%d" % index

# Version 6 spelled every time with its unit (start_ns, end_ns, dur_ns,
# latency_ns, ts_ns) and has the code_names table of the ops' names; the
# columns read here are those of version 6.
SCHEMA_MIN = 6

# What the analyses read: a database without these is not an export.
REQUIRED = {
    "meta": ("key", "value"),
    "strings": ("id", "value"),
    "machines": ("id", "name", "mapping_monotonic_ns", "mapping_realtime_ns"),
    "recordings": ("id", "path_id", "machine_id"),
    "devices": ("id", "device_index", "raw_format"),
    "cores": ("id", "recording_id", "device_id", "core"),
    "queues": ("id", "core_id", "queue_type", "unit_kind", "unit_index", "lost_count"),
    "code_names": ("device_id", "queue_type", "code", "name"),
    "instructions": ("queue_id", "start_ns", "end_ns", "dur_ns", "opcode"),
    "entries": ("queue_id", "ts_ns", "code", "payload0"),
    "executions": ("core_id", "idx", "latency_ns"),
}


class DatabaseError(Exception):
    """A database that cannot be read: the message names it."""


def _frame(cursor):
    """The rows of @cursor as a DataFrame, integer columns exact."""
    names = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    if not rows:
        return pd.DataFrame({n: pd.Series([], dtype=object) for n in names}, columns=names)
    frame = pd.DataFrame.from_records(rows, columns=names, coerce_float=False)
    for i, name in enumerate(names):
        if frame[name].dtype == "int64":
            continue
        # pandas made floats of integers beside NULLs (or objects of a mix):
        # integers with NULLs become the nullable Int64, exactly.
        values = [r[i] for r in rows]
        kinds = {type(v) for v in values if v is not None}
        if kinds == {int}:
            frame[name] = pd.array(values, dtype="Int64")
        elif kinds and kinds <= {int, float}:
            frame[name] = pd.array([float("nan") if v is None else float(v) for v in values],
                                   dtype="float64")
        else:
            frame[name] = pd.Series(values, dtype=object)
    return frame


def _nearest_rank(sorted_values, p):
    """The value at rank ceil(n * p / 100) of @sorted_values (summary's percentiles)."""
    n = len(sorted_values)
    return sorted_values[(n * p + 99) // 100 - 1]


class Database:
    """An open export (see the module's description); a context manager."""

    def __init__(self, path, name=None):
        self.path = os.fspath(path)
        # What messages call it (the path as the user gave it).
        self.name = name if name is not None else self.path
        if not os.path.exists(self.path):
            raise DatabaseError(f"{self.name}: no such file")
        if os.path.isdir(self.path):
            raise DatabaseError(f"{self.name}: a directory, not an SQLite export")
        try:
            # Read-only: an analysis never writes into a recording's database.
            uri = "file:" + _uri_path(os.path.abspath(self.path)) + "?mode=ro"
            self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error as e:
            raise DatabaseError(f"{self.name}: cannot open: {e}") from None
        self._cache = {}
        try:
            self._check()
        except Exception:
            self._conn.close()
            raise

    def _check(self):
        try:
            objs = self._conn.execute(
                "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')"
                " AND name NOT LIKE 'sqlite_%' ORDER BY type, name").fetchall()
        except sqlite3.DatabaseError as e:
            raise DatabaseError(f"{self.name}: not an SQLite database ({e})") from None
        self.tables = [n for n, t in objs if t == "table"]
        self.views = [n for n, t in objs if t == "view"]
        for table, cols in REQUIRED.items():
            if table not in self.tables:
                raise DatabaseError(f"{self.name}: not a neuronprof export: no table {table}"
                                    " (neuronprof-sqlite(5))")
            have = self.columns(table)
            missing = [c for c in cols if c not in have]
            if missing:
                raise DatabaseError(f"{self.name}: table {table} has no column "
                                    f"{', '.join(missing)} (neuronprof-sqlite(5))")
        try:
            row = self._conn.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            version = int(row[0]) if row else None
        except (sqlite3.DatabaseError, TypeError, ValueError) as e:
            raise DatabaseError(f"{self.name}: no readable schema version ({e})") from None
        if version is None or version < SCHEMA_MIN:
            raise DatabaseError(f"{self.name}: schema version {version}; neuronprof.open needs "
                                f"{SCHEMA_MIN} or later (export the recording again)")
        self.schema_version = version

    def columns(self, name):
        """The column names of table or view @name, in the schema's order."""
        try:
            cur = self._conn.execute(f'SELECT * FROM "{name}" LIMIT 0')
        except sqlite3.DatabaseError as e:
            raise DatabaseError(f"{self.name}: {name}: {e}") from None
        return [d[0] for d in cur.description]

    def query(self, sql, params=()):
        """The rows of @sql as a DataFrame (integer columns exact)."""
        try:
            return _frame(self._conn.execute(sql, params))
        except sqlite3.DatabaseError as e:
            raise DatabaseError(f"{self.name}: {e}") from None

    @property
    def names(self):
        """Every DataFrame this database offers: its tables, its views, ops."""
        return self.tables + self.views + ["ops"]

    def __getitem__(self, name):
        if name in self._cache:
            return self._cache[name]
        if name == "ops" and "ops" not in self.tables:
            frame = self._ops()
        elif name in self.tables or name in self.views:
            frame = self.query(f'SELECT * FROM "{name}"')
        else:
            raise KeyError(f"{self.name}: no table or view {name}")
        self._cache[name] = frame
        return frame

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(str(e)) from None

    def __dir__(self):
        return list(super().__dir__()) + self.names

    def _ops(self):
        """summary's ops per engine and TopSP (analysis-queries.sql, "ops")."""
        rows = self.query(
            "SELECT rs.value AS recording, dv.device_index AS device, c.core, q.unit_kind,"
            " q.unit_index, i.opcode AS code, i.dur_ns AS dur, n.name AS op"
            " FROM instructions i JOIN queues q ON q.id = i.queue_id"
            " JOIN cores c ON c.id = q.core_id JOIN devices dv ON dv.id = c.device_id"
            " JOIN recordings r ON r.id = c.recording_id JOIN strings rs ON rs.id = r.path_id"
            " LEFT JOIN code_names n ON n.device_id = c.device_id"
            " AND n.queue_type = q.queue_type AND n.code = i.opcode"
            # An instruction a loss cut has no duration and is no op's (schema 7).
            " WHERE i.dur_ns IS NOT NULL")
        # op: the device's name of the code (None when it names none); code
        # spelled as every output of the tool spells it, 0x000102.
        cols = ["recording", "device", "core", "unit_kind", "unit_index", "op", "code", "count",
                "total_ns", "min_ns", "avg_ns", "median_ns", "p95_ns", "max_ns", "busy_pct",
                "unit"]
        out = []
        unit_key = ["recording", "device", "core", "unit_kind", "unit_index"]
        for ukey, unit in rows.groupby(unit_key, sort=True):
            busy = int(unit["dur"].sum())
            for code, op in unit.groupby("code", sort=True):
                d = sorted(int(v) for v in op["dur"])
                total = sum(d)
                names = [n for n in op["op"] if isinstance(n, str)]
                out.append(list(ukey) + [names[0] if names else None, "0x%06x" % int(code),
                                         len(d), total, d[0], total // len(d),
                                         _nearest_rank(d, 50), _nearest_rank(d, 95), d[-1],
                                         round(100.0 * total / busy, 2) if busy else 0.0,
                                         unit_name(ukey[3], ukey[4])])
        frame = pd.DataFrame(out, columns=cols)
        if len(frame):
            frame = frame.sort_values(unit_key + ["total_ns", "code"],
                                      ascending=[True] * 5 + [False, True],
                                      kind="mergesort").reset_index(drop=True)
        for c in cols[7:14]:
            frame[c] = frame[c].astype("int64")
        return frame

    def close(self):
        self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<neuronprof.Database {self.path!r}: {', '.join(self.names)}>"


def _uri_path(path):
    """@path quoted for an SQLite file: URI."""
    from urllib.parse import quote
    return quote(path)


def open(path, name=None):  # pylint: disable=redefined-builtin
    """Open the SQLite export at @path: a Database (DatabaseError, whose message
    names it, or @name if given, if it is not one)."""
    return Database(path, name)
