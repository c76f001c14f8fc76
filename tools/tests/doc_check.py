# SPDX-License-Identifier: MIT
"""Checks that the documentation's examples run and its versions agree.

  doc_check.py sql MAN NAME=DB...
      every "$ sqlite3 NAME \"QUERY\"" of MAN's EXAMPLES (man/neuronprof-sqlite.5)
      runs on the database DB given for NAME (an `export --format sqlite`)
      without error and gives at least one row
  doc_check.py commands MAN NEURONPROF DIR RUNNABLE SKIPPED
      every "$ neuronprof CMD ..." of MAN's EXAMPLES whose CMD is in RUNNABLE
      (comma-separated) runs in DIR (which holds the files the examples
      name) with "neuronprof" replaced by NEURONPROF and exits 0; CMDs in
      SKIPPED (they need a device or a program) are not run; an example of
      any other command fails, so a new example is not left out unseen
  doc_check.py versions REPO
      the version of lib/include/neuronprof/common.h (NPROF_VERSION_*, the one
      the tool's --version prints) is the one in every man page's footer
      ("neuronprof X.Y.Z"), the RPM spec and debian/changelog
  doc_check.py sentences FILE...
      no sentence of 30 characters or more appears twice in a FILE (a
      duplicate left by an edit)

Prints what is wrong ("# ..." lines) and exits 1, or exits 0.
"""
import collections
import glob
import os
import re
import shlex
import sqlite3
import subprocess
import sys

errs = []


def err(msg):
    errs.append(msg)


def unroff(s):
    """The text groff shows for a line of a man page's example."""
    s = s.replace('\\-', '-').replace('\\(aq', "'").replace('\\(dq', '"')
    return s.replace('\\e', '\\').replace('\\&', '')


def examples(man):
    """The "$ ..." commands of MAN's EXAMPLES section, continuation lines
    joined (a command continues while its double quotes are unbalanced)."""
    lines, sect, cmds, cur = open(man).read().splitlines(), None, [], None
    for ln in lines:
        if ln.startswith('.SH '):
            sect = ln[4:].strip().strip('"')
            continue
        if sect != 'EXAMPLES' or ln.startswith('.'):
            continue
        ln = unroff(ln)
        if cur is not None:
            cur += '\n' + ln
        elif ln.startswith('$ '):
            cur = ln[2:]
        else:
            continue
        if cur.count('"') % 2 == 0:
            cmds.append(cur)
            cur = None
    if cur is not None:
        err(f'{man}: unterminated example: {cur}')
    return cmds


def cmd_sql(man, pairs):
    dbs = dict(p.split('=', 1) for p in pairs)
    n = 0
    for c in examples(man):
        argv = shlex.split(c)
        if argv[0] != 'sqlite3':
            continue
        n += 1
        if len(argv) != 3 or argv[1] not in dbs:
            err(f'{man}: example not of the form sqlite3 DB "QUERY" with a known DB: {c}')
            continue
        try:
            con = sqlite3.connect(f'file:{dbs[argv[1]]}?mode=ro', uri=True)
            rows = con.execute(argv[2]).fetchall()
        except sqlite3.Error as e:
            err(f'{man}: {argv[1]}: {e}: {argv[2]}')
            continue
        if not rows:
            err(f'{man}: {argv[1]}: no rows: {argv[2]}')
    if n == 0:
        err(f'{man}: no sqlite3 example found')


def cmd_commands(man, np, d, runnable, skipped):
    runnable, skipped = runnable.split(','), skipped.split(',')
    n = 0
    for c in examples(man):
        argv = shlex.split(c)
        if argv[0] != 'neuronprof':
            continue
        if argv[1] in skipped:
            continue
        if argv[1] not in runnable:
            err(f'{man}: example of a command neither run nor known to need a device: {c}')
            continue
        n += 1
        r = subprocess.run(shlex.quote(np) + c[len('neuronprof'):], shell=True, cwd=d,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            err(f'{man}: exit {r.returncode}: {c}: {r.stderr.strip()}')
    if n == 0:
        err(f'{man}: no runnable example found')


def cmd_versions(repo):
    h = open(os.path.join(repo, 'lib/include/neuronprof/common.h')).read()
    v = '.'.join(re.search(rf'^#define NPROF_VERSION_{p}\s+(\d+)$', h, re.M).group(1)
                 for p in ('MAJOR', 'MINOR', 'PATCH'))
    pages = glob.glob(os.path.join(repo, 'man/*.[0-9]')) + glob.glob(os.path.join(repo, 'man/man*/*.[0-9]'))
    if not pages:
        err('no man pages')
    for p in sorted(pages):
        th = [ln for ln in open(p) if ln.startswith('.TH ')]
        m = re.search(r'"neuronprof ([^"]*)"', th[0]) if th else None
        if not m or m.group(1) != v:
            err(f'{p}: footer says {m.group(1) if m else "nothing"}, the version is {v}')
    spec = open(os.path.join(repo, 'rpm/neuronprof.spec')).read()
    m = re.search(r'^Version:\s*(\S+)$', spec, re.M)
    if not m or m.group(1) != v:
        err(f'rpm/neuronprof.spec: Version {m.group(1) if m else "missing"}, the version is {v}')
    ch = open(os.path.join(repo, 'debian/changelog')).readline()
    m = re.match(r'\S+ \(([^)-]+)', ch)
    if not m or m.group(1) != v:
        err(f'debian/changelog: top entry {m.group(1) if m else "missing"}, the version is {v}')


def cmd_sentences(files):
    for p in files:
        t = re.sub(r'\s+', ' ', open(p).read())
        c = collections.Counter(s for s in re.split(r'(?<=[.!?])\s+', t) if len(s) >= 30)
        for s, k in c.items():
            if k > 1:
                err(f'{p}: {k} times: {s}')


def main(a):
    if len(a) >= 3 and a[0] == 'sql':
        cmd_sql(a[1], a[2:])
    elif len(a) == 6 and a[0] == 'commands':
        cmd_commands(*a[1:])
    elif len(a) == 2 and a[0] == 'versions':
        cmd_versions(a[1])
    elif len(a) >= 2 and a[0] == 'sentences':
        cmd_sentences(a[1:])
    else:
        sys.exit(__doc__)
    for e in errs:
        print('# ' + e)
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
