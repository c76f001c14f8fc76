#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install` and `make uninstall` (Documentation/install.rst).
#
#   scripts/install.sh install     modules, library, headers (the library's and
#                                  the driver's uapi), pkg-config file, the
#                                  neuronprof tool, the nrt compatibility
#                                  library (libnrtprof) and its headers, the
#                                  Python package neuronprof with its command
#                                  neuronprof-analyze, man
#                                  pages, and neuronprof-neuron-hook, the
#                                  command that applies the hook to the
#                                  vendor's neuron.ko, with its patch series
#   scripts/install.sh uninstall   remove exactly what install put there
#
# Environment (the top-level Makefile passes its variables):
#   DESTDIR          staging root, empty for the live system
#   PREFIX           default /usr/local
#   LIBDIR, INCLUDEDIR, BINDIR, SBINDIR, MANDIR, DOCDIR
#                    default $PREFIX/lib, $PREFIX/include, $PREFIX/bin,
#                    $PREFIX/sbin, $PREFIX/share/man,
#                    $PREFIX/share/doc/neuronprof (the SQLite schema,
#                    Documentation/analysis.rst, and the queries on it,
#                    Documentation/analysis-queries.sql)
#   SYSTEMDUNITDIR, SYSCONFDIR
#                    where neuronprof-exporter.service and its options
#                    (SYSCONFDIR/default/neuronprof-exporter) go; default
#                    $PREFIX/lib/systemd/system, and /etc for PREFIX=/usr,
#                    else $PREFIX/etc
#   PYTHONDIR        where the Python package goes: default
#                    /usr/lib/python3/dist-packages for PREFIX=/usr, else
#                    $PREFIX/lib/pythonX.Y/dist-packages (python/Makefile)
#   KVER             kernel release the modules are for; default
#                    scripts/kver.sh (the newest Debian 6.1 headers), never
#                    the running kernel: on a Neuron instance pass
#                    KVER=$(uname -r)
#   INSTALL_MOD_DIR  directory of the modules under lib/modules/$KVER,
#                    default extra
#   INSTALL_MOD_STRIP=1  strip debug information from the installed modules
#   INSTALL_MODULES=no   install everything but the modules (DKMS provides
#                    them); KVER is then neither needed nor recorded
#   INSTALL_MANIFEST=no  write no manifest (a package build: the package
#                    manager keeps the file list; make uninstall then has
#                    nothing to follow)
#   MAKE             make program for lib/ and tools/
#
# How it works: every part installs into a private staging directory with
# its own `make install`, then the staged tree is copied under $DESTDIR while
# each file, and each directory that did not exist before, is written to
# $DESTDIR$PREFIX/share/neuronprof/install_manifest.txt. Uninstall reads
# that manifest, so it removes what was installed and nothing else, whatever
# the sub-makefiles install. Files replace existing ones by rename, so a
# running program keeps its old copy of the shared library.
#
# The modules: neuronprof (the core), neuronprof_sim (the simulator) and
# neuronprof_neuron (the provider for the vendor's neuron.ko devices,
# Documentation/hardware.rst), as dkms.conf names them; not the fake
# neuron.ko, which is for tests only.
#
# The hook (Documentation/hardware.rst): scripts/neuron-vendor-hook.sh is
# installed as $SBINDIR/neuronprof-neuron-hook, and the series of
# driver/neuron/vendor/ (0*.patch, README, and the fixes series fixes/0*.patch) into
# $PREFIX/share/neuronprof/neuron-hook/. The installed copy has its
# patch_dir line set to that directory relative to $SBINDIR, so it reads
# the installed series, also from a staged root (DESTDIR) or an unpacked
# package. The relation is lexical and the command resolves its own path
# with readlink -f, so SBINDIR must not lead through a symbolic link into
# another tree (the default, $PREFIX/sbin, does not).
#
# depmod: modprobe finds neuronprof_sim's dependency on neuronprof through
# the module index (modules.dep). The index is rebuilt only when the root
# already has one for $KVER (lib/modules/$KVER/modules.dep: the kernel is
# installed in that root, as on a live system or in an image being built).
# In any other root, such as an empty staging directory, an index would list
# our modules and nothing of the kernel, so depmod is skipped with a
# message; run `depmod $KVER` on the target once the files are in place.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
MAKE=${MAKE:-make}
MANIFEST_REL=share/neuronprof/install_manifest.txt
HOOK_CMD=neuronprof-neuron-hook
HOOK_DATA_REL=share/neuronprof/neuron-hook
MODULES=(driver/core/neuronprof.ko driver/sim/neuronprof_sim.ko driver/neuron/neuronprof_neuron.ko)

