# SPDX-License-Identifier: MIT
"""A second, simple computation of `neuronprof summary`, to check the tool's.

It starts from what `neuronprof dump --json` prints for each NTFF file of a
recording (and, for the host part, from ntrace.pb decoded by Google's
protobuf runtime on code generated from proto/system_profile.proto), applies
the timing model of Documentation/analysis.rst written the obvious way
(linear scans, no cursors), and compares every number with `summary --json`.

  summary_check.py recompute SUMMARY.json REC TOP [--ntrace FILE PB2_DIR] DUMP.json...
      REC: index of the recording in SUMMARY.json; TOP: the --top given
  summary_check.py text SUMMARY.json TEXT     TEXT: `summary --ns` of the same path
  summary_check.py csv SUMMARY.json CSV_DIR   CSV_DIR: `summary --csv` of the same path
  summary_check.py sql SUMMARY.json DB QUERIES
      DB: `export --format sqlite` of the same path; QUERIES:
      Documentation/analysis-queries.sql, each query run by the sqlite3 program

Prints what differs ("# ..." lines) and exits 1, or exits 0.
"""
import collections
import csv
import importlib
import json
import re
import os
import sys

from checklib import (check_dist, check_throttle, errors, expect, loss_windows, pct,
                      print_errors, union_ns, windows_of)

QT = {n: i for i, n in enumerate(
    "TRACE EVENT ERROR INFER_STATUS DMA THROTTLE TOPSP_TRACE TOPSP_EVENT TOPSP_ERROR".split())}


CODE_RE = re.compile(r"0x[0-9a-f]{6,}")


def code_of(v, what="code"):
    """A code as every output spells it, "0x000102" (errors_by_code stay numbers)."""
    if isinstance(v, str) and CODE_RE.fullmatch(v):
        return int(v, 16)
    errors.append(f"{what}: {v!r} is not spelled 0x followed by at least six hex digits")
    return None


