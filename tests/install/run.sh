#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install test (Documentation/install.rst): `make install` into temporary
# roots, then what was installed, that a program builds against it with
# pkg-config (shared and static) and runs, that the man pages render and
# their examples compile, that `make uninstall` leaves each root exactly as
# it was, and that DKMS builds and installs the modules from dkms.conf.
#
#   empty root    DESTDIR=<empty dir> PREFIX=/usr: every file, no depmod;
#                 the hook command neuronprof-neuron-hook, run from that
#                 root, applies its installed series to a scratch copy of
#                 the vendor tree (skipped without one: NEURON_DRIVER_SRC,
#                 /usr/src/aws-neuronx-*, ../shared/vendor/*.tar.gz)
#   kernel root   a root holding the kernel's module index for KVER (drm and
#                 what it needs, copied from /lib/modules/$KVER): depmod
#                 runs, modprobe resolves neuronprof_sim and neuronprof_neuron
#                 to neuronprof
#   dkms          scripts/dkms.sh install and remove (make dkms-install and
#                 dkms-remove) with scratch trees: nothing under /var/lib/dkms,
#                 /usr/src or /lib/modules is touched
#
# Nothing is loaded: `modprobe --show-depends` only reads the index.
# Ends with `N passed, N failed[, N skipped]`; exits non-zero on a failure.
#
# Environment: MAKE, KVER (default scripts/kver.sh), CC (default cc).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
MAKE=${MAKE:-make}
CC=${CC:-cc}
. "$repo/tests/lib.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/nprof-install-test.XXXXXX") || fatal "cannot create a work directory"
trap 'rm -rf "$work"' EXIT

KVER=${KVER:-$(bash "$repo/scripts/kver.sh")} || fatal "no kernel release (scripts/kver.sh)"
export KVER
version=$(library_version) || fatal "no NPROF_VERSION_* in lib/include/neuronprof/common.h"

# listing DIR: every entry under DIR with its type, link target and content
# hash, to compare a root before install and after uninstall.
listing() {
	(cd "$1" && find . -mindepth 1 -printf '%y %p %l\n' | sort) &&
		(cd "$1" && find . -type f -exec sha256sum {} + | sort -k2)
}

# ---- the empty root -------------------------------------------------------
root=$work/root
mkdir "$root"
echo "# make install DESTDIR=$root PREFIX=/usr"
if ! "$MAKE" -C "$repo" --no-print-directory install DESTDIR="$root" PREFIX=/usr >"$work/install.log" 2>&1; then
	sed 's/^/#   /' "$work/install.log" | tail -n 40
	fatal "make install DESTDIR=<empty root> PREFIX=/usr"
fi
ok "make install DESTDIR=<empty root> PREFIX=/usr"

moddir=$root/lib/modules/$KVER
check "depmod is skipped with a message in a root without the kernel's index" \
	grep -q "depmod skipped: .*/lib/modules/$KVER/modules.dep does not exist" "$work/install.log"
check "no module index is created in that root" \
	bash -c '! compgen -G "$1/modules.*" >/dev/null' _ "$moddir"

