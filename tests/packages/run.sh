#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Package test (Documentation/install.rst, Packages): `make deb` and
# `make rpm` into a temporary directory, then what they hold.
#
#   build      make deb and make rpm succeed and produce every package
#   lintian    lintian on the .changes (source and binaries, info tags
#              shown): no error, no warning, every override applied, none
#              unused or mismatched
#   metadata   versions agree (debian/changelog, the spec, dkms.conf, the
#              library); sonames, symbols files, dependencies, the DKMS
#              maintainer scripts; apt can resolve the .debs' dependencies
#              on this machine (apt-get --simulate, nothing is installed)
#   root       the .debs unpacked into a throwaway root (dpkg -x): exactly
#              the expected files; a program builds against libneuronprof-dev
#              with pkg-config --cflags --libs libneuronprof (sysroot in that
#              root) and runs against the unpacked libneuronprof.so.1; the
#              static library; the nrt example against libnrtprof-dev; the
#              tool runs; man pages and their alias links resolve; the hook
#              command of neuronprof-dkms (neuronprof-neuron-hook), run from
#              the root, applies its packaged series to a scratch copy of
#              the vendor tree (skipped without one: NEURON_DRIVER_SRC,
#              /usr/src/aws-neuronx-*, ../shared/vendor/*.tar.gz)
#   dkms       the module sources of neuronprof-dkms build the three modules
#              (neuronprof, neuronprof_sim, neuronprof_neuron) for the Debian
#              6.1 kernel with the MAKE command of their dkms.conf
#   rpm        every .deb has its RPM with the same file list (modulo the
#              differences listed in Documentation/install.rst), the same
#              headers, DKMS sources and hook series; the hook command of
#              the RPM root applies its series too; the RPM scriptlets run dkms
#
# Nothing is installed on this machine and nothing is loaded.
# Ends with `N passed, N failed[, N skipped]`; exits non-zero on a failure.
#
# Environment: MAKE, KVER (default scripts/kver.sh), CC (default cc).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
MAKE=${MAKE:-make}
CC=${CC:-cc}
. "$repo/tests/lib.sh"
CHECK_SHOW_LINES=60

step() {
	echo "# $* ($((SECONDS - t0))s)"
}
t0=$SECONDS

work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-packages-test.XXXXXX") || fatal "cannot create a work directory"
trap 'wait; rm -rf "$work"' EXIT

KVER=${KVER:-$(bash "$repo/scripts/kver.sh")} || fatal "no kernel release (scripts/kver.sh)"
version=$(library_version) || fatal "no NPROF_VERSION_* in lib/include/neuronprof/common.h"
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH) || fatal "dpkg-architecture failed"
arch=$(dpkg --print-architecture)

# Debian binary package -> RPM packages holding the same files.
declare -A rpm_of=(
	[neuronprof-dkms]="neuronprof-dkms"
	[libneuronprof1]="libneuronprof"
	[libneuronprof-dev]="libneuronprof-devel libneuronprof-static"
	[neuronprof]="neuronprof"
	[libnrtprof1]="libnrtprof"
	[libnrtprof-dev]="libnrtprof-devel"
	[python3-neuronprof]="python3-neuronprof"
)
debs=(neuronprof-dkms libneuronprof1 libneuronprof-dev neuronprof libnrtprof1 libnrtprof-dev python3-neuronprof)
# Packages of architecture all (noarch RPMs).
is_all() {
	[ "$1" = neuronprof-dkms ] || [ "$1" = python3-neuronprof ]
}

# ---- versions -----------------------------------------------------------------
deb_version=$(dpkg-parsechangelog -l "$repo/debian/changelog" -S Version)
spec_version=$(sed -n 's/^Version:[[:space:]]*//p' "$repo/rpm/neuronprof.spec")
dkms_version=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$repo/dkms.conf")
check "debian/changelog ($deb_version), rpm/neuronprof.spec ($spec_version) and dkms.conf ($dkms_version) carry the library's version $version" \
	test "$deb_version" = "$version" -a "$spec_version" = "$version" -a "$dkms_version" = "$version"

# ---- make deb -----------------------------------------------------------------
# The library's host tests run in `make check` already (nocheck).
pkgout=$work/out
step "make deb"
if PKG_OUT=$pkgout DEB_BUILD_OPTIONS="nocheck parallel=2" "$MAKE" -C "$repo" --no-print-directory deb \
	>"$work/deb.log" 2>&1; then
	ok "make deb"
else
	tail -n 40 "$work/deb.log" | sed 's/^/#   /'
	fatal "make deb"
