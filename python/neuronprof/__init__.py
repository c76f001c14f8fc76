# SPDX-License-Identifier: MIT
"""neuronprof's recordings in Python: pandas DataFrames and Dask analyses.

    import neuronprof
    db = neuronprof.open("host-a.sqlite")   # neuronprof export --format sqlite
    db.executions, db.host_events, db.machines, db.ops, db["machine_executions"]

``neuronprof.open`` gives a recording's SQLite export as DataFrames named
after the schema's tables and views (neuronprof-sqlite(5)).
``neuronprof.machines`` compares several machines' recordings as
``neuronprof summary`` does, and ``neuronprof.analyze`` (the
``neuronprof-analyze`` command) runs that comparison as Dask tasks on a
``distributed`` cluster. ``neuronprof.diff(base, new)`` compares two
recordings' databases as ``neuronprof diff`` does, as DataFrames. README.md, "Many machines"; Documentation/analysis.rst.
"""
from .database import Database, DatabaseError, open  # noqa: F401 pylint: disable=redefined-builtin
from .diff import diff  # noqa: F401

__all__ = ["open", "Database", "DatabaseError", "diff"]