die() {
	echo "install: $*" >&2
	exit 1
}

say() {
	echo "install: $*"
}

# absolute PATH: PATH made absolute against the caller's directory.
absolute() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s\n' "$PWD/$1" ;;
	esac
}

check_path_var() {
	local name=$1 value=$2
	case $value in
	/*) ;;
	*) die "$name must be an absolute path, not '$value'" ;;
	esac
	case $value in
	*$'\n'*) die "$name contains a newline" ;;
	esac
}

setup() {
	PREFIX=${PREFIX:-/usr/local}
	LIBDIR=${LIBDIR:-$PREFIX/lib}
	INCLUDEDIR=${INCLUDEDIR:-$PREFIX/include}
	BINDIR=${BINDIR:-$PREFIX/bin}
	SBINDIR=${SBINDIR:-$PREFIX/sbin}
	MANDIR=${MANDIR:-$PREFIX/share/man}
	DOCDIR=${DOCDIR:-$PREFIX/share/doc/neuronprof}
	SYSTEMDUNITDIR=${SYSTEMDUNITDIR:-$PREFIX/lib/systemd/system}
	if [ -z "${SYSCONFDIR:-}" ]; then
		if [ "$PREFIX" = /usr ]; then SYSCONFDIR=/etc; else SYSCONFDIR=$PREFIX/etc; fi
	fi
	INSTALL_MOD_DIR=${INSTALL_MOD_DIR:-extra}
	for v in PREFIX LIBDIR INCLUDEDIR BINDIR SBINDIR MANDIR DOCDIR SYSTEMDUNITDIR SYSCONFDIR; do
		check_path_var "$v" "${!v}"
	done
	[ -z "${PYTHONDIR:-}" ] || check_path_var PYTHONDIR "$PYTHONDIR"
	case $INSTALL_MOD_DIR in
	"" | /* | *..* | *$'\n'*) die "INSTALL_MOD_DIR must be a relative directory without '..', not '$INSTALL_MOD_DIR'" ;;
	esac
	if [ -n "${DESTDIR:-}" ]; then
		DESTDIR=$(absolute "$DESTDIR")
		DESTDIR=${DESTDIR%/}
		[ -n "$DESTDIR" ] || DESTDIR=
	else
		DESTDIR=
	fi
	ROOT=${DESTDIR:-/}
	MANIFEST_PATH=${PREFIX%/}/$MANIFEST_REL
	MANIFEST=$DESTDIR$MANIFEST_PATH
}

kver() {
	if [ -z "${KVER:-}" ]; then
		KVER=$(bash "$here/kver.sh") || die "no kernel release: set KVER (on a Neuron instance: KVER=\$(uname -r))"
	fi
	case $KVER in
	"" | */* | *..* | *[[:space:]]*) die "KVER '$KVER' is not a kernel release" ;;
	esac
}

# The modules must have been built for KVER: a module built for another
# kernel would be installed where modprobe finds it and then refuse to load.
check_module() {
	local ko=$1 vermagic
	[ -f "$ko" ] || die "$ko not found: build the modules first (make modules KVER=$KVER)"
	vermagic=$(modinfo -F vermagic "$ko") || die "cannot read the vermagic of $ko"
	[ "${vermagic%% *}" = "$KVER" ] ||
		die "$ko was built for kernel ${vermagic%% *}, not KVER=$KVER: run make modules KVER=$KVER"
}

# has_depmod_index: the root holds the kernel's module index for KVER.
has_depmod_index() {
	[ -f "$DESTDIR/lib/modules/$KVER/modules.dep" ]
}

run_depmod() {
	say "depmod -b $ROOT $KVER"
	depmod -b "$ROOT" "$KVER" || die "depmod -b $ROOT $KVER failed"
}

