# SPDX-License-Identifier: MIT
"""What the inline checks of the VM tests (vm_capture.sh, vm_limits.sh)
share: each failure printed as it is found, and the exit status at the end.
"""
import sys

ok = True


def fail(msg):
    """One failure, said on a FAIL: line."""
    global ok
    print("FAIL:", msg)
    ok = False


def done():
    """Exit 0 if nothing failed, else 1."""
    sys.exit(0 if ok else 1)