def strict_codes(obj, path=""):
    """Every op "code" of a document (dump --json, summary --json, query rows) to an
    int, after checking its one spelling; errors_by_code keeps its numbers."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "code" and not path.endswith("errors_by_code"):
                obj[k] = code_of(v, f"{path}.code")
            else:
                strict_codes(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for v in obj:
            strict_codes(v, path)
    return obj


def queues_of(dump):
    """The queues of a file: each one all of its records, entries in file order."""
    queues = {}
    for r in dump["queues"]:
        key = (r["queue_type"], r["target_kind"], r["target_index"], r["engine"])
        if key in queues:
            queues[key]["entries"] = queues[key]["entries"] + r["entries"]
            queues[key]["lost_count"] += r["lost_count"]
        else:
            queues[key] = dict(r, capture=dump["capture"])
    return list(queues.values())


def recompute(summary_path, rec_index, top, rest):
    ntrace = None
    if rest[0] == "--ntrace":
        sys.path.insert(0, rest[2])
        pb2 = importlib.import_module("system_profile_pb2")
        ntrace = pb2.ntrace()
        ntrace.ParseFromString(open(rest[1], "rb").read())
        rest = rest[3:]
    rec = strict_codes(json.load(open(summary_path)))["recordings"][rec_index]
    cores = collections.defaultdict(lambda: dict(queues=[], vcore=None))
    for path in rest:
        d = strict_codes(json.load(open(path)))
        dev = d["device"]
        for q in queues_of(d):
            if q["target_kind"] == "core":
                core = q["target_index"]
            else:
                core = q["target_index"] // (dev["num_topsps"] // dev["num_cores"])
            c = cores[(dev["device_index"], core)]
            c["queues"].append(q)
            if q["queue_type"] == "INFER_STATUS":
                c["vcore"] = d["capture"]["core"]
    expect("cores", len(rec["cores"]), len(cores))
    all_execs = []
    # Ops across cores: every duration of (unit kind, unit, op) on any core.
    xdurs, xcores = collections.defaultdict(list), collections.defaultdict(list)
    for jc in rec["cores"]:
        c = cores[(jc["device"], jc["core"])]
        recs = c["queues"]
        ents = [e for q in recs for e in q["entries"]]
        first, last = min(e["timestamp_ns"] for e in ents), max(e["timestamp_ns"] for e in ents)
        span = last - first
        tag = f"core {jc['core']}"
        expect(f"{tag} entries", jc["entries"], len(ents))
        expect(f"{tag} first_ns", jc["first_ns"], first)
        expect(f"{tag} span_ns", jc["span_ns"], span)
        infs = sorted((p for q in recs if q["queue_type"] == "INFER_STATUS"
                       for p in windows_of(q["entries"], 1, 2)),
                      key=lambda p: p[0]["timestamp_ns"])
        busy = sum(b["timestamp_ns"] - a["timestamp_ns"] for a, b in infs)
        expect(f"{tag} inferences", jc["inferences"], len(infs))
        expect(f"{tag} failed", jc["inferences_failed"], sum(1 for _, b in infs if b["payload"][0]))
        expect(f"{tag} inference_busy_ns", jc["inference_busy_ns"], busy)
        core_iv = []
        # Loss windows of the instruction queues, clipped to the active span.
        lw_all = {}
        for q in recs:
            w = loss_windows(q, q["capture"]["stop_ns"], q["capture"]["start_ns"])
            lw_all[id(q)] = w
        instr_lw = [(max(a, first), min(b, last)) for q in recs
                    if q["queue_type"] in ("TRACE", "TOPSP_TRACE")
                    for a, b, _, _ in lw_all[id(q)] if min(b, last) > max(a, first)]
        lossy_core = any(lw_all[id(q)] for q in recs if q["queue_type"] in ("TRACE", "TOPSP_TRACE"))
        want_lw = [dict(queue_type=q["queue_type"], target_kind=q["target_kind"],
                        target_index=q["target_index"], engine=q["engine"],
                        kind="after_last_entry" if t else "sequence_gap",
                        start_ns=a, end_ns=b, lost=n)
                   for q in recs for a, b, n, t in lw_all[id(q)]]
        got_lw = [{k: w[k] for k in ("queue_type", "target_kind", "target_index", "engine", "kind",
                                     "start_ns", "end_ns", "lost")} for w in jc.get("loss_windows", [])]
        expect(f"{tag} loss windows", sorted(got_lw, key=lambda w: sorted(w.items())),
               sorted(want_lw, key=lambda w: sorted(w.items())))
        core_cut = 0
        # Executions: a new one at iteration 0, a lower iteration or another model.
        execs = []
        for a, b in infs:
            prev = execs[-1] if execs else None
            if (prev is None or a["iteration"] == 0 or a["model_id"] != prev["model"]
                    or a["iteration"] <= prev["last_iter"]):
                prev = dict(start=a["timestamp_ns"], model=a["model_id"], n=0, failed=False,
                            core=jc["core"], dev=jc["device"], vcore=c["vcore"])
                execs.append(prev)
            prev.update(stop=b["timestamp_ns"], last_iter=a["iteration"])
            prev["n"] += 1
            prev["failed"] |= bool(b["payload"][0])
        expect(f"{tag} executions", jc["executions"], len(execs))
        all_execs += execs
        # Idle gaps between inferences, longest first, ties in time order.
        gaps = sorted(((b[0]["timestamp_ns"] - a[1]["timestamp_ns"], a[1]["timestamp_ns"])
                       for a, b in zip(infs, infs[1:]) if b[0]["timestamp_ns"] > a[1]["timestamp_ns"]),
                      key=lambda g: (-g[0], g[1]))[:top]
        expect(f"{tag} idle gaps", [(g["idle_ns"], g["start_ns"]) for g in jc["idle_gaps"]], gaps)

        def unit_windows(topsp, index, bounds=False):
            out = []
            for q in recs:
                if topsp and q["queue_type"] == "TOPSP_EVENT" and q["target_index"] == index or \
                        not topsp and q["queue_type"] == "EVENT" and q["engine"] == index:
                    out += [(a["timestamp_ns"], b["timestamp_ns"])
                            for a, b in windows_of(q["entries"], 1, 2, bounds)]
            return out
        inf_w = [(a["timestamp_ns"], b["timestamp_ns"]) for a, b in infs]

        for topsp, key in ((False, "engines"), (True, "topsps")):
            for ju in jc[key]:
                index = ju["topsp"] if topsp else ju["engine"]
                ut = f"{tag} {'topsp' if topsp else 'engine'} {index}"
                if topsp:
                    mine = [q for q in recs if q["queue_type"].startswith("TOPSP_") and
                            q["target_index"] == index]
                else:
                    mine = [q for q in recs if q["queue_type"] in ("TRACE", "EVENT", "DMA") and
                            q["engine"] == index]
                ev_w = unit_windows(topsp, index)
                bound_w = unit_windows(topsp, index, True)
                durs = collections.defaultdict(list)
                busy_u, igaps, cut, u_lw = 0, [], 0, []
                for q in mine:
                    if q["queue_type"] not in ("TRACE", "TOPSP_TRACE"):
                        continue
                    es = q["entries"]
                    u_lw += lw_all[id(q)]
                    tail_lost = any(t for _, _, _, t in lw_all[id(q)])
                    prev_end = None
                    for i, e in enumerate(es):
                        ts = e["timestamp_ns"]
                        # Cut: the next entry follows a gap, or losses come after the last.
                        if (i + 1 < len(es) and es[i + 1]["seq"] > e["seq"] + 1 or
                                i + 1 == len(es) and tail_lost):
                            cut += 1
                            prev_end = None
                            continue
                        bounds = [s for (b, s) in inf_w + bound_w if b <= ts <= s]
                        nxt = es[i + 1]["timestamp_ns"] if i + 1 < len(es) else None
                        if bounds:
                            end = min(bounds + ([nxt] if nxt is not None else []))
                        else:
                            end = nxt if nxt is not None else ts
                        durs[e["code"]].append(end - ts)
                        busy_u += end - ts
                        core_iv.append((ts, end))
                        if prev_end is not None and ts > prev_end:
                            igaps.append((ts - prev_end, prev_end))
                        prev_end = end
                trace = [e for q in mine if q["queue_type"] in ("TRACE", "TOPSP_TRACE") for e in q["entries"]]
                expect(f"{ut} instructions", ju["instructions"], len(trace))
                core_cut += cut
                observed_u = span - union_ns([(max(a, first), min(b, last)) for a, b, _, _ in u_lw
                                              if min(b, last) > max(a, first)])
                expect(f"{ut} busy_ns", ju["busy_ns"], busy_u)
                expect(f"{ut} utilization_pct", ju["utilization_pct"], pct(busy_u, observed_u))
                expect(f"{ut} observed_ns", ju.get("observed_ns"), observed_u if u_lw else None)
                expect(f"{ut} cut_instructions", ju.get("cut_instructions"), cut if u_lw else None)
                expect(f"{ut} event_busy_ns", ju["event_busy_ns"], sum(s - b for b, s in ev_w))
                if not topsp:
                    dma = [e for q in mine if q["queue_type"] == "DMA" for e in q["entries"]]
                    expect(f"{ut} dma", ju["dma"], len(dma))
                    nbytes = sum(e["payload"][0] for e in dma)
                    expect(f"{ut} dma_bytes", ju["dma_bytes"], nbytes)
                    # Bytes per second of the core's active span (wall time).
                    expect(f"{ut} dma_bytes_per_s", ju["dma_bytes_per_s"],
                           nbytes * 10**9 // span if span else 0)
                igaps = sorted(igaps, key=lambda g: (-g[0], g[1]))[:top]
                expect(f"{ut} idle gaps", [(g["idle_ns"], g["start_ns"]) for g in ju["idle_gaps"]], igaps)
                expect(f"{ut} ops", sorted(o["code"] for o in ju["ops"]), sorted(durs))
                for code, vals in durs.items():
                    xk = ("topsp" if topsp else "engine", index, code)
                    xdurs[xk] += vals
                    xcores[xk].append((jc["device"], jc["core"]))
                for o in ju["ops"]:
                    vals = durs.get(o["code"], [])
                    check_dist(f"{ut} op {o['code']:#x}", o, vals)
                    expect(f"{ut} op {o['code']:#x} busy_pct", o["busy_pct"], pct(sum(vals), busy_u))
                totals = [o["total_ns"] for o in ju["ops"]]
                if totals != sorted(totals, reverse=True):
                    errors.append(f"{ut}: ops not sorted by total time")
        # Busy: the time any unit executes, the union of the instructions.
        # Over observed time: the union less the loss windows of the instruction queues.
        lost_ns = union_ns(instr_lw)
        cbusy = union_ns(core_iv + instr_lw) - lost_ns
        expect(f"{tag} busy_ns", jc["busy_ns"], cbusy)
        expect(f"{tag} utilization_pct", jc["utilization_pct"], pct(cbusy, span - lost_ns))
        expect(f"{tag} observed_ns", jc.get("observed_ns"), span - lost_ns if lossy_core else None)
        expect(f"{tag} cut_instructions", jc.get("cut_instructions"),
               core_cut if lossy_core else None)
        # Throttle: a level holds until the next THROTTLE entry, the last until the core's last entry.
        check_throttle(tag, jc["throttle"],
                       sorted((e["timestamp_ns"], e["code"]) for q in recs
                              if q["queue_type"] == "THROTTLE" for e in q["entries"]), last)
        errs = collections.defaultdict(list)
        for q in recs:
            if q["queue_type"] in ("ERROR", "TOPSP_ERROR"):
                for e in q["entries"]:
                    errs[e["code"]].append(e["timestamp_ns"])
        expect(f"{tag} errors_by_code", [(x["code"], x["count"], x["first_ns"]) for x in jc["errors_by_code"]],
               [(k, len(v), min(v)) for k, v in sorted(errs.items())])
    # Host calls: the nrt_execute of the same core and model within which an execution starts.
    jx = rec["ops_across_cores"]
    expect("ops across cores", sorted((x["unit_kind"], x["unit_index"], x["code"]) for x in jx),
           sorted(xdurs))
    for x in jx:
        xk = (x["unit_kind"], x["unit_index"], x["code"])
        check_dist(f"op across cores {xk}", x, xdurs.get(xk, []))
        expect(f"op across cores {xk} cores", [(c["device"], c["core"]) for c in x["cores"]],
               sorted(xcores.get(xk, [])))
    if [x["total_ns"] for x in jx] != sorted((x["total_ns"] for x in jx), reverse=True):
        errors.append("ops across cores not sorted by total time")
    host = []
    if ntrace is not None:
        host = [e for e in ntrace.events if e.name == "nrt_execute" and e.HasField("core_index")]
        all_execs.sort(key=lambda x: (x["dev"], x["core"], x["start"]))
        for h in host:
            for x in sorted(all_execs, key=lambda x: x["start"]):
                if (x["vcore"] == h.core_index and "host" not in x and
                        h.start_ns <= x["start"] <= h.end_ns and
                        (not h.HasField("model_id") or h.model_id == x["model"])):
                    x["host"] = h
                    break
        by_name = collections.defaultdict(list)
        for e in ntrace.events:
            by_name[e.name or "event"].append(max(0, e.end_ns - e.start_ns))
        jh = rec["host"]
        expect("host events", jh["events"], len(ntrace.events))
        expect("host nrt_execute_calls", jh["nrt_execute_calls"], len(host))
        expect("host types", [t["name"] for t in jh["event_types"]], sorted(by_name))
        for t in jh["event_types"]:
            check_dist(f"host {t['name']}", t, by_name[t["name"]])
    else:
        expect("host", rec["host"], None)
    jx = {(x["device"], x["core"], x["start_ns"]): x for x in rec["executions"]}
    expect("executions", len(jx), len(all_execs))
    for x in all_execs:
        j = jx.get((x["dev"], x["core"], x["start"]))
        if j is None:
            errors.append(f"execution at {x['start']} missing")
            continue
        expect(f"execution {x['start']} latency", j["latency_ns"], x["stop"] - x["start"])
        expect(f"execution {x['start']} iterations", j["iterations"], x["n"])
        h = x.get("host")
        if h is None:
            expect(f"execution {x['start']} host_call", j["host_call"], None)
        elif j["host_call"] is None:
            errors.append(f"execution {x['start']}: no host call, expected the one at {h.start_ns}")
        else:
            expect(f"execution {x['start']} host before_ns", j["host_call"]["before_ns"],
                   x["start"] - h.start_ns)
            expect(f"execution {x['start']} host after_ns", j["host_call"]["after_ns"],
                   max(0, h.end_ns - x["stop"]))
    models = collections.defaultdict(list)
    for x in all_execs:
        models[x["model"]].append(x)
    expect("models", [m["model_id"] for m in rec["models"]], sorted(models))
    for m in rec["models"]:
        xs = models[m["model_id"]]
        check_dist(f"model {m['model_id']} latency", m["latency"], [x["stop"] - x["start"] for x in xs])
        expect(f"model {m['model_id']} failed", m["failed"], sum(1 for x in xs if x["failed"]))
        hs = [x for x in xs if "host" in x]
        expect(f"model {m['model_id']} host_matched", m["host_matched"], len(hs))
        check_dist(f"model {m['model_id']} host_call", m["host_call"],
                   [x["host"].end_ns - x["host"].start_ns for x in hs])


def cores_label(cores):
    """The text's cores column: runs of consecutive cores, "dev:" when several devices."""
    devs = len({c["device"] for c in cores}) > 1
    out, i = [], 0
    while i < len(cores):
        j = i
        while (j + 1 < len(cores) and cores[j + 1]["device"] == cores[j]["device"] and
               cores[j + 1]["core"] == cores[j]["core"] + 1):
            j += 1
        run = f"{cores[i]['core']}-{cores[j]['core']}" if j > i else f"{cores[i]['core']}"
        out.append(f"{cores[i]['device']}:{run}" if devs else run)
        i = j + 1
    return ",".join(out)


