#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Apply the neuronprof hook (the patch series of driver/neuron/vendor/) to
# the vendor's Neuron driver source and build, install or check it.
#
# Usage: neuronprof-neuron-hook COMMAND [--src DIR] [--kver KVER] [--fixes-only]
#        (in the source tree: scripts/neuron-vendor-hook.sh COMMAND ...)
#   status    say whether DIR is a supported vendor tree and carries the
#             fixes and the hook
#   apply     apply the fixes series, then the hook series, to DIR (what is
#             applied already is not applied again)
#   build     apply, then build neuron.ko in DIR for KVER
#   install   apply, then rebuild and install neuron.ko for KVER through DKMS
#             (dkms install --force) or, without DKMS, into
#             /lib/modules/KVER/updates/ and run depmod
#   where     print the directory the patch series is read from
# DIR defaults to the one /usr/src/aws-neuronx-<version>/ (the tree the
# aws-neuronx-dkms package installs); KVER to the running kernel.
# --fixes-only: apply, build or install the fixes series alone (the
# vendor's driver with its holes closed, without the hook).
#
# Two series, in git format-patch form: fixes/ (fixes of the vendor's
# driver, each one proposed to the vendor: BAR_READ/BAR_WRITE bounds, no
# kernel addresses in DEVICE_INFO, engine indices, a freed queue halted
# first, queue slots under one lock, stale memory handles refused, no
# kernel address in MEM_GET_EXTENDED_INFO, no open of a device its probe
# has not finished) and the hook (0*.patch), applied after the fixes. Both are
# written against aws-neuronx 2.24.7.0; any other version is refused
# before anything is touched. Exit status: 0 done, 1 failure, 2 unsupported
# version or no vendor tree.
#
# Where the series is read from: in the source tree, driver/neuron/vendor/
# beside this script's scripts/ directory. The packages and `make install`
# (scripts/install.sh) install this script as neuronprof-neuron-hook and
# the series into a data directory (/usr/share/neuronprof/neuron-hook/ in
# the packages), and set patch_dir below to that directory, relative to the
# directory the installed command is in (so the command also works from a
# staged or unpacked root). Nowhere else is searched.
set -uo pipefail

patch_dir= # set by scripts/install.sh
self=$(readlink -f "$0")
here=$(dirname "$self")
if [ -n "$patch_dir" ]; then
	patches=$here/$patch_dir
else
	patches=$here/../driver/neuron/vendor
fi
SUPPORTED=2.24.7.0

die() { echo "neuron-vendor-hook: $1" >&2; exit "${2:-1}"; }
usage() { sed -n '/^# Usage:/,/^# DIR defaults/p' "$self" | sed '$d; s/^# \{0,1\}//' >&2; exit 1; }

cmd=${1:-}
[ -n "$cmd" ] || usage
shift
src=
kver=$(uname -r)
fixes_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=${2:?--src needs a directory}; shift 2 ;;
	--kver) kver=${2:?--kver needs a kernel version}; shift 2 ;;
	--fixes-only) fixes_only=1; shift ;;
	*) usage ;;
	esac
done

if [ -d "$patches" ]; then
	patches=$(cd -P "$patches" && pwd)
fi
compgen -G "$patches/0*.patch" > /dev/null ||
	die "no hook patch series in $patches (an incomplete install?)"
compgen -G "$patches/fixes/0*.patch" > /dev/null ||
	die "no fixes series in $patches/fixes (an incomplete install?)"

case $cmd in
status | apply | build | install) ;;
where) echo "$patches"; exit 0 ;;
*) usage ;;
esac

