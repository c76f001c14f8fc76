# SPDX-License-Identifier: MIT
"""One strongly-connected-components walk for the tree's dependency checks.

Imported by scripts/check-circles.py (files that use each other's symbols)
and lib/check-layers.py (files and folders that include each other).
"""
import sys


def circles(nodes, edges):
    """The strongly connected components of more than one node (Tarjan),
    each sorted, in sorted order. edges maps a node to the nodes it uses."""
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

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000, 4 * len(nodes)))
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(comps)