fi
debdir=$pkgout/deb
deb_file() {
	local a=$arch
	! is_all "$1" || a=all
	echo "$debdir/${1}_${deb_version}_$a.deb"
}
missing=
for p in "${debs[@]}"; do
	[ -f "$(deb_file "$p")" ] || missing="$missing $p"
done
check "make deb built ${debs[*]}" test -z "$missing"
[ -z "$missing" ] || fatal "packages missing:$missing"
check "make deb built the source package (.dsc, .tar.xz) and a .changes" \
	test -f "$debdir/neuronprof_$deb_version.dsc" -a -f "$debdir/neuronprof_$deb_version.tar.xz" \
	-a -f "$debdir/neuronprof_${deb_version}_$arch.changes"

# make rpm runs while lintian and the checks of the .debs do: both are
# mostly one process each.
step "make rpm (in the background)"
PKG_OUT=$pkgout "$MAKE" -C "$repo" --no-print-directory rpm >"$work/rpm.log" 2>&1 &
rpm_pid=$!

# ---- lintian ------------------------------------------------------------------
step "lintian"
# Every tag shown, info ones included (-I: unused-override is one, and so
# are both tags debian/ overrides), and the overridden ones as O: lines.
lintian --pedantic --display-experimental --display-info --show-overrides \
	"$debdir/neuronprof_${deb_version}_$arch.changes" >"$work/lintian.log" 2>&1
lintian_rc=$?
grep -v '^running with root privileges' "$work/lintian.log" | sed 's/^/#   lintian: /'
# Exit status 0: lintian ran and found no error (1: errors, 2: lintian
# itself failed, 127: no lintian); warnings are found in its output.
if [ "$lintian_rc" -eq 0 ] && ! grep -Eq '^[EW]: ' "$work/lintian.log"; then
	ok "lintian: no error and no warning (info, pedantic, experimental and overridden tags shown above)"
else
	not_ok "lintian: no error and no warning (exit $lintian_rc)"
fi
check "lintian: every override matches a tag it reports (no unused or mismatched override)" \
	bash -c '! grep -E "(unused|mismatched)-override" "$1"' _ "$work/lintian.log"
check "lintian: every override of debian/ is applied (an O: line for each package and tag)" \
	bash -c 'for f in "${@:2}"; do grep -v "^#" "$f" | grep . | sed "s/ [[*].*//" | while IFS= read -r o; do
			grep -qF "O: $o" "$1" || { echo "$f: $o"; exit 1; }; done || exit 1; done' \
	_ "$work/lintian.log" "$repo"/debian/*lintian-overrides "$repo"/debian/source/lintian-overrides
