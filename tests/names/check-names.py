#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One name, one definition: functions and structs across the whole tree.

usage: check-names.py [--list] [REPO]

Reads every tracked C source and header of REPO (default: the checkout this
script is in) with universal-ctags and fails (exit 1) on
  - a function name defined with two different signatures (return type and
    parameter types; parameter names do not count) where at least one of
    the definitions is external or the name is in the project's namespace
    (nprof_, neuronprof_, selftest_): the static helpers of separate
    programs (each bench's main(), now(), die()) are their own business;
  - a struct name in the project's namespace defined twice, or any struct
    defined in two headers.
so that grep and jump-to-definition land in the one layer that defines a
name (the kernel's ring is struct nprof_kring, the library's struct
nprof_ring, the selftests' struct selftest_ring; the kernel's device is
struct nprof_drmdev, the library's struct nprof_device; the simulator's program
struct nprof_sim_gen_program, the library's struct nprof_sim_program; the
provider interface's queue address struct nprof_queue_id, the capture
plan's struct nprof_capture_qid).

KNOWN lists the clashes that remain to be renamed; a clash not in it
fails, and so does an entry of it that no longer clashes (delete it).
ALLOWED lists files that repeat names on purpose. With --list every clash
found is printed, known or not. Last line: "N passed, N failed".
"""
import collections
import json
import os
import re
import subprocess
import sys

PROJECT = re.compile(r"(nprof|neuronprof|selftest)_")

# Files that define names of another layer on purpose.
ALLOWED = {
    # Defines the library's internal names in a program linked against the
    # static archive, to prove the archive does not export them.
    "lib/tests/test_static.c",
}

# Clashes left to rename: (kind, name) -> why it is still here. None now.
KNOWN = {
}


def param_type(p):
    """A parameter without its name: "const char *fmt" -> "const char *"."""
    p = re.sub(r"\[[^\]]*\]", "[]", p.strip())
    arr = p.endswith("[]")
    if arr:
        p = p[:-2].rstrip()
    m = re.fullmatch(r"(.*?[\s*])\s*([A-Za-z_]\w*)", p)
    if m and m.group(1).strip() and m.group(1).strip() not in ("struct", "enum", "union"):
        p = m.group(1)
    p = re.sub(r"\s+", " ", p).replace(" *", "*").strip()
    return p + ("[]" if arr else "")


def signature(tag):
    sig = tag.get("signature", "()").strip()[1:-1]
    params = [param_type(x) for x in sig.split(",")] if sig.strip() else []
    ret = re.sub(r"^(typename|struct|enum|union):", lambda m: "" if m.group(1) == "typename"
                 else m.group(1) + " ", tag.get("typeref", ""))
    return re.sub(r"\s+", " ", ret).strip() + "(" + ",".join(params) + ")"


def main(argv):
    listing = "--list" in argv
    args = [a for a in argv if a != "--list"]
    repo = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    files = subprocess.run(["git", "-C", repo, "ls-files", "*.c", "*.h"], check=True,
                           capture_output=True, text=True).stdout.split()
    files = [f for f in files if f not in ALLOWED]
    out = subprocess.run(["ctags-universal", "--languages=C", "--language-force=C",
                          "--c-kinds=fs", "--fields=+St", "--output-format=json", "-f", "-"]
                         + files, check=True, capture_output=True, text=True, cwd=repo).stdout
    funcs = collections.defaultdict(list)
    structs = collections.defaultdict(list)
    for line in out.splitlines():
        t = json.loads(line)
        name = t.get("name", "")
        if t.get("kind") == "function":
            if re.fullmatch(r"[A-Z0-9_]+", name) or name == "main":
                continue	# a macro call ctags took for a definition; a program's main()
            funcs[name].append((signature(t), t["path"], not t.get("file", False)))
        elif t.get("kind") == "struct" and not name.startswith("__anon"):
            structs[name].append(t["path"])

    clashes = {}
    for name, defs in funcs.items():
        sigs = {s for s, _, _ in defs}
        if len(sigs) > 1 and (PROJECT.match(name) or any(ext for _, _, ext in defs)):
            clashes[("function", name)] = "; ".join(f"{p}: {s}" for s, p, _ in sorted(defs))
    for name, paths in structs.items():
        if len(paths) < 2:
            continue
        if PROJECT.match(name) or sum(p.endswith(".h") for p in paths) > 1:
            clashes[("struct", name)] = "; ".join(sorted(paths))

    passed = failed = 0
    for key in sorted(clashes):
        known = key in KNOWN
        if listing or not known:
            print(f"{'known' if known else 'CLASH'}: {key[0]} {key[1]}: {clashes[key]}")
        if known:
            passed += 1
        else:
            failed += 1
    for key in sorted(set(KNOWN) - set(clashes)):
        print(f"STALE: {key[0]} {key[1]} no longer clashes; delete it from KNOWN")
        failed += 1
    nf = sum(len(v) for v in funcs.values())
    ns = sum(len(v) for v in structs.values())
    print(f"check-names: {len(files)} files, {nf} function and {ns} struct definitions, "
          f"{len(clashes)} clashes ({len(set(clashes) & set(KNOWN))} known)")
    print(f"{passed + (0 if failed else 1)} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
