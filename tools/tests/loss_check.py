# SPDX-License-Identifier: MIT
"""Loss windows in the timeline exports against `summary --json`
(Documentation/analysis.rst, Loss windows).

The exports are decoded here with no code of the exporter: the Perfetto trace
by Google's protobuf runtime on code protoc generated from
proto/perfetto_trace.proto (Perfetto's field numbers), the Chrome JSON by
Python's json module.

  loss_check.py perfetto TRACE PB2_DIR SUMMARY.json
  loss_check.py chrome TRACE.json SUMMARY.json
      each loss window of summary's cores (its queue, start, end and count)
      is a slice "lost N" with arg lost = N on the track of its queue, and
      nothing else is; the trace's metadata holds the loss totals
  loss_check.py ops SUMMARY.json DUR
      on the --loss fixtures of gen_fixtures, whose every instruction lasts
      DUR ns: no op statistic of any unit takes time across a loss (every
      min, max and average is DUR), and the ops count every instruction but
      the cut ones

Prints what differs ("# ..." lines) and exits 1, or exits 0.
"""
import collections
import importlib
import json
import sys

from checklib import errors, expect, print_errors


def summary_windows(summary_path):
    """(queue type, start, end, lost) of every loss window, and the totals."""
    doc = json.load(open(summary_path))
    wins, cut = [], 0
    lost = gaps = 0
    for rec in doc["recordings"]:
        for c in rec["cores"]:
            for w in c.get("loss_windows", []):
                wins.append((w["queue_type"], w["start_ns"], w["end_ns"], w["lost"]))
            cut += c.get("cut_instructions", 0)
        for l in rec["losses"]:
            lost += l["lost"]
            gaps += l["seq_gaps"]
    totals = {
        "neuronprof_lost_recorded": lost,
        "neuronprof_seq_gaps": gaps,
        "neuronprof_loss_windows": len(wins),
        "neuronprof_lost_in_windows": sum(w[3] for w in wins),
        "neuronprof_cut_instructions": cut,
    }
    if not wins:
        errors.append(f"{summary_path}: no loss window: nothing to compare")
    return sorted(wins), totals


def perfetto(path, pb2_dir, summary_path):
    sys.path.insert(0, pb2_dir)
    pb2 = importlib.import_module("perfetto_trace_pb2")
    trace = pb2.Trace()
    trace.ParseFromString(open(path, "rb").read())
    te = pb2.TrackEvent
    tracks, names, keys = {}, {}, {}
    meta = {}
    open_ = collections.defaultdict(list)
    got = []
    for p in trace.packet:
        if p.HasField("track_descriptor"):
            tracks[p.track_descriptor.uuid] = p.track_descriptor.name
        if p.HasField("interned_data"):
            for n in p.interned_data.event_names:
                names[n.iid] = n.name
            for n in p.interned_data.debug_annotation_names:
                keys[n.iid] = n.name
        if p.HasField("chrome_events"):
            for m in p.chrome_events.metadata:
                meta[m.name] = int(m.string_value)
        if not p.HasField("track_event"):
            continue
        ev = p.track_event
        name = names.get(ev.name_iid) if ev.HasField("name_iid") else ev.name
        if ev.type == te.TYPE_SLICE_BEGIN:
            args = {}
            for d in ev.debug_annotations:
                k = keys.get(d.name_iid) if d.HasField("name_iid") else d.name
                args[k] = d.uint_value if d.HasField("uint_value") else d.string_value
            open_[ev.track_uuid].append((name, p.timestamp, args))
        elif ev.type == te.TYPE_SLICE_END:
            name, ts, args = open_[ev.track_uuid].pop()
            if name.startswith("lost "):
                expect(f"{name} arg lost", f"lost {args.get('lost')}", name)
                got.append((tracks[ev.track_uuid], ts, p.timestamp, args.get("lost")))
    want, totals = summary_windows(summary_path)
    expect(f"{path}: loss windows (track, start, end, lost)", sorted(got), want)
    expect(f"{path}: metadata", meta, totals)


def chrome(path, summary_path):
    doc = json.load(open(path))
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
               if e["ph"] == "M" and e["name"] == "thread_name"}
    got = []
    for e in doc["traceEvents"]:
        if e.get("cat") != "lost":
            continue
        if e["ph"] != "X":
            errors.append(f"loss event of phase {e['ph']}: a window is a slice")
            continue
        expect(f"{e['name']} arg lost", f"lost {e['args']['lost']}", e["name"])
        start = round(float(e["ts"]) * 1000)
        # The track of a queue: "engine 1 (vector) TRACE", "INFER_STATUS".
        got.append((threads[(e["pid"], e["tid"])].split()[-1], start,
                    start + round(float(e["dur"]) * 1000), e["args"]["lost"]))
    want, totals = summary_windows(summary_path)
    expect(f"{path}: loss windows (track, start, end, lost)", sorted(got), want)
    expect(f"{path}: metadata", doc.get("metadata"), totals)


def ops(summary_path, dur):
    doc = json.load(open(summary_path))
    for rec in doc["recordings"]:
        for c in rec["cores"]:
            for u in c["engines"] + c["topsps"]:
                n = sum(o["count"] for o in u["ops"])
                expect(f"core {c['core']} unit {u.get('engine', u.get('topsp'))}: op count",
                       n, u["instructions"] - u.get("cut_instructions", 0))
                for o in u["ops"]:
                    for k in ("min_ns", "avg_ns", "max_ns", "p95_ns"):
                        expect(f"core {c['core']} op {o['code']} {k}", o[k], dur)


def main():
    cmd, *args = sys.argv[1:]
    if cmd == "perfetto":
        perfetto(*args)
    elif cmd == "chrome":
        chrome(*args)
    elif cmd == "ops":
        ops(args[0], int(args[1]))
    else:
        sys.exit(f"loss_check.py: unknown command {cmd}")
    sys.exit(print_errors())


if __name__ == "__main__":
    main()
