#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Test layer for the vendor hook (driver/neuron/vendor/), the fixes series
# (driver/neuron/vendor/fixes/) and the provider's behaviour next to a real
# neuron.ko, without hardware:
#   - every patch of both series is in git format-patch form; the fixes
#     alone, the hook alone and the fixes followed by the hook apply to the
#     vendor tree (with patch, and with git am where git is installed);
#     neuronprof-neuron-hook applies both, or the fixes alone
#     (--fixes-only); the header the hook adds is the one
#     neuronprof_neuron.ko is built against, and another version is
#     refused;
#   - the hook's head-register decoder (patch 4, in the vendor's
#     v2/notific.c and v3/notific.c) is compiled in userspace against the
#     vendor's own address maps with tests/vendor-hook/decode_test.c and
#     checked on literal offsets (0x3040110c: a v2 TRACE_DMA head) and on
#     every register set the driver programs;
#   - a tree carrying an older fixes series is refused, untouched;
#   - fix 7: the vendor's handle table (neuron_mc_handle.c) is built in
#     userspace with tests/vendor-hook/mch_test.c: with the fixes a stale
#     handle finds nothing, without them it finds the chunk that took its
#     index;
#   - patch 5: mc_free() tells the hook before it frees anything; fix 4:
#     mc_free() halts a queue still using the memory after telling the hook
#     and before it frees anything;
#   - the tree builds against the Debian 6.1 headers with W=1 without the
#     series, with the fixes alone and with both, and neither adds a
#     warning (the vendor's
#     -Werror is dropped in both scratch copies so W=1 warnings can be
#     compared; they are compared without line numbers);
#   - in the QEMU VM (no Neuron device): the unpatched neuron.ko loads and
#     unloads, and neuronprof_neuron refuses to load with a clear message;
#     so does the one with the fixes alone;
#     the patched one loads, the provider registers with it (neuron.ko is
#     then in use), and loads and unloads work in both orders; no oops.
#
# The vendor tree comes from NEURON_DRIVER_SRC (a directory or a .tar.gz),
# else the one /usr/src/aws-neuronx-*/, else ../shared/vendor/*.tar.gz beside
# the repository; without any, the layer reports "skipped" with the reason.
# The VM part needs the modules built (make modules). It boots QEMU: run
# the script under flock /tmp/nprof-vm.lock (make check is run that way).
#
# VENDOR_HOOK_VM=0 skips the VM part (counted as one skipped test).
#
# Ends with "N passed, N failed[, N skipped]".
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
kver=${KVER:-$(bash "$here/kver.sh")}
kdir=${KDIR:-/lib/modules/$kver/build}
# The result lines and their counts; result DESC STATUS [LOG] shows the
# last 40 lines of LOG on failure.
# shellcheck source=../tests/lib.sh
. "$repo/tests/lib.sh"
RESULT_SHOW_LINES=40

# skip WHY: no vendor tree or kernel tree, so the whole layer is skipped.
skip() {
	skipped "the vendor hook" "$1"
	finish
}

src=$(bash "$here/vendor-tree.sh")
[ -n "$src" ] || skip "no vendor tree: set NEURON_DRIVER_SRC, install aws-neuronx-dkms, or put the tarball in ../shared/vendor/"
[ -d "$kdir" ] || skip "no kernel build tree $kdir"

work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-vendor.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/plain"
if [ -d "$src" ]; then
	cp -a "$src/." "$work/plain/"
else
	tar -xzf "$src" -C "$work/plain" --strip-components=1 || skip "cannot extract $src"
fi
echo "vendor tree: $src"
cp -a "$work/plain" "$work/hook"
cp -a "$work/plain" "$work/fixes"
hooks=("$repo"/driver/neuron/vendor/0*.patch)
fixes=("$repo"/driver/neuron/vendor/fixes/0*.patch)

bad=
for p in "${fixes[@]}" "${hooks[@]}"; do
	head -n 1 "$p" | grep -q '^From [0-9a-f]\{40\} ' && grep -q '^Subject: \[PATCH [0-9]*/[0-9]*\]' "$p" &&
		grep -q '^---$' "$p" && grep -q '^diff --git ' "$p" || bad="$bad $(basename "$p")"