# Every override says why: a comment right above each override line.
check "every lintian override has a comment that says why" \
	bash -c 'for f in "$@"; do awk "/^#/ { c = 1; next } /^[[:space:]]*\$/ { c = 0; next } !c { exit 1 }" "$f" || { echo "$f"; exit 1; }; done' \
	_ "$repo"/debian/*lintian-overrides "$repo"/debian/source/lintian-overrides

# ---- metadata -----------------------------------------------------------------
field() {
	dpkg-deb -f "$(deb_file "$1")" "$2"
}
soname() {
	objdump -p "$1" | awk '$1 == "SONAME" { print $2 }'
}
check "neuronprof-dkms is Architecture: all and depends on dkms" \
	bash -c '[ "$1" = all ] && grep -Eq "(^|, )dkms( |,|$)" <<<"$2"' _ "$(field neuronprof-dkms Architecture)" \
	"$(field neuronprof-dkms Depends)"
check "neuronprof-dkms depends on patch (neuronprof-neuron-hook applies the series with it)" \
	bash -c 'grep -Eq "(^|, )patch( |,|$)" <<<"$1"' _ "$(field neuronprof-dkms Depends)"
dpkg-deb -e "$(deb_file neuronprof-dkms)" "$work/dkms-control"
check "neuronprof-dkms postinst runs DKMS's common.postinst for neuronprof $version (dkms add, build, install)" \
	bash -c 'grep -q "^DKMS_NAME=neuronprof$" "$1/postinst" && grep -q "^DKMS_VERSION=$2$" "$1/postinst" &&
		grep -q "/usr/lib/dkms/common.postinst" "$1/postinst"' _ "$work/dkms-control" "$version"
check "neuronprof-dkms prerm runs dkms remove --all" \
	bash -c 'grep -q "^DKMS_NAME=neuronprof$" "$1/prerm" && grep -q "dkms remove -m \$DKMS_NAME -v \$DKMS_VERSION --all" "$1/prerm"' \
	_ "$work/dkms-control"
for p in libneuronprof1 libnrtprof1; do
	dpkg-deb -e "$(deb_file $p)" "$work/$p-control"
done
check "libneuronprof1 has a symbols file for libneuronprof.so.1 (version nodes NEURONPROF_1.0 at 1.0.0, NEURONPROF_1.1 at 1.1.0, NEURONPROF_1.3 at 1.3.0, the reader's open in both 1.0 and 1.3) and a trigger for ldconfig" \
	bash -c 'grep -q "^libneuronprof.so.1 libneuronprof1 " "$1/symbols" && grep -q "^ NEURONPROF_1.0@NEURONPROF_1.0 1.0.0" "$1/symbols" &&
		grep -q "^ NEURONPROF_1.1@NEURONPROF_1.1 1.1.0" "$1/symbols" &&
		grep -q "^ nprof_capture_session_sync@NEURONPROF_1.1 1.1.0" "$1/symbols" &&
		grep -q "^ NEURONPROF_1.3@NEURONPROF_1.3 1.3.0" "$1/symbols" &&
		grep -q "^ nprof_ntff_reader_open@NEURONPROF_1.0 1.0.0" "$1/symbols" &&
		grep -q "^ nprof_ntff_reader_open@NEURONPROF_1.3 1.3.0" "$1/symbols" &&
		grep -q "ldconfig" "$1/triggers"' _ "$work/libneuronprof1-control"
check "libnrtprof1 has a symbols file for libnrtprof.so.1 (version node NRT_2.0.0)" \
	bash -c 'grep -q "^libnrtprof.so.1 libnrtprof1 " "$1/symbols" && grep -q "NRT_2.0.0@NRT_2.0.0" "$1/symbols"' \
	_ "$work/libnrtprof1-control"
check "neuronprof (the tool) depends on libneuronprof1 (>= $version) through its symbols" \
	bash -c 'grep -q "libneuronprof1 (>= $2)" <<<"$1"' _ "$(field neuronprof Depends)" "$version"
check "libneuronprof-dev depends on libneuronprof1 (= $deb_version) and the -dev packages its .pc requires" \
	bash -c 'for d in "libneuronprof1 (= $2)" libdrm-dev libkmod-dev libprotobuf-c-dev libzstd-dev; do grep -qF "$d" <<<"$1" || exit 1; done' \
	_ "$(field libneuronprof-dev Depends)" "$deb_version"
check "python3-neuronprof is Architecture: all and depends on python3, python3-pandas and python3-distributed" \
	bash -c '[ "$1" = all ] && for d in python3 python3-pandas python3-distributed; do grep -Eq "(^|, )$d( |,|$)" <<<"$2" || exit 1; done' \
	_ "$(field python3-neuronprof Architecture)" "$(field python3-neuronprof Depends)"
# What a user runs: apt resolves every dependency from this machine's
# archive (bookworm). --simulate installs nothing.
apt_args=()
for p in "${debs[@]}"; do
	apt_args+=("$(deb_file "$p")")
done
check "apt-get install --simulate of the ${#debs[@]} .debs resolves their dependencies" \
	apt-get install --simulate -q -o Debug::NoLocking=1 --no-install-recommends "${apt_args[@]}"

# ---- the throwaway root ---------------------------------------------------------
step "unpacking the .debs"
root=$work/root
mkdir -p "$root"
for p in "${debs[@]}"; do
	dpkg-deb -x "$(deb_file "$p")" "$root" || not_ok "dpkg-deb -x $(deb_file "$p")"
done
L=usr/lib/$ma

# The expected files (and links), from the tree; documentation under
# usr/share/doc is each package's copyright and changelog, checked apart.
expected() {
	local h f
	echo "f $L/libneuronprof.so.$version"
	echo "l $L/libneuronprof.so.1"
	echo "l $L/libneuronprof.so"
	echo "f $L/libneuronprof.a"
	echo "f $L/pkgconfig/libneuronprof.pc"
	for h in "$repo"/lib/include/neuronprof/*.h; do
		echo "f usr/include/neuronprof/${h##*/}"
	done
	echo "f usr/include/drm/neuronprof_drm.h"
	for f in "$repo"/man/man3/*.3; do
		echo "f usr/share/man/man3/${f##*/}.gz"
	done
	# An alias link for every function a page's NAME section names and
	# every exported function, unless it has a page of its own.
	for f in $( (sed -n 's/^[[:space:]]*\(nprof_[a-z0-9_]*\);$/\1/p' "$repo/lib/libneuronprof.map"
		for p in "$repo"/man/man3/*.3; do
			sed -n '/^\.SH NAME/,/^\.SH/{/^\.SH/d;p}' "$p" | sed 's/\\-.*//; s/\\f[BIRP]//g; s/,/ /g'
		done) | tr ' ' '\n' | grep . | sort -u); do
		[ -f "$repo/man/man3/$f.3" ] || echo "l usr/share/man/man3/$f.3.gz"
	done
	# The lintian overrides of debian/*.lintian-overrides.
	for f in "$repo"/debian/*.lintian-overrides; do
		f=${f##*/}
		echo "f usr/share/lintian/overrides/${f%.lintian-overrides}"
	done
	echo "f usr/bin/neuronprof"
	# The exporter's systemd unit and its options (a conffile).
	echo "f lib/systemd/system/neuronprof-exporter.service"
	echo "f etc/default/neuronprof-exporter"
	for f in "$repo"/man/*.[1-8]; do
		echo "f usr/share/man/man${f##*.}/${f##*/}.gz"
	done
	# neuronprof-dkms: the hook command and its series.
	echo "f usr/sbin/neuronprof-neuron-hook"
	(cd "$repo/driver/neuron/vendor" && find . -type f | sed "s|^\./|f usr/share/neuronprof/neuron-hook/|")
	echo "f $L/libnrtprof.so.1"
	echo "l $L/libnrtprof.so"
	for h in "$repo"/compat/include/nrt/*.h; do
		echo "f usr/include/nrt/${h##*/}"
	done
	(cd "$work/dkms-src" && find . -type f | sed "s|^\./|f usr/src/neuronprof-$version/|")
	# python3-neuronprof: the package and its command.
	echo "f usr/bin/neuronprof-analyze"
	for f in "$repo"/python/neuronprof/*.py; do
		echo "f usr/lib/python3/dist-packages/neuronprof/${f##*/}"
	done
}
actual() {
	(cd "$root" && find . ! -type d ! -path './usr/share/doc/*' -printf '%y %P\n')
}
bash "$repo/scripts/dkms.sh" source "$work/dkms-src" >/dev/null || not_ok "scripts/dkms.sh source"

