#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb` and `make rpm` (Documentation/install.rst, Packages).
#
#   scripts/package.sh deb   Debian packages from debian/ with
#                            dpkg-buildpackage (debhelper, dh_dkms): the
#                            source package and neuronprof-dkms,
#                            libneuronprof1, libneuronprof-dev, neuronprof,
#                            libnrtprof1, libnrtprof-dev
#   scripts/package.sh rpm   the same as RPMs from rpm/neuronprof.spec with
#                            rpmbuild
#
# Both build from a copy of the tree as git sees it (tracked files and new
# files not ignored, in their working-tree state; no build products), made
# under $PKG_OUT/<kind> (default build/packages), so nothing is written
# next to the tree. The last lines of the output name the packages built.
#
# Environment: PKG_OUT; DEB_BUILD_OPTIONS (e.g. nocheck, parallel=2);
# RPMBUILD_NODEPS=1 passes --nodeps to rpmbuild (on Debian, where the rpm
# database knows none of the build dependencies; the default there).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

die() {
	echo "package: $*" >&2
	exit 1
}

out=${PKG_OUT:-$repo/build/packages}
case $out in
/*) ;;
*) out=$PWD/$out ;;
esac

version=$(sed -n '1s/^neuronprof (\([^)-]*\)[^)]*).*/\1/p' "$repo/debian/changelog")
[ -n "$version" ] || die "cannot read the version from debian/changelog"

# export_tree DIR: the tree's files as git lists them, into DIR.
export_tree() {
	local dst=$1
	command -v git >/dev/null || die "git is needed to list the tree's files"
	git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
		die "$repo is not a git work tree"
	rm -rf "$dst"
	mkdir -p "$dst"
	(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] || [ -L "$f" ] || continue # deleted, not yet committed
			printf '%s\0' "$f"
		done | cpio --quiet -0 -pdm "$dst") || die "cannot copy the tree into $dst"
}

build_deb() {
	local dir=$out/deb src=$out/deb/neuronprof-$version
	for t in dpkg-buildpackage dh dh_dkms; do
		command -v "$t" >/dev/null || die "$t not found (make deps installs debhelper, dh-dkms, dpkg-dev)"
	done
	rm -rf "$dir"
	export_tree "$src"
	echo "package: dpkg-buildpackage in $src"
	(cd "$src" && dpkg-buildpackage -us -uc) || die "dpkg-buildpackage failed"
	echo "package: built in $dir:"
	(cd "$dir" && ls -1 ./*.deb ./*.dsc ./*.tar.* ./*.changes) | sed 's|^\./|  |'
}

build_rpm() {
	local top=$out/rpm name=neuronprof-$version nodeps=()
	command -v rpmbuild >/dev/null || die "rpmbuild not found (make deps installs rpm)"
	local spec_version
	spec_version=$(sed -n 's/^Version:[[:space:]]*//p' "$repo/rpm/neuronprof.spec")
	[ "$spec_version" = "$version" ] ||
		die "rpm/neuronprof.spec has Version $spec_version, debian/changelog $version"
	if [ "${RPMBUILD_NODEPS:-}" = 1 ] || { [ -z "${RPMBUILD_NODEPS:-}" ] && [ -f /etc/debian_version ]; }; then
		nodeps=(--nodeps)
	fi
	rm -rf "$top"
	mkdir -p "$top/SOURCES" "$top/SPECS"
	export_tree "$top/$name"
	tar -C "$top" -czf "$top/SOURCES/$name.tar.gz" --sort=name --owner=0 --group=0 "$name" ||
		die "cannot create the source tarball"
	rm -rf "${top:?}/$name"
	cp "$repo/rpm/neuronprof.spec" "$top/SPECS/"
	echo "package: rpmbuild -ba in $top"
	rpmbuild -ba "${nodeps[@]}" --define "_topdir $top" "$top/SPECS/neuronprof.spec" ||
		die "rpmbuild failed"
	echo "package: built in $top:"
	(cd "$top" && find RPMS SRPMS -name '*.rpm' | sort) | sed 's|^|  |'
}

case ${1:-} in
deb) build_deb ;;
rpm) build_rpm ;;
*)
	echo "usage: $0 deb|rpm" >&2
	exit 2
	;;
esac