# The core, the simulator and the provider for neuron.ko's devices; never
# the fake neuron.ko, a test module.
for ko in core/neuronprof sim/neuronprof_sim neuron/neuronprof_neuron; do
	name=${ko#*/}
	check "$name.ko installed in lib/modules/$KVER/extra, identical to the build" \
		cmp "$repo/driver/$ko.ko" "$moddir/extra/$name.ko"
done
check "no other module installed (not the fake neuron.ko the build also makes)" \
	bash -c '[ "$(cd "$1" && find . -name "*.ko*" | sort | xargs)" = "./extra/neuronprof.ko ./extra/neuronprof_neuron.ko ./extra/neuronprof_sim.ko" ]' _ "$moddir"
check "installed modules are for KVER $KVER" \
	bash -c '[ "$(modinfo -F vermagic "$1" | cut -d" " -f1)" = "$2" ]' _ "$moddir/extra/neuronprof_sim.ko" "$KVER"

libdir=$root/usr/lib
check "libneuronprof.so.$version installed, soname libneuronprof.so.1, no rpath" \
	bash -c '[ -f "$1" ] && [ -x "$1" ] && [ ! -L "$1" ] &&
		readelf -d "$1" | grep -q "(SONAME).*\[libneuronprof.so.1\]" &&
		! readelf -d "$1" | grep -Eq "\((RPATH|RUNPATH)\)"' _ "$libdir/libneuronprof.so.$version"
check "libneuronprof.so.1 -> libneuronprof.so.$version" \
	bash -c '[ "$(readlink "$1/libneuronprof.so.1")" = "libneuronprof.so.$2" ]' _ "$libdir" "$version"
check "libneuronprof.so -> libneuronprof.so.1" \
	bash -c '[ "$(readlink "$1/libneuronprof.so")" = "libneuronprof.so.1" ]' _ "$libdir"
check "libneuronprof.a installed" \
	bash -c '[ -f "$1" ] && ar t "$1" | grep -q "\.o$"' _ "$libdir/libneuronprof.a"
check "every public header installed unchanged" \
	bash -c 'for h in "$1"/lib/include/neuronprof/*.h; do cmp "$h" "$2/usr/include/neuronprof/${h##*/}" || exit 1; done' _ "$repo" "$root"
check "the driver's uapi header installed as <drm/neuronprof_drm.h>" \
	cmp "$repo/uapi/drm/neuronprof_drm.h" "$root/usr/include/drm/neuronprof_drm.h"
check "libneuronprof.pc installed with prefix=/usr" \
	grep -qx 'prefix=/usr' "$libdir/pkgconfig/libneuronprof.pc"

if [ -f "$repo/tools/Makefile" ]; then
	check "the neuronprof tool installed in /usr/bin, without an rpath" \
		bash -c '[ -x "$1" ] && ! readelf -d "$1" | grep -Eq "\((RPATH|RUNPATH)\)"' _ "$root/usr/bin/neuronprof"
else
	skipped "the neuronprof tool installed" "tools/Makefile does not exist"
fi

if [ -f "$repo/python/Makefile" ]; then
	pydir=$root/usr/lib/python3/dist-packages/neuronprof
	check "the Python package neuronprof installed in /usr/lib/python3/dist-packages, identical to python/neuronprof" \
		bash -c 'n=0; for f in "$2"/python/neuronprof/*.py; do cmp "$f" "$1/${f##*/}" || exit 1; n=$((n + 1)); done
			[ "$n" -ge 4 ] && [ "$(ls "$1" | wc -l)" -eq "$n" ]' _ "$pydir" "$repo"
	check "neuronprof-analyze installed in /usr/bin, differing from python/bin/neuronprof-analyze only in its PYTHONDIR line" \
		bash -c '[ -x "$1/usr/bin/neuronprof-analyze" ] &&
			[ "$(diff "$2/python/bin/neuronprof-analyze" "$1/usr/bin/neuronprof-analyze" | grep "^[<>]")" = \
			"< PYTHONDIR = \"..\"  # set by python/Makefile install
> PYTHONDIR = \"../lib/python3/dist-packages\"  # set by python/Makefile install" ]' _ "$root" "$repo"
	# Run from the root, it loads the root's package, not the tree's.
	check "neuronprof-analyze runs from the root on the package installed there" \
		bash -c 'out=$(cd / && PYTHONDONTWRITEBYTECODE=1 PYTHONVERBOSE=1 "$1/usr/bin/neuronprof-analyze" --help 2>&1) &&
			grep -q "^usage: neuronprof-analyze" <<<"$out" &&
			grep -q "code object from $1/usr/lib/python3/dist-packages/neuronprof/analyze.py" <<<"$out"' _ "$root"
	check "neuronprof-analyze(1) installed" cmp "$repo/man/neuronprof-analyze.1" "$root/usr/share/man/man1/neuronprof-analyze.1"
else
	skipped "the Python package and neuronprof-analyze installed" "python/Makefile does not exist"
fi

mandir=$root/usr/share/man
pages=("$repo"/man/man3/*.3)
if [ -e "${pages[0]}" ]; then
	check "every man3 page installed" \
		bash -c 'for p in "${@:2}"; do cmp "$p" "$1/man3/${p##*/}" || exit 1; done' _ "$mandir" "${pages[@]}"
else
	not_ok "man/man3 holds no library man page"
fi
if [ -f "$repo/man/neuronprof.1" ]; then
	check "neuronprof(1) installed" cmp "$repo/man/neuronprof.1" "$mandir/man1/neuronprof.1"
fi
if [ -f "$repo/tools/Makefile" ]; then
	# The database's schema and the queries on it, where neuronprof-sqlite(5)
	# says they are, and the page naming no other file of /usr/share/doc.
	check "neuronprof-sqlite(5) installed" cmp "$repo/man/neuronprof-sqlite.5" "$mandir/man5/neuronprof-sqlite.5"
	# The exporter's unit names the installed tool and its options' file.
	check "neuronprof-exporter.service in /usr/lib/systemd/system runs /usr/bin/neuronprof exporter with /etc/default/neuronprof-exporter" \
		bash -c 'u=$1/usr/lib/systemd/system/neuronprof-exporter.service
			grep -qx "ExecStart=/usr/bin/neuronprof exporter \$NEURONPROF_EXPORTER_OPTS" "$u" &&
			grep -qx "EnvironmentFile=-/etc/default/neuronprof-exporter" "$u" && ! grep -q @ "$u" &&
			cmp "$2/tools/systemd/neuronprof-exporter.default" "$1/etc/default/neuronprof-exporter"' _ "$root" "$repo"
	if command -v systemd-analyze >/dev/null; then
		check "systemd-analyze verify accepts neuronprof-exporter.service (its ExecStart made the staged tool)" \
			bash -c 'sed "s|/usr/bin/neuronprof|$1/usr/bin/neuronprof|" "$1/usr/lib/systemd/system/neuronprof-exporter.service" >"$2/neuronprof-exporter.service" &&
				SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "$2/neuronprof-exporter.service"' _ "$root" "$work"
	fi
	check "analysis.rst and analysis-queries.sql installed in /usr/share/doc/neuronprof" \
		bash -c 'cmp "$2/Documentation/analysis.rst" "$1/usr/share/doc/neuronprof/analysis.rst" &&
			cmp "$2/Documentation/analysis-queries.sql" "$1/usr/share/doc/neuronprof/analysis-queries.sql"' _ "$root" "$repo"
	check "every /usr/share/doc file neuronprof-sqlite(5) names is installed" \
		bash -c 'n=0; for f in $(LC_ALL=C MANWIDTH=200 man -l "$1/usr/share/man/man5/neuronprof-sqlite.5" 2>/dev/null |
			grep -o "/usr/share/doc/neuronprof/[A-Za-z.-]*[a-z]" | sort -u); do
			[ -f "$1$f" ] || { echo "$f named, not installed"; exit 1; }; n=$((n + 1)); done; [ "$n" -eq 2 ]' _ "$root"
	check "man -M finds neuronprof-sqlite in section 5" \
		bash -c 'MANWIDTH=80 man -M "$1" 5 neuronprof-sqlite 2>/dev/null | grep -q raw_entries' _ "$mandir"