check "the .debs hold exactly the expected files (library, headers, .pc, man pages and their aliases, tool, libnrtprof, DKMS sources, hook command and series)" \
	diff <(expected | sort -u) <(actual | sort)
check "every package has its copyright and changelog under usr/share/doc" \
	bash -c 'for p in "${@:2}"; do [ -f "$1/usr/share/doc/$p/copyright" ] && [ -f "$1/usr/share/doc/$p/changelog.gz" ] || { echo "$p"; exit 1; }; done' \
	_ "$root" "${debs[@]}"
check "neuronprof.deb ships the SQLite schema and its queries uncompressed in usr/share/doc/neuronprof" \
	bash -c 'cmp "$2/Documentation/analysis.rst" "$1/usr/share/doc/neuronprof/analysis.rst" &&
		cmp "$2/Documentation/analysis-queries.sql" "$1/usr/share/doc/neuronprof/analysis-queries.sql"' _ "$root" "$repo"
check "neuronprof.deb: neuronprof-exporter.service runs /usr/bin/neuronprof exporter with the options of /etc/default/neuronprof-exporter, a conffile" \
	bash -c 'u=$1/lib/systemd/system/neuronprof-exporter.service
		grep -qx "ExecStart=/usr/bin/neuronprof exporter \$NEURONPROF_EXPORTER_OPTS" "$u" &&
		grep -qx "EnvironmentFile=-/etc/default/neuronprof-exporter" "$u" &&
		cmp "$2/tools/systemd/neuronprof-exporter.default" "$1/etc/default/neuronprof-exporter" &&
		dpkg-deb -I "$3" conffiles | grep -qx /etc/default/neuronprof-exporter' \
	_ "$root" "$repo" "$(deb_file neuronprof)"
check "neuronprof.deb: neuronprof-sqlite(5) names the queries where they are" \
	bash -c 'zcat "$1/usr/share/man/man5/neuronprof-sqlite.5.gz" | grep -q "/usr/share/doc/neuronprof/analysis\\\\-queries.sql"' _ "$root"
check "python3-neuronprof: the Python package is the tree's python/neuronprof" \
	bash -c 'for f in "$2"/python/neuronprof/*.py; do cmp "$f" "$1/usr/lib/python3/dist-packages/neuronprof/${f##*/}" || exit 1; done' _ "$root" "$repo"
# Run from the root, the command loads the root's package, not the tree's
# or the machine's.
check "python3-neuronprof: the unpacked neuronprof-analyze runs on the package unpacked beside it" \
	bash -c 'out=$(cd / && PYTHONDONTWRITEBYTECODE=1 PYTHONVERBOSE=1 "$1/usr/bin/neuronprof-analyze" --help 2>&1) &&
		grep -q "^usage: neuronprof-analyze" <<<"$out" &&
		grep -q "code object from $1/usr/lib/python3/dist-packages/neuronprof/analyze.py" <<<"$out"' _ "$root"