def num(v):
    """A number of the text: a count, or a duration in whole nanoseconds,
    which --ns prints with its unit ("4400ns")."""
    return int(v[:-2]) if v.endswith("ns") else int(v)


# The text's recording-wide sections: how a heading starts, the section.
TEXT_HEADINGS = (("execution latency", "execution"), ("longest executions", "execlist"),
                 ("host system trace", "host"), ("ops across cores", "xops"))


def text(summary_path, text_path):
    """Every table row of `summary --ns` against the JSON."""
    doc = strict_codes(json.load(open(summary_path)))
    lines = open(text_path).read().splitlines()
    recs = [l for l in lines if l.startswith("recording ")]
    expect("recordings in text", len(recs), len(doc["recordings"]))
    ri = -1
    core = None
    section = None
    xrows = {}
    for line in lines:
        if line.startswith("recording "):
            ri += 1
            rec = doc["recordings"][ri]
            expect("recording path", line.split(":")[0][len("recording "):], rec["path"])
            continue
        heading = next((s for h, s in TEXT_HEADINGS if line.startswith(h)), None)
        if heading:
            section = heading
            continue
        if line.startswith("cores (") and line.endswith(":"):
            section = "brief"
            continue
        if line.startswith("device "):
            cidx = num(line.split("NeuronCore ")[1].split(":")[0])
            core = next(c for c in rec["cores"] if c["core"] == cidx)
            section = None
            continue
        if line.startswith("  inferences "):
            w = line.replace(",", "").replace("(", "").replace("%", "").split()
            expect("text inferences", num(w[1]), core["inferences"])
            expect("text executions", num(w[5]), core["executions"])
            expect("text busy", num(w[7]), core["busy_ns"])
            expect("text utilisation", float(w[9]), core["utilization_pct"])
            continue
        if line.endswith(":") and line.startswith("  "):
            section = line.strip().split()[0]
            continue
        if not line.startswith("    ") and not line.startswith("  "):
            section = None
            continue
        w = line.split()
        if not w or w[0] in ("unit", "level", "code", "model", "device", "event"):
            continue

        def unit_of(label):
            if label.startswith("topsp"):
                return next(u for u in core["topsps"] if u["topsp"] == num(label[5:]))
            return next(u for u in core["engines"] if u["engine"] == num(label.split(":")[0]))
        if section == "engines" and line.startswith("    "):
            u = unit_of(w[0])
            expect(f"text {w[0]} util", float(w[1].rstrip("%")), u["utilization_pct"])
            expect(f"text {w[0]} busy", num(w[2]), u["busy_ns"])
            expect(f"text {w[0]} instr", num(w[3]), u["instructions"])
            if "dma" in u:
                expect(f"text {w[0]} dma_bytes", num(w[7]), u["dma_bytes"])
                expect(f"text {w[0]} dma_bytes_per_s", num(w[8]), u["dma_bytes_per_s"])
        elif section == "top" and line.startswith("    "):
            u = unit_of(w[0])
            o = next(o for o in u["ops"] if o["code"] == code_of(w[2]))
            got = [w[1]] + [num(x) for x in w[3:9]] + [float(w[9].rstrip("%"))]
            want = [o["op"] or "-", o["count"], o["total_ns"], o["avg_ns"], o["median_ns"],
                    o["p95_ns"], o["max_ns"], o["busy_pct"]]
            expect(f"text op {w[0]} {w[2]}", got, want)
        elif section == "longest" and line.startswith("    "):
            src = core if w[0] == "core" else unit_of(w[0])
            if not any(g["idle_ns"] == num(w[1]) and g["at_ns"] == num(w[2])
                       for g in src["idle_gaps"]):
                errors.append(f"text idle gap {line.strip()} not in the JSON")
        elif section == "throttling" and line.startswith("    "):
            t = next(t for t in core["throttle"] if t["level"] == num(w[0]))
            expect(f"text throttle {w[0]}", [num(w[1]), num(w[2]), float(w[3].rstrip("%"))],
                   [t["events"], t["time_ns"], t["span_pct"]])
        elif section == "errors" and line.startswith("    "):
            e = next(e for e in core["errors_by_code"] if e["code"] == num(w[0]))
            expect(f"text error {w[0]}", num(w[1]), e["count"])
        elif section == "xops" and not line.startswith("   "):
            topsp = w[0].startswith("topsp")
            idx = num(w[0][5:]) if topsp else num(w[0].split(":")[0])
            x = next(x for x in rec["ops_across_cores"]
                     if x["unit_kind"] == ("topsp" if topsp else "engine") and
                     x["unit_index"] == idx and x["code"] == code_of(w[2]))
            got = [w[1]] + [num(v) for v in w[3:8]] + [w[8]]
            want = [x["op"] or "-", x["count"], x["total_ns"], x["avg_ns"], x["median_ns"],
                    x["p95_ns"], cores_label(x["cores"])]
            expect(f"text op across cores {w[0]} {w[2]}", got, want)
            xrows[ri] = xrows.get(ri, 0) + 1
        elif section == "brief" and w[0] == "LOSSES:":
            # "LOSSES: device D core C: ... only, OBSERVED of the SPAN span; N instruction(s) cut"
            m = re.match(r"  LOSSES: device (\d+) core (\d+): busy and utilisation over "
                         r"observed time only, (\d+)ns of the (\d+)ns span; (\d+) instructions? "
                         r"cut by a loss$", line)
            c = m and next(c for c in rec["cores"] if c["device"] == int(m.group(1)) and
                           c["core"] == int(m.group(2)))
            if not c:
                errors.append(f"text: {line!r}")
            else:
                expect(f"text brief losses core {c['core']}",
                       [int(m.group(k)) for k in (3, 4, 5)],
                       [c.get("observed_ns"), c["span_ns"], c.get("cut_instructions")])
        elif section == "brief" and not line.startswith("   "):
            c = next(c for c in rec["cores"] if c["device"] == num(w[0]) and
                     c["core"] == num(w[1]))
            got = [num(w[2]), num(w[3]), num(w[4]), num(w[5]), float(w[6].rstrip("%")),
                   num(w[7]), num(w[8]), num(w[9]), num(w[10])]
            want = [c["entries"], c["inferences"], c["executions"], c["busy_ns"],
                    c["utilization_pct"], c["inference_busy_ns"], c["throttle_events"],
                    c["lost"], c["seq_gaps"]]
            expect(f"text brief core {w[0]}/{w[1]}", got, want)
        elif line.startswith("  ") and not line.startswith("   ") and section in ("execution", "host"):
            if section == "execution":
                m = next(m for m in rec["models"] if m["model_id"] == num(w[1]))
                got = [w[0]] + [num(x) for x in w[2:9]]
                want = [m["model"] or "-", m["latency"]["count"], m["failed"],
                        m["latency"]["min_ns"], m["latency"]["avg_ns"],
                        m["latency"]["median_ns"], m["latency"]["p99_ns"],
                        m["latency"]["max_ns"]]
                expect(f"text model {w[1]}", got, want)
            else:
                t = next(t for t in rec["host"]["event_types"] if t["name"] == w[0])
                got = [num(x) for x in w[1:7]]
                want = [t["count"], t["total_ns"], t["avg_ns"], t["median_ns"], t["p99_ns"],
                        t["max_ns"]]
                expect(f"text host {w[0]}", got, want)
        elif section == "execlist":
            x = next(x for x in rec["executions"] if x["device"] == num(w[0]) and
                     x["core"] == num(w[1]) and x["index"] == num(w[4]))
            expect(f"text execution {w[0]}/{w[1]}/{w[4]} model", (w[2], num(w[3])),
                   (x["model"] or "-", x["model_id"]))
            expect(f"text execution {w[0]}/{w[1]}/{w[4]} latency", num(w[6]), x["latency_ns"])


