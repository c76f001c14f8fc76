# SPDX-License-Identifier: MIT
"""Independent checks of the neuronprof tool's machine-readable outputs.

Each subcommand reads one output of the tool, parses it with a standard
implementation (Python's json, Google's protobuf runtime on code generated
by protoc from proto/perfetto_trace.proto) and compares it with the
expected values given on the command line as KEY=VALUE. It prints what
differs and exits 1, or exits 0 when everything matches.

  check.py dump-json FILE KEY=VALUE...
  check.py summary-json FILE KEY=VALUE...      KEY is a path: cores.0.lost
  check.py chrome-json FILE KEY=VALUE...       KEY: ph.X, ph.i, ..., lost_markers,
                                               name:NAME (events so named),
                                               event:NAME@ARG:V@... (X events so
                                               named whose args ARG are V; V "-":
                                               ARG absent), flow:FROM>TO (flows
                                               from the X slice named FROM that
                                               starts where the "s" is, to the
                                               one named TO where the "f" is)
  check.py perfetto FILE PB2_DIR KEY=VALUE...  KEY: descriptors, processes,
                                               counters, SLICE_BEGIN, ...,
                                               name:NAME, track:NAME,
                                               parent:TRACK>PARENT (tracks
                                               so named under a track so
                                               named), flow:FROM>TO (flows
                                               from an event named FROM to
                                               one named TO)
  check.py timeline-summary JSON SUMMARY       the Chrome JSON export and summary
                                               --json of one recording agree: per
                                               engine, the instruction slices'
                                               count and total duration are its
                                               instructions and busy_ns; per core,
                                               the inference and execution slices
                                               its inferences and executions
  check.py schema-doc DB MAN RST              every table and view of the database
                                               DB is documented, column by column, in
                                               the man page MAN (its columns in
                                               order, in italics under the table's
                                               name) and in the schema table of RST
                                               (each column as ``name`` on its row);
                                               neither documents a table or view the
                                               database lacks
  check.py machines TEXT JSON CSVDIR DB KEY=VALUE...
                                               the machines compared by `summary
                                               --ns` (TEXT), --json, --csv and the
                                               SQLite export's machine_executions
                                               view agree: per execution index
                                               (all four), per machine and the ops
                                               against the median (text, JSON,
                                               CSV); KEY is a path in the JSON's
                                               machines_compared
  check.py devices-json FILE KEY=VALUE...
  check.py same KIND A B                       A and B (outputs of the same
                                               profile written as different
                                               records) agree but for what
                                               counts records. KIND:
                                               summary-json, csv (directories
                                               of summary --csv), file (byte
                                               for byte), sqlite
"""
import collections
import csv
import importlib
import json
import os
import sqlite3
import sys

errors = []


def expect(what, got, want):
    if str(got) != str(want):
        errors.append(f"{what}: got {got!r}, expected {want!r}")


def num(v):
    """A count, or a duration of summary --ns with its unit ("4400ns")."""
    return int(v[:-2]) if v.endswith("ns") else int(v)


def pairs(args):
    for a in args:
        key, _, val = a.partition("=")
        yield key, val


def lookup(doc, path):
    cur = doc
    for part in path.split("."):
        if isinstance(cur, list):
            cur = cur[int(part)]
        else:
            cur = cur[part]
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return cur


def by_path(doc, args):
    for key, val in pairs(args):
        try:
            expect(key, lookup(doc, key), val)
        except (KeyError, IndexError, ValueError, TypeError) as e:
            errors.append(f"{key}: missing ({e!r})")


def dump_json(path, args):
    doc = json.load(open(path))
    queues = doc["queues"]
    computed = {
        "records": len(queues),
        "entries": sum(len(q.get("entries", [])) for q in queues),
        "with_entries": sum(1 for q in queues if "entries" in q),
    }
    for q in queues:
        if "entries" in q and len(q["entries"]) > q["entry_count"]:
            errors.append(f"queue {q['queue_type']}: more entries than entry_count")
        seqs = [e["seq"] for e in q.get("entries", [])]
        if seqs and len(seqs) == q["entry_count"]:
            expect(f"{q['queue_type']} first_seq", q["first_seq"], seqs[0])
            expect(f"{q['queue_type']} last_seq", q["last_seq"], seqs[-1])
    rest = []
    for key, val in pairs(args):
        if key in computed:
            expect(key, computed[key], val)
        else:
            rest.append(f"{key}={val}")
    by_path(doc, rest)


