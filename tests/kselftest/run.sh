#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kselftest conventions of selftests/ (Documentation/testing.rst, The
# kselftests), on the host, where no neuronprof device exists:
#
#   install    make -C selftests install INSTALL_PATH=DIR leaves the
#              programs, settings, kselftest-list.txt (as make emit_tests
#              prints it, other collections' lines kept), run_kselftest.sh
#              and kselftest/runner.sh; the i386 programs in m32/ with
#              ia32_probe, each listed as m32_wrapper.sh
#   run_tests  make -C selftests run_tests prints KTAP for every program,
#              and every test of every program skips with a reason (the
#              i386 ones because the kernel cannot execute them, where it
#              cannot)
#   runner     run_kselftest.sh under busybox sh with busybox's utilities
#              only (what the VM has): -l, -t, -c, -s, -d, -o; exit status
#              0, 4 (SKIP), other (exit=RC) and a hang (TIMEOUT, from the
#              collection's settings file) become the kernel runner's lines
#   m32        m32_wrapper.sh under busybox sh: runs m32/NAME with its
#              arguments and exit status where ia32_probe answers, skips
#              with the reason where it does not
#
# The selftests run here only when no neuronprof module is loaded, so they
# cannot touch a device; they never load one (they skip first).
# Ends with `N passed, N failed[, N skipped]`; exits non-zero on a failure.
#
# Environment: MAKE, BUSYBOX (default /bin/busybox).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
MAKE=${MAKE:-make}
BUSYBOX=${BUSYBOX:-/bin/busybox}
. "$repo/tests/lib.sh"
CHECK_SHOW_LINES=40

work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-kselftest-test.XXXXXX") || fatal "cannot create a work directory"
trap 'rm -rf "$work"' EXIT

# ---- install ---------------------------------------------------------------------
inst=$work/inst
mkdir -p "$inst"
# Another collection's line, as the kernel's own kselftest_install has them.
echo "othercollection:other_test" >"$inst/kselftest-list.txt"
if ! "$MAKE" -C "$repo/selftests" --no-print-directory install INSTALL_PATH="$inst" >"$work/install.log" 2>&1; then
	sed 's/^/#   /' "$work/install.log" | tail -n 30
	not_ok "make -C selftests install INSTALL_PATH=DIR"
	finish
fi
ok "make -C selftests install INSTALL_PATH=DIR"
mapfile -t emitted < <("$MAKE" -s --no-print-directory -C "$repo/selftests" emit_tests)
nprogs=${#emitted[@]}
check "make emit_tests prints one neuronprof:PROGRAM line per program ($nprogs)" \
	bash -c '[ "$1" -gt 0 ] && [ -z "$(printf "%s\n" "${@:2}" | grep -v "^neuronprof:[0-9][0-9]_[a-z0-9_]*$")" ]' _ "$nprogs" "${emitted[@]}"
check "kselftest-list.txt: the other collection's line, then the emit_tests lines in order" \
	diff <(echo "othercollection:other_test"; printf '%s\n' "${emitted[@]}") "$inst/kselftest-list.txt"
# An i386 program NAME_m32 is m32/NAME_m32, started by m32_wrapper.sh
# installed as NAME_m32.
check "every listed program is installed, executable, and the one built (NAME_m32: m32_wrapper.sh, the program in m32/)" \
	bash -c 'for e in "${@:3}"; do p=${e#neuronprof:}; [ -x "$1/neuronprof/$p" ] || { echo "$p"; exit 1; }
		case $p in
		*_m32) cmp -s "$2/m32_wrapper.sh" "$1/neuronprof/$p" && [ -x "$1/neuronprof/m32/$p" ] &&
			cmp -s "$2/build/$p" "$1/neuronprof/m32/$p" || { echo "$p"; exit 1; } ;;
		*) cmp -s "$2/build/$p" "$1/neuronprof/$p" || { echo "$p"; exit 1; } ;;
		esac; done' \
	_ "$inst" "$repo/selftests" "${emitted[@]}"