def csv_check(summary_path, csv_dir):
    """Every CSV table against the JSON."""
    doc = strict_codes(json.load(open(summary_path)))
    rows = {}
    for name in ("cores", "units", "ops", "idle_gaps", "throttle", "errors", "models",
                 "executions", "host_events", "losses", "ops_across_cores", "loss_windows",
                 "observed"):
        with open(os.path.join(csv_dir, name + ".csv"), newline="") as f:
            rows[name] = list(csv.DictReader(f))
    want = collections.Counter()
    for rec in doc["recordings"]:
        for c in rec["cores"]:
            want["cores"] += 1
            r = next(r for r in rows["cores"] if r["recording"] == rec["path"] and
                     int(r["core"]) == c["core"] and int(r["device"]) == c["device"])
            for k in ("entries", "busy_ns", "span_ns", "inferences", "executions", "errors", "lost",
                      "inference_busy_ns"):
                expect(f"csv core {c['core']} {k}", int(r[k]), c[k])
            expect(f"csv core {c['core']} utilization_pct", float(r["utilization_pct"]), c["utilization_pct"])
            lw_keys = ("queue_type", "target_kind", "target_index", "engine", "kind", "start_ns",
                       "end_ns", "lost")
            want["loss_windows"] += len(c.get("loss_windows", []))
            expect(f"csv core {c['core']} loss windows",
                   sorted([str(r[k]) for k in lw_keys] for r in rows["loss_windows"]
                          if r["recording"] == rec["path"] and int(r["core"]) == c["core"] and
                          int(r["device"]) == c["device"]),
                   sorted([str(w[k]) for k in lw_keys] for w in c.get("loss_windows", [])))
            want["idle_gaps"] += len(c["idle_gaps"])
            want["throttle"] += len(c["throttle"])
            want["errors"] += len(c["errors_by_code"])
            for kind, key in (("engine", "engines"), ("topsp", "topsps")):
                for u in c[key]:
                    want["units"] += 1
                    want["idle_gaps"] += len(u["idle_gaps"])
                    idx = u[kind]
                    r = next(r for r in rows["units"] if r["recording"] == rec["path"] and
                             int(r["core"]) == c["core"] and r["unit"] == kind and int(r["index"]) == idx)
                    for k in ("instructions", "busy_ns", "event_busy_ns"):
                        expect(f"csv {kind} {idx} {k}", int(r[k]), u[k])
                    expect(f"csv {kind} {idx} utilization_pct", float(r["utilization_pct"]), u["utilization_pct"])
                    # observed.csv: every unit; its observed time is the span without losses.
                    want["observed"] += 1
                    r = next(r for r in rows["observed"] if r["recording"] == rec["path"] and
                             int(r["core"]) == c["core"] and r["unit"] == kind and int(r["index"]) == idx)
                    expect(f"csv observed {kind} {idx}",
                           (int(r["observed_ns"]), int(r["cut_instructions"]), r["utilization_over"],
                            int(r["busy_ns"]), float(r["utilization_pct"])),
                           (u.get("observed_ns", c["span_ns"]),
                            u.get("cut_instructions", 0),
                            "observed" if "observed_ns" in u else "span", u["busy_ns"],
                            u["utilization_pct"]))
                    for o in u["ops"]:
                        want["ops"] += 1
                        r = next(r for r in rows["ops"] if r["recording"] == rec["path"] and
                                 int(r["core"]) == c["core"] and r["unit"] == kind and
                                 int(r["index"]) == idx and code_of(r["code"]) == o["code"])
                        expect(f"csv op {o['code']} op", r["op"], o["op"] or "")
                        for k in ("count", "total_ns", "min_ns", "avg_ns", "median_ns", "p95_ns", "max_ns"):
                            expect(f"csv op {o['code']} {k}", int(r[k]), o[k])
                        expect(f"csv op {o['code']} busy_pct", float(r["busy_pct"]), o["busy_pct"])
        for m in rec["models"]:
            want["models"] += 1
            r = next(r for r in rows["models"] if r["recording"] == rec["path"] and
                     int(r["model_id"]) == m["model_id"])
            expect(f"csv model {m['model_id']} name", r["model"], m["model"] or "")
            expect(f"csv model {m['model_id']} p99", int(r["p99_ns"]), m["latency"]["p99_ns"])
            expect(f"csv model {m['model_id']} count", int(r["count"]), m["latency"]["count"])
        for x in rec["executions"]:
            want["executions"] += 1
            r = next(r for r in rows["executions"] if r["recording"] == rec["path"] and
                     int(r["core"]) == x["core"] and int(r["start_ns"]) == x["start_ns"])
            expect(f"csv execution {x['start_ns']} latency", int(r["latency_ns"]), x["latency_ns"])
            expect(f"csv execution {x['start_ns']} host", r["before_ns"] or None,
                   str(x["host_call"]["before_ns"]) if x["host_call"] else None)
        if rec["host"]:
            for t in rec["host"]["event_types"]:
                want["host_events"] += 1
                r = next(r for r in rows["host_events"] if r["recording"] == rec["path"] and
                         r["name"] == t["name"])
                expect(f"csv host {t['name']} total", int(r["total_ns"]), t["total_ns"])
        want["losses"] += len(rec["losses"])
        for x in rec["ops_across_cores"]:
            want["ops_across_cores"] += 1
            r = next(r for r in rows["ops_across_cores"] if r["recording"] == rec["path"] and
                     r["unit"] == x["unit_kind"] and int(r["index"]) == x["unit_index"] and
                     code_of(r["code"]) == x["code"])
            expect(f"csv op across cores {x['code']} op", r["op"], x["op"] or "")
            for k in ("count", "total_ns", "min_ns", "avg_ns", "median_ns", "p95_ns", "p99_ns",
                      "max_ns"):
                expect(f"csv op across cores {x['code']} {k}", int(r[k]), x[k])
            expect(f"csv op across cores {x['code']} cores", r["cores"],
                   ";".join(f"{c['device']}:{c['core']}" for c in x["cores"]))
    for name, n in want.items():
        expect(f"csv {name}.csv rows", len(rows[name]), n)