check "the DKMS sources are the tree's (scripts/dkms.sh source), dkms.conf included" \
	diff -r "$work/dkms-src" "$root/usr/src/neuronprof-$version"
check "the headers are the tree's (library, uapi, nrt)" \
	bash -c 'diff -r "$2/lib/include/neuronprof" "$1/usr/include/neuronprof" && diff "$2/uapi/drm/neuronprof_drm.h" "$1/usr/include/drm/neuronprof_drm.h" &&
		diff -r "$2/compat/include/nrt" "$1/usr/include/nrt"' _ "$root" "$repo"
check "libneuronprof.so.$version has soname libneuronprof.so.1, links .so.1 and .so lead to it, no rpath" \
	bash -c '[ "$(objdump -p "$1/libneuronprof.so.$2" | awk "\$1 == \"SONAME\" { print \$2 }")" = libneuronprof.so.1 ] &&
		[ "$(readlink "$1/libneuronprof.so.1")" = "libneuronprof.so.$2" ] && [ "$(readlink -f "$1/libneuronprof.so")" = "$(readlink -f "$1/libneuronprof.so.$2")" ] &&
		! objdump -p "$1/libneuronprof.so.$2" | grep -Eq "RPATH|RUNPATH"' _ "$root/$L" "$version"
check "libnrtprof.so.1 has soname libnrtprof.so.1, libnrtprof.so leads to it" \
	bash -c '[ "$(objdump -p "$1/libnrtprof.so.1" | awk "\$1 == \"SONAME\" { print \$2 }")" = libnrtprof.so.1 ] &&
		[ "$(readlink "$1/libnrtprof.so")" = libnrtprof.so.1 ]' _ "$root/$L"
check "the tool links libneuronprof.so.1 (not a copy of the archive)" \
	bash -c 'objdump -p "$1" | grep -Eq "NEEDED +libneuronprof\.so\.1$"' _ "$root/usr/bin/neuronprof"
check "the .pc file names /usr and the multiarch libdir, version $version" \
	bash -c 'grep -qx "prefix=/usr" "$1" && grep -qx "libdir=/usr/lib/$2" "$1" && grep -qx "Version: $3" "$1"' \
	_ "$root/$L/pkgconfig/libneuronprof.pc" "$ma" "$version"