def summary_json(path, args):
    by_path(json.load(open(path)), args)


def chrome_json(path, args):
    doc = json.load(open(path))
    events = doc["traceEvents"]
    phases = collections.Counter(e["ph"] for e in events)
    names = {}
    stack = collections.defaultdict(list)
    for e in events:
        for key in ("ph", "pid", "name"):
            if key not in e:
                errors.append(f"event without {key}: {e}")
        if e["ph"] != "M" and "ts" not in e:
            errors.append(f"event without ts: {e}")
        if e["ph"] == "M" and e["name"] in ("process_name", "thread_name"):
            names[(e["pid"], e.get("tid"))] = e["args"]["name"]
        if e["ph"] == "B":
            stack[(e["pid"], e["tid"])].append(e)
        elif e["ph"] == "E":
            open_ = stack[(e["pid"], e["tid"])]
            if not open_:
                errors.append(f"E without B: {e}")
            else:
                b = open_.pop()
                if float(e["ts"]) < float(b["ts"]):
                    errors.append(f"E before its B: {b} {e}")
        elif e["ph"] == "X" and float(e["dur"]) < 0:
            errors.append(f"negative duration: {e}")
    for key, left in stack.items():
        if left:
            errors.append(f"{len(left)} B without E on {key}")
    # Every thread and process that has events is named.
    for e in events:
        if e["ph"] in "XBEi" and (e["pid"], e["tid"]) not in names:
            errors.append(f"thread {e['pid']}/{e['tid']} has no thread_name")
            break
        if e["ph"] != "M" and (e["pid"], None) not in names:
            errors.append(f"process {e['pid']} has no process_name")
            break
    # Every flow has one start ("s") and one end ("f").
    starts = collections.Counter(e["id"] for e in events if e["ph"] == "s")
    ends = collections.Counter(e["id"] for e in events if e["ph"] == "f")
    for f in set(starts) | set(ends):
        if starts[f] != 1 or ends[f] != 1:
            errors.append(f"flow {f}: {starts[f]} starts, {ends[f]} ends")
    # The slice each flow event binds to: the X slice of its thread that starts there.
    starting = collections.defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            starting[(e["pid"], e.get("tid"), e["ts"])].append(e["name"])
    bound = {}
    for e in events:
        if e["ph"] in "sf":
            on = starting.get((e["pid"], e.get("tid"), e["ts"]), [])
            bound.setdefault(e["id"], {})[e["ph"]] = on[0] if len(on) == 1 else None
    computed = {f"ph.{p}": phases.get(p, 0) for p in "MXBEiCsf"}
    computed["lost_markers"] = sum(1 for e in events if e.get("cat") == "lost")
    computed["processes"] = sum(1 for k in names if k[1] is None)
    computed["threads"] = sum(1 for k in names if k[1] is not None)
    for key, val in pairs(args):
        if key.startswith("name:"):
            want = key[5:]
            got = sum(1 for e in events if e.get("name") == want)
            expect(key, got, val)
        elif key.startswith("flow:"):
            src, dst = key[5:].split(">", 1)
            got = sum(1 for b in bound.values() if b.get("s") == src and b.get("f") == dst)
            expect(key, got, val)
        elif key.startswith("event:"):
            name, *conds = key[6:].split("@")
            want_args = [c.split(":", 1) for c in conds]
            if any(len(c) != 2 for c in want_args):
                errors.append(f"malformed key {key}")
                continue

            def matches(e):
                args = e.get("args", {})
                for k, v in want_args:
                    if v == "-":
                        if k in args:
                            return False
                    elif k not in args or str(args[k]) != v:
                        return False
                return True
            got = sum(1 for e in events
                      if e["ph"] == "X" and e.get("name") == name and matches(e))
            expect(key, got, val)
        elif key in computed:
            expect(key, computed[key], val)
        else:
            errors.append(f"unknown key {key}")