m32_listed=$(printf '%s\n' "${emitted[@]}" | sed -n 's/^neuronprof:\(.*_m32\)$/\1/p')
check "nothing else in the collection directory but its settings (timeout=) and m32/ (the i386 programs and ia32_probe)" \
	bash -c '[ "$(ls "$1/neuronprof" | grep -vx settings | grep -vx m32 | wc -l)" -eq "$2" ] && grep -Eqx "timeout=[0-9]+" "$1/neuronprof/settings" &&
		if [ -n "$3" ]; then [ "$(ls "$1/neuronprof/m32" | xargs)" = "$(printf "%s\n" $3 ia32_probe | sort | xargs)" ]; else [ ! -e "$1/neuronprof/m32" ]; fi' \
	_ "$inst" "$nprogs" "$m32_listed"
check "run_kselftest.sh and kselftest/runner.sh are installed" \
	test -x "$inst/run_kselftest.sh" -a -f "$inst/kselftest/runner.sh"
check "run_kselftest.sh -l lists kselftest-list.txt" diff <("$inst/run_kselftest.sh" -l) "$inst/kselftest-list.txt"

# ---- make run_tests on a machine without a neuronprof device -----------------------
loaded=
for m in neuronprof neuronprof_sim; do
	[ ! -d "/sys/module/$m" ] || loaded="$loaded $m"
done
# i386 programs run only where the kernel has IA32 emulation.
# bash reports an ELF file the kernel refuses (ENOEXEC) with status 126.
m32_ok=1
m32=$(head -n 1 <<<"$m32_listed")
if [ -n "$m32" ]; then
	"$inst/neuronprof/m32/$m32" -l >/dev/null 2>&1
	[ $? -ne 126 ] || m32_ok=0
fi
if [ -n "$loaded" ]; then
	skipped "make run_tests: every test skips without a device" "this machine has${loaded} loaded"
