# SPDX-License-Identifier: GPL-2.0
#
# What every shell test layer shares (tests/*/run.sh, lib/tests/*.sh,
# tools/tests/run.sh, scripts/*-test.sh), sourced after `set -uo pipefail`
# with $repo set: TAP-style result lines numbered as lib/tests/harness.h
# numbers the C tests' ("ok N - name"), their counts, and the final
# `N passed, N failed[, N skipped]` line.
#
#   ok NAME / not_ok NAME [DETAIL...] / skipped NAME WHY
#                       one result line (not_ok: each DETAIL on a "# " line);
#                       N counts the results so far
#   result NAME STATUS [LOG]
#                       ok when STATUS is 0, else not_ok with LOG's last
#                       $RESULT_SHOW_LINES lines (all when unset) on "# " lines
#   check NAME CMD...   a test that passes when CMD succeeds; CMD's output is
#                       shown only on failure, its first $CHECK_SHOW_LINES
#                       lines (all when unset)
#   finish              the result line; exits non-zero after a failure
#   fatal WHY           one more failure, then finish
#   library_version     the library's version from its header; fails without one
#   vendor_source       the vendor driver tree (a directory or a .tar.gz) the
#                       hook tests apply the series to; fails without one
#   check_hook_command LABEL CMD DATA WORK
#                       the installed neuronprof-neuron-hook CMD and its
#                       series in DATA, on a scratch vendor tree under WORK

export LC_ALL=C

pass=0
fail=0
skip=0

ok() {
	pass=$((pass + 1))
	echo "ok $((pass + fail + skip)) - $*"
}

not_ok() {
	fail=$((fail + 1))
	echo "not ok $((pass + fail + skip)) - $1"
	shift
	[ $# -eq 0 ] || printf '# %s\n' "$@"
}

skipped() {
	skip=$((skip + 1))
	echo "ok $((pass + fail + skip)) - $1 # SKIP $2"
}

result() {
	if [ "$2" -eq 0 ]; then
		ok "$1"
	else
		not_ok "$1"
		if [ -n "${3:-}" ] && [ -s "$3" ]; then
			tail -n "${RESULT_SHOW_LINES:-+1}" "$3" | sed 's/^/# /'
		fi
	fi
}

check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		not_ok "$name"
		[ -z "$out" ] || printf '%s\n' "$out" | head -n "${CHECK_SHOW_LINES:--0}" | sed 's/^/#   /'
	fi
}

finish() {
	if [ "$skip" -gt 0 ]; then
		echo "$pass passed, $fail failed, $skip skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	[ "$fail" -eq 0 ]
	exit
}

fatal() {
	not_ok "$*"
	finish
}

library_version() {
	local v

	v=$(awk '/^#define NPROF_VERSION_(MAJOR|MINOR|PATCH)/ { v = v (v == "" ? "" : ".") $3 } END { print v }' \
		"$repo/lib/include/neuronprof/common.h")
	[ -n "$v" ] && echo "$v"
}

# The vendor driver tree, as scripts/vendor-tree.sh finds it.
vendor_source() {
	bash "$repo/scripts/vendor-tree.sh"
}

# The hook command as the packages and make install put it: CMD (in a staged
# or unpacked root, never on this machine's PATH) reads the series from
# DATA, the copy of the tree's driver/neuron/vendor/, and nowhere else, and
# applies it to a scratch copy of the vendor tree (run from /, so nothing is
# found through the working directory).
check_hook_command() {
	local label=$1 cmd=$2 data=$3 work=$4 src v=$4/vendor out rc n

	check "$label: $(basename "$cmd") is an executable file" test -f "$cmd" -a -x "$cmd" -a ! -L "$cmd"
	check "$label: its series (0*.patch, fixes/0*.patch, README) is the tree's driver/neuron/vendor/" \
		diff -r "$repo/driver/neuron/vendor" "$data"
	check "$label: it reads the series from there ($(basename "$cmd") where)" \
		bash -c 'cd / && [ "$("$1" where)" = "$(cd -P "$2" && pwd)" ]' _ "$cmd" "$data"
	mkdir -p "$work/alone/sbin" "$work/link"
	cp "$cmd" "$work/alone/sbin/"
	check "$label: a copy of the command away from the series finds none, says so and fails" \
		bash -c 'out=$(cd / && "$1" where 2>&1); [ $? -eq 1 ] && grep -q "no hook patch series in" <<<"$out"' \
		_ "$work/alone/sbin/$(basename "$cmd")"
	ln -s "$cmd" "$work/link/$(basename "$cmd")"
	check "$label: called through a symbolic link it still reads the installed series" \
		bash -c 'cd / && [ "$("$1" where)" = "$(cd -P "$2" && pwd)" ]' _ "$work/link/$(basename "$cmd")" "$data"

	if ! src=$(vendor_source); then
		skipped "$label: it applies the series to a scratch vendor tree" \
			"no vendor tree (NEURON_DRIVER_SRC, /usr/src/aws-neuronx-*, ../shared/vendor/*.tar.gz)"
		return 0
	fi
	rm -rf "$v" && mkdir -p "$v/tree"
	if [ -d "$src" ]; then
		cp -a "$src/." "$v/tree/"
	else
		tar -xzf "$src" -C "$v/tree" --strip-components=1
	fi || { not_ok "$label: extracting the vendor tree $src"; return 0; }
	cp -a "$v/tree" "$v/other"
	sed -i 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION=2.99.0.0/' "$v/other/dkms.conf"
	check "$label: status on the vendor tree ($(basename "$src")) says it lacks the hook" \
		bash -c 'cd / && "$1" status --src "$2" | grep -q "without the neuronprof hook"' _ "$cmd" "$v/tree"
	n=$(find "$data" -name '0*.patch' | wc -l)
	check "$label: apply applies the $n patches from the installed series to the vendor tree" \
		bash -c 'out=$(cd / && "$1" apply --src "$2" 2>&1) && echo "$out" &&
			grep -qx "neuron-vendor-hook: applied $3 patches from $(cd -P "$4" && pwd) to $2" <<<"$out"' \
		_ "$cmd" "$v/tree" "$n" "$data"
	check "$label: the patched tree carries the header neuronprof_neuron.ko is built against, and status says so" \
		bash -c 'cmp "$1/neuron_nq_hook.h" "$2/driver/neuron/neuron_nq_hook.h" &&
			cd / && "$3" status --src "$1" | grep -q "carries the neuronprof hook"' _ "$v/tree" "$repo" "$cmd"
	check "$label: applying again changes nothing" \
		bash -c 'cd / && "$1" apply --src "$2" | grep -q "already carries the hook"' _ "$cmd" "$v/tree"
	out=$(cd / && "$cmd" apply --src "$v/other" 2>&1)
	rc=$?
	check "$label: another version is refused (exit 2) and left untouched" \
		bash -c '[ "$1" -eq 2 ] && grep -q "for 2.24.7.0 only" <<<"$2" && [ ! -e "$3/neuron_nq_hook.c" ]' \
		_ "$rc" "$out" "$v/other"
}