fi
check "neuronprof-neuron-hook(8) installed" \
	cmp "$repo/man/neuronprof-neuron-hook.8" "$mandir/man8/neuronprof-neuron-hook.8"

# The hook command and its series, as a user without the sources has them.
check "neuronprof-neuron-hook installed in /usr/sbin, its series in /usr/share/neuronprof/neuron-hook" \
	bash -c '[ -x "$1/usr/sbin/neuronprof-neuron-hook" ] && [ -f "$1/usr/share/neuronprof/neuron-hook/README" ]' _ "$root"
check "the installed command differs from scripts/neuron-vendor-hook.sh only in its patch_dir line" \
	bash -c '[ "$(diff "$2/scripts/neuron-vendor-hook.sh" "$1/usr/sbin/neuronprof-neuron-hook" | grep "^[<>]")" = \
		"< patch_dir= # set by scripts/install.sh
> patch_dir=../share/neuronprof/neuron-hook # set by scripts/install.sh" ]' _ "$root" "$repo"
check_hook_command "installed hook" "$root/usr/sbin/neuronprof-neuron-hook" \
	"$root/usr/share/neuronprof/neuron-hook" "$work/hook"

# Every exported function has a man page (its own or a .so alias page), and
# every function a page names exists in a public header.
exports=$(sed -n 's/^[[:space:]]*\(nprof_[a-z0-9_]*\);$/\1/p' "$repo/lib/libneuronprof.map")
missing=
for sym in $exports; do
	[ -f "$mandir/man3/$sym.3" ] || missing="$missing $sym"
