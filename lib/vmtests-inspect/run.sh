#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The end-to-end test of the session layer (inspect session, MODEL and
# on-fail capture, continuous profiling, the crash flush, the nrt
# compatibility layer) on simulated devices: build the library, the
# modules, inspect_vm, check_inspect and the compat example; run guest.sh
# inside a QEMU VM on the Debian kernel (scripts/vm-run.sh) with the guest's
# /out brought back; then check on the host, with check_inspect, every
# directory tree and NTFF file the scenarios wrote, but those of the
# captures longer than their rings, too large to bring back, which the guest
# checks with check_inspect before deleting them (guest.sh).
#
# Ends with `N passed, N failed` (the guest's checks + the host's); exits
# non-zero on any failure. A VM problem (timeout, kernel BUG/WARNING, no
# status) or a guest program without its result line counts as one more
# failure.
#
# Environment: see scripts/vmtest-lib.sh (NPROF_KO_DIR, VMTEST_OUT,
# VMTEST_TIMEOUT, MAKE).
set -uo pipefail

vmt_name=vmtests-inspect
vmt_here=$(cd "$(dirname "$0")" && pwd)
. "$vmt_here/../../scripts/vmtest-lib.sh"

vmt_prepare
echo "vmtests-inspect: running guest.sh in a VM"
vmt_run_vm --file "$vmt_here/guest.sh:/inspect-guest.sh" \
	--file "$vmt_here/build/inspect_vm:/inspect_vm" \
	--file "$vmt_here/build/check_inspect:/check_inspect" \
	--file "$vmt_here/build/compat/nrt_profile_example:/nrt_profile_example" \
	-- sh /inspect-guest.sh
# Every guest program ends with its own result line: twelve inspect_vm runs
# and two check_inspect runs on the scenarios checked in the guest.
vmt_add_results "$vmt_work/guest.log" 14 "the inspect_vm and guest check_inspect runs"
vmt_count_vm

echo "vmtests-inspect: checking what the guest wrote in $vmt_out"
vmt_host_check "$vmt_here/build/check_inspect" "$vmt_out"
vmt_finish
