#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The library's layering, checked from its object files and its includes.

usage: check-layers.py [--graph] [--src DIR] [--include DIR] [--readme FILE] OBJDIR

OBJDIR holds one object per source file, as the build leaves them:
OBJDIR/<folder>/<file>.o for lib/src/<folder>/<file>.c. A folder may sit
inside another (trace/base/ in trace/): it is a folder of its own, with its
own layer, and the one around it does not contain it. For each object,
`nm` gives the symbols it defines and the ones it leaves undefined; an
undefined symbol defined by another object is a use of that file (a call,
or a reference to its data). That is the file-level call graph.

The sources under --src (default: src/ beside this script) and the public
headers under --include (default: include/neuronprof/ beside this script)
give the include graph: a file's #include "<folder>/<name>.h" is an edge to
that header, in that folder; an #include <neuronprof/<name>.h>, in a
source file or in a public header itself, is an edge to that public
header, which belongs to the folder that lib/src/README's "public headers"
table gives it.

Both tables, the layers with what each folder may call and the public
headers of each folder, are read from lib/src/README (--readme, default
<src>/README): there is no second copy here to disagree with it.

It fails (exit 1) on:
  - any cycle of files (a file that reaches itself through uses, or a
    header that reaches itself through includes);
  - any cycle of folders;
  - a use or an include from a folder of a lower layer of a folder of a
    higher layer;
  - a use or an include of another folder that the using folder may not
    call (the "may call" column), such as capture/ -> trace/ on one layer;
  - a folder, or a public header, that the README does not place.
Generated protobuf-c code (objects not in a folder, headers not in one) is
a leaf everyone may use. Before the verdict it counts the arrows between
folders (ordered pairs of folders with at least one use or include) and
the file-level edges between folders, and how many of each run up the
layers. With --graph it prints every edge:
the symbols of a use, "#include" for an include.
"""
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from graph_scc import circles  # noqa: E402

NM = os.environ.get("NM", "nm")
PUBLIC = "neuronprof/"


class ReadmeError(Exception):
    pass


def ruled_tables(text):
    """Every table drawn with a ruler line of dashes under its header.

    Returns a list of (headers, rows); each row is a list of cells, a row
    continued on the following lines (first cell empty) joined into one.
    Columns are the spans of the ruler's dash groups; the last runs to the
    end of the line."""
    lines = text.splitlines()
    tables = []
    for i, line in enumerate(lines):
        if i == 0 or not re.fullmatch(r"-+( +-+)+ *", line):
            continue
        spans = [m.span() for m in re.finditer(r"-+", line)]
        starts = [s for s, _ in spans]

        def cells(row):
            out = []
            for k, s in enumerate(starts):
                e = starts[k + 1] if k + 1 < len(starts) else len(row)
                out.append(row[s:e].strip())
            return out

        headers = [h.lower() for h in cells(lines[i - 1])]
        rows = []
        for row in lines[i + 1:]:
            if not row.strip():
                break
            c = cells(row)
            if c[0]:
                rows.append(c)
            elif rows:
                rows[-1] = [(a + " " + b).strip() for a, b in zip(rows[-1], c)]
            else:
                raise ReadmeError(f"a continuation line with no row above it: {row!r}")
        tables.append((headers, rows))
    return tables


# A folder, "util/", or a folder inside one, "trace/base/".
FOLDER_REF = re.compile(r"(?<![\w./])([a-z][a-z0-9_]*(?:/[a-z][a-z0-9_]*)*)/(?![\w.])")


def subfolders(top):
    """(folder, path) of every folder below @top, nested ones as "a/b"."""
    out = []
    for root, dirs, _ in os.walk(top):
        dirs.sort()
        rel = os.path.relpath(root, top)
        if rel != ".":
            out.append((rel.replace(os.sep, "/"), root))
    return sorted(out)


def read_readme(path):
    """LAYERS {folder: layer}, MAY_CALL {folder: set}, OWNER {public header: folder}."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ReadmeError(f"cannot read {path}: {e.strerror}")
    layers, may_call, owner = {}, {}, {}
    found_layers = found_headers = False
    for headers, rows in ruled_tables(text):
        if headers[:2] == ["layer", "folder"] and "may call" in headers:
            found_layers = True
            col = headers.index("may call")
            for r in rows:
                m = FOLDER_REF.fullmatch(r[1])
                if not r[0].isdigit() or not m:
                    raise ReadmeError(f"layer table row {r[0]!r} {r[1]!r}: want a number and a folder/")
                folder = m.group(1)
                if folder in layers:
                    raise ReadmeError(f"layer table: {folder}/ twice")
                layers[folder] = int(r[0])
                may_call[folder] = set(FOLDER_REF.findall(r[col]))
        elif headers[:2] == ["folder", "public headers"]:
            found_headers = True
            for r in rows:
                m = FOLDER_REF.fullmatch(r[0])
                if not m:
                    raise ReadmeError(f"public header table row {r[0]!r}: want a folder/")
                for h in re.findall(r"[\w-]+\.h\b", r[1]):
                    if h in owner:
                        raise ReadmeError(f"public header table: {h} under {owner[h]}/ and "
                                          f"{m.group(1)}/")
                    owner[h] = m.group(1)
    if not found_layers:
        raise ReadmeError(f"{path}: no table with the columns layer, folder, ..., may call")
    if not found_headers:
        raise ReadmeError(f"{path}: no table with the columns folder, public headers")
    for folder, calls in may_call.items():
        for c in sorted(calls - set(layers)):
            raise ReadmeError(f"{folder}/ may call {c}/, which the layer table does not have")
    for h, folder in owner.items():
        if folder not in layers:
            raise ReadmeError(f"public header {h}: folder {folder}/ is not in the layer table")
    return layers, may_call, owner


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


INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return INCLUDE.findall(f.read())


def include_graph(srcdir, incdir):
    """Nodes and include edges of the sources and the public headers.

    A source file <folder>/<name>.c is the node "<folder>/<name>" (its
    object's name); a header is "<folder>/<name>.h"; a public header is
    "<neuronprof/<name>.h>". Returns (nodes, {from: {to}})."""
    nodes, edges = set(), collections.defaultdict(set)
    files = []
    if srcdir and os.path.isdir(srcdir):
        for folder, sub in subfolders(srcdir):
            for f in sorted(os.listdir(sub)):
                path = os.path.join(sub, f)
                if not os.path.isfile(path):
                    continue
                if f.endswith(".c"):
                    files.append((f"{folder}/{f[:-2]}", path, folder))
                elif f.endswith(".h"):
                    files.append((f"{folder}/{f}", path, folder))
    if incdir and os.path.isdir(incdir):
        for f in sorted(os.listdir(incdir)):
            if f.endswith(".h"):
                files.append((f"<{PUBLIC}{f}>", os.path.join(incdir, f), None))
    known = {n for n, _, _ in files}
    for name, path, folder in files:
        nodes.add(name)
        for kind, target in includes(path):
            if target.startswith(PUBLIC) and f"<{target}>" in known:
                to = f"<{target}>"
            elif kind == '"' and target in known:
                to = target
            elif kind == '"' and folder and f"{folder}/{target}" in known:
                to = f"{folder}/{target}"
            else:
                continue	# the C library, the uapi, generated code
            if to != name:
                edges[name].add(to)
    return nodes, edges


def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    opts = {"graph": False, "src": os.path.join(here, "src"),
            "include": os.path.join(here, "include", "neuronprof"), "readme": None}
    pos = []
    it = iter(argv)
    for a in it:
        if a == "--graph":
            opts["graph"] = True
        elif a in ("--src", "--include", "--readme"):
            try:
                opts[a[2:]] = next(it)
            except StopIteration:
                return None, None
        else:
            pos.append(a)
    if len(pos) != 1:
        return None, None
    if opts["readme"] is None:
        opts["readme"] = os.path.join(opts["src"], "README")
    return opts, pos[0]


