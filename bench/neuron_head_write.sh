#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What capturing a head write costs on the vendor's own neuron.ko: the
# hardware layer's rig (tests/neuron-rig/run.sh, Documentation/neuron-rig.rst)
# in its benchmark mode. The last line is the cost a capture adds per head
# write against a memcpy of the bytes the head write consumed, measured in
# the same run. Needs make modules lib tools and a vendor tree; boots QEMU
# (run it under flock /tmp/nprof-vm.lock).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
RIG_BENCH=1 exec bash "$here/../tests/neuron-rig/run.sh"
