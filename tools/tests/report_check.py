# SPDX-License-Identifier: MIT
"""Checks of `neuronprof report` pages against `summary --json` and `dump --json`.

  report_check.py data REPORT.html SUMMARY.json TOP
      the data the page embeds (<script type="application/json"
      id="report-data">) equals summary --json --top TOP of the same path on
      every field a plot or table shows (every member of summary's models,
      losses and raw queues); bucket series add up to the totals;
      histograms hold every execution in the bin its latency falls in; the
      longest idle gaps of each core and unit are summary's, field by field;
      the SVG drawn by the tool (op bars, histogram bins, idle gap boxes at
      their start, one timeline per core) carries the same numbers; with
      several recordings, the panels side by side (busy time and
      utilisation per core, latency per model) hold summary's numbers of
      each, on one axis per plot, each bar or box where they put it; the
      errors by code of each core and in total are summary's counts (the
      table is there, or "No errors" is said; the error queues' losses
      are said); every op and model label fits its column, or ends in an
      ellipsis with the whole label in its tooltip
  report_check.py buckets REPORT.html REC DUMP.json...
      the busy time per bucket of every engine and TopSP of recording REC,
      recomputed from dump --json of its files with the timing model of
      Documentation/analysis.rst written the obvious way
  report_check.py dom DOM.html REPORT.html
      DOM.html: what a browser made of REPORT.html (chromium --dump-dom):
      the script ran, and every table holds one row per element of the data
      (the errors table: its device, core, code, name, count and lost cells)

Prints what differs ("# ..." lines) and exits 1, or exits 0.
"""
import collections
import html.parser
import json
import re
import sys

from checklib import errors, expect, print_errors, windows_of