# Man pages: man/*.N and man/manN/*.N go to $MANDIR/manN. Each function a
# man3 page names in its NAME section also gets a one-line page that sources
# it (.so), so `man nprof_device_open` finds nprof_device(3).
stage_man() {
	local stage=$1 page sec base names fn
	shopt -s nullglob
	for page in "$repo"/man/*.[1-8] "$repo"/man/man[1-8]/*.[1-8]; do
		sec=${page##*.}
		install -d "$stage$MANDIR/man$sec"
		install -m 0644 "$page" "$stage$MANDIR/man$sec/"
	done
	for page in "$repo"/man/man3/*.3; do
		base=$(basename "$page" .3)
		names=$(sed -n '/^\.SH NAME/,/^\.SH/{/^\.SH/d;p}' "$page" | sed 's/\\-.*//; s/\\f[BIRP]//g; s/,/ /g')
		for fn in $names; do
			[ "$fn" != "$base" ] || continue
			[ ! -e "$repo/man/man3/$fn.3" ] || continue
			case $fn in
			*[!A-Za-z0-9_]*) die "$page: '$fn' in the NAME section is not a function name" ;;
			esac
			[ ! -e "$stage$MANDIR/man3/$fn.3" ] ||
				die "$fn is named by two man pages ($(sed 's/^\.so //' "$stage$MANDIR/man3/$fn.3") and man3/$base.3)"
			printf '.so man3/%s.3\n' "$base" >"$stage$MANDIR/man3/$fn.3"
			chmod 0644 "$stage$MANDIR/man3/$fn.3"
		done
	done
	shopt -u nullglob
}

# The hook command and its series. The series' directory is written into
# the command relative to SBINDIR (both without DESTDIR, lexically).
stage_hook() {
	local stage=$1 data rel line=' # set by scripts/install.sh' text p n=0
	data=${PREFIX%/}/$HOOK_DATA_REL
	rel=$(realpath -s -m --relative-to="$SBINDIR" "$data") || die "cannot relate $data to $SBINDIR"
	text=$(cat scripts/neuron-vendor-hook.sh) || die "cannot read scripts/neuron-vendor-hook.sh"
	[[ $text == *$'\n'"patch_dir=$line"$'\n'* ]] ||
		die "scripts/neuron-vendor-hook.sh has no line 'patch_dir=$line'"
	text=${text/$'\n'"patch_dir=$line"$'\n'/$'\n'"patch_dir=$(printf '%q' "$rel")$line"$'\n'}
	install -d "$stage$SBINDIR" "$stage$data"
	printf '%s\n' "$text" >"$stage$SBINDIR/$HOOK_CMD"
	chmod 0755 "$stage$SBINDIR/$HOOK_CMD"
	for p in driver/neuron/vendor/0*.patch driver/neuron/vendor/README; do
		[ -f "$p" ] || die "$p not found"
		install -m 0644 "$p" "$stage$data/"
		n=$((n + 1))
	done
	[ "$n" -gt 1 ] || die "no patch series in driver/neuron/vendor"
	install -d "$stage$data/fixes"
	n=0
	for p in driver/neuron/vendor/fixes/0*.patch; do
		[ -f "$p" ] || die "$p not found"
		install -m 0644 "$p" "$stage$data/fixes/"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || die "no fixes series in driver/neuron/vendor/fixes"
}

stage_modules() {
	local stage=$1 moddir ko
	moddir=$stage/lib/modules/$KVER/$INSTALL_MOD_DIR
	install -d "$moddir"
	for ko in "${MODULES[@]}"; do
		install -m 0644 "$ko" "$moddir/"
		if [ "${INSTALL_MOD_STRIP:-}" = 1 ]; then
			strip --strip-debug "$moddir/$(basename "$ko")"
		fi
	done
}

