# SPDX-License-Identifier: MIT
"""A held-out validator of neuronprof's timeline and database exports.

It shares no code with the tool or with the other tests: the Perfetto trace
is decoded by Google's protobuf runtime with perfetto_published.proto (this
directory, written from the field numbers Perfetto publishes, not from the
project's proto/), the Chrome JSON trace by Python's json, the database by
Python's sqlite3. What it checks is what a trace viewer relies on, not what
the tool meant to write:

  perfetto FILE PB2_DIR    every packet on a sequence; interned names, categories
                           and annotation names defined (after the sequence's
                           last clear) before use, never redefined differently;
                           every track defined once, before any event or child
                           track uses it, its parent first; the events of a
                           track starting in time order; every slice begin ended
                           on its own track, no end without a begin, ends not
                           before their begins, the slices of a track nesting
                           (none overlaps another without lying inside it);
                           slices and instants named; counter values only
                           on counter tracks; every flow started and ended once.
  json FILE                the same for the Chrome JSON trace: phases known, ts
                           and pid on every event, names present, per thread
                           events starting in time order, B/E balanced, slices
                           nesting, X durations >= 0, every
                           thread and process with events named, flows s/f
                           paired.
  sqlite-raw FILE          a database of a raw recording holds its rows: every
                           raw queue's ring entries in raw_entries (as many rows
                           as the queue's entry_count), each a BLOB of 1 to 32
                           bytes, parts within their entry, nothing decoded into
                           entries or instructions, foreign keys intact.

PB2_DIR is where `protoc --python_out` put perfetto_published_pb2.py. Prints
"# ..." lines for what is wrong and a summary line; exits 1 on any problem.
"""
import collections
import importlib
import json
import sqlite3
import sys

problems = []


def bad(msg):
    if len(problems) < 50:
        problems.append(msg)


SEQ_CLEARED, SEQ_NEEDS = 1, 2
BEGIN, END, INSTANT, COUNTER = 1, 2, 3, 4


def nesting(spans, where):
    """The slices of one track nest: one that starts inside another ends inside it."""
    open_ = []
    for b, e, name in sorted(spans, key=lambda x: (x[0], -x[1])):
        while open_ and open_[-1][1] <= b:
            open_.pop()
        if open_ and e > open_[-1][1]:
            bad(f"{where}: {name!r} [{b}, {e}] overlaps {open_[-1][2]!r} "
                f"[{open_[-1][0]}, {open_[-1][1]}] without nesting in it")
        open_.append((b, e, name))