def perfetto(path, pb2_dir, args):
    """Decodes with Google's protobuf runtime and checks what Perfetto requires:
    the sequence starts with SEQ_INCREMENTAL_STATE_CLEARED; every interned id
    is defined (in its packet or an earlier one) before use, by a packet that
    says SEQ_NEEDS_INCREMENTAL_STATE; events sit on declared tracks, counters
    on counter tracks (with a unit); slices are closed and properly nested per
    track; every flow id has both ends."""
    sys.path.insert(0, pb2_dir)
    pb2 = importlib.import_module("perfetto_trace_pb2")
    trace = pb2.Trace()
    trace.ParseFromString(open(path, "rb").read())
    te = pb2.TrackEvent
    CLEARED = pb2.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
    NEEDS = pb2.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
    tracks = {}
    for p in trace.packet:
        if p.trusted_packet_sequence_id != 1:
            errors.append("packet without trusted_packet_sequence_id 1")
            break
        if p.HasField("track_descriptor"):
            td = p.track_descriptor
            if td.uuid in tracks:
                errors.append(f"track uuid {td.uuid} declared twice")
            tracks[td.uuid] = td
    for td in tracks.values():
        if td.HasField("parent_uuid") and td.parent_uuid not in tracks:
            errors.append(f"track {td.uuid} ({td.name}): unknown parent {td.parent_uuid}")
        if td.HasField("counter") and not (td.counter.HasField("unit") or td.counter.unit_name):
            errors.append(f"counter track {td.name} without a unit")
    if not trace.packet or not trace.packet[0].sequence_flags & CLEARED:
        errors.append("the first packet does not clear the incremental state")
    interned = None
    kinds = ("event_categories", "event_names", "debug_annotation_names")
    types = collections.Counter()
    names = collections.Counter()
    per_track = collections.defaultdict(list)
    flows_out, flows_in = collections.Counter(), collections.Counter()
    flow_from, flow_to = {}, {}

    def resolve(kind, iid, p):
        if not p.sequence_flags & NEEDS:
            errors.append(f"packet at {p.timestamp} uses interned {kind} {iid} without SEQ_NEEDS_INCREMENTAL_STATE")
        if interned is None or iid not in interned[kind]:
            errors.append(f"{kind} iid {iid} used before it is defined")
            return None
        return interned[kind][iid]

    for i, p in enumerate(trace.packet):
        if p.sequence_flags & CLEARED:
            interned = {k: {} for k in kinds}
        if p.HasField("interned_data"):
            if interned is None:
                errors.append("interned data before the state was cleared")
                interned = {k: {} for k in kinds}
            for k in kinds:
                for d in getattr(p.interned_data, k):
                    if d.iid in interned[k] and interned[k][d.iid] != d.name:
                        errors.append(f"{k} iid {d.iid} redefined")
                    interned[k][d.iid] = d.name
        if not p.HasField("track_event"):
            continue
        ev = p.track_event
        types[te.Type.Name(ev.type)] += 1
        if not p.HasField("timestamp"):
            errors.append("track event without timestamp")
        name = ev.name
        if ev.HasField("name_iid"):
            name = resolve("event_names", ev.name_iid, p)
        for c in ev.category_iids:
            resolve("event_categories", c, p)
        for d in ev.debug_annotations:
            if d.HasField("name_iid"):
                resolve("debug_annotation_names", d.name_iid, p)
        if ev.type in (te.TYPE_SLICE_BEGIN, te.TYPE_INSTANT):
            names[name] += 1
        for f in ev.flow_ids:
            flows_out[f] += 1
            flow_from[f] = name
        for f in ev.terminating_flow_ids:
            flows_in[f] += 1
            flow_to[f] = name
        td = tracks.get(ev.track_uuid)
        if td is None:
            errors.append(f"event on undeclared track {ev.track_uuid}")
            continue
        is_counter = td.HasField("counter")
        if (ev.type == te.TYPE_COUNTER) != is_counter:
            errors.append(f"{te.Type.Name(ev.type)} on track {td.name}")
        if ev.type == te.TYPE_SLICE_BEGIN and not name:
            errors.append("slice begin without a name")
        if ev.type in (te.TYPE_SLICE_BEGIN, te.TYPE_SLICE_END):
            per_track[ev.track_uuid].append((ev.type, p.timestamp, i))
    # Closed and nested: pair each begin with the next end of its track in
    # file order, then check the intervals of a track nest (no partial overlap).
    for uuid, evs in per_track.items():
        spans, open_ = [], []
        for typ, ts, i in evs:
            if typ == te.TYPE_SLICE_BEGIN:
                open_.append(ts)
            elif not open_:
                errors.append(f"track {tracks[uuid].name}: slice end without a begin")
            else:
                b = open_.pop()
                if ts < b:
                    errors.append(f"track {tracks[uuid].name}: slice ends before it begins")
                spans.append((b, ts))
        if open_:
            errors.append(f"track {tracks[uuid].name}: {len(open_)} unclosed slices")
        stack = []
        for b, e in sorted(spans, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1] <= b:
                stack.pop()
            if stack and e > stack[-1]:
                errors.append(f"track {tracks[uuid].name}: slice [{b}, {e}] overlaps its parent ending at {stack[-1]}")
                break
            stack.append(e)
    for f in set(flows_out) | set(flows_in):
        if flows_out[f] != 1 or flows_in[f] != 1:
            errors.append(f"flow {f}: {flows_out[f]} starts, {flows_in[f]} ends")
    computed = dict(types)
    computed["packets"] = len(trace.packet)
    computed["descriptors"] = len(tracks)
    computed["processes"] = sum(1 for t in tracks.values() if t.HasField("process"))
    computed["counters"] = sum(1 for t in tracks.values() if t.HasField("counter"))
    computed["threads"] = sum(1 for t in tracks.values() if t.HasField("thread"))
    computed["flows"] = len(flows_out)
    computed["lanes"] = sum(1 for t in tracks.values() if " lane " in t.name)
    computed["interned_names"] = len(interned["event_names"]) if interned else 0
    for key, val in pairs(args):
        if key.startswith("name:"):
            expect(key, names.get(key[5:], 0), val)
        elif key.startswith("track:"):
            expect(key, sum(1 for t in tracks.values() if t.name == key[6:]), val)
        elif key.startswith("parent:"):
            child, parent = key[7:].split(">", 1)
            expect(key, sum(1 for t in tracks.values() if t.name == child and
                            t.HasField("parent_uuid") and
                            tracks[t.parent_uuid].name == parent), val)
        elif key.startswith("flow:"):
            src, dst = key[5:].split(">", 1)
            expect(key, sum(1 for f in flow_from if flow_from[f] == src and
                            flow_to.get(f) == dst), val)
        else:
            expect(key, computed.get(key, 0), val)


