#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run some of the selftest programs in one VM, for working on a test:
#
#   selftests/run_in_vm.sh [--ko-dir DIR] [--console] [PROG...]
#
# PROG is a program name (10_device) or path; without one every program
# runs, in the order of `make list`. The modules are the *.ko under --ko-dir
# (default: those under the repository's driver/, as scripts/vm-run.sh
# picks them); nothing is rebuilt but the selftests themselves.
#
# scripts/vm-selftests.sh is the complete run (it builds the modules and
# counts the results); this is the quick loop.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
MAKE=${MAKE:-make}
ko_dir=
console=()
progs=()

while [ $# -gt 0 ]; do
	case $1 in
	--ko-dir) ko_dir=${2:?--ko-dir needs a directory}; shift 2 ;;
	--console) console=(--console); shift ;;
	-h|--help) sed -n '4,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) progs+=("$1"); shift ;;
	esac
done

"$MAKE" -s --no-print-directory -C "$here" >&2
all=()
while IFS= read -r p; do
	all+=("$p")
done < <("$MAKE" -s --no-print-directory -C "$here" list)

run=()
if [ ${#progs[@]} -eq 0 ]; then
	run=("${all[@]}")
else
	for want in "${progs[@]}"; do
		found=
		for p in "${all[@]}"; do
			if [ "$(basename "$p")" = "$want" ] || [ "$p" = "$want" ]; then
				found=$p
			fi
		done
		[ -n "$found" ] || { echo "run_in_vm: no program $want (make list)" >&2; exit 2; }
		run+=("$found")
	done
fi

args=(--timeout "${VM_TIMEOUT:-1200}" "${console[@]}")
if [ -n "$ko_dir" ]; then
	while IFS= read -r -d '' ko; do
		args+=(--ko "$ko")
	done < <(find "$ko_dir" -name '*.ko' -print0 | sort -z)
fi
script='modprobe neuronprof_sim || exit 3; cd /out'
for p in "${run[@]}"; do
	args+=(--file "$p")
	script+="; echo '# run_in_vm: $(basename "$p")'; '$p' 2>&1"
done

exec bash "$repo/scripts/vm-run.sh" "${args[@]}" -- "$script"
