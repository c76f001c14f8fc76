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
# Environment: see scripts/vmtest-lib.sh (NPROF_KO_DIR, VMTEST_OUT,
# VMTEST_TIMEOUT, MAKE).
set -uo pipefail

vmt_name=vmtests
vmt_here=$(cd "$(dirname "$0")" && pwd)
. "$vmt_here/../../scripts/vmtest-lib.sh"

vmt_prepare
echo "vmtests: running capture_vm in a VM"
vmt_run_vm --file "$vmt_here/build/capture_vm:/capture_vm" -- /capture_vm /out
vmt_add_results "$vmt_work/guest.log" 1 capture_vm
vmt_count_vm

echo "vmtests: checking the NTFF files in $vmt_out"
vmt_host_check "$vmt_here/build/check_ntff" "$vmt_out" "$vmt_repo/proto"
vmt_finish