done
echo "not in format-patch form:${bad:- none}" > "$work/form.log"
[ -z "$bad" ]
result "every patch is in git format-patch form (${#fixes[@]} fixes, ${#hooks[@]} hook patches)" $? "$work/form.log"
# am_apply NAME PATCH...: PATCH... apply in order with git am to a fresh
# git tree of the vendor source.
am_apply() {
	local name=$1
	shift
	rm -rf "$work/am"
	cp -a "$work/plain" "$work/am"
	(cd "$work/am" && git init -q && git add -A &&
		git -c user.name=t -c user.email=t@t commit -qm base &&
		git -c user.name=t -c user.email=t@t am -q "$@") > "$work/am-$name.log" 2>&1
}
# patch_apply NAME PATCH...: the same with patch -p1, no fuzz.
patch_apply() {
	local name=$1 p
	shift
	rm -rf "$work/pa"
	cp -a "$work/plain" "$work/pa"
	for p in "$@"; do
		patch -d "$work/pa" -p1 -F 0 -s -f < "$p" || return 1
	done > "$work/patch-$name.log" 2>&1
}
for combo in "fixes:the fixes series alone" "hooks:the hook series alone" "both:the fixes, then the hook series"; do
	case ${combo%%:*} in
	fixes) set -- "${fixes[@]}" ;;
	hooks) set -- "${hooks[@]}" ;;
	both) set -- "${fixes[@]}" "${hooks[@]}" ;;
	esac
	patch_apply "${combo%%:*}" "$@"
	result "${combo#*:} applies to the vendor tree with patch -F 0" $? "$work/patch-${combo%%:*}.log"
	if command -v git > /dev/null; then
		am_apply "${combo%%:*}" "$@"
		result "${combo#*:} applies with git am" $? "$work/am-${combo%%:*}.log"
	fi
done
rm -rf "$work/am" "$work/pa"
bash "$here/neuron-vendor-hook.sh" apply --src "$work/hook" > "$work/apply.log" 2>&1 &&
	grep -q "applied $((${#fixes[@]} + ${#hooks[@]})) patches" "$work/apply.log"
result "neuron-vendor-hook applies the fixes and the hook" $? "$work/apply.log"
bash "$here/neuron-vendor-hook.sh" apply --fixes-only --src "$work/fixes" > "$work/apply-fixes.log" 2>&1 &&
	grep -q "applied ${#fixes[@]} patches" "$work/apply-fixes.log" && [ ! -e "$work/fixes/neuron_nq_hook.c" ] &&
	bash "$here/neuron-vendor-hook.sh" status --src "$work/fixes" | grep -q "without the neuronprof hook.*, with the neuronprof fixes"
result "neuron-vendor-hook --fixes-only applies the fixes alone, and status says so" $? "$work/apply-fixes.log"
cmp "$work/hook/neuron_nq_hook.h" "$repo/driver/neuron/neuron_nq_hook.h" > "$work/cmp.log" 2>&1
result "driver/neuron/neuron_nq_hook.h is the header the series adds" $? "$work/cmp.log"
bash "$here/neuron-vendor-hook.sh" apply --src "$work/hook" > "$work/again.log" 2>&1 &&
	grep -q "already carries the hook" "$work/again.log"
result "applying again changes nothing" $? "$work/again.log"