# copy_tree STAGE NEWMANIFEST: copy every entry of STAGE under DESTDIR and
# record it. Directories are recorded only if this call creates them.
copy_tree() {
	local stage=$1 out=$2 rel dst tmp
	while IFS= read -r -d '' rel; do
		rel=${rel#.}
		[ -n "$rel" ] || continue
		dst=$DESTDIR$rel
		if [ -d "$stage$rel" ] && [ ! -L "$stage$rel" ]; then
			if [ -L "$dst" ] && [ -d "$dst" ]; then
				continue # e.g. /lib -> usr/lib on merged-/usr systems
			elif [ -d "$dst" ]; then
				continue
			elif [ -e "$dst" ] || [ -L "$dst" ]; then
				die "$dst exists and is not a directory"
			fi
			mkdir -m 0755 "$dst" || die "cannot create directory $dst"
			printf 'dir %s\n' "$rel" >>"$out"
		else
			if [ -d "$dst" ] && [ ! -L "$dst" ]; then
				die "$dst is a directory; refusing to replace it with a file"
			fi
			tmp=$(dirname "$dst")/.nprof-install.$$.$(basename "$dst")
			cp -P --preserve=mode,timestamps "$stage$rel" "$tmp" || die "cannot copy to $tmp"
			mv -fT "$tmp" "$dst" || { rm -f "$tmp"; die "cannot install $dst"; }
			printf 'file %s\n' "$rel" >>"$out"
		fi
	done < <(cd "$stage" && find . -mindepth 1 -print0 | LC_ALL=C sort -z)
}

do_install() {
	local stage new old line tag path ko
	setup
	cd "$repo"
	case ${INSTALL_MODULES:-yes} in
	yes | no) ;;
	*) die "INSTALL_MODULES must be yes or no, not '$INSTALL_MODULES'" ;;
	esac
	case ${INSTALL_MANIFEST:-yes} in
	yes | no) ;;
	*) die "INSTALL_MANIFEST must be yes or no, not '$INSTALL_MANIFEST'" ;;
	esac
	if [ "${INSTALL_MODULES:-yes}" = yes ]; then
		kver
		for ko in "${MODULES[@]}"; do
			check_module "$ko"
		done
	fi

	stage=$(mktemp -d "${TMPDIR:-/tmp}/nprof-install.XXXXXX") || die "cannot create a staging directory"
	# shellcheck disable=SC2064
	trap "rm -rf '$stage' '$stage.manifest'" EXIT

	say "staging the library, headers and pkg-config file (make -C lib install)"
	# -W regenerates the pkg-config file: it records PREFIX, which the
	# file's dependencies in lib/Makefile do not include.
	"$MAKE" --no-print-directory -C lib -W libneuronprof.pc.in install \
		DESTDIR="$stage" PREFIX="$PREFIX" LIBDIR="$LIBDIR" INCLUDEDIR="$INCLUDEDIR" >&2 ||
		die "make -C lib install failed"

	if [ -f tools/Makefile ]; then
		say "staging the neuronprof tool (make -C tools install)"
		"$MAKE" --no-print-directory -C tools install \
			DESTDIR="$stage" PREFIX="$PREFIX" BINDIR="$BINDIR" MANDIR="$MANDIR" \
			DOCDIR="$DOCDIR" SYSTEMDUNITDIR="$SYSTEMDUNITDIR" SYSCONFDIR="$SYSCONFDIR" >&2 ||
			die "make -C tools install failed"
	else
		say "tools/Makefile not found: the neuronprof tool is not installed"
	fi

	if [ -f python/Makefile ]; then
		say "staging the Python package and neuronprof-analyze (make -C python install)"
		"$MAKE" --no-print-directory -C python install \
			DESTDIR="$stage" PREFIX="$PREFIX" BINDIR="$BINDIR" \
			${PYTHONDIR:+PYTHONDIR="$PYTHONDIR"} >&2 ||
			die "make -C python install failed"
	else
		say "python/Makefile not found: neuronprof-analyze is not installed"
	fi

	if [ -f compat/Makefile ]; then
		say "staging the nrt compatibility library (make -C compat install)"
		"$MAKE" --no-print-directory -C compat install \
			DESTDIR="$stage" PREFIX="$PREFIX" LIBDIR="$LIBDIR" INCLUDEDIR="$INCLUDEDIR" >&2 ||
			die "make -C compat install failed"
	else
		say "compat/Makefile not found: libnrtprof is not installed"
	fi

	# The driver's uapi, for programs that read ring entries (struct
	# neuronprof_notification) or queue types: <drm/neuronprof_drm.h>, as
	# the tools and the documentation include it.
	install -d "$stage$INCLUDEDIR/drm"
	install -m 0644 uapi/drm/neuronprof_drm.h "$stage$INCLUDEDIR/drm/"

	if [ "${INSTALL_MODULES:-yes}" = yes ]; then
		stage_modules "$stage"
	else
		say "INSTALL_MODULES=no: the kernel modules are not installed"
	fi
	say "staging $HOOK_CMD and its patch series"
	stage_hook "$stage"
	stage_man "$stage"
	# The manifest's directory is staged so that it is recorded if created.
	[ "${INSTALL_MANIFEST:-yes}" = no ] || install -d "$stage$(dirname "$MANIFEST_PATH")"

	# Keep what an earlier install recorded and is still there, so a
	# reinstall does not forget directories that one created.
	new=$stage.manifest
	: >"$new"
	if [ "${INSTALL_MANIFEST:-yes}" = yes ] && [ -f "$MANIFEST" ]; then
		while read -r tag path; do
			case $tag in
			dir) [ -d "$DESTDIR$path" ] && printf 'dir %s\n' "$path" >>"$new" ;;
			file) { [ -e "$DESTDIR$path" ] || [ -L "$DESTDIR$path" ]; } && printf 'file %s\n' "$path" >>"$new" ;;
			esac
		done <"$MANIFEST"
	fi

	if [ "${INSTALL_MODULES:-yes}" = yes ] && [ -f "$DESTDIR/lib/modules/$KVER/updates/dkms/neuronprof.ko" ]; then
		say "warning: DKMS installed neuronprof for $KVER as well (updates/dkms); modprobe prefers that copy"
	fi

	say "installing into ${DESTDIR:-/}"
	copy_tree "$stage" "$new"

	if [ "${INSTALL_MANIFEST:-yes}" = yes ]; then
		{
			echo "# neuronprof install manifest: what make install put under DESTDIR."
			echo "# make uninstall removes these files, then these directories if empty."
			if [ "${INSTALL_MODULES:-yes}" = yes ]; then
				echo "kver $KVER"
				! has_depmod_index || echo "depmod $KVER"
			fi
			LC_ALL=C sort -u "$new"
		} >"$MANIFEST.tmp"
		mv -f "$MANIFEST.tmp" "$MANIFEST"
	fi

	if [ "${INSTALL_MODULES:-yes}" = no ]; then
		:
	elif has_depmod_index; then
		run_depmod
	else
		say "depmod skipped: $DESTDIR/lib/modules/$KVER/modules.dep does not exist (kernel $KVER is not installed in ${DESTDIR:-/});"
		say "  run 'depmod $KVER' on the target once the modules are in place"
	fi

	if [ -z "$DESTDIR" ] && command -v ldconfig >/dev/null && [ "$(id -u)" -eq 0 ]; then
		ldconfig
	fi
	if [ "${INSTALL_MODULES:-yes}" = yes ] && [ -z "$DESTDIR" ] && [ "$KVER" != "$(uname -r)" ]; then
		say "note: the modules are for kernel $KVER; this machine runs $(uname -r) (on a Neuron instance: make install KVER=\$(uname -r))"
	fi
	if [ "${INSTALL_MANIFEST:-yes}" = yes ]; then
		say "manifest: $MANIFEST"
	else
		say "INSTALL_MANIFEST=no: no manifest written"
	fi
}