def main(argv):
    opts, objdir = parse_args(argv)
    if opts is None:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        layers, may_call, owner = read_readme(opts["readme"])
    except ReadmeError as e:
        print(f"check-layers: {e}", file=sys.stderr)
        return 2

    files = {}
    for folder, sub in subfolders(objdir):
        for f in sorted(os.listdir(sub)):
            if f.endswith(".o") and os.path.isfile(os.path.join(sub, f)):
                files[f"{folder}/{f[:-2]}"] = os.path.join(sub, f)
    if not files:
        print(f"check-layers: no objects under {objdir}/<folder>/", file=sys.stderr)
        return 2

    defs, undefs, sym_owner = {}, {}, {}
    for name, path in files.items():
        defs[name], undefs[name] = symbols(path)
        for s in defs[name]:
            sym_owner[s] = name

    uses = collections.defaultdict(lambda: collections.defaultdict(set))
    for name in files:
        for s in undefs[name]:
            o = sym_owner.get(s)
            if o and o != name:
                uses[name][o].add(s)

    inc_nodes, incs = include_graph(opts["src"], opts["include"])

    errors = []

    def folder_of(node):
        if node.startswith("<"):
            return owner.get(node[1 + len(PUBLIC):-1])
        return node.rsplit("/", 1)[0]

    for node in sorted(inc_nodes):
        if node.startswith("<") and folder_of(node) is None:
            errors.append(f"{node}: public header with no folder (add it to the public "
                          "headers table of lib/src/README)")
    for folder in sorted({folder_of(n) for n in set(files) | inc_nodes} - {None}):
        if folder not in layers:
            errors.append(f"folder {folder}/ has no layer (add it to the layer table of "
                          "lib/src/README)")

    # (kind, from, to, what): every edge between files.
    edges = []
    for a in sorted(uses):
        for b in sorted(uses[a]):
            edges.append(("use", a, b, ", ".join(sorted(uses[a][b]))))
    for a in sorted(incs):
        for b in sorted(incs[a]):
            edges.append(("include", a, b, "#include"))

    folder_edges = collections.defaultdict(set)
    for kind, a, b, what in edges:
        fa, fb = folder_of(a), folder_of(b)
        if fa is None or fb is None or fa not in layers or fb not in layers:
            continue
        la, lb = layers[fa], layers[fb]
        tail = f": {what}" if kind == "use" else ""
        if lb > la:
            errors.append(f"upward {kind}: {a} (layer {la}) -> {b} (layer {lb}){tail}")
        elif fa != fb and fb not in may_call[fa]:
            errors.append(f"{kind} outside what {fa}/ may call: {a} -> {b}{tail}")
        if fa != fb:
            folder_edges[fa].add(fb)

    file_edges = collections.defaultdict(set)
    for _, a, b, _ in edges:
        file_edges[a].add(b)
    nodes = set(files) | inc_nodes
    for comp in circles(nodes, file_edges):
        errors.append("file cycle: " + " <-> ".join(comp))
    folders = {folder_of(n) for n in nodes} - {None}
    for comp in circles(folders, folder_edges):
        errors.append("folder cycle: " + " <-> ".join(comp))

    if opts["graph"]:
        for _, a, b, what in edges:
            print(f"{a} -> {b}: {what}")

    arrows = sorted((a, b) for a in folder_edges for b in folder_edges[a])
    up = [(a, b) for a, b in arrows if layers.get(b, 0) > layers.get(a, 0)]
    # The same between files: a use or an include of a file in another folder.
    cross = [(folder_of(a), folder_of(b)) for _, a, b, _ in edges
             if folder_of(a) and folder_of(b) and folder_of(a) != folder_of(b)]
    cross_up = [1 for fa, fb in cross if layers.get(fb, 0) > layers.get(fa, 0)]
    nuses = sum(1 for e in edges if e[0] == "use")
    nincs = len(edges) - nuses
    for e in errors:
        print("check-layers: " + e)
    print(f"check-layers: {len(arrows)} arrows between folders, {len(up)} running up the layers"
          + (": " + ", ".join(f"{a}/ -> {b}/" for a, b in up) if up else ""))
    print(f"check-layers: {len(cross)} file-level edges between folders, {len(cross_up)} "
          "running up the layers")
    verdict = ("no cycle, no upward use or include, none outside a may-call list" if not errors
               else f"{len(errors)} problem(s)")
    print(f"check-layers: {len(files)} files in {len(folders)} folders, {nuses} file-level "
          f"uses, {nincs} includes: {verdict}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
