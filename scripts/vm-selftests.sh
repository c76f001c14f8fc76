#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kselftest programs of selftests/ inside one QEMU VM on the
# Debian 6.1 kernel, with neuronprof_sim (and through it neuronprof)
# loaded by modprobe.
#
# It builds the modules (make modules) and the programs (make -C selftests),
# asks `make -C selftests list` for the programs in run order, boots one VM
# (scripts/vm-run.sh) that loads the modules and runs every program in turn,
# then reads each program's TAP output: `ok`, `ok ... # SKIP`, `not ok`, the
# plan line and the harness's `# Totals:` line. A program that stops before
# its Totals line, runs fewer tests than it planned, or exits with a failure
# its TAP lines do not show counts as one more failure; so does a kernel log
# problem (BUG, WARNING, Oops, ...) reported by vm-run.sh. The guest's /out
# (the programs run with it as working directory) is brought back to
# selftests/build/vm-out/; if selftests/Makefile has a host-check target,
# `make -C selftests host-check VM_OUT=<that directory>` then checks on the
# host what the guest wrote, and its `N passed, N failed` line is added.
#
# Ends with `N passed, N failed[, N skipped]`; exits non-zero on any failure.
#
# Environment: VM_SELFTESTS_TIMEOUT (whole VM, default 1200 s),
# VM_SELFTEST_PROG_TIMEOUT (one program, default 600 s), MAKE.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
MAKE=${MAKE:-make}
vm_timeout=${VM_SELFTESTS_TIMEOUT:-1200}
prog_timeout=${VM_SELFTEST_PROG_TIMEOUT:-600}

fail() {
	echo "vm-selftests: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

[ -f "$repo/selftests/Makefile" ] || fail "selftests/Makefile not found"

echo "vm-selftests: building the modules"
"$MAKE" -C "$repo" --no-print-directory modules || fail "the modules do not build (make modules)"
echo "vm-selftests: building the selftests"
"$MAKE" -C "$repo/selftests" --no-print-directory || fail "the selftests do not build (make -C selftests)"

progs=()
while IFS= read -r p; do
	[ -n "$p" ] || continue
	[ -x "$p" ] || fail "make -C selftests list names $p, which is not an executable"
	progs+=("$(readlink -f "$p")")
done < <("$MAKE" -s --no-print-directory -C "$repo/selftests" list)
[ ${#progs[@]} -gt 0 ] || fail "make -C selftests list names no program"

work=$(mktemp -d "${TMPDIR:-/tmp}/vm-selftests.XXXXXX") || fail "cannot create a work directory"
trap 'rm -rf "$work"' EXIT

# The guest side. Markers delimit each program's output so the host can
# tell which lines belong to which program and whether it finished.
{
	echo '#!/bin/sh'
	echo 'echo "# vm-selftests: modprobe neuronprof_sim"'
	echo 'if ! modprobe neuronprof_sim; then'
	echo '	echo "# vm-selftests: MODPROBE-FAILED"'
	echo '	exit 3'
	echo 'fi'
	echo 'ls -l /dev/dri'
	echo 'cd /out'
	for p in "${progs[@]}"; do
		echo "echo '# vm-selftests: BEGIN $(basename "$p")'"
		echo "timeout $prog_timeout '$p' 2>&1"
		echo "echo \"# vm-selftests: END $(basename "$p") \$?\""
	done
} >"$work/guest.sh"

file_args=(--file "$work/guest.sh:/vm-selftests.sh")
for p in "${progs[@]}"; do
	file_args+=(--file "$p")
done

outdir=$repo/selftests/build/vm-out
rm -rf "$outdir"
echo "vm-selftests: booting a VM for ${#progs[@]} programs"
bash "$here/vm-run.sh" --timeout "$vm_timeout" --outdir "$outdir" "${file_args[@]}" \
	-- sh /vm-selftests.sh | tee "$work/output.log"
vm_rc=${PIPESTATUS[0]}

grep -q '^# vm-selftests: MODPROBE-FAILED' "$work/output.log" &&
	fail "modprobe neuronprof_sim failed in the VM (see above)"

# Per program: TAP counts and consistency checks.
awk -v nprogs=${#progs[@]} '
	function finish(name, rc) {
		extra = 0
		why = ""
		if (!totals) { extra = 1; why = "no # Totals line (crashed or killed)" }
		else if (plan >= 0 && ran != plan) { extra = 1; why = "planned " plan " tests, ran " ran }
		else if (rc != 0 && rc != 4 && fail == 0) { extra = 1; why = "exited with " rc " without a failed test" }
		printf "vm-selftests: %s: %d ok, %d not ok, %d skipped%s\n", name, pass, fail + extra, skip, why == "" ? "" : " (" why ")"
		tpass += pass; tfail += fail + extra; tskip += skip
		done++
	}
	/^# vm-selftests: BEGIN / { name = $4; pass = fail = skip = ran = 0; plan = -1; totals = 0; inprog = 1; next }
	/^# vm-selftests: END / { if (inprog) finish($4, $5); inprog = 0; next }
	!inprog { next }
	/^1\.\.[0-9]+/ { sub(/^1\.\./, ""); plan = $0 + 0; next }
	/^# Totals:/ { totals = 1; next }
	/^ok / { ran++; if ($0 ~ /# SKIP/) skip++; else pass++; next }
	/^not ok / { ran++; fail++; next }
	END {
		if (inprog) finish(name, -1)
		if (done < nprogs) {
			printf "vm-selftests: only %d of %d programs ran to completion\n", done, nprogs
			tfail++
		}
		print tpass + 0, tfail + 0, tskip + 0
	}' "$work/output.log" >"$work/counts"
sed '$d' "$work/counts"
read -r passed failed skipped < <(tail -n 1 "$work/counts")

# Host side of the end-to-end tests: read back what the guest wrote.
if grep -Eq '^host-check[[:space:]]*:' "$repo/selftests/Makefile"; then
	echo "vm-selftests: make -C selftests host-check VM_OUT=$outdir"
	"$MAKE" -s --no-print-directory -C "$repo/selftests" host-check VM_OUT="$outdir" 2>&1 |
		tee "$work/host-check.log"
	hc_rc=${PIPESTATUS[0]}
	hc=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/host-check.log" | tail -n 1)
	if [ -z "$hc" ]; then
		echo "vm-selftests: host-check printed no result line (exit $hc_rc)"
		failed=$((failed + 1))
	else
		read -r hp _ hf _ hs _ <<<"${hc//,/}"
		passed=$((passed + hp))
		failed=$((failed + hf))
		skipped=$((skipped + ${hs:-0}))
		if [ "$hc_rc" -ne 0 ] && [ "$hf" -eq 0 ]; then
			echo "vm-selftests: host-check exited with $hc_rc without a failed test"
			failed=$((failed + 1))
		fi
	fi
fi

if [ "$vm_rc" -ne 0 ]; then
	case $vm_rc in
	123) echo "vm-selftests: the guest kernel log shows a problem (see above)" ;;
	124) echo "vm-selftests: the VM hit its ${vm_timeout}s timeout" ;;
	122) echo "vm-selftests: the guest died before finishing" ;;
	125) echo "vm-selftests: the VM could not be prepared" ;;
	*) echo "vm-selftests: the guest script exited with $vm_rc" ;;
	esac
	failed=$((failed + 1))
fi

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
