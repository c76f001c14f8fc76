#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kselftest programs of selftests/ inside one QEMU VM on the
# Debian 6.1 kernel, with neuronprof_sim (and through it neuronprof)
# loaded by modprobe.
#
# It builds the modules (make modules), installs the kselftests the way a
# user does (make -C selftests install INSTALL_PATH=...: the programs,
# kselftest-list.txt, run_kselftest.sh), boots one VM (scripts/vm-run.sh)
# with that directory at /kselftests, loads the modules and runs
# /kselftests/run_kselftest.sh there, as on a Neuron instance. It then reads
# the KTAP the runner prints: per program the runner's result line (exit
# status, SKIP, TIMEOUT) and, prefixed "# ", the program's own TAP: `ok`,
# `ok ... # SKIP`, `not ok`, the plan line and the harness's `# Totals:`
# line. A program that stops before its Totals line, runs fewer tests than
# it planned, or exits with a failure its TAP lines do not show counts as
# one more failure; so does a program of kselftest-list.txt the runner did
# not finish, a kernel log problem (BUG, WARNING, Oops, ...) reported by
# vm-run.sh, and an i386 program that skipped because the kernel would not
# execute it (the guest's kernel does). Files the programs leave in their
# working directory (the installed collection directory, as the kernel's
# runner has it) are moved to the guest's /out, which is brought back to
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
work=$(mktemp -d "${TMPDIR:-/tmp}/vm-selftests.XXXXXX") || fail "cannot create a work directory"
trap 'rm -rf "$work"' EXIT

inst=$work/kselftests
echo "vm-selftests: building and installing the selftests (make -C selftests install)"
"$MAKE" -C "$repo/selftests" --no-print-directory install INSTALL_PATH="$inst" ||
	fail "the selftests do not build or install (make -C selftests install)"
[ -x "$inst/run_kselftest.sh" ] || fail "make -C selftests install left no run_kselftest.sh"

progs=()
while IFS=: read -r collection p; do
	[ -n "$p" ] || continue
	[ -x "$inst/$collection/$p" ] || fail "kselftest-list.txt names $collection:$p, which is not an installed executable"
	progs+=("$p")
done <"$inst/kselftest-list.txt"
[ ${#progs[@]} -gt 0 ] || fail "kselftest-list.txt names no program"

# The guest side: what a user runs on a machine with the modules.
cat >"$work/guest.sh" <<EOF
#!/bin/sh
echo "# vm-selftests: modprobe neuronprof_sim"
if ! modprobe neuronprof_sim; then
	echo "# vm-selftests: MODPROBE-FAILED"
	exit 3
fi
ls -l /dev/dri
touch /tmp/vm-selftests.start
# The VM is a test machine: 86_neuron may load the fake Neuron device there.
NPROF_SELFTEST_LOAD_FAKE_NEURON=1 /kselftests/run_kselftest.sh --override-timeout $prog_timeout
echo "# vm-selftests: RUN-KSELFTEST-EXIT \$?"
# What the programs wrote in their working directory goes back to the host.
for d in /kselftests/*/; do
	find "\$d" -mindepth 1 -maxdepth 1 -newer /tmp/vm-selftests.start -exec mv {} /out/ \;
done
EOF

file_args=(--file "$work/guest.sh:/vm-selftests.sh" --file "$inst:/kselftests")

outdir=$repo/selftests/build/vm-out
rm -rf "$outdir"
echo "vm-selftests: booting a VM for ${#progs[@]} programs (/kselftests/run_kselftest.sh)"
bash "$here/vm-run.sh" --timeout "$vm_timeout" --outdir "$outdir" "${file_args[@]}" \
	-- sh /vm-selftests.sh | tee "$work/output.log"
vm_rc=${PIPESTATUS[0]}

grep -q '^# vm-selftests: MODPROBE-FAILED' "$work/output.log" &&
	fail "modprobe neuronprof_sim failed in the VM (see above)"

# Per program: TAP counts and consistency checks. The runner's KTAP: a
# "# selftests: COLLECTION: NAME" line opens a program, its own output
# follows prefixed "# ", and the runner's "ok N|not ok N selftests: ..."
# line closes it with the exit status (0; 4 for "# SKIP", every test
# skipped; "# exit=RC"; 124 for "# TIMEOUT").
tr -d '\r' <"$work/output.log" | awk -v nprogs=${#progs[@]} '
	function finish(name, rc, how) {
		extra = 0
		why = ""
		if (rc == 124) { extra = 1; why = "killed at its timeout: " how }
		else if (!totals) { extra = 1; why = "no # Totals line (crashed or killed)" }
		else if (plan >= 0 && ran != plan) { extra = 1; why = "planned " plan " tests, ran " ran }
		else if (rc != 0 && rc != 4 && fail == 0) { extra = 1; why = "exited with " rc " without a failed test" }
		printf "vm-selftests: %s: %d ok, %d not ok, %d skipped%s\n", name, pass, fail + extra, skip, why == "" ? "" : " (" why ")"
		tpass += pass; tfail += fail + extra; tskip += skip
		done++
	}
	/^# selftests: [^ ]+: / { if (inprog) finish(name, -1, ""); name = $4; pass = fail = skip = ran = 0; plan = -1; totals = 0; inprog = 1; next }
	/^(not )?ok [0-9]+ selftests: / {
		if (!inprog) next
		if ($1 == "ok") rc = ($0 ~ /# SKIP$/) ? 4 : 0
		else if ($0 ~ /# exit=[0-9]+$/) { rc = $0; sub(/.*# exit=/, "", rc); rc += 0 }
		else if ($0 ~ /# TIMEOUT/) rc = 124
		else rc = -1
		how = $0; sub(/^[^#]*# */, "", how)
		finish(name, rc, how)
		inprog = 0
		next
	}
	!inprog { next }
	{ if (substr($0, 1, 2) == "# ") line = substr($0, 3); else if ($0 == "#") line = ""; else next }
	line ~ /^1\.\.[0-9]+/ { sub(/^1\.\./, "", line); plan = line + 0; next }
	line ~ /^# Totals:/ { totals = 1; next }
	line ~ /^ok / { ran++; if (line ~ /# SKIP/) skip++; else pass++; next }
	line ~ /^not ok / { ran++; fail++; next }
	END {
		if (inprog) finish(name, -1, "")
		if (done < nprogs) {
			printf "vm-selftests: only %d of %d programs ran to completion\n", done, nprogs
			tfail++
		}
		print tpass + 0, tfail + 0, tskip + 0
	}' >"$work/counts"
sed '$d' "$work/counts"
read -r passed failed skipped < <(tail -n 1 "$work/counts")

# The Debian kernel executes i386 programs (IA32 emulation): there the
# _m32 programs must run, not skip for want of it (m32_wrapper.sh).
m32_skips=$(grep -c '# SKIP this kernel cannot execute i386 programs' "$work/output.log")
if [ "$m32_skips" -gt 0 ]; then
	echo "vm-selftests: $m32_skips i386 program(s) skipped as if the guest kernel could not execute them"
	failed=$((failed + 1))
fi

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