class Page(html.parser.HTMLParser):
    """The data block, the SVG elements and the table containers of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.data = None
        self.in_data = False
        self.text = []
        self.elems = []          # (tag, attrs) of every element
        self.tbl = None          # attrs of the div.tbl being read
        self.tables = []         # (attrs, rows in its tbody)
        self.in_tbody = False
        self.body = {}
        self.svg = None          # attrs of the svg being read
        self.in_svg = []         # (tag, attrs, attrs of its svg) of every element in an svg
        self.raw = ""
        self.said = {}           # ("noerrors"|"errlost", recording): count or data-lost
        self.section = -1
        self.cells = []          # per table (as tables): its rows' cell texts
        self.td = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elems.append((tag, a))
        if tag == "svg":
            self.svg = a
        elif self.svg is not None:
            self.in_svg.append((tag, a, self.svg))
        if tag == "body":
            self.body = a
        if tag == "section" and a.get("id", "").startswith("r"):
            self.section = int(a["id"][1:])
        cls = a.get("class", "").split()
        if tag == "p" and "noerrors" in cls:
            k = ("noerrors", self.section)
            self.said[k] = self.said.get(k, 0) + 1
        if tag == "p" and "errlost" in cls:
            self.said[("errlost", self.section)] = a.get("data-lost")
        if tag == "td" and self.in_tbody and self.tbl is not None:
            self.td = []
        if tag == "script" and a.get("id") == "report-data":
            self.in_data = True
        if tag == "div" and "tbl" in a.get("class", "").split():
            self.tbl = [a, 0]
            self.tables.append(self.tbl)
            self.cells.append([])
        if tag == "tbody":
            self.in_tbody = True
        if tag == "tr" and self.in_tbody and self.tbl is not None:
            self.tbl[1] += 1
            self.cells[-1].append([])

    def handle_endtag(self, tag):
        if tag == "td" and self.td is not None:
            self.cells[-1][-1].append("".join(self.td))
            self.td = None
        if tag == "svg":
            self.svg = None
        if tag == "script" and self.in_data:
            self.in_data = False
            self.data = json.loads("".join(self.text))
        if tag == "tbody":
            self.in_tbody = False
        if tag == "div":
            self.tbl = None if not self.in_tbody else self.tbl

    def handle_data(self, d):
        if self.td is not None:
            self.td.append(d)
        if self.in_data:
            self.text.append(d)


def load_page(path):
    p = Page()
    p.raw = open(path, encoding="utf-8").read()
    p.feed(p.raw)
    p.close()
    if p.data is None:
        errors.append(f"{path}: no report-data block")
    return p


def units(c):
    return c["engines"] + c["topsps"]


CORE_FIELDS = ("device", "core", "entries", "first_ns", "last_ns", "span_ns", "busy_ns",
               "utilization_pct", "inference_busy_ns",
               "inferences", "executions", "errors", "max_throttle_level",
               "lost", "seq_gaps")
UNIT_FIELDS = ("instructions", "busy_ns", "utilization_pct", "dma_bytes", "dma_bytes_per_s", "lost",
               "seq_gaps")
OP_FIELDS = ("op", "code", "count", "total_ns", "median_ns", "p95_ns", "max_ns", "busy_pct")
DIST_FIELDS = ("count", "total_ns", "min_ns", "avg_ns", "median_ns", "p99_ns", "max_ns")


def hist_want(vals):
    if not vals:
        return dict(lo_ns=0, bin_ns=0, counts=[])
    lo, hi = min(vals), max(vals)
    nb = min(len(vals), 20)
    w = (hi - lo) // nb + 1
    counts = [0] * nb
    for v in vals:
        counts[(v - lo) // w] += 1
    return dict(lo_ns=lo, bin_ns=w, counts=counts)


def data(report, summary, top):
    page = load_page(report)
    d, s = page.data, json.load(open(summary))
    if d is None:
        return
    expect("recordings", [r["path"] for r in d["recordings"]],
           [r["path"] for r in s["recordings"]])
    svg_ops = [a for t, a in page.elems if t == "rect" and a.get("class") == "op"]
    svg_bins = [a for t, a in page.elems if t == "rect" and a.get("class") == "bin"]
    svg_tl = [a for t, a in page.elems if t == "svg" and a.get("class") == "timeline"]
    svg_idle = [a for t, a in page.elems if t == "rect" and a.get("class") == "idle"]
    want_ops, want_bins, want_tl, want_idle, want_idle_x = [], [], [], [], []
    for ri, (dr, sr) in enumerate(zip(d["recordings"], s["recordings"])):
        rt = f"recording {sr['path']}"
        expect(f"{rt} files", dr["files"], sr["files"])
        expect(f"{rt} entries", dr["entries"], sr["entries"])
        expect(f"{rt} raw_entries", dr["raw_entries"], sr["raw_entries"])
        expect(f"{rt} cores", len(dr["cores"]), len(sr["cores"]))
        for dc, sc in zip(dr["cores"], sr["cores"]):
            ct = f"{rt} device {sc['device']} core {sc['core']}"
            for k in CORE_FIELDS:
                expect(f"{ct} {k}", dc[k], sc[k])
            want_tl.append((str(sc["device"]), str(sc["core"]), str(dc["buckets"])))
            # The longest idle gaps: summary's, every field, in its order.
            expect(f"{ct} idle gaps", dc["idle_gaps"], sc["idle_gaps"])
            idle_units = [("core", sc["idle_gaps"])]
            nb, w = dc["buckets"], dc["bucket_ns"]
            expect(f"{ct} buckets cover the span", nb * w > sc["span_ns"], True)
            expect(f"{ct} bucket count", nb <= d["bucket_limit"], True)
            for key in ("seq_gaps_by_bucket", "executions_by_bucket", "throttle_level_by_bucket"):
                expect(f"{ct} {key} length", len(dc[key]), nb)
            expect(f"{ct} seq gaps over the buckets", sum(dc["seq_gaps_by_bucket"]), sc["seq_gaps"])
            expect(f"{ct} executions over the buckets", sum(dc["executions_by_bucket"]),
                   sc["executions"])
            expect(f"{ct} highest throttle level over the buckets",
                   max(dc["throttle_level_by_bucket"]), sc["max_throttle_level"])
            expect(f"{ct} throttle", dc["throttle"], sc["throttle"])
            for kind in ("engines", "topsps"):
                expect(f"{ct} {kind}", len(dc[kind]), len(sc[kind]))
                for du, su in zip(dc[kind], sc[kind]):
                    ut = f"{ct} {kind[:-1]} {su.get('engine', su.get('topsp'))}"
                    for k in UNIT_FIELDS:
                        if k in su:
                            expect(f"{ut} {k}", du[k], su[k])
                    expect(f"{ut} idle gaps", du["idle_gaps"], su["idle_gaps"])
                    idle_units.append((du["label"], su["idle_gaps"]))
                    expect(f"{ut} busy over the buckets", sum(du["busy_ns_by_bucket"]), su["busy_ns"])
                    expect(f"{ut} busy fraction <= 1 per bucket",
                           all(b <= w for b in du["busy_ns_by_bucket"]), True)
                    if "dma_bytes" in su:
                        expect(f"{ut} DMA bytes over the buckets", sum(du["dma_bytes_by_bucket"]),
                               su["dma_bytes"])
                    expect(f"{ut} ops", [[o[k] for k in OP_FIELDS] for o in du["ops"]],
                           [[o[k] for k in OP_FIELDS] for o in su["ops"][:top]])
                    for o in su["ops"][:top]:
                        want_ops.append((du["label"], str(o["code"]), str(o["total_ns"])))
            # Drawn on the strips: units first (as their strips), then the core's row.
            # x from the gap's start: LABEL_W + offset / (buckets * bucket_ns) * PLOT_W
            for label, gaps in idle_units[1:] + idle_units[:1]:
                want_idle += [(str(sc["device"]), str(sc["core"]), label, str(i + 1),
                               str(g["start_ns"]), str(g["idle_ns"])) for i, g in enumerate(gaps)]
                want_idle_x += [round(120 + g["at_ns"] / (nb * w) * 820, 1) for g in gaps]
        expect(f"{rt} models", [m["model_id"] for m in dr["models"]],
               [m["model_id"] for m in sr["models"]])
        for dm, sm in zip(dr["models"], sr["models"]):
            mt = f"{rt} model {sm['model_id']}"
            # Both come from summary's field tables: every member summary has.
            for k, v in sm.items():
                expect(f"{mt} {k}", dm.get(k), v)
            expect(f"{mt} failed", dm["failed"], sm["failed"])
            expect(f"{mt} host_matched", dm["host_matched"], sm["host_matched"])
            for k in DIST_FIELDS:
                expect(f"{mt} latency {k}", dm["latency"][k], sm["latency"][k])
                expect(f"{mt} host_overhead {k}", dm["host_overhead"][k], sm["host_overhead"][k])
            xs = [x for x in sr["executions"] if x["model_id"] == sm["model_id"]]
            lat = [x["latency_ns"] for x in xs]
            over = [max(0, x["host_call"]["duration_ns"] - x["latency_ns"]) for x in xs
                    if x["host_call"]]
            expect(f"{mt} latency histogram", dm["latency_histogram"], hist_want(lat))
            expect(f"{mt} overhead histogram", dm["overhead_histogram"], hist_want(over))
            want_bins += [str(n) for n in hist_want(lat)["counts"]]
            if sm["host_matched"]:
                want_bins += [str(n) for n in hist_want(over)["counts"]]
        expect(f"{rt} losses",
               [(l["file"], l["record"], l["records"], l["queue_type"], l["target_kind"],
                 l["target_index"], l["engine"], l["lost"], l["seq_gaps"], l["explained"])
                for l in dr["losses"]],
               [(l["file"], l["record"], l["records"], l["queue_type"], l["target_kind"],
                 l["target_index"], l["engine"], l["lost"], l["seq_gaps"], l["explained"])
                for l in sr["losses"]])
        expect(f"{rt} raw queues",
               [(q["file"], q["device"], q["core"], q["queue_type"], q["engine"], q["format"],
                 q["entries"], q["device_entries"], q["lost"], q["seq_gaps"])
                for q in dr["raw_queues"]],
               [(q["file"], q["device"], q["core"], q["queue_type"], q["engine"], q["format"],
                 q["entries"], q["device_entries"], q["lost"], q["seq_gaps"])
                for q in sr["raw_queues"]])
        errors_by_code(page, rt, ri, dr, sr)
        expect(f"{rt} losses (every member)", dr["losses"], sr["losses"])
        expect(f"{rt} raw queues (every member)", dr["raw_queues"], sr["raw_queues"])
    expect("SVG op bars (unit, code, total_ns)",
           [(a["data-unit"], a["data-code"], a["data-total-ns"]) for a in svg_ops], want_ops)
    expect("SVG histogram bins", [a["data-count"] for a in svg_bins], want_bins)
    expect("SVG idle gaps (device, core, unit, rank, start_ns, idle_ns)",
           [(a["data-device"], a["data-core"], a["data-unit"], a["data-rank"], a["data-start-ns"],
             a["data-idle-ns"]) for a in svg_idle], want_idle)
    got_x = [float(a["x"]) for a in svg_idle]
    expect("SVG idle gaps drawn at their start (x)",
           len(got_x) == len(want_idle_x) and all(abs(g - x) <= 0.11 for g, x in
                                                 zip(got_x, want_idle_x)), True)
    side_by_side(page, s)
    labels_fit(page, d, top)
    expect("SVG timelines (device, core, buckets)",
           [(a["data-device"], a["data-core"], a["data-buckets"]) for a in svg_tl], want_tl)


ERROR_QUEUES = ("ERROR", "TOPSP_ERROR")


def errors_by_code(page, rt, ri, dr, sr):
    """The errors by code the page embeds are summary's (per core: code, count,
    first_ns, every member summary has), with a name and a last time; the
    recording's total per code adds the cores' up; what the error queues lost
    is what summary's losses of those queues say; the page shows a table of
    them, or says "No errors"."""
    if "errors_total" not in dr:
        errors.append(f"{rt}: no errors_total in the page's data")
        return
    want_total, first, last = collections.OrderedDict(), {}, {}
    for dc, sc in zip(dr["cores"], sr["cores"]):
        ct = f"{rt} device {sc['device']} core {sc['core']}"
        expect(f"{ct} errors by code",
               [{k: e[k] for k in es} for e, es in zip(dc["errors_by_code"], sc["errors_by_code"])],
               sc["errors_by_code"])
        expect(f"{ct} errors by code add up to its errors",
               sum(e["count"] for e in dc["errors_by_code"]), sc["errors"])
        for e in dc["errors_by_code"]:
            expect(f"{ct} code {e['code']} first <= last", e["first_ns"] <= e["last_ns"], True)
            want_total[e["code"]] = want_total.get(e["code"], 0) + e["count"]
            first[e["code"]] = min(first.get(e["code"], e["first_ns"]), e["first_ns"])
            last[e["code"]] = max(last.get(e["code"], e["last_ns"]), e["last_ns"])
    t = dr["errors_total"]
    expect(f"{rt} errors (total)", t["errors"], sr["totals"]["errors"])
    expect(f"{rt} errors by code (total)",
           [(e["code"], e["count"], e["first_ns"], e["last_ns"]) for e in t["errors_by_code"]],
           [(c, n, first[c], last[c]) for c, n in want_total.items()])
    lost = sum(max(l["lost"], l["seq_gaps"]) for l in sr["losses"]
               if l["queue_type"] in ERROR_QUEUES)
    expect(f"{rt} lost on error queues", t["error_queue_lost"], lost)
    tables = [a for a, _ in page.tables if a.get("data-kind") == "errors"
              and a.get("data-rec") == str(ri)]
    expect(f"{rt} errors table", len(tables), 1 if t["errors"] else 0)
    expect(f"{rt} \"No errors\" said", page.said.get(("noerrors", ri), 0), 0 if t["errors"] else 1)
    expect(f"{rt} error-queue losses said", page.said.get(("errlost", ri)), str(lost) if lost else None)


def label_text(inner):
    """The whole label of an SVG <text>'s markup, and what it shows."""
    m = re.match(r"<title>(.*?)</title>(.*)", inner, re.S)
    if m:
        return html.unescape(m.group(1)), html.unescape(m.group(2))
    return html.unescape(inner), html.unescape(inner)


