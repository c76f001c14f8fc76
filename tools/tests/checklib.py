# SPDX-License-Identifier: MIT
"""What the checks of summary's numbers share (model_check.py,
summary_check.py, report_check.py): the differences found, the comparison
that records them, and the definitions of Documentation/analysis.rst they
recompute, written the obvious way (sorted lists, linear scans).
"""
import collections
import math

errors = []
checked = 0


def expect(what, got, want):
    """One figure: a float within 0.0051 (printed with two decimals), anything else equal."""
    global checked
    checked += 1
    if isinstance(want, float) or isinstance(got, float):
        if abs(float(got) - float(want)) > 0.0051:
            errors.append(f"{what}: got {got!r}, expected {want!r}")
    elif got != want:
        errors.append(f"{what}: got {got!r}, expected {want!r}")


def pctl(sorted_vals, p):
    """The nearest-rank percentile p of sorted values, 0 of none."""
    if not sorted_vals:
        return 0
    rank = max(1, math.ceil(len(sorted_vals) * p / 100))
    return sorted_vals[rank - 1]


def dist(vals):
    """A distribution's fields as summary --json names them, all 0 for no values."""
    v = sorted(vals)
    if not v:
        return dict(count=0, total_ns=0, min_ns=0, avg_ns=0, median_ns=0, p95_ns=0,
                    p99_ns=0, max_ns=0)
    return dict(count=len(v), total_ns=sum(v), min_ns=v[0], avg_ns=sum(v) // len(v),
                median_ns=pctl(v, 50), p95_ns=pctl(v, 95), p99_ns=pctl(v, 99),
                max_ns=v[-1])


def check_dist(what, got, vals):
    """Every distribution field of got against the values it summarizes."""
    want = dist(vals)
    for k, v in got.items():
        if k in want:
            expect(f"{what}.{k}", v, want[k])


def pct(a, b):
    """a as a percentage of b, rounded to two decimals; 0 of nothing."""
    return round(100.0 * a / b, 2) if b else 0.0


def union_ns(intervals):
    """The time covered by any of the (start, end) intervals."""
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def loss_windows(q, stop_ns, start_ns):
    """The loss windows of a queue (all its records): (start, end, lost, tail)
    for each sequence gap, between the entries around it, and for what its
    rings counted beyond the gaps, from its last entry (the capture's start
    without one) to the capture's stop."""
    out, prev = [], None
    for e in q["entries"]:
        if prev is not None and e["seq"] > prev["seq"] + 1:
            out.append((prev["timestamp_ns"], e["timestamp_ns"], e["seq"] - prev["seq"] - 1, False))
        prev = e
    beyond = q["lost_count"] - sum(w[2] for w in out)
    if beyond > 0:
        a = prev["timestamp_ns"] if prev else start_ns
        out.append((a, max(a, stop_ns), beyond, True))
    return out


def windows_of(entries, start_code, stop_code, bounds=False):
    """The (start, stop) entry pairs of a queue: each start_code entry with the
    stop_code entry that follows it; a stop without a start is no window, and
    no pair spans a sequence gap (a start before one is dropped). With bounds
    (the EVENT windows that bound instructions), the first stop after a gap
    with no start since pairs with the last entry before the gap."""
    out, start, prev, gap_from = [], None, None, None
    for e in entries:
        if prev is not None and e["seq"] > prev["seq"] + 1:
            start = None
            gap_from = prev
        prev = e
        if e["code"] == start_code:
            start = e
            gap_from = None
        elif e["code"] == stop_code and start is not None:
            out.append((start, e))
            start = None
        elif e["code"] == stop_code and bounds and gap_from is not None:
            out.append((gap_from, e))
            gap_from = None
    return out


def check_throttle(tag, throttle, marks, last):
    """A core's throttle table against its THROTTLE entries, (timestamp, level)
    in time order: a level holds until the next entry, the last one until the
    core's last entry (timestamp last)."""
    lv = collections.defaultdict(lambda: [0, 0])
    for i, (ts, level) in enumerate(marks):
        end = marks[i + 1][0] if i + 1 < len(marks) else last
        lv[level][0] += 1
        lv[level][1] += end - ts
    expect(f"{tag} throttle", [(t["level"], t["events"], t["time_ns"]) for t in throttle],
           [(k, v[0], v[1]) for k, v in sorted(lv.items())])


def print_errors():
    """Prints each difference on a "# " line; returns the exit status (1 if any)."""
    for e in errors:
        print(f"# {e}")
    return 1 if errors else 0