# A program built with pkg-config against the unpacked -dev package.
cat >"$work/prog.c" <<'EOF'
/* Links libneuronprof, parses an inspect environment, reports where the
 * library's code came from. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <drm/neuronprof_drm.h>
#include <neuronprof/neuronprof.h>

int main(void)
{
	char *env[] = { "NEURON_RT_INSPECT_ENABLE=1", "NEURON_RT_INSPECT_OUTPUT_DIR=/var/tmp/prof", NULL };
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	Dl_info where;

	if (!cfg || nprof_inspect_config_parse_envp(cfg, env))
		return 1;
	printf("version %s\n", nprof_version_string());
	printf("enable %d dir %s\n", nprof_inspect_config_get_enable_inspect(cfg),
	       nprof_inspect_config_get_output_dir(cfg));
	if (dladdr((void *)nprof_version, &where) && where.dli_fname)
		printf("from %s\n", where.dli_fname);
	nprof_inspect_config_free(cfg);
	return 0;
}
EOF
# pkg-config looks into the root first; the root holds libneuronprof-dev
# alone, so the -dev packages its .pc requires (libdrm-dev, ...) are found
# in this machine's directories after it, and their flags are taken
# without the sysroot.
pc() {
	PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/$L/pkgconfig:/usr/lib/$ma/pkgconfig:/usr/lib/pkgconfig:/usr/share/pkgconfig \
		pkg-config "$@"
}
reqs=$(pc --print-requires-private libneuronprof)
# shellcheck disable=SC2086
dep_cflags=$(pkg-config --cflags $reqs)
check "pkg-config --modversion libneuronprof is $version in the root" test "$(pc --modversion libneuronprof)" = "$version"
if cflags="$(pc --cflags libneuronprof) $dep_cflags" && libs=$(pc --libs libneuronprof) &&
	# shellcheck disable=SC2086
	"$CC" -Wall -Wextra -Werror -o "$work/prog" "$work/prog.c" $cflags $libs >"$work/cc.log" 2>&1; then
	ok "a program builds with pkg-config --cflags --libs libneuronprof ($cflags $libs)"
	out=$(LD_LIBRARY_PATH=$root/$L "$work/prog" 2>&1)
	want="version $version
enable 1 dir /var/tmp/prof
from $root/$L/libneuronprof.so.1"
	if [ "$out" = "$want" ]; then
		ok "it runs against the unpacked libneuronprof.so.1"
	else
		not_ok "it runs against the unpacked libneuronprof.so.1"
		printf '%s\n' "# expected:" "$want" "# got:" "$out" | sed 's/^/#   /'
	fi
else
	not_ok "a program builds with pkg-config --cflags --libs libneuronprof"
	sed 's/^/#   /' "$work/cc.log"
	skipped "it runs against the unpacked libneuronprof.so.1" "it did not build"
fi
# shellcheck disable=SC2046,SC2086
check "a program links the unpacked libneuronprof.a with --static pkg-config flags and runs without libneuronprof.so" \
	bash -c '"$1" -Wall -Wextra -Werror -o "$2/prog-static" "$2/prog.c" $3 -L"$4" -l:libneuronprof.a $5 &&
		"$2/prog-static" | grep -qx "version $6" && ! ldd "$2/prog-static" | grep -q libneuronprof' \
	_ "$CC" "$work" "$(pc --cflags libneuronprof) $dep_cflags" "$root/$L" "$(pkg-config --libs $reqs) -pthread" "$version"
check "the nrt example (compat/examples) builds against libnrtprof-dev with -lnrtprof and resolves libnrtprof.so.1 in the root" \
	bash -c '"$1" -Wall -Wextra -Werror -I"$2/usr/include" -o "$3/nrt-example" "$4" -L"$2/$5" -lnrtprof &&
		LD_LIBRARY_PATH="$2/$5" ldd "$3/nrt-example" | grep -q "libnrtprof.so.1 => $2/$5/libnrtprof.so.1"' \
	_ "$CC" "$root" "$work" "$repo/compat/examples/nrt_profile_example.c" "$L"
check "the unpacked tool runs against the unpacked library (neuronprof --version)" \
	bash -c '[ "$(LD_LIBRARY_PATH="$1" "$2" --version)" = "neuronprof (libneuronprof $3)" ]' _ "$root/$L" "$root/usr/bin/neuronprof" "$version"
check "man -M <root> neuronprof, neuronprof-neuron-hook and man 3 nprof_device_open (an alias link) render" \
	bash -c 'MANWIDTH=80 man -M "$1" 1 neuronprof | grep -q "^NAME" && MANWIDTH=80 man -M "$1" 8 neuronprof-neuron-hook | grep -q "^NAME" &&
		MANWIDTH=80 man -M "$1" 3 nprof_device_open | grep -q nprof_device_list' \
	_ "$root/usr/share/man"
check "neuronprof-dkms.deb holds the hook command, its series and its man page" \
	bash -c 'l=$(dpkg-deb -c "$1"); for f in ./usr/sbin/neuronprof-neuron-hook ./usr/share/neuronprof/neuron-hook/README \
		./usr/share/man/man8/neuronprof-neuron-hook.8.gz; do grep -q " $f$" <<<"$l" || { echo "missing: $f"; exit 1; }; done' \
	_ "$(deb_file neuronprof-dkms)"
check_hook_command "deb root" "$root/usr/sbin/neuronprof-neuron-hook" "$root/usr/share/neuronprof/neuron-hook" "$work/hook-deb"

# ---- the DKMS sources build the modules -----------------------------------------
# dkms.conf's own MAKE[0], with the values DKMS gives its variables, run on
# a copy of the packaged tree, as `dkms build` would.
step "building the modules from the neuronprof-dkms sources for $KVER"
kdir=/lib/modules/$KVER/build
dk=$work/dkms-build
cp -a "$root/usr/src/neuronprof-$version" "$dk"
conf=$dk/dkms.conf
make_line=$(sed -n 's/^MAKE\[0\]="\(.*\)"$/\1/p' "$conf")
if [ ! -f "$kdir/Makefile" ]; then
	not_ok "the kernel headers for $KVER are installed ($kdir)"
elif [ -z "$make_line" ]; then
	not_ok "the packaged dkms.conf has a MAKE[0] line"
else
	cmd=${make_line//'${kernel_source_dir}'/$kdir}
	cmd=${cmd//'${dkms_tree}/${PACKAGE_NAME}/${PACKAGE_VERSION}/build'/$dk}
	cmd=${cmd//'${kernelver}'/$KVER}
	if [[ $cmd == *'${'* ]]; then
		not_ok "dkms.conf's MAKE[0] uses only variables DKMS sets: $cmd"
	elif (cd "$dk" && eval "$cmd -j2") >"$work/dkms-make.log" 2>&1; then
		ok "dkms.conf's MAKE[0] builds the packaged sources against the $KVER headers"
		# Every BUILT_MODULE_NAME[i] at its BUILT_MODULE_LOCATION[i], as
		# dkms install copies them; the names, in dkms.conf's order.
		built=()
		names=
		for i in $(sed -n 's/^BUILT_MODULE_NAME\[\([0-9]*\)\]=.*/\1/p' "$conf"); do
			name=$(sed -n "s/^BUILT_MODULE_NAME\[$i\]=\"\(.*\)\"$/\1/p" "$conf")
			loc=$(sed -n "s/^BUILT_MODULE_LOCATION\[$i\]=\"\(.*\)\"$/\1/p" "$conf")
			built+=("$dk/$loc$name.ko")
			names="$names $name"
		done
		check "dkms.conf names the core, the simulator and the neuron.ko provider (not the fake neuron.ko):$names" \
			test "$names" = " neuronprof neuronprof_sim neuronprof_neuron"
		check "BUILT_MODULE_NAME/LOCATION name the built modules, vermagic $KVER; neuronprof_sim and neuronprof_neuron depend on neuronprof" \
			bash -c 'for ko in "${@:2}"; do [ "$(modinfo -F vermagic "$ko" | cut -d" " -f1)" = "$1" ] || { echo "$ko"; exit 1; }; done &&
				[ "$(modinfo -F name "$2")" = neuronprof ] && [ "$(modinfo -F depends "$3")" = neuronprof ] &&
				[ "$(modinfo -F depends "$4")" = neuronprof ]' _ "$KVER" "${built[@]}"
		check "the build makes no module dkms.conf does not name (the fake neuron.ko stays out)" \
			bash -c '[ "$(cd "$1" && find . -name "*.ko" | sort | xargs)" = \
				"./driver/core/neuronprof.ko ./driver/neuron/neuronprof_neuron.ko ./driver/sim/neuronprof_sim.ko" ]' _ "$dk"
	else
		not_ok "dkms.conf's MAKE[0] builds the packaged sources against the $KVER headers"
		tail -n 30 "$work/dkms-make.log" | sed 's/^/#   /'
	fi