def labels_fit(page, d, top):
    """Every op label of the ops plots and every model label of the side-by-side
    latency panels fits its column (at least 6 px a character, the column's
    right end at the text's x): whole, or its start and an ellipsis with the
    whole label (unit, the device's name of the op, code) in its tooltip."""
    want = []
    for r in d["recordings"]:
        for c in r["cores"]:
            for u in units(c):
                want += [f"{u['label']} {o['op'] + ' ' if o['op'] else ''}{o['code']}"
                         for o in u["ops"][:top]]
    got = []
    for svg in re.findall(r'<svg class="ops"[^>]*>(.*?)</svg>', page.raw, re.S):
        for x, inner in re.findall(r'<text class="lbl" x="(\d+)"[^>]*>(.*?)</text>', svg, re.S):
            whole, shown = label_text(inner)
            got.append(whole)
            fits(f"op label {whole!r}", whole, shown, int(x) - 8)
    expect("SVG op labels (whole: unit, name, code)", got, want)
    for svg in re.findall(r'<svg class="hostlat"[^>]*>(.*?)</svg>', page.raw, re.S):
        for x, inner in re.findall(r'<text class="lbl" x="(\d+)"[^>]*>(.*?)</text>', svg, re.S):
            whole, shown = label_text(inner)
            fits(f"model label {whole!r}", whole, shown, int(x) - 4)