def sql_check(summary_path, db, queries):
    """Every query of the documentation, run by sqlite3, against the JSON."""
    import re
    import subprocess
    doc = strict_codes(json.load(open(summary_path)))
    parts = re.split(r"^-- query: (\w+)\n", open(queries).read(), flags=re.M)
    rows = {}
    for name, body in zip(parts[1::2], parts[2::2]):
        r = subprocess.run(["sqlite3", "-json", db], input=body, capture_output=True, text=True)
        if r.returncode:
            errors.append(f"query {name}: {r.stderr.strip()}")
            return
        rows[name] = json.loads(r.stdout) if r.stdout.strip() else []
        if name == "ops":
            strict_codes(rows[name])
    want = collections.Counter()

    def one(table, **key):
        got = [r for r in rows[table] if all(r[k] == v for k, v in key.items())]
        if len(got) != 1:
            errors.append(f"{table} {key}: {len(got)} rows")
            return None
        return got[0]

    def same(what, row, obj, keys):
        for k in keys:
            expect(f"{what} {k}", row[k] if not isinstance(obj[k], float) else float(row[k]), obj[k])

    for rec in doc["recordings"]:
        rp = rec["path"]
        for c in rec["cores"]:
            want["cores"] += 1
            tag = f"{rp} core {c['core']}"
            r = one("cores", recording=rp, device=c["device"], core=c["core"])
            if r:
                same(tag, r, c, ("entries", "first_ns", "last_ns", "span_ns", "inferences",
                                 "inferences_failed", "busy_ns", "utilization_pct", "executions"))
                expect(f"{tag} observed_ns", r["observed_ns"], c.get("observed_ns"))
            lw_keys = ("queue_type", "target_kind", "target_index", "engine", "kind", "start_ns",
                       "end_ns", "lost")
            want["loss_windows"] += len(c.get("loss_windows", []))
            expect(f"{tag} loss windows",
                   sorted([r[k] for k in lw_keys] for r in rows["loss_windows"]
                          if r["recording"] == rp and r["device"] == c["device"] and
                          r["core"] == c["core"]),
                   sorted([w[k] for k in lw_keys] for w in c.get("loss_windows", [])))
            gap_keys = ("start_ns", "end_ns", "idle_ns", "at_ns")

            def gaps(what, got_rows, jgaps):
                want["idle_gaps"] += len(jgaps)
                got_rows = sorted(got_rows, key=lambda r: r["rank"])
                expect(f"{what} idle gaps", [[r[k] for k in gap_keys] for r in got_rows],
                       [[g[k] for k in gap_keys] for g in jgaps])
            gaps(tag, [r for r in rows["idle_gaps"] if r["recording"] == rp and
                       r["device"] == c["device"] and r["core"] == c["core"] and
                       r["unit_kind"] == "core"], c["idle_gaps"])
            for kind, key in (("engine", "engines"), ("topsp", "topsps")):
                for u in c[key]:
                    want["units"] += 1
                    ut = f"{tag} {kind} {u[kind]}"
                    gaps(ut, [r for r in rows["idle_gaps"] if r["recording"] == rp and
                              r["device"] == c["device"] and r["core"] == c["core"] and
                              r["unit_kind"] == kind and r["unit_index"] == u[kind]],
                         u["idle_gaps"])
                    r = one("units", recording=rp, device=c["device"], core=c["core"],
                            unit_kind=kind, unit_index=u[kind])
                    if r:
                        same(ut, r, u, ("instructions", "busy_ns", "utilization_pct"))
                        for k in ("observed_ns", "cut_instructions"):
                            expect(f"{ut} {k}", r[k], u.get(k))
                    if kind == "engine" and u["dma"]:
                        want["dma"] += 1
                        r = one("dma", recording=rp, device=c["device"], core=c["core"], engine=u["engine"])
                        if r:
                            expect(f"{ut} dma", (r["transfers"], r["bytes"]), (u["dma"], u["dma_bytes"]))
                    for o in u["ops"]:
                        want["ops"] += 1
                        r = one("ops", recording=rp, device=c["device"], core=c["core"],
                                unit_kind=kind, unit_index=u[kind], code=o["code"])
                        if r:
                            same(f"{ut} op {o['code']:#x}", r, o, ("op", "count", "total_ns", "min_ns",
                                                                 "avg_ns", "median_ns", "p95_ns", "max_ns",
                                                                 "busy_pct"))
            for t in c["throttle"]:
                want["throttle"] += 1
                r = one("throttle", recording=rp, device=c["device"], core=c["core"], level=t["level"])
                if r:
                    same(f"{tag} throttle {t['level']}", r, t, ("events", "time_ns"))
            for e in c["errors_by_code"]:
                want["errors"] += 1
                r = one("errors", recording=rp, device=c["device"], core=c["core"], code=e["code"])
                if r:
                    same(f"{tag} error {e['code']}", r, e, ("count", "first_ns"))
        for m in rec["models"]:
            want["models"] += 1
            r = one("models", recording=rp, model_id=m["model_id"])
            if r:
                same(f"{rp} model {m['model_id']}", r, m["latency"],
                     ("count", "min_ns", "avg_ns", "median_ns", "p99_ns", "max_ns"))
                same(f"{rp} model {m['model_id']}", r, m, ("model", "failed", "host_matched"))
        for x in rec["executions"]:
            want["executions"] += 1
            r = one("executions", recording=rp, device=x["device"], core=x["core"], index=x["index"])
            if r:
                same(f"{rp} execution {x['core']}/{x['index']}", r, x,
                     ("model_id", "start_ns", "latency_ns", "iterations"))
                h = x["host_call"] or {}
                expect(f"{rp} execution {x['core']}/{x['index']} host",
                       (r["before_ns"], r["after_ns"]), (h.get("before_ns"), h.get("after_ns")))
        for lo in rec["losses"]:
            want["losses"] += 1
            r = one("losses", recording=rp, file=lo["file"], record=lo["record"])
            if r:
                same(f"{rp} loss {lo['file']} record {lo['record']}", r, lo,
                     ("records", "queue_type", "target_kind", "target_index", "engine", "lost",
                      "seq_gaps"))
                expect(f"{rp} loss {lo['file']} record {lo['record']} explained",
                       bool(r["explained"]), lo["explained"])
        for rq in rec.get("raw_queues", []):
            want["raw_queues"] += 1
            r = one("raw_queues", recording=rp, file=rq["file"], record=rq["record"])
            if r:
                same(f"{rp} raw queue {rq['file']} record {rq['record']}", r, rq,
                     ("records", "queue_type", "target_kind", "target_index", "engine", "device",
                      "core", "format", "clock_domain", "entries", "device_entries", "lost",
                      "seq_gaps"))
        for t in (rec["host"] or {}).get("event_types", []):
            want["host_events"] += 1
            r = one("host_events", recording=rp, name=t["name"])
            if r:
                same(f"{rp} host {t['name']}", r, t,
                     ("count", "total_ns", "min_ns", "avg_ns", "median_ns", "p99_ns", "max_ns"))
    for name, got in rows.items():
        expect(f"rows of query {name}", len(got), want[name])


def main():
    cmd, path, *args = sys.argv[1:]
    try:
        if cmd == "recompute":
            recompute(path, int(args[0]), int(args[1]), args[2:])
        elif cmd == "text":
            text(path, args[0])
        elif cmd == "csv":
            csv_check(path, args[0])
        elif cmd == "sql":
            sql_check(path, args[0], args[1])
        else:
            errors.append(f"unknown check {cmd}")
    except (ValueError, KeyError, OSError, StopIteration, IndexError) as e:
        errors.append(f"{path}: {e!r}")
    sys.exit(print_errors())


main()