def timeline_summary(path, summary_path):
    """The export (cursors over the queues) against summary (arrays)."""
    events = json.load(open(path))["traceEvents"]
    proc, thread = {}, {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "process_name":
            proc[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "thread_name":
            thread[(e["pid"], e["tid"])] = e["args"]["name"]
    got = collections.Counter()
    for e in events:
        if e["ph"] != "X" or e.get("cat") not in ("instruction", "infer", "execution"):
            continue
        words = proc[e["pid"]].split()
        if words[:1] != ["device"] or words[2:3] != ["NeuronCore"]:
            continue
        core = (int(words[1]), int(words[3]))
        if e["cat"] == "instruction":
            track = thread[(e["pid"], e["tid"])].split()
            if track[0] != "engine" or track[-1] != "TRACE":
                continue
            key = core + (int(track[1]),)
            got[key + ("instructions",)] += 1
            got[key + ("busy_ns",)] += round(float(e["dur"]) * 1000)
        else:
            got[core + ({"infer": "inferences", "execution": "executions"}[e["cat"]],)] += 1
    recs = json.load(open(summary_path))["recordings"]
    if len(recs) != 1:
        errors.append(f"{summary_path}: {len(recs)} recordings, expected one")
        return
    want = collections.Counter()
    for c in recs[0]["cores"]:
        core = (c["device"], c["core"])
        for k in ("inferences", "executions"):
            want[core + (k,)] = c[k]
        for g in c["engines"]:
            for k in ("instructions", "busy_ns"):
                want[core + (g["engine"], k)] = g[k]
            # An instruction a loss cut is not drawn (Loss windows).
            want[core + (g["engine"], "instructions")] -= g.get("cut_instructions", 0)
    if not any(k[-1] == "busy_ns" and v for k, v in want.items()):
        errors.append(f"{summary_path}: no engine was busy: nothing to compare")
    for k in sorted(set(got) | set(want), key=str):
        expect(f"{path} vs {summary_path}: {k}", got[k], want[k])


def doctor_json(path, args):
    doc = json.load(open(path))
    for key in ("kernel_release", "module_dir", "modules", "nodes", "problems", "ok"):
        if key not in doc:
            errors.append(f"missing {key}")
    names = [m["name"] for m in doc.get("modules", [])]
    expect("modules", names, ["neuronprof", "neuronprof_sim"])
    for p in doc.get("problems", []):
        if not p.get("problem") or not p.get("fix"):
            errors.append(f"problem without text or fix: {p}")
    expect("ok", doc.get("ok"), not doc.get("problems"))
    by_path(doc, args)


# What legitimately counts records: summary's queue_records, and the first
# record and record count of a queue (losses, raw_queues, the queues table).
RECORD_FIELDS = ("queue_records", "record", "records")


def without_records(doc):
    if isinstance(doc, dict):
        return {k: without_records(v) for k, v in doc.items() if k not in RECORD_FIELDS}
    if isinstance(doc, list):
        return [without_records(v) for v in doc]
    return doc


def csv_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    keep = [i for i, name in enumerate(rows[0] if rows else []) if name not in RECORD_FIELDS]
    return [[r[i] for i in keep] for r in rows]


def sqlite_tables(path):
    db = sqlite3.connect(path)
    out = {}
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
        cur = db.execute(f"SELECT * FROM {name} ORDER BY rowid")
        keep = [i for i, d in enumerate(cur.description) if d[0] not in RECORD_FIELDS]
        out[name] = [tuple(r[i] for i in keep) for r in cur]
    db.close()
    return out


def first_difference(what, a, b):
    if a == b:
        return
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                errors.append(f"{what}: row {i} differs: {x!r} against {y!r}")
                return
        errors.append(f"{what}: {len(a)} rows against {len(b)}")
    else:
        errors.append(f"{what} differs")


def same(kind, a, b):
    if kind == "summary-json":
        ja, jb = without_records(json.load(open(a))), without_records(json.load(open(b)))
        if ja != jb:
            ta = json.dumps(ja, indent=1).splitlines()
            tb = json.dumps(jb, indent=1).splitlines()
            first_difference("summary JSON lines", ta, tb)
    elif kind == "csv":
        expect("CSV files", sorted(os.listdir(a)), sorted(os.listdir(b)))
        for name in sorted(set(os.listdir(a)) & set(os.listdir(b))):
            first_difference(name, csv_rows(os.path.join(a, name)), csv_rows(os.path.join(b, name)))
    elif kind == "file":
        with open(a, "rb") as fa, open(b, "rb") as fb:
            da, db = fa.read(), fb.read()
        if da != db:
            at = next((i for i, (x, y) in enumerate(zip(da, db)) if x != y), min(len(da), len(db)))
            errors.append(f"{a} and {b} differ from byte {at} ({len(da)} and {len(db)} bytes)")
    elif kind == "sqlite":
        ta, tb = sqlite_tables(a), sqlite_tables(b)
        expect("tables", sorted(ta), sorted(tb))
        for name in sorted(set(ta) & set(tb)):
            first_difference(f"table {name}", ta[name], tb[name])
    else:
        errors.append(f"unknown kind {kind}")


def schema_doc(db, man, rst):
    """The schema as the database has it, against its two documents."""
    import re
    con = sqlite3.connect(db)
    schema = {}
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
                               " ORDER BY name"):
        schema[name] = [r[1] for r in con.execute(f"PRAGMA table_info({name})")]
    con.close()
    # The man page: ".B name" after ".TP" in TABLES and Views, its paragraph
    # running to the next .TP, .SS or .SH.
    lines = open(man).read().split("\n")
    man_cols = {}
    i = 0
    while i < len(lines):
        if lines[i] == ".TP" and i + 1 < len(lines) and lines[i + 1].startswith(".B "):
            name = lines[i + 1][3:].strip()
            j = i + 2
            while j < len(lines) and not re.match(r"^\.(TP|SS|SH)\b", lines[j]):
                j += 1
            para = "\n".join(lines[i + 2:j])
            man_cols[name] = [a or b for a, b in
                              re.findall(r"\\fI(\w+)\\fP|^\.IR? (\w+)", para, re.M)]
            i = j
        else:
            i += 1
    expect("man page tables and views", sorted(man_cols), sorted(schema))
    for name, cols in schema.items():
        if name in man_cols:
            got = [c for c in man_cols[name] if c in cols]
            expect(f"man page columns of {name}", got, cols)
    # The reStructuredText schema table: rows start at column 0 with the
    # table's name ("dma (view)"), continuation lines are indented.
    text = open(rst).read()
    m = re.search(r"^table +rows\n=+ +=+\n(.*?)^=+ +=+$", text, re.S | re.M)
    if not m:
        errors.append(f"{rst}: no schema table")
        return
    rows, cur = {}, None
    for line in m.group(1).split("\n"):
        if line and not line[0].isspace():
            cur = line.split()[0]
            rows[cur] = line[len(cur):]
        elif cur:
            rows[cur] += "\n" + line
    expect("analysis.rst tables and views", sorted(rows), sorted(schema))
    for name, cols in schema.items():
        if name in rows:
            have = set(re.findall(r"``(\w+)``", rows[name]))
            missing = [c for c in cols if c not in have]
            if missing:
                errors.append(f"analysis.rst: {name} does not document {missing}")


def machines(text_path, json_path, csv_dir, db_path, args):
    """summary's machines compared, in its four outputs, against each other."""
    import re
    doc = json.load(open(json_path))["machines_compared"]
    if doc is None:
        errors.append(f"{json_path}: machines_compared is null")
        return
    by_path(doc, args)
    side = lambda s: (s["machine"], s["device"], s["core"], s["latency_ns"])
    jx = [(e["index"], e["cores"], e["machines"]) + side(e["slowest"]) + side(e["fastest"])
          + (e["skew_ns"],) for e in doc["executions"]]
    jm = [(m["name"], m["recordings"], m["cores"], m["executions"], m["execution_ns"],
           m["busy_ns"], m["instructions"], m["dma_bytes"], m["errors"], m["lost"])
          for m in doc["machines"]]
    for o in doc["ops"]:
        if not re.fullmatch(r"0x[0-9a-f]{6,}", o["code"]):
            errors.append(f"JSON op code {o['code']!r} is not spelled 0x000102")
    jo = [(o["op"] or "-", o["code"], o["slowest_count"], o["slowest_total_ns"],
           o["median_count"], o["median_total_ns"], o["difference_ns"]) for o in doc["ops"]]

    # The text (--ns: whole nanoseconds), by its sections.
    lines = open(text_path).read().splitlines()
    head = [l for l in lines if l.startswith("machines compared: ")]
    if len(head) != 1:
        errors.append(f"{text_path}: {len(head)} 'machines compared' lines")
        return
    m = re.match(r"machines compared: (\d+); slowest (\S+), median (\S+) ", head[0])
    expect("text: machines, slowest, median", (num(m[1]), m[2], m[3]),
           (len(doc["machines"]), doc["slowest"], doc["median"]))
    sect, tx, tm, to = None, [], [], []
    for l in lines[lines.index(head[0]) + 1:]:
        if not l.startswith("    "):
            sect = l.strip().split(" ")[1] if l.startswith("  ") else None
            continue
        f = l.split()
        if f[0] in ("machine", "index", "op"):
            continue
        if sect == "machine:":
            tm.append((f[0],) + tuple(num(v) for v in f[1:4]) + (num(f[4]),)
                      + tuple(num(v) for v in f[6:11]))
        elif sect == "execution":
            tx.append((num(f[0]), num(f[1]), None, f[2], num(f[3][3:]), num(f[4][2:]),
                       num(f[5]), f[6], num(f[7][3:]), num(f[8][2:]), num(f[9]), num(f[10])))
        elif sect == "differing":
            to.append((f[0], f[1], num(f[2]), num(f[3]), num(f[4]), num(f[5]), num(f[6])))
    first_difference("text against JSON: executions", tx,
                     [x[:2] + (None,) + x[3:] for x in jx])
    first_difference("text against JSON: machines", tm, jm)
    first_difference("text against JSON: ops", to, jo)

    # The CSV tables.
    rows = {}
    for name in ("machines", "machine_executions", "machine_ops"):
        with open(os.path.join(csv_dir, name + ".csv"), newline="") as f:
            rows[name] = list(csv.DictReader(f))
    cx = [(int(r["index"]), int(r["cores"]), int(r["machines"]), r["slowest_machine"],
           int(r["slowest_device"]), int(r["slowest_core"]), int(r["slowest_ns"]),
           r["fastest_machine"], int(r["fastest_device"]), int(r["fastest_core"]),
           int(r["fastest_ns"]), int(r["skew_ns"])) for r in rows["machine_executions"]]
    cm = [(r["machine"],) + tuple(int(r[k]) for k in (
           "recordings", "cores", "executions", "execution_ns", "busy_ns", "instructions",
           "dma_bytes", "errors", "lost")) for r in rows["machines"]]
    co = [(r["op"] or "-", r["code"]) + tuple(int(r[k]) for k in (
           "slowest_count", "slowest_total_ns", "median_count", "median_total_ns",
           "difference_ns")) for r in rows["machine_ops"]]
    first_difference("CSV against JSON: executions", cx, jx)
    first_difference("CSV against JSON: machines", cm, jm)
    first_difference("CSV against JSON: ops", co, jo)
    flags = [(r["machine"], r["slowest"], r["median"]) for r in rows["machines"]]
    expect("CSV: slowest and median flags", flags,
           [(n, str(int(n == doc["slowest"])), str(int(n == doc["median"])))
            for n, *_ in jm])

    # The SQLite view.
    con = sqlite3.connect(db_path)
    sx = [tuple(r) for r in con.execute(
        "SELECT idx, cores, machines, slowest_machine, slowest_device, slowest_core,"
        " slowest_ns, fastest_machine, fastest_device, fastest_core, fastest_ns, skew_ns"
        " FROM machine_executions ORDER BY idx")]
    con.close()
    first_difference("SQL machine_executions against JSON", sx, jx)


def main():
    cmd, path, *args = sys.argv[1:]
    try:
        if cmd == "dump-json":
            dump_json(path, args)
        elif cmd == "summary-json":
            summary_json(path, args)
        elif cmd == "chrome-json":
            chrome_json(path, args)
        elif cmd == "perfetto":
            perfetto(path, args[0], args[1:])
        elif cmd == "timeline-summary":
            timeline_summary(path, args[0])
        elif cmd == "schema-doc":
            schema_doc(path, args[0], args[1])
        elif cmd == "machines":
            machines(path, args[0], args[1], args[2], args[3:])
        elif cmd == "doctor-json":
            doctor_json(path, args)
        elif cmd == "devices-json":
            summary_json(path, args)
        elif cmd == "same":
            same(path, args[0], args[1])
        else:
            errors.append(f"unknown check {cmd}")
    except (ValueError, KeyError, OSError, sqlite3.Error) as e:
        errors.append(f"{path}: {e!r}")
    for e in errors:
        print(f"# {e}")
    sys.exit(1 if errors else 0)


main()