done
if [ -n "$exports" ] && [ -z "$missing" ]; then
	ok "every exported function has a man page ($(wc -w <<<"$exports") functions)"
else
	not_ok "exported functions without a man page:${missing:- (no exports found in lib/libneuronprof.map)}"
fi
unknown=
for p in "$repo"/man/man3/*.3; do
	for fn in $(sed -n '/^\.SH NAME/,/^\.SH/{/^\.SH/d;p}' "$p" | sed 's/\\-.*//; s/,/ /g'); do
		[ "$fn" = libneuronprof ] && continue
		grep -Eq "\\b$fn\\(" "$repo"/lib/include/neuronprof/*.h || unknown="$unknown ${p##*/}:$fn"
	done
done
if [ -z "$unknown" ]; then
	ok "every function named by a man page is declared in a public header"
else
	not_ok "man pages name functions no header declares:$unknown"
fi

# Pages render without a groff warning, directly and through an alias page.
warned=
for p in "$repo"/man/man3/*.3 "$repo"/man/*.[1-8]; do
	[ -f "$p" ] || continue
	out=$(MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)
	[ -z "$out" ] || warned="$warned
$p: $out"
done
if [ -z "$warned" ]; then
	ok "every man page renders without warnings (man --warnings -l)"
else
	not_ok "man pages with warnings:$(sed 's/^/#   /' <<<"$warned")"
fi
# nprof_device_list is named only in the NAME section of nprof_device(3).
check "man nprof_device_open shows nprof_device(3) through its alias page" \
	bash -c 'out=$(MANWIDTH=80 man --warnings -M "$1" 3 nprof_device_open 2>"$2") &&
		[ ! -s "$2" ] && grep -q "nprof_device_list" <<<"$out"' _ "$mandir" "$work/man-alias.err"

check "the manifest lists every installed file" \
	bash -c 'cd "$1" && diff <(find . \( -type f -o -type l \) ! -path ./usr/share/neuronprof/install_manifest.txt | sed "s/^\.//" | sort) \
		<(sed -n "s/^file //p" usr/share/neuronprof/install_manifest.txt | sort)' _ "$root"

# ---- a program built with pkg-config ------------------------------------------
cat >"$work/prog.c" <<'EOF'
/* Links libneuronprof, parses an inspect environment, reports where the
 * library's code came from. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <neuronprof/neuronprof.h>

int main(void)
{
	char *good[] = { "NEURON_RT_INSPECT_ENABLE=1",
			 "NEURON_RT_INSPECT_OUTPUT_DIR=/var/tmp/prof",
			 "NEURON_RT_INSPECT_EVENT_FILTER_NC=0-1,4",
			 "NEURON_RT_PROFILE_BUF_DMA_MB=2", NULL };
	char *bad[] = { "NEURON_RT_INSPECT_EVENT_FILTER_NC=0-3,x", NULL };
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	uint64_t dma = 0;
	Dl_info where;
	int rc;

	if (!cfg)
		return 1;
	printf("version %s %u\n", nprof_version_string(), nprof_version());
	rc = nprof_inspect_config_parse_envp(cfg, good);
	if (rc) {
		printf("parse failed: %s\n", nprof_strerror_last());
		return 1;
	}
	nprof_inspect_config_get_ring_size(cfg, (uint32_t)nprof_queue_type_from_name("DMA"), &dma);
	printf("enable %d dir %s nc0 %d nc1 %d nc2 %d nc4 %d dma %" PRIu64 "\n",
	       nprof_inspect_config_get_enable_inspect(cfg),
	       nprof_inspect_config_get_output_dir(cfg),
	       nprof_inspect_config_get_capture_enabled_for_nc(cfg, 0),
	       nprof_inspect_config_get_capture_enabled_for_nc(cfg, 1),
	       nprof_inspect_config_get_capture_enabled_for_nc(cfg, 2),
	       nprof_inspect_config_get_capture_enabled_for_nc(cfg, 4), dma);
	rc = nprof_inspect_config_parse_envp(cfg, bad);
	printf("bad %d %s\n", rc, nprof_strerror_last());
	if (dladdr((void *)nprof_version, &where) && where.dli_fname)
		printf("from %s\n", where.dli_fname);
	nprof_inspect_config_free(cfg);
	return 0;
}
EOF
expected="version $version $(( ${version%%.*} << 16 | $(cut -d. -f2 <<<"$version") << 8 | ${version##*.} ))
enable 1 dir /var/tmp/prof nc0 1 nc1 1 nc2 0 nc4 1 dma 2097152
bad -22 NEURON_RT_INSPECT_EVENT_FILTER_NC: bad core index 'x' in '0-3,x'"

pc() {
	PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config "$@"
}

# The staged root holds libneuronprof only: the packages it requires come
# from this machine, so their flags are taken without the sysroot.
reqs=$(pc --print-requires-private libneuronprof)
# shellcheck disable=SC2086
dep_cflags=$(pkg-config --cflags $reqs)

check "pkg-config --modversion libneuronprof is $version" \
	bash -c '[ "$(PKG_CONFIG_SYSROOT_DIR=$1 PKG_CONFIG_PATH=$1/usr/lib/pkgconfig pkg-config --modversion libneuronprof)" = "$2" ]' _ "$root" "$version"

if cflags="$(pc --cflags libneuronprof) $dep_cflags" && libs=$(pc --libs libneuronprof) &&
	# shellcheck disable=SC2086
	"$CC" -Wall -Wextra -Werror -o "$work/prog" "$work/prog.c" $cflags $libs >"$work/cc.log" 2>&1; then
	ok "a program builds with pkg-config --cflags --libs libneuronprof ($cflags $libs)"
	out=$(LD_LIBRARY_PATH=$libdir "$work/prog" 2>&1)
	if [ "$(head -n 3 <<<"$out")" = "$expected" ] && [ "$(sed -n 4p <<<"$out")" = "from $libdir/libneuronprof.so.1" ]; then
		ok "it runs against the installed libneuronprof.so.1 and parses an environment"
	else
		not_ok "it runs against the installed libneuronprof.so.1 and parses an environment"
		printf '%s\n' "# expected:" "$expected" "from $libdir/libneuronprof.so.1" "# got:" "$out" | sed 's/^/#   /'
	fi
else
	not_ok "a program builds with pkg-config --cflags --libs libneuronprof"
	sed 's/^/#   /' "$work/cc.log"
	skipped "it runs against the installed libneuronprof.so.1" "it did not build"
fi

# Static libneuronprof.a, its dependencies (Requires.private) shared: the
# .pc file must name every library the archive needs.
if [ -n "$reqs" ] &&
	# shellcheck disable=SC2086,SC2046
	"$CC" -Wall -Wextra -Werror -o "$work/prog-static" "$work/prog.c" $(pc --cflags libneuronprof) $dep_cflags \
		-L"$libdir" -l:libneuronprof.a $(pkg-config --libs $reqs) -pthread >"$work/cc-static.log" 2>&1; then
	out=$("$work/prog-static" 2>&1)
	if [ "$(head -n 3 <<<"$out")" = "$expected" ] && ! ldd "$work/prog-static" | grep -q libneuronprof; then
		ok "a program links libneuronprof.a plus the .pc's Requires.private ($(xargs <<<"$reqs")) and runs"
	else
		not_ok "a program links libneuronprof.a plus the .pc's Requires.private and runs"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
else
	not_ok "a program links libneuronprof.a plus the .pc's Requires.private ($(xargs <<<"${reqs:-}"))"
	sed 's/^/#   /' "$work/cc-static.log"
fi

# The first code block of the EXAMPLE of every man3 page is a complete
# program: it must compile and link against the installed library.
examples=0
bad_examples=
for p in "$repo"/man/man3/*.3; do
	[ -f "$p" ] || continue
	src=$work/example-$(basename "$p" .3).c
	awk '/^\.SH EXAMPLE/ { ex = 1; next } /^\.SH/ { ex = 0 } ex && /^\.EE/ { ex = 0 } ex && in_ex { print } ex && /^\.EX/ { in_ex = 1 }' "$p" |
		sed -e "s/\\\\(aq/'/g" -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\e/\\/g' >"$src"
	if [ ! -s "$src" ]; then
		bad_examples="$bad_examples ${p##*/}(no EXAMPLE program)"
		continue
	fi
	examples=$((examples + 1))
	# shellcheck disable=SC2086
	if ! "$CC" -Wall -Wextra -Werror -o "${src%.c}" "$src" $(pc --cflags --libs libneuronprof) $dep_cflags >"$src.log" 2>&1; then
		bad_examples="$bad_examples ${p##*/}"
		sed "s|^|#   ${p##*/}: |" "$src.log" | head -n 20
	fi
