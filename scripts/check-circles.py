#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Circles of uses between the source files of the library and of the tool.

usage: check-circles.py [--graph] [NAME=SRCDIR:OBJDIR ...]

Without a tree named, the two of this checkout, after `make lib tools`:
  lib=lib/src:lib/build/obj  tools=tools/neuronprof:tools/build/obj

A tree is a source folder and the object folder its build fills, one
OBJDIR/<path>.o for each SRCDIR/<path>.c (objects with no source, such as
generated protobuf-c code, are left out: they call nothing of the tree).
Each tree is a graph of its own: a node is a .c file, and there is an edge
A -> B when A uses a symbol that B defines:

  - from the objects: `nm` gives what each object defines (its global
    symbols) and what it leaves undefined; an undefined symbol of A.o that
    B.o defines is a use of B by A (a call, or a reference to its data);
  - from the headers: a static inline function defined in a header H.h
    belongs to H.c when H.c exists beside it (a header named after a .c
    file is that file's interface; a header shared by several files of one
    job, such as an ..._internal.h, has no .c of its own). What such an
    inline uses (any identifier in its body, members aside, that another
    file of the tree defines, or another header's inline) is a use by H.c,
    whether or not any object instantiates it; a file whose source names
    the inline uses H.c. An undefined symbol of A.o that A.c does not name
    itself but an inline of H.h it names reaches is counted there, as
    H.c's use, not as A's. An inline in a header with no .c of its own is
    the code of each file that names it: the objects show its uses as
    that file's already. Macros are not followed: what one expands to is
    in the objects of the files that expand it, as their own use.

A circle is a strongly connected component of that graph with more than
one file: files that reach each other through uses, so none of them can
be read, tested or moved down a layer without the others. Each is printed
with the edges inside it and, on each edge, the symbols that make it (for
an inline: "callee (in inline, header)" on the header's .c's edge,
"inline (header)" on its caller's). Exits 1 when any tree has one,
2 when a tree cannot be read (no objects, a source with no object or one
newer than its object: run make first). With --graph every edge is
printed. The last line: "check-circles: N trees, N files, N edges, N circles".
"""
import collections
import os
import re
import subprocess
import sys

from graph_scc import circles

NM = os.environ.get("NM", "nm")

IDENT = re.compile(r"[A-Za-z_]\w*")
# A member after . or -> is not a use of a symbol of that name.
MEMBER = re.compile(r"(?:\.|->)\s*[A-Za-z_]\w*")


class TreeError(Exception):
    pass


def strip_c(text):
    """@text without comments, string and character literals (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j) or " ")
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def tokens(code):
    return set(IDENT.findall(MEMBER.sub(" ", code)))


def drop_preprocessor(code):
    """@code with its preprocessor lines (continued ones too) blanked.

    Macros are not followed: what one expands to shows in the objects that
    expand it, as their own use."""
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", code, flags=re.M)


def drop_attributes(head):
    """@head without its __attribute__((...)) and __asm__(...) parts."""
    while True:
        m = re.search(r"\b(?:__attribute__|__asm__|asm)\s*\(", head)
        if not m:
            return head
        depth, i = 0, m.end() - 1
        while i < len(head):
            depth += {"(": 1, ")": -1}.get(head[i], 0)
            i += 1
            if depth == 0:
                break
        head = head[:m.start()] + " " + head[i:]


def inline_functions(code):
    """[(name, body tokens)] of the inline functions defined at file scope."""
    out = []
    depth, start, head_from = 0, 0, 0
    for m in re.finditer(r"[{};]", code):
        ch = m.group()
        if ch == "{":
            if depth == 0:
                start = m.start()
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                head = drop_attributes(code[head_from:start])
                f = re.search(r"([A-Za-z_]\w*)\s*\((?:[^()]|\([^()]*\))*\)\s*$", head)
                if f and re.search(r"\binline\b", head):
                    out.append((f.group(1), tokens(code[start:m.end()])))
                head_from = m.end()
        elif depth == 0:
            head_from = m.end()
    return out


def nm_symbols(path):
    """(defined global symbols, undefined symbols) of one object."""
    try:
        out = subprocess.run([NM, "-P", path], check=True, capture_output=True,
                             text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise TreeError(f"{NM} {path}: {e}")
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, undefined


def read_tree(srcdir, objdir):
    """The files of a tree and their edges: (nodes, {a: {b: {what}}})."""
    if not os.path.isdir(srcdir):
        raise TreeError(f"no source folder {srcdir}")
    if not os.path.isdir(objdir):
        raise TreeError(f"no object folder {objdir} (run make first)")
    sources, headers = {}, {}
    for d, dirs, names in os.walk(srcdir):
        dirs.sort()
        for f in sorted(names):
            rel = os.path.relpath(os.path.join(d, f), srcdir).replace(os.sep, "/")
            if f.endswith(".c"):
                sources[rel] = os.path.join(d, f)
            elif f.endswith(".h"):
                headers[rel] = os.path.join(d, f)
    if not sources:
        raise TreeError(f"no .c file under {srcdir}")
    stale = []
    objects = {}
    for rel, path in sources.items():
        obj = os.path.join(objdir, rel[:-2] + ".o")
        if not os.path.isfile(obj):
            stale.append(f"{rel}: no object {obj}")
        elif os.path.getmtime(path) > os.path.getmtime(obj):
            stale.append(f"{rel}: newer than {obj}")
        else:
            objects[rel] = obj
    if stale:
        raise TreeError("objects missing or out of date (run make first): " + "; ".join(stale))

    defs, undefs, owner = {}, {}, {}
    for rel, obj in objects.items():
        defs[rel], undefs[rel] = nm_symbols(obj)
        for s in defs[rel]:
            owner.setdefault(s, rel)

    # The headers' inline functions: name -> [(header, owning .c or None, tokens)].
    pieces = collections.defaultdict(list)
    for rel, path in headers.items():
        with open(path, encoding="utf-8", errors="replace") as f:
            code = drop_preprocessor(strip_c(f.read()))
        c = rel[:-2] + ".c"
        own = c if c in objects else None
        for name, toks in inline_functions(code):
            pieces[name].append((rel, own, toks - {name}))

    src_tokens = {}
    for rel, path in sources.items():
        with open(path, encoding="utf-8", errors="replace") as f:
            src_tokens[rel] = tokens(strip_c(f.read()))

    edges = collections.defaultdict(lambda: collections.defaultdict(set))

    def add(a, b, what):
        if a != b:
            edges[a][b].add(what)

    def expand(code_of, toks):
        """The inlines @toks name that belong to another file, and every
        token of the code of @code_of (its own and that of the inlines with
        no .c, or its own, it names, transitively)."""
        named, seen, worklist = [], set(), list(toks)
        allt = set(toks)
        while worklist:
            t = worklist.pop()
            for header, own, ptoks in pieces.get(t, ()):
                if (t, header) in seen:
                    continue
                seen.add((t, header))
                if own is None or own == code_of:
                    new = ptoks - allt
                    allt |= new
                    worklist.extend(new)
                else:
                    named.append((t, header, own))
        return named, allt

    reach_memo = {}

    def reach(name, header):
        """Every token an inline reaches, through other inlines too."""
        key = (name, header)
        if key in reach_memo:
            return reach_memo[key]
        reach_memo[key] = set()
        out = set()
        for h, own, ptoks in pieces.get(name, ()):
            if h != header:
                continue
            out |= ptoks
            for t in ptoks:
                for h2, _, _ in pieces.get(t, ()):
                    out |= reach(t, h2)
        reach_memo[key] = out
        return out

    # What each owned piece uses: a use by the header's .c.
    for name, defs_of in pieces.items():
        for header, own, ptoks in defs_of:
            if own is None:
                continue
            named, allt = expand(own, ptoks)
            for t in sorted(allt):
                if t in owner:
                    add(own, owner[t], f"{t} (in {name}, {header})")
            for t, h, o in named:
                add(own, o, f"{t} ({h}, in {name})")

    for rel in objects:
        named, allt = expand(rel, src_tokens[rel])
        via = set()
        for t, h, o in named:
            add(rel, o, f"{t} ({h})")
            via |= reach(t, h)
        for s in sorted(undefs[rel]):
            o = owner.get(s)
            if o is None or o == rel:
                continue
            if s not in allt and s in via:
                continue	# an inline's use: its header's .c's, above
            add(rel, o, s)
    return set(objects), edges


def main(argv):
    graph = "--graph" in argv
    args = [a for a in argv if a != "--graph"]
    repo = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    trees = []
    for a in args:
        m = re.fullmatch(r"([\w.-]+)=([^:]+):(.+)", a)
        if not m:
            print(__doc__.strip().splitlines()[2], file=sys.stderr)
            return 2
        trees.append(m.groups())
    if not trees:
        trees = [("lib", os.path.join(repo, "lib/src"), os.path.join(repo, "lib/build/obj")),
                 ("tools", os.path.join(repo, "tools/neuronprof"),
                  os.path.join(repo, "tools/build/obj"))]
    nfiles = nedges = ncircles = 0
    status = 0
    for name, srcdir, objdir in trees:
        try:
            nodes, edges = read_tree(srcdir, objdir)
        except TreeError as e:
            print(f"check-circles: {name}: {e}")
            status = 2
            continue
        n = sum(len(v) for v in edges.values())
        if graph:
            for a in sorted(edges):
                for b in sorted(edges[a]):
                    print(f"{name}: {a} -> {b}: {', '.join(sorted(edges[a][b]))}")
        comps = circles(nodes, edges)
        for comp in comps:
            print(f"check-circles: {name}: circle of {len(comp)} files: {' '.join(comp)}")
            inside = set(comp)
            for a in comp:
                for b in sorted(edges.get(a, ())):
                    if b in inside:
                        print(f"  {a} -> {b}: {', '.join(sorted(edges[a][b]))}")
        print(f"check-circles: {name}: {len(nodes)} files, {n} edges, {len(comps)} circles")
        nfiles += len(nodes)
        nedges += n
        ncircles += len(comps)
        if comps and status == 0:
            status = 1
    print(f"check-circles: {len(trees)} trees, {nfiles} files, {nedges} edges, {ncircles} circles")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