# A manifest made by an install with another DESTDIR or PREFIX is never at
# this path, so uninstall cannot remove files of another root.
do_uninstall() {
	local tag path missing=0 removed=0 depmod_kver= dirs=()
	setup
	[ -f "$MANIFEST" ] || die "nothing to uninstall: no manifest at $MANIFEST (install used another DESTDIR or PREFIX?)"

	while read -r tag path; do
		case $tag in
		file)
			if [ -L "$DESTDIR$path" ] || [ -f "$DESTDIR$path" ]; then
				rm -f "$DESTDIR$path" || die "cannot remove $DESTDIR$path"
				removed=$((removed + 1))
			elif [ -e "$DESTDIR$path" ]; then
				say "warning: $DESTDIR$path is no longer a file; left alone"
			else
				missing=$((missing + 1))
			fi
			;;
		dir) dirs+=("$path") ;;
		depmod) depmod_kver=$path ;;
		kver | "#"*) ;;
		*) die "$MANIFEST: unknown line '$tag $path'" ;;
		esac
	done <"$MANIFEST"
	rm -f "$MANIFEST"

	# Deepest first; a directory someone else put files into stays.
	while IFS= read -r path; do
		[ -n "$path" ] && [ -d "$DESTDIR$path" ] || continue
		if ! rmdir "$DESTDIR$path" 2>/dev/null; then
			say "kept $DESTDIR$path: not empty"
		fi
	done < <(printf '%s\n' "${dirs[@]}" | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2- | uniq)

	if [ "$missing" -gt 0 ]; then
		say "removed $removed files ($missing listed files were already gone)"
	else
		say "removed $removed files"
	fi
	if [ -n "$depmod_kver" ]; then
		KVER=$depmod_kver
		if has_depmod_index; then
			run_depmod
		fi
	fi
	if [ -z "$DESTDIR" ] && command -v ldconfig >/dev/null && [ "$(id -u)" -eq 0 ]; then
		ldconfig
	fi
}

case ${1:-} in
install) do_install ;;
uninstall) do_uninstall ;;
*)
	echo "usage: $0 install|uninstall" >&2
	exit 2
	;;
esac