done
if [ -z "$bad_examples" ] && [ "$examples" -gt 0 ]; then
	ok "the EXAMPLE programs of $examples man pages compile and link with -Wall -Wextra -Werror"
else
	not_ok "man page EXAMPLE programs that do not build:${bad_examples:- none found}"
fi

# ---- uninstall ----------------------------------------------------------------
# A second install over the first must not forget what the first created.
"$MAKE" -C "$repo" --no-print-directory install DESTDIR="$root" PREFIX=/usr >"$work/install2.log" 2>&1
check "make install again over an existing install" grep -q "manifest:" "$work/install2.log"
if "$MAKE" -C "$repo" --no-print-directory uninstall DESTDIR="$root" PREFIX=/usr >"$work/uninstall.log" 2>&1; then
	ok "make uninstall DESTDIR=<root> PREFIX=/usr"
else
	not_ok "make uninstall DESTDIR=<root> PREFIX=/usr"
	sed 's/^/#   /' "$work/uninstall.log"
fi
left=$(cd "$root" && find . -mindepth 1)
if [ -z "$left" ]; then
	ok "the root is empty after uninstall"
else
	not_ok "the root is empty after uninstall; left:"
	sed 's/^/#   /' <<<"$left"
fi
if "$MAKE" -C "$repo" --no-print-directory uninstall DESTDIR="$root" PREFIX=/usr >"$work/uninstall2.log" 2>&1; then
	not_ok "a second uninstall fails: nothing is installed"
