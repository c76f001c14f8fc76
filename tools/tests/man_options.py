# SPDX-License-Identifier: MIT
"""Checks that neuronprof(1) names the options each command's --help lists.

  man_options.py MAN NEURONPROF [CMD=PAGE...]

For every command whose usage line MAN's SYNOPSIS has ("neuronprof CMD",
"neuronprof sim run"), against what "NEURONPROF CMD --help" prints (made
from the command's option table, tools/neuronprof/util/options.h):
  - every option the SYNOPSIS names for the command is one --help lists
    (no option left in the man page after it was renamed or removed);
  - every option --help lists is named in the SYNOPSIS, unless the
    command's SYNOPSIS says "[options]";
  - every option --help lists is named in the command's part of COMMANDS
    (its .SS section, where each option is described), in the SYNOPSIS, or
    in the command's own man PAGE when one is given (diff=neuronprof-diff.1).
An option is named by its long name, or by its letter where it has one.

Prints what is wrong ("# ..." lines) and exits 1, or exits 0.
"""
import re
import subprocess
import sys

OPT = re.compile(r'(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])')


def unroff(s):
    """The text of a man page line, font escapes and requests left out."""
    s = re.sub(r'\\f[BIRP]|\\f\(..', '', s)
    s = s.replace('\\-', '-').replace('\\ ', ' ').replace('\\&', '').replace('\\e', '\\')
    return re.sub(r'^\.(B|I|BI|BR|IR|RB|RI|IB|BI|TP|PP|br)\b ?', '', s)


def sections(man):
    """SYNOPSIS lines per command and the text of each .SS of COMMANDS."""
    syn, text, sect, sub, cur = {}, {}, None, None, None
    for ln in open(man).read().splitlines():
        if ln.startswith('.SH '):
            sect, sub = ln[4:].strip().strip('"'), None
            continue
        if sect == 'SYNOPSIS':
            t = unroff(ln)
            m = re.match(r'neuronprof (sim run|[a-z]+)\b', t.strip())
            if ln.startswith('.B neuronprof') and m:
                cur = m.group(1)
                syn.setdefault(cur, '')
                t = t.strip()[len('neuronprof ' + cur):]
            if cur:
                syn[cur] += ' ' + t
        elif sect == 'COMMANDS':
            if ln.startswith('.SS '):
                sub = ln[4:].strip()
                text[sub] = ''
            elif sub:
                text[sub] += ' ' + unroff(ln)
    return syn, text


def help_options(np, cmd):
    """The options of CMD's --help: {long or letter: its letter or None}."""
    out = subprocess.run([np] + cmd.split() + ['--help'], capture_output=True, text=True,
                         check=True).stdout
    opts = {}
    body = out.split('\n\n', 1)[1] if '\n\n' in out else out
    for ln in body.splitlines():
        m = re.match(r'^ +(?:(-[a-zA-Z]), )?(--[a-z][a-z0-9-]*)', ln) or \
            re.match(r'^ +(-[a-zA-Z])()(?:\s|$)', ln)
        if not m:
            continue
        short, long_ = m.group(1), m.group(2)
        if long_ == '--help':
            continue
        opts[long_ or short] = short
    return opts


def main():
    man, np = sys.argv[1], sys.argv[2]
    syn, text = sections(man)
    for arg in sys.argv[3:]:
        cmd, page = arg.split('=', 1)
        text[cmd] = text.get(cmd, '') + ' ' + ' '.join(unroff(ln) for ln in open(page))
    errs = []
    for cmd, line in sorted(syn.items()):
        if cmd == 'help':
            continue
        try:
            opts = help_options(np, cmd)
        except subprocess.CalledProcessError as e:
            errs.append(f'{cmd} --help: exit status {e.returncode}')
            continue
        known = set(opts) | {s for s in opts.values() if s}
        named = set(OPT.findall(line))
        for o in sorted(named - known):
            errs.append(f'{cmd}: the SYNOPSIS names {o}, which --help does not list')
        words = set(OPT.findall(text.get(cmd, '')))
        for o, s in sorted(opts.items()):
            by = {o, s} - {None}
            if not re.search(r'\[\s*options\s*\]', line) and not by & named:
                errs.append(f'{cmd}: {o} (--help) is not in the SYNOPSIS')
            if not by & (words | named):
                errs.append(f'{cmd}: {o} (--help) is described neither in COMMANDS nor in the SYNOPSIS')
    for e in errs:
        print('# ' + e)
    print(f'{len(syn)} commands, {len(errs)} problem(s)')
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