def perfetto(path, pb2_dir):
    sys.path.insert(0, pb2_dir)
    pb = importlib.import_module("perfetto_published_pb2")
    trace = pb.Trace()
    trace.ParseFromString(open(path, "rb").read())
    if not trace.packet:
        bad("no packet")
    tracks = {}              # uuid -> descriptor
    counters = set()
    interned = {}            # sequence -> {field: {iid: name}}
    cleared = set()          # sequences whose incremental state is valid
    last_ts = {}             # track -> last timestamp
    stacks = collections.defaultdict(list)
    spans = collections.defaultdict(list)    # track -> (begin, end, name)
    flows_out, flows_in = collections.Counter(), collections.Counter()
    events = slices = 0
    for i, p in enumerate(trace.packet):
        where = f"packet {i}"
        if not p.HasField("trusted_packet_sequence_id") or not p.trusted_packet_sequence_id:
            bad(f"{where}: no trusted_packet_sequence_id")
        seq = p.trusted_packet_sequence_id
        if p.sequence_flags & SEQ_CLEARED:
            interned[seq] = {"names": {}, "cats": {}, "args": {}}
            cleared.add(seq)
        if p.HasField("interned_data"):
            if seq not in cleared:
                bad(f"{where}: interned data before the sequence's state was cleared")
            tables = interned.setdefault(seq, {"names": {}, "cats": {}, "args": {}})
            for field, key in (("event_names", "names"), ("event_categories", "cats"),
                               ("debug_annotation_names", "args")):
                for e in getattr(p.interned_data, field):
                    if not e.iid:
                        bad(f"{where}: {field} entry with iid 0")
                    old = tables[key].get(e.iid)
                    if old is not None and old != e.name:
                        bad(f"{where}: {field} iid {e.iid} redefined ({old!r} -> {e.name!r})")
                    if not e.name:
                        bad(f"{where}: {field} iid {e.iid} has an empty name")
                    tables[key][e.iid] = e.name
        if p.HasField("track_descriptor"):
            d = p.track_descriptor
            if not d.uuid:
                bad(f"{where}: track without a uuid")
            if d.uuid in tracks:
                bad(f"{where}: track {d.uuid} defined twice")
            if d.HasField("parent_uuid") and d.parent_uuid not in tracks:
                bad(f"{where}: track {d.uuid} ({d.name!r}) names parent {d.parent_uuid} "
                    "before it is defined")
            if not (d.name or d.process.process_name or d.thread.thread_name):
                bad(f"{where}: track {d.uuid} has no name")
            tracks[d.uuid] = d
            if d.HasField("counter"):
                counters.add(d.uuid)
        if not p.HasField("track_event"):
            continue
        e = p.track_event
        events += 1
        uses_interned = e.HasField("name_iid") or len(e.category_iids) or \
            any(a.HasField("name_iid") for a in e.debug_annotations)
        if uses_interned and not p.sequence_flags & SEQ_NEEDS:
            bad(f"{where}: interned references without SEQ_NEEDS_INCREMENTAL_STATE")
        if uses_interned and seq not in cleared:
            bad(f"{where}: interned references on a sequence never cleared")
        tables = interned.get(seq, {"names": {}, "cats": {}, "args": {}})
        name = e.name
        if e.HasField("name_iid"):
            name = tables["names"].get(e.name_iid)
            if name is None:
                bad(f"{where}: event name iid {e.name_iid} not defined on sequence {seq}")
        for c in e.category_iids:
            if c not in tables["cats"]:
                bad(f"{where}: category iid {c} not defined on sequence {seq}")
        for a in e.debug_annotations:
            if a.HasField("name_iid") and a.name_iid not in tables["args"]:
                bad(f"{where}: annotation name iid {a.name_iid} not defined on sequence {seq}")
            if not a.HasField("name_iid") and not a.name:
                bad(f"{where}: annotation without a name")
        if not p.HasField("timestamp"):
            bad(f"{where}: event without a timestamp")
        t = e.track_uuid
        if t not in tracks:
            bad(f"{where}: event on track {t}, not defined before it")
            continue
        # Events start in time order on their track; a slice's end is written
        # with its begin, so ends are checked by nesting below.
        if e.type != END:
            if p.timestamp < last_ts.get(t, 0):
                bad(f"{where}: {name or 'event'!r} starts at {p.timestamp}, before the "
                    f"track's previous event at {last_ts[t]} (track {tracks[t].name!r})")
            last_ts[t] = max(p.timestamp, last_ts.get(t, 0))
        if e.type == COUNTER:
            if t not in counters:
                bad(f"{where}: counter value on track {t}, not a counter track")
            if not (e.HasField("counter_value") or e.HasField("double_counter_value")):
                bad(f"{where}: counter event without a value")
            continue
        if t in counters:
            bad(f"{where}: event type {e.type} on counter track {t}")
        if e.type in (BEGIN, INSTANT) and not name:
            bad(f"{where}: {'slice' if e.type == BEGIN else 'instant'} without a name")
        if e.type == BEGIN:
            stacks[t].append((p.timestamp, name))
            slices += 1
        elif e.type == END:
            if not stacks[t]:
                bad(f"{where}: slice end without a begin on track {t}")
            else:
                ts, nm = stacks[t].pop()
                if p.timestamp < ts:
                    bad(f"{where}: slice ends at {p.timestamp} before it began at {ts}")
                spans[t].append((ts, p.timestamp, nm))
        elif e.type != INSTANT:
            bad(f"{where}: event of unknown type {e.type}")
        for f in e.flow_ids:
            flows_out[f] += 1
        for f in e.terminating_flow_ids:
            flows_in[f] += 1
    for t, left in stacks.items():
        if left:
            bad(f"track {t} ({tracks[t].name!r}): {len(left)} slices begun, never ended "
                f"(first: {left[0][1]!r} at {left[0][0]})")
    for t, sp in spans.items():
        nesting(sp, f"track {t} ({tracks[t].name!r})")
    for f in set(flows_out) | set(flows_in):
        if flows_out[f] != 1 or flows_in[f] != 1:
            bad(f"flow {f}: started {flows_out[f]} times, ended {flows_in[f]} times")
    return f"{len(trace.packet)} packets, {len(tracks)} tracks, {events} events, {slices} slices"