else
	check "a second uninstall fails and says there is no manifest" \
		grep -q "nothing to uninstall: no manifest at $root/usr/share/neuronprof/install_manifest.txt" "$work/uninstall2.log"
fi

# INSTALL_MODULES=no (DKMS provides the modules): everything else.
nroot=$work/nomod
mkdir "$nroot"
if "$MAKE" -C "$repo" --no-print-directory install DESTDIR="$nroot" PREFIX=/usr INSTALL_MODULES=no \
	>"$work/nomod.log" 2>&1; then
	check "INSTALL_MODULES=no installs the library but no module" \
		bash -c '[ ! -e "$1/lib" ] && [ -f "$1/usr/lib/libneuronprof.so.$2" ]' _ "$nroot" "$version"
	"$MAKE" -C "$repo" --no-print-directory uninstall DESTDIR="$nroot" PREFIX=/usr >>"$work/nomod.log" 2>&1
	check "and uninstall empties that root" bash -c '[ -z "$(ls -A "$1")" ]' _ "$nroot"
else
	not_ok "make install INSTALL_MODULES=no"
	sed 's/^/#   /' "$work/nomod.log" | tail -n 20
fi

# ---- a root with the kernel's module index ------------------------------------
# drm and what it needs, as the host's index for KVER lists them, stand in for
# the kernel's module tree.
host=/lib/modules/$KVER
kroot=$work/kroot
kmod=$kroot/lib/modules/$KVER
drm_line=$(grep -E '^kernel/drivers/gpu/drm/drm\.ko(\.[a-z]+)?:' "$host/modules.dep" 2>/dev/null)
if [ -z "$drm_line" ]; then
	skipped "kernel root: depmod and modprobe resolution" "$host/modules.dep does not list drm.ko (linux-image-$KVER not installed)"