# The decoder against the vendor's address maps, per architecture.
for v in 2 3; do
	${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -DNQ_V=$v \
		-I "$repo/tests/vendor-hook/shim" -I "$work/hook" -I "$work/hook/v$v" -I "$repo/driver/tests" \
		-o "$work/decode_v$v" "$repo/tests/vendor-hook/decode_test.c" "$work/hook/v$v/notific.c" \
		> "$work/decode_v$v.log" 2>&1 && "$work/decode_v$v" >> "$work/decode_v$v.log" 2>&1
	rc=$?
	result "v$v head decoder against the vendor's address map: $(tail -n 1 "$work/decode_v$v.log")" $rc \
		"$work/decode_v$v.log"
done
# Fix 7: the handle table with the fixes refuses stale handles; the same
# test finds the hole in the vendor's table (so it can fail).
mch_test() {
	rm -rf "$work/mch-$1"
	mkdir -p "$work/mch-$1"
	cp "$work/$1"/neuron_mc_handle.[ch] "$work/mch-$1/" && cp -r "$repo/tests/vendor-hook/mch/." "$work/mch-$1/" &&
		${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -pthread -DKBUILD_MODNAME='"neuron"' \
			-I "$work/mch-$1" -o "$work/mch-$1/mch_test" "$repo/tests/vendor-hook/mch_test.c" \
			"$work/mch-$1/neuron_mc_handle.c" > "$work/mch-$1.log" 2>&1 &&
		"$work/mch-$1/mch_test" >> "$work/mch-$1.log" 2>&1
}
mch_test fixes
rc=$?	# before the command substitution below changes $?
result "fix 7: the handle table refuses stale handles: $(tail -n 1 "$work/mch-fixes.log")" $rc "$work/mch-fixes.log"
mch_test plain
[ $? -eq 1 ] && grep -q "^not ok .*A's stale handle finds nothing" "$work/mch-plain.log"
result "without fix 7 the same test finds the vendor's table handing a stale handle the new chunk" $? "$work/mch-plain.log"

# Patch 5: in mc_free(), the hook is told after the last reference is
# dropped and before any of the memory is given back.
awk '/^void mc_free\(/ { f = 1 } f && /neuron_nq_hook_mc_free\(/ && !seen { hook = NR; seen = 1 }
	f && /ref_count > 0/ && !rc { rc = NR }
	f && /(gen_pool_free|dma_free_coherent|kfree)\(/ && !fr { fr = NR }
	f && /^}/ { exit } END { exit !(rc && hook > rc && fr && hook < fr) }' \
	"$work/hook/neuron_mempool.c"
result "mc_free() tells the hook after the last reference and before freeing (patch 5)" $?
# Fix 4: mc_free() halts a queue still using the chunk after the hook was
# told and before any of the memory is given back.
awk '/^void mc_free\(/ { f = 1 } f && /neuron_nq_hook_mc_free\(/ && !hook { hook = NR }
	f && /nnq_release_mc\(/ && !rel { rel = NR }
	f && /(gen_pool_free|dma_free_coherent|kfree)\(/ && !fr { fr = NR }
	f && /^}/ { exit } END { exit !(hook && rel > hook && fr && rel < fr) }' \
	"$work/hook/neuron_mempool.c"
result "mc_free() halts a queue that uses the memory after telling the hook and before freeing (fix 4)" $?

cp -a "$work/hook" "$work/old"
sed -i 's/^#define NEURON_NQ_HOOK_VERSION.*/#define NEURON_NQ_HOOK_VERSION\t\t1/' "$work/old/neuron_nq_hook.h"
bash "$here/neuron-vendor-hook.sh" apply --src "$work/old" > "$work/old.log" 2>&1
[ $? -eq 1 ] && grep -q "carries hook version 1 from another neuronprof" "$work/old.log"
result "a tree with an older hook version is refused" $? "$work/old.log"
rm -rf "$work/old"

# A tree that carries an older fixes series (here all but the last fix) is
# refused, not patched again.
cp -a "$work/plain" "$work/oldfix"
for p in "${fixes[@]:0:${#fixes[@]}-1}"; do patch -d "$work/oldfix" -p1 -s -f < "$p"; done > "$work/oldfix.log" 2>&1
cp -a "$work/oldfix" "$work/oldfix.orig"
bash "$here/neuron-vendor-hook.sh" apply --src "$work/oldfix" >> "$work/oldfix.log" 2>&1
[ $? -eq 1 ] && grep -q "carries an older fixes series" "$work/oldfix.log" &&
	diff -r "$work/oldfix.orig" "$work/oldfix" >> "$work/oldfix.log" 2>&1
result "a tree with an older fixes series is refused and left untouched" $? "$work/oldfix.log"
rm -rf "$work/oldfix" "$work/oldfix.orig"

cp -a "$work/plain" "$work/other"
sed -i 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION=2.99.0.0/' "$work/other/dkms.conf"
bash "$here/neuron-vendor-hook.sh" apply --src "$work/other" > "$work/other.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "for 2.24.7.0 only" "$work/other.log" &&
	[ ! -e "$work/other/neuron_nq_hook.c" ] && cmp -s "$work/plain/neuron_nq.c" "$work/other/neuron_nq.c"
result "another version is refused and left untouched" $? "$work/other.log"

build() {
	sed -i 's/ -Werror//' "$work/$1/Kbuild"
	make -C "$kdir" M="$work/$1" W=1 -j"${NPROF_JOBS:-2}" modules > "$work/build-$1.log" 2>&1
}
build plain
result "the vendor tree builds with W=1 without the series" $? "$work/build-plain.log"
build fixes
result "the vendor tree builds with W=1 with the fixes alone" $? "$work/build-fixes.log"
build hook
result "the vendor tree builds with W=1 with the fixes and the hook" $? "$work/build-hook.log"
norm() {
	grep -E 'warning:' "$work/build-$1.log" |
		sed -E "s#$work/$1/##; s#:[0-9]+(:[0-9]+)?:#:#" | sort
}
nwarn=$(norm plain | wc -l)
diff <(norm plain) <(norm fixes) > "$work/warn-fixes.diff"
result "the fixes add no W=1 warning ($nwarn in the vendor tree)" $? "$work/warn-fixes.diff"
diff <(norm plain) <(norm hook) > "$work/warn.diff"
result "the fixes and the hook add no W=1 warning" $? "$work/warn.diff"
modinfo -F depends "$work/hook/neuron.ko" > /dev/null 2>&1 &&
	grep -q neuron_nq_hook_register "$work/hook/Module.symvers"
result "the patched neuron.ko exports neuron_nq_hook_register" $?

# The VM part.
prov=$repo/driver/neuron/neuronprof_neuron.ko
if [ "${VENDOR_HOOK_VM:-1}" = 0 ]; then
	skipped "vm: the VM part" "VENDOR_HOOK_VM=0"
elif [ ! -f "$prov" ] || [ ! -f "$repo/driver/core/neuronprof.ko" ]; then
	echo "vendor-hook: the VM part needs make modules"
	result "modules built for the VM part" 1
else
	mkdir -p "$work/vm/plain" "$work/vm/hook" "$work/vm/fixes"
	cp "$work/plain/neuron.ko" "$work/vm/plain/"
	cp "$work/fixes/neuron.ko" "$work/vm/fixes/"
	cp "$work/hook/neuron.ko" "$work/vm/hook/"
	cat > "$work/vm/run.sh" <<'GUEST'
V=/nprof-vendor
t() { if "$@" > /tmp/out 2>&1; then echo "VM-OK $D"; else echo "VM-FAIL $D"; cat /tmp/out; fi; }
modprobe neuronprof || exit 3
D="unpatched neuron.ko loads"; t insmod $V/plain/neuron.ko
D="the provider refuses to load next to it"; t sh -c '! modprobe neuronprof_neuron'
D="with a message saying the hook is missing"; t sh -c 'dmesg | grep -q "does not carry the neuronprof hook"'
D="unpatched neuron.ko unloads"; t rmmod neuron
D="the provider refuses to load without neuron.ko"; t sh -c '! modprobe neuronprof_neuron'
D="neuron.ko with the fixes alone loads"; t insmod $V/fixes/neuron.ko
D="the provider refuses to load next to it"; t sh -c '! modprobe neuronprof_neuron'
D="neuron.ko with the fixes alone unloads"; t rmmod neuron
D="patched neuron.ko loads"; t insmod $V/hook/neuron.ko
D="the provider loads and registers with the hook"; t modprobe neuronprof_neuron
D="neuron.ko is held by the provider (symbol_get)"; t sh -c '[ "$(cat /sys/module/neuron/refcnt)" -ge 1 ]'
D="neuron.ko cannot be unloaded first"; t sh -c '! rmmod neuron'
D="the provider unloads"; t rmmod neuronprof_neuron
D="the provider loads again"; t modprobe neuronprof_neuron
D="the provider unloads again"; t rmmod neuronprof_neuron
D="patched neuron.ko unloads"; t rmmod neuron
D="patched neuron.ko loads after the provider was refused"; t sh -c '! modprobe neuronprof_neuron && insmod /nprof-vendor/hook/neuron.ko && modprobe neuronprof_neuron && rmmod neuronprof_neuron && rmmod neuron'
GUEST
	bash "$here/vm-run.sh" --timeout 300 \
		--file "$work/vm:/nprof-vendor" -- 'sh /nprof-vendor/run.sh' > "$work/vm.log" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		VM-OK\ *) result "vm: ${line#VM-OK }" 0 ;;
		VM-FAIL\ *) result "vm: ${line#VM-FAIL }" 1 ;;
		esac
	done < "$work/vm.log"
	[ $rc -eq 0 ] && grep -q "VM-OK patched neuron.ko loads after" "$work/vm.log"
	result "vm: the run completed with a clean kernel log (vm-run status $rc)" $? "$work/vm.log"
fi

finish