def chrome_json(path):
    doc = json.load(open(path))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    named_threads, named_procs = set(), set()
    stacks = collections.defaultdict(list)
    spans = collections.defaultdict(list)
    last_ts = {}
    starts, ends = collections.Counter(), collections.Counter()
    n = 0
    for i, e in enumerate(events):
        where = f"event {i}"
        ph = e.get("ph")
        if ph not in ("M", "X", "B", "E", "i", "I", "C", "s", "f", "t"):
            bad(f"{where}: unknown phase {ph!r}")
            continue
        if "pid" not in e:
            bad(f"{where}: no pid")
        if ph == "M":
            if e.get("name") == "thread_name":
                named_threads.add((e["pid"], e.get("tid")))
            elif e.get("name") == "process_name":
                named_procs.add(e["pid"])
            if not e.get("args", {}).get("name") and e.get("name") in ("thread_name",
                                                                       "process_name"):
                bad(f"{where}: {e['name']} without a name")
            continue
        n += 1
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or ts < 0:
            bad(f"{where}: ts {ts!r}")
            continue
        if ph in ("X", "B", "i", "I", "C") and not e.get("name"):
            bad(f"{where}: {ph} event without a name")
        key = (e.get("pid"), e.get("tid"))
        if ph in ("X", "B", "i", "I"):
            if ts < last_ts.get(key, 0):
                bad(f"{where}: {e.get('name')!r} starts at {ts}, before the thread's "
                    f"previous event at {last_ts[key]} ({key})")
            last_ts[key] = max(ts, last_ts.get(key, 0))
        if ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                bad(f"{where}: X with duration {e.get('dur')!r}")
            else:
                # In whole nanoseconds: the JSON's microseconds carry three
                # decimals, and float sums of them are not exact.
                b = round(ts * 1000)
                spans[key].append((b, b + round(e["dur"] * 1000), e.get("name")))
        elif ph == "B":
            stacks[key].append((ts, e.get("name")))
        elif ph == "E":
            if not stacks[key]:
                bad(f"{where}: E without a B on {key}")
            else:
                b, nm = stacks[key].pop()
                if ts < b:
                    bad(f"{where}: E at {ts} before its B at {b}")
                spans[key].append((round(b * 1000), round(ts * 1000), nm))
        elif ph == "s":
            starts[e.get("id")] += 1
        elif ph == "f":
            ends[e.get("id")] += 1
    for key, left in stacks.items():
        if left:
            bad(f"{key}: {len(left)} B without E (first {left[0][1]!r} at {left[0][0]})")
    for key, sp in spans.items():
        nesting(sp, f"thread {key}")
    for e in events:
        if e.get("ph") in ("X", "B", "E", "i", "I") and (e.get("pid"), e.get("tid")) not in named_threads:
            bad(f"thread {e.get('pid')}/{e.get('tid')} has events but no thread_name")
            break
    for e in events:
        if e.get("ph") != "M" and e.get("pid") not in named_procs:
            bad(f"process {e.get('pid')} has events but no process_name")
            break
    for f in set(starts) | set(ends):
        if starts[f] != 1 or ends[f] != 1:
            bad(f"flow {f}: {starts[f]} starts, {ends[f]} ends")
    if not n:
        bad("no events")
    return f"{len(events)} events, {len(named_threads)} named threads"


def sqlite_raw(path):
    con = sqlite3.connect(path)
    if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        bad("integrity_check failed")
    for row in con.execute("PRAGMA foreign_key_check"):
        bad(f"foreign key violated: {row}")
    raw_queues = con.execute(
        "SELECT q.id, q.queue_type, q.entry_count FROM queues q JOIN files f ON f.id = q.file_id"
        " JOIN cores c ON c.id = q.core_id JOIN devices d ON d.id = c.device_id"
        " WHERE d.raw_format IS NOT NULL").fetchall()
    if not raw_queues:
        bad("no queue of a raw device")
    rows = 0
    for qid, qt, count in raw_queues:
        got = con.execute("SELECT count(*) FROM raw_entries WHERE queue_id = ?", (qid,)).fetchone()[0]
        rows += got
        if got != count:
            bad(f"queue {qid} ({qt}): {got} raw_entries rows for {count} ring entries")
    if not rows:
        bad("raw_entries is empty")
    for qid, ts, part, parts, b in con.execute(
            "SELECT queue_id, ts_ns, part, parts, bytes FROM raw_entries"):
        if not isinstance(b, bytes) or not 1 <= len(b) <= 32:
            bad(f"queue {qid} at {ts}: bytes {b!r} not a BLOB of 1 to 32 bytes")
        if not 0 <= part < parts:
            bad(f"queue {qid} at {ts}: part {part} of {parts}")
    decoded = con.execute(
        "SELECT (SELECT count(*) FROM entries e JOIN queues q ON q.id = e.queue_id"
        " JOIN cores c ON c.id = q.core_id JOIN devices d ON d.id = c.device_id"
        " WHERE d.raw_format IS NOT NULL) + (SELECT count(*) FROM instructions i"
        " JOIN queues q ON q.id = i.queue_id JOIN cores c ON c.id = q.core_id"
        " JOIN devices d ON d.id = c.device_id WHERE d.raw_format IS NOT NULL)").fetchone()[0]
    if decoded:
        bad(f"{decoded} rows of raw queues decoded into entries or instructions")
    names = con.execute("SELECT count(*) FROM code_names n JOIN devices d ON d.id = n.device_id"
                        " WHERE d.raw_format IS NOT NULL").fetchone()[0]
    if names:
        bad(f"{names} code names of a raw device (a raw device names nothing)")
    con.close()
    return f"{len(raw_queues)} raw queues, {rows} raw_entries rows"


def main():
    try:
        if len(sys.argv) == 4 and sys.argv[1] == "perfetto":
            what = perfetto(sys.argv[2], sys.argv[3])
        elif len(sys.argv) == 3 and sys.argv[1] == "json":
            what = chrome_json(sys.argv[2])
        elif len(sys.argv) == 3 and sys.argv[1] == "sqlite-raw":
            what = sqlite_raw(sys.argv[2])
        else:
            print(__doc__, file=sys.stderr)
            sys.exit(2)
    except Exception as ex:  # a file that does not decode is a finding
        bad(f"{sys.argv[2]}: {ex!r}")
        what = "unreadable"
    for p in problems:
        print(f"# {p}")
    print(f"{sys.argv[1]} {sys.argv[2]}: {what}: {len(problems)} problems")
    sys.exit(1 if problems else 0)


main()