else
	mkdir -p "$kmod"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -f "$host/$f" ] && cp "$host/$f" "$kmod/"
	done
	for m in $(tr -d : <<<"$drm_line"); do
		mkdir -p "$kmod/$(dirname "$m")"
		cp "$host/$m" "$kmod/$m"
	done
	depmod -b "$kroot" "$KVER"
	listing "$kroot" >"$work/kroot.before"

	if "$MAKE" -C "$repo" --no-print-directory install DESTDIR="$kroot" PREFIX=/usr >"$work/kinstall.log" 2>&1; then
		ok "make install into a root with the kernel's module index"
		check "depmod -b ran on that root" grep -q "depmod -b $kroot $KVER" "$work/kinstall.log"
		check "modules.dep: neuronprof_sim and neuronprof_neuron depend on neuronprof, neuronprof on drm" \
			bash -c 'grep -Eq "^extra/neuronprof_sim\.ko: (.* )?extra/neuronprof\.ko( |$)" "$1/modules.dep" &&
				grep -Eq "^extra/neuronprof_neuron\.ko: (.* )?extra/neuronprof\.ko( |$)" "$1/modules.dep" &&
				grep -Eq "^extra/neuronprof\.ko: (.* )?kernel/drivers/gpu/drm/drm\.ko" "$1/modules.dep"' _ "$kmod"
		# --show-depends lists the insmod sequence; it loads nothing.
		deps=$(modprobe -d "$kroot" -S "$KVER" --show-depends neuronprof_sim 2>&1)
		if [ "$(sed -n '$s/^insmod \(.*\) *$/\1/p' <<<"$deps" | xargs)" = "$kmod/extra/neuronprof_sim.ko" ] &&
			[ "$(tail -n 2 <<<"$deps" | head -n 1 | xargs)" = "insmod $kmod/extra/neuronprof.ko" ] &&
			grep -q "insmod $kmod/kernel/drivers/gpu/drm/drm.ko" <<<"$deps"; then
			ok "modprobe neuronprof_sim resolves drm, then neuronprof, then neuronprof_sim"
		else
			not_ok "modprobe neuronprof_sim resolves drm, then neuronprof, then neuronprof_sim"
			sed 's/^/#   /' <<<"$deps"
		fi
		"$MAKE" -C "$repo" --no-print-directory uninstall DESTDIR="$kroot" PREFIX=/usr >"$work/kuninstall.log" 2>&1
		listing "$kroot" >"$work/kroot.after"
		check "uninstall restores that root exactly (files, links and module index)" \
			diff "$work/kroot.before" "$work/kroot.after"
	else
		not_ok "make install into a root with the kernel's module index"
		sed 's/^/#   /' "$work/kinstall.log" | tail -n 40
	fi
