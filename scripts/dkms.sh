#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Register the neuronprof kernel modules with DKMS (Documentation/install.rst).
#
#   scripts/dkms.sh source DIR   copy the DKMS source tree (dkms.conf, Kbuild,
#                                driver/, uapi/) into DIR
#   scripts/dkms.sh install      source into /usr/src/neuronprof-<version>,
#                                then dkms add, build and install for KVER
#   scripts/dkms.sh remove       dkms remove for every kernel, then delete
#                                /usr/src/neuronprof-<version>
#
# KVER: kernel release to build for; default scripts/kver.sh, like every
# other target (on a Neuron instance: KVER=$(uname -r)). DKMS builds the
# modules again by itself for kernels installed later (AUTOINSTALL).
#
# For tests and image builds, DKMS's trees can be moved (dkms --sourcetree,
# --dkmstree, --installtree): DKMS_SOURCE_TREE (default /usr/src), DKMS_TREE,
# DKMS_INSTALL_TREE; DKMS_NO_DEPMOD=1 passes --no-depmod.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

die() {
	echo "dkms: $*" >&2
	exit 1
}

conf_value() {
	sed -n "s/^$1=\"\\{0,1\\}\\([^\"]*\\)\"\\{0,1\\}\$/\\1/p" "$repo/dkms.conf"
}

src_tree=${DKMS_SOURCE_TREE:-/usr/src}
trees=(--sourcetree "$src_tree")
[ -z "${DKMS_TREE:-}" ] || trees+=(--dkmstree "$DKMS_TREE")
[ -z "${DKMS_INSTALL_TREE:-}" ] || trees+=(--installtree "$DKMS_INSTALL_TREE")
[ "${DKMS_NO_DEPMOD:-}" != 1 ] || trees+=(--no-depmod)

run_dkms() {
	local action=$1
	shift
	dkms "$action" "${trees[@]}" -m "$name" -v "$version" "$@"
}

name=$(conf_value PACKAGE_NAME)
version=$(conf_value PACKAGE_VERSION)
[ -n "$name" ] && [ -n "$version" ] || die "dkms.conf lacks PACKAGE_NAME or PACKAGE_VERSION"

# Only what kbuild reads: no build products, no userspace.
copy_source() {
	local dst=$1
	[ ! -e "$dst" ] || die "$dst already exists"
	mkdir -p "$dst"
	cd "$repo"
	cp dkms.conf Kbuild "$dst/"
	find driver uapi -type f ! -name '*.mod.c' \( -name '*.c' -o -name '*.h' -o -name Kbuild -o -name Kconfig \) \
		-print0 | cpio --quiet -0 -pdm "$dst" || die "cannot copy the sources into $dst"
}

need_dkms() {
	command -v dkms >/dev/null || die "dkms is not installed (Debian: apt-get install dkms)"
	[ "$(id -u)" -eq 0 ] || die "run as root"
}

case ${1:-} in
source)
	[ -n "${2:-}" ] || die "usage: $0 source DIR"
	copy_source "$2"
	;;
install)
	need_dkms
	KVER=${KVER:-$(bash "$here/kver.sh")} || die "no kernel release: set KVER"
	src=$src_tree/$name-$version
	if run_dkms status | grep -q .; then
		echo "dkms: removing the registered $name/$version first"
		run_dkms remove --all
	fi
	rm -rf "$src"
	copy_source "$src"
	run_dkms add
	run_dkms build -k "$KVER"
	run_dkms install -k "$KVER"
	;;
remove)
	need_dkms
	if run_dkms status | grep -q .; then
		run_dkms remove --all
	else
		echo "dkms: $name/$version is not registered"
	fi
	rm -rf "${src_tree:?}/$name-$version"
	;;
*)
	echo "usage: $0 source DIR | install | remove" >&2
	exit 2
	;;
esac