else
	"$MAKE" -s --no-print-directory -C "$repo/selftests" run_tests INSTALL_PATH="$work/run" >"$work/run.log" 2>&1
	rc=$?
	check "make run_tests exits 0 (status $rc) and prints KTAP: TAP version 13, 1..$nprogs" \
		bash -c '[ "$1" -eq 0 ] && grep -qx "TAP version 13" "$2" && grep -qx "1\.\.$3" "$2"' _ "$rc" "$work/run.log" "$nprogs"
	# Per program: the runner's header and result line; inside, the
	# program's own TAP, every test "ok N name # SKIP <reason>".
	bad=$(awk '
		/^# selftests: neuronprof: / { name = $4; tests = 0; skips = 0; noreason = 0; others = 0; next }
		/^(not )?ok [0-9]+ selftests: neuronprof: / {
			if ($1 != "ok") print name ": runner says " $0
			else if (tests == 0) print name ": no test ran"
			else if (skips != tests || others) print name ": " tests " tests, " skips " skipped"
			else if (noreason) print name ": " noreason " skips without a reason"
			done++
			next
		}
		/^# (not )?ok [0-9]+ / {
			tests++
			if ($0 ~ /^# ok [0-9]+ .*# SKIP [^ ]/) skips++
			else if ($0 ~ /# SKIP *$/) { skips++; noreason++ }
			else others++
		}
		END { if (done + 0 == 0) print "no program ran" }' "$work/run.log")
	if [ -z "$bad" ]; then
		ok "every test of every program skips with a reason ($(grep -c '^# ok [0-9]* .*# SKIP' "$work/run.log") tests)"
	else
		not_ok "every test of every program skips with a reason"
		sed 's/^/#   /' <<<"$bad"
	fi
	check "the reasons name what is missing (root, neuronprof_sim, the fake Neuron device, a render node, i386 programs)" \
		bash -c 'grep -E "^# ok [0-9]+ .*# SKIP" "$1" | grep -Evq "neuronprof_sim|neuronprof_fake_neuron|render node|root|i386 programs" && exit 1; exit 0' _ "$work/run.log"
	# The i386 programs skip for the kernel's sake where, and only where,
	# it cannot execute them.
	if [ -n "$m32" ]; then
		if [ "$m32_ok" -eq 0 ]; then
			what="this kernel cannot execute i386 programs: every _m32 program skips for that reason"
		else
			what="this kernel executes i386 programs: no _m32 program skips for want of IA32 emulation"
		fi
		check "$what" \
			bash -c 'n=$(awk "/^# selftests: neuronprof: .*_m32\$/ { p = 1; next } /^(not )?ok [0-9]+ selftests: / { p = 0 }
					p && /# SKIP this kernel cannot execute i386 programs/ { n++ } END { print n + 0 }" "$1")
				if [ "$2" -eq 0 ]; then [ "$n" -eq "$3" ]; else [ "$n" -eq 0 ]; fi' \
			_ "$work/run.log" "$m32_ok" "$(wc -w <<<"$m32_listed")"
	fi
fi

# ---- the runner, under busybox ------------------------------------------------------
if [ ! -x "$BUSYBOX" ]; then
	not_ok "busybox $BUSYBOX is installed (busybox-static, make deps)"
	finish
fi
bb=$work/bb
mkdir -p "$bb"
for a in $("$BUSYBOX" --list); do
	ln -s "$BUSYBOX" "$bb/$a"
done
fake=$work/fake
mkdir -p "$fake"
cp -a "$inst/run_kselftest.sh" "$inst/kselftest" "$fake/"
mkdir -p "$fake/coll"
printf '#!/bin/sh\necho "TAP version 13"\necho "1..1"\necho "ok 1 fine"\necho "args: $*"\n' >"$fake/coll/a_pass"
printf '#!/bin/sh\necho "no device"\nexit 4\n' >"$fake/coll/b_skip"
printf '#!/bin/sh\necho "broken" >&2\nexit 3\n' >"$fake/coll/c_fail"
printf '#!/bin/sh\nexec sleep 30\n' >"$fake/coll/d_hang"
chmod +x "$fake"/coll/*
echo "timeout=2" >"$fake/coll/settings"
printf 'coll:a_pass\ncoll:b_skip\ncoll:c_fail\ncoll:d_hang\n' >"$fake/kselftest-list.txt"
bbrun() {
	env -i PATH="$bb" KSELFTEST_A_PASS_ARGS="x y" "$BUSYBOX" sh "$fake/run_kselftest.sh" "$@"
}
bbrun >"$work/bb.log" 2>&1
check "busybox sh: TAP version 13, 1..4 and one result line per program" \
	bash -c '[ "$(head -n 2 "$1" | tr "\n" " ")" = "TAP version 13 1..4 " ] && [ "$(grep -Ec "^(not )?ok [0-9]+ selftests: coll: " "$1")" -eq 4 ]' _ "$work/bb.log"
check "exit 0: ok, the program's output prefixed with '# ', KSELFTEST_<NAME>_ARGS passed" \
	bash -c 'grep -qx "# selftests: coll: a_pass" "$1" && grep -qx "# ok 1 fine" "$1" && grep -qx "# args: x y" "$1" &&
		grep -qx "ok 1 selftests: coll: a_pass" "$1"' _ "$work/bb.log"
check "exit 4: ok ... # SKIP" grep -qx "ok 2 selftests: coll: b_skip # SKIP" "$work/bb.log"
check "exit 3: not ok ... # exit=3, stderr in the output" \
	bash -c 'grep -qx "# broken" "$1" && grep -qx "not ok 3 selftests: coll: c_fail # exit=3" "$1"' _ "$work/bb.log"
check "a hang: not ok ... # TIMEOUT 2 seconds (the collection's settings)" \
	grep -qx "not ok 4 selftests: coll: d_hang # TIMEOUT 2 seconds" "$work/bb.log"
bbrun -o 1 -t coll:d_hang >"$work/bb-o.log" 2>&1
check "-o 1 -t coll:d_hang: one program, TIMEOUT 1 seconds" \
	bash -c 'grep -qx "1\.\.1" "$1" && grep -qx "not ok 1 selftests: coll: d_hang # TIMEOUT 1 seconds" "$1"' _ "$work/bb-o.log"
bbrun -s -t coll:a_pass -t coll:c_fail >"$work/bb-s.log" 2>&1
check "-s: results on stdout, the programs' output in output.log" \
	bash -c '! grep -q "^# ok 1 fine" "$1" && grep -qx "ok 1 selftests: coll: a_pass" "$1" && grep -qx "# ok 1 fine" "$2/output.log" &&
		grep -qx "# broken" "$2/output.log"' _ "$work/bb-s.log" "$fake"
check "-c coll runs the collection, -d runs nothing" \
	bash -c '[ "$(env -i PATH="$1" "$2" sh "$3/run_kselftest.sh" -c coll -o 1 | grep -c "selftests: coll:")" -eq 8 ] &&
		! env -i PATH="$1" "$2" sh "$3/run_kselftest.sh" -d | grep -q "^ok"' _ "$bb" "$BUSYBOX" "$fake"
check "an unknown test or collection is refused" \
	bash -c '! env -i PATH="$1" "$2" sh "$3/run_kselftest.sh" -t coll:nope 2>/dev/null && ! env -i PATH="$1" "$2" sh "$3/run_kselftest.sh" -c nope 2>/dev/null' \
	_ "$bb" "$BUSYBOX" "$fake"

# ---- m32_wrapper.sh, under busybox ----------------------------------------------------
# Stand-ins for the i386 program and ia32_probe, so that both of its paths
# run whatever this kernel executes.
mw=$work/m32w
mkdir -p "$mw/m32"
cp "$repo/selftests/m32_wrapper.sh" "$mw/99_x_m32"
printf '#!/bin/sh\necho "ran $0 with $# arguments: $*"\nexit 3\n' >"$mw/m32/99_x_m32"
chmod +x "$mw/99_x_m32" "$mw/m32/99_x_m32"
mwrun() {
	(cd "$mw" && env -i PATH="$bb" "$BUSYBOX" sh ./99_x_m32 "$@")
}
printf '#!/bin/sh\necho ia32\n' >"$mw/m32/ia32_probe"
chmod +x "$mw/m32/ia32_probe"
out=$(mwrun -v "a b" 2>&1)
rc=$?
check "m32_wrapper.sh, ia32_probe answering: runs m32/NAME with its arguments and returns its exit status" \
	bash -c '[ "$1" = "ran ./m32/99_x_m32 with 2 arguments: -v a b" ] && [ "$2" -eq 3 ]' _ "$out" "$rc"
for probe in 'exit 0' 'echo no; exit 1' missing; do
	rm -f "$mw/m32/ia32_probe"
	if [ "$probe" != missing ]; then
		printf '#!/bin/sh\n%s\n' "$probe" >"$mw/m32/ia32_probe"
		chmod +x "$mw/m32/ia32_probe"
	fi
	out=$(mwrun -v 2>&1)
	rc=$?
	check "m32_wrapper.sh, ia32_probe '$probe': exit 4 and one test skipped with the reason, the program not run" \
		bash -c '[ "$2" -eq 4 ] && grep -qx "1\.\.1" <<<"$1" &&
			grep -qx "ok 1 99_x_m32 # SKIP this kernel cannot execute i386 programs (no IA32 emulation)" <<<"$1" &&
			grep -q "^# Totals: .*skip:1" <<<"$1" && ! grep -q "^ran " <<<"$1"' _ "$out" "$rc"
done

finish