fi

# ---- DKMS --------------------------------------------------------------------
conf_version=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$repo/dkms.conf")
check "dkms.conf PACKAGE_VERSION ($conf_version) is the library version ($version)" \
	test "$conf_version" = "$version"
if ! command -v dkms >/dev/null; then
	not_ok "dkms is installed (scripts/deps.sh installs it)"
else
	dk=$work/dkms
	mkdir -p "$dk/src" "$dk/tree" "$dk/root/lib/modules/$KVER"
	# make dkms-install's script with every DKMS tree in scratch, and the
	# signing key too (dkms would otherwise create one in /var/lib/dkms).
	dkms_script() {
		DKMS_SOURCE_TREE=$dk/src DKMS_TREE=$dk/tree DKMS_INSTALL_TREE=$dk/root/lib/modules \
			DKMS_NO_DEPMOD=1 mok_signing_key=$dk/mok.key mok_certificate=$dk/mok.pub \
			bash "$repo/scripts/dkms.sh" "$@"
	}
	# dkms install would load modules if the machine's DKMS configuration
	# asked for that; never on this host.
	if grep -Eqs '^[[:space:]]*modprobe_on_install=' /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf; then
		skipped "scripts/dkms.sh install (make dkms-install) into scratch trees" \
			"this machine's DKMS configuration sets modprobe_on_install"
	elif dkms_script install >"$work/dkms-install.log" 2>&1; then
		ok "scripts/dkms.sh install (make dkms-install): dkms add, build -k $KVER and install from dkms.conf"
		check "the DKMS source tree holds only sources (no build products)" \
			bash -c '[ -f "$1/dkms.conf" ] && ! find "$1" -name "*.o" -o -name "*.ko" -o -name "*.mod*" -o -name "*.cmd" | grep -q .' \
			_ "$dk/src/neuronprof-$conf_version"
		built=$dk/tree/neuronprof/$conf_version/$KVER/$(uname -m)/module
		check "DKMS built neuronprof.ko for $KVER, and neuronprof_sim.ko and neuronprof_neuron.ko depending on it" \
			bash -c '[ "$(modinfo -F vermagic "$1/neuronprof.ko" | cut -d" " -f1)" = "$2" ] &&
				[ "$(modinfo -F depends "$1/neuronprof_sim.ko")" = neuronprof ] &&
				[ "$(modinfo -F depends "$1/neuronprof_neuron.ko")" = neuronprof ]' _ "$built" "$KVER"
		check "dkms install put the three modules, and only them, into the install tree (updates/dkms on Debian)" \
			bash -c '[ "$(cd "$1/lib/modules/$2" && find . -name "*.ko*" | sort | xargs)" = \
				"./updates/dkms/neuronprof.ko ./updates/dkms/neuronprof_neuron.ko ./updates/dkms/neuronprof_sim.ko" ]' \
			_ "$dk/root" "$KVER"
		dkms_script remove >"$work/dkms-remove.log" 2>&1
		check "scripts/dkms.sh remove (make dkms-remove) takes out the modules, the build and the sources" \
			bash -c '! find "$1/root" -name "*.ko*" | grep -q . && [ ! -e "$1/src/neuronprof-$2" ] &&
				[ ! -e "$1/tree/neuronprof/$2" ]' _ "$dk" "$conf_version"
	else
		not_ok "scripts/dkms.sh install (make dkms-install) into scratch trees"
		sed 's/^/#   /' "$work/dkms-install.log" | tail -n 30
		find "$dk/tree" -name make.log -exec tail -n 30 {} \; | sed 's/^/#   /'
	fi
fi

finish