if [ -z "$src" ]; then
	mapfile -t trees < <(ls -d /usr/src/aws-neuronx-*/ 2>/dev/null)
	[ ${#trees[@]} -gt 0 ] ||
		die "no /usr/src/aws-neuronx-<version>/: install aws-neuronx-dkms first, or give --src" 2
	[ ${#trees[@]} -eq 1 ] ||
		die "several vendor trees (${trees[*]}): choose one with --src" 2
	src=${trees[0]%/}
fi
[ -f "$src/dkms.conf" ] && [ -f "$src/neuron_nq.c" ] ||
	die "$src is not an aws-neuronx driver tree (no dkms.conf or neuron_nq.c)" 2
version=$(sed -n 's/^PACKAGE_VERSION=\(.*\)$/\1/p' "$src/dkms.conf" | tr -d '"')
name=$(sed -n 's/^PACKAGE_NAME=\(.*\)$/\1/p' "$src/dkms.conf" | tr -d '"')
if [ "$version" != "$SUPPORTED" ]; then
	die "$src is aws-neuronx $version; the hook series is for $SUPPORTED only. Install aws-neuronx-dkms=$SUPPORTED* or port the series ($patches; Documentation/hardware.rst in the neuronprof sources)" 2
fi

applied() {
	[ -f "$src/neuron_nq_hook.c" ] && grep -q 'EXPORT_SYMBOL_GPL(neuron_nq_hook_register)' "$src/neuron_nq_hook.c"
}

# The fixes series is applied when mc_free() halts a freed queue (fix 4),
# DEVICE_INFO reports no kernel address (fix 2), handles carry a
# generation (fix 7), MEM_GET_EXTENDED_INFO answers the handle (fix 8),
# a device node's device is set before cdev_add() (fix 9), open refuses
# a device its probe has not published (fix 10), a failed probe closes the
# device it initialised (fix 11), removal clears the device's slot of
# neuron_devices[] (fix 12) and DEVICE_BDF_EXT checks its index against
# the table (fix 13, the last); an older series lacks some of the last
# seven.
fixes_begun() {
	grep -q 'nnq_release_mc(mpset->nd, mc)' "$src/neuron_mempool.c" 2>/dev/null &&
		grep -q 'NCDEV_BAR0_ADDRESS' "$src/neuron_cdev.c" 2>/dev/null
}
fixes_applied() {
	fixes_begun && grep -q 'NMCH_GEN_MASK' "$src/neuron_mc_handle.c" 2>/dev/null &&
		grep -q 'local.mem_handle = mc->mc_handle' "$src/neuron_cdev.c" 2>/dev/null &&
		grep -q 'devnode->ndev = ndev;' "$src/neuron_cdev.c" &&
		[ "$(grep -n -m1 'devnode->ndev = ndev;' "$src/neuron_cdev.c" | cut -d: -f1)" -lt \
			"$(grep -n -m1 'ret = cdev_add(cdev, devno, 1);' "$src/neuron_cdev.c" | cut -d: -f1)" ] &&
		grep -q 'smp_load_acquire(&neuron_devices\[nd->device_index\]) != nd' "$src/neuron_cdev.c" &&
		grep -q 'if (nd->ncdev)' "$src/neuron_pci.c" &&
		grep -q 'smp_store_release(&neuron_devices\[nd->device_index\], NULL)' "$src/neuron_pci.c" &&
		grep -q 'if (arg.nd_index >= MAX_NEURON_DEVICE_COUNT - offset)' "$src/neuron_cdev.c"
}

# Contract version of the series (patch 1 adds the header) and of a tree's hook.
# Contract version of the series (patch 1 adds the header, a later patch may
# raise it: the last one that sets it) and of a tree's hook.
series_version() {
	sed -n 's/^+#define NEURON_NQ_HOOK_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$patches"/0*.patch |
		tail -n 1
}
tree_version() {
	sed -n 's/^#define NEURON_NQ_HOOK_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$src/neuron_nq_hook.h" 2>/dev/null
}

apply() {
	local p tv list=() n
	if applied; then
		tv=$(tree_version)
		[ "$tv" = "$(series_version)" ] ||
			die "$src carries hook version ${tv:-unknown} from another neuronprof; this series is version $(series_version). Restore the vendor source (reinstall aws-neuronx-dkms=$SUPPORTED*) and run this again"
		fixes_applied ||
			die "$src carries the hook without the fixes series (an older neuronprof applied it). Restore the vendor source (reinstall aws-neuronx-dkms=$SUPPORTED*) and run this again"
		echo "neuron-vendor-hook: $src already carries the hook and the fixes"
		return 0
	fi
	if fixes_applied; then
		if [ "$fixes_only" = 1 ]; then
			echo "neuron-vendor-hook: $src already carries the fixes"
			return 0
		fi
	elif fixes_begun; then
		die "$src carries an older fixes series (an older neuronprof applied it). Restore the vendor source (reinstall aws-neuronx-dkms=$SUPPORTED*) and run this again"
	else
		list=("$patches"/fixes/0*.patch)
	fi
	[ "$fixes_only" = 1 ] || list+=("$patches"/0*.patch)
	n=${#list[@]}
	# Try the whole list on a scratch copy first: all or nothing.
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/neuron-hook.XXXXXX") || die "no scratch directory"
	trap 'rm -rf "$scratch"' EXIT
	cp -a "$src/." "$scratch/" || die "copying $src failed"
	for p in "${list[@]}"; do
		patch -d "$scratch" -p1 -s -f < "$p" > /dev/null ||
			die "${p#"$patches"/} does not apply to $src (a modified tree?); nothing was changed"
	done
	for p in "${list[@]}"; do
		patch -d "$src" -p1 -s -f < "$p" || die "applying ${p#"$patches"/} failed half-way in $src"
	done
	echo "neuron-vendor-hook: applied $n patches from $patches to $src"
}

build() {
	local kdir=/lib/modules/$kver/build
	[ -d "$kdir" ] || die "no kernel build tree $kdir: install linux-headers-$kver"
	make -C "$kdir" M="$src" modules || die "building $src failed"
	echo "neuron-vendor-hook: built $src/neuron.ko for $kver"
}

case $cmd in
status)
	if fixes_applied; then
		fx="with the neuronprof fixes"
	else
		fx="without the neuronprof fixes"
	fi
	if applied; then
		echo "$src: $name $version, carries the neuronprof hook, $fx"
	else
		echo "$src: $name $version, without the neuronprof hook (apply: $0 install), $fx"
	fi
	;;
apply) apply ;;
build) apply && build ;;
install)
	[ "$(id -u)" -eq 0 ] || die "install needs root"
	apply
	if command -v dkms > /dev/null && dkms status "$name/$version" 2>/dev/null | grep -q .; then
		dkms build "$name/$version" -k "$kver" --force || die "dkms build failed"
		dkms install "$name/$version" -k "$kver" --force || die "dkms install failed"
	else
		build
		install -D -m 0644 "$src/neuron.ko" "/lib/modules/$kver/updates/neuron.ko" || die "copying neuron.ko failed"
		depmod "$kver" || die "depmod failed"
	fi
	echo "neuron-vendor-hook: installed; stop the Neuron runtime, then: rmmod neuron && modprobe neuron && modprobe neuronprof_neuron"
	;;
esac