def fits(what, whole, shown, width):
    if shown == whole:
        expect(f"{what} fits ({width} px)", len(whole) * 6 <= width, True)
    else:
        expect(f"{what} ellipsized: its start, then ...", shown.endswith("\u2026") and
               whole.startswith(shown[:-1]) and len(shown) * 6 <= width, True)


def near(a, b):
    return abs(float(a) - float(b)) <= 0.11


LAT_FIELDS = ("count", "min_ns", "median_ns", "p99_ns", "max_ns")


def side_by_side(page, s):
    """With several recordings, the panels drawn side by side: one per recording and
    plot, every panel of a plot on the same axis, each bar and box where its numbers
    (summary's) put it on that axis."""
    recs = s["recordings"]
    for cls in ("hostbusy", "hostutil", "hostlat"):
        panels = [a for t, a in page.elems if t == "svg" and a.get("class") == cls]
        if len(recs) < 2:
            expect(f"{cls} panels with one recording", len(panels), 0)
            continue
        expect(f"{cls} panels (data-rec)", [p["data-rec"] for p in panels],
               [str(i) for i in range(len(recs))])
        expect(f"{cls} panels share one axis (scale, x0, plot width, size)",
               len({(p["data-scale"], p["data-x0"], p["data-plot-w"], p["width"], p["height"])
                    for p in panels}), 1)
        if not panels:
            continue
        scale, x0, pw = (int(panels[0][k]) for k in ("data-scale", "data-x0", "data-plot-w"))
        unit = pw / scale if scale else 0     # pixels per ns (per % for utilisation)
        if cls == "hostlat":
            want = max([m["latency"]["max_ns"] for r in recs for m in r["models"]], default=0)
        elif cls == "hostbusy":
            want = max([c["busy_ns"] for r in recs for c in r["cores"]], default=0)
        else:
            want = 100
        expect(f"{cls} axis: 0 to the largest value of all recordings", scale, want)
        for ri, r in enumerate(recs):
            elems = [a for t, a, sv in page.in_svg if t == "rect" and sv.get("data-rec") == str(ri)
                     and sv.get("class") == cls and a.get("class") in ("hbar", "hlat")]
            rt = f"{cls} panel of {r['path']}"
            if cls == "hostlat":
                expect(f"{rt} models (model, count, min, median, p99, max)",
                       [tuple(int(a[k]) for k in ("data-model", "data-count", "data-min-ns",
                                                  "data-median-ns", "data-p99-ns", "data-max-ns"))
                        for a in elems],
                       [(m["model_id"],) + tuple(m["latency"][k] for k in LAT_FIELDS)
                        for m in r["models"]])
                for a, m in zip(elems, r["models"]):
                    lat = m["latency"]
                    expect(f"{rt} model {m['model_id']} box from the median to p99",
                           near(a["x"], x0 + lat["median_ns"] * unit) and
                           near(a["width"], max(2, (lat["p99_ns"] - lat["median_ns"]) * unit)),
                           True)
                continue
            expect(f"{rt} cores (device, core, busy_ns)",
                   [(int(a["data-device"]), int(a["data-core"]), int(a["data-busy-ns"]))
                    for a in elems],
                   [(c["device"], c["core"], c["busy_ns"]) for c in r["cores"]])
            expect(f"{rt} utilisation", [float(a["data-util-pct"]) for a in elems],
                   [c["utilization_pct"] for c in r["cores"]])
            for a, c in zip(elems, r["cores"]):
                v = c["busy_ns"] if cls == "hostbusy" else c["utilization_pct"]
                expect(f"{rt} device {c['device']} core {c['core']} bar length",
                       near(a["width"], v * unit) and near(a["x"], x0), True)


