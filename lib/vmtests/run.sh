#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The end-to-end SESSION capture test: build the library, the modules and
# the two programs of this directory, run capture_vm inside a QEMU VM on the
# Debian kernel (scripts/vm-run.sh) with the guest's /out brought back, then
# check every NTFF file it wrote with check_ntff on the host.
#
# capture_vm starts with no module loaded (it checks the library's "no
# device" diagnosis, then lets the library load neuronprof_sim itself).
#
# Ends with `N passed, N failed` (guest checks + host checks); exits non-zero
# on any failure. A VM problem (timeout, kernel BUG/WARNING, no status) or a
# program that stops without its result line counts as one more failure.
#
# Environment:
#   NPROF_KO_DIR     use the *.ko files under this directory instead of
#                    building them with `make modules`
#   VMTEST_OUT       where the guest's /out lands (default build/vm-out here)
#   VMTEST_TIMEOUT   VM timeout in seconds (default 900)
#   MAKE             make program
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lib=$(cd "$here/.." && pwd)
repo=$(cd "$lib/.." && pwd)
MAKE=${MAKE:-make}
timeout=${VMTEST_TIMEOUT:-900}
out=${VMTEST_OUT:-$here/build/vm-out}

fail() {
	echo "vmtests: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

# "N passed, N failed" of a log: prints "N N", or nothing.
counts() {
	grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1 |
		sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/'
}

"$MAKE" -C "$lib" --no-print-directory lib || fail "the library does not build (make -C lib)"
"$MAKE" -C "$here" --no-print-directory || fail "the test programs do not build (make -C lib/vmtests)"

ko_args=()
if [ -n "${NPROF_KO_DIR:-}" ]; then
	while IFS= read -r -d '' ko; do
		ko_args+=(--ko "$ko")
	done < <(find "$NPROF_KO_DIR" -name '*.ko' -print0 | sort -z)
	[ ${#ko_args[@]} -gt 0 ] || fail "no .ko file under NPROF_KO_DIR=$NPROF_KO_DIR"
else
	"$MAKE" -C "$repo" --no-print-directory modules || fail "the modules do not build (make modules)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/vmtests.XXXXXX") || fail "cannot create a work directory"
trap 'rm -rf "$work"' EXIT
rm -rf "$out"
mkdir -p "$out" || fail "cannot create $out"

echo "vmtests: running capture_vm in a VM"
bash "$repo/scripts/vm-run.sh" --timeout "$timeout" "${ko_args[@]}" --outdir "$out" \
	--file "$here/build/capture_vm:/capture_vm" -- /capture_vm /out | tee "$work/guest.log"
vm_rc=${PIPESTATUS[0]}

passed=0
failed=0
read -r gp gf < <(counts "$work/guest.log"; echo)
if [ -z "${gp:-}" ]; then
	echo "vmtests: capture_vm printed no result line (VM exit $vm_rc)"
	failed=$((failed + 1))
else
	passed=$((passed + gp))
	failed=$((failed + gf))
	if [ "$vm_rc" -ne 0 ] && [ "$gf" -eq 0 ]; then
		case $vm_rc in
		123) echo "vmtests: the guest kernel log shows a problem (see above)" ;;
		124) echo "vmtests: the VM hit its ${timeout}s timeout" ;;
		*) echo "vmtests: the VM exited with $vm_rc without a failed check" ;;
		esac
		failed=$((failed + 1))
	fi
fi

echo "vmtests: checking the NTFF files in $out"
"$here/build/check_ntff" "$out" "$repo/proto" | tee "$work/host.log"
host_rc=${PIPESTATUS[0]}
read -r hp hf < <(counts "$work/host.log"; echo)
if [ -z "${hp:-}" ]; then
	echo "vmtests: check_ntff printed no result line (exit $host_rc)"
	failed=$((failed + 1))
else
	passed=$((passed + hp))
	failed=$((failed + hf))
	if [ "$host_rc" -ne 0 ] && [ "$hf" -eq 0 ]; then
		failed=$((failed + 1))
	fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
