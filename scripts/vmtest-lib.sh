# SPDX-License-Identifier: MIT
#
# Shared plumbing of the library's end-to-end VM tests (lib/vmtests*/run.sh),
# sourced, not run: build what a test needs, resolve the kernel modules, run
# a command in the VM with the guest's /out brought back, and add up result
# lines. A test sets vmt_name and vmt_here before sourcing this file.
#
# Environment:
#   NPROF_KO_DIR     use the *.ko files under this directory instead of
#                    building them with `make modules`
#   VMTEST_OUT       where the guest's /out lands (default build/vm-out in the
#                    test's directory)
#   VMTEST_TIMEOUT   VM timeout in seconds (default 900)
#   MAKE             make program

vmt_lib=$(cd "$vmt_here/.." && pwd)
vmt_repo=$(cd "$vmt_lib/.." && pwd)
MAKE=${MAKE:-make}
vmt_timeout=${VMTEST_TIMEOUT:-900}
vmt_out=${VMTEST_OUT:-$vmt_here/build/vm-out}
vmt_passed=0
vmt_failed=0
vmt_ko_args=()

# vmt_fail MSG: stop the test with one failure.
vmt_fail() {
	echo "$vmt_name: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

# vmt_prepare: build the library, the test's programs and the modules (or
# take NPROF_KO_DIR's), make a work directory ($vmt_work, removed at exit)
# and an empty $vmt_out.
vmt_prepare() {
	local ko

	"$MAKE" -C "$vmt_lib" --no-print-directory lib ||
		vmt_fail "the library does not build (make -C lib)"
	"$MAKE" -C "$vmt_here" --no-print-directory ||
		vmt_fail "the test programs do not build (make -C ${vmt_here#"$vmt_repo"/})"
	if [ -n "${NPROF_KO_DIR:-}" ]; then
		while IFS= read -r -d '' ko; do
			vmt_ko_args+=(--ko "$ko")
		done < <(find "$NPROF_KO_DIR" -name '*.ko' -print0 | sort -z)
		[ ${#vmt_ko_args[@]} -gt 0 ] || vmt_fail "no .ko file under NPROF_KO_DIR=$NPROF_KO_DIR"
	else
		"$MAKE" -C "$vmt_repo" --no-print-directory modules ||
			vmt_fail "the modules do not build (make modules)"
	fi
	vmt_work=$(mktemp -d "${TMPDIR:-/tmp}/$vmt_name.XXXXXX") ||
		vmt_fail "cannot create a work directory"
	trap 'rm -rf "$vmt_work"' EXIT
	rm -rf "$vmt_out"
	mkdir -p "$vmt_out" || vmt_fail "cannot create $vmt_out"
}

# vmt_run_vm ARGS... -- CMD: run CMD in the VM (extra vm-run.sh ARGS such
# as --file), guest output in $vmt_work/guest.log, exit status in $vmt_vm_rc.
vmt_run_vm() {
	bash "$vmt_repo/scripts/vm-run.sh" --timeout "$vmt_timeout" "${vmt_ko_args[@]}" \
		--outdir "$vmt_out" "$@" | tee "$vmt_work/guest.log"
	vmt_vm_rc=${PIPESTATUS[0]}
}

# vmt_count_vm: a VM that failed counts as one failure: always when the
# kernel log showed a problem, the VM timed out or never reported; for any
# other non-zero status only when no check reported a failure.
vmt_count_vm() {
	case $vmt_vm_rc in
	0) return 0 ;;
	122) echo "$vmt_name: the guest died without reporting a status" ;;
	123) echo "$vmt_name: the guest kernel log shows a problem (see above)" ;;
	124) echo "$vmt_name: the VM hit its ${vmt_timeout}s timeout" ;;
	125) echo "$vmt_name: the VM could not be set up" ;;
	*)
		[ "$vmt_failed" -eq 0 ] || return 0
		echo "$vmt_name: the VM exited with $vmt_vm_rc without a failed check"
		;;
	esac
	vmt_failed=$((vmt_failed + 1))
}

# vmt_add_results LOG WANT WHAT: add every "N passed, N failed" line of LOG;
# fewer than WANT such lines is one more failure, named after WHAT.
vmt_add_results() {
	local log=$1 want=$2 what=$3 p f lines=0

	while read -r p f; do
		vmt_passed=$((vmt_passed + p))
		vmt_failed=$((vmt_failed + f))
		lines=$((lines + 1))
	done < <(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" |
		sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
	if [ "$lines" -lt "$want" ]; then
		echo "$vmt_name: $lines of the $want result lines of $what were printed"
		vmt_failed=$((vmt_failed + 1))
	fi
}

# vmt_host_check CMD...: run a host-side checker, output in
# $vmt_work/host.log; its result line is added, and a non-zero exit without
# a reported failure counts as one.
vmt_host_check() {
	local rc before=$vmt_failed

	"$@" | tee "$vmt_work/host.log"
	rc=${PIPESTATUS[0]}
	vmt_add_results "$vmt_work/host.log" 1 "$(basename "$1")"
	if [ "$rc" -ne 0 ] && [ "$vmt_failed" -eq "$before" ]; then
		echo "$vmt_name: $(basename "$1") exited with $rc without a failed check"
		vmt_failed=$((vmt_failed + 1))
	fi
}

# vmt_finish: the result line and exit status.
vmt_finish() {
	echo "$vmt_passed passed, $vmt_failed failed"
	[ "$vmt_failed" -eq 0 ]
}
