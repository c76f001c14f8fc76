#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the JSON results `kunit.py run --json=FILE` writes.

Prints one line per top-level suite, then a last line with the totals
"PASSED FAILED SKIPPED" for scripts/kunit.sh to read. Leaf test cases are
counted, so a parameterised case counts once per parameter; a crashed case
counts as failed.
"""

import json
import sys


def leaves(group):
    for case in group.get('test_cases', []):
        yield case
    for sub in group.get('sub_groups', []):
        yield from leaves(sub)


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: kunit_summary.py RESULTS.json')
    with open(sys.argv[1], encoding='utf-8') as f:
        root = json.load(f)
    suites = list(root.get('sub_groups', []))
    if root.get('test_cases'):
        suites.append({'name': '(top level)', 'test_cases': root['test_cases']})
    total = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    for suite in suites:
        counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
        for case in leaves(suite):
            status = case.get('status')
            counts[status if status in ('PASS', 'SKIP') else 'FAIL'] += 1
        print(f"kunit: suite {suite.get('name')}: {counts['PASS']} ok, "
              f"{counts['FAIL']} not ok, {counts['SKIP']} skipped")
        for key in total:
            total[key] += counts[key]
    print(total['PASS'], total['FAIL'], total['SKIP'])


if __name__ == '__main__':
    main()
