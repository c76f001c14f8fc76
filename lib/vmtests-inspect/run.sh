#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The end-to-end test of the session layer (inspect session, MODEL and
# on-fail capture, continuous profiling, the crash flush, the nrt
# compatibility layer) on simulated devices: build the library, the
# modules, inspect_vm, check_inspect and the compat example; run guest.sh
# inside a QEMU VM on the Debian kernel (scripts/vm-run.sh) with the guest's
# /out brought back; then check on the host, with check_inspect, every
# directory tree and NTFF file the scenarios wrote.
#
# Ends with `N passed, N failed` (the guest's checks + the host's); exits
# non-zero on any failure. A VM problem (timeout, kernel BUG/WARNING, no
# status) or a guest program without its result line counts as one more
# failure.
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
	echo "vmtests-inspect: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

"$MAKE" -C "$lib" --no-print-directory lib || fail "the library does not build (make -C lib)"
"$MAKE" -C "$here" --no-print-directory || fail "the test programs do not build (make -C lib/vmtests-inspect)"

ko_args=()
if [ -n "${NPROF_KO_DIR:-}" ]; then
	while IFS= read -r -d '' ko; do
		ko_args+=(--ko "$ko")
	done < <(find "$NPROF_KO_DIR" -name '*.ko' -print0 | sort -z)
	[ ${#ko_args[@]} -gt 0 ] || fail "no .ko file under NPROF_KO_DIR=$NPROF_KO_DIR"
else
	"$MAKE" -C "$repo" --no-print-directory modules || fail "the modules do not build (make modules)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/vmtests-inspect.XXXXXX") || fail "cannot create a work directory"
trap 'rm -rf "$work"' EXIT
rm -rf "$out"
mkdir -p "$out" || fail "cannot create $out"

echo "vmtests-inspect: running guest.sh in a VM"
bash "$repo/scripts/vm-run.sh" --timeout "$timeout" "${ko_args[@]}" --outdir "$out" \
	--file "$here/guest.sh:/inspect-guest.sh" \
	--file "$here/build/inspect_vm:/inspect_vm" \
	--file "$here/build/compat/nrt_profile_example:/nrt_profile_example" \
	-- sh /inspect-guest.sh | tee "$work/guest.log"
vm_rc=${PIPESTATUS[0]}

passed=0
failed=0
# Every guest program ends with its own result line; sum them.
while read -r p f; do
	passed=$((passed + p))
	failed=$((failed + f))
done < <(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/guest.log" |
	sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
lines=$(grep -cE '^[0-9]+ passed, [0-9]+ failed' "$work/guest.log")
if [ "$lines" -ne 6 ]; then
	echo "vmtests-inspect: $lines of the 6 inspect_vm runs printed a result line"
	failed=$((failed + 1))
fi
if [ "$vm_rc" -ne 0 ]; then
	case $vm_rc in
	123) echo "vmtests-inspect: the guest kernel log shows a problem (see above)" ;;
	124) echo "vmtests-inspect: the VM hit its ${timeout}s timeout" ;;
	*) echo "vmtests-inspect: the VM exited with $vm_rc" ;;
	esac
	failed=$((failed + 1))
fi

echo "vmtests-inspect: checking what the guest wrote in $out"
"$here/build/check_inspect" "$out" | tee "$work/host.log"
host_rc=${PIPESTATUS[0]}
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/host.log" | tail -n 1)
if [ -z "$line" ]; then
	echo "vmtests-inspect: check_inspect printed no result line (exit $host_rc)"
	failed=$((failed + 1))
else
	hp=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
	hf=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
	passed=$((passed + hp))
	failed=$((failed + hf))
	if [ "$host_rc" -ne 0 ] && [ "$hf" -eq 0 ]; then
		failed=$((failed + 1))
	fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
