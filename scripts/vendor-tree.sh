#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Print where the vendor's Neuron driver tree is, for the layers that build
# it (scripts/vendor-hook-test.sh, tests/neuron-rig/run.sh): NEURON_DRIVER_SRC
# (a directory or a .tar.gz), else the DKMS source /usr/src/aws-neuronx-*/,
# else ../shared/vendor/aws-neuronx-*.tar.gz beside the repository. Exits 1,
# printing nothing, when there is none.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
src=${NEURON_DRIVER_SRC:-}
if [ -n "$src" ] && [ ! -e "$src" ]; then
	echo "vendor-tree: NEURON_DRIVER_SRC=$src does not exist" >&2
	exit 1
fi
if [ -z "$src" ]; then
	for d in /usr/src/aws-neuronx-*/; do
		[ -f "$d/dkms.conf" ] && src=${d%/} && break
	done
fi
if [ -z "$src" ]; then
	for t in "$repo"/../shared/vendor/aws-neuronx-*.tar.gz; do
		[ -f "$t" ] && src=$(cd "$(dirname "$t")" && pwd)/$(basename "$t") && break
	done
fi
[ -n "$src" ] && [ -e "$src" ] || exit 1
echo "$src"