def buckets(report, rec_index, dumps):
    d = load_page(report).data
    if d is None:
        return
    rec = d["recordings"][rec_index]
    cores = collections.defaultdict(dict)
    lost = collections.Counter()
    for path in dumps:
        dump = json.load(open(path))
        for r in dump["queues"]:
            for e in r.get("entries", []):
                if "code" in e:
                    if not re.fullmatch(r"0x[0-9a-f]{6,}", e["code"]):
                        errors.append(f"dump code {e['code']!r} not spelled 0x000102")
                    e["code"] = int(e["code"], 16)
        dev = dump["device"]
        for r in dump["queues"]:
            if r["target_kind"] == "core":
                core = r["target_index"]
            else:
                core = r["target_index"] // (dev["num_topsps"] // dev["num_cores"])
            key = (r["queue_type"], r["target_kind"], r["target_index"], r["engine"])
            qs = cores[(dev["device_index"], core)]
            qs.setdefault(key, []).extend(r["entries"])
            lost[(dev["device_index"], core) + key] += r["lost_count"]
    for c in rec["cores"]:
        qs = cores[(c["device"], c["core"])]
        ents = [e for es in qs.values() for e in es]
        t0 = min(e["timestamp_ns"] for e in ents)
        span = max(e["timestamp_ns"] for e in ents) - t0
        w = span // d["bucket_limit"] + 1
        nb = span // w + 1
        ct = f"device {c['device']} core {c['core']}"
        expect(f"{ct} bucket_ns", c["bucket_ns"], w)
        expect(f"{ct} buckets", c["buckets"], nb)
        infs = [(a["timestamp_ns"], b["timestamp_ns"]) for k, es in qs.items()
                if k[0] == "INFER_STATUS" for a, b in windows_of(es, 1, 2)]
        for topsp, key in ((False, "engines"), (True, "topsps")):
            for u in c[key]:
                idx = u["topsp"] if topsp else u["engine"]
                evw = [(a["timestamp_ns"], b["timestamp_ns"]) for k, es in qs.items()
                       if (topsp and k[0] == "TOPSP_EVENT" and k[2] == idx) or
                       (not topsp and k[0] == "EVENT" and k[3] == idx)
                       for a, b in windows_of(es, 1, 2, True)]
                want = [0] * nb
                for k, es in qs.items():
                    if not ((topsp and k[0] == "TOPSP_TRACE" and k[2] == idx) or
                            (not topsp and k[0] == "TRACE" and k[3] == idx)):
                        continue
                    gaps = sum(b["seq"] - a["seq"] - 1 for a, b in zip(es, es[1:]))
                    for i, e in enumerate(es):
                        ts = e["timestamp_ns"]
                        nxt = es[i + 1]["timestamp_ns"] if i + 1 < len(es) else None
                        # Cut by a loss (a gap after it, or losses after the last): no time.
                        if (nxt is not None and es[i + 1]["seq"] > e["seq"] + 1 or
                                nxt is None and lost[(c["device"], c["core"]) + k] > gaps):
                            continue
                        bounds = [s for (b, s) in infs + evw if b <= ts <= s]
                        if bounds:
                            end = min(bounds + ([nxt] if nxt is not None else []))
                        else:
                            end = nxt if nxt is not None else ts
                        # one nanosecond at a time: slow and obviously right
                        for t in range(ts, end):
                            want[min((t - t0) // w, nb - 1)] += 1
                expect(f"{ct} {u['label']} busy_ns_by_bucket", u["busy_ns_by_bucket"], want)


def dom(dom_path, report):
    page, after = load_page(report), Page()
    after.feed(open(dom_path, encoding="utf-8").read())
    after.close()
    d = page.data
    expect("the page's script ran (body data-rendered)", after.body.get("data-rendered"), "yes")
    expect("tables", len(after.tables), len(page.tables))
    if d is None:
        return
    for (a, rows), cells in zip(after.tables, after.cells):
        kind, ri = a.get("data-kind"), int(a.get("data-rec", 0))
        r = d["recordings"][ri] if ri < len(d["recordings"]) else None
        if kind == "recordings":
            want = len(d["recordings"])
        elif kind == "hostcores":
            want = sum(len(x["cores"]) for x in d["recordings"])
        elif kind == "hostmodels":
            want = sum(len(x["models"]) for x in d["recordings"])
        elif kind in ("ops", "units", "buckets", "throttle", "idle"):
            c = r["cores"][int(a["data-core"])]
            want = {"ops": sum(len(u["ops"]) for u in units(c)), "units": len(units(c)),
                    "idle": len(c["idle_gaps"]) + sum(len(u["idle_gaps"]) for u in units(c)),
                    "buckets": c["buckets"], "throttle": len(c["throttle"])}[kind]
        elif kind in ("latency", "overhead"):
            m = r["models"][int(a["data-model"])]
            want = len(m[kind + "_histogram"]["counts"])
        elif kind == "models":
            want = len(r["models"])
        elif kind == "losses":
            want = len(r["losses"])
        elif kind == "raw":
            want = len(r["raw_queues"])
        elif kind == "errors":
            t = r["errors_total"]
            rows_want = [[str(c["device"]), str(c["core"]), str(e["code"]), e["name"] or "-",
                          str(e["count"]), str(c["error_queue_lost"])]
                         for c in r["cores"] for e in c["errors_by_code"]]
            rows_want += [["all", "all", str(e["code"]), e["name"] or "-", str(e["count"]),
                           str(t["error_queue_lost"])] for e in t["errors_by_code"]]
            expect(f"errors table of recording {ri} (device, core, code, name, count, lost)",
                   [row[:6] for row in cells], rows_want)
            want = len(rows_want)
        else:
            errors.append(f"unknown table kind {kind!r}")
            continue
        expect(f"table {kind} of recording {ri} core {a.get('data-core')} model "
               f"{a.get('data-model')}: rows", (rows, a.get("data-rows")), (want, str(want)))


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "data":
        data(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) >= 5 and sys.argv[1] == "buckets":
        buckets(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    elif len(sys.argv) == 4 and sys.argv[1] == "dom":
        dom(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
    sys.exit(print_errors())


if __name__ == "__main__":
    main()
