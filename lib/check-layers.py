#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The library's layering, checked from its object files.

usage: check-layers.py [--graph] OBJDIR

OBJDIR holds one object per source file, as the build leaves them:
OBJDIR/<folder>/<file>.o for lib/src/<folder>/<file>.c. For each object,
`nm` gives the symbols it defines and the ones it leaves undefined; an
undefined symbol defined by another object is a use of that file (a call,
or a reference to its data). That is the file-level call graph.

It fails (exit 1) on:
  - any cycle of files (a file that reaches itself through uses);
  - any cycle of folders;
  - a use from a folder of a lower layer of a folder of a higher layer
    (lib/src/README gives the layers; the table below is the same);
  - a use of another folder that the using folder may not call (the "may
    call" column of lib/src/README, which each folder's header comment
    repeats; MAY_CALL below is the same), such as capture/ -> trace/ on
    one layer.
Generated protobuf-c code (objects not in a folder) is a leaf everyone
may use. With --graph it prints every edge with the symbols used.
"""
import collections
import os
import subprocess
import sys

# Bottom to top (ARCHITECTURE.md section 4; lib/src/README).
LAYERS = {
    "util": 1, "model": 1,
    "ntff": 2, "output": 2,
    "device": 3,
    "capture": 4, "trace": 4,
    "config": 5, "modes": 5,
    "session": 6,
}

# The other folders each folder may call (lib/src/README, "may call").
MAY_CALL = {
    "util": set(),
    "model": {"util"},
    "ntff": {"util"},
    "output": {"util"},
    "device": {"util", "ntff"},
    "capture": {"util", "model", "ntff", "output", "device"},
    "trace": {"util", "model", "ntff", "output"},
    "config": {"util", "output", "trace"},
    "modes": {"util", "model", "ntff", "output", "device", "capture", "trace", "config"},
    "session": {"util", "model", "ntff", "output", "device", "capture", "trace", "config",
                "modes"},
}

NM = os.environ.get("NM", "nm")


def symbols(path):
    out = subprocess.run([NM, path], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCVW":
            defined.add(parts[2])
    return defined, undefined


def find_cycles(nodes, edges):
    """Strongly connected components of more than one node (or a self loop)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return comps


def main(argv):
    graph = "--graph" in argv
    args = [a for a in argv if a != "--graph"]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    objdir = args[0]
    files = {}
    for folder in sorted(os.listdir(objdir)):
        sub = os.path.join(objdir, folder)
        if not os.path.isdir(sub):
            continue
        for f in sorted(os.listdir(sub)):
            if f.endswith(".o"):
                files[f"{folder}/{f[:-2]}"] = os.path.join(sub, f)
    if not files:
        print(f"check-layers: no objects under {objdir}/<folder>/", file=sys.stderr)
        return 2

    defs, undefs, owner = {}, {}, {}
    for name, path in files.items():
        defs[name], undefs[name] = symbols(path)
        for s in defs[name]:
            owner[s] = name

    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for name in files:
        for s in undefs[name]:
            o = owner.get(s)
            if o and o != name:
                edges[name][o].add(s)

    errors = []
    for name in files:
        folder = name.split("/")[0]
        if folder not in LAYERS:
            errors.append(f"{name}: folder {folder}/ has no layer (add it to lib/src/README and this script)")
        elif folder not in MAY_CALL:
            errors.append(f"{name}: folder {folder}/ has no 'may call' list (add it to lib/src/README and this script)")
    for a in sorted(edges):
        for b in sorted(edges[a]):
            fa, fb = a.split("/")[0], b.split("/")[0]
            la, lb = LAYERS.get(fa, 0), LAYERS.get(fb, 0)
            if lb > la:
                errors.append(f"upward use: {a} (layer {la}) -> {b} (layer {lb}): "
                              + ", ".join(sorted(edges[a][b])))
            elif fa != fb and fa in MAY_CALL and fb not in MAY_CALL[fa]:
                errors.append(f"use outside what {fa}/ may call: {a} -> {b}: "
                              + ", ".join(sorted(edges[a][b])))

    file_edges = {a: set(edges[a]) for a in edges}
    for comp in find_cycles(files.keys(), file_edges):
        errors.append("file cycle: " + " <-> ".join(comp))
    folder_edges = collections.defaultdict(set)
    for a in edges:
        for b in edges[a]:
            fa, fb = a.split("/")[0], b.split("/")[0]
            if fa != fb:
                folder_edges[fa].add(fb)
    folders = {n.split("/")[0] for n in files}
    for comp in find_cycles(folders, folder_edges):
        errors.append("folder cycle: " + " <-> ".join(comp))

    if graph:
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print(f"{a} -> {b}: {', '.join(sorted(edges[a][b]))}")

    nedges = sum(len(v) for v in edges.values())
    for e in errors:
        print("check-layers: " + e)
    verdict = ("no cycle, no upward use, no use outside a may-call list" if not errors
               else f"{len(errors)} problem(s)")
    print(f"check-layers: {len(files)} files in {len(folders)} folders, {nedges} file-level "
          f"uses: {verdict}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
