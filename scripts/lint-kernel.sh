#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel code hygiene as a test layer: every kernel source file (driver/ and
# the uapi header) must pass checkpatch.pl --strict with no error, warning or
# check, and both modules must build with W=1 and -Werror for the Debian 6.1
# kernel, and every kernel-doc directive in Documentation/ must find what it
# names, and every DOC: section of driver/ must be named by one. Each file,
# directive, DOC: section and the build count as one test. Ends with
# "N passed, N failed".
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cd "$repo" || exit 1

src=$(bash "$here/linux-src.sh" | tail -n 1) || { echo "lint: no kernel source"; exit 1; }
kver=${KVER:-$(bash "$here/kver.sh")}
kdir=${KDIR:-/lib/modules/$kver/build}
# shellcheck source=../tests/lib.sh
. "$repo/tests/lib.sh"

while IFS= read -r f; do
	# The only exemptions: BIT() does not exist for userspace, so the uapi
	# header spells shifts out as every kernel uapi header does; the
	# KUnit tables pass a member name to offsetof()/sizeof_field() twice,
	# and the neuron provider's NPROF_NN_PARAM_PAIR() passes a parameter's
	# name, ops, member and description to module_param_cb() and
	# MODULE_PARM_DESC() for two architectures, all of them tokens or
	# literals, which checkpatch cannot tell from an evaluated argument.
	case $f in
	uapi/*) ignore=BIT_MACRO ;;
	driver/tests/* | driver/neuron/params.c) ignore=MACRO_ARG_REUSE ;;
	*) ignore= ;;
	esac
	out=$("$src/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
		${ignore:+--ignore "$ignore"} -f "$f" 2>&1)
	if [ -z "$out" ]; then
		ok "checkpatch: $f"
	else
		not_ok "checkpatch: $f"
		sed 's/^/# /' <<<"$out"
	fi
done < <(find driver uapi -name '*.[ch]' ! -name '*.mod.c' | sort)

# Every kernel-doc directive of Documentation/ names a DOC: section or an
# export that exists: kernel-doc finds it and has no warning about it. One
# test per directive.
while IFS='|' read -r rst file what; do
	case $what in
	doc:*) sel=(-function "${what#doc: }") ;;
	export) sel=(-export) ;;
	*) sel=() ;;
	esac
	out=$(perl "$src/scripts/kernel-doc" -rst "${sel[@]}" "$file" 2>&1 | grep -v 'Sphinx version')
	if [ -n "$(grep -v 'warning' <<<"$out" | tr -d '[:space:]')" ] && ! grep -q 'warning' <<<"$out"; then
		ok "kernel-doc: $rst: $file ($what)"
	else
		not_ok "kernel-doc: $rst: $file ($what): nothing, or a warning:"
		echo "$out" | head -n 5 | sed 's/^/# /'
	fi
done < <(awk '/^\.\. kernel-doc::/ { f = $3; next }
	      f && /^   :doc:/ { sub(/^   :doc: */, ""); print FILENAME "|" f "|doc: " $0; f = ""; next }
	      f && /^   :export:/ { print FILENAME "|" f "|export"; f = ""; next }
	      { f = "" }' Documentation/*.rst)

# Every DOC: section of driver/ is pulled into Documentation/ by such a
# directive (file and title): a DOC block no page shows is a comment nobody
# reads. One test per DOC: section.
directives=$(awk '/^\.\. kernel-doc::/ { f = $3; next }
		  f && /^   :doc:/ { sub(/^   :doc: */, ""); print f "|" $0; f = ""; next }
		  { f = "" }' Documentation/*.rst)
while IFS='|' read -r file title; do
	if grep -qxF "$file|$title" <<<"$directives"; then
		pass=$((pass + 1))
	else
		echo "kernel-doc: $file: DOC: $title is in no Documentation/*.rst directive"
		fail=$((fail + 1))
	fi
done < <(grep -rn --include='*.[ch]' '^ \* DOC: ' driver | sed 's/^\([^:]*\):[0-9]*: \* DOC: */\1|/')

# W=1 -Werror build in a scratch copy, so the tree's own objects are untouched.
work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-lint.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cp -r Kbuild driver uapi "$work/"
find "$work" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \) -delete
if make -s -C "$kdir" M="$work" CONFIG_DRM_NEURONPROF=m CONFIG_DRM_NEURONPROF_SIM=m \
	CONFIG_DRM_NEURONPROF_NEURON=m CONFIG_DRM_NEURONPROF_FAKE_NEURON=m \
	W=1 KCFLAGS=-Werror modules > "$work/build.log" 2>&1 &&
	! grep -E 'warning:' "$work/build.log"; then
	ok "the modules build with W=1 -Werror"
else
	not_ok "the modules build with W=1 -Werror"
	sed 's/^/# /' "$work/build.log"
fi

finish