fi

# ---- make rpm -------------------------------------------------------------------
step "waiting for make rpm"
if wait "$rpm_pid"; then
	ok "make rpm"
else
	tail -n 40 "$work/rpm.log" | sed 's/^/#   /'
	fatal "make rpm"
fi
rpmdir=$pkgout/rpm/RPMS
rpm_file() {
	local a
	a=$(uname -m)
	! is_all "$1" || a=noarch
	echo "$rpmdir/$a/$1-$spec_version-1.$a.rpm"
}
missing=
for p in "${debs[@]}"; do
	for r in ${rpm_of[$p]}; do
		[ -f "$(rpm_file "$r")" ] || missing="$missing $r"
	done
done
check "make rpm built every package the .debs have a counterpart for" test -z "$missing"
check "make rpm built the source RPM" test -f "$pkgout/rpm/SRPMS/neuronprof-$spec_version-1.src.rpm"

# File lists, normalized: RPM's libdir is /usr/lib64 where Debian's is
# the multiarch one; documentation (/usr/share/doc), build-id links
# (/usr/lib/.build-id), lintian overrides, man page compression and the
# form of alias man pages (links in a .deb, .so files in an RPM) are each
# distribution's.
norm() {
	sed -e "s|^\([a-z]\) /usr/lib/$ma/|\1 /usr/lib64/|" -e 's|\(/usr/share/man/.*\)\.gz$|\1|' \
		-e 's|^\([a-z]\) /lib/systemd/|\1 /usr/lib/systemd/|' \
		-e 's|^l /usr/share/man/|f /usr/share/man/|' |
		grep -Ev ' /usr/share/doc/| /usr/share/lintian/| /usr/lib/\.build-id(/|$)' | sort
}
deb_list() {
	dpkg-deb --fsys-tarfile "$(deb_file "$1")" | tar -tv |
		awk '$1 !~ /^d/ { t = substr($1, 1, 1) == "l" ? "l" : "f"; p = $6; sub(/^\./, "", p); print t, p }' | norm
}
rpm_list() {
	local r
	for r in "$@"; do
		rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$(rpm_file "$r")" 2>/dev/null
	done | awk '$1 !~ /^d/ { print (substr($1, 1, 1) == "l" ? "l" : "f"), $2 }' | norm
}
for p in "${debs[@]}"; do
	# shellcheck disable=SC2086
	check "$p.deb and ${rpm_of[$p]// /+}.rpm hold the same files" diff <(deb_list "$p") <(rpm_list ${rpm_of[$p]})
