#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks of `neuronprof exporter`'s metrics, for tests/run.sh and
tests/prometheus.sh (Debian's /usr/bin/python3, standard library only).

  prom_check.py expo FILE SUMMARY_JSON
      FILE, an exposition (the textfile or what /metrics served), carries
      summary's figures for the one recording of SUMMARY_JSON: per core the
      busy time, inferences, errors, entries (sum over its queues) and
      entries lost (sum over its queues); per engine and TopSP the busy
      time and instructions; per engine the DMA transfers and bytes; per
      core and queue type of raw queues the entries (32-byte parts) and
      entries lost.
  prom_check.py monotonic FILE...
      every counter (a *_total series) of each FILE is at least its value
      in the FILE before it; series only appear, never vanish.
  prom_check.py wait PROM_URL EXPR SECONDS
      polls Prometheus's /api/v1/query until EXPR gives a non-empty
      result whose every value is 1, or fails after SECONDS.
  prom_check.py resets PROM_URL
      no neuronprof_*_total series Prometheus holds went down between two
      of its scrapes in the last 5 minutes (resets() is 0), and there are
      some.
  prom_check.py query PROM_URL JOB SUMMARY_JSON
      the figures of `expo`, asked of Prometheus through /api/v1/query for
      the series scraped by job JOB.
Exit status 0 when all holds, 1 with the differences on stdout otherwise.
"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(path):
    """{(name, frozenset(labels)): value} of an exposition file."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            m = LINE.match(line)
            if not m:
                raise SystemExit(f'{path}: not an exposition line: {line!r}')
            labels = frozenset(LABEL.findall(m.group(3) or ''))
            out[(m.group(1), labels)] = float(m.group(4))
    return out


def engine_label(name, index):
    return name if name else str(index)


def expected(summary_path):
    """[(metric, {label: value}, number)] from summary's JSON."""
    with open(summary_path) as f:
        s = json.load(f)
    if len(s['recordings']) != 1:
        raise SystemExit(f'{summary_path}: {len(s["recordings"])} recordings, expected 1')
    want = []
    for c in s['recordings'][0]['cores']:
        base = {'device': str(c['device']), 'core': str(c['core'])}
        want += [
            ('neuronprof_core_busy_seconds_total', base, c['busy_ns'] / 1e9),
            ('neuronprof_core_inferences_total', base, c['inferences']),
            ('neuronprof_core_errors_total', base, c['errors']),
            ('sum:neuronprof_queue_entries_total', base, c['entries']),
            ('sum:neuronprof_queue_lost_entries_total', base, c['lost']),
        ]
        for e in c['engines']:
            lab = dict(base, engine=engine_label(e.get('name'), e['engine']))
            want += [
                ('neuronprof_engine_busy_seconds_total', lab, e['busy_ns'] / 1e9),
                ('neuronprof_engine_instructions_total', lab, e['instructions']),
                ('neuronprof_engine_dma_transfers_total', lab, e['dma']),
                ('neuronprof_engine_dma_bytes_total', lab, e['dma_bytes']),
            ]
        for t in c.get('topsps', []):
            lab = dict(base, engine=f'topsp{t["topsp"]}')
            want += [
                ('neuronprof_engine_busy_seconds_total', lab, t['busy_ns'] / 1e9),
                ('neuronprof_engine_instructions_total', lab, t['instructions']),
            ]
    # Raw queues (no core figures: nothing is decoded): per device, core and
    # queue type, the entries (32-byte parts, packed or not) and the lost.
    raw = {}
    for q in s['recordings'][0].get('raw_queues', []):
        k = (str(q['device']), str(q['core']), q['queue_type'].lower())
        n = raw.setdefault(k, [0, 0])
        n[0] += q['entries']
        n[1] += q['lost']
    for (d, c, qt), (n, lost) in sorted(raw.items()):
        lab = {'device': d, 'core': c, 'queue': qt}
        want += [
            ('sum:neuronprof_queue_entries_total', lab, n),
            ('sum:neuronprof_queue_lost_entries_total', lab, lost),
        ]
    if not want:
        raise SystemExit(f'{summary_path}: no figures to check')
    return want


def close(a, b):
    return abs(a - b) <= 1e-12 + 1e-9 * abs(b)


def cmd_expo(path, summary):
    got = parse(path)
    bad = []
    for name, lab, val in expected(summary):
        if name.startswith('sum:'):
            n = name[4:]
            items = set(lab.items())
            have = sum(v for (k, l), v in got.items() if k == n and items <= set(l))
        else:
            have = got.get((name, frozenset(lab.items())))
        if have is None or not close(have, val):
            bad.append(f'{name}{lab}: {have}, summary says {val}')
    for b in bad:
        print(b)
    return 1 if bad else 0


def cmd_monotonic(paths):
    prev = None
    bad = []
    for p in paths:
        cur = parse(p)
        if prev is not None:
            for key, v in prev.items():
                if key not in cur:
                    bad.append(f'{p}: {key} vanished')
                elif key[0].endswith('_total') and cur[key] < v:
                    bad.append(f'{p}: {key} went down from {v} to {cur[key]}')
        prev = cur
    for b in bad:
        print(b)
    return 1 if bad else 0


def query(url, expr):
    q = urllib.parse.urlencode({'query': expr})
    with urllib.request.urlopen(f'{url}/api/v1/query?{q}', timeout=10) as r:
        d = json.load(r)
    if d.get('status') != 'success':
        raise RuntimeError(f'{expr}: {d}')
    return d['data']['result']


def cmd_wait(url, expr, seconds):
    end = time.monotonic() + float(seconds)
    last = None
    while time.monotonic() < end:
        try:
            res = query(url, expr)
            last = res
            if res and all(float(r['value'][1]) == 1 for r in res):
                return 0
        except (OSError, RuntimeError) as e:
            last = e
        time.sleep(0.5)
    print(f'{expr}: not 1 after {seconds} s; last answer: {last}')
    return 1


def cmd_resets(url):
    with urllib.request.urlopen(f'{url}/api/v1/label/__name__/values', timeout=10) as r:
        names = [n for n in json.load(r)['data']
                 if n.startswith('neuronprof_') and n.endswith('_total')]
    bad = []
    if not names:
        bad.append('no neuronprof_*_total metric in Prometheus')
    for n in names:
        for r in query(url, f'resets({n}[5m]) > 0'):
            bad.append(f'{n}{r["metric"]}: {r["value"][1]} resets')
    for b in bad:
        print(b)
    return 1 if bad else 0


def cmd_query(url, job, summary):
    bad = []
    for name, lab, val in expected(summary):
        sel = ','.join([f'job="{job}"'] + [f'{k}="{v}"' for k, v in sorted(lab.items())])
        if name.startswith('sum:'):
            expr = f'sum({name[4:]}{{{sel}}})'
        else:
            expr = f'{name}{{{sel}}}'
        res = query(url, expr)
        if len(res) != 1:
            bad.append(f'{expr}: {len(res)} results, expected 1: {res}')
            continue
        have = float(res[0]['value'][1])
        if not close(have, val):
            bad.append(f'{expr}: {have}, summary says {val}')
    for b in bad:
        print(b)
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == 'expo' and len(argv) == 4:
        return cmd_expo(argv[2], argv[3])
    if len(argv) >= 3 and argv[1] == 'monotonic':
        return cmd_monotonic(argv[2:])
    if len(argv) == 5 and argv[1] == 'wait':
        return cmd_wait(argv[2], argv[3], argv[4])
    if len(argv) == 3 and argv[1] == 'resets':
        return cmd_resets(argv[2])
    if len(argv) == 5 and argv[1] == 'query':
        return cmd_query(argv[2], argv[3], argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
