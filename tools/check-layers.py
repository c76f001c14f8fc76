#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The tool's layers, checked (Documentation/tool.rst, "Source").

check-layers.py [DIR]: reads every .c and .h under DIR (default: the
neuronprof/ beside this script) and the #include "..." lines between its
folders. From the bottom: util/, analysis/, ui/ (the writers of each
output format), export/, then the subcommands
at the top (the files directly in DIR). A file may include its own layer
and those below; an include that runs up is an error, and so is a circle
of includes between files. Prints the arrows between layers and how many
run up; exits 1 when any does.
"""
import os
import re
import sys

LAYERS = ["util", "analysis", "ui", "export", "."]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    top = rel.split("/")[0] if "/" in rel else "."
    return top if top in LAYERS else None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "neuronprof")
    files = {}
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith((".c", ".h")):
                p = os.path.join(d, n)
                files[os.path.relpath(p, root)] = open(p, encoding="utf-8").read()
    bad = []
    edges = {}
    graph = {}
    for rel, text in sorted(files.items()):
        src = layer_of(rel)
        if src is None:
            bad.append(f"{rel}: in no layer (folders: {', '.join(LAYERS[:-1])})")
            continue
        for inc in INCLUDE.findall(text):
            # "x.h" next to the file, else from DIR (the tool's -I).
            here = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
            target = here if here in files else (inc if inc in files else None)
            if target is None:
                continue        # generated or system header
            graph.setdefault(rel, set()).add(target)
            dst = layer_of(target)
            if dst == src:
                continue
            edges[(src, dst)] = edges.get((src, dst), 0) + 1
            if LAYERS.index(dst) > LAYERS.index(src):
                bad.append(f"{rel}: includes {target}, a layer above ({src} -> {dst})")
    # Circles between files (a header including, through others, itself).
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                bad.append("circle: " + " -> ".join(path[path.index(m):] + [m]))
            elif m not in state:
                visit(m, path + [m])
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n, [n])
    up = sum(c for (s, d), c in edges.items() if LAYERS.index(d) > LAYERS.index(s))
    for (s, d), c in sorted(edges.items()):
        print(f"{s} -> {d}: {c} include{'s' if c != 1 else ''}")
    print(f"{len(edges)} arrows between layers, {up} running up")
    for b in bad:
        print("error: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