done
rroot=$work/rpmroot
mkdir -p "$rroot"
for p in "${debs[@]}"; do
	for r in ${rpm_of[$p]}; do
		(cd "$rroot" && rpm2cpio "$(rpm_file "$r")" | cpio -idm --quiet) || not_ok "rpm2cpio $r"
	done
done
check "neuronprof.rpm ships the SQLite schema and its queries in /usr/share/doc/neuronprof, as the .deb" \
	bash -c 'cmp "$1/usr/share/doc/neuronprof/analysis.rst" "$2/usr/share/doc/neuronprof/analysis.rst" &&
		cmp "$1/usr/share/doc/neuronprof/analysis-queries.sql" "$2/usr/share/doc/neuronprof/analysis-queries.sql"' _ "$root" "$rroot"
check "the RPMs' headers, DKMS sources and hook series are the .debs'" \
	bash -c 'diff -r "$1/usr/include" "$2/usr/include" && diff -r "$1/usr/src" "$2/usr/src" &&
		diff -r "$1/usr/share/neuronprof" "$2/usr/share/neuronprof"' _ "$root" "$rroot"
check "neuronprof.rpm: the exporter's unit runs /usr/bin/neuronprof exporter, its options a %config(noreplace) file as the .deb's" \
	bash -c 'grep -qx "ExecStart=/usr/bin/neuronprof exporter \$NEURONPROF_EXPORTER_OPTS" "$2/usr/lib/systemd/system/neuronprof-exporter.service" &&
		cmp "$1/etc/default/neuronprof-exporter" "$2/etc/default/neuronprof-exporter" &&
		rpm -qp --configfiles "$3" 2>/dev/null | grep -qx /etc/default/neuronprof-exporter' \
	_ "$root" "$rroot" "$(rpm_file neuronprof)"
check_hook_command "rpm root" "$rroot/usr/sbin/neuronprof-neuron-hook" "$rroot/usr/share/neuronprof/neuron-hook" "$work/hook-rpm"
check "the RPMs' Python package and neuronprof-analyze are the .debs'" \
	bash -c 'diff -r "$1/usr/lib/python3/dist-packages/neuronprof" "$2/usr/lib/python3/dist-packages/neuronprof" &&
		cmp "$1/usr/bin/neuronprof-analyze" "$2/usr/bin/neuronprof-analyze"' _ "$root" "$rroot"
check "python3-neuronprof.rpm requires python3, python3-pandas and python3-distributed" \
	bash -c 'r=$(rpm -qpR "$1" 2>/dev/null); for d in python3 python3-pandas python3-distributed; do grep -qx "$d" <<<"$r" || exit 1; done' \
	_ "$(rpm_file python3-neuronprof)"
check "libneuronprof provides libneuronprof.so.1()(64bit), libneuronprof.so.1(NEURONPROF_1.0)(64bit) and (NEURONPROF_1.1)(64bit)" \
	bash -c 'p=$(rpm -qp --provides "$1" 2>/dev/null); grep -qx "libneuronprof.so.1()(64bit)" <<<"$p" && grep -qx "libneuronprof.so.1(NEURONPROF_1.0)(64bit)" <<<"$p" &&
		grep -qx "libneuronprof.so.1(NEURONPROF_1.1)(64bit)" <<<"$p"' \
	_ "$(rpm_file libneuronprof)"
check "the .pc file in libneuronprof-devel names libdir=/usr/lib64" grep -qx "libdir=/usr/lib64" "$rroot/usr/lib64/pkgconfig/libneuronprof.pc"
check "neuronprof-dkms.rpm requires patch (for neuronprof-neuron-hook)" \
	bash -c 'rpm -qpR "$1" 2>/dev/null | grep -qx patch' _ "$(rpm_file neuronprof-dkms)"
check "neuronprof-dkms.rpm requires dkms; its scriptlets run dkms add, build, install and, before removal, dkms remove" \
	bash -c 's=$(rpm -qp --scripts "$1" 2>/dev/null); rpm -qpR "$1" 2>/dev/null | grep -qx dkms &&
		for a in "dkms add -m neuronprof -v $2" "dkms build -m neuronprof -v $2" "dkms install -m neuronprof -v $2" "dkms remove -m neuronprof -v $2"; do
			grep -qF -- "$a" <<<"$s" || { echo "missing: $a"; exit 1; }; done' _ "$(rpm_file neuronprof-dkms)" "$version"

step "done"
finish
