#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the version of the installed Debian 6.1 amd64 kernel headers (e.g.
# 6.1.0-57-amd64): the kernel the modules are built for and the VM boots.
# The running kernel (uname -r) is deliberately not used: builds and tests
# target the distribution kernel whatever the host runs. When several are
# installed the newest wins; set KVER to choose another.
set -euo pipefail

versions=$(
	for d in /usr/src/linux-headers-6.1.*-amd64 /lib/modules/6.1.*-amd64/build; do
		[ -f "$d/Makefile" ] || continue
		case $d in
		/usr/src/*) basename "$d" | sed 's/^linux-headers-//' ;;
		*) basename "$(dirname "$d")" ;;
		esac
	done | sort -uV
)
if [ -z "$versions" ]; then
	echo "kver: no Debian 6.1 amd64 kernel headers found (install linux-headers-amd64: make deps)" >&2
	exit 1
fi
echo "$versions" | tail -n 1
